"""Guidance on the page: the "how to read this report" box and "The measures explained".

"The measures explained" has one entry per measure run (anchor ``m-<id>``,
the target of every measure name on the page): what it says in plain words,
which value is best, its range, the formula and the references -- all from
the registry and the measure's docstring (:mod:`infoloss.report.glossary`).
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from ..registry import FAMILIES, get
from .glossary import formula_latex, latex_html, plain, reference
from .parts import direction_text, join
from .plotdata import Policy
from .verdict import measure_anchor


def how_to_read(safe: bool, min_cell: int) -> Markup:
    """The box at the top of the page."""
    mode = (f"<p>This is the safe-to-share version: no count below {min_cell} records is shown.</p>" if safe else "")
    return Markup(
        '<details class="howto" open><summary>How to read this report</summary><ol>'
        "<li><b>Verdict</b>: the scenarios ranked by an overall utility score from 0 (all information lost) to 1 "
        "(identical to the original), with the score of each family of measures and its weight. Scores closer "
        "than 0.01 are ties.</li>"
        "<li><b>What each scenario changed</b>: in words, from the record-level results.</li>"
        "<li><b>Overview</b>: one row per variable, one column per scenario; darker cells lost more. Sort by any "
        "column; click a variable for its plots.</li>"
        "<li><b>Headline measures</b> and <b>the families</b>: every measure's value per scenario. Each value is "
        "coloured against the other scenarios on its row (green ✓ best to orange worst); the column "
        "<i>better · range</i> says whether lower, higher or a target value is best.</li>"
        "<li><b>Plots per variable</b>: the original against each scenario; the most changed variables are open, "
        "the others one click away.</li>"
        "<li>Every measure name links to <b>The measures explained</b>: its meaning in plain words, formula and "
        "reference. Every chart has its numbers in a table under <i>data</i>.</li></ol>"
        "{}</details>").format(Markup(mode))


def glossary_section(report: Any, policy: Policy) -> Markup | None:
    ids = list(report.measure_ids)
    if not ids:
        return None
    families = list(FAMILIES)
    ids.sort(key=lambda m: (families.index(get(m).family), get(m).order))
    entries = []
    for mid in ids:
        info = get(mid)
        latex = formula_latex(info)
        formula = Markup('<div class="formula">{}</div>').format(latex_html(latex)) if latex else Markup("")
        ref = reference(info)
        ref_html = Markup('<p class="ref"><b>Reference:</b> {}</p>').format(ref) if ref else Markup("")
        entries.append(Markup(
            '<div class="entry" id="{}"><h3>{} <small>{}</small></h3><p>{}</p><p class="meta">{}; range {}; '
            "ideal {}{}.</p>{}{}</div>").format(
            measure_anchor(mid), mid, FAMILIES[info.family], plain(info), direction_text(info), info.range_text,
            f"{info.ideal:g}", "; needs paired records" if info.needs_pairing else "", formula, ref_html))
    return Markup('<p class="note">Formulas are shown as text; the measures\' docstrings (<code>help(infoloss.'
                  "measures...)</code>) and docs/measures.md have the details.</p>{}").format(join(entries))
