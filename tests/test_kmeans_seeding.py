"""The one-hot k-means++ seeding picks scikit-learn's centres (or says it cannot tell), and
cluster_utility gives the same numbers with it as with scikit-learn's own seeding.

The reference is scikit-learn itself: ``KMeans(init="k-means++", n_init=1, random_state=seed)``
fitted to the same coded records; the fast seeding is checked by the labels and the centres of
``KMeans(init=<its centres>)``, which must be equal to the bit.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.cluster import KMeans

from infoloss.measures import _kmeans_seeding as seeding
from infoloss.measures import propensity
from infoloss.measures.propensity import cluster_utility

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def coded(dense: np.ndarray, codes: list[np.ndarray]) -> np.ndarray:
    """[dense | one 0/1 column per category of each variable], built independently."""
    blocks = [dense] + [np.eye(int(c.max()) + 1)[c] for c in codes]
    return np.hstack(blocks)


def records(seed: int, n: int, q: int, levels: list[int], ties: bool = False) -> tuple[np.ndarray, list]:
    rng = np.random.default_rng(seed)
    dense = rng.normal(size=(n, q))
    if ties:
        dense = np.round(dense)  # few distinct values: distances tie often
    dense[:, :1] *= 40  # a long-tailed column: large norms
    codes = [rng.integers(0, k, n) for k in levels]
    return dense, codes


def same_as_sklearn(dense, codes, w, k, seed) -> bool | None:
    """None when the fast seeding declines; else whether k-means from its centres is scikit-learn's."""
    picked = seeding.onehot_kmeans_plusplus(dense, codes, w, k, np.random.RandomState(seed))
    if picked is None:
        return None
    x = coded(dense, codes)
    ours = KMeans(k, init=x[picked], n_init=1, algorithm="lloyd").fit(x, sample_weight=w)
    theirs = KMeans(k, n_init=1, random_state=seed, algorithm="lloyd").fit(x, sample_weight=w)
    return bool(np.array_equal(ours.labels_, theirs.labels_)
                and np.array_equal(ours.cluster_centers_, theirs.cluster_centers_))


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shape", [(600, 3, [2, 5, 9]), (400, 0, [3, 4, 6, 11]), (500, 4, [])])
def test_same_centres_as_scikit_learn(weighted, shape):
    n, q, levels = shape
    dense, codes = records(1, n, q, levels)
    w = np.random.default_rng(2).gamma(2.0, size=n) if weighted else None
    results = [same_as_sklearn(dense, codes, w, k, seed) for seed in range(6) for k in (2, 7, 20)]
    assert False not in results
    # it declines only on exact ties: two outliers each other's nearest record leave the same potential;
    # categories alone (distances 0, 2, 4, ...) tie often without weights
    assert results.count(True) >= (0.8 if q or weighted else 0.3) * len(results)


def test_ties_decline_or_agree():
    """Categories only (distances 0, 2, 4, ...) and rounded values: potentials tie exactly, and the
    fast seeding must then decline rather than pick differently from scikit-learn."""
    dense, codes = records(3, 300, 1, [2, 3], ties=True)
    results = [same_as_sklearn(dense[:, :0], codes, None, k, seed) for seed in range(12) for k in (2, 4)]
    assert False not in results
    results += [same_as_sklearn(dense, codes, None, k, seed) for seed in range(12) for k in (2, 4)]
    assert False not in results


def test_declines_on_a_tie_between_different_records():
    """Three records a category apart: after the first centre both others leave potential 2."""
    codes = [np.array([0, 1, 2])]
    answers = {seed: seeding.onehot_kmeans_plusplus(np.empty((3, 0)), codes, None, 2, np.random.RandomState(seed))
               for seed in range(20)}
    assert any(a is None for a in answers.values())
    for seed, a in answers.items():
        if a is not None:  # both candidates were the same record
            assert same_as_sklearn(np.empty((3, 0)), codes, None, 2, seed) is True


def test_duplicate_records_are_not_a_tie():
    """Candidates that are copies of one record make the same centre: no reason to decline."""
    dense, codes = records(4, 200, 2, [3])
    dense, codes = np.repeat(dense, 3, axis=0), [np.repeat(c, 3) for c in codes]
    results = [same_as_sklearn(dense, codes, None, 10, seed) for seed in range(5)]
    assert results == [True] * 5


def test_squares_beyond_the_float_range_are_left_to_scikit_learn():
    dense, codes = records(7, 100, 2, [3])
    dense[0, 0] = 1e200
    assert seeding.onehot_kmeans_plusplus(dense, codes, None, 4, np.random.RandomState(0)) is None


def test_random_state_advanced_as_scikit_learn():
    """After the seeding the generator is where scikit-learn's k-means++ leaves it."""
    from sklearn.cluster._kmeans import _kmeans_plusplus

    dense, codes = records(5, 300, 2, [4])
    x = coded(dense, codes)
    x = x - x.mean(axis=0)
    ours, theirs = np.random.RandomState(9), np.random.RandomState(9)
    picked = seeding.onehot_kmeans_plusplus(dense, codes, None, 6, ours)
    _, indices = _kmeans_plusplus(x, 6, (x * x).sum(axis=1), np.ones(300), theirs)
    assert picked.tolist() == indices.tolist()
    assert ours.uniform() == theirs.uniform()


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_cluster_utility_unchanged(monkeypatch, weighted, sparse):
    """The measure's values and details with the fast seeding equal those with scikit-learn's, on the dense
    path and on the sparse one (a merged file beyond ``_DENSE_CELLS``, where scikit-learn seeds on the sparse
    matrix)."""
    if sparse:
        monkeypatch.setattr(propensity, "_DENSE_CELLS", 0)
    rng = np.random.default_rng(6)
    n = 800

    def frame(shift: float) -> pd.DataFrame:
        return pd.DataFrame({
            "x": rng.normal(shift, 1, n), "y": rng.lognormal(0, 1, n),
            "g": rng.choice(list("abcde"), n), "h": rng.choice(["u", "v", None], n),
            "w": rng.uniform(0.5, 3, n),
        })

    orig, prot = frame(0.0), frame(0.3)
    variables = {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}, "g": {"scale": "nominal"},
                 "h": {"scale": "nominal"}}
    if weighted:
        variables["w"] = {"role": "weight"}
    spec = {"variables": variables, "pairing": "none"}
    calls = []
    real = seeding.onehot_kmeans_plusplus

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(seeding, "onehot_kmeans_plusplus", counted)
    fast = cluster_utility(orig, prot, spec, G=12, max_records=300, seeds=4)
    assert len(calls) == 4
    monkeypatch.setattr(seeding, "onehot_kmeans_plusplus", lambda *a, **k: None)
    plain = cluster_utility(orig, prot, spec, G=12, max_records=300, seeds=4)
    assert fast.value == plain.value
    assert fast.details == plain.details
    assert sparse or propensity._DENSE_CELLS > 600 * 12  # else the dense path
