"""The faster large-file paths of the measures (issue 14) give the same numbers as the direct computations."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from infoloss.measures.distributions import ks, ks_weighted
from infoloss.pair import encode_pair


def _weighted_pair(seed: int, n: int, weights: str):
    rng = np.random.default_rng(seed)
    orig = pd.DataFrame({"x": np.round(rng.normal(size=n), 2), "y": rng.exponential(size=n), "z": rng.normal(size=n)})
    prot = orig + rng.normal(0, 0.05, size=orig.shape)
    orig.loc[rng.random(n) < 0.05, "y"] = np.nan  # missing values in one variable of each file
    prot.loc[rng.random(n) < 0.05, "z"] = np.nan
    if weights == "constant":
        orig["w"], prot["w"] = 2.0, 3.0
    else:
        orig["w"], prot["w"] = rng.uniform(0.5, 3, n), rng.uniform(0.5, 3, n)
        if weights == "zeros":
            orig.loc[rng.random(n) < 0.03, "w"] = 0.0
            prot.loc[rng.random(n) < 0.03, "w"] = 0.0
    spec = {"variables": {**{v: {"scale": "continuous"} for v in "xyz"}, "w": {"role": "weight"}}}
    return orig, prot, spec


@pytest.mark.parametrize("weights", ["positive", "zeros", "constant"])
def test_weighted_ks_on_large_files_equals_ks_weighted_on_the_usable_records(weights):
    n = 12_000  # above the size where the shared sorted levels are used
    orig, prot, spec = _weighted_pair(3, n, weights)
    res = ks(encode_pair(orig, prot, spec), weighted=True)
    for name in "xyz":
        ok1 = orig[name].notna() & (orig["w"] > 0)
        ok2 = prot[name].notna() & (prot["w"] > 0)
        d, p, method = ks_weighted(orig[name][ok1].to_numpy(), orig["w"][ok1].to_numpy(),
                                   prot[name][ok2].to_numpy(), prot["w"][ok2].to_numpy())
        assert res.by_variable[name] == d
        assert res.details["pvalue"][name] == p
        assert res.details["method"][name] == method
        assert res.details["n_orig"][name] == ok1.sum() and res.details["n_prot"][name] == ok2.sum()
        if weights == "constant":
            assert d == stats.ks_2samp(orig[name].dropna(), prot[name].dropna()).statistic


def test_per_file_statistics_made_in_two_threads_belong_to_their_file():
    orig, prot, spec = _weighted_pair(5, 3000, "positive")
    spec = {"variables": {v: {"scale": "continuous"} for v in "xyz"}}  # unweighted: plain means and covariances
    from infoloss.measures.moments import continuous_statistics, eigen

    pair = encode_pair(orig, prot, spec)
    res = continuous_statistics(pair)
    for key, df in (("orig", orig), ("prot", prot)):
        for name in "xyz":
            assert res[key]["mean"][name] == pytest.approx(df[name].mean(), rel=1e-12)
        complete = df[list("xyz")].dropna()
        assert np.allclose(res[key]["cov"], np.cov(complete.to_numpy(), rowvar=False), rtol=1e-12)
    # sdcMicro's eigen: pairwise-complete standardised covariance of each file, eigenvalues decreasing
    e = eigen(pair).details
    for key, df in (("eigenvalues_original", orig), ("eigenvalues_protected", prot)):
        z = (df[list("xyz")] - df[list("xyz")].mean()) / df[list("xyz")].std()
        expected = np.sort(np.linalg.eigvalsh(z.cov().to_numpy()))[::-1]
        assert np.allclose(e[key], expected, rtol=1e-10)


def test_report_summaries_made_in_two_threads_belong_to_their_variable():
    from infoloss.aggregates import summarise

    orig, prot, spec = _weighted_pair(6, 2000, "positive")
    agg = summarise(encode_pair(orig, prot, spec))
    for name in "xyz":
        assert agg["variables"][name]["stats"]["orig"]["mean"] == pytest.approx(orig[name].mean(), rel=1e-12)
        assert agg["variables"][name]["stats"]["prot"]["max"] == prot[name].max()
