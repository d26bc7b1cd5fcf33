"""Issue 15 in the tables family: the χ² distance and the multivariate (joint) EBIL.

Expected values come from scipy.stats.chisquare / chi2_contingency, from a brute-force
Kronecker product (numpy.kron) of the PRAM matrices, and from pandas cross-tabulations.
"""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import entr

from infoloss.errors import InputError, NotComputed
from infoloss.measures.chi2 import chi2_distance
from infoloss.measures.ebil_joint import ebil_joint, kron_apply
from infoloss.pair import encode_pair
from infoloss.spec import load_spec

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="module")
def testdata_pram():
    spec = load_spec(DATA / "testdata" / "spec.yaml")
    orig = pd.read_csv(DATA / "testdata" / "original.csv")
    prot = pd.read_csv(DATA / "testdata" / "recode_pram_noise50.csv")
    return spec, orig, prot


def _counts(df, cols, cats):
    """Counts of the combinations of ``cols`` over the given category lists (missing as its own label)."""
    keys = df[cols].astype("object").where(df[cols].notna(), "NA").astype(str)
    index = pd.MultiIndex.from_product(cats) if len(cols) > 1 else pd.Index(cats[0])
    grouped = keys.groupby(cols).size() if len(cols) > 1 else keys[cols[0]].value_counts()
    return grouped.reindex(index, fill_value=0).to_numpy(float)


def _cats(orig, prot, col):
    values = pd.concat([orig[col], prot[col]])
    cats = sorted({str(v) for v in values.dropna()}, key=float)
    return cats + (["NA"] if values.isna().any() else [])


# ---------------------------------------------------------------------------
# χ² distance
# ---------------------------------------------------------------------------
def test_chi2_pearson_equals_scipy_chisquare_per_table(testdata_pram):
    spec, orig, prot = testdata_pram
    r = chi2_distance(orig, prot, spec, form="pearson", weighted=False)
    for col in ("walls", "water", "age", "sex"):
        cats = [_cats(orig, prot, col)]
        o, p = _counts(orig, [col], cats), _counts(prot, [col], cats)
        keep = o > 0
        assert p[~keep].sum() == 0
        expected = stats.chisquare(p[keep], o[keep] / o.sum() * p.sum()).statistic / p.sum()
        assert r.by_variable[col] == pytest.approx(expected, rel=1e-10), col
        assert r.details["tests"][col]["pearson"]["statistic"] == pytest.approx(expected * p.sum(), rel=1e-10)
    # a two-way table where the protected file fills a cell empty in the original is left out
    assert r.details["not_computed"]
    key = next(iter(r.details["not_computed"]))
    assert key not in (r.by_pair or {})


def test_chi2_symmetric_is_the_homogeneity_phi2_for_equal_totals(testdata_pram):
    spec, orig, prot = testdata_pram
    r = chi2_distance(orig, prot, spec, weighted=False)
    for a, b in (("walls", "water"), ("urbrur", "age")):
        cats = [_cats(orig, prot, a), _cats(orig, prot, b)]
        o, p = _counts(orig, [a, b], cats), _counts(prot, [a, b], cats)
        table = np.vstack([o, p])
        table = table[:, table.sum(axis=0) > 0]
        res = stats.chi2_contingency(table, correction=False)
        assert r.by_pair[f"{a}|{b}"] == pytest.approx(res.statistic / table.sum(), rel=1e-10)
        assert r.details["tests"][f"{a}|{b}"]["homogeneity"]["p_value"] == pytest.approx(res.pvalue, rel=1e-9)
    assert r.value == pytest.approx(np.mean(list(r.by_variable.values()) + list(r.by_pair.values())))
    assert 0 <= r.value <= 1


def test_chi2_hand_worked_unequal_sizes_and_smoothing():
    orig = pd.DataFrame({"x": ["a", "a", "b", "b"]})
    prot = pd.DataFrame({"x": ["a", "a", "a", "a", "a", "b", "c", "c"]})
    spec = {"variables": {"x": {"scale": "nominal"}}, "pairing": "none"}
    # p = (1/2, 1/2, 0), q = (5/8, 1/8, 2/8)
    sym = 0.5 * ((1 / 8) ** 2 / (9 / 8) + (3 / 8) ** 2 / (5 / 8) + (2 / 8) ** 2 / (2 / 8))
    assert chi2_distance(orig, prot, spec).value == pytest.approx(sym)
    with pytest.raises(NotComputed, match="empty in the original"):
        chi2_distance(orig, prot, spec, form="pearson")
    # smoothing 0.5: original (2.5, 2.5, 0.5)/5.5, protected (5.5, 1.5, 2.5)/9.5
    p, q = np.array([2.5, 2.5, 0.5]) / 5.5, np.array([5.5, 1.5, 2.5]) / 9.5
    expected = stats.chisquare(q * 9.5, p * 9.5).statistic / 9.5
    assert chi2_distance(orig, prot, spec, form="pearson", smoothing=0.5).value == pytest.approx(expected)


def test_chi2_weighted_uses_weighted_proportions_and_equal_weights_change_nothing():
    rng = np.random.default_rng(4)
    n = 300
    orig = pd.DataFrame({"x": rng.choice(list("abc"), n), "y": rng.choice(list("uv"), n), "w": rng.uniform(1, 5, n)})
    prot = orig.copy()
    prot.loc[rng.choice(n, 40, replace=False), "x"] = "a"
    spec = {"variables": {"x": {"scale": "nominal"}, "y": {"scale": "nominal"}, "w": {"role": "weight"}}}
    r = chi2_distance(orig, prot, spec)
    p = orig.groupby("x")["w"].sum().reindex(list("abc")).to_numpy()
    q = prot.groupby("x")["w"].sum().reindex(list("abc")).to_numpy()
    p, q = p / p.sum(), q / q.sum()
    assert r.details["weighted"] is True and "tests" not in r.details
    assert r.by_variable["x"] == pytest.approx(0.5 * np.sum((p - q) ** 2 / (p + q)))
    equal = orig.assign(w=3.0), prot.assign(w=3.0)
    for form in ("symmetric", "pearson"):
        a = chi2_distance(*equal, spec, form=form, smoothing=0.5)
        b = chi2_distance(*equal, spec, form=form, smoothing=0.5, weighted=False)
        assert a.value == pytest.approx(b.value, rel=1e-12) and a.details["weighted"]


def test_chi2_identical_files_give_zero(testdata_pram):
    spec, orig, _ = testdata_pram
    for form in ("symmetric", "pearson"):
        assert chi2_distance(orig, orig.copy(), spec, form=form).value == 0.0


# ---------------------------------------------------------------------------
# joint EBIL
# ---------------------------------------------------------------------------
def _write_matrix(path, labels_in, labels_out, m):
    lines = ["," + ",".join(labels_out)] + [f"{a}," + ",".join(f"{v:.17g}" for v in row) for a, row in zip(labels_in, m)]
    path.write_text("\n".join(lines) + "\n")
    return path.name


def _random_markov(rng, r, c, diag=0.7):
    m = rng.dirichlet(np.ones(c), size=r) * (1 - diag)
    m[np.arange(r), np.arange(r) % c] += diag
    return m


def _pram(rng, x, labels_in, labels_out, m):
    idx = pd.Index(labels_in).get_indexer(x)
    cum = m.cumsum(axis=1)[idx]
    j = (rng.random(len(x))[:, None] > cum).sum(axis=1)
    return np.asarray(labels_out)[np.minimum(j, len(labels_out) - 1)]


def _brute_joint_ebil(orig, prot, cols, labels, mats, weights=None):
    """EBIL with the explicit Kronecker product over the full joint category lists."""
    full = mats[0]
    for m in mats[1:]:
        full = np.kron(full, m)
    ins = pd.MultiIndex.from_product([lab[0] for lab in labels])
    outs = pd.MultiIndex.from_product([lab[1] for lab in labels])
    oc = orig.dropna(subset=cols)
    wo = None if weights is None else weights[0][oc.index]
    prior = pd.Series(1.0 if wo is None else wo, index=pd.MultiIndex.from_frame(oc[cols].astype(str))).groupby(level=list(range(len(cols)))).sum()
    prior = prior.reindex(ins, fill_value=0).to_numpy()
    prior = prior / prior.sum()
    joint = prior[:, None] * full
    col = joint.sum(axis=0)
    post = np.divide(joint, col, out=np.zeros_like(joint), where=col > 0)
    h = entr(post).sum(axis=0)
    pc = prot.dropna(subset=cols)
    wp = None if weights is None else weights[1][pc.index]
    released = pd.Series(1.0 if wp is None else wp, index=pd.MultiIndex.from_frame(pc[cols].astype(str))).groupby(level=list(range(len(cols)))).sum()
    released = released.reindex(outs, fill_value=0).to_numpy()
    return float(np.sum(released * h)), released.sum(), int((prior > 0).sum())


@pytest.fixture()
def pram_files(tmp_path):
    rng = np.random.default_rng(11)
    n = 2000
    labels = {"a": (["1", "2", "3"], ["1", "2", "3"]), "b": (["x", "y"], ["x", "y", "z"]), "c": (["p", "q", "r", "s"],) * 2}
    mats = {"a": _random_markov(rng, 3, 3), "b": _random_markov(rng, 2, 3), "c": _random_markov(rng, 4, 4, 0.5)}
    z = rng.normal(size=n)
    orig = pd.DataFrame({
        "a": np.array(labels["a"][0])[np.digitize(z, [-0.5, 0.7])],
        "b": np.array(labels["b"][0])[(z + rng.normal(size=n) > 0).astype(int)],
        "c": rng.choice(labels["c"][0], n, p=[0.4, 0.3, 0.2, 0.1]),
        "w": rng.uniform(1, 10, n),
    })
    orig.loc[rng.choice(n, 30, replace=False), "c"] = None
    prot = orig.copy()
    for v in "abc":
        ok = orig[v].notna()
        prot.loc[ok, v] = _pram(rng, orig.loc[ok, v], *labels[v], mats[v])
    variables = {v: {"scale": "nominal", "pram": _write_matrix(tmp_path / f"{v}.csv", *labels[v], mats[v])} for v in "abc"}
    variables["w"] = {"role": "weight"}
    (tmp_path / "spec.yaml").write_text(json.dumps({"variables": variables, "pairing": "none"}))
    return orig, prot, load_spec(tmp_path / "spec.yaml"), labels, mats


def test_kron_apply_matches_numpy_kron():
    rng = np.random.default_rng(0)
    t = rng.random((3, 2, 4))
    ms = [rng.random((3, 5)), rng.random((2, 2)), rng.random((4, 3))]
    expected = t.ravel() @ np.kron(np.kron(ms[0], ms[1]), ms[2])
    assert np.allclose(kron_apply(t, ms).ravel(), expected)


def test_joint_ebil_given_matrices_against_brute_force_kronecker(pram_files):
    orig, prot, spec, labels, mats = pram_files
    r = ebil_joint(orig, prot, spec, weighted=False)
    cols = ["a", "b", "c"]
    ebil, n, k = _brute_joint_ebil(orig, prot, cols, [labels[c] for c in cols], [mats[c] for c in cols])
    assert r.details["ebil"] == pytest.approx(ebil, rel=1e-10)
    assert r.details["n"] == n and r.details["K"] == k
    assert r.value == pytest.approx(ebil / (n * np.log(k)), rel=1e-10)
    assert r.details["excluded_missing"] == prot["c"].isna().sum()
    w = orig["w"].to_numpy()
    rw = ebil_joint(orig, prot, spec)
    ebil_w, n_w, _ = _brute_joint_ebil(orig, prot, cols, [labels[c] for c in cols], [mats[c] for c in cols], (w, w))
    assert rw.details["weighted"] and rw.details["ebil"] == pytest.approx(ebil_w, rel=1e-10)
    assert rw.details["n"] == pytest.approx(n_w)


def test_joint_ebil_of_one_variable_with_identity_partner_equals_its_ebil(pram_files, tmp_path):
    from infoloss.measures.tables import ebil

    orig, prot, spec, labels, mats = pram_files
    _write_matrix(tmp_path / "eye.csv", labels["b"][0], labels["b"][0], np.eye(2))
    spec.variables["b"].pram = tmp_path / "eye.csv"
    spec.variables["c"].pram = None
    p2 = prot.assign(b=orig["b"])
    joint = ebil_joint(orig, p2, spec, weighted=False)
    # b is released unchanged: the joint uncertainty is a's uncertainty within each b, which the brute force gives
    ebil_ab, _, _ = _brute_joint_ebil(orig, p2, ["a", "b"], [labels["a"], labels["b"][:1] * 2], [mats["a"], np.eye(2)])
    assert joint.details["ebil"] == pytest.approx(ebil_ab, rel=1e-10)
    assert joint.details["ebil"] <= ebil(orig, p2, spec, weighted=False).by_variable["a"] + 1e-9


def test_joint_ebil_errors(pram_files, tmp_path):
    orig, prot, spec, labels, mats = pram_files
    spec.variables["b"].pram = None
    spec.variables["c"].pram = None
    with pytest.raises(NotComputed, match="at least two"):
        ebil_joint(orig, prot, spec)
    bad = prot.assign(a=prot["a"].replace("3", "9"))
    spec.variables["b"].pram = tmp_path / "b.csv"
    with pytest.raises(InputError, match="no column for the released categories '9'"):
        ebil_joint(orig, bad, spec)


def test_joint_ebil_estimated_from_paired_records_against_pandas():
    rng = np.random.default_rng(5)
    n = 500
    orig = pd.DataFrame({"k1": rng.choice(list("abc"), n), "k2": rng.choice(list("uv"), n), "o": rng.choice(list("pq"), n)})
    prot = orig.copy()
    hit = rng.random(n) < 0.2
    prot.loc[hit, "k1"] = rng.choice(list("abc"), hit.sum())
    prot.loc[rng.random(n) < 0.05, "k2"] = None
    spec = {"variables": {"k1": {"scale": "nominal", "role": "key"}, "k2": {"scale": "nominal", "role": "key"},
                          "o": {"scale": "nominal"}}}
    r = ebil_joint(orig, prot, spec)
    assert r.details["variables"] == ["k1", "k2"]
    jo = orig["k1"] + "/" + orig["k2"].fillna("NA")
    jp = prot["k1"] + "/" + prot["k2"].fillna("NA")
    n_ij = pd.crosstab(jo, jp)
    n_j = n_ij.sum(axis=0)
    post = n_ij / n_j
    expected = float((n_j * entr(post).sum(axis=0)).sum())
    assert r.details["ebil"] == pytest.approx(expected, rel=1e-10)
    assert r.value == pytest.approx(expected / (n * np.log(jo.nunique())), rel=1e-10)
    assert ebil_joint(orig, orig.copy(), spec).value == 0.0
    with pytest.raises(NotComputed, match="not paired"):
        ebil_joint(orig, prot.iloc[:-1], dict(spec, pairing="none"))


def test_joint_ebil_names_a_combination_the_matrices_cannot_produce(tmp_path):
    (tmp_path / "a.csv").write_text(",x,y\nx,1,0\ny,0,1\n")
    (tmp_path / "b.csv").write_text(",u,v\nu,1,0\nv,0,1\n")
    spec = {"variables": {"a": {"scale": "nominal", "pram": str(tmp_path / "a.csv")},
                          "b": {"scale": "nominal", "pram": str(tmp_path / "b.csv")}}}
    orig = pd.DataFrame({"a": ["x", "x"], "b": ["u", "v"]})
    assert ebil_joint(orig, orig.copy(), spec).value == 0.0  # identity matrices: nothing uncertain
    with pytest.raises(InputError, match="a=y, b=u"):
        ebil_joint(orig, pd.DataFrame({"a": ["y", "x"], "b": ["u", "v"]}), spec)
