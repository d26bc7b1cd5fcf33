"""The generalisation family on adult: against ARX 3.9.2's own output and values, and against an
independent pandas recomputation on generalised versions of adult made here.

ARX's files are in tests/data/adult/arx (README there says how they were made).
"""

import gzip
import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from infoloss.cli import app
from infoloss.io import read_table
from infoloss.pair import encode_pair
from infoloss.registry import get, registered
from infoloss.spec import load_spec, spec_from_dict

DATA = Path(__file__).resolve().parent / "data" / "adult"
ARX = DATA / "arx"
QI = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation"]  # file order
FAMILY = [m.id for m in registered() if m.family == "generalisation"]


def arx_values(tag):
    """ARX's values: {metric: (per-attribute list or None, aggregate)} from arx_values_<tag>.txt."""
    out = {}
    for line in (ARX / f"arx_values_{tag}.txt").read_text().splitlines():
        m = re.match(r"^(\w+) = (.*) \| (\S+)$", line)
        if not m:
            continue
        per = re.match(r"\[([^\]]*)\]", m.group(2))
        values = [float(x) for x in per.group(1).split(",")] if per else None
        out[m.group(1)] = (values, float(m.group(3)))
    return out


@pytest.fixture(scope="module")
def original():
    spec = load_spec(DATA / "spec.yaml")
    return read_table(DATA / "adult.csv", spec), spec


def arx_output(tag):
    with gzip.open(ARX / f"adult_arx_{tag}.csv.gz", "rt", encoding="utf-8") as handle:
        return pd.read_csv(handle, sep=";", dtype=str, keep_default_na=False)


@pytest.fixture(scope="module")
def arx_pairs(original):
    orig, spec = original
    pairs = {}
    for tag in ("k5", "k10", "k2"):
        pairs[tag] = encode_pair(orig, arx_output(tag), spec)
    interval_spec = load_spec(ARX / "spec_intervals.yaml")
    pairs["k5_intervals"] = encode_pair(read_table(DATA / "adult.csv", interval_spec), arx_output("k5_intervals"),
                                        interval_spec)
    return pairs


def per_attribute(result_dict):
    return [result_dict[name] for name in QI]


@pytest.mark.parametrize("tag", ["k5", "k10", "k2", "k5_intervals"])
def test_every_arx_quality_model_is_reproduced(arx_pairs, tag):
    pair = arx_pairs[tag]
    ref = arx_values(tag)
    approx = lambda x: pytest.approx(x, rel=1e-9, abs=1e-9)  # noqa: E731
    loss = get("loss_metric").func(pair)
    assert per_attribute(loss.details["arx"]) == pytest.approx(ref["loss_geometric"][0], abs=1e-9)  # ARX rounds to 1e-10
    assert loss.details["arx_geometric"] == pytest.approx(ref["loss_geometric"][1], abs=1e-9)
    assert loss.details["arx_arithmetic"] == pytest.approx(ref["loss_arithmetic"][1], abs=1e-9)
    dm = get("discernibility").func(pair)
    assert dm.details["arx"] == approx(ref["discernibility"][1])
    assert dm.details["dm_star"] == approx(ref["discernibility_monotonic"][1])
    assert get("aecs").func(pair).details["arx"] == approx(ref["aecs"][1])
    height = get("height").func(pair)
    assert height.value == ref["height"][1]
    assert per_attribute(height.by_variable) == ref["height"][0]
    prec = get("precision").func(pair)
    assert prec.value == approx(ref["precision"][1])
    assert per_attribute(prec.by_variable) == pytest.approx(ref["precision"][0], rel=1e-12)
    assert prec.details["monotonic"] == approx(ref["precision_monotonic"][1])
    ent = get("nonuniform_entropy").func(pair)
    assert ent.value == approx(ref["entropy"][1])
    assert per_attribute(ent.by_variable) == pytest.approx(ref["entropy"][0], abs=1e-6)
    assert ent.details["monotonic"] == approx(ref["entropy_monotonic"][1])
    assert get("kl_divergence_generalised").func(pair).details["arx"] == approx(ref["kl_divergence"][1])
    assert get("ambiguity").func(pair).details["arx"] == approx(ref["ambiguity"][1])


def test_arx_suppressed_records_and_levels_are_read_from_its_output(arx_pairs):
    pair = arx_pairs["k5"]
    assert get("suppressed_records").func(pair).value == 552
    levels = {name: pair.generalised[name].level for name in QI}
    assert levels == {"sex": 0, "age": 3, "race": 0, "marital-status": 1, "education": 2, "native-country": 1,
                      "workclass": 1, "occupation": 2}
    # ARX's interval labels "[20, 40]" map to the nodes [20, 40) of the interval hierarchy
    age = arx_pairs["k5_intervals"].generalised["age"]
    assert age.level == 1
    assert get("suppressed_records").func(arx_pairs["k5_intervals"]).value == 543


def test_a_key_without_a_hierarchy_reads_arxs_star_as_suppressed():
    # sex is never generalised at k = 5, so its hierarchy can be left out: ARX's "*" in it (a suppressed
    # record) must still count as suppressed, not as a third sex
    import yaml

    raw = yaml.safe_load((DATA / "spec.yaml").read_text())
    del raw["variables"]["sex"]["hierarchy"]
    flat = spec_from_dict(raw, base_dir=DATA)
    pair = encode_pair(read_table(DATA / "adult.csv", flat), arx_output("k5"), flat)
    assert "sex" not in pair.generalised
    assert get("suppressed_records").func(pair).value == 552
    assert get("discernibility").func(pair).details["arx"] == pytest.approx(arx_values("k5")["discernibility"][1],
                                                                           rel=1e-12)


def test_arxs_star_in_a_numeric_key_without_a_hierarchy_is_suppressed_too():
    # a key of numeric codes with "*" in a suppressed record was "numbers in the original, text in the protected"
    orig = pd.DataFrame({"a": ["x", "y", "x", "y"], "k": [1, 2, 1, 2]})
    for codes in (["u", "v", "u", "v"], [1, 2, 1, 2]):
        o = orig.assign(k=codes)
        p = pd.DataFrame({"a": ["x", "y", "x", "*"], "k": [codes[0], codes[1], codes[2], "*"]})
        spec = spec_from_dict({"variables": {"a": {"scale": "nominal", "role": "key", "hierarchy": {"mask": "right"}},
                                             "k": {"scale": "nominal", "role": "key"}}, "pairing": "row"})
        result = get("suppressed_records").func(encode_pair(o, p, spec))
        assert result.value == 1 and result.by_variable == {"a": 1.0, "k": 1.0}


def test_infoloss_compare_reads_arx_output_on_the_command_line(tmp_path):
    target = tmp_path / "adult_arx_k5.csv"
    with gzip.open(ARX / "adult_arx_k5.csv.gz", "rb") as handle:
        target.write_bytes(handle.read())
    out = tmp_path / "result.json"
    result = CliRunner().invoke(app, ["compare", str(DATA / "adult.csv"), str(target), "--spec",
                                      str(DATA / "spec.yaml"), "--measures", ",".join(FAMILY), "--json", str(out)])
    assert result.exit_code == 0, result.output
    measures = json.loads(out.read_text())["scenarios"][0]["measures"]
    ref = arx_values("k5")
    assert measures["discernibility"]["details"]["arx"] == ref["discernibility"][1]
    assert measures["height"]["value"] == 10
    assert measures["suppressed_records"]["value"] == 552
    assert measures["loss_metric"]["details"]["arx_geometric"] == pytest.approx(ref["loss_geometric"][1], abs=1e-9)


# ---------------------------------------------------------------------------
# our own generalised versions of adult, recomputed independently with pandas
# ---------------------------------------------------------------------------
def hierarchy_frame(name):
    return pd.read_csv(DATA / f"adult_hierarchy_{name}.csv", sep=";", header=None, dtype=str)


def generalise(orig, levels, k):
    """Apply full-domain levels with the hierarchy files, then suppress every class smaller than k."""
    out = orig.astype(str).copy()
    for name, level in levels.items():
        h = hierarchy_frame(name)
        out[name] = out[name].map(dict(zip(h[0], h[level])))
    sizes = out.groupby(QI)[QI[0]].transform("size")
    suppressed = sizes < k
    out.loc[suppressed, QI] = "*"
    return out, suppressed.to_numpy()


def expected(orig, levels, k):
    """The family's numbers for generalise(orig, levels, k), computed directly from the definitions."""
    prot, sup = generalise(orig, levels, k)
    n, s = len(orig), int(sup.sum())
    kept = prot[~sup].groupby(QI).size()
    exp = {"dm": float((kept.astype(float) ** 2).sum() + n * s), "aecs": n / (len(kept) + (1 if s else 0)),
           "suppressed": s, "height": float(sum(levels.values()))}
    lm, prec, ent, ncp, amb = {}, {}, {}, {}, np.ones(n)
    ages = orig["age"].astype(float)
    for name, level in levels.items():
        h = hierarchy_frame(name)
        d, height = len(h), h.shape[1] - 1
        count = h[level].value_counts()
        gen = orig[name].astype(str).map(dict(zip(h[0], h[level])))
        leaves = gen.map(count).astype(float).where(~sup, d)
        lm[name] = float(((leaves - 1) / (d - 1)).mean())
        prec[name] = float(np.where(sup, 1.0, level / height).mean())
        amb *= leaves.to_numpy()
        if name == "age":  # numeric: the span of the leaves under the value, within the data's range
            leaf_values = h[0].astype(float)
            span = leaf_values.groupby(h[level]).agg(["min", "max"])
            lo = gen.map(span["min"]).clip(ages.min(), ages.max())
            hi = gen.map(span["max"]).clip(ages.min(), ages.max())
            ncp[name] = float(np.where(sup, 1.0, (hi - lo) / (ages.max() - ages.min())).mean())
        else:
            ncp[name] = float(np.where(leaves > 1, leaves / d, 0.0).mean())
        # non-uniform entropy: -log2 P(x | g) over all records (g at the level), plus the suppressed records' entropy
        c = orig[name].astype(str).map(orig[name].astype(str).value_counts())
        b = gen.map(gen.value_counts())
        term = -np.log2(c / b).sum()
        if s:
            sg = gen[sup].value_counts()
            term += -(sg * np.log2(sg / s)).sum()
        ent[name] = float(term)
    exp.update(lm=lm, precision=prec, entropy=ent, ncp=ncp, ambiguity=float(amb.mean()))
    return prot, exp


@pytest.mark.parametrize(
    "levels, k",
    [
        ({"sex": 0, "age": 2, "race": 1, "marital-status": 1, "education": 1, "native-country": 1, "workclass": 0,
          "occupation": 1}, 3),
        ({"sex": 1, "age": 1, "race": 0, "marital-status": 2, "education": 3, "native-country": 0, "workclass": 1,
          "occupation": 0}, 10),
        ({"sex": 0, "age": 0, "race": 0, "marital-status": 0, "education": 0, "native-country": 0, "workclass": 0,
          "occupation": 0}, 2),
    ],
)
def test_own_generalisations_of_adult_match_a_direct_recomputation(original, levels, k):
    orig, spec = original
    prot, exp = expected(orig, levels, k)
    pair = encode_pair(orig, prot, spec)
    dm = get("discernibility").func(pair)
    assert dm.details["arx"] == exp["dm"]
    assert get("aecs").func(pair).details["arx"] == pytest.approx(exp["aecs"])
    assert get("suppressed_records").func(pair).value == exp["suppressed"]
    assert get("height").func(pair).value == exp["height"]
    lm = get("loss_metric").func(pair)
    assert lm.by_variable == pytest.approx(exp["lm"], rel=1e-12)
    assert lm.value == pytest.approx(np.mean(list(exp["lm"].values())))
    assert get("precision").func(pair).by_variable == pytest.approx(exp["precision"], rel=1e-12)
    assert get("nonuniform_entropy").func(pair).by_variable == pytest.approx(exp["entropy"], rel=1e-10, abs=1e-8)
    assert get("ncp").func(pair).by_variable == pytest.approx(exp["ncp"], rel=1e-12)
    assert get("ambiguity").func(pair).value == pytest.approx(exp["ambiguity"], rel=1e-12)
    # the relative forms: (DM/N² − DM0/N²)/(1 − DM0/N²) with DM0 from the original's own classes
    n = len(orig)
    dm0 = float((orig.groupby(QI).size().astype(float) ** 2).sum())
    assert dm.details["original"] == dm0
    assert dm.value == pytest.approx((exp["dm"] / n**2 - dm0 / n**2) / (1 - dm0 / n**2))


def test_kl_divergence_matches_a_direct_computation(original):
    orig, spec = original
    levels = {"sex": 0, "age": 2, "race": 1, "marital-status": 1, "education": 1, "native-country": 1,
              "workclass": 0, "occupation": 1}
    prot, sup = generalise(orig, levels, 4)
    pair = encode_pair(orig, prot, spec)
    n, s = len(orig), int(sup.sum())
    sizes = {name: len(hierarchy_frame(name)) for name in QI}
    area_all = math.prod(sizes.values())
    gen = orig.astype(str).copy()
    area = pd.Series(1.0, index=orig.index)
    for name, level in levels.items():
        h = hierarchy_frame(name)
        gen[name] = gen[name].map(dict(zip(h[0], h[level])))
        area *= gen[name].map(h[level].value_counts()).astype(float)
    class_size = gen.groupby(QI)[QI[0]].transform("size")
    kept_size = prot[~sup].groupby(QI).size()
    key = gen[QI].apply(tuple, axis=1)
    kept_mass = key.map({k: v for k, v in kept_size.items()}).fillna(0.0) / n / area  # this tuple's kept class
    p_out = kept_mass + (s / n) / area_all  # plus the suppressed class, which covers every tuple
    tuples = orig.astype(str)[QI].apply(tuple, axis=1)
    p_in = tuples.map(tuples.value_counts()) / n
    first = ~tuples.duplicated()
    textbook = float((p_in[first] * np.log2(p_in[first] / p_out[first])).sum())
    own = np.where(sup, (s / n) / area_all, class_size / n / area)
    arx = float((p_in * np.log2(p_in / own)).sum())
    result = get("kl_divergence_generalised").func(pair)
    assert result.value == pytest.approx(textbook, rel=1e-10)
    assert result.details["arx"] == pytest.approx(arx, rel=1e-10)
