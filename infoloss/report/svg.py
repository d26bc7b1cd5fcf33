"""Small hand-written SVG charts for the HTML report: the drawing primitives.

Every chart is a string of inline SVG: no JavaScript, text stays text (so
the page prints to PDF and can be searched), and all text passes through
:func:`esc`.  Charts take aggregated numbers only (bins, quantiles, table
counts, measure values).  Counts drawn as areas carry a ``data-count``
attribute (or ``data-counts`` for a step line) so that tests can check the
safe mode's minimum cell size.

Readability rules every chart follows: no text below :data:`MIN_FONT`
pixels (:func:`text` enforces it), text widths are estimated with the
metrics of DejaVu Sans (:func:`text_width`; the charts ask for that font,
and other fonts are narrower) so that labels and legends are laid out
without overlapping or being cut, scenario names are never shortened, and
each scenario has a marker shape as well as a colour (:func:`marker`), so
no information is in colour alone.  The charts themselves are in
:mod:`infoloss.report.charts` (re-exported here).
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

from markupsafe import Markup, escape

from .numbers import short as _short_number

#: the smallest text size on the page, in pixels
MIN_FONT = 11
FONT = 11
GREY = "#595959"  # 7:1 on white
LIGHT = "#e6e6e6"
INK = "#222"
#: colour of the original file in every chart
ORIGINAL_COLOUR = "#4d4d4d"
#: scenario colours (Okabe & Ito's colour-blind safe palette, then Tol's); each also has a marker shape
SCENARIO_COLOURS = (
    "#E69F00", "#0072B2", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#882255", "#44AA99", "#999933", "#AA4499",
)
#: marker shapes, one per scenario (then repeating with the colours shifted)
SHAPES = ("circle", "square", "triangle", "diamond", "down", "plus", "cross", "star", "pentagon", "hexagon")
#: colours of nominal categories (Tol's muted palette + light variants)
CATEGORY_COLOURS = (
    "#88CCEE", "#CC6677", "#DDCC77", "#117733", "#332288", "#AA4499", "#44AA99", "#999933",
    "#882255", "#661100", "#6699CC", "#E69F00", "#B3DE69", "#FDB462", "#BC80BD", "#80B1D3",
)
#: colours of generalised values (a hierarchy's groups), apart from the categories' (ColorBrewer's Dark2)
GENERALISED_COLOURS = ("#1B9E77", "#D95F02", "#7570B3", "#E7298A", "#66A61E", "#E6AB02", "#A6761D", "#666666")
OTHER_COLOUR = "#bdbdbd"
MISSING_COLOUR = "#ffffff"

# advance widths of ASCII 32..126 in DejaVu Sans, in em (read from DejaVuSans.ttf's hmtx table)
_ASCII_EM = (
    0.318, 0.401, 0.46, 0.838, 0.636, 0.95, 0.78, 0.275, 0.39, 0.39, 0.5, 0.838, 0.318, 0.361, 0.318, 0.337, 0.636,
    0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.337, 0.337, 0.838, 0.838, 0.838, 0.531, 1.0,
    0.684, 0.686, 0.698, 0.77, 0.632, 0.575, 0.775, 0.752, 0.295, 0.295, 0.656, 0.557, 0.863, 0.748, 0.787, 0.603,
    0.787, 0.695, 0.635, 0.611, 0.732, 0.684, 0.989, 0.685, 0.611, 0.685, 0.39, 0.337, 0.39, 0.838, 0.5, 0.5, 0.613,
    0.635, 0.55, 0.635, 0.615, 0.352, 0.635, 0.634, 0.278, 0.278, 0.579, 0.278, 0.974, 0.634, 0.612, 0.635, 0.635,
    0.411, 0.521, 0.392, 0.634, 0.592, 0.818, 0.592, 0.592, 0.525, 0.636, 0.337, 0.636, 0.838,
)


def esc(text: object) -> str:
    return str(escape(str(text)))


def colour(i: int) -> str:
    return SCENARIO_COLOURS[i % len(SCENARIO_COLOURS)]


def text_width(s: object, size: float = FONT, bold: bool = False) -> float:
    """The width of ``s`` in pixels at ``size`` in DejaVu Sans (a little more for bold).

    >>> round(text_width("income", 11), 1), round(text_width("INCOME", 11), 1)
    (40.3, 44.3)
    """
    em = 0.0
    for ch in str(s):
        o = ord(ch)
        if 32 <= o < 127:
            em += _ASCII_EM[o - 32]
        elif o >= 0x2E80:  # CJK and other wide scripts
            em += 1.0
        else:
            em += 0.7
    return em * size * (1.12 if bold else 1.0)


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
    if not 1e-300 < raw < math.inf:  # a span too small (denormal) or too wide (overflow) for round steps
        return [lo] if lo == hi else [lo, hi]
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
    """Short axis label: 1.5M, 250k, 0.25, 3 (the page's number rule, 2 digits)."""
    return _short_number(x)


def fmt_value(x: float | None, digits: int = 3) -> str:
    """A value for a label: the page's number rule (:func:`infoloss.report.numbers.number`).

    >>> fmt_value(1234.5), fmt_value(0.012345), fmt_value(2.1e14)
    ('1,234', '0.0123', '2.1 × 10¹⁴')
    """
    from .numbers import number

    return number(x, digits=digits)


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
    """Wrap chart elements in an ``<svg>`` with a title for screen readers.

    The page's CSS gives its text the defaults :func:`text` leaves out
    (``font-size: 11px; fill: #222``); a chart used outside the page needs
    that rule too.
    """
    return Markup(
        f'<svg class="{cls}" width="{_n(width)}" height="{_n(height)}" '
        f'viewBox="0 0 {_n(width)} {_n(height)}" role="img" aria-label="{esc(label)}"><title>{esc(label)}</title>'
        + "".join(body)
        + "</svg>"
    )


def text(x: float, y: float, s: object, *, anchor: str = "start", size: float = FONT, fill: str = INK,
         weight: str | None = None, rotate: float | None = None, cls: str | None = None) -> str:
    """A text element; its size is never below :data:`MIN_FONT`."""
    size = max(size, MIN_FONT)
    # defaults (size 11, start, ink) come from the page's CSS and are left out to keep pages small
    extra = f' font-size="{size:g}"' if size != FONT else ""
    extra += f' text-anchor="{anchor}"' if anchor != "start" else ""
    extra += f' fill="{fill}"' if fill != INK else ""
    extra += f' font-weight="{weight}"' if weight else ""
    extra += f' transform="rotate({rotate:g} {_n(x)} {_n(y)})"' if rotate else ""
    extra += f' class="{cls}"' if cls else ""
    return f'<text x="{_n(x)}" y="{_n(y)}"{extra}>{esc(s)}</text>'


#: the height of DejaVu Sans' glyphs above the baseline at :data:`FONT` (for the extent of rotated labels)
ASCENT = 0.93 * FONT

#: the widest column of row labels (variable and scenario names) before they wrap onto several lines: wider
#: charts are shrunk by the page's ``max-width: 100%`` and their text with them
LABEL_CAP = 260.0
#: the distance between the lines of a wrapped label
LINE_HEIGHT = 13.0
_BREAK_AFTER = set(" _-/,:;)]|+*=~")


def _pieces(s: str) -> list[str]:
    """``s`` cut where a line may break: after a space, underscore, hyphen, slash, comma ..., and before ``[``
    (so ``C(education)[T.lower]`` breaks before ``[T.``)."""
    out, cur = [], ""
    for ch in s:
        if ch == "[" and cur:
            out.append(cur)
            cur = ""
        cur += ch
        if ch in _BREAK_AFTER:
            out.append(cur)
            cur = ""
    return out + ([cur] if cur else [])


def wrap_label(s: object, width: float, *, size: float = FONT, max_lines: int = 6) -> list[str]:
    """A name broken into lines each at most ``width`` pixels wide (never cut at the start).

    Lines break after spaces and underscores and before ``[`` (a piece too
    long for a line is split between characters).  Beyond ``max_lines`` the
    last line ends in "…" (callers give the full name in a tooltip).

    >>> wrap_label("income", 200)
    ['income']
    >>> wrap_label("household_income_reported_by_the_reference_person", 150)
    ['household_income_', 'reported_by_the_', 'reference_person']
    """
    s = str(s)
    width = max(width, 4 * size)
    if text_width(s, size) <= width:
        return [s]
    if "[T." in s[1:]:  # a model term: the level starts a line of its own
        head, _, level = s.partition("[T.")
        lines = wrap_label(head, width, size=size, max_lines=max_lines) + wrap_label(
            "[T." + level, width, size=size, max_lines=max_lines)
        return _limit(lines, width, size, max_lines)
    lines = []
    cur = ""
    for piece in _pieces(s):
        if text_width((cur + piece).rstrip(" "), size) <= width:
            cur += piece
            continue
        if cur:
            lines.append(cur.rstrip(" "))
            cur = ""
        while text_width(piece.rstrip(" "), size) > width:  # one piece wider than a line: split it
            n = 1
            while n < len(piece) and text_width(piece[: n + 1], size) <= width:
                n += 1
            lines.append(piece[:n])
            piece = piece[n:]
        cur = piece
    if cur.strip(" "):
        lines.append(cur.rstrip(" "))
    return _limit(lines, width, size, max_lines)


def _limit(lines: list[str], width: float, size: float, max_lines: int) -> list[str]:
    if len(lines) > max_lines:
        last = lines[max_lines - 1]
        while last and text_width(last + "…", size) > width:
            last = last[:-1]
        lines = lines[: max_lines - 1] + [last + "…"]
    return lines


def label_lines(x: float, y: float, lines: Sequence[str], *, full: object | None = None, anchor: str = "end",
                size: float = FONT, fill: str = INK) -> str:
    """A (wrapped) label whose lines are centred vertically on the baseline ``y`` a one-line label would have.

    One line is a plain :func:`text`; several lines are ``<tspan>`` elements
    of one ``<text>`` with the full name ``full`` as its tooltip.
    """
    if len(lines) <= 1:
        return text(x, y, lines[0] if lines else "", anchor=anchor, size=size, fill=fill)
    size = max(size, MIN_FONT)
    step = LINE_HEIGHT * size / FONT
    y0 = y - step * (len(lines) - 1) / 2
    extra = f' font-size="{size:g}"' if size != FONT else ""
    extra += f' text-anchor="{anchor}"' if anchor != "start" else ""
    extra += f' fill="{fill}"' if fill != INK else ""
    tip = f"<title>{esc(full)}</title>" if full is not None else ""
    spans = "".join(f'<tspan x="{_n(x)}" y="{_n(y0 + k * step)}">{esc(ln)}</tspan>' for k, ln in enumerate(lines))
    return f'<text x="{_n(x)}" y="{_n(y0)}"{extra}>{tip}{spans}</text>'


def label_column(names: Sequence[object], *, cap: float = LABEL_CAP, size: float = FONT) -> float:
    """The width of a column of row labels: the widest name, at most ``cap`` (longer names wrap)."""
    return min(max([text_width(n, size) for n in names] + [20.0]), cap)


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
    d += f' stroke-width="{width:g}"' if width != 1 else ""
    return f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" stroke="{stroke}"{d}/>'


def polyline(points: Sequence[tuple[float, float]], stroke: str, width: float = 1.5, dash: str | None = None,
             fill: str = "none", extra: str = "") -> str:
    d = f' stroke-dasharray="{dash}"' if dash else ""
    pts = " ".join(f"{_n(x)},{_n(y)}" for x, y in points)
    return f'<polyline points="{pts}" fill="{fill}" stroke="{stroke}" stroke-width="{width:g}"{d}{extra}/>'


def marker(i: int, x: float, y: float, r: float = 4.5, col: str | None = None, title: str | None = None) -> str:
    """Scenario ``i``'s marker: its shape (:data:`SHAPES`) in its colour, with a white edge."""
    col = col or colour(i)
    shape = SHAPES[i % len(SHAPES)]
    inner = f"<title>{esc(title)}</title>" if title else ""
    style = f'fill="{col}" stroke="#fff" stroke-width="0.8"'
    if shape == "circle":
        el = f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(r)}" {style}>'
        return el + inner + "</circle>"
    pts = _shape_points(shape, x, y, r)
    return f'<polygon points="{pts}" {style}>{inner}</polygon>'


def _shape_points(shape: str, x: float, y: float, r: float) -> str:
    if shape == "square":
        s = r * 0.88
        p = [(-s, -s), (s, -s), (s, s), (-s, s)]
    elif shape == "triangle":
        p = [(0, -r * 1.15), (r * 1.05, r * 0.75), (-r * 1.05, r * 0.75)]
    elif shape == "down":
        p = [(0, r * 1.15), (r * 1.05, -r * 0.75), (-r * 1.05, -r * 0.75)]
    elif shape == "diamond":
        p = [(0, -r * 1.2), (r * 1.05, 0), (0, r * 1.2), (-r * 1.05, 0)]
    elif shape in ("plus", "cross"):
        a, b = r * 1.1, r * 0.38
        p = [(-b, -a), (b, -a), (b, -b), (a, -b), (a, b), (b, b), (b, a), (-b, a), (-b, b), (-a, b), (-a, -b), (-b, -b)]
        if shape == "cross":
            c, s = math.cos(math.pi / 4), math.sin(math.pi / 4)
            p = [(u * c - v * s, u * s + v * c) for u, v in p]
    elif shape == "star":
        p = [((r * 1.25 if k % 2 == 0 else r * 0.55) * math.sin(k * math.pi / 5),
              -(r * 1.25 if k % 2 == 0 else r * 0.55) * math.cos(k * math.pi / 5)) for k in range(10)]
    else:  # pentagon, hexagon
        k = 5 if shape == "pentagon" else 6
        p = [(r * 1.1 * math.sin(2 * math.pi * j / k), -r * 1.1 * math.cos(2 * math.pi * j / k)) for j in range(k)]
    return " ".join(f"{_n(x + u)},{_n(y + v)}" for u, v in p)


def marker_svg(i: int, col: str | None = None, size: int = 14) -> Markup:
    """A tiny inline SVG of scenario ``i``'s marker, for HTML tables and legends (decorative)."""
    return Markup(f'<svg class="mk" width="{size}" height="{size}" viewBox="0 0 {size} {size}" aria-hidden="true">'
                  f"{marker(i, size / 2, size / 2, size * 0.33, col)}</svg>")


def x_axis(scale: Scale, y: float, ticks: Sequence[float], *, grid_to: float | None = None, fmt=fmt_tick) -> list[str]:
    """A horizontal axis; tick labels that would overlap their neighbour are left out.

    The axis line and tick marks are one path, the grid lines another (few
    elements: pages with hundreds of charts stay quick to open).
    """
    axis = f"M{_n(scale.p0)} {_n(y)}H{_n(scale.p1)}"
    grid = ""
    labels = []
    last_right = -math.inf
    for t in ticks:
        x = scale(t)
        if grid_to is not None:
            grid += f"M{_n(x)} {_n(grid_to)}V{_n(y)}"
        axis += f"M{_n(x)} {_n(y)}v3"
        label = fmt(t)
        w = text_width(label, FONT)
        anchor, a, b = "middle", x - w / 2, x + w / 2
        if b > scale.p1 + 8:  # the last label ends at its tick, inside the chart
            anchor, a, b = "end", x - w, x
        elif a < scale.p0 - 2:  # the first starts at its tick (left of the axis are other labels)
            anchor, a, b = "start", x, x + w
        if a > last_right + 4:
            labels.append(text(x, y + 14, label, anchor=anchor, size=FONT, fill=GREY))
            last_right = b
    out = [f'<path d="{grid}" stroke="{LIGHT}"/>'] if grid else []
    return out + [f'<path d="{axis}" stroke="{GREY}" fill="none"/>'] + labels


def y_axis(scale: Scale, x: float, ticks: Sequence[float], *, grid_to: float | None = None, fmt=fmt_tick) -> list[str]:
    """A vertical axis; tick labels closer than a line of text to the previous one are left out."""
    axis = f"M{_n(x)} {_n(scale.p0)}V{_n(scale.p1)}"
    grid = ""
    labels = []
    last = math.inf
    for t in ticks:
        y = scale(t)
        if grid_to is not None:
            grid += f"M{_n(x)} {_n(y)}H{_n(grid_to)}"
        axis += f"M{_n(x - 3)} {_n(y)}h3"
        if abs(last - y) >= FONT + 2:
            labels.append(text(x - 5, y + 4, fmt(t), anchor="end", size=FONT, fill=GREY))
            last = y
    out = [f'<path d="{grid}" stroke="{LIGHT}"/>'] if grid else []
    return out + [f'<path d="{axis}" stroke="{GREY}" fill="none"/>'] + labels


def axis_label_width(ticks: Sequence[float], fmt=fmt_tick) -> float:
    """The width the tick labels of a vertical axis need."""
    return max([text_width(fmt(t), FONT) for t in ticks] + [0.0])


def swatch_legend(items: Sequence[tuple[str, str]], x: float, y: float, *, width: float,
                  dashed: Sequence[bool] = (), shapes: Sequence[int | None] = ()) -> tuple[list[str], float]:
    """A wrapped legend of coloured keys (a marker shape when ``shapes`` gives the scenario index).

    Names are never shortened: an item wider than ``width`` gets a line of
    its own.  Returns the elements and the height used.
    """
    out: list[str] = []
    cx, cy = x, y
    row = FONT + 5
    for i, (name, col) in enumerate(items):
        w = 18 + text_width(name, FONT) + 14
        if cx + w > x + width and cx > x:
            cx, cy = x, cy + row
        if dashed and i < len(dashed) and dashed[i]:
            out.append(line(cx, cy - 4, cx + 12, cy - 4, col, 2, "3,2"))
        elif shapes and i < len(shapes) and shapes[i] is not None:
            out.append(marker(int(shapes[i]), cx + 6, cy - 4, 4.5, col))
        else:
            out.append(rect(cx, cy - 9, 12, 10, col, stroke="#999"))
        out.append(text(cx + 17, cy, name, size=FONT))
        cx += w
    return out, cy - y + row


def legend_width(items: Sequence[tuple[str, str]]) -> float:
    """The widest legend item (so a chart can be made at least that wide)."""
    return max([18 + text_width(name, FONT) + 14 for name, _ in items] + [0.0])


def _short(s: str, n: int) -> str:
    """Shorten category labels (never scenario or variable names) to ``n`` characters."""
    s = str(s)
    return s if len(s) <= n else s[: n - 1] + "…"


# ---------------------------------------------------------------------------
# colours
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


def luminance(col: str) -> float:
    """WCAG relative luminance of a ``#rrggbb`` colour."""
    def channel(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (int(col[i : i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def ink_on(col: str) -> str:
    """Black or white text, whichever contrasts more with ``col`` (WCAG)."""
    lum = luminance(col)
    return INK if (lum + 0.05) / (luminance("#222222") + 0.05) >= 1.05 / (lum + 0.05) else "#ffffff"


LOSS_RAMP = ("#fff7ec", "#fdd49e", "#fc8d59", "#d7301f", "#7f0000")  # light = little loss, dark = much
DIVERGING = ("#2166ac", "#92c5de", "#f7f7f7", "#f4a582", "#b2182b")


from .charts import (  # noqa: E402  (the charts use the primitives above)
    box_panel, ci_chart, density_panel, dot_plot, grouped_bars, heatmap, histogram_panel, mosaic_2way,
    mosaic_columns,
)

__all__ = [
    "box_panel", "ci_chart", "colour", "density_panel", "dot_plot", "esc", "grouped_bars", "heatmap",
    "histogram_panel", "line", "marker", "mosaic_2way", "mosaic_columns", "nice_ticks", "polyline", "ramp", "rect",
    "svg", "text", "text_width", "x_axis", "y_axis", "Scale",
]
