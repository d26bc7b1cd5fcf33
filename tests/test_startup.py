"""Start-up: the command line and ``import infoloss`` load no heavy library until a comparison needs it."""

import subprocess
import sys

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


def test_ks_p_values_of_large_samples_and_chi2_tests_need_no_scipy_stats():
    code = (
        "import numpy as np\n"
        "from infoloss.measures._kolmogorov import kstwo_sf\n"
        "from infoloss.measures._contingency import chi2_independence\n"
        "p = [kstwo_sf(d, 200_000) for d in (0.0, 0.001, 0.002, 0.003, 0.004, 0.05, 0.6)]\n"
        "chi2_independence(np.array([[3, 4], [5, 1]]))"
    )
    assert _loaded_by(code, ("scipy.stats",)) == []
