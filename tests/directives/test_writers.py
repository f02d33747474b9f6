"""The writer family (write-as-csv, write-as-json-map, write-as-json-object) and validate-standard."""

from __future__ import annotations

from typing import ClassVar

import pytest

import directives
import directives.catalog.writers as writers
from directives import REGISTRY, RowEffect
from grammar.errors import DirectiveArgumentError, RecipeError, UnknownDirectiveError
from tests.directives.support import (
    FamilyDeclarations,
    assert_error_at,
    assert_parses_as_named,
    conformance_lines,
    described,
    rd,
    step_labels,
)


class TestDeclarations(FamilyDeclarations):
    family = writers
    usages: ClassVar[dict[str, str]] = {
        "write-as-csv": "write-as-csv :column",
        "write-as-json-map": "write-as-json-map :column",
        "write-as-json-object": "write-as-json-object :column  [:col [,:col  ]*]",
        "validate-standard": "validate-standard :column [one of: hl7-fhir-r4]",
    }


@pytest.mark.parametrize(
    ("name", "categories", "row_effect", "wrangler_lineage"),
    [
        ("write-as-csv", ("writer", "csv"), RowEffect.NONE, True),
        ("write-as-json-map", ("writer", "json"), RowEffect.NONE, True),
        ("write-as-json-object", ("writer", "json"), RowEffect.NONE, True),
        ("validate-standard", ("data-quality",), RowEffect.ERROR, False),
    ],
)
def test_declaration_flags(name: str, categories: tuple[str, ...], row_effect: RowEffect,
                           wrangler_lineage: bool) -> None:
    cls = REGISTRY[name]
    assert (cls.categories, cls.row_effect, cls.wrangler_lineage, cls.deprecated) == (
        categories, row_effect, wrangler_lineage, False)


@pytest.mark.parametrize(
    ("text", "schema", "expected"),
    [
        # every column of that point is read; exact with a schema
        ("write-as-csv :rec", ["a", "b"], [rd("a"), rd("b"), {"column": "rec", "label": "ADD", "sources": ["a", "b"]}]),
        ("write-as-csv :a", ["a", "b"],
         [rd("a"), rd("b"), {"column": "a", "label": "ADD", "sources": ["a", "b"]}]),  # row.add: a second `a`
        ("write-as-csv :rec", None, [{"column": "rec", "label": "ADD", "exact": False}]),
        ("write-as-json-map :rec", ["a", "b"],
         [rd("a"), rd("b"), {"column": "rec", "label": "ADD", "sources": ["a", "b"]}]),
        ("write-as-json-map :a", ["a", "b"],
         [rd("a"), rd("b"), {"column": "a", "label": "MODIFY", "sources": ["a", "b"]}]),  # addOrSet
        ("write-as-json-map :rec", None, [{"column": "rec", "label": "ADD", "exact": False}]),
        # only the listed columns
        ("write-as-json-object :loc :lat,:lon", None,
         [rd("lat"), rd("lon"), {"column": "loc", "label": "ADD", "sources": ["lat", "lon"]}]),
        ("write-as-json-object :loc :lat,:lon", ["lat", "lon", "loc"],
         [rd("lat"), rd("lon"), {"column": "loc", "label": "MODIFY", "sources": ["lat", "lon"]}]),
        ("write-as-json-object :lat :lat,:lon", None,
         [rd("lon"), {"column": "lat", "label": "MODIFY", "sources": ["lat", "lon"]}]),
        ("validate-standard :resource hl7-fhir-r4", None, [rd("resource")]),
        ("validate-standard :resource hl7-fhir-r4", ["resource"], [rd("resource")]),
    ],
)
def test_labels(text: str, schema: list[str] | None, expected: list[dict[str, object]]) -> None:
    assert step_labels(text, schema) == expected


def test_writers_read_the_columns_of_their_point_in_the_recipe() -> None:
    """Without a schema only what the recipe made is known; the label says it may miss columns."""
    recipe = directives.parse("set-column :x exp:{1}\nsplit-to-columns :x ','\nwrite-as-json-map :rec")
    assert [label.to_json() for label in recipe.steps[2].labels] == [
        rd("x"),
        {"column": "rec", "label": "ADD", "sources": ["x", "x_<n>"], "exact": False},
    ]
    exact = directives.parse("drop :b\nset-column :c exp:{a}\nwrite-as-csv :rec", ["a", "b"])
    assert [label.to_json() for label in exact.steps[2].labels][-1] == {
        "column": "rec", "label": "ADD", "sources": ["a", "c"]}
    assert exact.final_columns.display() == ["a", "c", "rec"]


@pytest.mark.parametrize(
    ("text", "schema", "rules"),
    [
        ("write-as-csv :a", ["a", "b"], ["column-conflict"]),  # appends a duplicate `a`
        ("write-as-json-map :a", ["a", "b"], []),
        ("write-as-json-object :o :a,:zz", ["a"], ["column-not-found"]),
        ("validate-standard :zz hl7-fhir-r4", ["a"], ["column-not-found"]),
    ],
)
def test_schema_findings(text: str, schema: list[str], rules: list[str]) -> None:
    assert [finding.rule for finding in directives.validate(text, schema)] == rules


@pytest.mark.parametrize(
    ("text", "error", "column", "fragment"),
    [
        ("write-as-json-object :o :a", DirectiveArgumentError, 25, "at least two columns"),
        ("write-as-json-object :o", DirectiveArgumentError, 1, "at least two columns"),
        ("write-as-json-object :o exp:{a}", DirectiveArgumentError, 1, "at least two columns"),
        ("validate-standard :c fhir", DirectiveArgumentError, 22, "Unknown standard"),
        ("validate-standard :c HL7-FHIR-R4", DirectiveArgumentError, 22, "Unknown standard"),
        ("validate-standard :c 'hl7-fhir-r4'", DirectiveArgumentError, 22, "must be a bare name"),
        ("write-as-csv", DirectiveArgumentError, 1, "expected 1"),
        ("write-as-json-map 'x'", DirectiveArgumentError, 19, "must be a column"),
        ("write-as-cvs :a", UnknownDirectiveError, 1, "not found"),
    ],
)
def test_bad_arguments_point_at_the_argument(text: str, error: type[RecipeError], column: int, fragment: str) -> None:
    assert_error_at("write-as-csv :ok\n" + text, error, 2, column, fragment)


def test_single_column_hint_names_the_column() -> None:
    with pytest.raises(DirectiveArgumentError) as caught:
        directives.parse("write-as-json-object :o :a")
    assert caught.value.hint is not None and ":a,:other" in caught.value.hint


@pytest.mark.parametrize(
    ("text", "readable"),
    [
        ("write-as-csv :rec", "Wrote column 'rec' in the comma separated value (CSV) format"),
        ("write-as-json-map :rec", "Wrote column 'rec' as a json map"),
        ("write-as-json-object :loc :lat,:lon", "Wrote columns 'lat, lon' as json object into column 'loc'"),
        ("validate-standard :r hl7-fhir-r4", "Validated column 'r' against standard 'hl7-fhir-r4'"),
    ],
)
def test_describe(text: str, readable: str) -> None:
    assert described(text) == readable


@pytest.mark.parametrize("line", [line for _, line in conformance_lines(set(TestDeclarations.usages))])
def test_conformance_lines_parse(line: str) -> None:
    assert_parses_as_named(line)
