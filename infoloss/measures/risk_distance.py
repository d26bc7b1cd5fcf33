"""Distance-based disclosure risk: interval disclosure, record linkage, closeness to original records.

Like the other risk measures (:mod:`infoloss.measures.risk`), each value
describes the protected file, and ``details["original"]["value"]`` is the
measure for the original released as it is (compared with itself).  Lower is
better.

* ``interval_disclosure`` and ``interval_disclosure_robust`` (paired files,
  continuous variables): sdcMicro's ``dRisk`` and a deterministic version of
  its ``dRiskRMD``;
* ``record_linkage`` (paired files, continuous variables): share of protected
  records whose nearest original record is their own;
* ``exact_copies`` and ``dcr_holdout`` (any files, e.g. synthetic ones): the
  share of protected records identical to an original record, and the
  distance to the closest original record against a holdout baseline.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import NotComputed
from ..pair import ORIGINAL, PROTECTED, EncodedPair
from ..registry import MeasureResult, Option, measure
from ..risk.distance import (
    KD_TREE_MAX_DIMS,
    copied_rows,
    interval_disclosure as _interval,
    linkage,
    linkage_candidates,
    MixedFeatures,
    nearest_distances,
    robust_interval_disclosure as _robust,
    standardise_by_original,
)
from .risk import FILE_RISK_MEASURES

__all__ = ["interval_disclosure", "interval_disclosure_robust", "record_linkage", "exact_copies", "dcr_holdout"]


def _distance_measure(id: str, **kwargs: Any):
    FILE_RISK_MEASURES.add(id)
    return measure(id, family="risk", better="lower", **kwargs)


def _continuous(pair: EncodedPair) -> list[str]:
    names = pair.continuous_names
    if not names:
        raise NotComputed("it needs continuous variables, and the spec has none (or all were removed)")
    return names


def _matrices(pair: EncodedPair) -> tuple[list[str], np.ndarray, np.ndarray]:
    names = _continuous(pair)
    return names, pair.matrix(ORIGINAL, names), pair.matrix(PROTECTED, names)


def _complete(x: np.ndarray, xm: np.ndarray, least: int) -> np.ndarray:
    ok = ~(np.isnan(x).any(axis=1) | np.isnan(xm).any(axis=1))
    if ok.sum() < least:
        raise NotComputed(f"it needs at least {least} records with every continuous variable present in both files, "
                          f"and there are {int(ok.sum())}")
    return ok


# ---------------------------------------------------------------------------
# interval disclosure
# ---------------------------------------------------------------------------
@_distance_measure(
    "interval_disclosure",
    description="share of records whose original values all lie within ±k·sd of the protected values "
                "(sdcMicro's dRisk)",
    range=(0.0, 1.0),
    needs_pairing=True,
    options=(Option("k", "float", 0.05, "half-width of the interval in protected standard deviations", low=0.0,
                    low_open=True, high=1e6),),
)
def interval_disclosure(pair: EncodedPair, *, k: float = 0.05) -> MeasureResult:
    """Interval disclosure risk (sdcMicro's ``dRisk``, SDID).

    Record i is at risk when, for every continuous variable, its original
    value lies in ``[x'_i - k sd', x'_i + k sd']`` (``x'`` protected values,
    ``sd'`` the protected column's standard deviation with n - 1); the value
    is the share of records at risk.  A comparison with a missing value is
    left out, as in sdcMicro.

    References
    ----------
    Mateo-Sanz, J. M., Sebé, F. and Domingo-Ferrer, J. (2004). Outlier
    protection in continuous microdata masking. PSD 2004, LNCS 3050, 201-215.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.risk_distance import interval_disclosure
    >>> orig = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    >>> prot = pd.DataFrame({"x": [1.0, 2.01, 4.0, 4.0]})
    >>> interval_disclosure(orig, prot, {"variables": {"x": {"scale": "continuous"}}}).value
    0.75
    """
    names, x, xm = _matrices(pair)
    res = _interval(x, xm, k)
    orig = pair.cached_original(("risk", "dRisk", tuple(names), k), lambda: _interval(x, x, k)["value"])
    details = {"k": k, "variables": names, "records_at_risk": int(res["at_risk"].sum()),
               "convention": "sdcMicro 5.8.1 dRisk", "original": {"value": orig}}
    return MeasureResult(value=res["value"], details=details)


@_distance_measure(
    "interval_disclosure_robust",
    description="share of records with a protected value within an interval around the original scaled by its "
                "robust Mahalanobis distance (deterministic RMDID1, sdcMicro's dRiskRMD)",
    range=(0.0, 1.0),
    needs_pairing=True,
    options=(
        Option("k", "float", 0.01, "interval half-width factor on the robust distance", low=0.0, low_open=True,
               high=1e6),
        Option("k2", "float", 0.05, "RMDID2: radius of the neighbourhood in the protected file", low=0.0,
               low_open=True, high=1e6),
        Option("max_records", "int", 5_000, "records of the robust covariance fit and of the RMDID2 check "
               "(a systematic sample above)", low=10),
    ),
)
def interval_disclosure_robust(pair: EncodedPair, *, k: float = 0.01, k2: float = 0.05, max_records: int = 5_000
                               ) -> MeasureResult:
    """Robust interval disclosure (RMDID1), deterministic.

    Intervals around each standardised original record grow with its robust
    Mahalanobis distance (``0.05 * RMD``, times ``k``), so outlying records,
    the easiest to re-identify, get wider intervals; a record is at risk
    when one of its protected values falls strictly inside.  sdcMicro's
    ``dRiskRMD`` computes the robust covariance with ``covMcd`` (random
    subsets); infoloss uses the reweighted OGK estimator, which is
    deterministic (see :func:`infoloss.risk.distance.robust_interval_disclosure`).
    Computed on the records with every continuous variable present in both files.

    Returns
    -------
    MeasureResult
        ``value`` = RMDID1 share at risk; ``details``: ``risk2`` (RMDID2: also
        isolated in the protected file), sdcMicro's ``wrisk1`` and ``wrisk2``,
        the records used.

    References
    ----------
    Templ, M. and Meindl, B. (2008). Robust statistics meets SDC: new
    disclosure risk measures for continuous microdata masking. PSD 2008,
    LNCS 5262, 113-126.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from infoloss.measures.risk_distance import interval_disclosure_robust
    >>> rng = np.random.default_rng(0)
    >>> orig = pd.DataFrame(rng.normal(size=(200, 2)), columns=["x", "y"])
    >>> spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}}}
    >>> interval_disclosure_robust(orig, orig + rng.normal(scale=0.5, size=(200, 2)), spec).value < 0.05
    True
    >>> interval_disclosure_robust(orig, orig, spec).value  # unchanged values lie inside every interval
    1.0
    """
    names, x, xm = _matrices(pair)
    ok = _complete(x, xm, len(names) + 2)
    res = _robust(x[ok], xm[ok], k, k2, max_records, names)
    own = ~np.isnan(x).any(axis=1)  # the original against itself: its own complete records
    fitted = res["covariance"] if np.array_equal(own, ok) else None  # the same records: the same robust fit
    orig = pair.cached_original(("risk", "dRiskRMD", tuple(names), k, k2, max_records),
                                lambda: _robust(x[own], x[own], k, k2, max_records, covariance=fitted)["value"])
    details = {"k": k, "k2": k2, "variables": names, "records_used": int(ok.sum()),
               **{key: res[key] for key in ("risk1", "risk2", "wrisk1", "wrisk2", "risk2_sampled",
                                            "covariance_records")},
               "robust_covariance": "reweighted OGK (Maronna & Zamar 2002), deterministic; sdcMicro uses covMcd",
               "original": {"value": orig}}
    return MeasureResult(value=res["value"], details=details)


# ---------------------------------------------------------------------------
# record linkage
# ---------------------------------------------------------------------------
@_distance_measure(
    "record_linkage",
    description="share of protected records whose nearest original record (standardised continuous variables) "
                "is their own",
    range=(0.0, 1.0),
    needs_pairing=True,
    options=(
        Option("ties", "choice", "share", "a correct link among t equally near records counts 1/t (share) or 1 (own)",
               choices=("share", "own")),
        Option("max_records", "int", 5_000, "protected records linked per seed (all when fewer)", low=10),
        Option("seeds", "int", 3, "seeded samples of protected records when there are more than max_records",
               low=1, high=100),
    ),
)
def record_linkage(pair: EncodedPair, *, ties: str = "share", max_records: int = 5_000, seeds: int = 3
                   ) -> MeasureResult:
    """Distance-based record linkage: share of correctly linked records.

    The continuous variables of both files are standardised by the
    original's means and standard deviations; each protected record is
    linked to its nearest original record(s) by Euclidean distance over
    every original record (scipy ``cKDTree``; scikit-learn's brute-force
    search above 10 variables).  The linked records are those with every
    continuous variable present in both files (``records_used``); the
    candidates are every original record with its continuous variables
    present (``candidates``), whether or not its protected record lost a
    value (a local suppression leaves the intruder's search as large).
    Above ``max_records`` linked records, ``seeds`` seeded samples of them
    are linked (the value is their mean, the spread in ``details``).
    Not computed under ``pairing: nearest``: a protected record's "own"
    original is then the nearest one by construction.  The original linked with itself
    scores ``mean(1/t)`` over its records, t the number of identical records
    (1 when all records are distinct; 1 with ``ties="own"``).

    References
    ----------
    Domingo-Ferrer, J. and Torra, V. (2001). A quantitative comparison of
    disclosure control methods for microdata. In Confidentiality, Disclosure
    and Data Access, North-Holland, 111-133.

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.risk_distance import record_linkage
    >>> orig = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})
    >>> prot = pd.DataFrame({"x": [0.1, 1.6, 2.1, 3.0]})
    >>> record_linkage(orig, prot, {"variables": {"x": {"scale": "continuous"}}}).value
    0.75
    """
    if pair.matched_from is not None:
        raise NotComputed("it needs each protected record's own original record (pairing by row or id); with "
                          "pairing: nearest the matched original is the nearest by construction, so for synthetic "
                          "files see exact_copies and dcr_holdout")
    names, x, xm = _matrices(pair)
    ok = _complete(x, xm, 1)
    zo, zp, rows = linkage_candidates(x, xm, ok)
    m = rows.size
    if m <= max_records:
        values = [linkage(zo, zp, ties=ties, sample=None if m == zo.shape[0] else rows)["value"]]
    else:
        from scipy.spatial import cKDTree

        tree = cKDTree(zo) if zo.shape[1] <= KD_TREE_MAX_DIMS else None
        values = [linkage(zo, zp, ties=ties, sample=rows[np.sort(np.random.default_rng(seed).choice(
            m, max_records, replace=False))], tree=tree)["value"] for seed in range(seeds)]
    orig = 1.0 if ties == "own" else pair.cached_original(
        ("risk", "linkage_self", tuple(names)), lambda: _self_linkage(x[~np.isnan(x).any(axis=1)]))
    details = {"ties": ties, "variables": names, "records_used": int(ok.sum()), "candidates": int(zo.shape[0]),
               "sampled": m > max_records, "by_seed": values if m > max_records else None,
               "sd": float(np.std(values, ddof=1)) if len(values) > 1 else 0.0,
               "standardised_by": "original mean and standard deviation (n - 1)", "original": {"value": orig}}
    return MeasureResult(value=float(np.mean(values)), details=details)


def _self_linkage(x: np.ndarray) -> float:
    """A file linked with itself: each record ties with its identical copies, so it scores 1/t."""
    if x.shape[0] == 0:
        return 1.0
    _, inverse, counts = np.unique(x, axis=0, return_inverse=True, return_counts=True)
    return float(np.mean(1.0 / counts[inverse.ravel()]))


# ---------------------------------------------------------------------------
# unpaired files: copies and distance to the closest record
# ---------------------------------------------------------------------------
def _present(pair: EncodedPair) -> list[str]:
    names = pair.names()
    if not names:
        raise NotComputed("no analysed variable is present in the protected file")
    return names


def _columns(pair: EncodedPair, names: list[str], which: str) -> list[np.ndarray]:
    """One file's analysed variables as they are on the pair: category codes (shared by both files) or values."""
    return [pair.categorical[name].codes(which) if name in pair.categorical else pair.continuous[name].values(which)
            for name in names]


@_distance_measure(
    "exact_copies",
    description="share of protected records identical to some original record on every analysed variable",
    range=(0.0, 1.0),
    needs_pairing=False,
)
def exact_copies(pair: EncodedPair) -> MeasureResult:
    """Share of protected records that equal an original record on all analysed variables.

    For synthetic files, an exact copy of an original record discloses it
    (unless the record is common); for masked files it is a record left
    unchanged.  Values are compared exactly, missing equal to missing.

    References
    ----------
    Domingo-Ferrer, J. & Torra, V. (2001). A quantitative comparison of disclosure control methods for microdata. In *Confidentiality, Disclosure and Data Access*, 111–133 (record-linkage risk); Park, N. et al. (2018). Data synthesis based on generative adversarial networks. *PVLDB* 11(10) (exact copies / identical-record rate of synthetic data).

    Examples
    --------
    >>> import pandas as pd
    >>> from infoloss.measures.risk_distance import exact_copies
    >>> orig = pd.DataFrame({"x": [1.0, 2.0, 3.0], "g": ["a", "b", "a"]})
    >>> prot = pd.DataFrame({"x": [2.0, 2.0, 3.5], "g": ["b", "a", "a"]})
    >>> spec = {"variables": {"x": {"scale": "continuous"}, "g": {"scale": "nominal"}}, "pairing": "none"}
    >>> round(exact_copies(orig, prot, spec).value, 4)
    0.3333
    """
    names = _present(pair)
    copies = copied_rows(_columns(pair, names, ORIGINAL), _columns(pair, names, PROTECTED))
    details = {"variables": names, "copies": int(copies.sum()), "original": {"value": 1.0}}
    return MeasureResult(value=float(copies.mean()), details=details)


DCR_OPTIONS = (
    Option("holdout", "float", 0.2, "share of the original held out as the baseline of genuine new records",
           low=0.0, high=0.5, low_open=True),
    Option("seeds", "int", 5, "number of seeded holdout splits (the spread is reported)", low=1, high=100),
    Option("max_records", "int", 1_000, "protected and holdout records compared per split (a seeded sample above; "
           "the reference is at most ten times as many original records)", low=10),
)


def _dcr_split(features: MixedFeatures, n_o: int, n_p: int, seed: int, holdout: float, max_records: int
               ) -> tuple[float, np.ndarray, np.ndarray]:
    """One seeded split: (closeness probability, protected DCRs, holdout DCRs)."""
    rng = np.random.default_rng(seed)
    limit = 10 * max_records
    ref_rows = np.sort(rng.choice(n_o, limit, replace=False)) if n_o > limit else np.arange(n_o)
    n_r = ref_rows.size
    h = int(min(max(1, round(holdout * n_r)), max_records, n_r - 1))
    held = np.zeros(n_r, dtype=bool)
    held[rng.choice(n_r, h, replace=False)] = True
    rest = ref_rows[~held]
    if n_p == n_o:
        # files of equal size are sampled at the same record numbers: a protected record is compared with a
        # reference that holds the original record of the same number (its own, for paired or identical files)
        query_rows = rest if rest.size <= max_records else np.sort(rng.choice(rest, max_records, replace=False))
    else:
        query_rows = np.arange(n_p) if n_p <= max_records else rng.choice(n_p, max_records, replace=False)
    reference = features(0, ref_rows)
    # both sides against the same records, the rest of the original: a larger reference (the whole original)
    # is denser, so its nearest records are closer and new records would seem closer than the holdout
    d_prot = nearest_distances(reference[~held], features(1, query_rows))
    d_hold = nearest_distances(reference[~held], reference[held])
    # probability that a protected record is closer than a holdout record (ties count one half)
    from scipy.stats import mannwhitneyu  # scipy.stats only for this measure

    u = mannwhitneyu(d_hold, d_prot, alternative="two-sided", method="asymptotic").statistic
    return float(u / (d_hold.size * d_prot.size)), d_prot, d_hold


def _dcr(features: MixedFeatures, n_o: int, n_p: int, holdout: float, seeds: int, max_records: int) -> dict:
    values, d_prot, d_hold = [], [], []
    for seed in range(seeds):
        v, dp, dh = _dcr_split(features, n_o, n_p, seed, holdout, max_records)
        values.append(v)
        d_prot.append(dp)
        d_hold.append(dh)
    zero_by_seed = [float(np.mean(dh == 0)) for dh in d_hold]
    dp, dh = np.concatenate(d_prot), np.concatenate(d_hold)
    return {
        "value": float(np.mean(values)),
        "by_seed": values,
        "sd": float(np.std(values, ddof=1)) if seeds > 1 else 0.0,
        "min": float(np.min(values)),
        "max": float(np.max(values)),
        "dcr_protected": {"median": float(np.median(dp)), "q05": float(np.quantile(dp, 0.05)),
                          "zero_share": float(np.mean(dp == 0))},
        "dcr_holdout": {"median": float(np.median(dh)), "q05": float(np.quantile(dh, 0.05)),
                        "zero_share": float(np.mean(dh == 0))},
        "holdout_zero_by_seed": zero_by_seed,
    }


@_distance_measure(
    "dcr_holdout",
    description="probability that a protected record is closer to the original (DCR) than a genuine holdout "
                "record is; 0.5 = as close as new records from the same population",
    range=(0.0, 1.0),
    needs_pairing=False,
    options=DCR_OPTIONS,
)
def dcr_holdout(pair: EncodedPair, *, holdout: float = 0.2, seeds: int = 5, max_records: int = 1_000
                ) -> MeasureResult:
    """Distance to the closest original record (DCR), against a holdout baseline.

    Records are points: continuous variables standardised by the original's
    mean and standard deviation, categories one-hot at distance 1 (see
    :class:`infoloss.risk.distance.MixedFeatures`).  For each of ``seeds``
    seeded splits, a share ``holdout`` of the original is held out; the DCR
    of each protected record is its Euclidean distance to the nearest
    record of the rest of the original, and the baseline DCR of each holdout
    record its distance to the nearest record of the same rest, as in
    Platzer & Reutterer (both against the training records).  Measured
    against the whole original, which is denser, protected records would
    seem closer: new records from the same population scored 0.533 instead
    of 0.5 with three continuous variables and 20 % held out.  The value is the
    probability that a protected record is closer than a holdout record,
    ``P(DCR_prot < DCR_hold) + P(=)/2`` (the Mann-Whitney U statistic over
    ``n_prot * n_hold``, scipy), averaged over the splits.  A copy of the
    original scores near 1, synthetic records as close to the original as
    genuine new records about 0.5, records farther away below 0.5.  Above
    ``max_records`` protected or holdout records a seeded sample is compared,
    and above ten times that the reference is a seeded sample of the original.
    Files of equal size are sampled at the same record numbers (the
    protected records compared are those of the rest's record numbers), so
    every record of a copy of the original is at distance exactly 0.

    Identical files.  A copy's DCRs are all 0, so it is closer than every
    holdout record except those with an exact twin in the rest of the
    original, whose DCR is 0 too: such a tie counts one half (a copied record
    is then no closer than a genuine duplicate).  A copy, and the original
    itself (``details["original"]["value"]``, against the same splits),
    therefore score ``1 - P(DCR_hold = 0)/2``: 1 when no holdout record
    has a twin, less in files with duplicated records (many categorical
    variables, few values).  Zero distances are exact (see
    :func:`infoloss.risk.distance.nearest_distances`).

    Returns
    -------
    MeasureResult
        ``value`` = the mean probability over the splits; ``details``: the
        value per split and its spread (``sd``, ``min``, ``max``), the median,
        5th percentile and share of zero DCRs of the protected and holdout
        records, and the original's own value (the original compared with itself).

    References
    ----------
    Platzer, M. and Reutterer, T. (2021). Holdout-based empirical assessment
    of mixed-type synthetic data. Frontiers in Big Data 4, 679939.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from infoloss.measures.risk_distance import dcr_holdout
    >>> rng = np.random.default_rng(0)
    >>> orig = pd.DataFrame({"x": rng.normal(size=300), "g": rng.choice(["a", "b"], 300)})
    >>> spec = {"variables": {"x": {"scale": "continuous"}, "g": {"scale": "nominal"}}, "pairing": "none"}
    >>> dcr_holdout(orig, orig, spec).value  # a copy: every record at distance 0
    1.0
    >>> new = pd.DataFrame({"x": rng.normal(size=300), "g": rng.choice(["a", "b"], 300)})
    >>> 0.3 < dcr_holdout(orig, new, spec).value < 0.7  # new records from the same population
    True
    """
    names = _present(pair)
    cont = [n for n in names if n in pair.continuous]
    cat = [n for n in names if n in pair.categorical]
    features = MixedFeatures(
        [(pair.continuous[n].orig, pair.continuous[n].prot) for n in cont],
        [(pair.categorical[n].orig, pair.categorical[n].prot, pair.categorical[n].n_categories) for n in cat],
    )
    if pair.n_orig < 4:
        raise NotComputed("it needs at least 4 original records to hold some out")
    res = _dcr(features, pair.n_orig, pair.n_prot, holdout, seeds, max_records)
    # the original released as it is: every record at distance 0 from itself, so it is closer than a holdout
    # record unless that one has an exact twin (ties count one half), against the same holdout splits
    orig = float(np.mean([1.0 - 0.5 * z for z in res.pop("holdout_zero_by_seed")]))
    details = {"variables": names, "holdout": holdout, "seeds": seeds, "max_records": max_records, **res,
               "distance": "Euclidean; continuous standardised by the original, categories one-hot at distance 1",
               "original": {"value": orig}}
    del details["value"]
    return MeasureResult(value=res["value"], details=details)
