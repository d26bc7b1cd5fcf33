"""Render the report pages that are checked by eye (issue 13) and time them.

    python bench/report_pages.py [OUTDIR]          # default: test-output/report-pages

Writes, full and safe versions of each:

* ``free1_6``: free1 (tests/data/free1) with six scenarios: the two shipped
  protected files (recode_ls_k3, pram_mdav3) and four made here with
  :func:`scenarios_free1` (additive noise 10 % and 50 % of the sd on the
  continuous variables, PRAM 20 % on the key variables, rank swapping of
  the continuous variables within 5 % of the rank range);
* ``testdata_3``: tests/data/testdata with its three protected files;
* ``wide_10x100``: a synthetic survey of 100 variables with ten scenarios
  (the size the browser test renders).

Prints, per page, the seconds to compute and to render, the page size, the
time chromium takes to open it (when chromium is installed; best of two
loads) and the process's peak memory.  Run it under
``flock /tmp/infoloss-heavy.lock`` (the 10 × 100 comparison takes about a
minute on two cores).
"""

from __future__ import annotations

import resource
import shutil
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import infoloss  # noqa: E402
from infoloss.spec import load_spec  # noqa: E402

DATA = ROOT / "tests" / "data"


def pram(df: pd.DataFrame, columns: list[str], share: float, rng: np.random.Generator) -> pd.DataFrame:
    """Replace ``share`` of each column's values by a draw from the column's marginal distribution."""
    out = df.copy()
    n = len(df)
    for col in columns:
        hit = rng.random(n) < share
        values = df[col].to_numpy()
        out.loc[hit, col] = values[rng.integers(0, n, int(hit.sum()))]
    return out


def noise(df: pd.DataFrame, columns: list[str], share: float, rng: np.random.Generator) -> pd.DataFrame:
    """Add normal noise with sd = ``share`` × the column's sd."""
    out = df.copy()
    for col in columns:
        x = df[col].astype(float)
        out[col] = x + rng.normal(0.0, share * x.std(), len(df))
    return out


def rank_swap(df: pd.DataFrame, columns: list[str], p: float, rng: np.random.Generator) -> pd.DataFrame:
    """Rank swapping: each value swaps with one whose rank is within ``p`` × n (a simple pairing pass)."""
    out = df.copy()
    n = len(df)
    window = max(int(p * n), 1)
    for col in columns:
        order = np.argsort(df[col].to_numpy(), kind="stable")
        values = df[col].to_numpy()[order].copy()
        free = np.ones(n, dtype=bool)
        for i in range(n):  # small files only: a loop is fine for a demo script
            if not free[i]:
                continue
            hi = min(i + window, n - 1)
            cand = np.flatnonzero(free[i + 1 : hi + 1]) + i + 1
            if cand.size:
                j = rng.choice(cand)
                values[i], values[j] = values[j], values[i]
                free[i] = free[j] = False
        column = np.empty(n, dtype=values.dtype)
        column[order] = values
        out[col] = column
    return out


def scenarios_free1(seed: int = 1) -> tuple[pd.DataFrame, list[pd.DataFrame], list[str], object]:
    """free1's original, six protected versions, their names and the spec."""
    orig = pd.read_csv(DATA / "free1" / "original.csv")
    spec = load_spec(DATA / "free1" / "spec.yaml")
    cont = ["INCOME", "MONEY", "ASSETS", "DEBTS"]
    keys = [n for n, v in spec.variables.items() if v.role == "key"]
    rng = np.random.default_rng(seed)
    prots = [pd.read_csv(DATA / "free1" / "recode_ls_k3.csv"), pd.read_csv(DATA / "free1" / "pram_mdav3.csv"),
             noise(orig, cont, 0.1, rng), noise(orig, cont, 0.5, rng), pram(orig, keys, 0.2, rng),
             rank_swap(orig, cont, 0.05, rng)]
    names = ["recode_ls_k3", "pram_mdav3", "noise10", "noise50", "pram20_keys", "rankswap5"]
    return orig, prots, names, spec


def testdata_3():
    names = ["ls_k3", "recode_pram_noise50", "recode_mdav3_ls_k3"]
    d = DATA / "testdata"
    return d / "original.csv", [d / f"{n}.csv" for n in names], names, d / "spec.yaml"


def wide(n_scenarios: int = 10, n_records: int = 1500, seed: int = 3):
    """A synthetic survey with 100 variables (60 continuous, 40 categorical) and ``n_scenarios`` versions."""
    from infoloss.synth import make_spec, make_survey, protect

    orig = make_survey(n_records, n_continuous=60, n_categorical=40, seed=seed)
    spec = make_spec(orig)
    prots = [protect(orig, noise=0.02 + 0.06 * k, pram=0.01 + 0.03 * k, suppress=0.005 * k, seed=seed + k)
             for k in range(n_scenarios)]
    return orig, prots, [f"scenario_{k + 1:02d}_noise{2 + 6 * k}" for k in range(n_scenarios)], spec


def open_seconds(path: Path) -> float | None:
    """Seconds chromium takes to load the page (navigation start to the load event), best of two."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        return None
    sys.path.insert(0, str(ROOT / "tests"))
    from browser_cdp import Browser

    with Browser(chromium) as b:
        return min(b.open(path.resolve().as_uri()).evaluate(
            "performance.getEntriesByType('navigation')[0].loadEventEnd") / 1000 for _ in range(2))


def main(outdir: Path) -> None:
    outdir.mkdir(parents=True, exist_ok=True)
    jobs = {"free1_6": scenarios_free1, "testdata_3": testdata_3, "wide_10x100": wide}
    only = set(sys.argv[2:])
    for name, make in jobs.items():
        if only and name not in only:
            continue
        orig, prots, names, spec = make()
        t0 = time.perf_counter()
        rep = infoloss.compare(orig, prots, spec, names=names)
        t1 = time.perf_counter()
        for mode, safe in (("full", False), ("safe", True)):
            path = outdir / f"{name}_{mode}.html"
            t2 = time.perf_counter()
            html = rep.to_html(path, safe=safe)
            render = time.perf_counter() - t2
            opened = open_seconds(path)
            print(f"{path.name}: compare {t1 - t0:.1f} s, render {render:.2f} s, {len(html.encode()) / 1e6:.2f} MB, "
                  f"opens in chromium in {'–' if opened is None else f'{opened:.2f} s'}; "
                  f"peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "test-output" / "report-pages")
