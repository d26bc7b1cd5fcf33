"""The report's risk parts: the risk-utility map (the first chart of the page) and the risk family's tables.

Both are drawn from the results only (measure values and their details):
no per-record risk is ever shown.  In safe mode every value is the safe
JSON's: the DIS-SUDA intervals and the distinct-l rows show the JSON's cells,
"withheld" where it has null, and a file's withheld cells together in a last
row (:func:`partition_rows`; nothing is merged here, as a merged group less
the JSON's cells would give a withheld cell back); k-anonymity violations and
uniques read "fewer than N" or "withheld".  :func:`merge_joint` is kept for
callers that merge raw counts (full tables, not the page).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from markupsafe import Markup

from . import svg
from .parts import breakable, fmt, join
from .plotdata import Policy
from .safe_view import SafeScenario, original_value

__all__ = ["risk_map_section", "risk_details", "merge_joint"]


# ---------------------------------------------------------------------------
# the risk-utility map
# ---------------------------------------------------------------------------
def risk_map_section(report: Any, policy: Policy) -> Markup | None:
    """The risk-utility map with its Pareto front, the points as a table and the decision rules; None without one."""
    block = report.risk_utility()  # in safe mode the safe JSON's block (a small count risk is null)
    if not block.get("available"):
        # asked for (--ru, --max-risk, --max-loss) but not drawable: say why; otherwise no section
        if not getattr(report, "risk_utility_options", None) or not block.get("reason"):
            return None
        return Markup('<p class="note">No map: {}</p>').format(block["reason"])
    withheld = [p["name"] for p in block["points"] if p.get("risk") is None or p.get("loss") is None]
    if withheld:
        block = _without_withheld(block)
    index = {s.name: i for i, s in enumerate(report.scenarios)}
    # safe mode: with the original alone left there is no map to draw (its loss axis would read 0, 0, 0)
    chart = ru_chart(block, index) if sum(not p["original"] for p in block["points"]) else Markup("")
    rows = join(
        Markup('<tr><td>{}{}</td><td class="num">{}</td>'
               '<td class="num">{}</td><td class="num">{}</td><td>{}</td></tr>').format(
            Markup('<span class="swatch" style="background:{}"></span>').format(svg.ORIGINAL_COLOUR)
            if p["original"] else svg.marker_svg(index.get(p["name"], 0)),
            breakable(p["name"]) + (" (as it is)" if p["original"] else ""),
            _withheld_cell(policy) if p.get("risk") is None else fmt(p["risk"]),
            _withheld_cell(policy) if p.get("loss") is None else fmt(p["loss"]),
            _withheld_cell(policy) if p.get("utility_value") is None else fmt(p["utility_value"]),
            "" if p.get("risk") is None or p.get("loss") is None else "✓" if p["pareto"] else "")
        for p in block.get("all_points", block["points"]))
    table = Markup('<div class="scroll" tabindex="0"><table class="measures ru"><thead><tr><th scope=col>file</th><th scope=col>risk: {}</th><th scope=col>{}</th>'
                   "<th scope=col>{}</th><th scope=col>Pareto front</th></tr></thead><tbody>{}</tbody></table></div>").format(
        block["risk_measure"], block["loss_definition"], block["utility_measure"], rows)
    decisions = join(_decision(block["decisions"][key], key) for key in ("max_risk", "max_loss"))
    missing = join(Markup("<li>{}: {}</li>").format(name, why) for name, why in block["not_on_map"].items())
    missing = Markup('<div class="notcomputed"><h4>Not on the map</h4><ul>{}</ul></div>').format(missing) if missing else ""
    note = Markup(
        "Each file is a point: its disclosure risk (<b>{}</b>: {}) against its information loss ({}; <b>{}</b>: {}). "
        "The original, released as it is, loses nothing and keeps its full risk. A scenario on the "
        "<b>Pareto front</b> (line) cannot be beaten on both axes by another; the others can. "
        "Lower left is better. The loss here is this one measure's; the verdict's scores combine every family's "
        "headline measures, so the two can rank the scenarios differently (choose the utility measure with "
        "<code>--ru utility=ID</code>).{}"
    ).format(block["risk_measure"], block["risk_description"], block["loss_definition"], block["utility_measure"],
             block["utility_description"],
             Markup(" Not drawn (safe mode): {}, whose risk or loss the safe JSON withholds ({}); the Pareto front "
                    "and the decision rules are those of the points shown, without them.").format(
                 ", ".join(withheld), _withheld_why(report, block, policy)) if withheld else "")
    return Markup('<p class="note">{}</p><div class="charts"><figure class="chart">{}</figure>{}</div>'
                  '<div class="decisions">{}</div>{}').format(note, chart, table, decisions, missing)


def _withheld_cell(policy: Policy) -> Markup:
    return Markup('<span title="withheld in safe mode (null in the safe JSON): a count of fewer than {} records, '
                  'or a value that would give one back">withheld</span>').format(policy.min_cell)


def _withheld_why(report: Any, block: dict[str, Any], policy: Policy) -> str:
    """Why the safe JSON withholds the map's risk or utility measure: the measures' own reasons, once each."""
    reasons = []
    for s in report.scenarios:
        for mid in (block.get("risk_measure"), block.get("utility_measure")):
            result = s.measures.get(mid)
            why = getattr(result, "withheld", None) if result is not None else None
            if why and why not in reasons:
                reasons.append(why)
    if not reasons:
        return f"a count of fewer than {policy.min_cell} records, or a value that would give such a count back"
    return "; ".join(r.removeprefix("safe mode: ") for r in reasons)


def _without_withheld(block: dict[str, Any]) -> dict[str, Any]:
    """The map without the points whose risk or loss the safe JSON withholds (``all_points`` keeps them for the
    table); the front and the rules are the safe block's, computed from the points shown."""
    points = [p for p in block["points"] if p.get("risk") is not None and p.get("loss") is not None]
    return {**block, "points": points, "all_points": block["points"]}


def _decision(rule: dict[str, Any], key: str) -> Markup:
    title = ("Maximum risk, least loss" if key == "max_risk" else "Maximum loss, least risk")
    choice = Markup(" Choice: <b>{}</b>.").format(rule["choice"]) if rule.get("choice") else ""
    extra = ""
    if rule.get("original_within"):
        extra = Markup(" The original itself is within this risk.")
    return Markup('<p class="decision"><b>{}</b> (--{}): {}{}{}</p>').format(
        title, key.replace("_", "-"), rule["reason"], choice, extra)


def ru_chart(block: dict[str, Any], index: dict[str, int], width: float = 520, height: float = 360) -> Markup:
    """Scatter of risk (y) against loss (x) with the Pareto front as a step line and the thresholds dashed.

    Each scenario has its marker (shape and colour, ``index``: scenario name -> its number); names are placed
    where they overlap no other name, and left out where there is no room (the table beside the chart lists
    every point).
    """
    points = block["points"]
    left, right, top, bottom = 62, 18, 14, 42
    risks = [p["risk"] for p in points]
    losses = [p["loss"] for p in block.get("all_points", points) if p.get("loss") is not None]  # a point whose risk is withheld: its loss still sets the axis
    thresholds = block["decisions"]
    max_risk, max_loss = thresholds["max_risk"]["threshold"], thresholds["max_loss"]["threshold"]
    hi_r = max(risks + ([max_risk] if max_risk is not None else []) + [1e-12]) * 1.08
    hi_l = max(losses + ([max_loss] if max_loss is not None else []) + [1e-12]) * 1.08
    lo_l = min(losses + [0.0])
    sx = svg.Scale(lo_l, hi_l, left, width - right)
    sy = svg.Scale(0.0, hi_r, height - bottom, top)
    out = list(svg.x_axis(sx, height - bottom, svg.nice_ticks(lo_l, hi_l, 5), grid_to=top))
    out += svg.y_axis(sy, left, svg.nice_ticks(0.0, hi_r, 5), grid_to=width - right)
    out.append(svg.text((left + width - right) / 2, height - 8, block["loss_definition"], anchor="middle",
                        size=svg.FONT - 1, fill=svg.GREY))
    out.append(svg.text(14, (top + height - bottom) / 2, f"risk: {block['risk_measure']}", anchor="middle",
                        size=svg.FONT - 1, fill=svg.GREY, rotate=-90))
    if max_risk is not None:
        out.append(svg.line(left, sy(max_risk), width - right, sy(max_risk), "#b2182b", 1, "5,3"))
        out.append(svg.text(width - right - 2, sy(max_risk) - 3, f"max risk {max_risk:g}", anchor="end",
                            size=svg.FONT - 2, fill="#b2182b"))
    if max_loss is not None:
        out.append(svg.line(sx(max_loss), top, sx(max_loss), height - bottom, "#2166ac", 1, "5,3"))
        out.append(svg.text(sx(max_loss) + 3, top + 10, f"max loss {max_loss:g}", size=svg.FONT - 2, fill="#2166ac"))
    front = sorted((p for p in points if p["pareto"]), key=lambda p: (p["loss"], -p["risk"]))
    if len(front) > 1:
        steps = []
        for a, b in zip(front, front[1:]):
            steps += [(sx(a["loss"]), sy(a["risk"])), (sx(b["loss"]), sy(a["risk"]))]
        steps.append((sx(front[-1]["loss"]), sy(front[-1]["risk"])))
        out.append(svg.polyline(steps, svg.GREY, 1.2, "2,2"))
    taken: list[tuple[float, float, float, float]] = [(x - 6, y - 6, x + 6, y + 6) for x, y in
                                                       ((sx(p["loss"]), sy(p["risk"])) for p in points)]
    for p in points:
        x, y = sx(p["loss"]), sy(p["risk"])
        title = f"{p['name']}: risk {svg.fmt_value(p['risk'])}, loss {svg.fmt_value(p['loss'])}"
        if p["original"]:
            out.append(f'<rect x="{x - 5:.1f}" y="{y - 5:.1f}" width="10" height="10" fill="{svg.ORIGINAL_COLOUR}">'
                       f"<title>{svg.esc(title)}</title></rect>")
        else:
            out.append(svg.marker(index.get(p["name"], 0), x, y, 5.5, title=title))
        box = _label_box(p["name"], x, y, taken, (left, top, width - 2, height - bottom))
        if box is not None:
            taken.append(box)
            out.append(svg.text(box[0], box[3] - 3, p["name"], size=svg.FONT - 1))
    return svg.svg(width, height, out, label="risk-utility map")


def _label_box(name: str, x: float, y: float, taken: list, bounds: tuple[float, float, float, float]
               ) -> tuple[float, float, float, float] | None:
    """A free box for a point's name beside it (right, left, above, below), or None when none is free."""
    w, h = 0.62 * (svg.FONT - 1) * len(name) + 2, svg.FONT + 2
    for dx, dy in ((8, -h - 1), (8, 1), (-8 - w, -h - 1), (-8 - w, 1), (-w / 2, -h - 8), (-w / 2, 8),
                   (8, -2 * h - 2), (8, h + 2), (-8 - w, -2 * h - 2), (-8 - w, h + 2)):
        box = (x + dx, y + dy, x + dx + w, y + dy + h)
        inside = box[0] >= bounds[0] and box[1] >= bounds[1] and box[2] <= bounds[2] and box[3] <= bounds[3]
        if inside and not any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in taken):
            return box
    return None


# ---------------------------------------------------------------------------
# the risk family's tables
# ---------------------------------------------------------------------------
def risk_details(report: Any, policy: Policy) -> Markup:
    """Risk per file, k-anonymity violations, the DIS-SUDA score distribution and l-diversity."""
    parts = [_risk_table(report, policy), _dis_table(report, policy), _l_tables(report, policy)]
    return join(p for p in parts if p)


def _files(report: Any, mid: str, raw: bool = False) -> list[tuple[str, str, dict[str, Any], float]]:
    """``(name, colour, details, value)`` of the original and every scenario where ``mid`` was computed.

    In safe mode the details and value are the safe JSON's; ``raw=True`` takes the raw results (the full
    tables, and in safe mode only the labels and whether a table adds up to the file's records).
    """
    rows = []
    for i, s in enumerate(report.scenarios):
        r = (getattr(s, "raw", s) if raw else s).measures.get(mid)
        if r is None:
            continue
        if not rows:
            orig = r.details.get("original") or {}
            value = orig.get("value")
            if not raw and isinstance(s, SafeScenario):  # a share beside a withheld count is withheld too
                value = original_value(orig)
            rows.append(("original", svg.ORIGINAL_COLOUR, orig, value))
        rows.append((s.name, svg.colour(i), r.details, r.value))
    return rows


def _count(n: int | None, policy: Policy, present: bool = False) -> str:
    """A count as printed; ``present``: the count exists but is None (withheld in the safe JSON)."""
    if n is None:
        return "withheld" if present and policy.safe else "–"
    return f"{int(n):,}" if policy.count_ok(int(n)) else f"fewer than {policy.min_cell}"


def _risk_table(report: Any, policy: Policy) -> Markup | None:
    columns = [("global_risk", "global risk"), ("expected_reidentifications", "expected re-identifications"),
               ("sample_uniques", "sample uniques (share)"), ("household_risk", "household risk"),
               ("suda_dis", "mean DIS-SUDA"), ("msu_share", "records with an MSU (share)")]
    columns = [(m, t) for m, t in columns if any(m in s.measures for s in report.scenarios)]
    kanon = _files(report, "k_anonymity_violations")
    if not columns and not kanon:
        return None
    names = ["original"] + [s.name for s in report.scenarios]
    values: dict[str, dict[str, str]] = {n: {} for n in names}
    reasons = {(s.name, mid): getattr(s.measures.get(mid), "withheld", None) for s in report.scenarios
               for mid, _ in columns}
    for mid, _ in columns:
        for name, _, _, v in _files(report, mid):
            if v is None and policy.safe and (name != "original" or _original_withheld(report, mid)):
                # withheld in the safe JSON: its reason as title
                values[name][mid] = Markup('<span title="{}">withheld</span>').format(
                    reasons.get((name, mid)) or "withheld in safe mode (null in the safe JSON)")
            else:
                values[name][mid] = fmt(v)
    ks = sorted(kanon[0][2].get("by_k", {}), key=int) if kanon else []
    for name, _, det, _ in kanon:
        for k in ks:
            entry = det.get("by_k", {}).get(k, {})
            values[name][f"k{k}"] = " / ".join(_count(entry.get(w), policy, w in entry)
                                               for w in ("unweighted", "weighted"))
    head = join(Markup("<th scope=col>{}</th>").format(t) for _, t in columns)
    head += join(Markup("<th scope=col>fk &lt; {0} / Fk &lt; {0}</th>").format(k) for k in ks)
    body = join(
        Markup("<tr><td>{}</td>{}</tr>").format(
            name, join(Markup('<td class="num">{}</td>').format(values[name].get(c, "–"))
                       for c in [m for m, _ in columns] + [f"k{k}" for k in ks]))
        for name in names if values[name])
    note = (f"Risk of each file on the key variables ({_missing_keys_note(report, [m for m, _ in columns])}). "
            "k-anonymity: records whose key values fewer than k records share (fk), and whose weighted "
            "frequency is below k (Fk).")
    return Markup('<h4>Disclosure risk per file</h4><p class="note">{}</p><div class="scroll" tabindex="0"><table class="measures risk">'
                  "<thead><tr><th scope=col>file</th>{}</tr></thead><tbody>{}</tbody></table></div>").format(note, head, body)


#: the frequency measures' ``details.missing_keys`` in the note of the risk table
_MISSING_KEYS_NOTES = {
    "wildcard": "a missing key value matches any value",
    "sdcmicro": ("sdcMicro's freqCalc: a missing key value matches any value, but with two or more key variables a "
                 "record with every key missing is not counted for the records without missing values"),
}


#: the risk measures that compare key values by SUDA's rule (a missing value is a value of its own)
_SUDA_IDS = ("suda_dis", "msu_share")


def _missing_keys_note(report: Any, ids: list[str]) -> str:
    """How missing key values were matched by the measures of the table: the frequency measures' ``missing_keys``,
    and SUDA's rule when SUDA measures are shown."""
    found = [r for s in report.scenarios for mid in [*ids, "k_anonymity_violations"]
             if mid not in _SUDA_IDS and (r := s.measures.get(mid)) is not None]
    used = sorted({(r.details or {}).get("missing_keys") for r in found} & set(_MISSING_KEYS_NOTES))
    if len(used) > 1:
        parts = [("the frequency measures were run with different missing_keys options (" + ", ".join(used)
                  + "): each measure's details say which")]
    else:
        parts = [_MISSING_KEYS_NOTES[used[0] if used else "wildcard"]] if found else []
    if any(mid in _SUDA_IDS for mid in ids):
        parts.append("SUDA compares a missing key value as a value of its own")
    return "; ".join(parts) if parts else _MISSING_KEYS_NOTES["wildcard"]


def _original_withheld(report: Any, mid: str) -> bool:
    """Whether the safe JSON withholds the original's value of ``mid`` (or the count it is a share of)."""
    for s in report.scenarios:
        r = s.measures.get(mid)
        original = (r.details or {}).get("original") if r is not None else None
        if isinstance(original, dict) and "value" in original:
            return original_value(original) is None
    return False


def merge_joint(labels: Sequence[str], columns: Sequence[Sequence[int]], min_cell: int) -> tuple[list[str], list[list[int]]]:
    """Merge adjacent rows of count columns until every count is 0 or at least ``min_cell``.

    The same rows are merged in every column (so the rows stay comparable);
    a row with a small count joins its next row (the last one its previous).

    >>> merge_joint(["a", "b", "c", "d"], [[10, 2, 4, 9], [6, 0, 0, 6]], 5)
    (['a', 'b … c', 'd'], [[10, 6, 9], [6, 0, 6]])
    """
    groups = [[i] for i in range(len(labels))]
    cols = [list(c) for c in columns]

    def total(col: list[int], g: list[int]) -> int:
        return sum(col[i] for i in g)

    while len(groups) > 1:
        bad = next((j for j, g in enumerate(groups) if any(0 < total(c, g) < min_cell for c in cols)), None)
        if bad is None:
            break
        other = bad + 1 if bad + 1 < len(groups) else bad - 1
        a, b = sorted((bad, other))
        groups[a:b + 1] = [groups[a] + groups[b]]
    names = [labels[g[0]] if len(g) == 1 else f"{labels[g[0]]} … {labels[g[-1]]}" for g in groups]
    return names, [[total(c, g) for g in groups] for c in cols]


def _count_cell(n: int) -> Markup:
    return Markup('<td class="num" data-count="{}">{}</td>').format(int(n), f"{int(n):,}")


def _dis_table(report: Any, policy: Policy) -> Markup | None:
    files = _files(report, "suda_dis", raw=True)
    if not files:
        return None
    msu_files = _files(report, "suda_dis")  # the MSU counts and, in safe mode, the table as the safe JSON has them
    labels = list(files[0][2].get("dis_table", {}))
    head = join(Markup("<th scope=col>{}</th>").format(name) for name, _, _, _ in files)
    if policy.safe:
        n = _file_records(report)
        body = partition_rows(labels, [(det.get("dis_table"), raw.get("dis_table"), n.get(name),
                                        _reason(report, "suda_dis"))
                                       for (name, _, det, _), (_, _, raw, _) in zip(msu_files, files)],
                              lambda label: label, policy)
    else:
        counts = [[int(det.get("dis_table", {}).get(label, 0)) for label in labels] for _, _, det, _ in files]
        body = join(Markup("<tr><td>{}</td>{}</tr>").format(label, join(_count_cell(c[i]) for c in counts))
                    for i, label in enumerate(labels))
    msu = join(Markup("<li>{}: MSUs by size {}</li>").format(
        name, ", ".join(f"{k}: {_count(v, policy, True)}" for k, v in det.get("msu_by_size", {}).items()))
        for name, _, det, _ in msu_files)
    note = ("Records per interval of the DIS-SUDA score (the probability that a unique match on key values is "
            "correct; SUDA2, sdcMicro's intervals)." + (" " + _PARTITION_NOTE.format(policy.min_cell)
                                                        if policy.safe else ""))
    return Markup('<h4>SUDA2: distribution of DIS-SUDA scores</h4><p class="note">{}</p><div class="scroll" tabindex="0"><table class="measures dis">'
                  "<thead><tr><th scope=col>DIS score</th>{}</tr></thead><tbody>{}</tbody></table></div><ul class=\"note\">{}</ul>"
                  ).format(note, head, body, msu)


#: the safe-mode note of the tables that partition a file's records (DIS-SUDA intervals, distinct l)
_PARTITION_NOTE = ("Safe mode: the cells are those of the safe JSON; a cell it withholds (fewer than {0} records, "
                   "with the next smallest cells until the withheld ones hold at least {0} records) reads "
                   "\u201cwithheld\u201d, and the last row gives the records of a file's withheld cells in all.")


def _file_records(report: Any) -> dict[str, int | None]:
    """The records of the original and of each scenario, by the names of :func:`_files` (as the JSON has them)."""
    original = getattr(report, "original", None)
    out = {"original": original.get("n_records") if isinstance(original, dict) else None}
    out.update({s.name: getattr(s, "n_records", None) for s in report.scenarios})
    return out


def _reason(report: Any, mid: str) -> str | None:
    return next((getattr(s.measures.get(mid), "withheld", None) for s in report.scenarios
                 if getattr(s.measures.get(mid), "withheld", None)), None)


def partition_rows(labels: Sequence[str], columns: Sequence[tuple[Any, Any, int | None, str | None]],
                   row_label: Any, policy: Policy) -> Markup:
    """Safe mode: the rows of a table of counts that partition each file's records, exactly as the safe JSON has
    them, and a last row "withheld, in all".

    ``columns``: per file ``(the safe JSON's table (label -> count or None; None: withheld entirely),
    the raw table, the file's records, a reason)``.  A withheld cell reads "withheld"; the last row gives the
    file's withheld cells together, the file's records less the cells shown (known from the JSON anyway, and
    at least ``min_cell`` by the JSON's rule), but only where the raw table adds up to the file's records (else
    the sum would not be the JSON's) and the sum is not small.  No merging here: a group merged otherwise than
    the JSON withholds, less the JSON's cells, would give a withheld cell back.

    >>> from markupsafe import Markup
    >>> html = partition_rows(["a", "b", "c"], [({"a": 40, "b": None, "c": None}, {"a": 40, "b": 1, "c": 9}, 50,
    ...                                          None)], lambda x: x, Policy(safe=True))
    >>> import re; re.sub("<[^>]+>", " ", str(html)).split()
    ['a', '40', 'b', 'withheld', 'c', 'withheld', 'withheld,', 'in', 'all', '10', 'records']
    """
    rows, in_all, any_hidden = [], [], False
    cells_by_file = []
    for js, raw, n, reason in columns:
        title = reason or f"withheld in safe mode (fewer than {policy.min_cell} records, or withheld with such a cell)"
        cells = []
        shown = 0
        for label in labels:
            v = js.get(label) if isinstance(js, dict) else None
            if v is None:
                cells.append(Markup('<td class="num"><span title="{}">withheld</span></td>').format(title))
            else:
                shown += int(v)
                cells.append(_count_cell(int(v)))
        cells_by_file.append(cells)
        hidden = sum(1 for label in labels if not (isinstance(js, dict) and js.get(label) is not None))
        raw_total = sum(int(v) for v in (raw or {}).values() if v is not None) if isinstance(raw, dict) else None
        any_hidden |= bool(hidden)
        if not hidden:
            in_all.append(Markup('<td class="num">–</td>'))
        elif n is not None and raw_total == n and policy.count_ok(n - shown) and n - shown > 0:
            in_all.append(Markup('<td class="num">{} records</td>').format(f"{n - shown:,}"))
        else:
            in_all.append(Markup('<td class="num">withheld</td>'))
    for i, label in enumerate(labels):
        rows.append(Markup("<tr><td>{}</td>{}</tr>").format(row_label(label), join(c[i] for c in cells_by_file)))
    if any_hidden:
        rows.append(Markup('<tr class="withheld"><td>withheld, in all</td>{}</tr>').format(join(in_all)))
    return join(rows)


def _l_tables(report: Any, policy: Policy) -> Markup | None:
    files = _files(report, "l_diversity", raw=True)
    if not files:
        return None
    shown = _files(report, "l_diversity")  # the summary rows (and in safe mode the counts) as the safe JSON has them
    n = _file_records(report)
    blocks = []
    for var in files[0][2].get("by_variable", {}):
        per = [(name, det.get("by_variable", {}).get(var, {})) for name, _, det, _ in files]
        per_shown = [(name, (det.get("by_variable") or {}).get(var, {})) for name, _, det, _ in shown]
        labels = list(per[0][1].get("distinct_counts", {}))
        head = join(Markup("<th scope=col>{}</th>").format(name) for name, _ in per)
        if policy.safe:  # the cells as the safe JSON has them, its withheld cells together in the last row
            body = partition_rows(labels, [(d.get("distinct_counts") if isinstance(d, dict) else None,
                                            raw.get("distinct_counts"), n.get(name), _reason(report, "l_diversity"))
                                           for (name, d), (_, raw) in zip(per_shown, per)],
                                  lambda label: f"distinct l = {label}", policy)
        else:
            counts = [[int(d.get("distinct_counts", {}).get(label, 0)) for label in labels] for _, d in per]
            body = join(Markup("<tr><td>distinct l = {}</td>{}</tr>").format(
                label, join(_count_cell(c[i]) for c in counts)) for i, label in enumerate(labels))
        summary = join(Markup("<tr><td>{}</td>{}</tr>").format(
            text, join(Markup('<td class="num">{}</td>').format(
                "withheld" if policy.safe and _withheld_at(d, path) else fmt(_get(d, path))) for _, d in per_shown))
            for text, path in (("median entropy l", ("entropy", "median")), ("min entropy l", ("entropy", "min")),
                               ("median recursive (c, l)", ("recursive", "median")),
                               ("share of records below l", ("share_below_l",))))
        blocks.append(Markup('<h5>{}</h5><div class="scroll" tabindex="0"><table class="measures ldiv"><thead><tr><th scope=col>records per class '
                             "l-diversity</th>{}</tr></thead><tbody>{}{}</tbody></table></div>").format(var, head, body, summary))
    note = ("Classes are the records with identical key values. Distinct l counts the different values of the sensitive "
            "variable in a record's class; a class with l = 1 discloses the value for all its records." +
            (" " + _PARTITION_NOTE.format(policy.min_cell) if policy.safe else ""))
    return Markup('<h4>l-diversity of the sensitive variables</h4><p class="note">{}</p>{}').format(note, join(blocks))


def _withheld_at(d: dict[str, Any], path: tuple[str, ...]) -> bool:
    """The entry at ``path`` exists and is None (withheld in the safe JSON)."""
    for key in path[:-1]:
        if not isinstance(d, dict) or key not in d:
            return False
        d = d[key]
    return isinstance(d, dict) and path[-1] in d and d[path[-1]] is None


def _get(d: dict[str, Any], path: tuple[str, ...]) -> float | None:
    for key in path:
        if not isinstance(d, dict) or key not in d:
            return None
        d = d[key]
    return d if isinstance(d, (int, float)) and math.isfinite(d) else None
