"""Regenerate the function tables of docs/expressions.md from the Spark compiler's own table.

Everything from "## Supported functions and methods" to "## Python UDFs" is rewritten; the language
section above stays as written. Usage: PYTHONPATH=. python scripts/gen_expression_docs.py
"""

from __future__ import annotations

from pathlib import Path

from directives.expression_catalogue import NAMESPACES as JAVA_CLASSES
from directives.spark.expr.functions import FUNCTIONS, METHODS, ROW_METHODS

DOC = Path(__file__).resolve().parent.parent / "docs" / "expressions.md"
START = "## Supported functions and methods"
END = "## Python UDFs"


def _table(rows: list[tuple[str, str, str]]) -> list[str]:
    lines = ["| Call | Arguments | What it does |", "|---|---|---|"]
    lines += [f"| `{call}` | {arity} | {doc.replace('|', '/')} |" for call, arity, doc in rows]
    return lines


def render() -> str:
    lines = [START, "", "Every function of every namespace Wrangler's JEXL engine registers runs on Spark, with each "
             "overload's argument count; there is no list of missing functions. Each description names the Java "
             "method it follows.", ""]
    namespaces = sorted({namespace for namespace, _ in FUNCTIONS}, key=lambda n: (n is not None, n or ""))
    for namespace in namespaces:
        title = "Bare functions (Wrangler `Global`, JEXL `empty`/`size`)" if namespace is None else (
            f"`{namespace}:` — {JAVA_CLASSES.get(namespace, '')}")
        rows = sorted(((f"{namespace}:{name}" if namespace else name, spec.arity_text(), spec.doc)
                       for (ns, name), spec in FUNCTIONS.items() if ns == namespace), key=lambda r: r[0])
        lines += [f"### {title}", "", *_table(rows), ""]
    lines += ["### Methods on the row (`this`)", "",
              *_table([(f"this.{n}()", s.arity_text(), s.doc) for n, s in sorted(ROW_METHODS.items())]), ""]
    lines += ["### Methods on values", "",
              *_table([(f"x.{n}()", s.arity_text(), s.doc) for n, s in sorted(METHODS.items())]), ""]
    return "\n".join(lines) + "\n"


def main() -> None:
    text = DOC.read_text(encoding="utf-8")
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    DOC.write_text(head + render() + END + tail, encoding="utf-8")


if __name__ == "__main__":
    main()
