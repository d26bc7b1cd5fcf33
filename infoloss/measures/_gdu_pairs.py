"""The GDU model's bivariate test kernels (used by :mod:`infoloss.measures.gdu`).

One file's statistics for every planned pair of variables: chi-squared /
Cramér's V, Kruskal–Wallis / epsilon², one-way ANOVA / eta², Spearman ρ and
Pearson r, each with the per-record measures of the strength of the
difference that the direction step compares.  :class:`_SideStats` holds one
file's shared rank and value matrices (the correlations of complete columns
come from one matrix product, group sums from ``bincount``);
:func:`_run_files` tests both files' pairs on two threads;
:func:`_weighted_pair_stats` gives the survey-weighted forms
(:mod:`infoloss.measures._gdu_weighted`).  The statistics equal
``scipy.stats``' (checked in the tests).
"""

from __future__ import annotations

import copy
import math
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from scipy import special

from .._concurrent import map_in_order, thread_limits
from ..pair import ORIGINAL, PROTECTED, EncodedPair
from ._gdu_sides import _Side, _Var


class _Degenerate(Exception):
    """The test cannot be run on this file's data for the pair."""


_GROUP_CODES_KEPT = 4  # intp copies of nominal codes kept per file (8 bytes per record each)
_PATTERN_MEMO = threading.local()  # per pool thread: the last missing pattern's weights (_SideStats.pattern_memo)
_GATHER_BLOCK = 1 << 14


class _SideStats:
    """One file's machinery for the pair tests.

    The centred ranks (and, for Pearson / ANOVA, the centred values) of the
    variables that have no missing value in this file are columns of one
    matrix, so that every Spearman / Pearson correlation between them comes
    from one matrix product; group sums come from ``bincount``.  Variables
    with missing values are re-ranked on each pair's complete cases from their
    level codes (one ``bincount``, no sort).
    """

    def __init__(self, sides: dict[str, _Side], rank_names: list[str], value_names: list[str], workers: int = 1):
        self.sides = sides
        self.rank_index = {name: j for j, name in enumerate(rank_names)}
        self.value_index = {name: j for j, name in enumerate(value_names)}
        n = next(iter(sides.values())).codes.shape[0] if sides else 0
        self.rank_matrix = np.empty((n, len(rank_names)), order="F")

        def rank_column(j: int) -> None:  # one thread writes each column (contiguous in F order)
            s = sides[rank_names[j]]
            _gather(_avg_rank_table(s.counts, (s.n_valid + 1) / 2.0), s.codes, out=self.rank_matrix[:, j])

        map_in_order(rank_column, list(range(len(rank_names))), n * len(rank_names), max_workers=workers)
        self.value_matrix = np.empty((n, len(value_names)), order="F")
        for j, name in enumerate(value_names):
            x = sides[name].values
            np.subtract(x, x.mean(), out=self.value_matrix[:, j])
        self.rank_gram = self.rank_matrix.T @ self.rank_matrix if rank_names else None
        self.value_gram = self.value_matrix.T @ self.value_matrix if value_names else None
        self._ranks: dict[str, np.ndarray] = {}
        self._missing: dict[str, np.ndarray] = {}
        self._group_codes: dict[str, np.ndarray] = {}
        self._filled: dict[str, np.ndarray] = {}
        self._tied: dict[str, np.ndarray] = {}
        self._tie_sums: dict[str, float] = {}

    def pattern_memo(self, pattern: tuple[str, ...]) -> dict:
        """This thread's store for this file's pairs whose complete cases leave out the records where ``pattern``
        is missing.

        Weighted ANOVA and Pearson tests of such pairs share their rescaled
        weights (zero outside the complete cases) and the centred values of
        the incomplete variables; the pairs are tested file by file, one
        pattern after another (:func:`_job_order`), so each thread keeps only
        its last pattern (at most about 40 MB on 1,000,000 records).
        """
        held = getattr(_PATTERN_MEMO, "held", None)
        if held is None or held[0]() is not self or held[1] != pattern:
            held = _PATTERN_MEMO.held = (weakref.ref(self), pattern, {})
        return held[2]

    def n_complete(self, a: str, b: str) -> int:
        """Records where both variables are present."""
        sa, sb = self.sides[a], self.sides[b]
        if sa.complete and sb.complete:
            return int(sa.codes.shape[0])
        return sa.n_valid - int(self.dropped(a, b).size)

    def filled_values(self, name: str) -> np.ndarray:
        """The continuous variable's values with 0 where missing (the values themselves when none is)."""
        s = self.sides[name]
        if s.complete:
            return s.values
        if name not in self._filled:
            self._filled[name] = np.where(s.codes >= 0, s.values, 0.0)
        return self._filled[name]

    def missing_rows(self, name: str) -> np.ndarray:
        """Indices of the records where the variable is missing (a few, computed once)."""
        if name not in self._missing:
            self._missing[name] = np.flatnonzero(self.sides[name].codes < 0)
        return self._missing[name]

    def dropped(self, name: str, other: str) -> np.ndarray:
        """Level codes of ``name`` on the records where it is present but ``other`` is missing."""
        return self.dropped_rows(name, other)[1]

    def dropped_rows(self, name: str, other: str) -> tuple[np.ndarray, np.ndarray]:
        """Those records' indices and level codes: (rows, codes)."""
        rows = self.missing_rows(other)
        codes = self.sides[name].codes[rows]
        present = codes >= 0
        return rows[present], codes[present]

    def present_ranks(self, name: str) -> np.ndarray:
        """Average ranks among the variable's present values, centred at (N+1)/2, on every record; 0 where missing."""
        if name in self.rank_index:
            return self.rank_matrix[:, self.rank_index[name]]
        if name not in self._ranks:
            s = self.sides[name]
            self._ranks[name] = _gather(_avg_rank_table(s.counts, (s.n_valid + 1) / 2.0, missing=True), s.codes)
        return self._ranks[name]

    def ranks_without(self, name: str, other: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Centred average ranks of ``name`` re-ranked without the records where ``other`` is missing.

        The ranks are those among the variable's present values less the
        dropped ones (a pair's complete cases, as ``nan_policy='omit'``
        ranks them), centred at (n+1)/2, and 0 where the variable is missing:
        a product with another such vector is then non-zero only on the
        records where both are present, without selecting them (no
        ``x[mask]`` copies).  The dropped records keep the rank of their
        level; callers leave them out through the other vector's zeros.
        Only the levels' counts change, by the few dropped records, so the
        ranks are the present ranks plus a step function of the level
        (:func:`_rank_shift_table`), read with one table lookup per record.

        Returns the ranks, the level counts among the kept records and the
        dropped records' own ranks (None when nothing is dropped).
        """
        s = self.sides[name]
        rows, dropped = self.dropped_rows(name, other)
        if dropped.size == 0:
            return self.present_ranks(name), s.counts, None
        levels, n_at = np.unique(dropped, return_counts=True)
        counts = s.counts.copy()
        counts[levels] -= n_at.astype(counts.dtype, copy=False)
        ranks = _gather(_rank_shift_table(levels, n_at, s.n_levels), s.codes)
        ranks = np.add(ranks, self.present_ranks(name), out=ranks if ranks.dtype == np.float64 else None)
        return ranks, counts, ranks[rows]

    def square_sum(self, ranks: np.ndarray, dropped_ranks: np.ndarray | None) -> float:
        """Σ ranks² over the kept records (the dropped records' own ranks taken out)."""
        total = float(np.dot(ranks, ranks))
        if dropped_ranks is not None:
            total -= float(np.dot(dropped_ranks, dropped_ranks))
        return total

    def group_codes(self, name: str) -> np.ndarray:
        """The nominal variable's codes as ``bincount`` takes them (intp), missing as one extra level at the end.

        ``bincount`` would otherwise copy int32 codes to intp on every call;
        the pairs are tested grouped by their nominal variable
        (:func:`_run_files`), so the last few variables' copies are kept.
        """
        codes = self._group_codes.pop(name, None)
        if codes is None:
            s = self.sides[name]
            codes = s.codes.astype(np.intp)
            if not s.complete:
                codes[codes < 0] = s.n_levels
            while len(self._group_codes) >= _GROUP_CODES_KEPT:
                self._group_codes.pop(next(iter(self._group_codes)), None)
        self._group_codes[name] = codes  # the most recently used last
        return codes

    def group_sums(self, name: str, weights: np.ndarray) -> np.ndarray:
        """Sums of ``weights`` per level of the nominal ``name``; records where it is missing are left out."""
        s = self.sides[name]
        return np.bincount(self.group_codes(name), weights=weights, minlength=s.n_levels + 1)[: s.n_levels]

    def group_sizes(self, name: str, other: str) -> np.ndarray:
        """Records per level of the nominal ``name`` where ``other`` is present too."""
        s = self.sides[name]
        return s.counts - np.bincount(self.dropped(name, other), minlength=s.n_levels)

    def tie_sum(self, name: str, counts: np.ndarray) -> float:
        """Σ(t³ − t) over the tied values; only levels tied in the whole file can be tied in a subset."""
        s = self.sides[name]
        full = counts is s.counts
        if full and name in self._tie_sums:
            return self._tie_sums[name]
        if name not in self._tied:
            self._tied[name] = np.flatnonzero(s.counts > 1)
        t = counts[self._tied[name]].astype(np.float64)
        value = float(np.sum(t**3 - t))
        if full:
            self._tie_sums[name] = value
        return value

    def values_on(self, name: str, mask: np.ndarray | None) -> tuple[np.ndarray, float]:
        """Values on the records ``mask`` centred at their mean, and their sum of squares."""
        if mask is None and name in self.value_index:
            j = self.value_index[name]
            return self.value_matrix[:, j], float(self.value_gram[j, j])
        x = _take(self.sides[name].values, mask)
        xc = x - x.mean()
        return xc, float(np.dot(xc, xc))

    def correlation(self, a: str, b: str, mask: Any, n: int, ranked: bool) -> float | None:
        """Spearman ρ (``ranked``) or Pearson r on the complete cases; ``mask`` gives them (None: every record)."""
        index, gram = (self.rank_index, self.rank_gram) if ranked else (self.value_index, self.value_gram)
        if mask is None and a in index and b in index:
            i, j = index[a], index[b]
            sxy, sxx, syy = float(gram[i, j]), float(gram[i, i]), float(gram[j, j])
        else:
            if ranked:
                x, _, dropped_x = self.ranks_without(a, b)
                y, _, dropped_y = self.ranks_without(b, a)
                sxx, syy = self.square_sum(x, dropped_x), self.square_sum(y, dropped_y)
            else:
                mask = None if mask is None else mask()
                x, sxx = self.values_on(a, mask)
                y, syy = self.values_on(b, mask)
            sxy = float(np.dot(x, y))
        if not (sxx > 0 and syy > 0):
            return None
        return float(np.clip(sxy / math.sqrt(sxx * syy), -1.0, 1.0))


def _gather(table: np.ndarray, codes: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``np.take(table, codes)`` with ``-1`` codes reading ``table[-1]``, in blocks of 16,384 codes.

    ``np.take`` copies int32 codes to a full-size intp array first (and, with
    ``out`` and the default ``mode='raise'``, buffers the result again); in
    blocks that copy stays in the cache, and ``mode='wrap'`` needs no buffer:
    about twice as fast on 1,000,000 records.  Level codes are in range, so
    wrapping only turns -1 (missing) into the last entry, as ``'raise'`` does.
    """
    if out is None:
        out = np.empty(codes.shape[0], dtype=table.dtype)
    for start in range(0, codes.shape[0], _GATHER_BLOCK):
        stop = start + _GATHER_BLOCK
        np.take(table, codes[start:stop], out=out[start:stop], mode="wrap")
    return out


def _avg_rank_table(counts: np.ndarray, shift: float = 0.0, missing: bool = False) -> np.ndarray:
    """Average rank of each level (ties share the mean of their ranks), minus ``shift``.

    With ``missing``, one more entry, 0, at the end: ``np.take(table, codes)``
    gives 0 for the missing code -1.
    """
    full = np.empty(counts.shape[0] + int(missing))
    table = full[: counts.shape[0]]
    np.multiply(counts, -0.5, out=table)
    table += np.cumsum(counts, dtype=counts.dtype)  # counts' own type holds any total of the file's records
    table += 0.5 - shift  # cum − (count − 1)/2 − shift, in place
    if missing:
        full[-1] = 0.0
    return full


def _rank_shift_table(levels: np.ndarray, n_at: np.ndarray, n_levels: int) -> np.ndarray:
    r"""What dropping records changes in the centred average rank of each level, and 0 for missing (last entry).

    With ``k`` records dropped, ``n_at`` of them at each of the sorted
    ``levels``, a kept record at level ``l`` loses the dropped records below
    it and half of those at ``l`` from its average rank, and the centre
    (n+1)/2 moves down by k/2:

    .. math::

        r'_l - r_l = \frac{k}{2} - \#\{\text{dropped} < l\} - \frac{\#\{\text{dropped} = l\}}{2}

    a step function of the level, written with one ``np.repeat``.  Every
    entry is a multiple of 1/2 of magnitude at most k/2, so it is exact, in
    float32 (a table half the size, faster to read) while k < 2**23, and the
    re-ranked values equal those of a new rank table to the bit (``_avg_rank_table``).

    >>> _rank_shift_table(np.array([1, 3]), np.array([1, 2]), 5).tolist()
    [1.5, 1.0, 0.5, -0.5, -1.5, 0.0]
    """
    k = float(n_at.sum())
    below = np.cumsum(n_at) - n_at
    values = np.empty(2 * levels.shape[0] + 1)
    values[0:-1:2] = k / 2 - below  # the levels from the previous dropped level (excluded) to this one (excluded)
    values[1::2] = k / 2 - below - n_at / 2  # the dropped level itself
    values[-1] = -k / 2
    lengths = np.empty(values.shape[0], dtype=np.intp)
    lengths[0] = levels[0]
    lengths[2:-1:2] = np.diff(levels) - 1
    lengths[1::2] = 1
    lengths[-1] = n_levels - levels[-1] - 1
    table = np.empty(n_levels + 1, dtype=np.float32 if k < 2**23 else np.float64)
    table[:-1] = np.repeat(values, lengths)
    table[-1] = 0.0
    return table


def _mask(a: _Side, b: _Side) -> tuple[np.ndarray | None, int]:
    if a.complete and b.complete:
        return None, a.codes.shape[0]
    mask = (a.codes >= 0) & (b.codes >= 0)
    return mask, int(np.count_nonzero(mask))


def _take(x: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    return x if mask is None else x[mask]


def _crosstab(a: np.ndarray, ka: int, b: np.ndarray, kb: int, mask: np.ndarray | None) -> np.ndarray:
    a, b = _take(a, mask), _take(b, mask)
    dtype = np.int32 if ka * kb < 2**31 else np.int64
    flat = a.astype(dtype) * kb + b
    return np.bincount(flat, minlength=ka * kb).reshape(ka, kb)


def _residuals(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-record standardised residuals (O − E)/√(E·N) of every cell, and where E > 0."""
    n = table.sum()
    if n == 0:
        return np.zeros(table.size), np.zeros(table.size, dtype=bool)
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / n
    support = expected > 0
    sr = np.zeros(table.shape)
    sr[support] = (table[support] - expected[support]) / np.sqrt(expected[support] * n)
    return sr.ravel(), support.ravel()


def _chi2_pair(table: np.ndarray) -> dict[str, Any]:
    """The χ² test of a table of counts (the weighted form's computation; ``n`` a whole number)."""
    from ._gdu_weighted import chi2_pair

    try:
        res = chi2_pair(table)
    except ValueError as exc:
        raise _Degenerate(str(exc)) from None
    res["n"] = int(round(res["n"]))
    return res


def _group_msd(size: np.ndarray, sums: np.ndarray, n: int, power: int) -> tuple[np.ndarray, np.ndarray]:
    """Signed per-record sums of squares between groups, sign(d)·n_g·d²/N^power, d = group mean − grand mean."""
    support = size > 0
    grand = sums.sum() / n
    d = np.zeros(size.shape[0])
    d[support] = sums[support] / size[support] - grand
    return np.sign(d) * size * d * d / float(n) ** power, support


def _kruskal_pair(size: np.ndarray, sums: np.ndarray, tie_sum: float, n: int) -> dict[str, Any]:
    """Kruskal–Wallis H (scipy.stats.kruskal's formula) from group sizes and sums of centred ranks."""
    present = size > 0
    n_groups = int(np.count_nonzero(present))
    if n_groups < 2:
        raise _Degenerate("the nominal variable has a single category among the complete cases")
    nf = float(n)
    ties = 1.0 - tie_sum / (nf**3 - nf)
    if ties <= 0:
        raise _Degenerate("the ranked variable is constant among the complete cases")
    mean_dev = sums[present] / size[present]  # group mean rank − (N+1)/2
    h = 12.0 / (nf * (nf + 1.0)) * float(np.sum(size[present] * mean_dev**2)) / ties
    p = float(special.chdtrc(n_groups - 1, h))  # scipy.stats.chi2.sf(h, dof)'s computation
    return {"statistic": h, "p": p, "coef": h / (nf - 1.0), "n": n, "dof": n_groups - 1}


def _anova_pair(size: np.ndarray, sums: np.ndarray, sumsq: float, n: int) -> dict[str, Any]:
    """One-way ANOVA F (scipy.stats.f_oneway's statistic) and eta² = SSB / TSS from centred values."""
    present = size > 0
    n_groups = int(np.count_nonzero(present))
    if n_groups < 2:
        raise _Degenerate("the nominal variable has a single category among the complete cases")
    if n - n_groups < 1:
        raise _Degenerate("too few complete cases for the ANOVA (no within-group degrees of freedom)")
    grand = sums.sum() / n
    tss = sumsq - n * grand * grand
    if not tss > 0:
        raise _Degenerate("the continuous variable is constant among the complete cases")
    ssb = float(np.sum(sums[present] ** 2 / size[present])) - n * grand * grand
    ssb = min(max(ssb, 0.0), tss)
    ssw = tss - ssb
    dfb, dfw = n_groups - 1, n - n_groups
    if ssw <= 0:
        f, p = math.inf, 0.0
    else:
        f = (ssb / dfb) / (ssw / dfw)
        p = float(special.fdtrc(dfb, dfw, f))  # scipy.stats.f.sf(f, dfb, dfw)'s computation
    return {"statistic": f, "p": p, "coef": ssb / tss, "n": n, "dof": [dfb, dfw]}


def _spearman_p(r: float, n: int) -> float:
    dof = n - 2
    t = r * math.sqrt(max(dof / ((r + 1.0) * (1.0 - r)), 0.0)) if abs(r) < 1 else math.copysign(math.inf, r)
    return float(min(1.0, 2.0 * special.stdtr(dof, -abs(t))))  # 2 scipy.stats.t.sf(|t|, dof), as spearmanr


def _pearson_p(r: float, n: int) -> float:
    ab = n / 2.0 - 1.0
    # 2 scipy.stats.beta.sf(|r|, ab, ab, loc=-1, scale=2), as pearsonr: the standardised value (|r| + 1) / 2
    return float(min(1.0, 2.0 * special.betaincc(ab, ab, (abs(r) + 1.0) / 2.0)))


def _run_file(
    pair: EncodedPair, variables: dict[str, _Var], plan: dict[str, dict[str, Any]], which: str, use_w: bool = False
) -> dict[str, Any]:
    """Test statistics of every planned pair in one file (weighted forms where they exist, with ``use_w``)."""
    one = _file_tester(pair, variables, plan, which, use_w)
    return {key: one(item) for key, item in plan.items() if not item.get("skip")}


#: the pair tests are handed to the two threads of :func:`_run_files` in chunks of at most _CHUNK_JOBS tests
#: (at least _MIN_CHUNKS chunks, so that the two threads end together)
_CHUNK_JOBS = 16
_MIN_CHUNKS = 64


def _run_files(
    pair: EncodedPair, variables: dict[str, _Var], plan: dict[str, dict[str, Any]], use_w: bool
) -> tuple[dict[str, Any], dict[str, Any]]:
    """:func:`_run_file` of both files, the pairs of both shared out between two threads.

    numpy releases the GIL in the heavy steps (gathers, bincounts, products);
    the protected file usually has more incomplete pairs than the original,
    so one thread per file would leave a core idle.  BLAS runs on one thread
    inside the pool (the rank and value Gram matrices), so that the two
    threads do not each start a full set of BLAS threads.  A pair of
    variables the protection left alone is tested once (:func:`_unchanged_pairs`).
    """
    live = [(key, item) for key, item in plan.items() if not item.get("skip")]
    # the scenarios of one ``compare`` share the original: its pair tests run once (see _shared_original_key)
    store = pair.original_cache
    shared = ("original-only", _shared_original_key(pair, variables, live, use_w)) if store is not None else None
    known = store.get(shared) if shared is not None and shared[1] is not None else None
    files = (PROTECTED,) if known is not None else (ORIGINAL, PROTECTED)
    same = _unchanged_pairs(pair, variables, live, use_w)
    with thread_limits(1), ThreadPoolExecutor(max_workers=2) as pool:
        # one file alone (the original's tests known): its rank columns on both threads
        workers = 2 if len(files) == 1 else 1
        testers = dict(zip(files, pool.map(lambda which: _file_tester(pair, variables, plan, which, use_w, workers),
                                           files)))
        todo = [(which, key, item) for key, item in live for which in files
                if not (which == PROTECTED and key in same)]
        todo.sort(key=lambda job: _job_order(job[0], job[2], variables, use_w))
        # a thread pool takes no chunksize: one future per test cost more than the test for many small pairs
        # (90,000 futures, 2.7 s, for 300 variables); runs of consecutive jobs keep the order's sharing
        size = max(1, min(_CHUNK_JOBS, len(todo) // _MIN_CHUNKS))
        chunks = [todo[i:i + size] for i in range(0, len(todo), size)]
        done = pool.map(lambda chunk: [testers[job[0]](job[2]) for job in chunk], chunks)
        found = {(which, key): res for chunk, results in zip(chunks, done) for (which, key, _), res in zip(chunk, results)}
    if known is not None:
        original = copy.deepcopy(known)
    else:
        original = {key: found[ORIGINAL, key] for key, _ in live}
        if shared is not None and shared[1] is not None:
            store[shared] = copy.deepcopy(original)
    protected = {key: copy.deepcopy(original[key]) if key in same else found[PROTECTED, key] for key, _ in live}
    return original, protected


def _unchanged_pairs(
    pair: EncodedPair, variables: dict[str, _Var], live: list[tuple[str, dict[str, Any]]], use_w: bool
) -> set[str]:
    """The planned pairs whose test in the protected file is the original's: the same test of two variables
    the protection left alone (one array for both files, ``EncodedPair.unchanged``, so one side), neither
    recoded nor generalised, with the same weights.  Their protected results are copies of the original's
    instead of a second run."""
    if use_w:
        w_orig, w_prot = pair.weights(ORIGINAL), pair.weights(PROTECTED)
        if not (w_orig is w_prot or (w_orig.shape == w_prot.shape and np.array_equal(w_orig, w_prot))):
            return set()

    def alone(name: str) -> bool:
        var = variables[name]
        return (pair.unchanged(name) and var.prot is var.orig and var.recoded is None
                and var.direction_codes is None and var.recode_kind is None)

    return {key for key, item in live
            if item["test_orig"] == item["test_prot"] and alone(item["a"]) and alone(item["b"])}


def _shared_original_key(
    pair: EncodedPair, variables: dict[str, _Var], live: list[tuple[str, dict[str, Any]]], use_w: bool
) -> tuple | None:
    """What the original file's pair statistics depend on besides its records; None when the protected file counts.

    The same planned pairs and original tests (which also fix the shared
    rank matrix's columns), the same weighting, and each variable coded the
    same way: continuous values unscaled, categories in the same order.  A
    recode or hierarchy (the original's records in the protected classes)
    or values scaled near the float limits with the protected file's make
    the original's statistics depend on the protected file: not shared.
    """
    names = dict.fromkeys(name for _, item in live for name in (item["a"], item["b"]))
    coding = []
    for name in names:
        var = variables[name]
        if var.recoded is not None or var.direction_codes is not None or var.recode_kind is not None:
            return None
        if var.orig.kind == "continuous":
            if var.orig.values is not pair.continuous[name].orig:  # scaled with the protected file's values
                return None
            coding.append((name, "continuous"))
        else:
            coding.append((name, var.orig.kind, tuple(pair.categorical[name].categories)))
    tests = tuple((key, item["a"], item["b"], item["test_orig"]) for key, item in live)
    return ("gdu-original-pair-tests", bool(use_w), tests, tuple(coding))


def _job_order(which: str, item: dict[str, Any], variables: dict[str, _Var], use_w: bool) -> tuple[str, str]:
    """Where a pair is tested in the run: weighted ANOVA / Pearson pairs with missing values grouped by which
    variables are missing (they share weights, :meth:`_SideStats.pattern_memo`), the others by nominal variable."""
    test = item["test_orig" if which == ORIGINAL else "test_prot"]
    if use_w and test in ("anova", "pearson"):
        sides = {n: (variables[n].orig if which == ORIGINAL else variables[n].prot) for n in (item["a"], item["b"])}
        pattern = _missing_pattern(sides, item["a"], item["b"])
        if pattern:
            return "\x00" + "\x00".join((which, *pattern)), ""
    return "", _nominal_member(item, variables)


def _missing_pattern(sides: dict[str, _Side], a: str, b: str) -> tuple[str, ...]:
    """The pair's variables that have missing values in the file of ``sides``, sorted."""
    return tuple(sorted(n for n in (a, b) if not sides[n].complete))


def _nominal_member(item: dict[str, Any], variables: dict[str, _Var]) -> str:
    """The pair's nominal variable ('' when it has none; the first of two), to test such pairs one after another."""
    for name in (item["a"], item["b"]):
        if variables[name].orig.kind == "nominal":
            return name
    return ""


def _file_tester(
    pair: EncodedPair, variables: dict[str, _Var], plan: dict[str, dict[str, Any]], which: str, use_w: bool,
    workers: int = 1,
) -> Any:
    """The function that tests one planned pair in one file (its shared rank and value matrices built here,
    the rank columns on ``workers`` threads)."""
    w = pair.weights(which) if use_w else None
    sides = {n: (v.orig if which == ORIGINAL else v.prot) for n, v in variables.items() if not v.removed}
    ranked: set[str] = set()
    valued: set[str] = set()
    for item in plan.values():
        if item.get("skip"):
            continue
        test = item["test_orig" if which == ORIGINAL else "test_prot"]
        pair_names = (item["a"], item["b"])
        if test in ("spearman", "kruskal"):
            ranked.update(n for n in pair_names if sides[n].kind != "nominal")
        elif test in ("pearson", "anova"):
            valued.update(n for n in pair_names if sides[n].kind != "nominal")
    order = list(sides)
    machine = _SideStats(
        sides,
        [n for n in order if n in ranked and sides[n].complete],
        # weighted Pearson / ANOVA centre at the weighted means (``_weighted_pair_stats``): no unweighted matrix
        [n for n in order if n in valued and sides[n].complete] if w is None else [],
        workers,
    )

    def one(item: dict[str, Any]) -> dict[str, Any]:
        test = item["test_orig" if which == ORIGINAL else "test_prot"]
        try:
            if w is not None:
                return _weighted_pair_stats(pair, variables, machine, item["a"], item["b"], test, which, w)
            return _pair_stats(pair, variables, machine, item["a"], item["b"], test, which)
        except _Degenerate as exc:
            return {"degenerate": str(exc)}

    return one


def _pair_stats(
    pair: EncodedPair, variables: dict[str, _Var], m: _SideStats, a: str, b: str, test: str, which: str
) -> dict[str, Any]:
    sa, sb = m.sides[a], m.sides[b]
    n = m.n_complete(a, b)
    if n < 3:
        raise _Degenerate(f"only {n} complete cases")
    both = sa.complete and sb.complete
    if test == "chi2":
        mask = _mask(sa, sb)[0]
        if which == ORIGINAL or not (variables[a].classed or variables[b].classed):
            table = pair.table((a, b), which)[:-1, :-1]  # the pair's cached two-way table
        else:
            table = _crosstab(sa.codes, sa.n_levels, sb.codes, sb.n_levels, mask)
        res = _chi2_pair(table)
        ca, cb = _direction_codes(variables[a], which), _direction_codes(variables[b], which)
        if ca is not sa.codes or cb is not sb.codes:  # recoded nominal: original records in the protected classes
            ka = sa.n_levels if ca is sa.codes else variables[a].recoded.n_categories
            kb = sb.n_levels if cb is sb.codes else variables[b].recoded.n_categories
            table = _crosstab(ca, ka, cb, kb, mask)
        res["msd"], res["support"] = _residuals(table)
        return res
    if test in ("kruskal", "anova"):
        g_name, x_name = (a, b) if sa.kind == "nominal" else (b, a)
        sg = m.sides[g_name]
        size = sg.counts if both else m.group_sizes(g_name, x_name)
        mask = None if both or test == "kruskal" else _mask(sa, sb)[0]  # Kruskal–Wallis selects no records
        if test == "kruskal":
            ranks, counts, _ = m.ranks_without(x_name, g_name)  # 0 where x is missing
            sums = m.group_sums(g_name, ranks)
            res = _kruskal_pair(size, sums, m.tie_sum(x_name, counts), n)
            centred = ranks  # selected on the complete cases below, if needed
            power = 3
        else:
            g = _take(sg.codes, mask)
            centred, sumsq = m.values_on(x_name, mask)
            sums = np.bincount(g, weights=centred, minlength=sg.n_levels)
            res = _anova_pair(size, sums, sumsq, n)
            power = 1
        dg = _direction_codes(variables[g_name], which)
        if dg is not sg.codes:  # a recoded nominal variable: its original records in the protected classes
            kg = variables[g_name].recoded.n_categories
            if test == "kruskal" and not both:
                mask = _mask(sa, sb)[0]
                centred = centred[mask]
            dg = _take(dg, mask)
            size = np.bincount(dg, minlength=kg)
            sums = np.bincount(dg, weights=centred, minlength=kg)
        res["msd"], res["support"] = _group_msd(size, sums, n, power)
        res["group_variable"] = g_name
        return res
    ranked = test == "spearman"
    r = m.correlation(a, b, None if both else (lambda: _mask(sa, sb)[0]), n, ranked)
    if r is None:
        raise _Degenerate("one of the two variables is constant among the complete cases")
    p = _spearman_p(r, n) if ranked else _pearson_p(r, n)
    return {"statistic": r, "p": p, "coef": r * r, "n": n, "sign": _sign(r)}


def _weighted_pair_stats(
    pair: EncodedPair, variables: dict[str, _Var], m: _SideStats, a: str, b: str, test: str, which: str,
    w: np.ndarray,
) -> dict[str, Any]:
    """The weighted form of the pair's test (see ``_gdu_weighted``); Spearman and Kruskal–Wallis stay unweighted.

    Without missing values in the pair, the rescaled weights, group weights
    and weighted centred values are computed once per file and variable
    (cached on ``m``), so each pair costs one weighted ``bincount`` or dot
    product.
    """
    from . import _gdu_weighted as gw

    if test in gw.UNWEIGHTED_TESTS:
        return {**_pair_stats(pair, variables, m, a, b, test, which), "weights": gw.UNWEIGHTED_NOTE}
    sa, sb = m.sides[a], m.sides[b]
    if test != "chi2" and not (sa.complete and sb.complete):
        n = m.n_complete(a, b)
        if n < 3:
            raise _Degenerate(f"only {n} complete cases")
        return _weighted_moments_incomplete(variables, m, a, b, test, which, w, lambda: _mask(sa, sb)[0])
    mask, n = _mask(sa, sb)
    if n < 3:
        raise _Degenerate(f"only {n} complete cases")
    wm = _take(w, mask)
    if not wm.sum() > 0:
        raise _Degenerate("the complete cases have zero total weight")
    cache: dict = m.__dict__.setdefault("_weighted", {})
    full = mask is None

    def memo(key: tuple, compute):
        if not full:
            return compute()
        if key not in cache:
            cache[key] = compute()
        return cache[key]

    wr = memo(("rescaled",), lambda: gw.rescaled(wm))
    n_eff = memo(("n_eff",), lambda: float(wr.sum()))
    note = "weighted, rescaled to Kish's effective sample size"
    if test == "chi2":
        if full and (which == ORIGINAL or not (variables[a].classed or variables[b].classed)):
            scale = n_eff / memo(("total",), lambda: float(wm.sum()))  # the pair's cached weighted table, rescaled
            table = pair.table((a, b), which, weighted=True)[:-1, :-1] * scale
        else:
            table = gw.crosstab(_take(sa.codes, mask), sa.n_levels, _take(sb.codes, mask), sb.n_levels, wr)
        try:
            res = gw.chi2_pair(table)
        except ValueError as exc:
            raise _Degenerate(str(exc)) from None
        ca, cb = _direction_codes(variables[a], which), _direction_codes(variables[b], which)
        if ca is not sa.codes or cb is not sb.codes:  # recoded nominal: original records in the protected classes
            ka = sa.n_levels if ca is sa.codes else variables[a].recoded.n_categories
            kb = sb.n_levels if cb is sb.codes else variables[b].recoded.n_categories
            table = gw.crosstab(_take(ca, mask), ka, _take(cb, mask), kb, wr)
        res["msd"], res["support"] = _residuals(table)
        res["weights"] = note
        return res

    def centred(name: str) -> tuple[np.ndarray, np.ndarray, float]:
        """Values centred at their weighted mean, times the weights, and Σ w (x − m)²."""
        def compute():
            x = _take(m.sides[name].values, mask)
            xc = x - float(np.dot(wr, x)) / n_eff
            wxc = wr * xc
            return xc, wxc, float(np.dot(wxc, xc))
        return memo(("centred", name), compute)

    if test == "anova":
        g_name, x_name = (a, b) if sa.kind == "nominal" else (b, a)
        sg = m.sides[g_name]
        g = m.group_codes(g_name) if full else _take(sg.codes, mask)
        _, wxc, sumsq = centred(x_name)
        size = memo(("size", g_name), lambda: np.bincount(g, weights=wr, minlength=sg.n_levels))
        sums = np.bincount(g, weights=wxc, minlength=sg.n_levels)
        res = _anova_pair(size, sums, sumsq, n_eff)
        dg = _direction_codes(variables[g_name], which)
        if dg is not sg.codes:
            kg = variables[g_name].recoded.n_categories
            dgm = _take(dg, mask)
            size = np.bincount(dgm, weights=wr, minlength=kg)
            sums = np.bincount(dgm, weights=wxc, minlength=kg)
        return _weighted_anova_result(res, size, sums, n_eff, g_name, note)
    return _weighted_pearson(centred, a, b, n_eff, note)


def _weighted_moments_incomplete(
    variables: dict[str, _Var], m: _SideStats, a: str, b: str, test: str, which: str, w: np.ndarray,
    complete_cases: Callable[[], np.ndarray],
) -> dict[str, Any]:
    """Weighted ANOVA or Pearson r of a pair with missing values: the weights are 0 outside its complete cases.

    The same sums as on the complete cases alone (``_weighted_pair_stats``),
    without copying them out: every array keeps all records, and records
    outside the complete cases weigh nothing (missing values read as 0,
    missing groups fall in a level of their own that is dropped).
    ``complete_cases()`` gives the mask of those records, asked for only when
    the pattern's weights are not held yet.
    """
    from . import _gdu_weighted as gw

    pattern = _missing_pattern(m.sides, a, b)
    memo = m.pattern_memo(pattern)  # the same complete cases: the same weights and incomplete variables' values
    if "weights" not in memo:
        wz = np.where(complete_cases(), w, 0.0)
        memo["weights"] = (wr := gw.rescaled(wz), float(wr.sum())) if float(wz.sum()) > 0 else None
    if memo["weights"] is None:
        raise _Degenerate("the complete cases have zero total weight")
    wr, n_eff = memo["weights"]
    note = "weighted, rescaled to Kish's effective sample size"

    def centred(name: str) -> tuple[np.ndarray, np.ndarray, float]:
        def compute() -> tuple[np.ndarray, np.ndarray, float]:
            x = m.filled_values(name)
            xc = x - float(np.dot(wr, x)) / n_eff
            wxc = wr * xc
            return xc, wxc, float(np.dot(wxc, xc))

        if name not in pattern:  # a complete partner: one pair's, not kept
            return compute()
        if ("centred", name) not in memo:
            memo["centred", name] = compute()
        return memo["centred", name]

    if test == "anova":
        g_name, x_name = (a, b) if m.sides[a].kind == "nominal" else (b, a)
        _, wxc, sumsq = centred(x_name)
        size, sums = m.group_sums(g_name, wr), m.group_sums(g_name, wxc)
        res = _anova_pair(size, sums, sumsq, n_eff)
        dg = _direction_codes(variables[g_name], which)
        if dg is not m.sides[g_name].codes:  # a recoded nominal variable: its original records in the protected classes
            kg = variables[g_name].recoded.n_categories
            mask = complete_cases()
            dgm = dg[mask]
            size = np.bincount(dgm, weights=wr[mask], minlength=kg)
            sums = np.bincount(dgm, weights=wxc[mask], minlength=kg)
        return _weighted_anova_result(res, size, sums, n_eff, g_name, note)
    return _weighted_pearson(centred, a, b, n_eff, note)


def _weighted_pearson(centred: Any, a: str, b: str, n_eff: float, note: str) -> dict[str, Any]:
    """Weighted Pearson r from ``centred(name)`` = (x − m, w·(x − m), Σ w (x − m)²), its p-value at ``n_eff``."""
    _, wxa, saa = centred(a)
    xb, _, sbb = centred(b)
    if not (saa > 0 and sbb > 0):
        raise _Degenerate("one of the two variables is constant among the complete cases")
    if not n_eff > 2:  # the t test of r has n_eff - 2 degrees of freedom: none (its p-value would be NaN, read as 1)
        raise _Degenerate(f"the complete cases' effective sample size (Kish) is {n_eff:.3g}, at most 2: no degrees of "
                          "freedom for the weighted Pearson test")
    r = float(np.clip(np.dot(wxa, xb) / math.sqrt(saa * sbb), -1.0, 1.0))
    return {"statistic": r, "p": _pearson_p(r, n_eff), "coef": r * r, "n": n_eff, "sign": _sign(r), "weights": note}


def _weighted_anova_result(
    res: dict[str, Any], size: np.ndarray, sums: np.ndarray, n_eff: float, g_name: str, note: str
) -> dict[str, Any]:
    """The weighted ANOVA's result with its per-group strengths (``size``, ``sums`` on the direction's groups)."""
    res["msd"], res["support"] = _group_msd(size, sums, n_eff, 1)
    res["group_variable"] = g_name
    res["weights"] = note
    return res


def _sign(r: float) -> int:
    return 1 if r > 0 else (-1 if r < 0 else 0)


def _direction_codes(var: _Var, which: str) -> np.ndarray:
    """Codes of a nominal variable on the grid shared by both files (protected classes when recoded)."""
    if which == ORIGINAL and var.direction_codes is not None:
        return var.direction_codes
    return (var.orig if which == ORIGINAL else var.prot).codes
