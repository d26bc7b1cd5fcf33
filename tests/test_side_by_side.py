"""Measures that share cores run two at a time (issue 14): same results, same order, never two process-wide ones.

``compare`` runs the measures registered with ``shares_cores`` on two
threads before the others (``infoloss.compare._run_measures``); the pair's
cache computes an entry once when two threads ask for it at the same time
(``infoloss.pair.KeyLocks``).
"""

from __future__ import annotations

import importlib
import threading
import time
import warnings

import numpy as np
import pandas as pd
import pytest

import infoloss
from infoloss import registry
from infoloss._concurrent import recorded_warnings, side_by_side
from infoloss.pair import ORIGINAL, encode_pair
from infoloss.synth import make_spec, make_survey, protect

compare_module = importlib.import_module("infoloss.compare")  # the module (infoloss.compare is the function)

SIX = ("record", "moments", "tables", "distributions", "propensity", "gdu")
IDS = [m.id for m in registry.registered() if m.family in SIX]
SHARING = [m.id for m in registry.registered() if m.shares_cores]


@pytest.fixture(scope="module")
def survey():
    df = make_survey(1200, n_continuous=4, n_categorical=3, seed=11)
    return df, [protect(df, noise=0.2, pram=0.1, seed=12), protect(df, noise=0.5, pram=0.3, seed=13)], make_spec(df)


def _without_seconds(obj):
    """The report's dict without its timings (every ``seconds`` entry, e.g. also the pairing's)."""
    if hasattr(obj, "to_dict"):
        obj = obj.to_dict()
    if isinstance(obj, dict):
        return {k: _without_seconds(v) for k, v in obj.items() if k != "seconds"}
    if isinstance(obj, list):
        return [_without_seconds(v) for v in obj]
    return obj


def _compare(monkeypatch, lanes, *args, **kwargs):
    monkeypatch.setattr(compare_module, "_lanes", lambda: lanes)
    return infoloss.compare(*args, **kwargs)


def test_the_six_families_have_measures_that_share_cores():
    assert {"ctbil", "il1s", "pmse", "robust_eigen", "ebil", "eigen", "gamma", "x_mse", "r_mv", "ecdf_max",
            "ecdf_mean"} <= set(SHARING)
    assert not {"ks", "ldu_biv", "cluster_utility"} & set(SHARING)  # they use both cores themselves


@pytest.mark.parametrize("pairing", ["row", "nearest"])
def test_two_at_a_time_gives_the_results_of_one_at_a_time(monkeypatch, survey, pairing):
    orig, prot, spec = survey
    if pairing == "nearest":  # unpaired files, record measures on the nearest-record view
        spec = {**spec, "pairing": "nearest"}
        prot = [p.sample(frac=1.0, random_state=3).reset_index(drop=True) for p in prot]
    one = _compare(monkeypatch, 1, orig, prot, spec, measures=IDS)
    two = _compare(monkeypatch, 2, orig, prot, spec, measures=IDS)
    assert _without_seconds(one) == _without_seconds(two)
    for scenario in two.scenarios:  # kept in the order of the measures asked for
        assert list(scenario.measures) == [m for m in IDS if m in scenario.measures]
        assert list(scenario.seconds) == IDS
    view = two.scenarios[0].measures["il1s"].details.get("pairing")  # record measures ran on the nearest view
    assert (view is None) == (pairing == "row")


def test_at_most_two_at_once_and_only_those_that_share_cores(monkeypatch, survey):
    orig, (prot, _), spec = survey
    spans, lock = [], threading.Lock()
    run_measure = compare_module._run_measure

    def spy(scenario, pair, mid, options):
        start = time.perf_counter()
        time.sleep(0.02)  # long enough for the other thread to start its measure
        run_measure(scenario, pair, mid, options)
        with lock:
            spans.append((mid, start, time.perf_counter()))

    monkeypatch.setattr(compare_module, "_run_measure", spy)
    _compare(monkeypatch, 2, orig, prot, spec, measures=IDS, aggregates=False, statistics=False, tables=False)
    assert sorted(m for m, _, _ in spans) == sorted(IDS)
    overlaps = [(a, b) for i, (a, s1, e1) in enumerate(spans) for (b, s2, e2) in spans[i + 1:] if s1 < e2 and s2 < e1]
    assert overlaps, "no two measures ran at the same time"
    for a, b in overlaps:
        assert registry.get(a).shares_cores and registry.get(b).shares_cores
    for _, s, _ in spans:  # never three at once (at any measure's start)
        assert sum(1 for _, s2, e2 in spans if s2 <= s < e2) <= 2


def test_later_scenarios_start_the_longest_groups_first(monkeypatch, survey):
    """After the first scenario the family groups start in decreasing order of their seconds there."""
    orig, prot, spec = survey
    started, lock = [], threading.Lock()
    run_measure = compare_module._run_measure
    pretend = {"pmse": 9.0, "robust_eigen": 5.0, "ctbil": 3.0, "il1s": 1.0}  # seconds the first scenario "took"

    def spy(scenario, pair, mid, options):
        with lock:
            started.append((scenario.name, mid))
        run_measure(scenario, pair, mid, options)
        if mid in pretend:
            scenario.seconds[mid] = pretend[mid]
            return
        scenario.seconds[mid] = 0.0

    monkeypatch.setattr(compare_module, "_run_measure", spy)
    report = _compare(monkeypatch, 2, orig, prot, spec, measures=["il1s", "robust_eigen", "ctbil", "pmse"],
                      aggregates=False, statistics=False, tables=False)
    first, second = (report.scenarios[k].name for k in (0, 1))
    assert [m for name, m in started if name == first][:2] == ["il1s", "robust_eigen"]  # the order asked for
    assert [m for name, m in started if name == second][:2] == ["pmse", "robust_eigen"]  # longest first


def test_a_bug_in_a_measure_running_beside_another_stops_the_run(monkeypatch, survey):
    orig, (prot, _), spec = survey
    run_measure = compare_module._run_measure

    def broken(scenario, pair, mid, options):
        if mid == "ctbil":
            raise RuntimeError("bug in ctbil")
        run_measure(scenario, pair, mid, options)

    monkeypatch.setattr(compare_module, "_run_measure", broken)
    with pytest.raises(RuntimeError, match="bug in ctbil"):
        _compare(monkeypatch, 2, orig, prot, spec, measures=["il1s", "ctbil", "hellinger", "pmse"])


def test_warnings_go_to_the_thread_that_raised_them():
    from threadpoolctl import threadpool_info

    def blas_threads():
        return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]

    before_filters, before_show, before_blas = list(warnings.filters), warnings.showwarning, blas_threads()
    barrier = threading.Barrier(3)
    got = {}

    def measure(tag, ignore):
        with recorded_warnings(ignore=ignore) as caught:
            barrier.wait()  # all three threads inside their blocks at once
            for _ in range(2):  # "always": a repeated warning is recorded each time
                warnings.warn(f"from {tag}", UserWarning)
            np.log(np.zeros(1))  # a warning raised in numpy's C code
            barrier.wait()
        got[tag] = [str(w.message) for w in caught]

    shown = []
    with warnings.catch_warnings():
        warnings.showwarning = lambda message, *rest: shown.append(str(message))  # the user's own hook
        with side_by_side():
            assert blas_threads() == [1] * len(before_blas)
            threads = [threading.Thread(target=measure, args=(tag, tag == "c")) for tag in "abc"]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            warnings.warn("outside any block", UserWarning)
    assert got == {"a": ["from a", "from a", "divide by zero encountered in log"],
                   "b": ["from b", "from b", "divide by zero encountered in log"], "c": []}
    assert shown == ["outside any block"]
    assert warnings.filters == before_filters and warnings.showwarning is before_show
    assert blas_threads() == before_blas
    with recorded_warnings() as caught:  # outside the phase: catch_warnings(record=True), "always"
        warnings.warn("alone", UserWarning)
        warnings.warn("alone", UserWarning)
    assert [str(w.message) for w in caught] == ["alone", "alone"]


def test_two_threads_asking_for_one_cache_entry_compute_it_once():
    orig = pd.DataFrame({"x": np.arange(10.0)})
    pair = encode_pair(orig, orig.copy(), {"variables": {"x": {"scale": "continuous"}}},
                       original_cache={})
    calls = []
    barrier = threading.Barrier(4)

    def slow(tag):
        calls.append(tag)
        time.sleep(0.05)
        return object()

    def ask(how):
        barrier.wait()
        if how == "cached":
            return pair.cached(("k",), lambda: slow(how))
        if how == "original":
            return pair.cached_original(("k",), lambda: slow(how))
        return pair.cached_original_arrays(("k",), [pair.continuous["x"].orig], lambda: slow(how))

    for how in ("cached", "original", "arrays"):
        results = [None] * 4
        threads = [threading.Thread(target=lambda i=i, how=how, results=results: results.__setitem__(i, ask(how)))
                   for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert calls.count(how) == 1 and all(r is results[0] for r in results)
        barrier.reset()
    assert pair.levels("x", ORIGINAL) is pair.levels("x", ORIGINAL)


def test_encoding_on_two_threads_gives_the_same_pair(monkeypatch):
    # 2 x 100,000 records x 10 variables: encode_pair converts the variables on two threads
    import infoloss.pair as pair_module

    df = make_survey(100_000, n_continuous=6, n_categorical=4, seed=21)
    prot = protect(df, noise=0.3, pram=0.2, suppress=0.05, seed=22)
    spec = make_spec(df)
    calls = []
    real = pair_module.map_in_order

    def one_thread(func, items, size, max_workers=2):
        calls.append(size)
        return [func(x) for x in items]

    two = encode_pair(df, prot, spec)
    monkeypatch.setattr(pair_module, "map_in_order", one_thread)
    one = encode_pair(df, prot, spec)
    assert calls and calls[0] >= 2_000_000  # large enough for two threads
    assert list(two.continuous) == list(one.continuous) and list(two.categorical) == list(one.categorical)
    for name, col in one.continuous.items():
        assert np.array_equal(col.orig, two.continuous[name].orig, equal_nan=True)
        assert np.array_equal(col.prot, two.continuous[name].prot, equal_nan=True)
    for name, col in one.categorical.items():
        assert col.categories == two.categorical[name].categories
        assert np.array_equal(col.orig, two.categorical[name].orig)
        assert np.array_equal(col.prot, two.categorical[name].prot)
    # of two variables that cannot be encoded, the first in the spec's order is the one reported
    bad = prot.copy()
    first, second = [n for n, v in spec["variables"].items() if v.get("scale") == "continuous"][:2]
    bad[second] = "text"
    bad[first] = "words"
    monkeypatch.setattr(pair_module, "map_in_order", real)
    with pytest.raises(infoloss.InputError, match=repr(first)):
        encode_pair(df, bad, spec)


def test_import_alone_runs_one_first_import_at_a_time(monkeypatch):
    # two measures beside each other importing scikit-learn at once met a half-initialised sklearn.base
    # (an ImportError); through import_alone the second import waits for the first
    from infoloss import _concurrent

    inside, most = [0], [0]
    count = threading.Lock()

    def slow_import(name):
        with count:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.05)
        with count:
            inside[0] -= 1
        return name

    monkeypatch.setattr(importlib, "import_module", slow_import)
    start = threading.Barrier(4)
    results = []

    def one(name):
        start.wait()
        results.append(_concurrent.import_alone(name))

    threads = [threading.Thread(target=one, args=(f"module{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most[0] == 1
    assert sorted(results) == [f"module{i}" for i in range(4)]


def test_robust_eigen_and_pmse_import_scikit_learn_beside_each_other_in_a_fresh_process():
    # their two first imports of scikit-learn, started at the same moment on two threads
    import subprocess
    import sys

    code = (
        "import threading\n"
        "from infoloss._concurrent import import_alone\n"
        "go = threading.Barrier(2)\n"
        "def one(name):\n"
        "    go.wait()\n"
        "    import_alone(name)\n"
        "ts = [threading.Thread(target=one, args=(m,)) for m in ('sklearn.covariance', 'sklearn.exceptions')]\n"
        "[t.start() for t in ts]\n"
        "[t.join() for t in ts]\n"
        "import sys\n"
        "print(sorted(m for m in ('sklearn.covariance', 'sklearn.exceptions', 'sklearn.base') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "['sklearn.base', 'sklearn.covariance', 'sklearn.exceptions']"
    assert "Error" not in out.stderr


def test_thread_limits_holds_blas_to_one_thread_and_makes_its_controller_again_only_after_an_import(monkeypatch):
    # threadpoolctl's threadpool_limits walks every loaded library each time (2-8 ms); thread_limits keeps one
    # controller until a module is imported (a BLAS or OpenMP comes with the extension module that links it)
    import sys

    import threadpoolctl

    import infoloss._concurrent as concurrent

    real = threadpoolctl.ThreadpoolController

    def blas_threads() -> set[int]:
        return {lib["num_threads"] for lib in real().info() if lib["user_api"] == "blas"}

    before = blas_threads()
    made = []
    monkeypatch.setattr(threadpoolctl, "ThreadpoolController", lambda: made.append(1) or real())
    monkeypatch.setattr(concurrent, "_controller", None)
    for _ in range(3):
        with concurrent.thread_limits(1):
            assert blas_threads() == {1}
        assert blas_threads() == before
    assert len(made) == 1
    monkeypatch.setitem(sys.modules, "infoloss_test_new_module", object())  # as an import would
    with concurrent.thread_limits(1):
        assert blas_threads() == {1}
    assert len(made) == 2
