"""The Python API a careful user relies on: never overwriting an input, fully suppressed columns,
clear messages for a wrong separator or pairing column, and what a notebook shows of a report."""

from __future__ import annotations

import hashlib
import inspect
import json
import math
import os
import pydoc
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

import infoloss
from infoloss.errors import InputError, SpecError
from infoloss.io import read_table
from infoloss.pair import encode_pair
from infoloss.registry import get, registered
from infoloss.spec import apply_overrides, load_spec, spec_from_dict

DATA = Path(__file__).resolve().parent / "data"


def _sha(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _frames(n: int = 50, seed: int = 4) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    orig = pd.DataFrame(
        {
            "region": rng.choice(["north", "south", "east"], n),
            "sex": rng.choice(["f", "m"], n),
            "educ": rng.integers(0, 4, n),
            "x": rng.normal(10, 2, n).round(3),
            "y": rng.normal(0, 1, n).round(3),
        }
    )
    prot = orig.copy()
    prot["x"] = (prot["x"] + rng.normal(0, 0.5, n)).round(3)
    prot.loc[[1, 4, 9], "sex"] = None
    return orig, prot


SPEC = {
    "variables": {
        "region": {"scale": "nominal", "role": "key"},
        "sex": {"scale": "nominal", "role": "key"},
        "educ": {"scale": "ordinal"},
        "x": {"scale": "continuous"},
        "y": {"scale": "continuous"},
    }
}


@pytest.fixture()
def files(tmp_path):
    orig, prot = _frames()
    (tmp_path / "matrices").mkdir()
    paths = {
        "orig": tmp_path / "orig.csv",
        "prot": tmp_path / "prot.csv",
        "spec": tmp_path / "spec.yaml",
        "pram": tmp_path / "matrices" / "sex.csv",
        "hier": tmp_path / "region_hierarchy.csv",
    }
    orig.to_csv(paths["orig"], index=False)
    prot.to_csv(paths["prot"], index=False)
    paths["pram"].write_text(",f,m\nf,0.9,0.1\nm,0.1,0.9\n")
    paths["hier"].write_text("north;*\nsouth;*\neast;*\n")
    spec = json.loads(json.dumps(SPEC))
    spec["variables"]["sex"]["pram"] = "matrices/sex.csv"
    spec["variables"]["region"]["hierarchy"] = "region_hierarchy.csv"
    paths["spec"].write_text(yaml.safe_dump(spec))
    return paths


def test_compare_says_a_dataframe_or_a_path_is_accepted(files):
    # "must be a pandas DataFrame, got bytes" left out that compare also reads a path (found by the hostile-input
    # audit)
    for original, protected, which, got in ((bytes(files["orig"]), files["prot"], "original", "bytes"),
                                            (files["orig"], 5, "protected", "int")):
        with pytest.raises(InputError, match=rf"^the {which} data must be a pandas DataFrame or the path of a data "
                                             rf"file \(text or pathlib\.Path\), got {got}\.$"):
            infoloss.compare(original, protected, files["spec"], measures=["suppressions"])


# ---------------------------------------------------------------------------
# never overwrite an input
# ---------------------------------------------------------------------------
def test_report_remembers_every_file_it_read(files):
    report = infoloss.compare(files["orig"], [files["prot"]], files["spec"], measures=["suppressions"])
    expected = {files[k].resolve() for k in ("orig", "prot", "spec", "pram", "hier")}
    assert set(report.inputs) == expected


@pytest.mark.parametrize("target", ["orig", "prot", "spec", "pram", "hier"])
@pytest.mark.parametrize("writer", ["to_json", "to_html"])
def test_report_refuses_to_write_over_any_input(files, target, writer):
    report = infoloss.compare(str(files["orig"]), [str(files["prot"])], str(files["spec"]), measures=["suppressions"])
    before = {k: _sha(p) for k, p in files.items()}
    listing = sorted(os.listdir(files["orig"].parent))
    with pytest.raises(InputError, match="is one of the input files"):
        getattr(report, writer)(files[target])
    assert {k: _sha(p) for k, p in files.items()} == before
    assert sorted(os.listdir(files["orig"].parent)) == listing  # no temporary file left behind


def test_inputs_are_protected_whatever_the_spelling_of_the_path(files, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    report = infoloss.compare("orig.csv", "prot.csv", "spec.yaml", measures=["suppressions"])
    elsewhere = tmp_path / "matrices"
    monkeypatch.chdir(elsewhere)  # the working folder changes after the comparison
    for spelling in (files["orig"], "../orig.csv", elsewhere / ".." / "prot.csv"):
        with pytest.raises(InputError):
            report.to_json(spelling)
    os.link(files["orig"], tmp_path / "hardlink.json")
    os.symlink(files["spec"], tmp_path / "symlink.json")
    for alias in ("hardlink.json", "symlink.json"):
        with pytest.raises(InputError, match="is one of the input files"):
            report.to_json(tmp_path / alias)
    assert _sha(files["orig"]) == _sha(tmp_path / "hardlink.json")


def test_extra_protected_paths_and_a_normal_write(files, tmp_path, monkeypatch):
    report = infoloss.compare(files["orig"], files["prot"], files["spec"], measures=["suppressions"])
    other = tmp_path / "keep.txt"
    other.write_text("keep")
    with pytest.raises(InputError):
        report.to_json(other, protect=[other])
    # one path alone, as text or a Path: "keep.txt" was read as the paths "k", "e", ... and written over
    monkeypatch.chdir(tmp_path)
    for one in ("keep.txt", Path("keep.txt"), str(other)):
        for write in (report.to_json, report.to_html):
            with pytest.raises(InputError, match="is one of the input files"):
                write("keep.txt", protect=one)
    for wrong in ([None], 5, [5]):
        with pytest.raises(InputError, match="protect must be a path or a list of paths"):
            report.to_json(tmp_path / "x.json", protect=wrong)
    assert other.read_text() == "keep"
    out = tmp_path / "result.json"
    text = report.to_json(out)
    assert out.read_text(encoding="utf-8") == text
    assert json.loads(text)["scenarios"][0]["measures"]["suppressions"]["value"] == 3.0


def test_a_report_from_dataframes_protects_nothing_it_did_not_read(tmp_path):
    orig, prot = _frames()
    report = infoloss.compare(orig, prot, SPEC, measures=["suppressions"])
    assert report.inputs == []
    report.to_json(tmp_path / "r.json")
    assert (tmp_path / "r.json").exists()


def test_cli_leaves_no_output_when_a_later_write_fails(files, tmp_path, monkeypatch):
    """The HTML is written first; when the JSON cannot be written, the new HTML file is removed again."""
    import infoloss._files as files_module
    from infoloss.cli import app

    real = files_module.write_atomic

    def failing(path, data, *, protect=()):
        if str(path).endswith(".json"):
            raise InputError(f"cannot write {path}: no space left on device.")
        return real(path, data, protect=protect)

    monkeypatch.setattr(files_module, "write_atomic", failing)
    html, js = tmp_path / "r.html", tmp_path / "r.json"
    result = CliRunner().invoke(app, ["compare", str(files["orig"]), str(files["prot"]), "--spec", str(files["spec"]),
                                      "--measures", "suppressions", "--html", str(html), "--json", str(js)])
    assert result.exit_code == 2 and "no space left" in result.stderr
    assert not html.exists() and not js.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


# ---------------------------------------------------------------------------
# pram paths are checked when the spec is loaded
# ---------------------------------------------------------------------------
def test_missing_pram_file_is_a_spec_error_naming_variable_and_path(tmp_path):
    spec_file = tmp_path / "spec.yaml"
    spec_file.write_text("variables:\n  sex: {scale: nominal, pram: matrices/sex.csv}\n")
    with pytest.raises(SpecError, match="'pram' file of variable 'sex'") as info:
        load_spec(spec_file)
    assert str(tmp_path / "matrices" / "sex.csv") in str(info.value)
    (tmp_path / "matrices").mkdir()
    with pytest.raises(SpecError, match="is a folder"):
        spec_from_dict({"variables": {"sex": {"scale": "nominal", "pram": "matrices"}}}, base_dir=tmp_path)
    (tmp_path / "matrices" / "sex.csv").write_text(",f,m\nf,1,0\nm,0,1\n")
    assert load_spec(spec_file).variables["sex"].pram == tmp_path / "matrices" / "sex.csv"


def test_empty_lines_in_the_spec_mean_nothing_listed():
    spec = spec_from_dict({"variables": {"a": {"scale": "ordinal", "missing": None, "order": None}}, "missing": None})
    assert spec.variables["a"].missing == [] and spec.variables["a"].order is None and spec.missing == []
    with pytest.raises(SpecError, match="'recode: breaks' of variable 'a' has .nan, which is not a break"):
        spec_from_dict({"variables": {"a": {"scale": "continuous", "recode": {"breaks": [0, float("nan")]}}}})
    with pytest.raises(SpecError, match="'recode: breaks' of variable 'a' must be a list of at least two numbers"):
        spec_from_dict({"variables": {"a": {"scale": "continuous", "recode": {"breaks": [0]}}}})


def test_a_spec_with_a_byte_order_mark_loads(tmp_path):
    path = tmp_path / "spec.yaml"
    path.write_bytes("variables:\n  région: {scale: nominal}\n".encode("utf-8-sig"))
    assert list(load_spec(path).variables) == ["région"]


# ---------------------------------------------------------------------------
# fully suppressed columns
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("column", ["region", "educ", "x"])
def test_a_column_missing_in_every_protected_record_is_allowed(column):
    orig, prot = _frames()
    prot[column] = np.nan
    pair = encode_pair(orig, prot, SPEC)
    if column == "x":
        assert np.isnan(pair.continuous["x"].prot).all()
    else:
        assert (pair.categorical[column].prot == -1).all()
        assert len(pair.categorical[column].categories) == orig[column].nunique()  # the original's categories
    report = infoloss.compare(orig, prot, SPEC)
    scenario = report.scenarios[0]
    n = len(orig)
    assert scenario.measures["suppressions"].by_variable[column] == n
    assert scenario.measures["records_changed"].details["records_with_change"] == n  # every record lost a value
    assert set(scenario.measures) | set(scenario.not_computed) == {m.id for m in registered()}
    for mid, result in scenario.measures.items():
        low, high = get(mid).range
        assert math.isfinite(result.value), mid
        assert (low is None or result.value >= low - 1e-9) and (high is None or result.value <= high + 1e-9), mid


def test_suppressed_column_written_with_missing_codes_or_as_text():
    orig, prot = _frames()
    spec = dict(SPEC, missing=["", "NA", "."])
    pair = encode_pair(orig, prot.assign(region=".", educ="."), spec)
    assert (pair.categorical["region"].prot == -1).all() and (pair.categorical["educ"].prot == -1).all()
    # an all-missing original column stays an error, and real text against numbers too
    with pytest.raises(InputError, match="missing in every record of the original file"):
        encode_pair(orig.assign(region=np.nan), prot, SPEC)
    with pytest.raises(InputError, match="'educ' holds numbers in the original file but text in the protected file"):
        encode_pair(orig, prot.assign(educ="high"), SPEC)


def test_suppressed_column_read_from_a_file(tmp_path):
    orig, prot = _frames()
    orig.to_csv(tmp_path / "o.csv", index=False)
    prot.assign(region=None).to_csv(tmp_path / "p.csv", index=False)
    report = infoloss.compare(tmp_path / "o.csv", tmp_path / "p.csv", SPEC, measures=["suppressions"])
    assert report.scenarios[0].measures["suppressions"].by_variable["region"] == len(orig)


# ---------------------------------------------------------------------------
# separator mismatch and the pairing column
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("written, declared, word", [(",", ";", "comma"), (";", ",", "semicolon"), ("\t", ",", "tab"),
                                                      ("|", ";", "pipe")])
def test_separator_mismatch_names_the_real_problem(tmp_path, written, declared, word):
    path = tmp_path / "d.csv"
    _frames()[0].to_csv(path, index=False, sep=written)
    spec = spec_from_dict({"separator": declared})
    with pytest.raises(InputError, match=f"looks {word}-separated \\(5 columns in its header\\) but the spec says"):
        read_table(path, spec)
    assert read_table(path).shape == (50, 5)


def test_single_column_files_are_not_a_separator_mismatch(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text('"income, net"\n1\n2\n')
    assert list(read_table(path, spec_from_dict({"separator": ";"})).columns) == ["income, net"]
    path.write_text("income\n1\n2\n")
    assert read_table(path, spec_from_dict({"separator": ";"}))["income"].tolist() == [1, 2]


def test_latin1_header_with_numeric_data(tmp_path):
    path = tmp_path / "l.csv"
    path.write_bytes("Région;poids\n1;2\n3;4\n".encode("latin-1"))
    assert list(read_table(path).columns) == ["Région", "poids"]


def test_pairing_column_from_the_command_line_is_not_called_a_spec_variable():
    orig, prot = _frames()
    spec = apply_overrides(spec_from_dict(SPEC), pairing="nosuchcol")
    with pytest.raises(InputError) as info:
        encode_pair(orig, prot, spec)
    message = str(info.value)
    assert "the pairing id column 'nosuchcol' is not a column of the original file" in message
    assert "of the spec" not in message


def test_every_variable_removed_is_measured_not_a_crash():
    """GDU has a meaning (all utility lost); record-level measures say why they are not computed."""
    orig, prot = _frames()
    spec = {"variables": {"region": {"scale": "nominal", "removed": True}, "x": {"scale": "continuous", "removed": True}}}
    scenario = infoloss.compare(orig, prot.drop(columns=["region", "x"]), spec).scenarios[0]
    assert scenario.measures["gdu"].value == 0.0
    assert "every variable was removed" in scenario.not_computed["lambda"]


# ---------------------------------------------------------------------------
# the notebook user's API
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def report():
    orig, prot = _frames()
    other = prot.assign(y=prot["y"] * 1.5, region=prot["region"].where(prot.index % 3 > 0))
    return infoloss.compare(orig, [prot, other], SPEC, names=["light", "<i>strong</i>"],
                            measures=["suppressions", "il1s", "s_mse", "pmse", "hellinger", "eigen", "gdu"])


def test_to_frame_has_one_row_per_value(report):
    frame = report.to_frame()
    assert list(frame.columns) == ["scenario", "measure", "family", "variable", "pair", "value"]
    doc = report.to_dict()
    expected = []
    for s in doc["scenarios"]:
        for mid in report.measure_ids:
            if mid not in s["measures"]:
                continue
            m, family = s["measures"][mid], get(mid).family
            expected.append((s["name"], mid, family, None, None, m["value"]))
            expected += [(s["name"], mid, family, k, None, v) for k, v in m.get("by_variable", {}).items()]
            expected += [(s["name"], mid, family, None, k, v) for k, v in m.get("by_pair", {}).items()]
    got = [tuple(None if (isinstance(x, float) and math.isnan(x)) else x for x in row)
           for row in frame.itertuples(index=False, name=None)]
    assert got == expected
    assert frame["value"].dtype == np.float64
    headline = frame[frame["variable"].isna() & frame["pair"].isna()]
    assert len(headline) == sum(len(s.measures) for s in report.scenarios)
    pivot = headline.pivot(index="measure", columns="scenario", values="value")
    assert pivot.loc["suppressions", "light"] == 3.0


def test_repr_is_a_few_lines(report):
    text = repr(report)
    lines = text.splitlines()
    assert len(lines) == 1 + len(report.scenarios)
    assert "50 records" in lines[0] and "7 measures" in lines[0]
    for line, s in zip(lines[1:], report.scenarios):
        assert s.name in line and f"{len(s.measures)} computed" in line
        if s.not_computed:
            assert f"{len(s.not_computed)} not computed" in line and next(iter(s.not_computed)) in line


def test_repr_html_is_the_summary_table_not_the_page(report):
    page = report.to_html()
    small = report._repr_html_()
    assert len(small) < len(page) / 5
    assert "<!DOCTYPE" not in small and "<script" not in small and "<svg" not in small
    assert "<table>" in small
    headline = [m for m in report.measure_ids if get(m).headline]
    assert len(headline) >= 3
    for mid in report.measure_ids:
        assert (f">{mid}<" in small) == (mid in headline)
    assert "light" in small and "&lt;i&gt;strong&lt;/i&gt;" in small and "<i>strong" not in small


def test_dir_lists_the_measure_functions():
    names = dir(infoloss)
    for info in registered():
        assert info.func.__name__ in names
        assert getattr(infoloss, info.func.__name__) is info.func
    assert "lambda_" in names and "compare" in names and "Report" in names


def test_help_shows_the_dataframe_signature():
    text = pydoc.plain(pydoc.render_doc(infoloss.il1s))
    assert "il1s(original: 'pandas.DataFrame | EncodedPair', protected: 'pandas.DataFrame | None' = None" in text
    assert "spec: 'dict | str | pathlib.Path | Spec | None' = None" in text
    params = inspect.signature(infoloss.pmse).parameters
    assert list(params)[:3] == ["original", "protected", "spec"]
    assert params["model"].kind is inspect.Parameter.KEYWORD_ONLY and params["model"].default == "logit"


def test_a_measure_function_takes_a_spec_path(files):
    orig, prot = _frames()
    via_path = infoloss.suppressions(orig, prot, files["spec"])
    via_dict = infoloss.suppressions(orig, prot, SPEC)
    assert via_path.value == via_dict.value == 3.0


def test_unknown_measure_id_is_a_key_error():
    with pytest.raises(KeyError, match="unknown measure 'il1'"):
        get("il1")


# ---------------------------------------------------------------------------
# a propensity measure called with DataFrames fits its model once
# ---------------------------------------------------------------------------
@pytest.fixture()
def fit_counter(monkeypatch):
    from infoloss.measures import propensity

    counts = {"logit": 0, "cart": 0}
    logit, cart = propensity._logit_fit, propensity._cart_pmse

    def counted_logit(*args, **kwargs):
        counts["logit"] += 1
        return logit(*args, **kwargs)

    def counted_cart(*args, **kwargs):
        counts["cart"] += 1
        return cart(*args, **kwargs)

    monkeypatch.setattr(propensity, "_logit_fit", counted_logit)
    monkeypatch.setattr(propensity, "_cart_pmse", counted_cart)
    return counts


@pytest.mark.parametrize("name", ["pmse", "pmse_ratio", "pmse_std"])
def test_one_call_with_dataframes_fits_once(fit_counter, name):
    orig, prot = _frames()
    getattr(infoloss, name)(orig, prot, SPEC)
    assert fit_counter == {"logit": 1, "cart": 0}
    getattr(infoloss, name)(orig, prot, SPEC, model="cart")
    null_trees = 0 if name == "pmse" else 20  # the CART null: one tree per permutation, on the first seed
    assert fit_counter == {"logit": 1, "cart": 3 + null_trees}  # a tree per seed (its tie-breaks follow the seed)


def test_a_shared_pair_fits_once_for_all_three(fit_counter):
    orig, prot = _frames()
    pair = encode_pair(orig, prot, SPEC)
    values = [infoloss.pmse(pair).value, infoloss.pmse_ratio(pair).value, infoloss.pmse_std(pair).value]
    assert fit_counter["logit"] == 1
    e0 = infoloss.pmse_ratio(pair).details["e0"]
    assert values[1] == pytest.approx(values[0] / e0)


def test_column_names_that_are_not_text_are_the_spec_s_text_names():
    """A frame built from an array (columns 0, 1, 2) crashed in the 'did you mean' helper (found by fuzzing)."""
    rng = np.random.default_rng(0)
    a = pd.DataFrame(rng.normal(size=(30, 3)))
    b = a * 1.1
    by_text = infoloss.il1s(a.set_axis(["0", "1", "2"], axis=1), b.set_axis(["0", "1", "2"], axis=1)).value
    assert infoloss.compare(a, b, measures=["il1s"]).value("il1s") == by_text
    assert infoloss.il1s(a, b, {"variables": {0: {"scale": "continuous"}}}).value == pytest.approx(
        infoloss.il1s(a[[0]].set_axis(["0"], axis=1), b[[0]].set_axis(["0"], axis=1)).value)
    assert list(a.columns) == [0, 1, 2]  # the caller's frame keeps its names
    odd = pd.DataFrame(rng.normal(size=(30, 3)), columns=[None, 1.5, True])
    assert infoloss.compare(odd, odd * 1.1, measures=["il1s"]).value("il1s") > 0
    with pytest.raises(InputError, match="2 levels \\(a MultiIndex\\); give each column one name"):
        infoloss.compare(a.set_axis(pd.MultiIndex.from_tuples([("a", 1), ("a", 2), ("b", 1)]), axis=1), b)
    with pytest.raises(InputError, match="two columns named '1' once written as text"):
        infoloss.compare(a.set_axis([0, 1, "1"], axis=1), b)
    with pytest.raises(InputError, match="variable 'zz' of the spec is not a column of the original file"):
        infoloss.compare(a, b, {"variables": {"zz": {"scale": "continuous"}}})


def _fuzz_frame(n=40):
    rng = np.random.default_rng(0)
    return pd.DataFrame({"g": rng.choice(list("abc"), n), "x": rng.normal(50, 10, n), "y": rng.gamma(2, 100, n)})


FUZZ_SPEC = {"variables": {"g": {"scale": "nominal", "role": "key"}, "x": {"scale": "continuous"},
                           "y": {"scale": "continuous"}}}


@pytest.mark.parametrize("call, message", [
    (lambda o: infoloss.compare(o, o.copy(), FUZZ_SPEC, measures=[None]), "unknown measure None: measure ids are text"),
    (lambda o: infoloss.compare(o, o.copy(), FUZZ_SPEC, measures=5), "measures must be measure ids"),
    (lambda o: infoloss.compare(o, o.copy(), FUZZ_SPEC, measures=["il1s"], options={"il1s": None}),
     "the options of measure 'il1s' must be a mapping"),
    (lambda o: infoloss.compare(o, o.copy(), FUZZ_SPEC, measures=["il1s"], options=[1]), "options must be a mapping"),
    (lambda o: infoloss.compare(o, o.copy(), ["x"]), "the spec must be a mapping \\(dict\\), a Spec or the path"),
    (lambda o: infoloss.compare(o, o.copy(), FUZZ_SPEC, risk_utility="x"), "the risk-utility choice must be a mapping"),
    (lambda o: infoloss.compare(o, o.copy(), FUZZ_SPEC, names=5), "names must be a list with one name per protected"),
    (lambda o: infoloss.il1s(o, None, FUZZ_SPEC), "pass the original and the protected DataFrame"),
    (lambda o: infoloss.compare(o.assign(x=o.x + 1j), o, FUZZ_SPEC), "'x' holds complex numbers in the original file"),
    (lambda o: infoloss.compare(o.assign(w=1 + 0j), o.assign(w=1.0),
                                {"variables": {**FUZZ_SPEC["variables"], "w": {"role": "weight"}}}),
     "the weight column 'w' of the original file holds complex numbers"),
])
def test_arguments_of_the_wrong_kind_are_input_errors(call, message):
    """Found by fuzzing the API: each was a TypeError, AttributeError or ValueError (or, for complex numbers, a
    warning and the imaginary parts dropped)."""
    with pytest.raises(InputError, match=message):
        call(_fuzz_frame())


def test_a_value_that_is_not_finite_makes_the_measure_not_computed_not_the_comparison_fail():
    with pytest.raises(infoloss.NotComputed, match=r"its value is not a finite number \(nan\)"):
        infoloss.MeasureResult(float("nan"))
    o = _fuzz_frame()
    report = infoloss.compare(o, o.assign(x=o.x + 1), FUZZ_SPEC, measures=["cluster_f_weighted", "il1s"],
                              options={"cluster_f_weighted": {"w": 1e308}})
    assert "not a finite number" in report.scenarios[0].not_computed["cluster_f_weighted"]
    assert report.value("il1s") > 0
    # details that are not finite are None in the measure's own dict, as in the report's: strict JSON
    result = infoloss.MeasureResult(1.0, details={"a": float("nan"), "b": np.float64(2), "c": np.array([1, np.inf])})
    assert result.to_dict() == {"value": 1.0, "details": {"a": None, "b": 2.0, "c": [1.0, None]}}
    json.dumps(result.to_dict(), allow_nan=False)


def test_report_of_denormal_values_and_tiny_option_bounds_draws_without_warnings():
    import warnings

    o = _fuzz_frame()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        infoloss.compare(o, o.assign(x=np.arange(len(o)) * 5e-324), FUZZ_SPEC, measures=["il1s"]).to_html()
        infoloss.compare(o, o.assign(x=o.x + 1), FUZZ_SPEC, measures=["x_mv"],
                         options={"x_mv": {"bound": 5e-324}}).to_html()


def test_scenario_names_that_look_the_same_are_told_apart():
    # "s" and "s " (or a zero-width space) read as the same name in the verdict; a zero-width name was accepted
    from infoloss.compare import _scenario_names
    from infoloss.errors import InputError

    # given names that read the same are refused; file stems that do are numbered
    with pytest.raises(InputError, match="'s' was given twice"):
        _scenario_names(["a", "b"], ["s", "s "])
    with pytest.raises(InputError, match="was given twice"):
        _scenario_names(["a", "b"], ["x\u200b", "x"])
    assert _scenario_names(["p/s.csv", "q/s .csv"], None) == ["s (1)", "s  (2)"]
    with pytest.raises(InputError, match="is empty"):
        _scenario_names(["a"], ["\u200b"])
    # "original" names the original in the report and on the map
    with pytest.raises(InputError, match="'original' names the original file"):
        _scenario_names(["a"], ["original"])
    assert _scenario_names(["other/original.csv"], None) == ["original (protected)"]


def test_report_helpers_refuse_bad_arguments_in_one_sentence():
    orig = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    rep = infoloss.compare(orig, orig.assign(x=orig["x"] + 1), {"variables": {"x": {"scale": "continuous"}}},
                           measures=["il1s"], names=["noisy"])
    assert rep.value("il1s", "noisy") == rep.value("il1s", 0) == rep.value("il1s", -1)
    with pytest.raises(InputError, match=r"unknown measure 'IL1S' \(did you mean 'il1s'\?\)"):
        rep.value("IL1S")  # a typo returned None, as if not computed
    with pytest.raises(InputError, match=r"there is no scenario 5: the report has 1 \('noisy'\)"):
        rep.value("il1s", 5)
    with pytest.raises(InputError, match=r"there is no scenario 'other'; the scenarios are 'noisy'"):
        rep.scenario("other")
    for bad in ("5", float("nan"), 0, True):
        with pytest.raises(InputError, match="min_cell must be a whole number of at least 1"):
            rep.to_dict(safe=True, min_cell=bad)
    with pytest.raises(InputError, match="safe must be True or False, got None"):
        rep.to_html(safe=None)
    with pytest.raises(InputError, match="progress must be a function"):
        infoloss.compare(orig, orig, {"variables": {"x": {"scale": "continuous"}}}, measures=["il1s"], progress=5)


def test_a_spec_with_numpy_numbers_is_read_and_written_with_plain_ones():
    # a spec built with pandas or numpy has numpy scalars: checked as numbers, and written back by to_yaml
    spec = spec_from_dict({"variables": {"y": {"scale": "continuous", "missing": [np.int64(-9)]},
                                         "g": {"scale": "nominal"}},
                           "analyses": {"ci": {"replicates": np.int64(50), "level": np.float32(0.9)},
                                        "estimates": [{"statistic": "median", "variable": "y", "by": ["g"]}]}})
    assert spec.analyses["ci"] == {"replicates": 50, "level": 0.9}
    assert type(spec.analyses["ci"]["replicates"]) is int and spec.variables["y"].missing == [-9]
    assert "ci: {replicates: 50, level: 0.9}" in spec.to_yaml()


def test_read_table_takes_a_spec_dict_or_path_and_infer_spec_wants_a_frame(tmp_path):
    # AttributeError: 'dict' object has no attribute 'missing' / 'str' object has no attribute 'columns' (found by
    # the hostile-input audit)
    path = tmp_path / "d.csv"
    pd.DataFrame({"age": [20, 30, -99], "sex": ["m", "f", "m"]}).to_csv(path, index=False)
    spec = {"variables": {"age": {"scale": "continuous", "missing": [-99]}}}
    (tmp_path / "s.yaml").write_text("variables:\n  age: {scale: continuous, missing: [-99]}\n")
    for given in (spec, tmp_path / "s.yaml", str(tmp_path / "s.yaml")):
        assert infoloss.read_table(path, given)["age"].isna().tolist() == [False, False, True]
    with pytest.raises(InputError, match="the spec must be a mapping"):
        infoloss.read_table(path, 5)
    for wrong in (str(path), None):
        with pytest.raises(InputError, match="infer_spec needs a DataFrame"):
            infoloss.infer_spec(wrong)
    with pytest.raises(InputError, match="has the column 'a' twice"):
        infoloss.infer_spec(pd.DataFrame([[1, 2]], columns=["a", "a"]))


def test_yaml_text_given_as_the_spec_and_a_sheet_without_records_are_one_sentence(tmp_path):
    # "cannot read the spec file variables:\n  x: ...: No such file or directory", and a workbook with a note on its
    # first sheet and the data on the second "has no records" without a word on sheets (hostile-input audit)
    import openpyxl

    df = pd.DataFrame({"x": [1.0, 2.0, 3.0]})
    with pytest.raises(SpecError, match="the spec given is YAML text, not the path of a file"):
        infoloss.compare(df, df.copy(), "variables:\n  x: {scale: continuous}\n")
    wb = openpyxl.Workbook()
    wb.active["A1"] = "Survey 2024, see the sheet 'data'"
    data = wb.create_sheet("data")
    data.append(["x"])
    data.append([1.0])
    wb.save(tmp_path / "o.xlsx")
    with pytest.raises(InputError, match=r"the first sheet \('Sheet'\) of the original file .* holds no records; "
                                         "infoloss reads the first sheet only"):
        infoloss.read_table(tmp_path / "o.xlsx")


def test_a_named_index_is_a_column_as_in_a_parquet_file_pandas_wrote():
    # df.set_index('id') dropped the ids: a shuffled protected frame was paired by position (il1s 0.82 instead
    # of 0.0006) and set_index('sex') left sex out (found by the hostile-input audit)
    rng = np.random.default_rng(1)
    orig = pd.DataFrame({"id": range(120), "inc": rng.normal(3e4, 1e4, 120), "sex": rng.choice(["m", "f"], 120)})
    prot = orig.assign(inc=orig["inc"] + rng.normal(0, 10, 120))
    shuffled = prot.sample(frac=1, random_state=1)
    with pytest.raises(infoloss.InputError, match="shows the protected file's records in another order"):
        infoloss.compare(orig.set_index("id"), shuffled.set_index("id"), measures=["il1s"])
    spec = {"variables": {"id": {"role": "id"}, "inc": {"scale": "continuous"}}, "pairing": {"by": "id"}}
    by_id = infoloss.compare(orig.set_index("id"), shuffled.set_index("id"), spec, measures=["il1s"])
    assert by_id.value("il1s") == pytest.approx(infoloss.compare(orig, prot, spec, measures=["il1s"]).value("il1s"))
    report = infoloss.compare(orig.set_index("sex"), prot.set_index("sex"), measures=["il1s"])
    assert "sex" in report.to_dict()["original"]["variables"]
    assert "sex" in infoloss.infer_spec(orig.set_index("sex")).variables  # as compare reads the frame
    unnamed = infoloss.compare(orig.set_index("id").reset_index(drop=True), prot.drop(columns="id"), measures=["il1s"])
    assert "index" not in unnamed.to_dict()["original"]["variables"]
    with pytest.raises(infoloss.InputError, match="'inc' both as the name of its index and as a column"):
        infoloss.il1s(orig.set_index(orig["inc"].rename("inc")), prot)
