"""Directives that rewrite column values: expressions, text cleaning, encodings, masking, splitting, metrics.

Every label here names the columns a directive really reads and writes, which is where we are
more exact than Wrangler's own lineage (spec §3.4): `decode` declares `<col>_decode_base64`
rather than `col → col`, `split-url` its seven real parts in creation order, and
`extract-regex-groups` one numbered pattern per capture group of its regex instead of "all".
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from typing import ClassVar

from directives.base import Arg, ArgKind, Directive, OneColumn, expression_columns, expression_text, whole_number
from directives.catalog.column_ops import SourceToDestination, add_or_modify
from directives.column_state import ColumnState
from directives.labels import ColumnLabel, add, modify, read
from directives.sed import SedError, Substitution, parse_sed
from grammar.nodes import Expression, Range

C, CL, T, N, B, E, R = (ArgKind.COLUMN, ArgKind.COLUMN_LIST, ArgKind.TEXT, ArgKind.NUMBER, ArgKind.BOOL,
                        ArgKind.EXPRESSION, ArgKind.RANGES)

#: Names Wrangler binds in every expression context *after* the row's values (ELContext), so they
#: never resolve to a column: `ctx` is the execution context (`ctx.name`, `ctx.nano` …), `this` the row.
CONTEXT_NAMES = frozenset({"ctx", "this"})


def expression_reads(names: Iterable[str], exclude: Iterable[str] = ()) -> tuple[str, ...]:
    """The columns an expression reads: its free variables minus context names, deduplicated case-insensitively.

    Row lookups are case-insensitive (spec §2), so `A` and `a` are one column; ``exclude`` drops
    names that are not columns in that directive (a transient variable being set).
    """
    skip = {name.lower() for name in exclude}
    seen: dict[str, str] = {}
    for name in names:
        root = name.split(".", 1)[0]
        key = name.lower()
        if root in CONTEXT_NAMES or key in skip or key in seen:
            continue
        seen[key] = name
    return tuple(seen.values())


def modify_in_place(
    state: ColumnState, column: str, sources: tuple[str, ...] | None = None, *, masking: bool = False
) -> ColumnLabel:
    """MODIFY a column the directive expects to be there; ADD (from a constant) only when it is known to be missing.

    For directives that fill a missing column with a fixed value (`fill-null-or-empty`,
    `mask-number`), unlike `add_or_modify`, an unknown column list means "probably there".
    """
    if state.exists(column) is False:
        return add(column, (), masking=masking)
    return modify(column, sources, masking=masking)


def java_regex_groups(regex: str) -> int | None:
    """How many capturing groups a Java regex has, or None when it cannot be told safely.

    Counts `(` that open a group, skipping escapes, `\\Q…\\E` quotes, (nested) character classes
    and non-capturing `(?…)` groups; `(?<name>…)` captures. A literal `]` may open a class.
    """
    count, i, size = 0, 0, len(regex)
    while i < size:
        char = regex[i]
        if char == "\\":
            if regex.startswith("\\Q", i):
                end = regex.find("\\E", i + 2)
                i = size if end < 0 else end + 2
            else:
                i += 2
            continue
        if char == "[":
            i = _skip_class(regex, i)
            if i < 0:
                return None
            continue
        if char == "(":
            if regex.startswith("(?", i):
                if regex.startswith("(?<", i) and i + 3 < size and regex[i + 3] not in "=!":
                    count += 1
            else:
                count += 1
        i += 1
    return count


def _skip_class(regex: str, start: int) -> int:
    """Index just past the character class opening at ``start``; -1 when it never closes."""
    i, depth, size = start + 1, 1, len(regex)
    if i < size and regex[i] == "^":
        i += 1
    if i < size and regex[i] == "]":
        i += 1  # a leading `]` is a literal in Java
    while i < size:
        char = regex[i]
        if char == "\\":
            i += 2
            continue
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


class CutCharacter(SourceToDestination):
    """Copies the characters at Unix `cut -c` positions (`1-3`, `5-`, `-3`, `1,2,7`) into a column.

    Example: `cut-character :body :code '1-3'`
    """

    name = "cut-character"
    signature = (Arg("source", C), Arg("destination", C), Arg("ranges", T))
    ranges: str
    categories = ("transform",)
    _RANGES = re.compile(r"(?:\d+(?:-\d*)?|-\d+)(?:,(?:\d+(?:-\d*)?|-\d+))*")

    def validate(self) -> None:
        if not self.valid_ranges:
            self.warn("ranges", f"'{self.ranges}' is not a list of character positions. Wrangler accepts it "
                      "when it compiles the recipe and hands it to `cut -c` only when a row runs.",
                      "Write positions and ranges as cut -c does: '1-3', '5-', '-3' or '1,2,7-9'.", runnable=False)

    @property
    def valid_ranges(self) -> bool:
        return self._RANGES.fullmatch(str(self.ranges).strip()) is not None

    def describe(self) -> str:
        return (f"Character cut from column {self.source} to destination {self.destination} "
                f"using range {self.ranges}")


class SetColumn(Directive):
    """Sets a column to the result of an expression, replacing its value or appending it.

    Example: `set-column :total exp:{price * qty}`
    """

    name = "set-column"
    signature = (Arg("column", C), Arg("expression", E))
    column: str
    expression: Expression
    categories = ("transform",)
    reads: tuple[str, ...]

    def validate(self) -> None:
        self.reads = expression_reads(expression_columns(self.expression))

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        target = self.column
        others = [name for name in self.reads if name.lower() != target.lower()]
        labels: list[ColumnLabel] = [read(name) for name in others]
        if len(others) < len(self.reads):  # `set-column :a exp:{a + 1}`: the old value feeds the new one
            if columns.exists(target) is False:  # ... unless there is none: the column is added (`a` reads null)
                return [*labels, add(target, tuple(others))]
            return [*labels, modify(target, self.reads)]
        return [*labels, add_or_modify(columns, target, self.reads)]

    def describe(self) -> str:
        return f"Mapped result of expression '{expression_text(self.expression)}' to column '{self.column}'"


class _Codec(Directive):
    """Shared shape of `decode`/`encode`: the result goes to the new column `<col>_<name>_<method>`."""

    signature = (Arg("method", T), Arg("column", C))
    column: str
    categories = ("transform",)
    METHODS: ClassVar[tuple[str, ...]] = ("base64", "base32", "hex")

    def validate(self) -> None:
        if str(self.bound("method")).lower() not in self.METHODS:
            raise self.fail("method", f"{self.name.capitalize()} method '{self.bound('method')}' is not supported.",
                            "Use one of: base64, base32, hex.")

    @property
    def method(self) -> str:
        return str(self.bound("method")).lower()

    @property
    def target(self) -> str:
        return f"{self.column}_{self.name}_{self.method}"

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        column = self.column
        return [read(column), add_or_modify(columns, self.target, (column,))]

    def describe(self) -> str:
        return f"{self.name.capitalize()}d column '{self.column}' using method '{self.method.upper()}'"


class Decode(_Codec):
    """Decodes base64, base32 or hex values into UTF-8 text in the new column `<col>_decode_<method>`.

    Example: `decode 'base64' :payload`
    """

    name = "decode"


class Encode(_Codec):
    """Encodes values as base64, base32 or hex into the new column `<col>_encode_<method>`.

    Example: `encode 'base64' :payload`
    """

    name = "encode"


class ExtractRegexGroups(Directive):
    """Appends each capture group of each regex match as `<col>_<match>_<group>`.

    The number of matches depends on the data, the number of groups does not, so each group is
    its own numbered pattern (`body_<n>_1`, `body_<n>_2`).

    Example: `extract-regex-groups :title '\\(([0-9]{4})\\)'`
    """

    name = "extract-regex-groups"
    signature = (Arg("column", C), Arg("regex", T))
    column: str
    regex: str
    categories = ("transform",)

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        column = self.column
        groups = java_regex_groups(str(self.regex))
        if groups is None:
            return [read(column), add(f"{column}_<n>_<n>", (column,), pattern=True)]
        return [read(column), *(add(f"{column}_<n>_{group}", (column,), pattern=True)
                                for group in range(1, groups + 1))]

    def describe(self) -> str:
        return f"Split column '{self.column}' based on expression '{self.regex}'"


class FillNullOrEmpty(Directive):
    """Replaces null and empty values with a fixed text; a missing column is added with that text.

    Example: `fill-null-or-empty :country 'N/A'`
    """

    name = "fill-null-or-empty"
    signature = (Arg("column", C), Arg("value", T))
    column: str
    value: str
    categories = ("transform",)

    def validate(self) -> None:
        if self.value == "":
            raise self.fail("value", "The fill value cannot be an empty string.",
                            "Give the text to fill in, e.g. 'N/A'.")

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        return [modify_in_place(columns, self.column)]

    def describe(self) -> str:
        return f"Filled column '{self.column}' values that were null or empty with value {self.value}"


class FindAndReplace(Directive):
    """Applies a sed substitution (`s/regex/replacement/flags`) to the text values of the listed columns.

    Example: `find-and-replace :name,:city 's/\\s+/ /g'`
    """

    name = "find-and-replace"
    signature = (Arg("column", CL), Arg("pattern", T))
    column: tuple[str, ...]
    pattern: str
    categories = ("transform",)
    sed: Substitution | None

    def validate(self) -> None:
        try:
            self.sed = parse_sed(self.pattern)
        except SedError as error:
            self.sed = None
            self.warn("pattern", f"{error} Wrangler accepts the script when it compiles the recipe and reads it "
                      "only when a row runs.", "Write it as s/regex/replacement/[g]", runnable=False)

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        unique: dict[str, str] = {}
        for name in self.column:
            unique.setdefault(name.lower(), name)
        return [modify(name) for name in unique.values()]

    def describe(self) -> str:
        return f"Found and replaced '{', '.join(self.column)}' using expression '{self.pattern}'"


class GenerateUUID(OneColumn):
    """Sets a column to a random UUID string, replacing its value or appending it.

    Example: `generate-uuid :id`
    """

    name = "generate-uuid"
    categories = ("transform", "uuid")

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        return [add_or_modify(columns, self.column, ())]

    def describe(self) -> str:
        return f"Generated unique identifier based on column '{self.column}'"


class IndexSplit(Directive):
    """Appends the characters from position `start` up to, not including, `end` (1-based) as a new column.

    Deprecated in Wrangler: use `split-to-columns` or `parse-as-fixed-length`.

    Example: `indexsplit :phone 1 4 :area`
    """

    name = "indexsplit"
    signature = (Arg("source", C), Arg("start", N), Arg("end", N), Arg("destination", C))
    source: str
    start: float
    end: float
    destination: str
    categories = ("transform",)
    deprecated = True
    wrangler_lineage = False
    appends_duplicates = True

    def validate(self) -> None:
        for bound in ("start", "end"):
            value = self.bound(bound)
            if whole_number(value) is None:
                self.warn(bound, f"'{bound}' is not a character position Wrangler can hold ({str(value)[:20]}…).",
                          runnable=False)
            elif value != int(value):
                self.warn(bound, f"'{bound}' must be a whole character position, not {value}; Wrangler cuts the "
                          f"fraction off ({int(value)}).")
        if self.start > self.end:
            self.warn("end", f"The end position {self.end} is before the start {self.start}; Wrangler "
                      "accepts it when it compiles the recipe.")

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        source = self.source
        return [read(source), add(self.destination, (source,))]

    def describe(self) -> str:
        return (f"Copied characters {self.start} to {self.end} (exclusive) of column "
                f"'{self.source}' into column '{self.destination}'")


class InPlace(OneColumn):
    """Shared shape of one-column directives that rewrite the column's own values (`in_place` declares them)."""

    categories = ("transform",)
    readable: ClassVar[str]

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        return [modify(self.column)]

    def describe(self) -> str:
        return self.readable.format(column=self.column)


#: Wrangler's readable text of each one-column rewrite (`describe`), its column filled in.
_READABLE = {
    "ltrim": "Removed spaces on the left in values of column '{column}'",
    "rtrim": "Removed spaces on the right in values of column '{column}'",
    "trim": "Removed spaces on the right and left of values in column '{column}'",
    "lowercase": "Lower cased the characters of values in column '{column}'",
    "uppercase": "Upper cased the characters of values in column '{column}'",
    "titlecase":
        "Capitalized first letter of the word in the title, heading or headline specified in column '{column}'",
    "url-decode": "Decoded column '{column}' as a url",
    "url-encode": "Encoded column '{column}' as url",
}


def in_place(class_name: str, example: str, description: str) -> type[InPlace]:
    """The declaration class of a one-column rewrite, from its docs example (whose first word is its name) and its
    description: such declarations differ in nothing else, so each is one call below, bound to its class name."""
    name = example.split(" ", 1)[0]
    doc = f"{description}\n\n    Example: `{example}`\n    "
    namespace = {"__module__": __name__, "__qualname__": class_name, "__doc__": doc, "name": name,
                 "readable": _READABLE[name]}
    return type(class_name, (InPlace,), namespace)


LeftTrim = in_place("LeftTrim", "ltrim :name", "Strips leading whitespace (Unicode spaces included) from text values.")
RightTrim = in_place("RightTrim", "rtrim :name",
                     "Strips trailing whitespace (Unicode spaces included) from text values.")
Trim = in_place("Trim", "trim :name",
                "Strips leading and trailing whitespace (Unicode spaces included) from text values.")
Lowercase = in_place("Lowercase", "lowercase :email", "Lower-cases text values.")
Uppercase = in_place("Uppercase", "uppercase :country", "Upper-cases text values.")
Titlecase = in_place("Titlecase", "titlecase :city",
                     "Capitalises the first letter of each word and lower-cases the rest.")
UrlDecode = in_place("UrlDecode", "url-decode :query", "Decodes URL-encoded (`%20`, `+`) text values as UTF-8.")
UrlEncode = in_place("UrlEncode", "url-encode :query", "URL-encodes text values as UTF-8.")


class MaskNumber(Directive):
    """Masks a value by a pattern: `#` keeps a character, `x` hides one, anything else is written as is.

    Example: `mask-number :ssn 'xxx-xx-####'`
    """

    name = "mask-number"
    signature = (Arg("column", C), Arg("mask", T))
    column: str
    mask: str
    categories = ("transform",)

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        return [modify_in_place(columns, self.column, masking=True)]

    def describe(self) -> str:
        return f"Masked numbers in the column '{self.column}' using masking pattern '{self.mask}'"


class MaskShuffle(OneColumn):
    """Masks a value by a fixed substitution that keeps its shape (consonant, vowel, digit, case).

    Example: `mask-shuffle :name`
    """

    name = "mask-shuffle"
    categories = ("transform",)

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        return [modify(self.column, masking=True)]

    def describe(self) -> str:
        return f"Masked column '{self.column}' by shuffling the values"


class Hash(Directive):
    """Replaces a value with its message digest (bytes, or zero-padded hex with encode=true).

    Example: `hash :email 'SHA-256' true`
    """

    name = "hash"
    signature = (Arg("column", C), Arg("algorithm", T), Arg("encode", B, optional=True, default=False))
    column: str
    algorithm: str
    encode: bool
    categories = ("transform", "hash")
    #: Wrangler's allow-list, compared case-sensitively (`Tiger` and `TIGER` are both listed).
    ALGORITHMS: ClassVar[tuple[str, ...]] = (
        "BLAKE2B-160", "BLAKE2B-256", "BLAKE2B-384", "BLAKE2B-512", "GOST3411-2012-256", "GOST3411-2012-512",
        "GOST3411", "KECCAK-224", "KECCAK-256", "KECCAK-288", "KECCAK-384", "KECCAK-512", "MD2", "MD4", "MD5",
        "RIPEMD128", "RIPEMD160", "RIPEMD256", "RIPEMD320", "SHA-1", "SHA-224", "SHA-256", "SHA-384", "SHA-512",
        "SHA-512/224", "SHA-512/256", "SHA", "SHA3-224", "SHA3-256", "SHA3-384", "SHA3-512", "Skein-1024-1024",
        "Skein-1024-384", "Skein-1024-512", "Skein-256-128", "Skein-256-160", "Skein-256-224", "Skein-256-256",
        "Skein-512-128", "Skein-512-160", "Skein-512-224", "Skein-512-256", "Skein-512-384", "Skein-512-512",
        "SM3", "Tiger", "TIGER", "WHIRLPOOL",
    )

    def validate(self) -> None:
        algorithm = str(self.algorithm)
        if algorithm not in self.ALGORITHMS:
            close = difflib.get_close_matches(algorithm, self.ALGORITHMS, n=3, cutoff=0.6)
            suggestion = f"Did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
            hint = suggestion + "Names are case-sensitive: SHA-256, SHA3-512, MD5, …"
            raise self.fail("algorithm", f"Hash algorithm '{algorithm}' is not supported.", hint)

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        return [modify(self.column, masking=True)]

    def describe(self) -> str:
        return f"Anonymized the column '{self.column}'"


class Quantize(SourceToDestination):
    """Maps a number to the label of the closed range `low:high=label` that contains it (null if none).

    Example: `quantize :age :age_group 0:17='minor',18:120='adult'`
    """

    name = "quantize"
    signature = (Arg("source", C), Arg("destination", C), Arg("ranges", R))
    ranges: tuple[Range, ...]
    categories = ("transform",)

    def validate(self) -> None:
        for entry in self.ranges:
            if entry.low > entry.high:
                raise self.fail("ranges", f"Range {entry.low:g}:{entry.high:g} ends before it starts.",
                                "Write the lower bound first: low:high=label.")

    def describe(self) -> str:
        return f"Quantized column '{self.source}' into column '{self.destination}'"


class Split(Directive):
    """Splits a value at the first match of a regex into two new columns.

    Deprecated in Wrangler: use `split-to-columns` or `split-to-rows`.

    Example: `split :name ' ' :first :last`
    """

    name = "split"
    signature = (Arg("source", C), Arg("delimiter", T), Arg("column1", C), Arg("column2", C))
    source: str
    delimiter: str
    column1: str
    column2: str
    categories = ("readable",)
    deprecated = True
    wrangler_lineage = False
    appends_duplicates = True

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        source = self.source
        return [read(source), add(self.column1, (source,)), add(self.column2, (source,))]

    def describe(self) -> str:
        return (f"Split column '{self.source}' on '{self.delimiter}' into columns "
                f"'{self.column1}' and '{self.column2}'")


class _SplitsIntoParts(OneColumn):
    """Shared shape of `split-email`/`split-url`: the column's ``PARTS``, each appended as `<col>_<part>`."""

    appends_duplicates = True
    PARTS: ClassVar[tuple[str, ...]]

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        column = self.column
        return [read(column), *(add(f"{column}_{part}", (column,)) for part in self.PARTS)]


class SplitEmail(_SplitsIntoParts):
    """Splits an e-mail address (also `Name <a@b>`) into `<col>_account` and `<col>_domain`.

    Example: `split-email :email`
    """

    name = "split-email"
    categories = ("transform", "email")
    PARTS: ClassVar[tuple[str, ...]] = ("account", "domain")

    def describe(self) -> str:
        column = self.column
        return f"Split column '{column}' into columns '{column}_account' and '{column}_domain'"


class SplitUrl(_SplitsIntoParts):
    """Splits a URL into `<col>_protocol, _authority, _host, _port, _path, _filename, _query`.

    Example: `split-url :url`
    """

    name = "split-url"
    categories = ("transform", "url")
    PARTS: ClassVar[tuple[str, ...]] = ("protocol", "authority", "host", "port", "path", "filename", "query")

    def describe(self) -> str:
        column = self.column
        parts = ", ".join(f"'{column}_{part}'" for part in self.PARTS)
        return f"Split column '{column}' into url parts as columns {parts}"


#: simmetrics measures both `text-distance` and `text-metric` accept (`overlap-cofficient` is Wrangler's spelling).
_MEASURES = ("euclidean", "identity", "dice", "longest-common-subsequence", "longest-common-substring",
             "overlap-cofficient", "jaccard", "damerau-levenshtein", "generalized-jaccard", "jaro", "simon-white",
             "levenshtein", "cosine")


class TextCompare(Directive):
    """Shared shape of `text-distance`/`text-metric`: a score of two text columns, always appended."""

    signature = (Arg("method", T), Arg("column1", C), Arg("column2", C), Arg("destination", C))
    column1: str
    column2: str
    destination: str
    categories = ("transform",)
    appends_duplicates = True
    METHODS: ClassVar[tuple[str, ...]]
    SYNONYMS: ClassVar[dict[str, str]]

    @property
    def method(self) -> str:
        """The measure Wrangler really uses: synonyms resolved, and any unknown name means cosine."""
        method = str(self.bound("method")).lower()
        method = self.SYNONYMS.get(method, method)
        return method if method in self.METHODS else "cosine"

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        first, second = self.column1, self.column2
        inputs = (first,) if first.lower() == second.lower() else (first, second)
        return [*(read(name) for name in inputs), add(self.destination, inputs)]

    def describe(self) -> str:
        return (f"Compared text in columns '{self.column1}' and '{self.column2}' "
                f"and saved it in column '{self.destination}'")


class TextDistance(TextCompare):
    """Appends the distance of two text columns (cosine, levenshtein, jaro, …; unknown names mean cosine).

    Example: `text-distance 'levenshtein' :name :alias :name_distance`
    """

    name = "text-distance"
    METHODS: ClassVar[tuple[str, ...]] = ("block-distance", *_MEASURES)
    SYNONYMS: ClassVar[dict[str, str]] = {"block": "block-distance"}


class TextMetric(TextCompare):
    """Appends the similarity of two text columns (cosine, levenshtein, jaro, …; unknown names mean cosine).

    Example: `text-metric 'jaro' :name :alias :name_similarity`
    """

    name = "text-metric"
    METHODS: ClassVar[tuple[str, ...]] = ("block-metric", *_MEASURES)
    SYNONYMS: ClassVar[dict[str, str]] = {"block": "block-metric"}
