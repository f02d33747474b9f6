"""`wrangler check` findings next to data-dependent column families: a family may hold a name, it need not."""

from __future__ import annotations

from directives.recipe import validate


def test_new_column_after_a_header_family_is_not_a_conflict() -> None:
    assert validate("parse-as-csv :body ',' true\nmerge :a :b :c ' '", ["body"]) == []


def test_rename_onto_a_name_a_family_might_hold_is_not_a_conflict() -> None:
    assert validate("parse-as-csv :body ',' true\nrename :a :zip", ["body"]) == []


def test_real_columns_still_clash() -> None:
    findings = validate("parse-as-csv :body ',' true\nrename :a :body", ["body"])
    assert [type(f).__name__ for f in findings] == ["ColumnConflictError"]
    assert "already exists" in str(findings[0])
