"""Reading CSV, JSON-lines and text files so that every line ends up somewhere: a row, or an error row.

Spark's own CSV and JSON readers drop blank lines without a count, decode invalid UTF-8 to U+FFFD
without a word, and (CSV) cut a line with more values than the header down to size. So a line-based
file is read as lines of raw bytes (`spark.read.text`, which keeps them as they are) and each line is
judged here: a line that cannot be a row keeps its place, with null values and the hidden column
`INPUT_ERROR` saying why and holding the line; `Frame.start` sends such rows to the error output. The
parsing itself is still Spark's (`from_csv`, `from_json` with a corrupt-record column), so the common
path costs about what Spark's readers cost; the extra checks are a byte scan for UTF-8 and, on lines that
hold a quote, counting quotes (`python -m bench.bench_read` measures the difference).

The rules, and how they differ from CDAP's file source, are in docs/differences/reading.md.
"""

from __future__ import annotations

import csv

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from directives.spark.runtime.frame import INPUT_ERROR, INPUT_ERROR_TYPE

#: Name of the corrupt-record field in the schemas handed to `from_csv`/`from_json` (never a user column).
CORRUPT = "__wr_corrupt"
#: Spark's own limit on values per CSV line (`maxColumns`); a wider header raises it.
MAX_VALUES = 20480
#: A quoted CSV field, complete (for counting a bad line's values): opening quote at the start of the line or
#: after a comma, doubled quotes inside, the closing quote followed (after optional blanks, which Spark's parser
#: allows) by a comma or the end. Possessive quantifiers: Java's regex matcher neither backtracks nor recurses
#: on them, so a hostile line cannot blow its stack.
_QUOTED_FIELD = r'(^|,)"[^"]*+(?:""[^"]*+)*+"[ \t]*+(?=,|$)'
_BOM = "\ufeff"


def _lines(spark: SparkSession, path: str) -> DataFrame:
    """One row per line, column `value`, bytes exactly as in the file (line ends removed)."""
    return spark.read.text(path)


def _judged(rules: list[tuple[Column, Column]], source: str, line: Column) -> Column:
    """The first rule whose condition holds gives the reason; no rule holds: null.

    The record is built once, outside the rules: had each rule built its own, the parts common to all of
    them (the line shown, the file name) would be hoisted by Spark's common-subexpression elimination and
    computed for every line, bad or not, which made reading twice as slow."""
    reason = F.when(rules[0][0], rules[0][1])
    for condition, text in rules[1:]:
        reason = reason.when(condition, text)
    record = F.struct(
        F.concat(F.lit(f"read {source} "), F.input_file_name()).alias("source"),
        reason.alias("reason"),
        line.alias("line"),
    ).cast(INPUT_ERROR_TYPE)
    return F.when(reason.isNotNull(), record)


def _not_utf8(value: Column) -> tuple[Column, Column]:
    """(condition, reason) for a line that is not UTF-8; the reason keeps its bytes in hex, so nothing is lost
    although the line shown in the error output has U+FFFD in their place."""
    return ~F.is_valid_utf8(value), F.concat(F.lit("The line is not valid UTF-8 (its bytes in hex: "),
                                             F.hex(value), F.lit(")."))


def _shown(value: Column) -> Column:
    return F.make_valid_utf8(value)


# -- text ------------------------------------------------------------------------------------------------------------
def read_text(spark: SparkSession, path: str) -> DataFrame:
    """A row per line in `body` (a blank line is a row with `body` = ""); a line that is not UTF-8 is an error."""
    value = F.col("value")
    bad, reason = _not_utf8(value)
    verdict = _judged([(bad, reason)], "text", _shown(value))
    return _lines(spark, path).select(F.when(~bad, value).alias("body"), verdict.alias(INPUT_ERROR))


# -- CSV -------------------------------------------------------------------------------------------------------------
def _first_line(lines: DataFrame) -> str | None:
    """The first line that is not blank, as Spark's CSV reader takes its header (one small job)."""
    first = lines.filter(F.length(F.trim(F.col("value"))) > 0).select("value").head()
    return None if first is None else str(first[0])


def split_values(line: str) -> list[str]:
    """The values of one CSV line (RFC 4180 quoting), for the header."""
    try:
        return next(csv.reader([line]), [])
    except csv.Error:  # a broken quote in the header: the commas decide
        return line.split(",")


def header_names(values: list[str]) -> list[str]:
    """Column names from header values, as Spark's CSV reader makes them: an empty value becomes `_c<i>`,
    and values that occur more than once (ignoring case) get their position appended."""
    lowered = [value.lower() for value in values if value]
    repeated = {value for value in lowered if lowered.count(value) > 1}
    return [f"_c{i}" if not value else f"{value}{i}" if value.lower() in repeated else value
            for i, value in enumerate(values)]


def _values(value: Column) -> Column:
    """How many values a line holds: commas outside complete quoted fields, plus one (for error messages and
    lines too long to parse safely; the regex runs only there)."""
    return F.size(F.split(F.regexp_replace(value, _QUOTED_FIELD, "$1"), ",", -1))


def _counted(values: Column) -> Column:
    return F.concat(values.cast("string"), F.when(values == 1, F.lit(" value")).otherwise(F.lit(" values")))


def read_csv(spark: SparkSession, path: str, header: bool = True) -> DataFrame:
    """CSV with RFC 4180 quoting, every value text. With ``header`` the first non-blank line names the columns
    and every line equal to it is a header (each file of a directory has one); without, the first line's
    width gives `_c0`, `_c1`, …

    Error rows: a line that is not UTF-8, a quote that is never closed (an odd number of quote characters:
    CDAP's rule), more or fewer values than the header. A blank line is a row of nulls (as CDAP reads it)."""
    lines = _lines(spark, path)
    first = _first_line(lines)
    value = F.col("value")
    if first is None:  # nothing but blank lines (or nothing): rows without columns
        return lines.select(F.lit(None).cast(INPUT_ERROR_TYPE).alias(INPUT_ERROR))
    named = first.removeprefix(_BOM)
    values = split_values(named)
    names = header_names(values) if header else [f"_c{i}" for i in range(len(values))]
    if header:
        lines = lines.filter(~value.isin(named, _BOM + named))
    width = len(names)
    limit = max(MAX_VALUES, width + 1)
    # Each check is a column of its own projection, computed once per line: an expression repeated in one
    # projection is computed by Spark for every line up front, even where only a rare branch needs it (that
    # doubled the cost of reading). A line of `limit` values or more would make the parser throw and abort the
    # job, so it never gets there; only lines that long pay for counting.
    quotes = F.octet_length(value) - F.octet_length(F.replace(value, F.lit('"'), F.lit("")))
    marked = lines.select(
        value,
        (F.contains(value, F.lit('"')) & (quotes % 2 == 1)).alias("odd_quotes"),
        ((F.octet_length(value) >= limit) & (_values(value) >= limit)).alias("too_wide"),
    )
    too_wide = F.col("too_wide")
    schema = ", ".join(f"c{i} STRING" for i in range(width)) + f", {CORRUPT} STRING"
    options = {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": CORRUPT, "escape": '"', "maxColumns": str(limit)}
    # Parsed in a projection of its own too: the verdict and every column read the parse.
    parsing = marked.select(value, F.col("odd_quotes"), too_wide,
                            F.from_csv(F.when(~too_wide, value), schema, options).alias("parsed"))
    expected = (f"the header has {width} column{'s' if width != 1 else ''}" if header
                else f"the first line has {width} value{'s' if width != 1 else ''}")
    not_utf8, not_utf8_reason = _not_utf8(value)
    rules = [
        (not_utf8, not_utf8_reason),
        (F.col("odd_quotes"), F.lit("The line has a quote that is never closed (an odd number of '\"').")),
        (too_wide, F.lit(f"The line has {limit} values or more; {expected}.")),
        (F.col("parsed").getField(CORRUPT).isNotNull(),
         F.concat(F.lit("The line has "), _counted(_values(value)), F.lit(f"; {expected}."))),
    ]
    return _columns(parsing, rules, "csv", [(f"c{i}", name) for i, name in enumerate(names)])


def _columns(parsing: DataFrame, rules: list[tuple[Column, Column]], source: str,
             fields: list[tuple[str, str]]) -> DataFrame:
    """The user columns (field of `parsed` -> name), null on lines the rules reject, and `INPUT_ERROR`."""
    judged = parsing.select("parsed", _judged(rules, source, _shown(F.col("value"))).alias(INPUT_ERROR))
    ok = F.col(INPUT_ERROR).isNull()
    return judged.select(*(F.when(ok, F.col("parsed").getField(field)).alias(name) for field, name in fields),
                         F.col(INPUT_ERROR))


# -- JSON lines ------------------------------------------------------------------------------------------------------
def read_json(spark: SparkSession, path: str) -> DataFrame:
    """One JSON object per line, with the schema Spark's JSON reader infers (one pass over the data, as before).
    Error rows: a line that is not UTF-8, or not a JSON object (broken JSON, an array, a bare value). A blank
    line is a row of nulls."""
    inferred = spark.read.option("columnNameOfCorruptRecord", CORRUPT).json(path).schema
    fields = [field for field in inferred.fields if field.name != CORRUPT]
    schema = T.StructType([*fields, T.StructField(CORRUPT, T.StringType(), True)])
    value = F.col("value")
    # A blank line parses to null (no corrupt record): a row of nulls.
    options = {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": CORRUPT}
    parsing = _lines(spark, path).select(value, F.from_json(value, schema, options).alias("parsed"))
    corrupt = F.col("parsed").getField(CORRUPT).isNotNull()
    not_utf8, not_utf8_reason = _not_utf8(value)
    array = F.startswith(F.ltrim(value, F.lit(" \t")), F.lit("["))
    rules = [
        (not_utf8, not_utf8_reason),
        (corrupt & array, F.lit("The line is a JSON array; each line must hold one JSON object.")),
        (corrupt, F.lit("The line is not a JSON object.")),
    ]
    return _columns(parsing, rules, "json", [(field.name, field.name) for field in fields])
