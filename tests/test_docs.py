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
