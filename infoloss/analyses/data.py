"""One file of an encoded pair as the analyses see it: numbers, labels, domains, weights and the design.

Everything here is keyed by category *labels*, never by the pair's codes: the codes depend on both files
(a category present only in a protected file gets a code), whereas the original's results are computed once
and shared by every scenario.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, NotComputed, counted
from ..limits import unique_inverse
from ..pair import ORIGINAL, EncodedPair

WHICH_TEXT = {ORIGINAL: "original", "prot": "protected"}


@dataclass
class Design:
    """The survey design of one file: weights, strata and primary sampling units (PSUs).

    ``strata`` and ``psu`` are integer codes 0..k-1 (None: one stratum; each record its own PSU).
    PSUs are nested in strata (a PSU id repeated in two strata is two PSUs, as ``nest=TRUE`` in R's survey).
    """

    weights: np.ndarray
    weighted: bool
    strata: np.ndarray | None
    psu: np.ndarray | None
    notes: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        parts = ["weights" if self.weighted else "no weights (every record weight 1)"]
        parts.append("strata" if self.strata is not None else "no strata")
        parts.append("clusters (PSUs)" if self.psu is not None else "records as PSUs")
        return ", ".join(parts)


@dataclass
class Domains:
    """Domain membership: ``codes`` (-1 outside every domain, e.g. a missing ``by`` value) and their labels."""

    codes: np.ndarray
    labels: list[str]

    @property
    def size(self) -> int:
        return len(self.labels)


class FileData:
    """The ``which`` file (``"orig"`` or ``"prot"``) of a pair."""

    def __init__(self, pair: EncodedPair, which: str) -> None:
        self.pair = pair
        self.which = which
        self.name = WHICH_TEXT[which]
        self.n = pair.n(which)

    # -- values ------------------------------------------------------------
    def numeric(self, name: str) -> np.ndarray:
        """The variable as float64 (NaN missing): continuous values, or the numeric labels of an ordinal."""
        if name in self.pair.continuous:
            values = self.pair.continuous[name].values(self.which)
            if values is None:
                raise NotComputed(f"variable {name!r} was removed from the protected file")
            return values
        codes, labels = self.codes(name)
        numbers = label_numbers(labels)
        if numbers is None:
            raise InputError(f"variable {name!r} has text categories, so it cannot be used as a number; "
                             "use a proportion or a categorical term for it.")
        return np.append(numbers, np.nan)[codes]

    def codes(self, name: str) -> tuple[np.ndarray, list[str]]:
        """A categorical variable's codes (-1 missing) and the pair's category labels."""
        col = self.pair.categorical.get(name)
        if col is None:
            raise InputError(f"variable {name!r} is continuous; a domain or a proportion needs a categorical one.")
        codes = col.codes(self.which)
        if codes is None:
            raise NotComputed(f"variable {name!r} was removed from the protected file")
        return codes, col.categories

    def domains(self, by: tuple[str, ...]) -> Domains:
        """The domains of ``by`` present in this file (all records in one domain ``all`` when ``by`` is empty)."""
        if not by:
            return Domains(np.zeros(self.n, dtype=np.int64), ["all"])
        key = self.pair.cached(("analyses-domains", by, self.which), lambda: self._domains(by))
        return key

    def _domains(self, by: tuple[str, ...]) -> Domains:
        parts = [self.codes(b) for b in by]
        combined = np.zeros(self.n, dtype=np.int64)
        missing = np.zeros(self.n, dtype=bool)
        for codes, labels in parts:
            combined = combined * (len(labels) + 1) + codes
            missing |= codes < 0
        combined[missing] = -1
        present, inverse = unique_inverse(combined)
        labels = []
        for value in present:
            if value < 0:
                continue
            idx, rest = [], int(value)
            for codes, lab in reversed(parts):
                rest, code = divmod(rest, len(lab) + 1)
                idx.append(lab[code])
            labels.append(", ".join(f"{b}={v}" for b, v in zip(by, reversed(idx))))
        offset = 1 if present.size and present[0] < 0 else 0
        codes = inverse.astype(np.int64) - offset
        return Domains(codes, labels)

    # -- design --------------------------------------------------------------
    @property
    def design(self) -> Design:
        return self.pair.cached(("analyses-design", self.which), self._design)

    def _design(self) -> Design:
        w = self.pair.weights(self.which)
        weighted = w is not None
        notes: list[str] = []
        if w is None:
            w = np.ones(self.n)
            if self.pair.spec.weight is not None:
                notes.append(f"the {self.name} file has no weight column {self.pair.spec.weight!r}: its estimates "
                             "are unweighted")
        strata = self._strata(notes)
        psu = self._psu(strata, notes)
        return Design(np.asarray(w, dtype=float), weighted, strata, psu, tuple(notes))

    def _strata(self, notes: list[str]) -> np.ndarray | None:
        codes = []
        for name in self.pair.spec.names_with_role("strata"):
            name_codes = self._design_column(name)
            if name_codes is None:
                notes.append(f"the protected file has no strata column {name!r}: its design has no strata")
                return None
            missing = name_codes < 0
            if missing.any():
                if self.which == ORIGINAL:
                    raise InputError(f"the strata column {name!r} of the original file has missing values; "
                                     "every record needs its stratum.")
                notes.append(f"{counted(int(missing.sum()), 'record')} of the protected file "
                             f"{'has' if missing.sum() == 1 else 'have'} no {name!r} (suppressed?): they form a "
                             "stratum of their own")
                name_codes = np.where(missing, name_codes.max(initial=-1) + 1, name_codes)
            codes.append(name_codes)
        return _dense(codes) if codes else None

    def _design_column(self, name: str) -> np.ndarray | None:
        """A strata variable's codes in this file (the original's for a paired file that lacks it)."""
        if name in self.pair.categorical:
            col = self.pair.categorical[name]
            codes = col.codes(self.which)
            return (col.orig if self.pair.paired else None) if codes is None else codes.astype(np.int64)
        col = self.pair.continuous[name]
        values = col.values(self.which)
        if values is None:
            values = col.orig if self.pair.paired else None
        return None if values is None else pd.factorize(values)[0].astype(np.int64)

    def _psu(self, strata: np.ndarray | None, notes: list[str]) -> np.ndarray | None:
        names = [n for n in self.pair.spec.names_with_role("cluster") if n in self.pair.design]
        if not names:
            return None
        if len(names) > 1:
            notes.append(f"several cluster columns: the first, {names[0]!r}, is the PSU (one-stage design)")
        orig, prot = self.pair.design[names[0]]
        codes = orig if self.which == ORIGINAL else prot
        if codes is None:
            notes.append(f"the protected file has no cluster column {names[0]!r}: its records are its PSUs")
            return None
        missing = codes < 0
        if missing.any():  # only a protected file can have them (encode_pair rejects them in the original)
            notes.append(f"{counted(int(missing.sum()), 'record')} of the protected file "
                         f"{'has' if missing.sum() == 1 else 'have'} no {names[0]!r}: each is a PSU of its own")
            codes = codes.copy()
            codes[missing] = codes.max(initial=-1) + 1 + np.arange(int(missing.sum()))
        return _dense([codes] if strata is None else [strata, codes])

    # -- a frame for formulas --------------------------------------------------
    def frame(self, names: tuple[str, ...], levels: dict[str, list] | None = None) -> pd.DataFrame:
        """The variables as a DataFrame for patsy: numbers as float64, categories as pandas categoricals.

        Continuous and ordinal variables with numeric labels are numbers; nominal variables and ordinal
        ones with text labels are categoricals whose categories are ``levels[name]`` when given (the
        original's levels, so that every file has the same reference category), else the categories
        present in this file: sorted for a nominal variable (numerically when they are numbers), in the
        spec's order for an ordinal one.
        """
        out = {}
        for name in names:
            out[name] = self.formula_column(name, (levels or {}).get(name))
        return pd.DataFrame(out)

    def formula_column(self, name: str, levels: list | None = None) -> Any:
        var = self.pair.variable(name)
        if name in self.pair.continuous:
            return self.numeric(name)
        codes, labels = self.codes(name)
        values = label_values(labels)
        if var.scale == "ordinal" and label_numbers(labels) is not None:
            return self.numeric(name)
        if levels is None:
            present = [values[i] for i in np.unique(codes[codes >= 0])]
            # the reference category must not depend on the other file's categories: nominal levels sorted
            # (numerically when they are numbers, as R's factor()); ordinal ones in the spec's order
            levels = present if var.scale == "ordinal" else sorted(present, key=_level_key(present))
        position = {v: i for i, v in enumerate(levels)}
        lookup = np.array([position.get(v, -1) for v in values] + [-1], dtype=np.int64)
        return pd.Categorical.from_codes(lookup[codes], categories=levels)

    def labels_present(self, name: str) -> list:
        """The category values (numbers where the labels are numeric) present in this file."""
        codes, labels = self.codes(name)
        values = label_values(labels)
        return [values[i] for i in np.unique(codes[codes >= 0])]


def _level_key(levels: list) -> Any:
    numeric = all(isinstance(v, (int, float)) for v in levels)
    return (lambda v: v) if numeric else (lambda v: str(v))


def label_numbers(labels: list[str]) -> np.ndarray | None:
    """The labels as float64 when every one is a number, else None."""
    try:
        return np.array([float(x) for x in labels], dtype=float)
    except (TypeError, ValueError):
        return None


def label_values(labels: list[str]) -> list:
    """Labels as numbers (int when whole) when every one is numeric, else as text."""
    numbers = label_numbers(labels)
    if numbers is None:
        return list(labels)
    return [int(x) if float(x).is_integer() else float(x) for x in numbers]


def _dense(columns: list[np.ndarray]) -> np.ndarray:
    """Dense codes 0..k-1 of the distinct combinations of non-negative integer columns."""
    combined = np.zeros(columns[0].shape[0], dtype=np.int64)
    for col in columns:
        combined = combined * (int(col.max(initial=0)) + 1) + col
    return unique_inverse(combined)[1].astype(np.int64, copy=False)
