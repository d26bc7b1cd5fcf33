"""Kocar's (2018) user-centred global data utility (GDU) model.

The model compares the original and the protected file variable by variable
and pair by pair with ordinary statistical tests, turns each comparison into a
local utility in [0, 1], and averages them:

* local univariate utility ``LDU_uni`` of every variable: ``1 − exp(−14 P)``
  with ``P`` the p-value of a two-sample Kolmogorov–Smirnov test (continuous)
  or of the chi-squared test of the 2 × K source-by-category table
  (categorical), times a global-recoding factor for recoded variables;
* local bivariate utility ``LDU_biv`` of every pair of variables, from the
  test that Table 1 of the paper chooses for the two scales (chi-squared /
  Cramér's V, Kruskal–Wallis / epsilon², ANOVA / eta², Spearman ρ, Pearson r)
  through three steps: significance, direction, strength;
* ``ALDU_uni``, ``ALDU_biv``, the global reduction coefficient ``GRC`` for
  removed variables and ``GDU = (w_u·ALDU_uni + w_b·ALDU_biv) × GRC``.

All six measure ids share one computation per pair (cached on the pair); the
statistics are vectorised (one sort per continuous column and file; ranks,
group sums and tables by ``bincount``; the correlations of complete columns
from one matrix product) and are checked against ``scipy.stats`` in the tests.  Equations whose images are lost in the paper are written as
the text around them defines them.

Layout: this module holds the model's formulas, the univariate tests, the
plan of bivariate tests and the registered measures; the variables as the
model sees them are prepared in :mod:`infoloss.measures._gdu_sides`, the
bivariate test kernels are in :mod:`infoloss.measures._gdu_pairs` and their
survey-weighted forms in :mod:`infoloss.measures._gdu_weighted`.

Decisions where the paper is silent (each is also stated in ``details``):

* Missing values are left out: univariate tests compare the non-missing values
  of each file; bivariate tests use the complete cases of the pair in each
  file separately.  A variable whose protected values are all missing (or,
  weighted, all of weight 0) scores 0, like a removed one, in its univariate
  utility and in each of its pairs (GRC counts only the variables the spec
  marks removed).
* Survey weights (option ``weighted``, default: when both files have them,
  as in the table measures): the χ², Kolmogorov–Smirnov, Pearson and ANOVA
  tests use their weighted forms on weights rescaled to Kish's effective
  sample size (:mod:`infoloss.measures._gdu_weighted`); Spearman and
  Kruskal–Wallis have no standard weighted form and stay unweighted (the
  pair's details say so); the normality decision is unweighted.  The paper's
  tests are unweighted (``weighted=False``).
* ``P = 1`` (the two distributions are identical) gives utility 1 exactly
  instead of ``1 − e^{−14} = 0.99999917``, so identical files give GDU = 1.
* The chi-squared tests use no continuity correction (``correction=False``);
  it would only apply to 2 × 2 tables (binary variables).  Categories empty
  in both files are dropped.  A categorical variable with a single category
  in both files has no univariate test (reason in ``not_computed``).
* Recoding (``recode: map`` or ``breaks``): ``n`` is the number of distinct
  original values, ``m`` the number of classes the original records fall
  into; the chi-squared part compares the recoded original with the
  protected classes.  The default variant is ``pairwise`` for a categorical
  and ``heterogeneity`` for a continuous variable.  Biased allocation: a unit
  is biased when a unit of another class is strictly nearer than every other
  unit of its own class (a unit alone in its class counts as biased when
  another class exists).  Heterogeneity uses the original records in both
  sums (r = s) and is clipped at 0.  ``top``/``bottom`` coding keeps the
  variable continuous and is compared by the KS test like a perturbation.
* Normality (Pearson / ANOVA instead of Spearman / Kruskal–Wallis) is decided
  once, on the original variable, by a one-sample KS test against a normal
  with the variable's mean and standard deviation (n − 1) at the threshold;
  the protected file uses the same decision unless the variable was recoded
  into classes (then it is ordinal).
* The direction statistic compares per-record measures of the strength of the
  difference (standardised residuals divided by √N, sums of squares between
  groups divided by N, rank sums of squares divided by N³) so that files of
  different sizes compare; when both files have the same size this is the
  paper's Δ times a positive constant, so the decision is the same.  Cells or
  groups empty in both files are left out of Δ.
* For a recoded nominal variable the direction is judged on the protected
  classes (the original records placed in the recode's classes), because the
  two tables must have the same cells; P values and coefficients use each
  file as published.
* A pair whose original data cannot be tested (a constant variable, a single
  category, fewer than 3 complete cases) is left out of the averages with the
  reason.  When only the protected data cannot be tested, the association is
  no longer detectable: P = 1 and coefficient 0.
* A pair whose two files call for different tests with a nominal variable
  (e.g. ANOVA on the original, Kruskal–Wallis after recoding the partner into
  classes) has no rule in the paper; it is left out with that reason.  When
  both files use the same test (e.g. Kruskal–Wallis on a non-normal variable
  and on its classes) the pair is compared as usual.
* A chi-squared pair whose table has more than ``infoloss.limits.MAX_DENSE_CELLS``
  cells (two variables of thousands of categories) is left out with the
  reason (the variables, their numbers of categories and the memory the
  table would need).
* The categories of an ordinal variable are ranked in the pair's order (its
  ``order``, else numeric labels first in numeric order, then the others
  lexically, as every measure ranks them), and the classes of an ordinal
  ``recode: map`` in the order of the original categories they hold.

References
----------
Kocar, S. (2018). A universal global measure of univariate and bivariate data
utility for anonymised microdata. CSRM & SRC Methods Paper No. 4/2018,
Australian National University.

Shlomo, N. (2010). Releasing microdata: disclosure risk estimation, data
masking and assessing utility. Journal of Applied Statistics 37(3).

Tomczak, M. & Tomczak, E. (2014). The need to report effect size estimates
revisited. Trends in Sport Sciences 21(1) (epsilon squared).
"""

from __future__ import annotations

import math
import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from scipy import special

from .. import limits, numeric
from ..errors import InputError, NotComputed
from ..pair import ORIGINAL, PROTECTED, EncodedPair
from ..registry import MeasureResult, Option, measure
from ._contingency import chi2_independence
from ._gdu_pairs import _run_file, _run_files
from ._gdu_sides import _categorical_side, _numeric_values, _Side, _Var, _variables
from .distributions import ks_asymp_pvalue, ks_levels_statistic, kstwo_sf, levels_ks

RATE = 14.0  # x = 14 P in the exponential information-loss law
VARIANTS = ("pairwise", "biased", "heterogeneity")
_KS_EXACT_MAX_N = 10_000  # scipy's ks_2samp uses its exact method up to this size
_CORRELATION_TESTS = ("pearson", "spearman")
_COEFFICIENT = {
    "chi2": "cramers_v_squared",
    "kruskal": "epsilon_squared",
    "anova": "eta_squared",
    "spearman": "spearman_rho_squared",
    "pearson": "pearson_r_squared",
}
_TEST_NAME = {
    "chi2": "chi-squared test of independence (scipy.stats.chi2_contingency, correction=False)",
    "kruskal": "Kruskal-Wallis H test (scipy.stats.kruskal)",
    "anova": "one-way ANOVA F test (scipy.stats.f_oneway)",
    "spearman": "Spearman correlation (scipy.stats.spearmanr)",
    "pearson": "Pearson correlation (scipy.stats.pearsonr)",
}
_CONVENTIONS = {
    "missing": "missing values are left out: univariate tests compare the non-missing values of each file, "
    "bivariate tests use each file's complete cases of the pair",
    "weighted": "unweighted tests, as in Kocar (2018)",
    "p_equal_1": "P = 1 (identical distributions) gives utility 1 exactly",
    "chi2": "chi-squared tests without continuity correction; categories empty in both files dropped",
    "recoding": "n = distinct original values, m = classes the original records fall into; default variant "
    "'pairwise' for categorical and 'heterogeneity' for continuous variables; top/bottom coding is compared "
    "by the KS test like a perturbation",
    "normality": "decided on the original variable by a one-sample KS test against a normal with its mean and "
    "standard deviation (n - 1), at the significance threshold; p-values as scipy.stats.kstest's, except "
    "'asymp-limit': a p-value below 0.025 of more than 20,000 values from the limiting Kolmogorov distribution",
    "direction": "per-record MSDs (residuals / sqrt(N), SSB_i / N, rank SSB_i / N^3) so that files of different "
    "sizes compare; the same decision as the raw MSDs when both files have the same size",
    "type_change": "r2 or rho2 (original) against rho2 (protected) for ordered pairs; pairs with a nominal "
    "variable whose two files call for different tests are left out (no rule in Kocar 2018)",
}


# ---------------------------------------------------------------------------
# the model's small formulas
# ---------------------------------------------------------------------------
def utility_from_p(p: float) -> float:
    """Local univariate utility after perturbation, suppression or removal.

    ``LDU_psr = 1 − exp(−14 P)``: information loss follows the exponential
    density with rate 1 evaluated at ``x = 14 P``.  ``P = 1`` (identical
    distributions) gives 1 exactly (our convention; the formula gives
    ``1 − e^{−14}``).

    Examples
    --------
    >>> from infoloss.measures.gdu import utility_from_p
    >>> round(utility_from_p(0.05), 3), round(utility_from_p(0.01), 3)
    (0.503, 0.131)
    """
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"a p-value must lie in [0, 1], got {p}")
    if p >= 1.0:
        return 1.0
    return -math.expm1(-RATE * p)


def recode_utility_pairwise(n_values: int, n_classes: int) -> float:
    """Utility left after recoding ``n_values`` categories into ``n_classes``.

    ``m(m − 1) / (n(n − 1))``: the share of pairwise group comparisons that
    remain possible.  One original value gives 1.

    Examples
    --------
    >>> from infoloss.measures.gdu import recode_utility_pairwise
    >>> round(recode_utility_pairwise(10, 5), 3)   # ten age groups into five
    0.222
    """
    n, m = int(n_values), int(n_classes)
    if n < 1 or m < 1 or m > n:
        raise ValueError(f"need 1 <= classes <= values, got {m} classes for {n} values")
    if n == 1:
        return 1.0
    return m * (m - 1) / (n * (n - 1))


def recode_utility_biased(values: Any, classes: Any) -> tuple[float, int]:
    """Utility left by biased allocation into classes: ``1 − n_ba / n``.

    A unit is biasedly allocated when some unit of another class is strictly
    closer to it (in the original values) than every other unit of its own
    class; a unit alone in its class counts as biased when another class
    exists.  For interval classes (breaks) the closest unit of another class
    is always in a neighbouring class, as in the paper's example.

    Returns the utility and ``n_ba``.

    Examples
    --------
    >>> from infoloss.measures.gdu import recode_utility_biased
    >>> recode_utility_biased([30, 33, 39, 40, 48], [0, 0, 0, 1, 1])  # 39 is nearer to 40 than to 33
    (0.6, 2)
    """
    x = np.asarray(values, dtype=float)
    g = np.asarray(classes, dtype=np.int64)
    ok = ~np.isnan(x) & (g >= 0)
    x, g = x[ok], g[ok]
    n = x.shape[0]
    if n == 0:
        raise ValueError("no values to allocate")
    e = numeric.safe_exponent(x)  # exact scaling: distances near 1e308 cannot overflow
    x = numeric.scaled(x, e) if e else x
    # nearest other unit of the same class: neighbours after sorting by (class, value)
    o = np.lexsort((x, g))
    xs, gs = x[o], g[o]
    same = gs[1:] == gs[:-1]
    gap = np.diff(xs)
    left = np.full(n, np.inf)
    left[1:] = np.where(same, gap, np.inf)
    right = np.full(n, np.inf)
    right[:-1] = np.where(same, gap, np.inf)
    own = np.empty(n)
    own[o] = np.minimum(left, right)
    # nearest unit of another class: ends of the neighbouring runs after sorting by value
    o = np.argsort(x, kind="stable")
    xs, gs = x[o], g[o]
    start = np.r_[True, gs[1:] != gs[:-1]]
    run_start = np.maximum.accumulate(np.where(start, np.arange(n), 0))
    end = np.r_[gs[1:] != gs[:-1], True]
    run_end = np.minimum.accumulate(np.where(end, np.arange(n), n - 1)[::-1])[::-1]
    other = np.full(n, np.inf)
    has_left = run_start > 0
    other[has_left] = xs[has_left] - xs[run_start[has_left] - 1]
    has_right = run_end < n - 1
    other[has_right] = np.minimum(other[has_right], xs[run_end[has_right] + 1] - xs[has_right])
    n_ba = int(np.count_nonzero(other < own[o]))
    return 1.0 - n_ba / n, n_ba


def recode_utility_heterogeneity(values: Any, classes: Any) -> float:
    """Utility left by within-class heterogeneity.

    ``1 − MAD_within / MAD_total``: the mean absolute deviation of the original
    values from the means of their classes over the mean absolute deviation
    from the grand mean (everything in one class).  A constant variable gives
    1; the rare negative value (skewed classes whose means are poorer L1
    centres than the grand mean) is clipped at 0.

    Examples
    --------
    >>> from infoloss.measures.gdu import recode_utility_heterogeneity
    >>> recode_utility_heterogeneity([0, 2, 10, 12], [0, 0, 1, 1])  # within 1, total 5
    0.8
    """
    x = np.asarray(values, dtype=float)
    g = np.asarray(classes, dtype=np.int64)
    ok = ~np.isnan(x) & (g >= 0)
    x, g = x[ok], g[ok]
    if x.shape[0] == 0:
        raise ValueError("no values to group")
    e = numeric.safe_exponent(x)  # exact scaling: the ratio does not change, the sums cannot overflow
    x = numeric.scaled(x, e) if e else x
    total = float(np.abs(x - x.mean()).mean())
    if total == 0.0:
        return 1.0
    size = np.bincount(g)
    sums = np.bincount(g, weights=x)
    means = np.divide(sums, size, out=np.zeros_like(sums), where=size > 0)
    within = float(np.abs(x - means[g]).mean())
    return float(min(1.0, max(0.0, 1.0 - within / total)))


def reduction_coefficient(n_orig: int, n_prot: int) -> float:
    """Global reduction coefficient ``n_p(n_p − 1) / (n_o(n_o − 1))`` for removed variables.

    ``n_o`` analysed variables in the original file, ``n_p`` of them kept in
    the protected file; 1 when none was removed.

    Examples
    --------
    >>> from infoloss.measures.gdu import reduction_coefficient
    >>> round(reduction_coefficient(100, 95), 3)
    0.902
    """
    n_o, n_p = int(n_orig), int(n_prot)
    if n_o < 1 or not 0 <= n_p <= n_o:
        raise ValueError(f"need 0 <= kept <= original variables, got {n_p} of {n_o}")
    if n_p == n_o:
        return 1.0
    if n_p < 2:
        return 0.0  # no pair of variables left (also the only variable removed)
    return n_p * (n_p - 1) / (n_o * (n_o - 1))


def strength_utility(coef_orig: float, coef_prot: float) -> float:
    """Step 3: ``1 − |c_o − c_p| / max(c_o, c_p) = min / max`` of squared coefficients; both 0 → 1.

    Examples
    --------
    >>> from infoloss.measures.gdu import strength_utility
    >>> strength_utility(0.25, 0.2)
    0.8
    """
    lo, hi = sorted((float(coef_orig), float(coef_prot)))
    if hi <= 0.0:
        return 1.0
    return lo / hi


def direction_statistic(msd_orig: Any, msd_prot: Any) -> float:
    """Step 2 for tests with a nominal variable: ``Δ = mean(|MSD_p − MSD_o| − |MSD_o|)``.

    ``MSD`` are signed measures of the strength of the difference per cell
    (standardised residuals) or per group (signed sums of squares between
    groups).  ``Δ > 0`` means the direction of the association changed.

    Examples
    --------
    >>> from infoloss.measures.gdu import direction_statistic
    >>> direction_statistic([1.0, -1.0], [0.8, -0.9])   # same direction
    -0.85
    >>> direction_statistic([1.0, -1.0], [-1.0, 1.0])   # reversed
    1.0
    """
    o = np.asarray(msd_orig, dtype=float)
    p = np.asarray(msd_prot, dtype=float)
    if o.size == 0:
        return 0.0
    return float(np.mean(np.abs(p - o) - np.abs(o)))


# ---------------------------------------------------------------------------
# univariate tests (the variables as the model sees them are in _gdu_sides)
# ---------------------------------------------------------------------------
def _ks_2samp(a: _Side, b: _Side, pair: EncodedPair | None = None, name: str | None = None) -> tuple[float, float]:
    """Two-sample KS statistic and p-value, equal to scipy.stats.ks_2samp (method 'auto').

    Above 20,000 effective records and for p-values below about 0.025 the p-value is
    the limiting Kolmogorov law instead of scipy's O(n) exact series, as in
    ``distributions.ks_2samp_fast`` (relative difference below 2 %).  The
    statistic is computed once per pair and variable
    (``distributions.levels_ks``, shared with the ks measure) when the sides
    are the pair's levels.
    """
    n1, n2 = a.n_valid, b.n_valid
    if max(n1, n2) <= _KS_EXACT_MAX_N:
        x1 = a.values[~np.isnan(a.values)]
        x2 = b.values[~np.isnan(b.values)]
        # only for small files: importing scipy.stats costs about 0.5 s
        from scipy import stats

        with warnings.catch_warnings():  # scipy falls back to its asymptotic method with a warning
            warnings.simplefilter("ignore", RuntimeWarning)
            res = stats.ks_2samp(x1, x2)
        return float(res.statistic), float(res.pvalue)
    if _pair_levels(pair, name, a, b):
        d = levels_ks(pair, name)  # shared with the ks measure
    else:
        d = ks_levels_statistic(a.levels, a.counts, b.levels, b.counts)  # from the sorted distinct values
    p, _ = ks_asymp_pvalue(d, n1, n2)
    return d, p


def _ks_2samp_weighted(
    a: _Side, b: _Side, wa: np.ndarray, wb: np.ndarray, pair: EncodedPair | None = None, name: str | None = None
) -> tuple[float, float]:
    """Weighted-ECDF KS statistic from the sorted distinct values (no sort), p-value at Kish's effective sizes.

    The same statistic as ``distributions.ks_weighted`` (records of weight 0
    count for nothing); computed once per pair and variable
    (``distributions.weighted_levels_ks``) when the sides are the pair's levels.
    """
    from .distributions import ks_asymp_pvalue, weighted_levels_ks

    def per_level(side: _Side, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Summed weights per level (records of weight 0 add nothing) and the weights of the valid records."""
        if side.complete:
            return np.bincount(side.codes, weights=w, minlength=side.n_levels), w
        ok = side.codes >= 0
        return np.bincount(side.codes[ok], weights=w[ok], minlength=side.n_levels), w[ok]

    if _pair_levels(pair, name, a, b, values=False):
        w1 = wa if a.complete else wa[a.codes >= 0]
        w2 = wb if b.complete else wb[b.codes >= 0]
        d = float(np.clip(weighted_levels_ks(pair, name), 0.0, 1.0))  # shared with the ks measure
    else:
        c1, w1 = per_level(a, wa)
        c2, w2 = per_level(b, wb)
        d = float(np.clip(ks_levels_statistic(a.levels, c1, b.levels, c2), 0.0, 1.0))
    e1 = float(w1.sum()) ** 2 / float(np.dot(w1, w1))
    e2 = float(w2.sum()) ** 2 / float(np.dot(w2, w2))
    p, _ = ks_asymp_pvalue(d, e1, e2, "auto")
    return d, p


def _pair_levels(pair: EncodedPair | None, name: str | None, a: _Side, b: _Side, values: bool = True) -> bool:
    """Whether the two sides are the pair's sorted levels of ``name`` (codes, counts and, with ``values``, the
    unscaled distinct values): then the KS statistic is the one the ks measure computes."""
    if pair is None:
        return False
    lv1, lv2 = pair.cache.get(("levels", name, ORIGINAL)), pair.cache.get(("levels", name, PROTECTED))
    if lv1 is None or lv2 is None or a.codes is not lv1.codes or b.codes is not lv2.codes:
        return False
    return not values or (a.counts is lv1.counts and b.counts is lv2.counts
                          and a.levels is lv1.values and b.levels is lv2.values)


def _blank(pair: EncodedPair, var: _Var, use_w: bool) -> bool:
    """Whether no protected value of the variable is left (none with a positive weight, when weighted)."""
    side = var.prot
    if side is None or var.removed:
        return False
    return side.n_valid == 0 or (use_w and not _positive_weight(side, pair.weights(PROTECTED)))


def _blank_note(name: str, var: _Var) -> str:
    """Why a pair with the blank variable ``name`` (:func:`_blank`) scores like one with a removed variable."""
    if var.prot.n_valid == 0:
        return f"every protected value of {name} is missing: treated like a removed variable"
    return f"no protected value of {name} has a positive weight: treated like a removed variable"


def _positive_weight(side: _Side, w: np.ndarray) -> bool:
    """Whether a non-missing value of the side has a positive weight."""
    if side.n_valid == 0:
        return False
    if w.min() > 0:  # every record weighs something (the usual case): no gather of the valid records' weights
        return True
    return bool((w[side.codes >= 0] > 0).any())


def _normality(side: _Side) -> dict[str, Any]:
    """One-sample KS test of the original values against a fitted normal (mean, sd with n − 1).

    Equal to ``scipy.stats.kstest(x, "norm", args=(x.mean(), x.std(ddof=1)))``,
    except that a small p-value of more than 20,000 values comes from the
    limit law (:func:`~infoloss.measures.distributions.kstwo_sf`: scipy's
    series costs about a second per variable at 1,000,000 values); such a
    p-value is below 0.025 and never below scipy's, and :func:`_compute_bivariate` takes scipy's
    whenever the limit law's is not clearly below the threshold, so the decision is scipy's.
    """
    x = side.values[~np.isnan(side.values)]
    n = x.shape[0]
    if n < 3:
        return {"normal": False, "statistic": None, "p_value": None, "note": "fewer than 3 values"}
    e = numeric.safe_exponent(x)  # exact scaling: the test does not change, the mean and sd cannot overflow
    x = numeric.scaled(x, e) if e else x
    mean, sd = float(x.mean()), float(x.std(ddof=1))
    if not sd > 0:
        return {"normal": False, "statistic": None, "p_value": None, "note": "constant"}
    levels = numeric.scaled(side.levels, e) if e else side.levels
    cdf = special.ndtr((levels - mean) / sd)  # what stats.norm.cdf(levels, mean, sd) computes, without its checks
    cum = np.cumsum(side.counts)
    d_plus = float(np.max(cum / n - cdf))
    d_minus = float(np.max(cdf - (cum - side.counts) / n))
    d = max(d_plus, d_minus)
    p, method = kstwo_sf(d, n)
    return {"statistic": d, "p_value": p, "method": method, "n": n, "mean": numeric.unscale(mean, e),
            "sd": numeric.unscale(sd, e)}


def _original_normality(pair: EncodedPair, name: str, side: _Side) -> dict[str, Any]:
    """:func:`_normality` of the original variable, shared by the scenarios of one ``compare`` (a copy each)
    while they hold its very values and levels (unscaled; see :meth:`EncodedPair.cached_original_arrays`)."""
    arrays = [side.values, side.levels, side.counts]
    return dict(pair.cached_original_arrays(("gdu-normality", name), arrays, lambda: _normality(side)))


def _chi2_two_files(o: _Side, p: _Side) -> dict[str, Any]:
    table = np.vstack([o.counts, p.counts])
    table = table[:, table.sum(axis=0) > 0]
    if table.shape[1] < 2:
        raise NotComputed("it has a single category in both files, so the chi-squared test has no degrees of freedom")
    res = chi2_independence(table)
    return {"statistic": float(res.statistic), "p_value": float(res.pvalue), "dof": int(res.dof)}


def _variant_for(var: _Var, option: str | dict | None) -> str:
    default = "heterogeneity" if var.scale == "continuous" else "pairwise"
    if option is None:
        return default
    if isinstance(option, str):
        return option
    return option.get(var.name, default)


def _recode_factor(pair: EncodedPair, var: _Var, variant: str) -> dict[str, Any]:
    rec = var.recoded
    classes = rec.orig
    n_classes = int(np.count_nonzero(np.bincount(classes[classes >= 0], minlength=rec.n_categories)))
    n_values = int(np.count_nonzero(var.orig.counts))
    info: dict[str, Any] = {
        "kind": var.recode_kind,
        "variant": variant,
        "from": "continuous" if var.scale == "continuous" else "categorical",
        "n_values": n_values,
        "n_classes": n_classes,
    }
    if variant == "pairwise":
        info["factor"] = recode_utility_pairwise(n_values, n_classes)
        return info
    values = _numeric_values(pair, var.name)
    if values is None:
        raise NotComputed(
            f"the {variant!r} recoding variant needs numeric original values, but {var.name!r} has text categories; "
            "use recode_variant='pairwise' for it"
        )
    if variant == "biased":
        info["factor"], info["n_biased"] = recode_utility_biased(values, classes)
    else:
        info["factor"] = recode_utility_heterogeneity(values, classes)
    return info


def _gdu_weights(weights: Any) -> tuple[float, float]:
    """The univariate and bivariate weights from two numbers, as a pair or as text ``"0.3,0.7"``."""
    try:
        w_u, w_b = (float(w) for w in (weights.split(",") if isinstance(weights, str) else weights))
    except (TypeError, ValueError):
        raise InputError(f"the GDU weights must be two numbers (univariate, bivariate), such as 0.3,0.7 or "
                         f"[0.3, 0.7], got {weights!r}.") from None
    if not (w_u >= 0 and w_b >= 0 and math.isclose(w_u + w_b, 1.0, abs_tol=1e-9)):
        raise InputError(f"the GDU weights must be non-negative and sum to 1, got {w_u:g} and {w_b:g}.")
    return w_u, w_b


def _check_variants(option: Any) -> Any:
    if option is None:
        return None
    if isinstance(option, str):
        if option not in VARIANTS:
            raise InputError(f"recode_variant {option!r} is not one of {', '.join(VARIANTS)}.")
        return option
    if isinstance(option, dict):
        for name, v in option.items():
            if v not in VARIANTS:
                raise InputError(f"recode_variant {v!r} of {name!r} is not one of {', '.join(VARIANTS)}.")
        return tuple(sorted((str(k), v) for k, v in option.items()))
    raise InputError("recode_variant must be one of 'pairwise', 'biased', 'heterogeneity' or a mapping variable → variant.")


def _univariate(pair: EncodedPair, variants: Any, use_w: bool = False) -> dict[str, Any]:
    key = ("gdu", "univariate", variants, bool(use_w))
    return pair.cached(
        key, lambda: _compute_univariate(pair, dict(variants) if isinstance(variants, tuple) else variants, use_w)
    )


def _compute_univariate(pair: EncodedPair, variants: Any, use_w: bool = False) -> dict[str, Any]:
    w = (pair.weights(ORIGINAL), pair.weights(PROTECTED)) if use_w else None
    if isinstance(variants, dict):
        unknown = [n for n in variants if n not in pair.names(include_removed=True)]
        if unknown:
            raise InputError(f"recode_variant names {unknown[0]!r}, which is not an analysed variable.")
    values: dict[str, float] = {}
    details: dict[str, Any] = {}
    not_computed: dict[str, str] = {}
    for name, var in _variables(pair).items():
        if var.removed:
            values[name] = 0.0
            details[name] = {"removed": True, "ldu": 0.0}
            continue
        if var.broken:
            not_computed[name] = var.broken
            continue
        try:
            values[name], details[name] = _univariate_one(pair, var, variants, w)
        except NotComputed as exc:
            not_computed[name] = str(exc)
    return {"values": values, "details": details, "not_computed": not_computed}


def _univariate_one(
    pair: EncodedPair, var: _Var, variants: Any, w: tuple[np.ndarray, np.ndarray] | None = None
) -> tuple[float, dict[str, Any]]:
    o = var.orig
    p = var.prot
    if var.classed:
        rec = var.recoded
        o = _categorical_side(rec.orig, rec.n_categories, p.kind)
    out: dict[str, Any] = {"removed": False, "n_orig": o.n_valid, "n_prot": p.n_valid}
    if p.n_valid == 0:
        out.update({"test": None, "ldu_psr": 0.0, "recode": None, "ldu": 0.0,
                    "note": "every protected value is missing: treated like a removed variable"})
        return 0.0, out
    if w is not None:  # records of weight 0 count for nothing: a side whose values all have weight 0 has none
        if not _positive_weight(o, w[0]):
            raise NotComputed("it has no value of positive weight in the original file")
        if not _positive_weight(p, w[1]):
            out.update({"test": None, "ldu_psr": 0.0, "recode": None, "ldu": 0.0,
                        "note": "no protected value has a positive weight: treated like a removed variable"})
            return 0.0, out
    if o.kind == "continuous" and not var.classed:
        if w is None:
            d, pv = _ks_2samp(o, p, pair, var.name)
        else:
            d, pv = _ks_2samp_weighted(o, p, w[0], w[1], pair, var.name)
            out["weights"] = "weighted ECDFs; p-value at Kish's effective sizes"
        out.update({"test": "ks_2samp", "statistic": d, "p_value": pv})
        if var.recode_kind in ("top", "bottom"):
            out["note"] = f"{var.recode_kind}-coded: compared with the original values as a perturbation"
    else:
        if w is None:
            res = _chi2_two_files(o, p)
        else:
            from . import _gdu_weighted as gw

            res = gw.chi2_two_files(o.codes, p.codes, o.n_levels, w[0], w[1])
            out["weights"] = "weighted counts rescaled to each file's Kish effective size"
        out.update({"test": "chi2_contingency", **res})
        if var.classed:
            out["note"] = "chi-squared test of the recoded original against the protected classes"
    psr = utility_from_p(out["p_value"])
    out["ldu_psr"] = psr
    if var.classed:
        info = _recode_factor(pair, var, _variant_for(var, variants))
        out["recode"] = info
        ldu = info["factor"] * psr
    else:
        out["recode"] = None
        ldu = psr
    out["ldu"] = ldu
    return ldu, out


# ---------------------------------------------------------------------------
# bivariate comparison: Table 1, the plan of tests and the three steps
# (the vectorised test kernels are in _gdu_pairs)
# ---------------------------------------------------------------------------
def _table1(kind_a: str, kind_b: str) -> str:
    """Kocar's Table 1: the test for two variable kinds (nominal, ordinal, normal, nonnormal)."""
    kinds = {kind_a, kind_b}
    if kinds == {"nominal"}:
        return "chi2"
    if "nominal" in kinds:
        other = kind_b if kind_a == "nominal" else kind_a
        return "anova" if other == "normal" else "kruskal"
    if kinds == {"normal"}:
        return "pearson"
    return "spearman"


def _bivariate(pair: EncodedPair, threshold: float, use_w: bool = False) -> dict[str, Any]:
    return pair.cached(("gdu", "bivariate", threshold, bool(use_w)), lambda: _compute_bivariate(pair, threshold, use_w))


def _compute_bivariate(pair: EncodedPair, threshold: float, use_w: bool = False) -> dict[str, Any]:
    variables = _variables(pair)
    names = list(variables)
    limits.check_pairs(len(names), "analysed variables")
    normality: dict[str, Any] = {}
    continuous = [name for name, var in variables.items() if var.scale == "continuous"]
    with ThreadPoolExecutor(max_workers=2) as pool:  # the CDF over every level releases the GIL
        tested = list(pool.map(lambda name: _original_normality(pair, name, variables[name].orig), continuous))
    for name, res in zip(continuous, tested):
        if res.get("p_value") is not None:
            if res["method"] == "asymp-limit" and res["p_value"] >= 0.95 * threshold:
                # the limit law's p-value is never below scipy's (1.003-1.05 times it for p > 1e-26): below
                # 0.95 x the threshold, scipy's is below it too; otherwise scipy's own value decides
                res["p_value"], res["method"] = kstwo_sf(res["statistic"], res["n"], "scipy")
            res["normal"] = bool(res["p_value"] >= threshold)
        normality[name] = res

    def kinds(var: _Var) -> tuple[str, str]:
        if var.scale == "continuous":
            k = "normal" if normality[var.name]["normal"] else "nonnormal"
            return k, ("ordinal" if var.classed else k)
        return var.scale, var.scale

    blanks = {name for name, var in variables.items() if _blank(pair, var, use_w)}  # once per variable, not pair
    # no value of positive weight in the original: left out, as its univariate utility is (not a loss of 0)
    no_weight = {name for name, var in variables.items() if use_w and not var.removed and var.orig is not None
                 and not _positive_weight(var.orig, pair.weights(ORIGINAL))}
    plan: dict[str, dict[str, Any]] = {}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            va, vb = variables[a], variables[b]
            key = f"{a}|{b}"
            item: dict[str, Any] = {"a": a, "b": b}
            plan[key] = item
            if va.removed or vb.removed:
                item.update(skip=True, removed=True)
                continue
            unweighted = next((v for v in (a, b) if v in no_weight), None)
            if unweighted is not None:
                item.update(skip=True, excluded=f"{unweighted} has no value of positive weight in the original file")
                continue
            blank = next((v for v in (a, b) if v in blanks), None)
            if blank is not None:  # no protected value: like a removed variable, as in its univariate utility
                item.update(skip=True, removed=True, blank=blank)
                continue
            broken = va.broken or vb.broken
            if broken:
                item.update(skip=True, excluded=f"the recode does not fit the data: {broken}")
                continue
            (ao, ap), (bo, bp) = kinds(va), kinds(vb)
            item["test_orig"], item["test_prot"] = _table1(ao, bo), _table1(ap, bp)
            if "chi2" in (item["test_orig"], item["test_prot"]) and limits.is_large(pair, (a, b)):  # not built
                try:
                    limits.check_dense(pair, (a, b), f"the chi-squared table of {a} × {b}")
                except NotComputed as exc:
                    item.update(skip=True, excluded=str(exc))
                    continue
            same = item["test_orig"] == item["test_prot"]
            both_corr = item["test_orig"] in _CORRELATION_TESTS and item["test_prot"] in _CORRELATION_TESTS
            if not (same or both_corr):
                item.update(
                    skip=True,
                    excluded=f"the original calls for {item['test_orig']} and the protected file for "
                    f"{item['test_prot']} (a variable changed type); Kocar (2018) gives no rule to compare "
                    "their effect sizes",
                )
    # chi-squared pairs with large tables are run one at a time below, so that their per-cell arrays (tables,
    # expected counts, residuals) are never in memory together
    big = {key for key, item in plan.items() if not item.get("skip") and "chi2" in (item["test_orig"], item["test_prot"])
           and limits.n_cells(pair, (item["a"], item["b"])) > limits.MAX_CACHED_CELLS}
    small = {key: item for key, item in plan.items() if key not in big}
    stats_o, stats_p = _run_files(pair, variables, small, use_w)

    by_pair: dict[str, float] = {}
    pairs: dict[str, Any] = {}
    excluded: dict[str, str] = {}
    for key, item in plan.items():
        if item.get("removed"):
            by_pair[key] = 0.0
            pairs[key] = {"step": "removed", "ldu": 0.0, "note": "a variable of the pair was removed" if "blank" not in item
                          else _blank_note(item["blank"], variables[item["blank"]])}
            continue
        if "excluded" in item:
            excluded[key] = item["excluded"]
            continue
        if key in big:
            o, p = (_run_file(pair, variables, {key: item}, which, use_w)[key] for which in (ORIGINAL, PROTECTED))
        else:
            o, p = stats_o[key], stats_p[key]
        if "degenerate" in o:
            excluded[key] = f"the original file cannot be tested: {o['degenerate']}"
            continue
        value, info = _combine(item, o, p, threshold)
        by_pair[key] = value
        pairs[key] = info
    return {"by_pair": by_pair, "pairs": pairs, "excluded": excluded, "normality": normality,
            "names": names, "removed": [n for n in names if variables[n].removed]}


def _combine(item: dict[str, Any], o: dict[str, Any], p: dict[str, Any], threshold: float) -> tuple[float, dict]:
    test_o, test_p = item["test_orig"], item["test_prot"]
    info: dict[str, Any] = {
        "test_orig": test_o,
        "test_prot": test_p,
        "coefficient_orig": _COEFFICIENT[test_o],
        "coefficient_prot": _COEFFICIENT[test_p],
        "statistic_orig": _finite(o["statistic"]),
        "p_orig": o["p"],
        "coef_orig": o["coef"],
        "n_orig": o["n"],
    }
    if "degenerate" in p:
        info.update({"statistic_prot": None, "p_prot": 1.0, "coef_prot": 0.0, "n_prot": None,
                     "note": f"the protected file cannot be tested ({p['degenerate']}): no association is "
                     "detectable there, so P = 1 and coefficient 0"})
        p = {"p": 1.0, "coef": 0.0, "degenerate": True}
    else:
        info.update({"statistic_prot": _finite(p["statistic"]), "p_prot": p["p"], "coef_prot": p["coef"],
                     "n_prot": p["n"]})
    for k in ("dof", "group_variable", "weights"):
        if k in o:
            info[k] = o[k]
    if p.get("weights") and o.get("weights") and p["weights"] != o["weights"]:  # e.g. Pearson weighted, Spearman not
        info["weights"] = f"original: {o['weights']}; protected: {p['weights']}"
    # the direction statistic, reported whatever step decides
    if test_o in _CORRELATION_TESTS:
        sign_p = p.get("sign")
        info["direction"] = {"sign_orig": o["sign"], "sign_prot": sign_p}
        changed = sign_p is not None and sign_p != o["sign"]
    elif "msd" in p:
        support = o["support"] | p["support"]
        delta = direction_statistic(o["msd"][support], p["msd"][support])
        info["direction"] = {"delta": delta, "n_cells": int(np.count_nonzero(support))}
        changed = delta > 0
    else:
        info["direction"] = None
        changed = False
    sig_o, sig_p = o["p"] < threshold, p["p"] < threshold
    if not sig_o and not sig_p:
        value, step = 1.0, "significance"
    elif sig_o != sig_p:
        value, step = 0.0, "significance"
    elif changed:
        value, step = 0.0, "direction"
    else:
        value, step = strength_utility(o["coef"], p["coef"]), "strength"
    info["step"] = step
    info["ldu"] = value
    return value, info


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


# ---------------------------------------------------------------------------
# aggregation and the registered measures
# ---------------------------------------------------------------------------
def _check_threshold(threshold: Any) -> float:
    try:
        t = float(threshold)
    except (TypeError, ValueError):
        raise InputError(f"threshold must be a number between 0 and 1, got {threshold!r}.") from None
    if not 0.0 < t < 1.0:
        raise InputError(f"threshold must lie strictly between 0 and 1, got {t}.")
    return t


def _uni_result(pair: EncodedPair, recode_variant: Any, use_w: bool = False) -> dict[str, Any]:
    uni = _univariate(pair, _check_variants(recode_variant), use_w)
    if not uni["values"]:
        reasons = "; ".join(f"{k}: {v}" for k, v in uni["not_computed"].items())
        raise NotComputed(f"no variable has a univariate utility ({reasons})")
    return uni


def _biv_result(pair: EncodedPair, threshold: Any, use_w: bool = False) -> dict[str, Any]:
    biv = _bivariate(pair, _check_threshold(threshold), use_w)
    if not biv["by_pair"]:
        if len(biv["names"]) < 2:
            raise NotComputed("bivariate utility needs at least two analysed variables")
        reasons = "; ".join(f"{k}: {v}" for k, v in list(biv["excluded"].items())[:3])
        raise NotComputed(f"no pair of variables could be compared ({reasons})")
    return biv


def _per_variable_biv(biv: dict[str, Any]) -> tuple[dict[str, float], dict[str, str]]:
    sums: dict[str, list[float]] = {n: [] for n in biv["names"]}
    for key, value in biv["by_pair"].items():
        a, b = key.split("|")
        sums[a].append(value)
        sums[b].append(value)
    by_var = {n: float(np.mean(v)) for n, v in sums.items() if v}
    missing = {n: "none of its pairs could be compared" for n, v in sums.items() if not v}
    return by_var, missing


def _common_details(wdetails: dict[str, Any] | None = None) -> dict[str, Any]:
    conventions = dict(_CONVENTIONS)
    if wdetails and wdetails.get("weighted"):
        conventions["weighted"] = (
            "survey weights rescaled to Kish's effective sample size: weighted chi-squared, KS, Pearson and ANOVA; "
            "Spearman and Kruskal-Wallis have no weighted form and stay unweighted; normality decided unweighted"
        )
    return {"weighted": False, **(wdetails or {}), "conventions": conventions}


def _gdu_weighting(pair: EncodedPair, weighted: bool | None, mid: str) -> tuple[bool, dict[str, Any]]:
    """Whether to use the weighted tests; equal weights within each file are computed unweighted (the same tests)."""
    from .tables import _weighting

    use_w, wdetails = _weighting(pair, weighted, mid)
    if use_w and all(_equal(pair.weights(w)) for w in (ORIGINAL, PROTECTED)):
        wdetails["weights_note"] = "equal weights within each file: the weighted tests are the unweighted ones"
        return False, wdetails
    return use_w, wdetails


def _equal(w: np.ndarray) -> bool:
    return w.shape[0] == 0 or bool(w.min() == w.max())



def _valid_variants(value: Any) -> Any:
    _check_variants(value)
    return value


def _valid_weights(value: Any) -> Any:
    return _gdu_weights(value)


RECODE_VARIANT = Option(
    "recode_variant", "any", None, "Kocar's recoding utility variant, for all variables or per variable",
    check=_valid_variants, nullable=True,
    allowed_text="one of pairwise, biased, heterogeneity, or a mapping variable → variant",
)
THRESHOLD = Option("threshold", "float", 0.05, "p-value threshold of the tests", low=0, high=1, low_open=True, high_open=True)
GDU_WEIGHTS = Option(
    "weights", "any", (0.5, 0.5), "weights of the univariate and bivariate averages", check=_valid_weights,
    allowed_text="two non-negative numbers that sum to 1 (univariate, bivariate), such as 0.3,0.7 or [0.3, 0.7]",
)
GDU_WEIGHTED = Option(
    "weighted", "bool", None,
    "weighted chi-squared, KS, Pearson and ANOVA tests with the spec's weights (auto: when both files have weights)",
    nullable=True,
)
USE_GRC = Option("use_grc", "bool", True, "multiply by the global reduction coefficient when variables were removed")

@measure(
    "ldu_uni",
    family="gdu",
    description="Kocar's local univariate utility per variable: 1 − exp(−14 P) of a KS / chi-squared test, × recoding factor",
    range=(0, 1),
    better="higher",
    needs_pairing=False,
    options=(RECODE_VARIANT, GDU_WEIGHTED),
)
def ldu_uni(pair: EncodedPair, *, recode_variant: Any = None, weighted: bool | None = None) -> MeasureResult:
    """Local univariate data utility of every variable (Kocar 2018, §3.2–3.3).

    .. math:: LDU_{uni} = LDU^{gr}_{uni} \\times (1 - e^{-14P})

    ``P`` is the p-value of the two-sample Kolmogorov–Smirnov test
    (continuous; ``scipy.stats.ks_2samp``) or of the chi-squared test of the
    2 × K table source × category (categorical;
    ``scipy.stats.chi2_contingency(correction=False)``, empty categories
    dropped) on the non-missing values of each file.  ``P = 1`` gives 1.

    For a variable with a ``recode: map`` or ``recode: breaks`` in the spec the
    test compares the recoded original with the protected classes, and
    ``LDU^{gr}`` is one of the paper's three recoding factors (option
    ``recode_variant``): ``"pairwise"`` ``m(m−1)/(n(n−1))`` (n distinct
    original values, m classes they fall into; default for categorical →
    categorical), ``"biased"`` ``1 − n_ba/n`` (units closer to a unit of
    another class than to any unit of their own) or ``"heterogeneity"``
    ``1 − MAD_within/MAD_total`` on the original values (default for
    continuous → categorical).  ``top``/``bottom`` coding is compared with the
    KS test like a perturbation.  A removed variable scores 0.

    Parameters
    ----------
    pair : EncodedPair
    recode_variant : str or dict, optional
        One variant for every recoded variable, or ``{variable: variant}``.
    weighted : bool, optional
        Weighted tests (χ², KS, Pearson, ANOVA) with the spec's weights
        rescaled to Kish's effective sample size; Spearman and Kruskal–Wallis
        stay unweighted.  Default: when both files have weights.

    Returns
    -------
    MeasureResult
        ``value``: the mean over variables (= ALDU_uni); ``by_variable``;
        ``details["variables"]``: test, statistic, P, the KS/χ² utility and
        the recoding variant and factor per variable; ``details["not_computed"]``.

    References
    ----------
    Kocar, S. (2018). A universal global measure of univariate and bivariate
    data utility for anonymised microdata. CSRM & SRC Methods Paper 4/2018, ANU.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.gdu import ldu_uni
    >>> orig = pd.DataFrame({"g": list("aabbccdd")})
    >>> prot = pd.DataFrame({"g": ["ab"] * 4 + ["cd"] * 4})
    >>> spec = {"variables": {"g": {"scale": "nominal",
    ...         "recode": {"map": {"a": "ab", "b": "ab", "c": "cd", "d": "cd"}}}}}
    >>> round(ldu_uni(orig, prot, spec).by_variable["g"], 4)   # 2·1/(4·3) × 1 (same class counts)
    0.1667
    """
    use_w, wdetails = _gdu_weighting(pair, weighted, "ldu_uni")
    uni = _uni_result(pair, recode_variant, use_w)
    names = [n for n in pair.names(include_removed=True) if n in uni["values"]]
    by_variable = {n: float(uni["values"][n]) for n in names}
    details = {"variables": uni["details"], "not_computed": uni["not_computed"], **_common_details(wdetails)}
    return MeasureResult(value=float(np.mean(list(by_variable.values()))), by_variable=by_variable, details=details)


@measure(
    "aldu_uni",
    family="gdu",
    description="Kocar's average local univariate utility ALDU_uni over the analysed variables",
    range=(0, 1),
    better="higher",
    needs_pairing=False,
    options=(RECODE_VARIANT, GDU_WEIGHTED),
)
def aldu_uni(pair: EncodedPair, *, recode_variant: Any = None, weighted: bool | None = None) -> MeasureResult:
    """Average local univariate data utility (Kocar 2018, §3.1).

    .. math:: ALDU_{uni} = \\frac{1}{k}\\sum_{j=1}^{k} LDU_{uni,j}

    over the analysed variables (a removed variable counts with 0; a variable
    whose utility cannot be computed is left out and named in
    ``details["not_computed"]``).  Options as for :func:`ldu_uni`.

    References
    ----------
    Kocar, S. (2018). CSRM & SRC Methods Paper 4/2018, ANU.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.gdu import aldu_uni
    >>> df = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "g": list("abab")})
    >>> spec = {"variables": {"x": {"scale": "continuous"}, "g": {"scale": "nominal"}}}
    >>> aldu_uni(df, df.copy(), spec).value
    1.0
    """
    use_w, wdetails = _gdu_weighting(pair, weighted, "aldu_uni")
    uni = _uni_result(pair, recode_variant, use_w)
    values = list(uni["values"].values())
    details = {"n_variables": len(values), "not_computed": uni["not_computed"], **_common_details(wdetails)}
    return MeasureResult(value=float(np.mean(values)), details=details)


@measure(
    "ldu_biv",
    family="gdu",
    description="Kocar's local bivariate utility per pair: significance, direction and strength of the association",
    range=(0, 1),
    better="higher",
    needs_pairing=False,
    options=(THRESHOLD, GDU_WEIGHTED),
)
def ldu_biv(pair: EncodedPair, *, threshold: float = 0.05, weighted: bool | None = None) -> MeasureResult:
    """Local bivariate data utility of every pair of variables (Kocar 2018, §3.4).

    The test follows the paper's Table 1: nominal × nominal → chi-squared
    (Cramér's V² = χ²/(N(min(R,C)−1))); nominal × ordinal or non-normal
    continuous → Kruskal–Wallis H (ε² = H/(N−1)); nominal × normal continuous →
    one-way ANOVA F (η² = SSB/TSS); ordinal or non-normal pairs → Spearman ρ²;
    normal × normal → Pearson r².  Normality is decided on the original
    variable by a one-sample KS test against a fitted normal at ``threshold``.
    Then, with ``P_o``, ``P_p`` the two p-values:

    1. significance: both ≥ threshold → 1; exactly one < threshold → 0;
    2. direction: correlation signs differ, or
       ``Δ = mean(|MSD_p − MSD_o| − |MSD_o|) > 0`` over the cells (signed
       standardised residuals) or groups (signed sums of squares between
       groups) → 0;
    3. strength: ``1 − |c_o − c_p| / max(c_o, c_p) = min/max`` of the squared
       coefficients (both 0 → 1).

    A variable recoded from continuous into classes is ordinal in the
    protected file (r² or ρ² original against ρ² protected).  Pairs with a
    removed variable score 0.  Pairs that cannot be compared are left out and
    named in ``details["not_computed"]``.

    Parameters
    ----------
    pair : EncodedPair
    threshold : float, default 0.05
        The significance threshold ``P_t`` (also used for normality).
    weighted : bool, optional
        Weighted tests (χ², KS, Pearson, ANOVA) with the spec's weights
        rescaled to Kish's effective sample size; Spearman and Kruskal–Wallis
        stay unweighted.  Default: when both files have weights.

    Returns
    -------
    MeasureResult
        ``value``: mean over the pairs; ``by_pair``; ``details["pairs"]``: per
        pair the tests, statistics, both P values, both coefficients, the
        direction statistic (Δ or the two signs) and the step that decided;
        ``details["normality"]``.

    References
    ----------
    Kocar, S. (2018). CSRM & SRC Methods Paper 4/2018, ANU.
    Shlomo, N. (2010). Releasing microdata: disclosure risk estimation, data
    masking and assessing utility. Journal of Applied Statistics 37(3).

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.gdu import ldu_biv
    >>> orig = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6], "y": [1, 3, 2, 5, 4, 6]})
    >>> prot = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6], "y": [6, 5, 4, 3, 2, 1]})
    >>> spec = {"variables": {"x": {"scale": "ordinal"}, "y": {"scale": "ordinal"}}}
    >>> res = ldu_biv(orig, prot, spec)   # ρ = 1 − 6·4/(6·35) = 0.886 (P = 0.019) vs ρ = −1: reversed
    >>> res.by_pair, res.details["pairs"]["x|y"]["step"]
    ({'x|y': 0.0}, 'direction')
    """
    use_w, wdetails = _gdu_weighting(pair, weighted, "ldu_biv")
    biv = _biv_result(pair, threshold, use_w)
    details = {
        "pairs": biv["pairs"],
        "not_computed": biv["excluded"],
        "n_pairs": len(biv["by_pair"]),
        "n_excluded": len(biv["excluded"]),
        "normality": biv["normality"],
        "threshold": _check_threshold(threshold),
        "tests": _TEST_NAME,
        **_common_details(wdetails),
    }
    return MeasureResult(value=float(np.mean(list(biv["by_pair"].values()))), by_pair=dict(biv["by_pair"]),
                         details=details)


@measure(
    "aldu_biv",
    family="gdu",
    description="Kocar's average local bivariate utility ALDU_biv: mean over variables of their mean pair utility",
    range=(0, 1),
    better="higher",
    needs_pairing=False,
    options=(THRESHOLD, GDU_WEIGHTED),
)
def aldu_biv(pair: EncodedPair, *, threshold: float = 0.05, weighted: bool | None = None) -> MeasureResult:
    """Average local bivariate data utility (Kocar 2018, §3.1).

    .. math:: ALDU_{biv} = \\frac{1}{k}\\sum_{j=1}^{k}\\frac{1}{l_j}\\sum_{h\\ne j} LDU_{biv,jh}

    ``l_j`` is the number of compared pairs of variable ``j`` (``k − 1``
    unless pairs had to be left out); a removed variable has average 0.
    ``by_variable`` holds each variable's average.  Options as for
    :func:`ldu_biv`.

    References
    ----------
    Kocar, S. (2018). CSRM & SRC Methods Paper 4/2018, ANU.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.gdu import aldu_biv
    >>> df = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6], "y": [1, 3, 2, 5, 4, 6], "z": [1, 1, 2, 1, 2, 2]})
    >>> spec = {"variables": {"x": {"scale": "ordinal"}, "y": {"scale": "ordinal"}, "z": {"scale": "ordinal"}}}
    >>> aldu_biv(df, df.copy(), spec).value
    1.0
    """
    use_w, wdetails = _gdu_weighting(pair, weighted, "aldu_biv")
    biv = _biv_result(pair, threshold, use_w)
    by_var, missing = _per_variable_biv(biv)
    if not by_var:
        raise NotComputed("no variable has a compared pair")
    details = {"not_computed": missing, "n_pairs": len(biv["by_pair"]), "n_excluded": len(biv["excluded"]),
               "threshold": _check_threshold(threshold), **_common_details(wdetails)}
    return MeasureResult(value=float(np.mean(list(by_var.values()))), by_variable=by_var, details=details)


@measure(
    "grc",
    family="gdu",
    description="Kocar's global reduction coefficient for removed variables, n_p(n_p−1)/(n_o(n_o−1))",
    range=(0, 1),
    better="higher",
    needs_pairing=False,
)
def grc(pair: EncodedPair) -> MeasureResult:
    """Global reduction coefficient (Kocar 2018, §3.5).

    .. math:: GRC = \\frac{n(D_{prot})(n(D_{prot})-1)}{n(D_{orig})(n(D_{orig})-1)}

    over the analysed variables (ids and weights excluded), counting those
    marked ``removed: true`` in the spec as absent from the protected file.
    1 when no variable was removed (95 of 100 kept → 0.902).

    References
    ----------
    Kocar, S. (2018). CSRM & SRC Methods Paper 4/2018, ANU.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.gdu import grc
    >>> orig = pd.DataFrame({"a": [1, 2], "b": [1, 1], "c": [2, 2]})
    >>> prot = pd.DataFrame({"a": [1, 2], "b": [1, 1]})
    >>> spec = {"variables": {"a": {"scale": "nominal"}, "b": {"scale": "nominal"},
    ...                       "c": {"scale": "nominal", "removed": True}}}
    >>> round(grc(orig, prot, spec).value, 4)   # 2·1/(3·2)
    0.3333
    """
    n_orig = len(pair.names(include_removed=True))
    n_prot = n_orig - len(pair.removed)
    return MeasureResult(
        value=reduction_coefficient(n_orig, n_prot),
        details={"n_variables_orig": n_orig, "n_variables_prot": n_prot, "removed": list(pair.removed)},
    )


@measure(
    "gdu",
    family="gdu",
    description="Kocar's global data utility: w_u·ALDU_uni + w_b·ALDU_biv, × GRC when variables were removed",
    range=(0, 1),
    better="higher",
    needs_pairing=False,
    headline=True,
    options=(GDU_WEIGHTS, THRESHOLD, RECODE_VARIANT, USE_GRC, GDU_WEIGHTED),
)
def gdu(
    pair: EncodedPair,
    *,
    weights: Any = (0.5, 0.5),
    threshold: float = 0.05,
    recode_variant: Any = None,
    use_grc: bool = True,
    weighted: bool | None = None,
) -> MeasureResult:
    """Global data utility (Kocar 2018, §3.1 and §3.5).

    .. math:: GDU = (w_u\\,ALDU_{uni} + w_b\\,ALDU_{biv}) \\times GRC

    with ``(w_u, w_b) = (½, ½)`` ("univariate utility equally important to
    bivariate utility") unless ``weights`` says otherwise; the weights must be
    non-negative and sum to 1.  ``GRC`` is 1 when no variable was removed;
    ``use_grc=False`` leaves it out (the paper applies it "if required").
    Identical files give 1.

    Parameters
    ----------
    pair : EncodedPair
    weights : (float, float) or str, default (0.5, 0.5)
        Weights of ALDU_uni and ALDU_biv; as text, ``"0.3,0.7"``.
    threshold : float, default 0.05
        Significance threshold of the bivariate steps and the normality test.
    recode_variant : str or dict, optional
        Recoding utility variant, see :func:`ldu_uni`.
    use_grc : bool, default True
        Multiply by the global reduction coefficient.
    weighted : bool, optional
        Weighted tests (χ², KS, Pearson, ANOVA) with the spec's weights
        rescaled to Kish's effective sample size; Spearman and Kruskal–Wallis
        stay unweighted.  Default: when both files have weights.

    References
    ----------
    Kocar, S. (2018). A universal global measure of univariate and bivariate
    data utility for anonymised microdata. CSRM & SRC Methods Paper 4/2018, ANU.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.gdu import gdu
    >>> df = pd.DataFrame({"x": [1.0, 2.5, 3.0, 4.5, 5.0, 7.0], "g": list("aabbab")})
    >>> spec = {"variables": {"x": {"scale": "continuous"}, "g": {"scale": "nominal"}}}
    >>> gdu(df, df.copy(), spec).value
    1.0
    """
    w_u, w_b = _gdu_weights(weights)
    use_w, wdetails = _gdu_weighting(pair, weighted, "gdu")
    uni = _uni_result(pair, recode_variant, use_w) if w_u > 0 or w_b == 0 else None
    a_uni = float(np.mean(list(uni["values"].values()))) if uni is not None else None
    a_biv = None
    biv_missing: dict[str, str] = {}
    n_pairs = n_excluded = 0
    if w_b > 0:
        biv = _biv_result(pair, threshold, use_w)
        by_var, biv_missing = _per_variable_biv(biv)
        a_biv = float(np.mean(list(by_var.values())))
        n_pairs, n_excluded = len(biv["by_pair"]), len(biv["excluded"])
    n_orig = len(pair.names(include_removed=True))
    coef = reduction_coefficient(n_orig, n_orig - len(pair.removed)) if use_grc else 1.0
    value = (w_u * (a_uni or 0.0) + w_b * (a_biv or 0.0)) * coef
    details = {
        "aldu_uni": a_uni,
        "aldu_biv": a_biv,
        "grc": coef,
        "weights": [w_u, w_b],
        "use_grc": bool(use_grc),
        "n_variables": n_orig,
        "removed": list(pair.removed),
        "n_pairs": n_pairs,
        "n_pairs_excluded": n_excluded,
        "not_computed": {"univariate": uni["not_computed"] if uni else {}, "bivariate": biv_missing},
        "threshold": _check_threshold(threshold),
        **_common_details(wdetails),
    }
    return MeasureResult(value=value, details=details)
