"""A/B benchmark: this checkout against another one, runs alternating, results compared to the bit.

    git worktree add /tmp/infoloss-base <commit>                   # the version to compare with
    python bench/ab.py /tmp/infoloss-base                          # 3 pairs of three-scenario CSV runs
    python bench/ab.py /tmp/infoloss-base --kind one --pairs 5 --format parquet

The virtual machines this runs on change speed by 10-20 % within minutes
(``bench/machine.py``'s matrix product: 80 to 123 ms in one session), more
than most single changes gain, so two versions timed one after the other
compare the machine as much as the code.  Here the other checkout (``base``)
and this one (``work``) take turns, ``--pairs`` times, each run the command
``bench/bench_e2e.py`` times (``--kind one``: one scenario, JSON; ``three``:
three scenarios, JSON and HTML) in a fresh process after ``--settle``
seconds, and every pair is printed with both wall and CPU times (the CPU
seconds vary less).  The medians and the median of the per-pair differences
come last, with the machine's reference line before and after.  Both runs of
a pair must give the same JSON to the bit (``bench/same_results.py``) unless
``--rtol`` allows a tolerance; otherwise the differences are printed and the
exit status is 1.  The measures run are this checkout's six families (those
of ``bench_e2e``); the other checkout must know them all.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_e2e import ROOT, command, make_files, measure_ids, run
from machine import compile_checkout, reference_line
from same_results import differences


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base", type=Path, help="the other checkout (a git worktree of the version to compare with)")
    parser.add_argument("--kind", choices=("one", "three"), default="three")
    parser.add_argument("--format", choices=("csv", "parquet"), default="csv")
    parser.add_argument("--pairs", type=int, default=3, help="pairs of runs (base, then work)")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--dir", default=str(Path(tempfile.gettempdir()) / "infoloss-bench"),
                        help="where the generated files are kept (those of bench_e2e.py)")
    parser.add_argument("--settle", type=float, default=8.0, help="seconds to wait before each run")
    parser.add_argument("--rtol", type=float, default=0.0, help="relative tolerance of the JSON comparison")
    args = parser.parse_args()
    base = args.base.resolve()
    if not (base / "infoloss" / "__init__.py").is_file():
        parser.error(f"{base} is not an infoloss checkout (no infoloss/__init__.py); give the other version's folder.")
    directory = Path(args.dir)
    original, protected, spec = make_files(directory, args.rows, args.format)
    ids = ",".join(measure_ids())
    roots = {"base": base, "work": ROOT}
    for root in roots.values():
        compile_checkout(root)
    print(reference_line(), flush=True)
    print(f"{args.kind} scenario(s), {args.format}, {args.rows:,} rows; base = {base}, work = {ROOT}")
    times: dict[str, list[tuple[float, float]]] = {"base": [], "work": []}
    failed = False
    for k in range(args.pairs):
        outputs = {}
        for name, root in roots.items():
            out = directory / f"ab_{name}_{args.kind}_{args.format}"
            outputs[name] = Path(f"{out}.json")
            for stale in (outputs[name], Path(f"{out}.html")):
                stale.unlink(missing_ok=True)
            time.sleep(args.settle)
            seconds, peak, status, user, system = run(command(args.kind, original, protected, spec, ids, out),
                                                      directory, root)
            if status != 0:
                sys.exit(f"{name}: the command failed with exit status {status}")
            times[name].append((seconds, user + system))
            print(f"  pair {k + 1} {name}: {seconds:6.1f} s  cpu {user + system:6.1f} s  peak RSS {peak:,} MB",
                  flush=True)
        found = differences(*(json.loads(outputs[n].read_text()) for n in ("base", "work")), rtol=args.rtol)
        if found:
            failed = True
            print(f"  pair {k + 1}: {len(found)} difference(s) in the JSON: " + "; ".join(found[:5]))
    for name in ("base", "work"):
        walls, cpus = zip(*times[name])
        print(f"{name}: median {statistics.median(walls):.1f} s wall, {statistics.median(cpus):.1f} s cpu")
    wall_gain = statistics.median(b[0] - w[0] for b, w in zip(times["base"], times["work"]))
    cpu_gain = statistics.median(b[1] - w[1] for b, w in zip(times["base"], times["work"]))
    print(f"work is faster by a median {wall_gain:+.1f} s wall, {cpu_gain:+.1f} s cpu per pair"
          f"{'' if failed else '; the same JSON to the bit' if args.rtol == 0 else f'; the same JSON within rtol {args.rtol:g}'}")
    print(reference_line(), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
