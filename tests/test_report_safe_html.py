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
