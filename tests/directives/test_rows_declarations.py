"""The row family (flatten, filter-empty-or-null, filter-by-regex, set-record-delim, split-to-rows): declarations."""

from __future__ import annotations

from typing import ClassVar

import pytest

import directives
import directives.catalog.rows as rows
from directives import REGISTRY, EdgeKind, Label, RowEffect
from grammar.errors import DirectiveArgumentError, RecipeError
from tests.directives.support import (
    FamilyDeclarations,
    assert_wrangler_accepts_with_warning,
    mod,
    rd,
    step_labels,
)


class TestDeclarations(FamilyDeclarations):
    family = rows
    usages: ClassVar[dict[str, str]] = {
        "flatten": "flatten :column [,:column  ]*",
        "filter-empty-or-null": "filter-empty-or-null :column [,:column  ]*",
        "filter-by-regex": "filter-by-regex match-type :column 'regex'",
        "set-record-delim": "set-record-delim :column 'delimiter'  [limit]",
        "split-to-rows": "split-to-rows :column 'regex'",
    }


@pytest.mark.parametrize(
    ("name", "categories", "effect"),
    [
        ("flatten", ("row",), RowEffect.MULTIPLY),
        ("filter-empty-or-null", ("row", "data-quality"), RowEffect.FILTER),
        ("filter-by-regex", ("row", "data-quality"), RowEffect.FILTER),
        ("set-record-delim", ("row",), RowEffect.MULTIPLY),
        ("split-to-rows", ("row",), RowEffect.MULTIPLY),
    ],
)
def test_categories_and_row_effects(name: str, categories: tuple[str, ...], effect: RowEffect) -> None:
    cls = REGISTRY[name]
    assert (cls.categories, cls.row_effect, cls.deprecated, cls.wrangler_lineage) == (categories, effect, False, True)


# -- v1 forms: Wrangler's test rig migrates them, and they must bind to the same directive --------------------------
@pytest.mark.parametrize(
    ("v1", "v2"),
    [
        ("flatten a,b", "flatten :a,:b"),
        ("filter-rows-on empty-or-null-columns a,b", "filter-empty-or-null :a,:b"),
        ("filter-row-if-matched email .*@x\\.io", "filter-by-regex if-matched :email '.*@x\\.io'"),
        ("filter-row-if-not-matched email .*@x\\.io", "filter-by-regex if-not-matched :email '.*@x\\.io'"),
        ("filter-rows-on regex-match body_1 ^school_id$", "filter-by-regex if-matched :body_1 '^school_id$'"),
        ("filter-rows-on regex-not-match f .*22.4.*", "filter-by-regex if-not-matched :f '.*22.4.*'"),
        ("set-record-delim body , 10", "set-record-delim :body ',' 10"),
        ("set-record-delim body ,", "set-record-delim :body ','"),
        ("split-to-rows body \\n", "split-to-rows :body '\\n'"),
    ],
)
def test_v1_forms_bind_like_their_v2_rewrite(v1: str, v2: str) -> None:
    (old,) = directives.parse(v1).steps
    (new,) = directives.parse(v2).steps
    assert old.directive.name == new.directive.name
    assert old.directive.args_json() == new.directive.args_json()


@pytest.mark.parametrize("name", TestDeclarations.usages)
def test_every_member_declares_its_v1_form(name: str) -> None:
    forms = REGISTRY[name].v1_forms
    assert forms
    # each form starts with a v1 command word the migrator rewrites
    from grammar.migrate import V1_SWITCH_COMMANDS

    assert all(form.split()[0] in V1_SWITCH_COMMANDS for form in forms)


# -- argument checks -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("filter-by-regex if-maybe :a 'x'", "if-matched"),
    ],
)
def test_bad_arguments_are_errors_at_the_argument(text: str, message: str) -> None:
    with pytest.raises(DirectiveArgumentError, match=message) as caught:
        directives.parse(text)
    assert caught.value.line == 1 and caught.value.column > 1


@pytest.mark.parametrize(
    ("text", "column", "fragment", "runnable"),
    [
        ("set-record-delim :body ',' 0", 28, "positive", False),
        ("set-record-delim :body ',' -2", 28, "positive", False),
    ],
)
def test_values_wrangler_does_not_check_are_warnings(text: str, column: int, fragment: str, runnable: bool) -> None:
    assert_wrangler_accepts_with_warning(text, column, fragment, runnable=runnable)


@pytest.mark.parametrize(
    "text",
    ["flatten", "split-to-rows :body", "filter-by-regex if-matched :a", "set-record-delim :body",
     "filter-empty-or-null"],
)
def test_missing_arguments_are_recipe_errors(text: str) -> None:
    with pytest.raises(RecipeError):
        directives.parse(text)


def test_filter_by_regex_match_type_is_case_insensitive_and_null_regex_disables_it() -> None:
    (step,) = directives.parse("filter-by-regex IF-NOT-MATCHED :a 'x+'").steps
    assert step.directive.drop_matches is False and step.directive.enabled  # type: ignore[attr-defined]
    for regex in ("''", "'null'", "'NULL'"):
        (step,) = directives.parse(f"filter-by-regex if-matched :a {regex}").steps
        assert step.directive.enabled is False  # type: ignore[attr-defined]
        assert list(step.labels) == []
        assert "disabled" in step.directive.describe()


# -- labels ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "schema", "expected"),
    [
        ("flatten :a,:b", None, [mod("a"), mod("b")]),
        ("flatten :a, :A,:b", None, [mod("a"), mod("b")]),
        # a listed column known to be missing is added (as null)
        ("flatten :a,:new", ["a", "x"], [mod("a"), {"column": "new", "label": "ADD"}]),
        ("filter-empty-or-null :a,:b", None, [rd("a"), rd("b")]),
        ("filter-by-regex if-matched :email '.*x.*'", None, [rd("email")]),
        ("split-to-rows :body ','", None, [mod("body")]),
        ("set-record-delim :body ','", ["id", "body", "x"], [mod("body"), {"column": "id", "label": "DROP"},
                                                             {"column": "x", "label": "DROP"}]),
        ("set-record-delim :body ','", None,
         [mod("body"), {"column": "*", "label": "DROP", "pattern": True, "exact": False}]),
    ],
)
def test_labels(text: str, schema: list[str] | None, expected: list[dict[str, object]]) -> None:
    assert step_labels(text, schema) == expected


@pytest.mark.parametrize("text", ["filter-empty-or-null :a,:b", "filter-by-regex if-not-matched :a 'x'"])
def test_filter_reads_are_indirect_filter_edges(text: str) -> None:
    (step,) = directives.parse(text).steps
    assert step.labels and all(label.label is Label.READ for label in step.labels)
    assert all(label.kind is EdgeKind.FILTER and not label.kind.is_direct for label in step.labels)


def test_multiplying_directives_keep_direct_edges() -> None:
    for text in ("flatten :a", "split-to-rows :a ','", "set-record-delim :a ','"):
        (step,) = directives.parse(text).steps
        assert step.labels[0].kind.is_direct


def test_set_record_delim_leaves_only_its_column() -> None:
    recipe = directives.parse("set-record-delim :BODY '\\n'\nsplit-to-rows :body ','", ["id", "body", "x"])
    assert recipe.final_columns.display() == ["body"]
    assert not recipe.findings


def test_set_record_delim_without_a_schema_breaks_the_strict_rule() -> None:
    from directives.recipe import validate

    findings = validate("set-record-delim :body ','", strict=True)
    assert any(finding.rule == "strict-unnamed-columns" for finding in findings)


def test_missing_columns_are_findings_with_a_schema_except_for_flatten() -> None:
    recipe = directives.parse("filter-by-regex if-matched :emial '.*'\nflatten :tags", ["email", "id"])
    messages = [str(finding) for finding in recipe.findings]
    assert len(messages) == 1 and "emial" in messages[0]
    assert recipe.final_columns.display() == ["email", "id", "tags"]


def test_filters_influence_every_column_indirectly_in_lineage() -> None:
    from lineage.backtrack import Backtracker

    recipe = directives.parse("filter-by-regex if-matched :email '.*x.*'\nrename :id :key", ["email", "id"])
    indirect = Backtracker(recipe).indirect()
    assert len(indirect) == 1
    assert indirect[0].subtype == EdgeKind.FILTER.value
    assert [node.column for node in indirect[0].upstream] == ["email"]
