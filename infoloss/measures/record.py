"""Record-level losses: compare each original record with its protected version.

Every measure here needs record-paired files (record ``i`` of the protected
file is the protected version of record ``i`` of the original).  The analysed
variables are the spec's variables that were not removed from the protected
file (removed variables are counted by the GDU's reduction coefficient, not
here).

Ids: ``missing_values``, ``suppressions``, ``records_changed``, ``il1s``,
``lambda`` (Python name ``lambda_``) and ``categorical_distance``.

Conventions for missing values (the literature is silent on most of them):

* a cell is *suppressed* when it is present in the original and missing in
  the protected file; a cell missing in both files is never a change;
* ``il1s`` skips cells where either value is missing (counted in
  ``details``); each variable's mean is over its compared cells;
* ``lambda`` uses the Handbook's record-wise rule (default) or sdcMicro's
  per-column constant for a value missing on one side, and distance 0 when
  both sides are missing;
* ``categorical_distance`` counts a value missing on one side as the maximal
  distance 1 and both sides missing as 0, as sdcMicro's ``IL_variables`` does
  for categorical variables.
"""

from __future__ import annotations

import math

import numpy as np

from .. import numeric
from .._concurrent import map_in_order
from ..errors import InputError, NotComputed
from ..generalised import changed as hierarchy_changed
from ..generalised import leaf_categories, partial_changes
from ..pair import ORIGINAL, PROTECTED, EncodedPair
from ..registry import MeasureResult, Option, measure

MISSING_RULE = Option(
    "missing_rule", "choice", "handbook", "how suppressed values count in λ: the Handbook's record-wise rule or sdcMicro's per-column constant",
    choices=("handbook", "sdcmicro"),
)

__all__ = [
    "missing_values",
    "suppressions",
    "records_changed",
    "il1s",
    "lambda_",
    "categorical_distance",
]

_TWO_OVER_PI = 2.0 / math.pi
MISSING_RULES = ("handbook", "sdcmicro")


# ---------------------------------------------------------------------------
# shared, cached helpers
# ---------------------------------------------------------------------------
def _missing(pair: EncodedPair, name: str, which: str) -> np.ndarray:
    """Boolean mask of the missing cells of one variable in one file (cached)."""

    def compute() -> np.ndarray:
        if name in pair.continuous:
            return np.isnan(pair.continuous[name].values(which))
        return pair.categorical[name].codes(which) < 0

    return pair.cached(("record", "missing", name, which), compute)


def _n_missing(pair: EncodedPair, name: str, which: str) -> int:
    return pair.cached(("record", "n_missing", name, which), lambda: int(np.count_nonzero(_missing(pair, name, which))))


def _changed(pair: EncodedPair, name: str) -> np.ndarray:
    """Records whose value of ``name`` differs between the files (cached).

    Newly missing (or newly present) counts as changed, missing in both does not.
    Continuous values are compared exactly.
    """

    def compute() -> np.ndarray:
        generalised = hierarchy_changed(pair, name)
        if generalised is not None:  # a variable with a hierarchy: changed unless the protected value is the leaf
            return generalised
        if name in pair.continuous:
            col = pair.continuous[name]
            changed = col.orig != col.prot  # NaN != anything, NaN included
            if _n_missing(pair, name, ORIGINAL) and _n_missing(pair, name, PROTECTED):
                changed &= ~(_missing(pair, name, ORIGINAL) & _missing(pair, name, PROTECTED))
            return changed
        col = pair.categorical[name]
        return col.orig != col.prot  # both missing: -1 == -1, not changed

    return pair.cached(("record", "changed", name), compute)


def _original_sd(pair: EncodedPair, name: str, e: int = 0) -> float:
    """Standard deviation (n - 1) of the original's non-missing values times ``2**-e``; 0.0 for a constant column.

    The values are scaled by ``2**-e`` first (exact), so that values near
    1e308 do not overflow the sum of squares.
    """

    def compute() -> float:
        x = pair.continuous[name].orig
        if _n_missing(pair, name, ORIGINAL):
            x = x[~_missing(pair, name, ORIGINAL)]
        if x.shape[0] < 2 or x.min() == x.max():
            return 0.0
        return float(numeric.scaled(x, e).std(ddof=1))

    return pair.cached(("record", "sd", name, e), compute)


def _per_cent(count: int, n: int) -> float:
    return 100.0 * count / n


def _hierarchy_fix(pair: EncodedPair, name: str, base) -> float:
    """What replacing the measure's distance of generalised values by the hierarchy's adds to its sum.

    A protected value that is a generalised node (not a leaf, not suppressed)
    has distance ``(L(v) − 1)/(|D| − 1)`` when it contains the original leaf
    (a partial change: the share of the domain it was made indistinguishable
    from) and 1 otherwise; ``base(mask)`` gives the measure's own distances of
    those records.
    """
    part = partial_changes(pair, name)
    if part is None:
        return 0.0
    return float(part.distance.sum() - np.asarray(base(part.mask), dtype=float).sum())


def _hierarchy_counts(pair: EncodedPair, names: list[str]) -> dict:
    """records_changed's details for variables with a hierarchy: generalised values and their partial loss."""
    generalised, partial = {}, {}
    for name in names:
        part = partial_changes(pair, name) if name in pair.generalised else None
        if name in pair.generalised:
            generalised[name] = part.n_truthful if part is not None else 0
            partial[name] = float(part.distance.sum()) if part is not None else 0.0
    if not generalised:
        return {}
    return {
        "generalised": generalised,
        "generalised_loss": partial,
        "hierarchy_note": "a value replaced by a more general one counts as changed; 'generalised' counts those that "
                          "contain the original value, 'generalised_loss' sums (L(v) - 1)/(|D| - 1) over the "
                          "generalised values (1 where the value does not contain the original)",
    }


# ---------------------------------------------------------------------------
# counts
# ---------------------------------------------------------------------------
@measure(
    "missing_values",
    shares_cores=True,
    unit="count",
    family="record",
    description="missing cells in the protected file, per variable (details: the same counts in the original)",
    range=(0, None),
    better="lower",
    needs_pairing=True,
)
def missing_values(pair: EncodedPair) -> MeasureResult:
    """Number of missing cells in the protected file.

    Counts the missing values of every analysed variable in the protected
    file and, for comparison, in the original file (Benschop, Machingauta &
    Welch, *SDC Practice Guide*, "Number of missing values").  Missing values
    are empty cells, nulls and the spec's missing codes.

    Returns
    -------
    MeasureResult
        ``value``: missing cells in the protected file over all analysed
        variables; ``by_variable``: per variable.  ``details.original``: the
        same counts in the original, ``details.total_original`` their sum,
        ``details.increase`` = value − total_original (negative when the
        protected file filled gaps), ``details.percent``: 100 · count / n per
        variable.

    References
    ----------
    Benschop, T., Machingauta, C. & Welch, M. (2022). *Statistical Disclosure
    Control: A Practice Guide*, section "Measuring utility and information
    loss". IHSN / World Bank.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.record import missing_values
    >>> orig = pd.DataFrame({"g": ["a", None, "b"], "x": [1.0, 2.0, 3.0]})
    >>> prot = pd.DataFrame({"g": [None, None, "b"], "x": [1.0, None, 3.0]})
    >>> spec = {"variables": {"g": {"scale": "nominal"}, "x": {"scale": "continuous"}}}
    >>> r = missing_values(orig, prot, spec)
    >>> r.value, r.by_variable, r.details["total_original"]
    (3.0, {'g': 2.0, 'x': 1.0}, 1)
    """
    names = pair.names()
    n = pair.n_prot
    prot = {name: _n_missing(pair, name, PROTECTED) for name in names}
    orig = {name: _n_missing(pair, name, ORIGINAL) for name in names}
    total, total_orig = sum(prot.values()), sum(orig.values())
    return MeasureResult(
        value=float(total),
        by_variable={name: float(c) for name, c in prot.items()},
        details={
            "original": orig,
            "total_original": total_orig,
            "increase": total - total_orig,
            "percent": {name: _per_cent(c, n) for name, c in prot.items()},
            "n_records": n,
        },
    )


@measure(
    "suppressions",
    shares_cores=True,
    unit="count",
    family="record",
    description="cells present in the original and missing in the protected file (local suppressions)",
    range=(0, None),
    better="lower",
    needs_pairing=True,
)
def suppressions(pair: EncodedPair) -> MeasureResult:
    """Number of suppressed cells: present in the original, missing in the protected record.

    For paired records this is the number of values removed by local
    suppression (or any other method that blanks values).  sdcMicro's
    ``print(sdc, "ls")`` reports the *net* change ``#NA(protected) −
    #NA(original)`` per key variable; the two agree whenever the protected
    file does not fill a value that is missing in the original, and the net
    change is given in ``details.net`` for comparison.

    Returns
    -------
    MeasureResult
        ``value``: total number of suppressed cells; ``by_variable``: per
        variable.  ``details.percent``: 100 · count / n per variable;
        ``details.filled``: cells missing in the original but present in the
        protected file; ``details.net``: sdcMicro's net count.

    References
    ----------
    Benschop, T., Machingauta, C. & Welch, M. (2022). *Statistical Disclosure
    Control: A Practice Guide*, "Number of missing values" (sdcMicro
    ``print(sdcObj, "ls")``).  Hundepool, A. et al. (2012). *Statistical
    Disclosure Control*, Wiley, section 3.5 (μ-ARGUS counts suppressions as
    information loss).

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.record import suppressions
    >>> orig = pd.DataFrame({"g": ["a", None, "b", "b"]})
    >>> prot = pd.DataFrame({"g": [None, None, "b", None]})
    >>> r = suppressions(orig, prot, {"variables": {"g": {"scale": "nominal"}}})
    >>> r.value, r.details["percent"]
    (2.0, {'g': 50.0})
    """
    names = pair.names()
    n = pair.n_orig
    counts, filled, net = {}, {}, {}
    for name in names:
        mo, mp = _missing(pair, name, ORIGINAL), _missing(pair, name, PROTECTED)
        n_o, n_p = _n_missing(pair, name, ORIGINAL), _n_missing(pair, name, PROTECTED)
        both = int(np.count_nonzero(mo & mp)) if n_o and n_p else 0
        counts[name] = n_p - both
        filled[name] = n_o - both
        net[name] = n_p - n_o
    return MeasureResult(
        value=float(sum(counts.values())),
        by_variable={name: float(c) for name, c in counts.items()},
        details={
            "percent": {name: _per_cent(c, n) for name, c in counts.items()},
            "filled": filled,
            "net": net,
            "n_records": n,
        },
    )


@measure(
    "records_changed",
    shares_cores=True,
    unit="count",
    family="record",
    description="records whose value differs, per variable (newly missing counts as changed); the value is the "
                "sum over variables (cells changed)",
    range=(0, None),
    better="lower",
    needs_pairing=True,
)
def records_changed(pair: EncodedPair) -> MeasureResult:
    """Number of records whose value of a variable differs from the original.

    A record counts as changed for variable ``j`` when ``x_ij != x'_ij``: a
    value that became missing (a suppression) is a change, a value missing in
    both files is not (the Practice Guide's rule).  Continuous values are
    compared exactly, so any perturbation, however small, is a change.  For a
    variable with a hierarchy a record is changed unless its protected value
    is the original leaf (nodes are compared, not an interval's midpoint); a
    generalised value is a change, and ``details.generalised`` /
    ``details.generalised_loss`` say how many of them contain the original
    and their partial loss ``Σ (L(v) − 1)/(|D| − 1)``.

    Returns
    -------
    MeasureResult
        ``value``: number of changed cells, summed over the variables;
        ``by_variable``: changed records per variable.  ``details.percent``:
        100 · count / n per variable; ``details.records_with_change``: records
        with at least one changed value, and ``details.percent_records_with_change``.

    References
    ----------
    Benschop, T., Machingauta, C. & Welch, M. (2022). *Statistical Disclosure
    Control: A Practice Guide*, section "Measuring utility and information
    loss", "Number of records changed". IHSN / World Bank.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.record import records_changed
    >>> orig = pd.DataFrame({"g": ["a", "b", None, "c"], "x": [1.0, 2.0, 3.0, 4.0]})
    >>> prot = pd.DataFrame({"g": ["a", None, None, "d"], "x": [1.0, 2.0, 3.5, 4.0]})
    >>> spec = {"variables": {"g": {"scale": "nominal"}, "x": {"scale": "continuous"}}}
    >>> r = records_changed(orig, prot, spec)
    >>> r.value, r.by_variable, r.details["records_with_change"]
    (3.0, {'g': 2.0, 'x': 1.0}, 3)
    """
    names = pair.names()
    n = pair.n_orig
    counts = {}
    any_changed = np.zeros(n, dtype=bool)
    for name in names:
        changed = _changed(pair, name)
        counts[name] = int(np.count_nonzero(changed))
        if counts[name]:
            any_changed |= changed
    n_any = int(np.count_nonzero(any_changed))
    return MeasureResult(
        value=float(sum(counts.values())),
        by_variable={name: float(c) for name, c in counts.items()},
        details={
            "percent": {name: _per_cent(c, n) for name, c in counts.items()},
            "records_with_change": n_any,
            "percent_records_with_change": _per_cent(n_any, n),
            "n_records": n,
            **_hierarchy_counts(pair, names),
        },
    )


# ---------------------------------------------------------------------------
# IL1s
# ---------------------------------------------------------------------------
@measure(
    "il1s",
    shares_cores=True,
    family="record",
    description="IL1s: mean absolute difference of paired continuous values over sqrt(2) times the original sd",
    range=(0, None),
    better="lower",
    needs_pairing=True,
    headline=True,
)
def il1s(pair: EncodedPair) -> MeasureResult:
    r"""IL1s of Yancey, Winkler & Creecy (2002) over the continuous variables.

    .. math::

        IL1s = \frac{1}{np}\sum_{j=1}^{p}\sum_{i=1}^{n}
               \frac{|x_{ij} - x'_{ij}|}{\sqrt{2}\,S_j}

    with ``S_j`` the standard deviation (divisor n − 1) of variable ``j`` in
    the original file.  ``by_variable`` holds the per-variable means
    ``(1/n) Σ_i |x_ij − x'_ij| / (√2 S_j)`` and ``value`` their mean.

    Missing values: a cell where either value is missing is skipped; the mean
    of variable ``j`` is over the ``n_j`` records where both values are present
    (``details.n_compared``, ``details.n_skipped``), and ``S_j`` uses the
    original's non-missing values.  Without missing values this is exactly
    the published formula.  Under ``pairing: nearest`` each protected value
    is compared with its matched original record's, and ``S_j`` is still
    the whole original file's (not that of the matched records, which may
    repeat some records and miss others).

    A variable whose original values are constant (``S_j = 0``), or with no
    record where both values are present, is left out and listed in
    ``details.not_computed``; when no variable is left the measure is not
    computed.

    ``details.sdcmicro`` is the un-normalised sum
    ``Σ_j Σ_i |x_ij − x'_ij| / (√2 S_j)`` over the compared cells of the
    computed variables, which is what sdcMicro's
    ``dUtility(method = "IL1s")`` returns (since 2018 it omits the ``1/(np)``
    factor).

    References
    ----------
    Yancey, W. E., Winkler, W. E. & Creecy, R. H. (2002). Disclosure risk
    assessment in perturbative microdata protection. In *Inference Control in
    Statistical Databases*, LNCS 2316, 135–152. Springer.
    Benschop, T., Machingauta, C. & Welch, M. (2022). *Statistical Disclosure
    Control: A Practice Guide*, "IL1s information loss measure".

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.record import il1s
    >>> orig = pd.DataFrame({"x": [1.0, 2.0, 3.0]})
    >>> prot = pd.DataFrame({"x": [1.0, 2.0, 4.0]})
    >>> round(il1s(orig, prot, {"variables": {"x": {"scale": "continuous"}}}).value, 4)
    0.2357
    """
    names = pair.continuous_names
    if not names:
        raise NotComputed("there is no continuous variable")
    root2 = math.sqrt(2.0)
    by_variable: dict[str, float] = {}
    sums: dict[str, float] = {}
    sd: dict[str, float] = {}
    n_compared: dict[str, int] = {}
    n_skipped: dict[str, int] = {}
    not_computed: dict[str, str] = {}
    for name in names:
        col = pair.continuous[name]
        # IL1s is scale-invariant: both files times one exact power of two, so nothing overflows near 1e308
        # S_j is the original file's, also under pairing: nearest (where col.orig holds the matched records)
        whole = pair.matched_from or pair
        e = numeric.exponent(whole.continuous[name].orig, col.prot)
        s = _original_sd(whole, name, e)
        if s == 0.0:
            not_computed[name] = "its original values are constant (standard deviation 0), so IL1s cannot scale by it"
            continue
        if _n_missing(pair, name, ORIGINAL) or _n_missing(pair, name, PROTECTED):
            ok = ~(_missing(pair, name, ORIGINAL) | _missing(pair, name, PROTECTED))
            diff = numeric.scaled(col.orig[ok], e) - numeric.scaled(col.prot[ok], e)
        else:
            diff = numeric.scaled(col.orig, e) - numeric.scaled(col.prot, e)
        m = diff.shape[0]
        if m == 0:
            not_computed[name] = "no record has a value in both files"
            continue
        total = float(np.abs(diff).sum()) / (root2 * s)
        sums[name] = total
        by_variable[name] = total / m
        sd[name] = numeric.unscale(s, e)
        n_compared[name] = m
        n_skipped[name] = pair.n_orig - m
    if not by_variable:
        reasons = "; ".join(f"{k}: {v}" for k, v in not_computed.items())
        raise NotComputed(f"no continuous variable can be used ({reasons})")
    details = {
        "sdcmicro": float(sum(sums.values())),
        "sd": sd,
        "n_compared": n_compared,
        "n_skipped": n_skipped,
        "n_records": pair.n_orig,
        "missing": "cells with a missing value in either file are skipped",
    }
    if not_computed:
        details["not_computed"] = not_computed
    return MeasureResult(
        value=float(np.mean(list(by_variable.values()))), by_variable=by_variable, details=details
    )


# ---------------------------------------------------------------------------
# Młodak's lambda
# ---------------------------------------------------------------------------
def _lambda_nominal(pair: EncodedPair, name: str) -> tuple[float, int]:
    # 0/1; one side missing -> codes differ -> 1 (both rules); both missing -> equal -> 0
    changed = _changed(pair, name)
    total = float(np.count_nonzero(changed)) + _hierarchy_fix(pair, name, lambda m: changed[m])
    return total, _one_side(pair, name)


def _one_side(pair: EncodedPair, name: str) -> int:
    n_o, n_p = _n_missing(pair, name, ORIGINAL), _n_missing(pair, name, PROTECTED)
    if not n_o and not n_p:
        return 0
    return int(np.count_nonzero(_missing(pair, name, ORIGINAL) ^ _missing(pair, name, PROTECTED)))


def _lambda_ordinal(pair: EncodedPair, name: str, rule: str) -> tuple[float, int]:
    col = pair.categorical[name]
    top = (leaf_categories(pair, name) or col.n_categories) - 1  # codes 0 .. top (a hierarchy's leaves)
    o, p = col.orig, col.prot
    n_o, n_p = _n_missing(pair, name, ORIGINAL), _n_missing(pair, name, PROTECTED)
    fix = _hierarchy_fix(pair, name, lambda m: np.abs(o[m] - p[m]) / top if top > 0 else np.zeros(int(m.sum())))
    if not n_o and not n_p:
        return (float(np.abs(o - p).sum()) / top if top > 0 else 0.0) + fix, 0
    mo, mp = _missing(pair, name, ORIGINAL), _missing(pair, name, PROTECTED)
    both = ~(mo | mp)
    total = (float(np.abs(o[both] - p[both]).sum()) / top if top > 0 else 0.0) + fix
    only_p = mp & ~mo  # suppressed in the protected file: the original code is known
    only_o = mo & ~mp  # missing in the original only: the protected code is known
    n_one = int(np.count_nonzero(only_p)) + int(np.count_nonzero(only_o))
    if n_one == 0:
        return total, 0
    if rule == "sdcmicro" or top == 0:
        return total + n_one, n_one
    # Handbook: impute the farthest category, distance max(c, top - c) / top
    known = np.concatenate([o[only_p], p[only_o]]).astype(np.int64)
    total += float(np.maximum(known, top - known).sum()) / top
    return total, n_one


def _lambda_continuous(pair: EncodedPair, name: str, rule: str) -> tuple[float, int, float | None]:
    col = pair.continuous[name]
    o, p = col.orig, col.prot
    n_o, n_p = _n_missing(pair, name, ORIGINAL), _n_missing(pair, name, PROTECTED)
    with np.errstate(over="ignore"):  # |x - x'| beyond 1.8e308 is infinite, and arctan gives its limit, π/2
        d = o - p  # NaN where either side is missing
    np.abs(d, out=d)
    if n_o or n_p:
        d[_missing(pair, name, ORIGINAL) | _missing(pair, name, PROTECTED)] = 0.0
    total = _TWO_OVER_PI * float(np.arctan(d, out=d).sum())
    total += _hierarchy_fix(pair, name, lambda m: _TWO_OVER_PI * np.arctan(np.abs(o[m] - p[m])))
    if not n_o and not n_p:
        return total, 0, None
    mo, mp = _missing(pair, name, ORIGINAL), _missing(pair, name, PROTECTED)
    only_p = mp & ~mo  # suppressed: the original value is known
    only_o = mo & ~mp  # missing in the original only: the protected value is known
    n_one = int(np.count_nonzero(only_p)) + int(np.count_nonzero(only_o))
    if n_one == 0:
        return total, 0, None
    if n_o == o.shape[0]:  # no original value to impute from (see missing_rule): the largest distance
        return total + n_one, n_one, None
    o_min, o_max = _original_range(pair, name)
    if rule == "sdcmicro":
        if n_p == p.shape[0]:  # nothing left in the protected file: sdcMicro's constant is infinite
            return total + n_one, n_one, None
        p_min, p_max = float(np.nanmin(p)), float(np.nanmax(p))
        gap = max(abs(p_min - o_max), abs(p_max - o_min))
        return total + n_one * _TWO_OVER_PI * math.atan(gap), n_one, gap
    # Handbook (Młodak et al. 2022): x' := max if x <= median else min (of the original)
    med = _original_median(pair, name)
    known = np.concatenate([o[only_p], p[only_o]])
    imputed = np.where(known <= med, o_max, o_min)
    with np.errstate(over="ignore"):
        d = np.abs(known - imputed)
    return total + _TWO_OVER_PI * float(np.arctan(d, out=d).sum()), n_one, None


def _original_range(pair: EncodedPair, name: str) -> tuple[float, float]:
    """Minimum and maximum of the original's non-missing values (cached)."""
    o = pair.continuous[name].orig
    return pair.cached(("record", "min_max", name), lambda: (float(np.nanmin(o)), float(np.nanmax(o))))


def _original_median(pair: EncodedPair, name: str) -> float:
    """Median of the original's non-missing values (cached)."""

    def compute() -> float:
        x = pair.continuous[name].orig
        if _n_missing(pair, name, ORIGINAL):
            x = x[~_missing(pair, name, ORIGINAL)]
        return float(np.median(x))

    return pair.cached(("record", "median", name), compute)


@measure(
    "lambda",
    shares_cores=True,
    family="record",
    description="Młodak's λ: mean distance between paired values over all variables (nominal, ordinal, continuous)",
    range=(0, 1),
    better="lower",
    needs_pairing=True,
    headline=True,
    options=(MISSING_RULE,),
)
def lambda_(pair: EncodedPair, *, missing_rule: str = "handbook") -> MeasureResult:
    r"""Młodak's complex distance measure λ over variables of all scales.

    .. math::

        \lambda = \frac{1}{nm}\sum_{j=1}^{m}\sum_{i=1}^{n} d(x'_{ij}, x_{ij}),
        \qquad
        \lambda_j = \frac{1}{n}\sum_{i=1}^{n} d(x'_{ij}, x_{ij})

    over the ``m`` analysed variables, with the distance by scale:

    * nominal: 0 if equal, 1 otherwise;
    * ordinal with ``L`` categories: ``|code − code'| / (L − 1)``, ``L`` =
      the shared category dictionary of both files (for numeric codes without
      an ``order`` in the spec: the sorted union of the codes in both files,
      as used for the sdcMicro reference); a variable with one category has
      distance 0;
    * continuous: ``(2/π) arctan|x − x'|`` (not scale-free: differences much
      larger than 1 give distances near 1);
    * a variable with a hierarchy (any scale): a generalised protected value
      has distance ``(L(v) − 1)/(|D| − 1)`` when it contains the original (a
      partial change: the share of the domain it was made indistinguishable
      from) and 1 when it does not; leaves keep their scale's distance
      (``L`` of an ordinal variable counts the hierarchy's leaves among the
      categories) and a suppressed value follows ``missing_rule``.

    ``by_variable`` holds ``λ_j`` and ``value`` is their mean (= λ).

    Parameters
    ----------
    missing_rule : {"handbook", "sdcmicro"}, default "handbook"
        Distance for a value missing in one file only (both missing: 0).

        ``"handbook"`` — the record-wise rule of Młodak, Pietrzak & Józefowski
        (2022) as given in the Handbook on SDC for suppressed values: nominal
        ``d = 1``; ordinal: the suppressed value is imputed as the category
        farthest from the known one, so ``d = max(c, L − 1 − c)/(L − 1)``;
        continuous: impute ``max_h x_hj`` if ``x_ij ≤ med_h x_hj``, else
        ``min_h x_hj`` (over the original's values), then the arctan distance.
        A value missing in the original but present in the protected file is
        treated symmetrically (the known protected value takes the place of
        ``x_ij``; median, minimum and maximum still from the original).

        ``"sdcmicro"`` — what sdcMicro's ``IL_variables`` does: nominal and
        ordinal ``d = 1``; continuous: one constant per column,
        ``(2/π) arctan max(|min x' − max x|, |max x' − min x|)`` (if the
        protected column is entirely missing, ``d = 1``, the limit of
        sdcMicro's infinite constant).

        Under either rule, a continuous variable with no value in the
        original (possible among the original records a nearest pairing
        matched) has no minimum, maximum or median to impute from: its
        one-sided missing values get ``d = 1``, the largest distance.

    Returns
    -------
    MeasureResult
        ``details.missing_rule``: the rule used; ``details.one_side_missing``:
        cells with a value in one file only, per variable;
        ``details.sdcmicro_constant``: the per-column differences used by the
        ``"sdcmicro"`` rule.

    References
    ----------
    Młodak, A. (2020). Information loss resulting from statistical disclosure
    control of output data. *Wiadomości Statystyczne* 65(9), 7–27.
    Młodak, A., Pietrzak, M. & Józefowski, T. (2022). The trade-off between
    the risk of disclosure and data utility in SDC: a case of the Polish
    survey of accidents at work. *Statistics in Transition new series* 23(1).
    Hundepool, A. et al. *Handbook on Statistical Disclosure Control*,
    section "Measurement of information loss".  sdcMicro ``IL_variables()``.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.record import lambda_
    >>> orig = pd.DataFrame({"g": ["a", "b"], "o": [1, 3], "x": [0.0, 5.0]})
    >>> prot = pd.DataFrame({"g": ["a", "a"], "o": [2, 3], "x": [1.0, 5.0]})
    >>> spec = {"variables": {"g": {"scale": "nominal"}, "o": {"scale": "ordinal"},
    ...                       "x": {"scale": "continuous"}}}
    >>> r = lambda_(orig, prot, spec)
    >>> r.by_variable   # g: 1/2; o: (1/2)/2; x: (2/pi)·atan(1)/2 = 1/4
    {'g': 0.5, 'o': 0.25, 'x': 0.25}
    >>> round(r.value, 4)
    0.3333
    """
    if missing_rule not in MISSING_RULES:
        raise InputError(f"missing_rule must be 'handbook' or 'sdcmicro', got {missing_rule!r}.")
    n = pair.n_orig
    names = pair.names()
    if not names:
        raise NotComputed("every variable was removed from the protected file, so no value can be compared")

    def one(name: str) -> tuple[float, int, float | None]:
        if name in pair.continuous:
            return _lambda_continuous(pair, name, missing_rule)
        if pair.categorical[name].scale == "ordinal":
            return (*_lambda_ordinal(pair, name, missing_rule), None)
        return (*_lambda_nominal(pair, name), None)

    by_variable: dict[str, float] = {}
    one_side: dict[str, int] = {}
    constants: dict[str, float] = {}
    for name, (total, k, gap) in zip(names, map_in_order(one, names, n * len(names), max_workers=4)):
        by_variable[name] = total / n
        one_side[name] = k
        if gap is not None:
            constants[name] = gap
    details: dict = {"missing_rule": missing_rule, "one_side_missing": one_side, "n_records": n}
    if missing_rule == "sdcmicro":
        details["sdcmicro_constant"] = constants
    return MeasureResult(value=float(np.mean(list(by_variable.values()))), by_variable=by_variable, details=details)


# ---------------------------------------------------------------------------
# direct categorical distance
# ---------------------------------------------------------------------------
@measure(
    "categorical_distance",
    shares_cores=True,
    family="record",
    description="Domingo-Ferrer & Torra direct comparison of categorical values: mean nominal 0/1 or ordinal distance",
    range=(0, 1),
    better="lower",
    needs_pairing=True,
)
def categorical_distance(pair: EncodedPair) -> MeasureResult:
    r"""Direct comparison of categorical values (Domingo-Ferrer & Torra 2001).

    For each categorical variable the mean over records of the distance
    between the original category ``c`` and its protected version ``c'``:

    * nominal: ``d(c, c') = 0`` if ``c = c'``, else 1;
    * ordinal: ``dc(c, c') = |{c'' : min(c, c') ≤ c'' < max(c, c')}| / |D(V)|
      = |code − code'| / L``, with ``D(V)`` the variable's range, i.e. the
      ``L`` categories of the shared dictionary (the spec's ``order`` if given,
      else the categories seen in either file).  Its maximum is
      ``(L − 1)/L``.

    Missing values (our convention, as in sdcMicro's ``IL_variables``): a
    value missing in one file only has distance 1, a value missing in both
    has distance 0.

    Variables with a hierarchy (docs/spec.md): a generalised protected
    value has distance ``(L(v) − 1)/(|D| − 1)`` when it contains the
    original leaf — a partial change, the share of the domain it was made
    indistinguishable from (Iyengar's loss) — and 1 when it does not; a
    suppressed value (``*``) counts as missing; ``L`` of an ordinal variable
    counts the hierarchy's leaves among the categories.

    Returns
    -------
    MeasureResult
        ``by_variable``: mean distance per categorical variable; ``value``:
        their mean, in [0, 1].  Not computed without categorical variables.

    References
    ----------
    Domingo-Ferrer, J. & Torra, V. (2001). Disclosure control methods and
    information loss for microdata. In *Confidentiality, Disclosure and Data
    Access*, 91–110. North-Holland.  Hundepool, A. et al. *Handbook on
    Statistical Disclosure Control*, "Direct comparison of categorical values".

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.record import categorical_distance
    >>> orig = pd.DataFrame({"g": ["a", "b", "a", "b"], "o": [1, 2, 3, 4]})
    >>> prot = pd.DataFrame({"g": ["a", "a", "a", "b"], "o": [1, 4, 3, None]})
    >>> spec = {"variables": {"g": {"scale": "nominal"}, "o": {"scale": "ordinal"}}}
    >>> r = categorical_distance(orig, prot, spec)
    >>> r.by_variable   # g: 1/4; o: (0 + 2/4 + 0 + 1)/4
    {'g': 0.25, 'o': 0.375}
    >>> r.value
    0.3125
    """
    names = pair.categorical_names
    if not names:
        raise NotComputed("there is no categorical (nominal or ordinal) variable")
    n = pair.n_orig
    by_variable: dict[str, float] = {}
    for name in names:
        col = pair.categorical[name]
        if col.scale != "ordinal":
            changed = _changed(pair, name)
            total = float(np.count_nonzero(changed)) + _hierarchy_fix(pair, name, lambda m: changed[m])
            by_variable[name] = total / n
            continue
        size = leaf_categories(pair, name) or col.n_categories  # with a hierarchy: its leaves, not generalised values
        o, p = col.orig, col.prot
        if _n_missing(pair, name, ORIGINAL) or _n_missing(pair, name, PROTECTED):
            mo, mp = _missing(pair, name, ORIGINAL), _missing(pair, name, PROTECTED)
            both = ~(mo | mp)
            total = float(np.abs(o[both] - p[both]).sum()) / size + int(np.count_nonzero(mo ^ mp))
        else:
            total = float(np.abs(o - p).sum()) / size
        total += _hierarchy_fix(pair, name, lambda m: np.abs(o[m] - p[m]) / size)
        by_variable[name] = total / n
    return MeasureResult(
        value=float(np.mean(list(by_variable.values()))),
        by_variable=by_variable,
        details={
            "n_records": n,
            "n_categories": {name: pair.categorical[name].n_categories for name in names},
            "missing": "one side missing: distance 1; both missing: 0",
        },
    )
