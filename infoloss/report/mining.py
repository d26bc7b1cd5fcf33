"""The mining family's own charts: model scores per target and cluster agreement, with their seed spread.

Per target, one bar per scenario shows the score of the model trained on the
protected file (mean over seeds, with a min-max whisker), against vertical
lines for the original-trained model, the baseline (most frequent class /
mean) and the removal model (key variables left out): where the protected
file stands between useless and the original.  Per cluster measure, one bar
per scenario with its min-max whisker over seeds.  Everything comes from the
measures' ``details``: model scores and indices, never record values.  Each chart has its numbers in a
data table under it (:func:`spread_table`: the mean, sd, min and max over seeds of each bar and of each
reference line's model), printed by the page's number rule; in safe mode they are the safe JSON's, as the
chart's.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from markupsafe import Markup

from . import svg
from .families import data_table
from .numbers import number
from .parts import join

SCORE_SOURCES = ("ml_score_ratio", "ml_gain_kept")
CLUSTER_SOURCES = ("cluster_ari", "cluster_proportion_distance")
METRIC_NAMES = {"balanced_accuracy": "balanced accuracy", "accuracy": "accuracy", "f1_macro": "macro F1",
                "roc_auc": "ROC AUC", "r2": "R²", "rmse": "RMSE"}
#: the reference lines in the caption's words
LINE_WORDS = {"original": "the same model trained on the original",
              "removal": "on the original without the key variables", "baseline": "the baseline"}
#: a row's stats when the safe JSON withholds them (null): the bar and its table row read "withheld"
WITHHELD = "withheld"
REFERENCES = (  # (key in details scores, legend text, dash pattern)
    ("original", "trained on the original", None),
    ("removal", "original without the key variables", "2,2"),
    ("baseline", "baseline (most frequent class / mean)", "5,3"),
)


def mining_section(report: Any, policy: Any) -> Markup | None:
    """The mining charts inside the mining family's section (see infoloss.report.sections); None without any."""
    return mining_charts(report) or None


def mining_charts(report: Any) -> Markup:
    """The charts of the mining section (empty when no mining measure has the needed details)."""
    return join([score_charts(report), cluster_charts(report)])


# ---------------------------------------------------------------------------
# model scores per target
# ---------------------------------------------------------------------------
def _target_blocks(report: Any) -> tuple[str | None, list[dict[str, dict]]]:
    """The source measure and, per scenario, its ``details["targets"]`` (empty when not computed)."""
    for mid in SCORE_SOURCES:
        if mid in report.measure_ids:
            blocks = []
            for s in report.scenarios:
                result = s.measures.get(mid)
                blocks.append({} if result is None else (result.details or {}).get("targets") or {})
            if any(blocks):
                return mid, blocks
    return None, []


def score_charts(report: Any) -> Markup:
    mid, blocks = _target_blocks(report)
    if mid is None:
        return Markup("")
    names = list(dict.fromkeys(name for b in blocks for name in b))
    figures = []
    reasons: dict[str, str] = {}
    for name in names:
        first = next((b[name] for b in blocks if b.get(name)), None)
        if first is None:  # safe mode: the target's block is null in every scenario's safe JSON
            reasons[name] = _withheld_why(report, mid)
            continue
        metric = first["metric"]
        rows = []
        for i, (s, b) in enumerate(zip(report.scenarios, blocks)):
            if name in b and b[name] is None:  # null in this scenario's safe JSON
                stats = WITHHELD
            else:
                stats = (b.get(name) or {}).get("scores", {}).get("protected", {}).get(metric)
            rows.append((s.name, svg.colour(i), stats))
        refs, ref_rows = [], []
        for key, text, dash in REFERENCES:
            stats = first["scores"].get(key, {}).get(metric)
            if stats is not None:
                refs.append((text, stats["mean"], dash))
                ref_rows.append((text, stats))
        label = METRIC_NAMES.get(metric, metric)
        chart = spread_bars(rows, refs, label=f"{label} of {name} on held-out original records",
                            axis=f"{label} ({'lower' if metric == 'rmse' else 'higher'} is better)",
                            domain=_domain(metric))
        drawn = [LINE_WORDS[key] for key, _, _ in REFERENCES if first["scores"].get(key, {}).get(metric) is not None]
        lines = ""
        if drawn:  # only the lines drawn (no removal model without key variables)
            words = drawn[0] if len(drawn) == 1 else " and ".join(drawn) if len(drawn) == 2 else \
                ", ".join(drawn[:-1]) + ", and " + drawn[-1]
            lines = f" Vertical line{'s' if len(drawn) > 1 else ''}: {words}."
        caption = Markup("<b>Target {}</b> ({}): {} of the model trained on each protected file, on original records "
                         "it never saw; bar = mean over seeds, whisker = min–max.{}"
                         ).format(name, first["task"], label, lines)
        table = spread_table(rows, ref_rows, first="model trained on",
                             summary=f"data: {label} of {name} over seeds (bar: mean, whisker: min–max; "
                                     "a vertical line: a reference model's mean)")
        figures.append(Markup('<figure class="chart wide"><figcaption>{}</figcaption>{}{}</figure>').format(
            caption, chart, table))
    for s in report.scenarios:
        result = s.measures.get(mid)
        for name, why in ({} if result is None else (result.details or {}).get("not_computed") or {}).items():
            reasons.setdefault(name, why)
    notes = join(Markup("<li><b>{}</b>: {}</li>").format(name, why) for name, why in reasons.items())
    if reasons:
        notes = Markup('<p class="note">Targets without a {} chart:</p><ul class="note">{}</ul>').format(mid, notes)
    return Markup('<h4>Models trained on the protected files, tested on the original</h4><div class="charts">{}</div>{}'
                  ).format(join(figures), notes)


def _withheld_why(report: Any, mid: str) -> str:
    """Why the safe JSON withholds a target's block: the measure's ``withheld`` reason where it gives one."""
    from .safe_view import withheld_title

    result = next((s.measures[mid] for s in report.scenarios if getattr(s.measures.get(mid), "withheld", None)), None)
    return f"withheld ({withheld_title(result)})"


def _domain(metric: str) -> tuple[float | None, float | None]:
    if metric == "rmse":
        return 0.0, None
    if metric == "r2":
        return None, 1.0
    return 0.0, 1.0


# ---------------------------------------------------------------------------
# cluster agreement per scenario
# ---------------------------------------------------------------------------
def cluster_charts(report: Any) -> Markup:
    from ..registry import get

    figures = []
    for mid in CLUSTER_SOURCES:
        if mid not in report.measure_ids:
            continue
        rows = []
        for i, s in enumerate(report.scenarios):
            result = s.measures.get(mid)
            seeds = None if result is None else (result.details or {}).get("seeds")
            if seeds is None and result is not None and getattr(result, "withheld", None):  # null in the safe JSON
                seeds = WITHHELD
            rows.append((s.name, svg.colour(i), seeds))
        if not any(isinstance(r[2], dict) for r in rows):
            continue
        info = get(mid)
        first = next(s.measures[mid] for s in report.scenarios
                     if s.measures.get(mid) and isinstance((s.measures[mid].details or {}).get("seeds"), dict))
        chart = spread_bars(rows, [], label=f"{mid} per scenario", axis=f"{mid} ({info.better_text} is better)",
                            domain=info.range)
        caption = Markup("<b>{}</b>: {} (k = {}); bar = mean over {} seeds, whisker = min–max, "
                         "sd in the bar's tooltip.").format(mid, info.description, first.details.get("k"),
                                                             len(first.details["seeds"]["values"]))
        table = spread_table(rows, [], summary=f"data: {mid} over seeds (bar: mean, whisker: min–max)")
        figures.append(Markup('<figure class="chart wide"><figcaption>{}</figcaption>{}{}</figure>').format(
            caption, chart, table))
    if not figures:
        return Markup("")
    return Markup('<h4>Cluster agreement, with the spread over seeds</h4><div class="charts">{}</div>'
                  ).format(join(figures))


# ---------------------------------------------------------------------------
# the chart and its data table
# ---------------------------------------------------------------------------
def _missing(st: Any) -> str:
    """What a chart row and its table row read without a bar."""
    return "withheld (safe mode)" if st == WITHHELD else "not computed"


def spread_table(rows: Sequence[tuple[str, str, dict | None]], refs: Sequence[tuple[str, dict]], *,
                 summary: str, first: str = "scenario") -> Markup:
    """The numbers of a :func:`spread_bars` chart (its text alternative): per bar (scenario) the mean, sd, min
    and max over seeds, or what the chart says instead of a bar ("not computed", "withheld (safe mode)"); then per
    reference line (``refs``: its legend text and its model's stats dict, whose mean the line marks) the same four
    numbers.  The stats are those the chart is drawn from (in safe mode the safe JSON's)."""
    def cells(st: dict) -> list[str]:
        return [number(st.get(k)) for k in ("mean", "sd", "min", "max")]

    body = [[name] + (cells(st) if isinstance(st, dict) and st else [_missing(st), "–", "–", "–"])
            for name, _, st in rows]
    body += [[f"line: {text}"] + cells(st) for text, st in refs]
    return data_table([first, "mean", "sd", "min", "max"], body, summary=summary)


def spread_bars(rows: Sequence[tuple[str, str, dict | None]], refs: Sequence[tuple[str, float, str | None]], *,
                label: str, axis: str, domain: tuple[float | None, float | None], width: float = 640) -> Markup:
    """Horizontal bars (one per scenario: mean, min-max whisker) with labelled vertical reference lines.

    ``rows`` are ``(name, colour, stats)`` with stats a dict of mean, sd, min
    and max (None: not computed; :data:`WITHHELD`: null in the safe JSON); ``refs`` are ``(text, value, dash)``.
    """
    values = [v for _, _, st in rows if isinstance(st, dict) and st for v in (st["min"], st["max"], st["mean"])]
    values += [v for _, v, _ in refs]
    values = [v for v in values if v is not None and math.isfinite(v)]
    lo = domain[0] if domain[0] is not None else min(values + [0.0])
    hi = domain[1] if domain[1] is not None else max(values + [1e-12])
    lo, hi = min([lo] + values), max([hi] + values)
    if hi <= lo:
        hi = lo + 1.0
    left = 14 + max([svg.text_width(r[0], svg.FONT) for r in rows] + [30])  # scenario names in full
    width = max(width, left + 300)
    bar, gap = 14, 8
    top = 10
    plot_h = len(rows) * (bar + gap)
    sx = svg.Scale(lo, hi, left, width - 52)  # room for the value label after the longest bar
    out = svg.x_axis(sx, top + plot_h + 4, svg.nice_ticks(lo, hi, 5), grid_to=top)
    base = sx(max(lo, min(0.0, hi)))
    for r, (name, col, st) in enumerate(rows):
        y = top + r * (bar + gap)
        out.append(svg.text(left - 6, y + bar - 3, name, anchor="end", size=svg.FONT))
        if not isinstance(st, dict) or not st:
            out.append(svg.text(left + 3, y + bar - 3, _missing(st), size=svg.FONT - 2, fill=svg.GREY))
            continue
        x1 = sx(st["mean"])
        title = (f"{name}: mean {svg.fmt_value(st['mean'])}, sd {svg.fmt_value(st['sd'])}, "
                 f"min {svg.fmt_value(st['min'])}, max {svg.fmt_value(st['max'])}")
        out.append(svg.rect(min(base, x1), y, abs(x1 - base), bar, col, title=title))
        ya = y + bar / 2
        out.append(svg.line(sx(st["min"]), ya, sx(st["max"]), ya, svg.INK, 1.2))
        for v in (st["min"], st["max"]):
            out.append(svg.line(sx(v), ya - 4, sx(v), ya + 4, svg.INK, 1.2))
        out.append(svg.text(max(base, x1, sx(st["max"])) + 4, y + bar - 3, svg.fmt_value(st["mean"]),
                            size=svg.FONT - 2, fill=svg.GREY))
    for text, value, dash in refs:
        x = sx(value)
        out.append(svg.line(x, top - 4, x, top + plot_h, svg.ORIGINAL_COLOUR, 1.6, dash))
    y = top + plot_h + 30
    out.append(svg.text(left, y, axis, size=svg.FONT - 1, fill=svg.GREY))
    for text, value, dash in refs:
        y += 15
        out.append(svg.line(left, y - 4, left + 22, y - 4, svg.ORIGINAL_COLOUR, 1.6, dash))
        out.append(svg.text(left + 28, y, f"{text}: {svg.fmt_value(value)}", size=svg.FONT - 1))
    return svg.svg(width, y + 8, out, label=label)
