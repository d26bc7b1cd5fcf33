"""Hierarchies: reading and validating them, matching generalised values to nodes, the encoded pair,
and the `infoloss hierarchy` command."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from infoloss.cli import app
from infoloss.errors import InputError, SpecError
from infoloss.hierarchy import (
    from_rows,
    grouping_rows,
    interval_rows,
    mask_rows,
    match_values,
    parse_interval,
    read_arx_csv,
    to_arx_csv,
)
from infoloss.pair import encode_pair
from infoloss.spec import load_spec, spec_from_dict

DATA = Path(__file__).resolve().parent / "data"
runner = CliRunner()


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def spec_file(tmp_path, hierarchy="h.csv", scale="nominal"):
    return write(tmp_path / "spec.yaml",
                 f"variables:\n  v: {{scale: {scale}, role: key, hierarchy: {hierarchy}}}\n")


# ---------------------------------------------------------------------------
# reading and validation at spec load
# ---------------------------------------------------------------------------
def test_adult_hierarchies_are_read_with_arx_structure():
    age = read_arx_csv(DATA / "adult" / "adult_hierarchy_age.csv")
    assert (age.n_leaves, age.height) == (100, 4)
    node = age.nodes_labelled("20-24")[0]
    # the shipped age hierarchy is shifted by one: "20-24" holds 21..25
    assert age.n_leaves_under[node] == 5 and (age.low[node], age.high[node]) == (21, 25)
    assert age.labels[age.root] == "*" and age.n_leaves_under[age.root] == 100
    education = read_arx_csv(DATA / "adult" / "adult_hierarchy_education.csv")
    assert education.n_leaves_under[education.nodes_labelled("Higher education")[0]] == 7


@pytest.mark.parametrize(
    "text, message",
    [
        ("a;x;*\nb;x\n", "2 columns at line 2 but 3 at line 1"),
        ("a;x;*\nb;y;*\n\na;z;*\n", "lists the value 'a' twice (lines 1 and 4)"),
        ("a;x;*\nb;;*\n", "empty value at line 2"),
        ("a;x;p\nb;x;q\n", "generalises 'x' (level 1) to 'q' at line 2 but to 'p' at line 1"),
        ("", "is empty"),
    ],
)
def test_bad_hierarchy_files_fail_at_spec_load_naming_file_and_line(tmp_path, text, message):
    write(tmp_path / "h.csv", text)
    with pytest.raises(SpecError) as exc:
        load_spec(spec_file(tmp_path))
    assert message in str(exc.value)
    assert "h.csv" in str(exc.value)


def test_binary_hierarchy_file_is_named_as_not_text(tmp_path):
    """A file of valid UTF-8 holding NUL bytes (a binary file named by mistake) is not text, not a file of missing leaves."""
    (tmp_path / "h.csv").write_bytes(b"\x00\x01\x02abc\x00")
    (tmp_path / "s.yaml").write_text("variables:\n  a: {scale: nominal, hierarchy: h.csv}\n")
    with pytest.raises(SpecError, match=r"h.csv is not a text file \(it holds NUL bytes\)"):
        load_spec(tmp_path / "s.yaml")


def test_missing_hierarchy_file_fails_at_spec_load(tmp_path):
    with pytest.raises(SpecError, match=r"hierarchy file .*nothere\.csv does not exist"):
        load_spec(spec_file(tmp_path, "nothere.csv"))


@pytest.mark.parametrize(
    "hierarchy, message",
    [
        ("{intervals: [0, 10, 5]}", "strictly increasing"),
        ("{intervals: [0]}", "at least two numbers"),
        ("{intervals: [0, 10], nesting: [1]}", "at least 2"),
        ("{mask: up}", "right or left"),
        ("{mask: right, nesting: [2]}", "only to 'intervals'"),
        ("{mask: right, intervals: [0, 1]}", "exactly one of"),
        ("{colour: red}", "unknown key 'colour'"),
    ],
)
def test_bad_hierarchy_mappings_fail_at_spec_load(tmp_path, hierarchy, message):
    with pytest.raises(SpecError, match=message):
        load_spec(spec_file(tmp_path, hierarchy))


def test_a_last_column_with_several_values_gets_a_root():
    h = from_rows([["a", "x"], ["b", "y"]], source="t")
    assert h.height == 2 and h.labels[h.root] == "*" and h.n_leaves_under[h.root] == 2


def test_crlf_bom_and_blank_lines_are_accepted(tmp_path):
    path = tmp_path / "h.csv"
    path.write_bytes("\ufeffa;x;*\r\n\r\nb;x;*\r\n".encode("utf-8"))
    h = read_arx_csv(path)
    assert h.leaves == ["a", "b"] and h.height == 2


def test_builders_write_what_their_doctests_promise():
    rows, bounds = interval_rows([5, 25, 45], [0, 20, 40, 60], nesting=[2])
    assert rows[1] == ["25", "[20, 40)", "[0, 40)", "*"] and bounds[(2, "[40, 60)")] == (40, 60)
    assert mask_rows(["12", "13"], "left") == [["12", "*2", "*"], ["13", "*3", "*"]]
    assert grouping_rows(list("abcde"), [2, 2])[4] == ["e", "e", "e", "*"]
    assert grouping_rows(list("abcde"), [2, 2])[0] == ["a", "[a, b]", "[a, d]", "*"]


# ---------------------------------------------------------------------------
# matching generalised values
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, expected",
    [
        ("20-39", (20.0, 39.0, True, True)),
        ("20 – 39", (20.0, 39.0, True, True)),
        ("20 to 39", (20.0, 39.0, True, True)),
        ("20..39", (20.0, 39.0, True, True)),
        ("[20, 40)", (20.0, 40.0, True, False)),
        ("]20, 40]", (20.0, 40.0, False, True)),
        ("(20;40)", (20.0, 40.0, False, False)),
        ("-5--1", (-5.0, -1.0, True, True)),
        (">=80", (80.0, np.inf, True, False)),
        ("≥ 80", (80.0, np.inf, True, False)),
        (">80", (80.0, np.inf, False, False)),
        ("<=19", (-np.inf, 19.0, False, True)),
        ("80+", (80.0, np.inf, True, False)),
        ("1.5-2.5", (1.5, 2.5, True, True)),
        ("North America", None),
        ("20-", None),
    ],
)
def test_interval_notations(text, expected):
    assert parse_interval(text) == expected


@pytest.fixture()
def ages():
    rows, bounds = interval_rows(range(0, 100), [0, 20, 40, 60, 80, 100], nesting=[2])
    return from_rows(rows, source="ages", kind="intervals", bounds=bounds, domain=(0, 100))


@pytest.mark.parametrize("text", ["[20, 40)", "20-39", "20 to 39", "[20, 40[", "[20, 39]", "20..39"])
def test_every_notation_of_one_interval_finds_the_same_node(ages, text):
    nodes, level = match_values(ages, [text], variable="age")
    assert ages.labels[nodes[0]] == "[20, 40)" and level == 1


def test_open_intervals_and_suppression_codes(ages):
    nodes, level = match_values(ages, [">=80", "<40", "*", "***", None, "17"], variable="age")
    labels = [ages.labels[n] for n in nodes]
    assert labels[:2] == ["[80, 100)", "[0, 40)"]  # [80, 100) is level 1 and level 2 ([80, 100) joins one group)
    assert labels[2:5] == ["*", "*", "*"] and labels[5] == "17"
    assert level is None  # leaves and generalised values together: local recoding


def test_a_full_domain_column_uses_one_level_for_labels_seen_at_several(ages):
    # [80, 100) is a node of level 1 and of level 2 (the last group has one interval)
    nodes, level = match_values(ages, ["[0, 40)", "[80, 100)"], variable="age")
    assert level == 2 and all(ages.level[n] == 2 for n in nodes)


def test_a_value_matching_no_node_names_variable_and_value(ages):
    with pytest.raises(InputError, match=r"variable 'age' has the value '20-37' .* no value of its hierarchy"):
        match_values(ages, ["20-37"], variable="age")


# ---------------------------------------------------------------------------
# the encoded pair
# ---------------------------------------------------------------------------
def test_a_continuous_variable_with_interval_text_is_no_longer_refused():
    orig = pd.DataFrame({"age": [15.0, 25.0, 35.0, 45.0]})
    prot = pd.DataFrame({"age": ["[0, 20)", "20-39", "*", "45"]})
    spec = {"variables": {"age": {"scale": "continuous", "role": "key",
                                  "hierarchy": {"intervals": [0, 20, 40, 60]}}}}
    pair = encode_pair(orig, prot, spec)
    gc = pair.generalised["age"]
    assert [gc.hierarchy.labels[n] for n in gc.prot_node] == ["[0, 20)", "[20, 40)", "*", "45"]
    # the other measures see the interval's midpoint, a suppressed value as missing
    np.testing.assert_array_equal(pair.continuous["age"].prot, [10.0, 30.0, np.nan, 45.0])
    assert gc.contains.tolist() == [True, True, True, True]


def test_star_is_missing_in_the_categorical_column_of_a_hierarchy_variable(tmp_path):
    write(tmp_path / "h.csv", "a;ab;*\nb;ab;*\nc;c;*\n")
    spec = load_spec(spec_file(tmp_path))
    pair = encode_pair(pd.DataFrame({"v": list("abc")}), pd.DataFrame({"v": ["ab", "*", "c"]}), spec)
    assert pair.categorical["v"].prot.tolist()[1] == -1
    assert "*" not in pair.categorical["v"].categories


def test_listed_suppression_codes(tmp_path):
    write(tmp_path / "h.csv", "a;ab;*\nb;ab;*\nc;c;*\n")
    spec = load_spec(spec_file(tmp_path, "{file: h.csv, suppressed: ['?', 'SUPP']}"))
    pair = encode_pair(pd.DataFrame({"v": list("abc")}), pd.DataFrame({"v": ["?", "SUPP", "c"]}), spec)
    gc = pair.generalised["v"]
    assert gc.is_root.tolist() == [True, True, False]


def test_original_value_outside_the_hierarchy_is_an_input_error(tmp_path):
    write(tmp_path / "h.csv", "a;ab;*\nb;ab;*\n")
    spec = load_spec(spec_file(tmp_path))
    with pytest.raises(InputError, match=r"variable 'v' has the value 'z' in the original file, which is not a leaf"):
        encode_pair(pd.DataFrame({"v": ["a", "z"]}), pd.DataFrame({"v": ["a", "b"]}), spec)


def test_protected_value_outside_the_hierarchy_is_an_input_error(tmp_path):
    write(tmp_path / "h.csv", "a;ab;*\nb;ab;*\n")
    spec = load_spec(spec_file(tmp_path))
    with pytest.raises(InputError, match=r"variable 'v' has the value 'abc' in the protected file"):
        encode_pair(pd.DataFrame({"v": ["a", "b"]}), pd.DataFrame({"v": ["abc", "b"]}), spec)


def test_numbers_match_numeric_leaves_whatever_their_spelling():
    spec = {"variables": {"x": {"scale": "continuous", "role": "key", "hierarchy": {"intervals": [0, 5, 10]}}}}
    pair = encode_pair(pd.DataFrame({"x": [1.5, 7.0]}), pd.DataFrame({"x": ["1.50", "7.0"]}), spec)
    assert pair.generalised["x"].hierarchy.level[pair.generalised["x"].prot_node].tolist() == [0, 0]


def test_mask_hierarchy_of_codes_with_leading_zeros():
    orig = pd.DataFrame({"zip": ["01000", "01001", "02000"]})
    prot = pd.DataFrame({"zip": ["0100*", "0100*", "0****"]})
    spec = {"variables": {"zip": {"scale": "nominal", "role": "key", "hierarchy": {"mask": "right"}}}}
    gc = encode_pair(orig, prot, spec).generalised["zip"]
    assert gc.hierarchy.n_leaves_under[gc.prot_node].tolist() == [2, 2, 3]
    assert gc.contains.all()


def test_a_mask_over_codes_a_csv_file_read_as_numbers_names_the_lost_leading_zeros(tmp_path):
    # "'002**' is no value of its hierarchy": the CSV column was read as numbers, 00231 as 231 (found by an audit)
    (tmp_path / "o.csv").write_text("zip,v\n00231,1\n12345,2\n12399,3\n")
    (tmp_path / "p.csv").write_text("zip,v\n002**,1\n123**,2\n123**,3\n")
    spec = tmp_path / "s.yaml"
    spec.write_text("variables:\n  zip: {scale: nominal, role: key, hierarchy: {mask: right}}\n"
                    "  v: {scale: continuous}\n")
    r = invoke("compare", tmp_path / "o.csv", tmp_path / "p.csv", "--spec", spec)
    assert r.exit_code == 2 and ("such as *); the original file's column was likely read as numbers, which drops "
                                 "leading zeros (00231 becomes 231), so the masks were built from shortened codes; "
                                 "give the original with the column stored as text (Parquet, or a DataFrame read "
                                 "with dtype=str), as the spec has no setting that reads a CSV column as text.") \
        in " ".join(r.stderr.split())
    with pytest.raises(InputError, match=r"such as \*\); fix the value"):  # a value no code explains: as before
        encode_pair(pd.DataFrame({"zip": [12345, 12399]}), pd.DataFrame({"zip": ["124**", "123**"]}),
                    {"variables": {"zip": {"scale": "nominal", "role": "key", "hierarchy": {"mask": "right"}}}})


def test_ordinal_variable_with_an_order_accepts_generalised_values(tmp_path):
    write(tmp_path / "h.csv", "low;low-mid;*\nmid;low-mid;*\nhigh;high;*\n")
    spec = load_spec(write(tmp_path / "spec.yaml", "variables:\n  v: {scale: ordinal, order: [low, mid, high], "
                                                   "role: key, hierarchy: h.csv}\n"))
    pair = encode_pair(pd.DataFrame({"v": ["low", "mid", "high"]}), pd.DataFrame({"v": ["low-mid", "low-mid", "high"]}),
                       spec)
    assert pair.categorical["v"].categories[:3] == ["low", "mid", "high"]


def test_spec_with_hierarchies_round_trips_through_yaml(tmp_path):
    spec = load_spec(DATA / "adult" / "spec.yaml")
    again = spec_from_dict(__import__("yaml").safe_load(spec.to_yaml()), base_dir=DATA / "adult")
    assert again.variables["age"].hierarchy == spec.variables["age"].hierarchy


# ---------------------------------------------------------------------------
# the command line
# ---------------------------------------------------------------------------
def invoke(*args):
    result = runner.invoke(app, [str(a) for a in args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def test_hierarchy_command_writes_intervals_masks_and_groupings(tmp_path):
    out = tmp_path / "age.csv"
    r = invoke("hierarchy", out, "--intervals", "0,20,40,60,80,120", "--nesting", "2", "--values", "15..85")
    assert r.exit_code == 0, r.output
    h = read_arx_csv(out)
    assert h.n_leaves == 71 and h.height == 3
    assert out.read_text().splitlines()[0] == "15;[0, 20);[0, 40);*"
    r = invoke("hierarchy", tmp_path / "zip.csv", "--mask", "right", "--values", "75013,75014,69001")
    assert r.exit_code == 0 and (tmp_path / "zip.csv").read_text().splitlines()[2] == "69001;6900*;690**;69***;6****;*"
    r = invoke("hierarchy", tmp_path / "edu.csv", "--categories", "none,primary,secondary,tertiary", "--group", "2")
    assert r.exit_code == 0 and read_arx_csv(tmp_path / "edu.csv").labels[4:6] == ["[none, primary]",
                                                                                   "[secondary, tertiary]"]


def test_hierarchy_command_takes_the_leaves_from_a_data_file_and_the_result_is_usable(tmp_path):
    out = tmp_path / "age.csv"
    r = invoke("hierarchy", out, "--intervals", "0,30,60,100", "--data", DATA / "adult" / "adult.csv",
               "--column", "age")
    assert r.exit_code == 0, r.output
    spec = spec_from_dict({"variables": {"age": {"scale": "continuous", "role": "key", "hierarchy": "age.csv"}}},
                          base_dir=tmp_path)
    orig = pd.DataFrame({"age": [17, 45, 90]})
    pair = encode_pair(orig, pd.DataFrame({"age": ["[0, 30)", "[30, 60)", "*"]}), spec)
    assert pair.generalised["age"].level == 1


@pytest.mark.parametrize(
    "args, message",
    [
        (["--intervals", "0,10"], "needs the values"),
        (["--intervals", "0,10", "--values", "15"], "lies outside the intervals"),
        (["--intervals", "10,0", "--values", "5"], "strictly increasing"),
        (["--intervals", "a,b", "--values", "5"], "numbers separated by commas"),
        (["--mask", "up", "--values", "5"], "right or left"),
        (["--mask", "right", "--intervals", "0,1", "--values", "5"], "exactly one of"),
        (["--categories", "a,b,a"], "names a category twice"),
        (["--categories", "a,b", "--nesting", "2"], "--nesting applies only to --intervals"),
        (["--intervals", "0,10", "--values", "5", "--group", "2"], "--group applies only to --categories"),
        (["--values", "9..1", "--mask", "right"], "is empty"),
        (["--mask", "right", "--column", "x"], "--column needs --data"),
    ],
)
def test_hierarchy_command_bad_input_exits_2_with_one_sentence(tmp_path, args, message):
    r = invoke("hierarchy", tmp_path / "out.csv", *args)
    assert r.exit_code == 2
    assert message in r.output and "Traceback" not in r.output
    assert not (tmp_path / "out.csv").exists()


def test_hierarchy_command_never_writes_over_its_input(tmp_path):
    data = tmp_path / "d.csv"
    pd.DataFrame({"x": [1, 2]}).to_csv(data, index=False)
    before = data.read_bytes()
    r = invoke("hierarchy", data, "--mask", "right", "--data", data, "--column", "x")
    assert r.exit_code == 2 and "one of the input files" in r.output
    assert data.read_bytes() == before


@pytest.mark.parametrize(
    "hierarchy_text, protected, message",
    [
        ("a;ab;*\nb;ab;*\nb;ab;*\n", ["ab", "b"], "lists the value 'b' twice"),
        ("a;ab;*\nb;ab\n", ["ab", "b"], "2 columns at line 2"),
        ("a;ab;*\nb;ab;*\n", ["ab", "nope"], "has the value 'nope' in the protected file"),
        ("a;ab;*\nc;ab;*\n", ["ab", "ab"], "has the value 'b' in the original file, which is not a leaf"),
    ],
)
def test_compare_with_a_bad_hierarchy_or_value_exits_2(tmp_path, hierarchy_text, protected, message):
    write(tmp_path / "h.csv", hierarchy_text)
    spec = spec_file(tmp_path)
    pd.DataFrame({"v": ["a", "b"]}).to_csv(tmp_path / "o.csv", index=False)
    pd.DataFrame({"v": protected}).to_csv(tmp_path / "p.csv", index=False)
    r = invoke("compare", tmp_path / "o.csv", tmp_path / "p.csv", "--spec", spec)
    assert r.exit_code == 2, r.output
    assert message in r.output and "Traceback" not in r.output


def test_a_hierarchy_file_with_another_separator_says_which(tmp_path):
    # read with ';', a comma-separated file was one column: "the value ... is not a leaf; add a row for it"
    from infoloss.errors import SpecError
    from infoloss.hierarchy import read_arx_csv

    path = tmp_path / "h.csv"
    path.write_text("a,A,*\nb,A,*\nc,B,*\n")
    with pytest.raises(SpecError, match="hold no ';' but each holds ','; give its separator in the spec"):
        read_arx_csv(path)
    assert read_arx_csv(path, separator=",").leaf_id("c") >= 0


def test_infinite_interval_breaks_are_named_as_such():
    from infoloss.errors import SpecError
    from infoloss.spec import spec_from_dict

    with pytest.raises(SpecError, match="must be finite numbers"):
        spec_from_dict({"variables": {"age": {"scale": "continuous", "role": "key",
                                              "hierarchy": {"intervals": [float("-inf"), 40, 60, float("inf")]}}}})


# ---------------------------------------------------------------------------
# found by the second hostile-input audit
# ---------------------------------------------------------------------------

def test_a_long_list_of_interval_breaks_is_shortened_in_messages():
    # the one-sentence error listed all 100,001 breaks (779 KB)
    breaks = [i / 10 for i in range(10_001)]
    spec = {"variables": {"age": {"scale": "continuous", "role": "key", "hierarchy": {"intervals": breaks}}}}
    o = pd.DataFrame({"age": [20.0, 30.0, 45.0]})
    with pytest.raises(InputError) as exc:
        encode_pair(o, pd.DataFrame({"age": ["20-29", "30-39", "nope"]}), spec)
    message = str(exc.value)
    assert "its hierarchy intervals 0, 0.1, 0.2, 0.3, 0.4, ... 9,995 more breaks ..., 1000 (not a leaf" in message
    assert len(message) < 500


@pytest.mark.parametrize("hierarchy", ['""', "' '", '{file: ""}'])
def test_an_empty_hierarchy_path_is_named_as_empty(tmp_path, hierarchy):
    # it was "the hierarchy file <the spec's folder> is a folder"
    with pytest.raises(SpecError, match=r"^'hierarchy' of variable 'v' is an empty path; give the path of its "
                                        r"hierarchy file \(CSV\), or leave 'hierarchy' out\.$"):
        load_spec(spec_file(tmp_path, hierarchy))


def test_suppression_codes_are_single_values(tmp_path):
    # a nested list was taken as the code "[1, 2]"
    with pytest.raises(SpecError, match=r"'suppressed' in 'hierarchy' of variable 'v' holds \[1, 2\], which is not a "
                                        r"single value; list each suppression code on its own"):
        load_spec(spec_file(tmp_path, "{mask: right, suppressed: [[1, 2]]}"))
    rule = load_spec(spec_file(tmp_path, "{mask: right, suppressed: ['?', 99]}")).variables["v"].hierarchy
    assert rule["suppressed"] == ["?", 99]


def test_hierarchy_paths_may_be_path_objects_and_messages_say_where_a_relative_path_is_read(tmp_path, monkeypatch):
    write(tmp_path / "h.csv", "a;ab;*\nb;ab;*\n")
    monkeypatch.chdir(tmp_path)
    o, p = pd.DataFrame({"v": ["a", "b"]}), pd.DataFrame({"v": ["ab", "ab"]})
    for hierarchy in (Path("h.csv"), tmp_path / "h.csv", {"file": Path("h.csv")}):  # were "must be a file path"
        spec = {"variables": {"v": {"scale": "nominal", "role": "key", "hierarchy": hierarchy}}}
        assert encode_pair(o, p, spec).generalised["v"].level == 1
    # a dict spec reads a relative path from the working folder: the message said "relative to the spec file"
    with pytest.raises(SpecError, match=r"the hierarchy file .*nothere\.csv does not exist; give the path of the "
                                        r"hierarchy file \(CSV\) of variable 'v', relative to the working folder, as "
                                        r"the spec is not a file\.$"):
        spec_from_dict({"variables": {"v": {"scale": "nominal", "hierarchy": "nothere.csv"}}})
    with pytest.raises(SpecError, match=r"nothere\.csv does not exist; .* of variable 'v', relative to the spec "
                                        r"file\.$"):
        load_spec(spec_file(tmp_path, "nothere.csv"))
    with pytest.raises(SpecError, match=r"'pram' file of variable 'v', .*absent\.csv, does not exist; give the path "
                                        r"of its PRAM matrix \(CSV\), relative to .*sub\.$"):
        spec_from_dict({"variables": {"v": {"scale": "nominal", "pram": Path("absent.csv")}}},
                       base_dir=tmp_path / "sub")


def test_a_hierarchy_file_given_as_a_mapping_is_never_written_over(tmp_path):
    # {file: h.csv} was not among the files the comparison read: --json h.csv replaced the hierarchy
    h = write(tmp_path / "h.csv", "a;ab;*\nb;ab;*\n")
    spec = spec_file(tmp_path, "{file: h.csv}")
    pd.DataFrame({"v": ["a", "b"]}).to_csv(tmp_path / "o.csv", index=False)
    pd.DataFrame({"v": ["ab", "ab"]}).to_csv(tmp_path / "p.csv", index=False)
    r = invoke("compare", tmp_path / "o.csv", tmp_path / "p.csv", "--spec", spec, "--json", h)
    assert r.exit_code == 2 and "is one of the input files" in r.output
    assert h.read_text() == "a;ab;*\nb;ab;*\n"


def test_quoted_values_in_a_hierarchy_file_are_read_as_arx_reads_them(tmp_path):
    # ARX reads hierarchy files with a CSV parser (quote '"', a quote inside written twice); the quotes were kept
    h = read_arx_csv(write(tmp_path / "h.csv", '21;"20;29";*\n22;"20;29";*\n\n5;"5"" screen";*\n'))
    assert h.labels[h.table[0, 1]] == "20;29" and h.labels[h.table[2, 1]] == '5" screen'
    with pytest.raises(SpecError, match=r"the hierarchy file .*open\.csv has a double quote that opens a value at "
                                        r"line 2 and is never closed; close it"):
        read_arx_csv(write(tmp_path / "open.csv", '20;20-29;*\n21;"40-49;*\n22;20-29;*\n'))
    with pytest.raises(SpecError, match=r"text after the closing double quote of a value at line 1"):
        read_arx_csv(write(tmp_path / "after.csv", '20;"20"-29;*\n'))
    with pytest.raises(SpecError, match=r"'separator' in 'hierarchy' of variable 'v' is '\"', which CSV reserves"):
        spec_from_dict({"variables": {"v": {"scale": "nominal", "hierarchy": {"file": str(tmp_path / "h.csv"),
                                                                              "separator": '"'}}}})
    rows = [["a;b", '5" screen', "*"], ["c", "x", "*"]]  # written quoted (the separator was refused), read back
    written = write(tmp_path / "w.csv", to_arx_csv(rows))
    assert read_arx_csv(written).leaves == ["a;b", "c"] and '5" screen' in read_arx_csv(written).labels


@pytest.mark.parametrize("file", [5, None, ["a.csv"], {"x": 1}, True])
def test_a_hierarchy_file_that_is_not_a_path_is_one_sentence(tmp_path, file):
    # TypeError: unsupported operand type(s) for /: 'PosixPath' and 'int' (found by the hostile-input audit)
    from infoloss.errors import SpecError
    from infoloss.spec import spec_from_dict

    with pytest.raises(SpecError, match="needs 'file' as a path and 'separator' as one character"):
        spec_from_dict({"variables": {"age": {"scale": "continuous", "hierarchy": {"file": file}}}}, base_dir=tmp_path)


def test_nesting_beside_a_hierarchy_file_is_refused(tmp_path):
    from infoloss.errors import SpecError
    from infoloss.spec import spec_from_dict

    (tmp_path / "h.csv").write_text("a;*\nb;*\n")
    with pytest.raises(SpecError, match="'nesting' in 'hierarchy' of variable 'g' applies only to 'intervals'"):
        spec_from_dict({"variables": {"g": {"scale": "nominal", "hierarchy": {"file": "h.csv", "nesting": [2]}}}},
                       base_dir=tmp_path)
