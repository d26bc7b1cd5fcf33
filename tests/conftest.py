"""Fixtures shared by several test modules."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from infoloss.pair import encode_pair
from infoloss.spec import load_spec

DATA = Path(__file__).resolve().parent / "data"


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
