"""Wrangler's line-based v1 → v2 rewriter (`MigrateToV2`), reproduced so old recipes read the same.

Why this exists: the Wrangler plugin runs every recipe through `MigrateToV2.migrate()` before the
ANTLR grammar sees it, v1 or v2 alike. A recipe that works in Wrangler (`rename a b`,
`set column total price * qty`, `filter-rows-on condition-true age > 10`) must therefore work here,
and must mean *exactly* what Wrangler's rewrite makes of it, quirks included, because lineage is
derived from the rewritten directive.

How it works (facts taken from Wrangler's source, re-expressed as data rather than a switch):

- A line is trimmed the Java way (every char <= U+0020 at both ends, not Unicode whitespace).
  Empty lines, ``//`` lines and ``#`` lines other than ``#pragma`` are dropped (``None``).
- A line containing ``exp:`` or ``prop:`` anywhere is kept, with ``;`` appended if missing.
  A ``#pragma`` line is kept as is (no ``;`` added).
- Otherwise one trailing ``;`` is removed and the line is read with a `java.util.StringTokenizer`
  model: words are separated by the space character only (a tab is part of a word), and
  "the rest of the line" is read by switching the delimiter to ``\\n``, which from then on stays.
  The first word is the command. `_REWRITES` maps each v1 command to the fields it reads, in order,
  and how each is written back (`_Kind`): ``:column``, quoted text, raw word, column list,
  ``exp:{…}`` … Words after the last field are silently discarded, as in Wrangler.
  ``set`` and ``filter-rows-on`` dispatch on their second word through the nested tables
  `_SET_SUBCOMMANDS` and `_FILTER_ROWS_ON`.
- Any other command is kept, with ``;`` appended unless it already ends with ``;`` (after the one
  that was removed) or starts with ``$`` (a macro). So ``${m};`` becomes ``${m}``.

Observable quirks reproduced on purpose (the conformance cases pin several of them):

- ``col()`` leaves a word that already starts with ``:`` alone; ``quote()`` leaves text already
  wrapped in ``'…'`` or ``"…"`` alone, and uses ``"…"`` when the text contains ``'``.
- A missing optional value is printed the way Java's ``String.format`` prints ``null``: the word
  ``null`` (set-type scale/rounding/precision, parse-as-json depth, hash encode, set-charset …),
  or an empty string where Wrangler passes it through ``quote()`` (parse-as-date, invoke-http,
  parse-as-fixed-length), which leaves a space before the ``;``.
- ``split-to-rows`` and ``split-to-columns`` read their last argument as one word, because Wrangler
  calls the four-argument ``getNextToken`` with ``"\\n"`` in the *directive-name* slot.
- Column lists follow Java's ``String.split(",")``: trailing empty items vanish, inner ones become
  ``:``; each item is trimmed before ``:`` is prefixed.
- ``parse-as-csv`` drops one trailing ``;`` from its delimiter word and prints nothing (not
  ``null``) for a missing header flag; ``copy`` omits an absent or empty ``force``.
- ``filter-rows-on`` options compare like Java's ``equalsIgnoreCase`` (including the four
  non-ASCII letters Java folds onto ASCII: ı ſ İ K).
- ``set <anything but column/columns>`` is dropped. ``format-unix-timestamp``, ``parse-as-xml``,
  ``xpath`` and ``xpath-array`` are rewritten although no v2 directive has those names
  (`V1_TARGET_UNKNOWN`); the binder reports them as unknown directives.

Deliberate deviations (each makes an error clearer; none changes a successful rewrite):

- Errors are `RecipeSyntaxError` carrying ``line=<lineno passed in>`` and a column, with a hint
  showing the v1 usage. Wrangler throws ``DirectiveParseException`` for missing fields and unknown
  ``filter-rows-on`` options, and a bare ``NoSuchElementException`` for a bare ``set`` and for a
  line that is only ``;``; all of these become `RecipeSyntaxError` here.
- Line numbers: Wrangler's counter starts after trimming the whole recipe and only advances on
  lines that reach its switch (and ``format-date`` reports line 1 for a missing column). `migrate`
  passes the physical 1-based line number of the text it was given instead.
- Field names in messages follow Wrangler except where its label is wrong: ``quantize``'s third
  field is called ``ranges`` (Wrangler: ``destination-column``), the ``filter-rows-on`` option is
  ``option`` (Wrangler: ``command``).
- Spec §1.2 lists ``set-record-delim`` and ``parse-as-fixed-length`` with the one-word truncation.
  In Wrangler's source both read their optional last argument as the rest of the line (their slip
  is passing the column name as the directive name, which only an error message could show, and
  an optional field never errors). We follow the source; the conformance case
  ``FixedLengthParserTest.testFixedLengthComprehensive`` (padding ``' '``) only works that way.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass
from operator import itemgetter

from grammar.errors import RecipeSyntaxError

__all__ = [
    "PLACEHOLDER",
    "V1_ONLY_COMMANDS",
    "V1_SWITCH_COMMANDS",
    "V1_TARGET_UNKNOWN",
    "Migration",
    "migrate",
    "migrate_line",
    "migrate_line_mapped",
    "rewrites_command",
    "v1_forms_of",
    "v1_targets",
]

# Java's String.trim() removes every char <= U+0020, nothing else (no U+00A0, no U+2000…).
_JAVA_TRIM = "".join(chr(code) for code in range(0x21))

# Java's equalsIgnoreCase also matches these non-ASCII letters against ASCII ones (ı→I, ſ→S, İ→i, K→k).
_JAVA_CASE_FOLD = str.maketrans({"ı": "i", "ſ": "s", "İ": "i", "K": "k"})


def _java_trim(text: str) -> str:
    return text.strip(_JAVA_TRIM)


# --------------------------------------------------------------------------------------------------
# How one value is written back. Each takes the value read (None when an optional field was absent) and
# returns the fragments to emit, or None to emit nothing at all (not even the separating space). A fragment
# is ``(text, offset)``: ``offset`` is where ``text`` starts inside the value read (its characters map one to
# one onto the user's line), or None for text the rewrite makes up (a `:`, quotes, `exp:{`, a `null`), so
# positions in the rewritten line can be mapped back to what the user wrote.

Fragments = list[tuple[str, int | None]]


def _col(value: str | None) -> Fragments:
    """`:name`, unless the word is already a column."""
    text = value or ""
    return [(text, 0)] if text.startswith(":") else [(":", None), (text, 0)]


def _quote(value: str | None) -> Fragments:
    """Quoted text; absent → empty string; already quoted → unchanged; contains `'` → double quotes."""
    if value is None:
        return [("", None)]
    if (value.startswith("'") and value.endswith("'")) or (value.startswith('"') and value.endswith('"')):
        return [(value, 0)]
    quote = '"' if "'" in value else "'"
    return [(quote, None), (value, 0), (quote, None)]


def _raw(value: str | None) -> Fragments:
    """The word as is; absent prints `null`, as Java's String.format does."""
    return [(PLACEHOLDER, None)] if value is None else [(value, 0)]


def _blank(value: str | None) -> Fragments:
    """The word as is; absent prints nothing (parse-as-csv's header flag)."""
    return [("", None)] if value is None else [(value, 0)]


def _omitted_if_empty(value: str | None) -> Fragments | None:
    """The word as is; absent or empty drops the field entirely (copy's `force`)."""
    return [(value, 0)] if value else None


def _columns(value: str | None) -> Fragments:
    """`a,b` → `:a,:b`, splitting like Java's String.split(",") (trailing empty items vanish)."""
    text = value or ""
    parts = text.split(",")
    if len(parts) > 1:
        while parts and not parts[-1]:
            parts.pop()
    fragments: Fragments = []
    offset = 0
    for number, part in enumerate(parts):
        if number:
            fragments.append((",", offset - 1))
        item = _java_trim(part)
        start = offset + (len(part) - len(part.lstrip(_JAVA_TRIM)))
        fragments += [(piece, None if at is None else start + at) for piece, at in _col(item)]
        offset += len(part) + 1
    return fragments


def _expression(value: str | None) -> Fragments:
    return [("exp:{", None), (value or "", 0), ("}", None)]


def _csv_delimiter(value: str | None) -> Fragments:
    """parse-as-csv drops one `;` from its delimiter word before quoting it."""
    text = value or ""
    return _quote(text[:-1] if text.endswith(";") else text)


@dataclass(frozen=True, slots=True)
class _Kind:
    """How a field is read (one word, or the rest of the line) and written back."""

    rest: bool
    optional: bool
    render: Callable[[str | None], Fragments | None]


COLUMN = _Kind(rest=False, optional=False, render=_col)
QUOTED = _Kind(rest=False, optional=False, render=_quote)
RAW = _Kind(rest=False, optional=False, render=_raw)
COLUMN_LIST = _Kind(rest=False, optional=False, render=_columns)
CSV_DELIMITER = _Kind(rest=False, optional=False, render=_csv_delimiter)
OPTIONAL_RAW = _Kind(rest=False, optional=True, render=_raw)
REST_COLUMN = _Kind(rest=True, optional=False, render=_col)
REST_QUOTED = _Kind(rest=True, optional=False, render=_quote)
REST_RAW = _Kind(rest=True, optional=False, render=_raw)
REST_COLUMN_LIST = _Kind(rest=True, optional=False, render=_columns)
REST_AS_EXPRESSION = _Kind(rest=True, optional=False, render=_expression)
OPTIONAL_REST_RAW = _Kind(rest=True, optional=True, render=_raw)
OPTIONAL_REST_QUOTED = _Kind(rest=True, optional=True, render=_quote)
OPTIONAL_REST_BLANK = _Kind(rest=True, optional=True, render=_blank)
OPTIONAL_REST_OMITTED = _Kind(rest=True, optional=True, render=_omitted_if_empty)


@dataclass(frozen=True, slots=True)
class _Rewrite:
    """One v1 form: the fields read in order, emitted as `<head> <field>… [<tail>];`."""

    fields: tuple[tuple[str, _Kind], ...]
    head: str | None = None  # None: the v1 command itself
    tail: str = ""

    def usage(self, command: str) -> str:
        words = [command]
        words += [f"[<{name}>]" if kind.optional else f"<{name}>" for name, kind in self.fields]
        return " ".join(words)


def _r(*fields: tuple[str, _Kind], head: str | None = None, tail: str = "") -> _Rewrite:
    return _Rewrite(fields, head, tail)


_ONE_COLUMN = _r(("column", COLUMN))

# Every v1 command Wrangler's switch handles, except `set` and `filter-rows-on` (nested tables below).
_REWRITES: dict[str, _Rewrite] = {
    "rename": _r(("old", COLUMN), ("new", COLUMN)),
    "set-type": _r(
        ("col", COLUMN), ("type", RAW), ("scale", OPTIONAL_RAW), ("rounding-mode", OPTIONAL_RAW),
        ("precision", OPTIONAL_RAW),
    ),
    "drop": _r(("column", COLUMN_LIST)),
    "merge": _r(("first", COLUMN), ("second", COLUMN), ("new-column", COLUMN), ("delimiter", REST_QUOTED)),
    "uppercase": _ONE_COLUMN,
    "lowercase": _ONE_COLUMN,
    "titlecase": _ONE_COLUMN,
    "indexsplit": _r(("source", COLUMN), ("start", RAW), ("end", RAW), ("destination", COLUMN)),
    "split": _r(("source-column-name", COLUMN), ("delimiter", QUOTED), ("new-column-1", COLUMN),
                ("new-column-2", COLUMN)),
    "filter-row-if-matched": _r(("column", COLUMN), ("regex", REST_QUOTED), head="filter-by-regex if-matched"),
    "filter-row-if-not-matched": _r(("column", COLUMN), ("regex", REST_QUOTED),
                                    head="filter-by-regex if-not-matched"),
    "filter-row-if-true": _r(("condition", REST_AS_EXPRESSION), head="filter-row", tail="true"),
    "filter-row-if-false": _r(("condition", REST_AS_EXPRESSION), head="filter-row", tail="false"),
    "set-variable": _r(("column", RAW), ("expression", REST_AS_EXPRESSION)),
    "increment-variable": _r(("column", RAW), ("value", RAW), ("expression", REST_AS_EXPRESSION)),
    "mask-number": _r(("column", COLUMN), ("pattern", QUOTED)),
    "mask-shuffle": _ONE_COLUMN,
    "format-date": _r(("column", COLUMN), ("format", REST_QUOTED)),
    "format-unix-timestamp": _r(("column", COLUMN), ("destination-format", REST_QUOTED)),
    "quantize": _r(("source-column", COLUMN), ("destination-column", COLUMN), ("ranges", REST_RAW)),
    "find-and-replace": _r(("columns", COLUMN_LIST), ("sed-script", REST_QUOTED)),
    "parse-as-csv": _r(("column", COLUMN), ("delimiter", CSV_DELIMITER), ("true|false", OPTIONAL_REST_BLANK)),
    "parse-as-json": _r(("column", COLUMN), ("depth", OPTIONAL_REST_RAW)),
    "parse-as-avro": _r(("column", COLUMN), ("schema-id", RAW), ("type", RAW), ("version", OPTIONAL_REST_RAW)),
    "parse-as-protobuf": _r(("column", COLUMN), ("schema-id", RAW), ("record-name", QUOTED),
                            ("version", OPTIONAL_REST_RAW)),
    "json-path": _r(("source", COLUMN), ("dest", COLUMN), ("json-path", REST_QUOTED)),
    "set-charset": _r(("column", COLUMN), ("charset", OPTIONAL_REST_RAW)),
    "invoke-http": _r(("url", QUOTED), ("columns", COLUMN_LIST), ("headers", OPTIONAL_REST_QUOTED)),
    "set-record-delim": _r(("column", COLUMN), ("delimiter", QUOTED), ("limit", OPTIONAL_REST_RAW)),
    "parse-as-fixed-length": _r(("column", COLUMN), ("widths", RAW), ("padding", OPTIONAL_REST_QUOTED)),
    # Wrangler's slip: one word, not the rest of the line (see the module docstring).
    "split-to-rows": _r(("column", COLUMN), ("separator", QUOTED)),
    "split-to-columns": _r(("column", COLUMN), ("regex", QUOTED)),
    "parse-xml-to-json": _r(("column", COLUMN), ("depth", OPTIONAL_REST_RAW)),
    "parse-as-xml": _ONE_COLUMN,
    "xpath": _r(("column", COLUMN), ("destination", COLUMN), ("xpath", REST_QUOTED)),
    "xpath-array": _r(("column", COLUMN), ("destination", COLUMN), ("xpath", REST_QUOTED)),
    "flatten": _r(("columns", COLUMN_LIST)),
    "copy": _r(("source", COLUMN), ("destination", COLUMN), ("force", OPTIONAL_REST_OMITTED)),
    "fill-null-or-empty": _r(("column", COLUMN), ("fixed-value", REST_QUOTED)),
    "cut-character": _r(("source", COLUMN), ("destination", COLUMN), ("range", QUOTED)),
    "generate-uuid": _ONE_COLUMN,
    "url-encode": _ONE_COLUMN,
    "url-decode": _ONE_COLUMN,
    "parse-as-log": _r(("column", COLUMN), ("format", REST_QUOTED)),
    "parse-as-date": _r(("column", COLUMN), ("timezone", OPTIONAL_REST_QUOTED)),
    "parse-as-simple-date": _r(("column", COLUMN), ("format", REST_QUOTED)),
    "diff-date": _r(("column1", COLUMN), ("column2", COLUMN), ("destColumn", REST_COLUMN)),
    "keep": _r(("columns", COLUMN_LIST)),
    "parse-as-hl7": _r(("column", COLUMN), ("depth", OPTIONAL_REST_RAW)),
    "split-email": _ONE_COLUMN,
    "swap": _r(("column1", COLUMN), ("column2", COLUMN)),
    "hash": _r(("column", COLUMN), ("algorithm", QUOTED), ("encode", OPTIONAL_REST_RAW)),
    "write-as-json-map": _ONE_COLUMN,
    "write-as-json-object": _r(("column", COLUMN), ("columns", REST_COLUMN_LIST)),
    "write-as-csv": _ONE_COLUMN,
    "parse-as-avro-file": _ONE_COLUMN,
    "send-to-error": _r(("condition", REST_AS_EXPRESSION)),
    "fail": _r(("condition", REST_AS_EXPRESSION)),
    "text-distance": _r(("method", QUOTED), ("column1", COLUMN), ("column2", COLUMN), ("destination", COLUMN)),
    "text-metric": _r(("method", QUOTED), ("column1", COLUMN), ("column2", COLUMN), ("destination", COLUMN)),
    "catalog-lookup": _r(("type", QUOTED), ("column", COLUMN)),
    "table-lookup": _r(("column", COLUMN), ("table", QUOTED)),
    "stemming": _ONE_COLUMN,
    "columns-replace": _r(("sed-expression", QUOTED)),
    "extract-regex-groups": _r(("column", COLUMN), ("regex", QUOTED)),
    "split-url": _ONE_COLUMN,
    "cleanse-column-names": _r(),
    "change-column-case": _r(("case", RAW)),
    "set-column": _r(("column", COLUMN), ("expression", REST_AS_EXPRESSION)),
    "encode": _r(("type", QUOTED), ("column", COLUMN)),
    "decode": _r(("type", QUOTED), ("column", COLUMN)),
    "trim": _ONE_COLUMN,
    "ltrim": _ONE_COLUMN,
    "rtrim": _ONE_COLUMN,
}

# `set <word> …`: matched exactly (case-sensitive, the raw word); any other word drops the line.
_SET_SUBCOMMANDS: dict[str, _Rewrite] = {
    "column": _r(("column-name", COLUMN), ("jexl-expression", REST_AS_EXPRESSION), head="set-column"),
    "columns": _r(("name1,name2,...", REST_COLUMN_LIST), head="set-headers"),
}

# `filter-rows-on <option> …`: option compared case-insensitively; any other option is an error.
_FILTER_ROWS_ON: dict[str, _Rewrite] = {
    "condition-false": _r(("condition", REST_AS_EXPRESSION), head="filter-row", tail="false"),
    "condition-true": _r(("condition", REST_AS_EXPRESSION), head="filter-row", tail="true"),
    "empty-or-null-columns": _r(("columns", REST_COLUMN_LIST), head="filter-empty-or-null"),
    "regex-match": _r(("column", COLUMN), ("regex", REST_QUOTED), head="filter-by-regex if-matched"),
    "regex-not-match": _r(("column", COLUMN), ("regex", REST_QUOTED), head="filter-by-regex if-not-matched"),
}

V1_SWITCH_COMMANDS: frozenset[str] = frozenset(_REWRITES) | {"set", "filter-rows-on"}
"""Every command word the rewriter treats specially; any other line passes through with `;`."""

V1_ONLY_COMMANDS: frozenset[str] = frozenset(
    {"set", "filter-rows-on", "filter-row-if-matched", "filter-row-if-not-matched", "filter-row-if-true",
     "filter-row-if-false"}
)
"""Command words that no v2 directive has: a line starting with one can only mean its v1 rewrite."""

V1_TARGET_UNKNOWN: frozenset[str] = frozenset({"format-unix-timestamp", "parse-as-xml", "xpath", "xpath-array"})
"""Names the rewriter emits although no directive implements them (Wrangler: DirectiveNotFound)."""


# --------------------------------------------------------------------------------------------------
# Reading a line the way java.util.StringTokenizer does.


class _Exhausted(Exception):
    """StringTokenizer.nextToken() with nothing left (only reachable with an embedded newline)."""


class _Cursor:
    """A StringTokenizer over one line: one-char delimiter, initially a space, switchable to newline.

    `has_more` looks with the *current* delimiter, `next_token` may switch it first, exactly the
    order Wrangler's getNextToken uses. That order is why `fail \t;` reads an empty condition (a tab
    is "more" to the space-delimited look-ahead) while `fail ;` reports the condition missing.
    """

    __slots__ = ("_delimiter", "_end", "_position", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._end = len(text)
        self._position = 0
        self._delimiter = " "

    def _skip(self, position: int) -> int:
        text, delimiter, end = self._text, self._delimiter, self._end
        while position < end and text[position] == delimiter:
            position += 1
        return position

    def has_more(self) -> bool:
        return self._skip(self._position) < self._end

    def next_token(self, delimiter: str | None = None) -> tuple[str, int]:
        """The next token and where it starts; `delimiter` switches the delimiter for good."""
        if delimiter is not None:
            self._delimiter = delimiter
        start = self._skip(self._position)
        if start >= self._end:
            raise _Exhausted
        stop = self._text.find(self._delimiter, start)
        if stop < 0:
            stop = self._end
        self._position = stop
        return self._text[start:stop], start

    def take(self, rest: bool) -> tuple[str, int] | None:
        """Wrangler's getNextToken: None when nothing is left, else the trimmed word (or rest of line) and where
        it starts."""
        if not self.has_more():
            return None
        token, start = self.next_token("\n" if rest else None)
        trimmed = _java_trim(token)
        return trimmed, start + (len(token) - len(token.lstrip(_JAVA_TRIM))) if trimmed else start

    def remaining(self) -> tuple[str, int] | None:
        """What the rewrite never reads: the rest of the line after its last field (trimmed), or None."""
        start = self._position
        while start < self._end and self._text[start] <= " ":
            start += 1
        if start >= self._end:
            return None
        return _java_trim(self._text[start:]), start


_END = itemgetter(1)
PLACEHOLDER = "null"
"""What Java's String.format prints for an absent optional value the rewrite does not quote."""


@dataclass(frozen=True, slots=True)
class Migration:
    """What Wrangler's `MigrateToV2` makes of one line, and where each part of it came from.

    ``pieces`` maps the rewritten text back onto the line the user wrote: ``(start, end, source, copied)``
    says that ``text[start:end]`` is a copy of the line from offset ``source`` (0-based, in the physical
    line), or, when not ``copied``, a word the rewrite put in place of the one at ``source`` (the v2 name
    of a v1 command). Other text was made up by the rewrite (a `:`, quotes, `exp:{…}`, a `null`).
    ``placeholders`` counts the trailing ``null`` words standing for absent optional values, and
    ``ignored`` is the text the rewrite reads past and throws away (with its offset), as Wrangler does.
    ``rewritten`` is False for a line passed through unchanged (only its `;` may differ).
    """

    text: str
    pieces: tuple[tuple[int, int, int, bool], ...] = ()
    placeholders: int = 0
    ignored: tuple[str, int] | None = None
    rewritten: bool = True
    line_length: int = 0

    def source_offset(self, offset: int) -> int:
        """The 0-based offset in the user's line that `offset` in the rewritten text stands for.

        Made-up text stands for the copied piece after it (a `:` for its column name), or for the end of
        the line when nothing follows (a `;`, a `null`).
        """
        pieces = self.pieces
        at = bisect.bisect_right(pieces, offset, key=_END)  # the first piece ending after `offset`: pieces are in
        if at == len(pieces):                                 # order, so one search, not a scan per token
            return self.line_length
        start, _, source, copied = pieces[at]
        if offset < start:
            return source
        return source + offset - start if copied else source

    def copied(self, offset: int) -> bool:
        """Whether the character at `offset` in the rewritten text is one the user wrote (not made up)."""
        return any(start <= offset < end and copied for start, end, _, copied in self.pieces)


@dataclass(frozen=True, slots=True)
class _Line:
    """Where the line being migrated sits, so errors point at the right place."""

    lineno: int
    lead: int  # characters trimmed off the front of the physical line
    body: str  # the trimmed line without its trailing `;`

    @property
    def end_column(self) -> int:
        return self.lead + len(self.body) + 1

    def error(
        self, message: str, *, column: int | None = None, hint: str, directive: str | None
    ) -> RecipeSyntaxError:
        return RecipeSyntaxError(
            message,
            line=self.lineno,
            column=self.end_column if column is None else column,
            hint=hint,
            directive=directive,
        )


class _Writer:
    """Builds the rewritten line and its map back onto the user's line, one fragment at a time."""

    __slots__ = ("_lead", "_length", "parts", "pieces", "placeholders")

    def __init__(self, lead: int) -> None:
        self._lead = lead
        self._length = 0
        self.parts: list[str] = []
        self.pieces: list[tuple[int, int, int, bool]] = []
        self.placeholders = 0

    def head(self, text: str) -> None:
        """The v2 name the line starts with, standing for the command the user wrote at its start."""
        self.pieces.append((0, len(text), self._lead, False))
        self.parts.append(text)
        self._length += len(text)

    def word(self, text: str) -> None:
        """A made-up word after the fields (a tail such as `true`)."""
        self._add(" " + text, None)

    def field(self, fragments: Fragments, value_start: int) -> None:
        self._add(" ", None)
        for text, at in fragments:
            self._add(text, None if at is None else value_start + at)
            if text == PLACEHOLDER and at is None:
                self.placeholders += 1

    def _add(self, text: str, source: int | None) -> None:
        if source is not None and text:
            self.pieces.append((self._length, self._length + len(text), self._lead + source, True))
        self.parts.append(text)
        self._length += len(text)

    def finish(self, place: _Line, ignored: tuple[str, int] | None) -> Migration:
        text = "".join(self.parts) + ";"
        shifted = None if ignored is None else (ignored[0], place.lead + ignored[1])
        return Migration(text, tuple(self.pieces), self.placeholders, shifted, True, place.lead + len(place.body))


def _apply(rewrite: _Rewrite, cursor: _Cursor, line: _Line, command: str, usage_prefix: str) -> Migration:
    writer = _Writer(line.lead)
    writer.head(rewrite.head or command)
    for name, kind in rewrite.fields:
        try:
            taken = cursor.take(kind.rest)
            missing = taken is None and not kind.optional
        except _Exhausted:  # Wrangler itself fails here (NoSuchElementException)
            taken, missing = None, True
        if missing:
            raise line.error(
                f"Missing field '{name}' in v1 directive '{command}'.",
                hint=f"v1 usage: {rewrite.usage(usage_prefix)}",
                directive=command,
            )
        value, start = taken if taken is not None else (None, 0)
        fragments = kind.render(value)
        if fragments is not None:
            writer.field(fragments, start)
    if rewrite.tail:
        writer.word(rewrite.tail)
    return writer.finish(line, cursor.remaining())


_SET_USAGE = "set column <column-name> <jexl-expression> | set columns <name1,name2,...>"


def _migrate_set(cursor: _Cursor, line: _Line) -> Migration | None:
    try:
        word, _ = cursor.next_token()
    except _Exhausted:
        raise line.error(
            "Incomplete v1 directive 'set': expected 'column' or 'columns' after it.",
            hint=f"v1 usage: {_SET_USAGE}",
            directive="set",
        ) from None
    rewrite = _SET_SUBCOMMANDS.get(word)
    if rewrite is None:
        return None  # Wrangler silently drops `set <anything else>`
    return _apply(rewrite, cursor, line, f"set {word}", f"set {word}")


_FILTER_ROWS_ON_USAGE = "filter-rows-on <" + "|".join(_FILTER_ROWS_ON) + "> …"


def _migrate_filter_rows_on(cursor: _Cursor, line: _Line) -> Migration:
    command = "filter-rows-on"
    if not cursor.has_more():
        raise line.error(
            f"Missing field 'option' in v1 directive '{command}'.",
            hint=f"v1 usage: {_FILTER_ROWS_ON_USAGE}",
            directive=command,
        )
    token, start = cursor.next_token()
    option = _java_trim(token)
    rewrite = _FILTER_ROWS_ON.get(option.translate(_JAVA_CASE_FOLD).lower())
    if rewrite is None:
        raise line.error(
            f"Unknown option '{option}' for v1 directive '{command}'.",
            column=line.lead + start + 1,
            hint=f"Expected one of: {', '.join(_FILTER_ROWS_ON)}. v1 usage: {_FILTER_ROWS_ON_USAGE}",
            directive=command,
        )
    return _apply(rewrite, cursor, line, command, f"{command} {option}")


def migrate_line_mapped(line: str, lineno: int = 1) -> Migration | None:
    """Wrangler's `MigrateToV2` on one line with the map back onto it, or None when Wrangler drops the line.

    `lineno` only labels errors (`RecipeSyntaxError.line`); the rewrite never depends on it.
    """
    directive = _java_trim(line)
    if not directive or directive.startswith("//"):
        return None
    if directive.startswith("#") and not directive.startswith("#pragma"):
        return None
    lead = len(line) - len(line.lstrip(_JAVA_TRIM))
    if "exp:" in directive or "prop:" in directive:
        return _passed_through(directive if directive.endswith(";") else directive + ";", lead)
    if directive.startswith("#pragma"):
        return _passed_through(directive, lead)
    body = directive[:-1] if directive.endswith(";") else directive
    place = _Line(lineno=lineno, lead=lead, body=body)
    cursor = _Cursor(body)
    try:
        command, _ = cursor.next_token()
    except _Exhausted:
        raise place.error(
            "Empty directive: the line holds only ';'.",
            column=place.lead + 1,
            hint="Remove the line, or write a directive before the ';'.",
            directive=None,
        ) from None
    if command == "set":
        return _migrate_set(cursor, place)
    if command == "filter-rows-on":
        return _migrate_filter_rows_on(cursor, place)
    rewrite = _REWRITES.get(command)
    if rewrite is not None:
        return _apply(rewrite, cursor, place, command, command)
    if body.endswith(";") or body.startswith("$"):
        return _passed_through(body, lead)
    return _passed_through(body + ";", lead)


def _passed_through(text: str, lead: int) -> Migration:
    return Migration(text, ((0, len(text), lead, True),), 0, None, False, lead + len(text))


def migrate_line(line: str, lineno: int = 1) -> str | None:
    """The v2 text Wrangler's `MigrateToV2` makes of one line, or None when it drops the line."""
    migration = migrate_line_mapped(line, lineno)
    return None if migration is None else migration.text


def migrate(text: str) -> str:
    """A whole recipe rewritten line by line, kept lines joined with `\\n` (Wrangler's `migrate()`).

    Lines are split on `\\n` only (a `\\r` is trimmed away with the rest of the line's edges); errors
    carry the physical line number in `text`.
    """
    out: list[str] = []
    for lineno, physical in enumerate(text.split("\n"), start=1):
        migrated = migrate_line(physical, lineno)
        if migrated is not None:
            out.append(migrated)
    return "\n".join(out)


def rewrites_command(word: str) -> bool:
    """Whether Wrangler's rewrite treats a line starting with this word specially (its `switch`)."""
    return word in V1_SWITCH_COMMANDS


def v1_forms_of(directive: str) -> tuple[str, ...]:
    """Every v1 form the rewrite turns into `directive`, as usage text (`rename <old> <new>`).

    The rewrite table is the one source of these forms: the directive declarations read theirs here.
    """
    forms = [rewrite.usage(command) for command, rewrite in _REWRITES.items()
             if (rewrite.head or command).split(" ")[0] == directive]
    forms += [rewrite.usage(f"set {word}") for word, rewrite in _SET_SUBCOMMANDS.items()
              if (rewrite.head or "").split(" ")[0] == directive]
    forms += [rewrite.usage(f"filter-rows-on {option}") for option, rewrite in _FILTER_ROWS_ON.items()
              if (rewrite.head or "").split(" ")[0] == directive]
    return tuple(forms)


def v1_targets() -> frozenset[str]:
    """Every directive name the rewrite can produce (the heads of its forms)."""
    heads = {(rewrite.head or command).split(" ")[0] for command, rewrite in _REWRITES.items()}
    heads |= {(rewrite.head or "").split(" ")[0] for rewrite in (*_SET_SUBCOMMANDS.values(),
                                                                 *_FILTER_ROWS_ON.values())}
    return frozenset(heads)
