"""Benchmark: start-up — the help text, what each module's import costs, and the phases of the 200,000 x 16 run.

    python bench/bench_startup.py                 # help and module imports, 5 fresh processes each (median)
    python bench/bench_startup.py --runs 9 --phases

1. ``python -m infoloss.cli --help`` against its floor: a bare interpreter
   (``python -c pass``) and the interpreter with typer's help renderer
   (``import typer.rich_utils``), each in a fresh process, wall clock.
2. Each measure module (and the comparison's other modules) imported alone
   in a fresh process, on top of the base every comparison needs
   (``infoloss.pair``, ``infoloss.registry``: numpy, pandas, yaml): its extra
   seconds, the measure modules it brings along and the heavy libraries it
   loads (scipy subpackages, scikit-learn, statsmodels, jinja2, pyreadstat,
   openpyxl, threadpoolctl).
3. ``--phases``: the ``bench/bench_sdmetrics.py`` run (200,000 x 16 CSV pair,
   KS, Hellinger, Cramér's V loss, IL1s, λ and the GDU family) split into its
   phases in one process (imports, reading, encoding, each measure, the
   descriptive statistics, the before/after tables, the JSON), with
   ``time.perf_counter``.

The code measured is this checkout's (this folder first on the path).  Speed
is measured here, never asserted in a unit test.
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
ENV = dict(os.environ, PYTHONPATH=str(ROOT))
MODULES = [f"infoloss.measures.{m}" for m in (
    "record", "moments", "tables", "chi2", "ebil_joint", "distributions", "propensity", "gdu", "generalisation",
    "generalisation_domain", "generalisation_information", "clustering", "mining", "analyses", "risk",
    "risk_distance")] + ["infoloss.compare", "infoloss.io", "infoloss.aggregates", "infoloss.before_after",
                         "infoloss.report", "infoloss.cli"]
HEAVY = ("sklearn", "statsmodels", "jinja2", "pyreadstat", "openpyxl", "threadpoolctl")

_IMPORT_ONE = """
import importlib, json, sys, time
import infoloss.pair, infoloss.registry
t = time.perf_counter()
importlib.import_module(sys.argv[1])
t = time.perf_counter() - t
libs = sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in %r}
              | {m for m in sys.modules if m.startswith('scipy.') and m.count('.') == 1 and '._' not in m})
own = sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('infoloss.measures.') and '._' not in m)
print(json.dumps([t, own, libs]))
""" % (HEAVY,)


def wall(cmd: list[str], runs: int) -> float:
    """Median wall seconds of ``cmd`` in a fresh process (output discarded; exits on failure)."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        done = subprocess.run(cmd, env=ENV, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - t0)
        if done.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed:\n{done.stderr.decode()[-2000:]}")
    return statistics.median(times)


def help_times(runs: int) -> None:
    py = sys.executable
    rows = [("python -c pass (the interpreter)", [py, "-c", "pass"]),
            ("python -c 'import typer.rich_utils' (help renderer)", [py, "-c", "import typer.rich_utils"]),
            ("python -m infoloss.cli --help", [py, "-m", "infoloss.cli", "--help"]),
            ("python -m infoloss.cli --version", [py, "-m", "infoloss.cli", "--version"])]
    print(f"start-up, median of {runs} fresh processes (wall clock):")
    for label, cmd in rows:
        print(f"  {label:55s} {wall(cmd, runs):6.3f} s")


def module_costs(runs: int) -> None:
    print(f"\nimport of one module on top of infoloss.pair + infoloss.registry, median of {runs} fresh processes:")
    for module in MODULES:
        results = []
        for _ in range(runs):
            out = subprocess.run([sys.executable, "-c", _IMPORT_ONE, module], env=ENV, cwd=ROOT, capture_output=True,
                                 text=True, check=True)
            results.append(json.loads(out.stdout))
        seconds = statistics.median(r[0] for r in results)
        _, own, libs = results[0]
        print(f"  {module:45s} {seconds:6.3f} s  measures: {','.join(own) or '-':40s} libraries: {' '.join(libs) or '-'}")


def phases(directory: Path) -> None:
    """The 200k run's phases in this process (imports first, so they are counted)."""
    marks: list[tuple[str, float]] = [("start", time.perf_counter())]

    def mark(label: str) -> None:
        marks.append((label, time.perf_counter()))

    import numpy  # noqa: F401
    import pandas  # noqa: F401

    mark("import numpy, pandas")
    import importlib

    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_sdmetrics import MEASURES, make_files

    files = make_files(directory, 200_000)
    cmp = importlib.import_module("infoloss.compare")
    from infoloss.before_after import before_after_tables
    from infoloss.io import read_table
    from infoloss.pair import encode_pair
    from infoloss.spec import load_spec

    mark("import infoloss.compare")
    ids = cmp._select_measures(MEASURES)
    mark("import the measure modules")
    spec = load_spec(files["spec"])
    original = read_table(files["original"], spec, which="original", spec_columns=True)
    mark("read the original CSV")
    protected = read_table(files["protected"], spec, which="protected", spec_columns=True)
    mark("read the protected CSV")
    pair = encode_pair(original, protected, spec)
    mark("encode the pair")
    scenario = cmp.ScenarioResult(name="protected", path=None, n_records=pair.n_prot, paired=pair.paired)
    for mid in ids:
        cmp._run_measure(scenario, pair, mid, {})
        mark(f"measure {mid}")
    scenario.statistics = cmp._statistics(pair)
    mark("descriptive statistics")
    scenario.tables = before_after_tables(pair)
    mark("before/after tables")
    report = cmp.Report(original=cmp._describe_original(str(files["original"]), pair), scenarios=[scenario],
                        spec=pair.spec, measure_ids=ids)
    report.to_json()
    mark("JSON text")
    print("\nphases of the 200,000 x 16 run in one process (after the interpreter's start):")
    for (_, before), (label, after) in zip(marks, marks[1:]):
        print(f"  {label:35s} {after - before:6.3f} s")
    print(f"  {'total':35s} {marks[-1][1] - marks[0][1]:6.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--phases", action="store_true", help="also time the phases of the 200,000 x 16 run")
    parser.add_argument("--dir", default=str(Path(tempfile.gettempdir()) / "infoloss-bench"))
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores; {sys.executable}")
    help_times(args.runs)
    module_costs(max(1, args.runs // 2))
    if args.phases:
        phases(Path(args.dir))


if __name__ == "__main__":
    main()
