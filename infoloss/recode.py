"""Global recoding (the spec's ``recode:``): a variable's classes in both files, for the GDU model.

``recode: map`` joins categories into classes, ``recode: breaks`` cuts values
into left-closed intervals; a full-domain generalisation to one hierarchy level
is a global recoding too.  :meth:`infoloss.pair.EncodedPair.recoded` caches
the result on the pair.
"""

from __future__ import annotations

import numpy as np

from .errors import NotComputed
from .pair import CategoricalColumn, EncodedPair, _is_float, _sort_key
from .spec import VariableSpec, normalise_label

__all__ = ["recode"]


def recode(pair: EncodedPair, name: str) -> CategoricalColumn:
    """The classes of a globally recoded variable in both files: the spec's ``recode: map`` or ``recode: breaks``,
    or a full-domain generalisation to one hierarchy level (:func:`infoloss.generalised.lifted`)."""
    var = pair.variable(name)
    if var.recode is None and name in pair.generalised:
        from .generalised import lifted  # a full-domain generalisation is a global recoding

        return lifted(pair, name)
    if var.recode is None:
        raise NotComputed(f"variable {name!r} has no recode in the spec")
    kind, rule = next(iter(var.recode.items()))
    if kind == "map":
        return _recode_map(pair, var, rule)
    if kind == "breaks":
        return _recode_breaks(pair, var, [float(b) for b in rule])
    raise NotComputed(f"variable {name!r} is {kind}-coded, which keeps it continuous (no classes to compare)")


def _recode_map(pair: EncodedPair, var: VariableSpec, rule: dict) -> CategoricalColumn:
    col = pair.categorical.get(var.name)
    if col is None:
        raise NotComputed(f"variable {var.name!r} has a 'recode: map' but is continuous; use 'breaks' for it")
    mapping = {normalise_label(k): normalise_label(v) for k, v in rule.items()}
    used = np.unique(col.orig[col.orig >= 0])
    # a map lists the categories it merges or renames; the others stay as they are (sdcMicro's groupAndRename)
    mapping.update({col.categories[i]: col.categories[i] for i in used if col.categories[i] not in mapping})
    new = sorted(set(mapping.values()), key=_sort_key(list(mapping.values())))
    position = {label: i for i, label in enumerate(new)}
    lookup = np.array([position.get(mapping.get(c, ""), -1) for c in col.categories] + [-1], dtype=np.int32)
    orig = lookup[col.orig]
    prot_labels = col.categories
    if col.prot is not None:
        prot_lookup = np.array(
            [position.get(c, position.get(mapping.get(c, ""), -1)) for c in prot_labels] + [-1], dtype=np.int32
        )
        prot = prot_lookup[col.prot]
        used_prot = np.unique(col.prot[col.prot >= 0])
        bad = [prot_labels[i] for i in used_prot if prot_lookup[i] < 0]
        if bad:
            raise NotComputed(
                f"the protected file has categories of {var.name!r} ({', '.join(map(repr, bad[:5]))}) "
                "that are neither original categories nor targets of its recode map"
            )
    else:
        prot = None
    return CategoricalColumn(var.name, "ordinal" if var.scale == "ordinal" else "nominal", new, orig, prot)


def _recode_breaks(pair: EncodedPair, var: VariableSpec, breaks: list[float]) -> CategoricalColumn:
    labels = [f"[{b:g}, {c:g})" for b, c in zip(breaks[:-1], breaks[1:])]

    def classes(x: np.ndarray, which: str) -> np.ndarray:
        ok = ~np.isnan(x)
        outside = ok & ((x < breaks[0]) | (x >= breaks[-1]))
        if outside.any():
            raise NotComputed(
                f"the recode breaks of {var.name!r} ({breaks[0]:g} to {breaks[-1]:g}) do not cover the {which} "
                f"values (e.g. {x[outside][0]:g})"
            )
        out = np.full(x.shape[0], -1, dtype=np.int32)
        out[ok] = np.searchsorted(breaks, x[ok], side="right") - 1
        return out

    orig, prot = _values_for_breaks(pair, var)
    return CategoricalColumn(
        var.name,
        "ordinal",
        labels,
        classes(orig, "original"),
        classes(prot, "protected") if prot is not None else None,
    )


def _values_for_breaks(pair: EncodedPair, var: VariableSpec) -> tuple[np.ndarray, np.ndarray | None]:
    if var.name in pair.continuous:
        col = pair.continuous[var.name]
        return col.orig, col.prot
    col = pair.categorical[var.name]
    as_float = np.array([float(c) if _is_float(c) else np.nan for c in col.categories] + [np.nan])
    if np.isnan(as_float[:-1]).any():
        raise NotComputed(f"variable {var.name!r} has non-numeric categories, so 'recode: breaks' cannot apply")
    return as_float[col.orig], (as_float[col.prot] if col.prot is not None else None)
