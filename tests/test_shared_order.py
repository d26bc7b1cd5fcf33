"""The sorted levels shared on the pair (one sort per variable and file) give the same numbers as the
libraries they replace: numpy's unique and quantile, scipy's two-sample KS statistic."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from infoloss.aggregates import _PROBS, _stats, quantiles_from_levels
from infoloss.measures.distributions import ks, ks_levels_statistic, ks_weighted
from infoloss.pair import ORIGINAL, PROTECTED, _tied, encode_pair, sorted_levels


def _samples(seed: int, n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    tied = rng.integers(0, 7, n).astype(float)
    rounded = np.round(rng.normal(size=n), 1) * 1e5
    holes = rng.normal(size=n)
    holes[rng.random(n) < 0.1] = np.nan
    return [rng.normal(size=n), tied, rounded, holes]


@pytest.mark.parametrize("seed", range(5))
def test_sorted_levels_are_numpys_unique(seed):
    for x in _samples(seed, 500):
        lv = sorted_levels(x)
        ok = ~np.isnan(x)
        values, inverse, counts = np.unique(x[ok], return_inverse=True, return_counts=True)
        assert np.array_equal(lv.values, values)
        assert np.array_equal(lv.counts, counts)
        assert np.array_equal(lv.codes[ok], inverse)
        assert (lv.codes[~ok] == -1).all()
        assert lv.n_valid == ok.sum()


def test_sorted_levels_with_infinities_signed_zeros_and_edge_sizes():
    rng = np.random.default_rng(7)
    many = rng.normal(size=30_000)  # more than the guessing sample: the sort path on a large array
    many[::97] = np.nan
    many[::101] = np.inf
    many[::103] = -np.inf
    many[::107] = 0.0
    many[::109] = -0.0
    cases = [many, np.array([np.nan, np.nan]), np.array([3.0]), np.array([]), np.array([-0.0, 0.0, np.nan, 0.0]),
             np.array([np.inf, np.nan, -np.inf, np.inf]), np.arange(12.0)[::-1]]
    for x in cases:
        lv = sorted_levels(x)
        ok = ~np.isnan(x)
        values, inverse, counts = np.unique(x[ok], return_inverse=True, return_counts=True)
        assert lv.values.tolist() == values.tolist()  # -0.0 == 0.0: one level, as in numpy
        assert np.array_equal(lv.counts, counts) and lv.counts.dtype == np.int32
        assert np.array_equal(lv.codes[ok], inverse) and lv.codes.dtype == np.int32
        assert (lv.codes[~ok] == -1).all()


@pytest.mark.parametrize("distinct", [3, 2_000, 12_000, None])
def test_sorted_levels_of_large_arrays_by_hash_or_sort_are_numpys_unique(distinct):
    # 60,000 values drawn from `distinct` ones (None: continuous draws, all distinct) with infinities, signed
    # zeros and NaN: the first three take the hash path, the last the sort path; both give numpy's levels
    rng = np.random.default_rng(0 if distinct is None else distinct)
    specials = [np.inf, -np.inf, 0.0, -0.0, -5.5]
    if distinct is None:
        x = rng.lognormal(size=60_000) * 100
        x[rng.integers(0, x.shape[0], 50)] = rng.choice(specials, 50)
    else:
        pool = np.concatenate([rng.lognormal(size=distinct) * 100, specials])
        x = pool[rng.integers(0, pool.shape[0], 60_000)]
    x[rng.random(x.shape[0]) < 0.05] = np.nan
    ok = ~np.isnan(x)
    assert _tied(x[ok]) == (distinct is not None)
    values, inverse, counts = np.unique(x[ok], return_inverse=True, return_counts=True)
    lv = sorted_levels(x)
    assert lv.values.tolist() == values.tolist()
    assert np.array_equal(lv.counts, counts) and np.array_equal(lv.codes[ok], inverse)
    assert (lv.codes[~ok] == -1).all() and lv.codes.dtype == np.int32


@pytest.mark.parametrize("seed", range(20))
def test_quantiles_from_levels_are_numpys_exactly(seed):
    probs = np.array((*_PROBS, 0.0, 1.0, 1 / 3))
    n = int(np.random.default_rng(seed).integers(1, 2000))
    for x in _samples(seed, n):
        x = x[~np.isnan(x)]
        lv = sorted_levels(x)
        assert np.array_equal(quantiles_from_levels(lv.values, lv.counts, probs), np.quantile(x, probs))


def test_summary_statistics_from_levels_equal_those_from_the_values():
    for x in _samples(3, 3000):
        assert _stats(x, sorted_levels(x)) == _stats(x.copy())


@pytest.mark.parametrize("seed", range(10))
def test_ks_from_levels_is_scipys_statistic_exactly(seed):
    rng = np.random.default_rng(seed)
    a = np.round(rng.normal(size=int(rng.integers(5, 3000))), 2)
    b = np.round(rng.normal(0.1, 1.2, size=int(rng.integers(5, 3000))), 2)
    la, lb = sorted_levels(a), sorted_levels(b)
    # scipy's asymptotic mode keeps its statistic as computed (its exact mode rounds it to a multiple of 1/lcm)
    expected = stats.ks_2samp(a, b, method="asymp").statistic
    assert ks_levels_statistic(la.values, la.counts, lb.values, lb.counts) == expected


def test_weighted_ks_from_levels_equals_the_brute_force_supremum():
    rng = np.random.default_rng(7)
    a, b = np.round(rng.normal(size=400), 1), np.round(rng.normal(size=300), 1)
    wa, wb = rng.uniform(0.5, 3, 400), rng.uniform(0.5, 3, 300)
    points = np.union1d(a, b)  # the weighted ECDFs only step there
    f1 = (wa[None, :] * (a[None, :] <= points[:, None])).sum(axis=1) / wa.sum()
    f2 = (wb[None, :] * (b[None, :] <= points[:, None])).sum(axis=1) / wb.sum()
    expected = np.abs(f1 - f2).max()
    la, lb = sorted_levels(a), sorted_levels(b)
    ca = np.bincount(la.codes, weights=wa, minlength=la.counts.shape[0])
    cb = np.bincount(lb.codes, weights=wb, minlength=lb.counts.shape[0])
    assert ks_levels_statistic(la.values, ca, lb.values, cb) == pytest.approx(expected, abs=1e-14)
    assert ks_weighted(a, wa, b, wb)[0] == pytest.approx(expected, abs=1e-14)


def test_the_ks_measure_on_large_files_uses_the_shared_levels_and_gives_scipys_statistics():
    rng = np.random.default_rng(11)
    n = 12_000  # above the size where scipy's exact p-value is used
    orig = pd.DataFrame({"x": np.round(rng.normal(size=n), 2), "y": rng.exponential(size=n)})
    prot = orig + rng.normal(0, 0.05, size=orig.shape)
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}}}
    pair = encode_pair(orig, prot, spec)
    res = ks(pair)
    for name in ("x", "y"):
        assert res.by_variable[name] == stats.ks_2samp(orig[name], prot[name]).statistic
        assert ("levels", name, ORIGINAL) in pair.cache and ("levels", name, PROTECTED) in pair.cache


@pytest.mark.parametrize("order", [("ks", "ldu_uni"), ("ldu_uni", "ks")])
def test_the_ks_measure_and_the_gdu_univariate_test_merge_the_levels_once(monkeypatch, order):
    """Unweighted, large files: one KS statistic per variable for both measures (whichever runs first),
    scipy's."""
    from infoloss.measures import distributions, gdu

    rng = np.random.default_rng(12)
    n = 12_000  # above the size where scipy's exact p-value is used
    orig = pd.DataFrame({"x": np.round(rng.normal(size=n), 2), "y": rng.exponential(size=n)})
    orig.loc[::17, "y"] = np.nan
    prot = orig + rng.normal(0, 0.05, size=orig.shape)
    spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}}}
    pair = encode_pair(orig, prot, spec)
    merged = []
    real = distributions.ks_levels_statistic
    for module in (distributions, gdu):
        monkeypatch.setattr(module, "ks_levels_statistic", lambda *a: merged.append(a) or real(*a))
    results = {mid: {"ks": ks, "ldu_uni": gdu.ldu_uni}[mid](pair) for mid in order}
    assert len(merged) == 2
    for name in ("x", "y"):
        expected = stats.ks_2samp(orig[name].dropna(), prot[name].dropna()).statistic
        assert results["ks"].by_variable[name] == expected
        assert results["ldu_uni"].details["variables"][name]["statistic"] == expected


def test_the_scenarios_of_one_compare_sort_the_original_once(monkeypatch):
    """Each protected file's variables are sorted for its scenario; the original's once for all of them,
    with every scenario's KS and GDU results equal to the scenario compared alone."""
    import infoloss
    import infoloss.pair as pair_module
    from infoloss.synth import make_spec, make_survey, protect

    df = make_survey(800, n_continuous=3, n_categorical=2, seed=4)
    prots = [protect(df, noise=0.1 * (k + 1), pram=0.1, seed=9 + k) for k in range(2)]
    spec = make_spec(df)
    original_arrays = []
    sorted_ = []
    real = pair_module.sorted_levels
    monkeypatch.setattr(pair_module, "sorted_levels", lambda x: sorted_.append(x) or real(x))
    ids = ["ks", "ldu_uni"]
    together = infoloss.compare(df, prots, spec, measures=ids)
    continuous = [n for n, v in spec["variables"].items() if v.get("scale") == "continuous"]
    original_arrays = [x for x in sorted_ if any(np.array_equal(x, df[n].to_numpy(float), equal_nan=True)
                                                 for n in continuous)]
    assert len(original_arrays) == len(continuous)
    assert len(sorted_) == 3 * len(continuous)
    for scenario, prot in zip(together.scenarios, prots):
        alone = infoloss.compare(df, prot, spec, measures=ids).scenarios[0]
        for mid in ids:
            assert scenario.measures[mid].value == alone.measures[mid].value
            assert scenario.measures[mid].by_variable == alone.measures[mid].by_variable


def test_a_variable_the_protection_left_alone_is_one_array_sorted_once(monkeypatch):
    """An unchanged continuous variable is held once for both files, and its levels and ranks computed once;
    a change anywhere (past the first block too), a missing value moved or a zero's sign makes two arrays."""
    import infoloss.pair as pair_module

    rng = np.random.default_rng(3)
    n = 10_000  # longer than the block compared first
    same = rng.normal(size=n)
    same[::37] = np.nan
    late, moved, signed = rng.normal(size=n), rng.normal(size=n), rng.normal(size=n)
    moved[5] = np.nan
    signed[9_000] = 0.0
    orig = pd.DataFrame({"same": same, "late": late, "moved": moved, "signed": signed})
    prot = orig.copy()
    prot.loc[9_999, "late"] += 1e-9
    prot.loc[5, "moved"], prot.loc[6, "moved"] = moved[6], np.nan
    prot.loc[9_000, "signed"] = -0.0
    spec = {"variables": {name: {"scale": "continuous"} for name in orig.columns}}
    sorted_ = []
    real = pair_module.sorted_levels
    monkeypatch.setattr(pair_module, "sorted_levels", lambda x: sorted_.append(x) or real(x))
    pair = encode_pair(orig, prot, spec)
    assert [name for name in orig.columns if pair.unchanged(name)] == ["same"]
    assert pair.continuous["same"].prot is pair.continuous["same"].orig
    pair.warm_levels(list(orig.columns))
    assert len(sorted_) == 2 * len(orig.columns) - 1
    assert pair.levels("same", PROTECTED) is pair.levels("same", ORIGINAL)
    assert pair.ranks("same", PROTECTED) is pair.ranks("same", ORIGINAL)
    for name in ("late", "moved", "signed"):
        assert pair.levels(name, PROTECTED) is not pair.levels(name, ORIGINAL)
    assert np.array_equal(pair.continuous["same"].prot, prot["same"].to_numpy(), equal_nan=True)


def test_sharing_an_unchanged_variables_array_changes_no_result(monkeypatch):
    """Every measure of the families that use the shared levels and ranks, and the report's statistics, are
    the same whether an unchanged variable is held once or as two equal arrays."""
    import infoloss
    import infoloss.pair as pair_module
    from infoloss.synth import make_spec, make_survey, protect

    df = make_survey(600, n_continuous=4, n_categorical=3, seed=5)
    spec = make_spec(df)  # with the weight column, which the protected file keeps: one array for both files
    prot = protect(df, noise=0.2, pram=0.1, seed=8)
    continuous = [n for n, v in spec["variables"].items() if v.get("scale") == "continuous"]
    categorical = [n for n, v in spec["variables"].items() if v.get("scale") in ("nominal", "ordinal")]
    for name in continuous[:2] + categorical[:2]:  # variables left alone, the others noised or PRAM-ed
        prot[name] = df[name]
    pair = encode_pair(df, prot, spec)
    assert sum(pair.unchanged(n) for n in continuous + categorical) == 4
    assert pair.weights(PROTECTED) is pair.weights(ORIGINAL)
    ids = ["ks", "ecdf_max", "ecdf_mean", "ldu_uni", "ldu_biv", "aldu_biv", "grc", "gdu", "il1s", "eigen",
           "records_changed", "x_mse", "ctbil", "ebil", "ebil_joint", "cramers_v_il", "hellinger", "lambda",
           "chi2_distance", "categorical_distance"]
    shared = infoloss.compare(df, prot, spec, measures=ids).to_dict()
    monkeypatch.setattr(pair_module, "_same_floats", lambda a, b: False)
    monkeypatch.setattr(pair_module, "_same_codes", lambda a, b: False)
    apart = infoloss.compare(df, prot, spec, measures=ids).to_dict()
    for report in (shared, apart):
        for scenario in report["scenarios"]:
            scenario.pop("seconds", None)
        report.pop("infoloss", None)
    # the GDU's protected tests of the unchanged pair are the original's, not a second run (whose sums may
    # differ in the last bit): equal within 1e-12
    _assert_close(shared, apart)


def _assert_close(a, b, path="result"):
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), path
        for key in a:
            _assert_close(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _assert_close(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert a == pytest.approx(b, rel=1e-12, abs=1e-300, nan_ok=True), path
    else:
        assert a == b, path


def test_the_gdu_tests_a_pair_of_unchanged_variables_once(monkeypatch):
    """With two continuous variables left alone, their pair is tested in the original only; the protected
    file's result is a copy (the model then sees no loss on that pair)."""
    import infoloss.measures._gdu_pairs as gdu_pairs
    import infoloss.pair as pair_module
    from infoloss.measures.gdu import ldu_biv

    rng = np.random.default_rng(12)
    n = 400
    orig = pd.DataFrame({"x": rng.normal(size=n), "y": rng.normal(size=n), "z": rng.normal(size=n)})
    orig.loc[::17, "y"] = np.nan
    prot = orig.copy()
    prot["z"] = orig["z"] + rng.normal(0, 0.5, size=n)
    spec = {"variables": {name: {"scale": "continuous"} for name in orig.columns}}
    tested = []
    real = gdu_pairs._file_tester

    def counting(pair, variables, plan, which, use_w, workers=1):
        one = real(pair, variables, plan, which, use_w, workers)
        return lambda item: tested.append((which, item["a"], item["b"])) or one(item)

    monkeypatch.setattr(gdu_pairs, "_file_tester", counting)
    res = ldu_biv(encode_pair(orig, prot, spec))
    pairs = {tuple(sorted(p[1:])) for p in tested}
    assert pairs == {("x", "y"), ("x", "z"), ("y", "z")}
    assert sorted(tuple(sorted(p[1:])) for p in tested if p[0] == PROTECTED) == [("x", "z"), ("y", "z")]
    monkeypatch.setattr(pair_module, "_same_floats", lambda a, b: False)  # two equal arrays: tested twice
    apart = ldu_biv(encode_pair(orig, prot, spec))
    assert len(tested) == 5 + 6
    assert res.value == pytest.approx(apart.value, rel=1e-12)
    _assert_close(res.details, apart.details)


def test_a_categorical_variable_left_alone_is_one_code_array_with_its_tables_shared():
    rng = np.random.default_rng(21)
    n = 6_000
    orig = pd.DataFrame({"a": rng.choice(list("xyz"), n), "b": rng.choice(list("pq"), n),
                         "c": rng.choice(list("uvw"), n)})
    orig.loc[::50, "b"] = None
    prot = orig.copy()
    prot.loc[5_999, "c"] = "u" if orig.loc[5_999, "c"] != "u" else "v"  # one change, past the first codes
    spec = {"variables": {name: {"scale": "nominal"} for name in orig.columns}}
    pair = encode_pair(orig, prot, spec)
    assert [name for name in orig.columns if pair.unchanged(name)] == ["a", "b"]
    assert pair.table(("a", "b"), PROTECTED) is pair.table(("a", "b"), ORIGINAL)
    assert pair.cell_codes("b", PROTECTED) is pair.cell_codes("b", ORIGINAL)
    assert pair.table(("a", "c"), PROTECTED) is not pair.table(("a", "c"), ORIGINAL)
    expected = pd.crosstab(prot["a"], prot["c"]).to_numpy()
    assert np.array_equal(pair.table(("a", "c"), PROTECTED)[:-1, :-1], expected)
    # a category the protected file adds: the codes differ, so two arrays
    prot.loc[0, "a"] = "new"
    assert not encode_pair(orig, prot, spec).unchanged("a")


def test_the_original_weighted_level_sums_are_summed_once_for_all_scenarios():
    from infoloss.measures.distributions import weighted_levels_ks
    from infoloss.synth import make_spec, make_survey, protect

    df = make_survey(12_000, n_continuous=2, n_categorical=1, seed=5)
    names = [n for n, v in make_spec(df)["variables"].items() if v.get("scale") == "continuous"]
    df.loc[df.index[::13], names[0]] = np.nan  # one variable with missing values, one without
    spec = make_spec(df)
    assert any(v.get("role") == "weight" for v in spec["variables"].values())
    prots = [protect(df, noise=0.1 * (k + 1), pram=0.1, seed=3 + k) for k in range(2)]
    cache: dict = {}
    pairs = [encode_pair(df, prot, spec, original_cache=cache) for prot in prots]
    for name in names:
        shared = [weighted_levels_ks(pairs[0], name)]
        held = cache[("original-arrays", ("weighted-level-sums", name))]
        shared.append(weighted_levels_ks(pairs[1], name))
        assert cache[("original-arrays", ("weighted-level-sums", name))] is held  # not summed again
        assert [weighted_levels_ks(encode_pair(df, prot, spec), name) for prot in prots] == shared
        w = df[next(n for n, v in spec["variables"].items() if v.get("role") == "weight")].to_numpy(float)
        x = df[name].to_numpy(float)
        lv = sorted_levels(x)
        ok = ~np.isnan(x)
        assert np.array_equal(held[1], np.bincount(lv.codes[ok], weights=w[ok], minlength=lv.counts.shape[0]))
