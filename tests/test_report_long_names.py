"""Charts with long variable and scenario names: row labels stay inside their chart (wrapped, never cut at the
start), the coefficient chart keeps the page's width, heat maps of many variables print no unreadable numbers."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd

import infoloss
from infoloss.report import svg
from infoloss.report.analyses import _coefficient_chart
from test_report import chromium  # noqa: F401  (the fixture: skips without chromium)

LONG = [f"{v}_reported_by_the_household_reference_person_in_the_main_questionnaire_wave_2024"
        for v in ("income", "expenditure", "tenure")]
SCEN = ["light_noise_ten_percent_pram_five_percent_suppression_one_percent_of_key_values",
        "medium_noise_twenty_five_percent_pram_ten_percent_suppression_two_percent"]


def _texts(chart: str) -> tuple[float, list[tuple[ET.Element, list[tuple[float, str]]]]]:
    """The svg's width and each <text> with its lines as (x, content)."""
    root = ET.fromstring(str(chart))
    out = []
    for t in root.iter("{http://www.w3.org/2000/svg}text") if root.tag.startswith("{") else root.iter("text"):
        spans = [c for c in t if c.tag.endswith("tspan")]
        lines = [(float(s.get("x")), s.text or "") for s in spans] if spans else [(float(t.get("x")), t.text or "")]
        out.append((t, lines))
    return float(root.get("width")), out


def _inside(chart: str) -> None:
    """Every text line of ``chart`` lies inside the svg (by its estimated width)."""
    width, texts = _texts(chart)
    for t, lines in texts:
        if t.get("transform"):
            continue
        anchor = t.get("text-anchor", "start")
        for x, s in lines:
            w = svg.text_width(s)
            left = x - w if anchor == "end" else x - w / 2 if anchor == "middle" else x
            assert left >= -0.5 and left + w <= width + 0.5, (s, left, w, width)


def _label_of(chart: str, name: str) -> ET.Element:
    """The <text> that shows ``name``: one text, or lines (tspans) that together give the name in full."""
    for t, lines in _texts(chart)[1]:
        if "".join(s for _, s in lines).replace(" ", "") == name.replace(" ", ""):
            return t
    raise AssertionError(f"{name} is not shown in full")


def test_per_variable_charts_wrap_long_names_inside_the_chart():
    vals = [0.1, 0.3, 0.2]
    for chart in (svg.grouped_bars(LONG, [(SCEN[0], svg.colour(0), vals)], label="x", width=560),
                  svg.grouped_bars(LONG, [(s, svg.colour(i), vals) for i, s in enumerate(SCEN)], label="x",
                                   width=560)):
        _inside(chart)
        for name in LONG:
            t = _label_of(chart, name)
            assert len(list(t)) > 1 and t.find("title").text == name  # wrapped, the full name as its tooltip
        assert float(ET.fromstring(str(chart)).get("width")) <= 640


def test_short_names_stay_one_plain_text():
    chart = svg.grouped_bars(["age", "income"], [("a", svg.colour(0), [0.1, 0.2])], label="x")
    assert '<text x="' in chart and ">income</text>" in chart and "<tspan" not in chart


def test_box_plot_and_interval_chart_wrap_long_scenario_names():
    boxes = [dict(name=n, colour=svg.colour(i), q1=1, median=2, q3=3, whiskers=(0, 4)) for i, n in
             enumerate(["original"] + SCEN)]
    box = svg.box_panel(title="box plots", boxes=boxes, xlim=(0, 5), label="b")
    _inside(box)
    for n in SCEN:
        _label_of(box, n)
    ci = svg.ci_chart([(n, (-1, 0, 1), [(s, svg.colour(i), (-1, 0.2, 1.4)) for i, s in enumerate(SCEN)])
                       for n in LONG], label="c")
    _inside(ci)
    for n in LONG:
        _label_of(ci, n)


TERM = ("C(education_level_of_the_reference_person)[T.lower secondary — a rather long category label describing "
        "this group in full detail]")


def test_coefficient_chart_keeps_the_page_width_with_long_terms():
    rows = [(name, (0.5, 1.0, 1.5), [(s, i, (0.4, 1.1, 1.6)) for i, s in enumerate(SCEN)], 0.25)
            for name in ("Intercept", TERM, "age_reported_by_the_household_reference_person_in_the_main_wave")]
    chart = _coefficient_chart(rows, 0.95, label="coefficients")
    width = float(ET.fromstring(str(chart)).get("width"))
    assert width <= 700  # not scaled down by the page's max-width, so its text stays 11 px
    _inside(chart)
    t = _label_of(chart, TERM)
    lines = [c.text for c in t if c.tag == "tspan"]
    assert any(ln.startswith("[T.lower") for ln in lines)  # the level starts a line of its own
    assert t.find("title").text == TERM
    # the plot area keeps a usable width: the axis spans at least 300 px
    assert width - max(float(c.get("x")) for c, _ in _texts(chart)[1] if c.get("text-anchor") == "end"
                       and c.find("tspan") is not None) >= 300


def test_dense_heat_map_prints_numbers_in_all_cells_or_none():
    names = [f"V{i:02d}" for i in range(20)]
    cells = {(i, j): (0.84 if (i + j) % 7 == 0 else 0.0) for i in range(20) for j in range(i)}
    dense = svg.heatmap(names, cells, label="h", title="s", lo=0, hi=1, legend_text=("low", "high"))
    # a 22-px cell holds "0" but not "0.84": no cell gets a number (the hover texts and the data table have them)
    assert not [s for _, ls in _texts(dense)[1] for _, s in ls if s in ("0", "0.84")]
    assert "V03 × V04: 0.84" in dense or "V04 × V03: 0.84" in dense
    small = svg.heatmap(names[:4], {(1, 0): 0.84, (2, 0): 0.0, (3, 2): 0.5}, label="h", title="s", lo=0, hi=1,
                        legend_text=("low", "high"))
    shown = [s for _, ls in _texts(small)[1] for _, s in ls]
    assert {"0.84", "0", "0.5"} <= set(shown)  # large cells: every value printed


def test_pair_heat_maps_leave_out_variables_whose_pairs_never_changed():
    import re

    rng = np.random.default_rng(0)
    n = 400
    df = pd.DataFrame({f"v{i}": rng.choice(list("abc"), n) for i in range(8)})
    prot = df.copy()
    prot["v1"], prot["v5"] = rng.choice(list("abc"), n), rng.choice(list("abc"), n)
    spec = {"variables": {c: {"scale": "nominal"} for c in df}}
    html = infoloss.compare(df, prot, spec, measures=["ldu_biv"]).to_html()
    m = re.search(r"Drawn: the (\d+) of 8 variables with a pair that changed; every pair of the other (\d+) is", html)
    assert m and int(m.group(1)) + int(m.group(2)) == 8 and int(m.group(1)) < 8


def test_page_with_80_character_names_does_not_scroll_sideways_at_800_px(chromium, tmp_path):  # noqa: F811
    from browser_cdp import Browser
    from infoloss.synth import make_spec, make_survey, protect

    orig = make_survey(600, n_continuous=3, n_categorical=3, seed=3)
    spec = make_spec(orig)
    suffix = "_reported_by_the_household_reference_person_in_the_main_questionnaire_wave_2024"
    ren = {c: c + suffix for c in spec["variables"]}

    def relabel(df):
        df = df.copy()
        for c in df.columns:
            if isinstance(df[c].dtype, pd.CategoricalDtype):
                df[c] = df[c].cat.rename_categories(lambda s: f"{s} — a rather long category label describing "
                                                              "this group in full detail")
        return df.rename(columns=ren)

    for v in spec["variables"].values():
        if "order" in v:
            v["order"] = [f"{s} — a rather long category label describing this group in full detail"
                          for s in v["order"]]
    spec["variables"] = {ren[k]: v for k, v in spec["variables"].items()}
    names = ["light_noise_ten_percent_pram_five_percent_suppression_one_percent_of_key_values",
             "very_strong_noise_one_hundred_percent_pram_forty_percent_suppression_ten_percent"]
    prots = [relabel(protect(orig, noise=0.1 + 0.5 * k, pram=0.05 + 0.3 * k, seed=k)) for k in range(2)]
    page = tmp_path / "long.html"
    infoloss.compare(relabel(orig), prots, spec, names=names).to_html(page)
    js = """(() => { document.querySelectorAll('details').forEach(d => d.open = true);
      const cap = document.querySelector('#scores-caption'), box = document.querySelector('#verdict .scroll');
      return [document.documentElement.scrollWidth, innerWidth,
              cap.getBoundingClientRect().right - box.getBoundingClientRect().right]; })()"""
    with Browser(chromium) as b:
        for width in (800, 1400):
            scroll, inner, cap_past_box = b.open(page.as_uri(), width=width).evaluate(js)
            assert scroll <= inner, (width, scroll)
            assert cap_past_box <= 0.5, (width, cap_past_box)  # the verdict table's caption is not cut (outside the box)


def test_a_heat_map_of_long_names_fits_an_800_px_page_and_keeps_the_full_names_as_tooltips():
    names = [n + "_and_some_more_words_to_make_it_longer" for n in LONG] + ["hours"]
    cells = {(i, j): (i - j) / 4 for i in range(4) for j in range(i)}
    chart = svg.heatmap(names, cells, label="heat", title=SCEN[0] + "_" + SCEN[1], lo=-1, hi=1, diverging=True)
    width, texts = _texts(chart)
    assert width <= 760  # the page's width at 800 px: the map is not shrunk (its text would fall below 11 px)
    # (a wider one scrolls in its own box: figure.chart.heat in report.css, tested in the browser)
    for name in names[:3]:
        assert f"<title>{name}</title>" in chart  # shortened labels carry the full name
    _label_of(chart, SCEN[0] + "_" + SCEN[1])  # the scenario's name is wrapped, never shortened
