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


def _before_padding(text: Column) -> Column:
    """Commons Codec stops decoding at the first '=' (what follows is never read)."""
    return F.substring_index(text, "=", 1)


def base32_decode(text: Column) -> Column:
    """Binary data of base32 text, as Commons Codec's lenient `Base32.decode` gives it: decoding stops at the
    first '=', characters outside the alphabet (either case) are skipped, and trailing bits that do not fill a
    byte are dropped, except that a lone trailing letter still yields one byte (its top three bits), which
    Commons' decoder does by falling through from that case to the next."""
    letters = F.transform(F.regexp_extract_all(_before_padding(text), F.lit("([A-Za-z2-7])"), 1), F.upper)
    bits = F.array_join(
        F.transform(letters, lambda c: F.lpad(F.conv((F.instr(F.lit(BASE32_ALPHABET), c) - 1).cast("string"), 10, 2),
                                               5, "0")),
        "",
    )
    length = F.length(bits)
    lone_letter = F.concat(F.substring(bits, F.lit(1), length - 5), F.lit("00000"),
                           F.substring(bits, length - 4, F.lit(3)))
    bits = F.when(F.size(letters) % 8 == 1, lone_letter).otherwise(bits)
    octets = F.regexp_extract_all(bits, F.lit("([01]{8})"), 1)
    return F.unhex(F.array_join(F.transform(octets, lambda octet: F.lpad(F.conv(octet, 2, 16), 2, "0")), ""))


def base64_decode(text: Column) -> Column:
    """Binary data of base64 text, as Commons Codec's lenient `Base64.decode` gives it, for any text.

    Spark's `unbase64` (Java's MIME decoder) throws on some endings ("Last unit does not have enough valid
    bits"), which would abort the whole job for one bad value. So the text is first brought to what Commons
    reads: up to the first '=', only alphabet characters (the URL-safe '-' and '_' count as '+' and '/'), and
    without a lone trailing character (six bits, no byte: Commons ignores it). What is left always decodes.
    """
    alphabet = F.translate(F.regexp_replace(_before_padding(text), F.lit("[^A-Za-z0-9+/_-]"), F.lit("")), "-_", "+/")
    length = F.length(alphabet)
    whole = F.when(length % 4 == 1, F.substring(alphabet, F.lit(1), length - 1)).otherwise(alphabet)
    return F.unbase64(whole)


def to_text(data: Column) -> Column:
    """Bytes as UTF-8 text; malformed sequences become U+FFFD, as Java's `new String(bytes, UTF_8)` does."""
    return F.make_valid_utf8(data.cast("string"))
