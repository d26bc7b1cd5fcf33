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
    f_tiny, s_tiny = _estimate(full["analyses"], tiny), _estimate(safe["analyses"], tiny)
    assert f_tiny["original"]["n"] == 3
    assert f_tiny["original"]["value"] == pytest.approx(orig.loc[orig.dom == "tiny", "x"].mean())
    for side in ("original", "protected"):
        assert all(s_tiny[side][k] is None for k in ("value", "se", "lower", "upper", "n"))
    assert s_tiny["difference"] is None and s_tiny["ci_overlap"] is None
    big = "mean(x) | dom=big"
    s_big = _estimate(safe["analyses"], big)
    assert s_big["original"]["n"] == 37
    assert s_big["original"]["value"] == pytest.approx(orig.loc[orig.dom == "big", "x"].mean(), rel=5e-3)
    for p in ("0", "1"):
        row = next(e for e in safe["analyses"]["estimates"] if e["estimate"] == f"quantile(x, {p})")
        assert row["original"]["value"] is None and row["protected"]["value"] is None
    median = next(e for e in safe["analyses"]["estimates"] if e["estimate"] == "quantile(x, 0.5)")
    assert median["original"]["value"] is not None
    # the same rows inside the analyses measure's details
    in_details = _estimate(safe["measures"]["estimate_ci_overlap"]["details"], tiny)
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
