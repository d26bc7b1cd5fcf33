"""Benchmark: every measure and the HTML report on a file with a 100,000-category nominal variable.

    python bench/bench_cardinality.py                       # 200,000 records, one 100,000-category column
    python bench/bench_cardinality.py --unpaired            # the protected file unpaired (pairing: none)
    python bench/bench_cardinality.py --high 2 --verbose    # two such columns; each measure's seconds

The original file: ``infoloss.synth.make_survey`` with 5 continuous and 5
categorical variables (4 nominal, 1 ordinal; 2 to 12 levels), a weight and an
id, plus ``--high`` nominal columns (``occupation``, ``occupation2``, ...) of
``--categories`` categories, each category used twice or more (an id-like
column declared nominal by mistake, or a very detailed occupation code).  The
protected file is ``infoloss.synth.protect`` (noise, PRAM-like swaps — the
high-cardinality columns included — and local suppression).

``compare`` runs every registered measure, the descriptive statistics and the
report's aggregates; then the HTML report is rendered (full and safe mode) and
the JSON written to a string.  The script prints the
seconds per family, the measures that were not computed (with their reasons)
and the peak memory of the process (max RSS, data included), which must stay
under 2 GB (issue 8).  The run is in a fresh child process so that the peak
is its own.  Speed and memory are measured here, never asserted in a unit test.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the infoloss of this checkout, not an installed one
LIMIT_MB = 2048


def _rss_mb() -> int:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def make_data(n: int, categories: int, high: int, unpaired: bool, seed: int = 0):
    """The original, protected and spec of the benchmark (see the module documentation)."""
    import numpy as np
    import pandas as pd

    from infoloss.synth import make_spec, make_survey, protect

    original = make_survey(n, n_continuous=5, n_categorical=5, seed=seed)
    rng = np.random.default_rng(seed + 7)
    names = ["occupation"] + [f"occupation{k + 1}" for k in range(1, high)]
    labels = [f"occ{i:06d}" for i in range(categories)]
    for name in names:
        codes = rng.permutation(np.arange(n) % categories)
        original[name] = pd.Categorical.from_codes(codes, categories=labels)
    protected = protect(original, seed=seed + 1)
    spec = make_spec(original)
    for name in names:
        spec["variables"][name] = {"scale": "nominal"}
    if unpaired:
        spec["pairing"] = "none"
    return original, protected, spec


def run(n: int, categories: int, high: int, unpaired: bool) -> dict:
    import infoloss
    from infoloss.registry import get

    t0 = time.perf_counter()
    original, protected, spec = make_data(n, categories, high, unpaired)
    t_data = time.perf_counter() - t0
    rss_data = _rss_mb()
    t0 = time.perf_counter()
    report = infoloss.compare(original, protected, spec, statistics=True, aggregates=True)
    t_compare = time.perf_counter() - t0
    t0 = time.perf_counter()
    html = report.to_html()
    t_html = time.perf_counter() - t0
    t0 = time.perf_counter()
    safe = report.to_html(safe=True)
    t_safe = time.perf_counter() - t0
    t0 = time.perf_counter()
    text = report.to_json()
    t_json = time.perf_counter() - t0
    scenario = report.scenarios[0]
    families: dict[str, float] = {}
    for mid, seconds in scenario.seconds.items():
        family = get(mid).family
        families[family] = families.get(family, 0.0) + seconds
    return {
        "data_s": round(t_data, 2),
        "compare_s": round(t_compare, 2),
        "measures_s": round(sum(scenario.seconds.values()), 2),
        "other_s": round(t_compare - sum(scenario.seconds.values()), 2),
        "families": {k: round(v, 2) for k, v in families.items()},
        "measures": {k: round(v, 3) for k, v in scenario.seconds.items()},
        "computed": len(scenario.measures),
        "not_computed": scenario.not_computed,
        "html_s": round(t_html, 2),
        "html_mb": round(len(html.encode()) / 1e6, 2),
        "safe_html_s": round(t_safe, 2),
        "safe_html_mb": round(len(safe.encode()) / 1e6, 2),
        "json_s": round(t_json, 2),
        "json_mb": round(len(text.encode()) / 1e6, 2),
        "rss_after_data_mb": rss_data,
        "peak_rss_mb": _rss_mb(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--categories", type=int, default=100_000)
    parser.add_argument("--high", type=int, default=1, help="number of high-cardinality nominal columns")
    parser.add_argument("--unpaired", action="store_true")
    parser.add_argument("--verbose", action="store_true", help="also print each measure's seconds")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run(args.records, args.categories, args.high, args.unpaired)))
        return
    cmd = [sys.executable, __file__, "--child", "--records", str(args.records), "--categories", str(args.categories),
           "--high", str(args.high)] + (["--unpaired"] if args.unpaired else [])
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        print(done.stderr)
        sys.exit(done.returncode)
    r = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"infoloss cardinality benchmark: {args.records:,} records, {args.high} nominal column(s) of "
          f"{args.categories:,} categories + 10 ordinary variables{', unpaired' if args.unpaired else ''}")
    print(f"  data {r['data_s']} s; compare {r['compare_s']} s (measures {r['measures_s']} s, statistics + "
          f"aggregates + encoding {r['other_s']} s); HTML {r['html_s']} s ({r['html_mb']} MB), safe HTML "
          f"{r['safe_html_s']} s ({r['safe_html_mb']} MB); "
          f"JSON {r['json_s']} s ({r['json_mb']} MB)")
    print("  seconds per family: " + ", ".join(f"{k} {v:.2f}" for k, v in r["families"].items()))
    if args.verbose:
        slow = sorted(r["measures"].items(), key=lambda kv: -kv[1])
        print("  per measure: " + ", ".join(f"{k} {v:.2f}" for k, v in slow))
    print(f"  computed {r['computed']} measures; not computed {len(r['not_computed'])}:")
    for mid, reason in r["not_computed"].items():
        print(f"    {mid}: {reason}")
    verdict = "OK" if r["peak_rss_mb"] < LIMIT_MB else "OVER THE LIMIT"
    print(f"  peak RSS {r['peak_rss_mb']:,} MB (data alone {r['rss_after_data_mb']:,} MB); limit {LIMIT_MB:,} MB: "
          f"{verdict}")


if __name__ == "__main__":
    main()
