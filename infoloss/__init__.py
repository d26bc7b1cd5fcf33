"""infoloss: information loss and data utility of protected microdata.

Every registered measure is available as ``infoloss.<name>(original_df,
protected_df, spec=None, **options)`` (``lambda`` as ``infoloss.lambda_``);
``infoloss.compare`` runs them all and returns a report.
"""

from __future__ import annotations

import sys
import types
from typing import Any

__version__ = "0.1.0"

from .errors import InputError, NotComputed, SpecError  # noqa: E402

# Imported on first use, so that ``import infoloss`` and ``infoloss --help`` stay fast (pandas, scipy and
# scikit-learn load only when a comparison needs them).
_LAZY = {
    "Report": "compare",
    "ScenarioResult": "compare",
    "compare": "compare",
    "EncodedPair": "pair",
    "encode_pair": "pair",
    "MeasureResult": "registry",
    "Spec": "spec",
    "infer_spec": "spec_infer",
    "load_spec": "spec",
}


class _Package(types.ModuleType):
    """Keeps ``infoloss.compare`` the function: importing the submodule ``infoloss.compare`` would otherwise
    bind the module under that name in the package."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "compare" and isinstance(value, types.ModuleType):
            value = value.compare
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def read_table(path: Any, spec: Any = None, *, which: str = "original") -> Any:
    """Read a data file of any supported format (see :func:`infoloss.io.read_table`)."""
    from .io import read_table as _read

    return _read(path, spec, which=which)


def list_measures() -> list[Any]:
    """Metadata of every registered measure, in registration order."""
    from .registry import registered

    return list(registered())


def __getattr__(name: str) -> Any:
    """The lazily imported names, and measure functions by their Python name, e.g. ``infoloss.il1s``."""
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    from .registry import python_name

    info = python_name(name)  # imports only the module that defines it
    if info is not None:
        return info.func
    raise AttributeError(f"module 'infoloss' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's names and every measure function (so ``dir(infoloss)`` and tab completion list them)."""
    from .registry import python_names

    return sorted(set(globals()) | set(_LAZY) | python_names())


__all__ = [
    "EncodedPair",
    "InputError",
    "MeasureResult",
    "NotComputed",
    "Report",
    "ScenarioResult",
    "Spec",
    "SpecError",
    "compare",
    "encode_pair",
    "infer_spec",
    "load_spec",
    "list_measures",
    "read_table",
]
