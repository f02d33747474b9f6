"""The functions and methods an expression may call on Spark, each mapped to built-in Spark functions.

Wrangler registers Java classes as JEXL namespaces (EL.DefaultFunctions): bare functions from
`Global`, `math:` java.lang.Math, `string:` commons-lang StringUtils, `strings:` Guava Strings,
`bytes:` CDAP Bytes, `json:`, `date:` Dates, `datetime:` DateAndTime, `logical:` Logical, and more.
This module holds the table, the helpers and the first functions; the `lib_*` modules imported at the
end register the rest of each family. `docs/expressions.md` is generated from the same table
(`scripts/gen_expression_docs.py`), so the docs cannot drift from the code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyspark.sql import Column
from pyspark.sql import functions as F

from directives.spark.expr import byte_codecs
from directives.spark.expr.values import (
    NANOS,
    NUMERIC,
    Compiling,
    Value,
    as_number,
    cast_value,
    constant,
    java_string,
    truthy,
    unify,
)

if TYPE_CHECKING:
    from grammar.expression import Expr

Impl = Callable[["Compiling", "Expr", list[Value]], Value]

#: Namespaces Wrangler registers, with the Java class behind each.
NAMESPACES: dict[str, str] = {
    "math": "java.lang.Math",
    "string": "commons-lang StringUtils",
    "strings": "Guava Strings",
    "bytes": "CDAP Bytes",
    "json": "Wrangler JsonFunctions",
    "date": "Wrangler Dates",
    "datetime": "Wrangler DateAndTime",
    "logical": "Wrangler Logical",
    "arrays": "java.util.Arrays",
    "escape": "commons-lang3 StringEscapeUtils",
    "dq": "Wrangler DataQuality",
    "ddl": "Wrangler DDL",
    "geo": "Wrangler GeoFences",
    "arithmetic": "Wrangler ArithmeticOperations",
    "decimal": "Wrangler DecimalTransform",
    "number": "Wrangler NumberFunctions",
}


@dataclass(frozen=True)
class Function:
    impl: Impl
    min_args: int
    max_args: int
    doc: str
    #: The argument counts Wrangler's overloads take, when they are not every count from min to max.
    counts: frozenset[int] | None = None

    def accepts(self, count: int) -> bool:
        if not self.min_args <= count <= self.max_args:
            return False
        return self.counts is None or count in self.counts or (count > MANY and MANY in self.counts)

    def arity_text(self) -> str:
        if self.counts is not None:
            start = MANY + 1
            while start - 1 in self.counts:  # where varargs begin
                start -= 1
            shown = sorted(n for n in self.counts if n < start)
            parts = [str(n) for n in shown] + ([f"{start} or more"] if start <= MANY else [])
            return f"{' or '.join(parts)} argument{'s' if parts != ['1'] else ''}"
        if self.min_args == self.max_args:
            return f"{self.min_args} argument{'s' if self.min_args != 1 else ''}"
        if self.max_args >= 99:
            return f"at least {self.min_args} arguments"
        return f"{self.min_args} to {self.max_args} arguments"


FUNCTIONS: dict[tuple[str | None, str], Function] = {}
METHODS: dict[str, Function] = {}
ROW_METHODS: dict[str, Function] = {}
MANY = 99


def fn(namespace: str | None, names: str, min_args: int, max_args: int | None = None, doc: str = ""
       ) -> Callable[[Impl], Impl]:
    """Register one implementation under one or more names (space-separated) of a namespace."""
    def register(impl: Impl) -> Impl:
        for name in names.split():
            FUNCTIONS[(namespace, name)] = Function(impl, min_args, min_args if max_args is None else max_args, doc)
        return impl
    return register


def method(names: str, min_args: int, max_args: int | None = None, doc: str = "") -> Callable[[Impl], Impl]:
    """Register a method on values (`a.trim()`); the target is the first argument (counts exclude it)."""
    def register(impl: Impl) -> Impl:
        for name in names.split():
            METHODS[name] = Function(impl, min_args, min_args if max_args is None else max_args, doc)
        return impl
    return register


# -- small helpers --------------------------------------------------------------------------------------------------
def _s(value: Value) -> Column:
    return java_string(value)


def _i(value: Value) -> Column:
    return as_number(value, "int")


def _d(value: Value) -> Column:
    return as_number(value, "double")


def _text(column: Column) -> Value:
    return Value(column, "string")


def _bool(column: Column) -> Value:
    return Value(column, "bool")


def _int(column: Column) -> Value:
    return cast_value(column, "int")


def _long(column: Column) -> Value:
    return cast_value(column, "long")


def _double(column: Column) -> Value:
    return cast_value(column, "double")


def _literal_text(c: Compiling, node: Expr, value: Value, what: str) -> str:
    if not value.is_literal or not isinstance(value.literal, str):
        raise c.error(node, f"The {what} must be a constant text ('…') on Spark.")
    return value.literal


def _not_null(c: Compiling, value: Value, reason: str) -> None:
    if value.kind == "null":
        c.fail_when(F.lit(True), reason)
    else:
        c.fail_when(value.col.isNull(), reason)


def _number_arg(c: Compiling, value: Value, kind: str) -> Column:
    number = as_number(value, kind)
    if value.kind not in NUMERIC and value.kind not in ("null", "bool"):
        c.fail_when(value.col.isNotNull() & number.isNull(), "a value is not a number")
    return number


# -- Global (no namespace) ------------------------------------------------------------------------------------------
def _converter(kind: str) -> Impl:
    def convert(c: Compiling, node: Expr, args: list[Value]) -> Value:
        (value,) = args
        _not_null(c, value, "null argument to a conversion function")
        return Value(_number_arg(c, value, kind), kind)
    return convert


for _name, _kind in (("toDouble", "double"), ("toFloat", "double"), ("toLong", "long"), ("toInteger", "int")):
    fn(None, _name, 1, doc=f"text → {_kind}; text that is not a number fails the row")(_converter(_kind))


@fn(None, "toBytes", 1, doc="UTF-8 bytes of a text")
def _to_bytes(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return Value(F.encode(_s(args[0]), "UTF-8"), "binary")


@fn(None, "concat", 2, 3, doc="concat(a, b) / concat(a, sep, b); a null side is skipped")
def _concat(c: Compiling, node: Expr, args: list[Value]) -> Value:
    if len(args) == 2:
        a, b = _s(args[0]), _s(args[1])
        return _text(F.when(a.isNull(), b).when(b.isNull(), a).otherwise(F.concat(a, b)))
    a, sep, b = (_s(v) for v in args)
    c.fail_when(a.isNull() & b.isNull(), "concat of two null values")
    return _text(F.when(a.isNull(), F.concat(sep, b)).when(b.isNull(), F.concat(a, sep)).otherwise(F.concat(a, sep, b)))


@fn(None, "coalesce", 1, MANY, doc="first non-null argument")
def _coalesce(c: Compiling, node: Expr, args: list[Value]) -> Value:
    kind, columns = unify(args)
    return Value(F.coalesce(*columns), kind)


@fn(None, "rcoalesce", 1, MANY, doc="last non-null argument")
def _rcoalesce(c: Compiling, node: Expr, args: list[Value]) -> Value:
    kind, columns = unify(args)
    return Value(F.coalesce(*reversed(columns)), kind)


@fn(None, "format", 1, MANY, doc="String.format with a constant format (Spark format_string)")
def _format(c: Compiling, node: Expr, args: list[Value]) -> Value:
    pattern = _literal_text(c, node, args[0], "format")
    return _text(F.format_string(pattern, *(v.col if v.kind != "null" else F.lit(None).cast("string")
                                            for v in args[1:])))


#: The longest text a function may build on one row: past it the row fails instead of the JVM running out of
#: memory (which would end the whole job, and in Wrangler the pipeline).
MAX_BUILT_TEXT = 100_000_000


def _unless_too_long(c: Compiling, length: Column, value: Column, unit: str = "characters",
                     limit: int = MAX_BUILT_TEXT) -> Column:
    """The value, or null and a failed row when it would be longer than ``limit`` (never built then)."""
    c.fail_when(length > limit, f"the result would be longer than {limit} {unit}")
    return F.when(length <= limit, value)


def _pad(left: bool) -> Impl:
    def pad(c: Compiling, node: Expr, args: list[Value]) -> Value:
        text, width, char = _s(args[0]), _i(args[1]), _s(args[2])
        _not_null(c, args[0], "null text to pad")
        padded = F.lpad(text, width, char) if left else F.rpad(text, width, char)
        return _text(F.when(F.length(text) >= width, text).otherwise(_unless_too_long(c, width, padded)))
    return pad


fn(None, "padAtStart", 3, doc="Guava padStart(text, minLength, char)")(_pad(True))
fn(None, "padAtEnd", 3, doc="Guava padEnd(text, minLength, char)")(_pad(False))
fn("strings", "padStart", 3, doc="Guava padStart")(_pad(True))
fn("strings", "padEnd", 3, doc="Guava padEnd")(_pad(False))


@fn(None, "repeat", 2, doc="text repeated n times")
@fn("strings", "repeat", 2, doc="text repeated n times")
def _repeat(c: Compiling, node: Expr, args: list[Value]) -> Value:
    length = F.length(_s(args[0])).cast("bigint") * _i(args[1])
    return _text(_unless_too_long(c, length, F.repeat(_s(args[0]), _i(args[1]))))


@fn(None, "unquote", 1, doc="strip one pair of surrounding single or double quotes")
def _unquote(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text = _s(args[0])
    quoted = (F.length(text) >= 2) & (
        (text.startswith('"') & text.endswith('"')) | (text.startswith("'") & text.endswith("'")))
    return _text(F.when(quoted, text.substr(F.lit(2), F.length(text) - 2)).otherwise(text))


@fn(None, "IsNotNull", 1, doc="value is not null")
def _is_not_null(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _bool(args[0].col.isNotNull() if args[0].kind != "null" else F.lit(False))


@fn(None, "IsNull", 1, doc="value is null")
def _is_null(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _bool(args[0].col.isNull() if args[0].kind != "null" else F.lit(True))


def _null_to(default: object, kind_of_default: str) -> Impl:
    def replace(c: Compiling, node: Expr, args: list[Value]) -> Value:
        kind, columns = unify([args[0], constant(default, kind_of_default)])
        return Value(F.coalesce(*columns), kind)
    return replace


fn(None, "NullToEmpty", 1, doc="null → ''")(_null_to("", "string"))
fn(None, "NullToZero", 1, doc="null → 0")(_null_to(0, "int"))


@fn(None, "NullToValue", 2, doc="null → the second argument")
def _null_to_value(c: Compiling, node: Expr, args: list[Value]) -> Value:
    kind, columns = unify(args)
    return Value(F.coalesce(*columns), kind)


@fn(None, "empty", 1, doc="JEXL `empty x`: null, '' or an empty array")
def _empty(c: Compiling, node: Expr, args: list[Value]) -> Value:
    value = args[0]
    if value.kind == "null":
        return _bool(F.lit(True))
    if value.kind == "string":
        return _bool(value.col.isNull() | (F.length(value.col) == 0))
    if value.kind in ("array", "map"):
        return _bool(value.col.isNull() | (F.size(value.col) == 0))
    return _bool(value.col.isNull())


@fn(None, "size", 1, doc="JEXL `size x`: length of a text, number of array items; 0 for null")
def _size(c: Compiling, node: Expr, args: list[Value]) -> Value:
    value = args[0]
    if value.kind == "null":
        return _int(F.lit(0))
    if value.kind in ("array", "map"):
        return _int(F.coalesce(F.size(value.col), F.lit(0)))
    return _int(F.coalesce(F.length(_s(value)), F.lit(0)))


# -- math: java.lang.Math -------------------------------------------------------------------------------------------
def _math1(function: Callable[[Column], Column], result: str = "double") -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        _not_null(c, args[0], "null argument to a math function")
        column = function(_number_arg(c, args[0], "double"))
        return Value(column.cast("bigint" if result == "long" else "double"), result)
    return apply


for _names, _function in (
    ("ceil", F.ceil), ("floor", F.floor), ("sqrt", F.sqrt), ("cbrt", F.cbrt), ("exp", F.exp), ("expm1", F.expm1),
    ("log", F.log), ("log10", F.log10), ("log1p", F.log1p), ("sin", F.sin), ("cos", F.cos), ("tan", F.tan),
    ("asin", F.asin), ("acos", F.acos), ("atan", F.atan), ("sinh", F.sinh), ("cosh", F.cosh), ("tanh", F.tanh),
    ("toRadians", F.radians), ("toDegrees", F.degrees), ("signum", F.signum), ("rint", F.rint),
):
    fn("math", _names, 1, doc=f"Math.{_names} (double)")(_math1(_function))


@fn("math", "round", 1, doc="Math.round: half up, to a long")
def _round(c: Compiling, node: Expr, args: list[Value]) -> Value:
    _not_null(c, args[0], "null argument to a math function")
    return _long(F.floor(_number_arg(c, args[0], "double") + F.lit(0.5)))


@fn("math", "abs", 1, doc="Math.abs, keeps the number type")
def _abs(c: Compiling, node: Expr, args: list[Value]) -> Value:
    value = args[0]
    _not_null(c, value, "null argument to a math function")
    kind = value.kind if value.kind in NUMERIC else "double"
    return Value(F.abs(_number_arg(c, value, kind)), kind)


def _math2(function: Callable[[Column, Column], Column]) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        for value in args:
            _not_null(c, value, "null argument to a math function")
        return _double(function(_number_arg(c, args[0], "double"), _number_arg(c, args[1], "double")))
    return apply


fn("math", "pow", 2, doc="Math.pow")(_math2(F.pow))
fn("math", "atan2", 2, doc="Math.atan2")(_math2(F.atan2))
fn("math", "hypot", 2, doc="Math.hypot")(_math2(F.hypot))


def _extreme(greatest: bool) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        for value in args:
            _not_null(c, value, "null argument to a math function")
        kind = "int"
        for value in args:
            kind = "decimal" if "decimal" in (kind, value.kind) else (
                "double" if "double" in (kind, value.kind) or value.kind not in NUMERIC else
                "long" if "long" in (kind, value.kind) else "int")
        columns = [_number_arg(c, value, kind) for value in args]
        return Value(F.greatest(*columns) if greatest else F.least(*columns), kind)
    return apply


fn("math", "max", 2, doc="Math.max")(_extreme(True))
fn("math", "min", 2, doc="Math.min")(_extreme(False))


# -- string: commons-lang StringUtils (null-safe: a null text gives null, or false/0 for tests) ------------------
def _str1(function: Callable[[Column], Column]) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        return _text(function(_s(args[0])))
    return apply


_WHITESPACE = r"[\s\u00a0\u1680\u180e\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
for _names, _function in (
    ("trim", lambda s: F.regexp_replace(s, r"^[\x00-\x20]+|[\x00-\x20]+$", "")),
    ("upperCase", F.upper), ("lowerCase", F.lower), ("reverse", F.reverse),
    ("capitalize", lambda s: F.concat(F.upper(F.substring(s, 1, 1)), F.substring(s, 2, 1 << 30))),
    ("uncapitalize", lambda s: F.concat(F.lower(F.substring(s, 1, 1)), F.substring(s, 2, 1 << 30))),
    ("deleteWhitespace", lambda s: F.regexp_replace(s, r"\s+", "")),
    ("normalizeSpace", lambda s: F.regexp_replace(F.trim(s), r"\s+", " ")),
    ("chop", lambda s: s.substr(F.lit(1), F.greatest(F.length(s) - 1, F.lit(0)))),
    ("trimToEmpty", lambda s: F.coalesce(F.trim(s), F.lit(""))),
    ("trimToNull", lambda s: F.when(F.trim(s) != "", F.trim(s))),
    ("stripToEmpty", lambda s: F.coalesce(F.regexp_replace(s, rf"^{_WHITESPACE}+|{_WHITESPACE}+$", ""), F.lit(""))),
    ("swapCase", lambda s: F.translate(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
                                       "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")),
):
    fn("string", _names, 1, doc=f"StringUtils.{_names}")(_str1(_function))


def _test1(function: Callable[[Column], Column]) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        if args[0].kind == "null":
            return _bool(function(F.lit(None).cast("string")))
        return _bool(function(_s(args[0])))
    return apply


for _names, _function in (
    ("isEmpty", lambda s: s.isNull() | (F.length(s) == 0)),
    ("isNotEmpty", lambda s: s.isNotNull() & (F.length(s) > 0)),
    ("isBlank", lambda s: s.isNull() | (F.trim(s) == "")),
    ("isNotBlank", lambda s: s.isNotNull() & (F.trim(s) != "")),
    ("isNumeric", lambda s: F.coalesce(s.rlike(r"^\d*$"), F.lit(False))),
    ("isAlpha", lambda s: F.coalesce(s.rlike(r"^\p{L}*$"), F.lit(False))),
    ("isAlphanumeric", lambda s: F.coalesce(s.rlike(r"^[\p{L}\p{Nd}]*$"), F.lit(False))),
    ("isAllLowerCase", lambda s: F.coalesce(s.rlike(r"^\p{Ll}+$"), F.lit(False))),
    ("isAllUpperCase", lambda s: F.coalesce(s.rlike(r"^\p{Lu}+$"), F.lit(False))),
):
    fn("string", _names, 1, doc=f"StringUtils.{_names}")(_test1(_function))
fn("strings", "isNullOrEmpty", 1, doc="Guava Strings.isNullOrEmpty")(
    _test1(lambda s: s.isNull() | (F.length(s) == 0)))
fn("strings", "nullToEmpty", 1, doc="Guava Strings.nullToEmpty")(_str1(lambda s: F.coalesce(s, F.lit(""))))
fn("strings", "emptyToNull", 1, doc="Guava Strings.emptyToNull")(_str1(lambda s: F.when(s != "", s)))


@fn("string", "length", 1, doc="StringUtils.length (0 for null)")
def _length(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _int(F.coalesce(F.length(_s(args[0])), F.lit(0)))


@fn("string", "left", 2, doc="StringUtils.left(text, n)")
def _left(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text, n = _s(args[0]), _i(args[1])
    return _text(text.substr(F.lit(1), F.greatest(n, F.lit(0))))


@fn("string", "right", 2, doc="StringUtils.right(text, n)")
def _right(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text, n = _s(args[0]), _i(args[1])
    start = F.greatest(F.length(text) - n + 1, F.lit(1))
    return _text(F.when(n <= 0, F.lit("")).otherwise(text.substr(start, F.greatest(n, F.lit(0)))))


@fn("string", "mid", 3, doc="StringUtils.mid(text, pos, len)")
def _mid(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text, pos, size = _s(args[0]), F.greatest(_i(args[1]), F.lit(0)), _i(args[2])
    return _text(F.when(size < 0, F.lit("")).otherwise(text.substr(pos + 1, F.greatest(size, F.lit(0)))))


@fn("string", "substring", 2, 3, doc="StringUtils.substring(text, start[, end]); negative counts from the end")
def _substring(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text = _s(args[0])
    length = F.length(text)

    def clamp(index: Column) -> Column:
        index = F.when(index < 0, length + index).otherwise(index)
        return F.least(F.greatest(index, F.lit(0)), length)

    start = clamp(_i(args[1]))
    end = clamp(_i(args[2])) if len(args) == 3 else length
    return _text(F.when(start >= end, F.when(text.isNotNull(), F.lit(""))).otherwise(
        text.substr(start + 1, end - start)))


def _affix(before: bool, last: bool) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        text, sep = _s(args[0]), _s(args[1])
        if last:
            from_end = F.instr(F.reverse(text), F.reverse(sep))
            position = F.when(from_end > 0, F.length(text) - from_end - F.length(sep) + 2).otherwise(0)
        else:
            position = F.instr(text, sep)
        found = position > 0
        if before:  # not found: the whole text
            piece, missing = text.substr(F.lit(1), position - 1), text
        else:  # not found: ''
            piece, missing = text.substr(position + F.length(sep), F.lit(1 << 30)), F.lit("")
        return _text(F.when(sep.isNull() | text.isNull(), text).when(found, piece).otherwise(missing))
    return apply


fn("string", "substringBefore", 2, doc="StringUtils.substringBefore")(_affix(True, False))
fn("string", "substringBeforeLast", 2, doc="StringUtils.substringBeforeLast")(_affix(True, True))
fn("string", "substringAfter", 2, doc="StringUtils.substringAfter")(_affix(False, False))
fn("string", "substringAfterLast", 2, doc="StringUtils.substringAfterLast")(_affix(False, True))


@fn("string", "remove", 2, doc="StringUtils.remove(text, what)")
def _remove(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _text(F.replace(_s(args[0]), _s(args[1]), F.lit("")))


def _contains(ignore_case: bool) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        text, part = _s(args[0]), _s(args[1])
        if ignore_case:
            text, part = F.lower(text), F.lower(part)
        return _bool(F.coalesce(F.contains(text, part), F.lit(False)))
    return apply


fn("string", "contains", 2, doc="StringUtils.contains")(_contains(False))
fn("string", "containsIgnoreCase", 2, doc="StringUtils.containsIgnoreCase")(_contains(True))


def _starts(start: bool, ignore_case: bool) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        text, part = _s(args[0]), _s(args[1])
        if ignore_case:
            text, part = F.lower(text), F.lower(part)
        hit = text.startswith(part) if start else text.endswith(part)
        both_null = text.isNull() & part.isNull()
        return _bool(both_null | F.coalesce(hit, F.lit(False)))
    return apply


fn("string", "startsWith", 2, doc="StringUtils.startsWith")(_starts(True, False))
fn("string", "endsWith", 2, doc="StringUtils.endsWith")(_starts(False, False))
fn("string", "startsWithIgnoreCase", 2, doc="StringUtils.startsWithIgnoreCase")(_starts(True, True))
fn("string", "endsWithIgnoreCase", 2, doc="StringUtils.endsWithIgnoreCase")(_starts(False, True))


def _index_of(last: bool) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        text, part = _s(args[0]), _s(args[1])
        if last:
            reversed_at = F.instr(F.reverse(text), F.reverse(part))
            position = F.when(reversed_at > 0, F.length(text) - F.length(part) - reversed_at + 1).otherwise(-1)
        else:
            position = F.instr(text, part) - 1
        return _int(F.coalesce(position, F.lit(-1)))
    return apply


fn("string", "indexOf", 2, doc="StringUtils.indexOf (-1 when absent or null)")(_index_of(False))
fn("string", "lastIndexOf", 2, doc="StringUtils.lastIndexOf")(_index_of(True))


def spaces_unless_empty(pad: Column) -> Column:
    """The padding text StringUtils uses: a null or empty one pads with spaces (Spark's lpad would pad with nothing
    or give null)."""
    return F.when(F.coalesce(F.length(pad), F.lit(0)) == 0, F.lit(" ")).otherwise(pad)


def _string_pad(left: bool) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        text, width = _s(args[0]), _i(args[1])
        pad = spaces_unless_empty(_s(args[2])) if len(args) == 3 else F.lit(" ")
        padded = F.lpad(text, width, pad) if left else F.rpad(text, width, pad)
        # only a text shorter than the width is padded: a null text (null) or a long one (itself) never fails
        return _text(F.when(F.length(text) >= width, text).otherwise(
            _unless_too_long(c, F.when(F.length(text) < width, width), padded)))
    return apply


fn("string", "leftPad", 2, 3, doc="StringUtils.leftPad(text, size[, pad])")(_string_pad(True))
fn("string", "rightPad", 2, 3, doc="StringUtils.rightPad(text, size[, pad])")(_string_pad(False))


@fn("string", "defaultString", 1, 2, doc="StringUtils.defaultString: null → '' (or the default)")
def _default_string(c: Compiling, node: Expr, args: list[Value]) -> Value:
    default = _s(args[1]) if len(args) == 2 else F.lit("")
    return _text(F.coalesce(_s(args[0]), default))


@fn("string", "defaultIfEmpty", 2, doc="StringUtils.defaultIfEmpty")
def _default_if_empty(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text = _s(args[0])
    return _text(F.when(text.isNull() | (F.length(text) == 0), _s(args[1])).otherwise(text))


@fn("string", "defaultIfBlank", 2, doc="StringUtils.defaultIfBlank")
def _default_if_blank(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text = _s(args[0])
    return _text(F.when(text.isNull() | (F.trim(text) == ""), _s(args[1])).otherwise(text))


@fn("string", "countMatches", 2, doc="StringUtils.countMatches (literal)")
def _count_matches(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text, part = _s(args[0]), _s(args[1])
    count = (F.length(text) - F.length(F.replace(text, part, F.lit("")))) / F.length(part)
    return _int(F.when((F.length(part) > 0) & text.isNotNull(), count).otherwise(0))


def _equals(ignore_case: bool) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        a, b = _s(args[0]), _s(args[1])
        if ignore_case:
            a, b = F.lower(a), F.lower(b)
        return _bool(a.eqNullSafe(b))
    return apply


fn("string", "equals", 2, doc="StringUtils.equals (null-safe)")(_equals(False))
fn("string", "equalsIgnoreCase", 2, doc="StringUtils.equalsIgnoreCase")(_equals(True))


# -- bytes: CDAP Bytes ----------------------------------------------------------------------------------------------
def _bytes_to_integral(size: int, kind: str) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        value = args[0]
        raw = value.col if value.kind == "binary" else F.encode(_s(value), "UTF-8")
        c.fail_when(raw.isNotNull() & (F.length(raw) < size), f"fewer than {size} bytes")
        signed = byte_codecs.signed_integer(F.substring(raw, 1, size), size)
        return Value(signed.cast({"int": "int", "long": "bigint", "short": "smallint"}[kind]),
                     "int" if kind == "short" else kind)
    return apply


fn("bytes", "toInt", 1, doc="big-endian int of the first 4 bytes")(_bytes_to_integral(4, "int"))
fn("bytes", "toLong", 1, doc="big-endian long of the first 8 bytes")(_bytes_to_integral(8, "long"))
fn("bytes", "toShort", 1, doc="big-endian short of the first 2 bytes")(_bytes_to_integral(2, "short"))


@fn("bytes", "toBoolean", 1, doc="first byte ≠ 0")
def _bytes_to_boolean(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _bool(F.hex(F.substring(args[0].col, 1, 1)) != "00")


# -- json -------------------------------------------------------------------------------------------------------------
def _json_text(value: Value) -> Column:
    return F.to_json(value.col) if value.kind == "variant" else _s(value)


@fn("json", "IsValid isValid", 1, doc="text parses as JSON")
def _json_is_valid(c: Compiling, node: Expr, args: list[Value]) -> Value:
    if args[0].kind == "null":
        return _bool(F.lit(False))
    return _bool(F.coalesce(F.try_parse_json(_json_text(args[0])).isNotNull(), F.lit(False)))


@fn("json", "ArrayLength arrayLength", 1, doc="number of items of a JSON array")
def _json_array_length(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _int(F.json_array_length(_json_text(args[0])))


@fn("json", "Stringify", 1, doc="JSON value → text")
def _json_stringify(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _text(_json_text(args[0]))


# -- logical: Wrangler Logical ----------------------------------------------------------------------------------------
def _bit(op: Callable[[Column, Column], Column]) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        a, b = (_number_arg(c, v, "long") for v in args)
        return _long(op(a, b))
    return apply


for _name, _op, _symbol in (("BitAnd", Column.bitwiseAND, "&"), ("BitOr", Column.bitwiseOR, "|"),
                            ("BitXor", Column.bitwiseXOR, "^")):
    fn("logical", _name, 2, doc=f"a {_symbol} b (long)")(_bit(_op))


@fn("logical", "Not", 1, doc="1 unless the number is negative / the text is null, else 0 (as Wrangler)")
def _logical_not(c: Compiling, node: Expr, args: list[Value]) -> Value:
    value = args[0]
    if value.kind in NUMERIC:
        return _int(F.when(value.col < 0, 0).otherwise(1))
    return _int(F.when(value.col.isNull(), 0).otherwise(1))


@fn("logical", "BitCompress", 1, doc="binary text → long")
def _bit_compress(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _long(F.conv(_s(args[0]), 2, 10).cast("decimal(20,0)"))


@fn("logical", "BitExpand", 1, doc="long → binary text")
def _bit_expand(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _text(F.bin(_number_arg(c, args[0], "long")))


# -- date: Wrangler Dates (ZonedDateTime → Spark timestamp, UTC) ------------------------------------------------------
def _timestamp(c: Compiling, value: Value, name: str) -> Column:
    _not_null(c, value, f"Date can not be null for {name}")
    if value.kind in ("timestamp", "date"):
        return value.col.cast("timestamp")
    parsed = F.try_to_timestamp(_s(value))
    c.fail_when(value.col.isNotNull() & parsed.isNull(), "value is not a date")
    return parsed


def _date_part(name: str, function: Callable[[Column], Column], kind: str = "int") -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        column = function(_timestamp(c, args[0], name))
        return Value(column.cast({"int": "int", "long": "bigint", "string": "string"}[kind]), kind)
    return apply


for _names, _function, _kind in (
    ("UNIXTIMESTAMP_MILLIS", F.unix_millis, "long"),
    ("UNIXTIMESTAMP_SECONDS", F.unix_seconds, "long"),
    ("MONTH", F.month, "int"),
    ("MONTH_SHORT", lambda t: F.date_format(t, "MMM"), "string"),
    ("MONTH_LONG", lambda t: F.date_format(t, "MMMM"), "string"),
    ("YEAR", F.year, "int"),
    ("DAY_OF_WEEK", lambda t: (F.dayofweek(t) + 5) % 7 + 1, "int"),
    ("DAY_OF_WEEK_SHORT", lambda t: F.date_format(t, "EEE"), "string"),
    ("DAY_OF_WEEK_LONG", lambda t: F.date_format(t, "EEEE"), "string"),
    ("DAY_OF_YEAR", F.dayofyear, "int"),
    ("ERA", lambda t: F.when(F.year(t) > 0, 1).otherwise(0), "int"),
    ("ERA_SHORT", lambda t: F.date_format(t, "G"), "string"),
    ("ERA_LONG", lambda t: F.date_format(t, "GGGG"), "string"),
    ("DAYS_BETWEEN_NOW", lambda t: F.datediff(F.current_timestamp(), t), "int"),
):
    fn("date", _names, 1, doc=f"Dates.{_names}")(_date_part(_names, _function, _kind))


@fn("date", "DAYS_BETWEEN", 2, doc="whole days from the first date to the second")
def _days_between(c: Compiling, node: Expr, args: list[Value]) -> Value:
    first, second = _timestamp(c, args[0], "DAYS_BETWEEN"), _timestamp(c, args[1], "DAYS_BETWEEN")
    seconds = F.unix_seconds(second) - F.unix_seconds(first)
    return _int(F.when(seconds >= 0, F.floor(seconds / 86400)).otherwise(F.ceil(seconds / 86400)))


for _names, _seconds in (("SECONDS_TO_DAYS", 86400), ("SECONDS_TO_HOURS", 3600), ("SECONDS_TO_MINUTES", 60),
                         ("SECONDS_TO_WEEKS", 604800)):
    def _seconds_to(c: Compiling, node: Expr, args: list[Value], _per: int = _seconds) -> Value:
        seconds = _number_arg(c, args[0], "long")
        return _int(F.when(seconds >= 0, F.floor(seconds / _per)).otherwise(F.ceil(seconds / _per)))
    fn("date", _names, 1, doc=f"Dates.{_names} (truncating)")(_seconds_to)


# -- datetime: Wrangler DateAndTime (LocalDate → date, LocalDateTime → timestamp, LocalTime → nanos of day) -----------
_JULIAN_EPOCH = 2440588  # Julian day number of 1970-01-01


def _date(c: Compiling, value: Value) -> Column:
    _not_null(c, value, "null date")
    if value.kind == "date":
        return value.col
    if value.kind == "timestamp":
        return F.to_date(value.col)
    parsed = F.try_to_date(_s(value)) if hasattr(F, "try_to_date") else F.to_date(_s(value))
    c.fail_when(value.col.isNotNull() & parsed.isNull(), "value is not a date (yyyy-MM-dd)")
    return parsed


def _datetime(c: Compiling, value: Value) -> Column:
    _not_null(c, value, "null datetime")
    if value.kind in ("timestamp", "date"):
        return value.col.cast("timestamp")
    parsed = F.try_to_timestamp(_s(value))
    c.fail_when(value.col.isNotNull() & parsed.isNull(), "value is not a datetime (yyyy-MM-dd HH:mm:ss)")
    return parsed


def _time(c: Compiling, value: Value) -> Column:
    """A time of day as nanoseconds since midnight (Spark has no enabled TIME type)."""
    _not_null(c, value, "null time")
    if value.kind == "time":
        return value.col
    if value.kind == "timestamp":
        return (F.unix_micros(value.col) % F.lit(86_400_000_000)) * 1000
    text = _s(value)
    nanos = nanos_of_text(text)
    # LocalTime.parse refuses 24:00 and beyond, as Spark's TIME type does when the value is converted (by throwing)
    valid = nanos < _DAY_NANOS
    c.fail_when(text.isNotNull() & ~F.coalesce(valid, F.lit(False)), "value is not a time (HH:mm:ss)")
    return F.when(valid, nanos)


_DAY_NANOS = 86_400 * 1_000_000_000


_TIME_PATTERN = r"^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$"


def nanos_of_text(text: Column) -> Column:
    """`HH:mm[:ss[.f…]]` text (also a Spark TIME cast to text) → nanoseconds since midnight; null if malformed."""
    hours = F.regexp_extract(text, _TIME_PATTERN, 1)
    fraction = F.rpad(F.regexp_extract(text, _TIME_PATTERN, 4), 9, "0")
    nanos = ((hours.cast("bigint") * 60 + F.regexp_extract(text, _TIME_PATTERN, 2).cast("bigint")) * 60
             + F.coalesce(F.nullif(F.regexp_extract(text, _TIME_PATTERN, 3), F.lit("")).cast("bigint"), F.lit(0))
             ) * NANOS + fraction.cast("bigint")
    return F.when(text.rlike(_TIME_PATTERN), nanos)


@fn("datetime", "GetDate", 1, doc="text yyyy-MM-dd → date")
def _get_date(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return Value(_date(c, args[0]), "date")


@fn("datetime", "GetTime", 1, doc="text HH:mm[:ss[.fffffffff]] → time")
def _get_time(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return Value(_time(c, args[0]), "time")


def _local_datetime(column: Column) -> Value:
    """A Java LocalDateTime: Spark TIMESTAMP_NTZ (the session zone is UTC, so the wall clock is kept)."""
    return Value(column.cast("timestamp_ntz"), "timestamp")


@fn("datetime", "DateFromJulianDay", 1, doc="Julian day number → date")
def _date_from_julian(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return Value(F.date_from_unix_date((_number_arg(c, args[0], "long") - _JULIAN_EPOCH).cast("int")), "date")


@fn("datetime", "DateOffsetByDays", 2, doc="date plus n days")
def _date_offset(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return Value(F.date_add(_date(c, args[0]), _number_arg(c, args[1], "int")), "date")


@fn("datetime", "DaysSinceFromDate", 2, doc="days from the first date to the second (long)")
def _days_since(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _long(F.datediff(_date(c, args[1]), _date(c, args[0])))


@fn("datetime", "JulianDayFromDate", 1, doc="date → Julian day number (long)")
def _julian_day(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _long(F.unix_date(_date(c, args[0])).cast("bigint") + _JULIAN_EPOCH)


@fn("datetime", "YeardayFromDate", 1, doc="day of the year")
def _yearday(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _int(F.dayofyear(_date(c, args[0])))


@fn("datetime", "MonthDayFromDate", 1, doc="day of the month")
def _monthday(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _int(F.dayofmonth(_date(c, args[0])))


@fn("datetime", "MonthFromDate", 1, doc="month (1-12)")
def _month(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _int(F.month(_date(c, args[0])))


@fn("datetime", "YearFromDate", 1, doc="year")
def _year(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _int(F.year(_date(c, args[0])))


@fn("datetime", "SecondsFromTime", 1, doc="seconds field of a time")
def _seconds_from_time(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _int(F.floor(_time(c, args[0]) / NANOS) % 60)


@fn("datetime", "MinutesFromTime", 1, doc="minutes field of a time")
def _minutes_from_time(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _int(F.floor(_time(c, args[0]) / (60 * NANOS)) % 60)


@fn("datetime", "HoursFromTime", 1, doc="hours field of a time")
def _hours_from_time(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _int(F.floor(_time(c, args[0]) / (3600 * NANOS)))


@fn("datetime", "MidnightSecondsFromTime", 1, doc="seconds since midnight")
def _midnight_seconds(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _int(F.floor(_time(c, args[0]) / NANOS))


@fn("datetime", "NanoSecondsFromTime", 1, doc="nanoseconds field of a time")
def _nanos_from_time(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _int(_time(c, args[0]) % NANOS)


@fn("datetime", "TimeFromComponents", 4, doc="DateAndTime.TimeFromComponents(hours, minutes, seconds, "
    "microseconds) → time; a field out of range fails the row")
def _time_from_components(c: Compiling, node: Expr, args: list[Value]) -> Value:
    h, m, s, micros = (_number_arg(c, v, "long") for v in args)
    out_of_range = (h < 0) | (h > 23) | (m < 0) | (m > 59) | (s < 0) | (s > 59) | (micros < 0) | (micros > 999_999)
    c.fail_when(out_of_range, "time component out of range")
    # no value where a component is out of range: Spark's TIME type throws on one (and a failed row keeps none)
    return Value(F.when(~out_of_range, ((h * 60 + m) * 60 + s) * NANOS + micros * 1000), "time")


@fn("datetime", "DateTimeFromEpoch", 1, doc="seconds since the epoch → datetime (UTC)")
def _datetime_from_epoch(c: Compiling, node: Expr, args: list[Value]) -> Value:
    seconds = _number_arg(c, args[0], "long")
    # Spark's timestamps end where microseconds overflow a long (year ±294,247); timestamp_seconds throws past it
    in_range = seconds.between(-_MAX_EPOCH_SECONDS, _MAX_EPOCH_SECONDS)
    c.fail_when(seconds.isNotNull() & ~in_range, "seconds since the epoch out of the range of a datetime")
    return _local_datetime(F.timestamp_seconds(F.when(in_range, seconds)))


_MAX_EPOCH_SECONDS = (2**63 - 1) // 1_000_000


@fn("datetime", "EpochFromDateTime", 1, doc="datetime → seconds since the epoch (UTC)")
def _epoch_from_datetime(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _long(F.unix_seconds(_datetime(c, args[0])))


@fn("datetime", "DateTimeOffsetBySeconds", 2, doc="datetime plus seconds")
def _offset_seconds(c: Compiling, node: Expr, args: list[Value]) -> Value:
    seconds = _number_arg(c, args[1], "long")
    return _local_datetime(F.timestamp_micros(F.unix_micros(_datetime(c, args[0])) + seconds * 1_000_000))


@fn("datetime", "DateTimeOffsetByComponents", 7, doc="datetime plus years, months, days, hours, minutes, seconds")
def _offset_components(c: Compiling, node: Expr, args: list[Value]) -> Value:
    base = _datetime(c, args[0])
    years, months, days, hours, minutes, seconds = (_number_arg(c, v, "int") for v in args[1:])
    shifted = F.add_months(base, years * 12 + months)  # keeps the time of day only as a date
    moved = F.timestamp_micros(F.unix_micros(F.to_timestamp(shifted)) + (F.unix_micros(base) % 86_400_000_000))
    offset = ((days.cast("bigint") * 24 + hours) * 60 + minutes) * 60 + seconds
    return _local_datetime(F.timestamp_micros(F.unix_micros(moved) + offset * 1_000_000))


@fn("datetime", "CurrentDate", 0, doc="today (UTC)")
def _current_date(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return Value(F.current_date(), "date")


@fn("datetime", "CurrentDateTime", 0, doc="now (UTC)")
def _current_datetime(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _local_datetime(F.current_timestamp())


# -- methods on values (Java String / Number / List) ------------------------------------------------------------------
def _null_target(c: Compiling, target: Value, name: str) -> None:
    _not_null(c, target, f"method {name}() called on a null value")


def _string_method(name: str, function: Callable[..., Column], kind: str = "string") -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        _null_target(c, args[0], name)
        column = function(*(_s(v) for v in args))
        return cast_value(column, "int") if kind == "int" else Value(column, kind)
    return apply


for _names, _function, _kind, _count in (
    ("trim", lambda s: F.regexp_replace(s, r"^[\x00-\x20]+|[\x00-\x20]+$", ""), "string", 0),
    ("strip", lambda s: F.regexp_replace(s, rf"^{_WHITESPACE}+|{_WHITESPACE}+$", ""), "string", 0),
    ("toUpperCase", F.upper, "string", 0),
    ("toLowerCase", F.lower, "string", 0),
    ("length", F.length, "int", 0),
    ("toString", lambda s: s, "string", 0),
    ("concat", F.concat, "string", 1),
    ("replace", lambda s, a, b: F.replace(s, a, b), "string", 2),
):
    method(_names, _count, doc=f"String.{_names}")(_string_method(_names, _function, _kind))


def _bool_method(name: str, function: Callable[..., Column]) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        _null_target(c, args[0], name)
        return _bool(F.coalesce(function(*(_s(v) for v in args)), F.lit(False)))
    return apply


for _names, _function, _count in (
    ("contains", F.contains, 1),
    ("startsWith", lambda s, p: s.startswith(p), 1),
    ("endsWith", lambda s, p: s.endswith(p), 1),
    ("equals", lambda s, p: s == p, 1),
    ("equalsIgnoreCase", lambda s, p: F.lower(s) == F.lower(p), 1),
    ("isEmpty", lambda s: F.length(s) == 0, 0),
    ("isBlank", lambda s: F.trim(s) == "", 0),
):
    method(_names, _count, doc=f"String.{_names}")(_bool_method(_names, _function))


@method("matches", 1, doc="String.matches: full regex match")
def _matches_method(c: Compiling, node: Expr, args: list[Value]) -> Value:
    _null_target(c, args[0], "matches")
    pattern = (F.lit(f"^(?:{args[1].literal})$") if args[1].is_literal
               else F.concat(F.lit("^(?:"), _s(args[1]), F.lit(")$")))
    return _bool(F.coalesce(F.regexp(_s(args[0]), pattern), F.lit(False)))


@method("substring", 1, 2, doc="String.substring(begin[, end]); out of range fails the row")
def _substring_method(c: Compiling, node: Expr, args: list[Value]) -> Value:
    _null_target(c, args[0], "substring")
    text = _s(args[0])
    begin = _i(args[1])
    end = _i(args[2]) if len(args) == 3 else F.length(text)
    c.fail_when(text.isNotNull() & ((begin < 0) | (end > F.length(text)) | (begin > end)),
                "substring index out of range")
    return _text(text.substr(begin + 1, end - begin))


@method("charAt", 1, doc="String.charAt(i) as a one-character text")
def _char_at(c: Compiling, node: Expr, args: list[Value]) -> Value:
    _null_target(c, args[0], "charAt")
    text, index = _s(args[0]), _i(args[1])
    c.fail_when(text.isNotNull() & ((index < 0) | (index >= F.length(text))), "charAt index out of range")
    return _text(text.substr(index + 1, F.lit(1)))


@method("indexOf", 1, doc="String.indexOf (-1 when absent)")
def _index_of_method(c: Compiling, node: Expr, args: list[Value]) -> Value:
    _null_target(c, args[0], "indexOf")
    return _int(F.instr(_s(args[0]), _s(args[1])) - 1)


@method("lastIndexOf", 1, doc="String.lastIndexOf (-1 when absent)")
def _last_index_of_method(c: Compiling, node: Expr, args: list[Value]) -> Value:
    _null_target(c, args[0], "lastIndexOf")
    return _index_of(True)(c, node, args)


@method("replaceAll replaceFirst", 2, doc="String.replaceAll(regex, replacement) (replaceFirst: all, see docs)")
def _replace_all(c: Compiling, node: Expr, args: list[Value]) -> Value:
    _null_target(c, args[0], "replaceAll")
    name = getattr(node, "name", "replaceAll")
    pattern = _literal_text(c, node, args[1], "regex")
    replacement = _literal_text(c, node, args[2], "replacement")
    if name == "replaceFirst":
        # Spark has no replace-first; anchor a lazy prefix so only the first match is replaced.
        return _text(F.regexp_replace(_s(args[0]), f"^(.*?)(?:{pattern})", "$1" + replacement.replace("\\", "\\\\")))
    return _text(F.regexp_replace(_s(args[0]), pattern, replacement))


@method("split", 1, doc="String.split(regex) → array (trailing empty parts removed)")
def _split_method(c: Compiling, node: Expr, args: list[Value]) -> Value:
    _null_target(c, args[0], "split")
    pattern = _literal_text(c, node, args[1], "regex")
    text = F.regexp_replace(_s(args[0]), f"(?:{pattern})+$", "")
    return Value(F.split(text, pattern), "array", element="string")


@method("size", 0, doc="List.size / String length")
def _size_method(c: Compiling, node: Expr, args: list[Value]) -> Value:
    _null_target(c, args[0], "size")
    return _size(c, node, args)


def _number_method(kind: str) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        _null_target(c, args[0], f"{kind}Value")
        return Value(_number_arg(c, args[0], kind), kind)
    return apply


method("intValue", 0, doc="Number.intValue")(_number_method("int"))
method("longValue", 0, doc="Number.longValue")(_number_method("long"))
method("doubleValue floatValue", 0, doc="Number.doubleValue")(_number_method("double"))


@method("booleanValue", 0, doc="Boolean.booleanValue")
def _boolean_value(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _bool(truthy(args[0]))


# -- methods on the row (`this`) --------------------------------------------------------------------------------------
def _row(name: str, min_args: int, max_args: int | None = None, doc: str = "") -> Callable[[Impl], Impl]:
    def register(impl: Impl) -> Impl:
        ROW_METHODS[name] = Function(impl, min_args, min_args if max_args is None else max_args, doc)
        return impl
    return register


@_row("width", 0, doc="number of columns up to the last non-null value (see docs/differences/expressions.md)")
def _width(c: Compiling, node: Expr, args: list[Value]) -> Value:
    width: Column = F.lit(0)
    for position, name in enumerate(c.frame.columns, start=1):
        width = F.when(c.column_value(name).col.isNotNull(), F.lit(position)).otherwise(width)
    return _int(width)


@_row("getValue", 1, doc="value of a column named by a constant text, or at a constant position")
def _get_value(c: Compiling, node: Expr, args: list[Value]) -> Value:
    key = args[0]
    if key.is_literal and isinstance(key.literal, str):
        return c.column_value(key.literal)
    if key.is_literal and isinstance(key.literal, int) and 0 <= key.literal < len(c.frame.columns):
        return c.column_value(c.frame.columns[key.literal])
    raise c.error(node, "this.getValue() needs a constant column name or position on Spark.")


@_row("getColumn", 1, doc="name of the column at a constant position")
def _get_column(c: Compiling, node: Expr, args: list[Value]) -> Value:
    key = args[0]
    if key.is_literal and isinstance(key.literal, int) and 0 <= key.literal < len(c.frame.columns):
        return constant(c.frame.columns[key.literal], "string")
    raise c.error(node, "this.getColumn() needs a constant position within the row.")


def supported_table() -> list[tuple[str, str, str]]:
    """(call form, arity, description) of every supported function and method, for docs/expressions.md."""
    rows: list[tuple[str, str, str]] = []
    for (namespace, name), spec in sorted(FUNCTIONS.items(), key=lambda item: (item[0][0] or "", item[0][1])):
        rows.append((f"{namespace}:{name}" if namespace else name, spec.arity_text(), spec.doc))
    for name, spec in sorted(METHODS.items()):
        rows.append((f"x.{name}()", spec.arity_text(), spec.doc))
    for name, spec in sorted(ROW_METHODS.items()):
        rows.append((f"this.{name}()", spec.arity_text(), spec.doc))
    return rows


# The rest of Wrangler's library, one module per family (each registers into FUNCTIONS when imported).
from directives.spark.expr import lib_data, lib_datetime, lib_java, lib_numbers, lib_text  # noqa: E402,F401


def _overload_counts() -> None:
    """Narrow each function to the argument counts of Wrangler's overloads (gaps included: `arrays:equals`
    takes 2 or 6 arguments, not 3), so a wrong count fails when the recipe is compiled, naming the usage."""
    from dataclasses import replace

    from directives.expression_catalogue import FUNCTIONS as WRANGLER

    for key, spec in list(FUNCTIONS.items()):
        overloads = WRANGLER.get(key[0], {}).get(key[1])
        if not overloads:
            continue
        counts: set[int] = set()
        for low, high in overloads:
            counts.update(range(low, (high if high is not None else MANY) + 1))
        allowed = frozenset(n for n in counts if spec.min_args <= n <= spec.max_args)
        if allowed != frozenset(range(spec.min_args, spec.max_args + 1)):
            FUNCTIONS[key] = replace(spec, counts=allowed)


_overload_counts()
