"""The report's charts, drawn with the primitives of :mod:`infoloss.report.svg`.

Each function returns one ``<svg>`` (as Markup).  Sizes follow the text:
margins are computed from the estimated widths of the labels, so names are
never cut and labels never overlap; heights are bounded (a chart of many
variables shows the rows it is given, and callers pass the most changed).
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

from markupsafe import Markup

from .numbers import number, percent, short
from .svg import (
    ASCENT, LABEL_CAP, esc, DIVERGING, FONT, GREY, INK, LIGHT, LOSS_RAMP, ORIGINAL_COLOUR, Scale, _mix, _n, _short, axis_label_width,
    LINE_HEIGHT, colour, fmt_value, ink_on, label_column, label_lines, legend_width, line, marker, nice_ticks,
    polyline, ramp, rect, svg, swatch_legend, text, text_width, wrap_label, x_axis, y_axis,
)

Series = tuple[str, str, Sequence[float | None]]


def _row_labels(names: Sequence[str], row: float) -> tuple[float, list[list[str]], list[float]]:
    """A column of row labels: its width (the widest name up to :data:`~infoloss.report.svg.LABEL_CAP`), each
    name's lines (a longer name wraps, never cut at its start) and each row's height (at least ``row``)."""
    col = label_column(names)
    lines = [wrap_label(n, col) for n in names]
    heights = [max(row, LINE_HEIGHT * len(ls) + 5) for ls in lines]
    return col, lines, heights


def _tops(top: float, heights: Sequence[float]) -> list[float]:
    out, y = [], top
    for h in heights:
        out.append(y)
        y += h
    return out


# ---------------------------------------------------------------------------
# values per variable: bars (one series) or a dot plot (several)
# ---------------------------------------------------------------------------
def grouped_bars(
    rows: Sequence[str],
    series: Sequence[Series],
    *,
    label: str,
    domain: tuple[float | None, float | None] = (0.0, None),
    width: float = 640,
    value_fmt: Callable[[float], str] = fmt_value,
    indices: Sequence[int] | None = None,
    blank: Sequence[str] | None = None,
) -> Markup:
    """Values per row (variable) and series (scenario): bars for one series, a dot plot for several.

    The height does not grow with the number of series: several series
    share one row, each with its own marker shape.  ``blank``: per row, the
    text of a row without a value in the one-series bars (default "not
    computed"; e.g. "withheld" in safe mode).
    """
    if len(series) > 1:
        return dot_plot(rows, series, label=label, domain=domain, width=width, value_fmt=value_fmt, indices=indices)
    name, col, vals = series[0] if series else ("", colour(0), [])
    bar, row = 12, 18
    names_w, lines, heights = _row_labels(rows, row)
    left = names_w + 12
    values = [v for v in vals if v is not None and math.isfinite(v)]
    lo, hi = _domain(values, domain)
    label_w = max([text_width(value_fmt(v), FONT) for v in values] + [text_width("not computed", FONT)]
                  + [text_width(b, FONT) for b in blank or ()])
    width = max(width, left + label_w + 130)
    sx = Scale(lo, hi, left, width - label_w - 10)
    top = 8
    ys = _tops(top, heights)
    height = top + sum(heights) + 24
    out: list[str] = []
    ticks = nice_ticks(lo, hi, 5)
    out += x_axis(sx, height - 20, ticks, grid_to=top)
    for r, rname in enumerate(rows):
        y = ys[r] + (heights[r] - bar) / 2
        out.append(label_lines(left - 6, y + bar - 2, lines[r], full=rname))
        v = vals[r] if r < len(vals) else None
        if v is None or not math.isfinite(v):
            out.append(text(left + 3, y + bar - 2, blank[r] if blank and r < len(blank) else "not computed",
                            fill=GREY))
            continue
        x0, x1 = sx(max(lo, min(0.0, hi))), sx(v)
        out.append(rect(min(x0, x1), y, abs(x1 - x0), bar, col, title=f"{rname} · {name}: {value_fmt(v)}"))
        out.append(text(max(x0, x1) + 4, y + bar - 2, value_fmt(v), fill=GREY))
    return svg(width, height, out, label=label)


def dot_plot(
    rows: Sequence[str],
    series: Sequence[Series],
    *,
    label: str,
    domain: tuple[float | None, float | None] = (0.0, None),
    width: float = 640,
    value_fmt: Callable[[float], str] = fmt_value,
    indices: Sequence[int] | None = None,
) -> Markup:
    """One row per variable, one marker per scenario (shape and colour), a shared axis.

    The scenarios' markers are dodged vertically within a row (first
    scenario highest), so equal values stay visible; a row is at most about
    44 pixels high whatever the number of scenarios.  With more than four
    scenarios the markers have no hover text (the caller's data table has
    the numbers), which keeps large pages small.
    """
    idx = list(indices) if indices is not None else list(range(len(series)))
    k_series = len(series)
    dodge = min(3.4, 30.0 / max(k_series, 1))  # each scenario a little lower than the previous one
    row = max(FONT + 7, 10 + dodge * k_series)
    names_w, lines, heights = _row_labels(rows, row)
    left = names_w + 12
    width = max(width, left + 220, legend_width([(s[0], s[1]) for s in series]) + 16)
    legend, lh = swatch_legend([(s[0], s[1]) for s in series], 8, 16, width=width - 16, shapes=idx)
    top = lh + 10
    values = [v for _, _, vals in series for v in vals if v is not None and math.isfinite(v)]
    lo, hi = _domain(values, domain)
    sx = Scale(lo, hi, left + 6, width - 16)
    ys = _tops(top, heights)
    height = top + sum(heights) + 26
    out = list(legend)
    out += x_axis(sx, height - 22, nice_ticks(lo, hi, 5), grid_to=top)
    for r, rname in enumerate(rows):
        y = ys[r] + heights[r] / 2
        if r % 2:
            out.append(rect(left, ys[r], width - 16 - left, heights[r], "#000", extra=' fill-opacity="0.04"'))
        out.append(label_lines(left - 6, y + 4, lines[r], full=rname))
        for k, (sname, col, vals) in enumerate(series):
            v = vals[r] if r < len(vals) else None
            if v is None or not math.isfinite(v):
                continue
            dy = (k - (k_series - 1) / 2) * dodge
            tip = f"{rname} · {sname}: {value_fmt(v)}" if k_series <= 4 else None
            out.append(marker(idx[k], sx(v), y + dy, 4.2, col, title=tip))
    return svg(width, height, out, label=label)


def _domain(values: Sequence[float], domain: tuple[float | None, float | None]) -> tuple[float, float]:
    lo = domain[0] if domain[0] is not None else min(list(values) + [0.0])
    lo = min([lo] + list(values))
    hi = domain[1] if domain[1] is not None else max(list(values) + [0.0])
    hi = max([hi] + list(values))
    if hi <= lo:
        hi = lo + 1.0
    return lo, hi


# ---------------------------------------------------------------------------
# heat maps
# ---------------------------------------------------------------------------
def heatmap(
    names: Sequence[str],
    cells: dict[tuple[int, int], float],
    *,
    label: str,
    title: str,
    lo: float,
    hi: float,
    diverging: bool = False,
    reverse: bool = False,
    value_fmt: Callable[[float], str] | None = None,
    size: float | None = None,
    legend_text: tuple[str, str] | None = None,
    titles: bool = True,
    withheld: set[tuple[int, int]] | frozenset = frozenset(),
) -> Markup:
    """A lower-triangle (or full) matrix of coloured cells; ``cells[(i, j)]`` with i row, j column.

    ``withheld``: cells without a value because safe mode withholds it (their hover text says so).

    ``reverse`` makes high values light (for utilities, where higher is
    better).  The colour legend is drawn with the very function that colours
    the cells, from ``lo`` (left) to ``hi`` (right); ``legend_text`` gives
    the labels of its two ends.  Values are printed in the cells when every
    value fits its cell, else in none (never rounded to 0:
    :func:`infoloss.report.numbers.short`).
    ``titles=False`` leaves out the cells' hover texts (the caller shows the
    numbers in a table), which keeps pages of many maps small.
    """
    scale = max(abs(lo), abs(hi), 1e-300)
    fmt = value_fmt or (lambda v: short(v, scale))
    p = len(names)

    def fill_of(v: float) -> str:
        t = (v - lo) / (hi - lo) if hi > lo else 0.0
        if diverging:
            return ramp(DIVERGING, t)
        return ramp(LOSS_RAMP, 1 - t if reverse else t)

    cell = size or max(FONT + 3.0, min(44.0, 440.0 / max(p, 1)))
    # names longer than the label column are shortened ("…"), the full name their tooltip (and the data table's
    # row): a long name made the map wider than a narrow page, which shrank all its text below 11 px
    shown = [_fit(n, LABEL_CAP) for n in names]
    label_w = max([text_width(n, FONT) for n in shown] + [10.0])
    left = label_w + 10
    top = 24
    grid = cell * p
    bottom = label_w * math.sin(math.radians(60)) + 14
    a, b = legend_text or (fmt(lo), fmt(hi))
    legend_w = 150.0
    # the title (a scenario's name, never shortened) wraps over the map's width
    title_lines = wrap_label(title, max(left + grid, 300.0) / 1.12 - 8, max_lines=8)
    top += LINE_HEIGHT * (len(title_lines) - 1)
    width = max(left + grid + 10, max(text_width(t, FONT, bold=True) for t in title_lines) + 12,
                left + legend_w + text_width(b, FONT) / 2 + 8, 200)
    height = top + grid + bottom + 40
    out = [label_lines(4, 15 + LINE_HEIGHT * (len(title_lines) - 1) / 2, title_lines, full=title, anchor="start")
           .replace("<text ", '<text font-weight="bold" ', 1)]
    # numbers in all cells or in none: printing only those that fit labelled the 0s and 1s of a dense map and
    # left its informative cells blank (the hover texts and the data table have every value)
    numbered = all(text_width(fmt(v), FONT) <= cell - 3 for v in cells.values() if v is not None and math.isfinite(v))
    for (i, j), v in cells.items():
        ok = v is not None and math.isfinite(v)
        fill = fill_of(v) if ok else "#f0f0f0"
        x, y = left + j * cell, top + i * cell
        missing = "withheld" if (i, j) in withheld else "not computed"
        tip = (f"{names[i]} × {names[j]}: " + (fmt(v) if ok else missing)) if titles else None
        out.append(rect(x, y, cell - 1, cell - 1, fill, title=tip))
        if ok and numbered:
            s = fmt(v)
            if text_width(s, FONT) <= cell - 3:
                out.append(text(x + (cell - 1) / 2, y + cell / 2 + 3.5, s, anchor="middle", fill=ink_on(fill)))
    for i, n in enumerate(names):
        tip = f"<title>{esc(n)}</title>" if shown[i] != str(n) else ""
        out.append(text(left - 4, top + i * cell + cell / 2 + 4, shown[i], anchor="end").replace(">", ">" + tip, 1))
        x = left + i * cell + cell / 2 + 4
        out.append(text(x, top + grid + 6, shown[i], anchor="end", rotate=-60).replace(">", ">" + tip, 1))
    ly = height - 30
    steps = 16
    for s in range(steps):
        v = lo + (hi - lo) * s / (steps - 1)
        out.append(rect(left + s * legend_w / steps, ly, legend_w / steps + 0.4, 9, fill_of(v)))
    out.append(rect(left, ly, legend_w, 9, "none", stroke="#999"))
    out.append(text(left, ly + 22, a, anchor="middle" if text_width(a) / 2 < left else "start", fill=GREY))
    out.append(text(left + legend_w, ly + 22, b, anchor="middle", fill=GREY))
    return svg(width, height, out, label=label)


def _fit(name: object, width: float) -> str:
    """``name``, shortened with "…" to at most ``width`` pixels (heat-map labels; the full name is their tooltip).

    >>> _fit("income", 100), _fit("income_reported_by_the_household_reference_person", 100)
    ('income', 'income_reporte…')
    """
    s = str(name)
    if text_width(s, FONT) <= width:
        return s
    while s and text_width(s + "…", FONT) > width:
        s = s[:-1]
    return s + "…"


# ---------------------------------------------------------------------------
# distributions of continuous variables
# ---------------------------------------------------------------------------
def _wrap(s: str, width: float) -> list[str]:
    words, lines, cur = s.split(" "), [], ""
    for w in words:
        trial = f"{cur} {w}".strip()
        if cur and text_width(trial, FONT) > width:
            lines.append(cur)
            cur = w
        else:
            cur = trial
    return lines + ([cur] if cur else [])


def _curve(points: Sequence[tuple[float, float]], sx: Scale, sy: Scale, col: str, width: float,
           dash: str | None = None) -> str:
    """A density curve as a compact path."""
    d = "M" + " ".join(f"{_n(sx(x))} {_n(sy(y))}" for x, y in points)
    extra = f' stroke-dasharray="{dash}"' if dash else ""
    return f'<path d="{d}" fill="none" stroke="{col}" stroke-width="{width:g}"{extra}/>'


def _percent(t: float) -> str:
    return f"{short(t)}%"


def histogram_panel(
    *,
    title: str,
    xlim: tuple[float, float],
    ymax: float,
    orig_bins: Sequence[tuple[float, float, float, int]],
    prot_bins: Sequence[tuple[float, float, float, int]] | None,
    prot_colour: str,
    orig_curve: Sequence[tuple[float, float]] | None = None,
    prot_curve: Sequence[tuple[float, float]] | None = None,
    note: str = "",
    label: str,
    width: float = 260,
    height: float = 190,
) -> Markup:
    """Original histogram as a grey area, the protected one as a coloured step line, with density curves.

    Bins are ``(left, right, height, count)``; heights are in % of records
    per standard bar width (densities), so merged (wider) bins keep the
    shape.  The counts of the bars are in ``data-counts`` (one per bar), unless a bar's count is None (safe mode:
    a file whose counts are not shown).
    """
    width = max(width, text_width(title, FONT, bold=True) + 12)
    yt = nice_ticks(0, ymax if ymax > 0 else 1.0, 3)
    left = axis_label_width(yt, _percent) + 10
    notes = _wrap(note, width - 12) if note else []
    top, bottom = 22, 30 + 14 * len(notes)
    height += 14 * len(notes)
    sx = Scale(xlim[0], xlim[1], left, width - 10)
    sy = Scale(0, ymax if ymax > 0 else 1.0, height - bottom, top)
    out = [text(4, 15, title, weight="bold")]
    out += x_axis(sx, height - bottom, nice_ticks(xlim[0], xlim[1], 4))
    out += y_axis(sy, left, yt, grid_to=width - 10, fmt=_percent)
    if orig_bins:
        out.append(f'<path d="{_step_path(orig_bins, sx, sy)}Z" fill="#cfcfcf"{_data_counts(orig_bins)}/>')
    if prot_bins:
        out.append(f'<path d="{_step_path(prot_bins, sx, sy)}" fill="none" stroke="{prot_colour}" '
                   f'stroke-width="1.5"{_data_counts(prot_bins)}/>')
    if orig_curve:
        out.append(_curve(orig_curve, sx, sy, ORIGINAL_COLOUR, 1.2, "4,2"))
    if prot_curve:
        out.append(_curve(prot_curve, sx, sy, prot_colour, 1.6))
    for k, ln in enumerate(notes):
        out.append(text(4, height - 6 - 14 * (len(notes) - 1 - k), ln, fill=GREY))
    return svg(width, height, out, label=label)


def _data_counts(bins: Sequence[tuple[float, float, float, int | None]]) -> str:
    """`` data-counts="..."`` with the bars' counts, or nothing when a count is None (not shown)."""
    if any(c is None for _, _, _, c in bins):
        return ""
    return ' data-counts="{}"'.format(" ".join(str(int(c)) for _, _, _, c in bins))


def _step_path(bins: Sequence[tuple[float, float, float, int]], sx: Scale, sy: Scale) -> str:
    """A histogram's outline as a compact path: up and across each bar, down at the end."""
    base = sy(0)
    d = [f"M{_n(sx(bins[0][0]))} {_n(base)}"]
    last = None
    for a, b, h, _ in bins:
        if last is not None and abs(sx(a) - last) > 0.05:
            d.append(f"H{_n(sx(a))}")
        d.append(f"V{_n(sy(h))}H{_n(sx(b))}")
        last = sx(b)
    d.append(f"V{_n(base)}")
    return "".join(d)


def density_panel(
    *,
    title: str,
    xlim: tuple[float, float],
    curves: Sequence[tuple[str, str, Sequence[tuple[float, float]], bool]],
    label: str,
    width: float = 300,
    height: float = 200,
    indices: Sequence[int | None] | None = None,
) -> Markup:
    """Density curves of the original (dashed) and the scenarios on one axis.

    Each scenario's curve carries its marker at its peak (``indices``: the
    scenarios' numbers, None for the original), and the legend shows them.
    """
    idx = list(indices) if indices is not None else [None] + list(range(len(curves) - 1))
    items = [(name, col) for name, col, _, _ in curves]
    width = max(width, legend_width(items) + 12, text_width(title, FONT, bold=True) + 12)
    legend, lh = swatch_legend(items, 6, 34, width=width - 12, dashed=[d for *_, d in curves], shapes=idx)
    top = 22 + lh + 6
    ymax = max([y for _, _, pts, _ in curves for _, y in pts] + [0.0]) * 1.08
    yt = nice_ticks(0, ymax if ymax > 0 else 1.0, 3)
    left = axis_label_width(yt, _percent) + 10
    height = max(height, top + 140)
    sx = Scale(xlim[0], xlim[1], left, width - 10)
    sy = Scale(0, ymax if ymax > 0 else 1.0, height - 30, top)
    out = [text(4, 15, title, weight="bold")] + legend
    out += x_axis(sx, height - 30, nice_ticks(xlim[0], xlim[1], 4))
    out += y_axis(sy, left, yt, grid_to=width - 10, fmt=_percent)
    for (name, col, pts, dashed), k in zip(curves, idx):
        if not pts:
            continue
        out.append(polyline([(sx(x), sy(y)) for x, y in pts], col, 1.3 if dashed else 1.6, "4,2" if dashed else None))
        if k is not None:
            x, y = max(pts, key=lambda p: p[1])
            out.append(marker(k, sx(x), sy(y), 4.5, col, title=name))
    return svg(width, height, out, label=label)


def box_panel(
    *,
    title: str,
    boxes: Sequence[dict],
    xlim: tuple[float, float],
    label: str,
    width: float = 340,
    note: str = "",
) -> Markup:
    """Horizontal box plots, one row per file: box = quartiles, line = median, whiskers, outliers, mean (◆)."""
    row = 24
    names_w, lines, heights = _row_labels([b["name"] for b in boxes], row)
    left = names_w + 12
    width = max(width, left + 200, text_width(title, FONT, bold=True) + 12)
    notes = _wrap(note, width - 12) if note else []
    top = 22
    ys = _tops(top, heights)
    height = top + sum(heights) + 34 + 14 * len(notes)
    sx = Scale(xlim[0], xlim[1], left, width - 12)
    axis_y = top + sum(heights) + 4
    out = [text(4, 15, title, weight="bold")]
    out += x_axis(sx, axis_y, nice_ticks(xlim[0], xlim[1], 4), grid_to=top)

    def clip(v: float) -> float:
        return sx(min(max(v, xlim[0]), xlim[1]))

    for i, b in enumerate(boxes):
        y = ys[i] + heights[i] / 2
        col = b["colour"]
        out.append(label_lines(left - 6, y + 4, lines[i], full=b["name"]))
        q1, med, q3 = b["q1"], b["median"], b["q3"]
        w0, w1 = b["whiskers"]
        out.append(line(clip(w0), y, clip(q1), y, col, 1.2))
        out.append(line(clip(q3), y, clip(w1), y, col, 1.2))
        out.append(line(clip(w0), y - 5, clip(w0), y + 5, col, 1.2))
        out.append(line(clip(w1), y - 5, clip(w1), y + 5, col, 1.2))
        out.append(rect(clip(q1), y - 8, clip(q3) - clip(q1), 16, _mix(col, "#ffffff", 0.7), stroke=col,
                        title=b.get("tip", "")))
        out.append(line(clip(med), y - 8, clip(med), y + 8, col, 2))
        ticks = "".join(f"M{_n(sx(v))} {_n(y - 3)}v6" for v in b.get("outliers", ()) if xlim[0] <= v <= xlim[1])
        if ticks:
            out.append(f'<path class="outliers" d="{ticks}" stroke="{col}" stroke-width="1"/>')
        if b.get("mean") is not None and xlim[0] <= b["mean"] <= xlim[1]:
            m = sx(b["mean"])
            out.append(f'<path d="M{_n(m)} {_n(y - 4)}l4 4l-4 4l-4 -4z" fill="{INK}"/>')
    for k, ln in enumerate(notes):
        out.append(text(4, height - 6 - 14 * (len(notes) - 1 - k), ln, fill=GREY))
    return svg(width, height, out, label=label)


# ---------------------------------------------------------------------------
# mosaic plots
# ---------------------------------------------------------------------------
def mosaic_columns(
    columns: Sequence[tuple[str, Sequence[tuple[str, int, str]]]],
    legend: Sequence[tuple[str, str]],
    *,
    title: str,
    label: str,
    marks: Sequence[tuple[str, str]] = (),
    col_width: float = 50,
    height: float = 250,
    max_width: float = 740,
    titles: bool = True,
) -> Markup:
    """Stacked 100 % columns, one per file (the Practice Guide's Fig. 19).

    ``columns`` = [(column title, [(category label, count, colour), ...])]:
    each column is split in proportion to its counts, top to bottom.
    ``marks`` = [(colour, text)] per column: a colour bar under the column
    (the file's colour) and a short text above it (e.g. how much it
    changed; staggered on two lines when the columns are narrow).  The
    legend goes right of the columns, or under them when that is wider
    than ``max_width``.
    """
    k = len(columns)
    gap = 8.0
    mark_w = max([text_width(t, FONT) for _, t in marks] + [0.0])
    col_width = min(col_width, max(28.0, (max_width - 230) / max(k, 1) - gap))
    stagger = mark_w > col_width + gap - 4
    top = 24 + (2 if stagger else 1) * (FONT + 4)
    title_w = max([text_width(t, FONT) for t, _ in columns] + [10.0])
    bottom = title_w * math.sin(math.radians(40)) + 24
    left = max(8.0, title_w * math.cos(math.radians(40)) - col_width / 2)
    plot_h = height - 34 - 62
    cols_right = left + k * (col_width + gap)
    legend_items = list(legend)  # never shortened: the chart grows to hold the longest label
    item_w = max([(18 + text_width(lbl, FONT)) if col else text_width(lbl, FONT, bold=True)
                  for lbl, col in legend_items] + [40.0])
    beside = cols_right + 14 + item_w <= max_width
    row_h = FONT + 5
    out = [text(4, 15, title, weight="bold")]
    for c, (ctitle, segs) in enumerate(columns):
        x = left + c * (col_width + gap)
        total = sum(n for _, n, _ in segs)
        y = top
        for lbl, n, col in segs:
            if total <= 0 or n <= 0:
                continue
            h = plot_h * n / total
            out.append(rect(x, y, col_width, h, col, stroke="#ffffff", count=n,
                            title=f"{ctitle} · {lbl}: {number(n)} ({percent(n / total)})" if titles else None))
            pct = percent(n / total).replace(" %", "%")  # the one rule: 99.9 %, not 100 %, for a share short of all
            if h >= FONT + 3 and text_width(pct, FONT) <= col_width - 2:
                out.append(text(x + col_width / 2, y + h / 2 + 4, pct, anchor="middle", fill=ink_on(col)))
            y += h
        if total <= 0:
            out.append(rect(x, top, col_width, plot_h, "#f4f4f4", stroke=LIGHT))
            out.append(text(x + col_width / 2, top + plot_h / 2, "none", anchor="middle", fill=GREY))
        if c < len(marks):
            mcol, mtext = marks[c]
            out.append(rect(x, top + plot_h + 2, col_width, 4, mcol))
            if mtext:
                ty = top - 5 - ((FONT + 4) if stagger and c % 2 == 1 else 0)
                out.append(text(x + col_width / 2, ty, mtext, anchor="middle", fill=GREY))
        out.append(text(x + col_width / 2 + 4, top + plot_h + 18, ctitle, anchor="end", rotate=-40))
    if beside:
        lx, ly = cols_right + 14, top
        width = lx + item_w + 8
    else:
        lx, ly = left, top + plot_h + bottom + 8
        width = max(cols_right + 8, min(max_width, item_w * 3))
    per_row = 1 if beside else max(int((width - lx) // (item_w + 10)), 1)
    # a label wider than the chart wraps (the page would otherwise scroll sideways), the full label as its tooltip
    wraps = [wrap_label(lbl, max(width - lx - 16 - 8, 120)) if per_row == 1 and col else [lbl]
             for lbl, col in legend_items]
    cy = ly
    for i, (lbl, col) in enumerate(legend_items):
        cx = lx + (i % per_row) * (item_w + 10)
        if i and i % per_row == 0:
            cy += row_h + (max(len(w) for w in wraps[i - per_row:i]) - 1) * LINE_HEIGHT
        if col is None:  # a heading (e.g. "generalised to level 2:"): no swatch, bold
            out.append(text(cx, cy + 11, lbl, weight="bold"))
            continue
        out.append(rect(cx, cy + 1, 11, 11, col, stroke="#999"))
        if len(wraps[i]) > 1:
            out.append(label_lines(cx + 16, cy + 11 + LINE_HEIGHT * (len(wraps[i]) - 1) / 2, wraps[i], full=lbl,
                                   anchor="start"))
        else:
            out.append(text(cx + 16, cy + 11, lbl))
    last = wraps[len(legend_items) - 1 - (len(legend_items) - 1) % per_row:] if legend_items else [[""]]
    legend_bottom = cy + row_h + (max(len(w) for w in last) - 1) * LINE_HEIGHT + 6
    total_h = max(top + plot_h + bottom, legend_bottom) + 4
    width = max(width, text_width(title, FONT, bold=True) + 12)
    return svg(width, total_h, out, label=label)


def mosaic_2way(
    columns: Sequence[tuple[str, int, Sequence[tuple[str, int, str]]]],
    *,
    title: str,
    label: str,
    width: float = 300,
    height: float = 230,
    xlabel: str = "",
) -> Markup:
    """A two-way mosaic: column widths ∝ the first variable's counts, heights ∝ the second's within each column.

    ``columns`` = [(category of A, count, [(category of B, count, colour), ...])].
    """
    width = max(width, text_width(title, FONT, bold=True) + 12)
    labels = [_short(c[0], 14) for c in columns if c[1] > 0]
    lab_w = max([text_width(s, FONT) for s in labels] + [10.0])
    lab_h = lab_w * math.sin(math.radians(60))
    # a label turned by 60° reaches left of its anchor by its length's cos 60° and its glyphs' height's sin 60°
    # (the first column may be a sliver at the left edge): the margin holds both
    top, left = 22, max(6.0, lab_w * math.cos(math.radians(60)) + ASCENT * math.sin(math.radians(60)) - 2)
    xlines = wrap_label(xlabel, width - 12, max_lines=2) if xlabel else []
    bottom = lab_h + 12 + (FONT + 6 + LINE_HEIGHT * (len(xlines) - 1) if xlabel else 0)
    height = max(height, top + 120 + bottom)
    plot_w = width - left - 6
    plot_h = height - top - bottom
    gap = 2.0
    total = sum(n for _, n, _ in columns if n > 0)
    usable = plot_w - gap * max(len([c for c in columns if c[1] > 0]) - 1, 0)
    out = [text(4, 15, title, weight="bold")]
    x = left
    last_label = -math.inf
    for clabel, n, segs in columns:
        if n <= 0 or total <= 0:
            continue
        w = usable * n / total
        sub = sum(m for _, m, _ in segs if m > 0)
        y = top
        for blabel, m, col in segs:
            if m <= 0 or sub <= 0:
                continue
            h = plot_h * m / sub
            out.append(rect(x, y, w, h, col, stroke="#ffffff", count=m,
                            title=f"{clabel} × {blabel}: {number(m)} records"))
            y += h
        centre = x + w / 2
        if centre - last_label >= FONT + 2:
            short_label = _short(clabel, 14)
            tick = text(centre + 4, top + plot_h + 6, short_label, anchor="end", rotate=-60)
            if short_label != str(clabel):  # shortened: the full category as its tooltip
                tick = tick.replace(">", f"><title>{esc(clabel)}</title>", 1)
            out.append(tick)
            last_label = centre
        x += w + gap
    if xlabel:  # the variable's name, wrapped when wider than the chart (never past its left edge)
        out.append(label_lines(width - 6, height - 4 - LINE_HEIGHT * (len(xlines) - 1) / 2, xlines, full=xlabel,
                               fill=GREY))
    return svg(width, height, out, label=label)


def ci_chart(
    rows: Sequence[tuple[str, tuple[float, float, float] | None,
                         Sequence[tuple[str, str, tuple[float, float, float] | None]]]],
    *,
    label: str,
    width: float = 640,
    xlabel: str = "",
    indices: Sequence[int] | None = None,
) -> Markup:
    """Means with confidence intervals, standardised: rows = variables, original as a grey band.

    Each row: (name, original (lo, est, hi), [(scenario, colour, (lo, est, hi)), ...]) in
    units of the original's standard deviation, centred on the original mean.
    Each scenario's estimate is drawn with its marker shape.
    """
    k = max([len(r[2]) for r in rows] + [1])
    idx = list(indices) if indices is not None else list(range(k))
    step = 9 if k <= 4 else 6
    row = 12 + step * k
    names_w, lines, heights = _row_labels([r[0] for r in rows], row)
    left = names_w + 12
    width = max(width, left + 240)
    top = 10
    ys = _tops(top, heights)
    height = top + sum(heights) + 44
    values = [v for _, o, sc in rows for t in ([o] + [s[2] for s in sc]) if t for v in t if math.isfinite(v)]
    m = max([abs(v) for v in values] + [0.05]) * 1.1
    sx = Scale(-m, m, left, width - 20)
    out: list[str] = []
    bottom = top + sum(heights)
    out += x_axis(sx, bottom, nice_ticks(-m, m, 6), grid_to=top,
                  fmt=lambda t: ("+" if t > 0 else "") + short(t) if t else "0")
    out.append(line(sx(0), top, sx(0), bottom, GREY, 1))
    for r, (name, o, sc) in enumerate(rows):
        y0 = ys[r] + (heights[r] - row) / 2 + 5
        out.append(label_lines(left - 6, y0 + row / 2, lines[r], full=name))
        if o:
            out.append(rect(sx(o[0]), y0, sx(o[2]) - sx(o[0]), row - 10, "#e3e3e3", title=f"{name}: original CI"))
        for s, (sname, col, t) in enumerate(sc):
            y = y0 + 6 + s * step
            if not t:
                continue
            out.append(line(sx(t[0]), y, sx(t[2]), y, col, 1.6))
            out.append(marker(idx[s] if s < len(idx) else s, sx(t[1]), y, 3.6, col, title=f"{name} · {sname}"))
    if xlabel:
        out.append(text((left + width - 20) / 2, height - 6, xlabel, anchor="middle", fill=GREY))
    return svg(width, height, out, label=label)
