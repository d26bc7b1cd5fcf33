"""Issue 15 in the moments family: Trottini's bound of the mean variations, γ with Kendall's τ.

Expected values are recomputed here with pandas / numpy / scipy.stats.kendalltau,
independently of the implementation.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from infoloss.errors import NotComputed
from infoloss.measures import moments
from infoloss.pair import encode_pair
from infoloss.spec import load_spec

DATA = Path(__file__).resolve().parent / "data"
CONT = ["expend", "income", "savings"]


@pytest.fixture(scope="module")
def testdata():
    spec = load_spec(DATA / "testdata" / "spec.yaml")
    orig = pd.read_csv(DATA / "testdata" / "original.csv")
    prot = pd.read_csv(DATA / "testdata" / "recode_pram_noise50.csv")
    return encode_pair(orig, prot, spec), orig, prot


def _upper(m):
    return m[np.triu_indices(m.shape[0], 1)]


def test_r_mv_unbounded_is_large_and_the_bound_caps_each_correlation(testdata):
    pair, orig, prot = testdata
    r1 = orig[CONT].dropna().corr().to_numpy()
    r2 = prot[CONT].dropna().corr().to_numpy()
    rel = np.abs(_upper(r1) - _upper(r2)) / np.abs(_upper(r1))
    published = moments.r_mv(pair)
    assert published.value == pytest.approx(rel.mean(), rel=1e-9)
    assert published.value > 8  # one original correlation is near zero
    bounded = moments.r_mv(pair, bound=1.0)
    assert bounded.value == pytest.approx(np.minimum(rel, 1.0).mean(), rel=1e-9)
    keys = [f"{CONT[i]}|{CONT[j]}" for i, j in zip(*np.triu_indices(3, 1))]
    assert bounded.details["bounded_cells"] == [k for k, r in zip(keys, rel) if r > 1]
    assert bounded.details["unbounded_value"] == pytest.approx(published.value)
    assert bounded.by_pair == pytest.approx(dict(zip(keys, np.minimum(rel, 1.0))))
    assert published.details["bound"] is None and "bounded_cells" not in published.details


def test_x_mv_bound_counts_the_capped_cells_per_variable(testdata):
    pair, orig, prot = testdata
    bound = 0.5
    total, count, hits = 0.0, 0, {}
    for name in CONT:
        a, b = orig[name].to_numpy(float), prot[name].to_numpy(float)
        ok = ~np.isnan(a) & ~np.isnan(b) & (a != 0)
        rel = np.abs(a[ok] - b[ok]) / np.abs(a[ok])
        total += np.minimum(rel, bound).sum()
        count += rel.size
        if (rel > bound).any():
            hits[name] = int((rel > bound).sum())
    r = moments.x_mv(pair, bound=bound)
    assert r.value == pytest.approx(total / count, rel=1e-12)
    assert r.details["bounded_cells"] == hits
    assert r.value <= bound


def test_v_mv_bound_against_pandas_covariances(testdata):
    pair, orig, prot = testdata
    v1 = orig[CONT].dropna().cov().to_numpy()
    v2 = prot[CONT].dropna().cov().to_numpy()
    iu = np.triu_indices(3)
    rel = np.abs(v1[iu] - v2[iu]) / np.abs(v1[iu])
    assert moments.v_mv(pair, bound=2.0).value == pytest.approx(np.minimum(rel, 2.0).mean(), rel=1e-9)


@pytest.mark.parametrize("mid", ["x_mv", "xbar_mv", "v_mv", "s_mv", "r_mv", "rf_mv", "c_mv", "f_mv"])
def test_bound_never_exceeded_and_a_huge_bound_changes_nothing(testdata, mid):
    pair, _, _ = testdata
    f = getattr(moments, mid)
    assert f(pair, bound=0.25).value <= 0.25 + 1e-12
    assert f(pair, bound=1e12).value == pytest.approx(f(pair).value, rel=1e-12)


def test_bound_gives_zero_on_identical_files():
    rng = np.random.default_rng(3)
    df = pd.DataFrame(rng.normal(size=(50, 3)), columns=list("abc"))
    spec = {"variables": {c: {"scale": "continuous"} for c in "abc"}}
    for mid in ("x_mv", "r_mv", "v_mv"):
        r = getattr(moments, mid)(df, df.copy(), spec, bound=1.0)
        assert r.value == 0.0 and r.details["bounded_cells"] in ([], {})


def test_bound_must_be_positive():
    from infoloss.errors import InputError

    df = pd.DataFrame({"a": [1.0, 2, 3], "b": [3.0, 1, 2]})
    spec = {"variables": {c: {"scale": "continuous"} for c in "ab"}}
    with pytest.raises(InputError):
        moments.r_mv(df, df, spec, bound=0)


# ---------------------------------------------------------------------------
# γ with Kendall's τ
# ---------------------------------------------------------------------------
def _gamma_by_hand(a: np.ndarray, b: np.ndarray) -> float:
    def diag(x):
        p = x.shape[1]
        tau = np.eye(p)
        for i in range(p):
            for j in range(i + 1, p):
                tau[i, j] = tau[j, i] = kendalltau(x[:, i], x[:, j]).statistic
        d = np.diag(np.linalg.inv(tau))
        return d / np.linalg.norm(d)

    return float(np.linalg.norm(diag(a) - diag(b)) / np.sqrt(2))


def test_gamma_kendall_against_scipy_kendalltau_with_an_ordinal_variable():
    rng = np.random.default_rng(7)
    n = 400
    x = rng.normal(size=n)
    orig = pd.DataFrame({"x": x, "y": x + rng.normal(size=n), "o": np.digitize(x + rng.normal(size=n), [-1, 0, 1])})
    prot = orig.copy()
    prot["y"] = prot["y"] + rng.normal(scale=2, size=n)
    prot.loc[rng.choice(n, 60, replace=False), "o"] = rng.integers(0, 4, 60)
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}, "o": {"scale": "ordinal"}}}
    r = moments.gamma(orig, prot, spec, correlation="kendall")
    expected = _gamma_by_hand(orig[["x", "y", "o"]].to_numpy(float), prot[["x", "y", "o"]].to_numpy(float))
    assert r.value == pytest.approx(expected, rel=1e-10)
    assert set(r.by_variable) == {"x", "y", "o"}
    assert r.details["correlation"].startswith("kendall")
    pearson = moments.gamma(orig, prot, spec)
    assert set(pearson.by_variable) == {"x", "y"} and pearson.details["correlation"].startswith("pearson")
    assert moments.gamma(orig, orig.copy(), spec, correlation="kendall").value == 0.0


def test_gamma_kendall_uses_complete_cases_and_names_a_constant_variable():
    rng = np.random.default_rng(8)
    orig = pd.DataFrame(rng.normal(size=(80, 2)), columns=["a", "b"])
    prot = orig.copy()
    prot.loc[:9, "a"] = np.nan
    spec = {"variables": {"a": {"scale": "continuous"}, "b": {"scale": "continuous"}}}
    r = moments.gamma(orig, prot, spec, correlation="kendall")
    assert r.details["n_complete"] == {"original": 80, "protected": 70}
    expected = _gamma_by_hand(orig.to_numpy(), prot.dropna().to_numpy())
    assert r.value == pytest.approx(expected, rel=1e-10)
    const = orig.assign(b=1.0)
    with pytest.raises(NotComputed, match="b is constant"):
        moments.gamma(const, const, spec, correlation="kendall")


def test_gamma_kendall_testdata_includes_age():
    spec = load_spec(DATA / "testdata" / "spec.yaml")
    orig = pd.read_csv(DATA / "testdata" / "original.csv")
    prot = pd.read_csv(DATA / "testdata" / "ls_k3.csv")
    r = moments.gamma(orig, prot, spec, correlation="kendall")
    assert list(r.by_variable) == ["age", "expend", "income", "savings"]
    cols = ["age", "expend", "income", "savings"]
    assert r.value == pytest.approx(
        _gamma_by_hand(orig[cols].dropna().to_numpy(float), prot[cols].dropna().to_numpy(float)), rel=1e-10
    )
