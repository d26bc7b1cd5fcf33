"""Reference categories of a regression's treatment-coded factors, and what to do when one has no record.

A treatment-coded factor's coefficients (and the intercept, and the slopes its interactions modify) are
contrasts with its reference category.  When the records a file's fit uses have none of that category (the
protected file suppressed it, or ``where`` or listwise deletion removed it), those coefficients silently
become contrasts with another category while keeping their names.  The rule here:

- each file's reference is the first category (in the factor's order: sorted for a nominal variable, the
  spec's order for an ordinal one) that has a record in the records used by *both* files' fits, so that the
  coefficients keep their names and their meaning in both files (R's ``lm`` would drop the unused level and
  re-reference each file on its own, so the names would no longer match);
- when no category has a record in both, or the factor's reference cannot be moved (an explicit
  ``Treatment('a')``, or a factor computed from a number such as ``C(age // 10)``), the coefficients that
  depend on the absent reference are withheld in the file that lacks it, with a note, and not compared.

Examples
--------
>>> import patsy, pandas as pd
>>> frame = pd.DataFrame({"y": [1.0, 2, 3, 4], "g": pd.Categorical(["a", "b", "c", "b"])})
>>> X = patsy.dmatrix("C(g)", frame, return_type="dataframe")
>>> [(r.factor, r.label, sorted(r.present)) for r in factor_references(X.design_info, frame.iloc[1:])]
[('C(g)', 'a', ['b', 'c'])]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class FactorReference:
    """A treatment-coded factor: its code, its variable, its categories, reference and categories used."""

    factor: str
    variable: str | None  # the frame's categorical column the factor is (movable by reordering its levels)
    categories: tuple
    label: Any
    present: frozenset
    n_reference: int  # records of the reference category among those used

    @property
    def absent(self) -> bool:
        """True when the records used have no record of the reference category."""
        return self.label not in self.present

    @property
    def movable(self) -> bool:
        """True when reordering the variable's levels moves the reference (patsy's default Treatment)."""
        return self.variable is not None and self.categories and self.categories[0] == self.label


def factor_references(info: Any, used: pd.DataFrame, variable_of: Any = None) -> list[FactorReference]:
    """The treatment-coded factors of a design (``info``: patsy's DesignInfo) and the categories of ``used``.

    A factor is treatment-coded when, in a term where it has fewer columns than categories, one category's
    row of the contrast matrix is 0 (its reference); factors coded with all their categories, or with
    sum/Helmert/polynomial contrasts, are left out.  ``variable_of(code)`` names the frame column a factor
    is (None for a computed one).
    """
    out = []
    for factor, label in _treatment_factors(info).items():
        finfo = info.factor_infos[factor]
        variable = variable_of(factor.code) if variable_of is not None else None
        if variable is not None and not isinstance(used[variable].dtype, pd.CategoricalDtype):
            variable = None
        present, counts = _present(factor, finfo, used)
        out.append(FactorReference(factor.code, variable, tuple(finfo.categories), label, present,
                                   counts.get(label, 0)))
    return out


def _treatment_factors(info: Any) -> dict:
    """Factor -> its reference category, for the factors coded against a reference in some term."""
    out = {}
    for subterms in info.term_codings.values():
        for sub in subterms:
            for factor, contrast in sub.contrast_matrices.items():
                matrix = np.asarray(contrast.matrix)
                zero = np.flatnonzero(~matrix.any(axis=1))
                if matrix.shape[1] < matrix.shape[0] and zero.size == 1:
                    out.setdefault(factor, info.factor_infos[factor].categories[int(zero[0])])
    return out


def _present(factor: Any, finfo: Any, used: pd.DataFrame) -> tuple[frozenset, dict]:
    """The factor's categories that have a record in ``used``, and their numbers of records."""
    import patsy
    from patsy.categorical import categorical_to_int

    if used.empty:
        return frozenset(), {}
    try:
        codes = np.asarray(categorical_to_int(factor.eval(finfo.state, used), finfo.categories, patsy.NAAction(),
                                              origin=factor))
    except patsy.PatsyError:  # a value the coding lacks: the file is coded on its own (a recoded variable)
        return frozenset(finfo.categories), {}
    counts = np.bincount(codes[codes >= 0], minlength=len(finfo.categories))
    by_label = {finfo.categories[i]: int(n) for i, n in enumerate(counts) if n}
    return frozenset(by_label), by_label


def own_references(refs: list[FactorReference]) -> dict[str, Any]:
    """For one file alone: variable -> the first category with a record, for each movable absent reference."""
    out: dict[str, Any] = {}
    for r in refs:
        if r.absent and r.movable and r.present:
            out[r.variable] = next(c for c in r.categories if c in r.present)
    return out


def common_references(refs: list[FactorReference], original: dict[str, frozenset]) -> dict[str, Any]:
    """Variable -> the first category with a record in both files, for each movable reference this file lacks.

    ``original`` maps a factor's code to the categories with a record in the original's fit.
    """
    out: dict[str, Any] = {}
    for r in refs:
        both = [c for c in r.categories if c in r.present and c in original.get(r.factor, ())]
        if r.absent and r.movable and both:
            out[r.variable] = both[0]
    return out


def dependent_columns(info: Any, factor: str) -> list[str]:
    """The columns whose coefficient depends on ``factor``'s reference category.

    Those of every term with the factor, and of every term T for which T plus the factor is a term (the
    intercept of a main effect, the slope of ``x`` beside ``C(g):x``): those are the reference's values.
    """
    terms = list(info.term_slices)
    with_factor = [t for t in terms if any(f.code == factor for f in t.factors)]
    reduced = [frozenset(f.code for f in t.factors if f.code != factor) for t in with_factor]
    columns = []
    for term, sl in info.term_slices.items():
        codes = frozenset(f.code for f in term.factors)
        if term in with_factor or codes in reduced:
            columns += info.column_names[sl]
    return columns


def moved_levels(levels: dict[str, list], moves: dict[str, Any]) -> dict[str, list]:
    """The categorical columns' levels with each moved reference first (the others keep their order)."""
    out = dict(levels)
    for variable, label in moves.items():
        out[variable] = [label] + [v for v in levels[variable] if v != label]
    return out
