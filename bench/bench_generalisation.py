"""Benchmark: the generalisation family on a large k-anonymised file; seconds and peak memory.

    python bench/bench_generalisation.py                  # 1,000,000 records (the issue's budget: 10 s on 2 cores)
    python bench/bench_generalisation.py --n 100000 --verbose

The data: 8 quasi-identifiers with hierarchies of 3 to 5 levels — six ARX-style
hierarchy files (16 to 2,000 leaves), a continuous variable with an interval
hierarchy and a 5-digit code with a masking hierarchy — and a sensitive
variable.  The protected file is a full-domain generalisation (ARX's scheme)
with every class smaller than k = 5 suppressed (``*``).  The timings are the
encoding of the pair (hierarchy files read, every value mapped to a node) and
each measure of the family; peak memory is the process's max RSS, data
included.  Speed is measured here, never asserted in a unit test.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's infoloss

FILES = [("region", 20, 3), ("occupation", 50, 4), ("industry", 100, 4), ("country", 500, 5), ("job", 2000, 5),
         ("education", 16, 3)]
LEVELS = {"region": 2, "occupation": 3, "industry": 3, "country": 4, "job": 4, "education": 2, "age": 3, "zip": 4}


def _rss_mb() -> int:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def _tree(rng: np.random.Generator, name: str, n_leaves: int, height: int) -> list[np.ndarray]:
    """Label arrays per level: each level groups the previous one's groups in about a third as many."""
    groups = np.arange(n_leaves)
    columns = [np.array([f"{name}{i}" for i in range(n_leaves)], dtype=object)]
    for k in range(1, height):
        n_groups = max(1, int(np.ceil((groups.max() + 1) / 3)))
        groups = np.sort(rng.integers(0, n_groups, groups.max() + 1))[groups]
        columns.append(np.array([f"{name}_L{k}_{g}" for g in groups], dtype=object))
    columns.append(np.array(["*"] * n_leaves, dtype=object))
    return columns


def make_data(n: int, folder: Path, k: int = 5, seed: int = 0):
    rng = np.random.default_rng(seed)
    orig, prot, variables = {}, {}, {}
    for name, n_leaves, height in FILES:
        levels = _tree(rng, name, n_leaves, height)
        path = folder / f"{name}.csv"
        pd.DataFrame(dict(enumerate(levels))).to_csv(path, sep=";", header=False, index=False)
        weights = rng.zipf(1.6, n_leaves).astype(float)
        codes = rng.choice(n_leaves, n, p=weights / weights.sum())
        orig[name] = levels[0][codes]
        prot[name] = levels[LEVELS[name]][codes]
        variables[name] = {"scale": "nominal", "role": "key", "hierarchy": path.name}
    age = np.clip(rng.normal(42, 16, n).round(), 0, 99)
    orig["age"] = age
    breaks = np.arange(0, 105, 5)
    # level 2 of [0, 5), ..., nested by 2, 2: intervals of 20
    low = (age // 20) * 20
    prot["age"] = np.array([f"[{int(a)}, {int(a) + 20})" for a in range(0, 100, 20)], dtype=object)[(low // 20).astype(int)]
    variables["age"] = {"scale": "continuous", "role": "key",
                        "hierarchy": {"intervals": [int(b) for b in breaks], "nesting": [2, 2, 5]}}
    zips = np.array([f"{z:05d}" for z in rng.choice(np.arange(10000, 99999, 7), 5000, replace=False)], dtype=object)
    zc = rng.integers(0, zips.size, n)
    orig["zip"] = zips[zc]
    prot["zip"] = np.array([z[:1] + "****" for z in zips], dtype=object)[zc]
    variables["zip"] = {"scale": "nominal", "role": "key", "hierarchy": {"mask": "right"}}
    orig["income"] = rng.choice(["low", "mid", "high"], n)
    prot["income"] = orig["income"]
    variables["income"] = {"scale": "nominal", "role": "sensitive"}
    orig, prot = pd.DataFrame(orig), pd.DataFrame(prot)
    keys = list(LEVELS)
    sizes = prot.groupby(keys, sort=False)[keys[0]].transform("size").to_numpy()
    prot.loc[sizes < k, keys] = "*"
    return orig, prot, {"variables": variables}, int((sizes < k).sum())


def run(n: int, verbose: bool) -> dict:
    from infoloss.pair import encode_pair
    from infoloss.registry import registered
    from infoloss.spec import spec_from_dict

    folder = Path(tempfile.mkdtemp(prefix="bench_generalisation_"))
    t0 = time.perf_counter()
    orig, prot, raw, suppressed = make_data(n, folder)
    t_data = time.perf_counter() - t0
    rss_data = _rss_mb()
    t0 = time.perf_counter()
    spec = spec_from_dict(raw, base_dir=folder)
    pair = encode_pair(orig, prot, spec)
    t_encode = time.perf_counter() - t0
    timings = {}
    for info in registered():
        if info.family != "generalisation":
            continue
        t0 = time.perf_counter()
        result = info.func(pair)
        timings[info.id] = time.perf_counter() - t0
        if verbose:
            print(f"  {info.id:28s} {timings[info.id]:6.2f} s  value {result.value:.6g}", file=sys.stderr)
    total = sum(timings.values())
    return {
        "n": n,
        "quasi_identifiers": len(LEVELS),
        "suppressed": suppressed,
        "seconds_data": round(t_data, 2),
        "seconds_encode": round(t_encode, 2),
        "seconds_measures": round(total, 2),
        "seconds_encode_and_measures": round(t_encode + total, 2),
        "slowest": sorted(((round(v, 2), k) for k, v in timings.items()), reverse=True)[:4],
        "peak_mb": _rss_mb(),
        "peak_mb_data": rss_data,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    print(json.dumps(run(args.n, args.verbose)))


if __name__ == "__main__":
    main()
