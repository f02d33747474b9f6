"""CSV records the way Commons-CSV's DEFAULT format reads them, as Spark expressions (and one Python splitter).

Wrangler's `parse-as-csv` uses Commons-CSV: a field is quoted only when its *first* character is
the quote, `""` inside quotes is one quote, and nothing is trimmed; an empty field is "".
A record without quotes (nearly every one) is split on its delimiter. For the others, Spark's
`from_csv` needs a fixed column count and reads an empty field as null, so we count each
record's fields ourselves (quoted sections removed, then delimiters counted) and turn nulls of
fields the record has back into "". The Python splitter reads the one header record the driver
looks at for `header=true`.
"""

from __future__ import annotations

import functools
import operator

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from directives.csv_records import split_record  # noqa: F401  (the driver-side splitter, Spark-free)
from directives.spark.internals import column, reference_text
from directives.spark.runtime.frame import quote, sql_string

#: Marks a null inside `from_csv` so that only fields the record lacks become null (never appears in text).
_NULL_MARK = "\u0000\u0001"


def _quoted(text: str) -> str:
    """A Java regex literal for ``text`` (`Pattern.quote`)."""
    return "\\Q" + text.replace("\\E", "\\E\\\\E\\Q") + "\\E"


#: A quoted field opening at a field start, for `regexp_replace` (``d``: the delimiter as a regex).
_QUOTED_FIELD = '(^|{d})"[^"]*+(?:""[^"]*+)*+"'


def field_count(value: Column, delimiter: str) -> Column:
    """How many fields a record has: quoted fields (opening at a field start) removed, delimiters counted.

    Records without a quote (nearly all) count delimiters by length difference; only quoted ones pay for the regex.
    """
    name = reference_text(value)
    if name is not None:  # the same expression as one SQL text: one round trip, not a dozen
        return F.expr(_field_count_text(name, delimiter))
    d = _quoted(delimiter)
    # Possessive runs, not `(?:[^"]|"")*`: Java's matcher recurses once per character of that group, and a
    # quoted field of a few thousand characters overflowed its stack and failed the whole job.
    unquoted = F.regexp_replace(value, _QUOTED_FIELD.format(d=d), "$1")
    quoted_count = F.size(F.split(unquoted, d, -1))
    if not delimiter:
        return quoted_count
    # Bytes, not characters: `octet_length` is the text's stored size, `length` walks it to count characters; and
    # `contains` is a faster test than `instr` (measured on 2M rows: the width pass went from 1.55 s to 0.49 s).
    removed = F.octet_length(value) - F.octet_length(F.replace(value, F.lit(delimiter), F.lit("")))
    width = len(delimiter.encode("utf-8"))
    plain_count = (removed if width == 1 else (removed / width).cast("int")) + 1
    return F.when(~value.contains('"'), plain_count).otherwise(quoted_count)


def _field_count_text(name: str, delimiter: str) -> str:
    """`field_count` as SQL text over the column reference ``name`` (the same expression, operation for operation)."""
    d = _quoted(delimiter)
    unquoted = f"regexp_replace({name}, {sql_string(_QUOTED_FIELD.format(d=d))}, '$1')"
    quoted_count = f"size(split({unquoted}, {sql_string(d)}, -1))"
    if not delimiter:
        return quoted_count
    removed = f"(octet_length({name}) - octet_length(replace({name}, {sql_string(delimiter)}, '')))"
    width = len(delimiter.encode("utf-8"))
    plain_count = f"{removed} + 1" if width == 1 else f"CAST({removed} / {width} AS INT) + 1"
    return f"CASE WHEN NOT contains({name}, '\"') THEN {plain_count} ELSE {quoted_count} END"


#: How many records the widest record is first looked for in (`widest_record`).
SAMPLE_RECORDS = 1000


def first_records_width(rows: DataFrame, active: Column, value: Column, delimiter: str) -> tuple[int, bool]:
    """The largest field count among the ``active`` records of the first `SAMPLE_RECORDS` rows, and whether those
    were all the rows."""
    # `limit` then `collect` reads the first records of the first partition only (an aggregate over a `limit` would
    # start a task on every partition and shuffle). Over one partition (`coalesce(1)`, which reads the others only
    # when the first runs out) that is one job: Spark's `limit` would otherwise start a second one, on more
    # partitions, whenever the first holds fewer records than asked for, as every small input's does. The rows are
    # not filtered to the active ones first: a `filter` made this job cost 40 % more JVM time on a small input
    # (51 ms against 30 ms; the job runs beside every build of a recipe whose width it checks).
    counts = rows.coalesce(1).select(F.when(active, field_count(value, delimiter)).alias("w"))
    first = [row[0] for row in counts.limit(SAMPLE_RECORDS).collect()]
    return max((int(width) for width in first if width is not None), default=0), len(first) < SAMPLE_RECORDS


def checked_guess(rows: DataFrame, active: Column, value: Column, delimiter: str, guessed: int) -> int:
    """The width to compile with when the pass that writes the output stops at any record wider than ``guessed``
    (`CsvFields.wider_than`): ``guessed`` when the widest of the first records has exactly that many fields (the
    data is then at least that wide, and that pass catches a wider record), else the width learned exactly
    (`widest_record`). Costs the job over the first records, not a pass over all of them."""
    first, every_record = first_records_width(rows, active, value, delimiter)
    if every_record or first == guessed:
        return first
    return widest_record(rows, active, value, delimiter)


def widest_record(rows: DataFrame, active: Column, value: Column, delimiter: str) -> int:
    """The largest field count of ``value`` over the ``active`` records of ``rows``, exactly, for much less than
    counting every record.

    Counting a record's delimiters copies it (`replace`), which made learning `parse-as-csv`'s width cost as much
    as a third of a whole run. So the width is first guessed from the first records, then checked over all of them
    with a test that copies nothing for a record no wider than the guess: `substring_index(v, d, n)` is the record
    itself when it has fewer than n delimiters. Only when some record is wider are all of them counted (the old
    pass). A delimiter of several characters could overlap itself, which `substring_index` and the count see
    differently, so it is always counted."""
    guess, every_record = first_records_width(rows, active, value, delimiter)
    if every_record:
        return guess
    records = rows.filter(active)
    if len(delimiter) == 1 and guess > 0:
        # As many delimiters as the guess has fields: maybe wider (quoted delimiters count here), then counted.
        maybe = F.octet_length(F.substring_index(value, delimiter, guess)) < F.octet_length(value)
        wider = maybe & (field_count(value, delimiter) > guess)
        if not records.agg(F.max(wider.cast("int")).alias("wider")).collect()[0][0]:
            return guess
    return int(records.agg(F.max(field_count(value, delimiter)).alias("width")).collect()[0][0] or 0)


def csv_struct(value: Column, delimiter: str, width: int) -> Column:
    """The record parsed once into a struct ``c0 … c{width-1}`` (null where a field is missing or empty).

    Callers put it in a hidden column of its own projection so every field reads the same parse
    (Spark does not share a `from_csv` between the branches of several `CASE WHEN`s).
    """
    schema = ", ".join(f"c{i} STRING" for i in range(max(width, 1)))
    return F.from_csv(value, schema, _csv_options(delimiter))


def _csv_options(delimiter: str) -> dict[str, str]:
    """`from_csv`'s options for Commons-CSV's DEFAULT format with ``delimiter``. Spark reads a backslash in ``sep`` as
    the start of an escape (`\\t`), so a backslash of the delimiter is written as two (alone, it failed the job)."""
    return {
        "sep": delimiter.replace("\\", "\\\\"),
        "quote": '"',
        "escape": '"',
        "nullValue": _NULL_MARK,
        "ignoreLeadingWhiteSpace": "false",
        "ignoreTrailingWhiteSpace": "false",
        "mode": "PERMISSIVE",
        "unescapedQuoteHandling": "STOP_AT_DELIMITER",
    }


def csv_field(parsed: Column, count: Column, i: int) -> Column:
    """Field ``i`` of a `csv_struct`: null past the record's end, "" when empty. ``count`` (`field_count`, built
    once for all fields) is computed only for null fields (the rare case), never for a record whose fields are
    all there."""
    return F.coalesce(parsed[f"c{i}"], F.when(count > i, F.lit("")))


#: Java regex metacharacters: a one-character delimiter among them is escaped with a backslash, which keeps
#: `String.split` on its no-regex fast path (as a plain one-character delimiter does).
_REGEX_META = ".$|()[]{}^?*+\\"


#: A record starting with it is never plain (`is_plain`).
_NUL = "\u0000"


def is_plain(value: Column) -> Column:
    """Whether `from_csv` would read the record as its text split on the delimiter: no quote anywhere, and no
    NUL first (the CSV reader's "no comment character"). Line breaks are ordinary characters to it."""
    return ~value.contains('"') & ~value.startswith(_NUL)


#: Up to this many fields, a record is told plain by its split fields' first characters (`starts_unquoted`); wider
#: ones by looking for a quote anywhere in it (`is_plain`).
FIELD_START_CHECKS = 16


def starts_unquoted(value: Column, parts: Column, width: int) -> Column:
    """`is_plain` for a record of at most ``width`` fields, from its text split on the delimiter (``parts``): no field
    starts with a quote (Commons-CSV and `from_csv` read a quote anywhere else as an ordinary character), and no NUL
    first. The first ``width`` fields are enough: a quote opening a later split field comes after one opening an
    earlier field, or the record is wider than ``width`` and that field is past what is read. Looking at a few
    first characters costs less than scanning the whole record for a quote (`contains` was 6 % of the executor's
    samples in `bench_run`)."""
    opens = functools.reduce(operator.or_, (F.get(parts, i).startswith('"') for i in range(max(width, 1))))
    return ~F.coalesce(opens, F.lit(False)) & ~value.startswith(_NUL)


def split_pattern(delimiter: str) -> str:
    """The Java regex `split` needs for a literal delimiter, in the form its fast path recognises."""
    if len(delimiter) == 1:
        return "\\" + delimiter if delimiter in _REGEX_META else delimiter
    return _quoted(delimiter)


class CsvFields:
    """Parse each record once, in hidden columns of their own projection, then read its fields.

    A plain record (`starts_unquoted` or `is_plain`: nearly all of them) is split on the delimiter, about twice as
    cheap per record as `from_csv`, which runs a full CSV reader. The others go through `from_csv`, whose empty-field
    nulls are turned back into "" with the record's field count. Every record is split (its fields' first characters
    say whether it is plain); only the others are handed to `from_csv` (null otherwise, which it passes through at no
    cost).
    """

    def __init__(self, value: Column, delimiter: str, width: int, hidden: str) -> None:
        self.split_name, self.struct_name, self.count_name = f"{hidden}_split", hidden, f"{hidden}_count"
        self.plain_name = f"{hidden}_plain"
        name = reference_text(value)
        if name is not None:  # one SQL text per hidden column: four round trips, not forty
            self.columns = self._columns_text(name, delimiter, width)
            return
        parts = F.split(value, split_pattern(delimiter), -1)
        plain = starts_unquoted(value, parts, width) if width <= FIELD_START_CHECKS else is_plain(value)
        #: The hidden columns, for one `select("*", *columns)` before the fields are read. Every record is split
        #: (a `CASE` with an array or struct result cost ~90 ns a record, more than splitting the rare quoted one);
        #: the field count of a quoted record is computed once, here, so every field's expression stays small (a
        #: smaller plan is quicker for Spark to optimise and generate code for). Spark computes the split once for
        #: the columns that read it.
        self.columns = [
            parts.alias(self.split_name),
            plain.alias(self.plain_name),
            csv_struct(F.when(~plain, value), delimiter, width).alias(self.struct_name),
            F.when(~plain, field_count(value, delimiter)).alias(self.count_name),
        ]

    def _columns_text(self, name: str, delimiter: str, width: int) -> list[Column]:
        """`columns` as SQL text over the column reference ``name``: the same expressions, operation for operation
        (`starts_unquoted`, `is_plain`, `csv_struct`, `field_count`)."""
        parts = f"split({name}, {sql_string(split_pattern(delimiter))}, -1)"
        not_nul_first = f"NOT startswith({name}, {sql_string(_NUL)})"
        if width <= FIELD_START_CHECKS:
            opens = " OR ".join(f"startswith(get({parts}, {i}), '\"')" for i in range(max(width, 1)))
            plain = f"(NOT coalesce({opens}, false) AND {not_nul_first})"
        else:
            plain = f"(NOT contains({name}, '\"') AND {not_nul_first})"
        schema = ", ".join(f"c{i} STRING" for i in range(max(width, 1)))
        options = ", ".join(f"'{key}', {sql_string(value)}" for key, value in _csv_options(delimiter).items())
        return [
            F.expr(f"{parts} AS {quote(self.split_name)}"),
            F.expr(f"{plain} AS {quote(self.plain_name)}"),
            F.expr(f"from_csv(CASE WHEN NOT {plain} THEN {name} END, '{schema}', map({options})) "
                   f"AS {quote(self.struct_name)}"),
            F.expr(f"CASE WHEN NOT {plain} THEN {_field_count_text(name, delimiter)} END AS {quote(self.count_name)}"),
        ]

    def field(self, i: int) -> Column:
        """Field ``i``: null past the record's end, "" when empty."""
        split = column(quote(self.split_name))
        quoted = csv_field(column(quote(self.struct_name)), column(quote(self.count_name)), i)
        return F.when(column(quote(self.plain_name)), F.get(split, i)).otherwise(quoted)

    def present_field(self, i: int, record: Column) -> Column:
        """`field` where ``record`` (the parsed column) is neither null nor empty, else null. Written as one SQL text
        when ``record`` is a column reference (`reference_text`): one round trip instead of a dozen, for each field
        of every split (the same expression as `field`'s)."""
        name = reference_text(record)
        if name is None:
            return F.when(record.isNotNull() & (record != ""), self.field(i))
        split, plain = quote(self.split_name), quote(self.plain_name)
        struct, count = quote(self.struct_name), quote(self.count_name)
        return F.expr(f"CASE WHEN {name} IS NOT NULL AND {name} != '' THEN CASE WHEN {plain} THEN get({split}, {i}) "
                      f"ELSE coalesce({struct}.c{i}, CASE WHEN {count} > {i} THEN '' END) END END")

    def wider_than(self, width: int, message: str) -> Column:
        """A condition that is false for every record of at most ``width`` fields and stops the pass with ``message``
        (Spark's `raise_error`) at one that has more: the guessed width checked inside the pass that computes the
        fields, for the cost of comparing a number per record (the split, or the quoted record's count, is already
        there). ``message`` must not hold a quote."""
        split, plain, count = quote(self.split_name), quote(self.plain_name), quote(self.count_name)
        return F.expr(f"CASE WHEN {plain} THEN size({split}) ELSE {count} END > {int(width)} "
                      f"AND raise_error('{message}') IS NULL")
