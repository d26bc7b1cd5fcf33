"""Plot-ready numbers from the aggregates, with the safe-to-share rules applied.

Everything the variable plots draw passes through here: histogram bins on
the common grid, density curves, box-plot statistics and (one- and two-way)
category counts.  With ``safe=True`` the rules of :mod:`infoloss.report.safe`
apply: no bin or cell below ``min_cell`` records, box plots without extremes
or outliers, and rounded statistics.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from ..aggregates import DISPLAY_BARS, QUANTILES, bandwidth, binned_kde
from .safe import hide_smallest_in_line, merge_bins, round_sig

#: histogram bars drawn per variable (the fine bins are merged into these)
DISPLAY_BINS = DISPLAY_BARS
#: points per density curve
CURVE_POINTS = 50
#: a mosaic shows at most this many categories; the rest are grouped
MAX_SEGMENTS = 14

Bin = tuple[float, float, float, int]  # (left, right, density, count)


@dataclass
class Policy:
    """How much detail the page may show."""

    safe: bool = False
    min_cell: int = 5
    #: family weights of the overall score (None: by the variables each family covers)
    weights: dict[str, float] | None = None
    #: work shared by the sections of one page (scores, losses), filled by :meth:`cached`
    cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def cached(self, key: str, compute: Callable[[], Any]) -> Any:
        """``compute()`` once per page."""
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]

    def count_text(self, n: float | None) -> str:
        """A count as it may be printed: safe mode writes small ones as "fewer than N"."""
        from .numbers import count

        if n is None:
            return "–"
        return count(n) if self.count_ok(int(round(n))) else f"fewer than {self.min_cell}"

    def count_ok(self, n: int) -> bool:
        """Whether a count may be printed: always in full mode, else 0 or at least ``min_cell``."""
        return not self.safe or n == 0 or n >= self.min_cell

    def number(self, x: float | None, digits: int = 3) -> float | None:
        """A statistic of the data as it may be shown (rounded in safe mode)."""
        return round_sig(x, digits) if self.safe else x


# ---------------------------------------------------------------------------
# continuous variables
# ---------------------------------------------------------------------------
def display_bins(hist: dict[str, Any] | None, edges: np.ndarray, n: int, policy: Policy) -> list[Bin]:
    """Histogram bars ``(left, right, density, count)`` on the common grid.

    The fine bins are summed into :data:`DISPLAY_BINS` bars; in safe mode
    the records below and above the axis are first counted into the first
    and last bar (so the bars add up to every record with a value and no
    count outside the axis can be had by subtraction), then adjacent bars
    are merged until each has 0 or at least ``min_cell`` records.  Heights
    are densities (count / (n · width)), so merged bars keep the shape.

    >>> import numpy as np
    >>> edges = np.linspace(0, 4, 5)
    >>> hist = {"counts": np.array([6, 1, 0, 5])}
    >>> [b[3] for b in display_bins(hist, edges, 12, Policy())]
    [6, 1, 0, 5]
    >>> [(b[0], b[1], b[3]) for b in display_bins(hist, edges, 12, Policy(safe=True))]
    [(0.0, 1.0, 6), (1.0, 4.0, 6)]
    >>> hist = {"counts": np.array([6, 1, 0, 5]), "below": 0, "above": 2}
    >>> [(b[0], b[1], b[3]) for b in display_bins(hist, edges, 14, Policy(safe=True))]  # 2 above: in the last bar
    [(0.0, 1.0, 6), (1.0, 4.0, 8)]
    """
    if hist is None or n <= 0:
        return []
    counts = _coarsen(np.asarray(hist["counts"]), DISPLAY_BINS)
    if policy.safe and counts.size:
        counts = counts.copy()
        counts[0] += int(hist.get("below", 0) or 0)
        counts[-1] += int(hist.get("above", 0) or 0)
    coarse_edges = np.linspace(float(edges[0]), float(edges[-1]), counts.size + 1)
    groups = merge_bins(counts, policy.min_cell) if policy.safe else [(i, i + 1, int(c)) for i, c in enumerate(counts)]
    out = []
    for first, last, count in groups:
        left, right = float(coarse_edges[first]), float(coarse_edges[last])
        out.append((left, right, count / (n * (right - left)), int(count)))
    return out


def _coarsen(counts: np.ndarray, target: int) -> np.ndarray:
    """Sum consecutive fine bins into ``target`` bins (when the fine count is a multiple of it)."""
    if counts.size <= target or counts.size % target:
        return counts.astype(np.int64)
    return counts.reshape(target, -1).sum(axis=1)


def density_curve(side: dict[str, Any], bins: Sequence[Bin], edges: np.ndarray, policy: Policy,
                  density: np.ndarray | None) -> list[tuple[float, float]]:
    """The kernel density curve to draw, as ``CURVE_POINTS`` (x, y) points.

    Full mode uses the density from the fine bins.  Safe mode recomputes it
    from the merged bars (each bar's records spread evenly over its width),
    so that no small group of records shows as a bump.
    """
    stats = side["stats"]
    if not stats or stats.get("n", 0) < 2 or (policy.safe and stats["n"] < policy.min_cell):
        return []
    fine = edges.size - 1
    if policy.safe:
        spread = np.zeros(fine)
        width = (float(edges[-1]) - float(edges[0])) / fine
        for left, right, _, count in bins:
            i0 = int(round((left - float(edges[0])) / width))
            i1 = max(int(round((right - float(edges[0])) / width)), i0 + 1)
            spread[i0:i1] = count / (i1 - i0)
        density = binned_kde(spread, edges, bandwidth(stats), stats["n"])
    if density is None:
        return []
    centres = (0.5 * edges[:-1] + 0.5 * edges[1:])
    step = max(fine // CURVE_POINTS, 1)
    return [(float(x), float(y)) for x, y in zip(centres[::step], density[::step])]


def box_stats(stats: dict[str, Any] | None, policy: Policy) -> dict[str, Any] | None:
    """Box-plot numbers: quartiles, whiskers, outliers and mean.

    Full mode: Tukey whiskers (1.5 IQR) and a sample of the outliers.  Safe
    mode: whiskers at the 5th and 95th percentiles (the quartiles where fewer
    than ``min_cell`` records lie beyond them: :func:`whisker_probs`), no outliers, every number
    rounded to 3 significant digits, and nothing (None) for a file with
    fewer than ``min_cell`` records with a value (its quartiles would be its
    records' values; :func:`too_few` tells the caller) or with fewer than
    ``min_cell`` records beyond a quartile (:func:`thin_quartiles`).  The mean and sd are
    None in safe mode when 1 to ``min_cell`` − 1 records lie away from the
    most common value (:func:`concentrated`).
    """
    if not stats or stats.get("n", 0) == 0 or too_few(stats, policy) or thin_quartiles(stats, policy):
        return None
    q = dict(zip(QUANTILES, stats["quantiles"]))
    if policy.safe:
        low, high = whisker_probs(int(stats["n"]), policy)
        whiskers = [q[low], q[high]]
        outliers: list[float] = []
    else:
        whiskers = list(stats["whiskers"])
        outliers = list(stats["outliers"]["low_values"]) + list(stats["outliers"]["high_values"])
    r = policy.number
    hide = concentrated(stats, policy)
    return {
        "q1": r(q[0.25]),
        "median": r(q[0.5]),
        "q3": r(q[0.75]),
        "whiskers": [r(whiskers[0]), r(whiskers[1])],
        "outliers": outliers,
        "mean": None if hide else r(stats.get("mean")),
        "sd": None if hide else r(stats.get("sd")),
        "n": stats["n"],
        "missing": stats.get("missing", 0),
    }


def whisker_probs(n: int, policy: Policy) -> tuple[float, float]:
    """Safe mode's whisker quantiles: the 5th and 95th percentiles, or the quartile on a side where fewer than
    ``min_cell`` records lie at or beyond the percentile's lower (upper) order statistic.

    >>> whisker_probs(60, Policy(safe=True)), whisker_probs(100, Policy(safe=True)), whisker_probs(300, Policy(safe=True))
    ((0.25, 0.75), (0.05, 0.95), (0.05, 0.95))
    """
    low = 0.05 if _at_or_below(n, 0.05) >= policy.min_cell else 0.25
    high = 0.95 if _at_or_above(n, 0.95) >= policy.min_cell else 0.75
    return low, high


def _at_or_below(n: int, p: float) -> int:
    """The records at or below the lower order statistic that the ``p`` quantile of ``n`` values interpolates from."""
    return math.floor((n - 1) * p) + 1


def _at_or_above(n: int, p: float) -> int:
    """The records at or above the upper order statistic that the ``p`` quantile of ``n`` values interpolates from."""
    return n - math.floor((n - 1) * p) - 1


def thin_quartiles(stats: dict[str, Any] | None, policy: Policy) -> bool:
    """Safe mode: whether fewer than ``min_cell`` records lie beyond a quartile (fewer than about 4 · min_cell records).

    Such quartiles are the values of the few records beyond them, give or take; the
    file gets no box plot (the rule of a quantile estimate in the tail, safe_results).

    >>> thin_quartiles({"n": 17}, Policy(safe=True)), thin_quartiles({"n": 18}, Policy(safe=True))
    (True, False)
    """
    n = int((stats or {}).get("n") or 0)
    return (policy.safe and n >= policy.min_cell
            and min(_at_or_below(n, 0.25), _at_or_above(n, 0.75)) < policy.min_cell)


def concentrated(stats: dict[str, Any] | None, policy: Policy) -> bool:
    """Safe mode: whether 1 to ``min_cell`` − 1 of a file's records hold a value other than the most common one.

    The mean times the records, less the most common value's share, would be
    those few records' total (an amount that is zero but for two records).

    >>> concentrated({"n": 30, "off_mode": 2}, Policy(safe=True)), concentrated({"n": 30, "off_mode": 2}, Policy())
    (True, False)
    """
    off = (stats or {}).get("off_mode") or 0
    return policy.safe and 0 < off < policy.min_cell


def too_few(stats: dict[str, Any] | None, policy: Policy) -> bool:
    """Safe mode: whether a file has a value of the variable in only 1 to ``min_cell`` − 1 records.

    Such a file's statistics, box plot, density and interval are not shown.

    >>> too_few({"n": 3}, Policy(safe=True)), too_few({"n": 3}, Policy()), too_few({"n": 0}, Policy(safe=True))
    (True, False, False)
    """
    n = (stats or {}).get("n") or 0
    return policy.safe and 0 < n < policy.min_cell


def outside_text(hist: dict[str, Any] | None, policy: Policy) -> str:
    """'12 below, 3 above the axis'; empty in safe mode, where those records are in the end bars
    (:func:`display_bins`)."""
    if hist is None or policy.safe:
        return ""
    parts = []
    for key in ("below", "above"):
        n = int(hist.get(key, 0))
        if n == 0:
            continue
        shown = f"{n:,}" if policy.count_ok(n) else f"fewer than {policy.min_cell}"
        parts.append(f"{shown} {key}")
    return ", ".join(parts)


# ---------------------------------------------------------------------------
# categorical variables
# ---------------------------------------------------------------------------
@dataclass
class Grouping:
    """Categories (last: missing) mapped to the segments a chart draws."""

    labels: list[str]
    index: np.ndarray  # category -> segment
    kinds: list[str]  # per segment: "category", "group", "generalised", "other", "missing"
    merged: list[str] = field(default_factory=list)  # safe mode: the categories merged into "other"
    merged_small: list[bool] = field(default_factory=list)  # per merged category: fewer than min_cell in the original (0 too)
    #: per "generalised" segment (by label): the hierarchy level of its values (None: not known)
    levels: dict[str, int | None] = field(default_factory=dict)

    def apply(self, counts: np.ndarray) -> np.ndarray:
        """Counts per segment."""
        return np.bincount(self.index, weights=counts, minlength=len(self.labels)).astype(np.int64)

    def apply2(self, table: np.ndarray, other: "Grouping") -> np.ndarray:
        """A two-way table with rows grouped by ``self`` and columns by ``other``."""
        rows = np.zeros((len(self.labels), table.shape[1]), dtype=np.int64)
        np.add.at(rows, self.index, table)
        out = np.zeros((len(self.labels), len(other.labels)), dtype=np.int64)
        np.add.at(out.T, other.index, rows.T)
        return out


def common_categories(aggs: Sequence[tuple[int, Any, dict]]) -> list[tuple[int, Any, dict]]:
    """Every scenario's categorical counts over one list of categories, so that one grouping draws them all.

    A scenario's aggregates list the categories of its own pair: the
    original's and those its protected file adds (a PRAM or recoding
    code).  The common list is the first scenario's categories followed by
    those only later scenarios hold; each scenario's one-way and two-way
    counts are spread over it (0 for a category it lacks; missing stays
    last).  ``aggs``: ``(index, scenario, aggregates)``.
    """
    union: dict[str, dict[str, None]] = {}
    for _, _, agg in aggs:
        for name, var in agg["variables"].items():
            if var.get("kind") == "categorical":
                union.setdefault(name, {}).update(dict.fromkeys(var["categories"]))
    common = {name: list(cats) for name, cats in union.items()}
    out = []
    for i, s, agg in aggs:
        moved = {name: _positions(var["categories"], common[name]) for name, var in agg["variables"].items()
                 if name in common and var["categories"] != common[name]}
        if not moved:
            out.append((i, s, agg))
            continue
        variables = dict(agg["variables"])
        for name, pos in moved.items():
            var = variables[name]
            n = len(common[name]) + 1
            variables[name] = {**var, "categories": common[name],
                               **{k: _spread(var[k], pos, n) for k in ("orig", "prot") if var.get(k) is not None}}
        pairs = {key: _spread_pair(t, moved, common) for key, t in agg.get("pairs", {}).items()}
        out.append((i, s, {**agg, "variables": variables, "pairs": pairs}))
    return out


def _positions(categories: Sequence[str], common: list[str]) -> np.ndarray:
    """Where each category (and missing, last) goes in the common list."""
    where = {c: k for k, c in enumerate(common)}
    return np.array([where[c] for c in categories] + [len(common)], dtype=np.int64)


def _spread(counts: Any, pos: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros(n, dtype=np.asarray(counts).dtype)
    out[pos] = np.asarray(counts)
    return out


def _spread_pair(table: dict, moved: dict[str, np.ndarray], common: dict[str, list[str]]) -> dict:
    a, b = table["a"], table["b"]
    if a not in moved and b not in moved:
        return table
    out = dict(table)
    for k in ("orig", "prot"):
        if table.get(k) is None:
            continue
        t = np.asarray(table[k])
        if a in moved:
            rows = np.zeros((len(common[a]) + 1, t.shape[1]), dtype=t.dtype)
            rows[moved[a]] = t
            t = rows
        if b in moved:
            cols = np.zeros((t.shape[0], len(common[b]) + 1), dtype=t.dtype)
            cols[:, moved[b]] = t
            t = cols
        out[k] = t
    return out


def category_grouping(categories: Sequence[str], tables: Sequence[np.ndarray], ordinal: bool,
                      policy: Policy, generalised: dict[str, int | None] | None = None) -> Grouping:
    """How the categories of one variable are drawn in every chart of the page.

    Many categories are grouped for readability: an ordinal variable into
    about :data:`MAX_SEGMENTS` consecutive ranges of equal size in the
    original, a nominal one into its largest categories plus "other
    categories".  ``generalised`` (category -> hierarchy level, None when not
    known) names the protected files' generalised values (a hierarchy's inner
    nodes, such as ``[30-40[`` or ``1*``): they are no original categories and
    are drawn as what they are, each its own segment of kind "generalised"
    (grouped per level, "N values generalised to level k", when there are
    many), never in "other categories".  In safe mode, categories with fewer than ``min_cell``
    records in any of ``tables`` (original and scenarios) are merged into
    "other (< N)", with more categories joining it until it has at least
    ``min_cell`` records in every table where it is not empty, and until no
    net flow between the original (``tables[0]``) and a scenario counts a few
    withheld records (:func:`infoloss.before_after.merge_jointly`, as the safe
    JSON's tables).

    >>> import numpy as np
    >>> g = category_grouping(["a", "b", "c"], [np.array([10, 3, 8, 0]), np.array([10, 4, 7, 0])], False,
    ...                       Policy(safe=True))
    >>> g.labels, g.apply(np.array([10, 3, 8, 0])).tolist()
    (['a', 'other (categories merged, min. cell 5)', 'missing'], [10, 11, 0])
    >>> g = category_grouping(["a", "b", "ab"], [np.array([10, 8, 0, 0]), np.array([0, 0, 18, 0])], False,
    ...                       Policy(), {"ab": 1})
    >>> g.labels, g.kinds, g.levels
    (['a', 'b', 'ab', 'missing'], ['category', 'category', 'generalised', 'missing'], {'ab': 1})
    """
    generalised = generalised or {}
    k = len(categories)
    labels = list(categories) + ["missing"]
    index = np.arange(k + 1)
    kinds = ["generalised" if str(c) in generalised else "category" for c in categories] + ["missing"]
    levels = {str(c): generalised[str(c)] for c in categories if str(c) in generalised}
    base = Grouping(labels, index, kinds, levels=levels)
    if policy.safe:
        base = _merge_small_jointly(base, tables, policy.min_cell)
    if len(base.labels) - 1 > MAX_SEGMENTS:
        merged, small = base.merged, base.merged_small
        base = _group_many(base, tables[0], ordinal)
        base.merged, base.merged_small = merged, small
    return base


def _merge_small_jointly(g: Grouping, tables: Sequence[np.ndarray], min_cell: int) -> Grouping:
    from ..before_after import merge_jointly  # the safe JSON's tables merge alike

    counts = [g.apply(np.asarray(t)).astype(np.int64) for t in tables]
    n_seg = len(g.labels)
    merged = merge_jointly(counts, min_cell, np.array([kind == "missing" for kind in g.kinds], dtype=bool))
    if not merged.any():
        return g
    keep = np.flatnonzero(~merged)
    names = [g.labels[i] for i in np.flatnonzero(merged) if g.kinds[i] in ("category", "generalised", "missing")]
    # named only with at least min_cell records in the original: a category the original lacks (0) and a
    # scenario holds in a few records is as rare as one with a few records in the original
    small = [bool(counts[0][i] < min_cell) and g.kinds[i] in ("category", "generalised")  # "missing": no value
             for i in np.flatnonzero(merged) if g.kinds[i] in ("category", "generalised", "missing")]
    labels = [g.labels[i] for i in keep] + [f"other (categories merged, min. cell {min_cell})"]
    kinds = [g.kinds[i] for i in keep] + ["other"]
    new_pos = np.full(n_seg, len(keep))
    new_pos[keep] = np.arange(len(keep))
    # keep "missing" last when it is not merged
    labels, kinds, new_pos = _missing_last(labels, kinds, new_pos)
    levels = {lbl: g.levels[lbl] for lbl, kind in zip(labels, kinds) if kind == "generalised" and lbl in g.levels}
    return Grouping(labels, new_pos[g.index], kinds, names, small, levels)


def _missing_last(labels: list[str], kinds: list[str], pos: np.ndarray) -> tuple[list[str], list[str], np.ndarray]:
    if "missing" not in kinds or kinds[-1] == "missing":
        return labels, kinds, pos
    m = kinds.index("missing")
    order = [i for i in range(len(labels)) if i != m] + [m]
    remap = np.empty(len(labels), dtype=np.int64)
    remap[order] = np.arange(len(labels))
    return [labels[i] for i in order], [kinds[i] for i in order], remap[pos]


#: at most this many generalised values are drawn one by one; more are grouped by their hierarchy level
MAX_GENERALISED = 8


def _group_many(g: Grouping, original: np.ndarray, ordinal: bool) -> Grouping:
    counts = g.apply(np.asarray(original))
    real = [i for i, kind in enumerate(g.kinds) if kind == "category"]
    general = [i for i, kind in enumerate(g.kinds) if kind == "generalised"]
    special = [i for i, kind in enumerate(g.kinds) if kind not in ("category", "generalised")]
    # the generalised values: each its own segment, or one segment per hierarchy level when there are many
    gen_groups: list[list[int]] = []
    gen_labels: list[str] = []
    levels: dict[str, int | None] = {}
    if len(general) <= MAX_GENERALISED:
        gen_groups = [[i] for i in general]
        gen_labels = [g.labels[i] for i in general]
        levels = {g.labels[i]: g.levels.get(g.labels[i]) for i in general}
    else:
        by_level: dict[int | None, list[int]] = {}
        for i in general:
            by_level.setdefault(g.levels.get(g.labels[i]), []).append(i)
        for level, grp in sorted(by_level.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)):
            where = "a hierarchy level" if level is None else f"level {level}"
            label = f"{len(grp)} values generalised to {where}"
            gen_groups.append(grp)
            gen_labels.append(label)
            levels[label] = level
    room = max(MAX_SEGMENTS - len(gen_groups), 4)
    groups: list[list[int]] = []
    if ordinal:
        share = np.cumsum(counts[real]) / max(counts[real].sum(), 1)
        cut = np.minimum((share * room - 1e-9).astype(int), room - 1)
        for c in np.unique(cut):
            groups.append([real[i] for i in np.flatnonzero(cut == c)])
        labels = [g.labels[grp[0]] if len(grp) == 1 else f"{g.labels[grp[0]]} – {g.labels[grp[-1]]}" for grp in groups]
        kinds = ["category" if len(grp) == 1 else "group" for grp in groups]
    elif len(real) <= room:
        groups = [[i] for i in real]
        labels = [g.labels[i] for i in real]
        kinds = ["category"] * len(real)
    else:
        top = sorted(real, key=lambda i: -counts[i])[: room - 1]
        rest = [i for i in real if i not in set(top)]
        groups = [[i] for i in sorted(top)] + ([rest] if rest else [])
        labels = [g.labels[i] for i in sorted(top)] + ([f"{len(rest)} other categories"] if rest else [])
        kinds = ["category"] * len(top) + (["group"] if rest else [])
    groups += gen_groups
    labels += gen_labels
    kinds += ["generalised"] * len(gen_groups)
    groups += [[i] for i in special]
    labels += [g.labels[i] for i in special]
    kinds += [g.kinds[i] for i in special]
    pos = np.empty(len(g.labels), dtype=np.int64)
    for new, grp in enumerate(groups):
        pos[grp] = new
    return Grouping(labels, pos[g.index], kinds, levels=levels)


def safe_two_way(tables: Sequence[np.ndarray], policy: Policy,
                 start: np.ndarray | None = None) -> tuple[list[np.ndarray], np.ndarray]:
    """The two-way tables (one per file, grouped alike) as a mosaic draws them, and the cells it hides.

    Returns ``(cells, hidden)``: per file the table with an extra last
    column holding, per row, its hidden cells together ("suppressed cells");
    ``hidden`` is one mask for every file.  Safe mode (:func:`hidden_cells`):
    a cell below ``min_cell`` in any file is hidden, and further cells so that
    no row or column has a single hidden cell or hidden cells adding up to 1
    to ``min_cell`` − 1 records in a file; ``start`` (the safe JSON's
    suppressed cells) is hidden too.  A row whose total is below
    ``min_cell`` is not drawn.  In full mode nothing is hidden.

    >>> import numpy as np
    >>> cells, hidden = safe_two_way([np.array([[20, 2, 30], [25, 3, 40], [30, 20, 10]])], Policy(safe=True))
    >>> cells[0].tolist()  # 2 and 3 hidden, and 20, 25 with them: each row hides >= 5 records, each column 2 cells
    [[0, 0, 30, 22], [0, 0, 40, 28], [30, 20, 10, 0]]
    """
    tables = [np.asarray(t, dtype=np.int64) for t in tables]
    hidden = np.zeros(tables[0].shape, dtype=bool)
    if policy.safe:
        hidden = hidden_cells(tables, policy.min_cell, start)
    out = []
    for t in tables:
        cells = np.hstack([np.where(hidden, 0, t), np.where(hidden, t, 0).sum(axis=1, keepdims=True)])
        if policy.safe:
            rows = t.sum(axis=1)
            cells[(rows > 0) & (rows < policy.min_cell)] = 0  # a row with fewer than min_cell records: not drawn
        out.append(cells)
    return out, hidden


def hidden_cells(tables: Sequence[np.ndarray], min_cell: int, start: np.ndarray | None = None) -> np.ndarray:
    """Cells of two-way tables (one per file, one shape) that a safe page hides, one mask for every file.

    The safe JSON's rule (:func:`infoloss.before_after._suppress`: small cells in any file, then secondary
    cells until no row or column has exactly one), plus: a row or column whose hidden cells add up to 1 to
    ``min_cell`` − 1 records in some file hides its smallest shown cell too.  The mosaic draws a row's hidden
    cells as one segment, and a column's hidden records are its one-way total less the cells shown: both are
    then 0 or at least ``min_cell``.

    >>> import numpy as np
    >>> hidden_cells([np.array([[20, 2, 30], [25, 3, 40], [30, 20, 10]])], 5).astype(int).tolist()
    [[1, 1, 0], [1, 1, 0], [0, 0, 0]]
    """
    from ..before_after import _suppress

    hidden = np.zeros(tables[0].shape, dtype=bool) if start is None else start.copy()
    while True:
        hidden = _suppress(list(tables), min_cell, hidden)
        if not _hide_small_line_sums(tables, hidden, min_cell):
            return hidden


def _hide_small_line_sums(tables: Sequence[np.ndarray], hidden: np.ndarray, min_cell: int) -> bool:
    """Hide one more cell in each row or column whose hidden cells hold 1 to min_cell − 1 records in a file."""
    total = sum(tables)
    grown = False
    for t in tables:
        for axis in (0, 1):
            sums = np.where(hidden, t, 0).sum(axis=1 - axis)
            for k in np.flatnonzero((sums > 0) & (sums < min_cell)):
                grown |= hide_smallest_in_line(hidden, total, axis, k)
    return grown


def share_text(share: float | None, n: int, policy: Policy) -> str:
    """A share of ``n`` records as printed; in safe mode one that stands for 1 to ``min_cell`` − 1 records
    reads "< x %", x the share of ``min_cell`` records.

    >>> share_text(2 / 300, 300, Policy(safe=True)), share_text(2 / 300, 300, Policy()), share_text(0.1, 300, Policy(safe=True))
    ('< 1.7 %', '0.67 %', '10 %')
    """
    from .numbers import below, percent

    if share is None or not policy.safe or share <= 0 or n <= 0 or share * n >= policy.min_cell - 1e-9:
        return percent(share)
    return below(policy.min_cell / n)


def total_variation(a: np.ndarray, b: np.ndarray) -> float:
    """Half the L1 distance between two tables as proportions (0: same, 1: disjoint).

    >>> import numpy as np
    >>> total_variation(np.array([5, 5]), np.array([10, 0]))
    0.5
    """
    sa, sb = float(np.sum(a)), float(np.sum(b))
    if sa <= 0 or sb <= 0:
        return 0.0
    return 0.5 * float(np.abs(np.asarray(a) / sa - np.asarray(b) / sb).sum())
