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
# brute force, one pair of records at a time: the published wildcard and sdcMicro's freqCalc rules
# ---------------------------------------------------------------------------
def brute_wildcard(keys, weights=None, alpha=1.0):
    """O(n^2) fk/Fk of conventions.md section 2: r counts for i when, for every key, r_v = i_v or either is missing.

    A match counts 1 when r has i's pattern (missing values included) or no missing value, alpha otherwise.
    """
    keys = np.asarray(keys)
    n, m = keys.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    fk, Fk = np.zeros(n), np.zeros(n)
    for i in range(n):
        for r in range(n):
            if all(keys[i, v] == keys[r, v] or keys[i, v] < 0 or keys[r, v] < 0 for v in range(m)):
                a = 1.0 if (keys[r] == keys[i]).all() or (keys[r] >= 0).all() else alpha
                fk[i] += a
                Fk[i] += a * w[r]
    return fk, Fk


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


BRUTE = {"wildcard": brute_wildcard, "sdcmicro": brute_frequencies}


def random_keys(rng, n, m, levels, p_missing, p_all_missing=0.05):
    keys = rng.integers(0, levels, size=(n, m))
    keys[rng.random((n, m)) < p_missing] = -1
    keys[rng.random(n) < p_all_missing] = -1
    return keys


@pytest.mark.parametrize("missing_keys", ["wildcard", "sdcmicro"])
@pytest.mark.parametrize("seed", range(40))
def test_frequencies_equal_brute_force(seed, missing_keys):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(2, 60)), int(rng.integers(1, 6))
    keys = random_keys(rng, n, m, int(rng.integers(1, 5)), rng.random() * 0.4, p_all_missing=0.1)
    w = rng.uniform(1, 20, n)
    alpha = [1.0, 0.5, 0.0][seed % 3]
    fk, Fk = frequencies(keys, w, alpha=alpha, missing_keys=missing_keys)
    bf, bF = BRUTE[missing_keys](keys, w, alpha)
    np.testing.assert_allclose(fk, bf, rtol=0, atol=1e-9)
    np.testing.assert_allclose(Fk, bF, rtol=1e-12)


def test_the_default_is_the_wildcard_and_differs_from_sdcmicro_only_through_all_missing_records():
    rng = np.random.default_rng(11)
    keys = random_keys(rng, 80, 3, 3, 0.2, p_all_missing=0.1)
    assert (keys < 0).all(axis=1).sum() >= 2 and (keys >= 0).all(axis=1).sum() >= 10
    w = rng.uniform(1, 9, 80)
    for alpha in (1.0, 0.3):
        np.testing.assert_allclose(frequencies(keys, w, alpha=alpha)[0], brute_wildcard(keys, w, alpha)[0], atol=1e-12)
        wild, sdc = frequencies(keys, w, alpha=alpha), frequencies(keys, w, alpha=alpha, missing_keys="sdcmicro")
        assert (np.abs(wild[0] - sdc[0]) > 0.1).any()
        # the same without the records whose keys are all missing
        keep = ~(keys < 0).all(axis=1)
        for a, b in zip(frequencies(keys[keep], w[keep], alpha=alpha),
                        frequencies(keys[keep], w[keep], alpha=alpha, missing_keys="sdcmicro")):
            np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="missing_keys must be one of wildcard, sdcmicro"):
        frequencies(keys, missing_keys="sdc")


def test_the_audit_example_by_hand():
    """Keys (1,1), (1,1), (2,5), (NA,NA): the all-missing record matches everybody; sdcMicro counts it for nobody."""
    keys = np.array([[1, 1], [1, 1], [2, 5], [-1, -1]])
    w = np.array([2.0, 3.0, 5.0, 7.0])
    fk, Fk = frequencies(keys, w)
    assert fk.tolist() == [3, 3, 2, 4] and Fk.tolist() == [12, 12, 12, 17]
    fk, Fk = frequencies(keys, w, missing_keys="sdcmicro")
    assert fk.tolist() == [2, 2, 1, 4] and Fk.tolist() == [5, 5, 5, 17]
    # alpha = 0.5: the all-missing record counts 0.5 for the others; it counts the complete ones fully
    fk, Fk = frequencies(keys, w, alpha=0.5)
    assert fk.tolist() == [2.5, 2.5, 1.5, 4] and Fk.tolist() == [8.5, 8.5, 8.5, 17]
    # sdcMicro: fk = n for it whatever alpha; the wildcard with a partial record: 1 + 2 + 1 complete, 0.5 partial
    keys2 = np.array([[1, 1], [1, 1], [2, -1], [-1, -1]])
    assert frequencies(keys2, alpha=0.5)[0].tolist() == [2.5, 2.5, 1.5, 3.5]
    assert frequencies(keys2, alpha=0.5, missing_keys="sdcmicro")[0].tolist() == [2, 2, 1.5, 4]


def test_alpha_weighs_only_matches_between_different_patterns():
    """Identical patterns are aggregated and count fully, missing values or not (sdcMicro's freqCalc)."""
    keys = np.array([[1, -1], [1, -1], [1, 2]])
    for missing_keys in ("wildcard", "sdcmicro"):
        fk, Fk = frequencies(keys, np.array([1.0, 2.0, 4.0]), alpha=0.5, missing_keys=missing_keys)
        assert fk.tolist() == [3, 3, 2]  # record 0: itself, record 1 (same pattern) and record 2 (complete); 2: 1 + 2 x 0.5
        assert Fk.tolist() == [7, 7, 5.5]


def test_frequencies_without_missing_are_plain_counts():
    keys = np.array([[1, 1], [1, 1], [1, 2], [2, 2]])
    fk, Fk = frequencies(keys, np.array([1.0, 2.0, 3.0, 4.0]))
    assert fk.tolist() == [2, 2, 1, 1]
    assert Fk.tolist() == [3, 3, 3, 4]


def test_sdcmicro_test_vectors():
    """The expectations of sdcMicro's own tests (tests/testthat/test_freqCalc.R), read as data."""
    w = np.array([18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51])
    a, b = [2, 3, 2, 2, 3, 3, 1, 2], [3, 3, 3, 3, 3, 3, 4, 3]
    fk, Fk = frequencies(np.array([a, b, [1, 3, -1, 2, 1, 1, -1, 1]]).T, w, missing_keys="sdcmicro")
    assert fk.tolist() == [3, 1, 4, 2, 2, 2, 1, 3]
    assert Fk.tolist() == [108.0, 45.5, 125.0, 56.0, 100.0, 100.0, 123.5, 108.0]
    fk, Fk = frequencies(np.array([[2, 3, -1, 2, 3, 3, 1, 2], [3, 3, -1, 3, 3, 3, 4, 3], [-1] * 8]).T, w,
                         missing_keys="sdcmicro")
    assert fk.tolist() == [4, 4, 8, 4, 4, 4, 2, 4]
    assert Fk.tolist() == [125.0, 184.5, 394.0, 125.0, 184.5, 184.5, 162.5, 125.0]


def test_wildcard_is_the_conventions_rule():
    """conventions.md §2: r counts for i when, for every key, r_v = i_v or either is missing (records with every
    key missing included); sdcMicro's freqCalc agrees when no record has every key missing."""
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 3, size=(50, 3))
    keys[rng.random((50, 3)) < 0.2] = -1
    keys[:3] = -1
    fk, _ = frequencies(keys)
    for i in range(50):
        expected = sum(all(keys[i, v] == keys[r, v] or keys[i, v] < 0 or keys[r, v] < 0 for v in range(3))
                       for r in range(50))
        assert fk[i] == expected
    assert (fk != frequencies(keys, missing_keys="sdcmicro")[0]).any()
    keys[(keys < 0).all(axis=1), 0] = 0
    np.testing.assert_array_equal(frequencies(keys)[0], frequencies(keys, missing_keys="sdcmicro")[0])


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
    """With the default wildcard (alpha = 1) even the last observed value of a record may go."""
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, 3, size=(n, m))
    keys[rng.random((n, m)) < 0.15] = -1
    keys[rng.random(n) < 0.1] = -1
    fk, _ = frequencies(keys)
    i, v = int(rng.integers(n)), int(rng.integers(m))
    if keys[i, v] < 0:
        return  # nothing to suppress
    after = keys.copy()
    after[i, v] = -1
    fk_after, _ = frequencies(after)
    assert (fk_after >= fk).all()
    assert (1 / fk_after).sum() <= (1 / fk).sum() + 1e-12
    if (keys[i] >= 0).sum() > 1:  # sdcMicro's rule too, unless the record ends with every key missing
        sdc, sdc_after = frequencies(keys, missing_keys="sdcmicro")[0], frequencies(after, missing_keys="sdcmicro")[0]
        assert (sdc_after >= sdc).all()


def test_sdcmicro_quirk_a_record_suppressed_entirely_stops_counting_for_complete_records():
    """With 2+ keys sdcMicro does not count all-missing records for complete ones: suppressing the last
    observed value of a record lowers the fk of the complete records it matched (missing_keys="sdcmicro");
    the wildcard keeps counting it."""
    keys = np.array([[1, 1], [1, 1], [1, -1]])
    for missing_keys in ("wildcard", "sdcmicro"):
        assert frequencies(keys, missing_keys=missing_keys)[0].tolist() == [3, 3, 3]
    keys[2, 0] = -1
    assert frequencies(keys, missing_keys="sdcmicro")[0].tolist() == [2, 2, 3]
    assert frequencies(keys)[0].tolist() == [3, 3, 3]


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

    def counting(keys, weights=None, *, alpha=1.0, missing_keys="wildcard"):
        calls.append(keys.shape[0])
        return real(keys, weights, alpha=alpha, missing_keys=missing_keys)

    monkeypatch.setattr(files, "frequencies", counting)
    df = frame()
    scenarios = [df.assign(a=df["a"].where(df.index != i)) for i in range(3)]
    infoloss.compare(df, scenarios, SPEC, measures=["global_risk", "sample_uniques", "k_anonymity_violations"],
                     aggregates=False, statistics=False)
    assert len(calls) == 1 + 3  # the original once, each protected file once


# ---------------------------------------------------------------------------
# missing_keys: the measures, the per-record files, the map, against the O(n^2) definitions above
# ---------------------------------------------------------------------------
def missing_key_frame(seed, n=40):
    """Three key variables with missing values, records with every key missing, weights and households."""
    rng = np.random.default_rng(seed)
    keys = random_keys(rng, n, 3, 3, 0.2, p_all_missing=0.12)
    keys[:2] = -1
    df = pd.DataFrame({name: np.where(keys[:, j] < 0, np.nan, keys[:, j]) for j, name in enumerate("abc")})
    df["w"] = rng.uniform(1, 30, n).round(1)
    df["hh"] = rng.integers(0, n // 3, n)
    return df, keys


MISSING_SPEC = {"variables": {**{v: {"scale": "nominal", "role": "key"} for v in "abc"},
                              "w": {"role": "weight"}, "hh": {"role": "household"}}}


@pytest.mark.parametrize("missing_keys", ["wildcard", "sdcmicro"])
@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_frequency_measures_follow_missing_keys(missing_keys, alpha):
    orig, keys = missing_key_frame(5)
    prot, pkeys = missing_key_frame(6)
    opts = {"alpha": alpha, "missing_keys": missing_keys}
    expected = {}
    for name, frame_, k in (("protected", prot, pkeys), ("original", orig, keys)):
        fk, Fk = BRUTE[missing_keys](k, frame_["w"].to_numpy(), alpha)
        risk = individual_risk(fk, Fk, weighted=True)
        hh = frame_["hh"].to_numpy()
        household = np.array([1 - np.prod(1 - risk[hh == h]) for h in hh])
        expected[name] = {"fk": fk, "Fk": Fk, "risk": risk, "household": household}
    for name, which in (("protected", PROTECTED), ("original", ORIGINAL)):
        got = file_risk(encode_pair(orig, prot, MISSING_SPEC), which, alpha, missing_keys)
        np.testing.assert_allclose(got.fk, expected[name]["fk"], atol=1e-12)
        np.testing.assert_allclose(got.Fk, expected[name]["Fk"], rtol=1e-12)
    e, o = expected["protected"], expected["original"]
    g = global_risk(orig, prot, MISSING_SPEC, **opts)
    assert g.value == pytest.approx(e["risk"].mean(), rel=1e-12)
    assert g.details["original"]["value"] == pytest.approx(o["risk"].mean(), rel=1e-12)
    assert g.details["missing_keys"] == missing_keys and g.details["alpha"] == alpha
    assert ("sdcMicro 5.8.1's freqCalc" in g.details["convention"]) == (missing_keys == "sdcmicro")
    assert expected_reidentifications(orig, prot, MISSING_SPEC, **opts).value == pytest.approx(e["risk"].sum())
    h = household_risk(orig, prot, MISSING_SPEC, **opts)
    assert h.value == pytest.approx(e["household"].mean(), rel=1e-12)
    assert h.details["original"]["value"] == pytest.approx(o["household"].mean(), rel=1e-12)
    su = sample_uniques(orig, prot, MISSING_SPEC, **opts)
    assert su.value == np.mean(e["fk"] == 1) and su.details["original"]["count"] == np.sum(o["fk"] == 1)
    kv = k_anonymity_violations(orig, prot, MISSING_SPEC, k=5, **opts)
    assert kv.value == np.sum(e["fk"] < 5)
    assert kv.details["by_k"]["3"] == {"unweighted": np.sum(e["fk"] < 3), "weighted": np.sum(e["Fk"] < 3),
                                       "share": np.mean(e["fk"] < 3)}
    assert kv.details["original"]["value"] == np.sum(o["fk"] < 5) and kv.details["missing_keys"] == missing_keys


def test_the_two_conventions_give_different_measures_on_the_audit_example():
    df = pd.DataFrame({"a": [1, 1, 2, np.nan], "b": [1, 1, 5, np.nan]})
    spec = {"variables": {"a": {"scale": "nominal", "role": "key"}, "b": {"scale": "nominal", "role": "key"}}}
    assert sample_uniques(df, df, spec).value == 0  # fk = 3, 3, 2, 4
    assert global_risk(df, df, spec).value == pytest.approx((1 / 3 + 1 / 3 + 1 / 2 + 1 / 4) / 4)
    assert sample_uniques(df, df, spec, missing_keys="sdcmicro").value == 0.25  # fk = 2, 2, 1, 4
    assert global_risk(df, df, spec, missing_keys="sdcmicro").value == pytest.approx((1 / 2 + 1 / 2 + 1 + 1 / 4) / 4)


def test_wildcard_on_sdcmicros_generated_files_equals_brute_force():
    """The twelve generated files of tests/data/risk_reference (many missing keys, all-missing records, weights)."""
    from pathlib import Path

    folder = Path(__file__).resolve().parent / "data" / "risk_reference" / "random"
    differs = 0
    for number in range(12):
        data = pd.read_csv(folder / f"random{number:02d}.csv")
        keys = data[[c for c in data if c.startswith("k")]].fillna(-1).to_numpy(dtype=np.int64)
        w = data["w"].to_numpy()
        fk, Fk = frequencies(keys, w, alpha=0.5 if number % 2 else 1.0)
        bf, bF = brute_wildcard(keys, w, 0.5 if number % 2 else 1.0)
        np.testing.assert_allclose(fk, bf, atol=1e-12)
        np.testing.assert_allclose(Fk, bF, rtol=1e-12)
        differs += (fk != pd.read_csv(folder / f"random{number:02d}_sdcmicro.csv")["fk"]).any()
    assert differs >= 6  # sdcMicro's numbers need missing_keys="sdcmicro" (tests/test_risk_sdcmicro.py)


def test_records_files_use_the_convention_of_the_measures(tmp_path):
    import infoloss
    from infoloss.risk.records import frequency_options, record_table

    orig, _ = missing_key_frame(5)
    prot, pkeys = missing_key_frame(6)
    for options, missing_keys in (({}, "wildcard"), ({"sample_uniques": {"missing_keys": "sdcmicro"}}, "sdcmicro"),
                                  ({"global_risk": {"missing_keys": "sdcmicro"}}, "sdcmicro")):
        folder = tmp_path / missing_keys / str(len(options))
        infoloss.compare(orig, [prot], MISSING_SPEC, measures=["global_risk", "sample_uniques"], options=options,
                         names=["p"], records_dir=folder, aggregates=False, statistics=False)
        table = pd.read_csv(folder / "records_p.csv")
        fk, Fk = BRUTE[missing_keys](pkeys, prot["w"].to_numpy())
        np.testing.assert_array_equal(table["fk"], fk)
        np.testing.assert_allclose(table["individual_risk"], individual_risk(fk, Fk, True), rtol=1e-12)
        pair = encode_pair(orig, prot, MISSING_SPEC)
        np.testing.assert_array_equal(record_table(pair, PROTECTED, options)["fk"], fk)
    assert frequency_options({"global_risk": {"alpha": 0.5}, "household_risk": {"alpha": 0.2, "missing_keys": "sdcmicro"}}
                             ) == {"alpha": 0.5, "missing_keys": "sdcmicro"}


def test_the_risk_utility_map_shows_the_measures_convention():
    import infoloss

    orig, _ = missing_key_frame(5)
    scenarios = [missing_key_frame(6)[0], missing_key_frame(7)[0]]
    for missing_keys in ("wildcard", "sdcmicro"):
        rep = infoloss.compare(orig, scenarios, MISSING_SPEC, measures=["global_risk", "gdu"], names=["p", "q"],
                               options={"global_risk": {"missing_keys": missing_keys}}, aggregates=False,
                               statistics=False)
        points = {p["name"]: p["risk"] for p in rep.risk_utility(risk="global_risk", utility="gdu")["points"]}
        for name, frame_ in zip(("p", "q"), scenarios):
            keys = frame_[list("abc")].fillna(-1).to_numpy(dtype=np.int64)
            fk, Fk = BRUTE[missing_keys](keys, frame_["w"].to_numpy())
            assert points[name] == pytest.approx(individual_risk(fk, Fk, True).mean(), rel=1e-12)
        keys = orig[list("abc")].fillna(-1).to_numpy(dtype=np.int64)
        fk, Fk = BRUTE[missing_keys](keys, orig["w"].to_numpy())
        assert points["original"] == pytest.approx(individual_risk(fk, Fk, True).mean(), rel=1e-12)
        # the report's risk table says which rule its frequency measures used, in full and in safe mode
        for safe in (False, True):
            html = rep.to_html(safe=safe)
            assert ("with two or more key variables a record with every key missing is not counted" in html) == (
                missing_keys == "sdcmicro")
            assert "Risk of each file on the key variables (" in html


def test_the_risk_table_note_states_suda_s_rule_when_it_shows_suda_only():
    import infoloss

    orig, _ = missing_key_frame(5)
    rep = infoloss.compare(orig, missing_key_frame(6)[0], MISSING_SPEC, measures=["suda_dis"], aggregates=False,
                           statistics=False)
    html = rep.to_html()
    assert "Risk of each file on the key variables (SUDA compares a missing key value as a value of its own)" in html


def test_a_key_missing_in_every_original_record_is_refused_with_what_removing_it_changes():
    """Still refused (the pair encoding has no category for it); the message's claims, checked here."""
    from infoloss.errors import InputError
    from infoloss.risk.suda import suda2

    a, b = [2, 3, np.nan, 2, 3, 3, 1, 2], [3, 3, np.nan, 3, 3, 3, 4, 3]
    df = pd.DataFrame({"A": a, "B": b, "C": np.nan})
    spec = {"variables": {c: {"scale": "nominal", "role": "key"} for c in "ABC"}}
    with pytest.raises(InputError, match=r"'C' is missing in every record of the original file; remove it from the "
                                         r"spec\. As a key variable it matches every record: removing it leaves fk"):
        k_anonymity_violations(df, df, spec)
    with pytest.raises(InputError) as plain:
        k_anonymity_violations(df, df, {"variables": {**spec["variables"], "C": {"scale": "nominal"}}})
    assert str(plain.value).endswith("remove it from the spec.")
    keys = df.fillna(-1).to_numpy(dtype=np.int64)
    w = np.arange(1.0, 9.0)
    # the default (wildcard, alpha = 1): the same fk and Fk without the column, both equal to the O(n^2) definition
    for with_c in (keys, keys[:, :2]):
        fk, Fk = frequencies(with_c, w)
        np.testing.assert_array_equal(fk, brute_wildcard(keys, w)[0])
        np.testing.assert_array_equal(Fk, brute_wildcard(keys, w)[1])
    # sdcMicro's rule (its own test expects 4 4 8 4 4 4 2 4), alpha < 1 and SUDA change
    assert frequencies(keys, missing_keys="sdcmicro")[0].tolist() == [4, 4, 8, 4, 4, 4, 2, 4]
    assert frequencies(keys[:, :2], missing_keys="sdcmicro")[0].tolist() == [3, 3, 8, 3, 3, 3, 1, 3]
    assert frequencies(keys, alpha=0.5)[0].tolist() != frequencies(keys[:, :2], alpha=0.5)[0].tolist()
    np.testing.assert_allclose(frequencies(keys, alpha=0.5)[0], brute_wildcard(keys, None, 0.5)[0])
    assert suda2(keys, uniques="exact").score.tolist() != suda2(keys[:, :2], uniques="exact").score.tolist()
