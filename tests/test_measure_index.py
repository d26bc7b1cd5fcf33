"""Lazy loading of the measure modules: the static index is exact, and a few measures import only their modules."""

import json
import subprocess
import sys
from pathlib import Path

from infoloss import _measure_index, registry

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("sklearn", "statsmodels", "jinja2", "pyreadstat", "openpyxl")


def _run(code: str) -> str:
    """Run ``code`` in a fresh interpreter with this checkout first on the path; its standard output."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_index_equals_what_the_modules_register():
    """``python -m infoloss._measure_index`` would write the same file: every measure, its module, family, name."""
    assert _measure_index.current() == _measure_index.MEASURES
    assert _measure_index.source(_measure_index.current()) == Path(_measure_index.__file__).read_text(encoding="utf-8")


def test_registry_order_is_the_index_order():
    registry.load_all()
    positions = {mid: k for k, mid in enumerate(_measure_index.MEASURES)}
    assert all(info.order == positions[info.id] for info in registry.registered() if info.id in positions)


def test_each_module_alone_registers_exactly_its_indexed_measures():
    """Imported first in a fresh registry, each module defines the measures the index gives it (and no others
    apart from those of the modules it imports)."""
    code = (
        "import importlib, json, sys\n"
        "from infoloss import registry\n"
        "from infoloss._measure_index import MEASURES\n"
        "out = {}\n"
        "for module in sorted({m for m, _, _ in MEASURES.values()}):\n"
        "    for name in [n for n in sys.modules if n.startswith('infoloss.measures.')]:\n"
        "        del sys.modules[name]\n"
        "    registry.REGISTRY.clear()\n"
        "    importlib.import_module('infoloss.measures.' + module)\n"
        "    out[module] = {mid: [info.family, info.func.__name__, info.order]\n"
        "                   for mid, info in registry.REGISTRY.items()}\n"
        "print(json.dumps(out))\n"
    )
    loaded = json.loads(_run(code))
    order = list(_measure_index.MEASURES)
    for module, registered in loaded.items():
        own = {mid for mid, (m, _, _) in _measure_index.MEASURES.items() if m == module}
        assert own <= set(registered), module
        for mid, (family, name, position) in registered.items():
            assert _measure_index.MEASURES[mid][1:] == (family, name)
            assert position == order.index(mid)


def test_compare_with_ks_imports_only_its_module_and_no_heavy_library():
    code = (
        "import sys, json\n"
        "import numpy as np, pandas as pd\n"
        "from infoloss.compare import compare\n"
        "rng = np.random.default_rng(0)\n"
        "orig = pd.DataFrame({'x': rng.normal(size=200), 'g': rng.choice(list('abc'), 200)})\n"
        "prot = orig.assign(x=orig.x + rng.normal(size=200))\n"
        "spec = {'variables': {'x': {'scale': 'continuous'}, 'g': {'scale': 'nominal'}}}\n"
        "report = compare(orig, prot, spec, measures=['ks'])\n"
        "assert 'ks' in report.scenario(0).measures and report.scenario(0).statistics\n"
        "report.to_json()\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('infoloss.measures.') and '._' not in m\n"
        f"    or m.split('.')[0] in {HEAVY!r})))\n"
    )
    loaded = json.loads(_run(code))
    # tables: the weighting shared with KS; moments: the descriptive statistics of every comparison
    assert loaded == ["infoloss.measures.distributions", "infoloss.measures.moments", "infoloss.measures.tables"]


def test_a_measure_function_by_name_imports_only_its_module():
    code = (
        "import sys, infoloss\n"
        "assert infoloss.lambda_.info.id == 'lambda' and infoloss.il1s.info.family == 'record'\n"
        "assert 'cramers_v_il' in dir(infoloss)\n"
        "print(sorted(m for m in sys.modules if m.startswith('infoloss.measures.')))\n"
    )
    assert _run(code).strip() == "['infoloss.measures.record']"


def test_unknown_measure_still_suggests_the_closest_id():
    import pytest

    from infoloss.compare import _select_measures
    from infoloss.errors import InputError

    with pytest.raises(InputError, match="did you mean 'il1s'"):
        _select_measures(["il1"])
