"""The Domingo-Ferrer, Mateo-Sanz & Torra table of the moments family: ``{x, xbar, v, s, r, rf, c, f}_{mse, mae, mv}``.

One :class:`_Matrix` per compared statistic (the data X, means X̄,
covariances V, variances S, correlations R, variable–component correlations
RF, communalities C, loadings F) with the function that builds its table of
original and protected elements, and :func:`_make`, which turns a matrix and a
statistic (mse, mae, mv) into a measure with its generated docstring.  The 24
measures are registered and published by :mod:`infoloss.measures.moments`
(which calls :func:`_make` in a loop, so their ids, order and module are those
of the moments family); Trottini's bound of the mean variation is here too.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import numpy as np

from .. import limits, numeric
from ..errors import NotComputed
from ..pair import ORIGINAL, PROTECTED, EncodedPair
from ..registry import MeasureResult, Option, measure
from ._moments_files import (
    _CHUNK,
    _column,
    _complete,
    _correlation,
    _join,
    _need_two,
    _pca,
    _slices,
    _Univariate,
    _univariate,
)

ZERO_TOLERANCE = 1e-12  # |statistic| <= this times its natural scale counts as zero (mean variation)
_HOME = "infoloss.measures.moments"  # the generated measures are published (and their doctests run) there


@dataclass
class _Sums:
    """Sums of the three discrepancies over a group of matrix elements.

    ``sq`` and ``ab`` are in units of ``2**(2 exp)`` and ``2**exp`` (exact
    scaling, see :mod:`infoloss.numeric`), so that the sums of differences
    of values near 1e308 stay finite; ``value`` scales the mean back.
    """

    n: int = 0  # elements compared
    sq: float = 0.0  # Σ w (a − a')²  (times 2**(-2 exp))
    ab: float = 0.0  # Σ w |a − a'|  (times 2**-exp)
    n_mv: int = 0  # elements with a non-zero original value
    rel: float = 0.0  # Σ w |a − a'| / |a| over those
    exp: int = 0
    w_mv: float | None = None  # Σ w over those, the mean variation's divisor (None: unweighted, n_mv)
    # per element with a non-zero original (relative variation, weight, label), for Trottini's bound;
    # None for the data matrix X, whose n·p cells are bounded in a pass of their own
    elements: tuple[np.ndarray, np.ndarray, list[str]] | None = None

    def value(self, stat: str) -> float | None:
        if stat == "mse":
            return numeric.unscale(self.sq / self.n, 2 * self.exp) if self.n else None
        if stat == "mae":
            return numeric.unscale(self.ab / self.n, self.exp) if self.n else None
        return self.rel / self.mv_weight if self.n_mv else None

    @property
    def mv_weight(self) -> float:
        """The weight of the elements with a non-zero original: a weighted mean variation divides by it."""
        return float(self.n_mv) if self.w_mv is None else self.w_mv

    def bounded(self, bound: float) -> tuple[float | None, list[str]]:
        """Mean variation with each element's relative variation capped at ``bound``; the capped labels."""
        rel, w, labels = self.elements
        value = float(np.sum(w * np.minimum(rel, bound))) / self.mv_weight if self.n_mv else None
        return value, [labels[i] for i in np.flatnonzero(rel > bound)]

    def __add__(self, other: "_Sums") -> "_Sums":
        e = max(self.exp, other.exp)
        a, b = self.at(e), other.at(e)
        elements = None
        if a.elements is not None and b.elements is not None:
            elements = tuple(np.concatenate([x, y]) for x, y in zip(a.elements[:2], b.elements[:2]))
            elements += (a.elements[2] + b.elements[2],)
        elif a.n == 0:
            elements = b.elements
        elif b.n == 0:
            elements = a.elements
        w_mv = None if a.w_mv is None and b.w_mv is None else a.mv_weight + b.mv_weight
        return _Sums(a.n + b.n, a.sq + b.sq, a.ab + b.ab, a.n_mv + b.n_mv, a.rel + b.rel, e, w_mv, elements)

    def at(self, e: int) -> "_Sums":
        """The same sums in units of ``2**e`` (``e >= exp``; exact unless they underflow)."""
        if e == self.exp:
            return self
        shift = self.exp - e
        return _Sums(self.n, numeric.unscale(self.sq, 2 * shift), numeric.unscale(self.ab, shift), self.n_mv,
                     self.rel, e, self.w_mv, self.elements)


def _total(groups: Iterable[_Sums]) -> _Sums:
    """``sum(groups, _Sums())`` in one pass: the same numbers (the additions in the same order, the power-of-two
    scalings exact), without concatenating the kept elements once per group (quadratic: 500,000 correlation
    pairs of 1,000 variables took minutes)."""
    groups = list(groups)
    if not groups:
        return _Sums()
    e = max(0, *(g.exp for g in groups))
    scaled = [g.at(e) for g in groups]
    total = _Sums(exp=e)
    for field_name in ("n", "sq", "ab", "n_mv", "rel"):
        value = getattr(total, field_name)
        for g in scaled:
            value = value + getattr(g, field_name)
        setattr(total, field_name, value)
    if any(g.w_mv is not None for g in scaled):
        weight = 0.0
        for g in scaled:
            weight = weight + g.mv_weight
        total.w_mv = weight
    if not any(g.n > 0 and g.elements is None for g in scaled):
        kept = [g.elements for g in scaled if g.elements is not None]
        if kept:
            total.elements = (np.concatenate([k[0] for k in kept]), np.concatenate([k[1] for k in kept]),
                              [label for k in kept for label in k[2]])
    return total


def _element_sums(a: np.ndarray, b: np.ndarray, zero: float, labels: list[str]) -> list[_Sums]:
    """``[_sums(a[k], b[k], zero, labels=[labels[k]]) for k ...]`` (one group per element, unweighted), the same
    numbers computed for all elements at once (a loop of ``_sums`` took 14 s for 1,000 variables' 500,000 pairs)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    with np.errstate(over="ignore"):
        d = np.abs(a - b)
        nz = np.abs(a) > zero
        rel = np.divide(d, np.abs(a), out=np.zeros_like(d), where=nz)
        sq = d * d
    empty, one = np.zeros(0), np.ones(1)
    out = []
    for k, (dk, sqk, nzk, relk) in enumerate(zip(d.tolist(), sq.tolist(), nz.tolist(), rel.tolist())):
        elements = (np.array([relk]), one, [labels[k]]) if nzk else (empty, empty, [])
        out.append(_Sums(1, sqk, dk, int(nzk), relk, 0, None, elements))
    return out


def _sums(
    a: np.ndarray, b: np.ndarray, zero: np.ndarray | float = 0.0, w: np.ndarray | None = None,
    labels: list[str] | None = None, scaled: tuple[np.ndarray, np.ndarray, np.ndarray | float] | None = None,
) -> _Sums:
    """Discrepancy sums of the elements ``a`` (original) and ``b`` (protected).

    ``|a| <= zero`` marks an element as zero for the mean variation.
    ``labels`` (one per element) keeps the elements for Trottini's bound.
    ``scaled``: the same elements and zero bounds times a power of two per
    element (the same for ``a`` and ``b``), from which the mean variation is
    taken: a ratio, it does not depend on the unit, and the scaled values
    neither underflow nor overflow (variances of values near 1e-160 do).
    """
    a, b = np.asarray(a, float).ravel(), np.asarray(b, float).ravel()
    unweighted = w is None
    w = np.ones_like(a) if w is None else np.asarray(w, float).ravel()
    with np.errstate(over="ignore"):  # beyond the float64 range: infinite, and the measure says why
        d = np.abs(a - b)
        a_mv, b_mv, zero_mv = (a, b, zero) if scaled is None else (np.asarray(v, float).ravel() for v in scaled)
        d_mv = d if scaled is None else np.abs(a_mv - b_mv)
        nz = np.abs(a_mv) > np.broadcast_to(zero_mv, a_mv.shape)
        rel = np.divide(d_mv, np.abs(a_mv), out=np.zeros_like(d_mv), where=nz)
        elements = None
        if labels is not None:
            keep = np.flatnonzero(nz)
            elements = (rel[keep], w[keep], [labels[i] for i in keep])
        return _Sums(a.size, float(np.sum(w * d * d)), float(np.sum(w * d)), int(np.count_nonzero(nz)),
                     float(np.sum(w * rel)), 0, None if unweighted else float(np.sum(w[nz])), elements)


@dataclass
class _Table:
    """One matrix of the table for one pair: its element groups and details."""

    groups: dict[str, _Sums]  # variable name, "A|B" or "all"
    kind: str | None  # "variable", "pair" or None: how groups are reported
    details: dict[str, Any]


def _x_table(pair: EncodedPair) -> _Table:
    names = pair.continuous_names
    groups: dict[str, _Sums] = {}
    skipped: dict[str, int] = {}
    zeros: dict[str, int] = {}
    for name in names:
        o, p = _column(pair, name, ORIGINAL), _column(pair, name, PROTECTED)
        e = numeric.exponent(o, p)  # both files on one exact scale: differences cannot overflow
        g = _Sums()
        for start in _slices(o.shape[0]):
            os_ = numeric.scaled(o[start : start + _CHUNK], e)
            d = os_ - numeric.scaled(p[start : start + _CHUNK], e)
            ok = ~np.isnan(d)  # NaN iff either side is missing
            if not ok.all():
                os_, d = os_[ok], d[ok]
            ad = np.abs(d)
            nz = os_ != 0
            if nz.all():
                rel = float(np.sum(ad / np.abs(os_)))
            else:
                rel = float(np.sum(np.divide(ad, np.abs(os_), out=np.zeros_like(ad), where=nz)))
            g = g + _Sums(d.shape[0], float(np.einsum('i,i->', d, d)), float(ad.sum()), int(np.count_nonzero(nz)),
                          rel, e)
        groups[name] = g
        skipped[name] = o.shape[0] - g.n
        zeros[name] = g.n - g.n_mv
    return _Table(
        groups,
        "variable",
        {
            "n_skipped_missing": skipped,
            "n_excluded_zero": zeros,
            "mv_zero_rule": "cells whose original value is exactly 0 are left out of the mean variation",
            "missing": "cells missing in either file are skipped",
        },
    )


def _x_bounded(pair: EncodedPair, bound: float) -> dict[str, tuple[float, int, int]]:
    """Per variable: Σ min(|x − x'|/|x|, bound) over the compared cells with x ≠ 0, their number, and how many hit the bound."""

    def compute() -> dict[str, tuple[float, int, int]]:
        out = {}
        for name in pair.continuous_names:
            o, p = _column(pair, name, ORIGINAL), _column(pair, name, PROTECTED)
            total, count, hit = 0.0, 0, 0
            for start in _slices(o.shape[0]):
                os_, d = o[start : start + _CHUNK], np.abs(o[start : start + _CHUNK] - p[start : start + _CHUNK])
                ok = ~np.isnan(d) & (os_ != 0)
                rel = d[ok] / np.abs(os_[ok])
                total += float(np.minimum(rel, bound).sum())
                count += rel.shape[0]
                hit += int(np.count_nonzero(rel > bound))
            out[name] = (total, count, hit)
        return out

    return pair.cached(("moments", "x_bounded", float(bound)), compute)


def _xbar_table(pair: EncodedPair) -> _Table:
    def zero_below(u: _Univariate, j: int) -> float:
        return ZERO_TOLERANCE * numeric.unscale(math.sqrt(u.var_s[j]), u.exp[j]) if u.n[j] >= 2 else 0.0

    return _univariate_table(
        pair, "mean", 1, zero_below, "a mean with |mean| <= 1e-12 × the original's sd counts as 0 and is left out"
    )


def _s_table(pair: EncodedPair) -> _Table:
    # a constant variable's variance is exactly 0
    return _univariate_table(
        pair, "var", 2, lambda u, j: 0.0, "variables constant in the original (variance 0) are left out"
    )


def _univariate_table(
    pair: EncodedPair, stat: str, min_n: int, zero_below: Callable[[_Univariate, int], float], zero_rule: str
) -> _Table:
    """Per-variable comparison of one statistic (``mean`` or ``var``) computed in each file.

    A variable with fewer than ``min_n`` available values in either file is
    left out with its reason; ``zero_below(u_orig, j)`` is the magnitude under
    which the original's statistic counts as 0 for the mean variation.
    """
    names = pair.continuous_names
    u1, u2 = _univariate(pair, ORIGINAL), _univariate(pair, PROTECTED)
    s1, s2 = getattr(u1, stat), getattr(u2, stat)
    groups, not_computed, zeros = {}, {}, {}
    for j, name in enumerate(names):
        if u1.n[j] < min_n or u2.n[j] < min_n:
            which = "original" if u1.n[j] < min_n else "protected"
            not_computed[name] = (
                f"no value in the {which} file" if min_n == 1 else f"fewer than {min_n} values in the {which} file"
            )
            continue
        if not (math.isfinite(s1[j]) and math.isfinite(s2[j])):
            not_computed[name] = numeric.too_large(f"its {'variance' if stat == 'var' else stat}")
            continue
        power = 1 if stat == "mean" else 2  # the statistic's unit: 2**(power exp)
        ss1, ss2 = getattr(u1, f"{stat}_s")[j], getattr(u2, f"{stat}_s")[j]
        shift = int(u2.exp[j] - u1.exp[j]) * power  # the protected statistic in the original's unit
        zero = zero_below(u1, j)
        scaled = (ss1, numeric.unscale(ss2, shift), numeric.unscale(zero, -power * int(u1.exp[j])))
        groups[name] = _sums(s1[j], s2[j], zero, labels=[name], scaled=scaled)
        zeros[name] = groups[name].n - groups[name].n_mv
    return _Table(
        groups,
        "variable",
        {
            "original": dict(zip(names, _floats(s1))),
            "protected": dict(zip(names, _floats(s2))),
            "not_computed": not_computed,
            "n_excluded_zero": zeros,
            "mv_zero_rule": zero_rule,
            "missing": "each file's available values of the variable",
        },
    )


def _covariances(pair: EncodedPair) -> tuple[np.ndarray, np.ndarray]:
    out = []
    for which in (ORIGINAL, PROTECTED):
        comp = _complete(pair, which)
        if comp.cov is None:
            raise NotComputed(comp.reason)
        out.append(comp.cov)
    return out[0], out[1]


def _v_table(pair: EncodedPair) -> _Table:
    names = pair.continuous_names
    limits.check_pairs(len(names), "continuous variables")
    v1, v2 = _covariances(pair)
    iu = np.triu_indices(v1.shape[0])
    finite = np.isfinite(v1[iu]) & np.isfinite(v2[iu])
    if not finite.all():
        names = pair.continuous_names
        bad = sorted({names[k] for k in np.concatenate([iu[0][~finite], iu[1][~finite]])}, key=names.index)
        raise NotComputed(numeric.too_large("the covariance matrix", [f"(variables {_join(bad)})"]).replace(
            " of (", " ("))
    sd = np.sqrt(np.abs(np.diag(v1)))
    zero = ZERO_TOLERANCE * np.outer(sd, sd)[iu]
    names = pair.continuous_names
    # the mean variation from the covariances of the scaled variables, the protected one in the original's units
    (c1, e1), (c2, e2) = ((_complete(pair, w).cov_s, _univariate(pair, w).exp) for w in (ORIGINAL, PROTECTED))
    units1, units2 = np.add.outer(e1, e1), np.add.outer(e2, e2)
    sd_s = np.sqrt(np.abs(np.diag(c1)))
    scaled = (c1[iu], numeric.unscale(c2, units2 - units1)[iu], ZERO_TOLERANCE * np.outer(sd_s, sd_s)[iu])
    sums = _sums(v1[iu], v2[iu], zero, labels=[f"{names[i]}|{names[j]}" for i, j in zip(*iu)], scaled=scaled)
    return _Table(
        {"all": sums},
        None,
        {
            "n_elements": int(iu[0].size),
            "n_excluded_zero": sums.n - sums.n_mv,
            "mv_zero_rule": "covariances with |v_ij| <= 1e-12 × sd_i sd_j of the original count as 0 and are left out",
            "missing": "complete cases of each file",
        },
    )


def _r_table(pair: EncodedPair) -> _Table:
    names = _need_two(pair, "R (correlations)")
    r1, r2 = _correlation(pair, ORIGINAL), _correlation(pair, PROTECTED)
    iu = np.triu_indices(len(names), 1)
    keys = [f"{names[i]}|{names[j]}" for i, j in zip(*iu)]
    groups = dict(zip(keys, _element_sums(r1[iu], r2[iu], ZERO_TOLERANCE, keys)))
    return _Table(
        groups,
        "pair",
        {
            "n_elements": len(groups),
            "n_excluded_zero": sum(g.n - g.n_mv for g in groups.values()),
            "mv_zero_rule": "correlations with |r| <= 1e-12 in the original count as 0 and are left out",
            "missing": "complete cases of each file",
        },
    )


def _components(pair: EncodedPair) -> dict[str, Any]:
    """Both files' principal components, protected signs aligned with the original's (cached)."""
    _need_two(pair, "a principal component comparison")
    e1, e2 = _pca(pair, ORIGINAL), _pca(pair, PROTECTED)

    def compute() -> dict[str, Any]:
        signs = np.sign(np.sum(e1.vectors * e2.vectors, axis=0))
        signs[signs == 0] = 1.0
        v1, v2 = e1.vectors, e2.vectors * signs
        l1, l2 = np.clip(e1.values, 0.0, None), np.clip(e2.values, 0.0, None)
        return {
            "f": (v1, v2),
            "rf": (v1 * np.sqrt(l1), v2 * np.sqrt(l2)),
            "weights": l1 * (l1.size / l1.sum()),  # w_j = λ_j (Σ λ_j = p for a correlation matrix)
            "flipped": int(np.count_nonzero(signs < 0)),
            "eigenvalues": (e1.values.tolist(), e2.values.tolist()),
        }

    return pair.cached(("moments", "components"), compute)


def _pc_details(comp: dict[str, Any], sums: _Sums | None, n_elements: int) -> dict[str, Any]:
    out = {
        "eigenvalues_original": comp["eigenvalues"][0],
        "eigenvalues_protected": comp["eigenvalues"][1],
        "components_sign_flipped": comp["flipped"],
        "n_elements": n_elements,
        "mv_zero_rule": "elements with |value| <= 1e-12 in the original count as 0 and are left out",
        "missing": "complete cases of each file",
        "pca": "principal components of each file's correlation matrix; protected signs aligned with the original's",
    }
    if sums is not None:
        out["n_excluded_zero"] = sums.n - sums.n_mv
    return out


def _weighted_matrix_table(key: str) -> Callable[[EncodedPair], _Table]:
    def table(pair: EncodedPair) -> _Table:
        comp = _components(pair)
        a, b = comp[key]
        w = np.broadcast_to(comp["weights"], a.shape)  # column j (component j) has weight w_j
        names = pair.continuous_names
        labels = [f"{names[i]}|PC{j + 1}" for i in range(a.shape[0]) for j in range(a.shape[1])]
        sums = _sums(a, b, ZERO_TOLERANCE, w, labels=labels)
        details = _pc_details(comp, sums, a.size)
        details["component_weights"] = comp["weights"].tolist()
        return _Table({"all": sums}, None, details)

    return table


def _c_table(pair: EncodedPair) -> _Table:
    names = pair.continuous_names
    comp = _components(pair)
    rf1, rf2 = comp["rf"]
    c1, c2 = rf1[:, 0] ** 2, rf2[:, 0] ** 2
    groups = {name: _sums(c1[i], c2[i], ZERO_TOLERANCE, labels=[name]) for i, name in enumerate(names)}
    details = _pc_details(comp, None, len(names))
    details["n_excluded_zero"] = sum(g.n - g.n_mv for g in groups.values())
    details["original"] = dict(zip(names, c1.tolist()))
    details["protected"] = dict(zip(names, c2.tolist()))
    return _Table(groups, "variable", details)


def _floats(values: np.ndarray) -> list[float | None]:
    return [float(v) if np.isfinite(v) else None for v in values]


@dataclass(frozen=True)
class _Matrix:
    id: str
    symbol: str
    what: str  # for descriptions
    needs_pairing: bool
    table: Callable[[EncodedPair], _Table]
    formula: str  # LaTeX with {d} for the discrepancy of a generic element pair (a, a')
    elements: str  # which elements are averaged, in words


_MATRICES = [
    _Matrix("x", "X", "the data, cell by cell (paired records)", True, _x_table,
            r"\frac{1}{np}\sum_{j=1}^{p}\sum_{i=1}^{n} {d}(x_{ij}, x'_{ij})",
            "the n·p cells (cells missing in either file are skipped)"),
    _Matrix("xbar", "X̄", "the variables' means", False, _xbar_table,
            r"\frac{1}{p}\sum_{j=1}^{p} {d}(\bar x_j, \bar x'_j)",
            "the p means, each over its file's available values"),
    _Matrix("v", "V", "the covariance matrices (upper triangle with diagonal)", False, _v_table,
            r"\frac{1}{p(p+1)/2}\sum_{j=1}^{p}\sum_{1\le i\le j} {d}(v_{ij}, v'_{ij})",
            "the p(p+1)/2 covariances of the upper triangle with the diagonal (complete cases)"),
    _Matrix("s", "S", "the variances", False, _s_table,
            r"\frac{1}{p}\sum_{j=1}^{p} {d}(s^2_j, s'^2_j)",
            "the p variances (n − 1), each over its file's available values"),
    _Matrix("r", "R", "the correlation matrices (off-diagonal)", False, _r_table,
            r"\frac{1}{p(p-1)/2}\sum_{j=1}^{p}\sum_{1\le i<j} {d}(r_{ij}, r'_{ij})",
            "the p(p−1)/2 correlations above the diagonal (complete cases)"),
    _Matrix("rf", "RF", "the variable–component correlations", False, _weighted_matrix_table("rf"),
            r"\frac{1}{p^2}\sum_{j=1}^{p} w_j\sum_{i=1}^{p} {d}(rf_{ij}, rf'_{ij})",
            "the p² correlations between variable i and principal component j, weighted by w_j = λ_j"),
    _Matrix("c", "C", "the communalities with the first principal component", False, _c_table,
            r"\frac{1}{p}\sum_{i=1}^{p} {d}(c_i, c'_i)",
            "the p communalities c_i = rf_i1² with the first component"),
    _Matrix("f", "F", "the principal-component loadings", False, _weighted_matrix_table("f"),
            r"\frac{1}{p^2}\sum_{j=1}^{p} w_j\sum_{i=1}^{p} {d}(f_{ij}, f'_{ij})",
            "the p² loadings f_ij (eigenvector coefficients), weighted by w_j = λ_j"),
]

_STATS = {
    "mse": ("mean square error", "mean square error", r"(a - a')^2"),
    "mae": ("mean absolute error", "mean absolute error", r"|a - a'|"),
    "mv": ("mean variation", "mean variation (relative to |original|)", r"\frac{|a - a'|}{|a|}"),
}

# The shared docstring example: x unchanged, the last y changes from 3 to 5.
_EXAMPLE = """    >>> import pandas as pd
    >>> from infoloss.measures.moments import {name}
    >>> orig = pd.DataFrame({{"x": [1.0, 2, 3, 4], "y": [2.0, 1, 4, 3]}})
    >>> prot = pd.DataFrame({{"x": [1.0, 2, 3, 4], "y": [2.0, 1, 4, 5]}})
    >>> spec = {{"variables": {{"x": {{"scale": "continuous"}}, "y": {{"scale": "continuous"}}}}}}
    >>> round({name}(orig, prot, spec).value, 6)
    {value}"""

# Worked by hand for the example above.  Original: means 2.5, 2.5; variances
# 5/3, 5/3; covariance 1; r = 0.6.  Protected: means 2.5, 3; variances 5/3,
# 10/3; covariance 2; r' = 2/√(50/9) = 6/√50 = 0.848528.
_WORKED = {
    "x": ("Only one of the 8 cells changes, by 2 (from 3): mse = 4/8, mae = 2/8, mv = (2/3)/8.",
          {"mse": "0.5", "mae": "0.25", "mv": "0.083333"}),
    "xbar": ("Means (2.5, 2.5) and (2.5, 3): mse = 0.5²/2, mae = 0.5/2, mv = (0.5/2.5)/2.",
             {"mse": "0.125", "mae": "0.25", "mv": "0.1"}),
    "v": ("V = [[5/3, 1], [1, 5/3]], V' = [[5/3, 2], [2, 10/3]]; the 3 upper-triangle differences are "
          "0, 1, 5/3: mse = (1 + 25/9)/3 = 34/27, mae = (8/3)/3, mv = (0 + 1/1 + (5/3)/(5/3))/3.",
          {"mse": "1.259259", "mae": "0.888889", "mv": "0.666667"}),
    "s": ("Variances (5/3, 5/3) and (5/3, 10/3): mse = (5/3)²/2, mae = (5/3)/2, mv = 1/2.",
          {"mse": "1.388889", "mae": "0.833333", "mv": "0.5"}),
    "r": ("One correlation, 0.6 → 6/√50 = 0.848528: mse = 0.248528², mae = 0.248528, "
          "mv = 0.248528/0.6 = √2 − 1.",
          {"mse": "0.061766", "mae": "0.248528", "mv": "0.414214"}),
    "rf": ("A 2 × 2 correlation matrix with correlation r has eigenvalues 1 ± r and eigenvectors "
           "(1, ±1)/√2, so RF has columns ±√((1 + r)/2) and ±√((1 − r)/2): 0.894427, 0.447214 (r = 0.6) "
           "and 0.961387, 0.275202 (r' = 0.848528); weights w = (1.6, 0.4).  "
           "With differences 0.066959 (first column) and 0.172012 (second): "
           "mse = (1.6·2·0.066959² + 0.4·2·0.172012²)/4 = 0.009504, "
           "mae = (1.6·2·0.066959 + 0.4·2·0.172012)/4 = 0.087970, "
           "mv = (1.6·2·0.066959/0.894427 + 0.4·2·0.172012/0.447214)/4 = 0.136816.",
           {"mse": "0.009504", "mae": "0.08797", "mv": "0.136816"}),
    "c": ("c_i = (1 + r)/2: 0.8 for both variables, 0.924264 in the protected file; "
          "mse = 0.124264², mae = 0.124264, mv = 0.124264/0.8.",
          {"mse": "0.015442", "mae": "0.124264", "mv": "0.15533"}),
    "f": ("With two variables the eigenvectors of any correlation matrix are (1, ±1)/√2, so F = F' and "
          "all three discrepancies are 0.",
          {"mse": "0.0", "mae": "0.0", "mv": "0.0"}),
}

_REFERENCES = """    Domingo-Ferrer, J., Mateo-Sanz, J. M. & Torra, V. (2001). Comparing SDC
    methods for microdata on the basis of information loss and disclosure
    risk. *Pre-proceedings of ETK-NTTS 2001*, 807–826. Eurostat.
    Domingo-Ferrer, J. & Torra, V. (2001). Disclosure control methods and
    information loss for microdata. In *Confidentiality, Disclosure and Data
    Access*, 91–110. North-Holland.
    Hundepool, A. et al. *Handbook on Statistical Disclosure Control*,
    "Information loss measures for continuous data".
    Trottini, M. (2003). *Decision models for data disclosure limitation*.
    PhD thesis, Carnegie Mellon University (the bound of the mean variation)."""


_BOUND_DOC = """
    Parameters
    ----------
    pair : EncodedPair
        The encoded files (or ``original_df, protected_df, spec``).
    bound : float, optional
        Trottini's (2003) upper bound: each element's relative variation is
        replaced by ``min(|a − a'|/|a|, bound)`` before averaging, so the
        value never exceeds ``bound`` (e.g. 1 for 100 %).  Default: no bound,
        the published form.  With a bound, ``details["bounded_cells"]`` lists
        the elements that hit it (for ``x_mv``: their number per variable),
        ``details["unbounded_value"]`` the published value.
"""


def _docstring(m: _Matrix, stat: str) -> str:
    label, _, d = _STATS[stat]
    formula = m.formula.replace("{d}", r"d").replace("d(", r"\,d(")
    worked, values = _WORKED[m.id]
    by = {"variable": "``by_variable``: the same average per variable. ", "pair": "``by_pair``: per pair of variables. "}
    kind = {"x": "variable", "xbar": "variable", "s": "variable", "c": "variable", "r": "pair"}.get(m.id)
    paragraph = textwrap.fill(
        f"averaged over {m.elements}; ``a`` is the original's element and ``a'`` the protected file's "
        "(Domingo-Ferrer, Mateo-Sanz & Torra 2001, as tabulated in the Handbook).  Conventions for missing "
        "values, zeros in the mean variation, principal-component signs and the weights ``w_j``: see the "
        "module docstring.",
        width=76, initial_indent="    ", subsequent_indent="    ",
    )
    return f"""{label.capitalize()} between {m.symbol} and {m.symbol}' ({m.what}).

    .. math::

        {formula}, \\qquad d(a, a') = {d}

{paragraph}
{_BOUND_DOC if stat == "mv" else ""}
    Returns
    -------
    MeasureResult
        ``value``: the {label}. {by.get(kind, "")}``details``: elements compared,
        elements left out of the mean variation, the conventions used.

    References
    ----------
{_REFERENCES}

    Examples
    --------
    {worked}

{_EXAMPLE.format(name=f"{m.id}_{stat}", value=values[stat])}
    """


def _table_for(pair: EncodedPair, m: _Matrix) -> _Table:
    key = ("moments", "table", m.id)
    if key not in pair.cache:
        pair.cache[key] = m.table(pair)  # NotComputed propagates and is not cached
    return pair.cache[key]


BOUND = Option(
    "bound", "float", None,
    "Trottini's upper bound: each element's relative variation |a − a'|/|a| is capped at this value "
    "(auto: unbounded, the published form)",
    low=0, low_open=True, nullable=True,
)


def _apply_bound(
    pair: EncodedPair, m: _Matrix, table: _Table, bound: float
) -> tuple[float | None, dict[str, float], dict[str, Any]]:
    """Trottini's bounded mean variation: value, parts by group, and which elements hit the bound."""
    if m.id == "x":
        per = _x_bounded(pair, bound)
        total = sum(v[0] for v in per.values())
        count = sum(v[1] for v in per.values())
        parts = {k: v[0] / v[1] for k, v in per.items() if v[1]}
        hits = {k: v[2] for k, v in per.items() if v[2]}
        info = {"bounded_cells": hits, "n_bounded": int(sum(hits.values())),
                "bounded_cells_meaning": "per variable, the number of cells whose relative variation hit the bound"}
        return (total / count if count else None), parts, info
    parts, capped = {}, []
    for key, g in table.groups.items():
        v, hit = g.bounded(bound)
        if v is not None:
            parts[key] = v
        capped += hit
    total = _total(table.groups.values())
    value, _ = total.bounded(bound)
    return value, parts, {"bounded_cells": capped, "n_bounded": len(capped)}


def _make(m: _Matrix, stat: str) -> Callable[..., MeasureResult]:
    label = _STATS[stat][1]

    def result(pair: EncodedPair, bound: float | None = None) -> MeasureResult:
        if not pair.continuous_names:
            raise NotComputed("there is no continuous variable")
        table = _table_for(pair, m)
        total = _total(table.groups.values())
        value = total.value(stat)
        if value is None:
            if stat == "mv" and total.n:
                raise NotComputed(f"every element of the original's {m.symbol} is 0, so the mean variation divides by 0")
            reasons = table.details.get("not_computed") or {}
            first = next(iter(reasons.items()), None)
            raise NotComputed(f"no element of {m.symbol} could be compared"
                              + (f" ({first[0]}: {first[1]})" if first else ""))
        if not math.isfinite(value):
            raise NotComputed(numeric.too_large(f"the {label} of {m.symbol}"))
        parts = {k: v for k, g in table.groups.items() if (v := g.value(stat)) is not None}
        details = dict(table.details)
        huge = [k for k, v in parts.items() if not math.isfinite(v)]
        if huge:  # a part beyond the float64 range while the overall mean is not
            details["not_computed"] = {**details.get("not_computed", {}),
                                       **{k: numeric.too_large(f"its {label}") for k in huge}}
            parts = {k: v for k, v in parts.items() if k not in huge}
        details["n_compared"] = total.n
        if stat == "mv":
            details["bound"] = bound
            if bound is not None:
                details["unbounded_value"] = value
                value, parts, info = _apply_bound(pair, m, table, float(bound))
                details.update(info)
                details["bound_rule"] = (
                    "Trottini (2003): each element's relative variation min(|a − a'|/|a|, bound) before averaging"
                )
        return MeasureResult(
            value=value,
            by_variable=parts if table.kind == "variable" else None,
            by_pair=parts if table.kind == "pair" else None,
            details=details,
        )

    if stat == "mv":
        def compute(pair: EncodedPair, *, bound: float | None = None) -> MeasureResult:
            return result(pair, bound)
    else:
        def compute(pair: EncodedPair) -> MeasureResult:
            return result(pair)

    name = f"{m.id}_{stat}"
    compute.__name__ = compute.__qualname__ = name
    compute.__doc__ = _docstring(m, stat)
    compute.__module__ = _HOME
    return measure(
        name,
        family="moments",
        shares_cores=True,
        description=f"Domingo-Ferrer–Mateo-Sanz–Torra: {label} of {m.what}",
        range=(0, None),
        better="lower",
        needs_pairing=m.needs_pairing,
        options=(BOUND,) if stat == "mv" else (),
    )(compute)
