"""The risk-utility map, per-record files, the command line and the report's risk parts."""

import json
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import infoloss
from infoloss.cli import app
from infoloss.errors import InputError
from infoloss.pair import ORIGINAL, PROTECTED, encode_pair
from infoloss.registry import MeasureResult
from infoloss.report.risk import merge_joint
from infoloss.risk.files import file_risk
from infoloss.risk.rumap import risk_utility
from infoloss.spec import SpecError, apply_overrides, load_spec, spec_from_dict

DATA = Path(__file__).resolve().parent / "data" / "testdata"
FILES = [str(DATA / f"{f}.csv") for f in ("ls_k3", "recode_pram_noise50", "recode_mdav3_ls_k3")]
RISK_MEASURES = ["global_risk", "k_anonymity_violations", "suda_dis", "l_diversity", "household_risk", "lambda"]


def fake_report(points):
    """A report-like object: scenarios with a risk measure and a loss measure (lambda)."""
    scenarios = []
    for name, risk, loss in points:
        scenarios.append(SimpleNamespace(
            name=name, not_computed={},
            measures={"global_risk": MeasureResult(risk, details={"original": {"value": 0.5}}),
                      "lambda": MeasureResult(loss)}))
    return SimpleNamespace(scenarios=scenarios, measure_ids=["global_risk", "lambda"])


def test_pareto_front_and_the_two_rules_by_hand():
    report = fake_report([("A", 0.10, 0.30), ("B", 0.20, 0.10), ("C", 0.25, 0.20), ("D", 0.05, 0.50)])
    block = risk_utility(report, {"max_risk": 0.2, "max_loss": 0.25})
    pareto = {p["name"]: p["pareto"] for p in block["points"]}
    assert pareto == {"original": True, "A": True, "B": True, "C": False, "D": True}  # C: B is better on both
    assert block["pareto_front"] == ["D", "A", "B", "original"]
    assert block["points"][0] == {"name": "original", "original": True, "risk": 0.5, "loss": 0.0,
                                  "utility_value": 0.0, "pareto": True}
    rule = block["decisions"]["max_risk"]
    assert rule["ranking"] == ["B", "A", "D"] and rule["choice"] == "B"  # least loss with risk <= 0.2
    assert rule["original_within"] is False
    rule = block["decisions"]["max_loss"]
    assert rule["ranking"] == ["B", "C"] and rule["choice"] == "B"  # least risk with loss <= 0.25
    one = risk_utility(report, {"max_risk": 0.05})["decisions"]["max_risk"]
    assert one["reason"].startswith("1 of 4 scenarios has risk at most 0.05; D has")  # "1 of 4 scenarios have"
    none = risk_utility(report, {"max_risk": 0.01})["decisions"]["max_risk"]
    assert none["choice"] is None and "lowest is 0.05" in none["reason"]
    assert risk_utility(report)["decisions"]["max_loss"]["choice"] is None


def test_loss_is_the_distance_from_the_ideal():
    report = fake_report([("A", 0.1, 0.3)])
    report.measure_ids.append("gdu")
    report.scenarios[0].measures["gdu"] = MeasureResult(0.8)
    block = risk_utility(report)
    assert block["utility_measure"] == "gdu" and block["loss_definition"] == "loss = 1 − gdu"
    assert block["points"][1]["loss"] == pytest.approx(0.2)


@pytest.mark.parametrize("choice,message", [
    ({"risk": "gdu"}, "risk family"),
    ({"utility": "global_risk"}, "not of the risk family"),
    ({"risk": "nope"}, "not a measure; 'infoloss measures' lists them"),
    ({"risk": "global_riks"}, r"not a measure \(did you mean 'global_risk'\?\)"),  # no suggestion (docs audit)
    ({"utility": "GDU"}, r"not a measure \(did you mean 'gdu'\?\)"),
    ({"max_risk": -1}, "at least 0"),
    ({"colour": 1}, "unknown risk-utility setting"),
])
def test_bad_choices_are_one_sentence(choice, message):
    with pytest.raises(InputError, match=message):
        risk_utility(fake_report([("A", 0.1, 0.2)]), choice)


def test_no_risk_measure_means_no_map():
    report = SimpleNamespace(scenarios=[SimpleNamespace(name="A", measures={"lambda": MeasureResult(0.1)},
                                                        not_computed={})], measure_ids=["lambda"])
    block = risk_utility(report)
    assert block == {"available": False, "reason": block["reason"]} and "risk measure" in block["reason"]


@pytest.fixture(scope="module")
def testdata_report():
    spec = load_spec(DATA / "spec.yaml")
    spec.variables["ori_hid"].role = "household"
    spec.variables["hhcivil"].role = "sensitive"
    return infoloss.compare(str(DATA / "original.csv"), FILES, spec, measures=RISK_MEASURES,
                            risk_utility={"max_risk": 0.015, "max_loss": 0.3})


def test_the_json_has_a_risk_utility_block_and_no_per_record_values(testdata_report):
    out = json.loads(testdata_report.to_json())
    block = out["risk_utility"]
    assert block["risk_measure"] == "global_risk" and block["utility_measure"] == "lambda"
    assert [p["name"] for p in block["points"]] == ["original", "ls_k3", "recode_pram_noise50", "recode_mdav3_ls_k3"]
    assert block["decisions"]["max_risk"]["choice"] == "recode_mdav3_ls_k3"

    def longest_list(obj):
        if isinstance(obj, dict):
            return max([longest_list(v) for v in obj.values()] + [0])
        if isinstance(obj, list):
            return max([len(obj)] + [longest_list(v) for v in obj])
        return 0

    assert longest_list(out) < 100  # nothing per record (4,580 records)
    assert testdata_report.risk_utility(risk="k_anonymity_violations")["risk_measure"] == "k_anonymity_violations"


def test_the_risk_utility_map_is_the_first_chart_of_the_report(testdata_report):
    html = testdata_report.to_html()
    first_svg = re.search(r"<svg[^>]*aria-label=\"([^\"]*)\"", html).group(1)
    assert first_svg == "risk-utility map"
    assert html.index('id="verdict"') < html.index('id="risk-utility"') < html.index('id="overview"')
    assert "Disclosure risk per file" in html and "distribution of DIS-SUDA scores" in html
    assert "l-diversity of the sensitive variables" in html


def test_safe_report_merges_small_counts(testdata_report):
    html = testdata_report.to_html(safe=True, min_cell=10)
    for table in ("dis", "ldiv"):
        for body in re.findall(rf'<table class="measures {table}">.*?</table>', html, flags=re.S):
            cells = [int(c) for c in re.findall(r'data-count="(\d+)"', body)]
            assert cells and all(c == 0 or c >= 10 for c in cells)
    assert "fewer than 10" in html  # e.g. Fk < 2: small counts are not printed
    assert "record_linkage" not in html


def test_merge_joint():
    labels, cols = merge_joint(list("abcde"), [[5, 1, 1, 5, 0], [0, 0, 0, 9, 2]], 3)
    assert labels == ["a", "b … e"] and cols == [[5, 7], [0, 11]]  # e (2 < 3) is last: it joins the row before
    labels, cols = merge_joint(list("abcd"), [[5, 1, 4, 0], [0, 0, 6, 3]], 3)
    assert labels == ["a", "b … c", "d"] and cols == [[5, 5, 0], [0, 6, 3]]


def test_records_files(tmp_path, testdata_report):
    spec = load_spec(DATA / "spec.yaml")
    spec.variables["hhcivil"].role = "sensitive"
    infoloss.compare(str(DATA / "original.csv"), FILES[:1], spec, measures=["global_risk"], records_dir=tmp_path,
                     aggregates=False, statistics=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["records_ls_k3.csv", "records_original.csv"]
    table = pd.read_csv(tmp_path / "records_ls_k3.csv")
    pair = encode_pair(pd.read_csv(DATA / "original.csv"), pd.read_csv(FILES[0]), spec)
    np.testing.assert_array_equal(table["fk"], file_risk(pair, PROTECTED).fk)
    np.testing.assert_allclose(table["individual_risk"], file_risk(pair, PROTECTED).risk)
    assert table["row"].tolist() == list(range(1, 4581))
    assert {"suda_score", "dis_score", "l_hhcivil_distinct", "t_hhcivil", "interval_disclosure",
            "record_linkage"} <= set(table.columns)
    original = pd.read_csv(tmp_path / "records_original.csv")
    np.testing.assert_array_equal(original["fk"], file_risk(pair, ORIGINAL).fk)
    assert "record_linkage" not in original


def test_records_file_links_as_the_measure_does_with_missing_values(tmp_path):
    rng = np.random.default_rng(3)
    orig = pd.DataFrame({"x": rng.normal(size=200), "y": rng.normal(size=200)})
    prot = orig + rng.normal(scale=0.5, size=orig.shape)
    orig.loc[rng.choice(200, 10, replace=False), "x"] = np.nan
    prot.loc[rng.choice(200, 30, replace=False), "y"] = np.nan  # suppressed: still candidates for the others
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}}}
    report = infoloss.compare(orig, prot, spec, measures=["record_linkage"], names=["s"], records_dir=tmp_path,
                              aggregates=False, statistics=False)
    linked = pd.read_csv(tmp_path / "records_s.csv")["record_linkage"]
    result = report.scenarios[0].measures["record_linkage"]
    assert linked.notna().sum() == result.details["records_used"]
    assert linked.mean() == pytest.approx(result.value, rel=1e-12)


def test_records_as_parquet(tmp_path):
    df = pd.DataFrame({"a": [1, 1, 2], "b": [1, 2, 2]})
    spec = {"variables": {"a": {"scale": "nominal", "role": "key"}, "b": {"scale": "nominal", "role": "key"}}}
    infoloss.compare(df, [df, df], spec, measures=["sample_uniques"], names=["y", "x"], records_dir=tmp_path,
                     records_format="parquet", aggregates=False, statistics=False)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["records_original.parquet", "records_x.parquet", "records_y.parquet"]
    assert pd.read_parquet(tmp_path / "records_x.parquet")["fk"].tolist() == [1, 1, 1]


def test_records_of_a_scenario_with_a_very_long_name(tmp_path):
    # a 300-character name made a file name too long for the system (OSError), found by fuzzing
    df = pd.DataFrame({"a": [1, 1, 2], "b": [1, 2, 2]})
    spec = {"variables": {"a": {"scale": "nominal", "role": "key"}, "b": {"scale": "nominal", "role": "key"}}}
    infoloss.compare(df, [df, df], spec, measures=["sample_uniques"], names=["x" * 300, "x" * 301], records_dir=tmp_path,
                     aggregates=False, statistics=False)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["records_original.csv", f"records_{'x' * 100}.csv", f"records_{'x' * 100}_2.csv"]


# ---------------------------------------------------------------------------
# command line and spec
# ---------------------------------------------------------------------------
runner = CliRunner()


def cli(*args):
    return runner.invoke(app, ["compare", str(DATA / "original.csv"), *args])


def test_cli_risk_options(tmp_path):
    out = tmp_path / "out.json"
    res = cli(FILES[0], FILES[2], "--spec", str(DATA / "spec.yaml"), "--household", "ori_hid", "--sensitive", "hhcivil",
              "--measures", "global_risk,household_risk,l_diversity,gdu", "--ru", "risk=global_risk,utility=gdu",
              "--max-risk", "0.01", "--max-loss", "0.5", "--records", str(tmp_path / "rec"), "--json", str(out))
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text())
    assert data["risk_utility"]["decisions"]["max_risk"]["choice"] == "recode_mdav3_ls_k3"
    assert data["scenarios"][0]["not_computed"] == {}
    assert len(list((tmp_path / "rec").iterdir())) == 3


@pytest.mark.parametrize("args,message", [
    (["--key", "hhcivil", "--sensitive", "hhcivil", "--nominal", "hhcivil"], "both as a key variable and as a sensitive"),
    (["--ru", "risk=gdu", "--measures", "gdu,global_risk"], "must be a measure of the risk family"),
    (["--ru", "colour=red"], "--ru"),
    (["--ru", "risk=global_risk", "--measures", "gdu"], "not among the measures run"),
    (["--records-format", "xlsx", "--records", "somewhere"], "csv or parquet"),
])
def test_cli_bad_risk_arguments_exit_2(args, message):
    res = cli(FILES[0], "--spec", str(DATA / "spec.yaml"), *args)
    assert res.exit_code == 2
    assert message in res.output and "Traceback" not in res.output


def test_cli_without_key_variables_reports_reasons(tmp_path):
    out = tmp_path / "out.json"
    res = cli(FILES[0], "--measures", "global_risk,suda_dis", "--json", str(out), "--nominal", "roof")
    assert res.exit_code == 0, res.output
    reasons = json.loads(out.read_text())["scenarios"][0]["not_computed"]
    assert set(reasons) == {"global_risk", "suda_dis"} and "role: key" in reasons["global_risk"]


def test_spec_level_and_overrides():
    spec = spec_from_dict({"variables": {"roof": {"scale": "nominal", "role": "key", "level": "household"},
                                         "h": {"role": "household"}}})
    assert spec.variables["roof"].level == "household"
    assert spec.variables["roof"].to_yaml_dict()["level"] == "household"
    with pytest.raises(SpecError, match="level"):
        spec_from_dict({"variables": {"roof": {"scale": "nominal", "level": "street"}}})
    new = apply_overrides(spec, sensitive=["x"], nominal=["x"], household="hh2")
    assert new.variables["x"].role == "sensitive"
    assert new.variables["hh2"].role == "household" and new.variables["h"].role == "id"
    with pytest.raises(SpecError, match="one role"):
        apply_overrides(spec, key=["roof"], sensitive=["roof"])


def test_records_are_written_only_when_every_scenario_succeeds(tmp_path):
    # a later protected file that cannot be used ended the run after the first scenario's files were written
    # over those of an earlier run (found by the hostile-input sweep)
    df = pd.DataFrame({"a": [1, 1, 2], "x": [1.0, 2.0, 3.0]})
    spec = {"variables": {"a": {"scale": "nominal", "role": "key"}, "x": {"scale": "continuous"}}}
    good, bad, records = tmp_path / "good.csv", tmp_path / "bad.csv", tmp_path / "rec"
    df.to_csv(good, index=False)
    df.assign(x="text").to_csv(bad, index=False)
    records.mkdir()
    (records / "records_original.csv").write_text("an earlier run\n")
    with pytest.raises(infoloss.InputError, match=r"the protected file \S*bad\.csv has the text value 'text'"):
        infoloss.compare(df, [str(good), str(bad)], spec, measures=["sample_uniques"], records_dir=records,
                         aggregates=False, statistics=False)
    assert sorted(p.name for p in records.iterdir()) == ["records_original.csv"]
    assert (records / "records_original.csv").read_text() == "an earlier run\n"
    infoloss.compare(df, [str(good)], spec, measures=["sample_uniques"], records_dir=records, aggregates=False,
                     statistics=False)
    assert sorted(p.name for p in records.iterdir()) == ["records_good.csv", "records_original.csv"]
    assert pd.read_csv(records / "records_original.csv")["fk"].tolist() == [2, 2, 1]


def test_a_chosen_measure_computed_for_no_scenario_means_no_map():
    # audit h9b finding 6: available true with no point, and "the lowest is nan"
    report = fake_report([("A", 0.1, 0.2), ("B", 0.2, 0.1)])
    for s in report.scenarios:
        s.not_computed["household_risk"] = "no household id is declared"
    block = risk_utility(report, {"risk": "household_risk", "max_risk": 0.1})
    assert block == {"available": False, "reason": "household_risk was computed for no scenario (A: no household "
                                                   "id is declared), so there is no map to draw."}
    assert "nan" not in json.dumps(block)


def test_a_measure_computed_for_some_scenarios_maps_those_and_the_rules_say_so():
    # audit h9b finding 7 (b): "3 of 3 scenarios" in a report of 4
    report = fake_report([("A", 0.10, 0.30), ("B", 0.20, 0.10), ("C", 0.25, 0.20), ("D", 0.05, 0.50)])
    del report.scenarios[3].measures["global_risk"]
    report.scenarios[3].not_computed["global_risk"] = "no key variables"
    block = risk_utility(report, {"risk": "global_risk", "max_risk": 0.2, "max_loss": 2})
    assert block["available"] and [p["name"] for p in block["points"]] == ["original", "A", "B", "C"]
    assert block["not_on_map"] == {"D": "global_risk not computed: no key variables"}
    tail = " Not on the map, so not in this rule: D (global_risk not computed: no key variables)."
    # by hand: risk <= 0.2: A (loss 0.3), B (0.1) -> B; loss <= 2: A, B, C -> least risk A (0.1)
    assert block["decisions"]["max_risk"]["reason"] == ("2 of the 3 scenarios on the map have risk at most 0.2; B "
                                                        "has the least loss among them (0.1)." + tail)
    assert block["decisions"]["max_loss"]["reason"] == ("3 of the 3 scenarios on the map have loss at most 2; A "
                                                        "has the least risk among them (0.1)." + tail)
    none = risk_utility(report, {"risk": "global_risk", "max_risk": 0.01})["decisions"]["max_risk"]["reason"]
    assert none.startswith("no scenario on the map has risk at most 0.01 (the lowest is 0.1);")


def test_rule_sentences_name_the_scenarios_tied_with_the_choice():
    # audit h9b finding 7 (a): "light has the least loss among them" beside an identical copy
    report = fake_report([("light", 0.1, 0.3), ("copy", 0.1, 0.3), ("other", 0.05, 0.3), ("far", 0.2, 0.6)])
    rule = risk_utility(report, {"max_risk": 0.15})["decisions"]["max_risk"]
    # risk <= 0.15: light, copy, other, all loss 0.3; other has the lower risk, light and copy the same
    assert rule["ranking"] == ["other", "light", "copy"] and rule["choice"] == "other"
    assert rule["reason"] == ("3 of 4 scenarios have risk at most 0.15; other has the least loss among them "
                              "(0.3), tied with light, copy; other has the lower risk.")
    report = fake_report([("light", 0.1, 0.3), ("copy", 0.1, 0.3), ("far", 0.2, 0.6)])
    rule = risk_utility(report, {"max_risk": 0.15})["decisions"]["max_risk"]
    assert rule["reason"].endswith("light has the least loss among them (0.3), tied with copy; light comes first "
                                   "in scenario order.")
    rule = risk_utility(report, {"max_loss": 0.4})["decisions"]["max_loss"]  # least risk 0.1, same loss: order
    assert rule["reason"].endswith("light has the least risk among them (0.1), tied with copy; light comes first "
                                   "in scenario order.")


def test_the_default_utility_measure_is_a_headline_one():
    # audit h9b finding 9: with neither gdu nor lambda, the map took aad, which is not a headline measure
    from infoloss.registry import get

    def report_with(utility):
        scenarios = [SimpleNamespace(name="A", not_computed={}, measures={
            "global_risk": MeasureResult(0.1, details={"original": {"value": 0.5}}), utility: MeasureResult(0.2)})]
        return SimpleNamespace(scenarios=scenarios, measure_ids=["global_risk", utility])

    assert not get("aad").headline and get("hellinger").headline
    block = risk_utility(report_with("aad"))
    assert block["available"] is False and "--ru utility=ID" in block["reason"]
    assert risk_utility(report_with("hellinger"))["utility_measure"] == "hellinger"
    assert risk_utility(report_with("aad"), {"utility": "aad"})["utility_measure"] == "aad"  # chosen: used


def test_a_map_asked_for_but_not_drawable_says_why_on_the_page():
    df = pd.DataFrame({"a": [1, 1, 2, 2, 3, 3], "x": [1.0, 2, 3, 4, 5, 6]})
    spec = {"variables": {"a": {"scale": "nominal", "role": "key"}, "x": {"scale": "continuous"}}}
    asked = infoloss.compare(df, df.copy(), spec, measures=["il1s", "household_risk"],
                             risk_utility={"risk": "household_risk"})
    html = asked.to_html()
    assert asked.risk_utility()["available"] is False
    assert "No map: " in html and "household_risk" in html.split("No map: ", 1)[1][:400]
    plain = infoloss.compare(df, df.copy(), spec, measures=["il1s"])
    assert "No map: " not in plain.to_html()  # not asked for: no section


def test_rule_sentences_print_numbers_by_the_report_s_rule():
    """3 significant digits, as every number of the report ("0.1178" and "0.01205" broke the rule)."""
    report = fake_report([("A", 0.05, 0.11784), ("B", 0.3, 0.01205)])
    block = risk_utility(report, {"risk": "global_risk", "max_risk": 0.1, "max_loss": 0.1})
    assert "least loss among them (0.118)" in block["decisions"]["max_risk"]["reason"]
    none = risk_utility(report, {"risk": "global_risk", "max_risk": 0.01})["decisions"]["max_risk"]["reason"]
    assert "(the lowest is 0.05)" in none
    report = fake_report([("A", 0.012057, 0.05), ("B", 0.3, 0.5)])
    block = risk_utility(report, {"risk": "global_risk", "max_loss": 0.1})
    assert "least risk among them (0.0121)" in block["decisions"]["max_loss"]["reason"]
