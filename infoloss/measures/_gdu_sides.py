"""The GDU model's view of each variable (used by :mod:`infoloss.measures.gdu`).

Every analysed variable (removed ones included) becomes a :class:`_Var` with
one :class:`_Side` per file: level codes (-1 missing), level counts and, for a
continuous variable, its values and sorted distinct values, all taken from the
pair's shared caches.  A globally recoded variable (``recode: map`` /
``breaks`` or a full-domain generalisation) gets its protected classes as the
protected side, with the classes of an ordinal map ordered like the original
categories; ordinal labels without an explicit order are ranked numerically
first.  :func:`_variables` builds them once per pair (cached).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .. import numeric
from ..errors import NotComputed
from ..generalised import is_lifted
from ..pair import ORIGINAL, PROTECTED, CategoricalColumn, EncodedPair, Levels


@dataclass
class _Side:
    """One variable in one file: level codes (-1 missing), level counts, values."""

    kind: str  # "nominal" | "ordinal" | "continuous"
    codes: np.ndarray  # int32; categories / classes, or dense codes of the sorted distinct values
    counts: np.ndarray  # records per level (int32 or int64); never changed after construction
    values: np.ndarray | None = None  # float64 with NaN (continuous)
    levels: np.ndarray | None = None  # sorted distinct values (continuous)

    @property
    def n_levels(self) -> int:
        return int(self.counts.shape[0])

    @cached_property
    def n_valid(self) -> int:  # asked for by every pair test: summed once
        return int(self.counts.sum())

    @property
    def complete(self) -> bool:
        return self.n_valid == self.codes.shape[0]


@dataclass
class _Var:
    name: str
    scale: str  # the spec's scale
    removed: bool
    orig: _Side
    prot: _Side | None  # as published: the recode's classes for a recoded variable
    recode_kind: str | None = None
    recoded: CategoricalColumn | None = None
    broken: str | None = None  # why the spec's recode does not fit the data
    direction_codes: np.ndarray | None = None  # original records in the protected classes (nominal)

    @property
    def classed(self) -> bool:
        return self.recoded is not None


def _continuous_side(x: np.ndarray, lv: Levels, e: int = 0) -> _Side:
    """The side of a continuous variable from the pair's shared sorted levels (``e``: an exact power-of-two
    scaling of values near the float limits, which changes no order)."""
    if e:
        return _Side("continuous", lv.codes, lv.counts, numeric.scaled(x, e), numeric.scaled(lv.values, e))
    return _Side("continuous", lv.codes, lv.counts, x, lv.values)


def _categorical_side(codes: np.ndarray, n_levels: int, kind: str, counts: np.ndarray | None = None) -> _Side:
    codes = np.asarray(codes, dtype=np.int32)
    if counts is None:
        counts = np.bincount(codes[codes >= 0], minlength=n_levels)
    return _Side(kind, codes, np.asarray(counts, dtype=np.int64))


def _variables(pair: EncodedPair) -> dict[str, _Var]:
    """Every analysed variable (removed ones included), in spec order; cached."""

    def compute() -> dict[str, _Var]:
        names = pair.names(include_removed=True)
        continuous = [name for name in names if name in pair.continuous]
        pair.warm_levels(continuous)
        sides = {}
        for name in continuous:
            col = pair.continuous[name]
            # values near 1e308 (or 1e-308): both files times one exact power of two; every test here
            # is scale-invariant, and the direction compares both files on the same scale
            e = numeric.safe_exponent(col.orig, col.prot)
            for x, which in ((col.orig, ORIGINAL), (col.prot, PROTECTED)):
                if x is not None and id(x) not in sides:  # an unchanged variable's one array: one side
                    sides[id(x)] = _continuous_side(x, pair.levels(name, which), e)
        return {name: _make_var(pair, name, sides) for name in names}

    return pair.cached(("gdu", "variables"), compute)


def _make_var(pair: EncodedPair, name: str, sides: dict[int, _Side]) -> _Var:
    spec = pair.variable(name)
    if name in pair.continuous:
        col = pair.continuous[name]
        orig = sides[id(col.orig)]
        raw_prot = sides[id(col.prot)] if col.prot is not None else None
    else:
        col = pair.categorical[name]
        # the pair's cached one-way tables (last cell: missing) give the counts
        orig = _categorical_side(col.orig, col.n_categories, spec.scale, pair.table(name, ORIGINAL)[:-1])
        if col.prot is None or pair.unchanged(name):  # unchanged: one array for both files, one side
            raw_prot = None if col.prot is None else orig
        else:
            raw_prot = _categorical_side(col.prot, col.n_categories, spec.scale, pair.table(name, PROTECTED)[:-1])
    var = _Var(name, spec.scale, spec.removed, orig, None if spec.removed else raw_prot)
    if spec.removed or (spec.recode is None and not is_lifted(pair, name)):
        return var
    # a full-domain generalisation to a hierarchy level is a global recoding (Kocar): its classes are the level's values
    var.recode_kind = next(iter(spec.recode)) if spec.recode is not None else "hierarchy"
    if var.recode_kind in ("top", "bottom"):
        return var  # still continuous: compared as perturbed values
    try:
        rec = pair.recoded(name)
    except NotComputed as exc:
        var.broken = str(exc)
        return var
    if spec.scale == "ordinal" and var.recode_kind == "map":
        rec = _order_classes(orig.codes, orig.n_levels, rec)
    var.recoded = rec
    kind = "nominal" if spec.scale == "nominal" else "ordinal"
    var.prot = _categorical_side(rec.prot, rec.n_categories, kind)
    if spec.scale == "nominal":
        var.direction_codes = rec.orig
    return var


def _order_classes(orig_codes: np.ndarray, n_orig: int, rec: CategoricalColumn) -> CategoricalColumn:
    """Order the classes of an ordinal recode map by the first original category in each.

    The recoded view sorts class labels numerically or lexically, which puts
    "10-14" before "5-9"; the ranks of an ordinal variable need the order of
    the original categories instead.  Classes that no original record reaches
    keep their relative order at the end.
    """
    ok = orig_codes >= 0
    lut = np.full(n_orig, -1, dtype=np.int64)
    lut[orig_codes[ok]] = rec.orig[ok]  # the map is a function of the original category
    first = list(dict.fromkeys(int(k) for k in lut if k >= 0))
    reached = set(first)
    order = first + [k for k in range(rec.n_categories) if k not in reached]
    if order == list(range(rec.n_categories)):
        return rec
    position = np.empty(rec.n_categories + 1, dtype=np.int32)
    position[np.array(order)] = np.arange(rec.n_categories, dtype=np.int32)
    position[-1] = -1  # code -1 (missing) indexes the last cell

    def remap(codes: np.ndarray | None) -> np.ndarray | None:
        return None if codes is None else position[codes]

    return CategoricalColumn(rec.name, rec.scale, [rec.categories[k] for k in order], remap(rec.orig), remap(rec.prot))


def _numeric_values(pair: EncodedPair, name: str) -> np.ndarray | None:
    """Original values as numbers (for the biased-allocation and heterogeneity variants)."""
    if name in pair.continuous:
        return pair.continuous[name].orig
    col = pair.categorical[name]
    try:
        table = np.array([float(c) for c in col.categories] + [np.nan])
    except ValueError:
        return None
    return table[col.orig]

