"""Assemble the report page: sections, inline CSS and script, the jinja2 template."""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import PurePath
from typing import Any

import jinja2
from markupsafe import Markup

from .. import __version__
from ..registry import FAMILIES, registered
from . import svg
from .families import family_sections
from .generalisation import add_generalisation_section
from .parts import slug
from .plotdata import Policy
from .risk import risk_map_section
from .safe import sanitise_reason
from .summary import headline_ids, measure_rows, reading, summary_table
from .variables import variable_sections


def render_html(report: Any, *, safe: bool = False, min_cell: int = 5) -> str:
    """The self-contained HTML page of a :class:`~infoloss.compare.Report`.

    Parameters
    ----------
    report : Report
        The result of :func:`infoloss.compare`.
    safe : bool
        Safe-to-share mode: no table cell or histogram bin below ``min_cell``
        records, no extremes or outliers, rounded statistics, no record values.
    min_cell : int
        The smallest count shown in safe mode (at least 1).

    Returns
    -------
    str
        The HTML page.
    """
    if min_cell < 1:
        raise ValueError("min_cell must be at least 1")
    policy = Policy(safe=safe, min_cell=int(min_cell))
    return _template().render(**context(report, policy))


def context(report: Any, policy: Policy) -> dict[str, Any]:
    """Everything the template shows."""
    reason = _reason_filter(report, policy)
    anchors = {family: slug("family", i) for i, family in enumerate(FAMILIES)}
    rows = measure_rows(report, headline_ids(report), reason)
    variables, pairs = variable_sections(report, policy)
    return {
        "version": __version__,
        "safe": policy.safe,
        "min_cell": policy.min_cell,
        "original_name": _file_name(report.original.get("path")),
        "n_original": int(report.original.get("n_records", 0)),
        "n_variables": len(report.original.get("variables", {})),
        "scenarios": [{"name": s.name, "n_records": int(s.n_records), "paired": s.paired, "colour": svg.colour(i)}
                      for i, s in enumerate(report.scenarios)],
        "reading": reading(report, rows),
        "summary": summary_table(report, rows, anchors),
        "families": _with_analyses(
            add_generalisation_section(family_sections(report, reason, anchors, policy), report, policy, anchors),
            report, policy,
        ),
        "risk_map": risk_map_section(report, policy),
        "variables": variables,
        "pairs": pairs,
        "notes": _notes(report),
        "css": Markup(_asset("report.css")),
        "script": Markup(_asset("check.js")),
    }


def _with_analyses(families: list, report: Any, policy: Policy) -> list:
    """The analyses family's section gets the regression charts and the estimates table."""
    from .analyses import analyses_section

    return [(a, t, body + analyses_section(report, policy)) if t == FAMILIES["analyses"] else (a, t, body)
            for a, t, body in families]


def _reason_filter(report: Any, policy: Policy):
    """Not-computed reasons as shown: in safe mode without quoted record values or exact numbers."""
    if not policy.safe:
        return lambda text: text
    known = set(report.original.get("variables", {})) | {m.id for m in registered()}
    return lambda text: sanitise_reason(text, known)


def _file_name(path: str | None) -> str:
    return PurePath(path).name if path else "the original data"


def _notes(report: Any) -> list[str]:
    notes: list[str] = []
    for s in report.scenarios:
        for note in (s.aggregates or {}).get("notes", []):
            if note not in notes:
                notes.append(note)
    return notes


@functools.lru_cache(maxsize=None)
def _asset(name: str) -> str:
    text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    if "</" in text and name.endswith(".js"):  # pragma: no cover - guard against closing the script element
        raise ValueError(f"{name} must not contain '</'")
    return text


@functools.lru_cache(maxsize=None)
def _template() -> jinja2.Template:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader(__package__, "templates"),
        autoescape=True,
        trim_blocks=False,
        undefined=jinja2.StrictUndefined,
    )
    return env.get_template("report.html.j2")
