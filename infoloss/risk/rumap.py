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

__all__ = ["risk_utility", "check_choice", "front_and_rules", "DEFAULT_RISK", "DEFAULT_UTILITY"]

#: risk measures tried in this order when none is chosen
DEFAULT_RISK = ("global_risk", "expected_reidentifications", "suda_dis", "interval_disclosure", "record_linkage",
                "dcr_holdout", "exact_copies")
#: utility / loss measures tried in this order when none is chosen (then a headline utility measure)
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
            from ..compare import closest_measure

            raise InputError(f"the risk-utility {key} measure {mid!r} is not a measure{closest_measure(str(mid))}; "
                             "'infoloss measures' lists them.") from None
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
    """The chosen measure, else the first default computed for every scenario, else (a risk measure: any; a
    utility measure: a headline one) computed for every scenario, headline measures first."""
    if wanted is not None:
        return wanted
    for mid in defaults:
        if _computed_everywhere(report, mid):
            return mid
    others = [m for m in report.measure_ids if (get(m).family == "risk") == family_risk
              and (family_risk or get(m).headline)]
    for mid in sorted(others, key=lambda m: not get(m).headline):
        if _computed_everywhere(report, mid):
            return mid
    return None


def _unavailable(risk_id: str | None, utility_id: str | None) -> dict[str, Any]:
    """The block without a map: no measure computed for every scenario, and how to choose one."""
    if risk_id is None:
        why = (f"no risk measure was chosen and none of {', '.join(DEFAULT_RISK)} or another risk measure was "
               "computed for every scenario")
        how = "--ru risk=ID (Python: risk_utility={'risk': ID})"
    else:
        why = (f"no utility measure was chosen and none of {', '.join(DEFAULT_UTILITY)} or another headline "
               "utility measure was computed for every scenario")
        how = "--ru utility=ID (Python: risk_utility={'utility': ID})"
    return {"available": False, "reason": f"{why}, so there is no map to draw; choose one with {how}."}


def _nowhere(report: Any, risk_id: str, utility_id: str) -> dict[str, Any]:
    """The block when the chosen measures give no scenario a point: which measure, and why (first scenario)."""
    for mid in (risk_id, utility_id):
        if not any(mid in s.measures for s in report.scenarios):
            first = report.scenarios[0] if report.scenarios else None
            why = f" ({first.name}: {first.not_computed.get(mid, 'not run')})" if first is not None else ""
            return {"available": False,
                    "reason": f"{mid} was computed for no scenario{why}, so there is no map to draw."}
    return {"available": False, "reason": f"no scenario has both {risk_id} and {utility_id} computed, so there "
                                          "is no map to draw."}


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
        measure was computed for every scenario, or the chosen one for no
        scenario), the two measures and how the loss is defined,
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
        return _unavailable(risk_id, utility_id)
    risk_info, utility_info = get(risk_id), get(utility_id)
    points, not_on_map = _points(report, risk_id, utility_id, utility_info)
    if not any(not p["original"] for p in points):
        return _nowhere(report, risk_id, utility_id)
    front, decisions = front_and_rules(points, choice.get("max_risk"), choice.get("max_loss"), not_on_map)
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
        "pareto_front": front,
        "not_on_map": not_on_map,
        "decisions": decisions,
    }


def _points(report: Any, risk_id: str, utility_id: str, utility_info: Any
            ) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The map's points (the original first, when the risk measure gives its risk) and the scenarios not on it."""
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
    return points, not_on_map


def front_and_rules(points: list[dict[str, Any]], max_risk: float | None, max_loss: float | None,
                    left_out: dict[str, str]) -> tuple[list[str], dict[str, Any]]:
    """The Pareto flags (set on ``points``), the front (names by increasing risk) and the two decision rules,
    all from ``points`` alone; ``left_out`` (scenario: why) are the scenarios not among them, which the rules'
    sentences name.  Safe mode calls this with the points whose risk and loss are shown."""
    _mark_pareto(points)
    front = [p["name"] for p in sorted(points, key=lambda p: (p["risk"], p["loss"])) if p["pareto"]]
    scenarios = [p for p in points if not p["original"]]
    original_risk = next((p["risk"] for p in points if p["original"]), None)
    return front, {
        "max_risk": _rule(scenarios, "risk", "loss", max_risk, left_out, original_risk),
        "max_loss": _rule(scenarios, "loss", "risk", max_loss, left_out, None),
    }


def _mark_pareto(points: list[dict[str, Any]]) -> None:
    for p in points:
        p["pareto"] = not any(
            q is not p and q["risk"] <= p["risk"] and q["loss"] <= p["loss"]
            and (q["risk"] < p["risk"] or q["loss"] < p["loss"])
            for q in points
        )


def _rule(scenarios: list[dict[str, Any]], bound: str, minimise: str, threshold: float | None,
          left_out: dict[str, str], original_risk: float | None) -> dict[str, Any]:
    """Among the scenarios with ``bound <= threshold``, rank by ``minimise`` (then ``bound``, then order)."""
    rule: dict[str, Any] = {"threshold": threshold, "bound": bound, "minimise": minimise}
    if threshold is None:
        rule.update(eligible=[], ranking=[], choice=None,
                    reason=f"no maximum {bound} was given (--max-{bound}), so no scenario is chosen by this rule.")
        return rule
    eligible = [p for p in scenarios if p[bound] <= threshold]
    ranked = sorted(eligible, key=lambda p: (p[minimise], p[bound]))
    rule["eligible"] = [p["name"] for p in eligible]
    rule["ranking"] = [p["name"] for p in ranked]
    rule["choice"] = ranked[0]["name"] if ranked else None
    rule["reason"] = _reason(scenarios, ranked, bound, minimise, threshold, bool(left_out)) + _left_out_text(left_out)
    if bound == "risk" and original_risk is not None:
        rule["original_within"] = bool(original_risk <= threshold)
    return rule


def _reason(scenarios: list[dict[str, Any]], ranked: list[dict[str, Any]], bound: str, minimise: str,
            threshold: float, partial: bool) -> str:
    """The rule's sentence: how many are within the threshold and which has the least, naming exact ties.

    Values print by the report's number rule (:func:`infoloss.report.numbers.number`: 3 significant digits);
    the threshold prints as given (it is the user's own number, and eligibility is judged against it exactly).
    """
    from ..report.numbers import number  # the report's one number rule (3 significant digits), as everywhere

    on_map = " on the map" if partial else ""
    if not scenarios:
        return "no scenario is on the map, so this rule chooses none."
    if not ranked:
        lowest = min(p[bound] for p in scenarios)
        return (f"no scenario{on_map} has {bound} at most {threshold:g} (the lowest is {number(lowest)}); protect "
                "further or accept a higher maximum.")
    best = ranked[0]
    verb = "has" if len(ranked) == 1 else "have"
    noun = "scenario" if len(scenarios) == 1 else "scenarios"
    of = f"of the {len(scenarios)} {noun} on the map" if partial else f"of {len(scenarios)} {noun}"
    text = (f"{len(ranked)} {of} {verb} {bound} at most {threshold:g}; {best['name']} has the least {minimise} "
            f"among them ({number(best[minimise])})")
    return text + _tie_text(ranked, bound, minimise) + "."


def _tie_text(ranked: list[dict[str, Any]], bound: str, minimise: str) -> str:
    """', tied with B; A has the lower risk' when others have exactly the chosen one's ``minimise`` value."""
    best = ranked[0]
    tied = [p for p in ranked[1:] if p[minimise] == best[minimise]]
    if not tied:
        return ""
    names = ", ".join(p["name"] for p in tied)
    same = [p for p in tied if p[bound] == best[bound]]
    if not same:
        why = f"{best['name']} has the lower {bound}"
    elif len(same) == len(tied):
        why = f"{best['name']} comes first in scenario order"
    else:
        why = f"{best['name']} has the lowest {bound} and comes first in scenario order"
    return f", tied with {names}; {why}"


def _left_out_text(left_out: dict[str, str]) -> str:
    """' Not on the map, so not in this rule: C (why).' (nothing when every scenario is on the map)."""
    if not left_out:
        return ""
    return " Not on the map, so not in this rule: " + "; ".join(f"{n} ({why})" for n, why in left_out.items()) + "."
