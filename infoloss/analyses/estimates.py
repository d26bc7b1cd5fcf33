"""The declared estimates of one file: point estimate, standard error and confidence interval per domain.

Means, totals, ratios and proportions are ratios of weighted totals with Taylor-linearised standard errors
under the spec's design (:mod:`.design`, R survey's numbers) and normal intervals ``θ ± z·SE`` (survey's
``confint``); quantiles, the median and laeken's Gini, ARPR and QSR are laeken's point estimates
(:mod:`.indicators`) with the naive bootstrap (:mod:`.bootstrap`: standard error and percentile interval).
``ci: method: bootstrap`` bootstraps every statistic.  Records with a missing value of the variable (or of
the ratio's denominator, or of a ``by`` variable) are left out of that estimate (R's ``na.rm = TRUE``); they
still count as PSUs of the design (domain estimation).

Each estimate is one row (a dict) keyed by ``key`` = ``label | domain`` (``| category`` for proportions);
labels, never the pair's codes, identify domains and categories.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InputError, NotComputed
from ..numeric import safe_exponent, scaled, too_large, unscale
from . import bootstrap
from .data import Domains, FileData
from .design import Contributions, LinearDesign, ratio_estimates
from .spec import LINEARISED, Analyses, Estimate

#: the bootstrap replicates are split into this many independent groups to show the seed's effect
SEED_GROUPS = 4
#: a standard error below this share of the estimate is rounding noise of a constant, i.e. zero: a constant
#: gives at most about 4e-16 (means, ratios and medians of 50 to 100,000 records, weighted, 1e-300 to 1e300);
#: a variable that varies only in its last bits (values 1e6 apart from 1e-6) is still a real 1e-10
ZERO_SE = 1e-12
#: why a Gini coefficient or QSR with records is undefined: a zero denominator (laeken's formulas)
UNDEFINED = {"gini": "the total of {v} in this domain is 0, so the Gini coefficient is undefined",
             "qsr": "the total of {v} in the bottom 20 % of this domain is 0, so the quintile share ratio is undefined"}
#: the same for bootstrap replicates: left out of the standard error and interval when they are at most the
#: interval's tail share (1 − level)/2 of the replicates, else no interval is given (dropping them would move
#: its bound: an undefined QSR is an infinite one)
UNDEFINED_REPLICATES = {"gini": "had a total of {v} of 0 in this domain (Gini coefficient undefined)",
                        "qsr": "had a total of {v} of 0 in the bottom 20 % of this domain (quintile share ratio "
                               "undefined)"}


@dataclass
class _Block:
    """The rows of one declared estimate: one per domain (× category)."""

    est: Estimate
    domains: list[str]
    categories: list[str] | None  # proportions
    value: np.ndarray
    n: np.ndarray
    method: str
    se: np.ndarray | None = None  # linearised
    boot: tuple[int, Any] | None = None  # (task index, key or None) of the bootstrap results
    columns: np.ndarray | None = None  # which estimates of a TotalsTask
    undefined: np.ndarray | None = None  # per domain, the replicates with an undefined Gini or QSR
    scale: int = 0  # the estimates were computed on values times 2**-scale (numeric.scaled): rows scale them back
    category_n: np.ndarray | None = None  # proportions: the records of each category in its domain (unweighted)
    # means, totals, ratios, Gini, QSR: per domain, the records away from its most common value (a ratio: the fewer
    # of its two variables', when both have some)
    off_mode: np.ndarray | None = None
    # quantiles: the values of the records with a value (unscaled), sorted by domain and value, and where each
    # domain's start, to count the records beyond an estimate or its interval (safe mode: with weights a quantile
    # can stand on a few heavy records)
    tail_values: tuple[np.ndarray, np.ndarray] | None = None
    notes: list[str] = field(default_factory=list)


def estimate_file(data: FileData, analyses: Analyses, counts_cache: dict | None = None) -> dict[str, Any]:
    """The rows of every declared estimate in one file, with the design used.

    ``counts_cache``: a dict shared by the files of one comparison, so that files with the same design
    reuse the bootstrap's drawn counts (:func:`.bootstrap.run`).
    """
    design = data.design
    linear = LinearDesign(design.weights, design.strata, design.psu)
    tasks: list = []
    indicator_tasks: dict[tuple, bootstrap.IndicatorTask] = {}
    blocks = []
    unavailable: dict[str, str] = {}
    for est in analyses.estimates:
        bootstrap_all = analyses.ci.method == "bootstrap"
        try:
            _check_rows(data, est)
            if est.statistic in LINEARISED:
                blocks.append(_ratio_block(data, est, linear, tasks if bootstrap_all else None))
            else:
                blocks.append(_indicator_block(data, est, indicator_tasks, tasks))
        except NotComputed as exc:  # e.g. its variable was removed from the protected file
            unavailable[est.label] = str(exc)
    points = {i: t.point() for i, t in enumerate(tasks) if isinstance(t, bootstrap.IndicatorTask)}
    for block in blocks:
        if block.boot is not None and block.boot[1] is not None:
            block.value = points[block.boot[0]][block.boot[1]]
    results = []
    if tasks:
        resampler = bootstrap.Resampler(data.n, design.strata, design.psu, analyses.ci.seed)
        results = bootstrap.run(tasks, resampler, analyses.ci.replicates, counts_cache)
        for block in blocks:
            if block.boot is not None and block.boot[1] is not None:
                block.undefined = tasks[block.boot[0]].undefined.get(block.boot[1])
    level = analyses.ci.level
    rows = [row for block in blocks for row in _rows(block, results, level, analyses.ci.replicates)]
    return {"rows": rows, "unavailable": unavailable, "design": design.text, "design_notes": list(design.notes),
            "weighted": design.weighted}


#: an estimate with more rows (its domains, times the categories of a proportion) is not computed: a row per
#: value of an identifier-like variable would make the JSON (and the bootstrap's replicates) grow with the file
#: (a proportion of 100,000 categories took 1.9 GB to write); the before/after tables stop at as many cells
MAX_ROWS = 10_000


def _check_rows(data: FileData, est: Estimate) -> None:
    """NotComputed when the estimate would have more than :data:`MAX_ROWS` rows in this file."""
    domains = data.domains(est.by)
    categories = 1
    if est.statistic == "proportion":
        codes, labels = data.codes(est.variable)
        present = int(np.count_nonzero(np.bincount(codes[codes >= 0], minlength=len(labels))))
        categories = present if est.categories is None else min(present, len(est.categories))
    rows = domains.size * max(categories, 1)
    if rows > MAX_ROWS:
        parts = " × ".join([f"{domains.size:,} domains"] * (domains.size > 1)
                           + [f"{categories:,} categories"] * (categories > 1))
        raise NotComputed(
            f"it would have {rows:,} rows ({parts}), more than {MAX_ROWS:,}; estimate by a coarser variable (a "
            "recode), list the categories to estimate ('categories:'), or use fewer 'by' variables")


# ---------------------------------------------------------------------------
# ratio-of-totals statistics
# ---------------------------------------------------------------------------
def _ratio_block(data: FileData, est: Estimate, linear: LinearDesign, tasks: list | None) -> _Block:
    domains = data.domains(est.by)
    contrib, categories, n, scale = _contributions(data, est, domains)
    value, se = ratio_estimates(contrib, linear)
    block = _Block(est, domains.labels, None, value, n, "linearisation", se=se, scale=scale)
    if categories is not None:
        block.categories, block.columns, block.category_n = categories
    if est.statistic in ("mean", "total", "ratio"):  # aligned: estimate e is domain e
        block.off_mode = off_mode(contrib.a, contrib.est_a, domains.size)
        if est.statistic == "ratio":  # the ratio times the other variable's total gives either one's total
            off_b = off_mode(contrib.b, contrib.dom_b, domains.size)
            both = (block.off_mode > 0) & (off_b > 0)
            block.off_mode = np.where(both, np.minimum(block.off_mode, off_b), np.maximum(block.off_mode, off_b))
    if tasks is not None:
        block.method, block.se = "bootstrap", None
        block.boot = (len(tasks), None)
        tasks.append(bootstrap.TotalsTask(contrib, linear.weights))
    return block


def _contributions(data: FileData, est: Estimate, domains: Domains) -> tuple[Contributions, Any, np.ndarray, int]:
    """The numerator and denominator entries of a mean, total, ratio or proportion (see :mod:`.design`), and
    the power of two the estimates are to be scaled back by.

    Values beyond about 1e120 are scaled by a power of two first (:func:`scaled_values`), so that the
    squares of the variance do not overflow; scaling by a power of two is exact.
    """
    D = domains.size
    dom = domains.codes
    if est.statistic == "proportion":
        codes, labels = data.codes(est.variable)
        valid = (codes >= 0) & (dom >= 0)
        rec = np.flatnonzero(valid)
        K = len(labels)
        contrib = Contributions(rec, dom[rec] * K + codes[rec], np.ones(rec.size), rec, dom[rec], np.ones(rec.size),
                                np.repeat(np.arange(D, dtype=np.int64), K))
        present = np.unique(codes[codes >= 0])
        if est.categories is not None:
            unknown = [c for c in est.categories if c not in set(labels)]
            if unknown:
                shown = ", ".join(map(repr, list(labels)[:8])) + (", ..." if len(labels) > 8 else "")
                raise InputError(f"the estimate {est.label} asks for the category {unknown[0]!r}, which {est.variable!r} "
                                 f"does not have in either file; its categories are {shown}.")
            present = np.array([i for i in present if labels[i] in est.categories], dtype=np.int64)
        columns = (np.arange(D)[:, None] * K + present[None, :]).reshape(-1)
        n = np.bincount(dom[rec], minlength=D)
        records = np.bincount(dom[rec] * K + codes[rec], minlength=D * K)[columns]  # unweighted, per category
        return contrib, ([labels[i] for i in present], columns, records), n, 0
    y, scale = scaled_values(data.numeric(est.variable))
    valid = ~np.isnan(y) & (dom >= 0)
    b = np.ones(data.n)
    if est.statistic == "ratio":
        b, b_scale = scaled_values(data.numeric(est.denominator))
        scale -= b_scale
        valid &= ~np.isnan(b)
    rec = np.flatnonzero(valid)
    contrib = Contributions(rec, dom[rec], y[rec], rec, dom[rec], b[rec], np.arange(D, dtype=np.int64),
                            total=est.statistic == "total", aligned=True)
    return contrib, None, np.bincount(dom[rec], minlength=D), scale


def off_mode(y: np.ndarray, dom: np.ndarray, size: int) -> np.ndarray:
    """Per domain, the records whose value ``y`` is not the domain's most common value (unweighted).

    Safe mode withholds a mean or total over a domain where 1 to ``min_cell`` − 1
    records hold another value: with the common value and n known, it would give
    those few records' total.

    >>> off_mode(np.array([0.0, 0.0, 0.0, 5.0, 1.0, 2.0]), np.array([0, 0, 0, 0, 1, 1]), 3).tolist()
    [1, 1, 0]
    """
    if y.size == 0:
        return np.zeros(size, dtype=np.int64)
    _, code = np.unique(y, return_inverse=True)
    pairs, counts = np.unique(dom.astype(np.int64) * (int(code.max()) + 1) + code.reshape(-1), return_counts=True)
    owner = pairs // (int(code.max()) + 1)  # sorted, so each domain's pairs are one run
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    most = np.zeros(size, dtype=np.int64)
    most[owner[starts]] = np.maximum.reduceat(counts, starts)
    return np.bincount(dom, minlength=size).astype(np.int64) - most


# ---------------------------------------------------------------------------
# laeken's indicators and quantiles
# ---------------------------------------------------------------------------
def _indicator_block(data: FileData, est: Estimate, known: dict, tasks: list) -> _Block:
    domains = data.domains(est.by)
    task = _indicator_task(data, est.variable, est.by, domains, known, tasks)
    statistic = "quantile" if est.statistic in ("quantile", "median") else est.statistic
    p = est.p if statistic in ("quantile", "arpr") else None
    if statistic == "arpr" and est.by and not task.covers_all:
        task.overall = _indicator_task(data, est.variable, (), data.domains(()), known, tasks)
    task.want(statistic, p)
    key = (statistic, p)
    block = _Block(est, domains.labels, None, np.full(domains.size, np.nan), task.counts.copy(), "bootstrap")
    block.boot = (tasks.index(task), key)
    block.scale = task.scale if statistic == "quantile" else 0  # Gini, QSR and ARPR do not depend on the scale
    if statistic == "quantile":
        x = data.numeric(est.variable)
        valid = ~np.isnan(x) & (domains.codes >= 0)
        x, dom = x[valid], domains.codes[valid]
        order = np.lexsort((x, dom))
        block.tail_values = (x[order], np.searchsorted(dom[order], np.arange(domains.size + 1)))
    if statistic in ("gini", "qsr"):  # shares of the total: with few records away from the common value, theirs
        valid = ~np.isnan(task.x) & (task.domain >= 0)
        block.off_mode = off_mode(task.x[valid], task.domain[valid], domains.size)
    return block


def _indicator_task(data: FileData, variable: str, by: tuple, domains: Domains, known: dict,
                    tasks: list) -> bootstrap.IndicatorTask:
    if (variable, by) not in known:
        values, scale = scaled_values(data.numeric(variable))
        task = bootstrap.IndicatorTask(values, data.design.weights, domains.codes, domains.size)
        task.scale = scale
        known[(variable, by)] = task
        tasks.append(task)
    return known[(variable, by)]


# ---------------------------------------------------------------------------
# rows
# ---------------------------------------------------------------------------
def _rows(block: _Block, results: list, level: float, replicates: int) -> list[dict[str, Any]]:
    value = block.value
    failed = None
    if block.boot is not None:
        index, key = block.boot
        reps = results[index] if key is None else results[index][key]
        if block.columns is not None:
            reps = reps[:, block.columns]
        se, lower, upper, failed = bootstrap.summarise(reps, level)
        groups = _seed_groups(reps, level, replicates)
    else:
        groups = None
        # here only: importing scipy.stats takes about 0.5 s (listing the measures needs none)
        from scipy import stats

        z = float(stats.norm.ppf(0.5 + level / 2))
        se = block.se[block.columns] if block.columns is not None else block.se
        lower, upper = value[block.columns] if block.columns is not None else value, None
        lower, upper = lower - z * se, lower + z * se
    if block.columns is not None:
        value = value[block.columns]
    beyond = None
    if block.scale:
        finite = np.isfinite(value)
        value, se, lower, upper = (unscale(np.asarray(a, dtype=float), block.scale) for a in (value, se, lower, upper))
        beyond = finite & ~np.isfinite(value)
        if groups is not None:
            groups = [tuple(unscale(np.asarray(b, dtype=float), block.scale) for b in g) for g in groups]
    # a standard error at rounding level (a constant value: sums of squares cancel to ~1e-16) is zero
    tiny = np.abs(se) <= ZERO_SE * np.abs(value)
    se, lower, upper = np.where(tiny, 0.0, se), np.where(tiny, value, lower), np.where(tiny, value, upper)
    rows = _make_rows(block, value, se, lower, upper, failed, replicates, level)
    for j in np.flatnonzero(beyond) if beyond is not None else ():
        rows[j]["value"] = rows[j]["se"] = rows[j]["lower"] = rows[j]["upper"] = None
        rows[j]["note"] = too_large(f"the {block.est.statistic}", [block.est.variable])
    if groups is not None:
        for j, row in enumerate(rows):
            if row["lower"] is not None:
                row["_groups"] = [[_num(g[0][j]), _num(g[1][j])] for g in groups]
    return rows


def _records_beyond(tail: tuple[np.ndarray, np.ndarray], d: int, value: float, lower: float,
                    upper: float) -> dict[str, int]:
    """A quantile's records beyond it in domain ``d``: ``n_beyond``, the fewer of those below and above the
    estimate, and ``n_beyond_interval``, the fewer of those below the lower and above the upper bound (unweighted;
    safe mode withholds what fewer than ``min_cell`` records lie beyond, and never publishes these counts).
    With weights ``min(p, 1 − p) · n`` does not bound them: one heavy record can be the 2 % quantile."""
    x = tail[0][tail[1][d] : tail[1][d + 1]]  # the domain's values, sorted

    def below(v: float) -> int:
        return int(np.searchsorted(x, v, side="left"))

    def above(v: float) -> int:
        return int(x.shape[0] - np.searchsorted(x, v, side="right"))

    out = {}
    if np.isfinite(value):
        out["n_beyond"] = min(below(value), above(value))
    if np.isfinite(lower) and np.isfinite(upper):
        out["n_beyond_interval"] = min(below(lower), above(upper))
    return out


def _seed_groups(reps: np.ndarray, level: float, replicates: int) -> list | None:
    """The intervals of ``SEED_GROUPS`` independent bootstraps: the replicates r ≡ g (mod SEED_GROUPS), each
    with its own seeds, so that the spread of the comparison over seeds can be reported."""
    if replicates < SEED_GROUPS * 20:
        return None
    return [bootstrap.summarise(reps[g::SEED_GROUPS], level)[1:3] for g in range(SEED_GROUPS)]


def _make_rows(block: _Block, value: np.ndarray, se: np.ndarray, lower: np.ndarray, upper: np.ndarray,
               failed: np.ndarray | None, replicates: int, level: float) -> list[dict[str, Any]]:
    est = block.est
    rows = []
    cats = block.categories
    for j in range(value.shape[0]):
        d = j // len(cats) if cats is not None else j
        row = {
            "key": _key(est.label, block.domains[d], cats[j % len(cats)] if cats is not None else None),
            "estimate": est.label,
            "statistic": est.statistic,
            "variable": est.variable,
            "domain": block.domains[d],
            "category": cats[j % len(cats)] if cats is not None else None,
            "value": _num(value[j]),
            "se": _num(se[j]),
            "lower": _num(lower[j]),
            "upper": _num(upper[j]),
            "n": int(block.n[d]),
            "method": block.method,
        }
        if block.category_n is not None:
            row["n_category"] = int(block.category_n[j])
        if block.off_mode is not None:
            row["off_mode"] = int(block.off_mode[d])
        if block.tail_values is not None:
            row.update(_records_beyond(block.tail_values, d, value[j], lower[j], upper[j]))
        undefined = 0 if block.undefined is None else int(block.undefined[d])
        note = _note(row, None if failed is None else int(failed[j]), undefined, replicates, level)
        if note:
            row["note"] = note
        if row["se"] is None:
            row["lower"] = row["upper"] = None
        rows.append(row)
    return rows


def _note(row: dict, failed: int | None, undefined: int, replicates: int, level: float) -> str:
    """Why a value, standard error or interval is missing, or a caveat; ``failed`` counts the replicates
    left out (NaN), ``undefined`` those of them that had records but an undefined Gini or QSR."""
    if row["n"] == 0:
        row["value"] = row["se"] = None
        return "no record of this domain has the variable observed"
    if row["value"] is None:
        row["se"] = None  # no interval around an undefined value
        why = UNDEFINED.get(row["statistic"], "the estimate is undefined (its denominator is 0)")
        return why.format(v=row["variable"])
    if row["n"] < 2:
        row["se"] = None
        return "a single record: no standard error or confidence interval"
    if undefined > (1 - level) / 2 * replicates:
        row["se"] = None
        why = UNDEFINED_REPLICATES[row["statistic"]].format(v=row["variable"])
        return (f"{undefined} of {replicates} bootstrap replicates {why}, more than the interval's tail of "
                f"{100 * (1 - level) / 2:g} %, so no standard error or interval is given")
    if row["se"] is None:
        return "the standard error could not be computed"
    notes = []
    if failed and failed > undefined:
        notes.append(f"{failed - undefined} of {replicates} bootstrap replicates had no record of this domain and "
                     "were left out")
    if undefined:
        why = UNDEFINED_REPLICATES[row["statistic"]].format(v=row["variable"])
        notes.append(f"{undefined} of {replicates} bootstrap replicates {why} and were left out")
    if row["upper"] is not None and row["lower"] is not None and row["upper"] - row["lower"] <= 0:
        notes.append("zero-width confidence interval (the value does not vary in the data)")
    return "; ".join(notes)


def _key(label: str, domain: str, category: str | None) -> str:
    return f"{label} | {domain}" + (f" | {category}" if category is not None else "")


def scaled_values(x: np.ndarray) -> tuple[np.ndarray, int]:
    """``x`` times ``2**-e`` and ``e`` (0, and ``x`` itself, for values between about 1e-120 and 1e120).

    Means, totals, ratios and quantiles scale with the values and their
    standard errors with them; scaling by a power of two is exact, so the
    estimates of ordinary data are the same to the bit and those of values
    near the float64 limit (whose squares overflow) are finite.
    """
    e = safe_exponent(x)
    return (scaled(x, e), e) if e else (x, 0)


def _num(x: Any) -> float | None:
    x = float(x)
    return x if np.isfinite(x) else None
