"""Safe-to-share rules for the descriptive ``statistics`` block, and the variables with few values.

A continuous variable observed in fewer than ``min_cell`` records of a file,
or whose values differ from its most common value in 1 to ``min_cell`` − 1
records (``off_mode``), has its statistics withheld (:func:`safe_statistics`);
:func:`few_values` names those variables for the rules of the measures
(:func:`infoloss.safe_results.safe_measures`), which withhold whatever rests
on them.  Covariance and correlation matrices over too few complete cases are
withheld whole.
"""

from __future__ import annotations

from typing import Any

from .safe_results import _is_number

__all__ = ["few_complete_cases", "few_values", "published_n", "safe_statistics"]


def safe_statistics(stats: dict[str, Any], min_cell: int, n_records: tuple[int, ...] | dict[str, tuple] = (),
                    changed_elsewhere: frozenset = frozenset()) -> tuple[dict[str, Any], int]:
    """The descriptive ``statistics`` block with every statistic of a variable observed in fewer than
    ``min_cell`` records of a file withheld (its n, mean, interval, sd, variance, covariance and
    correlation row and column); returns the block and the number of values withheld.

    A variable whose values differ from its most common value in 1 to ``min_cell`` − 1 records
    (``off_mode``) has the same statistics withheld but its n kept: its mean times n, less the
    most common value times its records, would be the total of those few records (an amount that
    is zero but for three records).  ``off_mode`` itself is a count of records and never shown.
    Each file's ``withheld`` names the variables withheld and why.

    ``n_records``: the numbers of records a file's ``n`` is checked against (its records less ``n``, 1 to
    ``min_cell`` − 1, are a small count of missing values), per file (``{"orig": ..., "prot": ...}``: each
    file's own), or one tuple for both files when it is not known which number is whose.

    >>> s = {"variables": ["a", "b"], "orig": {"n": {"a": 3, "b": 50}, "mean": {"a": 1.0, "b": 2.0},
    ...      "corr": [[1.0, 0.5], [0.5, 1.0]]}}
    >>> out, withheld = safe_statistics(s, 5)
    >>> out["orig"]["n"], out["orig"]["mean"], out["orig"]["corr"], withheld
    ({'a': None, 'b': 50}, {'a': None, 'b': 2.0}, [[None, None], [None, 1.0]], 5)
    >>> s["orig"]["n"]["a"], s["orig"]["off_mode"] = 40, {"a": 2, "b": 45}
    >>> out, withheld = safe_statistics(s, 5)
    >>> out["orig"]["n"], out["orig"]["mean"], "off_mode" in out["orig"], out["orig"]["withheld"]
    ({'a': 40, 'b': 50}, {'a': None, 'b': 2.0}, False, {'a': 'fewer than 5 records with a value other than the most common one'})
    """
    names = list(stats.get("variables") or [])
    out = {k: x for k, x in stats.items() if k != "records_changed"}  # counts of records, never shown
    withheld = 0
    for side in ("orig", "prot"):
        block = stats.get(side)
        if not isinstance(block, dict) or not isinstance(block.get("n"), dict):
            continue
        small = {v for v, n in block["n"].items() if _is_number(n) and 0 < n < min_cell}
        concentrated = _concentrated(block, min_cell) - small
        changed = (few_changed(stats, min_cell) | changed_elsewhere) - small if side == "orig" else set()
        block = {k: x for k, x in block.items() if k != "off_mode"}
        out[side] = block
        # the records without a value (the file's records minus n) are a count too: missing_values withholds it
        few_missing = {v for v, n in block["n"].items() if _is_number(n) and v not in small
                       and any(0 < total - n < min_cell for total in _totals(n_records, side))}
        if few_missing:
            block["n"] = {v: (None if v in few_missing else n) for v, n in block["n"].items()}
            withheld += len(few_missing)
        hidden = small | concentrated | changed
        if not hidden:
            continue
        for key, value in block.items():
            these = small if key == "n" else hidden
            if isinstance(value, dict):
                block[key] = {v: (None if v in these else x) for v, x in value.items()}
                withheld += sum(1 for v in these if value.get(v) is not None)
            elif isinstance(value, list) and len(value) == len(names):  # a matrix in the order of ``variables``
                rows = [[None if (names[i] in hidden or names[j] in hidden) else x for j, x in enumerate(row)]
                        if isinstance(row, list) else row for i, row in enumerate(value)]
                withheld += sum(r.count(None) for r in rows if isinstance(r, list)) - sum(
                    r.count(None) for r in value if isinstance(r, list))
                block[key] = rows
        block["withheld"] = {v: (f"fewer than {min_cell} records with a value" if v in small else
                                 f"fewer than {min_cell} records with a value other than the most common one"
                                 if v in concentrated else
                                 f"a scenario changed it in fewer than {min_cell} records, whose values that "
                                 "scenario's file and the original's statistics would give back")
                             for v in names if v in hidden}
    for side in ("orig", "prot"):
        withheld += _few_complete_cases(out, side, min_cell, _totals(n_records, side))
    return out, withheld


def _totals(n_records: tuple[int, ...] | dict[str, tuple], side: str) -> tuple[int, ...]:
    """The numbers of records a file's counts are checked against (:func:`safe_statistics`'s ``n_records``)."""
    return tuple(n_records.get(side, ())) if isinstance(n_records, dict) else tuple(n_records)


def _few_complete_cases(stats: dict[str, Any], side: str, min_cell: int, n_records: tuple[int, ...]) -> int:
    """Withhold one file's covariance and correlation matrices when they rest on 1 to ``min_cell`` − 1 complete
    cases (records with every continuous variable present: beside a variable observed in 2 records, every
    covariance is one of those 2 records' differences), and the count of complete cases when it or the file's
    records less it is small; returns the values withheld."""
    block = stats.get(side)
    if not isinstance(block, dict) or not _is_number(block.get("n_complete")):
        return 0
    block = stats[side] = dict(block)
    k = block["n_complete"]
    withheld = 0
    if 0 < k < min_cell:
        for key in ("cov", "corr"):
            if isinstance(block.get(key), list):
                withheld += sum(x is not None for row in block[key] if isinstance(row, list) for x in row)
                block[key] = [[None] * len(row) if isinstance(row, list) else row for row in block[key]]
        block["withheld_matrices"] = f"the covariances and correlations rest on fewer than {min_cell} complete cases"
    if 0 < k < min_cell or any(0 < n - k < min_cell for n in n_records):
        block["n_complete"] = None
        withheld += 1
    return withheld


def published_n(safe_stats: dict[str, Any] | None, side: str | None = None) -> frozenset:
    """The variables whose records with a value (``n``) a safe ``statistics`` block shows for a file: their missing
    values are the file's records less ``n``, so they are known (the count measures do not pick them as partners
    of a withheld per-variable count, :func:`infoloss.safe_results.partition_withheld`); ``side`` ("orig" or
    "prot"): those of that file alone.

    >>> sorted(published_n({"orig": {"n": {"a": 40, "b": None}}, "prot": {"n": {"a": 40, "c": 38}}}))
    ['a', 'c']
    """
    out = set()
    for one in ((side,) if side else ("orig", "prot")):
        counts = ((safe_stats or {}).get(one) or {}).get("n")
        if isinstance(counts, dict):
            out |= {v for v, n in counts.items() if _is_number(n)}
    return frozenset(out)


def few_values(statistics: dict[str, Any] | None, min_cell: int) -> frozenset:
    """The variables the ``statistics`` block counts fewer than ``min_cell`` (but some) values of, in a file,
    or fewer than ``min_cell`` (but some) values other than the most common one (:func:`safe_statistics`),
    or, paired, changed in fewer than ``min_cell`` (but some) records: the measures comparing such a variable
    give those records' values back (the original's exact mean less the public protected values is the total
    of the records changed, a suppressed outlier's own value)."""
    out = set()
    for side in ("orig", "prot"):
        block = (statistics or {}).get(side) or {}
        counts = block.get("n")
        if isinstance(counts, dict):
            out |= {v for v, n in counts.items() if _is_number(n) and 0 < n < min_cell}
        out |= _concentrated(block, min_cell)
    return frozenset(out | few_changed(statistics, min_cell))


def few_changed(statistics: dict[str, Any] | None, min_cell: int) -> frozenset:
    """The continuous variables the protection changed in 1 to ``min_cell`` − 1 records (paired files:
    ``records_changed``; a suppressed or top-coded few)."""
    changed = (statistics or {}).get("records_changed")
    if not isinstance(changed, dict):
        return frozenset()
    return frozenset(v for v, n in changed.items() if _is_number(n) and 0 < n < min_cell)


def few_complete_cases(statistics: dict[str, Any] | None, min_cell: int) -> bool:
    """Whether a file's statistics count 1 to ``min_cell`` − 1 complete cases (records with every continuous
    variable present): the measures over complete cases rest on those few records then."""
    return any(_is_number(k) and 0 < k < min_cell
               for k in (((statistics or {}).get(side) or {}).get("n_complete") for side in ("orig", "prot")))


def _concentrated(block: dict[str, Any], min_cell: int) -> set:
    """The variables of one file's statistics with 1 to ``min_cell`` − 1 records away from their most common value."""
    off = block.get("off_mode")
    return {v for v, k in off.items() if _is_number(k) and 0 < k < min_cell} if isinstance(off, dict) else set()
