"""Binding plans are shared by every call whose tokens have the same kinds; values, tokens and findings are not.

The binder computes how token kinds map onto a signature once per (directive, kinds) and reuses it, so
these tests bind several calls of one shape and check that each keeps its own values, token positions,
warnings and errors.
"""

from __future__ import annotations

import pytest

import directives
from grammar.errors import RecipeError


def test_calls_of_one_shape_keep_their_own_values_and_tokens() -> None:
    recipe = directives.parse("rename :a :b\nrename :c :d")
    first, second = (step.directive for step in recipe.steps)
    assert (first.source, first.target) == ("a", "b")
    assert (second.source, second.target) == ("c", "d")
    token = second.token("target")
    assert token is not None and token.span.line == 2 and token.raw == ":d"


def test_numbers_and_coerced_lists_are_converted_per_call() -> None:
    recipe = directives.parse("drop :a\ndrop :b,:c\ndrop :d")
    assert [step.directive.column for step in recipe.steps] == [("a",), ("b", "c"), ("d",)]


def test_leftover_tokens_warn_at_their_own_place_each_time() -> None:
    findings = directives.validate("copy :a :b 'x'\ncopy :c :d 'y'")
    assert [(f.severity, f.line, f.column) for f in findings] == [("warning", 1, 12), ("warning", 2, 12)]
    assert all("is ignored" in f.message for f in findings)


def test_kind_errors_point_at_each_calls_token() -> None:
    findings = directives.validate("filter-row :a true\nfilter-row :b true")
    assert [(f.severity, f.line, f.column) for f in findings] == [("error", 1, 12), ("error", 2, 12)]
    assert all("must be an expression" in f.message for f in findings)


def test_too_few_arguments_is_an_arity_error_every_time() -> None:
    with pytest.raises(RecipeError) as raised:
        directives.parse("set-type :a\nset-type :b")
    assert [error.line for error in raised.value.errors] == [1, 2]
    assert all("expected 2 to 5 argument(s), got 1" in error.message for error in raised.value.errors)
