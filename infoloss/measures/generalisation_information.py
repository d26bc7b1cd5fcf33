"""Information-theoretic losses of generalised files: non-uniform entropy, KL divergence, IGPL.

Part of the ``generalisation`` family (see :mod:`infoloss.measures.generalisation`
for the notation, the quasi-identifiers and the equivalence classes).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy.special import xlogy

from ..errors import NotComputed, counted
from ..generalised import GeneralisedColumn, classes, first_rows, group_ids, original_classes, quasi_identifiers
from ..pair import PROTECTED, EncodedPair
from ..registry import MeasureResult, measure

__all__ = ["nonuniform_entropy", "kl_divergence_generalised", "igpl"]

_LN2 = np.log(2.0)
#: KL divergence matches every distinct original tuple against the classes of each combination of levels;
#: beyond this many tuple × combination pairs it is not computed (minutes of work)
MAX_WORK = 200_000_000


def _xlog2x(x: np.ndarray) -> np.ndarray:
    return xlogy(x, x) / _LN2


# ---------------------------------------------------------------------------
# non-uniform entropy
# ---------------------------------------------------------------------------
def _records_under(gc: GeneralisedColumn) -> tuple[np.ndarray, np.ndarray]:
    """Original records per leaf (``c_x``) and per node (``b_g``: records whose leaf lies under ``g``)."""
    h = gc.hierarchy
    leaf = gc.orig_leaf
    c = np.bincount(leaf[leaf >= 0], minlength=h.n_leaves).astype(float)
    b = np.zeros(h.n_nodes)
    for k in range(h.height + 1):
        b += np.bincount(h.table[:, k], weights=c, minlength=h.n_nodes)
    return c, b


def _entropy_one(gc: GeneralisedColumn, suppressed: np.ndarray) -> tuple[float, float]:
    h = gc.hierarchy
    c, b = _records_under(gc)
    node = gc.prot_node
    before = gc.transformation_node()
    if before is not None and suppressed.any():  # ARX: a suppressed record keeps its value before suppression
        node = np.where(suppressed, before, node)
    leaf = gc.orig_leaf
    valid = leaf >= 0
    inside = h.under(leaf, node)
    bad = valid & ~inside
    if bad.any():
        raise NotComputed(
            f"{counted(int(bad.sum()), 'protected value')} of {gc.name!r} {'does' if bad.sum() == 1 else 'do'} not "
            "contain their original value, so "
            "P(original | generalised) is 0 and the non-uniform entropy is infinite"
        )
    x, g = leaf[valid], node[valid]
    # summed per record (and per suppressed node) as terms of at least 0: a difference of two sums rounded an
    # entropy of 0 to -1.8e-15
    monotonic = float((np.log2(b[g]) - np.log2(c[x])).sum())
    s = int(np.count_nonzero(suppressed))
    penalty = 0.0
    if s:
        counts = np.bincount(node[suppressed], minlength=h.n_nodes).astype(float)
        counts = counts[counts > 0]
        penalty = float((counts * (np.log2(s) - np.log2(counts))).sum())
    return monotonic + penalty, monotonic


@measure(
    "nonuniform_entropy",
    family="generalisation",
    description="non-uniform entropy: bits lost, Σ −log2 P(original | generalised) over records and variables (ARX)",
    range=(0, None),
    better="lower",
    needs_pairing=True,
)
def nonuniform_entropy(pair: EncodedPair) -> MeasureResult:
    r"""Non-uniform entropy (Gionis & Tassa 2009), ARX's non-monotonic form.

    For variable ``a`` and record ``r`` with original value ``x`` generalised
    to ``g``:

    .. math::

        NU_a = -\sum_r \log_2 P(x_r \mid g_r), \qquad
        P(x \mid g) = \frac{\#\{\text{original records with value } x\}}
                           {\#\{\text{original records whose value lies under } g\}}

    plus, for the ``S`` suppressed records, the entropy of the values they
    had before suppression, ``−Σ_g s_g \log_2(s_g/S)`` (ARX's non-monotonic
    variant; a suppressed record keeps its value at the variable's level in
    the first sum).  ``by_variable`` holds ``NU_a`` in bits and ``value``
    their sum (ARX's aggregate); ``details["monotonic"]`` leaves out the
    suppression term and ``details["bits_per_record"]`` is ``value / N``.

    A value missing in the original is left out; a protected value that does
    not contain its original makes the entropy infinite (not computed).

    References
    ----------
    Gionis, A. & Tassa, T. (2009). k-Anonymization with minimal loss of
    information. *IEEE TKDE* 21(2), 206–219.  ARX 3.9
    (``MetricMDNUNMEntropyPrecomputed``).

    Examples
    --------
    Four records ``7501, 7501, 7502, 7601``; the first three masked to
    ``750*``: each ``7501`` keeps probability 2/3 and ``7502`` 1/3.

    >>> import pandas as pd
    >>> from infoloss.measures.generalisation_information import nonuniform_entropy
    >>> orig = pd.DataFrame({"zip": ["7501", "7501", "7502", "7601"]})
    >>> prot = pd.DataFrame({"zip": ["750*", "750*", "750*", "7601"]})
    >>> spec = {"variables": {"zip": {"scale": "nominal", "role": "key", "hierarchy": {"mask": "right"}}}}
    >>> round(nonuniform_entropy(orig, prot, spec).value, 4)   # -2 log2(2/3) - log2(1/3)
    2.7549
    """
    qi = quasi_identifiers(pair)
    suppressed = classes(pair).suppressed
    by_variable, monotonic = {}, {}
    for gc in qi:
        by_variable[gc.name], monotonic[gc.name] = _entropy_one(gc, suppressed)
    value = float(sum(by_variable.values()))
    return MeasureResult(
        value=value,
        by_variable=by_variable,
        details={
            "monotonic": float(sum(monotonic.values())),
            "monotonic_by_variable": monotonic,
            "bits_per_record": value / pair.n_prot,
            "convention": "ARX non-monotonic non-uniform entropy, summed over variables",
        },
    )


# ---------------------------------------------------------------------------
# KL divergence
# ---------------------------------------------------------------------------
def _ancestor(gc: GeneralisedColumn, leaves: np.ndarray, level: int) -> np.ndarray:
    """Node of each leaf at ``level``; a missing leaf is the missing pseudo-node at level 0 and the root above."""
    h = gc.hierarchy
    out = h.table[np.maximum(leaves, 0), level]
    return np.where(leaves < 0, h.n_nodes if level == 0 else h.root, out)


def _class_levels_and_area(gc: GeneralisedColumn, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    h = gc.hierarchy
    pseudo = nodes == h.n_nodes
    safe = np.where(pseudo, 0, nodes)
    level = np.where(pseudo, 0, h.level[safe]).astype(np.int64)
    area = np.where(pseudo, 1.0, h.n_leaves_under[safe].astype(float))
    return level, area


def _protected_mass(pair: EncodedPair, leaves: list[np.ndarray]) -> np.ndarray:
    """``p_out`` of each original tuple: the protected classes covering it, each spread uniformly over its leaves."""
    qi = quasi_identifiers(pair)
    cl = classes(pair)
    nodes = [gc.class_node[cl.first] for gc in qi]
    levels, area = [], np.ones(cl.sizes.shape[0])
    for gc, nd in zip(qi, nodes):
        lv, ar = _class_levels_and_area(gc, nd)
        levels.append(lv)
        area *= ar
    mass = cl.sizes / pair.n_prot / area
    signature, n_sig = group_ids(levels, [gc.hierarchy.height + 1 for gc in qi])
    if n_sig * leaves[0].shape[0] > MAX_WORK:
        raise NotComputed(
            f"the protected classes combine {n_sig} different sets of hierarchy levels (a local recoding at the "
            f"record level), and matching {leaves[0].shape[0]} original key combinations against each would take "
            "too long"
        )
    order = np.argsort(signature, kind="stable")
    bounds = np.r_[0, np.cumsum(np.bincount(signature, minlength=n_sig))]
    radix = [gc.hierarchy.n_nodes + 1 for gc in qi]
    p_out = np.zeros(leaves[0].shape[0])
    for s in range(n_sig):
        members = order[bounds[s] : bounds[s + 1]]
        query = [_ancestor(gc, lf, int(lv[members[0]])) for gc, lf, lv in zip(qi, leaves, levels)]
        hit = _match_rows([nd[members] for nd in nodes], query, radix)
        found = hit >= 0
        p_out[found] += mass[members[hit[found]]]
    return p_out


def _match_rows(table: list[np.ndarray], query: list[np.ndarray], radix: list[int]) -> np.ndarray:
    """For every query row, the index of the equal (unique) table row, or -1."""
    if float(np.prod([float(r) for r in radix])) < 2.0**62:
        keys = [np.zeros(table[0].shape[0], dtype=np.int64), np.zeros(query[0].shape[0], dtype=np.int64)]
        for t, q, r in zip(table, query, radix):
            keys[0] = keys[0] * r + t
            keys[1] = keys[1] * r + q
        return pd.Index(keys[0]).get_indexer(keys[1])
    ids, n_ids = group_ids([np.concatenate([t, q]) for t, q in zip(table, query)], radix)
    lookup = np.full(n_ids, -1, dtype=np.int64)
    lookup[ids[: table[0].shape[0]]] = np.arange(table[0].shape[0])
    return lookup[ids[table[0].shape[0] :]]


@measure(
    "kl_divergence_generalised",
    family="generalisation",
    description="KL divergence (bits) of the original key distribution from the generalised one (classes spread uniformly)",
    range=(0, None),
    better="lower",
    needs_pairing=False,
)
def kl_divergence_generalised(pair: EncodedPair) -> MeasureResult:
    r"""Kullback–Leibler divergence of the original quasi-identifier distribution from the generalised one.

    Kifer & Gehrke's reconstruction: each equivalence class ``E`` spreads its
    records uniformly over the leaf combinations it covers, so that an
    original tuple ``t`` gets

    .. math::

        p_{out}(t) = \sum_{E \ni t} \frac{|E|/N}{\prod_a L(v_{E,a})},\qquad
        KL = \sum_{t} p_{in}(t) \log_2 \frac{p_{in}(t)}{p_{out}(t)}

    over the distinct original tuples ``t`` with frequency ``p_in(t)`` (the
    textbook form, ``value``).  The suppressed records form one class
    covering every tuple (``L = |D_a|``).  ``details["arx"]`` is ARX's
    KL-Divergence, which sums over *records* (a tuple seen ``c`` times counts
    ``c`` times) and takes ``p_out`` from the record's own class only
    (``(S/N)/Π|D_a|`` for a suppressed record); it needs record-paired files.

    Not computed when an original tuple is covered by no protected class
    (the divergence is infinite): the protected file is then not a
    generalisation of the original.

    References
    ----------
    Kifer, D. & Gehrke, J. (2006). Injecting utility into anonymized
    datasets. *SIGMOD 2006*, 217–228.  Machanavajjhala, A. et al. (2007).
    l-Diversity. *ACM TKDD* 1(1).  ARX 3.9 (``MetricSDNMKLDivergence``).

    Examples
    --------
    Two tuples of two records each, generalised into one class of four
    covering two leaves: ``p_out = 1/2`` each, no loss; then three records of
    ``7501`` and one ``7502``: ``0.75 log2(1.5) + 0.25 log2(0.5)``.

    >>> import pandas as pd
    >>> from infoloss.measures.generalisation_information import kl_divergence_generalised as kl
    >>> spec = {"variables": {"zip": {"scale": "nominal", "role": "key", "hierarchy": {"mask": "right"}}}}
    >>> kl(pd.DataFrame({"zip": ["7501", "7501", "7502", "7502"]}), pd.DataFrame({"zip": ["750*"] * 4}), spec).value
    0.0
    >>> round(kl(pd.DataFrame({"zip": ["7501", "7501", "7501", "7502"]}), pd.DataFrame({"zip": ["750*"] * 4}), spec).value, 4)
    0.1887
    """
    qi = quasi_identifiers(pair)
    oid, osizes = original_classes(pair)
    first = first_rows(oid, osizes.shape[0])
    leaves = [gc.orig_leaf[first] for gc in qi]
    p_in = osizes / pair.n_orig
    p_out = _protected_mass(pair, leaves)
    uncovered = p_out <= 0
    if uncovered.any():
        raise NotComputed(
            f"{int(uncovered.sum())} original key combinations are covered by no protected class, so the "
            "divergence is infinite (the protected file is not a generalisation of the original)"
        )
    value = float((p_in * (np.log2(p_in) - np.log2(p_out))).sum())
    details: dict[str, Any] = {
        "tuples": int(osizes.shape[0]),
        "classes": int(classes(pair).sizes.shape[0]),
        "convention": "textbook: sum over distinct original tuples; classes spread uniformly over their leaves",
    }
    if pair.paired:
        details["arx"] = _arx_kl(pair, oid, p_in)
    return MeasureResult(value=max(value, 0.0), details=details)


def _arx_kl(pair: EncodedPair, oid: np.ndarray, p_in: np.ndarray) -> float:
    """ARX's record sum: Σ_r p_in(t_r) log2(p_in(t_r) / p_out(class of r))."""
    qi = quasi_identifiers(pair)
    cl = classes(pair)
    area = np.ones(cl.sizes.shape[0])
    for gc in qi:
        area *= _class_levels_and_area(gc, gc.class_node[cl.first])[1]
    n = pair.n_prot
    out = (cl.sizes / n / area)[cl.ids]
    s = cl.n_suppressed
    if s:
        full = float(np.prod([float(gc.hierarchy.n_leaves) for gc in qi]))
        out = np.where(cl.suppressed, (s / n) / full, out)
    pin = p_in[oid]
    return float((pin * (np.log2(pin) - np.log2(out))).sum())


# ---------------------------------------------------------------------------
# IGPL
# ---------------------------------------------------------------------------
def _sensitive(pair: EncodedPair) -> tuple[list[tuple[str, np.ndarray, int]], list[str], str]:
    names = [n for n in pair.names() if pair.variable(n).role == "sensitive"]
    role = "sensitive"
    if not names:
        names = [n for n in pair.names() if pair.variable(n).role == "target"]
        role = "target"
    usable, skipped = [], []
    for name in names:
        if name not in pair.categorical:
            skipped.append(name)
            continue
        col = pair.categorical[name]
        codes = col.codes(PROTECTED)
        usable.append((name, np.where(codes < 0, col.n_categories, codes), col.n_categories + 1))
    if not usable:
        why = "no categorical variable has role sensitive or target" if not skipped else (
            f"the sensitive variables ({', '.join(skipped)}) are continuous")
        raise NotComputed(f"IGPL needs a categorical sensitive (or target) variable, but {why}")
    return usable, skipped, role


#: largest joint table of _conditional_entropy counted densely
_DENSE_CELLS = 10_000_000


def _conditional_entropy(groups: np.ndarray, n_groups: int, s: np.ndarray, n_s: int) -> float:
    """H(S | G) in bits from two code arrays.

    The joint counts are a dense table up to ``_DENSE_CELLS`` cells; above,
    only the observed cells are counted (empty cells add 0): a key of 20,000
    categories and a sensitive variable of 20,000 made a 444-million-cell
    table (7 GB).
    """
    cells = groups.astype(np.int64) * n_s + s
    if n_groups * n_s <= _DENSE_CELLS:
        joint = np.bincount(cells, minlength=n_groups * n_s).astype(float)
    else:
        joint = np.unique(cells, return_counts=True)[1].astype(float)
    margin = np.bincount(groups, minlength=n_groups).astype(float)
    return float((_xlog2x(margin).sum() - _xlog2x(joint).sum()) / groups.shape[0])


def _smallest_class(columns: list[np.ndarray], radix: list[int]) -> tuple[int, int]:
    ids, n = group_ids(columns, radix)
    sizes = np.bincount(ids, minlength=n)
    return int(sizes.min()), n


@measure(
    "igpl",
    family="generalisation",
    description="information gain per privacy lost (Fung et al.) of specialising each key variable one level; max over variables",
    range=(0, None),
    better="lower",
    needs_pairing=True,
)
def igpl(pair: EncodedPair) -> MeasureResult:
    r"""Information gain per privacy lost (IGPL) of specialising each quasi-identifier one level.

    Fung, Wang & Yu's top-down specialisation scores a specialisation by

    .. math::

        IGPL(a) = \frac{InfoGain(a)}{AnonyLoss(a) + 1}

    Here, for each quasi-identifier ``a``, every kept (not suppressed)
    record's value is specialised one level towards its original leaf.
    ``InfoGain(a) = H(S \mid a) − H(S \mid a')`` in bits, summed over the
    sensitive variables ``S`` (``role: sensitive``, else ``target``;
    categorical, from the protected file).  For a column at one level (a
    cut of the hierarchy, as in Fung et al.'s top-down specialisation) this
    is ``Σ_v |R_v|/N · InfoGain(v)`` over the values ``v`` of ``a`` in their
    notation.  In a column generalised to several levels (local recoding),
    the specialised records can join records already at that value: the
    gain is then that of the released column, which can be smaller than
    Fung's per-value sum (records of ``g1`` specialised to ``e1`` cannot be
    told from those already at ``e1``: only what the whole ``e1`` class says
    about ``S`` counts), and a specialisation whose merges lose more than
    its splits gain counts 0;
    ``AnonyLoss(a) = A − A'``, the drop of the anonymity ``A`` (the smallest
    equivalence class of the kept records), 0 when the anonymity does not
    drop: in a column generalised to several levels (local recoding) a
    specialised value can join records already at that value, and the
    smallest class then grows, a gain of anonymity, not a negative loss.  A
    variable already at its leaves scores 0.

    ``by_variable`` holds IGPL per variable — the variables worth relaxing
    score highest — and ``value`` the largest (0 when nothing is
    generalised).  ``details["table"]`` gives, per variable, the level, the
    information gain, the anonymity before and after, the number of classes
    after and IGPL.

    References
    ----------
    Fung, B. C. M., Wang, K. & Yu, P. S. (2005). Top-down specialization for
    information and privacy preservation. *ICDE 2005*, 205–216.  Seed 003,
    section III.

    Examples
    --------
    Masking one digit of ``zip`` hides which of two classes of the
    sensitive variable a record is in (1 bit) and halves the classes (4 → 2):
    IGPL = 1 / (2 + 1).

    >>> import pandas as pd
    >>> from infoloss.measures.generalisation_information import igpl
    >>> orig = pd.DataFrame({"zip": ["7501"] * 2 + ["7502"] * 2, "ill": ["y", "y", "n", "n"]})
    >>> prot = pd.DataFrame({"zip": ["750*"] * 4, "ill": ["y", "y", "n", "n"]})
    >>> spec = {"variables": {"zip": {"scale": "nominal", "role": "key", "hierarchy": {"mask": "right"}},
    ...                       "ill": {"scale": "nominal", "role": "sensitive"}}}
    >>> r = igpl(orig, prot, spec)
    >>> round(r.value, 4), r.details["table"]["zip"]["anonymity_after"]
    (0.3333, 2)
    """
    qi = quasi_identifiers(pair)
    cl = classes(pair)
    kept = ~cl.suppressed
    if not kept.any():
        raise NotComputed("every record is suppressed, so no value can be specialised")
    sensitive, skipped, role = _sensitive(pair)
    nodes = [gc.class_node[kept] for gc in qi]
    radix = [gc.hierarchy.n_nodes + 1 for gc in qi]
    k_before, n_before = _smallest_class(nodes, radix)
    table, by_variable = {}, {}
    for i, gc in enumerate(qi):
        h = gc.hierarchy
        node = nodes[i]
        leaf = gc.orig_leaf[kept]
        real = node < h.n_nodes
        level = np.where(real, h.level[np.where(real, node, 0)], 0)
        movable = real & (level > 0) & h.under(leaf, np.where(real, node, 0)) & (leaf >= 0)
        if not movable.any():
            by_variable[gc.name] = 0.0
            table[gc.name] = {"level": _level_text(gc), "info_gain": 0.0, "anonymity_before": k_before,
                              "anonymity_after": k_before, "anonymity_loss": 0, "classes_after": n_before,
                              "igpl": 0.0}
            continue
        child = node.copy()
        child[movable] = h.table[leaf[movable], level[movable] - 1]
        gain = 0.0
        for _, s, n_s in sensitive:
            gain += _conditional_entropy(node, h.n_nodes + 1, s[kept], n_s)
            gain -= _conditional_entropy(child, h.n_nodes + 1, s[kept], n_s)
        gain = max(gain, 0.0)
        k_after, n_after = _smallest_class(nodes[:i] + [child] + nodes[i + 1:], radix)
        loss = max(k_before - k_after, 0)  # merging into records already specialised can raise the anonymity
        score = gain / (loss + 1)
        by_variable[gc.name] = score
        table[gc.name] = {"level": _level_text(gc), "info_gain": gain, "anonymity_before": k_before,
                          "anonymity_after": k_after, "anonymity_loss": loss, "classes_after": n_after,
                          "igpl": score}
    best = max(by_variable, key=by_variable.get)
    details: dict[str, Any] = {
        "table": table,
        "best": best if by_variable[best] > 0 else None,
        "sensitive": [name for name, _, _ in sensitive],
        "sensitive_role": role,
        "classes_before": n_before,
    }
    if skipped:
        details["skipped_continuous"] = skipped
    return MeasureResult(value=float(by_variable[best]), by_variable=by_variable, details=details)


def _level_text(gc: GeneralisedColumn) -> Any:
    return gc.level if gc.level is not None else "mixed"
