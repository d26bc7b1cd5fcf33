"""Benchmark: compare() on generated survey pairs, seconds and peak memory per size.

    python bench/bench_compare.py                    # 100,000 and 1,000,000 rows x 50 variables
    python bench/bench_compare.py --sizes 100000 --families record,moments
    python bench/bench_compare.py --unpaired         # protected = independent draw (synthetic-like)

Each size runs in a fresh process so that peak memory (max RSS) is that size's own.
Prints one line per family and size: seconds for encoding and for the measures, peak RSS.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time


def run_one(n: int, families: list[str], unpaired: bool) -> dict:
    import infoloss
    from infoloss.pair import encode_pair
    from infoloss.registry import registered
    from infoloss.synth import make_spec, make_survey, protect

    t0 = time.perf_counter()
    original = make_survey(n, n_continuous=30, n_categorical=20, seed=0)
    protected = make_survey(n, n_continuous=30, n_categorical=20, seed=1) if unpaired else protect(original, seed=1)
    spec = make_spec(original)
    if unpaired:
        spec["pairing"] = "none"
    t_gen = time.perf_counter() - t0
    rss_data = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    t0 = time.perf_counter()
    pair = encode_pair(original, protected, spec)
    t_encode = time.perf_counter() - t0
    out = {"n": n, "generate_s": round(t_gen, 2), "encode_s": round(t_encode, 2), "rss_after_data_mb": round(rss_data)}
    timings: dict[str, dict[str, float]] = {}
    not_computed: dict[str, str] = {}
    for info in registered():
        if info.family not in families:
            continue
        t0 = time.perf_counter()
        try:
            if info.needs_pairing and not pair.paired:
                raise infoloss.NotComputed("unpaired")
            info.func(pair)
        except infoloss.NotComputed as exc:
            not_computed[info.id] = str(exc)
        timings.setdefault(info.family, {})[info.id] = round(time.perf_counter() - t0, 3)
    out["families"] = {f: round(sum(t.values()), 2) for f, t in timings.items()}
    out["measures"] = timings
    out["not_computed"] = not_computed
    out["total_measures_s"] = round(sum(out["families"].values()), 2)
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--families", default="record,moments")
    parser.add_argument("--unpaired", action="store_true")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--verbose", action="store_true", help="also print each measure's seconds")
    args = parser.parse_args()
    families = args.families.split(",")
    if args.child:
        print(json.dumps(run_one(args.child, families, args.unpaired)))
        return
    print(f"infoloss compare benchmark: 30 continuous + 20 categorical variables, families {families}"
          f"{', unpaired' if args.unpaired else ''}")
    for n in (int(s) for s in args.sizes.split(",")):
        cmd = [sys.executable, __file__, "--child", str(n), "--families", args.families]
        if args.unpaired:
            cmd.append("--unpaired")
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            print(done.stderr)
            sys.exit(done.returncode)
        r = json.loads(done.stdout.strip().splitlines()[-1])
        fam = ", ".join(f"{k} {v:.2f}s" for k, v in r["families"].items())
        print(f"n={n:>9,}: encode {r['encode_s']:.2f}s; measures {r['total_measures_s']:.2f}s ({fam}); "
              f"peak RSS {r['peak_rss_mb']:,} MB (data alone {r['rss_after_data_mb']:,} MB; generating took {r['generate_s']:.1f}s)")
        if args.verbose:
            for family, timings in r["measures"].items():
                slow = sorted(timings.items(), key=lambda kv: -kv[1])
                print("   ", family + ":", ", ".join(f"{k} {v:.2f}" for k, v in slow))
        if r["not_computed"]:
            print("    not computed:", "; ".join(f"{k}: {v}" for k, v in r["not_computed"].items()))


if __name__ == "__main__":
    main()
