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
    """RFC 4648 base32 of binary data, upper case, '=' padded (Commons Codec `Base32.encode`).

    Chunks come from one `regexp_extract_all` over the bit string, so the lambdas only see their
    own chunk: referring to the bit string inside a lambda would recompute it for every letter.
    """
    bits = _bits_of_hex(F.hex(data))
    padded = F.concat(bits, F.lit("0000"))  # complete the last group of five; extra zeros are never read
    chunks = F.regexp_extract_all(padded, F.lit("([01]{5})"), 1)
    letters = F.transform(chunks, lambda chunk: F.substring(F.lit(BASE32_ALPHABET),
                                                            F.conv(chunk, 2, 10).cast("int") + 1, 1))
    text = F.array_join(letters, "")
    return F.rpad(text, (F.ceil(F.length(text) / F.lit(8)) * 8).cast("int"), "=")


def base32_decode(text: Column) -> Column:
    """Binary data of base32 text. Like Commons Codec, characters outside the alphabet are skipped and
    trailing bits that do not fill a byte are dropped."""
    letters = F.regexp_extract_all(F.upper(text), F.lit("([A-Z2-7])"), 1)
    bits = F.array_join(
        F.transform(letters, lambda c: F.lpad(F.conv((F.instr(F.lit(BASE32_ALPHABET), c) - 1).cast("string"), 10, 2),
                                               5, "0")),
        "",
    )
    octets = F.regexp_extract_all(bits, F.lit("([01]{8})"), 1)
    return F.unhex(F.array_join(F.transform(octets, lambda octet: F.lpad(F.conv(octet, 2, 16), 2, "0")), ""))


def to_text(data: Column) -> Column:
    """Bytes as UTF-8 text; malformed sequences become U+FFFD, as Java's `new String(bytes, UTF_8)` does."""
    return F.make_valid_utf8(data.cast("string"))
