"""infoloss.aggregates.summarise: the aggregated data the HTML report draws.

Every number is checked against numpy/pandas computed on the raw columns.
"""

import numpy as np
import pandas as pd
import pytest

from infoloss import aggregates
from infoloss.aggregates import QUANTILES, binned_kde, histogram, summarise
from infoloss.pair import encode_pair

SPEC = {
    "variables": {
        "x": {"scale": "continuous"},
        "y": {"scale": "continuous"},
        "g": {"scale": "nominal", "role": "key"},
        "h": {"scale": "ordinal", "role": "key"},
        "k": {"scale": "nominal", "role": "key"},
    }
}


def _frames(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    orig = pd.DataFrame({
        "x": rng.lognormal(3, 1, n),
        "y": rng.normal(0, 1, n),
        "g": rng.choice(["a", "b", "c"], n, p=[0.6, 0.3, 0.1]),
        "h": rng.integers(1, 6, n).astype(str),
        "k": rng.choice(["u", "v"], n),
    })
    orig.loc[rng.choice(n, 25, replace=False), "y"] = np.nan
    prot = orig.copy()
    prot["x"] = orig["x"] + rng.normal(0, 5, n)
    prot.loc[rng.choice(n, 40, replace=False), "g"] = None
    prot["h"] = np.where(rng.random(n) < 0.2, "3", orig["h"])
    return orig, prot


@pytest.fixture(scope="module")
def agg():
    orig, prot = _frames()
    return orig, prot, summarise(encode_pair(orig, prot, SPEC))


@pytest.mark.parametrize("side,frame", [("orig", 0), ("prot", 1)])
@pytest.mark.parametrize("name", ["x", "y"])
def test_histogram_counts_add_up_to_the_valid_records(agg, side, frame, name):
    data = agg[frame][name].to_numpy(float)
    h = agg[2]["variables"][name]["hist"][side]
    assert int(h["counts"].sum()) + h["below"] + h["above"] == np.count_nonzero(~np.isnan(data))
    assert h["counts"].size == aggregates.FINE_BINS


def test_histogram_matches_numpy(agg):
    orig = agg[0]["x"].to_numpy(float)
    v = agg[2]["variables"]["x"]
    edges = v["grid"]
    inside = orig[(orig >= edges[0]) & (orig <= edges[-1])]
    expected, _ = np.histogram(inside, bins=edges)
    # numpy and the fast binning may differ by float rounding at an edge; totals agree exactly
    assert np.abs(v["hist"]["orig"]["counts"] - expected).sum() <= 2
    assert v["hist"]["orig"]["counts"].sum() == expected.sum()


@pytest.mark.parametrize("side,frame", [("orig", 0), ("prot", 1)])
def test_quantiles_and_moments_equal_numpy(agg, side, frame):
    data = agg[frame]["y"].dropna().to_numpy(float)
    stats = agg[2]["variables"]["y"]["stats"][side]
    np.testing.assert_allclose(stats["quantiles"], np.quantile(data, QUANTILES), rtol=1e-12)
    assert stats["n"] == data.size and stats["missing"] == 25
    assert stats["mean"] == pytest.approx(data.mean()) and stats["sd"] == pytest.approx(data.std(ddof=1))
    assert (stats["min"], stats["max"]) == (data.min(), data.max())


def test_tukey_whiskers_and_outlier_counts(agg):
    data = agg[0]["x"].to_numpy(float)
    stats = agg[2]["variables"]["x"]["stats"]["orig"]
    q1, q3 = np.quantile(data, [0.25, 0.75])
    lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
    assert stats["whiskers"] == [data[data >= lo].min(), data[data <= hi].max()]
    assert stats["outliers"]["high"] == np.count_nonzero(data > hi)
    assert len(stats["outliers"]["high_values"]) <= aggregates.MAX_OUTLIERS
    assert stats["outliers"]["high_values"][-1] == data.max()


@pytest.mark.parametrize("side,frame", [("orig", 0), ("prot", 1)])
@pytest.mark.parametrize("name", ["g", "h", "k"])
def test_one_way_tables_equal_value_counts(agg, side, frame, name):
    v = agg[2]["variables"][name]
    counts = agg[frame][name].value_counts(dropna=True)
    expected = [int(counts.get(c, 0)) for c in v["categories"]] + [int(agg[frame][name].isna().sum())]
    assert v[side].tolist() == expected


def test_two_way_tables_of_the_key_variables_equal_crosstab(agg):
    orig, _, a = agg
    assert a["pair_variables"] == ["g", "h", "k"] and a["pair_source"] == "key"
    t = a["pairs"]["g|h"]
    cats_g, cats_h = a["variables"]["g"]["categories"], a["variables"]["h"]["categories"]
    expected = pd.crosstab(orig["g"], orig["h"]).reindex(index=cats_g, columns=cats_h, fill_value=0).to_numpy()
    np.testing.assert_array_equal(t["orig"][:-1, :-1], expected)
    assert t["orig"].sum() == t["prot"].sum() == len(orig)


def test_density_integrates_to_the_share_inside_the_grid(agg):
    v = agg[2]["variables"]["x"]
    width = v["grid"][1] - v["grid"][0]
    inside = v["hist"]["orig"]["counts"].sum() / v["stats"]["orig"]["n"]
    assert float(v["density"]["orig"].sum() * width) == pytest.approx(inside, abs=0.02)


def test_the_original_is_summarised_once_and_shared_by_scenarios():
    orig, prot = _frames(500)
    pair1 = encode_pair(orig, prot, SPEC)
    cache = {}
    pair_a = encode_pair(orig, prot, SPEC, original_cache=cache)
    pair_b = encode_pair(orig, orig, SPEC, original_cache=cache)
    a, b = summarise(pair_a), summarise(pair_b)
    assert a["variables"]["x"]["stats"]["orig"] is b["variables"]["x"]["stats"]["orig"]
    # a different original array is not served from the cache
    other = orig.assign(x=orig["x"] * 2)
    c = summarise(encode_pair(other, prot, SPEC))
    assert c["variables"]["x"]["stats"]["orig"]["mean"] == pytest.approx(2 * summarise(pair1)["variables"]["x"]["stats"]["orig"]["mean"])


def test_removed_constant_and_empty_protected_variables():
    orig = pd.DataFrame({"c": [3.0] * 10, "e": np.arange(10.0), "r": np.arange(10.0), "g": list("ab") * 5})
    prot = orig.drop(columns=["r"]).assign(e=np.nan)
    spec = {"variables": {"c": {"scale": "continuous"}, "e": {"scale": "continuous"},
                          "r": {"scale": "continuous", "removed": True}, "g": {"scale": "nominal"}}}
    a = summarise(encode_pair(orig, prot, spec))
    c = a["variables"]["c"]
    assert c["hist"]["orig"]["counts"].sum() == 10 and c["grid"][0] < 3.0 < c["grid"][-1]
    e = a["variables"]["e"]
    assert e["stats"]["prot"] == {"n": 0, "missing": 10} and e["hist"]["prot"] is None
    assert a["variables"]["r"]["removed"] and a["variables"]["r"]["stats"]["prot"] is None


def test_histogram_and_kde_helpers():
    h = histogram(np.array([0.0, 1.0, 2.0, 2.0, 5.0]), np.linspace(0, 2, 3))
    assert h["counts"].tolist() == [1, 3] and h["above"] == 1
    assert binned_kde(np.array([1, 2]), np.linspace(0, 2, 3), 0.0, 3) is None


def test_histograms_of_whole_numbers_have_no_bar_between_two_values():
    # bars 0.925 wide over hours 20-57 held no whole number: drawn empty, the bars beside them doubled
    from infoloss.aggregates import DISPLAY_BARS, FINE_BINS

    rng = np.random.default_rng(0)
    hours = pd.DataFrame({"hours": rng.integers(20, 58, 2000).astype(float)})
    pair = encode_pair(hours, hours.copy(), {"variables": {"hours": {"scale": "continuous"}}})
    var = summarise(pair)["variables"]["hours"]
    edges = np.asarray(var["grid"])[:: FINE_BINS // DISPLAY_BARS]
    assert np.allclose(edges % 1, 0.5) and np.allclose(np.diff(edges), np.diff(edges)[0])
    bars = np.asarray(var["hist"]["orig"]["counts"]).reshape(DISPLAY_BARS, -1).sum(axis=1)
    inside = (edges[:-1] >= 19.5) & (edges[1:] <= 57.5)
    assert (bars[inside] > 0).all()
