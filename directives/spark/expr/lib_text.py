"""The rest of `string:` (commons-lang 2.6 StringUtils), `strings:` (Guava Strings) and `escape:`
(commons-lang3 StringEscapeUtils), as native Spark expressions.

StringUtils is null-safe: a null text gives null (or false, -1, 0 as each method documents); the methods
below follow those rules. Spark's regex engine is Java's, so `\\p{javaWhitespace}` and friends mean what
`Character.isWhitespace` means.
"""

from __future__ import annotations

import html.entities
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from pyspark.sql import Column
from pyspark.sql import functions as F

from directives.spark.expr.functions import (
    FUNCTIONS,
    MANY,
    Impl,
    _i,
    _literal_text,
    _s,
    _unless_too_long,
    fn,
    spaces_unless_empty,
)
from directives.spark.expr.values import Compiling, Value, constant

if TYPE_CHECKING:
    from grammar.expression import Expr

_WS = r"\p{javaWhitespace}"
_BIG = 1 << 30


def _text(column: Column) -> Value:
    return Value(column, "string")


def _bool(column: Column) -> Value:
    return Value(F.coalesce(column, F.lit(False)), "bool")


def _int(column: Column) -> Value:
    return Value(column.cast("int"), "int")


def _array(column: Column) -> Value:
    return Value(column, "array", element="string")


def _strings(value: Value) -> Column:
    """An argument Java takes as String[]: an array's items as text, or one text as a one-item array."""
    if value.kind == "array":
        return F.transform(value.col, lambda item: item.cast("string"))
    if value.kind == "null":
        return F.lit(None).cast("array<string>")
    return F.when(_s(value).isNotNull(), F.array(_s(value)))


def _chars(value: Value) -> Column:
    """The characters of a text, as an array (a Java char[] / 'searchChars' string)."""
    return F.split(_s(value), "")


def _class(c: Compiling, node: Expr, value: Value, what: str) -> str:
    """A regex character class of a constant set of characters."""
    chars = _literal_text(c, node, value, what)
    return "[" + "".join(re.escape(ch) if ch not in "-" else r"\-" for ch in chars) + "]" if chars else "[^\\s\\S]"


def _quote(text: str) -> str:
    return re.escape(text)


def _array_join(items: Column, separator: Column | str) -> Column:
    """array_join with a separator that may be a column."""
    return F.call_function("array_join", items, separator if isinstance(separator, Column) else F.lit(separator))


def _sub(text: Column, start: Column, end: Column | None = None) -> Column:
    """Java substring(start[, end]) with 0-based indexes (no range checks)."""
    if end is None:
        return F.substring(text, start + 1, _BIG) if isinstance(start, Column) else text.substr(start + 1, _BIG)
    return text.substr(start + 1, end - start)


def _index(text: Column, part: Column, start: Column | None = None) -> Column:
    """String.indexOf(part[, start]) (−1 when absent)."""
    if start is None:
        return F.instr(text, part) - 1
    return F.call_function("locate", part, text, F.greatest(start, F.lit(0)) + 1) - 1


def _last_index(text: Column, part: Column) -> Column:
    """String.lastIndexOf(part)."""
    at = F.instr(F.reverse(text), F.reverse(part))
    return F.when(F.length(part) == 0, F.length(text)).when(at > 0, F.length(text) - F.length(part) - at + 1) \
        .otherwise(-1)


def _common_prefix_length(a: Column, b: Column) -> Column:
    """How many characters two texts share at the start: the first position where their characters differ.

    One pass over both (the characters side by side); a fold that measured and cut both texts at every position
    took seconds on two texts of ten thousand characters."""
    same = F.zip_with(F.split(a, ""), F.split(b, ""), lambda x, y: F.coalesce(x == y, F.lit(False)))
    first_difference = F.array_position(same, False).cast("int")
    return F.when(first_difference > 0, first_difference - 1).otherwise(F.least(F.length(a), F.length(b)))


def _register(names: str, low: int, high: int | None, doc: str) -> Callable[[Impl], Impl]:
    return fn("string", names, low, high, doc=doc)


# -- tests on characters ---------------------------------------------------------------------------------------------
for _name, _pattern, _what in (
    ("isAlphaSpace", r"^[\p{javaLetter} ]*$", "letters and spaces"),
    ("isAlphanumericSpace", r"^[\p{javaLetterOrDigit} ]*$", "letters, digits and spaces"),
    ("isNumericSpace", r"^[\p{javaDigit} ]*$", "digits and spaces"),
    ("isWhitespace", rf"^{_WS}*$", "whitespace only"),
    ("isAsciiPrintable", r"^[\x20-\x7e]*$", "printable ASCII only"),
):
    fn("string", _name, 1, doc=f"StringUtils.{_name}: {_what} (null: false)")(
        (lambda pattern: lambda c, node, args: _bool(_s(args[0]).rlike(pattern)))(_pattern))


@_register("containsAny", 2, None, "StringUtils.containsAny(text, chars): one of the characters occurs")
def _contains_any(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text = _s(args[0])
    if args[1].kind == "array":
        return _bool(F.exists(_strings(args[1]), lambda ch: F.instr(text, ch) > 0))
    return _bool((F.length(_s(args[1])) > 0) & F.exists(_chars(args[1]), lambda ch: F.instr(text, ch) > 0))


@_register("containsNone", 2, None, "StringUtils.containsNone(text, chars): none of the characters occurs "
           "(null: true)")
def _contains_none(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text = _s(args[0])
    hit = F.exists(_chars(args[1]), lambda ch: (F.length(ch) > 0) & (F.instr(text, ch) > 0))
    return Value(F.coalesce(~hit, F.lit(True)), "bool")


@_register("containsOnly", 2, None, "StringUtils.containsOnly(text, chars): every character is one of them "
           "('' true, null false)")
def _contains_only(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text, valid = _s(args[0]), _s(args[1])
    only = F.forall(F.split(text, ""), lambda ch: (F.length(ch) == 0) | (F.instr(valid, ch) > 0))
    return _bool(F.when(text.isNull() | valid.isNull(), F.lit(False)).when(F.length(text) == 0, F.lit(True))
                 .otherwise(only))


@_register("indexOfAny", 2, None, "StringUtils.indexOfAny(text, chars | strings[]): first index of any (−1)")
def _index_of_any(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text = _s(args[0])
    items = _strings(args[1]) if args[1].kind == "array" else _chars(args[1])
    found = F.filter(F.transform(items, lambda item: F.when(F.length(item) > 0, F.instr(text, item) - 1)),
                     lambda at: at >= 0)
    return _int(F.coalesce(F.array_min(found), F.lit(-1)))


@_register("lastIndexOfAny", 2, None, "StringUtils.lastIndexOfAny(text, strings[]): last index of any (−1)")
def _last_index_of_any(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text = _s(args[0])
    found = F.transform(_strings(args[1]), lambda item: F.when(item.isNotNull(), _last_index(text, item)))
    return _int(F.coalesce(F.array_max(found), F.lit(-1)))


@_register("indexOfAnyBut", 2, None, "StringUtils.indexOfAnyBut(text, chars): first index of a character not "
           "among them (−1)")
def _index_of_any_but(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text, chars = _s(args[0]), _s(args[1])
    # one pass over the characters ('' splits to [''], which every search text holds: -1)
    outside = F.transform(F.split(text, ""), lambda ch: F.instr(chars, ch) == 0)
    return _int(F.when(F.length(chars) > 0, F.coalesce(F.array_position(outside, True) - 1, F.lit(-1))).otherwise(-1))


def _ignore_case_index(last: bool) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        text, part = F.lower(_s(args[0])), F.lower(_s(args[1]))
        if last:
            if len(args) == 3:
                text = text.substr(F.lit(1), _i(args[2]) + F.length(part))
            return _int(F.coalesce(_last_index(text, part), F.lit(-1)))
        start = _i(args[2]) if len(args) == 3 else F.lit(0)
        return _int(F.coalesce(_index(text, part, start), F.lit(-1)))
    return apply


_register("indexOfIgnoreCase", 2, 3, "StringUtils.indexOfIgnoreCase(text, search[, start])")(_ignore_case_index(False))
_register("lastIndexOfIgnoreCase", 2, 3, "StringUtils.lastIndexOfIgnoreCase(text, search[, start])")(
    _ignore_case_index(True))


def _at_most_one_more_than_length(text: Column, count: Column) -> Column:
    """A count of searches through a text, cut to its length + 1: no text holds more occurrences than characters, so
    further steps change nothing. Uncut, a count near 2³¹ asked Spark's `sequence` for more elements than an array
    holds and failed the job."""
    return F.least(F.greatest(count, F.lit(1)), F.coalesce(F.length(text), F.lit(0)) + 1)


@_register("ordinalIndexOf", 3, None, "StringUtils.ordinalIndexOf(text, search, n): index of the n-th occurrence")
def _ordinal_index_of(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text, part, n = _s(args[0]), _s(args[1]), _i(args[2])
    start = F.struct(F.lit(-1).alias("at"), F.lit(True).alias("ok"))
    steps = F.aggregate(F.sequence(F.lit(1), _at_most_one_more_than_length(text, n)), start, lambda state, _: F.struct(
        F.when(state["ok"], F.call_function("locate", part, text, state["at"] + 2) - 1)
        .otherwise(state["at"]).alias("at"),
        (state["ok"] & (F.call_function("locate", part, text, state["at"] + 2) > 0)).alias("ok")))
    return _int(F.when(text.isNull() | part.isNull() | (n <= 0), F.lit(-1))
                .when(F.length(part) == 0, F.lit(0)).when(steps["ok"], steps["at"]).otherwise(-1))


@_register("lastOrdinalIndexOf", 3, None, "StringUtils.lastOrdinalIndexOf(text, search, n): index of the n-th "
           "occurrence from the end")
def _last_ordinal_index_of(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text, part = _s(args[0]), _s(args[1])
    reversed_at = _ordinal_index_of(c, node, [_text(F.reverse(text)), _text(F.reverse(part)), args[2]]).col
    return _int(F.when(F.length(part) == 0, F.length(text)).when(reversed_at >= 0, F.length(text) - F.length(part)
                                                                  - reversed_at).otherwise(-1))


@_register("indexOfDifference", 1, 2, "StringUtils.indexOfDifference(a, b) or (strings[]): first index where they "
           "differ (−1 when equal)")
def _index_of_difference(c: Compiling, node: Expr, args: list[Value]) -> Value:
    if len(args) == 2:
        a, b = _s(args[0]), _s(args[1])
        return _int(F.when(a.eqNullSafe(b), F.lit(-1)).when(a.isNull() | b.isNull(), F.lit(0))
                    .otherwise(_common_prefix_length(a, b)))
    items = _strings(args[0])
    first = F.element_at(items, 1)
    prefix = F.aggregate(items, F.length(first), lambda acc, item: F.least(acc, _common_prefix_length(first, item)))
    all_equal = F.forall(items, lambda item: item.eqNullSafe(first))
    any_null = F.exists(items, lambda item: item.isNull())
    return _int(F.when((F.size(items) <= 1) | all_equal, F.lit(-1)).when(any_null, F.lit(0)).otherwise(prefix))


@_register("getCommonPrefix", 1, None, "StringUtils.getCommonPrefix(strings[]): the longest common prefix")
def _get_common_prefix(c: Compiling, node: Expr, args: list[Value]) -> Value:
    at = _index_of_difference(c, node, args).col
    first = F.element_at(_strings(args[0]), 1)
    return _text(F.when(at == -1, F.coalesce(first, F.lit(""))).otherwise(F.coalesce(first.substr(F.lit(1), at),
                                                                                      F.lit(""))))


@_register("difference", 2, None, "StringUtils.difference(a, b): the rest of b from where it differs from a")
def _difference(c: Compiling, node: Expr, args: list[Value]) -> Value:
    a, b = _s(args[0]), _s(args[1])
    at = _index_of_difference(c, node, args).col
    return _text(F.when(a.isNull(), b).when(b.isNull(), a).when(at == -1, F.lit("")).otherwise(_sub(b, at)))


@_register("getLevenshteinDistance", 2, None, "StringUtils.getLevenshteinDistance; a null text fails the row")
def _levenshtein(c: Compiling, node: Expr, args: list[Value]) -> Value:
    a, b = _s(args[0]), _s(args[1])
    c.fail_when(a.isNull() | b.isNull(), "Strings must not be null")
    return _int(F.when(a == b, F.lit(0)).otherwise(F.levenshtein(a, b)))  # equal: 0 without the n × m table


# -- cutting and padding ---------------------------------------------------------------------------------------------
@_register("abbreviate", 2, 3, "StringUtils.abbreviate(text, [offset,] maxWidth): cut with '...'; maxWidth < 4 "
           "(with an offset > 4: < 7) fails the row")
def _abbreviate(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text = _s(args[0])
    length = F.length(text)
    width = _i(args[-1])
    offset = _i(args[1]) if len(args) == 3 else F.lit(0)
    c.fail_when(text.isNotNull() & (length > width) & (width < 4), "Minimum abbreviation width is 4")
    offset = F.least(offset, length)
    offset = F.when(length - offset < width - 3, length - (width - 3)).otherwise(offset)
    head = F.concat(text.substr(F.lit(1), width - 3), F.lit("..."))
    c.fail_when(text.isNotNull() & (length > width) & (offset > 4) & (width < 7),
                "Minimum abbreviation width with offset is 7")
    rest = _sub(text, offset)
    inner = F.when(F.length(rest) <= width - 3, rest).otherwise(F.concat(rest.substr(F.lit(1), width - 6),
                                                                         F.lit("...")))
    middle = F.when(offset + (width - 3) < length, F.concat(F.lit("..."), inner)).otherwise(
        F.concat(F.lit("..."), _sub(text, length - (width - 3))))
    return _text(F.when(length <= width, text).when(offset <= 4, head).otherwise(middle))


@_register("abbreviateMiddle", 3, None, "StringUtils.abbreviateMiddle(text, middle, length)")
def _abbreviate_middle(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text, middle, size = _s(args[0]), _s(args[1]), _i(args[2])
    target = size - F.length(middle)
    start = F.floor(target / 2) + target % 2
    end = F.length(text) - F.floor(target / 2)
    keep = (F.coalesce(F.length(text), F.lit(0)) == 0) | (F.coalesce(F.length(middle), F.lit(0)) == 0) | (
        size >= F.length(text)) | (size < F.length(middle) + 2)
    return _text(F.when(keep, text).otherwise(F.concat(text.substr(F.lit(1), start), middle, _sub(text, end))))


@_register("center", 2, 3, "StringUtils.center(text, size[, pad]): padded on both sides (left gets the smaller half)")
def _center(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text, size = _s(args[0]), _i(args[1])
    pad = spaces_unless_empty(_s(args[2])) if len(args) == 3 else F.lit(" ")
    pads = size - F.length(text)
    left = F.lpad(text, F.length(text) + F.floor(pads / 2).cast("int"), pad)
    # a width near 2³¹ would have Spark build a 2 GB text and end the JVM: past MAX_BUILT_TEXT the row fails
    centred = _unless_too_long(c, F.when(pads > 0, size), F.rpad(left, size, pad))
    return _text(F.when((pads <= 0) | (size <= 0), text).otherwise(centred))


@_register("overlay", 4, None, "StringUtils.overlay(text, overlay, start, end): indexes clamped and ordered")
def _overlay(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text, over = _s(args[0]), F.coalesce(_s(args[1]), F.lit(""))
    length = F.length(text)
    a = F.least(F.greatest(_i(args[2]), F.lit(0)), length)
    b = F.least(F.greatest(_i(args[3]), F.lit(0)), length)
    start, end = F.least(a, b), F.greatest(a, b)
    return _text(F.concat(text.substr(F.lit(1), start), over, _sub(text, end)))


@_register("overlayString", 4, None, "StringUtils.overlayString(text, overlay, start, end); out of range fails the row")
def _overlay_string(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text, over = _s(args[0]), _s(args[1])
    start, end = _i(args[2]), _i(args[3])
    c.fail_when(text.isNotNull() & ((start < 0) | (end > F.length(text)) | (start > F.length(text))),
                "overlayString index out of range")
    return _text(F.concat(text.substr(F.lit(1), start), over, _sub(text, end)))


# -- chomping and removing ---------------------------------------------------------------------------------------------
@_register("chomp", 1, 2, "StringUtils.chomp(text[, separator]): one trailing newline (or the separator) removed")
def _chomp(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text = _s(args[0])
    if len(args) == 1:
        return _text(F.regexp_replace(text, r"(\r\n|\r|\n)$", ""))
    sep = _s(args[1])
    cut = text.substr(F.lit(1), F.length(text) - F.length(sep))
    return _text(F.when((F.length(text) > 0) & sep.isNotNull() & text.endswith(sep), cut).otherwise(text))


@_register("chompLast", 1, 2, "StringUtils.chompLast(text[, separator]): a trailing '\\n' (or the separator) removed")
def _chomp_last(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _chomp(c, node, [args[0], args[1] if len(args) == 2 else constant("\n", "string")])


@_register("chopNewline", 1, None, "StringUtils.chopNewline: a trailing '\\n' or '\\r\\n' removed")
def _chop_newline(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _text(F.regexp_replace(_s(args[0]), r"\r?\n$", ""))


@_register("getChomp", 2, None, "StringUtils.getChomp(text, sep): the separator and what follows its last occurrence")
def _get_chomp(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text, sep = _s(args[0]), _s(args[1])
    at = _last_index(text, sep)
    return _text(F.when(at == F.length(text) - F.length(sep), sep).when(at != -1, _sub(text, at)).otherwise(""))


@_register("getPrechomp", 2, None, "StringUtils.getPrechomp(text, sep): up to and including the first separator")
def _get_prechomp(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text, sep = _s(args[0]), _s(args[1])
    at = _index(text, sep)
    return _text(F.when(at == -1, F.lit("")).otherwise(text.substr(F.lit(1), at + F.length(sep))))


@_register("prechomp", 2, None, "StringUtils.prechomp(text, sep): what follows the first separator")
def _prechomp(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text, sep = _s(args[0]), _s(args[1])
    at = _index(text, sep)
    return _text(F.when(at == -1, text).otherwise(_sub(text, at + F.length(sep))))


def _remove_affix(start: bool, ignore_case: bool) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        text, part = _s(args[0]), _s(args[1])
        a, b = (F.lower(text), F.lower(part)) if ignore_case else (text, part)
        hit = a.startswith(b) if start else a.endswith(b)
        cut = _sub(text, F.length(part)) if start else text.substr(F.lit(1), F.length(text) - F.length(part))
        empty = (F.coalesce(F.length(text), F.lit(0)) == 0) | (F.coalesce(F.length(part), F.lit(0)) == 0)
        return _text(F.when(empty, text).when(hit, cut).otherwise(text))
    return apply


for _name, _start, _case in (("removeStart", True, False), ("removeEnd", False, False),
                             ("removeStartIgnoreCase", True, True), ("removeEndIgnoreCase", False, True)):
    _register(_name, 2, None, f"StringUtils.{_name}")(_remove_affix(_start, _case))


@_register("deleteSpaces", 1, None, "StringUtils.deleteSpaces: ' ', tab, CR, LF and backspace removed")
def _delete_spaces(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _text(F.regexp_replace(_s(args[0]), r"[ \t\r\n\x08]", ""))


@_register("clean", 1, None, "StringUtils.clean: trimmed, '' for null")
def _clean(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _text(F.coalesce(F.regexp_replace(_s(args[0]), r"^[\x00-\x20]+|[\x00-\x20]+$", ""), F.lit("")))


def _strip_with(text: Column, pattern: str, where: str) -> Column:
    if where == "both":
        return F.regexp_replace(text, f"^{pattern}+|{pattern}+$", "")
    return F.regexp_replace(text, f"^{pattern}+" if where == "start" else f"{pattern}+$", "")


def _stripper(where: str, to_null: bool = False) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        text = _s(args[0])
        pattern = _WS if len(args) == 1 or args[1].kind == "null" else _class(c, node, args[1], "characters to strip")
        stripped = _strip_with(text, pattern, where)
        return _text(F.when(stripped != "", stripped) if to_null else stripped)
    return apply


_register("strip", 1, 2, "StringUtils.strip(text[, chars]): whitespace (or the characters) removed at both ends")(
    _stripper("both"))
_register("stripStart", 2, None, "StringUtils.stripStart(text, chars)")(_stripper("start"))
_register("stripEnd", 2, None, "StringUtils.stripEnd(text, chars)")(_stripper("end"))
_register("stripToNull", 1, None, "StringUtils.stripToNull: stripped, null when empty")(_stripper("both", True))


@_register("stripAll", 1, 2, "StringUtils.stripAll(strings[][, chars]): each item stripped")
def _strip_all(c: Compiling, node: Expr, args: list[Value]) -> Value:
    pattern = _WS if len(args) == 1 or args[1].kind == "null" else _class(c, node, args[1], "characters to strip")
    return _array(F.transform(_strings(args[0]), lambda item: _strip_with(item, pattern, "both")))


# -- replacing ---------------------------------------------------------------------------------------------------------
def replace_max(text: Column, search: Column, replacement: Column, times: Column) -> Column:
    """StringUtils.replace(text, search, replacement, max): the first `max` occurrences, left to right."""
    start = F.struct(F.lit("").alias("done"), text.alias("rest"))

    def step(state: Column, _: Column) -> Column:
        at = F.instr(state["rest"], search)
        return F.when(at > 0, F.struct(F.concat(state["done"], state["rest"].substr(F.lit(1), at - 1),
                                                replacement).alias("done"),
                                       _sub(state["rest"], at - 1 + F.length(search)).alias("rest"))).otherwise(state)
    steps = F.aggregate(F.sequence(F.lit(1), _at_most_one_more_than_length(text, times)), start, step)
    empty = (F.coalesce(F.length(text), F.lit(0)) == 0) | (F.coalesce(F.length(search), F.lit(0)) == 0) | \
        replacement.isNull() | (times == 0)
    return F.when(empty, text).when(times < 0, F.replace(text, search, replacement)).otherwise(
        F.concat(steps["done"], steps["rest"]))


@_register("replace", 3, 4, "StringUtils.replace(text, search, replacement[, max]): literal, all (or the first max) "
           "occurrences")
def _replace(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text, search, replacement = _s(args[0]), _s(args[1]), _s(args[2])
    times = _i(args[3]) if len(args) == 4 else F.lit(-1)
    return _text(replace_max(text, search, replacement, times))


@_register("replaceOnce", 3, None, "StringUtils.replaceOnce(text, search, replacement): the first occurrence")
def _replace_once(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _text(replace_max(_s(args[0]), _s(args[1]), _s(args[2]), F.lit(1)))


@_register("replaceChars", 3, None, "StringUtils.replaceChars(text, searchChars, replaceChars): character "
           "translation; search characters without a replacement are deleted")
def _replace_chars(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text = _s(args[0])
    search = _literal_text(c, node, args[1], "search characters")
    replace = args[2].literal if args[2].is_literal and isinstance(args[2].literal, str) else (
        "" if args[2].kind == "null" else _literal_text(c, node, args[2], "replacement characters"))
    return _text(F.translate(text, search, replace))


def _replace_each(repeat: bool) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        text = _s(args[0])
        searches, replacements = (_literal_list(c, node, position) for position in (1, 2))
        if len(searches) != len(replacements):
            raise c.error(node, f"Search and Replace array lengths don't match: {len(searches)} vs {len(replacements)}")
        pairs = [(s, r) for s, r in zip(searches, replacements, strict=True) if s and r is not None]
        result = text
        for _ in range(len(pairs) + 1 if repeat else 1):
            # one pass: every search text becomes a private-use marker first, so a replacement is never re-read
            for position, (search, _) in enumerate(pairs):
                result = F.replace(result, F.lit(search), F.lit(chr(0xE000 + position)))
            for position, (_, replacement) in enumerate(pairs):
                result = F.replace(result, F.lit(chr(0xE000 + position)), F.lit(replacement))
        return _text(result)
    return apply


def _literal_list(c: Compiling, node: Expr, position: int) -> list[str | None]:
    """The items of a constant array argument (`['a', 'b']`)."""
    from grammar.expression import ArrayLiteral, Literal

    argument = node.args[position]  # type: ignore[attr-defined]
    if isinstance(argument, ArrayLiteral) and all(isinstance(item, Literal) for item in argument.items):
        return [None if item.value is None else str(item.value) for item in argument.items]  # type: ignore[attr-defined]
    raise c.error(node, "The search and replacement lists must be constant arrays ([...]) on Spark.")


_register("replaceEach", 3, None, "StringUtils.replaceEach(text, searches[], replacements[]): one pass, constant "
          "lists")(_replace_each(False))
_register("replaceEachRepeatedly", 3, None, "StringUtils.replaceEachRepeatedly: replaceEach until nothing changes "
          "(constant lists)")(_replace_each(True))


# -- splitting and joining ---------------------------------------------------------------------------------------------
def _separators(c: Compiling, node: Expr, args: list[Value], at: int) -> str:
    if len(args) <= at or args[at].kind == "null":
        return f"{_WS}"
    return _class(c, node, args[at], "separator characters")


def _limit(tokens: Column, text: Column, pattern: str, args: list[Value], at: int, keep_empty: bool) -> Column:
    """The `max` argument: at most max tokens, the last one holding the rest of the text from where it starts."""
    if len(args) <= at:
        return tokens
    limit = _i(args[at])
    lead = "" if keep_empty else f"{pattern}*"
    token = f"(?:(?!{pattern}).)*" if keep_empty else f"(?:(?!{pattern}).)+"
    gap = pattern if keep_empty else f"{pattern}+"
    rest_pattern = F.concat(F.lit(f"^(?s){lead}(?:{token}{gap})" + "{"), (limit - 1).cast("string"),
                            F.lit("}(.*)$"))
    rest = F.call_function("regexp_extract", text, rest_pattern, F.lit(1))
    return F.when((limit > 0) & (F.size(tokens) > limit),
                  F.when(limit == 1, F.array(F.regexp_replace(text, f"^{lead}", ""))).otherwise(
                      F.concat(F.slice(tokens, 1, F.greatest(limit - 1, F.lit(1))), F.array(rest)))).otherwise(tokens)


@_register("split", 1, 3, "StringUtils.split(text[, separatorChars[, max]]): tokens between separators (whitespace "
           "by default), empty tokens dropped")
def _split(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text = _s(args[0])
    pattern = _separators(c, node, args, 1)
    tokens = F.filter(F.split(text, pattern), lambda token: token != "")
    return _array(F.when(text.isNotNull(), _limit(tokens, text, pattern, args, 2, False)))


@_register("splitPreserveAllTokens", 1, 3, "StringUtils.splitPreserveAllTokens(text[, separatorChars[, max]]): "
           "empty tokens kept")
def _split_all(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text = _s(args[0])
    pattern = _separators(c, node, args, 1)
    tokens = F.when(F.length(text) == 0, F.array().cast("array<string>")).otherwise(F.split(text, pattern, -1))
    return _array(_limit(tokens, text, pattern, args, 2, True))


def _whole(keep_empty: bool) -> Impl:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        text = _s(args[0])
        separator = args[1]
        if separator.kind == "null" or (separator.is_literal and separator.literal == ""):
            pattern = _WS
        else:
            pattern = _quote(_literal_text(c, node, separator, "separator"))
        raw = F.split(text, pattern, -1)
        tokens = raw if keep_empty else F.filter(raw, lambda token: token != "")
        tokens = F.when(F.length(text) == 0, F.array().cast("array<string>")).otherwise(tokens)
        if len(args) == 3:
            limit = _i(args[2])
            joined = _array_join(F.slice(raw, F.greatest(limit, F.lit(1)), _BIG),
                                  separator.literal if isinstance(separator.literal, str) and separator.literal
                                  else " ")
            tokens = F.when((limit > 0) & (F.size(tokens) > limit), F.concat(
                F.slice(tokens, 1, limit - 1), F.array(joined))).otherwise(tokens)
        return _array(tokens)
    return apply


_register("splitByWholeSeparator", 2, 3, "StringUtils.splitByWholeSeparator(text, separator[, max]): the whole "
          "separator text splits; empty tokens dropped")(_whole(False))
_register("splitByWholeSeparatorPreserveAllTokens", 2, 3, "StringUtils.splitByWholeSeparatorPreserveAllTokens")(
    _whole(True))

_TYPES = ("Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Zs", "Zl", "Zp", "Cc", "Cf", "Co",
          "Cs", "Pd", "Ps", "Pe", "Pc", "Po", "Pi", "Pf", "Sm", "Sc", "Sk", "So")


def _type_boundaries(camel: bool) -> str:
    parts = []
    for kind in _TYPES:
        if camel and kind == "Lu":
            parts.append(r"(?<=\p{Lu})(?![\p{Lu}\p{Ll}])|(?<=\p{Lu})(?=\p{Lu}\p{Ll})")
        else:
            parts.append(rf"(?<=\p{{{kind}}})(?!\p{{{kind}}})")
    return "|".join(parts)


def _by_type(camel: bool) -> Impl:
    pattern = _type_boundaries(camel)

    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        text = _s(args[0])
        return _array(F.when(F.length(text) == 0, F.array().cast("array<string>")).otherwise(
            F.filter(F.split(text, pattern), lambda token: token != "")))
    return apply


_register("splitByCharacterType", 1, None, "StringUtils.splitByCharacterType: runs of the same Character.getType")(
    _by_type(False))
_register("splitByCharacterTypeCamelCase", 1, None, "StringUtils.splitByCharacterTypeCamelCase: as "
          "splitByCharacterType, an upper-case letter joins the lower-case run after it")(_by_type(True))


@_register("join", 1, 4, "StringUtils.join(items[][, separator[, start, end]]): items as text, null items as ''")
def _join(c: Compiling, node: Expr, args: list[Value]) -> Value:
    items = F.transform(_strings(args[0]), lambda item: F.coalesce(item, F.lit("")))
    separator = F.coalesce(_s(args[1]), F.lit("")) if len(args) >= 2 and args[1].kind != "null" else F.lit("")
    if len(args) == 4:
        # Java: end - start in int arithmetic (it wraps, as Spark's does without ANSI); <= 0 joins nothing, else
        # array[start] … array[end - 1], and an index outside the array throws. Spark's slice threw at a start of 0
        # or a negative length and failed the job: such a row fails alone now.
        start, end = _i(args[2]), _i(args[3])
        count = end - start
        inside = (start >= 0) & (end <= F.size(items))
        c.fail_when(items.isNotNull() & (count > 0) & ~inside, "string:join start or end index outside the array")
        items = F.when(items.isNull(), items).when(count <= 0, F.array().cast("array<string>")).when(
            inside, F.slice(items, start + 1, count))
    elif len(args) == 3:
        raise c.error(node, "string:join takes 1, 2 or 4 arguments.", "Usage: string:join(items[, separator[, start, "
                      "end]])")
    return _text(_array_join(items, separator))


@_register("concatenate", 1, None, "StringUtils.concatenate(items[]): joined without a separator")
def _concatenate(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _join(c, node, args[:1])


@_register("reverseDelimited", 2, None, "StringUtils.reverseDelimited(text, separatorChar): the parts in reverse "
           "order")
def _reverse_delimited(c: Compiling, node: Expr, args: list[Value]) -> Value:
    separator = _literal_text(c, node, args[1], "separator character")
    text = _s(args[0])
    return _text(_array_join(F.reverse(F.split(text, _quote(separator), -1)), separator))


@_register("reverseDelimitedString", 2, None, "StringUtils.reverseDelimitedString(text, separatorChars): split, "
           "reversed, joined with the separator characters")
def _reverse_delimited_string(c: Compiling, node: Expr, args: list[Value]) -> Value:
    separators = args[1].literal if args[1].is_literal and isinstance(args[1].literal, str) else None
    tokens = _split(c, node, args).col
    return _text(_array_join(F.reverse(tokens), separators if separators is not None else " "))


@_register("startsWithAny", 2, MANY, "StringUtils.startsWithAny(text, prefixes[])")
def _starts_with_any(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text = _s(args[0])
    items = _strings(args[1]) if len(args) == 2 else F.array(*(_s(v) for v in args[1:]))
    return _bool(F.exists(items, lambda item: text.startswith(item)))


@_register("endsWithAny", 2, MANY, "StringUtils.endsWithAny(text, suffixes[])")
def _ends_with_any(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text = _s(args[0])
    items = _strings(args[1]) if len(args) == 2 else F.array(*(_s(v) for v in args[1:]))
    return _bool(F.exists(items, lambda item: text.endswith(item)))


def _between(text: Column, open_: Column, close: Column) -> Column:
    start = F.instr(text, open_)
    after = _sub(text, start - 1 + F.length(open_))
    end = F.instr(after, close)
    return F.when((start > 0) & (end > 0), after.substr(F.lit(1), end - 1))


@_register("substringBetween getNestedString", 2, 3, "StringUtils.substringBetween(text, tag) or (text, open, "
           "close): null when not found")
def _substring_between(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text, open_ = _s(args[0]), _s(args[1])
    close = _s(args[2]) if len(args) == 3 else open_
    return _text(_between(text, open_, close))


@_register("substringsBetween", 3, None, "StringUtils.substringsBetween(text, open, close): every such substring; "
           "null when none")
def _substrings_between(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text = _s(args[0])
    open_ = _literal_text(c, node, args[1], "open text")
    close = _literal_text(c, node, args[2], "close text")
    if not open_ or not close:
        return _array(F.lit(None).cast("array<string>"))
    found = F.regexp_extract_all(text, F.lit(f"(?s){_quote(open_)}(.*?){_quote(close)}"), 1)
    return _array(F.when(F.size(found) > 0, found))


# -- case --------------------------------------------------------------------------------------------------------------
@_register("capitaliseAllWords", 1, None, "StringUtils.capitaliseAllWords (WordUtils.capitalize): the first letter "
           "of each whitespace-separated word in upper case")
def _capitalise_all(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text = _s(args[0])
    chars = F.split(text, "")
    # each character beside the one before it (a blank before the first); the item past the last is null, and
    # array_join skips it. Reading `chars[i - 1]` inside the lambda split the whole text again for every character.
    before = F.concat(F.array(F.lit(" ")), chars)
    out = F.zip_with(chars, before, lambda ch, previous: F.when(previous.rlike(f"^{_WS}$"), F.upper(ch)).otherwise(ch))
    return _text(F.when(F.length(text) == 0, text).otherwise(_array_join(out, "")))


def _alias(name: str, target: str) -> None:
    spec = FUNCTIONS[("string", target)]
    fn("string", name, spec.min_args, spec.max_args, doc=f"StringUtils.{name}: as {target}")(spec.impl)


_alias("capitalise", "capitalize")
_alias("uncapitalise", "uncapitalize")


def _with_locale(target: str) -> None:
    spec = FUNCTIONS[("string", target)]

    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        return spec.impl(c, node, args[:1])
    fn("string", target, 1, 2, doc=f"StringUtils.{target}(text[, locale]) (the locale is not used)")(apply)


_with_locale("upperCase")
_with_locale("lowerCase")


@_register("repeat", 2, 3, "StringUtils.repeat(text[, separator], n): a null separator repeats without one; past "
           "100,000,000 characters the row fails")
def _repeat(c: Compiling, node: Expr, args: list[Value]) -> Value:
    text, n = _s(args[0]), _i(args[-1])
    if len(args) == 2 or args[1].kind == "null":
        size, repeated = F.length(text).cast("bigint") * n, F.repeat(text, n)
    else:
        separator = F.coalesce(_s(args[1]), F.lit(""))  # commons-lang: a null separator repeats without one
        size = (F.length(text).cast("bigint") + F.length(separator)) * n - F.length(separator)
        repeated = F.concat(text, F.repeat(F.concat(separator, text), F.greatest(n - 1, F.lit(0))))
    # Spark's repeat past 2³¹ bytes threw ArithmeticException (the job failed), and just under it ran the JVM out of
    # memory (the JVM exited): past MAX_BUILT_TEXT characters the row fails instead
    built = _unless_too_long(c, F.when(text.isNotNull() & (n > 0), size), repeated)
    return _text(F.when(n <= 0, F.when(text.isNotNull(), F.lit(""))).otherwise(built))


def _index_from(last: bool) -> Impl:
    base = FUNCTIONS[("string", "lastIndexOf" if last else "indexOf")].impl

    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        if len(args) == 2:
            return base(c, node, args)
        text, part, start = _s(args[0]), _s(args[1]), _i(args[2])
        if last:
            head = text.substr(F.lit(1), F.greatest(start, F.lit(-1)) + F.length(part))
            at = F.when(start < 0, F.lit(-1)).otherwise(_last_index(head, part))
        else:
            at = F.when(F.length(part) == 0, F.least(F.greatest(start, F.lit(0)), F.length(text))).otherwise(
                _index(text, part, start))
        return _int(F.coalesce(at, F.lit(-1)))
    return apply


_register("indexOf", 2, 3, "StringUtils.indexOf(text, search[, start]) (−1 when absent or null)")(_index_from(False))
_register("lastIndexOf", 2, 3, "StringUtils.lastIndexOf(text, search[, start])")(_index_from(True))


# -- strings: Guava ----------------------------------------------------------------------------------------------------
@fn("strings", "commonPrefix", 2, doc="Strings.commonPrefix(a, b)")
def _guava_prefix(c: Compiling, node: Expr, args: list[Value]) -> Value:
    a, b = _s(args[0]), _s(args[1])
    c.fail_when(a.isNull() | b.isNull(), "null argument to strings:commonPrefix")
    return _text(a.substr(F.lit(1), _common_prefix_length(a, b)))


@fn("strings", "commonSuffix", 2, doc="Strings.commonSuffix(a, b)")
def _guava_suffix(c: Compiling, node: Expr, args: list[Value]) -> Value:
    a, b = _s(args[0]), _s(args[1])
    c.fail_when(a.isNull() | b.isNull(), "null argument to strings:commonSuffix")
    n = _common_prefix_length(F.reverse(a), F.reverse(b))
    return _text(F.when(n == 0, F.lit("")).otherwise(_sub(a, F.length(a) - n)))


@fn("strings", "lenientFormat", 1, MANY, doc="Strings.lenientFormat(template, args…): each %s takes the next "
    "argument; extra arguments are appended in [ ]")
def _lenient_format(c: Compiling, node: Expr, args: list[Value]) -> Value:
    template = "null" if args[0].kind == "null" else _literal_text(c, node, args[0], "template")
    values = [F.coalesce(_s(v), F.lit("null")) if v.kind != "null" else F.lit("null") for v in args[1:]]
    pieces = template.split("%s")
    parts: list[Column] = [F.lit(pieces[0])]
    used = 0
    for piece in pieces[1:]:
        if used < len(values):
            parts.append(values[used])
            used += 1
        else:
            parts.append(F.lit("%s"))
        parts.append(F.lit(piece))
    if used < len(values):
        parts += [F.lit(" ["), F.concat_ws(", ", *values[used:]), F.lit("]")]
    return _text(F.concat(*parts))


# -- escape: StringEscapeUtils -----------------------------------------------------------------------------------------
_CTRL = {"\b": "\\b", "\n": "\\n", "\t": "\\t", "\f": "\\f", "\r": "\\r"}


def _code(ch: Column) -> Column:
    """The code point of a one-character text."""
    return F.ascii(ch)


def _unicode_escape(ch: Column) -> Column:
    return F.concat(F.lit("\\u"), F.lpad(F.upper(F.hex(_code(ch))), 4, "0"))


def _escape_chars(text: Column, table: dict[str, str], unicode_below: int, unicode_above: int) -> Column:
    """Each character through the table, else \\uXXXX outside [below, above], else itself."""
    mapping = F.create_map(*(F.lit(x) for pair in table.items() for x in pair))

    def one(ch: Column) -> Column:
        return F.coalesce(F.element_at(mapping, ch), F.when((_code(ch) < unicode_below) | (_code(ch) > unicode_above),
                                                             _unicode_escape(ch)), ch)
    return F.when(F.length(text) == 0, text).otherwise(_array_join(F.transform(F.split(text, ""), one), ""))


def _entity_escape(text: Column, table: dict[str, str]) -> Column:
    mapping = F.create_map(*(F.lit(x) for pair in table.items() for x in pair))
    return F.when(F.length(text) == 0, text).otherwise(_array_join(F.transform(
        F.split(text, ""), lambda ch: F.coalesce(F.element_at(mapping, ch), ch)), ""))


_BASIC = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}
_ISO = {chr(code): f"&{name};" for code, name in html.entities.codepoint2name.items() if 160 <= code <= 255}
_HTML4 = {chr(code): f"&{name};" for code, name in html.entities.codepoint2name.items()
          if code not in (38, 60, 62, 34)}


def _from_code(code: Column) -> Column:
    """The character of a code point (UTF-32 big-endian bytes decoded)."""
    return F.decode(F.unhex(F.lpad(F.conv(code.cast("string"), 10, 16), 8, "0")), "UTF-32")


def _entity_unescape(text: Column, table: dict[str, str], numeric: bool = True) -> Column:
    mapping = F.create_map(*(F.lit(x) for entity, ch in table.items() for x in (entity, ch)))
    tokens = F.regexp_extract_all(text, F.lit(r"&#[xX][0-9a-fA-F]+;|&#\d+;|&\w+;|[^&]+|&"), 0)

    def one(token: Column) -> Column:
        decimal = F.regexp_extract(token, r"^&#(\d+);$", 1)
        hexa = F.regexp_extract(token, r"^&#[xX]([0-9a-fA-F]+);$", 1)
        number = F.when(decimal != "", decimal.cast("bigint")).when(hexa != "", F.conv(hexa, 16, 10).cast("bigint"))
        numbered = F.when(number.isNotNull() & (number <= 0x10FFFF), _from_code(number)) if numeric else F.lit(None)
        return F.coalesce(F.element_at(mapping, token), numbered, token)
    return F.when(F.length(text) == 0, text).otherwise(_array_join(F.transform(tokens, one), ""))


def _java_unescape(text: Column) -> Column:
    tokens = F.regexp_extract_all(text, F.lit(r"\\u+[0-9a-fA-F]{4}|\\[0-3][0-7]{0,2}|\\[4-7][0-7]?|\\.|[^\\]+|\\"),
                                  0)
    simple = F.create_map(*(F.lit(x) for pair in (("\\b", "\b"), ("\\n", "\n"), ("\\t", "\t"), ("\\f", "\f"),
                                                  ("\\r", "\r"), ("\\\\", "\\"), ('\\"', '"'), ("\\'", "'"),
                                                  ("\\", "")) for x in pair))

    def one(token: Column) -> Column:
        hexa = F.regexp_extract(token, r"^\\u+([0-9a-fA-F]{4})$", 1)
        octal = F.regexp_extract(token, r"^\\([0-7]{1,3})$", 1)
        return (F.when(hexa != "", _from_code(F.conv(hexa, 16, 10).cast("bigint")))
                .when(octal != "", _from_code(F.conv(octal, 8, 10).cast("bigint")))
                .when(token.startswith("\\"), F.coalesce(F.element_at(simple, token), F.substring(token, 2, 1)))
                .otherwise(token))
    return F.when(F.length(text) == 0, text).otherwise(_array_join(F.transform(tokens, one), ""))


def _escape(name: str, function: Callable[[Column], Column], what: str) -> None:
    fn("escape", name, 1, doc=f"StringEscapeUtils.{name}: {what}")(
        lambda c, node, args: _text(function(_s(args[0]))))


_JAVA = {'"': '\\"', "\\": "\\\\", **_CTRL}
_escape("escapeJava", lambda t: _escape_chars(t, _JAVA, 32, 0x7F), "Java string escapes, \\uXXXX outside ASCII")
_escape("escapeEcmaScript", lambda t: _escape_chars(t, {"'": "\\'", "/": "\\/", **_JAVA}, 32, 0x7F),
        "JavaScript string escapes")
_escape("escapeJson", lambda t: _escape_chars(t, {"/": "\\/", **_JAVA}, 32, 0x7E), "JSON string escapes")
_escape("escapeHtml3", lambda t: _entity_escape(t, {**_BASIC, **_ISO}), "&, <, >, \" and ISO-8859-1 entities")
_escape("escapeHtml4", lambda t: _entity_escape(t, {**_BASIC, **_HTML4}), "HTML 4.0 entities")
_escape("escapeXml", lambda t: _entity_escape(t, {**_BASIC, "'": "&apos;"}), "the five XML entities")
_XML10_DROP = "".join(chr(n) for n in (*range(0, 9), 11, 12, *range(14, 32), 0xFFFE, 0xFFFF))
_XML_NUMERIC = {chr(n): f"&#{n};" for n in (*range(0x7F, 0x85), *range(0x86, 0xA0))}
_escape("escapeXml10", lambda t: _entity_escape(F.translate(t, _XML10_DROP, ""), {**_BASIC, "'": "&apos;",
                                                                                  **_XML_NUMERIC}),
        "XML 1.0: the five entities, invalid control characters removed")
_escape("escapeXml11", lambda t: _entity_escape(F.translate(t, "\x00\ufffe\uffff", ""), {
    **_BASIC, "'": "&apos;", **_XML_NUMERIC, **{chr(n): f"&#{n};" for n in (*range(1, 9), 11, 12, *range(14, 32))}}),
    "XML 1.1: the five entities, control characters as &#n;")
_escape("unescapeJava", _java_unescape, "Java escapes (\\n, \\uXXXX, octal) read back")
_escape("unescapeEcmaScript", _java_unescape, "as unescapeJava")
_escape("unescapeJson", _java_unescape, "as unescapeJava")
_UNBASIC = {v: k for k, v in {**_BASIC, "'": "&apos;"}.items()}
_escape("unescapeXml", lambda t: _entity_unescape(t, _UNBASIC), "the five XML entities and &#n; / &#xh;")
_escape("unescapeHtml3", lambda t: _entity_unescape(t, {**{v: k for k, v in {**_BASIC, **_ISO}.items()}}),
        "HTML 3 entities and &#n; / &#xh;")
_escape("unescapeHtml4", lambda t: _entity_unescape(t, {**{v: k for k, v in {**_BASIC, **_HTML4}.items()}}),
        "HTML 4 entities and &#n; / &#xh;")


def _escape_csv(text: Column) -> Column:
    special = text.rlike('[,"\r\n]')
    return F.when(special, F.concat(F.lit('"'), F.replace(text, F.lit('"'), F.lit('""')), F.lit('"'))).otherwise(text)


def _unescape_csv(text: Column) -> Column:
    quoted = (F.length(text) >= 2) & text.startswith('"') & text.endswith('"')
    inner = text.substr(F.lit(2), F.length(text) - 2)
    return F.when(quoted & inner.rlike('[,"\r\n]'), F.replace(inner, F.lit('""'), F.lit('"'))).otherwise(text)


_escape("escapeCsv", _escape_csv, "quoted when it holds a comma, quote or newline, quotes doubled")
_escape("unescapeCsv", _unescape_csv, "a quoted CSV value read back")

_alias_escape = FUNCTIONS[("escape", "escapeJava")]
fn("string", "escape", 1, doc="StringUtils.escape: StringEscapeUtils.escapeJava")(_alias_escape.impl)
