"""infoloss: information loss and data utility of protected microdata.

Every registered measure is available as ``infoloss.<name>(original_df,
protected_df, spec=None, **options)`` (``lambda`` as ``infoloss.lambda_``);
``infoloss.compare`` runs them all and returns a report.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

from .compare import Report, ScenarioResult, compare  # noqa: E402
from .errors import InputError, NotComputed, SpecError  # noqa: E402
from .pair import EncodedPair, encode_pair  # noqa: E402
from .registry import MeasureResult  # noqa: E402
from .spec import Spec, infer_spec, load_spec  # noqa: E402


def read_table(path: Any, spec: Any = None, *, which: str = "original") -> Any:
    """Read a data file of any supported format (see :func:`infoloss.io.read_table`)."""
    from .io import read_table as _read

    return _read(path, spec, which=which)


def list_measures() -> list[Any]:
    """Metadata of every registered measure, in registration order."""
    from .registry import registered

    return list(registered())


def __getattr__(name: str) -> Any:
    """Measure functions by their Python name, e.g. ``infoloss.il1s``."""
    from .registry import registered

    for info in registered():
        if info.func.__name__ == name:
            return info.func
    raise AttributeError(f"module 'infoloss' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's names and every measure function (so ``dir(infoloss)`` and tab completion list them)."""
    from .registry import registered

    return sorted(set(globals()) | {info.func.__name__ for info in registered()})


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
