"""Interval disclosure, record linkage, exact copies and DCR: against brute force with scipy."""

import warnings
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import cdist
from statsmodels.robust.covariance import cov_gk, cov_ogk
from statsmodels.robust.scale import mad

from infoloss.errors import NotComputed
from infoloss.measures.risk_distance import (
    dcr_holdout,
    exact_copies,
    interval_disclosure,
    interval_disclosure_robust,
    record_linkage,
)
import infoloss.risk.distance as distance_module
from infoloss.risk.distance import gk_covariance, linkage, nearest_distances, robust_interval_disclosure

SPEC = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}, "g": {"scale": "nominal"}}}


def frames(seed=0, n=60, noise=0.3):
    rng = np.random.default_rng(seed)
    orig = pd.DataFrame({"x": rng.normal(size=n), "y": rng.lognormal(size=n), "g": rng.choice(list("abc"), n)})
    prot = orig.copy()
    prot["x"] += rng.normal(scale=noise, size=n)
    prot["y"] *= np.exp(rng.normal(scale=noise, size=n))
    return orig, prot


def test_interval_disclosure_against_a_loop():
    orig, prot = frames(1)
    prot.loc[3, "y"] = np.nan
    r = interval_disclosure(orig, prot, SPEC, k=0.2)
    x, xm = orig[["x", "y"]].to_numpy(), prot[["x", "y"]].to_numpy()
    sd = np.nanstd(xm, axis=0, ddof=1)
    inside = [all(np.isnan(xm[i, j]) or abs(x[i, j] - xm[i, j]) <= 0.2 * sd[j] for j in range(2)) for i in range(60)]
    assert r.value == pytest.approx(np.mean(inside))
    assert r.details["original"]["value"] == 1.0


def test_robust_interval_disclosure_against_direct_computation():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(80, 3))
    x[:4] += 6  # outliers get wide intervals
    xm = x + rng.normal(scale=0.05, size=x.shape)
    res = robust_interval_disclosure(x, xm, k=0.5, k2=0.05)
    zs = (x - x.mean(0)) / x.std(0, ddof=1)
    zm = (xm - xm.mean(0)) / xm.std(0, ddof=1)
    inv = np.linalg.inv(cov_ogk(zs).cov)
    rmd = np.sqrt([z @ inv @ z for z in zs]) * 0.05
    risk1 = [any(zs[i, j] - 0.5 * rmd[i] < zm[i, j] < zs[i, j] + 0.5 * rmd[i] for j in range(3)) for i in range(80)]
    d = cdist(zm, zm)
    np.fill_diagonal(d, np.inf)
    risk2 = [risk1[i] and d[i].min() > 0.05 for i in range(80)]
    assert res["risk1"] == pytest.approx(np.mean(risk1))
    assert res["risk2"] == pytest.approx(np.mean(risk2))
    assert res["wrisk1"] == pytest.approx(sum(risk1) * rmd[np.array(risk1)].sum() / 80)
    again = robust_interval_disclosure(x, xm, k=0.5, k2=0.05)
    assert again["risk1"] == res["risk1"]  # deterministic: no random subsets


@pytest.mark.parametrize("n, p, discrete", [(7, 1, False), (8, 2, False), (101, 6, False), (400, 25, False),
                                             (300, 12, True)])
def test_gk_covariance_is_statsmodels_cov_gk(n, p, discrete):
    # each variable's pairs in one block; statsmodels loops over the pairs (x*x for an array against pow() for a
    # scalar: the last bit may differ)
    rng = np.random.default_rng(n + p)
    z = rng.standard_t(3, size=(n, p)) * rng.uniform(0.1, 10, size=p)
    if discrete:  # ties at the medians
        z = np.round(z, 1)
    expected = cov_gk(z, scale_func=mad)
    np.testing.assert_allclose(gk_covariance(z, scale_func=mad), expected, rtol=1e-12, atol=1e-12 * np.abs(expected).max())
    np.testing.assert_allclose(cov_ogk(z, cov_func=gk_covariance).cov, cov_ogk(z).cov, rtol=1e-12,
                               atol=1e-12 * np.abs(expected).max())


@pytest.mark.parametrize("missing, fits", [(False, 1), (True, 2)])
def test_robust_interval_disclosure_fits_the_original_once_when_both_use_the_same_records(missing, fits):
    # the pair and the original against itself use the original's complete records: one robust fit serves both
    orig, prot = frames(5, n=80)
    if missing:
        prot.loc[[2, 9], "y"] = np.nan  # the pair then uses fewer records than the original against itself
    calls = []
    real = distance_module._robust_covariance

    def counted(zs, names):
        calls.append(zs.shape)
        return real(zs, names)

    with mock.patch.object(distance_module, "_robust_covariance", counted):
        r = interval_disclosure_robust(orig, prot, SPEC)
    assert len(calls) == fits
    direct = robust_interval_disclosure(orig[["x", "y"]].to_numpy(), orig[["x", "y"]].to_numpy())
    assert r.details["original"]["value"] == direct["value"]


def test_robust_interval_disclosure_measure():
    orig, prot = frames(2)
    r = interval_disclosure_robust(orig, prot, SPEC)
    assert 0 <= r.value <= 1 and r.details["records_used"] == 60
    assert {"risk2", "wrisk1", "wrisk2"} <= set(r.details)


def test_robust_interval_disclosure_of_linearly_dependent_variables_is_not_computed():
    # CASCrefmicrodata: PTOTVAL = PEARNVAL + POTHVAL; the robust distances of a singular covariance are undefined
    # (the value used to depend on the order of the columns)
    folder = Path(__file__).parent / "data" / "CASCrefmicrodata"
    orig, prot = pd.read_csv(folder / "original.csv"), pd.read_csv(folder / "noise_additive50.csv")
    for columns in (list(orig.columns), list(np.random.default_rng(2).permutation(orig.columns))):
        spec = {"variables": {c: {"scale": "continuous"} for c in columns}, "pairing": "row"}
        with pytest.raises(NotComputed, match=r"singular \((?=.*PTOTVAL)(?=.*POTHVAL)(?=.*PEARNVAL).*linearly dependent"):
            interval_disclosure_robust(orig[columns], prot[columns], spec)


def test_robust_interval_disclosure_of_a_variable_mostly_one_value_says_why_and_what_still_applies():
    x = np.array([[1, 1, 1, 1, 1, 1, 2, 3.0], [4, 5, 6, 7, 8, 9, 1, 2]]).T
    with pytest.raises(NotComputed, match=r"singular \(a variable holding one value in over half the records.*"
                                          r"interval_disclosure, without the robust covariance, still applies"):
        robust_interval_disclosure(x, x * 0.9)


@pytest.mark.parametrize("ties", ["share", "own"])
def test_linkage_against_brute_force(ties):
    rng = np.random.default_rng(5)
    o = rng.integers(0, 4, size=(50, 2)).astype(float)  # many ties
    p = o + rng.choice([0.0, 0.0, 1.0], size=o.shape)
    d = cdist(p, o)
    expected = []
    for i in range(50):
        best = np.isclose(d[i], d[i].min())
        expected.append((1.0 / best.sum() if ties == "share" else 1.0) if best[i] else 0.0)
    assert linkage(o, p, ties=ties)["value"] == pytest.approx(np.mean(expected))


def test_a_file_compared_with_itself_links_every_record_and_is_at_distance_zero():
    orig, _ = frames(6)
    r = record_linkage(orig, orig.copy(), SPEC)
    assert r.value == 1.0 and r.details["original"]["value"] == 1.0
    spec = dict(SPEC, pairing="none")
    dcr = dcr_holdout(orig, orig.copy(), spec, seeds=3)
    assert dcr.details["dcr_protected"] == {"median": 0.0, "q05": 0.0, "zero_share": 1.0}
    assert dcr.value == pytest.approx(1.0)  # every record closer than any holdout record (no duplicates)
    assert exact_copies(orig, orig.copy(), spec).value == 1.0


def test_record_linkage_measure_standardises_by_the_original():
    orig, prot = frames(7, noise=0.05)
    r = record_linkage(orig, prot, SPEC)
    x = orig[["x", "y"]].to_numpy()
    z = lambda a: (a - x.mean(0)) / x.std(0, ddof=1)  # noqa: E731
    d = cdist(z(prot[["x", "y"]].to_numpy()), z(x))
    assert r.value == pytest.approx(np.mean(d.argmin(axis=1) == np.arange(60)))
    with pytest.raises(NotComputed, match="continuous"):
        record_linkage(orig[["g"]], prot[["g"]], {"variables": {"g": {"scale": "nominal"}}})


def test_exact_copies_against_a_set():
    orig, _ = frames(8)
    synth = orig.sample(frac=1.0, random_state=1).reset_index(drop=True)
    synth.loc[::3, "x"] += 1.0
    r = exact_copies(orig, synth, dict(SPEC, pairing="none"))
    rows = set(map(tuple, orig.astype(str).to_numpy()))
    assert r.value == pytest.approx(np.mean([tuple(row) in rows for row in synth.astype(str).to_numpy()]))


def test_dcr_holdout_probability_against_brute_force():
    """With one seed and no sampling: P(DCR_prot < DCR_hold) + P(=)/2 over all pairs, distances by cdist."""
    orig, _ = frames(9, n=50)
    synth, _ = frames(10, n=40)
    r = dcr_holdout(orig, synth, dict(SPEC, pairing="none"), seeds=1, holdout=0.2)
    feats = lambda df, ref: np.column_stack(  # noqa: E731
        [(df["x"] - ref["x"].mean()) / ref["x"].std(), (df["y"] - ref["y"].mean()) / ref["y"].std()]
        + [np.sqrt(0.5) * (df["g"] == c) for c in "abc"])
    fo, fs = feats(orig, orig), feats(synth, orig)
    held = np.zeros(50, dtype=bool)
    held[np.random.default_rng(0).choice(50, 10, replace=False)] = True
    d_prot = cdist(fs, fo[~held]).min(axis=1)  # both against the rest of the original
    d_hold = cdist(fo[held], fo[~held]).min(axis=1)
    prob = np.mean([(dp < dh) + 0.5 * (dp == dh) for dp in d_prot for dh in d_hold])
    assert r.value == pytest.approx(prob)
    assert r.details["by_seed"] == [pytest.approx(prob)]


def test_dcr_holdout_reports_its_spread_over_seeds():
    orig, _ = frames(11, n=80)
    synth, _ = frames(12, n=80)
    r = dcr_holdout(orig, synth, dict(SPEC, pairing="none"))
    assert len(r.details["by_seed"]) == 5
    assert r.details["min"] <= r.value <= r.details["max"] and r.details["sd"] >= 0
    assert 0.2 < r.value < 0.8  # two samples of one distribution: about as close as genuine records


def test_dcr_holdout_of_new_records_from_the_same_population_is_one_half():
    # few variables make the density of the reference matter: measured against the whole original (a larger,
    # denser reference than the holdout's) new records scored 0.533 at 20 % held out and 0.565 at 50 %
    rng = np.random.default_rng(100)
    spec = {"variables": {v: {"scale": "continuous"} for v in "xyz"}, "pairing": "none"}
    values = []
    for _ in range(4):
        orig, new = (pd.DataFrame(rng.normal(size=(3000, 3)), columns=list("xyz")) for _ in range(2))
        values += dcr_holdout(orig, new, spec, holdout=0.5).details["by_seed"]
    assert np.mean(values) == pytest.approx(0.5, abs=0.012)


def test_record_linkage_searches_every_original_record_also_those_whose_protected_record_lost_a_value():
    """A local suppression does not shrink the intruder's search: protected record 0 is nearer to original
    record 1 (whose protected x was suppressed) than to its own, so 2 of the 3 linked records are correct."""
    orig = pd.DataFrame({"x": [0, 0.01, 5, 9], "y": [1, 1, 2, 3.0]})
    prot = pd.DataFrame({"x": [0.02, np.nan, 5.1, 9.2], "y": [1, 1, 2.1, 3.1]})
    r = record_linkage(orig, prot, {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}}})
    assert r.value == pytest.approx(2 / 3)
    assert r.details["records_used"] == 3 and r.details["candidates"] == 4


@pytest.mark.parametrize("seed", [0, 1])
def test_record_linkage_with_missing_values_against_brute_force(seed):
    orig, prot = frames(seed, n=300, noise=0.4)
    rng = np.random.default_rng(seed + 10)
    orig.loc[rng.choice(300, 15, replace=False), "x"] = np.nan
    prot.loc[rng.choice(300, 40, replace=False), "y"] = np.nan
    x, xm = orig[["x", "y"]].to_numpy(), prot[["x", "y"]].to_numpy()
    z = lambda a: (a - np.nanmean(x, 0)) / np.nanstd(x, 0, ddof=1)  # noqa: E731
    candidates = np.flatnonzero(~np.isnan(x).any(axis=1))
    linked = np.flatnonzero(~np.isnan(x).any(axis=1) & ~np.isnan(xm).any(axis=1))
    d = cdist(z(xm[linked]), z(x[candidates]))
    expected = np.mean(candidates[d.argmin(axis=1)] == linked)
    assert record_linkage(orig, prot, SPEC).value == pytest.approx(expected)
    rows = np.sort(np.random.default_rng(0).choice(linked.size, 100, replace=False))  # seed 0's sample
    sampled = record_linkage(orig, prot, SPEC, max_records=100, seeds=2)
    assert sampled.details["by_seed"][0] == pytest.approx(np.mean(candidates[d[rows].argmin(axis=1)] == linked[rows]))


def test_record_linkage_is_not_computed_under_nearest_pairing_and_il1s_scales_by_the_whole_original():
    rng = np.random.default_rng(14)
    orig = pd.DataFrame({"k": rng.choice(list("ab"), 120), "x": rng.normal(10, 3, 120), "y": rng.normal(0, 1, 120)})
    prot = pd.DataFrame({"k": rng.choice(list("ab"), 90), "x": rng.normal(10, 3, 90), "y": rng.normal(0, 1, 90)})
    orig.loc[[5, 6, 7, 8], "y"] = np.nan
    spec = {"variables": {"k": {"scale": "nominal", "role": "key"}, "x": {"scale": "continuous"},
                          "y": {"scale": "continuous"}}, "pairing": "nearest"}
    with pytest.raises(NotComputed, match="nearest"):
        record_linkage(orig, prot, spec)
    import infoloss
    from infoloss.nearest import nearest_records
    from infoloss.pair import encode_pair

    r = infoloss.il1s(orig, prot, spec)
    matched = orig.iloc[nearest_records(encode_pair(orig, prot, spec))["index"]].reset_index(drop=True)
    sd = orig[["x", "y"]].std(ddof=1)  # the whole original's, not the matched records' (repeats, gaps)
    assert r.details["sd"] == pytest.approx(sd.to_dict(), rel=1e-12)
    per_variable = [np.nanmean(np.abs(matched[c] - prot[c]) / (np.sqrt(2) * sd[c])) for c in ("x", "y")]
    assert r.value == pytest.approx(np.mean(per_variable), rel=1e-12)


def test_record_linkage_on_samples_reports_the_spread():
    orig, prot = frames(13, n=400, noise=0.2)
    exact = record_linkage(orig, prot, SPEC).value
    sampled = record_linkage(orig, prot, SPEC, max_records=150, seeds=4)
    assert sampled.details["sampled"] and len(sampled.details["by_seed"]) == 4
    assert abs(sampled.value - exact) < 4 * sampled.details["sd"] + 0.05
    x = orig[["x", "y"]].to_numpy()
    z = (x - x.mean(0)) / x.std(0, ddof=1)
    zp = (prot[["x", "y"]].to_numpy() - x.mean(0)) / x.std(0, ddof=1)
    rows = np.sort(np.random.default_rng(0).choice(400, 150, replace=False))
    d = cdist(zp[rows], z)
    assert sampled.details["by_seed"][0] == pytest.approx(np.mean(d.argmin(axis=1) == rows))


def test_the_original_linked_with_itself_ties_identical_records():
    orig = pd.DataFrame({"x": [1.0, 1.0, 2.0, 3.0], "y": [0.0, 0.0, 1.0, 1.0]})
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}}}
    r = record_linkage(orig, orig, spec)
    assert r.value == pytest.approx((0.5 + 0.5 + 1 + 1) / 4) and r.details["original"]["value"] == r.value
    assert record_linkage(orig, orig, spec, ties="own").value == 1.0


def test_dcr_holdout_original_value_is_that_of_a_copy():
    orig = pd.DataFrame({"g": list("aabbccddeeffgghh") * 3, "x": [1.0] * 48})
    spec = {"variables": {"g": {"scale": "nominal"}, "x": {"scale": "continuous"}}, "pairing": "none"}
    r = dcr_holdout(orig, orig.copy(), spec, seeds=2)
    assert r.value == pytest.approx(r.details["original"]["value"])
    assert r.details["dcr_holdout"]["zero_share"] == 1.0 and r.value == 0.5  # every holdout record has a twin


def test_nearest_distances_are_exact_in_many_dimensions():
    """Above 15 dimensions scikit-learn searches by brute force (|q|² - 2q·r + |r|²); equal points must still be
    at exactly 0 and equal distances equal, as scipy's cdist computes them from the differences."""
    rng = np.random.default_rng(3)
    ref = np.column_stack([rng.normal(size=(300, 4)) * 1e3, np.sqrt(0.5) * (rng.integers(0, 2, (300, 30)))])
    queries = np.vstack([ref[::7], ref[::11] + 0.25, np.sqrt(0.5) * rng.integers(0, 2, (20, 34))])
    got = nearest_distances(ref, queries)
    want = cdist(queries, ref).min(axis=1)
    assert (got[: ref[::7].shape[0]] == 0.0).all()
    assert got == pytest.approx(want, rel=1e-12, abs=0)


def test_nearest_distances_check_a_doubtful_neighbour_exactly():
    """If the search returns a point a hair away while an equal point exists, the distance is still 0."""
    ref = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 1.0 + 1e-9]])

    class Nearest:  # a search that returns the near point instead of the equal one
        def __init__(self, **kwargs):
            pass

        def fit(self, reference):
            return self

        def kneighbors(self, queries, return_distance=True):
            return np.array([[2]])

    with mock.patch("sklearn.neighbors.NearestNeighbors", Nearest):
        assert nearest_distances(ref, np.array([[1.0, 1.0]])).tolist() == [0.0]
        assert nearest_distances(ref, np.array([[1.0, 1.0 + 2e-9]]))[0] == pytest.approx(1e-9)


def test_dcr_holdout_of_a_large_copy_is_the_originals_own_value():
    """Above ten times max_records the reference is a sample; a copy's sampled records are drawn from it, so
    every one is at distance 0 (paired or not), and duplicated records tie with holdout twins."""
    rng = np.random.default_rng(5)
    n = 2_500
    orig = pd.DataFrame({"x": np.round(rng.normal(size=n), 1), "g": rng.choice(list("abc"), n)})
    for pairing in ("row", "none"):
        spec = {"variables": {"x": {"scale": "continuous"}, "g": {"scale": "nominal"}}, "pairing": pairing}
        r = dcr_holdout(orig, orig.copy(), spec, max_records=100, seeds=3)
        assert r.details["dcr_protected"]["zero_share"] == 1.0
        zero = r.details["dcr_holdout"]["zero_share"]
        assert 0 < zero < 1  # some holdout records have a twin in a reference of 1,000 records
        assert r.value == pytest.approx(r.details["original"]["value"], rel=1e-12)
        assert r.value == pytest.approx(1 - zero / 2, rel=1e-12)


def test_interval_disclosure_leaves_out_a_variable_suppressed_in_every_record():
    """No standard deviation, so its comparisons are left out (sdcMicro's na.rm), without a numpy warning."""
    orig, prot = frames(14)
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = interval_disclosure(orig[["x", "y"]], prot[["x", "y"]].assign(y=np.nan), spec)
    only_x = interval_disclosure(orig[["x"]], prot[["x"]], {"variables": {"x": {"scale": "continuous"}}})
    assert r.value == only_x.value
    one_left = prot[["x", "y"]].assign(y=np.nan)
    one_left.loc[0, "y"] = 1.0  # one value: still no standard deviation
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert interval_disclosure(orig[["x", "y"]], one_left, spec).value == only_x.value


def test_dcr_holdout_with_many_categories_uses_sparse_points_with_the_same_result(monkeypatch):
    """Above SPARSE_COLUMNS one-hot columns the points are CSR: the same distances, so the same value."""
    from infoloss.risk import distance

    rng = np.random.default_rng(15)
    n = 400
    orig = pd.DataFrame({"x": rng.normal(size=n), "code": [f"c{i}" for i in rng.integers(0, 150, n)],
                         "g": rng.choice(list("ab"), n)})
    synth = orig.sample(frac=1.0, random_state=2).reset_index(drop=True)
    synth.loc[::2, "x"] += rng.normal(scale=0.2, size=len(synth.loc[::2]))
    synth.loc[::5, "code"] = "c7"
    spec = {"variables": {"x": {"scale": "continuous"}, "code": {"scale": "nominal"}, "g": {"scale": "nominal"}},
            "pairing": "none"}
    monkeypatch.setattr(distance, "SPARSE_COLUMNS", 10_000)
    dense = dcr_holdout(orig, synth, spec, seeds=2)
    monkeypatch.setattr(distance, "SPARSE_COLUMNS", 0)
    sparse = dcr_holdout(orig, synth, spec, seeds=2)
    assert sparse.value == pytest.approx(dense.value, rel=1e-12)
    assert sparse.details["dcr_protected"] == pytest.approx(dense.details["dcr_protected"], rel=1e-12)
    assert sparse.details["dcr_holdout"] == pytest.approx(dense.details["dcr_holdout"], rel=1e-12)
    copy = dcr_holdout(orig, orig.copy(), spec, seeds=2)
    assert copy.details["dcr_protected"]["zero_share"] == 1.0


@pytest.mark.parametrize("with_continuous", [True, False])
def test_sparse_points_are_the_dense_points(monkeypatch, with_continuous):
    # the CSR points are built as two blocks (they were one scipy matrix per variable: 3,000 variables, 0.4 s a call)
    from infoloss.risk import distance
    from infoloss.risk.distance import MixedFeatures

    rng = np.random.default_rng(17)
    n = 60
    x = rng.normal(size=n)
    x[::7] = np.nan
    continuous = [(x, x + 1.0), (rng.normal(size=n), rng.normal(size=n))] if with_continuous else []
    categorical = []
    for k in (2, 5, 30):
        o, p = rng.integers(-1, k, n).astype(np.int32), rng.integers(-1, k, n).astype(np.int32)
        categorical.append((o, p, k))
    features = MixedFeatures(continuous, categorical)
    rows = np.sort(rng.choice(n, 40, replace=False))
    for which in (0, 1):
        monkeypatch.setattr(distance, "SPARSE_COLUMNS", 10_000)
        dense = features(which, rows)
        monkeypatch.setattr(distance, "SPARSE_COLUMNS", 0)
        points = features(which, rows)
        assert points.has_sorted_indices and points.shape == dense.shape
        np.testing.assert_array_equal(points.toarray(), dense)
        assert points.nnz == np.count_nonzero(dense)


def test_nearest_distances_on_sparse_points_are_cdists():
    from scipy import sparse as sp

    rng = np.random.default_rng(16)
    ref = np.column_stack([rng.normal(size=(200, 2)), np.sqrt(0.5) * np.eye(40)[rng.integers(0, 40, 200)]])
    queries = np.vstack([ref[::9], ref[1::9] + 0.1])
    got = nearest_distances(sp.csr_matrix(ref), sp.csr_matrix(queries))
    assert (got[: ref[::9].shape[0]] == 0.0).all()
    assert got == pytest.approx(cdist(queries, ref).min(axis=1), rel=1e-12, abs=0)


def test_robust_interval_disclosure_with_one_continuous_variable():
    """statsmodels' OGK gives one variable's covariance as a scalar; it was not computed with numpy's
    '0-dimensional array given' as the reason (found by fuzzing)."""
    import infoloss

    rng = np.random.default_rng(0)
    o = pd.DataFrame({"g": rng.choice(list("abc"), 40), "x": rng.normal(50, 10, 40)})
    spec = {"variables": {"g": {"scale": "nominal", "role": "key"}, "x": {"scale": "continuous"}}}
    report = infoloss.compare(o, o.assign(x=o.x + 1), spec, measures=["interval_disclosure_robust"])
    assert report.scenarios[0].not_computed == {}
    assert 0.0 <= report.value("interval_disclosure_robust") <= 1.0


def _copies_by_set(orig_cols, prot_cols):
    """Brute force: a protected record is a copy when its tuple of values (NaN as one token, -0.0 as 0.0) is an
    original record's."""
    def key(cols, i):
        return tuple("nan" if isinstance(c[i], float) and np.isnan(c[i]) else float(c[i]) + 0.0 for c in cols)

    rows = {key(orig_cols, i) for i in range(orig_cols[0].shape[0])}
    return np.array([key(prot_cols, i) in rows for i in range(prot_cols[0].shape[0])])


@pytest.mark.parametrize("seed", range(4))
def test_copied_rows_against_a_set_with_missing_values_and_signed_zeros(seed):
    from infoloss.risk.distance import copied_rows

    rng = np.random.default_rng(seed)
    n = 400
    x = rng.choice([0.0, -0.0, 1.5, np.nan, 2.25], n)
    y = rng.choice([np.nan, 3.0, -1.0], n)
    g = rng.integers(-1, 3, n)  # category codes, -1 missing
    orig = [x, y, g]
    take = rng.integers(0, n, 300)
    prot = [x[take].copy(), y[take].copy(), g[take].copy()]
    prot[0][::4] = -prot[0][::4]  # -0.0 for 0.0 and the reverse: still copies; other values change
    prot[2][::7] = 5  # a category no original record has
    got = copied_rows(orig, prot)
    assert np.array_equal(got, _copies_by_set(orig, prot))
    assert 0 < got.sum() < got.size


def test_copied_rows_decides_hash_collisions_exactly():
    from infoloss.risk import distance

    rng = np.random.default_rng(5)
    orig = [rng.choice([0.0, 1.0, np.nan], 200), rng.integers(0, 4, 200)]
    prot = [rng.choice([0.0, -0.0, 1.0, np.nan, 7.0], 150), rng.integers(0, 5, 150)]
    expected = _copies_by_set(orig, prot)
    with mock.patch.object(distance.pd.util, "hash_array", lambda a: np.zeros(a.shape[0], dtype=np.uint64)):
        got = distance.copied_rows(orig, prot)  # every record collides with every other
    assert np.array_equal(got, expected) and 0 < got.sum() < got.size


def test_exact_copies_measure_with_missing_values_equals_a_join_of_the_frames():
    rng = np.random.default_rng(9)
    n = 500
    orig = pd.DataFrame({"x": rng.choice([0.5, 1.5, np.nan], n), "y": rng.choice([1.0, 2.0, 3.0], n),
                         "g": rng.choice(["a", "b", None], n)})
    synth = orig.sample(n=300, replace=True, random_state=2).reset_index(drop=True)
    synth.loc[::5, "y"] = 4.0
    synth.loc[::9, "g"] = "c"
    r = exact_copies(orig, synth, dict(SPEC, pairing="none"))
    keys = orig.drop_duplicates().assign(_hit=True)
    joined = synth.merge(keys, on=["x", "y", "g"], how="left")  # pandas joins NaN (and None) keys to each other
    assert r.details["copies"] == int(joined["_hit"].notna().sum())
    assert r.value == pytest.approx(joined["_hit"].notna().mean())
