"""The KS p-value computed without scipy.stats (infoloss.measures._kolmogorov) against scipy.stats.kstwo.sf."""

import numpy as np
import pytest
from scipy import stats

from infoloss.measures._kolmogorov import kstwo_sf

SIZES = [141, 1_000, 20_001, 100_000, 100_001, 200_000, 1_000_000, 10_000_000]


def _grid(n: int) -> np.ndarray:
    """Statistics from where the p-value is nearly 1 to where it is 0, and the method boundaries.

    scipy's Smirnov series (``n d² ≥ 2.2``) costs O(n) per value, about a
    second at 1,000,000: its region is sampled densely only for small ``n``.
    """
    nd2 = np.concatenate([np.geomspace(1e-2, 2.19, 80), [370.0, 500.0]])
    if n <= 20_001:
        nd2 = np.concatenate([nd2, np.geomspace(2.2, 370, 40)])
    elif n <= 200_000:
        nd2 = np.concatenate([nd2, [np.nextafter(2.2, 0), 2.2, 18.0, 369.0]])
    d = np.sqrt(nd2 / n)
    ends = [0.0, 1 / (2 * n), 1 / n, 1.0] + ([0.49, 0.5, 0.75, 1 - 1 / n] if n <= 200_000 else [])
    return np.concatenate([d[d < 1], ends])


@pytest.mark.parametrize("n", SIZES)
def test_kstwo_sf_is_scipys_over_the_whole_range(n):
    d = _grid(n)
    ours = np.array([kstwo_sf(float(x), n) for x in d])
    scipys = stats.kstwo.sf(d, n)
    np.testing.assert_allclose(ours, scipys, rtol=1e-13, atol=0)
    # where scipy's value is special.smirnov or a constant, it is the same call: the same bits
    smirnov = (n * d * d >= 2.2) | (d >= 0.5)
    assert np.array_equal(ours[smirnov], scipys[smirnov])


def test_small_samples_and_durbins_region_are_scipys_own():
    for n, d in [(10, 0.3), (140, 0.05), (50_000, 0.0004), (5_000, 0.0005)]:
        assert kstwo_sf(d, n) == stats.kstwo.sf(d, n)

