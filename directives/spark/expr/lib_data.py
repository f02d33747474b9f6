"""`geo:` (GeoFences), `dq:` (DataQuality), the rest of `json:` (JsonFunctions) and `ddl:` (DDL) on Spark.

Each function follows the Java method it names; the validators of `dq:` follow commons-validator's rules
(credit-card prefixes and lengths with the Luhn check, ISBN check digits, IPv4/IPv6 address forms, e-mail,
URL and domain syntax).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from directives.spark.expr import python_udfs
from directives.spark.expr.functions import MANY, Impl, _literal_text, _number_arg, _s, fn
from directives.spark.expr.values import Compiling, KindError, Value, kind_of

if TYPE_CHECKING:
    from grammar.expression import Expr


def _bool(column: Column) -> Value:
    return Value(F.coalesce(column, F.lit(False)), "bool")


# -- geo: GeoFences.InFence ----------------------------------------------------------------------------------------
_FENCES = T.StructType([T.StructField("type", T.StringType()), T.StructField("features", T.ArrayType(T.StructType([
    T.StructField("geometry", T.StructType([T.StructField("type", T.StringType()),
                                            T.StructField("coordinates", T.ArrayType(T.ArrayType(
                                                T.ArrayType(T.DoubleType()))))]))])))])


def _inside(ring: Column, lat: Column, lon: Column) -> Column:
    """GeoFences.isPointInside: the winding number of the polygon's perimeter around (lon, lat) is not 0."""
    def step(wn: Column, i: Column) -> Column:
        a, b = ring[i], ring[i + 1]
        left = (b[0] - a[0]) * (lat - a[1]) - (lon - a[0]) * (b[1] - a[1])
        up = (a[1] <= lat) & (b[1] > lat) & (left > 0)
        down = (a[1] > lat) & (b[1] <= lat) & (left < 0)
        return wn + F.when(up, 1).when(down, -1).otherwise(0)
    count = F.aggregate(F.sequence(F.lit(0), F.greatest(F.size(ring) - 2, F.lit(0))), F.lit(0), step)
    return F.when(F.size(ring) >= 2, count != 0).otherwise(F.lit(False))


@fn("geo", "InFence inFence", 3, doc="GeoFences.InFence(latitude, longitude, geoJson): the point is inside one of "
    "the FeatureCollection's polygons (winding number); a null argument is false; invalid JSON or an unclosed "
    "ring fails the row")
def _in_fence(c: Compiling, node: Expr, args: list[Value]) -> Value:
    lat, lon = _number_arg(c, args[0], "double"), _number_arg(c, args[1], "double")
    text = _s(args[2])
    parsed = F.from_json(text, _FENCES)
    features = parsed["features"]
    rings = F.transform(features, lambda feature: feature["geometry"]["coordinates"][0])
    closed = F.forall(rings, lambda ring: (F.size(ring) >= 4) & (ring[0][0] == F.element_at(ring, -1)[0])
                      & (ring[0][1] == F.element_at(ring, -1)[1]))
    valid = F.coalesce(F.try_parse_json(text).isNotNull() & features.isNotNull() & closed, F.lit(False))
    present = lat.isNotNull() & lon.isNotNull() & text.isNotNull()
    c.fail_when(present & ~valid, "the text is not a valid GeoJSON FeatureCollection of closed polygons")
    inside = F.exists(rings, lambda ring: _inside(ring, lat, lon))
    return _bool(F.when(present, inside).otherwise(F.lit(False)))


# -- dq: DataQuality ----------------------------------------------------------------------------------------------
def luhn(digits: Column) -> Column:
    """The Luhn check (commons-validator LuhnCheckDigit): every second digit from the right doubled."""
    reversed_digits = F.reverse(digits)
    total = F.aggregate(F.sequence(F.lit(1), F.length(digits)), F.lit(0), lambda acc, i: acc + F.when(
        i % 2 == 0, F.when(F.substring(reversed_digits, i, 1).cast("int") * 2 > 9,
                           F.substring(reversed_digits, i, 1).cast("int") * 2 - 9)
        .otherwise(F.substring(reversed_digits, i, 1).cast("int") * 2))
        .otherwise(F.substring(reversed_digits, i, 1).cast("int")))
    return total % 10 == 0


#: commons-validator CreditCardValidator's card types: the number's form (prefix and length).
_CARDS = {
    "isAmex": r"^3[47]\d{13}$",
    "isVisa": r"^4(\d{12}|\d{15})$",
    "isMaster": r"^(5[1-5]\d{14}|2(22[1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720)\d{12})$",
    "isDiner": r"^(30[0-5]\d{11}|3095\d{10}|36\d{12}|3[89]\d{14})$",
    "isDiscover": r"^(6011\d{12,13}|64[4-9]\d{13}|65\d{14}|62[2-8]\d{13})$",
    "isVPay": r"^4\d{12,18}$",
    "isCreditCard": r"^\d{12,19}$",
}


def _card(pattern: str) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        text = _s(args[0])
        return _bool(text.rlike(pattern) & luhn(text))
    return apply


for _name, _pattern in _CARDS.items():
    fn("dq", _name, 1, doc=f"DataQuality.{_name}: CreditCardValidator (card number form and the Luhn check)")(
        _card(_pattern))


def _isbn10(text: Column) -> Column:
    digits = F.regexp_replace(text, r"[- ]", "")
    form = text.rlike(r"^(\d{9}[0-9X]|\d{1,5}[- ]\d{1,7}[- ]\d{1,6}[- ][0-9X])$") & (F.length(digits) == 10)
    total = F.aggregate(F.sequence(F.lit(1), F.lit(10)), F.lit(0), lambda acc, i: acc + (11 - i) * F.when(
        F.substring(digits, i, 1) == "X", 10).otherwise(F.substring(digits, i, 1).cast("int")))
    return form & (total % 11 == 0)


def _isbn13(text: Column) -> Column:
    digits = F.regexp_replace(text, r"[- ]", "")
    form = text.rlike(r"^(97[89]\d{10}|97[89][- ]\d{1,5}[- ]\d{1,7}[- ]\d{1,6}[- ]\d)$") & (F.length(digits) == 13)
    total = F.aggregate(F.sequence(F.lit(1), F.lit(13)), F.lit(0), lambda acc, i: acc + F.when(
        i % 2 == 0, 3).otherwise(1) * F.substring(digits, i, 1).cast("int"))
    return form & (total % 10 == 0)


_OCTET = r"(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_IPV4 = rf"^{_OCTET}(\.{_OCTET}){{3}}$"
_H = r"[0-9a-fA-F]{1,4}"
_IPV6 = (rf"^(({_H}:){{7}}{_H}|({_H}:){{1,7}}:|({_H}:){{1,6}}:{_H}|({_H}:){{1,5}}(:{_H}){{1,2}}|"
         rf"({_H}:){{1,4}}(:{_H}){{1,3}}|({_H}:){{1,3}}(:{_H}){{1,4}}|({_H}:){{1,2}}(:{_H}){{1,5}}|"
         rf"{_H}:(:{_H}){{1,6}}|:((:{_H}){{1,7}}|:)|({_H}:){{6}}{_OCTET}(\.{_OCTET}){{3}}|"
         rf"::(ffff(:0{{1,4}})?:)?{_OCTET}(\.{_OCTET}){{3}}|({_H}:){{1,4}}:{_OCTET}(\.{_OCTET}){{3}})$")
#: IANA generic top-level domains commons-validator knows best (the infrastructure and original generic ones,
#: and the most used new ones); country codes are any two letters of ISO 3166 (see differences).
_GENERIC = str.split(
    "aero asia biz cat com coop edu gov info int jobs mil mobi museum name net org post pro tel travel xxx "
            "app blog cloud dev io ai online shop site store tech xyz club live news top agency art page")
_COUNTRY = str.split(
    "ac ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bm bn bo br bs bt bw by bz "
            "ca cc cd cf cg ch ci ck cl cm cn co cr cu cv cw cx cy cz de dj dk dm do dz ec ee eg er es et eu fi fj fk "
            "fm fo fr ga gb gd ge gf gg gh gi gl gm gn gp gq gr gs gt gu gw gy hk hm hn hr ht hu id ie il im in io iq "
            "ir is it je jm jo jp ke kg kh ki km kn kp kr kw ky kz la lb lc li lk lr ls lt lu lv ly ma mc md me mg mh "
            "mk ml mm mn mo mp mq mr ms mt mu mv mw mx my mz na nc ne nf ng ni nl no np nr nu nz om pa pe pf pg ph pk "
            "pl pm pn pr ps pt pw py qa re ro rs ru rw sa sb sc sd se sg sh si sk sl sm sn so sr ss st su sv sx sy sz "
            "tc td tf tg th tj tk tl tm tn to tr tt tv tw tz ua ug uk us uy uz va vc ve vg vi vn vu wf ws ye yt za zm "
            "zw")
_TLD = rf"(?i)^\.?({'|'.join(_GENERIC + _COUNTRY + ['arpa', 'localhost'])})$"
_LABEL = r"[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
_DOMAIN = rf"(?i)^({_LABEL}\.)+({'|'.join(_GENERIC + _COUNTRY)})\.?$"
_EMAIL = (r"^[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+(\.[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+)*@"
          rf"(({_LABEL}\.)+({'|'.join(_GENERIC + _COUNTRY)})|\[{_OCTET}(\.{_OCTET}){{3}}\])$")
_URL = (rf"(?i)^(https?|ftp)://(([a-z0-9._~%!$&'()*+,;=:-]+@)?(({_LABEL}\.)+({'|'.join(_GENERIC + _COUNTRY)})|"
        rf"localhost|{_OCTET}(\.{_OCTET}){{3}})(:\d{{1,5}})?)(/[^\s?#]*)?(\?[^\s#]*)?(#\S*)?$")

_PATTERN_TESTS: dict[str, tuple[str, str]] = {
    "isIPv4": (_IPV4, "InetAddressValidator.isValidInet4Address"),
    "isIPv6": (_IPV6, "InetAddressValidator.isValidInet6Address"),
    "isIP": (f"{_IPV4}|{_IPV6}", "InetAddressValidator.isValid"),
    "isEmail": (_EMAIL, "EmailValidator.isValid"),
    "isUrl": (_URL, "UrlValidator.isValid (http, https, ftp)"),
    "isDomainName": (_DOMAIN, "DomainValidator.isValid"),
    "isDomainTld": (_TLD, "DomainValidator.isValidTld"),
    "isGenericTld": (rf"(?i)^\.?({'|'.join(_GENERIC)})$", "DomainValidator.isValidGenericTld"),
    "isCountryTld": (rf"(?i)^\.?({'|'.join(_COUNTRY)})$", "DomainValidator.isValidCountryCodeTld"),
}


def _pattern_test(pattern: str) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        return _bool(_s(args[0]).rlike(pattern))
    return apply


for _name, (_pattern, _what) in _PATTERN_TESTS.items():
    fn("dq", _name, 1, doc=f"DataQuality.{_name}: {_what}")(_pattern_test(_pattern))


def _text_test(function: Callable[[Column], Column]) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        return _bool(function(_s(args[0])))
    return apply


fn("dq", "isISBN10", 1, doc="DataQuality.isISBN10: ISBNValidator.isValidISBN10 (form and check digit)")(
    _text_test(_isbn10))
fn("dq", "isISBN13", 1, doc="DataQuality.isISBN13: ISBNValidator.isValidISBN13 (form and check digit)")(
    _text_test(_isbn13))
fn("dq", "isISBN", 1, doc="DataQuality.isISBN: ISBN-10 or ISBN-13")(_text_test(lambda t: _isbn10(t) | _isbn13(t)))


@fn("dq", "isDate", 1, 2, doc="DataQuality.isDate(text[, pattern]): DateValidator, strict; without a pattern the "
    "short US form M/d/yy")
def _dq_is_date(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text = _s(args[0])
    if len(args) == 2:
        pattern = _literal_text(c, node, args[1], "date pattern")
        parsed = F.try_to_timestamp(text, F.lit(pattern))
        return _bool(parsed.isNotNull() & (F.date_format(parsed, pattern) == text)
                     | (parsed.isNotNull() & (F.length(text) == F.length(F.date_format(parsed, pattern)))))
    parts = F.regexp_extract_all(text, F.lit(r"^(\d{1,2})/(\d{1,2})/(\d+)$"), 0)
    month = F.regexp_extract(text, r"^(\d{1,2})/(\d{1,2})/(\d+)$", 1).cast("int")
    day = F.regexp_extract(text, r"^(\d{1,2})/(\d{1,2})/(\d+)$", 2).cast("int")
    year_text = F.regexp_extract(text, r"^(\d{1,2})/(\d{1,2})/(\d+)$", 3)
    year = F.when(F.length(year_text) <= 2, year_text.cast("int") + 2000).otherwise(year_text.cast("int"))
    return _bool((F.size(parts) > 0) & F.make_date(year, month, day).isNotNull())


@fn("dq", "inrange", 3, doc="DataQuality.inrange(value, lower, upper): lower ≤ value ≤ upper")
def _inrange(c: Compiling, node: Expr, args: list[Value]) -> Value:
    value, low, high = (_number_arg(c, v, "double") for v in args)
    for arg, column in zip(args, (value, low, high), strict=True):
        c.fail_when(column.isNull(), "null argument to dq:inrange") if arg.kind != "null" else c.fail_when(
            F.lit(True), "null argument to dq:inrange")
    c.fail_when(low > high, "dq:inrange: lower bound above upper bound")
    return _bool((value >= low) & (value <= high))


@fn("dq", "strlen", 1, doc="DataQuality.strlen: length, 0 for null")
def _strlen(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return Value(F.coalesce(F.length(_s(args[0])), F.lit(0)).cast("int"), "int")


@fn("dq", "isnull", 1, doc="DataQuality.isnull")
def _isnull(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return Value(args[0].col.isNull() if args[0].kind != "null" else F.lit(True), "bool")


@fn("dq", "isempty", 1, doc="DataQuality.isempty: the text is '' (null is not empty)")
def _isempty(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _bool(F.length(_s(args[0])) == 0)


@fn("dq", "columns", 1, doc="DataQuality.columns(row): Row.width()")
def _dq_columns(c: Compiling, node: Expr, args: list[Value]) -> Value:
    from directives.spark.expr.functions import ROW_METHODS

    return ROW_METHODS["width"].impl(c, node, [])


@fn("dq", "hascolumn", 2, doc="DataQuality.hascolumn(row, name): the row has the column (Row.find, "
    "case-insensitive)")
def _hascolumn(c: Compiling, node: Expr, args: list[Value]) -> Value:
    name = args[1]
    if name.is_literal and isinstance(name.literal, str):
        return Value(F.lit(c.frame.find(name.literal) is not None), "bool")
    names = [column.lower() for column in c.frame.columns]
    return _bool(F.lower(_s(name)).isin(names) if names else F.lit(False))


# -- json: the rest of JsonFunctions --------------------------------------------------------------------------------
def _variant(c: Compiling, value: Value) -> Column:
    if value.kind == "variant":
        return value.col
    return F.try_parse_json(_s(value))


def _schema_kind(v: Column) -> Column:
    return F.schema_of_variant(v)


@fn("json", "IsNull", 1, doc="JsonFunctions.IsNull: null or JSON null")
def _json_is_null(c: Compiling, node: Expr, args: list[Value]) -> Value:
    v = _variant(c, args[0]) if args[0].kind != "null" else F.lit(None)
    return _bool(v.isNull() | F.is_variant_null(v))


@fn("json", "IsObject", 1, doc="JsonFunctions.IsObject: a JSON object")
def _json_is_object(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _bool(_schema_kind(_variant(c, args[0])).startswith("OBJECT"))


@fn("json", "IsArray", 1, doc="JsonFunctions.IsArray: a JSON array")
def _json_is_array(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _bool(_schema_kind(_variant(c, args[0])).startswith("ARRAY"))


@fn("json", "join", 2, doc="JsonFunctions.join(array, separator): each primitive as JSON text followed by the "
    "separator (objects and arrays add only the separator); '' for a non-array")
def _json_join(c: Compiling, node: Expr, args: list[Value]) -> Value:
    items = F.try_variant_get(_variant(c, args[0]), "$", "array<variant>")
    sep = _s(args[1])
    pieces = F.transform(items, lambda item: F.concat(F.when(
        F.schema_of_variant(item).startswith("OBJECT") | F.schema_of_variant(item).startswith("ARRAY"), F.lit(""))
        .otherwise(F.to_json(item)), sep))
    return Value(F.coalesce(F.array_join(pieces, ""), F.lit("")), "string")


def _selected(source: Column, path: str) -> Column:
    """JsonPath read with SUPPRESS_EXCEPTIONS: the value at the path, null when absent. `[*]` wildcards
    collect every match (Spark's get_json_object); other paths read the parsed value directly."""
    if "*" not in path and ".." not in path:
        return F.try_variant_get(source, path, "variant")
    found = F.get_json_object(F.to_json(source), path)
    as_json = F.try_parse_json(found)
    quoted = F.regexp_extract(F.to_json(F.array(found)), r"^\[(.*)\]$", 1)
    return F.when(found.isNull(), F.lit(None)).otherwise(F.coalesce(as_json, F.try_parse_json(quoted)))


@fn("json", "Select", 2, MANY, doc="JsonFunctions.Select(json, path, paths…): the value at a JSON path (constant; "
    "`[*]` wildcards collect every match); with several paths a JSON array of each path's value")
def _json_select(c: Compiling, node: Expr, args: list[Value]) -> Value:
    source = _variant(c, args[0])
    paths = [_literal_text(c, node, value, "JSON path") for value in args[1:]]
    if len(paths) == 1:
        return Value(_selected(source, paths[0]), "variant")
    parts = [F.coalesce(F.to_json(_selected(source, path)), F.lit("null")) for path in paths]
    joined = F.concat(F.lit("["), F.concat_ws(",", *parts), F.lit("]"))
    return Value(F.when(source.isNotNull(), F.parse_json(joined)), "variant")


# -- ddl: DDL on records (Spark structs) ----------------------------------------------------------------------------
def _record_type(c: Compiling, value: Value) -> T.DataType:
    return c.frame.df.select(value.col).schema[0].dataType


@fn("ddl", "hasField", 2, doc="DDL.hasField(record, name): the record's schema has the field (exact name)")
def _has_field(c: Compiling, node: Expr, args: list[Value]) -> Value:
    name = _literal_text(c, node, args[1], "field name")
    data_type = _record_type(c, args[0]) if args[0].kind == "struct" else None
    present = isinstance(data_type, T.StructType) and name in data_type.fieldNames()
    return Value(F.lit(present), "bool")


@fn("ddl", "select", 2, doc="DDL.select(record, 'a.b[0].c'): the nested value; a field that does not exist fails "
    "the recipe")
def _ddl_select(c: Compiling, node: Expr, args: list[Value]) -> Value:
    path = _literal_text(c, node, args[1], "field path")
    column, data_type = args[0].col, _record_type(c, args[0])
    for part in path.split("."):
        key = None
        if "[" in part:
            if not part.endswith("]"):
                raise c.error(node, f"Invalid field '{part}'. An index start '[' must end with a ']'")
            part, key = part[:part.index("[")], part[part.index("[") + 1:-1]
        if not isinstance(data_type, T.StructType) or part not in data_type.fieldNames():
            raise c.error(node, f"Nested field '{part}' in path '{path}' does not exist")
        column, data_type = column.getField(part), data_type[part].dataType
        if key is not None:
            if isinstance(data_type, T.ArrayType):
                if not key.isdigit():
                    raise c.error(node, f"Invalid array index '{key}' for field '{part}' in path '{path}'.")
                column, data_type = column.getItem(int(key)), data_type.elementType
            elif isinstance(data_type, T.MapType):
                column, data_type = column.getItem(key), data_type.valueType
            else:
                raise c.error(node, f"Array syntax for nested field '{part}' in path '{path}' was specified, but "
                              f"'{part}' is of type {data_type.simpleString()}.")
    return Value(column, kind_of(data_type))


@fn("ddl", "drop", 2, MANY, doc="DDL.drop(record, path, …): the record unchanged (Wrangler's drop on a record is a "
    "no-op)")
def _ddl_drop(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return args[0]


@fn("ddl", "toJson", 1, doc="DDL.toJson(record): the record as JSON")
def _ddl_to_json(c: Compiling, node: Expr, args: list[Value]) -> Value:
    value = args[0]
    if value.kind in ("struct", "map", "array"):
        return Value(F.parse_json(F.to_json(value.col)), "variant")
    return Value(F.try_parse_json(_s(value)), "variant")


@fn("ddl", "parse", 1, doc="DDL.parse(json): the schema JSON (as JSON); parse(record) is the record")
def _ddl_parse(c: Compiling, node: Expr, args: list[Value]) -> Value:
    value = args[0]
    if value.kind in ("struct", "variant"):
        return value
    parsed = F.try_parse_json(_s(value))
    c.fail_when(value.col.isNotNull() & parsed.isNull(), "the schema is not valid JSON")
    return Value(parsed, "variant")


_SQL_TYPES = {"int": "int", "integer": "int", "long": "long", "bigint": "long", "float": "float", "double": "double",
              "string": "string", "varchar": "string", "text": "string", "boolean": "boolean", "bool": "boolean",
              "bytes": "bytes", "binary": "bytes"}


@fn("ddl", "parsesql", 1, doc="DDL.parsesql('a int, b string not null'): the Avro record schema (JSON) CDAP's "
    "Schema.parseSQL makes; a constant text")
def _ddl_parsesql(c: Compiling, node: Expr, args: list[Value]) -> Value:
    import json

    sql = _literal_text(c, node, args[0], "SQL schema")
    fields = []
    for position, part in enumerate(piece.strip() for piece in sql.split(",")):
        words = part.split()
        if len(words) < 2 or words[1].lower() not in _SQL_TYPES:
            raise c.error(node, f"ddl:parsesql cannot read field {position + 1} '{part}'.",
                          "Usage: ddl:parsesql('name type [not null], …') with simple types.")
        kind: object = _SQL_TYPES[words[1].lower()]
        not_null = " ".join(words[2:]).lower() == "not null"
        fields.append({"name": words[0], "type": kind if not_null else [kind, "null"]})
    schema = json.dumps({"type": "record", "name": "etlSchemaBody", "fields": fields}, separators=(",", ":"))
    return Value(F.parse_json(F.lit(schema)), "variant")


@fn("json", "Parse", 1, doc="JsonFunctions.Parse: the JSON value; text that is not JSON gives JSON null")
def _json_parse_lenient(c: Compiling, node: Expr, args: list[Value]) -> Value:
    value = args[0]
    if value.kind == "variant":
        return value
    return Value(F.coalesce(F.try_parse_json(_s(value)), F.when(value.col.isNotNull(), F.parse_json(F.lit("null")))),
                 "variant")


@fn("json", "parse", 1, 2, doc="JsonFunctions.parse(json[, toLower]): the JSON value (keys lower-cased when "
    "toLower); text that is not JSON fails the row")
def _json_parse_strict(c: Compiling, node: Expr, args: list[Value]) -> Value:
    value = args[0]
    parsed = value.col if value.kind == "variant" else F.try_parse_json(_s(value))
    if value.kind != "variant":
        c.fail_when(value.col.isNotNull() & parsed.isNull(), "text is not valid JSON")
    if len(args) == 2:
        lower = args[1]
        if lower.kind not in ("bool", "any", "variant"):  # parse(String, boolean): JEXL finds no overload
            raise KindError(lower.kind, "a boolean (toLower)")
        if lower.is_literal and lower.literal is True:
            parsed = python_udfs.keys_to_lower(parsed)
        elif not lower.is_literal:
            parsed = F.when(lower.col.cast("boolean"), python_udfs.keys_to_lower(parsed)).otherwise(parsed)
    return Value(parsed, "variant")


@fn("json", "keysToLower", 1, doc="JsonFunctions.keysToLower: every object key lower-cased, at every depth "
    "(Python UDF)")
def _json_keys_to_lower(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return Value(python_udfs.keys_to_lower(_variant(c, args[0])), "variant")


@fn("json", "drop", 2, MANY, doc="JsonFunctions.drop(json, field, …): the fields removed from every object, at "
    "every depth (Python UDF)")
def _json_drop(c: Compiling, node: Expr, args: list[Value]) -> Value:
    source = _variant(c, args[0])
    if args[0].kind != "variant":
        c.fail_when(args[0].col.isNotNull() & source.isNull(), "text is not valid JSON")
    fields = F.array(*(_s(v) for v in args[1:]))
    return Value(python_udfs.drop_fields(source, fields), "variant")


@fn("json", "select", 2, MANY, doc="JsonFunctions.select(json, [toLower,] path, …): keys lower-cased first (unless "
    "toLower is false), then as Select")
def _json_select_lower(c: Compiling, node: Expr, args: list[Value]) -> Value:
    source = _variant(c, args[0])
    rest = args[1:]
    lower = True
    if rest and rest[0].kind == "bool":
        if not rest[0].is_literal:
            raise c.error(node, "json:select's toLower must be a constant true or false on Spark.")
        lower, rest = bool(rest[0].literal), rest[1:]
    if not rest:
        raise c.error(node, "json:select needs a path.", "Usage: json:select(json, [toLower,] path, paths…)")
    if lower:
        source = python_udfs.keys_to_lower(source)
    return _json_select(c, node, [Value(source, "variant"), *rest])


@fn("json", "stringify", 1, doc="JsonFunctions.stringify: JSON text; 'null' for null")
def _json_stringify_lower(c: Compiling, node: Expr, args: list[Value]) -> Value:
    value = args[0]
    if value.kind == "null":
        return Value(F.lit("null"), "string")
    text = F.to_json(value.col) if value.kind == "variant" else _s(value)
    return Value(F.coalesce(text, F.lit("null")), "string")
