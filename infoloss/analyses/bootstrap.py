"""laeken's naive bootstrap, vectorised: resampled weights in chunks, values sorted once.

Replicate r resamples the file's primary sampling units with replacement — records, or clusters when the
spec declares a ``cluster`` column — independently within each stratum, as many as the stratum has
(``boot::boot(..., strata = )`` via laeken's ``clusterBoot``).  A resampled record keeps its weight, so the
replicate is the file with weights ``w_i·c_ir``, ``c_ir`` the number of times record i was drawn.  The
statistic is recomputed on every replicate; its standard error is the replicates' standard deviation (n − 1)
and its confidence interval the percentile interval (``numpy.quantile``, linear interpolation between order
statistics; ``boot.ci(type = "perc")`` interpolates on the normal scale instead — the difference is far
below the Monte-Carlo error).

Speed (why this is not :mod:`.indicators` called on resampled copies of the data): the values of a variable
are sorted by (domain, value) once; the counts of a chunk of replicates are drawn as a small-integer matrix,
and for each replicate every statistic of every domain comes from one cumulative sum of the reweighted,
already sorted values — the weighted quantile is a ``searchsorted`` of ``base_d + p·total_d`` in the
cumulative weights, the Gini coefficient three segment sums, the ARPR the cumulative weight below the
threshold, the QSR two cumulative sums at the quintiles, all over buffers reused from one replicate to the
next.  Means, totals, ratios and proportions (with ``ci: method: bootstrap``) are sparse matrix products of
the counts.  The tests check every replicate's values against :mod:`.indicators` on the resampled records.

Seeds: replicate r draws from ``SeedSequence(seed, spawn_key=(r,))``, so the replicates do not depend on the
chunk size, and two files with the same number of records and the same design get the same resamples (two
identical files give identical intervals).

References
----------
Efron, B. & Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*, ch. 13 (percentile intervals).
Alfons, A. & Templ, M. (2013). The R package laeken. *Journal of Statistical Software* 54(15), §5.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from . import indicators
from .design import Contributions

#: up to this many strata, each stratum's draws are bounded integers; above it, scaled uniforms (one call)
MANY_STRATA = 256
#: bytes of record counts (one byte each, mostly) held in memory at once
CHUNK_BYTES = 32_000_000
#: drawn counts kept for the next file with the same design, up to this size (records × replicates)
COUNTS_CACHE_BYTES = 256_000_000
#: up to this many domains, segment sums are dot products per domain; above it, reduceat over a buffer
SEGMENT_LOOP = 32


class Resampler:
    """Draws the replicates' record counts for one file's design.

    Examples
    --------
    >>> r = Resampler(5, strata=None, psu=None, seed=1)
    >>> counts = r.chunk(0, 3)
    >>> counts.shape, counts.sum(axis=1).tolist()
    ((3, 5), [5, 5, 5])
    >>> bool((Resampler(5, None, None, 1).chunk(2, 3) == counts[2]).all())
    True
    """

    def __init__(self, n: int, strata: np.ndarray | None, psu: np.ndarray | None, seed: int) -> None:
        self.n = n
        self.seed = seed
        self.psu = psu
        # two files with this key draw the same replicates (e.g. an original and a paired protected file)
        self.key = (n, seed, None if strata is None else hash(strata.tobytes()),
                    None if psu is None else hash(psu.tobytes()))
        self.units = n if psu is None else int(psu.max(initial=-1)) + 1
        unit_strata = strata
        if psu is not None and strata is not None:
            unit_strata = np.zeros(self.units, dtype=np.int64)
            unit_strata[psu] = strata
        # units renumbered so that each stratum's are contiguous: position = rank[unit]
        self.rank = None
        self.record_unit = psu  # the (renumbered) unit of each record; None: the records are the units
        if unit_strata is not None:
            perm = np.argsort(unit_strata, kind="stable")
            self.rank = np.empty(self.units, dtype=np.int64)
            self.rank[perm] = np.arange(self.units)
            self.record_unit = self.rank if psu is None else self.rank[psu]
            self.sizes = np.bincount(unit_strata)
            self.offsets = np.concatenate([[0], np.cumsum(self.sizes)[:-1]])
            sorted_strata = unit_strata[perm]
            self.size_of = self.sizes[sorted_strata].astype(float)
            self.offset_of = self.offsets[sorted_strata]

    def _sorted_counts(self, r: int) -> np.ndarray:
        """How often each unit (in stratum order) is drawn in replicate ``r``."""
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(self.seed, spawn_key=(r,))))
        if self.rank is None:
            return np.bincount(rng.integers(0, self.units, self.units), minlength=self.units)
        if self.sizes.size <= MANY_STRATA:  # bounded integers per stratum: faster than scaling uniforms
            drawn = np.concatenate([o + rng.integers(0, k, k) for o, k in zip(self.offsets, self.sizes) if k])
        else:
            drawn = self.offset_of + (rng.random(self.units) * self.size_of).astype(np.int64)
        return np.bincount(drawn, minlength=self.units)

    def unit_counts(self, r: int) -> np.ndarray:
        """How often each PSU (by its code) is drawn in replicate ``r``."""
        counts = self._sorted_counts(r)
        return counts if self.rank is None else counts[self.rank]

    def chunk(self, r0: int, r1: int) -> np.ndarray:
        """Record counts of replicates ``r0 .. r1-1`` as a (r1 − r0, n) matrix of the smallest integer type."""
        rows = []
        for r in range(r0, r1):
            counts = self._sorted_counts(r)
            rows.append(counts if self.record_unit is None else counts[self.record_unit])
        top = max(int(row.max(initial=0)) for row in rows)
        return np.array(rows, dtype=np.uint8 if top < 256 else np.uint16 if top < 65536 else np.int64)


@dataclass(eq=False)
class IndicatorTask:
    """Quantiles, Gini, ARPR and QSR of one variable in the domains of one ``by``.

    ``x`` and ``w`` are the file's values and weights, ``domain`` the domain code per record (-1 outside).
    Ask for statistics with :meth:`want`; :meth:`point` gives laeken's exact values per domain and
    :meth:`replicate` their values in a chunk of bootstrap replicates.  ARPR in domains uses the whole
    file's median (laeken): found by binary search over this task's domains when every record with a value
    is in one (``covers_all``), else taken from ``overall`` (the task of the same variable without domains).
    """

    x: np.ndarray
    w: np.ndarray
    domain: np.ndarray
    n_domains: int
    overall: "IndicatorTask | None" = None
    probs: list[float] = field(default_factory=list)
    arpr_ps: list[float] = field(default_factory=list)
    stats: set[str] = field(default_factory=set)
    last_median: np.ndarray | None = field(default=None, repr=False)
    #: per statistic, how many replicates of each domain had records but an undefined value (a zero total)
    undefined: dict[tuple, np.ndarray] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        valid = ~np.isnan(self.x) & (self.domain >= 0)
        rec = np.flatnonzero(valid)
        order = np.lexsort((self.x[rec], self.domain[rec]))
        self.rec = rec[order]
        self.xs = self.x[self.rec]
        self.ds = self.domain[self.rec]
        self.ws = self.w[self.rec]
        d = np.arange(self.n_domains)
        self.starts = np.searchsorted(self.ds, d, side="left")
        self.ends = np.searchsorted(self.ds, d, side="right")
        self.counts = self.ends - self.starts
        # whole-number weights: the replicates' sums of count × weight are exact (see _settle_ties)
        self.whole_weights = bool(np.all(self.ws == np.round(self.ws))) and float(np.abs(self.ws).sum()) < 2**40
        # every record with a value is in a domain: the whole file's median can come from this task
        self.covers_all = self.rec.size == int((~np.isnan(self.x)).sum())
        self.uniq = np.unique(self.xs)
        rank = np.searchsorted(self.uniq, self.xs)
        self.key = self.ds * np.int64(self.uniq.size + 1) + rank
        # tie_end[i]: the last index of the run of records with i's domain and value (for "x ≤ q" sums)
        change = np.diff(self.key) != 0
        run_last = np.append(np.flatnonzero(change), self.key.size - 1)
        self.tie_end = run_last[np.concatenate([[0], np.cumsum(change)])] if self.key.size else np.zeros(0, np.int64)

    # -- requests --------------------------------------------------------------
    def want(self, statistic: str, p: float | None = None) -> None:
        if statistic == "quantile" and p not in self.probs:
            self.probs.append(float(p))
        elif statistic == "arpr":
            if p not in self.arpr_ps:
                self.arpr_ps.append(float(p))
            if self.overall is not None:
                self.overall.want("quantile", 0.5)
            elif self.n_domains == 1:
                self.want("quantile", 0.5)
        elif statistic == "qsr":
            self.stats.add("qsr")
        elif statistic == "gini":
            self.stats.add("gini")

    @property
    def median(self) -> float:
        """The whole file's weighted median (laeken), for ARPR thresholds; NaN when no record has a value."""
        if not self.ws.sum() > 0:
            return np.nan
        return float(indicators.weighted_quantile(self.xs, self.ws, [0.5], is_sorted=False)[0])

    # -- exact values --------------------------------------------------------------
    def point(self) -> dict[tuple, np.ndarray]:
        """laeken's values per domain (NaN for a domain without values)."""
        out: dict[tuple, np.ndarray] = {}
        keys = [("quantile", p) for p in self.probs] + [("gini", None)] * ("gini" in self.stats)
        keys += [("qsr", None)] * ("qsr" in self.stats) + [("arpr", p) for p in self.arpr_ps]
        for key in keys:
            out[key] = np.full(self.n_domains, np.nan)
        threshold_base = (self.overall or self).median if self.arpr_ps else np.nan
        for d in np.flatnonzero(self.counts > 0):
            x, w = self.xs[self.starts[d]:self.ends[d]], self.ws[self.starts[d]:self.ends[d]]
            if w.sum() <= 0:
                continue
            if self.probs:
                values = indicators.weighted_quantile(x, w, self.probs, is_sorted=True)
                for p, v in zip(self.probs, values):
                    out[("quantile", p)][d] = v
            if "gini" in self.stats:
                out[("gini", None)][d] = indicators.gini(x, w, is_sorted=True)
            if "qsr" in self.stats:
                out[("qsr", None)][d] = indicators.qsr(x, w, is_sorted=True)
            for p in self.arpr_ps:
                out[("arpr", p)][d] = indicators.arpr(x, w, p * threshold_base)
        return out

    # -- replicates ----------------------------------------------------------------
    def replicate(self, counts: np.ndarray) -> dict[tuple, np.ndarray]:
        """Every requested statistic in each replicate of the chunk: (replicates, domains) arrays.

        One replicate at a time over preallocated buffers (``out=``): large temporaries would cost more in
        page faults than in arithmetic.  A replicate whose Gini or QSR is undefined (the domain's total, or
        its bottom quintile's, is 0 in it) gets NaN, counted in :attr:`undefined`.
        """
        rc = counts.shape[0]
        out = {k: np.full((rc, self.n_domains), np.nan) for k in self.point_keys()}
        for k in ("gini", None), ("qsr", None):
            if k in out and k not in self.undefined:
                self.undefined[k] = np.zeros(self.n_domains, dtype=np.int64)
        own_median = self.overall is None and (self.n_domains == 1 or (self.covers_all and bool(self.arpr_ps)))
        medians = np.full(rc, np.nan) if own_median else None
        self.last_median = medians
        keep = np.flatnonzero(self.counts > 0)
        if keep.size == 0:
            return out
        s, e = self.starts[keep], self.ends[keep]
        m = self.rec.size
        cnt, W, cs = np.empty(m, dtype=counts.dtype), np.empty(m), np.empty(m)
        gini, qsr = "gini" in self.stats, "qsr" in self.stats
        P = np.empty(m) if gini or qsr else None
        cP = np.empty(m) if qsr else None
        tmp = np.empty(m) if gini and keep.size > SEGMENT_LOOP else None
        probs = self._all_probs()
        with np.errstate(divide="ignore", invalid="ignore"):
            for r in range(rc):
                np.take(counts[r], self.rec, out=cnt)
                np.multiply(cnt, self.ws, out=W)
                np.cumsum(W, out=cs)
                base = np.where(s > 0, cs[s - 1], 0.0)
                total = cs[e - 1] - base
                empty = total <= 0
                idx = {p: self._settle_ties(self._quantile_index(cs, base, total, p, s, e), cs, base, total, p, s,
                                            e, cnt) for p in probs}
                for p in self.probs:
                    out[("quantile", p)][r, keep] = np.where(empty, np.nan, self.xs[idx[p]])
                if medians is not None and self.n_domains == 1 and 0.5 in idx and not empty[0]:
                    medians[r] = self.xs[idx[0.5][0]]
                elif medians is not None and self.n_domains > 1:
                    medians[r] = self._global_median(cs, base, keep)
                if P is not None:
                    np.multiply(W, self.xs, out=P)
                if gini:
                    S3, S_pcs, S_pw = self._segment_sums(P, cs, W, s, e, tmp)
                    g = 100 * ((2 * (S_pcs - base * S3) - S_pw) / (total * S3) - 1)
                    out[("gini", None)][r, keep] = self._defined(("gini", None), g, empty, S3, keep)
                if qsr:
                    np.cumsum(P, out=cP)
                    base_p = np.where(s > 0, cP[s - 1], 0.0)
                    low = cP[self.tie_end[idx[0.2]]] - base_p
                    high = cP[e - 1] - cP[self.tie_end[idx[0.8]]]
                    out[("qsr", None)][r, keep] = self._defined(("qsr", None), high / low, empty, low, keep)
                for p in self.arpr_ps:
                    median = (self.overall or self).last_median
                    if median is None or np.isnan(median[r]):
                        continue
                    rate = self._rate_below(cs, base, total, p * median[r], keep, s)
                    out[("arpr", p)][r, keep] = np.where(empty, np.nan, rate)
        return out

    def _defined(self, key: tuple, values: np.ndarray, empty: np.ndarray, denominator: np.ndarray,
                 keep: np.ndarray) -> np.ndarray:
        """``values`` with NaN where the domain is empty or the statistic's ``denominator`` is 0 (counted)."""
        undefined = ~empty & (denominator == 0)
        self.undefined[key][keep] += undefined
        return np.where(empty | undefined, np.nan, values)

    def point_keys(self) -> list[tuple]:
        keys = [("quantile", p) for p in self.probs] + [("gini", None)] * ("gini" in self.stats)
        return keys + [("qsr", None)] * ("qsr" in self.stats) + [("arpr", p) for p in self.arpr_ps]

    def _all_probs(self) -> list[float]:
        probs = list(self.probs)
        if "qsr" in self.stats:
            probs += [p for p in (0.2, 0.8) if p not in probs]
        return probs

    @staticmethod
    def _quantile_index(cs: np.ndarray, base: np.ndarray, total: np.ndarray, p: float, s: np.ndarray,
                        e: np.ndarray) -> np.ndarray:
        """Per domain, the index of laeken's q(p): the first cumulative weight share above p."""
        idx = np.searchsorted(cs, base + p * total, side="left" if p == 1 else "right")
        return np.clip(idx, s, e - 1)

    def _settle_ties(self, idx: np.ndarray, cs: np.ndarray, base: np.ndarray, total: np.ndarray, p: float,
                     s: np.ndarray, e: np.ndarray, cnt: np.ndarray) -> np.ndarray:
        """``idx`` with each domain whose cumulative weight meets ``p`` × its total within rounding decided as
        :func:`indicators.weighted_quantile` decides on the replicate's records (R's sums of the repeated
        weights, share = sum / total > p).

        Weights of one decimal make the share reach exactly ½ at a value; whether a running sum of count ×
        weight landed on ½ or just past it picked that value or the next.  With whole-number weights the sums
        are exact and only R's division is redone, at the few records near the target; other weights (rarely
        at a tie) have the domain's repeated records summed as R sums them.
        """
        if not 0 < p < 1:
            return idx
        target = base + p * total
        tol = 1e-9 * total
        before = np.where(idx > s, cs[np.maximum(idx - 1, 0)], base)
        near = (total > 0) & ((np.abs(cs[idx] - target) <= tol) | (np.abs(before - target) <= tol))
        if not near.any():
            return idx
        idx = idx.copy()
        for d in np.flatnonzero(near):
            a, b = int(s[d]), int(e[d])
            if self.whole_weights:  # exact sums: R's share at the records whose sum is within rounding of the target
                lo = max(a, int(np.searchsorted(cs, target[d] - tol[d], side="left")))
                hi = min(b - 1, int(np.searchsorted(cs, target[d] + tol[d], side="right")))
                above = np.flatnonzero((cs[lo:hi + 1] - base[d]) / total[d] > p)
                idx[d] = lo + int(above[0]) if above.size else hi
                continue
            held = np.cumsum(cnt[a:b])  # record a + j holds the repeated records held[j - 1] .. held[j] - 1
            weights = np.repeat(self.ws[a:b], cnt[a:b])
            share = indicators._cumsum(weights) / indicators._sum(weights)
            k = min(int(np.searchsorted(share, p, side="right")), weights.size - 1)
            idx[d] = a + int(np.searchsorted(held, k, side="right"))
        return idx

    @staticmethod
    def _segment_sums(P: np.ndarray, cs: np.ndarray, W: np.ndarray, s: np.ndarray, e: np.ndarray,
                      tmp: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per domain Σ P, Σ P·cs and Σ P·W (dot products per segment; reduceat for many domains)."""
        S3 = np.add.reduceat(P, s)  # the segments are contiguous and cover P
        if tmp is None:
            S_pcs = np.array([np.dot(P[a:b], cs[a:b]) for a, b in zip(s, e)])
            S_pw = np.array([np.dot(P[a:b], W[a:b]) for a, b in zip(s, e)])
            return S3, S_pcs, S_pw
        S_pcs = np.add.reduceat(np.multiply(P, cs, out=tmp), s)
        S_pw = np.add.reduceat(np.multiply(P, W, out=tmp), s)
        return S3, S_pcs, S_pw

    def _global_median(self, cs: np.ndarray, base: np.ndarray, keep: np.ndarray) -> float:
        """laeken's weighted median of all domains together: the smallest value v whose cumulative weight
        (over every domain, values ≤ v) exceeds half the total — a binary search over the distinct values."""
        stride = np.int64(self.uniq.size + 1)
        s = self.starts[keep]
        tops = cs[self.ends[keep] - 1] - base
        target = 0.5 * tops.sum()
        if not target > 0:
            return np.nan
        lo, hi = 0, self.uniq.size - 1
        while lo < hi:
            mid = (lo + hi) // 2
            k = np.searchsorted(self.key, keep * stride + mid, side="right")  # first index above value rank mid
            below = np.where(k > s, cs[np.maximum(k - 1, 0)] - base, 0.0).sum()
            if below > target:
                hi = mid
            else:
                lo = mid + 1
        return float(self.uniq[lo])

    def _rate_below(self, cs: np.ndarray, base: np.ndarray, total: np.ndarray, threshold: float,
                    keep: np.ndarray, s: np.ndarray) -> np.ndarray:
        """100 × the weight share strictly below ``threshold``, per domain."""
        rank = np.searchsorted(self.uniq, threshold, side="left")  # distinct values below the threshold
        k = np.searchsorted(self.key, keep * np.int64(self.uniq.size + 1) + rank, side="left")
        below = np.where(k > s, cs[np.maximum(k - 1, 0)] - base, 0.0)
        return 100 * below / total

    @staticmethod
    def _masked(values: np.ndarray, total: np.ndarray) -> np.ndarray:
        return np.where(total > 0, values, np.nan)


class TotalsTask:
    """Ratio-of-totals estimates (means, totals, ratios, proportions) in bootstrap replicates."""

    def __init__(self, contrib: Contributions, weights: np.ndarray) -> None:
        n = weights.shape[0]
        E = contrib.n_estimates
        D = max(contrib.n_domains, int(contrib.dom_b.max(initial=-1)) + 1)
        self.contrib = contrib
        self.num = sparse.csr_matrix((weights[contrib.rec_a] * contrib.a, (contrib.est_a, contrib.rec_a)), shape=(E, n))
        self.den = sparse.csr_matrix((weights[contrib.rec_b] * contrib.b, (contrib.dom_b, contrib.rec_b)), shape=(D, n))

    def replicate(self, counts: np.ndarray) -> np.ndarray:
        dense = np.ascontiguousarray(counts.T, dtype=float)
        Y = (self.num @ dense).T
        if self.contrib.total:
            return Y
        X = (self.den @ dense).T[:, self.contrib.dom_of_est]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(X != 0, Y / X, np.nan)


def run(tasks: list, resampler: Resampler, replicates: int, cache: dict | None = None) -> list:
    """Every task's replicate values: a dict of (R, domains) arrays per IndicatorTask, an (R, E) array per
    TotalsTask.  Tasks without domains come first (their medians are the ARPR thresholds of the others).

    ``cache`` (optional) keeps the drawn counts for the next file with the same design and number of
    records — the protected files of a paired comparison — when they take at most ``COUNTS_CACHE_BYTES``.
    """
    order = sorted(range(len(tasks)), key=lambda i: not (isinstance(tasks[i], IndicatorTask) and tasks[i].overall is None))
    size = max(1, min(replicates, CHUNK_BYTES // max(resampler.n, 1)))
    if cache is not None and resampler.n * replicates > COUNTS_CACHE_BYTES:
        cache = None
    parts: list[list] = [[] for _ in tasks]
    for r0 in range(0, replicates, size):
        r1 = min(replicates, r0 + size)
        key = ("bootstrap-counts", resampler.key, r0, r1)
        counts = cache.get(key) if cache is not None else None
        if counts is None:
            counts = resampler.chunk(r0, r1)
            if cache is not None:
                cache[key] = counts
        for i in order:
            parts[i].append(tasks[i].replicate(counts))
        del counts
    out = []
    for task, chunks in zip(tasks, parts):
        if isinstance(task, IndicatorTask):
            out.append({k: np.concatenate([c[k] for c in chunks]) for k in task.point_keys()})
        else:
            out.append(np.concatenate(chunks))
    return out


def summarise(values: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Standard error (n − 1), percentile interval and the number of failed (NaN) replicates per column."""
    ok = ~np.isnan(values)
    n_ok = ok.sum(axis=0)
    tail = (1 - level) / 2
    se = np.full(values.shape[1], np.nan)
    lower, upper = se.copy(), se.copy()
    for j in np.flatnonzero(n_ok >= 2):
        v = values[ok[:, j], j]
        se[j] = np.std(v, ddof=1)
        lower[j], upper[j] = np.quantile(v, [tail, 1 - tail])
    return se, lower, upper, values.shape[0] - n_ok
