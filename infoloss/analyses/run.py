"""Run the declared analyses on a pair: the original once for all scenarios, the protected file, the comparison.

Caching: the original's estimates, fits and scales depend on the original file and the spec only, so they are
stored with :meth:`EncodedPair.cached_original` — in the ``original_cache`` that ``compare()`` passes to
``encode_pair`` for every scenario (computed by the first scenario, reused by the others), or on the pair
itself when it was encoded alone.  They are keyed by category labels, never by the pair's codes (which depend
on the protected file too).  The comparison of one pair is cached on the pair (``pair.cached``), so the
analyses measures and the JSON block share one computation.  The bootstrap's drawn counts are shared through
the same dict, so a protected file with the original's design (a paired comparison) reuses them.

BLAS runs single-threaded here (``threadpoolctl``): the matrix products are small (p × n by n × p) and
OpenBLAS's waiting threads cost more CPU than they save — twice the CPU time on the benchmark.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .._concurrent import thread_limits
from ..errors import NotComputed
from ..pair import ORIGINAL, PROTECTED, EncodedPair
from . import compare as cmp
from .data import FileData
from .estimates import estimate_file
from .regressions import Fit, fit_protected, fit_regressions
from .scales import scale_results
from .spec import Analyses, parse_analyses

NO_SECTION = "the spec declares no estimates, regressions or scales (add an 'analyses:' section, see docs/spec.md)"
CONVENTIONS = [
    "means, totals, ratios and proportions: Taylor linearisation under the spec's design (weights, strata, "
    "clusters as PSUs, with replacement; R survey's svymean/svytotal/svyratio/svyby), normal intervals",
    "quantiles, median, Gini, ARPR, QSR: laeken 0.5.2's definitions; naive bootstrap (PSUs resampled within "
    "strata), standard error with n − 1, percentile interval",
    "ARPR in a domain uses the whole file's poverty threshold (laeken's breakdown)",
    "missing values: left out of each estimate (domain estimation, R's na.rm = TRUE)",
    "regressions: gaussian = weighted least squares (R's lm) with t intervals; binomial/poisson = GLM with "
    "weights normalised to mean 1 and Wald intervals (R's glm + confint.default); listwise deletion",
    "CI overlap J: Karr et al. (2006), not clipped; R² loss and alpha loss: |protected − original| / |original|",
]


@dataclass
class FileResults:
    """Everything computed on one file."""

    estimates: dict[str, Any]
    fits: list[Fit]
    scales: list[dict[str, Any]]


def analyses_for(pair: EncodedPair) -> dict[str, Any]:
    """The ``analyses`` block of the pair (see docs/analyses.md); NotComputed when the spec has no section."""
    return pair.cached("analyses-block", lambda: _block(pair))


def parsed(pair: EncodedPair) -> Analyses:
    if pair.spec.analyses is None:
        raise NotComputed(NO_SECTION)
    analyses = parse_analyses(pair.spec.analyses, pair.spec)
    if not (analyses.estimates or analyses.regressions or analyses.scales):
        raise NotComputed(NO_SECTION)
    return analyses


def _block(pair: EncodedPair) -> dict[str, Any]:
    analyses = parsed(pair)
    key = ("analyses", json.dumps(pair.spec.to_dict(), sort_keys=True, default=str))
    shared = pair.cache if pair.original_cache is None else pair.original_cache
    with thread_limits(1):
        orig = pair.cached_original(key, lambda: _file(FileData(pair, ORIGINAL), analyses, None, shared))
        prot = _file(FileData(pair, PROTECTED), analyses, orig.fits, shared)
        # a protected file without a record of a reference category: both refitted on a common one
        orig_fits, prot.fits = fit_protected(FileData(pair, ORIGINAL), FileData(pair, PROTECTED), analyses, orig.fits)
    estimates = cmp.compare_estimates(orig.estimates["rows"], prot.estimates["rows"], prot.estimates["unavailable"])
    shown = {row["estimate"] for row in estimates}
    not_computed = {label: f"in the original file, {why}"
                    for label, why in orig.estimates["unavailable"].items() if label not in shown}
    regressions = cmp.compare_regressions([f.result for f in orig_fits], [f.result for f in prot.fits],
                                          analyses.ci.level)
    scales = cmp.compare_scales(orig.scales, prot.scales)
    ci = analyses.ci
    return {
        "ci": {"level": ci.level, "method": ci.method, "replicates": ci.replicates, "seed": ci.seed},
        "design": {"original": orig.estimates["design"], "protected": prot.estimates["design"],
                   "notes": orig.estimates["design_notes"] + prot.estimates["design_notes"]},
        "estimates": estimates,
        **({"not_computed": not_computed} if not_computed else {}),
        "regressions": regressions,
        "scales": scales,
        "summary": {"estimates": cmp.estimate_summary(estimates, ci.replicates),
                    "regressions": cmp.regression_summary(regressions),
                    "scales": {"n_scales": len(scales),
                               "mean_alpha_loss": _mean([s["alpha_loss"] for s in scales])}},
        "conventions": CONVENTIONS,
    }


def _file(data: FileData, analyses: Analyses, reference: list[Fit] | None, shared: dict) -> FileResults:
    """The original's results (``reference`` None), or the protected file's without its fits (fit_protected's)."""
    fits = fit_regressions(data, analyses) if reference is None else []
    return FileResults(estimate_file(data, analyses, shared), fits, scale_results(data, analyses))


def _mean(values: list) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None
