"""Pearson's χ² test of independence (infoloss.measures._contingency) against scipy.stats.chi2_contingency."""

import numpy as np
import pytest
from scipy import stats

from infoloss.measures._contingency import chi2_independence


@pytest.mark.parametrize("shape", [(2, 2), (2, 7), (5, 3), (12, 40)])
@pytest.mark.parametrize("kind", ["counts", "weighted"])
def test_chi2_independence_is_scipys_bit_for_bit(shape, kind):
    rng = np.random.default_rng(sum(shape))
    for _ in range(20):
        table = rng.integers(1, 50, size=shape)
        if kind == "weighted":
            table = table * rng.uniform(0.2, 3.0, size=shape)
        ours, ref = chi2_independence(table), stats.chi2_contingency(table, correction=False)
        assert ours.statistic == ref.statistic and ours.pvalue == ref.pvalue and ours.dof == ref.dof
        assert np.array_equal(ours.expected_freq, ref.expected_freq)


def test_one_row_or_column_has_no_degrees_of_freedom_as_in_scipy():
    for table in (np.array([[3, 4, 5]]), np.array([[3], [4]])):
        ours, ref = chi2_independence(table), stats.chi2_contingency(table, correction=False)
        assert (ours.statistic, ours.pvalue, ours.dof) == (ref.statistic, ref.pvalue, ref.dof) == (0.0, 1.0, 0)


def test_bad_tables_raise_scipys_reasons():
    with pytest.raises(ValueError, match="zero element at \\(0, 1\\)"):
        chi2_independence(np.array([[3, 0], [4, 0]]))
    with pytest.raises(ValueError, match="nonnegative"):
        chi2_independence(np.array([[3, -1], [4, 2]]))
    with pytest.raises(ValueError, match="No data"):
        chi2_independence(np.zeros((0, 2)))
