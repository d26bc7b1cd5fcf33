"""bench/same_results.py: the check that a speed change left every result alone (used by bench/ab.py)."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pandas as pd
import pytest

import infoloss

BENCH = Path(__file__).resolve().parents[1] / "bench"


@pytest.fixture(scope="module")
def same_results():
    spec = importlib.util.spec_from_file_location("same_results", BENCH / "same_results.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_differences_skips_timings_and_finds_every_other_change(same_results):
    a = {"value": 0.5, "seconds": 1.2, "by": {"x": [1.0, math.nan, 3]}, "note": "n", "flag": True}
    assert same_results.differences(a, {**a, "seconds": 9.9}) == []
    found = same_results.differences(a, {**a, "by": {"x": [1.0, math.nan, 4]}, "note": "m", "flag": 1})
    assert found == ["by.x[2]: 3 != 4", "flag: True != 1", "note: 'n' != 'm'"]
    assert same_results.differences({"a": [1, 2]}, {"a": [1]}) == ["a: 2 items != 1 items"]
    assert same_results.differences({"a": 1}, {"b": 1}) == ["a: only in the first", "b: only in the second"]
    # a tolerance, relative or absolute, when one is asked for
    assert same_results.differences({"v": 1.0}, {"v": 1.0 + 1e-15}) == ["v: 1.0 != 1.000000000000001"]
    assert same_results.differences({"v": 1.0}, {"v": 1.0 + 1e-15}, rtol=1e-12) == []
    assert same_results.differences({"v": 0.0}, {"v": 1e-20}, atol=1e-18) == []


def test_two_runs_of_one_comparison_are_the_same_and_a_changed_file_is_not(tmp_path, same_results, capsys):
    orig = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0], "g": list("abaab")})
    prot = pd.DataFrame({"x": [1.0, 2.5, 3.0, 4.0, 6.0], "g": list("abbab")})
    spec = {"variables": {"x": {"scale": "continuous"}, "g": {"scale": "nominal"}}}
    measures = ["il1s", "ks", "hellinger", "records_changed"]
    paths = []
    for k, protected in enumerate([prot, prot, prot.assign(x=prot["x"] + 0.5)]):
        path = tmp_path / f"r{k}.json"
        infoloss.compare(orig, protected, spec, measures=measures).to_json(path)
        paths.append(str(path))
    assert json.loads(Path(paths[0]).read_text())["scenarios"][0]["measures"]  # measures were written
    assert same_results.main([paths[0], paths[1]]) == 0
    assert "0 difference(s) to the bit" in capsys.readouterr().out
    assert same_results.main([paths[0], paths[2]]) == 1
    out = capsys.readouterr().out
    assert "scenarios[0].measures.il1s.value" in out
