"""Shared helpers of the data-mining measures: feature coding fixed by the original, seeds and spreads.

Both the models (``mining.py``) and the clusterings (``clustering.py``) see the
two files through one coding that is derived from the *original file only*,
so that everything fitted on the original can be computed once and shared
between scenarios (``EncodedPair.cached_original``):

* a continuous variable is its float value (NaN for missing), times a power
  of two fixed by the original when its values are extreme (beyond about
  1e120; :mod:`infoloss.numeric`): exact, so ordinary data are unchanged and
  every fit, prediction and scale-free score is the same, while values up to
  ±1.8e308 give no overflow;
* a categorical variable is the position of its category among the
  categories that occur in the original (in the pair's category order:
  the spec's order for an ordinal variable, otherwise numeric or lexical
  order), NaN for missing and for a protected category the original does
  not have (a protected model cannot learn anything about it that applies
  to original records).

The layout records the original's category labels, and the cache keys
include them, so a shared result is reused only when the coding is the same.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable, Sequence, TypeVar

import numpy as np

from ..errors import NotComputed
from ..numeric import safe_exponent, scaled, unscale
from ..pair import ORIGINAL, EncodedPair


@dataclass(frozen=True)
class Feature:
    """One variable as the mining measures code it.

    ``kind`` is ``"continuous"``, ``"ordinal"`` or ``"nominal"``; ``labels``
    are the original's categories in code order (empty for continuous);
    ``exponent``: a continuous variable's values are coded as ``x * 2**-exponent``
    (0 unless the original's values are extreme, see the module docstring).
    """

    name: str
    kind: str
    labels: tuple[str, ...] = ()
    exponent: int = 0

    @property
    def n_levels(self) -> int:
        return len(self.labels)


def feature(pair: EncodedPair, name: str) -> Feature:
    """The coding of variable ``name``, from the original file only."""

    def compute() -> Feature:
        if name in pair.continuous:
            return Feature(name, "continuous", exponent=safe_exponent(pair.continuous[name].orig))
        col = pair.categorical[name]
        used = np.flatnonzero(np.bincount(col.orig[col.orig >= 0], minlength=col.n_categories))
        kind = "ordinal" if col.scale == "ordinal" else "nominal"
        return Feature(name, kind, tuple(col.categories[i] for i in used))

    return pair.cached(("mining", "feature", name), compute)


def layout(pair: EncodedPair, names: Sequence[str]) -> tuple[Feature, ...]:
    return tuple(feature(pair, n) for n in names)


def column(pair: EncodedPair, feat: Feature, which: str, rows: np.ndarray | None = None) -> np.ndarray:
    """The variable's values in file ``which`` (at ``rows``) under the coding: float64, NaN missing."""
    if feat.kind == "continuous":
        x = pair.continuous[feat.name].values(which)
        x = (x if rows is None else x[rows]).astype(np.float64, copy=True)
        if feat.exponent:
            with np.errstate(over="ignore"):  # a protected value far beyond the original's cannot overflow below 1
                x = scaled(x, feat.exponent, out=x)
        return x
    col = pair.categorical[feat.name]
    lookup = pair.cached(("mining", "lookup", feat.name), lambda: _lookup(col.categories, feat.labels))
    codes = col.codes(which)
    return lookup[codes if rows is None else codes[rows]]


def _lookup(categories: list[str], labels: tuple[str, ...]) -> np.ndarray:
    """Pair category code -> position among the original's labels (NaN when absent); index -1 is missing."""
    position = {label: float(i) for i, label in enumerate(labels)}
    return np.array([position.get(c, np.nan) for c in categories] + [np.nan], dtype=np.float64)


def matrix(pair: EncodedPair, feats: Sequence[Feature], which: str, rows: np.ndarray | None) -> np.ndarray:
    """The features as an (n, p) float64 array at ``rows`` (every record when None)."""
    n = pair.n(which) if rows is None else rows.shape[0]
    if not feats:
        return np.empty((n, 0))
    return np.column_stack([column(pair, f, which, rows) for f in feats])


def available(pair: EncodedPair, names: Sequence[str]) -> list[str]:
    """The variables among ``names`` that the protected file has (not removed)."""
    out = []
    for n in names:
        col = pair.continuous.get(n) or pair.categorical.get(n)
        if col is not None and col.prot is not None:
            out.append(n)
    return out


F = TypeVar("F", bound=Callable[..., Any])


def one_thread(func: F) -> F:
    """Run ``func`` with the OpenMP and BLAS thread pools limited to one thread.

    HistGradientBoosting and KMeans use every core through OpenMP; on a
    machine whose cores are busy with other work their threads spin-wait
    for each other and a fit takes about ten times longer than on one thread
    (measured on 2 cores: 35 s instead of 3.7 s).  The mining measures fit
    many small models, so one thread each is the predictable choice.
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from .._concurrent import thread_limits

        with thread_limits(1, user_api=None):
            return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def seeds(seed: int, n_seeds: int) -> list[int]:
    """The seeds of a multi-seed result: ``seed, seed + 1, ..., seed + n_seeds - 1``."""
    return [int(seed) + i for i in range(int(n_seeds))]


def spread(values: Sequence[float], seed_list: Sequence[int] | None = None) -> dict[str, Any]:
    """Mean and spread of a result over seeds: mean, sd (n - 1 denominator; 0 for one seed), min, max."""
    v = np.asarray(values, dtype=float)
    e = safe_exponent(v)  # exact power-of-two scaling: values near ±1.8e308 (an RMSE) give no overflow
    vs = scaled(v, e) if e else v
    out: dict[str, Any] = {
        "mean": float(unscale(vs.mean(), e)),
        "sd": float(unscale(vs.std(ddof=1), e)) if v.shape[0] > 1 else 0.0,
        "min": float(v.min()),
        "max": float(v.max()),
        "values": [float(x) for x in v],
    }
    if seed_list is not None:
        out["seeds"] = [int(s) for s in seed_list]
    return out


def sample_rows(n: int, max_records: int, rng: np.random.Generator) -> np.ndarray | None:
    """Sorted seeded simple random sample of ``max_records`` of ``n`` record numbers; None keeps all."""
    if n <= max_records:
        return None
    return np.sort(rng.choice(n, max_records, replace=False))


def original_labels_key(feats: Sequence[Feature]) -> tuple:
    """A hashable description of the coding (names, kinds, labels, scaling) for cache keys."""
    return tuple((f.name, f.kind, f.labels, f.exponent) for f in feats)


def require_variables(names: Sequence[str], what: str) -> None:
    if not names:
        raise NotComputed(f"there is no variable to {what}")


__all__ = [
    "Feature",
    "ORIGINAL",
    "available",
    "column",
    "feature",
    "layout",
    "one_thread",
    "matrix",
    "original_labels_key",
    "require_variables",
    "sample_rows",
    "seeds",
    "spread",
]
