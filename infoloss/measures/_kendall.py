"""Kendall's τ-b correlation matrix of the complete cases of one file (for Młodak's γ with ordinal variables)."""

from __future__ import annotations

import numpy as np
from scipy.stats import kendalltau

from ..errors import NotComputed
from ..pair import EncodedPair

__all__ = ["kendall_columns", "kendall_matrix"]


def kendall_columns(pair: EncodedPair, names: list[str], which: str) -> np.ndarray:
    """The variables as an (n, p) float array: continuous values, ordinal codes (category order); NaN missing."""
    cols = []
    for name in names:
        if name in pair.continuous:
            cols.append(pair.continuous[name].values(which))
        else:
            codes = pair.categorical[name].codes(which)
            cols.append(np.where(codes < 0, np.nan, codes.astype(float)))
    return np.column_stack(cols)


def kendall_matrix(x: np.ndarray, names: list[str], label: str) -> tuple[np.ndarray, int]:
    """Kendall's τ-b matrix of the complete rows of ``x`` (``scipy.stats.kendalltau`` per pair), and their number.

    τ-b corrects for ties, so ordinal codes with many ties give a matrix with
    unit diagonal.  Each pair costs one O(n log n) call of scipy's
    ``kendalltau`` (about 0.6 s at a million records), so the matrix costs
    ``p(p − 1)/2`` of them.  NotComputed (naming the variable) when a variable
    is constant on the complete cases or fewer than 2 records are complete.
    """
    ok = ~np.isnan(x).any(axis=1)
    if not ok.all():
        x = x[ok]
    n, p = x.shape
    if n < 2:
        raise NotComputed(f"fewer than 2 records of the {label} file have every variable present")
    constant = [nm for nm, c in zip(names, (x.min(axis=0) == x.max(axis=0))) if c]
    if constant:
        raise NotComputed(
            f"{', '.join(constant)} {'is' if len(constant) == 1 else 'are'} constant in the {label} file, "
            "so its Kendall correlations are undefined"
        )
    tau = np.eye(p)
    for i in range(p):
        for j in range(i + 1, p):
            tau[i, j] = tau[j, i] = float(kendalltau(x[:, i], x[:, j]).statistic)
    return tau, n


