"""Shared pieces of the generalisation family's modules (per-record losses, weights)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import InputError
from ..generalised import GeneralisedColumn, quasi_identifiers
from ..numeric import safe_exponent, scaled
from ..pair import EncodedPair
from ..registry import Option


def _check_weights(value: Any) -> None:
    if not isinstance(value, dict) or not value:
        raise ValueError("not a mapping")
    for name, w in value.items():
        if not isinstance(name, str) or isinstance(w, bool) or not isinstance(w, (int, float)) or not w >= 0:
            raise ValueError("bad weight")
        if not math.isfinite(w):
            raise ValueError("bad weight")


WEIGHTS = Option(
    "weights", "any", None, "attribute weights, variable → weight (unlisted variables weigh 1); default: all 1",
    check=_check_weights, allowed_text="a mapping of variable names to non-negative numbers", nullable=True,
)


def qi(pair: EncodedPair) -> list[GeneralisedColumn]:
    return quasi_identifiers(pair)


def numeric(pair: EncodedPair, gc: GeneralisedColumn) -> bool:
    """Interval widths apply: a continuous variable with numeric leaves."""
    return gc.hierarchy.numeric and pair.variable(gc.name).scale == "continuous"


def width(gc: GeneralisedColumn, low: float, high: float, e: int = 0) -> np.ndarray:
    """Width of every protected value's numeric span within ``[low, high]`` (0 for a leaf), in units of ``2**e``.

    ``e`` is a power-of-two scaling exponent (:mod:`infoloss.numeric`): with
    ``e`` from :func:`span_exponent`, bounds up to ±1.8e308 give finite
    widths, and ``width / (high - low)`` computed in the same units is
    exactly the unscaled ratio.
    """

    def compute() -> np.ndarray:
        h = gc.hierarchy
        lo_b, hi_b = (float(scaled(np.float64(b), e)) for b in (low, high)) if e else (low, high)
        with np.errstate(over="ignore"):  # node bounds far outside [low, high] may scale to ±inf: clipped below
            lo = np.clip(scaled(h.low, e) if e else h.low, lo_b, hi_b)
            hi = np.clip(scaled(h.high, e) if e else h.high, lo_b, hi_b)
        width = np.maximum(hi - lo, 0.0)[gc.prot_node]
        if gc.both_missing is not None:
            width[gc.both_missing] = 0.0
        return width

    return gc._cached(("width", low, high, e), compute)


def span_exponent(low: float, high: float) -> int:
    """The scaling exponent that keeps ``high - low`` and every width within it finite (0 for ordinary bounds)."""
    return safe_exponent(np.array([low, high], dtype=np.float64))


def relative_width(gc: GeneralisedColumn, low: float, high: float) -> np.ndarray:
    """``width / (high - low)`` per record, exactly, for bounds up to ±1.8e308; zeros when ``high <= low``."""
    if not high > low:
        return np.zeros(gc.prot_node.shape[0])
    e = span_exponent(low, high)
    lo_b, hi_b = (float(scaled(np.float64(b), e)) for b in (low, high)) if e else (low, high)
    return width(gc, low, high, e) / (hi_b - lo_b)


def table_range(gc: GeneralisedColumn) -> tuple[float, float]:
    """The smallest and largest original value (Ghinita et al.'s ``min_T``, ``max_T``)."""
    values = gc.hierarchy.leaf_values()
    leaves = gc.orig_leaf[gc.orig_leaf >= 0]
    used = values[np.unique(leaves)]
    return (float(used.min()), float(used.max())) if used.size else (0.0, 0.0)


def share(gc: GeneralisedColumn) -> np.ndarray:
    """``(L(v) − 1)/(|D| − 1)`` per record: Iyengar's categorical loss (0 for a leaf, 1 for the root)."""
    d = gc.hierarchy.n_leaves
    return gc._cached("share", lambda: (gc.leaf_count - 1.0) / (d - 1.0) if d > 1 else np.zeros_like(gc.leaf_count))


def lm_per_record(pair: EncodedPair, gc: GeneralisedColumn) -> tuple[np.ndarray, str]:
    """Iyengar's loss per record, and which form was used."""
    h = gc.hierarchy
    if h.kind == "intervals" and numeric(pair, gc):
        low, high = h.domain
        return relative_width(gc, low, high), "interval width / domain width"
    return share(gc), "(L(v) - 1) / (|D| - 1)"


def arx_lm(pair: EncodedPair, gc: GeneralisedColumn) -> float:
    """ARX's Loss of one attribute (gs-factor 0.5): ``(Σ share − N/|D|)/(N − N/|D|)`` clipped at 0."""
    h = gc.hierarchy
    n = gc.prot_node.shape[0]
    if h.kind == "intervals" and numeric(pair, gc):
        low, high = h.domain
        e = span_exponent(low, high)  # widths and size in units of 2**e, so that ±1.8e308 bounds stay finite
        unit = float(scaled(np.float64(1.0), e)) if e else 1.0
        size_s = float(scaled(np.float64(high), e) - scaled(np.float64(low), e)) if e else high - low
        share = np.where(gc.prot_level == 0, unit, width(gc, low, high, e)) / size_s  # ARX: a leaf has share 1/|D|
        floor = n * (unit / size_s)  # n / |D|
    else:
        size = float(h.n_leaves)
        share = gc.leaf_count / size
        floor = n / size
    share = np.where(gc.is_root & ~both(gc), 1.0, share)
    if n - floor <= 0:
        return 0.0
    return max((float(share.sum()) - floor) / (n - floor), 0.0)


def both(gc: GeneralisedColumn) -> np.ndarray:
    return gc.both_missing if gc.both_missing is not None else np.zeros(gc.prot_node.shape[0], dtype=bool)


def weights_for(cols: list[GeneralisedColumn], weights: dict | None) -> dict[str, float]:
    """Each quasi-identifier's weight (1 unless listed); InputError for a name that is no quasi-identifier."""
    names = [gc.name for gc in cols]
    if weights:
        unknown = [k for k in weights if k not in names]
        if unknown:
            raise InputError(
                f"the weights name {unknown[0]!r}, which is not a quasi-identifier; use one of {', '.join(names)}."
            )
    return {n: float((weights or {}).get(n, 1.0)) for n in names}
