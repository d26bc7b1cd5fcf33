"""Safe-to-share JSON and HTML of measure results and analyses (infoloss/safe_results.py).

The counts are checked against brute force (pandas), the nulls against the
module's rules; the non-safe JSON must keep every number.
"""

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

import infoloss
from infoloss import registry
from infoloss.cli import app
from infoloss.safe_results import COUNT_KEYS, safe_measures
from infoloss.synth import write_example

COUNT_MEASURES = ["missing_values", "suppressions", "records_changed", "suppressed_records", "k_anonymity_violations"]


def _pair():
    """40 records: 3 unique key combinations; scenario "suppressed" blanks them to '*', scenario "same" keeps them.

    Also 2 suppressions of ``g`` in "suppressed", and a domain ``dom == 'tiny'`` of 3 records.
    """
    zips = ["1234", "1235", "2234", "2235"] * 9 + ["9991", "9992", "9993", "1235"]
    orig = pd.DataFrame({
        "zip": zips,
        "sex": ["m", "f"] * 20,
        "x": np.linspace(1.0, 40.0, 40),
        "g": ["a", "b", "c", "d", "e"] * 8,
        "dom": ["big"] * 37 + ["tiny"] * 3,
    })
    suppressed = orig.copy()
    suppressed.loc[[36, 37, 38], ["zip", "sex"]] = "*"
    suppressed.loc[[5, 6], "g"] = None
    spec = {"variables": {"zip": {"scale": "nominal", "role": "key", "hierarchy": {"mask": "right"}},
                          "sex": {"scale": "nominal", "role": "key", "hierarchy": {"mask": "right"}},
                          "x": {"scale": "continuous"},
                          "g": {"scale": "nominal"},
                          "dom": {"scale": "nominal"}},
            "pairing": "row",
            "analyses": {"estimates": [{"statistic": "mean", "variable": "x", "by": ["dom"]},
                                       {"statistic": "quantile", "variable": "x", "p": [0, 0.5, 1]}],
                         "ci": {"replicates": 20, "seed": 1}}}
    return orig, suppressed, spec


@pytest.fixture(scope="module")
def small_report():
    orig, suppressed, spec = _pair()
    return infoloss.compare(orig, [suppressed, orig.copy()], spec, names=["suppressed", "same"],
                            measures=COUNT_MEASURES + ["estimate_ci_overlap", "sample_uniques", "discernibility"],
                            aggregates=True)


def test_the_five_count_measures_declare_unit_count():
    counted = {m.id for m in registry.registered() if m.unit == "count"}
    assert counted == set(COUNT_MEASURES)


def test_brute_force_counts_of_the_hand_built_pair(small_report):
    """The numbers the safe mode must hide are the true ones (pandas, not infoloss)."""
    orig, suppressed, _ = _pair()
    fk = orig.groupby(["zip", "sex"])["zip"].transform("size")
    assert int((fk < 3).sum()) == 3
    assert int((orig["g"].notna() & suppressed["g"].isna()).sum()) == 2
    assert int(((suppressed["zip"] == "*") & (suppressed["sex"] == "*")).sum()) == 3
    same, supp = small_report.scenario("same"), small_report.scenario("suppressed")
    assert same.measures["k_anonymity_violations"].value == 3
    assert supp.measures["suppressions"].by_variable["g"] == 2
    assert supp.measures["suppressed_records"].value == 3


def test_safe_json_nulls_small_counts_and_full_json_keeps_them(small_report):
    full = small_report.to_dict()
    safe = small_report.to_dict(safe=True, min_cell=5)
    f_supp, s_supp = (d["scenarios"][0]["measures"] for d in (full, safe))
    f_same, s_same = (d["scenarios"][1]["measures"] for d in (full, safe))
    # suppressions: 2 in g -> null with its percent; 0 stays 0
    assert f_supp["suppressions"]["by_variable"]["g"] == 2
    assert s_supp["suppressions"]["by_variable"]["g"] is None
    assert s_supp["suppressions"]["details"]["percent"]["g"] is None
    assert s_supp["suppressions"]["by_variable"]["x"] == 0
    assert f_supp["suppressed_records"]["value"] == 3 and s_supp["suppressed_records"]["value"] is None
    # 3 records violate 2-anonymity (and 3-anonymity)
    assert f_same["k_anonymity_violations"]["value"] == 3 and s_same["k_anonymity_violations"]["value"] is None
    f_k2, s_k2 = f_same["k_anonymity_violations"]["details"]["by_k"]["2"], s_same["k_anonymity_violations"]["details"]["by_k"]["2"]
    assert f_k2["unweighted"] == 3 and s_k2["unweighted"] is None and s_k2["share"] is None
    assert s_same["k_anonymity_violations"]["details"]["k"] == 3  # a parameter, never nulled
    # sample_uniques: the count and the share that gives it back
    assert f_same["sample_uniques"]["details"]["count"] == 3
    assert s_same["sample_uniques"]["details"]["count"] is None and s_same["sample_uniques"]["value"] is None
    # a withheld value says why (as not_computed does for a measure not computed); a value kept has no such entry
    assert s_same["k_anonymity_violations"]["withheld"] == "safe mode: the value is a count of fewer than 5 records"
    assert s_same["sample_uniques"]["withheld"] == ("safe mode: the value is a share of 'count', a count of fewer "
                                                    "than 5 records, which it would give back")
    assert "withheld" not in s_supp["suppressions"] and "withheld" not in f_same["sample_uniques"]
    # n_records of the file stays
    assert s_supp["suppressions"]["details"]["n_records"] == 40
    assert safe["scenarios"][0]["safe"]["min_cell"] == 5 and safe["scenarios"][0]["safe"]["withheld"] > 0
    assert safe["safe"]["withheld"] == sum(s["safe"]["withheld"] for s in safe["scenarios"])
    assert "safe" not in full and all("safe" not in s for s in full["scenarios"])
    json.dumps(safe, allow_nan=False)  # still valid JSON


def test_min_cell_decides(small_report):
    safe = small_report.to_dict(safe=True, min_cell=2)
    assert safe["scenarios"][0]["measures"]["suppressions"]["by_variable"]["g"] == 2
    assert safe["scenarios"][1]["measures"]["k_anonymity_violations"]["value"] == 3


def _estimate(block, key):
    return next(e for e in block["estimates"] if e["key"] == key)


def test_small_domain_and_quantile_extremes_are_withheld(small_report):
    orig, _, _ = _pair()
    full = small_report.to_dict()["scenarios"][0]
    safe = small_report.to_dict(safe=True, min_cell=5)["scenarios"][0]
    tiny = "mean(x) | dom=tiny"
    unnamed = "mean(x) | dom=(a category of fewer than 5 records, 1)"  # 3 records: the label is not shown
    f_tiny, s_tiny = _estimate(full["analyses"], tiny), _estimate(safe["analyses"], unnamed)
    assert "tiny" not in json.dumps(safe["analyses"]) and "tiny" not in json.dumps(safe["measures"])
    assert f_tiny["original"]["n"] == 3
    assert f_tiny["original"]["value"] == pytest.approx(orig.loc[orig.dom == "tiny", "x"].mean())
    for side in ("original", "protected"):
        assert all(s_tiny[side][k] is None for k in ("value", "se", "lower", "upper", "n"))
    assert s_tiny["difference"] is None and s_tiny["ci_overlap"] is None
    big = "mean(x) | dom=big"
    s_big = _estimate(safe["analyses"], big)
    assert s_big["original"]["n"] is None  # 40 records minus this n would give the tiny domain's 3 back
    # and its mean too: the file's mean times 40 less this mean times its n would give the tiny domain's total
    assert s_big["original"]["value"] is None
    for p in ("0", "1"):
        row = next(e for e in safe["analyses"]["estimates"] if e["estimate"] == f"quantile(x, {p})")
        assert row["original"]["value"] is None and row["protected"]["value"] is None
    median = next(e for e in safe["analyses"]["estimates"] if e["estimate"] == "quantile(x, 0.5)")
    assert median["original"]["value"] is not None
    # the same rows inside the analyses measure's details
    in_details = _estimate(safe["measures"]["estimate_ci_overlap"]["details"], unnamed)
    assert in_details["original"]["value"] is None


def test_per_record_lists_and_extremes_are_withheld():
    measures = {
        "fake": {"value": 0.5, "details": {"per_record": [0.1, 0.2], "scores": [float(i) for i in range(10)],
                                           "seeds": list(range(10)), "max_dis": 0.9,
                                           "spread": {"min": 1.0, "q1": 2.0, "median": 3.0, "max": 9.0},
                                           "by_seed": {"min": 0.1, "max": 0.2, "values": [0.1, 0.2], "seeds": [0, 1]},
                                           "copies": 2, "alpha": 1.0, "k": 2}},
    }
    out, summary = safe_measures(measures, 5, registry, n_records=(10,))
    d = out["fake"]["details"]
    assert d["per_record"] is None and d["scores"] is None and d["seeds"] == list(range(10))
    assert d["max_dis"] is None and d["spread"]["min"] is None and d["spread"]["max"] is None
    assert d["spread"]["median"] == 3.0
    assert d["by_seed"]["min"] == 0.1  # over seeds: not an extreme of the data
    assert d["copies"] is None and d["alpha"] == 1.0 and d["k"] == 2
    assert out["fake"]["value"] == 0.5
    assert summary == {"min_cell": 5, "withheld": 6}
    assert measures["fake"]["details"]["copies"] == 2  # the input is not changed


def test_a_percentage_beside_a_withheld_count_is_withheld_too():
    # records_changed kept percent_records_with_change (6.67 of 30 records) beside the withheld count 2
    # (found by fuzzing)
    orig = pd.DataFrame({"a": np.arange(30) % 4, "b": np.arange(30) % 3})
    prot = orig.assign(a=np.r_[9, 9, orig["a"].to_numpy()[2:]])
    spec = {"variables": {"a": {"scale": "nominal"}, "b": {"scale": "nominal"}}}
    full = infoloss.compare(orig, prot, spec, measures=["records_changed"], aggregates=False)
    assert full.to_dict()["scenarios"][0]["measures"]["records_changed"]["details"]["records_with_change"] == 2
    d = full.to_dict(safe=True)["scenarios"][0]["measures"]["records_changed"]["details"]
    assert d["records_with_change"] is None and d["percent_records_with_change"] is None


def _count_values(obj, counting=False, parent=""):
    """Every number under a count key (and under a count measure's value/by_variable)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _count_values(v, counting or k in COUNT_KEYS, k)
    elif isinstance(obj, list):
        for v in obj:
            yield from _count_values(v, counting, parent)
    elif counting and isinstance(obj, (int, float)) and not isinstance(obj, bool):
        yield obj


@pytest.fixture(scope="module")
def example_report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("example")
    original, noise, strong, spec = write_example(folder, n=600)
    return infoloss.compare(original, [noise, strong], spec, aggregates=False)


def test_safe_json_of_the_example_has_no_small_count(example_report):
    safe = example_report.to_dict(safe=True, min_cell=5)
    n_records = {example_report.original["n_records"]} | {s.n_records for s in example_report.scenarios}
    for scenario in safe["scenarios"]:
        found = list(_count_values({"m": scenario["measures"], "a": scenario.get("analyses")}))
        assert found, "the example has count keys"
        assert not [v for v in found if 0 < v < 5]
        for mid in COUNT_MEASURES:
            m = scenario["measures"].get(mid)
            if m is not None:
                values = [m["value"]] + list((m.get("by_variable") or {}).values())
                assert not [v for v in values if v is not None and 0 < v < 5]
        text = json.dumps(scenario)
        for n in n_records:  # no per-record list: no list of that many numbers
            assert not re.search(r"\[(\s*-?[\d.eE+-]+\s*,){%d}\s*-?[\d.eE+-]+\s*\]" % (n - 1), text)
    full = example_report.to_dict()
    assert any(0 < v < 5 for s in full["scenarios"] for v in _count_values(s["measures"])), \
        "the full JSON of the example has small counts, so the test above can fail"


def test_safe_false_is_unchanged(example_report):
    """The full JSON is the measures' own to_dict (no rounding, no nulls, no safe block)."""
    full = example_report.to_dict()
    for s, out in zip(example_report.scenarios, full["scenarios"]):
        expected = json.loads(json.dumps({k: v.to_dict() for k, v in s.measures.items()}, default=_np))
        assert out["measures"] == expected
        assert "safe" not in out
    assert "safe" not in full


def _np(x):
    return x.item() if hasattr(x, "item") else x.tolist()


def _row(html, measure):
    """The measures-table row of ``measure``: its value cells as text."""
    m = re.search(r'<tr><th scope="row" class="measure"><a href="#[^"]*">%s</a>.*?</tr>' % measure, html, re.S)
    assert m, measure
    cells = re.split(r'<td class="dircol">.*?</td>', m.group(0), flags=re.S)[1]
    return re.sub(r"<[^>]+>", " ", cells)


def test_safe_html_hides_the_five_counts(small_report):
    full = small_report.to_html()
    safe = small_report.to_html(safe=True, min_cell=5)
    assert re.search(r"\b3\b", _row(full, "suppressed_records"))
    assert re.search(r"\b3\b", _row(full, "k_anonymity_violations"))
    for mid in ("suppressed_records", "k_anonymity_violations", "suppressions", "missing_values",
                "records_changed"):
        cells = _row(safe, mid)
        assert not re.search(r"\b[1-4]\b", cells), (mid, cells)
    assert "fewer than 5" in _row(safe, "suppressed_records")
    assert "fewer than 5" in _row(safe, "k_anonymity_violations")
    for mid in ("suppressions", "suppressed_records"):  # the per-variable charts' data tables
        figure = re.search(r'<figure class="chart"><figcaption><b>%s per variable</b>.*?</figure>' % mid, safe, re.S)
        table = re.sub(r"<[^>]+>", " ", figure.group(0)[figure.group(0).index("<table"):])
        assert "withheld" in table and not re.search(r"\b[1-4]\b", table), (mid, table)  # as in the safe JSON


def test_cli_safe_end_to_end(tmp_path):
    orig, suppressed, spec = _pair()
    paths = [tmp_path / "orig.csv", tmp_path / "prot.csv", tmp_path / "spec.yaml"]
    orig.to_csv(paths[0], index=False)
    suppressed.to_csv(paths[1], index=False)
    paths[2].write_text(yaml.safe_dump(spec))
    out = tmp_path / "safe.json"
    runner = CliRunner()
    measures = "suppressions,suppressed_records,k_anonymity_violations,estimate_ci_overlap"
    result = runner.invoke(app, ["compare", *map(str, paths[:2]), "--spec", str(paths[2]), "--measures", measures,
                                 "--safe", "--json", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    scenario = data["scenarios"][0]
    assert scenario["measures"]["suppressions"]["by_variable"]["g"] is None
    assert scenario["measures"]["suppressed_records"]["value"] is None
    assert scenario["safe"]["withheld"] > 0 and data["safe"]["min_cell"] == 5
    refused = runner.invoke(app, ["compare", *map(str, paths[:2]), "--spec", str(paths[2]), "--measures", measures,
                                  "--safe", "--json", str(out), "--records", str(tmp_path / "rec")])
    assert refused.exit_code == 2
    assert "safe mode never releases" in refused.output
    assert not (tmp_path / "rec").exists()


def test_statistics_of_a_variable_seen_in_few_records_are_withheld():
    orig = pd.DataFrame({"x": np.linspace(1.0, 20.0, 20), "y": [1.0, 5.0, 9.0] + [np.nan] * 17})
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}}}
    report = infoloss.compare(orig, orig.copy(), spec, measures=["suppressions"], aggregates=False)
    full = report.to_dict()["scenarios"][0]["statistics"]["orig"]
    safe = report.to_dict(safe=True, min_cell=5)["scenarios"][0]["statistics"]["orig"]
    assert full["n"]["y"] == 3 and full["mean"]["y"] == pytest.approx(5.0)
    assert safe["n"]["y"] is None and safe["mean"]["y"] is None and safe["sd"]["y"] is None
    assert safe["n"]["x"] == 20 and safe["mean"]["x"] == pytest.approx(10.5)
    y = report.to_dict()["scenarios"][0]["statistics"]["variables"].index("y")
    assert all(v is None for v in safe["corr"][y]) and all(row[y] is None for row in safe["corr"])


def _mostly_one_value(n_off: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """30 records: ``rent`` is 0 but for ``n_off`` records (their amounts 700, 1300, ...), ``age`` varies."""
    rng = np.random.default_rng(5)
    rent = np.zeros(30)
    rent[:n_off] = 700.0 + 600.0 * np.arange(n_off)
    orig = pd.DataFrame({"age": rng.normal(45, 12, 30).round(1), "rent": rent, "wage": rng.normal(3e4, 8e3, 30)})
    prot = orig.copy()
    prot["age"] = prot["age"] + rng.normal(0, 2, 30)
    prot["rent"] = prot["rent"] * 1.1
    return orig, prot


def test_a_suppressed_or_top_coded_outlier_is_not_given_back_by_the_exact_moments():
    # the original's exact mean (xbar_mae with xbar_mv's sign) less the public protected values was a locally
    # suppressed value; x_mae times n plus the top code a top-coded one (found by the safe-mode audit)
    rng = np.random.default_rng(21)
    n = 300
    df = pd.DataFrame({"income": rng.lognormal(10, 0.5, n).round(0), "age": rng.integers(18, 90, n).astype(float)})
    df.loc[5, "income"] = 987654.0
    suppressed, topcoded, noised = df.copy(), df.copy(), df.copy()
    suppressed.loc[5, "income"] = np.nan
    topcoded.loc[5, "income"] = 300000.0
    noised["income"] = df["income"] * rng.lognormal(0, 0.05, n)
    spec = {"variables": {"income": {"scale": "continuous"}, "age": {"scale": "continuous"}}}
    report = infoloss.compare(df, [suppressed, topcoded, noised], spec, names=["s", "t", "n"],
                              measures=["xbar_mae", "xbar_mv", "x_mae", "s_mae", "il1s", "ks", "eigen"])
    assert report.to_dict()["scenarios"][0]["statistics"]["records_changed"] == {"income": 1, "age": 0}
    safe = json.loads(report.to_json(safe=True, min_cell=5))
    for scenario in safe["scenarios"][:2]:
        assert "records_changed" not in scenario["statistics"]
        for mid, result in scenario["measures"].items():
            assert (result.get("by_variable") or {}).get("income") is None, (scenario["name"], mid)
            assert result["value"] is None or mid == "ks", (scenario["name"], mid)  # ks: the age's alone, 0
        assert "987,654" not in report.to_html(safe=True)
    # the noised scenario's comparisons of income, with its own protected mean (rounded in its statistics), give
    # the original's mean too: withheld as well; alone, they are shown
    assert all(r["by_variable"]["income"] is None for r in safe["scenarios"][2]["measures"].values()
               if r.get("by_variable"))
    alone = infoloss.compare(df, [noised], spec, measures=["xbar_mae", "x_mae"]).to_dict(safe=True, min_cell=5)
    assert alone["scenarios"][0]["measures"]["xbar_mae"]["by_variable"]["income"] is not None
    # the original's statistics are the same in every scenario: rounded to 3 digits, its mean times n less the
    # suppressed file's total is still the outlier to about 1 %, so they are withheld in all scenarios
    for scenario in safe["scenarios"]:
        orig = scenario["statistics"]["orig"]
        assert orig["mean"]["income"] is None and orig["sd"]["income"] is None and orig["n"]["income"] == n
        assert orig["mean"]["age"] is not None and "changed it" in orig["withheld"]["income"]


def test_a_variable_with_few_records_off_its_most_common_value_keeps_only_its_n():
    # mean × n of "rent" would give back the total of the 2 non-zero amounts (one, with one of them)
    orig, prot = _mostly_one_value(2)
    spec = {"variables": {v: {"scale": "continuous"} for v in orig.columns}}
    report = infoloss.compare(orig, prot, spec, measures=["xbar_mv", "il1s"], aggregates=False)
    full = report.to_dict()["scenarios"][0]
    assert full["statistics"]["orig"]["off_mode"] == {"age": 30 - orig["age"].value_counts().max(), "rent": 2,
                                                      "wage": 29}
    assert full["statistics"]["orig"]["mean"]["rent"] * 30 == pytest.approx(2000.0)
    safe = report.to_dict(safe=True, min_cell=5)["scenarios"][0]
    for side in ("orig", "prot"):
        stats = safe["statistics"][side]
        assert "off_mode" not in stats and stats["n"]["rent"] == 30
        assert all(stats[k]["rent"] is None for k in ("mean", "mean_ci", "sd", "variance"))
        assert stats["mean"]["age"] is not None and stats["mean"]["wage"] is not None
        r = safe["statistics"]["variables"].index("rent")
        assert all(v is None for v in stats["cov"][r]) and all(row[r] is None for row in stats["corr"])
        assert stats["withheld"] == {"rent": "fewer than 5 records with a value other than the most common one"}
    # the relative change of the means (public protected mean) would give the original mean back: withheld,
    # and so is the measure's value, their mean (with the mean of squares, xbar_mse, it gave both terms back)
    by_var = safe["measures"]["xbar_mv"]["by_variable"]
    assert by_var["rent"] is None and sum(v is None for v in by_var.values()) == 1
    assert safe["measures"]["xbar_mv"]["value"] is None
    assert safe["measures"]["xbar_mv"]["withheld"].startswith("safe mode: the value takes in rent, resting on fewer than 5")
    for block in ("original", "protected"):  # the means themselves, in details
        assert safe["measures"]["xbar_mv"]["details"][block]["rent"] is None
    assert full["measures"]["xbar_mv"]["by_variable"]["rent"] is not None
    # with min_cell 2 the two records are enough, and with 5 non-zero amounts nothing is withheld
    assert report.to_dict(safe=True, min_cell=2)["scenarios"][0]["statistics"]["orig"]["mean"]["rent"] is not None
    orig5, prot5 = _mostly_one_value(5)
    safe5 = infoloss.compare(orig5, prot5, spec, measures=["xbar_mv"], aggregates=False).to_dict(safe=True)
    assert safe5["scenarios"][0]["statistics"]["orig"]["mean"]["rent"] is not None
    assert "withheld" not in safe5["scenarios"][0]["statistics"]["orig"]


def test_no_measure_value_or_detail_gives_back_a_mostly_constant_variable():
    # found by differencing: xbar_mae and xbar_mse over the same two withheld terms gave both back (a + b and
    # a^2 + b^2), the covariance measures hold the variable's variance, and ldu_biv's normality check its mean and sd
    orig, prot = _mostly_one_value(2)
    prot["rent"] = 0.0  # the protection zeroes the two amounts: each term is then the original's own statistic
    spec = {"variables": {v: {"scale": "continuous"} for v in orig.columns}}
    ids = ["xbar_mae", "xbar_mse", "s_mae", "s_mse", "x_mae", "v_mae", "v_mse", "ldu_biv", "ldu_uni", "il1s", "ks",
           "aldu_uni", "aldu_biv", "gdu", "ecdf_max", "ecdf_mean"]
    report = infoloss.compare(orig, prot, spec, measures=ids, aggregates=False)
    full = report.to_dict()["scenarios"][0]["measures"]
    safe = report.to_dict(safe=True, min_cell=5)["scenarios"][0]["measures"]
    assert full["ldu_biv"]["details"]["normality"]["rent"]["mean"] == pytest.approx(2000 / 30)
    for mid in ids:
        assert full[mid]["value"] is not None, mid
        assert safe[mid]["value"] is None and safe[mid]["withheld"].startswith("safe mode: the value takes in rent"), mid
        assert (safe[mid].get("by_variable") or {}).get("rent") is None, mid
    assert safe["ldu_biv"]["details"]["normality"]["rent"] is None
    assert full["ks"]["details"]["max"] is not None and safe["ks"]["details"]["max"] is None
    assert full["il1s"]["details"]["sdcmicro"] is not None and safe["il1s"]["details"]["sdcmicro"] is None
    # aldu_biv's per-variable values average each variable's pairs, rent's pair among them
    assert all(v is not None for v in full["aldu_biv"]["by_variable"].values())
    assert all(v is None for v in safe["aldu_biv"]["by_variable"].values())
    assert safe["ldu_biv"]["details"]["normality"]["age"] is not None
    assert safe["xbar_mae"]["by_variable"]["age"] is not None  # no partner withheld: the value is gone instead
    text = json.dumps(safe)
    for value in (2000.0, 2000 / 30, 700.0, 1300.0):
        assert f"{value:.6g}" not in text and f"{value:.3g}" not in text


def test_the_risk_utility_map_keeps_no_loss_the_safe_json_withholds():
    # gdu withheld (it takes in rent), but the map's points kept 1 - gdu and the --max-loss rule ranked by it
    orig, prot = _mostly_one_value(2)
    orig["sex"] = prot["sex"] = ["f", "m"] * 15
    spec = {"variables": {**{v: {"scale": "continuous"} for v in ("age", "rent", "wage")},
                          "sex": {"scale": "nominal", "role": "key"}}}
    report = infoloss.compare(orig, [prot, orig.copy()], spec, measures=["gdu", "global_risk"], aggregates=False,
                              risk_utility={"max_loss": 0.5})
    full = report.to_dict()["risk_utility"]
    assert all(p["loss"] is not None for p in full["points"]) and full["decisions"]["max_loss"]["choice"]
    safe = report.to_dict(safe=True)
    assert all(s["measures"]["gdu"]["value"] is None for s in safe["scenarios"])
    points = [p for p in safe["risk_utility"]["points"] if not p["original"]]
    assert all(p["loss"] is None and p["utility_value"] is None and p["pareto"] is None for p in points)
    # every scenario's loss withheld: no scenario left for the rules, the front is the original's alone
    rule = safe["risk_utility"]["decisions"]["max_loss"]
    assert rule["choice"] is None and rule["ranking"] == [] and rule["eligible"] == []
    assert rule["reason"].startswith("no scenario is on the map, so this rule chooses none.")
    assert "Not on the map, so not in this rule:" in rule["reason"] and "(its loss withheld in safe mode)" in rule["reason"]
    assert safe["risk_utility"]["pareto_front"] == ["original"]
    assert safe["risk_utility"]["pareto_note"].startswith("computed from the points shown alone; left out:")
    page = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", report.to_html(safe=True)))
    assert "Maximum loss, least risk (--max-loss): no scenario is on the map, so this rule chooses none." in page
    assert "whose risk or loss the safe JSON withholds (the value takes in rent, resting on fewer than 5" in page
    # only the original is left to draw: no map (its loss axis read 0, 0, 0)
    assert 'aria-label="risk-utility map"' not in report.to_html(safe=True)
    assert 'aria-label="risk-utility map"' in report.to_html()


def test_the_overview_computes_no_distance_for_a_mostly_constant_variable():
    # with ks withheld, the overview fell back to a KS distance from the plot histograms: 0.98 x 150 records gave
    # back the 3 records away from the most common value
    orig, prot = _mostly_one_value(2)
    prot["rent"] = 0.0
    spec = {"variables": {v: {"scale": "continuous"} for v in orig.columns}, "pairing": "none"}
    report = infoloss.compare(orig, prot, spec, measures=["ks", "pmse"])
    page = report.to_html(safe=True)
    assert 'title="rent in scenario1: distribution distance: withheld in safe mode' in page
    assert "rent in scenario1: Kolmogorov" not in page
    assert "rent in scenario1: Kolmogorov" in report.to_html()  # the full page keeps its distance


def test_a_family_whose_headline_measures_are_withheld_is_not_scored_by_the_rest():
    # gdu withheld: the GDU family was scored on grc alone (1 by construction), raising every overall score
    from infoloss.report.plotdata import Policy
    from infoloss.report.safe_view import safe_report
    from infoloss.report.scores import compute_scores

    orig, prot = _mostly_one_value(2)
    prot["rent"] = 0.0
    spec = {"variables": {v: {"scale": "continuous"} for v in orig.columns}}
    report = infoloss.compare(orig, [prot, orig.copy()], spec, measures=["gdu", "grc", "pmse"], aggregates=False)
    full = {f.family: f for f in compute_scores(report).families}
    assert full["gdu"].measures == ["gdu"]
    safe = {f.family: f for f in compute_scores(safe_report(report, Policy(safe=True, min_cell=5))).families}
    assert safe["gdu"].measures == [] and safe["gdu"].left_out["gdu"].startswith("withheld in safe mode")
    assert safe["propensity"].measures == ["pmse"]


def test_a_scenario_identical_to_the_original_suppressed_nothing_whatever_its_few_values():
    # the few-values rule withheld the count measures' zeros, which the page read as suppressions
    orig, _ = _mostly_one_value(2)
    spec = {"variables": {v: {"scale": "continuous"} for v in orig.columns}}
    report = infoloss.compare(orig, orig.copy(), spec, measures=["suppressions", "records_changed"])
    safe = report.to_dict(safe=True)["scenarios"][0]["measures"]
    assert safe["suppressions"]["by_variable"] == {"age": 0.0, "rent": 0.0, "wage": 0.0}
    assert safe["records_changed"]["value"] == 0.0
    page = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", report.to_html(safe=True)))
    assert "suppressed values" not in page


def test_the_safe_page_says_why_the_mean_of_a_mostly_constant_variable_is_not_drawn():
    orig, prot = _mostly_one_value(1)
    prot.loc[5, "rent"] = 50.0  # a change, so that rent's plots and their data table are drawn
    spec = {"variables": {v: {"scale": "continuous"} for v in orig.columns}}
    report = infoloss.compare(orig, prot, spec, measures=["xbar_mv"])
    page = report.to_html(safe=True, min_cell=5)
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))
    assert ("Not drawn (safe mode): rent (fewer than 5 records with a value other than the most common one in the "
            "original).") in text
    assert "Left out (safe mode): rent (fewer than 5 records with a value other than the most common one in a file)" in text
    # the plots' data table (box-plot numbers) has no mean of rent either, in neither file
    assert text.count("withheld: fewer than 5 records away from the most common value") == 2
    for mean in (orig["rent"].mean(), prot["rent"].mean()):  # 700 / 30, (770 + 50) / 30
        assert f"{mean:.3g}" not in text and f"{mean:.2f}" not in text
    assert f"{orig['rent'].mean():.3g}" in re.sub(r"<[^>]+>", " ", report.to_html())


def test_an_estimated_mean_or_total_over_a_few_records_off_the_common_value_is_withheld():
    orig, prot = _mostly_one_value(2)  # rent: 0 but for records 0 and 1 (700, 1300)
    orig["area"] = prot["area"] = ["north"] * 10 + ["south"] * 10 + ["west"] * 10
    orig.loc[25:29, "rent"] = prot.loc[25:29, "rent"] = [100.0, 200.0, 300.0, 400.0, 500.0]  # 5 in the west
    spec = {"variables": {**{v: {"scale": "continuous"} for v in ("age", "rent", "wage")},
                          "area": {"scale": "nominal"}},
            "analyses": {"estimates": [{"statistic": "mean", "variable": "rent", "by": ["area"]},
                                       {"statistic": "total", "variable": "rent"},
                                       {"statistic": "mean", "variable": "age"}]}}
    report = infoloss.compare(orig, prot, spec, measures=["estimate_ci_overlap"], aggregates=False)
    full = {r["key"]: r for r in report.to_dict()["scenarios"][0]["analyses"]["estimates"]}
    assert full["mean(rent) | area=north"]["original"]["off_mode"] == 2
    assert full["mean(rent) | area=north"]["original"]["value"] * 10 == pytest.approx(2000.0)
    safe = {r["key"]: r for r in report.to_dict(safe=True, min_cell=5)["scenarios"][0]["analyses"]["estimates"]}
    assert all("off_mode" not in r[side] for r in safe.values() for side in ("original", "protected"))
    # north (2 records off 0) is withheld, and with it west (5 off), the next fewest but south's none, so that the
    # file's total less the shown areas' gives only north's and west's together (7 records)
    for area, hidden in (("north", True), ("south", False), ("west", True)):
        side = safe[f"mean(rent) | area=north".replace("north", area)]["original"]
        assert (side["value"] is None) is hidden, area
    assert safe["total(rent) | all"]["original"]["value"] is not None  # 7 records off 0 in the whole file
    assert safe["mean(age) | all"]["original"]["value"] is not None



def test_domain_sizes_do_not_add_up_to_the_records_less_a_few():
    # total(income) by sex: the shown n of both sexes (105 + 93) gave the 2 records without income back (200 - 198)
    rng = np.random.default_rng(8)
    orig = pd.DataFrame({"income": rng.normal(3e4, 5e3, 200), "sex": ["f"] * 106 + ["m"] * 94})
    orig.loc[[0, 150], "income"] = np.nan
    spec = {"variables": {"income": {"scale": "continuous"}, "sex": {"scale": "nominal"}},
            "analyses": {"estimates": [{"statistic": "total", "variable": "income", "by": ["sex"]}]}}
    report = infoloss.compare(orig, orig.assign(income=orig.income * 1.01), spec, measures=["estimate_ci_overlap"],
                              aggregates=False)
    full = {r["key"]: r["original"]["n"] for r in report.to_dict()["scenarios"][0]["analyses"]["estimates"]}
    assert full == {"total(income) | sex=f": 105, "total(income) | sex=m": 93}
    safe = {r["key"]: r["original"]["n"] for r in report.to_dict(safe=True)["scenarios"][0]["analyses"]["estimates"]}
    assert None in safe.values()  # the smaller domain's n is withheld: 200 less the shown n is no longer 2


def test_a_ratio_with_a_mostly_constant_variable_is_withheld():
    # ratio(rent / wage) times the total of wage gave rent's withheld total back, and so with rent below the line
    orig, prot = _mostly_one_value(2)
    spec = {"variables": {v: {"scale": "continuous"} for v in orig.columns},
            "analyses": {"estimates": [{"statistic": "ratio", "variable": "rent", "denominator": "wage"},
                                       {"statistic": "ratio", "variable": "wage", "denominator": "rent"},
                                       {"statistic": "ratio", "variable": "wage", "denominator": "age"}]}}
    report = infoloss.compare(orig, prot, spec, measures=["estimate_ci_overlap"], aggregates=False)
    full = {r["key"]: r for r in report.to_dict()["scenarios"][0]["analyses"]["estimates"]}
    safe = {r["key"]: r for r in report.to_dict(safe=True)["scenarios"][0]["analyses"]["estimates"]}
    assert full["ratio(rent / wage) | all"]["original"]["off_mode"] == 2
    for key in ("ratio(rent / wage) | all", "ratio(wage / rent) | all"):
        assert full[key]["original"]["value"] is not None and safe[key]["original"]["value"] is None, key
    assert safe["ratio(wage / age) | all"]["original"]["value"] is not None


def test_matrices_over_a_few_complete_cases_are_withheld_whole():
    # beside a variable observed in 2 records the complete cases are those 2: var(income) was (x1 - x2)^2 / 2
    rng = np.random.default_rng(6)
    orig = pd.DataFrame({"income": rng.normal(3e4, 8e3, 80).round(), "age": rng.integers(20, 70, 80).astype(float),
                         "rare": np.nan})
    orig.loc[[4, 40], "rare"] = [3.0, 8.0]
    prot = orig.assign(income=orig.income + rng.normal(0, 500, 80))
    spec = {"variables": {v: {"scale": "continuous"} for v in orig.columns}}
    report = infoloss.compare(orig, prot, spec, measures=["il1s"])
    full = report.to_dict()["scenarios"][0]["statistics"]["orig"]
    assert full["n_complete"] == 2 and abs(full["corr"][0][1]) == pytest.approx(1.0)  # two points: r = ±1
    safe = report.to_dict(safe=True)["scenarios"][0]["statistics"]["orig"]
    assert all(x is None for row in safe["cov"] + safe["corr"] for x in row) and safe["n_complete"] is None
    assert safe["withheld_matrices"] == "the covariances and correlations rest on fewer than 5 complete cases"
    assert safe["mean"]["income"] is not None  # the means rest on every record with a value
    page = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", report.to_html(safe=True)))
    assert ("No correlations drawn (safe mode): the covariances and correlations rest on fewer than 5 complete "
            "cases in a file.") in page


def test_a_not_computed_reason_gives_no_small_count():
    # "it needs at least 7 records with every continuous variable present in both files, and there are 3"
    rng = np.random.default_rng(6)
    orig = pd.DataFrame({"income": rng.normal(3e4, 8e3, 80), "age": rng.normal(40, 9, 80), "rare": np.nan})
    orig.loc[[4, 40, 41], "rare"] = [3.0, 8.0, 5.0]
    spec = {"variables": {v: {"scale": "continuous"} for v in orig.columns}}
    report = infoloss.compare(orig, orig * 1.01, spec, measures=["interval_disclosure_robust"], aggregates=False)
    full = report.to_dict()["scenarios"][0]["not_computed"]["interval_disclosure_robust"]
    assert full.endswith("and there are 3")
    safe = report.to_dict(safe=True)["scenarios"][0]["not_computed"]["interval_disclosure_robust"]
    assert safe.endswith("and there are fewer than 5") and "3" not in safe
    assert "there are fewer than 5" in report.to_html(safe=True)


def test_a_proportion_that_stands_for_a_few_records_is_withheld():
    # 3 of 40 records are in category "tiny": a share of 0.075 is 3 records; "big" (37) is safe, but its
    # complement is those same 3 records, so both shares of dom are withheld; g's shares (8 of 40) stay
    orig, _, spec = _pair()
    spec = dict(spec, analyses={"estimates": [{"statistic": "proportion", "variable": "dom"},
                                              {"statistic": "proportion", "variable": "g"}],
                                "ci": {"replicates": 20, "seed": 1}})
    report = infoloss.compare(orig, [orig.copy()], spec, measures=["estimate_ci_overlap"])
    full = report.to_dict()["scenarios"][0]["analyses"]["estimates"]
    safe = report.to_dict(safe=True, min_cell=5)["scenarios"][0]["analyses"]["estimates"]
    shares = {(r["variable"], r["category"]): r for r in full}
    assert shares[("dom", "tiny")]["original"]["value"] == pytest.approx(3 / 40)
    for f, s in zip(full, safe):
        hidden = f["variable"] == "dom"
        assert (s["original"]["value"] is None) == hidden, f["key"]
        assert (s["protected"]["value"] is None) == hidden, f["key"]
    assert report.to_dict(safe=True, min_cell=3)["scenarios"][0]["analyses"]["estimates"][0]["original"]["value"] \
        is not None  # 3 records are enough with min_cell 3


# ---------------------------------------------------------------------------
# differencing: a withheld count must not come back from a total and the counts shown
# ---------------------------------------------------------------------------
def test_a_withheld_count_does_not_come_back_from_the_total():
    m = {"suppressions": {"value": 50.0, "by_variable": {"a": 1.0, "b": 40.0, "c": 0.0, "d": 9.0},
                          "details": {"percent": {"a": 0.1, "b": 4.0, "c": 0.0, "d": 0.9}, "n_records": 1000}}}
    out = safe_measures(m, 5, registry, (1000,))[0]["suppressions"]
    assert out["by_variable"] == {"a": None, "b": 40.0, "c": 0.0, "d": None}  # d too: 50 − 40 = a + d = 10
    assert out["value"] == 50.0 and out["details"]["percent"] == {"a": None, "b": 4.0, "c": 0.0, "d": None}
    alone = {"suppressions": {"value": 3.0, "by_variable": {"a": 3.0, "b": 0.0}, "details": {"n_records": 1000}}}
    out = safe_measures(alone, 5, registry, (1000,))[0]["suppressions"]
    assert out["value"] is None and out["by_variable"]["a"] is None


def test_a_share_whose_count_is_the_records_less_a_few_is_withheld():
    # record_linkage's value k / records_used has one possible denominator among n - 4 .. n - 1: it gave the 2
    # records left out (a missing value) back, although records_used itself was withheld
    rng = np.random.default_rng(4)
    orig = pd.DataFrame({"x": rng.normal(size=60), "y": rng.normal(size=60)})
    orig.loc[[3, 9], "y"] = np.nan
    prot = orig + rng.normal(scale=0.3, size=orig.shape)
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}}, "pairing": "row"}
    report = infoloss.compare(orig, prot, spec, measures=["record_linkage"], aggregates=False)
    full = report.to_dict()["scenarios"][0]["measures"]["record_linkage"]
    assert full["details"]["records_used"] == 58 and full["value"] not in (None, 0)
    safe = report.to_dict(safe=True, min_cell=5)["scenarios"][0]["measures"]["record_linkage"]
    assert safe["details"]["records_used"] is None and safe["value"] is None
    assert full["details"]["candidates"] == 58 and safe["details"]["candidates"] is None  # 2 originals missing y
    assert safe["withheld"].startswith("safe mode: the value is a share of 'records_used', the file's records less")


def test_aad_and_ctbil_do_not_give_back_a_few_records_moved():
    # AAD x cells is twice the records moved: 3 regions recoded gave records_changed's withheld 3 back
    rng = np.random.default_rng(0)
    orig = pd.DataFrame({"region": rng.choice(list("NSEW"), 120), "sex": rng.choice(["f", "m"], 120)})
    prot = orig.copy()
    prot.loc[prot.index[prot.region != "N"][:3], "region"] = "N"
    spec = {"variables": {"region": {"scale": "nominal"}, "sex": {"scale": "nominal"}}}
    report = infoloss.compare(orig, prot, spec, measures=["aad", "ctbil", "records_changed"], aggregates=False)
    full = report.to_dict()["scenarios"][0]["measures"]
    assert full["aad"]["by_variable"]["region"] * full["aad"]["details"]["cells"]["region"] == pytest.approx(6.0)
    safe = report.to_dict(safe=True, min_cell=5)["scenarios"][0]["measures"]
    assert safe["records_changed"]["by_variable"]["region"] is None
    assert safe["aad"]["by_variable"]["region"] is None and safe["aad"]["by_pair"]["region|sex"] is None
    assert safe["aad"]["by_variable"]["sex"] == 0.0 and safe["aad"]["value"] is None
    assert safe["ctbil"]["value"] is None and safe["ctbil"]["details"]["raw_by_dimension"] is None
    # with min_cell 3 the three records are enough
    assert report.to_dict(safe=True, min_cell=3)["scenarios"][0]["measures"]["aad"]["value"] is not None


def test_shares_of_records_per_variable_are_counts():
    # lambda of a nominal variable is the share of records changed: 0.015 of 200 records is 3 records
    m = {"lambda": {"value": 0.2, "by_variable": {"sex": 0.015, "age": 0.32, "zip": 0.33}, "details": {"n_records": 200}},
         "suppressed_records": {"value": 3.0, "details": {"share": 0.015, "percent": 1.5, "n_records": 200}},
         "ks": {"value": 0.1, "by_variable": {"age": 0.1}, "details": {"n_orig": {"age": 200}, "n_prot": {"age": 197}}}}
    out = safe_measures(m, 5, registry, (200,))[0]
    assert out["lambda"]["by_variable"] == {"sex": None, "age": None, "zip": 0.33} and out["lambda"]["value"] == 0.2
    assert out["suppressed_records"]["value"] is None
    assert out["suppressed_records"]["details"]["share"] is None and out["suppressed_records"]["details"]["percent"] is None
    assert out["ks"]["details"]["n_prot"] == {"age": None}  # 200 − 197 = 3 records without a value
    assert out["ks"]["details"]["n_orig"] == {"age": 200}


def test_partitions_of_the_records_are_suppressed_with_a_second_part():
    m = {"suda_dis": {"value": 0.0, "details": {"dis_table": {"0": 3284, "(0, 0.1]": 713, "(0.1, 0.2]": 3}}},
         "discernibility": {"value": 0.1, "details": {"classes": 13, "class_sizes": [[1, 1], [9, 1], [10, 5], [20, 6]]}},
         "cluster_proportion_distance": {"value": 0.0, "details": {
             "proportions": {"original": [0.47, 0.5275, 0.0025], "protected": [0.5, 0.5, 0.0]},
             "records_clustered": {"original": 400, "protected": 400}}}}
    out = safe_measures(m, 5, registry, (4000, 400))[0]
    assert out["suda_dis"]["details"]["dis_table"] == {"0": 3284, "(0, 0.1]": None, "(0.1, 0.2]": None}
    # a class of one record: its size and count withheld, and the next group's (with the number of classes, a
    # size shown would tell how many classes the withheld records form)
    assert out["discernibility"]["details"]["class_sizes"] == [[None, None], [None, None], [10, 5], [20, 6]]
    assert out["cluster_proportion_distance"]["details"]["proportions"] == {
        "original": [None, 0.527, None], "protected": [0.5, 0.5, 0.0]}


def _rare_pair():
    """400 records; region "Rareville" holds 1 record, "Zetaland" 3, occupation "astronaut" 2."""
    rng = np.random.default_rng(7)
    n = 400
    region = np.array(["North"] * 180 + ["East"] * 108 + ["South"] * 108 + ["Zetaland"] * 3 + ["Rareville"])
    occupation = np.array(["clerk", "farmer", "teacher"] * 133 + ["astronaut"])
    occupation[5] = "astronaut"
    income = np.exp(rng.normal(10, 0.5, n))
    df = pd.DataFrame({"region": region, "occupation": occupation, "age": rng.integers(18, 80, n), "income": income})
    spec = {"variables": {"region": {"scale": "nominal"}, "occupation": {"scale": "nominal"},
                          "age": {"scale": "continuous"}, "income": {"scale": "continuous"}},
            "analyses": {"estimates": [{"statistic": "mean", "variable": "income", "by": ["region"]},
                                       {"statistic": "proportion", "variable": "occupation"},
                                       {"statistic": "quantile", "variable": "income", "p": [0.5, 0.99]}],
                         "regressions": [{"name": "m", "formula": "np.log(income) ~ age + C(region)"}],
                         "ci": {"replicates": 20, "seed": 1}}}
    prot = df.copy()
    prot["income"] = prot["income"] * np.exp(rng.normal(0, 0.05, n))
    return df, prot, spec


def test_analyses_keep_no_small_group_labels_or_values():
    orig, prot, spec = _rare_pair()
    report = infoloss.compare(orig, prot, spec, measures=["estimate_ci_overlap", "regression_ci_overlap"])
    full = report.to_dict()["scenarios"][0]["analyses"]
    safe = report.to_dict(safe=True, min_cell=5)
    text = json.dumps(safe)
    assert "Rareville" not in text and "Zetaland" not in text and "astronaut" not in text
    # the coefficient of the one-record region fits that record: withheld, unnamed
    coefs = safe["scenarios"][0]["analyses"]["regressions"][0]["coefficients"]
    withheld = [c for c in coefs if c["name"].startswith("C(region)[a category of fewer than 5 records")]
    assert len(withheld) == 2 and all(c["original"]["estimate"] is None for c in withheld)
    full_coefs = {c["name"]: c for c in full["regressions"][0]["coefficients"]}
    assert full_coefs["C(region)[T.Rareville]"]["original"]["n_records"] == 1
    assert full_coefs["C(region)[T.North]"]["original"]["n_records"] == 108  # its reference, East, has 108
    # domains: the total minus the sizes shown must not give a small one back
    rows = [r for r in safe["scenarios"][0]["analyses"]["estimates"] if r["estimate"] == "mean(income)"]
    shown = sum(r["original"]["n"] for r in rows if r["original"]["n"] is not None)
    assert not 0 < 400 - shown < 5
    # proportions: 1 minus the shares shown must not give a small count back
    rows = [r for r in safe["scenarios"][0]["analyses"]["estimates"] if r["estimate"] == "proportion(occupation)"]
    left = 400 * (1 - sum(r["original"]["value"] for r in rows if r["original"]["value"] is not None))
    assert not 0.5 < left < 5
    # the 0.99 quantile of 400 records is about the 4th largest value: withheld; the median stays
    q = {r["estimate"]: r for r in safe["scenarios"][0]["analyses"]["estimates"] if r["statistic"] == "quantile"}
    assert q["quantile(income, 0.99)"]["original"]["value"] is None
    assert q["quantile(income, 0.5)"]["original"]["value"] is not None


def test_the_original_two_way_table_is_suppressed_alike_in_every_scenario():
    # each scenario chose its own secondary cell, so p1 showed A×r2 = 60 and p2 showed A×r3 = 58: with the row
    # total (120) the suppressed A×r1 = 2 came back from the two scenarios together
    counts = {"A": [2, 60, 58], "B": [40, 45, 50], "C": [30, 35, 33], "D": [25, 20, 27]}
    rows = [(c, r) for c, cnt in counts.items() for r, k in zip(["r1", "r2", "r3"], cnt) for _ in range(k)]
    orig = pd.DataFrame(rows, columns=["cat", "reg"])
    p2 = orig.copy()
    p2.loc[np.flatnonzero((orig.cat == "A") & (orig.reg == "r2"))[:20], "reg"] = "r3"
    spec = {"variables": {"cat": {"scale": "nominal", "role": "key"}, "reg": {"scale": "nominal", "role": "key"}},
            "pairing": "row"}
    report = infoloss.compare(orig, [orig.copy(), p2], spec, names=["p1", "p2"], measures=["records_changed"])
    safe = report.to_dict(safe=True, min_cell=5)
    tables = [s["tables"]["two_way"]["cat|reg"]["original"]["count"] for s in safe["scenarios"]]
    assert tables[0] == tables[1]
    hidden = np.array([[c is None for c in row] for row in tables[0]])
    assert hidden[0, 0]  # A×r1 = 2
    for line in (*hidden, *hidden.T):
        assert line.sum() != 1
    alone = [s.to_dict(safe=True, min_cell=5)["tables"]["two_way"]["cat|reg"]["original"]["count"]
             for s in report.scenarios]
    assert alone[0] != alone[1]  # each made alone, the secondary cells differ (the case above)


def test_a_secondary_cell_is_never_a_zero_the_margins_fix():
    # the protected file suppressed some reg values: "missing" is a column of the tables, empty in the original;
    # its cells were taken as the complements of the small A x r1, so A x r1 came back exactly from the original's
    # row and column totals (its other hidden cells were zeros known from an empty margin)
    counts = {"A": [2, 60, 58], "B": [40, 45, 50], "C": [30, 35, 33], "D": [25, 20, 27]}
    rows = [(c, r) for c, cnt in counts.items() for r, k in zip(["r1", "r2", "r3"], cnt) for _ in range(k)]
    orig = pd.DataFrame(rows, columns=["cat", "reg"])
    prot = orig.copy()
    prot.loc[np.flatnonzero(orig.cat == "B")[:3], "reg"] = np.nan  # 3 suppressions: a small missing cell
    prot.loc[np.flatnonzero(orig.cat == "C")[:2], "reg"] = np.nan
    spec = {"variables": {"cat": {"scale": "nominal", "role": "key"}, "reg": {"scale": "nominal", "role": "key"}},
            "pairing": "row"}
    report = infoloss.compare(orig, prot, spec, measures=["suppressions"])
    table = report.to_dict(safe=True)["scenarios"][0]["tables"]["two_way"]["cat|reg"]
    o = table["original"]["count"]
    hidden = np.array([[c is None for c in row] for row in o])
    full = np.array(report.to_dict()["scenarios"][0]["tables"]["two_way"]["cat|reg"]["original"]["count"], float)
    live_rows, live_cols = full.sum(axis=1) > 0, full.sum(axis=0) > 0
    useful = hidden & live_rows[:, None] & live_cols[None, :]  # hidden cells the original's margins do not fix
    for line in (*useful, *useful.T):
        assert line.sum() != 1, o  # every hidden cell has a partner the margins leave unknown


def test_aliased_category_labels_are_not_named():
    m = {"pmse": {"value": 0.01, "details": {"aliased": ["disease=HIV"], "k": 4}}}
    out = safe_measures(m, 5, registry, (200,))[0]["pmse"]["details"]
    assert out["aliased"] == ["(a category, not named in safe mode)"] and out["k"] == 4


def test_details_that_solve_for_a_withheld_number_of_suppressed_records_are_withheld():
    m = {"discernibility": {"value": 0.09, "details": {"arx": 463.0, "dm_star": 346.0, "n_records": 40, "suppressed": 3,
                                                       "classes": 4, "class_sizes": [[9, 3], [10, 1]]}},
         "aecs": {"value": 0.07, "details": {"arx": 8.0, "lefevre": 9.25, "k": 9, "classes": 4, "suppressed": 3}},
         "record_linkage": {"value": 0.075, "details": {"records_used": 40}}}
    out = safe_measures(m, 5, registry, (40,))[0]
    d = out["discernibility"]["details"]
    assert d["suppressed"] is None and d["class_sizes"] is None and d["dm_star"] is None  # 40 − 37 = 3, (463 − 346) / 40
    assert out["aecs"]["details"]["lefevre"] is None and out["aecs"]["details"]["k"] is None
    assert out["record_linkage"]["value"] is None  # 0.075 of 40 records: 3 re-identified


def test_statistics_n_is_withheld_when_few_records_lack_a_value():
    from infoloss.safe_statistics import safe_statistics

    stats = {"variables": ["age", "x"], "prot": {"n": {"age": 197, "x": 150}, "mean": {"age": 40.0, "x": 1.0}}}
    out, withheld = safe_statistics(stats, 5, (200,))
    assert out["prot"]["n"] == {"age": None, "x": 150} and out["prot"]["mean"] == {"age": 40.0, "x": 1.0}
    assert withheld == 1


def test_the_original_n_is_withheld_against_the_original_records_the_json_publishes():
    """The JSON's ``original.n_records`` less the original's ``n`` of a variable is its missing count: with 3 of
    200 values missing and a protected file of 210 records, that ``n`` (197) was published whenever no measure's
    details gave the original's 200 records (ks here), and the 3 missing values followed (found by the helper that
    made the report's records column take the safe JSON's n)."""
    rng = np.random.default_rng(1)
    orig = pd.DataFrame({"income": rng.lognormal(10, 1, 200), "age": rng.integers(18, 90, 200).astype(float)})
    orig.loc[[3, 50, 77], "income"] = np.nan
    prot = pd.concat([orig, orig.iloc[:10]], ignore_index=True)
    prot["income"] = prot["income"] * rng.normal(1, 0.05, 210)
    spec = {"variables": {"income": {"scale": "continuous"}, "age": {"scale": "continuous"}}, "pairing": "none"}
    report = infoloss.compare(orig, [prot], spec=spec, measures=["ks"])
    safe = report.to_dict(safe=True)
    assert safe["original"]["n_records"] == 200
    assert safe["scenarios"][0]["statistics"]["orig"]["n"] == {"income": None, "age": 200}
    assert report.to_dict()["scenarios"][0]["statistics"]["orig"]["n"] == {"income": 197, "age": 200}


def _ru_report(risk_id, utility_id, points, original_risk):
    """A report-like object: scenarios (name, risk, utility value) with ``risk_id`` and ``utility_id``."""
    from types import SimpleNamespace

    from infoloss.registry import MeasureResult

    scenarios = [SimpleNamespace(name=name, not_computed={}, measures={
        risk_id: MeasureResult(risk, details={"original": {"value": original_risk}}),
        utility_id: MeasureResult(value)}) for name, risk, value in points]
    return SimpleNamespace(scenarios=scenarios, measure_ids=[risk_id, utility_id])


def _front_by_brute_force(points):
    """Names of the points no other point beats (lower-or-equal on both axes, lower on one), over ``points``."""
    return {p["name"] for p in points
            if not any(q["risk"] <= p["risk"] and q["loss"] <= p["loss"]
                       and (q["risk"] < p["risk"] or q["loss"] < p["loss"]) for q in points)}


def test_decision_rules_leave_out_a_withheld_risk_and_say_so():
    # audit h9b finding 1: few's count of 4 violations is withheld (fewer than 5), but the rules still used it:
    # "no scenario has risk at most 3" gave it as 4, and here the choice few said it was at most 5
    from infoloss.risk.rumap import risk_utility
    from infoloss.safe_risk_utility import safe_risk_utility

    report = _ru_report("k_anonymity_violations", "lambda",
                        [("few", 4.0, 0.5), ("six", 6.0, 0.2), ("nine", 9.0, 0.1)], original_risk=30.0)
    full = risk_utility(report, {"max_risk": 5, "max_loss": 0.3})
    assert full["decisions"]["max_risk"]["choice"] == "few"  # 4 <= 5
    out = safe_risk_utility(full, 5, registry)
    assert [p["risk"] for p in out["points"]] == [30.0, None, 6.0, 9.0]
    rule = out["decisions"]["max_risk"]
    # by hand, over the shown scenarios six (6) and nine (9): none has risk <= 5, the lowest is 6
    assert rule["choice"] is None and rule["eligible"] == [] and rule["ranking"] == []
    assert rule["reason"] == ("no scenario on the map has risk at most 5 (the lowest is 6); protect further or "
                              "accept a higher maximum. Not on the map, so not in this rule: few (its risk "
                              "withheld in safe mode).")
    assert rule["original_within"] is False  # 30 > 5, shown
    rule = out["decisions"]["max_loss"]  # loss <= 0.3: six (risk 6) and nine (9); least risk: six
    assert rule["choice"] == "six" and rule["ranking"] == ["six", "nine"]
    assert rule["reason"].startswith("2 of the 2 scenarios on the map have loss at most 0.3; six has the least "
                                     "risk among them (6).")
    flags = {p["name"]: p["pareto"] for p in out["points"]}
    shown = [p for p in out["points"] if p["risk"] is not None]
    assert flags["few"] is None and {n for n, f in flags.items() if f} == _front_by_brute_force(shown)
    assert out["pareto_front"] == ["six", "nine", "original"]
    assert "few (its risk withheld in safe mode)" in out["pareto_note"]
    # the original's own count withheld: whether it is within the maximum is not said either
    report = _ru_report("k_anonymity_violations", "lambda", [("six", 6.0, 0.2), ("nine", 9.0, 0.1)], original_risk=3.0)
    out = safe_risk_utility(risk_utility(report, {"max_risk": 5}), 5, registry)
    assert out["points"][0]["risk"] is None and out["decisions"]["max_risk"]["original_within"] is None
    assert risk_utility(report, {"max_risk": 5})["decisions"]["max_risk"]["original_within"] is True


def test_pareto_flags_of_shown_points_use_no_withheld_loss():
    # audit h9b finding 2: hours3's loss (1 − gdu) is withheld; strong kept pareto false because only hours3
    # (same risk, loss 0.47) beats it, which told that hours3's loss is at most strong's 0.65
    from infoloss.risk.rumap import risk_utility
    from infoloss.safe_risk_utility import safe_risk_utility

    report = _ru_report("global_risk", "gdu", [("light", 0.00945, 0.9217), ("strong", 0.00138, 0.3502),
                                               ("hours3", 0.00138, 0.5300)], original_risk=0.01098)
    full = risk_utility(report, {"max_loss": 0.6})
    assert {p["name"]: p["pareto"] for p in full["points"]}["strong"] is False
    scenarios = [{"name": n, "measures": {"gdu": {"value": None, "withheld": "safe mode: ..."}}} for n in ["hours3"]]
    out = safe_risk_utility(full, 5, registry, scenarios)
    shown = [p for p in out["points"] if p["loss"] is not None]
    flags = {p["name"]: p["pareto"] for p in out["points"]}
    assert flags["hours3"] is None
    assert {n for n, f in flags.items() if f} == _front_by_brute_force(shown) == {"original", "light", "strong"}
    assert out["pareto_front"] == ["strong", "light", "original"]
    assert out["pareto_note"] == "computed from the points shown alone; left out: hours3 (its loss withheld in safe mode)"
    rule = out["decisions"]["max_loss"]  # loss <= 0.6 among the shown: light (0.078); strong's loss is 0.65
    assert rule["choice"] == "light" and "hours3 (its loss withheld in safe mode)" in rule["reason"]


def test_shares_beside_withheld_counts_in_the_original_block_and_per_variable_details():
    m = {"sample_uniques": {"value": 0.1, "details": {"count": 20, "original": {"value": 0.00333, "count": 1}}},
         "loss_metric": {"value": 0.2, "by_variable": {"sex": 0.015, "age": 0.3, "zip": 0.4},
                         "details": {"arx": {"sex": 0.015, "age": 0.3, "zip": 0.4}}, "n_records": 200}}
    out = safe_measures(m, 5, registry, (200,))[0]
    assert out["sample_uniques"]["details"]["original"]["value"] is None and out["sample_uniques"]["value"] == 0.1
    assert out["loss_metric"]["details"]["arx"] == {"sex": None, "age": None, "zip": 0.4}


def test_the_map_withholds_a_share_risk_the_safe_measures_withhold():
    from infoloss.safe_risk_utility import safe_risk_utility

    block = {"risk_measure": "sample_uniques", "points": [{"name": "original", "original": True, "risk": 0.0033},
                                                          {"name": "p", "original": False, "risk": 0.005},
                                                          {"name": "q", "original": False, "risk": 0.2}],
             "decisions": {}}
    scenarios = [{"name": "p", "measures": {"sample_uniques": {"value": None, "withheld": "safe mode: ...",
                                                               "details": {"original": {"value": None}}}}},
                 {"name": "q", "measures": {"sample_uniques": {"value": 0.2, "details": {"original": {"value": None}}}}}]
    out = safe_risk_utility(block, 5, registry, scenarios)
    assert [p["risk"] for p in out["points"]] == [None, None, 0.2]


def test_a_t_closeness_of_one_minus_c_over_n_is_withheld_for_few_records():
    # a class holding only value v is 1 − p(v) from the file: 0.995 of 200 records says 1 record holds v
    m = {"t_closeness": {"value": 0.995, "by_variable": {"disease": 0.995, "job": 0.4},
                         "details": {"t": 0.2, "by_variable": {
                             "disease": {"max": 0.995, "mean": 0.13, "share_above_t": 0.01, "ordered": False},
                             "job": {"max": 0.4, "mean": 0.1, "share_above_t": 0.3, "ordered": False}},
                             "n_records": 200}}}
    out = safe_measures(m, 5, registry, (200,))[0]["t_closeness"]
    assert out["value"] is None and out["by_variable"] == {"disease": None, "job": 0.4}
    assert out["details"]["by_variable"]["disease"]["max"] is None
    assert out["details"]["by_variable"]["disease"]["share_above_t"] is None  # 2 records
    assert out["details"]["by_variable"]["job"]["max"] == 0.4


def test_more_counts_behind_regressions_classes_and_the_originals_t_closeness():
    from infoloss.safe_analyses import safe_analyses

    m = {"aecs": {"value": 0.1, "details": {"arx": 8.0, "k": 1, "classes": 20, "suppressed": 0}},
         "t_closeness": {"value": 0.4, "by_variable": {"d": 0.4}, "details": {
             "by_variable": {"d": {"max": 0.4, "share_above_t": 0.5, "ordered": False}},
             "original": {"value": 0.995, "by_variable": {"d": {"max": 0.995, "share_above_t": 0.5, "ordered": False}}},
             "n_records": 200}}}
    out = safe_measures(m, 5, registry, (200,))[0]
    assert out["aecs"]["details"]["k"] is None  # the smallest class holds 1 record
    original = out["t_closeness"]["details"]["original"]
    assert original["value"] is None and original["by_variable"]["d"]["max"] is None
    analyses = {"regressions": [{"name": "m", "original": {"n_records": 400, "n_filtered_out": 0, "n_missing": 3,
                                                           "n_not_finite": 0, "n_used": 397, "df_residual": 393.0},
                                 "coefficients": [{"name": "x", "original": {"estimate": 1.0, "n_records": 397}}]}]}
    out = safe_analyses(analyses, 5, (400,))[0]["regressions"][0]
    assert out["original"]["n_missing"] is None and out["original"]["n_used"] is None
    assert out["original"]["df_residual"] is None and out["coefficients"][0]["original"]["n_records"] is None
    assert out["coefficients"][0]["original"]["estimate"] == 1.0


def test_a_variable_with_few_values_gets_no_per_variable_or_per_pair_value():
    # bonus had 3 values: ks = 1/3, x_mae / xbar_mv and il1s gave back its mean, sd and the three values
    rng = np.random.default_rng(1)
    orig = pd.DataFrame({"age": rng.integers(20, 70, 200).astype(float), "income": rng.lognormal(10, .3, 200),
                         "bonus": np.nan})
    orig.loc[[3, 4, 5], "bonus"] = [1111.0, 2222.0, 3333.0]
    prot = orig.assign(bonus=orig.bonus + 7, income=orig.income + 50, age=orig.age + 1)
    spec = {"variables": {v: {"scale": "continuous"} for v in ("age", "income", "bonus")}, "pairing": "row"}
    report = infoloss.compare(orig, prot, spec, measures=["ks", "il1s", "x_mae", "xbar_mv", "r_mse"])
    safe = report.to_dict(safe=True, min_cell=5)["scenarios"][0]["measures"]
    for mid, m in safe.items():
        assert (m.get("by_variable") or {}).get("bonus") is None, mid
        assert all(v is None for k, v in (m.get("by_pair") or {}).items() if "bonus" in k.split("|")), mid


def test_every_per_variable_count_measure_withholds_the_same_variables():
    # records_changed withheld {sex, region} and lambda {sex, B}: records_changed − lambda's region share × n gave sex
    m = {"records_changed": {"value": 82.0, "by_variable": {"sex": 2.0, "region": 30.0, "B": 50.0},
                             "details": {"n_records": 400}},
         "lambda": {"value": 0.05, "by_variable": {"sex": 0.005, "region": 0.075, "B": 0.0125},
                    "details": {"n_records": 400}}}
    out = safe_measures(m, 5, registry, (400,))[0]
    hidden = {mid: {k for k, v in r["by_variable"].items() if v is None} for mid, r in out.items()}
    assert hidden["records_changed"] == hidden["lambda"] == {"sex", "region", "B"}


def test_a_weighted_proportion_of_few_records_is_withheld_by_its_records():
    # with weights, p · n (a weighted share times the records) said 12 records where the category held 3
    rng = np.random.default_rng(2)
    n = 300
    orig = pd.DataFrame({"d": rng.choice(["flu", "cold", "none"], n), "w": np.ones(n)})
    orig.loc[:2, "d"] = "HIV"
    orig.loc[:2, "w"] = 40.0  # 3 records, a large weight
    spec = {"variables": {"d": {"scale": "nominal"}, "w": {"role": "weight"}},
            "analyses": {"estimates": [{"statistic": "proportion", "variable": "d"}]}}
    report = infoloss.compare(orig, orig.copy(), spec, measures=["estimate_ci_overlap"])
    full = report.to_dict()["scenarios"][0]["analyses"]["estimates"]
    hiv = next(r for r in full if r["category"] == "HIV")
    assert hiv["original"]["n_category"] == 3 and hiv["original"]["value"] * n > 5
    safe = report.to_dict(safe=True, min_cell=5)
    assert "HIV" not in json.dumps(safe) and "n_category" not in json.dumps(safe["scenarios"][0]["analyses"])


def test_unnamed_categories_keep_no_sorted_place():
    # "region=(…, 1)" sat between East and North, so the hidden label sorted between them
    from infoloss.safe_analyses import safe_analyses

    def row(domain, n):
        side = {"value": 1.0, "se": 0.1, "lower": 0.8, "upper": 1.2, "n": n, "method": "linearisation"}
        return {"key": f"mean(x) | {domain}", "estimate": "mean(x)", "statistic": "mean", "variable": "x",
                "domain": domain, "category": None, "original": dict(side), "protected": dict(side)}

    rows = [row("region=Aa", 2), row("region=East", 60), row("region=Mm", 3), row("region=North", 70)]
    out = safe_analyses({"estimates": rows}, 5, (135,))[0]["estimates"]
    domains = [r["domain"] for r in out]
    assert domains[:2] == ["region=East", "region=North"]
    assert all(d.startswith("region=(a category of fewer than 5 records, ") for d in domains[2:])


def test_suda_details_msu_share_goes_with_a_withheld_records_with_msu():
    m = {"suda_dis": {"value": 0.005, "details": {"records_with_msu": 1, "msu_share": 0.005, "n_records": 200}}}
    details = safe_measures(m, 5, registry, (200,))[0]["suda_dis"]["details"]
    assert details["records_with_msu"] is None and details["msu_share"] is None


def test_complements_of_small_counts_are_withheld():
    from infoloss.safe_analyses import safe_analyses

    m = {"missing_values": {"value": 11.0, "by_variable": {"a": 11.0},
                            "details": {"total_original": 10, "increase": 1, "n_records": 300,
                                        "original": {"value": 10.0, "by_variable": {"a": 10.0}}}},
         "records_changed": {"value": 400.0, "by_variable": {"a": 200.0, "b": 200.0},
                             "details": {"records_with_change": 298, "n_records": 300}}}
    out = safe_measures(m, 5, registry, (300,))[0]
    assert out["missing_values"]["details"]["total_original"] is None  # 11 − 10 = the 1 suppression
    assert out["missing_values"]["details"]["original"]["value"] is None
    assert out["records_changed"]["details"]["records_with_change"] is None  # 300 − 298 = 2 unchanged
    side = {"value": 5.0, "se": 0.1, "lower": 4.8, "upper": 5.2, "n": 298, "method": "linearisation"}
    rows = [{"key": "mean(x) | all", "estimate": "mean(x)", "statistic": "mean", "variable": "x", "domain": "all",
             "category": None, "original": dict(side), "protected": dict(side)}]
    row = safe_analyses({"estimates": rows}, 5, (300,))[0]["estimates"][0]
    assert row["original"]["n"] is None and row["original"]["value"] == 5.0  # 2 records without a value


def test_safe_passes_leave_the_report_unchanged_and_agree_with_each_other():
    # the t-closeness tail check wrote into the full result's nested details: the first safe pass hid
    # 1 − 1/n, the second (the JSON written after the page) no longer found it and gave it back
    from infoloss.synth import make_spec, make_survey, protect

    orig = make_survey(1_000, n_continuous=3, n_categorical=4, seed=3)
    spec = make_spec(orig)
    keys = [n for n, v in spec["variables"].items() if v.get("scale") == "nominal"][:2]
    sensitive = [n for n, v in spec["variables"].items() if v.get("scale") == "nominal"][2]
    for name in keys:
        spec["variables"][name]["role"] = "key"
    spec["variables"][sensitive]["role"] = "sensitive"
    orig[sensitive] = orig[sensitive].cat.add_categories(["rare"])
    orig.loc[0, sensitive] = "rare"  # one record holds a sensitive value, alone in its class: t-closeness 1 − 1/n
    for name in keys:
        orig[name] = orig[name].cat.add_categories(["unique"])
        orig.loc[0, name] = "unique"
    prot = protect(orig, noise=0.1, pram=0.05, seed=1)
    report = infoloss.compare(orig, prot, spec)
    full = json.dumps(report.to_dict(), sort_keys=True, default=_np)
    first = json.dumps(report.to_dict(safe=True, min_cell=5), sort_keys=True, default=_np)
    report.to_html(safe=True, min_cell=5)
    again = json.dumps(report.to_dict(safe=True, min_cell=5), sort_keys=True, default=_np)
    assert json.dumps(report.to_dict(), sort_keys=True, default=_np) == full
    assert again == first
    tc = json.loads(first)["scenarios"][0]["measures"]["t_closeness"]
    assert tc["value"] is None and "1 − c/n" in tc["withheld"]


def test_a_small_domain_s_total_does_not_come_back_from_the_file_s_total_less_the_others():
    # the domains' sizes were a partition (secondary suppression) but their totals and means add up too:
    # total(all) − A − B − C gave the one record of domain Z's income
    rng = np.random.default_rng(11)
    region = np.array(["A"] * 100 + ["B"] * 60 + ["C"] * 39 + ["Z"])
    income = np.round(rng.lognormal(10, 0.4, 200), 0)
    income[-1] = 123456.0
    df = pd.DataFrame({"region": region, "income": income})
    spec = {"variables": {"region": {"scale": "nominal"}, "income": {"scale": "continuous"}},
            "analyses": {"estimates": [{"statistic": stat, "variable": "income", "by": "region"}
                                       for stat in ("total", "mean", "median")]
                         + [{"statistic": "total", "variable": "income"}], "ci": {"replicates": 20}}}
    rows = infoloss.compare(df, df.assign(income=df["income"] * 1.01), spec, measures=["estimate_ci_overlap"]) \
        .to_dict(safe=True)["scenarios"][0]["analyses"]["estimates"]
    shown = {r["key"]: r["original"]["value"] for r in rows}
    for stat in ("total", "mean"):
        domains = [v for k, v in shown.items() if k.startswith(f"{stat}(income) | region=")]
        assert sum(v is None for v in domains) >= 2, stat  # the small domain and its neighbour
    assert shown["total(income) | all"] is not None
    quantiles = [v for k, v in shown.items() if k.startswith("median(income) | region=") or k.startswith("quantile(income, 0.5) | region=")]
    assert sum(v is None for v in quantiles) == 1  # not additive: only the small domain


def test_t_closeness_of_an_ordinal_sensitive_variable_held_by_one_record_alone_is_withheld():
    # the check covered nominal variables only: an ordinal class holding only the one 'doctorate' gave its count
    rng = np.random.default_rng(0)
    educ = rng.choice(["primary", "secondary", "tertiary"], 300)
    educ[0] = "doctorate"
    df = pd.DataFrame({"k": rng.choice(list("abc"), 300), "educ": educ})
    df.loc[0, "k"] = "z"  # alone in its class
    spec = {"variables": {"k": {"scale": "nominal", "role": "key"},
                          "educ": {"scale": "ordinal", "role": "sensitive",
                                   "order": ["primary", "secondary", "tertiary", "doctorate"]}}}
    report = infoloss.compare(df, df.copy(), spec, measures=["t_closeness"])
    full = report.to_dict()["scenarios"][0]["measures"]["t_closeness"]
    assert full["details"]["by_variable"]["educ"]["max_one_value_records"] == 1
    safe = report.to_dict(safe=True)["scenarios"][0]["measures"]["t_closeness"]
    assert safe["value"] is None and safe["details"]["by_variable"]["educ"]["max"] is None
    assert "max_one_value_records" not in json.dumps(safe)


def test_record_counts_in_details_do_not_give_a_small_missing_count_back():
    # il1s n_compared, gamma n_complete, the mining splits: the file's records minus them were 3 missing values
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"x": rng.normal(size=200), "y": rng.normal(size=200), "g": rng.choice(list("ab"), 200),
                       "t": rng.choice(list("yn"), 200)})
    df.loc[:2, ["y", "t"]] = np.nan
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}, "g": {"scale": "nominal"},
                          "t": {"scale": "nominal", "role": "target"}}}
    prot = df.assign(x=df["x"] + 0.1)
    safe = infoloss.compare(df, prot, spec, measures=["il1s", "gamma", "ml_score_ratio"]).to_dict(safe=True)
    text = json.dumps(safe["scenarios"][0]["measures"])
    assert not re.search(r'"(n_compared|n_complete)": \{[^}]*: 197', text)
    records = safe["scenarios"][0]["measures"]["ml_score_ratio"]["details"]["targets"]["t"]["records"]
    assert all(v is None for v in records.values())


def test_the_original_s_few_missing_values_do_not_come_back_from_the_protected_total():
    # missing_values.value − details.increase (or − suppressions.value) gave the withheld original total, 3
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"a": rng.choice(list("xyz"), 300), "s": rng.normal(size=300), "b": rng.choice(list("uv"), 300)})
    df.loc[:2, "s"] = np.nan  # 3 missing in the original
    prot = df.copy()
    prot.loc[10:16, "a"] = None  # 7 suppressions
    spec = {"variables": {"a": {"scale": "nominal"}, "s": {"scale": "continuous"}, "b": {"scale": "nominal"}}}
    m = infoloss.compare(df, prot, spec, measures=["missing_values", "suppressions"]).to_dict(safe=True)[
        "scenarios"][0]["measures"]
    mv = m["missing_values"]
    # the value less the increase is the original total: one of them is withheld (the value, when a's count is
    # published by the tables and so cannot be the withheld partner of s's 3)
    assert mv["details"]["total_original"] is None and (mv["details"]["increase"] is None or mv["value"] is None)
    assert mv["value"] is None or m["suppressions"]["value"] is None


def test_safe_tables_show_no_net_flow_of_a_few_records_between_the_files():
    # region [35, 140, 118, 7] against [35, 140, 120, 5]: two suppressed South records, a withheld count, came back
    rng = np.random.default_rng(7)
    region = np.array(["North"] * 140 + ["South"] * 120 + ["East"] * 40)
    orig = pd.DataFrame({"region": region, "sex": rng.choice(["M", "F"], 300)})
    prot = orig.copy()
    prot.loc[np.flatnonzero(region == "South")[:2], "region"] = None
    prot.loc[[0, 1, 2], "sex"] = np.where(prot.loc[[0, 1, 2], "sex"] == "M", "F", "M")
    spec = {"variables": {"region": {"scale": "nominal", "role": "key"}, "sex": {"scale": "nominal", "role": "key"}}}
    tables = infoloss.compare(orig, prot, spec, measures=["suppressions"]).to_dict(safe=True)["scenarios"][0]["tables"]
    for t in tables["one_way"].values():
        flows = [abs(a - b) for a, b in zip(t["original"]["count"], t["protected"]["count"])]
        assert all(f == 0 or f >= 5 for f in flows), (t["categories"], flows)
    for t in tables["two_way"].values():
        for ro, rp in zip(t["original"]["count"], t["protected"]["count"]):
            flows = [abs(a - b) for a, b in zip(ro, rp) if a is not None and b is not None]
            assert all(f == 0 or f >= 5 for f in flows), flows


def test_a_median_s_interval_in_a_small_domain_is_withheld_not_its_value():
    # the bootstrap bounds of the median of 10 records were its 3rd and 9th values: 1 or 2 records beyond (the
    # median of 10 records itself, the 5th value, has 4 records below it: withheld; of 12, 5 below it)
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"g": ["small"] * 12 + ["big"] * 288, "x": rng.normal(size=300)})
    spec = {"variables": {"g": {"scale": "nominal"}, "x": {"scale": "continuous"}},
            "analyses": {"estimates": [{"statistic": "median", "variable": "x", "by": "g"}], "ci": {"replicates": 30}}}
    rows = {r["key"]: r for r in infoloss.compare(df, df.assign(x=df["x"] + 0.01), spec,
                                                  measures=["estimate_ci_overlap"]).to_dict(safe=True)[
        "scenarios"][0]["analyses"]["estimates"]}
    small, big = rows["median(x) | g=small"], rows["median(x) | g=big"]
    assert small["original"]["value"] is not None and small["original"]["lower"] is None
    assert small["ci_overlap"] is None
    assert big["original"]["lower"] is not None


def test_categorical_distance_s_mean_is_withheld_beside_a_withheld_variable():
    # records_changed (11) − categorical_distance × n × 5 (10) gave income's withheld count of changes, 1
    rng = np.random.default_rng(5)
    df = pd.DataFrame({"a": rng.choice(list("xyz"), 300), "b": rng.choice(list("uv"), 300),
                       "income": rng.lognormal(10, 1, 300)})
    df.loc[:2, "a"], df.loc[3:5, "b"] = "y", "u"
    prot = df.copy()
    prot.loc[:2, "a"], prot.loc[3:5, "b"] = "x", "v"  # 3 + 3 category changes: each withheld, 6 together
    prot.loc[0, "income"] = 1e5  # one changed income: withheld
    spec = {"variables": {"a": {"scale": "nominal"}, "b": {"scale": "nominal"}, "income": {"scale": "continuous"}}}
    m = infoloss.compare(df, prot, spec, measures=["records_changed", "categorical_distance"]).to_dict(safe=True)[
        "scenarios"][0]["measures"]
    assert m["categorical_distance"]["by_variable"]["a"] is None
    assert m["categorical_distance"]["value"] is None
    assert m["records_changed"]["by_variable"]["income"] is None


def test_safe_tables_keep_categories_whose_small_net_flow_is_part_of_many_shown_changes():
    # PRAM moved 20 records: a category 2 records smaller is no withheld count (the changes, 20, are shown);
    # merging every such category left tables of one 'other' row
    rng = np.random.default_rng(8)
    df = pd.DataFrame({"t": rng.choice(["free", "mortgage", "owner", "rent"], 400, p=[0.4, 0.1, 0.3, 0.2])})
    prot = df.copy()
    moved = rng.choice(400, 20, replace=False)
    prot.loc[moved, "t"] = rng.choice(["free", "mortgage", "owner", "rent"], 20)
    spec = {"variables": {"t": {"scale": "nominal"}}}
    t = infoloss.compare(df, prot, spec, measures=["records_changed"]).to_dict(safe=True)["scenarios"][0][
        "tables"]["one_way"]["t"]
    assert t["categories"] == ["free", "mortgage", "owner", "rent"]


def test_numbers_that_solve_for_a_withheld_count_go_with_it():
    # suda_dis: Dis = U f / (U f + P (1 - f)) with f = 0.01 gives U = Dis P (1 - f) / (f (1 - Dis)) = 2 back
    suda = {"value": 0.001, "details": {"dis_fraction": 0.01, "uniques_U": 2, "uniques_exact": 2,
                                        "pair_records_P": 6, "Dis": 0.02 / (0.02 + 6 * 0.99),
                                        "original": {"uniques_U": 40, "uniques_exact": 40, "pair_records_P": 3,
                                                     "Dis": 0.4 / (0.4 + 3 * 0.99)}}}
    # l_diversity: 8 records of distinct l 1 or 2 with mean 1.75 are 2 and 6
    summary = {"min": 1.0, "q1": 1.75, "median": 2.0, "mean": 1.75, "q3": 2.0, "max": 2.0}
    ldiv = {"value": 0.25, "by_variable": {"s": 0.25}, "details": {"n_records": 8, "by_variable": {"s": {
        "share_below_l": 0.25, "distinct": dict(summary), "entropy": dict(summary), "recursive": dict(summary),
        "distinct_counts": {"0": 0, "1": 2, "2": 6, "3": 0, "4+": 0}}}}}
    # dcr_holdout: 0.00222 of 900 records are 2 exact copies
    dcr = {"value": 0.5, "details": {"dcr_protected": {"median": 0.2, "q05": 0.1, "zero_share": 2 / 900},
                                     "dcr_holdout": {"median": 0.2, "q05": 0.1, "zero_share": 0.0}}}
    raw = {"suda_dis": suda, "l_diversity": ldiv, "dcr_holdout": dcr}
    before = json.dumps(raw, sort_keys=True)
    out = safe_measures(raw, 5, registry, (8, 900))[0]
    d = out["suda_dis"]["details"]
    assert d["Dis"] is None and d["uniques_U"] is None
    assert d["original"]["Dis"] is None and d["original"]["pair_records_P"] is None  # P = 3 from U = 40 and Dis
    block = out["l_diversity"]["details"]["by_variable"]["s"]
    assert block["distinct_counts"]["1"] is None
    assert all(v is None for key in ("distinct", "entropy", "recursive") for v in block[key].values())
    assert out["dcr_holdout"]["details"]["dcr_protected"]["zero_share"] is None
    assert out["dcr_holdout"]["details"]["dcr_holdout"]["zero_share"] == 0.0
    assert out["dcr_holdout"]["details"]["dcr_protected"]["median"] == 0.2
    assert json.dumps(raw, sort_keys=True) == before  # the full results are untouched


def test_numbers_beside_counts_that_are_shown_stay():
    suda = {"value": 0.001, "details": {"dis_fraction": 0.01, "uniques_U": 20, "uniques_exact": 20,
                                        "pair_records_P": 60, "Dis": 0.2 / (0.2 + 60 * 0.99)}}
    summary = {"min": 1.0, "q1": 2.0, "median": 2.0, "mean": 1.8, "q3": 2.0, "max": 2.0}
    ldiv = {"value": 0.2, "by_variable": {"s": 0.2}, "details": {"n_records": 100, "by_variable": {"s": {
        "share_below_l": 0.2, "distinct": dict(summary), "distinct_counts": {"0": 0, "1": 20, "2": 80}}}}}
    out = safe_measures({"suda_dis": suda, "l_diversity": ldiv}, 5, registry, (100,))[0]
    assert out["suda_dis"]["details"]["Dis"] is not None
    assert out["l_diversity"]["details"]["by_variable"]["s"]["distinct"]["mean"] == 1.8


def test_measures_over_few_complete_cases_are_withheld_whole():
    # x observed in records 0-99, y in 98-199: 2 complete cases, though neither variable has few values
    rng = np.random.default_rng(0)
    x, y, z = rng.normal(size=(3, 200))
    x[100:], y[:98] = np.nan, np.nan
    orig = pd.DataFrame({"x": x, "y": y, "z": z})
    prot = orig + rng.normal(scale=0.1, size=orig.shape)
    spec = {"variables": {c: {"scale": "continuous"} for c in "xyz"}}
    report = infoloss.compare(orig, prot, spec, measures=["c_mse", "r_mse", "x_mse"])
    full, safe = report.to_dict()["scenarios"][0], report.to_dict(safe=True)["scenarios"][0]
    assert full["statistics"]["orig"]["n_complete"] == 2
    for mid in ("c_mse", "r_mse"):
        assert full["measures"][mid]["value"] is not None
        assert safe["measures"][mid]["value"] is None and "complete cases" in safe["measures"][mid]["withheld"]
        assert all(v is None for v in safe["measures"][mid]["details"].values() if not isinstance(v, str)
                   and v not in (3, 9))
    assert safe["measures"]["x_mse"]["value"] == full["measures"]["x_mse"]["value"]  # cell by cell, not cases


def test_a_count_measures_partner_is_never_a_count_the_tables_publish():
    # suppressions: a 4 (small), b 6, c 40; the one-way tables show b's and c's missing counts (6 and 40), so
    # withholding b beside a would hide nothing: a = 50 - 40 - 6
    rng = np.random.default_rng(0)
    n = 400
    orig = pd.DataFrame({v: rng.choice(list("xyz"), n) for v in "abc"})
    prot = orig.copy()
    for v, k in (("a", 4), ("b", 6), ("c", 40)):  # each from category x alone: no category loses 1 to 4 values
        prot.loc[prot.index[orig[v] == "x"][:k], v] = None
    spec = {"variables": {v: {"scale": "nominal", "role": "key"} for v in "abc"}, "pairing": "row"}
    report = infoloss.compare(orig, prot, spec, measures=["suppressions", "missing_values"])
    full, safe = report.to_dict()["scenarios"][0], report.to_dict(safe=True)["scenarios"][0]
    assert full["measures"]["suppressions"]["by_variable"] == {"a": 4, "b": 6, "c": 40}
    assert safe["tables"]["one_way"]["b"]["protected"]["count"][-1] == 6  # published: 'missing' of b
    for mid in ("suppressions", "missing_values"):
        m = safe["measures"][mid]
        assert m["by_variable"]["a"] is None
        known = sum(v for v in m["by_variable"].values() if v is not None)
        published = sum(safe["tables"]["one_way"][v]["protected"]["count"][-1] for v in m["by_variable"]
                        if m["by_variable"][v] is None and "missing" in safe["tables"]["one_way"][v]["categories"])
        assert m["value"] is None or m["value"] - known - published >= 5, (mid, m)


def test_generalisation_summaries_per_variable_follow_the_withheld_counts():
    m = {"suppressions": {"value": 50, "by_variable": {"region": 3, "sex": 1, "edu": 46},
                          "details": {"n_records": 400}},
         "gcp": {"value": 0.04, "by_variable": {"region": 0.0075, "sex": 0.0025, "edu": 0.115}},
         "ambiguity": {"value": 1.1, "by_variable": {"region": 1.0225, "sex": 1.0025, "edu": 1.3}}}
    out = safe_measures(m, 5, registry, (400,))[0]
    withheld = {k for k, v in out["suppressions"]["by_variable"].items() if v is None}
    assert {"region", "sex"} <= withheld
    for mid in ("gcp", "ambiguity"):
        assert all(out[mid]["by_variable"][k] is None for k in withheld)


def test_interval_disclosure_robusts_shares_of_few_records_are_withheld():
    m = {"interval_disclosure_robust": {"value": 0.125, "details": {
        "records_used": 8, "risk1": 0.125, "risk2": 0.5, "covariance_records": 8}}}
    out = safe_measures(m, 5, registry, (8,))[0]["interval_disclosure_robust"]
    assert out["value"] is None and out["details"]["risk1"] is None  # 1 record of 8
    assert out["details"]["risk2"] is None  # 4 records, and 4 not


def test_safe_tables_hide_a_categorys_few_suppressed_values_among_many():
    # suppression alone: North loses 2 values, South 6 (8 moved in all): North's 2 is a count of its values
    # suppressed, so North joins "other" (its difference of 2 was shown before)
    region = np.array(["North"] * 140 + ["South"] * 120 + ["East"] * 40)
    orig = pd.DataFrame({"region": region})
    prot = orig.copy()
    prot.loc[np.flatnonzero(region == "North")[:2], "region"] = None
    prot.loc[np.flatnonzero(region == "South")[:6], "region"] = None
    spec = {"variables": {"region": {"scale": "nominal", "role": "key"}}}
    t = infoloss.compare(orig, prot, spec, measures=["suppressions"]).to_dict(safe=True)["scenarios"][0][
        "tables"]["one_way"]["region"]
    flows = [abs(a - b) for a, b in zip(t["original"]["count"], t["protected"]["count"])]
    assert all(f == 0 or f >= 5 for f in flows), (t["categories"], flows)
    assert "North" not in t["categories"]


def test_a_total_is_withheld_when_its_withheld_parts_are_pinned_by_a_bound():
    # records_changed 20 over 8 records: a = 4 withheld with b = 8; 20 − 8 = 12 = a + b with each at most 8, so
    # a (known to be under 5 or a partner) is at least 4: the bound pins the withheld parts
    m = {"records_changed": {"value": 20, "by_variable": {"a": 4, "b": 8, "c": 8},
                             "details": {"n_records": 8, "records_with_change": 8}}}
    out = safe_measures(m, 5, registry, (8,))[0]["records_changed"]
    assert out["by_variable"]["a"] is None and out["value"] is None
    # missing_values 397 of 400, all in one variable withheld for its 3 records with a value
    m = {"missing_values": {"value": 397, "by_variable": {"rare": 397, "a": 0, "b": 0},
                            "details": {"n_records": 400, "total_original": 397}}}
    out = safe_measures(m, 5, registry, (400,))[0]["missing_values"]
    assert out["by_variable"]["rare"] is None and out["value"] is None


def test_every_count_measures_total_goes_when_a_withheld_count_is_pinned():
    # 397 of 400 values of a suppressed, 10 of b: a's 397 leaves 3 records with a value (withheld in
    # missing_values); suppressions and records_changed showed 407 and b = 10, so a = 397 came back
    orig = pd.DataFrame({"a": ["u", "v"] * 200, "b": ["p", "q"] * 200, "x": ["s", "t"] * 200})
    prot = orig.copy()
    prot.loc[prot.index[:397], "a"] = None
    prot.loc[prot.index[:10], "b"] = None
    spec = {"variables": {v: {"scale": "nominal"} for v in "abx"}, "pairing": "row"}
    m = infoloss.compare(orig, prot, spec, measures=["missing_values", "suppressions", "records_changed"]
                         ).to_dict(safe=True)["scenarios"][0]["measures"]
    for mid in ("missing_values", "suppressions", "records_changed"):
        assert m[mid]["by_variable"]["a"] is None
        assert m[mid]["value"] is None, mid


def test_a_per_variable_count_of_all_records_but_a_few_is_withheld():
    # 3999 of 4000 values of ASSETS changed: one record kept its value (records_with_change is withheld so too)
    m = {"records_changed": {"value": 4009, "by_variable": {"ASSETS": 3999, "AGE": 10},
                             "details": {"n_records": 4000, "records_with_change": 4000}}}
    out = safe_measures(m, 5, registry, (4000,))[0]["records_changed"]
    assert out["by_variable"]["ASSETS"] is None


def test_no_value_gives_back_a_count_through_a_published_missing_count():
    # 188 values of a suppressed (its missing count is in the tables), 3 of b: missing_values' increase (its value,
    # the original having none) less a's published 188 gave b's 3, and so did lambda's mean share
    rng = np.random.default_rng(2)
    n = 2000
    orig = pd.DataFrame({"a": rng.choice(list("pqrs"), n), "b": rng.choice(list("xyz"), n),
                         "c": rng.choice(list("uv"), n)})
    prot = orig.copy()
    prot.loc[prot.index[orig.a == "p"][:188], "a"] = None
    prot.loc[prot.index[orig.b == "x"][:3], "b"] = None
    spec = {"variables": {v: {"scale": "nominal", "role": "key"} for v in "abc"}, "pairing": "row"}
    ids = ["missing_values", "suppressions", "records_changed", "lambda"]
    report = infoloss.compare(orig, prot, spec, measures=ids)
    s = report.to_dict(safe=True)["scenarios"][0]
    assert s["tables"]["one_way"]["a"]["protected"]["count"][-1] == 188  # published
    m = s["measures"]
    for mid in ids:
        assert m[mid]["by_variable"]["b"] is None
        assert m[mid]["value"] is None, mid  # the value less the shown, less a's 188, would be b's 3
    assert m["missing_values"]["details"]["increase"] is None


def test_ebil_of_a_few_moved_records_is_withheld():
    # 2 records of water suppressed: EBIL gives 100 · 2 ln 2 = 138.63 for them, the count records_changed withholds
    rng = np.random.default_rng(3)
    orig = pd.DataFrame({"water": rng.choice(list("abc"), 300), "roof": rng.choice(list("xy"), 300)})
    prot = orig.copy()
    prot.loc[[0, 1], "water"] = None
    spec = {"variables": {"water": {"scale": "nominal", "role": "key"}, "roof": {"scale": "nominal", "role": "key"}},
            "pairing": "row"}
    report = infoloss.compare(orig, prot, spec, measures=["ebil", "aad", "records_changed"])
    full, safe = (report.to_dict(safe=s)["scenarios"][0]["measures"] for s in (False, True))
    assert full["ebil"]["by_variable"]["water"] > 0
    assert safe["ebil"]["by_variable"]["water"] is None and safe["ebil"]["value"] is None


def _one_unique_file(n: int = 300, uniques: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    df = pd.DataFrame({v: rng.choice(list(levels), n) for v, levels in (("a", "xy"), ("b", "uv"), ("c", "pq"))})
    for k in range(uniques):  # records unique on every key, each with MSUs of size 1
        df.loc[k, ["a", "b", "c"]] = [f"a{k}", f"b{k}", f"c{k}"]
    return df


def test_suda_score_means_go_with_few_records_with_an_msu():
    # one record with MSUs: the mean SUDA score times the 300 records is that record's score (max_score, withheld),
    # and suda_dis's value, the mean DIS, times 300 its DIS (max_dis, withheld)
    df = _one_unique_file()
    spec = {"variables": {v: {"scale": "nominal", "role": "key"} for v in "abc"}}
    report = infoloss.compare(df, df.copy(), spec, measures=["suda_dis", "msu_share"])
    full = report.to_dict()["scenarios"][0]["measures"]["suda_dis"]
    assert full["details"]["records_with_msu"] == 1
    assert full["details"]["mean_score"] * 300 == pytest.approx(full["details"]["max_score"])
    assert full["value"] * 300 == pytest.approx(full["details"]["max_dis"])
    safe = report.to_dict(safe=True, min_cell=5)["scenarios"][0]["measures"]
    for mid in ("suda_dis", "msu_share"):
        for block in (safe[mid]["details"], safe[mid]["details"]["original"]):
            assert block["mean_score"] is None and block["contribution_percent"] is None
            assert block.get("mean_dis") is None
    assert safe["suda_dis"]["value"] is None and safe["suda_dis"]["details"]["original"]["value"] is None
    assert "MSU" in safe["suda_dis"]["withheld"]


def test_suda_score_means_stay_with_enough_records_with_an_msu():
    df = _one_unique_file(uniques=6)
    spec = {"variables": {v: {"scale": "nominal", "role": "key"} for v in "abc"}}
    report = infoloss.compare(df, df.copy(), spec, measures=["suda_dis"])
    safe = report.to_dict(safe=True, min_cell=5)["scenarios"][0]["measures"]["suda_dis"]
    assert safe["details"]["records_with_msu"] == 6
    assert safe["value"] is not None and safe["details"]["mean_score"] is not None
    assert safe["details"]["contribution_percent"]["a"] is not None


def test_safe_mode_keeps_record_counts_held_as_floats_and_whole_degrees_of_freedom():
    # "whole-file record counts stay": the original's k-anonymity violations (1425.0) became 1420.0 beside the
    # 1425 of its by_k, and a regression's 1991 degrees of freedom became 1990 (found by the docs audit)
    rng = np.random.default_rng(3)
    n = 2000
    orig = pd.DataFrame({"a": rng.integers(0, 40, n), "b": rng.integers(0, 40, n), "x": rng.normal(size=n)})
    orig["y"] = orig["x"] * 2 + rng.normal(size=n)
    prot = orig.assign(a=orig["a"] // 2)
    spec = {"variables": {"a": {"scale": "nominal", "role": "key"}, "b": {"scale": "nominal", "role": "key"},
                          "x": {"scale": "continuous"}, "y": {"scale": "continuous"}},
            "analyses": {"regressions": [{"name": "r", "formula": "y ~ x"}]}}
    report = infoloss.compare(orig, prot, spec, measures=["k_anonymity_violations", "regression_ci_overlap"])
    full, safe = report.to_dict()["scenarios"][0], report.to_dict(safe=True)["scenarios"][0]
    count = full["measures"]["k_anonymity_violations"]["details"]["original"]["value"]
    assert count > 1000 and count % 10 != 0
    original = safe["measures"]["k_anonymity_violations"]["details"]["original"]
    assert original["value"] == count == original["by_k"]["3"]["unweighted"]
    assert safe["analyses"]["regressions"][0]["original"]["df_residual"] == n - 2
    assert safe["analyses"]["regressions"][0]["coefficients"][1]["original"]["estimate"] == pytest.approx(
        full["analyses"]["regressions"][0]["coefficients"][1]["original"]["estimate"], rel=5e-3)


def test_weighted_table_measures_resting_on_few_changed_records_are_withheld():
    # weighted, AAD x cells / 2 is the weight of the records moved: with one record suppressed it gave that record's
    # weight back (francdat: 6.8 over 5 cells = 17), while records_changed said "fewer than 5" (report review)
    rng = np.random.default_rng(4)
    n = 300
    orig = pd.DataFrame({"a": rng.choice(list("pqrs"), n), "b": rng.choice(list("xyz"), n),
                         "w": rng.integers(10, 500, n).astype(float)})
    prot = orig.copy()
    prot.loc[3, "a"] = None  # one record of a suppressed
    moved = prot.index[prot["b"] == "x"][:12]
    prot.loc[moved, "b"] = "y"  # twelve records of b changed
    spec = {"variables": {"a": {"scale": "nominal"}, "b": {"scale": "nominal"}, "w": {"role": "weight"}}}
    report = infoloss.compare(orig, prot, spec, measures=["aad", "ctbil", "ebil"])
    full = report.to_dict()["scenarios"][0]["measures"]
    safe = report.to_dict(safe=True)["scenarios"][0]["measures"]
    assert full["aad"]["by_variable"]["a"] * 5 / 2 == pytest.approx(orig.loc[3, "w"])  # the record's weight
    assert full["aad"]["details"]["records_moved"] == {"a": 1, "b": 12}
    assert safe["aad"]["by_variable"] == {"a": None, "b": full["aad"]["by_variable"]["b"]}
    assert safe["aad"]["by_pair"]["a|b"] is None and safe["aad"]["value"] is None
    assert safe["aad"]["details"]["records_moved"] == {"a": None, "b": 12}
    assert safe["ctbil"]["value"] is None and safe["ebil"]["by_variable"]["a"] is None


def test_the_nearest_pairing_block_shows_no_small_count_and_no_own_distance():
    # scenarios[].pairing (and every details.pairing) showed key_mismatches {'1': 1} (one synthetic record whose key
    # combination the original lacks) and the unrounded ends of the nearest-record distances (safe-mode audit)
    rng = np.random.default_rng(4)
    n = 300
    df = pd.DataFrame({"region": rng.choice(["north", "south", "east", "west"], n), "sex": rng.choice(["m", "f"], n),
                       "income": rng.lognormal(10, 0.5, n).round(0)})
    df.loc[:1, ["region", "sex"]] = ["island", "m"]
    syn = df.sample(280, replace=True, random_state=3).reset_index(drop=True)
    syn["income"] = syn["income"] * rng.lognormal(0, 0.1, len(syn))
    syn.loc[0, ["region", "sex"]] = ["island", "f"]  # a key combination the original lacks
    spec = {"variables": {"region": {"scale": "nominal", "role": "key"}, "sex": {"scale": "nominal", "role": "key"},
                          "income": {"scale": "continuous"}}, "pairing": "nearest"}
    report = infoloss.compare(df, [syn], spec, measures=["il1s"])
    full = report.to_dict()["scenarios"][0]["pairing"]
    assert full["key_mismatches"]["1"] == 1 and full["distance_quantiles"]["1"] > 0
    safe = json.loads(report.to_json(safe=True, min_cell=5))["scenarios"][0]
    for block in (safe["pairing"], safe["measures"]["il1s"]["details"]["pairing"]):
        assert block["key_mismatches"]["1"] is None and block["key_mismatches"]["0"] is None
        assert block["distance_quantiles"]["0"] is None and block["distance_quantiles"]["1"] is None
        assert block["distance_quantiles"]["0.5"] == float(f"{full['distance_quantiles']['0.5']:.3g}")


def test_k_anonymity_counts_give_no_small_step_between_two_ks():
    # by_k's counts are cumulative: 10 records in classes of size 1 and 12 in classes under 3 gave the 2 records of
    # one pair, as did the value (k = 3) less sample_uniques' count (found by the safe-mode audit)
    rng = np.random.default_rng(5)
    n = 400
    df = pd.DataFrame({"a": rng.choice(list("xy"), n), "b": rng.choice(list("uv"), n), "c": rng.choice(list("pq"), n)})
    for i in range(10):
        df.loc[i, ["a", "b", "c"]] = [f"a{i}", "u", "p"]
    df.loc[[10, 11], ["a", "b", "c"]] = ["zz", "u", "p"]
    spec = {"variables": {v: {"scale": "nominal", "role": "key"} for v in "abc"}}
    report = infoloss.compare(df, [df.copy()], spec, measures=["k_anonymity_violations", "sample_uniques"])
    full = report.to_dict()["scenarios"][0]["measures"]
    assert full["k_anonymity_violations"]["details"]["original"]["by_k"]["3"]["unweighted"] == 12
    safe = report.to_dict(safe=True)["scenarios"][0]["measures"]
    kav, uniques = safe["k_anonymity_violations"], safe["sample_uniques"]
    for block, value in ((kav["details"], kav["value"]), (kav["details"]["original"], kav["details"]["original"]["value"])):
        shown = sorted(v["unweighted"] for v in block["by_k"].values() if v["unweighted"] is not None)
        shown += [uniques["details"]["count"]] + ([value] if value is not None else [])
        steps = np.diff(sorted(set([0] + shown)))
        assert not ((steps > 0) & (steps < 5)).any(), shown
    assert kav["value"] is None and "key classes" in kav["withheld"]
    assert uniques["details"]["count"] == 10  # 10 uniques: shown


def test_a_partner_withheld_beside_a_small_count_is_withheld_in_every_per_variable_detail():
    # 2 suppressed ages (small) and 30 incomes: both by_variable entries were withheld, but suppressions'
    # details.net still showed inc = 30, so the value 32 less 30 gave the 2 ages back (found by the audit)
    rng = np.random.default_rng(1)
    o = pd.DataFrame({"age": rng.integers(18, 90, 150).astype(float), "inc": rng.normal(3e4, 1e4, 150),
                      "sex": rng.choice(["m", "f"], 150)})
    p = o.copy()
    p.loc[[3, 7], "age"] = np.nan
    p.loc[0:29, "inc"] = np.nan
    full = infoloss.compare(o, p, measures=["missing_values", "suppressions"], aggregates=False)
    assert full.to_dict()["scenarios"][0]["measures"]["suppressions"]["details"]["net"] == {"age": 2, "inc": 30, "sex": 0}
    scenario = full.to_dict(safe=True, min_cell=5)["scenarios"][0]
    safe = scenario["measures"]
    # the safe statistics show inc's n (150 - 30): its 30 missing values are known, no partner that hides the 2
    # ages; the value (32) is withheld instead
    assert scenario["statistics"]["prot"]["n"]["inc"] == 120
    for mid in ("missing_values", "suppressions"):
        assert safe[mid]["by_variable"]["age"] is None and safe[mid]["value"] is None
        hidden = {v for v, x in safe[mid]["by_variable"].items() if x is None}
        for key, per in safe[mid]["details"].items():
            if isinstance(per, dict) and "inc" in per and key != "original":
                assert all(per[v] is None for v in hidden), (mid, key)


def test_the_terminal_summary_with_safe_shows_what_the_safe_json_shows(tmp_path):
    # --safe without --json or --html printed the raw table: 9 suppressions, which the safe JSON withholds
    # (found by the docs audit)
    rng = np.random.default_rng(0)
    o = pd.DataFrame({"x": rng.normal(size=200), "g": rng.choice(list("abc"), 200)})
    p = o.copy()
    p.loc[:8, "x"] = np.nan
    o.to_csv(tmp_path / "o.csv", index=False)
    p.to_csv(tmp_path / "p.csv", index=False)
    args = ["compare", str(tmp_path / "o.csv"), str(tmp_path / "p.csv"), "--measures", "suppressions,il1s"]
    def suppressions_cell(output: str) -> str:
        return next(line for line in output.splitlines() if "suppressions" in line).split("│")[-2].strip()

    plain = CliRunner().invoke(app, args)
    assert plain.exit_code == 0 and suppressions_cell(plain.output) == "9"
    safe = CliRunner().invoke(app, [*args, "--safe", "--min-cell", "10"])
    assert safe.exit_code == 0 and suppressions_cell(safe.output) == "withheld", safe.output


def test_a_partner_of_a_withheld_missing_count_is_not_one_the_statistics_n_gives_back():
    """3 suppressed values of ``sex``: missing_values withheld them with a partner, a continuous variable with 39
    missing values, whose count the safe statistics' n (200 - 39) shows anyway; the value less the counts shown
    and that one gave the 3 back.  Such a variable is known, no partner: the value is withheld instead."""
    rng = np.random.default_rng(3)
    n = 200
    orig = pd.DataFrame({"x": rng.normal(size=n), "y": rng.normal(size=n),
                         "sex": rng.choice(["m", "f"], n), "region": rng.choice(["a", "b", "c"], n)})
    orig.loc[:38, "x"] = np.nan  # 39 missing values of x, in both files
    orig.loc[100:139, "y"] = np.nan  # 40 of y
    prot = orig.copy()
    prot.loc[[150, 160, 170], "sex"] = None  # 3 suppressions
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"},
                          "sex": {"scale": "nominal"}, "region": {"scale": "nominal"}}, "pairing": "row"}
    report = infoloss.compare(orig, prot, spec, measures=["missing_values", "suppressions"], aggregates=False)
    safe = report.to_dict(safe=True, min_cell=5)["scenarios"][0]
    mv = safe["measures"]["missing_values"]
    assert mv["by_variable"]["sex"] is None
    n_shown = safe["statistics"]["prot"]["n"]
    # missing values of each variable the statistics show: the file's records less n
    known = {v: n - c for v, c in n_shown.items() if c is not None}  # x: 39, y: 40
    shown = {v: c for v, c in mv["by_variable"].items() if c is not None}
    if mv["value"] is not None:
        rest = mv["value"] - sum({**known, **shown}.values())
        assert not 0 < rest < 5, f"the value less the known counts gives {rest} back"
    assert mv["value"] is None


def _suda_dis(cells, records_with_msu):
    table = dict(zip(["== 0", "(0.0, 0.1]", "(0.1, 0.2]", "(0.2, 0.3]", "> 0.7"], cells))
    return {"suda_dis": {"value": 0.05, "details": {"records_with_msu": records_with_msu,
                                                    "msu_share": records_with_msu / 120, "dis_table": table,
                                                    "n_records": 120}},
            "msu_share": {"value": records_with_msu / 120, "details": {"records_with_msu": records_with_msu}}}


def test_the_dis_cell_of_records_without_an_msu_is_known_beside_records_with_msu():
    """DIS 0 holds the records without an MSU: with records_with_msu shown (101 of 120), the "== 0" cell (19) is
    known, so withholding it beside a cell of 1 record hid nothing (120 - 101 = 19, then 101 - 100 = 1).  The
    small cell's partner is another cell of records with an MSU."""
    out, _ = safe_measures(_suda_dis([19, 100, 1, 0, 0], 101), 5, registry, (120,))
    details = out["suda_dis"]["details"]
    table = details["dis_table"]
    assert table["(0.1, 0.2]"] is None
    n_shown = details["records_with_msu"] if details["records_with_msu"] is not None else \
        (None if out["msu_share"]["value"] is None else round(out["msu_share"]["value"] * 120))
    if n_shown is not None:  # the "== 0" cell is known: the cells of records with an MSU less those shown
        rest = n_shown - sum(v for k, v in table.items() if k != "== 0" and v is not None)
        assert not 0 < rest < 5, f"records_with_msu less the cells shown gives {rest} back"
    assert table["(0.0, 0.1]"] is None and table["== 0"] == 19 and details["records_with_msu"] == 101


def test_a_small_dis_cell_of_records_without_an_msu_withholds_records_with_msu():
    """3 records without an MSU: records_with_msu (117 of 120) and msu_share would give them back."""
    out, _ = safe_measures(_suda_dis([3, 100, 17, 0, 0], 117), 5, registry, (120,))
    assert out["suda_dis"]["details"]["dis_table"]["== 0"] is None
    assert out["suda_dis"]["details"]["records_with_msu"] is None
    assert out["suda_dis"]["details"]["msu_share"] is None
    assert out["msu_share"]["details"]["records_with_msu"] is None and out["msu_share"]["value"] is None


def _missing_counts(safe_measures_json, variable):
    """A variable's missing counts as the safe JSON shows them (None: withheld)."""
    mv, sp = safe_measures_json["missing_values"], safe_measures_json["suppressions"]
    return {"original": mv["details"]["original"][variable], "protected": mv["by_variable"][variable],
            "suppressed": sp["by_variable"][variable], "filled": sp["details"]["filled"][variable],
            "net": sp["details"]["net"][variable]}


def test_a_withheld_missing_count_does_not_come_back_as_original_plus_suppressed_less_filled():
    # x: 8 missing in the original, the protected file fills 5 of them and suppresses none: its 3 missing values,
    # withheld, were the original's 8 + 0 suppressed − 5 filled (or 8 + net −5, or the statistics' n: 120 − 112)
    rng = np.random.default_rng(0)
    n = 120
    orig = pd.DataFrame({"x": rng.normal(size=n), "y": rng.normal(size=n), "g": rng.choice(list("abc"), n),
                         "h": rng.choice(list("uv"), n)})
    orig.loc[:7, "x"] = np.nan
    prot = orig.copy()
    prot.loc[:4, "x"] = 1.0
    prot.loc[20:29, "g"] = None
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}, "g": {"scale": "nominal"},
                          "h": {"scale": "nominal"}}, "pairing": "row"}
    report = infoloss.compare(orig, prot, spec, measures=["missing_values", "suppressions", "records_changed"])
    full = _missing_counts(report.to_dict()["scenarios"][0]["measures"], "x")
    assert full == {"original": 8, "protected": 3, "suppressed": 0, "filled": 5, "net": -5}
    s = report.to_dict(safe=True)["scenarios"][0]
    shown = _missing_counts(s["measures"], "x")
    assert shown["protected"] is None
    original = shown["original"]
    if original is None and s["statistics"]["orig"]["n"]["x"] is not None:  # the records less those with a value
        original = s["n_records"] - s["statistics"]["orig"]["n"]["x"]
    assert original == 8  # the original's 8 stay: it is the protected file's 3 that are withheld
    assert shown["net"] is None  # 8 + net
    assert shown["suppressed"] is None or shown["filled"] is None  # 8 + suppressed − filled
    assert s["safe"]["withheld"] >= 2


def test_the_original_s_withheld_missing_count_does_not_come_back_from_the_protected_count_less_net():
    # x: 3 missing in the original, 8 more suppressed: the protected file's 11 less net 8 (or less the 8 suppressed,
    # plus 0 filled) gave the original's withheld 3; and the original's total less the others' counts shown
    rng = np.random.default_rng(1)
    n = 150
    orig = pd.DataFrame({"x": rng.choice(list("pqr"), n), "g": rng.choice(list("abc"), n),
                         "h": rng.choice(list("uv"), n)})
    orig.loc[:2, "x"] = None
    orig.loc[100:111, "h"] = None  # 12 missing in the original's h
    prot = orig.copy()
    prot.loc[10:17, "x"] = None
    prot.loc[30:39, "g"] = None
    spec = {"variables": {v: {"scale": "nominal"} for v in "xgh"}, "pairing": "row"}
    report = infoloss.compare(orig, prot, spec, measures=["missing_values", "suppressions"])
    full = _missing_counts(report.to_dict()["scenarios"][0]["measures"], "x")
    assert full == {"original": 3, "protected": 11, "suppressed": 8, "filled": 0, "net": 8}
    s = report.to_dict(safe=True)["scenarios"][0]
    m = s["measures"]
    shown = _missing_counts(m, "x")
    assert shown["original"] is None
    protected = shown["protected"]
    table = s["tables"]["one_way"]["x"]
    if protected is None and "missing" in table["categories"]:
        protected = table["protected"]["count"][table["categories"].index("missing")]
    assert protected is None or (shown["net"] is None and (shown["suppressed"] is None or shown["filled"] is None))
    total, others = m["missing_values"]["details"]["total_original"], m["missing_values"]["details"]["original"]
    assert total is None or any(v is None for k, v in others.items() if k != "x")  # no total less the others


def test_no_small_missing_count_comes_back_from_the_published_counts_by_linear_algebra():
    # random files: every count safe mode withholds is checked against what the safe JSON's numbers solve for
    # a variable's counts over its records missing in both files, in the original alone, in the protected alone
    terms = {"original": (1, 1, 0), "protected": (1, 0, 1), "suppressed": (0, 0, 1), "filled": (0, 1, 0),
             "net": (0, -1, 1)}

    def solvable(rows, target):
        return np.linalg.matrix_rank(np.vstack(rows + [target])) == np.linalg.matrix_rank(np.vstack(rows))

    leaks = 0
    rng = np.random.default_rng(5)
    for _ in range(40):
        n = int(rng.integers(60, 160))
        orig = pd.DataFrame({"x": rng.normal(size=n), "y": rng.normal(size=n), "g": rng.choice(list("abc"), n),
                             "h": rng.choice(list("uv"), n)})
        prot, rows, pos = orig.copy(), rng.permutation(n), 0
        for v in orig:
            missing = np.nan if v in "xy" else None
            k = int(rng.choice([0, 1, 2, 3, 4, 6, 8, 12]))
            filled = int(rng.integers(0, k + 1))
            orig.loc[rows[pos:pos + k], v] = missing
            prot.loc[rows[pos:pos + k], v] = missing
            prot.loc[rows[pos:pos + filled], v] = 1.0 if v in "xy" else "a"
            pos += k
            k = int(rng.choice([0, 1, 2, 3, 4, 6, 8, 12]))
            prot.loc[rows[pos:pos + k], v] = missing
            pos += k
        spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"},
                              "g": {"scale": "nominal"}, "h": {"scale": "nominal"}}, "pairing": "row"}
        report = infoloss.compare(orig, prot, spec, measures=["missing_values", "suppressions"], aggregates=False)
        full = report.to_dict()["scenarios"][0]
        s = report.to_dict(safe=True)["scenarios"][0]
        names = list(orig)

        def vector(kind, name=None):
            out = np.zeros(3 * len(names))
            for i, v in enumerate(names):
                if name in (None, v):
                    out[3 * i:3 * i + 3] = terms[kind]
            return out

        rows_shown = []
        for v in names:
            for kind, value in _missing_counts(s["measures"], v).items():
                if value is not None:
                    rows_shown.append(vector(kind, v))
            for side, kind in (("orig", "original"), ("prot", "protected")):
                if v in "xy" and s["statistics"][side]["n"][v] is not None:
                    rows_shown.append(vector(kind, v))
            table = s["tables"]["one_way"].get(v) or {"categories": []}
            if "missing" in table["categories"]:
                i = table["categories"].index("missing")
                for side, kind in (("original", "original"), ("protected", "protected")):
                    if table[side]["count"][i] is not None:
                        rows_shown.append(vector(kind, v))
        mv, sp = s["measures"]["missing_values"], s["measures"]["suppressions"]
        for value, kind in ((mv["value"], "protected"), (mv["details"]["total_original"], "original"),
                            (mv["details"]["increase"], "net"), (sp["value"], "suppressed")):
            if value is not None:
                rows_shown.append(vector(kind))
        for v in names:
            truth = _missing_counts(full["measures"], v)
            for kind, value in _missing_counts(s["measures"], v).items():
                if kind != "net" and value is None and 0 < truth[kind] < 5 and rows_shown \
                        and solvable(rows_shown, vector(kind, v)):
                    leaks += 1
    assert leaks == 0


def test_the_missing_counts_system_solved_per_group_equals_the_whole_matrix():
    """safe_results._MissingCounts works each variable's three unknowns out in R³ per group of variables with the
    same counts shown (so 3,000 variables take a fraction of a second); what it finds solvable, and how much it
    tells of the original's counts, equal numpy's ranks of the whole system as one matrix, on random systems."""
    from infoloss.safe_results import MISSING_COUNT_TERMS, _MissingCounts

    kinds = list(MISSING_COUNT_TERMS)
    rng = np.random.default_rng(3)
    for _ in range(300):
        names = [f"v{i}" for i in range(int(rng.integers(1, 6)))]

        def vector(kind, name):
            out = np.zeros(3 * len(names))
            for i, v in enumerate(names):
                if name in (None, v):
                    out[3 * i:3 * i + 3] = MISSING_COUNT_TERMS[kind]
            return out

        def some(p):
            return [(k, n) for k in kinds for n in names + [None] if rng.random() < p]

        fixed, keys = some(0.15), some(0.3)
        targets = [(n, k) for k in kinds if k != "net" for n in names if rng.random() < 0.3]
        rows = np.array([vector(*key) for key in fixed + keys] or [np.zeros(3 * len(names))])
        rank = np.linalg.matrix_rank(rows)
        solved = [np.linalg.matrix_rank(np.vstack([rows, vector(k, n)])) == rank for n, k in targets]
        originals = np.array([vector("original", n) for n in names])
        about = rank + len(names) - np.linalg.matrix_rank(np.vstack([rows, originals]))
        system = _MissingCounts(names, fixed)
        assert system.solved(keys, targets) == solved
        assert system.solvable(keys, targets) == sum(solved) + about


def test_no_small_missing_count_comes_back_when_the_totals_go_first(monkeypatch):
    """The shortcut for very wide files (more than ``_SOLVE_ONE_BY_ONE`` counts x variables: the totals are withheld
    before the counts are tried one at a time), forced on the random files above: still nothing solvable."""
    import infoloss.safe_results as safe_results

    monkeypatch.setattr(safe_results, "_SOLVE_ONE_BY_ONE", 0)
    test_no_small_missing_count_comes_back_from_the_published_counts_by_linear_algebra()


def test_a_withheld_missing_count_does_not_come_back_from_the_records_skipped_by_il1s():
    # x: 3 missing in the original (withheld), 5 more suppressed (shown): il1s skips the 8 records missing in either
    # file (n_skipped, and n_compared = 120 - 8), and 8 - 5 suppressed = the original's 3
    rng = np.random.default_rng(1)
    n = 120
    orig = pd.DataFrame({"x": rng.normal(size=n), "y": rng.normal(size=n)})
    orig.loc[0:2, "x"] = np.nan
    prot = orig.copy()
    prot.loc[10:14, "x"] = np.nan
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}}, "pairing": "row"}
    report = infoloss.compare(orig, prot, spec, measures=["missing_values", "suppressions", "il1s", "x_mse"])
    assert report.to_dict()["scenarios"][0]["measures"]["missing_values"]["details"]["original"]["x"] == 3
    m = report.to_dict(safe=True)["scenarios"][0]["measures"]
    assert m["missing_values"]["details"]["original"]["x"] is None
    suppressed = m["suppressions"]["by_variable"]["x"]
    if suppressed is None and m["suppressions"]["value"] is not None:
        suppressed = m["suppressions"]["value"] - m["suppressions"]["by_variable"]["y"]
    skipped = [m["il1s"]["details"]["n_skipped"]["x"], m["x_mse"]["details"]["n_skipped_missing"]["x"]]
    compared = m["il1s"]["details"]["n_compared"]["x"]
    if compared is not None:
        skipped.append(n - compared)
    total = m["x_mse"]["details"]["n_compared"]
    if total is not None and m["x_mse"]["details"]["n_skipped_missing"]["y"] is not None:
        skipped.append(2 * n - total - m["x_mse"]["details"]["n_skipped_missing"]["y"])
    assert suppressed is None or all(s is None for s in skipped)


def test_a_withheld_filled_count_does_not_come_back_from_lambdas_one_side_missing():
    # g: 1 missing in the original, filled (withheld) and 8 suppressed (shown): lambda's one_side_missing, 9 records
    # missing in one file only, less the 8 suppressions was the filled one (and the original's missing value)
    rng = np.random.default_rng(53)
    n = 165
    orig = pd.DataFrame({"g": rng.choice(list("abc"), n), "h": rng.choice(list("uv"), n)})
    orig.loc[0, "g"] = None
    prot = orig.copy()
    prot.loc[0, "g"] = "a"
    prot.loc[10:17, "g"] = None
    spec = {"variables": {"g": {"scale": "nominal"}, "h": {"scale": "nominal"}}, "pairing": "row"}
    report = infoloss.compare(orig, prot, spec, measures=["missing_values", "suppressions", "lambda"])
    full = _missing_counts(report.to_dict()["scenarios"][0]["measures"], "g")
    assert full["filled"] == 1 and full["suppressed"] == 8
    m = report.to_dict(safe=True)["scenarios"][0]["measures"]
    shown = _missing_counts(m, "g")
    assert shown["filled"] is None and shown["original"] is None
    assert shown["suppressed"] is None or m["lambda"]["details"]["one_side_missing"]["g"] is None


def test_the_records_with_a_value_that_ks_shows_count_as_published_missing_counts():
    # statistics and tables off: ks' n_orig shows c1's and c2's missing values (the records less n_orig), so they are
    # no partners of c0's 1 missing value in the original: the total less them would give it back
    rng = np.random.default_rng(0)
    n = 100
    orig = pd.DataFrame({"c0": rng.normal(size=n), "c1": rng.normal(size=n), "c2": rng.normal(size=n)})
    orig.loc[0, "c0"] = np.nan
    orig.loc[10:15, "c1"] = np.nan
    orig.loc[20:26, "c2"] = np.nan
    prot = orig.copy()
    spec = {"variables": {v: {"scale": "continuous"} for v in orig}, "pairing": "row"}
    report = infoloss.compare(orig, prot, spec, measures=["missing_values", "suppressions", "ks"], statistics=False,
                              tables=False)
    m = report.to_dict(safe=True)["scenarios"][0]["measures"]
    assert m["missing_values"]["details"]["original"]["c0"] is None
    n_orig = m["ks"]["details"]["n_orig"]
    assert n_orig["c1"] == n - 6 and n_orig["c2"] == n - 7
    total = m["missing_values"]["details"]["total_original"]
    assert total is None or total - (n - n_orig["c1"]) - (n - n_orig["c2"]) >= 5


def test_the_percent_of_a_withheld_count_of_zero_is_withheld_too():
    # g: 12 missing in the original, 1 filled (withheld), none suppressed: the solve withholds the suppressions (0)
    # beside net −1; a percent of 0.0 left beside them said 0 suppressed, so filled = 0 − (−1) = 1
    rng = np.random.default_rng(0)
    n = 100
    orig = pd.DataFrame({"g": rng.choice(list("abc"), n), "h": rng.choice(list("uv"), n)})
    orig.loc[0:11, "g"] = None
    prot = orig.copy()
    prot.loc[0, "g"] = "a"
    spec = {"variables": {"g": {"scale": "nominal"}, "h": {"scale": "nominal"}}, "pairing": "row"}
    report = infoloss.compare(orig, prot, spec, measures=["missing_values", "suppressions"])
    assert _missing_counts(report.to_dict()["scenarios"][0]["measures"], "g")["filled"] == 1
    m = report.to_dict(safe=True)["scenarios"][0]["measures"]
    shown = _missing_counts(m, "g")
    assert shown["filled"] is None
    for kind, mid in (("suppressed", "suppressions"), ("protected", "missing_values")):
        if shown[kind] is None:
            assert m[mid]["details"]["percent"]["g"] is None
