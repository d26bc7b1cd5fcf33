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


def reference_line(runs: int = 5) -> str:
    """One line: the seconds of the three reference workloads on this machine now."""
    import numpy as np

    cmd = [sys.executable, "-c", "import numpy, pandas, scipy.stats"]
    imports = _median_seconds(lambda: subprocess.run(cmd, check=True), runs)
    x = np.random.default_rng(0).standard_normal(1_000_000)
    sort = _median_seconds(lambda: np.sort(x), runs)
    a = np.random.default_rng(1).standard_normal((2000, 2000))
    matmul = _median_seconds(lambda: a @ a, runs)
    return (f"machine today: import numpy+pandas+scipy.stats {imports:.2f} s, sort 1M floats {sort * 1000:.0f} ms, "
            f"2000x2000 matmul {matmul * 1000:.0f} ms (medians of {runs}; bench/machine.py)")


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
