"""The plots per variable (the Practice Guide's set), drawn from the aggregates only.

Continuous variables: one histogram per scenario over the original's (grey
bars; the scenario as a coloured step line, densities as curves, all on a
common scale), the density curves of every file on one axis, and box plots
of every file.  Categorical variables: the multi-scenario mosaic (one
stacked column per file, as in the Practice Guide's Fig. 19).  Then
two-way mosaic plots of the key-variable pairs that changed most.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from markupsafe import Markup

from . import svg
from .numbers import percent
from .parts import join, slug
from .plotdata import (
    DISPLAY_BINS, Grouping, Policy, box_stats, category_grouping, common_categories, concentrated, density_curve,
    display_bins, outside_text, safe_two_way, share_text, thin_quartiles, too_few,
    total_variation, whisker_probs,
)

#: two-way mosaics are drawn for this many pairs
TOP_PAIRS = 3
#: the plots of this many most changed variables are open when the page opens (the others are collapsed)
OPEN_VARIABLES = 3


def variables_section(report: Any, policy: Policy) -> Markup | None:
    """Per variable: a collapsible block with its plots; unchanged variables get one line."""
    sections, _ = variable_sections(report, policy)
    if not sections:
        return None
    intro = Markup(
        '<p class="note">Drawn from aggregated data (bins, quantiles, tables), never from records. '
        "Continuous variables: in each histogram the grey area is the original and the coloured step line the "
        "scenario, on a common scale (heights: % of records per bar; merged bars are wider and keep the same "
        "scale); the dashed grey curve is the original's kernel density, the coloured curve the scenario's. "
        "Categorical variables: one stacked 100 % column for the original and one per scenario (white: missing); "
        "the number above a scenario's column is the share of records that would have to change category to give "
        "the original's table. The {} most changed variables are open; click a name to open the others.{}</p>"
    ).format(OPEN_VARIABLES, _unweighted_note(report))
    flat = [(a, n) for a, n, _, cls, _ in sections if cls == "unchanged"]
    index = Markup('<p class="varindex">Variables: {}</p>').format(
        Markup(" · ").join(Markup('<a href="#{}">{}</a>').format(a, n) for a, n, *_ in sections))
    unchanged = Markup("")
    if flat:
        unchanged = Markup('<p class="flat-line">No change in any scenario ({} variable{}): {}.</p>').format(
            len(flat), "" if len(flat) == 1 else "s",
            Markup(", ").join(Markup('<b id="{}">{}</b>').format(a, n) for a, n in flat))
    return intro + index + unchanged + join(body for *_, cls, body in sections if cls != "unchanged")


def _unweighted_note(report: Any) -> str:
    """On a weighted file: the plots and their numbers count records, unlike the weighted estimates elsewhere."""
    weighted = any((s.statistics or {}).get("weighted") for s in report.scenarios)
    return (" The plots and their numbers (records, means, quartiles) count records, unweighted; the weighted "
            "estimates are under Moments." if weighted else "")


def pairs_section(report: Any, policy: Policy) -> Markup | None:
    _, pairs = variable_sections(report, policy)
    return pairs or None


def variable_sections(report: Any, policy: Policy) -> tuple[list[tuple[str, str, str, str, Markup]], Markup]:
    """``(anchor, name, description, css class, html)`` per variable in spec order, and the two-way mosaics."""
    return policy.cached("variable_sections", lambda: _variable_sections(report, policy))


def _variable_sections(report: Any, policy: Policy) -> tuple[list[tuple[str, str, str, str, Markup]], Markup]:
    from .overview import losses, most_changed, variable_anchor

    aggs = common_categories([(i, s, s.aggregates) for i, s in enumerate(report.scenarios) if s.aggregates])
    if not aggs:
        return [], Markup("")
    first = aggs[0][2]
    names, _, table = losses(report, policy)
    opened = set(most_changed(report, policy, OPEN_VARIABLES))
    declared = _declared(report)
    out = []
    groupings: dict[str, Grouping] = {}
    for name, var in first["variables"].items():
        per = [(i, s, a["variables"].get(name)) for i, s, a in aggs]
        anchor = variable_anchor(names, name) if name in names else slug("var", len(names) + len(out))
        cells = table.get(name, [])
        if var["kind"] != "continuous":
            groupings[name] = _grouping(var, per, policy, var.get("generalised"))
        if cells and all((c.value or 0.0) == 0.0 for c in cells) and all(c.value is not None for c in cells):
            out.append((anchor, name, _kind_text(var), "unchanged", Markup("")))
            continue
        if var["kind"] == "continuous":
            plots = continuous_plots(name, var, per, policy)
        else:
            plots = categorical_plots(name, var, per, groupings[name], declared.get(name, set()), policy)
        worst = max(range(len(cells)), key=lambda i: cells[i].value or 0.0) if cells else None
        headline = (Markup(" — largest loss {} in {}").format(cells[worst].text, report.scenarios[worst].name)
                    if worst is not None and cells[worst].value else Markup(""))
        html = Markup('<details class="variable {}" id="{}"{}><summary><h3>{} <small>({})</small>{}</h3></summary>'
                      "{}</details>").format(var["kind"], anchor, Markup(" open") if name in opened else "", name,
                                             _kind_text(var), headline, plots)
        out.append((anchor, name, _kind_text(var), var["kind"], html))
    return out, pair_mosaics(aggs, groupings, policy)


def _declared(report: Any) -> dict[str, set[str]]:
    """Categories the spec declares (an ``order:`` list): these may be named in safe mode."""
    spec = getattr(report, "spec", None)
    out: dict[str, set[str]] = {}
    for name, v in (getattr(spec, "variables", None) or {}).items():
        if getattr(v, "order", None):
            out[name] = {str(c) for c in v.order}
    return out


def _kind_text(var: dict[str, Any]) -> str:
    role = var.get("role")
    return var.get("scale", var["kind"]) + (f", {role}" if role and role != "other" else "")


# ---------------------------------------------------------------------------
# continuous
# ---------------------------------------------------------------------------
#: the densities of all files share one chart up to this many scenarios (each histogram has its own curve)
MAX_OVERLAY = 4


def continuous_plots(name: str, var: dict[str, Any], per: Sequence, policy: Policy) -> Markup:
    """Histograms per scenario, all densities on one axis (up to :data:`MAX_OVERLAY` scenarios), box plots."""
    edges = var["grid"]
    if edges is None and var.get("not_drawn"):
        return Markup('<p class="note">{}.</p>').format(var["not_drawn"])
    if edges is None:
        return Markup('<p class="note">No values in the original file.</p>')
    if too_few(var["stats"]["orig"], policy):  # its axis, quartiles and density would show its records' values
        return Markup('<p class="note">Fewer than {} records with a value in the original: not drawn (safe mode).'
                      "</p>").format(policy.min_cell)
    var, per = safe_axis(var, per, policy)
    if var is None:
        return Markup('<p class="note">Not drawn (safe mode): fewer than {} records lie beyond any axis end the '
                      "plot data allow.</p>").format(policy.min_cell)
    edges = var["grid"]
    xlim = (float(edges[0]), float(edges[-1]))
    unit = 100.0 * (xlim[1] - xlim[0]) / DISPLAY_BINS  # density -> % of records per bar
    records = records_shown(name, var, per, policy)
    orig_bins, orig_curve = _histogram(var["hist"]["orig"], var["stats"]["orig"], var["density"]["orig"], edges,
                                       unit, policy, hide=isinstance(records.get(ORIGINAL), str))
    panels = []
    for i, s, v in per:
        if v is None or v["stats"]["prot"] is None:
            panels.append((i, s, None, [], ""))
            continue
        bins, curve = _histogram(v["hist"]["prot"], v["stats"]["prot"], v["density"]["prot"], edges, unit, policy,
                                 hide=isinstance(records.get(i), str))
        panels.append((i, s, bins, curve, outside_text(v["hist"]["prot"], policy)))
    ymax = max([d for _, _, b, _, _ in panels if b for _, _, d, _ in b] + [d for _, _, d, _ in orig_bins] + [0.0])
    ymax = max([ymax] + [y for _, _, _, c, _ in panels for _, y in c] + [y for _, y in orig_curve]) * 1.08
    figs = []
    orig_out = outside_text(var["hist"]["orig"], policy)
    for i, s, bins, curve, out_text in panels:
        if bins is None:
            figs.append(Markup('<figure class="chart missing"><p>{}: removed from this scenario</p></figure>')
                        .format(s.name))
            continue
        note = "outside the axis: " + "; ".join(t for t in (f"original {orig_out}" if orig_out else "",
                                                           f"{s.name} {out_text}" if out_text else "") if t)
        note = note if (orig_out or out_text) else ""
        if policy.safe:  # no count outside the axis: those records are in the end bars (display_bins)
            v = next(v for j, _, v in per if j == i)
            few = too_few(v["stats"]["prot"], policy)
            beyond = any(_beyond(h) for h in (var["hist"]["orig"], None if few else v["hist"]["prot"]))
            hidden = [(label, records[key]) for label, key in (("original", ORIGINAL), (s.name, i))
                      if isinstance(records.get(key), str)]
            why = {}  # the files whose counts are not shown, by reason
            for label, reason in hidden:
                why.setdefault(reason, []).append(label)
            note = " ".join(t for t in (
                f"{s.name}: fewer than {policy.min_cell} records with a value, not drawn." if few else "",
                "The end bars include the records beyond the axis." if beyond else "",
                "; ".join(f"{' and '.join(labels)}: counts not shown ({reason})" for reason, labels in why.items())
                + "; bars in whole % of the records with a value." if hidden else "") if t)
        chart = svg.histogram_panel(
            title=f"{s.name} vs original", xlim=xlim, ymax=ymax, orig_bins=orig_bins, prot_bins=bins,
            prot_colour=svg.colour(i), orig_curve=orig_curve, prot_curve=curve,
            note=note, label=f"histogram of {name}: {s.name} and original")
        figs.append(Markup('<figure class="chart">{}</figure>').format(chart))
    second = []
    drawn = [(i, s, c) for i, s, b, c, _ in panels if b is not None]
    if len(drawn) <= MAX_OVERLAY:
        curves = [("original", svg.ORIGINAL_COLOUR, orig_curve, True)] + [(s.name, svg.colour(i), c, False)
                                                                           for i, s, c in drawn]
        second.append(svg.density_panel(title="densities (dashed: original)", xlim=xlim, curves=curves,
                                        label=f"density curves of {name}", indices=[None] + [i for i, _, _ in drawn]))
    second.append(_boxes(name, var, per, xlim, policy))
    return Markup('<div class="charts">{}</div><div class="charts">{}</div>{}').format(
        join(figs), join(Markup('<figure class="chart">{}</figure>').format(c) for c in second),
        _continuous_table(var, per, policy, records))


def safe_axis(var: dict[str, Any], per: Sequence, policy: Policy) -> tuple[dict[str, Any] | None, Sequence]:
    """The variable (and each scenario's) with the grid, histograms and densities a page may draw.

    Safe mode: when fewer than ``min_cell`` records lie at or beyond an end of the common grid (its 0.5 %/99.5 %
    quantiles, or the minimum and maximum), the grid of the aggregates' ``safe_axis`` (ends with at least
    :data:`~infoloss.aggregates.SAFE_TAIL` records at or beyond them) stands in; None when that has fewer too.
    """
    tail = var.get("axis_tail")
    if not policy.safe or tail is None or tail >= policy.min_cell:
        return var, per
    alt = var.get("safe_axis")
    if alt is None or alt["tail"] < policy.min_cell:
        return None, per
    return _on_axis(var, alt), [(i, s, None if v is None else _on_axis(v, v.get("safe_axis") or alt))
                                for i, s, v in per]


def _on_axis(var: dict[str, Any], axis: dict[str, Any]) -> dict[str, Any]:
    hist = {"orig": axis["hist"].get("orig"), "prot": axis["hist"].get("prot")}
    density = {"orig": axis["density"].get("orig"), "prot": axis["density"].get("prot")}
    return {**var, "grid": axis["grid"], "hist": hist, "density": density}


def _continuous_table(var: dict[str, Any], per: Sequence, policy: Policy, shown: dict[Any, int | str]) -> Markup:
    """The plots' numbers: records with a value (:func:`records_shown`), mean, quartiles and values outside the
    axis, per file."""
    from .families import data_table
    from .numbers import number

    rows = []
    sides = [("original", ORIGINAL, var["stats"]["orig"], var["hist"]["orig"])]
    sides += [(s.name, i, v["stats"]["prot"], v["hist"]["prot"]) for i, s, v in per if v is not None]
    last = [] if policy.safe else ["–"]  # safe mode: no "outside the axis" column (the end bars hold them)
    for label, key, stats, hist in sides:
        if too_few(stats, policy):
            rows.append([label, f"fewer than {policy.min_cell} records with a value", "–", "–", "–", "–"] + last)
            continue
        n = shown.get(key, (stats or {}).get("n") or 0)
        records = f"counts not shown: {n}" if isinstance(n, str) else policy.count_text(n)
        b = box_stats(stats, policy)
        thin = thin_quartiles(stats, policy)
        if b is None and not thin:
            rows.append([label, records, "–", "–", "–", "–"] + last)
            continue
        mean = (f"withheld: fewer than {policy.min_cell} records away from the most common value"
                if concentrated(stats, policy) else number(policy.number(stats.get("mean"))))
        quartiles = ([f"withheld: fewer than {policy.min_cell} records beyond"] * 3 if thin
                     else [number(b["q1"]), number(b["median"]), number(b["q3"])])
        rows.append([label, records, mean] + quartiles + ([] if policy.safe else [outside_text(hist, policy) or "none"]))
    return data_table(["file", "records with a value", "mean", "lower quartile", "median", "upper quartile"]
                      + ([] if policy.safe else ["outside the axis"]), rows)


def _beyond(hist: dict[str, Any] | None) -> bool:
    return bool(hist) and (int(hist.get("below", 0) or 0) + int(hist.get("above", 0) or 0)) > 0


#: the original's key in :func:`records_shown` (a scenario's is its index)
ORIGINAL = "original"


def records_shown(name: str, var: dict[str, Any], per: Sequence, policy: Policy) -> dict[Any, int | str]:
    """Per file (:data:`ORIGINAL`, or a scenario's index): its records with a value of the continuous variable
    ``name`` as the page shows them (the data table's records, the histogram's counts), or why they are not shown.

    One rule in both modes: the count is the ``n`` of the scenarios' ``statistics`` block, in safe mode the safe
    JSON's (:mod:`.safe_view`), which withholds it where the file's records less it, its missing values, are 1 to
    ``min_cell`` − 1 (the original's, when any scenario's JSON does); without that block
    (``statistics=False``) the aggregates' count under the same rule (:func:`few_missing`).  A file with a value in
    1 to ``min_cell`` − 1 records (:func:`too_few`) is left out: the page says so instead.
    """
    files = [(ORIGINAL, "orig", var["stats"]["orig"], [s for _, s, _ in per])]
    files += [(i, "prot", v["stats"]["prot"], [s]) for i, s, v in per if v is not None and v["stats"]["prot"]]
    out: dict[Any, int | str] = {}
    for key, side, stats, scenarios in files:
        n = (stats or {}).get("n")
        if n is None or too_few(stats, policy):
            continue
        published = [x for x in (_json_n(s, side, name) for s in scenarios) if x is not _ABSENT]
        if few_missing(stats, policy) or any(x is None for x in published):
            out[key] = f"fewer than {policy.min_cell} records of this file have no value"
        else:
            out[key] = int(published[0]) if published else int(n)
    return out


_ABSENT = object()


def _json_n(scenario: Any, side: str, name: str) -> Any:
    """``n`` of ``name`` in one file's block of the scenario's ``statistics`` (None: withheld), or :data:`_ABSENT`."""
    counts = (((getattr(scenario, "statistics", None) or {}).get(side)) or {}).get("n")
    return counts.get(name, _ABSENT) if isinstance(counts, dict) else _ABSENT


def few_missing(stats: dict[str, Any] | None, policy: Policy) -> bool:
    """Safe mode: whether 1 to ``min_cell`` − 1 records of the file have no value of the variable.

    The records with a value (the sum of the histogram's bars, the data table's records) would then give the
    withheld number of missing or suppressed values back: the file's records less them.

    >>> few_missing({"n": 197, "missing": 3}, Policy(safe=True)), few_missing({"n": 197, "missing": 3}, Policy())
    (True, False)
    >>> few_missing({"n": 190, "missing": 10}, Policy(safe=True)), few_missing({"n": 200, "missing": 0}, Policy(safe=True))
    (False, False)
    """
    missing = int((stats or {}).get("missing") or 0)
    return policy.safe and 0 < missing < policy.min_cell


def _histogram(hist: dict[str, Any] | None, stats: dict[str, Any] | None, density: Any, edges: np.ndarray,
               unit: float, policy: Policy, hide: bool | None = None) -> tuple[list, list]:
    """A file's histogram bars (heights in % of records per standard bar) and density curve.

    ``hide`` (default: :func:`few_missing`): the page does not show the file's records with a value
    (:func:`records_shown`).  Then the bars carry no counts (None) and their heights are the bars'
    shares of the records with a value rounded to whole percent, and the density curve is drawn from those
    rounded shares (with the file's records, not the records with a value, in its bandwidth), so neither the
    records with a value nor the counts behind them can be had from the bars' or the curve's ratios.
    """
    n = (stats or {}).get("n") or 0
    bins = display_bins(hist, edges, n, policy)
    if not (few_missing(stats, policy) if hide is None else hide):
        bins = _percent(bins, unit)
        return bins, _scale(density_curve({"stats": stats}, bins, edges, policy, density), unit)
    step = (float(edges[-1]) - float(edges[0])) / DISPLAY_BINS
    shares = [int(round(100.0 * c / n)) for _, _, _, c in bins]
    total = sum(shares) or 1
    curve_stats = dict(stats, n=int(stats["n"]) + int(stats["missing"]))  # the file's records: no n with a value
    spread = [(a, b, 0.0, p) for (a, b, _, _), p in zip(bins, shares)]
    curve = density_curve({"stats": curve_stats}, spread, edges, policy, None)
    curve = [(x, y * curve_stats["n"] / total) for x, y in curve]  # the density of the rounded shares
    return [(a, b, p * step / (b - a), None) for (a, b, _, _), p in zip(bins, shares)], _scale(curve, unit)


def _percent(bins: list, unit: float) -> list:
    return [(a, b, d * unit, c) for a, b, d, c in bins]


def _scale(curve: list, unit: float) -> list:
    return [(x, y * unit) for x, y in curve]


def _boxes(name: str, var: dict[str, Any], per: Sequence, xlim: tuple[float, float], policy: Policy) -> Markup:
    boxes = []
    sides = [("original", svg.ORIGINAL_COLOUR, var["stats"]["orig"])]
    sides += [(s.name, svg.colour(i), v["stats"]["prot"]) for i, s, v in per if v is not None]
    for label, col, stats in sides:
        b = box_stats(stats, policy)
        if b is None:
            continue
        tip = f"{label}: median {svg.fmt_value(b['median'])}, quartiles {svg.fmt_value(b['q1'])}–{svg.fmt_value(b['q3'])}"
        boxes.append({**b, "name": label, "colour": col, "tip": tip})
    note = ("whiskers: 5th and 95th percentiles; no outliers shown (safe mode)" if policy.safe
            else "whiskers: 1.5 IQR; ticks: outliers (a sample); ◆ mean")
    short = [label for label, _, stats in sides if policy.safe and stats and not too_few(stats, policy)
             and whisker_probs(int(stats.get("n") or 0), policy) != (0.05, 0.95)]
    if short:
        note += (f"; {', '.join(short)}: a whisker ends at the quartile where fewer than {policy.min_cell} records "
                 "lie beyond the 5th or 95th percentile")
    few = [label for label, _, stats in sides if too_few(stats, policy)]
    if few:
        note += f"; {', '.join(few)}: fewer than {policy.min_cell} records with a value, not drawn"
    thin = [label for label, _, stats in sides if thin_quartiles(stats, policy)]
    if thin:
        note += f"; {', '.join(thin)}: fewer than {policy.min_cell} records beyond a quartile, not drawn"
    return svg.box_panel(title="box plots", boxes=boxes, xlim=xlim, label=f"box plots of {name}", note=note)


# ---------------------------------------------------------------------------
# categorical
# ---------------------------------------------------------------------------
def _grouping(var: dict[str, Any], per: Sequence, policy: Policy,
              generalised: dict[str, int | None] | None = None) -> Grouping:
    tables = [np.asarray(var["orig"])] + [np.asarray(v["prot"]) for _, _, v in per if v is not None and v["prot"] is not None]
    return category_grouping(var["categories"], tables, var.get("scale") == "ordinal", policy, generalised)


def segment_colours(g: Grouping, ordinal: bool) -> list[str]:
    """Colour per segment: a ramp for ordinal variables, a qualitative palette for nominal ones."""
    out = []
    real = [i for i, kind in enumerate(g.kinds) if kind in ("category", "group")]
    general = [i for i, kind in enumerate(g.kinds) if kind == "generalised"]
    for i, kind in enumerate(g.kinds):
        if kind == "missing":
            out.append(svg.MISSING_COLOUR)
        elif kind == "other":
            out.append(svg.OTHER_COLOUR)
        elif kind == "generalised":  # a palette of their own, apart from the original categories' colours
            out.append(svg.GENERALISED_COLOURS[general.index(i) % len(svg.GENERALISED_COLOURS)])
        elif ordinal:
            t = real.index(i) / max(len(real) - 1, 1)
            out.append(svg.ramp(("#deebf7", "#6baed6", "#08306b"), t))
        else:
            out.append(svg.CATEGORY_COLOURS[real.index(i) % len(svg.CATEGORY_COLOURS)])
    return out


def categorical_plots(name: str, var: dict[str, Any], per: Sequence, g: Grouping, declared: set[str] = frozenset(),
                      policy: Policy | None = None) -> Markup:
    """The multi-scenario mosaic: one stacked 100 % column for the original and one per scenario.

    Above each scenario's column: the share of records that would have to
    move to another category to turn its table into the original's (total
    variation distance of the variable's own categories; in safe mode of the
    drawn groups, which hide small categories).  In safe mode a note names
    the categories merged into "other" (see :func:`merged_note`).
    """
    policy = policy or Policy()
    colours = segment_colours(g, var.get("scale") == "ordinal")
    raw_orig = np.asarray(var["orig"])
    orig = g.apply(raw_orig)
    columns = [("original", _segments(g, orig, colours))]
    marks = [(svg.ORIGINAL_COLOUR, "")]
    shares = [("original", orig)]
    for i, s, v in per:
        prot = None if v is None or v["prot"] is None else g.apply(np.asarray(v["prot"]))
        columns.append((s.name, _segments(g, prot, colours) if prot is not None else []))
        change = None if prot is None else (total_variation(orig, prot) if policy.safe
                                            else total_variation(raw_orig, np.asarray(v["prot"])))
        marks.append((svg.colour(i), "" if prot is None else share_text(change, int(orig.sum()), policy)))
        if prot is not None:
            shares.append((s.name, prot))
    legend = generalised_legend(g, colours)
    chart = svg.mosaic_columns(columns, legend, title="% of records per category", marks=marks, titles=len(per) <= 4,
                               label=f"mosaic plot of {name}")
    from .families import data_table

    rows = [[_category_cell(g, lbl)] + [percent(t[k] / t.sum()) if t.sum() else "–" for _, t in shares]
            for k, lbl in enumerate(g.labels)]
    table = data_table(["category"] + [n for n, _ in shares], rows)
    return Markup('<figure class="chart">{}{}{}</figure>{}').format(chart, generalised_note(name, g),
                                                                    merged_note(g, declared, policy), table)


def _level_text(level: int | None) -> str:
    return "a level of its hierarchy" if level is None else f"level {level}"


def generalised_legend(g: Grouping, colours: Sequence[str]) -> list[tuple[str, str | None]]:
    """The mosaic's legend: the categories, then the generalised values under a heading per hierarchy level
    (``(heading, None)``: a line without a swatch)."""
    out: list[tuple[str, str | None]] = []
    last: Any = object()
    for lbl, col, kind in zip(g.labels, colours, g.kinds):
        if kind == "generalised" and " values generalised to " not in lbl:
            level = g.levels.get(lbl)
            if level != last:
                out.append((f"generalised to {_level_text(level)}:", None))
                last = level
        out.append((lbl, col))
    return out


def _category_cell(g: Grouping, label: str) -> Markup:
    """A category in the data table: the JSON's name, and for a generalised value its level."""
    k = g.labels.index(label)
    if g.kinds[k] != "generalised" or " values generalised to " in label:
        return Markup("{}").format(label)
    return Markup("{} <small>(generalised, {})</small>").format(label, _level_text(g.levels.get(label)))


def generalised_note(name: str, g: Grouping) -> Markup:
    """A caption when the mosaic has generalised values: what they are (not original categories)."""
    if "generalised" not in g.kinds:
        return Markup("")
    levels = sorted({g.levels.get(lbl) for lbl, kind in zip(g.labels, g.kinds) if kind == "generalised"},
                    key=lambda v: (v is None, v or 0))
    return Markup('<figcaption class="merged">Generalised values: the protected file{} replaced original categories '
                  "of {} by their group at {} of its hierarchy; each is drawn as its own segment under "
                  "“generalised to …”, named as in the JSON tables.</figcaption>").format(
        "s", name, " and ".join(_level_text(v) for v in levels))


def merged_note(g: Grouping, declared: set[str], policy: Policy) -> Markup:
    """Safe mode: which categories were merged into "other".

    A merged category is named when it has at least ``min_cell`` records in
    the original (it was merged for another file, or to make "other" large
    enough) or when the spec declares it (an ``order:`` list); a category
    with fewer records that only the data reveal is counted, not named, so
    that the page never shows a value held by fewer than ``min_cell`` records.
    """
    if not g.merged:
        return Markup("")
    named = [c for c, small in zip(g.merged, g.merged_small) if not small or c in declared]
    hidden = len(g.merged) - len(named)
    parts = []
    if named:
        parts.append(", ".join(named))
    if hidden:
        parts.append(f"{hidden} categor{'y' if hidden == 1 else 'ies'} with fewer than {policy.min_cell} records "
                     "in the original (not named)")
    return Markup('<figcaption class="merged">"other" holds the merged categories: {}.</figcaption>').format(
        " and ".join(parts))


def _segments(g: Grouping, grouped: np.ndarray, colours: list[str]) -> list[tuple[str, int, str]]:
    return [(lbl, int(n), col) for lbl, n, col in zip(g.labels, grouped, colours)]


# ---------------------------------------------------------------------------
# two-way mosaics of the pairs that changed most
# ---------------------------------------------------------------------------
def changed_pairs(aggs: Sequence, top: int = TOP_PAIRS) -> list[tuple[str, float, float]]:
    """The pairs whose association changed most: ``(pair, change beyond the one-way tables, two-way change)``.

    A pair's two-way change is the total variation distance between its
    original and protected two-way tables; its change beyond the one-way
    tables is that less the larger change of its two one-way tables (what
    the univariate mosaics already show).  Pairs are ranked by the change
    beyond the one-way tables, at its largest over the scenarios (ties: by
    the two-way change).  Each variable appears in at most two of the chosen
    pairs, so that one heavily recoded variable does not fill the section.
    """
    score: dict[str, tuple[float, float]] = {}
    for _, _, a in aggs:
        for key, t in a["pairs"].items():
            orig, prot = np.asarray(t["orig"]), np.asarray(t["prot"])
            joint = total_variation(orig, prot)
            margins = max(total_variation(orig.sum(axis=1), prot.sum(axis=1)),
                          total_variation(orig.sum(axis=0), prot.sum(axis=0)))
            old = score.get(key, (0.0, 0.0))
            score[key] = (max(old[0], joint - margins), max(old[1], joint))
    chosen: list[tuple[str, float, float]] = []
    used: dict[str, int] = {}
    for key, (excess, joint) in sorted(score.items(), key=lambda kv: (-kv[1][0], -kv[1][1], kv[0])):
        a, b = key.split("|", 1)
        if joint <= 0 or used.get(a, 0) >= 2 or used.get(b, 0) >= 2:
            continue
        chosen.append((key, max(excess, 0.0), joint))
        used[a], used[b] = used.get(a, 0) + 1, used.get(b, 0) + 1
        if len(chosen) == top:
            break
    return chosen


def pair_mosaics(aggs: Sequence, groupings: dict[str, Grouping], policy: Policy) -> Markup:
    """Two-way mosaic plots (original and every scenario) of the pairs whose association changed most."""
    blocks = []
    source = aggs[0][2].get("pair_source", "key")
    for key, excess, tv in changed_pairs(aggs):
        a, b = key.split("|", 1)
        ga, gb = groupings.get(a), groupings.get(b)
        if ga is None or gb is None:
            continue
        colours = segment_colours(gb, aggs[0][2]["variables"][b].get("scale") == "ordinal")
        titles, cells = _pair_cells(key, aggs, ga, gb, policy)
        figs = [_mosaic2(title, c, ga, gb, colours, a, b) for title, c in zip(titles, cells)]
        if policy.safe and all(not c[:, :-1].any() for c in cells):
            figs = [Markup('<p class="note">Not drawn: every cell is suppressed in safe mode (the one-way mosaics '
                           "show the totals).</p>")]
        legend = join(Markup('<span class="key"><span class="swatch" style="background:{}"></span>{}</span>')
                      .format(c, lbl) for lbl, c in zip(gb.labels + [SUPPRESSED] * policy.safe,
                                                        colours + [svg.OTHER_COLOUR] * policy.safe))
        n = int(np.asarray(aggs[0][2]["pairs"][key]["orig"]).sum())
        blocks.append(Markup(
            '<div class="pairblock"><h3>{} × {}</h3><p class="note">Column widths: the shares of {}; heights '
            "within a column: the shares of {}. In the scenario where it changed most, this two-way table changed "
            "by {} of the records (total variation distance), {} more than its two one-way tables.{}</p>"
            '<div class="legend">{}</div><div class="charts">{}</div></div>'
        ).format(a, b, a, b, share_text(tv, n, policy), share_text(excess, n, policy),
                 _suppressed_note(policy), legend, join(figs)))
    if not blocks:
        return Markup("")
    intro = ("key variables" if source == "key" else "categorical variables")
    return Markup('<p class="note">The pairs of {} whose association changed most: ranked by how much more their '
                  "two-way table changed than their one-way tables (the change the mosaics per variable do not "
                  "show).</p>{}").format(intro, join(blocks))


#: the segment of a two-way mosaic's column that holds its hidden cells (safe mode)
SUPPRESSED = "suppressed cells (merged)"


def _suppressed_note(policy: Policy) -> str:
    if not policy.safe:
        return ""
    return (f" Safe mode: the cells the safe JSON suppresses, cells of fewer than {policy.min_cell} records and "
            "further cells (so that none can be had from the totals) are drawn together per column as "
            f'"{SUPPRESSED}", alike in every file.')


def _pair_cells(key: str, aggs: Sequence, ga: Grouping, gb: Grouping, policy: Policy) -> tuple[list, list]:
    """The files' titles and their grouped two-way tables as drawn (:func:`safe_two_way`, one mask for all)."""
    titles = ["original"] + [s.name for _, s, ag in aggs if key in ag["pairs"]]
    tables = [aggs[0][2]["pairs"][key]["orig"]] + [ag["pairs"][key]["prot"] for _, _, ag in aggs if key in ag["pairs"]]
    grouped = [ga.apply2(np.asarray(t), gb) for t in tables]
    start = _json_hidden(key, aggs, ga, gb) if policy.safe else None
    cells, _ = safe_two_way(grouped, policy, start)
    return titles, cells


def _json_hidden(key: str, aggs: Sequence, ga: Grouping, gb: Grouping) -> np.ndarray:
    """The grouped cells holding a cell any scenario's safe JSON suppresses (``tables.two_way``, null)."""
    a, b = key.split("|", 1)
    variables = aggs[0][2]["variables"]
    mask = np.zeros((len(ga.labels), len(gb.labels)), dtype=bool)
    for _, s, _ in aggs:
        t = (((getattr(s, "safe_json", None) or {}).get("tables") or {}).get("two_way") or {}).get(key)
        if not t:
            continue
        rows = _json_segments(t["rows"], variables[a]["categories"], ga)
        cols = _json_segments(t["columns"], variables[b]["categories"], gb)
        for f in ("original", "protected"):
            for i, row in enumerate(t[f]["count"]):
                for j, v in enumerate(row):
                    if v is None:
                        mask[np.ix_(rows[i], cols[j])] = True
    return mask


def _json_segments(labels: Sequence[str], categories: Sequence[str], g: Grouping) -> list[list[int]]:
    """Per label of a safe JSON table: the segments of ``g`` its categories are drawn in (its "other": every
    category it does not list)."""
    pos = {str(c): k for k, c in enumerate(categories)}
    listed = set(labels)
    rest = [k for c, k in pos.items() if c not in listed] + ([] if "missing" in listed else [len(categories)])
    out = []
    for label in labels:
        idx = [pos[label]] if label in pos else [len(categories)] if label == "missing" else rest
        out.append(sorted({int(g.index[k]) for k in idx}))
    return out


def _mosaic2(title: str, cells: np.ndarray, ga: Grouping, gb: Grouping, colours: list[str], a: str, b: str) -> Markup:
    row_labels = [("other (merged)" if kind == "other" else lbl) for lbl, kind in zip(ga.labels, ga.kinds)]
    seg_labels = gb.labels + [SUPPRESSED]
    seg_colours = colours + [svg.OTHER_COLOUR]
    columns = []
    for lbl, row in zip(row_labels, cells):
        segs = [(sl, int(n), c) for sl, n, c in zip(seg_labels, row, seg_colours)]
        columns.append((lbl, int(row.sum()), segs))
    chart = svg.mosaic_2way(columns, title=title, label=f"mosaic plot of {a} by {b}, {title}", xlabel=a,
                            width=262, height=220)
    return Markup('<figure class="chart">{}</figure>').format(chart)
