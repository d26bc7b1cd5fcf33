"""Original against protected: interval overlap, "inside the original interval", sign and significance.

Karr, Kohnen, Oganian, Reiter & Sanil's (2006) confidence-interval overlap of an estimate with original
interval (L_o, U_o) and protected interval (L_p, U_p):

    L = max(L_o, L_p),  U = min(U_o, U_p),  J = ½·[(U − L)/(U_o − L_o) + (U − L)/(U_p − L_p)]

J = 1 for identical intervals, 0 when they touch, negative when they are disjoint (not clipped, as synthpop's
``overlap.CI``).  J is undefined — and left out, with a note — when
an interval has zero width or is missing.

"Inside the original interval" is L_o ≤ θ_p ≤ U_o, or θ_p = θ_o: a percentile bootstrap interval of a small
domain can miss its own point estimate, and an estimate the protection left unchanged has lost nothing.

References
----------
Karr, A. F., Kohnen, C. N., Oganian, A., Reiter, J. P. & Sanil, A. P. (2006). A framework for evaluating the
utility of data altered to protect confidentiality. *The American Statistician* 60(3), 224–232.

Examples
--------
>>> ci_overlap(0.0, 2.0, 1.0, 3.0)
0.5
>>> ci_overlap(0.0, 1.0, 2.0, 3.0)
-1.0
>>> ci_overlap(0.0, 1.0, 0.0, 1.0)
1.0
"""

from __future__ import annotations

from typing import Any

SIDE_KEYS = ("value", "se", "lower", "upper", "n", "method")


def ci_overlap(lower_o: float | None, upper_o: float | None, lower_p: float | None, upper_p: float | None) -> float | None:
    """Karr et al.'s J of two intervals; None when either is missing or of zero width."""
    if None in (lower_o, upper_o, lower_p, upper_p):
        return None
    width_o, width_p = upper_o - lower_o, upper_p - lower_p
    if not (width_o > 0 and width_p > 0):
        return None
    if (lower_o, upper_o) == (lower_p, upper_p):
        return 1.0  # exactly, whatever the rounding of the sums below
    overlap = min(upper_o, upper_p) - max(lower_o, lower_p)
    return 0.5 * (overlap / width_o + overlap / width_p)


# ---------------------------------------------------------------------------
# estimates
# ---------------------------------------------------------------------------
def compare_estimates(original: list[dict], protected: list[dict],
                      unavailable: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """One row per estimate key of either file (the original's order first); ``unavailable`` maps the
    estimates the protected file cannot give (a removed variable) to the reason."""
    orig = {r["key"]: r for r in original}
    prot = {r["key"]: r for r in protected}
    keys = list(orig) + [k for k in prot if k not in orig]
    return [_compare_row(k, orig.get(k), prot.get(k), original, protected, unavailable or {}) for k in keys]


def _compare_row(key: str, o: dict | None, p: dict | None, all_o: list[dict], all_p: list[dict],
                 unavailable: dict[str, str]) -> dict[str, Any]:
    first = o or p
    row: dict[str, Any] = {k: first[k] for k in ("key", "estimate", "statistic", "variable", "domain", "category")}
    notes = []
    if o is None:
        o, why = _absent(first, all_o, "original")
        notes.append(why)
    if p is None and first["estimate"] in unavailable:
        notes.append(f"not computed on the protected file: {unavailable[first['estimate']]}")
    elif p is None:
        p, why = _absent(first, all_p, "protected")
        notes.append(why)
    row["original"] = None if o is None else _side(o)
    row["protected"] = None if p is None else _side(p)
    for side, r in (("original", o), ("protected", p)):
        if r is not None and r.get("note"):
            notes.append(f"{side}: {r['note']}")
    vo = None if o is None else o.get("value")
    vp = None if p is None else p.get("value")
    row["difference"] = None if vo is None or vp is None else vp - vo
    row["relative_difference"] = None if vo in (None, 0) or vp is None else (vp - vo) / abs(vo)
    lo, uo = (None, None) if o is None else (o.get("lower"), o.get("upper"))
    row["inside_original_ci"] = None if vp is None or lo is None or uo is None else bool(lo <= vp <= uo or vp == vo)
    if vo is not None and lo is not None and uo is not None and not lo <= vo <= uo:
        notes.append("the original's interval does not contain its own estimate (a skewed bootstrap distribution, "
                     "e.g. in a small domain); an unchanged estimate still counts as inside")
    row["ci_overlap"] = ci_overlap(lo, uo, None if p is None else p.get("lower"), None if p is None else p.get("upper"))
    _seed_groups(row, o, p)
    if row["ci_overlap"] is None and o is not None and p is not None and not notes:
        notes.append("no interval overlap: an interval is missing or has zero width")
    if notes:
        row["note"] = "; ".join(notes)
    return row


def _seed_groups(row: dict, o: dict | None, p: dict | None) -> None:
    """J and "inside" in each independent group of bootstrap replicates (the row's own values for
    linearised estimates, which do not depend on a seed); kept under private keys for the summary."""
    go = (o or {}).get("_groups")
    gp = (p or {}).get("_groups")
    if go is None and gp is None:
        return
    k = len(go or gp)
    go = go or [[(o or {}).get("lower"), (o or {}).get("upper")]] * k
    gp = gp or [[(p or {}).get("lower"), (p or {}).get("upper")]] * k
    vo, vp = (o or {}).get("value"), (p or {}).get("value")
    row["_group_overlap"] = [ci_overlap(a[0], a[1], b[0], b[1]) for a, b in zip(go, gp)]
    row["_group_inside"] = [None if vp is None or a[0] is None else bool(a[0] <= vp <= a[1] or vp == vo) for a in go]


def _side(row: dict) -> dict[str, Any]:
    """One file's figures of an estimate (a proportion's also its category's records, ``n_category``; a mean's or
    total's the records away from the domain's most common value, ``off_mode``)."""
    side = {k: row.get(k) for k in SIDE_KEYS}
    for key in ("n_category", "off_mode", "n_beyond", "n_beyond_interval"):
        if key in row:
            side[key] = row[key]
    return side


def _absent(like: dict, rows: list[dict], which: str) -> tuple[dict | None, str]:
    """The side of an estimate that one file does not have: a proportion 0 where the domain exists there."""
    if like["statistic"] == "proportion":
        same_domain = [r for r in rows if r["estimate"] == like["estimate"] and r["domain"] == like["domain"]]
        if same_domain:
            zero = {"value": 0.0, "se": 0.0, "lower": 0.0, "upper": 0.0, "n": same_domain[0]["n"],
                    "method": same_domain[0]["method"], "n_category": 0}
            return zero, f"category {like['category']!r} is absent from the {which} file (proportion 0)"
    return None, f"the {which} file has no record in this domain"


def estimate_summary(rows: list[dict], replicates: int) -> dict[str, Any]:
    """Counts and means over the estimates, and their spread over independent bootstrap seeds.

    ``seed_spread``: the mean J and the inside share recomputed with each group of replicates r ≡ g
    (mod k) in place of all of them — k independent bootstraps of R/k replicates, so their spread shows how
    much the results depend on the seed (the full set's Monte-Carlo error is about 1/√k of it).  Removes
    the rows' private per-group values.
    """
    overlaps = [r["ci_overlap"] for r in rows if r["ci_overlap"] is not None]
    inside = [r["inside_original_ci"] for r in rows if r["inside_original_ci"] is not None]
    out: dict[str, Any] = {
        "n_estimates": len(rows),
        "n_overlap": len(overlaps),
        "n_inside": len(inside),
        "mean_ci_overlap": sum(overlaps) / len(overlaps) if overlaps else None,
        "inside_share": sum(inside) / len(inside) if inside else None,
    }
    grouped = [r for r in rows if "_group_overlap" in r]
    if grouped:
        k = len(grouped[0]["_group_overlap"])
        fixed_j = [r["ci_overlap"] for r in rows if "_group_overlap" not in r and r["ci_overlap"] is not None]
        fixed_in = [r["inside_original_ci"] for r in rows
                    if "_group_overlap" not in r and r["inside_original_ci"] is not None]
        means, shares = [], []
        for g in range(k):
            js = fixed_j + [r["_group_overlap"][g] for r in grouped if r["_group_overlap"][g] is not None]
            ins = fixed_in + [r["_group_inside"][g] for r in grouped if r["_group_inside"][g] is not None]
            means.append(sum(js) / len(js) if js else None)
            shares.append(sum(ins) / len(ins) if ins else None)
        out["seed_spread"] = {"groups": k, "replicates_per_group": replicates // k, "mean_ci_overlap": means,
                              "inside_share": shares}
    for r in rows:
        r.pop("_group_overlap", None)
        r.pop("_group_inside", None)
    return out


# ---------------------------------------------------------------------------
# regressions
# ---------------------------------------------------------------------------
def compare_regressions(original: list[dict], protected: list[dict], level: float) -> list[dict[str, Any]]:
    """Per regression: fit statistics of both files, R² loss and the coefficient table."""
    return [_compare_regression(o, p, 1 - level) for o, p in zip(original, protected)]


def _compare_regression(o: dict, p: dict, alpha: float) -> dict[str, Any]:
    out: dict[str, Any] = {k: o[k] for k in ("name", "family", "formula")}
    out["where"] = o.get("where")
    out["original"] = _fit_part(o)
    out["protected"] = _fit_part(p)
    notes = [n for n in (o.get("note"), p.get("note")) if n] + list(o.get("notes", [])) + list(p.get("notes", []))
    notes = list(dict.fromkeys(notes))
    out["r2_kind"] = o.get("r2_kind")
    r2o, r2p = o.get("r2"), p.get("r2")
    out["r2_loss"] = None
    if r2o is not None and r2p is not None:
        if r2o != 0:
            out["r2_loss"] = abs(r2p - r2o) / abs(r2o)
        else:
            notes.append("the original's R² is 0, so its relative loss is undefined")
    out["coefficients"] = _coefficients(o.get("coefficients", []), p.get("coefficients", []), alpha)
    out["notes"] = notes
    return out


def _fit_part(r: dict) -> dict[str, Any]:
    keys = ("fitted", "n_records", "n_filtered_out", "n_missing", "n_not_finite", "n_zero_weight", "n_used", "off_mode",
            "weighted", "r2",
            "r2_plain", "deviance_r2", "deviance", "null_deviance", "df_residual", "converged", "references")
    return {k: r[k] for k in keys if k in r}


def _coefficients(orig: list[dict], prot: list[dict], alpha: float) -> list[dict[str, Any]]:
    by_name = {c["name"]: c for c in prot}
    names = [c["name"] for c in orig] + [c["name"] for c in prot if c["name"] not in {x["name"] for x in orig}]
    orig_by = {c["name"]: c for c in orig}
    out = []
    for name in names:
        o, p = orig_by.get(name), by_name.get(name)
        row: dict[str, Any] = {"name": name, "original": _coef(o), "protected": _coef(p)}
        notes = []
        if o is None:
            notes.append("only in the protected file's model")
        if p is None:
            notes.append("not in the protected file's model" if prot else "the protected file's model was not fitted")
        for side, c in (("original", o), ("protected", p)):
            if c is not None and c.get("note"):
                notes.append(f"{side}: {c['note']}")
        if p is not None and p.get("recoded"):
            notes.append("not compared: the protected file recodes this variable's categories")
        comparable = (o is not None and p is not None and not p.get("recoded")
                      and o.get("estimate") is not None and p.get("estimate") is not None)
        row["ci_overlap"] = ci_overlap(o["lower"], o["upper"], p["lower"], p["upper"]) if comparable else None
        row["same_sign"] = (_sign(o["estimate"]) == _sign(p["estimate"])) if comparable else None
        row["same_significance"] = None
        if comparable and o.get("p_value") is not None and p.get("p_value") is not None:
            row["same_significance"] = (o["p_value"] < alpha) == (p["p_value"] < alpha)
        if notes:
            row["note"] = "; ".join(notes)
        out.append(row)
    return out


def _coef(c: dict | None) -> dict[str, Any] | None:
    if c is None:
        return None
    return {k: c.get(k) for k in ("estimate", "se", "lower", "upper", "p_value", "n_records")}


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def regression_summary(regressions: list[dict]) -> dict[str, Any]:
    coefs = [c for r in regressions for c in r["coefficients"]]
    overlaps = [c["ci_overlap"] for c in coefs if c["ci_overlap"] is not None]
    signs = [c["same_sign"] for c in coefs if c["same_sign"] is not None]
    signif = [c["same_significance"] for c in coefs if c["same_significance"] is not None]
    losses = [r["r2_loss"] for r in regressions if r["r2_loss"] is not None]
    return {
        "n_coefficients": len(coefs),
        "n_compared": len(overlaps),
        "mean_ci_overlap": sum(overlaps) / len(overlaps) if overlaps else None,
        "sign_agreement": sum(signs) / len(signs) if signs else None,
        "significance_agreement": sum(signif) / len(signif) if signif else None,
        "mean_r2_loss": sum(losses) / len(losses) if losses else None,
        "n_r2": len(losses),
    }


# ---------------------------------------------------------------------------
# scales
# ---------------------------------------------------------------------------
def compare_scales(original: list[dict], protected: list[dict]) -> list[dict[str, Any]]:
    out = []
    for o, p in zip(original, protected):
        ao, ap = o.get("alpha"), p.get("alpha")
        row = {"name": o["name"], "items": o["items"], "original": o, "protected": p,
               "alpha_loss": abs(ap - ao) / abs(ao) if ao not in (None, 0) and ap is not None else None}
        notes = [f"{side}: {r['note']}" for side, r in (("original", o), ("protected", p)) if r.get("note")]
        if ao == 0:
            notes.append("the original's alpha is 0, so its relative loss is undefined")
        if notes:
            row["note"] = "; ".join(notes)
        out.append(row)
    return out
