"""Distribution measures: Kolmogorov–Smirnov and the multivariate ECDF measures of Woo et al.

Every measure here compares the two files as samples; none needs the record
pairing, and the files may have different numbers of records.

Conventions (where the literature leaves a choice):

* **ks** drops missing values per variable and file (a variable missing in
  every record of the protected file is left out, with the reason in
  ``details["not_computed"]``).  Its value is the *mean* of the per-variable
  statistics (``details["max"]`` gives the largest).
* **ecdf_max / ecdf_mean** use the continuous and the *ordinal* variables
  (ordinal ones by their category order); nominal codes have no order, so a
  componentwise "≤" is meaningless for them and they are left out
  (``details["variables"]`` lists what was used).  A missing value is ordered
  above every value (``missing="largest"``, the default): a record with a
  missing value is counted below a point only where that point is missing
  too, so suppressions change the distribution, as they do in the table
  measures where missing is a category of its own.  ``missing="complete"``
  uses complete records only.  The exact measure costs O(N²·p), so files of
  more than ``max_records`` records (default 2,000 per file) are replaced by
  a seeded simple random subsample of that size; ``details`` says so, and
  the value is then the mean over ``seeds`` samples (default 5; seeds
  ``seed, seed+1, …``), with their spread in ``details["seeds"]``.  The
  sample is a prefix of a seeded random permutation of the record numbers,
  which depends only on the file's size and the seed: files of equal size
  (record-paired, identical, or unpaired of equal size) are sampled at the
  same record numbers, so a file compared with itself gives exactly 0.
* **Weights.** Each measure takes ``weighted`` (``None``: use the survey
  weights when both files have them, as the table measures do).  Weighted
  ECDFs are ``F_w(x) = Σ_{x_i ≤ x} w_i / Σ w_i``.  The weighted KS p-value
  uses the limit law with Kish's effective sizes ``(Σw)²/Σw²`` (there is no
  exact weighted form); when the weights are equal within each file the
  unweighted computation is used, so equal weights give exactly the
  unweighted results.  ``details["weighted"]`` says which was used.

References
----------
Woo, M.-J., Reiter, J. P., Oganian, A. & Karr, A. F. (2009). Global measures
of data utility for microdata masked for disclosure limitation. *Journal of
Privacy and Confidentiality* 1(1), 111-124.

Kocar, S. (2018). A universal global measure of univariate and bivariate data
utility for anonymised microdata. CSRM & SRC Methods Paper 4/2018, ANU.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy import special

from .._concurrent import import_alone, recorded_warnings, thread_limits
from ..errors import NotComputed
from ..pair import ORIGINAL, PROTECTED, EncodedPair, Levels
from ..registry import MAX_SEED, MeasureResult, Option, measure
from . import _kolmogorov
from .tables import WEIGHTED, _weighting

PVALUE = Option(
    "pvalue", "choice", "auto", "auto: scipy's exact p-value where it is feasible, the limit law for very large samples; "
    "scipy: always scipy's p-value (ks_2samp; weighted: kstwo at the effective sizes)", choices=("auto", "scipy"),
)
ECDF_OPTIONS = (
    Option("missing", "choice", "largest", "missing values: the largest value of the variable, or complete records only",
           choices=("largest", "complete")),
    Option("max_records", "int", 2000, "most records of each file on which the ECDFs are compared (a seeded sample of a "
           "larger file)", low=2),
    Option("seed", "int", 0, "the first seed of the sample", low=0, high=MAX_SEED),
    Option("seeds", "int", 5, "samples (seeds) the value is averaged over when a file is sampled", low=1, high=100),
    WEIGHTED,
)

__all__ = ["ks", "ecdf_max", "ecdf_mean", "ks_2samp_fast", "ks_asymp_pvalue", "ks_weighted"]

_KS_EXACT_MAX_N = 10_000  # scipy's ks_2samp (method "auto") is exact up to this sample size
_KS_SMIRNOV_MAX_N = 20_000  # above this, scipy's O(n) Smirnov series is replaced by the limit law
_ECDF_CHUNK = 256  # evaluation points per vectorised block


# ---------------------------------------------------------------------------
# Kolmogorov–Smirnov
# ---------------------------------------------------------------------------
def ks_2samp_fast(x1: np.ndarray, x2: np.ndarray, *, pvalue: str = "auto") -> tuple[float, float, str]:
    """Two-sample KS statistic and two-sided p-value, as ``scipy.stats.ks_2samp``.

    For samples of up to 10,000 values this calls ``scipy.stats.ks_2samp``
    (default ``method="auto"``: the exact p-value).  Larger samples get the
    same statistic, computed from one merge of the two sorted samples instead
    of scipy's binary search of every value, and scipy's asymptotic p-value
    ``kstwo.sf(D, m)``, ``m = round(n1 n2 / (n1 + n2))``, as ``ks_2samp``
    computes it — except, with ``pvalue="auto"``, where scipy evaluates the
    exact one-sided Smirnov series, which costs O(m) (0.8 s per call at
    m = 500,000): when ``m > 20,000``, ``m D² ≥ 2.2`` and ``D < 0.5`` (the
    p-value is then below about 0.025) the limiting Kolmogorov distribution
    ``kstwobign.sf(D √m)`` is used instead (method ``"asymp-limit"``).  Its
    relative difference from scipy's value is below 2 % for p-values down to
    1e-10 (below 0.7 % when m ≥ 100,000), larger for even smaller p-values.

    Parameters
    ----------
    x1, x2 : ndarray
        The two samples, without missing values, each non-empty.
    pvalue : {"auto", "scipy"}
        ``"scipy"`` always gives scipy's p-value (slow for large samples).

    Returns
    -------
    statistic, pvalue, method : float, float, str
        ``method`` is ``"exact"``, ``"asymp"`` (scipy's) or ``"asymp-limit"``.

    Examples
    --------
    >>> import numpy as np
    >>> d, p, method = ks_2samp_fast(np.array([1.0, 2.0, 3.0]), np.array([2.5, 3.5]))
    >>> round(d, 4), method
    (0.6667, 'exact')
    """
    if pvalue not in ("auto", "scipy"):
        raise ValueError("pvalue must be 'auto' or 'scipy'")
    n1, n2 = int(x1.shape[0]), int(x2.shape[0])
    if max(n1, n2) <= _KS_EXACT_MAX_N:
        stats = import_alone("scipy.stats")  # only here: importing scipy.stats costs about 0.5 s of start-up
        with recorded_warnings() as caught:  # this thread's warnings only, when measures run side by side
            res = stats.ks_2samp(x1, x2)
        method = "asymp" if any("Switching to" in str(w.message) for w in caught) else "exact"
        return float(res.statistic), float(res.pvalue), method
    d = _ks_statistic(x1, x2)
    return (d, *ks_asymp_pvalue(d, n1, n2, pvalue))


def _ks_statistic(x1: np.ndarray, x2: np.ndarray) -> float:
    """scipy's two-sided KS statistic, from each sample's sorted distinct values and counts."""
    v1, c1 = np.unique(x1, return_counts=True)
    v2, c2 = np.unique(x2, return_counts=True)
    return ks_levels_statistic(v1, c1, v2, c2)


def ks_levels_statistic(v1: np.ndarray, c1: np.ndarray, v2: np.ndarray, c2: np.ndarray) -> float:
    r"""Two-sided KS statistic from two sorted sets of distinct values and their counts (or summed weights).

    :math:`D = \sup_x |F_1(x) - F_2(x)|` with :math:`F_k` the cumulative
    counts (weights) over their total, evaluated at every distinct value of
    either sample.  The two sorted value sets are merged by one stable
    ``argsort`` of their concatenation (numpy's timsort merges the two sorted
    runs in one pass: about 20 % faster on 1,000,000 values than two binary
    searches), and the counts are summed in that order, the other sample's
    as zeros: the same partial sums as each sample's own.  With integer
    counts the expressions are scipy's (``searchsorted`` counts / n), so
    ``D`` equals ``scipy.stats.ks_2samp(x1, x2).statistic`` exactly.

    >>> round(ks_levels_statistic(np.array([1.0, 2, 3]), np.array([1, 1, 1]), np.array([2.5, 3.5]), np.array([1, 1])), 4)
    0.6667
    """
    values = np.concatenate([v1, v2])
    order = np.argsort(values, kind="stable")
    merged = values[order]
    last = np.empty(merged.shape[0], dtype=bool)  # the last entry of each distinct value: F_1 and F_2 there
    np.not_equal(merged[1:], merged[:-1], out=last[:-1])
    last[-1:] = True
    cum1 = np.cumsum(np.concatenate([c1, np.zeros_like(c2)])[order])
    cum2 = np.cumsum(np.concatenate([np.zeros_like(c1), c2])[order])
    t1, t2 = cum1[-1], cum2[-1]
    diff = cum1[last] / t1 - cum2[last] / t2
    max_s = float(diff.max())
    min_s = float(np.clip(-diff.min(), 0, 1))
    return min_s if min_s > max_s else max_s


def _level_counts(lv: Levels, w: np.ndarray | None, weighted: bool) -> np.ndarray:
    """Records (``weighted``: summed weights) per level; records of weight 0 count for nothing."""
    if w is None or (not weighted and bool((w > 0).all())):
        return lv.counts
    ok = lv.codes >= 0
    if weighted:
        return np.bincount(lv.codes[ok], weights=w[ok], minlength=lv.counts.shape[0])
    return np.bincount(lv.codes[ok & (w > 0)], minlength=lv.counts.shape[0])


def ks_asymp_pvalue(d: float, n1: int, n2: int, pvalue: str = "auto") -> tuple[float, str]:
    """scipy's asymptotic two-sample KS p-value, with the limit law for very large samples (see ks_2samp_fast)."""
    m, n = sorted([float(n1), float(n2)], reverse=True)
    return kstwo_sf(d, float(np.round(m * n / (m + n))), pvalue)


def kstwo_sf(d: float, n: float, pvalue: str = "auto") -> tuple[float, str]:
    """``scipy.stats.kstwo.sf(d, n)``, or the limit law where scipy's series costs O(n) and the p-value is small.

    scipy evaluates the exact one-sided Smirnov series where ``n d² ≥ 2.2``:
    about 1.2 s per call at n = 1,000,000 (0.1 s at 100,000).  With
    ``pvalue="auto"``, when ``n > 20,000``, ``n d² ≥ 2.2`` and ``d < 0.5``
    (the p-value is then below about 0.025) the limiting Kolmogorov
    distribution ``kstwobign.sf(d √n)`` is used instead (method
    ``"asymp-limit"``), within 2 % of scipy's value for p-values down to 1e-10
    (0.7 % when n ≥ 100,000); otherwise scipy's value (method ``"asymp"``,
    computed as scipy computes it without importing scipy.stats where that can
    be done: :mod:`infoloss.measures._kolmogorov`).

    >>> kstwo_sf(0.01, 100)[1], kstwo_sf(0.003, 1_000_000)[1]
    ('asymp', 'asymp-limit')
    """
    if pvalue == "auto" and n > _KS_SMIRNOV_MAX_N and n * d * d >= 2.2 and d < 0.5:
        # kstwobign.sf(x) is scipy.special.kolmogorov(x), which scipy.stats calls
        return float(np.clip(special.kolmogorov(d * np.sqrt(n)), 0, 1)), "asymp-limit"
    return float(np.clip(_kolmogorov.kstwo_sf(d, n), 0, 1)), "asymp"  # scipy's kstwo.sf, without scipy.stats


def ks_weighted(x1: np.ndarray, w1: np.ndarray, x2: np.ndarray, w2: np.ndarray, *,
                pvalue: str = "auto") -> tuple[float, float, str]:
    r"""Two-sample KS statistic of weighted ECDFs and its p-value from Kish's effective sizes.

    .. math::

        D_w = \sup_x |F_{w,1}(x) - F_{w,2}(x)|,\qquad
        F_w(x) = \frac{\sum_{x_i \le x} w_i}{\sum_i w_i},\qquad
        n_{eff} = \frac{(\sum_i w_i)^2}{\sum_i w_i^2}

    The p-value is scipy's asymptotic one (``kstwo``) at the effective sizes
    (:func:`ks_asymp_pvalue`; with ``pvalue="auto"``, beyond 20,000 effective
    records and below about 0.025 the limiting Kolmogorov law, method
    ``"asymp-limit-effective-n"``); no exact weighted distribution exists.
    Equal weights within each file give ``scipy.stats.ks_2samp`` exactly (the
    unweighted computation is used, with the same ``pvalue``).

    >>> d, p, m = ks_weighted(np.array([1.0, 2, 3]), np.array([1.0, 1, 2]), np.array([2.5, 3.5]), np.ones(2))
    >>> round(d, 4), m
    (0.5, 'asymp-effective-n')
    """
    if _constant(w1) and _constant(w2):
        return ks_2samp_fast(x1, x2, pvalue=pvalue)
    v1, i1 = np.unique(x1, return_inverse=True)
    v2, i2 = np.unique(x2, return_inverse=True)
    c1 = np.bincount(i1.reshape(-1), weights=w1, minlength=v1.shape[0])
    c2 = np.bincount(i2.reshape(-1), weights=w2, minlength=v2.shape[0])
    return _weighted_ks_result(ks_levels_statistic(v1, c1, v2, c2), _kish(w1), _kish(w2), pvalue)


def _weighted_ks_result(d: float, e1: float, e2: float, pvalue: str) -> tuple[float, float, str]:
    """The weighted statistic clipped to [0, 1] and its p-value at Kish's effective sizes ``e1``, ``e2``."""
    d = float(np.clip(d, 0.0, 1.0))
    p, method = ks_asymp_pvalue(d, e1, e2, pvalue)
    return d, p, method + "-effective-n"


class _FileWeights:
    """One file's weights and what every variable without missing values shares (computed once per file).

    Weights are never negative (``encode_pair`` refuses them), so records of
    weight 0 add exactly 0.0 to a weighted count: a per-level sum over every
    record equals the sum over the positive-weight records bit for bit.
    """

    def __init__(self, w: np.ndarray) -> None:
        self.w = w
        self.pos = w > 0
        self.all_pos = bool(self.pos.all())
        self._full: tuple[bool, float] | None = None

    def valid(self, x: np.ndarray) -> tuple[np.ndarray | None, int]:
        """The mask of usable records (value present, positive weight), None when that is every record."""
        ok = ~np.isnan(x)
        if not self.all_pos:
            ok &= self.pos
        n = int(np.count_nonzero(ok))
        return (None if n == x.shape[0] else ok), n

    def take(self, x: np.ndarray, ok: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        return (x, self.w) if ok is None else (x[ok], self.w[ok])

    def constant_and_kish(self, ok: np.ndarray | None) -> tuple[bool, float]:
        """Whether the usable weights are all equal, and Kish's effective size of them."""
        if ok is not None:
            w = self.w[ok]
            return _constant(w), _kish(w)
        if self._full is None:
            self._full = (_constant(self.w), _kish(self.w))
        return self._full

    def level_counts(self, lv: Levels, ok: np.ndarray | None, weighted: bool) -> np.ndarray:
        """:func:`_level_counts` without copying the usable records out (the same numbers)."""
        if not weighted:
            return _level_counts(lv, self.w, False)
        if ok is None:  # every record usable: no missing code
            return np.bincount(lv.codes, weights=self.w, minlength=lv.counts.shape[0])
        w = self.w if self.all_pos else np.where(self.pos, self.w, 0.0)
        return np.bincount(lv.codes + 1, weights=w, minlength=lv.counts.shape[0] + 1)[1:]


def _kish(w: np.ndarray) -> float:
    """Kish's effective sample size (sum w)^2 / sum w^2."""
    return float(w.sum()) ** 2 / float(np.dot(w, w))


def _ks_weighted_levels(pair: EncodedPair, name: str, files: dict, masks: tuple, sizes: tuple, pvalue: str) -> tuple:
    """:func:`ks_weighted` of one variable from the pair's shared sorted levels (the same statistic, no sort)."""
    lv1, lv2 = pair.levels(name, ORIGINAL), pair.levels(name, PROTECTED)
    f1, f2 = files[ORIGINAL], files[PROTECTED]
    (c1, e1), (c2, e2) = f1.constant_and_kish(masks[0]), f2.constant_and_kish(masks[1])
    if c1 and c2:
        d = ks_levels_statistic(lv1.values, f1.level_counts(lv1, masks[0], False),
                                lv2.values, f2.level_counts(lv2, masks[1], False))
        return (d, *ks_asymp_pvalue(d, sizes[0], sizes[1], pvalue))
    return _weighted_ks_result(weighted_levels_ks(pair, name), e1, e2, pvalue)


def weighted_levels_ks(pair: EncodedPair, name: str) -> float:
    """The weighted-ECDF KS statistic (unclipped) of a continuous variable from the pair's sorted levels.

    Computed once per pair and variable: the GDU model's weighted univariate
    test uses the same statistic.  Weights are never negative, so records of
    weight 0 add exactly 0.0 to their level's sum, and missing values (code
    -1) fall in a level of their own that is dropped: no copy of the usable
    records is made.
    """
    def level_sums(lv: Levels, w: np.ndarray) -> np.ndarray:
        if int(lv.counts.sum()) == lv.codes.shape[0]:  # nothing missing: no shifted copy of the codes
            return np.bincount(lv.codes, weights=w, minlength=lv.counts.shape[0])
        return np.bincount(lv.codes + 1, weights=w, minlength=lv.counts.shape[0] + 1)[1:]

    def compute() -> float:
        lv1, lv2 = pair.levels(name, ORIGINAL), pair.levels(name, PROTECTED)
        w1 = pair.weights(ORIGINAL)
        # the original's sums are the same for every scenario of one compare (its levels and weights are)
        c1 = pair.cached_original_arrays(("weighted-level-sums", name), [lv1.codes, w1], lambda: level_sums(lv1, w1))
        c2 = level_sums(lv2, pair.weights(PROTECTED))
        return ks_levels_statistic(lv1.values, c1, lv2.values, c2)

    return pair.cached(("weighted_levels_ks", name), compute)


def levels_ks(pair: EncodedPair, name: str) -> float:
    """scipy's two-sample KS statistic of a continuous variable from the pair's sorted levels (every non-missing
    value counts once).

    Computed once per pair and variable: the GDU model's univariate test
    (unweighted) uses the same statistic, as its weighted test uses
    :func:`weighted_levels_ks`.
    """
    def compute() -> float:
        lv1, lv2 = pair.levels(name, ORIGINAL), pair.levels(name, PROTECTED)
        return ks_levels_statistic(lv1.values, lv1.counts, lv2.values, lv2.counts)

    return pair.cached(("levels_ks", name), compute)


def _large_on_two_threads(jobs: list[tuple], large: set[str], on_levels: Callable[[tuple], tuple],
                          small: Callable[[tuple], tuple]) -> list[tuple]:
    """``on_levels`` of the variables in ``large`` on two threads, ``small`` of the others here; in ``jobs``' order.

    The merges of the shared sorted levels are numpy calls that release the
    GIL, so two of them run at once (30 variables of 1,000,000 records:
    1.5 s → 0.9 s).  The small samples go to ``scipy.stats.ks_2samp`` on
    the calling thread: the warnings it raises are recorded there
    (``recorded_warnings``), which a pool thread could not do safely.
    """
    big = [job for job in jobs if job[0] in large]
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = dict(zip((job[0] for job in big), pool.map(on_levels, big)))
    return [done[job[0]] if job[0] in done else small(job) for job in jobs]


def _constant(w: np.ndarray) -> bool:
    return w.shape[0] == 0 or bool(w.min() == w.max())


def _valid(x: np.ndarray) -> np.ndarray:
    ok = ~np.isnan(x)
    return x if ok.all() else x[ok]


@measure(
    "ks",
    family="distributions",
    description="two-sample Kolmogorov–Smirnov statistic per continuous variable (mean over variables)",
    range=(0, 1),
    better="lower",
    needs_pairing=False,
    headline=True,
    options=(PVALUE, WEIGHTED),
)
def ks(pair: EncodedPair, *, pvalue: str = "auto", weighted: bool | None = None) -> MeasureResult:
    r"""Two-sample Kolmogorov–Smirnov statistic of each continuous variable.

    .. math::

        D_j = \sup_x \left| \hat F_{O,j}(x) - \hat F_{M,j}(x) \right|

    where :math:`\hat F_{O,j}` and :math:`\hat F_{M,j}` are the empirical
    distribution functions of variable ``j`` in the original and the
    protected file, each over its non-missing values.  ``by_variable`` holds
    :math:`D_j`, ``details["pvalue"]`` the two-sided p-values, both equal to
    ``scipy.stats.ks_2samp`` with its default method (exact p-value up to
    10,000 values per file, asymptotic beyond).  The value is the mean of
    :math:`D_j` over the variables (``details["max"]`` is the largest).
    For more than 10,000 values per file, small p-values (below about 0.025)
    come from the limiting Kolmogorov distribution unless
    ``pvalue="scipy"``; ``details["method"]`` says which per variable.

    Missing values are dropped per file; a variable missing in every record
    of the protected file is left out (``details["not_computed"]``); one
    missing in every record of the original is refused when the files are
    read (docs/errors.md).

    Parameters
    ----------
    pair : EncodedPair
        Original and protected file (paired or not, any sizes).
    pvalue : {"auto", "scipy"}
        For files of more than 10,000 values, ``"auto"`` replaces scipy's
        slow O(n) evaluation of small asymptotic p-values (below about
        0.025, when n1 n2 / (n1 + n2) > 20,000) by the limiting Kolmogorov
        distribution; ``"scipy"`` keeps
        scipy's value.  See :func:`ks_2samp_fast`.  The statistic is always
        scipy's.
    weighted : bool, optional
        Compare the weighted ECDFs (:func:`ks_weighted`; records of weight 0
        are left out).  Default: when both files have weights.

    Returns
    -------
    MeasureResult
        value (mean statistic), by_variable, details: ``pvalue``, ``method``,
        ``n_orig``/``n_prot`` (non-missing values), ``max``.

    References
    ----------
    Kocar, S. (2018). A universal global measure of univariate and bivariate
    data utility for anonymised microdata. CSRM & SRC Methods Paper 4/2018.

    Woo, M.-J., Reiter, J. P., Oganian, A. & Karr, A. F. (2009). Global
    measures of data utility for microdata masked for disclosure limitation.
    *Journal of Privacy and Confidentiality* 1(1), 111-124.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.distributions import ks
    >>> orig = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    >>> prot = pd.DataFrame({"x": [2.5, 3.5, 4.5]})
    >>> spec = {"variables": {"x": {"scale": "continuous"}}, "pairing": "none"}
    >>> ks(orig, prot, spec).value     # at x = 2: 2/4 - 0/3
    0.5
    """
    names = pair.continuous_names
    if not names:
        raise NotComputed("there are no continuous variables")
    use_w, wdetails = _weighting(pair, weighted, "ks")
    if use_w:
        return _ks_weighted_result(pair, names, wdetails, pvalue)
    jobs: list[tuple[str, np.ndarray, np.ndarray]] = []
    skipped: dict[str, str] = {}
    for name in names:
        col = pair.continuous[name]
        x1, x2 = _valid(col.orig), _valid(col.prot)
        if x1.shape[0] == 0 or x2.shape[0] == 0:
            which = "original" if x1.shape[0] == 0 else "protected"
            skipped[name] = f"it is missing in every record of the {which} file"
            continue
        jobs.append((name, x1, x2))
    if not jobs:
        raise NotComputed("every continuous variable is missing in every record of one of the files")
    large = [name for name, x1, x2 in jobs if max(x1.shape[0], x2.shape[0]) > _KS_EXACT_MAX_N]
    pair.warm_levels(large)  # the pair's sorted levels, shared with the GDU model

    def from_levels(job: tuple) -> tuple:  # scipy's statistic from the shared sorted levels, no sort here
        name, x1, x2 = job
        d = levels_ks(pair, name)
        return (d, *ks_asymp_pvalue(d, x1.shape[0], x2.shape[0], pvalue))

    results = _large_on_two_threads(jobs, set(large), from_levels,
                                    lambda job: ks_2samp_fast(job[1], job[2], pvalue=pvalue))
    by_variable = {name: d for (name, _, _), (d, _, _) in zip(jobs, results)}
    details: dict = {
        "pvalue": {name: p for (name, _, _), (_, p, _) in zip(jobs, results)},
        "method": {name: m for (name, _, _), (_, _, m) in zip(jobs, results)},
        "n_orig": {name: int(x1.shape[0]) for name, x1, _ in jobs},
        "n_prot": {name: int(x2.shape[0]) for name, _, x2 in jobs},
        "max": max(by_variable.values()),
        "aggregate": "mean of the per-variable statistics",
        "missing": "dropped per variable and file",
    }
    if skipped:
        details["not_computed"] = skipped
    details.update(wdetails)
    return MeasureResult(value=float(np.mean(list(by_variable.values()))), by_variable=by_variable, details=details)


def _ks_weighted_result(pair: EncodedPair, names: list[str], wdetails: dict, pvalue: str) -> MeasureResult:
    files = {which: _FileWeights(pair.weights(which)) for which in (ORIGINAL, PROTECTED)}
    by_variable, pvalues, methods, n_o, n_p, skipped = {}, {}, {}, {}, {}, {}
    jobs = []
    for name in names:
        col = pair.continuous[name]
        (ok1, n1), (ok2, n2) = files[ORIGINAL].valid(col.orig), files[PROTECTED].valid(col.prot)
        if n1 == 0 or n2 == 0:
            which = "original" if n1 == 0 else "protected"
            skipped[name] = f"it has no value of positive weight in the {which} file"
            continue
        jobs.append((name, (ok1, ok2), (n1, n2)))
        n_o[name], n_p[name] = n1, n2
    large = [name for name, _, sizes in jobs if max(sizes) > _KS_EXACT_MAX_N]
    pair.warm_levels(large)  # the pair's sorted levels, shared with the GDU model

    def from_levels(job: tuple) -> tuple:
        name, masks, sizes = job
        return _ks_weighted_levels(pair, name, files, masks, sizes, pvalue)

    def small(job: tuple) -> tuple:
        name, masks, _ = job
        return ks_weighted(*files[ORIGINAL].take(pair.continuous[name].orig, masks[0]),
                           *files[PROTECTED].take(pair.continuous[name].prot, masks[1]), pvalue=pvalue)

    results = _large_on_two_threads(jobs, set(large), from_levels, small)
    for (name, *_), (d, p, m) in zip(jobs, results):
        by_variable[name], pvalues[name], methods[name] = d, p, m
    if not by_variable:
        raise NotComputed("every continuous variable lacks values of positive weight in one of the files")
    details: dict = {
        "pvalue": pvalues,
        "method": methods,
        "n_orig": n_o,
        "n_prot": n_p,
        "max": max(by_variable.values()),
        "aggregate": "mean of the per-variable statistics",
        "missing": "dropped per variable and file (and records of weight 0)",
        "ecdf": "weighted: F(x) = sum of the weights of the values <= x over the total weight",
        "pvalue_note": "scipy's asymptotic p-value (kstwo) at Kish's effective sizes (sum w)^2 / sum w^2 (with "
        "pvalue='auto', the limiting Kolmogorov law beyond 20,000 effective records and below about 0.025: "
        "method asymp-limit-effective-n); equal weights within each file: the unweighted p-value",
        **wdetails,
    }
    if skipped:
        details["not_computed"] = skipped
    return MeasureResult(value=float(np.mean(list(by_variable.values()))), by_variable=by_variable, details=details)


# ---------------------------------------------------------------------------
# multivariate ECDF (Woo et al. 2009)
# ---------------------------------------------------------------------------
def _ecdf_column(pair: EncodedPair, which: str, name: str, idx: np.ndarray | None = None) -> np.ndarray:
    """A continuous variable's values or an ordinal variable's codes as floats, NaN for missing.

    ``idx`` selects records (None: all).
    """
    if name in pair.continuous:
        return _take(pair.continuous[name].values(which), idx)
    codes = _take(pair.categorical[name].codes(which), idx)
    return np.where(codes < 0, np.nan, codes.astype(float))


def _sample(n: int, size: int, seed: int, eligible: np.ndarray | None = None) -> np.ndarray | None:
    """Sorted record numbers of a simple random sample of ``size`` of the eligible records; None for all.

    The sample is the first ``size`` eligible records of a seeded random
    permutation of ``0..n-1``, which depends only on ``n`` and ``seed``: two
    files of the same size (record-paired, identical, or unpaired of equal
    size) are sampled at the same record numbers, so a file against itself
    loses nothing.
    """
    n_eligible = n if eligible is None else eligible.shape[0]
    if n_eligible <= size:
        return eligible
    order = np.random.default_rng(seed).permutation(n)
    if eligible is not None:
        mask = np.zeros(n, dtype=bool)
        mask[eligible] = True
        order = order[mask[order]]
    return np.sort(order[:size])


def _ecdf_diffs(
    pair: EncodedPair, missing: str, max_records: int, seed: int, use_w: bool = False
) -> tuple[np.ndarray, dict]:
    """F_O(z) - F_M(z) at every point z of the (subsampled) merged file, and details."""
    if missing not in ("largest", "complete"):
        raise ValueError("missing must be 'largest' or 'complete'")
    if int(max_records) < 1:
        raise ValueError("max_records must be at least 1")
    names = pair.names(("continuous", "ordinal"))
    nominal = pair.names("nominal")
    if not names:
        raise NotComputed("there are no continuous or ordinal variables (nominal codes have no order)")
    details: dict = {"variables": list(names), "missing": missing}
    if nominal:
        details["left_out"] = {n: "nominal: its codes have no order" for n in nominal}
    rows = {ORIGINAL: None, PROTECTED: None}  # records eligible (None: all)
    if missing == "complete":
        empty = {}
        for name in names:
            for which, label in ((ORIGINAL, "original"), (PROTECTED, "protected")):
                if np.isnan(_ecdf_column(pair, which, name)).all():
                    empty.setdefault(name, f"missing in every record of the {label} file")
        if empty:
            details["not_computed"] = empty
            names = [n for n in names if n not in empty]
            if not names:
                raise NotComputed("every continuous or ordinal variable is missing in every record of one file")
            details["variables"] = list(names)
        for which, label in ((ORIGINAL, "original"), (PROTECTED, "protected")):
            ok = np.ones(pair.n(which), dtype=bool)
            for name in names:
                ok &= ~np.isnan(_ecdf_column(pair, which, name))
            if not ok.any():
                raise NotComputed(f"the {label} file has no record without missing values in {', '.join(names)}")
            rows[which] = np.flatnonzero(ok)
    if use_w:  # records of weight 0 count for nothing: no point of the merged file, no share of n_O or n_M
        for which, label in ((ORIGINAL, "original"), (PROTECTED, "protected")):
            w = pair.weights(which)
            if w is not None and not (w > 0).all():
                positive = np.flatnonzero(w > 0)
                rows[which] = positive if rows[which] is None else np.intersect1d(rows[which], positive)
                if rows[which].size == 0:
                    raise NotComputed(f"no record of the {label} file compared has a positive weight")
    take = {}
    available = {}
    for which in (ORIGINAL, PROTECTED):
        available[which] = pair.n(which) if rows[which] is None else rows[which].shape[0]
        take[which] = _sample(pair.n(which), int(max_records), int(seed), rows[which])
    sampled = any(available[w] > int(max_records) for w in available)
    xo = np.column_stack([_ecdf_column(pair, ORIGINAL, n, take[ORIGINAL]) for n in names])
    xm = np.column_stack([_ecdf_column(pair, PROTECTED, n, take[PROTECTED]) for n in names])
    n_o, n_m = xo.shape[0], xm.shape[0]
    details["records_orig"] = int(available[ORIGINAL])
    details["records_prot"] = int(available[PROTECTED])
    details["sample"] = (
        {"orig": int(n_o), "prot": int(n_m), "seed": int(seed), "max_records": int(max_records),
         "note": "evaluated on simple random subsamples of each file (the exact measure is O(N^2 p)); files of "
         "equal size are sampled at the same record numbers"}
        if sampled
        else None
    )
    # dense ranks over the merged sample: missing (NaN) becomes the largest rank
    z = np.vstack([xo, xm])
    ranks = np.empty(z.shape, dtype=np.int32)
    for j in range(z.shape[1]):
        col = np.where(np.isnan(z[:, j]), np.inf, z[:, j])
        ranks[:, j] = np.unique(col, return_inverse=True)[1].reshape(-1)
    if ranks.max(initial=0) < np.iinfo(np.int16).max:
        ranks = ranks.astype(np.int16)
    sample_t = np.ascontiguousarray(ranks.T)  # (p, N): rows broadcast fast
    n = z.shape[0]
    diffs = np.empty(n)
    wo = wm = None
    if use_w:  # each file's weights over its sampled records, normalised to sum to 1
        wo, wm = (_take(pair.weights(w), take[w]).astype(float) for w in (ORIGINAL, PROTECTED))
        if not (wo.sum() > 0 and wm.sum() > 0):
            raise NotComputed("the weights of the records compared sum to zero in one of the files")
        wo, wm = wo / wo.sum(), wm / wm.sum()
        details["point_weights"] = np.concatenate([wo * n_o, wm * n_m])  # mean 1 within each file

    def block(start: int) -> None:
        stop = min(start + _ECDF_CHUNK, n)
        points = ranks[start:stop]
        below = sample_t[0][None, :] <= points[:, 0][:, None]
        tmp = np.empty_like(below)
        for j in range(1, sample_t.shape[0]):
            np.less_equal(sample_t[j][None, :], points[:, j][:, None], out=tmp)
            below &= tmp
        if wo is None:
            f_o = np.count_nonzero(below[:, :n_o], axis=1) / n_o
            f_m = np.count_nonzero(below[:, n_o:], axis=1) / n_m
        else:
            f_o = below[:, :n_o] @ wo
            f_m = below[:, n_o:] @ wm
        diffs[start:stop] = f_o - f_m

    # the weighted ECDFs are BLAS products: held to one thread, so that their bits are the same beside another
    # measure (shares_cores) and alone
    with thread_limits(1) if wo is not None else contextlib.nullcontext():
        for start in range(0, n, _ECDF_CHUNK):
            block(start)
    return diffs, details


def _take(x: np.ndarray, idx: np.ndarray | None) -> np.ndarray:
    return x if idx is None else x[idx]


def _ecdf(pair: EncodedPair, missing: str, max_records: int, seed: int, use_w: bool = False) -> tuple[np.ndarray, dict]:
    key = ("distributions", "ecdf", missing, int(max_records), int(seed), bool(use_w))
    return pair.cached(key, lambda: _ecdf_diffs(pair, missing, max_records, seed, use_w))


def _ecdf_weighted(
    pair: EncodedPair, missing: str, max_records: int, seed: int, seeds: int, weighted: bool | None, mid: str
) -> tuple[list[float], list[float], list[int], dict]:
    """U_m and U_s of each seed, the seeds and the details (of the first seed); weighted: F_O, F_M weighted and
    U_s a weighted mean over the merged points.  Without a sample (every record used) there is one seed."""
    use_w, wdetails = _weighting(pair, weighted, mid)
    _, details = _ecdf(pair, missing, max_records, seed, use_w)
    from ._mining_data import seeds as seed_range

    seed_list = seed_range(seed, seeds) if details["sample"] is not None else [int(seed)]
    u_m, u_s = [], []
    for s in seed_list:
        diffs, found = _ecdf(pair, missing, max_records, s, use_w)
        point_w = found.get("point_weights")
        u_m.append(float(np.max(np.abs(diffs))))
        u_s.append(float(np.mean(diffs**2)) if point_w is None else float(np.sum(point_w * diffs**2) / diffs.shape[0]))
    details = {k: v for k, v in details.items() if k != "point_weights"}
    if use_w:
        details["weights_note"] = (
            "F_O, F_M are weighted ECDFs; U_s weights each merged point by its weight, normalised to mean 1 "
            "within its file"
        )
    return u_m, u_s, seed_list, {**details, **wdetails}


def _over_samples(values: list[float], other: list[float], seed_list: list[int], other_key: str,
                  details: dict) -> MeasureResult:
    """The mean over the samples' seeds, the spread in ``details["seeds"]`` (a sampled file), and the other
    ECDF measure's mean under ``other_key``."""
    from ._mining_data import spread

    sampled = details["sample"] is not None
    extra = {"depends_on_seed": sampled, **({"seeds": spread(values, seed_list)} if sampled else {})}
    return MeasureResult(value=float(np.mean(values)) if sampled else values[0],
                         details={**details, other_key: float(np.mean(other)) if sampled else other[0], **extra})




@measure(
    "ecdf_max",
    shares_cores=True,
    family="distributions",
    description="Woo et al. U_m: largest difference between the multivariate ECDFs on the merged file",
    range=(0, 1),
    better="lower",
    needs_pairing=False,
    headline=True,
    options=ECDF_OPTIONS,
)
def ecdf_max(
    pair: EncodedPair, *, missing: str = "largest", max_records: int = 2000, seed: int = 0, seeds: int = 5,
    weighted: bool | None = None,
) -> MeasureResult:
    r"""Woo et al.'s :math:`U_m`: the largest difference between the multivariate ECDFs.

    .. math::

        U_m = \max_{1 \le i \le N} \left| \hat F_O(z_i) - \hat F_M(z_i) \right|

    The merged file holds the :math:`n_O` original and :math:`n_M` protected
    records, :math:`N = n_O + n_M`, :math:`z_i` runs over all of them, and
    :math:`\hat F_O(z) = n_O^{-1}\sum_{x\in O} 1\{x \le z\}` (likewise
    :math:`\hat F_M`) with ``≤`` componentwise over the continuous and
    ordinal variables (ordinal ones by category order; nominal variables are
    left out because their codes have no order).

    Parameters
    ----------
    pair : EncodedPair
        Original and protected file (paired or not, any sizes).
    missing : {"largest", "complete"}
        ``"largest"`` (default): a missing value is ordered above every value,
        so no record is dropped and suppressions count as changes.
        ``"complete"``: only records without missing values in the variables
        used (variables missing in every record of the protected file are left out).
    max_records : int
        Files with more records are replaced by a seeded simple random
        subsample of this size before the (O(N²·p)) computation; the
        subsample is both the evaluation points and the ECDF sample.
        Files of equal size are sampled at the same record numbers (see
        the module documentation).
    seed : int
        The first seed of the subsampling.
    seeds : int
        With a subsample, the value is the mean over the samples of the
        seeds ``seed, …, seed + seeds − 1`` (default 5), their spread in
        ``details["seeds"]``; without one (every record used), one exact
        value (``details["depends_on_seed"]`` False).
    weighted : bool, optional
        Weighted ECDFs (a record counts with its survey weight); default:
        when both files have weights.

    Returns
    -------
    MeasureResult
        value :math:`U_m`; details: ``variables``, ``missing``, ``sample``
        (None when every record was used; else the first seed's),
        ``mean_squared`` (:math:`U_s`, its mean over the seeds),
        ``depends_on_seed``, ``seeds`` (with a sample: mean, sd, min, max
        and the value per seed).

    References
    ----------
    Woo, M.-J., Reiter, J. P., Oganian, A. & Karr, A. F. (2009). Global
    measures of data utility for microdata masked for disclosure limitation.
    *Journal of Privacy and Confidentiality* 1(1), 111-124.

    Examples
    --------
    Three original and two protected records of two variables; worked by
    hand, the largest difference is at ``z = (1, 1)``: no original record is
    below it, one of the two protected ones is.

    >>> import pandas as pd
    >>> from infoloss.measures.distributions import ecdf_max
    >>> orig = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [2.0, 1.0, 3.0]})
    >>> prot = pd.DataFrame({"x": [1.0, 3.0], "y": [1.0, 2.0]})
    >>> spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}},
    ...         "pairing": "none"}
    >>> ecdf_max(orig, prot, spec).value
    0.5
    """
    u_m, u_s, seed_list, details = _ecdf_weighted(pair, missing, max_records, seed, seeds, weighted, "ecdf_max")
    return _over_samples(u_m, u_s, seed_list, "mean_squared", details)


@measure(
    "ecdf_mean",
    shares_cores=True,
    family="distributions",
    description="Woo et al. U_s: mean squared difference between the multivariate ECDFs on the merged file",
    range=(0, 1),
    better="lower",
    needs_pairing=False,
    options=ECDF_OPTIONS,
)
def ecdf_mean(
    pair: EncodedPair, *, missing: str = "largest", max_records: int = 2000, seed: int = 0, seeds: int = 5,
    weighted: bool | None = None,
) -> MeasureResult:
    r"""Woo et al.'s :math:`U_s`: the mean squared difference between the multivariate ECDFs.

    .. math::

        U_s = \frac{1}{N} \sum_{i=1}^{N} \left( \hat F_O(z_i) - \hat F_M(z_i) \right)^2

    with the merged file, :math:`\hat F_O`, :math:`\hat F_M` and the options
    as in :func:`ecdf_max` (both measures share one computation per pair).

    Parameters
    ----------
    pair : EncodedPair
        Original and protected file (paired or not, any sizes).
    missing : {"largest", "complete"}
        How missing values enter; see :func:`ecdf_max`.
    max_records : int
        Per-file subsample size for large files; see :func:`ecdf_max`.
    seed, seeds : int
        The first seed and the number of samples; see :func:`ecdf_max`.
    weighted : bool, optional
        Weighted ECDFs (a record counts with its survey weight); default:
        when both files have weights.

    Returns
    -------
    MeasureResult
        value :math:`U_s`; details: ``variables``, ``missing``, ``sample``,
        ``max`` (:math:`U_m`), ``depends_on_seed``, ``seeds``, as for
        :func:`ecdf_max`.

    References
    ----------
    Woo, M.-J., Reiter, J. P., Oganian, A. & Karr, A. F. (2009). Global
    measures of data utility for microdata masked for disclosure limitation.
    *Journal of Privacy and Confidentiality* 1(1), 111-124.

    Examples
    --------
    The records of the :func:`ecdf_max` example; the five differences
    :math:`\hat F_O - \hat F_M` at (1,2), (2,1), (3,3), (1,1), (3,2) are
    -1/6, -1/6, 0, -1/2, -1/3, so
    :math:`U_s = (1/36 + 1/36 + 0 + 1/4 + 1/9)/5 = 1/12`.

    >>> import pandas as pd
    >>> from infoloss.measures.distributions import ecdf_mean
    >>> orig = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [2.0, 1.0, 3.0]})
    >>> prot = pd.DataFrame({"x": [1.0, 3.0], "y": [1.0, 2.0]})
    >>> spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}},
    ...         "pairing": "none"}
    >>> round(ecdf_mean(orig, prot, spec).value, 6)
    0.083333
    """
    u_m, u_s, seed_list, details = _ecdf_weighted(pair, missing, max_records, seed, seeds, weighted, "ecdf_mean")
    return _over_samples(u_s, u_m, seed_list, "max", details)
