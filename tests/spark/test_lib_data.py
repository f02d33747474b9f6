"""`geo:`, `dq:`, `json:` and `ddl:` functions on real Spark, expected values read from Wrangler's GeoFences,
DataQuality (commons-validator), JsonFunctions and DDL; each case names the method.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pyspark.sql import SparkSession

from directives.spark.runtime.runner import run_rows

pytestmark = pytest.mark.spark

FENCE = json.dumps({"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {}, "geometry": {
    "type": "Polygon", "coordinates": [[[-122.0587, 37.3794], [-122.0572, 37.3747], [-122.0463, 37.3749],
                                        [-122.0461, 37.3818], [-122.0587, 37.3794]]]}}]})


def column(spark: SparkSession, expression: str, rows: list[dict[str, Any]]) -> list[Any]:
    result = run_rows(f"set-column :out exp:{{{expression}}}", rows, spark=spark)
    assert not result.errors, result.errors
    return [row["out"] for row in result.rows]


def test_in_fence_winding_number(spark: SparkSession) -> None:
    rows = [{"lat": 37.3779, "lon": -122.0508, "fence": FENCE},  # inside the polygon
            {"lat": 43.46, "lon": -62.49, "fence": FENCE},  # outside
            {"lat": None, "lon": -122.0508, "fence": FENCE}]  # InFence: a null argument is false
    assert column(spark, "geo:InFence(lat, lon, fence)", rows) == [True, False, False]


def test_in_fence_with_an_unclosed_ring_fails_the_row(spark: SparkSession) -> None:
    fence = FENCE.replace(", [-122.0587, 37.3794]]]", "]]")  # the GeoJSON library rejects an unclosed ring
    result = run_rows("set-column :out exp:{geo:InFence(lat, lon, fence)}",
                      [{"lat": 37.3779, "lon": -122.0508, "fence": fence}], spark=spark)
    assert result.rows == [] and len(result.errors) == 1


def test_credit_cards_isbn_and_addresses(spark: SparkSession) -> None:
    cases = {
        # CreditCardValidator: type prefix/length and the Luhn check
        "dq:isCreditCard(v)": [("4111111111111111", True), ("4111111111111112", False), ("12", False)],
        "dq:isVisa(v)": [("4111111111111111", True), ("5500000000000004", False)],
        "dq:isMaster(v)": [("5500000000000004", True)],
        "dq:isAmex(v)": [("378282246310005", True)],
        "dq:isDiscover(v)": [("6011111111111117", True)],
        # ISBNValidator: ISBN-10 weights 10..1 mod 11, ISBN-13 weights 1,3 mod 10
        "dq:isISBN10(v)": [("0306406152", True), ("0306406153", False)],
        "dq:isISBN13(v)": [("9780306406157", True), ("9780306406158", False)],
        "dq:isISBN(v)": [("978-0-306-40615-7", True)],
        # InetAddressValidator
        "dq:isIPv4(v)": [("192.168.0.1", True), ("256.1.1.1", False)],
        "dq:isIPv6(v)": [("2001:db8::1", True), ("2001:db8:::1", False)],
        "dq:isIP(v)": [("::1", True), ("10.0.0.1", True), ("x", False)],
        "dq:isEmail(v)": [("ada@example.com", True), ("ada@", False)],
        "dq:isUrl(v)": [("https://example.com/a?b=1", True), ("mailto:x", False)],
        "dq:isDomainName(v)": [("example.co.uk", True), ("-bad-.com", False)],
        "dq:isCountryTld(v)": [("de", True), ("com", False)],
        "dq:isGenericTld(v)": [("com", True)],
        "dq:strlen(v)": [(None, 0), ("abc", 3)],  # strlen: 0 for null
        "dq:isempty(v)": [("", True), (None, False)],
        "dq:isDate(v)": [("12/31/20", True), ("13/01/20", False)],  # DateValidator: short US form M/d/yy
    }
    for expression, pairs in cases.items():
        got = column(spark, expression, [{"v": value} for value, _ in pairs])
        assert got == [expected for _, expected in pairs], expression


def test_inrange_and_hascolumn(spark: SparkSession) -> None:
    assert column(spark, "dq:inrange(v, 1, 10)", [{"v": 1}, {"v": 10.5}]) == [True, False]  # closed range
    assert column(spark, "dq:hascolumn(this, 'V')", [{"v": 1}]) == [True]  # Row.find ignores case


def test_json_select_wildcards_and_several_paths(spark: SparkSession) -> None:
    doc = json.dumps({"a": {"b": 1}, "items": [{"n": "x"}, {"n": "y"}], "Name": "Ada"})
    got = column(spark, "json:Stringify(json:Select(json:Parse(j), '$.items[*].n'))", [{"j": doc}])
    assert got == ['["x","y"]']
    got = column(spark, "json:Stringify(json:Select(json:Parse(j), '$.a.b', '$.Name', '$.missing'))", [{"j": doc}])
    assert got == ['[1,"Ada",null]']  # Select with several paths: a JsonArray of each read (SUPPRESS_EXCEPTIONS)
    # select (lower case) lower-cases keys first: keysToLower then read
    assert column(spark, "json:stringify(json:select(j, '$.name'))", [{"j": doc}]) == ['"Ada"']
    assert column(spark, "json:stringify(json:drop(j, 'n', 'b'))", [{"j": doc}]) == [
        '{"Name":"Ada","a":{},"items":[{},{}]}']


def test_json_kind_tests_join_and_lenient_parse(spark: SparkSession) -> None:
    rows = [{"j": "[1, \"a\", {\"x\": 1}]"}, {"j": "{\"x\": 1}"}, {"j": "not json"}]
    assert column(spark, "json:IsArray(json:Parse(j))", rows) == [True, False, False]
    assert column(spark, "json:IsObject(json:Parse(j))", rows) == [False, True, False]
    assert column(spark, "json:IsNull(json:Parse(j))", rows) == [False, False, True]  # Parse: invalid → JsonNull
    assert column(spark, "json:join(json:Parse(j), '|')", rows[:1]) == ['1|"a"||']  # primitives' toString + sep


def test_ddl_on_records(spark: SparkSession) -> None:
    rows = [{"r": {"a": {"b": [10, 20]}, "c": "x"}}]
    assert column(spark, "ddl:select(r, 'a.b[1]')", rows) == [20]
    assert column(spark, "ddl:hasField(r, 'c')", rows) == [True]
    assert column(spark, "json:Stringify(ddl:toJson(r))", rows) == ['{"a":{"b":[10,20]},"c":"x"}']
    assert column(spark, "json:Stringify(ddl:parsesql('id int not null, name string'))", rows) == [
        '{"fields":[{"name":"id","type":"int"},{"name":"name","type":["string","null"]}],"name":"etlSchemaBody",'
        '"type":"record"}']
