"""The report's analyses section: coefficient charts, the estimates table, safe mode."""

import re

import numpy as np
import pandas as pd
import pytest

import infoloss
from infoloss.report.numbers import number

UNIQUE = 987654.321
IDS = ["estimate_ci_overlap", "estimate_inside_ci", "regression_ci_overlap", "regression_sign_agreement", "r2_loss",
       "alpha_loss"]


@pytest.fixture(scope="module")
def reports():
    rng = np.random.default_rng(0)
    n = 300
    df = pd.DataFrame({"region": rng.choice(["North", "South", "East"], n), "sex": rng.choice(["f", "m"], n),
                       "income": rng.lognormal(8, 0.5, n).round(2), "a": rng.integers(1, 6, n),
                       "b": rng.integers(1, 6, n)})
    df.loc[7, ["region", "income"]] = ["Zanzibar", UNIQUE]  # a domain of one record
    df["spend"] = 0.4 * df.income + rng.normal(0, 200, n)
    prot = df.copy()
    prot["income"] = df.income * rng.lognormal(0, 0.2, n)
    spec = {"variables": {"region": {"scale": "nominal"}, "sex": {"scale": "nominal"},
                          "income": {"scale": "continuous"}, "spend": {"scale": "continuous"},
                          "a": {"scale": "ordinal"}, "b": {"scale": "ordinal"}},
            "analyses": {"estimates": [{"statistic": "mean", "variable": "income", "by": "region"},
                                       {"statistic": "quantile", "variable": "income", "p": [0, 0.5, 1]},
                                       {"statistic": "gini", "variable": "income"}],
                         "regressions": [{"name": "spending", "formula": "spend ~ np.log(income) + C(sex)"}],
                         "scales": [{"name": "ab", "items": ["a", "b"]}], "ci": {"replicates": 50}}}
    report = infoloss.compare(df, [prot, df.copy()], spec, names=["noisy", "same"], measures=IDS)
    return report, report.to_html(), report.to_html(safe=True)


def test_the_section_has_the_coefficient_chart_and_the_tables(reports):
    _, html, _ = reports
    assert 'aria-label="coefficients of spending"' in html
    section = html[html.index("Your analyses before and after"):]
    for coef in ("Intercept", "np.log(income)", "C(sex)[T.m]"):
        assert coef in section
    assert "Estimates" in section and "Scales: Cronbach" in section
    assert section.count('class="chart mini"') >= 6  # one small interval chart per estimate row
    # the identical scenario: every J shown is 1
    assert "gini(income)" in section


def test_the_coefficient_chart_has_its_numbers_as_a_table_and_a_marker_per_scenario(reports):
    # it had one marker shape for every scenario (colour alone told them apart) and its numbers only as hover
    # texts (found by the report review)
    report, html, _ = reports
    figure = html[html.index('aria-label="coefficients of spending"'):]
    figure = figure[:figure.index("</figure>")]
    table = figure[figure.index("data: estimates [95% interval] per file"):]
    assert "<th scope=\"col\">noisy</th>" in table and "<th scope=\"col\">same</th>" in table
    reg = report.to_dict()["scenarios"][1]["analyses"]["regressions"][0]
    coef = next(c for c in reg["coefficients"] if c["name"] == "C(sex)[T.m]")["original"]
    row = table[table.index("C(sex)[T.m]"):]
    assert number(coef["estimate"]) in row[:200] and number(coef["lower"]) in row[:200]
    chart = figure[:figure.index("</svg>")]
    assert "<circle" in chart and "<polygon" in chart  # scenario 1's circle, scenario 2's square


def test_safe_mode_hides_small_domains_and_extremes(reports):
    report, html, safe = reports
    assert "Zanzibar" in html and "region=Zanzibar" in html
    section = safe[safe.index("Your analyses before and after"):]
    assert "region=Zanzibar" not in section
    assert "quantile(income, 1)" not in section and "quantile(income, 0)" not in section
    assert "quantile(income, 0.5)" in section
    assert "987,654" not in safe and "9.877e+05" not in section
    assert re.search(r"Safe mode: \d+ estimates", section)


def test_no_section_without_analyses():
    df = pd.DataFrame({"x": np.arange(30.0), "g": ["a", "b", "c"] * 10})
    spec = {"variables": {"x": {"scale": "continuous"}, "g": {"scale": "nominal"}}}
    html = infoloss.compare(df, df.copy(), spec, measures=IDS).to_html()
    assert "Your analyses before and after" not in html
    assert "the spec declares no estimates" in html


def test_an_estimate_whose_interval_is_beyond_the_float_range_draws_no_mini_chart():
    # values near ±1.8e308: the mean's interval (or its value) is missing; the page was a TypeError (found by fuzzing)
    orig = pd.DataFrame({"x": [1.7e308, 1e308, 1e308, -1.7e308]})
    prot = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    spec = {"variables": {"x": {"scale": "continuous"}},
            "analyses": {"estimates": [{"statistic": "mean", "variable": "x"}], "ci": {"replicates": 20}}}
    report = infoloss.compare(orig, prot, spec, measures=["estimate_ci_overlap"])
    assert report.scenarios[0].analyses["estimates"]
    assert "mean(x)" in report.to_html()


def test_coefficient_names_are_shown_in_full():
    from infoloss.synth import make_spec, make_survey, protect

    df = make_survey(600, n_continuous=2, n_categorical=1, seed=0)
    region = "region_of_residence_at_time_of_interview_nuts2"
    df[region] = pd.Categorical(np.random.default_rng(0).choice(["Zuid-Holland metropolitan area", "Groningen"], 600))
    spec = make_spec(df)
    spec["analyses"] = {"regressions": [{"name": "m", "formula": f"income ~ age + C({region})"}]}
    html = infoloss.compare(df, protect(df, noise=0.2, seed=1), spec, measures=["regression_ci_overlap"]).to_html()
    name = f"C({region})[T.Zuid-Holland metropolitan area]"
    chart = html[html.index('aria-label="coefficients of m"'):]
    chart = chart[:chart.index("</svg>")]
    # the name in full: as its tooltip, and its lines (wrapped before "[T.", never cut) give it whole
    label = next(t for t in re.findall(r"<text[^>]*>(.*?)</text>", chart) if f"<title>{name}</title>" in t)
    assert "".join(re.findall(r"<tspan[^>]*>(.*?)</tspan>", label)) == name
    assert re.search(r"<tspan[^>]*>\[T\.Zuid-Holland", label)


def test_safe_mode_hides_exactly_the_estimates_the_safe_json_withholds(reports):
    # the page judged shares by the weighted p·n, the JSON by the records themselves: the page hid more
    report, _, safe = reports
    rows = report.to_dict(safe=True)["scenarios"][0]["analyses"]["estimates"]
    withheld = sum(1 for r in rows if (r["original"] or {}).get("value") is None and "n" in (r["original"] or {}))
    section = safe[safe.index("Your analyses before and after"):]
    assert f"Safe mode: {withheld} estimates" in section
    assert section.count("<tr><th scope=row>") >= len(rows) - withheld
