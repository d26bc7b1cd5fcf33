"""Descriptive statistics of the continuous variables for the JSON and the report.

:func:`continuous_statistics` (published by :mod:`infoloss.measures.moments`):
per file and variable the count, mean with its confidence interval, standard
deviation and variance, and the complete-case covariance and correlation
matrices, weighted with the survey weights when the files have them.  It
reuses the moments family's cached statistics of each file.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np

from .. import limits, numeric
from ..errors import InputError, NotComputed
from ..pair import ORIGINAL, PROTECTED, EncodedPair
from ._moments_files import (
    _blocks,
    _both_files,
    _column,
    _complete,
    _file_cached,
    _gram,
    _univariate,
)


def _describe_file(pair: EncodedPair, which: str, confidence: float, weighted: bool) -> dict[str, Any]:
    # special.stdtrit(df, q) is what scipy.stats.t.ppf(q, df) computes
    from scipy import special

    names = pair.continuous_names
    w_all = pair.weights(which) if weighted else None
    uni = _univariate(pair, which)
    n, mean, ci, sd, var = {}, {}, {}, {}, {}
    for j, name in enumerate(names):
        k = int(uni.n[j])
        n[name] = k
        mean[name] = ci[name] = sd[name] = var[name] = None
        if k == 0:
            continue
        # on the variable scaled by 2**-e (exact), then scaled back: no overflow for values near 1e308
        e = int(uni.exp[j])
        if w_all is None:
            m, v = float(uni.mean_s[j]), (float(uni.var_s[j]) if k >= 2 else None)
            if v is not None:
                half = float(special.stdtrit(k - 1, 0.5 + confidence / 2)) * math.sqrt(v / k)
                ci[name] = [numeric.unscale(m - half, e), numeric.unscale(m + half, e)]
        else:
            x, w = _column(pair, name, which), w_all
            ok = ~np.isnan(x) & (w > 0)  # a record of weight 0 counts for nothing (docs/spec.md)
            if not ok.all():
                x, w = x[ok], w[ok]
            kw = x.shape[0]
            if kw == 0:
                continue
            x = numeric.scaled(x, e)
            wm, wv = _weighted_mean_var(x, w * (kw / w.sum()))  # weights rescaled to sum to the records weighed
            m, v = float(wm), None
            if kw >= 2:
                v = 0.0 if uni.constant[j] else float(wv)
                half = float(special.stdtrit(kw - 1, 0.5 + confidence / 2)) * _weighted_mean_se(x, w, m)
                ci[name] = [numeric.unscale(m - half, e), numeric.unscale(m + half, e)]
        mean[name] = numeric.unscale(m, e)
        var[name] = numeric.unscale(v, 2 * e) if v is not None else None  # infinite (None in JSON) if too large
        sd[name] = numeric.unscale(math.sqrt(v), e) if v is not None else None
    cov, corr = (None, None) if _matrices_left_out(names) else _describe_matrices(pair, which, w_all)
    return {"n": n, "mean": mean, "mean_ci": ci, "sd": sd, "variance": var, "cov": cov, "corr": corr,
            "n_complete": int(_complete(pair, which).n),
            "off_mode": {name: _off_mode(pair, name, which) for name in names}}


def _matrices_left_out(names: list[str]) -> str | None:
    """Why the covariance and correlation matrices are left out of the statistics (more than
    ``limits.MAX_PAIRS`` pairs of continuous variables: 3,000 variables' four matrices were 780 MB of JSON), or
    None."""
    pairs = math.comb(len(names), 2)
    if pairs <= limits.MAX_PAIRS:
        return None
    return (f"the covariance and correlation matrices are left out because {len(names):,} continuous variables make "
            f"{pairs:,} pairs, more than the {limits.MAX_PAIRS:,} (those of 500 variables) a comparison lists")


def _off_mode(pair: EncodedPair, name: str, which: str) -> int:
    """The records with a value of ``name`` other than its most common one (0 for a constant or empty column).

    Safe mode withholds a variable's statistics when 1 to ``min_cell`` − 1
    records differ from its mode: the mean times n less the mode's records
    would give their total (a mostly-zero amount with three non-zero
    records).  From the pair's sorted levels, which KS, GDU and the report's
    plots share.
    """
    counts = pair.levels(name, which).counts
    return int(counts.sum() - counts.max()) if counts.size else 0


def _described(pair: EncodedPair, which: str, confidence: float, weighted: bool) -> dict[str, Any]:
    """:func:`_describe_file`, the original's shared by the scenarios of one ``compare`` (a copy for each)."""
    key = ("moments", "describe", float(confidence), bool(weighted))
    return copy.deepcopy(_file_cached(pair, which, key, lambda: _describe_file(pair, which, confidence, weighted)))


def _weighted_mean_var(x: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    """Weighted mean ``Σ w x / Σ w`` and variance ``Σ w (x − m)² / (Σ w − 1)``.

    What ``statsmodels.stats.weightstats.DescrStatsW(x, weights=w, ddof=1)``
    computes for ``mean`` and ``var``, the same operations, written out so
    that the descriptive statistics of every weighted run need not import
    statsmodels (about half a second of start-up); the tests compare the two.
    The variance is NaN (undefined, as the unweighted one of a single value)
    when ``Σ w ≤ 1``: one record's worth of weight has no spread.
    """
    total = w.sum(0)
    mean = np.dot(x, w) / total
    return mean, (np.dot((x - mean) ** 2, w) / (total - 1) if total > 1 else np.nan)


def _weighted_mean_se(x: np.ndarray, w: np.ndarray, mean: float) -> float:
    """Linearisation (sandwich) standard error of a weighted mean, as survey software gives it.

    ``se² = n/(n − 1) · Σ w_i² (x_i − x̄_w)² / (Σ w_i)²`` — the variance of the
    ratio estimator Σwx/Σw under a with-replacement design with these weights
    (R's ``survey::svymean``); equal to the HC1 standard error of a weighted
    regression on a constant.
    """
    n = x.shape[0]
    r = w * (x - mean)
    return math.sqrt(n / (n - 1) * float(np.dot(r, r))) / float(w.sum())


def _describe_matrices(pair: EncodedPair, which: str, w: np.ndarray | None) -> tuple[list, list]:
    p = len(pair.continuous_names)
    comp = _complete(pair, which)
    empty = [[None] * p for _ in range(p)]
    if comp.cov is None:
        return empty, [row[:] for row in empty]
    exp = _univariate(pair, which).exp
    if w is None:
        cov, cov_s = comp.cov, comp.cov_s
    else:
        ww = w if comp.rows is None else w[comp.rows]
        total = float(ww.sum())
        weighed = int(np.count_nonzero(ww > 0))  # the complete cases of positive weight (weight 0 adds nothing)
        if total <= 0 or weighed < 2:
            return empty, [row[:] for row in empty]
        ww = ww * (weighed / total)  # rescaled to sum to the number of complete cases weighed
        mean = np.zeros(p)
        used = 0
        for _, block in _blocks(pair, which, comp.rows):
            mean += np.einsum('i,ij->j', ww[used : used + block.shape[0]], block)
            used += block.shape[0]
        mean /= weighed
        cov_s = _gram(_blocks(pair, which, comp.rows), mean, ww) / (weighed - 1)  # of the scaled variables
        cov = numeric.unscale(cov_s, exp[:, None] + exp[None, :])
    if comp.corr is not None and w is None:
        corr = comp.corr
    else:
        sd = np.sqrt(np.clip(np.diag(cov_s), 0.0, None))
        with np.errstate(divide="ignore", invalid="ignore"):
            corr = cov_s / np.outer(sd, sd)
        np.fill_diagonal(corr, 1.0)
        corr[comp.constant, :] = np.nan
        corr[:, comp.constant] = np.nan
    cov_list = [[float(v) for v in row] for row in cov]
    corr_list = [[float(v) if np.isfinite(v) else None for v in row] for row in corr]
    return cov_list, corr_list


def continuous_statistics(pair: EncodedPair, *, confidence: float = 0.95, weighted: bool = True) -> dict[str, Any]:
    r"""Descriptive statistics of the continuous variables in both files, JSON-ready.

    Per file and variable: the number of available values ``n``, the mean
    with its t confidence interval ``mean ± t_{1−α/2, n−1} · s/√n``, the
    standard deviation ``s`` and variance ``s²`` (divisor n − 1), each over
    the variable's available values; and the covariance and Pearson
    correlation matrices (divisor n − 1) over the file's complete cases
    (records with every continuous variable present).

    With survey weights (``weighted``, and both files weighted, as the
    measures weigh them: a protected file paired to the original carries its
    weights; one file's weights alone weigh neither) the mean and variance are
    statsmodels ``DescrStatsW``'s over the records of positive weight (a
    record of weight 0 counts for nothing), with the weights rescaled to sum
    to their number so that they reweight the records without inflating the
    sample size: ``x̄_w = Σ w_i x_i / Σ w_i``,
    ``s²_w = Σ w_i (x_i − x̄_w)² / (n − 1)``; the covariance is weighted the
    same way.  The interval of a weighted mean is ``x̄_w ± t_{1−α/2, n−1}·se``
    with the linearisation standard error of survey software,
    ``se² = n/(n − 1) · Σ w_i² (x_i − x̄_w)² / (Σ w_i)²`` (R ``survey::svymean``;
    the HC1 standard error of a weighted regression on a constant), which
    grows with the variability of the weights, as a design-based interval
    should.

    Undefined values (no values, a single value, correlations of a constant
    variable) are None, never NaN.

    Parameters
    ----------
    pair : EncodedPair
    confidence : float
        Level of the mean's confidence interval (default 0.95).
    weighted : bool
        Use the files' weights when they have them (default True).

    Returns
    -------
    dict
        ``{"variables": [...], "weighted": bool, "confidence": 0.95,
        "orig": {"n", "mean", "mean_ci", "sd", "variance", "cov", "corr", "n_complete", "off_mode"},
        "prot": {...}}``; per-variable entries are dicts keyed by variable,
        ``cov`` and ``corr`` lists of rows in ``variables`` order, over the
        ``n_complete`` complete cases (None beyond ``limits.MAX_PAIRS``
        pairs of variables, with why in ``matrices_left_out``);
        ``off_mode`` counts the records whose value is not the variable's
        most common one (unweighted; what safe mode needs, see
        :func:`infoloss.safe_statistics.safe_statistics`); with paired files,
        ``records_changed`` counts per variable the records whose value the
        protection changed (safe mode withholds the comparisons of a variable
        changed in a few records, and the counts).

    Raises
    ------
    NotComputed
        When there is no continuous variable.

    References
    ----------
    Benschop, T., Machingauta, C. & Welch, M. (2022). *Statistical Disclosure
    Control: A Practice Guide*, "Statistics: mean, covariance, correlation".
    Domingo-Ferrer, J., Mateo-Sanz, J. M. & Torra, V. (2001), see the table
    measures.  sdcMicro users compare ``colMeans``, ``sd``, ``cov``, ``cor``.

    Examples
    --------
    For x = 1, 2, 3, 4: mean 2.5, s = √(5/3) = 1.290994, and with
    t(0.975, 3) = 3.182446 the interval is 2.5 ± 3.182446 · 1.290994/2 =
    2.5 ± 2.054260.

    >>> import pandas as pd
    >>> from infoloss.pair import encode_pair
    >>> from infoloss.measures.moments import continuous_statistics
    >>> df = pd.DataFrame({"x": [1.0, 2, 3, 4]})
    >>> s = continuous_statistics(encode_pair(df, df.copy(), {"variables": {"x": {"scale": "continuous"}}}))
    >>> s["orig"]["mean"], round(s["orig"]["sd"]["x"], 6)
    ({'x': 2.5}, 1.290994)
    >>> [round(v, 6) for v in s["orig"]["mean_ci"]["x"]]
    [0.44574, 4.55426]
    """
    names = pair.continuous_names
    if not names:
        raise NotComputed("there is no continuous variable")
    if not 0 < confidence < 1:
        raise InputError(f"confidence must be between 0 and 1, got {confidence}.")
    use = weighted and all(pair.weights(w) is not None for w in (ORIGINAL, PROTECTED))  # as the measures weigh
    left_out = _matrices_left_out(names)
    return {
        "variables": list(names),
        "weighted": bool(use),
        "confidence": float(confidence),
        **dict(zip(("orig", "prot"), _both_files(lambda which: _described(pair, which, confidence, use)))),
        **({"matrices_left_out": left_out} if left_out else {}),
        **({"records_changed": _records_changed(pair)} if pair.paired and pair.nearest is None else {}),
    }


def _records_changed(pair: EncodedPair) -> dict[str, int]:
    """Per continuous variable of paired files, the records whose value differs from the original's (a value
    set missing or filled in counts).  Safe mode withholds what compares a variable changed in 1 to
    ``min_cell`` − 1 records: the original's exact mean, less the public protected values, would be the
    changed records' total (a suppressed or top-coded outlier's own value).  The rule of ``records_changed``
    (missing in both files is no change), counted here: its module (``record._changed``) is not imported by a
    comparison without record-level measures (tests/test_measure_index.py)."""
    out = {}
    for name in pair.continuous_names:
        if pair.unchanged(name):
            out[name] = 0
            continue
        col = pair.continuous[name]
        same = (col.orig == col.prot) | (np.isnan(col.orig) & np.isnan(col.prot))
        out[name] = int(same.shape[0] - np.count_nonzero(same))
    return out
