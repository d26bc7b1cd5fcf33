"""Safe-to-share rules for the risk-utility map (the JSON's top-level ``risk_utility`` block and the page's map).

A point's risk is withheld where the scenario's safe JSON withholds its risk
measure (or where a count risk is small), its loss and utility where the
safe JSON withholds the utility measure; with a loss withheld, the Pareto
front and the decision rules that bound or rank by the loss go too
(:mod:`infoloss.safe_results` has the rules of the measures themselves).
"""

from __future__ import annotations

from typing import Any

from .safe_results import _Safe

__all__ = ["safe_risk_utility"]


def safe_risk_utility(block: dict[str, Any], min_cell: int, registry: Any,
                      scenarios: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The risk-utility map with the risks the safe measures withhold withheld too (a new dict).

    A count risk measure's small values are withheld; given the scenarios' safe JSON (``scenarios``), so is
    every point whose risk that JSON withholds (a share of a withheld count: the scenario's measure value, or
    the original's in ``details.original``).
    """
    mid = block.get("risk_measure")
    try:
        counts = mid is not None and registry.get(mid).unit == "count"
    except KeyError:
        counts = False
    withheld_points = _withheld_points(mid, scenarios)
    withheld_losses = _withheld_points(block.get("utility_measure"), scenarios) - {"original"}
    if not counts and not withheld_points and not withheld_losses:
        return block
    state = _Safe(int(min_cell), frozenset())
    points = []
    for point in block.get("points", []):
        point = dict(point)
        key = "original" if point.get("original") else point.get("name")
        if point.get("risk") is not None and ((counts and state.small(point.get("risk"))) or key in withheld_points):
            point["risk"] = None
            state.withhold()
        if key in withheld_losses:  # the scenario's safe JSON withholds its utility measure: its loss too
            point.update(loss=None, utility_value=None, pareto=None)
            state.withhold()
        points.append(point)
    out = {**block, "points": points}
    if withheld_losses:
        out = _without_loss_rules(out, sorted(withheld_losses))
    if state.withheld and isinstance(out.get("decisions"), dict):
        # the decision rules quote the least or lowest risk: a withheld count there is withheld too
        import re

        decisions = {}
        for name, rule in out["decisions"].items():
            rule = dict(rule) if isinstance(rule, dict) else rule
            if isinstance(rule, dict) and isinstance(rule.get("reason"), str):
                reason = re.sub(r"has the least risk among them \([^)]*\)",
                                "has the least risk among them (withheld in safe mode)", rule["reason"])
                reason = re.sub(r"\(the lowest is [^)]*\)", "(the lowest is withheld in safe mode)", reason) \
                    if rule.get("bound") == "risk" else reason
                rule["reason"] = reason
            decisions[name] = rule
        out["decisions"] = decisions
    return out


def _without_loss_rules(block: dict[str, Any], names: list[str]) -> dict[str, Any]:
    """The map without what the withheld losses of ``names`` decide: the Pareto front and the rules that bound or
    rank by the loss (their eligible scenarios and ranking would bound the withheld values)."""
    why = f"withheld in safe mode: the loss of {', '.join(names)} is withheld"
    decisions = {}
    for name, rule in (block.get("decisions") or {}).items():
        if isinstance(rule, dict) and "loss" in (rule.get("bound"), rule.get("minimise")) \
                and rule.get("threshold") is not None:
            rule = dict(rule, eligible=None, ranking=None, choice=None, reason=why)
        decisions[name] = rule
    return {**block, "pareto_front": None, "pareto_note": why, "decisions": decisions}


def _withheld_points(mid: str | None, scenarios: list[dict[str, Any]] | None) -> set[str]:
    """Names of the map's points whose risk measure the safe scenarios withhold ("original" for the original)."""
    out: set[str] = set()
    for scenario in scenarios or []:
        result = (scenario.get("measures") or {}).get(mid)
        if not isinstance(result, dict):
            continue
        if result.get("value") is None and "withheld" in result:
            out.add(scenario.get("name"))
        original = (result.get("details") or {}).get("original")
        if isinstance(original, dict) and "value" in original and original["value"] is None:
            out.add("original")
    return out
