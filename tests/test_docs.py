"""The documentation stays in step with the code."""

import re
from pathlib import Path

from infoloss.registry import markdown_table, registered

ROOT = Path(__file__).resolve().parents[1]


def test_measures_page_lists_the_registry_as_generated():
    text = (ROOT / "docs" / "measures.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- measures:start -->\n(.*)<!-- measures:end -->", text, re.S)
    assert block, "docs/measures.md lost its generated block"
    # regenerate with: python -c "from infoloss.registry import markdown_table; print(markdown_table(), end='')"
    assert block.group(1) == markdown_table()
    ids = re.findall(r"^\| `([a-z_0-9]+)` \|", block.group(1), re.M)
    assert ids == [m.id for m in registered()]


def test_readme_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    test_line = [line for line in readme.splitlines() if "pytest" in line][0].strip()
    assert test_line in ci


def test_no_long_line_is_repeated_on_a_page():
    # docs/measures.md repeated "null expectation and its standardised value (Snoke et al. 2018), ..." (a paste)
    from collections import Counter

    for page in (ROOT / "docs").glob("*.md"):
        lines = [line.strip().rstrip(".") for line in page.read_text(encoding="utf-8").splitlines()
                 if len(line.strip()) > 40]
        assert [line for line, n in Counter(lines).items() if n > 1] == [], page.name


def test_the_json_keys_are_documented():
    import pandas as pd

    import infoloss

    df = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "g": list("abab")})
    spec = {"variables": {"x": {"scale": "continuous"}, "g": {"scale": "nominal"}}}
    result = infoloss.compare(df, df.copy(), spec, measures=["il1s", "chi2_distance"]).to_dict(safe=True)
    text = (ROOT / "docs" / "measures.md").read_text(encoding="utf-8")
    section = text.split("## The JSON result", 1)[1].split("\n## ", 1)[0]
    option = result["measures"]["chi2_distance"]["options"][1]
    for key in [*result, *result["scenarios"][0], *result["original"], *result["measures"]["il1s"], *option]:
        assert re.search(rf"[`{{, ]{key}[`}}\[,]", section), key
    assert "`summary.estimates.seed_spread`" in (ROOT / "docs" / "analyses.md").read_text(encoding="utf-8")
    assert "`value` is not the mean of `by_variable`" in text  # ebil: normalised value, published by_variable
