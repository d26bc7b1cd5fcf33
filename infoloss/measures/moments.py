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

Layout: this module holds ``eigen``, ``robust_eigen`` and ``gamma`` and
registers the table measures; the cached statistics of each file are in
:mod:`infoloss.measures._moments_files`, the table's matrices and measure
factory in :mod:`infoloss.measures._moments_table`, and
:func:`continuous_statistics` in :mod:`infoloss.measures._moments_describe`
(every public name is importable from here).

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
  original value is zero are left out of the sum *and* of the count (of the
  sum of the weights ``w_j`` for RF and F), and the
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

import numpy as np

from .. import numeric
from ..errors import InputError, NotComputed
from ..pair import ORIGINAL, PROTECTED, EncodedPair
from ..registry import MAX_SEED, MeasureResult, Option, measure
from ._moments_describe import continuous_statistics
from ._moments_files import SINGULAR_TOLERANCE as SINGULAR_TOLERANCE  # a public constant of this module
from ._moments_files import (
    _FILE,
    _column,
    _complete,
    _correlation,
    _Eigen,
    _eigh,
    _join,
    _need_two,
    _pca,
    _singular_reason,
    _standardised_cov,
    warm_files,
)
from ._moments_table import BOUND as BOUND, ZERO_TOLERANCE as ZERO_TOLERANCE  # public names of this module
from ._moments_table import _MATRICES, _STATS, _make

#: robust_eigen's default number of seeds: one, as sdcMicro's robeigen (each seed is two MCD fits, 1.3 s each at
#: 50 variables: two seeds took the 1,000,000 x 50 comparison of three scenarios from 41.5 s to 45.4 s)
MCD_SEEDS = 1
ROBUST_OPTIONS = (
    Option("max_records", "int", 2000, "records per file in the seeded sample the MCD covariance is computed on", low=3),
    Option("random_state", "int", 0, "seed of the sample and of the MCD algorithm (the first seed)", low=0,
           high=MAX_SEED),
    Option("seeds", "int", MCD_SEEDS, "number of seeds (sample and MCD) the value is averaged over", low=1, high=100),
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

MCD_MAX_RECORDS = 2_000  # robust_eigen: records sampled per file (MCD cost grows fast with n and p)
MCD_RANDOM_STATE = 0


# ---------------------------------------------------------------------------
# eigenvalues
# ---------------------------------------------------------------------------
def _eigen_ratio(e_orig: np.ndarray, e_prot: np.ndarray) -> float:
    return float(np.sum(np.abs(e_orig - e_prot) / e_orig))


@measure(
    "eigen",
    shares_cores=True,
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
    warm_files(pair)
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


def _mcd_fit(pair: EncodedPair, which: str, max_records: int, random_state: int) -> _Eigen | str:
    """One file's MCD eigen-decomposition, or the reason it cannot be computed."""
    from .._concurrent import import_alone

    MinCovDet = import_alone("sklearn.covariance").MinCovDet
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
    try:
        cov = MinCovDet(random_state=random_state).fit(z).covariance_
    except (ValueError, np.linalg.LinAlgError) as exc:
        return f"the robust (MCD) covariance of the {label} file could not be computed ({exc})"
    result = _eigh((cov + cov.T) / 2)
    result.n = x.shape[0]  # type: ignore[attr-defined]
    result.n_complete = n_complete  # type: ignore[attr-defined]
    return result


def _mcd_fits(pair: EncodedPair, max_records: int, random_state: int) -> dict[str, _Eigen]:
    """Both files' MCD fits; raises NotComputed with the first file's reason.

    The fits run single-threaded BLAS: the MCD's thousands of small products
    are several times faster without thread start-ups (and, bound by the
    interpreter, the two fits are no faster on two threads).  The original's
    fit depends on its own values only, so the scenarios of one ``compare``
    share it (:meth:`EncodedPair.cached_original_arrays`).
    """
    from .._concurrent import recorded_warnings, thread_limits

    key = ("moments", "mcd", max_records, random_state, tuple(pair.continuous_names))
    columns = [_column(pair, name, ORIGINAL) for name in pair.continuous_names]

    def fit(which: str) -> _Eigen | str:
        def compute() -> _Eigen | str:
            return _mcd_fit(pair, which, max_records, random_state)

        if which == ORIGINAL:
            return pair.cached_original_arrays(key, columns, compute)
        return pair.cached((*key, which), compute)

    with recorded_warnings(ignore=True), thread_limits(1):
        fits = {}
        for which in (ORIGINAL, PROTECTED):
            fits[which] = fit(which)
            if isinstance(fits[which], str):
                raise NotComputed(fits[which])
    return fits


@measure(
    "robust_eigen",
    shares_cores=True,
    family="moments",
    description="eigen with a robust (MCD) covariance of the standardised variables, on a seeded sample",
    range=(0, None),
    better="lower",
    needs_pairing=False,
    options=ROBUST_OPTIONS,
)
def robust_eigen(
    pair: EncodedPair, *, max_records: int = MCD_MAX_RECORDS, random_state: int = MCD_RANDOM_STATE,
    seeds: int = MCD_SEEDS,
) -> MeasureResult:
    r"""Relative change of the robust eigenvalues (sdcMicro ``robeigen``).

    .. math::

        \mathrm{robust\_eigen} = \sum_{k=1}^{p} \frac{|e_k - e'_k|}{e_k}

    with ``e_k`` (decreasing) the eigenvalues of the minimum covariance
    determinant (MCD) covariance of the standardised continuous variables of
    the original file and ``e'_k`` those of the protected file
    (scikit-learn ``MinCovDet``: the raw MCD, reweighted, with a median-based
    consistency correction).  sdcMicro uses robustbase's ``covMcd``, which
    also multiplies by small-sample correction factors (Pison, Van Aelst and
    Willems 2002) before reweighting, so it keeps more records on small
    files: both find the same MCD subset, but on a file of a few dozen
    records the value can differ several-fold from sdcMicro's (francdat, 8
    records: 328.6 here, 1109.0 in sdcMicro); the two approach each other as
    the number of records grows.

    Each file's complete cases are used (records with every continuous
    variable present).  The MCD's cost grows quickly with the number of
    records and variables, so a file with more than ``max_records``
    complete records is fitted on a seeded random sample of ``max_records``
    of them; the sample order depends only on the number of records and
    ``random_state``, so paired files are sampled on the same records.  The
    sample is standardised with its own means and standard deviations (as
    sdcMicro's ``scale``), and ``MinCovDet`` uses the same ``random_state``.
    Like sdcMicro's value (which depends on R's random seed), the result
    depends on the seed and the sample, sometimes much (testdata against a
    PRAMmed version: 0.028 to 0.204 over five seeds).  The value is the
    mean over ``seeds`` seeds (``random_state``, ``random_state + 1``, ...),
    and ``details["seeds"]`` gives each seed's value and their spread.  The
    default is one seed, as sdcMicro fits once: each seed costs two MCD fits
    (1.3 s each at 50 variables), and a second one by default took the
    1,000,000 × 50 comparison of three scenarios past its 45 s budget;
    ``seeds=5`` shows how much the value moves.

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
        The first seed of the sample and of ``MinCovDet``.
    seeds : int
        Number of seeds the value is the mean of (default 1).

    Returns
    -------
    MeasureResult
        ``value``: the mean over the seeds; ``details``: ``seeds`` (mean,
        sd, min, max, each seed's value), the first seed's eigenvalues,
        ``n_fitted`` and ``n_complete`` per file, ``sampled`` (true when a
        sample was drawn), ``max_records``, ``random_state``.

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
    warm_files(pair, standardised=False)  # the complete cases the samples are drawn from
    from ._mining_data import seeds as seed_range, spread

    seed_list = seed_range(random_state, seeds)
    values = []
    for seed in seed_list:
        seeded = _mcd_fits(pair, int(max_records), seed)
        reason = _singular_reason("original's robust (MCD) covariance matrix", seeded[ORIGINAL], names)
        if reason:
            raise NotComputed(reason + ", so the eigenvalue ratios are undefined")
        values.append(_eigen_ratio(seeded[ORIGINAL].values, seeded[PROTECTED].values))
        if seed == seed_list[0]:
            fits = seeded
    e1, e2 = fits[ORIGINAL].values, fits[PROTECTED].values
    by_seed = spread(values, seed_list)
    return MeasureResult(
        value=by_seed["mean"],
        details={
            "seeds": by_seed,
            "eigenvalues_original": e1.tolist(),
            "eigenvalues_protected": e2.tolist(),
            "n_fitted": {_FILE[w]: f.n for w, f in fits.items()},  # type: ignore[attr-defined]
            "n_complete": {_FILE[w]: f.n_complete for w, f in fits.items()},  # type: ignore[attr-defined]
            "sampled": any(f.n < f.n_complete for f in fits.values()),  # type: ignore[attr-defined]
            "max_records": int(max_records),
            "random_state": int(random_state),
            "note": f"MCD (scikit-learn MinCovDet) fitted on a seeded random sample of at most {int(max_records)} "
            "complete records per file, standardised with the sample's own means and sds",
            "convention": "scikit-learn's consistency correction, without robustbase covMcd's small-sample factors "
            "(sdcMicro's robeigen): small files can differ much from sdcMicro",
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
    shares_cores=True,
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
# the Domingo-Ferrer, Mateo-Sanz & Torra table (built in _moments_table,
# registered here after gamma)
# ---------------------------------------------------------------------------
for _m in _MATRICES:
    for _stat in _STATS:
        globals()[f"{_m.id}_{_stat}"] = _make(_m, _stat)
del _m, _stat
