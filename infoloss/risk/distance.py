"""Distance-based disclosure risk: interval disclosure, record linkage, distance to the closest record.

Each function takes plain arrays (records in rows) and returns a dict of
numbers and per-record arrays; the measures in
:mod:`infoloss.measures.risk_distance` read them from the pair.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from ..errors import NotComputed
from .freq import group_ids

__all__ = ["interval_disclosure", "robust_interval_disclosure", "linkage", "nearest_distances", "exact_copies",
           "mixed_features"]


def interval_disclosure(x: np.ndarray, xm: np.ndarray, k: float = 0.05) -> dict:
    """sdcMicro's ``dRisk``: share of records whose original values all lie within ``xm +- k sd(xm)``.

    ``sd`` is the protected column's standard deviation (n - 1, missing
    values left out); a comparison with a missing value on either side is
    left out, as sdcMicro's ``rowSums(..., na.rm = TRUE)`` does.

    References
    ----------
    Mateo-Sanz, J. M., Sebé, F. and Domingo-Ferrer, J. (2004). Outlier
    protection in continuous microdata masking. Privacy in Statistical
    Databases, LNCS 3050, 201-215.  sdcMicro 5.8.1, ``dRisk``.

    Examples
    --------
    >>> x = np.array([[1.0], [2.0], [3.0], [4.0]])
    >>> interval_disclosure(x, x + np.array([[0.0], [0.01], [1.0], [0.0]]))["value"]
    0.75
    """
    with np.errstate(invalid="ignore"):
        sd = np.nanstd(xm, axis=0, ddof=1)
        low, high = xm - k * sd, xm + k * sd
        outside = (x < low) | (x > high)
    inside = ~outside.any(axis=1)
    return {"value": float(inside.mean()), "at_risk": inside, "sd_protected": sd}


def robust_interval_disclosure(x: np.ndarray, xm: np.ndarray, k: float = 0.01, k2: float = 0.05) -> dict:
    """A deterministic version of sdcMicro's ``dRiskRMD`` (RMDID1/RMDID2).

    Both files are standardised (each by its own means and standard
    deviations, as sdcMicro's ``scale``); ``rmd_i`` is 0.05 times the robust
    Mahalanobis distance of original record i from the origin under a robust
    covariance of the standardised original; record i is at risk (RMDID1)
    when for some variable its protected value lies strictly within
    ``x_i +- k rmd_i``, and at risk under RMDID2 when, in addition, no other
    protected record lies within Euclidean distance ``k2`` of it.

    sdcMicro's robust covariance is robustbase's ``covMcd``, which draws random
    subsets; here it is the reweighted orthogonalised Gnanadesikan-Kettenring
    estimator (Maronna & Zamar 2002, statsmodels ``cov_ogk``), which uses no
    random numbers, so the result is reproducible without a seed.  ``wrisk1``
    and ``wrisk2`` follow sdcMicro's formulas (number at risk times the sum of
    their ``rmd``, over n).

    References
    ----------
    Templ, M. and Meindl, B. (2008). Robust statistics meets SDC: new
    disclosure risk measures for continuous microdata masking. Privacy in
    Statistical Databases, LNCS 5262, 113-126.  Maronna, R. A. and Zamar, R. H.
    (2002). Robust estimates of location and dispersion for high-dimensional
    datasets. Technometrics 44(4), 307-317.
    """
    import warnings

    from statsmodels.robust.covariance import cov_ogk

    n, p = x.shape
    if not (x.std(axis=0, ddof=1) > 0).all():
        raise NotComputed("a continuous variable is constant in the original, so it has no robust covariance")
    zs = _standardise(x)
    zm = _standardise(xm)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            cov = np.asarray(cov_ogk(zs).cov)
            inv = np.linalg.inv(cov)
    except (np.linalg.LinAlgError, ValueError, FloatingPointError) as exc:
        raise NotComputed(f"the robust (OGK) covariance of the original could not be computed ({exc})") from None
    if not np.isfinite(inv).all():
        raise NotComputed("the robust (OGK) covariance of the original is singular")
    md = np.einsum("ij,jk,ik->i", zs, inv, zs)
    rmd = np.sqrt(np.maximum(md, 0.0)) * 0.05
    low, high = zs - k * rmd[:, None], zs + k * rmd[:, None]
    risk1 = ((zm > low) & (zm < high)).any(axis=1)
    risk2 = np.zeros(n, dtype=bool)
    if risk1.any() and n > 1:
        tree = cKDTree(zm)
        dist, _ = tree.query(zm[risk1], k=2)
        risk2[np.flatnonzero(risk1)] = dist[:, 1] > k2
    return {
        "value": float(risk1.mean()),
        "risk1": float(risk1.mean()),
        "risk2": float(risk2.mean()),
        "wrisk1": float(risk1.sum() * rmd[risk1].sum() / n),
        "wrisk2": float(risk2.sum() * rmd[risk2].sum() / n),
        "at_risk": risk1,
        "at_risk2": risk2,
        "rmd": rmd,
    }


def _standardise(x: np.ndarray) -> np.ndarray:
    sd = x.std(axis=0, ddof=1)
    sd[~(sd > 0)] = 1.0
    return (x - x.mean(axis=0)) / sd


def linkage(original: np.ndarray, protected: np.ndarray, *, ties: str = "share") -> dict:
    """Distance-based record linkage: is each protected record's nearest original record its own?

    Rows are paired (row i of both is one record) and already on a common
    scale.  For protected record i, the original records at the smallest
    Euclidean distance are its nearest; the link is correct when record i is
    among them.  With ``ties="share"`` a correct link among t tied nearest
    records counts 1/t (the chance that an intruder picking one of them at
    random is right); with ``ties="own"`` it counts 1 (the worst case).

    References
    ----------
    Domingo-Ferrer, J. and Torra, V. (2001). A quantitative comparison of
    disclosure control methods for microdata. In Confidentiality, Disclosure
    and Data Access, 111-133.  Pagliuca, D. and Seri, G. (1999). Some results
    of individual ranking method on the system of enterprise accounts annual
    survey. Esprit SDC Project, Deliverable MI-3/D2.

    Examples
    --------
    >>> o = np.array([[0.0], [1.0], [2.0]])
    >>> linkage(o, np.array([[0.1], [1.6], [2.4]]))["value"]  # record 1 is nearer to original 2
    0.6666666666666666
    """
    tree = cKDTree(original)
    nearest, _ = tree.query(protected, k=1)
    own = np.sqrt(((protected - original) ** 2).sum(axis=1))
    tol = 1e-12 * np.maximum(1.0, nearest)
    correct = own <= nearest + tol
    score = correct.astype(np.float64)
    if ties == "share" and correct.any():
        idx = np.flatnonzero(correct)
        counts = tree.query_ball_point(protected[idx], r=nearest[idx] + tol[idx], return_length=True)
        score[idx] = 1.0 / np.maximum(counts, 1)
    return {"value": float(score.mean()), "linked": score, "tied": int(np.count_nonzero(score[correct] < 1))}


def mixed_features(continuous: list[np.ndarray], categorical: list[np.ndarray], reference: int) -> np.ndarray:
    """Records as points for the distance to the closest record.

    Continuous variables are standardised by the first ``reference`` rows'
    mean and standard deviation, a missing value set to the mean with a
    missing indicator beside it; categorical codes become one-hot columns
    scaled by 1/sqrt(2), so two different categories are at distance 1 as two
    values one standard deviation apart are (missing is a category).
    """
    parts = []
    for x in continuous:
        ref = x[:reference]
        mu, sd = np.nanmean(ref), np.nanstd(ref, ddof=1)
        sd = sd if sd > 0 else 1.0
        miss = np.isnan(x)
        parts.append(np.where(miss, 0.0, (x - mu) / sd)[:, None])
        if miss.any():
            parts.append(miss.astype(np.float64)[:, None])
    for codes in categorical:
        levels, inverse = np.unique(codes, return_inverse=True)
        onehot = np.zeros((codes.shape[0], levels.size))
        onehot[np.arange(codes.shape[0]), inverse] = np.sqrt(0.5)
        parts.append(onehot)
    return np.hstack(parts) if parts else np.zeros((0, 0))


def nearest_distances(reference: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """Euclidean distance from each query point to its nearest reference point (scikit-learn NearestNeighbors)."""
    from sklearn.neighbors import NearestNeighbors

    nn = NearestNeighbors(n_neighbors=1).fit(reference)
    dist, _ = nn.kneighbors(queries)
    return dist[:, 0]


def exact_copies(original: np.ndarray, protected: np.ndarray) -> np.ndarray:
    """Which protected rows equal some original row exactly (codes; NaN equal to NaN after coding)."""
    ids, _ = group_ids(np.concatenate([original, protected]))
    in_original = np.zeros(ids.max() + 1, dtype=bool)
    in_original[ids[: original.shape[0]]] = True
    return in_original[ids[original.shape[0]:]]
