"""Execution evidence for the lineage verifier: run a recipe, then again with one input column perturbed.

Static lineage claims "output column O depends on input column C, and on nothing else". Execution can
refute that claim: if changing only C's values changes O, O depends on C. This module produces that
evidence and nothing more (the comparison with the static lineage lives in `lineage.verify`, which
never imports Spark):

* `perturb_value` changes a value while keeping its *shape* — its type, and for text its structure:
  delimiters, JSON keys, XML tags, date layouts and digit counts stay, letters and digits move — so
  that a recipe parses the perturbed value the way it parsed the original one and the difference
  shows up in the values, not as a row the recipe rejects;
* `execute` runs a recipe on rows and keeps, for every *input* row, what became of it: its output
  rows (several after a row-multiplying directive), or the directive that filtered it or sent it to
  the errors. Each input row carries its number in a hidden column (`INPUT_ROW`) through every step,
  so outputs are compared input row by input row, whatever was filtered or multiplied around them;
* `observe` runs the baseline and one perturbed run per input column and reduces each pair to an
  `Effect`: which output columns changed value, and which input rows changed shape (a different
  number of output rows, or a row that went to the errors or was filtered in one run only).
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pyspark.sql import SparkSession
from pyspark.sql import types as T

from directives.json_fields import given
from directives.recipe import Recipe
from directives.spark.runtime.files import read_table, sample_rows, user_columns
from directives.spark.runtime.frame import DROP, ERROR, VARIABLE_PREFIX
from directives.spark.runtime.runner import _from_safe, _safe_column, rows_to_dataframe, run

#: Hidden column holding each input row's number; '#' cannot start a variable name, so no recipe can touch it.
INPUT_ROW = VARIABLE_PREFIX + "#input"

OUT, ERRORED, FILTERED = "out", "error", "filtered"

# -- perturbing values, keeping their shape ---------------------------------------------------------------------------
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
#: Words a parser reads as one of a few values: swapped for another value of the same kind.
_SWAPS: dict[str, str] = {"true": "false", "false": "true", "yes": "no", "no": "yes", "am": "pm", "pm": "am"}
#: Words that are part of a layout rather than the data: ISO separators, zones, month and day names (changing
#: `Jan 31` to `Feb 31` would make the value invalid, not different).
_KEPT_WORDS = frozenset({"t", "z", "utc", "gmt", "null", "nan", "e", *_MONTHS, *(m[:3] for m in _MONTHS),
                         *_DAYS, *(d[:3] for d in _DAYS)})
#: Dates (year first or last) and clock times are moved as a whole so they stay valid: the year by four (leap days
#: survive, and the day-month order need not be known), the minute by one; other digit runs by their last digit.
_TOKEN = re.compile(
    r"(?P<ymd>(?<!\d)\d{4}(?P<s1>[-/.])\d{1,2}(?P=s1)\d{1,2}(?!\d))"
    r"|(?P<dmy>(?<!\d)\d{1,2}(?P<s2>[-/.])\d{1,2}(?P=s2)\d{4}(?!\d))"
    r"|(?P<time>(?<!\d)\d{1,2}:\d{2}(?::\d{2})?(?!\d))"
    r"|(?P<word>[A-Za-z]+)|(?P<digits>[0-9]+)"
)
_XML_TEXT = re.compile(r"(>)([^<>]+)(<)|(=\")([^\"]*)(\")")


def perturb_value(value: Any) -> Any:
    """Another value of the same shape; None stays None (a null has no shape to keep)."""
    if value is None:
        return value
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value - 1 if value == 2**31 - 1 or value == 2**63 - 1 else value + 1
    if isinstance(value, float):
        return value if math.isnan(value) or math.isinf(value) else value + 1.5
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            return value
        exponent = value.as_tuple().exponent
        assert isinstance(exponent, int)
        return value + decimal.Decimal(1).scaleb(exponent)  # one unit in the last place: the scale is kept
    if isinstance(value, dt.datetime):
        return value + dt.timedelta(days=1, hours=1, minutes=1, seconds=1)
    if isinstance(value, dt.date):
        return value + dt.timedelta(days=1)
    if isinstance(value, dt.time):
        moved = dt.datetime.combine(dt.date(2000, 1, 1), value) + dt.timedelta(hours=1, minutes=1, seconds=1)
        return moved.time().replace(tzinfo=value.tzinfo)
    if isinstance(value, (bytes, bytearray)):
        return _perturb_bytes(bytes(value))
    if isinstance(value, str):
        return perturb_text(value)
    if isinstance(value, Mapping):
        return {key: perturb_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(perturb_value(item) for item in value)
    return value


def _perturb_bytes(value: bytes) -> bytes:
    try:
        text = value.decode("utf-8")
    except UnicodeDecodeError:
        return bytes(byte ^ 0x01 for byte in value)
    return perturb_text(text).encode("utf-8")


def perturb_text(text: str) -> str:
    """JSON keeps its keys and structure, XML its tags; other text keeps its punctuation and token lengths."""
    stripped = text.strip()
    if stripped[:1] in ("{", "[") and stripped[-1:] in ("}", "]"):
        try:
            document = json.loads(stripped)
        except ValueError:
            document = None
        if isinstance(document, (dict, list)):
            return json.dumps(_perturb_json(document), ensure_ascii=False)
    if stripped.startswith("<") and stripped.endswith(">"):
        return _XML_TEXT.sub(_perturb_xml_part, text)
    return _TOKEN.sub(_perturb_token, text)


def _perturb_json(document: Any) -> Any:
    if isinstance(document, dict):
        return {key: _perturb_json(item) for key, item in document.items()}
    if isinstance(document, list):
        return [_perturb_json(item) for item in document]
    if isinstance(document, str):
        return perturb_text(document)
    return perturb_value(document)


def _perturb_xml_part(match: re.Match[str]) -> str:
    if match.group(1) is not None:
        return match.group(1) + _TOKEN.sub(_perturb_token, match.group(2)) + match.group(3)
    return match.group(4) + _TOKEN.sub(_perturb_token, match.group(5)) + match.group(6)


def _perturb_token(match: re.Match[str]) -> str:
    token = match.group(0)
    if match.group("ymd") is not None:
        return _shift_year(token[:4]) + token[4:]
    if match.group("dmy") is not None:
        return token[:-4] + _shift_year(token[-4:])
    if match.group("time") is not None:
        hours, minutes, *rest = token.split(":")
        moved = int(minutes) - 1 if int(minutes) > 0 else int(minutes) + 1
        return ":".join([hours, f"{moved:02d}", *rest])
    if match.group("digits") is not None:
        return _perturb_digits(token)
    lowered = token.lower()
    if lowered in _KEPT_WORDS:
        return token
    swapped = _SWAPS.get(lowered)
    if swapped is not None:
        return _same_case(swapped, token)
    return "".join(_next_letter(char) for char in token)


def _shift_year(year: str) -> str:
    number = int(year)
    return f"{number - 4 if number >= 4 else number + 4:04d}"


def _perturb_digits(digits: str) -> str:
    """Move the last digit by one, staying in the range that dates and times use (never to an all-zero value).

    `31` → `30`, `01` → `02`, `10` → `11`, `2017` → `2016`: a day, month, hour or year stays valid in
    nearly every case, the digit count never changes, and the number is different.
    """
    last = int(digits[-1])
    head = digits[:-1]
    if last >= 2 or (last == 1 and head.strip("0")):
        return head + str(last - 1)
    return head + str(last + 1)


def _next_letter(char: str) -> str:
    if "a" <= char <= "z":
        return chr((ord(char) - ord("a") + 1) % 26 + ord("a"))
    if "A" <= char <= "Z":
        return chr((ord(char) - ord("A") + 1) % 26 + ord("A"))
    return char


def _same_case(word: str, like: str) -> str:
    if like.isupper() and len(like) > 1:
        return word.upper()
    if like[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def perturb_rows(rows: Sequence[Mapping[str, Any]], column: str) -> list[dict[str, Any]]:
    """The rows with every value of ``column`` perturbed; other columns untouched."""
    return [{name: perturb_value(value) if name == column else value for name, value in row.items()} for row in rows]


def resize_value(value: Any) -> Any | None:
    """A list (or JSON array text) one element longer, its elements perturbed; None for anything without a length.

    Shape-keeping perturbation cannot show a row-shape influence: `flatten :a,:b` makes as many rows as the
    longest list, so only a list of another length shows that `b`'s rows depend on `a`. The element added is
    a perturbed copy of the last one, so it has the type the others have.
    """
    if isinstance(value, (list, tuple)) and value:
        return [*perturb_value(list(value)), perturb_value(value[-1])]
    if isinstance(value, str) and value.strip().startswith("[") and value.strip().endswith("]"):
        try:
            document = json.loads(value)
        except ValueError:
            return None
        if isinstance(document, list) and document:
            return json.dumps([*_perturb_json(document), _perturb_json(document[-1])], ensure_ascii=False)
    return None


def resize_rows(rows: Sequence[Mapping[str, Any]], column: str) -> list[dict[str, Any]] | None:
    """The rows with every list of ``column`` one element longer, or None when the column holds no list."""
    resized = [row.get(column) for row in rows]
    longer = [resize_value(value) for value in resized]
    if all(value is None for value in longer):
        return None
    return [{**row, column: value if value is not None else row.get(column)} for row, value in zip(rows, longer,
                                                                                                   strict=True)]


# -- running, and keeping what became of each input row ---------------------------------------------------------------
@dataclass(frozen=True)
class RowFate:
    """What one input row became: its output rows, and the copies of it that did not reach the output
    (``(FILTERED | ERRORED, directive)`` each; a row-multiplying directive can leave both kinds)."""

    rows: tuple[tuple[Any, ...], ...] = ()
    lost: tuple[tuple[str, int], ...] = ()
    #: The `fail` directive this row made stop the run, if any.
    aborted_by: int | None = None


@dataclass(frozen=True)
class Execution:
    """One run: the output columns, and the fate of every input row (by input row number)."""

    columns: tuple[str, ...]
    fates: tuple[RowFate, ...]

    @property
    def aborted_by(self) -> int | None:
        """The `fail` directive that stopped the run, or None."""
        return next((fate.aborted_by for fate in self.fates if fate.aborted_by is not None), None)

    def part(self, start: int, stop: int) -> Execution:
        return Execution(self.columns, self.fates[start:stop])


def execute(recipe: Recipe, rows: Sequence[Mapping[str, Any]], spark: SparkSession,
            types: Mapping[str, T.DataType] | None = None) -> Execution:
    """Run ``recipe`` (parsed with the rows' columns as its schema) and collect every row's fate in one action."""
    numbered = [{**row, INPUT_ROW: number} for number, row in enumerate(rows)]
    df = rows_to_dataframe(spark, numbered, types={**(types or {}), INPUT_ROW: T.IntegerType()})
    frame = run(df, recipe).frame
    rows_df = frame.df  # built, so a pending rename (`change-column-case`) is applied to the column names
    schema = rows_df.schema
    wanted = [*frame.columns, ERROR, DROP, INPUT_ROW]
    collected = rows_df.select(*(_safe_column(schema[name]) for name in wanted)).collect()
    width = len(frame.columns)
    outputs: dict[int, list[tuple[Any, ...]]] = {}
    lost: dict[int, list[tuple[str, int]]] = {}
    aborted: dict[int, int] = {}
    for raw in collected:
        number, error, dropped = raw[width + 2], raw[width], raw[width + 1]
        if error is not None:
            lost.setdefault(number, []).append((ERRORED, error["directive_index"]))
            if error["abort"]:
                aborted[number] = error["directive_index"]
        elif dropped is not None:
            lost.setdefault(number, []).append((FILTERED, dropped))
        else:
            outputs.setdefault(number, []).append(
                tuple(_from_safe(raw[i], schema[frame.columns[i]].dataType) for i in range(width)))
    fates = tuple(RowFate(tuple(outputs.get(n, ())), tuple(lost.get(n, ())), aborted.get(n))
                  for n in range(len(rows)))
    return Execution(tuple(frame.columns), fates)


# -- comparing a perturbed run with the baseline ----------------------------------------------------------------------
@dataclass(frozen=True)
class Effect:
    """What perturbing one input column did to the output.

    ``values``: output columns (of the baseline) whose values changed in input rows that kept their shape,
    or that the perturbed run no longer has. ``reshaped``: input rows that became a different number of
    output rows, each as (row number, what happened, directive): ``FILTERED`` or ``ERRORED`` with the
    directive that did it in one run only, or ``OUT`` (None) when a row-multiplying directive made a
    different number of rows. ``perturbed``: how many input values actually changed (0: the column could
    not be tested, all its values are null). ``aborted_by``: a `fail` directive that stopped one run and
    not the other; ``crashed``: the perturbed run failed outright.
    """

    column: str
    values: frozenset[str]
    reshaped: tuple[tuple[int, str, int | None], ...]
    perturbed: int
    aborted_by: int | None = None
    crashed: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "column": self.column, "values": sorted(self.values),
            "reshaped": [{"row": row, "status": status, "directive": directive}
                         for row, status, directive in self.reshaped],
            "perturbed": self.perturbed, **given(aborted_by=self.aborted_by, crashed=self.crashed)}


@dataclass(frozen=True)
class Observation:
    """The baseline run and one `Effect` per input column of the sample.

    ``unstable``: output columns whose values differ between two runs of the unchanged sample (`generate-uuid`,
    the current time): they change in every perturbed run too, whatever was perturbed, so they are left out of
    every `Effect`. Only a `precise` observation looks for them.
    """

    baseline: Execution
    effects: tuple[Effect, ...] = field(default=())
    unstable: frozenset[str] = frozenset()
    #: Whether each perturbed run was a run of its own (else all ran together, see `observe`).
    precise: bool = True

    def merged(self, other: Observation) -> Observation:
        """This observation with ``other``'s effects (and its unstable columns) in place of its own."""
        replaced = {effect.column: effect for effect in other.effects}
        effects = tuple(replaced.pop(effect.column, effect) for effect in self.effects) + tuple(replaced.values())
        return Observation(self.baseline, effects, self.unstable | other.unstable, self.precise and other.precise)


def compare(column: str, baseline: Execution, variant: Execution, perturbed: int) -> Effect:
    """The `Effect` of a perturbed run: input row by input row, output column by output column."""
    changed = {name for name in baseline.columns if name not in variant.columns}
    shared = [(i, variant.columns.index(name)) for i, name in enumerate(baseline.columns) if name not in changed]
    reshaped: list[tuple[int, str, int | None]] = []
    for number, (before, after) in enumerate(zip(baseline.fates, variant.fates, strict=True)):
        if len(before.rows) != len(after.rows):
            differing = set(before.lost) ^ set(after.lost)
            status, directive = next(iter(differing)) if len(differing) == 1 else (OUT, None)
            reshaped.append((number, status, directive))
            continue
        for mine, theirs in shared:
            name = baseline.columns[mine]
            if name not in changed and any(not _same(a[mine], b[theirs])
                                           for a, b in zip(before.rows, after.rows, strict=True)):
                changed.add(name)
    aborted_by = variant.aborted_by if baseline.aborted_by is None else None
    return Effect(column, frozenset(changed), tuple(reshaped), perturbed, aborted_by)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and bool(a == b)


def observe(recipe: Recipe, rows: Sequence[Mapping[str, Any]], spark: SparkSession,
            types: Mapping[str, T.DataType] | None = None, columns: Sequence[str] | None = None,
            *, precise: bool = False) -> Observation:
    """The baseline and one perturbed copy of the rows per input column (``columns``, default every column).

    By default everything runs together, in one Spark job: the sample, then a copy of it per input column with
    that column perturbed, one after the other (each input row keeps its number, so the copies are compared
    row by row). One job instead of one per column makes verification affordable; the price is that directives
    reading *across* rows see every copy (a CSV header is the first row of the first copy only; a running
    `increment-variable` counts on through the copies), which can show a change that a run of its own would
    not. So a change the lineage does not explain must be confirmed with ``precise=True``: a run of its own per
    column, and the unchanged sample run twice to find columns that change from run to run (`generate-uuid`).

    Raises whatever the baseline raises (a `RecipeError`, a Spark error): then there is nothing to observe.
    """
    names = list(columns) if columns is not None else list(dict.fromkeys(name for row in rows for name in row))
    variants: list[tuple[str, list[dict[str, Any]], int]] = []
    for name in names:
        for changed in (perturb_rows(rows, name), resize_rows(rows, name)):
            if changed is not None:
                count = sum(1 for old, new in zip(rows, changed, strict=True) if not _same(old.get(name),
                                                                                          new.get(name)))
                variants.append((name, changed, count))
    if not precise:
        size = len(rows)
        try:
            together = execute(recipe, [*rows, *(row for _, changed, _ in variants for row in changed)], spark,
                               types)
        except Exception:  # a perturbed copy made the run fail: find out which, one run at a time
            return observe(recipe, rows, spark, types, names, precise=True)
        baseline = together.part(0, size)
        effects = [compare(name, baseline, together.part(size * (i + 1), size * (i + 2)), count)
                   for i, (name, _, count) in enumerate(variants)]
        return Observation(baseline, _merge(effects), precise=False)
    baseline = execute(recipe, rows, spark, types)
    unstable = compare("", baseline, execute(recipe, rows, spark, types), 0).values
    found = []
    for name, changed, count in variants:
        try:
            variant = execute(recipe, changed, spark, types)
        except Exception as error:  # any failure of the perturbed run is evidence to report
            message = str(error).strip().splitlines()[0][:300] if str(error).strip() else type(error).__name__
            found.append(Effect(name, frozenset(), (), count, crashed=message))
            continue
        effect = compare(name, baseline, variant, count)
        found.append(replace(effect, values=effect.values - unstable))
    return Observation(baseline, _merge(found), unstable)


def _merge(effects: Sequence[Effect]) -> tuple[Effect, ...]:
    """One effect per input column: a column perturbed twice (values, then a list's length) shows both runs' changes."""
    merged: dict[str, Effect] = {}
    for effect in effects:
        known = merged.get(effect.column)
        if known is None:
            merged[effect.column] = effect
            continue
        merged[effect.column] = Effect(
            effect.column, known.values | effect.values, known.reshaped + effect.reshaped,
            max(known.perturbed, effect.perturbed), known.aborted_by or effect.aborted_by,
            known.crashed or effect.crashed)
    return tuple(merged.values())


def read_sample(spark: SparkSession, path: str, fmt: str, limit: int,
                header: bool = True) -> tuple[list[dict[str, Any]], dict[str, T.DataType]]:
    """The first ``limit`` rows of a file as Python rows, with the Spark type of every column (so a run on the rows
    sees the types a run on the file would: a Long stays a Long, a CSV column stays text)."""
    df = read_table(spark, path, fmt, header=header)
    rows = sample_rows(df, limit)  # lines the reader could not parse are no sample
    return rows, {spark_field.name: spark_field.dataType for spark_field in user_columns(df).schema.fields}
