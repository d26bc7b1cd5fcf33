"""Bounded memory at any number of categories: the limits, and the sparse tables that respect them.

A nominal variable can have very many categories: a detailed occupation code
has thousands, an identifier declared nominal by mistake has one per record.
A dense table of two such variables, or a dense transition matrix of one,
would need more memory than any machine has (100,000 categories: a 100,001 ×
100,001 float64 matrix is 74.5 GiB).  Every measure therefore follows one of
three rules, using the helpers here:

* **Sparse tables.**  Measures that only need the *observed* cells of a
  table (sums of absolute differences, Hellinger distances, Pearson's
  chi-squared, EBIL's posterior entropies) use :func:`aligned_counts`, the
  counts of both files over the cells observed in either file, built from
  the distinct combined codes (:func:`unique_inverse`).  Its memory grows with the number of
  records, never with the number of possible cells.
* **Dense tables up to a limit.**  Tables of more than :data:`MAX_CACHED_CELLS`
  cells are not cached on the pair (each is rebuilt when needed, so many of
  them never sit in memory together) and the measures that can use observed
  cells do so (:func:`prefer_sparse`).  A dense table with more than
  :data:`MAX_DENSE_CELLS` cells is not built at all: :meth:`EncodedPair.table` and
  :func:`check_dense` raise ``NotComputed`` with a reason that names the
  variables, their numbers of categories and the memory the table would
  need ("occupation has 100,000 categories; the table of occupation × region
  would need 9.7 GiB").
* **Grouping in models.**  A propensity or cluster model gets at most
  :data:`MAX_MODEL_LEVELS` levels per categorical variable: beyond that the
  most frequent levels are kept and the others grouped into one level
  (:func:`top_levels`); the measure says so in its ``details``.

:func:`cardinality_note` is the warning of ``infoloss spec`` for columns that
look like identifiers or have very many categories.

The limits are module attributes, read at call time, so a test (or a user
with a large machine) can change them.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np

from .errors import NotComputed

if TYPE_CHECKING:  # pragma: no cover
    from .pair import EncodedPair

__all__ = [
    "CardinalityWarning",
    "MAX_DENSE_CELLS",
    "MAX_MODEL_LEVELS",
    "MAX_CACHED_CELLS",
    "prefer_sparse",
    "IDENTIFIER_SHARE",
    "MANY_CATEGORIES",
    "MAX_PAIRS",
    "MAX_MODEL_COLUMNS",
    "n_cells",
    "check_pairs",
    "is_large",
    "check_dense",
    "categories_text",
    "size_text",
    "combined_codes",
    "unique_inverse",
    "aligned_counts",
    "top_levels",
    "cardinality_note",
]

#: largest dense table (number of cells) any measure builds: 10 million cells are 80 MB as float64
MAX_DENSE_CELLS = 10_000_000
#: largest table kept in the pair's cache (8 MB as float64); larger ones are rebuilt when needed, and the
#: measures that can work on the observed cells do so above this size
MAX_CACHED_CELLS = 1_000_000
#: most levels of one categorical variable in a propensity or cluster model (the rest are grouped)
MAX_MODEL_LEVELS = 100
#: most columns of the propensity logit (numbers and the categories' dummies): its aliasing check holds their
#: cross-products, 200 MB at 5,000 columns (50 variables of 100 categories fit); 12,000 took 4.6 GB and 52 s
MAX_MODEL_COLUMNS = 5_000
#: most pairs of variables (or tables of several) a measure compares one at a time, each a test, a table or a
#: correlation and an entry of the JSON: the pairs of 500 variables.  A 1,000-variable file's 499,500 GDU tests
#: took 38 s and 256 MB of JSON (5.2 GB at its peak) on 1,000 records; 3,000 variables would need ten times more.
MAX_PAIRS = 125_000
#: ``infoloss spec``: a text or categorical column with at least this share of its non-missing records
#: as distinct values looks like an identifier
IDENTIFIER_SHARE = 0.5
#: ``infoloss spec``: a categorical column with more distinct values than this gets a warning
MANY_CATEGORIES = 1_000
_RADIX_LIMIT = 2**62  # combined codes above this are compressed to ranks first (int64 safety)


class InferenceWarning(UserWarning):
    """Something the inferred spec should be checked for (``infoloss spec``): printed as a warning line."""


class CardinalityWarning(InferenceWarning):
    """A categorical column looks like an identifier or has very many categories (``infoloss spec``)."""


# ---------------------------------------------------------------------------
# sizes and reasons
# ---------------------------------------------------------------------------
def size_text(nbytes: float) -> str:
    """A memory size in words: ``'74.5 GiB'``, ``'512 MiB'``, ``'3 KiB'``.

    Examples
    --------
    >>> size_text(100_001 ** 2 * 8), size_text(2**29), size_text(1000)
    ('74.5 GiB', '512 MiB', '1000 bytes')
    """
    for unit, power in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if nbytes >= 2**power:
            value = nbytes / 2**power
            return f"{value:.1f} {unit}" if value < 100 else f"{value:,.0f} {unit}"
    return f"{int(nbytes)} bytes"


def n_cells(pair: "EncodedPair", names: Iterable[str]) -> int:
    """Cells of the dense table of ``names``: the product of ``n_categories + 1`` (a Python int, no overflow)."""
    return math.prod(pair.categorical[n].n_categories + 1 for n in names)


def is_large(pair: "EncodedPair", names: Iterable[str]) -> bool:
    """True when the dense table of ``names`` would have more than :data:`MAX_DENSE_CELLS` cells."""
    return n_cells(pair, names) > MAX_DENSE_CELLS


def prefer_sparse(pair: "EncodedPair", names: Iterable[str]) -> bool:
    """True when a measure that can should use the observed cells (:func:`aligned_counts`) of the table of ``names``.

    That is above :data:`MAX_CACHED_CELLS` cells: a dense table that large is
    not cached, so each use would rebuild it, and its memory grows with the
    product of the numbers of categories instead of the number of records.
    """
    return n_cells(pair, names) > min(MAX_CACHED_CELLS, MAX_DENSE_CELLS)


def categories_text(pair: "EncodedPair", names: Sequence[str]) -> str:
    """``'occupation has 100,000 categories'`` or ``'a and b have 100,000 and 12 categories'``."""
    counts = [pair.categorical[n].n_categories for n in names]
    if len(names) == 1:
        return f"{names[0]} has {counts[0]:,} categories"
    return f"{_and(names)} have {_and([f'{c:,}' for c in counts])} categories"


def _and(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def check_dense(pair: "EncodedPair", names: Sequence[str], what: str | None = None, *, itemsize: int = 8) -> None:
    """Raise ``NotComputed`` when the dense table of ``names`` exceeds :data:`MAX_DENSE_CELLS`.

    ``what`` names the object in the reason (default: "the table of a × b");
    ``itemsize`` is its bytes per cell.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.pair import encode_pair
    >>> df = pd.DataFrame({"id": [str(i) for i in range(5000)], "g": ["a", "b"] * 2500})
    >>> pair = encode_pair(df, df, {"variables": {"id": {"scale": "nominal"}, "g": {"scale": "nominal"}}})
    >>> import infoloss.limits as limits
    >>> limits.MAX_DENSE_CELLS, saved = 1_000_000, limits.MAX_DENSE_CELLS
    >>> try:
    ...     check_dense(pair, ["id", "id"], "the EBIL transition matrix")
    ... except Exception as exc:
    ...     print(exc)
    id has 5,000 categories; the EBIL transition matrix would need 191 MiB (more than the limit of 1,000,000 cells)
    >>> limits.MAX_DENSE_CELLS = saved
    """
    cells = n_cells(pair, names)
    if cells <= MAX_DENSE_CELLS:
        return
    unique = list(dict.fromkeys(names))
    what = what or f"the table of {' × '.join(names)}"
    raise NotComputed(
        f"{categories_text(pair, unique)}; {what} would need {size_text(cells * itemsize)} "
        f"(more than the limit of {MAX_DENSE_CELLS:,} cells)"
    )


# ---------------------------------------------------------------------------
# sparse tables
# ---------------------------------------------------------------------------
def check_pairs(n_variables: int, what: str, count: int | None = None, unit: str = "pairs") -> None:
    """NotComputed when a measure would compare more than :data:`MAX_PAIRS` pairs of ``n_variables`` variables
    (or ``count`` tables of several, named by ``unit``).

    >>> check_pairs(500, "categorical variables")
    >>> check_pairs(1_000, "variables")
    Traceback (most recent call last):
    ...
    infoloss.errors.NotComputed: its 1,000 variables make 499,500 pairs, more than the 125,000 (those of 500 variables) one measure compares; list the variables to analyse in the spec (infoloss spec writes one to edit)
    """
    count = math.comb(n_variables, 2) if count is None else count
    if count > MAX_PAIRS:
        raise NotComputed(
            f"its {n_variables:,} {what} make {count:,} {unit}, more than the {MAX_PAIRS:,} (those of 500 variables) "
            "one measure compares; list the variables to analyse in the spec (infoloss spec writes one to edit)"
        )


def unique_inverse(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(codes, return_inverse=True)`` of a 1-d integer array: the sorted distinct codes and each
    record's index among them (intp), the same arrays.

    By hashing (``pandas.factorize(sort=True)``: a hash table of the distinct
    codes, then a sort of those alone) instead of a sort of every record:
    on 2,000,000 codes about 10-20 ms up to 60,000 distinct codes against
    110-210 ms for ``np.unique``, and half its time when every code is
    distinct.  Equality with ``np.unique`` is tested.
    """
    import pandas as pd

    inverse, uniques = pd.factorize(np.asarray(codes).reshape(-1), sort=True)
    return np.asarray(uniques), inverse.astype(np.intp, copy=False)


def combined_codes(codes: Sequence[np.ndarray], sizes: Sequence[int]) -> np.ndarray:
    """One int64 code per record for the combination of several code arrays (each in ``0..size-1``).

    Mixed-radix while the product of the sizes stays below 2**62; beyond,
    the running code is first replaced by its rank among the observed
    combinations, so there is never an overflow.  Equal combinations get
    equal codes; codes of different calls are comparable only when the
    product stays below 2**62 (pass both files' records in one call to
    compare files).
    """
    flat = np.asarray(codes[0], dtype=np.int64).copy()
    span = int(sizes[0])
    for c, size in zip(codes[1:], sizes[1:]):
        if span * int(size) >= _RADIX_LIMIT:
            uniques, flat = unique_inverse(flat)
            flat = flat.astype(np.int64, copy=False)  # a fresh array: changed in place below
            span = int(uniques.shape[0])
        flat *= int(size)
        flat += c
        span *= int(size)
    return flat


def aligned_counts(
    pair: "EncodedPair", names: Sequence[str], weighted: bool = False, *, complete: bool = False
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Counts of both files over the cells of the table of ``names`` observed in either file.

    Returns ``(orig, prot, labels)``: ``orig[k]`` and ``prot[k]`` count cell
    ``k`` (sums of weights when ``weighted`` and the file has weights), and
    ``labels[v][k]`` is the cell code of variable ``v`` in cell ``k`` (the
    pair's :meth:`~EncodedPair.cell_codes`: missing is ``n_categories``).
    Cells observed in neither file are left out: they add nothing to sums of
    differences, chi-squared or entropy terms.  ``complete=True`` keeps only
    records with every variable present.  Memory grows with the number of
    records, not the number of possible cells.  Cached on the pair.
    """
    names = tuple(names)

    def compute() -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
        from .pair import ORIGINAL, PROTECTED

        sizes = [pair.categorical[n].n_categories + 1 for n in names]
        n_o = pair.n(ORIGINAL)
        codes = [np.concatenate([pair.cell_codes(n, ORIGINAL), pair.cell_codes(n, PROTECTED)]) for n in names]
        keep = None
        if complete:
            keep = np.ones(codes[0].shape[0], dtype=bool)
            for c, size in zip(codes, sizes):
                keep &= c < size - 1
        flat = combined_codes(codes, sizes)
        cells, inverse = unique_inverse(flat if keep is None else flat[keep])
        first = np.zeros(cells.shape[0], dtype=np.int64)  # a record of each cell, for its labels
        rows = np.arange(flat.shape[0]) if keep is None else np.flatnonzero(keep)
        first[inverse] = rows
        labels = [c[first] for c in codes]
        in_orig = rows < n_o
        out = []
        for which, mask in ((ORIGINAL, in_orig), (PROTECTED, ~in_orig)):
            w = pair.weights(which) if weighted else None
            if w is not None:
                w = w[rows[mask] - (0 if which == ORIGINAL else n_o)]
            out.append(np.bincount(inverse[mask], weights=w, minlength=cells.shape[0]))
        return out[0], out[1], labels

    return pair.cached(("limits", "aligned", names, bool(weighted), bool(complete)), compute)


# ---------------------------------------------------------------------------
# models
# ---------------------------------------------------------------------------
def top_levels(counts: np.ndarray, limit: int | None = None) -> np.ndarray | None:
    """The levels a model keeps when a variable has more than ``limit`` (default :data:`MAX_MODEL_LEVELS`).

    ``counts[i]`` is the frequency of level ``i``.  Returns None when every
    level is kept; else the sorted indices of the ``limit - 1`` most frequent
    levels (ties: the lower index), the others being grouped into one level.

    Examples
    --------
    >>> top_levels(np.array([5, 1, 7, 2, 9]), limit=3)
    array([2, 4])
    >>> top_levels(np.array([5, 1]), limit=3) is None
    True
    """
    limit = MAX_MODEL_LEVELS if limit is None else int(limit)
    if counts.shape[0] <= limit:
        return None
    order = np.argsort(-counts, kind="stable")
    return np.sort(order[: limit - 1])


def cardinality_note(n_distinct: int, n_records: int) -> str | None:
    """The warning for a categorical column with many distinct values, or None.

    Examples
    --------
    >>> cardinality_note(100_000, 200_000)
    'looks like an identifier: 100,000 distinct values in 200,000 records'
    >>> cardinality_note(5_000, 200_000)
    'has 5,000 categories: tables and models of it are large; consider recoding it'
    >>> cardinality_note(12, 200_000) is None
    True
    """
    if n_records >= 20 and n_distinct >= IDENTIFIER_SHARE * n_records:
        return f"looks like an identifier: {n_distinct:,} distinct values in {n_records:,} records"
    if n_distinct > MANY_CATEGORIES:
        return f"has {n_distinct:,} categories: tables and models of it are large; consider recoding it"
    return None
