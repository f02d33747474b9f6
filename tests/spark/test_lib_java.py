"""`arrays:` (java.util.Arrays) and `bytes:` (CDAP Bytes) on real Spark; expected values follow each Java method."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import SparkSession

from directives.spark.expr.compiler import ExpressionError
from directives.spark.runtime.runner import run_rows

pytestmark = pytest.mark.spark


def check(spark: SparkSession, cases: dict[str, Any], row: dict[str, Any] | None = None) -> None:
    names = {f"c{i}": expression for i, expression in enumerate(cases)}
    recipe = "\n".join(f"set-column :{name} exp:{{{expression}}}" for name, expression in names.items())
    result = run_rows(recipe, [row or {"x": 1}], spark=spark)
    assert not result.errors, result.errors
    assert {names[name]: result.rows[0][name] for name in names} == cases


def test_arrays(spark: SparkSession) -> None:
    check(spark, {
        "arrays:toString([1, 2, 3])": "[1, 2, 3]",
        "arrays:hashCode([1, 2])": 31 * (31 * 1 + 1) + 2,  # 31·h + e, from 1
        "arrays:hashCode(['a'])": 31 + 97,  # 'a'.hashCode() is 97
        "arrays:equals([1, 2], [1, 2])": True,
        "arrays:equals([1, 2, 3], 0, 2, [1, 2], 0, 2)": True,
        "arrays:mismatch([1, 2, 3], [1, 5, 3])": 1,
        "arrays:mismatch([1, 2], [1, 2, 3])": 2,  # a proper prefix: the shorter length
        "arrays:compare([1, 2], [1, 3])": -1,
        "arrays:compare([1, 2, 3], [1, 2])": 1,  # the length difference
        "arrays:compare(['b'], ['a'])": 1,  # String.compareTo: 'b' - 'a'
        "arrays:toString(arrays:copyOf([1, 2], 4))": "[1, 2, 0, 0]",
        "arrays:toString(arrays:copyOfRange([1, 2, 3, 4], 1, 3))": "[2, 3]",
        "arrays:binarySearch([1, 3, 5], 3)": 1,
        "arrays:binarySearch([1, 3, 5], 4)": -3,  # −(insertion point 2) − 1
        "arrays:sort([3, 1])": None,  # void
        "arrays:toString(arrays:asList('a', 'b'))": "[a, b]",
    })


def test_arrays_stream_is_a_compile_time_error(spark: SparkSession) -> None:
    with pytest.raises(ExpressionError, match=r"arrays:stream returns a java\.util\.stream\.Stream"):
        run_rows("set-column :c exp:{arrays:stream([1])}", [{"x": 1}], spark=spark)


def test_bytes(spark: SparkSession) -> None:
    check(spark, {
        "bytes:toHexString(bytes:toBytes(258))": "00000102",  # toBytes(int): 4 bytes big-endian
        "bytes:toHexString(bytes:toBytes(-1L))": "ffffffffffffffff",
        "bytes:toInt(bytes:toBytes(258))": 258,
        "bytes:toInt(bytes:add(bytes:toBytes('x'), bytes:toBytes(7)), 1)": 7,  # toInt(bytes, offset)
        "bytes:toString(bytes:toBytes('abcdef'), 1, 3)": "bcd",
        "bytes:toString(bytes:head(bytes:toBytes('abcdef'), 2))": "ab",
        "bytes:toString(bytes:tail(bytes:toBytes('abcdef'), 2))": "ef",
        "bytes:toHexString(bytes:padHead(bytes:toBytes('a'), 2))": "000061",
        "bytes:startsWith(bytes:toBytes('abc'), bytes:toBytes('ab'))": True,
        "bytes:compareTo(bytes:toBytes('b'), bytes:toBytes('a'))": 1,
        "bytes:hashCode(bytes:toBytes('a'))": 31 + 97,  # WritableComparator.hashBytes, from 1
        "bytes:toStringBinary(bytes:fromHexString('41ff0a'))": "A\\xFF\\x0A",
        "bytes:toHexString(bytes:toBytesBinary('A\\\\xFF'))": "41ff",
        "bytes:toHexString(bytes:stopKeyForPrefix(bytes:fromHexString('01ff')))": "02",
        "bytes:toHexString(bytes:incrementBytes(bytes:toBytes(1L), 2))": "0000000000000003",
        "bytes:toUUID(bytes:fromHexString('00112233445566778899aabbccddeeff'))":
            "00112233-4455-6677-8899-aabbccddeeff",
        "bytes:putInt(bytes:toBytes(0L), 2, 5)": 6,  # the offset after the int
        "bytes:toDouble(bytes:fromHexString('3ff0000000000000'))": 1.0,
        "coalesce()": None,
    })
