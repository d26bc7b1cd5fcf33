"""Properties that every registered measure must have, whatever its family."""

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from infoloss.errors import NotComputed
from infoloss.measures.risk import FILE_RISK_MEASURES
from infoloss.pair import encode_pair
from infoloss.registry import load_all, registered
from infoloss.spec import load_spec, spec_from_dict
from infoloss.synth import make_spec, make_survey

load_all()  # every measure module registered: FILE_RISK_MEASURES is complete only then (modules load lazily)

SPEC = {
    "variables": {
        "g": {"scale": "nominal", "role": "key"},
        "h": {"scale": "nominal", "role": "sensitive"},
        "o": {"scale": "ordinal", "role": "key"},
        "x": {"scale": "continuous"},
        "y": {"scale": "continuous"},
        "z": {"scale": "continuous"},
    }
}

# Measures whose value on identical files is not their ideal (target) value, and why.
NOT_ZERO_ON_IDENTICAL = {
    # pMSE = 0 on identical files, so its ratio to the null expectation is 0, below the ideal 1 of two
    # independent samples of one distribution
    "pmse_ratio": lambda pair, result: 0.0,
    # the standardised pMSE is (pMSE − E0)/SD0: with pMSE = 0 it is −E0/SD0 = −sqrt((k−1)/2)
    "pmse_std": lambda pair, result: -math.sqrt((result.details["k"] - 1) / 2),
}
# Risk measures describe the protected file (its disclosure risk), not a loss: a copy of the original has
# the original's own risk, which each of them reports as details["original"]["value"].
NOT_ZERO_ON_IDENTICAL.update(
    {mid: (lambda pair, result: result.details["original"]["value"]) for mid in FILE_RISK_MEASURES}
)


@st.composite
def frames(draw):
    n = draw(st.integers(min_value=12, max_value=40))
    seed = draw(st.integers(min_value=0, max_value=10_000))
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return pd.DataFrame(
        {
            "g": rng.choice(["a", "b", "c"], n),
            "h": np.where(x > 0, "p", "q"),
            "o": rng.integers(1, 5, n),
            "x": x,
            "y": 2 * x + rng.normal(size=n),
            "z": rng.lognormal(size=n),
        }
    )


def no_loss_value(info):
    return info.ideal


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames())
def test_identical_files_lose_nothing_on_every_measure(df):
    pair = encode_pair(df, df.copy(), SPEC)
    checked = 0
    risk_checked = set()
    for info in registered():
        try:
            result = info.func(pair)
        except NotComputed:
            continue
        expected = NOT_ZERO_ON_IDENTICAL.get(info.id, lambda p, r: no_loss_value(info))(pair, result)
        assert result.value == pytest.approx(expected, abs=1e-6), info.id
        checked += 1
        risk_checked.add(info.id)
    assert checked >= 10
    # the frames have no household id; with two small key variables sdcMicro's hash count of uniques (the U of
    # the DIS score) is often 0, and suda_dis then says so instead of returning sdcMicro's NaN
    assert risk_checked >= FILE_RISK_MEASURES - {"household_risk", "suda_dis"}


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames(), frames())
def test_values_are_finite_and_within_the_declared_range(a, b):
    pair = encode_pair(a, b.iloc[: len(a)].reset_index(drop=True) if len(b) >= len(a) else b, dict(SPEC, pairing="none"))
    for info in registered():
        if info.needs_pairing:
            continue
        try:
            result = info.func(pair)
        except NotComputed as exc:
            assert str(exc), info.id
            continue
        low, high = info.range
        assert math.isfinite(result.value), info.id
        assert low is None or result.value >= low - 1e-9, info.id
        assert high is None or result.value <= high + 1e-9, info.id
        for part in (result.by_variable or {}), (result.by_pair or {}):
            assert all(math.isfinite(v) for v in part.values()), info.id


def test_a_constant_column_gives_reasons_not_nan():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"x": np.ones(30), "y": np.ones(30), "g": ["a"] * 30})
    prot = df.copy()
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}, "g": {"scale": "nominal"}}}
    pair = encode_pair(df, prot, spec)
    for info in registered():
        try:
            result = info.func(pair)
        except NotComputed as exc:
            assert len(str(exc)) > 10, info.id
            continue
        assert math.isfinite(result.value), info.id
    del rng


# ---------------------------------------------------------------------------
# identical files lose nothing, on real data sets and on a file larger than every sample size
# ---------------------------------------------------------------------------
DATA = Path(__file__).resolve().parent / "data"
IDENTICAL_SETS = ("testdata", "free1", "Tarragona", "EIA", "CASCrefmicrodata")
LARGE_N = 60_000

# Measures whose value on identical files is not their registry ideal, by construction, and what it is.
IDENTICAL_EXCEPTIONS = {
    # a count of the protected file's missing cells (SDC Practice Guide): on identical files it is the
    # original's count; the loss, details["increase"], is 0
    "missing_values": lambda pair, result: float(result.details["total_original"]),
    **NOT_ZERO_ON_IDENTICAL,
}
# Measures that may be not computed on an identical pair, and why (the reason must still be given).
MAY_BE_NOT_COMPUTED = {
    "ebil": "unpaired files without a 'pram:' matrix: nothing to estimate the matrix from",
    "ebil_joint": "unpaired files without a 'pram:' matrix: nothing to estimate the joint matrix from",
}


def _largest_sample_size() -> int:
    return max(int(o.default) for info in registered() for o in info.options
               if o.name == "max_records" and o.default is not None)


ADULT_N = 2_000


def adult_sample():
    """The first records of adult with its ARX hierarchies: eight generalised keys, a target, a sensitive
    variable and households of up to three consecutive records (so every family has what it needs)."""
    df = pd.read_csv(DATA / "adult" / "adult.csv", sep=";", nrows=ADULT_N)
    df["household"] = np.arange(len(df)) // 3
    raw = yaml.safe_load((DATA / "adult" / "spec.yaml").read_text())
    raw["variables"]["salary-class"]["role"] = "target"
    raw["variables"]["occupation"]["role"] = "sensitive"
    raw["variables"]["household"] = {"role": "household"}
    raw["analyses"] = {
        "estimates": [{"statistic": "mean", "variable": "age", "by": ["sex"]},
                      {"statistic": "proportion", "variable": "race"}],
        "regressions": [{"name": "age", "formula": "age ~ C(sex) + C(race)"}],
    }
    return df, spec_from_dict(raw, base_dir=DATA / "adult")


def generated_large():
    """A generated file larger than every sample size, with every role a family needs: keys (one with an
    interval hierarchy), a sensitive variable, a household id, a continuous target and the user's analyses."""
    big = make_survey(LARGE_N, n_continuous=4, n_categorical=4, seed=3)
    big["household"] = (big["id"] - 1) // 3
    spec = make_spec(big)
    variables = spec["variables"]
    variables["age"]["hierarchy"] = {"intervals": [0, 20, 40, 60, 80, 120], "nesting": [2]}
    variables["tenure"]["role"] = "sensitive"
    variables["expenditure"]["role"] = "target"
    variables["household"] = {"role": "household"}
    spec["analyses"] = {
        "estimates": [{"statistic": "mean", "variable": "income", "by": ["region"]},
                      {"statistic": "median", "variable": "income"},
                      {"statistic": "proportion", "variable": "sex"}],
        "regressions": [{"name": "mincer", "formula": "np.log(income) ~ age + C(sex)", "where": "income > 0"}],
        "scales": [{"name": "money", "items": ["income", "expenditure", "savings"]}],
    }
    return big, spec


@pytest.fixture(scope="module")
def identical_pairs():
    """(name, pair) for each data set against a copy of itself; adult and the generated file paired and
    unpaired."""
    pairs = []
    for name in IDENTICAL_SETS:
        df = pd.read_csv(DATA / name / "original.csv")
        pairs.append((name, encode_pair(df, df.copy(), load_spec(DATA / name / "spec.yaml"))))
    adult, spec = adult_sample()
    pairs.append(("adult", encode_pair(adult, adult.copy(), spec)))
    spec = adult_sample()[1]
    spec.pairing = "none"
    pairs.append(("adult, unpaired", encode_pair(adult, adult.copy(), spec)))
    big, spec = generated_large()
    pairs.append(("generated", encode_pair(big, big.copy(), spec)))
    pairs.append(("generated, unpaired", encode_pair(big, big.copy(), dict(spec, pairing="none"))))
    return pairs


def test_the_generated_file_is_larger_than_every_sample_size():
    # so that every measure that samples (ECDF, pMSE, clusters, MCD) does sample it
    assert LARGE_N > _largest_sample_size()


def test_every_measure_is_exactly_ideal_on_identical_files(identical_pairs):
    computed: dict[str, int] = {}
    problems = []
    for name, pair in identical_pairs:
        for info in registered():
            try:
                result = info.func(pair)
            except NotComputed as exc:
                assert len(str(exc)) > 10, (name, info.id)
                continue
            computed[info.id] = computed.get(info.id, 0) + 1
            expected = IDENTICAL_EXCEPTIONS.get(info.id, lambda p, r: info.ideal)(pair, result)
            if info.id in NOT_ZERO_ON_IDENTICAL:
                ok = result.value == pytest.approx(expected, rel=1e-12)
            else:
                ok = result.value == expected  # exactly, not approximately
            if not ok:
                problems.append(f"{name}: {info.id} = {result.value!r}, expected {expected!r}")
    assert not problems, problems
    # no measure escapes by never being computed
    never = [info.id for info in registered() if info.id not in computed]
    assert not never, f"never computed on an identical pair: {never}"


def test_every_measure_is_computed_on_the_generated_identical_pair(identical_pairs):
    pairs = dict(identical_pairs)
    for name in ("generated", "generated, unpaired"):
        pair = pairs[name]
        for info in registered():
            if info.needs_pairing and not pair.paired:
                continue
            try:
                info.func(pair)
            except NotComputed as exc:
                assert info.id in MAY_BE_NOT_COMPUTED and not pair.paired, f"{name}: {info.id}: {exc}"
    # the sampled paths were used, and say so
    pmse_details = registered_result("pmse", pairs["generated"]).details
    assert pmse_details["sampled"] and "same record numbers" in pmse_details["sample"]["how"]
    ecdf_details = registered_result("ecdf_max", pairs["generated, unpaired"]).details
    assert ecdf_details["sample"] is not None and ecdf_details["sample"]["orig"] == 2000


def registered_result(mid, pair):
    return next(info for info in registered() if info.id == mid).func(pair)
