"""The variable spec: loading, validation, inference, overrides."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from infoloss.errors import SpecError
from infoloss.spec import apply_overrides, infer_spec, load_spec, normalise_label, spec_from_dict

DATA = Path(__file__).resolve().parent / "data"


def test_every_shared_spec_loads():
    for path in sorted(DATA.glob("*/spec.yaml")):
        spec = load_spec(path)
        assert spec.analysed, path


def test_testdata_spec_views():
    spec = load_spec(DATA / "testdata" / "spec.yaml")
    assert spec.names("continuous") == ["expend", "income", "savings"]
    assert spec.names("ordinal") == ["age"]
    assert spec.weight == "sampling_weight"  # the first weight column
    assert "ori_hid" not in spec.names()
    assert spec.pairing == "row"


def test_relative_paths_resolve_against_the_spec_file():
    spec = load_spec(DATA / "adult" / "spec.yaml")
    assert spec.variables["age"].hierarchy == DATA / "adult" / "adult_hierarchy_age.csv"
    assert spec.separator == ";"


@pytest.mark.parametrize(
    "raw, message",
    [
        ({"variables": {"A": {"scale": "nominal"}}, "colour": 1}, "unknown key 'colour' at the top"),
        ({"variables": {"A": {"scale": "nominal", "colour": 1}}}, "unknown key 'colour' for variable 'A'"),
        ({"variables": {"A": {"scale": "interval"}}}, "variable 'A' has scale 'interval'"),
        ({"variables": {"A": {"role": "boss", "scale": "nominal"}}}, "variable 'A' has role 'boss'"),
        ({"variables": {"A": {}}}, "variable 'A' has no scale"),
        ({"variables": {"A": {"scale": "nominal", "order": [1, 2]}}}, "has an 'order' but its scale is nominal"),
        ({"variables": {"A": {"scale": "ordinal", "order": [1, 1]}}}, "lists a category twice"),
        ({"variables": {"A": {"scale": "nominal"}}, "pairing": "rows"}, "'pairing' must be row, none"),
        ({"variables": {"A": {"scale": "continuous", "recode": {"breaks": [3, 1]}}}}, "strictly increasing"),
        ({"variables": {"A": {"scale": "continuous", "recode": {"cut": 3}}}}, "'recode' of variable 'A'"),
        ({"variables": {"A": {"role": "weight", "removed": True}}}, "cannot be marked removed"),
    ],
)
def test_invalid_specs_name_the_problem(raw, message):
    with pytest.raises(SpecError, match=message.replace("(", r"\(").replace("[", r"\[")):
        spec_from_dict(raw)


def test_broken_yaml_and_missing_file(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("variables:\n  A: {scale: nominal\n")
    with pytest.raises(SpecError, match="not valid YAML at line"):
        load_spec(bad)
    with pytest.raises(SpecError, match="cannot read the spec file"):
        load_spec(tmp_path / "nope.yaml")


def test_a_spec_path_that_is_not_a_regular_file(tmp_path):
    with pytest.raises(SpecError, match="is not a regular file; give the path of a YAML file"):
        load_spec(tmp_path)


def test_a_key_given_twice_is_a_spec_error(tmp_path):
    # PyYAML keeps the last of two equal keys: a variable listed twice lost its first definition silently
    dup = tmp_path / "dup.yaml"
    dup.write_text("variables:\n  age: {scale: continuous}\n  sex: {scale: nominal}\n  age: {scale: nominal}\n")
    with pytest.raises(SpecError, match=r"gives 'age' twice in one mapping \(line 4\); keep one of them"):
        load_spec(dup)
    anchors = tmp_path / "anchors.yaml"  # a merge key and an anchor are still plain YAML
    anchors.write_text("variables:\n  sex: &b {scale: nominal, role: key}\n  region: {<<: *b, role: other}\n")
    spec = load_spec(anchors)
    assert (spec.variables["region"].scale, spec.variables["region"].role) == ("nominal", "other")


def test_a_number_or_date_python_cannot_make_is_a_spec_error(tmp_path):
    # an integer of more than 4300 digits was a bare ValueError from PyYAML's int constructor (traceback, exit 1),
    # and so was a date that does not exist; found by the hostile-input audit
    huge = tmp_path / "huge.yaml"
    huge.write_text("variables:\n  age: {scale: continuous, missing: [" + "9" * 5000 + "]}\n")
    with pytest.raises(SpecError, match=r"huge.yaml has the value '9{37}\.\.\.' at line 2, a whole number of 5,000 "
                                        r"characters \(Python reads at most 4,300 digits\); put it in quotes"):
        load_spec(huge)
    date = tmp_path / "date.yaml"
    date.write_text("variables:\n  age: {scale: continuous}\nmissing: [\n  2024-02-30]\n")
    with pytest.raises(SpecError, match=r"'2024-02-30' at line 4, not a valid date or number"):
        load_spec(date)


def test_deeply_nested_yaml_is_a_spec_error(tmp_path):
    # PyYAML parses nested brackets recursively: 1,000 of them were a RecursionError (found by fuzzing)
    deep = tmp_path / "deep.yaml"
    deep.write_text("[" * 1000 + "]" * 1000 + "\n")
    with pytest.raises(SpecError, match="nests lists or mappings too deeply"):
        load_spec(deep)


def test_pairing_by_id_gives_the_column_the_id_role():
    spec = spec_from_dict({"variables": {"H": {"scale": "nominal"}, "A": {"scale": "nominal"}}, "pairing": {"by": "H"}})
    assert spec.pairing_id == "H"
    assert spec.variables["H"].role == "id"
    assert spec.names() == ["A"]


def test_label_normalisation_makes_2_and_2_0_one_category():
    assert normalise_label(2) == normalise_label(2.0) == normalise_label("2") == normalise_label("2.0") == "2"
    assert normalise_label(np.int64(7)) == "7"
    assert normalise_label("2.5") == "2.5" and normalise_label(2.5) == "2.5"
    assert normalise_label(" a ") == "a"
    assert normalise_label("007") == "007"  # leading zeros are a code, not a number


def test_inference_rules_and_comments():
    df = pd.DataFrame(
        {
            "hhid": np.arange(100),
            "weight": np.full(100, 2.5),
            "income": np.linspace(0, 1, 100),
            "sex": np.tile([1, 2], 50),
            "region": ["north", "south"] * 50,
            "educ": pd.Categorical(["low", "high"] * 50, categories=["low", "high"], ordered=True),
        }
    )
    spec = infer_spec(df)
    roles = {n: (v.scale, v.role) for n, v in spec.variables.items()}
    assert roles == {
        "hhid": (None, "id"),
        "weight": (None, "weight"),
        "income": ("continuous", "other"),
        "sex": ("nominal", "other"),
        "region": ("nominal", "other"),
        "educ": ("ordinal", "other"),
    }
    text = spec.to_yaml("header")
    assert "# number with only 2 distinct values" in text
    reloaded = spec_from_dict(yaml.safe_load(text))
    assert {n: (v.scale, v.role) for n, v in reloaded.variables.items()} == roles


def test_overrides_change_scale_role_and_pairing():
    spec = spec_from_dict({"variables": {"A": {"scale": "nominal"}, "W": {"role": "weight"}}})
    new = apply_overrides(spec, continuous=["A"], ordinal=["B"], key=["B"], weight="V", pairing="ID")
    assert new.variables["A"].scale == "continuous"
    assert (new.variables["B"].scale, new.variables["B"].role) == ("ordinal", "key")
    assert new.weight == "V"
    assert new.variables["W"].role == "weight" and "W" not in [v.name for v in new.analysed]  # not used, not analysed
    assert new.pairing == {"by": "ID"} and new.variables["ID"].role == "id"
    assert spec.variables["A"].scale == "nominal"  # the original spec is untouched
    with pytest.raises(SpecError, match="--key C: the spec has no variable 'C'; if it is a column of the files, give it a scale too"):
        apply_overrides(spec, key=["C"])
    with pytest.raises(SpecError, match="^--key I: give the variable a scale too"):  # in the spec, without a scale
        apply_overrides(spec_from_dict({"variables": {"I": {"role": "id"}}}), key=["I"])
    # contradictory flags were accepted, the last scale winning or the household id analysed as a key (fuzzing)
    with pytest.raises(SpecError, match="'A' is given both as nominal and as continuous; a variable has one scale"):
        apply_overrides(spec, nominal=["A"], continuous=["A"])
    with pytest.raises(SpecError, match="'A' is given as the household id and as a key variable"):
        apply_overrides(spec, key=["A"], household="A")
    assert apply_overrides(spec, nominal=["A", "A"]).variables["A"].scale == "nominal"  # a repeat is no conflict


def test_numbers_with_fractions_are_inferred_continuous_however_few():
    df = pd.DataFrame({"few_fractions": [1.5, 2.25, 1.5, 3.75] * 5, "codes": [1.0, 2.0, 3.0, 1.0] * 5,
                       "ints": [1, 2, 3, 4] * 5})
    spec = infer_spec(df)
    assert spec.variables["few_fractions"].scale == "continuous"
    assert spec.variables["few_fractions"].note == "number with fractions, 3 distinct values"
    assert spec.variables["codes"].scale == "nominal" and spec.variables["ints"].scale == "nominal"


def test_inferred_notes_count_one_value_in_the_singular():
    spec = infer_spec(pd.DataFrame({"constant": [7] * 5, "label": ["a"] * 5}))
    assert spec.variables["constant"].note == "number with only 1 distinct value"  # was "1 distinct values"
    assert spec.variables["label"].note == "text, 1 distinct value"


def test_a_spec_whose_yaml_aliases_repeat_a_list_a_billion_times_is_refused_at_once(tmp_path):
    # 466 bytes of "billion laughs": 9**9 missing codes once the aliases are repeated (7.6 GB before, found by fuzzing)
    text = "variables:\n  income: {scale: continuous}\n  region:\n    scale: nominal\n    missing:\n"
    text += '      - &a0 ["x","x","x","x","x","x","x","x","x"]\n'
    text += "".join(f"      - &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]\n" for i in range(1, 9))
    path = tmp_path / "laughs.yaml"
    path.write_text(text)
    with pytest.raises(SpecError, match="more than 1,000,000 values once its YAML aliases"):
        load_spec(path)
    # an alias used a few times is still a spec
    path.write_text("variables:\n  a: {scale: ordinal, order: &o [low, high]}\n  b: {scale: ordinal, order: *o}\n")
    assert load_spec(path).variables["b"].order == ["low", "high"]


def test_whole_number_labels_are_canonical_exactly_beyond_float_precision():
    # "2", "2.0" and 2 are one category; 19-digit codes read as text were merged through a float (found by fuzzing)
    from infoloss.spec import normalise_label

    assert {normalise_label(v) for v in ("2", "2.00", "+2", 2, 2.0, np.int64(2))} == {"2"}
    assert normalise_label("10000000000000000001") != normalise_label("10000000000000000002")
    assert [normalise_label(v) for v in ("-0", "007", "2.50", "1e3", " 4 ")] == ["0", "007", "2.50", "1e3", "4"]


@pytest.mark.parametrize("name", ["", "two\nlines", "x" * 200, "tab\there", 'quote"and\\back', "L" * 1100,
                                  "line\u2028sep"], ids=lambda name: repr(name[:12]))
def test_odd_column_names_round_trip_through_the_spec_file(tmp_path, name):
    # PyYAML writes an empty, long or multi-line key in its explicit form "? ...", which is not valid YAML on the
    # spec's one-line layout
    from infoloss.spec import spec_from_dict

    spec = spec_from_dict({"variables": {"a": {"scale": "nominal"}, name: {"scale": "continuous"}}})
    path = tmp_path / "s.yaml"
    path.write_text(spec.to_yaml())
    again = load_spec(path)
    assert list(again.variables) == ["a", name] and again.variables[name].scale == "continuous"


@pytest.mark.parametrize("name", ["two\nlines", "line\u2028sep", "L" * 1100, "yes", "it's \"q\" \\"],
                         ids=lambda name: repr(name[:12]))
def test_infoloss_spec_output_with_its_analyses_block_uncommented_loads(tmp_path, name):
    # a name over 1024 characters (PyYAML's limit for a key on one line) or with a newline (written raw in the
    # commented analyses block) made a spec that compare refused as invalid YAML (found by the hostile-input audit)
    from infoloss.analyses.starter import starter_block

    df = pd.DataFrame({"income": [float(i * 37 % 101) for i in range(60)], name: ["f", "m", "x"] * 20,
                       "age": [float(20 + i % 50) for i in range(60)]})
    spec = infer_spec(df)
    text = spec.to_yaml("header") + starter_block(spec, df)
    (tmp_path / "s.yaml").write_text(text)
    assert list(load_spec(tmp_path / "s.yaml").variables) == ["income", name, "age"]
    block = text[text.index("# analyses:"):]
    (tmp_path / "a.yaml").write_text(text[:text.index("# analyses:")] + block.replace("# ", "", 1)
                                     .replace("\n#", "\n"))
    loaded = load_spec(tmp_path / "a.yaml")
    assert {"statistic": "proportion", "variable": name} in loaded.analyses["estimates"]


def test_a_decimal_comma_hint_needs_every_first_value_to_be_a_number():
    # the usual text column is told apart by its first value; a number-like first value then has every value checked
    import warnings

    df = pd.DataFrame({"a": ["4,5", "x"] * 3, "b": ["x", "4,5"] * 3, "c": ["4", "4,5", "5"] * 2, "d": ["4"] * 6})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec = infer_spec(df)
    assert ["decimal comma" in spec.variables[name].note for name in "abcd"] == [False, False, True, False]


def test_inference_flags_numbers_with_a_decimal_comma():
    # a ';'-separated file with "31,5" was inferred as nominal text without a hint, and flagged as an identifier
    # (found by the hostile-input audit)
    import warnings

    from infoloss.limits import InferenceWarning

    df = pd.DataFrame({"age": [f"{20 + i},{i % 10}" for i in range(60)], "n": ["3", "4,5"] * 30,
                       "code": ["a", "1,5"] * 30})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        spec = infer_spec(df)
    assert spec.variables["age"].scale == "nominal"
    assert spec.variables["age"].note == ("text, 60 distinct values; looks like numbers with a decimal comma ('20,0'); "
                                          "export the file with '.' as the decimal separator and infer the spec again")
    assert "decimal comma ('4,5')" in spec.variables["n"].note and "decimal comma" not in spec.variables["code"].note
    assert [str(w.message).split(" looks")[0] for w in caught if issubclass(w.category, InferenceWarning)] == \
        ["column 'age'", "column 'n'"]  # not "looks like an identifier" for age


def test_a_yaml_alias_that_contains_itself_is_a_spec_error(tmp_path):
    # the guard against alias bombs recursed without end: RecursionError, exit 1
    path = tmp_path / "s.yaml"
    path.write_text("variables:\n  age: {scale: continuous}\nmissing: &m [a, *m]\n")
    with pytest.raises(SpecError, match="refers to itself through a YAML alias"):
        load_spec(path)


def test_a_weight_given_on_the_command_line_replaces_the_spec_s_without_analysing_the_old_one():
    # the old weight column became an analysed continuous variable (it entered il1s, the moments, ...)
    from infoloss.spec import apply_overrides, spec_from_dict

    spec = spec_from_dict({"variables": {"inc": {"scale": "continuous"}, "w": {"role": "weight"}}})
    out = apply_overrides(spec, weight="w2")
    assert out.weight == "w2"
    assert [v.name for v in out.analysed] == ["inc"]
    assert out.variables["w"].role == "weight"  # a further weight column: neither analysed nor used


def test_a_variable_named_as_a_number_and_as_text_is_listed_twice(tmp_path):
    with pytest.raises(SpecError, match=r"variable '1' is listed twice in 'variables' \(as '1' and as 1\)"):
        spec_from_dict({"variables": {1: {"scale": "nominal"}, "1": {"scale": "continuous"}}})
    (tmp_path / "s.yaml").write_text("variables:\n  1: {scale: nominal}\n  '1': {scale: continuous}\n")
    with pytest.raises(SpecError, match="listed twice"):
        load_spec(tmp_path / "s.yaml")


def test_a_spec_name_that_differs_from_a_column_only_in_its_unicode_form_says_so():
    # "(did you mean 'Région'?)" showed a name that looks the same (found by an audit)
    import unicodedata

    from infoloss.analyses.spec import parse_analyses
    from infoloss.spec import check_columns

    composed, decomposed = (unicodedata.normalize(form, "Région") for form in ("NFC", "NFD"))
    said = r"differs from it only in its Unicode form \('Re\\u0301gion' against 'R\\xe9gion': composed and decomposed"
    spec = spec_from_dict({"variables": {composed: {"scale": "nominal"}, "v": {"scale": "continuous"}}})
    with pytest.raises(SpecError, match=f"variable {composed!r} of the spec is not a column of the original file "
                                        rf"\(the column {decomposed!r} {said}"):
        check_columns(spec, [decomposed, "v"], "original")
    variables = {decomposed: {"scale": "nominal"}, "v": {"scale": "continuous"}}
    with pytest.raises(SpecError, match=said):  # Python reads a name in a formula composed
        spec_from_dict({"variables": variables, "analyses": {"regressions": [{"name": "m",
                                                                              "formula": f"v ~ {composed}"}]}})


@pytest.mark.parametrize("where, settings", [
    ("the spec", {"missing": [[1, 2]]}),
    ("variable 'x'", {"variables": {"x": {"scale": "nominal", "missing": ["", {"a": 2}]}}}),
])
def test_a_nested_list_in_missing_is_refused_as_in_suppressed(where, settings):
    # missing: [[1, 2]] was accepted silently (the code '[1, 2]'), while 'suppressed' refuses it (found by an audit)
    raw = {"variables": {"x": {"scale": "nominal"}}, **settings}
    with pytest.raises(SpecError, match=rf"^'missing' of {where} holds .*, which is not a single value; list each "
                                        r"code on its own, e.g. missing: \['', NA, -99\]\.$"):
        spec_from_dict(raw)


@pytest.mark.parametrize("code", ["1" + "0" * 310, "0x" + "f" * 3700, "[-1" + "0" * 400 + "]"],
                         ids=["decimal", "hex", "in a list"])
def test_a_missing_code_beyond_the_floats_is_refused(tmp_path, code):
    # float() overflowed (exit 1), and a long hex number passed the 4,300-digit check of the YAML reader but not
    # str() (found by the hostile-input audit)
    spec = tmp_path / "s.yaml"
    spec.write_text(f"variables:\n  x: {{scale: continuous}}\nmissing: {code}\n")
    with pytest.raises(SpecError, match=r"'missing' of the spec holds a whole number beyond ±1.8e308"):
        load_spec(spec)
