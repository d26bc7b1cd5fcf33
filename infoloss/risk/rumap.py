"""The risk-utility map: every scenario (and the original) as a point, the Pareto front, two decision rules.

One risk measure (family ``risk``, the protected file's disclosure risk) is
plotted against one utility or loss measure, expressed as a **loss**: the
distance of its value from the measure's ideal in the bad direction
(``value - ideal`` for "lower is better", ``ideal - value`` for "higher is
better", ``|value - ideal|`` for a target), so that the original, released
as it is, has loss 0 and its own risk.  A point is on the Pareto front when
no other point has both a lower-or-equal risk and a lower-or-equal loss
with one of them strictly lower.

The two decision rules of the Handbook on Statistical Disclosure Control
(section "risk-utility trade-off"): given a maximum acceptable risk, choose
the scenario with the least loss among those within it; given a maximum
acceptable loss, choose the scenario with the least risk among those within
it.  Ties are broken by the other axis, then by scenario order.

The result is the ``risk_utility`` block of the JSON result (see
``docs/measures.md``).
"""

from __future__ import annotations

import math
from typing import Any

from ..errors import InputError
from ..registry import get

__all__ = ["risk_utility", "check_choice", "DEFAULT_RISK", "DEFAULT_UTILITY"]

#: risk measures tried in this order when none is chosen
DEFAULT_RISK = ("global_risk", "expected_reidentifications", "suda_dis", "interval_disclosure", "record_linkage",
                "dcr_holdout", "exact_copies")
#: utility / loss measures tried in this order when none is chosen (then any headline measure)
DEFAULT_UTILITY = ("gdu", "lambda")
KEYS = ("risk", "utility", "max_risk", "max_loss")


def check_choice(choice: dict[str, Any] | None) -> dict[str, Any]:
    """The user's choices checked: known keys, measure ids of the right family, numeric thresholds."""
    if choice is not None and not isinstance(choice, dict):
        raise InputError(f"the risk-utility choice must be a mapping such as {{'risk': 'global_risk', 'utility': "
                         f"'gdu'}}, got {type(choice).__name__}.")
    choice = dict(choice or {})
    unknown = sorted(set(choice) - set(KEYS))
    if unknown:
        raise InputError(f"unknown risk-utility setting {unknown[0]!r}; use risk, utility, max_risk and max_loss.")
    for key, want_risk in (("risk", True), ("utility", False)):
        mid = choice.get(key)
        if mid is None:
            continue
        try:
            info = get(mid)
        except KeyError:
            raise InputError(f"the risk-utility {key} measure {mid!r} is not a measure; 'infoloss measures' lists "
                             "them.") from None
        if (info.family == "risk") != want_risk:
            raise InputError(
                f"the risk-utility {key} measure must be "
                + ("a measure of the risk family" if want_risk else "a utility or loss measure (not of the risk family)")
                + f", and {mid!r} is {'not ' if want_risk else ''}one."
            )
    for key in ("max_risk", "max_loss"):
        value = choice.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise InputError(f"{key.replace('_', '-')} must be a number of at least 0, got {value!r}.")
        choice[key] = float(value)
    return choice


def _computed_everywhere(report: Any, mid: str) -> bool:
    return mid in report.measure_ids and all(mid in s.measures for s in report.scenarios)


def _pick(report: Any, wanted: str | None, defaults: tuple[str, ...], family_risk: bool) -> str | None:
    if wanted is not None:
        return wanted
    for mid in defaults:
        if _computed_everywhere(report, mid):
            return mid
    others = [m for m in report.measure_ids if (get(m).family == "risk") == family_risk]
    for mid in sorted(others, key=lambda m: not get(m).headline):
        if _computed_everywhere(report, mid):
            return mid
    return None


def _loss(info: Any, value: float) -> float:
    if info.better == "lower":
        return value - info.ideal
    if info.better == "higher":
        return info.ideal - value
    return abs(value - info.ideal)


def _loss_text(info: Any) -> str:
    ideal = f"{info.ideal:g}"
    if info.better == "lower":
        return f"loss = {info.id} − {ideal}" if info.ideal else f"loss = {info.id}"
    if info.better == "higher":
        return f"loss = {ideal} − {info.id}"
    return f"loss = |{info.id} − {ideal}|"


def risk_utility(report: Any, choice: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``risk_utility`` block of a :class:`~infoloss.compare.Report`.

    Parameters
    ----------
    report : Report
        The result of :func:`infoloss.compare`.
    choice : dict, optional
        ``risk`` and ``utility`` measure ids (default: the first computed of
        :data:`DEFAULT_RISK` and :data:`DEFAULT_UTILITY`), ``max_risk`` and
        ``max_loss`` thresholds for the two decision rules.

    Returns
    -------
    dict
        ``available`` (false with a ``reason`` when no risk or no utility
        measure was computed), the two measures and how the loss is defined,
        ``points`` (the original first; each with ``risk``, ``loss``,
        ``utility_value``, ``pareto``), ``pareto_front`` (names by increasing
        risk), ``not_on_map`` (scenario: why) and ``decisions``
        (``max_risk`` and ``max_loss`` rules: threshold, eligible scenarios
        ranked, the choice and a sentence).
    """
    choice = check_choice(choice)
    risk_id = _pick(report, choice.get("risk"), DEFAULT_RISK, True)
    utility_id = _pick(report, choice.get("utility"), DEFAULT_UTILITY, False)
    if risk_id is None or utility_id is None:
        missing = "risk" if risk_id is None else "utility or loss"
        return {"available": False,
                "reason": f"no {missing} measure was computed for every scenario, so there is no map to draw."}
    risk_info, utility_info = get(risk_id), get(utility_id)
    points: list[dict[str, Any]] = []
    not_on_map: dict[str, str] = {}
    original_risk = None
    for s in report.scenarios:
        r, u = s.measures.get(risk_id), s.measures.get(utility_id)
        if r is None or u is None:
            mid = risk_id if r is None else utility_id
            not_on_map[s.name] = f"{mid} not computed: {s.not_computed.get(mid, 'not run')}"
            continue
        if original_risk is None:
            original_risk = (r.details.get("original") or {}).get("value")
        points.append({"name": s.name, "original": False, "risk": r.value, "loss": _loss(utility_info, u.value),
                       "utility_value": u.value})
    if original_risk is not None:
        points.insert(0, {"name": "original", "original": True, "risk": float(original_risk), "loss": 0.0,
                          "utility_value": utility_info.ideal})
    _mark_pareto(points)
    scenarios = [p for p in points if not p["original"]]
    return {
        "available": True,
        "risk_measure": risk_id,
        "risk_description": risk_info.description,
        "utility_measure": utility_id,
        "utility_description": utility_info.description,
        "utility_better": utility_info.better,
        "utility_ideal": utility_info.ideal,
        "loss_definition": _loss_text(utility_info),
        "points": points,
        "pareto_front": [p["name"] for p in sorted(points, key=lambda p: (p["risk"], p["loss"])) if p["pareto"]],
        "not_on_map": not_on_map,
        "decisions": {
            "max_risk": _rule(scenarios, "risk", "loss", choice.get("max_risk"), original_risk),
            "max_loss": _rule(scenarios, "loss", "risk", choice.get("max_loss"), None),
        },
    }


def _mark_pareto(points: list[dict[str, Any]]) -> None:
    for p in points:
        p["pareto"] = not any(
            q is not p and q["risk"] <= p["risk"] and q["loss"] <= p["loss"]
            and (q["risk"] < p["risk"] or q["loss"] < p["loss"])
            for q in points
        )


def _rule(scenarios: list[dict[str, Any]], bound: str, minimise: str, threshold: float | None,
          original_risk: float | None) -> dict[str, Any]:
    """Among the scenarios with ``bound <= threshold``, rank by ``minimise`` (then ``bound``)."""
    rule = {"threshold": threshold, "bound": bound, "minimise": minimise}
    if threshold is None:
        rule.update(eligible=[], ranking=[], choice=None,
                    reason=f"no maximum {bound} was given (--max-{bound}), so no scenario is chosen by this rule.")
        return rule
    eligible = [p for p in scenarios if p[bound] <= threshold]
    ranked = sorted(eligible, key=lambda p: (p[minimise], p[bound]))
    rule["eligible"] = [p["name"] for p in eligible]
    rule["ranking"] = [p["name"] for p in ranked]
    if ranked:
        best = ranked[0]
        rule["choice"] = best["name"]
        verb = "has" if len(ranked) == 1 else "have"
        rule["reason"] = (f"{len(ranked)} of {len(scenarios)} scenarios {verb} {bound} at most {threshold:g}; "
                          f"{best['name']} has the least {minimise} among them ({best[minimise]:.4g}).")
    else:
        lowest = min((p[bound] for p in scenarios), default=float("nan"))
        rule["choice"] = None
        rule["reason"] = (f"no scenario has {bound} at most {threshold:g} (the lowest is {lowest:.4g}); protect "
                          "further or accept a higher maximum.")
    if bound == "risk" and original_risk is not None:
        rule["original_within"] = bool(original_risk <= threshold)
    return rule
