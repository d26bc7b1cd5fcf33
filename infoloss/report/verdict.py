"""The verdict: which scenario keeps most information, why, and what each scenario changed.

* :func:`verdict_section` -- one plain sentence naming the scenario(s) that
  keep most information (ties within :data:`~infoloss.report.scores.TIE`
  named as ties), and the table of family scores with their weights and the
  overall score (:mod:`infoloss.report.scores`);
* :func:`changes_section` -- per scenario, in words, what it did to the data,
  from the record-level results (suppressions, changed records, perturbed
  continuous variables) or, for files that are not paired, from the
  distributions;
* :func:`headline_section` -- the headline measures per scenario, each value
  coloured against the other scenarios by its distance from the ideal.
"""

from __future__ import annotations

from typing import Any, Sequence

from markupsafe import Markup

from . import svg
from .glossary import plain
from .numbers import number, percent, weight_percent
from .overview import losses
from .parts import breakable, direction_text, info_positions, join, name_list, value_cell
from .plotdata import Policy
from .scores import TIE, Scores, compute_scores, variable_kinds

SHORT_FAMILY = {
    "record": "record level", "moments": "moments", "tables": "tables", "distributions": "distributions",
    "propensity": "propensity", "gdu": "GDU", "generalisation": "generalisation", "mining": "mining",
    "analyses": "your analyses", "risk": "risk",
}


def scores_of(report: Any, policy: Policy) -> Scores:
    return policy.cached("scores", lambda: compute_scores(report, policy.weights))


def measure_anchor(mid: str) -> str:
    """The id of a measure's entry in "The measures explained"."""
    return f"m-{mid}"


# ---------------------------------------------------------------------------
# the verdict
# ---------------------------------------------------------------------------
def verdict_section(report: Any, policy: Policy) -> Markup:
    sc = scores_of(report, policy)
    return join([verdict_sentence(sc), _record_counts_note(report, policy), score_table(report, sc),
                 _weights_note(sc)])


def _record_counts_note(report: Any, policy: Policy) -> Markup:
    """The scenarios whose files have fewer (or more) records than the original, said beside the verdict.

    The scores compare the records each file has: a file that lost a quarter
    of its records (record suppression, subsampling) can score as high as one
    that kept them all, though every estimate from it is less precise.
    """
    n = int(report.original.get("n_records", 0) or 0)
    differ = [s for s in report.scenarios if n and int(s.n_records) != n]
    if not differ:
        return Markup("")
    items = [Markup("<b>{}</b> has {} {} records than the original ({} for {})").format(
        s.name, percent(abs(int(s.n_records) - n) / n), "fewer" if int(s.n_records) < n else "more",
        policy.count_text(int(s.n_records)), policy.count_text(n)) for s in differ]
    return Markup('<p class="note" id="record-counts">{}. The scores compare the records each file has; a file '
                  "with fewer records also gives wider confidence intervals, which they do not count.</p>").format(
        Markup("; ").join(items))


def verdict_sentence(sc: Scores) -> Markup:
    """One or two sentences: who keeps most information, who loses most and where."""
    names = sc.names
    scored = [i for i in sc.ranking() if sc.overall[i] is not None]
    if not scored:
        return Markup('<p class="verdict">No utility score could be computed (no scoreable measure was computed '
                      "for every scenario); see the measures below.</p>")
    best = sc.tied_with_best()
    o = sc.overall
    if len(names) == 1:
        text = Markup("The one scenario, <b>{}</b>, has an overall score of {} (1 = identical to the "
                      "original)").format(names[0], number(o[0]))
        return Markup('<p class="verdict">{}{}.</p>').format(text, _weakest_family(sc, 0, "; it loses most on {}"))
    if len(best) == 1:
        text = Markup("<b>{}</b> keeps most information: overall score <b>{}</b> of 1").format(
            names[best[0]], number(o[best[0]]))
        runner = [i for i in scored if i != best[0]]
        if runner:
            text += Markup(", ahead of <b>{}</b> ({})").format(names[runner[0]], number(o[runner[0]]))
        text += Markup(".")
    else:
        text = Markup("<b>{}</b> keep most information and are tied: {}.").format(
            name_list([names[i] for i in best]), _tied_scores(sc, best))
    return Markup('<p class="verdict">{}</p>').format(text + _losing_most(sc, scored, best))


def _tied_scores(sc: Scores, tied: list[int]) -> Markup:
    """'A (0.9), B (0.895) and C (0.889), each within 0.01 of the next'."""
    shown = name_list([f"{sc.names[i]} ({number(sc.overall[i])})" for i in tied])
    return Markup("{}, each within {} of the next").format(shown, number(TIE))


def _losing_most(sc: Scores, scored: list[int], best: list[int]) -> Markup:
    """' X loses most (overall score 0.6), mainly on GDU (...).', or the tied last place named as tied."""
    places = sc.places()
    last = sc.tied_at(places[scored[-1]])
    if any(i in best for i in last):
        return Markup("")
    if len(last) == 1:
        worst = last[0]
        return Markup(" <b>{}</b> loses most (overall score {}){}.").format(
            sc.names[worst], number(sc.overall[worst]), _weakest_family(sc, worst))
    return Markup(" <b>{}</b> lose most and are tied: {}.").format(
        name_list([sc.names[i] for i in last]), _tied_scores(sc, last))


def _weakest_family(sc: Scores, i: int, wording: str = ", mainly on {}") -> Markup:
    """Where scenario ``i`` loses most: its lowest family score (nothing when every family is within TIE of 1)."""
    fams = [f for f in sc.families if f.scores and f.scores[i] is not None and f.weight > 0]
    if not fams:
        return Markup("")
    f = min(fams, key=lambda f: f.scores[i])
    if f.scores[i] > 1 - TIE:
        return Markup("")
    return Markup(wording + " (family score {})").format(SHORT_FAMILY.get(f.family, f.family), number(f.scores[i]))


def score_table(report: Any, sc: Scores) -> Markup:
    """Rows: scenarios from best to worst; columns: place, overall score, one per family (weight in the heading)."""
    fams = [f for f in sc.families if f.measures]
    head = join(Markup('<th scope="col" class="fam"><a href="#family-{}">{}</a><br><small>weight {}</small></th>')
                .format(f.family, SHORT_FAMILY.get(f.family, f.family), weight_percent(f.weight)) for f in fams)
    places = sc.places()
    best_in = {f.family: _best(f.scores) for f in fams}
    best_overall = _best(sc.overall)
    rows = []
    for i in sc.ranking():
        overall = sc.overall[i]
        place = places[i]
        tied = place is not None and places.count(place) > 1
        place_text = "–" if place is None else f"{place}{' (tie)' if tied else ''}"
        cells = join(_score_cell(f.scores[i], i in best_in[f.family]) for f in fams)
        rows.append(Markup('<tr><td class="num">{}</td><th scope="row">{} {}</th>{}{}</tr>').format(
            place_text, svg.marker_svg(i), breakable(sc.names[i]), _overall_cell(overall, i in best_overall), cells))
    return Markup(
        # the caption outside the scrolling box: inside it, it was as wide as the table and cut at the box's edge
        '<p class="note" id="scores-caption">Utility scores from 0 (all information lost) to 1 '
        "(identical to the original); higher is better. The overall score is the weighted mean of the family "
        "scores. ✓: the best in its column (with the scores within 0.01 of it); a column whose scores are all "
        "within 0.01 of each other has none.</p>"
        '<div class="scroll" tabindex="0"><table class="scores" aria-describedby="scores-caption">'
        '<thead><tr><th scope="col">place</th><th scope="col">scenario</th>'
        '<th scope="col">overall</th>{}</tr></thead><tbody>{}</tbody></table></div>').format(head, join(rows))


def _best(values: Sequence[float | None]) -> set[int]:
    ok = [v for v in values if v is not None]
    if len(ok) < 2 or max(ok) - min(ok) < TIE:
        return set()
    top = max(ok)
    return {i for i, v in enumerate(values) if v is not None and top - v < TIE}


def _score_colour(v: float) -> str:
    return svg.ramp(("#f4a582", "#fdd0a2", "#f7f7d0", "#c7e9c0"), min(max(v, 0.0), 1.0) ** 4)


def _score_cell(v: float | None, best: bool) -> Markup:
    if v is None:
        return Markup('<td class="num nc">–</td>')
    mark = Markup(' <span class="mark">✓</span>') if best else Markup("")
    return Markup('<td class="num" style="background:{}">{}{}</td>').format(_score_colour(v), number(v), mark)


def _overall_cell(v: float | None, best: bool) -> Markup:
    if v is None:
        return Markup('<td class="num nc">–</td>')
    mark = Markup(' <span class="mark">✓</span>') if best else Markup("")
    return Markup('<td class="num overall"><span class="bar" style="width:{}px" aria-hidden="true"></span>'
                  "<b>{}</b>{}</td>").format(round(50 * v), number(v), mark)


def _weights_note(sc: Scores) -> Markup:
    fams = [f for f in sc.families if f.measures]
    how = ("the weights you gave" if sc.weights_given else
           "each family weighs the share of the analysed variables its measures speak about")
    used = join(Markup("<li><b>{}</b> ({}): {}</li>").format(
        SHORT_FAMILY.get(f.family, f.family), weight_percent(f.weight),
        Markup(", ").join(Markup('<a href="#{}">{}</a>').format(measure_anchor(m), m) for m in f.measures))
        for f in fams)
    left = [(m, why) for f in sc.families for m, why in f.left_out.items()]
    left_html = Markup("")
    if left:
        safe = any(why.startswith("withheld") for _, why in left)
        left_html = Markup("<p>Not in the scores: {}.{}</p>").format(
            "; ".join(f"{m} ({why})" for m, why in left),
            " A family's score is then that of its other headline measures (a family none of whose headline "
            "measures can be scored is not scored), so the safe report's scores can differ from those of the full "
            "report."
            if safe else "")
    return Markup(
        '<details class="how"><summary>How the scores are made</summary><p>Each measure\'s value becomes a score '
        "from 0 to 1: 1 at its ideal (the value for identical files), 0 at the far end of its range, linear in "
        "between; a measure without an upper end needs a scale (the loss that counts as complete). A family's "
        "score is the mean of its headline measures' scores, each weighted by the number of variables it speaks "
        "about. Weights of the families: {}. Risk measures are not part of this utility score. Ranked by overall "
        "score, a scenario within {} of the next better one shares its place (a tie).</p><ul>{}</ul>{}</details>").format(how, number(TIE), used, left_html)


# ---------------------------------------------------------------------------
# what each scenario changed
# ---------------------------------------------------------------------------
def changes_section(report: Any, policy: Policy) -> Markup | None:
    if not report.scenarios:
        return None
    items = join(Markup("<li>{}</li>").format(scenario_changes(report, i, policy))
                 for i in range(len(report.scenarios)))
    return Markup('<ul class="changes">{}</ul>').format(items)


def scenario_changes(report: Any, i: int, policy: Policy) -> Markup:
    """What scenario ``i`` did to the data, in words."""
    s = report.scenarios[i]
    n = int(report.original.get("n_records", 0))
    kinds = variable_kinds(report)
    parts: list[Markup] = []
    if s.n_records != n:
        parts.append(Markup("has {} records (the original has {})").format(
            policy.count_text(s.n_records), policy.count_text(n)))
    removed = _removed(s)
    if removed:
        parts.append(Markup("removed {}").format(name_list(removed)))
    if not s.paired:
        parts.append(_unpaired_text(report, i, policy))
    else:
        parts += _paired_text(report, s, n, kinds, removed, policy)
    body = Markup("; ").join(parts) if parts else Markup("changed nothing")
    return Markup("{} <b>{}</b> {}.").format(svg.marker_svg(i), s.name, body)


def _removed(s: Any) -> list[str]:
    variables = (s.aggregates or {}).get("variables", {})
    return [v for v, a in variables.items() if a.get("removed")]


def _unpaired_text(report: Any, i: int, policy: Policy) -> Markup:
    names, _, table = losses(report, policy)
    moved = sorted((n for n in names if (table[n][i].value or 0) > 0), key=lambda n: -table[n][i].value)
    text = Markup("is not paired with the original record by record, so what changed in each record is unknown")
    if moved:
        text += Markup("; its distributions differ most for {}").format(
            ", ".join(f"{n} ({table[n][i].text})" for n in moved[:3]))
    else:
        text += Markup("; its distributions match the original's")
    return text


def _paired_text(report: Any, s: Any, n: int, kinds: dict[str, str], removed: list[str],
                 policy: Policy) -> list[Markup]:
    sup = _values(s, "suppressions")
    chg = _values(s, "records_changed")
    out: list[Markup] = []
    if sup is not None:
        withheld = [v for v, c in sup.items() if c is None]  # safe mode: null in the safe JSON
        shown = {v: c for v, c in sup.items() if c is not None}
        total = s.measures["suppressions"].value
        if withheld:  # no total: it less the counts shown would give the withheld ones back
            shown_text = _top(shown, policy, n=None, hidden=len(withheld))
            out.append(Markup("suppressed values {}").format(shown_text if shown_text.startswith("in ") else
                                                              f"({shown_text})"))
        elif total is None:
            out.append(Markup("suppressed {}").format(_withheld_count(s.measures["suppressions"], "values", policy)))
        elif total > 0:
            out.append(Markup("suppressed {} {} ({})").format(
                policy.count_text(total), "value" if total == 1 else "values", _top(sup, policy, n=None)))
    generalised = _generalised_levels(s)
    if generalised:
        out.append(Markup("generalised {}").format(name_list(
            [_generalised_text(v, level, height) for v, (level, height) in generalised.items()])))
    if chg is None:
        return out + [Markup("(changed records were not counted: records_changed was not run)")]
    rec = s.measures["records_changed"].details.get("records_with_change")
    if rec is None and "records_with_change" in s.measures["records_changed"].details:
        out.append(Markup("changed at least one value in a number of records withheld in safe mode"))
    elif rec:
        share = f" ({percent(rec / n)} of the records)" if policy.count_ok(int(rec)) and n else ""
        out.append(Markup("changed at least one value in {} records{}").format(policy.count_text(rec), share))
    sup_of = sup or {}
    # safe mode: a category change whose count is withheld, or is a shown count less a withheld one, is only
    # counted; a variable whose changes and suppressions are both withheld is left to the suppressions
    sup_hidden = {v for v, c in sup_of.items() if c is None}
    hidden_recoded = [v for v, c in chg.items() if kinds.get(v) == "categorical" and v not in removed
                      and v not in generalised and ((c is None) != (v in sup_hidden))]
    recoded = {v: c - (sup_of.get(v) or 0.0) for v, c in chg.items() if kinds.get(v) == "categorical"
               and c is not None and v not in sup_hidden}
    recoded = {v: c for v, c in recoded.items() if c > 0 and v not in removed and v not in generalised}
    if hidden_recoded:
        out.append(Markup("changed the category of {}").format(
            _values_in(_top(recoded, policy, n=n, hidden=len(hidden_recoded)))))
        recoded = {}
    if recoded:
        out.append(Markup("changed the category of {}").format(_top(recoded, policy, n=n)))
    out.append(_continuous_text(s, chg, sup or {}, kinds, [*removed, *generalised], n, policy))
    return [p for p in out if p]


def _generalised_text(variable: str, level: float, height: float | None) -> str:
    """'edu to level 1 of 2', or 'edu (mean level 0.302 of 2)' when its values are at several levels."""
    of = f" of {number(height)}" if height else ""
    if float(level).is_integer():
        return f"{variable} to level {number(level)}{of}"
    return f"{variable} (mean level {number(level)}{of})"


def _values_in(text: str) -> str:
    """'values in 2 variables (...)' where :func:`_top` names no variable ('in 2 variables (...)')."""
    return f"values {text}" if text.startswith("in ") else text


def _generalised_levels(s: Any) -> dict[str, tuple[float, float | None]]:
    """The variables a hierarchy generalised (level above 0), with their level (the mean level when values are at
    several) and the hierarchy's height, from the ``height`` measure; empty when it was not computed."""
    result = s.measures.get("height")
    if result is None or not result.by_variable:
        return {}
    heights = (result.details or {}).get("heights", {}) or {}
    return {v: (level, heights.get(v)) for v, level in result.by_variable.items()
            if level is not None and level > 0}


def _continuous_text(s: Any, chg: dict, sup: dict, kinds: dict, removed: list[str], n: int,
                     policy: Policy) -> Markup:
    cont = [v for v, k in kinds.items() if k == "continuous" and v not in removed]
    if not cont:
        return Markup("")
    hidden = [v for v in cont if (v in chg and chg[v] is None) != (v in sup and sup[v] is None)]
    moved = {v: (chg.get(v) or 0.0) - (sup.get(v) or 0.0) for v in cont if v not in hidden}
    moved = {v: c for v, c in moved.items() if c > 0}
    if hidden:  # safe mode: some counts withheld
        il1s = s.measures.get("il1s")
        size = Markup(" (IL1s {})").format(number(il1s.value)) if il1s is not None and il1s.value is not None \
            else Markup("")
        return Markup("perturbed {}{}").format(_values_in(_top(moved, policy, n=n, hidden=len(hidden))), size)
    if not moved:
        return Markup("left the {} continuous variable{} untouched").format(
            len(cont), "" if len(cont) == 1 else "s")
    il1s = s.measures.get("il1s")
    size = Markup(" (IL1s {})").format(number(il1s.value)) if il1s is not None and il1s.value is not None \
        else Markup("")
    what = "the continuous variable" if len(cont) == 1 else f"all {len(cont)} continuous variables"
    if len(moved) == len(cont) and all(c >= 0.995 * n for c in moved.values()):
        return Markup("perturbed every value of {}{}").format(what, size)
    if len(moved) == len(cont) and n and all(policy.count_ok(int(c)) for c in moved.values()):
        lo, hi = min(moved.values()) / n, max(moved.values()) / n
        return Markup("perturbed {} (in {}–{} of the records){}").format(what, percent(lo), percent(hi), size)
    return Markup("perturbed {}{}").format(_top(moved, policy, n=n), size)


def _values(s: Any, mid: str) -> dict[str, float] | None:
    r = s.measures.get(mid)
    return None if r is None or r.by_variable is None else dict(r.by_variable)


def _withheld_count(result: Any, what: str, policy: Policy) -> Markup:
    """'fewer than 5 values' when the safe JSON withholds a small count, else 'values (number withheld ...)'."""
    reason = getattr(result, "withheld", None) or ""
    if f"count of fewer than {policy.min_cell}" in reason:
        return Markup("fewer than {} {}").format(policy.min_cell, what)
    return Markup("{} (their number is withheld in safe mode)").format(what)


def _top(counts: dict[str, float], policy: Policy, n: int | None, k: int = 3, hidden: int = 0) -> str:
    """'AGE 386, EDUC1 41 and 2 more variables' (shares of ``n`` records when given).

    ``hidden`` (safe mode): variables whose counts are withheld; they are only counted among the "more
    variables", and no total is given, so that no withheld count is a total less the counts shown.
    """
    ranked = sorted((v for v, c in counts.items() if c > 0), key=lambda v: -counts[v])

    def one(v: str) -> str:
        c = counts[v]
        if n and policy.count_ok(int(round(c))):
            return f"{v}: {percent(c / n)} of records"
        return f"{v}: {policy.count_text(c)}"

    shown = [one(v) for v in ranked[:k]]
    more = max(len(ranked) - k, 0) + hidden
    plural = "s" if more > 1 else ""
    note = f" (count{plural} withheld in safe mode)" if hidden else ""
    if not shown:
        return f"in {more} variable{plural}{note}"
    return ", ".join(shown) + (f" and {more} more variable{plural}{note}" if more > 0 else "")


# ---------------------------------------------------------------------------
# headline measures
# ---------------------------------------------------------------------------
def headline_section(report: Any, policy: Policy) -> Markup | None:
    from .summary import headline_ids, measure_rows

    rows = measure_rows(report, headline_ids(report), policy.cached("reason", lambda: (lambda r: r)))
    if not rows:
        return None
    return Markup('<p class="note">Each value is coloured against the other scenarios on its row, by its distance '
                  "from the measure's ideal: green best (✓ best) to orange worst; no colour: all equal. Click a "
                  "measure for what it means, its formula and reference.</p>{}").format(
        measures_table(report, rows, policy))


def _withheld_text(info: Any, reason: str, policy: Policy) -> str:
    """A withheld value as printed: "fewer than N" when the JSON withholds it as a small count, else "withheld"."""
    from .glossary import is_count

    if is_count(info) and f"count of fewer than {policy.min_cell} records" in reason:
        return f"fewer than {policy.min_cell}"
    return "withheld"


def measures_table(report: Any, rows: Sequence[Any], policy: Policy) -> Markup:
    """Measures (rows) × scenarios: value, direction and range, the measure's plain meaning."""
    from .glossary import is_count

    head = join(Markup('<th scope="col" class="scen">{}<span>{}</span></th>').format(svg.marker_svg(i), breakable(s.name))
                for i, s in enumerate(report.scenarios))
    body = []
    for row in rows:
        info = row.info
        finite = [abs(v) for v in row.values if v is not None]
        scale = max(finite + [abs(b) for b in info.range if b is not None] + [1.0])
        positions = info_positions(info, row.values)
        counts = is_count(info) and policy.safe
        withheld = row.withheld or [None] * len(row.values)
        cells = join(value_cell(v, p, r, scale=scale, withheld=w,
                                text=(_withheld_text(info, w, policy) if w is not None else
                                      policy.count_text(v) if counts and v is not None else None))
                     for v, p, r, w in zip(row.values, positions, row.reasons, withheld))
        body.append(Markup(
            '<tr><th scope="row" class="measure"><a href="#{}">{}</a><div class="desc">{}</div></th>'
            '<td class="dircol">{}<br>range {}</td>{}</tr>').format(
            measure_anchor(info.id), info.id, plain(info), direction_text(info), info.range_text, cells))
    return Markup('<div class="scroll" tabindex="0"><table class="measures"><thead><tr><th scope="col">measure</th>'
                  '<th scope="col">better · range</th>{}</tr></thead><tbody>{}</tbody></table></div>').format(
        head, join(body))

