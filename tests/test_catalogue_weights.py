"""Issue 15: survey weights in the distribution, propensity and GDU families.

Weighted results are checked against brute-force weighted ECDFs, statsmodels' weighted
GLM and hand-written weighted statistics; with all weights equal they must equal the
unweighted results exactly (or to rounding).
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from infoloss.measures.distributions import ecdf_max, ecdf_mean, ks, ks_weighted

SPEC_XY = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}, "w": {"role": "weight"}},
           "pairing": "none"}


def weighted_files(n1=300, n2=250, seed=0):
    rng = np.random.default_rng(seed)
    orig = pd.DataFrame({"x": rng.normal(size=n1), "y": rng.exponential(size=n1), "w": rng.uniform(0.5, 5, n1)})
    prot = pd.DataFrame({"x": rng.normal(0.2, 1.1, n2), "y": rng.exponential(1.2, n2), "w": rng.uniform(0.5, 5, n2)})
    orig.loc[[3, 7], "x"] = np.nan
    return orig, prot


def brute_weighted_ecdf(x, w, points):
    return np.array([(w * (x <= z)).sum() / w.sum() for z in points])


def test_weighted_ks_is_the_sup_of_brute_force_weighted_ecdfs():
    orig, prot = weighted_files()
    r = ks(orig, prot, SPEC_XY)
    assert r.details["weighted"] is True and r.details["weight"] == "w"
    for name in ("x", "y"):
        o, p = orig[["x", "y", "w"]].dropna(subset=[name]), prot
        points = np.concatenate([o[name], p[name]])
        d = np.abs(brute_weighted_ecdf(o[name].to_numpy(), o["w"].to_numpy(), points)
                   - brute_weighted_ecdf(p[name].to_numpy(), p["w"].to_numpy(), points)).max()
        assert r.by_variable[name] == pytest.approx(d, abs=1e-12)
        e1 = o["w"].sum() ** 2 / (o["w"] ** 2).sum()
        e2 = p["w"].sum() ** 2 / (p["w"] ** 2).sum()
        assert r.details["pvalue"][name] == pytest.approx(stats.kstwo.sf(d, round(e1 * e2 / (e1 + e2))), rel=1e-9)


def test_weighted_ks_with_ties_and_equal_weights():
    x1, x2 = np.array([1.0, 1, 2, 3, 3]), np.array([1.0, 2, 2, 4])
    w1, w2 = np.array([1.0, 2, 1, 1, 3]), np.array([2.0, 1, 1, 1])
    points = np.concatenate([x1, x2])
    d = np.abs(brute_weighted_ecdf(x1, w1, points) - brute_weighted_ecdf(x2, w2, points)).max()
    assert ks_weighted(x1, w1, x2, w2)[0] == pytest.approx(d)
    equal = ks_weighted(x1, np.full(5, 2.5), x2, np.full(4, 7.0))
    res = stats.ks_2samp(x1, x2)
    assert equal[0] == res.statistic and equal[1] == res.pvalue


def test_equal_weights_give_the_unweighted_distribution_measures():
    orig, prot = weighted_files(seed=1)
    eq_o, eq_p = orig.assign(w=2.0), prot.assign(w=7.5)
    for f in (ks, ecdf_max, ecdf_mean):
        a = f(eq_o, eq_p, SPEC_XY)
        b = f(eq_o, eq_p, SPEC_XY, weighted=False)
        assert a.details["weighted"] is True and b.details["weighted"] is False
        assert a.value == pytest.approx(b.value, rel=1e-12, abs=1e-15), f.__name__
        if f is ks:
            assert a.details["pvalue"] == b.details["pvalue"]


def test_weighted_ecdf_measures_against_brute_force():
    orig, prot = weighted_files(60, 40, seed=2)
    orig = orig.dropna()
    xo, xm = orig[["x", "y"]].to_numpy(), prot[["x", "y"]].to_numpy()
    wo, wm = orig["w"].to_numpy(), prot["w"].to_numpy()
    points = np.vstack([xo, xm])
    below = lambda x, z: np.all(x <= z, axis=1)  # noqa: E731
    diffs = np.array([(wo * below(xo, z)).sum() / wo.sum() - (wm * below(xm, z)).sum() / wm.sum() for z in points])
    # U_s: each merged point weighted by its weight normalised to mean 1 within its file
    pw = np.concatenate([wo / wo.mean(), wm / wm.mean()])
    assert ecdf_max(orig, prot, SPEC_XY).value == pytest.approx(np.abs(diffs).max())
    assert ecdf_mean(orig, prot, SPEC_XY).value == pytest.approx(np.sum(pw * diffs**2) / len(points))


def test_weighted_true_without_weights_is_an_input_error():
    from infoloss.errors import InputError

    orig, prot = weighted_files()
    spec = {"variables": {"x": {"scale": "continuous"}}, "pairing": "none"}
    with pytest.raises(InputError, match="no weight column"):
        ks(orig, prot, spec, weighted=True)


# ---------------------------------------------------------------------------
# propensity family
# ---------------------------------------------------------------------------
import statsmodels.api as sm  # noqa: E402

from infoloss.measures.propensity import cluster_utility, pmse, pmse_ratio, pmse_std  # noqa: E402
from test_propensity import MIXED, design, mixed  # noqa: E402

MIXED_W = {**MIXED, "variables": {**MIXED["variables"], "w": {"role": "weight"}}}


def _weighted_frames(seed=3, n1=80, n2=60):
    rng = np.random.default_rng(seed)
    orig, prot = mixed(rng, n1), mixed(rng, n2, shift=0.4)
    orig["w"] = rng.uniform(1, 20, n1)
    prot["w"] = rng.uniform(1, 20, n2)
    orig.loc[3, "x"] = np.nan
    prot.loc[7, "g"] = None
    return orig, prot


def test_weighted_pmse_equals_a_statsmodels_weighted_glm():
    orig, prot = _weighted_frames()
    merged = pd.concat([orig, prot], ignore_index=True)
    label = np.r_[np.zeros(len(orig)), np.ones(len(prot))]
    w = np.r_[orig["w"] / orig["w"].mean(), prot["w"] / prot["w"].mean()]  # each file's weights to mean 1
    X = design(merged, MIXED)
    fit = sm.GLM(label, X, family=sm.families.Binomial(), freq_weights=w).fit(tol=1e-12)
    c = len(prot) / len(merged)
    expected = float(np.sum(w * (fit.predict(X) - c) ** 2) / len(merged))
    r = pmse(orig, prot, MIXED_W)
    assert r.details["weighted"] is True and "sample_weight" in r.details["weights"]
    assert r.value == pytest.approx(expected, rel=1e-5)
    assert r.value != pytest.approx(pmse(orig, prot, MIXED_W, weighted=False).value, rel=1e-3)
    k, n = r.details["k"], len(merged)
    deff = np.mean(w**2)
    ratio = pmse_ratio(orig, prot, MIXED_W)
    assert ratio.details["deff"] == pytest.approx(deff)
    assert ratio.value == pytest.approx(expected / ((k - 1) * (1 - c) ** 2 * c / n * deff), rel=1e-5)


def test_equal_weights_give_the_unweighted_propensity_measures():
    orig, prot = _weighted_frames(seed=4)
    eq_o, eq_p = orig.assign(w=3.0), prot.assign(w=3.0)  # all weights equal (the permutation null mixes the files)
    for f, kw in ((pmse, {}), (pmse_ratio, {}), (pmse_std, {}), (pmse, {"model": "cart"}),
                  (pmse_ratio, {"model": "cart", "n_permutations": 3}), (cluster_utility, {"G": 4})):
        a = f(eq_o, eq_p, MIXED_W, **kw)
        b = f(eq_o, eq_p, MIXED_W, weighted=False, **kw)
        assert a.details["weighted"] and not b.details["weighted"]
        assert a.value == pytest.approx(b.value, rel=1e-6, abs=1e-12), (f.__name__, kw)


def test_weighted_cart_and_clusters_by_hand():
    # CART: x separates the files perfectly whatever the weights, so every leaf is pure and pMSE = c(1 - c)
    orig = pd.DataFrame({"x": np.arange(20.0), "w": np.arange(1.0, 21)})
    prot = pd.DataFrame({"x": np.arange(100.0, 130), "w": np.ones(30)})
    spec = {"variables": {"x": {"scale": "continuous"}, "w": {"role": "weight"}}, "pairing": "none"}
    assert pmse(orig, prot, spec, model="cart").value == pytest.approx(0.6 * 0.4)
    # clusters: two well-separated groups; weighted counts per cluster
    orig = pd.DataFrame({"x": [0.0, 0.1, 0.2, 10.0], "w": [1.0, 1, 1, 5]})
    prot = pd.DataFrame({"x": [0.1, 10.0, 10.1, 10.2], "w": [1.0, 1, 1, 1]})
    spec = {"variables": {"x": {"scale": "continuous"}, "w": {"role": "weight"}}, "pairing": "none"}
    wo = np.array([1, 1, 1, 5]) / 2.0  # rescaled to sum to 4
    low_o, high_o = wo[:3].sum(), wo[3]
    low, high = low_o + 1, high_o + 3
    expected = ((low_o / low - 0.5) ** 2 + (high_o / high - 0.5) ** 2) / 2
    assert cluster_utility(orig, prot, spec, G=2).value == pytest.approx(expected)


# ---------------------------------------------------------------------------
# GDU
# ---------------------------------------------------------------------------
from statsmodels.stats.weightstats import DescrStatsW  # noqa: E402

from infoloss.measures import gdu as G  # noqa: E402
from infoloss.pair import encode_pair  # noqa: E402


def _kish(w):
    return w.sum() ** 2 / (w**2).sum()


def _gdu_files(seed=21, n=400):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    orig = pd.DataFrame({
        "x": 50 + 10 * z,
        "y": 20 + 5 * (0.6 * z + 0.8 * rng.normal(size=n)),
        "g": np.where(z + rng.normal(size=n) > 0.3, "hi", np.where(z < -0.8, "lo", "mid")),
        "r": rng.exponential(size=n) ** 3,  # far from normal: Spearman / Kruskal-Wallis
        "w": rng.uniform(1, 10, n),
    })
    prot = orig.copy()
    prot["y"] = prot["y"] + rng.normal(0, 3, n)
    flip = rng.random(n) < 0.15
    prot.loc[flip, "g"] = rng.choice(["hi", "mid", "lo"], flip.sum())
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}, "g": {"scale": "nominal"},
                          "r": {"scale": "continuous"}, "w": {"role": "weight"}}}
    return orig, prot, spec


def test_weighted_gdu_univariate_tests():
    orig, prot, spec = _gdu_files()
    r = G.ldu_uni(orig, prot, spec)
    assert r.details["weighted"] is True
    w = orig["w"].to_numpy()
    # chi-squared: weighted counts rescaled to each file's Kish effective size
    rows = []
    for df in (orig, prot):
        counts = df.groupby("g")["w"].sum().reindex(["hi", "lo", "mid"]).to_numpy()
        rows.append(counts / counts.sum() * _kish(w))
    p_g = stats.chi2_contingency(np.vstack(rows), correction=False).pvalue
    assert r.details["variables"]["g"]["p_value"] == pytest.approx(p_g, rel=1e-9)
    assert r.by_variable["g"] == pytest.approx(1 - np.exp(-14 * p_g))
    # KS of weighted ECDFs, p-value at the effective sizes
    points = np.concatenate([orig["y"], prot["y"]])
    d = np.abs(brute_weighted_ecdf(orig["y"].to_numpy(), w, points) - brute_weighted_ecdf(prot["y"].to_numpy(), w, points)).max()
    e = _kish(w)
    assert r.details["variables"]["y"]["statistic"] == pytest.approx(d)
    assert r.details["variables"]["y"]["p_value"] == pytest.approx(stats.kstwo.sf(d, round(e * e / (2 * e))), rel=1e-9)


def test_weighted_gdu_bivariate_tests_and_unweighted_ones_stated():
    orig, prot, spec = _gdu_files()
    r = G.ldu_biv(orig, prot, spec)
    pairs = r.details["pairs"]
    w = orig["w"].to_numpy()
    n_eff = _kish(w)
    # Pearson: weighted correlation (statsmodels DescrStatsW), p-value of the t test at n_eff
    assert pairs["x|y"]["test_orig"] == "pearson"
    for which, df in (("orig", orig), ("prot", prot)):
        rw = DescrStatsW(df[["x", "y"]].to_numpy(), weights=w).corrcoef[0, 1]
        t = rw * np.sqrt((n_eff - 2) / (1 - rw**2))
        assert pairs["x|y"][f"coef_{which}"] == pytest.approx(rw**2, rel=1e-9)
        assert pairs["x|y"][f"p_{which}"] == pytest.approx(2 * stats.t.sf(abs(t), n_eff - 2), rel=1e-6)
    # ANOVA: eta² = weighted R² of x on the groups (statsmodels WLS); F with n_eff - G within-group df
    assert pairs["x|g"]["test_orig"] == "anova"
    for which, df in (("orig", orig), ("prot", prot)):
        X = pd.get_dummies(df["g"], drop_first=True, dtype=float).assign(const=1.0)
        wls = sm.WLS(df["x"], X, weights=w).fit()
        assert pairs["x|g"][f"coef_{which}"] == pytest.approx(wls.rsquared, rel=1e-9)
        f = (wls.rsquared / 2) / ((1 - wls.rsquared) / (n_eff - 3))
        assert pairs["x|g"][f"statistic_{which}"] == pytest.approx(f, rel=1e-9)
    # chi-squared between two nominal variables would be weighted too; Spearman / Kruskal-Wallis are not
    assert pairs["x|r"]["test_orig"] == "spearman" and "no weighted form" in pairs["x|r"]["weights"]
    assert pairs["g|r"]["test_orig"] == "kruskal" and "no weighted form" in pairs["g|r"]["weights"]
    unweighted = G.ldu_biv(orig, prot, spec, weighted=False).details["pairs"]
    assert pairs["x|r"]["p_orig"] == unweighted["x|r"]["p_orig"]


def test_gdu_equal_weights_equal_unweighted_and_unequal_weights_differ():
    orig, prot, spec = _gdu_files(seed=22)
    eq = orig.assign(w=4.0), prot.assign(w=4.0)
    pair = encode_pair(*eq, spec)
    for mid in ("ldu_uni", "aldu_uni", "ldu_biv", "aldu_biv", "gdu"):
        a, b = getattr(G, mid)(pair), getattr(G, mid)(pair, weighted=False)
        assert a.details["weighted"] is True and b.details["weighted"] is False
        assert a.value == b.value, mid
    pair = encode_pair(orig, prot, spec)
    assert G.ldu_biv(pair).details["pairs"]["x|y"]["p_prot"] != G.ldu_biv(pair, weighted=False).details["pairs"]["x|y"]["p_prot"]
    assert G.gdu(encode_pair(orig, orig.copy(), spec)).value == 1.0


# ---------------------------------------------------------------------------
# property: equal weights are no weights, for every measure with a `weighted` option
# ---------------------------------------------------------------------------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from infoloss.errors import NotComputed  # noqa: E402
from infoloss.registry import registered  # noqa: E402

# count-based table measures compare sums of weights, so only weights of 1 leave them unchanged
COUNT_SCALED = {"ctbil", "aad"}
PROPERTY_SPEC = {"variables": {"g": {"scale": "nominal"}, "o": {"scale": "ordinal"}, "x": {"scale": "continuous"},
                               "y": {"scale": "continuous"}, "w": {"role": "weight"}}}


def _weighted_measures():
    return [m for m in registered() if any(o.name == "weighted" for o in m.options)]


def test_the_weighted_families_have_the_option():
    families = {m.family for m in _weighted_measures()}
    assert {"tables", "distributions", "propensity", "gdu"} <= families
    ids = {m.id for m in _weighted_measures()}
    assert {"ks", "ecdf_max", "ecdf_mean", "pmse", "pmse_ratio", "pmse_std", "cluster_utility", "gdu",
            "chi2_distance", "ebil_joint"} <= ids


def test_weighted_gdu_pairs_sharing_a_missing_pattern_each_equal_statsmodels():
    """Pairs with the same missing variables share their weights in a run; each still equals its own fit."""
    rng = np.random.default_rng(9)
    n = 700
    base = rng.normal(size=n)
    df = pd.DataFrame({f"y{k}": base * k / 3 + rng.normal(size=n) for k in (1, 2, 3)})
    df["x"] = base + rng.normal(size=n)
    df["z"] = base - rng.normal(size=n)
    for k in (1, 2, 3):
        df[f"g{k}"] = np.where(df["x"] + rng.normal(size=n) > 0, "a", rng.choice(["b", "c"], n))
    df["w"] = rng.uniform(1, 10, n)
    df.loc[rng.random(n) < 0.08, "x"] = np.nan
    df.loc[rng.random(n) < 0.05, "z"] = np.nan
    df.loc[rng.random(n) < 0.06, "g3"] = None
    prot = df.copy()
    prot["y1"] = prot["y1"] + rng.normal(0, 0.5, n)
    names = ["x", "y1", "y2", "y3", "z", "g1", "g2", "g3"]
    spec = {"variables": {nm: {"scale": "nominal" if nm[0] == "g" else "continuous"} for nm in names}}
    spec["variables"]["w"] = {"role": "weight"}
    pairs = G.ldu_biv(df, prot, spec).details["pairs"]
    checked = set()
    for key, res in pairs.items():
        a, b = key.split("|")
        for which, data in (("orig", df), ("prot", prot)):
            test = res.get(f"test_{which}")
            if test not in ("pearson", "anova"):
                continue
            sub = data.loc[data[[a, b]].notna().all(axis=1)]
            w = sub["w"].to_numpy()
            if test == "pearson":
                expected = DescrStatsW(sub[[a, b]].to_numpy(), weights=w).corrcoef[0, 1]
                assert res[f"statistic_{which}"] == pytest.approx(expected, rel=1e-10), (key, which)
            else:
                g, x = (a, b) if a[0] == "g" else (b, a)
                X = pd.get_dummies(sub[g], drop_first=True, dtype=float).assign(const=1.0)
                expected = sm.WLS(sub[x], X, weights=w).fit().rsquared
                assert res[f"coef_{which}"] == pytest.approx(expected, rel=1e-9), (key, which)
            checked.add((tuple(sorted(c for c in (a, b) if data[c].isna().any())), test))
    # several pairs per missing pattern, for both tests, and a pattern of two variables
    assert {(("x",), "pearson"), (("x",), "anova"), (("z",), "pearson"), (("x", "z"), "pearson"),
            (("g3", "x"), "anova"), (("g3",), "anova")} <= checked


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.sampled_from([1.0, 3.7]), st.booleans())
def test_equal_weights_give_the_unweighted_value_on_every_weighted_measure(seed, weight, paired):
    rng = np.random.default_rng(seed)
    n = 40
    x = rng.normal(size=n)
    orig = pd.DataFrame({"g": rng.choice(list("abc"), n), "o": rng.integers(1, 4, n), "x": x,
                         "y": x + rng.normal(size=n), "w": weight})
    prot = orig.copy()
    prot["x"] = prot["x"] + rng.normal(scale=0.5, size=n)
    prot.loc[rng.random(n) < 0.2, "g"] = "a"
    if not paired:
        prot = prot.iloc[: n - 7].reset_index(drop=True)
    pair = encode_pair(orig, prot, dict(PROPERTY_SPEC, pairing="row" if paired else "none"))
    for info in _weighted_measures():
        if info.needs_pairing and not paired or (info.id in COUNT_SCALED and weight != 1.0):
            continue
        try:
            a = info.func(pair, weighted=True)
        except NotComputed:
            with pytest.raises(NotComputed):
                info.func(pair, weighted=False)
            continue
        b = info.func(pair, weighted=False)
        assert a.value == pytest.approx(b.value, rel=1e-9, abs=1e-12), info.id


def test_weighted_gdu_pairs_with_missing_values_use_their_complete_cases():
    """Weighted Pearson and ANOVA on pairs with missing values equal statsmodels on each pair's complete cases."""
    orig, prot, spec = _gdu_files(seed=5, n=600)
    rng = np.random.default_rng(5)
    for df in (orig, prot):
        df.loc[rng.random(len(df)) < 0.06, "x"] = np.nan
    g = prot["g"].astype(object)
    g[rng.random(len(prot)) < 0.07] = None
    prot["g"] = g
    pairs = G.ldu_biv(orig, prot, spec).details["pairs"]
    assert pairs["x|y"]["test_orig"] == "pearson" and pairs["x|g"]["test_orig"] == "anova"
    for which, df in (("orig", orig), ("prot", prot)):
        cc = df[["x", "y"]].notna().all(axis=1).to_numpy()
        w = df["w"].to_numpy()[cc]
        rw = DescrStatsW(df.loc[cc, ["x", "y"]].to_numpy(), weights=w).corrcoef[0, 1]
        assert pairs["x|y"][f"n_{which}"] == pytest.approx(_kish(w), rel=1e-12)
        assert pairs["x|y"][f"statistic_{which}"] == pytest.approx(rw, rel=1e-10)
        cc = df[["x", "g"]].notna().all(axis=1).to_numpy()
        w = df["w"].to_numpy()[cc]
        sub = df.loc[cc]
        X = pd.get_dummies(sub["g"], drop_first=True, dtype=float).assign(const=1.0)
        wls = sm.WLS(sub["x"], X, weights=w).fit()
        n_eff = _kish(w)
        assert pairs["x|g"][f"coef_{which}"] == pytest.approx(wls.rsquared, rel=1e-9)
        f = (wls.rsquared / 2) / ((1 - wls.rsquared) / (n_eff - 3))
        assert pairs["x|g"][f"statistic_{which}"] == pytest.approx(f, rel=1e-9)


def test_records_of_weight_zero_count_for_nothing_in_the_propensity_and_ecdf_measures():
    # they set c = n_M/N, each file's rescaled weights and the ECDFs' evaluation points: 20 such records moved pMSE
    # from 0.0259 to 0.0239 and ecdf_max of a 4-record pair from 0.5 to 1 (found by the core audit)
    import infoloss

    rng = np.random.default_rng(12)
    n = 80
    o = pd.DataFrame({"x": rng.normal(size=n), "y": rng.normal(size=n), "g": rng.choice(list("abc"), n),
                      "w": rng.uniform(.5, 2, n)})
    p = o.copy()
    p["x"] += rng.normal(scale=.5, size=n)
    p.loc[:8, "g"] = None
    p.loc[60:, "w"] = 0.0
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}, "g": {"scale": "nominal"},
                          "w": {"role": "weight"}}, "pairing": "none"}
    ids = ["ecdf_max", "ecdf_mean", "pmse", "pmse_ratio", "pmse_std", "cluster_utility"]
    kw = dict(measures=ids, statistics=False, aggregates=False, tables=False)
    with_zeros, without = infoloss.compare(o, p, spec, **kw), infoloss.compare(o, p.iloc[:60], spec, **kw)
    for mid in ids:
        assert with_zeros.value(mid) == pytest.approx(without.value(mid), rel=1e-12), mid
    o4 = pd.DataFrame({"x": [0., 1.], "y": [1., 0.], "w": [1., 1.]})
    p4 = pd.DataFrame({"x": [2., 1.], "y": [2., 1.], "w": [1., 0.]})
    spec4 = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}, "w": {"role": "weight"}},
             "pairing": "none"}
    assert infoloss.compare(o4, p4, spec4, measures=["ecdf_max"], aggregates=False, tables=False,
                            statistics=False).value("ecdf_max") == 0.5
