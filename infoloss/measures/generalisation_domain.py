"""Value-based losses of generalised files: Iyengar's loss metric, ILoss, NCP / GCP, ambiguity.

Each compares every protected value with the domain of its variable: how
many leaves (or how wide an interval) it was made indistinguishable from.
Part of the ``generalisation`` family; notation and decisions in
:mod:`infoloss.measures.generalisation`.
"""

from __future__ import annotations

import numpy as np

from ..generalised import GeneralisedColumn
from ..pair import EncodedPair
from ..registry import MeasureResult, measure
from ._generalisation import WEIGHTS, arx_lm, lm_per_record, numeric, qi, relative_width, table_range, weights_for

__all__ = ["loss_metric", "iloss", "ncp", "gcp", "ambiguity"]


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
    the mean over records; ``value`` their arithmetic mean, in [0, 1] and
    comparable between specs with different numbers of variables;
    ``details["sum"]`` is their sum, Iyengar's aggregate as its
    definition states it ("the loss of each attribute is then summed").  The numeric form applies to continuous variables with an
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
    >>> from infoloss.measures.generalisation_domain import loss_metric
    >>> orig = pd.DataFrame({"zip": ["7501", "7502", "7601", "7602"]})
    >>> prot = pd.DataFrame({"zip": ["750*", "750*", "7601", "*"]})
    >>> spec = {"variables": {"zip": {"scale": "nominal", "role": "key", "hierarchy": {"mask": "right"}}}}
    >>> round(loss_metric(orig, prot, spec).value, 4)    # (1/3 + 1/3 + 0 + 1) / 4
    0.4167
    """
    cols = qi(pair)
    by_variable, arx, forms = {}, {}, {}
    for gc in cols:
        lm, form = lm_per_record(pair, gc)
        by_variable[gc.name] = float(lm.mean())
        forms[gc.name] = form
        arx[gc.name] = arx_lm(pair, gc)
    values = list(arx.values())
    return MeasureResult(
        value=float(np.mean(list(by_variable.values()))),
        by_variable=by_variable,
        details={
            "arx": arx,
            "arx_geometric": float(np.prod([1.0 + v for v in values]) ** (1.0 / len(values)) - 1.0),
            "arx_arithmetic": float(np.mean(values)),
            "form": forms,
            "sum": float(np.sum(list(by_variable.values()))),
            "aggregate": "arithmetic mean over variables (details.sum: their sum, Iyengar's aggregate)",
        },
    )


def _iloss_one(pair: EncodedPair, gc: GeneralisedColumn) -> np.ndarray:
    h = gc.hierarchy
    if numeric(pair, gc):
        low, high = h.domain
        return relative_width(gc, low, high)
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
    outer breaks).  ``value`` is the mean over records (Fletcher & Islam 2015);
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
    >>> from infoloss.measures.generalisation_domain import iloss
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
    cols = qi(pair)
    w = weights_for(cols, weights)
    n = pair.n_prot
    total = np.zeros(n)
    by_variable = {}
    for gc in cols:
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
    if numeric(pair, gc):
        low, high = table_range(gc)
        if not high > low:  # a constant original: every width is 0/0, but a suppressed value (the root) is still 1
            out = (gc.prot_node == h.root).astype(np.float64)
            if gc.both_missing is not None:
                out[gc.both_missing] = 0.0
            return out
        return relative_width(gc, low, high)
    count = gc.leaf_count
    return np.where(count > 1, count / h.n_leaves, 0.0)


def _ncp_table(pair: EncodedPair) -> dict[str, np.ndarray]:
    return pair.cached(("generalisation", "ncp"), lambda: {gc.name: _ncp_one(pair, gc) for gc in qi(pair)})


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
    ``[min_T, max_T]``.  A suppressed value has NCP 1, also when the
    original values are all equal (every other value then has 0).  ``details["total"]`` is
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
    >>> from infoloss.measures.generalisation_domain import ncp
    >>> orig = pd.DataFrame({"zip": ["7501", "7502", "7601", "7602"]})
    >>> prot = pd.DataFrame({"zip": ["750*", "750*", "7601", "*"]})
    >>> spec = {"variables": {"zip": {"scale": "nominal", "role": "key", "hierarchy": {"mask": "right"}}}}
    >>> ncp(orig, prot, spec).value    # (2/4 + 2/4 + 0 + 1) / 4
    0.5
    """
    cols = qi(pair)
    w = weights_for(cols, weights)
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
    >>> from infoloss.measures.generalisation_domain import gcp
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
    >>> from infoloss.measures.generalisation_domain import ambiguity
    >>> orig = pd.DataFrame({"zip": ["7501", "7502", "7601", "7602"]})
    >>> prot = pd.DataFrame({"zip": ["750*", "750*", "7601", "*"]})
    >>> spec = {"variables": {"zip": {"scale": "nominal", "role": "key", "hierarchy": {"mask": "right"}}}}
    >>> ambiguity(orig, prot, spec).value    # (2 + 2 + 1 + 4) / 4
    2.25
    """
    cols = qi(pair)
    product = np.ones(pair.n_prot)
    by_variable = {}
    for gc in cols:
        product *= gc.leaf_count
        by_variable[gc.name] = float(gc.leaf_count.mean())
    return MeasureResult(
        value=float(product.mean()),
        by_variable=by_variable,
        details={"arx": float(product.sum()), "n_records": pair.n_prot},
    )
