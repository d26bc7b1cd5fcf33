"""The analyses section of the report: the user's regressions and estimates, original against each scenario.

- One chart per regression in the manner of the Practice Guide's Fig. 14 (the Mincer equation's gender
  coefficient under several methods): a row per coefficient, the original's confidence interval as a grey
  band, each scenario's estimate and interval in its colour.  Coefficients live on different scales, so
  each row is drawn in units of the original's standard error around the original's estimate; the tooltips
  give the coefficients themselves.
- A table per regression with the fit (n, R² or pseudo-R², the loss) and the notes.
- The estimates table: per estimate and domain the original's value and interval, a small interval chart
  (original band, scenarios' intervals), and per scenario the value, J and whether it lies inside.
- Cronbach's alpha per scale.

Everything comes from each scenario's ``analyses`` block (docs/analyses.md).  Safe mode shows no estimate
of fewer than ``min_cell`` records and no minimum or maximum (quantiles 0 and 1), and rounds the original's
statistics to 3 significant digits.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from markupsafe import Markup

from . import svg
from .families import data_table
from .parts import fmt, join
from .plotdata import Policy

BAND = "#e3e3e3"


def analyses_section(report: Any, policy: Policy) -> Markup:
    """The section's HTML, empty when no scenario has an analyses block."""
    blocks = [(i, s) for i, s in enumerate(report.scenarios) if s.analyses]
    if not blocks:
        return Markup("")
    first = blocks[0][1].analyses
    level = first["ci"]["level"]
    parts = [Markup('<p class="note">{}</p>').format(_intro(first))]  # under the section's heading
    parts += [_regression(k, blocks, level, policy) for k in range(len(first["regressions"]))]
    if first["estimates"]:
        parts.append(_estimates(blocks, level, policy))
    if first.get("not_computed"):
        parts.append(Markup('<p class="note">Estimates not computed: {}.</p>').format(Markup("; ").join(
            Markup("<b>{}</b>: {}").format(label, why) for label, why in first["not_computed"].items())))
    if first["scales"]:
        parts.append(_scales(blocks))
    return join(parts)


def _intro(block: dict) -> str:
    ci = block["ci"]
    method = "linearisation or bootstrap (auto)" if ci["method"] == "auto" else "bootstrap"
    return (f"{ci['level']:.0%} confidence intervals by {method}, {ci['replicates']} bootstrap replicates "
            f"(seed {ci['seed']}); design of the original: {block['design']['original']}. J is Karr et al.'s "
            "interval overlap: 1 for identical intervals, 0 when they touch, negative when they are disjoint.")


def _legend(blocks: Sequence) -> Markup:
    keys = [Markup('<span class="key"><span class="swatch" style="background:{}"></span>original interval</span>')
            .format(BAND)]
    keys += [Markup('<span class="key">{}{}</span>').format(svg.marker_svg(i), s.name) for i, s in blocks]
    return Markup('<div class="legend">{}</div>').format(join(keys))


# ---------------------------------------------------------------------------
# regressions
# ---------------------------------------------------------------------------
def _regression(k: int, blocks: Sequence, level: float, policy: Policy) -> Markup:
    regs = [(i, s.name, s.analyses["regressions"][k]) for i, s in blocks]
    first = regs[0][2]
    rows = []
    for coef in first["coefficients"]:
        o = coef["original"]
        if not o or o.get("estimate") is None or not o.get("se"):
            continue
        scen = []
        for i, name, reg in regs:
            scen.append((name, i, _interval(_same_coefficient(reg, coef))))
        rows.append((coef["name"], _interval(o), scen, o["se"]))
    chart = _coefficient_chart(rows, level, label=f"coefficients of {first['name']}") if rows else Markup("")
    caption = (f"Grey band: the original's {level:.0%} interval; markers and lines: each scenario's estimate and "
               "interval, in the original's standard errors around the original estimate (the values: hover, or "
               "the data below).")
    head = Markup("<h4>Regression {} <small>({}, {})</small></h4><p class=\"note\"><code>{}</code>{}</p>").format(
        first["name"], first["family"], first["r2_kind"] or "", first["formula"],
        Markup(" where <code>{}</code>").format(first["where"]) if first.get("where") else "")
    figure = Markup('<figure class="chart wide">{}{}<figcaption>{}</figcaption>{}</figure>').format(
        _legend(blocks), chart, caption, _coefficient_data(rows, [name for _, name, _ in regs], level)) if rows \
        else Markup('<p class="note">No coefficient to draw.</p>')
    return join([head, figure, _fit_table(regs, policy), _coefficient_notes(regs)])


def _coefficient_text(t: tuple[float, float, float] | None) -> str:
    """An estimate and its interval, ``1.23 [0.98, 1.48]``, printed by the page's number rule."""
    return "–" if t is None else f"{fmt(t[1])} [{fmt(t[0])}, {fmt(t[2])}]"


def _coefficient_data(rows: list, names: list[str], level: float) -> Markup:
    """The coefficient chart's numbers (its text alternative): each term's estimate and interval per file."""
    body = [[str(name), _coefficient_text(o)] + [_coefficient_text(t) for _, _, t in sc] for name, o, sc, _ in rows]
    return data_table(["term", "original"] + names, body,
                      summary=f"data: estimates [{level:.0%} interval] per file")


def _same_coefficient(reg: dict, coef: dict) -> dict | None:
    """The protected side of ``coef`` in a scenario's regression ``reg``: the coefficient of that name whose
    original side is the same (a scenario whose file lacks a reference category refits the original on another
    reference, and its coefficients then mean something else)."""
    def same(a: dict | None, b: dict | None) -> bool:  # the same up to rounding (another reference's fit)
        values = [(x.get(k), y.get(k)) for x, y in [(a or {}, b or {})] for k in ("estimate", "se")]
        return all(u == v or (isinstance(u, float) and isinstance(v, float) and math.isclose(u, v, rel_tol=1e-9))
                   for u, v in values)

    match = [c for c in reg["coefficients"] if c["name"] == coef["name"] and same(c["original"], coef["original"])]
    return match[0]["protected"] if match else None


def _interval(side: dict | None) -> tuple[float, float, float] | None:
    if not side or side.get("estimate") is None or side.get("lower") is None:
        return None
    return side["lower"], side["estimate"], side["upper"]


def _coefficient_chart(rows: list, level: float, *, label: str, width: float = 660) -> Markup:
    """Rows of (name, original (lo, est, hi), [(scenario, its index, (lo, est, hi) or None)], original SE).

    Each scenario is drawn in its colour and marker shape (:func:`svg.marker`), as in the other charts.

    The chart is ``width`` pixels wide (the page's width, so the page never
    shrinks it and its text stays 11 px): a term name wider than the label
    column wraps onto several lines (before ``[T.``, after spaces and
    underscores), with the full name as its tooltip; the plot area keeps
    at least :data:`_PLOT_MIN` pixels.
    """
    names_w = svg.label_column([str(r[0]) for r in rows], cap=min(svg.LABEL_CAP, width - 30 - _PLOT_MIN))
    left = 14 + names_w
    width = max(width, left + 16 + _PLOT_MIN)
    lines = [svg.wrap_label(str(r[0]), names_w) for r in rows]
    k = max(len(r[2]) for r in rows)
    base_h = 10 + 8 * (k + 1)
    heights = [max(base_h, svg.LINE_HEIGHT * len(ls) + 8) for ls in lines]
    top = 8
    ys = [top + sum(heights[:r]) for r in range(len(rows))]
    bottom = top + sum(heights)
    height = bottom + 36

    def unit(t: tuple, o_est: float, se: float) -> tuple[float, float, float]:
        return tuple((v - o_est) / se for v in t)  # type: ignore[return-value]

    spans = [abs(v) for _, o, sc, se in rows for t in [o] + [s[2] for s in sc] if t for v in unit(t, o[1], se)
             if math.isfinite(v)]
    m = max(spans + [2.5]) * 1.08
    sx = svg.Scale(-m, m, left, width - 16)
    out = svg.x_axis(sx, bottom, svg.nice_ticks(-m, m, 6), grid_to=top,
                     fmt=lambda t: f"{t:+g}" if t else "0")
    out.append(svg.line(sx(0), top, sx(0), bottom, svg.GREY))
    for r, (name, o, sc, se) in enumerate(rows):
        y0 = ys[r] + (heights[r] - base_h) / 2 + 5
        out.append(svg.label_lines(left - 6, y0 + base_h / 2 - 1, lines[r], full=name))
        lo, _, hi = unit(o, o[1], se)
        out.append(svg.rect(sx(lo), y0, sx(hi) - sx(lo), base_h - 10, BAND,
                            title=f"{name}: original {_coefficient_text(o)}"))
        for s, (scen, index, t) in enumerate(sc):
            if not t:
                continue
            y = y0 + 6 + s * 8
            a, b, c = unit(t, o[1], se)
            col = svg.colour(index)
            out.append(svg.line(sx(a), y, sx(c), y, col, 1.6))
            out.append(svg.marker(index, sx(b), y, 3.4, col, title=f"{scen}: {_coefficient_text(t)}"))
    out.append(svg.text((left + width - 16) / 2, height - 5, "difference from the original estimate, in original "
                        "standard errors", anchor="middle", size=svg.FONT - 1, fill=svg.GREY))
    return svg.svg(width, height, out, label=label)


#: the narrowest plot area of the coefficient chart, in pixels
_PLOT_MIN = 320


def _fit_table(regs: list, policy: Policy) -> Markup:
    first = regs[0][2]
    fits = [first["original"]] + [reg["protected"] for _, _, reg in regs]
    zero_weight = any("n_zero_weight" in fit and fit["n_zero_weight"] != 0 for fit in fits)  # None: withheld
    keys = _LEFT_OUT + (("n_zero_weight",) if zero_weight else ())
    parts = " / ".join(_LEFT_OUT_NAMES[k] for k in keys)
    head = Markup("<tr><th scope=col>file</th><th scope=col>records used</th><th scope=col>left out ({})</th>"
                  "<th scope=col>{}</th><th scope=col>R² loss</th><th scope=col>same sign</th><th scope=col>same significance</th><th scope=col>mean J</th></tr>").format(
        parts, first["r2_kind"] or "fit")
    rows = [_fit_row("original", first["original"], None, policy, keys)]
    for _, name, reg in regs:
        rows.append(_fit_row(name, reg["protected"], reg, policy, keys))
    return Markup('<div class="scroll" tabindex="0"><table class="measures analyses"><thead>{}</thead><tbody>{}</tbody></table></div>').format(head, join(rows))


#: the counts of records a regression leaves out, and their names in the fit table's header
_LEFT_OUT = ("n_filtered_out", "n_missing", "n_not_finite")
_LEFT_OUT_NAMES = {"n_filtered_out": "where", "n_missing": "missing", "n_not_finite": "not finite",
                   "n_zero_weight": "weight 0"}


def _fit_row(name: str, fit: dict, reg: dict | None, policy: Policy, keys: tuple[str, ...] = _LEFT_OUT) -> Markup:
    if not fit.get("fitted", False):
        return Markup('<tr><th scope=row>{}</th><td class="nc" colspan="7">not fitted</td></tr>').format(name)
    hidden = policy.safe and any(k in fit and fit[k] is None for k in keys)  # withheld in the safe JSON

    def count(key: str) -> str:
        v = fit.get(key, 0)
        return "withheld" if v is None and policy.safe else str(v)

    left = " / ".join(count(k) for k in keys)
    # a withheld count left out would be the file's records less the others and the records used
    used = "withheld" if hidden or (policy.safe and "n_used" in fit and fit["n_used"] is None) else fmt(fit.get("n_used"))
    cells = [used, left, fmt(policy.number(fit.get("r2")))]
    if reg is None:
        cells += ["", "", "", ""]
    else:
        coefs = reg["coefficients"]
        cells += [fmt(reg.get("r2_loss")), _share([c["same_sign"] for c in coefs]),
                  _share([c["same_significance"] for c in coefs]), fmt(_mean([c["ci_overlap"] for c in coefs]))]
    return Markup("<tr><th scope=row>{}</th>{}</tr>").format(name, join(Markup('<td class="num">{}</td>').format(c) for c in cells))


def _coefficient_notes(regs: list) -> Markup:
    notes = []
    for _, name, reg in regs:
        notes += [Markup("<li>{}: {}</li>").format(name, n) for n in reg.get("notes", [])]
        notes += [Markup("<li>{}, <code>{}</code>: {}</li>").format(name, c["name"], c["note"])
                  for c in reg["coefficients"] if c.get("note")]
    if not notes:
        return Markup("")
    return Markup('<details class="note"><summary>{} notes</summary><ul>{}</ul></details>').format(len(notes),
                                                                                                 join(notes))


# ---------------------------------------------------------------------------
# estimates
# ---------------------------------------------------------------------------
def _estimates(blocks: Sequence, level: float, policy: Policy) -> Markup:
    first = blocks[0][1].analyses["estimates"]
    per = [{r["key"]: r for r in s.analyses["estimates"]} for _, s in blocks]
    head = join(Markup('<th scope=col class="scen" colspan="2"><span class="swatch" style="background:{}"></span>{}</th>')
                .format(svg.colour(i), s.name) for i, s in blocks)
    sub = join(Markup("<th scope=col>value</th><th scope=col>J</th>") for _ in blocks)
    body = []
    hidden = 0
    for row in first:
        if not _showable(row, policy):
            hidden += 1
            continue
        o = row["original"] or {}
        cells = [Markup('<td class="num">{}</td><td class="num">{}</td>').format(
            fmt(policy.number(o.get("value"))), _interval_text(o, policy))]
        cells.append(Markup("<td>{}</td>").format(_mini_chart(row, blocks, per)))
        for scenario_rows in per:
            r = scenario_rows.get(row["key"]) or {}
            p = r.get("protected") or {}
            inside = r.get("inside_original_ci")
            mark = "" if inside is None else ("✓" if inside else "✗")
            withheld = policy.safe and "n" in p and p["n"] is None and p.get("value") is None
            shown = "withheld" if withheld else fmt(p.get("value"))
            cells.append(Markup('<td class="num" title="{}">{} {}</td><td class="num">{}</td>').format(
                r.get("note", ""), shown, mark, fmt(r.get("ci_overlap"))))
        label = row["estimate"] + ("" if row["category"] is None else f" = {row['category']}")
        body.append(Markup("<tr><th scope=row>{}</th><td>{}</td>{}</tr>").format(label, row["domain"], join(cells)))
    table = Markup('<div class="scroll" tabindex="0"><table class="measures analyses"><thead><tr><th scope=col>estimate</th><th scope=col>domain</th><th scope=col>original</th>'
                   "<th scope=col>{:.0%} interval</th><th scope=col>intervals</th>{}</tr><tr><th scope=col colspan=\"5\"></th>{}</tr></thead>"
                   "<tbody>{}</tbody></table></div>").format(level, head, sub, join(body))
    note = ("✓: the scenario's estimate lies inside the original's interval; J: interval overlap. Small chart: the "
            "original's interval as a grey band, each scenario's interval in its colour.")
    if hidden:
        note += (f" Safe mode: {hidden} estimates are hidden: of fewer than {policy.min_cell} records, minima and "
                 "maxima, shares standing for fewer records, and those that would give a hidden one back (by "
                 "subtraction, or beside the cells the safe JSON's tables suppress).")
    return Markup('<h4>Estimates</h4><p class="note">{}</p>{}').format(note, table)


def _showable(row: dict, policy: Policy) -> bool:
    """In safe mode the page shows what the safe JSON keeps (it reads the safe JSON, :mod:`.safe_view`): a row
    whose original estimate is withheld there (a domain or a share of fewer than ``min_cell`` records, an
    extreme) is left out; one whose count alone is withheld (beside a withheld domain) shows its estimate."""
    if not policy.safe:
        return True
    o = row["original"] or {}
    return not ("n" in o and o["n"] is None and o.get("value") is None)


def _interval_text(side: dict, policy: Policy) -> str:
    if side.get("lower") is None:
        return "–"
    return f"[{fmt(policy.number(side['lower']))}, {fmt(policy.number(side['upper']))}]"


def _mini_chart(row: dict, blocks: Sequence, per: list[dict], width: float = 130) -> Markup:
    def drawn(side: dict | None) -> bool:  # an estimate with its interval (a side may lack its value or a bound)
        return bool(side) and all(isinstance(side.get(k), (int, float)) and math.isfinite(side[k])
                                  for k in ("lower", "upper", "value"))

    o = row["original"] or {}
    intervals = [(svg.colour(i), (scen.get(row["key"]) or {}).get("protected")) for (i, _), scen in zip(blocks, per)]
    intervals = [(col, p if drawn(p) else None) for col, p in intervals]
    if not drawn(o):
        return Markup("")
    ends = [v for side in [o] + [p for _, p in intervals if p] for v in (side["lower"], side["upper"], side["value"])]
    lo, hi = min(ends), max(ends)
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0) * 1e-6
    sx = svg.Scale(lo, hi, 3, width - 3)
    height = 8 + 5 * len(intervals)
    out = [svg.rect(sx(o["lower"]), 1, max(sx(o["upper"]) - sx(o["lower"]), 1), height - 2, BAND)]
    for k, (col, p) in enumerate(intervals):
        if not p:
            continue
        y = 5 + 5 * k
        out.append(svg.line(sx(p["lower"]), y, sx(p["upper"]), y, col, 2))
        out.append(svg.line(sx(p["value"]), y - 2, sx(p["value"]), y + 2, col, 2))
    return svg.svg(width, height, out, label=f"intervals of {row['key']}", cls="chart mini")


# ---------------------------------------------------------------------------
# scales
# ---------------------------------------------------------------------------
def _scales(blocks: Sequence) -> Markup:
    first = blocks[0][1].analyses["scales"]
    head = join(Markup("<th scope=col>{}</th><th scope=col>loss</th>").format(s.name) for _, s in blocks)
    rows = []
    for k, scale in enumerate(first):
        cells = [Markup('<td class="num">{}</td>').format(fmt(scale["original"].get("alpha")))]
        for _, s in blocks:
            other = s.analyses["scales"][k]
            cells.append(Markup('<td class="num">{}</td><td class="num">{}</td>').format(
                fmt(other["protected"].get("alpha")), fmt(other.get("alpha_loss"))))
        rows.append(Markup("<tr><th scope=row>{}</th><td>{}</td>{}</tr>").format(scale["name"], ", ".join(scale["items"]),
                                                                     join(cells)))
    return Markup("<h4>Scales: Cronbach's alpha</h4><div class=\"scroll\" tabindex=\"0\"><table class=\"measures analyses\"><thead><tr><th scope=col>scale</th>"
                  "<th scope=col>items</th><th scope=col>original</th>{}</tr></thead><tbody>{}</tbody></table></div>").format(head, join(rows))


def _share(values: list) -> str:
    kept = [v for v in values if v is not None]
    return fmt(sum(kept) / len(kept)) if kept else "–"


def _mean(values: list) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None
