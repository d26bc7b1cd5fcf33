"""The summary: a table of scenarios × headline measures and a plain-language reading of it.

Both are generated from the registry (which measures are headline ones, their
direction and range) and the numbers; nothing here names a measure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

from markupsafe import Markup

from ..registry import FAMILIES, MeasureInfo, get
from .parts import join, name_list, positions, value_cell


@dataclass
class Row:
    """One measure across the scenarios."""

    info: MeasureInfo
    values: list[float | None]
    reasons: list[str | None]

    @property
    def positions(self) -> list[float | None]:
        return positions(self.values, self.info.better)


def measure_rows(report: Any, ids: Sequence[str], reason=lambda r: r) -> list[Row]:
    """The values of ``ids`` in every scenario (None where not computed)."""
    rows = []
    for mid in ids:
        values, reasons = [], []
        for s in report.scenarios:
            result = s.measures.get(mid)
            values.append(None if result is None else result.value)
            raw = s.not_computed.get(mid)
            reasons.append(None if raw is None else reason(raw))
        rows.append(Row(get(mid), values, reasons))
    return rows


def headline_ids(report: Any) -> list[str]:
    """The headline measures that were run (all measures run when none is marked headline).

    A headline measure computed in no scenario (e.g. the analyses measures without an ``analyses:`` section)
    is left out of the summary; its reason is in its family's section.
    """
    infos = [get(m) for m in report.measure_ids]
    chosen = [m.id for m in infos if m.headline] or [m.id for m in infos]
    computed = [m for m in chosen if any(m in s.measures for s in report.scenarios)]
    chosen = computed or chosen
    families = list(FAMILIES)
    return sorted(chosen, key=lambda m: (families.index(get(m).family), get(m).order))


def summary_table(report: Any, rows: Sequence[Row], link: dict[str, str]) -> Markup:
    """Rows = headline measures, columns = scenarios; each value coloured against the other scenarios."""
    head = join(Markup('<th class="scen"><span class="swatch" style="background:{}"></span>{}</th>').format(c, s.name)
                for s, c in zip(report.scenarios, _colours(report)))
    body = []
    for row in rows:
        cells = join(value_cell(v, p, r) for v, p, r in zip(row.values, row.positions, row.reasons))
        body.append(Markup(
            '<tr><th class="measure"><a href="#{}">{}</a><div class="desc">{}</div></th>'
            '<td class="dircol">{}</td>{}</tr>'
        ).format(link.get(row.info.family, ""), row.info.id, row.info.description, _arrow(row.info), cells))
    return Markup(
        '<table class="summary"><thead><tr><th>measure</th><th>better · range</th>{}</tr></thead>'
        "<tbody>{}</tbody></table>"
    ).format(head, join(body))


def _arrow(info: MeasureInfo) -> Markup:
    text = "↓ lower" if info.better == "lower" else "↑ higher"
    return Markup('<span class="dir">{}</span> <span class="range">{}</span>').format(text, info.range_text)


def _colours(report: Any) -> list[str]:
    from .svg import colour

    return [colour(i) for i in range(len(report.scenarios))]


# ---------------------------------------------------------------------------
# the reading
# ---------------------------------------------------------------------------
def scenario_scores(rows: Sequence[Row], n_scenarios: int) -> tuple[list[float | None], list[int], int]:
    """Mean position (0 best … 1 worst) of each scenario, the number of rows it is best on, rows used.

    Only rows computed for every scenario and not all equal count.

    >>> from infoloss.registry import get
    >>> rows = [Row(get("il1s"), [0.1, 0.3], [None, None]), Row(get("gdu"), [0.9, 0.8], [None, None])]
    >>> scenario_scores(rows, 2)
    ([0.0, 1.0], [2, 0], 2)
    """
    sums = [0.0] * n_scenarios
    best = [0] * n_scenarios
    used = 0
    for row in rows:
        pos = row.positions
        if any(p is None for p in pos):
            continue
        used += 1
        for i, p in enumerate(pos):
            sums[i] += p
            best[i] += p == 0
    scores = [s / used if used else None for s in sums]
    return scores, best, used


def variable_losses(report: Any) -> dict[str, float]:
    """Each variable's mean relative loss (0 least … 1 most) over the per-variable results.

    Every measure with per-variable values (in every family) contributes, in
    every scenario, the variables' places between the least and the most
    affected variable of that measure.
    """
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    for s in report.scenarios:
        for mid, result in s.measures.items():
            values = result.by_variable or {}
            names = [k for k, v in values.items() if v is not None and math.isfinite(v)]
            if len(names) < 2:
                continue
            pos = positions([values[k] for k in names], get(mid).better)
            for name, p in zip(names, pos):
                if p is None:
                    continue
                sums[name] = sums.get(name, 0.0) + p
                counts[name] = counts.get(name, 0) + 1
    return {k: sums[k] / counts[k] for k in sums}


def reading(report: Any, rows: Sequence[Row]) -> Markup:
    """One paragraph, in plain language, on which scenario loses least and which variables lose most."""
    names = [s.name for s in report.scenarios]
    parts: list[Markup] = []
    scores, best, used = scenario_scores(rows, len(names))
    if len(names) == 1:
        parts.append(Markup("One scenario, <b>{}</b>, is compared with the original.").format(names[0]))
    elif used == 0:
        parts.append(Markup("The headline measures do not separate the {} scenarios (equal or not computed).")
                     .format(len(names)))
    else:
        parts.append(_winner_text(rows, names, scores, best, used))
    losses = variable_losses(report)
    if len(losses) >= 2:
        ranked = sorted(losses, key=lambda k: -losses[k])
        top = ranked[: min(3, len(ranked) - 1)]
        parts.append(Markup(
            " The variables that lose most, over all per-variable results, are <b>{}</b>; {} lose{} least."
        ).format(name_list(top), name_list(ranked[-2:][::-1] if len(ranked) > 4 else ranked[-1:]),
                 "" if len(ranked) > 4 else "s"))
    not_computed = sorted({m for s in report.scenarios for m in s.not_computed})
    if not_computed:
        parts.append(Markup(" Not computed: {} (reasons in the family sections).").format(", ".join(not_computed)))
    return Markup('<p class="reading">{}</p>').format(join(parts))


def _winner_text(rows: Sequence[Row], names: list[str], scores: list, best: list[int], used: int) -> Markup:
    order = sorted(range(len(names)), key=lambda i: scores[i])
    win, lose = order[0], order[-1]
    text = Markup(
        "Of the {} scenarios, <b>{}</b> loses least information: it is best on {} of the {} headline measures "
        "that separate them (mean place {:.2f}, where 0 is the best and 1 the worst scenario of each measure)."
    ).format(len(names), names[win], best[win], used, scores[win])
    if ties := [names[i] for i in order[1:] if abs(scores[i] - scores[win]) < 1e-9]:
        text += Markup(" It ties with {}.").format(name_list(ties))
    exceptions = [(r.info.id, names[r.positions.index(0.0)]) for r in rows
                  if None not in r.positions and r.positions[win] != 0.0]
    if exceptions:
        shown = [f"{mid} ({who})" for mid, who in exceptions[:4]]
        more = f" and {len(exceptions) - 4} more" if len(exceptions) > 4 else ""
        text += Markup(" Other scenarios are better on {}{}.").format(", ".join(shown), more)
    if len(names) > 2 or lose != win:
        text += Markup(" <b>{}</b> loses most (mean place {:.2f}).").format(names[lose], scores[lose])
    return text
