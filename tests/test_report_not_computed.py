"""A measure that cannot be computed is listed once per reason, not once per scenario and measure."""

import numpy as np
import pandas as pd

import infoloss


def _report():
    rng = np.random.default_rng(0)
    orig = pd.DataFrame({"x": rng.normal(size=200), "g": rng.choice(["a", "b", "c"], 200)})
    prots = [orig.assign(x=orig["x"] + rng.normal(0, s, 200)) for s in (0.1, 0.5)]
    spec = {"variables": {"x": {"scale": "continuous"}, "g": {"scale": "nominal"}}}
    ids = ["discernibility", "aecs", "height", "ks"]
    return infoloss.compare(orig, prots, spec, names=["small", "large"], measures=ids)


def test_a_family_computed_nowhere_shows_one_line_per_reason_and_no_empty_table():
    html = _report().to_html()
    section = html[html.index('id="family-generalisation"'):]
    section = section[: section.index("</section>")]
    assert "None of the 3 measures of this family could be computed for any scenario." in section
    assert section.count("No variable of the spec has a hierarchy") == 1
    assert "<b>discernibility</b>, <b>aecs</b>, <b>height</b> (in every scenario)" in section
    assert "<table" not in section


def test_the_variables_a_computed_measure_left_out_are_listed_with_their_reason():
    # the protected file has a region the recode map cannot place: GDU leaves region out (its details say so)
    # and averages the other variables, so the page says which it left out, once per reason
    rng = np.random.default_rng(1)
    orig = pd.DataFrame({"x": rng.normal(size=300), "region": rng.choice(["r1", "r2", "r3"], 300)})
    prot = orig.copy()
    prot.loc[:4, "region"] = "Ruritania"
    spec = {"variables": {"x": {"scale": "continuous"},
                          "region": {"scale": "nominal", "recode": {"map": {"r1": "r12", "r2": "r12"}}}}}
    report = infoloss.compare(orig, [prot, prot.copy()], spec, names=["a", "b"], measures=["ldu_uni", "gdu"])
    assert "region" in report.scenarios[0].measures["ldu_uni"].details["not_computed"]
    for safe in (False, True):
        html = report.to_html(safe=safe)
        section = html[html.index('id="family-gdu"'):]
        section = section[: section.index("</section>")]
        assert "Not computed, or left out" in section
        assert section.count("&#39;region&#39; is left out: the protected file has categories of &#39;region&#39;") == 1
        assert "<b>ldu_uni</b> (in every scenario)" in section
        assert ("Ruritania" in section) is not safe  # a value of the data: '…' in safe mode
