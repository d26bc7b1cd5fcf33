"""The HTML utility report: safe mode, escaping, self-containment, atomic writes,
summary colours and reading, size, and a real headless browser (Debian's chromium).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import infoloss
from infoloss import report as report_pkg
from infoloss.report.safe import round_sig

REPO = Path(__file__).resolve().parents[1]
TESTDATA = Path(__file__).resolve().parent / "data" / "testdata"
OUTPUT = REPO / "test-output" / "report"
UNIQUE = 987654.321


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------
def _survey(n=400, seed=0):
    """A small survey with one record unique in its categories and in its income."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "region": rng.choice(["North", "South", "East"], n),
        "sex": rng.choice(["f", "m"], n),
        "size": rng.integers(1, 6, n).astype(str),
        "income": rng.normal(3000, 600, n).round(2),
        "spend": rng.normal(1200, 300, n).round(2),
    })
    df.loc[7, ["region", "sex", "size", "income"]] = ["Zanzibar", "f", "9", UNIQUE]
    return df


SPEC = {"variables": {"region": {"scale": "nominal", "role": "key"}, "sex": {"scale": "nominal", "role": "key"},
                      "size": {"scale": "ordinal", "role": "key"}, "income": {"scale": "continuous"},
                      "spend": {"scale": "continuous"}}}


def _noisy(df, scale, seed=1):
    rng = np.random.default_rng(seed)
    out = df.copy()
    for col in ("income", "spend"):
        out[col] = df[col] + rng.normal(0, scale * df[col].std(), len(df))
    flip = rng.random(len(df)) < min(scale, 0.5)
    out.loc[flip, "sex"] = rng.choice(["f", "m"], int(flip.sum()))
    return out


def fake_statistics(orig: pd.DataFrame, prot: pd.DataFrame, names: list[str]) -> dict:
    """``ScenarioResult.statistics`` in the documented shape (until the moments family fills it)."""

    def side(df):
        x = df[names].astype(float)
        n = x.notna().sum()
        mean, sd = x.mean(), x.std(ddof=1)
        half = 1.96 * sd / np.sqrt(n)
        return {"n": n.to_dict(), "mean": mean.to_dict(), "sd": sd.to_dict(), "variance": (sd**2).to_dict(),
                "mean_ci": {v: [mean[v] - half[v], mean[v] + half[v]] for v in names},
                "cov": x.cov().to_numpy().tolist(), "corr": x.corr().to_numpy().tolist()}

    return {"variables": names, "weighted": False, "confidence": 0.95, "orig": side(orig), "prot": side(prot)}


def _compare(orig, prots, names, spec=SPEC, measures=None, stats=True):
    rep = infoloss.compare(orig, prots, spec, names=names, measures=measures)
    if stats:
        cont = [v for v, s in spec["variables"].items() if s.get("scale") == "continuous"]
        for s, p in zip(rep.scenarios, prots):
            if s.statistics is None:
                s.statistics = fake_statistics(orig, p, cont)
    return rep


@pytest.fixture(scope="module")
def survey_report():
    orig = _survey()
    return _compare(orig, [_noisy(orig, 0.05), _noisy(orig, 0.5, seed=2)], ["light", "heavy"])


@pytest.fixture(scope="module")
def safe_html(survey_report):
    return survey_report.to_html(safe=True, min_cell=5)


@pytest.fixture(scope="module")
def full_html(survey_report):
    return survey_report.to_html()


# ---------------------------------------------------------------------------
# safe-to-share mode
# ---------------------------------------------------------------------------
def _forms(x: float) -> set[str]:
    """The ways a number could be printed: exact and rounded to 2..7 significant digits."""
    out = {repr(x), f"{x}", f"{x:.2f}", f"{x:,.2f}", f"{x:.1f}"}
    for d in range(2, 8):
        r = round_sig(x, d)
        out |= {f"{r:g}", f"{r:,.0f}", f"{r:.0f}", f"{r / 1e3:g}k", f"{r / 1e6:g}M", f"{r:.{d}g}"}
    return {s for s in out if len(s) >= 3}


def test_safe_mode_shows_no_value_of_the_unique_record(safe_html):
    for form in _forms(UNIQUE):
        assert form not in safe_html, form
    assert "Zanzibar" not in safe_html


def test_safe_mode_shows_no_count_below_min_cell(safe_html):
    counts = [int(c) for c in re.findall(r'data-count="(\d+)"', safe_html)]
    assert counts, "the charts carry their counts"
    assert not [c for c in counts if 0 < c < 5]
    assert not re.search(r"(?<![\d.,])[1-4] records?\b", safe_html)


def test_safe_mode_states_its_settings_and_hides_outliers(safe_html):
    assert "Safe-to-share mode, minimum cell size 5" in safe_html
    assert "5th and 95th percentiles" in safe_html
    assert 'class="outliers"' not in safe_html.split('id="variables"')[1]  # no outlier marks in box plots


def test_full_mode_shows_more_detail(full_html, safe_html):
    assert "Zanzibar" in full_html and "Full-detail report" in full_html
    counts = [int(c) for c in re.findall(r'data-count="(\d+)"', full_html)]
    assert [c for c in counts if 0 < c < 5]
    assert "outliers" in full_html


def test_min_cell_is_a_setting(survey_report):
    html = survey_report.to_html(safe=True, min_cell=20)
    assert "minimum cell size 20" in html
    assert not [c for c in map(int, re.findall(r'data-count="(\d+)"', html)) if 0 < c < 20]


# ---------------------------------------------------------------------------
# escaping and self-containment
# ---------------------------------------------------------------------------
def test_names_and_labels_are_escaped():
    rng = np.random.default_rng(3)
    evil = "<script>alert(1)</script>"
    orig = pd.DataFrame({evil: rng.choice(['a"b & c', "plain"], 200), "v": rng.normal(size=200)})
    prot = orig.assign(v=orig["v"] + 0.1)
    prot.loc[:20, evil] = "plain"  # the categorical variable changes too, so its plots (and labels) are drawn
    spec = {"variables": {evil: {"scale": "nominal", "role": "key"}, "v": {"scale": "continuous"}}}
    html = infoloss.compare(orig, prot, spec).to_html()
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "a&#34;b &amp; c" in html
    assert html.count("<script>") == 1  # the page's own check script only


def test_page_loads_nothing_from_outside(full_html):
    refs = re.findall(r'(?:src|href)\s*=\s*["\']([^"\']*)', full_html)
    assert all(r.startswith("#") for r in refs), [r for r in refs if not r.startswith("#")]
    assert not re.search(r"url\(|@import|https?://", full_html)


def test_jupyter_shows_the_report_inline(survey_report):
    """The notebook shows the summary table (tests/test_api.py checks its content), not the whole page."""
    inline = survey_report._repr_html_()
    assert inline.startswith('<div class="infoloss-report">') and "<table>" in inline
    assert "<!DOCTYPE html>" not in inline


# ---------------------------------------------------------------------------
# summary
# ---------------------------------------------------------------------------
def test_summary_colours_and_reading_follow_the_registry_direction():
    orig = _survey(seed=5)
    rep = _compare(orig, [_noisy(orig, 0.6), orig.copy()], ["noisy", "copy"], stats=False)
    html = rep.to_html()
    summary = html.split('<section id="headline"')[1].split("</table>")[0]
    rows = re.findall(r"<tr>(.*?)</tr>", summary, re.S)[1:]
    assert rows
    for row in rows:
        cells = re.findall(r'<td class="num ([a-z]+)', row)
        if "tie" not in cells and "nc" not in cells:
            assert cells == ["worst", "best"], row  # the unchanged copy is best on every measure
    assert "<b>copy</b> keeps most information" in html
    assert "<b>noisy</b> loses most" in html


def test_higher_is_better_measures_colour_the_higher_value_best():
    from infoloss.report.parts import positions

    assert positions([0.9, 0.7, 0.8], "higher") == [0.0, 1.0, pytest.approx(0.5)]
    assert positions([0.9, 0.7, 0.8], "lower") == [1.0, 0.0, pytest.approx(0.5)]


def test_families_and_not_computed_reasons_appear(survey_report):
    orig = _survey(seed=6)
    unpaired = {**SPEC, "pairing": "none"}
    rep = _compare(orig, [_noisy(orig, 0.2).sample(frac=1, random_state=0)], ["shuffled"], spec=unpaired)
    html = rep.to_html()
    from markupsafe import escape

    from infoloss.registry import FAMILIES, get

    families = {get(m).family for m in rep.measure_ids}
    for fam in families:
        assert f"<h2>{escape(FAMILIES[fam])}</h2>" in html  # "The user's own ..." has an apostrophe
    assert "Not computed" in html and "needs record-paired files" in html
    assert "Means before/after" in html and "Correlation matrices before/after" in html


# ---------------------------------------------------------------------------
# files
# ---------------------------------------------------------------------------
def test_to_html_replaces_an_existing_file_atomically(tmp_path, survey_report, monkeypatch):
    path = tmp_path / "report.html"
    path.write_text("old report " * 10000)
    survey_report.to_html(path)
    new = path.read_text()
    assert new.startswith("<!DOCTYPE html>") and new.rstrip().endswith("</html>") and "old report" not in new

    def broken(*args, **kwargs):
        raise RuntimeError("render failed")

    monkeypatch.setattr(report_pkg, "render_html", broken)
    with pytest.raises(RuntimeError):
        survey_report.to_html(path)
    assert path.read_text() == new
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_a_large_comparison_gives_a_small_page():
    n = 200_000
    rng = np.random.default_rng(7)
    orig = pd.DataFrame({f"c{i}": rng.lognormal(8, 1, n) for i in range(6)})
    for i in range(4):
        orig[f"k{i}"] = rng.choice([f"cat{j}" for j in range(8)], n)
    spec = {"variables": {**{f"c{i}": {"scale": "continuous"} for i in range(6)},
                          **{f"k{i}": {"scale": "nominal", "role": "key"} for i in range(4)}}}
    prot = orig.copy()
    for i in range(6):
        prot[f"c{i}"] = orig[f"c{i}"] * rng.normal(1, 0.1, n)
    rep = infoloss.compare(orig, [prot, orig], spec, measures=["il1s", "lambda"])
    html = rep.to_html()
    assert len(html.encode()) < 2_000_000  # far under 10 MB: aggregates, not records


# ---------------------------------------------------------------------------
# a real browser
# ---------------------------------------------------------------------------
def _find_chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def chromium():
    """The headless browser; the test skips without one unless INFOLOSS_REQUIRE_BROWSER=1 (set by .ci/run)."""
    found = _find_chromium()
    if found:
        return found
    if os.environ.get("INFOLOSS_REQUIRE_BROWSER") == "1":
        pytest.fail("INFOLOSS_REQUIRE_BROWSER=1 but no chromium was found; install Debian's chromium package.")
    pytest.skip("no chromium found (install Debian's chromium to run the browser test)")


def _browser(chromium: str, url: str, *args: str) -> subprocess.CompletedProcess:
    """Run headless chromium offline: in a network namespace when possible, and with no name resolution."""
    cmd = [chromium, "--headless", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
           "--no-proxy-server", "--host-resolver-rules=MAP * ~NOTFOUND", "--disable-background-networking",
           "--enable-logging=stderr", "--v=0", "--hide-scrollbars", *args, url]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.insert(1, "--no-sandbox")
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-n", "true"], capture_output=True).returncode == 0:
        cmd = [unshare, "-n", *cmd]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def _testdata_report():
    names = ["ls_k3.csv", "recode_pram_noise50.csv", "recode_mdav3_ls_k3.csv"]
    if TESTDATA.is_dir():
        rep = infoloss.compare(TESTDATA / "original.csv", [TESTDATA / n for n in names], TESTDATA / "spec.yaml")
        orig = pd.read_csv(TESTDATA / "original.csv")
        cont = ["expend", "income", "savings"]
        for s, n in zip(rep.scenarios, names):
            if s.statistics is None:
                s.statistics = fake_statistics(orig, pd.read_csv(TESTDATA / n), cont)
        return "testdata", rep
    orig = _survey()
    return "survey", _compare(orig, [_noisy(orig, 0.05), _noisy(orig, 0.3), _noisy(orig, 0.6)], ["a", "b", "c"])


@pytest.fixture(scope="module")
def browser_pages(tmp_path_factory):
    name, rep = _testdata_report()
    OUTPUT.mkdir(parents=True, exist_ok=True)
    pages = {}
    for mode, safe in (("full", False), ("safe", True)):
        path = OUTPUT / f"{name}_{mode}.html"
        rep.to_html(path, safe=safe)
        pages[mode] = path
    return pages


@pytest.mark.parametrize("mode", ["full", "safe"])
def test_report_renders_in_a_real_browser(chromium, browser_pages, mode):
    path = browser_pages[mode]
    url = path.resolve().as_uri()
    result = _browser(chromium, url, "--dump-dom", "--virtual-time-budget=5000")
    dom = result.stdout
    root = re.search(r"<html[^>]*>", dom)
    assert root, f"no DOM dumped: {result.stderr[-2000:]}"
    attrs = dict(re.findall(r'(data-[a-z-]+)="([^"]*)"', root.group(0)))
    assert attrs.get("data-check") == "done", attrs
    assert attrs["data-errors"] == ""
    n_charts = path.read_text().count('<svg class="chart"')
    assert int(attrs["data-charts"]) == n_charts > 10
    # console messages of the page itself (chromium's own chrome:// pages log too; they are not ours)
    console = [ln for ln in result.stderr.splitlines()
               if ("CONSOLE" in ln and "source: file:" in ln) or "Uncaught" in ln]
    assert not console, console

    shot = path.with_suffix(".png")
    shot.unlink(missing_ok=True)
    _browser(chromium, url, f"--screenshot={shot}", "--window-size=1280,4000")
    assert shot.is_file() and shot.stat().st_size > 20_000
    print(f"screenshot: {shot}")


def test_control_and_bidi_characters_of_the_data_are_shown_as_codes():
    # U+202E in a name reversed the page's own numbers after it; ESC made inline SVG charts ill-formed XML
    import re
    import xml.etree.ElementTree as ET

    import infoloss

    rng = np.random.default_rng(0)
    o = pd.DataFrame({"c\u202e": rng.choice(["plain", "esc\x1b[31mred", "bell\x07"], 100), "x": rng.normal(size=100)})
    p = o.copy()
    p.loc[:20, "c\u202e"] = "plain"
    page = infoloss.compare(o, p, {"variables": {"c\u202e": {"scale": "nominal"}, "x": {"scale": "continuous"}}},
                            measures=["lambda", "hellinger"]).to_html()
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\u202a-\u202e\u2066-\u2069]", page)
    assert "c\\u202e" in page and "esc\\x1b[31mred" in page
    for svg in re.findall(r'<svg class="chart".*?</svg>', page, re.S):
        ET.fromstring(svg.replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1))


def test_safe_reasons_hide_a_quoted_value_holding_both_quote_marks():
    # repr writes 'Ann "Jo" O\'Hara'; the quote matching stopped at \' and left "Jo" O\' in the safe text
    from infoloss.report.safe import sanitise_reason

    label = 'Ann "Jo" O' + chr(39) + "Hara"
    reason = "the recode map misses " + repr(label) + " and " + repr(chr(34) + "x" + chr(39)) + " of 'h'"
    safe = sanitise_reason(reason, {"h"})
    assert "Jo" not in safe and "Hara" not in safe and "'h'" in safe


def test_the_plots_per_variable_say_they_are_unweighted_on_a_weighted_file():
    from infoloss.synth import make_spec, make_survey, protect

    df = make_survey(400, n_continuous=2, n_categorical=1, seed=0)
    prot = protect(df, noise=0.3, seed=1)
    note = "count records, unweighted; the weighted estimates are under Moments"
    weighted = make_spec(df)
    assert weighted.get("weight") or any(v.get("role") == "weight" for v in weighted["variables"].values())
    assert note in infoloss.compare(df, prot, weighted).to_html()
    unweighted = {"variables": {k: v for k, v in weighted["variables"].items() if v.get("role") != "weight"}}
    unweighted.pop("weight", None)
    assert note not in infoloss.compare(df.drop(columns="weight"), prot.drop(columns="weight"), unweighted).to_html()


@pytest.mark.parametrize("safe", [False, True])
def test_scenarios_adding_different_categories_share_one_mosaic(safe):
    # one scenario's pair held a category the other's lacked: its counts were longer than the grouping (a crash)
    rng = np.random.default_rng(0)
    cats = [f"c{i:02d}" for i in range(5)]
    orig = pd.DataFrame({"v": rng.choice(cats, 200), "w": rng.choice(cats, 200)})
    a, b = orig.copy(), orig.copy()
    a.loc[50:60, "w"] = "zz"
    b.loc[:9, "v"] = "new"
    spec = {"variables": {"v": {"scale": "nominal", "role": "key"}, "w": {"scale": "nominal", "role": "key"}}}
    html = infoloss.compare(orig, [a, b], spec).to_html(safe=safe, min_cell=5)
    legend = re.search(r'aria-label="mosaic plot of v".*?</svg>', html, re.S).group(0)
    # every c.. lost 1 to 4 of the 10 records recoded to "new": 10 changes, shown (not a withheld count)
    assert ">new</text>" in legend and ">c04</text>" in legend


def test_no_heading_is_followed_directly_by_a_heading_of_the_same_level(survey_report):
    # three sections had an h3 with nothing under it but another h3
    html = survey_report.to_html()
    assert not re.search(r"</h([2-5])>\s*(<div[^>]*>\s*)*<h\1[ >]", html)


def test_the_change_share_above_a_mosaic_column_is_that_of_the_variable_s_own_categories():
    # 60 categories drawn as 14 groups: 26 % of the groups against 80 % of the categories (a recoded age)
    rng = np.random.default_rng(0)
    age = rng.integers(15, 75, 2000)
    orig = pd.DataFrame({"age": age.astype(str)})
    prot = pd.DataFrame({"age": (age // 5 * 5).astype(str)})  # recoded to 5-year classes
    spec = {"variables": {"age": {"scale": "nominal"}}}
    html = infoloss.compare(orig, prot, spec, measures=["records_changed"]).to_html()
    o, p = orig["age"].value_counts(), prot["age"].value_counts()
    tv = 0.5 * (o.sub(p, fill_value=0).abs().sum()) / 2000
    chart = re.search(r'aria-label="mosaic plot of age".*?</svg>', html, re.S).group(0)
    from infoloss.report.numbers import percent
    assert f">{percent(tv)}</text>" in chart, (percent(tv), chart[:300])


def _generalised_report(tmp_path, safe=False):
    """20 categories c00..c19, the protected file generalised to their groups g0..g3 (a hierarchy, level 1)."""
    rows = [[f"c{k:02d}", f"g{k // 5}", "*"] for k in range(20)]
    (tmp_path / "h.csv").write_text("\n".join(";".join(r) for r in rows) + "\n")
    rng = np.random.default_rng(0)
    orig = pd.DataFrame({"job": [f"c{k:02d}" for k in rng.integers(0, 20, 600)], "x": rng.normal(size=600)})
    prot = orig.assign(job=["g" + str(int(v[1:]) // 5) for v in orig["job"]])
    spec = {"variables": {"job": {"scale": "nominal", "role": "key", "hierarchy": str(tmp_path / "h.csv")},
                          "x": {"scale": "continuous"}}}
    return infoloss.compare(orig, [prot], spec, names=["generalised"], measures=["records_changed", "aad"])


@pytest.mark.parametrize("safe", [False, True])
def test_generalised_values_are_drawn_as_generalised_not_as_other_categories(tmp_path, safe):
    rep = _generalised_report(tmp_path)
    html = report_pkg.render_html(rep, safe=safe)
    block = html[html.index('aria-label="mosaic plot of job"'):]
    block = block[:block.index("</details>", block.index('class="data"'))]
    # the four groups are segments of their own, under a heading that says what they are
    assert "generalised to level 1:" in block
    for g in ("g0", "g1", "g2", "g3"):
        assert re.search(rf"<title>generalised · {g}: [\d,]+ \(", block), g
        assert f"{g} <small>(generalised, level 1)</small>" in block  # data table: the JSON's name and its level
    # "other categories" holds original categories only (20 + 4 > 14 segments): never the generalised records
    other = re.search(r"<title>generalised · (\d+) other categories", block)
    assert other is None
    # the page's names are the JSON tables' names
    cats = rep.to_dict()["scenarios"][0]["tables"]["one_way"]["job"]["categories"]
    assert {"g0", "g1", "g2", "g3"} <= set(cats)


def test_the_files_table_says_how_each_scenario_is_paired():
    # under pairing: nearest the table said "not paired (record-level measures not computed)" while the page
    # showed the record-level measures computed on the nearest-record pairs (found by the report audit)
    rng = np.random.default_rng(2)
    orig = pd.DataFrame({"g": rng.choice(list("ab"), 300), "x": rng.normal(size=300)})
    synth = pd.DataFrame({"g": rng.choice(list("ab"), 200), "x": rng.normal(size=200)})
    spec = {"variables": {"g": {"scale": "nominal", "role": "key"}, "x": {"scale": "continuous"}}}
    nearest = infoloss.compare(orig, synth, {**spec, "pairing": "nearest"}, measures=["il1s"])
    median = nearest.scenarios[0].pairing["distance_quantiles"]["0.5"]
    html = nearest.to_html()
    assert "il1s" in nearest.scenarios[0].measures
    assert f"each record paired with its nearest original record (pairing: nearest; median standardised distance " \
           f"{report_pkg.numbers.number(median)})" in html
    assert "not paired (record-level measures not computed)" not in html
    unpaired = infoloss.compare(orig, synth, {**spec, "pairing": "none"}, measures=["il1s"]).to_html()
    assert "not paired (record-level measures not computed)" in unpaired
    paired = infoloss.compare(orig, orig.copy(), spec, measures=["il1s"]).to_html()
    assert "paired with the original&#39;s records" in paired or "paired with the original's records" in paired
