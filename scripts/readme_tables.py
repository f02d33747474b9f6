"""Regenerate the README's list of Python-UDF directives from the compiler registry.

Run `python scripts/readme_tables.py` after adding a UDF directive: it rewrites the section in place.
tests/docs/test_readme.py fails while the README and the code disagree (and while any directive is refused).
"""

from __future__ import annotations

import re
from pathlib import Path

from directives.spark.compilers import PYTHON_UDFS, load_all

README = Path(__file__).resolve().parent.parent / "README.md"
SECTIONS = {
    "Directives that use a Python UDF": (PYTHON_UDFS, "Spark has no built-in function for these, so they run a "
                                                      "Python UDF (slower: rows cross to a Python worker). On a\n"
                                                      "cluster or a Spark Connect server our code goes to the "
                                                      "workers by itself; their Python needs our\n"
                                                      "dependencies ([docs/clusters.md](docs/clusters.md"
                                                      "#python-on-the-workers))."),
}


def table(title: str) -> str:
    reasons, intro = SECTIONS[title]
    rows = [f"| `{name}` | {reason} |" for name, reason in sorted(reasons.items())]
    return "\n".join([f"## {title}", "", intro, "", "| directive | why |", "|---|---|", *rows, "", ""])


def rewrite(text: str) -> str:
    for title in SECTIONS:
        pattern = re.compile(rf"^## {re.escape(title)}\n.*?(?=^## |\Z)", flags=re.M | re.S)
        section = table(title)
        text = pattern.sub(section.replace("\\", "\\\\"), text) if pattern.search(text) else text + "\n" + section
    return text.rstrip("\n") + "\n"


if __name__ == "__main__":
    load_all()
    README.write_text(rewrite(README.read_text()))
