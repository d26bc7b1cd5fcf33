"""Safe-to-share transformations applied to the aggregates at render time.

In safe mode the report shows no table cell and no histogram bin below
``min_cell`` records and no exact value of the original file:

* categories (and two-way cells) with fewer than ``min_cell`` records are
  merged into one "other" group, with secondary merging of the next-smallest
  categories until the group itself has at least ``min_cell`` records, so
  that no small count can be recovered by subtraction from the total; the
  labels of merged categories are not shown;
* adjacent histogram bins are merged until every bin has at least
  ``min_cell`` records (empty bins stay empty); density curves are computed
  from the merged histogram;
* box plots have whiskers at the 5th and 95th percentiles and no minima,
  maxima or outliers;
* statistics of the original are rounded to 3 significant digits and axis
  ranges to 2, so no exact record value is printed.
"""

from __future__ import annotations

import math
import re
from typing import Any, Sequence

import numpy as np


def round_sig(x: float | None, digits: int = 3) -> float | None:
    """Round to ``digits`` significant digits.

    >>> round_sig(987654.321), round_sig(0.0123456, 2), round_sig(0.0)
    (988000.0, 0.012, 0.0)
    """
    if x is None or not math.isfinite(x) or x == 0:
        return x
    return float(round(x, digits - 1 - int(math.floor(math.log10(abs(x))))))


def merge_small(counts: Sequence[int], min_cell: int) -> tuple[np.ndarray, int]:
    """Which cells of a one-way table are merged into "other", and the other group's count.

    Cells with 1..min_cell-1 records are merged; while the merged group has
    fewer than ``min_cell`` records, the smallest remaining non-empty cell
    joins it.  Empty cells are neither shown nor merged.

    Returns
    -------
    merged : bool array
        True for cells that go into "other".
    other : int
        The number of records in "other" (0, or at least ``min_cell`` unless
        the whole table has fewer records than that, when every cell is merged).

    Examples
    --------
    >>> m, other = merge_small([10, 3, 0, 8, 1], 5)
    >>> m.tolist(), other  # 3 + 1 = 4 < 5, so 8 joins them
    ([False, True, False, True, True], 12)
    """
    c = np.asarray(counts, dtype=np.int64)
    merged = (c > 0) & (c < min_cell)
    other = int(c[merged].sum())
    while 0 < other < min_cell:
        candidates = np.flatnonzero((c > 0) & ~merged)
        if candidates.size == 0:
            break
        j = candidates[np.argmin(c[candidates])]
        merged[j] = True
        other += int(c[j])
    return merged, other


def merge_bins(counts: Sequence[int], min_cell: int) -> list[tuple[int, int, int]]:
    """Merge adjacent histogram bins so that every non-empty bin has at least ``min_cell`` records.

    Returns ``(first, last_exclusive, count)`` groups covering all bins.  An
    empty bin stays its own group unless it lies inside a group that is
    still collecting records; a small group at the end joins the previous
    non-empty one.  When all bins together have fewer than ``min_cell``
    records, nothing is returned.

    >>> merge_bins([6, 0, 2, 0, 4, 9, 1], 5)
    [(0, 1, 6), (1, 2, 0), (2, 5, 6), (5, 7, 10)]
    """
    c = np.asarray(counts, dtype=np.int64)
    if c.sum() < min_cell:
        return []
    groups: list[tuple[int, int, int]] = []
    start, acc = 0, 0
    for i, v in enumerate(c.tolist()):
        if acc == 0 and v == 0:
            groups.append((i, i + 1, 0))
            start = i + 1
            continue
        acc += v
        if acc >= min_cell:
            groups.append((start, i + 1, acc))
            start, acc = i + 1, 0
    if acc > 0:  # a small group at the end joins the last non-empty group (and the empty bins between)
        while groups and groups[-1][2] == 0:
            groups.pop()
        first, _, n = groups.pop()
        groups.append((first, c.size, n + acc))
    return groups


_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w.])", re.IGNORECASE)
#: a quoted value as Python's repr writes it: a quote inside is escaped with a backslash ('Ann "Jo" O\'Hara')
_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"")


#: quoted spec syntax in a reason ('role: household', 'hierarchy:') is advice, not a record value
_SPEC_SNIPPET = re.compile(r"(role|scale|hierarchy|recode|pram|analyses|target)\s*:")


def hide_smallest_in_line(hidden: np.ndarray, total: np.ndarray, axis: int, k: int, *, empty_ok: bool = False) -> bool:
    """Hide (in place) the shown cell with the fewest records in row ``k`` (``axis`` 0) or column ``k`` (1) of a
    two-way table whose cell totals are ``total``; an empty cell only when ``empty_ok`` and no other is left.
    Returns whether a cell was hidden (secondary suppression)."""
    line_hidden = hidden[k] if axis == 0 else hidden[:, k]
    line_total = total[k] if axis == 0 else total[:, k]
    free = np.flatnonzero(~line_hidden & (line_total > 0))
    if free.size == 0 and empty_ok:  # only empty cells left: hiding one of them keeps the small cell unknown
        free = np.flatnonzero(~line_hidden)
    if free.size == 0:
        return False
    j = free[np.argmin(line_total[free])]
    if axis == 0:
        hidden[k, j] = True
    else:
        hidden[j, k] = True
    return True


def sanitise_reason(reason: str, known: set[str], min_cell: int = 0) -> str:
    """A not-computed reason without record values: quoted strings that are
    not variable or measure names become '…', numbers are rounded to 2
    significant digits, and a count of 1 to ``min_cell`` − 1 records
    ("and there are 3", "only 2 records") becomes "fewer than ``min_cell``".

    >>> sanitise_reason("the breaks of 'income' (0 to 100) do not cover the values (e.g. 987654.321) of 'Ruritania'", {"income"})
    "the breaks of 'income' (0 to 100) do not cover the values (e.g. 990000) of '…'"
    >>> sanitise_reason("no household id: give it 'role: household' in the spec", set())
    "no household id: give it 'role: household' in the spec"
    """

    def quoted(m: re.Match) -> str:
        inner = m.group(1) if m.group(1) is not None else m.group(2)
        q = "'" if m.group(1) is not None else '"'
        return m.group(0) if inner in known or _SPEC_SNIPPET.match(inner) else f"{q}…{q}"

    def number(m: re.Match) -> str:
        v = float(m.group(0))
        r = round_sig(v, 2)
        return f"{r:g}" if abs(r) < 1e6 else f"{r:.0f}"

    parts = []
    last = 0
    for m in _QUOTED.finditer(reason):
        parts.append(_NUMBER.sub(number, reason[last : m.start()]))
        parts.append(quoted(m))
        last = m.end()
    parts.append(_NUMBER.sub(number, reason[last:]))
    return _small_counts(("".join(parts)), min_cell) if min_cell else "".join(parts)


#: a count of records in a reason: "there are 3", "there is only 1", "3 records", "2 complete cases",
#: "3 complete records", "2 distinct original records"; not a rule's threshold ("at least 3 records", "fewer than 2")
_COUNT = re.compile(r"(?P<lead>\bthere (?:are|is) (?:only )?)(?P<n>\d+)\b(?! ?%)|"
                    r"(?<!at least )(?<!at most )(?<!fewer than )(?<!more than )(?<!less than )"
                    r"(?:\bonly )?\b(?P<n2>\d+)(?P<unit> (?:(?:protected|original|distinct|missing|suppressed|changed|"
                    r"complete|unique|training|held-out) ){0,2}(?:records?|complete cases?|values?)\b)")


def _small_counts(reason: str, min_cell: int) -> str:
    """``reason`` with its counts of 1 to ``min_cell`` − 1 records written "fewer than ``min_cell``".

    >>> _small_counts("it needs at least 7 records with every variable present, and there are 3", 5)
    'it needs at least 7 records with every variable present, and there are fewer than 5'
    >>> _small_counts("only 2 records have a value; 40 records in all", 5)
    'fewer than 5 records have a value; 40 records in all'
    >>> _small_counts("3 protected values of 'sex' do not contain their original value", 5)
    "fewer than 5 protected values of 'sex' do not contain their original value"
    >>> _small_counts("the original file has 3 complete records for 4 coefficients; it needs at least 2 records", 5)
    'the original file has fewer than 5 complete records for 4 coefficients; it needs at least 2 records'
    """
    def small(m: re.Match) -> str:
        n = int(m.group("n") if m.group("n") is not None else m.group("n2"))
        if not 0 < n < min_cell:
            return m.group(0)
        if m.group("lead") is not None:
            return f"{m.group('lead').replace('only ', '')}fewer than {min_cell}"
        return f"fewer than {min_cell}{m.group('unit')}"

    return _COUNT.sub(small, reason)


def small_counts_in_notes(obj: Any, min_cell: int) -> Any:
    """``obj`` (the analyses block) with the counts of 1 to ``min_cell`` − 1 records in its ``note`` and
    ``notes`` texts written "fewer than ``min_cell``" (:func:`_small_counts`): a regression on a few records
    says how many it has."""
    def walk(obj: Any, in_notes: bool) -> Any:
        if isinstance(obj, str):
            return _small_counts(obj, min_cell) if in_notes else obj
        if isinstance(obj, dict):
            return {k: walk(v, k in ("note", "notes")) for k, v in obj.items()}
        if isinstance(obj, list):
            return [walk(x, in_notes) for x in obj]
        return obj

    return walk(obj, False)
