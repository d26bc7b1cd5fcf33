"""Bounded memory at any number of categories (infoloss/limits.py and its users), checked against
brute-force pandas / scipy computations and against the dense code paths."""

import math
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.special import entr

import infoloss.limits as limits
import infoloss.measures.tables as tables_module
from infoloss.errors import NotComputed
from infoloss.measures.gdu import ldu_biv
from infoloss.measures.propensity import cluster_utility, pmse
from infoloss.measures.tables import aad, cramers_v_il, ctbil, ebil, hellinger
from infoloss.pair import ORIGINAL, PROTECTED, encode_pair
from infoloss.registry import registered
from infoloss.spec import infer_spec, load_spec

DATA = Path(__file__).resolve().parent / "data"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def testdata_pram():
    orig = pd.read_csv(DATA / "testdata" / "original.csv")
    prot = pd.read_csv(DATA / "testdata" / "recode_pram_noise50.csv")
    spec = load_spec(DATA / "testdata" / "spec.yaml")
    return orig, prot, spec


def high_cardinality(n=20_000, k1=10_000, k2=8_000, seed=0):
    """Two nominal variables of thousands of categories (their two-way table: 80 million cells) and two small ones."""
    rng = np.random.default_rng(seed)
    orig = pd.DataFrame({
        "occ": [f"o{i}" for i in rng.permutation(np.arange(n) % k1)],
        "place": [f"p{i}" for i in rng.permutation(np.arange(n) % k2)],
        "sex": rng.choice(["m", "f"], n),
        "x": rng.normal(size=n),
    })
    prot = orig.copy()
    swap = rng.random(n) < 0.1
    prot.loc[swap, "occ"] = rng.permutation(orig["occ"].to_numpy())[: int(swap.sum())]
    prot.loc[rng.random(n) < 0.02, "place"] = None
    spec = {"variables": {"occ": {"scale": "nominal"}, "place": {"scale": "nominal"},
                          "sex": {"scale": "nominal"}, "x": {"scale": "continuous"}}}
    return orig, prot, spec


# ---------------------------------------------------------------------------
# the helpers
# ---------------------------------------------------------------------------
def test_combined_codes_are_equal_exactly_for_equal_combinations_even_beyond_int64():
    rng = np.random.default_rng(1)
    codes = [rng.integers(0, 5, 2000) for _ in range(3)]
    sizes = [2**30, 2**30, 2**30]  # a product of 2**90: the running code is compressed first
    flat = limits.combined_codes(codes, sizes)
    rows = np.column_stack(codes)
    _, by_rows = np.unique(rows, axis=0, return_inverse=True)
    _, by_flat = np.unique(flat, return_inverse=True)
    assert np.array_equal(by_rows.ravel(), by_flat.ravel())


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("distinct", [1, 7, 5_000, 200_000])
def test_unique_inverse_is_numpys_unique(dtype, distinct):
    rng = np.random.default_rng(distinct)
    codes = rng.integers(-3, distinct, 200_000).astype(dtype) * 1_000_003 % (2**31 - 1)
    uniques, inverse = limits.unique_inverse(codes)
    want_uniques, want_inverse = np.unique(codes, return_inverse=True)
    assert np.array_equal(uniques, want_uniques) and uniques.dtype == want_uniques.dtype
    assert np.array_equal(inverse, want_inverse) and inverse.dtype == np.intp and inverse.ndim == 1


def test_unique_inverse_of_no_codes():
    uniques, inverse = limits.unique_inverse(np.zeros(0, dtype=np.int64))
    assert uniques.shape == (0,) and inverse.shape == (0,) and inverse.dtype == np.intp


def test_aligned_counts_match_pandas_groupby(testdata_pram):
    orig, prot, spec = testdata_pram
    pair = encode_pair(orig, prot, spec)
    f, g, (a, b) = limits.aligned_counts(pair, ("roof", "walls"), weighted=True)
    got = {}
    for k in range(f.shape[0]):
        got[(pair.categorical["roof"].categories + ["<NA>"])[a[k]],
            (pair.categorical["walls"].categories + ["<NA>"])[b[k]]] = (f[k], g[k])
    w = spec.weight
    for df, which in ((orig, 0), (prot, 1)):
        keys = df[["roof", "walls"]].astype(object).where(df[["roof", "walls"]].notna(), "<NA>").astype(str)
        sums = df[w].groupby([keys["roof"], keys["walls"]]).sum()
        for (r, c), total in sums.items():
            assert got[(r, c)][which] == pytest.approx(total)
    # cells observed in neither file are not listed
    assert np.all((f > 0) | (g > 0))


def test_check_dense_names_variables_categories_and_memory():
    orig, prot, spec = high_cardinality()
    pair = encode_pair(orig, prot, spec)
    with pytest.raises(NotComputed) as info:
        pair.table(("occ", "place"), ORIGINAL)
    text = str(info.value)
    assert "occ and place have 10,000 and 8,000 categories" in text
    assert "the table of occ × place would need 610 MiB (more than the limit of 10,000,000 cells)" in text
    assert pair.table("occ", ORIGINAL).sum() == len(orig)  # one-way tables are fine


def test_size_text_and_top_levels():
    assert limits.size_text(100_001**2 * 8) == "74.5 GiB"
    assert limits.top_levels(np.array([3, 3, 1, 9]), limit=3).tolist() == [0, 3]  # ties: the lower index
    assert limits.top_levels(np.arange(5), limit=5) is None


# ---------------------------------------------------------------------------
# tables: the observed-cells path gives the dense path's values
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("weighted", [False, True])
def test_sparse_tables_equal_the_dense_ones(testdata_pram, monkeypatch, weighted):
    orig, prot, spec = testdata_pram
    pair = encode_pair(orig, prot, spec)
    measures = {"ctbil": ctbil, "ctbil3": lambda q, **kw: ctbil(q, K=3, **kw), "aad": aad, "hellinger": hellinger,
                "cramers_v_il": cramers_v_il}
    dense = {k: m(pair, weighted=weighted) for k, m in measures.items()}
    monkeypatch.setattr(limits, "MAX_DENSE_CELLS", 0)  # every table is "too large": observed cells only
    for name, m in measures.items():
        sparse_r, dense_r = m(pair, weighted=weighted), dense[name]
        assert sparse_r.details.get("cells") == dense_r.details.get("cells")
        assert sparse_r.value == pytest.approx(dense_r.value, rel=1e-12), name
        for part in ("by_variable", "by_pair"):
            a, b = getattr(sparse_r, part) or {}, getattr(dense_r, part) or {}
            assert a.keys() == b.keys()
            assert all(a[k] == pytest.approx(b[k], rel=1e-12, abs=1e-15) for k in a), name
        for key in ("cv_original", "cv_protected"):
            if key in dense_r.details:
                assert sparse_r.details[key] == pytest.approx(dense_r.details[key], rel=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_sparse_cramers_v_of_unassociated_and_associated_tables(monkeypatch, weighted):
    # rows in proportion (chi2 = 0: V = 0, the pair left out), and random tables with empty cells, against scipy
    from scipy.stats import chi2_contingency

    rng = np.random.default_rng(7)
    tables = [np.outer([1, 3.5, 3], [4, 1]) * 8, np.outer([2, 5, 1, 7], [3, 1, 9]) * 11]
    tables += [rng.integers(0, 4, size=(rng.integers(2, 7), rng.integers(2, 7))) for _ in range(20)]
    monkeypatch.setattr(limits, "MAX_DENSE_CELLS", 0)  # every table is "too large": observed cells only
    for table in tables:
        table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0].astype(float)
        if min(table.shape) < 2:
            continue
        i, j = np.nonzero(table > 0)
        counts = table[i, j]
        w = rng.uniform(0.5, 2.0, size=counts.sum().astype(int)) if weighted else None
        x, y = np.repeat(i, counts.astype(int)).astype(str), np.repeat(j, counts.astype(int)).astype(str)
        frame = pd.DataFrame({"x": x, "y": y, "w": w if weighted else 1.0})
        spec = {"variables": {"x": {"scale": "nominal"}, "y": {"scale": "nominal"}, "w": {"role": "weight"}},
                "pairing": "none"}
        observed = pd.crosstab(frame["x"], frame["y"], values=frame["w"], aggfunc="sum").fillna(0).to_numpy()
        chi2 = chi2_contingency(observed, correction=False).statistic
        v = np.sqrt(chi2 / (observed.sum() * (min(observed.shape) - 1)))
        pair = encode_pair(frame, frame.iloc[::-1].reset_index(drop=True), spec)
        v_sparse, _ = tables_module._cramers_v_sparse(pair, ("x", "y"), ORIGINAL, weighted)
        assert v_sparse == pytest.approx(v, rel=1e-12, abs=1e-14)
        if v < 1e-12 and not weighted:
            assert v_sparse < 1e-14
            with pytest.raises(NotComputed, match="zero or undefined for every pair"):
                cramers_v_il(pair, weighted=weighted)


def test_ebil_sparse_transition_equals_a_brute_force_posterior_entropy(testdata_pram):
    orig, prot, spec = testdata_pram
    pair = encode_pair(orig, prot, spec)
    r = ebil(pair, weighted=False)
    for name in ("roof", "walls", "age"):
        o = orig[name].astype(object).where(orig[name].notna(), "NA").astype(str)
        p = prot[name].astype(object).where(prot[name].notna(), "NA").astype(str)
        joint = pd.crosstab(o, p).to_numpy(dtype=float)  # rows original, columns released
        released = joint.sum(axis=0)
        expected = float(sum(released[j] * entr(joint[:, j] / released[j]).sum() for j in range(joint.shape[1])))
        assert r.by_variable[name] == pytest.approx(expected, rel=1e-12)


def test_every_measure_runs_on_two_high_cardinality_variables():
    orig, prot, spec = high_cardinality()
    pair = encode_pair(orig, prot, spec)
    # the same variables as key, sensitive and target: the risk, clustering and mining families too
    roles = {"variables": {**spec["variables"], "occ": {"scale": "nominal", "role": "key"},
                           "place": {"scale": "nominal", "role": "sensitive"},
                           "sex": {"scale": "nominal", "role": "target"}}}
    computed = set()
    for p, families in ((pair, None), (encode_pair(orig, prot, roles), {"mining", "risk"})):
        for info in registered():
            if families is not None and info.family not in families:
                continue
            try:
                result = info.func(p)
            except NotComputed as exc:
                assert str(exc), info.id
                continue
            assert math.isfinite(result.value), info.id
            computed.add(info.id)
    assert {"cluster_ari", "dcr_holdout", "ml_score_ratio", "l_diversity", "sample_uniques"} <= computed
    # the sparse tables against a brute-force pandas count of the two-way table occ x place
    keys = ["occ", "place"]
    counts = [df[keys].astype(object).where(df[keys].notna(), "NA").astype(str).value_counts()
              for df in (orig, prot)]
    both = pd.concat(counts, axis=1).fillna(0.0).to_numpy()
    raw_pair = np.abs(both[:, 0] - both[:, 1]).sum()
    assert aad(pair).by_pair["occ|place"] == pytest.approx(raw_pair / (10_000 * 8_001))  # place has missing
    p, q = both[:, 0] / both[:, 0].sum(), both[:, 1] / both[:, 1].sum()
    assert hellinger(pair).by_pair["occ|place"] == pytest.approx(math.sqrt(0.5 * ((np.sqrt(p) - np.sqrt(q)) ** 2).sum()))
    biv = ldu_biv(pair)
    assert "occ|place" not in biv.by_pair
    assert "occ and place have 10,000 and 8,000 categories" in biv.details["not_computed"]["occ|place"]


# ---------------------------------------------------------------------------
# models: levels beyond the limit are grouped
# ---------------------------------------------------------------------------
def test_propensity_models_group_rare_levels_as_the_same_data_grouped_by_hand(monkeypatch):
    monkeypatch.setattr(limits, "MAX_MODEL_LEVELS", 6)
    rng = np.random.default_rng(4)
    n = 600
    level = rng.choice(12, n, p=np.r_[np.full(5, 0.16), np.full(7, 0.2 / 7)])
    orig = pd.DataFrame({"g": [f"c{i:02d}" for i in level], "x": rng.normal(size=n)})
    prot = orig.copy()
    prot["g"] = orig["g"].sample(frac=1.0, random_state=1).to_numpy()
    prot["x"] += rng.normal(scale=0.5, size=n)
    spec = {"variables": {"g": {"scale": "nominal"}, "x": {"scale": "continuous"}}, "pairing": "none"}
    grouped = pmse(orig, prot, spec)
    assert "12 categories" in grouped.details["grouped"]["g"] and "other 7" in grouped.details["grouped"]["g"]
    # by hand: the 5 most frequent levels of the merged file kept, the rest one level
    merged = pd.concat([orig["g"], prot["g"]])
    top = merged.value_counts().sort_index().sort_values(ascending=False, kind="stable").index[:5]
    by_hand = [df.assign(g=df["g"].where(df["g"].isin(top), "zz_other")) for df in (orig, prot)]
    monkeypatch.setattr(limits, "MAX_MODEL_LEVELS", 100)
    plain = pmse(by_hand[0], by_hand[1], spec)
    assert "grouped" not in plain.details
    assert grouped.value == pytest.approx(plain.value, rel=1e-6)
    assert cluster_utility(orig, prot, spec).value >= 0


# ---------------------------------------------------------------------------
# infoloss spec warns about identifier-like columns
# ---------------------------------------------------------------------------
def test_infer_spec_warns_about_identifier_like_and_many_category_columns():
    n = 3000
    df = pd.DataFrame({"code": [f"c{i}" for i in range(n)], "occupation": [f"o{i % 1500}" for i in range(n)],
                       "g": ["a", "b", "c"] * (n // 3)})
    with pytest.warns(limits.CardinalityWarning) as caught:
        spec = infer_spec(df)
    messages = [str(w.message) for w in caught]
    assert any("'code' looks like an identifier: 3,000 distinct values in 3,000 records" in m for m in messages)
    assert any("'occupation' looks like an identifier: 1,500 distinct values" in m for m in messages)
    assert "looks like an identifier" in spec.to_yaml()
    with warnings.catch_warnings():
        warnings.simplefilter("error", limits.CardinalityWarning)
        infer_spec(df[["g"]])  # no warning for an ordinary column
    many = pd.DataFrame({"detail": [f"d{i % 1200}" for i in range(10_000)]})
    with pytest.warns(limits.CardinalityWarning, match="has 1,200 categories"):
        infer_spec(many)


def test_spec_command_prints_the_warning_on_stderr_and_a_comment_in_the_yaml(tmp_path):
    path = tmp_path / "ids.csv"
    pd.DataFrame({"person": [f"p{i}" for i in range(200)], "x": np.arange(200) / 7}).to_csv(path, index=False)
    done = subprocess.run([sys.executable, "-m", "infoloss.cli", "spec", str(path)], capture_output=True, text=True,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "warning: column 'person' looks like an identifier: 200 distinct values in 200 records" in done.stderr
    assert "# text, 200 distinct values; looks like an identifier: 200 distinct values in 200 records" in done.stdout
    assert "Traceback" not in done.stderr


def test_large_tables_are_not_cached_and_gdu_runs_them_one_pair_at_a_time_with_the_same_results(
        testdata_pram, monkeypatch):
    orig, prot, spec = testdata_pram
    reference = ldu_biv(encode_pair(orig, prot, spec))
    monkeypatch.setattr(limits, "MAX_CACHED_CELLS", 0)  # every chi-squared pair is "large"
    pair = encode_pair(orig, prot, spec)
    one_at_a_time = ldu_biv(pair)
    assert one_at_a_time.by_pair == reference.by_pair
    assert one_at_a_time.details["pairs"] == reference.details["pairs"]
    table = pair.table(("roof", "walls"), ORIGINAL)
    assert table.sum() == len(orig)
    assert not any(isinstance(key, tuple) and key[0] == "table" for key in pair.cache)


# ---------------------------------------------------------------------------
# many variables: the measures that compare every pair stop at limits.MAX_PAIRS pairs
# ---------------------------------------------------------------------------
def _wide_pair(n_cat=5, n_cont=5, n=200, seed=3):
    rng = np.random.default_rng(seed)
    orig = pd.DataFrame({**{f"k{j}": rng.choice(list("abc"), n) for j in range(n_cat)},
                         **{f"x{j}": rng.normal(size=n) for j in range(n_cont)}})
    prot = orig.copy()
    for j in range(n_cont):
        prot[f"x{j}"] += rng.normal(scale=0.2, size=n)
    prot.loc[rng.choice(n, 20, replace=False), "k0"] = "a"
    spec = {"variables": {**{f"k{j}": {"scale": "nominal"} for j in range(n_cat)},
                          **{f"x{j}": {"scale": "continuous"} for j in range(n_cont)}}}
    return orig, prot, spec


def test_measures_comparing_every_pair_are_not_computed_beyond_max_pairs(monkeypatch):
    # 5 categorical and 5 continuous variables: 10 pairs of each kind, 45 pairs of the GDU model's 10 variables,
    # and ctbil's K=3 has 10 pairs and 10 triples
    import infoloss

    orig, prot, spec = _wide_pair()
    matrices = ["r_mse", "v_mse", "rf_mae", "f_mv", "c_mse", "eigen", "gamma"]
    ids = ["ldu_biv", "aldu_biv", "gdu", "aad", "hellinger", "cramers_v_il", "chi2_distance", "ctbil", *matrices,
           "ldu_uni", "ks", "x_mse", "xbar_mae", "s_mv"]
    before = infoloss.compare(orig, prot, spec, measures=ids)
    assert not before.scenarios[0].not_computed
    monkeypatch.setattr(limits, "MAX_PAIRS", 10)
    report = infoloss.compare(orig, prot, spec, measures=ids, options={"ctbil": {"K": 3}})
    scenario = report.scenarios[0]
    assert set(scenario.not_computed) == {"ldu_biv", "aldu_biv", "gdu", "ctbil"}
    assert scenario.not_computed["ldu_biv"].startswith("its 10 analysed variables make 45 pairs, more than the 10 ")
    assert "list the variables to analyse in the spec" in scenario.not_computed["ldu_biv"]
    assert scenario.not_computed["ctbil"].startswith("its 5 categorical variables make 20 tables of 2 to 3 variables")
    for mid in ("aad", "hellinger", "cramers_v_il", "chi2_distance", *matrices, "ldu_uni", "ks"):  # 10 pairs
        assert scenario.measures[mid].value == pytest.approx(before.scenarios[0].measures[mid].value, rel=1e-12)
    monkeypatch.setattr(limits, "MAX_PAIRS", 9)
    scenario = infoloss.compare(orig, prot, spec, measures=ids).scenarios[0]
    assert {"aad", "hellinger", "cramers_v_il", "chi2_distance", "ctbil", *matrices} <= set(scenario.not_computed)
    for mid in matrices:
        assert scenario.not_computed[mid].startswith("its 5 continuous variables make 10 pairs"), mid
    assert scenario.not_computed["cramers_v_il"].startswith("its 5 categorical variables make 10 pairs")
    assert {"ldu_uni", "ks", "x_mse", "xbar_mae", "s_mv"} <= set(scenario.measures)  # one variable at a time


def test_statistics_leave_out_their_matrices_beyond_max_pairs(monkeypatch):
    import infoloss

    orig, prot, spec = _wide_pair()
    monkeypatch.setattr(limits, "MAX_PAIRS", 9)  # 5 continuous variables: 10 pairs
    report = infoloss.compare(orig, prot, spec, measures=["ks"])
    stats = report.scenarios[0].statistics
    assert stats["orig"]["cov"] is None and stats["prot"]["corr"] is None
    assert stats["orig"]["mean"]["x0"] == pytest.approx(orig["x0"].mean())
    assert stats["matrices_left_out"].startswith("the covariance and correlation matrices are left out because 5 "
                                                 "continuous variables make 10 pairs")
    html = report.to_html()
    assert "No correlations drawn: the covariance and correlation matrices are left out because 5" in html
    safe = report.to_dict(safe=True)["scenarios"][0]["statistics"]
    assert safe["orig"]["corr"] is None and safe["matrices_left_out"] == stats["matrices_left_out"]
    monkeypatch.setattr(limits, "MAX_PAIRS", 10)
    stats = infoloss.compare(orig, prot, spec, measures=["ks"]).scenarios[0].statistics
    assert len(stats["orig"]["corr"]) == 5 and "matrices_left_out" not in stats
