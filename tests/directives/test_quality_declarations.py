"""The quality family (fail, filter-row, send-to-error, send-to-error-and-continue): usage, v1 forms, FILTER reads."""

from __future__ import annotations

from typing import ClassVar

import pytest

import directives
import directives.catalog.quality as quality
from directives import REGISTRY, RowEffect
from directives.base import expression_text
from directives.labels import EdgeKind, Label
from grammar.errors import RecipeError
from tests.directives.support import FamilyDeclarations


def only(text: str, schema: list[str] | None = None) -> directives.Directive:
    (directive,) = directives.parse(text, schema).directives
    return directive


class TestDeclarations(FamilyDeclarations):
    family = quality
    usages: ClassVar[dict[str, str]] = {
        "fail": "fail exp:{<condition>}",
        "filter-row": "filter-row exp:{<condition>}  [type (true/false)]",
        "send-to-error": "send-to-error exp:{<condition>}  [metric] ['message']",
        "send-to-error-and-continue": "send-to-error-and-continue exp:{<condition>}  [metric] ['message']",
    }


@pytest.mark.parametrize(
    ("name", "effect"),
    [
        ("fail", RowEffect.ABORT),
        ("filter-row", RowEffect.FILTER),
        ("send-to-error", RowEffect.ERROR),
        ("send-to-error-and-continue", RowEffect.ERROR),
    ],
)
def test_row_effect_and_categories(name: str, effect: RowEffect) -> None:
    cls = REGISTRY[name]
    assert cls.row_effect is effect
    assert cls.categories == ("row", "data-quality")


@pytest.mark.parametrize(
    ("text", "name", "condition", "drops_when"),
    [
        ("filter-row-if-true Fare < 10.0", "filter-row", "Fare < 10.0", True),
        ("filter-row-if-false Fare < 10.0", "filter-row", "Fare < 10.0", False),
        ("filter-rows-on condition-true age > 1", "filter-row", "age > 1", True),
        ("filter-rows-on condition-false int == 5005", "filter-row", "int == 5005", False),
        ("filter-row exp:{a > 1}", "filter-row", "a > 1", True),
        ("filter-row exp:{a > 1} false", "filter-row", "a > 1", False),
        ("send-to-error C == 1", "send-to-error", "C == 1", None),
        ("fail count > 10", "fail", "count > 10", None),
    ],
)
def test_v1_and_v2_forms_bind(text: str, name: str, condition: str, drops_when: bool | None) -> None:
    directive = only(text)
    assert directive.name == name
    assert expression_text(directive.condition) == condition
    if drops_when is not None:
        assert directive.drops_when is drops_when


def test_message_defaults_to_the_condition() -> None:
    assert only("send-to-error exp:{a < 0} 'Negative'").message == "Negative"
    assert only("send-to-error exp:{a < 0} neg_metric").message == "a < 0"
    assert only("send-to-error-and-continue exp:{ a < 0 }").message == "a < 0"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("filter-row exp:{price > 10 && Price < 100 || qty == 0}", ["price", "qty"]),
        ("send-to-error exp:{this.width() < 4 && ctx.name == 'x'}", []),
        ("send-to-error exp:{dq_failure >= 1 || dq_total > a}", ["a"]),
        ("fail exp:{rec.inner > math:abs(b)}", ["rec.inner", "b"]),
    ],
)
def test_labels_are_filter_reads_of_the_condition_columns(text: str, expected: list[str]) -> None:
    (step,) = directives.parse(text).steps
    assert [label.column for label in step.labels] == expected
    assert all(label.label is Label.READ and label.kind is EdgeKind.FILTER for label in step.labels)
    assert not EdgeKind.FILTER.is_direct


def test_no_column_changes_and_unknown_columns_are_findings() -> None:
    recipe = directives.parse("filter-row exp:{a > 1}\nsend-to-error exp:{b == null}", ["a", "b"])
    assert recipe.final_columns.display() == ["a", "b"]
    assert [f.rule for f in directives.validate("fail exp:{zz > 1}", ["a"])] == ["column-not-found"]


def test_describe_matches_wrangler_readables() -> None:
    assert only("fail exp:{a > 1}").describe() == "Pipeline set to fail based on condition 'a > 1'"
    assert only("send-to-error exp:{a > 1}").describe() == (
        "Redirecting records to error path based on expression 'a > 1'")
    assert only("send-to-error-and-continue exp:{a > 1}").describe() == (
        "Redirect records to error path based on expression'a > 1'")


def test_empty_condition_is_rejected() -> None:
    with pytest.raises(RecipeError):
        directives.parse("fail exp:{}")
