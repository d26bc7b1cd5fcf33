"""SUDA2 against an exhaustive subset search; l-diversity and t-closeness against direct computations."""

import itertools
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import wasserstein_distance

from infoloss.errors import NotComputed
from infoloss.measures.risk import l_diversity, msu_share, suda_dis, t_closeness
from infoloss.risk.diversity import classes, l_diversity as l_kernel, t_closeness as t_kernel
from infoloss.risk.suda import sdcmicro_hash, suda2


# ---------------------------------------------------------------------------
# SUDA2
# ---------------------------------------------------------------------------
def exhaustive_msus(keys):
    """Every record's MSUs by checking every subset of its observed keys (the definition, O(n^2 2^m))."""
    n, m = keys.shape
    unique = {}
    for size in range(1, m + 1):
        for subset in itertools.combinations(range(m), size):
            sub = keys[:, subset]
            for i in range(n):
                unique[subset, i] = bool((sub[i] >= 0).all() and (sub == sub[i]).all(axis=1).sum() == 1)
    msus = [[] for _ in range(n)]
    for (subset, i), is_unique in unique.items():
        if is_unique and not any(unique[tuple(v for v in subset if v != u), i] for u in subset if len(subset) > 1):
            msus[i].append(subset)
    return msus


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 100_000), st.integers(1, 6), st.integers(2, 45), st.integers(1, 5), st.floats(0, 0.3))
def test_suda2_equals_the_exhaustive_search(seed, m, n, levels, p_missing):
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, levels, size=(n, m))
    keys[rng.random((n, m)) < p_missing] = -1
    msus = exhaustive_msus(keys)
    res = suda2(keys, uniques="exact")
    big_m = m  # uniques="exact" is the published SUDA: M = the number of keys, never padded
    expected_score = [sum(math.factorial(big_m - len(s)) for s in rec) for rec in msus]
    assert res.score.tolist() == expected_score
    assert res.msu.tolist() == [len(rec) for rec in msus]
    by_size = Counter(len(s) for rec in msus for s in rec)
    assert res.msu_by_size.tolist() == [by_size.get(k, 0) for k in range(1, m + 1)]
    total = sum(expected_score)
    if total:
        contrib = [100 * sum(math.factorial(big_m - len(s)) for rec in msus for s in rec if v in s) / total
                   for v in range(m)]
        np.testing.assert_allclose(res.contribution, contrib)


def test_dis_scores_follow_the_published_formula():
    """Dis = U f / (U f + P (1 - f)), Q = 1 + (8 - M)/20, dis_i = 1/(1 + (U/Dis - U)/(s_i^Q sum s_j^-Q))."""
    rng = np.random.default_rng(11)
    keys = rng.integers(0, 3, size=(300, 5))
    res = suda2(keys, uniques="exact", dis_fraction=0.01)
    patterns = Counter(map(tuple, keys))
    u = sum(1 for row in keys if patterns[tuple(row)] == 1)
    p = sum(1 for row in keys if patterns[tuple(row)] == 2)
    assert (res.n_unique, res.n_pair_records) == (u, p)
    f, q = 0.01, 1 + (8 - 5) / 20
    dis = u * f / (u * f + p * (1 - f))
    s = res.score
    adjust = np.sum(s[s > 0] ** -q)
    expected = np.where(s > 0, 1 / (1 + (u / dis - u) / (np.where(s > 0, s, 1) ** q * adjust)), 0.0)
    np.testing.assert_allclose(res.dis, expected, rtol=1e-6)  # sdcMicro's single-precision steps


def test_sdcmicro_counts_uniques_by_hash_bucket():
    keys = np.array([[1, 0, 0], [0, 2, 0], [5, 5, 5], [5, 5, 5]])
    # the hashes of the first two records collide (1*4 = 0*4 + 2*2), so sdcMicro counts neither as unique
    assert sdcmicro_hash(keys[:2]).tolist() == [4, 4]
    res = suda2(keys, hash_values=keys)
    assert (res.n_unique, res.n_unique_exact, res.n_pair_records) == (0, 2, 2)
    assert suda2(keys, uniques="exact").n_unique == 2


def test_dis_table_intervals():
    res = suda2(np.array([[1, 0, 0], [0, 1, 1], [0, 1, 0], [0, 0, 1], [0, 0, 1], [0, 1, 0], [0, 0, 0]]),
                uniques="exact")
    table = res.dis_table()
    assert sum(table) == 7 and table[0] == 4  # four records without an MSU


def test_suda_measures():
    df = pd.DataFrame({"a": [1, 2, 2, 2, 2, 2], "b": [1, 1, 2, 2, 1, 1], "c": [1, 1, 1, 2, 2, 1]})
    spec = {"variables": {v: {"scale": "nominal", "role": "key"} for v in "abc"}}
    r = suda_dis(df, df, spec, uniques="exact")
    assert r.details["records_with_msu"] == 4
    assert r.value == pytest.approx(np.mean(suda2(df.to_numpy() - 1, uniques="exact").dis))
    assert r.details["original"]["value"] == r.value
    assert msu_share(df, df, spec).value == pytest.approx(4 / 6)
    # sdcMicro's hash count finds no unique here: (2, 1) and (1, 3), padded with a dummy 1, both hash to
    # 4a + 2b + 1 = 11; its DIS is undefined (NaN in sdcMicro), and the measure says so
    tiny = pd.DataFrame({"a": [2, 1, 1, 1], "b": [1, 3, 1, 1]})
    spec2 = {"variables": {v: {"scale": "nominal", "role": "key"} for v in "ab"}}
    with pytest.raises(NotComputed, match="uniques=exact"):
        suda_dis(tiny, tiny, spec2)
    assert suda_dis(tiny, tiny, spec2, uniques="exact").value > 0


# ---------------------------------------------------------------------------
# l-diversity and t-closeness
# ---------------------------------------------------------------------------
def direct_l(cls, values, c=2.0):
    out = {"distinct": [], "entropy": [], "recursive": []}
    for i in range(len(cls)):
        members = values[cls == cls[i]]
        observed = Counter(members[members >= 0].tolist())
        n_missing = int((members < 0).sum())
        shares = [v / len(members) for v in observed.values()]
        if observed and n_missing:
            shares.append(n_missing / len(members))
        out["distinct"].append(len(observed) + (1 if observed and n_missing else 0))
        out["entropy"].append(math.exp(-sum(p * math.log(p) for p in shares)))
        r = sorted(observed.values(), reverse=True)
        # recursive (c, l): the largest l with r1 < c (r_l + ... + r_m)
        ell = max([j for j in range(2, len(r) + 1) if r[0] < c * sum(r[j - 1:])] + [1]) if r else 0
        out["recursive"].append(ell)
    return out


@pytest.mark.parametrize("seed", range(25))
def test_l_diversity_against_direct_computation(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 80))
    keys = rng.integers(0, 3, size=(n, 2))
    keys[rng.random((n, 2)) < 0.1] = -1
    values = rng.integers(0, int(rng.integers(1, 6)), n)
    values[rng.random(n) < 0.15] = -1
    cls = classes(keys)
    c = [2.0, 1.0, 3.0, 0.5][seed % 4]
    got = l_kernel(cls, values, c=c)
    expected = direct_l(cls, values, c)
    for kind in expected:
        np.testing.assert_allclose(got[kind], expected[kind], err_msg=kind)


def test_classes_keep_missing_apart():
    cls = classes(np.array([[1, -1], [1, 2], [1, -1]]))
    assert cls[0] == cls[2] != cls[1]


@pytest.mark.parametrize("seed", range(15))
def test_t_closeness_against_scipy_and_direct_emd(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 90))
    cls = classes(rng.integers(0, 4, size=(n, 1)))
    values = rng.integers(0, int(rng.integers(2, 7)), n) * 3  # gaps in the codes: positions are ranks of values
    values[rng.random(n) < 0.1] = -1
    observed = values >= 0
    levels = np.unique(values[observed])
    q = np.array([np.mean(values[observed] == v) for v in levels])
    ordered, nominal = t_kernel(cls, values, ordered=True), t_kernel(cls, values, ordered=False)
    for i in range(n):
        members = values[(cls == cls[i]) & observed]
        if members.size == 0:
            assert ordered[i] == 0 and nominal[i] == 0
            continue
        p = np.array([np.mean(members == v) for v in levels])
        assert nominal[i] == pytest.approx(0.5 * np.abs(p - q).sum())
        pos = np.arange(levels.size)
        emd = wasserstein_distance(pos, pos, p, q) / max(levels.size - 1, 1) if levels.size > 1 else \
            0.5 * np.abs(p - q).sum()
        assert ordered[i] == pytest.approx(emd)


def test_l_diversity_and_t_closeness_measures():
    df = pd.DataFrame({"k": [1, 1, 2, 2, 2, 3], "s": ["x", "x", "x", "y", "z", None], "age": [20, 30, 25, 25, 70, 40]})
    spec = {"variables": {"k": {"scale": "nominal", "role": "key"}, "s": {"scale": "nominal", "role": "sensitive"},
                          "age": {"scale": "continuous", "role": "sensitive"}}}
    r = l_diversity(df, df, spec)
    assert r.by_variable == {"s": pytest.approx(3 / 6), "age": pytest.approx(1 / 6)}  # classes k=1 and k=3 for s
    assert r.value == pytest.approx(0.5)
    assert r.details["by_variable"]["s"]["distinct_counts"] == {"0": 1, "1": 2, "2": 0, "3": 3, "4+": 0}
    assert l_diversity(df, df, spec, kind="entropy", l=1.5).by_variable["s"] == pytest.approx(0.5)
    t = t_closeness(df, df, spec)
    assert set(t.by_variable) == {"s", "age"}
    assert 0 <= t.value <= 1 and t.details["original"]["value"] == t.value
    with pytest.raises(NotComputed, match="no sensitive variables"):
        l_diversity(df, df, {"variables": {"k": {"scale": "nominal", "role": "key"}, "s": {"scale": "nominal"}}})


@pytest.mark.parametrize("m", [3, 6, 7, 10, 20])
def test_a_class_of_m_equally_frequent_values_is_entropy_m_diverse(m):
    # exp(ln 3) is 2.9999999999999996: every record was counted below l = 3 (found by the risk audit)
    df = pd.DataFrame({"k": [1] * m + [2] * m, "s": [f"v{i}" for i in range(m)] * 2})
    spec = {"variables": {"k": {"scale": "nominal", "role": "key"}, "s": {"scale": "nominal", "role": "sensitive"}}}
    assert l_diversity(df, df, spec, kind="entropy", l=float(m)).value == 0.0
    assert l_diversity(df, df, spec, kind="entropy", l=m + 1e-9).value == 1.0


def test_classes_exactly_at_t_are_not_above_it():
    # both classes are at an EMD of exactly 1/5, computed as 0.20000000000000007 (found by the risk audit)
    df = pd.DataFrame({"k": [1] * 5 + [2] * 5, "s": list("xxxxy") + list("xxyyy")})
    spec = {"variables": {"k": {"scale": "nominal", "role": "key"}, "s": {"scale": "nominal", "role": "sensitive"}}}
    assert t_closeness(df, df, spec, t=0.2).details["by_variable"]["s"]["share_above_t"] == 0.0
    assert t_closeness(df, df, spec, t=0.19).details["by_variable"]["s"]["share_above_t"] == 1.0


def test_more_than_15_key_variables_are_a_reason_not_hours_of_search():
    # SUDA2's time doubles with each key variable: 25 keys ran for hours (found by fuzzing)
    import infoloss

    rng = np.random.default_rng(2)
    df = pd.DataFrame({f"k{i}": rng.integers(0, 3, 60) for i in range(16)})
    spec = {"variables": {c: {"scale": "nominal", "role": "key"} for c in df.columns}}
    report = infoloss.compare(df, df.copy(), spec, measures=["suda_dis"], aggregates=False, tables=False)
    assert report.scenarios[0].not_computed["suda_dis"].startswith(
        "SUDA searches every subset of the key variables, and 16 keys would take hours; mark at most 15")


def test_one_or_two_keys_are_padded_only_in_sdcmicros_convention():
    # records: (1,1) unique on {a,b}; (1,2) unique on {b}; (3,1) unique on {a}; (2,1) twice
    keys = np.array([[1, 1], [1, 2], [2, 1], [2, 1], [3, 1]])
    published = suda2(keys, uniques="exact")
    assert published.score.tolist() == [1.0, 1.0, 0.0, 0.0, 1.0]  # (M − |S|)! with M = 2: 0! and 1!
    assert published.q == pytest.approx(1 + (8 - 2) / 20, rel=1e-7) and published.m_used == 2
    padded = suda2(keys)
    assert padded.score.tolist() == [1.0, 2.0, 0.0, 0.0, 2.0]  # M = 3: (3 − 2)! and (3 − 1)!
    assert padded.q == pytest.approx(1 + (8 - 3) / 20, rel=1e-7) and padded.m_used == 3


def test_the_file_dis_without_uniques_or_pairs_is_none_with_a_note():
    import pandas as pd

    import infoloss

    o = pd.DataFrame({"a": list("aabb") * 5, "b": list("xxyy") * 5})
    spec = {"variables": {"a": {"scale": "nominal", "role": "key"}, "b": {"scale": "nominal", "role": "key"}}}
    details = infoloss.suda_dis(o, o, spec).details["original"]
    assert details["Dis"] is None and any("undefined (0/0)" in n for n in details["notes"])
