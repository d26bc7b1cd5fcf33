"""Inferring a spec from a DataFrame: each column's scale, role and note (:func:`infer_spec`).

Split from :mod:`infoloss.spec` so that loading a spec file does not import
pandas: ``infoloss compare`` with a spec loads it, and starts parsing the
CSV files (:func:`infoloss.io_csv.read_ahead`), while pandas imports.
"""

from __future__ import annotations

import re
from typing import Callable

import numpy as np
import pandas as pd

from .errors import InputError, counted
from .spec import (
    CONTINUOUS_MIN_DISTINCT,
    DEFAULT_MISSING,
    Spec,
    VariableSpec,
    _norm_label,
)

_WEIGHT_RE = re.compile(r"(?i)(^w$|^wt$|weight|wgt|^pw$|^fnlwgt$|^pesos?$|^poids$)")
_ID_RE = re.compile(r"(?i)(^id$|^id[_.]|[_.]id$|hid$|pid$|^[A-Z0-9_]*ID$)")


def infer_spec(df: pd.DataFrame, *, pairing: str | dict = "row") -> Spec:
    """Infer an editable spec from a DataFrame.

    Rules: ordered categoricals (labelled ordinal SPSS/Stata variables) become
    ordinal; text, unordered categoricals, booleans and whole numbers with at
    most ``CONTINUOUS_MIN_DISTINCT`` distinct values become nominal; other
    numbers (more distinct values, or any value with a fraction) continuous.
    Columns named like weights or identifiers get those roles.
    Each variable's ``note`` says why.  A categorical variable that looks
    like an identifier (distinct values in at least half the records) or has
    more than ``limits.MANY_CATEGORIES`` categories gets a warning in its
    note and a :class:`infoloss.limits.CardinalityWarning`.  A column no
    spec can compare (missing in every record, lists or mappings from a
    nested column, complex numbers) is left out, with why in ``left_out``
    and an :class:`infoloss.limits.InferenceWarning`.
    """
    import warnings

    from .limits import InferenceWarning

    if not isinstance(df, pd.DataFrame):
        raise InputError(f"infer_spec needs a DataFrame (read a file with infoloss.read_table first), got "
                         f"{type(df).__name__}.")
    from .pair import index_as_columns

    df = index_as_columns(df, "original")  # a named index is a column, as the comparison reads it
    if df.columns.duplicated().any():
        twice = str(df.columns[df.columns.duplicated()][0])
        raise InputError(f"the DataFrame has the column {twice!r} twice; give every column a unique name.")
    spec = Spec(pairing=pairing)
    for name in df.columns:
        var = _infer_variable(str(name), df[name])
        if isinstance(var, str):
            spec.left_out[str(name)] = var
            warnings.warn(f"column {str(name)!r} is left out of the inferred spec: {var}.", InferenceWarning,
                          stacklevel=2)
            continue
        spec.variables[str(name)] = var
        if var.scale in ("nominal", "ordinal") and "decimal comma" not in var.note and "times of day" not in var.note:
            _warn_cardinality(var, df[name])
    return spec


def _warn_cardinality(var: VariableSpec, col: pd.Series) -> None:
    import warnings

    from .limits import CardinalityWarning, cardinality_note

    try:
        distinct = int(col.nunique(dropna=True))
    except (TypeError, NotImplementedError):  # unhashable values (left out by infer_spec before this)
        return
    note = cardinality_note(distinct, int(col.notna().sum()))
    if note is None:
        return
    var.note = f"{var.note}; {note}" if var.note else note
    advice = "; if it identifies records, give it 'role: id'" if note.startswith("looks like") else ""
    warnings.warn(f"column {var.name!r} {note}{advice}", CardinalityWarning, stacklevel=3)


def temporal_kind(col: pd.Series) -> str | None:
    """"dates" or "durations" for a column of them in any of pandas' forms (as :func:`infoloss.pair._days` reads
    them), else None."""
    if isinstance(col.dtype, pd.ArrowDtype):
        import pyarrow as pa

        t = col.dtype.pyarrow_dtype
        return "durations" if pa.types.is_duration(t) else "dates" if pa.types.is_date(t) or pa.types.is_timestamp(t) \
            else None
    if pd.api.types.is_timedelta64_dtype(col):
        return "durations"
    if pd.api.types.is_datetime64_any_dtype(col):
        return "dates"
    if col.dtype == object:
        kind = pd.api.types.infer_dtype(col, skipna=True)
        return {"datetime": "dates", "datetime64": "dates", "date": "dates", "timedelta": "durations",
                "timedelta64": "durations"}.get(kind)
    return None


#: why an inferred spec leaves a column out (compare refuses each of these in a spec that lists it)
ALL_MISSING = "it is missing in every record, so there is nothing to compare"
NESTED = ("it holds lists or mappings (a nested column), which cannot be compared; flatten it into ordinary columns "
          "to compare them")
COMPLEX = ("it holds complex numbers, which cannot be compared; give its real part or its modulus as a column of its "
           "own to compare it")


def _infer_variable(name: str, col: pd.Series) -> VariableSpec | str:
    """The inferred variable of column ``col``, or why it is left out (:data:`ALL_MISSING`, :data:`NESTED`,
    :data:`COMPLEX`)."""
    if pd.api.types.is_complex_dtype(col):
        return COMPLEX
    if _all_missing(col):
        return ALL_MISSING
    try:
        return _infer_scalar_variable(name, col)
    except (TypeError, NotImplementedError):  # lists or mappings from a nested Parquet/Arrow column (no Arrow kernel)
        return NESTED


def _all_missing(col: pd.Series) -> bool:
    """Whether every value of ``col`` is missing or one of the default missing codes ('', 'NA', 'NaN' as text)."""
    present = col.notna().to_numpy(dtype=bool)
    if not present.any():
        return True
    first = col.iloc[int(present.argmax())]
    codes = {_norm_label(m) for m in DEFAULT_MISSING}
    if not isinstance(first, str) or _norm_label(first) not in codes:
        return False
    try:
        return {_norm_label(v) for v in col[present].unique()} <= codes
    except (TypeError, NotImplementedError):  # unhashable values further down: not missing
        return False


def _infer_scalar_variable(name: str, col: pd.Series) -> VariableSpec:
    temporal = temporal_kind(col)
    if temporal is not None:
        return VariableSpec(name, scale="continuous", note=f"{temporal}, taken as days"
                            + (" since 1970-01-01" if temporal == "dates" else ""))
    numeric = pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)
    if numeric and _WEIGHT_RE.search(name):
        return VariableSpec(name, role="weight", note="named like a weight")
    if _ID_RE.search(name):
        return VariableSpec(name, role="id", note="named like an identifier")
    if isinstance(col.dtype, pd.CategoricalDtype):
        if col.dtype.ordered:
            return VariableSpec(name, scale="ordinal", note="ordered categories (labelled ordinal)")
        return VariableSpec(name, scale="nominal", note="labelled categories")
    if not numeric:
        n = col.nunique(dropna=True)
        hint = _comma_hint(name, col) or _time_hint(name, col)
        return VariableSpec(name, scale="nominal", note=f"text, {counted(n, 'distinct value')}{hint}")
    n = col.nunique(dropna=True)
    if n > CONTINUOUS_MIN_DISTINCT:
        return VariableSpec(name, scale="continuous", note=f"number, {counted(n, 'distinct value')}")
    if _has_fractions(col):  # 1.37, 2.5: measurements, not category codes, however few
        return VariableSpec(name, scale="continuous", note=f"number with fractions, {counted(n, 'distinct value')}")
    return VariableSpec(name, scale="nominal", note=f"number with only {counted(n, 'distinct value')}")


#: a number written with a decimal comma, "31,5" or "1.234,5" (also read by infoloss.pair for its messages)
DECIMAL_COMMA = re.compile(r"\s*[-+]?\d{1,3}(?:[.\s]\d{3})*,\d+\s*|\s*[-+]?\d+,\d+\s*")
_WHOLE = re.compile(r"\s*[-+]?\d+\s*")


def _comma_hint(name: str, col: pd.Series) -> str:
    """A note (and an InferenceWarning) when the text column ``col`` looks like numbers with a decimal comma: its
    first 1,000 values are whole numbers or decimal-comma numbers, at least one with a comma; else ''."""
    values = _first_values_all(col, _number_like)
    example = next((v for v in values if DECIMAL_COMMA.fullmatch(v)), None) if values else None
    if example is None:
        return ""
    return _inference_hint(name, f"looks like numbers with a decimal comma ({example!r}); export the file with '.' "
                                 "as the decimal separator and infer the spec again")


#: a time of day written as text: 7:30, 07:30:15, 23:59:59.5
TIME_OF_DAY = re.compile(r"\s*(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?\s*")


def _time_hint(name: str, col: pd.Series) -> str:
    """A note (and an InferenceWarning) when the text column ``col`` holds times of day: its first 1,000 values
    are all written as hours:minutes[:seconds]; else ''."""
    values = _first_values_all(col, lambda v: bool(TIME_OF_DAY.fullmatch(v)))
    if not values:
        return ""
    return _inference_hint(name, f"looks like times of day ({values[0]!r}), compared as categories; to compare them "
                                 "as numbers, give them as minutes or seconds since midnight and make the variable "
                                 "continuous")


def _first_values_all(col: pd.Series, test: Callable[[str], bool]) -> list[str] | None:
    """The distinct texts of the first 1,000 values of ``col`` (in order), when ``test`` holds for every one; else
    None.  The usual text column is told apart by its first value, without reading the others."""
    try:
        head = col.dropna().iloc[:1000]
        if head.empty or not test(str(head.iloc[0])):
            return None
        values = list(dict.fromkeys(str(v) for v in head))
    except (TypeError, ValueError):
        return None
    return values if all(test(v) for v in values) else None


def _inference_hint(name: str, hint: str) -> str:
    """``hint`` as an InferenceWarning on column ``name`` and as the tail of its note."""
    import warnings

    from .limits import InferenceWarning

    warnings.warn(f"column {name!r} {hint}", InferenceWarning, stacklevel=5)
    return f"; {hint}"


def _number_like(text: str) -> bool:
    """Whether ``text`` is a whole number or a decimal-comma number (what :func:`_comma_hint` needs of each value)."""
    return bool(DECIMAL_COMMA.fullmatch(text) or _WHOLE.fullmatch(text))


def _has_fractions(col: pd.Series) -> bool:
    """Whether a numeric column holds a finite value that is not a whole number."""
    try:
        values = col.dropna().to_numpy(dtype=float)
    except (TypeError, ValueError):
        return False
    values = values[np.isfinite(values)]
    return bool(values.size) and bool(np.any(values != np.round(values)))


