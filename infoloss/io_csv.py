"""CSV files read with pyarrow into Arrow tables (used by :mod:`infoloss.io`).

:func:`csv_table` is the CSV reader's Arrow stage (:func:`infoloss.io.read_table`
converts its table to pandas and applies the spec's missing codes): the
separator, the encoding, quoted values that span lines, types pyarrow would
guess wrongly, and one-sentence :class:`~infoloss.errors.InputError` messages
for what it cannot parse; and what a file's first bytes say it is.  Input
files are only ever opened for reading.
"""

from __future__ import annotations

import contextlib
import csv
import math
import mmap
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from .errors import InputError

if TYPE_CHECKING:
    from .spec import Spec

CSV_ENDINGS = (".csv", ".tsv", ".txt")
SNIFF_BYTES = 64 * 1024
SEPARATORS = ",;\t|"


def csv_table(path: Path, label: str, sep: str, missing: list, numbers: frozenset[str] = frozenset()) -> Any:
    """The CSV file as an Arrow table: global missing codes are nulls; non-numeric, non-text columns stay text.

    ``numbers``: columns the spec reads as numbers (not checked for whole numbers beyond int64).
    """
    import pyarrow as pa

    nulls = csv_nulls(missing)
    encoding = "utf8"
    table = _arrow_csv(path, label, sep, nulls, encoding, {})
    if not _names_decode(table) or any(pa.types.is_binary(t) or pa.types.is_large_binary(t) for t in table.schema.types):
        encoding = "latin1"  # not valid UTF-8: the most common other encoding of statistical files
        table = _arrow_csv(path, label, sep, nulls, encoding, {})
    keep = (pa.types.is_integer, pa.types.is_floating, pa.types.is_string, pa.types.is_large_string, pa.types.is_null)
    odd = {f.name: pa.string() for f in table.schema if not any(test(f.type) for test in keep)}
    if odd:  # dates, times, booleans: read them again as the text they are
        table = _arrow_csv(path, label, sep, nulls, encoding, odd)
    _check_unique(table.column_names, label)
    table = _whole_numbers_beyond_int64(table, lambda types: _arrow_csv(path, label, sep, nulls, encoding, {**odd, **types}),
                                        numbers)
    columns = {}
    for name, column in zip(table.column_names, table.columns):
        columns[name] = column.cast(pa.float64()) if pa.types.is_null(column.type) else _exact_integers(column)
    return pa.table(list(columns.values()), names=table.column_names)


def csv_nulls(missing: list) -> list[str]:
    """The texts Arrow reads as missing: the empty field and the global missing codes (NaN codes aside)."""
    return sorted({""} | {_text(m) for m in missing if not _is_nan(m)})


def _separator(path: Path, label: str, spec: Spec | None, ending: str) -> str:
    """The spec's separator, tab for .tsv, else the one csv.Sniffer finds in the first 64 KiB."""
    if spec is not None and spec.separator:
        return spec.separator
    if ending == ".tsv":
        return "\t"
    with path.open("rb") as handle:
        data = handle.read(SNIFF_BYTES)
    if len(data) == SNIFF_BYTES and b"\n" in data:
        data = data[: data.rindex(b"\n")]
    sample = data.decode("utf-8", errors="replace").lstrip("\ufeff")
    header = sample.split("\n", 1)[0]
    try:
        sep = csv.Sniffer().sniff(sample, delimiters=SEPARATORS).delimiter
    except csv.Error:
        sep = None
    if sep is None or sep not in header:
        counts = {c: header.count(c) for c in SEPARATORS}
        best = max(counts, key=counts.get)
        sep = best if counts[best] else ","
    return sep


_SEPARATOR_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}


def _separator_mismatch(path: Path, label: str, sep: str) -> str | None:
    """A sentence when the header line is not split by ``sep`` (the spec's) but is by another separator."""
    with path.open("rb") as handle:
        first = handle.read(SNIFF_BYTES).split(b"\n", 1)[0]
    header = first.decode("utf-8", errors="replace").lstrip("\ufeff").rstrip("\r")

    def fields(delimiter: str) -> int:
        try:
            return len(next(csv.reader([header], delimiter=delimiter), []))
        except csv.Error:
            return 0

    if fields(sep) > 1:
        return None
    counts = {c: fields(c) for c in SEPARATORS if c != sep}
    best = max(counts, key=counts.get)
    if counts[best] <= 1:
        return None
    shown = "tab" if sep == "\t" else repr(sep)
    return (
        f"{label} looks {_SEPARATOR_NAMES[best]}-separated ({counts[best]} columns in its header) but the spec "
        f"says separator {shown}; fix 'separator' in the spec, or remove it to let infoloss detect the separator."
    )


def _numbers_of(spec: Spec | None) -> frozenset[str]:
    """The spec's continuous variables and weight: columns read as numbers, whose rounding beyond int64 is no
    harm (codes and ids are compared exactly; see :func:`_whole_numbers_beyond_int64`)."""
    if spec is None:
        return frozenset()
    names = {name for name, var in spec.variables.items()
             if var.scale == "continuous" and var.role not in ("id", "household")}
    return frozenset(names | ({spec.weight} if spec.weight else set()))


def _names_decode(table: Any) -> bool:
    """False when a column name is not valid UTF-8 (pyarrow keeps such a header as raw bytes)."""
    try:
        table.column_names
    except UnicodeDecodeError:
        return False
    return True


#: bytes per block that pyarrow's CSV reader parses on its own thread
CSV_BLOCK_SIZE = 1 << 24
#: bytes per block of the typed read (:func:`_typed_csv`), whose blocks are freed as soon as they are converted;
#: 1.5 MB blocks parse faster than 4 MB ones (1,000,000 x 50 CSV file on two cores: 1.1-1.3 s against 1.5 s);
#: a file pyarrow cannot parse in such blocks (a row longer than a block) is read in blocks of CSV_TYPE_SAMPLE_SIZE
CSV_TYPED_BLOCK_SIZE = 3 << 19
#: bytes of the file's start whose types the typed read takes (:func:`_typed_csv`)
CSV_TYPE_SAMPLE_SIZE = 1 << 22
#: size of the pieces in which the typed read parses a large CSV file on several threads (:func:`_pieces_csv`); a
#: file of less than two pieces is read by Arrow's parallel reader
CSV_PIECE_BYTES = 64 << 20
#: most threads that parse one file's pieces: the pieces being parsed are mapped into memory, at most 512 MB of the
#: file at once
CSV_PIECE_THREADS = 8


#: the Arrow table of one CSV file kept for its next read (see :func:`keep_next_read`): ``want`` names the
#: file, ``read`` holds ``(key, table)`` once it has been read
_kept: dict[str, Any] = {}


def keep_next_read(path: str | Path) -> None:
    """Keep the Arrow table of the next read of ``path`` for the read after it (once), then let it go.

    ``infoloss compare`` without a spec reads the original to infer the spec
    and then again to compare it: the second read of a 1,000,000 × 50 file
    took 1.7 s.  The table is given back only for the same file (device,
    inode, size and modification time) read with the same separator,
    missing codes, encoding and column types; :func:`forget_kept_read`
    drops it.  Arrow's tables are immutable, so both reads get the same
    values.
    """
    _kept.clear()
    key = _file_key(path)
    if key is not None:
        _kept["want"] = key


def forget_kept_read() -> None:
    """Drop what :func:`keep_next_read` kept."""
    _kept.clear()


def _file_key(path: str | Path) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (os.path.realpath(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


#: the CSV files being parsed ahead of their read (:func:`read_ahead`): the file (:func:`_file_key`) → a
#: ``concurrent.futures.Future`` of ``(key of its parse (:func:`_read_key`), table)``, the table None when the
#: parse failed
_ahead: dict[tuple, Any] = {}
#: Arrow's number of CPU threads before :func:`read_ahead` held it at one (given back by
#: :func:`release_arrow_threads`)
_arrow_threads: list[int] = []


def read_ahead(paths: Iterable[str | Path], spec: Spec | None, serial: bool = False) -> None:
    """Start parsing the CSV files ``paths``, each on a thread of its own, to be read later with ``spec`` (issue 14).

    ``infoloss compare`` then spends about 0.3 s importing pandas and scipy
    on one core while the other is idle; meanwhile these threads do the
    first and largest step of each file's read, Arrow's parse, exactly as
    :func:`csv_table` would do it (UTF-8, the spec's separator and missing
    codes, no column types given).  Arrow's pool is held at one thread until
    the first read of any file starts (:func:`release_arrow_threads`): with
    two, the parse took the importing core and slowed the imports by as much
    as it gained (200,000 x 16: imports 0.30 → 0.38 s, parse over at 0.38 s;
    with one thread, imports 0.30 s, parse over at 0.26 s).

    ``serial`` (the command line's choice for large files): two or more
    files are parsed each by Arrow's serial reader (``use_threads=False``) on
    its own thread, and the pool is left alone.  Arrow's parallel reader
    spends about 40 % more CPU time handing 1.5 MB blocks between threads (a
    674 MB file: 2.2-2.3 against 1.6 CPU-s), and two files keep both cores
    busy without it: 1,000,000 x 50, one scenario, five alternating pairs:
    −0.6 s wall, −1.6 s CPU (medians), the same JSON to the bit.

    A table is taken only by a read of the same file (device, inode, size
    and modification time) with the same settings; any other read parses
    the file itself, and a file whose parse fails is parsed again by its
    read, which says why.  Only regular files with a CSV ending are read
    ahead.
    """
    import threading
    from concurrent.futures import Future

    import pyarrow as pa

    from .spec import DEFAULT_MISSING

    files = {}
    for p in paths:
        path = Path(p)
        try:
            file = _file_key(path) if path.suffix.lower() in CSV_ENDINGS and path.is_file() else None
        except OSError:  # a folder that may not be entered: the read says so
            file = None
        if file is not None and file not in _ahead and file not in files:
            files[file] = path
    if not files:
        return
    nulls = csv_nulls(list(spec.missing) if spec is not None else list(DEFAULT_MISSING))
    serial = serial and len(files) > 1
    if not serial and not _arrow_threads and pa.cpu_count() > 1:
        _arrow_threads.append(pa.cpu_count())
        pa.set_cpu_count(1)
    parsed: dict[tuple, Future] = {file: Future() for file in files}
    _ahead.update(parsed)

    def parse(file: tuple, path: Path) -> None:
        key, table = None, None
        try:
            sep = _separator(path, "", spec, path.suffix.lower())
            key = _read_key(path, sep, nulls, "utf8", {})
            table = _parse_csv(path, "", sep, nulls, "utf8", {}, serial=serial)
        except Exception:  # noqa: BLE001 (the read parses the file again and says what is wrong)
            table = None
        parsed[file].set_result((key, table))

    for file, path in files.items():  # a thread each, as compare reads them (each fills the other's gaps)
        threading.Thread(target=parse, args=(file, path), name="infoloss-read-ahead", daemon=True).start()


def _read_key(path: Path, sep: str, nulls: list, encoding: str, types: dict) -> tuple:
    """What makes two parses of a CSV file the same: the file as it is on disk and the read settings."""
    return (_file_key(path), sep, tuple(nulls), encoding, tuple(sorted((name, str(t)) for name, t in types.items())))


def _ahead_table(key: tuple) -> Any:
    """The table :func:`read_ahead` parsed for the read ``key`` (once: the file's entry goes), else None."""
    release_arrow_threads()
    parsed = _ahead.pop(key[0], None)
    if parsed is None:
        return None
    done_key, table = parsed.result()  # waits for the parse
    return table if done_key == key else None


def release_arrow_threads() -> None:
    """Give Arrow back the threads :func:`read_ahead` held it to (once; called when a read starts, whatever the
    file's format: a Parquet original read to infer the spec would otherwise decode on one thread)."""
    try:
        threads = _arrow_threads.pop()  # atomic: of two reads taking their tables at once, one gives them back
    except IndexError:
        return
    import pyarrow as pa

    pa.set_cpu_count(threads)


def forget_read_ahead() -> None:
    """Drop the tables :func:`read_ahead` parsed that no read took, and give Arrow its threads back."""
    release_arrow_threads()
    _ahead.clear()


def _arrow_csv(path: Path, label: str, sep: str, nulls: list, encoding: str, types: dict) -> Any:
    """:func:`_parse_csv`, or the table :func:`keep_next_read` kept or :func:`read_ahead` parsed of the same file
    read the same way."""
    if not _kept and not _ahead and not _arrow_threads:
        return _parse_csv(path, label, sep, nulls, encoding, types)
    key = _read_key(path, sep, nulls, encoding, types)
    held = _kept.get("read")
    if held is not None and held[0][0] == key[0]:  # the read after: the table if it is read the same way, and let go
        _kept.clear()
        if held[0] == key:
            return held[1]
    table = _ahead_table(key)
    if table is None:
        table = _parse_csv(path, label, sep, nulls, encoding, types)
    if held is None and key[0] is not None and _kept.get("want") == key[0]:
        _kept["read"] = (key, table)
    return table


def _parse_csv(path: Path, label: str, sep: str, nulls: list, encoding: str, types: dict,
               serial: bool = False) -> Any:
    """The CSV as an Arrow table, its blocks split at any line end unless a value may span lines.

    A file without a double quote has no value that spans lines: its blocks
    are split at any line end and parsed in parallel.  A file with one is read
    with ``newlines_in_values`` (block ends found by a quote-aware scan, about
    a fifth slower): split at any line end, a quoted value that spans lines
    and meets a block's end is cut, and pyarrow's parallel reader then drops
    or invents rows without an error when the pieces have the header's number
    of fields.  Finding the quote costs one memchr-speed pass over a file
    without one (0.07 s for 670 MB).

    Without ``types``, the typed read (:func:`_typed_csv`) is tried first; it
    gives the same table with half the memory, or None, and then the file is
    read as here.  ``serial``: Arrow's reader on the calling thread alone
    (:func:`read_ahead`).
    """
    import pyarrow as pa
    import pyarrow.csv as pcsv

    read = pcsv.ReadOptions(encoding=encoding, block_size=CSV_BLOCK_SIZE, use_threads=not serial)
    convert = _csv_convert_options(nulls, types)

    def parse(newlines_in_values: bool) -> Any:
        options = pcsv.ParseOptions(delimiter=sep, newlines_in_values=newlines_in_values)
        return pcsv.read_csv(path, read_options=read, parse_options=options, convert_options=convert)

    broken = (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, UnicodeError)
    quoted = _has_quote(path)
    try:
        table = _typed_csv(path, sep, encoding, nulls, quoted, serial) if not types else None
        if table is None:
            table = parse(quoted)
        return _closed_quotes(table, path, label, encoding)
    except broken as exc:
        raise InputError(_csv_problem(path, label, sep, str(exc))) from None
    except OSError as exc:
        raise InputError(f"{label} cannot be read ({exc.strerror or exc}); check the file.") from None


def _csv_convert_options(nulls: list, types: dict) -> Any:
    """How pyarrow converts the CSV's fields: ``nulls`` are missing (quoted or not), no booleans, ``types`` given."""
    import pyarrow.csv as pcsv

    return pcsv.ConvertOptions(
        null_values=nulls,
        strings_can_be_null=True,
        quoted_strings_can_be_null=True,
        true_values=[],
        false_values=[],
        column_types=types,
    )


def _typed_csv(path: Path, sep: str, encoding: str, nulls: list, quoted: bool, serial: bool = False) -> Any:
    """The table that pyarrow's type-inferring read gives, read with each column's type given; None when unsure.

    Inferring a column's type, pyarrow keeps every parsed block until the
    end of the file, since a late value can change the type of the whole
    column (an integer column becomes float64 at its first ``1.5``): reading
    takes the file's size in memory besides the table (about 800 MB for a
    674 MB file) and, with fresh memory, much system time.  With the types
    given, each block is freed once converted.  The types are those the
    first block (``CSV_TYPE_SAMPLE_SIZE`` bytes) shows, which the whole file confirms: a float64 or string
    column stays so whatever follows (string is where inference ends; the
    dates and times the first block may show are read as text anyway, see
    :func:`_read_csv`), and an int64 column whose later values are not all
    whole numbers fails to convert.  A column without a value in the first
    block is read as text; if it then holds a value its type is not known
    and None is returned, as on any error, so that the caller reads the file
    as before.  Same values, same types: ``tests/test_io.py`` compares the
    two reads.  ``quoted``: the file holds a double quote, so a value may span
    lines (``newlines_in_values``, see :func:`_arrow_csv`); a large file
    without one is read in pieces (:func:`_pieces_csv`).  ``serial``: Arrow's
    reader on the calling thread alone.
    """
    import pyarrow as pa
    import pyarrow.csv as pcsv

    sample = pcsv.ReadOptions(encoding=encoding, block_size=CSV_TYPE_SAMPLE_SIZE)
    parse = pcsv.ParseOptions(delimiter=sep, newlines_in_values=quoted)
    try:
        inferring = _csv_convert_options(nulls, {})
        with pcsv.open_csv(path, read_options=sample, parse_options=parse, convert_options=inferring) as first:
            schema = first.schema
        names = schema.names
        if len(set(names)) != len(names):
            return None
        kept = (pa.types.is_int64, pa.types.is_float64, pa.types.is_string)
        types = {f.name: (f.type if any(test(f.type) for test in kept) else pa.string()) for f in schema}
        unknown = [f.name for f in schema if pa.types.is_null(f.type)]
        convert = _csv_convert_options(nulls, types)
        try:
            table = None if serial or quoted else _pieces_csv(path, encoding, parse, convert, names)
            if table is None:
                blocks = pcsv.ReadOptions(encoding=encoding, block_size=CSV_TYPED_BLOCK_SIZE, use_threads=not serial)
                table = pcsv.read_csv(path, read_options=blocks, parse_options=parse, convert_options=convert)
        except pa.ArrowInvalid:
            if CSV_TYPED_BLOCK_SIZE >= CSV_TYPE_SAMPLE_SIZE:
                raise
            # a row longer than a block (a very wide file; pyarrow parses no row across blocks), or a file that
            # is broken anyway: in blocks of the sample's size, as before the smaller blocks
            table = pcsv.read_csv(path, read_options=sample, parse_options=parse, convert_options=convert)
    except (pa.ArrowException, UnicodeError, OSError, ValueError):
        return None
    for name in unknown:
        column = table.column(name)
        if column.null_count != len(column):
            return None
        table = table.set_column(table.schema.get_field_index(name), name, pa.nulls(len(column)))
    return table


def _pieces_csv(path: Path, encoding: str, parse: Any, convert: Any, names: list[str]) -> Any:
    """The typed read of a large CSV file without quotes, in pieces each parsed by Arrow's serial reader, on one
    thread per core; None for a file of less than two pieces (or one core), or when a piece cannot be read.

    The file is cut into pieces of about ``CSV_PIECE_BYTES`` at the first
    line end after each cut: without a double quote in the file no value
    spans lines, so every piece holds whole records.  One thread per Arrow
    CPU thread (``pa.cpu_count()``, at most ``CSV_PIECE_THREADS``) parses them in turn; the first has the
    header, the others are read with its column names, all with the same
    column types (``convert``), and the pieces' tables are joined in file
    order.  Arrow's parallel reader hands 1.5 MB blocks between threads: on
    a 674 MB file (1,000,000 x 50) it took 1.6-2.4 s and 2.9-4.4 CPU-s on
    two cores, read and converted to pandas, the pieces 1.4-1.5 s and
    2.4-2.6 CPU-s, the same table.  Each piece is mapped into memory while
    it is parsed (Python's ``mmap``: through ``pa.memory_map`` the read took
    0.3 s more system time), which Arrow reads without the interpreter's
    lock (a Python file object took it for every block, and waited for it
    while another thread ran Python); the file's pages mapped at once stay
    within a piece per thread, as the file's pages count in the process's
    resident memory while mapped.  A piece that fails gives None, so that
    the whole file is read again and its error names the file's own line.
    """
    import pyarrow as pa
    import pyarrow.csv as pcsv
    from concurrent.futures import ThreadPoolExecutor

    size = os.path.getsize(path)
    k = size // CSV_PIECE_BYTES
    if k < 2 or pa.cpu_count() < 2:
        return None
    with open(path, "rb") as fh:
        cuts = [0]
        for i in range(1, k):
            fh.seek(size * i // k)
            fh.readline()
            cuts.append(max(fh.tell(), cuts[-1]))
        cuts.append(size)
        pieces = [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]

        def read(piece: int) -> Any:
            start, stop = pieces[piece]
            offset = start - start % mmap.ALLOCATIONGRANULARITY
            options = pcsv.ReadOptions(encoding=encoding, block_size=CSV_TYPED_BLOCK_SIZE, use_threads=False,
                                       column_names=None if piece == 0 else names)
            mapped = mmap.mmap(fh.fileno(), stop - offset, access=mmap.ACCESS_READ, offset=offset)
            try:
                source = pa.BufferReader(pa.py_buffer(mapped)[start - offset:])
                table = pcsv.read_csv(source, read_options=options, parse_options=parse, convert_options=convert)
                del source
            finally:
                with contextlib.suppress(BufferError):  # still held (an error's traceback): closed when collected
                    mapped.close()
            return table

        try:
            threads = min(pa.cpu_count(), len(pieces), CSV_PIECE_THREADS)
            with ThreadPoolExecutor(threads, thread_name_prefix="infoloss-csv-piece") as pool:
                tables = list(pool.map(read, range(len(pieces))))
        except pa.ArrowException:
            return None
    return pa.concat_tables(tables)


def _has_quote(path: Path) -> bool:
    """Whether the file holds a double quote, so that a value may span lines (one memchr-speed scan)."""
    try:
        with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            return mm.find(b'"') >= 0
    except (OSError, ValueError):  # an empty or special file: the careful reader
        return True


def _closed_quotes(table: Any, path: Path, label: str, encoding: str) -> Any:
    """``table``, unless a double quote left open swallowed the rest of the file into one value.

    pyarrow reads a quote that is never closed as a value running to the end
    of the file, so the file would seem to end at that record.  Such a value
    is in the last record, holds a line break, and is the file's last text
    as written (its inner quotes doubled); a closed value is followed by its
    closing quote, so the file cannot end with it.
    """
    import pyarrow as pa

    if table.num_rows == 0:
        return table
    last = table.slice(table.num_rows - 1)
    try:
        values = [column[0].as_py() for column in last.columns
                  if pa.types.is_string(column.type) or pa.types.is_large_string(column.type)]
    except UnicodeDecodeError:  # not UTF-8: the caller reads the file again as latin-1, and checks it then
        return table
    spanning = [v for v in values if v is not None and "\n" in v]
    if not spanning:
        return table
    written = spanning[-1].replace('"', '""')[-256:].encode(encoding, errors="replace")
    with open(path, "rb") as fh:
        fh.seek(max(0, fh.seek(0, os.SEEK_END) - len(written)))
        if fh.read() != written:
            return table
    line = _count_bytes(path, b"\n") - spanning[-1].count("\n") + 1
    raise InputError(_unclosed_quote(label, line))


def _unclosed_quote(label: str, line: int | None) -> str:
    """The sentence for a double quote on ``line`` that opens a value never closed."""
    where = f"line {line}" if line else "a line"
    return (
        f"{label} is not a valid CSV file: a double quote on {where} opens a value that is never closed, so the "
        "rest of the file reads as that one value; close the quote (a quote inside a quoted value is written twice)."
    )


def _count_bytes(path: Path, byte: bytes) -> int:
    """How many times ``byte`` occurs in the file (read in blocks of 64 MB)."""
    total = 0
    with open(path, "rb") as fh:
        while block := fh.read(1 << 26):
            total += block.count(byte)
    return total


def _csv_problem(path: Path, label: str, sep: str, message: str) -> str:
    """One sentence for a pyarrow CSV error, with the line number when it can be found."""
    shown = repr(sep).replace("'\\t'", "tab")
    if "Empty CSV file" in message:  # no row ended: only blank lines, or a quote the header opens is never closed
        line = _first_line_with_text(path)
        if line is not None and _has_quote(path):
            return _unclosed_quote(label, line)
        return f"{label} has no header row; give a CSV file whose first line names the columns."
    match = re.search(r"Expected (\d+) columns, got (\d+)", message)
    if match:
        expected, got = match.groups()
        line, text = _bad_row(path, sep)
        if _runs_to_the_end(path, text):
            return _unclosed_quote(label, line)
        spans = text.rstrip("\r\n").count("\n")  # a quoted value with line breaks: one record on several lines
        where = "a line" if not line else f"line {line}" if not spans else f"the record on lines {line}-{line + spans}"
        return (
            f"{label} is not a valid CSV file: {where} has {got} fields but the header has {expected} "
            f"(separator {shown}); fix that {'record' if spans else 'line'} or set the right 'separator' in the spec."
        )
    first = message.strip().splitlines()[0] if message.strip() else "unknown error"
    return f"{label} could not be read as CSV with separator {shown} ({first}); check the file and its separator."


def _first_line_with_text(path: Path) -> int | None:
    """The number of the file's first line that is not empty (pyarrow skips empty lines), or None."""
    with open(path, "rb") as fh:
        for number, line in enumerate(fh, start=1):
            if line.removeprefix(b"\xef\xbb\xbf" if number == 1 else b"").strip(b"\r\n"):
                return number
    return None


def _bad_row(path: Path, sep: str) -> tuple[int | None, str]:
    """The physical line number and the text (as latin-1) of the first record with a wrong field count.

    Single-threaded re-parse; ``(None, "")`` when no such row is found.
    """
    import pyarrow.csv as pcsv

    found: list = []

    def handler(row: Any) -> str:
        found.append((row.number, row.text or ""))
        return "error"

    try:
        pcsv.read_csv(
            path,
            read_options=pcsv.ReadOptions(use_threads=False, encoding="latin1"),
            parse_options=pcsv.ParseOptions(delimiter=sep, newlines_in_values=True, invalid_row_handler=handler),
            convert_options=pcsv.ConvertOptions(column_types={}, strings_can_be_null=True),
        )
    except Exception:
        pass
    if not found:
        return None, ""
    record, text = found[0]
    return (_physical_line(path, sep, record) if record is not None and record > 0 else None), text


def _physical_line(path: Path, sep: str, record: int) -> int | None:
    """The line of the file where CSV record ``record`` starts (1: the header), counted as pyarrow counts records:
    blank lines skipped, a quoted value with line breaks one record.  None when Python's reader fails."""
    import csv

    seen = before = 0
    try:
        with open(path, encoding="latin-1", newline="") as fh:
            reader = csv.reader(fh, delimiter=sep)
            for row in reader:
                if row:
                    seen += 1
                    if seen == record:
                        return before + 1
                before = reader.line_num
    except (csv.Error, OSError):  # a value above the csv module's size limit, a file gone meanwhile
        return None
    return None


def _runs_to_the_end(path: Path, text: str) -> bool:
    """Whether the row ``text`` holds a double quote left open: it spans lines, has an odd number of quotes, ends the file.

    A quote that is never closed makes the rest of the file one value; where
    it opens before the last column, that row has too few fields.
    """
    if "\n" not in text or text.count('"') % 2 == 0:
        return False
    written = text.encode("latin1", errors="replace").rstrip(b"\r\n")
    with open(path, "rb") as fh:
        fh.seek(max(0, fh.seek(0, os.SEEK_END) - len(written) - 2))
        return fh.read().rstrip(b"\r\n").endswith(written)


def _check_unique(names: Iterable[str], label: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError(f"{label} has the column name {name!r} twice; rename one of them.")
        seen.add(name)


def _not_format(label: str, kind: str, path: Path | None = None) -> InputError:
    actual = _looks_like(path) if path is not None else None
    tokens = [t.lower() for t in re.split(r"[ /().]+", kind) if len(t) > 2]
    if actual and any(t in actual.lower() for t in tokens):
        actual = None  # it is of that format, only broken: the hint would say nothing
    seems = f" (it looks like {actual})" if actual else ""
    return InputError(
        f"{label} is not a valid {kind} file{seems}; check that it is complete and that its ending matches its format."
    )


# the first bytes of formats a mislabelled file may really be in, and how to name them
_MAGIC = (
    (b"\x1f\x8b", "a gzip-compressed file"),
    (b"PK\x03\x04", "a zip archive (an .xlsx workbook is one)"),
    (b"BZh", "a bzip2-compressed file"),
    (b"\xfd7zXZ\x00", "an xz-compressed file"),
    (b"\x28\xb5\x2f\xfd", "a zstd-compressed file"),
    (b"PAR1", "a Parquet file"),
    (b"ARROW1", "an Arrow/Feather file"),
    (b"FEA1", "a Feather file"),
    (b"<stata_dta>", "a Stata .dta file"),
    (b"$FL2", "an SPSS .sav file"),
    (b"$FL3", "an SPSS .zsav file"),
    (b"\xd0\xcf\x11\xe0", "an old Excel .xls (or other OLE) file"),
    (b"%PDF", "a PDF document"),
    (b"HEADER RECORD*******LIBRARY HEADER RECORD", "a SAS transport .xpt file"),
    (b"\x00" * 12 + b"\xc2\xea\x81\x60\xb3\x14\x11\xcf", "a SAS .sas7bdat file"),
    (b"\xff\xfe\x00\x00", "UTF-32 text"),  # before UTF-16, whose little-endian mark begins this one
    (b"\x00\x00\xfe\xff", "UTF-32 text"),
    (b"\xff\xfe", "UTF-16 text"),
    (b"\xfe\xff", "UTF-16 text"),
)


def _head(path: Path, size: int = SNIFF_BYTES) -> bytes:
    try:
        with path.open("rb") as handle:
            return handle.read(size)
    except OSError:
        return b""


def _looks_like(path: Path) -> str | None:
    """What the file's first bytes say it is: a known binary format, 'text (CSV?)', or None."""
    head = _head(path)
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    if head and b"\x00" not in head:
        text = head.decode("utf-8", errors="replace")
        printable = sum(ch.isprintable() or ch in "\r\n\t" for ch in text)
        if printable >= 0.95 * len(text):
            return "text, such as CSV"
    return None


def _check_csv_is_text(path: Path, label: str) -> None:
    """A compressed, binary, UTF-16 or UTF-32 file with a CSV ending is refused before parsing, with what it is."""
    head = _head(path)
    kind = next((kind for magic, kind in _MAGIC if head.startswith(magic)), None)
    if kind is not None:
        if "compressed" in kind:
            fix = "unpack it first"
        elif kind in ("UTF-16 text", "UTF-32 text"):
            fix = "save it as UTF-8 (or latin-1) text"
        else:
            fix = "give it the ending of its format, or export it as CSV"
        raise InputError(f"{label} is {kind}, not CSV text; {fix}.")
    if b"\x00" in head:
        raise InputError(
            f"{label} contains NUL bytes, so it is a binary file, not CSV text; check that it is the right file "
            "and export it as CSV."
        )


def _exact_integers(column: Any) -> Any:
    """An integer column that float64 cannot hold exactly, as text; other columns as they are.

    pandas turns an integer column with missing values (or a uint64 one)
    into float64, which merges whole numbers beyond 2**53: 18-digit codes
    or ids would become one category.  As text they stay exact (a
    continuous variable still reads them as numbers).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_integer(column.type) or (column.null_count == 0 and not pa.types.is_uint64(column.type)):
        return column
    limit = 2**53 if column.null_count else 2**63 - 1  # float64 with missing values; else int64 (_plain)
    extremes = pc.min_max(column)
    low, high = extremes["min"].as_py(), extremes["max"].as_py()
    if low is None or max(abs(low), abs(high)) <= limit:
        return column
    return column.cast(pa.string())


def _whole_numbers_beyond_int64(table: Any, read_again: Callable[[dict], Any], numbers: frozenset[str] = frozenset()) -> Any:
    """``table`` with each float64 column whose CSV text holds only whole numbers beyond int64 as that text.

    Arrow parses a column of integers as int64, and one with an integer
    beyond int64 (a 20-digit code or id) as float64, which rounds it:
    such codes would merge into one category and such ids look duplicated.
    A float64 column with a value of at least 2**63 in magnitude is read
    again as text (``read_again`` with the column types to give); it is
    kept as text when every value it holds is written as a whole number,
    else (``1.5e300``, ``inf``) as the number it is.  Files without such
    values are read once, as before.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    def beyond(column: Any) -> bool:
        if not pa.types.is_floating(column.type) or column.null_count == len(column):
            return False
        extremes = pc.min_max(column)
        low, high = extremes["min"].as_py(), extremes["max"].as_py()
        return low is not None and max(abs(low), abs(high)) >= 2.0**63

    # the spec's continuous variables are numbers anyway: only codes, ids and columns the spec does not name
    candidates = [name for name, column in zip(table.column_names, table.columns)
                  if name not in numbers and beyond(column)]
    if not candidates:
        return table
    text = read_again({name: pa.string() for name in candidates})
    for name in candidates:
        column = text.column(name)
        valid = column.drop_null()
        if pc.all(pc.match_substring_regex(valid, r"^\s*[+-]?[0-9]+\s*$")).as_py() in (True, None):
            table = table.set_column(table.schema.get_field_index(name), name, pc.utf8_trim_whitespace(column))
    return table


def _text(code: Any) -> str:
    return code if isinstance(code, str) else str(code)


def _is_nan(code: Any) -> bool:
    return isinstance(code, float) and math.isnan(code)

