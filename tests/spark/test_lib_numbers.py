"""`arithmetic:`, `decimal:`, `number:`, the rest of `math:` and `logical:SetBit` on real Spark.

Expected values are read from Wrangler's ArithmeticOperations, DecimalTransform, NumberFunctions, Logical and
java.lang.Math; each case names the method.
"""

from __future__ import annotations

import decimal
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import types as T

from directives.spark.runtime.runner import run_rows

pytestmark = pytest.mark.spark


def values(spark: SparkSession, expressions: dict[str, str], row: dict[str, Any] | None = None,
           types: dict[str, T.DataType] | None = None) -> dict[str, Any]:
    recipe = "\n".join(f"set-column :{name} exp:{{{text}}}" for name, text in expressions.items())
    result = run_rows(recipe, [row or {"x": 1}], spark=spark, types=types)
    assert not result.errors, result.errors
    return {name: result.rows[0][name] for name in expressions}


def test_arithmetic_operations(spark: SparkSession) -> None:
    got = values(spark, {
        "add": "arithmetic:add(a, b, 3)",  # add: int sum
        "add_null": "arithmetic:add(a, n)",  # getOutputType returns null when any argument is null
        "add_double": "arithmetic:add(a, 1.5)",  # DOUBLE wins
        "minus": "arithmetic:minus(a, b)",
        "multiply": "arithmetic:multiply(a, b, 2)",
        "divideq": "arithmetic:divideq(a, b)",  # x.doubleValue() / y.doubleValue()
        "divideq_zero": "arithmetic:divideq(a, 0)",  # null when y is 0
        "divider": "arithmetic:divider(-7, 2)",  # Java %: sign of the dividend
        "lcm": "arithmetic:lcm(4, 6)",
        "lcm_double": "arithmetic:lcm(2.5, 1.5)",  # scaled to whole numbers: lcm(25, 15) / 10
        "equal": "arithmetic:equal(a, 7)",
        "equal_null": "arithmetic:equal(a, n)",
        "max": "arithmetic:max(a, b, 9)",
        "min": "arithmetic:min(a, b)",
        "average": "arithmetic:average(a, b, n)",  # nulls skipped
    }, {"a": 7, "b": 2, "n": None}, types={"n": T.IntegerType()})
    assert got == {"add": 12, "add_null": None, "add_double": 8.5, "minus": 5, "multiply": 28, "divideq": 3.5,
                   "divideq_zero": None, "divider": -1, "lcm": 12, "lcm_double": 7.5, "equal": True,
                   "equal_null": None, "max": 9, "min": 2, "average": 4.5}


def test_decimal_transform(spark: SparkSession) -> None:
    d = decimal.Decimal
    got = values(spark, {
        "add": "decimal:add(v, 25)",
        "subtract": "decimal:subtract(v, 1)",
        "multiply": "decimal:multiply(v, 3)",
        "divideq": "decimal:divideq(v, 3)",  # half-even at v's scale (2)
        "divideq_zero": "decimal:divideq(v, 0)",
        "divider": "decimal:divider(v, 5)",
        "abs": "decimal:abs(neg)",
        "negate": "decimal:negate(v)",
        "sign": "decimal:sign(neg)",
        "scale": "decimal:scale(v)",
        "precision": "decimal:precision(v)",  # unscaled 1234 → 4 digits
        "unscaled": "decimal:unscaled(v)",
        "left": "decimal:decimal_left(v, 1)",
        "right": "decimal:decimal_right(v, 1)",  # 123.4 at scale 1
        "pow": "decimal:pow(v, 2)",
    }, {"v": d("12.34"), "neg": d("-1.50")}, types={"v": T.DecimalType(10, 2), "neg": T.DecimalType(10, 2)})
    assert {k: (float(v) if isinstance(v, d) else v) for k, v in got.items()} == {
        "add": 37.34, "subtract": 11.34, "multiply": 37.02, "divideq": 4.11, "divideq_zero": None, "divider": 2.34,
        "abs": 1.5, "negate": -12.34, "sign": -1, "scale": 2, "precision": 4, "unscaled": 1234.0, "left": 1.234,
        "right": 123.4, "pow": 152.2756}


def test_number_functions_and_math(spark: SparkSession) -> None:
    got = values(spark, {
        "as_double": "number:AsDouble(a / 2)",  # a / 2 is Integer 3, doubleValue 3.0
        "as_integer": "number:AsInteger(7.9)",  # intValue truncates
        "mantissa": "number:Mantissa(3.25)",
        "mantissa_int": "number:Mantissa(3)",  # Mantissa(int) returns 0
        "floor_div": "math:floorDiv(-7, 2)",
        "floor_mod": "math:floorMod(-7, 2)",
        "ieee": "math:IEEEremainder(5.0, 2.0)",  # 5 - 2 × rint(2.5) = 5 - 4
        "copy_sign": "math:copySign(3.0, -1.0)",
        "exponent": "math:getExponent(8.0)",
        "ulp": "math:ulp(1.0)",
        "next_up": "math:nextUp(1.0)",
        "fma": "math:fma(2.0, 3.0, 1.0)",
        "full": "math:multiplyFull(2147483647, 2)",
        "high": "math:multiplyHigh(9223372036854775807L, 4L)",
        "add_exact": "math:addExact(1, 2)",
        "scalb": "math:scalb(1.5, 3)",
        "set_bit": "logical:SetBit(0L, [1, 3], 1)",  # 0b101
        "clear_bit": "logical:SetBit(7L, [2], 0)",  # 0b101
    }, {"a": 7})
    assert got == {"as_double": 3.0, "as_integer": 7, "mantissa": 0.25, "mantissa_int": 0.0, "floor_div": -4,
                   "floor_mod": 1, "ieee": 1.0, "copy_sign": -3.0, "exponent": 3, "ulp": 2.0 ** -52,
                   "next_up": 1.0 + 2.0 ** -52, "fma": 7.0, "full": 4294967294, "high": 1, "add_exact": 3,
                   "scalb": 12.0, "set_bit": 5, "clear_bit": 5}


def test_exact_overflow_fails_the_row(spark: SparkSession) -> None:
    result = run_rows("set-column :e exp:{math:addExact(2147483647, 1)}", [{"x": 1}], spark=spark)
    assert result.rows == [] and "overflow" in result.errors[0]["message"]  # Math.addExact throws
