"""Distribution measures: ks, ecdf_max, ecdf_mean.

Every asserted number is independent of infoloss: scipy's ks_2samp, a
brute-force O(N^2) multivariate ECDF written here, or a bound derived in the
test from sampling theory.
"""

import itertools
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from infoloss.errors import InputError, NotComputed
from infoloss.measures.distributions import ecdf_max, ecdf_mean, ks, ks_2samp_fast

DATA = Path(__file__).resolve().parent / "data"
TESTDATA = DATA / "testdata"
XY = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}}, "pairing": "none"}


# ---------------------------------------------------------------------------
# ks
# ---------------------------------------------------------------------------
def test_ks_equals_scipy_per_variable_on_small_files_with_missing_values():
    rng = np.random.default_rng(1)
    orig = pd.DataFrame({"x": rng.normal(size=40), "y": np.round(rng.gamma(2.0, 1.0, 40), 1)})
    prot = pd.DataFrame({"x": rng.normal(0.5, 1.0, 25), "y": np.round(rng.gamma(2.0, 1.2, 25), 1)})
    orig.loc[[3, 7], "x"] = np.nan
    prot.loc[0, "y"] = np.nan
    r = ks(orig, prot, XY)
    for name in ("x", "y"):
        a, b = orig[name].dropna().to_numpy(), prot[name].dropna().to_numpy()
        expected = stats.ks_2samp(a, b)
        assert r.by_variable[name] == pytest.approx(expected.statistic, abs=1e-15), name
        assert r.details["pvalue"][name] == pytest.approx(expected.pvalue, rel=1e-12), name
        assert r.details["method"][name] == "exact"
    assert r.details["n_orig"] == {"x": 38, "y": 40} and r.details["n_prot"] == {"x": 25, "y": 24}
    assert r.value == pytest.approx((r.by_variable["x"] + r.by_variable["y"]) / 2)
    assert r.details["max"] == max(r.by_variable.values())


def test_ks_equals_scipy_on_files_of_more_than_ten_thousand_values():
    rng = np.random.default_rng(2)
    # ties (rounded values) and unequal sizes; n1 n2 / (n1 + n2) = 6,667: scipy's asymptotic p
    orig = pd.DataFrame({"x": np.round(rng.normal(size=12_000), 2), "y": rng.normal(size=12_000)})
    prot = pd.DataFrame({"x": np.round(rng.normal(0.02, 1.0, 15_000), 2), "y": rng.normal(size=15_000)})
    r = ks(orig, prot, XY)
    for name in ("x", "y"):
        expected = stats.ks_2samp(orig[name].to_numpy(), prot[name].to_numpy())
        assert r.by_variable[name] == pytest.approx(expected.statistic, abs=1e-15), name
        assert r.details["pvalue"][name] == pytest.approx(expected.pvalue, rel=1e-9), name
        assert r.details["method"][name] == "asymp"


@pytest.mark.parametrize("weights", [None, "equal"])
def test_ks_of_large_and_small_variables_together_equals_scipy_per_variable(weights):
    # the large variables' merges run on two threads, the small one (mostly missing: scipy's exact test,
    # which may warn) on the calling thread; equal weights within each file give the unweighted test
    rng = np.random.default_rng(4)
    n1, n2 = 12_000, 13_000
    orig = pd.DataFrame({"a": np.round(rng.normal(size=n1), 2), "b": rng.gamma(2.0, 1.0, n1),
                         "c": rng.normal(size=n1), "d": rng.normal(size=n1)})
    prot = pd.DataFrame({"a": np.round(rng.normal(0.03, 1.0, n2), 2), "b": rng.gamma(2.0, 1.1, n2),
                         "c": rng.normal(size=n2), "d": rng.normal(0.1, 1.0, n2)})
    orig.loc[300:, "c"] = np.nan  # 300 and 400 values: a small sample
    prot.loc[400:, "c"] = np.nan
    spec = {"variables": {name: {"scale": "continuous"} for name in "abcd"}, "pairing": "none"}
    if weights:
        orig["w"], prot["w"] = 2.0, 3.0
        spec["variables"]["w"] = {"scale": "continuous", "role": "weight"}
    filters = list(warnings.filters)
    r = ks(orig, prot, spec)
    assert warnings.filters == filters
    for name in "abcd":
        expected = stats.ks_2samp(orig[name].dropna().to_numpy(), prot[name].dropna().to_numpy())
        assert r.by_variable[name] == pytest.approx(expected.statistic, abs=1e-15), name
        assert r.details["pvalue"][name] == pytest.approx(expected.pvalue, rel=1e-9), name
    assert r.details["method"]["c"] == "exact" and r.details["method"]["a"] == "asymp"
    assert list(r.by_variable) == list("abcd")


def test_ks_small_p_values_of_large_files_within_the_documented_tolerance():
    # n1 n2 / (n1 + n2) = 25,000 > 20,000 and a small p: the limiting Kolmogorov distribution,
    # documented within 2 % of scipy's value for p-values down to 1e-10
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=50_000), rng.normal(0.04, 1.0, 50_000)
    d, p, method = ks_2samp_fast(a, b)
    expected = stats.ks_2samp(a, b)
    assert d == pytest.approx(expected.statistic, abs=1e-15)
    assert method == "asymp-limit" and 1e-10 < expected.pvalue < 0.025
    assert p == pytest.approx(expected.pvalue, rel=0.02)
    assert ks_2samp_fast(a, b, pvalue="scipy")[1] == pytest.approx(expected.pvalue, rel=1e-9)


def test_ks_errors():
    orig = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [1.0, 2.0, 3.0]})
    with pytest.raises(InputError, match="protected file has no records"):
        ks(orig, orig.iloc[:0], XY)
    only_nominal = {"variables": {"g": {"scale": "nominal"}}, "pairing": "none"}
    with pytest.raises(NotComputed, match="no continuous"):
        ks(pd.DataFrame({"g": ["a", "b"]}), pd.DataFrame({"g": ["a"]}), only_nominal)
    # a variable suppressed in every protected record is left out with the reason
    r = ks(orig, orig.assign(y=np.nan), XY)
    assert list(r.by_variable) == ["x"] and "protected" in r.details["not_computed"]["y"]


# ---------------------------------------------------------------------------
# ecdf_max / ecdf_mean against a brute-force multivariate ECDF
# ---------------------------------------------------------------------------
MIXED = {
    "variables": {
        "a": {"scale": "continuous"},
        "o": {"scale": "ordinal", "order": ["low", "mid", "high"]},
        "g": {"scale": "nominal"},
        "b": {"scale": "continuous"},
    },
    "pairing": "none",
}
ORDER = {"low": 0.0, "mid": 1.0, "high": 2.0}


def mixed_files():
    orig = pd.DataFrame(
        {
            "a": [1.0, 2.0, np.nan, 4.0, 2.0, 3.0],
            "o": ["low", "high", "mid", "mid", "low", "high"],
            "g": ["x", "y", "x", "y", "x", "y"],
            "b": [0.5, 0.1, 0.3, 0.9, 0.2, 0.4],
        }
    )
    prot = pd.DataFrame(
        {
            "a": [1.5, 2.0, 3.5, 1.0],
            "o": ["mid", None, "high", "low"],
            "g": ["y", "y", "x", "x"],
            "b": [0.5, 0.3, 0.8, 0.2],
        }
    )
    return orig, prot


def brute_force(orig: pd.DataFrame, prot: pd.DataFrame, missing: str) -> np.ndarray:
    """F_O(z) - F_M(z) at every record z of the merged file, by the definition.

    Variables a, o (by its order), b; nominal g left out.  "largest": a missing value is above
    every value (NaN -> +inf, so it is <= only another missing value); "complete": records
    with a missing value are dropped.
    """

    def matrix(df):
        m = np.column_stack([df["a"], df["o"].map(ORDER).astype(float), df["b"]])
        if missing == "complete":
            return m[~np.isnan(m).any(axis=1)]
        return np.where(np.isnan(m), np.inf, m)

    xo, xm = matrix(orig), matrix(prot)
    points = np.vstack([xo, xm])
    diffs = []
    for z in points:
        f_o = sum(all(x[j] <= z[j] for j in range(3)) for x in xo) / len(xo)
        f_m = sum(all(x[j] <= z[j] for j in range(3)) for x in xm) / len(xm)
        diffs.append(f_o - f_m)
    return np.array(diffs)


@pytest.mark.parametrize("missing", ["largest", "complete"])
def test_ecdf_measures_equal_a_brute_force_computation(missing):
    orig, prot = mixed_files()
    diffs = brute_force(orig, prot, missing)
    r_max = ecdf_max(orig, prot, MIXED, missing=missing)
    r_mean = ecdf_mean(orig, prot, MIXED, missing=missing)
    assert r_max.value == pytest.approx(np.abs(diffs).max(), abs=1e-15)
    assert r_mean.value == pytest.approx(np.mean(diffs**2), abs=1e-15)
    assert r_max.details["mean_squared"] == pytest.approx(r_mean.value)
    assert r_mean.details["max"] == pytest.approx(r_max.value)
    assert r_max.details["variables"] == ["a", "o", "b"] and "g" in r_max.details["left_out"]
    assert r_max.details["sample"] is None
    n = 10 if missing == "largest" else 8  # complete: orig row 2 (a) and prot row 1 (o) dropped
    assert len(diffs) == n


def test_ecdf_by_hand_on_two_records():
    # one original record (1, 1) and one protected (2, 2): at z = (1, 1) F_O = 1, F_M = 0;
    # at z = (2, 2) both are 1.  U_m = 1, U_s = (1 + 0)/2
    orig, prot = pd.DataFrame({"x": [1.0], "y": [1.0]}), pd.DataFrame({"x": [2.0], "y": [2.0]})
    assert ecdf_max(orig, prot, XY).value == 1.0
    assert ecdf_mean(orig, prot, XY).value == 0.5
    # a suppressed value ("largest"): the protected record (missing, 1) is below z only where
    # z's x is missing too: at (1, 1): F_O = 1, F_M = 0; at (missing, 1): both 1
    prot = pd.DataFrame({"x": [np.nan], "y": [1.0]})
    assert ecdf_mean(orig, prot, XY).value == 0.5


def test_ecdf_subsamples_large_files_and_rejects_empty_ones():
    rng = np.random.default_rng(4)
    orig = pd.DataFrame({"x": rng.normal(size=300), "y": rng.normal(size=300)})
    prot = pd.DataFrame({"x": rng.normal(size=200), "y": rng.normal(size=200)})
    r = ecdf_max(orig, prot, XY, max_records=100)
    assert r.details["sample"]["orig"] == 100 and r.details["sample"]["prot"] == 100
    assert r.value == ecdf_max(orig, prot, XY, max_records=100).value  # seeded
    with pytest.raises(InputError, match="protected file has no records"):
        ecdf_max(orig, orig.iloc[:0], XY)
    with pytest.raises(NotComputed, match="no continuous or ordinal"):
        ecdf_mean(pd.DataFrame({"g": ["a"]}), pd.DataFrame({"g": ["b"]}),
                  {"variables": {"g": {"scale": "nominal"}}, "pairing": "none"})


# ---------------------------------------------------------------------------
# unpaired: a 50 % subsample of testdata
# ---------------------------------------------------------------------------
def test_a_half_subsample_loses_little(testdata_half_subsample):
    pair, orig, sub = testdata_half_subsample
    n = len(orig)
    # KS of a half subsample S against O: F_S - F_O = (F_S - F_R)/2 with R the other half, and
    # sqrt(n/4) D(S, R) is about Kolmogorov-distributed, so D(S, O) < K_0.999 / sqrt(n)
    # (ties only make D smaller)
    k999 = stats.kstwobign.isf(0.001)
    r = ks(pair)
    assert set(r.by_variable) == {"expend", "income", "savings"}
    for name, d in r.by_variable.items():
        assert d < k999 / math.sqrt(n), name
    # ECDF measures on subsamples of 2,000 per file: below the one-dimensional 99.9 % KS bound
    # for two independent samples of 2,000 (the files overlap, which shrinks differences), and
    # U_s below its worst-case expectation for independent samples, F(1-F)(2/2000) <= 1/4000
    m = ecdf_max(pair)
    assert m.details["sample"]["orig"] == 2000
    assert m.value < k999 * math.sqrt(2 / 2000)
    assert ecdf_mean(pair).value < 0.25 * 2 / 2000
    assert m.details["variables"] == ["age", "expend", "income", "savings"]


def test_brute_force_helper_agrees_with_itertools_counting():
    # a check of the test's own brute force on a 2-D example worked by hand in ecdf_mean's doctest
    orig = pd.DataFrame({"a": [1.0, 2.0, 3.0], "o": ["low"] * 3, "b": [2.0, 1.0, 3.0]})
    prot = pd.DataFrame({"a": [1.0, 3.0], "o": ["low"] * 2, "b": [1.0, 2.0]})
    diffs = brute_force(orig, prot, "largest")
    assert np.mean(diffs**2) == pytest.approx(1 / 12)
    assert list(itertools.islice(np.round(diffs, 6), 2)) == [round(-1 / 6, 6), round(-1 / 6, 6)]


@pytest.mark.parametrize("equal", [True, False])
def test_the_pvalue_option_reaches_the_weighted_ks(equal):
    from scipy import stats

    rng = np.random.default_rng(4)
    n = 45_000  # effective sizes beyond 20,000 and a p-value below 0.025: 'auto' takes the limit law
    x, y = rng.normal(size=n), rng.normal(0.03, 1, n)
    w1, w2 = (np.full(n, 2.0), np.full(n, 2.0)) if equal else (rng.uniform(1, 3, n), rng.uniform(1, 3, n))
    spec = {"variables": {"v": {"scale": "continuous"}, "w": {"role": "weight"}}, "pairing": "none"}
    orig, prot = pd.DataFrame({"v": x, "w": w1}), pd.DataFrame({"v": y, "w": w2})
    auto = ks(orig, prot, spec).details
    exact = ks(orig, prot, spec, pvalue="scipy")
    if equal:  # equal weights: the unweighted test, scipy's p-value with pvalue='scipy'
        want, method = stats.ks_2samp(x, y).pvalue, "asymp"
    else:
        e1, e2 = w1.sum() ** 2 / (w1 ** 2).sum(), w2.sum() ** 2 / (w2 ** 2).sum()
        want, method = stats.kstwo.sf(exact.by_variable["v"], np.round(e1 * e2 / (e1 + e2))), "asymp-effective-n"
    assert exact.details["method"]["v"] == method
    assert exact.details["pvalue"]["v"] == pytest.approx(want, rel=1e-10)
    assert auto["method"]["v"] == ("asymp-limit" if equal else "asymp-limit-effective-n")
    assert 0 < auto["pvalue"]["v"] / want - 1 < 0.02


def test_a_sampled_ecdf_measure_is_the_mean_over_seeds_with_its_spread():
    # a file beyond max_records is sampled: the value depended on the seed, with no spread shown
    rng = np.random.default_rng(3)
    orig = pd.DataFrame({"x": rng.normal(size=600), "y": rng.normal(size=600)})
    prot = pd.DataFrame({"x": rng.normal(0.2, 1, 500), "y": rng.normal(size=500)})
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}}, "pairing": "none"}
    whole = ecdf_max(orig, prot, spec)
    assert whole.details["depends_on_seed"] is False and "seeds" not in whole.details
    for measure, other in ((ecdf_max, "mean_squared"), (ecdf_mean, "max")):
        one = [measure(orig, prot, spec, max_records=100, seed=s, seeds=1) for s in range(4)]
        values = [r.value for r in one]
        assert len(set(values)) > 1  # the samples differ
        r = measure(orig, prot, spec, max_records=100, seeds=4)
        assert r.details["depends_on_seed"] is True and r.details["seeds"]["values"] == values
        assert r.value == pytest.approx(np.mean(values), rel=1e-15)
        assert r.details[other] == pytest.approx(np.mean([x.details[other] for x in one]), rel=1e-15)
        assert r.details["sample"] == one[0].details["sample"]  # the first seed's
