"""Sample and population frequencies of key patterns, and the risks derived from them.

Conventions are sdcMicro 5.8.1's (``freqCalc``, ``indivRisk``, ``measure_risk``),
with the published wildcard by default:

* ``fk`` of a record counts the records that agree with it on every key
  variable, a missing key value matching any value (the wildcard): record
  ``r`` counts for ``i`` when, for every key, ``r_v = i_v`` or either is
  missing.  ``Fk`` sums their sampling weights.  Records with the record's
  own pattern (missing values included) count 1; a match with a record of
  another pattern that has missing key values counts ``alpha`` (sdcMicro's
  ``alpha``, default 1, which aggregates identical patterns first).
* ``missing_keys="wildcard"`` (default) applies that definition to every
  record (the published definition).  ``missing_keys="sdcmicro"`` adds two
  quirks of ``freqCalc``, so that every record gets sdcMicro's number: a
  record whose key values are all missing gets ``fk = n`` (and ``Fk`` = the
  total weight; the wildcard gives the same with ``alpha = 1``), and with two
  or more key variables such records are *not* counted in the ``fk`` of
  records without missing values (sdcMicro's ``addAllNAtoKeys <- FALSE``;
  they are counted with one key variable, and in the ``fk`` of records with
  some missing values).
* Individual risk is the Benedetti-Franconi approximation of ``indivRisk``
  (``method = "approx"``); without weights it is ``1/fk``.
* Global risk: expected re-identifications ``ER = sum(risk)``, global risk
  ``ER/n``.  Household risk: ``1 - prod(1 - risk)`` over the members.

Every function works on integer key codes (``-1`` = missing) and never loops
over records: identical patterns are grouped once, and the wildcard is
resolved between *distinct* patterns, one missingness mask (and one pair of
masks) at a time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = [
    "Patterns",
    "patterns",
    "group_ids",
    "frequencies",
    "individual_risk",
    "household_risk",
    "household_groups",
    "MISSING_KEYS",
]

#: the conventions for records with missing key values (see the module docstring)
MISSING_KEYS = ("wildcard", "sdcmicro")

_LIMIT = np.int64(1) << np.int64(62)


def group_ids(columns: np.ndarray) -> tuple[np.ndarray, int]:
    """Group id (0..g-1, in order of first appearance) of each row of an integer matrix.

    Columns are combined in a mixed radix and re-numbered with a hash
    factorisation whenever the radix would overflow, so any number of columns
    and categories works in O(n) per column.

    >>> ids, g = group_ids(np.array([[1, 2], [1, 3], [1, 2], [-1, 2]]))
    >>> ids.tolist(), g
    ([0, 1, 0, 2], 3)
    """
    columns = np.asarray(columns)
    n = columns.shape[0]
    if columns.ndim == 1:
        columns = columns[:, None]
    ids = np.zeros(n, dtype=np.int64)
    groups = 1
    for j in range(columns.shape[1]):
        col = columns[:, j].astype(np.int64, copy=False)
        low = int(col.min()) if n else 0
        size = (int(col.max()) - low + 1) if n else 1
        if groups * size >= _LIMIT:  # pragma: no cover - needs astronomically many groups
            ids, uniques = pd.factorize(ids)
            groups = len(uniques)
        ids = ids * size + (col - low)
        groups *= size
        if groups > n:  # keep the numbers small: renumber the groups that occur
            ids, uniques = pd.factorize(ids)
            groups = len(uniques)
    ids, uniques = pd.factorize(ids)
    return ids.astype(np.int64, copy=False), len(uniques)


@dataclass
class Patterns:
    """The distinct key patterns of a file (missing compared as a value).

    ``index[i]`` is the pattern of record ``i``; ``values`` the patterns'
    key codes (one row per pattern); ``count`` and ``weight`` their number of
    records and sum of weights.
    """

    index: np.ndarray
    values: np.ndarray
    count: np.ndarray
    weight: np.ndarray

    @property
    def n_patterns(self) -> int:
        return self.values.shape[0]


def patterns(keys: np.ndarray, weights: np.ndarray | None = None) -> Patterns:
    """Group the records of a key-code matrix ``(n, m)`` into distinct patterns."""
    keys = np.asarray(keys)
    index, g = group_ids(keys)
    first = np.full(g, keys.shape[0], dtype=np.int64)
    np.minimum.at(first, index, np.arange(keys.shape[0]))
    count = np.bincount(index, minlength=g).astype(np.float64)
    weight = count if weights is None else np.bincount(index, weights=weights, minlength=g)
    return Patterns(index, keys[first], count, weight)


def frequencies(
    keys: np.ndarray, weights: np.ndarray | None = None, *, alpha: float = 1.0, missing_keys: str = "wildcard"
) -> tuple[np.ndarray, np.ndarray]:
    """``fk`` and ``Fk`` of every record, with the missing-value wildcard.

    Parameters
    ----------
    keys : ndarray of int, shape (n, m)
        Key codes, ``-1`` for missing.
    weights : ndarray, optional
        Sampling weights (``Fk`` = ``fk`` without them).
    alpha : float
        Weight of a match with a record of *another* pattern that has missing
        key values (sdcMicro's ``alpha``; 1 counts it fully, 0 ignores it).
        Records with the same pattern always count 1, missing values or not.
    missing_keys : {"wildcard", "sdcmicro"}
        ``"wildcard"``: the symmetric definition below for every record.
        ``"sdcmicro"``: sdcMicro's ``freqCalc``, which adds two rules for
        records whose key values are all missing (module docstring).

    Returns
    -------
    fk, Fk : ndarray of float
        For record i, ``fk_i = sum_r a(i, r)`` over the records ``r`` such
        that, for every key ``v``, ``r_v = i_v`` or either is missing, where
        ``a(i, r) = 1`` when ``r`` has the same key pattern as ``i``
        (missing values included) or no missing key value, and ``alpha``
        otherwise; ``Fk_i = sum_r a(i, r) w_r``.  With ``"sdcmicro"``, a
        record with every key missing gets ``fk = n`` and ``Fk`` = the total
        weight, and with two or more keys such records are left out of the
        sums of records without missing values.

    References
    ----------
    sdcMicro 5.8.1, ``freqCalc`` (Templ, Kowarik & Meindl 2015, J. Stat. Softw. 67(4)).

    Examples
    --------
    The example of sdcMicro's tests: record 3 (2, 3, missing) matches records
    1 and 8 (2, 3, 1) and record 4 (2, 3, 2) as well as itself.

    >>> keys = np.array([[2, 3, 1], [3, 3, 3], [2, 3, -1], [2, 3, 2], [3, 3, 1], [3, 3, 1], [1, 4, -1], [2, 3, 1]])
    >>> fk, Fk = frequencies(keys, np.array([18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51.0]))
    >>> fk.tolist()
    [3.0, 1.0, 4.0, 2.0, 2.0, 2.0, 1.0, 3.0]
    >>> Fk.tolist()
    [108.0, 45.5, 125.0, 56.0, 100.0, 100.0, 123.5, 108.0]

    A record with every key missing matches every record; sdcMicro does not
    count it for the records without missing values:

    >>> keys = np.array([[1, 1], [1, 1], [2, 5], [-1, -1]])
    >>> frequencies(keys)[0].tolist(), frequencies(keys, missing_keys="sdcmicro")[0].tolist()
    ([3.0, 3.0, 2.0, 4.0], [2.0, 2.0, 1.0, 4.0])
    """
    if missing_keys not in MISSING_KEYS:
        raise ValueError(f"missing_keys must be one of {', '.join(MISSING_KEYS)}, got {missing_keys!r}")
    keys = np.asarray(keys)
    m = keys.shape[1]
    pat = patterns(keys, weights)
    f, F = pat.count.copy(), pat.weight.copy()
    missing = pat.values < 0
    n_missing = missing.sum(axis=1)
    if n_missing.any():
        complete, all_missing = n_missing == 0, n_missing == m
        partial = ~complete & ~all_missing
        c_all, w_all = pat.count[all_missing].sum(), pat.weight[all_missing].sum()
        if m == 1 or missing_keys == "wildcard":  # the records with every key missing match the complete ones
            f[complete] += alpha * c_all
            F[complete] += alpha * w_all
        if m > 1:
            _wildcard_matches(pat, missing, complete, partial, all_missing, f, F, alpha)
        if missing_keys == "sdcmicro":
            f[all_missing] = pat.count.sum()
            F[all_missing] = pat.weight.sum()
        else:  # one all-missing pattern: itself, the complete records fully, the partial ones with alpha
            f[all_missing] = c_all + pat.count[complete].sum() + alpha * pat.count[partial].sum()
            F[all_missing] = w_all + pat.weight[complete].sum() + alpha * pat.weight[partial].sum()
    return f[pat.index], F[pat.index]


def _wildcard_matches(
    pat: Patterns,
    missing: np.ndarray,
    complete: np.ndarray,
    partial: np.ndarray,
    all_missing: np.ndarray,
    f: np.ndarray,
    F: np.ndarray,
    alpha: float,
) -> None:
    """Add the matches between distinct patterns that involve a wildcard (in place).

    Partial patterns (some keys missing) are grouped by missingness mask.  For
    each mask, the complete patterns and the partial ones are compared on the
    mask's observed keys; for each pair of different masks, the two groups
    are compared on the keys observed in both.  Two patterns with the same
    mask match only if identical, so they never add to each other.
    """
    m = missing.shape[1]
    bits = missing.astype(np.int64) @ (np.int64(1) << np.arange(m, dtype=np.int64))
    part = np.flatnonzero(partial)
    comp = np.flatnonzero(complete)
    groups = {int(mask): part[bits[part] == mask] for mask in np.unique(bits[part])}
    observed = {mask: ~missing[idx[0]] for mask, idx in groups.items()}
    c_all, w_all = pat.count[all_missing].sum(), pat.weight[all_missing].sum()
    shifted = pat.values.astype(np.int64) + 1  # codes from 0, missing 0
    project = _projector(shifted)
    comp_values = shifted[comp]
    comp_count, comp_weight = pat.count[comp], pat.weight[comp]
    to_comp_f, to_comp_F = np.zeros(comp.size), np.zeros(comp.size)
    for mask, idx in groups.items():
        obs = observed[mask]
        part_values = shifted[idx]
        # partial <-> complete: a complete pattern matches when it equals the partial one where it is observed
        if comp.size:
            a, b = project(part_values, comp_values, obs)
            (fa, Fa), (fb, Fb) = _pair_sums(a, b, (comp_count, comp_weight), (pat.count[idx], pat.weight[idx]))
            f[idx] += fa
            F[idx] += Fa
            to_comp_f += fb
            to_comp_F += Fb
        # partial <-> partial with another mask: compared on the keys observed in both
        for other, jdx in groups.items():
            if other == mask:
                continue
            common = obs & observed[other]
            if common.any():
                a, b = project(part_values, shifted[jdx], common)
                (fa, Fa), _ = _pair_sums(a, b, (pat.count[jdx], pat.weight[jdx]), ())
                f[idx] += alpha * fa
                F[idx] += alpha * Fa
            else:
                f[idx] += alpha * pat.count[jdx].sum()
                F[idx] += alpha * pat.weight[jdx].sum()
        # the records with every key missing match every record with missing values
        f[idx] += alpha * c_all
        F[idx] += alpha * w_all
    f[comp] += alpha * to_comp_f
    F[comp] += alpha * to_comp_F


def _projector(values: np.ndarray):
    """A function ``(a, b, columns) -> (keys of a, keys of b)``: equal rows on ``columns`` get equal keys.

    ``values`` are non-negative codes.  When they fit a mixed radix in 63
    bits, a key is one integer (a matrix-vector product); otherwise rows are
    numbered jointly.
    """
    sizes = [int(s) for s in values.max(axis=0) + 1]
    if int(np.prod([float(s) for s in sizes])) < 2**62:
        base = np.cumprod([1] + sizes[:-1]).astype(np.int64)

        def by_radix(a: np.ndarray, b: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            weights = np.where(cols, base, 0)
            return a @ weights, b @ weights

        return by_radix
    return lambda a, b, cols: _joint_ids(a[:, cols], b[:, cols])


def _pair_sums(a: np.ndarray, b: np.ndarray, of_b: tuple, of_a: tuple) -> tuple[list, list]:
    """Sums across two sets of keys: for each row of ``a``, the sums of each array in ``of_b`` over
    the rows of ``b`` with the same key, and for each row of ``b`` the same from ``of_a``.

    ``a`` should be the smaller set: it is factorised, ``b`` is only looked up (one hash pass).
    """
    codes, uniques = pd.factorize(a)
    pos = pd.Index(uniques).get_indexer(b)
    hit = pos >= 0
    k = len(uniques)
    to_a = [np.bincount(pos[hit], weights=x[hit], minlength=k)[codes] for x in of_b]
    to_b = [np.where(hit, np.bincount(codes, weights=x, minlength=k)[pos], 0.0) for x in of_a]
    return to_a, to_b


def _joint_ids(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Group ids of the rows of ``a`` and of ``b`` on one numbering (equal rows, equal id)."""
    ids, _ = group_ids(np.concatenate([a, b]))
    return ids[: a.shape[0]], ids[a.shape[0]:]


def individual_risk(fk: np.ndarray, Fk: np.ndarray, weighted: bool) -> np.ndarray:
    """Per-record re-identification risk, exactly as sdcMicro's ``indivRisk`` (approx).

    Without weights ``r = 1/fk``.  With weights, ``p = fk/Fk`` and

    * ``r = p/(1-p) * log(1/p)`` if ``fk = 1``;
    * ``r = p/(1-p) - (p/(1-p))^2 * log(1/p)`` if ``fk = 2``;
    * ``r = p/(fk - (1-p))`` if ``fk > 2``;
    * ``r = 1/fk`` whenever ``fk = Fk`` (weights of 1),

    and 0 for any other ``fk`` (non-integer ``fk`` below 2, possible with
    ``alpha < 1``), as sdcMicro does.

    References
    ----------
    Franconi, L. and Polettini, S. (2004). Individual risk estimation in
    mu-Argus: a review. Privacy in Statistical Databases, LNCS 3050, 262-272.

    Examples
    --------
    >>> individual_risk(np.array([1.0, 2.0, 4.0]), np.array([10.0, 2.0, 40.0]), True).round(6).tolist()
    [0.255843, 0.5, 0.032258]
    """
    fk = np.asarray(fk, dtype=np.float64)
    if not weighted:
        return 1.0 / fk
    Fk = np.asarray(Fk, dtype=np.float64)
    r = np.zeros_like(fk)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = fk / Fk
        odds = p / (1.0 - p)
        log_inv = np.log(1.0 / p)
        r = np.where(fk > 2, p / (fk - (1.0 - p)), r)
        r = np.where(fk == 2, odds - odds**2 * log_inv, r)
        r = np.where(fk == 1, odds * log_inv, r)
    same = fk == Fk
    r[same] = 1.0 / fk[same]
    return r


def household_groups(households: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(order, starts, group)``: records sorted by household (stable), where each household starts, each record's household number."""
    order = np.argsort(households, kind="stable")
    sorted_ids = households[order]
    starts = np.flatnonzero(np.r_[True, sorted_ids[1:] != sorted_ids[:-1]])
    group = np.empty(households.shape[0], dtype=np.int64)
    group[order] = np.cumsum(np.r_[True, sorted_ids[1:] != sorted_ids[:-1]]) - 1
    return order, starts, group


def household_risk(risk: np.ndarray, households: np.ndarray) -> np.ndarray:
    """Per-record household risk ``1 - prod(1 - r_j)`` over the record's household (sdcMicro's ``hier_risk``).

    The product runs over the members in file order, as sdcMicro's does.

    >>> household_risk(np.array([0.5, 0.1, 0.5, 1.0]), np.array([7, 3, 7, 3])).tolist()
    [0.75, 1.0, 0.75, 1.0]
    """
    order, starts, group = household_groups(np.asarray(households))
    prod = np.multiply.reduceat(1.0 - np.asarray(risk, dtype=np.float64)[order], starts)
    return (1.0 - prod)[group]
