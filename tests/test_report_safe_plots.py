"""Safe mode of the plots per variable: what the audit /tmp/s11/h7 (FINDINGS.md) found they give back.

Each test names the finding it guards (2: two-way mosaics, 6: net changes of the one-way mosaics,
7: axis ends, 8: box-plot whiskers, 9: wording).
"""

from __future__ import annotations

import html as htmllib
import re

import numpy as np
import pandas as pd
import pytest

import infoloss

MIN_CELL = 5


def _text(page: str) -> str:
    return re.sub(r"\s+", " ", htmllib.unescape(re.sub(r"<[^>]+>", " ", page)))


@pytest.fixture(scope="module")
def regions():
    """300 records; region North 140 / South 120 / East 35 / Zeta 3 / Omega 2 (keys region, sex).
    p1: region suppressed in 2 South records, age in 3; p2: Zeta/Omega recoded to Other, one North record to Mars,
    sex swapped in 4 records."""
    rng = np.random.default_rng(7)
    n = 300
    region = np.array(["North"] * 140 + ["South"] * 120 + ["East"] * 35 + ["Zeta"] * 3 + ["Omega"] * 2)
    rng.shuffle(region)
    orig = pd.DataFrame({"region": region, "sex": rng.choice(["M", "F"], n),
                         "age": rng.integers(18, 70, n).astype(float), "score": rng.normal(50, 10, n)})
    orig.loc[[30, 31, 32], "score"] = np.nan
    p1 = orig.copy()
    south = np.flatnonzero(region == "South")[:2]
    p1.loc[south, "region"] = np.nan
    p1.loc[[50, 51, 52], "age"] = np.nan
    p2 = orig.copy()
    p2.loc[p2.region.isin(["Zeta", "Omega"]), "region"] = "Other"
    p2.loc[int(np.flatnonzero(region == "North")[0]), "region"] = "Mars"
    idx = [70, 71, 72, 73]
    p2.loc[idx, "sex"] = np.where(p2.loc[idx, "sex"] == "M", "F", "M")
    spec = {"variables": {"region": {"scale": "nominal", "role": "key"}, "sex": {"scale": "nominal", "role": "key"},
                          "age": {"scale": "continuous"}, "score": {"scale": "continuous"}}, "pairing": "row"}
    report = infoloss.compare(orig, [p1, p2], spec, names=["p1", "p2"])
    return report, report.to_html(safe=True, min_cell=MIN_CELL)


def _svg(page: str, label: str) -> str:
    i = page.find(f'aria-label="{label}"')
    assert i >= 0, label
    return page[i:page.find("</svg>", i)]


def _titles(svg: str) -> list[str]:
    return [htmllib.unescape(t) for t in re.findall(r"<title>([^<]*)</title>", svg)]


def _one_way(page: str, name: str) -> dict[tuple[str, str], int]:
    out = {}
    for t in _titles(_svg(page, f"mosaic plot of {name}")):
        m = re.match(r"(\S+) · (.+): (\d+) \(", t)
        if m:
            out[(m.group(1), m.group(2))] = int(m.group(3))
    return out


def _two_way(page: str, a: str, b: str, f: str) -> dict[tuple[str, str], int]:
    cells = {}
    if f'aria-label="mosaic plot of {a} by {b}, {f}"' not in page:
        assert "Not drawn: every cell is suppressed in safe mode" in _text(page), (a, b, f)
        return cells
    for t in _titles(_svg(page, f"mosaic plot of {a} by {b}, {f}")):
        m = re.match(r"(.+?) × (.+?): (\d+) records", t)
        if m:
            cells[(m.group(1), m.group(2))] = int(m.group(3))
    return cells


# ---------------------------------------------------------------------------
# finding 2: the two-way mosaic
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pairs():
    """The regions of :func:`regions`; p1 swaps sex in 6 North records (3 each way) and suppresses region in
    6 South records (net changes 0 or at least min_cell: the one-way mosaics keep East, North and South)."""
    rng = np.random.default_rng(7)
    n = 300
    region = np.array(["North"] * 140 + ["South"] * 120 + ["East"] * 35 + ["Zeta"] * 3 + ["Omega"] * 2)
    rng.shuffle(region)
    orig = pd.DataFrame({"region": region, "sex": rng.choice(["M", "F"], n)})
    p1 = orig.copy()
    north = orig.region == "North"
    swap = list(orig.index[north & (orig.sex == "F")][:3]) + list(orig.index[north & (orig.sex == "M")][:3])
    p1.loc[swap, "sex"] = np.where(orig.loc[swap, "sex"] == "F", "M", "F")  # net 0 per sex
    p1.loc[orig.index[orig.region == "South"][:6], "region"] = np.nan  # South -6, missing +6
    spec = {"variables": {"region": {"scale": "nominal", "role": "key"}, "sex": {"scale": "nominal", "role": "key"}},
            "pairing": "row"}
    report = infoloss.compare(orig, [p1], spec, names=["p1"])
    return report, report.to_html(safe=True, min_cell=MIN_CELL)


def test_two_way_mosaic_draws_no_cell_the_safe_json_suppresses(regions):
    report, page = regions
    suppressed = set()
    for scenario in report.to_dict(safe=True, min_cell=MIN_CELL)["scenarios"]:
        t = scenario["tables"]["two_way"]["region|sex"]
        suppressed |= {(r, c) for i, r in enumerate(t["rows"]) for j, c in enumerate(t["columns"])
                       if t["original"]["count"][i][j] is None}
    assert ("East", "F") in suppressed  # p2 swaps the sex of one East record: a net flow of one
    for f in ("original", "p1", "p2"):
        shown = _two_way(page, "region", "sex", f)
        assert not suppressed & set(shown), (f, suppressed & set(shown))


def test_two_way_mosaic_hides_no_cell_its_margins_give_back(pairs):
    _, page = pairs
    one = _one_way(page, "sex")
    assert ("North", "F") in _two_way(page, "region", "sex", "original")  # drawn, not all suppressed
    for f in ("original", "p1"):
        cells = _two_way(page, "region", "sex", f)
        assert all(v == 0 or v >= MIN_CELL for v in cells.values()), cells
        for sex in ("F", "M"):
            hidden = one[(f, sex)] - sum(v for (r, s), v in cells.items() if s == sex)
            assert hidden == 0 or hidden >= MIN_CELL, (f, sex, hidden)  # a column's hidden records
        rows = {r for r, _ in cells}
        for r in rows:  # a row's hidden cells are one segment, and never a single cell
            shown = [s for (q, s), v in cells.items() if q == r and s in ("F", "M")]
            assert len(shown) != 1 or (r, "suppressed cells (merged)") not in cells, (f, r, cells)


# ---------------------------------------------------------------------------
# finding 6: net changes in the one-way mosaic, and the change share above a column
# ---------------------------------------------------------------------------
def test_one_way_mosaic_differences_are_not_small_counts(regions):
    _, page = regions
    one = _one_way(page, "region")
    for f in ("p1", "p2"):
        for (g, seg), v in one.items():
            if g == f:
                d = abs(v - one[("original", seg)])
                assert d == 0 or d >= MIN_CELL, (f, seg, d)  # e.g. South 120 -> 118: 2 suppressed values


def test_change_shares_of_few_records_read_as_a_bound(regions):
    _, page = regions
    text = _text(page)
    assert "0.67 %" not in text and "0.33 %" not in text  # 2 and 1 records of 300
    labels = re.findall(r'y="34" text-anchor="middle" fill="#595959">([^<]+)</text>',
                        _svg(page, "mosaic plot of sex"))
    assert all(htmllib.unescape(x) in ("0 %", "< 1.7 %") or float(x.split()[0]) >= 500 / 300 for x in labels), labels


# ---------------------------------------------------------------------------
# finding 9: wording
# ---------------------------------------------------------------------------
def test_a_variable_with_withheld_suppressions_is_not_called_unchanged(regions):
    _, page = regions
    text = _text(page)
    flat = re.search(r"No change in any scenario \([^)]*\):([^.]*)\.", text)
    assert flat is None or "age" not in flat.group(1)  # p1 suppressed 3 ages (count withheld)
    assert re.search(r'<details class="variable continuous" id="[^"]+"[^>]*><summary><h3>age ', page)


def test_few_missing_values_are_not_called_few_values(regions):
    _, page = regions
    text = _text(page)
    # age and score have 297 values in a file; only their missing counts (3) are small
    assert not re.search(r"(age|score)[^.]{0,30} fewer than 5 records with a value", text), \
        re.findall(r"[^.]{0,60}fewer than 5 records with a value[^.]*", text)
    assert "Not drawn: score" not in text
    # p1 suppressed 3 ages: the original's statistics of age are withheld in every scenario (its exact or rounded
    # mean less p1's values is theirs), so no correlation is drawn, for that reason
    assert "No correlations drawn (safe mode): age (a scenario changed it in fewer than 5 records" in text


# ---------------------------------------------------------------------------
# findings 7 and 8: axis ends and whiskers among the most extreme records
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def extremes():
    """60 records: age with one 104 (the next largest 65 or below), gain 0 but in one record (87,654)."""
    rng = np.random.default_rng(3)
    n = 60
    age = rng.integers(20, 66, n).astype(float)
    age[0] = 104.0
    gain = np.zeros(n)
    gain[1] = 87654.0
    orig = pd.DataFrame({"sex": rng.choice(["F", "M"], n), "age": age, "gain": gain})
    prot = orig.copy()
    prot["age"] = np.minimum(prot.age, 80)
    prot["gain"] = np.minimum(prot.gain, 50000)
    spec = {"variables": {"sex": {"scale": "nominal", "role": "key"}, "age": {"scale": "continuous"},
                          "gain": {"scale": "continuous"}}, "pairing": "row"}
    report = infoloss.compare(orig, prot, spec)
    return report, orig, report.to_html(safe=True, min_cell=MIN_CELL)


def _axis_ends(svg: str) -> tuple[float, float]:
    """The x-axis span of a histogram panel, from its axis line and two tick labels."""
    x0, x1 = map(float, re.search(r'<path d="M([\d.]+) 160H([\d.]+)M', svg).groups())
    ticks = [(float(x), htmllib.unescape(t)) for x, t in
             re.findall(r'<text x="([\d.]+)" y="174" text-anchor="middle"[^>]*>([^<]+)</text>', svg)]

    def val(t: str) -> float:
        return float(t.replace("k", "e3").replace("M", "e6").replace("−", "-"))

    (xa, ta), (xb, tb) = ticks[0], ticks[1]
    scale = (val(tb) - val(ta)) / (xb - xa)
    return val(ta) + (x0 - xa) * scale, val(ta) + (x1 - xa) * scale


def test_axis_ends_are_not_placed_by_a_few_extreme_records(extremes):
    _, orig, page = extremes
    lo, hi = _axis_ends(_svg(page, "histogram of gain: scenario1 and original"))
    assert hi < 1000, hi  # was about 1.06 x 87,654: the one record's value
    lo, hi = _axis_ends(_svg(page, "histogram of age: scenario1 and original"))
    second = np.sort(orig.age.to_numpy())[-2]
    assert hi < second, (hi, second)  # was 96: the 99.5 % quantile, between 104 and the next age


def test_whiskers_end_where_enough_records_lie_beyond(extremes):
    from infoloss.report.plotdata import Policy, box_stats

    report, orig, page = extremes
    stats = report.scenarios[0].aggregates["variables"]["age"]["stats"]["orig"]
    b = box_stats(stats, Policy(safe=True, min_cell=MIN_CELL))
    ages = orig.age.to_numpy()
    assert (ages < b["whiskers"][0]).sum() >= MIN_CELL and (ages > b["whiskers"][1]).sum() >= MIN_CELL
    assert b["whiskers"] == [b["q1"], b["q3"]]  # 5 % of 60 records: 3; the whiskers end at the quartiles
    assert "a whisker ends at the quartile" in _text(_svg(page, "box plots of age"))
    big = box_stats({**stats, "n": 300}, Policy(safe=True, min_cell=MIN_CELL))
    assert big["whiskers"] != [big["q1"], big["q3"]]  # 15 records beyond the 5th/95th percentiles: drawn there


def test_no_box_where_fewer_than_min_cell_records_lie_beyond_a_quartile():
    # with 15 records a quartile is about the 4th smallest (largest) value: fewer than 5 records beyond it
    rng = np.random.default_rng(11)
    orig = pd.DataFrame({"x": rng.normal(50, 10, 15).round(2), "g": rng.choice(["a", "b"], 15)})
    prot = orig.copy()
    prot["x"] = prot.x + 1.0
    spec = {"variables": {"x": {"scale": "continuous"}, "g": {"scale": "nominal"}}}
    report = infoloss.compare(orig, prot, spec, measures=["ks"])
    page = report.to_html(safe=True, min_cell=MIN_CELL)
    box = _text(_svg(page, "box plots of x"))
    assert "original, scenario1: fewer than 5 records beyond a quartile, not drawn" in box
    assert "quartiles" not in re.sub(r"beyond a quartile", "", box)  # no box's tooltip
    text = _text(page)
    assert text.count("withheld: fewer than 5 records beyond") == 6  # 3 quartiles x 2 files
    for q in np.quantile(orig.x, [0.25, 0.5, 0.75]):
        assert f"{q:.3g}" not in text
    full = _text(report.to_html())
    assert f"{np.quantile(orig.x, 0.25):.3g}" in full
    from infoloss.report.plotdata import Policy, box_stats

    stats = report.scenarios[0].aggregates["variables"]["x"]["stats"]["orig"]
    assert box_stats({**stats, "n": 18}, Policy(safe=True, min_cell=MIN_CELL)) is not None
