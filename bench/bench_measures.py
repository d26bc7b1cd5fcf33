"""Benchmark: seconds of every measure of the record, moments, tables, distributions, propensity and
GDU families (and the statistics, aggregates and before/after tables of the JSON) on one encoded pair.

    python bench/bench_measures.py                       # the 1,000,000 x 50 Parquet files of bench_e2e.py
    python bench/bench_measures.py --rows 200000 --only ks,pmse

The files are the ones ``bench/bench_e2e.py`` writes (run it once with ``--formats parquet``
first).  The pair is read and encoded once (not timed); then the measures run in the order
``compare`` runs them, on the same pair, so that shared work (``pair.levels``, tables, the
propensity design) is charged to the first measure that needs it, as in a real run (the sorted
levels, shared by KS and the GDU model, are charged to ``ks``).  Prints the wall-clock seconds
of each step (and the CPU seconds of the process, a check on other load of the machine), each
family's sum and the total.  Speed is measured here, never asserted in a unit test.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAMILIES = ("record", "moments", "tables", "distributions", "propensity", "gdu")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--dir", default=str(Path(tempfile.gettempdir()) / "infoloss-bench"))
    parser.add_argument("--only", default="", help="comma-separated measure ids (default: every one of the families)")
    parser.add_argument("--save", default="", help="write every result to this pickle file (to compare two checkouts)")
    parser.add_argument("--min", type=float, default=0.05, help="print only steps slower than this (seconds)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    import pyarrow.parquet as pq

    import infoloss
    import importlib

    cmp = importlib.import_module("infoloss.compare")
    from infoloss.registry import registered

    directory = Path(args.dir)
    t0 = time.perf_counter()
    original = pq.read_table(directory / f"original_{args.rows}.parquet").to_pandas()
    protected = pq.read_table(directory / f"protected1_{args.rows}.parquet").to_pandas()
    pair = infoloss.encode_pair(original, protected, infoloss.load_spec(directory / f"spec_{args.rows}.yaml"))
    del original, protected
    print(f"read and encoded {args.rows:,} rows in {time.perf_counter() - t0:.1f} s (not counted)")
    ids = [m.id for m in registered() if m.family in FAMILIES]
    family = {m.id: m.family for m in registered()}
    if args.only:
        ids = [i for i in ids if i in args.only.split(",")]
    steps = [(mid, (lambda f: lambda: f(pair))(infoloss.registry.get(mid).func)) for mid in ids]
    if not args.only:
        from infoloss.before_after import before_after_tables

        steps += [("(statistics)", lambda: cmp._statistics(pair)), ("(tables)", lambda: before_after_tables(pair)),
                  ("(aggregates)", lambda: cmp._aggregates(pair))]
    total = total_cpu = 0.0
    saved, by_family = {}, {}
    for name, step in steps:
        start, cpu = time.perf_counter(), time.process_time()
        saved[name] = step()
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        total += seconds
        total_cpu += cpu
        by_family[family.get(name, "(json)")] = by_family.get(family.get(name, "(json)"), 0.0) + seconds
        if seconds >= args.min:
            print(f"  {name:<22} {seconds:6.2f} s  (cpu {cpu:6.2f} s)", flush=True)
    for name, seconds in by_family.items():
        print(f"  family {name:<15} {seconds:6.2f} s")
    print(f"  {'total':<22} {total:6.2f} s  (cpu {total_cpu:6.2f} s)")
    if args.save:
        import pickle

        Path(args.save).write_bytes(pickle.dumps(saved))


if __name__ == "__main__":
    main()
