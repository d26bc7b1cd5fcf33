"""Import numpy for the command line, without its AVX-512 kernels on AMD Zen 4 processors (issue 14).

numpy 2 sorts with x86-simd-sort, whose AVX-512 partitioning stores each
vector with ``vpcompress`` to memory.  On Zen 4 that instruction is
microcoded, over 100 cycles (numpy/x86-simd-sort#6; numpy/numpy#32690
discusses switching it off there), and numpy still picks it: on the 2-core
Zen 4 benchmark machine a sort of 1,000,000 floats takes 52 ms with AVX-512
and 9 ms with numpy's AVX2 kernel, an argsort 74 and 26 ms
(``bench/machine.py``).  A comparison sorts each continuous variable of each
file, so the command line starts numpy with its AVX-512 targets off
(numpy's documented ``NPY_DISABLE_CPU_FEATURES``, read once, when numpy is
imported): the 1,000,000 x 50 run is about 1.3 s faster, the 200,000 x 16
one 25-60 ms (from one set of alternating runs to another), with the same
JSON to within 3e-16 relative (a KS p-value; the rest to the bit).  numpy's
AVX2 ``exp``, ``log``, ``arctan`` and ``ldexp`` are slower than its AVX-512
ones; ``numeric.scaled`` multiplies instead of ``ldexp`` for that reason.

Only on Zen 4 (AMD family 25 with AVX-512; Zen 5 stores fast), with numpy 2
(numpy 1.26 has no AVX2 sort), never over the user's own
``NPY_DISABLE_CPU_FEATURES`` or ``NPY_ENABLE_CPU_FEATURES`` (set empty,
``NPY_DISABLE_CPU_FEATURES=`` keeps numpy's own choice), and only in a
process that has not imported numpy yet; a library user's numpy is left as
it is.  The variable is removed again once numpy is loaded, so that other
programs the process starts do not inherit it.  A numpy built with AVX-512 in
its baseline refuses the variable at import; numpy cannot be imported twice
in one process, so the command then starts itself again without it
(:func:`import_numpy`).
"""

from __future__ import annotations

import importlib
import os
import re
import sys

__all__ = ["import_numpy", "avx512_targets"]

DISABLE = "NPY_DISABLE_CPU_FEATURES"
ENABLE = "NPY_ENABLE_CPU_FEATURES"
#: set when the command has started itself again because numpy refused DISABLE: keep numpy's own choice
KEPT = "INFOLOSS_NUMPY_AVX512_KEPT"

#: numpy's dispatched AVX-512 targets, by the numpy version that named them so (each list exactly the targets
#: in that version's dispatch list, so that numpy has nothing to warn about)
_TARGETS = (
    ((2, 4), "X86_V4 AVX512_ICL AVX512_SPR"),
    ((2, 0), "AVX512F AVX512CD AVX512_KNL AVX512_KNM AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL"),
)
_ZEN4_FAMILY = 25  # AMD family 19h: Zen 3 (no AVX-512) and Zen 4; Zen 5 is family 26


def avx512_targets(cpuinfo: str, numpy_version: str) -> str | None:
    """What to put in ``NPY_DISABLE_CPU_FEATURES``: numpy's AVX-512 targets on a Zen 4 processor, else None.

    ``cpuinfo`` is the text of ``/proc/cpuinfo`` (its first processor is read).

    Examples
    --------
    >>> zen4 = "vendor_id\\t: AuthenticAMD\\ncpu family\\t: 25\\nflags\\t\\t: fpu avx2 avx512f avx512bw\\n\\n"
    >>> avx512_targets(zen4, "2.4.6"), avx512_targets(zen4, "1.26.4")
    ('X86_V4 AVX512_ICL AVX512_SPR', None)
    >>> avx512_targets(zen4.replace("25", "26"), "2.4.6") is None  # Zen 5
    True
    """
    first = cpuinfo.split("\n\n", 1)[0]
    fields = {}
    for line in first.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields[key.strip()] = value.strip()
    if fields.get("vendor_id") != "AuthenticAMD" or fields.get("cpu family") != str(_ZEN4_FAMILY):
        return None
    if "avx512f" not in fields.get("flags", "").split():
        return None
    found = re.match(r"(\d+)\.(\d+)", numpy_version.strip())
    if not found:
        return None
    version = (int(found.group(1)), int(found.group(2)))
    return next((names for since, names in _TARGETS if version >= since), None)


def _cpuinfo() -> str:
    """The text of ``/proc/cpuinfo`` ('' where there is none)."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            return f.read(65536)
    except OSError:
        return ""


def _numpy_version() -> str:
    """The installed numpy's version, read from its ``version.py`` without importing numpy ('' if unknown).

    ``importlib.metadata`` takes about 50 ms to find it; this takes well under one.
    """
    import importlib.util

    try:
        spec = importlib.util.find_spec("numpy")
        folder = spec.submodule_search_locations[0] if spec and spec.submodule_search_locations else None
        if folder is None:
            return ""
        with open(os.path.join(folder, "version.py"), encoding="utf-8") as f:
            found = re.search(r'^version\s*(?::\s*str\s*)?=\s*["\']([^"\']+)["\']', f.read(), re.MULTILINE)
    except (OSError, ValueError, ImportError):
        return ""
    return found.group(1) if found else ""


def _targets_here() -> str | None:
    """:func:`avx512_targets` for this machine and numpy, or None when the user or a restart decided."""
    if not sys.platform.startswith("linux") or DISABLE in os.environ or ENABLE in os.environ or KEPT in os.environ:
        return None
    return avx512_targets(_cpuinfo(), _numpy_version())


def import_numpy() -> None:
    """Import numpy, with its AVX-512 targets off on Zen 4 (see the module's text); nothing if it is loaded."""
    if "numpy" in sys.modules:
        return
    targets = _targets_here()
    if targets is not None:
        os.environ[DISABLE] = targets
    try:
        importlib.import_module("numpy")
    except (RuntimeError, ImportError):
        if targets is None:
            raise
        _restart_keeping_avx512()  # AVX-512 in this numpy's baseline: it refuses the variable
    finally:
        if targets is not None:
            os.environ.pop(DISABLE, None)


def _restart_keeping_avx512() -> None:
    """Start this command again in a fresh process without the variable (numpy loads once per process)."""
    os.environ.pop(DISABLE, None)
    os.environ[KEPT] = "1"
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])
