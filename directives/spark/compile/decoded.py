"""Directives whose rows come out of a file format Spark cannot read from a column: decoded by a Python library.

Excel workbooks, Avro containers and messages, protobuf messages and HL7 v2 messages are decoded per value by a
Python UDF (the library does the format's work; see `formats.py`). The UDF turns one value into a list of flat
records (column name → JSON value), or an error, and hands them to Spark as JSON text; everything after that is
Spark's: one aggregate pass learns the columns the records hold (names in the order the data gives them, types
from `schema_of_variant_agg`), rows multiply through `Frame.repeat`, and each column is read out of the
records as a typed value. A value the library cannot decode sends its row to the error output with the
library's message.

The decoder is a plain function of the value; whatever it needs from files the recipe names (a schema, a
descriptor) is read on the driver and carried in the function's closure, so workers need no files.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import json
from collections.abc import Callable, Sequence
from typing import Any

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from directives.base import Directive
from directives.spark.compile.variant_schema import VariantType, parse_variant_schema, variant_path, variant_value
from directives.spark.runtime.frame import COPY, Frame, RunContext, col

_DECODED = "__wr_decoded"
DECODED_TYPE = T.StructType([
    T.StructField("records", T.StringType()),
    T.StructField("keys", T.ArrayType(T.StringType())),
    T.StructField("error", T.StringType()),
])

Record = dict[str, Any]
Decoder = Callable[[Any], list[Record]]


class DecodeError(ValueError):
    """The value is not what the format says it should be; the message goes to the row's error record."""


def json_value(value: Any) -> Any:
    """A decoded value as JSON can hold it: bytes as base64 text, dates and decimals as text."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, (datetime.date, datetime.time, decimal.Decimal)):
        return str(value)
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    return value


def run_decoder(decoder: Decoder, value: Any) -> tuple[str | None, list[str] | None, str | None]:
    """What the UDF returns for one value (null included: each format says what a null is): the records as JSON,
    their keys in first-seen order, or an error."""
    try:
        records = decoder(bytes(value) if isinstance(value, (bytearray, memoryview)) else value)
    except DecodeError as error:
        return None, None, str(error)
    except Exception as error:  # a library's own exception: its message is what Wrangler reports too
        return None, None, f"{type(error).__name__}: {error}"
    records = [_first_of_each_name(record) for record in records]
    keys = _merge_orders([list(record) for record in {tuple(r): r for r in records}.values()])
    text = json.dumps([{k: json_value(v) for k, v in record.items()} for record in records], allow_nan=False,
                      default=str)
    return text, keys, None


def _first_of_each_name(record: Record) -> Record:
    """A name seen again in any case is dropped: Wrangler's `Row.add` appends a second column of the name, which
    `Row.find` (case-insensitive) never reaches, and Spark cannot hold both."""
    seen: set[str] = set()
    kept: Record = {}
    for key, value in record.items():
        if key.lower() not in seen:
            seen.add(key.lower())
            kept[key] = value
    return kept


def decoding_udf(decoder: Decoder) -> Callable[[Column], Column]:
    return F.udf(lambda value: run_decoder(decoder, value), DECODED_TYPE)


def _merge_orders(orders: Sequence[Sequence[str]]) -> list[str]:
    """One column order from the key orders of every row: the longest order first, then each key another order
    adds goes right after the key it follows there (stable: the same data gives the same columns)."""
    merged: list[str] = []
    for order in sorted(orders, key=lambda keys: (-len(keys), list(keys))):
        previous: str | None = None
        for key in order:
            if key not in merged:
                merged.insert(merged.index(previous) + 1 if previous is not None else 0, key)
            previous = key
    return merged


def decode_rows(d: Directive, frame: Frame, ctx: RunContext, value: Column, decoder: Decoder, *,
                lead: Sequence[str] = (), keep: Sequence[str] = (), multiply: bool = True,
                fallback: bool = False) -> Frame:
    """Replace each active row by the records its ``value`` decodes to.

    Output columns: ``lead`` (names the decoder always sets first), the records' other keys, then the input
    columns in ``keep`` (a record's own key wins over a kept column of the same name, as Wrangler's rows do).
    With ``fallback`` a record that lacks such a key takes the kept column's value as text instead (ParseExcel
    copies every input column the new row holds no value for).
    A row whose value decodes to no record is dropped, as Wrangler's directive returns no row for it.
    With ``multiply`` false each value decodes to one record whose columns are added after the kept ones (the
    directive adds columns to the row in place).
    """
    ctx.udf_directives.append(d.name)
    decoded = F.col(_DECODED)
    frame = frame.with_df(frame.df.select("*", decoding_udf(decoder)(value).alias(_DECODED)))
    records = F.try_parse_json(decoded["records"])
    ok = frame.active & decoded["error"].isNull() & decoded["records"].isNotNull()
    found = frame.df.filter(ok).agg(F.collect_set(decoded["keys"]).alias("orders"),
                                    F.schema_of_variant_agg(records).alias("shape")).collect()[0]
    order = _merge_orders(found["orders"] or [])
    shape = parse_variant_schema(found["shape"]) if found["shape"] and found["shape"] != "VOID" else None
    fields = dict(shape.element.fields) if shape is not None and shape.element is not None else {}
    elements = F.variant_get(records, "$", "array<variant>")
    count = F.size(elements)
    if multiply:
        frame = frame.repeat(F.when(ok, count))
        ctx.multiplying.append(d.index)
        element = F.get(elements, F.col(COPY))
    else:
        element = F.get(elements, F.lit(0))
    spellings: dict[str, list[str]] = {name.lower(): [name] for name in lead}
    for key in order:  # records may spell a name differently (two workbooks' headers): one column, the first spelling
        if key not in lead:
            spellings.setdefault(key.lower(), []).append(key)
    new = [names[0] for names in spellings.values()]
    kept = [name for name in keep if name.lower() not in spellings]
    step = frame.step(d).reorder([*new, *kept] if multiply else [*kept, *new])
    values = {names[0]: _read(element, names, fields) for names in spellings.values()}
    if fallback:
        inputs = {name.lower(): name for name in keep}
        for key in new:
            if key not in lead and key.lower() in inputs:
                values[key] = F.coalesce(values[key], col(inputs[key.lower()]).cast("string"))
    step.place(values)
    step.fail_when(decoded["error"].isNotNull(), F.concat(F.lit(f"{d.name}: "), decoded["error"]))
    if multiply:
        step.filter_when(decoded["error"].isNull() & (decoded["records"].isNull() | (count == 0)))
    return step.build()


def _read(element: Column, names: Sequence[str], fields: dict[str, VariantType]) -> Column:
    """The record's value under whichever spelling of the name it has (each record holds at most one)."""
    kinds = [fields.get(name, VariantType("VOID")) for name in names]
    reads = [variant_value(element, variant_path((name,)), kind) for name, kind in zip(names, kinds, strict=True)]
    if len(reads) == 1:
        return reads[0]
    return F.coalesce(*reads) if len(set(kinds)) == 1 else F.coalesce(*(read.cast("string") for read in reads))


def fail_all(d: Directive, frame: Frame, message: str) -> Frame:
    """Every active row to the error output: the column's type can never hold what the directive decodes."""
    return frame.step(d).fail_when(F.lit(True), message).build()
