"""Benchmark: the risk family on a generated survey pair; seconds and peak memory.

    flock /tmp/infoloss-heavy.lock python bench/bench_risk.py                 # 1,000,000 records, 8 key variables
    python bench/bench_risk.py --sizes 100000 --steps freq,suda

Steps (each in a fresh process, so that its peak memory, data included, is its own), with the budget
of issue 12 at 1,000,000 records and 8 key variables on 2 cores:

    freq      fk/Fk with the missing-value wildcard, individual and global risk, one file     5 s
    suda      SUDA2 (minimal sample uniques, SUDA and DIS scores), one file                  60 s
    measures  every fk-based and SUDA measure of the family, original and protected file     (for information)

The data: ``infoloss.synth.make_survey`` (weights, age, region, sex, education, tenure and three
more categorical variables as the 8 keys: 2 to 90 categories) and its ``protect`` version (PRAM-like
swaps, 1 % of the values of sex, region, education and age suppressed, so the wildcard is exercised).
The seconds exclude reading and encoding the files.  Speed is measured here, never asserted in a test.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

KEYS = ("sex", "region", "education", "age", "tenure", "c05", "c06", "c07")
BUDGET_S = {"freq": 5, "suda": 60, "measures": None}


def _rss_mb() -> int:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def _pair(n: int):
    from infoloss.pair import encode_pair
    from infoloss.synth import make_spec, make_survey, protect

    original = make_survey(n, n_continuous=4, n_categorical=8, seed=0)
    protected = protect(original, noise=0.1, pram=0.05, suppress=0.01, seed=1)
    spec = make_spec(original)
    for name in KEYS:
        spec["variables"][name]["role"] = "key"
    return encode_pair(original, protected, spec)


def run(n: int, step: str) -> dict:
    from infoloss.pair import PROTECTED
    from infoloss.risk.files import file_risk, file_suda, key_codes

    pair = _pair(n)
    keys = key_codes(pair, PROTECTED)
    out = {"n": n, "step": step, "key_variables": len(KEYS),
           "records_with_missing_keys": int((keys < 0).any(axis=1).sum())}
    start = time.perf_counter()
    if step == "freq":
        risk = file_risk(pair, PROTECTED)
        out.update(global_risk=risk.global_risk, sample_uniques=int((risk.fk == 1).sum()))
    elif step == "suda":
        res = file_suda(pair, PROTECTED)
        out.update(records_with_msu=int((res.score > 0).sum()), subsets_visited=res.subsets_visited,
                   mean_dis=float(res.dis.mean()))
    else:
        from infoloss.registry import registered

        for info in registered():
            if info.family == "risk" and info.id not in ("l_diversity", "t_closeness", "household_risk") \
                    and info.needs_pairing is False and info.id not in ("exact_copies", "dcr_holdout"):
                info.func(pair)
    out["seconds"] = round(time.perf_counter() - start, 2)
    out["peak_mb"] = _rss_mb()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000000", help="record counts, comma-separated")
    parser.add_argument("--steps", default="freq,suda,measures", help="steps, comma-separated")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run(int(args.child[0]), args.child[1])))
        return
    for n in (int(s) for s in args.sizes.split(",")):
        for step in args.steps.split(","):
            res = subprocess.run([sys.executable, __file__, "--child", str(n), step], capture_output=True, text=True)
            if res.returncode != 0:
                print(f"{step} at {n:,}: failed\n{res.stderr}", file=sys.stderr)
                continue
            out = json.loads(res.stdout.strip().splitlines()[-1])
            budget = BUDGET_S.get(step)
            verdict = "" if budget is None else (" (budget %d s: %s)" % (budget, "ok" if out["seconds"] <= budget
                                                                          else "OVER"))
            extra = {k: v for k, v in out.items() if k not in ("n", "step", "seconds", "peak_mb")}
            print(f"{step:9s} n={n:>9,}  {out['seconds']:7.2f} s  peak {out['peak_mb']:6,} MB{verdict}  {extra}")


if __name__ == "__main__":
    main()
