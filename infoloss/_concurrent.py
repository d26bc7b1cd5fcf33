"""Process-wide state for measures that run side by side (``shares_cores``, issue 14).

Two things a measure may want to change are global to the process: the
warnings filters (``warnings.catch_warnings`` swaps them for every thread)
and the number of BLAS threads (``threadpoolctl``).  While ``compare`` runs
two measures at once it holds both for the whole phase (:func:`side_by_side`):
BLAS at one thread, and every warning handed to the thread that raised it.
A measure that shares cores therefore

* records or silences warnings with :func:`recorded_warnings` (outside the
  phase it is ``warnings.catch_warnings(record=True)`` with the ``"always"``
  or ``"ignore"`` filter, as before), and
* holds BLAS to one thread itself when it calls BLAS (``threadpoolctl``), so
  that its last bits are the same whether it runs alone or beside another
  (the phase's limit is then the same limit).
"""

from __future__ import annotations

import os
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

_local = threading.local()  # .sink: (list to record this thread's warnings in, or None to drop them,) or None
_phase = threading.Event()  # set while compare runs measures side by side
_first_imports = threading.Lock()


#: (the number of modules imported when it was made, the ThreadpoolController), see :func:`thread_limits`
_controller: tuple[int, Any] | None = None


def thread_limits(limits: int = 1, user_api: str | None = "blas") -> Any:
    """``threadpoolctl.threadpool_limits(limits=limits, user_api=user_api)``, with one controller for the process.

    Each ``threadpool_limits`` makes a ``ThreadpoolController``, which walks
    every shared library the process has loaded (``dl_iterate_phdr``, a
    Python callback each): 2-8 ms once numpy, scipy, pandas and Arrow are
    loaded, eleven times in a 1,000,000 × 50 comparison (84 ms).  threadpoolctl
    advises reusing a controller, which knows the libraries loaded when it
    was made; a thread pool library (a BLAS, OpenMP) is loaded by importing
    the extension module that links it, so the controller is made again when
    a module has been imported since (``len(sys.modules)``).  Limiting and
    restoring are threadpoolctl's own (``ThreadpoolController.limit``), a
    context manager like ``threadpool_limits``.
    """
    global _controller
    held = _controller
    if held is None or held[0] != len(sys.modules):
        from threadpoolctl import ThreadpoolController

        count = len(sys.modules)  # after the import: threadpoolctl's own modules count as seen
        held = _controller = (count, ThreadpoolController())
    return held[1].limit(limits=limits, user_api=user_api)


def cores() -> int:
    """The number of cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # no affinity on this system (macOS, Windows)
        return os.cpu_count() or 1


def import_alone(name: str) -> ModuleType:
    """``importlib.import_module(name)``, one such import at a time in the process.

    Measures that share cores import scikit-learn when they first run, and
    two of them (``robust_eigen``'s MinCovDet, ``pmse``'s LogisticRegression)
    may do so at the same moment on the two threads.  scikit-learn's modules
    import each other in a cycle, and Python's per-module import locks then
    let one thread meet the other's half-initialised ``sklearn.base``
    (ImportError: cannot import name 'clone' from partially initialized
    module).  Imported through here, the first import finishes before the
    other thread starts its own; later calls find the module at once.
    """
    import importlib

    with _first_imports:
        return importlib.import_module(name)


def map_in_order(func: Callable[[Any], Any], items: list, size: int, max_workers: int = 2) -> list:
    """``[func(x) for x in items]``, on up to ``max_workers`` threads when ``size`` (cells of work) is large.

    For per-item work in numpy or Arrow code that releases the GIL.  The
    results keep the order of ``items``; of several items that fail, the
    first in order raises, as on one thread.
    """
    workers = min(len(items), cores(), max_workers)
    if workers < 2 or size < 2_000_000:
        return [func(x) for x in items]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(func, items))


@contextmanager
def recorded_warnings(ignore: bool = False) -> Iterator[list[warnings.WarningMessage]]:
    """The warnings raised inside the block, on this thread only while measures run side by side.

    ``ignore``: drop them (the list stays empty).
    """
    if not _phase.is_set():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("ignore" if ignore else "always")
            yield caught
        return
    caught: list[warnings.WarningMessage] = []
    previous = getattr(_local, "sink", None)
    _local.sink = (None if ignore else caught,)
    try:
        yield caught
    finally:
        _local.sink = previous


@contextmanager
def side_by_side() -> Iterator[None]:
    """Hold BLAS at one thread and route each warning to its thread's :func:`recorded_warnings` block.

    Entered by ``compare`` on the main thread around the measures that run
    side by side.  A warning raised outside any such block goes to the
    usual ``showwarning``.
    """
    with thread_limits(1), warnings.catch_warnings():
        warnings.simplefilter("always")  # a block records every warning; the filter is the same for all threads
        show = warnings.showwarning

        def to_thread(message, category, filename, lineno, file=None, line=None):
            sink = getattr(_local, "sink", None)
            if sink is None:
                return show(message, category, filename, lineno, file, line)
            if sink[0] is not None:
                sink[0].append(warnings.WarningMessage(message, category, filename, lineno, file, line))
            return None

        warnings.showwarning = to_thread
        _phase.set()
        try:
            yield
        finally:
            _phase.clear()
