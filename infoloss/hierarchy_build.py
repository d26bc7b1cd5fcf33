"""Building hierarchies as rows ``[leaf, level 1, ..., root]``: intervals, masks, ordered groupings.

Used by the spec's ``{intervals: ...}`` and ``{mask: ...}`` hierarchies
(:mod:`infoloss.hierarchy`) and by ``infoloss hierarchy``, which writes the
rows as an ARX hierarchy file (:func:`to_arx_csv`).
"""

from __future__ import annotations

import csv
import io
import math
import re
from typing import Iterable, Sequence

import numpy as np

from .errors import InputError
from .spec import normalise_label

ROOT_LABEL = "*"
MASK_SIDES = ("right", "left")


def _to_float(text: str) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return math.nan
    return value if math.isfinite(value) else math.nan


def to_arx_csv(rows: Sequence[Sequence[str]], separator: str = ";") -> str:
    """The rows as ARX hierarchy CSV text: a value holding the separator, a double quote or a line break is put
    in double quotes (a quote in it written twice), as ARX's CSV reader and :func:`infoloss.hierarchy.read_arx_csv`
    read it.

    >>> print(to_arx_csv([["1", "[0, 5)", "*"], ["7", "[5, 10)", "*"]]), end="")
    1;[0, 5);*
    7;[5, 10);*
    >>> print(to_arx_csv([["a;b", '5" screen', "*"]]), end="")
    "a;b";"5"" screen";*
    """
    out = io.StringIO()
    writer = csv.writer(out, delimiter=separator, quotechar='"', doublequote=True, lineterminator="\n")
    writer.writerows([[str(c) for c in row] for row in rows])
    return out.getvalue()


# ---------------------------------------------------------------------------
# interval and masking hierarchies
# ---------------------------------------------------------------------------
def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def interval_label(low: float, high: float) -> str:
    """``[low, high)``: the label of a left-closed interval.

    >>> interval_label(20, 40), interval_label(0.5, 1)
    ('[20, 40)', '[0.5, 1)')
    """
    return f"[{_fmt(low)}, {_fmt(high)})"


def interval_rows(
    values: Iterable[float], breaks: Sequence[float], nesting: Sequence[int] = ()
) -> tuple[list[list[str]], dict[tuple[int, str], tuple[float, float]]]:
    """Rows of an interval hierarchy over ``values`` and the bounds of its interval nodes.

    Level 1 puts each value in ``[b_i, b_i+1)``; level ``k + 1`` joins
    ``nesting[k - 1]`` adjacent groups of level ``k`` (the last group may be
    smaller); the root ``*`` comes last.

    Raises
    ------
    InputError
        A value lies outside ``[breaks[0], breaks[-1])``.

    Examples
    --------
    >>> rows, bounds = interval_rows([3, 25, 61], [0, 20, 40, 60, 80], nesting=[2])
    >>> rows
    [['3', '[0, 20)', '[0, 40)', '*'], ['25', '[20, 40)', '[0, 40)', '*'], ['61', '[60, 80)', '[40, 80)', '*']]
    """
    breaks = [float(b) for b in breaks]
    x = np.unique(np.asarray(list(values), dtype=float))
    x = x[~np.isnan(x)]
    outside = (x < breaks[0]) | (x >= breaks[-1])
    if outside.any():
        raise InputError(
            f"the value {_fmt(x[outside][0])} lies outside the intervals [{_fmt(breaks[0])}, {_fmt(breaks[-1])}); "
            "widen the first or last break."
        )
    groups = [(breaks[i], breaks[i + 1]) for i in range(len(breaks) - 1)]
    levels = [groups]
    for size in nesting:
        below = levels[-1]
        levels.append([(below[i][0], below[min(i + size, len(below)) - 1][1]) for i in range(0, len(below), size)])
    index = np.searchsorted(breaks, x, side="right") - 1
    rows, bounds = [], {}
    for value, i in zip(x, index):
        row = [_fmt(value)]
        j = int(i)
        for k, level in enumerate(levels):
            if k > 0:
                j //= nesting[k - 1]
            lo, hi = level[j]
            label = interval_label(lo, hi)
            row.append(label)
            bounds[(k + 1, label)] = (lo, hi)
        row.append(ROOT_LABEL)
        rows.append(row)
    return rows, bounds


def mask_rows(codes: Iterable[str], side: str = "right") -> list[list[str]]:
    """Rows of a masking hierarchy: level ``k`` replaces ``k`` characters by ``*``.

    Characters are masked from the right (``side="right"``: postcodes, NUTS,
    ISCO) or from the left.  The hierarchy has as many levels as the longest
    code has characters; the last level is the root ``*``.  A shorter code
    stays fully masked (``**``) until the root.

    Examples
    --------
    >>> mask_rows(["7501", "7502", "69"])
    [['7501', '750*', '75**', '7***', '*'], ['7502', '750*', '75**', '7***', '*'], ['69', '6*', '**', '**', '*']]
    """
    if side not in MASK_SIDES:
        raise InputError(f"mask must be 'right' or 'left', got {side!r}.")
    codes = list(dict.fromkeys(str(c) for c in codes))
    height = max((len(c) for c in codes), default=1)
    rows = []
    for code in codes:
        row = [code]
        n = len(code)
        for k in range(1, height):
            m = min(k, n)
            row.append(code[: n - m] + "*" * m if side == "right" else "*" * m + code[m:])
        row.append(ROOT_LABEL)
        rows.append(row)
    return rows


def grouping_rows(categories: Sequence[str], sizes: Sequence[int]) -> list[list[str]]:
    """Rows of a hierarchy over an ordered list of categories grouped by ``sizes``.

    Level 1 joins ``sizes[0]`` adjacent categories, level ``k`` joins
    ``sizes[k - 1]`` adjacent groups of level ``k - 1``; a group is labelled
    ``[first, last]`` by its first and last category (ARX's "bounding values"),
    a group of one keeps its label.

    Examples
    --------
    >>> grouping_rows(["a", "b", "c"], [2])
    [['a', '[a, b]', '*'], ['b', '[a, b]', '*'], ['c', 'c', '*']]
    """
    categories = [str(c) for c in categories]
    if len(set(categories)) != len(categories):
        raise InputError("the list of categories names a category twice; list each once.")
    columns = [list(categories)]
    spans = [(c, c) for c in categories]
    owner = list(range(len(categories)))
    for size in sizes:
        spans = [(spans[i][0], spans[min(i + size, len(spans)) - 1][1]) for i in range(0, len(spans), size)]
        owner = [o // size for o in owner]
        columns.append([_group_label(spans[o]) for o in owner])
    return [[column[i] for column in columns] + [ROOT_LABEL] for i in range(len(categories))]


def _group_label(span: tuple[str, str]) -> str:
    return span[0] if span[0] == span[1] else f"[{span[0]}, {span[1]}]"


# ---------------------------------------------------------------------------
# writing a hierarchy for the command line
# ---------------------------------------------------------------------------
def _numbers(text: str, what: str) -> list[float]:
    try:
        values = [float(x) for x in str(text).split(",") if x.strip()]
    except ValueError:
        raise InputError(f"{what} must be numbers separated by commas, got {text!r}.") from None
    if not values or not all(math.isfinite(v) for v in values):
        raise InputError(f"{what} must be numbers separated by commas, got {text!r}.")
    return values


def _sizes(text: str | None, what: str) -> list[int]:
    if not text:
        return []
    values = _numbers(text, what)
    if not all(v.is_integer() and v >= 2 for v in values):
        raise InputError(f"{what} must be whole numbers of at least 2 separated by commas, got {text!r}.")
    return [int(v) for v in values]


def parse_values(text: str) -> list[str]:
    """Leaves given on the command line: ``a,b,c`` or a whole-number range ``LO..HI``.

    >>> parse_values("1..4"), parse_values("x, y")
    (['1', '2', '3', '4'], ['x', 'y'])
    """
    m = re.fullmatch(r"\s*([+-]?\d+)\s*\.\.\s*([+-]?\d+)\s*", str(text))
    if m:
        lo, hi = int(m.group(1)), int(m.group(2))
        if hi < lo:
            raise InputError(f"the range {text!r} is empty; write LOW..HIGH with LOW <= HIGH.")
        if hi - lo > 10_000_000:
            raise InputError(f"the range {text!r} has more than ten million values; use --data instead.")
        return [str(v) for v in range(lo, hi + 1)]
    values = [normalise_label(v) for v in str(text).split(",") if v.strip()]
    if not values:
        raise InputError("--values lists no value; give a,b,c or LOW..HIGH.")
    return values


def hierarchy_rows(
    *,
    intervals: str | None = None,
    nesting: str | None = None,
    mask: str | None = None,
    categories: Sequence[str] | None = None,
    group: str | None = None,
    values: Sequence[str] | None = None,
) -> list[list[str]]:
    """The rows of a hierarchy described on the command line (``infoloss hierarchy``), checked.

    Exactly one of ``intervals`` (breaks, with ``nesting`` group sizes and the
    leaves in ``values``), ``mask`` (``right``/``left``, leaves in ``values``)
    or ``categories`` (an ordered list, grouped by ``group`` sizes) is used.

    Examples
    --------
    >>> hierarchy_rows(intervals="0,10,20", values=["3", "12"])
    [['3', '[0, 10)', '*'], ['12', '[10, 20)', '*']]
    """
    chosen = [name for name, v in (("--intervals", intervals), ("--mask", mask), ("--categories", categories))
              if v is not None]
    if len(chosen) != 1:
        raise InputError("give exactly one of --intervals, --mask or --categories to describe the hierarchy.")
    if nesting and intervals is None:
        raise InputError("--nesting applies only to --intervals; use --group with --categories.")
    if group and categories is None:
        raise InputError("--group applies only to --categories; use --nesting with --intervals.")
    if categories is not None:
        rows = grouping_rows(list(categories), _sizes(group, "--group"))
    else:
        if not values:
            raise InputError(f"{chosen[0]} needs the values (leaves): give --data FILE --column NAME or --values.")
        if mask is not None:
            if mask not in MASK_SIDES:
                raise InputError(f"--mask must be right or left, got {mask!r}.")
            rows = mask_rows(values, mask)
        else:
            breaks = _numbers(intervals, "--intervals")
            if len(breaks) < 2 or any(b >= c for b, c in zip(breaks, breaks[1:])):
                raise InputError("--intervals needs at least two strictly increasing breaks, e.g. 0,20,40,60.")
            numbers = [_to_float(v) for v in values]
            bad = [v for v, x in zip(values, numbers) if math.isnan(x)]
            if bad:
                raise InputError(f"--intervals needs numeric values, but {bad[0]!r} is not a number.")
            rows = interval_rows(numbers, breaks, _sizes(nesting, "--nesting"))[0]
    from .hierarchy import from_rows

    from_rows(rows, source="the new hierarchy")  # the same checks as when a spec reads it
    return rows
