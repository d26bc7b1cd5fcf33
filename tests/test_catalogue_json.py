"""Issue 15: the before/after ``tables`` block of the JSON and its safe-to-share mode.

Expected tables come from pandas value_counts / crosstab / groupby on the CSV files.
"""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import infoloss
from infoloss.before_after import before_after_tables, safe_tables
from infoloss.cli import app
from infoloss.pair import encode_pair
from infoloss.spec import load_spec

DATA = Path(__file__).resolve().parent / "data" / "testdata"
KEYS = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex", "age"]


@pytest.fixture(scope="module")
def report():
    return infoloss.compare(DATA / "original.csv", [DATA / "ls_k3.csv"], DATA / "spec.yaml",
                            measures=["suppressions", "records_changed"])


def _labels(series):
    return series.dropna().astype(int).astype(str)


def test_tables_block_matches_pandas(report):
    orig = pd.read_csv(DATA / "original.csv")
    prot = pd.read_csv(DATA / "ls_k3.csv")
    block = report.to_dict()["scenarios"][0]["tables"]
    assert block["weight"] == "sampling_weight" and block["safe"] is None and not block["skipped"]
    assert set(block["one_way"]) == set(KEYS + ["hhcivil"])
    relat = block["one_way"]["relat"]
    cats = relat["categories"]
    assert cats[-1] == "missing"
    for df, side in ((orig, "original"), (prot, "protected")):
        counts = _labels(df["relat"]).value_counts()
        expected = [int(counts.get(c, 0)) for c in cats[:-1]] + [int(df["relat"].isna().sum())]
        assert relat[side]["count"] == expected
        w = df.groupby(df["relat"].astype("Int64").astype(str))["sampling_weight"].sum()
        assert relat[side]["weighted"][:-1] == pytest.approx([float(w.get(c, 0.0)) for c in cats[:-1]])
    # a variable missing nowhere has no "missing" cell
    assert "missing" not in block["one_way"]["urbrur"]["categories"]
    # two-way tables: every pair of key variables, in spec order
    assert list(block["two_way"]) == [f"{a}|{b}" for i, a in enumerate(KEYS) for b in KEYS[i + 1:]]
    t = block["two_way"]["urbrur|water"]
    water = prot["water"].map(lambda v: "missing" if pd.isna(v) else str(int(v)))
    ct = pd.crosstab(_labels(prot["urbrur"]), water)
    ct = ct.reindex(index=t["rows"], columns=t["columns"], fill_value=0)
    assert t["protected"]["count"] == ct.to_numpy().tolist()


def test_high_cardinality_tables_are_skipped_with_a_note():
    rng = np.random.default_rng(0)
    n = 3000
    orig = pd.DataFrame({"a": rng.integers(0, 150, n), "b": rng.integers(0, 120, n), "c": rng.integers(0, 3, n)})
    spec = {"variables": {v: {"scale": "nominal", "role": "key"} for v in "abc"}}
    block = before_after_tables(encode_pair(orig, orig.copy(), spec))
    assert "a|b" in block["skipped"] and "10,000" in block["skipped"]["a|b"]
    assert "a|c" in block["two_way"] and set(block["one_way"]) == {"a", "b", "c"}
    small = before_after_tables(encode_pair(orig, orig.copy(), spec), max_cells=100)
    assert set(small["one_way"]) == {"c"} and "a" in small["skipped"]


def _numbers(x):
    if isinstance(x, dict):
        for v in x.values():
            yield from _numbers(v)
    elif isinstance(x, list):
        for v in x:
            yield from _numbers(v)
    elif isinstance(x, (int, float)) and not isinstance(x, bool):
        yield x


def test_safe_mode_has_no_small_count_and_keeps_totals(report):
    full = report.to_dict()["scenarios"][0]
    safe = report.to_dict(safe=True, min_cell=5)
    assert safe["safe"]["min_cell"] == 5 and set(safe["safe"]) == {"min_cell", "withheld"}
    block = safe["scenarios"][0]["tables"]
    assert block["safe"]["min_cell"] == 5 and "merged" in block["safe"]["rule"]
    for part in ("one_way", "two_way"):
        for key, t in block[part].items():
            for side in ("original", "protected"):
                assert all(v == 0 or v >= 5 for v in _numbers(t[side]["count"])), (key, side)
    # one-way totals are kept (small categories are merged, not dropped)
    for name, t in block["one_way"].items():
        for side in ("original", "protected"):
            assert sum(t[side]["count"]) == sum(full["tables"]["one_way"][name][side]["count"])
    assert block["one_way"]["age"]["categories"][-1].startswith("other (categories merged")
    # two-way: no row or column with exactly one suppressed cell
    for key, t in block["two_way"].items():
        hidden = np.array([[v is None for v in row] for row in t["original"]["count"]])
        assert not (hidden.sum(axis=0) == 1).any() and not (hidden.sum(axis=1) == 1).any(), key
        assert block["safe"]["suppressed"].get(key, 0) == hidden.sum()
    # statistics of the original are rounded to 3 significant digits
    mean = safe["scenarios"][0]["statistics"]["orig"]["mean"]["income"]
    assert mean == float(f"{full['statistics']['orig']['mean']['income']:.3g}")


def test_safe_tables_by_hand():
    block = {
        "weight": None, "max_cells": 10_000, "skipped": {},
        "one_way": {"a": {"categories": ["x", "y", "z"], "original": {"count": [10, 3, 8]},
                          "protected": {"count": [9, 4, 8]}},
                    "b": {"categories": ["u", "v"], "original": {"count": [11, 10]}, "protected": {"count": [11, 10]}}},
        "two_way": {"a|b": {"rows": ["x", "y", "z"], "columns": ["u", "v"],
                            "original": {"count": [[6, 4], [1, 2], [4, 4]]},
                            "protected": {"count": [[6, 3], [2, 2], [3, 5]]}}},
    }
    out = safe_tables(block, 5)
    # y (3 and 4 records) is small; "other" would hold 3 < 5, so z (8) joins it; x moves by 1 record between the
    # files (10 and 9), a count of changed records: it joins too
    assert out["one_way"]["a"] == {"categories": ["other (categories merged, min. cell 5)"],
                                   "original": {"count": [21]}, "protected": {"count": [21]}}
    # two-way over other: [[11, 10]] in both files, nothing small left
    assert out["two_way"]["a|b"]["original"]["count"] == [[11, 10]]
    assert out["safe"]["merged"] == {"a": 3} and out["safe"]["suppressed"] == {}


def test_cli_safe_applies_to_the_json(tmp_path):
    out = tmp_path / "out.json"
    res = CliRunner().invoke(app, ["compare", str(DATA / "original.csv"), str(DATA / "ls_k3.csv"), "--spec",
                                   str(DATA / "spec.yaml"), "--measures", "suppressions", "--json", str(out),
                                   "--safe", "--min-cell", "10"])
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text())
    assert data["safe"]["min_cell"] == 10 and "withheld" in data["safe"]
    block = data["scenarios"][0]["tables"]
    assert all(v == 0 or v >= 10 for v in _numbers(block["one_way"]["relat"]["original"]["count"]))
