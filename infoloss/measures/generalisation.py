"""Generalisation and suppression: the loss of a file whose values were replaced by more general ones.

For k-anonymised files (ARX, sdcMicro's global recoding, Amnesia, Mondrian):
each protected value of a variable with a ``hierarchy:`` is a node of that
hierarchy (:mod:`infoloss.generalised`).  The quasi-identifiers are the
``role: key`` variables (without keys: the variables with a hierarchy; a key
without a hierarchy counts its values as leaves and missing as the root).  An
**equivalence class** is a distinct tuple of generalised quasi-identifiers; a
record whose quasi-identifiers are all suppressed (ARX shows ``*``) is a
**suppressed record**.

Notation: ``N`` records, ``S`` suppressed records, ``E`` a class that is not
suppressed, ``L(v)`` the leaves under a node ``v``, ``|D_a|`` the leaves of
variable ``a``'s hierarchy, ``h_a`` its height, ``l`` a value's level.  The
conventions of ARX 3.9.2 (``docs/conventions.md`` §1 of the project) are
given in ``details`` where ARX computes the same measure; the tests check them
against ARX's own output for a k-anonymised adult.

Decisions (also in each docstring):

* Every value is lower-is-better with 0 at the identity, except
  ``ambiguity`` (ideal 1: every record stands for itself).  ``discernibility``
  and ``aecs`` depend on the data even for the identity, so their ``value`` is
  relative: 0 for the original's own classes, 1 for a single class or a fully
  suppressed file; ARX's raw numbers are in ``details``.
* A value missing in the protected file is a suppression (the root); a value
  missing in both paired files loses nothing.
* Numeric formulas (interval widths) apply to ``continuous`` variables whose
  hierarchy leaves are numbers; other variables use leaf counts.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import InputError, NotComputed
from ..generalised import Classes, GeneralisedColumn, classes, group_ids, original_classes, quasi_identifiers
from ..pair import EncodedPair
from ..registry import MeasureResult, Option, measure

__all__ = [
    "discernibility",
    "aecs",
    "height",
    "loss_metric",
    "iloss",
    "ncp",
    "gcp",
    "precision",
    "ambiguity",
    "suppressed_records",
]


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
LEFEVRE_K = Option("k", "int", None, "k of LeFevre's C_avg (auto: the smallest class of the protected file)", low=1,
                   nullable=True)


# ---------------------------------------------------------------------------
# shared per-record pieces
# ---------------------------------------------------------------------------
def _qi(pair: EncodedPair) -> list[GeneralisedColumn]:
    return quasi_identifiers(pair)


def _numeric(pair: EncodedPair, gc: GeneralisedColumn) -> bool:
    """Interval widths apply: a continuous variable with numeric leaves."""
    return gc.hierarchy.numeric and pair.variable(gc.name).scale == "continuous"


def _width(gc: GeneralisedColumn, low: float, high: float) -> np.ndarray:
    """Width of every protected value's numeric span within ``[low, high]`` (0 for a leaf)."""

    def compute() -> np.ndarray:
        h = gc.hierarchy
        lo = np.clip(h.low, low, high)
        hi = np.clip(h.high, low, high)
        width = np.maximum(hi - lo, 0.0)[gc.prot_node]
        if gc.both_missing is not None:
            width[gc.both_missing] = 0.0
        return width

    return gc._cached(("width", low, high), compute)


def _table_range(gc: GeneralisedColumn) -> tuple[float, float]:
    """The smallest and largest original value (Ghinita et al.'s ``min_T``, ``max_T``)."""
    values = gc.hierarchy.leaf_values()
    leaves = gc.orig_leaf[gc.orig_leaf >= 0]
    used = values[np.unique(leaves)]
    return (float(used.min()), float(used.max())) if used.size else (0.0, 0.0)


def _share(gc: GeneralisedColumn) -> np.ndarray:
    """``(L(v) − 1)/(|D| − 1)`` per record: Iyengar's categorical loss (0 for a leaf, 1 for the root)."""
    d = gc.hierarchy.n_leaves
    return gc._cached("share", lambda: (gc.leaf_count - 1.0) / (d - 1.0) if d > 1 else np.zeros_like(gc.leaf_count))


def _lm(pair: EncodedPair, gc: GeneralisedColumn) -> tuple[np.ndarray, str]:
    """Iyengar's loss per record, and which form was used."""
    h = gc.hierarchy
    if h.kind == "intervals" and _numeric(pair, gc):
        low, high = h.domain
        return _width(gc, low, high) / (high - low), "interval width / domain width"
    return _share(gc), "(L(v) - 1) / (|D| - 1)"


def _arx_lm(pair: EncodedPair, gc: GeneralisedColumn) -> float:
    """ARX's Loss of one attribute (gs-factor 0.5): ``(Σ share − N/|D|)/(N − N/|D|)`` clipped at 0."""
    h = gc.hierarchy
    n = gc.prot_node.shape[0]
    if h.kind == "intervals" and _numeric(pair, gc):
        low, high = h.domain
        size = high - low
        share = np.where(gc.prot_level == 0, 1.0, _width(gc, low, high)) / size  # ARX: a leaf has share 1/|D|
    else:
        size = float(h.n_leaves)
        share = gc.leaf_count / size
    share = np.where(gc.is_root & ~_both(gc), 1.0, share)
    floor = n / size
    if n - floor <= 0:
        return 0.0
    return max((float(share.sum()) - floor) / (n - floor), 0.0)


def _both(gc: GeneralisedColumn) -> np.ndarray:
    return gc.both_missing if gc.both_missing is not None else np.zeros(gc.prot_node.shape[0], dtype=bool)


def _weights(qi: list[GeneralisedColumn], weights: dict | None) -> dict[str, float]:
    names = [gc.name for gc in qi]
    if weights:
        unknown = [k for k in weights if k not in names]
        if unknown:
            raise InputError(
                f"the weights name {unknown[0]!r}, which is not a quasi-identifier; use one of {', '.join(names)}."
            )
    return {n: float((weights or {}).get(n, 1.0)) for n in names}


def _size_counts(sizes: np.ndarray) -> list[list[int]]:
    """``[[class size, number of classes], ...]`` in increasing size."""
    values, counts = np.unique(sizes, return_counts=True)
    return [[int(v), int(c)] for v, c in zip(values, counts)]


def _relative(value: float, identity: float) -> float:
    """``(value − identity)/(1 − identity)`` clipped to [0, 1]; 0 when nothing can be lost."""
    if identity >= 1.0:
        return 0.0
    return float(min(max((value - identity) / (1.0 - identity), 0.0), 1.0))


def _dm_star(pair: EncodedPair, qi: list[GeneralisedColumn], cl: Classes) -> float | None:
    """ARX's monotonic DM*: Σ|E|² over the classes before suppression (needs pairing and one level per variable)."""
    nodes = []
    for gc in qi:
        t = gc.transformation_node()
        if t is None:
            return None
        nodes.append(np.where(cl.suppressed, t, gc.class_node))
    ids, n = group_ids(nodes, [gc.hierarchy.n_nodes + 1 for gc in qi])
    return float(np.square(np.bincount(ids, minlength=n).astype(float)).sum())


# ---------------------------------------------------------------------------
# class-based measures
# ---------------------------------------------------------------------------
@measure(
    "discernibility",
    family="generalisation",
    description="discernibility metric Σ|E|² + N·S relative to the original's classes (0) and one class (1); ARX's DM in details",
    range=(0, 1),
    better="lower",
    needs_pairing=False,
    headline=True,
)
def discernibility(pair: EncodedPair) -> MeasureResult:
    r"""Discernibility metric (Bayardo & Agrawal 2005; Skowron's non-monotonic form in ARX), relative.

    Every record is penalised by the size of its equivalence class, a
    suppressed record by the file size:

    .. math::

        DM = \sum_{E\ \text{kept}} |E|^2 + N \cdot S

    ``details["arx"]`` is this number (ARX's non-monotonic Discernability).
    Because even the original has ``DM_0 = \sum |E_0|^2`` over its own
    distinct quasi-identifier tuples, ``value`` is relative:

    .. math::

        value = \frac{DM/N^2 - DM_0/N_0^2}{1 - DM_0/N_0^2} \in [0, 1]

    0 for the identity, 1 for one class or a fully suppressed file (``DM =
    N^2``), clipped to [0, 1] (a protected file finer than the original, which
    no generalisation is, gives 0).  ``details["dm_star"]`` is ARX's monotonic
    DM* (Σ|E|² over the classes before suppression, the suppressed records in
    the classes their generalised values form), given for record-paired files
    generalised to one level per variable.

    Returns
    -------
    MeasureResult
        ``details``: ``arx``, ``dm_star``, ``original`` (``DM_0``),
        ``n_records``, ``suppressed``, ``classes`` (kept), ``class_sizes``
        (``[size, number of classes]`` of the kept classes).

    References
    ----------
    Bayardo, R. J. & Agrawal, R. (2005). Data privacy through optimal
    k-anonymization. *ICDE 2005*, 217–228.  Prasser, F. et al. ARX 3.9
    (``MetricSDNMDiscernability``).  Seed 003, section II.A.

    Examples
    --------
    Four records, two classes of two after masking one digit: DM = 8 against
    the original's 4 (four distinct codes) and the maximum 16.

    >>> import pandas as pd
    >>> from infoloss.measures.generalisation import discernibility
    >>> orig = pd.DataFrame({"zip": ["7501", "7502", "7601", "7602"]})
    >>> prot = pd.DataFrame({"zip": ["750*", "750*", "760*", "760*"]})
    >>> spec = {"variables": {"zip": {"scale": "nominal", "role": "key", "hierarchy": {"mask": "right"}}}}
    >>> r = discernibility(orig, prot, spec)
    >>> r.details["arx"], r.details["original"], round(r.value, 4)   # (8/16 - 4/16) / (1 - 4/16)
    (8.0, 4.0, 0.3333)
    """
    qi = _qi(pair)
    cl = classes(pair)
    n = pair.n_prot
    s = cl.n_suppressed
    kept = cl.kept_sizes.astype(float)
    dm = float(np.square(kept).sum()) + float(n) * s
    _, orig_sizes = original_classes(pair)
    dm0 = float(np.square(orig_sizes.astype(float)).sum())
    value = _relative(dm / n**2, dm0 / pair.n_orig**2)
    dm_star = _dm_star(pair, qi, cl) if pair.paired else None
    return MeasureResult(
        value=value,
        details={
            "arx": dm,
            "dm_star": dm_star,
            "original": dm0,
            "n_records": n,
            "suppressed": s,
            "classes": int(kept.size),
            "class_sizes": _size_counts(cl.kept_sizes),
            "quasi_identifiers": [gc.name for gc in qi],
            "convention": "ARX non-monotonic DM (sum |E|^2 + N*S); value relative to the original (0) and N^2 (1)",
        },
    )


@measure(
    "aecs",
    family="generalisation",
    description="average equivalence class size N/(classes + [S>0]) relative to the original's (0) and one class (1); ARX's in details",
    range=(0, 1),
    better="lower",
    needs_pairing=False,
    options=(LEFEVRE_K,),
)
def aecs(pair: EncodedPair, *, k: int | None = None) -> MeasureResult:
    r"""Average equivalence class size (LeFevre, DeWitt & Ramakrishnan 2006; ARX's form), relative.

    ARX counts all suppressed records as one class:

    .. math::

        AECS = \frac{N}{\#\{E\ \text{kept}\} + [S > 0]}

    (``details["arx"]``).  ``value`` compares it with the original's own
    average class size ``N_0/\#E_0`` (distinct quasi-identifier tuples) and
    with the largest possible, ``N`` (one class):
    ``(AECS/N − 1/\#E_0)/(1 − 1/\#E_0)``, clipped to [0, 1].
    ``details["lefevre"]`` is LeFevre et al.'s normalised
    ``C_avg = ((N − S)/\#\{E\ \text{kept}\}) / k``.

    Parameters
    ----------
    k : int, optional
        The k of ``C_avg``.  Default: the smallest kept class, i.e. the k the
        protected file achieves.

    References
    ----------
    LeFevre, K., DeWitt, D. J. & Ramakrishnan, R. (2006). Mondrian
    multidimensional k-anonymity. *ICDE 2006*.  ARX 3.9 (``MetricSDAECS``).

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.generalisation import aecs
    >>> orig = pd.DataFrame({"zip": ["7501", "7502", "7601", "7602", "7603"]})
    >>> prot = pd.DataFrame({"zip": ["750*", "750*", "760*", "760*", "*"]})
    >>> spec = {"variables": {"zip": {"scale": "nominal", "role": "key", "hierarchy": {"mask": "right"}}}}
    >>> r = aecs(orig, prot, spec)
    >>> round(r.details["arx"], 4), r.details["lefevre"], round(r.value, 4)   # 5 / (2 + 1); (4 / 2) / 2
    (1.6667, 1.0, 0.1667)
    """
    cl = classes(pair)
    n = pair.n_prot
    s = cl.n_suppressed
    kept = cl.kept_sizes
    arx = n / (kept.size + (1 if s else 0))
    _, orig_sizes = original_classes(pair)
    value = _relative(arx / n, 1.0 / orig_sizes.size)
    k_used = int(kept.min()) if k is None and kept.size else k
    lefevre = ((n - s) / kept.size) / k_used if kept.size and k_used else None
    return MeasureResult(
        value=value,
        details={
            "arx": float(arx),
            "lefevre": lefevre,
            "k": k_used,
            "original": float(pair.n_orig / orig_sizes.size),
            "classes": int(kept.size),
            "suppressed": s,
            "n_records": n,
            "convention": "ARX: N / (kept classes + 1 if any record is suppressed); value relative to the original (0) "
                          "and one class (1)",
        },
    )


@measure(
    "suppressed_records",
    family="generalisation",
    description="records whose quasi-identifiers are all suppressed (shown as * by ARX); per variable: values at the root",
    range=(0, None),
    better="lower",
    needs_pairing=False,
)
def suppressed_records(pair: EncodedPair) -> MeasureResult:
    """Number of suppressed records: every quasi-identifier suppressed (or generalised to the root).

    ``by_variable`` counts, per quasi-identifier, the records whose value is
    the root of its hierarchy (suppressed, missing or fully generalised); a
    value missing in both paired files is not counted.

    Returns
    -------
    MeasureResult
        ``value``: ``S``; ``details``: ``share`` (S/N), ``percent``,
        ``n_records``.

    References
    ----------
    Seed 003, section II.B (suppression as generalisation to the most
    general value).  ARX 3.9 (outliers, shown as ``*``).

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.generalisation import suppressed_records
    >>> orig = pd.DataFrame({"zip": ["7501", "7502", "7601"], "sex": ["m", "f", "f"]})
    >>> prot = pd.DataFrame({"zip": ["750*", "*", "*"], "sex": ["m", "f", "*"]})
    >>> spec = {"variables": {"zip": {"scale": "nominal", "role": "key", "hierarchy": {"mask": "right"}},
    ...                       "sex": {"scale": "nominal", "role": "key", "hierarchy": {"mask": "right"}}}}
    >>> r = suppressed_records(orig, prot, spec)
    >>> r.value, r.by_variable
    (1.0, {'zip': 2.0, 'sex': 1.0})
    """
    qi = _qi(pair)
    cl = classes(pair)
    n = pair.n_prot
    by_variable = {gc.name: float(np.count_nonzero(gc.is_root & ~_both(gc))) for gc in qi}
    s = cl.n_suppressed
    return MeasureResult(
        value=float(s),
        by_variable=by_variable,
        details={"share": s / n, "percent": 100.0 * s / n, "n_records": n},
    )


# ---------------------------------------------------------------------------
# level-based measures
# ---------------------------------------------------------------------------
@measure(
    "height",
    family="generalisation",
    description="generalisation height Σ levels of the variables (ARX's Height); minimal distortion in details",
    range=(0, None),
    better="lower",
    needs_pairing=False,
)
def height(pair: EncodedPair) -> MeasureResult:
    r"""Generalisation height: the sum of the levels the quasi-identifiers were generalised to.

    .. math::

        Height = \sum_a l_a

    with ``l_a`` the level of variable ``a``'s protected values that are not
    suppressed (ARX's Height of a full-domain transformation; a variable whose
    values are all suppressed has its full height).  For a local recoding
    (values at several levels) ``l_a`` is their mean level
    (``details["full_domain"]`` says which).

    ``details["minimal_distortion"]`` is Samarati's / Sweeney's minimal
    distortion, one unit per level per value, over every record, a
    suppressed value counting its hierarchy's height (seed 003's worked
    example); ``details["normalised"]`` is ``Σ l_a / Σ h_a``.

    References
    ----------
    Samarati, P. (2001). Protecting respondents' identities in microdata
    release. *IEEE TKDE* 13(6).  Sweeney, L. (2002). Achieving k-anonymity
    privacy protection using generalization and suppression. *IJUFKS* 10(5).
    Seed 003, section II.B.  ARX 3.9 (``MetricMDHeight``).

    Examples
    --------
    Seed 003's tree: F, G, H (50, 100 and 150 records) under C; D, E under B;
    A the root.  Generalising F, G and H to C costs 300 units, to A 600.

    >>> import pandas as pd, tempfile, os
    >>> from infoloss.measures.generalisation import height
    >>> folder = tempfile.mkdtemp()
    >>> with open(os.path.join(folder, "tree.csv"), "w") as f:
    ...     _ = f.write("D;B;A\nE;B;A\nF;C;A\nG;C;A\nH;C;A\n")
    >>> orig = pd.DataFrame({"v": ["F"] * 50 + ["G"] * 100 + ["H"] * 150})
    >>> spec = {"variables": {"v": {"scale": "nominal", "role": "key", "hierarchy": "tree.csv"}}}
    >>> from infoloss.spec import spec_from_dict
    >>> spec = spec_from_dict(spec, base_dir=folder)
    >>> [height(orig, pd.DataFrame({"v": [g] * 300}), spec).details["minimal_distortion"] for g in ("C", "A")]
    [300.0, 600.0]
    """
    qi = _qi(pair)
    by_variable, full, heights = {}, {}, {}
    distortion = 0.0
    for gc in qi:
        h = gc.hierarchy.height
        heights[gc.name] = h
        levels = gc.prot_level
        distortion += float(levels.sum(dtype=np.int64))
        if gc.level is not None:
            by_variable[gc.name] = float(gc.level)
            full[gc.name] = True
        else:
            kept = ~gc.is_root
            by_variable[gc.name] = float(levels[kept].mean()) if kept.any() else float(h)
            full[gc.name] = False
    total = sum(by_variable.values())
    max_total = sum(heights.values())
    return MeasureResult(
        value=total,
        by_variable=by_variable,
        details={
            "minimal_distortion": distortion,
            "normalised": total / max_total if max_total else 0.0,
            "heights": heights,
            "full_domain": full,
        },
    )


@measure(
    "precision",
    family="generalisation",
    description="Sweeney's precision loss: mean level/height over records and variables (ARX's Precision); 1 − it in details",
    range=(0, 1),
    better="lower",
    needs_pairing=False,
)
def precision(pair: EncodedPair) -> MeasureResult:
    r"""Precision loss (Sweeney 2002), ARX's non-monotonic form.

    .. math::

        Prec_a = \frac{1}{N}\sum_r \frac{l_{r,a}}{h_a}, \qquad value = \frac1d \sum_a Prec_a

    with ``l_{r,a}`` the level of record ``r``'s value of ``a`` (a suppressed
    value has the height ``h_a``), i.e. ARX's ``((N − S) l_a/h_a + S)/N`` per
    attribute and its arithmetic mean over attributes.  Sweeney's precision
    ``Prec = 1 − value`` is ``details["sweeney"]``;
    ``details["monotonic"]`` is ARX's monotonic form (``l_a/h_a``, ignoring
    suppression) when every variable has one level.  A variable whose
    hierarchy has a single level (height 0) loses nothing.

    References
    ----------
    Sweeney, L. (2002). Achieving k-anonymity privacy protection using
    generalization and suppression. *IJUFKS* 10(5), 571–588.  ARX 3.9
    (``MetricMDNMPrecision``).

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.generalisation import precision
    >>> orig = pd.DataFrame({"zip": ["7501", "7502", "7601", "7602"]})
    >>> prot = pd.DataFrame({"zip": ["750*", "750*", "76**", "*"]})
    >>> spec = {"variables": {"zip": {"scale": "nominal", "role": "key", "hierarchy": {"mask": "right"}}}}
    >>> precision(orig, prot, spec).value    # (1/4 + 1/4 + 2/4 + 4/4) / 4
    0.5
    """
    qi = _qi(pair)
    by_variable, monotonic = {}, {}
    for gc in qi:
        h = gc.hierarchy.height
        by_variable[gc.name] = float(gc.prot_level.mean(dtype=np.float64)) / h if h else 0.0
        if gc.level is not None:
            monotonic[gc.name] = gc.level / h if h else 0.0
    value = float(np.mean(list(by_variable.values())))
    details: dict[str, Any] = {"sweeney": 1.0 - value, "aggregate": "arithmetic mean over variables (ARX)"}
    if len(monotonic) == len(qi):
        details["monotonic"] = float(np.mean(list(monotonic.values())))
    return MeasureResult(value=value, by_variable=by_variable, details=details)


# ---------------------------------------------------------------------------
# value-based measures
# ---------------------------------------------------------------------------
@measure(
    "loss_metric",
    family="generalisation",
    description="Iyengar's loss metric: mean share of the domain each value was generalised to; ARX's Loss in details",
    range=(0, 1),
    better="lower",
    needs_pairing=False,
    headline=True,
)
def loss_metric(pair: EncodedPair) -> MeasureResult:
    r"""Iyengar's (2002) loss metric LM, per variable and averaged.

    Per record and variable, the share of the domain the value was made
    indistinguishable from:

    .. math::

        LM(v) = \frac{L(v) - 1}{|D_a| - 1}\ \text{(categorical)}, \qquad
        LM(v) = \frac{U_v - L_v}{U - L}\ \text{(numeric interval)}

    0 for a leaf, 1 for a suppressed value.  ``by_variable`` holds ``LM_a``,
    the mean over records; ``value`` their arithmetic mean (the literature's
    aggregate).  The numeric form applies to continuous variables with an
    ``intervals`` hierarchy (interval bounds, domain = the outer breaks); a
    hierarchy file uses leaf counts, as ARX does.

    ARX's Loss (default gs-factor 0.5) is ``details["arx"]`` per attribute
    (``(Σ share − N/|D|)/(N − N/|D|)``, ``share = L(v)/|D|``, 1 for a
    suppressed record, clipped at 0 — the same numbers for a hierarchy file;
    for an interval hierarchy ARX's domain share of the interval),
    ``details["arx_geometric"]`` its default aggregate
    ``Π(1 + LM_a)^{1/d} − 1`` and ``details["arx_arithmetic"]`` the mean.

    References
    ----------
    Iyengar, V. S. (2002). Transforming data to satisfy privacy constraints.
    *KDD 2002*, 279–288.  Seed 003, section II.B.  ARX 3.9 (``MetricMDNMLoss``).

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.generalisation import loss_metric
    >>> orig = pd.DataFrame({"zip": ["7501", "7502", "7601", "7602"]})
    >>> prot = pd.DataFrame({"zip": ["750*", "750*", "7601", "*"]})
    >>> spec = {"variables": {"zip": {"scale": "nominal", "role": "key", "hierarchy": {"mask": "right"}}}}
    >>> round(loss_metric(orig, prot, spec).value, 4)    # (1/3 + 1/3 + 0 + 1) / 4
    0.4167
    """
    qi = _qi(pair)
    by_variable, arx, forms = {}, {}, {}
    for gc in qi:
        lm, form = _lm(pair, gc)
        by_variable[gc.name] = float(lm.mean())
        forms[gc.name] = form
        arx[gc.name] = _arx_lm(pair, gc)
    values = list(arx.values())
    return MeasureResult(
        value=float(np.mean(list(by_variable.values()))),
        by_variable=by_variable,
        details={
            "arx": arx,
            "arx_geometric": float(np.prod([1.0 + v for v in values]) ** (1.0 / len(values)) - 1.0),
            "arx_arithmetic": float(np.mean(values)),
            "form": forms,
            "aggregate": "arithmetic mean over variables",
        },
    )


def _iloss_one(pair: EncodedPair, gc: GeneralisedColumn) -> np.ndarray:
    h = gc.hierarchy
    if _numeric(pair, gc):
        low, high = h.domain
        return _width(gc, low, high) / (high - low) if high > low else np.zeros(gc.prot_node.shape[0])
    return (gc.leaf_count - 1.0) / h.n_leaves


@measure(
    "iloss",
    family="generalisation",
    description="Xiao & Tao's ILoss: (|v| − 1)/|D| or interval width / domain width, weighted over variables, mean per record",
    range=(0, None),
    better="lower",
    needs_pairing=False,
    options=(WEIGHTS,),
)
def iloss(pair: EncodedPair, *, weights: dict | None = None) -> MeasureResult:
    r"""ILoss (Xiao & Tao 2006): the information lost by generalising each value, weighted by variable.

    .. math::

        ILoss(v) = \frac{|v| - 1}{|D_a|}\ \text{(categorical)}, \qquad
        ILoss(v) = \frac{u - l}{\max D_a - \min D_a}\ \text{(numeric } [l, u]),

        ILoss(r) = \sum_a w_a\, ILoss(v_{r,a}), \qquad value = \frac1N \sum_r ILoss(r)

    ``|v|`` is the number of leaves under ``v``; a suppressed categorical
    value loses ``(|D_a| − 1)/|D_a|``, a suppressed numeric value 1.  The
    numeric form applies to continuous variables with numeric leaves; the
    domain is the hierarchy's (its leaves' range, or an interval hierarchy's
    outer breaks).  ``value`` is the mean over records (seed 003);
    ``details["total"]`` Xiao & Tao's sum over the table; ``by_variable`` the
    unweighted mean ILoss of each variable.

    Parameters
    ----------
    weights : dict, optional
        ``{variable: w_a}``; unlisted quasi-identifiers weigh 1.

    References
    ----------
    Xiao, X. & Tao, Y. (2006). Personalized privacy preservation.
    *SIGMOD 2006*, 229–240.  Seed 003, section II.B.

    Examples
    --------
    Seed 003's numeric example: 5 generalised to "3-7" in the domain [1, 10]
    loses 4/9.

    >>> import os, tempfile
    >>> import pandas as pd
    >>> from infoloss.measures.generalisation import iloss
    >>> from infoloss.spec import spec_from_dict
    >>> folder = tempfile.mkdtemp()
    >>> rows = [f"{v};{'1-2' if v < 3 else '3-7' if v < 8 else '8-10'};*" for v in range(1, 11)]
    >>> with open(os.path.join(folder, "x.csv"), "w") as f:
    ...     _ = f.write("\n".join(rows))
    >>> spec = spec_from_dict({"variables": {"x": {"scale": "continuous", "role": "key", "hierarchy": "x.csv"}}},
    ...                       base_dir=folder)
    >>> r = iloss(pd.DataFrame({"x": [1, 5, 10]}), pd.DataFrame({"x": ["1", "3-7", "10"]}), spec)
    >>> round(r.details["total"], 4), round(4 / 9, 4)
    (0.4444, 0.4444)
    """
    qi = _qi(pair)
    w = _weights(qi, weights)
    n = pair.n_prot
    total = np.zeros(n)
    by_variable = {}
    for gc in qi:
        loss = _iloss_one(pair, gc)
        by_variable[gc.name] = float(loss.mean())
        if w[gc.name]:
            total += w[gc.name] * loss
    return MeasureResult(
        value=float(total.mean()),
        by_variable=by_variable,
        details={"total": float(total.sum()), "weights": w, "n_records": n},
    )


def _ncp_one(pair: EncodedPair, gc: GeneralisedColumn) -> np.ndarray:
    h = gc.hierarchy
    if _numeric(pair, gc):
        low, high = _table_range(gc)
        return _width(gc, low, high) / (high - low) if high > low else np.zeros(gc.prot_node.shape[0])
    count = gc.leaf_count
    return np.where(count > 1, count / h.n_leaves, 0.0)


def _ncp_table(pair: EncodedPair) -> dict[str, np.ndarray]:
    return pair.cached(("generalisation", "ncp"), lambda: {gc.name: _ncp_one(pair, gc) for gc in _qi(pair)})


@measure(
    "ncp",
    family="generalisation",
    description="normalised certainty penalty (Xu et al.; Ghinita et al.): weighted sum over variables, mean per record",
    range=(0, None),
    better="lower",
    needs_pairing=False,
    options=(WEIGHTS,),
)
def ncp(pair: EncodedPair, *, weights: dict | None = None) -> MeasureResult:
    r"""Normalised certainty penalty (Xu et al. 2006; Ghinita et al. 2007).

    .. math::

        NCP_a(r) = \frac{z - y}{\max_T a - \min_T a}\ \text{(numeric, value in } [y, z]),\qquad
        NCP_a(r) = \begin{cases}0 & card(u) = 1\\ \frac{card(u)}{|a|} & \text{otherwise}\end{cases}
        \ \text{(categorical node } u)

        NCP(r) = \sum_a w_a NCP_a(r), \qquad value = \frac1N \sum_r NCP(r)

    ``card(u)`` is the number of leaves under ``u`` and ``|a|`` the hierarchy's
    leaves; ``min_T``, ``max_T`` the smallest and largest original value; a
    numeric value's span (its interval, or its leaves' range) is clipped to
    ``[min_T, max_T]``.  A suppressed value has NCP 1.  ``details["total"]`` is
    Xu et al.'s table sum ``Σ_r NCP(r)``; ``by_variable`` the mean
    ``NCP_a``.  :func:`gcp` is the normalised, unweighted form.

    Parameters
    ----------
    weights : dict, optional
        ``{variable: w_a}``; unlisted quasi-identifiers weigh 1.

    References
    ----------
    Xu, J., Wang, W., Pei, J., Wang, X., Shi, B. & Fu, A. W.-C. (2006).
    Utility-based anonymization using local recoding. *KDD 2006*.
    Ghinita, G., Karras, P., Kalnis, P. & Mamoulis, N. (2007). Fast data
    anonymization with low information loss. *VLDB 2007*.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.generalisation import ncp
    >>> orig = pd.DataFrame({"zip": ["7501", "7502", "7601", "7602"]})
    >>> prot = pd.DataFrame({"zip": ["750*", "750*", "7601", "*"]})
    >>> spec = {"variables": {"zip": {"scale": "nominal", "role": "key", "hierarchy": {"mask": "right"}}}}
    >>> ncp(orig, prot, spec).value    # (2/4 + 2/4 + 0 + 1) / 4
    0.5
    """
    qi = _qi(pair)
    w = _weights(qi, weights)
    per = _ncp_table(pair)
    total = np.zeros(pair.n_prot)
    for name, values in per.items():
        if w[name]:
            total += w[name] * values
    return MeasureResult(
        value=float(total.mean()),
        by_variable={name: float(v.mean()) for name, v in per.items()},
        details={"total": float(total.sum()), "weights": w, "n_records": pair.n_prot},
    )


@measure(
    "gcp",
    family="generalisation",
    description="global certainty penalty (Ghinita et al.): mean NCP over records and variables, in [0, 1]",
    range=(0, 1),
    better="lower",
    needs_pairing=False,
)
def gcp(pair: EncodedPair) -> MeasureResult:
    r"""Global certainty penalty (Ghinita et al. 2007).

    .. math::

        GCP = \frac{\sum_{G} |G| \cdot NCP(G)}{d \cdot N}, \qquad NCP(G) = \sum_{a=1}^{d} NCP_a(G)

    over the equivalence classes ``G`` (every record of a class has the same
    generalised values, so this is the mean of :func:`ncp`'s ``NCP_a`` over
    records and variables).  0 for the identity, 1 when everything is
    suppressed.  ``by_variable``: mean ``NCP_a``.

    References
    ----------
    Ghinita, G., Karras, P., Kalnis, P. & Mamoulis, N. (2007). Fast data
    anonymization with low information loss. *VLDB 2007*, 758–769.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.generalisation import gcp
    >>> orig = pd.DataFrame({"zip": ["7501", "7502"], "age": [30.0, 40.0]})
    >>> prot = pd.DataFrame({"zip": ["750*", "7502"], "age": ["[30, 40)", "40"]})
    >>> spec = {"variables": {"zip": {"scale": "nominal", "role": "key", "hierarchy": {"mask": "right"}},
    ...                       "age": {"scale": "continuous", "role": "key", "hierarchy": {"intervals": [0, 30, 40, 50]}}}}
    >>> gcp(orig, prot, spec).value    # zip: (2/2 + 0)/2; age: [30, 40] over 30..40 = 1, then 0: mean of 1/2 and 1/2
    0.5
    """
    per = _ncp_table(pair)
    by_variable = {name: float(v.mean()) for name, v in per.items()}
    return MeasureResult(value=float(np.mean(list(by_variable.values()))), by_variable=by_variable,
                         details={"n_records": pair.n_prot})


@measure(
    "ambiguity",
    family="generalisation",
    description="ambiguity: mean number of original tuples each record could stand for, Π L(v); ARX's sum in details",
    range=(1, None),
    better="lower",
    needs_pairing=False,
)
def ambiguity(pair: EncodedPair) -> MeasureResult:
    r"""Ambiguity (Goldberger & Tassa 2010; ARX's AmbiguityMetric), per record.

    .. math::

        value = \frac1N \sum_r \prod_a L(v_{r,a})

    the number of combinations of leaves a record's generalised
    quasi-identifiers stand for (1 for an unchanged record); a suppressed
    value counts every leaf ``|D_a|``.  ``details["arx"]`` is ARX's sum over
    records; ``by_variable`` the mean ``L(v)`` of each variable.

    References
    ----------
    Goldberger, J. & Tassa, T. (2010). Efficient anonymizations with enhanced
    utility. *Transactions on Data Privacy* 3(2), 149–175.  ARX 3.9
    (``MetricSDNMAmbiguity``).

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.generalisation import ambiguity
    >>> orig = pd.DataFrame({"zip": ["7501", "7502", "7601", "7602"]})
    >>> prot = pd.DataFrame({"zip": ["750*", "750*", "7601", "*"]})
    >>> spec = {"variables": {"zip": {"scale": "nominal", "role": "key", "hierarchy": {"mask": "right"}}}}
    >>> ambiguity(orig, prot, spec).value    # (2 + 2 + 1 + 4) / 4
    2.25
    """
    qi = _qi(pair)
    product = np.ones(pair.n_prot)
    by_variable = {}
    for gc in qi:
        product *= gc.leaf_count
        by_variable[gc.name] = float(gc.leaf_count.mean())
    return MeasureResult(
        value=float(product.mean()),
        by_variable=by_variable,
        details={"arx": float(product.sum()), "n_records": pair.n_prot},
    )
