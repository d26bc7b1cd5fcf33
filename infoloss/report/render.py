"""Assemble the report page: the sections, inline CSS and script, the jinja2 template."""

from __future__ import annotations

import functools
import re
from importlib import resources
from pathlib import PurePath
from typing import Any, Mapping

import jinja2
from markupsafe import Markup

from .. import __version__
from ..registry import known_ids
from . import svg
from .guide import how_to_read
from .plotdata import Policy
from .safe import sanitise_reason
from .sections import page_sections


def render_html(report: Any, *, safe: bool = False, min_cell: int = 5,
                weights: Mapping[str, float] | None = None) -> str:
    """The self-contained HTML page of a :class:`~infoloss.compare.Report`.

    Parameters
    ----------
    report : Report
        The result of :func:`infoloss.compare`.
    safe : bool
        Safe-to-share mode: no table cell, histogram bin or count below
        ``min_cell`` records, no extremes or outliers, rounded statistics, no
        record values.
    min_cell : int
        The smallest count shown in safe mode (at least 1).
    weights : dict, optional
        Weights of the measure families in the overall utility score, e.g.
        ``{"tables": 2, "record": 1}`` (families not named weigh 0); by
        default each family weighs the share of variables its measures cover.

    Returns
    -------
    str
        The HTML page.
    """
    from .scores import check_weights

    if min_cell < 1:
        raise ValueError("min_cell must be at least 1")
    policy = Policy(safe=safe, min_cell=int(min_cell), weights=check_weights(weights))
    return neutralise_controls(_template().render(**context(report, policy)))


#: characters of the data that would act instead of showing: C0 controls (an ESC or BEL makes an inline SVG
#: ill-formed XML) and the bidirectional overrides and isolates (U+202E reversed the page's own numbers around
#: a name holding it)
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def neutralise_controls(html: str) -> str:
    r"""``html`` with every control and bidi-override character written as its code (``\u202e``).

    The page's own template, CSS and script hold none, so only text from the data changes.

    >>> neutralise_controls("a\u202eb\x1bc")
    'a\\u202eb\\x1bc'
    """
    return _CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256 else f"\\u{ord(m.group()):04x}",
                         html)


def context(report: Any, policy: Policy) -> dict[str, Any]:
    """Everything the template shows (in safe mode, the measures as the safe JSON has them: :mod:`.safe_view`)."""
    from .safe_view import safe_report

    report = safe_report(report, policy)
    policy.cache["reason"] = _reason_filter(report, policy)
    sections = page_sections(report, policy)
    return {
        "version": __version__,
        "safe": policy.safe,
        "min_cell": policy.min_cell,
        "original_name": _file_name(report.original.get("path")),
        "n_original": policy.count_text(int(report.original.get("n_records", 0))),
        "n_variables": len(report.original.get("variables", {})),
        "scenarios": [{"name": s.name, "n_records": policy.count_text(int(s.n_records)), "pairing": _pairing_text(s),
                       "marker": svg.marker_svg(i)} for i, s in enumerate(report.scenarios)],
        "howto": how_to_read(policy.safe, policy.min_cell),
        "sections": sections,
        "notes": _notes(report),
        "css": Markup(_asset("report.css")),
        "script": Markup(_asset("check.js")),
    }


def _pairing_text(scenario: Any) -> str:
    """How a scenario's records meet the original's, for the files table: paired, paired with the nearest
    original records (``pairing: nearest``, whose record-level measures are computed), or not paired."""
    if scenario.paired:
        return "paired with the original's records"
    pairing = getattr(scenario, "pairing", None)
    if not pairing:
        return "not paired (record-level measures not computed)"
    from .numbers import number

    median = (pairing.get("distance_quantiles") or {}).get("0.5")  # a quantile safe mode shows (rounded)
    where = f"; median standardised distance {number(median)}" if median is not None else ""
    return f"each record paired with its nearest original record (pairing: nearest{where})"


def _reason_filter(report: Any, policy: Policy):
    """Not-computed reasons as shown: in safe mode without quoted record values or exact numbers."""
    if not policy.safe:
        return lambda text: text
    known = set(report.original.get("variables", {})) | known_ids()
    return lambda text: sanitise_reason(text, known, policy.min_cell)


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
