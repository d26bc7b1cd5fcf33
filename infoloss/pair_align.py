"""Record pairing of the two files: by row, by an id column, or none (used by :func:`infoloss.pair.encode_pair`).

:func:`check_protected_columns` refuses a protected file without an analysed
variable; :func:`align` puts the protected records in the order of the
original's (by row: the same order, checked against an id column that holds
the same ids in another order; by id: matched as numbers, or as canonical text
so that 2, 2.0 and "2" are one id) and says whether the files are paired.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .errors import InputError, counted
from .spec import Spec, _close_match, normalise_label, unicode_hint, unicode_twin


def check_protected_columns(spec: Spec, protected: pd.DataFrame) -> None:
    """InputError when an analysed variable (or the pairing id) is not a column of the protected file; removed
    variables and the weight (the original's is used for paired records) may be missing."""
    present = set(protected.columns)
    for var in spec.variables.values():
        if var.name in present or var.removed:
            continue
        if var.role == "weight":
            continue  # the original's weights are used for paired records
        if not var.analysed and var.name != spec.pairing_id:
            continue
        hint = _close_match(var.name, present)
        if var.name == spec.pairing_id:
            raise InputError(
                f"the pairing id column {var.name!r} is not a column of the protected file{hint}; "
                "pair by an id column both files have, or by row or none."
            )
        twin = unicode_twin(var.name, present)
        if twin is not None:  # the hint's advice is the fix: the column was not renamed nor removed
            raise InputError(f"variable {var.name!r} is not a column of the protected file: "
                             f"{unicode_hint(twin, var.name)}.")
        rename = "rename the column if it was renamed, or " if hint else ""
        raise InputError(
            f"variable {var.name!r} is not a column of the protected file{hint}; "
            f"{rename}if it was removed on purpose, mark it 'removed: true' in the spec."
        )


def align(original: pd.DataFrame, protected: pd.DataFrame, spec: Spec) -> tuple[pd.DataFrame, bool]:
    """The protected records in the original's order, and whether the files are paired (the spec's
    ``pairing``: row, an id column, or none; nearest-record pairing is made later, on the encoded pair)."""
    if spec.pairing == "none" or spec.pairing_nearest is not False:
        return protected.reset_index(drop=True), False
    if spec.pairing == "row":
        if len(original) != len(protected):
            raise InputError(
                f"the files have {len(original)} and {len(protected)} records, so they cannot be paired by row; "
                "compare them unpaired (pairing: none in the spec, --pairing none on the command line), or pair "
                "them by an id column."
            )
        _check_row_order(original, protected, spec)
        return protected.reset_index(drop=True), True
    return _align_by_id(original, protected, spec.pairing_id), True


def _check_row_order(original: pd.DataFrame, protected: pd.DataFrame, spec: Spec) -> None:
    """Pairing by row, an id column both files have that holds the same ids in another order is an error:
    the records are not in the same order, and every comparison of paired records would be wrong."""
    for var in spec.variables.values():
        if var.role != "id" or var.name not in original.columns or var.name not in protected.columns:
            continue
        a, b = original[var.name].to_numpy(), protected[var.name].to_numpy()
        if a.dtype != b.dtype or len(a) != len(b):
            continue  # recoded ids (another kind of value): no evidence of another order
        differ = a != b
        if differ.any() and _same_values(a, b):
            raise InputError(
                f"pairing by row, but the id column {var.name!r} shows the protected file's records in another "
                f"order ({int(differ.sum()):,} of {len(a):,} rows {'holds' if differ.sum() == 1 else 'hold'} another "
                f"id); pair them by the id "
                f"(pairing: {{by: {var.name}}} in the spec, --pairing {var.name} on the command line)."
            )


def _same_values(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``b`` holds the values of ``a`` (each as often), in any order: hashing, no sort of text."""
    codes, uniques = pd.factorize(np.concatenate([a, b]), use_na_sentinel=False)
    n = len(uniques)
    return bool(np.array_equal(np.bincount(codes[: len(a)], minlength=n), np.bincount(codes[len(a):], minlength=n)))


def _align_by_id(original: pd.DataFrame, protected: pd.DataFrame, id_col: str) -> pd.DataFrame:
    keys = []
    # numbers in both files are matched as numbers; otherwise as canonical text, so that 2, 2.0 and "2" are one id
    as_numbers = all(df[id_col].dtype != object and pd.api.types.is_numeric_dtype(df[id_col])
                     for df in (original, protected))
    for df, which in ((original, "original"), (protected, "protected")):
        ids = df[id_col]
        if ids.isna().any():
            raise InputError(f"the id column {id_col!r} of the {which} file has missing values; every record needs an id.")
        key = pd.Index(ids if as_numbers else ids.map(normalise_label))
        if key.has_duplicates:
            example = normalise_label(key[key.duplicated()][0])
            raise InputError(
                f"the id column {id_col!r} of the {which} file has duplicate ids (e.g. {example}); "
                "pair by an id that is unique per record, or by row."
            )
        keys.append(key)
    index = keys[1].get_indexer(keys[0])
    if (index < 0).any() or len(keys[0]) != len(keys[1]):
        missing = int((index < 0).sum())
        extra = len(keys[1]) - (len(keys[0]) - missing)
        raise InputError(
            f"pairing by {id_col!r}: {counted(missing, 'original id')} {'is' if missing == 1 else 'are'} not in the "
            f"protected file and {counted(extra, 'protected id')} {'is' if extra == 1 else 'are'} not in the "
            "original; compare the files unpaired (pairing: none in the spec, --pairing none on the command line)."
        )
    return protected.take(index).reset_index(drop=True)
