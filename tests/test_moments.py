"""Moments family: eigen, robust_eigen, γ, the Domingo-Ferrer–Mateo-Sanz–Torra table, continuous_statistics.

Expected numbers come from the sdcMicro reference JSONs in tests/data/*/reference/,
from pandas/numpy/statsmodels recomputations written differently from the
implementation (pandas ``.cov()``/``.corr()``, ``np.linalg.eigvalsh``, ``np.linalg.inv``,
``DescrStatsW``), or from small examples worked out by hand in the comments.
"""

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import stats
from statsmodels.stats.weightstats import DescrStatsW

import infoloss
from infoloss.errors import NotComputed
from infoloss.measures import moments
from infoloss.measures.moments import continuous_statistics, eigen, gamma, robust_eigen
from infoloss.pair import ORIGINAL, PROTECTED, encode_pair
from infoloss.registry import registered
from infoloss.spec import load_spec

DATA = Path(__file__).resolve().parent / "data"
REFERENCE_CASES = [
    ("testdata", "ls_k3"),
    ("testdata", "recode_pram_noise50"),
    ("testdata", "recode_mdav3_ls_k3"),
    ("francdat", "ls_k2"),
    ("francdat", "noise_additive50"),
]
TABLE = [f"{m}_{s}" for m in ("x", "xbar", "v", "s", "r", "rf", "c", "f") for s in ("mse", "mae", "mv")]
MOMENTS = ["eigen", "robust_eigen", "gamma", *TABLE]


def load_pair(folder, name, spec=None):
    spec = load_spec(DATA / folder / "spec.yaml") if spec is None else spec
    orig = pd.read_csv(DATA / folder / "original.csv")
    prot = pd.read_csv(DATA / folder / f"{name}.csv")
    return encode_pair(orig, prot, spec)


def reference(folder, name):
    return json.loads((DATA / folder / "reference" / f"sdcmicro_{name}.json").read_text())


def continuous_spec(columns, **extra):
    return {"variables": {c: {"scale": "continuous"} for c in columns}, **extra}


def measure(mid):
    return next(info for info in registered() if info.id == mid).func


def random_frames(n=300, seed=0, missing=0.0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    orig = pd.DataFrame(
        {"a": 10 + x, "b": 2 * x + rng.normal(size=n), "c": rng.lognormal(size=n), "d": rng.normal(5, 3, size=n)}
    )
    prot = orig + rng.normal(scale=0.4, size=orig.shape)
    if missing:
        orig = orig.mask(rng.random(orig.shape) < missing)
        prot = prot.mask(rng.random(prot.shape) < missing)
    return orig, prot


# ---------------------------------------------------------------------------
# agreement with sdcMicro 5.8.1
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("folder,name", REFERENCE_CASES)
def test_eigen_matches_sdcmicro(folder, name):
    pair, ref = load_pair(folder, name), reference(folder, name)
    result = eigen(pair)
    assert result.value == pytest.approx(ref["dUtility"]["eigen"], rel=1e-9, abs=1e-12)
    inter = ref["intermediate"]
    np.testing.assert_allclose(result.details["eigenvalues_original"], inter["eigenvalues_cor_original"], rtol=1e-9)
    np.testing.assert_allclose(result.details["eigenvalues_protected"], inter["eigenvalues_cor_protected"], rtol=1e-9)


@pytest.mark.parametrize("folder,name", REFERENCE_CASES)
def test_gamma_matches_sdcmicro_il_correl(folder, name):
    pair, ref = load_pair(folder, name), reference(folder, name)
    assert ref["IL_correl"]["error"] is None
    result = gamma(pair)
    assert result.value == pytest.approx(ref["IL_correl"]["value"], rel=1e-9, abs=1e-12)
    inter = ref["intermediate"]
    for var, value in inter["inverse_cor_diag_original"].items():
        assert result.details["inverse_diagonal_original"][var] == pytest.approx(value, rel=1e-9)
    for var, value in inter["inverse_cor_diag_protected"].items():
        assert result.details["inverse_diagonal_protected"][var] == pytest.approx(value, rel=1e-9)
    # by_variable: γ = sqrt(Σ by_variable² / 2)
    assert math.sqrt(sum(v**2 for v in result.by_variable.values()) / 2) == pytest.approx(result.value, abs=1e-15)


@pytest.mark.parametrize("folder,name", REFERENCE_CASES)
def test_continuous_statistics_match_sdcmicro(folder, name):
    pair, ref = load_pair(folder, name), reference(folder, name)
    stats = continuous_statistics(pair, weighted=False)  # sdcMicro's statistics are unweighted
    cols = ref["columns"]["continuous"]
    assert stats["variables"] == cols and stats["weighted"] is False and stats["confidence"] == 0.95
    for ours, theirs in ((stats["orig"], ref["stats_continuous"]["original"]), (stats["prot"], ref["stats_continuous"]["protected"])):
        for c in cols:
            assert ours["n"][c] == theirs["n"] - theirs["n_missing"][c]
            assert ours["mean"][c] == pytest.approx(theirs["mean"][c], rel=1e-9)
            assert ours["sd"][c] == pytest.approx(theirs["sd_n_minus_1"][c], rel=1e-9)
            assert ours["variance"][c] == pytest.approx(theirs["sd_n_minus_1"][c] ** 2, rel=1e-9)
        assert theirs["cov"]["vars"] == cols
        np.testing.assert_allclose(ours["cov"], theirs["cov"]["matrix"], rtol=1e-9)
        np.testing.assert_allclose(ours["corr"], theirs["cor"]["matrix"], rtol=1e-9, atol=1e-12)


def test_robust_eigen_is_of_sdcmicros_order_and_zero_when_continuous_values_are_unchanged():
    # sdcMicro's robeigen depends on R's random MCD subsets (and on one RNG stream for both
    # files), so only orientation: francdat (8 records, no sampling) within a factor of 10
    pair, ref = load_pair("francdat", "noise_additive50"), reference("francdat", "noise_additive50")
    result = robust_eigen(pair)
    assert ref["dUtility"]["robeigen"] / 10 < result.value < ref["dUtility"]["robeigen"] * 10
    assert result.details["sampled"] is False and result.details["n_fitted"] == {"original": 8, "protected": 8}
    # ls_k3 suppresses key variables only: the continuous values are unchanged, the same records are
    # sampled in both files, so nothing is lost (sdcMicro's 0.066 is its MCD randomness)
    same = robust_eigen(load_pair("testdata", "ls_k3"))
    assert same.value == 0.0
    assert same.details["sampled"] is True and same.details["n_fitted"]["original"] == moments.MCD_MAX_RECORDS
    assert "sample" in same.details["note"]
    noisy = robust_eigen(load_pair("testdata", "recode_pram_noise50"))
    assert 0 < noisy.value < 1  # sdcMicro: 0.03–0.07 depending on the seed


def test_robust_eigen_sample_size_and_seed_are_options():
    pair = load_pair("testdata", "recode_pram_noise50")
    a = robust_eigen(pair, max_records=300, random_state=1)
    assert a.details["n_fitted"] == {"original": 300, "protected": 300}
    assert a.details["random_state"] == 1
    assert robust_eigen(pair, max_records=300, random_state=1).value == a.value  # reproducible


def test_robust_eigen_is_the_mean_over_seeds_with_their_spread():
    # one seed's value moved from 0.028 to 0.204 with the seed on testdata (found by the core audit): the value is
    # the mean over seeds, and details say each seed's value
    pair = load_pair("testdata", "recode_pram_noise50")
    result = robust_eigen(pair, seeds=4, random_state=2)
    single = [robust_eigen(pair, seeds=1, random_state=s).value for s in (2, 3, 4, 5)]
    spread = result.details["seeds"]
    assert spread["seeds"] == [2, 3, 4, 5] and spread["values"] == single
    assert result.value == spread["mean"] == pytest.approx(np.mean(single), rel=1e-12)
    assert spread["sd"] == pytest.approx(np.std(single, ddof=1)) and spread["min"] == min(single) > 0
    assert robust_eigen(pair).details["seeds"]["seeds"] == list(range(moments.MCD_SEEDS))


def test_scenarios_of_one_compare_share_the_originals_moments_and_mcd_fit(monkeypatch):
    """The original's MCD fit, complete-case statistics and descriptive statistics are computed once.

    Each scenario's results and statistics equal the scenario compared alone
    (the same numbers), with three MCD fits for two scenarios instead of four.
    """
    import infoloss
    from infoloss.measures import _moments_describe
    from infoloss.synth import make_spec, make_survey, protect

    df = make_survey(900, n_continuous=4, n_categorical=2, seed=3)  # with survey weights
    df.loc[df.index[::13], df.columns[2]] = np.nan
    prots = [protect(df, noise=0.2 * (k + 1), pram=0.1, seed=5 + k) for k in range(2)]
    spec = make_spec(df)
    fitted, described = [], []
    real_fit, real_describe = moments._mcd_fit, _moments_describe._describe_file
    monkeypatch.setattr(moments, "_mcd_fit", lambda pair, which, *a: fitted.append(which) or real_fit(pair, which, *a))
    monkeypatch.setattr(_moments_describe, "_describe_file",
                        lambda pair, which, *a: described.append(which) or real_describe(pair, which, *a))
    ids = ["robust_eigen", "eigen", "x_mse"]
    together = infoloss.compare(df, prots, spec, measures=ids)
    seeds = moments.MCD_SEEDS  # the value is the mean over seeds: one original fit per seed for both scenarios
    assert sorted(fitted) == sorted([ORIGINAL, PROTECTED, PROTECTED] * seeds)
    assert sorted(described) == sorted([ORIGINAL, PROTECTED, PROTECTED])
    assert together.scenarios[0].statistics["weighted"] is True
    for scenario, prot in zip(together.scenarios, prots):
        alone = infoloss.compare(df, prot, spec, measures=ids).scenarios[0]
        assert scenario.statistics == alone.statistics
        for mid in ids:
            assert scenario.measures[mid].value == alone.measures[mid].value
            assert scenario.measures[mid].details == alone.measures[mid].details
        assert scenario.measures["robust_eigen"].value > 0


# ---------------------------------------------------------------------------
# independent recomputations (pandas / numpy)
# ---------------------------------------------------------------------------
def test_eigen_with_missing_values_is_pandas_pairwise_cov_of_each_files_own_z_scores():
    orig, prot = random_frames(missing=0.05)
    result = eigen(orig, prot, continuous_spec(orig.columns))
    # pandas .cov() uses pairwise complete observations, like R's use = "pairwise.complete.obs"
    e1 = np.linalg.eigvalsh(((orig - orig.mean()) / orig.std()).cov().to_numpy())[::-1]
    e2 = np.linalg.eigvalsh(((prot - prot.mean()) / prot.std()).cov().to_numpy())[::-1]
    assert result.value == pytest.approx(np.sum(np.abs(e1 - e2) / e1), rel=1e-9)
    np.testing.assert_allclose(result.details["eigenvalues_protected"], e2, rtol=1e-9)


def test_gamma_with_missing_values_uses_complete_cases_of_each_file():
    orig, prot = random_frames(missing=0.05)
    result = gamma(orig, prot, continuous_spec(orig.columns))
    d1 = np.diag(np.linalg.inv(orig.dropna().corr().to_numpy()))
    d2 = np.diag(np.linalg.inv(prot.dropna().corr().to_numpy()))
    expected = np.linalg.norm(d1 / np.linalg.norm(d1) - d2 / np.linalg.norm(d2)) / math.sqrt(2)
    assert result.value == pytest.approx(expected, rel=1e-9)
    assert result.details["n_complete"] == {"original": len(orig.dropna()), "protected": len(prot.dropna())}


def test_table_statistics_against_pandas():
    orig, prot = random_frames(missing=0.03, seed=3)
    spec = continuous_spec(orig.columns)
    pair = encode_pair(orig, prot, spec)
    p = orig.shape[1]
    # V: upper triangle with diagonal of the complete-case covariances, p(p+1)/2 elements
    v1, v2 = orig.dropna().cov().to_numpy(), prot.dropna().cov().to_numpy()
    iu = np.triu_indices(p)
    assert measure("v_mae")(pair).value == pytest.approx(np.abs(v1 - v2)[iu].sum() / (p * (p + 1) / 2), rel=1e-9)
    assert measure("v_mv")(pair).value == pytest.approx((np.abs(v1 - v2) / np.abs(v1))[iu].mean(), rel=1e-9)
    # R: the p(p-1)/2 correlations above the diagonal
    r1, r2 = orig.dropna().corr().to_numpy(), prot.dropna().corr().to_numpy()
    ju = np.triu_indices(p, 1)
    r_mse = measure("r_mse")(pair)
    assert r_mse.value == pytest.approx(((r1 - r2)[ju] ** 2).sum() / (p * (p - 1) / 2), rel=1e-9)
    assert r_mse.by_pair["a|b"] == pytest.approx((r1[0, 1] - r2[0, 1]) ** 2, rel=1e-9)
    assert len(r_mse.by_pair) == 6
    # X̄ and S from each file's available values
    xbar = measure("xbar_mae")(pair)
    assert xbar.value == pytest.approx((orig.mean() - prot.mean()).abs().mean(), rel=1e-9)
    assert xbar.by_variable["c"] == pytest.approx(abs(orig["c"].mean() - prot["c"].mean()), rel=1e-9)
    s = measure("s_mv")(pair)
    assert s.value == pytest.approx(((orig.var() - prot.var()).abs() / orig.var()).mean(), rel=1e-9)
    # X: cells missing in either file are skipped
    diff = orig - prot
    x = measure("x_mse")(pair)
    assert x.value == pytest.approx(np.nansum(diff.to_numpy() ** 2) / diff.notna().to_numpy().sum(), rel=1e-9)
    assert x.by_variable["d"] == pytest.approx((diff["d"] ** 2).mean(), rel=1e-9)
    assert x.details["n_skipped_missing"]["a"] == int(diff["a"].isna().sum())


def test_principal_component_measures_against_numpy():
    orig, prot = random_frames(seed=5)
    pair = encode_pair(orig, prot, continuous_spec(orig.columns))

    def components(df):
        lam, vec = np.linalg.eigh(np.corrcoef(df.to_numpy(), rowvar=False))
        return lam[::-1], vec[:, ::-1]

    l1, v1 = components(orig)
    l2, v2 = components(prot)
    v2 = v2 * np.where((v1 * v2).sum(axis=0) < 0, -1, 1)  # align the arbitrary signs
    p = len(l1)
    rf1, rf2 = v1 * np.sqrt(l1), v2 * np.sqrt(l2)
    assert measure("rf_mae")(pair).value == pytest.approx((l1 * np.abs(rf1 - rf2).sum(axis=0)).sum() / p**2, rel=1e-9)
    assert measure("f_mse")(pair).value == pytest.approx((l1 * ((v1 - v2) ** 2).sum(axis=0)).sum() / p**2, rel=1e-9)
    c = measure("c_mv")(pair)
    c1, c2 = rf1[:, 0] ** 2, rf2[:, 0] ** 2
    assert c.value == pytest.approx(np.mean(np.abs(c1 - c2) / c1), rel=1e-9)
    assert c.by_variable["b"] == pytest.approx(abs(c1[1] - c2[1]) / c1[1], rel=1e-9)


@pytest.mark.parametrize("mid", ["rf_mv", "f_mv"])
def test_component_mean_variation_is_a_weighted_mean_when_original_elements_are_zero(mid):
    # y and z's loadings on a component vanish: the kept elements' weights w_j = λ_j, not their count, divide
    orig = pd.DataFrame({"x": [1.0, 2, 3, 5, 6, 0], "y": [0.0, 0, 1, 1, 3, 3], "z": [2.0, 1, 5, 3, 0, 6]})
    prot = orig.copy()
    prot.loc[0, "x"], prot.loc[4, "z"] = 1.5, 0.7
    pair = encode_pair(orig, prot, continuous_spec(orig.columns))
    lam, vec = [], []
    for df in (orig, prot):
        values, vectors = np.linalg.eigh(np.corrcoef(df.to_numpy(), rowvar=False))
        lam.append(values[::-1])
        vec.append(vectors[:, ::-1])
    vec[1] = vec[1] * np.where((vec[0] * vec[1]).sum(axis=0) < 0, -1, 1)
    a, b = (vec[0] * np.sqrt(lam[0]), vec[1] * np.sqrt(lam[1])) if mid == "rf_mv" else (vec[0], vec[1])
    w = np.broadcast_to(lam[0], a.shape)
    kept = np.abs(a) > 1e-12
    result = measure(mid)(pair)
    assert result.details["n_excluded_zero"] == np.count_nonzero(~kept) > 0
    expected = (w[kept] * np.abs(a - b)[kept] / np.abs(a)[kept]).sum() / w[kept].sum()
    assert result.value == pytest.approx(expected, rel=1e-9)


def test_component_signs_are_aligned_before_comparing():
    orig, _ = random_frames(seed=7)
    # the same correlation structure: all RF/C/F discrepancies vanish whatever signs eigh returns
    prot = orig * 3 + 1
    pair = encode_pair(orig, prot, continuous_spec(orig.columns))
    for mid in ("rf_mae", "c_mae", "f_mae", "rf_mv", "f_mv"):
        assert measure(mid)(pair).value == pytest.approx(0, abs=1e-9), mid
    # a scale change leaves the correlations alone but not the covariances
    assert measure("r_mae")(pair).value == pytest.approx(0, abs=1e-12)
    assert measure("v_mv")(pair).value > 1


# ---------------------------------------------------------------------------
# hand-worked examples
# ---------------------------------------------------------------------------
def test_x_table_by_hand_with_missing_and_zero_cells():
    orig = pd.DataFrame({"x": [0.0, 2, 4, 5], "y": [1.0, 2, 3, np.nan]})
    prot = pd.DataFrame({"x": [1.0, 2, 3, np.nan], "y": [1.0, 4, 3, 3]})
    pair = encode_pair(orig, prot, continuous_spec("xy"))
    # compared cells: x rows 0-2 (diffs 1, 0, 1), y rows 0-2 (diffs 0, 2, 0); 6 cells
    assert measure("x_mse")(pair).value == pytest.approx((1 + 0 + 1 + 0 + 4 + 0) / 6)
    mae = measure("x_mae")(pair)
    assert mae.value == pytest.approx(4 / 6)
    assert mae.by_variable == pytest.approx({"x": 2 / 3, "y": 2 / 3})
    # mean variation: the x cell with original 0 is left out -> 5 cells: 0/2, 1/4, 0/1, 2/2, 0/3
    mv = measure("x_mv")(pair)
    assert mv.value == pytest.approx((0.25 + 1) / 5)
    assert mv.details["n_excluded_zero"] == {"x": 1, "y": 0}
    assert mv.details["n_skipped_missing"] == {"x": 1, "y": 1}
    assert "0" in mv.details["mv_zero_rule"]


def test_v_s_xbar_by_hand():
    # original x = 1, 2, 3 (mean 2, var 1), y = 2, 4, 6 (mean 4, var 4), cov 2
    # protected x = 1, 2, 6 (mean 3, var 7), y = 2, 4, 6, cov(x, y) = (−2·−2 + −1·0 + 3·2)/2 = 5
    orig = pd.DataFrame({"x": [1.0, 2, 3], "y": [2.0, 4, 6]})
    prot = pd.DataFrame({"x": [1.0, 2, 6], "y": [2.0, 4, 6]})
    pair = encode_pair(orig, prot, continuous_spec("xy"))
    assert measure("xbar_mse")(pair).value == pytest.approx((1**2 + 0) / 2)
    assert measure("xbar_mv")(pair).by_variable == pytest.approx({"x": 0.5, "y": 0.0})
    assert measure("s_mae")(pair).value == pytest.approx((6 + 0) / 2)
    # V upper triangle: (1 -> 7), (2 -> 5), (4 -> 4): mae = (6 + 3 + 0)/3, mv = (6 + 1.5 + 0)/3
    assert measure("v_mae")(pair).value == pytest.approx(3.0)
    assert measure("v_mv")(pair).value == pytest.approx(2.5)


def test_mean_variation_is_not_computed_when_every_original_element_is_zero():
    orig = pd.DataFrame({"x": [0.0, 0, 0], "y": [1.0, 2, 3]})
    prot = pd.DataFrame({"x": [1.0, 0, 0], "y": [1.0, 2, 3]})
    pair = encode_pair(orig, prot, continuous_spec("x"))
    with pytest.raises(NotComputed, match="every element of the original's X is 0"):
        measure("x_mv")(pair)
    assert measure("x_mae")(pair).value == pytest.approx(1 / 3)
    with pytest.raises(NotComputed, match="every element of the original's S is 0"):
        measure("s_mv")(pair)  # x is constant: variance 0


# ---------------------------------------------------------------------------
# what cannot be computed
# ---------------------------------------------------------------------------
def test_gamma_names_the_linear_dependency_of_cascrefmicrodata():
    pair = load_pair("CASCrefmicrodata", "noise_additive50")
    with pytest.raises(NotComputed) as exc:
        gamma(pair)
    message = str(exc.value)
    assert message.startswith("the original correlation matrix is singular")
    assert "PTOTVAL, PEARNVAL, POTHVAL are linearly dependent" in message
    assert "AGI" not in message
    with pytest.raises(NotComputed, match="PTOTVAL, PEARNVAL, POTHVAL"):
        eigen(pair)
    # the table's correlation-based rows do not need an inverse: still computed
    assert math.isfinite(measure("r_mae")(pair).value)
    # without PTOTVAL the set is regular
    spec = load_spec(DATA / "CASCrefmicrodata" / "spec.yaml")
    spec.variables.pop("PTOTVAL")
    assert 0 < gamma(load_pair("CASCrefmicrodata", "noise_additive50", spec)).value < 1


def test_eia_year_is_nominal_in_the_spec_and_constant_if_declared_continuous():
    spec = load_spec(DATA / "EIA" / "spec.yaml")
    assert spec.variables["YEAR"].scale == "nominal"  # the spec keeps the constant YEAR out of the moments
    assert 0 <= gamma(load_pair("EIA", "pram_noise20", spec)).value <= 1
    spec.variables["YEAR"].scale = "continuous"  # as with --continuous YEAR
    pair = load_pair("EIA", "pram_noise20", spec)
    for mid in ("gamma", "r_mae", "rf_mae", "eigen", "robust_eigen"):
        with pytest.raises(NotComputed, match="YEAR"):
            measure(mid)(pair)
    with pytest.raises(NotComputed, match="YEAR is constant in the original file"):
        gamma(pair)
    # means and covariances are still fine
    assert math.isfinite(measure("v_mae")(pair).value)
    assert measure("xbar_mae")(pair).by_variable["YEAR"] == 0.0


def test_fewer_than_two_continuous_variables():
    df = pd.DataFrame({"x": [1.0, 2, 3, 5], "g": ["a", "b", "a", "b"]})
    spec = {"variables": {"x": {"scale": "continuous"}, "g": {"scale": "nominal"}}}
    pair = encode_pair(df, df.copy(), spec)
    for mid in ("gamma", "eigen", "robust_eigen", "r_mse", "rf_mse", "c_mse", "f_mse"):
        with pytest.raises(NotComputed, match="at least 2 continuous variables"):
            measure(mid)(pair)
    assert measure("v_mse")(pair).value == 0.0
    only_categorical = encode_pair(df[["g"]], df[["g"]].copy(), {"variables": {"g": {"scale": "nominal"}}})
    for mid in MOMENTS:
        with pytest.raises(NotComputed, match="no continuous variable"):
            measure(mid)(only_categorical)
    with pytest.raises(NotComputed, match="no continuous variable"):
        continuous_statistics(only_categorical)


def test_singular_protected_file_is_named():
    orig, _ = random_frames(seed=2)
    prot = orig.copy()
    prot["d"] = prot["a"] - prot["c"]  # exact dependency in the protected file only
    pair = encode_pair(orig, prot, continuous_spec(orig.columns))
    with pytest.raises(NotComputed, match=r"the protected correlation matrix is singular \(.*are linearly dependent\)"):
        gamma(pair)
    assert math.isfinite(eigen(pair).value)  # only the original's eigenvalues divide


def test_x_needs_paired_records():
    orig, prot = random_frames(n=50)
    pair = encode_pair(orig, prot.iloc[:40], continuous_spec(orig.columns, pairing="none"))
    with pytest.raises(NotComputed, match="paired"):
        measure("x_mae")(pair)
    for mid in ("xbar_mae", "v_mae", "s_mae", "r_mae", "rf_mae", "c_mae", "f_mae", "eigen", "gamma"):
        assert math.isfinite(measure(mid)(pair).value), mid


# ---------------------------------------------------------------------------
# identical files, registry
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("pairing", ["row", "none"])
def test_identical_files_lose_nothing_on_every_moments_measure(pairing):
    orig, _ = random_frames(n=200, seed=11, missing=0.02)
    pair = encode_pair(orig, orig.copy(), continuous_spec(orig.columns, pairing=pairing))
    for mid in MOMENTS:
        if mid.startswith("x_") and pairing == "none":
            continue
        assert measure(mid)(pair).value == pytest.approx(0.0, abs=1e-12), mid


def test_registry_metadata():
    infos = {info.id: info for info in registered() if info.family == "moments"}
    assert set(infos) == set(MOMENTS)
    for mid, info in infos.items():
        assert info.better == "lower" and info.range[0] == 0, mid
        assert info.needs_pairing == mid.startswith("x_"), mid
        assert len(info.description) > 20, mid
        assert info.func.__doc__ and "References" in info.func.__doc__ and ">>>" in info.func.__doc__, mid
    assert infos["gamma"].range == (0, 1)
    assert len({info.description for info in infos.values()}) == len(infos)


# ---------------------------------------------------------------------------
# continuous_statistics
# ---------------------------------------------------------------------------
def test_weighted_statistics_of_a_single_value_are_undefined_like_the_unweighted_ones():
    # one observed value (total weight-count 1): the weighted variance divided 0 by 0 with a RuntimeWarning
    # (found by fuzzing); the mean is the value, the spread undefined, as on the unweighted path
    rng = np.random.default_rng(0)
    orig = pd.DataFrame({"x": rng.normal(50, 10, 40), "y": rng.gamma(2, 100, 40), "w": rng.uniform(1, 3, 40)})
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}, "w": {"role": "weight"}}}
    for o, p in ((orig, orig.assign(x=[1.0] + [np.nan] * 39)), (orig.iloc[:1], orig.iloc[:1].copy())):
        pair = encode_pair(o, p, spec)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            weighted = continuous_statistics(pair)
        plain = continuous_statistics(pair, weighted=False)
        assert weighted["weighted"] is True
        assert weighted["prot"]["n"]["x"] == 1 and weighted["prot"]["mean"]["x"] == p["x"].dropna().iloc[0]
        for key in ("mean_ci", "sd", "variance"):
            assert weighted["prot"][key]["x"] is None is plain["prot"][key]["x"]
        assert weighted["prot"]["cov"] == plain["prot"]["cov"]
        json.dumps(weighted, allow_nan=False)


def test_continuous_statistics_unweighted_against_pandas_and_t_interval():
    from scipy import stats as st

    orig, prot = random_frames(n=120, seed=4, missing=0.05)
    out = continuous_statistics(encode_pair(orig, prot, continuous_spec(orig.columns)))
    assert out["weighted"] is False
    for key, df in (("orig", orig), ("prot", prot)):
        got = out[key]
        for c in df.columns:
            x = df[c].dropna()
            half = st.t.ppf(0.975, len(x) - 1) * x.std() / math.sqrt(len(x))
            assert got["n"][c] == len(x)
            assert got["mean"][c] == pytest.approx(x.mean(), rel=1e-12)
            assert got["mean_ci"][c] == pytest.approx([x.mean() - half, x.mean() + half], rel=1e-10)
            assert got["sd"][c] == pytest.approx(x.std(), rel=1e-12)
        np.testing.assert_allclose(got["cov"], df.dropna().cov().to_numpy(), rtol=1e-10)
        np.testing.assert_allclose(got["corr"], df.dropna().corr().to_numpy(), rtol=1e-10)
    json.dumps(out, allow_nan=False)


def test_weighted_mean_and_variance_are_descrstatsws_bit_for_bit():
    from infoloss.measures._moments_describe import _weighted_mean_var

    rng = np.random.default_rng(4)
    for n in (2, 7, 1000):
        x, w = rng.lognormal(3, 1, n), rng.uniform(0, 400, n)
        w = w * (n / w.sum())
        d = DescrStatsW(x, weights=w, ddof=1)
        assert _weighted_mean_var(x, w) == (d.mean, d.var)


def test_continuous_statistics_weigh_the_records_of_positive_weight_and_both_files_or_neither():
    # records of weight 0 changed the weighted sd, variance, covariance and interval (n counted them); with an
    # unpaired protected file without weights the original alone was weighted (found by the numbers audit)
    orig, prot = random_frames(n=150, seed=11, missing=0.04)
    rng = np.random.default_rng(11)
    orig["w"] = rng.uniform(50, 500, len(orig))
    orig.loc[:9, "w"] = 0.0
    prot["w"] = orig["w"]
    spec = continuous_spec(["a", "b", "c", "d"])
    spec["variables"]["w"] = {"role": "weight"}
    out = continuous_statistics(encode_pair(orig, prot, spec))
    kept = orig["w"] > 0
    for c in "abcd":
        ok = kept & orig[c].notna()
        x, w = orig.loc[ok, c].to_numpy(), orig.loc[ok, "w"].to_numpy()
        d = DescrStatsW(x, weights=w / w.sum() * len(x), ddof=1)
        wls = sm.WLS(x, np.ones_like(x), weights=w).fit(cov_type="HC1")
        half = stats.t.ppf(0.975, len(x) - 1) * float(wls.bse[0])
        assert out["orig"]["variance"][c] == pytest.approx(d.var, rel=1e-10)
        assert out["orig"]["mean_ci"][c] == pytest.approx([wls.params[0] - half, wls.params[0] + half], rel=1e-10)
    cc = orig[kept].dropna()
    cov = DescrStatsW(cc[list("abcd")].to_numpy(), weights=cc["w"].to_numpy() / cc["w"].sum() * len(cc), ddof=1).cov
    np.testing.assert_allclose(out["orig"]["cov"], cov, rtol=1e-10)
    unpaired = continuous_statistics(encode_pair(orig, prot.drop(columns="w"), {**spec, "pairing": "none"}))
    assert unpaired["weighted"] is False and "records_changed" not in unpaired
    assert unpaired["orig"]["mean"]["a"] == pytest.approx(orig["a"].mean(), rel=1e-12)


def test_continuous_statistics_count_the_records_each_variable_changed_in_paired_files():
    orig, prot = random_frames(n=60, seed=12, missing=0.1)
    prot = orig.copy()
    prot.loc[orig.index[orig["a"].notna()][0], "a"] = np.nan  # suppressed
    rows = orig.index[orig["b"].notna()][:2]
    prot.loc[rows, "b"] = prot.loc[rows, "b"] + 1  # changed
    prot.loc[orig["c"].isna().idxmax(), "c"] = 0.0  # a missing value filled in
    out = continuous_statistics(encode_pair(orig, prot, continuous_spec(["a", "b", "c", "d"])))
    assert out["records_changed"] == {"a": 1, "b": 2, "c": 1, "d": 0}


def test_continuous_statistics_weighted_uses_descrstatsw():
    orig, prot = random_frames(n=150, seed=9, missing=0.04)
    rng = np.random.default_rng(9)
    orig["w"] = rng.uniform(50, 500, len(orig))
    prot["w"] = orig["w"]
    spec = continuous_spec(["a", "b", "c", "d"])
    spec["variables"]["w"] = {"role": "weight"}
    out = continuous_statistics(encode_pair(orig, prot, spec))
    assert out["weighted"] is True
    for key, df in (("orig", orig), ("prot", prot)):
        for c in "abcd":
            ok = df[c].notna()
            x, w = df.loc[ok, c].to_numpy(), df.loc[ok, "w"].to_numpy()
            d = DescrStatsW(x, weights=w / w.sum() * len(x), ddof=1)  # weights rescaled to sum to n
            assert out[key]["mean"][c] == pytest.approx(np.average(x, weights=w), rel=1e-12)
            # the interval: t quantile times the HC1 (sandwich) standard error of a WLS fit on a constant,
            # which is the linearisation standard error of survey::svymean
            wls = sm.WLS(x, np.ones_like(x), weights=w).fit(cov_type="HC1")
            half = stats.t.ppf(0.975, len(x) - 1) * float(wls.bse[0])
            assert float(wls.params[0]) == pytest.approx(np.average(x, weights=w), rel=1e-12)
            assert out[key]["mean_ci"][c] == pytest.approx([wls.params[0] - half, wls.params[0] + half], rel=1e-10)
            assert out[key]["variance"][c] == pytest.approx(d.var, rel=1e-10)
        cc = df.dropna()
        cov = DescrStatsW(cc[list("abcd")].to_numpy(), weights=cc["w"].to_numpy() / cc["w"].sum() * len(cc), ddof=1).cov
        np.testing.assert_allclose(out[key]["cov"], cov, rtol=1e-10)
    # multiplying every weight by a constant changes nothing
    orig["w"] *= 1000
    prot["w"] *= 1000
    again = continuous_statistics(encode_pair(orig, prot, spec))
    assert again["orig"]["mean_ci"]["a"] == pytest.approx(out["orig"]["mean_ci"]["a"], rel=1e-10)


def test_continuous_statistics_gives_none_not_nan():
    orig = pd.DataFrame({"x": [1.0, 1, 1, 1], "y": [1.0, 2, np.nan, 4], "z": [np.nan, np.nan, np.nan, 3.0]})
    prot = orig.copy()
    out = continuous_statistics(encode_pair(orig, prot, continuous_spec("xyz")))
    got = out["orig"]
    assert got["n"] == {"x": 4, "y": 3, "z": 1}
    assert got["variance"]["x"] == 0.0 and got["sd"]["z"] is None and got["mean_ci"]["z"] is None
    assert got["mean"]["z"] == 3.0
    # one complete case (row 3): no covariance at all
    assert got["cov"] == [[None] * 3] * 3 and got["corr"] == [[None] * 3] * 3
    json.dumps(out, allow_nan=False)
    const = continuous_statistics(encode_pair(orig[["x", "y"]], prot[["x", "y"]], continuous_spec("xy")))
    assert const["orig"]["corr"][0][1] is None and const["orig"]["corr"][1][1] == 1.0
    json.dumps(const, allow_nan=False)


def test_one_pass_sums_equal_the_group_by_group_sums_bit_for_bit():
    # _total and _element_sums replaced a fold of _Sums.__add__ (quadratic) and a loop of _sums per pair
    from infoloss.measures._moments_table import _element_sums, _Sums, _sums, _total

    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, 500)
    a[::7], a[::11] = 0.0, 1e-13
    b = a + rng.normal(size=500) * 0.01
    labels = [f"p{i}" for i in range(500)]
    fast = _element_sums(a, b, 1e-12, labels)
    slow = [_sums(a[k], b[k], 1e-12, labels=[labels[k]]) for k in range(500)]
    for x, y in zip(slow, fast):
        assert (x.n, x.sq, x.ab, x.n_mv, x.rel, x.w_mv) == (y.n, y.sq, y.ab, y.n_mv, y.rel, y.w_mv)
        assert np.array_equal(x.elements[0], y.elements[0]) and x.elements[2] == y.elements[2]
    groups = [_sums(rng.normal(size=3) * 10.0 ** e, rng.normal(size=3) * 10.0 ** e, 1e-12, labels=list("abc"),
                    w=rng.random(3) if e % 2 else None) for e in range(-150, 150, 13)]
    for g, e in zip(groups, range(-5, 100)):
        g.exp = e % 7 - 3
    x, y = sum(groups, _Sums()), _total(groups)
    assert (x.n, x.sq, x.ab, x.n_mv, x.rel, x.exp, x.w_mv) == (y.n, y.sq, y.ab, y.n_mv, y.rel, y.exp, y.w_mv)
    assert np.array_equal(x.elements[0], y.elements[0]) and x.elements[2] == y.elements[2]


def test_a_constant_variable_with_missing_values_elsewhere_has_covariances_exactly_zero():
    # with a missing value, the complete-case mean of a column of 0.1s was total/n (not exactly 0.1): a variance of
    # 1e-34 was not left out of V's mean variation, whose value became 3e28
    rng = np.random.default_rng(0)
    orig = pd.DataFrame({"c": np.full(50, 0.1), "x": rng.normal(0, 1, 50), "y": rng.normal(5, 2, 50)})
    orig.loc[3, "x"] = np.nan
    prot = orig.assign(c=0.1 + rng.normal(0, 0.01, 50), x=orig["x"] + rng.normal(0, 0.1, 50))
    spec = {"variables": {k: {"scale": "continuous"} for k in "cxy"}}
    got = infoloss.v_mv(orig, prot, spec)
    vo, vp = orig.dropna().cov().to_numpy().copy(), prot.dropna().cov().to_numpy()
    vo[0, :] = vo[:, 0] = 0.0  # a constant has no variance
    a, b = vo[np.triu_indices(3)], vp[np.triu_indices(3)]
    assert got.value == pytest.approx(np.mean(np.abs(a - b)[a != 0] / np.abs(a[a != 0])), rel=1e-12)
    assert got.details["n_excluded_zero"] == 3
    stats = infoloss.compare(orig, prot, spec, measures=["v_mv"], aggregates=False).to_dict()["scenarios"][0]
    assert stats["statistics"]["orig"]["cov"][0] == [0.0, 0.0, 0.0]


def _singular_reason_one_by_one(what, values, vectors, names):
    """The reason as first written: each null vector's variables by falling weight, checked one at a time."""
    top = values.max()
    small = values <= 1e-12 * top
    involved = []
    for k in np.flatnonzero(small):
        v = np.abs(vectors[:, k])
        for i in np.argsort(-v, kind="stable"):
            if v[i] >= 1e-3 * v.max() and names[i] not in involved:
                involved.append(names[i])
    return involved


@pytest.mark.parametrize("seed", range(6))
def test_singular_reason_names_the_dependent_variables_in_the_same_order_as_one_at_a_time(seed):
    from infoloss.numeric import singular_reason

    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(3, 6)), 6  # fewer records than variables: several null vectors
    x = rng.normal(size=(n, p))
    names = [f"v{j}" for j in range(p)]
    values, vectors = np.linalg.eigh(np.corrcoef(x, rowvar=False))
    expected = _singular_reason_one_by_one("m", values, vectors, names)
    assert singular_reason("matrix", values, vectors, names) == \
        f"the matrix is singular ({', '.join(expected)} are linearly dependent)"


def test_singular_reason_of_thousands_of_variables_is_quick_and_one_line():
    # 100 records of 1,500 variables: 1,401 null vectors (a name search per entry took 24 s here, minutes at 3,000)
    from infoloss.numeric import singular_reason

    rng = np.random.default_rng(0)
    names = [f"c{j}" for j in range(1500)]
    values, vectors = np.linalg.eigh(np.corrcoef(rng.normal(size=(100, 1500)), rowvar=False))
    reason = singular_reason("correlation matrix", values, vectors, names)
    assert reason.startswith("the correlation matrix is singular (")
    assert "... 1,494 more variables ..." in reason and len(reason) < 200


def test_complete_case_blocks_are_column_major_and_sum_to_the_bit_as_row_major_ones():
    # the first complete-case pass reduces column-major copies of the complete rows (numpy reduces row-major
    # (k, p) arrays along their rows several times slower), summed as numpy sums the row-major copy, to the bit:
    # the factor analysis of f_mv turns a last-bit change of a mean into 1e-11
    from infoloss.measures._moments_files import _row_sums, _rows_of

    rng = np.random.default_rng(1)
    for k, p in ((70_000, 8), (5, 1), (1_000, 2), (20_000, 30), (3, 3)):
        x = np.asfortranarray(rng.lognormal(0, 2, (k, p)) * rng.choice([1, -1, 1e-8], (k, p)))
        x[rng.random((k, p)) < 0.02] = np.nan
        ok = ~np.isnan(x).any(axis=1)
        rows = _rows_of(x, ok, np.empty_like(x))
        expected = x[ok]
        assert np.array_equal(rows, expected) and rows.strides[0] == 8
        assert np.array_equal(_row_sums(rows), expected.sum(axis=0))
