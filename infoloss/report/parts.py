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
from .numbers import number
from .svg import ramp

#: cell colours from the best to the worst scenario of a row
GOOD_TO_BAD = ("#c7e9c0", "#f7f7d0", "#fdd0a2", "#f4a582")
#: relative differences below this are ties (no colour)
TIE = 1e-9


def fmt(x: float | None, scale: float = 1.0) -> str:
    """A measure value for a table: the page's one number rule (:func:`infoloss.report.numbers.number`).

    >>> fmt(118.2166), fmt(0.005312), fmt(18296.0), fmt(None), fmt(0.0), fmt(1.3527e34), fmt(2.9e-19)
    ('118', '0.00531', '18,296', '–', '0', '1.35 × 10³⁴', '0')
    """
    return number(x, scale)


def positions(values: Sequence[float | None], better: str, ideal: float | None = None) -> list[float | None]:
    """Each value's place between the best (0) and the worst (1) of the row; None if missing or all equal.

    ``better`` is "lower", "higher" or "target" (closest to ``ideal`` is best).
    Values that print the same as the best one (:func:`fmt`) are best too.

    >>> positions([0.2, 0.1, None, 0.3], "lower")
    [0.5, 0.0, None, 1.0]
    >>> positions([0.9, 0.5], "higher"), positions([1.0, 1.0], "lower")
    ([0.0, 1.0], [None, None])
    >>> positions([-17.4, 0.5, 2.0], "target", ideal=0.0)  # doctest: +ELLIPSIS
    [1.0, 0.0, 0.0887...]
    """
    if better == "target":
        losses = [None if v is None or not math.isfinite(v) else abs(v - (ideal or 0.0)) for v in values]
        return positions(losses, "lower")
    finite = [v for v in values if v is not None and math.isfinite(v)]
    if len(finite) < 2:
        return [None] * len(values)
    lo, hi = min(finite), max(finite)
    if hi - lo <= TIE * max(abs(lo), abs(hi), 1e-300):
        return [None] * len(values)
    best_text = fmt(lo if better == "lower" else hi, max(abs(lo), abs(hi)))
    if fmt(lo, max(abs(lo), abs(hi), 1.0)) == fmt(hi, max(abs(lo), abs(hi), 1.0)):
        return [None] * len(values)  # equal as printed (e.g. float noise against 0): a tie
    out: list[float | None] = []
    for v in values:
        if v is None or not math.isfinite(v):
            out.append(None)
        else:
            t = (v - lo) / (hi - lo)
            t = t if better == "lower" else 1.0 - t
            out.append(0.0 if fmt(v, max(abs(lo), abs(hi))) == best_text else t)
    return out


#: values of a measure with a bounded range closer than this share of the range are a tie (as the verdict's scores)
#: when they are also close to each other (:data:`RELATIVE_TIE`); closer than :data:`NOISE_TIE` of it, always
RANGE_TIE = 0.01
RELATIVE_TIE = 0.5
NOISE_TIE = 1e-4


def info_positions(info: MeasureInfo, values: Sequence[float | None]) -> list[float | None]:
    """:func:`positions` for a registered measure (its direction and ideal).

    For a measure whose range is bounded, values less than 10⁻⁴ of the range
    apart are a tie (gamma 0 against 1.2e-6 is no best against worst), and
    so are values less than 1 % of the range apart that differ by less than
    half the larger one (cluster_ari 0.995 and 1), as the verdict counts
    scores within 0.01 as tied.  A global risk of 0.012 against 0.0044 (a
    third of it) was a tie by the 1 % rule alone.

    The rule holds for every value, not only for the row's spread: with three
    or more scenarios, a value that is such a tie with the best one is best
    too (lambda 0.31924 and 0.31973 both carry "✓ best" next to 0.32 and 0.5).

    >>> from infoloss.registry import get
    >>> info_positions(get("lambda"), [0.31924, 0.5, 0.31973])
    [0.0, 1.0, 0.0]
    >>> info_positions(get("hellinger"), [0.30, 0.303]), info_positions(get("hellinger"), [0.30, 0.303, 0.5])
    ([None, None], [0.0, 0.0, 1.0])
    """
    low, high = info.range
    finite = [v for v in values if v is not None and math.isfinite(v)]
    bounded = low is not None and high is not None and high > low
    if bounded and len(finite) >= 2 and _bounded_tie(min(finite), max(finite), high - low):
        return [None] * len(values)
    out = positions(values, info.better, info.ideal)
    if not bounded or all(p is None for p in out):
        return out
    best = min((p, k) for k, p in enumerate(out) if p is not None)[1]
    return [0.0 if p is not None and _bounded_tie(values[k], values[best], high - low)  # type: ignore[arg-type]
            and _loss(info, values[k]) >= _loss(info, values[best]) else p for k, p in enumerate(out)]  # type: ignore[arg-type]


def _bounded_tie(a: float, b: float, span: float) -> bool:
    """Whether two values of a measure whose range is ``span`` wide are a tie (see :func:`info_positions`)."""
    gap, size = abs(a - b), max(abs(a), abs(b))
    return gap < NOISE_TIE * span or (gap < RANGE_TIE * span and gap < RELATIVE_TIE * size)


def _loss(info: MeasureInfo, v: float) -> float:
    """How far ``v`` is from the best side of the row (only used to compare with the best value)."""
    if info.better == "target":
        return abs(v - (info.ideal or 0.0))
    return v if info.better == "lower" else -v


def value_cell(value: float | None, position: float | None, reason: str | None = None, *,
               scale: float = 1.0, text: str | None = None, withheld: str | None = None) -> Markup:
    """A ``<td>`` with the value, coloured by its position; class ``best``/``worst``/``mid``/``tie``.

    The best value also carries "✓ best" (so the ranking is not in colour
    alone); ``text`` replaces the printed value (e.g. "fewer than 5").
    ``withheld`` (safe mode): the value was computed but is withheld, for
    this reason; the cell says ``text`` or "withheld".
    """
    if withheld is not None:
        return Markup('<td class="num nc withheld" title="{}">{}</td>').format(withheld, text or "withheld")
    if value is None:
        why = reason or "not computed"
        return Markup('<td class="num nc" title="{}">not computed</td>').format(why)
    shown = text if text is not None else fmt(value, scale)
    if position is None:
        return Markup('<td class="num tie">{}</td>').format(shown)
    cls = "best" if position == 0 else "worst" if position == 1 else "mid"
    mark = Markup(' <span class="mark">✓ best</span>') if cls == "best" else Markup("")
    return Markup('<td class="num {}" style="background:{}">{}{}</td>').format(
        cls, ramp(GOOD_TO_BAD, position), shown, mark)


def direction(info: MeasureInfo) -> Markup:
    """'↓ lower is better' / '↑ higher is better' / '◎ closest to 1 is best', with the range."""
    return Markup('<span class="dir">{}</span><br><span class="range">range {}</span>').format(
        direction_text(info), info.range_text)


def direction_text(info: MeasureInfo) -> str:
    """The direction in words with an arrow.

    >>> from infoloss.registry import get
    >>> direction_text(get("il1s")), direction_text(get("gdu")), direction_text(get("pmse_ratio"))
    ('↓ lower is better', '↑ higher is better', '◎ closest to 1 is best')
    """
    if info.better == "target":
        return f"◎ {info.better_text} is best"
    return "↓ lower is better" if info.better == "lower" else "↑ higher is better"


def slug(prefix: str, i: int) -> str:
    """An element id that never contains data: ``prefix-i``."""
    return f"{prefix}-{i}"


def heading(level: int, title: str, anchor: str | None = None) -> Markup:
    ident = Markup(' id="{}"').format(anchor) if anchor else Markup("")
    return Markup("<h{0}{1}>{2}</h{0}>").format(level, ident, title)


def breakable(name: str) -> Markup:
    """A scenario or variable name that may wrap after ``_``, ``-`` or ``.`` (never inside a word) in narrow tables."""
    return Markup("<wbr>").join(Markup.escape(part) for part in re.split(r"(?<=[_\-.])", str(name)))


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
