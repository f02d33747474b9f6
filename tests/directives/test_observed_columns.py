"""`directives.parse(observed=…)`: a finished run's columns turn data-dependent families into named columns.

Without data, `parse-as-csv` adds the family `body_<n>`, and a whole-schema directive after it (`set-headers`,
`change-column-case`) can only say "every column" (`*`). After a run, the columns it had after each directive
name the family's members, so the recorded lineage is column by column.
"""

from __future__ import annotations

import directives
from lineage.runs import RecipeRunInfo, recipe_run_lineage

RECIPE = "parse-as-csv :body ',' false\ndrop :body\nchange-column-case uppercase\n"


def operations(observed: dict[int, list[str]] | None) -> dict[str, list[str]]:
    recipe = directives.parse(RECIPE, schema=["body"], observed=observed)
    recorded, _ = recipe_run_lineage(recipe, RecipeRunInfo("ns", "in", "out", "r"), ["BODY_1", "BODY_2"])
    return {op.name: [field.field for field in op.inputs] for op in recorded.operations if hasattr(op, "inputs")}


def test_without_a_run_the_family_after_a_whole_schema_directive_is_every_column() -> None:
    ops = operations(None)
    assert ops["d3.change-column-case.BODY_1"] == ["*"]


def test_with_the_run_s_columns_each_member_is_a_column_of_its_own() -> None:
    ops = operations({1: ["body", "body_1", "body_2"], 2: ["body_1", "body_2"], 3: ["BODY_1", "BODY_2"]})
    assert ops["d1.parse-as-csv.body_2"] == ["body"]
    assert ops["d3.change-column-case.BODY_1"] == ["body_1"]
    assert ops["d3.change-column-case.BODY_2"] == ["body_2"]
    assert "*" not in {name for inputs in ops.values() for name in inputs}


def test_a_header_s_new_names_come_from_the_run_and_the_family_stays_while_older_columns_remain() -> None:
    recipe = directives.parse("parse-as-csv :body ',' true\n", schema=["body", "id"],
                              observed={1: ["body", "id", "name", "total"]})
    added = [(label.column, label.pattern) for label in recipe.steps[0].labels if label.label.value == "ADD"]
    # `id` was there before: the header may have named it too, which only the family (every name) covers
    assert added == [("name", False), ("total", False), ("<header>", True)]
    new = directives.parse("parse-as-csv :body ',' true\n", observed={1: ["body", "name", "total"]})
    assert [(label.column, label.pattern) for label in new.steps[0].labels if label.label.value == "ADD"] == [
        ("body", False), ("name", False), ("total", False)]  # no schema: any name the run had may be the header's


def test_a_numbered_family_takes_every_member_the_run_had_even_one_that_existed_before() -> None:
    recipe = directives.parse("parse-as-csv :body ',' false\n", schema=["body", "body_1"],
                              observed={1: ["body", "body_1", "body_2"]})
    added = [label.column for label in recipe.steps[0].labels if label.label.value == "ADD"]
    assert added == ["body_1", "body_2"]  # body_1 was overwritten by the parse: it comes from body now
