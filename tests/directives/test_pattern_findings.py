"""`wrangler check` findings next to data-dependent column families: a family may hold a name, it need not."""

from __future__ import annotations

import pytest

import directives
from directives.recipe import validate
from grammar.errors import RecipeError


def test_new_column_after_a_header_family_is_not_a_conflict() -> None:
    assert validate("parse-as-csv :body ',' true\nmerge :a :b :c ' '", ["body"]) == []


def test_rename_onto_a_name_a_family_might_hold_is_not_a_conflict() -> None:
    assert validate("parse-as-csv :body ',' true\nrename :a :zip", ["body"]) == []


def test_real_columns_still_clash() -> None:
    findings = validate("parse-as-csv :body ',' true\nrename :a :body", ["body"])
    assert [type(f).__name__ for f in findings] == ["ColumnConflictError"]
    assert "already exists" in str(findings[0])


def test_a_syntax_error_does_not_hide_the_other_lines_findings() -> None:
    """Binding errors of the lines that parse are reported next to the syntax errors; schema findings stop at
    the first bad line (the column list is unknown past it)."""
    text = "renam :a :b\nset-headers :a 'x\nset-type :c decimal 2 'half_up'\ndrop :zz"
    with pytest.raises(RecipeError) as raised:
        directives.parse(text)
    assert [(error.line, type(error).__name__) for error in raised.value.errors] == [
        (1, "UnknownDirectiveError"), (2, "RecipeSyntaxError"), (3, "DirectiveArgumentError")]
    findings = directives.validate(text, ["a", "b", "c"])
    assert [finding.line for finding in findings] == [1, 2, 3]  # no "zz does not exist" past line 2


def test_a_reading_that_does_not_bind_leaves_no_warnings() -> None:
    findings = directives.validate("set-type :c notatype", ["c"])
    assert [type(finding).__name__ for finding in findings] == ["DirectiveArgumentError"]


@pytest.mark.parametrize(
    ("text", "column", "suggestion"),
    [
        ("drop :emial", 6, "Did you mean 'email'?"),
        ("keep :name,:emial", 12, "Did you mean 'email'?"),
        ("set-column :t exp:{ price * qtty }", 29, "Did you mean 'qty'?"),
        ("set-column :t price * qtty", 23, "Did you mean 'qty'?"),  # read Wrangler's way: still at the name
        ("rename emial mail", 8, "Did you mean 'email'?"),
        ("drop :zzz", 6, ""),
    ],
)
def test_a_missing_column_is_shown_at_its_name_with_the_closest_names(text: str, column: int, suggestion: str) -> None:
    (finding,) = directives.validate(text, ["email", "name", "price", "qty"])
    assert (finding.rule, finding.line, finding.column) == ("column-not-found", 1, column)
    assert (finding.hint or "").startswith(suggestion or "Columns at this point")
    assert finding.snippet.splitlines()[1] == " " * (column - 1) + "^"
