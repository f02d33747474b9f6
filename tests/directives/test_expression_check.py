"""`wrangler check` on the functions an expression calls, against the catalogue of Wrangler's JEXL functions."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import directives
from directives.expression_catalogue import FUNCTIONS, NAMESPACES
from tests.paths import ROOT

MIRROR = Path("/work/.mirror/data-integrations+wrangler/repo")


def _function_findings(text: str) -> list[tuple[int, int, str, str]]:
    return [(f.line or 0, f.column or 0, f.message, f.hint or "") for f in directives.validate(text)
            if f.rule == "expression-function"]


@pytest.mark.parametrize(
    ("text", "column", "message", "hint"),
    [
        ("set-column :a exp:{math:sqrtt(x)}", 20, "Unknown function 'math:sqrtt'", "Did you mean 'math:sqrt'?"),
        ("set-column :a exp:{mth:sqrt(x)}", 20, "Unknown function namespace 'mth'", "Did you mean 'math:sqrt'?"),
        ("set-column :a exp:{Math:abs(x)}", 20, "Unknown function namespace 'Math'", "'math:abs'"),
        ("set-column :a exp:{nosuchfn(x)}", 20, "Unknown function 'nosuchfn'", "io.cdap.functions.Global has:"),
        ("set-column :a exp:{length(x)}", 20, "Unknown function 'length'", "'string:length'"),
        ("set-column :a exp:{string:Length(x)}", 20, "Unknown function 'string:Length'", "'string:length'"),
        ("set-column :a exp:{math:max(a, b, c)}", 20, "'math:max' takes 2 arguments, not 3", "java.lang.Math"),
        ("set-column :a exp:{concat(a)}", 20, "'concat' takes 2 or 3 arguments, not 1", "Global"),
        ("filter-row exp:{ x > 1 && dq:isNumberr(y) } true", 27, "Unknown function 'dq:isNumberr'", "isEmail"),
        ("send-to-error exp:{ a ==\n  math:floorr(b) }", 3, "Unknown function 'math:floorr'", "math:floor"),
    ],
)
def test_unknown_functions_and_wrong_arity_are_findings_at_the_call(text: str, column: int, message: str,
                                                                     hint: str) -> None:
    ((line, found_column, found_message, found_hint),) = _function_findings(text)
    assert (line, found_column) == (text.count("\n") + 1, column)
    assert message in found_message and hint in found_hint
    directives.parse(text)  # Wrangler compiles it (JEXL resolves functions per row): only `check` says so


@pytest.mark.parametrize(
    "text",
    [
        "set-column :a exp:{math:max(a, b) + math:abs(c)}",
        "set-column :a exp:{coalesce(a, b, c, d)}",  # varargs
        "set-column :a exp:{coalesce()}",
        "set-column :a exp:{string:upperCase(concat(first, ' ', last))}",
        "set-column :a exp:{arithmetic:add(a, b, c)}",
        "set-column :a exp:{empty(a) ? size(b) : 0}",  # operators, not functions
        "set-column :a exp:{a.trim().length()}",  # methods are looked up on the value
        "set-column :a exp:{datetime:DateFromJulianDay(2454614)}",
    ],
)
def test_functions_wrangler_has_are_clean(text: str) -> None:
    assert _function_findings(text) == []


def test_every_namespace_wrangler_registers_is_in_the_catalogue() -> None:
    """EL.DefaultFunctions, read from Wrangler's source when it is at hand (the mirror)."""
    if not MIRROR.exists():
        pytest.skip("Wrangler's source is not mirrored on this machine")
    source = subprocess.run(["git", "-C", str(MIRROR), "show",
                             "HEAD:wrangler-core/src/main/java/io/cdap/wrangler/expression/EL.java"],
                            capture_output=True, text=True, check=True).stdout
    registered = re.findall(r'functions\.put\((null|"(\w+)"), (\w+)\.class\)', source)
    assert {None if ns == "null" else name for ns, name, _ in registered} == set(NAMESPACES)
    for ns, name, java_class in registered:
        assert NAMESPACES[None if ns == "null" else name].split(" ")[0].endswith(java_class)


def test_the_catalogue_is_what_the_generator_makes() -> None:
    if not MIRROR.exists():
        pytest.skip("Wrangler's source is not mirrored on this machine")
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_expression_catalogue.py"), "--check"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, "directives/expression_catalogue.py is stale: run scripts/gen_expression_catalogue.py"


def test_catalogue_arities_read_the_java_signatures() -> None:
    assert FUNCTIONS["math"]["max"] == ((2, 2),)
    assert FUNCTIONS[None]["concat"] == ((2, 2), (3, 3))
    assert FUNCTIONS[None]["coalesce"] == ((0, None),)  # Object... objects
    assert (2, None) in FUNCTIONS["json"]["select"] and (3, None) in FUNCTIONS["json"]["select"]
    assert FUNCTIONS["datetime"]["TimeFromComponents"] == ((4, 4),)
