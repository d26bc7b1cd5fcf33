"""laeken's naive bootstrap, vectorised: resampled weights in chunks, values sorted once.

Replicate r resamples the file's primary sampling units with replacement — records, or clusters when the
spec declares a ``cluster`` column — independently within each stratum, as many as the stratum has
(``boot::boot(..., strata = )`` via laeken's ``clusterBoot``).  A resampled record keeps its weight, so the
replicate is the file with weights ``w_i·c_ir``, ``c_ir`` the number of times record i was drawn.  The
statistic is recomputed on every replicate; its standard error is the replicates' standard deviation (n − 1)
and its confidence interval the percentile interval (``numpy.quantile``, linear interpolation between order
statistics; ``boot.ci(type = "perc")`` interpolates on the normal scale instead — the difference is far
below the Monte-Carlo error).

Speed (why this is not a loop over replicates calling :mod:`.indicators`): the values of a variable are
sorted by (domain, value) once; a chunk of replicates is a matrix of counts, and every statistic of every
domain comes from cumulative sums along its rows — the weighted quantile is a ``searchsorted`` of
``base_d + p·total_d`` in the cumulative weights, the Gini coefficient three segment sums, the ARPR the
cumulative weight below the threshold, the QSR two cumulative sums at the quintiles.  Means, totals, ratios
and proportions (when ``ci: method: bootstrap``) are sparse matrix products of the counts.

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

#: records × replicates held in memory at once (per array)
CHUNK_ELEMENTS = 6_000_000


class Resampler:
    """Draws the replicates' record counts for one file's design.

    Examples
    --------
    >>> r = Resampler(5, strata=None, psu=None, seed=1)
    >>> counts = r.chunk(0, 3)
    >>> counts.shape, counts.sum(axis=1).tolist()
    ((3, 5), [5.0, 5.0, 5.0])
    >>> bool((Resampler(5, None, None, 1).chunk(2, 3) == counts[2]).all())
    True
    """

    def __init__(self, n: int, strata: np.ndarray | None, psu: np.ndarray | None, seed: int) -> None:
        self.n = n
        self.seed = seed
        self.psu = psu
        self.units = n if psu is None else int(psu.max(initial=-1)) + 1
        unit_strata = strata
        if psu is not None and strata is not None:
            unit_strata = np.zeros(self.units, dtype=np.int64)
            unit_strata[psu] = strata
        self.perm = None
        if unit_strata is not None:
            self.perm = np.argsort(unit_strata, kind="stable")
            sorted_strata = unit_strata[self.perm]
            sizes = np.bincount(sorted_strata)
            offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
            self.size_of = sizes[sorted_strata].astype(float)
            self.offset_of = offsets[sorted_strata]

    def unit_counts(self, r: int) -> np.ndarray:
        """How often each PSU is drawn in replicate ``r``."""
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(self.seed, spawn_key=(r,))))
        if self.perm is None:
            return np.bincount(rng.integers(0, self.units, self.units), minlength=self.units)
        drawn = self.offset_of + (rng.random(self.units) * self.size_of).astype(np.int64)
        counts = np.empty(self.units, dtype=np.int64)
        counts[self.perm] = np.bincount(drawn, minlength=self.units)
        return counts

    def chunk(self, r0: int, r1: int) -> np.ndarray:
        """Record counts of replicates ``r0 .. r1-1`` as a (r1 − r0, n) float64 matrix."""
        out = np.empty((r1 - r0, self.n))
        for j, r in enumerate(range(r0, r1)):
            counts = self.unit_counts(r)
            out[j] = counts if self.psu is None else counts[self.psu]
        return out


@dataclass(eq=False)
class IndicatorTask:
    """Quantiles, Gini, ARPR and QSR of one variable in the domains of one ``by``.

    ``x`` and ``w`` are the file's values and weights, ``domain`` the domain code per record (-1 outside).
    Ask for statistics with :meth:`want`; :meth:`point` gives laeken's exact values per domain and
    :meth:`replicate` their values in a chunk of bootstrap replicates.  ARPR in domains uses the whole
    file's median (laeken), taken from ``overall`` (the task of the same variable without domains).
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
            (self.overall or self).want("quantile", 0.5)
        elif statistic == "qsr":
            self.stats.add("qsr")
        elif statistic == "gini":
            self.stats.add("gini")

    @property
    def median(self) -> float:
        """The whole file's weighted median (laeken), for ARPR thresholds."""
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
                with np.errstate(divide="ignore", invalid="ignore"):
                    out[("qsr", None)][d] = indicators.qsr(x, w, is_sorted=True)
            for p in self.arpr_ps:
                out[("arpr", p)][d] = indicators.arpr(x, w, p * threshold_base)
        return out

    # -- replicates ----------------------------------------------------------------
    def replicate(self, counts: np.ndarray) -> dict[tuple, np.ndarray]:
        """Every requested statistic in each replicate of the chunk: (replicates, domains) arrays."""
        rc = counts.shape[0]
        self.last_median = None
        keep = np.flatnonzero(self.counts > 0)
        out = {k: np.full((rc, self.n_domains), np.nan) for k in self.point_keys()}
        if keep.size == 0:
            return out
        s, e = self.starts[keep], self.ends[keep]
        W = counts[:, self.rec] * self.ws
        cs = np.cumsum(W, axis=1)
        base = np.where(s > 0, cs[:, s - 1], 0.0)
        total = cs[:, e - 1] - base
        with np.errstate(divide="ignore", invalid="ignore"):
            quantile_idx = {p: self._quantile_index(cs, base, total, p, s, e) for p in self._all_probs()}
            for p in self.probs:
                out[("quantile", p)][:, keep] = self._masked(self.xs[quantile_idx[p]], total)
            if self.overall is None and 0.5 in quantile_idx:
                self.last_median = self.xs[quantile_idx[0.5]][:, 0] if self.n_domains == 1 else None
            if "gini" in self.stats or "qsr" in self.stats:
                P = W * self.xs
                if "gini" in self.stats:
                    S3 = np.add.reduceat(P, s, axis=1)
                    S_pcs = np.add.reduceat(P * cs, s, axis=1)
                    S_pw = np.add.reduceat(P * W, s, axis=1)
                    g = 100 * ((2 * (S_pcs - base * S3) - S_pw) / (total * S3) - 1)
                    out[("gini", None)][:, keep] = self._masked(g, total)
                if "qsr" in self.stats:
                    cP = np.cumsum(P, axis=1)
                    base_p = np.where(s > 0, cP[:, s - 1], 0.0)
                    low = np.take_along_axis(cP, self.tie_end[quantile_idx[0.2]], axis=1) - base_p
                    high = cP[:, e - 1] - np.take_along_axis(cP, self.tie_end[quantile_idx[0.8]], axis=1)
                    out[("qsr", None)][:, keep] = self._masked(high / low, total)
            for p in self.arpr_ps:
                median = (self.overall or self).last_median
                if median is None:
                    continue
                out[("arpr", p)][:, keep] = self._masked(self._rate_below(cs, base, total, p * median, keep, s), total)
        return out

    def point_keys(self) -> list[tuple]:
        keys = [("quantile", p) for p in self.probs] + [("gini", None)] * ("gini" in self.stats)
        return keys + [("qsr", None)] * ("qsr" in self.stats) + [("arpr", p) for p in self.arpr_ps]

    def _all_probs(self) -> list[float]:
        probs = list(self.probs)
        if "qsr" in self.stats:
            probs += [p for p in (0.2, 0.8) if p not in probs]
        return probs

    def _quantile_index(self, cs: np.ndarray, base: np.ndarray, total: np.ndarray, p: float,
                        s: np.ndarray, e: np.ndarray) -> np.ndarray:
        """Per replicate and domain, the index of laeken's q(p): the first cumulative share above p."""
        target = base + p * total
        side = "left" if p == 1 else "right"
        idx = np.empty(target.shape, dtype=np.int64)
        for r in range(cs.shape[0]):
            idx[r] = np.searchsorted(cs[r], target[r], side=side)
        return np.clip(idx, s, e - 1)

    def _rate_below(self, cs: np.ndarray, base: np.ndarray, total: np.ndarray, threshold: np.ndarray,
                    keep: np.ndarray, s: np.ndarray) -> np.ndarray:
        """100 × the weight share strictly below each replicate's threshold, per domain."""
        rank = np.searchsorted(self.uniq, threshold, side="left")  # distinct values below the threshold
        target = keep[None, :] * np.int64(self.uniq.size + 1) + rank[:, None]
        below = np.zeros(target.shape)
        for r in range(cs.shape[0]):
            k = np.searchsorted(self.key, target[r], side="left")
            below[r] = np.where(k > s, cs[r, np.maximum(k - 1, 0)] - base[r], 0.0)
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
        dense = np.ascontiguousarray(counts.T)
        Y = (self.num @ dense).T
        if self.contrib.total:
            return Y
        X = (self.den @ dense).T[:, self.contrib.dom_of_est]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(X != 0, Y / X, np.nan)


def run(tasks: list, resampler: Resampler, replicates: int) -> list:
    """Every task's replicate values: a dict of (R, domains) arrays per IndicatorTask, an (R, E) array per
    TotalsTask.  Tasks without domains come first (their medians are the ARPR thresholds of the others)."""
    order = sorted(range(len(tasks)), key=lambda i: not (isinstance(tasks[i], IndicatorTask) and tasks[i].overall is None))
    size = max(1, min(replicates, CHUNK_ELEMENTS // max(resampler.n, 1)))
    parts: list[list] = [[] for _ in tasks]
    for r0 in range(0, replicates, size):
        counts = resampler.chunk(r0, min(replicates, r0 + size))
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
