"""The report as the safe JSON has it: one source of truth for the values a safe page shows.

In safe mode the page takes every measure's ``value``, ``by_variable``,
``by_pair`` and ``details``, the ``analyses`` block and the descriptive
``statistics`` from the scenario's safe JSON
(``ScenarioResult.to_dict(safe=True, min_cell=N)``, the rules of
:mod:`infoloss.safe_results`), computed once per scenario and page.  What the
JSON withholds (``null``) the page shows as "withheld", with the JSON's
``withheld`` reason in a title where it gives one; charts leave such points
out.  So the HTML never shows a value the JSON withholds, and the two files
shared together give no more than either.

The aggregates behind the plots per variable (histograms, quantiles,
one-way and two-way tables) are not part of the JSON; their own safe rules
are in :mod:`infoloss.report.plotdata`.  The raw scenario stays reachable as
``raw`` (the DIS-SUDA and l-diversity tables take their row labels from it,
and check that a table adds up to the file's records before printing its
withheld cells' sum); the class-size chart and those tables print only the
JSON's cells (a page merging cells otherwise than the JSON withholds them
would give a withheld cell back).  The risk-utility block is the JSON's with
a point withheld where the file's measure value is null in the JSON
(:func:`withhold_points`).

:func:`safe_report` returns the report itself in full mode.
"""

from __future__ import annotations

from typing import Any

WITHHELD = "withheld"
#: the title of a withheld value when the JSON gives no reason
WITHHELD_TITLE = "withheld in safe mode (null in the safe JSON)"


class SafeResult:
    """A measure's result as the safe JSON has it (the attributes of a ``MeasureResult``; None: withheld)."""

    __slots__ = ("value", "by_variable", "by_pair", "details", "withheld")

    def __init__(self, fields: dict[str, Any]):
        self.value = fields.get("value")
        self.by_variable = fields.get("by_variable")
        self.by_pair = fields.get("by_pair")
        self.details = fields.get("details") or {}
        self.withheld = fields.get("withheld")

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"SafeResult(value={self.value!r}, withheld={self.withheld!r})"


class SafeScenario:
    """A scenario whose measures, analyses and statistics are those of its safe JSON; the rest is the scenario's."""

    def __init__(self, raw: Any, js: dict[str, Any]):
        self.raw = raw
        self.safe_json = js
        self.measures = {mid: SafeResult(m) for mid, m in js.get("measures", {}).items()}
        self.analyses = js.get("analyses")
        self.statistics = js.get("statistics")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


class SafeReport:
    """The report with every scenario a :class:`SafeScenario` and the risk-utility map's safe form."""

    def __init__(self, raw: Any, scenarios: list[SafeScenario], min_cell: int):
        self.raw = raw
        self.scenarios = scenarios
        self.min_cell = min_cell

    def risk_utility(self, **choice: Any) -> dict[str, Any]:
        from .. import registry
        from ..safe_risk_utility import safe_risk_utility

        safe_json = [s.safe_json for s in self.scenarios if getattr(s, "safe_json", None) is not None]
        # the page's own nulls first, so that the front and the rules are computed without them too
        block = withhold_points(self.raw.risk_utility(**choice), self.scenarios)
        return safe_risk_utility(block, self.min_cell, registry, safe_json)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


def original_value(original: dict[str, Any]) -> Any:
    """The original's value in a measure's ``details.original`` block, None where the block withholds the count
    the value is a share of (``{"value": 0.00333, "count": null}``: 1 record of 300).

    >>> original_value({"value": 0.00333, "count": None}), original_value({"value": 0.74, "count": 148})
    (None, 0.74)
    """
    if "count" in original and original["count"] is None:
        return None
    return original.get("value")


def withhold_points(block: dict[str, Any], scenarios: list[Any]) -> dict[str, Any]:
    """The risk-utility block with a point's risk (loss and utility) null where the safe JSON withholds the risk
    (utility) measure's value of that file: the scenario's ``value``, the original's ``details.original.value``
    (a share risk such as ``sample_uniques`` of one record is withheld there, though it is no count).

    >>> sc = [type("S", (), {"name": "p", "measures": {"r": SafeResult({"value": None}), "u": SafeResult({"value": .9})}})()]
    >>> b = {"available": True, "risk_measure": "r", "utility_measure": "u",
    ...      "points": [{"name": "p", "original": False, "risk": .005, "loss": .1, "utility_value": .9}]}
    >>> withhold_points(b, sc)["points"][0]["risk"] is None
    True
    """
    if not block.get("available"):
        return block
    by_name = {s.name: s for s in scenarios}

    def json_value(point: dict[str, Any], mid: str) -> tuple[bool, Any]:
        """(whether the JSON has the measure for the point's file, its value there)"""
        if point.get("original"):
            for s in scenarios:
                r = s.measures.get(mid)
                original = (r.details or {}).get("original") if r is not None else None
                if isinstance(original, dict) and "value" in original:
                    return True, original_value(original)
            return False, None
        r = by_name[point["name"]].measures.get(mid) if point.get("name") in by_name else None
        return (r is not None), (r.value if r is not None else None)

    points = []
    for point in block.get("points", []):
        point = dict(point)
        known, value = json_value(point, block.get("risk_measure"))
        if known and value is None:
            point["risk"] = None
        known, value = json_value(point, block.get("utility_measure"))
        if known and value is None and not point.get("original"):
            point["loss"] = point["utility_value"] = None
        points.append(point)
    return {**block, "points": points}


def safe_report(report: Any, policy: Any) -> Any:
    """``report`` as the page shows it: in safe mode a :class:`SafeReport` (each scenario's safe JSON computed
    once per page, cached on ``policy``); in full mode ``report`` itself."""
    if not policy.safe or isinstance(report, SafeReport):
        return report

    def build() -> SafeReport:
        # the scenarios as the safe JSON has them: the original's tables made safe alike in every scenario, and
        # each scenario's analyses made safe beside those tables (Report.to_dict)
        safe_json = report.safe_scenarios(policy.min_cell)
        return SafeReport(report, [SafeScenario(s, j) for s, j in zip(report.scenarios, safe_json)], policy.min_cell)

    return policy.cached("safe_report", build)


def is_withheld(result: Any, attr: str | None = None, key: str | None = None) -> bool:
    """Whether a computed result's value (or ``by_variable``/``by_pair`` entry ``key``) is withheld (null).

    >>> r = SafeResult({"value": None, "by_variable": {"a": None, "b": 2.0}, "withheld": "why"})
    >>> is_withheld(r), is_withheld(r, "by_variable", "a"), is_withheld(r, "by_variable", "b")
    (True, True, False)
    >>> is_withheld(r, "by_variable", "c")  # not there: not computed for it, not withheld
    False
    """
    if result is None:
        return False
    if attr is None:
        return result.value is None
    block = getattr(result, attr, None)
    return isinstance(block, dict) and key in block and block[key] is None


def withheld_title(result: Any) -> str:
    """The JSON's reason for withholding (its ``withheld`` entry), or a generic one."""
    reason = getattr(result, "withheld", None)
    return reason if isinstance(reason, str) and reason else WITHHELD_TITLE
