"""Print the README's generated sections (Python-UDF and unsupported directives) from the compiler registries.

Run `python scripts/readme_tables.py` after adding a UDF or unsupported directive and paste the output;
tests/docs/test_readme.py fails while the README and the code disagree.
"""

from __future__ import annotations

from directives.spark.compilers import PYTHON_UDFS, UNSUPPORTED, load_all


def table(title: str, reasons: dict[str, str]) -> str:
    rows = [f"| `{name}` | {reason} |" for name, reason in sorted(reasons.items())]
    return "\n".join([f"## {title}", "", "| directive | why |", "|---|---|", *rows, ""])


if __name__ == "__main__":
    load_all()
    print(table("Directives that use a Python UDF", PYTHON_UDFS))
    print(table("Directives that do not run on Spark", UNSUPPORTED))
