"""fk/Fk with the missing-value wildcard, individual, global and household risk: against brute force and by hand."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infoloss.errors import NotComputed
from infoloss.measures.risk import (
    expected_reidentifications,
    global_risk,
    household_risk,
    k_anonymity_violations,
    sample_uniques,
)
from infoloss.pair import ORIGINAL, PROTECTED, encode_pair
from infoloss.risk.files import file_risk
from infoloss.risk.freq import frequencies, group_ids, household_risk as hh_kernel, individual_risk


# ---------------------------------------------------------------------------
# brute force: sdcMicro's freqCalc rules, one pair of records at a time
# ---------------------------------------------------------------------------
def brute_frequencies(keys, weights=None, alpha=1.0):
    """O(n^2) fk/Fk following freqCalc's rules as documented (not the implementation's pattern grouping)."""
    keys = np.asarray(keys)
    n, m = keys.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    fk, Fk = np.zeros(n), np.zeros(n)
    missing = keys < 0
    for i in range(n):
        if missing[i].all():
            fk[i], Fk[i] = n, w.sum()
            continue
        for r in range(n):
            if r != i and missing[r].all() and not missing[i].any() and m > 1:
                continue  # sdcMicro: with 2+ keys, records with every key missing do not count for complete records
            both = ~missing[i] & ~missing[r]
            if not (keys[i, both] == keys[r, both]).all():
                continue
            # identical patterns count fully; other matches via a missing value count alpha
            same = (keys[i] == keys[r]).all()
            a = 1.0 if (same or not missing[r].any()) else alpha
            fk[i] += a
            Fk[i] += a * w[r]
    return fk, Fk


def random_keys(rng, n, m, levels, p_missing, p_all_missing=0.05):
    keys = rng.integers(0, levels, size=(n, m))
    keys[rng.random((n, m)) < p_missing] = -1
    keys[rng.random(n) < p_all_missing] = -1
    return keys


@pytest.mark.parametrize("seed", range(40))
def test_frequencies_equal_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(2, 60)), int(rng.integers(1, 6))
    keys = random_keys(rng, n, m, int(rng.integers(1, 5)), rng.random() * 0.4)
    w = rng.uniform(1, 20, n)
    alpha = [1.0, 0.5, 0.0][seed % 3]
    fk, Fk = frequencies(keys, w, alpha=alpha)
    bf, bF = brute_frequencies(keys, w, alpha)
    np.testing.assert_allclose(fk, bf, rtol=0, atol=1e-9)
    np.testing.assert_allclose(Fk, bF, rtol=1e-12)


def test_frequencies_without_missing_are_plain_counts():
    keys = np.array([[1, 1], [1, 1], [1, 2], [2, 2]])
    fk, Fk = frequencies(keys, np.array([1.0, 2.0, 3.0, 4.0]))
    assert fk.tolist() == [2, 2, 1, 1]
    assert Fk.tolist() == [3, 3, 3, 4]


def test_sdcmicro_test_vectors():
    """The expectations of sdcMicro's own tests (tests/testthat/test_freqCalc.R), read as data."""
    w = np.array([18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51])
    a, b = [2, 3, 2, 2, 3, 3, 1, 2], [3, 3, 3, 3, 3, 3, 4, 3]
    fk, Fk = frequencies(np.array([a, b, [1, 3, -1, 2, 1, 1, -1, 1]]).T, w)
    assert fk.tolist() == [3, 1, 4, 2, 2, 2, 1, 3]
    assert Fk.tolist() == [108.0, 45.5, 125.0, 56.0, 100.0, 100.0, 123.5, 108.0]
    fk, Fk = frequencies(np.array([[2, 3, -1, 2, 3, 3, 1, 2], [3, 3, -1, 3, 3, 3, 4, 3], [-1] * 8]).T, w)
    assert fk.tolist() == [4, 4, 8, 4, 4, 4, 2, 4]
    assert Fk.tolist() == [125.0, 184.5, 394.0, 125.0, 184.5, 184.5, 162.5, 125.0]


def test_wildcard_is_the_conventions_rule_when_no_record_is_all_missing():
    """conventions.md §2: r counts for i when, for every key, r_v = i_v or either is missing."""
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 3, size=(50, 3))
    keys[rng.random((50, 3)) < 0.2] = -1
    keys[(keys < 0).all(axis=1), 0] = 0
    fk, _ = frequencies(keys)
    for i in range(50):
        expected = sum(all(keys[i, v] == keys[r, v] or keys[i, v] < 0 or keys[r, v] < 0 for v in range(3))
                       for r in range(50))
        assert fk[i] == expected


def test_group_ids_overflowing_radix():
    cols = np.random.default_rng(0).integers(0, 2**40, size=(200, 4))
    cols[100:] = cols[:100]
    ids, g = group_ids(cols)
    assert g == 100
    assert (ids[:100] == ids[100:]).all()


# ---------------------------------------------------------------------------
# monotonicity: suppressing a key value never raises fk-based risk
# ---------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 5), st.integers(5, 60))
def test_suppressing_a_key_value_never_raises_risk(seed, m, n):
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, 3, size=(n, m))
    keys[rng.random((n, m)) < 0.15] = -1
    keys[(keys < 0).all(axis=1), 0] = 1
    fk, _ = frequencies(keys)
    i, v = int(rng.integers(n)), int(rng.integers(m))
    if keys[i, v] < 0 or (keys[i] >= 0).sum() == 1:
        return  # nothing to suppress, or the record would have every key missing (see the next test)
    after = keys.copy()
    after[i, v] = -1
    fk_after, _ = frequencies(after)
    assert (fk_after >= fk).all()
    assert (1 / fk_after).sum() <= (1 / fk).sum() + 1e-12


def test_sdcmicro_quirk_a_record_suppressed_entirely_stops_counting_for_complete_records():
    """With 2+ keys sdcMicro does not count all-missing records for complete ones: suppressing the last
    observed value of a record lowers the fk of the complete records it matched (kept for exactness)."""
    keys = np.array([[1, 1], [1, 1], [1, -1]])
    fk, _ = frequencies(keys)
    assert fk.tolist() == [3, 3, 3]
    keys[2, 0] = -1
    fk, _ = frequencies(keys)
    assert fk.tolist() == [2, 2, 3]


# ---------------------------------------------------------------------------
# individual, global and household risk
# ---------------------------------------------------------------------------
def test_individual_risk_formulas_by_hand():
    fk = np.array([1.0, 2.0, 5.0, 3.0, 1.5])
    Fk = np.array([4.0, 10.0, 50.0, 3.0, 9.0])
    r = individual_risk(fk, Fk, weighted=True)
    p = 0.25
    assert r[0] == pytest.approx(p / (1 - p) * math.log(1 / p))
    p = 0.2
    assert r[1] == pytest.approx(p / (1 - p) - (p / (1 - p)) ** 2 * math.log(1 / p))
    p = 0.1
    assert r[2] == pytest.approx(p / (5 - (1 - p)))
    assert r[3] == pytest.approx(1 / 3)  # fk = Fk
    assert r[4] == 0.0  # sdcMicro leaves non-integer fk below 2 at 0
    assert individual_risk(fk, Fk, weighted=False).tolist() == pytest.approx((1 / fk).tolist())


def test_household_risk_against_a_loop():
    rng = np.random.default_rng(2)
    risk = rng.random(40)
    hh = rng.integers(0, 12, 40)
    got = hh_kernel(risk, hh)
    for i in range(40):
        assert got[i] == pytest.approx(1 - np.prod(1 - risk[hh == hh[i]]))


def frame():
    return pd.DataFrame({
        "a": [1, 1, 2, 2, 3, 3, 3, 4],
        "b": ["x", "x", "y", "y", "x", "x", "y", "y"],
        "w": [10.0, 20.0, 5.0, 5.0, 8.0, 2.0, 30.0, 1.0],
        "hh": [1, 1, 2, 2, 3, 3, 4, 4],
    })


SPEC = {"variables": {"a": {"scale": "nominal", "role": "key"}, "b": {"scale": "nominal", "role": "key"},
                      "w": {"role": "weight"}, "hh": {"role": "household"}}}


def test_global_risk_and_expected_reidentifications_weighted():
    df = frame()
    prot = df.copy()
    prot.loc[6, "b"] = None  # (3, missing) now matches records 4 and 5
    r = global_risk(df, prot, SPEC)
    fk = np.array([2, 2, 2, 2, 3, 3, 3, 1], dtype=float)
    Fk = np.array([30, 30, 10, 10, 40, 40, 40, 1.0])
    expected = individual_risk(fk, Fk, True)
    assert r.details["expected_reidentifications"] == pytest.approx(expected.sum())
    assert r.value == pytest.approx(expected.mean())
    orig = individual_risk(np.array([2, 2, 2, 2, 2, 2, 1, 1.0]), np.array([30, 30, 10, 10, 10, 10, 30, 1.0]), True)
    assert r.details["original"]["value"] == pytest.approx(orig.mean())
    assert expected_reidentifications(df, prot, SPEC).value == pytest.approx(expected.sum())
    assert r.details["weighted"] == {"protected": True, "original": True}


def test_k_anonymity_and_sample_uniques():
    df = frame()
    r = k_anonymity_violations(df, df, SPEC)
    assert r.value == 8  # every class has fewer than 3 records
    assert r.details["by_k"]["2"] == {"unweighted": 2, "weighted": 1, "share": 0.25}
    assert r.details["by_k"]["5"]["weighted"] == 1  # Fk: 30, 30, 10, 10, 10, 10, 30, 1
    assert sample_uniques(df, df, SPEC).value == 0.25
    assert k_anonymity_violations(df, df, SPEC, k=2).value == 2


def test_zero_weights_leave_the_counts_and_stop_only_the_risk_of_that_file():
    # record 3 weighs 0: its key class has Fk = 0, so its individual risk is not finite; fk and Fk still count
    orig = pd.DataFrame({"k": [1, 1, 2, 3, 3, 3], "hh": [1, 1, 2, 3, 3, 4], "w": [5.0, 5, 0, 5, 5, 5]})
    prot = orig.assign(w=5.0)
    spec = {"variables": {"k": {"scale": "nominal", "role": "key"}, "hh": {"role": "household"},
                          "w": {"role": "weight"}}}
    for p in (prot, orig):
        r = k_anonymity_violations(orig, p, spec)
        assert r.value == 3 and r.details["original"]["by_k"]["3"] == {"unweighted": 3, "weighted": 1, "share": 0.5}
        assert sample_uniques(orig, p, spec).value == pytest.approx(1 / 6)
    for measure in (global_risk, expected_reidentifications, household_risk):
        r = measure(orig, prot, spec)  # the protected file's risk stands; the original's is said to be missing
        assert math.isfinite(r.value) and "sum to 0 (zero weights)" in r.details["original"]["not_computed"]
        with pytest.raises(NotComputed, match="individual risk of the protected file is undefined"):
            measure(orig, orig, spec)
        # weights below 1 (Fk < fk) give "risks" above 1: undefined too (global risk was 230 with weights 1e-100)
        with pytest.raises(NotComputed, match=r"weights below 1, while sampling weights are at least 1"):
            measure(orig, prot.assign(w=0.5), spec)
    expected = individual_risk(np.array([2, 2, 1, 3, 3, 3]), np.full(6, 5.0) * [2, 2, 1, 3, 3, 3], weighted=True)
    assert global_risk(orig, prot, spec).value == pytest.approx(expected.mean(), rel=1e-12)


def test_household_risk_measure_and_its_reasons():
    df = frame()
    r = household_risk(df, df, SPEC)
    risk = file_risk(encode_pair(df, df, SPEC), ORIGINAL).risk
    hh = df["hh"].to_numpy()
    expected = np.array([1 - np.prod(1 - risk[hh == h]) for h in hh])
    assert r.value == pytest.approx(expected.mean())
    assert r.details["expected_reidentifications"] == pytest.approx(expected.sum())
    no_hh = {"variables": {k: v for k, v in SPEC["variables"].items() if k != "hh"}}
    with pytest.raises(NotComputed, match="household id"):
        household_risk(df.drop(columns="hh"), df.drop(columns="hh"), no_hh)


def test_household_level_variable_that_differs_within_a_household_is_a_reason():
    df = frame()
    df.loc[5, "b"], df.loc[7, "b"] = "y", "x"  # households 3 and 4 now mix x and y
    spec = {"variables": {**SPEC["variables"], "b": {"scale": "nominal", "role": "key", "level": "household"}}}
    with pytest.raises(NotComputed, match="household-level variable 'b'") as exc:
        household_risk(df, df, spec)
    assert "2 households" in str(exc.value)
    assert household_risk(frame(), frame(), spec).value > 0  # constant within every household


def test_no_key_variables_is_a_reason():
    df = frame()
    spec = {"variables": {"a": {"scale": "nominal"}, "b": {"scale": "nominal"}}}
    with pytest.raises(NotComputed, match="no key variables"):
        global_risk(df, df, spec)


def test_a_removed_key_variable_is_a_wildcard_in_the_protected_file():
    df = frame()
    spec = {"variables": {**SPEC["variables"], "b": {"scale": "nominal", "role": "key", "removed": True}}}
    pair = encode_pair(df, df.drop(columns="b"), spec)
    fk = file_risk(pair, PROTECTED).fk
    assert fk.tolist() == [2, 2, 2, 2, 3, 3, 3, 1]  # classes of 'a' alone


def test_the_original_is_computed_once_for_all_scenarios(monkeypatch):
    import infoloss
    from infoloss.risk import files

    calls = []
    real = files.frequencies

    def counting(keys, weights=None, *, alpha=1.0):
        calls.append(keys.shape[0])
        return real(keys, weights, alpha=alpha)

    monkeypatch.setattr(files, "frequencies", counting)
    df = frame()
    scenarios = [df.assign(a=df["a"].where(df.index != i)) for i in range(3)]
    infoloss.compare(df, scenarios, SPEC, measures=["global_risk", "sample_uniques", "k_anonymity_violations"],
                     aggregates=False, statistics=False)
    assert len(calls) == 1 + 3  # the original once, each protected file once
