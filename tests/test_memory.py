"""Memory savings of compare that must not change a result (issue 14, part 5).

Peak memory itself is measured by bench/bench_memory.py and bench/bench_e2e.py,
never asserted here.  These tests check that each saving keeps the values: the
released allocator memory, the family caches dropped after their last measure,
the original frame sharing its float columns with the encoded arrays, cell
codes that are the codes themselves, and int32 level counts.
"""

from __future__ import annotations

import importlib
import json

import numpy as np
import pandas as pd
import pytest

import infoloss
from infoloss import _memory, registry
from infoloss.compare import (
    _compact_original_text,
    _drop_family_cache,
    _share_original_floats,
)
from infoloss.pair import ORIGINAL, PROTECTED, encode_pair, sorted_levels
from infoloss.synth import make_spec, make_survey, protect

compare_module = importlib.import_module("infoloss.compare")  # the module (infoloss.compare is the function)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A small survey, two protected versions, all written as CSV, and its spec."""
    folder = tmp_path_factory.mktemp("memory")
    df = make_survey(1500, n_continuous=4, n_categorical=3, seed=3)
    prot = [protect(df, noise=0.1 * (k + 1), pram=0.1, seed=5 + k) for k in range(2)]
    paths = []
    for name, frame in zip(("orig", "p1", "p2"), [df, *prot]):
        path = folder / f"{name}.csv"
        frame.to_csv(path, index=False)
        paths.append(path)
    return paths, make_spec(df)


MEASURES = ["il1s", "records_changed", "x_mse", "r_mae", "hellinger", "cramers_v_il", "ks", "ecdf_max", "ldu_uni",
            "ldu_biv", "gdu"]


def test_release_keeps_objects():
    x = np.arange(1000.0)
    _memory.release()
    _memory.release()
    assert x.sum() == 499500.0


def test_memory_is_handed_back_between_steps_only_for_large_inputs(files, monkeypatch):
    # handing freed memory back costs faulting it in again at the next step: 50-150 ms of a 200,000 x 16 run
    # (40 MB of input), for which peak memory is a few hundred MB anyway; 1,000,000 x 50 keeps it (1.5 GB)
    (orig, p1, _), spec = files
    calls = []
    monkeypatch.setattr(compare_module, "release", lambda: calls.append(1))
    small = infoloss.compare(str(orig), [str(p1)], spec, measures=MEASURES)
    assert calls == []
    monkeypatch.setattr(compare_module, "RELEASE_MIN_BYTES", 1)  # as if the files were large
    large = infoloss.compare(str(orig), [str(p1)], spec, measures=MEASURES)
    assert len(calls) >= len(MEASURES) + 3  # after reading, encoding, each measure and the scenario
    assert _json(large.to_dict()["scenarios"][0]["measures"]) == _json(small.to_dict()["scenarios"][0]["measures"])


def test_compare_from_files_equals_compare_of_frames(files):
    """Read from paths (frame shared, dropped, caches released) or given as frames: the same values."""
    (orig, p1, p2), spec = files
    from infoloss.io import read_table
    from infoloss.spec import spec_from_dict

    spec_obj = spec_from_dict(spec)
    by_path = infoloss.compare(str(orig), [str(p1), str(p2)], spec, measures=MEASURES, aggregates=True)
    frames = [read_table(p, spec_obj, which="original") for p in (orig, p1, p2)]
    for k, prot in enumerate(frames[1:]):  # one scenario at a time: no sharing, no frame dropped early
        alone = infoloss.compare(frames[0], prot, spec, measures=MEASURES, aggregates=True)
        got, want = by_path.scenarios[k], alone.scenarios[0]
        assert set(got.measures) == set(want.measures) and got.not_computed == want.not_computed
        for mid, res in want.measures.items():  # the same arithmetic on the same arrays: equal, not only close
            assert _json(got.measures[mid].to_dict()) == _json(res.to_dict()), mid
        assert _json(got.statistics) == _json(want.statistics)
        assert _json(got.aggregates) == _json(want.aggregates)


def test_original_and_first_protected_file_read_together_as_one_after_the_other(files, tmp_path):
    """compare reads the original and the first protected file at the same time: the frames read one after
    the other; of two unreadable files the original's error is reported, as when read in turn."""
    from infoloss.errors import InputError
    from infoloss.io import read_table
    from infoloss.spec import spec_from_dict

    (orig, p1, _), spec = files
    spec_obj = spec_from_dict(spec)
    o, p = compare_module._read_first_pair(str(orig), str(p1), spec_obj)
    pd.testing.assert_frame_equal(o, read_table(orig, spec_obj, which="original", spec_columns=True))
    pd.testing.assert_frame_equal(p, read_table(p1, spec_obj, which="protected", spec_columns=True))
    frame = o.copy()
    assert compare_module._read_first_pair(frame, str(p1), spec_obj)[0] is frame  # a frame is used as it is
    bad_orig, bad_prot = tmp_path / "bad_orig.csv", tmp_path / "bad_prot.csv"
    bad_orig.write_text("")
    bad_prot.write_text("a,b\n1\n")
    with pytest.raises(InputError, match="bad_orig.csv"):
        compare_module._read_first_pair(str(bad_orig), str(bad_prot), spec_obj)
    with pytest.raises(InputError, match="bad_prot.csv"):
        compare_module._read_first_pair(str(orig), str(bad_prot), spec_obj)


def _json(obj) -> str:
    from infoloss.registry import json_plain

    return json.dumps(json_plain(obj), sort_keys=True)


@pytest.fixture(params=["one thread", "two threads"])
def column_threads(request, monkeypatch):
    """Run the per-column passes of _share_original_floats / _compact_original_text on one or on two threads
    (two only for large files otherwise)."""
    import infoloss._concurrent as concurrent

    if request.param == "two threads":
        original = concurrent.map_in_order
        monkeypatch.setattr(concurrent, "map_in_order",
                            lambda func, items, size, max_workers=2: original(func, items, 10**9, max_workers))


def test_share_original_floats_is_the_same_frame_without_copies(files, column_threads):
    (orig, p1, _), spec = files
    from infoloss.io import read_table
    from infoloss.spec import spec_from_dict

    spec_obj = spec_from_dict(spec)
    o = read_table(orig, spec_obj, which="original")
    pair = encode_pair(o, read_table(p1, spec_obj, which="protected"), spec_obj, original_cache={})
    shared = _share_original_floats(o, pair)
    pd.testing.assert_frame_equal(shared, o)
    floats = [n for n in pair.continuous if o[n].dtype == np.float64]
    assert floats
    for name in floats:
        assert np.shares_memory(shared[name].to_numpy(), pair.continuous[name].orig)
    # a frame column that differs from the encoded array (here: a missing code applied) stays as it was
    changed = o.copy()
    changed[floats[0]] = changed[floats[0]] + 1.0
    kept = _share_original_floats(changed, pair)
    assert not np.shares_memory(kept[floats[0]].to_numpy(), pair.continuous[floats[0]].orig)
    pd.testing.assert_frame_equal(kept, changed)


def test_compact_original_text_keeps_the_values_in_less_memory(files, column_threads):
    """The text columns of plain categorical variables become Arrow dictionary columns with the same values
    (missing included); other columns stay as they were; a later scenario encodes the same pair from it."""
    (orig, p1, p2), spec = files
    from infoloss.io import read_table
    from infoloss.spec import spec_from_dict

    spec_obj = spec_from_dict(spec)
    o = read_table(orig, spec_obj, which="original")
    o = pd.concat([o.iloc[:600], o.iloc[600:]], ignore_index=True)  # text columns in two blocks, as large files are
    cache: dict = {}
    pair = encode_pair(o, read_table(p1, spec_obj, which="protected"), spec_obj, original_cache=cache)
    compact = _compact_original_text(o, pair)
    text = [n for n in pair.categorical if isinstance(o[n].dtype, pd.StringDtype)]
    assert text
    for name in o.columns:
        if name in text:
            assert isinstance(compact[name].dtype, pd.ArrowDtype)
            assert compact[name].memory_usage(deep=True) < o[name].memory_usage(deep=True) / 2
            assert compact[name].isna().equals(o[name].isna())
            assert (compact[name].dropna().astype(str).to_numpy() == o[name].dropna().to_numpy()).all()
            assert not isinstance(compact[name].dtype, pd.CategoricalDtype)  # it would set the category order
        else:
            assert compact[name] is o[name] or compact[name].equals(o[name])
    p2_frame = read_table(p2, spec_obj, which="protected")
    later = encode_pair(compact, p2_frame, spec_obj, original_cache=cache)
    fresh = encode_pair(o, p2_frame, spec_obj)
    for name in pair.categorical:
        assert later.categorical[name].categories == fresh.categorical[name].categories
        assert np.array_equal(later.categorical[name].orig, fresh.categorical[name].orig)
        assert np.array_equal(later.categorical[name].prot, fresh.categorical[name].prot)


@pytest.mark.parametrize("lanes", [1, 2])
def test_family_cache_dropped_after_its_last_measure(monkeypatch, files, lanes):
    # il1s, records_changed and hellinger share cores (they may run side by side); the others run alone
    ids = ["il1s", "records_changed", "ks", "hellinger", "ecdf_max", "ldu_uni", "gdu"]
    families = {mid: registry.get(mid).family for mid in ids}
    finished, drops = [], []
    run_measure, drop = compare_module._run_measure, compare_module._drop_family_cache

    def spy_run(scenario, pair, mid, options):
        run_measure(scenario, pair, mid, options)
        finished.append(mid)

    def spy_drop(pair, family):
        drops.append((family, list(finished)))
        drop(pair, family)

    monkeypatch.setattr(compare_module, "_lanes", lambda: lanes)
    monkeypatch.setattr(compare_module, "_run_measure", spy_run)
    monkeypatch.setattr(compare_module, "_drop_family_cache", spy_drop)
    (orig, p1, _), spec = files
    infoloss.compare(orig, p1, spec, measures=ids, aggregates=False, statistics=False, tables=False)
    assert sorted(f for f, _ in drops) == sorted({"record", "tables", "distributions", "gdu"})
    for family, done in drops:  # each family once, after every one of its measures
        assert {m for m in ids if families[m] == family} <= set(done)
    orig = pd.DataFrame({"x": [1.0, 2.0, 3.0], "g": ["a", "b", "a"]})
    spec = {"variables": {"x": {"scale": "continuous"}, "g": {"scale": "nominal"}}}
    pair = encode_pair(orig, orig.copy(), spec)
    pair.cache[("record", "a")] = 1
    pair.cache[("tables", "b")] = 2
    pair.cache[("levels", "x", ORIGINAL)] = 3
    pair.cache["plain"] = 4
    _drop_family_cache(pair, "record")
    assert set(pair.cache) == {("tables", "b"), ("levels", "x", ORIGINAL), "plain"}


def test_cell_codes_without_missing_are_the_codes_read_only():
    orig = pd.DataFrame({"g": ["a", "b", "a", "c"], "h": ["x", None, "y", "x"]})
    spec = {"variables": {"g": {"scale": "nominal"}, "h": {"scale": "nominal"}}}
    pair = encode_pair(orig, orig.copy(), spec)
    g = pair.cell_codes("g", ORIGINAL)
    assert np.shares_memory(g, pair.categorical["g"].orig) and not g.flags.writeable
    assert g.dtype == np.int32 and g.tolist() == pair.categorical["g"].orig.tolist()
    h = pair.cell_codes("h", PROTECTED)
    col = pair.categorical["h"]
    assert h.tolist() == np.where(col.prot < 0, col.n_categories, col.prot).tolist() and h.dtype == np.int32
    assert pair.table("g", ORIGINAL).tolist() == [2, 1, 1, 0]


def test_level_counts_are_int32_and_sum_as_int64():
    rng = np.random.default_rng(0)
    for x in (rng.normal(size=30_000), rng.integers(0, 7, size=30_000).astype(float)):
        x[::11] = np.nan
        lv = sorted_levels(x)
        values, counts = np.unique(x[~np.isnan(x)], return_counts=True)
        assert lv.counts.dtype == np.int32
        assert np.array_equal(lv.counts, counts) and np.array_equal(lv.values, values)
        assert np.cumsum(lv.counts).dtype == np.int64 and lv.counts.sum().dtype == np.int64


_REFAULT = """
import resource, sys
import numpy as np
from infoloss._memory import reuse_freed_memory
if sys.argv[1] == "reuse":
    reuse_freed_memory()
a = np.ones(3_000_000)  # 24 MB, above glibc's default mmap threshold
del a
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
b = np.ones(3_000_000)
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@pytest.mark.skipif(_memory._libc() is None, reason="glibc's malloc only")
def test_reuse_freed_memory_serves_a_freed_array_again():
    """After ``reuse_freed_memory`` (the CLI calls it), a freed 24 MB array is reused, not unmapped and faulted
    in again: the next one of that size faults (almost) no page, where glibc's default faults hundreds."""
    import subprocess
    import sys

    faults = {how: int(subprocess.run([sys.executable, "-c", _REFAULT, how], capture_output=True, text=True,
                                      check=True).stdout) for how in ("default", "reuse")}
    assert faults["default"] > 100
    assert faults["reuse"] < faults["default"] / 10


def _thp_disabled() -> int | None:
    """This process's PR_GET_THP_DISABLE (1: huge pages off), or None without glibc's prctl."""
    prctl = _memory._prctl()
    return None if prctl is None else prctl(_memory._PR_GET_THP_DISABLE, 0, 0, 0, 0)


_SMALL_PAGES = """
import os, sys
from infoloss import _memory
def state():
    return _memory._prctl()(_memory._PR_GET_THP_DISABLE, 0, 0, 0, 0)
seen = [state()]
_memory.pages_for_reading(True)  # before the command line takes charge: nothing
seen.append(state())
seen.append(_memory.read_in_small_pages())
seen.append(state())
_memory.pages_for_reading(False)
seen.append(state())
_memory.pages_for_reading(True)
seen.append(state())
seen.append(_memory.read_in_small_pages())  # once only
print(*seen)
"""


@pytest.mark.skipif(_thp_disabled() != 0, reason="Linux's prctl with huge pages allowed to this process")
@pytest.mark.parametrize("env, expected", [
    ({}, "0 0 True 1 0 1 False"),
    ({"MIMALLOC_ALLOW_THP": "1"}, "0 0 False 0 0 0 False"),  # the user's setting for Arrow's pool: left alone
])
def test_small_pages_are_switched_on_for_reading_and_off_after(env, expected):
    import os
    import subprocess
    import sys

    environment = {k: v for k, v in os.environ.items() if k != "MIMALLOC_ALLOW_THP"} | env
    out = subprocess.run([sys.executable, "-c", _SMALL_PAGES], capture_output=True, text=True, check=True,
                         env=environment)
    assert out.stdout.split("\n")[0] == expected


@pytest.mark.skipif(_thp_disabled() != 0, reason="Linux's prctl with huge pages allowed to this process")
def test_a_process_without_huge_pages_keeps_them_off():
    import subprocess
    import sys

    code = ("from infoloss import _memory\n"
            "p = _memory._prctl()\n"
            "p(_memory._PR_SET_THP_DISABLE, 1, 0, 0, 0)\n"
            "taken = _memory.read_in_small_pages()\n"
            "_memory.pages_for_reading(False)\n"
            "print(taken, p(_memory._PR_GET_THP_DISABLE, 0, 0, 0, 0))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "1"]


@pytest.mark.skipif(_thp_disabled() != 0, reason="Linux's prctl with huge pages allowed to this process")
@pytest.mark.parametrize("threshold, expected", [(0, "reads 1 1 1 1 1 measures 0"),
                                                  (None, "reads 0 0 0 0 0 measures 0")])
def test_the_command_line_reads_large_files_into_small_pages_and_measures_with_huge_pages(tmp_path, threshold,
                                                                                           expected):
    """Files of at least SMALL_PAGES_MIN_BYTES (here every file, or the default: none of these) are read and
    encoded with huge pages off, in each scenario; the measures run with them on."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from infoloss.synth import make_survey, protect\n"
        f"d = {str(tmp_path)!r}\n"
        "df = make_survey(2_000, n_continuous=3, n_categorical=3, seed=0)\n"
        "df.to_csv(d + '/o.csv', index=False)\n"
        "protect(df, noise=0.1, pram=0.05, seed=1).to_csv(d + '/p.csv', index=False)\n"
        "protect(df, noise=0.2, pram=0.05, seed=2).to_csv(d + '/q.csv', index=False)\n"
        "import importlib, infoloss.cli\n"
        "from infoloss import _memory\n"
        + (f"infoloss.cli.SMALL_PAGES_MIN_BYTES = {threshold}\n" if threshold is not None else "") +
        "module = importlib.import_module('infoloss.compare')\n"
        "state = lambda: _memory._prctl()(_memory._PR_GET_THP_DISABLE, 0, 0, 0, 0)\n"
        "seen = {'reads': [], 'measures': set()}\n"
        "read, encode, measure = module._read_frame, module._encode_scenario, module._run_measure\n"
        "def reading(*a, **k):\n"
        "    seen['reads'].append(state())\n"
        "    return read(*a, **k)\n"
        "def encoding(*a, **k):\n"
        "    seen['reads'].append(state())\n"
        "    return encode(*a, **k)\n"
        "def measuring(*a, **k):\n"
        "    seen['measures'].add(state())\n"
        "    return measure(*a, **k)\n"
        "module._read_frame, module._encode_scenario, module._run_measure = reading, encoding, measuring\n"
        "infoloss.cli._exit_now = lambda status: seen.setdefault('status', status)\n"
        "sys.argv = ['infoloss', 'compare', d + '/o.csv', d + '/p.csv', d + '/q.csv', '--measures', 'ks,il1s',\n"
        "            '--json', d + '/o.json']\n"
        "infoloss.cli.main()\n"
        "assert seen['status'] in (0, None), seen\n"
        "print('reads', *seen['reads'], 'measures', *seen['measures'])\n"  # three reads, two encodings
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().split("\n")[-1] == expected
