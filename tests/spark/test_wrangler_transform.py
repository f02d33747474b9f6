"""Transform-family branches of Wrangler's `execute()` that tests/spark/test_transform_compile.py does not pin.

Each test names the class in io.cdap.directives.transformation and the branch; the values and messages are
the ones that code produces. Deliberate differences are in docs/differences/transform.md.
"""

from __future__ import annotations

from typing import Any

import pytest

import directives

pytestmark = pytest.mark.spark


def _run(spark: Any, recipe: str, rows: list[dict[str, Any]]) -> Any:
    return directives.run_rows(recipe, rows, spark=spark)


def _errors(result: Any) -> list[str]:
    return [error["message"] for error in result.errors]


# -- ExtractRegexGroups ----------------------------------------------------------------------------------------------
def test_extract_regex_groups_adds_nothing_when_no_row_matches(spark) -> None:
    # while (matcher.find()) never runs: no column is added, no error
    result = _run(spark, "extract-regex-groups :c '([0-9]+)'", [{"c": "none"}, {"c": ""}, {"c": None}])
    assert result.columns == ["c"] and result.errors == []
    assert result.rows == [{"c": "none"}, {"c": ""}, {"c": None}]


def test_extract_regex_groups_without_groups_adds_nothing(spark) -> None:
    # groupCount() == 0: matches are found but the inner loop adds no column
    assert _run(spark, "extract-regex-groups :c '[0-9]+'", [{"c": "12 34"}]).columns == ["c"]


def test_extract_regex_groups_names_columns_as_the_directive_spells_the_column(spark) -> None:
    # String.format("%s_%d_%d", column, …) with the column as written; a row without a match or with null
    # contributes nothing (null in the columns other rows made)
    result = _run(spark, "extract-regex-groups :C '([0-9])'", [{"c": "1"}, {"c": "x"}, {"c": None}])
    assert result.columns == ["c", "C_1_1"]
    assert [row["C_1_1"] for row in result.rows] == ["1", None, None]


# -- FillNullOrEmpty ---------------------------------------------------------------------------------------------------
def test_fill_null_or_empty_fills_only_null_and_the_empty_string(spark) -> None:
    # String.isEmpty(): blanks are a value; the column is found in any case
    result = _run(spark, "fill-null-or-empty :C 'x'", [{"c": None}, {"c": ""}, {"c": " "}, {"c": "v"}])
    assert result.columns == ["c"]
    assert [row["c"] for row in result.rows] == ["x", "x", " ", "v"]


# -- FindAndReplace ----------------------------------------------------------------------------------------------------
def test_find_and_replace_skips_missing_columns_and_nulls(spark) -> None:
    # idx == -1 → nothing; a null is not `instanceof String` → nothing
    result = _run(spark, "find-and-replace :c,:nope 's/a/b/g'", [{"c": "aa"}, {"c": None}])
    assert result.rows == [{"c": "bb"}, {"c": None}] and result.errors == []


# -- Lower / Upper / TitleCase / LeftTrim / RightTrim / Trim -----------------------------------------------------------
@pytest.mark.parametrize("directive", ["lowercase", "uppercase", "titlecase", "trim", "ltrim", "rtrim"])
def test_in_place_text_directives_leave_missing_null_and_non_text_alone(spark, directive: str) -> None:
    # idx != -1 and `object instanceof String`, else nothing: never an error
    rows = [{"n": 1, "s": None}, {"n": None, "s": None}]
    result = _run(spark, f"{directive} :n\n{directive} :s\n{directive} :nope", rows)
    assert result.rows == rows and result.errors == []


def test_in_place_text_directives_find_the_column_in_any_case(spark) -> None:
    result = _run(spark, "uppercase :A\ntitlecase :B", [{"a": "xy", "b": "hELLO wORLD-foo"}])
    assert result.rows == [{"a": "XY", "b": "Hello World-foo"}]  # WordUtils.capitalizeFully splits on blanks only


# -- UrlEncode ---------------------------------------------------------------------------------------------------------
def test_url_encode_null_and_wrong_type_fail(spark) -> None:
    result = _run(spark, "url-encode :c", [{"c": "a b&c=ü*~"}, {"c": None}])
    assert result.rows == [{"c": "a+b%26c%3D%C3%BC*%7E"}]  # URLEncoder.encode(…, "UTF-8")
    assert _errors(result) == ["Column 'c' has null value. It should be a non-null 'String'."]
    typed = _run(spark, "url-encode :n", [{"n": 3}])
    assert _errors(typed) == ["Column 'n' has invalid type 'Integer'. It should be of type 'String'."]


# -- Encode / Decode ---------------------------------------------------------------------------------------------------
def test_encode_and_decode_name_the_target_after_the_directives_spelling(spark) -> None:
    # String.format("%s_encode_%s", column, method): the column as written; a null value → continue
    result = _run(spark, "encode 'base64' :C\ndecode 'base64' :C_encode_base64", [{"c": "hi"}, {"c": None}])
    assert result.columns == ["c", "C_encode_base64", "C_encode_base64_decode_base64"]
    assert [row["C_encode_base64_decode_base64"] for row in result.rows] == ["hi", None]
    assert result.errors == []


# -- MessageHash -------------------------------------------------------------------------------------------------------
def test_hash_without_encoding_stores_the_digest_bytes(spark) -> None:
    import hashlib

    # encode == false → row.addOrSet(column, hashed) (the raw byte[])
    result = _run(spark, "hash :c 'MD5' false", [{"c": "a"}])
    assert result.rows == [{"c": hashlib.md5(b"a").digest()}]


# -- ColumnExpression (set-column) -------------------------------------------------------------------------------------
def test_set_column_replaces_an_existing_column_found_in_any_case(spark) -> None:
    # row.addOrSet(column, …): the existing column keeps its place and name
    result = _run(spark, "set-column :C 'x'\nset-column :d c + 'y'", [{"c": 1, "e": 2}])
    assert result.columns == ["c", "e", "d"] and result.rows == [{"c": "x", "e": 2, "d": "xy"}]


# -- SplitURL ----------------------------------------------------------------------------------------------------------
def test_split_url_missing_column_and_wrong_type_fail(spark) -> None:
    assert _errors(_run(spark, "split-url :nope", [{"c": "http://a"}])) == ["Column 'nope' does not exist."]
    typed = _run(spark, "split-url :n", [{"n": 3}])
    assert _errors(typed) == ["Column 'n' has invalid type 'Integer'. It should be of type 'String'."]


# -- Quantization ------------------------------------------------------------------------------------------------------
def test_quantize_wrong_types_fail_with_wranglers_messages(spark) -> None:
    recipe = "quantize :c :d 0:10='low'"
    typed = _run(spark, recipe, [{"c": True}])
    assert _errors(typed) == ["Column 'c' has invalid type 'Boolean'. It should be of type 'String', 'Float' or "
                              "'Double'."]
    text = _run(spark, recipe, [{"c": "ten"}, {"c": None}])
    assert _errors(text) == ["Column 'c' has invalid type. It should be of type 'String', 'Float' or 'Double'.",
                             "Column 'c' has null value. It should be a non-null 'String', 'Float' or 'Double'."]
