"""Propensity and cluster measures: pmse, pmse_ratio, pmse_std, cluster_utility.

Every asserted number is worked out here independently: pMSEs from a
statsmodels Logit fitted to a design matrix built in the test, separable
pairs from c(1 - c), null expectations by simulation against the formulas,
cluster utilities by hand.
"""

import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from infoloss.errors import InputError, NotComputed
from infoloss.measures.propensity import cluster_utility, pmse, pmse_ratio, pmse_std
from infoloss.pair import encode_pair

DATA = Path(__file__).resolve().parent / "data"
TESTDATA = DATA / "testdata"
X1 = {"variables": {"x": {"scale": "continuous"}}, "pairing": "none"}
G1 = {"variables": {"g": {"scale": "nominal"}}, "pairing": "none"}
MIXED = {
    "variables": {
        "x": {"scale": "continuous"},
        "y": {"scale": "continuous"},
        "g": {"scale": "nominal"},
        "o": {"scale": "ordinal", "order": ["low", "mid", "high"]},
    },
    "pairing": "none",
}


def design(merged: pd.DataFrame, spec: dict) -> pd.DataFrame:
    """The documented logit design, built independently: intercept; continuous standardised
    (ddof 0) on the merged file, missing -> 0 plus an indicator; categorical one-hot with missing
    as a category and the most frequent category (first in sorted order on ties) left out."""
    X = pd.DataFrame({"const": np.ones(len(merged))}, index=merged.index)
    indicators = {}
    for name, var in spec["variables"].items():
        col = merged[name]
        if var["scale"] == "continuous":
            z = (col - col.mean()) / col.std(ddof=0)
            X[name] = z.fillna(0.0)
            if col.isna().any():
                indicators[f"{name}_missing"] = col.isna().astype(float)
        else:
            cat = col.astype(object).where(col.notna(), "<missing>").astype(str)
            counts = cat.value_counts()
            ref = sorted(counts[counts == counts.max()].index)[0]
            for level in sorted(counts.index):
                if level != ref:
                    X[f"{name}={level}"] = (cat == level).astype(float)
    for key, value in indicators.items():
        X[key] = value
    return X


def statsmodels_pmse(orig: pd.DataFrame, prot: pd.DataFrame, spec: dict) -> tuple[float, int]:
    merged = pd.concat([orig, prot], ignore_index=True)
    label = np.r_[np.zeros(len(orig)), np.ones(len(prot))]
    X = design(merged, spec)
    fit = sm.Logit(label, X).fit(disp=0, method="newton", tol=1e-12, maxiter=100)
    c = len(prot) / len(merged)
    return float(np.mean((fit.predict(X) - c) ** 2)), X.shape[1]


def mixed(rng: np.random.Generator, n: int, shift: float = 0.0) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "x": rng.normal(shift, 1.0, n),
            "y": rng.gamma(2.0, 1.0 + shift, n),
            "g": rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2]),
            "o": rng.choice(["low", "mid", "high"], n, p=[0.3, 0.4, 0.3]),
        }
    )


# ---------------------------------------------------------------------------
# pMSE against an independent logit fit
# ---------------------------------------------------------------------------
def test_pmse_equals_a_statsmodels_logit_on_the_documented_design():
    rng = np.random.default_rng(3)
    orig, prot = mixed(rng, 60), mixed(rng, 40, shift=0.4)
    # missing values in both files: a continuous one (indicator column) and a category
    orig.loc[3, "x"] = np.nan
    prot.loc[5, "x"] = np.nan
    orig.loc[9, "g"] = None
    prot.loc[7, "g"] = None
    expected, columns = statsmodels_pmse(orig, prot, MIXED)
    r = pmse(orig, prot, MIXED)
    assert r.value == pytest.approx(expected, rel=1e-6)
    # intercept, x, y, x_missing, g: b, c, <missing> (a is the reference), o: low, high (mid is)
    assert columns == 9 and r.details["k"] == 9
    assert r.details["reference_categories"] == {"g": "a", "o": "mid"}
    c, n = 40 / 100, 100
    assert r.details["c"] == pytest.approx(c) and r.details["N"] == n
    assert r.details["e0"] == pytest.approx(8 * (1 - c) ** 2 * c / n)
    assert r.details["sd0"] == pytest.approx(math.sqrt(16) * (1 - c) ** 2 * c / n)
    assert r.details["e0_independent"] == pytest.approx(8 * c * (1 - c) / n)
    assert r.details["model_id"] == "logit" and "logistic" in r.details["model"]
    assert r.details["sampled"] is False and r.details["sample"] is None
    assert "not used" in r.details["weights"]
    assert r.details["separated"] == 0 and r.details["converged"] is True
    # the ratio and the standardised value come from the same fit
    assert pmse_ratio(orig, prot, MIXED).value == pytest.approx(expected / (8 * (1 - c) ** 2 * c / n), rel=1e-6)
    z = (expected - 8 * (1 - c) ** 2 * c / n) / (math.sqrt(16) * (1 - c) ** 2 * c / n)
    assert pmse_std(orig, prot, MIXED).value == pytest.approx(z, rel=1e-5)


def test_one_fit_is_shared_by_the_three_pmse_measures():
    rng = np.random.default_rng(4)
    pair = encode_pair(mixed(rng, 50), mixed(rng, 50, 0.3), MIXED)
    a = pmse(pair)
    keys = [k for k in pair.cache if k[0] == "propensity" and k[1] == "logit"]
    assert len(keys) == 1
    b = pmse_ratio(pair)
    assert [k for k in pair.cache if k[0] == "propensity" and k[1] == "logit"] == keys
    assert b.details["pmse"] == a.value


def test_aliased_columns_are_dropped_and_not_counted_in_k():
    # region determines urban (nested variables): urban's dummy is a sum of region dummies
    rng = np.random.default_rng(5)
    spec = {"variables": {"region": {"scale": "nominal"}, "urban": {"scale": "nominal"},
                          "x": {"scale": "continuous"}}, "pairing": "none"}

    def draw(n, p):
        region = rng.choice(["r1", "r2", "r3", "r4"], n, p=p)
        urban = np.where(np.isin(region, ["r1", "r2"]), "u", "v")
        return pd.DataFrame({"region": region, "urban": urban, "x": rng.normal(size=n)})

    orig, prot = draw(80, [0.4, 0.2, 0.2, 0.2]), draw(60, [0.3, 0.3, 0.2, 0.2])
    merged = pd.concat([orig, prot], ignore_index=True)
    X = design(merged, spec)
    assert np.linalg.matrix_rank(X.to_numpy()) == X.shape[1] - 1  # one aliased column
    r = pmse(orig, prot, spec)
    assert r.details["k"] == X.shape[1] - 1 == 5
    assert len(r.details["aliased"]) == 1
    # the fit on the full-rank design (urban's dummy dropped) gives the same propensities
    label = np.r_[np.zeros(80), np.ones(60)]
    Xr = X.drop(columns=[col for col in X.columns if col.startswith("urban=")])
    fit = sm.Logit(label, Xr).fit(disp=0, method="newton", tol=1e-12)
    assert r.value == pytest.approx(np.mean((fit.predict(Xr) - 60 / 140) ** 2), rel=1e-6)


# ---------------------------------------------------------------------------
# separation
# ---------------------------------------------------------------------------
def test_a_perfectly_separable_pair_gives_c_times_one_minus_c():
    # unequal sizes: c = n_prot / N = 2/6 = 1/3, so pMSE = (1/3)(2/3) = 2/9
    orig = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    prot = pd.DataFrame({"x": [10.0, 11.0]})
    r = pmse(orig, prot, X1)
    assert r.value == pytest.approx(2 / 9, abs=1e-12)
    assert r.details["separation"] == "complete" and r.details["max_pmse"] == pytest.approx(2 / 9)
    # separated by categories that occur in one file only (no finite MLE either)
    r = pmse(pd.DataFrame({"g": ["a", "b", "a", "b"]}), pd.DataFrame({"g": ["c", "d"]}), G1)
    assert r.value == pytest.approx(2 / 9, abs=1e-12)
    assert r.details["separated"] == 6
    # the ratio then is c(1-c)/E0 with k = 4 (intercept + 3 dummies), N = 6
    e0 = 3 * (2 / 3) ** 2 * (1 / 3) / 6
    assert pmse_ratio(pd.DataFrame({"g": ["a", "b", "a", "b"]}), pd.DataFrame({"g": ["c", "d"]}), G1).value == (
        pytest.approx((2 / 9) / e0)
    )


def test_remaining_records_of_weight_zero_leave_the_weighted_fit_separated():
    # every record of positive weight is in a category of one file only; the others (category b, in both
    # files) all have weight 0, so they add nothing to the weighted likelihood: scikit-learn refused the
    # fit ("Sample weights must contain at least one non-zero number", found by fuzzing); the weighted
    # pMSE is that of the records that count, completely separated, as without the zero-weight records
    spec = {"variables": {"g": {"scale": "nominal"}, "x": {"scale": "continuous"}, "w": {"role": "weight"}},
            "pairing": "none"}
    orig = pd.DataFrame({"g": ["a"] * 10 + ["b"] * 10, "x": np.arange(20.0), "w": [1.0] * 10 + [0.0] * 10})
    prot = pd.DataFrame({"g": ["c"] * 10 + ["b"] * 10, "x": np.arange(20.0) + 0.5, "w": [1.0] * 10 + [0.0] * 10})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = pmse(orig, prot, spec)
        alone = pmse(orig.iloc[:10], prot.iloc[:10], spec)
        assert pmse_ratio(orig, prot, spec).value > 1
    assert r.value == alone.value == pytest.approx(0.25, abs=1e-12)
    assert r.details["separation"] == "complete" and r.details["weighted"] is True


def test_a_category_of_one_file_only_is_fitted_in_the_limit():
    # locally suppressed values: the missing category occurs only in the protected file, so its
    # records' propensities tend to exactly 1 and the rest is an ordinary logit fit
    rng = np.random.default_rng(6)
    spec = {"variables": {"g": {"scale": "nominal"}, "x": {"scale": "continuous"}}, "pairing": "none"}
    orig = pd.DataFrame({"g": rng.choice(["a", "b"], 70), "x": rng.normal(size=70)})
    prot = pd.DataFrame({"g": rng.choice(["a", "b"], 50), "x": rng.normal(0.3, 1, 50)})
    prot.loc[[2, 11, 30], "g"] = None
    r = pmse(orig, prot, spec)
    assert r.details["separated"] == 3 and r.details["separation"] == "quasi-complete"
    c, n = 50 / 120, 120
    keep = prot["g"].notna()
    rest_o, rest_p = orig, prot[keep]
    merged = pd.concat([rest_o, rest_p], ignore_index=True)
    label = np.r_[np.zeros(len(rest_o)), np.ones(len(rest_p))]
    # standardisation does not change a logit's fitted values, so plain columns will do
    X = pd.DataFrame({"const": 1.0, "x": merged["x"], "b": (merged["g"] == "b").astype(float)})
    fitted = sm.Logit(label, X).fit(disp=0, method="newton", tol=1e-12).predict(X)
    expected = (np.sum((fitted - c) ** 2) + 3 * (1 - c) ** 2) / n
    assert r.value == pytest.approx(expected, rel=1e-6)
    # k counts the missing category's parameter: intercept, x, one of a/b, <missing>
    assert r.details["k"] == 4


# ---------------------------------------------------------------------------
# identical files, the null expectation
# ---------------------------------------------------------------------------
def test_a_file_against_itself():
    rng = np.random.default_rng(7)
    df = mixed(rng, 40)
    pair = encode_pair(df, df.copy(), MIXED)
    r = pmse(pair)
    assert r.value == pytest.approx(0.0, abs=1e-12)
    k = r.details["k"]
    assert k == 7  # x, y, g: 2 dummies, o: 2 dummies, intercept
    assert pmse_ratio(pair).value == pytest.approx(0.0, abs=1e-9)
    assert pmse_std(pair).value == pytest.approx(-math.sqrt((k - 1) / 2), abs=1e-9)


def null_frames(rng, n, mean=0.0, sd=1.0, p=(0.4, 0.3, 0.2, 0.1), q=(0.5, 0.3, 0.2), ym=0.0):
    return pd.DataFrame(
        {
            "x": rng.normal(mean, sd, n),
            "y": rng.normal(ym, 1.0, n),
            "z": rng.normal(0.0, 1.0, n),
            "g": rng.choice(["a", "b", "c", "d"], n, p=list(p)),
            "h": rng.choice(["u", "v", "w"], n, p=list(q)),
        }
    )


NULL_SPEC = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"},
                           "z": {"scale": "continuous"}, "g": {"scale": "nominal"},
                           "h": {"scale": "nominal"}}, "pairing": "none"}


@pytest.mark.parametrize("n_orig, n_prot", [(300, 300), (400, 200)])
def test_the_null_expectations_by_simulation(n_orig, n_prot):
    """Snoke et al.'s E0 = (k-1)(1-c)^2 c/N is the expected pMSE of a file synthesised from a
    correct model fitted to the original; two independent samples of one distribution have
    the expectation (k-1)c(1-c)/N = E0/(1-c).  Averages over 60 seeded pairs, tolerance four
    standard errors, SD0/sqrt(60) (the chi-squared SD of the pMSE in each setting)."""
    reps = 60
    independent, synthesised = [], []
    for seed in range(reps):
        rng = np.random.default_rng([seed, n_prot])
        orig = null_frames(rng, n_orig)
        independent.append(pmse(orig, null_frames(rng, n_prot), NULL_SPEC))
        # synthesise from the model fitted to the original: normal margins with its mean and SD,
        # categories with its proportions, independently (as the original was generated)
        g = orig["g"].value_counts(normalize=True).reindex(list("abcd"), fill_value=0.0).to_numpy()
        h = orig["h"].value_counts(normalize=True).reindex(list("uvw"), fill_value=0.0).to_numpy()
        syn = pd.DataFrame(
            {
                "x": rng.normal(orig["x"].mean(), orig["x"].std(), n_prot),
                "y": rng.normal(orig["y"].mean(), orig["y"].std(), n_prot),
                "z": rng.normal(orig["z"].mean(), orig["z"].std(), n_prot),
                "g": rng.choice(list("abcd"), n_prot, p=g),
                "h": rng.choice(list("uvw"), n_prot, p=h),
            }
        )
        synthesised.append(pmse(orig, syn, NULL_SPEC))
    n = n_orig + n_prot
    c = n_prot / n
    k = independent[0].details["k"]
    assert k == 9  # intercept, x, y, z, g: 3 dummies, h: 2 dummies
    e0 = (k - 1) * (1 - c) ** 2 * c / n
    sd0 = math.sqrt(2 * (k - 1)) * (1 - c) ** 2 * c / n
    assert independent[0].details["e0"] == pytest.approx(e0)
    mean_syn = np.mean([r.value for r in synthesised])
    assert abs(mean_syn - e0) < 4 * sd0 / math.sqrt(reps)
    mean_ind = np.mean([r.value for r in independent])
    assert abs(mean_ind - e0 / (1 - c)) < 4 * (sd0 / (1 - c)) / math.sqrt(reps)
    # so the ratio averages about 1 for synthesised files and about 1/(1-c) for independent samples
    ratio_syn = np.mean([r.value / r.details["e0"] for r in synthesised])
    ratio_ind = np.mean([r.value / r.details["e0"] for r in independent])
    rel_sd = math.sqrt(2 / (k - 1))  # SD0 / E0
    assert abs(ratio_syn - 1) < 4 * rel_sd / math.sqrt(reps)
    assert abs(ratio_ind - 1 / (1 - c)) < 4 * rel_sd / (1 - c) / math.sqrt(reps)


# ---------------------------------------------------------------------------
# sampling, errors, CART
# ---------------------------------------------------------------------------
def test_large_files_are_sampled_keeping_c():
    rng = np.random.default_rng(8)
    orig, prot = mixed(rng, 1000), mixed(rng, 500)
    r = pmse(orig, prot, MIXED, max_records=200)
    assert r.details["sampled"] is True
    # the larger file is sampled to 200, the other with the same fraction (1/5): 100
    assert r.details["n_orig"] == 200 and r.details["n_prot"] == 100 and r.details["N"] == 300
    assert r.details["c"] == pytest.approx(1 / 3)
    assert r.details["sample"]["records_orig"] == 1000 and r.details["sample"]["seed"] == 0
    again = pmse(orig, prot, MIXED, max_records=200)
    assert again.value == r.value  # seeded
    # paired files of equal size are sampled at the same record numbers: a copy loses nothing
    same = encode_pair(orig, orig.copy(), dict(MIXED, pairing="row"))
    assert pmse(same, max_records=100).value == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="max_records"):
        pmse(orig, prot, MIXED, max_records=0)


def test_clear_errors():
    orig = pd.DataFrame({"x": [1.0, 2.0, 3.0]})
    with pytest.raises(InputError, match="protected file has no records"):
        pmse(orig, orig.iloc[:0], X1)
    with pytest.raises(InputError, match="protected file has no records"):
        cluster_utility(orig, orig.iloc[:0], X1)
    spec = {"variables": {"x": {"scale": "continuous", "removed": True}}, "pairing": "none"}
    with pytest.raises(NotComputed, match="removed"):
        pmse(orig, orig.drop(columns="x").assign(w=1), spec)
    # nothing varies: the pMSE is 0, but the model has only an intercept, so E0 = 0
    const = pd.DataFrame({"x": [1.0, 1.0, 1.0]})
    assert pmse(const, const.iloc[:2], X1).value == 0.0
    with pytest.raises(NotComputed, match="only an intercept"):
        pmse_ratio(const, const.iloc[:2], X1)
    with pytest.raises(ValueError, match="model"):
        pmse(orig, orig, X1, model="forest")
    # a single protected record is fine: a file of one record is still a sample
    assert 0 <= pmse(orig, orig.iloc[:1], X1).value <= 0.25


def test_cart_separable_identical_and_permutation_null():
    # separable by x with at least 5 records a side (min_samples_leaf = 5): c = 5/15
    orig = pd.DataFrame({"x": np.arange(10.0)})
    prot = pd.DataFrame({"x": np.arange(100.0, 105.0)})
    r = pmse(orig, prot, X1, model="cart")
    assert r.value == pytest.approx((1 / 3) * (2 / 3))
    assert r.details["model_id"] == "cart" and r.details["k"] == 2  # two leaves
    # identical files: no split decreases the impurity, one leaf, p = c everywhere
    same = pmse(orig, orig.copy(), X1, model="cart")
    assert same.value == 0.0 and same.details["k"] == 1
    ratio = pmse_ratio(orig, prot, X1, model="cart", n_permutations=5)
    assert "permutation" in ratio.details["null"] and ratio.details["e0"] > 0
    assert ratio.value == pytest.approx(r.value / ratio.details["e0"])
    std = pmse_std(orig, prot, X1, model="cart", n_permutations=5)
    assert std.value == pytest.approx((r.value - std.details["e0"]) / std.details["sd0"])


def test_a_result_that_depends_on_the_seed_is_averaged_over_seeds_with_its_spread():
    rng = np.random.default_rng(8)
    orig, prot = mixed(rng, 1000), mixed(rng, 500, shift=0.2)
    # every record, logit: no random step, one fit
    full = pmse(orig, prot, MIXED)
    assert full.details["depends_on_seed"] is False and "seeds" not in full.details
    assert pmse(orig, prot, MIXED, seed=3).value == full.value
    # a sample: a value per seed (each one seed's own run), their mean and spread
    one = [pmse(orig, prot, MIXED, max_records=200, seed=s, seeds=1).value for s in range(4)]
    assert len(set(one)) > 1  # the samples differ
    r = pmse(orig, prot, MIXED, max_records=200, seeds=4)
    assert r.details["depends_on_seed"] is True and r.details["seeds"]["values"] == one
    assert r.details["seeds"]["seeds"] == [0, 1, 2, 3] and r.value == pytest.approx(np.mean(one), rel=1e-15)
    assert r.details["seeds"]["sd"] == pytest.approx(np.std(one, ddof=1))
    std = pmse_std(orig, prot, MIXED, max_records=200, seeds=4)  # each seed against its own fit's null
    each = [pmse_std(orig, prot, MIXED, max_records=200, seed=s, seeds=1).value for s in range(4)]
    assert std.value == pytest.approx(np.mean(each), rel=1e-12) and std.details["seeds"]["values"] == each
    assert std.details["pmse"] == pytest.approx(np.mean(one), rel=1e-15)


def test_cart_is_averaged_over_the_seeds_of_its_tie_breaks_as_scikit_learn_fits_them():
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(1)
    n = 400
    orig = pd.DataFrame(rng.normal(size=(n, 3)).round(1), columns=["x", "y", "z"])  # rounded: equally good splits
    prot = orig + rng.normal(scale=0.5, size=orig.shape).round(1)
    spec = {"variables": {v: {"scale": "continuous"} for v in "xyz"}, "pairing": "none"}
    merged, label = pd.concat([orig, prot]).to_numpy(), np.r_[np.zeros(n), np.ones(n)]
    c = 0.5
    expected = []
    for s in range(3):  # the default seeds
        tree = DecisionTreeClassifier(min_samples_leaf=5, min_impurity_decrease=0.001 * 2 * c * (1 - c),
                                      random_state=s).fit(merged, label)
        expected.append(np.mean((tree.predict_proba(merged)[:, 1] - c) ** 2))
    assert len(set(np.round(expected, 12))) > 1  # the seeds break ties differently
    r = pmse(orig, prot, spec, model="cart")
    assert r.details["depends_on_seed"] is True
    np.testing.assert_allclose(r.details["seeds"]["values"], expected, rtol=1e-12)
    assert r.value == pytest.approx(np.mean(expected), rel=1e-12)
    # pmse_ratio: every seed's pMSE over the one permutation null (fitted on the first seed)
    ratio = pmse_ratio(orig, prot, spec, model="cart", n_permutations=5)
    np.testing.assert_allclose(ratio.details["seeds"]["values"], np.array(expected) / ratio.details["e0"], rtol=1e-12)


# ---------------------------------------------------------------------------
# cluster utility
# ---------------------------------------------------------------------------
def test_cluster_utility_by_hand():
    # two blobs; the original has 3 records in the low one and 1 in the high one, the protected
    # file the reverse: each cluster is 3/4 or 1/4 original, c = 4/8, U_c = (1/16 + 1/16)/2
    orig = pd.DataFrame({"x": [0.0, 0.1, 0.2, 10.0]})
    prot = pd.DataFrame({"x": [0.1, 10.0, 10.1, 10.2]})
    r = cluster_utility(orig, prot, X1, G=2)
    assert r.value == pytest.approx(1 / 16)
    assert r.details["G"] == 2 and r.details["clusters"] == 2 and r.details["c"] == 0.5
    assert "k-means" in r.details["algorithm"] and "standardised" in r.details["clustered"]
    # separable: the original (4 records) all low, the protected (2) all high: c = 4/6,
    # clusters are pure: ((1 - 2/3)^2 + (0 - 2/3)^2) / 2 = 5/18
    r = cluster_utility(orig.iloc[:3].assign(x=[0.0, 0.1, 0.2]).pipe(lambda d: pd.concat([d, d.iloc[:1]])),
                        pd.DataFrame({"x": [10.0, 10.1]}), X1, G=2)
    assert r.value == pytest.approx(5 / 18)
    # categorical only: 6 original "a"; protected 2 "a" and 4 "b"; c = 6/12
    # cluster a: 6/8 - 1/2 = 1/4; cluster b: 0 - 1/2; U_c = (1/16 + 1/4)/2 = 5/32
    r = cluster_utility(pd.DataFrame({"g": ["a"] * 6}), pd.DataFrame({"g": ["a", "a"] + ["b"] * 4}), G1, G=2)
    assert r.value == pytest.approx(5 / 32)


def test_cluster_utility_identical_default_g_and_errors():
    rng = np.random.default_rng(9)
    df = mixed(rng, 300)
    r = cluster_utility(df, df.copy(), MIXED)
    assert r.value == 0.0  # copies always fall into one cluster with their original
    assert r.details["G"] == 6  # 1 % of the 600 merged records
    assert cluster_utility(mixed(rng, 50), mixed(rng, 50), MIXED).details["G"] == 2  # at least 2
    with pytest.raises(NotComputed, match="more than"):
        cluster_utility(df.iloc[:3], df.iloc[:3], MIXED, G=10)
    big = cluster_utility(mixed(rng, 3000), mixed(rng, 1500), MIXED, max_records=1000)
    assert big.details["sampled"] is True and big.details["N"] == 1500 and big.details["G"] == 15
    assert big.details["c"] == pytest.approx(2 / 3)  # c = n_O / N for U_c


# ---------------------------------------------------------------------------
# unpaired: a 50 % subsample of testdata
# ---------------------------------------------------------------------------
def test_a_half_subsample_loses_little(testdata_half_subsample):
    pair, orig, sub = testdata_half_subsample
    r = pmse_ratio(pair)
    k, c = r.details["k"], r.details["c"]
    assert c == pytest.approx(1 / 3)
    # A subsample S of O differs from O by half the difference of S and the rest R of O, so its
    # expected pMSE is a third of that of independent samples, E0/(1-c)/3 = E0/2 here
    # (categories of O missing from S add a little: their records' propensity is exactly 0).
    # Bound: E0 (ratio 1), far above 1/2 + 4 SDs of the ratio, SD = sqrt(2/(k-1))/2.
    assert 0.5 + 4 * math.sqrt(2 / (k - 1)) / 2 < 1
    assert r.value < 1
    assert pmse_std(pair).value < 0
    assert pmse(pair).value < r.details["e0"]
    # U_c: for independent samples each cluster's original share has variance c(1-c)/n_j, so
    # E[U_c] ~ c(1-c) G / N; a subsample's shares vary less (about a third as much)
    u = cluster_utility(pair)
    cu = u.details["c"]
    assert cu == pytest.approx(2 / 3)
    assert u.value < cu * (1 - cu) * u.details["G"] / u.details["N"]


def test_near_separation_by_a_continuous_variable_is_reported():
    # the files overlap only at one tied value of a: the slope runs off while the solver stops on a flat
    # gradient; details said separation "none"
    rng = np.random.default_rng(1)
    o = pd.DataFrame({"a": rng.normal(0, 1, 300), "g": rng.choice(list("xy"), 300)})
    p = pd.DataFrame({"a": rng.normal(3, 1, 200), "g": rng.choice(list("xy"), 200)})
    o.loc[o.a >= 1.2, "a"] = 1.25
    p.loc[p.a <= 1.3, "a"] = 1.25
    spec = {"variables": {"a": {"scale": "continuous"}, "g": {"scale": "nominal"}}, "pairing": "none"}
    import infoloss

    result = infoloss.compare(o, p, spec, measures=["pmse"]).scenario(0).measures["pmse"]
    assert result.details["separation"] == "quasi-complete"
    # the limit: records off the tie get p = y, tied ones the share of protected records among the tied of their g
    a, y, g = np.r_[o.a, p.a], np.r_[np.zeros(300), np.ones(200)], np.r_[o.g, p.g]
    limit = y.copy()
    for level in "xy":
        tied = (a == 1.25) & (g == level)
        limit[tied] = y[tied].mean()
    assert result.value == pytest.approx(np.mean((limit - 0.4) ** 2), rel=1e-6)


def test_a_weighted_intercept_only_fit_uses_the_weighted_share():
    import statsmodels.api as sm

    # 'v' is in the protected file only (those records are set aside, p = 1); on the rest 'a' is constant
    spec = {"variables": {"a": {"scale": "nominal"}, "W": {"role": "weight"}}, "pairing": "none"}
    orig = pd.DataFrame({"a": ["u"] * 6, "W": [1, 1, 1, 1, 1, 5.0]})
    prot = pd.DataFrame({"a": ["u"] * 4 + ["v"] * 2, "W": [1, 2, 3, 4, 5, 6.0]})
    y = np.r_[np.zeros(6), np.ones(6)]
    raw = np.r_[orig.W, prot.W]
    w = raw.copy()
    for label in (0, 1):  # each file's weights rescaled to sum to its records (module docstring)
        s = y == label
        w[s] = raw[s] * s.sum() / raw[s].sum()
    rest = np.r_[orig.a, prot.a] == "u"
    fit = sm.GLM(y[rest], np.ones((int(rest.sum()), 1)), family=sm.families.Binomial(), freq_weights=w[rest]).fit()
    p = y.copy()
    p[rest] = fit.predict(np.ones((int(rest.sum()), 1)))
    expected = float(np.sum(w * (p - y.mean()) ** 2) / len(y))
    assert pmse(orig, prot, spec, weighted=True).value == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("n_vars, n", [(5, 300), (60, 40)])  # pairs of bincounts; one product of the 0/1 columns
def test_crosstabs_are_the_cross_products_of_the_dummies(n_vars, n):
    from infoloss.measures.propensity import _crosstabs

    rng = np.random.default_rng(n_vars)
    codes = [rng.integers(0, int(rng.integers(1, 5)), size=n).astype(np.int64) for _ in range(n_vars)]
    levels = [np.flatnonzero(rng.random(int(c.max()) + 1) < 0.7).astype(np.int64) for c in codes]
    dummies = np.hstack([(c[:, None] == lev[None, :]).astype(float) for c, lev in zip(codes, levels)])
    assert np.array_equal(_crosstabs(codes, levels, n), dummies.T @ dummies)


def test_a_logit_of_too_many_columns_is_not_computed_and_cart_still_is(monkeypatch):
    import infoloss.limits as limits

    rng = np.random.default_rng(2)
    orig = pd.DataFrame({f"g{j}": rng.choice(list("abcd"), 120) for j in range(6)} | {"x": rng.normal(size=120)})
    prot = orig.copy()
    prot["g0"] = rng.choice(list("abcd"), 120)
    spec = {"variables": {c: {"scale": "continuous" if c == "x" else "nominal"} for c in orig}}
    assert pmse(orig, prot, spec).details["k"] == 1 + 1 + 6 * 3  # intercept, x, three dummies each
    monkeypatch.setattr(limits, "MAX_MODEL_COLUMNS", 18)  # 19 columns
    with pytest.raises(NotComputed, match=r"the logit would have 19 columns .* more than the 18 .* model='cart'"):
        pmse(orig, prot, spec)
    assert 0 <= pmse(orig, prot, spec, model="cart").value <= 0.25
