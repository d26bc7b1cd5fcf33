"""The encoded pair: an original and a protected file, encoded once for every measure.

Categorical variables become integer codes over one category dictionary shared
by both files (``-1`` = missing), so that ``2``, ``2.0`` and ``"2"`` are one
category and a category present in only one file still has one code.
Continuous variables become float64 arrays with NaN for missing.  Weights and
the record pairing (by row, by an id column, or none) are resolved here, and
derived arrays (tables, matrices, ranks) are cached on the pair so that no
measure computes them twice.
"""

from __future__ import annotations

import functools
import math
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from ._concurrent import map_in_order
from .errors import InputError, SpecError, counted, excerpt, shortened
from .pair_align import align, check_protected_columns
from .pair_errors import all_missing_in_original, not_a_number, not_scalar, nothing_to_analyse, number_writing
from .spec import Spec, VariableSpec, check_columns, normalise_label
from .spec_infer import infer_spec, temporal_kind

ORIGINAL, PROTECTED = "orig", "prot"
#: joins the names of a pair of variables in the results (``by_pair`` keys, two-way tables): "age|sex"
PAIR_SEPARATOR = "|"


class KeyLocks:
    """One re-entrant lock per cache key.

    ``compare`` may run two measures at the same time (``shares_cores``);
    when both ask for the same derived array, the first computes it and the
    second waits for it instead of computing it too.  Entries of different
    keys are computed at the same time.  The cached values form no cycle (a
    value that needed itself could not be computed one thread at a time
    either), so two threads never wait for each other.
    """

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[Any, threading.RLock] = {}

    def __call__(self, key: Any) -> threading.RLock:
        with self._guard:
            lock = self._locks.get(key)
            if lock is None:
                lock = self._locks[key] = threading.RLock()
            return lock


@dataclass
class CategoricalColumn:
    """A categorical variable in both files, coded over shared ``categories``.

    ``orig`` and ``prot`` are int32 codes into ``categories`` with ``-1`` for
    missing; for an ordinal variable the code order is the category order.
    ``prot`` is None for a variable removed from the protected file.
    """

    name: str
    scale: str
    categories: list[str]
    orig: np.ndarray
    prot: np.ndarray | None

    @property
    def n_categories(self) -> int:
        return len(self.categories)

    def codes(self, which: str) -> np.ndarray:
        return self.orig if which == ORIGINAL else self.prot


@dataclass
class ContinuousColumn:
    """A continuous variable in both files as float64 arrays with NaN for missing."""

    name: str
    orig: np.ndarray
    prot: np.ndarray | None

    def values(self, which: str) -> np.ndarray:
        return self.orig if which == ORIGINAL else self.prot


@dataclass
class EncodedPair:
    """An original and a protected file encoded for the measures.

    Build it with :func:`encode_pair`.  When ``paired`` is true, record ``i``
    of the protected arrays is record ``i`` of the original arrays.
    """

    spec: Spec
    variables: list[VariableSpec]
    categorical: dict[str, CategoricalColumn]
    continuous: dict[str, ContinuousColumn]
    weights_orig: np.ndarray | None
    weights_prot: np.ndarray | None
    paired: bool
    n_orig: int
    n_prot: int
    cache: dict[Any, Any] = field(default_factory=dict, repr=False)
    # variables with a hierarchy: every value as a node of it (infoloss.generalised)
    generalised: dict[str, Any] = field(default_factory=dict)
    # household ids as int64 codes (-1 missing), None without a household column (role: household)
    households_orig: np.ndarray | None = field(default=None, repr=False)
    households_prot: np.ndarray | None = field(default=None, repr=False)
    # survey-design columns that are not analysed (role cluster): name -> (original codes, protected codes or None)
    design: dict[str, tuple[np.ndarray, np.ndarray | None]] = field(default_factory=dict, repr=False)
    # the ``original_cache`` given to encode_pair: results that depend on the original only are kept
    # there, so that they are computed once for all scenarios (see ``cached_original``)
    original_cache: dict | None = field(default=None, repr=False)
    nearest: Any = None  # infoloss.nearest.NearestPairing with ``pairing: nearest`` (unpaired, paired view on demand)
    # a paired view of ``pairing: nearest``: the unpaired pair it was matched from (its original is the whole file)
    matched_from: "EncodedPair | None" = field(default=None, repr=False, compare=False)
    locks: KeyLocks = field(default_factory=KeyLocks, repr=False, compare=False)
    _by_name: tuple[list, dict[str, VariableSpec]] | None = field(default=None, init=False, repr=False, compare=False)

    # -- variable lists ----------------------------------------------------
    def names(self, scale: str | Iterable[str] | None = None, *, include_removed: bool = False) -> list[str]:
        """Analysed variable names in spec order, optionally of given scale(s)."""
        scales = (scale,) if isinstance(scale, str) else (tuple(scale) if scale is not None else None)
        return [
            v.name
            for v in self.variables
            if (scales is None or v.scale in scales) and (include_removed or not v.removed)
        ]

    @property
    def continuous_names(self) -> list[str]:
        return self.names("continuous")

    @property
    def categorical_names(self) -> list[str]:
        return self.names(("nominal", "ordinal"))

    @property
    def removed(self) -> list[str]:
        return [v.name for v in self.variables if v.removed]

    def variable(self, name: str) -> VariableSpec:
        """The spec of the analysed variable ``name`` (a dict look-up: measures ask once per variable, and a
        search of the list per call made 3,000 variables cost 0.35 s)."""
        found = self._by_name
        if found is None or found[0] is not self.variables or len(found[1]) != len(self.variables):
            found = self._by_name = (self.variables, {v.name: v for v in self.variables})
        return found[1][name]

    def n(self, which: str) -> int:
        return self.n_orig if which == ORIGINAL else self.n_prot

    def weights(self, which: str) -> np.ndarray | None:
        return self.weights_orig if which == ORIGINAL else self.weights_prot

    def paired_view(self) -> "EncodedPair":
        """With ``pairing: nearest``: the pair of each protected record and its nearest original record (cached)."""
        if self.nearest is None:
            raise ValueError("paired_view needs 'pairing: nearest'")
        from .nearest import paired_view

        with self.locks(("pairing", "view")):  # two measures at once: one nearest-record search
            return paired_view(self)

    # -- caching -----------------------------------------------------------
    def cached(self, key: Any, compute: Callable[[], Any]) -> Any:
        """Return ``cache[key]``, computing it once with ``compute()`` (once also when two threads ask)."""
        return _once(self.cache, key, compute, self.locks, ("cache", key))

    def cached_original(self, key: Any, compute: Callable[[], Any]) -> Any:
        """Like :meth:`cached`, for work that depends on the original file only.

        ``compare`` encodes every scenario with one ``original_cache`` dict (the
        same original DataFrame and spec), so a result stored there, e.g. a
        reference model fitted on the original or the original's risk, is
        computed once for all scenarios.  Without that dict it is kept on the
        pair like any cached value.  ``compute`` must not read the protected
        file, and ``key`` must name everything the result depends on besides the
        original's records; results must not depend on category codes (which
        change with the protected file).
        """
        store = self.cache if self.original_cache is None else self.original_cache
        key = ("original-only", key)
        return _once(store, key, compute, self.locks, ("original", key))

    def cached_original_arrays(self, key: Any, arrays: Sequence[np.ndarray], compute: Callable[[], Any]) -> Any:
        """Like :meth:`cached_original`, for work on these arrays of the original file alone.

        The result is shared by the scenarios of one ``compare`` while their
        pairs hold the very same arrays (``encode_pair`` converts the
        original's columns once, so they do unless a scenario's recode or
        hierarchy re-encodes them); ``key`` names everything else the result
        depends on.  Otherwise it is kept on the pair like any cached value.
        """
        if self.original_cache is None:
            return self.cached(key, compute)
        store_key = ("original-arrays", key)
        with self.locks(("original", store_key)):
            held = self.original_cache.get(store_key)
            if held is not None and len(held[0]) == len(arrays) and all(a is b for a, b in zip(held[0], arrays)):
                return held[1]
            value = compute()
            self.original_cache[store_key] = (tuple(arrays), value)
            return value

    def households(self, which: str) -> np.ndarray | None:
        return self.households_orig if which == ORIGINAL else self.households_prot

    # -- shared derived arrays --------------------------------------------
    def matrix(self, which: str, names: list[str] | None = None) -> np.ndarray:
        """Continuous variables as an (n, p) float64 array, columns in ``names`` order."""
        names = self.continuous_names if names is None else list(names)
        return self.cached(
            ("matrix", which, tuple(names)),
            lambda: _column_stack([self.continuous[n].values(which) for n in names], self.n(which)),
        )

    def table(self, names: str | Iterable[str], which: str, *, weighted: bool = False) -> np.ndarray:
        """Frequency table of one or more categorical variables, missing as its own category.

        Axis ``k`` has ``n_categories + 1`` cells; the last one counts missing
        values.  Built with one ``bincount`` on combined codes.  ``weighted``
        sums the file's weights instead of counting (plain counts when the file
        has no weights).  A table of more than ``limits.MAX_DENSE_CELLS`` cells
        raises NotComputed naming the variables and their numbers of categories
        (use :func:`infoloss.limits.aligned_counts` for the observed cells only);
        one of more than ``limits.MAX_CACHED_CELLS`` cells is not cached.
        """
        names = (names,) if isinstance(names, str) else tuple(names)
        w = self.weights(which) if weighted else None
        if ("table", names, which, w is not None) not in self.cache:
            from . import limits

            limits.check_dense(self, names)
            if limits.n_cells(self, names) > limits.MAX_CACHED_CELLS:
                return self._table(names, which, w)  # large: rebuilt when needed, never held in the cache
        return self.cached(("table", names, which, w is not None), lambda: self._shared_table(names, which, w))

    def _shared_table(self, names: tuple[str, ...], which: str, w: np.ndarray | None) -> np.ndarray:
        """:meth:`_table`; the original's shared by the scenarios whose pairs hold its very codes and weights,
        and by the protected file when its variables are the original's (:meth:`unchanged`) with the same
        weights array."""
        if which != ORIGINAL:
            if all(self.unchanged(n) for n in names) and (w is None or w is self.weights(ORIGINAL)):
                return self._shared_table(names, ORIGINAL, w)
            return self._table(names, which, w)
        arrays = [self.categorical[n].codes(ORIGINAL) for n in names] + ([] if w is None else [w])

        def compute() -> np.ndarray:
            table = self._table(names, which, w)
            table.flags.writeable = False  # shared by scenarios: no measure may change it in place
            return table

        return self.cached_original_arrays(("table", names, w is not None), arrays, compute)

    def _table(self, names: tuple[str, ...], which: str, w: np.ndarray | None) -> np.ndarray:
        shape = tuple(self.categorical[n].n_categories + 1 for n in names)
        # int32 cell numbers while they fit: half the memory traffic of int64, about 20 % faster on 1,000,000 records
        dtype = np.int32 if math.prod(shape) <= np.iinfo(np.int32).max else np.int64
        flat = self.cell_codes(names[0], which).astype(dtype)
        for name, size in zip(names[1:], shape[1:]):
            flat *= size
            flat += self.cell_codes(name, which)
        counts = np.bincount(flat, weights=w, minlength=int(np.prod(shape)))
        return counts.reshape(shape)

    def cell_codes(self, name: str, which: str) -> np.ndarray:
        """Category codes with missing moved to the last cell (``n_categories``), as int32."""

        def compute() -> np.ndarray:
            if which == PROTECTED and self.unchanged(name):
                return self.cell_codes(name, ORIGINAL)
            col = self.categorical[name]
            codes = col.codes(which)
            if codes.dtype == np.int32 and codes.size and codes.min() >= 0:
                view = codes.view()  # no missing value: the codes themselves, read-only (no copy of the column)
                view.flags.writeable = False
                return view
            return np.where(codes < 0, np.int32(col.n_categories), codes).astype(np.int32, copy=False)

        return self.cached(("cell_codes", name, which), compute)

    def ranks(self, name: str, which: str) -> np.ndarray:
        """Average ranks (1..n_valid) of a variable's non-missing values, NaN where missing.

        Continuous variables are ranked by value, categorical ones by code
        (their category order).
        """

        def compute() -> np.ndarray:
            from scipy.stats import rankdata

            if which == PROTECTED and self.unchanged(name):
                return self.ranks(name, ORIGINAL)
            if name in self.continuous:
                x = self.continuous[name].values(which)
                ok = ~np.isnan(x)
            else:
                x = self.categorical[name].codes(which)
                ok = x >= 0
            out = np.full(x.shape[0], np.nan)
            out[ok] = rankdata(x[ok])
            return out

        return self.cached(("ranks", name, which), compute)

    def unchanged(self, name: str) -> bool:
        """True when the variable's protected values (or category codes) are the original's: one array for
        both files, so that what is computed on it for the original serves the protected file too."""
        col = self.continuous.get(name) or self.categorical.get(name)
        return col is not None and col.prot is col.orig

    def levels(self, name: str, which: str) -> "Levels":
        """A continuous variable's sorted distinct values, each record's code among them and their counts.

        One sort per variable and file, shared by every measure that needs
        the order of the values (KS statistics, the GDU model's ranks); the
        original's are shared by the scenarios of one ``compare``.
        """

        def compute() -> Levels:
            x = self.continuous[name].values(which)
            if which == PROTECTED and self.unchanged(name):
                return self.levels(name, ORIGINAL)
            if which == ORIGINAL:
                return self.cached_original_arrays(("levels", name), [x], lambda: sorted_levels(x))
            return sorted_levels(x)

        return self.cached(("levels", name, which), compute)

    def warm_levels(self, names: Iterable[str], which: Iterable[str] = (ORIGINAL, PROTECTED)) -> None:
        """Compute :meth:`levels` of several variables in two threads (the sorts release the GIL)."""
        from concurrent.futures import ThreadPoolExecutor

        todo = [(n, w) for n in names for w in which if ("levels", n, w) not in self.cache
                and self.continuous[n].values(w) is not None and not (w == PROTECTED and self.unchanged(n))]
        with ThreadPoolExecutor(max_workers=2) as pool:
            list(pool.map(lambda job: self.levels(*job), todo))

    def recoded(self, name: str) -> CategoricalColumn:
        """The variable after the spec's global recoding, in both files.

        ``orig`` is the recode applied to the original values, ``prot`` the
        protected values placed in the same classes.  Raises NotComputed with
        the reason when the recode does not fit the data.
        """
        from .recode import recode  # global recoding (imports this module)

        return self.cached(("recoded", name), lambda: recode(self, name))


@dataclass(frozen=True)
class Levels:
    """Dense ranking of one numeric array: ``values`` (sorted distinct, no NaN), ``codes`` (int32 index into
    ``values``, -1 where missing) and ``counts`` (records per value: int32, the smallest type that holds any
    count of a file of up to 2**31 - 1 records; int64 beyond).  numpy's sum and cumsum of int32 counts are
    int64, so totals never overflow."""

    values: np.ndarray
    codes: np.ndarray
    counts: np.ndarray

    @property
    def n_valid(self) -> int:
        return int(self.codes.shape[0] - np.count_nonzero(self.codes < 0)) if self.codes.size else 0


#: values looked at to guess whether a variable repeats values often (see _tied)
_LEVELS_SAMPLE = 10_000


def sorted_levels(x: np.ndarray) -> Levels:
    """The :class:`Levels` of ``x`` (float, NaN = missing): one count, hash or sort pass, no Python loop.

    Equal to ``np.unique(x[~isnan(x)], return_inverse=True, return_counts=True)``
    with -1 codes at the missing positions.

    >>> lv = sorted_levels(np.array([2.0, np.nan, 1.0, 2.0]))
    >>> lv.values.tolist(), lv.codes.tolist(), lv.counts.tolist()
    ([1.0, 2.0], [1, -1, 0, 1], [1, 2])
    """
    ok = ~np.isnan(x)
    xv = x if ok.all() else x[ok]
    n = xv.shape[0]
    codes = np.empty(x.shape[0], dtype=np.int32) if xv is x else np.full(x.shape[0], -1, dtype=np.int32)
    if n == 0:
        return Levels(np.zeros(0), codes, np.zeros(0, dtype=np.int32))
    whole = _whole_number_levels(xv)
    if whole is not None:  # whole numbers in a range narrower than the file (ages, hours, amounts in units)
        values, sub, counts = whole
    elif n > _LEVELS_SAMPLE and _tied(xv):
        # repeated values (amounts rounded to cents, scores): pandas' hash table, then a sort of the distinct values
        sub, values = pd.factorize(xv, sort=True)
        sub = sub.astype(np.int32, copy=False)
        counts = np.bincount(sub, minlength=values.shape[0]).astype(_count_type(n), copy=False)
        values = np.asarray(values, dtype=np.float64)
    else:  # mostly distinct values: one sort
        return _distinct_levels(x, xv, ok, codes)
    if xv is x:
        codes = sub
    else:
        codes[ok] = sub
    return Levels(values, codes, counts)


def _whole_number_levels(xv: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`sorted_levels` of whole numbers spanning fewer values than there are records, by counting: None
    for other values.

    A record's level is its offset from the minimum, ``x − min`` (exact: a
    whole number below the number of records), counted with ``bincount``; the
    levels are the offsets that occur, numbered by a cumulative sum.  A few
    passes over the values and no sort or hash table: on 1,000,000 ages
    about 5 ms against 10 ms for ``pd.factorize``, on amounts in whole units
    up to 50,000 about 6 ms against 41 ms.  A sample of the values is looked
    at first, so other values cost two passes (their minimum and maximum) at
    most.
    """
    n = xv.shape[0]
    lo, hi = xv.min(), xv.max()
    with np.errstate(over="ignore", invalid="ignore"):  # values near ±1.8e308 span an infinite range
        narrow = hi - lo < n
    if not narrow:  # a wider range (or an infinite value): the table would outgrow the file
        return None
    sample = xv[:: max(1, n // _LEVELS_SAMPLE)]
    if not np.array_equal(np.floor(sample), sample):
        return None
    offset = xv - lo
    at = offset.astype(np.intp)
    if not np.array_equal(at, offset):
        return None
    counts = np.bincount(at, minlength=int(hi - lo) + 1)
    present = counts > 0
    ids = np.cumsum(present, dtype=np.int32)
    ids -= 1
    values = np.flatnonzero(present).astype(np.float64)
    values += lo
    return values, ids[at], counts[present].astype(_count_type(n), copy=False)


def _tied(xv: np.ndarray) -> bool:
    """Whether a sample of ``xv`` repeats values often enough that hashing beats sorting.

    On 1,000,000 values, ``pd.factorize(sort=True)`` (a hash table, then a
    sort of the distinct values) takes 12-25 ms up to 30,000 distinct values
    and about 90 ms at 400,000, against about 95 ms for the ``argsort`` of
    :func:`_distinct_levels` whatever the values, but 190 ms when every value
    is distinct.  An evenly spaced sample of 10,000 values repeats more than
    2.5 % of them (250 repeats; about 10,000²/2D for D distinct values spread
    evenly) below some 200,000 distinct values.  Either path gives the same
    levels.
    """
    sample = xv[:: xv.shape[0] // _LEVELS_SAMPLE][:_LEVELS_SAMPLE]
    return np.unique(sample).shape[0] < 0.975 * sample.shape[0]


def _distinct_levels(x: np.ndarray, xv: np.ndarray, ok: np.ndarray, codes: np.ndarray) -> Levels:
    """:func:`sorted_levels` by one ``argsort`` of the present values ``xv`` (``x[ok]``), level ids scattered back.

    What ``np.unique(xv, return_inverse=True, return_counts=True)`` does,
    with the ids counted in int32 (no intp inverse and int32 copy of it) and,
    when nothing is missing, scattered straight into ``codes``: about 20 %
    faster on 1,000,000 distinct values.
    The values are sorted without NaN because numpy's vectorised sort is
    several times slower on arrays that hold NaN.
    """
    n = xv.shape[0]
    perm = np.argsort(xv)
    ordered = xv[perm]
    first = np.empty(n, dtype=bool)  # where a new level starts in the sorted values
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    ids = np.cumsum(first, dtype=np.int32)
    ids -= 1
    if xv is x:
        codes[perm] = ids
    else:
        sub = np.empty(n, dtype=np.int32)
        sub[perm] = ids
        codes[ok] = sub
    counts = np.diff(starts, append=n).astype(_count_type(n), copy=False)
    return Levels(ordered[starts], codes, counts)


def _count_type(n: int) -> type:
    """int32 for counts of at most ``n`` records while that fits, else int64."""
    return np.int32 if n <= np.iinfo(np.int32).max else np.int64


def _column_stack(columns: list[np.ndarray], n: int) -> np.ndarray:
    if not columns:
        return np.empty((n, 0))
    return np.ascontiguousarray(np.column_stack(columns))


# ---------------------------------------------------------------------------
# building the pair
# ---------------------------------------------------------------------------
def encode_pair(
    original: pd.DataFrame,
    protected: pd.DataFrame,
    spec: Spec | dict | str | Path | None = None,
    *,
    original_cache: dict | None = None,
) -> EncodedPair:
    """Encode an original and a protected DataFrame under a spec.

    Parameters
    ----------
    original, protected : pandas.DataFrame
        The two files.  Missing codes of the spec become missing.
    spec : Spec, dict, path or None
        The variable spec (a YAML file's path is loaded); None infers one
        from the original file.
    original_cache : dict, optional
        Pass the same dict when encoding one original against several
        protected files: the original's columns are then converted once and
        its float arrays shared between the pairs.

    Raises
    ------
    InputError
        When the files cannot be compared under the spec (the message says why).
    """
    _check_frame(original, "original")
    _check_frame(protected, "protected")
    original, protected = index_as_columns(original, "original"), index_as_columns(protected, "protected")
    original, protected = text_columns(original, "original"), text_columns(protected, "protected")
    spec = _resolve_spec(original, spec)
    check_columns(spec, original.columns, "original")
    check_protected_columns(spec, protected)
    protected, paired = align(original, protected, spec)
    variables = [v for v in spec.analysed]
    if not variables:
        raise SpecError(nothing_to_analyse(spec))
    _check_names(variables)
    missing = _global_missing(spec)

    def encode(var: VariableSpec) -> ContinuousColumn | CategoricalColumn:
        o = original[var.name]
        p = None if var.removed else protected[var.name]
        try:
            if var.scale == "continuous":
                orig = _cached_original(original_cache, var, lambda: _original_float(var, o, missing))
                if p is not None:
                    _check_same_time_kind(var, o, p)
                return _encode_continuous(var, orig, p, missing)
            factors = _cached_original(original_cache, var, lambda: _original_factors(var, o, missing))
            return _encode_categorical(var, factors, o, p, missing, original_cache)
        except UnicodeEncodeError:  # Arrow's strings are UTF-8: a lone surrogate (text decoded with
            # errors="surrogateescape") cannot be one
            raise InputError(f"variable {var.name!r} holds text that is not valid Unicode (a lone surrogate such as "
                             "'\\udc80', left by decoding bytes with errors='surrogateescape'); decode the file with "
                             "its real encoding.") from None
        except UnicodeDecodeError:  # bytes (a Parquet or Feather binary column) are read as UTF-8 text
            raise InputError(f"variable {var.name!r} holds bytes that are not UTF-8 text (a binary column); store it "
                             "as text or numbers, or decode it first (e.g. df[name].str.decode('latin-1')).") from None

    # on two threads for large files: the conversions and the hashing of categories release the GIL,
    # and each variable writes only its own entries of the original cache
    columns = map_in_order(encode, variables, (len(original) + len(protected)) * len(variables))
    continuous = {c.name: c for c in columns if isinstance(c, ContinuousColumn)}
    categorical = {c.name: c for c in columns if isinstance(c, CategoricalColumn)}
    generalised = _generalised(spec, variables, original, protected, categorical, continuous, missing, paired,
                               original_cache)
    w_orig = None
    if spec.weight is not None:  # converted once, so that results on the original's weights can be shared
        weight_var = VariableSpec(spec.weight, "weight")
        w_orig = _cached_original(original_cache, weight_var, lambda: _weights(spec, original, "original"))
    w_prot = _weights(spec, protected, "protected") if spec.weight in protected.columns else None
    if w_prot is None and paired:
        w_prot = w_orig
    elif w_prot is not None and w_orig is not None and _same_floats(w_orig, w_prot):
        w_prot = w_orig  # the same weights: one array, so weighted tables of unchanged variables are shared too
    h_orig, h_prot = _households(spec, original, protected, paired, original_cache)
    design = _design_codes(spec, original, protected, paired, original_cache)
    nearest = None
    if spec.pairing_nearest is not False:
        from .nearest import NearestPairing

        nearest = NearestPairing(spec.pairing_nearest)
    return EncodedPair(
        spec=spec,
        variables=variables,
        categorical=categorical,
        continuous=continuous,
        weights_orig=w_orig,
        weights_prot=w_prot,
        paired=paired,
        n_orig=len(original),
        n_prot=len(protected),
        generalised=generalised,
        households_orig=h_orig,
        households_prot=h_prot,
        design=design,
        original_cache=original_cache,
        nearest=nearest,
    )


def _generalised(spec, variables, original, protected, categorical, continuous, missing, paired, original_cache):
    if not any(v.hierarchy is not None and not v.removed for v in variables):
        return {}
    from .generalised import encode_generalised

    return encode_generalised(spec, variables, original, protected, categorical, continuous, missing, paired,
                              original_cache)


def _resolve_spec(original: pd.DataFrame, spec: Spec | dict | str | Path | None) -> Spec:
    from .spec import as_spec

    if spec is None:
        return infer_spec(original)
    spec = as_spec(spec)
    if spec.analyse_all:
        spec = spec.copy()
        inferred = infer_spec(original)
        for name, var in inferred.variables.items():
            spec.variables.setdefault(name, var)
        spec.left_out = {name: why for name, why in inferred.left_out.items() if name not in spec.variables}
    return spec


def _check_names(variables: list[VariableSpec]) -> None:
    """Refuse an analysed variable whose name holds ``|``: the results name a pair of variables ``a|b``.

    With ``income|net`` beside ``age`` the pair key ``income|net|age`` could
    not be told apart from other pairs (and was split wrongly).
    """
    for var in variables:
        if PAIR_SEPARATOR in var.name:
            raise SpecError(f"variable {var.name!r} has a {PAIR_SEPARATOR!r} in its name, which infoloss uses to name "
                            f"pairs of variables (a{PAIR_SEPARATOR}b); rename the column, e.g. to "
                            f"{var.name.replace(PAIR_SEPARATOR, '_')!r}.")


def _check_frame(df: pd.DataFrame, which: str) -> None:
    if not isinstance(df, pd.DataFrame):
        raise InputError(f"the {which} data must be a pandas DataFrame, got {type(df).__name__}.")
    if len(df) == 0:
        raise InputError(f"the {which} file has no records; check that it is the right file and not just a header.")
    if df.columns.duplicated().any():
        dup = df.columns[df.columns.duplicated()][0]
        raise InputError(f"the {which} file has the column {dup!r} twice; give every column a unique name.")


def index_as_columns(df: pd.DataFrame, which: str) -> pd.DataFrame:
    """``df`` with the named levels of its index as columns, as a Parquet file written by pandas keeps them.

    ``df.set_index("id")`` keeps the ids as the frame's index: dropped, they
    left the records paired by position (a shuffled protected frame gave
    IL1s 0.82 instead of 0.0006) and the variable out of the analysis.  An
    index without a name (0, 1, 2, ...) holds no variable and is not kept;
    the frame is returned as it is then.  A name that is also a column's is
    refused.

    >>> df = pd.DataFrame({"x": [1.0, 2.0]}, index=pd.Index([7, 9], name="id"))
    >>> index_as_columns(df, "original").columns.tolist()
    ['id', 'x']
    """
    named = [name for name in df.index.names if name is not None]
    if not named:
        return df
    clash = [name for name in named if name in df.columns]
    if clash:
        raise InputError(f"the {which} file has {clash[0]!r} both as the name of its index and as a column; rename "
                         "one of them, or drop the index (df.reset_index(drop=True)).")
    return df.reset_index(level=named).reset_index(drop=True)


def text_columns(df: Any, which: str) -> Any:
    """``df`` with its column names as text (``str``), as a CSV file's are and as the spec names variables.

    A frame built from an array has the names 0, 1, 2, ...; the spec (inferred
    or a YAML mapping) names them '0', '1', '2'.  The frame is not copied when
    its names are text already (a shallow copy otherwise; the caller's frame is
    not changed).  Columns in several levels (a MultiIndex) are refused, and so
    are two names that become one text (1 and '1').
    """
    if not isinstance(df, pd.DataFrame) or all(type(c) is str for c in df.columns):
        return df
    if isinstance(df.columns, pd.MultiIndex):
        raise InputError(f"the {which} file's columns have {df.columns.nlevels} levels (a MultiIndex); give each column "
                         "one name, e.g. df.columns = ['_'.join(map(str, c)) for c in df.columns].")
    unnamed = [k for k, c in enumerate(df.columns) if c is pd.NA or (isinstance(c, float) and c != c)]
    if unnamed:  # pandas makes a dict's None key NaN: it would become a variable named 'nan'
        raise InputError(f"the {which} file's column {unnamed[0] + 1} has no name (NaN; a None key of a dict becomes "
                         "NaN); give every column a name, e.g. df.columns = [...].")
    names = [str(c) for c in df.columns]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise InputError(f"the {which} file has two columns named {dup!r} once written as text (e.g. 1 and '1'); "
                         "give every column a unique name.")
    out = df.copy(deep=False)
    out.columns = names
    return out


def _global_missing(spec: Spec) -> set[str]:
    return {normalise_label(m) for m in spec.missing}


# -- continuous ------------------------------------------------------------
def _cached_original(cache: dict | None, var: VariableSpec, compute: Callable[[], Any]) -> Any:
    if cache is None:
        return compute()
    key = (var.name, var.scale, tuple(map(str, var.missing)))
    if key not in cache:
        cache[key] = compute()
    return cache[key]


def _original_float(var: VariableSpec, o: pd.Series, missing: set[str]) -> np.ndarray:
    orig = _as_float(var, o, "original", missing)
    if np.isnan(orig).all():
        raise InputError(all_missing_in_original(var))
    return orig


def _check_same_time_kind(var: VariableSpec, o: pd.Series, p: pd.Series) -> None:
    """Dates (or durations) in one file and plain numbers in the other is an error: the dates are read as days
    since 1970-01-01, the numbers as they are (Stata's day numbers count from 1960), so every value differed."""
    kinds = temporal_kind(o), temporal_kind(p)
    if kinds[0] == kinds[1] or (kinds[0] is None and not pd.api.types.is_numeric_dtype(o)) or \
            (kinds[1] is None and not pd.api.types.is_numeric_dtype(p)):
        return
    what = {None: "numbers", "dates": "dates", "durations": "durations"}
    raise InputError(f"variable {var.name!r} holds {what[kinds[0]]} in the original file but {what[kinds[1]]} in the "
                     "protected file; give both files the same kind of values (dates in both, or the same numbers "
                     "in both, e.g. days since 1970-01-01).")


def _encode_continuous(var: VariableSpec, orig: np.ndarray, p: pd.Series | None, missing: set[str]) -> ContinuousColumn:
    prot = None
    if p is not None:
        # text is refused by _as_float, naming the value as for the original, unless the protection wrote
        # classes: those of a hierarchy, or of 'recode: breaks' (read at their midpoints below); a 'recode: top',
        # 'bottom' or 'map' keeps numbers, so its text is no class (it once made the whole column missing)
        classes = var.hierarchy is not None or (var.recode is not None and "breaks" in var.recode)
        prot = _as_float(var, p, "protected", missing) if not classes or _numeric_like(p) else None
        if prot is None and var.hierarchy is None and "breaks" in var.recode:
            prot = _class_midpoints(var, p, missing)
        if prot is None:  # generalised into text classes: all-missing here; the hierarchy view has them
            prot = np.full(len(p), np.nan)
        elif _same_floats(orig, prot):
            # a variable the protection left alone (local suppression or PRAM of other variables): one array
            # for both files, so that the work on it (sorted levels, ranks) is done once (EncodedPair.unchanged)
            prot = orig
    return ContinuousColumn(var.name, orig, prot)


def _class_midpoints(var: VariableSpec, p: pd.Series, missing: set[str]) -> np.ndarray:
    """A protected column of a ``recode: breaks`` variable whose classes are written as text: each class label
    as the midpoint of its class, numbers as they are.

    A label names class ``[b_k, b_k+1)`` in any notation the hierarchies read
    (``[30, 45)``, ``[30, 45[``, ``30-44``, ``30 to 44``, ``>=65`` for the
    last class, ``<15`` for the first); another label is an error.
    """
    from .hierarchy import parse_interval

    breaks = [float(b) for b in var.recode["breaks"]]
    drop = missing | {normalise_label(m) for m in var.missing}
    codes, uniques = pd.factorize(p, use_na_sentinel=True)
    values = np.full(len(uniques) + 1, np.nan)
    for i, raw in enumerate(np.asarray(uniques, dtype=object)):
        label = normalise_label(raw)
        if label in drop:
            continue
        values[i] = float(label) if _is_float(label) else _class_midpoint(var, label, breaks, parse_interval(label))
    out = values[codes]
    out.flags.writeable = False
    return out


def _class_midpoint(var: VariableSpec, label: str, breaks: list[float], interval: Any) -> float:
    for lo, hi, k in zip(breaks, breaks[1:], range(len(breaks))):
        if interval is not None and _names_class(interval, lo, hi, first=k == 0, last=k == len(breaks) - 2):
            return (lo + hi) / 2
    shown = ", ".join(f"[{a:g}, {b:g})" for a, b in zip(breaks, breaks[1:]))
    raise InputError(f"variable {var.name!r} has 'recode: breaks' but the protected file has the value {label!r}, "
                     f"which is neither a number nor one of its classes ({shown}); write each class as one of "
                     "those, or as a number inside it.")


def _names_class(interval: tuple[float, float, bool, bool], lo: float, hi: float, *, first: bool, last: bool) -> bool:
    """Whether a parsed label ``(low, high, low_closed, high_closed)`` names the class ``[lo, hi)``: the same
    bounds, a closed range of whole numbers ending below ``hi`` (30-44 for [30, 45)), or an open end."""
    a, b, a_closed, b_closed = interval
    low_ok = (a == lo and a_closed) or (first and a == -math.inf)
    high_ok = (b == hi and not b_closed) or (b_closed and hi - 1 <= b < hi) or (last and b == math.inf)
    return low_ok and high_ok


#: values compared first by :func:`_same_floats`, so that a changed variable costs almost nothing
_SAME_PREFIX = 4096


def _days(col: pd.Series) -> pd.Series | None:
    """A column of dates or durations as days (:func:`_as_days`), in any of pandas' forms; None for another column.

    numpy ``datetime64``/``timedelta64``, Arrow ``timestamp``/``date``/``duration``
    and object columns of ``Timestamp``, ``datetime``, ``date`` or
    ``timedelta`` values.  Taken as numbers, the last two would be in the unit
    they are stored in (microseconds, nanoseconds).
    """
    kind = temporal_kind(col)  # what kind, as infer_spec names it
    if kind is None:
        return None
    if isinstance(col.dtype, pd.ArrowDtype):
        return _arrow_days(col, col.dtype.pyarrow_dtype)
    if pd.api.types.is_datetime64_any_dtype(col) or pd.api.types.is_timedelta64_dtype(col):
        return _as_days(col)
    if kind == "dates":
        return _as_days(pd.to_datetime(col, utc=True))  # naive values as UTC: the same days since 1970
    return _as_days(pd.to_timedelta(col))


def _arrow_days(col: pd.Series, t: Any) -> pd.Series:
    """Days from an Arrow date, timestamp (UTC instants for one with a time zone) or duration column: its stored
    integers over the unit's count per day; nulls are missing."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_date32(t):
        per_day = 1.0
    elif pa.types.is_date64(t):
        per_day = 86_400_000.0
    else:
        per_day = 86_400.0 * {"s": 1, "ms": 1e3, "us": 1e6, "ns": 1e9}[t.unit]
    stored = pc.cast(pa.array(col), pa.int64() if not pa.types.is_date32(t) else pa.int32())
    days = pc.divide(pc.cast(stored, pa.float64()), per_day)
    return pd.Series(days.to_numpy(zero_copy_only=False), index=col.index, name=col.name)


def _as_days(col: pd.Series) -> pd.Series:
    """Dates as days since 1970-01-01 (UTC for dates with a time zone), durations as days; NaT is missing.

    Taken as numbers by pandas, a missing date (NaT) would be the smallest int64, -9.2e18.
    """
    if pd.api.types.is_timedelta64_dtype(col):
        return col / pd.Timedelta(days=1)
    tz = getattr(col.dt, "tz", None)
    return (col - pd.Timestamp("1970-01-01", tz="UTC" if tz is not None else None)) / pd.Timedelta(days=1)


def _same_floats(a: np.ndarray, b: np.ndarray) -> bool:
    """True when the two float arrays hold the same values in the same places: NaN where the other has NaN,
    and the same sign on zeros (-0.0 == 0.0 for numpy, but not for a value taken from the other file)."""
    if a.shape != b.shape:
        return False
    head = slice(0, _SAME_PREFIX)
    return bool(np.array_equal(a[head], b[head], equal_nan=True) and np.array_equal(a, b, equal_nan=True)
                and np.array_equal(np.signbit(a), np.signbit(b)))


def _as_float(var: VariableSpec, col: pd.Series, which: str, missing: set[str]) -> np.ndarray:
    days = _days(col)
    if days is not None:
        col = days
    if isinstance(col.dtype, pd.CategoricalDtype):
        col = col.astype(object)
    if pd.api.types.is_bool_dtype(col):
        col = col.astype(float)
    if isinstance(col.dtype, pd.IntervalDtype) or (col.dtype == object and
                                                   pd.api.types.infer_dtype(col, skipna=True) == "interval"):
        raise InputError(f"variable {var.name!r} holds intervals (classes such as {col.dropna().iloc[0]}) in the "
                         f"{which} file, not numbers; declare it ordinal, or describe its classes with "
                         "'hierarchy: {intervals: [...]}' or 'recode: {breaks: [...]}' in the spec.")
    if pd.api.types.is_complex_dtype(col):  # float() would drop the imaginary parts, with only a warning
        raise InputError(f"variable {var.name!r} holds complex numbers in the {which} file; give it real numbers "
                         "(e.g. its real part or its modulus as a column of its own).")
    if pd.api.types.is_numeric_dtype(col):
        x = col.to_numpy(dtype=float, na_value=np.nan)
    else:
        try:
            text = col.astype(object).where(col.notna(), None)
        except ArithmeticError:  # Decimal("sNaN"): pandas' missing-value check itself raises InvalidOperation
            raise InputError(f"variable {var.name!r} holds a signalling NaN (Decimal('sNaN')) in the {which} file, "
                             "which no arithmetic accepts; give missing values as empty cells or NaN.") from None
        text = text.map(lambda v: None if v is None or normalise_label(v) in missing else v)
        try:
            x = pd.to_numeric(text, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        except OverflowError:  # Python ints beyond the float range: infinite, refused below like 1e400
            x = pd.to_numeric(text.map(_float_or_infinite), errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        bad = text.notna().to_numpy() & np.isnan(x)
        if bad.any():
            raise not_a_number(var, which, text[bad].iloc[0])
    if var.missing:
        codes = [float(m) for m in var.missing if _is_float(m)]
        if codes:
            x = np.where(np.isin(x, codes), np.nan, x)
    infinite = np.isinf(x)
    if infinite.any():
        raise InputError(
            f"variable {var.name!r} has {counted(int(infinite.sum()), 'infinite value')} (inf or -inf, or a number "
            f"beyond ±1.8e308) in the {which} file; infinity is not a measurement: replace them by the real values, "
            "or by a missing code listed in the spec."
        )
    # the pair's arrays are read-only (no measure writes into them), so a read-only column of the frame
    # (pandas' copy-on-write, an Arrow-backed frame) is used as it is instead of copied; a view, so that
    # the frame's own array keeps its flags
    x = x.view()
    x.flags.writeable = False
    return x


def _float_or_infinite(value: Any) -> Any:
    """A Python int beyond the float range as ±inf (``float`` raises for it); any other value as it is."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**1024:
        return math.inf if value > 0 else -math.inf
    return value


def _is_float(value: Any) -> bool:
    try:
        float(value)
    except (TypeError, ValueError, OverflowError):  # OverflowError: a whole number beyond the float range
        return False
    return True


def _numeric_like(col: pd.Series) -> bool:
    if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
        return True
    # only the distinct values are converted to text: a million-row column has few of them
    values = pd.Series(np.asarray(_distinct_present(col), dtype=object)).astype(str)
    return len(values) > 0 and pd.to_numeric(values, errors="coerce").notna().all()


def _value_kind(col: pd.Series, missing: set[str], distinct: Any = None) -> bool | None:
    """True for numbers, False for text, None when every value is missing (or a missing code).

    ``distinct``: the column's distinct present values when already known
    (the uniques of its ``pd.factorize``), so that they are not found again.
    """
    if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
        return None if col.isna().all() else True
    if distinct is None:
        distinct = _distinct_present(col)
    key = _kind_key(distinct, missing)
    return _text_kind(distinct, missing) if key is None else _memo_text_kind(key)


#: the most distinct values whose kind :func:`_memo_text_kind` remembers (a wide file's categories repeat)
_KIND_MEMO_VALUES = 256


def _kind_key(distinct: Any, missing: set[str]) -> tuple[frozenset, frozenset] | None:
    """``distinct`` and ``missing`` as :func:`_memo_text_kind`'s key, None when too many or unhashable.

    Each value keeps its type: 1, 1.0 and True are equal as keys but ``_text_kind`` reads them as
    "1", "1.0" and "True"."""
    if len(distinct) > _KIND_MEMO_VALUES:
        return None
    try:
        return frozenset((type(v), v) for v in distinct), frozenset(missing)
    except TypeError:  # an unhashable value (a signalling Decimal NaN)
        return None


@functools.lru_cache(maxsize=1024)
def _memo_text_kind(key: tuple[frozenset, frozenset]) -> bool | None:
    """:func:`_text_kind` of a few distinct values, found once for every column that has them.

    A survey's questions share their answers (yes/no, the points of a scale):
    found for each column, the kind of 3,000 such columns took 3.7 s of
    pandas calls on a few values each (encoding them: 4.3 s, now 0.6 s).  The result depends only on the set of
    values (their kind is True only if every one reads as a number)."""
    values, missing = key
    return _text_kind([v for _, v in values], set(missing))


def _text_kind(distinct: Any, missing: set[str]) -> bool | None:
    """:func:`_value_kind` of a column that is not numeric, from its distinct present values."""
    text = pd.Series(np.asarray(distinct, dtype=object)).astype(str).str.strip()
    # ARX's suppressed value ("*", stars only) stands for any value: it is no sign of text codes
    text = text[~text.isin(missing) & ~text.str.fullmatch(r"\*+")]
    if len(text) <= len(missing):  # few values left: they may still be missing codes written differently ("-99.0")
        text = text[[normalise_label(x) not in missing for x in text]]
    if text.empty:
        return None
    return bool(pd.to_numeric(text, errors="coerce").notna().all())


def _distinct_present(col: pd.Series) -> Any:
    """The distinct values of a column, without missing values."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        codes = col.cat.codes.to_numpy()
        return col.cat.categories[np.unique(codes[codes >= 0])]
    return pd.unique(col.dropna())


def _check_same_kind(
    var: VariableSpec, o: pd.Series, p: pd.Series, missing: set[str], cache: dict | None = None,
    distinct: tuple[Any, Any] = (None, None),
) -> None:
    """Numbers in one file and text in the other is an error; a column with no value at all fits either.

    The original's kind is found once for all scenarios (``cache``, the original cache of ``compare``).
    """
    drop = missing | {normalise_label(m) for m in var.missing}
    try:
        kind_key = VariableSpec(var.name, "kind of values", missing=sorted(drop))
        kinds = [_cached_original(cache, kind_key, lambda: _value_kind(o, drop, distinct[0])),
                 _value_kind(p, drop, distinct[1])]
    except (TypeError, NotImplementedError):  # unhashable values (Arrow: no kernel for list or struct)
        raise not_scalar(var) from None
    if None not in kinds and kinds[0] != kinds[1]:
        num, text = ("original", "protected") if kinds[0] else ("protected", "original")
        raise InputError(
            f"variable {var.name!r} holds numbers in the {num} file but {_what_not_numbers(o if kinds[1] else p)} "
            f"in the {text} file; make the two files use the same codes, or describe the recoding with 'recode:' "
            "in the spec."
        )


def _what_not_numbers(col: pd.Series) -> str:
    """What a column that is not numbers holds, as :func:`_check_same_kind` names it: true/false values or dates,
    else text (booleans against numbers were called "text")."""
    if pd.api.types.is_bool_dtype(col) or (col.dtype == object and
                                          pd.api.types.infer_dtype(col, skipna=True) == "boolean"):
        return "true/false values"
    return "dates" if temporal_kind(col) == "dates" else "text"


# -- categorical -----------------------------------------------------------
def _original_factors(var: VariableSpec, o: pd.Series, missing: set[str]) -> tuple[np.ndarray, list[str], Any]:
    o_codes, o_labels, o_distinct = _factorize(var, o, missing)
    if (o_codes < 0).all():
        raise InputError(all_missing_in_original(var))
    return o_codes, o_labels, o_distinct


def _encode_categorical(
    var: VariableSpec,
    factors: tuple[np.ndarray, list[str], Any],
    o: pd.Series,
    p: pd.Series | None,
    missing: set[str],
    cache: dict | None = None,
) -> CategoricalColumn:
    o_codes, o_labels, o_distinct = factors
    p_codes, p_labels, p_distinct = _factorize(var, p, missing) if p is not None else (None, [], None)
    if p is not None and var.recode is None and var.hierarchy is None:
        _check_same_kind(var, o, p, missing, cache, (o_distinct, p_distinct))
    categories = _category_order(var, o, p, o_labels, p_labels)
    position = {label: i for i, label in enumerate(categories)}
    orig = _original_codes(cache, var, categories, lambda: _remap(o_codes, o_labels, position))
    prot = _remap(p_codes, p_labels, position) if p_codes is not None else None
    if prot is not None and _same_codes(orig, prot):
        prot = orig  # a variable the protection left alone: one array for both files (EncodedPair.unchanged)
    return CategoricalColumn(var.name, var.scale, categories, orig, prot)


def _same_codes(a: np.ndarray, b: np.ndarray) -> bool:
    """True when the two code arrays are equal (the first few codes compared first, as in :func:`_same_floats`)."""
    head = slice(0, _SAME_PREFIX)
    return a.shape == b.shape and bool(np.array_equal(a[head], b[head]) and np.array_equal(a, b))


def _factorize(var: VariableSpec, col: pd.Series, missing: set[str]) -> tuple[np.ndarray, list[str], Any]:
    """The column's codes (int32, -1 for missing and missing codes), its labels and its distinct present values."""
    try:
        codes, uniques = pd.factorize(col, use_na_sentinel=True)
    except (TypeError, NotImplementedError):  # unhashable values (Arrow: no kernel for list or struct)
        raise not_scalar(var) from None
    labels = [normalise_label(u) for u in np.asarray(uniques, dtype=object)]
    drop = missing | {normalise_label(m) for m in var.missing}
    if var.hierarchy is not None:  # a hierarchy's suppression codes (*, ***, listed codes) mean missing
        from .generalised import spec_suppression

        drop = drop | {label for label in labels if spec_suppression(var.hierarchy, label)}
    if drop & set(labels):
        keep = np.array([label not in drop for label in labels] + [False])
        codes = np.where(keep[codes], codes, -1)  # codes == -1 indexes the trailing False
        labels = [label if label not in drop else None for label in labels]
    return codes.astype(np.int32, copy=False), labels, uniques


def _original_codes(
    cache: dict | None, var: VariableSpec, categories: list[str], compute: Callable[[], np.ndarray]
) -> np.ndarray:
    """The original's codes over ``categories``: the same array for the scenarios of one ``compare`` whose
    protected files give the same categories, so that results on them can be shared
    (:meth:`EncodedPair.cached_original_arrays`); only the last categories' codes are kept."""
    if cache is None:
        return compute()
    key = ("original codes", var.name, var.scale, tuple(map(str, var.missing)))
    held = cache.get(key)
    if held is None or held[0] != tuple(categories):
        codes = compute()
        codes.flags.writeable = False  # shared by scenarios: no measure may change it in place
        held = cache[key] = (tuple(categories), codes)
    return held[1]


def _remap(codes: np.ndarray, labels: list[str], position: dict[str, int]) -> np.ndarray:
    lookup = np.array([position.get(label, -1) for label in labels] + [-1], dtype=np.int32)
    return lookup[codes]


def _category_order(
    var: VariableSpec, o: pd.Series, p: pd.Series | None, o_labels: list[str], p_labels: list[str]
) -> list[str]:
    present = [label for label in dict.fromkeys(o_labels + p_labels) if label is not None]
    if var.scale == "ordinal" and var.order is not None:
        order = [normalise_label(x) for x in var.order]
        declared = set(order)
        absent = [label for label in present if label not in declared]
        if absent and var.hierarchy is not None:  # generalised values follow the order (the hierarchy ranks them)
            return order + absent
        if absent:
            raise SpecError(
                f"the 'order' of ordinal variable {var.name!r} misses categories present in the data: "
                f"{shortened([excerpt(a) for a in sorted(absent)], 'category', plural='categories')}; add them to its order or list them "
                "as missing codes."
            )
        return order
    label_order = _label_order(o, p, ordinal=var.scale == "ordinal")
    if label_order is not None:
        listed = set(label_order)
        return label_order + [x for x in present if x not in listed]
    if var.hierarchy is not None:  # the original's values (leaves) first, generalised values after them
        leaves = [label for label in dict.fromkeys(o_labels) if label is not None]
        leaf_set = set(leaves)
        extra = [label for label in present if label not in leaf_set]
        return sorted(leaves, key=_sort_key(leaves)) + sorted(extra, key=_sort_key(extra))
    if var.scale == "ordinal":
        return sorted(present, key=_numbers_first)
    return sorted(present, key=_sort_key(present))


def _label_order(o: pd.Series, p: pd.Series | None, *, ordinal: bool = False) -> list[str] | None:
    """The declared categories of Categorical columns (value labels in code order, or an order the user gave):
    the original's, then those only the protected file declares; None when neither column is a Categorical.

    Declared categories count even when no record holds them (R's
    ``table`` of a factor keeps its unused levels too), in whichever file
    declares them.  For an ordinal scale, an unordered Categorical whose
    categories are in lexical order is taken as pandas' default
    (``astype("category")`` sorts them so: "1" < "10" < "2"), not a chosen
    order: its categories take the scale's default order.
    """
    declared: dict[str, None] = {}
    for col in (o, p):
        if col is not None and isinstance(col.dtype, pd.CategoricalDtype):
            labels = [normalise_label(c) for c in col.cat.categories]
            if ordinal and not col.cat.ordered and labels == sorted(labels):
                labels = sorted(labels, key=_numbers_first)
            declared.update(dict.fromkeys(labels))
    return list(declared) or None


def _sort_key(labels: list[str]) -> Callable[[str], Any]:
    numeric = all(_is_float(x) for x in labels)
    return (lambda x: float(x)) if numeric else (lambda x: x)


def _numbers_first(label: str) -> tuple:
    """An ordinal scale's default order: numeric codes in numeric order, then the other labels lexically (codes 1,
    2, 10 and a protected class "0-4" rank 1 < 2 < 10 < "0-4", not "0-4" < 1 < 10 < 2)."""
    number = float(label) if _is_float(label) else math.nan
    return (0, number, "") if math.isfinite(number) else (1, 0.0, label)


# -- weights ---------------------------------------------------------------
def _weights(spec: Spec, df: pd.DataFrame, which: str) -> np.ndarray | None:
    name = spec.weight
    if name is None:
        return None
    col = df[name]
    if pd.api.types.is_complex_dtype(col):
        raise InputError(f"the weight column {name!r} of the {which} file holds complex numbers; weights are real "
                         "numbers, zero or positive.")
    if _days(col) is not None:  # taken as numbers, they would be nanoseconds
        raise InputError(f"the weight column {name!r} of the {which} file holds dates or durations; weights are real "
                         "numbers, zero or positive (check that the spec names the right weight column).")
    text = None
    if not pd.api.types.is_numeric_dtype(col):
        text = col
        col = pd.to_numeric(col, errors="coerce")
    w = col.to_numpy(dtype=float, na_value=np.nan)
    if text is not None and np.isnan(w).any():
        bad = text[np.isnan(w) & text.notna().to_numpy()]
        written = number_writing(str(bad.iloc[0])) if len(bad) else None
        if written:
            raise InputError(f"the weight column {name!r} of the {which} file writes its numbers with {written}")
    if np.isinf(w).any():
        raise InputError(
            f"the weight column {name!r} of the {which} file has {counted(int(np.isinf(w).sum()), 'infinite value')}; "
            "every record needs a finite weight."
        )
    if np.isnan(w).any():
        raise InputError(
            f"the weight column {name!r} of the {which} file has "
            f"{counted(int(np.isnan(w).sum()), 'missing or non-numeric value')}; every record needs a weight."
        )
    if (w < 0).any():
        raise InputError(
            f"the weight column {name!r} of the {which} file has {counted(int((w < 0).sum()), 'negative value')}; "
            "weights must be zero or positive."
        )
    positive = w[w > 0]
    if w.size and not positive.size:
        raise InputError(
            f"the weight column {name!r} of the {which} file has no positive weight (every weight is 0); "
            "give the records their weights, or drop the weight role."
        )
    if positive.size and math.log10(positive.max()) - math.log10(positive.min()) > math.log10(WEIGHT_RANGE[1] / WEIGHT_RANGE[0]):
        raise InputError(
            f"the weight column {name!r} of the {which} file has weights from {positive.min():.3g} to "
            f"{positive.max():.3g}, more than {math.log10(WEIGHT_RANGE[1] / WEIGHT_RANGE[0]):.0f} orders of magnitude "
            "apart, which no common factor brings into infoloss's range; check the smallest and largest weights."
        )
    if positive.size and (positive.max() > WEIGHT_RANGE[1] or positive.min() < WEIGHT_RANGE[0]):
        raise InputError(
            f"the weight column {name!r} of the {which} file has weights from {positive.min():.3g} to "
            f"{positive.max():.3g}; infoloss takes positive weights between {WEIGHT_RANGE[0]:g} and "
            f"{WEIGHT_RANGE[1]:g} (and zeros): multiply or divide them all by one constant."
        )
    return w


#: the smallest and largest positive weight: their squares and the sums of a file's squared weights
#: (Kish's effective size, weighted variances) stay normal, finite float64 numbers
WEIGHT_RANGE = (1e-100, 1e100)


# -- survey design ---------------------------------------------------------
def _households(
    spec: Spec, original: pd.DataFrame, protected: pd.DataFrame, paired: bool, cache: dict | None
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The household ids of both files as int64 codes (-1 missing); the original's are shared by all pairs."""
    names = spec.names_with_role("household")
    if not names:
        return None, None
    return _group_column(spec, names[0], original, protected, paired, cache, required=False)


def _design_codes(
    spec: Spec, original: pd.DataFrame, protected: pd.DataFrame, paired: bool, cache: dict | None
) -> dict[str, tuple[np.ndarray, np.ndarray | None]]:
    """Codes of the cluster (PSU) columns; a paired protected file without the column uses the original's."""
    return {
        name: _group_column(spec, name, original, protected, paired, cache, required=True)
        for name in spec.names_with_role("cluster")
        if name in original.columns  # check_columns has already said so for listed variables
    }


def _group_column(
    spec: Spec, name: str, original: pd.DataFrame, protected: pd.DataFrame, paired: bool, cache: dict | None,
    *, required: bool,
) -> tuple[np.ndarray, np.ndarray | None]:
    """A grouping column (household or cluster id) of both files as int64 codes, -1 missing.

    Missing codes of the spec count as missing; ``required``: a missing id in the original is an error.
    The original's codes are shared by all pairs of one original; a paired protected file without the
    column uses the original's.
    """
    missing = _global_missing(spec) | {normalise_label(m) for m in spec.variables[name].missing}
    orig = _cached_original(cache, VariableSpec(name, "group-id", missing=sorted(missing)),
                            lambda: _group_codes(original[name], missing))
    if required and (orig < 0).any():
        raise InputError(
            f"the {spec.variables[name].role} column {name!r} of the original file has {int((orig < 0).sum())} "
            "missing values; every record needs its id."
        )
    if name in protected.columns:
        prot = _group_codes(protected[name], missing)
    else:
        prot = orig if paired else None
    return orig, prot


def _group_codes(col: pd.Series, missing: set[str]) -> np.ndarray:
    """Codes of an id column, with labels normalised once per distinct value (2, 2.0 and "2" are one id)."""
    raw, uniques = pd.factorize(col, use_na_sentinel=True)
    labels = [normalise_label(u) for u in np.asarray(uniques, dtype=object)]
    ids, _ = pd.factorize(pd.Series([None if label in missing else label for label in labels], dtype=object))
    return np.append(ids, -1).astype(np.int64)[raw]


# -- global recoding -------------------------------------------------------
def _once(store: dict, key: Any, compute: Callable[[], Any], locks: KeyLocks, lock_key: Any) -> Any:
    """``store[key]``, computed with ``compute()`` under the lock of ``lock_key`` if it is not there yet."""
    try:
        return store[key]
    except KeyError:
        pass
    with locks(lock_key):
        if key not in store:
            store[key] = compute()
        return store[key]
