"""Safe-to-share rules for the ``analyses`` block: the user's estimates and regressions.

Rule 4 of :mod:`infoloss.safe_results` (small domains, minima and maxima,
proportions of few records) and the analyses parts of its rule 6
(differencing: domain sizes, the proportions of a domain, off-mode records,
quantile tails, rare categories' labels and coefficients).

**Beside the published tables.**  The safe ``tables`` block publishes one-
and two-way counts of the same categorical variables, made safe by their
own rule (small categories merged into "other", small two-way cells and
their partners suppressed; :mod:`infoloss.before_after`).  An estimate
whose withheld value those tables give back, or whose shown values give a
suppressed cell back, would undo one of the two.  So, with the safe tables
at hand (:func:`safe_analyses`'s ``tables``):

* a proportion whose category is merged in its variable's one-way table, or
  whose two-way cell (category × a domain variable's value) is suppressed,
  is withheld (both sides), so the analyses show no cell the tables hide;
* a domain of two variables whose two-way cell is suppressed has its ``n``
  withheld (and its value, for a mean, total or proportion);
* wherever the tables publish a sum of the analyses' parts (a one-way count
  of a domain variable's value or of its merged categories, the sum over the
  other domain variables; a two-way cell of a proportion's category and one
  domain variable; a domain's proportions, which add up to 1), a withheld
  part has partners: at least two parts withheld, holding at least
  ``min_cell`` records in each file (:func:`_line_partners`), so that no
  withheld part is that sum less the parts shown.
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any

from .safe_results import (COMPARISON_KEYS, SIDE_VALUE_KEYS, _is_number, _Safe, _walk, _walk_dict,
                           partition_withheld)

__all__ = ["safe_analyses", "safe_estimate_rows", "safe_regression", "small_proportion"]

_SIDES = ("original", "protected")


def safe_analyses(analyses: dict[str, Any], min_cell: int, n_records: tuple[int, ...] = (),
                  tables: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, int]]:
    """The ``analyses`` block of a scenario under the safe-to-share rules (this module's notes).

    ``tables`` is the scenario's safe ``tables`` block, as the same JSON publishes it (None: no tables).
    """
    state = _Safe(int(min_cell), frozenset(int(n) for n in n_records if n), tables=_Published.of(tables))
    out = _walk(analyses, state, parent="analyses", counting=False)
    return out, {"min_cell": state.min_cell, "withheld": state.withheld}


def safe_estimate_rows(rows: list, state: _Safe) -> list:
    """The estimate rows under the rules: rule 4 per row, with the partners of rule 6 and of the published
    tables (``state.tables``) withheld beside them, and the labels of rare domains and categories replaced."""
    extra = _estimate_partitions(rows, state.min_cell, state.record_counts)
    if state.tables is not None:
        _join(extra, _beside_published_tables(rows, state.tables))
        for _ in range(len(rows) + 1):  # each pass only adds: it ends by the time every row is withheld
            trial = replace(state, withheld=0, extra=extra)
            more = _known_sum_partners(rows, [_safe_estimate(r, trial) for r in rows], state.tables, state.min_cell)
            if not _join(extra, more):
                break
    saved, state.extra = state.extra, extra
    out = [_safe_estimate(r, state) for r in rows]
    state.extra = saved
    return _rename_rare(rows, out, state.min_cell, state.tables)


def _join(extra: dict, more: dict) -> bool:
    """Add ``more`` to ``extra`` ("all" outranks "n"); whether anything changed."""
    changed = False
    for key, what in more.items():
        if extra.get(key) not in (what, "all"):
            extra[key] = what
            changed = True
    return changed


@dataclass(frozen=True)
class _Published:
    """What a safe ``tables`` block publishes: the categories each one-way table lists (the others are merged
    into its "other" row) and each two-way table's rows, columns and suppressed cells."""

    listed: dict[str, frozenset]
    other: dict[str, str]
    two_way: dict[tuple[str, str], tuple[list, list, list]]
    min_cell: int = 5

    @classmethod
    def of(cls, tables: dict[str, Any] | None) -> "_Published | None":
        if not isinstance(tables, dict) or not isinstance(tables.get("one_way"), dict):
            return None
        from .before_after import other_label

        min_cell = (tables.get("safe") or {}).get("min_cell")
        label = other_label(min_cell) if _is_number(min_cell) else None
        listed, other = {}, {}
        for name, t in tables["one_way"].items():
            cats = [str(c) for c in t.get("categories", [])]
            listed[name] = frozenset(c for c in cats if c != label)
            other[name] = label if label in cats else None
        two_way = {}
        for key, t in (tables.get("two_way") or {}).items():
            a, _, b = key.partition("|")
            counts = (t.get("original") or {}).get("count")
            if counts is not None:
                two_way[(a, b)] = ([str(r) for r in t["rows"]], [str(c) for c in t["columns"]], counts)
        return cls(listed, other, two_way, int(min_cell) if _is_number(min_cell) else 5)

    def group(self, variable: str, label: str) -> str | None:
        """The row of ``label`` in ``variable``'s one-way table: itself, "other" when merged, None (no table)."""
        if variable not in self.listed:
            return None
        return label if label in self.listed[variable] else self.other[variable]

    def merged(self, variable: str, label: str) -> bool:
        return variable in self.listed and label not in self.listed[variable]

    def cell_shown(self, a: str, x: str, b: str, y: str) -> bool | None:
        """Whether the two-way table of ``a`` and ``b`` shows the cell ``a=x, b=y`` (None: no such table)."""
        gx, gy = self.group(a, x), self.group(b, y)
        for (p, q, u, v) in ((a, b, gx, gy), (b, a, gy, gx)):
            if (p, q) in self.two_way:
                rows, cols, counts = self.two_way[(p, q)]
                if u not in rows or v not in cols:
                    return None
                return counts[rows.index(u)][cols.index(v)] is not None
        return None


def _domain_parts(row: dict[str, Any]) -> list[tuple[str, str]] | None:
    """``[(variable, label), ...]`` of a row's domain (``[]`` for ``all``; None when it cannot be read)."""
    domain = str(row.get("domain", "all"))
    if domain == "all":
        return []
    parts = [tuple(part.split("=", 1)) for part in domain.split(", ")]
    return parts if all(len(p) == 2 for p in parts) else None


def _beside_published_tables(rows: list, tables: _Published) -> dict:
    """Rows whose values the published tables suppress: a proportion of a merged category or of a suppressed
    two-way cell (category × domain value), and a two-variable domain whose two-way cell is suppressed."""
    extra = {}
    for row in rows:
        parts = _domain_parts(row) if isinstance(row, dict) else None
        if parts is None:
            continue
        hidden = False
        if row.get("statistic") == "proportion" and row.get("category") is not None:
            v, c = str(row.get("variable")), str(row.get("category"))
            hidden = tables.merged(v, c) or any(tables.cell_shown(v, c, d, e) is False for d, e in parts)
        if len(parts) == 2 and tables.cell_shown(*parts[0], *parts[1]) is False:
            hidden = True
        what = "all" if row.get("statistic") in _ADDITIVE else "n"
        if hidden:
            extra.update({(id(row), side): what for side in _SIDES})
        elif _merged_flow(row, parts, tables):
            extra[(id(row), "protected")] = what
    return extra


def _merged_flow(row: dict[str, Any], parts: list, tables: _Published) -> bool:
    """A domain of a value the tables merge whose records differ between the files by 1 to ``min_cell`` − 1:
    the tables merged it to hide that difference (values suppressed), which the two sides' n would show."""
    n = [(row.get(side) or {}).get("n") if isinstance(row.get(side), dict) else None for side in _SIDES]
    if not all(_is_number(v) for v in n) or not any(tables.merged(d, e) for d, e in parts):
        return False
    return 0 < abs(n[0] - n[1]) < tables.min_cell


def _known_sum_partners(rows: list, shown: list, tables: _Published, min_cell: int) -> dict:
    """Partners for withheld parts of the sums the published tables give (this module's notes, third point).

    ``shown`` holds the rows as the rules so far leave them.  Domains are units of their estimate (one ``n``
    shared by a proportion's categories); a proportion's category in a domain is a unit of records
    ``n_category``.  Returns more ``(id(row), side)`` entries for the estimates' ``extra``.
    """
    more: dict = {}
    for side in _SIDES:
        domain_rows: dict = defaultdict(list)
        units: dict = {}
        withheld: set = set()
        lines: dict = defaultdict(list)
        for row, out in zip(rows, shown):
            parts = _domain_parts(row) if isinstance(row, dict) else None
            raw, now = row.get(side) if parts is not None else None, (out or {}).get(side)
            if not (isinstance(raw, dict) and isinstance(now, dict) and _is_number(raw.get("n"))):
                continue
            estimate, names = row.get("estimate"), tuple(d for d, _ in parts)
            if parts:
                unit = ("domain", estimate, row.get("domain"))
                domain_rows[unit].append((row, now))
                units[unit] = raw["n"]
                _lines_of_domain(lines, unit, estimate, names, parts, tables)
            if row.get("statistic") == "proportion" and row.get("category") is not None:
                cat = ("category", id(row))
                domain_rows[cat].append((row, now))
                units[cat] = raw["n_category"] if _is_number(raw.get("n_category")) else (raw.get("value") or 0) * raw["n"]
                if now.get("value") is None:
                    withheld.add(cat)
                lines[("shares", estimate, row.get("domain"))].append(cat)  # they add up to 1
                v, c = str(row.get("variable")), str(row.get("category"))
                for i, (d, e) in enumerate(parts):
                    if tables.cell_shown(v, c, d, e):
                        lines[("cell", estimate, names, i, tables.group(v, c), tables.group(d, e))].append(cat)
        withheld.update(unit for unit, members in domain_rows.items()
                        if unit[0] == "domain" and all(now.get("n") is None for _, now in members))
        for unit in _line_partners(units, withheld, [list(dict.fromkeys(v)) for v in lines.values()], min_cell):
            for row, _ in domain_rows[unit]:
                more[(id(row), side)] = "all" if row.get("statistic") in _ADDITIVE or unit[0] == "category" else "n"
    return more


def _lines_of_domain(lines: dict, unit: tuple, estimate: Any, names: tuple, parts: list, tables: _Published) -> None:
    """The published sums a domain is part of: per domain variable, its value's one-way count (the sum over
    the other domain variables, or over the merged values); per two domain variables, their two-way cell (the
    sum over the others, or over a merged value's domains)."""
    for i, (d, e) in enumerate(parts):
        if tables.group(d, e) is not None:
            lines[("one-way", estimate, names, i, tables.group(d, e))].append(unit)
    for i in range(len(parts)):  # with two domain variables, a merged value's cell sums several domains
        for j in range(i + 1, len(parts)):
            if tables.cell_shown(*parts[i], *parts[j]):
                key = ("two-way", estimate, names, i, j, tables.group(*parts[i]), tables.group(*parts[j]))
                lines[key].append(unit)


def _line_partners(units: dict, withheld: set, lines: list[list], min_cell: int) -> set:
    """Units to withhold besides ``withheld`` so that each line (units whose sum the reader knows) has no
    withheld unit of records, or at least two holding at least ``min_cell`` records: the smallest shown
    units of the line join, line after line, until none changes.

    >>> sorted(_line_partners({"a": 2, "b": 30, "c": 9, "d": 40}, {"a"}, [["a", "b", "c"], ["c", "d"]], 5))
    ['c', 'd']
    """
    added: set = set()
    changed = True
    while changed:
        changed = False
        for line in lines:
            hit = [u for u in line if (u in withheld or u in added) and units[u] > 0]
            if not hit:
                continue
            held = sum(units[u] for u in hit)
            free = sorted((u for u in line if u not in withheld and u not in added and units[u] > 0),
                          key=lambda u: units[u])
            while (len(hit) < 2 or held < min_cell - 1e-9) and free:
                u = free.pop(0)
                added.add(u)
                hit.append(u)
                held += units[u]
                changed = True
    return added


def _safe_estimate(row: dict[str, Any], state: _Safe) -> dict[str, Any]:
    """One estimate row: small domains and minima/maxima withheld, other numbers rounded."""
    out = _walk_dict({k: v for k, v in row.items() if k not in ("original", "protected")}, state,
                     parent="estimate", counting=False)
    extreme = row.get("statistic") == "quantile" and str(row.get("estimate", "")).endswith((", 0)", ", 1)"))
    hidden = interval_withheld = False
    for side in ("original", "protected"):
        values = row.get(side)
        if not isinstance(values, dict):
            out[side] = values
            continue
        n = values.get("n")
        small_share = _share_of_few(row, values, state.min_cell)
        # a mean, total or ratio where a few records hold another value than the rest: n and the common value (and
        # for a ratio the other variable's total) give their total
        off = values.get("off_mode")
        few_off = _is_number(off) and 0 < off < state.min_cell
        more = state.extra.get((id(row), side))
        if extreme or small_share or few_off or (_is_number(n) and n < state.min_cell) or more == "all" \
                or _quantile_in_tail(row, values, state.min_cell):
            hidden = True
            values = dict(values)
            for key in SIDE_VALUE_KEYS:
                if values.get(key) is not None:
                    values[key] = None
                    state.withhold()
        elif values.get("n") is not None and (more == "n" or any(
                0 < total - values["n"] < state.min_cell for total in state.record_counts)):
            values = dict(values, n=None)  # beside a withheld domain, or the file's records minus a few
            state.withhold()
        if not hidden and _interval_in_tail(row, values, state.min_cell):
            values = dict(values)
            for key in ("lower", "upper", "se"):
                if values.get(key) is not None:
                    values[key] = None
                    state.withhold()
            interval_hidden = True
        else:
            interval_hidden = False
        if any(k in values for k in _RECORD_COUNTS):  # read by the rules above; counts of records, never published
            values = {k: v for k, v in values.items() if k not in _RECORD_COUNTS}  # in safe mode
        interval_withheld |= interval_hidden
        out[side] = _walk_dict(values, state, parent=side, counting=False)
    if hidden or interval_withheld:
        for key in COMPARISON_KEYS if hidden else ("inside_original_ci", "ci_overlap"):
            if out.get(key) is not None:
                out[key] = None
                state.withhold()
        if out.get("note"):  # notes of a withheld side speak of its few records ("a single record", ...)
            out["note"] = (f"safe mode: withheld (a domain, category or tail of fewer than {state.min_cell} records, "
                           f"or fewer than {state.min_cell} records away from the most common value)")
    # keep the original key order
    return {k: out[k] for k in row}


def _quantile_in_tail(row: dict[str, Any], side: dict[str, Any], min_cell: int) -> bool:
    """A quantile (or median) that fewer than ``min_cell`` records lie beyond: ``min(p, 1 − p) · n``; a quintile
    share ratio whose quintiles hold fewer than ``min_cell`` records (``0.2 · n``).

    Such a quantile and its bootstrap interval are order statistics of those
    few records (the 0.99 quantile of 400 records is about the 4th largest
    value), so they stand for individual values; so does the ratio of the
    sums of such tails.
    """
    beyond = _records_beyond(row, side, 0.0)
    if beyond is None and row.get("statistic") == "qsr" and _is_number(side.get("n")):
        beyond = QSR_TAIL * side["n"]  # S80/S20: the top fifth's income over the bottom fifth's
    return beyond is not None and beyond < min_cell - 1e-9


#: the share of a domain's records in each tail of the quintile share ratio: with fewer than 5 · min_cell
#: records a tail holds fewer than min_cell (6 records: the largest value over the two smallest)
QSR_TAIL = 0.2


def _interval_in_tail(row: dict[str, Any], side: dict[str, Any], min_cell: int) -> bool:
    """A quantile's (or median's) confidence interval whose bounds fewer than ``min_cell`` records lie beyond.

    Its bootstrap bounds are order statistics about 1.96 standard errors of
    the rank, ``sqrt(n p (1 − p))``, beyond the quantile's rank (the median of
    10 records: the 3rd and 9th values).
    """
    beyond = _records_beyond(row, side, 1.96)
    return beyond is not None and 0 < _quantile_p(row) < 1 and beyond < min_cell - 1e-9


def _quantile_p(row: dict[str, Any]) -> float | None:
    """The probability of a quantile or median estimate; None for another statistic."""
    if row.get("statistic") not in ("quantile", "median"):
        return None
    return 0.5 if row.get("statistic") == "median" else _last_number(str(row.get("estimate", "")))


#: an estimate side's counts of records that the rules read and the safe JSON never shows
_RECORD_COUNTS = ("n_category", "off_mode", "n_beyond", "n_beyond_interval")


def _records_beyond(row: dict[str, Any], side: dict[str, Any], errors: float) -> float | None:
    """How many records lie beyond a quantile (``errors`` = 0) or its interval: the side's ``n_beyond`` or
    ``n_beyond_interval`` (counted from the records), else about ``min(p, 1 − p) · n − errors · sqrt(n p (1 − p))``
    (an estimate without them); None when the row is no quantile or has no ``n``.  With weights the formula does
    not bound them (one record of a large weight can be the 2 % quantile, the minimum)."""
    p, n = _quantile_p(row), side.get("n")
    counted = side.get("n_beyond_interval" if errors else "n_beyond")
    if p is not None and _is_number(counted):
        return float(counted)
    if p is None or not _is_number(n):
        return None
    return min(p, 1.0 - p) * n - errors * math.sqrt(max(n * p * (1.0 - p), 0.0))


def _last_number(text: str) -> float | None:
    import re

    found = re.findall(r"[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?", text)
    try:
        return float(found[-1]) if found else None
    except ValueError:
        return None


#: statistics whose values over the domains of a partition add up to the file's (weighted by the domain sizes)
_ADDITIVE = ("mean", "total", "proportion")


def _estimate_partitions(rows: list, min_cell: int, record_counts: frozenset | tuple = ()) -> dict:
    """Sides to withhold beyond rule 4 so that no withheld estimate comes back by subtraction.

    * the domains of one estimate split its records: a withheld domain size
      ``n`` would be the total minus the others, so the next smallest domains'
      ``n`` are withheld too (:func:`partition_withheld`); for a total, a
      mean or a proportion the domains' values add up too (a mean times its
      ``n`` is a total: the file's total minus the shown domains' would be a
      withheld domain's), so those domains' whole sides are withheld;
    * so is a domain's mean or total withheld because 1 to ``min_cell`` − 1
      of its records are away from its most common value (``off_mode``):
      the next domains with the fewest such records are withheld with it
      until the withheld domains hold at least ``min_cell`` of them;
    * the proportions of one variable in one domain add up to 1: a withheld
      one would be 1 minus the others, so the next smallest categories'
      proportions are withheld too (the whole side).
    * the domains' sizes and the file's records (``record_counts``, which a
      reader knows) give the records in no domain (without a value or a
      domain): when those are 1 to ``min_cell`` − 1, the smallest domains'
      ``n`` are withheld until the withheld ones and those records hold
      ``min_cell``.
    Returns ``{(id(row), side): "n" or "all"}``.
    """
    extra: dict = {}
    domains: dict = {}
    categories: dict = {}
    for row in rows:
        if not isinstance(row, dict):
            continue
        names = tuple(part.split("=", 1)[0] for part in str(row.get("domain", "all")).split(", "))
        if row.get("statistic") == "proportion":
            categories.setdefault((row.get("estimate"), row.get("domain")), []).append(row)
        if row.get("domain") != "all":
            domains.setdefault((row.get("estimate"), names, row.get("category")), []).append(row)
    for side in ("original", "protected"):
        for group in domains.values():
            units = {id(r): r[side]["n"] for r in group if isinstance(r.get(side), dict) and _is_number(r[side].get("n"))}
            additive = bool(group) and group[0].get("statistic") in _ADDITIVE
            for rid in partition_withheld(units, min_cell)[0]:
                extra.setdefault((rid, side), "all" if additive else "n")
            outside = [n - sum(units.values()) for n in record_counts if 0 < n - sum(units.values()) < min_cell]
            shown = len(units) == len(group) and not any((id(r), side) in extra for r in group)
            if outside and shown:  # every domain's n is shown: the file's records less their sum is a small count
                for rid in partition_withheld({**units, "records in no domain": outside[0]}, min_cell)[0]:
                    if rid != "records in no domain":
                        extra.setdefault((rid, side), "n")
            # a domain's mean or total withheld for its few records away from the common value (``off_mode``) would
            # be the file's total minus the other domains': more domains withheld until those records are many
            off = {id(r): r[side]["off_mode"] for r in group if isinstance(r.get(side), dict)
                   and _is_number(r[side].get("off_mode"))}
            for rid in partition_withheld(off, min_cell)[0] if additive else ():
                extra[(rid, side)] = "all"
            # the domains' records below the poverty line (the whole file's line) add up to the file's: a domain's
            # rate withheld for its few poor records would be the others' less the file's
            poor = {id(r): _poor_records(r.get(side)) for r in group if group[0].get("statistic") == "arpr"}
            for rid in partition_withheld({k: v for k, v in poor.items() if v is not None}, min_cell)[0]:
                extra[(rid, side)] = "all"
        for group in categories.values():
            units = {id(r): (r[side]["n_category"] if _is_number(r[side].get("n_category"))
                             else r[side]["value"] * r[side]["n"])
                     for r in group if isinstance(r.get(side), dict)
                     and _is_number(r[side].get("value")) and _is_number(r[side].get("n"))}
            for rid in partition_withheld(units, min_cell)[0]:
                extra[(rid, side)] = "all"
    return extra


def _rename_rare(raw: list, rows: list, min_cell: int, tables: _Published | None = None) -> list:
    """Labels of domains and categories with fewer than ``min_cell`` records in the original (or none there)
    replaced by a numbered placeholder in ``domain``, ``category`` and ``key`` (with ``min_cell`` 1 none is).

    A label's records are those of the largest domain (or category) of the
    estimates that holds it; a category the safe tables list by name
    (``tables``) keeps its name, as a regression's does: STATE=DC, of 24
    records, is named though every estimate splits it by month.
    """
    if min_cell <= 1:
        return rows
    size: dict = {}
    for r in raw:
        if not isinstance(r, dict):
            continue
        n = (r.get("original") or {}).get("n") if isinstance(r.get("original"), dict) else None
        n = n if _is_number(n) else 0
        for part in str(r.get("domain", "all")).split(", "):
            if "=" in part:
                size[part] = max(size.get(part, 0), n)
        if r.get("statistic") == "proportion" and r.get("category") is not None:
            side = r.get("original") if isinstance(r.get("original"), dict) else {}
            p = side.get("value")
            c = side["n_category"] if _is_number(side.get("n_category")) else (p * n if _is_number(p) else 0)
            key = (r.get("variable"), r.get("category"))
            size[key] = max(size.get(key, 0), c)
    # one number per (variable, label), in an order that is not the labels' (a hash), whether the label is a
    # domain or a category; the renamed rows go last in their estimate, not in the labels' sorted places
    rare = set()
    for r in raw:
        if not isinstance(r, dict):
            continue
        for part in str(r.get("domain", "all")).split(", "):
            if "=" in part and size.get(part, 0) < min_cell - 1e-9:
                rare.add(tuple(part.split("=", 1)))
        key = (r.get("variable"), r.get("category"))
        if r.get("statistic") == "proportion" and r.get("category") is not None and size.get(key, 0) < min_cell - 1e-9:
            rare.add((str(key[0]), str(key[1])))
    if tables is not None:
        rare = {(v, label) for v, label in rare if label not in tables.listed.get(v, ())}
    numbers: dict = {}
    for variable, label in sorted(rare, key=lambda vl: (vl[0], hashlib.sha256(vl[1].encode()).hexdigest())):
        numbers[(variable, label)] = sum(1 for v, _ in numbers if v == variable) + 1

    def placeholder(variable: str, label: str) -> str:
        return f"(a category of fewer than {min_cell} records, {numbers[(variable, label)]})"

    out = []
    for r in rows:
        if not isinstance(r, dict):
            out.append((r, False))
            continue
        r = dict(r)
        parts, hit = [], False
        for part in str(r.get("domain", "all")).split(", "):
            pair = tuple(part.split("=", 1)) if "=" in part else None
            if pair in numbers:
                part, hit = f"{pair[0]}={placeholder(*pair)}", True
            parts.append(part)
        r["domain"] = ", ".join(parts)
        key = (str(r.get("variable")), str(r.get("category")))
        if r.get("statistic") == "proportion" and r.get("category") is not None and key in numbers:
            r["category"], hit = placeholder(*key), True
        if "key" in r:
            r["key"] = f"{r.get('estimate')} | {r['domain']}" + (f" | {r['category']}" if r.get("category") is not None else "")
        out.append((r, hit))
    # stable: each estimate's rows keep their order, those with a placeholder after the others
    first = {}
    for i, (r, _) in enumerate(out):
        first.setdefault(r.get("estimate") if isinstance(r, dict) else i, i)
    order = sorted(range(len(out)), key=lambda i: (first[out[i][0].get("estimate") if isinstance(out[i][0], dict) else i],
                                                   out[i][1], i))
    return [out[i][0] for i in order]


def safe_regression(reg: dict[str, Any], raw: dict[str, Any], state: _Safe) -> dict[str, Any]:
    """A regression: the record counts of each side as a partition, and the coefficients of categories of fewer
    than ``min_cell`` records withheld and unnamed (such a coefficient fits those records' values)."""
    reg = dict(reg)
    for side in ("original", "protected"):
        block, raw_block = reg.get(side), (raw or {}).get(side)
        if isinstance(block, dict) and isinstance(raw_block, dict):
            parts = {k: raw_block[k] for k in ("n_filtered_out", "n_missing", "n_not_finite", "n_zero_weight", "n_used")
                     if _is_number(raw_block.get(k))}
            withheld, _ = partition_withheld(parts, state.min_cell)
            block = dict(block)
            for k in withheld:
                if block.get(k) is not None:
                    block[k] = None
                    state.withhold()
            if block.get("n_used") is None and block.get("df_residual") is not None:
                block["df_residual"] = None  # n_used minus the coefficients, which the reader can count
                state.withhold()
            reg[side] = block
    _safe_references(reg, raw, state)
    coefficients = reg.get("coefficients")
    raw_coefficients = (raw or {}).get("coefficients") or []
    if isinstance(coefficients, list):
        out, rare = [], 0
        for c, rc in zip(coefficients, raw_coefficients):
            sizes = [(rc.get(side) or {}).get("n_records") for side in ("original", "protected")
                     if isinstance(rc.get(side), dict)]
            if any(_is_number(k) and 0 < k < state.min_cell for k in sizes):  # 0: not estimable in that file
                name = str(c.get("name", ""))
                factor = _rare_reference_factor(name, raw, state.min_cell)
                if not (factor and _label_published(name, state)):
                    rare += 1
                    c = dict(c, name=_unnamed(name, state.min_cell, rare, rare=factor is None))
                for side in ("original", "protected"):
                    if isinstance(c.get(side), dict):
                        block = dict(c[side])
                        for k in ("estimate", "se", "lower", "upper", "p_value", "n_records"):
                            if block.get(k) is not None:
                                block[k] = None
                                state.withhold()
                        c[side] = block
                for k in ("ci_overlap", "same_sign", "same_significance"):
                    if c.get(k) is not None:
                        c[k] = None
                        state.withhold()
                c["note"] = (f"safe mode: withheld (a contrast with {factor}'s reference category, of fewer than "
                             f"{state.min_cell} records; {_larger_reference(factor)})" if factor else
                             f"safe mode: withheld (a category of fewer than {state.min_cell} records)")
            for side in ("original", "protected"):  # the coefficients' records would give the domains' sizes back
                if isinstance(c.get(side), dict) and c[side].get("n_records") is not None:
                    c = dict(c, **{side: dict(c[side], n_records=None)})
                    state.withhold()
            out.append(c)
        reg["coefficients"] = out + coefficients[len(out):]
    _response_of_few_records(reg, raw, state)
    return reg


#: a regression side's fit statistics, withheld with its coefficients
_FIT_STATISTICS = ("r2", "r2_plain", "deviance_r2", "deviance", "null_deviance")


def _response_of_few_records(reg: dict[str, Any], raw: dict[str, Any], state: _Safe) -> None:
    """A side whose response differs from its most common value in 1 to ``min_cell`` − 1 records (``off_mode``,
    never shown): its coefficients and fit statistics are withheld (``bonus ~ C(region)`` of an amount that is 0
    but for 2 records gives their domains' means, and so their amounts, as the withheld estimates would)."""
    few = [side for side in _SIDES if _is_number(((raw or {}).get(side) or {}).get("off_mode"))
           and 0 < raw[side]["off_mode"] < state.min_cell]
    for side in _SIDES:
        if isinstance(reg.get(side), dict) and "off_mode" in reg[side]:
            reg[side] = {k: v for k, v in reg[side].items() if k != "off_mode"}
            if side in few:
                reg[side] = {k: (None if k in _FIT_STATISTICS else v) for k, v in reg[side].items()}
                state.withhold()
    if not few:
        return
    if _is_number(reg.get("r2_loss")):
        reg["r2_loss"] = None  # with the other side's R², it would give the withheld one
        state.withhold()
    note = (f"safe mode: withheld (the response differs from its most common value in fewer than {state.min_cell} "
            "records)")
    out = []
    for c in reg.get("coefficients") or []:
        if isinstance(c, dict):
            c = dict(c)
            for side in few:
                if isinstance(c.get(side), dict):
                    c[side] = {k: (None if k in ("estimate", "se", "lower", "upper", "p_value") else v)
                               for k, v in c[side].items()}
                    state.withhold()
            for k in ("ci_overlap", "same_sign", "same_significance"):
                if c.get(k) is not None:
                    c[k] = None
                    state.withhold()
            c["note"] = note
        out.append(c)
    reg["coefficients"] = out


def _larger_reference(factor: str) -> str:
    """How to publish the contrasts of ``factor`` (``C(occ)``, ``C(occ, Treatment('a'))`` or ``occ``): give it a
    larger reference category in the formula."""
    variable = factor[2:-1].split(",")[0].strip() if factor.startswith("C(") and factor.endswith(")") else factor
    return f"to publish them, write the factor with a larger reference category: C({variable}, Treatment('<category>'))"


def _rare_reference_factor(name: str, raw: dict[str, Any] | None, min_cell: int) -> str | None:
    """The factor whose reference category, of fewer than ``min_cell`` records in a file's fit, a coefficient
    (``Intercept``, or ``C(occ)[T.clerk]``) is a contrast with; None when it is none."""
    for side in _SIDES:
        for factor, ref in (((raw or {}).get(side) or {}).get("references") or {}).items():
            if isinstance(ref, dict) and _is_number(ref.get("n_records")) and 0 < ref["n_records"] < min_cell \
                    and (name == "Intercept" or name.startswith(f"{factor}[")):
                return factor
    return None


def _label_published(name: str, state: _Safe) -> bool:
    """Whether a coefficient's category (``C(occ)[T.clerk]``: occ's clerk) is one the safe tables list by name
    (a category of at least ``min_cell`` records), so the name may stay; the intercept names no category."""
    if name == "Intercept":
        return True
    tables = state.tables
    inner = name[name.find("[") + 1: -1] if name.endswith("]") and "[" in name else None
    variable = name[2: name.find(")")] if name.startswith("C(") and ")" in name else None
    if tables is None or inner is None or variable is None:
        return False
    label = inner[2:] if inner.startswith("T.") else inner
    return variable in tables.listed and label in tables.listed[variable]


def _safe_references(reg: dict[str, Any], raw: dict[str, Any], state: _Safe) -> None:
    """Each side's reference categories without their counts, and a reference of fewer than ``min_cell``
    records (in either file) unnamed, here and in the coefficients' notes."""
    rare: list = []
    for side in ("original", "protected"):
        for ref in (((raw or {}).get(side) or {}).get("references") or {}).values():
            if isinstance(ref, dict) and _is_number(ref.get("n_records")) and 0 < ref["n_records"] < state.min_cell:
                rare.append(ref.get("category"))
    text = f"(a category of fewer than {state.min_cell} records)"
    for side in ("original", "protected"):
        block = reg.get(side)
        if isinstance(block, dict) and isinstance(block.get("references"), dict):
            block = reg[side] = dict(block)
            block["references"] = {factor: {"category": text if r.get("category") in rare else r.get("category"),
                                            "n_records": None}
                                   for factor, r in block["references"].items() if isinstance(r, dict)}
            state.withhold()
    for c in reg.get("coefficients") or []:
        for label in rare:
            if isinstance(c, dict) and isinstance(c.get("note"), str) and f"category {label!r}" in c["note"]:
                c["note"] = c["note"].replace(f"category {label!r}", f"category {text}")


def _unnamed(name: str, min_cell: int, k: int, rare: bool = True) -> str:
    """A coefficient's name without its category: ``C(region)[T.Rareville]`` -> ``C(region)[a category of fewer
    than 5 records, 1]`` (``rare``), else ``C(region)[a category not named in safe mode, 1]``."""
    if "[" in name:
        what = f"a category of fewer than {min_cell} records" if rare else "a category not named in safe mode"
        return name[: name.index("[")] + f"[{what}, {k}]"
    return name  # the intercept or a continuous term: its name holds no category


def _share_of_few(row: dict[str, Any], side: dict[str, Any], min_cell: int) -> bool:
    """A proportion, or an at-risk-of-poverty rate (a percentage of the domain's records below the line), that
    stands for 1 to ``min_cell`` − 1 records in or out of its category (:func:`small_proportion`)."""
    if row.get("statistic") == "proportion":
        return small_proportion(side, min_cell)
    if row.get("statistic") == "arpr" and _is_number(side.get("value")):
        return small_proportion({"value": side["value"] / 100.0, "n": side.get("n")}, min_cell)
    return False


def _poor_records(side: Any) -> float | None:
    """An at-risk-of-poverty rate's records below the line, ``value/100 · n`` (weighted: about that)."""
    if isinstance(side, dict) and _is_number(side.get("value")) and _is_number(side.get("n")):
        return side["value"] / 100.0 * side["n"]
    return None


def small_proportion(side: dict[str, Any], min_cell: int) -> bool:
    """Whether a proportion stands for fewer than ``min_cell`` records in or out of its category.

    The implied counts are ``p · n`` and ``(1 − p) · n`` with ``n`` the
    domain's records; either strictly between 0 and ``min_cell`` discloses a
    small group (a share of 0.002 of 1,000 records is 2 records).

    >>> small_proportion({"value": 0.002, "n": 1000}, 5), small_proportion({"value": 0.5, "n": 1000}, 5)
    (True, False)
    """
    p, n = side.get("value"), side.get("n")
    if not (_is_number(p) and _is_number(n)):
        return False
    counts = [p * n, (1.0 - p) * n]
    if _is_number(side.get("n_category")):  # the records themselves (a weighted p · n is not a count of them)
        counts = [side["n_category"], n - side["n_category"]]
    return any(0 < c < min_cell - 1e-9 for c in counts)
