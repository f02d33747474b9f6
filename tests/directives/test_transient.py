"""The transient-variable family (set-variable, increment-variable): no column changes, expression reads only."""

from __future__ import annotations

from typing import ClassVar

import pytest

import directives
import directives.catalog.transient as transient
from directives import REGISTRY, RowEffect
from grammar.errors import (
    ColumnNotFoundError,
    DirectiveArgumentError,
    ExpressionSyntaxError,
    RecipeError,
    UnknownDirectiveError,
)
from lineage.backtrack import Backtracker
from tests.directives.support import (
    FamilyDeclarations,
    assert_error_at,
    assert_parses_as_named,
    conformance_lines,
    described,
    step_labels,
)


class TestDeclarations(FamilyDeclarations):
    family = transient
    usages: ClassVar[dict[str, str]] = {
        "set-variable": "set-variable variable exp:{<condition>}",
        "increment-variable": "increment-variable variable value exp:{<condition>}",
    }


@pytest.mark.parametrize("name", TestDeclarations.usages)
def test_declaration(name: str) -> None:
    cls = REGISTRY[name]
    assert (cls.categories, cls.row_effect, cls.wrangler_lineage, cls.deprecated) == (
        ("transient",), RowEffect.NONE, False, False)


@pytest.mark.parametrize(
    ("text", "schema", "expected"),
    [
        ("set-variable total exp:{price * qty}", None, ["price", "qty"]),
        ("set-variable total exp:{price * qty}", ["price", "qty"], ["price", "qty"]),
        ("set-variable test exp:{fwd == 0 ? A : test}", None, ["fwd", "A"]),  # the variable is not a column
        ("set-variable Test exp:{test + 1}", None, []),
        ("set-variable now exp:{ctx.nano}", None, []),
        ("set-variable w exp:{this.width()}", None, []),
        ("set-variable k exp:{'constant'}", None, []),
        ("set-variable k exp:{a.b + math:abs(c)}", None, ["a.b", "c"]),
        ("increment-variable errors 1 exp:{amount < 0}", None, ["amount"]),
        ("increment-variable errors 1 exp:{errors < 10 && amount < 0 && Amount > -5}", None, ["amount"]),
        ("set-variable test fwd == 0 ? A : test", None, ["fwd", "A"]),  # v1 form
        ("increment-variable count 1 a > 2", None, ["a"]),  # v1 form
    ],
)
def test_labels_read_only_the_expression_columns(text: str, schema: list[str] | None, expected: list[str]) -> None:
    labels = step_labels(text, schema)
    assert [label for label in labels if label["label"] == "READ"] == [{"column": name, "label": "READ"}
                                                                        for name in expected]
    # and the variable itself, as a hidden name made from what the expression read
    [made] = [label for label in labels if label["label"] != "READ"]
    assert made["label"] == "ADD" and made["column"].startswith("#var:")
    assert made.get("sources", []) == expected


def test_a_later_expression_reads_the_variable_not_a_column() -> None:
    """Wrangler's expression context puts the transient store over the row: `total` is the variable."""
    text = "set-variable total exp:{price * qty}\nset-column :t exp:{total}\nfilter-row exp:{total > 3} true"
    recipe = directives.parse(text, ["price", "qty", "total"])
    assert recipe.findings == ()
    assert recipe.final_columns.display() == ["price", "qty", "total", "t"]
    lineage = Backtracker(recipe).all()
    assert lineage["t"].sources == ["price", "qty"] and lineage["t"].path_directives == [1, 2]
    assert lineage["total"].sources == ["total"] and lineage["total"].path_directives == []
    [influence] = lineage["qty"].indirect
    assert [node.column for node in influence.upstream] == ["#var:total"]
    assert [leaf.column for leaf in influence.upstream[0].upstream] == ["price", "qty"]


def test_without_the_variable_the_name_is_a_missing_column() -> None:
    recipe = directives.parse("set-column :t exp:{total}", ["price"])
    assert [type(finding) for finding in recipe.findings] == [ColumnNotFoundError]


def test_a_running_count_is_an_aggregation_and_data_quality_counters_are_variables() -> None:
    recipe = directives.parse("increment-variable bad 1 exp:{amount < 0}\nset-column :n exp:{bad}", ["amount"])
    lineage = Backtracker(recipe).all()
    variable = lineage["n"].tree.upstream[0]
    assert (variable.column, variable.subtype, lineage["n"].sources) == ("#var:bad", "AGGREGATION", ["amount"])
    checked = directives.parse("send-to-error-and-continue exp:{email == null} e 'x'\nset-column :n exp:{dq_total}",
                               ["email"])
    assert checked.findings == ()
    assert Backtracker(checked).all()["n"].sources == []


def test_no_column_changes() -> None:
    recipe = directives.parse("set-variable t exp:{a}\nincrement-variable n 2 exp:{b > 1}", ["a", "b"])
    assert recipe.final_columns.display() == ["a", "b"]
    assert recipe.findings == ()
    assert [label.column for step in recipe.steps for label in step.labels if label.label.value == "ADD"] == [
        "#var:t", "#var:n"]


def test_unknown_columns_are_findings() -> None:
    assert [f.rule for f in directives.validate("increment-variable n 1 exp:{zz > 1}", ["a"])] == ["column-not-found"]


@pytest.mark.parametrize(
    ("text", "error", "column", "fragment"),
    [
        ("set-variable :v exp:{a}", DirectiveArgumentError, 14, "must be a bare name"),
        ("set-variable exp:{a}", DirectiveArgumentError, 1, "expected 2"),
        ("set-variable v exp:{ }", ExpressionSyntaxError, 21, "Empty expression"),
        ("increment-variable v x exp:{a}", DirectiveArgumentError, 22, "must be a number"),
        ("increment-variable v 1", DirectiveArgumentError, 1, "expected 3"),
        ("increment-variable v 1 exp:{a >}", ExpressionSyntaxError, 32, "end of expression"),
        ("set-varable v exp:{a}", UnknownDirectiveError, 1, "not found"),
    ],
)
def test_bad_arguments_point_at_the_argument(text: str, error: type[RecipeError], column: int, fragment: str) -> None:
    assert_error_at("set-variable ok exp:{1}\n" + text, error, 2, column, fragment)


@pytest.mark.parametrize(
    ("text", "readable"),
    [
        ("set-variable total exp:{price * qty}", "Set transient variable 'total' to the result of expression "
                                                  "'price * qty'"),
        ("increment-variable errors 1 exp:{amount < 0}", "Incremented transient variable 'errors' by 1 when "
                                                         "expression 'amount < 0' is true"),
    ],
)
def test_describe(text: str, readable: str) -> None:
    assert described(text) == readable


@pytest.mark.parametrize("line", [line for _, line in conformance_lines(set(TestDeclarations.usages))])
def test_conformance_lines_parse(line: str) -> None:
    assert_parses_as_named(line)


def test_an_if_condition_that_does_not_parse_is_not_read_for_variables() -> None:
    # the fuzz campaign's finding: `else` of an empty condition is `!()`, which validate raised on
    text = "if(){set-variable f exp:{a}}else{set-column :b exp:{f}}"
    for schema in (None, ["a"]):
        assert all(isinstance(finding, RecipeError) for finding in directives.validate(text, schema))
