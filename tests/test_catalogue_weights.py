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
