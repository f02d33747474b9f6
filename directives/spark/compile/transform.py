"""Spark compilers of the transform family: value rewrites, encodings, masking, splitting and text measures.

Each compiler is one projection built from Spark built-ins; where Wrangler fails a row (missing
column, null or wrongly typed value, undecodable text) the row goes to the error output with
Wrangler's message. Deliberate departures from Wrangler are listed in docs/differences/transform.md.
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Callable

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from directives.base import Directive, expression_tree
from directives.catalog.transform import (
    CutCharacter,
    Decode,
    Encode,
    ExtractRegexGroups,
    FillNullOrEmpty,
    FindAndReplace,
    GenerateUUID,
    Hash,
    IndexSplit,
    InPlace,
    LeftTrim,
    Lowercase,
    MaskNumber,
    MaskShuffle,
    Quantize,
    RightTrim,
    SetColumn,
    Split,
    SplitEmail,
    SplitUrl,
    TextCompare,
    TextDistance,
    TextMetric,
    Titlecase,
    Trim,
    Uppercase,
    UrlDecode,
    UrlEncode,
    java_regex_groups,
)
from directives.spark.compile import masking, regex_groups, textmetrics
from directives.spark.compile.common import java_type, split_width
from directives.spark.compilers import Finished, UnsupportedDirectiveError, compiles, python_udf
from directives.spark.expr import byte_codecs
from directives.spark.expr.compiler import add_failures, compile_expression, output_column, output_type
from directives.spark.internals import jvm_of, reference_text
from directives.spark.runtime.frame import Frame, RunContext, Step, col
from grammar.errors import RecipeError

_NUMERIC = ("int", "bigint", "smallint", "tinyint", "double", "float")



def _is_numeric(frame: Frame, name: str) -> bool:
    spark_type = frame.type_of(name)
    return spark_type in _NUMERIC or spark_type.startswith("decimal")


def _missing(d: Directive, frame: Frame, message: str) -> Frame:
    """Wrangler fails every row when the column is absent: all active rows go to the error output."""
    return frame.step(d).fail_when(F.lit(True), message).build()


def _wrong_type(step: Step, frame: Frame, name: str, expected: str) -> Step:
    """Every non-null value of a column of the wrong type fails (the type is a property of the column here)."""
    message = f"Column '{name}' has invalid type '{java_type(frame, name)}'. It should be of type {expected}."
    return step.fail_when(col(name).isNotNull(), message)


def _string_source(d: Directive, frame: Frame, role: str, missing: str | None = None) -> tuple[str, Step]:
    """The prologue of every directive that needs an existing string column: its name and the step; when the column
    is absent or of another type, the compiler is `Finished` with its rows failed as Wrangler fails them."""
    name = frame.find(d.bound(role))
    if name is None:
        raise Finished(_missing(d, frame, missing or f"Column '{d.bound(role)}' does not exist."))
    step = frame.step(d)
    if frame.type_of(name) != "string":
        raise Finished(_wrong_type(step, frame, name, "'String'").build())
    return name, step


def _last_index(text: Column, char: str) -> Column:
    """Java `lastIndexOf(char)`: 0-based position of the last occurrence, or -1."""
    from_end = F.instr(F.reverse(text), char)
    return F.when(from_end == 0, F.lit(-1)).otherwise(F.length(text) - from_end)


def _slice(text: Column, begin: Column, end: Column) -> Column:
    """Java `substring(begin, end)` (0-based, end exclusive) for bounds already known to be valid."""
    return text.substr(begin + 1, end - begin)



@compiles(SetColumn, composable=True)
def set_column(d: SetColumn, frame: Frame, ctx: RunContext) -> Frame:
    """The expression becomes one Column; rows where it fails go to the error output (see docs/expressions.md)."""
    compiled = compile_expression(expression_tree(d.expression), frame, ctx, d)
    value = compiled.value
    step = frame.step(d).set(d.column, output_column(value, ctx), output_type(value))
    return add_failures(step, compiled).build()

# -- cut-character ---------------------------------------------------------------------------------------------------
def cut_ranges(spec: str) -> list[tuple[int, int | None]]:
    """`cut -c` positions as sorted, merged 1-based closed intervals (an open end is None)."""
    intervals: list[tuple[int, int | None]] = []
    for item in spec.strip().split(","):
        low_text, dash, high_text = item.partition("-")
        low = int(low_text) if low_text else 1
        high: int | None = (int(high_text) if high_text else None) if dash else low
        if high is not None and high < low:
            continue
        intervals.append((max(low, 1), high))
    intervals.sort(key=lambda r: r[0])
    merged: list[tuple[int, int | None]] = []
    for low, high in intervals:
        if merged:
            last_low, last_high = merged[-1]
            if last_high is None or low <= last_high + 1:
                merged[-1] = (last_low, None if last_high is None or high is None else max(last_high, high))
                continue
        merged.append((low, high))
    return merged


def _cut_line(line: Column, ranges: list[tuple[int, int | None]]) -> Column:
    pieces = [line.substr(F.lit(low), F.lit(2**31 - 1) if high is None else F.lit(high - low + 1))
              for low, high in ranges]
    return F.concat(*pieces) if pieces else F.lit("")


@compiles(CutCharacter)
def cut_character(d: CutCharacter, frame: Frame, ctx: RunContext) -> Frame:
    name, step = _string_source(d, frame, "source", f"Scope column '{d.source}' does not exist.")
    ranges = cut_ranges(str(d.ranges))
    lines = F.split(col(name), "\n", -1)
    value = F.array_join(F.transform(lines, lambda line: _cut_line(line, ranges)), "\n")
    message = f"Column '{name}' has null value. It should be a non-null 'String'."
    return step.set(d.destination, value).fail_when(col(name).isNull(), message).build()


# -- decode / encode -------------------------------------------------------------------------------------------------
def _as_bytes(frame: Frame, name: str) -> Column | None:
    spark_type = frame.type_of(name)
    if spark_type == "string":
        return col(name).cast("binary")
    if spark_type == "binary":
        return col(name)
    return None


def _codec(d: Encode | Decode, frame: Frame, expected: str, convert: Callable[[Step, str, Column], Column]) -> Frame:
    """The shared body of `encode` and `decode`: the column (absent: nothing happens) as bytes, ``convert``ed into
    the target; a column of another type fails its non-null rows instead."""
    name = frame.find(d.column)
    if name is None:
        return frame
    step = frame.step(d)
    data = _as_bytes(frame, name)
    if data is None:
        return _wrong_type(step, frame, name, expected).build()
    target = d.target
    return step.set(target, _keep_when_null(frame, target, col(name), convert(step, name, data))).build()


def _keep_when_null(frame: Frame, target: str, source: Column, value: Column) -> Column:
    """Wrangler skips null values, leaving an existing target as it was (or absent, which reads as null)."""
    existing = frame.find(target)
    before = col(existing) if existing is not None else F.lit(None)
    return F.when(source.isNull(), before.cast("string")).otherwise(value)


_ENCODERS: dict[str, Callable[[Column], Column]] = {
    "base64": lambda b: F.regexp_replace(F.base64(b), "[\\r\\n]", ""),  # Spark wraps lines at 76; Commons doesn't
    "base32": byte_codecs.base32_encode,
    "hex": lambda b: F.lower(F.hex(b)),
}


@compiles(Encode)
def encode(d: Encode, frame: Frame, ctx: RunContext) -> Frame:
    encoder = _ENCODERS[d.method]
    return _codec(d, frame, "'String' or 'byte array'", lambda step, name, data: encoder(data))


@compiles(Decode)
def decode(d: Decode, frame: Frame, ctx: RunContext) -> Frame:
    return _codec(d, frame, "a non-null 'String' or 'byte array'", functools.partial(_decoded, d.method))


def _decoded(method: str, step: Step, name: str, data: Column) -> Column:
    """The text of the column's value decoded by ``method``; a hex value that is not hex fails its row."""
    text = col(name).cast("string")
    if method == "base64":
        data = byte_codecs.base64_decode(text)
    elif method == "base32":
        data = byte_codecs.base32_decode(text)
    else:
        data = F.unhex(text)
        odd = F.length(text) % 2 == 1
        step.fail_when(col(name).isNotNull() & odd, "Failed to decode hex value. Odd number of characters.")
        step.fail_when(col(name).isNotNull() & ~odd & data.isNull(),
                       "Failed to decode hex value. Illegal hexadecimal character.")
    return byte_codecs.to_text(data)


# -- extract-regex-groups --------------------------------------------------------------------------------------------
def _group_count(ctx: RunContext, d: Directive, regex: str) -> int:
    """Groups of the regex, from Java's own `Pattern` when the JVM is reachable (which also validates it)."""
    jvm = jvm_of(ctx.spark)
    if jvm is not None:
        try:
            return int(jvm.java.util.regex.Pattern.compile(regex).matcher("").groupCount())
        except Exception as error:  # py4j wraps PatternSyntaxException
            span = d.call.span
            detail = str(error).split("PatternSyntaxException:")[-1].strip().splitlines()[0]
            raise RecipeError(f"Invalid regex '{regex}': {detail}", line=span.line, column=span.column,
                              directive=d.name) from None
    counted = java_regex_groups(regex)
    return counted if counted is not None else 0


@compiles(ExtractRegexGroups)
def extract_regex_groups(d: ExtractRegexGroups, frame: Frame, ctx: RunContext) -> Frame:
    name = frame.find(d.column)
    regex = str(d.regex)
    groups = _group_count(ctx, d, regex)
    if name is None or frame.type_of(name) != "string" or groups == 0:
        return frame  # Wrangler only reads String values
    value = col(name)
    matches = F.regexp_extract_all(value, F.lit(regex), 0)
    width = ctx.declared_widths.get(d.index)
    if width is None:
        width = split_width(frame, matches)
    marked = regex_groups.mark_groups(regex, groups)
    columns: list[Callable[[int], Column]] = []
    for group in range(1, groups + 1):
        if marked is not None:
            before, after = marked.markers[group - 1]
            pattern = F.lit(marked.regex)
            values = F.regexp_extract_all(value, pattern, group)
            ahead = F.regexp_extract_all(value, pattern, before)
            behind = F.regexp_extract_all(value, pattern, after)

            def pick(k: int, values: Column = values, ahead: Column = ahead, behind: Column = behind) -> Column:
                took_part = (F.get(values, k) != "") | (F.get(ahead, k) != "") | (F.get(behind, k) != "")
                return F.when(took_part, F.get(values, k))
        else:
            plain = F.regexp_extract_all(value, F.lit(regex), group)

            def pick(k: int, plain: Column = plain) -> Column:
                return F.get(plain, k)
        columns.append(pick)
    step = frame.step(d)
    for match in range(width):
        for group, pick in enumerate(columns, start=1):
            step.set(f"{d.column}_{match + 1}_{group}", pick(match))
    return step.build()


# -- fill-null-or-empty ----------------------------------------------------------------------------------------------
def _fits(value: str, spark_type: str) -> bool:
    """Whether the fill text is a value of a non-string column's type (then the column keeps its type)."""
    text = value.strip()
    if spark_type in ("int", "bigint", "smallint", "tinyint"):
        bits = {"int": 32, "bigint": 64, "smallint": 16, "tinyint": 8}[spark_type]
        return bool(re.fullmatch(r"[+-]?\d+", text)) and -(2 ** (bits - 1)) <= int(text) < 2 ** (bits - 1)
    if spark_type in ("double", "float") or spark_type.startswith("decimal"):
        try:
            float(text)
        except ValueError:
            return False
        return True
    if spark_type == "boolean":
        return text.lower() in ("true", "false")
    return False


@compiles(FillNullOrEmpty, composable=True)
def fill_null_or_empty(d: FillNullOrEmpty, frame: Frame, ctx: RunContext) -> Frame:
    name = frame.find(d.column)
    fill = str(d.value)
    step = frame.step(d)
    if name is None:
        return step.set(d.column, F.lit(fill), T.StringType()).build()
    spark_type = frame.type_of(name)
    value = col(name)
    if spark_type == "string":
        # (`nullif` names the value once: composed into the next projection, a value read three times would be
        # computed three times, and its text would grow three times as fast)
        return step.set(name, F.coalesce(F.nullif(value, F.lit("")), F.lit(fill)), T.StringType()).build()
    if _fits(fill, spark_type):
        return step.set(name, F.coalesce(value, F.lit(fill.strip()).cast(spark_type)), frame.data_type(name)).build()
    return step.set(name, F.coalesce(value.cast("string"), F.lit(fill)), T.StringType()).build()


# -- find-and-replace ------------------------------------------------------------------------------------------------
@compiles(FindAndReplace)
def find_and_replace(d: FindAndReplace, frame: Frame, ctx: RunContext) -> Frame:
    sed = d.sed
    regex = sed.pattern.pattern
    if sed.pattern.flags & re.IGNORECASE:
        regex = "(?i)" + regex
    replacement = sed.java_replacement
    step = frame.step(d)
    for wanted in dict.fromkeys(c.lower() for c in d.column):
        name = frame.find(wanted)
        if name is None or frame.type_of(name) != "string":
            continue  # Wrangler rewrites String values only
        value = col(name)
        if sed.global_:
            replaced = F.regexp_replace(value, F.lit(regex), F.lit(replacement))
        else:
            start = F.regexp_instr(value, F.lit(regex))
            head = value.substr(F.lit(1), start - 1)
            tail = value.substr(start, F.length(value) + 1)
            first = F.regexp_replace(tail, F.lit(f"^(?:{regex})"), F.lit(replacement))
            replaced = F.when(start > 0, F.concat(head, first)).otherwise(value)
        step.set(name, replaced)
    return step.build()


# -- generate-uuid ---------------------------------------------------------------------------------------------------
@compiles(GenerateUUID)
def generate_uuid(d: GenerateUUID, frame: Frame, ctx: RunContext) -> Frame:
    return frame.step(d).set(d.column, F.expr("uuid()")).build()


# -- hash ------------------------------------------------------------------------------------------------------------
_SPARK_DIGESTS: dict[str, Callable[[Column], Column]] = {
    "MD5": F.md5, "SHA": F.sha1, "SHA-1": F.sha1,
    "SHA-224": lambda b: F.sha2(b, 224), "SHA-256": lambda b: F.sha2(b, 256),
    "SHA-384": lambda b: F.sha2(b, 384), "SHA-512": lambda b: F.sha2(b, 512),
}
#: Digests Spark lacks but Python's hashlib has everywhere (name, constructor arguments).
_HASHLIB_DIGESTS: dict[str, tuple[str, int | None]] = {
    "SHA3-224": ("sha3_224", None), "SHA3-256": ("sha3_256", None), "SHA3-384": ("sha3_384", None),
    "SHA3-512": ("sha3_512", None), "BLAKE2B-160": ("blake2b", 20), "BLAKE2B-256": ("blake2b", 32),
    "BLAKE2B-384": ("blake2b", 48), "BLAKE2B-512": ("blake2b", 64),
    "SHA-512/224": ("sha512_224", None), "SHA-512/256": ("sha512_256", None),
}
python_udf(Hash, "Spark has MD5, SHA-1 and SHA-2 only; SHA3-*, BLAKE2B-* and SHA-512/t digests use Python's "
                   "hashlib (the other algorithms run natively)")


def _hashlib_available(algorithm: str) -> bool:
    import hashlib

    name, size = _HASHLIB_DIGESTS[algorithm]
    try:
        hashlib.new(name, b"", **({"digest_size": size} if size else {}))
    except (ValueError, TypeError):
        return False
    return True


def _hashlib_hex(algorithm: str) -> Callable[[Column], Column]:
    name, size = _HASHLIB_DIGESTS[algorithm]
    options = {"digest_size": size} if size else {}

    def digest(data: bytes | bytearray | None) -> str | None:
        import hashlib

        return None if data is None else hashlib.new(name, bytes(data), **options).hexdigest()

    udf = F.udf(lambda data: digest(data), T.StringType())  # untyped: PySpark would guess an eval type from hints
    return lambda b: udf(b)


def _digest_hex_length(algorithm: str) -> int:
    """How many hex digits the algorithm's digest has."""
    if algorithm in _SPARK_DIGESTS:
        return {"MD5": 32, "SHA": 40, "SHA-1": 40}.get(algorithm) or int(algorithm.removeprefix("SHA-")) // 4
    import hashlib

    name, size = _HASHLIB_DIGESTS[algorithm]
    return 2 * (size or hashlib.new(name).digest_size)


def _hex64(hex_digest: Column, length: int) -> Column:
    """`String.format("%064x", new BigInteger(1, digest))` from the full-length hex of a digest.

    The number's digits padded to at least 64: a 64-digit hex is already that (SHA-256 costs nothing
    extra), a shorter one is left-padded, and a longer one loses at most ``length - 64`` leading zeros.
    """
    if length == 64:
        return hex_digest
    if length < 64:
        return F.lpad(hex_digest, 64, "0")
    return F.regexp_replace(hex_digest, f"^0{{1,{length - 64}}}", "")


@compiles(Hash, composable=lambda d: str(d.algorithm) in _SPARK_DIGESTS)  # a Python UDF's value is built once
def hash_(d: Hash, frame: Frame, ctx: RunContext) -> Frame:
    algorithm = str(d.algorithm)
    if algorithm in _SPARK_DIGESTS:
        hexer = _SPARK_DIGESTS[algorithm]
    elif algorithm in _HASHLIB_DIGESTS and _hashlib_available(algorithm):
        hexer = _hashlib_hex(algorithm)
        ctx.udf_directives.append(d.name)
    else:
        span = d.call.span
        raise UnsupportedDirectiveError(
            f"Hash algorithm '{algorithm}' cannot run on Spark here: neither Spark nor Python's hashlib has it "
            f"(supported: {', '.join([*_SPARK_DIGESTS, *_HASHLIB_DIGESTS])}).",
            line=span.line, column=span.column, directive=d.name)
    name = frame.find(d.column)
    if name is None:
        return _missing(d, frame, f"Column '{d.column}' does not exist.")
    step = frame.step(d)
    data = _as_bytes(frame, name)
    if data is None:
        return _wrong_type(step, frame, name, "'String' or 'byte array'").build()
    hex_digest = hexer(data)
    value = _hex64(hex_digest, _digest_hex_length(algorithm)) if d.encode else F.unhex(hex_digest)
    message = f"Column '{name}' has null value. It should be a non-null 'String' or 'byte array'."
    kind = T.StringType() if d.encode else T.BinaryType()  # declared: asking for it later needs no analysis
    return step.set(name, value, kind).fail_when(col(name).isNull(), message).build()


# -- indexsplit ------------------------------------------------------------------------------------------------------
@compiles(IndexSplit)
def indexsplit(d: IndexSplit, frame: Frame, ctx: RunContext) -> Frame:
    name, step = _string_source(d, frame, "source", f"{d.source} is not of type string in the row. "
                                          "Please check the wrangle configuration.")
    value = col(name)
    start = max(int(d.start) - 1, 0)
    end = F.least(F.lit(int(d.end) - 1), F.length(value))
    result = F.when(end >= start, _slice(value, F.lit(start), end)).otherwise(F.lit(""))
    message = f"Column '{name}' has null value. It should be a non-null 'String'."
    return step.set(d.destination, result).fail_when(value.isNull(), message).build()


# -- trims and case ----------------------------------------------------------------------------------------------------


def _titlecase(value: Column) -> Column:
    """`WordUtils.capitalizeFully`: lower-case, then title-case the first letter after any Java whitespace."""
    words = F.split(value, "(?<=\\p{javaWhitespace})", -1)
    return F.array_join(F.transform(words, F.initcap), "")


#: Wrangler's `Trimmer` whitespace, for Spark's `trim(BOTH chars FROM v)` (codegen, no regex per row).
_SPACE_CHARS = "\t\n\x0b\f\r \u0085\u00a0\u1680\u180e" + "".join(map(chr, range(0x2000, 0x200B))) + \
    "\u2028\u2029\u202f\u205f\u3000"


def _plain_start(text: Column) -> Column:
    """Whether a string starts with printable ASCII, so not with one of `_SPACE_CHARS` (all of which are at most a
    space or outside ASCII). Two byte-wise comparisons: no copy, no character count. An empty string is not plain."""
    return (text >= F.lit("!")) & (text < F.lit("\x7f"))


def _trimmed(value: Column, start: bool, end: bool) -> Column:
    """Spark's `trim(chars FROM v)` tests every end character against each of the 26 characters (copying
    each one), which made `trim` as dear as parsing the CSV record. Values are mostly clean or padded with
    plain spaces, which Spark's own `trim` strips cheaply; when what is left starts and ends with printable
    ASCII, the full trim would have stopped there too. Only the other values pay for the full trim."""
    name = reference_text(value)
    if name is not None:
        return F.expr(_trimmed_text(name, start, end))
    chars = F.lit(_SPACE_CHARS)
    if start and end:
        spaced, full = F.trim(value), F.trim(value, chars)
    elif start:
        spaced, full = F.ltrim(value), F.ltrim(value, chars)
    else:
        spaced, full = F.rtrim(value), F.rtrim(value, chars)
    ends = ([spaced] if start else []) + ([F.substring(spaced, -1, 1)] if end else [])
    plain = functools.reduce(operator.and_, map(_plain_start, ends))
    return F.when(plain, spaced).otherwise(full)


def _trimmed_text(name: str, start: bool, end: bool) -> str:
    """`_trimmed` of the column ``name`` (quoted) as one SQL text: the same expression, one round trip to make where
    the Column operations take two dozen (a long recipe trims many columns)."""
    spaced = f"{'trim' if start and end else 'ltrim' if start else 'rtrim'}({name})"
    side = "BOTH" if start and end else "LEADING" if start else "TRAILING"
    ends = ([spaced] if start else []) + ([f"substring({spaced}, -1, 1)"] if end else [])
    plain = " AND ".join(f"({text} >= '!' AND {text} < '\x7f')" for text in ends)
    return f"CASE WHEN {plain} THEN {spaced} ELSE trim({side} '{_SPACE_CHARS}' FROM {name}) END"


_STRING_REWRITES: dict[type[InPlace], Callable[[Column], Column]] = {
    LeftTrim: lambda v: _trimmed(v, start=True, end=False),
    RightTrim: lambda v: _trimmed(v, start=False, end=True),
    Trim: lambda v: _trimmed(v, start=True, end=True),
    Lowercase: F.lower,
    Uppercase: F.upper,
    Titlecase: _titlecase,
}


@compiles(*_STRING_REWRITES, composable=True)
def string_rewrite(d: InPlace, frame: Frame, ctx: RunContext) -> Frame:
    name = frame.find(d.column)
    if name is None or frame.type_of(name) != "string":
        return frame  # Wrangler rewrites String values only and ignores a missing column
    return frame.step(d).set(name, _STRING_REWRITES[type(d)](col(name)), T.StringType()).build()


# -- url-decode / url-encode -------------------------------------------------------------------------------------------
@compiles(UrlEncode, UrlDecode)
def url_codec(d: InPlace, frame: Frame, ctx: RunContext) -> Frame:
    name, step = _string_source(d, frame, "column")
    value = col(name)
    step.fail_when(value.isNull(), f"Column '{name}' has null value. It should be a non-null 'String'.")
    if isinstance(d, UrlEncode):
        return step.set(name, F.url_encode(value)).build()
    decoded = F.try_url_decode(value)
    step.fail_when(value.isNotNull() & decoded.isNull(),
                   F.concat(F.lit(f"Column '{name}' value '"), value, F.lit("' is not valid URL-encoded text.")))
    return step.set(name, decoded).build()


# -- masking -----------------------------------------------------------------------------------------------------------
@compiles(MaskNumber, composable=True)
def mask_number(d: MaskNumber, frame: Frame, ctx: RunContext) -> Frame:
    name = frame.find(d.column)
    step = frame.step(d)
    if name is None:
        return step.set(d.column, F.lit("")).build()
    value = col(name)
    masked = masking.mask_number(value, str(d.mask))
    if frame.type_of(name) == "string":
        return step.set(name, F.when(value.isNull(), value).otherwise(masked), T.StringType()).build()
    return step.set(name, F.when(value.isNull(), F.lit(None).cast("string")).otherwise(masked), T.StringType()).build()


@compiles(MaskShuffle)
def mask_shuffle(d: MaskShuffle, frame: Frame, ctx: RunContext) -> Frame:
    name, step = _string_source(d, frame, "column")
    return step.set(name, masking.mask_shuffle(col(name))).build()


# -- quantize ----------------------------------------------------------------------------------------------------------
@compiles(Quantize)
def quantize(d: Quantize, frame: Frame, ctx: RunContext) -> Frame:
    name = frame.find(d.source)
    if name is None:
        return _missing(d, frame, f"Column '{d.source}' does not exist.")
    step = frame.step(d)
    value = col(name)
    expected = "'String', 'Float' or 'Double'"
    if frame.type_of(name) == "string":
        number = value.cast("double")
        step.fail_when(value.isNotNull() & number.isNull(), f"Column '{name}' has invalid type. It should be of "
                                                              f"type {expected}.")
    elif _is_numeric(frame, name):
        number = value.cast("double")
    else:
        return _wrong_type(step, frame, name, expected).build()
    label: Column = F.lit(None).cast("string")
    for entry in d.ranges:  # a later range wins where ranges overlap (Guava RangeMap.put)
        inside = (number >= F.lit(entry.low)) & (number <= F.lit(entry.high))
        label = F.when(inside, F.lit(entry.value)).otherwise(label)
    step.fail_when(value.isNull(), f"Column '{name}' has null value. It should be a non-null {expected}.")
    return step.set(d.destination, label).build()


# -- split / split-email / split-url -----------------------------------------------------------------------------------
@compiles(Split)
def split(d: Split, frame: Frame, ctx: RunContext) -> Frame:
    name, step = _string_source(d, frame, "source", f"{d.source} is not of type string. "
                                          "Please check the wrangle configuration.")
    parts = F.split(col(name), str(d.delimiter), 2)
    first, second = F.get(parts, 0), F.get(parts, 1)
    leading = first == ""  # the value starts with the delimiter: Wrangler moves the rest into column1
    step.set(d.column1, F.when(leading, second).otherwise(first))
    step.set(d.column2, F.when(leading, F.lit(None).cast("string")).otherwise(second))
    return step.build()


@compiles(SplitEmail)
def split_email(d: SplitEmail, frame: Frame, ctx: RunContext) -> Frame:
    name, step = _string_source(d, frame, "column")
    value = col(name)
    opening, closing = _last_index(value, "<"), _last_index(value, ">")
    # `Name <account@domain>`: the address is between the last '<' and the last '>'.
    address = (F.when(opening == -1, value)
               .when(closing > opening, _slice(value, opening + 1, closing)))
    at = _last_index(address, "@")
    found = at >= 0
    column = d.column
    step.set(f"{column}_account", F.when(found, _slice(address, F.lit(0), at)))
    step.set(f"{column}_domain", F.when(found, address.substr(at + 2, F.length(address))))
    return step.build()


#: Protocols `java.net.URL` has handlers for; any other makes Wrangler's `new URL(...)` fail.
_URL_PROTOCOLS = ("http", "https", "ftp", "file", "jar", "mailto", "netdoc", "jrt")


@compiles(SplitUrl)
def split_url(d: SplitUrl, frame: Frame, ctx: RunContext) -> Frame:
    name, step = _string_source(d, frame, "column")
    value = col(name)

    def part(key: str) -> Column:
        return F.try_parse_url(value, F.lit(key))

    protocol = part("PROTOCOL")
    authority = part("AUTHORITY")
    port_text = F.regexp_extract(F.coalesce(authority, F.lit("")), r":(\d+)$", 1)
    port = F.when(port_text == "", F.lit(-1)).otherwise(port_text.cast("int"))
    path = F.coalesce(part("PATH"), F.lit(""))
    query = part("QUERY")
    filename = F.when(query.isNull(), path).otherwise(F.concat(path, F.lit("?"), query))
    column = d.column
    valid = F.lower(protocol).isin(*_URL_PROTOCOLS)
    host = F.coalesce(part("HOST"), F.lit(""))  # URL.getHost() is "" without an authority
    parts = {"protocol": protocol, "authority": authority, "host": host, "port": port, "path": path,
             "filename": filename, "query": query}
    for suffix, expression in parts.items():
        step.set(f"{column}_{suffix}", F.when(value.isNotNull(), expression))
    message = F.concat(F.lit("Malformed url '"), value, F.lit(f"' found in column '{name}'."))
    return step.fail_when(value.isNotNull() & ~F.coalesce(valid, F.lit(False)), message).build()


# -- text-distance / text-metric ---------------------------------------------------------------------------------------
python_udf(TextDistance, "simmetrics token, Jaro, Damerau-Levenshtein and longest-common measures have no Spark "
                            "built-in (levenshtein and identity run natively)")
python_udf(TextMetric, "simmetrics token, Jaro, Damerau-Levenshtein and longest-common measures have no Spark "
                          "built-in (levenshtein and identity run natively)")


def _native_measure(method: str, distance: bool) -> Callable[[Column, Column], Column] | None:
    if method == "identity":
        same = lambda a, b: F.when(a == b, F.lit(1.0)).otherwise(F.lit(0.0))  # noqa: E731
        return (lambda a, b: 1.0 - same(a, b)) if distance else same
    if method == "levenshtein":
        if distance:
            return lambda a, b: F.levenshtein(a, b).cast("double")
        return lambda a, b: 1.0 - F.levenshtein(a, b) / F.greatest(F.length(a), F.length(b))
    return None


def _udf_measure(method: str, distance: bool) -> Callable[[Column, Column], Column]:
    function = textmetrics.measure(method, distance)

    def score(a: str | None, b: str | None) -> float | None:
        if a is None or b is None:
            return None
        return float(function(a, b))

    udf = F.udf(lambda a, b: score(a, b), T.DoubleType())  # untyped: PySpark would guess an eval type from hints
    return lambda a, b: udf(a, b)


@compiles(TextDistance, TextMetric)
def text_compare(d: TextCompare, frame: Frame, ctx: RunContext) -> Frame:
    method = d.method
    distance = isinstance(d, TextDistance)
    first, second = frame.find(d.column1), frame.find(d.column2)
    zero = F.lit(0.0).cast("float")
    step = frame.step(d)
    if first is None or second is None or frame.type_of(first) != "string" or frame.type_of(second) != "string":
        return step.set(d.destination, zero).build()
    a, b = col(first), col(second)
    measure = _native_measure(method, distance)
    if measure is None:
        measure = _udf_measure(method, distance)
        ctx.udf_directives.append(d.name)
    usable = a.isNotNull() & b.isNotNull() & (a != "") & (b != "")
    return step.set(d.destination, F.when(usable, measure(a, b).cast("float")).otherwise(zero)).build()
