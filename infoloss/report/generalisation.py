"""The generalisation section of the report: levels and loss per variable, class sizes, suppressed records.

Shown inside the "Generalisation and suppression" family section when a
variable of the spec has a hierarchy and the family's measures were run.  It
draws only on the measures' results (``loss_metric``, ``height``,
``suppressed_records``, ``discernibility``).  In safe mode no count below
``min_cell`` is printed: class-size bins are merged until each holds at least
``min_cell`` records, small suppressed counts read "fewer than min_cell", and
in the class-size chart they are counted into the smallest bar (the bars add
up to every record, so no withheld count is the total less the bars).
"""

from __future__ import annotations

from typing import Any, Sequence

from markupsafe import Markup

from . import svg
from .parts import fmt, join
from .plotdata import Policy
from .safe import merge_bins

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
    return Markup('<div class="generalisation"><h4>Generalisation per variable and equivalence classes</h4>{}</div>'
                  ).format(join(parts))


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
    sub = join(Markup("<th scope=col>level</th><th scope=col>LM</th><th scope=col>at the root</th>") for _ in scenarios)
    rows = []
    for name in names:
        cells = []
        for rl, rh, rr in zip(lm, levels, roots):
            level = (rh.by_variable or {}).get(name) if rh is not None else None
            loss = (rl.by_variable or {}).get(name) if rl is not None else None
            root = (rr.by_variable or {}).get(name) if rr is not None else None
            cells.append(Markup('<td class="num">{}</td><td class="num">{}</td><td class="num">{}</td>').format(
                fmt(level), "–" if loss is None else f"{100 * loss:.1f}%",
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
    charts = []
    for i, s in enumerate(report.scenarios):
        # the raw class sizes, merged here into bins of at least min_cell records (safe mode), with the
        # suppressed records folded into a bar when few (fold_suppressed)
        r = _result(getattr(s, "raw", s), "discernibility")
        if r is None or "class_sizes" not in r.details:
            continue
        bins = size_bins(r.details["class_sizes"])
        if policy.safe:
            groups = merge_bins([b[2] for b in bins], policy.min_cell)
            bins = [(bins[a][0], bins[b - 1][1], sum(x[2] for x in bins[a:b]), sum(x[3] for x in bins[a:b]))
                    for a, b, _ in groups]
        suppressed = int(r.details.get("suppressed", 0))
        charts.append(_bars(s.name, svg.colour(i), bins, suppressed, int(s.n_records), policy))
    if not charts:
        return Markup("")
    safe_note = ""
    if policy.safe:
        safe_note = (f" Bins with fewer than {policy.min_cell} records are merged; fewer than {policy.min_cell} "
                     "suppressed records have no bar of their own but are counted in the smallest bar (marked "
                     "“+ suppressed”), so that the bars still add up to every record.")
    return Markup(
        '<p class="note">Records by the size of their equivalence class (records with the same generalised '
        "key values); the last bar counts the suppressed records.{}</p><div class=\"charts\">{}</div>"
    ).format(safe_note, join(charts))


def fold_suppressed(bins: list, suppressed: int, policy: Policy) -> tuple[list[str], list[int]]:
    """Bar labels and counts: the class-size bins, then the suppressed records.

    In safe mode a suppressed count of 1 to ``min_cell`` − 1 gets no bar of its own (the total number of
    records less the other bars would give it back): it is added to the smallest non-empty bar, whose label
    says "+ suppressed".

    >>> fold_suppressed([(1, 4, 10, 4), (5, None, 187, 20)], 3, Policy(safe=True))
    (['1–4 + suppressed', '5+'], [13, 187])
    >>> fold_suppressed([(1, 4, 10, 4), (5, None, 187, 20)], 3, Policy())
    (['1–4', '5+', 'suppressed'], [10, 187, 3])
    """
    labels = [_bin_label(lo, hi) for lo, hi, _, _ in bins]
    counts = [int(b[2]) for b in bins]
    full = [c for c in counts if c > 0]
    if policy.safe and not policy.count_ok(suppressed) and full:
        k = min((k for k, c in enumerate(counts) if c > 0), key=lambda k: counts[k])
        counts[k] += suppressed
        labels[k] += " + suppressed"
        return labels, counts
    return labels + ["suppressed"], counts + [suppressed]


def _bars(name: str, colour: str, bins: list, suppressed: int, n: int, policy: Policy) -> Markup:
    labels, counts = fold_suppressed(bins, suppressed, policy)
    shown = [policy.count_ok(c) for c in counts]
    width, height, left, bottom, top = 470, 210, 48, 56, 26
    step = (width - left - 10) / max(len(labels), 1)
    peak = max([c for c, ok in zip(counts, shown) if ok] + [1])
    scale = svg.Scale(0, peak, height - bottom, top)
    out = [svg.text(left, 14, f"{name}: records by class size", weight="bold")]
    out += svg.y_axis(scale, left, svg.nice_ticks(0, peak, 4), grid_to=width - 10)
    for k, (label, count, ok) in enumerate(zip(labels, counts, shown)):
        x = left + k * step + 2
        fill = "#9e9e9e" if label == "suppressed" else colour
        if ok:
            title = f"{label}: {count:,} records"
            out.append(svg.rect(x, scale(count), step - 4, scale(0) - scale(count), fill, title=title, count=count))
        else:
            out.append(svg.text(x + (step - 4) / 2, height - bottom - 4, f"< {policy.min_cell}", anchor="middle",
                                size=svg.FONT - 3, fill=svg.GREY))
        out.append(svg.text(x + (step - 4) / 2, height - bottom + 12, label, anchor="end", size=svg.FONT - 3,
                            rotate=-40))
    note = f"{n:,} records" if policy.count_ok(n) else ""
    out.append(svg.text(width - 10, 14, note, anchor="end", size=svg.FONT - 3, fill=svg.GREY))
    return Markup('<figure class="chart">{}</figure>').format(svg.svg(width, height, out, label=f"class sizes, {name}"))
