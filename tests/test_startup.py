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
