"""The analyses measures: identity, Karr's overlap, the JSON block, caching of the original, the CLI."""

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import infoloss
from infoloss.analyses import estimates as estimates_module
from infoloss.analyses.compare import ci_overlap
from infoloss.analyses.scales import cronbach_alpha
from infoloss.cli import app
from infoloss.errors import NotComputed
from infoloss.pair import encode_pair
from infoloss.registry import get, registered

DATA = Path(__file__).resolve().parent / "data"
REF = json.loads((DATA / "reference_r" / "analyses.json").read_text())
IDS = ["estimate_ci_overlap", "estimate_inside_ci", "regression_ci_overlap", "regression_sign_agreement", "r2_loss",
       "alpha_loss"]
TD_SPEC = {
    "variables": {"urbrur": {"scale": "nominal", "role": "strata"}, "water": {"scale": "nominal"},
                  "sex": {"scale": "nominal"}, "relat": {"scale": "nominal"}, "age": {"scale": "ordinal"},
                  "walls": {"scale": "ordinal"}, "roof": {"scale": "ordinal"},
                  "income": {"scale": "continuous"}, "expend": {"scale": "continuous"},
                  "savings": {"scale": "continuous"}, "ori_hid": {"role": "cluster"},
                  "household_weights": {"role": "weight"}},
    "analyses": {
        "estimates": [{"statistic": "mean", "variable": "income", "by": "sex"},
                      {"statistic": "proportion", "variable": "water", "by": "urbrur"},
                      {"statistic": "gini", "variable": "income"}, {"statistic": "arpr", "variable": "income",
                                                                     "by": "sex"},
                      {"statistic": "qsr", "variable": "expend"}, {"statistic": "median", "variable": "savings"},
                      {"statistic": "ratio", "variable": "savings", "denominator": "income"},
                      {"statistic": "mean", "variable": "age", "by": "relat"}],
        "regressions": [{"name": "mincer", "formula": "np.log(income) ~ age + I(age**2) + C(sex) + C(urbrur)",
                         "where": "income > 0"},
                        {"name": "logit", "family": "binomial", "formula": "I(sex == 2) ~ age + np.log(income)"}],
        "scales": [{"name": "dwelling", "items": ["walls", "roof"]}],
        "ci": {"replicates": 50, "seed": 3},
    },
}


@pytest.fixture(scope="module")
def testdata():
    return pd.read_csv(DATA / "testdata" / "original.csv")


def test_karr_overlap_by_hand():
    assert ci_overlap(0.0, 2.0, 1.0, 3.0) == 0.5  # half of each interval is shared
    assert ci_overlap(0.0, 4.0, 1.0, 2.0) == pytest.approx(0.5 * (1 / 4 + 1 / 1))  # nested
    assert ci_overlap(0.0, 1.0, 1.0, 2.0) == 0.0  # touching
    assert ci_overlap(0.0, 1.0, 3.0, 4.0) == -2.0  # disjoint: negative, not clipped
    assert ci_overlap(0.0, 1.0, 0.5, 0.5) is None and ci_overlap(None, 1.0, 0.0, 1.0) is None


@pytest.mark.parametrize("pairing", ["row", "none"])
def test_identical_files_give_exactly_the_ideal_values(testdata, pairing):
    spec = dict(TD_SPEC, pairing=pairing)
    report = infoloss.compare(testdata, testdata.copy(), spec, measures=IDS, statistics=False, aggregates=False)
    scenario = report.scenarios[0]
    assert not scenario.not_computed
    for mid in IDS:
        assert scenario.measures[mid].value == get(mid).ideal, mid
    rows = scenario.analyses["estimates"]
    assert any(r["original"]["method"] == "bootstrap" for r in rows)
    assert all(r["ci_overlap"] in (1.0, None) for r in rows)


def test_protected_files_lose_and_the_json_block_is_documented(testdata):
    prot = [pd.read_csv(DATA / "testdata" / f) for f in ("ls_k3.csv", "recode_pram_noise50.csv")]
    report = infoloss.compare(testdata, prot, TD_SPEC, measures=IDS, statistics=False, aggregates=False)
    noisy = report.scenarios[1]
    assert noisy.measures["estimate_ci_overlap"].value < 0.9
    assert noisy.measures["r2_loss"].value > 0
    assert 0 < noisy.measures["estimate_inside_ci"].value < 1
    data = json.loads(report.to_json())
    block = data["scenarios"][1]["analyses"]
    assert set(block) == {"ci", "design", "estimates", "regressions", "scales", "summary", "conventions"}
    row = block["estimates"][0]
    assert set(row) >= {"key", "estimate", "statistic", "variable", "domain", "category", "original", "protected",
                        "difference", "relative_difference", "inside_original_ci", "ci_overlap"}
    coef = block["regressions"][0]["coefficients"][0]
    assert set(coef) >= {"name", "original", "protected", "ci_overlap", "same_sign", "same_significance"}
    # the noise made some incomes negative: the where filter and the log state it per file
    mincer = block["regressions"][0]
    assert mincer["protected"]["n_filtered_out"] > 0 and mincer["original"]["n_filtered_out"] == 0
    # measures' by_variable are per estimated variable
    assert set(noisy.measures["estimate_ci_overlap"].by_variable) <= {"income", "water", "expend", "savings", "age"}


def test_the_original_is_computed_once_for_all_scenarios(testdata, monkeypatch):
    calls = []
    real = estimates_module.estimate_file

    def counting(data, analyses, cache=None):
        calls.append(data.which)
        return real(data, analyses, cache)

    monkeypatch.setattr("infoloss.analyses.run.estimate_file", counting)
    prot = [testdata.copy(), pd.read_csv(DATA / "testdata" / "ls_k3.csv"), testdata.copy()]
    infoloss.compare(testdata, prot, TD_SPEC, measures=IDS, statistics=False, aggregates=False)
    assert calls.count("orig") == 1 and calls.count("prot") == 3


def test_without_an_analyses_section_every_measure_says_why(testdata):
    spec = {"variables": {"income": {"scale": "continuous"}}}
    report = infoloss.compare(testdata, testdata.copy(), spec, measures=IDS, statistics=False, aggregates=False)
    scenario = report.scenarios[0]
    assert set(scenario.not_computed) == set(IDS)
    assert "the spec declares no estimates" in scenario.not_computed["estimate_ci_overlap"]
    assert scenario.analyses is None and "analyses" not in scenario.to_dict()
    only_estimates = {"variables": {"income": {"scale": "continuous"}},
                      "analyses": {"estimates": [{"statistic": "mean", "variable": "income"}]}}
    report = infoloss.compare(testdata, testdata.copy(), only_estimates, measures=IDS, aggregates=False)
    assert "declares no regressions" in report.scenarios[0].not_computed["r2_loss"]
    assert report.scenarios[0].measures["estimate_ci_overlap"].value == 1.0


def test_cronbach_alpha_matches_r():
    for name, path in (("free1_alpha", "free1"), ("eia_alpha", "EIA")):
        ref = REF[name]
        df = pd.read_csv(DATA / path / "original.csv")
        items = df[ref["items"]].to_numpy(dtype=float)
        assert cronbach_alpha(items) == pytest.approx(ref["alpha"], rel=1e-10)
        for j, value in enumerate(ref["if_deleted"]):
            assert cronbach_alpha(np.delete(items, j, axis=1)) == pytest.approx(value, rel=1e-10)
    df = pd.read_csv(DATA / "free1" / "original.csv")
    ref = REF["free1_alpha"]
    weighted = cronbach_alpha(df[ref["items"]].to_numpy(float), df["WEIGHT"].to_numpy(float))
    assert weighted == pytest.approx(ref["alpha_weighted"], rel=1e-10)


def test_alpha_loss_through_the_measure():
    df = pd.read_csv(DATA / "EIA" / "original.csv")
    prot = pd.read_csv(DATA / "EIA" / "mdav5_ls_k3.csv")
    items = REF["eia_alpha"]["items"]
    spec = {"variables": {v: {"scale": "continuous"} for v in items}, "pairing": "none",
            "analyses": {"scales": [{"name": "revenue", "items": items}]}}
    result = get("alpha_loss").func(encode_pair(df, prot, spec))
    scale = result.details["scales"][0]
    assert scale["original"]["alpha"] == pytest.approx(REF["eia_alpha"]["alpha"], rel=1e-10)
    expected = abs(scale["protected"]["alpha"] - scale["original"]["alpha"]) / scale["original"]["alpha"]
    assert result.value == pytest.approx(expected)
    assert set(scale["original"]["alpha_if_deleted"]) == set(items)


def test_alpha_with_one_positive_weight_among_complete_records_is_a_note_not_a_traceback():
    # np.cov raised ZeroDivisionError ("Weights sum to zero") when every weight was 0, found by fuzzing; a file
    # whose weights are all 0 is now an input error, and one positive weight among the complete records is too few
    df = pd.DataFrame({"y": [1.0, 2.0, 3.0, np.nan], "x": [2.0, 1.0, 5.0, 3.0], "w": [1.0, 0.0, 0.0, 2.0]})
    spec = {"variables": {"y": {"scale": "continuous"}, "x": {"scale": "continuous"}, "w": {"role": "weight"}},
            "analyses": {"scales": [{"name": "s", "items": ["y", "x"]}]}}
    pair = encode_pair(df, df.copy(), spec)
    with pytest.raises(NotComputed):
        get("alpha_loss").func(pair)
    scale = infoloss.compare(df, df.copy(), spec, measures=["alpha_loss"], aggregates=False).scenarios[0]
    assert scale.analyses["scales"][0]["original"]["note"] == (
        "fewer than two records of the original file with every item have a positive weight")


def test_cli_runs_the_analyses_and_rejects_a_bad_formula(tmp_path, testdata):
    import yaml

    spec_path = tmp_path / "spec.yaml"
    spec_path.write_text(yaml.safe_dump(TD_SPEC))
    orig, prot = DATA / "testdata" / "original.csv", DATA / "testdata" / "ls_k3.csv"
    out = tmp_path / "r.json"
    runner = CliRunner()
    result = runner.invoke(app, ["compare", str(orig), str(prot), "--spec", str(spec_path), "--json", str(out),
                                 "--measures", ",".join(IDS)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["scenarios"][0]["analyses"]["estimates"]
    bad = dict(TD_SPEC, analyses=dict(TD_SPEC["analyses"], regressions=[{"name": "m", "formula": "income ~ agee"}]))
    spec_path.write_text(yaml.safe_dump(bad))
    result = runner.invoke(app, ["compare", str(orig), str(prot), "--spec", str(spec_path), "--json", str(out)])
    assert result.exit_code == 2
    assert "names 'agee', which is not a variable of the spec (did you mean 'age'?)" in result.output
    assert "Traceback" not in result.output


# ---------------------------------------------------------------------------
# properties on random files
# ---------------------------------------------------------------------------
RANDOM_SPEC = {
    "variables": {"g": {"scale": "nominal"}, "o": {"scale": "ordinal"}, "x": {"scale": "continuous"},
                  "y": {"scale": "continuous"}, "z": {"scale": "continuous"}},
    "analyses": {
        "estimates": [{"statistic": "mean", "variable": "x", "by": "g"}, {"statistic": "proportion", "variable": "g"},
                      {"statistic": "gini", "variable": "z"}, {"statistic": "qsr", "variable": "z", "by": "g"},
                      {"statistic": "arpr", "variable": "z"}, {"statistic": "median", "variable": "o"}],
        "regressions": [{"name": "lin", "formula": "y ~ x + C(g)"},
                        {"name": "logit", "family": "binomial", "formula": "I(y > 0) ~ x"}],
        "scales": [{"name": "s", "items": ["x", "y", "o"]}],
        "ci": {"replicates": 20},
    },
}


@st.composite
def frames(draw):
    n = draw(st.integers(min_value=15, max_value=40))
    rng = np.random.default_rng(draw(st.integers(min_value=0, max_value=10_000)))
    x = rng.normal(size=n)
    return pd.DataFrame({"g": rng.choice(["a", "b", "c"], n), "o": rng.integers(1, 5, n), "x": x,
                         "y": 2 * x + rng.normal(size=n), "z": rng.lognormal(size=n)})


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames(), frames())
def test_values_are_finite_and_within_range_or_not_computed(a, b):
    pair = encode_pair(a, b, dict(RANDOM_SPEC, pairing="none"))
    analyses_ids = [m.id for m in registered() if m.family == "analyses"]
    for mid in analyses_ids:
        info = get(mid)
        try:
            result = info.func(pair)
        except NotComputed as exc:
            assert str(exc)
            continue
        low, high = info.range
        assert math.isfinite(result.value)
        assert (low is None or result.value >= low) and (high is None or result.value <= high + 1e-12), mid


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames())
def test_identity_on_random_files(a):
    pair = encode_pair(a, a.copy(), RANDOM_SPEC)
    for mid in IDS:
        try:
            result = get(mid).func(pair)
        except NotComputed:
            continue
        assert result.value == get(mid).ideal, mid


def test_a_variable_removed_from_the_protected_file(testdata):
    spec = json.loads(json.dumps(TD_SPEC))
    spec["variables"]["savings"]["removed"] = True
    prot = testdata.drop(columns=["savings"])
    report = infoloss.compare(testdata, prot, spec, measures=IDS, statistics=False, aggregates=False)
    scenario = report.scenarios[0]
    rows = {r["key"]: r for r in scenario.analyses["estimates"]}
    removed = rows["median(savings) | all"]
    assert removed["protected"] is None and "removed from the protected file" in removed["note"]
    assert scenario.measures["estimate_ci_overlap"].value == 1.0  # the other estimates are unchanged


def test_the_spread_over_seeds_is_reported(testdata):
    spec = json.loads(json.dumps(TD_SPEC))
    spec["analyses"]["ci"] = {"replicates": 200, "seed": 3}
    prot = pd.read_csv(DATA / "testdata" / "recode_pram_noise50.csv")
    report = infoloss.compare(testdata, [prot, testdata.copy()], spec, measures=IDS, aggregates=False)
    noisy, same = (s.measures["estimate_ci_overlap"] for s in report.scenarios)
    spread = noisy.details["seed_spread"]
    assert spread["groups"] == 4 and spread["replicates_per_group"] == 50
    assert min(spread["mean_ci_overlap"]) < max(spread["mean_ci_overlap"])  # the seed matters a little ...
    assert max(spread["mean_ci_overlap"]) - min(spread["mean_ci_overlap"]) < 0.2  # ... not much
    assert same.details["seed_spread"]["mean_ci_overlap"] == [1.0] * 4  # identical files, whatever the seed
    assert not any(k.startswith("_") for r in noisy.details["estimates"] for k in r)


def test_alpha_of_items_near_the_float_limit_is_the_ordinary_one():
    """The covariance of items near 1e308 overflowed (a RuntimeWarning; found by fuzzing); one power of two for
    every item leaves alpha exactly as it is."""
    import warnings

    from infoloss.analyses.scales import cronbach_alpha

    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 3)) + rng.normal(size=(50, 1))
    df = pd.DataFrame(x, columns=["a", "b", "c"])
    spec = {"variables": {v: {"scale": "continuous"} for v in "abc"},
            "analyses": {"scales": [{"name": "s", "items": ["a", "b", "c"]}]}}
    alphas = []
    for factor in (1.0, 2.0**1000):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            report = infoloss.compare(df * factor, df * factor, spec, measures=["alpha_loss"], aggregates=False)
        alphas.append(report.scenarios[0].analyses["scales"][0]["original"]["alpha"])
    assert alphas[0] == alphas[1] == pytest.approx(cronbach_alpha(x))
