"""Per-value decoders of the formats Spark cannot read from a column, each on a well-kept Python library:
openpyxl (Excel XLSX), fastavro (Avro containers and messages), protobuf (messages with a descriptor set) and
hl7 (HL7 v2). Each turns one value into the flat records Wrangler's directive makes of it (see `decoded.py`),
following the directive's Java `execute()`; messages of `DecodeError` are Wrangler's own where it has one.

Decoders are pickled into the Spark plan: they hold only plain data (schema text, descriptor bytes) and build
their library objects lazily on the worker, once per process.
"""

from __future__ import annotations

import datetime
import decimal
import io
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from directives.spark.compile.decoded import DecodeError, Record


def _as_bytes(value: Any, message: str) -> bytes:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise DecodeError(message)


def java_double(value: float) -> str:
    """Java's `String.valueOf(double)`: '1.0', '0.001', '1.0E7', '1.2345E-4', 'NaN', 'Infinity'."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1, value) < 0 else "0.0"
    if 1e-3 <= abs(value) < 1e7:
        return repr(value)  # Python's shortest round-trip digits, positional in this range, as Java's
    sign, digits, exponent = decimal.Decimal(repr(value)).as_tuple()
    text = "".join(map(str, digits)).rstrip("0") or "0"
    power = len(digits) + int(exponent) - 1
    return f"{'-' if sign else ''}{text[0]}.{text[1:] or '0'}E{power}"


# -- parse-as-excel ----------------------------------------------------------------------------------------------------
_DATE_TOKENS = re.compile(r"yyyy|yy|mmmm|mmm|mm|m|dddd|ddd|dd|d|hh|h|ss|s|am/pm|a/p|\"[^\"]*\"|\\.|.", re.IGNORECASE)


def excel_date_text(value: datetime.datetime | datetime.date | datetime.time, number_format: str) -> str:
    """A date cell as Excel's format shows it (what POI's DataFormatter prints); builtin 14 is 'm/d/yy'."""
    fmt = number_format.split(";")[0]
    if fmt.lower() in ("general", "mm-dd-yy"):
        fmt = "m/d/yy"
    if isinstance(value, datetime.time):
        value = datetime.datetime.combine(datetime.date(1899, 12, 31), value)
    elif not isinstance(value, datetime.datetime):
        value = datetime.datetime.combine(value, datetime.time())
    twelve = bool(re.search(r"am/pm|a/p", fmt, re.IGNORECASE))
    tokens = _DATE_TOKENS.findall(re.sub(r"\[[^\]]*\]", "", fmt))
    out: list[str] = []
    for i, token in enumerate(tokens):
        low = token.lower()
        previous = next((t.lower() for t in reversed(tokens[:i]) if t.strip() and t.lower()[0] in "hdmys"), "")
        following = next((t.lower() for t in tokens[i + 1:] if t.strip() and t.lower()[0] in "hdmys"), "")
        minute = low in ("m", "mm") and (previous.startswith("h") or following.startswith("s"))
        hour = value.hour % 12 or 12 if twelve else value.hour
        replacements = {
            "yyyy": f"{value.year:04d}", "yy": f"{value.year % 100:02d}", "mmmm": value.strftime("%B"),
            "mmm": value.strftime("%b"), "mm": f"{value.minute:02d}" if minute else f"{value.month:02d}",
            "m": str(value.minute) if minute else str(value.month), "dddd": value.strftime("%A"),
            "ddd": value.strftime("%a"), "dd": f"{value.day:02d}", "d": str(value.day), "hh": f"{hour:02d}",
            "h": str(hour), "ss": f"{value.second:02d}", "s": str(value.second),
            "am/pm": "AM" if value.hour < 12 else "PM", "a/p": "A" if value.hour < 12 else "P",
        }
        if low in replacements:
            out.append(replacements[low])
        elif token.startswith('"'):
            out.append(token[1:-1])
        elif token.startswith("\\"):
            out.append(token[1:])
        else:
            out.append(token)
    return "".join(out)


def excel_column_name(index: int) -> str:
    """0 → A, 25 → Z, 26 → AA (Wrangler's `columnName`)."""
    name = ""
    number = index
    while number >= 0:
        name = chr(number % 26 + 65) + name
        number = number // 26 - 1
    return name


def _cell_text(cell: Any) -> str:
    value, kind = cell.value, cell.data_type
    if kind == "s" or kind == "inlineStr" or (isinstance(value, str) and kind not in ("f", "e")):
        return str(value)
    if kind == "b" or isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return excel_date_text(value, cell.number_format)
    if kind == "n" and isinstance(value, (int, float)):
        return java_double(float(value))
    return ""  # formulas, errors: Wrangler's switch leaves them empty


@dataclass(frozen=True)
class ExcelDecoder:
    """`parse-as-excel`: every non-empty row of one sheet, with `fwd`/`bkd` row numbers (ParseExcel.execute)."""

    column: str
    sheet: str = "0"
    header: bool = False
    keep: tuple[str, ...] = ()

    def __call__(self, value: Any) -> list[Record]:
        import openpyxl

        data = _as_bytes(value, f"Column '{self.column}' should be of type 'byte array' or 'ByteBuffer'.")
        try:
            book = openpyxl.load_workbook(io.BytesIO(data), read_only=False, data_only=False)
        except Exception as error:
            raise DecodeError(f"Failed to read the Excel workbook: {error}") from None
        if re.fullmatch(r"[+-]?[0-9]+", self.sheet):  # TypeInference.isInteger: Java's ASCII \d, an optional sign
            index, last = int(self.sheet), len(book.worksheets) - 1
            if not 0 <= index <= last:  # XSSFWorkbook.getSheetAt's IllegalArgumentException
                raise DecodeError(f"Sheet index ({index}) is out of range "
                                  f"{f'(0..{last})' if last >= 0 else '(no sheets)'}")
            sheet = book.worksheets[index]
        else:
            sheet = book[self.sheet] if self.sheet in book.sheetnames else None
        if sheet is None:
            raise DecodeError(f"Failed to extract sheet '{self.sheet}' from the excel. Sheet '{self.sheet}' does "
                              "not exist.")
        names: dict[int, str] = {}
        records: list[Record] = []
        rows = 0
        for row in sheet.iter_rows():
            cells = [cell for cell in row if cell.value is not None]
            if not any(str(cell.value).strip() for cell in cells):
                continue  # Wrangler skips rows without a non-blank cell
            record: Record = {"fwd": rows}
            taken = {"fwd"}
            for cell in cells:
                position = cell.column - 1
                name = excel_column_name(position)
                if self.header and rows > 0:
                    name = names.get(position, name)
                text = _cell_text(cell)
                if name.lower() not in taken:  # Row.add appends a second column of the name; find() sees the first
                    record[name] = text
                    taken.add(name.lower())
                if rows == 0 and self.header:
                    names[position] = text
            rows += 1
            if self.header and rows == 1:
                continue
            records.append(record)
        for position, record in enumerate(records):
            record["bkd"] = len(records) - position - 1
        return records


# -- Avro --------------------------------------------------------------------------------------------------------------
def _is_record_schema(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "record"


def _record_branch(schema: Any, value: Any) -> bool:
    """Whether a dict value of this field is a nested record (flattened) rather than a map (kept as JSON)."""
    if _is_record_schema(schema):
        return True
    if isinstance(schema, list):
        records = [s for s in schema if _is_record_schema(s)]
        maps = [s for s in schema if isinstance(s, dict) and s.get("type") == "map"]
        return bool(records) and not maps and isinstance(value, dict)
    return False


def _record_fields(schema: Any) -> list[dict[str, Any]]:
    if isinstance(schema, list):
        schema = next(s for s in schema if _is_record_schema(s))
    return list(schema["fields"])


def flatten_avro(record: dict[str, Any], fields: list[dict[str, Any]], out: Record, prefix: str | None) -> None:
    """ParseAvroFile.add: nested records become `<parent>_<field>`, maps and arrays JSON text, the rest as is."""
    for spec in fields:
        name = spec["name"] if prefix is None else f"{prefix}_{spec['name']}"
        value = record.get(spec["name"])
        if isinstance(value, dict) and _record_branch(spec["type"], value):
            flatten_avro(value, _record_fields(spec["type"]), out, name)
        elif isinstance(value, (dict, list)):  # a name made twice (`a` + `b`, and `a_b`): Row.find sees the first
            out.setdefault(name, json.dumps(value, separators=(",", ":"), default=str))
        else:
            out.setdefault(name, value)


@dataclass(frozen=True)
class AvroFileDecoder:
    """`parse-as-avro-file`: one record per row of an Avro object container file, with only its fields."""

    column: str

    def __call__(self, value: Any) -> list[Record]:
        import fastavro

        data = _as_bytes(value, f"Column '{self.column}' is of invalid type. It should be of type 'byte array'.")
        try:
            reader = fastavro.reader(io.BytesIO(data))
            fields = list(reader.writer_schema["fields"])  # type: ignore[index]
            records: list[Record] = []
            for item in reader:
                out: Record = {}
                flatten_avro(item, fields, out, None)  # type: ignore[arg-type]
                records.append(out)
        except Exception as error:
            raise DecodeError(f"Failed to parse Avro data file. {error}") from None
        return records


_PARSED_SCHEMAS: dict[str, Any] = {}


@dataclass(frozen=True)
class AvroDecoder:
    """`parse-as-avro`: back-to-back records in Avro's binary or JSON encoding, decoded with the named schema.

    Top-level fields become columns; maps and arrays JSON text; a nested record stays whole (JSON text), as in
    Wrangler's Binary/JsonAvroDecoder.
    """

    column: str
    schema: str
    encoding: str
    version: str = "latest"

    def _parsed(self) -> Any:
        import fastavro

        if self.schema not in _PARSED_SCHEMAS:
            _PARSED_SCHEMAS[self.schema] = fastavro.parse_schema(json.loads(self.schema))
        return _PARSED_SCHEMAS[self.schema]

    def __call__(self, value: Any) -> list[Record]:
        import fastavro

        if isinstance(value, str):
            data = value.encode("utf-8")
        else:
            data = _as_bytes(value, f"Column {self.column} should be of type 'String' or 'byte array'.")
        schema = self._parsed()
        names = [spec["name"] for spec in schema["fields"]]
        records: list[Record] = []
        decoded: list[Any] = []
        try:
            if self.encoding == "json":
                decoder = json.JSONDecoder()
                text, position = data.decode("utf-8"), 0
                items = []
                while position < len(text.rstrip()):
                    while text[position].isspace():
                        position += 1
                    item, position = decoder.raw_decode(text, position)
                    items.append(item)
                decoded = list(fastavro.json_reader(io.StringIO("\n".join(json.dumps(i) for i in items)), schema))
            else:
                stream = io.BytesIO(data)
                while stream.tell() < len(data):
                    decoded.append(fastavro.schemaless_reader(stream, schema, None))
        except EOFError:  # Wrangler stops at the cut and silently keeps what came before (docs/differences)
            raise DecodeError(f"Issue decoding Avro record. Check schema version '{self.version}'. The value ends "
                              f"inside a record, after {len(decoded)} complete record(s).") from None
        except Exception as error:
            raise DecodeError(f"Issue decoding Avro record. Check schema version '{self.version}'. {error}") from None
        for item in decoded:
            out: Record = {}
            for name in names:
                field_value = item.get(name)  # type: ignore[union-attr]
                is_container = isinstance(field_value, (dict, list))
                out[name] = json.dumps(field_value, separators=(",", ":"), default=str) if is_container \
                    else field_value
            records.append(out)
        return records


# -- parse-as-protobuf -------------------------------------------------------------------------------------------------
_MESSAGE_CLASSES: dict[tuple[bytes, str], Any] = {}


@dataclass(frozen=True)
class ProtobufDecoder:
    """`parse-as-protobuf`: one message per value, decoded with the named message of a descriptor set.

    Set fields only (protobuf's ListFields, Java's getAllFields); nested messages are flattened into
    `<parent>_<field>`, enums give their value's name, repeated scalars a JSON list.
    """

    column: str
    descriptor_set: bytes
    record: str
    version: str = "latest"

    def message_class(self) -> Any:
        key = (self.descriptor_set, self.record)
        if key not in _MESSAGE_CLASSES:
            from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

            files = descriptor_pb2.FileDescriptorSet.FromString(self.descriptor_set)
            if not files.file:
                raise DecodeError("The descriptor set holds no file.")
            pool = descriptor_pool.DescriptorPool()
            for proto in files.file:
                pool.Add(proto)
            first = files.file[0]
            full_name = f"{first.package}.{self.record}" if first.package else self.record
            try:
                descriptor = pool.FindMessageTypeByName(full_name)
            except KeyError:
                raise DecodeError(f"Message '{self.record}' is not in '{first.name}'.") from None
            _MESSAGE_CLASSES[key] = message_factory.GetMessageClass(descriptor)
        return _MESSAGE_CLASSES[key]

    def __call__(self, value: Any) -> list[Record]:
        data = _as_bytes(value, f"Column {self.column} should be of type 'byte array'")
        message = self.message_class()()
        try:
            message.ParseFromString(data)
        except Exception as error:
            raise DecodeError(f"Issue decoding Protobuf record. Check schema version '{self.version}'. "
                              f"{error}") from None
        out: Record = {}
        _flatten_message(message, out, None)
        return [out]


def _flatten_message(message: Any, out: Record, root: str | None) -> None:
    from google.protobuf.descriptor import FieldDescriptor

    for descriptor, value in message.ListFields():
        name = descriptor.name if root is None else f"{root}_{descriptor.name}"
        repeated = descriptor.is_repeated if hasattr(descriptor, "is_repeated") \
            else descriptor.label == FieldDescriptor.LABEL_REPEATED  # protobuf before 5.x
        if descriptor.type == FieldDescriptor.TYPE_MESSAGE:
            for item in (value if repeated else [value]):
                _flatten_message(item, out, name)
        elif descriptor.type == FieldDescriptor.TYPE_ENUM:
            names = descriptor.enum_type.values_by_number
            out.setdefault(name, [names[v].name for v in value] if repeated else names[value].name)
        else:
            out.setdefault(name, list(value) if repeated else value)


# -- parse-as-hl7 ------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Hl7Decoder:
    """`parse-as-hl7`: the message's populated fields as `<col>_hl7_<segment>_<field>[_<component>]` columns.

    As Wrangler's visitor builds it: each segment an object keyed by field number; a field with components an
    object keyed by component number (later repetitions replace earlier ones); a segment seen twice becomes a
    list of both, a third occurrence is not kept; then objects are flattened while deeper than ``depth`` levels
    are not. Sub-components stay as written (`a&b`) inside their component.
    """

    column: str
    depth: int | None = None
    names: tuple[str, ...] = field(default=())

    def __call__(self, value: Any) -> list[Record]:
        import hl7

        if value is None:
            raise DecodeError(f"Column '{self.column}' has null value. It should be a non-null 'String'.")
        if not isinstance(value, str):
            raise DecodeError(f"Column '{self.column}' has invalid type '{type(value).__name__}'. It should be of "
                              "type 'String'.")
        text = value.replace("\r\n", "\r").replace("\n", "\r").strip("\r")
        try:
            message = hl7.parse(text)
        except Exception as error:
            raise DecodeError(f"Failed to parse the HL7 message: {error}") from None
        segments: dict[str, Any] = {}
        for segment in message:
            name = str(segment[0])
            fields = _hl7_segment(segment, name)
            if name not in segments:
                segments[name] = fields
            elif not isinstance(segments[name], list):
                segments[name] = [segments[name], fields]
        out: Record = {}
        _flatten_json(segments, f"{self.column}_hl7", 1, self.depth, out)
        return [out]


def _hl7_segment(segment: Any, name: str) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for number in range(1, len(segment)):
        raw = segment[number]
        if name == "MSH" and number <= 2:  # the separators themselves, never split
            text = str(raw)
            if text:
                fields[str(number)] = text
            continue
        repetitions = list(raw) if _is_repeated(raw) else [raw]
        for repetition in repetitions:
            components = _components(repetition)
            if components is None:
                text = str(repetition)
                if text:
                    fields[str(number)] = text
            else:
                populated = {str(i): text for i, text in enumerate(components, start=1) if text}
                if populated:
                    fields[str(number)] = populated
    return fields


def _is_repeated(value: Any) -> bool:
    import hl7

    return isinstance(value, hl7.Field) and len(value) > 1 and isinstance(value[0], hl7.Repetition)


def _components(value: Any) -> list[str] | None:
    """The component texts of a field value, or None for a value without components."""
    import hl7

    if isinstance(value, hl7.Field) and len(value) == 1 and isinstance(value[0], hl7.Repetition):
        value = value[0]
    if isinstance(value, (hl7.Repetition, hl7.Field)) and len(value) > 1:
        return [str(component) for component in value]
    return None


def _flatten_json(node: dict[str, Any], name: str, level: int, depth: int | None, out: Record) -> None:
    """JsParser.jsonFlatten: objects are walked while ``level`` ≤ ``depth``; deeper ones are kept whole."""
    if depth is not None and level > depth:
        out[name] = json.dumps(node, separators=(",", ":"))
        return
    for key, value in node.items():
        child = f"{name}_{key}"
        if isinstance(value, dict):
            _flatten_json(value, child, level + 1, depth, out)
        elif isinstance(value, list):
            out[child] = json.dumps(value, separators=(",", ":"))
        else:
            out[child] = value
