"""Ratio-of-totals estimates and their Taylor-linearised standard errors under a stratified cluster design.

Every linearised statistic is a total or a ratio of two weighted totals per estimate ``e`` of a domain ``d``:

    mean        Y_e / X_d   with a = y,          b = 1       (records of the domain with y observed)
    proportion  Y_e / X_d   with a = 1[x = k],   b = 1       (e = (domain, category k); x observed)
    ratio       Y_e / X_d   with a = y,          b = x       (both observed)
    total       Y_e         with a = y

where ``Y_e = Σ w·a`` and ``X_d = Σ w·b``.  The linearised variable of ``θ = Y/X`` is ``z = (w·a − θ·w·b)/X``
(``z = w·a`` for a total), so its PSU totals are ``T_e = α_e·A_e + β_e·B_d`` with ``α = 1/X``, ``β = −θ/X``
and ``A``, ``B`` the PSU totals of ``w·a`` and ``w·b``.  The with-replacement variance of the first stage is

    V(θ_e) = Σ_h  n_h/(n_h − 1) · Σ_{PSU i in h} (T_ei − T̄_eh)²

with ``n_h`` the number of PSUs of stratum ``h`` (all of them, also those without a record of the domain:
domain estimation, as R's ``survey::svyby`` and ``svymean(..., na.rm = TRUE)``).  This is R survey's
``svymean``/``svytotal``/``svyratio`` variance for ``svydesign(ids = ~psu, strata = ~strata, weights = ~w,
nest = TRUE)`` without a finite-population correction; a stratum with a single PSU contributes 0 (survey's
``options(survey.lonely.psu = "certainty")``).

The sums are computed from sparse (PSU, estimate) entries, so a proportion with K categories in D domains
costs one pass over the records, not K·D: ``T`` is computed directly where a PSU has records of the
estimate's numerator, and the PSUs of the domain without such records add ``β·B`` (their sums are the
domain's sums minus those of the numerator's PSUs).

References
----------
Wolter, K. M. (2007). *Introduction to Variance Estimation*, 2nd ed., ch. 6 (Taylor series methods). Springer.
Lumley, T. (2010). *Complex Surveys: A Guide to Analysis Using R*, §2.3 and §3.4 (domains). Wiley.

Examples
--------
A weighted mean of 1, 2, 3, 4 (weights 1, 1, 2, 2), every record its own PSU (R: ``svymean(~y,
svydesign(ids = ~1, weights = ~w, data = d))`` gives 2.8333 with SE 0.5966):

>>> import numpy as np
>>> contrib = Contributions(np.arange(4), np.zeros(4, dtype=np.int64), np.array([1., 2, 3, 4]),
...                         np.arange(4), np.zeros(4, dtype=np.int64), np.ones(4), np.zeros(1, dtype=np.int64))
>>> design = LinearDesign(np.array([1., 1, 2, 2]), None, None)
>>> theta, se = ratio_estimates(contrib, design)
>>> round(float(theta[0]), 6), round(float(se[0]), 6)
(2.833333, 0.59663)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class LinearDesign:
    """Weights, strata codes (None: one stratum) and PSU codes (None: every record a PSU) of one file."""

    weights: np.ndarray
    strata: np.ndarray | None
    psu: np.ndarray | None

    @property
    def n(self) -> int:
        return self.weights.shape[0]


@dataclass
class Contributions:
    """Sparse record contributions to the numerators and denominators of E estimates in D domains.

    Numerator entries: record ``rec_a[j]`` adds ``w·a[j]`` to estimate ``est_a[j]``; denominator entries:
    record ``rec_b[j]`` adds ``w·b[j]`` to domain ``dom_b[j]``.  ``dom_of_est[e]`` is estimate e's domain.
    A record appears at most once in ``rec_a`` and once in ``rec_b``.  ``total`` marks plain totals;
    ``aligned`` says that estimate e is domain e and the same records give numerators and denominators.
    """

    rec_a: np.ndarray
    est_a: np.ndarray
    a: np.ndarray
    rec_b: np.ndarray
    dom_b: np.ndarray
    b: np.ndarray
    dom_of_est: np.ndarray
    total: bool = False
    aligned: bool = False  # estimate e is domain e and rec_a is rec_b (means, ratios, totals): no B-only PSUs

    @property
    def n_estimates(self) -> int:
        return self.dom_of_est.shape[0]

    @property
    def n_domains(self) -> int:
        return int(self.dom_of_est.max(initial=-1)) + 1 if self.dom_of_est.size else 0


def ratio_estimates(contrib: Contributions, design: LinearDesign) -> tuple[np.ndarray, np.ndarray]:
    """Point estimates ``θ_e`` and their linearised standard errors (NaN where a denominator is 0)."""
    w = design.weights
    wa = w[contrib.rec_a] * contrib.a
    wb = w[contrib.rec_b] * contrib.b
    E = contrib.n_estimates
    D = max(contrib.n_domains, int(contrib.dom_b.max(initial=-1)) + 1)
    Y = np.bincount(contrib.est_a, weights=wa, minlength=E)
    X = np.bincount(contrib.dom_b, weights=wb, minlength=D)
    with np.errstate(divide="ignore", invalid="ignore"):
        if contrib.total:
            theta = Y
            alpha, beta = np.ones(E), np.zeros(E)
        else:
            x = X[contrib.dom_of_est]
            theta = np.where(x != 0, Y / x, np.nan)
            alpha = np.where(x != 0, 1.0 / x, np.nan)
            beta = -theta * alpha
    variance = _variance(contrib, design, wa, wb, alpha, beta, E, D)
    se = np.sqrt(np.maximum(variance, 0.0))
    se[~np.isfinite(theta)] = np.nan
    return theta, se


def _variance(contrib: Contributions, design: LinearDesign, wa: np.ndarray, wb: np.ndarray,
              alpha: np.ndarray, beta: np.ndarray, E: int, D: int) -> np.ndarray:
    psu, stratum_of_psu, n_psu = _psus(design)
    H = int(stratum_of_psu.max(initial=0)) + 1
    n_h = np.bincount(stratum_of_psu, minlength=H).astype(float)
    if design.psu is None and (contrib.rec_a is contrib.rec_b or np.array_equal(contrib.rec_a, contrib.rec_b)):
        # records are the PSUs and each gives one numerator and one denominator entry: no grouping needed
        a_psu, a_est, A, b_psu, b_dom, B, B_at_A = contrib.rec_a, contrib.est_a, wa, contrib.rec_b, contrib.dom_b, wb, wb
    else:
        a_psu, a_est, A, b_psu, b_dom, B, B_at_A = _psu_entries(contrib, psu, wa, wb, E, D, design.psu is None)

    def per_stratum(psus: np.ndarray, cols: np.ndarray, values: np.ndarray, width: int) -> np.ndarray:
        key = stratum_of_psu[psus] * width + cols
        return np.bincount(key, weights=values, minlength=H * width).reshape(H, width)

    # PSU totals of z where the PSU has numerator entries, computed directly (no cancelling expansion) ...
    T = alpha[a_est] * A + beta[a_est] * B_at_A
    sum_t = per_stratum(a_psu, a_est, T, E)
    sum_t2 = per_stratum(a_psu, a_est, T * T, E)
    if not contrib.aligned:
        # ... plus β·B for the PSUs of the domain without a numerator entry (a proportion's other categories)
        SB = per_stratum(b_psu, b_dom, B, D)[:, contrib.dom_of_est] - per_stratum(a_psu, a_est, B_at_A, E)
        SBB = per_stratum(b_psu, b_dom, B * B, D)[:, contrib.dom_of_est] - per_stratum(a_psu, a_est, B_at_A**2, E)
        sum_t = sum_t + beta * SB
        sum_t2 = sum_t2 + beta**2 * np.maximum(SBB, 0.0)
    factor = np.where(n_h > 1, n_h / np.maximum(n_h - 1, 1), 0.0)[:, None]
    with np.errstate(invalid="ignore"):
        within = sum_t2 - sum_t**2 / np.maximum(n_h, 1)[:, None]
    del n_psu
    return (factor * within).sum(axis=0)


def _psu_entries(contrib: Contributions, psu: np.ndarray, wa: np.ndarray, wb: np.ndarray, E: int, D: int,
                 unique: bool) -> tuple:
    """PSU totals of w·a per (psu, estimate) and of w·b per (psu, domain) as sparse sorted entries, and the
    B of the same (psu, domain) for every A entry."""
    a_key, A = _psu_totals(psu[contrib.rec_a] * E + contrib.est_a, wa, unique)
    b_key, B = _psu_totals(psu[contrib.rec_b] * D + contrib.dom_b, wb, unique)
    a_psu, a_est = np.divmod(a_key, E)
    b_psu, b_dom = np.divmod(b_key, D)
    want = a_psu * D + contrib.dom_of_est[a_est]
    pos = np.searchsorted(b_key, want)
    pos_ok = pos < b_key.size
    match = np.zeros(a_key.size, dtype=bool)
    match[pos_ok] = b_key[pos[pos_ok]] == want[pos_ok]
    B_at_A = np.where(match, B[np.minimum(pos, max(b_key.size - 1, 0))] if b_key.size else 0.0, 0.0)
    return a_psu, a_est, A, b_psu, b_dom, B, B_at_A


def _psus(design: LinearDesign) -> tuple[np.ndarray, np.ndarray, int]:
    """PSU index per record, stratum per PSU, number of PSUs."""
    n = design.n
    strata = design.strata if design.strata is not None else np.zeros(n, dtype=np.int64)
    if design.psu is None:
        return np.arange(n, dtype=np.int64), strata, n
    n_psu = int(design.psu.max(initial=-1)) + 1
    stratum_of_psu = np.zeros(n_psu, dtype=np.int64)
    stratum_of_psu[design.psu] = strata  # PSUs are nested in strata (data.Design codes them per stratum)
    return design.psu, stratum_of_psu, n_psu


def _psu_totals(key: np.ndarray, values: np.ndarray, unique: bool) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct keys and the sums of ``values`` per key (``unique``: the keys are already distinct)."""
    if unique:
        order = np.argsort(key, kind="stable")
        return key[order], values[order]
    distinct, inverse = np.unique(key, return_inverse=True)
    return distinct, np.bincount(inverse.reshape(-1), weights=values, minlength=distinct.size)
