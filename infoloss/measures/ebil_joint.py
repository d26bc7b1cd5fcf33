"""Multivariate entropy-based information loss (EBIL) for PRAM.

The Handbook on SDC generalises EBIL "for multivariate datasets if V and V'
are taken as being multidimensional variables": the uncertainty about the
original *combination* of several PRAMmed variables given the released one.
When each variable ``k`` was PRAMmed independently with its Markov matrix
``P_k``, the matrix of the joint variable is their Kronecker product
``P = P_1 ⊗ … ⊗ P_K``.  That matrix has ``Π r_k × Π c_k`` entries, far more
than the joint table it acts on, so it is never built: every product with it
is a tensor contraction of the joint table along one axis at a time (memory:
the size of the joint table).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import entr, xlogy

from ..errors import InputError, NotComputed
from ..limits import unique_inverse
from ..pair import ORIGINAL, PROTECTED, EncodedPair
from ..registry import MeasureResult, measure
from .tables import WEIGHTED, _weighting, read_pram_matrix

__all__ = ["ebil_joint", "kron_apply"]

MAX_CELLS = 20_000_000  # largest joint table (original or released categories) handled


def kron_apply(table: np.ndarray, matrices: list[np.ndarray]) -> np.ndarray:
    r"""``vec(table) @ (M_1 ⊗ … ⊗ M_K)`` reshaped, without building the Kronecker product.

    ``table`` has shape ``(r_1, …, r_K)`` and ``M_k`` shape ``(r_k, c_k)``;
    the result has shape ``(c_1, …, c_K)``:
    ``out[j_1…j_K] = Σ_i table[i_1…i_K] Π_k M_k[i_k, j_k]``.  Each step
    contracts the leading axis with one matrix (``numpy.tensordot``) and
    appends the new axis at the end, so no intermediate array is larger than
    ``Π_k max(r_k, c_k)``.

    >>> t = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> a, b = np.array([[0.9, 0.1], [0.2, 0.8]]), np.array([[1.0, 0.0], [0.5, 0.5]])
    >>> bool(np.allclose(kron_apply(t, [a, b]).ravel(), t.ravel() @ np.kron(a, b)))
    True
    """
    out = table
    for m in matrices:
        out = np.tensordot(out, m, axes=([0], [0]))
    return out


def _joint_index(pair: EncodedPair, names: list[str], which: str, lookups: list[np.ndarray],
                 shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Flat joint index over ``shape`` of the records with every variable present (and those records)."""
    n = pair.n(which)
    ok = np.ones(n, dtype=bool)
    for name in names:
        ok &= pair.categorical[name].codes(which) >= 0
    rows = np.flatnonzero(ok) if not ok.all() else None
    flat = np.zeros(n if rows is None else rows.shape[0], dtype=np.int64)
    for name, lookup, size in zip(names, lookups, shape):
        codes = pair.categorical[name].codes(which)
        codes = codes if rows is None else codes[rows]
        flat *= size
        flat += lookup[codes]
    return flat, (np.arange(n) if rows is None else rows)


def _matrices(
    pair: EncodedPair, names: list[str], released_labels: list[list[str]]
) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """Each variable's matrix, and lookups from data codes to matrix rows (original) and columns (released).

    ``released_labels`` is filled with each matrix's column labels.
    """
    mats, row_lookups, col_lookups = [], [], []
    released_labels.clear()
    for name in names:
        col = pair.categorical[name]
        matrix = read_pram_matrix(pair.variable(name).pram, name)
        counts_o = np.bincount(col.orig[col.orig >= 0], minlength=col.n_categories)
        counts_p = np.bincount(col.prot[col.prot >= 0], minlength=col.n_categories)
        rows = {c: i for i, c in enumerate(matrix.index)}
        cols = {c: j for j, c in enumerate(matrix.columns)}
        for counts, where, axis in ((counts_o, rows, "row"), (counts_p, cols, "column")):
            absent = [c for c, k in zip(col.categories, counts) if k > 0 and c not in where]
            if absent:
                kind = "original" if axis == "row" else "released"
                raise InputError(
                    f"the PRAM matrix of {name!r} has no {axis} for the {kind} categories "
                    f"{', '.join(map(repr, absent[:5]))}; check the matrix against the data."
                )
        mats.append(matrix.to_numpy())
        released_labels.append(list(matrix.columns))
        row_lookups.append(np.array([rows.get(c, 0) for c in col.categories], dtype=np.int64))
        col_lookups.append(np.array([cols.get(c, 0) for c in col.categories], dtype=np.int64))
    return mats, row_lookups, col_lookups


def _ebil_given(pair: EncodedPair, names: list[str], use_w: bool) -> dict:
    labels: list[list[str]] = []
    mats, row_lookups, col_lookups = _matrices(pair, names, labels)
    r_shape = tuple(m.shape[0] for m in mats)
    c_shape = tuple(m.shape[1] for m in mats)
    big = max(math.prod(r_shape), math.prod(c_shape), math.prod(max(a, b) for a, b in zip(r_shape, c_shape)))
    if big > MAX_CELLS:
        raise NotComputed(
            f"the joint table of {', '.join(names)} has {big:,} cells, more than the {MAX_CELLS:,} handled"
        )
    w_o = pair.weights(ORIGINAL) if use_w else None
    w_p = pair.weights(PROTECTED) if use_w else None
    flat_o, rows_o = _joint_index(pair, names, ORIGINAL, row_lookups, r_shape)
    prior = np.bincount(flat_o, weights=None if w_o is None else w_o[rows_o], minlength=math.prod(r_shape))
    if not prior.sum() > 0:
        raise NotComputed("no original record has every PRAMmed variable present")
    prior = (prior / prior.sum()).reshape(r_shape)
    flat_p, rows_p = _joint_index(pair, names, PROTECTED, col_lookups, c_shape)
    released = np.bincount(flat_p, weights=None if w_p is None else w_p[rows_p], minlength=math.prod(c_shape))
    # P(V'=j) and Σ_i A_ij log A_ij with A_ij = prior_i Π_k P_k[i_k, j_k] (the joint of original and released)
    column = kron_apply(prior, mats).ravel()
    a_log_a = -kron_apply(entr(prior), mats).ravel()  # Σ_i A_ij log prior_i
    for k in range(len(mats)):
        factors = [m if i != k else xlogy(m, m) for i, m in enumerate(mats)]
        a_log_a += kron_apply(prior, factors).ravel()  # Σ_i A_ij log P_k[i_k, j_k]
    seen = released > 0
    impossible = seen & ~(column > 0)
    if impossible.any():
        j = np.unravel_index(int(np.flatnonzero(impossible)[0]), c_shape)
        raise InputError(
            f"the protected file has the combination "
            f"{', '.join(f'{n}={lab[k]}' for n, lab, k in zip(names, labels, j))}, which the PRAM matrices "
            "cannot produce from any combination the original file has; check the matrices against the data."
        )
    h = np.log(column[seen]) - a_log_a[seen] / column[seen]  # H(V | V' = j)
    h = np.clip(h, 0.0, None)
    return {
        "ebil": float(np.sum(released[seen] * h)),
        "n": float(released.sum()),
        "k": int(np.count_nonzero(prior)),
        "matrix": "spec (Kronecker product of the variables' matrices)",
        "excluded_missing": float(
            (pair.n(PROTECTED) if w_p is None else float(w_p.sum())) - released.sum()
        ),
        "cells": {"original": int(math.prod(r_shape)), "released": int(math.prod(c_shape))},
    }


def _joint_codes(pair: EncodedPair, names: list[str], which: str) -> np.ndarray:
    """Dense codes of the combinations of ``names`` (missing as a category), re-factorised after each variable."""
    code = np.zeros(pair.n(which), dtype=np.int64)
    for name in names:
        cells = pair.cell_codes(name, which).astype(np.int64)
        code = code * (pair.categorical[name].n_categories + 1) + cells
        code = unique_inverse(code)[1].astype(np.int64, copy=False)
    return code


def _ebil_estimated(pair: EncodedPair, names: list[str], use_w: bool) -> dict:
    """EBIL with the joint matrix estimated from the paired records: Σ_ij n_ij log(n_·j / n_ij)."""
    o = _joint_codes(pair, names, ORIGINAL)
    p = _joint_codes(pair, names, PROTECTED)
    k_o = int(o.max()) + 1
    pairs, inverse = unique_inverse(o + k_o * p)
    w = pair.weights(ORIGINAL) if use_w else None
    n_ij = np.bincount(inverse, weights=w)
    j = pairs // k_o
    n_j = np.bincount(j, weights=n_ij)
    ok = n_ij > 0
    ebil = float(np.sum(n_ij[ok] * np.log(n_j[j[ok]] / n_ij[ok])))
    prior = np.bincount(o, weights=w)
    return {"ebil": max(ebil, 0.0), "n": float(n_ij.sum()), "k": int(np.count_nonzero(prior)),
            "matrix": "estimated from the paired records (joint original × protected combinations)"}


def _chosen(pair: EncodedPair) -> tuple[list[str], str, dict[str, str]]:
    with_matrix = [v.name for v in pair.variables if v.pram is not None]
    left_out: dict[str, str] = {}
    if with_matrix:
        names = []
        for name in with_matrix:
            if pair.variable(name).removed:
                left_out[name] = "removed from the protected file"
            elif name not in pair.categorical:
                left_out[name] = "it is continuous; PRAM applies to categorical variables"
            else:
                names.append(name)
        if len(names) < 2:
            raise NotComputed(
                "the joint EBIL needs at least two categorical variables with a PRAM matrix ('pram:' in the spec); "
                "ebil measures a single one"
            )
        return names, "given", left_out
    if not pair.paired:
        raise NotComputed(
            "no variable has a PRAM matrix in the spec ('pram:'), and the files are not paired, "
            "so the joint matrix cannot be estimated from the records"
        )
    keys = [n for n in pair.categorical_names if pair.variable(n).role == "key"]
    names = keys if len(keys) >= 2 else pair.categorical_names
    if len(names) < 2:
        raise NotComputed("the joint EBIL needs at least two categorical variables")
    return names, "estimated", left_out


@measure(
    "ebil_joint",
    shares_cores=True,
    family="tables",
    description="multivariate EBIL: uncertainty about the original combination of the PRAMmed variables given the "
    "released one (Kronecker product of their matrices)",
    range=(0, 1),
    better="lower",
    needs_pairing=False,
    options=(WEIGHTED,),
)
def ebil_joint(pair: EncodedPair, *, weighted: bool | None = None) -> MeasureResult:
    r"""Entropy-based information loss of PRAM on the joint distribution of several variables.

    .. math::

        \mathbf P = \mathbf P_1 \otimes \cdots \otimes \mathbf P_K,\qquad
        P(\mathbf V=\mathbf i \mid \mathbf V'=\mathbf j) =
        \frac{P(\mathbf V=\mathbf i)\prod_k P_k(j_k \mid i_k)}
             {\sum_{\mathbf l} P(\mathbf V=\mathbf l)\prod_k P_k(j_k \mid l_k)},\qquad
        EBIL = \sum_{r \in G} H(\mathbf V \mid \mathbf V' = \mathbf j_r)

    with ``H(V | V'=j) = −Σ_i P(i|j) log P(i|j)`` (natural log),
    ``P(V = i)`` the original file's joint distribution of the variables
    (records with one of them missing left out) and ``j_r`` the released
    combination of protected record ``r`` (records with one missing left out,
    ``details["excluded_missing"]``).  With ``A_ij = P(i) Π_k P_k(j_k | i_k)``
    and ``Q_j = Σ_i A_ij``,
    ``H_j = log Q_j − (Σ_i A_ij log P(i) + Σ_k Σ_i A_ij log P_k(j_k | i_k)) / Q_j``,
    and every ``Σ_i`` is a contraction of the joint table with one factor per
    axis (:func:`kron_apply`), so memory stays at the size of the joint table.

    Which variables and which matrix (``details["matrix"]``):

    * the variables with a ``pram:`` matrix in the spec (at least two; the
      single-variable case is ``ebil``), PRAMmed independently of each other
      so the joint matrix is the Kronecker product of theirs; works unpaired;
    * without ``pram:`` entries, for record-paired files, the joint matrix is
      estimated from the paired records over the categorical key variables
      (all categorical variables when fewer than two are keys), missing as a
      category: ``EBIL = Σ_ij n_ij log(n_·j / n_ij)`` over the original ×
      protected combinations.  An unchanged file gives 0.  The estimate is
      biased low when the combinations are sparse (a combination seen once is
      certain).

    ``value`` is ``EBIL / (n log K)`` in [0, 1] (``n`` records summed, ``K``
    original combinations present; 0 when ``K = 1``), our normalisation, as
    in ``ebil``; ``details["ebil"]`` is the published sum.

    Parameters
    ----------
    pair : EncodedPair
        The encoded files (or ``original_df, protected_df, spec``).
    weighted : bool, optional
        Weight records (prior, estimated matrix and the sum over records).
        Default: when both files have weights.

    Raises
    ------
    InputError
        A matrix that cannot be read or does not cover the data's categories,
        or a released combination the matrices cannot produce.
    NotComputed
        Fewer than two PRAMmed variables, unpaired files without matrices, or
        a joint table above 20 million cells.

    References
    ----------
    Domingo-Ferrer, J. & Torra, V. (2001). Disclosure control methods and
    information loss for microdata.  Hundepool et al., *Handbook on
    Statistical Disclosure Control*, "Entropy-based measures".  Kooiman, P.,
    Willenborg, L. & Gouweleeuw, J. (1998). PRAM: a method for disclosure
    limitation of microdata (independent PRAM of several variables: the
    Kronecker product).

    Examples
    --------
    Estimated from paired records: (a, u) is released as (a, u) once and as
    (b, u) once, (b, u) always as (b, u).  Released (a, u) is certain;
    released (b, u) came from (a, u) with probability 1/3:
    3 · H(1/3, 2/3) = 1.909543, over n log K = 4 log 2: 0.688722.

    >>> import pandas as pd
    >>> from infoloss.measures.ebil_joint import ebil_joint
    >>> orig = pd.DataFrame({"x": ["a", "a", "b", "b"], "y": ["u"] * 4})
    >>> prot = pd.DataFrame({"x": ["a", "b", "b", "b"], "y": ["u"] * 4})
    >>> r = ebil_joint(orig, prot, {"variables": {"x": {"scale": "nominal"}, "y": {"scale": "nominal"}}})
    >>> round(r.details["ebil"], 6), round(r.value, 6)
    (1.909543, 0.688722)
    """
    use_w, wdetails = _weighting(pair, weighted, "ebil_joint")
    names, kind, left_out = _chosen(pair)
    from .._concurrent import thread_limits

    with thread_limits(1):  # the products of the matrices: the same bits alone or beside
        res = _ebil_given(pair, names, use_w) if kind == "given" else _ebil_estimated(pair, names, use_w)
    if not res["n"] > 0:
        raise NotComputed("no protected record has every variable of the joint EBIL present")
    value = min(res["ebil"] / (res["n"] * math.log(res["k"])), 1.0) if res["k"] > 1 else 0.0
    details = {
        "ebil": res["ebil"],
        "variables": names,
        "matrix": res["matrix"],
        "n": res["n"],
        "K": res["k"],
        "log": "natural (nats)",
        "normalised": "EBIL / (n log K)",
        **wdetails,
    }
    for extra in ("excluded_missing", "cells"):
        if extra in res:
            details[extra] = res[extra]
    if left_out:
        details["left_out"] = left_out
    return MeasureResult(value=value, details=details)
