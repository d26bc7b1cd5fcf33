"""Cronbach's alpha of a declared scale, with the alpha of each item deleted (Kocar 2018, §3.6).

    α = k/(k − 1) · (1 − Σ_j s_j² / s_T²)

with k items, s_j² the variance of item j and s_T² the variance of their sum, over the records with every
item observed (listwise deletion).  With survey weights the variances are weighted (``numpy.cov`` with
``aweights``; the normalisation cancels in the ratio), otherwise the ordinary sample variances.  Ordinal items
enter with their numeric codes.  The loss is Kocar's adjustment of Shlomo's measure: ``|α_p − α_o| / |α_o|``.

References
----------
Cronbach, L. J. (1951). Coefficient alpha and the internal structure of tests. *Psychometrika* 16(3), 297–334.
Kocar, S. (2018). Global data utility (methods paper 4/2018), §3.6: Cronbach's alpha with the if-item-deleted
coefficients as a multivariate utility statistic.

Examples
--------
>>> import numpy as np
>>> items = np.array([[1., 2, 2], [2, 3, 3], [3, 3, 4], [4, 5, 4]])
>>> round(cronbach_alpha(items), 6)
0.948529
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import NotComputed
from ..numeric import safe_exponent, scaled
from .data import FileData
from .spec import Analyses


def cronbach_alpha(items: np.ndarray, weights: np.ndarray | None = None) -> float:
    """Cronbach's alpha of the columns of ``items`` (records without a missing item)."""
    return _alpha(_covariance(items, weights))


def _covariance(items: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    return np.atleast_2d(np.cov(items, rowvar=False, aweights=weights))


def _alpha(cov: np.ndarray) -> float:
    k = cov.shape[0]
    total = cov.sum()
    if k < 2 or not total > 0:
        return float("nan")
    return float(k / (k - 1) * (1 - np.trace(cov) / total))


def scale_results(data: FileData, analyses: Analyses) -> list[dict[str, Any]]:
    """Alpha and alpha-if-item-deleted of every declared scale in one file."""
    out = []
    for scale in analyses.scales:
        row: dict[str, Any] = {"name": scale.name, "items": list(scale.items)}
        try:
            X = np.column_stack([data.numeric(v) for v in scale.items])
        except NotComputed as exc:
            row["note"] = f"not computed in the {data.name} file: {exc}"
            out.append(row)
            continue
        complete = ~np.isnan(X).any(axis=1)
        w = data.design.weights[complete] if data.design.weighted else None
        row["n_used"] = int(complete.sum())
        row["weighted"] = w is not None
        if complete.sum() < 2:
            row["note"] = f"fewer than two records of the {data.name} file have every item"
            out.append(row)
            continue
        if w is not None and np.count_nonzero(w > 0) < 2:  # np.cov's weights would sum to 0 (or give one record)
            row["note"] = f"fewer than two records of the {data.name} file with every item have a positive weight"
            out.append(row)
            continue
        # alpha is a ratio of (co)variances: one power of two for every item changes it not at all (exactly), and
        # keeps the covariances of items near the float limit finite
        cov = _covariance(scaled(X[complete], safe_exponent(X)), w)
        alpha = _alpha(cov)
        row["alpha"] = alpha if np.isfinite(alpha) else None
        row["alpha_if_deleted"] = {v: _num(_alpha(np.delete(np.delete(cov, j, 0), j, 1))) if len(scale.items) > 2
                                   else None for j, v in enumerate(scale.items)}
        if row["alpha"] is None:
            row["note"] = f"the sum of the items does not vary in the {data.name} file"
        out.append(row)
    return out


def _num(x: float) -> float | None:
    return x if np.isfinite(x) else None
