"""SUDA2: minimal sample uniques, SUDA scores and DIS-SUDA scores.

A record is *unique* on a set S of key variables when no other record has
its values on S (missing values compared as a value) and it has no missing
value in S.  S is a *minimal sample unique* (MSU) of the record when no
proper subset of S is unique.  With M key variables, the SUDA score of a
record is ``sum over its MSUs of (M - |S|)!`` (Elliot et al. 2002; Elliot,
Manning & Ford 2005 for SUDA2), and the DIS-SUDA score turns scores into
probabilities of a correct match (Skinner & Elliot 2002), as sdcMicro's
``suda2`` does:

* ``U`` = records unique on all M keys, ``P`` = records whose full pattern
  occurs exactly twice, ``Dis = U f / (U f + P (1 - f))`` with ``f = 0.01``;
* ``Q = 1 + (8 - M)/20``;
* ``dis_i = 1 / (1 + (U/Dis - U) / (score_i^Q * sum_{score_j > 0} score_j^(-Q)))``
  for ``score_i > 0``, else 0.

**The search.**  Instead of scanning the subsets of every record, the
subsets are visited once for all records, depth first, adding variables in
decreasing order, so that every subset's own subsets one smaller have been
visited before it.  At each subset the records are grouped by their values
(one hash factorisation of the parent's group ids and the new variable), and
only the groups holding a record that could still have an MSU further down
are kept for the children: a record that is unique on a subset, or has a
missing value in it, cannot have an MSU that contains it.  This is the
sub-table pruning of SUDA2 (only records unique on all keys are candidates,
and the tables shrink with depth), written as numpy operations on groups
rather than a loop over records.

**sdcMicro conventions kept** (so that DIS scores equal sdcMicro 5.8.1's):

* ``U`` is counted as sdcMicro's C++ counts it: a record counts as unique
  only when no other record falls in its 16-bit hash bucket (the hash of the
  key values it is given: codes, or the numbers themselves for numeric keys,
  -999 for missing).  A unique record sharing a bucket with another record is
  not counted, so sdcMicro's ``U`` is at most the true number of uniques.
  ``uniques="exact"`` counts the true number instead.
* With one or two key variables sdcMicro adds constant dummy variables to
  reach three; ``M = 3`` is then used in the score weights and in ``Q``.
  ``uniques="exact"`` (the published SUDA2/DIS) uses the number of keys.
* Single-precision (``float``) arithmetic where sdcMicro uses it: ``f``,
  ``Dis``, ``Q`` and ``U/Dis - U``.

References
----------
Elliot, M. J., Manning, A. M. and Ford, R. W. (2002). A computational
algorithm for handling the special uniques problem. Int. J. Uncertainty,
Fuzziness and Knowledge-Based Systems 10(5), 493-509.

Manning, A. M., Haglin, D. J. and Keane, J. A. (2008). A recursive search
algorithm for statistical disclosure assessment. Data Mining and Knowledge
Discovery 16, 165-196.

Skinner, C. J. and Elliot, M. J. (2002). A measure of disclosure risk for
microdata. J. R. Statist. Soc. B 64(4), 855-867.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .freq import patterns

__all__ = ["SudaResult", "MsuSearch", "suda2", "msu_search", "dis_result", "sdcmicro_hash", "DIS_INTERVALS"]

#: sdcMicro's print.suda2 intervals of DIS scores: == 0, (0, 0.1], ..., (0.6, 0.7], > 0.7
DIS_INTERVALS = ("== 0", "(0.0, 0.1]", "(0.1, 0.2]", "(0.2, 0.3]", "(0.3, 0.4]", "(0.4, 0.5]", "(0.5, 0.6]",
                 "(0.6, 0.7]", "> 0.7")


@dataclass
class SudaResult:
    """SUDA2 per record and overall.

    ``score`` and ``dis`` are per record; ``msu`` is the number of MSUs of
    each record; ``msu_by_size[k-1]`` counts the MSUs of size ``k`` over all
    records; ``contribution`` is each key variable's share (per cent) of the
    total score, as sdcMicro's ``attribute_contributions``.
    """

    score: np.ndarray
    dis: np.ndarray
    msu: np.ndarray
    msu_by_size: np.ndarray
    contribution: np.ndarray
    n_unique: int
    n_unique_exact: int
    n_pair_records: int
    dis_fraction: float
    dis_overall: float
    q: float
    m_used: int
    subsets_visited: int
    notes: list[str] = field(default_factory=list)

    def dis_table(self) -> list[int]:
        """Number of records per interval of :data:`DIS_INTERVALS` (sdcMicro's print.suda2)."""
        eps = np.finfo(float).eps
        edges = np.r_[-1.0, np.arange(8) / 10.0 + eps, np.inf]
        # R's cut() is right-closed: a score equal to an edge belongs to the lower interval
        idx = np.searchsorted(edges, self.dis, side="left") - 1
        counts = np.bincount(np.clip(idx, 0, len(edges) - 2), minlength=len(edges) - 1)
        return counts.tolist()


def sdcmicro_hash(values: np.ndarray) -> np.ndarray:
    """sdcMicro's 16-bit SUDA2 hash of each row of an integer matrix (rotate left by one bit, add the value).

    >>> sdcmicro_hash(np.array([[1, 2, 3], [0, 0, -999]])).tolist()
    [11, 64537]
    """
    h = np.zeros(values.shape[0], dtype=np.int64)
    for j in range(values.shape[1]):
        carry = (h & 0x8000) != 0
        h = ((h << 1) & 0xFFFF)
        h = (h + values[:, j].astype(np.int64)) & 0xFFFF
        h = (h + carry) & 0xFFFF
    return h


def suda2(
    keys: np.ndarray,
    *,
    hash_values: np.ndarray | None = None,
    dis_fraction: float = 0.01,
    uniques: str = "sdcmicro",
) -> SudaResult:
    """SUDA2 of a key-code matrix.

    Parameters
    ----------
    keys : ndarray of int, shape (n, m)
        Key codes, ``-1`` for missing.
    hash_values : ndarray of int, shape (n, m), optional
        The numbers sdcMicro would hash (numeric key values, factor codes,
        -999 for missing); needed for ``uniques="sdcmicro"`` (default: the codes + 1).
    dis_fraction : float
        sdcMicro's ``DisFraction`` (sampling fraction for the DIS score), default 0.01.
    uniques : {"sdcmicro", "exact"}
        How ``U`` is counted (see the module docstring); "exact" also weighs the scores with M = the number
        of keys (the published form), "sdcmicro" pads one or two keys to M = 3 as sdcMicro does.

    Examples
    --------
    Record 0 is the only one with ``a = 1`` (an MSU of size 1, weight
    (3 - 1)! = 2); record 1 is the only one with ``b = 1, c = 1`` (size 2,
    weight 1); record 6 is unique only on all three keys (weight 0! = 1).

    >>> keys = np.array([[1, 0, 0], [0, 1, 1], [0, 1, 0], [0, 0, 1], [0, 0, 1], [0, 1, 0], [0, 0, 0]])
    >>> res = suda2(keys, uniques="exact")
    >>> res.score.tolist(), res.msu.tolist()
    ([2.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0], [1, 1, 0, 0, 0, 0, 1])
    """
    return dis_result(msu_search(keys, pad=uniques == "sdcmicro"), keys, hash_values=hash_values,
                      dis_fraction=dis_fraction, uniques=uniques)


@dataclass
class MsuSearch:
    """The MSUs found by SUDA2 (before the DIS step): per record and overall."""

    score: np.ndarray
    msu: np.ndarray
    msu_by_size: np.ndarray
    contribution: np.ndarray
    n_unique_exact: int
    n_pair_records: int
    m_used: int
    subsets_visited: int


def msu_search(keys: np.ndarray, *, pad: bool = True) -> MsuSearch:
    """SUDA2's search: each record's MSUs and SUDA score (the expensive part; see :func:`suda2`).

    ``pad``: weigh the scores with M = 3 when there are one or two key
    variables, as sdcMicro does (it pads them with constant dummies);
    False: the published M, the number of key variables.
    """
    keys = np.asarray(keys)
    n, m = keys.shape
    m_used = max(m, 3) if pad else m
    pat = patterns(keys)
    count = pat.count.astype(np.int64)
    candidates = np.flatnonzero(count == 1)
    msu_counts, contrib, visited = _find_msus(pat.values, count, candidates, m_used)
    factorial = np.array([math.factorial(m_used - k) for k in range(1, m + 1)], dtype=np.float64)
    cand_score = msu_counts.astype(np.float64) @ factorial
    record_of = np.full(pat.n_patterns, -1, dtype=np.int64)
    record_of[candidates] = np.arange(candidates.size)
    at = record_of[pat.index]
    has = at >= 0
    score = np.zeros(n)
    score[has] = cand_score[at[has]]
    msu = np.zeros(n, dtype=np.int64)
    msu[has] = msu_counts.sum(axis=1)[at[has]]
    total = score.sum()
    contribution = 100.0 * contrib.sum(axis=0) / total if total > 0 else np.zeros(m)
    return MsuSearch(score, msu, msu_counts.sum(axis=0), contribution, int(candidates.size),
                     int(2 * np.count_nonzero(count == 2)), m_used, visited)


def dis_result(search: MsuSearch, keys: np.ndarray, *, hash_values: np.ndarray | None = None,
               dis_fraction: float = 0.01, uniques: str = "sdcmicro") -> SudaResult:
    """The DIS-SUDA step on top of a :func:`msu_search` (cheap; one per choice of options)."""
    n, m = np.asarray(keys).shape
    notes = []
    if uniques == "sdcmicro":
        values = np.asarray(keys) + 1 if hash_values is None else np.asarray(hash_values)
        if m < 3:
            values = np.column_stack([values] + [np.ones(n, dtype=np.int64)] * (3 - m))
        buckets = sdcmicro_hash(values)
        n_unique = int(np.count_nonzero(np.bincount(buckets, minlength=1 << 16)[buckets] == 1))
    elif uniques == "exact":
        n_unique = search.n_unique_exact
    else:
        raise ValueError(f"uniques must be 'sdcmicro' or 'exact', got {uniques!r}")
    if m < 3 and search.m_used == 3:
        notes.append(f"{m} key variable(s): scores weighted with M = 3, as sdcMicro pads with constant dummies")
    dis, dis_overall, q = _dis_scores(search.score, n_unique, search.n_pair_records, dis_fraction, search.m_used)
    return SudaResult(search.score, dis, search.msu, search.msu_by_size, search.contribution, n_unique,
                      search.n_unique_exact, search.n_pair_records, float(np.float32(dis_fraction)), dis_overall, q,
                      search.m_used, search.subsets_visited, notes)


def _find_msus(values: np.ndarray, count: np.ndarray, candidates: np.ndarray,
               m_used: int | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """MSUs of the candidate patterns (those occurring once): counts by size and score per variable.

    Returns ``(msu_counts (c, m), contributions (c, m), subsets visited)``;
    the contribution of variable v to a candidate is the sum of the score
    weights of its MSUs that contain v (unscaled: weights applied by the caller).
    """
    n_patterns, m = values.shape
    c = candidates.size
    msu_counts = np.zeros((c, m), dtype=np.int64)
    contrib = np.zeros((c, m), dtype=np.float64)
    if c == 0 or m == 0:
        return msu_counts, contrib, 0
    m_used = max(m, 3) if m_used is None else m_used
    weight = {k: float(math.factorial(m_used - k)) for k in range(1, m + 1)}
    radix = values.max(axis=0).astype(np.int64) + 2  # codes -1..max shifted to 0..max+1
    alive_on: dict[tuple[int, ...], np.ndarray] = {}
    root = ((), np.arange(n_patterns), np.zeros(n_patterns, dtype=np.int64), candidates.copy(), np.arange(c))
    # stack of (parent state, variable to add); children pushed so the highest variable is visited first
    stack = [(root, v) for v in range(m)]
    visited = 0
    while stack:
        (subset, rows, gid, cpos, alive), v = stack.pop()
        visited += 1
        s = subset + (v,)
        col = values[rows, v].astype(np.int64)
        gid_s, n_groups = _factorize(gid * radix[v] + (col + 1))
        size = np.bincount(gid_s, weights=count[rows], minlength=n_groups)
        observed = col[cpos] >= 0
        unique = size[gid_s[cpos]] == 1
        is_msu = observed & unique
        for u in subset:  # every subset one smaller must be non-unique for the record
            if not is_msu.any():
                break
            is_msu &= _contains(alive_on.get(tuple(x for x in s if x != u)), alive)
        hits = alive[is_msu]
        if hits.size:
            msu_counts[hits, len(s) - 1] += 1
            contrib[np.ix_(hits, np.array(s))] += weight[len(s)]
        still = observed & ~unique
        if not still.any() or len(s) == m:
            continue
        alive_s = alive[still]
        alive_on[s] = alive_s
        if v == m - 1:
            continue
        keep_group = np.zeros(n_groups, dtype=bool)
        keep_group[gid_s[cpos[still]]] = True
        keep = keep_group[gid_s]
        new_pos = np.cumsum(keep) - 1
        state = (s, rows[keep], gid_s[keep], new_pos[cpos[still]], alive_s)
        stack.extend((state, w) for w in range(v + 1, m))
    return msu_counts, contrib, visited


def _factorize(x: np.ndarray) -> tuple[np.ndarray, int]:
    ids, uniques = pd.factorize(x)
    return ids.astype(np.int64, copy=False), len(uniques)


def _contains(sorted_ids: np.ndarray | None, x: np.ndarray) -> np.ndarray:
    """Which of ``x`` are in the sorted array ``sorted_ids`` (None: none)."""
    if sorted_ids is None or sorted_ids.size == 0:
        return np.zeros(x.shape[0], dtype=bool)
    pos = np.searchsorted(sorted_ids, x)
    pos[pos == sorted_ids.size] = 0
    return sorted_ids[pos] == x


def _dis_scores(score: np.ndarray, n_unique: int, n_pairs: int, fraction: float, m_used: int
                ) -> tuple[np.ndarray, float, float]:
    """DIS-SUDA scores with sdcMicro's single-precision steps; ``(dis, Dis, Q)``."""
    f32 = np.float32
    u, p, f = f32(n_unique), f32(n_pairs), f32(fraction)
    with np.errstate(divide="ignore", invalid="ignore"):
        dis_overall = (u * f) / (u * f + p * (f32(1.0) - f))
        q = float(f32(1.0) + (f32(8.0) - f32(m_used)) / f32(20.0))
        spread = float(u / dis_overall - u)
    dis = np.zeros(score.shape[0])
    positive = score > 0
    if positive.any():
        powered = score[positive] ** q
        adjust = float(np.sum(1.0 / powered))
        with np.errstate(divide="ignore", invalid="ignore"):
            dis[positive] = 1.0 / (1.0 + spread / (powered * adjust))
    return dis, float(dis_overall), q
