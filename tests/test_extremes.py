"""Numeric extremes: values up to ±1.8e308, a single 1e80 cell, subnormal values and infinite cells.

Every measure gives a finite value or a NotComputed reason, with no overflow
warning; scale-invariant measures give exactly their values on the unscaled
data; the JSON never holds NaN or Infinity; infinite cells are an input error.
"""

import json
import math
import subprocess
import sys
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import infoloss
from infoloss.errors import InputError, NotComputed
from infoloss.numeric import FLOAT_MAX
from infoloss.pair import encode_pair
from infoloss import registry
from infoloss.registry import registered

ROOT = Path(__file__).resolve().parents[1]
SPEC = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}, "z": {"scale": "continuous"},
                      "g": {"scale": "nominal"}, "o": {"scale": "ordinal"}}}
N = 240


def base(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=N)
    orig = pd.DataFrame({"x": x, "y": 2 * x + rng.normal(size=N), "z": rng.lognormal(size=N),
                         "g": rng.choice(list("abc"), N), "o": rng.integers(1, 5, N)})
    prot = orig.copy()
    prot[["x", "y", "z"]] *= 1 + 0.1 * rng.normal(size=(N, 3))
    prot.loc[3, "g"] = "b" if orig.loc[3, "g"] != "b" else "a"
    prot.loc[5, "z"] = np.nan
    return orig, prot


def extreme(kind):
    orig, prot = base()
    if kind == "huge":  # every value of x near the top of the range, y up to the largest float
        for df in (orig, prot):
            df["x"] = df["x"] / 6 * 1e308
            df["y"] = np.clip(df["y"] / 12 * FLOAT_MAX, -FLOAT_MAX, FLOAT_MAX)
    elif kind == "largest":  # ±the largest float, of opposite signs in the two files
        orig.loc[0, "x"], orig.loc[1, "x"] = FLOAT_MAX, -FLOAT_MAX
        prot.loc[0, "x"], prot.loc[1, "x"] = -FLOAT_MAX, FLOAT_MAX
    elif kind == "1e80":  # a single 1e80 cell in the original
        orig.loc[7, "z"] = 1e80
    elif kind == "subnormal":
        orig["x"] *= 1e-310
        prot["x"] *= 1e-310
    return orig, prot


def run_all(pair):
    """Every measure on the pair: {id: value or the NotComputed reason}, failing on any overflow warning."""
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for info in registered():
            try:
                result = info.func(pair)
            except NotComputed as exc:
                assert len(str(exc)) > 10, info.id
                out[info.id] = str(exc)
                continue
            assert math.isfinite(result.value), info.id
            low, high = info.range
            assert low is None or result.value >= low - 1e-9, info.id
            assert high is None or result.value <= high + 1e-9, info.id
            for part in (result.by_variable or {}), (result.by_pair or {}):
                assert all(math.isfinite(v) for v in part.values()), info.id
            out[info.id] = result
    return out


@pytest.mark.parametrize("kind", ["huge", "largest", "1e80", "subnormal"])
@pytest.mark.parametrize("pairing", ["row", "none"])
def test_extreme_values_give_finite_results_or_reasons_and_clean_json(kind, pairing):
    orig, prot = extreme(kind)
    spec = dict(SPEC, pairing=pairing)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no overflow anywhere
        report = infoloss.compare(orig, prot, spec)
        text = report.to_json()
        html = report.to_html()
    scenario = report.scenarios[0]
    assert len(scenario.measures) >= 20
    assert all(len(reason) > 10 for reason in scenario.not_computed.values())
    for mid, result in scenario.measures.items():
        low, high = registry.get(mid).range
        assert math.isfinite(result.value) and (low is None or result.value >= low - 1e-9), mid
        assert high is None or result.value <= high + 1e-9, mid
        for part in (result.by_variable or {}), (result.by_pair or {}):
            assert all(math.isfinite(v) for v in part.values()), mid

    def refuse(constant):
        raise AssertionError(f"the JSON holds {constant}")

    json.loads(text, parse_constant=refuse)
    assert "<html" in html.lower()


def with_every_role(kind, pairing):
    """The extreme files with what every family needs: keys (one with an interval hierarchy whose breaks reach
    ±1.8e308), a sensitive variable, a household id, a continuous and a categorical target."""
    orig, prot = extreme(kind)
    a = (orig["x"] * np.random.default_rng(7).uniform(0.5, 1.0, N)).clip(-1.7e308, 1.7e308)
    for df in (orig, prot):
        df["h"] = np.where(df["z"] > 1, "p", "q")
        df["t"] = np.where(df["o"] > 2, "hi", "lo")
        df["hh"] = np.arange(N) // 3
        df["a"] = a  # a generalised variable keeps the original's values
    variables = {name: dict(v) for name, v in SPEC["variables"].items()}
    variables["g"]["role"] = variables["o"]["role"] = "key"
    variables["y"]["role"] = "target"
    variables.update({
        "h": {"scale": "nominal", "role": "sensitive"},
        "t": {"scale": "nominal", "role": "target"},
        "hh": {"role": "household"},
        "a": {"scale": "continuous", "role": "key",
              "hierarchy": {"intervals": [-FLOAT_MAX, -1e300, -1, 0, 1, 1e300, FLOAT_MAX], "nesting": [2]}},
    })
    return orig, prot, {"variables": variables, "pairing": pairing}


@pytest.mark.parametrize("kind", ["huge", "largest", "1e80", "subnormal"])
@pytest.mark.parametrize("pairing", ["row", "none"])
def test_every_family_with_every_role_gives_finite_results_or_reasons(kind, pairing):
    """Mining (a huge continuous target), risk distances, generalisation intervals up to ±1.8e308 and clustering:
    finite values or reasons, no overflow warning, clean JSON and a report."""
    orig, prot, spec = with_every_role(kind, pairing)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        report = infoloss.compare(orig, prot, spec, options={mid: {"seeds": 2} for mid in MULTI_SEED})
        text = report.to_json()
        html = report.to_html()
    scenario = report.scenarios[0]
    families = {registry.get(mid).family for mid in scenario.measures}
    assert {"mining", "risk", "generalisation"} <= families
    for mid, result in scenario.measures.items():
        low, high = registry.get(mid).range
        assert math.isfinite(result.value) and (low is None or result.value >= low - 1e-9), mid
        assert high is None or result.value <= high + 1e-9, mid
        for part in (result.by_variable or {}), (result.by_pair or {}):
            assert all(math.isfinite(v) for v in part.values()), mid
    assert all(len(reason) > 10 for reason in scenario.not_computed.values())
    json.loads(text, parse_constant=lambda c: pytest.fail(f"the JSON holds {c}"))
    assert "<html" in html.lower()


# measures averaged over seeds (5 by default): two are enough here
MULTI_SEED = [info.id for info in registered() if any(o.name == "seeds" for o in info.options)]


def test_extreme_targets_and_features_give_the_same_mining_results_as_ordinary_ones():
    """The mining coding scales extreme variables by a power of two: exactly the same fits and scores."""
    orig, prot, spec = with_every_role("subnormal", "row")
    small = base()
    for df, ref in zip((orig, prot), small):
        df["x"] = ref["x"]
    big_o, big_p = orig.copy(), prot.copy()
    for df in (big_o, big_p):
        df[["x", "y"]] = np.ldexp(df[["x", "y"]].to_numpy(), 1000)
    options = {"seeds": 2}
    for mid in ("ml_score_ratio", "ml_prediction_agreement", "ml_importance_correlation", "cluster_ari"):
        plain = registry.get(mid).func(encode_pair(orig, prot, spec), **options)
        scaled = registry.get(mid).func(encode_pair(big_o, big_p, spec), **options)
        assert scaled.value == plain.value and scaled.by_variable == plain.by_variable, mid
    rmse = registry.get("ml_score_ratio").func(encode_pair(big_o, big_p, spec), regression_metric="rmse", **options)
    plain = registry.get("ml_score_ratio").func(encode_pair(orig, prot, spec), regression_metric="rmse", **options)
    got = rmse.details["targets"]["y"]["scores"]["protected"]["rmse"]["values"]
    want = plain.details["targets"]["y"]["scores"]["protected"]["rmse"]["values"]
    assert got == [math.ldexp(v, 1000) for v in want]  # RMSE in the variable's units, exactly


def test_what_cannot_be_represented_is_not_computed_with_a_reason():
    results = run_all(encode_pair(*extreme("huge"), SPEC))
    for mid in ("x_mse", "xbar_mse", "v_mse", "v_mae"):
        assert "beyond the largest floating-point number" in results[mid], mid
    assert "larger units" in results["x_mse"]
    # the variances of x and y are beyond the range: S leaves them out, with the reason in details
    s_mv = results["s_mv"]
    assert set(s_mv.by_variable) == {"z"}
    assert "variance" in s_mv.details["not_computed"]["x"]


def test_a_matrix_with_no_representable_element_says_why():
    orig = pd.DataFrame({"x": [0.0, 1e308, 1.7e308, 5.0, 3.0]})
    prot = pd.DataFrame({"x": [0.0, 1.1e308, 1.6e308, 5.0, 3.0]})
    results = run_all(encode_pair(orig, prot, {"variables": {"x": {"scale": "continuous"}}}))
    for mid in ("s_mse", "s_mae", "s_mv"):
        assert results[mid].startswith("no element of S could be compared (x: its variance is beyond the largest "
                                        "floating-point number"), mid


def test_scale_invariant_measures_are_exactly_unchanged_by_a_huge_power_of_two():
    """x and y times 2**1000 (about 1e301): measures that do not depend on units give identical values."""
    orig, prot = base(seed=2)
    big_o, big_p = orig.copy(), prot.copy()
    for df in (big_o, big_p):
        df[["x", "y"]] = np.ldexp(df[["x", "y"]].to_numpy(), 1000)
    small = run_all(encode_pair(orig, prot, SPEC))
    large = run_all(encode_pair(big_o, big_p, SPEC))
    invariant = ["il1s", "eigen", "robust_eigen", "gamma", "r_mse", "r_mae", "r_mv", "rf_mse", "c_mae", "f_mv",
                 "x_mv", "ks", "ecdf_max", "ecdf_mean", "pmse", "cluster_utility", "ldu_uni", "ldu_biv", "gdu"]
    for mid in invariant:
        assert large[mid].value == small[mid].value, mid
    # x_mae scales exactly by 2**1000 on the variables that were scaled
    assert large["x_mae"].by_variable["x"] == math.ldexp(small["x_mae"].by_variable["x"], 1000)
    assert large["xbar_mae"].by_variable["y"] == math.ldexp(small["xbar_mae"].by_variable["y"], 1000)


@pytest.mark.parametrize("power", [-530, -550, -1000])
def test_mean_variations_of_variances_and_covariances_are_unchanged_by_a_tiny_power_of_two(power):
    """x and y times 2**-530 (about 1e-160): their variances (1e-320) would be subnormal or 0, but their
    mean variations, ratios, are those of the unscaled files (they were 0.2 % off, then 'every element is 0')."""
    orig, prot = base(seed=2)
    tiny_o, tiny_p = orig.copy(), prot.copy()
    for df in (tiny_o, tiny_p):
        df[["x", "y"]] = np.ldexp(df[["x", "y"]].to_numpy(), power)
    small = run_all(encode_pair(orig, prot, SPEC))
    tiny = run_all(encode_pair(tiny_o, tiny_p, SPEC))
    for mid in ("s_mv", "v_mv", "xbar_mv", "x_mv", "r_mv"):
        assert tiny[mid].value == pytest.approx(small[mid].value, rel=1e-12), mid
        assert (tiny[mid].by_variable or {}) == pytest.approx(small[mid].by_variable or {}, rel=1e-12), mid


def test_means_of_huge_values_equal_exact_rational_arithmetic():
    orig, prot = extreme("huge")
    result = infoloss.compare(orig, prot, SPEC, measures=["xbar_mae"], aggregates=False)
    stats = result.scenarios[0].statistics
    for name in ("x", "y"):
        values = orig[name].to_numpy()
        exact = float(sum(Fraction(v) for v in values) / len(values))
        assert stats["orig"]["mean"][name] == pytest.approx(exact, rel=1e-13)
    # the sd of x is representable, its variance is not: None in the JSON, never inf
    assert math.isfinite(stats["orig"]["sd"]["x"])
    assert result.to_dict()["scenarios"][0]["statistics"]["orig"]["variance"]["x"] is None


def test_a_single_1e80_cell_changes_only_what_it_should():
    orig, prot = extreme("1e80")
    results = run_all(encode_pair(orig, prot, SPEC))
    # the means of z differ by about 1e80/N: representable, and the mean absolute error says so
    assert results["xbar_mae"].by_variable["z"] == pytest.approx(1e80 / N, rel=1e-6)
    # the variances differ by about 1e160/N, whose square is beyond the range: S's MSE is not computed,
    # its MAE is
    assert "beyond the largest floating-point number" in results["s_mse"]
    assert results["s_mae"].by_variable["z"] == pytest.approx(1e160 / N, rel=1e-3)
    assert results["ks"].value < 0.05 and results["lambda"].value < 0.5


# ---------------------------------------------------------------------------
# infinite cells
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("which", ["original", "protected"])
def test_infinite_cells_are_an_input_error_naming_column_file_and_count(which):
    orig, prot = base()
    target = orig if which == "original" else prot
    target.loc[[2, 4], "y"] = [np.inf, -np.inf]
    with pytest.raises(InputError) as info:
        encode_pair(orig, prot, SPEC)
    text = str(info.value)
    assert f"variable 'y' has 2 infinite values" in text and f"in the {which} file" in text


def test_an_infinite_weight_is_an_input_error():
    orig, prot = base()
    orig["w"] = 1.0
    orig.loc[0, "w"] = np.inf
    spec = {"variables": {**SPEC["variables"], "w": {"role": "weight"}}}
    with pytest.raises(InputError, match="weight column 'w' of the original file has 1 infinite value"):
        encode_pair(orig, prot.assign(w=1.0), spec)


def test_infinite_text_in_a_csv_exits_2_with_one_sentence(tmp_path):
    path = tmp_path / "inf.csv"
    path.write_text("x,y\n1,2.5\n2,inf\n3,-Infinity\n4,1e309\n5,3.5\n")
    before = path.read_bytes()
    done = subprocess.run([sys.executable, "-m", "infoloss.cli", "compare", str(path), str(path), "--continuous", "y"],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2
    assert "variable 'y' has 3 infinite values" in done.stderr and "Traceback" not in done.stderr
    assert path.read_bytes() == before


@pytest.mark.parametrize("seed", range(3))
def test_column_exponents_are_each_columns_safe_exponent(seed):
    # one pass over each matrix gives what safe_exponent gives column by column: NaN and ±inf ignored, values
    # from 1e-300 to 1e300, columns with no finite value, an empty matrix
    from infoloss.numeric import column_exponents, safe_exponent

    rng = np.random.default_rng(seed)
    for _ in range(100):
        p = int(rng.integers(1, 6))
        mats = []
        for _ in range(int(rng.integers(1, 3))):
            n = int(rng.integers(0, 20))
            m = rng.normal(size=(n, p)) * 10.0 ** rng.integers(-300, 300, size=p)
            m[rng.random((n, p)) < 0.2] = np.nan
            m[rng.random((n, p)) < 0.05] = np.inf * rng.choice([-1, 1])
            mats.append(m)
        expected = [safe_exponent(*(m[:, j] for m in mats)) for j in range(p)]
        got = column_exponents(*mats)
        assert got.tolist() == expected and got.dtype == np.int64


def test_scaling_by_a_product_equals_ldexp_to_the_bit():
    # scaled() multiplies float64 values by the float 2**-e instead of calling numpy.ldexp: the same bits for
    # every exponent, subnormal and overflowing results included; per-column exponents; other types and
    # exponents with no float 2**-e (beyond 1074 or below -1023) still go to ldexp
    from infoloss.numeric import scaled

    rng = np.random.default_rng(0)
    with np.errstate(over="ignore"):
        x = np.ldexp(rng.uniform(0.5, 1.0, 20_000) * rng.choice([-1.0, 1.0], 20_000), rng.integers(-1080, 1024, 20_000))
        x = np.concatenate([x, [0.0, -0.0, np.inf, -np.inf, 5e-324, -5e-324, 2.2250738585072014e-308, FLOAT_MAX,
                                1e-310, np.nan]])
        for e in range(-1100, 1101):
            assert np.array_equal(scaled(x, e).view(np.int64), np.ldexp(x, -e).view(np.int64), equal_nan=True), e
        m = x[:20_000].reshape(4_000, 5)
        es = np.array([997, -996, 0, -1030, 1074])
        assert np.array_equal(scaled(m, es).view(np.int64), np.ldexp(m, -es).view(np.int64))
        out = np.empty_like(m)
        assert scaled(m, es, out=out) is out and np.array_equal(out, np.ldexp(m, -es))
    assert scaled(np.ones(3, np.float32), 1).dtype == np.float32
    assert scaled(np.arange(3), 1).tolist() == [0.0, 0.5, 1.0]
    assert float(scaled(np.float64(3.0), 1)) == 1.5
