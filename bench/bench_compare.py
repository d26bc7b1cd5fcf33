"""Benchmark: the measures and the report on generated survey pairs; seconds and peak memory.

    python bench/bench_compare.py                          # every group at 100,000 and 1,000,000 rows x 50 variables
    python bench/bench_compare.py --sizes 100000 --groups foundation,gdu --verbose
    python bench/bench_compare.py --unpaired               # protected = independent draw (synthetic-like)

Groups (each the measures of one issue, with its time budget at 1,000,000 x 50 on 2 cores):

    foundation  record-level and moment measures          20 s, 6 GB
    tables      table, distribution and propensity ones   30 s
    gdu         the global data utility model             60 s
    report      aggregates + HTML for three scenarios     15 s on top of the measures

The data: 30 continuous and 20 categorical variables (2 to 50 levels) from
``infoloss.synth.make_survey``; the protected file adds noise, PRAM-like swaps and
suppressions (``infoloss.synth.protect``).  Each size and group runs in a fresh
process so that its peak memory (max RSS, data included) is its own.  Speed is
measured here, never asserted in a unit test.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

GROUPS = {
    "foundation": ("record", "moments"),
    "tables": ("tables", "distributions", "propensity"),
    "gdu": ("gdu",),
    "report": (),
}
BUDGET_S = {"foundation": 20, "tables": 30, "gdu": 60, "report": 15}


def _rss_mb() -> int:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def _data(n: int, unpaired: bool, scenarios: int = 1):
    from infoloss.synth import make_spec, make_survey, protect

    original = make_survey(n, n_continuous=30, n_categorical=20, seed=0)
    if unpaired:
        protected = [make_survey(n, n_continuous=30, n_categorical=20, seed=1 + k) for k in range(scenarios)]
    else:
        protected = [protect(original, noise=0.1 * (k + 1), pram=0.05 * (k + 1), seed=1 + k) for k in range(scenarios)]
    spec = make_spec(original)
    if unpaired:
        spec["pairing"] = "none"
    return original, protected, spec


def run_measures(n: int, group: str, unpaired: bool) -> dict:
    import infoloss
    from infoloss.pair import encode_pair
    from infoloss.registry import registered

    t0 = time.perf_counter()
    original, (protected,), spec = _data(n, unpaired)
    t_gen = time.perf_counter() - t0
    rss_data = _rss_mb()
    t0 = time.perf_counter()
    pair = encode_pair(original, protected, spec)
    t_encode = time.perf_counter() - t0
    timings: dict[str, float] = {}
    not_computed: dict[str, str] = {}
    for info in registered():
        if info.family not in GROUPS[group]:
            continue
        t0 = time.perf_counter()
        try:
            if info.needs_pairing and not pair.paired:
                raise infoloss.NotComputed("unpaired")
            info.func(pair)
        except infoloss.NotComputed as exc:
            not_computed[info.id] = str(exc)
        timings[info.id] = round(time.perf_counter() - t0, 3)
    return {
        "generate_s": round(t_gen, 2),
        "encode_s": round(t_encode, 2),
        "measures_s": round(sum(timings.values()), 2),
        "measures": timings,
        "not_computed": not_computed,
        "rss_after_data_mb": rss_data,
        "peak_rss_mb": _rss_mb(),
    }


def run_report(n: int, unpaired: bool) -> dict:
    """Three scenarios: the plot data (aggregates) of each pair, then the HTML of the whole report."""
    import infoloss

    t0 = time.perf_counter()
    original, protected, spec = _data(n, unpaired, scenarios=3)
    t_gen = time.perf_counter() - t0
    rss_data = _rss_mb()
    from infoloss.aggregates import summarise
    from infoloss.pair import encode_pair

    shared: dict = {}  # as in compare: the original is converted (and summarised) once for all scenarios
    pairs = [encode_pair(original, p, spec, original_cache=shared) for p in protected]
    t0 = time.perf_counter()
    for pair in pairs:
        summarise(pair)
    t_agg = time.perf_counter() - t0
    del pairs
    t0 = time.perf_counter()
    report = infoloss.compare(original, protected, spec, measures=["missing_values"], aggregates=True)
    t_compare = time.perf_counter() - t0
    t0 = time.perf_counter()
    html = report.to_html()
    t_html = time.perf_counter() - t0
    t0 = time.perf_counter()
    safe = report.to_html(safe=True)
    t_safe = time.perf_counter() - t0
    return {
        "generate_s": round(t_gen, 2),
        "compare_s": round(t_compare, 2),
        "aggregates_s": round(t_agg, 2),
        "html_s": round(t_html, 2),
        "safe_html_s": round(t_safe, 2),
        "measures_s": round(t_agg + t_html, 2),
        "page_mb": round(len(html.encode()) / 1e6, 2),
        "safe_page_mb": round(len(safe.encode()) / 1e6, 2),
        "rss_after_data_mb": rss_data,
        "peak_rss_mb": _rss_mb(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--groups", default=",".join(GROUPS))
    parser.add_argument("--unpaired", action="store_true")
    parser.add_argument("--verbose", action="store_true", help="also print each measure's seconds")
    parser.add_argument("--child", nargs=2, metavar=("N", "GROUP"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        n, group = int(args.child[0]), args.child[1]
        result = run_report(n, args.unpaired) if group == "report" else run_measures(n, group, args.unpaired)
        print(json.dumps(result))
        return
    groups = [g for g in args.groups.split(",") if g]
    unknown = [g for g in groups if g not in GROUPS]
    if unknown:
        parser.error(f"unknown group {unknown[0]!r}; choose from {', '.join(GROUPS)}")
    print(f"infoloss benchmark: 30 continuous + 20 categorical variables{', unpaired' if args.unpaired else ''}")
    for n in (int(s) for s in args.sizes.split(",")):
        for group in groups:
            cmd = [sys.executable, __file__, "--child", str(n), group] + (["--unpaired"] if args.unpaired else [])
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                print(done.stderr)
                sys.exit(done.returncode)
            r = json.loads(done.stdout.strip().splitlines()[-1])
            _print(n, group, r, args.verbose)


def _print(n: int, group: str, r: dict, verbose: bool) -> None:
    head = f"n={n:>9,} {group:<10}"
    mem = f"peak RSS {r['peak_rss_mb']:,} MB (data alone {r['rss_after_data_mb']:,} MB)"
    if group == "report":
        print(f"{head} aggregates {r['aggregates_s']:.2f}s + HTML {r['html_s']:.2f}s = {r['measures_s']:.2f}s "
              f"(budget {BUDGET_S[group]} s at 1M); safe HTML {r['safe_html_s']:.2f}s; page {r['page_mb']} MB, "
              f"safe page {r['safe_page_mb']} MB; {mem}")
        return
    print(f"{head} encode {r['encode_s']:.2f}s; measures {r['measures_s']:.2f}s (budget {BUDGET_S[group]} s at 1M); {mem}")
    if verbose:
        slow = sorted(r["measures"].items(), key=lambda kv: -kv[1])
        print("    ", ", ".join(f"{k} {v:.2f}" for k, v in slow))
    if r["not_computed"]:
        print("    not computed:", "; ".join(f"{k}: {v}" for k, v in r["not_computed"].items()))


if __name__ == "__main__":
    main()
