"""Give freed memory back to the operating system between the phases of a comparison.

Both allocators that hold the big arrays keep memory after it is freed:
Arrow's memory pool (mimalloc or jemalloc: the CSV reader's blocks, pandas'
Arrow-backed string columns) and glibc's malloc (numpy arrays of up to 32 MB
come from its heap once its mmap threshold has adapted upwards; a freed one
leaves a hole that stays resident).  On 1,000,000 x 50 files that was 1.5 GB
of resident memory that no object used (bench/bench_memory.py).  ``release``
hands it back: ``release_unused`` of Arrow's default pool (only when pyarrow
is already imported) and glibc's ``malloc_trim(0)`` (Linux with glibc only;
elsewhere nothing).  It never frees a live object, so results cannot change;
it costs a few milliseconds.

``reuse_freed_memory`` (the command line only) sets glibc's malloc so that
numpy arrays of up to 32 MB freed during a comparison are reused rather than
handed back to the system and faulted in again.

``read_in_small_pages`` and ``pages_for_reading`` (the command line only)
let a comparison of large files read and encode them into 4 KB pages rather
than transparent huge pages.

``pause_collection`` and ``resume_collection`` (the command line only) hold
Python's cyclic garbage collector while the modules are imported and the
files read, then exempt what is alive from later collections.
"""

from __future__ import annotations

import gc
import os
import sys
from functools import lru_cache


@lru_cache(maxsize=1)
def _libc():
    """glibc as a ``ctypes`` library, or None (another C library, another system)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        libc = ctypes.CDLL("libc.so.6")  # glibc's soname; musl and others have neither call used here
        libc.malloc_trim, libc.mallopt
    except (OSError, AttributeError):
        return None
    libc.malloc_trim.argtypes = [ctypes.c_size_t]
    libc.malloc_trim.restype = ctypes.c_int
    libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    libc.mallopt.restype = ctypes.c_int
    return libc


@lru_cache(maxsize=1)
def _prctl():
    """Linux's ``prctl`` from glibc as a ``ctypes`` function, or None."""
    libc = _libc()
    if libc is None:
        return None
    import ctypes

    try:
        prctl = libc.prctl
    except AttributeError:
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    return prctl


#: glibc's ``mallopt`` parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
#: glibc's largest mmap threshold on 64-bit systems (DEFAULT_MMAP_THRESHOLD_MAX), and its trim threshold then
_MMAP_THRESHOLD = 32 * 2**20
_TRIM_THRESHOLD = 2 * _MMAP_THRESHOLD


def reuse_freed_memory() -> None:
    """Let glibc's malloc keep freed blocks of up to 32 MB for the next array instead of unmapping them.

    By default glibc serves every block above 128 KB by a fresh ``mmap``
    and unmaps it when freed, raising that threshold only as such blocks are
    freed (up to 32 MB); each new array is then memory the kernel must fault
    in and zero again.  On a virtual machine that is costly: a 200,000 x 16
    comparison faulted about 117,000 pages, 0.4 s of system time on 2 cores.
    Setting the threshold to glibc's own maximum from the start (and the
    trim threshold to twice it, as glibc's adaptation would) serves those
    arrays from the heap, where freed memory is reused: 69,000 page faults,
    0.05-0.08 s less wall time (bench/bench_sdmetrics.py; neutral on 1,000,000 x 50).  Peak memory is
    unchanged, and :func:`release` still hands free memory back between the
    phases.  Only the command-line process does this (it owns its
    interpreter); allocation never changes a result.  Nothing happens
    without glibc.
    """
    libc = _libc()
    if libc is not None:
        libc.mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)
        libc.mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD)


#: Linux's prctl options for transparent huge pages (linux/prctl.h)
_PR_SET_THP_DISABLE, _PR_GET_THP_DISABLE = 41, 42
#: whether :func:`read_in_small_pages` took charge of this process's huge pages (the command line only)
_small_pages = False


def read_in_small_pages() -> bool:
    """Read and encode the files of this comparison into 4 KB pages, not transparent huge pages (Linux only).

    On a virtual machine whose host takes back the memory its guest frees
    (free page reporting, as with Firecracker's or a cloud's balloon
    device), memory the process touches for the first time is backed by
    the host at that moment.  A transparent huge page needs a free 2 MB
    block, which is just what the guest has reported and the host taken
    back; a 4 KB page usually comes from a smaller free block the host
    still backs.  On the 2-core benchmark machine a fresh gigabyte cost 2.2-2.3 s of system
    time in huge pages and 0.35-0.45 s in 4 KB pages (numpy's own
    ``madvise`` for arrays of 4 MB and more, and Arrow's mimalloc pool,
    ask for huge pages).  Reading and encoding two 1,000,000 x 50 CSV files
    touches about 1.9 GB once (Arrow's blocks, the pandas columns, the
    codes): in 4 KB pages the measures started 1.9 s earlier, and the whole
    run took about 2 s less (``bench/bench_e2e.py``).  The measures then
    run with huge pages again: they reuse what they free, where a huge
    page is cheaper (:func:`pages_for_reading`).

    This switches huge pages off for the process now (``prctl``
    ``PR_SET_THP_DISABLE``; the files are read from here on) and returns
    True; it does nothing and returns False when they are off already
    (the process's own setting) or when ``MIMALLOC_ALLOW_THP`` is set (the
    user's choice for Arrow's pool, which mimalloc applies to the whole
    process).  Only the command-line process does this; pages never change
    a result.
    """
    global _small_pages
    prctl = _prctl()
    if prctl is None or _small_pages or "MIMALLOC_ALLOW_THP" in os.environ:
        return False
    if prctl(_PR_GET_THP_DISABLE, 0, 0, 0, 0) != 0:  # off already (or not known to this kernel: -1)
        return False
    if prctl(_PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0:
        return False
    _small_pages = True
    return True


def pages_for_reading(reading: bool) -> None:
    """Small pages while a file is read and encoded (``reading``), huge pages again after, once
    :func:`read_in_small_pages` has taken charge; else nothing."""
    if _small_pages:
        _prctl()(_PR_SET_THP_DISABLE, 1 if reading else 0, 0, 0, 0)


def release() -> None:
    """Return the free memory of Arrow's pool and of glibc's heap to the operating system."""
    pa = sys.modules.get("pyarrow")
    if pa is not None:
        try:
            pa.default_memory_pool().release_unused()
        except Exception:  # an old pyarrow or a custom pool: nothing to release
            pass
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)


#: whether :func:`pause_collection` switched the collector off (and :func:`resume_collection` has not yet run)
_paused = False


def pause_collection() -> None:
    """Switch Python's cyclic garbage collector off until :func:`resume_collection`.

    Starting a comparison imports numpy, pandas, pyarrow, scipy and typer's
    pydantic: some 155,000 objects (modules, functions, classes) that live
    until the process ends, which the collector examines again and again as
    they are made (at every 700 allocations, more each time they survive).
    On a 200,000 x 16 comparison that was 218 + 19 + 1 collections, 40-50 ms
    of a 1 s run; on 1,000,000 x 50, 0.24 s.  Only the command-line process
    does this (it owns its interpreter); memory freed by reference counting,
    as every array is, is freed as before, so results cannot change.
    """
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume_collection(*, freeze: bool = True) -> None:
    """Switch the collector back on if :func:`pause_collection` switched it off.

    With ``freeze``, every object alive is first moved to the permanent
    generation (``gc.freeze``), so that later collections examine only newer
    objects; a reference cycle among the frozen objects is then never
    collected.  ``compare`` runs this once its imports are done and its files
    read and encoded, before the measures.
    """
    global _paused
    if _paused:
        _paused = False
        if freeze:
            gc.freeze()
        gc.enable()
