"""The generalisation section of the report: levels and loss per variable, class sizes, suppressed records.

Shown inside the "Generalisation and suppression" family section when a
variable of the spec has a hierarchy and the family's measures were run.  It
draws only on the measures' results (``loss_metric``, ``height``,
``suppressed_records``, ``discernibility``).  In safe mode every number is
the safe JSON's: small suppressed counts read "fewer than min_cell" or
"withheld", and the class-size chart draws the ``class_sizes`` pairs the JSON
shows, its withheld pairs as one bar "withheld classes" (their records in all,
the records less the shown pairs and the suppressed records, known from the
JSON anyway), or no chart where the JSON withholds the class sizes (a small
number of suppressed records).  Nothing is merged here: a group merged
otherwise than the JSON withholds would give a withheld pair back.
"""

from __future__ import annotations

from typing import Any, Sequence

from markupsafe import Markup

from . import svg
from .numbers import percent
from .parts import fmt, join
from .plotdata import Policy

#: class-size bins: [1], [2], [3, 4], [5, 9], [10, 19], ... (lower edges)
SIZE_EDGES = (1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000)


def generalisation_section(report: Any, policy: Policy) -> Markup | None:
    """The section's HTML (inside the generalisation family), or None when no hierarchy is in use."""
    spec = getattr(report, "spec", None)
    if spec is None or not any(v.hierarchy is not None for v in spec.variables.values()):
        return None
    parts = [_variable_table(report, policy), _class_sizes(report, policy)]
    parts = [p for p in parts if p]
    if not parts:
        return Markup("")
    return Markup('<div class="generalisation">{}</div>').format(join(parts))  # the section gives the heading


def _result(scenario: Any, mid: str) -> Any:
    return scenario.measures.get(mid)


def _count_text(n: float | None, policy: Policy, present: bool = False) -> str:
    """A count as printed; ``present``: it exists but is None (withheld in the safe JSON)."""
    if n is None:
        return "withheld" if present and policy.safe else "–"
    n = int(n)
    return f"{n:,}" if policy.count_ok(n) else f"fewer than {policy.min_cell}"


def _variable_table(report: Any, policy: Policy) -> Markup:
    scenarios = report.scenarios
    lm = [_result(s, "loss_metric") for s in scenarios]
    levels = [_result(s, "height") for s in scenarios]
    roots = [_result(s, "suppressed_records") for s in scenarios]
    if not any(lm) and not any(levels):
        return Markup("")
    names: list[str] = []
    for r in lm + levels:
        for name in (r.by_variable or {}) if r is not None else {}:
            if name not in names:
                names.append(name)
    heights = next((r.details.get("heights", {}) for r in levels if r is not None), {})
    head = join(Markup('<th scope=col class="scen" colspan="3"><span class="swatch" style="background:{}"></span>{}</th>')
                .format(svg.colour(i), s.name) for i, s in enumerate(scenarios))
    # right-aligned over the right-aligned numbers (left-aligned, each stood over its right neighbour's number)
    sub = join(Markup('<th scope=col class="num">level</th><th scope=col class="num">LM</th>'
                      '<th scope=col class="num">at the root</th>') for _ in scenarios)
    rows = []
    for name in names:
        cells = []
        for rl, rh, rr in zip(lm, levels, roots):
            level = (rh.by_variable or {}).get(name) if rh is not None else None
            loss = (rl.by_variable or {}).get(name) if rl is not None else None
            root = (rr.by_variable or {}).get(name) if rr is not None else None
            cells.append(Markup('<td class="num">{}</td><td class="num">{}</td><td class="num">{}</td>').format(
                _withheld_or(level, rh, name, policy, fmt(level)),
                _withheld_or(loss, rl, name, policy, percent(loss)),  # the page's rule: 99.96 % is not 100 %
                _count_text(root, policy, rr is not None and name in (rr.by_variable or {}))))
        rows.append(Markup('<tr><th scope=row class="measure">{}</th><td class="num">{}</td>{}</tr>').format(
            name, heights.get(name, "–"), join(cells)))
    return Markup(
        '<p class="note">Level: the hierarchy level of the protected values (0 = unchanged); LM: Iyengar\'s loss, '
        "the share of the domain a value was generalised to (0% unchanged, 100% suppressed); at the root: records "
        "whose value is suppressed or fully generalised.</p>"
        '<div class="scroll" tabindex="0"><table class="measures"><thead><tr><th scope=col rowspan="2">variable</th><th scope=col rowspan="2">height</th>{}</tr>'
        "<tr>{}</tr></thead><tbody>{}</tbody></table></div>"
    ).format(head, sub, join(rows))


def _withheld_or(value: Any, result: Any, name: str, policy: Policy, text: str) -> str:
    """``text``, or "withheld" where the safe JSON has the variable's value as null."""
    if policy.safe and value is None and result is not None and name in (result.by_variable or {}):
        return "withheld"
    return text


def size_bins(class_sizes: Sequence[Sequence[int]]) -> list[tuple[int, int | None, int, int]]:
    """Records and classes per class-size bin: ``(low, high or None, records, classes)``.

    >>> size_bins([[1, 3], [2, 1], [7, 2]])[:4]
    [(1, 1, 3, 3), (2, 2, 2, 1), (3, 4, 0, 0), (5, None, 14, 2)]
    """
    largest = max((s for s, _ in class_sizes), default=1)
    edges = [e for e in SIZE_EDGES if e <= largest] + [None]
    bins = []
    for low, nxt in zip(edges[:-1], edges[1:]):
        high = None if nxt is None else nxt - 1
        inside = [(s, c) for s, c in class_sizes if s >= low and (high is None or s <= high)]
        bins.append((low, high, sum(s * c for s, c in inside), sum(c for _, c in inside)))
    return bins


def _bin_label(low: int, high: int | None) -> str:
    if high is None:
        return f"{low:,}+"
    return f"{low:,}" if low == high else f"{low:,}–{high:,}"


def _class_sizes(report: Any, policy: Policy) -> Markup:
    charts, notes = [], []
    for i, s in enumerate(report.scenarios):
        if policy.safe:
            # the class sizes as the safe JSON has them: no bin is merged here (a bin merged otherwise than the
            # JSON withholds, less the JSON's exact pairs, would give a withheld pair back)
            r = _result(s, "discernibility")
            if r is None or "class_sizes" not in r.details:
                continue
            bars = safe_size_bars(r.details, int(s.n_records), policy)
            if bars is None:
                notes.append(s.name)
                continue
            labels, counts = bars
        else:
            r = _result(s, "discernibility")
            if r is None or "class_sizes" not in r.details:
                continue
            labels, counts = fold_suppressed(size_bins(r.details["class_sizes"]), int(r.details.get("suppressed", 0)),
                                             policy)
        charts.append(_bars(s.name, svg.colour(i), labels, counts, int(s.n_records), policy))
    if not charts and not notes:
        return Markup("")
    safe_note = ""
    if policy.safe and charts:
        safe_note = (" Safe mode: the bars are the class sizes the safe JSON shows; the classes it withholds (those "
                     f"holding fewer than {policy.min_cell} records, with the next smallest until the withheld ones "
                     f"hold at least {policy.min_cell} records) are one bar, \u201cwithheld classes\u201d, of their "
                     "records in all.")
    missing = join(Markup('<p class="note">{}: no class-size chart in safe mode: the safe JSON withholds the class '
                          "sizes, as the number of suppressed records (fewer than {}) would be the records less the "
                          "classes.</p>").format(name, policy.min_cell) for name in notes)
    return Markup(
        '<p class="note">Records by the size of their equivalence class (records with the same generalised '
        "key values); the last bar counts the suppressed records.{}</p>{}<div class=\"charts\">{}</div>"
    ).format(safe_note, missing, join(charts))


def safe_size_bars(details: dict[str, Any], n: int, policy: Policy) -> tuple[list[str], list[int]] | None:
    """Safe mode: bar labels and records from the safe JSON's ``class_sizes`` (``[size, classes]`` pairs,
    ``[size or None, None]`` where withheld) and ``suppressed``; None when the JSON withholds either.

    The shown pairs are binned by size (a bin with no shown class is left out: a withheld class may be of that
    size); the withheld pairs are one bar of ``n`` − suppressed − the records shown (what the JSON gives anyway).

    >>> safe_size_bars({"class_sizes": [[1, None], [9, None], [10, 1], [13, 3]], "suppressed": 0}, 80, Policy(safe=True))
    (['10+', 'withheld classes', 'suppressed'], [49, 31, 0])
    >>> safe_size_bars({"class_sizes": None, "suppressed": None}, 80, Policy(safe=True)) is None
    True
    """
    pairs, suppressed = details.get("class_sizes"), details.get("suppressed")
    if not isinstance(pairs, list) or suppressed is None:
        return None
    shown = [(int(p[0]), int(p[1])) for p in pairs if p[0] is not None and p[1] is not None]
    bins = [b for b in size_bins(shown) if b[3] > 0] if shown else []
    labels, counts = [_bin_label(lo, hi) for lo, hi, _, _ in bins], [int(b[2]) for b in bins]
    if len(shown) < len(pairs):
        labels.append("withheld classes")
        counts.append(n - int(suppressed) - sum(counts))
    return labels + ["suppressed"], counts + [int(suppressed)]


def fold_suppressed(bins: list, suppressed: int, policy: Policy) -> tuple[list[str], list[int]]:
    """Full mode: bar labels and counts, the class-size bins, then the suppressed records.

    (Safe mode takes its bars from the safe JSON: :func:`safe_size_bars`.)

    >>> fold_suppressed([(1, 4, 10, 4), (5, None, 187, 20)], 3, Policy())
    (['1–4', '5+', 'suppressed'], [10, 187, 3])
    """
    labels = [_bin_label(lo, hi) for lo, hi, _, _ in bins]
    counts = [int(b[2]) for b in bins]
    return labels + ["suppressed"], counts + [suppressed]


def _bars(name: str, colour: str, labels: list[str], counts: list[int], n: int, policy: Policy) -> Markup:
    shown = [policy.count_ok(c) for c in counts]
    width, left = 470, 48
    note = f"{n:,} records" if policy.count_ok(n) else ""
    # the title wraps beside the note (a long scenario name ran past the chart); the bar labels, turned by 40°,
    # get the room their length and glyph height need below the bars
    title_lines = svg.wrap_label(f"{name}: records by class size", width - left - svg.text_width(note) - 24,
                                 max_lines=4)
    top = 26 + svg.LINE_HEIGHT * (len(title_lines) - 1)
    import math

    label_w = max([svg.text_width(lbl) for lbl in labels] + [10.0])
    bottom = max(56.0, label_w * math.sin(math.radians(40)) + svg.ASCENT * math.cos(math.radians(40)) + 16)
    height = top + 128 + bottom
    step = (width - left - 10) / max(len(labels), 1)
    peak = max([c for c, ok in zip(counts, shown) if ok] + [1])
    scale = svg.Scale(0, peak, height - bottom, top)
    out = [svg.label_lines(left, 14 + svg.LINE_HEIGHT * (len(title_lines) - 1) / 2, title_lines,
                           full=f"{name}: records by class size", anchor="start")
           .replace("<text ", '<text font-weight="bold" ', 1)]
    out += svg.y_axis(scale, left, svg.nice_ticks(0, peak, 4), grid_to=width - 10)
    for k, (label, count, ok) in enumerate(zip(labels, counts, shown)):
        x = left + k * step + 2
        fill = "#9e9e9e" if label == "suppressed" else "#d9d9d9" if label == "withheld classes" else colour
        if ok:
            title = f"{label}: {count:,} records"
            out.append(svg.rect(x, scale(count), step - 4, scale(0) - scale(count), fill, title=title, count=count))
        else:
            out.append(svg.text(x + (step - 4) / 2, height - bottom - 4, f"< {policy.min_cell}", anchor="middle",
                                size=svg.FONT - 3, fill=svg.GREY))
        out.append(svg.text(x + (step - 4) / 2, height - bottom + 12, label, anchor="end", size=svg.FONT - 3,
                            rotate=-40))
    out.append(svg.text(width - 10, 14, note, anchor="end", size=svg.FONT - 3, fill=svg.GREY))
    return Markup('<figure class="chart">{}</figure>').format(svg.svg(width, height, out, label=f"class sizes, {name}"))
