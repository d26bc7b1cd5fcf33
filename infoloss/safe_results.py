"""Safe-to-share rules for the measure results and the analyses block of the JSON.

``Report.to_json(safe=True, min_cell=N)`` (command line ``--safe``) applies
these rules to every scenario after the before/after ``tables`` rules
(:func:`infoloss.before_after.safe_tables`).  A value that is withheld
becomes ``null``; the scenario's ``"safe"`` block says how many were
withheld, and a measure whose ``value`` is withheld says why in its
``"withheld"`` entry (a measure that could not be computed has its reason
in ``not_computed`` instead).  The rules:

1. **Counts of records.**  A count strictly between 0 and ``min_cell`` is
   withheld (0 and counts of at least ``min_cell`` stay):

   * the ``value`` and each ``by_variable`` entry of a count measure (the
     registry's ``unit="count"``: missing_values, suppressions,
     records_changed, suppressed_records, k_anonymity_violations), and in
     its details the original's counts (``details.original``) and the
     ``percent`` of a withheld per-variable count;
   * in every measure's ``details`` (and the analyses' regressions) every
     number under a key of :data:`COUNT_KEYS` -- e.g. ``count``,
     ``copies``, ``records_at_risk``, ``records_with_msu``,
     ``uniques_U``, the k-anonymity ``by_k`` counts, igpl's
     ``anonymity_before``/``anonymity_after`` (smallest class sizes), and
     every entry of ``msu_by_size``, ``dis_table``, ``distinct_counts``,
     ``filled``, ``net``.  A ``share``, ``percent`` or ``anonymity_loss``
     beside a withheld count is withheld too (it gives the count back), and
     so is the value of a share measure whose count is withheld
     (sample_uniques, exact_copies, interval_disclosure, msu_share);
   * in discernibility's ``class_sizes`` (``[size, classes]`` pairs) the
     number of classes of a size whose classes hold fewer than
     ``min_cell`` records in all.
   Parameters (``k``, ``l``, ``t``, seeds, ``max_records``) and the number
   of records of a whole file (``n_records``) are never withheld.
2. **Per-record material.**  Lists of numbers as long as one of the files
   (one value per record) and keys such as ``per_record``, ``residuals``
   or ``leverages`` are withheld; per-record risk files are never written
   in safe mode (the command line refuses ``--safe`` with ``--records``).
3. **Extremes of the original.**  ``max_dis`` and ``max_score`` (the
   riskiest record's DIS and SUDA scores) and the ``min``/``max`` of
   per-class distributions (those reported with quartiles, as in
   l_diversity) are withheld.  ``min``/``max`` over seeds (a dict with
   ``values`` and ``seeds``) and over variables stay.
4. **Analyses.**  An estimate whose original or protected domain has fewer
   than ``min_cell`` records gets that side's ``value``, ``se``,
   ``lower``, ``upper`` and ``n`` withheld, and with them ``difference``,
   ``relative_difference``, ``inside_original_ci`` and ``ci_overlap``;
   quantiles at 0 and 1 (the minimum and maximum) are withheld on both
   sides, and so is a side whose proportion stands for fewer than
   ``min_cell`` records in or out of its category (``p·n`` or
   ``(1 − p)·n``; as the HTML report's analyses section does).  Regression
   coefficients are model summaries and stay as they are.
5. **Descriptive statistics.**  Every statistic of a continuous variable
   observed in fewer than ``min_cell`` records of a file (``statistics``:
   its n, mean, interval, sd, variance and covariance/correlation row and
   column) is withheld.
6. **Rounding.**  Every other non-integer number of the ``details`` and of
   the analyses block is rounded to 3 significant digits
   (:func:`infoloss.report.safe.round_sig`), like the descriptive
   statistics.  Measure values, ``by_variable`` and ``by_pair`` are not
   rounded; integers (parameters, counts kept) are not rounded.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from .report.safe import round_sig

__all__ = ["COUNT_KEYS", "record_counts", "safe_measures", "safe_analyses", "safe_risk_utility", "safe_statistics"]

#: Detail keys whose numbers (and every number inside a dict or list under them) count records.
COUNT_KEYS = frozenset({
    # record family
    "total_original", "increase", "filled", "net", "records_with_change", "one_side_missing",
    "n_skipped", "n_skipped_missing", "n_excluded_zero", "generalised",
    # risk family
    "count", "copies", "records_at_risk", "records_with_msu", "unweighted", "uniques_U", "uniques_exact",
    "pair_records_P", "msu_by_size", "dis_table", "distinct_counts",
    # generalisation (anonymity: the smallest class size)
    "suppressed", "anonymity_before", "anonymity_after",
    # propensity and clustering
    "separated", "cluster_sizes",
    # the user's regressions
    "n_filtered_out", "n_missing", "n_not_finite", "n_used",
})
#: Numbers under a count key that are not counts.
NOT_COUNTS = frozenset({"sd", "share", "percent", "seeds", "seed"})
#: Shares, percentages and differences that give a withheld sibling count back (and any key that starts with
#: one of SHARE_PREFIXES, e.g. ``percent_records_with_change`` beside ``records_with_change``).
SHARE_KEYS = frozenset({"share", "percent", "anonymity_loss"})
SHARE_PREFIXES = ("share_", "percent_")
#: Per-record material, withheld whatever its content.
PER_RECORD_KEYS = frozenset({"per_record", "residuals", "leverages", "leverage", "fitted_values", "records_list",
                             "row", "rows"})
#: Extremes of a record's risk in the original or protected file.
EXTREME_KEYS = frozenset({"max_dis", "max_score"})
#: Lists that are never per-record, whatever their length.
NOT_PER_RECORD = frozenset({"seeds", "values", "by_seed", "variables", "key_variables", "features",
                            "eigenvalues_original", "eigenvalues_protected", "component_weights", "weights",
                            "n_eff", "dof", "mean_ci_overlap", "inside_share", "conventions", "mean_ci"})
#: Estimate fields that compare the two sides (withheld when either side is).
COMPARISON_KEYS = ("difference", "relative_difference", "inside_original_ci", "ci_overlap")
SIDE_VALUE_KEYS = ("value", "se", "lower", "upper", "n")
#: Measures whose value is a share of records, and the detail that holds the count behind it.
SHARE_MEASURES = {"sample_uniques": "count", "exact_copies": "copies", "interval_disclosure": "records_at_risk",
                  "msu_share": "records_with_msu"}


@dataclass
class _Safe:
    """The rules' settings and the running count of withheld values."""

    min_cell: int
    record_counts: frozenset[int]
    withheld: int = 0

    def small(self, x: Any) -> bool:
        return _is_number(x) and 0 < x < self.min_cell

    def withhold(self) -> None:
        self.withheld += 1


def safe_measures(measures: dict[str, Any], min_cell: int, registry: Any,
                  n_records: tuple[int, ...] = ()) -> tuple[dict[str, Any], dict[str, int]]:
    """The measures' JSON (``scenario["measures"]``) under the safe-to-share rules.

    Parameters
    ----------
    measures : dict
        Measure id -> ``MeasureResult.to_dict()``.
    min_cell : int
        The smallest count of records shown.
    registry : module
        :mod:`infoloss.registry` (its ``get(id).unit`` says which measures are counts).
    n_records : tuple of int
        The numbers of records of the files (lists this long are per-record).

    Returns
    -------
    (dict, dict)
        The safe measures (a new dict; the input is not changed) and the
        summary ``{"min_cell": min_cell, "withheld": values nulled}``.

    Examples
    --------
    >>> from infoloss import registry
    >>> import infoloss.measures
    >>> m = {"suppressions": {"value": 3.0, "by_variable": {"a": 3.0, "b": 0.0},
    ...                       "details": {"percent": {"a": 0.3, "b": 0.0}, "n_records": 1000}}}
    >>> out, summary = safe_measures(m, 5, registry)
    >>> out["suppressions"]["value"], out["suppressions"]["by_variable"], out["suppressions"]["details"]["percent"]
    (None, {'a': None, 'b': 0.0}, {'a': None, 'b': 0.0})
    >>> summary
    {'min_cell': 5, 'withheld': 3}
    """
    state = _Safe(int(min_cell), frozenset(int(n) for n in n_records if n))
    out = {mid: _safe_measure(mid, m, state, registry) for mid, m in measures.items()}
    return out, {"min_cell": state.min_cell, "withheld": state.withheld}


def safe_analyses(analyses: dict[str, Any], min_cell: int,
                  n_records: tuple[int, ...] = ()) -> tuple[dict[str, Any], dict[str, int]]:
    """The ``analyses`` block of a scenario under the safe-to-share rules (rule 4 of the module)."""
    state = _Safe(int(min_cell), frozenset(int(n) for n in n_records if n))
    out = _walk(analyses, state, parent="analyses", counting=False)
    return out, {"min_cell": state.min_cell, "withheld": state.withheld}


def safe_risk_utility(block: dict[str, Any], min_cell: int, registry: Any) -> dict[str, Any]:
    """The risk-utility map with a count risk measure's small values withheld (a new dict)."""
    mid = block.get("risk_measure")
    try:
        counts = mid is not None and registry.get(mid).unit == "count"
    except KeyError:
        counts = False
    if not counts:
        return block
    state = _Safe(int(min_cell), frozenset())
    points = []
    for point in block.get("points", []):
        point = dict(point)
        if state.small(point.get("risk")):
            point["risk"] = None
        points.append(point)
    return {**block, "points": points}


def record_counts(scenario: dict[str, Any]) -> tuple[int, ...]:
    """The numbers of records of the files behind a scenario's JSON (the scenario's and the measures' ``n_records``)."""
    found = {scenario.get("n_records")}
    for result in scenario.get("measures", {}).values():
        n = (result.get("details") or {}).get("n_records")
        found.update(n.values() if isinstance(n, dict) else [n])
    return tuple(sorted(int(n) for n in found if _is_number(n) and n > 0))


def safe_statistics(stats: dict[str, Any], min_cell: int) -> tuple[dict[str, Any], int]:
    """The descriptive ``statistics`` block with every statistic of a variable observed in fewer than
    ``min_cell`` records of a file withheld (its n, mean, interval, sd, variance, covariance and
    correlation row and column); returns the block and the number of values withheld.

    >>> s = {"variables": ["a", "b"], "orig": {"n": {"a": 3, "b": 50}, "mean": {"a": 1.0, "b": 2.0},
    ...      "corr": [[1.0, 0.5], [0.5, 1.0]]}}
    >>> out, withheld = safe_statistics(s, 5)
    >>> out["orig"]["n"], out["orig"]["mean"], out["orig"]["corr"], withheld
    ({'a': None, 'b': 50}, {'a': None, 'b': 2.0}, [[None, None], [None, 1.0]], 5)
    """
    names = list(stats.get("variables") or [])
    out = dict(stats)
    withheld = 0
    for side in ("orig", "prot"):
        block = stats.get(side)
        if not isinstance(block, dict) or not isinstance(block.get("n"), dict):
            continue
        small = {v for v, n in block["n"].items() if _is_number(n) and 0 < n < min_cell}
        if not small:
            continue
        block = dict(block)
        for key, value in block.items():
            if isinstance(value, dict):
                block[key] = {v: (None if v in small else x) for v, x in value.items()}
                withheld += sum(1 for v in small if value.get(v) is not None)
            elif isinstance(value, list) and len(value) == len(names):  # a matrix in the order of ``variables``
                rows = [[None if (names[i] in small or names[j] in small) else x for j, x in enumerate(row)]
                        if isinstance(row, list) else row for i, row in enumerate(value)]
                withheld += sum(r.count(None) for r in rows if isinstance(r, list)) - sum(
                    r.count(None) for r in value if isinstance(r, list))
                block[key] = rows
        out[side] = block
    return out, withheld


# ---------------------------------------------------------------------------
# measures
# ---------------------------------------------------------------------------
def _safe_measure(mid: str, result: dict[str, Any], state: _Safe, registry: Any) -> dict[str, Any]:
    out = dict(result)
    try:
        counts = registry.get(mid).unit == "count"
    except KeyError:
        counts = False
    withheld_vars: set[str] = set()
    if counts:
        if state.small(out.get("value")):
            out["value"] = None
            out["withheld"] = f"safe mode: the value is a count of fewer than {state.min_cell} records"
            state.withhold()
        if isinstance(out.get("by_variable"), dict):
            by_variable = {}
            for name, v in out["by_variable"].items():
                if state.small(v):
                    withheld_vars.add(name)
                    state.withhold()
                    v = None
                by_variable[name] = v
            out["by_variable"] = by_variable
    if isinstance(out.get("details"), dict):
        details = dict(out["details"])
        if counts:
            details = _count_measure_details(details, withheld_vars, state)
        out["details"] = _walk(details, state, parent="details", counting=False)
        behind = SHARE_MEASURES.get(mid)
        if behind and state.small(details.get(behind)) and out.get("value") not in (None, 0):
            out["value"] = None  # the share gives the withheld count back through n_records
            out["withheld"] = (f"safe mode: the value is a share of {behind!r}, a count of fewer than "
                               f"{state.min_cell} records, which it would give back")
            state.withhold()
    return out


def _count_measure_details(details: dict[str, Any], withheld_vars: set[str], state: _Safe) -> dict[str, Any]:
    """A count measure's own details: the original's counts and the percentages of withheld counts."""
    percent = details.get("percent")
    if isinstance(percent, dict) and withheld_vars:
        details["percent"] = {k: (None if k in withheld_vars else v) for k, v in percent.items()}
        state.withheld += sum(1 for k in withheld_vars if percent.get(k) is not None)
    original = details.get("original")
    if isinstance(original, dict):
        # the same measure on the original: a count ("value") or counts per variable
        details["original"] = _walk(original, state, parent="original", counting=True)
    return details


# ---------------------------------------------------------------------------
# the walk over details and analyses
# ---------------------------------------------------------------------------
def _walk(obj: Any, state: _Safe, *, parent: str, counting: bool) -> Any:
    """``obj`` with the rules applied; ``counting``: every number in it is a count of records."""
    if isinstance(obj, dict):
        return _walk_dict(obj, state, parent=parent, counting=counting)
    if isinstance(obj, np.ndarray):
        obj = obj.tolist()
    if isinstance(obj, (list, tuple)):
        if parent == "estimates" and all(isinstance(r, dict) and "statistic" in r for r in obj):
            return [_safe_estimate(r, state) for r in obj]
        if parent == "coefficients":
            return list(obj)
        if parent == "class_sizes":
            return [_class_size(pair, state) for pair in obj]
        if _per_record(obj, parent, state):
            state.withhold()
            return None
        return [_walk(v, state, parent=parent, counting=counting) for v in obj]
    if _is_number(obj):
        if counting and state.small(obj):
            state.withhold()
            return None
        return int(obj) if isinstance(obj, numbers.Integral) else round_sig(float(obj))
    return obj


def _walk_dict(obj: dict, state: _Safe, *, parent: str, counting: bool) -> dict:
    seed_summary = "values" in obj and "seeds" in obj
    distribution = ("q1" in obj or "median" in obj) and not seed_summary  # a per-class or per-record spread
    counted = COUNT_KEYS | {"weighted"} if "unweighted" in obj else COUNT_KEYS  # k-anonymity's by_k
    out: dict[str, Any] = {}
    withheld_here = False
    for key, value in obj.items():
        key_s = str(key)
        if key_s in PER_RECORD_KEYS and value is not None:
            state.withhold()
            out[key] = None
            continue
        if key_s in EXTREME_KEYS or (distribution and key_s in ("min", "max")):
            if _is_number(value):
                state.withhold()
                value = None
            out[key] = value
            continue
        child_counts = (counting or key_s in counted) and key_s not in NOT_COUNTS
        before = state.withheld
        out[key] = _walk(value, state, parent=key_s, counting=child_counts)
        if child_counts and state.withheld > before and not isinstance(value, (dict, list)):
            withheld_here = True
    if withheld_here:  # a share or percent beside a withheld count gives it back
        for key in [k for k in out if str(k) in SHARE_KEYS or str(k).startswith(SHARE_PREFIXES)]:
            if _is_number(out[key]) and out[key] != 0:
                out[key] = None
                state.withhold()
    return out


def _class_size(pair: Any, state: _Safe) -> Any:
    """A ``[class size, number of classes]`` pair: the number withheld when the classes hold too few records."""
    if isinstance(pair, (list, tuple)) and len(pair) == 2 and all(_is_number(v) for v in pair):
        size, classes = pair
        if state.small(size * classes):
            state.withhold()
            return [int(size), None]
        return [int(size), int(classes)]
    return pair


def _per_record(values: list | tuple, parent: str, state: _Safe) -> bool:
    """A list with one number per record of a file (and not a list that is never per-record)."""
    if parent in NOT_PER_RECORD or len(values) not in state.record_counts or len(values) < 2:
        return False
    return all(v is None or _is_number(v) for v in values)


# ---------------------------------------------------------------------------
# analyses
# ---------------------------------------------------------------------------
def _safe_estimate(row: dict[str, Any], state: _Safe) -> dict[str, Any]:
    """One estimate row: small domains and minima/maxima withheld, other numbers rounded."""
    out = _walk_dict({k: v for k, v in row.items() if k not in ("original", "protected")}, state,
                     parent="estimate", counting=False)
    extreme = row.get("statistic") == "quantile" and str(row.get("estimate", "")).endswith((", 0)", ", 1)"))
    hidden = False
    for side in ("original", "protected"):
        values = row.get(side)
        if not isinstance(values, dict):
            out[side] = values
            continue
        n = values.get("n")
        small_share = row.get("statistic") == "proportion" and small_proportion(values, state.min_cell)
        if extreme or small_share or (_is_number(n) and n < state.min_cell):
            hidden = True
            values = dict(values)
            for key in SIDE_VALUE_KEYS:
                if values.get(key) is not None:
                    values[key] = None
                    state.withhold()
        out[side] = _walk_dict(values, state, parent=side, counting=False)
    if hidden:
        for key in COMPARISON_KEYS:
            if out.get(key) is not None:
                out[key] = None
                state.withhold()
    # keep the original key order
    return {k: out[k] for k in row}


def small_proportion(side: dict[str, Any], min_cell: int) -> bool:
    """Whether a proportion stands for fewer than ``min_cell`` records in or out of its category.

    The implied counts are ``p · n`` and ``(1 − p) · n`` with ``n`` the
    domain's records; either strictly between 0 and ``min_cell`` discloses a
    small group (a share of 0.002 of 1,000 records is 2 records).

    >>> small_proportion({"value": 0.002, "n": 1000}, 5), small_proportion({"value": 0.5, "n": 1000}, 5)
    (True, False)
    """
    p, n = side.get("value"), side.get("n")
    if not (_is_number(p) and _is_number(n)):
        return False
    return any(0 < c < min_cell - 1e-9 for c in (p * n, (1.0 - p) * n))


def _is_number(x: Any) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_)) and x == x
