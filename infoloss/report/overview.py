"""The variable × scenario overview: each variable's loss in each scenario, on one scale.

The cell of variable ``v`` in scenario ``s`` is a loss between 0 (no change)
and 1, the same kind of number for every variable:

* paired files, categorical ``v``: the share of records whose value of ``v``
  changed (``records_changed`` / n; a suppression is a change);
* paired files, continuous ``v``: the larger of IL1s of ``v`` (``il1s``'s
  per-variable value, capped at 1 -- about 0.8 means as far apart as two
  random records) and the share of its values suppressed;
* files that are not paired: the distance between the distributions, the
  total variation distance of the one-way tables (categorical: the share of
  records that would have to change category) or the Kolmogorov–Smirnov
  statistic (continuous: ``ks``'s per-variable value, else from the report's
  400-bin histograms);
* a variable removed from the protected file: 1.

When the measure behind a cell was not run, the cell falls back to the
distribution distance.  The measure is named in each cell's hover text and
in the table's text.  In safe mode a share that rests on fewer than
``min_cell`` records is shown as "< x %" (the share of ``min_cell`` records)
and sorts as that bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from markupsafe import Markup

from . import svg
from .numbers import below, number, percent
from .parts import join
from .plotdata import Policy, total_variation
from .safe_view import is_withheld
from .scores import variable_kinds

#: colours of the overview cells, from no loss to complete loss
OVERVIEW_RAMP = ("#ffffff", "#fee8c8", "#fdbb84", "#e34a33", "#b30000")


@dataclass
class Loss:
    """One overview cell."""

    value: float | None  # in [0, 1]; None: not known
    measure: str  # what the value is, in words
    text: str  # as printed
    bound: bool = False  # safe mode: the value is an upper bound ("< x %")


def variable_anchor(names: Sequence[str], name: str) -> str:
    return f"var-{list(names).index(name)}"


def losses(report: Any, policy: Policy) -> tuple[list[str], dict[str, str], dict[str, list[Loss]]]:
    """Variables in spec order, their kinds, and per variable the loss in every scenario."""
    def compute():
        kinds = variable_kinds(report)
        names = list(kinds)
        table = {name: [_loss(report, s, name, kinds[name], policy) for s in report.scenarios] for name in names}
        return names, kinds, table

    return policy.cached("overview_losses", compute)


def _loss(report: Any, s: Any, name: str, kind: str, policy: Policy) -> Loss:
    n = int(report.original.get("n_records", 0)) or 1
    agg = (s.aggregates or {}).get("variables", {}).get(name)
    if agg is not None and (agg.get("removed") or _prot_missing(agg)):
        return Loss(1.0, "the variable was removed", "removed")
    if s.paired:
        changed = _by(s, "records_changed", name)
        suppressed = _by(s, "suppressions", name) or 0.0
        if kind == "categorical" and changed is not None:
            return _share(changed, n, "share of records whose value changed (records_changed / n)", policy)
        if kind == "categorical" and policy.safe and is_withheld(s.measures.get("records_changed"), "by_variable", name):
            # withheld, maybe beside a small count (secondary suppression): no bound, and no other distance
            # standing in for the share of records changed
            return Loss(None, "share of records whose value changed: withheld in safe mode", "withheld")
        il1s = _by(s, "il1s", name)
        if kind == "continuous" and policy.safe and is_withheld(s.measures.get("suppressions"), "by_variable", name):
            # values were suppressed, their count withheld: not "unchanged", and no share standing in for it
            return Loss(None, "share of values suppressed: withheld in safe mode (changes withheld)", "withheld")
        if kind == "continuous" and il1s is not None:
            cell = Loss(min(il1s, 1.0), f"IL1s of the variable ({number(il1s)}, capped at 1)", percent(min(il1s, 1.0)))
            if suppressed / n > cell.value:
                cell = _share(suppressed, n, "share of values suppressed", policy)
            return cell
    if policy.safe and kind == "continuous" and _statistics_withheld(s, name):
        # few records with a value, or few away from the most common value: a distribution distance (from the
        # plot data, or ks) would count them
        return Loss(None, "distribution distance: withheld in safe mode (the variable's statistics are)", "withheld")
    return _safe_distance(_distribution_loss(s, name, kind, agg), n, policy)


def _statistics_withheld(s: Any, name: str) -> bool:
    """Whether the scenario's safe statistics withhold the variable in a file (their ``withheld`` names it)."""
    stats = getattr(s, "statistics", None) or {}
    return any(name in ((stats.get(side) or {}).get("withheld") or {}) for side in ("orig", "prot"))


def _safe_distance(cell: Loss, n: int, policy: Policy) -> Loss:
    """Safe mode: a distance that moves fewer than ``min_cell`` records' worth of share shows as a bound."""
    if not policy.safe or cell.value is None or cell.value == 0 or cell.value * n >= policy.min_cell:
        return cell
    bound = policy.min_cell / n
    return Loss(bound, f"{cell.measure.split(':')[0]}: below {policy.min_cell} records' worth", below(bound),
                bound=True)


def _prot_missing(agg: dict[str, Any]) -> bool:
    if agg.get("kind") == "continuous":
        return agg["stats"]["prot"] is None
    return agg.get("prot") is None


def _share(count: float, n: int, what: str, policy: Policy) -> Loss:
    c = int(round(count))
    if policy.count_ok(c):
        return Loss(c / n, f"{what}: {policy.count_text(c)} of {n:,}", percent(c / n))
    bound = policy.min_cell / n
    return Loss(bound, f"{what}: fewer than {policy.min_cell} records", below(bound), bound=True)


def _distribution_loss(s: Any, name: str, kind: str, agg: dict[str, Any] | None) -> Loss:
    if kind == "continuous":
        ks = _by(s, "ks", name)
        if ks is not None:
            return Loss(ks, f"Kolmogorov–Smirnov statistic (ks): {number(ks)}", percent(ks))
        if agg is not None and agg["hist"]["prot"] is not None:
            d = _binned_ks(agg)
            return Loss(d, f"Kolmogorov–Smirnov statistic from 400-bin histograms: {number(d)}", percent(d))
        return Loss(None, "not known", "–")
    if agg is not None and agg.get("prot") is not None:
        tv = total_variation(np.asarray(agg["orig"]), np.asarray(agg["prot"]))
        return Loss(tv, f"total variation distance of the one-way tables: {number(tv)}", percent(tv))
    return Loss(None, "not known", "–")


def _binned_ks(agg: dict[str, Any]) -> float:
    """KS distance of the binned distributions (values below/above the grid in the end bins)."""
    sides = []
    for key in ("orig", "prot"):
        h = agg["hist"][key]
        counts = np.concatenate([[h["below"]], np.asarray(h["counts"]), [h["above"]]]).astype(float)
        sides.append(np.cumsum(counts) / max(counts.sum(), 1.0))
    return float(np.max(np.abs(sides[0] - sides[1])))


def _by(s: Any, mid: str, name: str) -> float | None:
    r = s.measures.get(mid)
    if r is None or not r.by_variable:
        return None
    v = r.by_variable.get(name)
    return None if v is None or not math.isfinite(v) else float(v)


def colour_of(value: float | None) -> str:
    """The cell colour: a square-root ramp, so that small losses are visible."""
    if value is None:
        return "#f0f0f0"
    return svg.ramp(OVERVIEW_RAMP, math.sqrt(min(max(value, 0.0), 1.0)))


def most_changed(report: Any, policy: Policy, k: int) -> list[str]:
    """The ``k`` variables with the largest loss in any scenario (only those with a loss)."""
    names, _, table = losses(report, policy)
    peak = {n: max([c.value for c in table[n] if c.value is not None] + [0.0]) for n in names}
    ranked = sorted((n for n in names if peak[n] > 0), key=lambda n: -peak[n])
    return ranked[:k]


def overview_section(report: Any, policy: Policy) -> Markup | None:
    """The sortable heat table (rows variables, columns scenarios) with its key."""
    names, kinds, table = losses(report, policy)
    if not names:
        return None
    head = join(Markup('<th scope="col" class="scen" data-sort="num"><span class="name">{}</span>{}</th>').format(
        s.name, svg.marker_svg(i)) for i, s in enumerate(report.scenarios))
    rows = []
    for k, name in enumerate(names):
        cells = table[name]
        peak = max([c.value for c in cells if c.value is not None] + [0.0])
        peak_text = next((c.text for c in cells if c.value == peak and c.bound), percent(peak))
        if any(c.value is None and c.text == "withheld" for c in cells):  # the largest may be the withheld one
            peak_text = "withheld" if peak == 0 else f"≥ {percent(peak)}"
        tds = join(Markup('<td class="num" data-v="{}" style="background:{};color:{}" title="{}">{}</td>').format(
            "" if c.value is None else f"{c.value:.6g}", colour_of(c.value), svg.ink_on(colour_of(c.value)),
            f"{name} in {s.name}: {c.measure}", c.text) for c, s in zip(cells, report.scenarios))
        rows.append(Markup('<tr data-order="{}"><th scope="row"><a href="#{}">{}</a> <small>{}</small></th>'
                           '<td class="num peak" data-v="{}">{}</td>{}</tr>').format(
            k, variable_anchor(names, name), name, "cont." if kinds[name] == "continuous" else "cat.",
            f"{peak:.6g}", peak_text, tds))
    untouched = [n for n in names if all(c.value == 0.0 or (c.value is None and c.text != "withheld")
                                         for c in table[n])]
    key = join(Markup('<span class="c" style="background:{};color:{}">{}</span>').format(
        colour_of(v), svg.ink_on(colour_of(v)), percent(v)) for v in (0.0, 0.01, 0.05, 0.2, 0.5, 1.0))
    note = Markup(
        '<p class="note">Each cell is the variable\'s loss in one scenario, from 0 % (unchanged) to 100 %: for '
        "paired files the share of records whose value changed (categorical variables) or IL1s, capped at 1 "
        "(continuous variables; about 80 % means as far apart as two random records); for files that are not "
        "paired, the distance between the distributions (total variation distance, or the Kolmogorov–Smirnov "
        "statistic). Hover over a cell for the measure behind it; click a column heading to sort. "
        "Colour key: {}</p>").format(key)
    summary = Markup("")
    if untouched:
        summary = Markup('<p class="note">{} of {} variables are unchanged in every scenario.</p>').format(
            len(untouched), len(names))
    table_html = Markup(
        '<div class="scroll" tabindex="0"><table class="overview sortable{}"><thead><tr><th scope="col" data-sort="order">'
        'variable</th><th scope="col" data-sort="num">largest</th>{}</tr></thead><tbody>{}</tbody></table></div>'
    ).format(" rotate" if len(report.scenarios) > 4 else "", head, join(rows))
    return note + summary + table_html
