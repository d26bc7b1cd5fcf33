"""What a notebook user sees of a :class:`~infoloss.compare.Report`.

``Report.to_frame`` (every value as a tidy DataFrame), ``repr(report)`` (a
few lines) and ``Report._repr_html_`` (the summary table of the headline
measures, not the whole report page, which ``Report.to_html`` writes).
"""

from __future__ import annotations

import html
import math
from typing import Any

import pandas as pd

from . import registry

FRAME_COLUMNS = ("scenario", "measure", "family", "variable", "pair", "value")


def report_frame(report: Any) -> pd.DataFrame:
    """Every value of ``report``, one row each (see :meth:`Report.to_frame`)."""
    rows: list[tuple] = []
    for scenario in report.scenarios:
        for mid in report.measure_ids:
            result = scenario.measures.get(mid)
            if result is None:
                continue
            family = registry.get(mid).family
            rows.append((scenario.name, mid, family, None, None, result.value))
            for name, value in (result.by_variable or {}).items():
                rows.append((scenario.name, mid, family, str(name), None, _float(value)))
            for pair, value in (result.by_pair or {}).items():
                rows.append((scenario.name, mid, family, None, str(pair), _float(value)))
    columns = list(zip(*rows)) if rows else [()] * len(FRAME_COLUMNS)
    data = {name: pd.Series(list(values), dtype=object) for name, values in zip(FRAME_COLUMNS, columns)}
    for name in ("scenario", "measure", "family"):
        data[name] = data[name].astype(str)
    data["value"] = data["value"].astype(float)
    return pd.DataFrame(data, columns=list(FRAME_COLUMNS))  # variable and pair stay object, None where absent


def _float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def report_repr(report: Any) -> str:
    """A few lines: the original, each scenario, how many measures were computed and which were not."""
    original = report.original
    where = original.get("path") or "a DataFrame"
    lines = [
        f"<infoloss Report: original {where} ({original.get('n_records', 0)} records, "
        f"{len(original.get('variables', {}))} variables), {len(report.measure_ids)} measures"
    ]
    for s in report.scenarios:
        pairing = "paired" if s.paired else "unpaired"
        line = f"  {s.name}: {s.n_records} records, {pairing}, {len(s.measures)} computed"
        if s.not_computed:
            shown = ", ".join(list(s.not_computed)[:5]) + (", ..." if len(s.not_computed) > 5 else "")
            line += f", {len(s.not_computed)} not computed ({shown})"
        lines.append(line)
    lines[-1] += ">"
    return "\n".join(lines)


def report_summary_html(report: Any) -> str:
    """A compact HTML table: the headline measures (rows) in each scenario (columns), then a one-line note."""
    from .report.summary import headline_ids

    e = html.escape
    head = "".join(f"<th>{e(s.name)}</th>" for s in report.scenarios)
    body = []
    for mid in headline_ids(report):
        info = registry.get(mid)
        cells = []
        for s in report.scenarios:
            result = s.measures.get(mid)
            if result is None:
                reason = s.not_computed.get(mid, "not run")
                cells.append(f'<td title="{e(reason)}" style="color:#888">n/c</td>')
            else:
                cells.append(f'<td style="text-align:right">{result.value:.4g}</td>')
        body.append(
            f'<tr><th style="text-align:left" title="{e(info.description)}">{e(mid)}</th>'
            f"<td>{e(info.better_text)}</td>{''.join(cells)}</tr>"
        )
    computed = sum(len(s.measures) for s in report.scenarios)
    missing = sum(len(s.not_computed) for s in report.scenarios)
    original = report.original.get("path") or "the original DataFrame"
    return (
        '<div class="infoloss-report">'
        f"<p><b>infoloss</b>: {len(report.scenarios)} scenario(s) against {e(str(original))} "
        f"({report.original.get('n_records', 0)} records); headline measures:</p>"
        f"<table><thead><tr><th>measure</th><th>better</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
        f"<p><small>{computed} values computed, {missing} not computed (n/c; hover for the reason). "
        "<code>report.to_frame()</code> has every value, <code>report.to_html(path)</code> writes the full "
        "report.</small></p></div>"
    )
