"""Estimates of the analyses family against R (survey 4.1.1, laeken 0.5.2), a direct textbook computation of
the linearised variance, and a brute-force bootstrap.  R's values: tests/data/reference_r (its README)."""

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from infoloss.analyses import bootstrap, indicators
from infoloss.analyses.data import FileData
from infoloss.analyses.estimates import estimate_file
from infoloss.analyses.spec import parse_analyses
from infoloss.pair import encode_pair
from infoloss.spec import spec_from_dict

DATA = Path(__file__).resolve().parent / "data"
REF = json.loads((DATA / "reference_r" / "analyses.json").read_text())


@pytest.fixture(scope="module")
def free1():
    return pd.read_csv(DATA / "free1" / "original.csv")


@pytest.fixture(scope="module")
def testdata():
    return pd.read_csv(DATA / "testdata" / "original.csv")


FREE1_VARS = {"INCOME": {"scale": "continuous"}, "MONEY": {"scale": "continuous"}, "SEX": {"scale": "nominal"},
              "MARSTAT": {"scale": "nominal"}, "WEIGHT": {"role": "weight"}}
TD_VARS = {"urbrur": {"scale": "nominal", "role": "strata"}, "ori_hid": {"role": "cluster"},
           "household_weights": {"role": "weight"}, "income": {"scale": "continuous"},
           "expend": {"scale": "continuous"}, "savings": {"scale": "continuous"}, "water": {"scale": "nominal"},
           "sex": {"scale": "nominal"}, "relat": {"scale": "nominal"}}


def rows_for(df, variables, estimates, prot=None, ci=None, which="orig", pairing="row"):
    raw = {"variables": variables, "pairing": pairing, "analyses": {"estimates": estimates, "ci": ci or {}}}
    spec = spec_from_dict(raw)
    pair = encode_pair(df, df if prot is None else prot, spec)
    out = estimate_file(FileData(pair, which), parse_analyses(spec.analyses, spec))
    return {r["key"]: r for r in out["rows"]}, out


def values(rows, prefix, field="value"):
    return [r[field] for k, r in rows.items() if k.startswith(prefix)]


# ---------------------------------------------------------------------------
# Taylor linearisation against R survey
# ---------------------------------------------------------------------------
def test_weighted_mean_total_ratio_match_survey(free1):
    rows, _ = rows_for(free1, FREE1_VARS, [
        {"statistic": "mean", "variable": "INCOME"},
        {"statistic": "total", "variable": "INCOME"},
        {"statistic": "ratio", "variable": "MONEY", "denominator": "INCOME"},
    ])
    ref = REF["free1_survey"]
    for key, name in (("mean(INCOME) | all", "mean_income"), ("total(INCOME) | all", "total_income"),
                      ("ratio(MONEY / INCOME) | all", "ratio_money_income")):
        assert rows[key]["value"] == pytest.approx(ref[name]["estimate"], rel=1e-10)
        assert rows[key]["se"] == pytest.approx(ref[name]["se"], rel=1e-9)
        z = 1.959963984540054
        assert rows[key]["lower"] == pytest.approx(ref[name]["estimate"] - z * ref[name]["se"], rel=1e-9)


def test_domains_and_proportions_match_svyby(free1):
    rows, _ = rows_for(free1, FREE1_VARS, [
        {"statistic": "mean", "variable": "INCOME", "by": "SEX"},
        {"statistic": "total", "variable": "INCOME", "by": ["SEX"]},
        {"statistic": "ratio", "variable": "MONEY", "denominator": "INCOME", "by": "SEX"},
        {"statistic": "proportion", "variable": "MARSTAT"},
    ])
    ref = REF["free1_survey"]
    for prefix, name in (("mean(INCOME) |", "mean_income_by_sex"), ("total(INCOME) |", "total_income_by_sex"),
                         ("ratio(MONEY / INCOME) |", "ratio_by_sex"), ("proportion(MARSTAT) |", "prop_marstat")):
        np.testing.assert_allclose(values(rows, prefix), ref[name]["estimate"], rtol=1e-10)
        np.testing.assert_allclose(values(rows, prefix, "se"), ref[name]["se"], rtol=1e-9)
    assert [r["domain"] for k, r in rows.items() if k.startswith("mean(")] == ["SEX=1", "SEX=2"]


def test_unweighted_and_stratified_designs(free1):
    unweighted = {k: v for k, v in FREE1_VARS.items() if k != "WEIGHT"}
    rows, out = rows_for(free1, unweighted, [{"statistic": "mean", "variable": "INCOME"}])
    assert rows["mean(INCOME) | all"]["se"] == pytest.approx(REF["free1_survey"]["mean_income_unweighted"]["se"],
                                                             rel=1e-9)
    assert out["weighted"] is False
    stratified = dict(FREE1_VARS, SEX={"scale": "nominal", "role": "strata"})
    rows, out = rows_for(free1, stratified, [{"statistic": "mean", "variable": "INCOME"}])
    assert rows["mean(INCOME) | all"]["se"] == pytest.approx(REF["free1_survey"]["mean_income_strata_sex"]["se"],
                                                             rel=1e-9)
    assert "strata" in out["design"]


def test_stratified_cluster_design_matches_survey(testdata):
    rows, out = rows_for(testdata, TD_VARS, [
        {"statistic": "mean", "variable": "income"},
        {"statistic": "total", "variable": "expend"},
        {"statistic": "ratio", "variable": "savings", "denominator": "income"},
        {"statistic": "proportion", "variable": "water"},
        {"statistic": "mean", "variable": "income", "by": "sex"},
        {"statistic": "proportion", "variable": "water", "by": "urbrur"},
    ])
    ref = REF["testdata_survey"]
    assert out["design"] == "weights, strata, clusters (PSUs)"
    for key, name in (("mean(income) | all", "mean_income"), ("total(expend) | all", "total_expend"),
                      ("ratio(savings / income) | all", "ratio_savings_income")):
        assert rows[key]["value"] == pytest.approx(ref[name]["estimate"], rel=1e-10)
        assert rows[key]["se"] == pytest.approx(ref[name]["se"], rel=1e-9)
    np.testing.assert_allclose(values(rows, "proportion(water) | all"), ref["prop_water"]["estimate"], rtol=1e-10)
    np.testing.assert_allclose(values(rows, "proportion(water) | all", "se"), ref["prop_water"]["se"], rtol=1e-9)
    np.testing.assert_allclose(values(rows, "mean(income) | sex"), ref["mean_income_by_sex"]["estimate"], rtol=1e-10)
    np.testing.assert_allclose(values(rows, "mean(income) | sex", "se"), ref["mean_income_by_sex"]["se"], rtol=1e-9)
    by = ref["prop_water_by_urbrur"]
    mine = {(r["domain"], r["category"]): r for r in rows.values() if r["key"].startswith("proportion(water) | urbrur")}
    expected = {(f"urbrur={d}", c): (e, s) for (d, c), e, s in zip(
        [(d, c) for d in by["domains"] for c in by["categories"]], by["estimate"], by["se"])}
    assert set(expected) <= set(mine)
    for key, (e, s) in expected.items():
        assert mine[key]["value"] == pytest.approx(e, rel=1e-9, abs=1e-14)
        assert mine[key]["se"] == pytest.approx(s, rel=1e-8, abs=1e-14)


def test_missing_values_are_a_domain_as_survey_na_rm(testdata):
    prot = pd.read_csv(DATA / "testdata" / "ls_k3.csv")
    rows, _ = rows_for(testdata, TD_VARS, [{"statistic": "proportion", "variable": "relat"}], prot=prot, which="prot")
    ref = REF["testdata_survey"]["ls_k3_prop_relat"]
    got = {r["category"]: r for r in rows.values()}
    assert [got[c]["value"] for c in ref["categories"]] == pytest.approx(ref["estimate"], rel=1e-10)
    assert [got[c]["se"] for c in ref["categories"]] == pytest.approx(ref["se"], rel=1e-9)


def test_single_record_domain_has_no_interval(testdata):
    rows, _ = rows_for(testdata, TD_VARS, [{"statistic": "mean", "variable": "income", "by": "relat"}])
    ref = REF["testdata_survey"]["mean_income_by_relat"]
    np.testing.assert_allclose(values(rows, "mean(income)"), ref["estimate"], rtol=1e-10)
    single = rows["mean(income) | relat=8"]
    assert single["n"] == 1 and single["se"] is None and single["lower"] is None
    assert "single record" in single["note"]


def _direct_linearised_se(y, w, domain, strata, psu):
    """The textbook formula with record-level z (pandas group sums), independent of design.py's algebra."""
    out = []
    for d in np.unique(domain):
        inside = (domain == d) & ~np.isnan(y)
        ybar = np.sum(w[inside] * y[inside]) / np.sum(w[inside])
        z = np.where(inside, w * (np.nan_to_num(y) - ybar) / np.sum(w[inside]), 0.0)
        frame = pd.DataFrame({"z": z, "h": strata, "psu": psu})
        totals = frame.groupby(["h", "psu"]).z.sum().reset_index()
        var = 0.0
        for _, g in totals.groupby("h"):
            n_h = len(g)
            if n_h > 1:
                var += n_h / (n_h - 1) * np.sum((g.z - g.z.mean()) ** 2)
        out.append(np.sqrt(var))
    return np.array(out)


def test_linearisation_equals_the_direct_formula_with_missing_values_and_lonely_strata():
    rng = np.random.default_rng(3)
    n = 600
    df = pd.DataFrame({"y": rng.gamma(2.0, 10.0, n), "w": rng.uniform(1, 5, n), "d": rng.integers(0, 4, n),
                       "h": rng.integers(0, 6, n), "c": rng.integers(0, 40, n)})
    df.loc[rng.random(n) < 0.1, "y"] = np.nan
    df.loc[df.h == 5, "c"] = 999  # stratum 5 has a single PSU: it contributes 0
    variables = {"y": {"scale": "continuous"}, "w": {"role": "weight"}, "d": {"scale": "nominal"},
                 "h": {"scale": "nominal", "role": "strata"}, "c": {"role": "cluster"}}
    rows, _ = rows_for(df, variables, [{"statistic": "mean", "variable": "y", "by": "d"}])
    psu = df.h.to_numpy() * 10_000 + df.c.to_numpy()
    expected = _direct_linearised_se(df.y.to_numpy(), df.w.to_numpy(), df.d.to_numpy(), df.h.to_numpy(), psu)
    np.testing.assert_allclose(values(rows, "mean(y)", "se"), expected, rtol=1e-10)


# ---------------------------------------------------------------------------
# laeken's indicators and the bootstrap
# ---------------------------------------------------------------------------
def test_laeken_point_estimates_exactly(free1):
    rows, _ = rows_for(free1, FREE1_VARS, [
        {"statistic": "quantile", "variable": "INCOME", "p": REF["free1_laeken"]["quantile"]["probs"]},
        {"statistic": "median", "variable": "INCOME"},
        {"statistic": "gini", "variable": "INCOME"}, {"statistic": "gini", "variable": "INCOME", "by": "SEX"},
        {"statistic": "arpr", "variable": "INCOME"}, {"statistic": "arpr", "variable": "INCOME", "by": "SEX"},
        {"statistic": "qsr", "variable": "INCOME"}, {"statistic": "qsr", "variable": "INCOME", "by": "SEX"},
    ], ci={"replicates": 20})
    ref = REF["free1_laeken"]
    got = [rows[f"quantile(INCOME, {p:g}) | all"]["value"] for p in ref["quantile"]["probs"]]
    assert got == ref["quantile"]["values"]
    assert rows["median(INCOME) | all"]["value"] == ref["median"]
    for stat in ("gini", "arpr", "qsr"):
        assert rows[f"{stat}(INCOME) | all"]["value"] == pytest.approx(ref[stat]["value"], rel=1e-12)
        for sex, value in ref[stat]["by"].items():
            assert rows[f"{stat}(INCOME) | SEX={sex}"]["value"] == pytest.approx(value, rel=1e-12)


def test_unweighted_quantiles_match_laeken(free1):
    rows, _ = rows_for(free1, {"INCOME": {"scale": "continuous"}},
                       [{"statistic": "quantile", "variable": "INCOME", "p": REF["free1_laeken"]["quantile"]["probs"]}],
                       ci={"replicates": 20})
    assert [r["value"] for r in rows.values()] == REF["free1_laeken"]["quantile_unweighted"]["values"]


@pytest.mark.parametrize("stat", ["gini", "arpr", "qsr"])
def test_bootstrap_intervals_match_laeken_within_monte_carlo_error(free1, stat):
    """2000 replicates each: the standard errors agree within 10 %, the interval ends within 0.3 SE."""
    by = [] if stat == "qsr" else ["SEX"]
    rows, _ = rows_for(free1, FREE1_VARS, [{"statistic": stat, "variable": "INCOME", "by": by}],
                       ci={"replicates": 2000, "seed": 11})
    ref = REF["free1_laeken"][stat]
    if by:
        for sex, (lo, hi) in ref["ci_by"].items():
            row = rows[f"{stat}(INCOME) | SEX={sex}"]
            ref_se = (hi - lo) / 3.92
            assert abs(row["lower"] - lo) < 0.3 * ref_se and abs(row["upper"] - hi) < 0.3 * ref_se
    else:
        row = rows[f"{stat}(INCOME) | all"]
        assert row["se"] == pytest.approx(np.sqrt(ref["var"]), rel=0.1)
        assert abs(row["lower"] - ref["ci"][0]) < 0.3 * row["se"] and abs(row["upper"] - ref["ci"][1]) < 0.3 * row["se"]


def test_median_bootstrap_matches_boot(free1):
    rows, _ = rows_for(free1, FREE1_VARS, [{"statistic": "median", "variable": "INCOME"}],
                       ci={"replicates": 2000, "seed": 4})
    ref = REF["free1_laeken"]["median_boot"]
    row = rows["median(INCOME) | all"]
    assert row["se"] == pytest.approx(np.sqrt(ref["var"]), rel=0.15)
    assert abs(row["lower"] - ref["ci"][0]) < 0.5 * row["se"] and abs(row["upper"] - ref["ci"][1]) < 0.5 * row["se"]


def test_stratified_cluster_bootstrap_matches_laeken(testdata):
    rows, _ = rows_for(testdata, TD_VARS, [{"statistic": "gini", "variable": "income"}],
                       ci={"replicates": 2000, "seed": 5})
    ref = REF["testdata_gini_cluster"]
    row = rows["gini(income) | all"]
    assert row["value"] == pytest.approx(ref["value"], rel=1e-12)
    assert row["se"] == pytest.approx(np.sqrt(ref["var"]), rel=0.1)
    assert abs(row["lower"] - ref["ci"][0]) < 0.3 * row["se"] and abs(row["upper"] - ref["ci"][1]) < 0.3 * row["se"]


@pytest.mark.parametrize("missing_domain", [True, False])
def test_vectorised_replicates_equal_brute_force(missing_domain):
    """Every replicate's statistics equal laeken's formulas on the resampled records (ties, missing values,
    records outside every domain; the whole-file median from another task or by binary search)."""
    rng = np.random.default_rng(5 if missing_domain else 6)
    n = 300
    x = np.round(rng.lognormal(10, 1, n), -2)
    x[rng.random(n) < 0.05] = np.nan
    w = rng.integers(1, 5, n).astype(float)
    dom = rng.integers(-1 if missing_domain else 0, 3, n)
    task = bootstrap.IndicatorTask(x, w, dom, 3)
    tasks = [task]
    if not task.covers_all:
        task.overall = bootstrap.IndicatorTask(x, w, np.zeros(n, dtype=np.int64), 1)
        tasks.append(task.overall)
    wanted = [("quantile", 0.1), ("quantile", 0.5), ("quantile", 1.0), ("quantile", 0.0), ("gini", None),
              ("qsr", None), ("arpr", 0.6)]
    for stat, p in wanted:
        task.want(stat, p)
    resampler = bootstrap.Resampler(n, None, None, 3)
    out = bootstrap.run(tasks, resampler, 25)[0]
    ok = ~np.isnan(x)
    for r in range(25):
        c = resampler.unit_counts(r)
        drawn = ok & (c > 0)
        median = indicators.weighted_quantile(x[drawn], (w * c)[drawn], [0.5])[0]
        for d in range(3):
            m = drawn & (dom == d)
            xx, ww = x[m], (w * c)[m]
            expected = {("quantile", 0.1): indicators.weighted_quantile(xx, ww, [0.1])[0],
                        ("quantile", 0.5): indicators.weighted_quantile(xx, ww, [0.5])[0],
                        ("quantile", 1.0): xx.max(), ("quantile", 0.0): xx.min(),
                        ("gini", None): indicators.gini(xx, ww), ("qsr", None): indicators.qsr(xx, ww),
                        ("arpr", 0.6): indicators.arpr(xx, ww, 0.6 * median)}
            for key, value in expected.items():
                assert out[key][r, d] == pytest.approx(value, rel=1e-9), (r, d, key)


@pytest.mark.parametrize("trial", range(5))
def test_replicate_quantiles_at_exact_ties_are_laekens_on_the_resampled_records(trial):
    # weights of one decimal make the cumulative share meet p exactly; a running sum of count x weight then picked
    # the value or the next one by its rounding: 9 of these 11,520 replicate quantiles differed from
    # weightedQuantile on the resampled records (found by the analyses audit)
    rng = np.random.default_rng(100 + trial)
    n, domains = 150, 4
    x = rng.integers(0, 12, n).astype(float) * (1 if trial % 2 else 1000.0)
    w = rng.choice([0.1, 0.2, 0.3, 1 / 3, 0.7], n) if trial < 3 else rng.integers(1, 4, n) * (1.0 if trial == 3 else 8.0)
    dom = rng.integers(0, domains, n)
    probs = [0.1, 0.2, 0.25, 0.3, 1 / 3, 0.5, 0.7, 0.8, 0.9]
    task = bootstrap.IndicatorTask(x, w, dom, domains)
    for p in probs:
        task.want("quantile", p)
    resampler = bootstrap.Resampler(n, None, None, 7)
    out = bootstrap.run([task], resampler, 60)[0]
    counts = resampler.chunk(0, 60)
    for r in range(60):
        for d in range(domains):
            m = (dom == d) & (counts[r] > 0)
            expected = indicators.weighted_quantile(np.repeat(x[m], counts[r][m]), np.repeat(w[m], counts[r][m]), probs)
            assert [out[("quantile", p)][r, d] for p in probs] == expected.tolist(), (r, d)


@pytest.mark.parametrize("many", [False, True])
def test_resampler_strata_clusters_and_seeds(monkeypatch, many):
    if many:  # the vectorised draw used for many strata
        monkeypatch.setattr(bootstrap, "MANY_STRATA", 0)
    strata = np.repeat([0, 1, 2], [10, 20, 30])
    psu = np.arange(60) // 2  # clusters of two records, nested in strata
    res = bootstrap.Resampler(60, strata, psu, seed=9)
    counts = res.chunk(0, 50).astype(int)
    for h, size in ((0, 5), (1, 10), (2, 15)):  # clusters drawn per stratum = clusters in it
        assert (counts[:, strata == h].sum(axis=1) == 2 * size).all()
    assert (counts[:, 0::2] == counts[:, 1::2]).all()  # a cluster is drawn whole
    again = bootstrap.Resampler(60, strata, psu, seed=9)
    np.testing.assert_array_equal(again.chunk(30, 31)[0], counts[30])  # replicate r does not depend on chunking
    assert not (bootstrap.Resampler(60, strata, psu, seed=10).chunk(0, 50) == counts).all()


def test_bootstrap_method_for_means_is_close_to_linearisation(free1):
    est = [{"statistic": "mean", "variable": "INCOME", "by": "SEX"}, {"statistic": "proportion", "variable": "MARSTAT"}]
    lin, _ = rows_for(free1, FREE1_VARS, est)
    boot, _ = rows_for(free1, FREE1_VARS, est, ci={"method": "bootstrap", "replicates": 1000, "seed": 2})
    for key in lin:
        assert boot[key]["method"] == "bootstrap" and lin[key]["method"] == "linearisation"
        assert boot[key]["value"] == pytest.approx(lin[key]["value"], rel=1e-12)
        assert boot[key]["se"] == pytest.approx(lin[key]["se"], rel=0.12)


def test_a_domain_without_records_in_the_protected_file(testdata):
    prot = testdata.copy()
    prot.loc[prot.relat == 9, "income"] = np.nan
    rows, _ = rows_for(testdata, TD_VARS, [{"statistic": "gini", "variable": "income", "by": "relat"}],
                       prot=prot, which="prot", ci={"replicates": 30})
    row = rows["gini(income) | relat=9"]
    assert row["value"] is None and row["n"] == 0 and "no record" in row["note"]


# ---------------------------------------------------------------------------
# undefined statistics: a note, never a traceback or a numpy warning (found by fuzzing)
# ---------------------------------------------------------------------------
def _income(n=40, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"g": rng.choice(list("abc"), n), "y": rng.gamma(2, 100, n), "w": rng.uniform(1, 3, n)})


INCOME_VARS = {"g": {"scale": "nominal"}, "y": {"scale": "continuous"}, "w": {"role": "weight"}}


def _compare_quietly(orig, prot, estimates, variables=INCOME_VARS):
    import infoloss

    spec = {"variables": variables, "analyses": {"estimates": estimates}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = infoloss.compare(orig, prot, spec, measures=["estimate_ci_overlap", "estimate_inside_ci"],
                                  statistics=False, aggregates=False)
    scenario = report.scenarios[0]
    return scenario, {r["key"]: r for r in scenario.analyses["estimates"]}


def test_gini_and_qsr_of_a_zero_total_are_undefined_with_a_note():
    # gini(): ZeroDivisionError in the point estimate; qsr(): the same for a bottom quintile of zeros
    df = _income()
    zero = df.assign(y=0.0)
    scenario, rows = _compare_quietly(zero, zero.copy(), [{"statistic": "gini", "variable": "y"}])
    assert rows["gini(y) | all"]["original"]["value"] is None and rows["gini(y) | all"]["original"]["lower"] is None
    gini_note = "the total of y in this domain is 0, so the Gini coefficient is undefined"
    assert f"original: {gini_note}" in rows["gini(y) | all"]["note"]
    assert gini_note in scenario.not_computed["estimate_ci_overlap"]
    scenario, rows = _compare_quietly(df, zero, [{"statistic": "qsr", "variable": "y"}])
    assert rows["qsr(y) | all"]["protected"]["value"] is None and rows["qsr(y) | all"]["original"]["value"] > 1
    assert rows["qsr(y) | all"]["note"] == ("protected: the total of y in the bottom 20 % of this domain is 0, so "
                                            "the quintile share ratio is undefined")
    assert "quintile share ratio is undefined" in scenario.not_computed["estimate_inside_ci"]


def test_a_domain_where_every_value_is_zero_leaves_the_others():
    df = _income()
    df.loc[df.g == "a", "y"] = 0.0
    scenario, rows = _compare_quietly(df, df.assign(y=df.y * 1.01), [{"statistic": "gini", "variable": "y", "by": "g"}])
    assert rows["gini(y) | g=a"]["ci_overlap"] is None and "Gini coefficient is undefined" in rows["gini(y) | g=a"]["note"]
    assert rows["gini(y) | g=b"]["ci_overlap"] == pytest.approx(1.0)
    assert scenario.measures["estimate_ci_overlap"].details["n_compared"] == 2


@pytest.mark.parametrize("zeros, interval", [(10, False), (6, True)])
def test_replicates_with_an_undefined_qsr_are_counted(zeros, interval):
    """A replicate whose bottom quintile sums to 0 has no QSR: left out with a note when they are at most the
    interval's tail share, else no interval (an undefined QSR is an infinite one)."""
    df = _income(60, seed=3).assign(g="a")
    df.loc[: zeros - 1, "y"] = 0.0
    rows, _ = rows_for(df, INCOME_VARS, [{"statistic": "qsr", "variable": "y"}], ci={"replicates": 200})
    row = rows["qsr(y) | all"]
    task = bootstrap.IndicatorTask(df.y.to_numpy(), df.w.to_numpy(), np.zeros(60, dtype=np.int64), 1)
    task.want("qsr")
    reps = bootstrap.run([task], bootstrap.Resampler(60, None, None, 1), 200)[0][("qsr", None)]
    undefined = int(task.undefined[("qsr", None)][0])
    assert undefined == int(np.isnan(reps).sum()) and undefined > 0 and row["value"] is not None
    assert f"{undefined} of 200 bootstrap replicates had a total of y of 0 in the bottom 20 %" in row["note"]
    assert (row["lower"] is not None) == interval == (undefined <= 5)


def test_arpr_without_an_observed_value_has_the_usual_note():
    # IndexError in the whole file's median (the poverty threshold), found by fuzzing
    df = _income()
    scenario, rows = _compare_quietly(df, df.assign(y=np.nan), [{"statistic": "arpr", "variable": "y"},
                                                               {"statistic": "arpr", "variable": "y", "by": "g"}])
    for key in ("arpr(y) | all", "arpr(y) | g=a"):
        assert rows[key]["protected"]["value"] is None
        assert rows[key]["note"] == "protected: no record of this domain has the variable observed"
    assert "no record of this domain" in scenario.not_computed["estimate_ci_overlap"]


def _estimate_rows(df, estimates):
    spec = spec_from_dict({"variables": {"g": {"scale": "nominal"}, "y": {"scale": "continuous"},
                                         "z": {"scale": "continuous"}, "w": {"role": "weight"}},
                           "analyses": {"estimates": estimates, "ci": {"replicates": 100}}})
    pair = encode_pair(df, df.copy(), spec)
    return estimate_file(FileData(pair, "orig"), parse_analyses(spec.analyses, spec))["rows"]


def test_estimates_of_values_near_the_float_limit_are_the_ordinary_ones_scaled():
    """Values near 1e308 overflowed in the variances and replicate sums (RuntimeWarnings, silent nulls; found by
    fuzzing).  They are estimated on values scaled by a power of two: exact, so values times 2**1000 give every
    mean, total, ratio, quantile, se and bound times 2**1000 to the bit, and the same Gini, QSR and ARPR."""
    rng = np.random.default_rng(4)
    n = 60
    df = pd.DataFrame({"g": rng.choice(list("ab"), n), "y": rng.gamma(2, 100, n), "z": rng.gamma(2, 50, n),
                       "w": rng.uniform(1, 3, n)})
    estimates = [{"statistic": s, "variable": "y"} for s in ("mean", "total", "median", "gini", "qsr", "arpr")]
    estimates += [{"statistic": "ratio", "variable": "y", "denominator": "z"},
                  {"statistic": "mean", "variable": "y", "by": "g"}, {"statistic": "quantile", "variable": "y", "p": 0.9}]
    plain = _estimate_rows(df, estimates)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        huge = _estimate_rows(df.assign(y=np.ldexp(df.y, 1000)), estimates)
    assert max(df.y) * 2.0**1000 > 1e300
    for p, h in zip(plain, huge):
        factor = 1.0 if p["statistic"] in ("gini", "qsr", "arpr") else 2.0**1000
        for key in ("value", "se", "lower", "upper"):
            assert p[key] is not None and h[key] == p[key] * factor, (p["key"], key)


def test_an_estimate_beyond_the_float_range_says_so():
    df = pd.DataFrame({"g": ["a", "b"] * 10, "y": np.full(20, 1e307), "z": 1.0, "w": 1.0})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rows = _estimate_rows(df, [{"statistic": "total", "variable": "y"}, {"statistic": "mean", "variable": "y"}])
    assert rows[0]["value"] is None and rows[0]["note"].startswith(
        "the total of y is beyond the largest floating-point number (1.8e308)")
    assert rows[1]["value"] == 1e307


def test_a_small_real_standard_error_is_not_taken_for_a_constant():
    # values near 1e6 with a spread of 0.01: SE/mean 2e-10, which the rounding rule of a constant (then 1e-7) zeroed
    import infoloss
    from statsmodels.stats.weightstats import DescrStatsW

    rng = np.random.default_rng(0)
    x = 1e6 + rng.normal(0, 0.01, 2000)
    spec = {"variables": {"x": {"scale": "continuous"}},
            "analyses": {"estimates": [{"statistic": "mean", "variable": "x"}]}}
    row = infoloss.compare(pd.DataFrame({"x": x}), pd.DataFrame({"x": x}), spec,
                           measures=["estimate_ci_overlap"]).to_dict()["scenarios"][0]["analyses"]["estimates"][0]
    assert row["original"]["se"] == pytest.approx(DescrStatsW(x).std_mean, rel=1e-8)  # s / sqrt(n)
    assert not row.get("note")
    constant = pd.DataFrame({"x": np.full(2000, 1e6 + 0.1)})
    row = infoloss.compare(constant, constant, spec,
                           measures=["estimate_ci_overlap"]).to_dict()["scenarios"][0]["analyses"]["estimates"][0]
    assert row["original"]["se"] == 0 and "does not vary" in row["note"]


def test_a_proportion_of_a_category_the_variable_lacks_is_an_input_error():
    # categories: [zz] gave no row at all and "no estimate has an interval in both files"
    import infoloss
    from infoloss.errors import InputError

    o = pd.DataFrame({"sex": ["m", "f"] * 20, "x": np.arange(40.0)})
    spec = {"variables": {"sex": {"scale": "nominal"}, "x": {"scale": "continuous"}},
            "analyses": {"estimates": [{"statistic": "proportion", "variable": "sex", "categories": ["zz"]}]}}
    with pytest.raises(InputError, match="asks for the category 'zz', which 'sex' does not have in either file"):
        infoloss.compare(o, o.copy(), spec, measures=["estimate_ci_overlap"])


def test_an_estimate_with_a_row_per_record_is_not_computed_and_says_why():
    # a proportion over an id-like code and a mean by it: 12,000 rows each, more than MAX_ROWS (10,000); the JSON of
    # a 100,000-category proportion took 1.9 GB to write
    import infoloss
    from infoloss.analyses.estimates import MAX_ROWS

    n = 12_000
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"code": [f"c{i}" for i in range(n)], "y": rng.normal(size=n), "g": rng.choice(list("abc"), n)})
    spec = {"variables": {"code": {"scale": "nominal"}, "y": {"scale": "continuous"}, "g": {"scale": "nominal"}},
            "analyses": {"estimates": [{"statistic": "proportion", "variable": "code"},
                                       {"statistic": "mean", "variable": "y", "by": ["code"]},
                                       {"statistic": "median", "variable": "y", "by": ["g"]}]}}
    report = infoloss.compare(df, df.copy(), spec, measures=["estimate_ci_overlap"])
    block = report.to_dict()["scenarios"][0]["analyses"]
    assert MAX_ROWS == 10_000 and [r["domain"] for r in block["estimates"]] == ["g=a", "g=b", "g=c"]
    assert block["not_computed"] == {
        "proportion(code)": "in the original file, it would have 12,000 rows (12,000 categories), more than 10,000; "
                            "estimate by a coarser variable (a recode), list the categories to estimate "
                            "('categories:'), or use fewer 'by' variables",
        "mean(y)": "in the original file, it would have 12,000 rows (12,000 domains), more than 10,000; estimate by "
                   "a coarser variable (a recode), list the categories to estimate ('categories:'), or use fewer "
                   "'by' variables"}
    assert "Estimates not computed" in report.to_html()
    listed = {"statistic": "proportion", "variable": "code", "categories": ["c1", "c2"]}
    spec["analyses"]["estimates"] = [listed]
    rows = infoloss.compare(df, df.copy(), spec, measures=["estimate_ci_overlap"]).to_dict()
    assert [r["category"] for r in rows["scenarios"][0]["analyses"]["estimates"]] == ["c1", "c2"]
