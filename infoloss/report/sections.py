"""The sections of the report page, and how a new one hooks in (one line).

The page shows the registered sections in ``order``; the table of contents
lists the ones that are not empty.  A :class:`Section` is::

    Section(id, title, order, render, family=None, open=True)

``render(report, policy)`` returns the section's HTML (Markup) or None when
it has nothing to show (the section and its TOC entry are then left out);
``policy`` (:class:`~infoloss.report.plotdata.Policy`) carries ``safe``,
``min_cell`` and a per-page cache (``policy.cached(key, fn)``).  With
``family="risk"`` the HTML is shown inside that measure family's section,
after the family's own tables and charts, instead of as a section of its
own.  ``open=False`` shows the section collapsed; so does any section after
the headline measures whose HTML is larger than :data:`COLLAPSE_BYTES`
(except the plots per variable, which fold variable by variable).

Hooking a section in is one registration line, e.g. in this module::

    register(Section("mining-details", "Mining per target", 0,
                     lazy("infoloss.report.mining", "mining_section"), family="mining"))

:func:`lazy` imports the module only when the page is drawn and skips the
section while the module does not exist, so the slots below are already
wired for the sections other branches are building (the risk–utility map is
the first chart of the page, right after the verdict's heading).  Orders:
:data:`ORDER`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

from markupsafe import Markup

from ..registry import FAMILIES

Render = Callable[[Any, Any], "Markup | None"]

#: where the page's parts go (a new section picks a number between them)
ORDER = {
    "verdict": 10,  # the verdict's heading, sentence and scores
    "risk-utility": 20,  # the risk-utility map: the first chart of the page
    "changes": 25,  # what each scenario changed
    "overview": 30,  # variable x scenario heat table
    "headline": 40,  # headline measures per scenario
    "families": 100,  # one section per measure family, in FAMILIES order (100, 110, ...)
    "variables": 300,  # plots per variable
    "pairs": 310,  # two-way mosaics
    "glossary": 400,  # the measures explained
}


#: a section after the headline measures with more HTML than this starts collapsed, so that large pages
#: open quickly (a click on its title, or a link into it, opens it)
COLLAPSE_BYTES = 600_000


@dataclass(frozen=True)
class Section:
    """One part of the page (see the module docstring)."""

    id: str
    title: str
    order: int
    render: Render
    family: str | None = None
    open: bool = True
    toc: str = ""  # a short title for the table of contents (default: the title)


#: short names of the families for the table of contents
FAMILY_TOC = {
    "record": "Record-level losses", "moments": "Moments", "tables": "Contingency tables",
    "distributions": "Distributions", "propensity": "Propensity scores", "gdu": "Global data utility",
    "generalisation": "Generalisation", "mining": "Data mining", "analyses": "Your analyses", "risk": "Disclosure risk",
}

SECTIONS: list[Section] = []


def register(section: Section) -> Section:
    """Add ``section`` to the page (replacing a section with the same id)."""
    SECTIONS[:] = [s for s in SECTIONS if s.id != section.id] + [section]
    return section


def lazy(module: str, function: str) -> Render:
    """A render function that imports ``module.function`` when the page is drawn.

    While the module does not exist (its branch is not merged yet), the
    section is left out.
    """

    def render(report: Any, policy: Any) -> Markup | None:
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name == module:
                return None
            raise
        func = getattr(mod, function, None)
        return None if func is None else func(report, policy)

    render.__qualname__ = f"lazy({module}.{function})"
    return render


@dataclass
class Shown:
    """A section as the page shows it."""

    id: str
    title: str
    body: Markup
    open: bool
    toc: str = ""


def page_sections(report: Any, policy: Any) -> list[Shown]:
    """The sections with something to show, in order, with the family extras inside their families."""
    extras: dict[str, list[Markup]] = {}
    for s in sorted((s for s in SECTIONS if s.family), key=lambda s: s.order):
        body = s.render(report, policy)
        if body:
            extras.setdefault(s.family, []).append(
                Markup('<div class="extra" id="{}"><h3>{}</h3>{}</div>').format(s.id, s.title, Markup(body)))
    policy.cache["family_extras"] = extras
    shown = []
    for s in sorted((s for s in SECTIONS if not s.family), key=lambda s: s.order):
        body = s.render(report, policy)
        if body:
            # the plots per variable fold one by one (all but the most changed), so that section stays open
            small = len(body) <= COLLAPSE_BYTES or s.order < ORDER["families"] or s.id == "variables"
            is_open = s.open and small
            shown.append(Shown(s.id, s.title, Markup(body), is_open, s.toc or s.title))
    return shown


# ---------------------------------------------------------------------------
# the page's own sections
# ---------------------------------------------------------------------------
def _builtin() -> None:
    from . import families, guide, overview, verdict
    from .variables import pairs_section, variables_section

    register(Section("verdict", "Verdict: which scenario keeps most information", ORDER["verdict"],
                     verdict.verdict_section, toc="Verdict"))
    register(Section("changes", "What each scenario changed", ORDER["changes"], verdict.changes_section,
                     toc="What changed"))
    register(Section("overview", "Overview: loss per variable and scenario", ORDER["overview"],
                     overview.overview_section, toc="Overview by variable"))
    register(Section("headline", "Headline measures", ORDER["headline"], verdict.headline_section))
    for k, (family, title) in enumerate(FAMILIES.items()):
        register(Section(f"family-{family}", title, ORDER["families"] + 10 * k, families.family_render(family),
                         toc=FAMILY_TOC.get(family, title)))
    register(Section("variables", "Plots per variable", ORDER["variables"], variables_section))
    register(Section("pairs", "Two-way mosaic plots", ORDER["pairs"], pairs_section, toc="Two-way mosaics"))
    register(Section("glossary", "The measures explained", ORDER["glossary"], guide.glossary_section, open=False))


_builtin()

# Slots for the sections of other branches: each is one line, and is skipped until its module exists.
register(Section("risk-utility", "Risk–utility map: which protection is safe enough with the least information lost",
                 ORDER["risk-utility"], lazy("infoloss.report.risk", "risk_map_section"), toc="Risk–utility map"))
register(Section("risk-details", "Risk per file, k-anonymity, SUDA and l-diversity", 0,
                 lazy("infoloss.report.risk", "risk_details"), family="risk"))
register(Section("generalisation-details", "Generalisation per variable and equivalence classes", 0,
                 lazy("infoloss.report.generalisation", "generalisation_section"), family="generalisation"))
register(Section("mining-details", "Model scores per target and cluster agreement", 0, lazy("infoloss.report.mining", "mining_section"),
                 family="mining"))
register(Section("analyses-details", "Your analyses before and after", 0,
                 lazy("infoloss.report.analyses", "analyses_section"), family="analyses"))
