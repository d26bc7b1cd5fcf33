"""Generalised files on the encoded pair: every value of a hierarchy variable as a node of its hierarchy.

:func:`encode_generalised` is called once by :func:`infoloss.pair.encode_pair`
for the variables with a ``hierarchy:`` in the spec.  It maps each original
value to a leaf and each protected value to a node (leaf, generalised value,
interval or suppression), working on the distinct values and then mapping the
records by their codes, and stores a :class:`GeneralisedColumn` per variable in
``pair.generalised``.  Everything the measures need per record — the node, its
level, its leaf count ``L(v)``, whether it contains the original leaf — is
derived from these arrays and cached on the column.

The module also gives the hierarchy-aware views that other families use:

* :func:`changed` and :func:`partial_changes` for the record-level measures
  (a generalised value that contains the original is a partial change);
* :func:`lifted` — the variable at the protected file's level in both files,
  for the contingency tables and for the GDU model (Kocar's global recoding);
* :func:`quasi_identifiers` and :func:`classes` — the equivalence classes of
  the generalisation family.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import Any, Callable

import numpy as np
import pandas as pd

from .errors import InputError, NotComputed
from .hierarchy import ROOT_LABEL, Hierarchy, hierarchy_rule, match_values
from .spec import normalise_label

__all__ = [
    "GeneralisedColumn",
    "encode_generalised",
    "spec_suppression",
    "changed",
    "partial_changes",
    "leaf_categories",
    "lifted",
    "is_lifted",
    "lifted_or_none",
    "lifted_table",
    "tables_note",
    "quasi_identifiers",
    "classes",
    "Classes",
    "group_ids",
]


# ---------------------------------------------------------------------------
# the column
# ---------------------------------------------------------------------------
@dataclass
class GeneralisedColumn:
    """One variable of the pair as hierarchy nodes.

    Attributes
    ----------
    name : str
    hierarchy : Hierarchy
    orig_leaf : ndarray of int32
        The leaf of every original record (-1: missing in the original).
    prot_node : ndarray of int32
        The node of every protected record; a suppressed or missing value is the root.
    level : int or None
        The level of the protected values that are not suppressed when they
        all share one (full-domain generalisation, as ARX publishes); the
        root's level when every value is suppressed; None for a mix of levels
        (local recoding).
    paired : bool
        Record ``i`` of both arrays is the same record.
    declared : bool
        False for a key variable without a hierarchy in the spec (its values
        are the leaves of a one-level hierarchy; missing is the root).
    """

    name: str
    hierarchy: Hierarchy
    orig_leaf: np.ndarray
    prot_node: np.ndarray
    level: int | None
    paired: bool
    declared: bool = True
    cache: dict = field(default_factory=dict, repr=False)

    def _cached(self, key: str, compute: Callable[[], Any]) -> Any:
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]

    @property
    def is_root(self) -> np.ndarray:
        """Protected records whose value is the root (suppressed, missing or fully generalised)."""
        return self._cached("is_root", lambda: self.prot_node == self.hierarchy.root)

    @property
    def both_missing(self) -> np.ndarray | None:
        """Paired records missing in the original and suppressed in the protected file (no loss), or None."""

        def compute() -> np.ndarray | None:
            if not self.paired or not (self.orig_leaf < 0).any():
                return None
            both = (self.orig_leaf < 0) & self.is_root
            return both if both.any() else None

        return self._cached("both_missing", compute)

    @property
    def class_node(self) -> np.ndarray:
        """The node that forms equivalence classes: ``prot_node``, with a value missing in both files as the
        pseudo-node ``hierarchy.n_nodes`` (a missing value of its own, not a suppression)."""

        def compute() -> np.ndarray:
            if self.both_missing is None:
                return self.prot_node
            return np.where(self.both_missing, np.int32(self.hierarchy.n_nodes), self.prot_node)

        return self._cached("class_node", compute)

    @property
    def prot_level(self) -> np.ndarray:
        """The level of every protected value (0 for a leaf; a value missing in both files counts 0)."""

        def compute() -> np.ndarray:
            out = self.hierarchy.level[self.prot_node].astype(np.int16)
            if self.both_missing is not None:
                out[self.both_missing] = 0
            return out

        return self._cached("prot_level", compute)

    @property
    def leaf_count(self) -> np.ndarray:
        """``L(v)`` of every protected value (1 for a leaf and for a value missing in both files)."""

        def compute() -> np.ndarray:
            out = self.hierarchy.n_leaves_under[self.prot_node].astype(np.float64)
            if self.both_missing is not None:
                out[self.both_missing] = 1.0
            return out

        return self._cached("leaf_count", compute)

    @property
    def contains(self) -> np.ndarray:
        """Paired records whose protected node contains the original leaf (truthful generalisation)."""
        if not self.paired:
            raise NotComputed("it needs record-paired files to compare each value with its original")
        return self._cached("contains", lambda: self.hierarchy.under(self.orig_leaf, self.prot_node))

    def transformation_node(self) -> np.ndarray | None:
        """The original leaf generalised to the column's level (ARX's value before suppression), or None."""
        if self.level is None or not self.paired:
            return None
        return self._cached("transformation", lambda: self.hierarchy.ancestors(self.orig_leaf, self.level))


# ---------------------------------------------------------------------------
# encoding, called by encode_pair
# ---------------------------------------------------------------------------
def spec_suppression(hierarchy_value: Any, label: str | None) -> bool:
    """True when ``label`` means "suppressed" for a variable with this ``hierarchy:`` (before it is built)."""
    if label is None:
        return True
    if label != "" and set(label) == {"*"}:
        return True
    if isinstance(hierarchy_value, dict):
        codes = hierarchy_value.get("suppressed", ())
        codes = [codes] if isinstance(codes, (str, int, float)) else codes
        return label in {normalise_label(c) for c in codes or ()}
    return False


def encode_generalised(
    spec: Any,
    variables: list,
    original: pd.DataFrame,
    protected: pd.DataFrame,
    categorical: dict,
    continuous: dict,
    missing: set[str],
    paired: bool,
    original_cache: dict | None = None,
) -> dict[str, GeneralisedColumn]:
    """A :class:`GeneralisedColumn` for every analysed variable with a hierarchy (not removed).

    For a continuous variable the protected float column of the pair is
    replaced by the node's value: a leaf's own value, the midpoint of a
    generalised value's numeric span, NaN when suppressed.

    Raises
    ------
    InputError
        An original value is not a leaf, or a protected value is no node.
    """
    out: dict[str, GeneralisedColumn] = {}
    for var in variables:
        if var.hierarchy is None or var.removed:
            continue
        rule = hierarchy_rule(var.name, var.hierarchy, spec.base_dir)
        drop = missing | {normalise_label(m) for m in var.missing}
        if var.name in categorical:
            col = categorical[var.name]
            o_labels, o_codes = col.categories, col.orig
            p_labels, p_codes = col.categories, col.prot
        else:
            o_labels, o_codes = _float_factors(continuous[var.name].orig)
            p_labels, p_codes = _raw_factors(protected[var.name], drop)
        key = ("generalised", var.name, repr(var.hierarchy), str(spec.base_dir))
        if original_cache is not None and key in original_cache:
            hierarchy, orig_leaf = original_cache[key]
        else:
            hierarchy, orig_leaf = _original_leaves(rule, var.name, o_labels, o_codes)
            if original_cache is not None:
                original_cache[key] = (hierarchy, orig_leaf)
        numbers = _holds_numbers(original[var.name])  # a message names it: codes read as numbers lose leading zeros
        prot_node, level = _protected_nodes(hierarchy, var.name, p_labels, p_codes, numbers)
        out[var.name] = GeneralisedColumn(var.name, hierarchy, orig_leaf, prot_node, level, paired)
        if var.name in continuous:
            continuous[var.name].prot = _node_values(hierarchy)[prot_node]
    return out


def _holds_numbers(column: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)


def _float_factors(x: np.ndarray) -> tuple[list[str], np.ndarray]:
    codes, uniques = pd.factorize(x, use_na_sentinel=True)
    return [normalise_label(u) for u in uniques], codes.astype(np.int32, copy=False)


def _raw_factors(col: pd.Series, drop: set[str]) -> tuple[list[str | None], np.ndarray]:
    codes, uniques = pd.factorize(col, use_na_sentinel=True)
    labels = [normalise_label(u) for u in np.asarray(uniques, dtype=object)]
    return [None if label in drop else label for label in labels], codes.astype(np.int32, copy=False)


def _used(labels: list, codes: np.ndarray) -> np.ndarray:
    present = np.zeros(len(labels) + 1, dtype=bool)
    present[codes] = True  # code -1 marks the trailing cell
    return np.flatnonzero(present[:-1])


def _original_leaves(rule: Any, name: str, labels: list, codes: np.ndarray) -> tuple[Hierarchy, np.ndarray]:
    used = _used(labels, codes)
    values = [labels[i] for i in used if labels[i] is not None]
    hierarchy = rule.build(values)
    lookup = np.full(len(labels) + 1, -1, dtype=np.int32)
    numeric = hierarchy.leaf_values() if hierarchy.numeric else None
    for i in used:
        label = labels[i]
        if label is None:
            continue
        leaf = hierarchy.leaf_id(label)
        if leaf < 0 and numeric is not None:
            try:
                hits = np.flatnonzero(numeric == float(label))
            except ValueError:
                hits = np.zeros(0, dtype=int)
            leaf = int(hits[0]) if hits.size else -1
        if leaf < 0:
            raise InputError(
                f"variable {name!r} has the value {label!r} in the original file, which is not a leaf of its "
                f"hierarchy {hierarchy.source}; add a row for it to the hierarchy (every original value must be a leaf)."
            )
        lookup[i] = leaf
    if hierarchy.first_row_apart and not (lookup == 0).any() and _header_like(hierarchy, name):
        raise InputError(
            f"the first row of the hierarchy {hierarchy.source} of variable {name!r} looks like a header row: its "
            f"value {hierarchy.leaves[0]!r} is not in the original and it shares no group with any other row; "
            "delete that row (ARX hierarchy files have no header)."
        )
    return hierarchy, lookup[codes]


#: labels of a hierarchy file's levels, as a header row would name them: level1, Level 2, lvl_3, L4, gen5
_LEVEL_NAME = re.compile(r"(level|lvl|l|gen|generali[sz]ation)[\s_-]*\d+", re.IGNORECASE)


def _header_like(hierarchy: Hierarchy, name: str) -> bool:
    """Whether a hierarchy's first row, apart from the others and not a value of the data, reads as a header:
    its first cell names the variable, or its other cells name levels (``sex;level1;level2``).  Otherwise it is
    a leaf the data lacks, in a group of its own (``Never-worked;Unemployed`` in a file without a root column)."""
    cells = [hierarchy.labels[node] for node in hierarchy.table[0]]

    def plain(text: str) -> str:
        return re.sub(r"[\s_-]+", "", text).casefold()

    uppers = [c for c in cells[1:] if c != "*"]
    return plain(cells[0]) == plain(name) or (bool(uppers) and all(_LEVEL_NAME.fullmatch(c.strip()) for c in uppers))


def _protected_nodes(hierarchy: Hierarchy, name: str, labels: list, codes: np.ndarray,
                     numbers: bool = False) -> tuple[np.ndarray, int | None]:
    used = _used(labels, codes)
    nodes, level = match_values(hierarchy, [labels[i] for i in used], variable=name, numbers=numbers)
    lookup = np.full(len(labels) + 1, hierarchy.root, dtype=np.int32)
    lookup[used] = nodes
    return lookup[codes], level


def _midpoints(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """``(low + high) / 2``; where the sum is beyond the float range (bounds near ±1.8e308), ``low/2 + high/2``."""
    with np.errstate(over="ignore", invalid="ignore"):
        mid = (low + high) / 2.0
        wide = np.isinf(mid) & np.isfinite(low) & np.isfinite(high)
        if wide.any():
            mid[wide] = low[wide] / 2.0 + high[wide] / 2.0
    return mid


def _node_values(hierarchy: Hierarchy) -> np.ndarray:
    """The number that stands for each node in the continuous column: value, midpoint, or NaN for the root."""
    if "node_values" not in hierarchy._index:
        values = _midpoints(hierarchy.low, hierarchy.high) if hierarchy.numeric else np.full(hierarchy.n_nodes, np.nan)
        if not hierarchy.numeric:
            values[: hierarchy.n_leaves] = hierarchy.leaf_values()
        values[hierarchy.root] = np.nan
        hierarchy._index["node_values"] = values
    return hierarchy._index["node_values"]


# ---------------------------------------------------------------------------
# views for the record-level measures
# ---------------------------------------------------------------------------
def _column(pair: Any, name: str) -> GeneralisedColumn | None:
    generalised = getattr(pair, "generalised", None) or {}
    return generalised.get(name)


def changed(pair: Any, name: str) -> np.ndarray | None:
    """Paired records whose value of a hierarchy variable is not the original leaf (None without a hierarchy).

    A value missing in both files is not a change; a suppressed value is.
    """
    gc = _column(pair, name)
    if gc is None or not gc.paired:
        return None

    def compute() -> np.ndarray:
        h = gc.hierarchy
        same = (gc.orig_leaf >= 0) & (h.level[gc.prot_node] == 0) & (gc.prot_node == gc.orig_leaf)
        if gc.both_missing is not None:
            same |= gc.both_missing
        return ~same

    return pair.cached(("generalised", "changed", name), compute)


def leaf_categories(pair: Any, name: str) -> int | None:
    """How many categories of a hierarchy variable are leaves, when generalised values are categories too.

    The ordinal distances count the scale's categories only (the leaves come
    first in the category order); None when every category is a leaf.
    """
    gc = _column(pair, name)
    if gc is None or name not in pair.categorical:
        return None

    def compute() -> int | None:
        categories = pair.categorical[name].categories
        n = sum(1 for c in categories if gc.hierarchy.leaf_id(c) >= 0)
        return n if 0 < n < len(categories) else None

    return pair.cached(("generalised", "leaf_categories", name), compute)


@dataclass
class PartialChanges:
    """Records whose protected value is a generalised value (neither a leaf nor suppressed).

    ``mask`` selects them; ``distance`` is ``(L(v) − 1)/(|D| − 1)`` where the
    value contains the original leaf (the share of the domain it was made
    indistinguishable from: Iyengar's loss) and 1 where it does not.
    """

    mask: np.ndarray
    distance: np.ndarray
    n_truthful: int


def partial_changes(pair: Any, name: str) -> PartialChanges | None:
    """The generalised (partially changed) records of a hierarchy variable, or None when there are none.

    A value suppressed or missing in the protected file, or missing in the
    original, is left to the measure's own missing-value rule.
    """
    gc = _column(pair, name)
    if gc is None or not gc.paired:
        return None

    def compute() -> PartialChanges | None:
        h = gc.hierarchy
        if name in pair.categorical:
            missing = pair.categorical[name].prot < 0
        else:
            missing = np.isnan(pair.continuous[name].prot)
        mask = (h.level[gc.prot_node] > 0) & ~missing & (gc.orig_leaf >= 0)
        if not mask.any():
            return None
        inside = gc.contains[mask]
        share = (h.n_leaves_under[gc.prot_node[mask]] - 1.0) / max(h.n_leaves - 1, 1)
        return PartialChanges(mask, np.where(inside, share, 1.0), int(np.count_nonzero(inside)))

    return pair.cached(("generalised", "partial", name), compute)


# ---------------------------------------------------------------------------
# the variable at the protected file's level (tables, GDU)
# ---------------------------------------------------------------------------
def lifted(pair: Any, name: str) -> Any:
    """The variable as categories of the protected file's level in both files (a CategoricalColumn).

    Only for a full-domain generalisation to a level ``1 <= l < height``: the
    original's leaves are replaced by their level-``l`` ancestors, the
    protected values keep their nodes, suppressed values are missing.  The
    categories are the level's nodes in hierarchy order.  Raises NotComputed
    otherwise (the reason says why).
    """
    from .pair import CategoricalColumn

    gc = _column(pair, name)
    if gc is None:
        raise NotComputed(f"variable {name!r} has no hierarchy in the spec")
    h = gc.hierarchy
    if gc.level is None:
        raise NotComputed(f"the protected values of {name!r} lie at several levels of its hierarchy (local recoding)")
    if not 1 <= gc.level < h.height:
        raise NotComputed(f"the protected values of {name!r} are not generalised to an inner level of its hierarchy")

    def compute() -> Any:
        level = gc.level
        nodes = np.unique(h.table[:, level])  # node ids of a level are consecutive, in first-row order
        position = np.full(h.n_nodes + 1, -1, dtype=np.int32)
        position[nodes] = np.arange(nodes.size, dtype=np.int32)
        orig_nodes = np.where(gc.orig_leaf >= 0, h.table[np.maximum(gc.orig_leaf, 0), level], h.n_nodes)
        prot_nodes = np.where(h.level[gc.prot_node] == level, gc.prot_node, h.n_nodes)
        scale = pair.variable(name).scale
        return CategoricalColumn(
            name,
            "nominal" if scale == "nominal" else "ordinal",
            [h.labels[n] for n in nodes],
            position[orig_nodes],
            position[prot_nodes],
        )

    return pair.cached(("generalised", "lifted", name), compute)


def is_lifted(pair: Any, name: str) -> bool:
    """True when the variable is generalised to one inner level (see :func:`lifted`)."""
    return _lifted_or_none(pair, name) is not None


def lifted_or_none(pair: Any, name: str) -> Any:
    """:func:`lifted`, or None when the variable is not generalised to one inner level."""
    return _lifted_or_none(pair, name)


def _lifted_or_none(pair: Any, name: str) -> Any:
    if _column(pair, name) is None:
        return None
    try:
        return lifted(pair, name)
    except NotComputed:
        return None


def lifted_table(pair: Any, names: tuple[str, ...], which: str, weights: np.ndarray | None) -> np.ndarray | None:
    """A frequency table (missing as the last cell of each axis) with generalised variables at the protected level.

    None when none of ``names`` is generalised to an inner level, so that the
    caller uses the pair's ordinary table.
    """
    if not getattr(pair, "generalised", None):
        return None
    columns = [_lifted_or_none(pair, n) for n in names]
    if all(c is None for c in columns):
        return None
    columns = [c if c is not None else pair.categorical[n] for c, n in zip(columns, names)]

    def compute() -> np.ndarray:
        shape = tuple(c.n_categories + 1 for c in columns)
        flat = np.zeros(pair.n(which), dtype=np.int64)
        for col, size in zip(columns, shape):
            codes = col.codes(which)
            flat *= size
            flat += np.where(codes < 0, size - 1, codes)
        return np.bincount(flat, weights=weights, minlength=int(np.prod(shape))).reshape(shape)

    return pair.cached(("generalised", "table", names, which, weights is not None), compute)


def generalised_categories(categories: Sequence[str], original: np.ndarray, hierarchy: Any) -> dict[str, int | None]:
    """The categories that are generalised values of ``hierarchy``, with their level (the report's mosaics).

    A category with records in the original is an original value (a leaf);
    one the original lacks is generalised when it is an inner node of the
    hierarchy (its lowest level above 0).  ``original``: the original's counts
    per category (missing last).

    >>> from infoloss.hierarchy import from_rows
    >>> h = from_rows([["1", "1*", "*"], ["2", "1*", "*"], ["3", "3", "*"]], source="example")
    >>> generalised_categories(["1", "2", "1*", "3"], np.array([4, 5, 0, 0, 0]), h)
    {'1*': 1}
    """
    from .hierarchy import _candidates

    out: dict[str, int | None] = {}
    for c, n in zip(categories, np.asarray(original)):
        if n > 0:
            continue
        try:
            nodes = _candidates(hierarchy, str(c))
        except Exception:  # noqa: BLE001  (a label the hierarchy cannot read: drawn as a category)
            continue
        inner = [int(hierarchy.level[node]) for node in nodes if hierarchy.level[node] > 0]
        if inner and len(inner) == len(nodes):  # a leaf's label (a category the original lacks) is no group
            out[str(c)] = min(inner)
    return out


def tables_note(pair: Any) -> dict[str, Any]:
    """``details`` entries saying which variables the tables compare at the protected file's level."""
    if not getattr(pair, "generalised", None):
        return {}
    levels = {}
    for name in pair.categorical_names:
        col = _lifted_or_none(pair, name)
        if col is not None:
            levels[name] = int(_column(pair, name).level)
    if not levels:
        return {}
    return {
        "hierarchy_levels": levels,
        "hierarchy_note": "generalised variables are tabulated at the protected file's hierarchy level in both files",
    }


# ---------------------------------------------------------------------------
# quasi-identifiers and equivalence classes (the generalisation family)
# ---------------------------------------------------------------------------
def quasi_identifiers(pair: Any) -> list[GeneralisedColumn]:
    """The quasi-identifiers as generalised columns: the key variables, or the hierarchy variables without keys.

    A key variable without a hierarchy gets a one-level hierarchy over its
    categories (or distinct numbers), with missing as the root.  Raises
    NotComputed when no variable has a hierarchy.
    """

    def compute() -> list[GeneralisedColumn]:
        generalised = getattr(pair, "generalised", None) or {}
        if not generalised:
            raise NotComputed("no variable of the spec has a hierarchy (add 'hierarchy:' to the generalised variables)")
        keys = [n for n in pair.names() if pair.variable(n).role == "key"]
        names = keys or list(generalised)
        return [generalised[n] if n in generalised else _flat_column(pair, n) for n in names]

    return pair.cached(("generalised", "qi"), compute)


def _flat_column(pair: Any, name: str) -> GeneralisedColumn:
    if name in pair.categorical:
        col = pair.categorical[name]
        orig, prot = col.orig, col.prot
        categories = [str(c) for c in col.categories]
        # a protected value of stars only (ARX's "*" in every quasi-identifier of a suppressed record) is the
        # root, as a missing value is, unless the original holds it too
        stars = [k for k, c in enumerate(categories) if spec_suppression(None, c)]
        stars = [k for k in stars if not (orig == k).any()]
        if stars:
            kept = np.ones(len(categories), dtype=bool)
            kept[stars] = False
            new = np.where(kept, np.cumsum(kept) - 1, -1).astype(np.int32)
            orig, prot = (np.where(c >= 0, new[np.maximum(c, 0)], -1).astype(np.int32) for c in (orig, prot))
            categories = [c for k, c in enumerate(categories) if kept[k]]
        hierarchy = flat_hierarchy(categories, name)
    else:
        col = pair.continuous[name]
        both = np.concatenate([col.orig, col.prot])
        values = np.unique(both[~np.isnan(both)])
        hierarchy = flat_hierarchy([normalise_label(v) for v in values], name, values)
        orig = _value_codes(col.orig, values)
        prot = _value_codes(col.prot, values)
    root = hierarchy.root
    prot_node = np.where(prot < 0, root, prot).astype(np.int32)
    informative = prot_node != root
    return GeneralisedColumn(name, hierarchy, orig.astype(np.int32), prot_node, 0 if informative.any() else 1,
                             pair.paired, declared=False)


def _value_codes(x: np.ndarray, values: np.ndarray) -> np.ndarray:
    codes = np.searchsorted(values, x)
    return np.where(np.isnan(x), -1, codes).astype(np.int32)


def flat_hierarchy(labels: list[str], name: str, values: np.ndarray | None = None) -> Hierarchy:
    """A one-level hierarchy: every label a leaf, one root ``*`` above them."""
    n = len(labels)
    table = np.empty((n, 2), dtype=np.int32)
    table[:, 0] = np.arange(n)
    table[:, 1] = n
    low = np.full(n + 1, np.nan)
    high = np.full(n + 1, np.nan)
    domain = None
    if values is not None and n:
        low[:n] = high[:n] = values
        low[n], high[n] = float(values.min()), float(values.max())
        domain = (low[n], high[n])
    counts = np.ones(n + 1, dtype=np.int64)
    counts[n] = max(n, 1)
    return Hierarchy(
        source=f"the values of {name}",
        kind="flat",
        leaves=list(labels),
        table=table,
        labels=list(labels) + [ROOT_LABEL],
        level=np.r_[np.zeros(n, dtype=np.int16), np.ones(1, dtype=np.int16)],
        n_leaves_under=counts,
        low=low,
        high=high,
        domain=domain,
    )


def group_ids(columns: list[np.ndarray], sizes: list[int]) -> tuple[np.ndarray, int]:
    """Dense ids (in order of first appearance) of the rows of integer columns with values in ``[0, size)``.

    Mixed-radix keys in int64, re-densified with ``pandas.factorize`` before
    they could overflow.

    >>> ids, n = group_ids([np.array([0, 1, 0, 1]), np.array([2, 2, 2, 0])], [2, 3])
    >>> ids.tolist(), n
    ([0, 1, 0, 2], 3)
    """
    n = columns[0].shape[0] if columns else 0
    key = np.zeros(n, dtype=np.int64)
    span = 1
    for col, size in zip(columns, sizes):
        if span * size >= 2**62:
            codes, uniques = pd.factorize(key)
            key = codes.astype(np.int64)
            span = max(len(uniques), 1)
        key = key * size + col
        span *= size
    ids, uniques = pd.factorize(key)
    return ids.astype(np.int64), len(uniques)


@dataclass
class Classes:
    """The equivalence classes of the protected file: records with the same generalised quasi-identifiers.

    ``suppressed`` marks the records whose quasi-identifiers are all
    suppressed (ARX shows them as ``*``); together they form one class, which
    ``kept`` excludes.
    """

    ids: np.ndarray  # class of every protected record
    sizes: np.ndarray  # records per class
    first: np.ndarray  # one record of every class
    suppressed: np.ndarray  # bool per record
    kept: np.ndarray  # bool per class

    @property
    def n_suppressed(self) -> int:
        return int(np.count_nonzero(self.suppressed))

    @property
    def kept_sizes(self) -> np.ndarray:
        return self.sizes[self.kept]


def classes(pair: Any) -> Classes:
    """The protected file's equivalence classes over :func:`quasi_identifiers` (cached)."""

    def compute() -> Classes:
        qi = quasi_identifiers(pair)
        ids, n = group_ids([c.class_node for c in qi], [c.hierarchy.n_nodes + 1 for c in qi])
        sizes = np.bincount(ids, minlength=n)
        first = first_rows(ids, n)
        suppressed = np.ones(ids.shape[0], dtype=bool)
        for c in qi:
            suppressed &= c.is_root
        if pair.paired and suppressed.any():
            # a record missing in the original in every quasi-identifier lost nothing
            nothing = np.ones(ids.shape[0], dtype=bool)
            for c in qi:
                nothing &= c.orig_leaf < 0
            suppressed &= ~nothing
        kept = np.ones(n, dtype=bool)
        if suppressed.any():
            kept[np.unique(ids[suppressed])] = False
        return Classes(ids, sizes, first, suppressed, kept)

    return pair.cached(("generalised", "classes"), compute)


def original_classes(pair: Any) -> tuple[np.ndarray, np.ndarray]:
    """Class ids and sizes of the original's distinct quasi-identifier tuples (missing as its own value)."""

    def compute() -> tuple[np.ndarray, np.ndarray]:
        qi = quasi_identifiers(pair)
        leaves = [np.where(c.orig_leaf < 0, c.hierarchy.n_leaves, c.orig_leaf) for c in qi]
        ids, n = group_ids(leaves, [c.hierarchy.n_leaves + 1 for c in qi])
        return ids, np.bincount(ids, minlength=n)

    return pair.cached(("generalised", "original_classes"), compute)


def first_rows(ids: np.ndarray, n: int) -> np.ndarray:
    """The first row of each of the ``n`` groups."""
    first = np.full(n, -1, dtype=np.int64)
    first[ids[::-1]] = np.arange(ids.shape[0] - 1, -1, -1)
    return first
