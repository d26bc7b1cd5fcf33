"""Start-up: the command line and ``import infoloss`` load no heavy library until a comparison needs it."""

import os
import subprocess
import sys

import pytest

HEAVY = ("pandas", "numpy", "scipy", "sklearn", "statsmodels", "pyreadstat", "openpyxl", "jinja2", "pyarrow")


def test_import_and_help_load_no_heavy_library():
    code = (
        "import sys, infoloss, infoloss.cli\n"
        "from typer.testing import CliRunner\n"
        "assert CliRunner().invoke(infoloss.cli.app, ['--help']).exit_code == 0\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_lazy_names_resolve_to_the_public_objects():
    import infoloss
    import infoloss.compare  # noqa: F401  (importing the submodule must not hide the function)

    assert callable(infoloss.compare) and infoloss.compare.__name__ == "compare"
    assert infoloss.Report.__name__ == "Report" and infoloss.EncodedPair.__name__ == "EncodedPair"
    assert {"compare", "Report", "il1s"} <= set(dir(infoloss))


def _loaded_by(code: str, modules: tuple[str, ...]) -> list[str]:
    """Which of ``modules`` a fresh Python has imported after running ``code``."""
    code += f"\nimport sys\nprint(','.join(m for m in {modules!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return [m for m in out.stdout.strip().split(",") if m]


def test_a_common_comparison_loads_neither_scipy_stats_nor_statsmodels_nor_sklearn():
    # KS, the tables, record and GDU families and the descriptive statistics of a weighted survey file:
    # their tests' p-values come from scipy.special (as scipy.stats computes them), which starts half a
    # second faster than scipy.stats, and statsmodels would add as much again
    code = (
        "import infoloss\n"
        "from infoloss.synth import make_spec, make_survey, protect\n"
        "df = make_survey(30_000, n_continuous=4, n_categorical=4, seed=0)\n"
        "pr = protect(df, noise=0.1, pram=0.05, seed=1)\n"
        "ids = 'ks,hellinger,cramers_v_il,chi2_distance,il1s,lambda,ldu_uni,ldu_biv,gdu'\n"
        "infoloss.compare(df, pr, make_spec(df), measures=ids).to_dict()"
    )
    assert _loaded_by(code, ("scipy.stats", "statsmodels", "sklearn")) == []


def test_listing_the_measures_loads_neither_scipy_stats_nor_statsmodels_nor_sklearn():
    # every measure module is imported to list the measures (``infoloss measures``); the analyses family imports
    # scipy.stats (its t and normal quantiles) only when it fits or estimates
    code = "from infoloss import registry\nassert len(list(registry.registered())) > 50"
    assert _loaded_by(code, ("scipy.stats", "statsmodels", "sklearn", "jinja2")) == []


def test_ks_p_values_of_large_samples_and_chi2_tests_need_no_scipy_stats():
    code = (
        "import numpy as np\n"
        "from infoloss.measures._kolmogorov import kstwo_sf\n"
        "from infoloss.measures._contingency import chi2_independence\n"
        "p = [kstwo_sf(d, 200_000) for d in (0.0, 0.001, 0.002, 0.003, 0.004, 0.05, 0.6)]\n"
        "chi2_independence(np.array([[3, 4], [5, 1]]))"
    )
    assert _loaded_by(code, ("scipy.stats",)) == []


def test_choosing_measures_imports_none_of_their_modules_and_compare_imports_them_while_reading(tmp_path):
    # the ids are checked against the static index; the modules (scipy.special among them) are imported on the
    # calling thread while the two files are read, which then gives the same report as frames given directly
    code = (
        "import sys\n"
        "from infoloss.compare import _select_measures\n"
        "ids = _select_measures('ks,hellinger,ldu_uni,il1s')\n"
        "print(','.join(m for m in ('infoloss.measures.distributions', 'infoloss.measures.tables', "
        "'infoloss.measures.gdu', 'infoloss.measures.record', 'scipy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""

    import infoloss
    from infoloss import registry
    from infoloss.compare import _select_measures
    from infoloss.errors import InputError
    from infoloss.synth import make_spec, make_survey, protect

    df = make_survey(3_000, n_continuous=2, n_categorical=2, seed=2)
    pr = protect(df, noise=0.1, pram=0.1, seed=3)
    df.to_csv(tmp_path / "o.csv", index=False)
    pr.to_csv(tmp_path / "p.csv", index=False)
    spec = make_spec(df)
    ids = ["ks", "hellinger", "ldu_uni", "il1s"]
    from_files = infoloss.compare(tmp_path / "o.csv", tmp_path / "p.csv", spec, measures=ids).to_dict()
    from_frames = infoloss.compare(infoloss.read_table(tmp_path / "o.csv"), infoloss.read_table(tmp_path / "p.csv"),
                                   spec, measures=ids).to_dict()
    for mid in ids:
        assert from_files["scenarios"][0]["measures"][mid] == from_frames["scenarios"][0]["measures"][mid]
    assert all(mid in registry.REGISTRY for mid in ids)
    try:
        _select_measures("ks,hellingr")
    except InputError as exc:
        assert "'hellingr' (did you mean 'hellinger'?)" in str(exc)
    else:
        raise AssertionError("an unknown id must be refused")


def test_the_command_line_comparison_defers_numpy_s_tool_packages_which_still_work(tmp_path):
    # scipy.special's import would otherwise load numpy.f2py and numpy.testing (0.07-0.14 s), which a comparison
    # never uses; they stay the real modules, loaded on first use
    code = (
        "import sys\n"
        "from infoloss.cli import main\n"
        "from infoloss.synth import make_spec, make_survey, protect\n"
        f"d = {str(tmp_path)!r}\n"
        "df = make_survey(2_000, n_continuous=3, n_categorical=3, seed=0)\n"
        "df.to_csv(d + '/o.csv', index=False); protect(df, noise=0.1, pram=0.05, seed=1).to_csv(d + '/p.csv', index=False)\n"
        "sys.argv = ['infoloss', 'compare', d + '/o.csv', d + '/p.csv', '--measures', 'ks,ldu_biv', '--json', d + '/out.json']\n"
        "import infoloss.cli\n"
        "infoloss.cli._exit_now = lambda status: None\n"
        "main()\n"
        "assert 'scipy.special' in sys.modules\n"
        "print(sorted(m for m in sys.modules if m.startswith(('numpy.f2py.', 'numpy.testing.', 'charset_normalizer'))))\n"
        "import numpy\n"
        "from numpy.testing import assert_allclose\n"
        "assert_allclose(numpy.ones(2), [1.0, 1.0])\n"
        "assert callable(numpy.f2py.run_main) and numpy.testing.assert_allclose is assert_allclose\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"
    assert (tmp_path / "out.json").exists()


@pytest.mark.parametrize("before, numpy_first, expected", [
    (None, False, "20"),  # the command's own process: OpenBLAS's idle threads sleep after 2**20 cycles
    ("25", False, "25"),  # the user's setting is kept
    (None, True, None),  # numpy (and its OpenBLAS) already loaded: too late to matter, left alone
])
def test_the_command_line_lets_idle_openblas_threads_sleep_soon(before, numpy_first, expected):
    # an OpenBLAS worker spins for 2**28 cycles before it sleeps, on the core the reading and the measures use
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    if before is not None:
        env["OPENBLAS_THREAD_TIMEOUT"] = before
    code = (
        "import os, sys\n"
        + ("import numpy\n" if numpy_first else "")
        + "import infoloss.cli\n"
        "infoloss.cli._exit_now = lambda status: None\n"
        "sys.argv = ['infoloss', '--version']\n"
        "infoloss.cli.main()\n"
        "print(os.environ.get('OPENBLAS_THREAD_TIMEOUT'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.strip().splitlines()[-1] == str(expected)


def test_the_command_line_collects_no_garbage_until_the_measures_start_then_skips_what_start_up_made(tmp_path):
    # start-up (numpy, pandas, scipy, typer's pydantic) made ~155,000 objects the collector went over again and
    # again: 40-50 ms of a 1 s comparison; after the files are encoded they are frozen, and the collector is on
    code = (
        "import gc, sys\n"
        "from infoloss.synth import make_spec, make_survey, protect\n"
        f"d = {str(tmp_path)!r}\n"
        "df = make_survey(2_000, n_continuous=3, n_categorical=3, seed=0)\n"
        "df.to_csv(d + '/o.csv', index=False); protect(df, noise=0.1, pram=0.05, seed=1).to_csv(d + '/p.csv', index=False)\n"
        "counts = []\n"
        "gc.callbacks.append(lambda phase, info: counts.append(info['generation']) if phase == 'start' else None)\n"
        "import importlib, infoloss.cli\n"
        "module = importlib.import_module('infoloss.compare')\n"
        "run = module._run_measures\n"
        "seen = {}\n"
        "def first(*a, **k):\n"
        "    seen.setdefault('before', len(counts) - seen['start'])\n"
        "    return run(*a, **k)\n"
        "module._run_measures = first\n"
        "infoloss.cli._exit_now = lambda status: seen.setdefault('status', status)\n"
        "sys.argv = ['infoloss', 'compare', d + '/o.csv', d + '/p.csv', '--measures', 'ks,il1s', '--json', d + '/o.json']\n"
        "seen['start'] = len(counts)\n"
        "infoloss.cli.main()\n"
        "print('gc:', seen['status'], seen['before'], gc.isenabled(), gc.get_freeze_count() > 10_000)\n"
        "gc.unfreeze()\n"
        "import infoloss.registry as registry\n"
        "listed = registry.registered\n"
        "def listing():\n"  # another command: the collector on at once, nothing frozen
        "    seen['measures'] = gc.isenabled()\n"
        "    return listed()\n"
        "registry.registered = listing\n"
        "sys.argv = ['infoloss', 'measures', '--json']\n"
        "infoloss.cli.main()\n"
        "print('gc:', seen['measures'], gc.isenabled(), gc.get_freeze_count() > 10_000)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = [line for line in out.stdout.splitlines() if line.startswith("gc: ")]
    assert lines == ["gc: None 0 True True", "gc: True True True"]


ZEN4 = ("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
        "flags\t\t: fpu sse2 avx avx2 avx512f avx512dq avx512bw avx512vl\n\nprocessor\t: 1\n")


@pytest.mark.parametrize("cpuinfo, version, expected", [
    (ZEN4, "2.4.6", "X86_V4 AVX512_ICL AVX512_SPR"),  # numpy 2.4 names its AVX-512 targets by level
    (ZEN4, "2.5.0.dev0+git", "X86_V4 AVX512_ICL AVX512_SPR"),
    (ZEN4, "2.0.2", "AVX512F AVX512CD AVX512_KNL AVX512_KNM AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL"),
    (ZEN4, "1.26.4", None),  # no AVX2 sort to fall back on: numpy 1.26 sorts slower without AVX-512
    (ZEN4.replace("family\t: 25", "family\t: 26"), "2.4.6", None),  # Zen 5: fast compress-stores
    (ZEN4.replace(" avx512f avx512dq avx512bw avx512vl", ""), "2.4.6", None),  # Zen 3: no AVX-512
    (ZEN4.replace("AuthenticAMD", "GenuineIntel").replace("25", "6"), "2.4.6", None),
    (ZEN4, "", None),  # numpy's version unknown
    ("", "2.4.6", None),  # no /proc/cpuinfo
])
def test_numpy_s_avx512_targets_are_switched_off_only_on_zen4_with_numpy_2(cpuinfo, version, expected):
    from infoloss._numpy_start import avx512_targets

    assert avx512_targets(cpuinfo, version) == expected


def test_the_user_s_numpy_cpu_settings_are_kept(monkeypatch):
    import infoloss._numpy_start as start

    monkeypatch.setattr(start, "_cpuinfo", lambda: ZEN4)
    monkeypatch.setattr(start.sys, "platform", "linux")
    for name in ("NPY_DISABLE_CPU_FEATURES", "NPY_ENABLE_CPU_FEATURES", start.KEPT):
        monkeypatch.delenv(name, raising=False)
    import numpy

    expected = start.avx512_targets(ZEN4, numpy.__version__)
    assert start._targets_here() == expected
    for name, value in (("NPY_DISABLE_CPU_FEATURES", ""), ("NPY_ENABLE_CPU_FEATURES", "AVX2"), (start.KEPT, "1")):
        monkeypatch.setenv(name, value)
        assert start._targets_here() is None
        monkeypatch.delenv(name)


def test_the_command_line_starts_numpy_without_avx512_on_zen4_and_leaves_no_variable_behind():
    # the comparison's numpy; on this machine's processor the targets are those avx512_targets gives (none off
    # elsewhere); the variable is gone once numpy has loaded, so that programs started later do not inherit it
    env = {k: v for k, v in os.environ.items() if not k.startswith("NPY_") and k != "INFOLOSS_NUMPY_AVX512_KEPT"}
    code = (
        "import os\n"
        "import infoloss._numpy_start as start\n"
        "targets = start._targets_here()\n"
        "start.import_numpy()\n"
        "import numpy\n"
        "from numpy._core._multiarray_umath import __cpu_features__ as found\n"
        "off = [name for name in (targets or '').split() if name in found]\n"
        "print(all(not found[name] for name in off), bool(off) == (targets is not None),\n"
        "      'NPY_DISABLE_CPU_FEATURES' in os.environ)\n"
    )
    out = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True, check=True,
                         env=env)
    assert out.stdout.split() == ["True", "True", "False"]  # the targets off, all of them named, none left
    assert out.stderr == ""


def test_a_numpy_that_refuses_the_variable_gets_the_command_started_again_without_it(tmp_path):
    # numpy built with AVX-512 in its baseline refuses to switch it off and cannot be imported a second time in
    # the process: the command starts itself again, once, with numpy's own choice
    import numpy

    try:
        from numpy._core._multiarray_umath import __cpu_baseline__ as baseline
    except ImportError:  # numpy 1.26
        from numpy.core._multiarray_umath import __cpu_baseline__ as baseline
    script = tmp_path / "run.py"
    script.write_text(
        "import os\n"
        "import infoloss._numpy_start as start\n"
        f"start._targets_here = lambda: None if start.KEPT in os.environ else {baseline[0]!r}\n"
        "print('start', os.environ.get(start.KEPT), flush=True)\n"
        "start.import_numpy()\n"
        "import numpy\n"
        "print('numpy', float(numpy.ones(2).sum()), os.environ.get(start.DISABLE))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("NPY_") and k != "INFOLOSS_NUMPY_AVX512_KEPT"}
    out = subprocess.run([sys.executable, str(script), "an", "argument"], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n") == ["start None", "start 1", "numpy 2.0 None", ""]
