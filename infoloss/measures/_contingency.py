"""Pearson's χ² test of independence of a two-way table, as ``scipy.stats.chi2_contingency(correction=False)``.

The tables, distributions and GDU families test many small tables; scipy's
function is the reference, but importing ``scipy.stats`` costs about half a
second of every run's start-up (more than all the measures of a 200,000-record
comparison), so the same arithmetic is done here with numpy and
``scipy.special.chdtrc`` (what scipy calls for the p-value).  The results are
scipy's bit for bit; ``tests/test_contingency.py`` checks that on random
tables.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import special


class Chi2Independence(NamedTuple):
    """The test's statistic, p-value, degrees of freedom and expected counts (scipy's result fields)."""

    statistic: float
    pvalue: float
    dof: int
    expected_freq: np.ndarray


def chi2_independence(observed: np.ndarray) -> Chi2Independence:
    r"""Pearson's χ² test of independence of the rows and columns of a two-way table of counts.

    .. math::

        E_{ij} = \frac{n_{i\cdot}\, n_{\cdot j}}{n},\qquad
        \chi^2 = \sum_{ij} \frac{(O_{ij} - E_{ij})^2}{E_{ij}},\qquad
        p = P(\chi^2_{(R-1)(C-1)} \ge \chi^2)

    Without continuity correction, as ``scipy.stats.chi2_contingency(observed,
    correction=False)`` computes it (the same operations in the same order);
    a table with one row or one column has no degrees of freedom: χ² = 0 and
    p = 1, as in scipy.

    Parameters
    ----------
    observed : ndarray of shape (R, C)
        Non-negative counts (weighted counts allowed).

    Raises
    ------
    ValueError
        When a count is negative or an expected count is zero (an empty row or
        column), with scipy's reasons.

    References
    ----------
    Pearson, K. (1900). On the criterion that a given system of deviations ...
    Philosophical Magazine 50(302), 157-175.

    Examples
    --------
    >>> res = chi2_independence(np.array([[10, 10, 20], [20, 20, 20]]))
    >>> round(res.statistic, 6), round(res.pvalue, 6), res.dof
    (2.777778, 0.249352, 2)
    """
    observed = np.asarray(observed)
    if observed.ndim != 2:
        raise ValueError("the table must have two dimensions")
    if np.any(observed < 0):
        raise ValueError("All values in `observed` must be nonnegative.")
    if observed.size == 0:
        raise ValueError("No data; `observed` has size 0.")
    counts = np.asarray(observed, dtype=np.float64)
    expected = np.multiply(counts.sum(axis=1, keepdims=True), counts.sum(axis=0, keepdims=True)) / counts.sum()
    if np.any(expected == 0):
        zeropos = tuple(int(i) for i in np.argwhere(expected == 0)[0])
        raise ValueError(f"The internally computed table of expected frequencies has a zero element at {zeropos}.")
    dof = (observed.shape[0] - 1) * (observed.shape[1] - 1)
    if dof == 0:
        return Chi2Independence(0.0, 1.0, 0, expected)
    statistic = np.sum((observed - expected) ** 2 / expected)
    return Chi2Independence(float(statistic), float(special.chdtrc(dof, statistic)), dof, expected)
