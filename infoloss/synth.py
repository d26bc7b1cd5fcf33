"""A seeded generator of realistic survey files and protected versions of them.

Used for the bundled example (``infoloss example DIR``), the benchmarks in
``bench/`` and tests that need a large file.  The data are invented by this
module, so their licence is the project's.

The original file is a household-survey-like sample driven by a latent
socio-economic status ``z`` per record: age, skewed incomes and expenditures
(log-normal), savings (zero-inflated), hours worked and further continuous
variables correlate with ``z``; the categorical variables (2 to 50 levels) are
``z`` plus noise cut at random quantiles, so they are associated with the
continuous ones and with each other.  A few percent of some continuous values
are missing, as in real surveys.

:func:`protect` imitates common statistical disclosure control: additive
noise on the continuous variables (``noise`` × the variable's standard
deviation), PRAM-like random replacement of categorical values by a draw from
the variable's marginal distribution, and local suppression of key-variable
values.  Everything is vectorised; 1,000,000 × 50 takes a few seconds.

Examples
--------
>>> df = make_survey(1000, n_continuous=6, n_categorical=4, seed=1)
>>> df.shape   # id, 6 continuous, 4 categorical, weight
(1000, 12)
>>> prot = protect(df, seed=2)
>>> int(prot["sex"].isna().sum()) > 0   # key variables have local suppressions
True
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from .errors import InputError

__all__ = ["make_survey", "protect", "make_spec", "write_example"]

#: the named continuous variables, then ``x06``, ``x07``, ...
CONTINUOUS_NAMES = ("age", "income", "expenditure", "savings", "hours")
#: the named categorical variables with their number of levels, then ``c05``, ``c06``, ...
CATEGORICAL_LEVELS = {"sex": 2, "region": 12, "education": 6, "tenure": 4}
ORDINAL = {"education"}
KEY_VARIABLES = ("sex", "region", "education", "age")
MISSING_SHARE = 0.02  # share of missing values in the variables that have some


def make_survey(n: int, n_continuous: int = 30, n_categorical: int = 20, *, seed: int = 0) -> pd.DataFrame:
    """Generate an original survey file of ``n`` records.

    Parameters
    ----------
    n : int
        Number of records.
    n_continuous, n_categorical : int
        Number of continuous and categorical variables (at least 1 each).
    seed : int
        Seed of the random generator: the same arguments give the same file.

    Returns
    -------
    pandas.DataFrame
        Continuous variables as float64 (a few missing in ``savings``,
        ``hours`` and every fifth further variable), categorical ones as
        pandas categoricals with text labels (``education`` ordered), a
        positive ``weight`` column and a unique ``id``.
    """
    if n < 1 or n_continuous < 1 or n_categorical < 1:
        raise ValueError("make_survey needs n, n_continuous and n_categorical of at least 1")
    rng = np.random.default_rng(seed)
    z = rng.standard_normal(n)
    columns: dict[str, Any] = {"id": np.arange(1, n + 1)}
    for j, name in enumerate(_continuous_names(n_continuous)):
        columns[name] = _continuous(name, j, z, rng)
    for j, (name, levels) in enumerate(_categorical_levels(n_categorical).items()):
        columns[name] = _categorical(name, levels, z, rng, ordered=name in ORDINAL)
    columns["weight"] = np.round(rng.gamma(4.0, 50.0, n) + 1.0, 1)
    return pd.DataFrame(columns)


def _continuous_names(k: int) -> list[str]:
    return list(CONTINUOUS_NAMES[:k]) + [f"x{j:02d}" for j in range(len(CONTINUOUS_NAMES), k)]


def _categorical_levels(k: int) -> dict[str, int]:
    named = dict(list(CATEGORICAL_LEVELS.items())[:k])
    extra = k - len(named)
    # the further variables spread their numbers of levels evenly over 2..50
    levels = np.linspace(2, 50, extra).round().astype(int) if extra > 0 else []
    named.update({f"c{len(CATEGORICAL_LEVELS) + j:02d}": int(m) for j, m in enumerate(levels)})
    return named


def _continuous(name: str, j: int, z: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    n = z.shape[0]
    e = rng.standard_normal(n)
    if name == "age":
        x = np.clip(np.round(45 + 12 * (0.4 * z + 0.9 * e)), 16, 95)
    elif name == "income":
        x = np.round(np.exp(9.8 + 0.6 * z + 0.5 * e), 2)
    elif name == "expenditure":
        x = np.round(np.exp(9.5 + 0.5 * z + 0.35 * e), 2)
    elif name == "savings":
        x = np.where(rng.random(n) < 0.3, 0.0, np.round(np.exp(7.5 + 0.8 * z + 0.9 * e), 2))
    elif name == "hours":
        x = np.clip(np.round(38 + 6 * (0.3 * z + e)), 0, 80)
    else:
        kind = j % 3
        if kind == 0:  # skewed amounts
            x = np.exp(5 + 0.4 * z + 0.6 * e)
        elif kind == 1:  # symmetric scores
            x = 100 + 15 * (0.5 * z + 0.85 * e)
        else:  # counts-like, right-skewed
            x = rng.gamma(2.0 + 0.5 * (z > 0), 3.0)
        x = np.round(x, 3)
    if name in ("savings", "hours") or (name not in CONTINUOUS_NAMES and j % 5 == 0):
        x = np.where(rng.random(n) < MISSING_SHARE, np.nan, x)
    return x.astype(float)


def _categorical(name: str, levels: int, z: np.ndarray, rng: np.random.Generator, *, ordered: bool) -> pd.Categorical:
    n = z.shape[0]
    strength = 0.25 if name in ("sex", "region") else 0.8
    latent = strength * z + rng.standard_normal(n)
    cuts = np.sort(rng.uniform(0.02, 0.98, levels - 1))
    codes = np.searchsorted(np.quantile(latent, cuts), latent).astype(np.int16)
    labels = _labels(name, levels)
    return pd.Categorical.from_codes(codes, categories=labels, ordered=ordered)


def _labels(name: str, levels: int) -> list[str]:
    if name == "sex":
        return ["male", "female"]
    if name == "education":
        return ["none", "primary", "lower secondary", "upper secondary", "vocational", "tertiary"][:levels]
    if name == "tenure":
        return ["owner", "mortgage", "rent", "free"][:levels]
    return [f"{name}_{k + 1:02d}" for k in range(levels)]


def protect(
    original: pd.DataFrame,
    *,
    noise: float = 0.1,
    pram: float = 0.05,
    suppress: float = 0.01,
    seed: int = 0,
) -> pd.DataFrame:
    """A protected version of a :func:`make_survey` file (same records, same order).

    Parameters
    ----------
    original : pandas.DataFrame
        A file made by :func:`make_survey`.
    noise : float
        Standard deviation of the additive noise, as a share of each
        continuous variable's standard deviation (``age`` and ``hours`` are
        rounded again, negative amounts set to 0).
    pram : float
        Probability that a categorical value is replaced by a draw from the
        variable's marginal distribution (PRAM with an invariant-like matrix).
    suppress : float
        Share of the key variables' values that are locally suppressed.
    seed : int
        Seed of the random generator.
    """
    rng = np.random.default_rng(seed)
    out = original.copy()
    n = len(out)
    for name in out.columns:
        col = out[name]
        if name in ("id", "weight"):
            continue
        if isinstance(col.dtype, pd.CategoricalDtype):
            codes = col.cat.codes.to_numpy().copy()
            swap = rng.random(n) < pram
            codes[swap] = rng.choice(codes, size=int(swap.sum()))  # a draw from the marginal
            if name in KEY_VARIABLES:
                codes[rng.random(n) < suppress] = -1
            out[name] = pd.Categorical.from_codes(codes, dtype=col.dtype)
        else:
            x = col.to_numpy(dtype=float)
            sd = np.nanstd(x)
            y = x + rng.normal(0.0, noise * sd, n)
            if name in ("age", "hours"):
                y = np.round(y)
            if np.nanmin(x) >= 0:
                y = np.maximum(y, 0.0)
            if name in KEY_VARIABLES:
                y[rng.random(n) < suppress] = np.nan
            out[name] = y
    return out


def make_spec(df: pd.DataFrame) -> dict[str, Any]:
    """The variable spec (as a dict, the YAML layout) of a :func:`make_survey` file."""
    variables: dict[str, Any] = {}
    for name in df.columns:
        if name == "id":
            variables[name] = {"role": "id"}
        elif name == "weight":
            variables[name] = {"role": "weight"}
        elif isinstance(df[name].dtype, pd.CategoricalDtype):
            entry: dict[str, Any] = {"scale": "ordinal" if df[name].cat.ordered else "nominal"}
            if df[name].cat.ordered:
                entry["order"] = [str(c) for c in df[name].cat.categories]
            variables[name] = entry
        else:
            variables[name] = {"scale": "continuous"}
        if name in KEY_VARIABLES:
            variables[name]["role"] = "key"
    return {"variables": variables, "pairing": "row", "missing": ["", "NA"]}


EXAMPLE_FILES = ("original.csv", "protected_noise.csv", "protected_strong.csv", "spec.yaml")


def _example_spec(original: pd.DataFrame) -> dict:
    """The example's spec: the inferred one, plus a target, a sensitive variable and an analyses block,
    so that every family of measures has something to say about the example."""
    spec = make_spec(original)
    variables = spec["variables"]
    variables["tenure"]["role"] = "target"  # the mining measures predict it
    variables["c04"]["role"] = "sensitive"  # l-diversity and t-closeness of the key classes
    spec["analyses"] = {
        "estimates": [
            {"statistic": "mean", "variable": "income", "by": ["region"]},
            {"statistic": "proportion", "variable": "tenure"},
            {"statistic": "gini", "variable": "income"},
            {"statistic": "median", "variable": "expenditure"},
        ],
        "regressions": [
            {"name": "mincer", "formula": "np.log(income) ~ age + I(age**2) + C(sex) + C(education)",
             "where": "income > 0"},
        ],
        "ci": {"level": 0.95, "method": "auto", "replicates": 200, "seed": 1},
    }
    return spec


def write_example(directory: str | Path, n: int = 2000) -> list[Path]:
    """Write the bundled example into ``directory``: an original, two protected versions, the spec.

    ``protected_noise.csv`` has light protection (noise 10 %, PRAM 5 %,
    1 % suppression of key values); ``protected_strong.csv`` strong
    protection (noise 50 %, PRAM 25 %, 5 % suppression).  Existing files are
    never overwritten: if any of them is already there, nothing is written;
    a folder that already holds the example, byte for byte, is left as it is
    (so that the README's first line can be run again).
    """
    directory = Path(directory)
    targets = [directory / name for name in EXAMPLE_FILES]
    contents = _example_contents(n)
    present = [p for p in targets if p.exists()]
    if present and len(present) == len(targets) and all(
            p.is_file() and p.read_bytes() == text.encode() for p, text in zip(targets, contents)):
        return targets
    if present:
        raise InputError(f"{directory} already holds {', '.join(p.name for p in present)}; choose an empty folder so "
                         "that nothing is overwritten.")
    from ._files import write_atomic

    for target, text in zip(targets, contents):
        write_atomic(target, text)
    return targets


def _example_contents(n: int) -> list[str]:
    """The text of the example's files, in the order of EXAMPLE_FILES (the same every time: seeded)."""
    original = make_survey(n, n_continuous=6, n_categorical=6, seed=2024)
    light = protect(original, noise=0.1, pram=0.05, suppress=0.01, seed=1)
    strong = protect(original, noise=0.5, pram=0.25, suppress=0.05, seed=2)
    header = (
        "# Variable spec of the infoloss example (generated by infoloss.synth; format: docs/spec.md).\n"
        "# protected_noise: noise 10 % of sd, PRAM 5 %, 1 % local suppression of key values;\n"
        "# protected_strong: noise 50 %, PRAM 25 %, 5 % suppression.\n"
    )
    return [
        original.to_csv(index=False),
        light.to_csv(index=False),
        strong.to_csv(index=False),
        header + yaml.safe_dump(_example_spec(original), sort_keys=False, allow_unicode=True),
    ]
