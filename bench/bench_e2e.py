"""Benchmark: the ``infoloss compare`` command end to end on 1,000,000 x 50 CSV and Parquet files.

    python bench/bench_e2e.py                                # 1,000,000 rows; CSV and Parquet; 1 and 3 scenarios
    python bench/bench_e2e.py --rows 200000 --formats csv --runs one
    python bench/bench_e2e.py --dir DIR                      # where the generated files are kept (reused)

Each run is the command a user types, in a fresh process, timed from start to
exit (wall clock) with its CPU seconds (user + system: the work done, steadier
than the wall time on a shared machine) and its peak memory (max RSS of the
process, from ``os.wait4``), as ``infoloss compare`` would run::

    one:    compare original prot1 --spec spec.yaml --measures <families> --json out.json
    three:  compare original prot1 prot2 prot3 --spec spec.yaml --measures <families> --json out.json --html out.html

The checkout's modules are byte-compiled first, as ``pip install`` compiles an installed
package (``machine.compile_checkout``).

``<families>`` are every measure of the record, moments, tables, distributions,
propensity and GDU families (issue 14's budgets: one scenario under 20 s and
3 GB, three scenarios with the HTML report under 45 s, on 2 cores).  The data:
``infoloss.synth.make_survey`` (30 continuous, 20 categorical variables, an id
and a weight) and three ``protect``-ed versions of it of rising strength,
written once into ``--dir`` and reused by later runs.  The command runs the
infoloss of this checkout (``python -m infoloss.cli`` with this folder first on
the path).  Speed is measured here, never asserted in a unit test.

The CPU seconds are printed as user + system.  System time here is mostly the
kernel clearing memory pages the process takes for the first time, and on a
virtual machine that hands idle memory back to its host (the 2-core benchmark
machine does) a page idle for a few seconds costs about ten times more than
one freed a moment ago (about 2.6 s against 0.2 s per GB there): the same
command can differ by seconds with what ran just before it.  ``--settle``
waits that many seconds before each run (default 8), so that every run starts
from idle memory, the state a user's first run meets.  The first line printed
and the last are ``bench/machine.py``'s reference line: how fast the machine
is that day (it drifts by 10-20 % within minutes on a virtual machine;
``bench/ab.py`` compares two versions in alternating runs).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAMILIES = ("record", "moments", "tables", "distributions", "propensity", "gdu")
BUDGET = {"one": (20.0, 3072), "three": (45.0, 3072)}


def measure_ids() -> list[str]:
    """The ids of every measure of ``FAMILIES`` (from this checkout's registry)."""
    sys.path.insert(0, str(ROOT))
    from infoloss.registry import registered

    return [m.id for m in registered() if m.family in FAMILIES]


def make_files(directory: Path, rows: int, fmt: str) -> tuple[Path, list[Path], Path]:
    """The original, three protected files and the spec in ``directory`` (written once, then reused)."""
    directory.mkdir(parents=True, exist_ok=True)
    stem = f"{rows}"
    original = directory / f"original_{stem}.{fmt}"
    protected = [directory / f"protected{k + 1}_{stem}.{fmt}" for k in range(3)]
    spec_path = directory / f"spec_{stem}.yaml"
    if original.exists() and spec_path.exists() and all(p.exists() for p in protected):
        return original, protected, spec_path
    sys.path.insert(0, str(ROOT))
    import yaml

    from infoloss.synth import make_spec, make_survey, protect

    t0 = time.perf_counter()
    df = make_survey(rows, n_continuous=30, n_categorical=20, seed=0)
    frames = [df] + [protect(df, noise=0.1 * (k + 1), pram=0.05 * (k + 1), seed=1 + k) for k in range(3)]
    for frame, path in zip(frames, [original, *protected]):
        tmp = path.with_suffix(".part")
        if fmt == "csv":
            frame.to_csv(tmp, index=False)
        else:
            frame.to_parquet(tmp, index=False)
        tmp.replace(path)
    spec_path.write_text(yaml.safe_dump(make_spec(df), sort_keys=False))
    print(f"  wrote {fmt} files of {rows:,} rows in {time.perf_counter() - t0:.1f} s", flush=True)
    return original, protected, spec_path


def run(cmd: list[str], cwd: Path, root: Path = ROOT) -> tuple[float, int, int, float, float]:
    """Wall seconds, peak RSS in MB, exit status, user and system CPU seconds of ``cmd`` in a fresh process.

    The CPU seconds are the work done: on a shared machine they vary less than the wall time, so they are
    the better figure for comparing two versions.  ``root``: the checkout whose infoloss runs.
    """
    env = dict(os.environ, PYTHONPATH=str(root))
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        print(err[-3000:])
    return seconds, round(usage.ru_maxrss / 1024), proc.returncode, usage.ru_utime, usage.ru_stime


def command(kind: str, original: Path, protected: list[Path], spec: Path, ids: str, out: Path) -> list[str]:
    """The ``infoloss compare`` command of a run: ``one`` scenario with JSON, or ``three`` with JSON and HTML."""
    cmd = [sys.executable, "-m", "infoloss.cli", "compare", str(original)]
    cmd += [str(protected[0])] if kind == "one" else [str(p) for p in protected]
    cmd += ["--spec", str(spec), "--measures", ids, "--json", f"{out}.json"]
    if kind == "three":
        cmd += ["--html", f"{out}.html"]
    return cmd


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--formats", default="csv,parquet")
    parser.add_argument("--runs", default="one,three", help="one (one scenario, JSON) and/or three (three + HTML)")
    parser.add_argument("--dir", default=str(Path(tempfile.gettempdir()) / "infoloss-bench"), help="where the generated files are kept")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each command (the best is printed)")
    parser.add_argument("--settle", type=float, default=8.0,
                        help="seconds to wait before each run, so that each starts from idle memory (0: none)")
    args = parser.parse_args()
    directory = Path(args.dir)
    ids = ",".join(measure_ids())
    from machine import compile_checkout, reference_line

    compile_checkout(ROOT)
    print(reference_line(), flush=True)
    print(f"infoloss compare end to end: {args.rows:,} rows x 50 variables, {len(ids.split(','))} measures of "
          f"{', '.join(FAMILIES)}; {os.cpu_count()} cores")
    for fmt in args.formats.split(","):
        original, protected, spec = make_files(directory, args.rows, fmt)
        for kind in args.runs.split(","):
            out = directory / f"out_{kind}_{fmt}"
            cmd = command(kind, original, protected, spec, ids, out)
            best = None
            for _ in range(args.repeat):
                for stale in (Path(f"{out}.json"), Path(f"{out}.html")):
                    stale.unlink(missing_ok=True)
                time.sleep(args.settle)
                r = run(cmd, directory)
                if r[2] != 0:
                    sys.exit(f"the command failed with exit status {r[2]}")
                best = r if best is None or r[0] < best[0] else best
            seconds, peak, _, user, system = best
            limit_s, limit_mb = BUDGET[kind]
            what = "1 scenario, JSON" if kind == "one" else "3 scenarios, JSON + HTML"
            print(f"  {fmt:<8} {what:<26} {seconds:6.1f} s  (cpu {user:5.1f} + {system:4.1f} s)  peak RSS {peak:,} MB  "
                  f"(budget at 1M: {limit_s:.0f} s, {limit_mb:,} MB)", flush=True)
    print(reference_line(), flush=True)  # again: the machine's speed drifts within minutes


if __name__ == "__main__":
    main()
