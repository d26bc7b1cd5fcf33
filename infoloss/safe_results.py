"""Safe-to-share rules for the measure results and the analyses block of the JSON.

``Report.to_json(safe=True, min_cell=N)`` (command line ``--safe``) applies
these rules to every scenario after the before/after ``tables`` rules
(:func:`infoloss.before_after.safe_tables`).  A value that is withheld
becomes ``null``; the scenario's ``"safe"`` block says how many were
withheld, and a measure whose ``value`` is withheld says why in its
``"withheld"`` entry (a measure that could not be computed has its reason
in ``not_computed`` instead).  The analyses block's rules (4 and its parts
of 6) are applied by :mod:`infoloss.safe_analyses`, which also keeps the
analyses consistent with the safe tables of the same JSON.  The rules:

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
5. **Descriptive statistics** and **variables with few values**: the
   ``statistics`` block's rules are in :mod:`infoloss.safe_statistics`
   (with :func:`~infoloss.safe_statistics.few_values`, the variables observed
   in fewer than ``min_cell`` records or with fewer than ``min_cell`` records
   away from their most common value); every measure withholds what rests on
   those variables (:func:`_without_few_values`).  The risk-utility map's
   rules are in :mod:`infoloss.safe_risk_utility`.
6. **Differencing.**  Where parts add up to a total the reader knows
   (per-variable counts and their sum, per-variable shares of records of
   :data:`SHARE_BY_VARIABLE` and their mean, the cells of
   :data:`PARTITION_KEYS`, class-size groups, cluster shares, a
   regression's record counts, the domain sizes of an estimate, the
   proportions of one variable in a domain), a withheld part is withheld
   with the next smallest parts until the withheld ones hold at least
   ``min_cell`` records (:func:`partition_withheld`; a part the JSON shows
   elsewhere -- a one-way table's missing count, the records less a
   statistics ``n``, the ``== 0`` cell of ``dis_table`` beside a shown
   ``records_with_msu``, :data:`PARTITION_KNOWN` -- is known and never
   chosen as a partner); counts of records
   with a value (:data:`COMPLEMENT_KEYS`, missing_values) are withheld when
   the records without one are few; quantiles with fewer than ``min_cell``
   records beyond them, regression coefficients resting on fewer than
   ``min_cell`` records (their ``n_records``) and the labels of small
   domains and categories are withheld (docs/measures.md).  Numbers that
   solve for a withheld count go with it: suda_dis's ``Dis`` with U or P
   (:func:`_dis_solved`), the means of suda's scores and their split over
   the key variables with few records with an MSU
   (:func:`_few_risky_records`), l_diversity's per-record summaries with a cell
   of ``distinct_counts`` (:func:`_class_summaries_of_withheld_cells`),
   dcr_holdout's ``zero_share`` of few copies
   (:func:`_zero_distance_shares`), and the missing counts that solve for
   one another (protected = original + suppressions − filled, net =
   protected − original, and other measures' counts of the same records:
   il1s' and the x_* measures' records skipped = original + suppressions,
   lambda's ``one_side_missing`` = filled + suppressions, ks' and ldu_uni's
   ``n_orig``/``n_prot`` = records less the missing ones;
   :func:`_missing_counts_solved`).
7. **Rounding.**  Every other non-integer number of the ``details`` and of
   the analyses block is rounded to 3 significant digits
   (:func:`infoloss.report.safe.round_sig`), like the descriptive
   statistics.  Measure values, ``by_variable`` and ``by_pair`` are not
   rounded; integers (parameters, counts kept, also a count held as a
   float such as the original's 1425.0 records) are not rounded.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .report.safe import round_sig

__all__ = ["COUNT_KEYS", "record_counts", "safe_measures"]

#: Detail keys whose numbers (and every number inside a dict or list under them) count records.
COUNT_KEYS = frozenset({
    # record family
    "total_original", "increase", "filled", "net", "records_with_change", "one_side_missing",
    "n_skipped", "n_skipped_missing", "n_excluded_zero", "generalised",
    # risk family
    "count", "copies", "records_at_risk", "records_moved", "records_with_msu", "unweighted", "uniques_U", "uniques_exact",
    "pair_records_P", "msu_by_size", "dis_table", "distinct_counts",
    # generalisation (anonymity: the smallest class size)
    "suppressed", "anonymity_before", "anonymity_after",
    # propensity and clustering
    "separated", "cluster_sizes",
    # the user's regressions
    "n_filtered_out", "n_missing", "n_not_finite", "n_zero_weight", "n_used",
    # records with a value, per variable (ks, gdu, propensity)
    "n_orig", "n_prot",
    # nearest-record pairing: protected records by key mismatches, the most protected records on one original
    "key_mismatches", "max_reuse", "originals_used",
})
#: Detail keys whose entries split the records of a file into parts (the parts add up to a total the reader
#: knows): a small part is withheld together with the next smallest ones (:func:`partition_withheld`).
PARTITION_KEYS = frozenset({"dis_table", "distinct_counts", "key_mismatches"})
#: A cell of a partition that a sibling count gives (the file's records less it): when that count is shown, the
#: cell is known and never a partner of a withheld cell (:func:`partition_withheld`'s ``known``); suda_dis's
#: records of DIS 0 are those without an MSU.
PARTITION_KNOWN = {"dis_table": ("== 0", "records_with_msu")}
#: Measures whose per-variable values are shares of records (a count over the file's records), so that
#: ``value · n_records`` is a count of records: a small one is withheld with its share, and the measure's
#: value (their mean) when it would give the withheld ones back.
SHARE_BY_VARIABLE = frozenset({"lambda", "categorical_distance", "precision", "ncp", "iloss", "loss_metric",
                               "l_diversity"})
#: Measures whose value is a share of the records named by a detail key (``value · details[key]`` records).
SHARE_OF_RECORDS = {"record_linkage": "records_used", "interval_disclosure_robust": "records_used"}
#: shares of the same records among a measure's details (``share · details[records]`` records each)
SHARES_OF_RECORDS_IN_DETAILS = {"interval_disclosure_robust": ("risk1", "risk2")}
#: Detail keys of counts of records with a value: the records without one (the file's records minus the
#: count) are a count too.
COMPLEMENT_KEYS = frozenset({"n_orig", "n_prot", "records_with_change", "n", "n_compared", "n_complete", "n_fitted",
                             "records_used", "candidates", "covariance_records", "records_at_risk",
                             "records_with_msu"})
#: Count measures whose complement (records with a value) is a count too.
COMPLEMENT_COUNTS = frozenset({"missing_values", "suppressions", "records_changed"})
#: Numbers under a count key that are not counts.
NOT_COUNTS = frozenset({"sd", "share", "percent", "seeds", "seed"})
#: Shares, percentages and differences that give a withheld sibling count back (and any key that starts with
#: one of SHARE_PREFIXES, e.g. ``percent_records_with_change`` beside ``records_with_change``).
SHARE_KEYS = frozenset({"share", "percent", "anonymity_loss", "msu_share"})
SHARE_PREFIXES = ("share_", "percent_")
#: Per-record material, withheld whatever its content.
PER_RECORD_KEYS = frozenset({"per_record", "residuals", "leverages", "leverage", "fitted_values", "records_list",
                             "row", "rows"})
#: Lists of category labels (e.g. pmse's aliased columns): a category there may hold a single record, so its
#: label is replaced in safe mode.
LABEL_LIST_KEYS = frozenset({"aliased"})
#: Extremes of a record's risk in the original or protected file.
EXTREME_KEYS = frozenset({"max_dis", "max_score"})
#: Lists that are never per-record, whatever their length.
NOT_PER_RECORD = frozenset({"seeds", "values", "by_seed", "variables", "key_variables", "features",
                            "eigenvalues_original", "eigenvalues_protected", "component_weights", "weights",
                            "n_eff", "dof", "mean_ci_overlap", "inside_share", "conventions", "mean_ci"})
#: Estimate fields that compare the two sides (withheld when either side is).
COMPARISON_KEYS = ("difference", "relative_difference", "inside_original_ci", "ci_overlap")
SIDE_VALUE_KEYS = ("value", "se", "lower", "upper", "n")
#: Share measures over a subset of the variables (the categorical ones) whose per-variable values are shares of
#: changed records: with a withheld variable, their mean is withheld too.
SUBSET_SHARES = frozenset({"categorical_distance"})
#: Measures whose value is a share of records, and the detail that holds the count behind it.
SHARE_MEASURES = {"sample_uniques": "count", "exact_copies": "copies", "interval_disclosure": "records_at_risk",
                  "msu_share": "records_with_msu"}


@dataclass
class _Safe:
    """The rules' settings and the running count of withheld values."""

    min_cell: int
    record_counts: frozenset[int]
    withheld: int = 0
    extra: dict = field(default_factory=dict)  # analyses: (row id, side) -> "n" or "all", withheld besides rule 4
    few_values: frozenset = frozenset()  # infoloss.safe_statistics.few_values: what rests on them is withheld
    tables: Any = None  # analyses: what the safe tables block publishes (infoloss.safe_analyses._Published)
    published: frozenset = frozenset()  # variables whose missing counts the safe tables block shows
    sides: dict = field(default_factory=dict)  # "original"/"protected" -> variables whose missing count is shown
    measured: frozenset = frozenset()  # variables whose missing counts a measure's details show (ks' n_orig, ...)

    def small(self, x: Any) -> bool:
        return _is_number(x) and 0 < x < self.min_cell

    def small_complement(self, x: Any) -> bool:
        """Whether a file's records minus ``x`` (a count of records) are a small count."""
        return _is_number(x) and any(0 < n - x < self.min_cell for n in self.record_counts)

    def withhold(self) -> None:
        self.withheld += 1


def safe_measures(measures: dict[str, Any], min_cell: int, registry: Any,
                  n_records: tuple[int, ...] = (), few_values: frozenset = frozenset(),
                  few_complete: bool = False, published: frozenset = frozenset(),
                  published_sides: dict | None = None) -> tuple[dict[str, Any], dict[str, int]]:
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
    few_values : set of str
        Variables observed in fewer than ``min_cell`` records of a file, or with fewer than ``min_cell``
        away from their most common value (:func:`infoloss.safe_statistics.few_values`): their
        per-variable values are withheld (a loss measure of three values, its mean or spread, gives them back).
    few_complete : bool
        A file has 1 to ``min_cell`` − 1 complete cases
        (:func:`infoloss.safe_statistics.few_complete_cases`): the measures over complete cases are
        withheld whole (their matrices rest on those records).
    published : set of str
        Variables whose counts of missing values the same JSON shows elsewhere: in its safe ``tables`` block
        (:func:`published_missing`) or as the file's records less the ``n`` of its safe ``statistics``
        block (:func:`infoloss.safe_statistics.published_n`): the count measures do not pick them as
        partners of a withheld per-variable count (the total less the counts shown and the known ones
        would give it back).
    published_sides : dict, optional
        The same per file: ``{"original": variables, "protected": variables}`` whose count of missing values
        in that file the JSON shows elsewhere (:func:`_missing_counts_solved` solves the missing counts with them).

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
    state = _Safe(int(min_cell), frozenset(int(n) for n in n_records if n), few_values=frozenset(few_values),
                  published=frozenset(published),
                  sides={side: frozenset(v) for side, v in (published_sides or {}).items()})
    _published_by_measures(measures, state, registry)
    out = {mid: _safe_measure(mid, m if _counts_records(mid, registry) else _without_few_values(
               m, state, _over_every_variable(mid, m, registry), pair_average=mid in PAIR_AVERAGES), state, registry)
           for mid, m in measures.items()}
    _same_variables_withheld(out, measures, state, registry)
    _few_records_moved(out, measures, state)
    _increase_of_a_withheld_value(out, state)
    _few_risky_records(out, measures, state)
    _k_anonymity_steps(out, measures, state)
    _missing_counts_solved(out, measures, state)
    _skipped_totals(out, measures, state)
    if few_complete:
        for mid in out:
            out[mid] = _without_complete_cases(out[mid], state)
    return out, {"min_cell": state.min_cell, "withheld": state.withheld}


#: measures whose details show each variable's records with a value per file (``n_orig``, ``n_prot``: the file's
#: records less its missing values, as the statistics' ``n``): (measure, path to the per-variable blocks or None
#: for a dict keyed by variable under the key itself)
PUBLISHING_MEASURES = {"ks": None, "ldu_uni": "variables"}


def _published_by_measures(measures: dict[str, Any], state: _Safe, registry: Any) -> None:
    """Add to ``state.measured`` and ``state.sides`` the variables whose missing values a measure's safe details
    show as the file's records less a count of records with a value (ks' and ldu_uni's ``n_orig``/``n_prot``),
    as :func:`infoloss.safe_statistics.published_n` does for the statistics: the missing counts are known there
    (with the statistics off too), so they are no partners and :func:`_missing_counts_solved` counts them."""
    sides = {side: set(state.sides.get(side, ())) for side in ("original", "protected")}
    for mid, inner in PUBLISHING_MEASURES.items():
        if not isinstance(measures.get(mid), dict):
            continue
        probe = _Safe(state.min_cell, state.record_counts, few_values=state.few_values)
        shown = _safe_measure(mid, _without_few_values(measures[mid], probe, _over_every_variable(
            mid, measures[mid], registry), pair_average=mid in PAIR_AVERAGES), probe, registry)
        details = shown.get("details") if isinstance(shown.get("details"), dict) else {}
        for side, key in (("original", "n_orig"), ("protected", "n_prot")):
            if inner is None:
                block = details.get(key)
                values = block.items() if isinstance(block, dict) else ()
            else:
                blocks = details.get(inner)
                values = [(name, b.get(key)) for name, b in blocks.items() if isinstance(b, dict)] \
                    if isinstance(blocks, dict) else ()
            sides[side] |= {name for name, v in values if _is_number(v)}
    state.sides = {side: frozenset(v) for side, v in sides.items()}
    state.measured = frozenset(sides["original"] | sides["protected"])


def published_missing(tables: dict[str, Any] | None, side: str | None = None) -> frozenset:
    """The variables whose one-way table in a safe ``tables`` block lists its missing values (not merged);
    ``side`` ("original" or "protected"): those whose count of missing values it shows for that file."""
    from .before_after import MISSING

    one_way = (tables or {}).get("one_way") if isinstance(tables, dict) else None
    if not isinstance(one_way, dict):
        return frozenset()
    listed = {v: t for v, t in one_way.items() if isinstance(t, dict) and MISSING in t.get("categories", ())}
    if side is None:
        return frozenset(listed)

    def count(t: dict) -> Any:
        counts = (t.get(side) or {}).get("count")
        i = list(t["categories"]).index(MISSING)
        return counts[i] if isinstance(counts, list) and i < len(counts) else None

    return frozenset(v for v, t in listed.items() if _is_number(count(t)))


def _without_complete_cases(result: dict[str, Any], state: _Safe) -> dict[str, Any]:
    """A measure over each file's complete cases (``details["missing"]``), with 1 to ``min_cell`` − 1 of them in a
    file: every number withheld but its parameters (covariances of 2 records are their values' differences)."""
    details = result.get("details")
    if not (isinstance(details, dict) and "complete cases" in str(details.get("missing", ""))):
        return result
    out = dict(result)
    for key in ("value", "by_variable", "by_pair"):
        if isinstance(out.get(key), dict):
            out[key] = {k: None for k in out[key]}
            state.withheld += len(out[key])
        elif out.get(key) is not None:
            out[key] = None
            state.withhold()
    out["details"] = {k: (v if isinstance(v, str) or k in ("n_elements", "n_compared") else None)
                      for k, v in details.items()}
    out["withheld"] = f"safe mode: it rests on the complete cases of a file, fewer than {state.min_cell}"
    return out


def _few_records_moved(out: dict[str, Any], raw: dict[str, Any], state: _Safe) -> None:
    """AAD, CTBIL and EBIL without the tables in which 1 to ``min_cell`` − 1 records moved.

    A table's AAD times its cells is Σ|original − protected|, twice the
    records moved or suppressed (net): with a few, it is the count that
    ``records_changed`` and ``suppressions`` withhold, and the before/after
    tables merge.  Such a table's AAD is withheld, and the values that add it
    up: AAD's ``value``, CTBIL's ``value``, ``raw`` and ``raw_by_dimension``;
    so is a pair's table with such a variable (less the other variable's
    table it gives the moves back).  Weighted, the sums are weights (with one
    record moved, its weight): the records whose category changed per
    variable (``details.records_moved``, paired files) decide instead.
    """
    aad = raw.get("aad") or {}
    cells = (aad.get("details") or {}).get("cells") or {}
    changed = (aad.get("details") or {}).get("records_moved") or \
        ((raw.get("ctbil") or {}).get("details") or {}).get("records_moved")
    weighted = isinstance(changed, dict)
    if weighted:  # weighted tables: sums of weights; the records changed in a table's variables say how many moved
        keys = {k for block in ("by_variable", "by_pair") for k in (aad.get(block) or {})} | set(changed)
        moved = {k: sum(changed.get(v, 0) for v in str(k).split("|") if _is_number(changed.get(v, 0))) for k in keys}
        few_changed = any(0 < c < state.min_cell - 1e-9 for c in changed.values() if _is_number(c))
    else:
        moved = {k: v * cells[k] / 2 for block in ("by_variable", "by_pair") for k, v in (aad.get(block) or {}).items()
                 if _is_number(v) and _is_number(cells.get(k))}
    few = {k for k, m in moved.items() if 0 < m < state.min_cell - 1e-9}
    # a pair's table with a variable of few moves, less that of the other variable, gives those moves back
    few |= {k for k in moved if any(v in few for v in str(k).split("|"))}
    ctbil = raw.get("ctbil") or {}
    dims = ((ctbil.get("details") or {}).get("raw_by_dimension") or {})
    few_ctbil = bool(few) or (few_changed if weighted else any(_is_number(v) and 0 < v / 2 < state.min_cell - 1e-9
                                                                for v in dims.values()))
    if few and "aad" in out:
        safe = dict(out["aad"])
        for block in ("by_variable", "by_pair"):
            if isinstance(safe.get(block), dict):
                safe[block] = {k: (None if k in few else v) for k, v in safe[block].items()}
        if safe.get("value") is not None:
            safe["value"] = None
            safe["withheld"] = (f"safe mode: the value adds up tables in which fewer than {state.min_cell} records "
                                "moved, which it would give back")
        state.withheld += len(few) + 1
        out["aad"] = safe
    for mid in ("ebil", "ebil_joint"):  # a few records' moves give an entropy of their own (2 records: 100 · 2 ln 2)
        result = out.get(mid)
        hidden = {k for block in ("by_variable", "by_pair") for k, v in ((result or {}).get(block) or {}).items()
                  if k in few and v is not None}
        if not hidden:
            continue
        safe = dict(result)
        for block in ("by_variable", "by_pair"):
            if isinstance(safe.get(block), dict):
                safe[block] = {k: (None if k in hidden else v) for k, v in safe[block].items()}
        if isinstance(safe.get("details"), dict):
            safe["details"] = _null_in_blocks(safe["details"], hidden)
        if safe.get("value") is not None:
            safe["value"] = None
            safe["withheld"] = (f"safe mode: the value adds up tables in which fewer than {state.min_cell} records "
                                "moved, which it would give back")
            state.withhold()
        state.withheld += len(hidden)
        out[mid] = safe
    if few_ctbil and "ctbil" in out and out["ctbil"].get("value") is not None:
        safe = dict(out["ctbil"])
        safe["details"] = {k: (None if k in ("raw", "raw_by_dimension") else v)
                           for k, v in (safe.get("details") or {}).items()}
        safe["value"] = None
        safe["withheld"] = (f"safe mode: the value adds up tables in which fewer than {state.min_cell} records "
                            "moved, which it would give back")
        state.withheld += 3
        out["ctbil"] = safe


def safe_pairing(pairing: dict[str, Any], min_cell: int, n_records: tuple[int, ...] = ()) -> tuple[dict, int]:
    """A scenario's ``pairing`` block (nearest-record pairing) under the rules that its copy in each record-level
    measure's ``details`` follows: small counts of protected records by key mismatches and of reuse withheld,
    the distances' quantiles 0 and 1 (a protected record's own distance) withheld, the others rounded; returns
    the block and the number of values withheld."""
    state = _Safe(int(min_cell), frozenset(int(n) for n in n_records if n))
    return _walk(pairing, state, parent="pairing", counting=False), state.withheld


def record_counts(scenario: dict[str, Any], original: int | None = None) -> tuple[int, ...]:
    """The numbers of records of the files behind a scenario's JSON (the scenario's and the measures' ``n_records``,
    and ``original``, the original's, which the JSON publishes beside the scenarios)."""
    found = {scenario.get("n_records"), original}
    for result in scenario.get("measures", {}).values():
        n = (result.get("details") or {}).get("n_records")
        found.update(n.values() if isinstance(n, dict) else [n])
    return tuple(sorted(int(n) for n in found if _is_number(n) and n > 0))


# ---------------------------------------------------------------------------
# measures
# ---------------------------------------------------------------------------
def _safe_measure(mid: str, result: dict[str, Any], state: _Safe, registry: Any) -> dict[str, Any]:
    out = dict(result)
    try:
        counts = registry.get(mid).unit == "count"
    except KeyError:
        counts = False
    shares = mid in SHARE_BY_VARIABLE
    details = dict(out["details"]) if isinstance(out.get("details"), dict) else None
    n = _records_of(details, state)
    withheld_vars: set[str] = set()
    if counts and state.small(out.get("value")):
        out["value"] = None
        out["withheld"] = f"safe mode: the value is a count of fewer than {state.min_cell} records"
        state.withhold()
    if counts or shares:
        withheld_vars = _safe_by_variable(out, state, n, counts=counts, complement=mid in COMPLEMENT_COUNTS)
    if mid in SUBSET_SHARES and withheld_vars and out.get("value") is not None:
        # its mean over its variables times n and their number is the sum of its withheld variables' counts; a
        # count measure over more variables (records_changed) less that sum would give another's small count
        out["value"] = None
        out["withheld"] = ("safe mode: its mean over the variables would give the withheld variables' changes "
                           "back, with records_changed")
        state.withhold()
    if details is not None:
        if counts:
            details = _count_measure_details(details, withheld_vars, out.get("value") is None, state, n,
                                             complement=mid in COMPLEMENT_COUNTS)
            if mid == "missing_values" and state.small(details.get("increase")):
                # the missing values added are the suppressions: the file's total minus the original's gives them
                for key in ("total_original",):
                    if details.get(key) is not None:
                        details[key] = None
                        state.withhold()
                if isinstance(details.get("original"), dict) and details["original"].get("value") is not None:
                    details["original"] = dict(details["original"], value=None)
                    state.withhold()
        if shares:
            details = _share_measure_details(details, withheld_vars, state, n)
        details = _partitions_in_proportions(details, state)
        _suppressed_solved(mid, out, details, state)
        _t_closeness_tails(mid, out, details, state, n)
        _dis_solved(mid, details, state)
        _zero_distance_shares(mid, details, state)
        out["details"] = _walk(details, state, parent="details", counting=False)
        _class_summaries_of_withheld_cells(mid, out["details"], state)
        if mid == "missing_values" and isinstance(out["details"], dict) and out.get("value") is not None \
                and out["details"].get("total_original") is None and out["details"].get("increase") is not None:
            # the value minus the increase, or minus the suppressions (the missing values added), would be the
            # withheld original total
            out["details"]["increase"] = None
            out["value"] = None
            out["withheld"] = (f"safe mode: the file's missing values minus its suppressions would give the "
                               f"original's, fewer than {state.min_cell}")
            state.withheld += 2
        behind = SHARE_MEASURES.get(mid)
        records = SHARE_OF_RECORDS.get(mid)
        _shares_of_few_records(mid, out["details"], details.get(records), state)
        if records and _is_number(out.get("value")) and _is_number(details.get(records)) \
                and state.small(out["value"] * details[records]):
            out["value"] = None
            out["withheld"] = (f"safe mode: the value is a share of {records!r} that stands for fewer than "
                               f"{state.min_cell} records")
            state.withhold()
        elif records and out.get("value") not in (None, 0) and state.small_complement(details.get(records)):
            out["value"] = None  # a fraction with a denominator of n - 1 to n - 4 tells which one it is
            out["withheld"] = (f"safe mode: the value is a share of {records!r}, the file's records less fewer than "
                               f"{state.min_cell}, which it would give back")
            state.withhold()
        original = out["details"].get("original") if isinstance(out["details"], dict) else None
        if behind and isinstance(original, dict) and _is_number(original.get("value")) and original["value"] != 0 \
                and state.small((details.get("original") or {}).get(behind)):
            out["details"]["original"] = dict(original, value=None)  # the original's share gives its count back
            state.withhold()
        if behind and state.small(details.get(behind)) and out.get("value") not in (None, 0):
            out["value"] = None  # the share gives the withheld count back through n_records
            out["withheld"] = (f"safe mode: the value is a share of {behind!r}, a count of fewer than "
                               f"{state.min_cell} records, which it would give back")
            state.withhold()
        elif behind and state.small_complement(details.get(behind)) and out.get("value") not in (None, 0, 1):
            out["value"] = None  # times the records, the share gives the count, and the file's records less it
            out["withheld"] = (f"safe mode: the value is a share of {behind!r}, the file's records less fewer than "
                               f"{state.min_cell}, which it would give back")
            state.withhold()
    return out


def _t_closeness_tails(mid: str, out: dict[str, Any], details: dict[str, Any], state: _Safe, n: float) -> None:
    """t-closeness of a nominal sensitive variable: a class's distance is 1 − p(v) when it holds only value v,
    so a largest distance of 1 − c/n tells that c records hold v; with c small it is withheld (value, per
    variable, ``max``), and so is a ``share_above_t`` that stands for fewer than ``min_cell`` records."""
    if mid != "t_closeness" or not n:
        return
    # a copy: ``details`` is a shallow copy of the full result's, whose nested blocks a safe pass must not change
    per = dict(details["by_variable"]) if isinstance(details.get("by_variable"), dict) else {}
    by_variable = out.get("by_variable") if isinstance(out.get("by_variable"), dict) else {}
    withheld = []
    for name, entry in per.items():
        if not isinstance(entry, dict):
            continue
        entry = dict(entry)
        alone = entry.pop("max_one_value_records", None)  # a count of records: read here, never published
        if _is_number(entry.get("max")) and (_is_number(alone) and state.small(alone) or (
                not entry.get("ordered") and state.small((1.0 - entry["max"]) * n))):
            withheld.append(entry["max"])
            entry["max"] = None
            state.withhold()
            if _is_number(by_variable.get(name)):
                out["by_variable"] = {**out["by_variable"], name: None}
                state.withhold()
        if _is_number(entry.get("share_above_t")) and state.small(entry["share_above_t"] * n):
            entry["share_above_t"] = None
            state.withhold()
        per[name] = entry
    if per:
        details["by_variable"] = per
    if withheld and out.get("value") in withheld:
        out["value"] = None
        out["withheld"] = (f"safe mode: the value is the distance of a class holding only a sensitive value that "
                           f"c < {state.min_cell} records hold (1 − c/n for a nominal variable), which would give c back")
        state.withhold()
    original = details.get("original")
    if isinstance(original, dict) and "original" not in original:  # the same figures of the original file
        original = dict(original)
        value = {"value": original.get("value")}  # its by_variable holds the per-variable details
        _t_closeness_tails(mid, value, original, state, n)
        original["value"] = value["value"]
        details["original"] = original


def _suppressed_solved(mid: str, out: dict[str, Any], details: dict[str, Any], state: _Safe) -> None:
    """Details from which a withheld number of suppressed records could be solved: withheld with it.

    discernibility: N minus the records of ``class_sizes``, or (``arx`` − ``dm_star``) / N, is the number
    suppressed; aecs: ``lefevre`` and ``k`` (the smallest class, itself a count of records) give it too.
    """
    if mid == "aecs" and state.small(details.get("k")):  # the smallest class: a count of records
        details["k"] = None
        state.withhold()
    if mid not in ("discernibility", "aecs") or not state.small(details.get("suppressed")):
        return
    for key in ("class_sizes", "dm_star", "lefevre", "k"):
        if details.get(key) is not None:
            details[key] = None
            state.withhold()


def _shares_of_few_records(mid: str, details: Any, records: Any, state: _Safe) -> None:
    """Shares in a measure's details (:data:`SHARES_OF_RECORDS_IN_DETAILS`) that stand for 1 to ``min_cell`` − 1
    of its ``records`` (or all but that many) are withheld, as its value is."""
    if not (isinstance(details, dict) and _is_number(records)):
        return
    for key in SHARES_OF_RECORDS_IN_DETAILS.get(mid, ()):
        share = details.get(key)
        if _is_number(share) and (state.small(share * records) or state.small(records - share * records)):
            details[key] = None
            state.withhold()


def _dis_solved(mid: str, details: dict[str, Any], state: _Safe) -> None:
    """suda_dis: the file's Dis = U·f / (U·f + P·(1 − f)) with ``f`` gives a withheld U (records unique on
    every key) back from P (records in pairs), and P from U: Dis is withheld with either (each file's block)."""
    if mid != "suda_dis":
        return
    for owner, key in ((None, None), (details, "original")):
        block = details if owner is None else owner.get(key)
        if not isinstance(block, dict) or block.get("Dis") is None:
            continue
        if any(state.small(block.get(k)) for k in ("uniques_U", "uniques_exact", "pair_records_P")):
            if owner is None:
                details["Dis"] = None
            else:
                owner[key] = dict(block, Dis=None)  # a copy: the full result's block stays whole
            state.withhold()


def _zero_distance_shares(mid: str, details: dict[str, Any], state: _Safe) -> None:
    """dcr_holdout: the share of zero distances to the closest original record counts exact copies (those
    exact_copies withholds when few): withheld when it stands for 1 to ``min_cell`` − 1 records of a file."""
    if mid != "dcr_holdout":
        return
    for key in ("dcr_protected", "dcr_holdout"):
        block = details.get(key)
        share = block.get("zero_share") if isinstance(block, dict) else None
        if _is_number(share) and any(state.small(share * n) for n in state.record_counts):
            details[key] = dict(block, zero_share=None)
            state.withhold()


#: per-class summaries (mean and quartiles of a per-record value) beside the class counts that l_diversity's
#: ``distinct_counts`` partition
_CLASS_SUMMARIES = ("distinct", "entropy", "recursive")


def _class_summaries_of_withheld_cells(mid: str, details: Any, state: _Safe) -> None:
    """l_diversity: where a cell of ``distinct_counts`` is withheld, the mean and quartiles of the per-record l
    are withheld too: over n records with the other cells shown, the mean of the integer distinct l gives the
    withheld cells back (8 records of l 1 or 2 with mean 1.75: 2 and 6).  Changes ``details`` (the safe
    pass's own copy) in place."""
    if mid != "l_diversity" or not isinstance(details, dict):
        return
    for top in (details, details.get("original")):
        per = top.get("by_variable") if isinstance(top, dict) else None
        for block in per.values() if isinstance(per, dict) else ():
            cells = block.get("distinct_counts") if isinstance(block, dict) else None
            if not (isinstance(cells, dict) and any(v is None for v in cells.values())):
                continue
            for key in _CLASS_SUMMARIES:
                summary = block.get(key)
                if isinstance(summary, dict):
                    for stat, v in summary.items():
                        if v is not None:
                            summary[stat] = None
                            state.withhold()


def _same_variables_withheld(out: dict[str, Any], raw: dict[str, Any], state: _Safe, registry: Any) -> None:
    """The per-variable counts and shares of records withheld in one measure are withheld in all of them.

    Each measure picks its own next smallest variables to withhold beside a small one; one measure's total
    minus another's shown share (× n) would then give the small count back (records_changed − lambda).
    """
    def per_record(mid: str) -> bool:
        try:
            return registry.get(mid).unit == "count" or mid in SHARE_BY_VARIABLE
        except KeyError:
            return mid in SHARE_BY_VARIABLE

    mids = [mid for mid in out if per_record(mid) and isinstance(out[mid].get("by_variable"), dict)]
    counted = {mid for mid in mids if _counts_records(mid, registry)}
    union = {k for mid in mids for k, v in out[mid]["by_variable"].items()
             if v is None and _is_number((raw[mid].get("by_variable") or {}).get(k))}
    mids += [mid for mid in out if mid in FOLLOW_WITHHELD_VARIABLES and isinstance(out[mid].get("by_variable"), dict)]
    for mid in mids:
        result = out[mid]
        more = {k for k in union if _is_number(result["by_variable"].get(k)) and result["by_variable"][k] != 0}
        if not more:
            continue
        result["by_variable"] = {k: (None if k in more else v) for k, v in result["by_variable"].items()}
        state.withheld += len(more)
        if isinstance(result.get("details"), dict):
            result["details"] = _null_in_blocks(result["details"], more, skip=("original",))
    for mid in mids:
        result = out[mid]
        if _value_gives_back(mid, raw[mid], result, state, mid in counted):
            out[mid] = dict(result, value=None, withheld=(
                f"safe mode: the value, with the per-variable values shown (and the tables' missing counts), would "
                f"give back values withheld for fewer than {state.min_cell} records"))
            state.withhold()


def _increase_of_a_withheld_value(out: dict[str, Any], state: _Safe) -> None:
    """missing_values' ``increase`` is its value less the original's total: withheld with the value (with a total
    of 0 it is the value itself)."""
    result = out.get("missing_values")
    details = (result or {}).get("details")
    if result and result.get("value") is None and isinstance(details, dict) and details.get("increase") is not None:
        out["missing_values"] = dict(result, details=dict(details, increase=None))
        state.withhold()


#: a variable's missing counts in missing_values and suppressions as sums of its records missing in both files, in
#: the original alone (filled) and in the protected file alone (suppressed): (both, filled, suppressed)
MISSING_COUNT_TERMS = {"original": (1, 1, 0), "protected": (1, 0, 1), "suppressed": (0, 0, 1), "filled": (0, 1, 0),
                       "net": (0, -1, 1), "union": (1, 1, 1), "one_side": (0, 1, 1)}
#: the order in which :func:`_missing_counts_solved` withholds more of them (other measures' details first, the
#: totals last)
_SOLVED_ORDER = ("union", "one_side", "net", "filled", "suppressed", "protected")
#: other measures' per-variable counts of the same records: (measure, detail key) -> kind.  ``union``: the records
#: missing in either file (il1s' ``n_skipped``; ``n_compared`` is the file's records less them; the x_* measures'
#: ``n_skipped_missing``), ``one_side``: missing in one file only (lambda's ``one_side_missing``).  With the
#: suppressions, ``union`` less them is the original's missing values; with ``net``, ``one_side`` gives ``filled``.
MISSING_COUNT_COPIES = {("il1s", "n_skipped"): "union", ("il1s", "n_compared"): "union",
                        ("x_mse", "n_skipped_missing"): "union", ("x_mae", "n_skipped_missing"): "union",
                        ("x_mv", "n_skipped_missing"): "union", ("lambda", "one_side_missing"): "one_side"}


def _missing_count_places(out: dict[str, Any]) -> dict[tuple[str, Any], tuple[dict, Any]]:
    """Where the safe missing_values and suppressions show each missing count: (kind, variable or None for the
    total) -> (the dict holding it, its key)."""
    places: dict[tuple[str, Any], tuple[dict, Any]] = {}
    mv, sp = out.get("missing_values"), out.get("suppressions")
    for result, kind, total_holder, total_key, blocks in (
            (mv, "protected", mv, "value", ()), (sp, "suppressed", sp, "value", ("filled", "net"))):
        if not isinstance(result, dict) or not isinstance(result.get("by_variable"), dict):
            continue
        details = result.get("details") if isinstance(result.get("details"), dict) else {}
        for name in result["by_variable"]:
            places[(kind, name)] = (result["by_variable"], name)
        places[(kind, None)] = (total_holder, total_key)
        for key in blocks:
            if isinstance(details.get(key), dict):
                for name in details[key]:
                    places[(key, name)] = (details[key], name)
        if result is mv:
            if isinstance(details.get("original"), dict):
                for name in details["original"]:
                    places[("original", name)] = (details["original"], name)
            for key, kind_total in (("total_original", "original"), ("increase", "net")):
                if key in details:
                    places[(kind_total, None)] = (details, key)
    return places


def _missing_count_copies(out: dict[str, Any]) -> dict[tuple[str, Any], list[tuple[dict, Any]]]:
    """Where other measures show a variable's ``union`` or ``one_side`` count (:data:`MISSING_COUNT_COPIES`):
    (kind, variable) -> the (dict, key) places holding it; the blocks are copied first (``out``'s own)."""
    copies: dict[tuple[str, Any], list[tuple[dict, Any]]] = {}
    for (mid, key), kind in MISSING_COUNT_COPIES.items():
        result = out.get(mid)
        details = (result or {}).get("details") if isinstance(result, dict) else None
        if not (isinstance(details, dict) and isinstance(details.get(key), dict)):
            continue
        out[mid] = result = dict(result, details=dict(details))
        block = result["details"][key] = dict(result["details"][key])
        for name in block:
            copies.setdefault((kind, name), []).append((block, name))
    return copies


def _missing_counts_solved(out: dict[str, Any], raw: dict[str, Any], state: _Safe) -> None:
    """Withhold the missing counts from which a withheld one could be solved (missing_values, suppressions).

    Per variable the original's missing values (``details.original``), the protected file's (``by_variable``),
    the suppressions, ``filled`` and ``net`` count the records missing in both files, in the original alone and
    in the protected file alone: protected = original + suppressed − filled, net = protected − original =
    suppressed − filled, and each column adds up to a total (``value``, ``total_original``, ``increase``).  A
    withheld count of 1 to ``min_cell`` − 1 records could be solved from the others shown (8 missing in the
    original, 5 filled and 0 suppressed: 3 missing in the protected file) and from those the tables and
    statistics publish (:attr:`_Safe.sides`).  First the original's counts are withheld like the parts of a
    total (:func:`partition_withheld`; they and ``total_original`` are the same in every scenario, so this
    depends on the original alone), then, while a withheld small count can be solved, or the scenario's counts
    tell more of the original's withheld ones than the original's own numbers do (another scenario's counts
    might tell the rest), one more of the scenario's counts goes: the one that leaves the fewest solvable, in
    the order of :data:`_SOLVED_ORDER` (a ``net`` before a ``filled``, those before a per-variable count), a
    total last.  Changes ``out``'s blocks (the safe pass's copies) in place.
    """
    mv, sp = raw.get("missing_values"), raw.get("suppressions")
    if not (isinstance(mv, dict) or isinstance(sp, dict)):
        return
    for mid in ("missing_values", "suppressions"):  # copies of the blocks this changes
        if isinstance(out.get(mid), dict):
            out[mid] = dict(out[mid])
            for key in ("by_variable", "details"):
                if isinstance(out[mid].get(key), dict):
                    out[mid][key] = dict(out[mid][key])
            details = out[mid].get("details")
            for key in ("original", "filled", "net", "percent") if isinstance(details, dict) else ():
                if isinstance(details.get(key), dict):
                    details[key] = dict(details[key])
    _original_missing_partition(out, raw, state)
    places = _missing_count_places(out)
    raw_details = (mv or {}).get("details") or {}
    sp_details = (sp or {}).get("details") or {}
    raw_values = {}
    for (kind, name) in places:
        source = {"protected": (mv or {}).get("by_variable"), "suppressed": (sp or {}).get("by_variable"),
                  "original": raw_details.get("original"), "filled": sp_details.get("filled"),
                  "net": sp_details.get("net")}[kind]
        if name is not None:
            raw_values[(kind, name)] = (source or {}).get(name)
    # other measures' counts of the same records (il1s' records skipped, lambda's one-side missing): in the system
    # too, withheld like the others (every copy of one)
    copies = _missing_count_copies(out)
    variables = {name for _, name in places if name is not None}
    for (kind, name), holders in copies.items():
        if name not in variables:
            continue
        seen = [h for h in holders if _is_number(h[0].get(h[1]))]
        places[(kind, name)] = seen[0] if seen else holders[0]
        parts = [raw_values.get(("original", name)) if kind == "union" else raw_values.get(("filled", name)),
                 raw_values.get(("suppressed", name))]
        raw_values[(kind, name)] = sum(parts) if all(_is_number(v) for v in parts) else None
    published = {side: set(state.sides.get(side, ())) for side in ("original", "protected")}

    def shown(key: tuple[str, Any]) -> bool:
        holder, k = places.get(key, ({}, None))
        return _is_number(holder.get(k)) or (key[1] in published.get(key[0], ()))

    # a variable with every count of it shown holds nothing back: it is left out (its part of a total is known, and
    # its counts are not chosen to withhold), which keeps the system small
    by_name: dict[Any, list] = {}
    for key in places:
        by_name.setdefault(key[1], []).append(key)
    names = [name for name in sorted((n for n in by_name if n is not None), key=str)
             if not all(_is_number(places[key][0].get(places[key][1])) for key in by_name[name])]
    in_system = set(names)
    targets = [(key[1], key[0]) for key, v in raw_values.items()
               if key[0] != "net" and key[1] in in_system and state.small(v) and not shown(key)]
    hidden_original = [name for name in names if ("original", name) in places and not shown(("original", name))]
    if not targets and not hidden_original:
        return
    # the counts the tables and statistics publish (each file's records less its n), and the original's counts
    # shown (decided by the original alone, the same in every scenario): not to be withheld here
    fixed = [(kind, name) for kind in ("original", "protected") for name in published[kind] if name in in_system]
    fixed += [key for key in places if key[0] == "original" and shown(key) and (key[1] is None or key[1] in in_system)]
    system = _MissingCounts(names, fixed)
    targets = [t for t, known in zip(targets, system.solved([], targets)) if not known]  # published elsewhere anyway
    free = [key for key in places if key[0] != "original" and (key[1] is None or key[1] in in_system)
            and _is_number(places[key][0].get(places[key][1])) and key[1] not in published.get(key[0], ())]

    def solvable(keys: list) -> int:
        return system.solvable(keys, targets)

    known_original = solvable([])  # the targets left are not solved by the fixed counts alone

    def order(key: tuple[str, Any]) -> tuple:
        kind, name = key
        value = raw_values.get(key)
        return (name is None, _SOLVED_ORDER.index(kind) if kind in _SOLVED_ORDER else len(_SOLVED_ORDER),
                not _nonzero_number(value), abs(value) if _is_number(value) else 0, str(name))

    withheld: list = []
    # each variable on its own first (three unknowns: quick), then all of them with the totals
    free_of: dict[Any, list] = {}
    gone: set = set()
    for key in free:
        free_of.setdefault(key[1], []).append(key)
    for name in names:
        own = list(free_of.get(name, ()))
        known = frozenset(kind for kind in ("original", "protected")
                          if name in published[kind] or (kind == "original" and shown((kind, name))))
        aims = [kind for kind in MISSING_COUNT_TERMS
                if kind != "net" and (kind, name) in raw_values and not shown((kind, name))
                and (state.small(raw_values[(kind, name)]) or kind == "original")]
        aims = [kind for kind in aims if not system.determines(known, kind)]

        def solved_here(keys: list, known: frozenset = known, aims: list = aims) -> int:
            here = known | {key[0] for key in keys}
            return sum(system.determines(here, kind) for kind in aims)

        while own and solved_here(own):
            key = min(own, key=lambda k: (solved_here([f for f in own if f != k]), order(k)))
            own.remove(key)
            gone.add(key)
            withheld.append(key)
    free = [key for key in free if key not in gone]
    if free and len(free) * len(names) > _SOLVE_ONE_BY_ONE and solvable(free) > known_original:
        # too many counts to try one at a time: the totals, which tie every variable together, go first
        for key in sorted((k for k in free if k[1] is None), key=order):
            if solvable(free) <= known_original:
                break
            free.remove(key)
            withheld.append(key)
    while free and solvable(free) > known_original:
        key = min(free, key=lambda k: (solvable([f for f in free if f != k]), order(k)))
        free.remove(key)
        withheld.append(key)
    for kind, name in withheld:
        holder, k = places[(kind, name)]
        holder[k] = None
        state.withhold()
        if (kind, name) in copies:
            for holder, k in copies[(kind, name)]:
                if holder.get(k) is not None:
                    holder[k] = None
                    state.withhold()
            continue
        mid = "missing_values" if kind in ("protected", "original") or (kind == "net" and name is None) \
            else "suppressions"
        result = out[mid]
        percent = (result.get("details") or {}).get("percent")
        if name is not None and kind in ("protected", "suppressed") and isinstance(percent, dict) \
                and _is_number(percent.get(name)):  # a 0.0 too: it would tell the withheld count is 0
            percent[name] = None
            state.withhold()
        if name is None and holder is result:
            result["withheld"] = (f"safe mode: with the missing counts shown (the original's, the filled and net "
                                  f"ones, the tables' and the statistics') it would give back a count of fewer "
                                  f"than {state.min_cell} records")


def _skipped_totals(out: dict[str, Any], raw: dict[str, Any], state: _Safe) -> None:
    """The x_* measures' ``n_compared`` (the cells compared: each variable's records less its ``n_skipped_missing``)
    withheld with any of those per-variable counts: less the others shown it would give the withheld one back."""
    for mid, key in MISSING_COUNT_COPIES:
        result = out.get(mid)
        details = (result or {}).get("details") if isinstance(result, dict) else None
        raw_per = (((raw.get(mid) or {}).get("details")) or {}).get(key)
        if not (isinstance(details, dict) and isinstance(details.get(key), dict) and isinstance(raw_per, dict)
                and _is_number(details.get("n_compared"))):
            continue
        if any(v is None and _nonzero_number(raw_per.get(name)) for name, v in details[key].items()):
            out[mid] = dict(result, details=dict(details, n_compared=None))
            state.withhold()


def _original_missing_partition(out: dict[str, Any], raw: dict[str, Any], state: _Safe) -> None:
    """missing_values' counts of the original (``details.original``): a small one withheld with the next smallest
    (:func:`partition_withheld`; the tables' and statistics' published ones known), and ``total_original`` when
    the withheld ones are pinned (:func:`pinned`); the original alone decides, as in every scenario."""
    result, full = out.get("missing_values"), raw.get("missing_values")
    details = (result or {}).get("details")
    counts = ((full or {}).get("details") or {}).get("original")
    if not (isinstance(details, dict) and isinstance(details.get("original"), dict) and isinstance(counts, dict)):
        return
    units = {k: float(v) for k, v in counts.items() if _is_number(v)}
    names, left = partition_withheld(units, state.min_cell, frozenset(state.sides.get("original", ())))
    shown = details["original"]
    for k in names:
        if shown.get(k) is not None:
            shown[k] = None
            state.withhold()
    held = [units[k] for k in names if units.get(k, 0) > 0 and k not in state.sides.get("original", ())]
    if (0 < left < state.min_cell - 1e-9 or (held and pinned(held, _records_of(details, state), state.min_cell))) \
            and details.get("total_original") not in (None, 0):
        details["total_original"] = None
        state.withhold()


#: above this many (counts left to withhold) x (variables), :func:`_missing_counts_solved` withholds the totals
#: before it tries the counts one at a time
_SOLVE_ONE_BY_ONE = 20_000


class _MissingCounts:
    r"""What the shown missing counts tell, as linear functions of each variable's unknowns.

    Each variable ``v`` of ``names`` has three unknowns ``u_v`` (its records
    missing in both files, in the original alone, in the protected file
    alone; :data:`MISSING_COUNT_TERMS`); a shown count of ``v`` of kind ``k``
    is ``T_k · u_v`` and a shown total is ``Σ_v T_k · u_v``.  What they
    determine, the span ``K = ⊕_v S_v + {1 ⊗ t : t ∈ T}`` (``S_v`` the span
    of ``v``'s kinds, ``T`` that of the totals' kinds), is worked out in
    ``R³`` per group of variables with the same kinds, never as one matrix
    over every variable:

    * ``a · u_v`` is determined iff ``a ∈ S_v + (T ∩ ⋂_{w≠v} S_w)`` (the
      totals less every other variable's share, where those are known);
    * ``dim(K ∩ O)``, ``O`` the originals' counts (``T_original`` per
      variable), is ``Σ_v [T_original ∈ S_v] + dim(T ∩ ⋂_v (S_v + T_original))
      − dim(T ∩ ⋂_v S_v)``.

    ``fixed``: the counts known whatever is withheld, as ``(kind, name or
    None for a total)``.
    """

    def __init__(self, names: list, fixed: list) -> None:
        self.names = list(names)
        self.fixed = list(fixed)
        self._spans: dict[frozenset, np.ndarray] = {}

    def span(self, kinds: frozenset) -> np.ndarray:
        """An orthonormal basis (rows) of the span of the kinds' vectors in R³ (cached)."""
        if kinds not in self._spans:
            self._spans[kinds] = _basis3([MISSING_COUNT_TERMS[k] for k in kinds])
        return self._spans[kinds]

    def determines(self, kinds: frozenset, kind: str) -> bool:
        """Whether a variable's counts of ``kinds`` determine its count of ``kind``."""
        return _in_basis3(self.span(frozenset(kinds)), np.asarray(MISSING_COUNT_TERMS[kind], float))

    def _kinds(self, keys: list) -> tuple[dict[Any, frozenset], frozenset]:
        per: dict[Any, set] = {name: set() for name in self.names}
        totals: set = set()
        for kind, name in self.fixed + list(keys):
            (totals if name is None else per[name]).add(kind)
        return {name: frozenset(k) for name, k in per.items()}, frozenset(totals)

    def _shares(self, per: dict[Any, frozenset], totals: frozenset) -> dict[frozenset, np.ndarray]:
        """Per group of variables (their kinds): what the totals tell of one of them, ``T ∩ ⋂_{w≠v} S_w``."""
        count: dict[frozenset, int] = {}
        for kinds in per.values():
            count[kinds] = count.get(kinds, 0) + 1
        t = self.span(totals)
        out = {}
        for kinds in count:
            others = [self.span(k) for k, c in count.items() if k != kinds or c > 1]
            out[kinds] = _intersect3([t] + others)
        return out

    def solved(self, keys: list, targets: list) -> list[bool]:
        """Per target ((name, kind) pair): whether the fixed counts and ``keys`` determine it."""
        per, totals = self._kinds(keys)
        return self._solved(per, self._shares(per, totals), targets)

    def _solved(self, per: dict[Any, frozenset], shares: dict[frozenset, np.ndarray], targets: list) -> list[bool]:
        seen: dict[tuple, bool] = {}  # the same for every variable of a group
        out = []
        for name, kind in targets:
            key = (per[name], kind)
            if key not in seen:
                seen[key] = _in_basis3(np.vstack([self.span(per[name]), shares[per[name]]]),
                                       np.asarray(MISSING_COUNT_TERMS[kind], float))
            out.append(seen[key])
        return out

    def solvable(self, keys: list, targets: list) -> int:
        """How many of ``targets`` ((name, kind) pairs) the fixed counts and ``keys`` determine, plus how much
        they tell of the original's counts (``dim(K ∩ O)``)."""
        per, totals = self._kinds(keys)
        solved = sum(self._solved(per, self._shares(per, totals), targets))
        groups = set(per.values())
        t = self.span(totals)
        sizes: dict[frozenset, int] = {}
        for kinds in per.values():
            sizes[kinds] = sizes.get(kinds, 0) + 1
        known = sum(size for kinds, size in sizes.items() if self.determines(kinds, "original"))
        with_original = [self.span(kinds | {"original"}) for kinds in groups]
        about = known + _intersect3([t] + with_original).shape[0] - _intersect3([t] + [self.span(k) for k in groups]).shape[0]
        return int(solved) + int(about)


def _basis3(rows: list) -> np.ndarray:
    """An orthonormal basis (as rows, shape (k, 3)) of the span of ``rows`` in R³."""
    a = np.array(rows, dtype=float).reshape(-1, 3)
    if not a.size:
        return np.zeros((0, 3))
    _, sv, vt = np.linalg.svd(a, full_matrices=False)
    return vt[sv > 1e-9 * max(1.0, sv[0])]


def _in_basis3(rows: np.ndarray, target: np.ndarray) -> bool:
    """Whether ``target`` is in the span of ``rows`` (vectors of R³)."""
    basis = _basis3(list(rows))
    return bool(np.linalg.norm(target - basis.T @ (basis @ target)) < 1e-6)


def _intersect3(bases: list) -> np.ndarray:
    """An orthonormal basis of the intersection of subspaces of R³ given by bases: the complement of the sum of
    their complements."""
    complements = [np.eye(3) - b.T @ b for b in bases]
    return _complement3(_basis3([row for c in complements for row in c]))


def _complement3(basis: np.ndarray) -> np.ndarray:
    return _basis3(list(np.eye(3) - basis.T @ basis))


#: SUDA's means over every record of a per-record score that is 0 without an MSU, and the split of the scores
#: over the key variables (:func:`_few_risky_records`)
SUDA_SCORE_SUMMARIES = ("mean_dis", "mean_score", "contribution_percent")


def _few_risky_records(out: dict[str, Any], raw: dict[str, Any], state: _Safe) -> None:
    """suda_dis and msu_share with 1 to ``min_cell`` − 1 records with an MSU in a file: that file's means of the
    DIS and SUDA scores (suda_dis's value is its mean DIS) and the scores' split over the key variables go.

    A record without an MSU scores 0, so the mean times the file's records
    (published) is the few records' total score: with one, the riskiest
    record's score that ``max_dis`` and ``max_score`` withhold, and
    ``contribution_percent`` the key variables that make it unique.
    """
    reason = (f"safe mode: fewer than {state.min_cell} records have an MSU, and the mean DIS times the records "
              "would give their scores back")
    for mid in ("suda_dis", "msu_share"):
        result, details = out.get(mid), (raw.get(mid) or {}).get("details")
        if not (result and isinstance(details, dict) and isinstance(result.get("details"), dict)):
            continue
        shown = dict(result["details"])
        safe = dict(result, details=shown)
        blocks = [(details, shown, safe)]  # the raw block, the block showing its summaries, the one with its value
        if isinstance(details.get("original"), dict) and isinstance(shown.get("original"), dict):
            shown["original"] = dict(shown["original"])
            blocks.append((details["original"], shown["original"], shown["original"]))
        before = state.withheld
        for block, summaries, valued in blocks:
            if not state.small(block.get("records_with_msu")):
                continue
            for key in SUDA_SCORE_SUMMARIES if mid == "msu_share" else (*SUDA_SCORE_SUMMARIES, "value"):
                holder = valued if key == "value" else summaries
                if holder.get(key) is not None:
                    holder[key] = None
                    state.withhold()
            if valued is safe and mid == "suda_dis" and result.get("value") is not None:
                safe["withheld"] = reason
        if state.withheld > before:
            out[mid] = safe


def _k_anonymity_steps(out: dict[str, Any], raw: dict[str, Any], state: _Safe) -> None:
    """k-anonymity's counts without a step of 1 to ``min_cell`` − 1 records between two that are shown.

    ``by_k``'s counts are cumulative (the records in key classes of fewer
    than k), so two shown counts give the records in the classes between
    them: 10 for k = 2 and 12 for k = 3 are 2 records in classes of size 2
    (one pair).  The same counts are the measure's value (at its ``k``) and
    sample_uniques' ``count`` (k = 2).  Going up k, a count that is 1 to
    ``min_cell`` − 1 above the last one shown (0 before the first) is withheld
    in all three places, with its weighted count and share.
    """
    kav, uniques = out.get("k_anonymity_violations"), out.get("sample_uniques")
    raw_details = ((raw.get("k_anonymity_violations") or {}).get("details") or {})
    if not (kav and isinstance(raw_details.get("by_k"), dict) and isinstance(kav.get("details"), dict)):
        return
    safe = dict(kav, details=dict(kav["details"]))
    safe_uniques = dict(uniques, details=dict(uniques.get("details") or {})) if uniques else None
    k_value = raw_details.get("k")
    for side in ("protected", "original"):
        raw_block = raw_details if side == "protected" else raw_details.get("original")
        if not isinstance(raw_block, dict) or not isinstance(raw_block.get("by_k"), dict):
            continue
        block = safe["details"] if side == "protected" else dict(safe["details"].get("original") or {})
        by_k = {k: (dict(v) if isinstance(v, dict) else v) for k, v in (block.get("by_k") or {}).items()}
        counts = sorted((float(k), k, v["unweighted"]) for k, v in raw_block["by_k"].items()
                        if isinstance(v, dict) and _is_number(v.get("unweighted")) and str(k).isdigit())
        last = 0.0
        for kf, k, count in counts:
            entry = by_k.get(k) if isinstance(by_k.get(k), dict) else {}
            shown = entry.get("unweighted") is not None
            if shown and 0 < count - last < state.min_cell - 1e-9:
                for key in ("unweighted", "weighted", "share"):
                    if entry.get(key) is not None:
                        entry[key] = None
                        state.withhold()
                holder = safe if side == "protected" else block
                if _is_number(k_value) and kf == float(k_value) and holder.get("value") is not None:
                    holder["value"] = None
                    state.withhold()
                    if holder is safe:
                        safe["withheld"] = (f"safe mode: with the counts for other k it would give the records in "
                                            f"key classes of some size, fewer than {state.min_cell}")
                if kf == 2 and safe_uniques is not None:
                    _withhold_uniques(safe_uniques, side, state)
                shown = False
            if shown:
                last = count
        block["by_k"] = by_k
        if side == "original":
            safe["details"]["original"] = block
    out["k_anonymity_violations"] = safe
    if safe_uniques is not None:
        out["sample_uniques"] = safe_uniques


def _withhold_uniques(result: dict[str, Any], side: str, state: _Safe) -> None:
    """sample_uniques' share and count of one file: the protected file's at the top and in ``details``, the
    original's in ``details.original``."""
    details = result["details"]
    if side == "original":
        details["original"] = dict(details.get("original") or {})
        holders = [(details["original"], "value"), (details["original"], "count")]
    else:
        holders = [(result, "value"), (details, "count")]
    for holder, key in holders:
        if holder.get(key) is not None:
            holder[key] = None
            state.withhold()


def _value_gives_back(mid: str, raw: dict[str, Any], result: dict[str, Any], state: _Safe, counts: bool) -> bool:
    """Whether a measure's shown value (a sum or mean over its variables) gives its withheld per-variable values
    back, the published ones (:func:`published_missing`) counting as known: for the count measures and the shares
    of records, when the unknown withheld parts are pinned (:func:`pinned`); for the summaries that follow the
    withheld counts (:data:`FOLLOW_WITHHELD_VARIABLES`), whenever one is withheld."""
    if not _is_number(result.get("value")) or not isinstance(result.get("by_variable"), dict):
        return False
    values = raw.get("by_variable") or {}
    hidden = [k for k, v in result["by_variable"].items() if v is None and _nonzero_number(values.get(k))]
    if not hidden:
        return False
    if mid in FOLLOW_WITHHELD_VARIABLES:
        return True
    n = _records_of(raw.get("details"), state)
    if not counts and not n:
        return True
    known = state.published | state.measured if counts else state.published
    unknown = [values[k] * (1.0 if counts else n) for k in hidden if k not in known]
    return bool(unknown) and pinned(unknown, n, state.min_cell)


def pinned(withheld: list[float], n: float, min_cell: int) -> bool:
    """Whether the withheld parts of a shown total (their sum is the total less the parts shown) are known to
    fewer than ``min_cell`` records anyway: one part alone, parts of fewer than ``min_cell`` records in all, one
    part of all ``n`` records but a few, or parts whose sum is within ``min_cell`` of their bound ``n`` each (two
    parts summing to 2n are n each).

    >>> pinned([3, 40], 400, 5), pinned([397, 10], 400, 5), pinned([8, 8], 8, 5), pinned([40, 60], 400, 5)
    (False, True, True, False)
    """
    if not withheld:
        return False
    held = sum(withheld)
    near_bound = bool(n) and (len(withheld) * n - held < min_cell - 1e-9 or any(0 < n - u < min_cell for u in withheld))
    return len(withheld) == 1 or held < min_cell - 1e-9 or near_bound


#: generalisation measures whose per-variable values rest on the same changed records as the count measures
#: without being shares of them (gcp × n, (ambiguity − 1) · n / (|D| − 1) and a mean level give a variable's
#: suppressions back when only suppression changed it): withheld for the variables the counts withhold
FOLLOW_WITHHELD_VARIABLES = frozenset({"gcp", "ambiguity", "nonuniform_entropy", "height"})
#: measures whose per-variable values average the pairs of each variable (aldu_biv: ldu_biv's pairs)
PAIR_AVERAGES = frozenset({"aldu_biv"})
#: ``details`` entries that are the measure's value by another convention or a summary of its terms (il1s's
#: sdcMicro form, the unbounded mean variation, the ECDF's other summary, the largest term)
VALUE_FORMS = ("sdcmicro", "unbounded_value", "mean_squared", "max")
#: measures whose value sums up per-variable terms of every variable without listing them: the GDU aggregates
#: (of ldu_uni's and ldu_biv's values) and the joint ECDF distances of the continuous variables
EVERY_VARIABLE = frozenset({"aldu_uni", "aldu_biv", "gdu", "ecdf_max", "ecdf_mean"})


def _counts_records(mid: str, registry: Any) -> bool:
    """A count measure (suppressions, records changed, ...): its per-variable numbers count records, not values,
    and the small-count rules govern them (a variable's few values are no reason to withhold its 0 suppressions)."""
    try:
        return registry.get(mid).unit == "count"
    except KeyError:
        return False


def _over_every_variable(mid: str, result: dict[str, Any], registry: Any) -> bool:
    """A measure whose value takes in every (continuous) variable and has no per-variable values to withhold one by
    one: the moments measures of the matrices (covariances, correlations, components) and :data:`EVERY_VARIABLE`."""
    if mid in EVERY_VARIABLE:
        return True
    try:
        family = registry.get(mid).family
    except KeyError:
        return False
    return family == "moments" and not isinstance(result.get("by_variable"), dict)


def _without_few_values(result: dict[str, Any], state: _Safe, every_variable: bool = False,
                        pair_average: bool = False) -> dict[str, Any]:
    """A measure without what rests on the variables with few values (:func:`infoloss.safe_statistics.few_values`).

    Their per-variable (and per-pair) values are withheld, and so is the
    measure's value when one of them went into it: two measures over the same
    terms (a mean of absolute and of squared differences) would otherwise give
    each withheld term back, whichever others were withheld with them.  Every
    entry of theirs in the blocks of ``details`` keyed by variable is withheld
    too (an original mean, a normality check's n, mean and sd), computed or not.
    ``every_variable``: the value takes in every variable (a covariance or correlation matrix, the GDU
    aggregates, the joint ECDF), so it is withheld whenever there is such a variable; ``pair_average``: each
    per-variable value averages that variable's pairs, one of them with such a variable, so all are withheld.
    """
    if not state.few_values:
        return result
    out = dict(result)
    hidden: set = set()
    def in_pair(key: Any) -> bool:
        return bool(set(str(key).split("|")) & state.few_values)

    own = (lambda k: True) if pair_average else (lambda k: k in state.few_values)
    for field_name, involved in (("by_variable", own), ("by_pair", in_pair)):
        block = result.get(field_name)
        if not isinstance(block, dict):
            continue
        these = {k for k, v in block.items() if involved(k) and v is not None}
        if not these:
            continue
        out[field_name] = {k: (None if k in these else v) for k, v in block.items()}
        state.withheld += len(these)
        hidden |= these
    if every_variable:  # the matrices of every continuous variable: the few values' terms are in it
        hidden |= set(state.few_values)
    if hidden and out.get("value") is not None:
        few = sorted({v for k in hidden for v in str(k).split("|")} & state.few_values)
        out["value"] = None
        out["withheld"] = (f"safe mode: the value takes in {', '.join(few)}, resting on fewer than {state.min_cell} "
                           "records of a file (with a value, away from its most common value, or changed by the "
                           "protection)")
        state.withhold()
    if isinstance(result.get("details"), dict):
        out["details"] = _null_in_blocks(result["details"], set(state.few_values) | hidden,
                                         hide=lambda v: v is not None)
        if hidden:  # the value by another convention, or the largest term, may be a hidden one's
            out["details"] = {k: (None if k in VALUE_FORMS and _is_number(v) else v) for k, v in out["details"].items()}
    return out


def _nonzero_number(v: Any) -> bool:
    return _is_number(v) and v != 0


def _null_in_blocks(details: dict[str, Any], names: set, state: _Safe | None = None, *, skip: tuple = (),
                    hide: Callable[[Any], bool] = _nonzero_number) -> dict[str, Any]:
    """``details`` with the entries of ``names`` withheld (those ``hide`` accepts) in every block keyed by
    variable (or pair), except the keys in ``skip``; counted in ``state`` when given."""
    out: dict[str, Any] = {}
    for key, block in details.items():
        if key not in skip and isinstance(block, dict) and names & set(block):
            hidden = {k for k in names if k in block and hide(block[k])}
            block = {k: (None if k in hidden else v) for k, v in block.items()}
            if state is not None:
                state.withheld += len(hidden)
        out[key] = block
    return out


def _records_of(details: dict[str, Any] | None, state: _Safe) -> float:
    """The number of records behind a measure's shares: its ``n_records``, else the largest file's."""
    n = (details or {}).get("n_records")
    if isinstance(n, dict):
        n = n.get("protected", max((v for v in n.values() if _is_number(v)), default=None))
    if _is_number(n) and n > 0:
        return float(n)
    return float(max(state.record_counts, default=0))


def _safe_by_variable(out: dict[str, Any], state: _Safe, n: float, *, counts: bool, complement: bool) -> set[str]:
    """Withhold the small per-variable counts (or shares of records) of ``out`` and enough others that the
    measure's value (their sum or mean) cannot give them back; returns the variables withheld."""
    by_variable = out.get("by_variable")
    if not isinstance(by_variable, dict):
        return set()
    units = {k: (v if counts else v * n) for k, v in by_variable.items() if _is_number(v)}
    if complement and n:
        units_small = {k for k, u in units.items() if 0 < n - u < state.min_cell}
    else:
        units_small = set()
    names, left = partition_withheld(units, state.min_cell, state.published | state.measured if counts else frozenset())
    names |= units_small
    if names:
        out["by_variable"] = {k: (None if k in names else v) for k, v in by_variable.items()}
        state.withheld += sum(1 for k in names if by_variable.get(k) is not None)
    # the value less the parts shown is the withheld parts' sum: withheld too where it pins them (:func:`pinned`);
    # parts the tables publish are known, so they do not count among the withheld ones (``left``)
    held = [units[k] for k in names if k in units and units[k] > 0]
    if (0 < left < state.min_cell - 1e-9 or (held and pinned(held, n, state.min_cell))) \
            and out.get("value") not in (None, 0):
        out["value"] = None
        out["withheld"] = (f"safe mode: the value adds up per-variable counts of which the withheld ones would be "
                           f"known to fewer than {state.min_cell} records, which it would give back")
        state.withhold()
    return names


def partition_withheld(units: dict[Any, float], min_cell: int, known: frozenset | set = frozenset()
                       ) -> tuple[set[Any], float]:
    """Parts of a total to withhold: those of fewer than ``min_cell`` records, then the next smallest ones
    until the withheld parts hold at least ``min_cell`` records in all (or none is left).

    The reader knows the total (or can add it up), so one withheld part alone would be the total minus the
    parts shown; with at least ``min_cell`` records withheld in all, no part is known to better than
    "fewer than ``min_cell``".  Empty parts (0) are shown.  Parts in ``known`` are published elsewhere
    (a one-way table's missing count): they are not chosen as partners, since withholding them hides nothing.
    Returns the parts withheld and their records (those of ``known`` parts not counted).

    >>> sorted(partition_withheld({"a": 1, "b": 40, "c": 0, "d": 9}, 5)[0])
    ['a', 'd']
    >>> partition_withheld({"a": 6, "b": 40}, 5)
    (set(), 0.0)
    >>> sorted(partition_withheld({"a": 1, "b": 40, "d": 9}, 5, known={"d"})[0])
    ['a', 'b']
    """
    small = {k for k, u in units.items() if 0 < u < min_cell - 1e-9}
    left = float(sum(units[k] for k in small if k not in known))
    while 0 < left < min_cell - 1e-9:
        free = [k for k, u in units.items() if u > 0 and k not in small and k not in known]
        if not free:
            break
        k = min(free, key=lambda name: units[name])
        small.add(k)
        left += float(units[k])
    return small, left


def _count_measure_details(details: dict[str, Any], withheld_vars: set[str], value_withheld: bool,
                           state: _Safe, n: float, complement: bool = False) -> dict[str, Any]:
    """A count measure's own details: the original's counts, and what its details give per withheld variable.

    Every per-variable entry of a withheld variable goes (``percent``, and suppressions' ``net`` and
    ``filled``): a partner withheld beside a small count (:func:`partition_withheld`) would otherwise be shown
    in ``net`` (its suppressions when it filled none), and the value less it gives the small count back.
    """
    for key, per in list(details.items()):
        if key != "original" and isinstance(per, dict) and withheld_vars & set(per) \
                and all(_is_number(v) or v is None for v in per.values()):
            details[key] = {k: (None if k in withheld_vars else v) for k, v in per.items()}
            state.withheld += sum(1 for k in withheld_vars if per.get(k) is not None)
    if value_withheld:  # the measure's own share or percent gives its count back
        for key in ("share", "percent"):
            if _is_number(details.get(key)) and details[key] != 0:
                details[key] = None
                state.withhold()
    original = details.get("original")
    if isinstance(original, dict):
        # the same measure on the original: a count ("value") or counts per variable
        original = dict(original)
        if isinstance(original.get("by_variable"), dict):
            _safe_by_variable(original, state, n, counts=True, complement=complement)
        details["original"] = _walk(original, state, parent="original", counting=True)
    return details


def _share_measure_details(details: dict[str, Any], withheld_vars: set[str], state: _Safe, n: float) -> dict[str, Any]:
    """A share measure's details: the shares behind withheld per-variable values, and the original's."""
    # other per-variable values beside them (loss_metric's arx, ...)
    details = _null_in_blocks(details, withheld_vars, state, skip=("by_variable", "original"))
    by_variable = details.get("by_variable")
    if isinstance(by_variable, dict) and withheld_vars:
        out = {}
        for name, entry in by_variable.items():
            if name in withheld_vars and isinstance(entry, dict):
                entry = {k: (None if str(k).startswith("share") and _is_number(v) and v != 0 else v)
                         for k, v in entry.items()}
                state.withheld += 1
            out[name] = entry
        details["by_variable"] = out
    original = details.get("original")
    if isinstance(original, dict) and isinstance(original.get("by_variable"), dict):
        original = dict(original)
        plain = {k: (v.get("share_below_l") if isinstance(v, dict) else v) for k, v in original["by_variable"].items()}
        probe = {"value": original.get("value"), "by_variable": plain}
        names = _safe_by_variable(probe, state, n, counts=False, complement=False)
        if names or probe["value"] is None:
            original["value"] = probe["value"]
            original = _share_measure_details(original, names, state, n)
            if not all(isinstance(v, dict) for v in original["by_variable"].values()):
                original["by_variable"] = probe["by_variable"]
        details["original"] = original
    return details


def _partitions_in_proportions(details: dict[str, Any], state: _Safe) -> dict[str, Any]:
    """Cluster shares per file (``proportions``): a cluster of fewer than ``min_cell`` records withheld,
    with the next smallest so that the others (which add up to 1) cannot give it back."""
    proportions = details.get("proportions")
    clustered = details.get("records_clustered")
    if not (isinstance(proportions, dict) and isinstance(clustered, dict)):
        return details
    out = dict(proportions)
    for side in ("original", "protected"):
        shares, n = proportions.get(side), clustered.get(side)
        if isinstance(shares, list) and _is_number(n):
            units = {i: p * n for i, p in enumerate(shares) if _is_number(p)}
            names, _ = partition_withheld(units, state.min_cell)
            out[side] = [None if i in names else p for i, p in enumerate(shares)]
            state.withheld += len(names)
    details["proportions"] = out
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
            from .safe_analyses import safe_estimate_rows

            return safe_estimate_rows(list(obj), state)
        if parent == "regressions" and all(isinstance(r, dict) and "coefficients" in r for r in obj):
            from .safe_analyses import safe_regression

            return [safe_regression(_walk(r, state, parent="regression", counting=counting), r, state) for r in obj]
        if parent == "coefficients":  # rounded like every estimate (exact ones give a small domain's values back)
            return [_walk(v, state, parent="coefficient", counting=False) for v in obj]
        if parent == "class_sizes":
            return _class_sizes(obj, state)
        if _per_record(obj, parent, state):
            state.withhold()
            return None
        return [_walk(v, state, parent=parent, counting=counting) for v in obj]
    if _is_number(obj):
        if counting and state.small(obj):
            state.withhold()
            return None
        if isinstance(obj, numbers.Integral) or (counting and float(obj).is_integer()):
            return int(obj)  # a record count, also one held as a float (1425.0): kept
        return round_sig(float(obj))
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
        if key_s in LABEL_LIST_KEYS and isinstance(value, list) and value:
            out[key] = ["(a category, not named in safe mode)"] * len(value)
            state.withheld += len(value)
            continue
        if key_s == "distance_quantiles" and isinstance(value, dict):  # the nearest pairing's: its ends are a
            ends = [k for k in ("0", "1") if _is_number(value.get(k))]  # protected record's own distance
            value = {k: (None if k in ends else v) for k, v in value.items()}
            state.withheld += len(ends)
        if key_s in EXTREME_KEYS or (distribution and key_s in ("min", "max")):
            if _is_number(value):
                state.withhold()
                value = None
            out[key] = value
            continue
        child_counts = (counting or key_s in counted) and key_s not in NOT_COUNTS
        if key_s in PARTITION_KEYS and isinstance(value, dict):
            cell, sibling = PARTITION_KNOWN.get(key_s, (None, None))
            shown = obj.get(sibling) if sibling else None  # a count shown beside the partition: its cell is known
            known = {cell} if _is_number(shown) and not state.small(shown) and not state.small_complement(shown) \
                else set()
            names, _ = partition_withheld({k: v for k, v in value.items() if _is_number(v)}, state.min_cell, known)
            value = {k: (None if k in names else v) for k, v in value.items()}
            state.withheld += len(names)
            withheld_here |= bool(names)
        before = state.withheld
        if key_s == "records" and isinstance(value, dict) and _small_split_complement(value, state):
            value = {k: None for k in value}  # the mining splits: their sum is the records with a target value
            state.withhold()
        if key_s == "held_out_records" and value is not None:
            # a share of the records with a target value (the test share): it bounds those without one
            out[key] = None
            state.withhold()
            continue
        out[key] = _walk(value, state, parent=key_s, counting=child_counts)
        if key_s in COMPLEMENT_KEYS:
            out[key] = _without_small_complements(out[key], state)
        if child_counts and state.withheld > before and not isinstance(value, (dict, list)):
            withheld_here = True
    if withheld_here:  # a share or percent beside a withheld count gives it back
        for key in [k for k in out if str(k) in SHARE_KEYS or str(k).startswith(SHARE_PREFIXES)]:
            if _is_number(out[key]) and out[key] != 0:
                out[key] = None
                state.withhold()
    return out


def _small_split_complement(records: dict, state: _Safe) -> bool:
    """Whether the mining measures' training and held-out record counts add up to a file's records minus a
    small count (the records without a target value, which safe mode withholds)."""
    def size(key: str) -> float | None:
        v = records.get(key)
        v = v.get("mean") if isinstance(v, dict) else v
        return float(v) if _is_number(v) else None

    sums = [(size(a), size(b)) for a, b in (("original_train_pool", "held_out_pool"), ("original_train", "held_out"))]
    totals = [a + b for a, b in sums if a is not None and b is not None]
    return any(0 < n - t < state.min_cell for t in totals for n in state.record_counts)


def _without_small_complements(value: Any, state: _Safe) -> Any:
    """Counts of records with a value, withheld where a file's records minus the count are a small count."""
    if isinstance(value, dict):
        return {k: _without_small_complements(v, state) for k, v in value.items()}
    if _is_number(value) and any(0 < n - value < state.min_cell for n in state.record_counts):
        state.withhold()
        return None
    return value


def _class_sizes(pairs: list, state: _Safe) -> list:
    """``[class size, number of classes]`` pairs: the number of classes withheld where they hold fewer than
    ``min_cell`` records, with the next smallest groups (the total number of classes is shown)."""
    units = {i: p[0] * p[1] for i, p in enumerate(pairs)
             if isinstance(p, (list, tuple)) and len(p) == 2 and all(_is_number(v) for v in p)}
    names, _ = partition_withheld(units, state.min_cell)
    state.withheld += len(names)
    # a withheld group's size is withheld too: with the total number of classes, the sizes shown would tell
    # how many classes the withheld records form and so a class of 1 record (a unique record)
    return [([None, None] if i in names else [int(p[0]), int(p[1])]) if i in units else p
            for i, p in enumerate(pairs)]


def _per_record(values: list | tuple, parent: str, state: _Safe) -> bool:
    """A list with one number per record of a file (and not a list that is never per-record)."""
    if parent in NOT_PER_RECORD or len(values) not in state.record_counts or len(values) < 2:
        return False
    return all(v is None or _is_number(v) for v in values)


def _is_number(x: Any) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_)) and x == x
