"""The column family (rename, drop, keep, swap, copy, merge, set-headers, case, cleanse, sed, set-type …)."""

from __future__ import annotations

from typing import ClassVar

import pytest

import directives
import directives.catalog.column_ops as column_ops
from grammar.errors import DirectiveArgumentError, RecipeError
from tests.directives.support import FamilyDeclarations, assert_error_at, assert_wrangler_accepts_with_warning, labels


def final(text: str, schema: list[str] | None) -> list[str]:
    return directives.parse(text, schema).final_columns.display()


class TestDeclarations(FamilyDeclarations):
    family = column_ops
    usages: ClassVar[dict[str, str]] = {
        "rename": "rename :source :target",
        "drop": "drop :column [,:column  ]*",
        "keep": "keep :column [,:column  ]*",
        "swap": "swap :left :right",
        "copy": "copy :source :destination  [force (true/false)]",
        "merge": "merge :column1 :column2 :destination 'separator'",
        "set-headers": "set-headers :column [,:column  ]*",
        "change-column-case": "change-column-case  [case]",
        "cleanse-column-names": "cleanse-column-names ",
        "columns-replace": "columns-replace 'sed-expression'",
        "set-type": "set-type :column type  [scale] ['rounding-mode'] [prop:{precision=<precision>}]",
        "split-to-columns": "split-to-columns :column 'regex'",
        "create-record": "create-record :target_column :columns [,:columns  ]*",
        "flatten-record": "flatten-record :columns [,:columns  ]*",
    }


def test_rename_labels_both_names_and_moves_the_column() -> None:
    assert labels("rename :a :b") == [[{"column": "a", "label": "RENAME", "to": "b"}]]
    assert final("rename :a :b", ["x", "a", "y"]) == ["x", "b", "y"]


def test_swap_labels_both_directions_and_swaps_names() -> None:
    assert labels("swap :a :b") == [[{"column": "a", "label": "SWAP", "to": "b"}, {"column": "b", "label": "SWAP",
                                                                                  "to": "a"}]]
    assert final("swap :a :b", ["a", "b", "c"]) == ["b", "a", "c"]


def test_drop_and_keep() -> None:
    assert labels("drop :a,:b") == [[{"column": "a", "label": "DROP"}, {"column": "b", "label": "DROP"}]]
    assert final("drop :A", ["a", "b"]) == ["b"]  # case-insensitive lookup, as Wrangler's
    assert labels("keep :a", ["a", "b", "c"]) == [[{"column": "a", "label": "READ"}, {"column": "b", "label": "DROP"},
                                                  {"column": "c", "label": "DROP"}]]
    assert labels("keep :a") == [[{"column": "a", "label": "READ"},
                                  {"column": "*", "label": "DROP", "pattern": True, "exact": False}]]
    assert final("keep :c,:a", ["a", "b", "c"]) == ["a", "c"]


def test_copy_merge_sources() -> None:
    assert labels("copy :a :b", ["a"]) == [[{"column": "a", "label": "READ"},
                                            {"column": "b", "label": "ADD", "sources": ["a"]}]]
    assert labels("copy :a :b true", ["a", "b"])[0][1] == {"column": "b", "label": "MODIFY", "sources": ["a"]}
    assert labels("merge :a :b :c ','")[0][2] == {"column": "c", "label": "ADD", "sources": ["a", "b"]}


def test_set_headers_with_and_without_schema() -> None:
    assert labels("set-headers :x,:y", ["a", "b", "c"]) == [[{"column": "a", "label": "RENAME", "to": "x"},
                                                              {"column": "b", "label": "RENAME", "to": "y"}]]
    assert final("set-headers :x,:y", ["a", "b", "c"]) == ["x", "y", "c"]
    assert labels("set-headers :x") == [[{"column": "#1", "label": "RENAME", "to": "x", "exact": False}]]


def test_whole_schema_renames_are_exact_with_a_schema() -> None:
    schema = ["Url", "col:2", "data_x"]
    assert final("change-column-case upper", schema) == ["URL", "COL:2", "DATA_X"]
    assert final("cleanse-column-names", schema) == ["url", "col_2", "data_x"]
    assert final("columns-replace 's/^data_//g'", schema) == ["Url", "col:2", "x"]
    assert labels("change-column-case lower", ["A", "b"]) == [[{"column": "A", "label": "RENAME", "to": "a"}]]
    assert labels("cleanse-column-names") == [[{"column": "*", "label": "RENAME", "to": "*", "pattern": True,
                                                 "exact": False}]]


def test_split_to_columns_declares_a_pattern_later_resolved_by_rename() -> None:
    recipe = directives.parse("split-to-columns :body ','\nrename :body_2 :name", ["body"])
    assert [label.to_json() for label in recipe.steps[0].labels] == [
        {"column": "body", "label": "READ"},
        {"column": "body_<n>", "label": "ADD", "sources": ["body"], "pattern": True},
    ]
    assert recipe.final_columns.display() == ["body", "name", "body_<n>"]
    assert recipe.findings == ()


@pytest.mark.parametrize(
    ("text", "column", "fragment"),
    [
        ("set-type :a decimal 'SIDEWAYS'", 21, "rounding mode"),
        ("set-type :a decimal 2 'half_up'", 23, "rounding mode"),
        ("set-type :a decimal prop:{precision=0}", 21, "precision"),
        ("set-type :a decimal 'HALF_UP'", 21, "needs a scale"),
        ("rename :a", 1, "expected 2"),
        ("swap :a 'b'", 9, "must be a column"),
    ],
)
def test_bad_arguments_point_at_the_argument(text: str, column: int, fragment: str) -> None:
    assert_error_at(text, DirectiveArgumentError, 1, column, fragment)


@pytest.mark.parametrize(
    ("text", "column", "fragment", "runnable"),
    [
        ("set-type :a nope", 13, "Unknown type", False),
        ("set-type :a int 'HALF_UP'", 17, "decimals only", True),
        ("columns-replace 'x/a/b/'", 17, "sed", False),
    ],
)
def test_values_wrangler_does_not_check_are_warnings(text: str, column: int, fragment: str, runnable: bool) -> None:
    assert_wrangler_accepts_with_warning(text, column, fragment, runnable=runnable)


def test_set_type_accepts_wrangler_synonyms() -> None:
    recipe = directives.parse("set-type :a i64\nset-type :b bool\nset-type :c decimal 2 'HALF_UP' prop:{precision=9}")
    assert [step.directive.target_type for step in recipe.steps] == ["int", "boolean", "decimal"]


def test_describe_texts() -> None:
    recipe = directives.parse("rename :a :b\ndrop :a,:b\nswap :a :b\nmerge :a :b :c '-'")
    assert [s.directive.describe() for s in recipe.steps] == [
        "Renamed column 'a' to 'b'",
        "Dropped columns [a, b]",
        "Swapped columns 'a' and 'b'",
        "Merged column 'a' and 'b' using delimiter '-' into column 'c'",
    ]


def test_schema_findings() -> None:
    findings = directives.validate("rename :a :b\nrename :zz :q\nmerge :b :c :c ','", ["a", "b", "c"])
    assert [(f.rule, f.line) for f in findings] == [
        ("column-conflict", 1),
        ("column-not-found", 2),
        ("column-conflict", 3),
    ]
    assert "Columns at this point: b, b, c" in str(findings[1])  # line 1 made a second b


def test_errors_are_all_collected() -> None:
    with pytest.raises(RecipeError) as caught:
        directives.parse("renam :a :b\nrename :a\ndrop 'x'")
    assert [(type(e).__name__, e.line) for e in caught.value.errors] == [
        ("UnknownDirectiveError", 1),
        ("DirectiveArgumentError", 2),
        ("DirectiveArgumentError", 3),
    ]
    assert "Did you mean 'rename'" in str(caught.value.errors[0])
