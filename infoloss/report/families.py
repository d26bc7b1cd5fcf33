"""One section per measure family, generated from the registry.

Each section has the family's measures as a table (value per scenario,
coloured against the other scenarios), a bar chart for every measure with
per-variable values, a heat map for every measure with per-pair values, the
measures not computed with their reasons and, in the moments family, the
descriptive statistics (means with confidence intervals, correlations).
A new measure shows up here without any change to the report.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

from markupsafe import Markup

from ..registry import FAMILIES, get
from . import svg
from .parts import fmt, join, value_cell
from .summary import Row, measure_rows

Reason = Callable[[str], str]


def family_sections(report: Any, reason: Reason, anchors: dict[str, str], policy: Any = None
                    ) -> list[tuple[str, str, Markup]]:
    """``(anchor, title, html)`` for every family with measures run (or, for moments, statistics)."""
    out = []
    for family, title in FAMILIES.items():
        ids = [m for m in report.measure_ids if get(m).family == family]
        has_stats = family == "moments" and any(s.statistics for s in report.scenarios)
        if not ids and not has_stats:
            continue
        rows = measure_rows(report, ids, reason)
        body = [measures_table(report, rows)] if rows else []
        body += [not_computed_list(report, rows)]
        if has_stats:  # the pictures practitioners look at first, before the per-measure charts
            body.append(statistics_charts(report))
        if family == "mining":
            from .mining import mining_charts

            body.append(mining_charts(report))
        if family == "risk":  # risk per file, k-anonymity, SUDA and l-diversity tables
            from .plotdata import Policy
            from .risk import risk_details

            body.append(risk_details(report, policy or Policy()))
        body += [variable_charts(report, rows), pair_charts(report, rows)]
        out.append((anchors[family], title, join(body)))
    return out


def measures_table(report: Any, rows: Sequence[Row]) -> Markup:
    """All measures of a family: id, what it measures, direction and range, value per scenario."""
    head = join(Markup('<th class="scen"><span class="swatch" style="background:{}"></span>{}</th>')
                .format(svg.colour(i), s.name) for i, s in enumerate(report.scenarios))
    body = join(
        Markup('<tr><th class="measure">{}<div class="desc">{}</div></th><td class="dircol">{}</td>{}</tr>').format(
            r.info.id, r.info.description,
            Markup('<span class="dir">{}</span> <span class="range">{}</span>').format(
                "↓ lower" if r.info.better == "lower" else "↑ higher", r.info.range_text),
            join(value_cell(v, p, why) for v, p, why in zip(r.values, r.positions, r.reasons)))
        for r in rows)
    return Markup('<table class="measures"><thead><tr><th>measure</th><th>better · range</th>{}</tr></thead>'
                  "<tbody>{}</tbody></table>").format(head, body)


def not_computed_list(report: Any, rows: Sequence[Row]) -> Markup:
    """The measures of the family that were not computed, with their reasons."""
    items = [(r.info.id, s.name, why) for r in rows for s, why in zip(report.scenarios, r.reasons) if why]
    if not items:
        return Markup("")
    lis = join(Markup("<li><b>{}</b> in {}: {}</li>").format(mid, scen, why) for mid, scen, why in items)
    return Markup('<div class="notcomputed"><h4>Not computed</h4><ul>{}</ul></div>').format(lis)


# ---------------------------------------------------------------------------
# per-variable and per-pair charts
# ---------------------------------------------------------------------------
def variable_charts(report: Any, rows: Sequence[Row]) -> Markup:
    """A grouped bar chart (variables × scenarios) for each measure with per-variable values."""
    charts = []
    for row in rows:
        per = [_by(s, row.info.id, "by_variable") for s in report.scenarios]
        names = _ordered(report, {k for p in per if p for k in p})
        if not names:
            continue
        series = [(s.name, svg.colour(i), [None if p is None else p.get(n) for n in names])
                  for i, (s, p) in enumerate(zip(report.scenarios, per))]
        lo, hi = row.info.range
        chart = svg.grouped_bars(names, series, label=f"{row.info.id} per variable", domain=(lo, hi), width=470,
                                 value_fmt=bar_fmt)
        charts.append(_figure(chart, f"{row.info.id} per variable", _better_note(row)))
    return Markup('<div class="charts">{}</div>').format(join(charts)) if charts else Markup("")


def pair_charts(report: Any, rows: Sequence[Row]) -> Markup:
    """A lower-triangle heat map per scenario for each measure with per-pair values."""
    blocks = []
    for row in rows:
        per = [_by(s, row.info.id, "by_pair") for s in report.scenarios]
        keys = {k for p in per if p for k in p}
        if not keys:
            continue
        names = _ordered(report, {v for k in keys for v in k.split("|", 1)})
        values = [v for p in per if p for v in p.values() if v is not None and math.isfinite(v)]
        lo, hi = row.info.range
        lo = min(values + ([] if lo is None else [lo]))
        hi = max(values + [lo + 1e-12]) if hi is None else max([hi] + values)
        charts = []
        for s, p in zip(report.scenarios, per):
            if not p:
                continue
            cells = _triangle(names, p)
            chart = svg.heatmap(names, cells, label=f"{row.info.id} per pair, {s.name}", title=s.name, lo=lo, hi=hi,
                                reverse=row.info.better == "higher", value_fmt=cell_fmt,
                                legend_text=_legend(row, lo, hi))
            charts.append(Markup('<figure class="chart">{}</figure>').format(chart))
        blocks.append(Markup('<div class="pairblock"><h4>{} per pair of variables</h4><p class="note">{}</p>'
                             '<div class="charts">{}</div></div>').format(row.info.id, _better_note(row), join(charts)))
    return join(blocks)


def _triangle(names: list[str], values: dict[str, float]) -> dict[tuple[int, int], float]:
    index = {n: i for i, n in enumerate(names)}
    cells = {}
    for key, v in values.items():
        a, b = key.split("|", 1)
        i, j = sorted((index[a], index[b]))
        cells[(j, i)] = v if v is not None else math.nan
    return cells


def _legend(row: Row, lo: float, hi: float) -> tuple[str, str]:
    if row.info.better == "higher":
        return f"{_short_fmt(hi)} (better)", f"{_short_fmt(lo)}"
    return f"{_short_fmt(lo)} (better)", f"{_short_fmt(hi)}"


def bar_fmt(v: float) -> str:
    """A bar's label: :func:`fmt`, or 3 significant digits in exponent form from a million on.

    >>> bar_fmt(210565719098531.2), bar_fmt(11524070.4), bar_fmt(0.2722)
    ('2.11e+14', '1.15e+07', '0.2722')
    """
    return f"{v:.3g}" if abs(v) >= 1e6 else fmt(v)


def cell_fmt(v: float) -> str:
    """A number short enough for a heat-map cell.

    >>> cell_fmt(0.0234), cell_fmt(-0.5), cell_fmt(431.2), cell_fmt(2466.7), cell_fmt(-0.001)
    ('.02', '-.50', '431', '2.5k', '0')
    """
    if abs(v) < 0.005:
        return "0"
    if abs(v) < 1:
        return f"{v:.2f}".replace("0.", ".", 1)
    if abs(v) < 1000:
        return f"{v:.3g}"
    return f"{v / 1000:.2g}k" if abs(v) < 1e6 else f"{v / 1e6:.2g}M"


def _short_fmt(v: float) -> str:
    return f"{v:.2g}" if abs(v) < 100 else f"{v:,.0f}"


def _better_note(row: Row) -> str:
    return f"{row.info.description} ({row.info.better} is better, range {row.info.range_text})."


def _by(scenario: Any, mid: str, attr: str) -> dict[str, float] | None:
    result = scenario.measures.get(mid)
    return None if result is None else getattr(result, attr)


def _ordered(report: Any, names: set[str]) -> list[str]:
    """Names in spec order (unknown names last, alphabetically)."""
    spec_order = list(report.original.get("variables", {}))
    known = [n for n in spec_order if n in names]
    return known + sorted(names - set(known))


def _figure(chart: Markup, caption: str, note: str = "") -> Markup:
    return Markup('<figure class="chart"><figcaption><b>{}</b> {}</figcaption>{}</figure>').format(caption, note, chart)


# ---------------------------------------------------------------------------
# descriptive statistics (ScenarioResult.statistics)
# ---------------------------------------------------------------------------
def statistics_charts(report: Any) -> Markup:
    """Means with confidence intervals before/after; correlation matrices before/after and their difference."""
    stats = [(i, s) for i, s in enumerate(report.scenarios) if s.statistics]
    first = stats[0][1].statistics
    weighted = " (weighted estimates)" if first.get("weighted") else ""
    names = list(first["variables"])
    parts = [_means_chart(names, first, stats)]
    if first["orig"].get("corr") is not None and len(names) >= 2:
        parts.append(_correlations(names, first, stats))
    return Markup('<h3>Means and correlations of the continuous variables{}</h3>{}').format(weighted, join(parts))


def _means_chart(names: list[str], first: dict, stats: list) -> Markup:
    conf = first.get("confidence", 0.95)
    rows = []
    for v in names:
        m, sd = first["orig"]["mean"].get(v), first["orig"]["sd"].get(v)
        if m is None or not sd:
            continue
        o_ci = first["orig"]["mean_ci"].get(v) or [m, m]
        orig = ((o_ci[0] - m) / sd, 0.0, (o_ci[1] - m) / sd)
        sc = []
        for i, s in stats:
            p = s.statistics["prot"]
            pm, pci = p["mean"].get(v), p["mean_ci"].get(v)
            t = None if pm is None or pci is None else ((pci[0] - m) / sd, (pm - m) / sd, (pci[1] - m) / sd)
            sc.append((s.name, svg.colour(i), t))
        rows.append((v, orig, sc))
    if not rows:
        return Markup("")
    chart = svg.ci_chart(rows, label="means with confidence intervals", width=640,
                         xlabel="difference from the original mean, in original standard deviations")
    legend = join(Markup('<span class="key"><span class="swatch" style="background:{}"></span>{}</span>')
                  .format(svg.colour(i), s.name) for i, s in stats)
    note = (f"Grey band: the original mean's {conf:.0%} confidence interval; dots and lines: each scenario's mean "
            f"and its {conf:.0%} interval. A dot outside the grey band is a mean the protected file does not preserve.")
    return Markup('<figure class="chart wide"><div class="legend">{}</div>{}<figcaption><b>Means before/after.</b> '
                  "{}</figcaption></figure>").format(legend, chart, note)


def _correlations(names: list[str], first: dict, stats: list) -> Markup:
    p = len(names)
    orig = first["orig"]["corr"]
    full = {(i, j): orig[i][j] for i in range(p) for j in range(p) if j <= i}
    charts = [svg.heatmap(names, full, label="correlations, original", title="original", lo=-1, hi=1,
                          diverging=True, value_fmt=cell_fmt, legend_text=("−1", "+1"))]
    for i, s in stats:
        prot = s.statistics["prot"].get("corr")
        if prot is None:
            continue
        after = {(a, b): prot[a][b] for a in range(p) for b in range(p) if b <= a}
        charts.append(svg.heatmap(names, after, label=f"correlations, {s.name}", title=s.name, lo=-1, hi=1,
                                  diverging=True, value_fmt=cell_fmt, legend_text=("−1", "+1")))
    diffs = []
    for i, s in stats:
        prot = s.statistics["prot"].get("corr")
        if prot is None:
            continue
        cells = {(a, b): _diff(prot[a][b], orig[a][b]) for a in range(p) for b in range(a)}
        diffs.append((s.name, cells))
    bound = max([abs(v) for _, c in diffs for v in c.values() if math.isfinite(v)] + [0.05])
    for name, cells in diffs:
        charts.append(svg.heatmap(names, cells, label=f"correlation difference, {name}", title=f"{name} − original",
                                  lo=-bound, hi=bound, diverging=True, value_fmt=cell_fmt,
                                  legend_text=(f"{-bound:+.2f}", f"{bound:+.2f}")))
    figs = join(Markup('<figure class="chart">{}</figure>').format(c) for c in charts)
    return Markup('<h4>Correlation matrices before/after, and their difference</h4><p class="note">Blue: negative, '
                  "red: positive. The difference maps (scenario − original) use their own scale, symmetric around 0."
                  '</p><div class="charts">{}</div>').format(figs)


def _diff(a: float | None, b: float | None) -> float:
    if a is None or b is None:
        return math.nan
    return float(a) - float(b)
