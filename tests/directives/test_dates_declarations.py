"""The currency/date/datetime and external families: usage strings, argument checks with positions, labels."""

from __future__ import annotations

import re
from typing import ClassVar

import pytest

import directives
import directives.catalog.dates as dates
import directives.catalog.external as external
from directives import REGISTRY
from directives.catalog.dates import is_zone_id
from directives.spark.compile.datepatterns import DatePatternError, Dialect, to_spark
from grammar.errors import DirectiveArgumentError, RecipeError
from grammar.migrate import migrate_line
from tests.directives.support import (
    FamilyDeclarations,
    assert_wrangler_accepts_with_warning,
    mod,
    new,
    rd,
    step_labels,
)


class TestDatesDeclarations(FamilyDeclarations):
    family = dates
    usages: ClassVar[dict[str, str]] = {
        "format-as-currency": "format-as-currency :source :destination  ['locale']",
        "parse-as-currency": "parse-as-currency :source :destination  ['locale']",
        "data-model-map-column":
            "data-model-map-column 'data-model-url' 'data-model' revision 'model' 'target-field' :column",
        "diff-date": "diff-date :column1 :column2 :destination",
        "format-date": "format-date :column 'format'",
        "current-datetime": "current-datetime :column  ['timezone']",
        "datetime-to-timestamp": "datetime-to-timestamp :column  ['timezone']",
        "format-datetime": "format-datetime :column 'format'",
        "timestamp-to-datetime": "timestamp-to-datetime :column",
        "parse-as-date": "parse-as-date :column  ['timezone']",
        "parse-as-datetime": "parse-as-datetime :column 'format'",
        "parse-as-simple-date": "parse-as-simple-date :column 'format'",
        "parse-timestamp": "parse-timestamp :column  ['timeunit']",
    }


class TestExternalDeclarations(FamilyDeclarations):
    family = external
    usages: ClassVar[dict[str, str]] = {
        "invoke-http": "invoke-http 'url' :column [,:column  ]*  ['header']",
        "set-charset": "set-charset :column 'charset'",
        "catalog-lookup": "catalog-lookup 'catalog' :column",
        "table-lookup": "table-lookup :column 'table'",
        "stemming": "stemming :column",
    }


@pytest.mark.parametrize(
    ("name", "categories"),
    [
        ("format-as-currency", ("currency",)), ("data-model-map-column", ("data-quality",)), ("diff-date", ("date",)),
        ("format-date", ("date", "format")), ("format-datetime", ("format", "datetime")),
        ("parse-as-date", ("parser", "date")), ("parse-as-datetime", ("parser", "datetime")),
        ("invoke-http", ("http",)), ("set-charset", ("language",)), ("catalog-lookup", ("lookup",)),
        ("stemming", ("nlp",)),
    ],
)
def test_categories_follow_wrangler(name: str, categories: tuple[str, ...]) -> None:
    assert REGISTRY[name].categories == categories


# -- v1 forms: what Wrangler's rewriter makes of them parses to our declarations ---------------------------------------
@pytest.mark.parametrize(
    ("v1", "name", "values"),
    [
        ("parse-as-date date UTC", "parse-as-date", {"column": "date", "timezone": "UTC"}),
        ("parse-as-date date", "parse-as-date", {"column": "date"}),
        ("parse-as-simple-date d MM/dd/yyyy HH:mm", "parse-as-simple-date",
         {"column": "d", "format": "MM/dd/yyyy HH:mm"}),
        ("diff-date date1 date2 diffdate", "diff-date",
         {"column1": "date1", "column2": "date2", "destination": "diffdate"}),
        ("format-date date_1 MM/dd/yyyy HH:mm", "format-date", {"column": "date_1", "format": "MM/dd/yyyy HH:mm"}),
        ("table-lookup value mylookup-table", "table-lookup", {"column": "value", "table": "mylookup-table"}),
        ("catalog-lookup ICD-9 code", "catalog-lookup", {"catalog": "ICD-9", "column": "code"}),
        ("stemming words", "stemming", {"column": "words"}),
        ("invoke-http http://h/x a,b k=v", "invoke-http", {"url": "http://h/x", "column": ("a", "b"), "header": "k=v"}),
    ],
)
def test_v1_forms_rewrite_to_these_declarations(v1: str, name: str, values: dict[str, object]) -> None:
    (step,) = directives.parse(v1).steps
    directive = step.directive
    assert directive.name == name
    assert {key: directive.bound(key) for key in values} == values
    assert any(form.split()[0] == name for form in type(directive).v1_forms)


def test_v1_set_charset_keeps_wranglers_unquoted_charset_which_does_not_bind() -> None:
    migrated = migrate_line("set-charset body utf-8", 1)
    assert migrated == "set-charset :body utf-8;"
    with pytest.raises(DirectiveArgumentError, match="must be a quoted text") as caught:
        directives.parse(migrated)
    assert caught.value.column == len("set-charset :body ") + 1
    assert "'utf-8'" in str(caught.value)


# -- argument checks, each pointing at the argument --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "column", "message"),
    [
        ("current-datetime :c 'abcd'", 21, "not a time zone"),
        ("datetime-to-timestamp :c 'Mars/Olympus'", 26, "not a time zone"),
        ("format-date :c \"yyyy-MM-dd 'T\"", 16, "unterminated quote"),
        ("format-date :c 'yyyy-MM-dd T'", 16, "unknown DateTimeFormatter letter 'T'"),
        ("format-datetime :c 'yyyy {x}'", 20, "reserved character"),
        ("parse-as-simple-date :c 'yyyy-MM-dd i'", 25, "unknown SimpleDateFormat letter 'i'"),
        ("parse-timestamp :c 'hours'", 20, "Time unit 'hours'"),
        ("format-as-currency :a :b 'dollars!'", 26, "not a locale"),
        ("data-model-map-column 'http://x' 'dm' 1 'm' ' ' :c", 45, "target field is empty"),
        ("invoke-http 'http://x/y' :a 'Authorization'", 29, "key=value"),
        ("invoke-http 'http://x/y' :a 'a=b=c'", 29, "key=value"),
        ("invoke-http 'http://x/y' :a 'a= '", 29, "empty key or value"),
        ("catalog-lookup 'ICD-11' :c", 16, "Catalog 'ICD-11'"),
    ],
)
def test_bad_arguments_are_reported_at_their_position(text: str, column: int, message: str) -> None:
    with pytest.raises(DirectiveArgumentError) as caught:
        directives.parse("drop :x\n" + text)
    error = caught.value
    assert message in str(error)
    assert (error.line, error.column) == (2, column)
    assert error.hint


@pytest.mark.parametrize(
    ("text", "column", "fragment", "runnable"),
    [
        ("parse-as-date :c ' UTC'", 18, "reads the dates in GMT", True),
        ("parse-as-datetime :c 'MM/dd/yyyy'", 22, "both a date and a time", True),
        ("parse-as-datetime :c 'HH:mm'", 22, "both a date and a time", True),
        ("invoke-http 'ftp://x' :a", 13, "not an http(s) URL", True),
        ("set-charset :c 'klingon-8'", 16, "not a character set", False),
        ("table-lookup :c ''", 17, "table name is empty", False),
    ],
)
def test_values_wrangler_does_not_check_are_warnings(text: str, column: int, fragment: str, runnable: bool) -> None:
    assert_wrangler_accepts_with_warning(text, column, fragment, runnable=runnable)


@pytest.mark.parametrize(
    "text",
    [
        "current-datetime :c 'Europe/Paris'", "current-datetime :c '+05:30'", "current-datetime :c 'UTC'",
        "datetime-to-timestamp :c 'GMT'", "parse-as-date :c 'US/Eastern'", "parse-timestamp :c 'Seconds'",
        "parse-timestamp :c 'microseconds'", "format-as-currency :a :b 'de_DE'", "parse-as-currency :a :b",
        "catalog-lookup 'icd-10-2016' :c", "set-charset :c 'ISO-8859-1'",
        # Spark-only limits are not recipe errors: the recipe is valid Wrangler
        "format-date :c 'YYYY ww'", "parse-as-simple-date :c 'S'",
    ],
)
def test_good_arguments_parse(text: str) -> None:
    assert len(directives.parse(text).steps) == 1


def test_arity_errors_show_the_usage() -> None:
    with pytest.raises(RecipeError, match=re.escape("Usage: diff-date :column1 :column2 :destination")):
        directives.parse("diff-date :a :b")


@pytest.mark.parametrize(
    ("zone", "valid"),
    [("UTC", True), ("Z", True), ("America/Los_Angeles", True), ("+05:30", True), ("GMT-8", True),
     ("abcd", False), ("", False), ("Europe/", False), ("../etc/passwd", False)],
)
def test_zone_ids(zone: str, valid: bool) -> None:
    assert is_zone_id(zone) is valid


# -- labels ------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "schema", "expected"),
    [
        ("format-as-currency :price :text", None, [rd("price"), new("text", "price")]),
        ("format-as-currency :price :text", ["price", "text"], [rd("price"), mod("text", "price")]),
        ("parse-as-currency :p :P 'en_US'", None, [mod("p")]),
        ("data-model-map-column 'http://x' 'dm' 1 'm' 'person_id' :id", None,
         [{"column": "id", "label": "RENAME", "to": "person_id"}]),
        ("data-model-map-column 'http://x' 'dm' 1 'm' 'ID' :id", None, [mod("id")]),
        ("diff-date :end :start :ms", None, [rd("end"), rd("start"), new("ms", "end", "start")]),
        ("diff-date :end :start :end", None, [rd("start"), mod("end", "end", "start")]),
        ("diff-date :a :a :d", ["a", "d"], [rd("a"), mod("d", "a", "a")]),
        *((f"{name} :c", None, [mod("c")]) for name in
          ("timestamp-to-datetime", "datetime-to-timestamp", "parse-timestamp")),
        *((f"{name} :c 'yyyy-MM-dd HH:mm'", None, [mod("c")]) for name in
          ("format-date", "format-datetime", "parse-as-datetime", "parse-as-simple-date")),
        ("current-datetime :now", None, [new("now")]),
        ("current-datetime :now 'UTC'", ["now"], [{"column": "now", "label": "MODIFY"}]),
        ("parse-as-date :d 'UTC'", None, [rd("d"), new("d_<n>", "d", pattern=True)]),
        ("invoke-http 'http://h/p' :a,:b", None,
         [rd("a"), rd("b"), {"column": "<key>", "label": "ADD", "sources": ["a", "b"], "pattern": True,
                             "exact": False}]),
        ("set-charset :body 'utf-8'", None, [mod("body")]),
        ("catalog-lookup 'ICD-10-2016' :code", None, [rd("code"), new("code_icd_10_2016_description", "code")]),
        ("catalog-lookup 'icd-9' :code", ["code"], [rd("code"), new("code_icd_9_description", "code")]),
        ("table-lookup :zip 'zips'", None, [rd("zip"), new("zip_<key>", "zip", pattern=True)]),
        ("stemming :review", None, [rd("review"), new("review_porter", "review")]),
    ],
)
def test_labels(text: str, schema: list[str] | None, expected: list[dict[str, object]]) -> None:
    assert step_labels(text, schema) == expected


def test_generated_columns_flow_into_later_directives() -> None:
    recipe = directives.parse("parse-as-date :d\nformat-date :d_1 'yyyy'\nstemming :t\ndrop :t_porter", ["d", "t"])
    labels = [[label.to_json() for label in step.labels] for step in recipe.steps]
    assert labels[1] == [mod("d_1")]
    assert labels[3] == [{"column": "t_porter", "label": "DROP"}]


# -- pattern translation (pure Python; the Spark behaviour is tested in tests/spark) -----------------------------------
@pytest.mark.parametrize(
    ("java", "dialect", "parsing", "spark"),
    [
        ("yyyy-MM-dd HH:mm:ss", Dialect.SIMPLE, True, "yyyy-MM-dd HH:mm:ss"),
        ("MM-dd-yyyy 'at' HH:mm:ss z", Dialect.SIMPLE, True, "MM-dd-yyyy' at 'HH:mm:ss z"),
        ("yyyy,MM.dd'T'HH:mm:ss.SSSZ", Dialect.SIMPLE, True, "yyyy,MM.dd'T'HH:mm:ss.SSSZ"),
        ("EEE, MMM d, ''yy", Dialect.SIMPLE, True, ", MMM d', '''yy"),
        ("EEEEEE d MMMMM", Dialect.SIMPLE, False, "EEEE d MMMM"),
        ("zzzzz Z aa", Dialect.SIMPLE, False, "zzzz Z a"),
        ("[yyyy]", Dialect.SIMPLE, False, "'['yyyy']'"),
        ("uuuu-MM-dd[ HH:mm]", Dialect.JAVA_TIME, False, "yyyy-MM-dd[ HH:mm]"),
        ("EEE d", Dialect.JAVA_TIME, False, "EEE d"),
    ],
)
def test_pattern_translation(java: str, dialect: Dialect, parsing: bool, spark: str) -> None:
    assert to_spark(java, dialect, parsing=parsing).pattern == spark


@pytest.mark.parametrize(
    ("java", "dialect", "parsing", "message"),
    [
        ("YYYY-ww", Dialect.JAVA_TIME, False, "week-based"),
        ("yyyy-MM-dd u", Dialect.SIMPLE, True, "day-number-of-week"),
        ("HH:mm:ss.S", Dialect.SIMPLE, True, "milliseconds"),
        ("ddd", Dialect.SIMPLE, False, "zero-padding"),
        ("MMMMM", Dialect.JAVA_TIME, False, "longer than Spark accepts"),
        ("QQQ yyyy", Dialect.JAVA_TIME, True, "cannot parse"),
        ("yyyy-MM-dd vvvv", Dialect.JAVA_TIME, False, "no equivalent"),
    ],
)
def test_patterns_spark_cannot_express_are_errors_not_silent_changes(
        java: str, dialect: Dialect, parsing: bool, message: str) -> None:
    with pytest.raises(DatePatternError, match=message) as caught:
        to_spark(java, dialect, parsing=parsing)
    assert not caught.value.java_invalid and caught.value.hint


def test_pattern_facts() -> None:
    pattern = to_spark("EEE, d MMM yy h:mm a", Dialect.SIMPLE, parsing=True)
    assert pattern.strips_day_names and pattern.two_digit_year and pattern.has_date and pattern.has_time
    assert not to_spark("h:mm", Dialect.JAVA_TIME, parsing=True).has_time
    assert not to_spark("yyyy-MM HH", Dialect.JAVA_TIME, parsing=True).has_date
    assert to_spark("yyyy-DDD HH", Dialect.JAVA_TIME, parsing=True).has_date
