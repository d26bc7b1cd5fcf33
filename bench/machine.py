"""How fast this machine is today, so that benchmark figures from different days can be compared.

    python bench/machine.py

The 2-core benchmark machine is a shared virtual machine whose speed varies
from day to day: the same ``infoloss compare`` on the same 1M x 50 files took
21.8 s one day and 31 s the next, on the same code.  The benchmarks print this
line first; a budget missed on a slow day is read against it.  Three reference
workloads, each the median of several runs:

* ``import``: a fresh ``python -c "import numpy, pandas, scipy.stats"``
  (start-up and the imports infoloss cannot do without; 0.69-0.72 s on the
  day the 200,000 x 16 SDMetrics comparison gave 1.8x);
* ``sort``: ``np.sort`` of 1,000,000 standard normal float64 values (one core;
  the sorted levels of the distributions and GDU families are such sorts);
* ``matmul``: a 2,000 x 2,000 float64 matrix product (BLAS on every core;
  k-means and the robust covariances).

Two more figures explain where a run's time goes on a given machine:

* ``sort without AVX-512``: the same sort in a fresh process with numpy's
  AVX-512 kernels switched off (``NPY_DISABLE_CPU_FEATURES``).  numpy sorts
  with AVX-512 where the processor has it; on AMD Zen 4 processors (the
  2-core benchmark machine is one) that sort is several times slower than
  numpy's AVX2 sort (53 against 9 ms there), because Zen 4 executes the
  AVX-512 compress-store the sort relies on slowly.  ``infoloss compare``
  therefore starts numpy without AVX-512 on Zen 4 (``infoloss/_numpy_start.py``);
  library calls (``import infoloss``) sort at the first figure;
* ``fresh memory``: a fresh process filling 1 GB it has never touched, in
  the transparent huge pages numpy asks for, and in 4 KB pages (huge pages
  switched off for that process).  On a virtual machine that returns idle
  memory to its host, that costs 0.4-2.4 s per GB of the kernel's system
  time in huge pages (from run to run on the benchmark machine) and
  0.35-0.45 s in 4 KB pages, against 0.1 s for memory the process freed a
  moment ago; a 1M x 50 run spends 6-8 of its 38-40 CPU seconds in system
  time there, and reads its files into 4 KB pages
  (``infoloss/_memory.py``, ``read_in_small_pages``).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time


def _median_seconds(work, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        work()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


#: a fresh process's median seconds of ``np.sort`` of 1,000,000 normal values (its own AVX-512 setting)
_SORT_CHILD = (
    "import statistics, time, numpy as np\n"
    "x = np.random.default_rng(0).standard_normal(1_000_000)\n"
    "t = []\n"
    "for _ in range({runs}):\n"
    "    t0 = time.perf_counter(); np.sort(x); t.append(time.perf_counter() - t0)\n"
    "print(statistics.median(t))\n"
)
#: a fresh process's seconds to fill 1 GB of memory it never touched (numpy asks for huge pages; with
#: ``{small}`` the process has them switched off first, as ``infoloss compare`` does while it reads)
_FRESH_CHILD = (
    "import ctypes, sys, time, numpy as np\n"
    "if {small} and ctypes.CDLL(None).prctl(41, 1, 0, 0, 0) != 0:\n"  # PR_SET_THP_DISABLE (Linux)
    "    sys.exit(1)\n"
    "t0 = time.perf_counter(); a = np.ones(1 << 27); print(time.perf_counter() - t0)\n"
)
#: numpy's CPU features to switch off for its AVX2 kernels instead of its AVX-512 ones
NO_AVX512 = "X86_V4 AVX512_ICL AVX512_SPR"


def _child_seconds(code: str, env: dict | None = None) -> float:
    """The number a fresh Python process running ``code`` prints (seconds); NaN when it fails (an older numpy
    may refuse a feature name it does not know)."""
    import os

    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True,
                         env={**os.environ, **(env or {})})
    try:
        return float(out.stdout.split()[-1])
    except (IndexError, ValueError):
        return float("nan")


def reference_line(runs: int = 5) -> str:
    """One line: the seconds of the reference workloads on this machine now."""
    import numpy as np

    cmd = [sys.executable, "-c", "import numpy, pandas, scipy.stats"]
    imports = _median_seconds(lambda: subprocess.run(cmd, check=True), runs)
    x = np.random.default_rng(0).standard_normal(1_000_000)
    sort = _median_seconds(lambda: np.sort(x), runs)
    sort_avx2 = _child_seconds(_SORT_CHILD.format(runs=runs), {"NPY_DISABLE_CPU_FEATURES": NO_AVX512})
    a = np.random.default_rng(1).standard_normal((2000, 2000))
    matmul = _median_seconds(lambda: a @ a, runs)
    fresh: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(3):  # in turns: a run reuses some of what the one before it freed
        for small in fresh:
            fresh[small].append(_child_seconds(_FRESH_CHILD.format(small=small)))
    huge, small = (statistics.median(fresh[k]) for k in (False, True))
    return (f"machine today: import numpy+pandas+scipy.stats {imports:.2f} s, sort 1M floats {sort * 1000:.0f} ms "
            f"(without AVX-512 {sort_avx2 * 1000:.0f} ms), 2000x2000 matmul {matmul * 1000:.0f} ms, "
            f"fresh memory {huge:.2f} s/GB (in 4 KB pages {small:.2f}) (medians; bench/machine.py)")


if __name__ == "__main__":
    print(reference_line())


def compile_checkout(root) -> None:
    """Byte-compile the checkout's ``infoloss`` package, as ``pip install`` does for an installed package.

    Python reads a module's cached bytecode when it is there, and writes it on
    first import unless ``PYTHONDONTWRITEBYTECODE`` is set, as it is on the
    benchmark machine: every timed run would otherwise compile infoloss's
    modules from source again (about 0.1-0.2 s), while the libraries it is
    compared with, installed by pip, run from their bytecode.
    """
    import compileall
    from pathlib import Path

    compileall.compile_dir(str(Path(root) / "infoloss"), quiet=1)
