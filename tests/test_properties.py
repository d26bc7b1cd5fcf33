"""Properties that every registered measure must have, whatever its family."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from infoloss.errors import NotComputed
from infoloss.measures.risk import FILE_RISK_MEASURES
from infoloss.pair import encode_pair
from infoloss.registry import registered

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
