"""The report as a decision tool (issue 13): the seven "wrong today" fixes, the verdict's scores, what each
scenario changed, the overview, the number rule, the sections mechanism, guidance, accessibility and print
markup, and safe mode.  Expected numbers come from the documented mappings worked by hand, or from pandas,
numpy and scipy computed here independently of the report's code.
"""

from __future__ import annotations

import html as htmllib
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import infoloss
from infoloss.compare import Report, ScenarioResult
from infoloss.registry import FAMILIES, MeasureResult, get
from infoloss.report import charts, numbers, sections
from infoloss.report.families import variable_charts
from infoloss.report.parts import info_positions, positions
from infoloss.report.plotdata import Policy
from infoloss.report.scores import TIE, compute_scores, measure_score
from infoloss.report.summary import measure_rows
from infoloss.report.variables import changed_pairs

DATA = Path(__file__).resolve().parent / "data"


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
def fake_report(results: dict[str, list], variables: dict[str, str], n: int = 1000, names=None) -> Report:
    """A Report with given measure results per scenario (a number, a MeasureResult or None = not computed)."""
    k = len(next(iter(results.values())))
    names = names or [f"s{i + 1}" for i in range(k)]
    scenarios = []
    for i, name in enumerate(names):
        s = ScenarioResult(name=name, path=None, n_records=n, paired=True)
        for mid, values in results.items():
            v = values[i]
            if v is None:
                s.not_computed[mid] = "it was not computed for this test"
            else:
                s.measures[mid] = v if isinstance(v, MeasureResult) else MeasureResult(float(v))
        scenarios.append(s)
    original = {"path": None, "n_records": n, "variables": dict(variables)}
    return Report(original=original, scenarios=scenarios, spec=None, measure_ids=list(results))


def _section(page: str, sid: str) -> str:
    start = page.index(f'<section id="{sid}"')
    end = page.find("<section id=", start + 10)
    return page[start: end if end > 0 else len(page)]


def _survey(n=600, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "region": rng.choice(["North", "South", "East", "West"], n),
        "sex": rng.choice(["f", "m"], n),
        "size": rng.integers(1, 6, n).astype(str),
        "income": rng.normal(3000, 600, n).round(2),
        "spend": rng.normal(1200, 300, n).round(2),
    })


SPEC = {"variables": {"region": {"scale": "nominal", "role": "key"}, "sex": {"scale": "nominal", "role": "key"},
                      "size": {"scale": "ordinal", "role": "key"}, "income": {"scale": "continuous"},
                      "spend": {"scale": "continuous"}}}


@pytest.fixture(scope="module")
def survey_pair():
    """An original and three protected versions with known changes."""
    orig = _survey()
    suppressed = orig.copy()
    suppressed.loc[:11, "region"] = None  # 12 suppressions, nothing else
    recoded = orig.copy()
    recoded.loc[100:129, "sex"] = np.where(orig.loc[100:129, "sex"] == "f", "m", "f")  # 30 category changes
    recoded.loc[200:202, "size"] = None  # 3 suppressions: fewer than 5
    noisy = orig.copy()
    rng = np.random.default_rng(1)
    noisy["income"] = orig["income"] + rng.normal(0, 300, len(orig))
    noisy["spend"] = orig["spend"] + rng.normal(0, 150, len(orig))
    prots = [suppressed, recoded, noisy]
    rep = infoloss.compare(orig, prots, SPEC, names=["suppressed", "recoded", "noisy"])
    return orig, prots, rep


@pytest.fixture(scope="module")
def survey_pages(survey_pair):
    rep = survey_pair[2]
    return {"full": rep.to_html(), "safe": rep.to_html(safe=True, min_cell=5)}


# ---------------------------------------------------------------------------
# wrong today 1: a target direction in every ranking, colour and arrow
# ---------------------------------------------------------------------------
def test_target_measures_rank_by_distance_from_the_ideal():
    rep = fake_report({"pmse_std": [-17.4, 0.5, 3.0], "pmse_ratio": [0.2, 1.1, 3.0]}, {"x": "continuous"})
    rows = measure_rows(rep, rep.measure_ids)
    std, ratio = (info_positions(r.info, r.values) for r in rows)
    assert std.index(0.0) == 1 and std[0] == 1.0  # |0.5| is closest to 0; −17.4 is the worst, not the best
    assert ratio.index(0.0) == 1 and ratio[2] == 1.0  # 1.1 is closest to 1; 3.0 is farthest
    page = rep.to_html()
    table = _section(page, "family-propensity")
    row = re.search(r'href="#m-pmse_std".*?</tr>', table, re.S).group(0)
    cells = re.findall(r'<td class="num ([a-z]+)"[^>]*>([^<]*)', row)
    assert cells == [("worst", "−17.4"), ("best", "0.5 "), ("mid", "3")]
    assert "◎ closest to 0 is best" in row and "↓" not in row and "↑" not in row
    assert "◎ closest to 1 is best" in table


def test_positions_of_a_target_measure_match_abs_distance():
    values = [0.3, 1.4, 1.0, 2.5]
    got = positions(values, "target", ideal=1.0)
    dist = np.abs(np.array(values) - 1.0)
    expected = (dist - dist.min()) / (dist.max() - dist.min())
    assert got == pytest.approx(list(expected))


# ---------------------------------------------------------------------------
# wrong today 2: the heat map's colour key matches its cells
# ---------------------------------------------------------------------------
def _fill_of_cell(svg: str, title_prefix: str) -> str:
    return re.search(r'<rect [^>]*fill="(#[0-9a-f]{6})"[^>]*><title>' + re.escape(title_prefix), svg).group(1)


@pytest.mark.parametrize("reverse", [True, False])
def test_heatmap_legend_colours_are_the_cells_colours(reverse):
    names = ["a", "b", "c"]
    cells = {(1, 0): 1.0, (2, 0): 0.0, (2, 1): 0.5}
    legend = ("0", "1 (better)") if reverse else ("0 (better)", "1")
    svg = str(charts.heatmap(names, cells, label="t", title="t", lo=0.0, hi=1.0, reverse=reverse, legend_text=legend))
    at_one, at_zero = _fill_of_cell(svg, "b × a"), _fill_of_cell(svg, "c × a")
    legend_rects = re.findall(r'<rect x="([\d.]+)" y="([\d.]+)" width="[\d.]+" height="9" fill="(#[0-9a-f]{6})"', svg)
    assert legend_rects[0][2] == at_zero  # left end = lo = 0
    assert legend_rects[-1][2] == at_one  # right end = hi = 1
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert texts[-2:] == list(legend)  # labelled in the same order: low value left
    light = min((at_zero, at_one), key=lambda c: -sum(int(c[i:i + 2], 16) for i in (1, 3, 5)))
    assert light == (at_one if reverse else at_zero)  # the better end is the light one


def test_ldu_biv_key_labels_the_value_one_as_better():
    from infoloss.report.families import _legend

    assert _legend(get("ldu_biv"), 0.0, 1.0) == ("0", "1 (better)")
    assert _legend(get("hellinger"), 0.0, 1.0) == ("0 (better)", "1")


# ---------------------------------------------------------------------------
# wrong today 3: no non-zero value shows as 0
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("value", [0.0012, 3.4e-6, -0.004, 2.5e-9])
def test_heatmap_cells_never_round_a_non_zero_value_to_zero(value):
    svg = str(charts.heatmap(["a", "b"], {(1, 0): value}, label="r_mse", title="t", lo=0.0, hi=0.01, size=60))
    tip = re.search(r"<title>b × a: ([^<]*)</title>", svg).group(1)
    cell_text = re.findall(r'<text x="[\d.]+" y="[\d.]+" text-anchor="middle"[^>]*>([^<]*)</text>', svg)
    assert tip != "0" and float(tip.replace("−", "-").replace("e−", "e-")) == pytest.approx(value, rel=0.06)
    assert cell_text[0] != "0" and cell_text[0].replace("−", "-") in (tip.replace("−", "-"),)  # the cell, then the key


def test_float_noise_prints_as_zero_and_real_small_values_do_not():
    assert numbers.number(2.9e-19) == "0" and numbers.short(-4e-17) == "0"
    assert numbers.number(1.184e-06) == "1.18 × 10⁻⁶"
    assert numbers.number(3e-9, scale=1e6) == "0"  # noise relative to values of a million


# ---------------------------------------------------------------------------
# wrong today 4: per-variable values outside the measure's range are said to be so
# ---------------------------------------------------------------------------
def test_per_variable_values_beyond_the_range_get_their_own_axis():
    big = MeasureResult(0.4, by_variable={"a": 1.8e6, "b": 0.0})
    rep = fake_report({"ebil": [big, MeasureResult(0.1, by_variable={"a": 2.0e5, "b": 10.0})]},
                      {"a": "nominal", "b": "nominal"})
    out = str(variable_charts(rep, measure_rows(rep, ["ebil"]), Policy()))
    out = htmllib.unescape(out)
    assert "on their own scale (up to 1,800,000)" in out and "range [0, 1] is that of the measure's overall value" in out
    ticks = [t for t in re.findall(r'<text x="[\d.]+" y="[\d.]+"[^>]*fill="#595959">([^<]*)</text>', out)]
    assert "1.5M" in ticks  # the axis reaches the data, not [0, 1]


# ---------------------------------------------------------------------------
# wrong today 5: the verdict by scores, weighted by the variables, with ties
# ---------------------------------------------------------------------------
def test_measure_scores_follow_the_documented_mapping():
    assert measure_score(get("hellinger"), 0.3) == pytest.approx(0.7)  # 1 − v on [0, 1]
    assert measure_score(get("gdu"), 0.8) == pytest.approx(0.8)  # higher is better: v
    assert measure_score(get("pmse"), 0.1) == pytest.approx(1 - 0.1 / 0.25)
    assert measure_score(get("il1s"), 0.25) == pytest.approx(0.75)  # unbounded, scale 1
    assert measure_score(get("cramers_v_il"), 3.0) == 0.0  # clipped
    assert measure_score(get("pmse_ratio"), 0.4) == pytest.approx(0.4)  # target 1, lower end 0
    assert measure_score(get("ctbil"), 12.0) is None  # in records per cell: no scale


def test_tiny_differences_are_ties_not_wins():
    variables = {f"c{i}": "nominal" for i in range(29)} | {f"x{i}": "continuous" for i in range(4)}
    rep = fake_report({"gamma": [1.2e-6, 0.0], "hellinger": [0.02, 0.02]}, variables)
    sc = compute_scores(rep)
    assert abs(sc.overall[0] - sc.overall[1]) < TIE
    assert sc.places() == [1, 1] and sorted(sc.tied_with_best()) == [0, 1]
    page = rep.to_html()
    assert "are tied" in _section(page, "verdict")


def test_families_weigh_the_share_of_variables_they_cover():
    """29 categorical and 4 continuous variables: a continuous-only family weighs 4/33 of a general one."""
    variables = {f"c{i}": "nominal" for i in range(29)} | {f"x{i}": "continuous" for i in range(4)}
    # A loses half on the continuous variables only (gamma 0.5), B a little on the categorical tables (0.05)
    rep = fake_report({"gamma": [0.5, 0.0], "hellinger": [0.0, 0.05]}, variables)
    sc = compute_scores(rep)
    w = {f.family: f.weight for f in sc.families}
    assert w["moments"] == pytest.approx(4 / 33) and w["tables"] == pytest.approx(29 / 33)
    expected_a = (4 * 0.5 + 29 * 1.0) / 33
    expected_b = (4 * 1.0 + 29 * 0.95) / 33
    assert sc.overall == pytest.approx([expected_a, expected_b])
    assert sc.ranking() == [1, 0]  # B keeps more: its loss is small on most variables
    given = compute_scores(rep, {"moments": 1, "tables": 1})  # user weights override
    assert given.overall == pytest.approx([(0.5 + 1.0) / 2, (1.0 + 0.95) / 2])


def test_within_a_family_measures_weigh_their_variables():
    variables = {f"c{i}": "nominal" for i in range(9)} | {"x": "continuous"}
    il1s = MeasureResult(0.5, by_variable={"x": 0.5})
    lam = MeasureResult(0.1, by_variable={**{f"c{i}": 0.1 for i in range(9)}, "x": 0.1})
    rep = fake_report({"il1s": [il1s], "lambda": [lam]}, variables)
    record = compute_scores(rep).families[0]
    assert record.family == "record" and record.scores[0] == pytest.approx((1 * 0.5 + 10 * 0.9) / 11)


def test_the_risk_family_is_not_in_the_utility_score():
    assert "risk" in FAMILIES
    from infoloss.report.scores import NOT_UTILITY

    assert NOT_UTILITY == ("risk",)


def test_untouched_variables_are_counted_not_picked():
    orig = _survey(seed=11)
    prot = orig.assign(income=orig["income"] * 1.1)
    page = infoloss.compare(orig, [prot, orig], SPEC, names=["scaled", "copy"]).to_html()
    assert "lose least" not in page and "loses least" not in page
    assert "4 of 5 variables are unchanged in every scenario." in _section(page, "overview")
    assert "No change in any scenario (4 variables)" in _section(page, "variables")


# ---------------------------------------------------------------------------
# wrong today 6: the mosaic note says what the pairs are ranked by
# ---------------------------------------------------------------------------
def test_two_way_pairs_are_ranked_and_described_by_their_change_beyond_the_one_way_tables():
    # pair a|b: large joint change but all of it in the margins; pair a|c: the association changes, margins do not
    ab_o, ab_p = np.array([[50, 50], [50, 50]]), np.array([[90, 10], [90, 10]])
    ac_o, ac_p = np.array([[50, 0], [0, 50]]), np.array([[25, 25], [25, 25]])
    aggs = [(0, None, {"pairs": {"a|b": {"orig": ab_o, "prot": ab_p}, "a|c": {"orig": ac_o, "prot": ac_p}}})]
    ranked = changed_pairs(aggs, top=2)
    assert [k for k, _, _ in ranked] == ["a|c", "a|b"]
    tv = lambda x, y: 0.5 * np.abs(x / x.sum() - y / y.sum()).sum()  # noqa: E731
    excess_ac = tv(ac_o, ac_p) - max(tv(ac_o.sum(1), ac_p.sum(1)), tv(ac_o.sum(0), ac_p.sum(0)))
    assert ranked[0][1] == pytest.approx(excess_ac) and ranked[0][2] == pytest.approx(tv(ac_o, ac_p))


def test_mosaic_note_names_the_ranking(survey_pages):
    pairs = _section(survey_pages["full"], "pairs")
    assert "ranked by how much more their two-way table changed than their one-way tables" in pairs
    assert "pairs whose two-way tables changed most" not in pairs


# ---------------------------------------------------------------------------
# wrong today 7 and safe mode
# ---------------------------------------------------------------------------
def test_safe_heading_says_it_is_the_safe_version(survey_pages):
    assert "<h1>Utility report — safe-to-share version" in survey_pages["safe"]
    assert "(safe-to-share version)" in re.search(r"<title>.*?</title>", survey_pages["safe"]).group(0)
    assert "safe-to-share version" not in re.search(r"<h1>.*?</h1>", survey_pages["full"]).group(0)


def test_safe_mode_hides_small_counts_in_record_charts_tables_and_text(survey_pages):
    safe, full = survey_pages["safe"], survey_pages["full"]
    record = _section(safe, "family-record")
    # 'recoded' suppressed 3 size values: the full page shows 3, the safe page "fewer than 5" everywhere
    assert re.search(r"size: 3\b", _section(full, "changes"))
    # safe mode: the withheld count is not named, and no total is given that would give it back by subtraction
    changes = _section(safe, "changes")
    recoded = re.search(r"<b>recoded</b>.*?</li>", changes, re.S).group(0)
    assert "size: 3" not in changes and "size:" not in recoded and "1 variable" in recoded
    assert not re.search(r"suppressed [\d,]+ values", recoded)
    assert "suppressed 12 values" in changes  # nothing withheld in 'suppressed': its total is shown
    data = re.findall(r"<tr><th scope=\"row\">size</th>(.*?)</tr>", record)
    assert data and all(re.search(r"<td>[1-4]</td>", row) is None for row in data)
    markers = re.findall(r"<title>size · recoded: ([^<]*)</title>", record)
    assert "3" not in markers
    headline = re.search(r'href="#m-suppressions".*?</tr>', record, re.S).group(0)
    cells = re.findall(r'<td class="num[^"]*"[^>]*>([^<]*)', headline)
    assert cells[1].strip() == "fewer than 5"
    # the overview shows neither the share of 3 records nor another distance in its place: "withheld" (a bound
    # such as "< 0.83 %" would be wrong for a count withheld beside a small one, which may be large)
    over = _section(safe, "overview")
    size_row = htmllib.unescape(re.search(r'<th scope="row"><a [^>]*>size</a>.*?</tr>', over, re.S).group(0))
    assert "0.5 %" not in size_row  # 3/600
    assert "withheld" in size_row
    peak = re.search(r'<td class="num peak"[^>]*>([^<]*)</td>', size_row).group(1)
    assert peak == "withheld"  # not "0 %": the withheld cell may be the largest
    unchanged = re.search(r"(\d+) of (\d+) variables are unchanged", re.sub(r"<[^>]+>", " ", over))
    assert unchanged is None or int(unchanged.group(1)) < 5 - 1  # size (withheld) is not counted as unchanged


def test_safe_mode_names_the_merged_categories():
    rng = np.random.default_rng(4)
    n = 400
    orig = pd.DataFrame({"g": rng.choice(["a", "b", "c"], n), "x": rng.normal(size=n)})
    orig.loc[:2, "g"] = "Zanzibar"  # 3 records: merged, and not named (only the data reveal it)
    orig.loc[3:6, "g"] = "Atlantis"  # 4 records: merged, not named
    prot = orig.copy()
    prot.loc[10:60, "g"] = "a"
    prot.loc[7:11, "g"] = "d"  # 5 records: shown
    spec = {"variables": {"g": {"scale": "nominal"}, "x": {"scale": "continuous"}}}
    page = infoloss.compare(orig, prot, spec).to_html(safe=True, min_cell=5)
    note = re.search(r'<figcaption class="merged">(.*?)</figcaption>', page).group(1)
    assert "2 categories with fewer than 5 records in the original (not named)" in htmllib.unescape(note)
    assert "Zanzibar" not in page and "Atlantis" not in page


def test_merged_categories_are_named_when_declared_or_large():
    from infoloss.report.plotdata import category_grouping
    from infoloss.report.variables import merged_note

    g = category_grouping(["a", "b", "c", "d"], [np.array([20, 3, 6, 30, 0]), np.array([20, 3, 2, 30, 0])],
                          False, Policy(safe=True))
    assert set(g.merged) == {"b", "c"} and g.merged_small == [True, False]  # c: 6 in the original, 2 in the scenario
    text = htmllib.unescape(str(merged_note(g, set(), Policy(safe=True))))
    assert "c and 1 category with fewer than 5 records" in text
    declared = htmllib.unescape(str(merged_note(g, {"b"}, Policy(safe=True))))
    assert "b, c" in declared and "not named" not in declared


def test_no_count_below_min_cell_anywhere_on_the_safe_testdata_page():
    d = DATA / "testdata"
    rep = infoloss.compare(d / "original.csv", [d / "ls_k3.csv"], d / "spec.yaml",
                           measures=["suppressions", "records_changed", "il1s", "lambda", "hellinger"])
    page = rep.to_html(safe=True, min_cell=5)
    counts = [int(c) for c in re.findall(r'data-count="(\d+)"', page)]
    counts += [int(c) for cs in re.findall(r'data-counts="([\d ]+)"', page) for c in cs.split()]
    assert counts and not [c for c in counts if 0 < c < 5]
    # walls has 4 suppressions in ls_k3: never printed as a count
    assert "walls: 4" not in page
    walls = re.search(r'<tr><th scope="row">walls</th>(.*?)</tr>', _section(page, "family-record")).group(1)
    assert walls == "<td>withheld</td>"  # the suppressions data table: null in the safe JSON


# ---------------------------------------------------------------------------
# what each scenario changed
# ---------------------------------------------------------------------------
def test_changes_are_described_from_the_record_level_results(survey_pages):
    text = htmllib.unescape(re.sub(r"<[^>]+>", "", _section(survey_pages["full"], "changes")))
    assert re.search(r"suppressed suppressed 12 values \(region: 12\)", text)  # the scenario is named "suppressed"
    assert re.search(r"recoded .*changed the category of sex: 5 % of records", text)
    assert re.search(r"suppressed .*left the 2 continuous variables untouched", text)
    assert re.search(r"noisy .*perturbed every value of all 2 continuous variables \(IL1s 0\.\d+\)", text)


# ---------------------------------------------------------------------------
# the overview
# ---------------------------------------------------------------------------
def test_overview_cells_match_independent_computations(survey_pair):
    orig, prots, rep = survey_pair
    from infoloss.report.overview import losses

    names, kinds, table = losses(rep, Policy())
    n = len(orig)
    for i, prot in enumerate(prots):
        for v in ("region", "sex", "size"):
            changed = (orig[v].fillna("<NA>") != prot[v].fillna("<NA>")).sum()
            assert table[v][i].value == pytest.approx(changed / n)
        for v in ("income", "spend"):
            il1s = np.mean(np.abs(orig[v] - prot[v])) / (np.sqrt(2) * orig[v].std(ddof=1))
            assert table[v][i].value == pytest.approx(min(il1s, 1.0), rel=1e-9, abs=1e-12)


def test_overview_of_unpaired_files_is_the_distance_between_distributions():
    orig = _survey(seed=3)
    prot = _survey(n=500, seed=4)
    spec = {**SPEC, "pairing": "none"}
    rep = infoloss.compare(orig, prot, spec, measures=["ks", "hellinger"])
    from infoloss.report.overview import losses

    _, _, table = losses(rep, Policy())
    for v in ("income", "spend"):
        assert table[v][0].value == pytest.approx(stats.ks_2samp(orig[v], prot[v]).statistic)
    for v in ("region", "sex"):
        p, q = orig[v].value_counts(normalize=True), prot[v].value_counts(normalize=True)
        tvd = 0.5 * (p.sub(q, fill_value=0).abs().sum())
        assert table[v][0].value == pytest.approx(tvd)


def test_overview_is_sortable_and_links_to_the_plots(survey_pages):
    over = _section(survey_pages["full"], "overview")
    assert 'class="overview sortable' in over and over.count('data-sort="num"') == 1 + 3
    for anchor in re.findall(r'<a href="#(var-\d+)">', over):
        assert f'id="{anchor}"' in survey_pages["full"]
    page = survey_pages["full"]
    assert page.index('<section id="verdict"') < page.index('<section id="overview"') < page.index(
        '<section id="headline"')


# ---------------------------------------------------------------------------
# sections: one registration line
# ---------------------------------------------------------------------------
def test_a_new_section_is_one_registration_line(survey_pair):
    rep = survey_pair[2]
    try:
        sections.register(sections.Section("extra-test", "An extra part", 35, lambda r, p: "<p>extra body</p>"))
        sections.register(sections.Section("fam-extra", "Inside tables", 0, lambda r, p: "<p>in tables</p>",
                                           family="tables"))
        sections.register(sections.Section("nothing", "Never shown", 36, lambda r, p: None))
        page = rep.to_html()
    finally:
        sections.SECTIONS[:] = [s for s in sections.SECTIONS if s.id not in ("extra-test", "fam-extra", "nothing")]
    toc = re.search(r'<nav class="toc".*?</nav>', page, re.S).group(0)
    assert '<a href="#extra-test">An extra part</a>' in toc and "Never shown" not in toc
    assert page.index('id="overview"') < page.index('id="extra-test"') < page.index('id="headline"')
    assert "<p>in tables</p>" in _section(page, "family-tables")


def test_slots_for_other_branches_are_skipped_until_their_module_exists():
    render = sections.lazy("infoloss.report.no_such_module", "anything")
    assert render(None, Policy()) is None
    ids = {s.id for s in sections.SECTIONS}
    assert {"risk-utility", "risk-details", "generalisation-details", "mining-details", "analyses-details"} <= ids
    ru = next(s for s in sections.SECTIONS if s.id == "risk-utility")
    assert sections.ORDER["verdict"] < ru.order < sections.ORDER["changes"]  # the first chart of the page


# ---------------------------------------------------------------------------
# guidance, accessibility and print markup
# ---------------------------------------------------------------------------
def test_every_measure_is_explained_one_click_away(survey_pair, survey_pages):
    rep, page = survey_pair[2], survey_pages["full"]
    for mid in rep.measure_ids:
        entry = re.search(rf'<div class="entry" id="m-{mid}">(.*?)</div>\s*(?=<div class="entry"|</details>)', page,
                          re.S)
        assert entry, mid
        body = entry.group(1)
        assert re.search(r"<p>[A-Za-z][^<]{15,}</p>", body), mid  # plain words
        assert "Reference:" in body, mid
    for anchor in set(re.findall(r'href="#([^"]+)"', page)):
        assert f'id="{anchor}"' in page, anchor
    assert "How to read this report" in page


def test_tables_headers_have_scope_and_charts_have_text_alternatives(survey_pages):
    for page in survey_pages.values():
        assert not re.findall(r"<th\b(?![^>]*scope=)[^>]*>", page)
        for svg in re.findall(r'<svg class="chart"[^>]*>', page):
            assert 'role="img"' in svg and 'aria-label="' in svg
        sizes = [float(s) for s in re.findall(r'<text [^>]*font-size="([\d.]+)"', page)]
        assert not [s for s in sizes if s < 11]
        figures = re.findall(r'<figure class="chart[^"]*">(.*?)</figure>', page, re.S)
        assert figures
        for fig in figures:  # each chart: a caption or a data table next to it, or a self-describing title
            assert "<figcaption" in fig or 'class="data"' in fig or "<title>" in fig


def test_print_css_is_a4_with_page_numbers():
    css = (Path(infoloss.__file__).parent / "report" / "report.css").read_text()
    assert re.search(r"@page\s*{\s*size:\s*A4", css)
    assert 'counter(page) " of " counter(pages)' in css
    assert "break-inside: avoid" in css


def test_chart_text_is_never_below_11_px():
    from infoloss.report import svg

    assert 'font-size="11"' not in svg.text(0, 0, "x", size=8) and "font-size" not in svg.text(0, 0, "x", size=8)
    assert 'font-size="14"' in svg.text(0, 0, "x", size=14)


def test_numbers_follow_one_rule(survey_pages):
    text = re.sub(r"<style>.*?</style>|<script>.*?</script>", "", survey_pages["full"], flags=re.S)
    assert not re.search(r"\d\.\d+e[-+]\d", text)  # no Python exponent notation
    assert not re.search(r"\b\d{5,}\.\d", text)  # no unrounded long numbers


def test_scenario_names_are_never_shortened():
    long = "a_protection_scenario_with_a_very_long_descriptive_name_2024"
    orig = _survey(seed=8)
    prot = orig.assign(income=orig["income"] + 1.0, sex=orig["sex"].where(orig.index % 9 > 0, "m"))
    page = infoloss.compare(orig, [prot, orig], SPEC, names=[long, "copy"]).to_html()
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", page)
    shown = [t for t in texts if "a_protection" in t]
    assert shown and all(long in t for t in shown) and not [t for t in texts if t.endswith("…") and "a_prot" in t]
    assert long + " vs original" in page


# ---------------------------------------------------------------------------
# family weights from the command line and the API
# ---------------------------------------------------------------------------
def test_family_weights_on_the_command_line(tmp_path):
    from typer.testing import CliRunner

    from infoloss.cli import app

    orig = _survey(seed=12)
    prot = orig.assign(income=orig["income"] + 5.0)
    orig.to_csv(tmp_path / "o.csv", index=False)
    prot.to_csv(tmp_path / "p.csv", index=False)
    import yaml

    (tmp_path / "s.yaml").write_text(yaml.safe_dump(SPEC))
    base = ["compare", str(tmp_path / "o.csv"), str(tmp_path / "p.csv"), "--spec", str(tmp_path / "s.yaml"),
            "--measures", "il1s,hellinger", "--html", str(tmp_path / "r.html")]
    bad = CliRunner().invoke(app, base + ["--family-weights", "tables=2,nonsense=1"])
    assert bad.exit_code == 2 and "unknown family 'nonsense'" in bad.output
    # risk is never part of the utility score: weighing it alone gave every family 0 % and "no score"
    bad = CliRunner().invoke(app, base + ["--family-weights", "risk=1"])
    assert bad.exit_code == 2 and "the risk family is not part of the utility score" in bad.output
    assert "risk" not in CliRunner().invoke(app, base + ["--family-weights", "x=1"]).output.split("families are")[1]
    bad = CliRunner().invoke(app, base + ["--family-weights", "tables=-1"])
    assert bad.exit_code == 2 and "at least 0" in bad.output
    ok = CliRunner().invoke(app, base + ["--family-weights", "tables=3,record=1"])
    assert ok.exit_code == 0, ok.output
    page = (tmp_path / "r.html").read_text()
    assert "the weights you gave" in page and "weight 75 %" in page and "weight 25 %" in page


def test_mosaic_legends_keep_long_category_labels_whole():
    from infoloss.report.svg import text_width

    label = "Other personal service activities not elsewhere classified (NACE 96.09)"
    columns = [("original", [("a", 50, "#88CCEE"), (label, 50, "#CC6677")]), ("s1", [("a", 40, "#88CCEE"),
                                                                                    (label, 60, "#CC6677")])]
    svg = str(charts.mosaic_columns(columns, [("a", "#88CCEE"), (label, "#CC6677")], title="t", label="m"))
    assert f">{label}</text>" in svg
    width = float(re.search(r'<svg [^>]*width="([\d.]+)"', svg).group(1))
    x = max(float(m) for m in re.findall(r'<text x="([\d.]+)" y="[\d.]+">' + re.escape(label), svg))
    assert x + text_width(label) <= width


def test_each_variable_names_the_scenario_where_it_loses_most(survey_pair, survey_pages):
    """Losses are never mixed across scenarios: each variable's heading names its worst scenario."""
    orig, prots, rep = survey_pair
    names = [s.name for s in rep.scenarios]
    for v in ("sex", "income"):
        if v == "sex":
            loss = [(orig[v] != p[v]).mean() for p in prots]
        else:
            loss = [np.mean(np.abs(orig[v] - p[v])) / (np.sqrt(2) * orig[v].std(ddof=1)) for p in prots]
        worst = names[int(np.argmax(loss))]
        heading = re.search(rf"<h3>{v} <small>[^<]*</small>([^<]*)</h3>", survey_pages["full"]).group(1)
        assert heading.endswith(f" in {worst}"), heading


def test_scores_follow_the_page_s_one_rounding_rule():
    # the score table printed 2 decimals (0.995735 read "1.00", "identical") and the overall score 3
    from infoloss.report.numbers import number
    from infoloss.report.verdict import _overall_cell, _score_cell

    assert ">0.996<" in str(_score_cell(0.995735, False)) and ">0.225<" in str(_score_cell(0.225361, False))
    assert "<b>0.97</b>" in str(_overall_cell(0.969849, False))
    assert number(999.7) == "1,000"


def test_a_partly_perturbed_continuous_variable_is_described_by_its_share_of_records():
    rng = np.random.default_rng(0)
    orig = pd.DataFrame({"x": rng.normal(size=400), "y": rng.normal(size=400)})
    prot = orig.copy()
    prot.loc[:199, "x"] += 0.1  # half the records
    prot["y"] += 0.1
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}}}
    page = infoloss.compare(orig, prot, spec, measures=["il1s", "records_changed"]).to_html()
    text = htmllib.unescape(re.sub(r"<[^>]+>", "", _section(page, "changes")))
    assert "perturbed all 2 continuous variables (in 50 %–100 % of the records)" in text


def test_measures_left_out_of_the_scores_say_why():
    from infoloss.report.scores import _scoreable

    class S:
        def __init__(self, measures):
            self.measures = measures

    class R:
        scenarios = [S({"ks": infoloss.registry.MeasureResult(value=0.1)}), S({})]

    left: dict = {}
    assert _scoreable(R(), ["ks", "loss_metric"], left) == []
    assert left == {"ks": "not computed for every scenario", "loss_metric": "not computed in any scenario"}


def test_the_verdict_says_the_losing_scenario_s_number_is_its_overall_score(survey_pages):
    text = htmllib.unescape(re.sub(r"<[^>]+>", "", _section(survey_pages["full"], "verdict")))
    assert re.search(r"loses most \(overall score [0-9.]+\)", text)


def test_values_within_one_percent_of_a_bounded_range_are_not_coloured_best_against_worst():
    from infoloss.registry import get
    from infoloss.report.parts import info_positions

    assert info_positions(get("gamma"), [0.0, 1.18e-6]) == [None, None]
    assert info_positions(get("cluster_ari"), [0.995, 1.0]) == [None, None]
    assert info_positions(get("hellinger"), [0.1, 0.3]) == [0.0, 1.0]
    assert info_positions(get("il1s"), [0.001, 0.002]) == [0.0, 1.0]  # unbounded: relative differences count
    # small values a third of each other are no tie: a global risk of 0.012 against 0.0044 was (report review)
    assert info_positions(get("global_risk"), [0.012, 0.00437]) == [1.0, 0.0]
    assert info_positions(get("ecdf_mean"), [4.7e-5, 9.7e-4]) == [0.0, 1.0]


def test_what_changed_says_a_variable_was_generalised_not_perturbed():
    rng = np.random.default_rng(0)
    age = rng.integers(18, 80, 500)
    orig = pd.DataFrame({"age": age.astype(float), "sex": rng.choice(["m", "f"], 500)})
    prot = pd.DataFrame({"age": [f"[{a}, {a + 10})" for a in age // 10 * 10], "sex": orig["sex"]})
    spec = {"variables": {"age": {"scale": "continuous", "role": "key",
                                  "hierarchy": {"intervals": list(range(10, 91, 10)), "nesting": [2]}},
                          "sex": {"scale": "nominal", "role": "key"}}}
    text = htmllib.unescape(re.sub(r"<[^>]+>", "", _section(infoloss.compare(orig, prot, spec).to_html(), "changes")))
    assert "generalised age to level 1 of 3" in text and "perturbed" not in text


def test_the_score_table_s_caption_is_outside_its_scrolling_box(survey_pages):
    # inside the box it was as wide as the table and cut at the box's edge on a narrow screen
    verdict = _section(survey_pages["full"], "verdict")
    assert re.search(r'<p class="note" id="scores-caption">Utility scores.*?</p><div class="scroll"', verdict, re.S)
    assert "<caption>Utility scores" not in verdict


def test_what_changed_names_a_mean_level_as_such_and_keeps_its_sentences_whole():
    from infoloss.report.verdict import _generalised_text, _values_in

    assert _generalised_text("edu", 1.0, 2) == "edu to level 1 of 2"
    assert _generalised_text("edu", 0.30151, 2) == "edu (mean level 0.302 of 2)"
    # safe mode, every count withheld: "changed the category of values in 1 variable (...)", not "of in 1 ..."
    assert _values_in("in 1 variable (count withheld in safe mode)").startswith("values in 1 variable")
    assert _values_in("age: 12 % of records") == "age: 12 % of records"


def test_ecdf_max_weighs_the_variables_it_used_not_every_variable():
    # audit h9b finding 3: ecdf_max (details.variables: the continuous and ordinal ones) counted as all variables
    variables = {f"c{i}": "nominal" for i in range(8)} | {"o": "ordinal", "x": "continuous"}
    ecdf = MeasureResult(0.2, details={"variables": ["o", "x"], "left_out": {f"c{i}": "nominal" for i in range(8)}})
    ks = MeasureResult(0.5, by_variable={"x": 0.5})
    rep = fake_report({"ks": [ks], "ecdf_max": [ecdf], "hellinger": [0.1]}, variables)
    sc = compute_scores(rep)
    dist = next(f for f in sc.families if f.family == "distributions")
    # by hand: ks speaks about x (1 variable, score 0.5), ecdf_max about o and x (2, score 0.8): (0.5 + 1.6) / 3;
    # the family covers {o, x}: 2 of 10 variables, tables (hellinger, categorical) 9 of 10
    assert dist.coverage == 2 and dist.scores[0] == pytest.approx((1 * 0.5 + 2 * 0.8) / 3)
    w = {f.family: f.weight for f in sc.families}
    assert w == pytest.approx({"distributions": 2 / 11, "tables": 9 / 11})
    assert sc.overall[0] == pytest.approx(2 / 11 * 0.7 + 9 / 11 * 0.9)


def test_places_chain_ties_from_the_next_better_score():
    # audit h9b finding 8: 0.900 / 0.895 / 0.889 gave places 1, 1, 3 though 0.895 and 0.889 are 0.006 apart
    rep = fake_report({"hellinger": [0.100, 0.105, 0.111, 0.130]}, {"c": "nominal"})
    sc = compute_scores(rep)
    assert sc.overall == pytest.approx([0.9, 0.895, 0.889, 0.87])
    assert sc.places() == [1, 1, 1, 4] and sc.tied_with_best() == [0, 1, 2]
    sentence = _text_of(verdict_html(rep))
    assert sentence.startswith("s1, s2 and s3 keep most information and are tied: s1 (0.9), s2 (0.895) and s3 "
                               "(0.889), each within 0.01 of the next. s4 loses most (overall score 0.87)")


def _text_of(html: str) -> str:
    return re.sub(r"\s+", " ", htmllib.unescape(re.sub(r"<[^>]+>", "", html))).strip()


def verdict_html(rep) -> str:
    from infoloss.report.verdict import verdict_sentence

    return str(verdict_sentence(compute_scores(rep)))


def test_a_tied_last_place_is_named_as_tied():
    # audit h9b finding 4: "strong loses most (0.622)" while random (0.628) shares its place 4
    rep = fake_report({"hellinger": [0.0, 0.2, 0.372, 0.378]}, {"c": "nominal"}, names=["id", "light", "random", "strong"])
    assert compute_scores(rep).places() == [1, 2, 3, 3]
    assert _text_of(verdict_html(rep)) == ("id keeps most information: overall score 1 of 1, ahead of light (0.8). "
                                           "random and strong lose most and are tied: random (0.628) and strong "
                                           "(0.622), each within 0.01 of the next.")


def test_the_one_scenario_verdict_says_where_it_loses_most():
    # audit h9b finding 5: "keeps 0.925 of the information ..., mainly on record level" named its weakest family
    variables = {"c": "nominal", "x": "continuous"}
    rep = fake_report({"lambda": [0.2], "hellinger": [0.05]}, variables, names=["light"])
    # record: lambda over c and x (2 variables): 0.8; tables: hellinger over c: 0.95; weights 2/3 and 1/3
    text = _text_of(verdict_html(rep))
    assert text == ("The one scenario, light, has an overall score of 0.85 (1 = identical to the original); it "
                    "loses most on record level (family score 0.8).")
    assert "keeps" not in text and "mainly" not in text


def test_a_weight_of_an_eighth_prints_as_12_5_percent():
    # audit h9b minor: 12.5 % printed as "12 %" (rounding half to even)
    variables = {"x": "continuous"} | {f"c{i}": "nominal" for i in range(7)}
    rep = fake_report({"gamma": [0.1, 0.2], "hellinger": [0.1, 0.2]}, variables)
    w = {f.family: f.weight for f in compute_scores(rep).families}
    assert w == pytest.approx({"moments": 1 / 8, "tables": 7 / 8})
    verdict = _section(rep.to_html(), "verdict")
    assert "weight 12.5 %" in verdict and "weight 87.5 %" in verdict and "weight 12 %" not in verdict


def test_verdict_names_files_with_fewer_or_more_records():
    # a subsample keeps the distributions (it can score best) but loses a quarter of the records: the verdict says so
    report = fake_report({"ks": [0.01, 0.02, 0.03]}, {"x": "continuous"}, n=2000, names=["kept", "subsample", "more"])
    report.scenarios[1].n_records = 1500
    report.scenarios[2].n_records = 2003
    page = report.to_html()
    verdict = htmllib.unescape(re.sub(r"<[^>]+>", "", _section(page, "verdict")))
    assert "subsample has 25 % fewer records than the original (1,500 for 2,000)" in verdict
    assert "more has 0.15 % more records than the original (2,003 for 2,000)" in verdict
    assert "kept has" not in verdict
    same = fake_report({"ks": [0.01, 0.02]}, {"x": "continuous"}, n=2000)
    assert 'id="record-counts"' not in same.to_html()


def test_the_map_and_the_safe_verdict_say_why_their_rankings_can_differ(survey_pages):
    # the verdict ranked free1's scenarios one way and the map (loss = 1 - gdu) the other, and the safe verdict's
    # scores differed from the full report's without a word (found by the report review)
    text = htmllib.unescape(re.sub(r"<[^>]+>", "", survey_pages["full"]))
    assert "the verdict's scores combine every family's headline measures, so the two can rank the scenarios " \
           "differently" in " ".join(text.split())
    safe = " ".join(htmllib.unescape(re.sub(r"<[^>]+>", "", survey_pages["safe"])).split())
    assert "withheld in safe mode" in safe  # (the survey pair's safe report withholds some headline measure)
    assert "so the safe report's scores can differ from those of the full report" in safe


def test_a_family_whose_headline_measures_cannot_be_scored_is_not_scored_by_a_stand_in():
    """Safe mode withholds the estimates and regression_ci_overlap has no scale: the analyses family is then not
    scored, rather than by regression_sign_agreement (no headline measure), which reversed the safe verdict."""
    variables = {f"c{i}": "nominal" for i in range(5)} | {f"x{i}": "continuous" for i in range(3)}
    from infoloss.report.safe_view import SafeResult

    withheld = SafeResult({"value": None, "by_variable": None, "by_pair": None, "details": {},
                           "withheld": "withheld in safe mode"})
    full = {"hellinger": [0.2, 0.1], "estimate_inside_ci": [0.5, 1.0], "estimate_ci_overlap": [0.3, 0.8],
            "regression_ci_overlap": [0.2, 0.9], "regression_sign_agreement": [1.0, 0.5]}
    safe_rep = fake_report(full, variables)
    for s in safe_rep.scenarios:
        s.measures["estimate_inside_ci"] = s.measures["estimate_ci_overlap"] = withheld
    full_sc, safe_sc = compute_scores(fake_report(full, variables)), compute_scores(safe_rep)
    assert full_sc.ranking() == safe_sc.ranking() == [1, 0]
    analyses = {f.family: f for f in safe_sc.families}["analyses"]
    assert analyses.measures == [] and analyses.scores == [None, None]
    assert "regression_sign_agreement" not in analyses.left_out  # not even considered
    assert {f.family: f for f in full_sc.families}["analyses"].measures == ["estimate_inside_ci"]
    # a family that ran no headline measure is still scored by its scoreable measures
    only = compute_scores(fake_report({"regression_sign_agreement": [1.0, 0.5]}, variables))
    assert only.families[0].measures == ["regression_sign_agreement"]


def test_every_value_tied_with_the_best_one_is_marked_best():
    """The tie rule of a bounded measure holds for each value against the best, not only for the row's spread."""
    from infoloss.report.parts import info_positions

    # the audit's lambda row: 0.31973 printed 0.32 with no mark beside two 0.319 ✓ best
    assert info_positions(get("lambda"), [0.31924, 0.31973, 0.31924, 0.47726]) == [0.0, 0.0, 0.0, 1.0]
    # a pair that is a tie with two scenarios stays one with three
    assert info_positions(get("hellinger"), [0.30, 0.303]) == [None, None]
    assert info_positions(get("hellinger"), [0.30, 0.303, 0.5])[:2] == [0.0, 0.0]
    assert info_positions(get("gdu"), [0.9, 0.5, 0.897])[::2] == [0.0, 0.0]  # higher is better
    # no tie: 1 % of the range apart but a third of each other; more than 1 % of the range apart
    assert info_positions(get("global_risk"), [0.012, 0.00437, 0.5]) == [pytest.approx(0.0152, abs=1e-3), 0.0, 1.0]
    assert info_positions(get("hellinger"), [0.30, 0.32, 0.5])[1] > 0
    variables = {f"c{i}": "nominal" for i in range(3)}
    page = fake_report({"lambda": [0.31924, 0.31973, 0.31924, 0.47726]}, variables).to_html()
    row = re.search(r'<tr><th scope="row" class="measure"><a href="#m-lambda">.*?</tr>', _section(page, "headline"),
                    re.S).group(0)
    assert row.count("✓ best") == 3


def test_a_share_short_of_all_or_none_never_prints_as_100_or_0_percent():
    assert numbers.percent(1997 / 2000) == "99.9 %" and numbers.percent(0.99999) == "> 99.9 %"
    assert numbers.percent(0.996) == "99.6 %" and numbers.percent(0.994) == "99 %"
    assert numbers.percent(3e-7) == "< 0.01 %" and numbers.percent(1.0) == "100 %" and numbers.percent(0.0) == "0 %"
    assert numbers.weight_percent(0.9996) == "> 99.9 %" and numbers.below(5 / 100000) == "< 0.01 %"
    rng = np.random.default_rng(0)
    orig = pd.DataFrame({"c": rng.choice(list("abc"), 2000), "x": rng.normal(size=2000)})
    prot = orig.copy()
    prot.loc[3:, "x"] += 0.1  # 3 of 2,000 records kept unchanged
    spec = {"variables": {"c": {"scale": "nominal"}, "x": {"scale": "continuous"}}}
    page = infoloss.compare(orig, prot, spec, measures=["il1s", "records_changed"]).to_html()
    text = htmllib.unescape(re.sub(r"<[^>]+>", "", _section(page, "changes")))
    assert "changed at least one value in 1,997 records (99.9 % of the records)" in text, text
    assert "100 %" not in text
