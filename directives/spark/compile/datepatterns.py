"""Java date patterns → Spark datetime patterns, or a clear error when Spark cannot express one.

Wrangler's date directives take Java patterns of two dialects: `DateTimeFormatter` (format-date,
format-datetime, parse-as-datetime) and `SimpleDateFormat` (parse-as-simple-date). Spark 3+ parses
and formats with its own `DateTimeFormatter`-based patterns, which accept most of the same letters
but reject some (week-based fields, `u`, narrow text forms) and cannot *parse* day names. Passing a
Java pattern through untouched would either fail inside Spark at run time with an opaque
`INCONSISTENT_BEHAVIOR_CROSS_VERSION` error, or — worse — silently mean something else (`S` is
milliseconds in SimpleDateFormat but a fraction of a second in Spark; `u` is a day number in one
and a year in the other). So every pattern is tokenised here and rebuilt letter by letter.

This module is pure Python (no pyspark), so declarations can check patterns when a recipe is parsed.
`DatePatternError.java_invalid` tells a pattern Java itself rejects (a recipe error) from one only
Spark cannot run (an error when the recipe is compiled for Spark).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Dialect(StrEnum):
    JAVA_TIME = "DateTimeFormatter"
    SIMPLE = "SimpleDateFormat"


class DatePatternError(ValueError):
    """A pattern Java rejects (``java_invalid``) or one Spark cannot express, with a hint."""

    def __init__(self, message: str, hint: str = "", *, java_invalid: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.java_invalid = java_invalid


@dataclass(frozen=True)
class Token:
    """A run of one pattern letter (``letter`` set), or literal text."""

    text: str
    letter: str | None = None

    @property
    def count(self) -> int:
        return len(self.text)


@dataclass(frozen=True)
class SparkPattern:
    """A translated pattern and what the compiler must do around it."""

    pattern: str
    #: Java letters the pattern uses (after translation, before removal of day names).
    letters: frozenset[str]
    #: Parsing only: the Java pattern had a day-of-week field, which Spark cannot parse; it is left out
    #: of ``pattern`` and the day name must be removed from the value first (`DAY_NAME_REGEX`).
    strips_day_names: bool = False
    #: SimpleDateFormat `yy`: two-digit years fall in the 100 years around now, not 2000–2099.
    two_digit_year: bool = False
    #: With ``two_digit_year``: the same pattern with `yyyy`, because SimpleDateFormat reads a `yy` year
    #: written with more than two digits literally ('2016'), which Spark's `yy` refuses.
    literal_year_pattern: str | None = None

    @property
    def has_date(self) -> bool:
        return "y" in self.letters and ("D" in self.letters or (("M" in self.letters or "L" in self.letters)
                                        and "d" in self.letters))

    @property
    def has_time(self) -> bool:
        return bool(self.letters & {"H", "k"}) or (bool(self.letters & {"h", "K"}) and "a" in self.letters)


#: Removes an English day name (`Sat`, `Saturday`, `sat.`) from a value before Spark parses it.
DAY_NAME_REGEX = r"(?i)\b(?:mon|tue|wed|thu|fri|sat|sun)(?:day|sday|nesday|rsday|urday)?\.?"

_JAVA_TIME_LETTERS = frozenset("GuyDMLdQqYwWEecFahKkHmsSAnNVvzOXxZpB")
_SIMPLE_LETTERS = frozenset("GyYMLwWDdFEuaHkKhmsSzZX")
#: Letters Spark's formatter accepts (SPARK-31408 and friends), with the largest run it takes.
_SPARK_MAX = {
    "G": 4, "y": 6, "D": 3, "M": 4, "L": 4, "d": 2, "Q": 4, "q": 4, "E": 4, "F": 1, "a": 1, "h": 2, "K": 2,
    "k": 2, "H": 2, "m": 2, "s": 2, "S": 9, "V": 2, "z": 4, "O": 4, "X": 5, "x": 5, "Z": 5,
}
#: Letters Spark can format but not parse.
_FORMAT_ONLY = frozenset("EFqQ")
_WEEK_BASED = frozenset("YwWec")


def tokenize(pattern: str, dialect: Dialect) -> list[Token]:
    """Split a Java pattern into letter runs and literal text (quotes resolved, `''` is one quote)."""
    letters = _JAVA_TIME_LETTERS if dialect is Dialect.JAVA_TIME else _SIMPLE_LETTERS
    tokens: list[Token] = []
    literal: list[str] = []
    i, size = 0, len(pattern)

    def flush() -> None:
        if literal:
            tokens.append(Token("".join(literal)))
            literal.clear()

    while i < size:
        char = pattern[i]
        if char == "'":
            if pattern.startswith("''", i):
                literal.append("'")
                i += 2
                continue
            end = i + 1
            text: list[str] = []
            while True:
                if end >= size:
                    raise DatePatternError(f"Pattern '{pattern}' has an unterminated quote.",
                                           "Close the quoted text with ', and write a quote itself as ''.",
                                           java_invalid=True)
                if pattern[end] == "'":
                    if pattern.startswith("''", end):
                        text.append("'")
                        end += 2
                        continue
                    break
                text.append(pattern[end])
                end += 1
            literal.extend(text)
            i = end + 1
            continue
        if ("a" <= char <= "z") or ("A" <= char <= "Z"):
            if char not in letters:
                raise DatePatternError(f"Pattern '{pattern}' uses the unknown {dialect.value} letter '{char}'.",
                                       "Quote literal text: 'T', 'at'.", java_invalid=True)
            flush()
            end = i
            while end < size and pattern[end] == char:
                end += 1
            tokens.append(Token(pattern[i:end], char))
            i = end
            continue
        if dialect is Dialect.JAVA_TIME and char in "#{}":
            raise DatePatternError(f"Pattern '{pattern}' uses the reserved character '{char}'.",
                                   "Quote it: '#'.", java_invalid=True)
        if dialect is Dialect.JAVA_TIME and char in "[]":
            flush()
            tokens.append(Token(char, char))
            i += 1
            continue
        literal.append(char)
        i += 1
    flush()
    return tokens


def to_spark(pattern: str, dialect: Dialect, *, parsing: bool) -> SparkPattern:
    """Translate a Java pattern of ``dialect`` for Spark parsing or formatting; raise `DatePatternError`."""
    if not pattern:
        raise DatePatternError("The date pattern is empty.", "Give a pattern such as 'yyyy-MM-dd'.",
                               java_invalid=True)
    tokens = tokenize(pattern, dialect)
    out: list[str] = []
    literal_year: list[str] = []  # the same pattern with `yyyy` for `yy`
    letters: set[str] = set()
    strips_days = two_digit = False
    for token in tokens:
        if token.letter is None:
            out.append(_quote(token.text))
            literal_year.append(out[-1])
            continue
        if token.letter in "[]":
            out.append(token.text)
            literal_year.append(token.text)
            continue
        letter, count = _translate_letter(token, dialect, pattern)
        if letter in _WEEK_BASED:
            raise DatePatternError(
                f"Pattern '{pattern}' uses the week-based field '{token.text}', which Spark cannot handle.",
                "Use calendar fields (y, M, d) instead of week-based ones (Y, w, W, e, c).")
        if letter not in _SPARK_MAX:
            raise DatePatternError(f"Pattern '{pattern}': Spark has no equivalent of the field '{token.text}'.",
                                   "Leave that field out of the pattern.")
        if count > _SPARK_MAX[letter]:
            raise DatePatternError(
                f"Pattern '{pattern}': '{token.text}' is longer than Spark accepts "
                f"(at most {_SPARK_MAX[letter]} '{letter}').", "Use a shorter run of that letter.")
        if letter == "V" and count != 2:
            raise DatePatternError(f"Pattern '{pattern}': the zone id field must be written 'VV'.",
                                   java_invalid=True)
        letters.add(letter)
        if parsing and letter == "E":
            strips_days = True
            continue
        if parsing and letter in _FORMAT_ONLY:
            raise DatePatternError(f"Pattern '{pattern}': Spark cannot parse the field '{token.text}'.",
                                   "Leave it out of the pattern; it can still be used to format.")
        if dialect is Dialect.SIMPLE and letter == "y" and count == 2 and parsing:
            two_digit = True
            literal_year.append("yyyy")
        else:
            literal_year.append(letter * count)
        out.append(letter * count)
    return SparkPattern("".join(out), frozenset(letters), strips_days, two_digit,
                        "".join(literal_year) if two_digit else None)


def _translate_letter(token: Token, dialect: Dialect, pattern: str) -> tuple[str, int]:
    """The Spark letter and run length for one Java letter run."""
    letter, count = token.letter or "", token.count
    if dialect is Dialect.JAVA_TIME:
        if letter == "u":  # proleptic year; equal to year-of-era for every year Spark stores (0001–9999)
            return "y", count
        return letter, count
    # SimpleDateFormat: counts are free-form; map them onto DateTimeFormatter's fixed meanings.
    if letter == "u":
        raise DatePatternError(f"Pattern '{pattern}': the day-number-of-week field 'u' has no Spark equivalent.",
                               "Use 'E' for the day name instead.")
    if letter == "S":
        if count != 3:
            raise DatePatternError(
                f"Pattern '{pattern}': SimpleDateFormat's '{token.text}' counts milliseconds, which Spark can only "
                "read as exactly three digits ('SSS').", "Write the milliseconds as 'SSS'.")
        return "S", 3
    if letter in "EML" and count >= 4:
        return letter, 4
    if letter == "E":
        return "E", 3
    if letter == "a":
        return "a", 1
    if letter == "z":
        return "z", 4 if count >= 4 else 1
    if letter == "Z":
        return "Z", 1  # RFC 822 offset, -0800
    if letter == "X":
        if count > 3:
            raise DatePatternError(f"Pattern '{pattern}': 'X' may be repeated at most three times.",
                                   java_invalid=True)
        return "X", count
    if letter in "dHhKkms" and count > 2:
        raise DatePatternError(f"Pattern '{pattern}': zero-padding '{token.text}' to {count} digits is not "
                               "something Spark can do.", f"Write '{letter * 2}'.")
    return letter, count


def _quote(text: str) -> str:
    """Literal text for a Spark pattern: quoted when it holds letters or pattern syntax."""
    if not any(char.isalpha() or char in "'[]#{}" for char in text):
        return text
    return "'" + text.replace("'", "''") + "'"


#: DateTimeFormatter fields as strict regexes (count → digits), for locating one field in a value.
_FIELD_REGEX = {"d": ("[0-9]{1,2}", "[0-9]{2}"), "M": ("[0-9]{1,2}", "[0-9]{2}"), "H": ("[0-9]{1,2}", "[0-9]{2}"),
                "h": ("[0-9]{1,2}", "[0-9]{2}"), "k": ("[0-9]{1,2}", "[0-9]{2}"), "K": ("[0-9]{1,2}", "[0-9]{2}"),
                "m": ("[0-9]{1,2}", "[0-9]{2}"), "s": ("[0-9]{1,2}", "[0-9]{2}")}


def day_field_regex(pattern: str) -> tuple[str, int] | None:
    """A regex `^(before)(day)(after)$` for values of a DateTimeFormatter pattern with a year, a month and a
    day-of-month, and the day's letter count; None for patterns it does not cover (optional sections, text
    fields other than month and day names, day of year). Used to re-read a day that is past the month's end
    (DateTimeFormatter's SMART resolver clamps 29–31 to the last day of the month)."""
    try:
        tokens = tokenize(pattern, Dialect.JAVA_TIME)
    except DatePatternError:
        return None
    letters = {t.letter for t in tokens if t.letter}
    if not {"y", "M", "d"} <= (letters | ({"y"} if "u" in letters else set())) or "D" in letters:
        return None
    parts: list[str] = []
    day_at, day_count = -1, 0
    for token in tokens:
        letter, count = token.letter, token.count
        if letter is None:
            parts.append("".join(c if c.isalnum() else "\\" + c for c in token.text))
        elif letter in ("y", "u"):
            parts.append("[0-9]{2}" if count == 2 else f"[+-]?[0-9]{{{max(count, 1)},}}")
        elif letter == "M" and count >= 3:
            parts.append("[A-Za-z]{3}" if count == 3 else "[A-Za-z]+")
        elif letter == "E":
            parts.append("[A-Za-z]+")
        elif letter == "a":
            parts.append("[AaPp][Mm]")
        elif letter == "S":
            parts.append(f"[0-9]{{{count}}}")
        elif letter in _FIELD_REGEX and count <= 2:
            if letter == "d":
                day_at, day_count = len(parts), count
            parts.append(_FIELD_REGEX[letter][count - 1])
        else:
            return None
    before, after = "".join(parts[:day_at]), "".join(parts[day_at + 1:])
    return f"^({before})({parts[day_at]})({after})$", day_count
