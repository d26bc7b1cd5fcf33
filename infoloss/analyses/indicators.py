"""laeken's weighted quantile, Gini, ARPR and QSR, exactly as laeken 0.5.2 computes them.

Conventions (laeken 0.5.2's, checked against its R source and its output):

- weighted quantile q(p): values sorted ascending, cumulative weight share ``cw``; q(p) is the value at the first
  index with ``cw > p`` (no interpolation); q(0) is the minimum and q(1) the maximum (``weightedQuantile``);
  the weighted median is q(0.5);
- Gini (percent) = 100·[(2·Σ w_i x_i C_i − Σ w_i² x_i) / (Σw · Σ w_i x_i) − 1], x ascending, C the cumulative
  weight (``giniCoeff``; the order of tied values does not change it);
- ARPR (percent) = 100·Σ_{x < t} w / Σ w with the threshold t = p·median (p = 0.6), strict ``<``
  (``arpr``); in a domain the threshold is the whole file's (laeken's ``breakdown``);
- QSR = Σ_{x > q(0.8)} w·x / Σ_{x ≤ q(0.2)} w·x (``quintileRatio``).

Missing values are removed first (laeken's ``na.rm = TRUE``).  The Gini coefficient is undefined (NaN; R gives
0/0 = NaN) when the weighted total Σ w·x is 0, and the QSR when the bottom quintile's total is 0 (R gives Inf
or NaN): the caller says so in a note.  Sums and cumulative sums accumulate in extended
precision and are then rounded to double, as R's ``sum`` and ``cumsum`` do, so that exact ties of the cumulative
share with p fall the same way as in R.  laeken is written in R; these are numpy
transcriptions of its formulas so that infoloss gives its numbers (tested against laeken's output in
``tests/data/reference_r``).

References
----------
Alfons, A. & Templ, M. (2013). Estimation of social exclusion indicators from complex surveys: the R package
laeken. *Journal of Statistical Software* 54(15). doi:10.18637/jss.v054.i15
Eurostat (2004). Common cross-sectional EU indicators based on EU-SILC; the gender pay gap (EU-SILC 131-rev/04).

Examples
--------
The values R's laeken gives (``gini(c(1, 2, 3, 4, 10))$value`` is 40, ``arpr(...)$value`` 20):

>>> import numpy as np
>>> x, w = np.array([1.0, 2, 3, 4, 10]), np.array([1.0, 1, 1, 1, 1])
>>> weighted_quantile(x, w, [0.0, 0.5, 1.0]).tolist()
[1.0, 3.0, 10.0]
>>> round(gini(x, w), 6)
40.0
>>> arpr(x, w, 0.6 * weighted_quantile(x, w, [0.5])[0])
20.0
>>> y = np.arange(1.0, 11.0)
>>> round(qsr(y, np.ones(10)), 6)   # (10) / (1 + 2 + 3); R: qsr(1:10)$value
1.666667
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


def sort_values(x: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Values ascending with their weights (stable, as R's ``order``)."""
    order = np.argsort(x, kind="stable")
    return x[order], w[order]


def weighted_quantile(x: np.ndarray, w: np.ndarray, probs: Sequence[float], *, is_sorted: bool = False) -> np.ndarray:
    """laeken's ``weightedQuantile``: the first value whose cumulative weight share exceeds p."""
    if not is_sorted:
        x, w = sort_values(x, w)
    share = _cumsum(w) / _sum(w)
    out = np.empty(len(probs))
    for j, p in enumerate(probs):
        if p == 0:
            out[j] = x[0]
        elif p == 1:
            out[j] = x[-1]
        else:
            out[j] = x[min(int(np.searchsorted(share, p, side="right")), x.size - 1)]
    return out


def gini(x: np.ndarray, w: np.ndarray, *, is_sorted: bool = False) -> float:
    """laeken's ``giniCoeff`` in percent."""
    if not is_sorted:
        x, w = sort_values(x, w)
    wx = w * x
    total = _sum(wx)
    if total == 0:
        return np.nan
    cw = _cumsum(w)
    return float(100 * ((2 * _sum(wx * cw) - _sum(w * wx)) / (_sum(w) * total) - 1))


def arpr(x: np.ndarray, w: np.ndarray, threshold: float) -> float:
    """laeken's at-risk-of-poverty rate in percent: the weight share strictly below ``threshold``."""
    return float(100 * _sum(w[x < threshold]) / _sum(w))


def qsr(x: np.ndarray, w: np.ndarray, *, is_sorted: bool = False) -> float:
    """laeken's ``quintileRatio``: income of the top quintile over that of the bottom one."""
    if not is_sorted:
        x, w = sort_values(x, w)
    q20, q80 = weighted_quantile(x, w, [0.2, 0.8], is_sorted=True)
    low, high = x <= q20, x > q80
    bottom = _sum(w[low] * x[low])
    return np.nan if bottom == 0 else float(_sum(w[high] * x[high]) / bottom)


def _sum(a: np.ndarray) -> float:
    """R's ``sum``: accumulated in long double, rounded to double."""
    return float(np.sum(a, dtype=np.longdouble))


def _cumsum(a: np.ndarray) -> np.ndarray:
    """R's ``cumsum``: accumulated in long double, each partial sum rounded to double."""
    return np.cumsum(a, dtype=np.longdouble).astype(np.float64)
