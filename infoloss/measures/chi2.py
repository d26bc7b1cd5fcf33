"""χ² distance between the original's and the protected file's one- and two-way tables.

The survey of information-quality measures (Fletcher & Islam 2015, §II.A) names the
chi-square distance beside the KL divergence as a measure that, unlike the
generalisation metrics, sees the distribution of the values.  One id,
``chi2_distance``, in the tables family, with the table conventions of
:mod:`infoloss.measures.tables` (missing is a category; ``weighted`` tables
hold sums of weights).
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import NotComputed
from ..pair import ORIGINAL, PROTECTED, EncodedPair
from ..registry import MeasureResult, Option, measure
from ._contingency import chi2_independence
from .tables import WEIGHTED, _categorical, _key, _pairs, _records_that_count, _table, _total, _weighting

__all__ = ["chi2_distance", "chi2_symmetric", "chi2_pearson"]

FORMS = ("symmetric", "pearson")
FORM = Option(
    "form", "choice", "symmetric",
    "symmetric: ½Σ(p−q)²/(p+q) in [0, 1]; pearson: Σ(q−p)²/p, the protected table's χ² against the original's "
    "proportions, divided by its total",
    choices=FORMS,
)
SMOOTHING = Option(
    "smoothing", "float", 0.0,
    "pearson only: count added to every cell of both tables (0: none; a protected count in a cell empty in the "
    "original then leaves the table out)",
    low=0, when="form=pearson",
)


def chi2_symmetric(p: np.ndarray, q: np.ndarray) -> float:
    r"""Symmetric χ² distance ``½ Σ_c (p_c − q_c)² / (p_c + q_c)`` of two distributions (cells empty in both skipped).

    It lies in [0, 1] (1 for disjoint supports) and equals the χ² statistic of
    the 2 × C table *source × cell* divided by its total when both files have
    the same total (φ² of the homogeneity test).

    >>> round(chi2_symmetric(np.array([0.5, 0.5]), np.array([0.75, 0.25])), 6)
    0.066667
    """
    s = p + q
    ok = s > 0
    return float(0.5 * np.sum(np.square(p[ok] - q[ok]) / s[ok]))


def chi2_pearson(p: np.ndarray, q: np.ndarray) -> float:
    r"""Pearson's χ² divergence ``Σ_c (q_c − p_c)² / p_c`` of ``q`` from the reference ``p``; inf if q > 0 where p = 0.

    Equal to ``scipy.stats.chisquare(f_obs=N q, f_exp=N p).statistic / N``.

    >>> round(chi2_pearson(np.array([0.5, 0.5]), np.array([0.75, 0.25])), 6)
    0.25
    """
    ok = p > 0
    if (q[~ok] > 0).any():
        return math.inf
    return float(np.sum(np.square(q[ok] - p[ok]) / p[ok]))


def _other_axes(ndim: int) -> list[tuple[int, ...]]:
    """For each axis of an ``ndim``-way table, the other axes (summed over to give that axis's margin)."""
    return [tuple(a for a in range(ndim) if a != axis) for axis in range(ndim)]


def _one_table(pair: EncodedPair, combo: tuple[str, ...], use_w: bool, form: str, alpha: float,
               unit: dict[str, float]) -> tuple[float, dict]:
    counts = {}
    tables = [_table(pair, combo, which, use_w).astype(float) for which in (ORIGINAL, PROTECTED)]
    if form == "pearson" and alpha > 0:  # smoothed: the categories that hold records (weight 0 counts for nothing)
        held = [np.flatnonzero(tables[0].sum(axis=other) + tables[1].sum(axis=other) > 0)
                for other in _other_axes(tables[0].ndim)]
        tables = [t[np.ix_(*held)] for t in tables]
    for which, table in zip((ORIGINAL, PROTECTED), tables):
        x = table.ravel()
        if form == "pearson" and alpha > 0:
            x = x + alpha * unit[which]
        if not x.sum() > 0:
            label = "original" if which == ORIGINAL else "protected"
            raise NotComputed(f"the {label} file has no records to tabulate")
        counts[which] = x
    p = counts[ORIGINAL] / counts[ORIGINAL].sum()
    q = counts[PROTECTED] / counts[PROTECTED].sum()
    value = chi2_symmetric(p, q) if form == "symmetric" else chi2_pearson(p, q)
    info: dict = {}
    if not use_w:
        both = np.vstack([counts[ORIGINAL], counts[PROTECTED]])
        both = both[:, both.sum(axis=0) > 0]
        if both.shape[1] >= 2:
            res = chi2_independence(both)
            info["homogeneity"] = {"statistic": float(res.statistic), "dof": int(res.dof), "p_value": float(res.pvalue)}
        if form == "pearson" and math.isfinite(value):
            n_g = counts[PROTECTED].sum()
            info["pearson"] = {"statistic": value * n_g, "dof": int(np.count_nonzero(p > 0)) - 1}
    return value, info


@measure(
    "chi2_distance",
    shares_cores=True,
    family="tables",
    description="χ² distance between the original and protected one- and two-way tables (symmetric, on proportions)",
    range=(0, None),
    better="lower",
    needs_pairing=False,
    options=(FORM, SMOOTHING, WEIGHTED),
)
def chi2_distance(
    pair: EncodedPair, *, form: str = "symmetric", smoothing: float = 0.0, weighted: bool | None = None
) -> MeasureResult:
    r"""χ² distance between the original's and the protected file's frequency tables.

    With ``p`` and ``q`` the cell proportions of a table in the original and
    the protected file (missing as a category),

    .. math::

        \chi^2_{sym}(p, q) = \frac12 \sum_c \frac{(p_c - q_c)^2}{p_c + q_c}
        \qquad\text{or}\qquad
        \chi^2_{P}(q \,\|\, p) = \sum_c \frac{(q_c - p_c)^2}{p_c}

    ``form="symmetric"`` (default) lies in [0, 1], is 0 for identical and 1
    for disjoint distributions, and is the φ² (χ²/N) of the homogeneity test
    of the 2 × C table *file × cell* when both files have the same total
    (``scipy.stats.chi2_contingency``); cells empty in both files are
    skipped.  ``form="pearson"`` is Pearson's goodness-of-fit statistic of
    the protected counts against the counts expected from the original
    proportions, ``scipy.stats.chisquare(f_obs=x_G, f_exp=N_G p)``, divided by
    ``N_G`` so it does not grow with the file (unbounded; a table where the
    protected file fills a cell empty in the original is infinite and left
    out, with the reason, unless ``smoothing`` adds a count to every cell).
    Both work on proportions, so files of different sizes compare.
    ``by_variable``: the one-way tables; ``by_pair``: the two-way tables;
    ``value``: their mean.

    Unweighted, ``details["tests"]`` gives per table the homogeneity test
    (statistic, degrees of freedom, p-value) and, for ``pearson``, the
    goodness-of-fit statistic; with weights the proportions are weighted and
    no test is reported (weighted counts are not counts of independent
    records).

    Parameters
    ----------
    pair : EncodedPair
        The encoded files (or ``original_df, protected_df, spec``).
    form : {"symmetric", "pearson"}
        Which χ² distance (see above).
    smoothing : float, default 0
        ``pearson`` only: pseudo-count added to every cell of both tables,
        over the categories that hold records in either file (with weights, a
        pseudo-record weighs the file's mean positive weight, and a category
        of records of weight 0 alone is left out).
    weighted : bool, optional
        Weighted proportions.  Default: when both files have weights.

    Returns
    -------
    MeasureResult
        ``value``, ``by_variable``, ``by_pair``; ``details``: ``form``,
        ``tables``, ``tests`` (unweighted), ``not_computed``, ``weighted``.

    References
    ----------
    Pearson, K. (1900). On the criterion that a given system of deviations
    from the probable [...]. *Philosophical Magazine* 50(302), 157-175.
    Fletcher, S. & Islam, M. Z. (2015). Measuring information quality for
    privacy preserving data mining. *International Journal of Computer Theory
    and Engineering* 7(1), 21-28 (the survey of Fletcher & Islam (2015), §II.A).
    Raab, G. M., Nowok, B. & Dibben, C. (2021). Assessing, visualizing and
    improving the utility of synthetic data (synthpop's tabular χ²).

    Examples
    --------
    Proportions (1/2, 1/2) against (3/4, 1/4): symmetric
    ½ (0.25²/1.25 + 0.25²/0.75) = 0.066667; Pearson
    (0.25² + 0.25²)/0.5 = 0.25, i.e. ``chisquare([3, 1], [2, 2])`` = 1 over 4
    records.

    >>> import pandas as pd
    >>> from infoloss.measures.chi2 import chi2_distance
    >>> orig = pd.DataFrame({"x": ["a", "a", "b", "b"]})
    >>> prot = pd.DataFrame({"x": ["a", "a", "a", "b"]})
    >>> spec = {"variables": {"x": {"scale": "nominal"}}}
    >>> round(chi2_distance(orig, prot, spec).value, 6), chi2_distance(orig, prot, spec, form="pearson").value
    (0.066667, 0.25)
    """
    names = _categorical(pair)
    use_w, wdetails = _weighting(pair, weighted, "chi2_distance")
    alpha = float(smoothing)
    # a pseudo-record weighs the file's mean positive weight, as kl_divergence's (a record of weight 0 counts for
    # nothing: five such records changed the value)
    unit = {which: _total(pair, which, use_w) / _records_that_count(pair, which, use_w)
            for which in (ORIGINAL, PROTECTED)}
    by_variable, by_pair, tests, not_computed = {}, {}, {}, {}
    for combo in [(n,) for n in names] + _pairs(names):
        key = _key(combo)
        value, info = _one_table(pair, combo, use_w, form, alpha, unit)
        if info:
            tests[key] = info
        if not math.isfinite(value):
            not_computed[key] = "the protected file has records in a cell that is empty in the original (no smoothing)"
            continue
        (by_variable if len(combo) == 1 else by_pair)[key] = value
    values = list(by_variable.values()) + list(by_pair.values())
    if not values:
        raise NotComputed(
            "every table has protected records in a cell that is empty in the original; use form='symmetric' "
            "or smoothing > 0"
        )
    details: dict = {
        "form": form,
        "formula": "½Σ(p−q)²/(p+q)" if form == "symmetric" else "Σ(q−p)²/p, q protected, p original",
        "tables": len(values),
        "cells": "missing is a category; proportions of each file",
        **wdetails,
    }
    if form == "pearson":
        details["smoothing"] = alpha
    if tests:
        details["tests"] = tests
    elif use_w:
        details["tests_note"] = "no χ² test with weighted counts: the proportions are weighted, the tests are not"
    if not_computed:
        details["not_computed"] = not_computed
    return MeasureResult(
        value=float(np.mean(values)),
        by_variable=by_variable or None,
        by_pair=by_pair or None,
        details=details,
    )
