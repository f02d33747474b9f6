"""The column family on real Spark, branch by branch of each Wrangler class's `execute()`.

Every test names the Java class (io.cdap.directives.column.*, with ColumnConverter for set-type) and the
branch it pins; expected values and messages are what that code produces. `Row.find` is case-insensitive,
so every lookup below is too unless the class does its own matching (Keep's HashSet).
Deliberate differences are in docs/differences/columns.md.
"""

from __future__ import annotations

import decimal
from typing import Any

import pytest

import directives
from grammar.errors import RecipeError

pytestmark = pytest.mark.spark

D = decimal.Decimal


def _run(spark: Any, recipe: str, rows: list[dict[str, Any]], **kwargs: Any) -> Any:
    return directives.run_rows(recipe, rows, spark=spark, **kwargs)


def _errors(result: Any) -> list[tuple[Any, str]]:
    return [(error["row"], error["message"]) for error in result.errors]


# -- Rename (ColumnConverter.rename) ----------------------------------------------------------------------------------
def test_rename_finds_the_source_in_any_case_and_ignores_a_missing_one(spark) -> None:
    # idx == -1 → return: a column that does not exist is no error and changes nothing
    result = _run(spark, "rename :A :b\nrename :nope :x", [{"a": 1, "c": 2}])
    assert result.columns == ["b", "c"] and result.rows == [{"b": 1, "c": 2}]


def test_rename_onto_itself_in_another_case(spark) -> None:
    # idx == existingColumn → setColumn: only the spelling changes
    assert _run(spark, "rename :a :A", [{"a": 1}]).columns == ["A"]


def test_rename_onto_an_existing_column_fails_with_wranglers_message(spark) -> None:
    # existingColumn != -1 and != idx → DirectiveExecutionException (every row: the run stops)
    with pytest.raises(RecipeError, match=r"^Column 'C' already exists\. Apply the 'drop C' directive before "
                                          r"renaming 'a' to 'C'\."):
        _run(spark, "rename :a :C", [{"a": 1, "c": 2}])


# -- Drop / Keep -----------------------------------------------------------------------------------------------------
def test_drop_is_case_insensitive_and_skips_missing_columns(spark) -> None:
    # Drop: row.find(column.trim()) → remove when found, nothing otherwise
    assert _run(spark, "drop :A,:nope", [{"a": 1, "c": 2}]).columns == ["c"]


def test_keep_matches_names_exactly(spark) -> None:
    # Keep: a HashSet of the listed names, `contains` is case-sensitive; unlisted (or differently spelt) go
    result = _run(spark, "keep :A,:c", [{"a": 1, "c": 2, "d": 3}])
    assert result.columns == ["c"] and result.rows == [{"c": 2}]
    assert _run(spark, "keep :nope", [{"a": 1}]).columns == []


# -- Swap --------------------------------------------------------------------------------------------------------------
def test_swap_renames_in_place_with_the_directives_spelling(spark) -> None:
    # Swap: setColumn(sidx, right), setColumn(didx, left): positions keep their values, names as written
    result = _run(spark, "swap :A :c", [{"a": 1, "b": 5, "c": 2}])
    assert result.columns == ["c", "b", "A"] and result.rows == [{"c": 1, "b": 5, "A": 2}]


@pytest.mark.parametrize("recipe", ["swap :nope :a", "swap :a :nope"])
def test_swap_with_a_missing_column_fails(spark, recipe: str) -> None:
    with pytest.raises(RecipeError, match=r"^Column 'nope' does not exist\."):
        _run(spark, recipe, [{"a": 1}])


# -- Copy --------------------------------------------------------------------------------------------------------------
def test_copy_branches(spark) -> None:
    # didx == -1 → add at the end; didx == sidx (same column, any case) → nothing; force → setValue in place
    assert _run(spark, "copy :A :d", [{"a": 1}]).rows == [{"a": 1, "d": 1}]
    assert _run(spark, "copy :a :A", [{"a": 1}]).columns == ["a"]
    forced = _run(spark, "copy :a :C true", [{"a": 1, "c": 2, "e": 3}])
    assert forced.columns == ["a", "c", "e"] and forced.rows == [{"a": 1, "c": 1, "e": 3}]


def test_copy_errors(spark) -> None:
    with pytest.raises(RecipeError, match=r"^Column 'nope' does not exist\."):
        _run(spark, "copy :nope :c", [{"a": 1}])
    with pytest.raises(RecipeError, match=r"^Destination column 'c' already exists in the row\. Use 'force' option "
                                          r"to overwrite the column\."):
        _run(spark, "copy :a :c", [{"a": 1, "c": 2}])


# -- Merge -------------------------------------------------------------------------------------------------------------
def test_merge_appends_nulls_as_text_and_unescapes_the_separator(spark) -> None:
    # StringBuilder.append(null) prints "null"; the separator goes through StringEscapeUtils.unescapeJava
    rows = [{"a": "x", "b": None}, {"a": 1.5, "b": True}]
    result = _run(spark, "merge :A :b :m '\\t'", [{"a": "x", "b": None}, {"a": "1.5", "b": "true"}])
    assert [row["m"] for row in result.rows] == ["x\tnull", "1.5\ttrue"]
    typed = _run(spark, "merge :a :b :m '-'", rows[1:])
    assert typed.rows[0]["m"] == "1.5-true"  # Double.toString and Boolean.toString


def test_merge_without_both_columns_leaves_the_row_alone(spark) -> None:
    # idx1 == -1 || idx2 == -1 → the row is passed on unchanged
    assert _run(spark, "merge :a :nope :m ','", [{"a": "x"}]).rows == [{"a": "x"}]


# -- SetHeader -------------------------------------------------------------------------------------------------------
def test_set_headers_renames_by_position_only_as_far_as_the_row_goes(spark) -> None:
    # idx < row.width(): extra names are ignored, columns past the list keep their names
    assert _run(spark, "set-headers :x,:y,:z", [{"a": 1, "b": 2}]).columns == ["x", "y"]
    assert _run(spark, "set-headers :x", [{"a": 1, "b": 2}]).columns == ["x", "b"]


# -- ChangeColCaseNames / CleanseColumnNames / ColumnsReplace --------------------------------------------------------
@pytest.mark.parametrize(("argument", "expected"), [
    ("", "ab_c"), ("upper", "AB_C"), ("UPPERCASE", "AB_C"), ("lower", "ab_c"), ("title", "ab_c")])
def test_change_column_case_is_upper_only_for_upper_or_uppercase(spark, argument: str, expected: str) -> None:
    # initialize: toLower unless the identifier equalsIgnoreCase "upper" or "uppercase"
    assert _run(spark, f"change-column-case {argument}".strip(), [{"aB_c": 1}]).columns == [expected]


def test_cleanse_column_names_trims_lowers_and_replaces_non_ascii_word_characters(spark) -> None:
    # trim → toLowerCase → replaceAll("[^a-zA-Z0-9_]", "_"): an accented letter is not in the class
    assert _run(spark, "cleanse-column-names", [{" Unit Price-€ ": 1, "Café": 2}]).columns == [
        "unit_price__", "caf_"]


def test_columns_replace_runs_sed_on_every_name(spark) -> None:
    result = _run(spark, "columns-replace 's/^a_//g'", [{"a_x": 1, "b_a_": 2}])
    assert result.columns == ["x", "b_a_"]


# -- SplitToColumns --------------------------------------------------------------------------------------------------
def test_split_to_columns_follows_string_split(spark) -> None:
    # String.split(regex): trailing empty strings go, a leading one stays, "" is one empty part
    rows = [{"c": "a,b,,"}, {"c": ",x"}, {"c": ""}]
    result = _run(spark, "split-to-columns :C ','", rows)
    assert result.columns == ["c", "c_1", "c_2"]
    assert [(row["c_1"], row["c_2"]) for row in result.rows] == [("a", "b"), ("", "x"), ("", None)]


def test_split_to_columns_null_and_wrong_type_fail(spark) -> None:
    result = _run(spark, "split-to-columns :c ','", [{"c": "a,b"}, {"c": None}])
    assert _errors(result) == [({"c": None}, "Column 'c' has null value. It should be a non-null 'String'.")]
    typed = _run(spark, "split-to-columns :n ','", [{"n": 12}])
    assert _errors(typed) == [({"n": 12}, "Column 'n' has invalid type 'Integer'. It should be of type 'String'.")]


def test_split_to_columns_drops_rows_without_the_column(spark) -> None:
    # idx == -1: the row is not added to the results
    result = _run(spark, "split-to-columns :nope ','", [{"c": "a,b"}])
    assert result.rows == [] and result.errors == []


# -- CreateRecord / FlattenRecord ------------------------------------------------------------------------------------
def test_create_record_keys_as_written_and_skips_missing_columns(spark) -> None:
    # row.getValue(columnName) finds in any case; newRecord.addOrSet(columnName, …) keys by the listed name
    result = _run(spark, "create-record :r :A,:b,:nope,:a", [{"a": 1, "b": "x"}])
    assert result.rows[0]["r"] == {"A": 1, "b": "x"}


def test_create_record_replaces_an_existing_target(spark) -> None:
    # newRow.addOrSet(targetColumn, …): the existing column takes the record, in place
    result = _run(spark, "create-record :A :a,:b", [{"a": 1, "b": 2}])
    assert result.columns == ["a", "b"] and result.rows[0]["a"] == {"a": 1, "b": 2}


def test_flatten_record_names_fields_after_the_listed_column(spark) -> None:
    # "%s_%s" of the column as listed and each field; missing columns are skipped
    result = _run(spark, "create-record :r :a,:b\nflatten-record :R,:nope", [{"a": 1, "b": "x"}])
    assert result.columns == ["a", "b", "r", "R_a", "R_b"]
    assert (result.rows[0]["R_a"], result.rows[0]["R_b"]) == (1, "x")


def test_flatten_record_fails_on_a_value_that_is_not_a_record(spark) -> None:
    result = _run(spark, "flatten-record :c", [{"c": "text"}, {"c": None}])
    assert result.rows == [{"c": None}]  # a null value is skipped
    assert _errors(result) == [({"c": "text"}, "Column 'c' has invalid type 'String'. It should be of type 'Record'.")]


# -- SetType (ColumnConverter.convertType) ---------------------------------------------------------------------------
TEXTS = ["5", "+5", " 5", "1.5", "2147483648", "1e3", "abc", "true", "TRUE", " true ", "0", "NaN", "1.5f"]


def _by_text(result: Any) -> dict[str, Any]:
    """Each input text → its converted value, or the error message."""
    outcome = {error["row"]["v"]: error["message"] for error in result.errors}
    inputs = [text for text in TEXTS if text not in outcome]
    outcome.update({text: row["v"] for text, row in zip(inputs, result.rows, strict=True)})
    return outcome


@pytest.mark.parametrize(("target", "expected"), [
    # Integer.parseInt / Short.parseShort / Long.parseLong: sign and digits only, no blanks, range-checked
    ("int", {"5": 5, "+5": 5, "0": 0, "2147483648": None}),
    ("short", {"5": 5, "+5": 5, "0": 0, "2147483648": None}),
    ("long", {"5": 5, "+5": 5, "0": 0, "2147483648": 2147483648}),
    # Double.parseDouble / Float.parseFloat: trims, reads exponents, NaN and the f/d suffix
    ("double", {"5": 5.0, "+5": 5.0, " 5": 5.0, "1.5": 1.5, "2147483648": 2147483648.0, "1e3": 1000.0, "0": 0.0,
                "1.5f": 1.5, "NaN": "nan"}),
    ("float", {"5": 5.0, "+5": 5.0, " 5": 5.0, "1.5": 1.5, "2147483648": 2147483648.0, "1e3": 1000.0, "0": 0.0,
               "1.5f": 1.5, "NaN": "nan"}),
    # new BigDecimal(String): exponents yes; blanks, NaN and suffixes no
    ("decimal", {"5": D(5), "+5": D(5), "1.5": D("1.5"), "2147483648": D(2147483648), "1e3": D(1000), "0": D(0)}),
    # Boolean.parseBoolean: "true" in any case, everything else false, never an error
    ("boolean", {**dict.fromkeys(TEXTS, False), "true": True, "TRUE": True}),
])
def test_set_type_from_text(spark, target: str, expected: dict[str, Any]) -> None:
    outcome = _by_text(_run(spark, f"set-type :v {target}", [{"v": text} for text in TEXTS]))
    failure = f"Column 'v' cannot be converted to a '{target}'."
    for text in TEXTS:
        want = expected.get(text, failure)
        got = outcome[text]
        if want == "nan":
            assert got != got, text  # NaN
        elif want is None:
            assert got == failure, text
        else:
            assert got == want, text


def test_set_type_leaves_null_and_blank_text_alone(spark) -> None:
    # object == null || blank String → return (no conversion, no error); a typed column holds null here
    result = _run(spark, "set-type :v int", [{"v": None}, {"v": "  "}, {"v": ""}])
    assert result.rows == [{"v": None}] * 3 and result.errors == []
    kept = _run(spark, "set-type :v string", [{"v": "  "}])
    assert kept.rows == [{"v": "  "}]


NUMBERS = {"int": [0, -3, 7], "double": [0.1, -2.7, 0.0, float("nan")], "decimal": [D("0.10"), D("-2.50"), D("0")]}


@pytest.mark.parametrize(("source", "expected"), [
    ("int", [False, False, True]), ("double", [True, False, False, False]), ("decimal", [True, False, False])])
def test_set_type_numbers_to_boolean_are_greater_than_zero(spark, source: str, expected: list[bool]) -> None:
    # Short/Integer/Long/Float/Double: value > 0 (NaN > 0 is false); BigDecimal: compareTo(ZERO) > 0
    result = _run(spark, "set-type :v boolean", [{"v": v} for v in NUMBERS[source]])
    assert [row["v"] for row in result.rows] == expected


def test_set_type_narrowing_numbers_truncates_and_wraps_like_java(spark) -> None:
    # Double.intValue truncates toward zero and saturates, NaN → 0; Long.intValue keeps the low 32 bits;
    # BigDecimal.intValue truncates, then keeps the low 32 bits
    doubles = _run(spark, "set-type :v int", [{"v": v} for v in [-2.7, 3e10, float("nan")]])
    assert [row["v"] for row in doubles.rows] == [-2, 2**31 - 1, 0]
    longs = _run(spark, "set-type :v int", [{"v": 2**40 + 5}, {"v": 2**31}])
    assert [row["v"] for row in longs.rows] == [5, -(2**31)]
    decimals = _run(spark, "set-type :v short", [{"v": D("12345678901.25")}, {"v": D("-2.5")}])
    assert [row["v"] for row in decimals.rows] == [7221, -2]


def test_set_type_numbers_to_text_and_decimal(spark) -> None:
    # toString(): Double.toString keeps the E notation; BigDecimal.valueOf(double) goes through Double.toString
    text = _run(spark, "set-type :v string", [{"v": 3e10}, {"v": 0.1}])
    assert [row["v"] for row in text.rows] == ["3.0E10", "0.1"]
    numbers = _run(spark, "set-type :v decimal", [{"v": 0.1}, {"v": float("nan")}])
    assert [row["v"] for row in numbers.rows] == [D("0.1")]
    assert _errors(numbers)[0][1] == "Column 'v' cannot be converted to a 'decimal'."  # BigDecimal.valueOf(NaN)


@pytest.mark.parametrize("target", ["int", "short", "long", "float", "double", "decimal", "bytes"])
def test_set_type_boolean_converts_only_to_boolean_and_string(spark, target: str) -> None:
    # no `instanceof Boolean` branch: "has value of type … and cannot be converted to a 'INT'" (upper-cased type)
    result = _run(spark, f"set-type :v {target}", [{"v": True}, {"v": None}])
    assert result.rows == [{"v": None}]
    assert _errors(result) == [({"v": True}, f"Column 'v' has value of type 'Boolean' and cannot be converted to a "
                                             f"'{target.upper()}'.")]
    assert _run(spark, "set-type :v string", [{"v": True}]).rows == [{"v": "true"}]


def test_set_type_dates_convert_only_to_string(spark) -> None:
    import datetime as dt

    result = _run(spark, "set-type :v long", [{"v": dt.date(2024, 1, 2)}])
    assert _errors(result)[0][1] == "Column 'v' has value of type 'LocalDate' and cannot be converted to a 'LONG'."


def test_set_type_bytes_to_boolean_needs_exactly_one_byte(spark) -> None:
    # Bytes.toBoolean: length != 1 → IllegalArgumentException → "cannot be converted"
    result = _run(spark, "set-type :v bool", [{"v": b"\x01"}, {"v": b"\x00"}, {"v": b"\x00\x01"}])
    assert [row["v"] for row in result.rows] == [True, False]
    assert _errors(result) == [({"v": b"\x00\x01"}, "Column 'v' cannot be converted to a 'bool'.")]


def test_set_type_bytes_to_numbers_read_the_leading_bytes(spark) -> None:
    # Bytes.toInt / toShort read the first 4 / 2 bytes; fewer → IllegalArgumentException
    rows = [{"v": b"\x00\x00\x00\x02\x04\xd2"}, {"v": b"ab"}]
    ints = _run(spark, "set-type :v int", rows)
    assert [row["v"] for row in ints.rows] == [2]
    assert _errors(ints)[0][1] == "Column 'v' cannot be converted to a 'int'."
    shorts = _run(spark, "set-type :v short", rows)
    assert [row["v"] for row in shorts.rows] == [0, 24930]


def test_set_type_bytes_to_decimal_reads_scale_then_unscaled_value(spark) -> None:
    # Bytes.toBigDecimal: 4 bytes of scale (2), then the two's complement unscaled value (0x04d2 = 1234; 0xfb2e)
    rows = [{"v": b"\x00\x00\x00\x02\x04\xd2"}, {"v": b"\x00\x00\x00\x01\xfb\x2e"}]
    result = _run(spark, "set-type :v decimal", rows)
    assert [row["v"] for row in result.rows] == [D("12.34"), D("-123.4")]


def test_set_type_decimal_round_trips_through_bytes(spark) -> None:
    result = _run(spark, "set-type :v bytes\nset-type :v decimal", [{"v": D("-2.50")}, {"v": D("12345678901.25")}])
    assert [row["v"] for row in result.rows] == [D("-2.50"), D("12345678901.25")]


def test_set_type_type_names_follow_column_type_names(spark) -> None:
    # I64 is INT and I32 is SHORT in ColumnTypeNames; the message spells column and type as the recipe does
    assert _run(spark, "set-type :v i64", [{"v": "40000"}]).rows == [{"v": 40000}]
    short = _run(spark, "set-type :V I32", [{"v": "40000"}])
    assert _errors(short) == [({"v": "40000"}, "Column 'V' cannot be converted to a 'I32'.")]


def test_set_type_decimal_scale_only_sets_scale_half_even(spark) -> None:
    # scale without a mode → HALF_EVEN; negative scale rounds to tens (Java 1.23E+3)
    result = _run(spark, "set-type :v decimal 2", [{"v": "1.005"}, {"v": "1.015"}, {"v": "-1.025"}])
    assert [row["v"] for row in result.rows] == [D("1.00"), D("1.02"), D("-1.02")]
    tens = _run(spark, "set-type :v decimal -1", [{"v": "1234"}, {"v": "1235"}])
    assert [row["v"] for row in tens.rows] == [D(1230), D(1240)]


def test_set_type_decimal_precision_only_rounds_significant_digits(spark) -> None:
    # round(new MathContext(precision, HALF_EVEN)): also left of the point (98765 → 9.88E+4)
    rows = [{"v": "123.456"}, {"v": "0.0012345"}, {"v": "98765"}, {"v": "-0.5"}]
    result = _run(spark, "set-type :v decimal prop:{precision=3}", rows)
    assert [row["v"] for row in result.rows] == [D(123), D("0.00123"), D(98800), D("-0.5")]


def test_set_type_decimal_scale_and_precision(spark) -> None:
    # precision - scale must cover the digits before the point (0 counts one), then setScale only:
    # 1.2449 is 1.24 (no double rounding through 1.245)
    rows = [{"v": "1.2449"}, {"v": "0"}, {"v": "12.345"}]
    result = _run(spark, "set-type :v decimal 2 'HALF_UP' prop:{precision=3}", rows)
    assert [row["v"] for row in result.rows] == [D("1.24"), D("0.00")]
    assert _errors(result) == [({"v": "12.345"}, "Cannot set scale as '2' and precision as '3' for value '12.345' "
                                                 "whengiven precision - scale is less than number of digits before "
                                                 "decimal point ")]


def test_set_type_decimal_without_scale_keeps_the_value(spark) -> None:
    # scale == null && precision == null → the BigDecimal as parsed; a decimal column keeps its own type
    result = _run(spark, "set-type :v decimal", [{"v": D("1.25")}])
    assert result.rows == [{"v": D("1.25")}]


@pytest.mark.parametrize(("recipe", "message"), [
    ("set-type :v decimal 'HALF_UP'", "A rounding mode needs a scale or a precision."),
    ("set-type :v decimal 2 'half_up'", "Unknown rounding mode 'half_up'"),  # RoundingMode.valueOf is exact
    ("set-type :v decimal 2 prop:{precision=0}", "The precision must be at least 1, not 0."),
])
def test_set_type_decimal_arguments_fail_when_the_recipe_compiles(spark, recipe: str, message: str) -> None:
    # SetType.initialize → DirectiveParseException
    with pytest.raises(RecipeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        _run(spark, recipe, [{"v": "1"}])


def test_set_type_missing_column_is_left_alone(spark) -> None:
    # idx == -1: nothing happens
    assert _run(spark, "set-type :nope int", [{"v": "x"}]).rows == [{"v": "x"}]
