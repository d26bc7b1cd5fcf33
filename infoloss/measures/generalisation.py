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
conventions of ARX 3.9.2 (its metric classes, ``MetricMDNMPrecision`` and the others) are
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
* Records count once each: survey weights are not used (as in ARX and the
  k-anonymity literature, where a class's size is its number of records).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..generalised import Classes, GeneralisedColumn, classes, group_ids, original_classes
from ..pair import EncodedPair
from ..registry import MeasureResult, Option, measure
from ._generalisation import both, qi

__all__ = ["discernibility", "aecs", "suppressed_records", "height", "precision"]

LEFEVRE_K = Option("k", "int", None, "k of LeFevre's C_avg (auto: the smallest class of the protected file)", low=1,
                   nullable=True)


# ---------------------------------------------------------------------------
# class-based measures
# ---------------------------------------------------------------------------
def _size_counts(sizes: np.ndarray) -> list[list[int]]:
    """``[[class size, number of classes], ...]`` in increasing size."""
    values, counts = np.unique(sizes, return_counts=True)
    return [[int(v), int(c)] for v, c in zip(values, counts)]


def _relative(value: float, identity: float) -> float:
    """``(value − identity)/(1 − identity)`` clipped to [0, 1]; 0 when nothing can be lost."""
    if identity >= 1.0:
        return 0.0
    return float(min(max((value - identity) / (1.0 - identity), 0.0), 1.0))


def _dm_star(pair: EncodedPair, cols: list[GeneralisedColumn], cl: Classes) -> float | None:
    """ARX's monotonic DM*: Σ|E|² over the classes before suppression (needs pairing and one level per variable)."""
    nodes = []
    for gc in cols:
        t = gc.transformation_node()
        if t is None:
            return None
        nodes.append(np.where(cl.suppressed, t, gc.class_node))
    ids, n = group_ids(nodes, [gc.hierarchy.n_nodes + 1 for gc in cols])
    return float(np.square(np.bincount(ids, minlength=n).astype(float)).sum())


@measure(
    "discernibility",
    family="generalisation",
    description="discernibility metric Σ|E|² + N·S relative to the original's classes (0) and one class (1); ARX's DM in details",
    range=(0, 1),
    better="lower",
    needs_pairing=False,
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
    generalised to one level per variable.  Suppressing one more record of a
    class E changes DM by ``N - (2|E| - 1)``: it lowers DM when E holds more
    than half the records (hence "non-monotonic"); DM* never falls.

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
    cols = qi(pair)
    cl = classes(pair)
    n = pair.n_prot
    s = cl.n_suppressed
    kept = cl.kept_sizes.astype(float)
    dm = float(np.square(kept).sum()) + float(n) * s
    _, orig_sizes = original_classes(pair)
    dm0 = float(np.square(orig_sizes.astype(float)).sum())
    value = _relative(dm / n**2, dm0 / pair.n_orig**2)
    dm_star = _dm_star(pair, cols, cl) if pair.paired else None
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
            "quasi_identifiers": [gc.name for gc in cols],
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
    unit="count",
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
    cols = qi(pair)
    cl = classes(pair)
    n = pair.n_prot
    by_variable = {gc.name: float(np.count_nonzero(gc.is_root & ~both(gc))) for gc in cols}
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
    suppressed value counting its hierarchy's height (Fletcher & Islam's (2015) worked
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
    cols = qi(pair)
    by_variable, full, heights = {}, {}, {}
    distortion = 0.0
    for gc in cols:
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
    hierarchy has a single level (height 0) loses nothing.  ``h_a`` is the
    hierarchy's height as ARX counts it, its columns − 1: for a file whose
    last column holds several values (infoloss adds a root ``*`` above
    them) a value of that column is at level ``h_a`` and scores 1, as a
    suppressed value does.

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
    cols = qi(pair)
    by_variable, monotonic = {}, {}
    for gc in cols:
        h = gc.hierarchy.given_height  # the added root (suppression) is one above it: min(level, h) scores 1
        levels = np.minimum(gc.prot_level, h) if gc.hierarchy.added_root else gc.prot_level
        by_variable[gc.name] = float(levels.mean(dtype=np.float64)) / h if h else 0.0
        if gc.level is not None:
            monotonic[gc.name] = min(gc.level, h) / h if h else 0.0
    value = float(np.mean(list(by_variable.values())))
    details: dict[str, Any] = {"sweeney": 1.0 - value, "aggregate": "arithmetic mean over variables (ARX)"}
    if len(monotonic) == len(cols):
        details["monotonic"] = float(np.mean(list(monotonic.values())))
    return MeasureResult(value=value, by_variable=by_variable, details=details)
