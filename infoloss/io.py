"""Reading data files of every supported format into a pandas DataFrame.

One public function, :func:`read_table`, picks the reader by the file ending,
turns value labels into categories and applies the spec's missing codes.  The
libraries do the parsing (pyarrow for CSV, Parquet and Arrow; pyreadstat for
Stata, SPSS and SAS; openpyxl through pandas for Excel); this module only
normalises what they return and turns their errors into one-sentence
:class:`~infoloss.errors.InputError` messages.  Input files are only ever
opened for reading.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np
import pandas as pd

from ._files import checked_path, path_kind
from .errors import InputError
from .io_csv import (CSV_ENDINGS, _check_csv_is_text, _check_unique, _exact_integers, _head, _is_nan, _not_format,
                     _numbers_of, _separator, _separator_mismatch, _text, csv_table, release_arrow_threads)
from .spec import DEFAULT_MISSING, Spec, as_spec

ENDINGS = CSV_ENDINGS + (".parquet", ".feather", ".arrow", ".dta", ".sav", ".zsav", ".sas7bdat", ".xpt", ".xlsx")
_NUMBER_RE = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_HINTS = {".xls": "save it as .xlsx", ".gz": "unpack it first", ".zip": "unpack it first"}


# ---------------------------------------------------------------------------
# public entry point
# ---------------------------------------------------------------------------
def read_table(path: str | Path, spec: Spec | None = None, *, which: str = "original",
               spec_columns: bool = False) -> pd.DataFrame:
    """Read a data file into a DataFrame, choosing the reader by its ending.

    Parameters
    ----------
    path : str or Path
        The file; its ending (case-insensitive) is one of ``ENDINGS``.
    spec : Spec, dict or path of a YAML spec, optional
        Supplies the CSV separator, the global missing codes (default
        ``"", "NA", "NaN"``) and per-variable missing codes.
    which : str
        ``"original"`` or ``"protected"``; used in error messages.
    spec_columns : bool
        Read only the columns the spec uses from Parquet and Feather files
        (all of them when the spec names a column the file lacks, or
        analyses every column); other formats are read whole.

    Returns
    -------
    pandas.DataFrame
        String column names; numeric columns as numpy ``int64`` (no missing)
        or ``float64`` (missing as NaN), except integers float64 cannot hold
        exactly (beyond 2**53, with a missing value; in a CSV file, whole
        numbers beyond int64), which are text;
        text as object or ``str``; labelled
        Stata/SPSS/SAS variables as ``Categorical`` with categories in code
        order (ordered for SPSS ordinal variables).  Zero rows is not an error.

    Raises
    ------
    InputError
        The file is missing, a folder, unreadable, empty, of an unknown
        ending, broken, not in the format its ending says, or has a duplicate
        column name.
    """
    release_arrow_threads()  # held at one by the command line's read-ahead of the CSV files until a read starts
    spec = as_spec(spec)
    path = checked_path(path, f"the {which} file")
    label = f"the {which} file {path}"
    ending = path.suffix.lower()
    _check_file(path, label, ending)
    missing = list(spec.missing) if spec is not None else list(DEFAULT_MISSING)
    if ending in CSV_ENDINGS:
        _check_csv_is_text(path, label)
        sep = _separator(path, label, spec, ending)
        given = spec is not None and spec.separator is not None
        try:
            df = _read_csv(path, label, sep, missing, _numbers_of(spec))
        except InputError as exc:
            problem = _separator_mismatch(path, label, sep) if given else None
            raise InputError(problem or str(exc)) from None
        if given and df.shape[1] == 1 and (problem := _separator_mismatch(path, label, sep)):
            raise InputError(problem)
    else:
        reader = _READERS[ending]
        df = reader(path, label, spec if spec_columns else None) if ending in _COLUMNAR else reader(path, label)
    if ending == ".xlsx" and spec is not None:
        _check_sheet_columns(path, label, spec, df.columns, which)
    df = _finish(df, label)
    return _apply_missing_codes(df, spec, missing, csv_file=ending in CSV_ENDINGS)


# ---------------------------------------------------------------------------
# checks before reading
# ---------------------------------------------------------------------------
def _check_file(path: Path, label: str, ending: str) -> None:
    """Raise InputError unless ``path`` is a non-empty, readable file with a known ending."""
    kind = path_kind(path, label)
    if kind == "missing":
        raise InputError(f"{label} does not exist; check the path.")
    if kind == "folder":
        raise InputError(f"{label} is a folder, not a file; give the path of a data file.")
    if kind != "file":  # a pipe would block reading (and is read more than once), a device never ends
        raise InputError(f"{label} is not a regular file (a pipe, device or socket); save the data to a file first.")
    if ending not in ENDINGS:
        known = ", ".join(ENDINGS)
        what = f"an unknown ending '{ending}'" if ending else "no file ending"
        hint = f"{_HINTS[ending]} or " if ending in _HINTS else ""
        raise InputError(f"{label} has {what}; {hint}use one of {known}.")
    try:
        with path.open("rb") as handle:
            handle.read(1)
    except OSError as exc:
        raise InputError(f"{label} cannot be read ({exc.strerror or exc}); check its permissions.") from None
    if path.stat().st_size == 0:
        raise InputError(f"{label} is empty (0 bytes); give a file with a header row and data.")


def _finish(df: pd.DataFrame, label: str) -> pd.DataFrame:
    """String column names, no duplicates, a RangeIndex and plain numpy numeric dtypes."""
    names = [str(c) for c in df.columns]
    _check_unique(names, label)
    df = df.copy(deep=False)
    df.columns = names
    df.index = pd.RangeIndex(len(df))
    for name in names:
        column = df[name]
        plain = _plain(column)
        if plain is not column:
            df[name] = plain
    return df


def _plain(s: pd.Series) -> pd.Series:
    """Nullable, Arrow-backed and narrow numeric dtypes become numpy int64/float64."""
    dtype = s.dtype
    if isinstance(dtype, pd.CategoricalDtype) or dtype in (np.int64, np.float64):
        return s
    if pd.api.types.is_bool_dtype(dtype):
        if isinstance(dtype, np.dtype):
            return s
        return s.astype(bool) if not s.isna().any() else s.astype(object).where(s.notna(), np.nan)
    if pd.api.types.is_integer_dtype(dtype):
        big = s.dtype == np.uint64 or str(dtype).lower().startswith("uint64")
        if s.isna().any() or (big and len(s) and s.max() > np.iinfo(np.int64).max):
            return pd.Series(s.to_numpy(dtype=float, na_value=np.nan), index=s.index, name=s.name)
        return pd.Series(s.to_numpy(dtype=np.int64), index=s.index, name=s.name)
    if pd.api.types.is_float_dtype(dtype):
        return pd.Series(s.to_numpy(dtype=np.float64, na_value=np.nan), index=s.index, name=s.name)
    if pd.api.types.is_string_dtype(dtype) and not isinstance(dtype, np.dtype) and dtype != "str":
        return s.astype("str")
    return s


# ---------------------------------------------------------------------------
# CSV
# ---------------------------------------------------------------------------
def _read_csv(path: Path, label: str, sep: str, missing: list, numbers: frozenset[str] = frozenset()) -> pd.DataFrame:
    """Read a CSV with pyarrow (:func:`infoloss.io_csv.csv_table`) into pandas."""
    return csv_table(path, label, sep, missing, numbers).to_pandas(split_blocks=True)


# ---------------------------------------------------------------------------
# Parquet, Feather / Arrow IPC, Excel
# ---------------------------------------------------------------------------
def _as_text(metadata: dict | None, names: list[str]) -> dict | None:
    """The schema metadata with pandas' record of the columns ``names`` changed to text (a Parquet file written
    by pandas says which dtype each column had: an Int64 column made text would otherwise be converted back)."""
    import json

    if not names or not metadata or b"pandas" not in metadata:
        return metadata
    try:
        info = json.loads(metadata[b"pandas"])
        for column in info.get("columns", []):
            if column.get("name") in names:
                column.update(pandas_type="unicode", numpy_type="object", metadata=None)
    except (ValueError, TypeError, AttributeError):  # damaged: :func:`_to_pandas` reads the table without it
        return metadata
    return {**metadata, b"pandas": json.dumps(info).encode()}


def _to_pandas(table: Any) -> pd.DataFrame:
    """``table.to_pandas``; when the pandas metadata of a file written by pandas cannot be applied (not JSON, an
    index column the file lacks: pyarrow raised JSONDecodeError, KeyError or TypeError), the table without it: the
    values are all there, only the index and the dtypes pandas recorded are lost.  The metadata is dropped, not
    ignored: ``ignore_metadata=True`` still parses it."""
    try:
        return table.to_pandas(split_blocks=True)
    except (ValueError, TypeError, KeyError, AttributeError, IndexError):
        metadata = table.schema.metadata or {}
        if b"pandas" not in metadata:
            raise
        rest = {key: value for key, value in metadata.items() if key != b"pandas"}
        return table.replace_schema_metadata(rest or None).to_pandas(split_blocks=True)


def _arrow_to_pandas(table: Any, label: str) -> pd.DataFrame:
    """Arrow table to pandas: decimals and all-null columns become float64, integers beyond float64's exact
    range text (:func:`_exact_integers`); a pandas index becomes columns (one named like a column is refused as a
    name given twice: ``reset_index`` raised ValueError)."""
    import pyarrow as pa

    arrays, texts = [], []
    for name, column in zip(table.column_names, table.columns):
        column = _plain_arrow(column)
        if pa.types.is_decimal(column.type) and column.type.scale <= 0:
            column = _whole_decimals(column)
        elif pa.types.is_decimal(column.type) or pa.types.is_null(column.type):
            column = column.cast(pa.float64())
        exact = _exact_integers(column)
        if exact is not column:
            texts.append(name)
        arrays.append(exact)
    fixed = pa.table(arrays, names=table.column_names).replace_schema_metadata(_as_text(table.schema.metadata, texts))
    df = _to_pandas(fixed)
    if any(n is not None for n in df.index.names):  # a named pandas index was a column: keep it
        index = [str(f"level_{i}" if n is None else n) for i, n in enumerate(df.index.names)]  # reset_index's names
        _check_unique(index + [str(c) for c in df.columns], label)  # an index named like a column
        df = df.reset_index()
    return df


def _plain_arrow(column: Any) -> Any:
    """A column of a type pandas cannot take from Arrow as the plain values it holds: an extension type (JSON
    text, bool8, a tensor, an opaque type) as its stored values, a run-end encoded column decoded, a union as the
    text of its values, a dictionary of anything but text or numbers decoded (a nested column is then left out
    or refused as such).  ``to_pandas`` raised KeyError, ArrowNotImplementedError or TypeError on them."""
    import pyarrow as pa
    import pyarrow.compute as pc

    t = column.type
    if isinstance(t, pa.BaseExtensionType):
        return _plain_arrow(pa.chunked_array([c.storage for c in column.chunks], type=t.storage_type))
    if pa.types.is_run_end_encoded(t):
        return _plain_arrow(pa.chunked_array([pc.run_end_decode(c) for c in column.chunks], type=t.value_type))
    if pa.types.is_union(t):
        return pa.chunked_array([pa.array([None if v is None else str(v) for v in column.to_pylist()], pa.string())])
    if pa.types.is_dictionary(t) and not (pa.types.is_string(t.value_type) or pa.types.is_large_string(t.value_type)
                                          or pa.types.is_integer(t.value_type) or pa.types.is_floating(t.value_type)):
        return _plain_arrow(pa.chunked_array([c.dictionary_decode() for c in column.chunks], type=t.value_type))
    return column


def _whole_decimals(column: Any) -> Any:
    """A decimal column without a fraction (``decimal(38, 0)``: long codes and ids) as int64 where it fits, else
    as text: through float64, 20-digit codes that differ in their last digits became one value."""
    import pyarrow as pa

    try:
        return column.cast(pa.int64())  # safe cast: an overflow raises
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return column.cast(pa.string())


def _spec_columns(spec: Spec | None, available: list[str]) -> list[str] | None:
    """The columns of a columnar file the spec uses (None: read them all).

    All are read without a spec, with ``analyse_all``, or when the spec names
    a column the file lacks (so that the error can suggest a close name).
    """
    if spec is None or spec.analyse_all or not spec.variables:
        return None
    wanted = set(spec.variables) | ({spec.pairing_id} if spec.pairing_id is not None else set())
    if not wanted <= set(available):
        return None
    return [c for c in available if c in wanted]


def _read_parquet(path: Path, label: str, spec: Spec | None = None) -> pd.DataFrame:
    """A Parquet file; with a spec, only the columns it uses are read."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        names = pq.read_schema(path).names
    except (pa.ArrowException, OSError, ValueError):
        raise _not_format(label, "Parquet", path) from None
    _check_unique(names, label)  # pyarrow would fail to select the columns of a name given twice
    try:
        table = pq.read_table(path, columns=_spec_columns(spec, names) if spec is not None else None)
    except (pa.ArrowException, OSError, ValueError):
        raise _not_format(label, "Parquet", path) from None
    return _arrow_to_pandas(_validated(table, label, "Parquet", path), label)


def _read_arrow(path: Path, label: str, spec: Spec | None = None) -> pd.DataFrame:
    """Feather v1/v2 or Arrow IPC file (with a spec, only the columns it uses); failing that, an Arrow IPC stream."""
    import pyarrow as pa
    import pyarrow.feather as feather

    try:
        table = feather.read_table(path, columns=_arrow_file_columns(path, spec), memory_map=False)
    except (pa.ArrowException, OSError, ValueError):
        try:
            with pa.OSFile(str(path), "rb") as source:
                table = pa.ipc.open_stream(source).read_all()
        except (pa.ArrowException, OSError, ValueError):
            raise _not_format(label, "Feather/Arrow", path) from None
    return _arrow_to_pandas(_validated(table, label, "Feather/Arrow", path), label)


def _validated(table: Any, label: str, kind: str, path: Path) -> Any:
    """``table`` once Arrow's full check of its columns passes.

    A damaged file can read without an error: one flipped byte in a Feather
    file's string offsets made pandas' ``isin`` read outside the data and
    crash the process (segmentation fault); Parquet text that is not UTF-8
    crashed later with an ArrowException.  The check costs nothing for
    numbers but reads every text value (its UTF-8 too), so it is not free
    next to Arrow's fast reads: a 1,000,000-row table with 5 text, 15
    numeric and 1 dictionary column took ``read_table`` 0.12-0.17 s from
    Feather instead of 0.09-0.11 s (about half as long again) and 0.23 s
    from Parquet instead of 0.20 s; small next to any comparison.
    """
    import pyarrow as pa

    for name, column in zip(table.column_names, table.columns):
        try:
            column.validate(full=True)
        except pa.ArrowException as exc:
            if "UTF8" not in str(exc):
                raise _not_format(label, kind, path) from None
            raise InputError(f"{label} is not a valid {kind} file: its column {name!r} holds text that is not "
                             "UTF-8; write the file again with that column as UTF-8 text.") from None
    return table


def _arrow_file_columns(path: Path, spec: Spec | None) -> list[str] | None:
    """:func:`_spec_columns` of an Arrow IPC (Feather v2) file; None (read all) for Feather v1 or a stream."""
    import pyarrow as pa

    if spec is None:
        return None
    try:
        with pa.memory_map(str(path)) as source:
            names = pa.ipc.open_file(source).schema.names
    except (pa.ArrowException, OSError, ValueError):
        return None
    return _spec_columns(spec, names) if len(set(names)) == len(names) else None  # twice: read whole, then said


def _read_xlsx(path: Path, label: str) -> pd.DataFrame:
    """The first sheet; its first row names the columns (read raw so duplicate names are seen)."""
    import zipfile
    import zlib

    try:
        raw = pd.read_excel(path, sheet_name=0, header=None, engine="openpyxl")
    except (zipfile.BadZipFile, zlib.error, EOFError, KeyError, OSError, ValueError, TypeError):
        # zlib.error, EOFError: zipfile passes them on from a damaged or cut compressed part of the workbook
        raise _not_format(label, "Excel (.xlsx)", path) from None
    except Exception as exc:  # openpyxl raises its own exception classes for corrupt workbooks
        if type(exc).__module__.startswith(("openpyxl", "zipfile", "xml")):
            raise _not_format(label, "Excel (.xlsx)", path) from None
        raise
    if raw.shape[0] == 0:
        _check_first_sheet(path, label)
        return pd.DataFrame()
    # a row or a column with nothing in it is no record and no variable: a blank row inside the data, or a stray
    # value far below or to the right (cell A1048576 made 1,048,575 records, XFD2 16,380 empty columns)
    raw = raw.loc[:, raw.notna().any(axis=0)]
    raw = raw.loc[raw.notna().any(axis=1)]
    raw.columns = range(raw.shape[1])
    names = [_header_name(v, i) for i, v in enumerate(raw.iloc[0])]
    _check_unique(names, label)
    body = raw.iloc[1:].reset_index(drop=True)
    if body.empty:  # a note or a title on the first sheet, the data on another: say that one sheet is read
        _check_first_sheet(path, label, "holds no records")
    empty = [i for i, c in enumerate(raw.columns) if len(body) and body[c].isna().all()]
    if empty:
        _check_formulas(path, label, [names[i] for i in empty], empty)
    return pd.DataFrame({n: body[c].infer_objects() for n, c in zip(names, raw.columns)}, columns=names)


def _check_first_sheet(path: Path, label: str, state: str = "is empty") -> None:
    """An empty first sheet (or one without records: ``state``) of a workbook with other sheets: say that only
    the first sheet is read."""
    with pd.ExcelFile(path, engine="openpyxl") as book:  # closed: an open workbook keeps its file open
        sheets = book.sheet_names
    if len(sheets) > 1:
        raise InputError(f"the first sheet ({sheets[0]!r}) of {label} {state}; infoloss reads the "
                         "first sheet only: move the data to it, or save that sheet as a file of its own.")


def _check_sheet_columns(path: Path, label: str, spec: Spec, columns: Iterable[Any], which: str) -> None:
    """A variable of the spec that the first sheet lacks, in a workbook with other sheets: say that only the first
    sheet is read (the data may be on another)."""
    present = {str(c) for c in columns}
    absent = [n for n, v in spec.variables.items() if n not in present and not (v.removed and which != "original")]
    if not absent:
        return
    with pd.ExcelFile(path, engine="openpyxl") as book:
        sheets = book.sheet_names
    if len(sheets) > 1:
        raise InputError(f"variable {absent[0]!r} of the spec is not a column of the first sheet ({sheets[0]!r}) of "
                         f"{label}, and infoloss reads only the first of its {len(sheets)} sheets; move the data to "
                         "the first sheet, or save its sheet as a file of its own.")


def _check_formulas(path: Path, label: str, names: list[str], positions: list[int]) -> None:
    """Columns read as empty that hold formulas without saved results (a workbook written by a program that
    does not calculate them): their values are unknown, not missing."""
    import openpyxl

    book = openpyxl.load_workbook(path, read_only=True, data_only=False)
    try:
        sheet = book.worksheets[0]
        for row in sheet.iter_rows(min_row=2, max_row=50, values_only=True):
            for name, i in zip(names, positions):
                value = row[i] if i < len(row) else None
                if isinstance(value, str) and value.startswith("="):
                    raise InputError(
                        f"column {name!r} of {label} holds formulas without saved results; open "
                        "and save the workbook in a spreadsheet program (which calculates them), or export it as CSV."
                    )
    finally:
        book.close()


def _header_name(value: Any, i: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return f"Unnamed: {i}"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# ---------------------------------------------------------------------------
# Stata, SPSS, SAS (pyreadstat)
# ---------------------------------------------------------------------------
def _readstat(function: str, kind: str, ordinal_measure: bool) -> Callable[[Path, str], pd.DataFrame]:
    """A reader built on ``pyreadstat.<function>`` that turns value labels into categories."""

    def read(path: Path, label: str) -> pd.DataFrame:
        import pyreadstat

        extra = {}
        if function == "read_sas7bdat":
            catalog = path.with_suffix(".sas7bcat")
            if catalog.is_file():
                extra["catalog_file"] = str(catalog)
        if function == "read_xport" and path.stat().st_size % 80 and _head(path, 48).startswith(b"HEADER RECORD"):
            # a transport file is a sequence of 80-byte records (padded): a cut one reads as fewer records, silently
            raise InputError(f"{label} is cut short (a SAS transport file is a whole number of 80-byte records, and "
                             f"it has {path.stat().st_size:,} bytes); copy or export it again.")
        try:
            df, meta = getattr(pyreadstat, function)(str(path), **extra)
        except (pyreadstat.ReadstatError, pyreadstat.PyreadstatError, OSError, ValueError, UnicodeError):
            raise _not_format(label, kind, path) from None
        measures = (getattr(meta, "variable_measure", None) or {}) if ordinal_measure else {}
        labels = getattr(meta, "variable_value_labels", None) or {}
        codes = {}
        for name, mapping in labels.items():
            if name in df.columns and mapping:
                df[name] = _labelled(df[name], mapping, ordered=measures.get(name) == "ordinal")
                codes[str(name)] = {label: code for code, label in mapping.items()}
        df.attrs[LABEL_CODES] = codes  # a missing code may name a labelled value by its code (-99 = "refused")
        return df

    return read


#: ``DataFrame.attrs`` key of a labelled file's codes: column -> {label: code}
LABEL_CODES = "infoloss_label_codes"


def _labelled(codes: pd.Series, mapping: dict, *, ordered: bool) -> pd.Series:
    """A Categorical of labels in code order; codes without a label stay as the code."""
    present = pd.unique(codes.dropna())
    every = set(mapping) | set(present.tolist())
    try:
        order = sorted(every)
    except TypeError:
        order = sorted(every, key=str)
    name_of = {code: mapping.get(code, _as_int_if_whole(code)) for code in order}
    categories = list(dict.fromkeys(name_of.values()))
    values = codes.map(name_of)
    cat = pd.Categorical(values, categories=pd.Index(categories, dtype=object), ordered=ordered)
    return pd.Series(cat, index=codes.index, name=codes.name)


def _as_int_if_whole(value: Any) -> Any:
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return int(value)
    return value


# ---------------------------------------------------------------------------
# missing codes
# ---------------------------------------------------------------------------
def _apply_missing_codes(df: pd.DataFrame, spec: Spec | None, missing: list, *, csv_file: bool) -> pd.DataFrame:
    """Global codes on every column (text as text, numbers numerically), then per-variable codes.

    For CSV the global codes were already nulls at parsing; only numeric codes
    written differently (``-99.0`` for ``-99``) are left to do.
    """
    global_codes = [m for m in missing if _number(m) is not None] if csv_file else missing
    per_variable = {v.name: v.missing for v in spec.variables.values() if v.missing} if spec is not None else {}
    label_codes = df.attrs.get(LABEL_CODES) or {}
    for name in df.columns:
        codes = list(global_codes) + list(per_variable.get(name, []))
        if codes and name in label_codes:  # a labelled value listed by its code: its label is missing too
            numbers = {x for x in (_number(c) for c in codes) if x is not None}
            codes += [label for label, code in label_codes[name].items()
                      if isinstance(code, (int, float)) and float(code) in numbers]
        if codes:
            df[name] = _set_missing(df[name], codes, parse_text=csv_file)
    return df


def _set_missing(s: pd.Series, codes: list, *, parse_text: bool) -> pd.Series:
    """``s`` with values equal to any code set missing; a text column left with only numbers becomes numeric."""
    numbers = [x for x in (_number(c) for c in codes) if x is not None]
    texts = {t for c in codes if not _is_nan(c) for t in (_text(c), _canonical(c))}
    if isinstance(s.dtype, pd.CategoricalDtype):
        cats = s.cat.categories
        keep = [c for c in cats if not _matches(c, numbers, texts)]
        # set_categories keeps the order (remove_categories may sort); dropped values become missing
        return s.cat.set_categories(pd.Index(keep, dtype=cats.dtype)) if len(keep) < len(cats) else s
    if pd.api.types.is_bool_dtype(s.dtype):
        return s
    if pd.api.types.is_numeric_dtype(s.dtype):
        if not numbers:
            return s
        mask = s.isin(numbers).to_numpy()
        return s.where(~mask, np.nan) if mask.any() else s
    if not (pd.api.types.is_string_dtype(s.dtype) or s.dtype == object):
        return s
    mask = s.isin(list(texts)).to_numpy(dtype=bool)
    if numbers and s.dtype == object:  # numbers mixed into a text column (Excel)
        mask |= s.map(lambda v: _matches(v, numbers, set())).to_numpy(dtype=bool)
    if not mask.any():
        return s
    return _numeric_if_possible(s.where(~mask, np.nan), parse_text=parse_text)


def _matches(value: Any, numbers: list[float], texts: set[str]) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value) in numbers
    if isinstance(value, str):
        return value in texts
    return False


def _numeric_if_possible(s: pd.Series, *, parse_text: bool) -> pd.Series:
    """int64/float64 if every non-missing value is a number (or, for CSV, text of a number)."""
    present = s.dropna()
    if present.empty:
        return pd.Series(np.nan, index=s.index, name=s.name, dtype=np.float64)
    raw = present.astype(object)
    all_numbers = raw.map(lambda v: isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool))
    if not all_numbers.all():
        if not parse_text or not raw.map(lambda v: isinstance(v, str) and bool(_NUMBER_RE.fullmatch(v.strip()))).all():
            return s
    return _plain(pd.to_numeric(s.astype(object), errors="coerce"))


def _number(code: Any) -> float | None:
    """The numeric value of a missing code (a number or the text of one), else None."""
    if isinstance(code, bool):
        return None
    if isinstance(code, (int, float)):
        return None if math.isnan(code) else float(code)
    if isinstance(code, str) and _NUMBER_RE.fullmatch(code.strip()):
        return float(code)
    return None


def _canonical(code: Any) -> str:
    """The text of a numeric code without a redundant ``.0`` (so -99.0 matches the text "-99")."""
    if isinstance(code, float) and code.is_integer():
        return str(int(code))
    return _text(code)


#: endings whose reader takes the spec and reads only its columns
_COLUMNAR = (".parquet", ".feather", ".arrow")

_READERS: dict[str, Callable[..., pd.DataFrame]] = {
    ".parquet": _read_parquet,
    ".feather": _read_arrow,
    ".arrow": _read_arrow,
    ".xlsx": _read_xlsx,
    ".dta": _readstat("read_dta", "Stata (.dta)", False),
    ".sav": _readstat("read_sav", "SPSS (.sav)", True),
    ".zsav": _readstat("read_sav", "SPSS (.zsav)", True),
    ".sas7bdat": _readstat("read_sas7bdat", "SAS (.sas7bdat)", False),
    ".xpt": _readstat("read_xport", "SAS transport (.xpt)", False),
}
