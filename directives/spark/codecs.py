"""Base32, base64 and hex as Spark expressions, with Apache Commons Codec's output (what Wrangler uses).

Spark has base64 and hex built in; base32 it has not, so it is built here from the hex digits:
each hex digit becomes four bits, five bits become one letter of the RFC 4648 alphabet, and the
result is padded with '=' to a multiple of eight — all with higher-order functions, no UDF.
"""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

BASE32_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def _bits_of_hex(hex_text: Column) -> Column:
    """'4A' -> '01001010': four bits per hex digit."""
    digits = F.regexp_extract_all(hex_text, F.lit("([0-9A-Fa-f])"), 1)
    return F.array_join(F.transform(digits, lambda d: F.lpad(F.conv(d, 16, 2), 4, "0")), "")


def base32_encode(data: Column) -> Column:
    """RFC 4648 base32 of binary data, upper case, '=' padded (Commons Codec `Base32.encode`)."""
    bits = _bits_of_hex(F.hex(data))
    letters_count = F.ceil(F.length(bits) / F.lit(5)).cast("int")
    padded = F.rpad(bits, letters_count * 5, "0")
    letters = F.transform(
        F.sequence(F.lit(0), F.greatest(letters_count - 1, F.lit(0))),
        lambda i: F.substring(F.lit(BASE32_ALPHABET), F.conv(padded.substr(i * 5 + 1, F.lit(5)), 2, 10).cast("int") + 1,
                              1),
    )
    text = F.array_join(letters, "")
    full = F.rpad(text, (F.ceil(F.length(text) / F.lit(8)) * 8).cast("int"), "=")
    return F.when(F.length(data) == 0, F.lit("")).otherwise(full)


def base32_decode(text: Column) -> Column:
    """Binary data of base32 text. Like Commons Codec, characters outside the alphabet are skipped and
    trailing bits that do not fill a byte are dropped."""
    letters = F.regexp_extract_all(F.upper(text), F.lit("([A-Z2-7])"), 1)
    bits = F.array_join(
        F.transform(letters, lambda c: F.lpad(F.conv((F.instr(F.lit(BASE32_ALPHABET), c) - 1).cast("string"), 10, 2),
                                               5, "0")),
        "",
    )
    byte_count = F.floor(F.length(bits) / F.lit(8)).cast("int")
    hex_digits = F.transform(
        F.sequence(F.lit(0), F.greatest(byte_count - 1, F.lit(0))),
        lambda i: F.lpad(F.conv(bits.substr(i * 8 + 1, F.lit(8)), 2, 16), 2, "0"),
    )
    return F.when(byte_count == 0, F.unhex(F.lit(""))).otherwise(
        F.unhex(F.array_join(hex_digits, ""))
    )


def to_text(data: Column) -> Column:
    """Bytes as UTF-8 text; malformed sequences become U+FFFD, as Java's `new String(bytes, UTF_8)` does."""
    return F.make_valid_utf8(data.cast("string"))
