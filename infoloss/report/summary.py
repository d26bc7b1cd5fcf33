"""The measures of a report as rows (one per measure, a value per scenario), and the headline measures.

``summary_table`` and ``reading`` are kept for callers of the earlier page
layout; the page itself uses :mod:`infoloss.report.verdict`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from markupsafe import Markup

from ..registry import FAMILIES, MeasureInfo, get
from .parts import info_positions


@dataclass
class Row:
    """One measure across the scenarios."""

    info: MeasureInfo
    values: list[float | None]
    reasons: list[str | None]
    #: safe mode: per scenario, why the value is withheld (computed, but null in the safe JSON), else None
    withheld: list[str | None] | None = None

    @property
    def positions(self) -> list[float | None]:
        """Each value's place from the best (0) to the worst (1), by its distance from the ideal."""
        return info_positions(self.info, self.values)


def measure_rows(report: Any, ids: Sequence[str], reason=lambda r: r) -> list[Row]:
    """The values of ``ids`` in every scenario (None where not computed)."""
    from .safe_view import is_withheld, withheld_title

    rows = []
    for mid in ids:
        values, reasons, withheld = [], [], []
        for s in report.scenarios:
            result = s.measures.get(mid)
            values.append(None if result is None else result.value)
            raw = s.not_computed.get(mid)
            reasons.append(None if raw is None else reason(raw))
            withheld.append(withheld_title(result) if is_withheld(result) else None)
        rows.append(Row(get(mid), values, reasons, withheld if any(withheld) else None))
    return rows


def headline_ids(report: Any) -> list[str]:
    """The headline measures that were run (all measures run when none is marked headline).

    A headline measure computed in no scenario (e.g. the analyses measures without an ``analyses:`` section)
    is left out of the summary; its reason is in its family's section.
    """
    infos = [get(m) for m in report.measure_ids]
    chosen = [m.id for m in infos if m.headline] or [m.id for m in infos]
    computed = [m for m in chosen if any(m in s.measures for s in report.scenarios)]
    chosen = computed or chosen
    families = list(FAMILIES)
    return sorted(chosen, key=lambda m: (families.index(get(m).family), get(m).order))


def summary_table(report: Any, rows: Sequence[Row], link: dict[str, str] | None = None) -> Markup:
    """Rows = headline measures, columns = scenarios; each value coloured against the other scenarios."""
    from .plotdata import Policy
    from .verdict import measures_table

    return measures_table(report, rows, Policy())


def reading(report: Any, rows: Sequence[Row] = ()) -> Markup:
    """The verdict in one paragraph: the overall utility scores (see :mod:`infoloss.report.scores`)."""
    from .plotdata import Policy
    from .verdict import scores_of, verdict_sentence

    return verdict_sentence(scores_of(report, Policy()))
