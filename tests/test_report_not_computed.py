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
