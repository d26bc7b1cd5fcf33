"""Safe-to-share rules for the risk-utility map (the JSON's top-level ``risk_utility`` block and the page's map).

A point's risk is withheld where the scenario's safe JSON withholds its risk
measure (or where a count risk is small), its loss and utility where the
safe JSON withholds the utility measure.  A point with its risk or loss
withheld has ``pareto`` null and is left out of the Pareto front and of the
decision rules: those are computed again from the points shown alone (a
flag or a rule computed with a withheld value would bound it: "no scenario
has risk at most 3" with a withheld count of fewer than 5 gives it as 4),
``pareto_note`` and the rules' sentences name what they leave out, and
``original_within`` is null when the original's risk is withheld
(:mod:`infoloss.safe_results` has the rules of the measures themselves).
"""

from __future__ import annotations

from typing import Any

from .risk.rumap import front_and_rules
from .safe_results import _Safe

__all__ = ["safe_risk_utility"]


def safe_risk_utility(block: dict[str, Any], min_cell: int, registry: Any,
                      scenarios: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The risk-utility map with the risks the safe measures withhold withheld too (a new dict).

    A count risk measure's small values are withheld; given the scenarios' safe JSON (``scenarios``), so is
    every point whose risk that JSON withholds (a share of a withheld count: the scenario's measure value, or
    the original's in ``details.original``), and every loss whose utility measure it withholds.  The front and
    the rules are then those of the points shown (:func:`_from_shown_points`).
    """
    if not block.get("available", True):
        return block
    mid = block.get("risk_measure")
    try:
        counts = mid is not None and registry.get(mid).unit == "count"
    except KeyError:
        counts = False
    withheld_risks = _withheld_points(mid, scenarios)
    withheld_losses = _withheld_points(block.get("utility_measure"), scenarios) - {"original"}
    state = _Safe(int(min_cell), frozenset())
    points = []
    for point in block.get("points", []):
        point = dict(point)
        key = "original" if point.get("original") else point.get("name")
        if point.get("risk") is not None and ((counts and state.small(point.get("risk"))) or key in withheld_risks):
            point["risk"] = None
        if key in withheld_losses:  # the scenario's safe JSON withholds its utility measure: its loss too
            point.update(loss=None, utility_value=None)
        points.append(point)
    if all(p.get("risk") is not None and p.get("loss") is not None for p in points):
        return {**block, "points": points}
    return _from_shown_points({**block, "points": points})


def _from_shown_points(block: dict[str, Any]) -> dict[str, Any]:
    """The block with the Pareto flags, the front and the rules computed from the points whose risk and loss are
    shown; the others have ``pareto`` null and are named, with what is withheld, in ``pareto_note`` and in the
    rules' sentences."""
    points = block["points"]
    shown = [p for p in points if p.get("risk") is not None and p.get("loss") is not None]
    hidden = {p["name"]: _what_is_withheld(p) for p in points if p not in shown}
    for p in points:
        p["pareto"] = None
    decisions = block.get("decisions") or {}
    left_out = {**(block.get("not_on_map") or {}), **{n: w for n, w in hidden.items() if n != "original"}}
    front, rules = front_and_rules(shown, _threshold(decisions, "max_risk"), _threshold(decisions, "max_loss"),
                                   left_out)
    if "original" in hidden and rules["max_risk"]["threshold"] is not None:
        rules["max_risk"]["original_within"] = None  # the original's risk is withheld
    note = ("computed from the points shown alone; left out: "
            + "; ".join(f"{n} ({why})" for n, why in hidden.items()))
    return {**block, "points": points, "pareto_front": front, "pareto_note": note, "decisions": rules}


def _what_is_withheld(point: dict[str, Any]) -> str:
    what = [w for w in ("risk", "loss") if point.get(w) is None]
    return f"its {' and '.join(what)} withheld in safe mode"


def _threshold(decisions: dict[str, Any], key: str) -> float | None:
    rule = decisions.get(key)
    return rule.get("threshold") if isinstance(rule, dict) else None


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
