"""Number functions: `arithmetic:` (ArithmeticOperations), `decimal:` (DecimalTransform), `number:`
(NumberFunctions), the rest of `math:` (java.lang.Math) and `logical:SetBit`.

Java picks the result class from the arguments (Integer < Long < Double < BigDecimal); so do we, from the
static kinds. A BigDecimal's scale is per value in Java and per column in Spark: the decimal functions use
the column's scale (docs/differences/expressions.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from directives.spark.expr.functions import MANY, Impl, _number_arg, fn
from directives.spark.expr.values import NUMERIC, Compiling, Value, spark_type

if TYPE_CHECKING:
    from grammar.expression import Expr

_SPARK = {"int": "int", "long": "bigint", "double": "double", "decimal": "decimal(38,10)"}


def _kind(values: list[Value]) -> str:
    """ArithmeticOperations.getOutputType: the widest number class of the arguments (text counts as Double)."""
    order = {"int": 0, "long": 1, "double": 2, "decimal": 3}
    kind = "int"
    for value in values:
        candidate = value.kind if value.kind in NUMERIC else ("int" if value.kind in ("null", "bool") else "double")
        if order[candidate] > order[kind]:
            kind = candidate
    return kind


def _numbers(c: Compiling, args: list[Value], kind: str) -> list[Column]:
    return [_number_arg(c, value, kind) if value.kind != "null" else F.lit(None).cast(_SPARK[kind])
            for value in args]


def _any_null(columns: list[Column]) -> Column:
    result: Column = F.lit(False)
    for column in columns:
        result = result | column.isNull()
    return result


def _typed(column: Column, kind: str) -> Value:
    return Value(column.cast(_SPARK[kind]) if kind != "decimal" else column, kind)


# -- arithmetic: ArithmeticOperations (any null argument gives null) -------------------------------------------------
def _fold(op: Callable[[Column, Column], Column], start: int) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        kind = _kind(args)
        columns = _numbers(c, args, kind)
        result: Column = F.lit(start).cast(_SPARK[kind])
        for column in columns:
            result = op(result, column)
        return _typed(F.when(~_any_null(columns), result), kind)
    return apply


fn("arithmetic", "add", 0, MANY, doc="ArithmeticOperations.add: sum in the widest class; null if any is null")(
    _fold(lambda a, b: a + b, 0))
fn("arithmetic", "multiply", 0, MANY, doc="ArithmeticOperations.multiply: product in the widest class")(
    _fold(lambda a, b: a * b, 1))


@fn("arithmetic", "minus", 2, doc="ArithmeticOperations.minus: x - y in the wider class; null if either is null")
def _minus(c: Compiling, node: Expr, args: list[Value]) -> Value:
    kind = _kind(args)
    x, y = _numbers(c, args, kind)
    return _typed(x - y, kind)


@fn("arithmetic", "divideq", 2, doc="ArithmeticOperations.divideq: x / y as a double (BigDecimal: half-even at "
    "x's scale); null when y is 0 or either is null")
def _divideq(c: Compiling, node: Expr, args: list[Value]) -> Value:
    kind = _kind(args)
    if kind == "decimal":
        x, y = _numbers(c, args, "decimal")
        scale = _scale(c, args[0])
        return Value(F.when(y != 0, F.bround(x / y, scale)).cast(f"decimal(38,{scale})"), "decimal")
    x, y = _numbers(c, args, "double")
    return Value(F.when(y != 0, x / y), "double")


@fn("arithmetic", "divider", 2, doc="ArithmeticOperations.divider: x % y (sign of x); null when y is 0")
def _divider(c: Compiling, node: Expr, args: list[Value]) -> Value:
    kind = _kind(args)
    x, y = _numbers(c, args, kind)
    return _typed(F.when(y != 0, x % y), kind)


def gcd(a: Column, b: Column) -> Column:
    """Euclid's algorithm on whole decimals, unrolled in one `aggregate` (93 steps cover any 64-bit pair)."""
    start = F.struct(F.abs(a).cast("decimal(38,0)").alias("a"), F.abs(b).cast("decimal(38,0)").alias("b"))
    steps = F.aggregate(F.sequence(F.lit(1), F.lit(93)), start, lambda state, _: F.when(
        state["b"] == 0, state).otherwise(F.struct(state["b"].alias("a"), (state["a"] % state["b"]).cast(
            "decimal(38,0)").alias("b"))))
    return steps["a"]


@fn("arithmetic", "lcm", 2, doc="ArithmeticOperations.lcm: least common multiple (of the values scaled to whole "
    "numbers), in the wider class")
def _lcm(c: Compiling, node: Expr, args: list[Value]) -> Value:
    kind = _kind(args)
    x, y = _numbers(c, args, kind)
    scale = 0 if kind in ("int", "long") else 10
    power = F.lit(10 ** scale).cast("decimal(38,0)")
    a = (x.cast("decimal(38,10)") * power).cast("decimal(38,0)")
    b = (y.cast("decimal(38,10)") * power).cast("decimal(38,0)")
    divisor = gcd(a, b)
    result = F.when(divisor == 0, F.lit(0)).otherwise(F.abs(a * b) / (divisor * power))
    return _typed(F.when(x.isNotNull() & y.isNotNull(), result), kind)


@fn("arithmetic", "equal", 0, MANY, doc="ArithmeticOperations.equal: all arguments equal; null if any is null")
def _equal(c: Compiling, node: Expr, args: list[Value]) -> Value:
    if not args:
        return Value(F.lit(True), "bool")
    kind = _kind(args)
    columns = _numbers(c, args, kind)
    same: Column = F.lit(True)
    for column in columns[1:]:
        same = same & (column == columns[0])
    return Value(F.when(~_any_null(columns), same), "bool")


def _extreme(greatest: bool) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        kind = _kind(args)
        columns = _numbers(c, args, kind)
        if not columns:
            return Value(F.lit(None).cast(_SPARK[kind]), kind)
        best = F.greatest(*columns) if greatest and len(columns) > 1 else (
            F.least(*columns) if len(columns) > 1 else columns[0])
        return _typed(F.when(~_any_null(columns), best), kind)
    return apply


fn("arithmetic", "max", 0, MANY, doc="ArithmeticOperations.max: largest, in the widest class; null if any is null")(
    _extreme(True))
fn("arithmetic", "min", 0, MANY, doc="ArithmeticOperations.min: smallest, in the widest class; null if any is null")(
    _extreme(False))


@fn("arithmetic", "average", 0, MANY, doc="ArithmeticOperations.average: mean of the non-null arguments (double, "
    "BigDecimal when one is); null when all are null")
def _average(c: Compiling, node: Expr, args: list[Value]) -> Value:
    kind = "decimal" if any(v.kind == "decimal" for v in args) else "double"
    columns = _numbers(c, args, kind)
    if not columns:
        return Value(F.lit(None).cast("double"), "double")
    total: Column = F.lit(0).cast(_SPARK[kind])
    count: Column = F.lit(0)
    for column in columns:
        total = total + F.coalesce(column, F.lit(0).cast(_SPARK[kind]))
        count = count + F.when(column.isNotNull(), 1).otherwise(0)
    return _typed(F.when(count > 0, total / count), kind)


# -- decimal: DecimalTransform ---------------------------------------------------------------------------------------
def _scale(c: Compiling, value: Value) -> int:
    """The scale of a decimal value's Spark type (Java keeps one per value)."""
    if value.kind != "decimal":
        return 0 if value.kind in ("int", "long") else 10
    if value.is_literal:
        text = str(value.literal)
        return len(text.split(".")[1]) if "." in text else 0
    data_type = c.frame.df.select(value.col).schema[0].dataType
    return data_type.scale if isinstance(data_type, T.DecimalType) else 10


def _big(c: Compiling, value: Value) -> Column:
    return _number_arg(c, value, "decimal") if value.kind != "decimal" else value.col


def _operand(c: Compiling, value: Value, name: str) -> Column:
    """DecimalTransform.objectToBigDecimal: BigDecimal, Integer or Double; anything else is null (then an NPE)."""
    if value.kind in ("decimal", "int", "double"):
        return _big(c, value)
    c.fail_when(F.lit(True), f"decimal:{name} takes a BigDecimal, Integer or Double value")
    return F.lit(None).cast("decimal(38,10)")


def _dec(column: Column) -> Value:
    return Value(column, "decimal")


@fn("decimal", "add", 2, doc="DecimalTransform.add(bd, n): bd + n (null bd: n)")
def _dec_add(c: Compiling, node: Expr, args: list[Value]) -> Value:
    a, b = _big(c, args[0]), _operand(c, args[1], "add")
    c.fail_when(b.isNull(), "null operand of decimal:add")
    return _dec(F.when(a.isNull(), b).otherwise(a + b))


@fn("decimal", "subtract", 2, doc="DecimalTransform.subtract(bd, n): bd - n (null bd: -n)")
def _dec_subtract(c: Compiling, node: Expr, args: list[Value]) -> Value:
    a, b = _big(c, args[0]), _operand(c, args[1], "subtract")
    c.fail_when(b.isNull(), "null operand of decimal:subtract")
    return _dec(F.when(a.isNull(), -b).otherwise(a - b))


@fn("decimal", "multiply", 2, doc="DecimalTransform.multiply(bd, n): bd × n (null bd: 0)")
def _dec_multiply(c: Compiling, node: Expr, args: list[Value]) -> Value:
    a, b = _big(c, args[0]), _operand(c, args[1], "multiply")
    c.fail_when(a.isNotNull() & b.isNull(), "null operand of decimal:multiply")
    return _dec(F.when(a.isNull(), F.lit(0).cast("decimal(38,10)")).otherwise(a * b))


@fn("decimal", "divideq", 2, doc="DecimalTransform.divideq(bd, n): bd / n half-even at bd's scale; n = 0: null")
def _dec_divideq(c: Compiling, node: Expr, args: list[Value]) -> Value:
    a, b = _big(c, args[0]), _operand(c, args[1], "divideq")
    scale = _scale(c, args[0])
    c.fail_when(b.isNull(), "null operand of decimal:divideq")
    quotient = F.bround(a / b, scale).cast(f"decimal(38,{scale})")
    return _dec(F.when(b == 0, F.lit(None)).when(a.isNull(), F.lit(0)).otherwise(quotient)
                .cast(f"decimal(38,{scale})"))


@fn("decimal", "divider", 2, doc="DecimalTransform.divider(bd, n): remainder; n = 0: null")
def _dec_divider(c: Compiling, node: Expr, args: list[Value]) -> Value:
    a, b = _big(c, args[0]), _operand(c, args[1], "divider")
    c.fail_when(b.isNull(), "null operand of decimal:divider")
    return _dec(F.when(b == 0, F.lit(None)).when(a.isNull(), F.lit(0)).otherwise(a % b))


def _dec1(name: str, function: Callable[[Column], Column], kind: str = "decimal") -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        value = _big(c, args[0])
        c.fail_when(value.isNull(), f"null value for decimal:{name}")
        column = function(value)
        return Value(column if kind == "decimal" else column.cast(spark_type(kind)), kind)
    return apply


fn("decimal", "abs", 1, doc="DecimalTransform.abs")(_dec1("abs", F.abs))
fn("decimal", "negate", 1, doc="DecimalTransform.negate")(_dec1("negate", lambda d: -d))
fn("decimal", "strip_zero", 1, doc="DecimalTransform.strip_zero: the value without trailing zeros")(
    _dec1("strip_zero", lambda d: d))
fn("decimal", "sign", 1, doc="DecimalTransform.sign: -1, 0 or 1")(_dec1("sign", F.signum, "int"))


@fn("decimal", "scale", 1, doc="DecimalTransform.scale: digits after the point (the column's scale)")
def _dec_scale(c: Compiling, node: Expr, args: list[Value]) -> Value:
    value = _big(c, args[0])
    c.fail_when(value.isNull(), "null value for decimal:scale")
    return Value(F.when(value.isNotNull(), F.lit(_scale(c, args[0]))), "int")


def _unscaled(c: Compiling, value: Value) -> Column:
    scale = _scale(c, value)
    return (_big(c, value) * F.lit(10 ** scale).cast("decimal(38,0)")).cast("decimal(38,0)")


@fn("decimal", "unscaled", 1, doc="DecimalTransform.unscaled: the digits as a whole number (value × 10^scale)")
def _dec_unscaled(c: Compiling, node: Expr, args: list[Value]) -> Value:
    c.fail_when(_big(c, args[0]).isNull(), "null value for decimal:unscaled")
    return Value(_unscaled(c, args[0]), "decimal")


@fn("decimal", "precision", 1, doc="DecimalTransform.precision: number of digits of the unscaled value")
def _dec_precision(c: Compiling, node: Expr, args: list[Value]) -> Value:
    c.fail_when(_big(c, args[0]).isNull(), "null value for decimal:precision")
    return Value(F.length(F.abs(_unscaled(c, args[0])).cast("string")).cast("int"), "int")


@fn("decimal", "decimal_left", 2, doc="DecimalTransform.decimal_left(bd, n): bd / 10^n")
def _dec_left(c: Compiling, node: Expr, args: list[Value]) -> Value:
    value, n = _big(c, args[0]), _number_arg(c, args[1], "int")
    c.fail_when(value.isNull(), "null value for decimal:decimal_left")
    return _dec(value / F.pow(F.lit(10), n).cast("decimal(38,0)"))


@fn("decimal", "decimal_right", 2, doc="DecimalTransform.decimal_right(bd, n): bd × 10^n, cut to scale - n")
def _dec_right(c: Compiling, node: Expr, args: list[Value]) -> Value:
    value, n = _big(c, args[0]), _number_arg(c, args[1], "int")
    c.fail_when(value.isNull(), "null value for decimal:decimal_right")
    scale = F.greatest(F.lit(_scale(c, args[0])) - n, F.lit(0))
    moved = value * F.pow(F.lit(10), n).cast("decimal(38,0)")
    return _dec(_truncate(moved, scale))


def _truncate(value: Column, scale: Column) -> Column:
    """ROUND_DOWN to a scale that is a column: toward zero."""
    factor = F.pow(F.lit(10), scale).cast("decimal(38,0)")
    return (F.when(value >= 0, F.floor(value * factor)).otherwise(F.ceil(value * factor)) / factor)


@fn("decimal", "pow", 2, doc="DecimalTransform.pow(bd, n): bd^n (exact for whole n ≥ 0)")
def _dec_pow(c: Compiling, node: Expr, args: list[Value]) -> Value:
    value, n = _big(c, args[0]), _number_arg(c, args[1], "int")
    c.fail_when(value.isNull(), "null value for decimal:pow")
    valid = (n >= 0) & (n <= 999_999_999)  # BigDecimal.pow's range
    c.fail_when(~valid, "invalid exponent for decimal:pow")
    return _dec(F.when(valid, _power(value, n)))


def _power(value: Column, n: Column) -> Column:
    """value^n by squaring: one step per bit of n (30 for BigDecimal.pow's largest exponent), each rounded to
    decimal(38,10). Multiplying n times would make Spark build an array of n elements (2^31 for a huge exponent:
    the job ended)."""
    one = F.lit(1).cast("decimal(38,10)")

    def step(state: Column, bit: Column) -> Column:  # bit: 2^i, for i = 0 … 29
        result, square = state["r"], state["s"]
        taken = F.floor(n / bit) % 2 == 1
        return F.struct(F.when(taken, (result * square).cast("decimal(38,10)")).otherwise(result).alias("r"),
                        F.when(n >= bit * 2, (square * square).cast("decimal(38,10)")).otherwise(square).alias("s"))

    start = F.struct(one.alias("r"), value.cast("decimal(38,10)").alias("s"))
    bits = F.array(*(F.lit(2**i).cast("bigint") for i in range(30)))
    return F.aggregate(bits, start, step)["r"]


# -- number: NumberFunctions ---------------------------------------------------------------------------------------
def _as(kind: str) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        return Value(_number_arg(c, args[0], kind) if args[0].kind != "null" else F.lit(None).cast(_SPARK[kind]),
                     kind)
    return apply


fn("number", "AsDouble", 1, doc="NumberFunctions.AsDouble: Number.doubleValue()")(_as("double"))
fn("number", "AsFloat", 1, doc="NumberFunctions.AsFloat: Number.floatValue() (a double on Spark)")(_as("double"))
fn("number", "AsInteger", 1, doc="NumberFunctions.AsInteger: Number.intValue() (truncates)")(_as("int"))


@fn("number", "Mantissa", 1, doc="NumberFunctions.Mantissa: the fraction after the whole part; 0 for int/long/null")
def _mantissa(c: Compiling, node: Expr, args: list[Value]) -> Value:
    value = args[0]
    if value.kind in ("int", "long", "null"):
        return Value(F.lit(0.0), "double")
    number = _number_arg(c, value, "decimal")
    return Value(F.coalesce((number - number.cast("int")).cast("double"), F.lit(0.0)), "double")


# -- math: the rest of java.lang.Math ------------------------------------------------------------------------------
def _exact(name: str, op: Callable[..., Column], arity: int) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        kind = "long" if any(v.kind == "long" for v in args) else "int"
        if name == "toIntExact":
            kind = "int"
        wide = [_number_arg(c, v, "decimal").cast("decimal(38,0)") for v in args]
        result = op(*wide)
        low, high = (-(2 ** 31), 2 ** 31 - 1) if kind == "int" else (-(2 ** 63), 2 ** 63 - 1)
        c.fail_when((result < low) | (result > high), f"{kind} overflow in math:{name}")
        return Value(result.cast(_SPARK[kind]), kind)
    return apply


for _name, _op, _arity in (
    ("addExact", lambda a, b: a + b, 2), ("subtractExact", lambda a, b: a - b, 2),
    ("multiplyExact", lambda a, b: a * b, 2), ("incrementExact", lambda a: a + 1, 1),
    ("decrementExact", lambda a: a - 1, 1), ("negateExact", lambda a: -a, 1), ("absExact", F.abs, 1),
    ("toIntExact", lambda a: a, 1),
):
    fn("math", _name, _arity, doc=f"Math.{_name}: overflow fails the row")(_exact(_name, _op, _arity))


def _integral2(name: str, op: Callable[[Column, Column], Column]) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        kind = "long" if any(v.kind == "long" for v in args) else "int"
        a, b = (_number_arg(c, v, kind) for v in args)
        c.fail_when(b == 0, f"division by zero in math:{name}")
        return Value(F.when(b != 0, op(a, b)).cast(_SPARK[kind]), kind)
    return apply


fn("math", "floorDiv", 2, doc="Math.floorDiv: quotient rounded toward negative infinity")(
    _integral2("floorDiv", lambda a, b: F.floor(a / b)))
fn("math", "floorMod", 2, doc="Math.floorMod: remainder with the sign of the divisor")(
    _integral2("floorMod", lambda a, b: a - F.floor(a / b) * b))


def _double2(op: Callable[[Column, Column], Column]) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        a, b = (_number_arg(c, v, "double") for v in args)
        return Value(op(a, b).cast("double"), "double")
    return apply


fn("math", "IEEEremainder", 2, doc="Math.IEEEremainder: x - y × (x / y rounded half-even)")(
    _double2(lambda x, y: x - F.bround(x / y, 0) * y))
fn("math", "copySign", 2, doc="Math.copySign: magnitude of x, sign of y")(
    _double2(lambda x, y: F.when(y < 0, -F.abs(x)).otherwise(F.abs(x))))
fn("math", "scalb", 2, doc="Math.scalb(d, n): d × 2^n")(_double2(lambda d, n: d * F.pow(F.lit(2.0), n)))


def _exponent(x: Column) -> Column:
    """Math.getExponent(double): the unbiased binary exponent; 0 and subnormals -1023, NaN/∞ 1024."""
    return (F.when(F.isnan(x) | (F.abs(x) == float("inf")), F.lit(1024))
            .when(F.abs(x) < 2.2250738585072014e-308, F.lit(-1023))
            .otherwise(F.floor(F.log2(F.abs(x)))).cast("int"))


def _ulp(x: Column) -> Column:
    return F.when(F.abs(x) < 2.2250738585072014e-308, F.lit(4.9e-324)).otherwise(
        F.pow(F.lit(2.0), _exponent(x) - 52))


@fn("math", "getExponent", 1, doc="Math.getExponent: unbiased binary exponent")
def _get_exponent(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return Value(_exponent(_number_arg(c, args[0], "double")), "int")


@fn("math", "ulp", 1, doc="Math.ulp: distance to the next larger double in magnitude")
def _math_ulp(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return Value(_ulp(_number_arg(c, args[0], "double")), "double")


def _next(direction: int) -> Callable[[Column], Column]:
    def step(x: Column) -> Column:
        # below a power of two (moving toward zero) the spacing halves
        toward_zero = (x > 0) if direction < 0 else (x < 0)
        at_power = F.abs(x) == F.pow(F.lit(2.0), _exponent(x))
        spacing = F.when(toward_zero & at_power, _ulp(x) / 2).otherwise(_ulp(x))
        return F.when(x == 0, F.lit(direction * 4.9e-324)).otherwise(x + direction * spacing)
    return step


@fn("math", "nextUp", 1, doc="Math.nextUp: the next double toward +infinity")
def _next_up(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return Value(_next(1)(_number_arg(c, args[0], "double")), "double")


@fn("math", "nextDown", 1, doc="Math.nextDown: the next double toward -infinity")
def _next_down(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return Value(_next(-1)(_number_arg(c, args[0], "double")), "double")


@fn("math", "nextAfter", 2, doc="Math.nextAfter(start, direction): the next double toward direction")
def _next_after(c: Compiling, node: Expr, args: list[Value]) -> Value:
    start, direction = (_number_arg(c, v, "double") for v in args)
    return Value(F.when(direction > start, _next(1)(start)).when(direction < start, _next(-1)(start))
                 .otherwise(direction), "double")


@fn("math", "fma", 3, doc="Math.fma: a × b + c")
def _fma(c: Compiling, node: Expr, args: list[Value]) -> Value:
    a, b, d = (_number_arg(c, v, "double") for v in args)
    return Value(a * b + d, "double")


@fn("math", "multiplyFull", 2, doc="Math.multiplyFull(int, int): the exact product as a long")
def _multiply_full(c: Compiling, node: Expr, args: list[Value]) -> Value:
    a, b = (_number_arg(c, v, "long") for v in args)
    return Value(a * b, "long")


@fn("math", "multiplyHigh", 2, doc="Math.multiplyHigh(long, long): the high 64 bits of the 128-bit product")
def _multiply_high(c: Compiling, node: Expr, args: list[Value]) -> Value:
    a, b = (_number_arg(c, v, "decimal").cast("decimal(38,0)") for v in args)
    product, power = (a * b).cast("decimal(38,0)"), F.lit("18446744073709551616").cast("decimal(38,0)")
    return Value(((product - F.pmod(product, power)) / power).cast("bigint"), "long")


@fn("math", "random", 0, doc="Math.random: uniform in [0, 1)")
def _random(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return Value(F.rand(), "double")


# -- logical: SetBit -------------------------------------------------------------------------------------------------
@fn("logical", "SetBit", 3, doc="Logical.SetBit(value, positions, bit): set (bit > 0) or clear each 1-based position "
    "(Java's int shift: positions wrap at 32)")
def _set_bit(c: Compiling, node: Expr, args: list[Value]) -> Value:
    value = _number_arg(c, args[0], "long")
    positions = args[1].col if args[1].kind == "array" else F.array(_number_arg(c, args[1], "int"))
    bit = _number_arg(c, args[2], "int")

    def apply(acc: Column, position: Column) -> Column:
        mask = F.call_function("shiftleft", F.lit(1), position.cast("int") - 1).cast("bigint")
        return F.when(bit > 0, acc.bitwiseOR(mask)).otherwise(acc.bitwiseAND(F.bitwise_not(mask)))

    return Value(F.aggregate(positions, value, apply), "long")

