"""l-diversity and t-closeness of sensitive variables within the key-variable classes.

The classes are the records with identical key patterns, a missing key value
matching only a missing value (sdcMicro's ``ldiversity``, 5.8.1 as fixed for
missing keys).  Every function returns one value per *record* (the value of
its class), computed for all classes at once from sorted (class, value) pairs.

l-diversity (Machanavajjhala et al. 2007), as sdcMicro's ``measure_risk_cpp``:

* distinct l: the number of distinct sensitive values in the class; missing
  sensitive values count as one more value when the class also has an
  observed one (and as 0 when all are missing);
* entropy l: ``exp(-sum p log p)`` over the values (missing as one value, as
  above), ``p`` = share of the class;
* recursive (c, l): with the observed counts sorted ``r1 >= r2 >= ...``, the
  largest ``l >= 2`` with ``r1 < c (r_l + r_{l+1} + ...)``, else 1 (``c``
  rounded to single precision as in sdcMicro); 0 when every sensitive value
  of the class is missing (sdcMicro leaves the previous class's value there).

sdcMicro compares missing sensitive values with its ``missing`` code (-999),
not R's ``NA``; an ``NA`` reaches its C++ code as NaN and each one counts as
a distinct value.  infoloss treats a missing sensitive value as sdcMicro
treats its missing code (one value), which is what the C++ code intends.

t-closeness (Li, Li & Venkatasubramanian 2007): the Earth Mover's Distance
between the distribution of the sensitive variable in the class and in the
whole file, over observed values: for nominal variables the variational
distance ``1/2 sum |p_i - q_i|``; for ordinal and continuous ones the ordered
distance ``1/(m-1) sum_i |sum_{j<=i} (p_j - q_j)|`` over the m distinct values.
"""

from __future__ import annotations

import numpy as np

from .freq import group_ids

__all__ = ["classes", "l_diversity", "t_closeness"]


def classes(keys: np.ndarray) -> np.ndarray:
    """Class number of each record: identical key patterns (missing equal to missing)."""
    return group_ids(keys)[0]


def _class_value_counts(cls: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct observed (class, value) pairs with their counts, sorted by class then count (descending)."""
    ok = values >= 0
    pair, _ = group_ids(np.column_stack([cls[ok], values[ok]]))
    first = np.full(pair.max() + 1 if pair.size else 0, -1, dtype=np.int64)
    first[pair[::-1]] = np.flatnonzero(ok)[::-1]
    counts = np.bincount(pair).astype(np.int64) if pair.size else np.zeros(0, dtype=np.int64)
    pc, pv = cls[first], values[first]
    order = np.lexsort((-counts, pc))
    return pc[order], pv[order], counts[order]


def l_diversity(cls: np.ndarray, values: np.ndarray, *, c: float = 2.0) -> dict[str, np.ndarray]:
    """Distinct, entropy and recursive (c, l) l-diversity of each record's class.

    Parameters
    ----------
    cls : ndarray of int
        Class number of each record (:func:`classes`).
    values : ndarray of int
        Sensitive value codes, ``-1`` for missing.
    c : float
        The constant of recursive (c, l)-diversity (sdcMicro's ``l_recurs_c``, default 2).

    Returns
    -------
    dict with ``"distinct"``, ``"entropy"``, ``"recursive"``: per-record arrays.

    Examples
    --------
    One class with values a, a, b and a missing value; one class with a, b, c.

    >>> out = l_diversity(np.array([0, 0, 0, 0, 1, 1, 1]), np.array([0, 0, 1, -1, 0, 1, 2]))
    >>> out["distinct"].tolist(), out["recursive"].tolist()
    ([3, 3, 3, 3, 3, 3, 3], [1, 1, 1, 1, 3, 3, 3])
    >>> round(float(out["entropy"][0]), 6) == round(float(np.exp(-(0.5 * np.log(0.5) + 2 * 0.25 * np.log(0.25)))), 6)
    True
    """
    cls = np.asarray(cls, dtype=np.int64)
    values = np.asarray(values, dtype=np.int64)
    n_classes = int(cls.max()) + 1
    size = np.bincount(cls, minlength=n_classes).astype(np.float64)
    n_missing = np.bincount(cls[values < 0], minlength=n_classes)
    pc, _, counts = _class_value_counts(cls, values)
    n_values = np.bincount(pc, minlength=n_classes)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = counts / size[pc]
        plogp = np.bincount(pc, weights=share * np.log(share), minlength=n_classes)
        add_missing = (n_missing > 0) & (n_values > 0)
        miss_share = np.where(add_missing, n_missing / size, 1.0)
        plogp = plogp + np.where(add_missing, miss_share * np.log(miss_share), 0.0)
    distinct = n_values + add_missing
    entropy = np.exp(-plogp)
    recursive = _recursive(pc, counts, n_values, n_classes, c)
    return {"distinct": distinct[cls], "entropy": entropy[cls], "recursive": recursive[cls]}


def _recursive(pc: np.ndarray, counts: np.ndarray, n_values: np.ndarray, n_classes: int, c: float) -> np.ndarray:
    """Recursive (c, l)-diversity per class.

    sdcMicro: ``S = c * (r2 + ... + rm)``; ``l = 1``; while ``l < m`` and
    ``S > r1``: ``S -= c * r_{l+1}``, ``l += 1``.  The tested values are
    ``c * (r_j + ... + r_m)`` for j = 2, 3, ..., decreasing in j, so ``l`` is
    1 plus the number of j >= 2 with ``c * (r_j + ... + r_m) > r1``.  ``c`` is
    rounded to single precision as in sdcMicro; the sums are exact (sdcMicro
    accumulates in single precision, which is exact for integer ``c`` and
    counts below 2^23).  ``counts`` are sorted by class, largest first.
    """
    c32 = float(np.float32(c if c > 0 else 1.0))
    out = (n_values > 0).astype(np.int64)
    if counts.size == 0:
        return out
    start = np.r_[0, np.cumsum(n_values)[:-1]]
    first = start[pc]
    rank = np.arange(counts.size) - first
    r = counts.astype(np.float64)
    csum = np.cumsum(r)
    tail = csum[first + n_values[pc] - 1] - csum + r  # r_rank + ... + r_last within the class
    passes = (rank >= 1) & (c32 * tail > r[first])
    return out + np.bincount(pc, weights=passes, minlength=n_classes).astype(np.int64)


def t_closeness(cls: np.ndarray, values: np.ndarray, *, ordered: bool) -> np.ndarray:
    """t of each record's class: the EMD between the class's and the file's distribution of observed values.

    ``values`` are codes (``-1`` missing) whose order is the value order when
    ``ordered``.  A class whose sensitive values are all missing gets 0.

    Examples
    --------
    >>> t_closeness(np.array([0, 0, 1, 1]), np.array([0, 1, 0, 0]), ordered=False).tolist()
    [0.25, 0.25, 0.25, 0.25]
    >>> t_closeness(np.array([0, 0, 1, 1]), np.array([0, 2, 0, 0]), ordered=True).tolist()
    [0.25, 0.25, 0.25, 0.25]
    """
    cls = np.asarray(cls, dtype=np.int64)
    values = np.asarray(values, dtype=np.int64)
    n_classes = int(cls.max()) + 1
    ok = values >= 0
    if not ok.any():
        return np.zeros(cls.shape[0])
    # renumber the observed values 0..m-1 in their order
    present, v = np.unique(values[ok], return_inverse=True)
    m = present.size
    q = np.bincount(v, minlength=m) / v.size
    k = cls[ok]
    size = np.bincount(k, minlength=n_classes).astype(np.float64)
    pair, _ = group_ids(np.column_stack([k, v]))
    first = np.zeros(pair.max() + 1, dtype=np.int64)
    first[pair] = np.arange(pair.size)
    pk, pv = k[first], v[first]
    p = np.bincount(pair) / size[pk]
    if not ordered or m == 1:
        inside = np.bincount(pk, weights=np.abs(p - q[pv]) - q[pv], minlength=n_classes)
        t = 0.5 * (inside + 1.0)  # sum over the class's values of |p-q| plus the file's share of the others
    else:
        t = _ordered_emd(pk, pv, p, q, n_classes) / (m - 1)
    has = size > 0
    return np.where(has, np.clip(t, 0.0, 1.0), 0.0)[cls]


def _ordered_emd(pk: np.ndarray, pv: np.ndarray, p: np.ndarray, q: np.ndarray, n_classes: int) -> np.ndarray:
    """``sum_i |P_i - Q_i|`` per class, P and Q the cumulative distributions over the m ordered values.

    Between two values present in a class, P is constant; ``Q`` is increasing,
    so the sum of ``|P - Q_i|`` over a run of positions is read from prefix
    sums of Q after locating where Q crosses P.
    """
    m = q.size
    Q = np.cumsum(q)
    prefix = np.r_[0.0, np.cumsum(Q)]  # prefix[i] = Q_0 + ... + Q_{i-1}
    order = np.lexsort((pv, pk))
    pk, pv, p = pk[order], pv[order], p[order]
    P = np.cumsum(p)
    start = np.flatnonzero(np.r_[True, pk[1:] != pk[:-1]])
    P = P - np.repeat(np.r_[0.0, P[start[1:] - 1]], np.diff(np.r_[start, pk.size]))
    # run j of a class covers positions [pv_j, next_pv) with cumulative P_j; before its first value P = 0
    nxt = np.r_[pv[1:], m]
    last = np.r_[start[1:] - 1, pk.size - 1]
    nxt[last] = m
    total = np.bincount(pk, weights=_abs_run(P, pv, nxt, Q, prefix), minlength=n_classes)
    lead = prefix[pv[start]]  # positions before the class's first value: |0 - Q_i| = Q_i
    total[pk[start]] += lead
    return total


def _abs_run(level: np.ndarray, lo: np.ndarray, hi: np.ndarray, Q: np.ndarray, prefix: np.ndarray) -> np.ndarray:
    """``sum_{i in [lo, hi)} |level - Q_i|`` for increasing Q, vectorised over runs."""
    cross = np.clip(np.searchsorted(Q, level, side="right"), lo, hi)  # Q_i <= level for i < cross
    below = (cross - lo) * level - (prefix[cross] - prefix[lo])
    above = (prefix[hi] - prefix[cross]) - (hi - cross) * level
    return below + above
