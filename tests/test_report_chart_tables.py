"""Every chart's data table carries the numbers the chart draws: the means chart (the original's interval, the
grey band, beside each scenario's mean and interval) and the mining charts (model scores per target and cluster
agreement: each bar's mean, sd and min-max whisker over seeds, each reference line's model).

The expected numbers come from ``Report.to_dict()`` (the safe JSON, ``to_dict(safe=True)``, for a safe page:
the page shows what that JSON has), printed by the page's number rule.
"""

from __future__ import annotations

import html as htmllib
import re

import numpy as np
import pandas as pd
import pytest

import infoloss
from infoloss.report.numbers import number

MINING = ["ml_score_ratio", "cluster_ari", "cluster_proportion_distance"]
MEASURES = MINING + ["xbar_mae"]
OPTIONS = {m: {"seeds": 2} for m in MINING}
METRIC = {"balanced_accuracy": "balanced accuracy", "r2": "R²"}
LINES = {"original": "trained on the original", "removal": "original without the key variables",
         "baseline": "baseline (most frequent class / mean)"}


def _data(n: int = 300, seed: int = 4, key: bool = True):
    """Continuous age, income, spend and bonus (a value in 3 records only), a key variable (``key``; else region
    is a plain variable, and the mining models have no removal model) and two targets."""
    rng = np.random.default_rng(seed)
    orig = pd.DataFrame({"age": rng.integers(20, 70, n).astype(float),
                         "income": np.round(rng.lognormal(10, .3, n), 0),
                         "spend": rng.normal(1200, 300, n).round(2),
                         "bonus": np.nan,
                         "region": rng.choice(["north", "south", "east"], n),
                         "g": rng.choice(["a", "b", "c"], n)})
    orig.loc[[3, 4, 5], "bonus"] = [1111.0, 2222.0, 3333.0]
    orig["y"] = orig.income / 1000 + rng.normal(0, 3, n)
    spec = {"variables": {"age": {"scale": "continuous"}, "income": {"scale": "continuous"},
                          "spend": {"scale": "continuous"}, "bonus": {"scale": "continuous"},
                          "region": {"scale": "nominal", "role": "key" if key else "other"},
                          "g": {"scale": "nominal", "role": "target"}, "y": {"scale": "continuous", "role": "target"}},
            "pairing": "row"}
    return orig, spec, rng


@pytest.fixture(scope="module")
def report():
    orig, spec, rng = _data()
    light, heavy = orig.copy(), orig.copy()
    for col, sd in (("income", 2000), ("spend", 60), ("y", 2), ("age", 1)):
        light[col] = light[col] + rng.normal(0, sd, len(orig))
        heavy[col] = heavy[col] + rng.normal(0, 4 * sd, len(orig))
    heavy.loc[rng.random(len(orig)) < .3, "g"] = "a"
    return infoloss.compare(orig, [light, heavy], spec, names=["light", "heavy"], measures=MEASURES, options=OPTIONS)


@pytest.fixture(scope="module")
def pages(report):
    return {False: report.to_html(), True: report.to_html(safe=True, min_cell=5)}


def _figure(page: str, caption_start: str) -> str:
    """The ``<figure>`` whose caption starts with ``caption_start`` (HTML, as written)."""
    m = re.search(r'<figure class="chart[^"]*"><figcaption>' + re.escape(caption_start) + r".*?</figure>", page, re.S)
    assert m, caption_start
    return m.group(0)


def _cells(html: str) -> str:
    return re.sub(r"\s+", " ", htmllib.unescape(re.sub(r"<[^>]+>", "", html))).strip()


def _table(fig: str) -> tuple[list[str], dict[str, list[str]]]:
    """The header and the rows (by their first cell) of the figure's data table."""
    m = re.search(r'<details class="data"><summary>.*?</summary>.*?<table class="data">(.*?)</table>', fig, re.S)
    assert m, "no data table in the figure"
    head = [_cells(h) for h in re.findall(r"<th scope=\"col\">(.*?)</th>", m.group(1), re.S)]
    rows = {}
    for tr in re.findall(r"<tr><th scope=\"row\">(.*?)</th>(.*?)</tr>", m.group(1), re.S):
        rows[_cells(tr[0])] = [_cells(c) for c in re.findall(r"<td>(.*?)</td>", tr[1], re.S)]
    return head, rows


def _svg_texts(fig: str) -> list[str]:
    return [_cells(t) for t in re.findall(r"<text[^>]*>(.*?)</text>", fig, re.S)]


def _scenarios(report, safe: bool) -> list[dict]:
    return report.to_dict(safe=True, min_cell=5)["scenarios"] if safe else report.to_dict()["scenarios"]


# ---------------------------------------------------------------------------
# the means chart
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("safe", [False, True], ids=["full", "safe"])
def test_the_means_table_gives_the_original_interval_the_chart_draws(report, pages, safe):
    fig = _figure(pages[safe], "<b>Means before/after.</b>")
    head, rows = _table(fig)
    assert head == ["variable", "original", "light", "heavy"]
    scenarios = _scenarios(report, safe)
    orig = scenarios[0]["statistics"]["orig"]
    shown = [v for v in ("age", "income", "spend") if v in rows]
    assert shown == ["age", "income", "spend"], rows
    for v in shown:
        m, sd = orig["mean"][v], orig["sd"][v]
        lo, hi = orig["mean_ci"][v]
        # the grey band: the original's interval, in original standard deviations around its mean
        assert rows[v][0] == f"0 [{number((lo - m) / sd)}, {number((hi - m) / sd)}]", (v, rows[v])
        assert lo < m < hi and rows[v][0] != "0 [0, 0]"
        for k, sc in enumerate(scenarios):
            p = sc["statistics"]["prot"]
            plo, phi = p["mean_ci"][v]
            want = f"{number((p['mean'][v] - m) / sd)} [{number((plo - m) / sd)}, {number((phi - m) / sd)}]"
            assert rows[v][1 + k] == want, (v, sc["name"], rows[v])
    # the chart draws a band for each of these variables
    for v in shown:
        assert f"<title>{v}: original CI</title>" in fig


def test_the_safe_means_table_has_the_safe_json_s_numbers_and_no_withheld_variable(report, pages):
    full_head, full = _table(_figure(pages[False], "<b>Means before/after.</b>"))
    fig = _figure(pages[True], "<b>Means before/after.</b>")
    head, safe = _table(fig)
    # bonus has a value in 3 records: the safe JSON withholds its statistics, the chart and its table leave it out
    assert report.to_dict(safe=True)["scenarios"][0]["statistics"]["orig"]["withheld"].get("bonus")
    assert "bonus" in full and "bonus" not in safe
    assert "Not drawn (safe mode): bonus" in _cells(fig)
    text = _cells(fig)
    safe_cells = [c for r in safe.values() for c in r]
    assert not set(full["bonus"]) & set(safe_cells), full["bonus"]  # bonus's mean and intervals, as the full page
    for value in (1111, 2222, 3333):  # the original's values (and extremes) of bonus
        assert number(value) not in text
    # the safe page's original intervals are the safe JSON's (rounded statistics), not the full page's
    k, kf = head.index("original") - 1, full_head.index("original") - 1
    orig = report.to_dict(safe=True)["scenarios"][0]["statistics"]["orig"]
    for v in ("age", "income", "spend"):
        m, sd, (lo, hi) = orig["mean"][v], orig["sd"][v], orig["mean_ci"][v]
        assert safe[v][k] == f"0 [{number((lo - m) / sd)}, {number((hi - m) / sd)}]"
    assert any(safe[v][k] != full[v][kf] for v in ("age", "income", "spend")), (safe, full)


# ---------------------------------------------------------------------------
# the mining charts
# ---------------------------------------------------------------------------
def _four(stats: dict) -> list[str]:
    return [number(stats[k]) for k in ("mean", "sd", "min", "max")]


@pytest.mark.parametrize("safe", [False, True], ids=["full", "safe"])
def test_each_model_score_chart_has_a_table_of_its_bars_and_lines(report, pages, safe):
    scenarios = _scenarios(report, safe)
    targets = scenarios[0]["measures"]["ml_score_ratio"]["details"]["targets"]
    assert set(targets) == {"g", "y"}
    for name, block in targets.items():
        metric = block["metric"]
        fig = _figure(pages[safe], f"<b>Target {name}</b>")
        head, rows = _table(fig)
        assert head == ["model trained on", "mean", "sd", "min", "max"]
        texts = _svg_texts(fig)
        for sc in scenarios:
            stats = sc["measures"]["ml_score_ratio"]["details"]["targets"][name]["scores"]["protected"][metric]
            assert rows[sc["name"]] == _four(stats), (name, sc["name"])
            assert rows[sc["name"]][0] in texts  # the bar's value label
        for key, text in LINES.items():
            stats = block["scores"][key][metric]
            assert rows[f"line: {text}"] == _four(stats), (name, key)
            assert f"{text}: {number(stats['mean'])}" in texts  # the line's legend
        assert len(rows) == len(scenarios) + len(LINES)
        assert METRIC[metric] in _cells(re.search(r"<summary>(.*?)</summary>", fig, re.S).group(1))


@pytest.mark.parametrize("safe", [False, True], ids=["full", "safe"])
@pytest.mark.parametrize("mid", ["cluster_ari", "cluster_proportion_distance"])
def test_each_cluster_chart_has_a_table_of_its_bars(report, pages, safe, mid):
    fig = _figure(pages[safe], f"<b>{mid}</b>")
    head, rows = _table(fig)
    assert head == ["scenario", "mean", "sd", "min", "max"]
    scenarios = _scenarios(report, safe)
    assert list(rows) == [sc["name"] for sc in scenarios]
    texts = _svg_texts(fig)
    for sc in scenarios:
        seeds = sc["measures"][mid]["details"]["seeds"]
        assert rows[sc["name"]] == _four(seeds), (mid, sc["name"])
        assert rows[sc["name"]][0] in texts


def test_a_target_the_safe_json_withholds_has_no_chart_and_no_numbers_on_the_safe_page():
    """A target changed in fewer than min_cell records: the safe JSON withholds its block (null); the safe page
    (which failed on it) leaves its chart and table out and says why, and shows none of its scores.  Without key
    variables there is no removal model: the caption and the table name the two lines drawn."""
    orig, spec, rng = _data(key=False)
    light = orig.copy()
    light["income"] = light.income + rng.normal(0, 2000, len(orig))
    few = orig.copy()
    few.loc[[1, 2, 3], "y"] += 5.0
    rep = infoloss.compare(orig, [light, few], spec, names=["light", "few"], measures=MEASURES, options=OPTIONS)
    safe_targets = rep.to_dict(safe=True)["scenarios"][0]["measures"]["ml_score_ratio"]["details"]["targets"]
    assert safe_targets["y"] is None and safe_targets["g"]
    page = rep.to_html(safe=True, min_cell=5)
    section = page[page.index('id="mining-details"'):]
    section = section[:section.index("</section>")]
    assert "<b>Target y</b>" not in section
    assert re.search(r"<li><b>y</b>: withheld \(safe mode: ", section)
    fig = _figure(section, "<b>Target g</b>")
    _, rows = _table(fig)
    assert list(rows) == ["light", "few", f"line: {LINES['original']}", f"line: {LINES['baseline']}"]
    assert "Vertical lines: the same model trained on the original and the baseline.</figcaption>" in fig
    # none of y's scores (full JSON) is in the safe section's data tables
    tables = " ".join(_cells(t) for t in re.findall(r'<table class="data">.*?</table>', section, re.S))
    full_y = rep.to_dict()["scenarios"]
    for sc in full_y:
        block = sc["measures"]["ml_score_ratio"]["details"]["targets"]["y"]
        stats = block["scores"]["protected"][block["metric"]]
        for v in (stats["mean"], stats["sd"]):
            assert f" {number(v)} " not in f" {tables} ", v
    # the full page draws y
    assert "<b>Target y</b>" in rep.to_html()
