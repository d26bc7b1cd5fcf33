"""Fixtures shared by several test modules."""

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import settings

from infoloss.pair import encode_pair
from infoloss.spec import load_spec

DATA = Path(__file__).resolve().parent / "data"

# The property tests draw the same examples on every run (``derandomize``), so that the suite a fresh clone runs
# passes or fails the same way each time; ``INFOLOSS_HYPOTHESIS=explore`` draws new examples on each run (for
# looking for bugs, not for CI; a failure found that way is pinned with ``@example``).
settings.register_profile("repeatable", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile("explore" if os.environ.get("INFOLOSS_HYPOTHESIS") == "explore" else "repeatable")


@pytest.fixture(scope="session", autouse=True)
def one_thread_per_library():
    """OpenMP and BLAS on one thread for the whole suite, as the measures' own fits (``_mining_data.one_thread``).

    The tests that fit scikit-learn models themselves (the references the measures are checked against) would
    otherwise start a thread per core; on a machine whose cores are busy, OpenMP threads spin-wait for each other
    and one such test took 47-77 s instead of 1 s.
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        yield


@pytest.fixture(scope="session")
def testdata_half_subsample():
    """testdata's original against a seeded 50 % simple random subsample of itself, unpaired.

    Returns ``(pair, original, subsample)``; the measures cache on the pair, so
    the modules that use it share the tables and fits.
    """
    orig = pd.read_csv(DATA / "testdata" / "original.csv")
    spec = load_spec(DATA / "testdata" / "spec.yaml")
    spec.pairing = "none"
    rng = np.random.default_rng(20240611)
    sub = orig.iloc[np.sort(rng.choice(len(orig), len(orig) // 2, replace=False))]
    return encode_pair(orig, sub, spec), orig, sub
