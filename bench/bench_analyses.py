"""Benchmark: the analyses family on a generated survey pair; seconds and peak memory.

    python bench/bench_analyses.py                    # 1,000,000 records (the budget: 30 s on 2 cores)
    python bench/bench_analyses.py --sizes 100000 --replicates 200

The workload (issue 11): ten estimates by a 20-category domain — means, a total, a ratio, two proportions,
laeken's Gini, ARPR and QSR and a median, so four bootstrapped with 200 replicates — and two regressions
with ten coefficients (a weighted linear model and a weighted logit), on the original and one protected
file (noise, PRAM, suppressions from ``infoloss.synth.protect``).  The time is ``compare()`` with the six
analyses measures, encoding included, reading the CSVs excluded; each size runs in a fresh process so that
its peak memory (max RSS, data included) is its own.  Speed is measured here, never asserted in a test.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's infoloss, not an installed one

BUDGET_S = 30.0
DOMAIN = "c07"  # 20 categories in make_survey(n, n_categorical=13)


def spec_for(original, replicates: int) -> dict:
    from infoloss.synth import make_spec

    spec = make_spec(original)
    by = [DOMAIN]
    spec["analyses"] = {
        "estimates": [
            {"statistic": "mean", "variable": "income", "by": by},
            {"statistic": "mean", "variable": "expenditure", "by": by},
            {"statistic": "total", "variable": "income", "by": by},
            {"statistic": "ratio", "variable": "savings", "denominator": "income", "by": by},
            {"statistic": "proportion", "variable": "tenure", "by": by},
            {"statistic": "proportion", "variable": "education", "by": by},
            {"statistic": "gini", "variable": "income", "by": by},
            {"statistic": "arpr", "variable": "income", "by": by},
            {"statistic": "qsr", "variable": "income", "by": by},
            {"statistic": "median", "variable": "expenditure", "by": by},
        ],
        "regressions": [
            {"name": "earnings", "formula": "np.log(income + 1) ~ age + I(age**2) + sex + education + hours "
                                            "+ np.log(expenditure + 1)"},
            {"name": "owner", "family": "binomial",
             "formula": "I(tenure == 'owner') ~ age + sex + education + np.log(income + 1) + hours"},
        ],
        "ci": {"level": 0.95, "replicates": replicates, "seed": 1},
    }
    return spec


def run(n: int, replicates: int) -> dict:
    from infoloss import compare
    from infoloss.synth import make_survey, protect

    original = make_survey(n, n_continuous=8, n_categorical=13, seed=0)
    protected = protect(original, noise=0.1, pram=0.05, seed=1)
    spec = spec_for(original, replicates)
    ids = ["estimate_ci_overlap", "estimate_inside_ci", "regression_ci_overlap", "regression_sign_agreement",
           "r2_loss"]
    start, cpu = time.perf_counter(), time.process_time()
    report = compare(original, protected, spec, measures=ids, statistics=False, aggregates=False)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    scenario = report.scenarios[0]
    block = scenario.analyses
    return {
        "n": n,
        "replicates": replicates,
        "seconds": round(seconds, 2),
        "cpu_seconds": round(cpu, 2),
        "seconds_per_measure": {k: round(v, 2) for k, v in scenario.seconds.items()},
        "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "n_estimates": len(block["estimates"]),
        "n_coefficients": sum(len(r["coefficients"]) for r in block["regressions"]),
        "values": {k: round(v.value, 4) for k, v in scenario.measures.items()},
        "not_computed": scenario.not_computed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000000", help="comma-separated numbers of records")
    parser.add_argument("--replicates", type=int, default=200)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run(args.child, args.replicates)))
        return
    for n in (int(s) for s in args.sizes.split(",")):
        out = subprocess.run([sys.executable, __file__, "--child", str(n), "--replicates", str(args.replicates)],
                             capture_output=True, text=True, check=False)
        if out.returncode != 0:
            print(f"n={n}: failed\n{out.stderr}")
            continue
        result = json.loads(out.stdout.strip().splitlines()[-1])
        budget = f" (budget {BUDGET_S:.0f} s)" if n == 1_000_000 else ""
        print(f"n={n:>9,}  {result['seconds']:6.1f} s{budget}, cpu {result['cpu_seconds']:.1f} s  peak {result['peak_mb']:,} MB  "
              f"{result['n_estimates']} estimates, {result['n_coefficients']} coefficients, "
              f"{result['replicates']} replicates")
        print(f"    per measure (the first carries the whole computation): {result['seconds_per_measure']}")
        print(f"    values: {result['values']}")
        if result["not_computed"]:
            print(f"    not computed: {result['not_computed']}")


if __name__ == "__main__":
    main()
