"""Before/after frequency tables for the JSON result (the ``tables`` block of each scenario).

The SDC Practice Guide (IHSN / World Bank) compares the frequency tables of the key
variables before and after protection.  :func:`before_after_tables` gives, for
one scenario, the one-way table of every categorical variable and the two-way
table of every pair of categorical key variables, in the original and the
protected file, as counts of records and (when the file has survey weights)
weighted counts.  The tables come from the pair's cached tables
(:meth:`EncodedPair.table`); nothing is re-read.

Block layout (``ScenarioResult.to_dict()["tables"]``)::

    {"weight": "WGT" | null, "max_cells": 10000,
     "one_way": {VAR: {"categories": [...],
                       "original": {"count": [...], "weighted": [...]},
                       "protected": {"count": [...], "weighted": [...]}}},
     "two_way": {"A|B": {"rows": [...], "columns": [...],
                         "original": {"count": [[...]], "weighted": [[...]]},
                         "protected": {...}}},
     "skipped": {"A|B": "why"},
     "safe": null | {"min_cell": 5, "rule": "...", "merged": {...}, "suppressed": {...}}}

``"missing"`` is the last category when the variable has missing values in
either file; ``"weighted"`` is absent for a file without weights.  A table of
more than ``max_cells`` cells (10,000 by default) is not written, nor are
tables once 500,000 cells have been written; ``skipped`` says so.

Safe mode (``safe=True``; JSON ``--safe``): no count between 1 and
``min_cell − 1`` is written, in either file.  In one-way tables the small
categories are merged, jointly over both files, into one category
``"other (categories merged, min. cell N)"``, with further categories joining
it until it has 0 or at least ``min_cell`` records in each file (the rule of
the HTML report, so nothing can be recovered by subtraction from the total).
Two-way tables are tabulated over those merged categories; a cell still below
``min_cell`` in either file is suppressed (``null`` in both files and in the
weighted counts), and further cells are suppressed so that no row or column
has exactly one suppressed cell (which its total would reveal).  Weighted
counts are rounded to 3 significant digits.  ``safe.merged`` and
``safe.suppressed`` count what was merged and suppressed per table.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .pair import ORIGINAL, PROTECTED, EncodedPair

__all__ = ["before_after_tables", "safe_tables", "safe_tables_together", "MAX_CELLS", "MAX_TOTAL_CELLS"]

MAX_CELLS = 10_000  # a table with more cells is skipped
MAX_TOTAL_CELLS = 500_000  # cells written per scenario at most
MISSING = "missing"
_FILES = {ORIGINAL: "original", PROTECTED: "protected"}


def _labels(pair: EncodedPair, name: str) -> tuple[list[str], bool]:
    col = pair.categorical[name]
    has_missing = bool((col.orig < 0).any() or (col.prot < 0).any())
    cats = list(col.categories)
    missing = MISSING if MISSING not in cats else f"({MISSING})"
    return cats + ([missing] if has_missing else []), has_missing


def _trim(table: np.ndarray, keep: list[bool]) -> np.ndarray:
    """Drop the missing cell on the axes of variables missing nowhere."""
    return table[tuple(slice(None) if k else slice(0, -1) for k in keep)]


def _side(pair: EncodedPair, names: tuple[str, ...], which: str, keep: list[bool]) -> dict[str, Any]:
    out = {"count": _trim(pair.table(names, which), keep).astype(np.int64).tolist()}
    if pair.weights(which) is not None:
        out["weighted"] = _trim(pair.table(names, which, weighted=True), keep).astype(float).tolist()
    return out


def before_after_tables(
    pair: EncodedPair, *, max_cells: int = MAX_CELLS, max_total_cells: int = MAX_TOTAL_CELLS
) -> dict[str, Any]:
    """One- and two-way tables of the original and the protected file (full detail; see the module notes).

    One-way: every categorical variable not removed from the protected file.
    Two-way: every pair of categorical *key* variables (spec order).

    >>> import pandas as pd
    >>> from infoloss.pair import encode_pair
    >>> spec = {"variables": {"a": {"scale": "nominal", "role": "key"}, "b": {"scale": "nominal", "role": "key"}}}
    >>> pair = encode_pair(pd.DataFrame({"a": ["x", "y", "y"], "b": ["u", "u", "v"]}),
    ...                    pd.DataFrame({"a": ["x", "y", None], "b": ["u", "u", "v"]}), spec)
    >>> t = before_after_tables(pair)
    >>> t["one_way"]["a"]["categories"], t["one_way"]["a"]["protected"]["count"]
    (['x', 'y', 'missing'], [1, 1, 1])
    >>> t["two_way"]["a|b"]["original"]["count"]
    [[1, 0], [1, 1], [0, 0]]
    """
    names = [n for n in pair.categorical_names if pair.categorical[n].prot is not None]
    keys = [n for n in names if pair.variable(n).role == "key"]
    labels = {n: _labels(pair, n) for n in names}
    out: dict[str, Any] = {"weight": pair.spec.weight, "max_cells": int(max_cells), "one_way": {}, "two_way": {},
                           "skipped": {}, "safe": None}
    written = 0

    def room(key: str, cells: int) -> bool:
        nonlocal written
        if cells > max_cells:
            out["skipped"][key] = f"{cells:,} cells, more than the {max_cells:,} written per table"
            return False
        if written + cells > max_total_cells:
            out["skipped"][key] = f"the scenario's tables already hold {written:,} cells (at most {max_total_cells:,})"
            return False
        written += cells
        return True

    for name in names:
        cats, has_missing = labels[name]
        if room(name, len(cats)):
            out["one_way"][name] = {"categories": cats,
                                    **{_FILES[w]: _side(pair, (name,), w, [has_missing]) for w in _FILES}}
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            key = f"{a}|{b}"
            (ra, ma), (cb, mb) = labels[a], labels[b]
            if room(key, len(ra) * len(cb)):
                out["two_way"][key] = {"rows": ra, "columns": cb,
                                       **{_FILES[w]: _side(pair, (a, b), w, [ma, mb]) for w in _FILES}}
    if not keys:
        out["two_way_note"] = "no categorical key variable (role: key) in the spec, so no two-way table"
    return out


# ---------------------------------------------------------------------------
# safe mode
# ---------------------------------------------------------------------------
def other_label(min_cell: int) -> str:
    """The label of the row of categories merged in a safe table."""
    return f"other (categories merged, min. cell {min_cell})"


def merge_jointly(counts: list[np.ndarray], min_cell: int, missing: np.ndarray | None = None) -> np.ndarray:
    """Categories merged into "other": small in any table, then more until "other" is 0 or >= ``min_cell`` in each.

    ``counts``: the original's table first, then one or more protected
    files'.  Net flows between the original and a protected file count
    records too: the missing category's (``missing``: its mask) is the number
    of values suppressed, and when fewer than ``min_cell`` records moved in
    all, or when records only left their categories for missing (suppression
    alone: a category's loss is its values suppressed), every flow counts them.
    Such a flow of 1 to ``min_cell`` − 1 records merges its category, and "other" must then differ from the original's by
    0 or >= ``min_cell``.  The safe JSON's tables and the safe page's mosaics
    both merge with it, so that the two show the same categories.

    >>> merge_jointly([np.array([35, 140, 120, 5, 0]), np.array([35, 140, 118, 5, 2])], 5,
    ...               np.array([False, False, False, False, True])).tolist()
    [False, False, True, True, True]
    """
    from .report.safe import merge_small

    merged = np.zeros(counts[0].shape[0], dtype=bool)
    for c in counts:
        merged |= merge_small(c, min_cell)[0]
    flows = [np.abs(c - counts[0]) for c in counts[1:]]
    for c, flow in zip(counts[1:], flows):
        small_flow = (flow > 0) & (flow < min_cell)
        only_suppressed = missing is not None and bool((c - counts[0])[~missing].max(initial=0) <= 0)
        if 0 < flow.sum() / 2 < min_cell or only_suppressed:
            # a few records moved in all, or records only left their categories for missing (suppression): each
            # flow counts records (a category's loss is its values suppressed)
            merged |= small_flow
        elif missing is not None:  # the suppressions, a count safe mode withholds when small
            merged |= small_flow & missing
    changed = True
    while changed:
        changed = False
        for c in counts:
            other = int(c[merged].sum())
            if 0 < other < min_cell:
                free = np.flatnonzero((c > 0) & ~merged)
                if free.size:
                    merged[free[np.argmin(c[free])]] = True
                    changed = True
        for c, flow in zip(counts[1:], flows):
            net = abs(int(c[merged].sum()) - int(counts[0][merged].sum()))
            if 0 < net < min_cell:
                moving = np.flatnonzero((flow > 0) & ~merged)  # only a category that moves changes the net flow
                if moving.size:
                    merged[moving[np.argmin(flow[moving])]] = True
                    changed = True
    return merged


def _missing_mask(table: dict[str, Any]) -> np.ndarray:
    """Which category of a one-way table is the missing values'."""
    return np.array([c == MISSING for c in table["categories"]], dtype=bool)


def _grouping(merged: np.ndarray) -> tuple[np.ndarray, int]:
    """New position of every category (merged ones last, in one group) and the number of groups."""
    keep = np.flatnonzero(~merged)
    pos = np.full(merged.shape[0], keep.shape[0], dtype=np.int64)
    pos[keep] = np.arange(keep.shape[0])
    return pos, keep.shape[0] + int(merged.any())


def _regroup(table: np.ndarray, positions: list[np.ndarray], sizes: list[int]) -> np.ndarray:
    out = table
    for axis, (pos, size) in enumerate(zip(positions, sizes)):
        moved = np.moveaxis(out, axis, 0)
        summed = np.zeros((size,) + moved.shape[1:], dtype=moved.dtype)
        np.add.at(summed, pos, moved)
        out = np.moveaxis(summed, 0, axis)
    return out


def _suppress(counts: list[np.ndarray], min_cell: int, start: np.ndarray | None = None,
              missing: np.ndarray | None = None) -> np.ndarray:
    """Cells to suppress: small in any file (or in ``start``), or whose count differs between the files by fewer
    than ``min_cell`` records when that difference counts records (a few changed records in all, or suppression
    alone: only the cells of a missing row or column, ``missing``, gain), plus secondary cells so no row or column
    has exactly one."""
    from .report.safe import hide_smallest_in_line

    hidden = np.zeros(counts[0].shape, dtype=bool) if start is None else start.copy()
    for c in counts:
        hidden |= (c > 0) & (c < min_cell)
    gain = counts[-1] - counts[0]
    flow = np.abs(gain)
    only_suppressed = missing is not None and bool(gain[~missing].max(initial=0) <= 0)
    if 0 < flow.sum() / 2 < min_cell or only_suppressed:  # each cell's flow counts records
        hidden |= (flow > 0) & (flow < min_cell)
    total = sum(counts)
    changed = True
    while changed:
        changed = False
        for axis in (0, 1):
            lines = hidden.sum(axis=1 - axis)
            for k in np.flatnonzero(lines == 1):
                changed |= hide_smallest_in_line(hidden, total, axis, k, empty_ok=True)
        for c in counts:
            changed |= _no_cell_alone(c, hidden)
    return hidden


def _missing_cells(rows: list, columns: list, min_cell: int) -> np.ndarray:
    """The cells of a grouped two-way table in a row or column of missing values (or of "other", which may hold
    them)."""
    def holds_missing(label: Any) -> bool:
        return label in (MISSING, other_label(min_cell))

    return np.logical_or.outer([holds_missing(r) for r in rows], [holds_missing(c) for c in columns])


def _no_cell_alone(table: np.ndarray, hidden: np.ndarray) -> bool:
    """Hide more cells (in place) where one file's table has a line with a single hidden cell that its margins do
    not already fix: a hidden cell in a row or column empty in that file is known to be 0, so it hides nothing
    there (a small cell beside such zeros came back as its row total less the cells shown)."""
    rows, cols = table.sum(axis=1) > 0, table.sum(axis=0) > 0
    changed = False
    for axis, live, crossing in ((0, rows, cols), (1, cols, rows)):
        for k in np.flatnonzero(live):
            line_hidden = hidden[k] if axis == 0 else hidden[:, k]
            if np.count_nonzero(line_hidden & crossing) != 1:
                continue
            free = np.flatnonzero(~line_hidden & crossing)
            if free.size == 0:
                continue
            line = (table[k] if axis == 0 else table[:, k])[free]
            j = free[np.argmin(np.where(line > 0, line, np.inf))]  # the smallest non-empty cell, else the first
            if axis == 0:
                hidden[k, j] = True
            else:
                hidden[j, k] = True
            changed = True
    return changed


def _rounded(values: np.ndarray) -> list:
    from .report.safe import round_sig

    return [round_sig(float(v)) if not isinstance(v, np.ndarray) else _rounded(v) for v in values]


def safe_tables_together(blocks: list[dict[str, Any]], min_cell: int) -> list[dict[str, Any]]:
    """:func:`safe_tables` for the scenarios of one report, the original's tables made safe alike in each.

    Every scenario repeats the original's tables beside its own; merged and
    suppressed differently per scenario (the secondary cells follow each
    protected file), two scenarios' JSON together would give a suppressed
    original cell back (a row total minus a cell shown in one scenario minus
    another shown in the other).  So a category merged in any scenario is
    merged in all, and a two-way cell suppressed in any is suppressed in
    all (with secondary cells added until no scenario has a row or column
    with a single suppressed cell).
    """
    merged_labels: dict[str, set] = {}
    for block in blocks:
        for name, t in block["one_way"].items():
            merged = merge_jointly([np.asarray(t[f]["count"], dtype=np.int64) for f in _SIDES], min_cell,
                                    _missing_mask(t))
            merged_labels.setdefault(name, set()).update(c for c, m in zip(t["categories"], merged) if m)
    hidden_labels: dict[str, set] = {}
    changed = True
    while changed:  # masks only grow, so this ends
        changed = False
        for block in blocks:
            groupings = _groupings(block, min_cell, merged_labels)
            for key, t in block["two_way"].items():
                grouped = _grouped_two_way(key, t, groupings)
                if grouped is None:
                    continue
                counts, rows, columns = grouped
                known = hidden_labels.setdefault(key, set())
                start = np.array([[(r, c) in known for c in columns] for r in rows], dtype=bool).reshape(counts[0].shape)
                hidden = _suppress(counts, min_cell, start, _missing_cells(rows, columns, min_cell))
                found = {(rows[i], columns[j]) for i, j in zip(*np.nonzero(hidden))}
                if not found <= known:
                    known |= found
                    changed = True
    return [safe_tables(block, min_cell, merged_labels, hidden_labels) for block in blocks]


_SIDES = ("original", "protected")


def _groupings(block: dict[str, Any], min_cell: int, merged_labels: dict[str, set] | None) -> dict:
    """Per one-way table: the new position of each category, the number of groups and the groups' labels."""
    out = {}
    for name, t in block["one_way"].items():
        merged = merge_jointly([np.asarray(t[f]["count"], dtype=np.int64) for f in _SIDES], min_cell, _missing_mask(t))
        if merged_labels is not None:
            merged |= np.array([c in merged_labels.get(name, ()) for c in t["categories"]], dtype=bool)
        pos, size = _grouping(merged)
        cats = [c for c, m in zip(t["categories"], merged) if not m] + ([other_label(min_cell)] if merged.any() else [])
        out[name] = (pos, size, cats, merged)
    return out


def _grouped_two_way(key: str, t: dict[str, Any], groupings: dict) -> tuple | None:
    a, b = key.split("|")
    if a not in groupings or b not in groupings:
        return None
    (pa, sa, ra, _), (pb, sb, cb, _) = groupings[a], groupings[b]
    counts = [_regroup(np.asarray(t[f]["count"], dtype=np.int64), [pa, pb], [sa, sb]) for f in _SIDES]
    return counts, ra, cb


def safe_tables(block: dict[str, Any], min_cell: int, merged_labels: dict[str, set] | None = None,
                hidden_labels: dict[str, set] | None = None) -> dict[str, Any]:
    """The ``tables`` block with no count between 1 and ``min_cell − 1`` (see the module notes).

    ``merged_labels`` and ``hidden_labels`` (from :func:`safe_tables_together`) are categories to merge and
    two-way cells (row and column labels after merging) to suppress besides this block's own.
    """
    out: dict[str, Any] = {k: v for k, v in block.items() if k not in ("one_way", "two_way", "safe")}
    merged_info: dict[str, int] = {}
    suppressed_info: dict[str, int] = {}
    all_groupings = _groupings(block, min_cell, merged_labels)
    groupings: dict[str, tuple[np.ndarray, int, list[str]]] = {}
    out["one_way"] = {}
    for name, t in block["one_way"].items():
        pos, size, _, merged = all_groupings[name]
        cats = [c for c, m in zip(t["categories"], merged) if not m] + ([other_label(min_cell)] if merged.any() else [])
        groupings[name] = (pos, size, cats)
        if merged.any():
            merged_info[name] = int(merged.sum())
        entry: dict[str, Any] = {"categories": cats}
        for f in ("original", "protected"):
            entry[f] = {"count": _regroup(np.asarray(t[f]["count"]), [pos], [size]).tolist()}
            if "weighted" in t[f]:
                entry[f]["weighted"] = _rounded(_regroup(np.asarray(t[f]["weighted"]), [pos], [size]))
        out["one_way"][name] = entry
    out["two_way"] = {}
    for key, t in block["two_way"].items():
        a, b = key.split("|")
        if a not in groupings or b not in groupings:
            out.setdefault("skipped", {})[key] = "a one-way table of its variables was skipped"
            continue
        (pa, sa, ra), (pb, sb, cb) = groupings[a], groupings[b]
        counts = [_regroup(np.asarray(t[f]["count"], dtype=np.int64), [pa, pb], [sa, sb]) for f in ("original", "protected")]
        known = (hidden_labels or {}).get(key, set())
        start = np.array([[(r, c) in known for c in cb] for r in ra], dtype=bool).reshape(counts[0].shape)
        hidden = _suppress(counts, min_cell, start, _missing_cells(ra, cb, min_cell))
        if hidden.any():
            suppressed_info[key] = int(hidden.sum())
        entry = {"rows": ra, "columns": cb}
        for f, c in zip(("original", "protected"), counts):
            entry[f] = {"count": np.where(hidden, None, c).tolist()}
            if "weighted" in t[f]:
                w = _regroup(np.asarray(t[f]["weighted"], dtype=float), [pa, pb], [sa, sb])
                entry[f]["weighted"] = [[None if h else r for r, h in zip(row, hrow)]
                                        for row, hrow in zip(_rounded(w), hidden)]
        out["two_way"][key] = entry
    out["safe"] = {
        "min_cell": int(min_cell),
        "rule": "one-way: categories with 1 to min_cell-1 records in either file merged into 'other', and so is "
        "missing when its count differs between the files by 1 to min_cell-1 (and any category differing so when "
        "fewer than min_cell records moved in all, or when records only left their categories for missing); more "
        "join until 'other' has 0 or >= min_cell records in each "
        "file and differs by 0 or >= min_cell; two-way: over the merged categories, cells with 1 to min_cell-1 "
        "records in either file (or differing by that many when fewer than min_cell records moved, or only into "
        "missing) suppressed "
        "(null) in both files, plus secondary suppressions so that no row or column has a single suppressed cell; "
        "weighted counts rounded to 3 significant digits",
        "merged": merged_info,
        "suppressed": suppressed_info,
    }
    return out
