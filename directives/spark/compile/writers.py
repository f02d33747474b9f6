"""Spark compilers of the writer family: a row serialised into one column as CSV or JSON.

`write-as-csv` reproduces Commons CSV's `CSVFormat.DEFAULT` minimal quoting with Spark string
functions (Spark's own `to_csv` quotes differently); `write-as-json-map` uses `to_json`, which, like
Gson, leaves out null values. `write-as-json-object` stores a *struct*, as Wrangler stores a
`JsonObject` (not text): a later `write-as-json-map` then nests it as an object instead of quoting it.
`validate-standard` is compiled in `standards`.
"""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from directives.catalog.writers import WriteAsCsv, WriteAsJsonMap, WriteAsJsonObject
from directives.spark.compile import standards as _standards  # noqa: F401  (registers validate-standard)
from directives.spark.compilers import compiles
from directives.spark.runtime.frame import Frame, RunContext, col

_TEXTDATA_START = "[\\x00-\\x1F\\x22\\x2C\\x{7F}-\\x{10FFFF}]"


def csv_field(value: Column, first: bool) -> Column:
    """One value as Commons CSV prints it (MINIMAL quoting): null as nothing, quoted only when needed.

    Quoted when the value is empty and first in the record, when it starts with a character that
    RFC 4180 does not allow unquoted at the start of a record (first field only), starts with a
    character up to '#', contains a delimiter, quote, CR or LF, or ends with a character up to ' '.
    """
    text = value.cast("string")
    head = text.substr(1, 1)
    needs = (
        (F.length(text) > 0) & (head <= F.lit("#"))
        | text.rlike("[,\"\r\n]")
        | (F.length(text) > 0) & (F.substring(text, -1, 1) <= F.lit(" "))
    )
    if first:
        needs = needs | (F.length(text) == 0) | head.rlike(f"^{_TEXTDATA_START}")
    quoted = F.concat(F.lit('"'), F.replace(text, F.lit('"'), F.lit('""')), F.lit('"'))
    return F.when(text.isNull(), F.lit("")).when(needs, quoted).otherwise(text)


@compiles(WriteAsCsv)
def write_as_csv(d: WriteAsCsv, frame: Frame, ctx: RunContext) -> Frame:
    fields = [csv_field(col(name), position == 0) for position, name in enumerate(frame.columns)]
    record = F.concat_ws(",", *fields) if fields else F.lit("")
    return frame.step(d).add(d.column, record).build()


def _json_of(pairs: list[tuple[str, Column]]) -> Column:
    if not pairs:
        return F.lit("{}")
    return F.to_json(F.struct(*(value.alias(key) for key, value in pairs)))


@compiles(WriteAsJsonMap)
def write_as_json_map(d: WriteAsJsonMap, frame: Frame, ctx: RunContext) -> Frame:
    record = _json_of([(name, col(name)) for name in frame.columns])
    return frame.step(d).set(d.column, record).build()


#: Types Wrangler writes into the JSON object (numbers and strings); other values are left out.
_JSON_OBJECT_TYPES = ("string", "int", "bigint", "smallint", "tinyint", "double", "float")


@compiles(WriteAsJsonObject)
def write_as_json_object(d: WriteAsJsonObject, frame: Frame, ctx: RunContext) -> Frame:
    pairs: dict[str, Column] = {}  # a key listed twice keeps its first place and its last value, as JsonObject.add
    for wanted in d.col:
        name = frame.find(wanted)
        if name is None:
            continue
        spark_type = frame.type_of(name)
        if spark_type in _JSON_OBJECT_TYPES or spark_type.startswith("decimal"):
            pairs[wanted] = col(name)
    record = F.struct(*(value.alias(key) for key, value in pairs.items()))  # no pairs: the empty struct, `{}` in JSON
    return frame.step(d).set(d.column, record).build()
