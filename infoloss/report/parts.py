"""Small HTML pieces shared by the report's sections: numbers, cells coloured by rank, anchors.

All text goes through :class:`markupsafe.Markup` formatting, which escapes
every argument, so names and labels from the data always show as text.
"""

from __future__ import annotations

import math
import re
from typing import Iterable, Sequence

from markupsafe import Markup

from ..registry import MeasureInfo
from .svg import ramp

#: cell colours from the best to the worst scenario of a row
GOOD_TO_BAD = ("#c7e9c0", "#f7f7d0", "#fdd0a2", "#f4a582")
#: relative differences below this are ties (no colour)
TIE = 1e-9


def fmt(x: float | None) -> str:
    """A measure value for a table: 4 significant digits, thousands grouped, powers of ten from 10^7.

    >>> fmt(118.2166), fmt(0.005312), fmt(18296.0), fmt(None), fmt(0.0), fmt(1.3527e34)
    ('118.2', '0.005312', '18,296', '–', '0', '1.353e+34')
    """
    if x is None or not math.isfinite(x):
        return "–"
    if x == 0:
        return "0"
    if 1e4 <= abs(x) < 1e7:
        return f"{x:,.0f}"
    return f"{x:.4g}"


def positions(values: Sequence[float | None], better: str) -> list[float | None]:
    """Each value's place between the best (0) and the worst (1) of the row; None if missing or all equal.

    >>> positions([0.2, 0.1, None, 0.3], "lower")
    [0.5, 0.0, None, 1.0]
    >>> positions([0.9, 0.5], "higher"), positions([1.0, 1.0], "lower")
    ([0.0, 1.0], [None, None])
    """
    finite = [v for v in values if v is not None and math.isfinite(v)]
    if len(finite) < 2:
        return [None] * len(values)
    lo, hi = min(finite), max(finite)
    if hi - lo <= TIE * max(abs(lo), abs(hi), 1e-300):
        return [None] * len(values)
    out: list[float | None] = []
    for v in values:
        if v is None or not math.isfinite(v):
            out.append(None)
        else:
            t = (v - lo) / (hi - lo)
            out.append(t if better == "lower" else 1.0 - t)
    return out


def value_cell(value: float | None, position: float | None, reason: str | None = None) -> Markup:
    """A ``<td>`` with the value, coloured by its position; class ``best``/``worst``/``mid``/``tie``."""
    if value is None:
        why = reason or "not computed"
        return Markup('<td class="num nc" title="{}">not computed</td>').format(why)
    if position is None:
        return Markup('<td class="num tie">{}</td>').format(fmt(value))
    cls = "best" if position == 0 else "worst" if position == 1 else "mid"
    mark = " ✓" if cls == "best" else ""
    return Markup('<td class="num {}" style="background:{}">{}{}</td>').format(
        cls, ramp(GOOD_TO_BAD, position), fmt(value), mark)


def direction(info: MeasureInfo) -> Markup:
    """'↓ lower' / '↑ higher' with the range."""
    arrow = "↓ lower is better" if info.better == "lower" else "↑ higher is better"
    return Markup('<span class="dir">{}</span><br><span class="range">range {}</span>').format(arrow, info.range_text)


def slug(prefix: str, i: int) -> str:
    """An element id that never contains data: ``prefix-i``."""
    return f"{prefix}-{i}"


def heading(level: int, title: str, anchor: str | None = None) -> Markup:
    ident = Markup(' id="{}"').format(anchor) if anchor else Markup("")
    return Markup("<h{0}{1}>{2}</h{0}>").format(level, ident, title)


def join(parts: Iterable[Markup | str]) -> Markup:
    return Markup("").join(parts)


def name_list(names: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'.

    >>> name_list(["a", "b", "c"])
    'a, b and c'
    """
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


_WORDS = re.compile(r"\s+")


def short(text: str, n: int = 140) -> str:
    text = _WORDS.sub(" ", text).strip()
    return text if len(text) <= n else text[: n - 1] + "…"
