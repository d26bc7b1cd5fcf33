"""Generalisation hierarchies: read, build, validate, match generalised values, write.

A hierarchy describes how the values (leaves) of a variable are generalised,
level by level, up to a single root.  infoloss reads three kinds, all declared
with ``hierarchy:`` in the spec (docs/spec.md):

* an **ARX CSV file** — ``;``-separated, no header, one row per leaf, column 0
  the leaf and column ``k`` its level-``k`` value (ARX's own format);
* **numeric intervals** without a file — ``{intervals: [0, 20, 40, 60, 80, 120],
  nesting: [2, 2]}``: level 1 puts each value in its left-closed interval
  ``[b_i, b_i+1)``, each further level joins ``nesting[k]`` adjacent groups of
  the level below; the leaves are the distinct values of the original (as ARX
  builds an interval hierarchy over the data);
* **masking of codes** — ``{mask: right}`` (or ``left``): level ``k`` replaces
  ``k`` characters of a code by ``*`` (postcodes, NUTS, ISCO); the leaves are
  the distinct codes of the original.

Every hierarchy ends in one root (a file whose last column holds several values
gets a root ``*`` above them).  A node is a value at a level — the pair
``(level, label)``, as in ARX — and knows its leaves (``n_leaves_under`` is
ARX's ``L(v)``) and, for numeric leaves, the span of values it covers.

:func:`match_values` maps the values of a generalised file to nodes: a leaf, a
label of any level, an interval written in a common notation (``20-39``,
``[20, 40)``, ``[20, 40[``, ``20 to 39``, ``>=80``, ``<20``, ``80+``) that
covers exactly the leaves of a node, or a suppression (missing, a value made of
``*`` only, or a code listed under ``suppressed:``).  The values of a column
are resolved together: when all of them are nodes of one level (a full-domain
generalisation, ARX's scheme) that level is used for every value.
"""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd

from ._files import resolved
from .errors import InputError, SpecError, excerpt, shortened
from .hierarchy_build import (  # noqa: F401  (re-exported)
    MASK_SIDES,
    ROOT_LABEL,
    _fmt,
    _to_float,
    grouping_rows,
    hierarchy_rows,
    interval_label,
    interval_rows,
    mask_rows,
    parse_values,
    to_arx_csv,
)
from .spec import normalise_label

__all__ = [
    "Hierarchy",
    "HierarchyRule",
    "hierarchy_rule",
    "check_hierarchy_spec",
    "read_arx_csv",
    "from_rows",
    "interval_rows",
    "mask_rows",
    "grouping_rows",
    "to_arx_csv",
    "hierarchy_rows",
    "parse_values",
    "parse_interval",
    "match_values",
    "is_suppression",
    "ROOT_LABEL",
]

HIERARCHY_KEYS = ("file", "separator", "suppressed", "intervals", "nesting", "mask")
_NUMBER = r"[+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+)(?:[eE][+-]?\d+)?"


# ---------------------------------------------------------------------------
# the hierarchy
# ---------------------------------------------------------------------------
@dataclass
class Hierarchy:
    """A generalisation hierarchy with integer node ids.

    Attributes
    ----------
    source : str
        Where it comes from, for messages (a file name, ``intervals``, ``mask``).
    kind : str
        ``"file"``, ``"intervals"``, ``"mask"`` or ``"flat"`` (a variable
        without a hierarchy: its values and a root).
    leaves : list of str
        The leaf labels (canonical text, see :func:`infoloss.spec.normalise_label`).
    table : ndarray, shape (n_leaves, height + 1)
        ``table[i, k]`` is the node id of leaf ``i`` at level ``k``
        (``table[i, 0] == i``; the last column is the root).
    labels : list of str
        The label of every node id.
    level : ndarray of int
        The level of every node (0 for leaves).
    n_leaves_under : ndarray of int64
        ``L(v)``: the number of leaves under every node.
    low, high : ndarray of float
        The numeric span of every node (its interval's bounds for an interval
        hierarchy, else the smallest and largest numeric leaf under it); NaN
        when the leaves are not numbers.
    domain : (float, float) or None
        The numeric domain: the outer breaks of an interval hierarchy, else
        the smallest and largest numeric leaf.
    suppressed : tuple of str
        Extra codes that mean "suppressed" besides missing and ``*``.
    first_row_apart : bool
        A file's first row shares no value, at any level, with any other row
        (its own top among several): what a header row looks like, as ARX
        files have none.  Checked against the data (:mod:`infoloss.generalised`).
    added_root : bool
        The root ``*`` was added above several top values: the rows as given
        are one level lower (ARX counts their height, :attr:`given_height`).
    """

    source: str
    kind: str
    leaves: list[str]
    table: np.ndarray
    labels: list[str]
    level: np.ndarray
    n_leaves_under: np.ndarray
    low: np.ndarray
    high: np.ndarray
    domain: tuple[float, float] | None
    suppressed: tuple[str, ...] = ()
    first_row_apart: bool = False
    added_root: bool = False
    _index: dict = field(default_factory=dict, repr=False)

    @property
    def height(self) -> int:
        """The number of levels above the leaves (columns − 1)."""
        return self.table.shape[1] - 1

    @property
    def given_height(self) -> int:
        """The height of the rows as given, without an added root (ARX's height of a hierarchy: its columns − 1)."""
        return self.height - 1 if self.added_root else self.height

    @property
    def n_leaves(self) -> int:
        return self.table.shape[0]

    @property
    def n_nodes(self) -> int:
        return len(self.labels)

    @property
    def root(self) -> int:
        return int(self.table[0, -1])

    @property
    def numeric(self) -> bool:
        """True when every leaf is a number (the node spans are defined)."""
        return self.domain is not None

    @property
    def parent(self) -> np.ndarray:
        """The parent node id of every node (-1 for the root)."""
        if "parent" not in self._index:
            parent = np.full(self.n_nodes, -1, dtype=np.int32)
            for k in range(self.height):
                parent[self.table[:, k]] = self.table[:, k + 1]
            self._index["parent"] = parent
        return self._index["parent"]

    def leaf_id(self, label: str) -> int:
        """The leaf id of a canonical label, or -1."""
        if "leaf" not in self._index:
            self._index["leaf"] = {leaf: i for i, leaf in enumerate(self.leaves)}
        return self._index["leaf"].get(label, -1)

    def nodes_labelled(self, label: str) -> list[int]:
        """The node ids with this label, lowest level first."""
        if "label" not in self._index:
            index: dict[str, list[int]] = {}
            for node, text in enumerate(self.labels):
                index.setdefault(text, []).append(node)
            self._index["label"] = index
        return self._index["label"].get(label, [])

    def leaf_values(self) -> np.ndarray:
        """The leaves as numbers (NaN when a leaf is not a number)."""
        if "values" not in self._index:
            self._index["values"] = np.array([_to_float(x) for x in self.leaves], dtype=float)
        return self._index["values"]

    def nodes_covering(self, leaf_ids: np.ndarray) -> list[int]:
        """The nodes whose leaves are exactly ``leaf_ids``, lowest level first."""
        if "leafsets" not in self._index:
            sets: dict[bytes, list[int]] = {}
            for k in range(self.height + 1):
                column = self.table[:, k]
                order = np.argsort(column, kind="stable")
                nodes, starts = np.unique(column[order], return_index=True)
                for node, part in zip(nodes, np.split(order, starts[1:])):
                    sets.setdefault(np.sort(part).astype(np.int64).tobytes(), []).append(int(node))
            self._index["leafsets"] = sets
        key = np.sort(np.asarray(leaf_ids, dtype=np.int64)).tobytes()
        return self._index["leafsets"].get(key, [])

    def ancestors(self, leaf_ids: np.ndarray, level: int | np.ndarray) -> np.ndarray:
        """The node of every leaf at ``level`` (a leaf id of -1 gives the root)."""
        leaf_ids = np.asarray(leaf_ids)
        out = self.table[np.maximum(leaf_ids, 0), level]
        return np.where(leaf_ids < 0, self.root, out).astype(np.int32, copy=False)

    def under(self, leaf_ids: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """Whether each leaf lies under the matching node (a missing leaf lies only under the root)."""
        leaf_ids = np.asarray(leaf_ids)
        nodes = np.asarray(nodes)
        at = self.table[np.maximum(leaf_ids, 0), self.level[nodes]]
        return np.where(leaf_ids < 0, nodes == self.root, at == nodes)


# ---------------------------------------------------------------------------
# building from rows
# ---------------------------------------------------------------------------
def from_rows(
    rows: Sequence[Sequence[str]],
    *,
    source: str,
    kind: str = "file",
    lines: Sequence[int] | None = None,
    bounds: dict[tuple[int, str], tuple[float, float]] | None = None,
    domain: tuple[float, float] | None = None,
    suppressed: Iterable[str] = (),
) -> Hierarchy:
    """Build a :class:`Hierarchy` from rows ``[leaf, level1, ..., root]``.

    Checks that the rows have equal length, that no cell is empty, that no
    leaf is listed twice and that every value has one parent (a tree); each
    error is a :class:`~infoloss.errors.SpecError` naming ``source`` and the
    line (``lines[i]`` is the line number of row ``i``, default ``i + 1``).
    A root ``*`` is added when the last column has several values.
    ``bounds`` gives the interval ``(low, high)`` of nodes ``(level, label)``
    of an interval hierarchy.

    Examples
    --------
    >>> h = from_rows([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]], source="example")
    >>> h.height, h.n_leaves, [h.labels[n] for n in h.table[0]]
    (2, 3, ['a', 'ab', '*'])
    >>> h.n_leaves_under[h.nodes_labelled("ab")].tolist(), int(h.n_leaves_under[h.root])
    ([2], 3)
    """
    if not rows:
        raise SpecError(f"the hierarchy {source} has no rows; it needs one row per value (leaf).")
    lines = list(lines) if lines is not None else list(range(1, len(rows) + 1))
    cells = [[normalise_label(c) for c in row] for row in rows]
    _check_rows(cells, lines, source)
    n_file_columns = len(cells[0])
    added_root = len(set(row[-1] for row in cells)) > 1
    if added_root or len(cells[0]) == 1:
        cells = [row + [ROOT_LABEL] for row in cells]
    n, width = len(cells), len(cells[0])
    columns = [np.array([row[k] for row in cells], dtype=object) for k in range(width)]
    table = np.empty((n, width), dtype=np.int32)
    labels: list[str] = []
    levels: list[int] = []
    for k, column in enumerate(columns):
        codes, uniques = pd.factorize(column)
        table[:, k] = codes + len(labels)
        labels.extend(str(u) for u in uniques)
        levels.extend([k] * len(uniques))
    _check_tree(table, labels, lines, source)
    n_nodes = len(labels)
    counts = np.bincount(table.ravel(), minlength=n_nodes).astype(np.int64)
    level = np.asarray(levels, dtype=np.int16)
    low, high, dom = _spans(cells, table, n_nodes, bounds, domain)
    return Hierarchy(
        source=source,
        kind=kind,
        leaves=[row[0] for row in cells],
        table=table,
        labels=labels,
        level=level,
        n_leaves_under=counts,
        low=low,
        high=high,
        domain=dom,
        suppressed=tuple(normalise_label(s) for s in suppressed),
        first_row_apart=kind == "file" and _first_row_apart(cells, n_file_columns),
        added_root=added_root and n_file_columns > 1,
    )


def _first_row_apart(cells: list[list[str]], n_columns: int) -> bool:
    """True when the first of three or more rows shares no value with any other row in the file's ``n_columns``."""
    if len(cells) < 3:
        return False
    return all(all(row[k] != cells[0][k] for row in cells[1:]) for k in range(n_columns))


def _check_rows(cells: list[list[str]], lines: list[int], source: str) -> None:
    width = len(cells[0])
    seen: dict[str, int] = {}
    for row, line in zip(cells, lines):
        if len(row) != width:
            raise SpecError(
                f"the hierarchy {source} has {len(row)} columns at line {line} but {width} at line {lines[0]}; "
                "every row needs one value per level (leaf first, root last)."
            )
        if any(c == "" for c in row):
            raise SpecError(f"the hierarchy {source} has an empty value at line {line}; fill every level of every row.")
        if row[0] in seen:
            raise SpecError(
                f"the hierarchy {source} lists the value {row[0]!r} twice (lines {seen[row[0]]} and {line}); "
                "list every leaf once."
            )
        seen[row[0]] = line


def _check_tree(table: np.ndarray, labels: list[str], lines: list[int], source: str) -> None:
    """Every node has one parent: a value of level k generalises to one value of level k + 1."""
    for k in range(table.shape[1] - 1):
        child, parent = table[:, k], table[:, k + 1]
        first = np.full(len(labels), -1, dtype=np.int64)
        rows = np.arange(len(child))
        # the first row of each child node, then compare every row's parent with it
        order = np.argsort(child, kind="stable")
        starts = np.unique(child[order], return_index=True)[1]
        first[child[order][starts]] = rows[order][starts]
        bad = parent != parent[first[child]]
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            j = int(first[child[i]])
            raise SpecError(
                f"the hierarchy {source} generalises {labels[child[i]]!r} (level {k}) to {labels[parent[i]]!r} at "
                f"line {lines[i]} but to {labels[parent[j]]!r} at line {lines[j]}; a value needs one parent per level."
            )


def _spans(
    cells: list[list[str]],
    table: np.ndarray,
    n_nodes: int,
    bounds: dict[tuple[int, str], tuple[float, float]] | None,
    domain: tuple[float, float] | None,
) -> tuple[np.ndarray, np.ndarray, tuple[float, float] | None]:
    values = np.array([_to_float(row[0]) for row in cells], dtype=float)
    low = np.full(n_nodes, np.nan)
    high = np.full(n_nodes, np.nan)
    if np.isnan(values).any():
        return low, high, None
    for k in range(table.shape[1]):
        column = table[:, k]
        order = np.argsort(column, kind="stable")
        nodes, starts = np.unique(column[order], return_index=True)
        low[nodes] = np.minimum.reduceat(values[order], starts)
        high[nodes] = np.maximum.reduceat(values[order], starts)
    dom = domain if domain is not None else (float(values.min()), float(values.max()))
    if bounds:
        labels_at = {(k, cells[i][k]): int(table[i, k]) for k in range(1, table.shape[1]) for i in range(len(cells))}
        for key, (lo, hi) in bounds.items():
            node = labels_at.get(key)
            if node is not None:
                low[node], high[node] = lo, hi
        root = int(table[0, -1])
        low[root], high[root] = dom
    return low, high, dom


# ---------------------------------------------------------------------------
# ARX CSV files
# ---------------------------------------------------------------------------
_FILE_CACHE: dict[tuple, Hierarchy] = {}


def read_arx_csv(path: str | Path, *, separator: str = ";", suppressed: Iterable[str] = ()) -> Hierarchy:
    """Read an ARX hierarchy CSV (``;``-separated, no header, leaf first, one row per leaf).

    Blank lines are skipped; a byte-order mark and CRLF line ends are accepted.
    The result is cached by path, modification time and size.

    Raises
    ------
    SpecError
        The file is missing or unreadable, a row has a different number of
        columns, a cell is empty, a leaf is listed twice, or a value has two
        parents (the message names the file and the line).
    """
    path = Path(path)
    try:
        stat = path.stat()
    except OSError:
        raise SpecError(f"the hierarchy file {path} does not exist; check its path.") from None
    key = (str(resolved(path)), stat.st_mtime_ns, stat.st_size, separator, tuple(suppressed))
    if key in _FILE_CACHE:
        return _FILE_CACHE[key]
    if path.is_dir():
        raise SpecError(f"the hierarchy file {path} is a folder; give the path of a CSV file.")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise SpecError(f"the hierarchy file {path} is not UTF-8 text; save it as UTF-8.") from None
    except OSError as exc:
        raise SpecError(f"cannot read the hierarchy file {path}: {exc.strerror or exc}.") from None
    if "\x00" in text:  # valid UTF-8 but not text: a binary file (a spreadsheet, an archive) named by mistake
        raise SpecError(f"the hierarchy file {path} is not a text file (it holds NUL bytes); give the hierarchy as a "
                        "CSV text file, one row per value.")
    rows, lines = _csv_rows(text, separator, path)
    if not rows:
        raise SpecError(f"the hierarchy file {path} is empty; it needs one row per value (leaf first, root last).")
    if all(len(row) == 1 for row in rows):
        other = next((sep for sep in (",", "\t", "|", ";") if sep != separator and all(sep in row[0] for row in rows)),
                     None)
        if other is not None:  # one column is no hierarchy: the rows are separated by another character
            shown = {"\t": "a tab"}.get(other, repr(other))
            written = '"\\t"' if other == "\t" else repr(other)  # YAML reads a tab only in double quotes
            raise SpecError(f"the rows of the hierarchy file {path} hold no {separator!r} but each holds {shown}; give "
                            f"its separator in the spec (hierarchy: {{file: {path.name}, separator: {written}}}).")
    hierarchy = from_rows(rows, source=path.name, kind="file", lines=lines, suppressed=suppressed)
    _FILE_CACHE[key] = hierarchy
    return hierarchy


def _csv_rows(text: str, separator: str, path: Path) -> tuple[list[list[str]], list[int]]:
    """The rows of a hierarchy file's text and the line each starts on, blank lines skipped.

    Read as ARX reads them (a CSV parser): a value may be put in double
    quotes, inside which the separator and line breaks are part of the value
    and a quote is written twice (``""``).  A quote that is never closed, or
    text after a closing quote, is an error naming the line.
    """
    if separator in ('"', "\n", "\r"):
        raise SpecError(f"the separator of the hierarchy file {path} cannot be {separator!r}, which CSV reserves (for "
                        "quoting values or ending rows); give the character between the values of a row.")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=separator, quotechar='"', doublequote=True,
                        strict=True)
    rows, lines, end = [], [], 0
    try:
        for row in reader:
            if len(row) > 1 or "".join(row).strip():
                rows.append(row)
                lines.append(end + 1)
            end = reader.line_num
    except csv.Error as exc:
        if "end of data" in str(exc):
            raise SpecError(f"the hierarchy file {path} has a double quote that opens a value at line {end + 1} and "
                            "is never closed; close it, or write a quote inside a value twice (\"\").") from None
        raise SpecError(f"the hierarchy file {path} has text after the closing double quote of a value at line "
                        f"{reader.line_num}; put the whole value in the quotes, and write a quote inside it twice "
                        "(\"\").") from None
    return rows, lines


# ---------------------------------------------------------------------------
# the spec's hierarchy: a rule that builds the hierarchy (from the data when needed)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class HierarchyRule:
    """The ``hierarchy:`` of one variable, validated; :meth:`build` gives the :class:`Hierarchy`."""

    variable: str
    kind: str  # "file", "intervals", "mask"
    path: Path | None = None
    separator: str = ";"
    breaks: tuple[float, ...] = ()
    nesting: tuple[int, ...] = ()
    side: str = "right"
    suppressed: tuple[str, ...] = ()

    @property
    def source(self) -> str:
        if self.kind == "file":
            return self.path.name
        if self.kind == "intervals":
            return "intervals " + shortened([_fmt(b) for b in self.breaks], "break")
        return f"mask: {self.side}"

    @property
    def needs_data(self) -> bool:
        """True when the leaves come from the original's values (intervals, masks)."""
        return self.kind != "file"

    def build(self, original_values: Sequence[str] = ()) -> Hierarchy:
        """The hierarchy; for intervals and masks, over the distinct original values (canonical text)."""
        if self.kind == "file":
            return read_arx_csv(self.path, separator=self.separator, suppressed=self.suppressed)
        values = list(dict.fromkeys(v for v in original_values if v is not None))
        if not values:
            raise InputError(f"variable {self.variable!r} has no value in the original to build its hierarchy from.")
        if self.kind == "mask":
            return from_rows(mask_rows(values, self.side), source=self.source, kind="mask", suppressed=self.suppressed)
        numbers = [_to_float(v) for v in values]
        bad = [v for v, x in zip(values, numbers) if math.isnan(x)]
        if bad:
            raise InputError(
                f"variable {self.variable!r} has the value {bad[0]!r}, which is not a number, but its hierarchy is "
                "made of numeric intervals."
            )
        try:
            rows, bounds = interval_rows(numbers, self.breaks, self.nesting)
        except InputError as exc:
            raise InputError(f"variable {self.variable!r}: {exc}") from None
        return from_rows(
            rows,
            source=self.source,
            kind="intervals",
            bounds=bounds,
            domain=(self.breaks[0], self.breaks[-1]),
            suppressed=self.suppressed,
        )


_RULE_CACHE: dict[tuple, HierarchyRule] = {}


def _finite(number: int | float) -> bool:
    """A finite number that a float can hold (a whole number of 400 digits cannot: ``math.isfinite`` raises)."""
    return math.isfinite(number) if isinstance(number, float) else abs(number) < 2**1024


def hierarchy_rule(name: str, value: Any, base_dir: Path) -> HierarchyRule:
    """The validated rule of a spec's ``hierarchy:`` value (a Path or a mapping)."""
    key = (name, str(value) if not isinstance(value, dict) else repr(sorted(value.items(), key=str)), str(base_dir))
    if key not in _RULE_CACHE:
        _RULE_CACHE[key] = _parse_rule(name, value, base_dir)
    return _RULE_CACHE[key]


def check_hierarchy_spec(name: str, value: Any, base_dir: Path) -> None:
    """Validate a variable's ``hierarchy:`` when the spec is loaded (a file is read and checked)."""
    rule = hierarchy_rule(name, value, base_dir)
    if rule.kind == "file":
        rule.build()


def _suppressed(codes: Any, where: str) -> tuple[str, ...]:
    """The ``suppressed:`` codes of a hierarchy, each a single value (a code, or a list of them)."""
    if isinstance(codes, (str, int, float)):
        codes = [codes]
    if not isinstance(codes, (list, tuple)):
        raise SpecError(f"'suppressed' in {where} must be a list of codes.")
    nested = next((c for c in codes if isinstance(c, (list, tuple, dict, set))), None)
    if nested is not None:
        raise SpecError(f"'suppressed' in {where} holds {excerpt(nested, 60)}, which is not a single value; list "
                        "each suppression code on its own, e.g. suppressed: ['?', XX].")
    return tuple(normalise_label(c) for c in codes)


def _separator(value: dict, where: str) -> str:
    """The ``separator`` of a hierarchy file (one character; not the quote or a line break, which CSV reserves)."""
    separator = value.get("separator", ";")
    if not isinstance(value["file"], (str, Path)) or not isinstance(separator, str) or len(separator) != 1:
        raise SpecError(f"{where} needs 'file' as a path and 'separator' as one character.")
    if separator in ('"', "\n", "\r"):
        raise SpecError(f"'separator' in {where} is {separator!r}, which CSV reserves (for quoting values or ending "
                        "rows); give the character between the values of a row, such as ';' or ','.")
    return separator


def _parse_rule(name: str, value: Any, base_dir: Path) -> HierarchyRule:
    where = f"'hierarchy' of variable {name!r}"
    if isinstance(value, (str, Path)):
        return HierarchyRule(name, "file", path=Path(base_dir) / value)
    if not isinstance(value, dict):
        raise SpecError(f"{where} must be a file path, {{intervals: [...]}} or {{mask: right}}.")
    unknown = [k for k in value if k not in HIERARCHY_KEYS]
    if unknown:
        raise SpecError(f"unknown key {unknown[0]!r} in {where}; allowed keys are {', '.join(HIERARCHY_KEYS)}.")
    kinds = [k for k in ("file", "intervals", "mask") if k in value]
    if len(kinds) != 1:
        raise SpecError(f"{where} needs exactly one of 'file', 'intervals' or 'mask'.")
    suppressed = _suppressed(value.get("suppressed", ()), where)
    kind = kinds[0]
    if "nesting" in value and kind != "intervals":  # a file's levels are its columns; a mask's are its characters
        raise SpecError(f"'nesting' in {where} applies only to 'intervals'.")
    if kind == "file":
        separator = _separator(value, where)  # checks 'file' is a path before it is joined to the folder
        return HierarchyRule(name, "file", path=Path(base_dir) / value["file"], separator=separator,
                             suppressed=suppressed)
    if kind == "mask":
        if value["mask"] not in MASK_SIDES:
            raise SpecError(f"'mask' in {where} must be right or left, got {value['mask']!r}.")
        return HierarchyRule(name, "mask", side=value["mask"], suppressed=suppressed)
    breaks = value["intervals"]
    if (
        not isinstance(breaks, list)
        or len(breaks) < 2
        or not all(isinstance(b, (int, float)) and not isinstance(b, bool) and _finite(b) for b in breaks)
    ):
        infinite = isinstance(breaks, list) and any(isinstance(b, float) and math.isinf(b) for b in breaks)
        if infinite:  # values beyond the first or last break are outside every interval: give finite ends
            raise SpecError(f"'intervals' in {where} must be finite numbers (the breaks); replace ±.inf by ends "
                            "below the smallest and above the largest value.")
        raise SpecError(f"'intervals' in {where} must be a list of at least two numbers (the breaks).")
    if any(b >= c for b, c in zip(breaks, breaks[1:])):
        raise SpecError(f"'intervals' in {where} must be strictly increasing.")
    nesting = value.get("nesting", [])
    if isinstance(nesting, int) and not isinstance(nesting, bool):
        nesting = [nesting]
    if not isinstance(nesting, list) or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 2 for s in nesting):
        raise SpecError(f"'nesting' in {where} must be a list of whole numbers of at least 2 (groups joined per level).")
    return HierarchyRule(
        name, "intervals", breaks=tuple(float(b) for b in breaks), nesting=tuple(nesting), suppressed=suppressed
    )


# ---------------------------------------------------------------------------
# matching generalised values to nodes
# ---------------------------------------------------------------------------
_INTERVAL_RES = [
    # [a, b)  (a, b]  [a, b[  ]a, b]  [a; b]
    (re.compile(rf"^([\[\]\(])\s*({_NUMBER})\s*[,;]\s*({_NUMBER})\s*([\]\[\)])$"), "brackets"),
    # a-b  a – b  a to b  a..b
    (re.compile(rf"^({_NUMBER})\s*(?:-|–|—|to|\.\.|:)\s*({_NUMBER})$", re.IGNORECASE), "range"),
    (re.compile(rf"^(>=|≥|=>|>|<=|≤|=<|<)\s*({_NUMBER})$"), "open"),
    (re.compile(rf"^({_NUMBER})\s*(\+|or more|and over|and more|or older)$", re.IGNORECASE), "plus"),
]


def _number(text: str) -> float:
    return float(text.replace(",", ".")) if text.count(",") == 1 and "." not in text else float(text)


def parse_interval(text: str) -> tuple[float, float, bool, bool] | None:
    """``(low, high, low_closed, high_closed)`` of an interval in a common notation, or None.

    Examples
    --------
    >>> parse_interval("20-39"), parse_interval("[20, 40)"), parse_interval("[20, 40[")
    ((20.0, 39.0, True, True), (20.0, 40.0, True, False), (20.0, 40.0, True, False))
    >>> parse_interval(">=80"), parse_interval("<20"), parse_interval("80+"), parse_interval("Europe")
    ((80.0, inf, True, False), (-inf, 20.0, False, False), (80.0, inf, True, False), None)
    """
    text = str(text).strip()
    for pattern, kind in _INTERVAL_RES:
        m = pattern.match(text)
        if not m:
            continue
        try:
            if kind == "brackets":
                lo, hi = _number(m.group(2)), _number(m.group(3))
                return lo, hi, m.group(1) == "[", m.group(4) == "]"
            if kind == "range":
                return _number(m.group(1)), _number(m.group(2)), True, True
            if kind == "open":
                op, x = m.group(1), _number(m.group(2))
                if op in (">=", "≥", "=>"):
                    return x, math.inf, True, False
                if op == ">":
                    return x, math.inf, False, False
                if op in ("<=", "≤", "=<"):
                    return -math.inf, x, False, True
                return -math.inf, x, False, False
            return _number(m.group(1)), math.inf, True, False
        except ValueError:
            return None
    return None


def is_suppression(label: str | None, hierarchy: Hierarchy) -> bool:
    """True for a missing value, a value made only of ``*`` or one of the hierarchy's suppression codes."""
    if label is None:
        return True
    return (label != "" and set(label) == {"*"}) or label in hierarchy.suppressed


def _interval_nodes(hierarchy: Hierarchy, text: str) -> list[int]:
    parsed = parse_interval(text)
    if parsed is None or not hierarchy.numeric:
        return []
    lo, hi, lo_closed, hi_closed = parsed
    x = hierarchy.leaf_values()
    inside = (x > lo) | ((x == lo) & lo_closed)
    inside &= (x < hi) | ((x == hi) & hi_closed)
    leaf_ids = np.flatnonzero(inside)
    nodes = hierarchy.nodes_covering(leaf_ids) if leaf_ids.size else []
    if lo != hi:  # an interval is a generalised value, even when it holds a single leaf
        nodes = [n for n in nodes if hierarchy.level[n] > 0]
    if nodes or hierarchy.kind != "intervals":
        return nodes
    # an interval hierarchy's nodes are intervals: match by bounds, reading "20-39" of whole numbers as [20, 40)
    widened = hi + 1 if hi_closed and float(lo).is_integer() and float(hi).is_integer() else None
    level1 = np.flatnonzero(hierarchy.level >= 1)
    return [
        int(n)
        for n in level1
        if hierarchy.low[n] == lo and (hierarchy.high[n] == hi or hierarchy.high[n] == widened)
    ]


def _candidates(hierarchy: Hierarchy, label: str | None) -> list[int]:
    if is_suppression(label, hierarchy):
        return [hierarchy.root]
    nodes = hierarchy.nodes_labelled(label)
    if nodes:
        return nodes
    if hierarchy.numeric:
        value = _to_float(label)
        if not math.isnan(value):
            hits = np.flatnonzero(hierarchy.leaf_values() == value)
            if hits.size:
                return [int(hits[0])]
    return _interval_nodes(hierarchy, label)


def _no_node_fix(hierarchy: Hierarchy, label: str, numbers: bool) -> str:
    """How to fix the protected value ``label`` that is no node: a mask over an original column of numbers, with
    codes shorter than ``label``, was likely built from codes that lost their leading zeros (a CSV column whose
    every value reads as a number is read as numbers)."""
    if numbers and hierarchy.kind == "mask" and any(len(leaf) < len(label) for leaf in hierarchy.leaves):
        return ("the original file's column was likely read as numbers, which drops leading zeros (00231 becomes "
                "231), so the masks were built from shortened codes; give the original with the column stored as "
                "text (Parquet, or a DataFrame read with dtype=str), as the spec has no setting that reads a CSV "
                "column as text")
    return ("fix the value, or remove 'hierarchy:' from the spec if the file was not generalised with this "
            "hierarchy")


def match_values(hierarchy: Hierarchy, labels: Sequence[str | None], *, variable: str,
                 numbers: bool = False) -> tuple[np.ndarray, int | None]:
    """The node of every distinct value of a generalised column, and the column's level.

    ``labels`` are canonical labels (None = missing).  When every value that
    is not a suppression is a node of one level ``l`` (full-domain
    generalisation), that level is used for all of them and returned;
    otherwise each value takes its lowest-level node and the level is None.
    A column whose values are all suppressed has the root's level.

    Raises
    ------
    InputError
        A value is no node of the hierarchy (the message names the variable and the value; ``numbers``: the
        original's column holds numbers, which a mask hierarchy's message names as the likely cause).

    Examples
    --------
    >>> h = from_rows([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]], source="example")
    >>> nodes, level = match_values(h, ["ab", "c", "*"], variable="v")
    >>> [h.labels[n] + "@" + str(h.level[n]) for n in nodes], level
    (['ab@1', 'c@1', '*@2'], 1)
    """
    candidates = []
    for label in labels:
        nodes = _candidates(hierarchy, label)
        if not nodes:
            raise InputError(
                f"variable {variable!r} has the value {label!r} in the protected file, which is no value of its "
                f"hierarchy {hierarchy.source} (not a leaf, a generalised value, an interval covering exactly the values "
                f"of one, or a suppression code such as *); {_no_node_fix(hierarchy, label, numbers)}."
            )
        candidates.append(nodes)
    root = hierarchy.root
    informative = [c for c in candidates if c != [root]]
    if not informative:
        return np.full(len(candidates), root, dtype=np.int32), hierarchy.height
    common = set.intersection(*(set(int(hierarchy.level[n]) for n in c) for c in informative))
    level = min(common) if common else None
    out = np.empty(len(candidates), dtype=np.int32)
    for i, nodes in enumerate(candidates):
        if level is not None and nodes != [root]:
            out[i] = next(n for n in nodes if hierarchy.level[n] == level)
        else:
            out[i] = nodes[0]
    return out, level
