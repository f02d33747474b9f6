"""`set-type` conversions with Wrangler's (Java's) results, built from Spark functions.

Wrangler converts with Java's own routines: `Bytes.toBytes(int)` is the big-endian two's
complement of the value, `Bytes.toInt(bytes)` reads it back, `BigDecimal.setScale` rounds with
a named `RoundingMode`, `LocalDateTime.toString()` prints ISO text with an optional seconds and
millisecond/microsecond fraction. Spark's plain `cast` does something else for every one of
these, so each is spelled out here. Only IEEE-754 bit patterns (float/double to and from
bytes) have no Spark function at all; those go through a small Python UDF.
"""

from __future__ import annotations

import struct

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

#: Bytes of Java's fixed-width integers, as `Bytes.toBytes` writes them.
INTEGER_WIDTHS = {"short": 2, "int": 4, "long": 8}
#: The same widths keyed by Spark's type names (what a source column reports).
SPARK_INTEGER_WIDTHS = {"smallint": 2, "int": 4, "bigint": 8}
SPARK_INTEGERS = {"short": "smallint", "int": "int", "long": "bigint"}


def integer_to_bytes(value: Column, width: int) -> Column:
    """Big-endian two's complement of `width` bytes: the low `width` bytes of the 64-bit hex form."""
    digits = F.lpad(F.hex(value.cast("bigint")), 16, "0")
    return F.unhex(F.substring(digits, 17 - 2 * width, 2 * width))


def bytes_to_integer(value: Column, target: str) -> Column:
    """`Bytes.toShort/toInt/toLong`: the first 2/4/8 bytes as a signed big-endian number (shorter → null)."""
    width = INTEGER_WIDTHS[target]
    head = F.substring(value, 1, width)
    unsigned = F.conv(F.hex(head), 16, 10).cast("decimal(20,0)")
    half, full = (F.lit(str(2 ** bits)).cast("decimal(20,0)") for bits in (8 * width - 1, 8 * width))
    signed = F.when(unsigned >= half, unsigned - full).otherwise(unsigned)
    return F.when(F.length(value) >= width, signed.cast(SPARK_INTEGERS[target]))


def decimal_to_bytes(value: Column, scale: int) -> Column:
    """`Bytes.toBytes(BigDecimal)`: 4 bytes of scale, then the unscaled value's minimal two's complement."""
    unscaled = (value * F.lit(10**scale)).cast("bigint")
    digits = F.lpad(F.hex(unscaled), 16, "0")
    minimal = F.regexp_replace(F.regexp_replace(digits, "^(00)+(?=[0-7])", ""), "^(FF)+(?=[89A-F])", "")
    return F.concat(F.unhex(F.lpad(F.hex(F.lit(scale)), 8, "0")), F.unhex(minimal))


def _float_bits(value: float | None, width: int) -> bytes | None:
    if value is None:
        return None
    return struct.pack(">f" if width == 4 else ">d", value)


def _bits_float(value: bytes | None, width: int) -> float | None:
    if value is None or len(value) < width:
        return None
    return float(struct.unpack(">f" if width == 4 else ">d", bytes(value[:width]))[0])


def float_to_bytes(value: Column, width: int) -> Column:
    """`Bytes.toBytes(float|double)`: the IEEE-754 bits, which no Spark function exposes."""
    return F.udf(lambda v: _float_bits(v, width), T.BinaryType())(value)


def bytes_to_float(value: Column, target: str) -> Column:
    width = 4 if target == "float" else 8
    spark_type = T.FloatType() if width == 4 else T.DoubleType()
    return F.udf(lambda v: _bits_float(v, width), spark_type)(value)


def local_datetime_text(value: Column) -> Column:
    """`LocalDateTime.toString()`: `yyyy-MM-ddTHH:mm[:ss[.SSS|.SSSSSS]]` (seconds only when not zero)."""
    micros = F.unix_micros(value.cast("timestamp")) % F.lit(1_000_000)
    seconds = F.second(value)
    fraction = (F.when(micros == 0, F.lit(""))
                .when(micros % 1000 == 0,
                      F.concat(F.lit("."), F.lpad((micros / 1000).cast("int").cast("string"), 3, "0")))
                .otherwise(F.concat(F.lit("."), F.lpad(micros.cast("string"), 6, "0"))))
    tail = F.when((seconds == 0) & (micros == 0), F.lit("")).otherwise(
        F.concat(F.lit(":"), F.lpad(seconds.cast("string"), 2, "0"), fraction))
    return F.concat(F.date_format(value, "yyyy-MM-dd'T'HH:mm"), tail)


def zoned_datetime_text(value: Column) -> Column:
    """`ZonedDateTime.toString()` of a Spark timestamp, which runs in the session's UTC zone."""
    return F.concat(local_datetime_text(value), F.lit("Z[UTC]"))


def round_decimal(value: Column, scale: int, mode: str) -> Column:
    """`BigDecimal.setScale(scale, mode)` for Java's rounding modes (UNNECESSARY: null when rounding is needed).

    A negative scale rounds to tens, hundreds …; Spark has no negative decimal scale, so that result has scale 0.
    """
    factor = F.lit(10 ** abs(scale)).cast("decimal(38,0)")
    shifted = value * factor if scale >= 0 else value / factor
    magnitude = F.abs(shifted)
    sign = F.when(shifted < 0, F.lit(-1)).otherwise(F.lit(1))
    towards_zero = F.floor(magnitude)
    away = F.ceil(magnitude)
    half = magnitude - towards_zero
    if mode == "FLOOR":
        rounded = F.floor(shifted)
    elif mode == "CEILING":
        rounded = F.ceil(shifted)
    elif mode == "DOWN":
        rounded = sign * towards_zero
    elif mode == "UP":
        rounded = sign * away
    elif mode == "HALF_UP":
        rounded = sign * F.when(half >= 0.5, away).otherwise(towards_zero)
    elif mode == "HALF_DOWN":
        rounded = sign * F.when(half > 0.5, away).otherwise(towards_zero)
    elif mode == "HALF_EVEN":
        even_down = (towards_zero % 2) == 0
        rounded = sign * F.when(half > 0.5, away).when(half < 0.5, towards_zero).otherwise(
            F.when(even_down, towards_zero).otherwise(away))
    elif mode == "UNNECESSARY":
        rounded = F.when(half == 0, shifted)
    else:
        raise ValueError(f"unknown rounding mode {mode}")
    if scale < 0:
        return (rounded * factor).cast("decimal(38,0)")
    return (rounded / factor).cast(f"decimal(38,{scale})")


def integer_digits(value: Column) -> Column:
    """`precision() - scale()` of a BigDecimal: digits before the point (1 for zero, ≤ 0 below 0.1)."""
    return F.when(value == 0, F.lit(1)).otherwise(F.floor(F.log10(F.abs(value))) + 1).cast("int")


def bytes_to_boolean(value: Column) -> Column:
    """`Bytes.toBoolean`: exactly one byte, true when it is not zero (any other length: null, the row fails)."""
    return F.when(F.length(value) == 1, F.hex(value) != "00")


def bytes_to_decimal(value: Column) -> Column:
    """`Bytes.toBigDecimal`: a 4-byte scale, then the unscaled value in two's complement (here up to 8 bytes)."""
    scale = bytes_to_integer(value, "int")
    unscaled_bytes = F.substring(value, 5, 2**31 - 1)
    width = F.length(unscaled_bytes)
    unsigned = F.conv(F.hex(unscaled_bytes), 16, 10).cast("decimal(20,0)")
    full = F.pow(F.lit(2), width * 8).cast("decimal(20,0)")
    signed = F.when(unsigned >= full / 2, unsigned - full).otherwise(unsigned)
    text = F.concat(signed.cast("decimal(20,0)").cast("string"), F.lit("E"), (-scale).cast("string"))
    return F.when((width >= 1) & (width <= 8), text.cast("decimal(38,18)"))


def significant_scale(value: Column, precision: int) -> Column:
    """The scale `round(new MathContext(precision))` leaves: precision minus the digits before the point."""
    return (F.lit(precision) - integer_digits(value)).cast("int")
