"""Issue 15: nearest-record pairing (``pairing: nearest``).

The search is checked against scikit-learn's NearestNeighbors (brute force) and against
a brute-force implementation of the documented rule (fewest mismatching categories,
then the standardised Euclidean distance, then the lowest record number).
"""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.neighbors import NearestNeighbors
from typer.testing import CliRunner

import infoloss
import infoloss.nearest as N
from infoloss.cli import app
from infoloss.errors import InputError
from infoloss.pair import encode_pair
from infoloss.spec import SpecError, spec_from_dict


def _sklearn(o, q):
    d, i = NearestNeighbors(n_neighbors=2, algorithm="brute").fit(o).kneighbors(q)
    return d, i


def _check_against_sklearn(o, q, idx, d2):
    d, i = _sklearn(o, q)
    assert np.sqrt(d2) == pytest.approx(d[:, 0], abs=1e-9)
    unique = d[:, 1] - d[:, 0] > 1e-9
    assert (idx[unique] == i[unique, 0]).all()


@pytest.mark.parametrize("p", [3, 30])
def test_dense_search_matches_sklearn(p):
    rng = np.random.default_rng(p)
    o, q = rng.normal(size=(700, p)), rng.normal(size=(500, p))
    idx, d2 = N._nn_dense(o, q)
    _check_against_sklearn(o, q, idx, d2)


def test_large_block_paths_match_sklearn(monkeypatch):
    monkeypatch.setattr(N, "_LARGE_BLOCK", 1_000)
    rng = np.random.default_rng(1)
    # KD-tree path (at most 10 variables)
    o, q = rng.normal(size=(3000, 5)), rng.normal(size=(1500, 5))
    _check_against_sklearn(o, q, *N._nn_dense(o, q))
    # projection path: tight matches (a masked file) plus 10 % distant queries
    z = rng.normal(size=(3000, 1))
    o = 0.6 * z + 0.8 * rng.normal(size=(3000, 30))
    q = o[:2000] + 0.1 * rng.normal(size=(2000, 30))
    q[:200] = rng.normal(size=(200, 30))
    assert N._nn_projected(o - o.mean(0), q - o.mean(0)) is not None  # the projection search is really used
    _check_against_sklearn(o, q, *N._nn_dense(o, q))
    # distant matches in many dimensions: the projection gives up and the dense search answers
    q = rng.normal(size=(1200, 30))
    assert N._nn_projected(o - o.mean(0), q - o.mean(0)) is None
    _check_against_sklearn(o, q, *N._nn_dense(o, q))


def test_ties_go_to_the_lowest_record():
    o = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.0, 0.0]])
    q = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, 0.0]])
    idx, d2 = N._nn_dense(o, q)
    assert idx.tolist() == [0, 1, 0] and d2.tolist() == [0.0, 0.0, 0.25]


def _mixed(seed, n_o=400, n_p=300):
    rng = np.random.default_rng(seed)

    def frame(n):
        return pd.DataFrame({
            "a": rng.choice(["x", "y", "z"], n, p=[0.5, 0.3, 0.2]),
            "b": rng.choice(["u", "v"], n),
            "c": rng.choice(["p", "q", "r", "s"], n, p=[0.4, 0.3, 0.2, 0.1]),
            "x1": rng.normal(10, 2, n),
            "x2": rng.lognormal(1, 0.5, n),
            "x3": rng.normal(size=n),
        })

    orig, prot = frame(n_o), frame(n_p)
    orig = orig[~((orig["a"] == "z") & (orig["c"] == "s"))].reset_index(drop=True)  # a combination only in prot
    prot.loc[rng.choice(n_p, 15, replace=False), "b"] = None  # suppressed keys: never in the original
    prot.loc[rng.choice(n_p, 10, replace=False), "x2"] = np.nan
    spec = {"variables": {"a": {"scale": "nominal", "role": "key"}, "b": {"scale": "nominal", "role": "key"},
                          "c": {"scale": "ordinal", "role": "key"}, "x1": {"scale": "continuous"},
                          "x2": {"scale": "continuous"}, "x3": {"scale": "continuous"}},
            "pairing": "nearest"}
    return orig, prot, spec


def _brute_rule(orig, prot):
    cats, conts = ["a", "b", "c"], ["x1", "x2", "x3"]
    mean, sd = orig[conts].mean(), orig[conts].std(ddof=0)
    zo = ((orig[conts] - mean) / sd).fillna(0.0).to_numpy()
    zp = ((prot[conts] - mean) / sd).fillna(0.0).to_numpy()
    co = orig[cats].fillna("NA").to_numpy()
    cp = prot[cats].fillna("NA").to_numpy()
    out, mism = [], []
    for k in range(len(prot)):
        m = (co != cp[k]).sum(axis=1)
        d2 = ((zo - zp[k]) ** 2).sum(axis=1)
        order = np.lexsort((np.arange(len(orig)), d2, m))
        out.append(order[0])
        mism.append(m[order[0]])
    return np.array(out), np.array(mism), zo, zp


def test_nearest_records_follow_the_documented_rule():
    orig, prot, spec = _mixed(5)
    pair = encode_pair(orig, prot, spec)
    res = N.nearest_records(pair)
    expected, mism, zo, zp = _brute_rule(orig, prot)
    assert (res["index"] == expected).all()
    assert (res["mismatches"] == mism).all()
    assert res["distance"] == pytest.approx(np.sqrt(((zp - zo[expected]) ** 2).sum(axis=1)))
    assert set(mism) >= {0, 1}  # unseen combinations and suppressed keys were relaxed


def test_whole_file_fallback_when_a_level_has_too_many_choices(monkeypatch):
    monkeypatch.setattr(N, "MAX_SUBSETS", 1)
    orig, prot, spec = _mixed(6)
    res = N.nearest_records(encode_pair(orig, prot, spec))
    _, mism, zo, zp = _brute_rule(orig, prot)
    relaxed = mism > 0
    d, _ = _sklearn(zo, zp[relaxed])
    assert res["distance"][relaxed] == pytest.approx(d[:, 0], abs=1e-9)  # nearest over the whole file


def test_identical_files_pair_exactly_and_lose_nothing():
    orig, _, spec = _mixed(7)
    report = infoloss.compare(orig, orig.copy(), spec, measures=["il1s", "records_changed", "lambda", "ks"])
    s = report.to_dict()["scenarios"][0]
    assert s["pairing"]["share_exact"] == 1.0 and s["pairing"]["distance_quantiles"]["1"] == 0.0
    assert s["paired"] is False
    for mid in ("il1s", "records_changed", "lambda"):
        assert s["measures"][mid]["value"] == 0.0
        assert s["measures"][mid]["details"]["pairing"]["share_exact"] == 1.0


def test_synthetic_file_of_another_size_gets_record_level_measures():
    orig, prot, spec = _mixed(8)
    pair = encode_pair(orig, prot, spec)
    il1s = infoloss.measures.record.il1s(pair)
    view = pair.paired_view()
    assert view.paired and view.n_orig == view.n_prot == len(prot)
    s = il1s.details["pairing"]
    assert s["n_protected"] == len(prot) and 0 < s["originals_used"] <= len(orig)
    assert sum(s["key_mismatches"].values()) == len(prot)
    # the other measures compare the whole files (unpaired)
    assert not pair.paired and infoloss.measures.distributions.ks(pair).details["n_orig"]["x1"] == len(orig)


def test_spec_forms_and_errors():
    assert spec_from_dict({"variables": {"a": {"scale": "nominal"}}, "pairing": "nearest"}).pairing_nearest is None
    s = spec_from_dict({"variables": {"a": {"scale": "nominal"}}, "pairing": {"nearest": ["a"]}})
    assert s.pairing_nearest == ["a"] and s.pairing_id is None
    assert spec_from_dict({"variables": {"a": {"scale": "nominal"}}}).pairing_nearest is False
    with pytest.raises(SpecError):
        spec_from_dict({"variables": {"a": {"scale": "nominal"}}, "pairing": {"nearest": "a"}})
    orig, prot, spec = _mixed(9)
    spec["pairing"] = {"nearest": ["a", "nope"]}
    with pytest.raises(InputError, match="'nope'"):
        infoloss.measures.record.il1s(orig, prot, spec)
    spec["pairing"] = {"nearest": ["a", "x1"]}
    r = infoloss.measures.record.il1s(orig, prot, spec)
    assert r.details["pairing"]["variables"] == {"exact_match_blocks": ["a"], "distance": ["x1"]}


def test_cli_pairing_nearest(tmp_path):
    orig, prot, spec = _mixed(10)
    orig.to_csv(tmp_path / "o.csv", index=False)
    prot.to_csv(tmp_path / "p.csv", index=False)
    spec.pop("pairing")
    (tmp_path / "s.yaml").write_text(json.dumps(spec))
    res = CliRunner().invoke(app, ["compare", str(tmp_path / "o.csv"), str(tmp_path / "p.csv"), "--spec",
                                   str(tmp_path / "s.yaml"), "--pairing", "nearest", "--measures", "il1s,ks",
                                   "--json", "-"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    s = data["scenarios"][0]
    assert "il1s" in s["measures"] and s["pairing"]["method"] == "nearest"


def test_nearest_pairing_of_values_near_the_float_limit():
    # found by fuzzing: protected values of ±1.7e308 made the standardised values (and float32 scores) infinite,
    # and the pairing a traceback; the means and sds are now taken on values scaled by a power of two and the
    # standardised values clipped at ±1e6 original sds
    import infoloss

    orig = pd.DataFrame({"x": [46.7, 51.7, 55.6, 60.9, 49.5]})
    prot = pd.DataFrame({"x": [1.7e308, 0.0, 1e308, -1.7e308, 0.0]})
    spec = {"variables": {"x": {"scale": "continuous"}}, "pairing": "nearest"}
    report = infoloss.compare(orig, prot, spec, measures=["il1s", "records_changed"])
    assert report.scenarios[0].pairing["n_protected"] == 5
    huge = pd.DataFrame({"x": [1.7e308, -1.7e308, 1e308, -1e308, 5e307]})  # an original near the limit too
    report = infoloss.compare(huge, huge.iloc[::-1].reset_index(drop=True), spec, measures=["records_changed"])
    assert report.value("records_changed") == 0.0  # every record finds its exact twin
