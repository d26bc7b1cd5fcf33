"""Clustering utility (measures/clustering.py) and the multi-seed cluster_utility, checked against scikit-learn."""

from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics
from sklearn.cluster import KMeans

from infoloss import compare
from infoloss.errors import NotComputed
from infoloss.measures import clustering as cl
from infoloss.measures.propensity import cluster_utility
from infoloss.pair import encode_pair
from infoloss.registry import get, registered
from infoloss.spec import load_spec

DATA = Path(__file__).resolve().parent / "data"
CLUSTER_IDS = [m.id for m in registered() if m.family == "mining" and m.id.startswith("cluster_")]


@pytest.fixture(scope="module")
def tarragona():
    spec = load_spec(DATA / "Tarragona" / "spec.yaml")
    orig = pd.read_csv(DATA / "Tarragona" / "original.csv")
    return orig, spec, {n: pd.read_csv(DATA / "Tarragona" / f"{n}.csv") for n in ("mdav3", "noise_additive25")}


def standardised(orig, df):
    """The clustering space of all-continuous data: the original's mean and (population) sd."""
    return ((df - orig.mean()) / orig.std(ddof=0)).to_numpy()


# ---------------------------------------------------------------------------
# pair counting
# ---------------------------------------------------------------------------
def brute_counts(a, b):
    tp = fp = fn = tn = 0
    for i, j in combinations(range(len(a)), 2):
        same_a, same_b = a[i] == a[j], b[i] == b[j]
        tp += same_a and same_b
        fp += same_b and not same_a
        fn += same_a and not same_b
        tn += not same_a and not same_b
    return tp, fp, fn, tn


def test_pair_counts_and_f_measures_by_brute_force():
    rng = np.random.default_rng(3)
    for _ in range(5):
        a, b = rng.integers(0, 4, 60), rng.integers(0, 3, 60)
        tp, fp, fn, tn = brute_counts(a, b)
        assert cl.pair_counts(a, b) == (tp, fp, fn, tn)
        p, r = tp / (tp + fp), tp / (tp + fn)
        assert cl.f_weighted(a, b, 1.0) == pytest.approx(2 * p * r / (p + r))
        for w in (0.0, 0.5, 2.0):
            assert cl.f_weighted(a, b, w) == pytest.approx((1 + w * w) * p * r / (w * w * p + r))
        assert cl.f_weighted(a, b, 0.0) == pytest.approx(p)  # seed 003: w = 0 gives the precision
        assert (tp + tn) / (tp + fp + fn + tn) == pytest.approx(metrics.rand_score(a, b))
        assert np.sqrt(p * r) == pytest.approx(metrics.fowlkes_mallows_score(a, b))
    assert cl.f_weighted(np.arange(5), np.arange(5)) == 1.0  # no pair together anywhere: the same partition


# ---------------------------------------------------------------------------
# the same numbers as scikit-learn on the same space
# ---------------------------------------------------------------------------
def test_paired_indices_are_scikit_learns(tarragona):
    orig, spec, prot = tarragona
    p = prot["mdav3"]
    pair = encode_pair(orig, p, spec)
    xo, xp = standardised(orig, orig), standardised(orig, p)
    results = {mid: get(mid).func(pair, k=3, seeds=2, seed=4) for mid in CLUSTER_IDS}
    for i, seed in enumerate((4, 5)):
        ko = KMeans(3, n_init=1, random_state=seed, algorithm="lloyd").fit(xo)
        kp = KMeans(3, n_init=1, random_state=seed, algorithm="lloyd").fit(xp)
        lo, lp = ko.labels_, kp.labels_
        expect = {
            "cluster_ari": metrics.adjusted_rand_score(lo, lp),
            "cluster_rand_index": metrics.rand_score(lo, lp),
            "cluster_fowlkes_mallows": metrics.fowlkes_mallows_score(lo, lp),
            "cluster_silhouette_diff": metrics.silhouette_score(xp, lp) - metrics.silhouette_score(xo, lo),
            "cluster_davies_bouldin_diff": metrics.davies_bouldin_score(xp, lp) - metrics.davies_bouldin_score(xo, lo),
        }
        for mid, value in expect.items():
            assert results[mid].details["seeds"]["values"][i] == pytest.approx(value, abs=1e-10), mid
        # records of both files assigned to the original's nearest centroid
        ao = np.argmin(((xo[:, None, :] - ko.cluster_centers_[None]) ** 2).sum(-1), axis=1)
        ap = np.argmin(((xp[:, None, :] - ko.cluster_centers_[None]) ** 2).sum(-1), axis=1)
        po, pp = np.bincount(ao, minlength=3) / len(ao), np.bincount(ap, minlength=3) / len(ap)
        tvd = results["cluster_proportion_distance"].details["seeds"]["values"][i]
        assert tvd == pytest.approx(0.5 * np.abs(po - pp).sum(), abs=1e-12)
        reached = [j for j in range(3) if (ao == j).any() and (ap == j).any()]
        shift = [np.linalg.norm(xp[ap == j].mean(0) - xo[ao == j].mean(0)) for j in reached]
        expected = np.average(shift, weights=[(ao == j).sum() for j in reached])
        assert results["cluster_centroid_shift"].details["seeds"]["values"][i] == pytest.approx(expected, rel=1e-9)
    f = results["cluster_f_measure"]
    assert f.value == pytest.approx(np.mean(f.details["seeds"]["values"]))
    assert f.details["precision"]["mean"] >= f.value or f.details["recall"]["mean"] >= f.value
    assert results["cluster_silhouette_diff"].details["silhouette_original"]["values"][0] == pytest.approx(
        metrics.silhouette_score(xo, KMeans(3, n_init=1, random_state=4, algorithm="lloyd").fit(xo).labels_))


def test_k_is_the_best_silhouette_on_the_original(tarragona):
    orig, spec, prot = tarragona
    r = cl.cluster_ari(orig, prot["noise_additive25"], spec, seeds=1)
    x = standardised(orig, orig)  # 834 records: all of them are used to choose k
    scores = {k: metrics.silhouette_score(x, KMeans(k, n_init=1, random_state=0, algorithm="lloyd").fit(x).labels_)
              for k in range(2, 9)}
    assert r.details["k"] == max(scores, key=scores.get)
    assert r.details["k_silhouettes"] == pytest.approx(scores)


def test_the_space_of_mixed_data():
    orig = pd.DataFrame({"x": [1.0, 2.0, 3.0, np.nan, 5.0, 6.0], "g": ["a", "b", "a", "c", None, "b"],
                         "o": [1, 2, 3, 1, 2, 3], "k": ["z"] * 6})
    prot = orig.assign(g=["a", "b", "new", "c", "a", None], x=[1.0, 2.0, 3.0, 4.0, 5.0, 60.0])
    spec = {"variables": {"x": {"scale": "continuous"}, "g": {"scale": "nominal"}, "o": {"scale": "ordinal"},
                          "k": {"scale": "nominal"}}}
    pair = encode_pair(orig, prot, spec)
    sp = cl.space(pair)
    assert sp.variables == ["x", "o", "g"]  # k is constant in the original
    xo, xp = cl.embed(pair, sp, "orig", None), cl.embed(pair, sp, "prot", None)
    ok = orig.x.dropna()
    z = (orig.x - ok.mean()) / ok.std(ddof=0)
    np.testing.assert_allclose(xo[:, 0], z.fillna(0.0))
    np.testing.assert_allclose(xo[:, 1], (orig.o - orig.o.mean()) / orig.o.std(ddof=0))
    np.testing.assert_array_equal(xo[:, 2:], [[1, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 1, 0]])
    np.testing.assert_array_equal(xp[:, 2:], [[1, 0, 0], [0, 1, 0], [0, 0, 0], [0, 0, 1], [1, 0, 0], [0, 0, 0]])
    assert xp[5, 0] == pytest.approx((60 - ok.mean()) / ok.std(ddof=0))  # the original's scaling


# ---------------------------------------------------------------------------
# identity, protection strength, unpaired files, seeds
# ---------------------------------------------------------------------------
def test_identical_files_give_the_ideal_exactly():
    orig = pd.read_csv(DATA / "testdata" / "original.csv")
    spec = load_spec(DATA / "testdata" / "spec.yaml")
    pair = encode_pair(orig, orig.copy(), spec)
    for m in registered():
        if m.id in CLUSTER_IDS:
            result = m.func(pair, seeds=2)
            assert result.value == m.ideal, m.id
            assert result.details["seeds"]["sd"] == 0.0


def test_stronger_protection_does_not_cluster_better(tarragona):
    orig, spec, prot = tarragona
    cache: dict = {}
    ari = {}
    for name in ("noise_additive25", "mdav3"):
        pair = encode_pair(orig, prot[name], spec, original_cache=cache)
        ari[name] = cl.cluster_ari(pair, k=3).details["seeds"]
    testdata = pd.read_csv(DATA / "testdata" / "original.csv")
    spec_t = load_spec(DATA / "testdata" / "spec.yaml")
    for name in ("ls_k3", "recode_mdav3_ls_k3"):
        pair = encode_pair(testdata, pd.read_csv(DATA / "testdata" / f"{name}.csv"), spec_t, original_cache=cache)
        ari[name] = cl.cluster_ari(pair).details["seeds"]
    for strong, weak in (("mdav3", "noise_additive25"), ("recode_mdav3_ls_k3", "ls_k3")):
        assert ari[strong]["mean"] <= ari[weak]["mean"] + 2 * max(ari[strong]["sd"], ari[weak]["sd"])
    assert all(r["max"] <= 1 for r in ari.values())


def test_unpaired_files_use_the_original_clusters(testdata_half_subsample):
    pair, orig, sub = testdata_half_subsample
    half = cl.cluster_proportion_distance(pair, seeds=2)
    assert half.value < 0.05  # a random half keeps the cluster shares
    assert half.details["records_clustered"] == {"original": len(orig), "protected": len(sub)}
    shifted = sub.assign(income=sub.income * 3, expend=sub.expend * 3)
    worse = cl.cluster_centroid_shift(orig, shifted, pair.spec, seeds=2)
    assert worse.value > cl.cluster_centroid_shift(pair, seeds=2).value
    report = compare(orig, sub, pair.spec, measures=["cluster_ari", "cluster_silhouette_diff"],
                     options={"cluster_ari": {"seeds": 1}, "cluster_silhouette_diff": {"seeds": 1}}, aggregates=False)
    assert "record-paired" in report.scenarios[0].not_computed["cluster_ari"]
    assert "cluster_silhouette_diff" in report.scenarios[0].measures


def test_an_unpaired_copy_larger_than_max_records_is_sampled_at_the_same_records():
    """Files of equal size are sampled at the same record numbers, paired or not: a copy gives exactly 0."""
    rng = np.random.default_rng(4)
    orig = pd.DataFrame({"x": np.r_[rng.normal(0, 1, 400), rng.normal(6, 1, 400)], "y": rng.normal(size=800),
                         "g": rng.choice(list("abc"), 800)})
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}, "g": {"scale": "nominal"}},
            "pairing": "none"}
    pair = encode_pair(orig, orig.copy(), spec)
    for func in (cl.cluster_silhouette_diff, cl.cluster_davies_bouldin_diff, cl.cluster_proportion_distance,
                 cl.cluster_centroid_shift):
        r = func(pair, max_records=300, seeds=2)
        assert r.value == 0.0 and r.details["sampled"], func.__name__
        assert "same record numbers" in r.details["sample"]
    # files of different sizes: each its own sample
    other = cl.cluster_proportion_distance(orig, orig.iloc[:700], spec, max_records=300, seeds=2)
    assert "same record numbers" not in other.details["sample"]


def test_a_nominal_variable_beyond_the_model_limit_groups_its_rare_categories(monkeypatch):
    """Above limits.MAX_MODEL_LEVELS categories, the 0/1 columns are the most frequent original categories and one
    shared column: the same clustering as scikit-learn's KMeans on that space built by hand."""
    from infoloss import limits

    monkeypatch.setattr(limits, "MAX_MODEL_LEVELS", 4)
    rng = np.random.default_rng(6)
    n = 300
    g = rng.choice(list("abcdefg"), n, p=[0.3, 0.25, 0.2, 0.1, 0.05, 0.05, 0.05])
    orig = pd.DataFrame({"x": rng.normal(size=n) + 3 * (g == "a"), "g": g})
    prot = orig.assign(x=orig.x + rng.normal(scale=0.3, size=n))
    spec = {"variables": {"x": {"scale": "continuous"}, "g": {"scale": "nominal"}}}
    r = cl.cluster_ari(orig, prot, spec, k=3, seeds=1)
    assert "7 categories" in r.details["grouped"]["g"] and "other 4" in r.details["grouped"]["g"]

    def by_hand(df):
        z = (df["x"] - orig["x"].mean()) / orig["x"].std(ddof=0)
        return np.column_stack([z] + [df["g"] == c for c in "abc"] + [df["g"].isin(list("defg"))]).astype(float)

    lo = KMeans(3, n_init=1, random_state=0, algorithm="lloyd").fit(by_hand(orig)).labels_
    lp = KMeans(3, n_init=1, random_state=0, algorithm="lloyd").fit(by_hand(prot)).labels_
    assert r.value == pytest.approx(metrics.adjusted_rand_score(lo, lp), abs=1e-12)


def test_large_files_are_sampled_per_seed():
    rng = np.random.default_rng(0)
    orig = pd.DataFrame({"x": np.r_[rng.normal(0, 1, 600), rng.normal(8, 1, 600)], "y": rng.normal(size=1200)})
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}}}
    r = cl.cluster_rand_index(orig, orig + rng.normal(0, 0.1, orig.shape), spec, max_records=500, seeds=3)
    assert r.details["sampled"] and r.details["records_clustered"] == {"original": 500, "protected": 500}
    assert "same record numbers" in r.details["sample"]
    assert r.details["k"] == 2 and r.value > 0.95
    assert len(r.details["seeds"]["values"]) == 3


def test_reasons_instead_of_tracebacks():
    same = pd.DataFrame({"x": [1.0] * 10, "g": ["a"] * 10, "h": [1.0, 2.0] * 5})
    spec = {"variables": {"x": {"scale": "continuous"}, "g": {"scale": "nominal"}}}
    with pytest.raises(NotComputed, match="constant in the original"):
        cl.cluster_ari(same, same, spec)
    two = {"variables": {"h": {"scale": "continuous"}}}
    with pytest.raises(NotComputed, match="more than the 2 distinct original records"):
        cl.cluster_ari(same, same, two, k=3)
    collapsed = same.assign(h=1.0)  # the protected file has one distinct record: one cluster
    with pytest.raises(NotComputed, match="fewer than two clusters"):
        cl.cluster_silhouette_diff(same, collapsed, two, k=2)
    assert cl.cluster_ari(same, collapsed, two, k=2).value == 0.0


def test_cluster_utility_reports_its_seed_spread(tarragona):
    orig, spec, prot = tarragona
    r = cluster_utility(orig, prot["mdav3"], spec)
    seeds = r.details["seeds"]
    assert len(seeds["values"]) == 5 and seeds["seeds"] == [0, 1, 2, 3, 4]
    assert r.value == pytest.approx(np.mean(seeds["values"]))
    assert seeds["max"] > 1.5 * seeds["min"] and seeds["sd"] > 0  # it does vary with the k-means start
    single = [cluster_utility(orig, prot["mdav3"], spec, seed=s, seeds=1).value for s in range(5)]
    assert seeds["values"] == pytest.approx(single)


CLUSTER_IDS = [m.id for m in registered() if m.id.startswith("cluster_") and m.id != "cluster_utility"]


def test_two_records_give_reasons_not_a_traceback():
    # scikit-learn's Davies-Bouldin index takes 2 to n - 1 clusters: with 2 records and k = 2 it raised
    orig = pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]})
    prot = orig.iloc[::-1].reset_index(drop=True)
    rep = compare(orig, prot, measures=CLUSTER_IDS)
    s = rep.scenarios[0]
    assert "as many clusters as records" in s.not_computed["cluster_davies_bouldin_diff"]
    assert set(s.measures) | set(s.not_computed) == set(CLUSTER_IDS)


def test_protected_file_with_fewer_records_than_clusters_is_not_computed():
    orig = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0, 5.0]})
    prot = pd.DataFrame({"a": [1.0]})
    rep = compare(orig, prot, spec={"variables": {"a": {"scale": "continuous"}}, "pairing": "none"},
                  measures=["cluster_silhouette_diff", "cluster_centroid_shift"])
    for mid in ("cluster_silhouette_diff", "cluster_centroid_shift"):
        assert rep.scenarios[0].not_computed[mid] == "the protected file has 1 record, fewer than the k = 2 clusters"


def test_fowlkes_mallows_of_two_identical_all_singleton_clusterings_is_one():
    # two records, k = 2: every cluster a singleton in both files; scikit-learn's 0/0 gave 0 (the worst)
    import pandas as pd

    from infoloss.measures.clustering import cluster_ari, cluster_fowlkes_mallows

    orig = pd.DataFrame({"x": [0.0, 10.0]})
    spec = {"variables": {"x": {"scale": "continuous"}}, "pairing": "row"}
    assert cluster_fowlkes_mallows(orig, orig.copy(), spec, k=2).value == 1.0
    assert cluster_ari(orig, orig.copy(), spec, k=2).value == 1.0


def test_f_measures_of_two_all_singleton_clusterings_are_1_like_fowlkes_mallows():
    from infoloss.measures.clustering import f_weighted

    one_each = np.array([0, 1, 2])
    assert f_weighted(one_each, np.array([5, 6, 7])) == 1.0 == f_weighted(one_each, np.array([5, 6, 7]), 0.5)
    assert f_weighted(one_each, np.array([0, 0, 1])) == 0.0  # FP 1: a pair together in one only
