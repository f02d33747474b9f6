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


# -- bytes to text in a character set, replacing what is malformed (Java's `Charset.decode`) -------------------------
_REPLACEMENT = "\ufffd"


def _hex_units(hex_text: Column, digits: int) -> Column:
    """The hex digits cut into code units of ``digits`` digits (a trailing part unit is left out)."""
    return F.regexp_extract_all(hex_text, F.lit(f"([0-9A-F]{{{digits}}})"), 1)


#: One token of UTF-16BE hex as Java's decoder reads it, left to right: a surrogate pair, or (group 2) what it
#: replaces by one U+FFFD (a high surrogate with the unit or byte after it, as Java swallows that too, a lone
#: low surrogate, a trailing byte), or (group 3) any other unit. Every branch starts at a unit boundary and
#: consumes whole units, so the matches never lose step; no repetition, so no backtracking on long values.
_UTF16_TOKEN = ("(D[89AB][0-9A-F]{2}D[C-F][0-9A-F]{2})|(D[89AB][0-9A-F]{2}(?:[0-9A-F]{4}|[0-9A-F]{2})?|"
                "D[C-F][0-9A-F]{2}|[0-9A-F]{2}$)|([0-9A-F]{4})")


def _utf16_text(data: Column, order: str) -> Column:
    """UTF-16 text (``order`` BE, LE, or BOM: a byte-order mark decides and is dropped, else big-endian), with
    U+FFFD where Java's decoder reports malformed input (unpaired surrogates, a trailing odd byte)."""
    digits = F.hex(data)
    if order == "BOM":
        little = F.startswith(digits, F.lit("FFFE"))
        marked = little | F.startswith(digits, F.lit("FEFF"))
        digits = F.when(marked, F.substring(digits, F.lit(5), F.length(digits))).otherwise(digits)
        digits = F.when(little, F.regexp_replace(digits, "([0-9A-F]{2})([0-9A-F]{2})", "$2$1")).otherwise(digits)
    elif order == "LE":
        digits = F.regexp_replace(digits, "([0-9A-F]{2})([0-9A-F]{2})", "$2$1")
    # Good tokens come out as they are followed by '<>', bad ones as '<token>'; then '<token>' becomes FFFD.
    marked_tokens = F.regexp_replace(digits, _UTF16_TOKEN, "$1$3<$2>")
    repaired = F.regexp_replace(F.regexp_replace(marked_tokens, "<[0-9A-F]+>", "FFFD"), "<>", "")
    return F.decode(F.unhex(repaired), "UTF-16BE")


def _utf32_text(data: Column) -> Column:
    """UTF-32 text (a byte-order mark decides and is dropped, else big-endian), with U+FFFD for each unit above
    U+10FFFF and for trailing bytes, as Java decodes it."""
    digits = F.hex(data)
    little = F.startswith(digits, F.lit("FFFE0000"))
    marked = little | F.startswith(digits, F.lit("0000FEFF"))
    digits = F.when(marked, F.substring(digits, F.lit(9), F.length(digits))).otherwise(digits)
    units = _hex_units(digits, 8)
    units = F.when(little, F.transform(units, lambda u: F.concat(
        F.substring(u, 7, 2), F.substring(u, 5, 2), F.substring(u, 3, 2), F.substring(u, 1, 2)))).otherwise(units)

    def as_utf16(unit: Column) -> Column:
        """One UTF-32 unit as UTF-16BE hex: one unit, a surrogate pair, or U+FFFD if it is no code point."""
        point = F.conv(unit, 16, 10).cast("long")
        above = point - 0x10000
        pair = F.concat(F.lpad(F.hex(F.lit(0xD800) + F.shiftright(above, 10)), 4, "0"),
                        F.lpad(F.hex(F.lit(0xDC00) + above.bitwiseAND(F.lit(0x3FF))), 4, "0"))
        # Java keeps a surrogate code point as a lone char, which no UTF-8 text can hold: written out, it is '?'.
        return (F.when(point > 0x10FFFF, F.lit("FFFD")).when((point >= 0xD800) & (point <= 0xDFFF), F.lit("003F"))
                .when(point > 0xFFFF, pair).otherwise(F.substring(unit, 5, 4)))

    text = F.decode(F.unhex(F.array_join(F.transform(units, as_utf16), "")), "UTF-16BE")
    trailing = F.length(digits) % 8 != 0
    return F.concat(text, F.when(trailing, F.lit(_REPLACEMENT)).otherwise(F.lit("")))


def decode_charset(data: Column, charset: str) -> Column:
    """Bytes as text in ``charset`` (one of the names Spark's `decode` takes), never failing: what is not valid
    in the character set becomes U+FFFD, as Java's `Charset.decode` (Wrangler's `set-charset`) does. Spark's own
    `decode` throws on such bytes, which fails the whole job for one bad value."""
    if charset == "UTF-8":
        return to_text(data)
    if charset == "US-ASCII":  # every byte is one Latin-1 character; those above 0x7F are not ASCII
        return F.regexp_replace(F.decode(data, "ISO-8859-1"), "[\\x80-\\xFF]", _REPLACEMENT)
    if charset in ("UTF-16BE", "UTF-16LE"):
        return _utf16_text(data, charset[-2:])
    if charset == "UTF-16":
        return _utf16_text(data, "BOM")
    if charset == "UTF-32":
        return _utf32_text(data)
    return F.decode(data, charset)  # ISO-8859-1: every byte is a character


def signed_integer(raw: Column, size: int) -> Column:
    """The big-endian two's-complement integer of ``size`` bytes (Bytes.toLong/toInt/toShort), as decimal(20,0).

    The bounds are decimal literals: 2⁶⁴ as a Python int is past what py4j can hand the JVM as a long."""
    unsigned = F.conv(F.hex(raw), 16, 10).cast("decimal(20,0)")
    half, whole = 2 ** (8 * size - 1), 2 ** (8 * size)
    return F.when(unsigned >= F.lit(str(half)).cast("decimal(20,0)"), unsigned - F.lit(str(whole)).cast(
        "decimal(20,0)")).otherwise(unsigned)
