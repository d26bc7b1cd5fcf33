"""Moments: means, (co)variances, correlations, principal components, eigenvalues and Młodak's γ.

The measures compare statistics of the continuous variables computed on the
original file with the same statistics computed on the protected file.  Only
the data-matrix comparison ``x_*`` needs record-paired files; everything else
compares statistics and works for unpaired files (even of different sizes).
All measures are unweighted, as in the literature and in sdcMicro; the
descriptive :func:`continuous_statistics` uses the survey weights when the
files have them.

Ids: ``eigen``, ``robust_eigen``, ``gamma`` and the Domingo-Ferrer,
Mateo-Sanz & Torra table ``{x, xbar, v, s, r, rf, c, f}_{mse, mae, mv}``
(24 ids; Python names the same).

Conventions (the literature is silent on most of them):

* **Missing values.** ``x_*`` skips a cell missing in either file.  Means
  (X̄) and variances (S) use each file's available values of the variable.
  Covariances (V), correlations (R), the principal components (RF, C, F),
  ``gamma`` and ``robust_eigen`` use the *complete cases* of each file (the
  records with every continuous variable present), separately for each file,
  as sdcMicro's ``IL_correl`` (``cor(use = "complete.obs")``) does.
  ``eigen`` follows sdcMicro's ``dUtility(method = "eigen")`` exactly: each
  file is standardised with its own means and standard deviations over its
  available values (R's ``scale``) and the covariance uses pairwise-complete
  observations; without missing values this is the correlation matrix.
* **Mean variation** divides by ``|original element|``.  Elements whose
  original value is zero are left out of the sum *and* of the count, and the
  number left out is reported in ``details.n_excluded_zero``
  (``details.mv_zero_rule`` says what counts as zero); when every element is
  zero the measure is not computed.
* **Trottini's bound.** Mean-variation measures are unbounded (an original
  correlation near 0 can make ``r_mv`` reach 8.5 on testdata).  Trottini
  (2003) proposed limiting them to a predefined maximum (Handbook,
  "Information loss measures for continuous data"); the option ``bound`` of
  every ``*_mv`` measure caps each element's relative variation at ``bound``
  before averaging (so the value is at most ``bound``), and ``details`` names
  the elements that hit it.  Without ``bound`` the published form is used.
* **Principal components** (RF, C, F) are those of each file's correlation
  matrix (standardised variables, so units do not matter), in decreasing
  order of eigenvalue.  The sign of a component is arbitrary, so each
  protected component is multiplied by −1 when its eigenvector points away
  from the original's (negative inner product) before comparing.
  ``RF[i, j] = v_ij √λ_j`` is the correlation between variable ``i`` and
  component ``j``; ``C[i] = RF[i, 1]²`` the communality with the first
  component (a fraction, not a percent); ``F[i, j] = v_ij`` the loadings with
  which the components combine into the standardised variable
  (``z_i = Σ_j v_ij PC_j``, Chatfield & Collins 1980).  The Handbook's
  component weights ``w_j`` are not defined there; we use ``w_j = λ_j`` of the
  original, the variance explained by component ``j`` (they sum to ``p``, so
  the weighted sum over the ``p²`` elements divided by ``p²`` is a weighted
  mean).
* **Extreme values.**  Each variable is scaled by a power of two (exact, see
  :mod:`infoloss.numeric`) before sums of squares are taken, so values up to
  ±1.8e308 give finite means, correlations and principal components, and
  ordinary data give bit-for-bit the results of the unscaled formulas.  A
  statistic whose true value is beyond the float64 range (the variance of
  values near 1e308, or a mean square error of them) is not computed, with
  the reason.
* **Singular matrices.** A correlation matrix whose smallest eigenvalue is at
  most ``1e-12`` times its largest is treated as singular; the reason names
  the linearly dependent variables (the non-negligible coefficients of the
  null vector).  A variable that is constant in a file has no correlations;
  the reason names it.
"""

from __future__ import annotations

import math
import textwrap
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .. import numeric
from ..errors import InputError, NotComputed
from ..pair import ORIGINAL, PROTECTED, EncodedPair
from ..registry import MeasureResult, Option, measure

ROBUST_OPTIONS = (
    Option("max_records", "int", 2000, "records per file in the seeded sample the MCD covariance is computed on", low=3),
    Option("random_state", "int", 0, "seed of the sample and of the MCD algorithm", low=0),
)

__all__ = [
    "continuous_statistics",
    "eigen",
    "robust_eigen",
    "gamma",
    # the Domingo-Ferrer, Mateo-Sanz & Torra table, registered in a loop below
    "x_mse", "x_mae", "x_mv",
    "xbar_mse", "xbar_mae", "xbar_mv",
    "v_mse", "v_mae", "v_mv",
    "s_mse", "s_mae", "s_mv",
    "r_mse", "r_mae", "r_mv",
    "rf_mse", "rf_mae", "rf_mv",
    "c_mse", "c_mae", "c_mv",
    "f_mse", "f_mae", "f_mv",
]

SINGULAR_TOLERANCE = 1e-12  # smallest/largest eigenvalue at or below this: singular
ZERO_TOLERANCE = 1e-12  # |statistic| <= this times its natural scale counts as zero (mean variation)
MCD_MAX_RECORDS = 2_000  # robust_eigen: records sampled per file (MCD cost grows fast with n and p)
MCD_RANDOM_STATE = 0
_CHUNK = 1 << 16  # rows per block in the covariance products
_FILE = {ORIGINAL: "original", PROTECTED: "protected"}


# ---------------------------------------------------------------------------
# cached statistics of one file
# ---------------------------------------------------------------------------
@dataclass
class _Univariate:
    """Per-variable counts, means, variances (n − 1) over each variable's available values.

    ``exp[j]`` is the variable's scaling exponent (:func:`infoloss.numeric.exponent`);
    ``mean_s``/``var_s`` are the statistics of the values times ``2**-exp``,
    ``mean``/``var`` the unscaled ones (``var`` is infinite when it is beyond
    the float64 range).
    """

    n: np.ndarray  # int, available values
    mean: np.ndarray  # NaN when n == 0
    var: np.ndarray  # NaN when n < 2; exactly 0 for a constant variable
    constant: np.ndarray  # bool: at least one value and min == max
    any_missing: bool
    exp: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    mean_s: np.ndarray = field(default_factory=lambda: np.zeros(0))
    var_s: np.ndarray = field(default_factory=lambda: np.zeros(0))


@dataclass
class _Complete:
    """Covariance and correlation over the complete cases of one file."""

    n: int
    mean: np.ndarray | None  # of the scaled variables (times 2**-exp of _Univariate)
    cov: np.ndarray | None  # None when n < 2; infinite entries when beyond the float64 range
    corr: np.ndarray | None  # None when undefined (see reason)
    reason: str | None = None  # why corr is None
    rows: np.ndarray | None = field(default=None, repr=False)  # complete-case mask, None if all rows
    constant: np.ndarray | None = None  # bool per variable, on the complete cases
    cov_s: np.ndarray | None = None  # the covariance of the scaled variables (always finite)


@dataclass
class _Eigen:
    """Eigenvalues (decreasing) and eigenvectors (columns) of a symmetric matrix."""

    values: np.ndarray
    vectors: np.ndarray


def _column(pair: EncodedPair, name: str, which: str) -> np.ndarray:
    return pair.continuous[name].values(which)


def _slices(n: int) -> range:
    """Start rows of the blocks: whole-file passes work block by block, with small temporaries."""
    return range(0, n, _CHUNK)


def _univariate(pair: EncodedPair, which: str) -> _Univariate:
    def one(x: np.ndarray) -> tuple[int, float, float, bool, int]:
        e = numeric.exponent(x)
        k, total, lo, hi = 0, 0.0, np.inf, -np.inf
        missing = False
        for start in _slices(x.shape[0]):
            xs = numeric.scaled(x[start : start + _CHUNK], e)
            t = float(xs.sum())
            if math.isnan(t):  # values are finite or NaN (encode_pair sets ±inf to NaN)
                missing = True
                xs = xs[~np.isnan(xs)]
                if not xs.size:
                    continue
                t = float(xs.sum())
            k += xs.shape[0]
            total += t
            lo, hi = min(lo, float(xs.min())), max(hi, float(xs.max()))
        if k == 0:
            return 0, np.nan, np.nan, False, e
        if lo == hi:
            return k, lo, (0.0 if k >= 2 else np.nan), True, e
        mean = total / k
        ss = 0.0
        for start in _slices(x.shape[0]):
            xs = numeric.scaled(x[start : start + _CHUNK], e)
            if missing:
                xs = xs[~np.isnan(xs)]
            d = xs - mean
            ss += float(np.einsum('i,i->', d, d))
        return k, mean, (ss / (k - 1) if k >= 2 else np.nan), False, e

    def compute() -> _Univariate:
        rows = [one(_column(pair, name, which)) for name in pair.continuous_names]
        n = np.array([r[0] for r in rows], dtype=np.int64)
        exp = np.array([r[4] for r in rows], dtype=np.int64)
        mean_s = np.array([r[1] for r in rows], dtype=float)
        var_s = np.array([r[2] for r in rows], dtype=float)
        return _Univariate(
            n,
            numeric.unscale(mean_s, exp),
            numeric.unscale(var_s, 2 * exp),
            np.array([r[3] for r in rows], dtype=bool),
            bool((n < pair.n(which)).any()),
            exp,
            mean_s,
            var_s,
        )

    return pair.cached(("moments", "univariate", which), compute)


def _blocks(pair: EncodedPair, which: str, rows: np.ndarray | None = None):
    """Yield ``(start, block)``: consecutive row blocks of the *scaled* continuous variables as (k, p) arrays.

    Column ``j`` is multiplied by ``2**-exp[j]`` (the file's
    :class:`_Univariate` exponents), exactly.  Built from the columns into
    one reused buffer (no n × p copy); with ``rows`` (a boolean mask over the
    records) only those rows are yielded.  The block is overwritten by the
    next one.
    """
    columns = [_column(pair, name, which) for name in pair.continuous_names]
    exp = _univariate(pair, which).exp
    n = pair.n(which)
    buf = np.empty((min(_CHUNK, n), len(columns)), order="F")
    for start in _slices(n):
        k = min(_CHUNK, n - start)
        block = buf[:k]
        for j, col in enumerate(columns):
            numeric.scaled(col[start : start + k], exp[j], out=block[:, j])
        if rows is not None:
            block = block[rows[start : start + k]]
        yield start, block


def _gram(blocks, mean: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Σ_i w_i (x_i − mean)(x_i − mean)ᵀ over the row blocks (weights aligned with the yielded rows)."""
    p = mean.shape[0]
    out = np.zeros((p, p))
    used = 0
    for _, block in blocks:
        b = block - mean
        if weights is None:
            out += b.T @ b
        else:
            out += (b * weights[used : used + b.shape[0], None]).T @ b
        used += b.shape[0]
    return (out + out.T) / 2


def _corr_from_cov(cov: np.ndarray) -> np.ndarray:
    sd = np.sqrt(np.diag(cov))
    corr = cov / np.outer(sd, sd)
    np.fill_diagonal(corr, 1.0)
    return (corr + corr.T) / 2


def _complete(pair: EncodedPair, which: str) -> _Complete:
    def compute() -> _Complete:
        names = pair.continuous_names
        p = len(names)
        uni = _univariate(pair, which)
        rows = None
        if uni.any_missing:
            rows = np.zeros(pair.n(which), dtype=bool)
            total, lo, hi = np.zeros(p), np.full(p, np.inf), np.full(p, -np.inf)
            for start, block in _blocks(pair, which):
                ok = ~np.isnan(block).any(axis=1)
                rows[start : start + block.shape[0]] = ok
                if ok.any():
                    b = block[ok]
                    total += b.sum(axis=0)
                    lo, hi = np.minimum(lo, b.min(axis=0)), np.maximum(hi, b.max(axis=0))
            n = int(np.count_nonzero(rows))
            mean = total / max(n, 1)
            constant = lo == hi
        else:
            n, mean, constant = pair.n(which), uni.mean_s, uni.constant
        label = _FILE[which]
        if n < 2:
            reason = f"fewer than 2 records of the {label} file have every continuous variable present"
            return _Complete(n, None, None, None, reason, rows)
        cov_s = _gram(_blocks(pair, which, rows), mean) / (n - 1)  # of the scaled variables
        cov = numeric.unscale(cov_s, uni.exp[:, None] + uni.exp[None, :])
        if constant.any():
            const = [nm for nm, c in zip(names, constant) if c]
            where = "" if rows is None else " on the records with every continuous variable present"
            reason = (
                f"{_join(const)} {'is' if len(const) == 1 else 'are'} constant in the {label} file{where}, "
                "so the correlations are undefined"
            )
            return _Complete(n, mean, cov, None, reason, rows, constant, cov_s)
        return _Complete(n, mean, cov, _corr_from_cov(cov_s), None, rows, constant, cov_s)

    return pair.cached(("moments", "complete", which), compute)


def _eigh(matrix: np.ndarray) -> _Eigen:
    values, vectors = np.linalg.eigh(matrix)
    return _Eigen(values[::-1].copy(), vectors[:, ::-1].copy())


def _correlation(pair: EncodedPair, which: str) -> np.ndarray:
    """The complete-case correlation matrix of one file; NotComputed when undefined."""
    comp = _complete(pair, which)
    if comp.corr is None:
        raise NotComputed(comp.reason)
    return comp.corr


def _pca(pair: EncodedPair, which: str) -> _Eigen:
    """Eigen-decomposition of the complete-case correlation matrix (cached)."""
    corr = _correlation(pair, which)
    return pair.cached(("moments", "pca", which), lambda: _eigh(corr))


def _standardised_cov(pair: EncodedPair, which: str) -> np.ndarray:
    """sdcMicro's ``var(scale(x), use = "pairwise.complete.obs")`` (cached).

    Each variable is standardised with its own mean and sd over its available
    values; each covariance uses the records where both variables are present.
    Without missing values this is the correlation matrix.
    """
    names = pair.continuous_names
    uni = _univariate(pair, which)
    label = _FILE[which]
    bad = [nm for nm, k, c in zip(names, uni.n, uni.constant) if k < 2 or c]
    if bad:
        raise NotComputed(
            f"{_join(bad)} {'is' if len(bad) == 1 else 'are'} constant or has fewer than 2 values in the {label} "
            "file, so it cannot be standardised"
        )
    if not uni.any_missing:
        return _correlation(pair, which)

    def compute() -> np.ndarray | str:
        mean, sd = uni.mean_s, np.sqrt(uni.var_s)  # the blocks are scaled: z is the same
        p = len(names)
        cross, sums, counts = np.zeros((p, p)), np.zeros((p, p)), np.zeros((p, p))
        for _, block in _blocks(pair, which):
            z = (block - mean) / sd
            present = ~np.isnan(z)
            z0 = np.where(present, z, 0.0)
            ind = present.astype(float)
            cross += z0.T @ z0
            sums += z0.T @ ind  # sums[j, k]: Σ z_j over records where j and k are present
            counts += ind.T @ ind
        if (counts < 2).any():
            j, k = np.argwhere(counts < 2)[0]
            return (
                f"{names[j]} and {names[k]} are both present in fewer than 2 records of the {label} file, "
                "so their covariance is undefined"
            )
        cov = (cross - sums * sums.T / counts) / (counts - 1)
        return (cov + cov.T) / 2

    out = pair.cached(("moments", "standardised_cov", which), compute)
    if isinstance(out, str):
        raise NotComputed(out)
    return out


def _singular_reason(what: str, eig: _Eigen, names: list[str]) -> str | None:
    """None if the matrix is well conditioned; else a sentence naming the dependent variables."""
    values = eig.values
    top = values.max()
    small = values <= SINGULAR_TOLERANCE * top
    if top > 0 and not small.any():
        return None
    involved: list[str] = []
    for k in np.flatnonzero(small):
        v = np.abs(eig.vectors[:, k])
        for i in np.argsort(-v, kind="stable"):
            if v[i] >= 1e-3 * v.max() and names[i] not in involved:
                involved.append(names[i])
    kind = "singular" if values.min() >= -SINGULAR_TOLERANCE * abs(top) else "not positive definite"
    if len(involved) >= 2:
        return f"the {what} is {kind} ({_join(involved)} are linearly dependent)"
    return f"the {what} is {kind}"


def _join(names: list[str]) -> str:
    return ", ".join(names)


def _need_two(pair: EncodedPair, what: str) -> list[str]:
    names = pair.continuous_names
    if not names:
        raise NotComputed("there is no continuous variable")
    if len(names) < 2:
        raise NotComputed(f"{what} needs at least 2 continuous variables, and there is only {names[0]}")
    return names


# ---------------------------------------------------------------------------
# eigenvalues
# ---------------------------------------------------------------------------
def _eigen_ratio(e_orig: np.ndarray, e_prot: np.ndarray) -> float:
    return float(np.sum(np.abs(e_orig - e_prot) / e_orig))


@measure(
    "eigen",
    family="moments",
    description="sum over eigenvalues of |e − e'|/e, eigenvalues of the covariance of the standardised variables",
    range=(0, None),
    better="lower",
    needs_pairing=False,
)
def eigen(pair: EncodedPair) -> MeasureResult:
    r"""Relative change of the eigenvalues of the standardised covariance matrix (sdcMicro ``eigen``).

    .. math::

        \mathrm{eigen} = \sum_{k=1}^{p} \frac{|e_k - e'_k|}{e_k}

    where ``e_1 ≥ … ≥ e_p`` are the eigenvalues of the covariance matrix of
    the standardised continuous variables of the original file and ``e'_k``
    those of the protected file, paired by rank.  Each file is standardised
    with its *own* means and standard deviations (n − 1) over its available
    values, and each covariance uses the records where both variables are
    present (pairwise complete), exactly as sdcMicro's
    ``dUtility(method = "eigen")`` computes
    ``eigen(var(scale(x), use = "pairwise.complete.obs"))``.  Without missing
    values the matrix is the correlation matrix, so ``e_k`` are the
    eigenvalues of the correlation matrix (``Σ e_k = p``).

    Not computed with fewer than 2 continuous variables, when a variable is
    constant in a file, or when the original matrix is singular (an
    eigenvalue ``≤ 1e-12`` times the largest; the reason names the linearly
    dependent variables).

    Returns
    -------
    MeasureResult
        ``details``: ``eigenvalues_original``, ``eigenvalues_protected``
        (decreasing), ``scaling`` and ``missing`` (the conventions above).

    References
    ----------
    Templ, M. & Meindl, B. (2008). Robust statistics meets SDC: new disclosure
    risk measures for continuous microdata masking. *Privacy in Statistical
    Databases*, LNCS 5262, 113–126.  Benschop, T., Machingauta, C. & Welch, M.
    (2022). *Statistical Disclosure Control: A Practice Guide*, "Eigenvalues".
    sdcMicro ``dUtility(method = "eigen")``.

    Examples
    --------
    The original's three variables are uncorrelated (eigenvalues 1, 1, 1); in
    the protected file ``x`` and ``y`` have correlation 0.6, giving
    eigenvalues 1.6, 1, 0.4, so eigen = 0.6/1 + 0/1 + 0.6/1 = 1.2.

    >>> import pandas as pd
    >>> from infoloss.measures.moments import eigen
    >>> a, b, c = [1, -1, 1, -1], [1, 1, -1, -1], [1, -1, -1, 1]
    >>> orig = pd.DataFrame({"x": a, "y": b, "z": c}, dtype=float)
    >>> prot = pd.DataFrame({"x": a, "y": [1.4, 0.2, -0.2, -1.4], "z": c})
    >>> spec = {"variables": {v: {"scale": "continuous"} for v in "xyz"}}
    >>> round(eigen(orig, prot, spec).value, 6)
    1.2
    """
    names = _need_two(pair, "eigen")
    values = {}
    for which in (ORIGINAL, PROTECTED):
        matrix = _standardised_cov(pair, which)
        values[which] = pair.cached(("moments", "eigen", which), lambda m=matrix: _eigh(m))
    reason = _singular_reason("original's standardised covariance matrix", values[ORIGINAL], names)
    if reason:
        raise NotComputed(reason + ", so the eigenvalue ratios are undefined")
    e1, e2 = values[ORIGINAL].values, values[PROTECTED].values
    return MeasureResult(
        value=_eigen_ratio(e1, e2),
        details={
            "eigenvalues_original": e1.tolist(),
            "eigenvalues_protected": e2.tolist(),
            "scaling": "each file standardised with its own means and standard deviations (sdcMicro's scale())",
            "missing": "pairwise complete observations (without missing values: the correlation matrix)",
        },
    )


def _mcd_sample(pair: EncodedPair, which: str, max_records: int, random_state: int) -> tuple[np.ndarray, int]:
    """Up to ``max_records`` complete records of one file, in a seeded random order.

    The order depends only on the number of records and the seed, so paired
    files (and identical files) are sampled on the same records where both
    are complete.
    """
    n = pair.n(which)
    complete = _complete(pair, which).rows
    n_complete = n if complete is None else int(np.count_nonzero(complete))
    if n_complete <= max_records:
        rows = np.arange(n) if complete is None else np.flatnonzero(complete)
    else:
        order = np.random.default_rng(random_state).permutation(n)
        if complete is not None:
            order = order[complete[order]]
        rows = np.sort(order[:max_records])
    columns = [_column(pair, name, which)[rows] for name in pair.continuous_names]
    return np.column_stack(columns), n_complete


def _mcd(pair: EncodedPair, which: str, max_records: int, random_state: int) -> _Eigen:
    from sklearn.covariance import MinCovDet

    def compute() -> _Eigen | str:
        names = pair.continuous_names
        label = _FILE[which]
        x, n_complete = _mcd_sample(pair, which, max_records, random_state)
        p = x.shape[1]
        if x.shape[0] <= 2 * p:
            return (
                f"the {label} file has {x.shape[0]} records with every continuous variable present, too few for a "
                f"robust (MCD) covariance of {p} variables (more than {2 * p} needed)"
            )
        const = [nm for nm, c in zip(names, x.min(axis=0) == x.max(axis=0)) if c]
        if const:
            return f"{_join(const)} {'is' if len(const) == 1 else 'are'} constant in the {label} file's sample"
        x = numeric.scaled(x, [numeric.exponent(x[:, j]) for j in range(p)])  # exact; z does not change
        z = (x - x.mean(axis=0)) / x.std(axis=0, ddof=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                cov = MinCovDet(random_state=random_state).fit(z).covariance_
            except (ValueError, np.linalg.LinAlgError) as exc:
                return f"the robust (MCD) covariance of the {label} file could not be computed ({exc})"
        result = _eigh((cov + cov.T) / 2)
        result.n = x.shape[0]  # type: ignore[attr-defined]
        result.n_complete = n_complete  # type: ignore[attr-defined]
        return result

    out = pair.cached(("moments", "mcd", which, max_records, random_state), compute)
    if isinstance(out, str):
        raise NotComputed(out)
    return out


@measure(
    "robust_eigen",
    family="moments",
    description="eigen with a robust (MCD) covariance of the standardised variables, on a seeded sample",
    range=(0, None),
    better="lower",
    needs_pairing=False,
    options=ROBUST_OPTIONS,
)
def robust_eigen(
    pair: EncodedPair, *, max_records: int = MCD_MAX_RECORDS, random_state: int = MCD_RANDOM_STATE
) -> MeasureResult:
    r"""Relative change of the robust eigenvalues (sdcMicro ``robeigen``).

    .. math::

        \mathrm{robust\_eigen} = \sum_{k=1}^{p} \frac{|e_k - e'_k|}{e_k}

    with ``e_k`` (decreasing) the eigenvalues of the minimum covariance
    determinant (MCD) covariance of the standardised continuous variables of
    the original file and ``e'_k`` those of the protected file
    (scikit-learn ``MinCovDet``, reweighted and consistency-corrected like
    robustbase's ``covMcd`` that sdcMicro uses).

    Each file's complete cases are used (records with every continuous
    variable present).  The MCD's cost grows quickly with the number of
    records and variables, so a file with more than ``max_records``
    complete records is fitted on a seeded random sample of ``max_records``
    of them; the sample order depends only on the number of records and
    ``random_state``, so paired files are sampled on the same records.  The
    sample is standardised with its own means and standard deviations (as
    sdcMicro's ``scale``), and ``MinCovDet`` uses the same ``random_state``.
    Like sdcMicro's value (which depends on R's random seed), the result
    depends on the seed and the sample.

    Not computed with fewer than 2 continuous variables, too few complete
    records (at most 2p), a constant variable, or when the original's robust
    covariance is singular (e.g. more than half the records share a value).

    Parameters
    ----------
    pair : EncodedPair
    max_records : int
        Records sampled per file for the MCD fit (default 2,000).  Files of
        equal size are sampled at the same record numbers, so a file
        against itself gives exactly 0.
    random_state : int
        Seed of the sample and of ``MinCovDet``.

    Returns
    -------
    MeasureResult
        ``details``: the eigenvalues, ``n_fitted`` and ``n_complete`` per
        file, ``sampled`` (true when a sample was drawn), ``max_records``,
        ``random_state``.

    References
    ----------
    Templ, M. & Meindl, B. (2008). Robust statistics meets SDC: new disclosure
    risk measures for continuous microdata masking. *Privacy in Statistical
    Databases*, LNCS 5262, 113–126.  Rousseeuw, P. J. & Van Driessen, K.
    (1999). A fast algorithm for the minimum covariance determinant
    estimator. *Technometrics* 41(3), 212–223.  sdcMicro
    ``dUtility(method = "robeigen")``.

    Examples
    --------
    Identical files have identical robust eigenvalues, so nothing is lost:

    >>> import numpy as np, pandas as pd
    >>> from infoloss.measures.moments import robust_eigen
    >>> df = pd.DataFrame(np.random.default_rng(1).normal(size=(60, 3)), columns=["x", "y", "z"])
    >>> spec = {"variables": {v: {"scale": "continuous"} for v in "xyz"}}
    >>> robust_eigen(df, df.copy(), spec).value
    0.0
    """
    if max_records < 3:
        raise InputError(f"max_records must be at least 3, got {max_records}.")
    names = _need_two(pair, "robust_eigen")
    fits = {which: _mcd(pair, which, int(max_records), int(random_state)) for which in (ORIGINAL, PROTECTED)}
    reason = _singular_reason("original's robust (MCD) covariance matrix", fits[ORIGINAL], names)
    if reason:
        raise NotComputed(reason + ", so the eigenvalue ratios are undefined")
    e1, e2 = fits[ORIGINAL].values, fits[PROTECTED].values
    return MeasureResult(
        value=_eigen_ratio(e1, e2),
        details={
            "eigenvalues_original": e1.tolist(),
            "eigenvalues_protected": e2.tolist(),
            "n_fitted": {_FILE[w]: f.n for w, f in fits.items()},  # type: ignore[attr-defined]
            "n_complete": {_FILE[w]: f.n_complete for w, f in fits.items()},  # type: ignore[attr-defined]
            "sampled": any(f.n < f.n_complete for f in fits.values()),  # type: ignore[attr-defined]
            "max_records": int(max_records),
            "random_state": int(random_state),
            "note": f"MCD (scikit-learn MinCovDet) fitted on a seeded random sample of at most {int(max_records)} "
            "complete records per file, standardised with the sample's own means and sds",
        },
    )


# ---------------------------------------------------------------------------
# Młodak's γ
# ---------------------------------------------------------------------------
def _inverse_diagonal(pair: EncodedPair, which: str, names: list[str]) -> np.ndarray:
    corr = _correlation(pair, which)
    reason = _singular_reason(f"{_FILE[which]} correlation matrix", _pca(pair, which), names)
    if reason:
        raise NotComputed(reason)
    return np.diag(np.linalg.inv(corr)).copy()


GAMMA_CORRELATION = Option(
    "correlation", "choice", "pearson",
    "pearson: continuous variables (sdcMicro IL_correl); kendall: Kendall's tau-b of the continuous and ordinal "
    "variables (Handbook)",
    choices=("pearson", "kendall"),
)


def _gamma_parts(d1: np.ndarray, d2: np.ndarray) -> tuple[float, np.ndarray]:
    """γ and the per-variable differences of the normalised inverse diagonals."""
    diff = d1 / np.sqrt(np.sum(d1**2)) - d2 / np.sqrt(np.sum(d2**2))
    return min(math.sqrt(float(np.sum(diff**2))) / math.sqrt(2.0), 1.0), diff


def _gamma_kendall(pair: EncodedPair) -> MeasureResult:
    from ._kendall import kendall_columns, kendall_matrix

    names = pair.names(("continuous", "ordinal"))
    if len(names) < 2:
        raise NotComputed(
            "γ with Kendall's τ needs at least 2 continuous or ordinal variables"
            + (f", and there is only {names[0]}" if names else "")
        )
    diag, n = {}, {}
    for which in (ORIGINAL, PROTECTED):
        label = _FILE[which]

        def compute(which: str = which, label: str = label) -> tuple[np.ndarray, int]:
            return kendall_matrix(kendall_columns(pair, names, which), names, label)

        tau, n[label] = pair.cached(("moments", "kendall", which, tuple(names)), compute)
        reason = _singular_reason(f"{label} Kendall correlation matrix", _eigh(tau), names)
        if reason:
            raise NotComputed(reason)
        diag[which] = np.diag(np.linalg.inv(tau)).copy()
    value, diff = _gamma_parts(diag[ORIGINAL], diag[PROTECTED])
    return MeasureResult(
        value=value,
        by_variable={name: float(abs(v)) for name, v in zip(names, diff)},
        details={
            "correlation": "kendall (tau-b, scipy.stats.kendalltau), continuous and ordinal variables "
            "(ordinal ones by category order)",
            "inverse_diagonal_original": dict(zip(names, diag[ORIGINAL].tolist())),
            "inverse_diagonal_protected": dict(zip(names, diag[PROTECTED].tolist())),
            "n_complete": n,
            "missing": "complete cases of each file",
        },
    )


@measure(
    "gamma",
    family="moments",
    description="Młodak's γ: change of the normalised diagonal of the inverse correlation matrix (sdcMicro IL_correl)",
    range=(0, 1),
    better="lower",
    needs_pairing=False,
    headline=True,
    options=(GAMMA_CORRELATION,),
)
def gamma(pair: EncodedPair, *, correlation: str = "pearson") -> MeasureResult:
    r"""Młodak's γ from the diagonals of the inverse correlation matrices (sdcMicro ``IL_correl``).

    .. math::

        \gamma = \frac{1}{\sqrt2}\sqrt{\sum_{j=1}^{m_c}\left(
            \frac{\rho^{(-1)}_{jj}}{\sqrt{\sum_l (\rho^{(-1)}_{ll})^2}} -
            \frac{\rho'^{(-1)}_{jj}}{\sqrt{\sum_l (\rho'^{(-1)}_{ll})^2}}\right)^2}
        \in [0, 1]

    where ``ρ^{(-1)}_{jj}`` is the ``j``-th diagonal element of the inverse
    of the Pearson correlation matrix of the ``m_c`` continuous variables in
    the original file, primed for the protected file.  The ``1/√2`` factor is
    sdcMicro's and the Handbook's (Młodak 2020 used ``1/2``).  Each
    correlation matrix uses the complete cases of its own file (records with
    any continuous value missing are dropped, separately for each file), as
    ``cor(…, use = "complete.obs")`` in sdcMicro.

    Not computed with fewer than 2 continuous variables, when a variable is
    constant, or when a correlation matrix is singular (smallest eigenvalue
    ``≤ 1e-12`` times the largest); the reason names the variables involved.

    ``correlation="kendall"`` uses Kendall's τ-b matrix in place of Pearson's,
    which the Handbook notes makes γ applicable to ordinal variables: the
    continuous *and ordinal* variables enter (ordinal ones by their category
    order), each file's complete cases, ``scipy.stats.kendalltau`` per pair
    (O(n log n) each, ``p(p − 1)/2`` pairs).  ``details["correlation"]``
    says which coefficient was used.

    Parameters
    ----------
    pair : EncodedPair
        The encoded files (or ``original_df, protected_df, spec``).
    correlation : {"pearson", "kendall"}
        The correlation coefficient of both matrices (default Pearson, as
        sdcMicro).

    Returns
    -------
    MeasureResult
        ``by_variable``: the absolute difference of the normalised diagonal
        entries (so ``γ = √(Σ_j by_variable_j² / 2)``); ``details``:
        ``inverse_diagonal_original``/``_protected`` and ``n_complete``.

    References
    ----------
    Młodak, A. (2020). Information loss resulting from statistical disclosure
    control of output data. *Wiadomości Statystyczne* 65(9), 7–27.
    Hundepool, A. et al. *Handbook on Statistical Disclosure Control*,
    "Measurement of information loss".  sdcMicro ``IL_correl()``.

    Examples
    --------
    The original's variables are uncorrelated, so its inverse diagonal is
    (1, 1, 1), normalised 1/√3 each.  In the protected file corr(x, y) = 0.6:
    the diagonal is (1/0.64, 1/0.64, 1) = (1.5625, 1.5625, 1), norm
    √5.8828125 = 2.425451, normalised (0.644211, 0.644211, 0.412294);
    differences (0.066861, 0.066861, −0.165056), squares summing to
    0.036185, so γ = √0.036185/√2 = 0.134506.

    >>> import pandas as pd
    >>> from infoloss.measures.moments import gamma
    >>> a, b, c = [1, -1, 1, -1], [1, 1, -1, -1], [1, -1, -1, 1]
    >>> orig = pd.DataFrame({"x": a, "y": b, "z": c}, dtype=float)
    >>> prot = pd.DataFrame({"x": a, "y": [1.4, 0.2, -0.2, -1.4], "z": c})
    >>> spec = {"variables": {v: {"scale": "continuous"} for v in "xyz"}}
    >>> round(gamma(orig, prot, spec).value, 6)
    0.134506
    """
    if correlation == "kendall":
        return _gamma_kendall(pair)
    names = _need_two(pair, "γ")
    d1 = _inverse_diagonal(pair, ORIGINAL, names)
    d2 = _inverse_diagonal(pair, PROTECTED, names)
    value, diff = _gamma_parts(d1, d2)
    return MeasureResult(
        value=value,
        by_variable={name: float(abs(v)) for name, v in zip(names, diff)},
        details={
            "correlation": "pearson, continuous variables",
            "inverse_diagonal_original": dict(zip(names, d1.tolist())),
            "inverse_diagonal_protected": dict(zip(names, d2.tolist())),
            "n_complete": {_FILE[w]: _complete(pair, w).n for w in (ORIGINAL, PROTECTED)},
            "missing": "complete cases of each file",
        },
    )


# ---------------------------------------------------------------------------
# the Domingo-Ferrer, Mateo-Sanz & Torra table
# ---------------------------------------------------------------------------
@dataclass
class _Sums:
    """Sums of the three discrepancies over a group of matrix elements.

    ``sq`` and ``ab`` are in units of ``2**(2 exp)`` and ``2**exp`` (exact
    scaling, see :mod:`infoloss.numeric`), so that the sums of differences
    of values near 1e308 stay finite; ``value`` scales the mean back.
    """

    n: int = 0  # elements compared
    sq: float = 0.0  # Σ w (a − a')²  (times 2**(-2 exp))
    ab: float = 0.0  # Σ w |a − a'|  (times 2**-exp)
    n_mv: int = 0  # elements with a non-zero original value
    rel: float = 0.0  # Σ w |a − a'| / |a| over those
    exp: int = 0
    # per element with a non-zero original (relative variation, weight, label), for Trottini's bound;
    # None for the data matrix X, whose n·p cells are bounded in a pass of their own
    elements: tuple[np.ndarray, np.ndarray, list[str]] | None = None

    def value(self, stat: str) -> float | None:
        if stat == "mse":
            return numeric.unscale(self.sq / self.n, 2 * self.exp) if self.n else None
        if stat == "mae":
            return numeric.unscale(self.ab / self.n, self.exp) if self.n else None
        return self.rel / self.n_mv if self.n_mv else None

    def bounded(self, bound: float) -> tuple[float | None, list[str]]:
        """Mean variation with each element's relative variation capped at ``bound``; the capped labels."""
        rel, w, labels = self.elements
        value = float(np.sum(w * np.minimum(rel, bound))) / self.n_mv if self.n_mv else None
        return value, [labels[i] for i in np.flatnonzero(rel > bound)]

    def __add__(self, other: "_Sums") -> "_Sums":
        e = max(self.exp, other.exp)
        a, b = self.at(e), other.at(e)
        elements = None
        if a.elements is not None and b.elements is not None:
            elements = tuple(np.concatenate([x, y]) for x, y in zip(a.elements[:2], b.elements[:2]))
            elements += (a.elements[2] + b.elements[2],)
        elif a.n == 0:
            elements = b.elements
        elif b.n == 0:
            elements = a.elements
        return _Sums(a.n + b.n, a.sq + b.sq, a.ab + b.ab, a.n_mv + b.n_mv, a.rel + b.rel, e, elements)

    def at(self, e: int) -> "_Sums":
        """The same sums in units of ``2**e`` (``e >= exp``; exact unless they underflow)."""
        if e == self.exp:
            return self
        shift = self.exp - e
        return _Sums(self.n, numeric.unscale(self.sq, 2 * shift), numeric.unscale(self.ab, shift), self.n_mv,
                     self.rel, e, self.elements)


def _sums(
    a: np.ndarray, b: np.ndarray, zero: np.ndarray | float = 0.0, w: np.ndarray | None = None,
    labels: list[str] | None = None,
) -> _Sums:
    """Discrepancy sums of the elements ``a`` (original) and ``b`` (protected).

    ``|a| <= zero`` marks an element as zero for the mean variation.
    ``labels`` (one per element) keeps the elements for Trottini's bound.
    """
    a, b = np.asarray(a, float).ravel(), np.asarray(b, float).ravel()
    w = np.ones_like(a) if w is None else np.asarray(w, float).ravel()
    with np.errstate(over="ignore"):  # beyond the float64 range: infinite, and the measure says why
        d = np.abs(a - b)
        nz = np.abs(a) > np.broadcast_to(zero, a.shape)
        rel = np.divide(d, np.abs(a), out=np.zeros_like(d), where=nz)
        elements = None
        if labels is not None:
            keep = np.flatnonzero(nz)
            elements = (rel[keep], w[keep], [labels[i] for i in keep])
        return _Sums(a.size, float(np.sum(w * d * d)), float(np.sum(w * d)), int(np.count_nonzero(nz)),
                     float(np.sum(w * rel)), 0, elements)


@dataclass
class _Table:
    """One matrix of the table for one pair: its element groups and details."""

    groups: dict[str, _Sums]  # variable name, "A|B" or "all"
    kind: str | None  # "variable", "pair" or None: how groups are reported
    details: dict[str, Any]


def _x_table(pair: EncodedPair) -> _Table:
    names = pair.continuous_names
    groups: dict[str, _Sums] = {}
    skipped: dict[str, int] = {}
    zeros: dict[str, int] = {}
    for name in names:
        o, p = _column(pair, name, ORIGINAL), _column(pair, name, PROTECTED)
        e = numeric.exponent(o, p)  # both files on one exact scale: differences cannot overflow
        g = _Sums()
        for start in _slices(o.shape[0]):
            os_ = numeric.scaled(o[start : start + _CHUNK], e)
            d = os_ - numeric.scaled(p[start : start + _CHUNK], e)
            ok = ~np.isnan(d)  # NaN iff either side is missing
            if not ok.all():
                os_, d = os_[ok], d[ok]
            ad = np.abs(d)
            nz = os_ != 0
            if nz.all():
                rel = float(np.sum(ad / np.abs(os_)))
            else:
                rel = float(np.sum(np.divide(ad, np.abs(os_), out=np.zeros_like(ad), where=nz)))
            g = g + _Sums(d.shape[0], float(np.einsum('i,i->', d, d)), float(ad.sum()), int(np.count_nonzero(nz)),
                          rel, e)
        groups[name] = g
        skipped[name] = o.shape[0] - g.n
        zeros[name] = g.n - g.n_mv
    return _Table(
        groups,
        "variable",
        {
            "n_skipped_missing": skipped,
            "n_excluded_zero": zeros,
            "mv_zero_rule": "cells whose original value is exactly 0 are left out of the mean variation",
            "missing": "cells missing in either file are skipped",
        },
    )


def _x_bounded(pair: EncodedPair, bound: float) -> dict[str, tuple[float, int, int]]:
    """Per variable: Σ min(|x − x'|/|x|, bound) over the compared cells with x ≠ 0, their number, and how many hit the bound."""

    def compute() -> dict[str, tuple[float, int, int]]:
        out = {}
        for name in pair.continuous_names:
            o, p = _column(pair, name, ORIGINAL), _column(pair, name, PROTECTED)
            total, count, hit = 0.0, 0, 0
            for start in _slices(o.shape[0]):
                os_, d = o[start : start + _CHUNK], np.abs(o[start : start + _CHUNK] - p[start : start + _CHUNK])
                ok = ~np.isnan(d) & (os_ != 0)
                rel = d[ok] / np.abs(os_[ok])
                total += float(np.minimum(rel, bound).sum())
                count += rel.shape[0]
                hit += int(np.count_nonzero(rel > bound))
            out[name] = (total, count, hit)
        return out

    return pair.cached(("moments", "x_bounded", float(bound)), compute)


def _xbar_table(pair: EncodedPair) -> _Table:
    def zero_below(u: _Univariate, j: int) -> float:
        return ZERO_TOLERANCE * numeric.unscale(math.sqrt(u.var_s[j]), u.exp[j]) if u.n[j] >= 2 else 0.0

    return _univariate_table(
        pair, "mean", 1, zero_below, "a mean with |mean| <= 1e-12 × the original's sd counts as 0 and is left out"
    )


def _s_table(pair: EncodedPair) -> _Table:
    # a constant variable's variance is exactly 0
    return _univariate_table(
        pair, "var", 2, lambda u, j: 0.0, "variables constant in the original (variance 0) are left out"
    )


def _univariate_table(
    pair: EncodedPair, stat: str, min_n: int, zero_below: Callable[[_Univariate, int], float], zero_rule: str
) -> _Table:
    """Per-variable comparison of one statistic (``mean`` or ``var``) computed in each file.

    A variable with fewer than ``min_n`` available values in either file is
    left out with its reason; ``zero_below(u_orig, j)`` is the magnitude under
    which the original's statistic counts as 0 for the mean variation.
    """
    names = pair.continuous_names
    u1, u2 = _univariate(pair, ORIGINAL), _univariate(pair, PROTECTED)
    s1, s2 = getattr(u1, stat), getattr(u2, stat)
    groups, not_computed, zeros = {}, {}, {}
    for j, name in enumerate(names):
        if u1.n[j] < min_n or u2.n[j] < min_n:
            which = "original" if u1.n[j] < min_n else "protected"
            not_computed[name] = (
                f"no value in the {which} file" if min_n == 1 else f"fewer than {min_n} values in the {which} file"
            )
            continue
        if not (math.isfinite(s1[j]) and math.isfinite(s2[j])):
            not_computed[name] = numeric.too_large(f"its {'variance' if stat == 'var' else stat}")
            continue
        groups[name] = _sums(s1[j], s2[j], zero_below(u1, j), labels=[name])
        zeros[name] = groups[name].n - groups[name].n_mv
    return _Table(
        groups,
        "variable",
        {
            "original": dict(zip(names, _floats(s1))),
            "protected": dict(zip(names, _floats(s2))),
            "not_computed": not_computed,
            "n_excluded_zero": zeros,
            "mv_zero_rule": zero_rule,
            "missing": "each file's available values of the variable",
        },
    )


def _covariances(pair: EncodedPair) -> tuple[np.ndarray, np.ndarray]:
    out = []
    for which in (ORIGINAL, PROTECTED):
        comp = _complete(pair, which)
        if comp.cov is None:
            raise NotComputed(comp.reason)
        out.append(comp.cov)
    return out[0], out[1]


def _v_table(pair: EncodedPair) -> _Table:
    v1, v2 = _covariances(pair)
    iu = np.triu_indices(v1.shape[0])
    finite = np.isfinite(v1[iu]) & np.isfinite(v2[iu])
    if not finite.all():
        names = pair.continuous_names
        bad = sorted({names[k] for k in np.concatenate([iu[0][~finite], iu[1][~finite]])}, key=names.index)
        raise NotComputed(numeric.too_large("the covariance matrix", [f"(variables {_join(bad)})"]).replace(
            " of (", " ("))
    sd = np.sqrt(np.abs(np.diag(v1)))
    zero = ZERO_TOLERANCE * np.outer(sd, sd)[iu]
    names = pair.continuous_names
    sums = _sums(v1[iu], v2[iu], zero, labels=[f"{names[i]}|{names[j]}" for i, j in zip(*iu)])
    return _Table(
        {"all": sums},
        None,
        {
            "n_elements": int(iu[0].size),
            "n_excluded_zero": sums.n - sums.n_mv,
            "mv_zero_rule": "covariances with |v_ij| <= 1e-12 × sd_i sd_j of the original count as 0 and are left out",
            "missing": "complete cases of each file",
        },
    )


def _r_table(pair: EncodedPair) -> _Table:
    names = _need_two(pair, "R (correlations)")
    r1, r2 = _correlation(pair, ORIGINAL), _correlation(pair, PROTECTED)
    groups = {}
    for i, j in zip(*np.triu_indices(len(names), 1)):
        key = f"{names[i]}|{names[j]}"
        groups[key] = _sums(r1[i, j], r2[i, j], ZERO_TOLERANCE, labels=[key])
    return _Table(
        groups,
        "pair",
        {
            "n_elements": len(groups),
            "n_excluded_zero": sum(g.n - g.n_mv for g in groups.values()),
            "mv_zero_rule": "correlations with |r| <= 1e-12 in the original count as 0 and are left out",
            "missing": "complete cases of each file",
        },
    )


def _components(pair: EncodedPair) -> dict[str, Any]:
    """Both files' principal components, protected signs aligned with the original's (cached)."""
    _need_two(pair, "a principal component comparison")
    e1, e2 = _pca(pair, ORIGINAL), _pca(pair, PROTECTED)

    def compute() -> dict[str, Any]:
        signs = np.sign(np.sum(e1.vectors * e2.vectors, axis=0))
        signs[signs == 0] = 1.0
        v1, v2 = e1.vectors, e2.vectors * signs
        l1, l2 = np.clip(e1.values, 0.0, None), np.clip(e2.values, 0.0, None)
        return {
            "f": (v1, v2),
            "rf": (v1 * np.sqrt(l1), v2 * np.sqrt(l2)),
            "weights": l1 * (l1.size / l1.sum()),  # w_j = λ_j (Σ λ_j = p for a correlation matrix)
            "flipped": int(np.count_nonzero(signs < 0)),
            "eigenvalues": (e1.values.tolist(), e2.values.tolist()),
        }

    return pair.cached(("moments", "components"), compute)


def _pc_details(comp: dict[str, Any], sums: _Sums | None, n_elements: int) -> dict[str, Any]:
    out = {
        "eigenvalues_original": comp["eigenvalues"][0],
        "eigenvalues_protected": comp["eigenvalues"][1],
        "components_sign_flipped": comp["flipped"],
        "n_elements": n_elements,
        "mv_zero_rule": "elements with |value| <= 1e-12 in the original count as 0 and are left out",
        "missing": "complete cases of each file",
        "pca": "principal components of each file's correlation matrix; protected signs aligned with the original's",
    }
    if sums is not None:
        out["n_excluded_zero"] = sums.n - sums.n_mv
    return out


def _weighted_matrix_table(key: str) -> Callable[[EncodedPair], _Table]:
    def table(pair: EncodedPair) -> _Table:
        comp = _components(pair)
        a, b = comp[key]
        w = np.broadcast_to(comp["weights"], a.shape)  # column j (component j) has weight w_j
        names = pair.continuous_names
        labels = [f"{names[i]}|PC{j + 1}" for i in range(a.shape[0]) for j in range(a.shape[1])]
        sums = _sums(a, b, ZERO_TOLERANCE, w, labels=labels)
        details = _pc_details(comp, sums, a.size)
        details["component_weights"] = comp["weights"].tolist()
        return _Table({"all": sums}, None, details)

    return table


def _c_table(pair: EncodedPair) -> _Table:
    names = pair.continuous_names
    comp = _components(pair)
    rf1, rf2 = comp["rf"]
    c1, c2 = rf1[:, 0] ** 2, rf2[:, 0] ** 2
    groups = {name: _sums(c1[i], c2[i], ZERO_TOLERANCE, labels=[name]) for i, name in enumerate(names)}
    details = _pc_details(comp, None, len(names))
    details["n_excluded_zero"] = sum(g.n - g.n_mv for g in groups.values())
    details["original"] = dict(zip(names, c1.tolist()))
    details["protected"] = dict(zip(names, c2.tolist()))
    return _Table(groups, "variable", details)


def _floats(values: np.ndarray) -> list[float | None]:
    return [float(v) if np.isfinite(v) else None for v in values]


@dataclass(frozen=True)
class _Matrix:
    id: str
    symbol: str
    what: str  # for descriptions
    needs_pairing: bool
    table: Callable[[EncodedPair], _Table]
    formula: str  # LaTeX with {d} for the discrepancy of a generic element pair (a, a')
    elements: str  # which elements are averaged, in words


_MATRICES = [
    _Matrix("x", "X", "the data, cell by cell (paired records)", True, _x_table,
            r"\frac{1}{np}\sum_{j=1}^{p}\sum_{i=1}^{n} {d}(x_{ij}, x'_{ij})",
            "the n·p cells (cells missing in either file are skipped)"),
    _Matrix("xbar", "X̄", "the variables' means", False, _xbar_table,
            r"\frac{1}{p}\sum_{j=1}^{p} {d}(\bar x_j, \bar x'_j)",
            "the p means, each over its file's available values"),
    _Matrix("v", "V", "the covariance matrices (upper triangle with diagonal)", False, _v_table,
            r"\frac{1}{p(p+1)/2}\sum_{j=1}^{p}\sum_{1\le i\le j} {d}(v_{ij}, v'_{ij})",
            "the p(p+1)/2 covariances of the upper triangle with the diagonal (complete cases)"),
    _Matrix("s", "S", "the variances", False, _s_table,
            r"\frac{1}{p}\sum_{j=1}^{p} {d}(s^2_j, s'^2_j)",
            "the p variances (n − 1), each over its file's available values"),
    _Matrix("r", "R", "the correlation matrices (off-diagonal)", False, _r_table,
            r"\frac{1}{p(p-1)/2}\sum_{j=1}^{p}\sum_{1\le i<j} {d}(r_{ij}, r'_{ij})",
            "the p(p−1)/2 correlations above the diagonal (complete cases)"),
    _Matrix("rf", "RF", "the variable–component correlations", False, _weighted_matrix_table("rf"),
            r"\frac{1}{p^2}\sum_{j=1}^{p} w_j\sum_{i=1}^{p} {d}(rf_{ij}, rf'_{ij})",
            "the p² correlations between variable i and principal component j, weighted by w_j = λ_j"),
    _Matrix("c", "C", "the communalities with the first principal component", False, _c_table,
            r"\frac{1}{p}\sum_{i=1}^{p} {d}(c_i, c'_i)",
            "the p communalities c_i = rf_i1² with the first component"),
    _Matrix("f", "F", "the principal-component loadings", False, _weighted_matrix_table("f"),
            r"\frac{1}{p^2}\sum_{j=1}^{p} w_j\sum_{i=1}^{p} {d}(f_{ij}, f'_{ij})",
            "the p² loadings f_ij (eigenvector coefficients), weighted by w_j = λ_j"),
]

_STATS = {
    "mse": ("mean square error", "mean square error", r"(a - a')^2"),
    "mae": ("mean absolute error", "mean absolute error", r"|a - a'|"),
    "mv": ("mean variation", "mean variation (relative to |original|)", r"\frac{|a - a'|}{|a|}"),
}

# The shared docstring example: x unchanged, the last y changes from 3 to 5.
_EXAMPLE = """    >>> import pandas as pd
    >>> from infoloss.measures.moments import {name}
    >>> orig = pd.DataFrame({{"x": [1.0, 2, 3, 4], "y": [2.0, 1, 4, 3]}})
    >>> prot = pd.DataFrame({{"x": [1.0, 2, 3, 4], "y": [2.0, 1, 4, 5]}})
    >>> spec = {{"variables": {{"x": {{"scale": "continuous"}}, "y": {{"scale": "continuous"}}}}}}
    >>> round({name}(orig, prot, spec).value, 6)
    {value}"""

# Worked by hand for the example above.  Original: means 2.5, 2.5; variances
# 5/3, 5/3; covariance 1; r = 0.6.  Protected: means 2.5, 3; variances 5/3,
# 10/3; covariance 2; r' = 2/√(50/9) = 6/√50 = 0.848528.
_WORKED = {
    "x": ("Only one of the 8 cells changes, by 2 (from 3): mse = 4/8, mae = 2/8, mv = (2/3)/8.",
          {"mse": "0.5", "mae": "0.25", "mv": "0.083333"}),
    "xbar": ("Means (2.5, 2.5) and (2.5, 3): mse = 0.5²/2, mae = 0.5/2, mv = (0.5/2.5)/2.",
             {"mse": "0.125", "mae": "0.25", "mv": "0.1"}),
    "v": ("V = [[5/3, 1], [1, 5/3]], V' = [[5/3, 2], [2, 10/3]]; the 3 upper-triangle differences are "
          "0, 1, 5/3: mse = (1 + 25/9)/3 = 34/27, mae = (8/3)/3, mv = (0 + 1/1 + (5/3)/(5/3))/3.",
          {"mse": "1.259259", "mae": "0.888889", "mv": "0.666667"}),
    "s": ("Variances (5/3, 5/3) and (5/3, 10/3): mse = (5/3)²/2, mae = (5/3)/2, mv = 1/2.",
          {"mse": "1.388889", "mae": "0.833333", "mv": "0.5"}),
    "r": ("One correlation, 0.6 → 6/√50 = 0.848528: mse = 0.248528², mae = 0.248528, "
          "mv = 0.248528/0.6 = √2 − 1.",
          {"mse": "0.061766", "mae": "0.248528", "mv": "0.414214"}),
    "rf": ("A 2 × 2 correlation matrix with correlation r has eigenvalues 1 ± r and eigenvectors "
           "(1, ±1)/√2, so RF has columns ±√((1 + r)/2) and ±√((1 − r)/2): 0.894427, 0.447214 (r = 0.6) "
           "and 0.961387, 0.275202 (r' = 0.848528); weights w = (1.6, 0.4).  "
           "With differences 0.066959 (first column) and 0.172012 (second): "
           "mse = (1.6·2·0.066959² + 0.4·2·0.172012²)/4 = 0.009504, "
           "mae = (1.6·2·0.066959 + 0.4·2·0.172012)/4 = 0.087970, "
           "mv = (1.6·2·0.066959/0.894427 + 0.4·2·0.172012/0.447214)/4 = 0.136816.",
           {"mse": "0.009504", "mae": "0.08797", "mv": "0.136816"}),
    "c": ("c_i = (1 + r)/2: 0.8 for both variables, 0.924264 in the protected file; "
          "mse = 0.124264², mae = 0.124264, mv = 0.124264/0.8.",
          {"mse": "0.015442", "mae": "0.124264", "mv": "0.15533"}),
    "f": ("With two variables the eigenvectors of any correlation matrix are (1, ±1)/√2, so F = F' and "
          "all three discrepancies are 0.",
          {"mse": "0.0", "mae": "0.0", "mv": "0.0"}),
}

_REFERENCES = """    Domingo-Ferrer, J., Mateo-Sanz, J. M. & Torra, V. (2001). Comparing SDC
    methods for microdata on the basis of information loss and disclosure
    risk. *Pre-proceedings of ETK-NTTS 2001*, 807–826. Eurostat.
    Domingo-Ferrer, J. & Torra, V. (2001). Disclosure control methods and
    information loss for microdata. In *Confidentiality, Disclosure and Data
    Access*, 91–110. North-Holland.
    Hundepool, A. et al. *Handbook on Statistical Disclosure Control*,
    "Information loss measures for continuous data".
    Trottini, M. (2003). *Decision models for data disclosure limitation*.
    PhD thesis, Carnegie Mellon University (the bound of the mean variation)."""


_BOUND_DOC = """
    Parameters
    ----------
    pair : EncodedPair
        The encoded files (or ``original_df, protected_df, spec``).
    bound : float, optional
        Trottini's (2003) upper bound: each element's relative variation is
        replaced by ``min(|a − a'|/|a|, bound)`` before averaging, so the
        value never exceeds ``bound`` (e.g. 1 for 100 %).  Default: no bound,
        the published form.  With a bound, ``details["bounded_cells"]`` lists
        the elements that hit it (for ``x_mv``: their number per variable),
        ``details["unbounded_value"]`` the published value.
"""


def _docstring(m: _Matrix, stat: str) -> str:
    label, _, d = _STATS[stat]
    formula = m.formula.replace("{d}", r"d").replace("d(", r"\,d(")
    worked, values = _WORKED[m.id]
    by = {"variable": "``by_variable``: the same average per variable. ", "pair": "``by_pair``: per pair of variables. "}
    kind = {"x": "variable", "xbar": "variable", "s": "variable", "c": "variable", "r": "pair"}.get(m.id)
    paragraph = textwrap.fill(
        f"averaged over {m.elements}; ``a`` is the original's element and ``a'`` the protected file's "
        "(Domingo-Ferrer, Mateo-Sanz & Torra 2001, as tabulated in the Handbook).  Conventions for missing "
        "values, zeros in the mean variation, principal-component signs and the weights ``w_j``: see the "
        "module docstring.",
        width=76, initial_indent="    ", subsequent_indent="    ",
    )
    return f"""{label.capitalize()} between {m.symbol} and {m.symbol}' ({m.what}).

    .. math::

        {formula}, \\qquad d(a, a') = {d}

{paragraph}
{_BOUND_DOC if stat == "mv" else ""}
    Returns
    -------
    MeasureResult
        ``value``: the {label}. {by.get(kind, "")}``details``: elements compared,
        elements left out of the mean variation, the conventions used.

    References
    ----------
{_REFERENCES}

    Examples
    --------
    {worked}

{_EXAMPLE.format(name=f"{m.id}_{stat}", value=values[stat])}
    """


def _table_for(pair: EncodedPair, m: _Matrix) -> _Table:
    key = ("moments", "table", m.id)
    if key not in pair.cache:
        pair.cache[key] = m.table(pair)  # NotComputed propagates and is not cached
    return pair.cache[key]


BOUND = Option(
    "bound", "float", None,
    "Trottini's upper bound: each element's relative variation |a − a'|/|a| is capped at this value "
    "(auto: unbounded, the published form)",
    low=0, low_open=True, nullable=True,
)


def _apply_bound(
    pair: EncodedPair, m: _Matrix, table: _Table, bound: float
) -> tuple[float | None, dict[str, float], dict[str, Any]]:
    """Trottini's bounded mean variation: value, parts by group, and which elements hit the bound."""
    if m.id == "x":
        per = _x_bounded(pair, bound)
        total = sum(v[0] for v in per.values())
        count = sum(v[1] for v in per.values())
        parts = {k: v[0] / v[1] for k, v in per.items() if v[1]}
        hits = {k: v[2] for k, v in per.items() if v[2]}
        info = {"bounded_cells": hits, "n_bounded": int(sum(hits.values())),
                "bounded_cells_meaning": "per variable, the number of cells whose relative variation hit the bound"}
        return (total / count if count else None), parts, info
    parts, capped = {}, []
    for key, g in table.groups.items():
        v, hit = g.bounded(bound)
        if v is not None:
            parts[key] = v
        capped += hit
    total = sum(table.groups.values(), _Sums())
    value, _ = total.bounded(bound)
    return value, parts, {"bounded_cells": capped, "n_bounded": len(capped)}


def _make(m: _Matrix, stat: str) -> Callable[..., MeasureResult]:
    label = _STATS[stat][1]

    def result(pair: EncodedPair, bound: float | None = None) -> MeasureResult:
        if not pair.continuous_names:
            raise NotComputed("there is no continuous variable")
        table = _table_for(pair, m)
        total = sum(table.groups.values(), _Sums())
        value = total.value(stat)
        if value is None:
            if stat == "mv" and total.n:
                raise NotComputed(f"every element of the original's {m.symbol} is 0, so the mean variation divides by 0")
            raise NotComputed(f"no element of {m.symbol} could be compared")
        if not math.isfinite(value):
            raise NotComputed(numeric.too_large(f"the {label} of {m.symbol}"))
        parts = {k: v for k, g in table.groups.items() if (v := g.value(stat)) is not None}
        details = dict(table.details)
        huge = [k for k, v in parts.items() if not math.isfinite(v)]
        if huge:  # a part beyond the float64 range while the overall mean is not
            details["not_computed"] = {**details.get("not_computed", {}),
                                       **{k: numeric.too_large(f"its {label}") for k in huge}}
            parts = {k: v for k, v in parts.items() if k not in huge}
        details["n_compared"] = total.n
        if stat == "mv":
            details["bound"] = bound
            if bound is not None:
                details["unbounded_value"] = value
                value, parts, info = _apply_bound(pair, m, table, float(bound))
                details.update(info)
                details["bound_rule"] = (
                    "Trottini (2003): each element's relative variation min(|a − a'|/|a|, bound) before averaging"
                )
        return MeasureResult(
            value=value,
            by_variable=parts if table.kind == "variable" else None,
            by_pair=parts if table.kind == "pair" else None,
            details=details,
        )

    if stat == "mv":
        def compute(pair: EncodedPair, *, bound: float | None = None) -> MeasureResult:
            return result(pair, bound)
    else:
        def compute(pair: EncodedPair) -> MeasureResult:
            return result(pair)

    name = f"{m.id}_{stat}"
    compute.__name__ = compute.__qualname__ = name
    compute.__doc__ = _docstring(m, stat)
    compute.__module__ = __name__
    return measure(
        name,
        family="moments",
        description=f"Domingo-Ferrer–Mateo-Sanz–Torra: {label} of {m.what}",
        range=(0, None),
        better="lower",
        needs_pairing=m.needs_pairing,
        options=(BOUND,) if stat == "mv" else (),
    )(compute)


for _m in _MATRICES:
    for _stat in _STATS:
        globals()[f"{_m.id}_{_stat}"] = _make(_m, _stat)
del _m, _stat


# ---------------------------------------------------------------------------
# descriptive statistics for the JSON and the report
# ---------------------------------------------------------------------------
def _describe_file(pair: EncodedPair, which: str, confidence: float, weighted: bool) -> dict[str, Any]:
    from scipy import stats
    from statsmodels.stats.weightstats import DescrStatsW

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
                half = float(stats.t.ppf(0.5 + confidence / 2, k - 1)) * math.sqrt(v / k)
                ci[name] = [numeric.unscale(m - half, e), numeric.unscale(m + half, e)]
        else:
            x, w = _column(pair, name, which), w_all
            if k < x.shape[0]:
                ok = ~np.isnan(x)
                x, w = x[ok], w[ok]
            if w.sum() <= 0:
                continue
            x = numeric.scaled(x, e)
            d = DescrStatsW(x, weights=w * (k / w.sum()), ddof=1)  # weights rescaled to sum to k
            m, v = float(d.mean), None
            if k >= 2:
                v = 0.0 if uni.constant[j] else float(d.var)
                half = float(stats.t.ppf(0.5 + confidence / 2, k - 1)) * _weighted_mean_se(x, w, m)
                ci[name] = [numeric.unscale(m - half, e), numeric.unscale(m + half, e)]
        mean[name] = numeric.unscale(m, e)
        var[name] = numeric.unscale(v, 2 * e) if v is not None else None  # infinite (None in JSON) if too large
        sd[name] = numeric.unscale(math.sqrt(v), e) if v is not None else None
    cov, corr = _describe_matrices(pair, which, w_all)
    return {"n": n, "mean": mean, "mean_ci": ci, "sd": sd, "variance": var, "cov": cov, "corr": corr}


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
        if total <= 0:
            return empty, [row[:] for row in empty]
        ww = ww * (comp.n / total)  # rescaled to sum to the number of complete cases
        mean = np.zeros(p)
        used = 0
        for _, block in _blocks(pair, which, comp.rows):
            mean += np.einsum('i,ij->j', ww[used : used + block.shape[0]], block)
            used += block.shape[0]
        mean /= comp.n
        cov_s = _gram(_blocks(pair, which, comp.rows), mean, ww) / (comp.n - 1)  # of the scaled variables
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

    With survey weights (``pair.weights(which)`` not None and ``weighted``)
    the mean and variance are statsmodels ``DescrStatsW``'s, with the weights
    rescaled to sum to the number of values so that they reweight the records
    without inflating the sample size: ``x̄_w = Σ w_i x_i / Σ w_i``,
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
        "orig": {"n", "mean", "mean_ci", "sd", "variance", "cov", "corr"},
        "prot": {...}}``; per-variable entries are dicts keyed by variable,
        ``cov`` and ``corr`` lists of rows in ``variables`` order.

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
    use = weighted and any(pair.weights(w) is not None for w in (ORIGINAL, PROTECTED))
    return {
        "variables": list(names),
        "weighted": bool(use),
        "confidence": float(confidence),
        "orig": _describe_file(pair, ORIGINAL, confidence, use),
        "prot": _describe_file(pair, PROTECTED, confidence, use),
    }
