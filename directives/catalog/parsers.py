"""Directives that parse a column's text or bytes into new columns or rows: CSV, JSON, fixed width, XML, logs …

Most parsers produce columns whose names only the data can tell (`body_1…n`, JSON keys, CSV
headers), so their labels are *patterns* (`body_<n>`, `body_<key>`, `<header>`) that a later
directive naming one member (`rename :body_1 :id`) resolves, instead of Wrangler's "every output
field came from this parser" guess (spec §3.4). Where the arguments fix the names, the labels are
exact (`parse-as-fixed-length` with three widths adds exactly `body_1`, `body_2`, `body_3`).

We also declare what Wrangler's lineage leaves out: the source column that `parse-xml-to-json`
removes is a DROP (`parse-as-json` removes it only for objects: an inexact MODIFY), and the parsers
whose decoded records *replace* the row (avro, protobuf) drop every column they had.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar

from directives.base import Arg, ArgKind, Directive, OneColumn, RowEffect, whole_number
from directives.catalog.column_ops import SourceToDestination, add_or_modify
from directives.column_state import ColumnState
from directives.csv_records import header_names, split_record
from directives.java_text import java_unescape
from directives.labels import ColumnLabel, add, drop, modify, read

if TYPE_CHECKING:
    from directives.sample import SampleValues

C, T, N, NL, B, ID = ArgKind.COLUMN, ArgKind.TEXT, ArgKind.NUMBER, ArgKind.NUMBER_LIST, ArgKind.BOOL, ArgKind.IDENTIFIER


class _DepthArg(Directive):
    """Shared optional `depth` argument: how many levels of nested objects are flattened (default unlimited)."""

    def validate(self) -> None:
        # zero or less flattens nothing useful; Wrangler takes intValue() of whatever is given, unchecked
        if self.bound("depth") is not None:
            value = self.bound("depth")
            if not isinstance(value, int) or value < 1:
                read = int(value) if math.isfinite(value) else "a number out of range"  # 1e400 has no int
                self.warn("depth", f"Depth must be a positive whole number, not '{value}'. Wrangler accepts it "
                          f"(as {read}) when it compiles the recipe.",
                          "Give how many levels of nested objects to flatten, e.g. 1 or 2.", runnable=False)

    @property
    def depth(self) -> int | None:
        value = self.bound("depth")
        return whole_number(value) if value is not None else None


def _json_or_none(value: object) -> object:
    if not isinstance(value, str):
        return value if isinstance(value, dict | list) else None
    try:
        return json.loads(value)
    except ValueError:
        return None


def _flatten_json(value: dict[str, object], depth: int | None, level: int = 1) -> dict[str, object]:
    """`key` → value, nested objects walked while ``level < depth`` (Wrangler's jsonFlatten); deeper values
    and arrays are kept as JSON text, as a run writes them."""
    flat: dict[str, object] = {}
    for key, child in value.items():
        if isinstance(child, dict) and (depth is None or level < depth):
            for inner, leaf in _flatten_json(child, depth, level + 1).items():
                flat[f"{key}_{inner}"] = leaf
        else:
            flat[key] = json.dumps(child) if isinstance(child, dict | list) else child
    return flat


class _ReplacesRow(OneColumn):
    """Shared shape of the parsers whose decoded records *replace* the input row (avro, avro-file, protobuf): every
    column of the row goes, the records' fields (unknown before the data) come."""

    row_effect = RowEffect.MULTIPLY
    names_its_columns = False

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        column = self.column
        labels: list[ColumnLabel] = [read(column)]
        if columns.exact:
            labels += [drop(name) for name in columns.names()]
        else:
            labels.append(drop("*", pattern=True, exact=False))
        labels.append(add("<field>", (column,), pattern=True))
        return labels


class _RegistryMessage(_ReplacesRow):
    """Shared shape of `parse-as-avro`/`parse-as-protobuf`: messages decoded with a schema registry's schema
    (``schema-id``, optional ``version``); the third argument says how."""

    schema_id: str
    version: float | None


class ParseAsCsv(Directive):
    """Parses CSV text into `<col>_1…n` (or the header's names with header=true); the source column is kept.

    The delimiter is the first character of the text (default ','), Java escapes allowed (`'\\t'`).
    With header=true the first record is a header when all its values are non-empty and unique;
    its names are trimmed, runs of whitespace become '_', and that row is dropped.

    Example: `parse-as-csv :body ',' true`
    """

    name = "parse-as-csv"
    signature = (Arg("col", C), Arg("delimiter", T, optional=True), Arg("header", B, optional=True))
    col: str
    categories = ("parser", "csv")
    appends_duplicates = True

    def validate(self) -> None:
        if self.bound("delimiter") is not None and self.delimiter == "":
            raise self.fail("delimiter", "The CSV delimiter cannot be empty.",
                            "Give one character, e.g. ',' or '\\t' (the default is ',').")
        if self.header:
            self.row_effect = RowEffect.FILTER  # type: ignore[misc]  # the header row is dropped

    @property
    def delimiter(self) -> str:
        """The delimiter character (Java-unescaped first character; ',' when absent)."""
        text = str(self.bound("delimiter", ","))
        return java_unescape(text)[:1] if text.startswith("\\") else text[:1]

    @property
    def header(self) -> bool:
        return bool(self.bound("header", False))

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        column = self.col
        generated = "<header>" if self.header else f"{column}_<n>"
        return [read(column), add(generated, (column,), pattern=True)]

    def sample_labels(
        self, columns: ColumnState, sample: SampleValues
    ) -> tuple[Sequence[ColumnLabel], Mapping[str, list[object]]] | None:
        """With header=true, the header is the first non-empty record: its names are the columns."""
        column = self.col
        values = sample.of(column)
        if not self.header or values is None:
            return None
        records = [split_record(value, self.delimiter) for value in values if isinstance(value, str) and value]
        names = header_names(records[0]) if records else None
        if names is None:
            return None
        produced = {name: [record[i] if i < len(record) else None for record in records[1:]]
                    for i, name in enumerate(names)}
        return [read(column), *(add(name, (column,)) for name in names)], produced

    def describe(self) -> str:
        return f"Parsed column '{self.col}' as CSV with delimiter '{self.bound('delimiter', ',')}'"


class ParseAsJson(_DepthArg):
    """Parses JSON text: an object is flattened into `<col>_<key>[_<key2>…]` and the column removed;
    an array gives one row per element (in `<col>`); a primitive, JSON null or missing value drops the row.

    `depth` (default unlimited) limits how many levels of nested objects are flattened; deeper
    objects stay JSON text. The source is removed for an object and stays for an array, holding one
    element per row: so it is labelled MODIFY, not exact (the data decides whether it survives), and
    the source decides how many rows each row becomes (an INDIRECT influence on every column).

    Example: `parse-as-json :body 1`
    """

    name = "parse-as-json"
    signature = (Arg("column", C), Arg("depth", N, optional=True))
    column: str
    categories = ("parser", "json")
    row_effect = RowEffect.MULTIPLY

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        column = self.column
        return [read(column), add(f"{column}_<key>", (column,), pattern=True), modify(column, exact=False)]

    def sample_labels(
        self, columns: ColumnState, sample: SampleValues
    ) -> tuple[Sequence[ColumnLabel], Mapping[str, list[object]]] | None:
        """The keys of the sample's JSON objects, flattened to `depth` as a run does (`<col>_<key>_<key2>`)."""
        column = self.column
        values = sample.of(column)
        if values is None:
            return None
        parsed = [_json_or_none(value) for value in values]
        objects = [value for value in parsed if isinstance(value, dict)]
        if not objects or any(isinstance(value, list) for value in parsed):
            return None  # arrays make rows of their elements: the column stays, with values unknown here
        flat = [_flatten_json(value, self.depth) for value in objects]
        keys = sorted({key for row in flat for key in row})
        produced = {f"{column}_{key}": [row.get(key) for row in flat] for key in keys}
        return [read(column), *(add(name, (column,)) for name in produced), drop(column)], produced

    def describe(self) -> str:
        return f"Parsed column '{self.column}' as Json"


class JsonPath(SourceToDestination):
    """Extracts the value at a JSON path (`$.a.b[0]`) from JSON text into a column (replaced or appended).

    Rows whose source is null or missing are dropped, as in Wrangler.

    Example: `json-path :body :city '$.address.city'`
    """

    name = "json-path"
    signature = (Arg("source", C), Arg("destination", C), Arg("json-path", T))
    json_path: str
    categories = ("parser", "json")
    row_effect = RowEffect.FILTER

    def validate(self) -> None:
        # JsPath.initialize keeps the path as text; JsonPath compiles it for every row.
        path = str(self.json_path).strip()
        later = " Wrangler accepts it when it compiles the recipe and fails on it for every row."
        if not path or path in ("$.", "."):
            self.warn("json-path", "The JSON path is empty." + later, "Write a path such as '$.address.city'.",
                      runnable=False)
        elif path.count("[") != path.count("]"):
            self.warn("json-path", f"JSON path '{path}' has unbalanced brackets." + later,
                      "Close every '[' of an index or quoted key, e.g. '$.items[0]'.", runnable=False)

    @property
    def path(self) -> str:
        """The path with Jayway's implicit root: `a.b` means `$.a.b`."""
        path = str(self.json_path).strip()
        if path.startswith("$"):
            return path
        return "$" + (path if path.startswith("[") else "." + path)

    def describe(self) -> str:
        return (f"Extracted value from column '{self.source}' represented as Json to destination column "
                f"'{self.destination}' using path '{self.json_path}'")


class ParseAsFixedLength(Directive):
    """Cuts text into fields of fixed widths, `<col>_1…n`; each chunk of sum(widths) characters is its own row.

    `padding` is a regex removed from every field (`' '` strips spaces). A value shorter than the
    widths is an error row; rows without the column are dropped.

    Example: `parse-as-fixed-length :body 2,4,10 ' '`
    """

    name = "parse-as-fixed-length"
    signature = (Arg("column", C), Arg("width", NL), Arg("padding", T, optional=True))
    column: str
    width: tuple[float, ...]
    categories = ("parser",)
    row_effect = RowEffect.MULTIPLY
    appends_duplicates = True

    def validate(self) -> None:
        for number in self._numbers():  # FixedLengthParser.initialize takes intValue() of each, unchecked
            if not isinstance(number, int) or number < 1:
                self.warn("width", f"Width '{number}' is not a positive whole number. Wrangler accepts it when it "
                          "compiles the recipe.", "Give each field's width in characters, e.g. 2,4,10.",
                          runnable=False)
                return

    def _numbers(self) -> tuple[int | float, ...]:
        value = self.width
        return tuple(value) if isinstance(value, tuple) else (value,)

    @property
    def widths(self) -> tuple[int, ...]:
        # a width of more than 4,300 digits reads as infinity (validate has warned): no int, no crash
        return tuple(whole_number(number) or 0 for number in self._numbers())

    @property
    def padding(self) -> str | None:
        padding = self.bound("padding")
        return None if padding is None or padding == "" else str(padding)

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        column = self.column
        return [read(column), *(add(f"{column}_{i}", (column,)) for i in range(1, len(self.widths) + 1))]

    def describe(self) -> str:
        return f"Parsed column '{self.column}' with fixed lengths for columns"


class ParseXmlToJson(_DepthArg):
    """Converts XML text into flattened columns `<col>_<element>[_<child>…]` and removes the source column.

    Example: `parse-xml-to-json :body 1`
    """

    name = "parse-xml-to-json"
    signature = (Arg("column", C), Arg("depth", N, optional=True), Arg("keep-string", B, optional=True))
    column: str
    keep_string: bool | None
    categories = ("xml",)
    row_effect = RowEffect.ERROR

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        column = self.column
        return [read(column), add(f"{column}_<key>", (column,), pattern=True), drop(column)]

    def describe(self) -> str:
        return f"Converted xml in column '{self.column}' to json"


class ParseAsHl7(_DepthArg):
    """Parses an HL7 v2 message into `<col>_hl7_<segment>_<field>[_<component>…]` columns.

    Example: `parse-as-hl7 :body 3`
    """

    name = "parse-as-hl7"
    signature = (Arg("column", C), Arg("depth", N, optional=True))
    column: str
    categories = ("parser", "hl7")

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        column = self.column
        return [read(column), add(f"{column}_hl7_<key>", (column,), pattern=True)]

    def describe(self) -> str:
        return f"Parsed column '{self.column}' as HL7 record"


class ParseAsAvro(_RegistryMessage):
    """Decodes Avro records (schema from the schema registry); the decoded records replace the row.

    Example: `parse-as-avro :body customer binary 2`
    """

    name = "parse-as-avro"
    signature = (Arg("column", C), Arg("schema-id", ID), Arg("encode-type", ID), Arg("version", N, optional=True))
    encode_type: str
    categories = ("parser", "avro")
    ENCODINGS: ClassVar[tuple[str, ...]] = ("json", "binary")

    def validate(self) -> None:
        if str(self.encode_type).lower() not in self.ENCODINGS:
            raise self.fail("encode-type", f"Avro encoding '{self.encode_type}' is not supported.",
                            "Use json or binary.")

    def describe(self) -> str:
        return f"Parsed column '{self.column}' as a Avro record"


class ParseAsAvroFile(_ReplacesRow):
    """Reads an Avro container file's bytes: one row per record, holding only the record's fields.

    Example: `parse-as-avro-file :body`
    """

    name = "parse-as-avro-file"
    categories = ("parser", "avro")

    def describe(self) -> str:
        return f"Parsed column '{self.column}' as a Avro file"


class ParseAsExcel(Directive):
    """Reads an Excel workbook's bytes: one row per non-empty sheet row, with `fwd`/`bkd` row numbers and
    one column per cell (`A`, `B` … or the header's names); the source column is removed.

    Example: `parse-as-excel :body 'Sheet1' true`
    """

    name = "parse-as-excel"
    signature = (Arg("column", C), Arg("sheet", T, optional=True), Arg("first-row-as-header", B, optional=True))
    column: str
    sheet: str | None
    first_row_as_header: bool | None
    categories = ("parser", "excel")
    row_effect = RowEffect.MULTIPLY

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        column = self.column
        return [read(column), drop(column), add("fwd", (column,)), add("bkd", (column,)),
                add("<cell>", (column,), pattern=True)]

    def describe(self) -> str:
        return f"Parsed column '{self.column}' as a Excel"


class ParseAsLog(Directive):
    """Parses web-server access logs (Apache `%h %l %u %t "%r" %>s %b` style or 'common'/'combined') into fields.

    Example: `parse-as-log :line '%h %l %u %t "%r" %>s %b'`
    """

    name = "parse-as-log"
    signature = (Arg("column", C), Arg("format", T))
    column: str
    format: str
    categories = ("parser", "logs")
    row_effect = RowEffect.ERROR

    def validate(self) -> None:
        if not str(self.format).strip():
            raise self.fail("format", "The log format is empty.",
                            "Give an Apache LogFormat such as '%h %l %u %t \"%r\" %>s %b', or 'common'/'combined'.")

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        from directives.logformat import LogFormatError, log_fields

        column = self.column
        try:
            fields = log_fields(str(self.format))
        except LogFormatError:
            return [read(column), add("<field>", (column,), pattern=True)]
        return [read(column), *(add_or_modify(columns, name, (column,)) for name in fields)]

    def describe(self) -> str:
        return f"Parsed column '{self.column}' as webserver log using format '{self.format}'"


class ParseAsProtobuf(_RegistryMessage):
    """Decodes protobuf messages (descriptor from the schema registry); the decoded records replace the row.

    Example: `parse-as-protobuf :body addressbook 'Person' 1`
    """

    name = "parse-as-protobuf"
    signature = (Arg("column", C), Arg("schema-id", ID), Arg("record-name", T), Arg("version", N, optional=True))
    record_name: str
    categories = ("parser", "protobuf")

    def describe(self) -> str:
        return f"Parsed column '{self.column}' as a protobuf message"
