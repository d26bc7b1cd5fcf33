"""Small hand-written SVG charts for the HTML report.

Every chart is a string of inline SVG: no JavaScript, text stays text (so
the page prints to PDF and can be searched), and all text passes through
:func:`esc`.  Charts take aggregated numbers only (bins, quantiles, table
counts, measure values).  Counts drawn as areas carry a ``data-count``
attribute so that tests can check the safe mode's minimum cell size.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

from markupsafe import Markup, escape

FONT = 11
GREY = "#6b6b6b"
LIGHT = "#e6e6e6"
INK = "#222"
#: colour of the original file in every chart
ORIGINAL_COLOUR = "#4d4d4d"
#: scenario colours (Okabe & Ito's colour-blind safe palette, then Tol's)
SCENARIO_COLOURS = (
    "#E69F00", "#0072B2", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#882255", "#44AA99", "#999933", "#AA4499",
)
#: colours of nominal categories (Tol's muted palette + light variants)
CATEGORY_COLOURS = (
    "#88CCEE", "#CC6677", "#DDCC77", "#117733", "#332288", "#AA4499", "#44AA99", "#999933",
    "#882255", "#661100", "#6699CC", "#E69F00", "#B3DE69", "#FDB462", "#BC80BD", "#80B1D3",
)
OTHER_COLOUR = "#bdbdbd"
MISSING_COLOUR = "#ffffff"


def esc(text: object) -> str:
    return str(escape(str(text)))


def colour(i: int) -> str:
    return SCENARIO_COLOURS[i % len(SCENARIO_COLOURS)]


# ---------------------------------------------------------------------------
# numbers and scales
# ---------------------------------------------------------------------------
def nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """About ``n`` round tick values covering [lo, hi]."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return []
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0)
    raw = (hi - lo) / max(n, 1)
    mag = 10.0 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.ceil(lo / step - 1e-9) * step
    ticks = []
    t = start
    while t <= hi + step * 1e-9:
        ticks.append(0.0 if abs(t) < step * 1e-9 else t)
        t = start + len(ticks) * step
    return ticks


def fmt_tick(x: float) -> str:
    """Short axis label: 1.5M, 250k, 0.25, 3."""
    ax = abs(x)
    if ax >= 1e12:
        return f"{x:.2g}"
    if ax >= 1e9:
        return f"{x / 1e9:g}G"
    if ax >= 1e6:
        return f"{x / 1e6:g}M"
    if ax >= 1e4:
        return f"{x / 1e3:g}k"
    return f"{x:.4g}"


def fmt_value(x: float | None, digits: int = 3) -> str:
    """A value for a label: 3 significant digits, thousands grouped, powers of ten from 10^7.

    >>> fmt_value(1234.5), fmt_value(0.012345), fmt_value(2.1e14)
    ('1,234', '0.0123', '2.1e+14')
    """
    if x is None or not math.isfinite(x):
        return "–"
    if x == 0:
        return "0"
    if 10**digits <= abs(x) < 1e7:
        return f"{round(x):,}"
    return f"{x:.{digits}g}"


class Scale:
    """Linear map from data [d0, d1] to pixels [p0, p1]."""

    def __init__(self, d0: float, d1: float, p0: float, p1: float) -> None:
        if not d1 > d0:
            d1 = d0 + (abs(d0) or 1.0)
        self.d0, self.d1, self.p0, self.p1 = d0, d1, p0, p1

    def __call__(self, x: float) -> float:
        return self.p0 + (x - self.d0) * (self.p1 - self.p0) / (self.d1 - self.d0)


def _n(x: float) -> str:
    """A pixel coordinate with 1 decimal (small files, and no exact data values)."""
    return f"{x:.1f}".rstrip("0").rstrip(".")


def svg(width: float, height: float, body: Iterable[str], *, label: str, cls: str = "chart") -> Markup:
    """Wrap chart elements in an ``<svg>`` with a title for screen readers."""
    return Markup(
        f'<svg class="{cls}" width="{_n(width)}" height="{_n(height)}" '
        f'viewBox="0 0 {_n(width)} {_n(height)}" role="img" aria-label="{esc(label)}"><title>{esc(label)}</title>'
        + "".join(body)
        + "</svg>"
    )


def text(x: float, y: float, s: object, *, anchor: str = "start", size: int = FONT, fill: str = INK,
         weight: str | None = None, rotate: float | None = None, cls: str | None = None) -> str:
    extra = f' font-weight="{weight}"' if weight else ""
    extra += f' transform="rotate({rotate:g} {_n(x)} {_n(y)})"' if rotate else ""
    extra += f' class="{cls}"' if cls else ""
    return (f'<text x="{_n(x)}" y="{_n(y)}" font-size="{size}" text-anchor="{anchor}" fill="{fill}"{extra}>'
            f"{esc(s)}</text>")


def rect(x: float, y: float, w: float, h: float, fill: str, *, title: str | None = None, stroke: str | None = None,
         count: int | None = None, extra: str = "") -> str:
    attrs = f' stroke="{stroke}" stroke-width="0.6"' if stroke else ""
    attrs += f' data-count="{int(count)}"' if count is not None else ""
    inner = f"<title>{esc(title)}</title>" if title else ""
    return (f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(max(w, 0))}" height="{_n(max(h, 0))}" fill="{fill}"{attrs}{extra}>'
            f"{inner}</rect>" if inner else
            f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(max(w, 0))}" height="{_n(max(h, 0))}" fill="{fill}"{attrs}{extra}/>')


def line(x1: float, y1: float, x2: float, y2: float, stroke: str = GREY, width: float = 1, dash: str | None = None) -> str:
    d = f' stroke-dasharray="{dash}"' if dash else ""
    return (f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" stroke="{stroke}" '
            f'stroke-width="{width:g}"{d}/>')


def polyline(points: Sequence[tuple[float, float]], stroke: str, width: float = 1.5, dash: str | None = None,
             fill: str = "none") -> str:
    d = f' stroke-dasharray="{dash}"' if dash else ""
    pts = " ".join(f"{_n(x)},{_n(y)}" for x, y in points)
    return f'<polyline points="{pts}" fill="{fill}" stroke="{stroke}" stroke-width="{width:g}"{d}/>'


def x_axis(scale: Scale, y: float, ticks: Sequence[float], *, grid_to: float | None = None, fmt=fmt_tick) -> list[str]:
    out = [line(scale.p0, y, scale.p1, y, GREY)]
    for t in ticks:
        x = scale(t)
        if grid_to is not None:
            out.append(line(x, grid_to, x, y, LIGHT))
        out.append(line(x, y, x, y + 3, GREY))
        out.append(text(x, y + 13, fmt(t), anchor="middle", size=FONT - 1, fill=GREY))
    return out


def y_axis(scale: Scale, x: float, ticks: Sequence[float], *, grid_to: float | None = None, fmt=fmt_tick) -> list[str]:
    out = [line(x, scale.p0, x, scale.p1, GREY)]
    for t in ticks:
        y = scale(t)
        if grid_to is not None:
            out.append(line(x, y, grid_to, y, LIGHT))
        out.append(line(x - 3, y, x, y, GREY))
        out.append(text(x - 5, y + 3.5, fmt(t), anchor="end", size=FONT - 1, fill=GREY))
    return out


def swatch_legend(items: Sequence[tuple[str, str]], x: float, y: float, *, width: float, dashed: Sequence[bool] = ()) -> tuple[list[str], float]:
    """A wrapped legend of coloured squares; returns the elements and the height used."""
    out: list[str] = []
    cx, cy = x, y
    for i, (name, col) in enumerate(items):
        w = 18 + 6.2 * min(len(name), 40)
        if cx + w > x + width and cx > x:
            cx, cy = x, cy + 15
        if dashed and i < len(dashed) and dashed[i]:
            out.append(line(cx, cy - 4, cx + 11, cy - 4, col, 2, "3,2"))
        else:
            out.append(rect(cx, cy - 9, 11, 9, col))
        out.append(text(cx + 15, cy, _short(name, 40), size=FONT - 1))
        cx += w
    return out, cy - y + 15


def _short(s: str, n: int) -> str:
    s = str(s)
    return s if len(s) <= n else s[: n - 1] + "…"


# ---------------------------------------------------------------------------
# bar charts
# ---------------------------------------------------------------------------
def grouped_bars(
    rows: Sequence[str],
    series: Sequence[tuple[str, str, Sequence[float | None]]],
    *,
    label: str,
    domain: tuple[float, float | None] = (0.0, None),
    width: float = 640,
    value_fmt=fmt_value,
) -> Markup:
    """Horizontal grouped bars: one group per row (variable), one bar per series (scenario)."""
    k = max(len(series), 1)
    bar = 9 if k <= 3 else 6
    group = bar * k + 6
    left = min(12 + 6.3 * max([len(str(r)) for r in rows] + [4]), 190)
    legend, lh = swatch_legend([(s[0], s[1]) for s in series], left, 14, width=width - left)
    top = lh + 8
    plot_w = width - left - 60
    values = [v for _, _, vals in series for v in vals if v is not None and math.isfinite(v)]
    lo = domain[0] if domain[0] is not None else min(values + [0.0])
    lo = min(lo, min(values + [lo]))
    hi = domain[1] if domain[1] is not None else max(values + [0.0])
    hi = max(hi, max(values + [hi]))
    if hi <= lo:
        hi = lo + 1.0
    sx = Scale(lo, hi, left, left + plot_w)
    height = top + group * len(rows) + 24
    out = list(legend)
    ticks = nice_ticks(lo, hi, 5)
    out += x_axis(sx, height - 20, ticks, grid_to=top)
    for r, name in enumerate(rows):
        y0 = top + r * group + 3
        out.append(text(left - 6, y0 + group / 2, _short(name, 28), anchor="end", size=FONT - 1))
        for s, (sname, col, vals) in enumerate(series):
            v = vals[r] if r < len(vals) else None
            y = y0 + s * bar
            if v is None or not math.isfinite(v):
                out.append(text(left + 3, y + bar - 1.5, "not computed", size=FONT - 3, fill=GREY))
                continue
            x0, x1 = sx(max(lo, min(0.0, hi))), sx(v)
            out.append(rect(min(x0, x1), y, abs(x1 - x0), bar - 1, col, title=f"{name} · {sname}: {value_fmt(v)}"))
            out.append(text(max(x0, x1) + 3, y + bar - 1.5, value_fmt(v), size=FONT - 3, fill=GREY))
    return svg(width, height, out, label=label)


# ---------------------------------------------------------------------------
# heat maps
# ---------------------------------------------------------------------------
def _mix(c1: str, c2: str, t: float) -> str:
    a = [int(c1[i : i + 2], 16) for i in (1, 3, 5)]
    b = [int(c2[i : i + 2], 16) for i in (1, 3, 5)]
    t = min(max(t, 0.0), 1.0)
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(a, b))


def ramp(stops: Sequence[str], t: float) -> str:
    t = min(max(t, 0.0), 1.0) * (len(stops) - 1)
    i = min(int(t), len(stops) - 2)
    return _mix(stops[i], stops[i + 1], t - i)


LOSS_RAMP = ("#fff7ec", "#fdd49e", "#fc8d59", "#d7301f", "#7f0000")  # light = little loss, dark = much
DIVERGING = ("#2166ac", "#92c5de", "#f7f7f7", "#f4a582", "#b2182b")


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
    value_fmt=lambda v: f"{v:.2f}",
    size: float | None = None,
    legend_text: tuple[str, str] | None = None,
) -> Markup:
    """A lower-triangle (or full) matrix of coloured cells; ``cells[(i, j)]`` with i row, j column.

    ``reverse`` makes high values light (for utilities, where higher is better).
    """
    p = len(names)
    cell = size or max(7.0, min(26.0, 420.0 / max(p, 1)))
    left = min(12 + 6.0 * max([len(str(n)) for n in names] + [3]), 150)
    top = 20
    grid = cell * p
    bottom = min(10 + 6.0 * max([len(str(n)) for n in names] + [3]), 150)
    width = max(left + grid + 14, 240)
    height = top + grid + bottom + 34
    out = [text(left, 13, title, size=FONT, weight="bold")]
    show_values = cell >= 22
    for (i, j), v in cells.items():
        if v is None or not math.isfinite(v):
            fill = "url(#na)" if False else "#f0f0f0"
            t = None
        else:
            t = (v - lo) / (hi - lo) if hi > lo else 0.0
            if reverse:
                t = 1 - t
            fill = ramp(DIVERGING, t) if diverging else ramp(LOSS_RAMP, t)
        x, y = left + j * cell, top + i * cell
        tip = f"{names[i]} × {names[j]}: " + ("not computed" if t is None else value_fmt(v))
        out.append(rect(x, y, cell - 1, cell - 1, fill, title=tip))
        if show_values and t is not None:
            dark = (abs(t - 0.5) > 0.33) if diverging else t > 0.55
            out.append(text(x + cell / 2 - 0.5, y + cell / 2 + 3, value_fmt(v), anchor="middle", size=FONT - 3,
                            fill="#fff" if dark else INK))
    fs = FONT - 1 if cell >= 11 else FONT - 3
    for i, n in enumerate(names):
        out.append(text(left - 4, top + i * cell + cell / 2 + 3, _short(n, 22), anchor="end", size=fs))
        x = left + i * cell + cell / 2 + 3
        out.append(text(x, top + grid + 4, _short(n, 22), anchor="end", size=fs, rotate=-60))
    # colour legend
    ly = height - 22
    steps = 24
    lw = min(160.0, width - left - 10)
    for s in range(steps):
        t = s / (steps - 1)
        c = ramp(DIVERGING, t) if diverging else ramp(LOSS_RAMP, 1 - t if reverse else t)
        out.append(rect(left + s * lw / steps, ly, lw / steps + 0.3, 8, c))
    a, b = legend_text or (value_fmt(lo), value_fmt(hi))
    out.append(text(left, ly + 19, a, size=FONT - 2, fill=GREY))
    out.append(text(left + lw, ly + 19, b, anchor="end", size=FONT - 2, fill=GREY))
    return svg(width, height, out, label=label)


# ---------------------------------------------------------------------------
# distributions of continuous variables
# ---------------------------------------------------------------------------
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
    width: float = 250,
    height: float = 190,
) -> Markup:
    """Original histogram as grey bars, the protected one as a coloured step line, with density curves.

    Bins are ``(left, right, height, count)``; heights are in % of records
    per standard bar width (densities), so merged (wider) bins keep the shape.
    """
    left, right, top, bottom = 40, 8, 20, 34 + (12 if note else 0)
    sx = Scale(xlim[0], xlim[1], left, width - right)
    sy = Scale(0, ymax if ymax > 0 else 1.0, height - bottom, top)
    out = [text(left, 13, title, size=FONT, weight="bold")]
    out += x_axis(sx, height - bottom, nice_ticks(xlim[0], xlim[1], 4))
    out += y_axis(sy, left, nice_ticks(0, sy.d1, 3), grid_to=width - right, fmt=_percent)
    for a, b, d, c in orig_bins:
        out.append(rect(sx(a), sy(d), sx(b) - sx(a), sy(0) - sy(d), "#cfcfcf", count=c,
                        title=f"original: {fmt_value(c)} records"))
    if prot_bins:
        pts: list[tuple[float, float]] = []
        for a, b, d, _ in prot_bins:
            pts += [(sx(a), sy(d)), (sx(b), sy(d))]
        pts = [(pts[0][0], sy(0))] + pts + [(pts[-1][0], sy(0))]
        out.append(polyline(pts, prot_colour, 1.4))
        for a, b, d, c in prot_bins:  # invisible hit areas carry the counts drawn by the step line
            out.append(rect(sx(a), sy(d), sx(b) - sx(a), 0.1, prot_colour, count=c, extra=' fill-opacity="0"'))
    if orig_curve:
        out.append(polyline([(sx(x), sy(y)) for x, y in orig_curve], ORIGINAL_COLOUR, 1.2, "4,2"))
    if prot_curve:
        out.append(polyline([(sx(x), sy(y)) for x, y in prot_curve], prot_colour, 1.6))
    if note:
        out.append(text(left, height - 6, note, size=FONT - 3, fill=GREY))
    return svg(width, height, out, label=label)


def _percent(t: float) -> str:
    return f"{t:.2g}%"


def density_panel(
    *,
    title: str,
    xlim: tuple[float, float],
    curves: Sequence[tuple[str, str, Sequence[tuple[float, float]], bool]],
    label: str,
    width: float = 250,
    height: float = 190,
) -> Markup:
    """Density curves of the original (dashed) and every scenario on one axis."""
    left, right, top, bottom = 40, 8, 20, 34
    ymax = max([y for _, _, pts, _ in curves for _, y in pts] + [0.0]) * 1.08
    sx = Scale(xlim[0], xlim[1], left, width - right)
    sy = Scale(0, ymax if ymax > 0 else 1.0, height - bottom, top)
    out = [text(left, 13, title, size=FONT, weight="bold")]
    out += x_axis(sx, height - bottom, nice_ticks(xlim[0], xlim[1], 4))
    out += y_axis(sy, left, nice_ticks(0, sy.d1, 3), grid_to=width - right, fmt=_percent)
    for name, col, pts, dashed in curves:
        if pts:
            out.append(polyline([(sx(x), sy(y)) for x, y in pts], col, 1.3 if dashed else 1.6, "4,2" if dashed else None))
    return svg(width, height, out, label=label)


def box_panel(
    *,
    title: str,
    boxes: Sequence[dict],
    xlim: tuple[float, float],
    label: str,
    width: float = 330,
    note: str = "",
) -> Markup:
    """Horizontal box plots, one row per file: box = quartiles, line = median, whiskers, outliers, mean (◆)."""
    left = min(12 + 6.2 * max([len(b["name"]) for b in boxes] + [4]), 130)
    row = 24
    top = 20
    height = top + row * len(boxes) + 34 + (12 if note else 0)
    sx = Scale(xlim[0], xlim[1], left, width - 10)
    axis_y = top + row * len(boxes) + 4
    out = [text(8, 13, title, size=FONT, weight="bold")]
    out += x_axis(sx, axis_y, nice_ticks(xlim[0], xlim[1], 4), grid_to=top)

    def clip(v: float) -> float:
        return sx(min(max(v, xlim[0]), xlim[1]))

    for i, b in enumerate(boxes):
        y = top + i * row + row / 2
        col = b["colour"]
        out.append(text(left - 6, y + 4, _short(b["name"], 20), anchor="end", size=FONT - 1))
        q1, med, q3 = b["q1"], b["median"], b["q3"]
        w0, w1 = b["whiskers"]
        tip = b.get("tip", "")
        out.append(line(clip(w0), y, clip(q1), y, col, 1.2))
        out.append(line(clip(q3), y, clip(w1), y, col, 1.2))
        out.append(line(clip(w0), y - 5, clip(w0), y + 5, col, 1.2))
        out.append(line(clip(w1), y - 5, clip(w1), y + 5, col, 1.2))
        out.append(rect(clip(q1), y - 8, clip(q3) - clip(q1), 16, _mix(col, "#ffffff", 0.7), stroke=col, title=tip))
        out.append(line(clip(med), y - 8, clip(med), y + 8, col, 2))
        for v in b.get("outliers", ()):
            if xlim[0] <= v <= xlim[1]:
                out.append(f'<circle cx="{_n(sx(v))}" cy="{_n(y)}" r="1.8" fill="none" stroke="{col}" stroke-width="0.8"/>')
        if b.get("mean") is not None and xlim[0] <= b["mean"] <= xlim[1]:
            m = sx(b["mean"])
            out.append(f'<path d="M{_n(m)} {_n(y - 4)}l4 4l-4 4l-4 -4z" fill="{INK}"/>')
    if note:
        out.append(text(8, height - 6, note, size=FONT - 3, fill=GREY))
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
    col_width: float = 46,
    height: float = 250,
) -> Markup:
    """Stacked 100 % columns, one per file (the Practice Guide's Fig. 19).

    ``columns`` = [(column title, [(category label, count, colour), ...])]:
    each column is split in proportion to its counts, top to bottom.
    ``marks`` = [(colour, text)] per column: a colour bar under the column
    (the file's colour) and a short text above it (e.g. how much it changed).
    """
    top, bottom = 34, 62
    gap = 8
    left = 8
    plot_h = height - top - bottom
    k = len(columns)
    legend_x = left + k * (col_width + gap) + 6
    legend_rows = max(len(legend), 1)
    row_h = min(14.0, max(9.0, plot_h / legend_rows))
    legend_h = row_h * legend_rows
    total_h = max(height, top + legend_h + 10)
    width = legend_x + 10 + 6.0 * min(max([len(lbl) for lbl, _ in legend] + [6]), 34) + 14
    width = max(width, left + 6.5 * len(title) + 10)
    out = [text(left, 13, title, size=FONT, weight="bold")]
    for c, (ctitle, segs) in enumerate(columns):
        x = left + c * (col_width + gap)
        total = sum(n for _, n, _ in segs)
        y = top
        for lbl, n, col in segs:
            if total <= 0 or n <= 0:
                continue
            h = plot_h * n / total
            out.append(rect(x, y, col_width, h, col, stroke="#ffffff", count=n,
                            title=f"{ctitle} · {lbl}: {fmt_value(n)} ({100 * n / total:.1f} %)"))
            if h >= 11:
                out.append(text(x + col_width / 2, y + h / 2 + 3.5, f"{100 * n / total:.0f}%", anchor="middle",
                                size=FONT - 3, fill=_label_ink(col)))
            y += h
        if total <= 0:
            out.append(rect(x, top, col_width, plot_h, "#f4f4f4", stroke=LIGHT))
            out.append(text(x + col_width / 2, top + plot_h / 2, "no data", anchor="middle", size=FONT - 3, fill=GREY))
        if c < len(marks):
            mcol, mtext = marks[c]
            out.append(rect(x, top + plot_h + 2, col_width, 4, mcol))
            if mtext:
                out.append(text(x + col_width / 2, top - 4, mtext, anchor="middle", size=FONT - 3, fill=GREY))
        out.append(text(x + col_width / 2 + 4, top + plot_h + 16, _short(ctitle, 18), anchor="end", size=FONT - 2,
                        rotate=-35))
    for i, (lbl, col) in enumerate(legend):
        y = top + i * row_h
        out.append(rect(legend_x, y + 1, 10, row_h - 3, col, stroke="#999"))
        out.append(text(legend_x + 14, y + row_h - 3, _short(lbl, 34), size=min(FONT - 1, int(row_h) - 1)))
    return svg(width, total_h, out, label=label)


def _label_ink(col: str) -> str:
    r, g, b = (int(col[i : i + 2], 16) for i in (1, 3, 5))
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"


def mosaic_2way(
    columns: Sequence[tuple[str, int, Sequence[tuple[str, int, str]]]],
    *,
    title: str,
    label: str,
    width: float = 300,
    height: float = 220,
    xlabel: str = "",
) -> Markup:
    """A two-way mosaic: column widths ∝ the first variable's counts, heights ∝ the second's within each column.

    ``columns`` = [(category of A, count, [(category of B, count, colour), ...])].
    """
    top, bottom, left = 22, 46, 6
    plot_w = width - left - 6
    plot_h = height - top - bottom
    gap = 2.0
    total = sum(n for _, n, _ in columns if n > 0)
    usable = plot_w - gap * max(len([c for c in columns if c[1] > 0]) - 1, 0)
    out = [text(left, 13, title, size=FONT, weight="bold")]
    x = left
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
                            title=f"{clabel} × {blabel}: {fmt_value(m)} records"))
            y += h
        if w >= 9:
            out.append(text(x + w / 2 + 3, top + plot_h + 4, _short(clabel, 14), anchor="end", size=FONT - 3,
                            rotate=-60))
        x += w + gap
    if xlabel:
        out.append(text(width - 6, height - 3, xlabel, anchor="end", size=FONT - 2, fill=GREY))
    return svg(width, height, out, label=label)


def ci_chart(
    rows: Sequence[tuple[str, tuple[float, float, float] | None, Sequence[tuple[str, str, tuple[float, float, float] | None]]]],
    *,
    label: str,
    width: float = 640,
    xlabel: str = "",
) -> Markup:
    """Means with confidence intervals, standardised: rows = variables, original as a grey band.

    Each row: (name, original (lo, est, hi), [(scenario, colour, (lo, est, hi)), ...]) in
    units of the original's standard deviation, centred on the original mean.
    """
    left = min(12 + 6.3 * max([len(r[0]) for r in rows] + [4]), 170)
    k = max([len(r[2]) for r in rows] + [1])
    row = 10 + 8 * (k + 1)
    top = 10
    height = top + row * len(rows) + 40
    values = [v for _, o, sc in rows for t in ([o] + [s[2] for s in sc]) if t for v in t if math.isfinite(v)]
    m = max([abs(v) for v in values] + [0.05]) * 1.1
    sx = Scale(-m, m, left, width - 20)
    out: list[str] = []
    out += x_axis(sx, top + row * len(rows), nice_ticks(-m, m, 6), grid_to=top, fmt=lambda t: f"{t:+.2g}" if t else "0")
    out.append(line(sx(0), top, sx(0), top + row * len(rows), GREY, 1))
    for r, (name, o, sc) in enumerate(rows):
        y0 = top + r * row + 5
        out.append(text(left - 6, y0 + row / 2, _short(name, 26), anchor="end", size=FONT - 1))
        if o:
            out.append(rect(sx(o[0]), y0, sx(o[2]) - sx(o[0]), row - 10, "#e3e3e3",
                            title=f"{name}: original 95% CI"))
        for s, (sname, col, t) in enumerate(sc):
            y = y0 + 6 + s * 8
            if not t:
                continue
            out.append(line(sx(t[0]), y, sx(t[2]), y, col, 1.6))
            out.append(f'<circle cx="{_n(sx(t[1]))}" cy="{_n(y)}" r="3" fill="{col}"><title>{esc(sname)}</title></circle>')
    if xlabel:
        out.append(text((left + width - 20) / 2, height - 6, xlabel, anchor="middle", size=FONT - 1, fill=GREY))
    return svg(width, height, out, label=label)
