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
