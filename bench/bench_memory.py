"""Where the peak memory of ``compare`` comes from: resident memory per phase, sampled in a thread.

    python bench/bench_memory.py                       # 1,000,000 x 50 CSV files of bench_e2e.py, one scenario
    python bench/bench_memory.py --format parquet --scenarios 3 --html
    python bench/bench_memory.py --rows 200000

Runs :func:`infoloss.compare` in this process on the files that
``bench/bench_e2e.py`` generates (it generates them when absent) with the
measures of its families, then the JSON (and with ``--html`` the report).  A
thread reads the resident set size from ``/proc/self/statm`` every 5 ms; each
sample is charged to the phase running at that moment (reading a file,
encoding the pair, each measure, the descriptive statistics, the report's
aggregates, the JSON, the HTML).  Printed: each phase's highest RSS and the
RSS when it ended, in MB, and the process's peak (``VmHWM``).  Linux only.
Memory is measured here, never asserted in a unit test.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * PAGE / 2**20


def hwm_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM"):
                return int(line.split()[1]) / 1024
    return float("nan")


class Phases:
    """The running phase's label and, per phase, the highest RSS sampled and the RSS at its end."""

    def __init__(self) -> None:
        self.label = "start-up"
        self.rows: list[list] = [["start-up", rss_mb(), 0.0, time.perf_counter()]]
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()

    def _sample(self) -> None:
        while not self.stop.is_set():
            row = self.rows[-1]
            row[1] = max(row[1], rss_mb())
            time.sleep(0.005)

    def enter(self, label: str) -> None:
        now = rss_mb()
        row = self.rows[-1]
        row[1] = max(row[1], now)
        row[2] = now
        row[3] = time.perf_counter() - row[3]
        self.rows.append([label, now, 0.0, time.perf_counter()])

    def finish(self) -> None:
        self.enter("end")
        self.stop.set()
        self.thread.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--format", default="csv")
    parser.add_argument("--scenarios", type=int, default=1, choices=(1, 2, 3))
    parser.add_argument("--html", action="store_true", help="also the aggregates and the HTML report")
    parser.add_argument("--dir", default=str(Path(tempfile.gettempdir()) / "infoloss-bench"))
    parser.add_argument("--top", type=int, default=25, help="phases printed (highest first); 0: all, in order")
    args = parser.parse_args()

    from bench_e2e import make_files, measure_ids

    original, protected, spec = make_files(Path(args.dir), args.rows, args.format)
    ids = measure_ids()
    phases = Phases()

    import importlib

    cmp = importlib.import_module("infoloss.compare")
    io = importlib.import_module("infoloss.io")

    read_table, encode_pair = io.read_table, cmp.encode_pair

    def reading(path, *a, **k):
        phases.enter(f"read {Path(path).name}")
        return read_table(path, *a, **k)

    def encoding(*a, **k):
        phases.enter("encode pair")
        return encode_pair(*a, **k)

    io.read_table, cmp.encode_pair = reading, encoding
    statistics, aggregates = cmp._statistics, cmp._aggregates
    cmp._statistics = lambda pair: (phases.enter("statistics"), statistics(pair))[1]
    cmp._aggregates = lambda pair: (phases.enter("aggregates"), aggregates(pair))[1]
    try:
        from infoloss import before_after

        tables = before_after.before_after_tables
        before_after.before_after_tables = lambda pair: (phases.enter("before/after tables"), tables(pair))[1]
    except ImportError:
        pass

    t0 = time.perf_counter()
    report = cmp.compare(str(original), [str(p) for p in protected[: args.scenarios]], str(spec), measures=ids,
                         aggregates=args.html, progress=lambda done, total, label: phases.enter(label))
    if args.html:
        phases.enter("HTML")
        report.to_html()
    phases.enter("JSON")
    report.to_json()
    phases.finish()
    seconds = time.perf_counter() - t0

    rows = phases.rows[:-1]
    shown = sorted(rows, key=lambda r: -r[1])[: args.top] if args.top else rows
    print(f"compare on {args.rows:,} rows, {args.format}, {args.scenarios} scenario(s){' + HTML' if args.html else ''}: "
          f"{seconds:.1f} s, peak RSS {hwm_mb():,.0f} MB")
    print(f"{'phase':<52} {'peak MB':>8} {'end MB':>8} {'s':>6}")
    for label, peak, end, sec in shown:
        print(f"{label[:52]:<52} {peak:8.0f} {end:8.0f} {sec:6.2f}")


if __name__ == "__main__":
    main()
