"""Tests of infoloss.io.read_table: every format, separators, missing codes, labels and errors."""

from __future__ import annotations

import hashlib
import math
import os
import re
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from infoloss.errors import InputError
from infoloss.io import read_table
from infoloss.spec import Spec, load_spec, spec_from_dict

DATA = Path(__file__).resolve().parent / "data"


def _frame() -> pd.DataFrame:
    """A small frame: a float column with a missing value, an integer column and a text column."""
    return pd.DataFrame({"inc": [1.5, np.nan, 3.25], "n": [1, 2, 3], "city": ["Oslo", "Rome", "Lima"]})


def _check_frame(df: pd.DataFrame) -> None:
    assert list(df.columns) == ["inc", "n", "city"]
    assert df["inc"].dtype == np.float64
    assert df["inc"].iloc[0] == 1.5 and math.isnan(df["inc"].iloc[1]) and df["inc"].iloc[2] == 3.25
    assert df["n"].tolist() == [1, 2, 3]
    assert pd.api.types.is_numeric_dtype(df["n"])
    assert df["city"].tolist() == ["Oslo", "Rome", "Lima"]
    assert isinstance(df.index, pd.RangeIndex)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _spec(**variables_missing) -> Spec:
    return spec_from_dict(
        {"variables": {name: {"scale": "nominal", "missing": codes} for name, codes in variables_missing.items()}}
    )


# ---------------------------------------------------------------------------
# CSV
# ---------------------------------------------------------------------------
def test_csv_types_and_values(tmp_path):
    path = tmp_path / "d.csv"
    _frame().to_csv(path, index=False)
    df = read_table(path)
    _check_frame(df)
    assert df["n"].dtype == np.int64
    assert not isinstance(df["inc"].dtype, pd.ArrowDtype)


@pytest.mark.parametrize("sep", [",", ";", "\t", "|"])
def test_csv_separator_is_sniffed(tmp_path, sep):
    path = tmp_path / "d.csv"
    _frame().to_csv(path, index=False, sep=sep)
    _check_frame(read_table(path))


def test_tsv_defaults_to_tab(tmp_path):
    path = tmp_path / "d.TSV"
    path.write_text("a\tb\n1,5\t2\n")
    df = read_table(path)
    assert list(df.columns) == ["a", "b"] and df["a"].tolist() == ["1,5"] and df["b"].tolist() == [2]


def test_spec_separator_overrides_sniffing(tmp_path):
    path = tmp_path / "d.txt"
    path.write_text("a;b,c\n1;2,3\n4;5,6\n")
    assert list(read_table(path, spec_from_dict({"separator": ";"}))) == ["a", "b,c"]
    assert list(read_table(path, spec_from_dict({"separator": ","}))) == ["a;b", "c"]


def test_csv_numbers_written_differently_are_numbers(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b\n2,2.0\n3,3.5\n")
    df = read_table(path)
    assert df["a"].dtype == np.int64 and df["b"].dtype == np.float64
    assert df["a"].tolist() == [2, 3] and df["b"].tolist() == [2.0, 3.5]


def test_csv_default_missing_codes(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b\n1,x\nNA,\nNaN,NA\n4,y\n")
    df = read_table(path)
    assert df["a"].dtype == np.float64
    assert df["a"].isna().tolist() == [False, True, True, False]
    assert df["b"].isna().tolist() == [False, True, True, False]


def test_csv_global_missing_codes_from_spec(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b\n1,x\n.,.\n-9,y\n-9.0,z\n")
    df = read_table(path, spec_from_dict({"missing": ["", ".", -9]}))
    assert df["a"].dtype == np.float64
    assert df["a"].isna().tolist() == [False, True, True, True]
    assert df["b"].tolist()[0] == "x" and pd.isna(df["b"].iloc[1])


def test_csv_per_variable_missing_codes(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("inc,other,txt,code\n10,-99,a,1\n-99.0,5,refused,refused\n-98,-98,b,3\n20,1,c,4\n")
    spec = _spec(inc=[-99, -98], txt=["refused"], code=["refused"])
    df = read_table(path, spec)
    assert df["inc"].isna().tolist() == [False, True, True, False]
    assert df["inc"].dtype == np.float64
    assert df["other"].tolist() == [-99, 5, -98, 1]  # codes of another variable do not apply
    assert df["txt"].iloc[0] == "a" and pd.isna(df["txt"].iloc[1])
    # a column that was text only because of its missing code becomes numeric
    assert df["code"].dtype == np.float64 and df["code"].isna().tolist() == [False, True, False, False]


def test_csv_bom_and_quoted_fields(tmp_path):
    path = tmp_path / "d.csv"
    path.write_bytes('\ufeff"name","note","x"\n"a","one, two",1\n"b","say ""hi""; ok",2\n"c","multi\nline",3\n'.encode())
    df = read_table(path)
    assert list(df.columns) == ["name", "note", "x"]
    assert df["note"].tolist() == ["one, two", 'say "hi"; ok', "multi\nline"]
    assert df["x"].tolist() == [1, 2, 3]


@pytest.mark.parametrize("columns", [1, 2, 4])
@pytest.mark.parametrize("where", ["first", "last"])
def test_csv_values_spanning_lines_across_blocks(tmp_path, monkeypatch, columns, where):
    # blocks of 64 bytes: line breaks inside quoted values meet block ends many times over
    import infoloss.io_csv as io_module

    monkeypatch.setattr(io_module, "CSV_BLOCK_SIZE", 64)
    monkeypatch.setattr(io_module, "CSV_TYPED_BLOCK_SIZE", 64)
    rng = np.random.default_rng(columns)
    rows = []
    for i in range(300):
        text = "multi\nline " * int(rng.integers(0, 4)) + f"v{i}"
        cells = [str(i * 10 + j) for j in range(columns - 1)]
        rows.append([text, *cells] if where == "first" else [*cells, text])
    names = [f"c{j}" for j in range(columns)]
    body = "".join(",".join(f'"{c}"' if "\n" in c or "v" in c else c for c in row) + "\n" for row in rows)
    path = tmp_path / "d.csv"
    path.write_text(",".join(names) + "\n" + body)
    df = read_table(path)
    expected = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert df.astype(str).values.tolist() == expected.values.tolist()
    assert len(df) == 300 and any("\n" in v for v in df[names[0] if where == "first" else names[-1]])


@pytest.mark.parametrize("typed", [True, False])
def test_csv_value_spanning_lines_of_whole_rows_across_blocks(tmp_path, monkeypatch, typed):
    # the value's lines have the header's number of fields: cut at a block's end, the pieces are rows to a
    # reader that splits blocks at any line end (pyarrow's parallel reader then drops or invents rows, no error)
    import infoloss.io_csv as io_module

    monkeypatch.setattr(io_module, "CSV_BLOCK_SIZE", 64)
    monkeypatch.setattr(io_module, "CSV_TYPED_BLOCK_SIZE", 64)
    monkeypatch.setattr(io_module, "CSV_TYPE_SAMPLE_SIZE", 64)
    if not typed:
        monkeypatch.setattr(io_module, "_typed_csv", lambda *args: None)
    for shift in range(0, 64, 3):  # the value at every position relative to the block ends
        path = tmp_path / f"d{shift}.csv"
        lines = ["id,txt", "1," + "a" * shift] + [f"{i},abc{i}" for i in range(2, 12)]
        lines += ['-1,"p\n5,r\n7,t"', '-2,"\n\n\n\n"'] + [f"{i},abc{i}" for i in range(12, 40)]
        path.write_text("\n".join(lines) + "\n")
        df = read_table(path)
        expected = pd.read_csv(path, keep_default_na=False, na_values=[""])
        assert df.astype(str).values.tolist() == expected.astype(str).values.tolist(), shift
        assert df["txt"].tolist()[11:13] == ["p\n5,r\n7,t", "\n\n\n\n"]


def test_csv_quotes_without_line_breaks_across_blocks(tmp_path, monkeypatch):
    import infoloss.io_csv as io_module

    monkeypatch.setattr(io_module, "CSV_BLOCK_SIZE", 64)
    monkeypatch.setattr(io_module, "CSV_TYPED_BLOCK_SIZE", 64)
    path = tmp_path / "d.csv"
    path.write_text("a,b\n" + "".join(f'"x, {i}",{i}\n' for i in range(200)))
    df = read_table(path)
    assert df["a"].tolist() == [f"x, {i}" for i in range(200)] and df["b"].tolist() == list(range(200))


@pytest.mark.parametrize("text, line", [
    ('a,b\n1,x\n2,"open\n3,y\n', 3),  # the rest of the file would read as one value of record 2
    ('a,b\r\n1,"x""y\r\nz""\r\n', 2),  # "" inside the open value is a quote, not its end
    ('a,b\n1,"x\ny', 2),  # no line end at the end of the file
    ('a,b,c\n1,x,2\n2,"open,3\n3,y,4\n', 3),  # opened before the last column: that row has too few fields
    ('a,b,c\r\n1,x,2\r\n"2,open,3\r\n3,y,4', 3),  # in the first column, CRLF, no line end at the end
    ('"a,b,c\n1,2,x\n2,3,y\n', 1),  # in the header: no row ends, which was said as "has no header row"
    ('\ufeff\n\r\na,"b\n1,2\n', 3),  # in the header after a byte-order mark and empty lines
])
def test_csv_quote_never_closed_is_an_error_naming_its_line(tmp_path, text, line):
    path = tmp_path / "d.csv"
    path.write_bytes(text.encode())
    with pytest.raises(InputError, match=rf"a double quote on line {line} opens a value that is never closed"):
        read_table(path)


@pytest.mark.parametrize("text, expected", [
    ('a,b\n5,10"\n1,"x""y\nz"""\n', ['10"', 'x"y\nz"']),  # a literal quote elsewhere, a closed last value
    ('a,b\n1,"x\ny"', ["x\ny"]),  # closed, without a line end after it
    ('a,b\n1,"x\ny\n"\n', ["x\ny\n"]),  # closed, ending in a line break of its own
])
def test_csv_closed_values_spanning_lines_at_the_end_are_read(tmp_path, text, expected):
    path = tmp_path / "d.csv"
    path.write_bytes(text.encode())
    assert read_table(path)["b"].tolist() == expected


def test_csv_header_only_gives_zero_rows(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a;b;c\n")
    df = read_table(path)
    assert list(df.columns) == ["a", "b", "c"] and len(df) == 0


def test_csv_dates_and_booleans_stay_text(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("d,b\n2020-01-01,True\n2021-12-31,False\n")
    df = read_table(path)
    assert df["d"].tolist() == ["2020-01-01", "2021-12-31"]
    assert df["b"].tolist() == ["True", "False"]


def test_csv_latin1_file(tmp_path):
    path = tmp_path / "d.csv"
    path.write_bytes("a,b\n1,été\n".encode("latin-1"))
    assert read_table(path)["b"].tolist() == ["été"]


def test_csv_column_names_are_strings(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("2020,2021\n1,2\n")
    assert list(read_table(path).columns) == ["2020", "2021"]


# ---------------------------------------------------------------------------
# binary formats
# ---------------------------------------------------------------------------
def test_parquet(tmp_path):
    path = tmp_path / "d.parquet"
    df = _frame()
    df["n"] = df["n"].astype("Int32")  # nullable in the file, plain int64 when read
    df["lab"] = pd.Categorical(["lo", "hi", "lo"], categories=["lo", "hi"], ordered=True)
    df.to_parquet(path, index=False)
    out = read_table(path)
    _check_frame(out[["inc", "n", "city"]])
    assert out["n"].dtype == np.int64
    assert out["lab"].cat.categories.tolist() == ["lo", "hi"] and out["lab"].cat.ordered


def test_parquet_nullable_ints_with_missing_become_float(tmp_path):
    path = tmp_path / "d.parquet"
    pd.DataFrame({"k": pd.array([1, None, 3], dtype="Int64")}).to_parquet(path)
    out = read_table(path)
    assert out["k"].dtype == np.float64 and out["k"].isna().tolist() == [False, True, False]


def test_parquet_index_decimals_and_arrow_dtypes(tmp_path):
    import decimal

    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "d.parquet"
    df = pd.DataFrame(
        {
            "hid": [5, 6],
            "x": pd.array([1, None], dtype=pd.ArrowDtype(pa.int16())),
            "u": np.array([1, 2], dtype="uint8"),
            "s": pd.array(["a", None], dtype="string"),
        }
    ).set_index("hid")
    df.to_parquet(path)
    out = read_table(path)
    assert list(out.columns) == ["hid", "x", "u", "s"] and out["hid"].tolist() == [5, 6]
    assert out["x"].dtype == np.float64 and out["u"].dtype == np.int64
    assert out["s"].iloc[0] == "a" and pd.isna(out["s"].iloc[1])
    dec = tmp_path / "dec.parquet"
    pq.write_table(pa.table({"d": pa.array([decimal.Decimal("1.25"), None], pa.decimal128(5, 2))}), dec)
    got = read_table(dec)["d"]
    assert got.dtype == np.float64 and got.iloc[0] == 1.25 and pd.isna(got.iloc[1])


@pytest.mark.parametrize("ending", [".feather", ".arrow", ".ARROW"])
def test_feather_and_arrow(tmp_path, ending):
    path = tmp_path / f"d{ending}"
    _frame().to_feather(path)
    _check_frame(read_table(path))


def test_arrow_ipc_stream(tmp_path):
    import pyarrow as pa

    path = tmp_path / "d.arrow"
    table = pa.Table.from_pandas(_frame(), preserve_index=False)
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    _check_frame(read_table(path))


def test_stata_with_value_labels(tmp_path):
    pyreadstat = pytest.importorskip("pyreadstat")
    path = tmp_path / "d.dta"
    df = _frame()
    df["edu"] = [3, 1, 7]  # 7 has no label
    pyreadstat.write_dta(df, str(path), variable_value_labels={"edu": {1: "none", 2: "primary", 3: "secondary"}})
    out = read_table(path)
    _check_frame(out[["inc", "n", "city"]])  # pyreadstat writes int64 as a Stata double
    assert isinstance(out["edu"].dtype, pd.CategoricalDtype) and not out["edu"].cat.ordered
    assert out["edu"].cat.categories.tolist() == ["none", "primary", "secondary", 7]
    assert out["edu"].tolist() == ["secondary", "none", 7]


def test_stata_integer_types_become_int64(tmp_path):
    pyreadstat = pytest.importorskip("pyreadstat")
    path = tmp_path / "d.dta"
    df = pd.DataFrame({"b": np.array([1, 2], dtype="int8"), "i": np.array([300, 400], dtype="int32")})
    pyreadstat.write_dta(df, str(path))
    out = read_table(path)
    assert out["b"].dtype == np.int64 and out["i"].dtype == np.int64
    assert out["b"].tolist() == [1, 2] and out["i"].tolist() == [300, 400]


def test_spss_ordinal_labels_are_ordered_categories(tmp_path):
    pyreadstat = pytest.importorskip("pyreadstat")
    path = tmp_path / "d.sav"
    df = _frame()
    df["edu"] = [3.0, 1.0, 2.0]
    df["reg"] = [2.0, 2.0, 1.0]
    pyreadstat.write_sav(
        df,
        str(path),
        variable_value_labels={"edu": {3: "high", 1: "low", 2: "mid"}, "reg": {1: "north", 2: "south"}},
        variable_measure={"edu": "ordinal", "reg": "nominal"},
    )
    out = read_table(path)
    _check_frame(out[["inc", "n", "city"]])
    assert out["edu"].cat.ordered and out["edu"].cat.categories.tolist() == ["low", "mid", "high"]
    assert out["edu"].tolist() == ["high", "low", "mid"]
    assert not out["reg"].cat.ordered and out["reg"].tolist() == ["south", "south", "north"]


def test_spss_user_missing_and_zsav(tmp_path):
    pyreadstat = pytest.importorskip("pyreadstat")
    path = tmp_path / "d.zsav"
    df = pd.DataFrame({"x": [1.0, -9.0, 3.0], "t": ["a", "NA", "b"]})
    pyreadstat.write_sav(df, str(path), compress=True, missing_ranges={"x": [-9]})
    out = read_table(path)
    assert out["x"].isna().tolist() == [False, True, False]
    assert out["t"].iloc[0] == "a" and pd.isna(out["t"].iloc[1])  # global "NA" applies to text


def test_sas_transport(tmp_path):
    pyreadstat = pytest.importorskip("pyreadstat")
    path = tmp_path / "d.xpt"
    pyreadstat.write_xport(_frame(), str(path))
    _check_frame(read_table(path))


def test_xlsx_with_global_and_per_variable_codes(tmp_path):
    path = tmp_path / "d.xlsx"
    df = pd.DataFrame({"inc": [1.5, "NA", 3.25, -99], "n": [1, 2, 3, 4], "city": ["Oslo", "NA", "Lima", "x"]})
    df.to_excel(path, index=False)
    out = read_table(path, _spec(inc=[-99]))
    assert out["inc"].dtype == np.float64 and out["inc"].isna().tolist() == [False, True, False, True]
    assert out["n"].dtype == np.int64 and out["n"].tolist() == [1, 2, 3, 4]
    assert out["city"].iloc[0] == "Oslo" and pd.isna(out["city"].iloc[1])


def test_xlsx_values(tmp_path):
    path = tmp_path / "d.xlsx"
    _frame().to_excel(path, index=False)
    _check_frame(read_table(path))


def test_missing_codes_on_labelled_and_numeric_columns(tmp_path):
    pyreadstat = pytest.importorskip("pyreadstat")
    path = tmp_path / "d.sav"
    df = pd.DataFrame({"x": [1.0, -99.0, 3.0], "lab": [1.0, 2.0, 9.0], "t": ["a", "refused", "b"]})
    pyreadstat.write_sav(df, str(path), variable_value_labels={"lab": {1: "yes", 2: "no", 9: "refused"}})
    out = read_table(path, _spec(x=["-99"], lab=["refused"], t=["refused"]))
    assert out["x"].isna().tolist() == [False, True, False]
    assert out["lab"].cat.categories.tolist() == ["yes", "no"] and pd.isna(out["lab"].iloc[2])
    assert pd.isna(out["t"].iloc[1])


def test_numeric_columns_ignore_text_codes(tmp_path):
    path = tmp_path / "d.parquet"
    pd.DataFrame({"x": [1.0, 2.0], "t": ["NA", "b"]}).to_parquet(path)
    out = read_table(path, _spec(x=["NA"]))
    assert out["x"].tolist() == [1.0, 2.0] and pd.isna(out["t"].iloc[0])


@pytest.mark.parametrize(
    "name, write",
    [
        ("d.csv", lambda df, p: df.to_csv(p, index=False)),
        ("d.parquet", lambda df, p: df.to_parquet(p)),
        ("d.feather", lambda df, p: df.to_feather(p)),
        ("d.xlsx", lambda df, p: df.to_excel(p, index=False)),
    ],
)
def test_input_file_is_not_modified(tmp_path, name, write):
    path = tmp_path / name
    write(_frame(), path)
    before, mtime = _sha(path), path.stat().st_mtime_ns
    read_table(path, _spec(inc=[1.5], city=["Oslo"]))
    assert _sha(path) == before and path.stat().st_mtime_ns == mtime


def test_labelled_files_are_not_modified(tmp_path):
    pyreadstat = pytest.importorskip("pyreadstat")
    path = tmp_path / "d.sav"
    pyreadstat.write_sav(_frame(), str(path))
    before = _sha(path)
    read_table(path)
    assert _sha(path) == before


# ---------------------------------------------------------------------------
# the bundled real data sets (tests/data)
# ---------------------------------------------------------------------------
def test_testdata_original():
    path = DATA / "testdata" / "original.csv"
    df = read_table(path)
    assert df.shape == (4580, 15)
    assert df["income"].dtype == np.float64
    assert df["urbrur"].dtype == np.int64


def test_adult_with_spec():
    folder = DATA / "adult"
    spec = load_spec(folder / "spec.yaml")
    assert spec.separator == ";"
    df = read_table(folder / "adult.csv", spec)
    assert len(df) == 30162
    assert set(spec.variables) <= set(df.columns)
    assert df["age"].dtype == np.int64


# ---------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------
def test_error_missing_file(tmp_path):
    with pytest.raises(InputError, match=r"the original file .*nope\.csv does not exist; check the path"):
        read_table(tmp_path / "nope.csv")


def test_error_directory(tmp_path):
    folder = tmp_path / "data.csv"
    folder.mkdir()
    with pytest.raises(InputError, match=r"the protected file .*data\.csv is a folder, not a file"):
        read_table(folder, which="protected")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are a POSIX feature")
def test_error_named_pipe(tmp_path):
    # reading a pipe nobody writes to blocked forever (found by fuzzing)
    fifo = tmp_path / "data.csv"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match=r"data\.csv is not a regular file \(a pipe, device or socket\)"):
        read_table(fifo)


def test_error_unknown_ending(tmp_path):
    path = tmp_path / "d.xyz"
    path.write_text("a\n1\n")
    with pytest.raises(InputError, match=r"has an unknown ending '\.xyz'; use one of \.csv, \.tsv"):
        read_table(path)


def test_error_no_ending(tmp_path):
    path = tmp_path / "data"
    path.write_text("a\n1\n")
    with pytest.raises(InputError, match=r"has no file ending; use one of \.csv"):
        read_table(path)


def test_error_empty_file(tmp_path):
    path = tmp_path / "d.csv"
    path.write_bytes(b"")
    with pytest.raises(InputError, match=r"the original file .*d\.csv is empty \(0 bytes\)"):
        read_table(path)


@pytest.mark.parametrize("name", ["d.parquet", "d.dta", "d.sav"])
def test_error_empty_binary_file(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(b"")
    with pytest.raises(InputError, match=r"is empty \(0 bytes\)"):
        read_table(path)


def test_error_unreadable_file(tmp_path, monkeypatch):
    path = tmp_path / "d.csv"
    path.write_text("a\n1\n")

    def refuse(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "open", refuse)
    with pytest.raises(InputError, match=r"d\.csv cannot be read \(Permission denied\); check its permissions"):
        read_table(path)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root can read any file")
def test_error_unreadable_file_chmod(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a\n1\n")
    path.chmod(0)
    try:
        with pytest.raises(InputError, match=r"cannot be read"):
            read_table(path)
    finally:
        path.chmod(0o644)


def test_error_broken_csv_names_the_line(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b,c\n1,2,3\n4,5,6\n7,8\n")
    with pytest.raises(InputError, match=r"d\.csv is not a valid CSV file: line 4 has 2 fields but the header has 3"):
        read_table(path, which="protected")


def test_error_broken_csv_too_many_fields(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b\n1,2\n3,4,5\n")
    with pytest.raises(InputError, match=r"line 3 has 3 fields but the header has 2"):
        read_table(path)


def test_error_broken_csv_counts_physical_lines(tmp_path):
    # pyarrow numbers records: quoted values with line breaks and blank lines before the bad record made "line N"
    # point at the wrong line (line 151 for line 301; found by the hostile-input audit)
    path = tmp_path / "d.csv"
    path.write_text('a,b\n"x\ny",2\n\n\n3,4,5\n')
    with pytest.raises(InputError, match=r"line 6 has 3 fields but the header has 2 \(separator ','\); fix that line"):
        read_table(path)
    path.write_text('a,b\r\n"x\r\ny",2\r\n3,"4\r\n5",6\r\n')
    with pytest.raises(InputError, match=r"the record on lines 4-5 has 3 fields but the header has 2 .*fix that record"):
        read_table(path)


def test_error_duplicate_column_names_csv(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b,a\n1,2,3\n")
    with pytest.raises(InputError, match=r"has the column name 'a' twice; rename one of them"):
        read_table(path)


def test_an_xlsx_with_a_damaged_compressed_sheet_is_not_a_valid_excel_file(tmp_path):
    # zipfile passes zlib's error on: it ended in a traceback (exit 1)
    import struct
    import zipfile

    path = tmp_path / "d.xlsx"
    pd.DataFrame({"x": range(50)}).to_excel(path, index=False)
    with zipfile.ZipFile(path) as book:
        start = book.getinfo("xl/worksheets/sheet1.xml").header_offset
    data = bytearray(path.read_bytes())
    name, extra = struct.unpack("<HH", data[start + 26:start + 30])
    data[start + 30 + name + extra] = 0xFF  # a deflate block of the reserved type 3
    path.write_bytes(bytes(data))
    with pytest.raises(InputError, match=r"d\.xlsx is not a valid Excel \(\.xlsx\) file; check that it is complete"):
        read_table(path)


def test_error_duplicate_column_names_xlsx(tmp_path):
    path = tmp_path / "d.xlsx"
    pd.DataFrame([["x", "x"], [1, 2]]).to_excel(path, index=False, header=False)
    with pytest.raises(InputError, match=r"has the column name 'x' twice"):
        read_table(path)


def test_error_only_blank_lines_csv(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("\n\n")
    with pytest.raises(InputError, match=r"has no header row"):
        read_table(path)


@pytest.mark.parametrize("encoding, mark, name", [
    ("utf-16-le", b"\xff\xfe", "UTF-16"),
    ("utf-16-be", b"\xfe\xff", "UTF-16"),
    ("utf-32-le", b"\xff\xfe\x00\x00", "UTF-32"),  # was called UTF-16 text (its mark begins with UTF-16's)
    ("utf-32-be", b"\x00\x00\xfe\xff", "UTF-32"),  # was called a binary file (NUL bytes)
])
def test_a_utf16_or_utf32_csv_is_named_with_how_to_save_it(tmp_path, encoding, mark, name):
    path = tmp_path / "d.csv"
    path.write_bytes(mark + "a,b\n1,2\n".encode(encoding))
    with pytest.raises(InputError, match=rf"is {name} text, not CSV text; save it as UTF-8 \(or latin-1\) text\."):
        read_table(path)


@pytest.mark.parametrize(
    "name, kind",
    [
        ("d.parquet", "Parquet"),
        ("d.feather", "Feather/Arrow"),
        ("d.arrow", "Feather/Arrow"),
        ("d.dta", r"Stata \(\.dta\)"),
        ("d.sav", r"SPSS \(\.sav\)"),
        ("d.zsav", r"SPSS \(\.zsav\)"),
        ("d.sas7bdat", r"SAS \(\.sas7bdat\)"),  # pyreadstat cannot write sas7bdat: only the error path is tested
        ("d.xpt", r"SAS transport \(\.xpt\)"),
        ("d.xlsx", r"Excel \(\.xlsx\)"),
    ],
)
def test_error_garbage_file(tmp_path, name, kind):
    path = tmp_path / name
    path.write_bytes(b"this is not a data file at all\x00\x01\x02" * 20)
    pattern = rf"the protected file .*{re.escape(name)} is not a valid {kind} file"
    with pytest.raises(InputError, match=pattern):
        read_table(path, which="protected")


def test_errors_are_one_sentence(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b\n1\n")
    with pytest.raises(InputError) as info:
        read_table(path)
    message = str(info.value)
    assert message.endswith(".") and "\n" not in message and str(path) in message
    assert info.value.__suppress_context__


def test_columnar_files_read_only_the_spec_columns_and_keep_close_name_hints(tmp_path):
    from infoloss.errors import SpecError
    from infoloss.io import read_table
    from infoloss.pair import encode_pair
    from infoloss.spec import spec_from_dict

    df = pd.DataFrame({"income": [1.0, 2.0, 3.0], "region": ["a", "b", "a"], "unused": ["x", "y", "z"]})
    spec = spec_from_dict({"variables": {"income": {"scale": "continuous"}, "region": {"scale": "nominal"}}})
    for ending, write in ((".parquet", df.to_parquet), (".feather", df.to_feather)):
        path = tmp_path / f"data{ending}"
        write(path)
        assert list(read_table(path, spec, spec_columns=True).columns) == ["income", "region"]
        assert list(read_table(path, spec).columns) == ["income", "region", "unused"]
        misspelt = spec_from_dict({"variables": {"incme": {"scale": "continuous"}}})
        read = read_table(path, misspelt, spec_columns=True)  # a missing column: everything is read, so the error can suggest
        with pytest.raises(SpecError, match="income"):
            encode_pair(read, read, misspelt)


# ---------------------------------------------------------------------------
# the typed CSV read (io_csv._typed_csv) gives the type-inferring read's table
# ---------------------------------------------------------------------------
NULLS = ["", "NA", "NaN"]


def _inferring_read(path):
    """The table of pyarrow's type-inferring read, as ``_arrow_csv`` makes it without the typed read."""
    import pyarrow.csv as pcsv

    import infoloss.io_csv as io_module

    return pcsv.read_csv(path, convert_options=io_module._csv_convert_options(NULLS, {}))


def _typed_read(path):
    import infoloss.io_csv as io_module

    return io_module._typed_csv(path, ",", "utf8", NULLS, False)


LATE_VALUES = {  # column values: many of the first kind, then (in a later block) the second
    "int then float": ("7", "1.5"),
    "int then text": ("7", "x"),
    "int then too big": ("7", "99999999999999999999"),
    "float then int": ("0.5", "3"),
    "float then text": ("0.5", "abc"),
    "text then number": ("abc", "3"),
    "empty then int": ("", "3"),
    "empty then text": ("", "x"),
    "empty then empty": ("", ""),
    "date then text": ("2020-01-01", "x"),
    "int then NA": ("7", "NA"),
}


@pytest.mark.parametrize("case", sorted(LATE_VALUES))
def test_typed_csv_read_equals_the_inferring_read(tmp_path, monkeypatch, case):
    # blocks of 256 bytes: the late value is many blocks after the first
    import infoloss.io_csv as io_module

    monkeypatch.setattr(io_module, "CSV_TYPED_BLOCK_SIZE", 256)
    monkeypatch.setattr(io_module, "CSV_TYPE_SAMPLE_SIZE", 256)
    early, late = LATE_VALUES[case]
    rows = [f"{i},{early},{i * 0.25}" for i in range(400)] + [f"400,{late},1.0"]
    path = tmp_path / "d.csv"
    path.write_text("id,v,x\n" + "\n".join(rows) + "\n")
    expected = _inferring_read(path)
    typed = _typed_read(path)
    if typed is not None:  # None: the caller reads the file the inferring way
        assert typed.schema == expected.schema and typed.equals(expected)
    # None only where the first block leaves the type open or a later value breaks it
    breaks = {("7", "1.5"), ("7", "x"), ("7", "99999999999999999999"), ("0.5", "abc")}
    assert (typed is None) == ((early == "" and late != "") or (early, late) in breaks)
    # through read_table: the same frame as without the typed read
    typed_frame = read_table(path)
    monkeypatch.setattr(io_module, "_typed_csv", lambda *args: None)
    pd.testing.assert_frame_equal(typed_frame, read_table(path))


def test_typed_csv_read_takes_the_types_of_its_sample_and_parses_in_smaller_blocks(tmp_path, monkeypatch):
    # types from the first CSV_TYPE_SAMPLE_SIZE bytes (here the whole file, so a late first value and a late
    # 1.5 are seen), the file parsed in blocks of CSV_TYPED_BLOCK_SIZE: the inferring read's table
    import infoloss.io_csv as io_module

    monkeypatch.setattr(io_module, "CSV_TYPED_BLOCK_SIZE", 256)
    monkeypatch.setattr(io_module, "CSV_TYPE_SAMPLE_SIZE", 1 << 20)
    rows = [f"{i},,7,{i * 0.25}" for i in range(400)] + ["400,3,1.5,1.0"]
    path = tmp_path / "d.csv"
    path.write_text("id,late,mixed,x\n" + "\n".join(rows) + "\n")
    typed = _typed_read(path)
    expected = _inferring_read(path)
    assert typed is not None and typed.schema == expected.schema and typed.equals(expected)
    assert typed.column("mixed").num_chunks > 1  # parsed in several blocks


def test_typed_csv_read_of_rows_longer_than_its_blocks(tmp_path, monkeypatch):
    # rows of about 1,100 bytes: longer than the parsing blocks, shorter than the sample; pyarrow cannot
    # parse a row across blocks, so the file is read in blocks of the sample's size: still the typed read
    import infoloss.io_csv as io_module

    monkeypatch.setattr(io_module, "CSV_TYPED_BLOCK_SIZE", 256)
    monkeypatch.setattr(io_module, "CSV_TYPE_SAMPLE_SIZE", 1 << 16)
    header = ",".join(f"v{j}" for j in range(100))
    rows = [",".join(f"{i + j * 0.001:.6f}" for j in range(100)) for i in range(30)]
    path = tmp_path / "wide.csv"
    path.write_text(header + "\n" + "\n".join(rows) + "\n")
    assert len(rows[0]) > 256
    typed = _typed_read(path)
    expected = _inferring_read(path)
    assert typed is not None and typed.equals(expected)


def test_typed_csv_read_of_dates_gives_the_text_as_before(tmp_path, monkeypatch):
    import infoloss.io_csv as io_module

    monkeypatch.setattr(io_module, "CSV_TYPED_BLOCK_SIZE", 128)
    monkeypatch.setattr(io_module, "CSV_TYPE_SAMPLE_SIZE", 128)
    path = tmp_path / "d.csv"
    path.write_text("d,t,n\n" + "".join(f"2020-01-{1 + i % 28:02d},12:00:0{i % 10},{i}\n" for i in range(300)))
    typed_frame = read_table(path)
    monkeypatch.setattr(io_module, "_typed_csv", lambda *args: None)
    pd.testing.assert_frame_equal(typed_frame, read_table(path))
    assert typed_frame["d"].iloc[0] == "2020-01-01" and typed_frame["n"].dtype == np.int64


def test_typed_csv_read_on_a_generated_survey_file(tmp_path, monkeypatch):
    # a realistic file (numbers, text, missing values) in small blocks: the same table, typed or inferred
    import infoloss.io_csv as io_module
    from infoloss.synth import make_survey, protect

    monkeypatch.setattr(io_module, "CSV_TYPED_BLOCK_SIZE", 4096)
    monkeypatch.setattr(io_module, "CSV_TYPE_SAMPLE_SIZE", 4096)
    df = protect(make_survey(3000, n_continuous=5, n_categorical=4, seed=3), noise=0.2, pram=0.1, seed=4)
    path = tmp_path / "s.csv"
    df.to_csv(path, index=False)
    typed = _typed_read(path)
    assert typed is not None and typed.equals(_inferring_read(path))


@pytest.mark.parametrize("ending", [".parquet", ".feather"])
def test_a_column_name_twice_in_a_parquet_or_feather_file_is_said_so(tmp_path, ending):
    # the Parquet file was called "not a valid Parquet file" (pyarrow could not select the columns of the name)
    import pyarrow as pa
    import pyarrow.feather as feather
    import pyarrow.parquet as pq

    table = pa.Table.from_arrays([pa.array([1, 2, 3]), pa.array([4, 5, 6])], names=["a", "a"])
    path = tmp_path / f"d{ending}"
    (pq.write_table if ending == ".parquet" else feather.write_feather)(table, path)
    spec = spec_from_dict({"variables": {"a": {"scale": "continuous"}}})
    for given in (None, spec):
        with pytest.raises(InputError, match="has the column name 'a' twice; rename one of them"):
            read_table(path, given, spec_columns=True)


@pytest.mark.parametrize("ending", [".parquet", ".feather"])
@pytest.mark.parametrize("index", [pd.Index([5, 6], name="x"), pd.RangeIndex(0, 4, 2, name="x")])
def test_a_pandas_index_named_like_a_column_is_a_column_name_twice(tmp_path, ending, index):
    # pandas' reset_index raised "cannot insert x, already exists" (a traceback)
    import pyarrow as pa
    import pyarrow.feather as feather
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(pd.DataFrame({"x": [1.0, 2.0], "g": ["a", "b"]}).set_index(index))
    path = tmp_path / f"d{ending}"
    (pq.write_table if ending == ".parquet" else feather.write_feather)(table, path)
    with pytest.raises(InputError, match=r"d\.(parquet|feather) has the column name 'x' twice; rename one of them\."):
        read_table(path)


@pytest.mark.parametrize("ending", [".parquet", ".feather"])
@pytest.mark.parametrize("damage", ["not json", "a list", "an unknown index column"])
def test_damaged_pandas_metadata_is_left_out(tmp_path, ending, damage):
    # pyarrow's to_pandas raised JSONDecodeError, TypeError or KeyError (a traceback)
    import json

    import pyarrow as pa
    import pyarrow.feather as feather
    import pyarrow.parquet as pq

    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0], "g": ["a", "b", "a"],  # code: text beyond 2**53 (metadata changed)
                          "code": pd.array([2**60 + 1, None, 2**60 + 3], dtype="Int64")}, index=pd.Index([7, 8, 9], name="id"))
    table = pa.Table.from_pandas(frame)
    info = {**table.schema.pandas_metadata, "index_columns": ["nope"]}
    meta = {"not json": b"{not json", "a list": b"[1, 2]", "an unknown index column": json.dumps(info).encode()}[damage]
    path = tmp_path / f"d{ending}"
    (pq.write_table if ending == ".parquet" else feather.write_feather)(table.replace_schema_metadata({b"pandas": meta}), path)
    spec = spec_from_dict({"variables": {"x": {"scale": "continuous"}, "code": {"scale": "nominal"}}})
    for given, columns in ((None, ["x", "g", "code", "id"]), (spec, ["x", "code"])):
        df = read_table(path, given, spec_columns=given is not None)
        assert list(df.columns) == columns
        assert df["x"].tolist() == [1.0, 2.0, 3.0]
        assert df["code"].tolist()[::2] == [str(2**60 + 1), str(2**60 + 3)] and pd.isna(df["code"][1])


@pytest.mark.parametrize("ending, kind", [(".parquet", "Parquet"), (".feather", "Feather/Arrow")])
def test_text_that_is_not_utf8_in_a_parquet_or_feather_file_names_its_column(tmp_path, ending, kind):
    # Arrow reads it without checking; compare then crashed with an ArrowException (a traceback)
    import pyarrow as pa
    import pyarrow.feather as feather
    import pyarrow.parquet as pq

    raw = pa.array([b"ab", b"\xe9t\xe9", b"cd"], pa.binary())  # latin-1 text in a UTF-8 column
    table = pa.table({"x": [1.0, 2.0, 3.0], "city": pa.Array.from_buffers(pa.string(), 3, raw.buffers())})
    path = tmp_path / f"d{ending}"
    (pq.write_table if ending == ".parquet" else feather.write_feather)(table, path)
    with pytest.raises(InputError, match=rf"d\{ending} is not a valid {re.escape(kind)} file: its column 'city' holds "
                                         "text that is not UTF-8; write the file again with that column as UTF-8 text"):
        read_table(path)


@pytest.mark.parametrize("ending", [".csv", ".parquet"])
def test_integers_beyond_float_precision_with_missing_values_stay_exact(tmp_path, ending):
    # pandas makes an integer column with a missing value float64: 18-digit codes became one category
    codes = [100000000000000001, 100000000000000002, None, 100000000000000003]
    frame = pd.DataFrame({"code": pd.array(codes, dtype="Int64"), "small": pd.array([1, None, 3, 4], dtype="Int64")})
    path = tmp_path / f"d{ending}"
    frame.to_csv(path, index=False) if ending == ".csv" else frame.to_parquet(path)
    df = read_table(path)
    assert df["code"].tolist()[:2] == ["100000000000000001", "100000000000000002"] and pd.isna(df["code"][2])
    assert df["small"].dtype == np.float64  # within float64's exact range: a number with NaN, as before


def test_uint64_columns_stay_numbers_while_int64_holds_them(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "u.parquet"
    pq.write_table(pa.table({"u": pa.array([2**60, 5], pa.uint64()), "v": pa.array([2**63 + 5, 1], pa.uint64())}), path)
    df = read_table(path)
    assert df["u"].dtype == np.int64 and df["u"].tolist() == [2**60, 5]
    assert df["v"].tolist() == [str(2**63 + 5), "1"]  # beyond int64: exact as text


def test_csv_whole_numbers_beyond_int64_stay_exact_text(tmp_path):
    # Arrow parses an integer beyond int64 as float64: 20-digit codes merged into one category
    path = tmp_path / "big.csv"
    path.write_text("code,id,big,mixed\n"
                    "12345678901234567890,98765432109876543210,1e300,12345678901234567890\n"
                    "12345678901234567891,98765432109876543211,5,1.5\n"
                    ",98765432109876543212,-inf,2\n")
    df = read_table(path)
    assert df["code"].tolist()[:2] == ["12345678901234567890", "12345678901234567891"] and pd.isna(df["code"][2])
    assert df["id"].tolist() == ["98765432109876543210", "98765432109876543211", "98765432109876543212"]
    assert df["big"].dtype == np.float64 and df["big"].tolist() == [1e300, 5.0, -np.inf]  # numbers, not codes
    assert df["mixed"].dtype == np.float64  # a value that is no whole number: the column is numbers


def test_twenty_digit_ids_pair_records_exactly(tmp_path):
    import infoloss

    ids = [f"9876543210987654321{i}" for i in range(5)]
    (tmp_path / "o.csv").write_text("id,g\n" + "".join(f"{i},{g}\n" for i, g in zip(ids, "aabba")))
    (tmp_path / "p.csv").write_text("id,g\n" + "".join(f"{i},{g}\n" for i, g in zip(ids[::-1], "aabbb")))
    spec = {"variables": {"g": {"scale": "nominal"}, "id": {"role": "id"}}, "pairing": {"by": "id"}}
    report = infoloss.compare(tmp_path / "o.csv", tmp_path / "p.csv", spec, measures=["records_changed"])
    assert report.value("records_changed") == 3.0  # paired by id: ids 0, 1 and 3 changed their g


def test_xlsx_with_the_data_on_another_sheet_says_only_the_first_is_read(tmp_path):
    # "variable 'age' of the spec is not a column of the original file" did not mention sheets (found by the
    # hostile-input audit)
    path = tmp_path / "o.xlsx"
    with pd.ExcelWriter(path) as writer:
        pd.DataFrame({"note": ["exported 2024"]}).to_excel(writer, sheet_name="README", index=False)
        pd.DataFrame({"age": [30, 40]}).to_excel(writer, sheet_name="data", index=False)
    spec = spec_from_dict({"variables": {"age": {"scale": "continuous"}}})
    with pytest.raises(InputError, match=r"variable 'age' of the spec is not a column of the first sheet \('README'\) "
                                         r"of the original file .*o\.xlsx, and infoloss reads only the first of its 2 "
                                         r"sheets; move the data to the first sheet"):
        read_table(path, spec)
    assert list(read_table(path, spec_from_dict({"variables": {"note": {"scale": "nominal"}}})).columns) == ["note"]
    single = tmp_path / "one.xlsx"
    pd.DataFrame({"note": ["x"]}).to_excel(single, index=False)
    assert list(read_table(single, spec).columns) == ["note"]  # one sheet: the comparison names the missing column


def test_xlsx_formulas_without_saved_results_and_an_empty_first_sheet_are_named(tmp_path):
    # formulas written by a library that does not calculate them were read as an all-missing column
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["a", "b"])
    for i in range(5):
        sheet.append([i, f"=A{i + 2}*2"])
    book.save(tmp_path / "f.xlsx")
    with pytest.raises(InputError, match="column 'b' of .* holds formulas without saved results"):
        read_table(tmp_path / "f.xlsx")
    book = openpyxl.Workbook()
    book.active.title = "notes"
    data = book.create_sheet("data")
    data.append(["a"])
    data.append([1])
    book.save(tmp_path / "e.xlsx")
    with pytest.raises(InputError, match="the first sheet \\('notes'\\) of .* is empty; infoloss reads the first sheet"):
        read_table(tmp_path / "e.xlsx")


def test_a_cut_sas_transport_file_is_an_input_error(tmp_path):
    # pyreadstat read a half file as 67 of 200 records, silently
    import pyreadstat

    frame = pd.DataFrame({"a": np.arange(200.0), "b": np.arange(200.0) * 2})
    pyreadstat.write_xport(frame, str(tmp_path / "x.xpt"))
    assert len(read_table(tmp_path / "x.xpt")) == 200
    data = (tmp_path / "x.xpt").read_bytes()
    (tmp_path / "y.xpt").write_bytes(data[: len(data) // 2 + 7])
    with pytest.raises(InputError, match="is cut short"):
        read_table(tmp_path / "y.xpt")


def test_a_kept_csv_read_serves_the_next_read_of_the_same_file_once(tmp_path, monkeypatch):
    # infoloss compare without a spec read the original twice (to infer the spec, then to compare): 1.7 s of a
    # 1,000,000 x 50 file
    from infoloss import io_csv
    from infoloss.io import read_table

    parsed = []
    real = io_csv._parse_csv
    monkeypatch.setattr(io_csv, "_parse_csv", lambda *a, **k: parsed.append(a[0]) or real(*a, **k))
    path = tmp_path / "o.csv"
    pd.DataFrame({"x": [1.5, 2.5, None], "g": ["a", "b", "NA"]}).to_csv(path, index=False)
    io_csv.keep_next_read(path)
    first = read_table(path)
    second = read_table(path)
    pd.testing.assert_frame_equal(first, second)
    assert len(parsed) == 1
    read_table(path)  # kept once only
    assert len(parsed) == 2
    io_csv.keep_next_read(path)
    read_table(path)
    pd.DataFrame({"x": [9.5], "g": ["z"]}).to_csv(path, index=False)  # the file changed: read again
    assert read_table(path)["x"].tolist() == [9.5] and len(parsed) == 4
    io_csv.keep_next_read(path)
    read_table(path)
    io_csv.forget_kept_read()
    read_table(path)
    assert len(parsed) == 6 and not io_csv._kept


def _parsed_ahead(io_csv) -> None:
    """Wait until the read-ahead threads have parsed their files."""
    for parsed in list(io_csv._ahead.values()):
        parsed.result()


def test_a_csv_read_ahead_serves_the_read_with_the_same_settings_once(tmp_path, monkeypatch):
    # infoloss compare parses the two CSV files while pandas and scipy import (issue 14); Arrow is held at one
    # thread meanwhile, and given back at the first read
    import pyarrow as pa

    from infoloss import io_csv
    from infoloss.io import read_table

    parsed = []
    real = io_csv._parse_csv
    monkeypatch.setattr(io_csv, "_parse_csv", lambda *a, **k: parsed.append(a[0]) or real(*a, **k))
    orig, prot = tmp_path / "o.csv", tmp_path / "p;.csv"
    pd.DataFrame({"x": [1.5, 2.5, None, 4.0], "g": ["a", "b", "NA", "c"]}).to_csv(orig, index=False)
    pd.DataFrame({"x": [1.0, -9, 3.0], "g": ["a", "a", "b"]}).to_csv(prot, index=False, sep=";")
    expected = {p: read_table(p) for p in (orig, prot)}
    threads = pa.cpu_count()
    parsed.clear()
    io_csv.read_ahead([orig, str(prot), tmp_path / "none.csv", tmp_path], None)
    assert pa.cpu_count() == min(threads, 1) and len(io_csv._ahead) == 2
    first = read_table(orig)
    assert pa.cpu_count() == threads
    pd.testing.assert_frame_equal(first, expected[orig])
    pd.testing.assert_frame_equal(read_table(prot), expected[prot])
    assert sorted(map(str, parsed)) == sorted(map(str, (orig, prot))) and not io_csv._ahead
    read_table(orig)  # taken once only
    assert len(parsed) == 3


def test_large_csv_files_read_ahead_are_parsed_each_by_arrows_serial_reader(tmp_path, monkeypatch):
    # the command line's choice for large files (issue 14): two files, each on its thread with use_threads=False
    # (less CPU time than Arrow's parallel reader), Arrow's pool left alone; the reads get the same frames
    import pyarrow as pa
    import pyarrow.csv as pcsv

    from infoloss import io_csv
    from infoloss.io import read_table

    used = []
    real = pcsv.read_csv
    monkeypatch.setattr(pcsv, "read_csv", lambda *a, **k: used.append(k["read_options"].use_threads) or real(*a, **k))
    orig, prot = tmp_path / "o.csv", tmp_path / "p.csv"
    pd.DataFrame({"x": [1.5, 2.5, None, 4.0], "g": ["a", "b", "NA", "c"]}).to_csv(orig, index=False)
    pd.DataFrame({"x": [1.0, -9, 3.0], "g": ["a", "a", "b"]}).to_csv(prot, index=False)
    expected = {p: read_table(p) for p in (orig, prot)}
    assert used == [True, True]
    threads = pa.cpu_count()
    io_csv.read_ahead([orig, prot], None, serial=True)
    assert pa.cpu_count() == threads and not io_csv._arrow_threads and len(io_csv._ahead) == 2
    _parsed_ahead(io_csv)
    assert used[2:] == [False, False]
    for path in (orig, prot):
        pd.testing.assert_frame_equal(read_table(path), expected[path])
    assert len(used) == 4 and not io_csv._ahead
    io_csv.read_ahead([orig], None, serial=True)  # one file alone: Arrow's pool, held at one thread until the read
    assert pa.cpu_count() == min(threads, 1)
    pd.testing.assert_frame_equal(read_table(orig), expected[orig])
    assert used[4:] == [True] and pa.cpu_count() == threads and not io_csv._ahead


def _read_whole_and_in_pieces(path, monkeypatch, spec=None, piece=20, threads_seen=None):
    """read_table of ``path`` whole and in pieces of about ``piece`` bytes (on up to 4 threads), and the pieces'
    numbers of records."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    from infoloss import io_csv
    from infoloss.io import read_table

    whole = read_table(path, spec)
    sizes, threads = [], set()
    real = pcsv.read_csv

    def spy(source, **k):
        table = real(source, **k)
        if isinstance(source, pa.BufferReader):
            sizes.append(table.num_rows)
            threads.add(threading.get_ident())
        return table

    monkeypatch.setattr(pcsv, "read_csv", spy)
    monkeypatch.setattr(pa, "cpu_count", lambda: 4)
    monkeypatch.setattr(io_csv, "CSV_PIECE_BYTES", piece)
    pieces = read_table(path, spec)
    if threads_seen is not None:
        threads_seen.update(threads)
    return whole, pieces, sizes


def test_a_large_csv_file_is_read_in_pieces_on_threads_with_the_same_result(tmp_path, monkeypatch):
    # issue 14: Arrow's serial reader on pieces, a thread per core, costs less than its parallel reader; the pieces
    # start at line ends, the later ones take the header's names, and the table is the whole file's
    path = tmp_path / "big.csv"
    rows = ["x,g,n", "1.5,a,1", "NA,b,2", "", "2.25,,3", "-9,c,4", "3.5,a,5", "4.5,b,6", "1e300,a,7", "7,c,8"]
    path.write_bytes("\r\n".join(rows).encode())  # CRLF, an empty line, no line end after the last record
    whole, pieces, sizes = _read_whole_and_in_pieces(path, monkeypatch)
    pd.testing.assert_frame_equal(pieces, whole)
    assert whole["x"].isna().tolist() == [False, True, False, False, False, False, False, False]
    assert sorted(sizes) == [2, 3, 3]  # 77 bytes: three pieces of at least 20, cut after the 26th and 52nd byte
    latin = tmp_path / "latin.csv"  # a file that is not UTF-8 is read again as Latin-1, in pieces too
    latin.write_bytes("\n".join(["name,v"] + [f"caf\xe9 {i},{i}" for i in range(12)]).encode("latin-1"))
    whole, pieces, sizes = _read_whole_and_in_pieces(latin, monkeypatch)
    pd.testing.assert_frame_equal(pieces, whole)
    assert whole["name"].iloc[3] == "caf\xe9 3" and len(sizes) >= 2
    longer = tmp_path / "longer.csv"  # pieces that start past the first pages of the file: mapped from an offset
    pd.DataFrame({"x": np.arange(3000) / 7, "g": [f"level {i % 13}" for i in range(3000)]}).to_csv(longer, index=False)
    monkeypatch.setattr("infoloss.io_csv.CSV_PIECE_THREADS", 2)  # of 4 CPU threads: the pages mapped at once bounded
    seen: set = set()
    whole, pieces, sizes = _read_whole_and_in_pieces(longer, monkeypatch, piece=10_000, threads_seen=seen)
    pd.testing.assert_frame_equal(pieces, whole)
    assert len(sizes) == longer.stat().st_size // 10_000 and sum(sizes) == 3000 and len(seen) == 2


def test_a_csv_file_is_not_cut_where_a_value_may_span_lines_and_a_bad_piece_names_the_files_line(
        tmp_path, monkeypatch):
    quoted = tmp_path / "quoted.csv"
    quoted.write_text('x,note\n1,"two\nlines"\n' + "".join(f"{i},plain text {i}\n" for i in range(2, 12)))
    whole, pieces, sizes = _read_whole_and_in_pieces(quoted, monkeypatch)
    pd.testing.assert_frame_equal(pieces, whole)
    assert sizes == [] and whole["note"].iloc[0] == "two\nlines"
    bad = tmp_path / "bad.csv"  # the 12th line has a field too many: it is in a later piece
    bad.write_text("a,b\n" + "".join(f"{i},{i}\n" for i in range(10)) + "10,10,10\n11,11\n")
    from infoloss.io import read_table

    with pytest.raises(InputError) as plain:
        read_table(bad)
    with pytest.raises(InputError) as cut:
        _read_whole_and_in_pieces(bad, monkeypatch)
    assert str(cut.value) == str(plain.value) and "line 12 has 3 fields" in str(plain.value)


def test_a_csv_read_another_way_than_read_ahead_parses_the_file_itself(tmp_path, monkeypatch):
    import pyarrow as pa

    from infoloss import io_csv
    from infoloss.io import read_table
    from infoloss.spec import spec_from_dict

    parsed = []
    real = io_csv._parse_csv
    monkeypatch.setattr(io_csv, "_parse_csv", lambda *a, **k: parsed.append(a[0]) or real(*a, **k))
    path = tmp_path / "o.csv"
    pd.DataFrame({"x": [1.5, -9, 4.0], "g": ["a", "b", "c"]}).to_csv(path, index=False)
    threads = pa.cpu_count()
    io_csv.read_ahead([path], None)
    df = read_table(path, spec_from_dict({"variables": {"x": {"scale": "continuous"}}, "missing": [-9]}))
    assert df["x"].isna().tolist() == [False, True, False] and len(parsed) == 2
    io_csv.read_ahead([path], None)  # the file changes after its parse: read again
    _parsed_ahead(io_csv)
    pd.DataFrame({"x": [7.5], "g": ["z"]}).to_csv(path, index=False)
    assert read_table(path)["x"].tolist() == [7.5] and len(parsed) == 4
    io_csv.read_ahead([path], None)  # not read: forgotten, Arrow's threads given back
    io_csv.forget_read_ahead()
    assert not io_csv._ahead and pa.cpu_count() == threads
    # a Parquet file read first (an original read to infer the spec) is not decoded on one thread
    pd.DataFrame({"x": [1.5, 2.5]}).to_parquet(tmp_path / "o.parquet")
    io_csv.read_ahead([path], None)
    assert read_table(tmp_path / "o.parquet")["x"].tolist() == [1.5, 2.5] and pa.cpu_count() == threads
    io_csv.forget_read_ahead()


def test_a_csv_file_read_ahead_that_cannot_be_parsed_says_why_when_it_is_read(tmp_path):
    from infoloss import io_csv
    from infoloss.io import read_table

    path = tmp_path / "bad.csv"
    path.write_text("a,b\n1,2\n3,4,5\n6,7\n")
    with pytest.raises(InputError) as plain:
        read_table(path)
    io_csv.read_ahead([path], None)
    _parsed_ahead(io_csv)
    with pytest.raises(InputError) as ahead:
        read_table(path)
    assert str(ahead.value) == str(plain.value) and "line 3 has 3 fields" in str(plain.value)
    assert not io_csv._ahead and not io_csv._arrow_threads


def test_arrow_types_pandas_cannot_take_are_read_as_their_values(tmp_path):
    # extension types (JSON, bool8, a tensor, an opaque type), run-end encoded columns, unions and dictionaries of
    # structs made to_pandas raise KeyError, ArrowNotImplementedError or TypeError (found by the hostile-input audit)
    import pyarrow as pa
    import pyarrow.feather as feather

    from infoloss.io import read_table

    n = 6
    age = list(range(20, 20 + n))
    columns = {
        "age": pa.array(age),
        "json": pa.array([f'{{"a": {a}}}' for a in age], type=pa.json_()),
        "flag": pa.ExtensionArray.from_storage(pa.bool8(), pa.array([a % 2 for a in age], pa.int8())),
        "tensor": pa.ExtensionArray.from_storage(pa.fixed_shape_tensor(pa.int64(), [1]),
                                                 pa.array([[a] for a in age], pa.list_(pa.int64(), 1))),
        "ree": pa.RunEndEncodedArray.from_arrays(pa.array([2, 4, 6], pa.int32()), pa.array([1, 2, 3])),
        "union": pa.UnionArray.from_sparse(pa.array([0, 1] * (n // 2), type=pa.int8()),
                                           [pa.array(list(range(n))), pa.array([str(i) for i in range(n)])]),
        "ds": pa.DictionaryArray.from_arrays(pa.array([0, 1] * (n // 2), pa.int32()), pa.array([{"a": 1}, {"a": 2}])),
    }
    path = tmp_path / "t.feather"
    feather.write_feather(pa.table(columns), path)
    df = read_table(path)
    assert df["json"].tolist()[0] == '{"a": 20}' and df["flag"].tolist() == [0, 1, 0, 1, 0, 1]
    assert df["ree"].tolist() == [1, 1, 2, 2, 3, 3] and df["union"].tolist() == ["0", "1", "2", "3", "4", "5"]
    assert df["ds"].tolist()[:2] == [{"a": 1}, {"a": 2}] and list(df["tensor"].iloc[0]) == [20]


def test_long_whole_decimal_codes_stay_distinct(tmp_path):
    # decimal(38, 0) went through float64: 20-digit codes that differ in their last digits became one value
    import decimal

    import pyarrow as pa
    import pyarrow.parquet as pq

    from infoloss.io import read_table

    codes = [decimal.Decimal(10**19 + i) for i in range(4)]
    small = [decimal.Decimal(i) for i in range(4)]
    pq.write_table(pa.table({"code": pa.array(codes, pa.decimal128(38, 0)), "n": pa.array(small, pa.decimal128(38, 0)),
                             "x": pa.array([decimal.Decimal("1.25")] * 4, pa.decimal128(10, 2))}), tmp_path / "d.parquet")
    df = read_table(tmp_path / "d.parquet")
    assert df["code"].nunique() == 4 and df["code"].tolist()[1] == str(10**19 + 1)
    assert df["n"].tolist() == [0, 1, 2, 3] and df["x"].tolist() == [1.25] * 4


def test_blank_rows_and_columns_of_a_sheet_are_no_records_and_no_variables(tmp_path):
    # a stray value in cell A1048576 made 1,048,575 records (every blank row one record with every value missing),
    # and one in XFD2 16,380 empty columns, each with a warning (found by the hostile-input audit)
    import openpyxl

    from infoloss.io import read_table

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["age", "sex"])
    ws.append([20, "m"])
    ws.append([None, None])  # a blank row inside the data
    ws.append([30, "f"])
    ws["A40"] = 50  # a stray value further down: a record of its own, with the others missing
    ws["H1"] = None
    wb.save(tmp_path / "d.xlsx")
    df = read_table(tmp_path / "d.xlsx")
    assert list(df.columns) == ["age", "sex"] and df["age"].tolist() == [20, 30, 50]
    assert df["sex"].tolist()[:2] == ["m", "f"] and pd.isna(df["sex"].iloc[2])


def test_a_missing_code_names_a_labelled_value_by_its_code(tmp_path):
    # SPSS's -99 = "refused": the spec's missing: [-99] matched nothing, as the column holds the labels, and
    # "refused" stayed a category (found by the hostile-input audit)
    import pyreadstat

    from infoloss.io import read_table
    from infoloss.spec import spec_from_dict

    df = pd.DataFrame({"age": [20.0, 30.0, 40.0, 50.0], "sex": [1.0, 2.0, -99.0, 1.0]})
    pyreadstat.write_sav(df, str(tmp_path / "d.sav"),
                         variable_value_labels={"sex": {1.0: "male", 2.0: "female", -99.0: "refused"}})
    for code in (-99, -99.0, "-99", "refused"):
        spec = spec_from_dict({"variables": {"age": {"scale": "continuous"},
                                             "sex": {"scale": "nominal", "missing": [code]}}})
        sex = read_table(tmp_path / "d.sav", spec)["sex"]
        assert sex.isna().tolist() == [False, False, True, False], code
        assert "refused" not in list(sex.cat.categories)
