"""Safe mode of the HTML report: what the audit of /tmp/h1 (FINDINGS.md) found the page could give back.

Each test names the finding it guards.  The page in safe mode must show no count below ``min_cell``, and no
such count may be had by subtraction (histogram bars against the records, class sizes against the total),
no statistic of a variable observed in only a few records, and no category held by only a few records.
"""

from __future__ import annotations

import html as htmllib
import re

import numpy as np
import pandas as pd
import pytest

import infoloss
from infoloss.report.plotdata import Policy, category_grouping
from infoloss.report.variables import merged_note


def _text(page: str) -> str:
    return re.sub(r"\s+", " ", htmllib.unescape(re.sub(r"<[^>]+>", " ", page)))


@pytest.fixture(scope="module")
def small_report():
    """200 records; income with one far outlier; bonus observed in 3 records only."""
    rng = np.random.default_rng(1)
    n = 200
    orig = pd.DataFrame({"age": rng.integers(20, 70, n).astype(float),
                         "income": np.round(rng.lognormal(10, .3, n), 0),
                         "bonus": np.nan,
                         "g": rng.choice(["a", "b", "c"], n)})
    orig.loc[[3, 4, 5], "bonus"] = [1111.0, 2222.0, 3333.0]
    orig.loc[[3, 4, 5], "age"] = [25.0, 40.0, 61.0]
    orig.loc[0, "income"] = 9_876_543.0
    prot = orig.copy()
    prot["bonus"] = prot.bonus + 7
    prot["income"] = prot.income + 50
    prot["age"] += 1
    prot.loc[[10, 11], "g"] = "new"  # a category only the protected file has, in 2 records
    spec = {"variables": {"age": {"scale": "continuous"}, "income": {"scale": "continuous"},
                          "bonus": {"scale": "continuous"}, "g": {"scale": "nominal"}}, "pairing": "row"}
    return infoloss.compare(orig, prot, spec)


@pytest.fixture(scope="module")
def small_safe(small_report):
    return small_report.to_html(safe=True, min_cell=5)


def _variable_block(page: str, name: str) -> str:
    m = re.search(rf'<details class="variable [a-z]+" id="[^"]+"[^>]*><summary><h3>{name} .*?</details>\s*(?=<details '
                  r'class="variable|<p|</section|$)', page, re.S)
    assert m, name
    return m.group(0)


# ---------------------------------------------------------------------------
# finding 9: the histogram's bars add up to every record with a value
# ---------------------------------------------------------------------------
def test_histogram_bars_hold_the_records_beyond_the_axis(small_report, small_safe):
    block = _variable_block(small_safe, "income")
    sums = [sum(map(int, c.split())) for c in re.findall(r'data-counts="([\d ]*)"', block)]
    assert sums and all(s == 200 for s in sums), sums  # records − Σ bars gives no count outside the axis
    text = _text(block)
    assert "outside the axis" not in text
    assert "The end bars include the records beyond the axis." in text
    # full mode is unchanged: the count outside the axis is printed
    full = _text(_variable_block(small_report.to_html(), "income"))
    assert "outside the axis" in full


# ---------------------------------------------------------------------------
# finding 7: a continuous variable observed in fewer than min_cell records
# ---------------------------------------------------------------------------
def test_a_variable_observed_in_few_records_shows_no_statistic(small_safe):
    block = _variable_block(small_safe, "bonus")
    text = _text(block)
    assert "Fewer than 5 records with a value in the original" in text
    assert "<svg" not in block and "quartile" not in block and "median" not in block
    for value in ("1,110", "1,120", "2,220", "2,230", "3,340", "1,670", "2,780"):
        assert value not in block


def test_a_scenario_side_observed_in_few_records_draws_no_box(small_report):
    from infoloss.report.plotdata import box_stats, too_few

    stats = {"n": 3, "quantiles": [1.0] * 20, "whiskers": [1, 3], "mean": 2.0, "sd": 1.0,
             "outliers": {"low_values": [], "high_values": []}}
    assert too_few(stats, Policy(safe=True, min_cell=5))
    assert box_stats(stats, Policy(safe=True, min_cell=5)) is None
    assert box_stats(stats, Policy()) is not None  # full mode: as before


# ---------------------------------------------------------------------------
# finding 13: a category only the protected file has, in a few records, is not named
# ---------------------------------------------------------------------------
def test_a_small_category_of_the_protected_file_only_is_not_named(small_safe):
    g = category_grouping(["a", "b", "new"], [np.array([60, 40, 0, 0]), np.array([58, 40, 2, 0])], False,
                          Policy(safe=True))
    assert "new" in g.merged and g.merged_small[g.merged.index("new")]
    note = htmllib.unescape(str(merged_note(g, set(), Policy(safe=True))))
    assert "new" not in note.replace("not named", "")
    assert "(not named)" in note
    # declared in the spec: named
    assert "new" in htmllib.unescape(str(merged_note(g, {"new"}, Policy(safe=True))))
    # on the page
    block = _text(_variable_block(small_safe, "g"))
    assert not re.search(r"\bnew\b", block.replace("not named", "")), block


# ---------------------------------------------------------------------------
# finding 6 (HTML): the class-size chart's bars add up to every record
# ---------------------------------------------------------------------------
def test_class_size_bars_do_not_give_a_small_suppressed_count_back():
    from pathlib import Path

    from infoloss.io import read_table
    from infoloss.registry import get, load_all, registered
    from infoloss.spec import load_spec

    data = Path(__file__).resolve().parent / "data" / "adult"
    spec = load_spec(data / "spec.yaml")
    orig = read_table(data / "adult.csv", spec).iloc[:2000].reset_index(drop=True)
    prot = orig.astype(str).copy()
    h = pd.read_csv(data / "adult_hierarchy_age.csv", sep=";", header=None, dtype=str)
    prot["age"] = prot["age"].map(dict(zip(h[0], h[3])))
    prot.loc[[1, 2, 3], ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
                         "occupation"]] = "*"
    load_all()
    ids = [m.id for m in registered() if m.family == get("discernibility").family]
    report = infoloss.compare(orig, [prot], spec, measures=ids, names=["k"])
    safe = report.to_html(safe=True, min_cell=5)
    chart = re.search(r'<svg[^>]*aria-label="class sizes, k".*?</svg>', safe, re.S).group(0)
    bars = [int(c) for c in re.findall(r'data-count="(\d+)"', chart)]
    assert sum(bars) == 2000  # n − Σ bars = 0: the 3 suppressed records are in a bar
    assert "+ suppressed" in chart and ">suppressed<" not in chart
    full = report.to_html()
    chart = re.search(r'<svg[^>]*aria-label="class sizes, k".*?</svg>', full, re.S).group(0)
    assert "suppressed: 3 records" in chart  # full mode: unchanged


# ---------------------------------------------------------------------------
# findings 1, 2, 8: one source of truth -- the safe page shows what the safe JSON has, "withheld" where it is null
# ---------------------------------------------------------------------------
def _withhold_more(monkeypatch, rule):
    """Make the safe JSON withhold more than today (as a stricter rule of infoloss.safe_results would)."""
    import infoloss.safe_results as sr

    original = sr.safe_measures

    def stricter(measures, min_cell, registry, n_records=()):
        out, summary = original(measures, min_cell, registry, n_records)
        rule(out)
        return out, summary

    monkeypatch.setattr(sr, "safe_measures", stricter)


@pytest.fixture(scope="module")
def changed_report():
    """400 records; sex changed in 2 records, region in 30; income noise."""
    rng = np.random.default_rng(3)
    n = 400
    orig = pd.DataFrame({"sex": rng.choice(["f", "m"], n), "region": rng.choice(["N", "S", "E"], n),
                         "income": np.round(rng.lognormal(10, .3, n), 0)})
    prot = orig.copy()
    prot.loc[[0, 1], "sex"] = np.where(orig.loc[[0, 1], "sex"] == "f", "m", "f")
    prot.loc[10:39, "region"] = np.where(orig.loc[10:39, "region"] == "N", "S", "N")
    prot["income"] = orig.income + rng.normal(0, 300, n).round()
    spec = {"variables": {"sex": {"scale": "nominal", "role": "key"}, "region": {"scale": "nominal", "role": "key"},
                          "income": {"scale": "continuous"}}, "pairing": "row"}
    return infoloss.compare(orig, prot, spec, names=["protected"],
                            measures=["records_changed", "suppressions", "lambda", "categorical_distance", "il1s",
                                      "hellinger"])


def test_per_variable_values_the_safe_json_withholds_are_withheld_on_the_page(changed_report, monkeypatch):
    raw = changed_report.scenarios[0].measures["lambda"]
    assert raw.by_variable["sex"] == pytest.approx(2 / 400)  # × n = the 2 changed records

    def rule(out):  # lambda and categorical_distance per variable are count / n: withheld with the count
        for mid in ("lambda", "categorical_distance"):
            out[mid]["by_variable"]["sex"] = None
        out["hellinger"]["value"] = None
        out["hellinger"]["withheld"] = "safe mode: a test reason"

    _withhold_more(monkeypatch, rule)
    page = changed_report.to_html(safe=True, min_cell=5)
    for mid in ("lambda", "categorical_distance"):
        figure = re.search(r'<figure class="chart"><figcaption><b>%s per variable</b>.*?</figure>' % mid, page,
                           re.S).group(0)
        assert "sex · protected" not in figure  # no marker, no tooltip
        row = re.search(r'<tr><th scope="row">sex</th>(.*?)</tr>', figure).group(1)
        assert row == "<td>withheld</td>"
        assert "0.005" not in figure and "5 × 10" not in figure
    cell = re.search(r'href="#m-hellinger".*?</tr>', page, re.S).group(0)
    assert 'title="safe mode: a test reason">withheld</td>' in cell
    # the full page is unchanged
    full = changed_report.to_html()
    assert re.search(r"<title>sex · protected: [^<]+</title>", full)


def test_the_verdict_gives_no_total_beside_a_withheld_count():
    from pathlib import Path

    d = Path(__file__).resolve().parent / "data" / "testdata"
    rep = infoloss.compare(d / "original.csv", [d / "ls_k3.csv"], d / "spec.yaml",
                           measures=["suppressions", "records_changed"])
    safe_json = rep.to_dict(safe=True, min_cell=5)["scenarios"][0]["measures"]["suppressions"]
    withheld = [v for v, c in safe_json["by_variable"].items() if c is None]
    assert "walls" in withheld  # 4 suppressions
    page = rep.to_html(safe=True, min_cell=5)
    changes = _text(re.search(r'<section id="changes".*?</section>', page, re.S).group(0))
    sentence = re.search(r"suppressed values[^;]*", changes).group(0)
    assert not re.search(r"suppressed [\d,]+ values", changes)  # no total to subtract the shown counts from
    assert "walls" not in sentence and "(counts withheld in safe mode)" in sentence
    full = _text(rep.to_html())
    assert re.search(r"suppressed [\d,]+ values", full)


def test_a_withheld_count_risk_is_not_drawn_on_the_risk_utility_map():
    rng = np.random.default_rng(5)
    n = 300
    orig = pd.DataFrame({"a": rng.choice(list("xyz"), n), "b": rng.choice(list("pq"), n),
                         "v": rng.normal(size=n)})
    orig.loc[0, ["a", "b"]] = ["w", "r"]  # unique on the keys in both files: 1 record violates k-anonymity
    prot = orig.copy()
    prot["v"] = orig.v + rng.normal(0, .1, n)
    spec = {"variables": {"a": {"scale": "nominal", "role": "key"}, "b": {"scale": "nominal", "role": "key"},
                          "v": {"scale": "continuous"}}, "pairing": "row"}
    rep = infoloss.compare(orig, prot, spec, measures=["k_anonymity_violations", "il1s", "sample_uniques"],
                           names=["protected"], risk_utility={"risk": "k_anonymity_violations", "utility": "il1s"})
    point = next(p for p in rep.risk_utility()["points"] if not p["original"])
    assert 0 < point["risk"] < 5
    page = rep.to_html(safe=True, min_cell=5)
    assert not re.search(r"<title>protected: risk", page)
    table = _text(re.search(r'<table class="measures ru">.*?</table>', page, re.S).group(0))
    assert re.search(r"protected withheld", table)
    assert re.search(r"Not drawn \(safe mode\): [^.]*protected, whose risk", _text(page))
    assert re.search(r"<title>protected: risk", rep.to_html())  # full mode: drawn
    # the risk table: the share of 1 sample unique is withheld, as in the safe JSON, with its reason
    risk = re.search(r'<table class="measures risk">.*?</table>', page, re.S).group(0)
    assert re.search(r'<span title="safe mode: the value is a share[^"]*">withheld</span>', risk)


def test_regression_counts_left_out_follow_the_safe_json():
    rng = np.random.default_rng(2)
    n = 200
    orig = pd.DataFrame({"x": rng.normal(size=n), "g": rng.choice(["a", "b"], n)})
    orig["y"] = 2 * orig.x + rng.normal(size=n)
    prot = orig.copy()
    prot.loc[[0, 1, 2], "x"] = np.nan  # 3 records left out of the protected fit
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}, "g": {"scale": "nominal"}},
            "pairing": "row", "analyses": {"regressions": [{"name": "m", "formula": "y ~ x"}], "ci": {"replicates": 20}}}
    rep = infoloss.compare(orig, prot, spec, measures=["regression_ci_overlap"], names=["protected"])
    page = rep.to_html(safe=True, min_cell=5)
    table = _text(re.search(r'<table class="measures analyses">.*?</table>', page, re.S).group(0))
    row = re.search(r"protected .*", table).group(0)
    assert "0 / withheld / 0" in row and row.startswith("protected withheld")  # records used withheld with it
    assert "197" not in row and " 3 " not in row
    full = _text(re.search(r'<table class="measures analyses">.*?</table>', rep.to_html(), re.S).group(0))
    assert "protected 197 0 / 3 / 0" in full


def test_a_variable_observed_in_few_records_has_no_mean_interval_or_correlation(small_safe, small_report):
    assert not re.search(r"<title>bonus ×", small_safe) and not re.search(r"× bonus", small_safe)
    text = _text(small_safe)
    assert "Not drawn: bonus (fewer than 5 records with a value in the original; safe mode)." in text
    assert "Left out: bonus" in text
    full = small_report.to_html()
    assert re.search(r"<title>bonus × age", full)
