"""Benchmark: infoloss against SDMetrics' QualityReport on the same generated pair, side by side.

    python bench/bench_sdmetrics.py                       # 200,000 records x 16 variables, 5 alternating runs each
    python bench/bench_sdmetrics.py --rows 50000 --runs 3
    python bench/bench_sdmetrics.py --sdmetrics-python /path/to/venv/bin/python

The pair: ``infoloss.synth.make_survey`` with 8 continuous and 8 categorical
variables (no id, no weight column) and ``protect``-ed version of it, written
as two CSV files (plus the infoloss spec and the SDMetrics metadata) into
``--dir`` once.

Both tools run as a user runs them, each in a fresh process timed from start
to exit (wall clock; peak memory from ``os.wait4``), alternately, ``--runs``
times each (this checkout's modules byte-compiled first, as ``pip install`` compiles an
installed package: ``machine.compile_checkout``); the median is printed with the ratio:

* infoloss: ``python -m infoloss.cli compare original.csv protected.csv --spec
  spec.yaml --measures ks,hellinger,cramers_v_il,il1s,lambda,<the GDU family>
  --json out.json`` (this checkout's code);
* SDMetrics: ``pandas.read_csv`` of both files and
  ``sdmetrics.reports.QualityReport().generate(...)`` on the one table
  (column shapes: KS / TV complement; column pair trends:
  correlation and contingency similarity), run by ``--sdmetrics-python``
  (default: ``$INFOLOSS_SDMETRICS_PYTHON``, else this Python; SDMetrics is an optional
  benchmark extra, ``pip install infoloss[bench]``, never a dependency).

SDMetrics computes per-column shapes and per-pair trends only; infoloss
computes the listed measures, the full GDU model (120 pair tests with their
p-values) and the descriptive statistics.  Speed is measured here, never
asserted in a unit test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MEASURES = "ks,hellinger,cramers_v_il,il1s,lambda,ldu_uni,aldu_uni,ldu_biv,aldu_biv,grc,gdu"
#: the Python that has SDMetrics (another virtual environment, so that it never becomes a dependency)
SDMETRICS_PYTHON = os.environ.get("INFOLOSS_SDMETRICS_PYTHON", sys.executable)


def make_files(directory: Path, rows: int) -> dict[str, Path]:
    """The original and protected CSV files, the spec and the SDMetrics metadata (written once)."""
    directory.mkdir(parents=True, exist_ok=True)
    files = {k: directory / f"{k}_{rows}.{ext}" for k, ext in
             (("original", "csv"), ("protected", "csv"), ("spec", "yaml"), ("metadata", "json"))}
    if all(p.exists() for p in files.values()):
        return files
    sys.path.insert(0, str(ROOT))
    import pandas as pd
    import yaml

    from infoloss.synth import make_spec, make_survey, protect

    original = make_survey(rows, n_continuous=8, n_categorical=8, seed=0)
    protected = protect(original, noise=0.1, pram=0.05, seed=1)
    keep = [c for c in original.columns if c not in ("id", "weight")]
    spec = make_spec(original[keep])
    metadata = {"columns": {
        c: {"sdtype": "categorical" if isinstance(original[c].dtype, pd.CategoricalDtype) else "numerical"}
        for c in keep
    }}
    original[keep].to_csv(files["original"], index=False)
    protected[keep].to_csv(files["protected"], index=False)
    files["spec"].write_text(yaml.safe_dump(spec, sort_keys=False))
    files["metadata"].write_text(json.dumps(metadata))
    return files


def sdmetrics_child(original: str, protected: str, metadata: str) -> None:
    """Run in the SDMetrics environment: read both CSV files with pandas and generate the QualityReport.

    SDMetrics 0.32 (current when this was written) has one
    ``sdmetrics.reports.QualityReport`` for one or several tables, the data
    and metadata keyed by table name; the single-table report it replaces
    warns on import that it is deprecated.  On this pair both compute the
    same two properties (column shapes, column pair trends) in the same time
    (2.6-2.7 s each, two runs each in separate processes); the pair trends'
    score varies from run to run in both (SDMetrics subsamples).  An older
    SDMetrics without the unified report gets the single-table one.
    """
    import pandas as pd

    meta = json.loads(Path(metadata).read_text())
    dtypes = {c: ("category" if m["sdtype"] == "categorical" else "float64") for c, m in meta["columns"].items()}
    real = pd.read_csv(original, dtype=dtypes)
    synthetic = pd.read_csv(protected, dtype=dtypes)
    try:
        from sdmetrics.reports import QualityReport

        inputs = ({"table": real}, {"table": synthetic}, {"tables": {"table": meta}})
    except ImportError:  # an SDMetrics from before the unified reports
        from sdmetrics.reports.single_table import QualityReport

        inputs = (real, synthetic, meta)
    report = QualityReport()
    report.generate(*inputs, verbose=False)
    print(json.dumps({"score": report.get_score()}))


def timed(cmd: list[str], env: dict | None = None) -> tuple[float, int]:
    """Wall seconds and peak RSS (MB) of ``cmd`` in a fresh process; exits on failure."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    out, err = proc.stdout.read().decode(), proc.stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(cmd[:4])} ... failed:\n{err[-3000:]}{out[-2000:]}")
    return seconds, round(usage.ru_maxrss / 1024)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--dir", default=str(Path(tempfile.gettempdir()) / "infoloss-bench"))
    parser.add_argument("--sdmetrics-python", default=SDMETRICS_PYTHON)
    parser.add_argument("--sdmetrics-child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.sdmetrics_child:
        sdmetrics_child(*args.sdmetrics_child)
        return
    from machine import compile_checkout, reference_line

    compile_checkout(ROOT)
    print(reference_line(), flush=True)
    files = make_files(Path(args.dir), args.rows)
    out = Path(args.dir) / f"out_sdmetrics_{args.rows}.json"
    ours = [sys.executable, "-m", "infoloss.cli", "compare", str(files["original"]), str(files["protected"]),
            "--spec", str(files["spec"]), "--measures", MEASURES, "--json", str(out)]
    theirs = [args.sdmetrics_python, str(Path(__file__).resolve()), "--sdmetrics-child",
              str(files["original"]), str(files["protected"]), str(files["metadata"])]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    times: dict[str, list[float]] = {"infoloss": [], "sdmetrics": []}
    peaks: dict[str, int] = {"infoloss": 0, "sdmetrics": 0}
    print(f"{args.rows:,} records x 16 variables (8 continuous, 8 categorical), CSV in; {os.cpu_count()} cores; "
          f"{args.runs} alternating runs each, median wall time of the whole process")
    for _ in range(args.runs):
        for name, cmd in (("infoloss", ours), ("sdmetrics", theirs)):
            out.unlink(missing_ok=True)
            seconds, peak = timed(cmd, env if name == "infoloss" else None)
            times[name].append(seconds)
            peaks[name] = max(peaks[name], peak)
    med = {k: statistics.median(v) for k, v in times.items()}
    for name, label in (("infoloss", f"infoloss compare ({MEASURES})"),
                        ("sdmetrics", "SDMetrics QualityReport (column shapes + column pair trends)")):
        runs = ", ".join(f"{t:.2f}" for t in times[name])
        print(f"  {label}: median {med[name]:.2f} s (runs {runs}); peak RSS {peaks[name]:,} MB")
    print(f"  ratio SDMetrics / infoloss: {med['sdmetrics'] / med['infoloss']:.1f}x (target: at least 5x)")


if __name__ == "__main__":
    main()
