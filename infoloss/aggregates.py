"""Aggregated, plot-ready data of one original/protected pair for the HTML report.

:func:`summarise` reduces the encoded pair to what the report draws:
histograms of the continuous variables on a common grid, kernel density
estimates evaluated on that grid, quantiles for box plots, one-way tables of
the categorical variables and two-way tables of the key-variable pairs.  The
report never sees a record: everything here is a count, a quantile or a
summary statistic, computed at full detail.  The safe-to-share mode
(``Report.to_html(safe=True)``) is applied later, at render time, by merging
small bins and cells and rounding the numbers (see ``infoloss.report.safe``).

Counts are unweighted numbers of records (the safe mode's minimum cell size
is a number of records); the weighted estimates are in the measures and the
descriptive statistics.
"""

from __future__ import annotations

import math
import weakref
from typing import Any

import numpy as np

from . import numeric
from .pair import ORIGINAL, PROTECTED, EncodedPair, Levels

#: quantiles kept for box plots (the 5th/95th are the safe mode's whiskers)
QUANTILES = (0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99)
#: the common grid of a continuous variable spans these quantiles of the original, widened by GRID_MARGIN
GRID_QUANTILES = (0.005, 0.995)
GRID_MARGIN = 0.05
#: number of fine histogram bins on the grid (the report merges them into 40, 20, ... display bins)
FINE_BINS = 400
#: bars of the report's histograms (FINE_BINS is a multiple of it: each bar sums FINE_BINS / DISPLAY_BARS bins)
DISPLAY_BARS = 40
#: at most this many outliers per side are kept (evenly spaced by rank) for box plots of the full report
MAX_OUTLIERS = 40
#: two-way tables are kept for at most this many categorical key variables (pairs: n(n-1)/2)
MAX_PAIR_VARIABLES = 12
#: two-way tables with more cells than this are not kept
MAX_PAIR_CELLS = 40_000

#: safe mode's grid: its ends have at least this many records at or beyond them (a report with a larger
#: min_cell draws no histogram when the common grid's ends have fewer)
SAFE_TAIL = 10

_PROBS = tuple(sorted(set(QUANTILES) | set(GRID_QUANTILES)))

# Summaries of original arrays, shared by the scenarios of one compare() run:
# the pairs share the original's arrays, so they are keyed by the array's id
# and dropped when the array is garbage-collected.
_ORIGINAL_CACHE: dict[tuple, Any] = {}


def summarise(pair: EncodedPair) -> dict[str, Any]:
    """Aggregate a pair into the data the HTML report draws.

    Parameters
    ----------
    pair : EncodedPair
        The encoded original and protected files.

    Returns
    -------
    dict
        ``{"n_orig", "n_prot", "paired", "quantile_probs", "fine_bins",
        "variables": {name: ...}, "pairs": {"A|B": ...}, "pair_variables",
        "pair_source", "notes"}``.  A continuous variable has ``grid``
        (bin edges), ``hist`` (fine-bin counts plus counts ``below`` and
        ``above`` the grid), ``density`` (Gaussian kernel density on the bin
        centres) and ``stats`` (n, missing, mean, sd, min, max, quantiles,
        Tukey whiskers and a few outliers) for ``orig`` and ``prot``.  A
        categorical variable has its ``categories`` and the one-way tables
        ``orig``/``prot`` (last cell: missing).  Arrays are numpy arrays;
        ``prot`` is None for a variable removed from the protected file.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.pair import encode_pair
    >>> orig = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "g": ["a", "b", "a", "b"]})
    >>> prot = pd.DataFrame({"x": [1.0, 2.0, 3.0, 9.0], "g": ["a", "a", "a", None]})
    >>> spec = {"variables": {"x": {"scale": "continuous"}, "g": {"scale": "nominal", "role": "key"}}}
    >>> agg = summarise(encode_pair(orig, prot, spec))
    >>> agg["variables"]["g"]["categories"], agg["variables"]["g"]["orig"].tolist(), agg["variables"]["g"]["prot"].tolist()
    (['a', 'b'], [2, 2, 0], [3, 0, 1])
    >>> agg["variables"]["x"]["stats"]["orig"]["quantiles"][3]  # the median
    2.5
    """
    variables: dict[str, Any] = {}
    notes: list[str] = []
    continuous = _all_continuous(pair)
    for var in pair.variables:
        name = var.name
        if name in pair.continuous:
            variables[name] = continuous[name]
        elif name in pair.categorical:
            variables[name] = _categorical(pair, name)
        else:  # pragma: no cover - every analysed variable is one or the other
            continue
        variables[name]["scale"] = var.scale
        variables[name]["role"] = var.role
        variables[name]["removed"] = bool(var.removed)
    pair_vars, source = _pair_variables(pair)
    pairs: dict[str, Any] = {}
    for i, a in enumerate(pair_vars):
        for b in pair_vars[i + 1 :]:
            shape = (pair.categorical[a].n_categories + 1) * (pair.categorical[b].n_categories + 1)
            if shape > MAX_PAIR_CELLS:
                notes.append(f"the two-way table {a} × {b} has {shape} cells and is not drawn")
                continue
            pairs[f"{a}|{b}"] = {
                "a": a,
                "b": b,
                "orig": np.asarray(pair.table((a, b), ORIGINAL), dtype=np.int64),
                "prot": np.asarray(pair.table((a, b), PROTECTED), dtype=np.int64),
            }
    return {
        "n_orig": int(pair.n_orig),
        "n_prot": int(pair.n_prot),
        "paired": bool(pair.paired),
        "weighted": False,
        "quantile_probs": list(QUANTILES),
        "fine_bins": FINE_BINS,
        "variables": variables,
        "pairs": pairs,
        "pair_variables": pair_vars,
        "pair_source": source,
        "notes": notes,
    }


# ---------------------------------------------------------------------------
# continuous variables
# ---------------------------------------------------------------------------
def _all_continuous(pair: EncodedPair) -> dict[str, dict[str, Any]]:
    """:func:`_continuous` of every continuous variable, two variables at a time in two threads (the
    sorts, sums and counts are numpy work that releases the GIL; no BLAS here)."""
    from concurrent.futures import ThreadPoolExecutor

    names = [v.name for v in pair.variables if v.name in pair.continuous]
    pair.warm_levels(names)  # the sorted levels the KS and GDU measures share, if not made yet
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(names, pool.map(lambda name: _continuous(pair, name), names)))


def _continuous(pair: EncodedPair, name: str) -> dict[str, Any]:
    col = pair.continuous[name]
    pair.warm_levels([name])  # the sorted levels the KS and GDU measures share: quantiles without a sort
    orig = _original_summary(col.orig, pair.levels(name, ORIGINAL))
    edges = orig["edges"]
    out: dict[str, Any] = {
        "kind": "continuous",
        "grid": edges,
        "stats": {"orig": orig["stats"], "prot": None},
        "hist": {"orig": orig["hist"], "prot": None},
        "density": {"x": (0.5 * edges[:-1] + 0.5 * edges[1:]) if edges is not None else None, "orig": orig["density"], "prot": None},
    }
    if edges is None and orig["stats"]["n"]:
        out["not_drawn"] = (
            f"{name} is not drawn: its values reach {max(abs(orig['stats']['min']), abs(orig['stats']['max'])):.3g}, "
            "beyond what the charts scale (about 1e-120 to 1e120); the measures and statistics use them"
        )
    if col.prot is not None:
        prot = _summary(col.prot, edges, levels=pair.levels(name, PROTECTED))
        out["stats"]["prot"] = prot["stats"]
        out["hist"]["prot"] = prot["hist"]
        out["density"]["prot"] = prot["density"]
    if edges is not None and orig["stats"]["n"]:
        out["axis_tail"] = grid_tail(orig["stats"])
        out["safe_axis"] = _safe_axis(col, orig["stats"], out["stats"]["prot"]) if out["axis_tail"] < SAFE_TAIL else None
    return out


def grid_tail(stats: dict[str, Any]) -> int:
    """The fewest records at or beyond an end of the common grid's span (the 0.5 %/99.5 % quantiles; 1 when
    it falls back to the minimum and maximum).

    >>> grid_tail({"n": 300, "grid_quantiles": [1.0, 9.0]}), grid_tail({"n": 3000, "grid_quantiles": [1.0, 9.0]})
    (2, 15)
    >>> grid_tail({"n": 300, "grid_quantiles": [0.0, 0.0]})
    1
    """
    n = int(stats["n"])
    lo, hi = stats["grid_quantiles"]
    if hi <= lo:
        return 1
    below = math.floor((n - 1) * GRID_QUANTILES[0]) + 1
    above = n - math.floor((n - 1) * GRID_QUANTILES[1]) - 1
    return max(min(below, above), 0)


def _safe_axis(col: Any, orig_stats: dict[str, Any], prot_stats: dict[str, Any] | None) -> dict[str, Any] | None:
    """The grid of safe mode and its histograms: from the values with :data:`SAFE_TAIL` records at or beyond
    them (fewer when the file has fewer than 2 · SAFE_TAIL values: its median), never from the extremes."""
    tail, (lo, hi) = tail_values(col.orig, SAFE_TAIL)
    edges = _grid({"n": orig_stats["n"], "grid_quantiles": [lo, hi], "min": lo, "max": hi, "whole": orig_stats.get("whole")})
    if edges is None:
        return None
    sides = {"orig": _summary(col.orig, edges, orig_stats)}
    if col.prot is not None and prot_stats is not None:
        sides["prot"] = _summary(col.prot, edges, prot_stats)
    return {"tail": tail, "grid": edges, "hist": {k: v["hist"] for k, v in sides.items()},
            "density": {k: v["density"] for k, v in sides.items()}}


def tail_values(x: np.ndarray, tail: int) -> tuple[int, tuple[float, float]]:
    """The ``t``-th smallest and ``t``-th largest value of ``x`` (NaN left out), ``t`` = ``tail`` or less when
    ``x`` has fewer than 2 · ``tail`` values (then both are its lower median); returns ``(t, (low, high))``.

    >>> tail_values(np.array([5.0, 1.0, np.nan, 3.0, 9.0, 7.0]), 2)
    (2, (3.0, 7.0))
    """
    valid = x[~np.isnan(x)]
    n = valid.size
    t = min(tail, (n + 1) // 2)
    if n - t < t - 1:
        t = (n + 1) // 2
    part = np.partition(valid, sorted({t - 1, n - t}))
    lo, hi = float(part[t - 1]), float(part[n - t])
    return t, (min(lo, hi), max(lo, hi))


def _original_summary(x: np.ndarray, levels: Levels | None = None) -> dict[str, Any]:
    key = (id(x), x.shape, x.ctypes.data)
    hit = _ORIGINAL_CACHE.get(key)
    if hit is not None:
        return hit
    stats = _stats(x, levels)
    edges = _grid(stats)
    result = _summary(x, edges, stats)
    _ORIGINAL_CACHE[key] = result
    try:
        weakref.finalize(x, _ORIGINAL_CACHE.pop, key, None)
    except TypeError:  # pragma: no cover - arrays support weak references
        _ORIGINAL_CACHE.pop(key, None)
    return result


def _summary(x: np.ndarray, edges: np.ndarray | None, stats: dict[str, Any] | None = None,
             levels: Levels | None = None) -> dict[str, Any]:
    stats = _stats(x, levels) if stats is None else stats
    if edges is None or stats["n"] == 0:
        return {"stats": stats, "edges": edges, "hist": None, "density": None}
    hist = histogram(x, edges)
    density = binned_kde(hist["counts"], edges, bandwidth(stats), stats["n"])
    return {"stats": stats, "edges": edges, "hist": hist, "density": density}


def _stats(x: np.ndarray, levels: Levels | None = None) -> dict[str, Any]:
    """Summary statistics; values beyond about 1e120 (or below 1e-120) are summarised scaled, exactly.

    ``levels``: the pair's sorted levels of ``x`` (quantiles, extremes and
    outliers are then read from them instead of partitioning a copy).
    """
    ok = ~np.isnan(x)
    valid = x[ok]
    n = int(valid.size)
    out: dict[str, Any] = {"n": n, "missing": int(x.size - n)}
    if n == 0:
        return out
    e = numeric.safe_exponent(valid)
    distinct = levels.values if levels is not None else valid
    out["whole"] = bool(not e and np.all(np.floor(distinct) == distinct))  # whole numbers: bars of whole widths
    # records away from the most common value: safe mode shows no mean of a variable with a few (plotdata.box_stats)
    counts = levels.counts if levels is not None else np.unique(valid, return_counts=True)[1]
    out["off_mode"] = int(n - counts.max())
    if levels is not None:
        order = (numeric.scaled(levels.values, e) if e else levels.values, levels.counts)
        out = _valid_stats(numeric.scaled(valid, e) if e else valid, out, order)
        return _unscaled_stats(out, e) if e else out
    if e:
        return _unscaled_stats(_valid_stats(numeric.scaled(valid, e), out), e)
    return _valid_stats(valid, out)


def _unscaled_stats(out: dict[str, Any], e: int) -> dict[str, Any]:
    """Statistics of values times ``2**-e`` back in the values' units (sd at most the largest float)."""

    def back(v: Any) -> Any:
        if isinstance(v, list):
            return [back(u) for u in v]
        return float(np.clip(numeric.unscale(v, e), -numeric.FLOAT_MAX, numeric.FLOAT_MAX))

    for key in ("mean", "sd", "min", "max", "quantiles", "grid_quantiles", "whiskers"):
        out[key] = back(out[key])
    out["outliers"]["low_values"] = back(out["outliers"]["low_values"])
    out["outliers"]["high_values"] = back(out["outliers"]["high_values"])
    return out


def _valid_stats(valid: np.ndarray, out: dict[str, Any], order: tuple | None = None) -> dict[str, Any]:
    """``order``: (sorted distinct values, counts) of ``valid``, when known."""
    n = int(valid.size)
    mean = float(np.mean(valid))
    sd = float(np.std(valid, ddof=1)) if n > 1 else 0.0
    if order is None:
        q = np.quantile(valid, _PROBS, overwrite_input=True)  # valid is our own copy
    else:
        q = quantiles_from_levels(order[0], order[1], np.array(_PROBS))
    quantiles = dict(zip(_PROBS, (float(v) for v in q)))
    q1, q3 = quantiles[0.25], quantiles[0.75]
    iqr = q3 - q1
    fence_lo, fence_hi = q1 - 1.5 * iqr, q3 + 1.5 * iqr
    if order is None:
        lo, hi = float(np.min(valid)), float(np.max(valid))
        low = np.sort(valid[valid < fence_lo])
        high = np.sort(valid[valid > fence_hi])
        whisker_lo = float(valid[valid >= fence_lo].min())
        whisker_hi = float(valid[valid <= fence_hi].max())
    else:
        values, counts = order
        lo, hi = float(values[0]), float(values[-1])
        i = int(np.searchsorted(values, fence_lo, side="left"))  # values[:i] < fence_lo
        j = int(np.searchsorted(values, fence_hi, side="right"))  # values[j:] > fence_hi
        low = np.repeat(values[:i], counts[:i])
        high = np.repeat(values[j:], counts[j:])
        whisker_lo, whisker_hi = float(values[i]), float(values[j - 1])
    out.update(
        mean=mean,
        sd=sd,
        min=lo,
        max=hi,
        quantiles=[quantiles[p] for p in QUANTILES],
        grid_quantiles=[quantiles[p] for p in GRID_QUANTILES],
        whiskers=[whisker_lo, whisker_hi],
        outliers={
            "low": int(low.size),
            "high": int(high.size),
            "low_values": _spread(low),
            "high_values": _spread(high),
        },
    )
    return out


def quantiles_from_levels(values: np.ndarray, counts: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """``np.quantile(x, probs)`` (its default "linear" method) from the sorted distinct values of ``x`` and
    their counts: the same virtual indexes and interpolation as numpy, order statistics read by binary search.

    >>> quantiles_from_levels(np.array([1.0, 2.0, 5.0]), np.array([2, 1, 1]), np.array([0.5, 0.9]))
    array([1.5, 4.1])
    """
    n = int(counts.sum())
    cum = np.cumsum(counts)
    virtual = (n - 1) * probs  # numpy's virtual index for the "linear" method
    previous = np.floor(virtual)
    gamma = virtual - previous
    k0 = np.clip(previous, 0, n - 1).astype(np.int64)
    k1 = np.clip(previous + 1, 0, n - 1).astype(np.int64)
    a = values[np.searchsorted(cum, k0, side="right")]  # the k-th smallest value (0-based)
    b = values[np.searchsorted(cum, k1, side="right")]
    diff = b - a
    out = a + diff * gamma
    return np.where(gamma >= 0.5, b - diff * (1 - gamma), out)  # numpy's _lerp


def _spread(values: np.ndarray) -> list[float]:
    """At most MAX_OUTLIERS values evenly spaced by rank, always keeping both ends."""
    if values.size <= MAX_OUTLIERS:
        return [float(v) for v in values]
    idx = np.unique(np.linspace(0, values.size - 1, MAX_OUTLIERS).round().astype(np.intp))
    return [float(v) for v in values[idx]]


def _grid(stats: dict[str, Any]) -> np.ndarray | None:
    """Bin edges from the original's 0.5% and 99.5% quantiles, widened and rounded to 2 significant digits.

    None when there are no values, or when the grid would reach beyond about ±1e120 (or be narrower than
    1e-120): such values are summarised but not drawn.
    """
    if stats["n"] == 0:
        return None
    lo, hi = stats["grid_quantiles"]
    if hi <= lo:
        lo, hi = stats["min"], stats["max"]
    if numeric.safe_exponent(np.array([lo, hi])):
        return None  # values beyond about 1e120 (or below 1e-120): not drawn (the report says so)
    if hi <= lo:
        half = max(abs(lo) * 0.05, 0.5)
        lo, hi = lo - half, hi + half
    margin = GRID_MARGIN * (hi - lo)
    lo, hi = lo - margin, hi + margin
    if stats.get("whole") and hi - lo >= 1:
        # whole numbers: bars of a whole width from a half, so that no bar falls between two values (drawn empty)
        start = math.floor(lo) - 0.5
        width = math.ceil((hi - start) / DISPLAY_BARS)
        return np.linspace(start, start + width * DISPLAY_BARS, FINE_BINS + 1)
    step = 10.0 ** (math.floor(math.log10(hi - lo)) - 1)
    lo, hi = math.floor(lo / step) * step, math.ceil(hi / step) * step
    return np.linspace(lo, hi, FINE_BINS + 1)


def histogram(x: np.ndarray, edges: np.ndarray) -> dict[str, Any]:
    """Counts of ``x`` in equal-width bins ``edges`` (right edge of the last bin included), plus below/above counts.

    Examples
    --------
    >>> import numpy as np
    >>> h = histogram(np.array([0.0, 0.5, 1.0, 2.0, -1.0, np.nan]), np.array([0.0, 1.0, 2.0]))
    >>> h["counts"].tolist(), h["below"], h["above"]
    ([2, 2], 1, 0)
    """
    lo, hi = float(edges[0]), float(edges[-1])
    bins = edges.size - 1
    inside = (x >= lo) & (x <= hi)
    below, above = int(np.count_nonzero(x < lo)), int(np.count_nonzero(x > hi))
    e = numeric.safe_exponent(edges)  # near 1e308, x - lo can overflow: exact scaling keeps it finite
    xs = x[inside]
    if e:
        xs, lo, hi = numeric.scaled(xs, e), numeric.unscale(lo, -e), numeric.unscale(hi, -e)
    pos = (xs - lo) * (bins / (hi - lo))
    idx = np.clip(np.nan_to_num(pos, nan=0.0), 0, bins - 1).astype(np.intp)
    counts = np.bincount(idx, minlength=bins).astype(np.int64)
    return {"counts": counts, "below": below, "above": above}


def bandwidth(stats: dict[str, Any]) -> float:
    """Silverman's rule of thumb, 0.9·min(sd, IQR/1.34)·n^(-1/5) (R's ``bw.nrd0``)."""
    n = stats["n"]
    if n < 2:
        return 0.0
    q = dict(zip(QUANTILES, stats["quantiles"]))
    iqr = q[0.75] - q[0.25]
    spread = min(stats["sd"], iqr / 1.34) if iqr > 0 else stats["sd"]
    if spread <= 0:
        spread = abs(stats["mean"]) or 1.0
    return 0.9 * spread * n ** (-0.2)


def binned_kde(counts: np.ndarray, edges: np.ndarray, h: float, n: int) -> np.ndarray | None:
    """Gaussian kernel density on the bin centres from binned counts (normalised by ``n`` records).

    The mass outside the grid is not drawn, so the curve integrates to the
    share of records inside it.

    Examples
    --------
    >>> import numpy as np
    >>> d = binned_kde(np.array([0, 0, 10, 0, 0]), np.linspace(0, 5, 6), 1.0, 10)
    >>> round(float(d[2]), 4)  # 1/sqrt(2*pi): the kernel's peak
    0.3989
    >>> # a bandwidth near the float limit (4 h overflows): a flat kernel over 2 * 5 + 1 cells, 1/11 in each
    >>> round(float(binned_kde(np.array([0, 0, 10, 0, 0]), np.linspace(0, 5, 6), 1e308, 10).max()), 4)
    0.0909
    """
    if n <= 0 or h <= 0:
        return None
    width = float(edges[1] - edges[0])
    hb = float(h) / width if width > 0 else math.inf
    if not math.isfinite(hb):  # bins narrower than the float range resolves (denormal data): not drawable
        return None
    half = counts.size if 4 * hb >= counts.size else math.ceil(4 * hb)  # 4 hb may overflow to inf: no ceil of it
    offsets = np.arange(-half, half + 1)
    with np.errstate(over="ignore", under="ignore"):  # a bandwidth far below a bin: exp(-inf) = 0, one cell
        kernel = np.exp(-0.5 * (offsets / hb) ** 2) if hb > 0 else (offsets == 0).astype(float)
    kernel /= kernel.sum()
    full = np.convolve(counts.astype(float), kernel, mode="full")  # kernel centred: drop `half` cells each side
    with np.errstate(over="ignore"):
        density = full[half : half + counts.size] / (n * width)
    return density if np.isfinite(density).all() else None  # bins narrower than 1e-308: not drawable


# ---------------------------------------------------------------------------
# categorical variables
# ---------------------------------------------------------------------------
def _categorical(pair: EncodedPair, name: str) -> dict[str, Any]:
    col = pair.categorical[name]
    orig = np.asarray(pair.table(name, ORIGINAL), dtype=np.int64)
    out = {
        "kind": "categorical",
        "categories": list(col.categories),
        "orig": orig,
        "prot": np.asarray(pair.table(name, PROTECTED), dtype=np.int64) if col.prot is not None else None,
    }
    hierarchy = _declared_hierarchy(pair, name)
    if hierarchy is not None:  # the protected files' generalised values, with their level (the report's mosaics)
        from .generalised import generalised_categories

        out["generalised"] = generalised_categories(out["categories"], orig, hierarchy)
    return out


def _declared_hierarchy(pair: EncodedPair, name: str) -> Any:
    """The variable's hierarchy from the spec (``hierarchy:``) as the pair built it, or None."""
    column = (getattr(pair, "generalised", None) or {}).get(name)
    return column.hierarchy if column is not None and column.declared else None


def _pair_variables(pair: EncodedPair) -> tuple[list[str], str]:
    """The categorical variables whose two-way tables are kept: the keys, else all categorical ones."""
    categorical = [n for n in pair.categorical_names if n in pair.categorical]
    keys = [v.name for v in pair.variables if v.role == "key" and v.name in categorical]
    if len(keys) >= 2:
        return keys[:MAX_PAIR_VARIABLES], "key"
    return categorical[:MAX_PAIR_VARIABLES], "categorical"
