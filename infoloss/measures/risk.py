"""Disclosure risk of the key variables: frequencies, individual and global risk, SUDA2, l-diversity.

Risk measures describe a file, not a loss: each value is the **protected
file's** risk, and ``details["original"]["value"]`` is the same measure for
the original file (computed once for all scenarios).  On identical files the
value is therefore the original's own risk, not the ideal 0 (see
:data:`FILE_RISK_MEASURES`).  Lower is better.

The key variables are the spec's ``role: key`` variables, the weight its
weight column, the household id its ``role: household`` column and the
sensitive variables its ``role: sensitive`` variables.  Conventions are
sdcMicro 5.8.1's (``freqCalc``, ``indivRisk``, ``measure_risk``, ``suda2``,
``ldiversity``); where infoloss departs from them the docstring says so.
The frequency measures follow the published missing-value wildcard by
default and sdcMicro's ``freqCalc`` rules for records whose keys are all
missing with ``missing_keys="sdcmicro"`` (see :func:`global_risk`).
Files without weights (e.g. synthetic files) get the unweighted risk ``1/fk``
(``details["weighted"]`` says which).

Ids: ``global_risk``, ``expected_reidentifications``,
``k_anonymity_violations``, ``sample_uniques``, ``household_risk``,
``suda_dis``, ``msu_share``, ``l_diversity``, ``t_closeness``.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from ..errors import NotComputed
from ..pair import ORIGINAL, PROTECTED, EncodedPair
from ..registry import MeasureResult, Option, measure
from ..risk.files import (
    FILE_NAMES,
    FileRisk,
    file_classes,
    file_l_diversity,
    file_risk,
    file_suda,
    file_t_closeness,
    key_names,
    sensitive_codes,
    sensitive_names,
)
from ..risk.freq import MISSING_KEYS as FREQ_MISSING_KEYS
from ..risk.suda import DIS_INTERVALS

__all__ = [
    "global_risk",
    "expected_reidentifications",
    "k_anonymity_violations",
    "sample_uniques",
    "household_risk",
    "suda_dis",
    "msu_share",
    "l_diversity",
    "t_closeness",
    "FILE_RISK_MEASURES",
]

#: Measures whose value describes the protected file on its own (its disclosure risk): on identical
#: files the value is the original's own risk, ``details["original"]["value"]``, not the ideal.
FILE_RISK_MEASURES: set[str] = set()

ALPHA = Option("alpha", "float", 1.0, "weight of a match with a record of another key pattern that has missing key "
               "values (sdcMicro's alpha)", low=0.0, high=1.0)
MISSING_KEYS = Option(
    "missing_keys", "choice", "wildcard",
    "records with missing key values: the published wildcard for every record, or sdcMicro's freqCalc, which does not "
    "count records with every key missing for records without missing values",
    choices=FREQ_MISSING_KEYS,
)
K_VALUES = (2, 3, 5)
#: ``details["convention"]`` of the frequency measures, by ``missing_keys``
CONVENTIONS = {
    "wildcard": ("a missing key value matches any value, for every record (the published wildcard); individual risk "
                 "as sdcMicro 5.8.1's indivRisk (approx)"),
    "sdcmicro": ("sdcMicro 5.8.1's freqCalc: a missing key value matches any value, but a record with every key "
                 "missing gets fk = n and, with two or more keys, is not counted in the fk of records without "
                 "missing values; individual risk as indivRisk (approx)"),
}


def _risk_measure(id: str, **kwargs: Any) -> Callable:
    FILE_RISK_MEASURES.add(id)
    return measure(id, family="risk", better="lower", needs_pairing=False, **kwargs)


def _original_figures(orig: FileRisk, figures: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The original file's figures for comparison, or why they are missing (the protected file's value stands)."""
    if orig.risk is None:
        return {"not_computed": orig.risk_reason}
    return figures()


def _frequency_details(pair: EncodedPair, alpha: float, missing_keys: str) -> dict[str, Any]:
    prot, orig = file_risk(pair, PROTECTED, alpha, missing_keys), file_risk(pair, ORIGINAL, alpha, missing_keys)
    return {
        "key_variables": key_names(pair),
        "weighted": {"protected": prot.weighted, "original": orig.weighted},
        "alpha": alpha,
        "missing_keys": missing_keys,
        "convention": CONVENTIONS[missing_keys],
        "n_records": {"protected": prot.n, "original": orig.n},
    }


# ---------------------------------------------------------------------------
# individual and global risk
# ---------------------------------------------------------------------------
@_risk_measure(
    "global_risk",
    description="global re-identification risk: expected re-identifications / records (sdcMicro's global risk)",
    range=(0.0, 1.0),
    options=(ALPHA, MISSING_KEYS),
)
def global_risk(pair: EncodedPair, *, alpha: float = 1.0, missing_keys: str = "wildcard") -> MeasureResult:
    """Global risk: the mean individual re-identification risk of the protected file.

    ``global risk = ER / n`` with ``ER = sum_i r_i`` the expected number of
    re-identifications and ``r_i`` the individual risk (Benedetti-Franconi
    approximation with weights, ``1/fk`` without), as sdcMicro's
    ``measure_risk``:

    * ``p = fk/Fk``; ``r = p/(1-p) log(1/p)`` if ``fk = 1``;
      ``r = p/(1-p) - (p/(1-p))^2 log(1/p)`` if ``fk = 2``;
      ``r = p/(fk - (1-p))`` if ``fk > 2``; ``r = 1/fk`` if ``fk = Fk``;
    * ``fk``/``Fk`` count (sum the weights of) the records that agree with the
      record on every key variable, a missing value matching any value.

    Parameters
    ----------
    alpha : float, default 1
        Weight of a match with a record of another key pattern that has
        missing key values (sdcMicro's ``alpha``); records with the same
        pattern count 1.
    missing_keys : {"wildcard", "sdcmicro"}, default "wildcard"
        ``"wildcard"``: record ``r`` counts for record ``i`` when, for every
        key, ``r_v = i_v`` or either is missing (the published definition
        of fk with missing values), for every record.  ``"sdcmicro"``:
        sdcMicro's ``freqCalc``, which with two or more keys does not count
        records whose keys are all missing in the ``fk`` of records without
        missing values, and gives such records ``fk = n`` (the wildcard gives
        them ``n`` too when ``alpha = 1``).  The other frequency measures
        take the same two options.

    Returns
    -------
    MeasureResult
        ``value`` = the protected file's global risk; ``details``:
        ``expected_reidentifications`` and ``percent`` of both files,
        ``original`` (the original's values), the key variables, whether
        each file was weighted, ``alpha``, ``missing_keys`` and
        ``convention`` (the rule used, in words).

    References
    ----------
    Franconi, L. and Polettini, S. (2004). Individual risk estimation in
    mu-Argus: a review. PSD 2004, LNCS 3050, 262-272.  Templ, M., Kowarik, A.
    and Meindl, B. (2015). Statistical disclosure control for micro-data
    using the R package sdcMicro. J. Stat. Softw. 67(4).

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.risk import global_risk
    >>> orig = pd.DataFrame({"a": [1, 1, 2, 2, 3], "b": [1, 1, 1, 1, 2]})
    >>> prot = pd.DataFrame({"a": [1, 1, 2, 2, 2], "b": [1, 1, 1, 1, None]})
    >>> spec = {"variables": {"a": {"scale": "nominal", "role": "key"}, "b": {"scale": "nominal", "role": "key"}}}
    >>> r = global_risk(orig, prot, spec)
    >>> r.value, r.details["original"]["value"]  # 1/fk: (1/2 + 1/2 + 1/3 + 1/3 + 1/3) / 5 and 3/5
    (0.4, 0.6)
    """
    prot, orig = file_risk(pair, PROTECTED, alpha, missing_keys), file_risk(pair, ORIGINAL, alpha, missing_keys)
    details = _frequency_details(pair, alpha, missing_keys)
    details.update({
        "expected_reidentifications": prot.expected_reidentifications,
        "percent": 100.0 * prot.global_risk,
        "original": _original_figures(orig, lambda: {
            "value": orig.global_risk, "expected_reidentifications": orig.expected_reidentifications,
            "percent": 100.0 * orig.global_risk}),
    })
    return MeasureResult(value=prot.global_risk, details=details)


@_risk_measure(
    "expected_reidentifications",
    description="expected number of re-identifications: the sum of the individual risks (sdcMicro's global_risk_ER)",
    range=(0.0, None),
    options=(ALPHA, MISSING_KEYS),
)
def expected_reidentifications(pair: EncodedPair, *, alpha: float = 1.0,
                               missing_keys: str = "wildcard") -> MeasureResult:
    """Expected number of re-identifications ``ER = sum_i r_i`` in the protected file.

    The individual risks ``r_i`` are those of :func:`global_risk` (with its
    options ``alpha`` and ``missing_keys``).

    References
    ----------
    Templ, M., Kowarik, A. and Meindl, B. (2015). J. Stat. Softw. 67(4), section 3.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.risk import expected_reidentifications
    >>> orig = pd.DataFrame({"a": [1, 1, 2, 3]})
    >>> spec = {"variables": {"a": {"scale": "nominal", "role": "key"}}}
    >>> expected_reidentifications(orig, orig, spec).value  # 1/2 + 1/2 + 1 + 1
    3.0
    """
    prot, orig = file_risk(pair, PROTECTED, alpha, missing_keys), file_risk(pair, ORIGINAL, alpha, missing_keys)
    details = _frequency_details(pair, alpha, missing_keys)
    details["global_risk"] = prot.global_risk
    details["original"] = _original_figures(orig, lambda: {"value": orig.expected_reidentifications,
                                                           "global_risk": orig.global_risk})
    return MeasureResult(value=prot.expected_reidentifications, details=details)


# ---------------------------------------------------------------------------
# k-anonymity and sample uniques
# ---------------------------------------------------------------------------
def _violations(risk: FileRisk, k: int) -> dict[str, float]:
    return {"unweighted": int(np.count_nonzero(risk.fk < k)), "weighted": int(np.count_nonzero(risk.Fk < k)),
            "share": float(np.mean(risk.fk < k))}


@_risk_measure(
    "k_anonymity_violations",
    unit="count",
    description="records violating k-anonymity: fk < k, k = 3 by default (details: k = 2, 3, 5, unweighted and "
                "weighted Fk < k)",
    range=(0.0, None),
    options=(Option("k", "int", 3, "the k of k-anonymity", low=2), ALPHA, MISSING_KEYS),
)
def k_anonymity_violations(pair: EncodedPair, *, k: int = 3, alpha: float = 1.0,
                           missing_keys: str = "wildcard") -> MeasureResult:
    """Number of records of the protected file that violate k-anonymity (``fk < k``).

    ``fk`` counts the records sharing the record's key values, a missing value
    matching any value (sdcMicro's ``freqCalc``; its print shows the counts
    for k = 2 and 3).  The weighted count uses the population frequency
    ``Fk < k`` instead.  ``alpha`` and ``missing_keys`` are the options of
    :func:`global_risk`.

    Returns
    -------
    MeasureResult
        ``value`` = #(fk < k) in the protected file; ``details.by_k``: for
        k = 2, 3, 5 (and the chosen k) the unweighted and weighted counts and
        the share, for both files (``details.original.by_k``).

    References
    ----------
    Sweeney, L. (2002). k-anonymity: a model for protecting privacy. Int. J.
    Uncertainty, Fuzziness and Knowledge-Based Systems 10(5), 557-570.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.risk import k_anonymity_violations
    >>> orig = pd.DataFrame({"a": [1, 1, 1, 2, 2, 3]})
    >>> spec = {"variables": {"a": {"scale": "nominal", "role": "key"}}}
    >>> r = k_anonymity_violations(orig, orig, spec)
    >>> r.value, r.details["by_k"]["2"]["unweighted"]
    (3.0, 1)
    """
    ks = sorted(set(K_VALUES) | {k})
    prot, orig = file_risk(pair, PROTECTED, alpha, missing_keys), file_risk(pair, ORIGINAL, alpha, missing_keys)
    details = _frequency_details(pair, alpha, missing_keys)
    details["k"] = k
    details["by_k"] = {str(j): _violations(prot, j) for j in ks}
    details["original"] = {"value": float(np.count_nonzero(orig.fk < k)),
                           "by_k": {str(j): _violations(orig, j) for j in ks}}
    return MeasureResult(value=float(np.count_nonzero(prot.fk < k)), details=details)


@_risk_measure(
    "sample_uniques",
    description="share of records unique in the file on the key variables (fk = 1, missing values matching any value)",
    range=(0.0, 1.0),
    options=(ALPHA, MISSING_KEYS),
)
def sample_uniques(pair: EncodedPair, *, alpha: float = 1.0, missing_keys: str = "wildcard") -> MeasureResult:
    """Share of sample uniques: records whose key values no other record shares (``fk = 1``).

    ``fk`` is that of :func:`global_risk`, with its options ``alpha`` and
    ``missing_keys``.

    References
    ----------
    Hundepool, A. et al. (2012). *Statistical Disclosure Control*. Wiley, chapter 3 (microdata: disclosure risk).
    Templ, M., Kowarik, A. & Meindl, B. (2015). Statistical disclosure control for micro-data using the R package sdcMicro. *Journal of Statistical Software* 67(4), 1–36.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.risk import sample_uniques
    >>> orig = pd.DataFrame({"a": [1, 1, 2, 3]})
    >>> spec = {"variables": {"a": {"scale": "nominal", "role": "key"}}}
    >>> sample_uniques(orig, orig, spec).value
    0.5
    """
    prot, orig = file_risk(pair, PROTECTED, alpha, missing_keys), file_risk(pair, ORIGINAL, alpha, missing_keys)
    details = _frequency_details(pair, alpha, missing_keys)
    details["count"] = int(np.count_nonzero(prot.fk == 1))
    details["original"] = {"value": float(np.mean(orig.fk == 1)), "count": int(np.count_nonzero(orig.fk == 1))}
    return MeasureResult(value=float(np.mean(prot.fk == 1)), details=details)


@_risk_measure(
    "household_risk",
    description="household (hierarchical) risk: mean over persons of 1 − Π(1 − individual risk) within the household",
    range=(0.0, 1.0),
    options=(ALPHA, MISSING_KEYS),
)
def household_risk(pair: EncodedPair, *, alpha: float = 1.0, missing_keys: str = "wildcard") -> MeasureResult:
    """Household risk: the risk that at least one member of a record's household is re-identified.

    Each record gets ``1 - prod_{j in household} (1 - r_j)`` (``r`` the
    individual risks of :func:`global_risk`, with its options ``alpha`` and
    ``missing_keys``); the value is their mean over the records, sdcMicro's
    ``hier_risk`` (``hier_risk_ER`` their sum, in details).  Needs a
    ``role: household`` column.  Variables marked
    ``level: household`` in the spec must be equal within every household of
    the original; otherwise the household id is not used and the measure is
    not computed, with the reason.

    References
    ----------
    Hundepool, A. et al. (2012). *Statistical Disclosure Control*. Wiley, chapter 3 (microdata: disclosure risk).
    Templ, M., Kowarik, A. & Meindl, B. (2015). Statistical disclosure control for micro-data using the R package sdcMicro. *Journal of Statistical Software* 67(4), 1–36.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.risk import household_risk
    >>> orig = pd.DataFrame({"a": [1, 1, 2, 3], "hh": [1, 1, 2, 2]})
    >>> spec = {"variables": {"a": {"scale": "nominal", "role": "key"}, "hh": {"role": "household"}}}
    >>> household_risk(orig, orig, spec).value  # households: 1-(1/2)^2 = 3/4 twice, 1 twice
    0.875
    """
    prot, orig = file_risk(pair, PROTECTED, alpha, missing_keys), file_risk(pair, ORIGINAL, alpha, missing_keys)
    for risk in (prot, orig):
        if risk.household is None and risk.risk is not None:  # the household ids do not fit the data
            raise NotComputed(risk.household_reason or "no household id")
    if prot.household is None:
        raise NotComputed(prot.household_reason)
    details = _frequency_details(pair, alpha, missing_keys)
    details["household_id"] = pair.spec.names_with_role("household")[0]
    details["expected_reidentifications"] = float(prot.household.sum())
    details["original"] = _original_figures(orig, lambda: {"value": float(orig.household.mean()),
                                                           "expected_reidentifications": float(orig.household.sum())})
    return MeasureResult(value=float(prot.household.mean()), details=details)


# ---------------------------------------------------------------------------
# SUDA2
# ---------------------------------------------------------------------------
SUDA_OPTIONS = (
    Option("dis_fraction", "float", 0.01, "sampling fraction of the DIS score (sdcMicro's DisFraction)",
           low=0.0, high=1.0, low_open=True),
    Option("uniques", "choice", "sdcmicro",
           "how U (records unique on all keys) is counted for the DIS score: as sdcMicro's C++ does, or exactly",
           choices=("sdcmicro", "exact")),
)


def _suda_details(pair: EncodedPair, which: str, dis_fraction: float, uniques: str) -> dict[str, Any]:
    res = file_suda(pair, which, dis_fraction, uniques)
    names = key_names(pair)
    positive = res.score > 0
    return {
        "mean_dis": float(res.dis.mean()),
        "max_dis": float(res.dis.max()) if res.dis.size else 0.0,
        "msu_share": float(positive.mean()),
        "records_with_msu": int(positive.sum()),
        "mean_score": float(res.score.mean()),
        "max_score": float(res.score.max()) if res.score.size else 0.0,
        "dis_table": dict(zip(DIS_INTERVALS, res.dis_table())),
        "msu_by_size": {str(k + 1): int(c) for k, c in enumerate(res.msu_by_size)},
        "contribution_percent": dict(zip(names, map(float, res.contribution))),
        "uniques_U": res.n_unique,
        "uniques_exact": res.n_unique_exact,
        "pair_records_P": res.n_pair_records,
        "Dis": res.dis_overall if math.isfinite(res.dis_overall) else None,
        "Q": res.q,
        "notes": res.notes if math.isfinite(res.dis_overall) else [*res.notes, (
            "Dis, the file's disclosure probability U·f / (U·f + P·(1 − f)), is undefined (0/0): no record is unique "
            "on all keys (U = 0) and none is in a pair (P = 0)")],
    }


def _suda_checked(pair: EncodedPair, which: str, dis_fraction: float, uniques: str) -> None:
    res = file_suda(pair, which, dis_fraction, uniques)
    if not np.isfinite(res.dis).all():
        raise NotComputed(
            f"the DIS scores of the {FILE_NAMES[which]} file are undefined: sdcMicro's count of records unique on "
            "all keys is 0 there (its hash count misses them); use the option uniques=exact"
        )


@_risk_measure(
    "suda_dis",
    description="mean DIS-SUDA score (SUDA2: minimal sample uniques, Elliot/Skinner; sdcMicro's suda2)",
    range=(0.0, 1.0),
    options=SUDA_OPTIONS,
)
def suda_dis(pair: EncodedPair, *, dis_fraction: float = 0.01, uniques: str = "sdcmicro") -> MeasureResult:
    """Mean DIS-SUDA score of the protected file's records.

    SUDA2 finds every record's minimal sample uniques (MSUs: smallest sets of
    key variables on which no other record shares its values); the SUDA
    score sums ``(M - |S|)!`` over a record's MSUs and the DIS-SUDA score
    turns it into a probability that a unique match is correct (see
    :mod:`infoloss.risk.suda` for the formulas and the sdcMicro conventions
    kept, including how it counts the uniques ``U``).

    Returns
    -------
    MeasureResult
        ``value`` = mean DIS score; ``details``: sdcMicro's DIS table (records
        per interval), MSUs by size, each key variable's contribution (%) to
        the total score, ``U``, ``P``, ``Dis``, ``Q``, the same for the
        original under ``original``.

    References
    ----------
    Elliot, M. J., Manning, A. M. and Ford, R. W. (2002). Int. J. Uncertainty,
    Fuzziness and Knowledge-Based Systems 10(5), 493-509.  Skinner, C. J. and
    Elliot, M. J. (2002). J. R. Statist. Soc. B 64(4), 855-867.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.risk import suda_dis
    >>> df = pd.DataFrame({"a": [1, 2, 2, 2, 2, 2], "b": [1, 1, 2, 2, 1, 1], "c": [1, 1, 1, 2, 2, 1]})
    >>> spec = {"variables": {v: {"scale": "nominal", "role": "key"} for v in "abc"}}
    >>> r = suda_dis(df, df, spec)
    >>> r.details["msu_by_size"], r.details["records_with_msu"]
    ({'1': 1, '2': 3, '3': 0}, 4)
    """
    for which in (PROTECTED, ORIGINAL):
        _suda_checked(pair, which, dis_fraction, uniques)
    prot = _suda_details(pair, PROTECTED, dis_fraction, uniques)
    orig = _suda_details(pair, ORIGINAL, dis_fraction, uniques)
    details = {"key_variables": key_names(pair), "dis_fraction": dis_fraction, "uniques": uniques, **prot,
               "convention": "sdcMicro 5.8.1 suda2 (original_scores = TRUE)",
               "original": {"value": orig["mean_dis"], **orig}}
    return MeasureResult(value=prot["mean_dis"], details=details)


@_risk_measure(
    "msu_share",
    description="share of records with at least one minimal sample unique (SUDA score > 0)",
    range=(0.0, 1.0),
)
def msu_share(pair: EncodedPair) -> MeasureResult:
    """Share of the protected file's records that have a minimal sample unique (SUDA2 score above 0).

    A record with an MSU is unique on some combination of its key values
    (missing values never part of it); see :func:`suda_dis`.

    References
    ----------
    Elliot, M. J., Manning, A. M. & Ford, R. W. (2002). A computational algorithm for handling the special uniques problem. *International Journal of Uncertainty, Fuzziness and Knowledge-Based Systems* 10(5), 493–509.
    Templ, M., Kowarik, A. & Meindl, B. (2015). Statistical disclosure control for micro-data using the R package sdcMicro. *Journal of Statistical Software* 67(4), 1–36.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.risk import msu_share
    >>> df = pd.DataFrame({"a": [1, 2, 2, 2], "b": [1, 1, 1, 1]})
    >>> spec = {"variables": {v: {"scale": "nominal", "role": "key"} for v in "ab"}}
    >>> msu_share(df, df, spec).value
    0.25
    """
    prot = _suda_details(pair, PROTECTED, 0.01, "exact")
    orig = _suda_details(pair, ORIGINAL, 0.01, "exact")
    keep = ("records_with_msu", "msu_by_size", "mean_score", "max_score", "contribution_percent")
    details = {"key_variables": key_names(pair), **{k: prot[k] for k in keep},
               "original": {"value": orig["msu_share"], **{k: orig[k] for k in keep}}}
    return MeasureResult(value=prot["msu_share"], details=details)


# ---------------------------------------------------------------------------
# l-diversity and t-closeness
# ---------------------------------------------------------------------------
def _summary(values: np.ndarray) -> dict[str, float]:
    q = np.quantile(values, [0.0, 0.25, 0.5, 0.75, 1.0]) if values.size else [0.0] * 5
    return {"min": float(q[0]), "q1": float(q[1]), "median": float(q[2]), "mean": float(np.mean(values)),
            "q3": float(q[3]), "max": float(q[4])}


#: relative rounding allowed where a computed l or t meets its threshold: exp(ln 3) is 2.9999999999999996, and
#: an earth mover's distance of exactly 1/5 comes out as 0.20000000000000007; either is at the threshold, not past it
_AT_THRESHOLD = 1e-12


def _l_details(pair: EncodedPair, which: str, kind: str, l: float, c: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in sensitive_names(pair):
        ld = file_l_diversity(pair, name, which, c)
        out[name] = {
            "share_below_l": float(np.mean(ld[kind] < l * (1.0 - _AT_THRESHOLD))),
            **{k: _summary(v.astype(np.float64)) for k, v in ld.items()},
            "distinct_counts": _value_counts(ld["distinct"]),
        }
    return out


def _value_counts(values: np.ndarray) -> dict[str, int]:
    """Records per distinct l value: '0', '1', '2', '3', '4+'."""
    v = np.minimum(values.astype(np.int64), 4)
    counts = np.bincount(v, minlength=5)
    return {("4+" if i == 4 else str(i)): int(c) for i, c in enumerate(counts)}


@_risk_measure(
    "l_diversity",
    description="share of records whose key class has fewer than l distinct (or entropy, recursive) sensitive values; "
                "worst sensitive variable",
    range=(0.0, 1.0),
    options=(
        Option("kind", "choice", "distinct", "which l-diversity", choices=("distinct", "entropy", "recursive")),
        Option("l", "float", 2.0, "the l a class must reach", low=1.0),
        Option("c", "float", 2.0, "the constant c of recursive (c, l)-diversity (sdcMicro's l_recurs_c)",
               low=0.0, low_open=True, high=1e6),
    ),
)
def l_diversity(pair: EncodedPair, *, kind: str = "distinct", l: float = 2.0, c: float = 2.0) -> MeasureResult:
    """Share of records in key classes that are not l-diverse in a sensitive variable.

    Classes are records with identical key values (missing matching only
    missing), as sdcMicro's ``ldiversity``.  For each sensitive variable and
    class: distinct l = number of distinct values, entropy l =
    ``exp(-sum p log p)``, recursive (c, l) as Machanavajjhala et al. (see
    :mod:`infoloss.risk.diversity`; a missing sensitive value counts as one
    value beside observed ones, sdcMicro's missing-code rule).

    Returns
    -------
    MeasureResult
        ``value`` = the largest, over the sensitive variables, share of
        records whose class has l-diversity (of ``kind``) below ``l`` (an
        entropy l within 1e-12 relative of ``l`` reaches it: three equally
        frequent values give exp(ln 3) = 2.9999999999999996);
        ``by_variable`` = that share per sensitive variable; ``details``: per
        variable the distribution (min, quartiles, mean, max) of the three
        l-diversities over records and the records per distinct l (0, 1, 2,
        3, 4+), and the same for the original.

    References
    ----------
    Machanavajjhala, A., Kifer, D., Gehrke, J. and Venkitasubramaniam, M.
    (2007). l-diversity: privacy beyond k-anonymity. ACM TKDD 1(1), 3.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.risk import l_diversity
    >>> df = pd.DataFrame({"k": [1, 1, 2, 2, 2], "s": ["x", "x", "x", "y", "z"]})
    >>> spec = {"variables": {"k": {"scale": "nominal", "role": "key"}, "s": {"scale": "nominal", "role": "sensitive"}}}
    >>> l_diversity(df, df, spec).by_variable  # class k=1 has one value of s
    {'s': 0.4}
    """
    key_names(pair)
    prot = _l_details(pair, PROTECTED, kind, l, c)
    orig = _l_details(pair, ORIGINAL, kind, l, c)
    by_variable = {name: d["share_below_l"] for name, d in prot.items()}
    orig_value = max(d["share_below_l"] for d in orig.values())
    details = {"kind": kind, "l": l, "c": c, "key_variables": key_names(pair), "by_variable": prot,
               "convention": "classes of identical key patterns, missing = missing (sdcMicro 5.8.1 ldiversity)",
               "original": {"value": orig_value, "by_variable": orig}}
    return MeasureResult(value=max(by_variable.values()), by_variable=by_variable, details=details)


def _t_details(pair: EncodedPair, which: str, t: float) -> dict[str, Any]:
    out = {}
    for name in sensitive_names(pair):
        tc = file_t_closeness(pair, name, which)
        out[name] = {"max": float(tc.max()) if tc.size else 0.0, "mean": float(tc.mean()),
                     "share_above_t": float(np.mean(tc > t * (1.0 + _AT_THRESHOLD) + _AT_THRESHOLD)),
                     "ordered": pair.variable(name).scale != "nominal",
                     "max_one_value_records": _max_one_value_records(pair, name, which, tc)}
    return out


def _max_one_value_records(pair: EncodedPair, name: str, which: str, tc: np.ndarray) -> int | None:
    """The file's records of the sensitive value that a class at the largest distance holds alone (the fewest,
    when several such classes tie); None when every class at the largest distance holds several values.

    Such a class's distance is a function of the file's distribution in which
    that value's count appears alone (1 − c/n for a nominal variable), so
    safe mode withholds the distance when the count is small.
    """
    if not tc.size:
        return None
    codes, _ = sensitive_codes(pair, name, which)
    at_max = (tc == tc.max()) & (codes >= 0)
    if not at_max.any():
        return None
    cls = file_classes(pair, which)[at_max]
    values = codes[at_max]
    order = np.lexsort((values, cls))
    cls, values = cls[order], values[order]
    starts = np.flatnonzero(np.r_[True, cls[1:] != cls[:-1]])
    ends = np.r_[starts[1:], cls.size]
    one_value = values[starts] == values[ends - 1]
    if not one_value.any():
        return None
    counts = np.bincount(codes[codes >= 0])
    return int(counts[values[starts][one_value]].min())


@_risk_measure(
    "t_closeness",
    description="t-closeness: largest distance (EMD) between a key class's and the file's distribution of a "
                "sensitive variable; worst variable",
    range=(0.0, 1.0),
    options=(Option("t", "float", 0.2, "threshold for the share of records in classes farther than t", low=0.0,
                    high=1.0),),
)
def t_closeness(pair: EncodedPair, *, t: float = 0.2) -> MeasureResult:
    """t-closeness of the protected file: the largest EMD between a class's and the file's sensitive distribution.

    Classes are identical key patterns (as for :func:`l_diversity`); the
    distance is the Earth Mover's Distance over observed sensitive values:
    variational distance for nominal variables, ordered distance
    ``1/(m-1) sum_i |sum_{j<=i} (p_j - q_j)|`` for ordinal and continuous ones.

    Returns
    -------
    MeasureResult
        ``value`` = the largest t over classes and sensitive variables;
        ``by_variable`` = the largest t per sensitive variable; ``details``:
        per variable the record-weighted mean t and the share of records in
        classes with t above the option ``t`` (a t within 1e-12 of it, a
        rounded 1/5, is not above it), and the same for the original.

    References
    ----------
    Li, N., Li, T. and Venkatasubramanian, S. (2007). t-closeness: privacy
    beyond k-anonymity and l-diversity. ICDE 2007, 106-115.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.risk import t_closeness
    >>> df = pd.DataFrame({"k": [1, 1, 2, 2], "s": ["x", "y", "x", "x"]})
    >>> spec = {"variables": {"k": {"scale": "nominal", "role": "key"}, "s": {"scale": "nominal", "role": "sensitive"}}}
    >>> t_closeness(df, df, spec).value  # file: x 3/4, y 1/4; class k=2: x only
    0.25
    """
    key_names(pair)
    prot, orig = _t_details(pair, PROTECTED, t), _t_details(pair, ORIGINAL, t)
    by_variable = {name: d["max"] for name, d in prot.items()}
    details = {"t": t, "key_variables": key_names(pair), "by_variable": prot,
               "original": {"value": max(d["max"] for d in orig.values()), "by_variable": orig}}
    return MeasureResult(value=max(by_variable.values()), by_variable=by_variable, details=details)
