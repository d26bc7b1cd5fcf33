"""Contingency-table measures: CTBIL, AAD, Hellinger, KL divergence, Cramér's V IL, EBIL.

Every measure here compares frequency tables of the categorical (nominal and
ordinal) variables, built once by :meth:`EncodedPair.table` and shared by all
measures.  They work on unpaired files of different sizes (``pairing: none``)
except EBIL with an *estimated* PRAM matrix, which needs the record pairing.

Conventions shared by the module (where the literature leaves a choice):

* **Cells.**  A table of variables ``A, B, ...`` has one cell per combination
  of their categories (the categories of a variable are the union of the
  values observed in either file, or an ordinal variable's declared
  ``order``).  Missing is a category of its own (Handbook on SDC, CTBIL) *when
  the variable has a missing value in either file*; a variable missing nowhere
  contributes no "missing" cell, so the number of cells (the denominators of
  ``ctbil`` and ``aad``) does not depend on an empty category.
* **Weights.**  Each measure takes ``weighted`` (``None``: use the survey
  weights when both files have them, i.e. the spec has a weight column and the
  protected file carries it or is record-paired to the original).  Tables then
  hold sums of weights instead of counts.  ``details["weighted"]`` says which
  was used.
* **Different totals.**  ``ctbil`` and ``aad`` compare counts.  When the two
  tables have different totals (unpaired files of different sizes, or
  different weight totals) the protected table is rescaled to the original's
  total before the comparison, ``x_G * (N_F / N_G)``, so the measures compare
  the distributions on the original file's scale; ``details["scale"]`` gives
  the factor.  With equal totals (every record-paired unweighted comparison)
  the factor is exactly 1 and the published definitions apply unchanged, e.g.
  one local suppression adds exactly 2 to the one-way CTBIL sum.
* ``hellinger``, ``kl_divergence`` and ``cramers_v_il`` work on proportions and
  need no rescaling.
* **Many categories.**  A table with more than ``infoloss.limits.MAX_CACHED_CELLS``
  cells (two variables of a thousand or more categories each) is not built
  densely: ``ctbil``, ``aad``, ``hellinger`` and ``cramers_v_il`` then work on
  the cells observed in either file (:func:`infoloss.limits.aligned_counts`),
  which gives the same values, since empty cells add nothing to their sums;
  ``ctbil``/``aad`` still count every cell of the table in their
  denominators.  EBIL's estimated transition matrix is always kept sparse
  (observed original × protected pairs only).

References
----------
Domingo-Ferrer, J. & Torra, V. (2001). Disclosure control methods and
information loss for microdata. In *Confidentiality, Disclosure and Data
Access*, 91-110. North-Holland.

Hundepool, A. et al. *Handbook on Statistical Disclosure Control*, sections
"Measurement of information loss" (CTBIL, entropy-based IL) and "Information
loss measures" (AAD, Hellinger distance).

Shlomo, N. (2010). Releasing microdata: disclosure risk estimation, data
masking and assessing utility. *Journal of Privacy and Confidentiality* 2(1),
73-91.

Gomatam, S. & Karr, A. F. (2003). Distortion measures for categorical data
swapping. Technical report 131, National Institute of Statistical Sciences.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd
from scipy.special import entr, rel_entr

from .. import limits
from ..errors import InputError, NotComputed
from ..generalised import lifted_or_none, lifted_table, tables_note
from ..pair import ORIGINAL, PROTECTED, EncodedPair
from ..registry import MeasureResult, Option, measure

WEIGHTED = Option(
    "weighted", "bool", None, "use the spec's weights (weighted counts); auto: weighted when the spec has a weight",
    nullable=True,
)
CTBIL_K = Option("K", "int", None, "largest table dimension (auto: 2)", low=1, nullable=True)
SMOOTHING = Option("smoothing", "float", 0.5, "count added to every cell before the divergence is taken", low=0,
                   high=1e6)
from ..spec import normalise_label

__all__ = [
    "ctbil",
    "aad",
    "hellinger",
    "kl_divergence",
    "cramers_v_il",
    "ebil",
    "frequency_table",
    "read_pram_matrix",
    "MISSING_LABEL",
]

MISSING_LABEL = "missing"
ROW_SUM_TOLERANCE = 1e-6
_V_ZERO = 1e-12  # Cramér's V below this counts as "no association"


# ---------------------------------------------------------------------------
# shared helpers
# ---------------------------------------------------------------------------
def _categorical(pair: EncodedPair) -> list[str]:
    names = pair.categorical_names
    if not names:
        raise NotComputed("there are no categorical (nominal or ordinal) variables to tabulate")
    return names


def _weighting(pair: EncodedPair, weighted: bool | None, mid: str) -> tuple[bool, dict]:
    """Decide whether tables are weighted; return the choice and details to report."""
    spec_weight = pair.spec.weight
    w_orig, w_prot = pair.weights(ORIGINAL), pair.weights(PROTECTED)
    details: dict = {}
    if weighted is None:
        use = w_orig is not None and w_prot is not None
        if spec_weight is not None and not use:
            details["weights_note"] = (
                f"the protected file has no weight column {spec_weight!r}, so both files were tabulated unweighted"
            )
    elif weighted:
        if spec_weight is None:
            raise InputError(
                f"{mid} was asked for weighted tables (weighted=True), but the spec has no weight column; "
                "give a column role: weight, or drop weighted=True."
            )
        if w_prot is None:
            raise InputError(
                f"{mid} was asked for weighted tables (weighted=True), but the protected file has no weight "
                f"column {spec_weight!r} and is not paired to the original; add the column or drop weighted=True."
            )
        use = True
    else:
        use = False
    if use:
        for which, w, label in ((ORIGINAL, w_orig, "original"), (PROTECTED, w_prot, "protected")):
            if not float(w.sum()) > 0:
                raise NotComputed(f"the weights of the {label} file sum to zero")
        details["weight"] = spec_weight
    details = {"weighted": use, **details, **tables_note(pair)}
    return use, details


def _total(pair: EncodedPair, which: str, use_weights: bool) -> float:
    if use_weights:
        return float(pair.weights(which).sum())
    return float(pair.n(which))


def _has_missing(pair: EncodedPair, name: str) -> bool:
    def compute() -> bool:
        col = lifted_or_none(pair, name) or pair.categorical[name]  # a generalised variable: at its level
        return bool((col.orig < 0).any() or (col.prot is not None and (col.prot < 0).any()))

    return pair.cached(("tables", "has_missing", name), compute)


def _table(pair: EncodedPair, names: tuple[str, ...], which: str, use_weights: bool) -> np.ndarray:
    """The table of ``names`` with the missing cell dropped on axes of variables missing nowhere.

    Tables of up to two variables come from the pair's cache; larger ones are
    built here and not cached (there can be very many of them).  The result may
    be a view of a cached array: never modify it in place.
    """
    table = _full_table(pair, names, which, use_weights)
    keep = tuple(slice(None) if _has_missing(pair, n) else slice(0, -1) for n in names)
    return table[keep]


def _full_table(pair: EncodedPair, names: tuple[str, ...], which: str, use_weights: bool) -> np.ndarray:
    """The table with the missing cell on every axis; generalised variables at the protected file's level."""
    lifted = lifted_table(pair, names, which, pair.weights(which) if use_weights else None)
    if lifted is not None:
        return lifted
    if len(names) <= 2:
        return pair.table(names, which, weighted=use_weights)
    return _table_uncached(pair, names, which, use_weights)


def _table_uncached(pair: EncodedPair, names: tuple[str, ...], which: str, use_weights: bool) -> np.ndarray:
    shape = tuple(pair.categorical[n].n_categories + 1 for n in names)
    flat = np.zeros(pair.n(which), dtype=np.intp)
    for name, size in zip(names, shape):
        codes = pair.categorical[name].codes(which)
        flat *= size
        flat += np.where(codes < 0, size - 1, codes)
    w = pair.weights(which) if use_weights else None
    return np.bincount(flat, weights=w, minlength=int(np.prod(shape))).reshape(shape)


def _scale(pair: EncodedPair, use_weights: bool) -> float:
    """Factor that brings the protected totals to the original's (exactly 1.0 when they are equal)."""
    t_orig, t_prot = _total(pair, ORIGINAL, use_weights), _total(pair, PROTECTED, use_weights)
    if t_prot <= 0:
        raise NotComputed("the protected file has no records (or zero total weight)")
    return 1.0 if t_orig == t_prot else t_orig / t_prot


def _n_cells(pair: EncodedPair, names: tuple[str, ...]) -> int:
    """Cells of the table of ``names`` with the missing cell only for variables missing somewhere."""
    return math.prod(pair.categorical[n].n_categories + int(_has_missing(pair, n)) for n in names)


def _abs_diff(pair: EncodedPair, names: tuple[str, ...], use_weights: bool, scale: float) -> tuple[float, int]:
    """Sum of |x_F - scale * x_G| over the cells of one table, and its number of cells.

    A table too large to hold densely is compared over its observed cells
    (empty cells add nothing to the sum).
    """
    if limits.prefer_sparse(pair, names):
        f, g, _ = limits.aligned_counts(pair, names, use_weights)
        return float(np.abs(f - g * scale).sum()), _n_cells(pair, names)
    f = _table(pair, names, ORIGINAL, use_weights)
    g = _table(pair, names, PROTECTED, use_weights)
    if scale != 1.0:
        g = g * scale
    return float(np.abs(f - g).sum()), int(f.size)


def _proportions(pair: EncodedPair, names: tuple[str, ...], which: str, use_weights: bool) -> np.ndarray:
    table = _table(pair, names, which, use_weights).astype(float)
    total = table.sum()
    if not total > 0:
        raise NotComputed(f"the {'original' if which == ORIGINAL else 'protected'} file has no records to tabulate")
    return table / total


def _both_proportions(pair: EncodedPair, names: tuple[str, ...], use_weights: bool) -> tuple[np.ndarray, np.ndarray]:
    """Cell proportions of both files over the same cells (only the observed ones for a very large table)."""
    if not limits.prefer_sparse(pair, names):
        return _proportions(pair, names, ORIGINAL, use_weights), _proportions(pair, names, PROTECTED, use_weights)
    out = []
    for which, counts in zip((ORIGINAL, PROTECTED), limits.aligned_counts(pair, names, use_weights)[:2]):
        total = counts.sum()
        if not total > 0:
            raise NotComputed(f"the {'original' if which == ORIGINAL else 'protected'} file has no records to tabulate")
        out.append(counts / total)
    return out[0], out[1]


def _key(names: tuple[str, ...]) -> str:
    return "|".join(names)


def _pairs(names: list[str]) -> list[tuple[str, str]]:
    """Every pair of ``names``; NotComputed beyond ``limits.MAX_PAIRS`` pairs."""
    limits.check_pairs(len(names), "categorical variables")
    return list(itertools.combinations(names, 2))


# ---------------------------------------------------------------------------
# CTBIL
# ---------------------------------------------------------------------------
@measure(
    "ctbil",
    shares_cores=True,
    family="tables",
    description="contingency-table-based IL: mean absolute cell difference over all tables of dimension <= K",
    range=(0, None),
    better="lower",
    needs_pairing=False,
    headline=True,
    options=(CTBIL_K, WEIGHTED),
)
def ctbil(pair: EncodedPair, *, K: int | None = None, weighted: bool | None = None) -> MeasureResult:
    r"""Contingency-table-based information loss (Domingo-Ferrer & Torra 2001), normalised.

    .. math::

        CTBIL(F, G; W, K) = \sum_{\{V_{j_1},\dots,V_{j_t}\}\subseteq W,\ t\le K}
            \ \sum_{i_1\cdots i_t} \lvert x^F_{i_1\cdots i_t} - x^G_{i_1\cdots i_t}\rvert

    over every table of ``t = 1 .. K`` of the categorical variables ``W``, with
    missing as a category.  ``value`` is the normalised form proposed in the
    Handbook: the sum divided by the total number of cells of all the tables
    considered; ``details["raw"]`` is the sum itself.  For one-way tables each
    local suppression counts exactly 2 (a category loses one record, the
    missing category gains one).  When the files have different totals
    (unpaired files of different sizes, or different weight totals) the
    protected counts are first rescaled to the original's total
    (``details["scale"]``), so the value is in the original file's units.

    Parameters
    ----------
    pair : EncodedPair
        The encoded files (or ``original_df, protected_df, spec``).
    K : int, optional
        Largest table dimension.  Default: 2, or 1 when there is only one
        categorical variable.  There are ``C(p, t)`` tables of dimension ``t``
        for ``p`` variables, so ``K >= 3`` is expensive with many variables.
    weighted : bool, optional
        Tabulate sums of survey weights instead of counts.  Default: when both
        files have weights.

    Returns
    -------
    MeasureResult
        ``value`` the normalised CTBIL; ``details``: ``raw``, ``K``, ``cells``,
        ``tables``, ``scale``, ``weighted``.

    Raises
    ------
    InputError
        When ``K`` is below 1 or larger than the number of categorical variables.

    References
    ----------
    Domingo-Ferrer, J. & Torra, V. (2001). Disclosure control methods and
    information loss for microdata. In *Confidentiality, Disclosure and Data
    Access*, 91-110.  Hundepool et al., *Handbook on Statistical Disclosure
    Control*, "Comparison of contingency tables".

    Examples
    --------
    One of four values suppressed: the one-way tables are (2, 2, 0) and
    (2, 1, 1) over (a, b, missing), so the sum is 2 over 3 cells.

    >>> import pandas as pd
    >>> from infoloss.measures.tables import ctbil
    >>> orig = pd.DataFrame({"x": ["a", "a", "b", "b"]})
    >>> prot = pd.DataFrame({"x": ["a", "a", "b", None]})
    >>> r = ctbil(orig, prot, {"variables": {"x": {"scale": "nominal"}}})
    >>> r.details["raw"], r.details["cells"], round(r.value, 4)
    (2.0, 3, 0.6667)
    """
    names = _categorical(pair)
    if K is None:
        K = min(2, len(names))
    elif isinstance(K, bool) or not isinstance(K, (int, np.integer)) or K < 1:
        raise InputError(f"ctbil's K (the largest table dimension) must be a whole number of at least 1, got {K!r}.")
    elif K > len(names):
        raise InputError(
            f"ctbil was asked for tables of up to K={K} variables, but there are only {len(names)} categorical "
            f"variables; choose K between 1 and {len(names)}."
        )
    K = int(K)
    use_w, wdetails = _weighting(pair, weighted, "ctbil")
    scale = _scale(pair, use_w)
    limits.check_pairs(len(names), "categorical variables", sum(math.comb(len(names), t) for t in range(2, K + 1)),
                       "pairs" if K == 2 else f"tables of 2 to {K} variables")
    raw, cells, tables = 0.0, 0, 0
    by_dimension: dict[str, float] = {}
    for t in range(1, K + 1):
        raw_t = 0.0
        for combo in itertools.combinations(names, t):
            diff, size = _abs_diff(pair, combo, use_w, scale)
            raw_t += diff
            cells += size
            tables += 1
        by_dimension[str(t)] = raw_t
        raw += raw_t
    details = {"raw": raw, "raw_by_dimension": by_dimension, "K": K, "cells": cells, "tables": tables, "scale": scale,
               **wdetails}
    if use_w and pair.paired:
        details["records_moved"] = _records_moved(pair, names)
    return MeasureResult(value=raw / cells, details=details)


def _records_moved(pair: EncodedPair, names: list[str]) -> dict[str, int]:
    """Per variable, the paired records whose category changed (or was suppressed).

    Weighted, AAD × cells / 2 and CTBIL's sums are weights of the records moved, not their number: a table's
    value rests on at most the records changed in its variables, and safe mode withholds the values that rest on
    fewer than ``min_cell`` (with one record moved, the value gave its weight back).
    """
    return {name: int(np.count_nonzero(pair.categorical[name].orig != pair.categorical[name].prot))
            for name in names if pair.categorical[name].prot is not None}


# ---------------------------------------------------------------------------
# AAD
# ---------------------------------------------------------------------------
@measure(
    "aad",
    shares_cores=True,
    family="tables",
    description="average absolute distance per cell of the one- and two-way tables (Gomatam & Karr; Shlomo)",
    range=(0, None),
    better="lower",
    needs_pairing=False,
    options=(WEIGHTED,),
)
def aad(pair: EncodedPair, *, weighted: bool | None = None) -> MeasureResult:
    r"""Average absolute distance per cell (Gomatam & Karr 2003; Shlomo 2010).

    .. math::

        AAD(D_{orig}, D_{pert}) = \frac{\sum_c \lvert D_{pert}(c) - D_{orig}(c)\rvert}{n_c}

    for each one-way table (``by_variable``) and each two-way table
    (``by_pair``) of the categorical variables, missing as a category;
    ``value`` is the mean over all these tables (Handbook: several tables are
    averaged).  With different totals the protected counts are rescaled to
    the original's total first (``details["scale"]``).

    Parameters
    ----------
    pair : EncodedPair
        The encoded files (or ``original_df, protected_df, spec``).
    weighted : bool, optional
        Tabulate sums of survey weights.  Default: when both files have weights.

    Returns
    -------
    MeasureResult
        ``value``, ``by_variable``, ``by_pair`` (None with a single variable).

    References
    ----------
    Gomatam, S. & Karr, A. F. (2003). Distortion measures for categorical data
    swapping. NISS technical report 131.  Shlomo, N. (2010). Releasing
    microdata: disclosure risk estimation, data masking and assessing utility.
    *Journal of Privacy and Confidentiality* 2(1), 73-91.

    Examples
    --------
    ``x``: one suppression, 2 over 3 cells; ``y`` unchanged; the 2x3 table of
    ``x`` and ``y`` changes in two of its 6 cells.  Mean of 2/3, 0 and 1/3.

    >>> import pandas as pd
    >>> from infoloss.measures.tables import aad
    >>> orig = pd.DataFrame({"x": ["a", "a", "b", "b"], "y": ["u", "v", "u", "v"]})
    >>> prot = pd.DataFrame({"x": ["a", "a", "b", None], "y": ["u", "v", "u", "v"]})
    >>> spec = {"variables": {"x": {"scale": "nominal"}, "y": {"scale": "nominal"}}}
    >>> r = aad(orig, prot, spec)
    >>> round(r.by_variable["x"], 4), r.by_variable["y"], round(r.by_pair["x|y"], 4), round(r.value, 4)
    (0.6667, 0.0, 0.3333, 0.3333)
    """
    names = _categorical(pair)
    use_w, wdetails = _weighting(pair, weighted, "aad")
    scale = _scale(pair, use_w)
    by_variable, cells = {}, {}
    for name in names:
        diff, cells[name] = _abs_diff(pair, (name,), use_w, scale)
        by_variable[name] = diff / cells[name]
    by_pair = {}
    for combo in _pairs(names):
        diff, cells[_key(combo)] = _abs_diff(pair, combo, use_w, scale)
        by_pair[_key(combo)] = diff / cells[_key(combo)]
    values = list(by_variable.values()) + list(by_pair.values())
    details = {"tables": len(values), "cells": cells, "scale": scale, **wdetails}
    if use_w and pair.paired:
        details["records_moved"] = _records_moved(pair, names)
    return MeasureResult(
        value=float(np.mean(values)),
        by_variable=by_variable,
        by_pair=by_pair or None,
        details=details,
    )


# ---------------------------------------------------------------------------
# Hellinger
# ---------------------------------------------------------------------------
def _hellinger(p: np.ndarray, q: np.ndarray) -> float:
    h2 = 0.5 * float(np.square(np.sqrt(p) - np.sqrt(q)).sum())
    return math.sqrt(min(max(h2, 0.0), 1.0))


@measure(
    "hellinger",
    shares_cores=True,
    family="tables",
    description="Hellinger distance between the original and protected one- and two-way tables, on proportions",
    range=(0, 1),
    better="lower",
    needs_pairing=False,
    headline=True,
    options=(WEIGHTED,),
)
def hellinger(pair: EncodedPair, *, weighted: bool | None = None) -> MeasureResult:
    r"""Hellinger distance between the original and protected tables, on proportions.

    .. math::

        HD(p, q) = \sqrt{\tfrac12 \sum_c \left(\sqrt{p_c} - \sqrt{q_c}\right)^2}

    with ``p``, ``q`` the cell proportions of a table in the original and the
    protected file (missing as a category).  It lies in [0, 1]: 0 for
    identical distributions, 1 for disjoint supports.  This is the Handbook's
    Hellinger distance applied to proportions (as INSEE's ``ckm`` does), so it
    does not grow with the file size and compares files of different sizes.
    ``by_variable``: one-way tables; ``by_pair``: two-way tables; ``value``:
    mean over all of them.

    Parameters
    ----------
    pair : EncodedPair
        The encoded files (or ``original_df, protected_df, spec``).
    weighted : bool, optional
        Weighted proportions.  Default: when both files have weights.

    References
    ----------
    Hundepool et al., *Handbook on Statistical Disclosure Control*,
    "Information loss measures" (Hellinger distance).  Shlomo, N., Antal, L. &
    Elliot, M. (2015). Measuring disclosure risk and data utility for flexible
    table generators. *Journal of Official Statistics* 31(2), 305-324.

    Examples
    --------
    Proportions (1/2, 1/2) against (3/4, 1/4):
    sqrt(((sqrt(.5) - sqrt(.75))**2 + (sqrt(.5) - sqrt(.25))**2) / 2) = 0.1846.

    >>> import pandas as pd
    >>> from infoloss.measures.tables import hellinger
    >>> orig = pd.DataFrame({"x": ["a", "a", "b", "b"]})
    >>> prot = pd.DataFrame({"x": ["a", "a", "a", "b"]})
    >>> round(hellinger(orig, prot, {"variables": {"x": {"scale": "nominal"}}}).value, 4)
    0.1846
    """
    names = _categorical(pair)
    use_w, wdetails = _weighting(pair, weighted, "hellinger")

    def distance(combo: tuple[str, ...]) -> float:
        return _hellinger(*_both_proportions(pair, combo, use_w))

    by_variable = {name: distance((name,)) for name in names}
    by_pair = {_key(combo): distance(combo) for combo in _pairs(names)}
    values = list(by_variable.values()) + list(by_pair.values())
    return MeasureResult(
        value=float(np.mean(values)),
        by_variable=by_variable,
        by_pair=by_pair or None,
        details={"tables": len(values), "scale": "proportions", **wdetails},
    )


# ---------------------------------------------------------------------------
# KL divergence
# ---------------------------------------------------------------------------
@measure(
    "kl_divergence",
    shares_cores=True,
    family="tables",
    description="Kullback-Leibler divergence D(original || protected) of each one-way distribution (smoothed)",
    range=(0, None),
    better="lower",
    needs_pairing=False,
    options=(SMOOTHING, WEIGHTED),
)
def kl_divergence(pair: EncodedPair, *, smoothing: float = 0.5, weighted: bool | None = None) -> MeasureResult:
    r"""Kullback-Leibler divergence of the protected from the original one-way distributions.

    .. math::

        D_{KL}(P \,\|\, Q) = \sum_c p_c \log\frac{p_c}{q_c},\qquad
        p_c = \frac{x^F_c + \alpha}{N_F + \alpha k},\quad
        q_c = \frac{x^G_c + \alpha}{N_G + \alpha k}

    ``P`` is the original distribution (the reference) and ``Q`` the protected
    one, so the value is the information lost when the protected distribution
    is used in place of the original's; natural logarithm (nats).  Missing is a
    category.  Empty cells are smoothed by adding ``alpha = smoothing``
    pseudo-records to every one of the ``k`` cells of *both* tables, the
    categories that hold records in either file (0.5: the
    Jeffreys / Krichevsky-Trofimov estimate); with weights a pseudo-record
    weighs the file's mean positive weight, so constant weights give the
    unweighted result and records of weight 0 count for nothing.  ``by_variable`` per variable; ``value`` the mean.

    Parameters
    ----------
    pair : EncodedPair
        The encoded files (or ``original_df, protected_df, spec``).
    smoothing : float, default 0.5
        Pseudo-count added to every cell; 0 gives the unsmoothed divergence,
        which is infinite when a category of the original is absent from the
        protected file (such variables are then not computed).
    weighted : bool, optional
        Weighted distributions.  Default: when both files have weights.

    References
    ----------
    Kullback, S. & Leibler, R. A. (1951). On information and sufficiency.
    *Annals of Mathematical Statistics* 22(1), 79-86.  Kifer, D. & Gehrke, J.
    (2006). Injecting utility into anonymized datasets. SIGMOD, 217-228.

    Examples
    --------
    Counts (2, 2) and (3, 1) smoothed to (2.5, 2.5)/5 and (3.5, 1.5)/5:
    0.5*log(0.5/0.7) + 0.5*log(0.5/0.3) = 0.0872.

    >>> import pandas as pd
    >>> from infoloss.measures.tables import kl_divergence
    >>> orig = pd.DataFrame({"x": ["a", "a", "b", "b"]})
    >>> prot = pd.DataFrame({"x": ["a", "a", "a", "b"]})
    >>> round(kl_divergence(orig, prot, {"variables": {"x": {"scale": "nominal"}}}).value, 4)
    0.0872
    """
    names = _categorical(pair)
    try:
        alpha = float(smoothing)
    except (TypeError, ValueError):
        alpha = float("nan")
    if not (math.isfinite(alpha) and alpha >= 0):
        raise InputError(f"kl_divergence's smoothing must be a number of at least 0, got {smoothing!r}.")
    use_w, wdetails = _weighting(pair, weighted, "kl_divergence")
    unit = {which: _total(pair, which, use_w) / _records_that_count(pair, which, use_w)
            for which in (ORIGINAL, PROTECTED)}
    by_variable, not_computed = {}, {}
    for name in names:
        dist = []
        counts = [_table(pair, (name,), which, use_w).astype(float) for which in (ORIGINAL, PROTECTED)]
        held = (counts[0] > 0) | (counts[1] > 0)  # a category of records of weight 0 alone is no cell: k counts cells
        for which, table in zip((ORIGINAL, PROTECTED), counts):  # that hold records (weight 0 counts for nothing)
            x = table[held] + alpha * unit[which]
            total = x.sum()
            if not total > 0:
                raise NotComputed(f"the {'original' if which == ORIGINAL else 'protected'} file has no records to tabulate")
            dist.append(x / total)
        terms = rel_entr(dist[0], dist[1])
        if not np.isfinite(terms).all():
            not_computed[name] = "a category of the original is absent from the protected file (no smoothing)"
            continue
        by_variable[name] = max(float(terms.sum()), 0.0)
    if not by_variable:
        raise NotComputed("every variable has a category of the original that the protected file lacks; use smoothing > 0")
    details = {"direction": "D(original || protected)", "log": "natural (nats)", "smoothing": alpha, **wdetails}
    if not_computed:
        details["not_computed"] = not_computed
    return MeasureResult(value=float(np.mean(list(by_variable.values()))), by_variable=by_variable, details=details)


def _records_that_count(pair: EncodedPair, which: str, use_w: bool) -> int:
    """The file's records, those of positive weight when weighted (a record of weight 0 counts for nothing)."""
    if not use_w:
        return pair.n(which)
    return max(int(np.count_nonzero(pair.weights(which) > 0)), 1)


# ---------------------------------------------------------------------------
# Cramér's V IL
# ---------------------------------------------------------------------------
def _cramers_v(table: np.ndarray) -> tuple[float | None, str | None]:
    """Cramér's V of a two-way table of counts (complete cases, empty rows/columns dropped).

    Returns ``(V, None)``, or ``(None, reason)`` when V is undefined.
    """
    table = table[:-1, :-1]  # complete cases: drop the missing row and column
    table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
    total = float(table.sum())
    if not total > 0:
        return None, "no record has both variables observed"
    r, c = table.shape
    if min(r, c) < 2:
        which = "the first" if r < 2 else "the second"
        return None, f"{which} variable has only one observed category among the complete cases"
    rows, cols = table.sum(axis=1), table.sum(axis=0)
    # Pearson chi-squared without continuity correction, sum (O - E)^2 / E as scipy computes it: exactly 0
    # for a table whose rows are proportional (N * (sum O^2 / (row * col) - 1) leaves about 1e-16 N there)
    expected = np.outer(rows, cols) / total
    chi2 = float((np.square(table - expected) / expected).sum())
    return _v_from_chi2(chi2, total, r, c), None


def _v_from_chi2(chi2: float, total: float, r: int, c: int) -> float:
    return min(math.sqrt(max(chi2, 0.0) / (total * (min(r, c) - 1))), 1.0)


def _cramers_v_sparse(pair: EncodedPair, combo: tuple[str, str], which: str, use_w: bool) -> tuple[float | None, str | None]:
    """:func:`_cramers_v` from the observed cells of the complete cases (for tables too large to hold densely)."""
    f, g, (a, b) = limits.aligned_counts(pair, combo, use_w, complete=True)
    counts = f if which == ORIGINAL else g
    ok = counts > 0
    a, b, o = a[ok], b[ok], counts[ok]
    total = float(o.sum())
    if not total > 0:
        return None, "no record has both variables observed"
    rows = np.bincount(a, weights=o)
    cols = np.bincount(b, weights=o)
    r, c = int(np.count_nonzero(rows)), int(np.count_nonzero(cols))
    if min(r, c) < 2:
        which_var = "the first" if r < 2 else "the second"
        return None, f"{which_var} variable has only one observed category among the complete cases"
    # sum (O - E)^2 / E over the observed cells, plus sum E over the empty ones: row i's empty cells hold
    # row_i (N - the column totals of its observed cells) / N.  N (sum O^2 / (row col) - 1), the same in exact
    # arithmetic, leaves about 1e-16 N per cell where the rows are proportional (chi2 = 0): V of 1e-8, not 0
    expected = rows[a] * cols[b] / total
    observed_part = float((np.square(o - expected) / expected).sum())
    covered = np.bincount(a, weights=cols[b], minlength=rows.shape[0])
    empty_part = float((rows * (total - covered)).sum()) / total
    return _v_from_chi2(observed_part + max(empty_part, 0.0), total, r, c), None


def _cramers_v_of(pair: EncodedPair, combo: tuple[str, str], which: str, use_w: bool) -> tuple[float | None, str | None]:
    if limits.prefer_sparse(pair, combo):
        return _cramers_v_sparse(pair, combo, which, use_w)
    return _cramers_v(_full_table(pair, combo, which, use_w))


@measure(
    "cramers_v_il",
    shares_cores=True,
    family="tables",
    description="Shlomo's relative change in Cramér's V, |CV(prot) - CV(orig)| / CV(orig), per pair",
    range=(0, None),
    better="lower",
    needs_pairing=False,
    headline=True,
    options=(WEIGHTED,),
)
def cramers_v_il(pair: EncodedPair, *, weighted: bool | None = None) -> MeasureResult:
    r"""Information loss in Cramér's V (Shlomo 2010), absolute, as a fraction.

    .. math::

        CV(D) = \sqrt{\frac{\chi^2(D)}{n\,(\min(R, C) - 1)}},\qquad
        IL = \frac{\lvert CV(D_{prot}) - CV(D_{orig})\rvert}{CV(D_{orig})}

    for every pair of categorical variables (``by_pair``); ``value`` is the
    mean over pairs.  Shlomo's published form is signed and in percent,
    ``100 (CV_prot - CV_orig) / CV_orig``; it is in ``details["signed_percent"]``.
    ``chi2`` is Pearson's statistic without continuity correction.  Cells
    entering it: complete cases (records with both variables observed; the
    missing row and column are dropped), and rows or columns empty in that
    file are dropped, so ``R`` and ``C`` count the observed categories.  A
    pair whose original V is 0 or undefined is left out (reason in
    ``details["not_computed"]``); a protected table with fewer than two
    observed categories on an axis has no association, ``CV(prot) = 0``
    (listed in ``details["protected_degenerate"]``).  Weighted counts give
    the same V for any rescaling of the weights.

    Parameters
    ----------
    pair : EncodedPair
        The encoded files (or ``original_df, protected_df, spec``).
    weighted : bool, optional
        Weighted tables.  Default: when both files have weights.

    References
    ----------
    Shlomo, N. (2010). Releasing microdata: disclosure risk estimation, data
    masking and assessing utility. *Journal of Privacy and Confidentiality*
    2(1), 73-91 (p. 84).  Shlomo, N. & Young, C. (2006). Information loss
    measures for frequency tables. Proc. Joint UNECE/Eurostat work session on
    statistical data confidentiality.

    Examples
    --------
    The original pair is perfectly associated (V = 1); the protected 2x2
    table ((1, 1), (0, 2)) has chi2 = 4 * (1/2 + 1/6 + 4/6 - 1) = 4/3 and
    V = sqrt(1/3) = 0.5774, an IL of 1 - 0.5774.

    >>> import pandas as pd
    >>> from infoloss.measures.tables import cramers_v_il
    >>> orig = pd.DataFrame({"x": ["a", "a", "b", "b"], "y": ["u", "u", "v", "v"]})
    >>> prot = pd.DataFrame({"x": ["a", "a", "b", "b"], "y": ["u", "v", "v", "v"]})
    >>> spec = {"variables": {"x": {"scale": "nominal"}, "y": {"scale": "nominal"}}}
    >>> round(cramers_v_il(orig, prot, spec).by_pair["x|y"], 4)
    0.4226
    """
    names = _categorical(pair)
    if len(names) < 2:
        raise NotComputed("it needs at least two categorical variables")
    use_w, wdetails = _weighting(pair, weighted, "cramers_v_il")
    by_pair, cv_orig, cv_prot, signed = {}, {}, {}, {}
    not_computed, degenerate = {}, {}
    for combo in _pairs(names):
        key = _key(combo)
        v_orig, reason = _cramers_v_of(pair, combo, ORIGINAL, use_w)
        if v_orig is None:
            not_computed[key] = f"Cramér's V of the original is undefined: {reason}"
            continue
        if v_orig < _V_ZERO:
            not_computed[key] = "the variables are not associated in the original (Cramér's V = 0)"
            continue
        v_prot, reason = _cramers_v_of(pair, combo, PROTECTED, use_w)
        if v_prot is None:
            degenerate[key] = reason
            v_prot = 0.0
        by_pair[key] = abs(v_prot - v_orig) / v_orig
        cv_orig[key], cv_prot[key] = v_orig, v_prot
        signed[key] = 100.0 * (v_prot - v_orig) / v_orig
    if not by_pair:
        raise NotComputed(
            "Cramér's V of the original is zero or undefined for every pair of categorical variables"
        )
    details = {
        "cv_original": cv_orig,
        "cv_protected": cv_prot,
        "signed_percent": signed,
        "cells": "complete cases; rows and columns empty in a file dropped",
        **wdetails,
    }
    if not_computed:
        details["not_computed"] = not_computed
    if degenerate:
        details["protected_degenerate"] = degenerate
    return MeasureResult(value=float(np.mean(list(by_pair.values()))), by_pair=by_pair, details=details)


# ---------------------------------------------------------------------------
# EBIL
# ---------------------------------------------------------------------------
def read_pram_matrix(path: str | Path, name: str = "") -> pd.DataFrame:
    """Read a PRAM transition matrix from CSV and check it.

    Layout: a header row with the *released* categories ``j`` (its first cell
    is ignored, e.g. empty), then one row per *original* category ``i``: the
    category label in the first column, then ``P(V' = j | V = i)``.  This is
    what R's ``write.csv`` writes for a matrix with dimnames (e.g. sdcMicro's
    PRAM matrix).  Separator ``,``, ``;`` or tab.  Labels are read as text and
    normalised like the data's categories (``2``, ``2.0`` and ``"2"`` are one
    category).

    Returns
    -------
    pandas.DataFrame
        Rows: original categories; columns: released categories; float values.

    Raises
    ------
    InputError
        An unreadable file, a non-numeric or negative probability, a repeated
        label, or a row that does not sum to 1 (tolerance 1e-6).
    """
    path = Path(path)
    what = f"the PRAM matrix of {name!r} ({path})" if name else f"the PRAM matrix {path}"
    try:
        with open(path, encoding="utf-8-sig") as fh:
            first = fh.readline()
        sep = max((",", ";", "\t"), key=first.count)
        raw = pd.read_csv(path, sep=sep, header=None, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise InputError(f"{what} cannot be read ({exc.__class__.__name__}: {exc}); check the 'pram:' path in the spec.") from None
    if raw.shape[0] < 2 or raw.shape[1] < 2:
        raise InputError(
            f"{what} must have a header row of released categories and one row per original category, "
            "each starting with its label."
        )
    cols = [normalise_label(c.strip().strip('"')) for c in raw.iloc[0, 1:]]
    rows = [normalise_label(r.strip().strip('"')) for r in raw.iloc[1:, 0]]
    for labels, axis in ((cols, "header"), (rows, "first column")):
        dup = pd.Index(labels)[pd.Index(labels).duplicated()]
        if len(dup):
            raise InputError(f"{what} lists the category {dup[0]!r} twice in its {axis}.")
    body = raw.iloc[1:, 1:].apply(lambda s: pd.to_numeric(s.str.strip(), errors="coerce"))
    values = body.to_numpy(dtype=float)
    if np.isnan(values).any():
        i, j = np.argwhere(np.isnan(values))[0]
        raise InputError(
            f"{what} has a non-numeric probability {raw.iloc[1 + i, 1 + j]!r} in row {rows[i]!r}, column {cols[j]!r}."
        )
    if (values < 0).any() or (values > 1).any():
        i, j = np.argwhere((values < 0) | (values > 1))[0]
        raise InputError(
            f"{what} has the value {values[i, j]:g} in row {rows[i]!r}, column {cols[j]!r}; probabilities lie in [0, 1]."
        )
    sums = values.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > ROW_SUM_TOLERANCE)
    if len(bad):
        i = bad[0]
        raise InputError(
            f"row {rows[i]!r} of {what} sums to {sums[i]:.6g}, not 1; each row (an original category) must hold "
            "the probabilities of the released categories."
        )
    return pd.DataFrame(values, index=rows, columns=cols)


def _transition(pair: EncodedPair, name: str, use_weights: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The paired original x protected table of one variable, sparse: its non-empty cells.

    Returns ``(i, j, count)``: original cell code, protected cell code
    (missing is ``n_categories``) and the count (sum of weights) of each
    observed combination.  Sparse because a variable of 100,000 categories
    would need a 74.5 GiB dense matrix.
    """

    def compute() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        size = pair.categorical[name].n_categories + 1
        flat = limits.combined_codes([pair.cell_codes(name, ORIGINAL), pair.cell_codes(name, PROTECTED)], [size, size])
        w = pair.weights(ORIGINAL) if use_weights else None
        if size * size <= max(flat.shape[0], 1 << 20):  # a dense count is no larger than the records: no sort
            observed = np.bincount(flat, minlength=size * size)
            cells = np.flatnonzero(observed)
            counts = (observed if w is None else np.bincount(flat, weights=w, minlength=size * size))[cells]
            return cells // size, cells % size, counts.astype(float)
        cells, inverse = limits.unique_inverse(flat)
        counts = np.bincount(inverse, weights=w, minlength=cells.shape[0]).astype(float)
        return cells // size, cells % size, counts

    return pair.cached(("tables", "transition", name, use_weights), compute)


def _ebil_estimated(pair: EncodedPair, name: str, use_weights: bool) -> dict:
    size = pair.categorical[name].n_categories + 1
    i, j, joint = _transition(pair, name, use_weights)
    released = np.bincount(j, weights=joint, minlength=size)
    ok = joint > 0
    # sum over released j of n_j H(V | V' = j), with posterior P(V = i | V' = j) = joint_ij / n_j
    weight = released[j[ok]]
    total_h = float(np.dot(weight, entr(joint[ok] / weight)))
    k = int(np.count_nonzero(np.bincount(i, weights=joint, minlength=size) > 0))
    return {"ebil": total_h, "n": float(released.sum()), "k": k, "matrix": "estimated"}


def _ebil_of(pair: EncodedPair, name: str, use_weights: bool) -> dict:
    if pair.variable(name).pram is not None:
        return _ebil_given(pair, name, use_weights)
    return _ebil_estimated(pair, name, use_weights)


def _ebil_given(pair: EncodedPair, name: str, use_weights: bool) -> dict:
    col = pair.categorical[name]
    matrix = read_pram_matrix(pair.variable(name).pram, name)
    t_orig = pair.table(name, ORIGINAL, weighted=use_weights)[:-1].astype(float)
    t_prot = pair.table(name, PROTECTED, weighted=use_weights)[:-1].astype(float)
    counts_o = pair.table(name, ORIGINAL)[:-1]
    counts_p = pair.table(name, PROTECTED)[:-1]
    cats = col.categories
    absent = [c for c, n in zip(cats, counts_o) if n > 0 and c not in matrix.index]
    if absent:
        raise InputError(
            f"the PRAM matrix of {name!r} has no row for the original categories "
            f"{', '.join(map(repr, absent[:5]))}; its rows are {', '.join(map(repr, list(matrix.index)[:10]))}."
        )
    absent = [c for c, n in zip(cats, counts_p) if n > 0 and c not in matrix.columns]
    if absent:
        raise InputError(
            f"the PRAM matrix of {name!r} has no column for the released categories "
            f"{', '.join(map(repr, absent[:5]))}; its columns are {', '.join(map(repr, list(matrix.columns)[:10]))}."
        )
    # prior P(V = i) from the original marginal (non-missing), over the matrix's rows
    rows = list(matrix.index)
    position = {c: i for i, c in enumerate(cats)}
    prior = np.array([t_orig[position[r]] if r in position else 0.0 for r in rows])
    if not prior.sum() > 0:
        raise NotComputed("the original file has no non-missing value")
    prior = prior / prior.sum()
    joint = matrix.to_numpy() * prior[:, None]  # P(V = i, V' = j)
    column = joint.sum(axis=0)
    released = np.array([t_prot[position[c]] if c in position else 0.0 for c in matrix.columns])
    impossible = [c for c, p, n in zip(matrix.columns, column, released) if n > 0 and not p > 0]
    if impossible:
        raise InputError(
            f"the protected file has the category {impossible[0]!r} of {name!r}, which its PRAM matrix cannot "
            "produce from any category the original file has; check the matrix against the data."
        )
    ok = released > 0
    posterior = joint[:, ok] / column[ok]
    total_h = float((released[ok] * entr(posterior).sum(axis=0)).sum())
    missing = float(pair.table(name, PROTECTED, weighted=use_weights)[-1])
    return {
        "ebil": total_h,
        "n": float(released.sum()),
        "k": int((prior > 0).sum()),
        "matrix": "spec",
        "excluded_missing": missing,
    }


@measure(
    "ebil",
    shares_cores=True,
    family="tables",
    description="entropy-based IL for PRAM: uncertainty about the original value given the released one",
    range=(0, 1),
    better="lower",
    needs_pairing=False,
    options=(WEIGHTED,),
)
def ebil(pair: EncodedPair, *, weighted: bool | None = None) -> MeasureResult:
    r"""Entropy-based information loss for PRAMmed variables (Domingo-Ferrer & Torra 2001).

    .. math::

        P(V=i \mid V'=j) = \frac{P(V'=j \mid V=i)\,P(V=i)}{\sum_k P(V'=j \mid V=k)\,P(V=k)},\qquad
        EBIL = \sum_{r \in G} H(V \mid V' = j_r)

    with ``H(V | V'=j) = -sum_i P(V=i | V'=j) log P(V=i | V'=j)`` (natural
    log), ``j_r`` the released category of protected record ``r`` and
    ``P(V=i)`` the original file's marginal distribution.  ``by_variable``
    holds the published (un-normalised) EBIL per variable;
    ``details["normalised"]`` holds ``EBIL / (n log K)`` in [0, 1] (``n``
    records summed, ``K`` original categories present; 0 when ``K = 1``), our
    normalisation, not the paper's; ``value`` is the mean of the normalised
    values, so files of different sizes compare.

    Which variables and which matrix (``details["matrix"]``):

    * variables with a ``pram:`` file in the spec use that matrix
      (:func:`read_pram_matrix` gives the CSV layout: rows original
      categories, columns released categories, entries ``P(V'=j | V=i)``).
      Protected records with a missing value are left out (the matrix says
      nothing about them; counted in ``details["excluded_missing"]``), and so
      are original missing values from the prior.  This works unpaired.
    * when no variable has a ``pram:`` entry and the files are record-paired,
      every categorical variable is used with the matrix estimated from the
      paired records (the original x protected table, missing as a
      category, so a suppression counts like a PRAM move to "missing"); the
      posterior is then the column profile of that table.  An unchanged
      variable has EBIL 0.

    Parameters
    ----------
    pair : EncodedPair
        The encoded files (or ``original_df, protected_df, spec``).
    weighted : bool, optional
        Weight records (prior, estimated matrix and the sum over records);
        ``n`` is then the total weight.  Default: when both files have weights.

    Raises
    ------
    InputError
        A PRAM matrix that cannot be read, whose rows do not sum to 1, or
        whose categories do not cover the data's.
    NotComputed
        No ``pram:`` entry and unpaired files.

    References
    ----------
    Domingo-Ferrer, J. & Torra, V. (2001). Disclosure control methods and
    information loss for microdata.  Hundepool et al., *Handbook on
    Statistical Disclosure Control*, "Entropy-based measures".  Kooiman, P.,
    Willenborg, L. & Gouweleeuw, J. (1998). PRAM: a method for disclosure
    limitation of microdata. Statistics Netherlands.

    Examples
    --------
    Estimated matrix: a -> a, a -> b, b -> b, b -> b.  Released ``a`` is
    certainly ``a`` (H = 0); released ``b`` is ``a`` with probability 1/3:
    H = -(1/3) log(1/3) - (2/3) log(2/3) = 0.6365, three times: 1.9095;
    normalised by 4 log 2: 0.6887.

    >>> import pandas as pd
    >>> from infoloss.measures.tables import ebil
    >>> orig = pd.DataFrame({"x": ["a", "a", "b", "b"]})
    >>> prot = pd.DataFrame({"x": ["a", "b", "b", "b"]})
    >>> r = ebil(orig, prot, {"variables": {"x": {"scale": "nominal"}}})
    >>> round(r.by_variable["x"], 4), round(r.value, 4), r.details["matrix"]["x"]
    (1.9095, 0.6887, 'estimated')
    """
    names = _categorical(pair)
    use_w, wdetails = _weighting(pair, weighted, "ebil")
    with_matrix = [v.name for v in pair.variables if v.pram is not None]
    not_computed: dict[str, str] = {}
    if with_matrix:
        chosen = []
        for name in with_matrix:
            if pair.variable(name).removed:
                not_computed[name] = "removed from the protected file"
            elif name not in pair.categorical:
                not_computed[name] = "it is continuous; PRAM applies to categorical variables"
            else:
                chosen.append(name)
    elif pair.paired:
        chosen = names
    else:
        raise NotComputed(
            "no variable has a PRAM matrix in the spec ('pram:'), and the files are not paired, "
            "so the matrix cannot be estimated from the records"
        )
    by_variable, normalised, matrix, n, k, excluded = {}, {}, {}, {}, {}, {}
    from .._concurrent import thread_limits

    # long dot products: the same bits alone or beside another measure.  Entered once, not per variable:
    # each entry reads the process's loaded libraries (about 1 ms; 3,000 variables took 3.4 s)
    with thread_limits(1):
        results = {name: _ebil_of(pair, name, use_w) for name in chosen}
    for name, res in results.items():
        if not res["n"] > 0:
            not_computed[name] = "the protected file has no released (non-missing) value"
            continue
        by_variable[name] = res["ebil"]
        normalised[name] = min(res["ebil"] / (res["n"] * math.log(res["k"])), 1.0) if res["k"] > 1 else 0.0
        matrix[name], n[name], k[name] = res["matrix"], res["n"], res["k"]
        if "excluded_missing" in res:
            excluded[name] = res["excluded_missing"]
    if not by_variable:
        raise NotComputed("no variable could be measured: " + "; ".join(f"{a}: {b}" for a, b in not_computed.items()))
    details = {
        "normalised": normalised,
        "matrix": matrix,
        "n": n,
        "K": k,
        "total": float(sum(by_variable.values())),
        "log": "natural (nats)",
        **wdetails,
    }
    if excluded:
        details["excluded_missing"] = excluded
    if not_computed:
        details["not_computed"] = not_computed
    return MeasureResult(value=float(np.mean(list(normalised.values()))), by_variable=by_variable, details=details)


# ---------------------------------------------------------------------------
# labelled tables for the report
# ---------------------------------------------------------------------------
def frequency_table(
    pair: EncodedPair, names: str | Iterable[str], which: str, weighted: bool = False
) -> pd.Series | pd.DataFrame:
    """A labelled frequency table of one or more categorical variables.

    A thin wrapper on :meth:`EncodedPair.table`: categories as labels, the
    last cell of each axis labelled ``"missing"`` (``"(missing)"`` if a real
    category is called ``missing``).

    Parameters
    ----------
    pair : EncodedPair
    names : str or sequence of str
        One name gives a Series; two give a DataFrame (rows: the first
        variable); more give a Series with a MultiIndex.
    which : {"orig", "prot"}
    weighted : bool, default False
        Sums of the file's weights (plain counts when it has none).

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.pair import encode_pair
    >>> from infoloss.measures.tables import frequency_table
    >>> pair = encode_pair(pd.DataFrame({"x": ["a", "b", None]}), pd.DataFrame({"x": ["a", "a", "b"]}),
    ...                    {"variables": {"x": {"scale": "nominal"}}})
    >>> frequency_table(pair, "x", "orig").to_dict()
    {'a': 1, 'b': 1, 'missing': 1}
    """
    single = isinstance(names, str)
    names = (names,) if single else tuple(names)
    if which not in (ORIGINAL, PROTECTED):
        raise ValueError(f"which must be {ORIGINAL!r} or {PROTECTED!r}, got {which!r}")
    for name in names:
        if name not in pair.categorical:
            raise ValueError(f"{name!r} is not a categorical variable of the pair")
        if pair.categorical[name].codes(which) is None:
            raise ValueError(f"{name!r} was removed from the protected file")
    table = pair.table(names, which, weighted=weighted)
    labels = []
    for name in names:
        cats = list(pair.categorical[name].categories)
        labels.append(cats + [MISSING_LABEL if MISSING_LABEL not in cats else f"({MISSING_LABEL})"])
    if len(names) == 1:
        return pd.Series(table, index=pd.Index(labels[0], name=names[0]), name=names[0])
    if len(names) == 2:
        return pd.DataFrame(table, index=pd.Index(labels[0], name=names[0]), columns=pd.Index(labels[1], name=names[1]))
    index = pd.MultiIndex.from_product(labels, names=list(names))
    return pd.Series(table.ravel(), index=index, name="count")
