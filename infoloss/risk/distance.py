"""Distance-based disclosure risk: interval disclosure, record linkage, distance to the closest record.

Each function takes plain arrays (records in rows) and returns a dict of
numbers and per-record arrays; the measures in
:mod:`infoloss.measures.risk_distance` read them from the pair.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np
import pandas as pd

from ..numeric import MAX_STANDARDISED, column_exponents, safe_exponent, scaled, singular_reason, unscale
from ..errors import NotComputed

if TYPE_CHECKING:
    from scipy.spatial import cKDTree

__all__ = ["interval_disclosure", "robust_interval_disclosure", "linkage", "nearest_distances", "copied_rows",
           "MixedFeatures", "k_nearest", "standardise_by_original"]


def interval_disclosure(x: np.ndarray, xm: np.ndarray, k: float = 0.05) -> dict:
    """sdcMicro's ``dRisk``: share of records whose original values all lie within ``xm +- k sd(xm)``.

    ``sd`` is the protected column's standard deviation (n - 1, missing
    values left out); a comparison with a missing value on either side is
    left out, as sdcMicro's ``rowSums(..., na.rm = TRUE)`` does; so is every
    comparison on a variable with fewer than two protected values (a column
    suppressed in every record has no standard deviation).  Each
    variable is first scaled by a power of two common to both files
    (:mod:`infoloss.numeric`): the comparisons are unchanged, and values up
    to ±1.8e308 give no overflow.

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
    e = column_exponents(x, xm)
    if e.any():
        x, xm = scaled(x, e), scaled(xm, e)
    with np.errstate(invalid="ignore"):
        sd = _nan_sd(xm)
        low, high = xm - k * sd, xm + k * sd
        outside = (x < low) | (x > high)
    inside = ~outside.any(axis=1)
    return {"value": float(inside.mean()), "at_risk": inside, "sd_protected": unscale(sd, e)}


def _nan_sd(x: np.ndarray) -> np.ndarray:
    """Column standard deviations (n - 1) over the values present; NaN, without a warning, below two values."""
    count = (~np.isnan(x)).sum(axis=0)
    out = np.full(x.shape[1], np.nan)
    ok = count >= 2
    if ok.all():  # no copy of the matrix
        out[:] = np.nanstd(x, axis=0, ddof=1)
    elif ok.any():
        out[ok] = np.nanstd(x[:, ok], axis=0, ddof=1)
    return out


def robust_interval_disclosure(x: np.ndarray, xm: np.ndarray, k: float = 0.01, k2: float = 0.05,
                               max_records: int = 5_000, names: list[str] | None = None,
                               covariance: tuple[np.ndarray, np.ndarray] | None = None) -> dict:
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
    their ``rmd``, over n).  Above ``max_records`` records the covariance is
    fitted on a systematic sample (every k-th record; deterministic), and the
    RMDID2 neighbourhood check runs on a systematic sample of the records at
    risk, its share scaled up (``risk2_sampled`` says so).  A singular
    robust covariance (linearly dependent variables, such as a total and
    its parts) has no Mahalanobis distance: NotComputed, naming the
    variables (``names``) of the dependency.  ``covariance``: the robust
    covariance and its inverse returned (``"covariance"``) by an earlier call
    on the same original records ``x``, used instead of fitting them again
    (the fit is O(p² n): 2-7 s for 150 variables).

    References
    ----------
    Templ, M. and Meindl, B. (2008). Robust statistics meets SDC: new
    disclosure risk measures for continuous microdata masking. Privacy in
    Statistical Databases, LNCS 5262, 113-126.  Maronna, R. A. and Zamar, R. H.
    (2002). Robust estimates of location and dispersion for high-dimensional
    datasets. Technometrics 44(4), 307-317.
    """
    n, p = x.shape
    # each file is standardised by its own means and sds, so scaling its columns by powers of two changes nothing
    # and keeps values up to ±1.8e308 from overflowing
    x, xm = (scaled(a, e) if e.any() else a for a, e in
             ((x, column_exponents(x)), (xm, column_exponents(xm))))
    if not (x.std(axis=0, ddof=1) > 0).all():
        raise NotComputed("a continuous variable is constant in the original, so it has no robust covariance")
    zs = _standardise(x)
    zm = _standardise(xm)
    step = max(1, -(-n // max_records))
    cov, inv = covariance if covariance is not None else _robust_covariance(zs[::step], names)
    md = np.einsum("ij,jk,ik->i", zs, inv, zs)
    rmd = np.sqrt(np.maximum(md, 0.0)) * 0.05
    low, high = zs - k * rmd[:, None], zs + k * rmd[:, None]
    risk1 = ((zm > low) & (zm < high)).any(axis=1)
    risk2 = np.zeros(n, dtype=bool)
    at_risk = np.flatnonzero(risk1)
    checked = at_risk[:: max(1, -(-at_risk.size // max_records))]
    if checked.size and n > 1:
        dist = k_nearest(zm, zm[checked], 2)
        risk2[checked] = dist[:, 1] > k2
    scale = at_risk.size / checked.size if checked.size else 1.0
    return {
        "value": float(risk1.mean()),
        "risk1": float(risk1.mean()),
        "risk2": float(risk2.sum() * scale / n),
        "wrisk1": float(risk1.sum() * rmd[risk1].sum() / n),
        "wrisk2": float(risk2.sum() * scale * rmd[risk2].sum() * scale / n),
        "risk2_sampled": bool(checked.size < at_risk.size),
        "covariance_records": int(zs[::step].shape[0]),
        "covariance": (cov, inv),
        "at_risk": risk1,
        "at_risk2": risk2,
        "rmd": rmd,
    }


def _robust_covariance(zs: np.ndarray, names: list[str] | None) -> tuple[np.ndarray, np.ndarray]:
    """The reweighted OGK covariance of the standardised records ``zs`` and its inverse; NotComputed when singular."""
    import warnings

    from statsmodels.robust.covariance import cov_ogk

    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            # one variable: statsmodels gives its variance as a scalar
            cov = np.atleast_2d(cov_ogk(zs, cov_func=gk_covariance).cov)
            inv = np.linalg.inv(cov)
    except (np.linalg.LinAlgError, ValueError, FloatingPointError) as exc:
        raise NotComputed(f"the robust (OGK) covariance of the original could not be computed ({exc})") from None
    if not np.isfinite(inv).all():
        raise NotComputed("the robust (OGK) covariance of the original is singular (a variable holding one value in "
                          "over half the records, or too few records, makes it so); interval_disclosure, without "
                          "the robust covariance, still applies")
    _check_not_singular(cov, names)
    return cov, inv


def gk_covariance(data: np.ndarray, scale_func: Callable[..., np.ndarray]) -> np.ndarray:
    """The Gnanadesikan-Kettenring covariance matrix, each variable's pairs in one call (statsmodels' ``cov_gk``).

    .. math:: \\hat\\sigma_{jj} = s(x_j)^2, \\qquad
              \\hat\\sigma_{jk} = \\bigl(s(x_j + x_k)^2 - s(x_j - x_k)^2\\bigr) / 4,

    with ``s`` the robust scale ``scale_func`` (the MAD in :func:`cov_ogk`).
    statsmodels' ``cov_gk`` computes the same numbers one pair of variables
    at a time, a Python call per pair.  Here variable ``j``'s sums and
    differences with every earlier variable are the columns of one block,
    whose scales ``scale_func`` takes along the records at once: a
    ``cov_ogk`` of 1,000 records and 500 variables (125,000 pairs) takes 15 s
    instead of 28 s; of 5,000 records and 150 variables, where the medians
    themselves dominate, 5.9 s instead of 6.4 s.  The numbers are
    statsmodels' but for the last bit of some squares (an array's ``x * x``
    against a scalar's ``pow``; ``tests/test_risk_distance.py``, within
    1e-12).

    References
    ----------
    Gnanadesikan, R. and Kettenring, J. R. (1972). Robust estimates, residuals,
    and outlier detection with multiresponse data. Biometrics 28, 81-124.
    """
    x = np.asfortranarray(data)  # each variable's records side by side: the medians partition them in place
    cov = np.diag(scale_func(x) ** 2)
    for j in range(1, x.shape[1]):
        earlier = x[:, :j]
        column = x[:, [j]]
        s1 = scale_func(column + earlier)
        s2 = scale_func(column - earlier)
        cov[j, :j] = cov[:j, j] = (s1**2 - s2**2) / 4
    return cov


#: above this many variables a k-d tree is slower than a brute-force search (scikit-learn, BLAS)
KD_TREE_MAX_DIMS = 10


def k_nearest(reference: np.ndarray, queries: np.ndarray, k: int) -> np.ndarray:
    """Distances from each query to its k nearest reference points (k-d tree in few dimensions, else brute force)."""
    if reference.shape[1] <= KD_TREE_MAX_DIMS:
        from scipy.spatial import cKDTree

        dist, _ = cKDTree(reference).query(queries, k=k)
        return dist.reshape(queries.shape[0], k)
    from sklearn.neighbors import NearestNeighbors

    dist, _ = NearestNeighbors(n_neighbors=k, algorithm="brute").fit(reference).kneighbors(queries)
    return dist


def standardise_by_original(x: np.ndarray, xm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both files' columns standardised by the original's mean and standard deviation (n - 1).

    A column constant in the original keeps the unit 1.  The columns are
    first scaled by a power of two common to both files
    (:func:`infoloss.column_exponents`), which changes no
    standardised value and keeps values up to ±1.8e308 from overflowing;
    a protected value more than ``MAX_STANDARDISED`` (1e150) standard
    deviations away, whose squared distances would overflow, is a
    ``NotComputed``.

    >>> zo, zp = standardise_by_original(np.array([[1.0], [3.0]]), np.array([[2.0], [5.0]]))
    >>> zo.ravel().tolist(), zp.ravel().tolist()
    ([-0.7071067811865475, 0.7071067811865475], [0.0, 2.1213203435596424])
    """
    e = column_exponents(x, xm)
    if e.any():
        x, xm = scaled(x, e), scaled(xm, e)
    mean, sd = np.full(x.shape[1], np.nan), _nan_sd(x)
    present = (~np.isnan(x)).any(axis=0)
    mean[present] = np.nanmean(x[:, present], axis=0)
    sd[~(sd > 0)] = 1.0
    with np.errstate(over="ignore"):
        zo, zp = (x - mean) / sd, (xm - mean) / sd
    check_standardised(zp, "protected")
    return zo, zp


def check_standardised(z: np.ndarray, which: str) -> None:
    """NotComputed when a standardised value is too far out for its squared distances to be finite."""
    if z.size and np.nanmax(np.abs(z), initial=0.0) > MAX_STANDARDISED:
        raise NotComputed(f"some {which} values lie more than {MAX_STANDARDISED:.0e} original standard "
                          "deviations from the original's mean, so their distances would overflow")


def _standardise(x: np.ndarray) -> np.ndarray:
    sd = x.std(axis=0, ddof=1)
    sd[~(sd > 0)] = 1.0
    return (x - x.mean(axis=0)) / sd


def linkage_candidates(x: np.ndarray, xm: np.ndarray, linked: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The standardised original records an intruder searches and the rows to link, for :func:`linkage`.

    ``x`` and ``xm`` are the paired files' continuous columns, ``linked``
    the records to link (every variable present in both files).  The
    candidates are every original record with its variables present, also
    those whose protected record lost a value: leaving them out would make
    a suppression shrink the intruder's search.  Returns the candidates'
    standardised original and protected rows (paired, row i of both is one
    record; a protected row may hold a missing value) and the positions of
    the linked records among them.

    >>> x = np.array([[0.0], [1.0], [np.nan]]); xm = np.array([[0.1], [np.nan], [2.0]])
    >>> zo, zp, rows = linkage_candidates(x, xm, np.array([True, False, False]))
    >>> zo.shape[0], rows.tolist()
    (2, [0])
    """
    zo, zp = standardise_by_original(x, xm)
    own = ~np.isnan(x).any(axis=1)
    return zo[own], zp[own], np.flatnonzero(linked[own])


def linkage(original: np.ndarray, protected: np.ndarray, *, ties: str = "share", sample: np.ndarray | None = None,
            tree: cKDTree | None = None) -> dict:
    """Distance-based record linkage: is each protected record's nearest original record its own?

    Rows are paired (row i of both is one record) and already on a common
    scale.  For protected record i, the original records at the smallest
    Euclidean distance are its nearest; the link is correct when record i is
    among them.  With ``ties="share"`` a correct link among t tied nearest
    records counts 1/t (the chance that an intruder picking one of them at
    random is right); with ``ties="own"`` it counts 1 (the worst case).
    ``sample`` restricts the linked records to these rows (every original
    record stays a candidate); ``tree`` is a ``cKDTree`` of ``original``
    built before.

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
    if sample is not None:
        protected, own_rows = protected[sample], original[sample]
    else:
        own_rows = original
    k = min(2, original.shape[0])
    dist = k_nearest(original, protected, k) if tree is None else tree.query(protected, k=k)[0].reshape(-1, k)
    nearest = dist[:, 0]
    own = np.sqrt(((protected - own_rows) ** 2).sum(axis=1))
    # distances from the brute-force search carry rounding of about 1e-8 (standardised data): equal within 1e-7
    tol = 1e-7 * np.maximum(1.0, nearest)
    correct = own <= nearest + tol
    score = correct.astype(np.float64)
    if ties == "share" and k > 1:
        tied = np.flatnonzero(correct & (dist[:, 1] <= nearest + tol))  # rare with continuous data
        rows = max(1, 20_000_000 // max(original.shape[0], 1))  # at most 20 million distances at a time
        for start in range(0, tied.size, rows):
            chunk = tied[start:start + rows]
            from scipy.spatial.distance import cdist

            d = cdist(protected[chunk], original)
            score[chunk] = 1.0 / (d <= (nearest[chunk] + tol[chunk])[:, None]).sum(axis=1)
    return {"value": float(score.mean()), "linked": score, "tied": int(np.count_nonzero(score[correct] < 1))}


class MixedFeatures:
    """Records as points for the distance to the closest record, built for the rows asked for.

    Continuous variables are standardised by the original's mean and
    standard deviation, a missing value set to the mean with a missing
    indicator beside it (when either file has missing values); categorical
    codes become one-hot columns scaled by 1/sqrt(2), so two different
    categories are at distance 1 as two values one standard deviation apart
    are (missing is a category).  Only the requested rows are ever expanded,
    so a million-record file never becomes a dense million-row matrix; above
    :data:`SPARSE_COLUMNS` columns (categorical variables with many
    categories) the points are a scipy CSR matrix, whose memory grows with
    the number of variables, not of categories.

    ``continuous`` holds ``(original, protected)`` float arrays,
    ``categorical`` ``(original codes, protected codes, number of categories)``.
    """

    def __init__(self, continuous: list[tuple[np.ndarray, np.ndarray]],
                 categorical: list[tuple[np.ndarray, np.ndarray, int]]) -> None:
        self.continuous = []
        for orig, prot in continuous:
            e = safe_exponent(orig, prot)  # exact power-of-two scaling: values up to ±1.8e308
            present = orig[~np.isnan(orig)]
            if e:
                present = scaled(present, e)
            mu = float(present.mean()) if present.size else 0.0
            sd = float(present.std(ddof=1)) if present.size > 1 else 0.0
            missing = bool(np.isnan(orig).any() or np.isnan(prot).any())
            self.continuous.append((orig, prot, e, mu, sd if sd > 0 else 1.0, missing))
        self.categorical = categorical
        self.n_columns = sum(2 if c[5] else 1 for c in self.continuous) + sum(k + 1 for _, _, k in categorical)

    def __call__(self, which: int, rows: np.ndarray) -> Any:
        """The points of ``rows`` of the original (``which = 0``) or the protected file (1)."""
        if self.n_columns > SPARSE_COLUMNS:
            return self._sparse(which, rows)
        parts = []
        for orig, prot, e, mu, sd, missing in self.continuous:
            z, miss = _standardised((orig, prot)[which][rows], e, mu, sd, which)
            parts.append(z[:, None])
            if missing:
                parts.append(miss.astype(np.float64)[:, None])
        for orig, prot, k in self.categorical:
            codes = (orig, prot)[which][rows]
            onehot = np.zeros((rows.size, k + 1))
            onehot[np.arange(rows.size), np.where(codes < 0, k, codes)] = np.sqrt(0.5)
            parts.append(onehot)
        return np.hstack(parts) if parts else np.zeros((rows.size, 0))

    def _sparse(self, which: int, rows: np.ndarray) -> Any:
        """The points as CSR: the continuous columns, then every categorical variable's one-hot block.

        Built as two blocks, not one matrix per variable: 3,000 variables made
        3,000 scipy matrices per call, 0.4 s each of ten calls of DCR.
        """
        from scipy import sparse

        blocks = []
        dense = []
        for orig, prot, e, mu, sd, missing in self.continuous:
            z, miss = _standardised((orig, prot)[which][rows], e, mu, sd, which)
            dense.append(z)
            if missing:
                dense.append(miss.astype(np.float64))
        if dense:
            blocks.append(sparse.csr_matrix(np.column_stack(dense)))
        if self.categorical:
            sizes = np.array([k + 1 for _, _, k in self.categorical])
            offsets = np.concatenate(([0], np.cumsum(sizes)[:-1]))
            index = np.int32 if sizes.sum() < 2**31 else np.int64
            hot = np.empty((rows.size, len(self.categorical)), dtype=index)  # each record's column per variable
            for j, (orig, prot, k) in enumerate(self.categorical):
                codes = (orig, prot)[which][rows]
                hot[:, j] = np.where(codes < 0, k, codes) + offsets[j]
            m = len(self.categorical)  # one entry per record and variable, in increasing columns: CSR as it is
            blocks.append(sparse.csr_matrix((np.full(hot.size, np.sqrt(0.5)), hot.ravel(),
                                             np.arange(0, hot.size + 1, m, dtype=np.int64)),
                                            shape=(rows.size, int(sizes.sum()))))
        out = sparse.hstack(blocks, format="csr") if len(blocks) > 1 else blocks[0]
        out.eliminate_zeros()
        out.sort_indices()
        return out


#: above this many columns the DCR points are sparse (one-hot columns of categories with many levels)
SPARSE_COLUMNS = 256


def nearest_distances(reference: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """Euclidean distance from each query point to its nearest reference point.

    scikit-learn ``NearestNeighbors`` finds the nearest point; in many
    dimensions it searches by brute force with the expansion
    ``|q|^2 - 2 q.r + |r|^2``, whose rounding (about ``1e-8 |q|`` on the
    distance) can make it pick a point a hair away from an equal one, and
    makes equal distances unequal.  The distance to the point found is
    therefore recomputed from the differences (equal points are then at
    exactly 0, equal distances equal), and a query whose nearest point is
    closer than ``1e-6 (1 + |q|)`` without being equal is checked for an
    equal reference point by exact comparison: ties, which the DCR
    comparison counts one half, stay ties.

    >>> r = np.array([[0.0, 0.0], [3.0, 4.0]])
    >>> nearest_distances(r, np.array([[3.0, 4.0], [0.0, 1.0]])).tolist()
    [0.0, 1.0]
    """
    from scipy import sparse
    from sklearn.neighbors import NearestNeighbors

    nn = NearestNeighbors(n_neighbors=1).fit(reference)
    idx = nn.kneighbors(queries, return_distance=False)[:, 0]
    if sparse.issparse(queries):  # CSR points (MixedFeatures with many categories): a brute-force search
        diff = queries - reference[idx]
        dist = np.sqrt(np.asarray(diff.multiply(diff).sum(axis=1)).ravel())
        norm = np.sqrt(np.asarray(queries.multiply(queries).sum(axis=1)).ravel())
    else:
        dist = np.sqrt(((queries - reference[idx]) ** 2).sum(axis=1))
        norm = np.sqrt((queries ** 2).sum(axis=1))
    doubt = np.flatnonzero((dist > 0) & (dist <= 1e-6 * (1.0 + norm)))
    if doubt.size:
        present = set(_row_keys(reference))
        equal = np.array([key in present for key in _row_keys(queries[doubt])])
        dist[doubt[equal]] = 0.0
    return dist


def _row_keys(points: Any) -> list:
    """A hashable key per row, equal exactly for equal rows (dense, or CSR with sorted indices and no zeros)."""
    from scipy import sparse

    if sparse.issparse(points):
        m = points.tocsr(copy=True)
        m.eliminate_zeros()  # also drops -0.0
        m.sort_indices()
        ptr = m.indptr
        return [(m.indices[a:b].tobytes(), m.data[a:b].tobytes()) for a, b in zip(ptr[:-1], ptr[1:])]
    return [row.tobytes() for row in np.ascontiguousarray(points + 0.0)]  # + 0.0: -0.0 becomes 0.0


def _check_not_singular(cov: np.ndarray, names: list[str] | None) -> None:
    """NotComputed when ``cov`` is singular (:func:`infoloss.numeric.singular_reason`)."""
    names = names or [f"variable {i + 1}" for i in range(cov.shape[0])]
    reason = singular_reason("robust (OGK) covariance of the original", *np.linalg.eigh(cov), names)
    if reason is not None:
        raise NotComputed(f"{reason}, so the robust Mahalanobis distances are undefined")


def copied_rows(original: list[np.ndarray], protected: list[np.ndarray]) -> np.ndarray:
    """Which protected records equal some original record on every variable, from each file's columns.

    A column holds integer codes (equal values, equal codes, in both files)
    or floats, compared as values: NaN (missing) equals NaN and -0.0 equals
    0.0.  Records are hashed column by column (pandas ``hash_array`` of
    each column, its floats made canonical), so neither a matrix of the
    records nor a copy of the files is built.  A protected record whose
    hash an original record has is then compared value by value with that
    record; the few whose first such record differs (a hash collision) are
    decided by an exact join on all columns, so a collision can never make
    or hide a copy.  Hashes are of bit patterns, so a column whose two
    files hold different types (int32 and int64 codes, float32 and float64)
    is first converted to their common type.

    >>> copied_rows([np.array([1.0, np.nan, -0.0]), np.array([1, 2, 3])],
    ...             [np.array([0.0, np.nan, 1.0]), np.array([3, 2, 2])]).tolist()
    [True, True, False]
    >>> copied_rows([np.array([1, 3]), np.array([2, 4])], [np.array([3, 1, 1]), np.array([4, 3, 2])]).tolist()
    [True, False, True]
    >>> copied_rows([np.array([-1, 2], dtype=np.int32)], [np.array([-1, 2])]).tolist()
    [True, True]
    """
    common = [np.result_type(o, p) for o, p in zip(original, protected)]
    original = [o.astype(t, copy=False) for o, t in zip(original, common)]
    protected = [p.astype(t, copy=False) for p, t in zip(protected, common)]
    h_o, h_p = _row_hash(original), _row_hash(protected)
    first = pd.Series(np.arange(h_o.size)).groupby(h_o).first()
    match = first.reindex(h_p).to_numpy()
    hit = np.flatnonzero(~np.isnan(match))
    rows = match[hit].astype(np.int64)
    same = np.ones(hit.size, dtype=bool)
    for col_o, col_p in zip(original, protected):
        same &= _equal(col_o[rows], col_p[hit])
    out = np.zeros(h_p.size, dtype=bool)
    out[hit[same]] = True
    if not same.all():  # a hash collision: the records concerned are decided by an exact join
        doubt = hit[~same]
        candidates = np.flatnonzero(np.isin(h_o, h_p[doubt]))
        keys = list(range(len(original)))
        left = pd.DataFrame({j: _canonical(col[doubt]) for j, col in enumerate(protected)}).assign(_row=doubt)
        right = pd.DataFrame({j: _canonical(col[candidates]) for j, col in enumerate(original)}).drop_duplicates()
        out[left.merge(right, on=keys, how="inner")["_row"].to_numpy()] = True  # pandas joins NaN keys to NaN
    return out


def _canonical(col: np.ndarray) -> np.ndarray:
    """Float values with one bit pattern per value (-0.0 as 0.0, every NaN the same), for hashing; codes as they are."""
    if col.dtype.kind != "f":
        return col
    return np.where(np.isnan(col), np.nan, col + 0.0)  # -0.0 + 0.0 is 0.0


def _equal(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind == "f":
        return (a == b) | (np.isnan(a) & np.isnan(b))
    return a == b


def _row_hash(columns: list[np.ndarray]) -> np.ndarray:
    h = np.zeros(columns[0].shape[0], dtype=np.uint64)
    with np.errstate(over="ignore"):
        for col in columns:  # one canonical copy of a column at a time
            h = (h ^ pd.util.hash_array(_canonical(col))) * np.uint64(0x100000001B3)
    return h


def _standardised(x: np.ndarray, e: int, mu: float, sd: float, which: int) -> tuple[np.ndarray, np.ndarray]:
    """Values standardised by the original (missing: 0), after the exact scaling ``2**-e``, and the missing mask."""
    miss = np.isnan(x)
    z = np.where(miss, 0.0, (scaled(x, e) if e else x) - mu) / sd
    check_standardised(z, ("original", "protected")[which])
    return z, miss
