"""Benchmark: the mining family (classification/regression and clustering utility); seconds and peak memory.

    python bench/bench_mining.py                         # 1,000,000 rows x 50 variables, two targets
    python bench/bench_mining.py --sizes 100000,1000000 --scenarios 2 --verbose
    python bench/bench_mining.py --unpaired              # protected = an independent draw (synthetic-like)

Budget (issue 10): 1,000,000 x 50 with two targets in under 60 s on 2 cores, every measure of the family
with its default options (5 seeds; models trained on seeded samples of 10,000 records, clusterings on
10,000 records, as each result's details say).  The data are ``infoloss.synth.make_survey`` (30 continuous,
20 categorical variables); the targets are ``income`` (regression) and ``tenure`` (4 classes).  With
``--scenarios 2`` a second protected file is measured against the same original with the original-only
work (splits, reference models, the original's clusterings) shared, as ``compare`` does; its time is
printed separately.  Each size runs in a fresh process so that its peak memory (max RSS) is its own.
Speed is measured here, never asserted in a unit test.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

BUDGET_S = 60
TARGETS = ("income", "tenure")


def _rss_mb() -> int:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def run(n: int, scenarios: int, unpaired: bool) -> dict:
    import infoloss
    from infoloss.pair import encode_pair
    from infoloss.registry import registered
    from infoloss.synth import make_spec, make_survey, protect

    t0 = time.perf_counter()
    original = make_survey(n, n_continuous=30, n_categorical=20, seed=0)
    if unpaired:
        protected = [make_survey(n, n_continuous=30, n_categorical=20, seed=1 + k) for k in range(scenarios)]
    else:
        protected = [protect(original, noise=0.1 * (k + 1), pram=0.05 * (k + 1), seed=1 + k) for k in range(scenarios)]
    spec = make_spec(original)
    spec["pairing"] = "none" if unpaired else "row"
    for name in TARGETS:
        spec["variables"][name]["role"] = "target"
    t_gen = time.perf_counter() - t0
    rss_data = _rss_mb()
    shared: dict = {}
    out = {"generate_s": round(t_gen, 2), "rss_after_data_mb": rss_data, "scenarios": []}
    for k, prot in enumerate(protected):
        t0 = time.perf_counter()
        pair = encode_pair(original, prot, spec, original_cache=shared)
        t_encode = time.perf_counter() - t0
        timings: dict[str, float] = {}
        not_computed: dict[str, str] = {}
        for info in registered():
            if info.family != "mining":
                continue
            t0 = time.perf_counter()
            try:
                if info.needs_pairing and not pair.paired:
                    raise infoloss.NotComputed("unpaired")
                info.func(pair)
            except infoloss.NotComputed as exc:
                not_computed[info.id] = str(exc)
            timings[info.id] = round(time.perf_counter() - t0, 3)
        out["scenarios"].append({"encode_s": round(t_encode, 2), "measures_s": round(sum(timings.values()), 2),
                                 "measures": timings, "not_computed": not_computed})
        del pair
    out["peak_rss_mb"] = _rss_mb()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000000")
    parser.add_argument("--scenarios", type=int, default=1)
    parser.add_argument("--unpaired", action="store_true")
    parser.add_argument("--verbose", action="store_true", help="also print each measure's seconds")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run(args.child, args.scenarios, args.unpaired)))
        return
    print(f"infoloss mining benchmark: 30 continuous + 20 categorical variables, targets {', '.join(TARGETS)}"
          f"{', unpaired' if args.unpaired else ''}")
    for n in (int(s) for s in args.sizes.split(",")):
        cmd = [sys.executable, __file__, "--child", str(n), "--scenarios", str(args.scenarios)]
        cmd += ["--unpaired"] if args.unpaired else []
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            print(done.stderr)
            sys.exit(done.returncode)
        r = json.loads(done.stdout.strip().splitlines()[-1])
        for k, s in enumerate(r["scenarios"]):
            which = "first scenario" if k == 0 else f"scenario {k + 1} (original's work shared)"
            print(f"n={n:>9,} {which}: encode {s['encode_s']:.2f}s; mining measures {s['measures_s']:.2f}s "
                  f"(budget {BUDGET_S} s at 1M)")
            if args.verbose:
                slow = sorted(s["measures"].items(), key=lambda kv: -kv[1])
                print("    ", ", ".join(f"{m} {v:.2f}" for m, v in slow))
            if s["not_computed"]:
                print("    not computed:", "; ".join(f"{m}: {v}" for m, v in s["not_computed"].items()))
        print(f"    peak RSS {r['peak_rss_mb']:,} MB (data alone {r['rss_after_data_mb']:,} MB)")


if __name__ == "__main__":
    main()
