"""One section per measure family, generated from the registry.

Each section has the family's measures as a table (value per scenario,
coloured against the other scenarios by the distance from the ideal), the
measures not computed with their reasons, in the moments family the
descriptive statistics (means with confidence intervals, correlations), a
chart for every measure with per-variable values (bars for one scenario, a
dot plot for several; at most :data:`MAX_ROWS` variables, the ones with the
largest values), a heat map per scenario for every measure with per-pair
values (at most :data:`MAX_HEAT` variables), and the extra sections other
modules hook into the family (:mod:`infoloss.report.sections`).  A chart
whose values are all at the ideal is replaced by one line.  Every chart has
its numbers in a table under "data".  A new measure shows up here without
any change to the report.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

from markupsafe import Markup

from ..registry import FAMILIES, get
from . import svg
from .glossary import is_count
from .numbers import number, short
from .parts import join, slug
from .plotdata import Policy
from .summary import Row, measure_rows

Reason = Callable[[str], str]

#: per-variable charts show at most this many variables (those with the largest values)
MAX_ROWS = 25
#: per-pair heat maps show at most this many variables
MAX_HEAT = 20
#: correlation charts show at most this many variables
MAX_CORR = 20
#: the means chart shows at most this many variables
MAX_MEANS = 15


def family_render(family: str) -> Callable[[Any, Policy], Markup | None]:
    """The render function of one family's section (see :mod:`infoloss.report.sections`)."""

    def render(report: Any, policy: Policy) -> Markup | None:
        return family_body(report, family, policy)

    return render


def family_body(report: Any, family: str, policy: Policy) -> Markup | None:
    """The family's tables and charts, or None when none of its measures was run (and nothing hooks in)."""
    from .verdict import measures_table

    ids = [m for m in report.measure_ids if get(m).family == family]
    has_stats = family == "moments" and any(s.statistics for s in report.scenarios)
    extras = policy.cache.get("family_extras", {}).get(family, [])
    if not ids and not has_stats and not extras:
        return None
    reason = policy.cache.get("reason", lambda r: r)
    rows = measure_rows(report, ids, reason)
    computed = [r for r in rows if any(v is not None for v in r.values) or r.withheld]
    if rows and not computed and not has_stats and not extras:  # nothing to tabulate: the reasons only
        return Markup('<p class="note">None of the {} measures of this family could be computed for any '
                      'scenario.</p>{}').format(len(rows), not_computed_list(report, rows, reason))
    body = [measures_table(report, computed, policy)] if computed else []  # the others: in the reasons below
    body.append(not_computed_list(report, rows, reason))
    if has_stats:  # the pictures practitioners look at first, before the per-measure charts
        body.append(statistics_charts(report, rounded=policy.safe))
    body += [variable_charts(report, rows, policy), pair_charts(report, rows)]
    body += extras
    return join(body)


def family_sections(report: Any, reason: Reason, anchors: dict[str, str], policy: Any = None
                    ) -> list[tuple[str, str, Markup]]:
    """``(anchor, title, html)`` for every family with measures run (kept for callers of the old layout)."""
    policy = policy or Policy()
    policy.cache.setdefault("reason", reason)
    out = []
    for family, title in FAMILIES.items():
        body = family_body(report, family, policy)
        if body:
            out.append((anchors.get(family, f"family-{family}"), title, body))
    return out


def not_computed_list(report: Any, rows: Sequence[Row], reason: Reason = lambda r: r) -> Markup:
    """The measures of the family that were not computed, and the variables (or pairs) a computed measure left
    out (its ``details["not_computed"]``), one line per reason (with its measures and where).

    A measure computed without a variable averages the others: GDU of a file
    whose recoding of a variable cannot be placed reads as if that variable
    had lost nothing, so the page says which it left out and why.
    """
    by_reason: dict[str, dict[str, list[str]]] = {}
    for r in rows:
        for s, why in zip(report.scenarios, r.reasons):
            if why:
                by_reason.setdefault(why, {}).setdefault(r.info.id, []).append(s.name)
    left: dict[str, dict[str, None]] = {}  # reason -> the variables or pairs left out for it (in order)
    left_where: dict[str, dict[str, list[str]]] = {}  # reason -> measure -> scenarios
    for r in rows:
        for s in report.scenarios:
            result = s.measures.get(r.info.id)
            for name, raw in _left_out((getattr(result, "details", None) or {}).get("not_computed")):
                why = reason(raw)
                left.setdefault(why, {})[name] = None
                places = left_where.setdefault(why, {}).setdefault(r.info.id, [])
                if s.name not in places:
                    places.append(s.name)
    for why, measures in left_where.items():
        by_reason[_left_out_text(list(left[why]), why)] = measures
    if not by_reason:
        return Markup("")
    every = len(report.scenarios)

    def where(scenarios: list[str]) -> str:
        if len(scenarios) == every:
            return "every scenario" if every > 1 else scenarios[0]
        return ", ".join(scenarios)

    lis = []
    for why, measures in by_reason.items():
        groups: dict[str, list[str]] = {}  # the same scenarios: one group of measures
        for mid, scenarios in measures.items():
            groups.setdefault(where(scenarios), []).append(mid)
        parts = Markup("; ").join(
            Markup("{} (in {})").format(Markup(", ").join(Markup("<b>{}</b>").format(m) for m in mids), place)
            for place, mids in groups.items())
        lis.append(Markup("<li>{}: {}</li>").format(_sentence_start(why), parts))
    title = "Not computed, or left out" if left else "Not computed"
    return Markup('<div class="notcomputed"><h3>{}</h3><ul>{}</ul></div>').format(title, join(lis))


def _left_out(skipped: Any) -> list[tuple[str, str]]:
    """``(variable or pair, reason)`` from a measure's ``details["not_computed"]`` (a dict of reasons, possibly
    nested, as GDU's ``{"univariate": {...}, "bivariate": {...}}``)."""
    if not isinstance(skipped, dict):
        return []
    out = []
    for name, why in skipped.items():
        if isinstance(why, dict):
            out += _left_out(why)
        elif isinstance(why, str) and why:
            out.append((str(name), why))
    return out


def _left_out_text(names: list[str], why: str, shown: int = 6) -> str:
    """"'a|b', 'c|b' and 3 more are left out: <why>"."""
    listed = ", ".join(repr(n) for n in names[:shown])
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return f"{listed}{more} {'is' if len(names) == 1 else 'are'} left out: {why}"


def _sentence_start(text: str) -> str:
    return text[:1].upper() + text[1:]


# ---------------------------------------------------------------------------
# per-variable charts
# ---------------------------------------------------------------------------
def variable_charts(report: Any, rows: Sequence[Row], policy: Policy | None = None) -> Markup:
    """A chart (variables × scenarios) for each measure with per-variable values."""
    policy = policy or Policy()
    charts, flat = [], []
    for row in rows:
        per = [_by(s, row.info.id, "by_variable") for s in report.scenarios]
        names = _ordered(report, {k for p in per if p for k in p})
        if not names:
            continue
        values = [[None if p is None else _finite(p.get(n)) for n in names] for p in per]
        # safe mode: entries the safe JSON withholds (null), per scenario and variable
        hidden = [[p is not None and n in p and p[n] is None for n in names] for p in per]
        fig = _variable_figure(report, row, names, values, policy, hidden)
        (charts if fig[0] else flat).append(fig[1])
    out = Markup("")
    if flat:
        out += Markup('<ul class="flat">{}</ul>').format(join(Markup("<li>{}</li>").format(f) for f in flat))
    if charts:
        out += Markup('<div class="charts">{}</div>').format(join(charts))
    return out


def _variable_figure(report: Any, row: Row, names: list[str], values: list[list[float | None]],
                     policy: Policy, hidden: list[list[bool]] | None = None) -> tuple[bool, Markup]:
    """(True, figure) or (False, one line) when every value is at the ideal.

    ``hidden[i][k]``: the value of variable ``k`` in scenario ``i`` is withheld (safe mode); it is not drawn,
    its bar reads "withheld" and its data-table cell "withheld".
    """
    info = row.info
    mid = info.id
    counts = is_count(info)
    hidden = hidden or [[False] * len(names) for _ in values]
    loss = [[None if v is None else info.loss(v) for v in col] for col in values]
    peak = {n: max([c[k] for c in loss if c[k] is not None] + [0.0]) for k, n in enumerate(names)}
    withheld = {n for k, n in enumerate(names) if any(h[k] for h in hidden)}
    changed = [n for n in names if peak[n] > 0 or n in withheld]
    if not changed:
        return False, Markup("<b>{}</b> per variable: {} for every variable in every scenario (no change).").format(
            mid, number(info.ideal))
    shown = changed if len(changed) <= MAX_ROWS else sorted(sorted(changed, key=lambda n: -peak[n])[:MAX_ROWS],
                                                             key=names.index)
    index = {n: k for k, n in enumerate(names)}
    hidden_small = counts and policy.safe

    def drawn(v: float | None) -> float | None:
        return None if v is None or (hidden_small and not policy.count_ok(int(round(v)))) else v

    series = [(s.name, svg.colour(i), [drawn(values[i][index[n]]) for n in shown])
              for i, s in enumerate(report.scenarios)]
    lo, hi = info.range
    data = [v for col in values for v in col if v is not None]
    outside = bool(data) and ((hi is not None and max(data) > hi) or (lo is not None and min(data) < lo))
    fmt = (lambda v: policy.count_text(v)) if counts else (lambda v: number(v))
    blank = None
    if withheld and len(report.scenarios) == 1:
        blank = ["withheld" if hidden[0][index[n]] else "not computed" for n in shown]
    chart = svg.grouped_bars(shown, series, label=f"{mid} per variable", domain=(lo, None if outside else hi),
                             width=560, value_fmt=fmt, indices=list(range(len(report.scenarios))), blank=blank)
    notes = []
    if outside:
        notes.append(f"The per-variable values are on their own scale (up to {number(max(data))}); the range "
                     f"{info.range_text} is that of the measure's overall value.")
    if len(shown) < len(changed):
        notes.append(f"The {len(shown)} of {len(changed)} changed variables farthest from {number(info.ideal)} "
                     "(the largest losses) are drawn; the data table has all.")
    unchanged = len(names) - len(changed)
    if unchanged:
        notes.append(f"{unchanged} variable{'s are' if unchanged > 1 else ' is'} at {number(info.ideal)} in every "
                     "scenario and not drawn.")
    if hidden_small and any(v is not None and 0 < v < policy.min_cell for col in values for v in col):
        notes.append(f"Counts below {policy.min_cell} are not drawn (safe mode).")
    if withheld:
        notes.append(f"“withheld”: null in the safe JSON (a count below {policy.min_cell}, or a value that would "
                     "give one back); not drawn.")
    caption = Markup("<b>{} per variable</b> ({}). {}").format(mid, _direction_words(info), " ".join(notes))
    table = data_table(["variable"] + [s.name for s in report.scenarios],
                       [[n] + [fmt(values[i][k]) if values[i][k] is not None else
                               "withheld" if hidden[i][k] else "–"
                               for i in range(len(report.scenarios))] for k, n in enumerate(names)])
    return True, Markup('<figure class="chart"><figcaption>{}</figcaption>{}{}</figure>').format(caption, chart, table)


def _direction_words(info: Any) -> str:
    if info.better == "target":
        return f"closest to {number(info.ideal)} is best"
    return f"{info.better} is better"


def data_table(head: Sequence[str], rows: Sequence[Sequence[str]], summary: str = "data") -> Markup:
    """A chart's numbers as a table, collapsed under ``summary`` (the chart's text alternative)."""
    th = join(Markup('<th scope="col">{}</th>').format(h) for h in head)
    body = join(Markup('<tr><th scope="row">{}</th>{}</tr>').format(
        r[0], join(Markup("<td>{}</td>").format(c) for c in r[1:])) for r in rows)
    return Markup('<details class="data"><summary>{}</summary><div class="scroll" tabindex="0"><table class="data">'
                  "<thead><tr>{}</tr></thead><tbody>{}</tbody></table></div></details>").format(summary, th, body)


# ---------------------------------------------------------------------------
# per-pair heat maps
# ---------------------------------------------------------------------------
def pair_charts(report: Any, rows: Sequence[Row]) -> Markup:
    """A lower-triangle heat map per scenario for each measure with per-pair values."""
    blocks = []
    for row in rows:
        per = [_by(s, row.info.id, "by_pair") for s in report.scenarios]
        keys = {k for p in per if p for k in p}
        if not keys:
            continue
        blocks.append(_pair_block(report, row, per, keys))
    return join(blocks)


def _pair_block(report: Any, row: Row, per: list[dict | None], keys: set[str]) -> Markup:
    info = row.info
    mid = info.id
    names = _ordered(report, {v for k in keys for v in k.split("|", 1)})
    values = [_finite(v) for p in per if p for v in p.values()]
    values = [v for v in values if v is not None]
    worst = {n: 0.0 for n in names}
    unknown = set()  # variables of a pair without a value (withheld, not computed): kept drawn
    for p in per:
        for key, v in (p or {}).items():
            for n in key.split("|", 1):
                if _finite(v) is not None:
                    worst[n] = max(worst[n], info.loss(v))
                else:
                    unknown.add(n)
    if values and all(info.loss(v) == 0 for v in values):
        return Markup('<p class="flat-line"><b>{}</b> per pair of variables: {} for every pair in every scenario '
                      "(no change).</p>").format(mid, number(info.ideal))
    shown = names
    note = ""
    changed = [n for n in names if worst[n] > 0 or n in unknown]
    if 2 <= len(changed) < len(names):  # rows and columns of nothing but the ideal value say nothing
        shown = changed
        note = (f" Drawn: the {len(changed)} of {len(names)} variables with a pair that changed; every pair of the "
                f"other {len(names) - len(changed)} is {number(info.ideal)} in every scenario.")
    if len(shown) > MAX_HEAT:
        shown = sorted(sorted(shown, key=lambda n: -worst[n])[:MAX_HEAT], key=names.index)
        note = (f" Drawn: the {MAX_HEAT} of {len(names)} variables whose pairs changed most (all pairs: the JSON "
                "result, or Report.to_frame()).")
    lo, hi = info.range
    lo = min(values + ([] if lo is None else [lo]))
    hi = max(values + [lo + 1e-12]) if hi is None else max([hi] + values)
    legend = _legend(info, lo, hi)
    charts = []
    for i, (s, p) in enumerate(zip(report.scenarios, per)):
        if not p:
            continue
        cells = _triangle(shown, p)
        withheld = set(_triangle(shown, {k: 0.0 for k, v in p.items() if v is None}))  # null in the safe JSON
        chart = svg.heatmap(shown, cells, label=f"{mid} per pair, {s.name}", title=s.name, lo=lo, hi=hi,
                            reverse=info.better == "higher", legend_text=legend, titles=len(report.scenarios) <= 3,
                            withheld=withheld)
        charts.append(Markup('<figure class="chart heat" tabindex="0">{}</figure>').format(chart))
    drawn = set(shown)
    pairs = sorted((k for k in keys if set(k.split("|", 1)) <= drawn),
                   key=lambda k: [names.index(v) for v in k.split("|", 1)])
    table = data_table(["pair"] + [s.name for s in report.scenarios],
                       [[k.replace("|", " × ")] + ["withheld" if p and k in p and p[k] is None else
                                                     number(_finite((p or {}).get(k))) for p in per] for k in pairs],
                       summary="data (the pairs drawn)" if len(drawn) < len(names) else "data")
    open_attr = " open" if len(report.scenarios) <= 3 else ""
    return Markup('<details class="pairblock"{}><summary><b>{}</b> per pair of variables ({} heat map{})</summary>'
                  '<p class="note">{} ({}). Darker: more loss.{}</p><div class="charts">{}</div>{}</details>').format(
        Markup(open_attr), mid, len(charts), "" if len(charts) == 1 else "s", info.description,
        _direction_words(info), note, join(charts), table)


def _triangle(names: list[str], values: dict[str, float]) -> dict[tuple[int, int], float]:
    index = {n: i for i, n in enumerate(names)}
    cells = {}
    for key, v in values.items():
        a, b = key.split("|", 1)
        if a not in index or b not in index:
            continue
        i, j = sorted((index[a], index[b]))
        cells[(j, i)] = v if v is not None else math.nan
    return cells


def _legend(info: Any, lo: float, hi: float) -> tuple[str, str]:
    """Labels of the colour key's ends (low value left, high value right), the better end marked."""
    a, b = short(lo), short(hi)
    if info.better == "higher":
        return a, f"{b} (better)"
    if info.better == "lower":
        return f"{a} (better)", b
    return a, b


def bar_fmt(v: float) -> str:
    """A bar's label: the page's number rule.

    >>> bar_fmt(210565719098531.2), bar_fmt(11524070.4), bar_fmt(0.2722)
    ('2.11 × 10¹⁴', '11,524,070', '0.272')
    """
    return number(v)


def cell_fmt(v: float) -> str:
    """A number short enough for a heat-map cell; small values are never rounded to 0.

    >>> cell_fmt(0.0234), cell_fmt(-0.5), cell_fmt(431.2), cell_fmt(2466.7), cell_fmt(-0.001), cell_fmt(1.2e-6)
    ('0.023', '−0.5', '430', '2.5k', '−0.001', '1.2e−6')
    """
    return short(v)


def _by(scenario: Any, mid: str, attr: str) -> dict[str, float] | None:
    result = scenario.measures.get(mid)
    return None if result is None else getattr(result, attr)


def _finite(v: Any) -> float | None:
    return None if v is None or not math.isfinite(v) else float(v)


def _ordered(report: Any, names: set[str]) -> list[str]:
    """Names in spec order (unknown names last, alphabetically)."""
    spec_order = list(report.original.get("variables", {}))
    known = [n for n in spec_order if n in names]
    return known + sorted(names - set(known))


# ---------------------------------------------------------------------------
# descriptive statistics (ScenarioResult.statistics)
# ---------------------------------------------------------------------------
def statistics_charts(report: Any, rounded: bool = False) -> Markup:
    """Means with confidence intervals before/after; correlation matrices before/after and their difference.

    ``rounded``: the statistics are rounded to 3 significant digits (safe mode), which the means chart says: a
    mean moved by less than that shows as 0."""
    stats = [(i, s) for i, s in enumerate(report.scenarios) if s.statistics]
    first = stats[0][1].statistics
    weighted = " (weighted estimates)" if first.get("weighted") else ""
    names = list(first["variables"])
    parts = [_means_chart(names, first, stats, rounded)]
    if first["orig"].get("corr") is not None and len(names) >= 2:
        parts.append(_correlations(names, first, stats))
    elif first.get("matrices_left_out"):
        parts.append(Markup('<p class="note">No correlations drawn: {}.</p>').format(first["matrices_left_out"]))
    return Markup('<h3>Means and correlations of the continuous variables{}</h3>{}').format(weighted, join(parts))


def _means_chart(names: list[str], first: dict, stats: list, rounded: bool = False) -> Markup:
    conf = first.get("confidence", 0.95)
    rows, table = [], []
    few = []  # safe mode: the original's statistics of these are withheld (null), with the reason
    for v in names:
        m, sd = first["orig"]["mean"].get(v), first["orig"]["sd"].get(v)
        if _withheld(first["orig"], v):
            why = _withheld(first["orig"], v)
            few.append(f"{v} ({why}{'' if 'scenario' in why else ' in the original'})")
            continue
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
        o_text = f"0 [{number(orig[0])}, {number(orig[2])}]" if first["orig"]["mean_ci"].get(v) else "0 (no interval)"
        table.append([v, o_text] + [_mean_text(t, s, v) for (_, s), (_, _, t) in zip(stats, sc)])
    few_note = ""
    if few:
        few_note = f" Not drawn (safe mode): {'; '.join(few)}."
    if not rows:
        return Markup('<p class="note">{}</p>').format(few_note.strip()) if few else Markup("")

    def shift(r: tuple) -> float:
        return max([abs(t[1]) for _, _, t in r[2] if t] + [0.0])

    k = len(stats)
    most = max(4, min(MAX_MEANS, 900 // (12 + (9 if k <= 4 else 6) * k)))  # the chart stays under ~900 px
    drawn = rows if len(rows) <= most else sorted(sorted(rows, key=lambda r: -shift(r))[:most],
                                                   key=lambda r: names.index(r[0]))
    chart = svg.ci_chart(drawn, label="means with confidence intervals", width=640, indices=[i for i, _ in stats],
                         xlabel="difference from the original mean, in original standard deviations")
    more = (f" The {len(drawn)} of {len(rows)} variables whose means moved most are drawn; the data table has all."
            if len(drawn) < len(rows) else "")
    note = (f"Grey band: the original mean's {conf:.0%} confidence interval; markers and lines: each scenario's "
            f"mean and its {conf:.0%} interval (in the original's standard deviations). A marker outside the grey "
            f"band is a mean the protected file does not preserve.{more}{few_note}")
    if rounded:
        note += (" Safe mode: the means and intervals are rounded to 3 significant digits, so a mean moved by less "
                 "than that shows as 0 (the xbar measures compare the unrounded means).")
    data = data_table(["variable", "original"] + [s.name for _, s in stats], table,
                      summary=f"data: means [{conf:.0%} interval] per file, in original standard deviations from the "
                              "original mean (original: the grey band)")
    return Markup('<figure class="chart wide"><figcaption><b>Means before/after.</b> {}</figcaption>{}{}</figure>'
                  ).format(note, chart, data)


def _correlations(names: list[str], first: dict, stats: list) -> Markup:
    # safe mode: matrices over too few complete cases are withheld whole, in a file or several
    thin = next(filter(None, [first["orig"].get("withheld_matrices")]
                       + [s.statistics["prot"].get("withheld_matrices") for _, s in stats]), None)
    if thin:
        return Markup('<p class="note">No correlations drawn (safe mode): {} in a file.</p>').format(thin)
    # safe mode: a variable whose statistics some file withholds has no correlation shown
    why = {v: _withheld(first["orig"], v) or next(filter(None, (_withheld(s.statistics["prot"], v) for _, s in stats)),
                                                   None) for v in names}
    few = [v for v in names if why[v]]
    if few:
        keep_idx = [k for k, v in enumerate(names) if v not in few]
        first = {**first, "orig": {**first["orig"], "corr": _sub(first["orig"]["corr"], keep_idx)}}
        stats = [(i, _Stats(s, keep_idx)) for i, s in stats]
        names = [names[k] for k in keep_idx]
        if len(names) < 2:
            return Markup('<p class="note">No correlations drawn (safe mode): {}.</p>').format(_reasons(few, why))
    p = len(names)
    orig = first["orig"]["corr"]
    diffs = []
    for i, s in stats:
        prot = s.statistics["prot"].get("corr")
        if prot is None:
            continue
        diffs.append((s.name, {(a, b): _diff(prot[a][b], orig[a][b]) for a in range(p) for b in range(a)}))
    keep = list(range(p))
    note = ""
    if p > MAX_CORR:
        change = [max([abs(c.get((max(a, b), min(a, b)), 0.0)) for _, c in diffs for b in range(p) if b != a
                       if math.isfinite(c.get((max(a, b), min(a, b)), 0.0))] + [0.0]) for a in range(p)]
        keep = sorted(sorted(range(p), key=lambda a: -change[a])[:MAX_CORR])
        note = f" Drawn: the {MAX_CORR} of {p} variables whose correlations changed most."
    pos = {a: k for k, a in enumerate(keep)}
    shown = [names[a] for a in keep]
    full = {(pos[i], pos[j]): orig[i][j] for i in keep for j in keep if j <= i}
    charts = [svg.heatmap(shown, full, label="correlations, original", title="original", lo=-1, hi=1, diverging=True,
                          legend_text=("−1", "+1"))]
    if len(stats) <= 3:
        for i, s in stats:
            prot = s.statistics["prot"].get("corr")
            if prot is not None:
                after = {(pos[a], pos[b]): prot[a][b] for a in keep for b in keep if b <= a}
                charts.append(svg.heatmap(shown, after, label=f"correlations, {s.name}", title=s.name, lo=-1, hi=1,
                                          diverging=True, legend_text=("−1", "+1")))
    bound = max([abs(v) for _, c in diffs for v in c.values() if math.isfinite(v)] + [0.05])
    for name, cells in diffs:
        shown_cells = {(pos[a], pos[b]): v for (a, b), v in cells.items() if a in pos and b in pos}
        charts.append(svg.heatmap(shown, shown_cells, label=f"correlation difference, {name}",
                                  title=f"{name} − original", lo=-bound, hi=bound, diverging=True,
                                  legend_text=(f"−{short(bound)}", f"+{short(bound)}"), titles=len(stats) <= 3))
    figs = join(Markup('<figure class="chart heat" tabindex="0">{}</figure>').format(c) for c in charts)
    pairs = [(a, b) for a in keep for b in keep if b < a]
    table = data_table(["pair", "original"] + [n for n, _ in diffs],
                       [[f"{names[a]} × {names[b]}", number(orig[a][b])] + [number(c[(a, b)]) for _, c in diffs]
                        for a, b in pairs], summary="data: original correlations and differences (scenario − original)")
    if few:
        note += f" Left out (safe mode): {_reasons(few, why)}."
    return Markup('<h4>Correlation matrices before/after, and their difference</h4><p class="note">Blue: negative, '
                  "red: positive. The difference maps (scenario − original) use their own scale, symmetric around 0."
                  "{}</p><div class=\"charts\">{}</div>{}").format(note, figs, table)


def _sub(matrix: Any, keep: list[int]) -> Any:
    if matrix is None:
        return None
    return [[matrix[a][b] for b in keep] for a in keep]


class _Stats:
    """A scenario whose protected correlation matrix keeps only the variables ``keep``."""

    def __init__(self, scenario: Any, keep: list[int]):
        self.name = scenario.name
        self.safe_json = getattr(scenario, "safe_json", None)
        prot = dict(scenario.statistics["prot"])
        prot["corr"] = _sub(prot.get("corr"), keep)
        self.statistics = {**scenario.statistics, "prot": prot}


def _mean_text(t: tuple | None, scenario: Any, v: str) -> str:
    if t is not None:
        return f"{number(t[1])} [{number(t[0])}, {number(t[2])}]"
    if _withheld(scenario.statistics["prot"], v):
        return _withheld(scenario.statistics["prot"], v)
    return "–"


def _withheld(side: dict | None, v: str) -> str | None:
    """Safe mode: why the safe JSON withholds the variable's statistics in this file (its ``withheld``), or None.

    >>> _withheld({"n": {"a": 40}, "mean": {"a": None}, "withheld": {"a": "fewer than 5 records with a value"}}, "a")
    'fewer than 5 records with a value'
    """
    return ((side or {}).get("withheld") or {}).get(v)


def _reasons(names: list[str], why: dict[str, str | None]) -> str:
    """``a, b (reason in a file); c (other reason in a file)``: the names grouped by their reason."""
    groups: dict[str, list[str]] = {}
    for v in names:
        groups.setdefault(str(why[v]), []).append(v)
    return "; ".join(f"{', '.join(vs)} ({reason}{'' if 'scenario' in reason else ' in a file'})"
                     for reason, vs in groups.items())


def _diff(a: float | None, b: float | None) -> float:
    if a is None or b is None:
        return math.nan
    return float(a) - float(b)


__all__ = ["family_render", "family_body", "family_sections", "variable_charts", "pair_charts", "data_table",
           "statistics_charts", "slug"]
