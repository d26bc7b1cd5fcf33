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
"""

from __future__ import annotations

import sys
from functools import lru_cache


@lru_cache(maxsize=1)
def _malloc_trim():
    """glibc's ``malloc_trim`` or None (another C library, another system)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        trim = ctypes.CDLL("libc.so.6").malloc_trim  # glibc's soname; musl and others have no malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def release() -> None:
    """Return the free memory of Arrow's pool and of glibc's heap to the operating system."""
    pa = sys.modules.get("pyarrow")
    if pa is not None:
        try:
            pa.default_memory_pool().release_unused()
        except Exception:  # an old pyarrow or a custom pool: nothing to release
            pass
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
