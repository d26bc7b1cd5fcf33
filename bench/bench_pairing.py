"""Benchmark: nearest-record pairing (``pairing: nearest``); seconds and peak memory.

    python bench/bench_pairing.py                       # 1,000,000 x 50, both scenarios
    python bench/bench_pairing.py --sizes 100000 --scenarios synthetic

The data: ``infoloss.synth.make_survey`` with 30 continuous and 20 categorical
variables (50 columns), whose spec marks ``sex``, ``region``, ``education``
(categorical) and ``age`` as keys, so the matching variables are 3
categorical keys (144 exact-match blocks) and the 30 continuous variables.

Scenarios (each in a fresh process, so its peak memory is its own):

    synthetic   protected = an independent draw of the same generator (a synthetic file)
    masked      protected = noise 10 %, PRAM 5 %, 1 % suppressed key values (suppressed keys
                are matched on the other keys: the relaxation levels run)

Printed: seconds of the pairing alone (the search and the paired view), of
il1s on the view, and the peak RSS (data included).  Budget at 1,000,000 x 50
on 2 cores: 30 s for the pairing.  Run under ``flock /tmp/infoloss-heavy.lock``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout this script is in
BUDGET_S = 30


def _rss_mb() -> int:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def run(n: int, scenario: str) -> dict:
    from infoloss.measures.record import il1s
    from infoloss.pair import encode_pair
    from infoloss.synth import make_spec, make_survey, protect

    original = make_survey(n, n_continuous=30, n_categorical=20, seed=0)
    if scenario == "synthetic":
        protected = make_survey(n, n_continuous=30, n_categorical=20, seed=1)
    else:
        protected = protect(original, noise=0.1, pram=0.05, seed=1)
    spec = make_spec(original)
    spec["pairing"] = "nearest"
    rss_data = _rss_mb()
    t0 = time.perf_counter()
    pair = encode_pair(original, protected, spec)
    t_encode = time.perf_counter() - t0
    t0 = time.perf_counter()
    pair.paired_view()
    t_pair = time.perf_counter() - t0
    t0 = time.perf_counter()
    il1s(pair)
    t_il1s = time.perf_counter() - t0
    s = pair.nearest.summary
    return {
        "encode_s": round(t_encode, 2),
        "pairing_s": round(t_pair, 2),
        "il1s_s": round(t_il1s, 2),
        "median_distance": round(s["distance_quantiles"]["0.5"], 3),
        "share_exact": round(s["share_exact"], 4),
        "key_mismatches": s["key_mismatches"],
        "rss_after_data_mb": rss_data,
        "peak_rss_mb": _rss_mb(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000000")
    parser.add_argument("--scenarios", default="synthetic,masked")
    parser.add_argument("--child", nargs=2, metavar=("N", "SCENARIO"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run(int(args.child[0]), args.child[1])))
        return
    print("infoloss nearest-record pairing: make_survey, 30 continuous + 20 categorical (3 categorical keys)")
    for n in (int(v) for v in args.sizes.split(",")):
        for scenario in args.scenarios.split(","):
            done = subprocess.run([sys.executable, __file__, "--child", str(n), scenario], capture_output=True, text=True)
            if done.returncode != 0:
                print(done.stderr)
                sys.exit(done.returncode)
            r = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"n={n:>9,} {scenario:<9} pairing {r['pairing_s']:.2f}s (budget {BUDGET_S} s at 1M), "
                  f"encode {r['encode_s']:.2f}s, il1s on the view {r['il1s_s']:.2f}s; median distance "
                  f"{r['median_distance']}, exact {100 * r['share_exact']:.2f} %, key mismatches {r['key_mismatches']}; "
                  f"peak RSS {r['peak_rss_mb']:,} MB (data alone {r['rss_after_data_mb']:,} MB)")


if __name__ == "__main__":
    main()
