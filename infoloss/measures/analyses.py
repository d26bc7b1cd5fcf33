"""The analyses family: the user's own estimates, regressions and scales, before and after protection.

The spec's ``analyses:`` section (docs/spec.md) declares them; :mod:`infoloss.analyses` computes them on both
files with confidence intervals and compares them.  These measures are its summaries; their ``details`` hold
the full tables, and ``compare()`` also puts the whole comparison in each scenario's ``analyses`` block of the
JSON (docs/analyses.md).  Without an ``analyses:`` section every measure here is NotComputed.

Karr et al.'s interval overlap per estimate or coefficient (``infoloss.analyses.compare.ci_overlap``):

    J = ½·[(U − L)/(U_o − L_o) + (U − L)/(U_p − L_p)],  L = max(L_o, L_p),  U = min(U_o, U_p)

References
----------
Karr, A. F., Kohnen, C. N., Oganian, A., Reiter, J. P. & Sanil, A. P. (2006). A framework for evaluating the
utility of data altered to protect confidentiality. *The American Statistician* 60(3), 224–232.
Templ, M., Kowarik, A. & Meindl, B. (2015). Statistical disclosure control for micro-data using the R package
sdcMicro. *Journal of Statistical Software* 67(4) — benchmark indicators with confidence intervals.
Kocar, S. (2018). Global data utility (methods paper 4/2018), §3.6: adjusted R², pseudo-R², Cronbach's alpha.
Shlomo, N. (2010). Releasing microdata: disclosure risk estimation, data masking and assessing utility.
*Journal of Privacy and Confidentiality* 2(1), 73–91.
"""

from __future__ import annotations

from typing import Any

from ..analyses.run import CONVENTIONS, analyses_for, parsed
from ..errors import NotComputed
from ..pair import EncodedPair
from ..registry import MeasureResult, measure


def _estimates(pair: EncodedPair) -> tuple[list[dict], dict]:
    analyses = parsed(pair)
    if not analyses.estimates:
        raise NotComputed("the spec's analyses section declares no estimates")
    block = analyses_for(pair)
    return block["estimates"], block


def _by_variable(rows: list[dict], field: str) -> dict[str, float]:
    per: dict[str, list[float]] = {}
    for r in rows:
        if r[field] is not None:
            per.setdefault(r["variable"], []).append(float(r[field]))
    return {v: sum(x) / len(x) for v, x in per.items()}


def _estimate_details(rows: list[dict], block: dict) -> dict[str, Any]:
    """The table, the settings and — for bootstrapped estimates — the value's spread over seeds."""
    out = {"estimates": rows, "ci": block["ci"], "design": block["design"], "conventions": CONVENTIONS}
    spread = block["summary"]["estimates"].get("seed_spread")
    if spread is not None:
        out["seed_spread"] = spread
    return out


@measure(
    "estimate_ci_overlap",
    family="analyses",
    description="Karr's confidence-interval overlap J of the declared estimates, averaged (1 = same intervals, "
                "negative = disjoint)",
    range=(None, 1.0),
    better="higher",
    needs_pairing=False,
    headline=True,
)
def estimate_ci_overlap(pair: EncodedPair) -> MeasureResult:
    """Mean of Karr et al.'s interval overlap J over the declared estimates (per domain and category).

    J = ½·[(U − L)/(U_o − L_o) + (U − L)/(U_p − L_p)], L = max(L_o, L_p), U = min(U_o, U_p), not clipped.
    Estimates whose interval is missing or of zero width in either file are left out (each row's ``note``
    says why).  ``by_variable``: the mean J of the estimates of each variable.  With bootstrapped estimates,
    ``details.seed_spread`` gives the value recomputed on four independent groups of replicates (four
    seeds): its spread shows how much the value depends on the seed.

    References
    ----------
    Karr, A. F. et al. (2006). *The American Statistician* 60(3), 224–232.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"x": [float(i % 7) for i in range(40)], "g": ["a", "b"] * 20})
    >>> spec = {"variables": {"x": {"scale": "continuous"}, "g": {"scale": "nominal"}},
    ...         "analyses": {"estimates": [{"statistic": "mean", "variable": "x", "by": "g"}]}}
    >>> estimate_ci_overlap(df, df.copy(), spec).value
    1.0
    """
    rows, block = _estimates(pair)
    values = [r["ci_overlap"] for r in rows if r["ci_overlap"] is not None]
    if not values:
        raise NotComputed(f"no estimate has an interval in both files{_first_note(rows)}")
    return MeasureResult(sum(values) / len(values), by_variable=_by_variable(rows, "ci_overlap"),
                         details=_estimate_details(rows, block) | {"n_compared": len(values), "n_estimates": len(rows)})


@measure(
    "estimate_inside_ci",
    family="analyses",
    description="Share of the declared estimates whose protected value lies inside the original's confidence interval",
    range=(0.0, 1.0),
    better="higher",
    needs_pairing=False,
    headline=True,
)
def estimate_inside_ci(pair: EncodedPair) -> MeasureResult:
    """Share of estimates with L_o ≤ θ_p ≤ U_o (the Practice Guide's "within the original CI" check).

    Estimates without an original interval or without a protected value are left out.  A category absent
    from the protected file counts as a proportion of 0.

    References
    ----------
    Karr, A. F., Kohnen, C. N., Oganian, A., Reiter, J. P. & Sanil, A. P. (2006). A framework for evaluating the utility of data altered to protect confidentiality. *The American Statistician* 60(3), 224–232.
    Benschop, T. & Welch, M. (2016-). *Statistical Disclosure Control for Microdata: A Practice Guide*, section "Measuring utility and information loss" (benchmark estimates and the Mincer regression).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"x": [float(i % 7) for i in range(40)]})
    >>> spec = {"variables": {"x": {"scale": "continuous"}},
    ...         "analyses": {"estimates": [{"statistic": "mean", "variable": "x"}]}}
    >>> estimate_inside_ci(df, df + 10, spec).value
    0.0
    """
    rows, block = _estimates(pair)
    values = [r["inside_original_ci"] for r in rows if r["inside_original_ci"] is not None]
    if not values:
        raise NotComputed(f"no estimate has an original interval and a protected value{_first_note(rows)}")
    return MeasureResult(sum(values) / len(values), by_variable=_by_variable(rows, "inside_original_ci"),
                         details=_estimate_details(rows, block) | {"n_compared": len(values), "n_estimates": len(rows)})


def _regressions(pair: EncodedPair) -> tuple[list[dict], dict]:
    analyses = parsed(pair)
    if not analyses.regressions:
        raise NotComputed("the spec's analyses section declares no regressions")
    block = analyses_for(pair)
    return block["regressions"], block


def _regression_details(regs: list[dict], block: dict) -> dict[str, Any]:
    return {"regressions": regs, "ci": block["ci"], "summary": block["summary"]["regressions"],
            "conventions": CONVENTIONS}


def _per_regression(regs: list[dict], field: str) -> dict[str, float]:
    out = {}
    for r in regs:
        values = [c[field] for c in r["coefficients"] if c[field] is not None]
        if values:
            out[r["name"]] = sum(map(float, values)) / len(values)
    return out


@measure(
    "regression_ci_overlap",
    family="analyses",
    description="Karr's confidence-interval overlap J of the declared regressions' coefficients, averaged",
    range=(None, 1.0),
    better="higher",
    needs_pairing=False,
    headline=True,
)
def regression_ci_overlap(pair: EncodedPair) -> MeasureResult:
    """Mean interval overlap J over the coefficients of every declared regression.

    The same formula is fitted on both files (the protected one coded with the original's categories);
    coefficients that cannot be estimated in either file (aliased, infinite under separation, recoded
    categories) are left out with a note.  ``details.per_regression``: the mean J of each regression.

    References
    ----------
    Karr, A. F., Kohnen, C. N., Oganian, A., Reiter, J. P. & Sanil, A. P. (2006). A framework for evaluating the utility of data altered to protect confidentiality. *The American Statistician* 60(3), 224–232.
    Benschop, T. & Welch, M. (2016-). *Statistical Disclosure Control for Microdata: A Practice Guide*, section "Measuring utility and information loss" (benchmark estimates and the Mincer regression).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"x": rng.normal(size=50)})
    >>> df["y"] = 2 * df["x"] + rng.normal(size=50)
    >>> spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}},
    ...         "analyses": {"regressions": [{"name": "line", "formula": "y ~ x"}]}}
    >>> regression_ci_overlap(df, df.copy(), spec).value
    1.0
    """
    regs, block = _regressions(pair)
    values = [c["ci_overlap"] for r in regs for c in r["coefficients"] if c["ci_overlap"] is not None]
    if not values:
        raise NotComputed(f"no coefficient could be compared{_first_regression_note(regs)}")
    details = _regression_details(regs, block) | {"per_regression": _per_regression(regs, "ci_overlap")}
    return MeasureResult(sum(values) / len(values), details=details)


@measure(
    "regression_sign_agreement",
    family="analyses",
    description="Share of the declared regressions' coefficients with the same sign in both files",
    range=(0.0, 1.0),
    better="higher",
    needs_pairing=False,
)
def regression_sign_agreement(pair: EncodedPair) -> MeasureResult:
    """Share of comparable coefficients with the same sign; the significance agreement is in the details.

    Significance: p < 1 − level (the spec's ``ci: level``) in both files or in neither.

    References
    ----------
    Karr, A. F., Kohnen, C. N., Oganian, A., Reiter, J. P. & Sanil, A. P. (2006). A framework for evaluating the utility of data altered to protect confidentiality. *The American Statistician* 60(3), 224–232.
    Benschop, T. & Welch, M. (2016-). *Statistical Disclosure Control for Microdata: A Practice Guide*, section "Measuring utility and information loss" (benchmark estimates and the Mincer regression).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"x": rng.normal(size=50)})
    >>> df["y"] = 2 * df["x"] + rng.normal(size=50)
    >>> spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}},
    ...         "analyses": {"regressions": [{"name": "line", "formula": "y ~ x"}]}}
    >>> flipped = df.assign(y=-df["y"])
    >>> regression_sign_agreement(df, flipped, spec).value
    0.0
    """
    regs, block = _regressions(pair)
    values = [c["same_sign"] for r in regs for c in r["coefficients"] if c["same_sign"] is not None]
    if not values:
        raise NotComputed(f"no coefficient could be compared{_first_regression_note(regs)}")
    details = _regression_details(regs, block) | {"per_regression": _per_regression(regs, "same_sign"),
                                                  "significance_agreement": block["summary"]["regressions"][
                                                      "significance_agreement"]}
    return MeasureResult(sum(values) / len(values), details=details)


@measure(
    "r2_loss",
    family="analyses",
    description="Relative change of the regressions' fit, |R²_p − R²_o| / |R²_o| (adjusted R², or Cox–Snell's "
                "pseudo-R² for binomial and poisson), averaged",
    range=(0.0, None),
    better="lower",
    needs_pairing=False,
)
def r2_loss(pair: EncodedPair) -> MeasureResult:
    """Shlomo's relative loss of a fit statistic, with Kocar's adjustments (absolute, no ×100).

    Per regression: |R²_p − R²_o| / |R²_o| with the adjusted R² of a linear model or Cox & Snell's pseudo-R²
    ``1 − exp((D − D0)/N)`` of a binomial or poisson one; the value is the mean over the regressions.

    References
    ----------
    Shlomo, N. (2010). Releasing microdata: disclosure risk estimation, data masking and assessing utility. *Journal of Privacy and Confidentiality* 2(1), 73–91.
    Kocar, S. (2018). A universal global measure of univariate and bivariate data utility for anonymised microdata. CSRM & SRC Methods Paper 4/2018, ANU, section 3.6 (multivariate utility: adjusted R², Cox & Snell pseudo-R², Cronbach's α).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"x": rng.normal(size=50)})
    >>> df["y"] = 2 * df["x"] + rng.normal(size=50)
    >>> spec = {"variables": {"x": {"scale": "continuous"}, "y": {"scale": "continuous"}},
    ...         "analyses": {"regressions": [{"name": "line", "formula": "y ~ x"}]}}
    >>> r2_loss(df, df.copy(), spec).value
    0.0
    """
    regs, block = _regressions(pair)
    losses = {r["name"]: r["r2_loss"] for r in regs if r["r2_loss"] is not None}
    if not losses:
        raise NotComputed(f"no regression has an R² in both files{_first_regression_note(regs)}")
    details = _regression_details(regs, block) | {"per_regression": losses}
    return MeasureResult(sum(losses.values()) / len(losses), details=details)


@measure(
    "alpha_loss",
    family="analyses",
    description="Relative change of Cronbach's alpha of the declared scales, |α_p − α_o| / |α_o|, averaged",
    range=(0.0, None),
    better="lower",
    needs_pairing=False,
)
def alpha_loss(pair: EncodedPair) -> MeasureResult:
    """Kocar's (2018, §3.6) multivariate utility of a scale: the relative change of Cronbach's alpha.

    α = k/(k − 1)·(1 − Σ s_j²/s_T²) over the records with every item observed (weighted variances with
    survey weights); the details have α and α-if-item-deleted per scale and file.

    References
    ----------
    Cronbach, L. J. (1951). Coefficient alpha and the internal structure of tests. *Psychometrika* 16(3), 297–334.
    Kocar, S. (2018). A universal global measure of univariate and bivariate data utility for anonymised microdata. CSRM & SRC Methods Paper 4/2018, ANU, section 3.6 (multivariate utility: adjusted R², Cox & Snell pseudo-R², Cronbach's α).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": [1, 2, 3, 4, 5, 2], "b": [2, 2, 3, 5, 4, 1], "c": [1, 3, 3, 4, 5, 2]})
    >>> spec = {"variables": {v: {"scale": "ordinal"} for v in "abc"},
    ...         "analyses": {"scales": [{"name": "s", "items": ["a", "b", "c"]}]}}
    >>> alpha_loss(df, df.copy(), spec).value
    0.0
    """
    analyses = parsed(pair)
    if not analyses.scales:
        raise NotComputed("the spec's analyses section declares no scales")
    scales = analyses_for(pair)["scales"]
    losses = {s["name"]: s["alpha_loss"] for s in scales if s["alpha_loss"] is not None}
    if not losses:
        notes = [s["note"] for s in scales if s.get("note")]
        raise NotComputed("no scale has an alpha in both files" + (f" ({notes[0]})" if notes else ""))
    return MeasureResult(sum(losses.values()) / len(losses), details={"scales": scales, "per_scale": losses})


def _first_note(rows: list[dict]) -> str:
    notes = [r["note"] for r in rows if r.get("note")]
    return f" ({notes[0]})" if notes else ""


def _first_regression_note(regs: list[dict]) -> str:
    notes = [n for r in regs for n in r["notes"]] + [c["note"] for r in regs for c in r["coefficients"] if c.get("note")]
    return f" ({notes[0]})" if notes else ""
