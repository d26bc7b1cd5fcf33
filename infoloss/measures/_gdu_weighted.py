"""Survey-weighted forms of the GDU model's tests (used by :mod:`infoloss.measures.gdu` with ``weighted``).

Every weighted test works on weights rescaled to sum to Kish's effective
sample size ``n_eff = (Σ w)² / Σ w²`` of the records it uses, so that the
test statistics keep the scale of a sample of ``n_eff`` independent records
(a first-order design-effect correction: a χ² on weighted counts rescaled to
``n_eff`` is the Pearson statistic divided by Kish's design effect).  Equal
weights give ``n_eff = n`` and the unweighted tests.

* χ² (univariate 2 × K and bivariate): weighted counts rescaled to ``n_eff``
  per file (univariate) or over the pair's complete cases (bivariate);
  Cramér's V² = χ² / (n_eff (min(R, C) − 1)) does not depend on the scale.
* Kolmogorov–Smirnov: weighted ECDFs, p-value from the effective sizes
  (:func:`infoloss.measures.distributions.ks_weighted`).
* Pearson: the weighted correlation, p-value at ``n_eff`` (computed in
  ``_gdu_pairs._weighted_pair_stats`` from per-variable cached centred values).
* ANOVA: weighted group means and sums of squares, F with ``n_eff − G``
  within-group degrees of freedom; η² = SSB / TSS (weighted; also in
  ``_gdu_pairs._weighted_pair_stats``).
* Spearman and Kruskal–Wallis have no standard weighted form: they stay
  unweighted, and the pair's details say so.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import NotComputed
from ._contingency import Chi2Independence, chi2_independence

UNWEIGHTED_TESTS = ("spearman", "kruskal")
UNWEIGHTED_NOTE = "no weighted form of this test: computed unweighted"


def kish(w: np.ndarray) -> float:
    """Kish's effective sample size ``(Σ w)² / Σ w²``."""
    s2 = float(np.dot(w, w))
    return float(w.sum()) ** 2 / s2 if s2 > 0 else 0.0


def rescaled(w: np.ndarray) -> np.ndarray:
    """The weights rescaled to sum to their effective sample size."""
    total = float(w.sum())
    if not total > 0:
        raise NotComputed("the weights of the records compared sum to zero")
    return w * (kish(w) / total)


def weighted_counts(codes: np.ndarray, n_levels: int, w: np.ndarray) -> np.ndarray:
    """Weighted counts per level of the non-missing codes, rescaled to the records' effective size."""
    ok = codes >= 0
    if ok.all():
        counts = np.bincount(codes, weights=w, minlength=n_levels)
    else:
        w = w[ok]
        counts = np.bincount(codes[ok], weights=w, minlength=n_levels)
    total = float(counts.sum())
    if not total > 0:
        raise NotComputed("the weights of the records compared sum to zero")
    return counts * (kish(w) / total)


def chi2_two_files(o_codes, p_codes, n_levels: int, w_o: np.ndarray, w_p: np.ndarray) -> dict[str, Any]:
    """χ² test of the 2 × K table file × category with weighted counts rescaled to each file's n_eff."""
    table = np.vstack([weighted_counts(o_codes, n_levels, w_o), weighted_counts(p_codes, n_levels, w_p)])
    table = table[:, table.sum(axis=0) > 0]
    if table.shape[1] < 2:
        raise NotComputed("it has a single category in both files, so the chi-squared test has no degrees of freedom")
    if np.array_equal(table[0], table[1]):  # equal rows: χ² = 0 exactly (scipy's expected counts round)
        res = Chi2Independence(0.0, 1.0, table.shape[1] - 1, table)
    else:
        res = chi2_independence(table)
    return {"statistic": float(res.statistic), "p_value": float(res.pvalue), "dof": int(res.dof),
            "n_eff": [float(table[0].sum()), float(table[1].sum())]}


def crosstab(a: np.ndarray, ka: int, b: np.ndarray, kb: int, w: np.ndarray) -> np.ndarray:
    """Weighted two-way table of codes (already restricted to the complete cases)."""
    return np.bincount(a.astype(np.int64) * kb + b, weights=w, minlength=ka * kb).reshape(ka, kb)


def chi2_pair(table: np.ndarray) -> dict[str, Any]:
    """χ² test of independence of a weighted table (rescaled to n_eff) and Cramér's V²."""
    t = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
    if t.shape[0] < 2 or t.shape[1] < 2:
        raise ValueError("one of the two variables has a single category among the complete cases")
    res = chi2_independence(t)
    n = float(t.sum())
    chi2 = float(res.statistic)
    return {"statistic": chi2, "p": float(res.pvalue), "coef": chi2 / (n * (min(t.shape) - 1)), "n": n,
            "dof": int(res.dof)}
