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
