"""The moments family's cached statistics of one file (used by :mod:`infoloss.measures.moments`).

Per-variable counts, means and variances over each variable's available
values (:func:`_univariate`), the covariance and correlation matrices over a
file's complete cases (:func:`_complete`), the correlation matrix's principal
components (:func:`_pca`) and sdcMicro's pairwise-complete standardised
covariance (:func:`_standardised_cov`), each computed once per pair and file
(cached on the pair), block by block over the rows and on variables scaled by
exact powers of two (see :mod:`infoloss.numeric`); plus the reasons a matrix
is singular or a comparison needs two variables.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .. import limits, numeric
from ..errors import NotComputed
from ..pair import ORIGINAL, PROTECTED, EncodedPair

SINGULAR_TOLERANCE = numeric.SINGULAR_TOLERANCE  # smallest/largest eigenvalue at or below this: singular
_CHUNK = 1 << 16  # rows per block in the covariance products
_FILE = {ORIGINAL: "original", PROTECTED: "protected"}


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


def _file_cached(pair: EncodedPair, which: str, key: tuple, compute: Callable[[], Any]) -> Any:
    """``pair.cached((*key, which), compute)``; the original file's result is shared by the scenarios of one
    ``compare`` while they hold the same original columns and weights (:meth:`EncodedPair.cached_original_arrays`).
    """
    if which != ORIGINAL:
        return pair.cached((*key, which), compute)
    arrays = [_column(pair, name, ORIGINAL) for name in pair.continuous_names]
    w = pair.weights(ORIGINAL)
    shared = (*key, tuple(pair.continuous_names), w is not None)
    return pair.cached(
        (*key, which), lambda: pair.cached_original_arrays(shared, arrays + ([w] if w is not None else []), compute)
    )


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

    return _file_cached(pair, which, ("moments", "univariate"), compute)


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


def _rows_of(block: np.ndarray, ok: np.ndarray, buf: np.ndarray) -> np.ndarray:
    """The rows ``ok`` of the column-major ``block``, copied column by column into ``buf``: column-major too.

    ``block[ok]`` would be row-major, and numpy reduces a row-major (k, p)
    array along its rows several times slower than a column-major one (the
    minima and maxima of 200,000 × 8 complete cases: 10 against 0.2 ms).
    """
    out = buf[: int(np.count_nonzero(ok))]
    for j in range(block.shape[1]):
        np.compress(ok, block[:, j], out=out[:, j])
    return out


def _row_sums(b: np.ndarray) -> np.ndarray:
    """``b.sum(axis=0)`` of the column-major (k, p) ``b`` with the bits of a row-major copy's sum; ``b`` is
    overwritten (with its running sums).

    numpy adds the rows of a row-major array one after the other, but sums a
    contiguous column pairwise, which rounds differently; the last row of the
    running sums (``cumsum``, one after the other) is the row-major sum to the
    bit, so that the complete-case means, and every measure built on them, are
    those this module gave before its blocks were column-major (the factor
    analysis of ``f_mv`` turns a last-bit change of a mean into 1e-11).
    ``tests/test_moments.py`` compares the two.  A single column is one
    contiguous array either way, summed pairwise.
    """
    if b.shape[1] == 1 or b.shape[0] == 0:
        return b.sum(axis=0)
    return np.cumsum(b, axis=0, out=b)[-1].copy()


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
            kept = np.empty((min(_CHUNK, pair.n(which)), p), order="F")
            for start, block in _blocks(pair, which):
                ok = ~np.isnan(block).any(axis=1)
                rows[start : start + block.shape[0]] = ok
                if ok.any():
                    b = _rows_of(block, ok, kept)
                    lo, hi = np.minimum(lo, b.min(axis=0)), np.maximum(hi, b.max(axis=0))
                    total += _row_sums(b)  # overwrites b
            n = int(np.count_nonzero(rows))
            constant = lo == hi
            # a constant column's mean is its value exactly (total/n of 0.1 is not), so its covariances are exactly 0
            mean = np.where(constant, lo, total / max(n, 1))
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

    return _file_cached(pair, which, ("moments", "complete"), compute)


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

    out = _file_cached(pair, which, ("moments", "standardised_cov"), compute)
    if isinstance(out, str):
        raise NotComputed(out)
    return out


def _both_files(compute: Callable[[str], Any]) -> tuple[Any, Any]:
    """``(compute(ORIGINAL), compute(PROTECTED))``, the two files in two threads.

    The per-file passes are numpy work that releases the GIL; BLAS is held to
    one thread meanwhile (``threadpoolctl``), so no thread pool is stacked on a
    multi-threaded BLAS.  Matrix products split their output between BLAS
    threads (the same numbers), but a long dot product (statsmodels' weighted
    mean) is summed in one piece instead of per thread: measured on
    1,000,000 × 50, the weighted statistics of the JSON move by at most
    3e-15 relative, the measures not at all.
    """
    from concurrent.futures import ThreadPoolExecutor

    from .._concurrent import thread_limits

    with thread_limits(1), ThreadPoolExecutor(max_workers=2) as pool:
        orig, prot = pool.map(compute, (ORIGINAL, PROTECTED))
    return orig, prot


def warm_files(pair: EncodedPair, *, standardised: bool = True) -> None:
    """Compute each file's cached statistics (univariate, complete-case and, with ``standardised``, the
    standardised covariance) at once, the two files in two threads; a statistic that is not computable
    raises later, where it is used."""

    def one(which: str) -> None:
        try:
            _complete(pair, which)
            if standardised:
                _standardised_cov(pair, which)
        except NotComputed:
            pass

    pair.cached(("moments", "warm_files", standardised), lambda: _both_files(one))


def _singular_reason(what: str, eig: _Eigen, names: list[str]) -> str | None:
    """None if the matrix is well conditioned; else a sentence naming the dependent variables."""
    return numeric.singular_reason(what, eig.values, eig.vectors, names)


def _join(names: list[str]) -> str:
    return ", ".join(names)


def _need_two(pair: EncodedPair, what: str) -> list[str]:
    """The continuous variables of a measure over their matrices (covariances, correlations, eigenvalues):
    NotComputed with fewer than two, or more pairs than ``limits.MAX_PAIRS``."""
    names = pair.continuous_names
    if not names:
        raise NotComputed("there is no continuous variable")
    if len(names) < 2:
        raise NotComputed(f"{what} needs at least 2 continuous variables, and there is only {names[0]}")
    limits.check_pairs(len(names), "continuous variables")
    return names
