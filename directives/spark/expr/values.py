"""Typed Spark values for the expression compiler, and JEXL's coercions between them.

JEXL decides types per value at run time (a string that looks like a float multiplies as a
double, `'a' + 1` concatenates). A Spark column has one type for all rows, so the compiler
tracks a static *kind* next to each Column and applies JEXL's rules on kinds. Where the rule
depends on the value (a string operand of `*`), we pick the type that fits every value (double)
and document it in docs/differences/expressions.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from directives.spark.expr import byte_codecs

if TYPE_CHECKING:
    from directives.spark.runtime.frame import Frame
    from grammar.errors import RecipeError
    from grammar.expression import Expr

#: Kinds, in JEXL's terms. Numbers widen int → long → double; decimal wins over all (BigDecimal).
NUMERIC = ("int", "long", "double", "decimal")
KINDS = frozenset({*NUMERIC, "string", "bool", "null", "date", "timestamp", "time", "binary", "array", "struct",
                   "map", "variant", "row", "context", "any"})
_SPARK_NAMES = {"int": "int", "long": "bigint", "double": "double", "string": "string", "bool": "boolean",
                "date": "date", "timestamp": "timestamp", "binary": "binary"}
_NO_LITERAL = object()
#: Kinds no Spark cast turns into a number (Spark has no cast from bytes, lists, records or maps to a number, and no
#: Java method Wrangler calls takes one where it wants a number): using one as a number is a mistake in the recipe.
NOT_NUMBERS = frozenset({"binary", "array", "struct", "map", "row", "context"})
#: How a kind is named to a user (Java's names for what a Wrangler row holds).
KIND_NAMES = {"string": "text", "bool": "boolean", "binary": "bytes (byte[])", "array": "list", "struct": "record",
              "map": "map", "row": "row", "context": "context", "null": "null", "any": "value", "variant": "JSON"}


class KindError(TypeError):
    """A value of a kind that a conversion cannot take, found while an expression compiles.

    Spark would only refuse it when the projection is analysed (an AnalysisException naming a cast, not the
    function); the compiler catches this where it knows the function or operator and reports a RecipeError there.
    """

    def __init__(self, kind: str, wanted: str) -> None:
        super().__init__(f"a {kind_name(kind)} value where {wanted} is wanted")
        self.kind = kind
        self.wanted = wanted


def kind_name(kind: str) -> str:
    """A kind as a user reads it ('list', 'bytes (byte[])', 'long' …)."""
    return KIND_NAMES.get(kind, kind)


@dataclass(frozen=True)
class Value:
    """A compiled sub-expression: its Column, its kind, and its Python value when it is a constant."""

    col: Column
    kind: str
    literal: object = field(default=_NO_LITERAL, compare=False)
    #: For arrays: the kind of their elements (used by `=~ [..]` and `arrays:` functions).
    element: str = "any"
    #: The column's exact Spark type when it is known without analysis (a cast made here, a column's own type): a
    #: directive that stores the value declares it (`known_type`), so a later one reading the column need not ask
    #: Spark for it.
    data_type: T.DataType | None = field(default=None, compare=False)

    @property
    def is_literal(self) -> bool:
        return self.literal is not _NO_LITERAL

    @property
    def is_null_literal(self) -> bool:
        return self.kind == "null"

    @property
    def numeric(self) -> bool:
        return self.kind in NUMERIC


def constant(value: object, kind: str) -> Value:
    """A literal value with its JEXL kind (ints become Spark int, longs bigint …)."""
    if value is None:
        return Value(F.lit(None), "null", None)
    if kind == "decimal":
        return Value(F.lit(value), "decimal", value)
    column = F.lit(value)
    if kind in _SPARK_NAMES:
        return Value(column.cast(_SPARK_NAMES[kind]), kind, value, data_type=_EXACT_TYPES.get(kind))
    return Value(column, kind, value)


#: The Spark type a cast to `spark_type(kind)` gives, for the kinds with one (not decimal: its precision varies; not
#: timestamp: a cast to `timestamp` gives the session's `spark.sql.timestampType`).
_EXACT_TYPES: dict[str, T.DataType] = {
    "int": T.IntegerType(), "long": T.LongType(), "double": T.DoubleType(), "string": T.StringType(),
    "bool": T.BooleanType(), "date": T.DateType(), "binary": T.BinaryType()}


def cast_value(column: Column, kind: str) -> Value:
    """``column`` cast to ``kind``'s Spark type (`spark_type`), with that type known."""
    return Value(column.cast(spark_type(kind)), kind, data_type=_EXACT_TYPES.get(kind))


def known_type(value: Value) -> T.DataType | None:
    """The Spark type of ``value``'s column when it is known without asking Spark: the one recorded with it, or the
    only type its kind has (every Spark comparison and logical operator gives a boolean, and every function here
    that gives text gives a Spark string: `kind_of` reads char and varchar columns as text too, but a column's own
    value carries its own type)."""
    if value.data_type is not None:
        return value.data_type
    return {"bool": T.BooleanType(), "string": T.StringType()}.get(value.kind)


#: Spark type classes → JEXL kinds, first match wins (Byte/Short/Integer all behave as Integer after narrowing).
_KIND_OF_TYPE: tuple[tuple[type | tuple[type, ...], str], ...] = (
    ((T.ByteType, T.ShortType, T.IntegerType), "int"),
    (T.LongType, "long"),
    ((T.FloatType, T.DoubleType), "double"),
    (T.DecimalType, "decimal"),
    ((T.StringType, T.CharType, T.VarcharType), "string"),
    (T.BooleanType, "bool"),
    (T.DateType, "date"),
    ((T.TimestampType, T.TimestampNTZType), "timestamp"),
    (T.BinaryType, "binary"),
    (T.ArrayType, "array"),
    (T.StructType, "struct"),
    (T.MapType, "map"),
    (T.NullType, "null"),
)
#: Types older PySpark versions lack, by class name.
_KIND_OF_TYPE_NAME = {"VariantType": "variant", "TimeType": "time"}


def kind_of(data_type: T.DataType) -> str:
    """The JEXL kind of a Spark type ("any" for one expressions do not know)."""
    for types, kind in _KIND_OF_TYPE:
        if isinstance(data_type, types):
            return kind
    return _KIND_OF_TYPE_NAME.get(type(data_type).__name__, "any")


def element_kind(data_type: T.DataType) -> str:
    return kind_of(data_type.elementType) if isinstance(data_type, T.ArrayType) else "any"


def spark_type(kind: str) -> str:
    """The Spark type a value of this kind is cast to when kinds are unified."""
    return {"decimal": "decimal(38,10)"}.get(kind, _SPARK_NAMES.get(kind, "string"))


def wider_number(left: str, right: str) -> str:
    """JEXL's result class for arithmetic: BigDecimal > Double > Long > Integer; strings count as Double."""
    kinds = {left, right}
    if "decimal" in kinds:
        return "decimal"
    if kinds & {"double", "string", "any", "variant"}:
        return "double"
    if "long" in kinds:
        return "long"
    return "int"


def as_number(value: Value, kind: str) -> Column:
    """The value as a number of ``kind``; text is trimmed first, and null where it is not a number.

    Raises `KindError` for bytes, lists and records: no cast makes them numbers."""
    if value.kind in NOT_NUMBERS:
        raise KindError(value.kind, "a number")
    column = value.col
    if value.kind == "bool":
        column = column.cast("int")
    elif value.kind in ("string", "any", "variant"):
        column = F.trim(column.cast("string"))
        if kind in ("int", "long"):
            # Java's Long.parseLong: no fractions. Spark's cast would truncate '1.5' to 1.
            column = F.when(column.rlike(r"^[+-]?\d+$"), column)
    if kind == "decimal":
        return column.cast("decimal(38,10)") if value.kind != "decimal" else column
    return column.cast(spark_type(kind))


def not_a_number(value: Value, converted: Column) -> Column | None:
    """The condition under which converting ``value`` to a number failed (None when it cannot fail)."""
    if value.kind in NUMERIC or value.kind in ("bool", "null"):
        return None
    return value.col.isNotNull() & converted.isNull()


class Compiling(Protocol):
    """What the function table may ask of the expression compiler (`compiler.ExprCompiler` is one).

    Declared here, below both, so that `functions` does not import `compiler` and `compiler` imports
    `functions` at the top: values ← functions ← compiler, no circle.
    """

    frame: Frame

    def error(self, node: Expr, message: str, hint: str | None = None) -> RecipeError: ...

    def fail_when(self, condition: Column, reason: str) -> None: ...

    def column_value(self, name: str) -> Value: ...

    def array_value(self, items: list[Value]) -> Value: ...


def java_string(value: Value) -> Column:
    """`String.valueOf` as JEXL's `toString` does it: LocalDateTime with a `T`, booleans as true/false."""
    kind = value.kind
    if kind == "string":
        return value.col
    if kind == "timestamp":
        return F.date_format(value.col, "yyyy-MM-dd'T'HH:mm:ss")
    if kind == "binary":  # as `new String(bytes, UTF_8)`: bytes that are not UTF-8 become U+FFFD (Spark's
        return byte_codecs.to_text(value.col)  # `decode` would throw and abort the job)
    if kind == "variant":
        return F.to_json(value.col)
    if kind == "struct":
        return F.to_json(value.col)
    if kind == "time":  # nanoseconds since midnight inside expressions
        return time_text(value.col)
    return value.col.cast("string")


def truthy(value: Value) -> Column:
    """JEXL's `toBoolean`: null → false, numbers ≠ 0, strings non-empty and not 'false'; never null."""
    kind, column = value.kind, value.col
    if kind == "bool":
        result = column
    elif kind in NUMERIC:
        result = column != 0
    elif kind == "string":
        result = (F.length(column) > 0) & (column != "false")
    elif kind == "null":
        return F.lit(False)
    elif kind == "array":
        result = F.size(column) > 0
    else:
        result = column.isNotNull()
    return F.coalesce(result, F.lit(False))


def unify(values: list[Value]) -> tuple[str, list[Column]]:
    """One kind for the branches of a ternary/if (Spark needs one type): widest number, else text."""
    kinds = {v.kind for v in values if v.kind != "null"}
    if not kinds:
        return "null", [v.col for v in values]
    if len(kinds) == 1:
        (kind,) = kinds
        if kind in ("array", "struct", "map", "variant", "any", "row", "context"):
            return kind, [v.col for v in values]
        return kind, [v.col.cast(spark_type(kind)) if v.kind == "null" else v.col for v in values]
    if kinds <= set(NUMERIC):
        kind = "int"
        for other in kinds:
            kind = wider_number(kind, other)
        return kind, [as_number(v, kind) if v.kind != "null" else v.col.cast(spark_type(kind)) for v in values]
    if kinds <= {"date", "timestamp"}:
        return "timestamp", [v.col.cast("timestamp") for v in values]
    return "string", [java_string(v) if v.kind != "null" else v.col.cast("string") for v in values]


# -- times of day: nanoseconds since midnight inside expressions -----------------------------------------------------
#: Nanoseconds in a second (a time of day is nanoseconds since midnight, as LocalTime keeps it).
NANOS = 1_000_000_000


def time_column(nanos: Column) -> Column:
    """Nanoseconds since midnight → a Spark TIME value (microsecond precision)."""
    seconds = (nanos % (60 * NANOS)).cast("decimal(20,0)") / F.lit(NANOS).cast("decimal(20,0)")
    return F.make_time(F.floor(nanos / (3600 * NANOS)).cast("int"), (F.floor(nanos / (60 * NANOS)) % 60).cast("int"),
                       seconds.cast("decimal(16,6)"))


def time_text(nanos: Column) -> Column:
    """LocalTime.toString: HH:mm, then :ss when seconds or nanos are set, then .SSS/.SSSSSS/.SSSSSSSSS."""
    seconds_total = F.floor(nanos / NANOS)
    fraction = nanos % NANOS
    hh = F.lpad(F.floor(seconds_total / 3600).cast("string"), 2, "0")
    mm = F.lpad((F.floor(seconds_total / 60) % 60).cast("string"), 2, "0")
    ss = F.lpad((seconds_total % 60).cast("string"), 2, "0")
    digits = F.lpad(fraction.cast("string"), 9, "0")
    fraction_text = (F.when(fraction == 0, F.lit(""))
                     .when(fraction % 1_000_000 == 0, F.concat(F.lit("."), F.substring(digits, 1, 3)))
                     .when(fraction % 1000 == 0, F.concat(F.lit("."), F.substring(digits, 1, 6)))
                     .otherwise(F.concat(F.lit("."), digits)))
    with_seconds = F.concat(hh, F.lit(":"), mm, F.lit(":"), ss, fraction_text)
    return F.when(nanos.isNull(), F.lit(None)).when((seconds_total % 60 == 0) & (fraction == 0),
                                                     F.concat(hh, F.lit(":"), mm)).otherwise(with_seconds)
