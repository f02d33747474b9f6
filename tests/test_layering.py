"""The packages depend one way, grammar → directives → lineage → server, and the API side never needs Java.

A subprocess test can only show what one import path pulls in; reading every import statement (including
the ones inside functions, where lazy imports hide) catches a layering slip in code no test happens to run.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.paths import ROOT

#: What each package may not import, on any path: packages above it, and Spark where the API lives.
FORBIDDEN = {
    "grammar": ("directives", "lineage", "server", "pyspark", "py4j"),
    "directives": ("lineage", "server"),
    "lineage": ("server", "pyspark", "py4j"),
    "server": ("pyspark", "py4j"),
}


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every absolute module an `import` or `from … import` names, with its line."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def _violations(package: str) -> list[str]:
    banned = FORBIDDEN[package]
    return [f"{path.relative_to(ROOT)}:{line}: imports {module}"
            for path in sorted((ROOT / package).rglob("*.py"))
            for line, module in imported_modules(path)
            if module.split(".")[0] in banned]


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_only_what_its_layer_may(package: str) -> None:
    assert _violations(package) == []


def test_the_scan_sees_imports_inside_functions(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import json\n\ndef later():\n"
                      "    from pyspark.sql import functions\n    import py4j.java_gateway\n")
    assert imported_modules(sample) == [(1, "json"), (4, "pyspark.sql"), (5, "py4j.java_gateway")]


def test_spark_internals_are_reached_through_their_one_module() -> None:
    """Code that leans on Spark's private internals sits behind `directives.spark.internals` (its docstring says
    what it leans on, and tests/spark/test_spark_internals.py fails on the upgrade that breaks it)."""
    inside = ROOT / "directives" / "spark" / "internals"
    found = [f"{path.relative_to(ROOT)}:{line}: imports {module}"
             for package in ("directives", "lineage", "server")
             for path in sorted((ROOT / package).rglob("*.py")) if inside not in path.parents
             for line, module in imported_modules(path)
             if module.startswith("directives.spark.internals.")]
    private = [f"{path.relative_to(ROOT)}:{number}: {text.strip()}"
               for path in sorted((ROOT / "directives").rglob("*.py")) if inside not in path.parents
               for number, text in enumerate(path.read_text().splitlines(), 1)
               if any(name in text for name in ("._jvm", "._jsc", "._jsparkSession", "._jdf", "_get_jvm_function"))]
    assert found == [] and private == []


def test_the_expression_compiler_imports_one_way() -> None:
    """values ← functions ← compiler: each module of `directives.spark.expr` imports only those to its left (lazy
    and type-checking imports included), so no circle hides behind an import inside a function."""
    order = ["byte_codecs", "values", "functions", "compiler"]
    package = ROOT / "directives" / "spark" / "expr"
    backwards = [f"{name}.py:{line}: imports {module}"
                 for position, name in enumerate(order)
                 for line, module in imported_modules(package / f"{name}.py")
                 if module.startswith("directives.spark.expr.")
                 and module.removeprefix("directives.spark.expr.") in order[position:]]
    assert backwards == []
