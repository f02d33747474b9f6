"""`arrays:` (java.util.Arrays) and the rest of `bytes:` (CDAP Bytes) on Spark arrays and binary values.

Methods that return nothing (`Arrays.sort`, `fill`, `setAll` …) give null, as JEXL gives for a void call;
they cannot change a value inside an expression. Methods whose result is a Java object no row can hold
(`Arrays.stream`, `spliterator`, Bytes' ByteBuffer and DataOutput methods) are errors when the recipe is
compiled, with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pyspark.sql import Column
from pyspark.sql import functions as F

from directives.spark.expr import byte_codecs
from directives.spark.expr.functions import FUNCTIONS, MANY, Impl, _i, _number_arg, _s, _unless_too_long, fn
from directives.spark.expr.values import NUMERIC, Compiling, KindError, Value, java_string

if TYPE_CHECKING:
    from grammar.expression import Expr


def _int(column: Column) -> Value:
    return Value(column.cast("int"), "int")


def _items(value: Value) -> Column:
    if value.kind == "array":
        return value.col
    if value.kind == "null":
        return F.lit(None).cast("array<string>")
    return F.array(value.col)


def _text_items(value: Value) -> Column:
    return F.transform(_items(value), lambda item: item.cast("string"))


# -- arrays: java.util.Arrays -----------------------------------------------------------------------------------------
@fn("arrays", "asList", 0, MANY, doc="Arrays.asList: the arguments as an array")
def _as_list(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return c.array_value(args)


@fn("arrays", "toString deepToString", 1, doc="Arrays.toString: '[a, b, c]', 'null' for null")
def _to_string(c: Compiling, node: Expr, args: list[Value]) -> Value:
    items = F.transform(_items(args[0]), lambda item: F.coalesce(F.to_json(item) if args[0].element in (
        "array", "struct", "map") else item.cast("string"), F.lit("null")))
    joined = F.concat(F.lit("["), F.array_join(items, ", "), F.lit("]"))
    return Value(F.coalesce(joined, F.lit("null")), "string")


def _string_hash(text: Column) -> Column:
    """String.hashCode: s[0]·31^(n−1) + … + s[n−1], in int arithmetic."""
    return F.aggregate(F.split(text, ""), F.lit(0), lambda h, ch: F.when(F.length(ch) == 0, h).otherwise(
        (h.cast("bigint") * 31 + F.ascii(ch)).cast("int")))


def _element_hash(item: Column, kind: str) -> Column:
    if kind == "int":
        return item
    if kind == "long":
        return item.bitwiseXOR(F.shiftrightunsigned(item, 32)).cast("int")
    if kind == "bool":
        return F.when(item, 1231).otherwise(1237)
    return _string_hash(item.cast("string"))


@fn("arrays", "hashCode deepHashCode", 1, doc="Arrays.hashCode: 31·h + each element's hashCode (0 for null)")
def _hash_code(c: Compiling, node: Expr, args: list[Value]) -> Value:
    kind = args[0].element
    total = F.aggregate(_items(args[0]), F.lit(1), lambda h, item: (h.cast("bigint") * 31 + F.coalesce(
        _element_hash(item, kind), F.lit(0))).cast("int"))
    return _int(F.coalesce(total, F.lit(0)))


def _range(items: Column, start: Column, end: Column) -> Column:
    """Elements start..end−1; null for a negative start (Spark's slice would read it from the end, or throw on 0)."""
    return F.slice(items, F.when(start >= 0, start + 1), F.greatest(end - start, F.lit(0)))


def _compared(c: Compiling, node: Expr, args: list[Value], name: str, hint: str | None = None) -> tuple[Column, Column]:
    """The two arrays an `arrays:` comparison takes, ``(a, b)`` or ranges ``(a, from, to, b, from, to)``; the forms
    with a Comparator (3 or 7 arguments) cannot be written in an expression."""
    _arrays_only(*(args[i] for i in ((0, 1) if len(args) == 2 else (0, 3)) if i < len(args)))
    if len(args) == 2:
        return _items(args[0]), _items(args[1])
    if len(args) == 6:
        return (_range(_items(args[0]), _i(args[1]), _i(args[2])),
                _range(_items(args[3]), _i(args[4]), _i(args[5])))
    raise c.error(node, f"arrays:{name} with a Comparator cannot run: an expression cannot make a Comparator.", hint)


@fn("arrays", "equals deepEquals", 2, 7, doc="Arrays.equals(a, b) or (a, from, to, b, from, to): same elements in "
    "order (the Comparator forms cannot be written in an expression)")
def _equals(c: Compiling, node: Expr, args: list[Value]) -> Value:
    a, b = _compared(c, node, args, "equals",
                     "Usage: arrays:equals(a, b) or arrays:equals(a, aFrom, aTo, b, bFrom, bTo)")
    return Value(F.coalesce(a.eqNullSafe(b), F.lit(False)), "bool")


def _mismatch_of(a: Column, b: Column) -> Column:
    shorter = F.least(F.size(a), F.size(b))
    positions = F.filter(F.sequence(F.lit(1), F.greatest(shorter, F.lit(1))), lambda i: (i <= shorter) & ~(
        F.element_at(a, i).eqNullSafe(F.element_at(b, i))))
    first = F.array_min(positions)
    return F.when(first.isNotNull(), first - 1).when(F.size(a) == F.size(b), F.lit(-1)).otherwise(shorter)


@fn("arrays", "mismatch", 2, 7, doc="Arrays.mismatch(a, b[, ranges]): first index where they differ (the shorter "
    "length when one is a prefix), −1 when equal")
def _mismatch(c: Compiling, node: Expr, args: list[Value]) -> Value:
    a, b = _compared(c, node, args, "mismatch")
    return _int(_mismatch_of(a, b))


def _compare(unsigned: bool) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        a, b = _compared(c, node, args, "compare")
        at = _mismatch_of(a, b)
        x, y = F.element_at(a, at + 1), F.element_at(b, at + 1)
        if unsigned:
            x, y = F.pmod(x.cast("bigint"), F.lit(2**32)), F.pmod(y.cast("bigint"), F.lit(2**32))
        if args[0].element in NUMERIC or args[0].element == "bool":
            element = F.when(x < y, -1).when(x > y, 1).otherwise(0)
        else:  # String.compareTo: the difference of the first differing characters, or of the lengths
            sx, sy = x.cast("string"), y.cast("string")
            k = F.array_min(F.filter(F.sequence(F.lit(1), F.greatest(F.least(F.length(sx), F.length(sy)), F.lit(1))),
                                     lambda i: F.substring(sx, i, 1) != F.substring(sy, i, 1)))
            element = F.when(k.isNotNull() & (k <= F.least(F.length(sx), F.length(sy))),
                             F.ascii(F.substring(sx, k, 1)) - F.ascii(F.substring(sy, k, 1))).otherwise(
                F.length(sx) - F.length(sy))
        result = (F.when(a.isNull() & b.isNull(), 0).when(a.isNull(), -1).when(b.isNull(), 1)
                  .when(at == -1, 0).when(at >= F.least(F.size(a), F.size(b)), F.size(a) - F.size(b))
                  .otherwise(element))
        return _int(result)
    return apply


fn("arrays", "compare", 2, 7, doc="Arrays.compare(a, b[, ranges]): lexicographic, as each element's compareTo")(
    _compare(False))
fn("arrays", "compareUnsigned", 2, 6, doc="Arrays.compareUnsigned: lexicographic, elements as unsigned")(
    _compare(True))


def _zero_of(kind: str) -> Column:
    return {"int": F.lit(0), "long": F.lit(0).cast("bigint"), "double": F.lit(0.0), "bool": F.lit(False)}.get(
        kind, F.lit(None))


#: The most elements `copyOf`/`copyOfRange` build on one row: an array of 2^31 elements (what Java would try, and
#: run out of memory on) ends the job; past this the row fails instead.
MAX_BUILT_ELEMENTS = 10_000_000


@fn("arrays", "copyOf", 2, 3, doc="Arrays.copyOf(a, n): the first n elements, padded with 0/false/null")
def _copy_of(c: Compiling, node: Expr, args: list[Value]) -> Value:
    items, n = _items(args[0]), _i(args[1])
    c.fail_when(n < 0, "negative array size")
    pad = F.array_repeat(_zero_of(args[0].element).cast(_element_type(c, args[0])), F.greatest(n - F.size(items),
                                                                                                 F.lit(0)))
    copied = F.concat(F.slice(items, 1, F.greatest(n, F.lit(0))), pad)
    copied = F.when(n >= 0, _unless_too_long(c, n, copied, "elements", MAX_BUILT_ELEMENTS))  # n − size may overflow
    return Value(copied, "array", element=args[0].element)


def _element_type(c: Compiling, value: Value) -> str:
    data_type = c.frame.df.select(_items(value)).schema[0].dataType
    return data_type.elementType.simpleString()  # type: ignore[attr-defined]


@fn("arrays", "copyOfRange", 3, 4, doc="Arrays.copyOfRange(a, from, to): elements from..to−1, padded past the end")
def _copy_of_range(c: Compiling, node: Expr, args: list[Value]) -> Value:
    items, start, end = _items(args[0]), _i(args[1]), _i(args[2])
    valid = (start >= 0) & (start <= F.size(items)) & (start <= end)
    c.fail_when(~valid, "array range out of bounds")
    taken = _range(items, start, F.least(end, F.size(items)))
    pad = F.array_repeat(_zero_of(args[0].element).cast(_element_type(c, args[0])),
                         F.greatest(end - F.greatest(F.size(items), start), F.lit(0)))
    length = end.cast("bigint") - start
    copied = _unless_too_long(c, length, F.concat(taken, pad), "elements", MAX_BUILT_ELEMENTS)
    return Value(F.when(valid, copied), "array", element=args[0].element)


@fn("arrays", "binarySearch", 2, 5, doc="Arrays.binarySearch(sorted, [from, to,] key): its index, or −(insertion "
    "point) − 1")
def _binary_search(c: Compiling, node: Expr, args: list[Value]) -> Value:
    if len(args) not in (2, 4, 5):
        raise c.error(node, "arrays:binarySearch with a Comparator cannot run: an expression cannot make a "
                      "Comparator.")
    _arrays_only(args[0])
    items = _items(args[0])
    offset: Column = F.lit(0)
    if len(args) in (4, 5):  # Arrays.rangeCheck: from ≤ to, 0 ≤ from, to ≤ length
        offset, end = _i(args[1]), _i(args[2])
        valid = (offset >= 0) & (offset <= end) & (end <= F.size(items))
        c.fail_when(items.isNotNull() & ~F.coalesce(valid, F.lit(False)), "array range out of bounds")
        items = F.when(valid, _range(items, offset, end))
    key = args[3] if len(args) in (4, 5) else args[1]
    kind = args[0].element
    if kind in NUMERIC:
        needle = _number_arg(c, key, kind)
    else:  # text, or elements of another kind compared as their text (Spark needs one type on both sides)
        items, needle = _text_items_of(items, kind), java_string(key)
    found = F.array_position(items, needle)
    below = F.size(F.filter(items, lambda item: item < needle))
    return _int(F.when(items.isNull(), F.lit(None)).when(found > 0, found - 1 + offset)
                .otherwise(-(below + offset) - 1))


def _arrays_only(*values: Value) -> None:
    """Java's Arrays methods take arrays: no overload takes a single text or number, so JEXL finds none for one.
    (A value of unknown kind, or null, is left to the row.)"""
    for value in values:
        if value.kind not in ("array", "null", "any"):
            raise KindError(value.kind, "a list (an array)")


def _text_items_of(items: Column, kind: str) -> Column:
    return items if kind == "string" else F.transform(items, lambda item: item.cast("string"))


def _void(name: str, low: int, high: int, what: str) -> None:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        return Value(F.lit(None).cast("string"), "null")
    fn("arrays", name, low, high, doc=f"Arrays.{name}: {what}; returns nothing (null), as the void Java method")(
        apply)


_void("sort", 1, 4, "sorts in place")
_void("parallelSort", 1, 4, "sorts in place")
_void("fill", 2, 4, "fills in place")
_void("setAll", 2, 2, "sets every element in place")
_void("parallelSetAll", 2, 2, "sets every element in place")
_void("parallelPrefix", 2, 4, "cumulates in place")


def _java_object(namespace: str, name: str, low: int, high: int, what: str) -> None:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        raise c.error(node, f"{namespace}:{name} returns {what}, which no row value can hold.",
                      "Use the arrays:/bytes: functions that return values (see docs/expressions.md).")
    fn(namespace, name, low, high, doc=f"returns {what}: an error when the recipe is compiled")(apply)


_java_object("arrays", "stream", 1, 3, "a java.util.stream.Stream")
_java_object("arrays", "spliterator", 1, 3, "a java.util.Spliterator")
_java_object("bytes", "getBytes", 1, 1, "the bytes of a java.nio.ByteBuffer (no expression makes one)")
_java_object("bytes", "writeStringFixedSize", 3, 3, "nothing, writing to a java.io.DataOutput")
_java_object("bytes", "iterateOnSplits", 3, 4, "a java.lang.Iterable of key splits")
_java_object("bytes", "split", 3, 4, "byte[][] key-range splits computed with BigInteger")


# -- bytes: CDAP Bytes -------------------------------------------------------------------------------------------------
def _raw(value: Value) -> Column:
    if value.kind == "binary":
        return value.col
    if value.kind == "array":
        return F.unhex(F.array_join(F.transform(value.col, lambda b: F.lpad(F.substring(F.hex(b.cast("bigint")), -2,
                                                                                        2), 2, "0")), ""))
    return F.encode(_s(value), "UTF-8")


def _binary(column: Column) -> Value:
    return Value(column, "binary")


def _slice(raw: Column, offset: Column, length: Column) -> Column:
    return F.substring(raw, offset + 1, length)


_signed = byte_codecs.signed_integer


def _integral(size: int, kind: str) -> Impl:
    base = FUNCTIONS[("bytes", {"int": "toInt", "long": "toLong", "short": "toShort"}[kind])].impl

    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        if len(args) == 1:
            return base(c, node, args)
        raw, offset = _raw(args[0]), _i(args[1])
        length = _i(args[2]) if len(args) == 3 else F.lit(size)
        c.fail_when(raw.isNotNull() & ((length != size) | (offset + length > F.length(raw)) | (offset < 0)),
                    f"offset ({'{'}offset{'}'}) + length ({size}) exceed the capacity of the array")
        piece = _slice(raw, offset, F.lit(size))
        return Value(_signed(piece, size).cast({"int": "int", "long": "bigint", "short": "smallint"}[kind]),
                     "int" if kind == "short" else kind)
    return apply


fn("bytes", "toInt", 1, 3, doc="Bytes.toInt(bytes[, offset[, length]]): big-endian int")(_integral(4, "int"))
fn("bytes", "toLong", 1, 3, doc="Bytes.toLong(bytes[, offset[, length]]): big-endian long")(_integral(8, "long"))
fn("bytes", "toShort", 1, 3, doc="Bytes.toShort(bytes[, offset[, length]]): big-endian short")(_integral(2, "short"))


@fn("bytes", "toString", 1, 3, doc="Bytes.toString(bytes[, offset, length]): UTF-8 text; toString(bytes, sep, "
    "bytes2) joins two")
def _to_string_bytes(c: Compiling, node: Expr, args: list[Value]) -> Value:
    if len(args) == 1:
        return Value(byte_codecs.to_text(_raw(args[0])), "string")
    if len(args) == 3 and args[1].kind == "string":
        return Value(F.concat(byte_codecs.to_text(_raw(args[0])), _s(args[1]), byte_codecs.to_text(_raw(args[2]))),
                     "string")
    raw, offset = _raw(args[0]), _i(args[1])
    length = _i(args[2]) if len(args) == 3 else F.length(raw) - offset
    return Value(byte_codecs.to_text(_slice(raw, offset, length)), "string")


def _float(width: int) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        from directives.spark.compile.typeconv import bytes_to_float

        raw = _raw(args[0])
        if len(args) == 2:
            raw = _slice(raw, _i(args[1]), F.lit(width))
        c.fail_when(raw.isNotNull() & (F.length(raw) < width), f"fewer than {width} bytes")
        return Value(bytes_to_float(raw, "float" if width == 4 else "double").cast("double"), "double")
    return apply


fn("bytes", "toDouble", 1, 2, doc="Bytes.toDouble(bytes[, offset]): IEEE-754 bits (Python UDF)")(_float(8))
fn("bytes", "toFloat", 1, 2, doc="Bytes.toFloat(bytes[, offset]): IEEE-754 bits (Python UDF)")(_float(4))


@fn("bytes", "toBytes", 1, doc="Bytes.toBytes: text as UTF-8; int 4, long 8, short 2 bytes big-endian; boolean 1 "
    "byte; double/float IEEE-754 bits (Python UDF); BigDecimal scale + unscaled")
def _to_bytes(c: Compiling, node: Expr, args: list[Value]) -> Value:
    value = args[0]
    if value.kind == "binary":
        return value
    if value.kind == "int":
        return _binary(F.unhex(F.substring(F.lpad(F.hex(value.col.cast("bigint")), 16, "0"), -8, 8)))
    if value.kind == "long":
        return _binary(F.unhex(F.lpad(F.hex(value.col), 16, "0")))
    if value.kind == "bool":
        return _binary(F.when(value.col, F.unhex(F.lit("FF"))).otherwise(F.unhex(F.lit("00"))))
    if value.kind == "double":
        from directives.spark.compile.typeconv import float_to_bytes

        return _binary(float_to_bytes(value.col, 8))
    if value.kind == "decimal":
        from directives.spark.compile.typeconv import decimal_to_bytes

        return _binary(decimal_to_bytes(value.col, 10))
    return _binary(F.encode(_s(value), "UTF-8"))


@fn("bytes", "toBigDecimal", 1, 3, doc="Bytes.toBigDecimal(bytes[, offset, length]): 4 bytes of scale, then the "
    "unscaled two's-complement value")
def _to_big_decimal(c: Compiling, node: Expr, args: list[Value]) -> Value:
    raw = _raw(args[0])
    if len(args) == 3:
        raw = _slice(raw, _i(args[1]), _i(args[2]))
    c.fail_when(raw.isNotNull() & (F.length(raw) < 5), "fewer than 5 bytes for a BigDecimal")
    scale = _signed(F.substring(raw, 1, 4), 4).cast("int")
    rest = F.substring(raw, 5, 1 << 30)
    extended = F.lpad(F.hex(rest), 16, F.when(F.hex(rest).rlike("^[89A-F]"), F.lit("F")).otherwise(F.lit("0")))
    unscaled = F.when(F.length(rest) <= 8, _signed(F.unhex(extended), 8))
    return Value((unscaled / F.pow(F.lit(10), scale)).cast("decimal(38,10)"), "decimal")


@fn("bytes", "toHexString", 1, doc="Bytes.toHexString: lower-case hex")
def _to_hex(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return Value(F.lower(F.hex(_raw(args[0]))), "string")


@fn("bytes", "fromHexString", 1, doc="Bytes.fromHexString: hex text → bytes; an odd or non-hex text fails the row")
def _from_hex(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text = _s(args[0])
    c.fail_when(text.isNotNull() & ~text.rlike("^([0-9a-fA-F]{2})*$"), "not a hex string")
    return _binary(F.unhex(text))


@fn("bytes", "toBinaryFromHex", 1, doc="Bytes.toBinaryFromHex(byte): the value of one hex digit character")
def _binary_from_hex(c: Compiling, node: Expr, args: list[Value]) -> Value:
    value = args[0]
    digit = F.upper(F.substring(_s(value), 1, 1)) if value.kind == "string" else F.upper(F.char(value.col))
    return Value(F.conv(digit, 16, 10).cast("int"), "int")


@fn("bytes", "toStringBinary", 1, 3, doc="Bytes.toStringBinary: printable ASCII kept, other bytes as \\xNN")
def _to_string_binary(c: Compiling, node: Expr, args: list[Value]) -> Value:
    raw = _raw(args[0])
    if len(args) == 3:
        raw = _slice(raw, _i(args[1]), _i(args[2]))
    hexes = F.regexp_extract_all(F.hex(raw), F.lit("(..)"), 1)
    printable = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"
    allowed = {format(ord(ch), "02X") for ch in printable if ch.isalnum() or ch in " `~!@#$%^&*()-_=+[]{}|;:'\",.<>/?"}
    mapping = F.create_map(*(F.lit(x) for h in sorted(allowed) for x in (h, chr(int(h, 16)))))
    pieces = F.transform(hexes, lambda h: F.coalesce(F.element_at(mapping, h), F.concat(F.lit("\\x"), h)))
    return Value(F.array_join(pieces, ""), "string")


@fn("bytes", "toBytesBinary", 1, doc="Bytes.toBytesBinary: text with \\xNN escapes → bytes")
def _to_bytes_binary(c: Compiling, node: Expr, args: list[Value]) -> Value:
    tokens = F.regexp_extract_all(_s(args[0]), F.lit(r"\\x[0-9a-fA-F]{2}|(?s)."), 0)
    hexes = F.transform(tokens, lambda t: F.when(F.length(t) == 4, F.upper(F.substring(t, 3, 2))).otherwise(
        F.hex(F.encode(t, "UTF-8"))))
    return _binary(F.unhex(F.array_join(hexes, "")))


@fn("bytes", "add concat", 0, MANY, doc="Bytes.add / Bytes.concat: the byte arrays one after another")
def _add(c: Compiling, node: Expr, args: list[Value]) -> Value:
    if not args:
        return _binary(F.unhex(F.lit("")))
    return _binary(F.concat(*(_raw(v) for v in args)))


@fn("bytes", "head", 2, doc="Bytes.head(bytes, n): the first n bytes (null when shorter)")
def _head(c: Compiling, node: Expr, args: list[Value]) -> Value:
    raw, n = _raw(args[0]), _i(args[1])
    return _binary(F.when(F.length(raw) >= n, F.substring(raw, 1, n)))


@fn("bytes", "tail", 2, doc="Bytes.tail(bytes, n): the last n bytes (null when shorter)")
def _tail(c: Compiling, node: Expr, args: list[Value]) -> Value:
    raw, n = _raw(args[0]), _i(args[1])
    return _binary(F.when(F.length(raw) >= n, F.substring(raw, F.length(raw) - n + 1, n)))


def _pad(head: bool) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        raw, n = _raw(args[0]), _i(args[1])
        c.fail_when(n < 0, "negative array size")  # Java's `new byte[length]`
        zeros = F.unhex(F.repeat(F.lit("00"), n))
        padded = F.concat(zeros, raw) if head else F.concat(raw, zeros)
        # 2^31 zero bytes would exhaust the JVM's memory and end the job: past the limit the row fails instead
        return _binary(F.when(n >= 0, _unless_too_long(c, F.length(raw).cast("bigint") + n, padded, "bytes")))
    return apply


fn("bytes", "padHead", 2, doc="Bytes.padHead(bytes, n): n zero bytes before")(_pad(True))
fn("bytes", "padTail", 2, doc="Bytes.padTail(bytes, n): n zero bytes after")(_pad(False))


@fn("bytes", "startsWith", 2, doc="Bytes.startsWith(bytes, prefix)")
def _starts_with(c: Compiling, node: Expr, args: list[Value]) -> Value:
    raw, prefix = F.hex(_raw(args[0])), F.hex(_raw(args[1]))
    return Value(F.coalesce(raw.startswith(prefix), F.lit(False)), "bool")


@fn("bytes", "equals", 2, 6, doc="Bytes.equals(a, b) or (a, offset, length, b, offset, length)")
def _bytes_equals(c: Compiling, node: Expr, args: list[Value]) -> Value:
    if len(args) == 6:
        a = _slice(_raw(args[0]), _i(args[1]), _i(args[2]))
        b = _slice(_raw(args[3]), _i(args[4]), _i(args[5]))
    else:
        a, b = _raw(args[0]), _raw(args[1])
    return Value(F.coalesce(a.eqNullSafe(b), F.lit(False)), "bool")


@fn("bytes", "compareTo", 2, 6, doc="Bytes.compareTo: unsigned lexicographic; the byte difference or the length "
    "difference")
def _compare_to(c: Compiling, node: Expr, args: list[Value]) -> Value:
    if len(args) == 6:
        a = _slice(_raw(args[0]), _i(args[1]), _i(args[2]))
        b = _slice(_raw(args[3]), _i(args[4]), _i(args[5]))
    else:
        a, b = _raw(args[0]), _raw(args[1])
    ha, hb = F.regexp_extract_all(F.hex(a), F.lit("(..)"), 1), F.regexp_extract_all(F.hex(b), F.lit("(..)"), 1)
    at = _mismatch_of(ha, hb)
    diff = F.conv(F.element_at(ha, at + 1), 16, 10).cast("int") - F.conv(F.element_at(hb, at + 1), 16, 10).cast(
        "int")
    return _int(F.when(at == -1, 0).when(at >= F.least(F.size(ha), F.size(hb)), F.length(a) - F.length(b))
                .otherwise(diff))


def _bytes_hash(raw: Column) -> Column:
    """WritableComparator.hashBytes: 31·h + each (signed) byte, from 1."""
    hexes = F.regexp_extract_all(F.hex(raw), F.lit("(..)"), 1)
    return F.aggregate(hexes, F.lit(1), lambda h, x: (h.cast("bigint") * 31 + F.when(
        F.conv(x, 16, 10).cast("int") > 127, F.conv(x, 16, 10).cast("int") - 256).otherwise(
        F.conv(x, 16, 10).cast("int"))).cast("int"))


@fn("bytes", "hashCode", 1, 3, doc="Bytes.hashCode(bytes[, offset, length]): 31·h + each signed byte")
def _bytes_hash_code(c: Compiling, node: Expr, args: list[Value]) -> Value:
    raw = _raw(args[0])
    if len(args) == 3:
        raw = _slice(raw, _i(args[1]), _i(args[2]))
    elif len(args) == 2:
        raw = _slice(raw, F.lit(0), _i(args[1]))
    return _int(_bytes_hash(raw))


@fn("bytes", "hashBytes", 2, 3, doc="Bytes.hashBytes(bytes, length[, offset])")
def _hash_bytes(c: Compiling, node: Expr, args: list[Value]) -> Value:
    offset = _i(args[2]) if len(args) == 3 else F.lit(0)
    return _int(_bytes_hash(_slice(_raw(args[0]), offset, _i(args[1]))))


@fn("bytes", "incrementBytes", 2, doc="Bytes.incrementBytes(bytes, amount): the bytes as a big-endian signed "
    "number plus amount (8 bytes or fewer)")
def _increment(c: Compiling, node: Expr, args: list[Value]) -> Value:
    raw, amount = _raw(args[0]), _number_arg(c, args[1], "long")
    size = F.length(raw)
    value = _signed(F.unhex(F.lpad(F.hex(raw), 16, F.when(F.hex(raw).rlike("^[89A-F]"), F.lit("F")).otherwise(
        F.lit("0")))), 8).cast("bigint") + amount
    digits = F.lpad(F.hex(value), 16, F.when(value < 0, F.lit("F")).otherwise(F.lit("0")))
    return _binary(F.unhex(F.substring(digits, F.greatest(17 - size * 2, F.lit(1)), F.greatest(size, F.lit(8)) * 2)))


@fn("bytes", "stopKeyForPrefix", 1, doc="Bytes.stopKeyForPrefix: the prefix with its last byte below 0xFF "
    "incremented and what follows cut; null when every byte is 0xFF")
def _stop_key(c: Compiling, node: Expr, args: list[Value]) -> Value:
    digits = F.regexp_replace(F.upper(F.hex(_raw(args[0]))), "(FF)+$", "")
    head, last = F.substring(digits, 1, F.length(digits) - 2), F.substring(digits, -2, 2)
    bumped = F.lpad(F.hex(F.conv(last, 16, 10).cast("int") + 1), 2, "0")
    return _binary(F.when(F.length(digits) > 0, F.unhex(F.concat(head, bumped))))


@fn("bytes", "toByteArrays", 1, doc="Bytes.toByteArrays(strings[]): each text as UTF-8 bytes")
def _to_byte_arrays(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return Value(F.transform(_text_items(args[0]), lambda t: F.encode(t, "UTF-8")), "array", element="binary")


@fn("bytes", "toUUID", 1, doc="Bytes.toUUID: 16 bytes as a UUID text")
def _to_uuid(c: Compiling, node: Expr, args: list[Value]) -> Value:
    raw = _raw(args[0])
    c.fail_when(raw.isNotNull() & (F.length(raw) != 16), "a UUID needs 16 bytes")
    h = F.lower(F.hex(raw))
    return Value(F.concat_ws("-", F.substring(h, 1, 8), F.substring(h, 9, 4), F.substring(h, 13, 4),
                             F.substring(h, 17, 4), F.substring(h, 21, 12)), "string")


@fn("bytes", "mapKey", 1, 2, doc="Bytes.mapKey(key[, salt buckets]): the key with its hashCode's low byte in front")
def _map_key(c: Compiling, node: Expr, args: list[Value]) -> Value:
    raw = _raw(args[0])
    salt = F.pmod(_bytes_hash(raw), _i(args[1])) if len(args) == 2 else F.pmod(_bytes_hash(raw), F.lit(256))
    return _binary(F.concat(F.unhex(F.lpad(F.hex(salt), 2, "0")), raw))


def _put(size: Callable[[list[Value]], Column], name: str) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        raw, offset = _raw(args[0]), _i(args[1])
        end = offset + size(args)
        c.fail_when(raw.isNotNull() & ((offset < 0) | (end > F.length(raw))), f"{name}: not enough room in the array")
        return _int(end)
    return apply


for _name, _size in (("putByte", 1), ("putShort", 2), ("putInt", 4), ("putFloat", 4), ("putLong", 8),
                     ("putDouble", 8)):
    fn("bytes", _name, 3, doc=f"Bytes.{_name}(bytes, offset, value): the offset after the value ({_size} bytes); "
       "the array itself cannot change inside an expression")((lambda n, name: _put(lambda a: F.lit(n), name))(
           _size, _name))
fn("bytes", "putBytes", 5, doc="Bytes.putBytes(target, offset, source, srcOffset, length): the offset after the "
   "bytes")(_put(lambda a: _i(a[4]), "putBytes"))
fn("bytes", "putBigDecimal", 3, doc="Bytes.putBigDecimal(bytes, offset, value): the offset after the value")(
    _put(lambda a: F.length(_to_bytes(None, None, [a[2]]).col), "putBigDecimal"))  # type: ignore[arg-type]


# -- bare functions with no arguments -------------------------------------------------------------------------------
def _widen(name: str) -> None:
    spec = FUNCTIONS[(None, name)]

    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        if not args:
            return Value(F.lit(None).cast("string"), "null")
        return spec.impl(c, node, args)
    fn(None, name, 0, MANY, doc=spec.doc + " (no argument: null)")(apply)


_widen("coalesce")
_widen("rcoalesce")
