"""Input samples for recipes that come without data (the real-world recipes): inferred from the recipe itself.

The input schema is the set of columns the recipe reads before anything produces them (column lookups
are case-insensitive and, without a schema, an unknown name is an input). Each input column gets
values of the shape its first consumer expects: CSV text with as many fields as later directives
name (and a header line when the parser reads one), a JSON object with the keys later directives
name, a log line in the recipe's log format, a date in the recipe's date pattern, and so on. A column
whose consumer needs data we cannot make up (Excel or Avro bytes, a lookup table, an HTTP service)
means "no schema can be inferred": `infer_sample` returns None and the recipe is not verified.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from typing import Any

from directives.column_state import ColumnState
from directives.labels import Label
from directives.recipe import Recipe
from directives.transient_names import columns_only

ROWS = 3
#: Consumers whose input we cannot generate: binary formats, outside systems.
UNSUPPORTED = frozenset({"parse-as-excel", "parse-as-avro", "parse-as-avro-file", "parse-as-protobuf",
                         "parse-as-hl7", "catalog-lookup", "table-lookup", "invoke-http", "xpath", "xpath-array",
                         "parse-xml-to-json", "parse-as-xml", "decrypt", "encrypt"})

_JAVA_DATE_PARTS = [("yyyy", "2017"), ("yy", "17"), ("MMMM", "March"), ("MMM", "Mar"), ("MM", "03"), ("M", "3"),
                    ("dd", "15"), ("d", "15"), ("HH", "13"), ("H", "13"), ("hh", "01"), ("h", "1"), ("mm", "45"),
                    ("m", "45"), ("ss", "30"), ("s", "30"), ("SSS", "123"), ("EEEE", "Wednesday"), ("EEE", "Wed"),
                    ("a", "PM"), ("zzz", "UTC"), ("z", "UTC"), ("Z", "+0000"), ("XXX", "Z"), ("X", "Z"),
                    ("uuuu", "2017"), ("u", "3")]
_LOG_VALUES = {"h": "127.0.0.1", "a": "127.0.0.1", "A": "10.0.0.2", "l": "-", "u": "frank",
               "t": "[10/Oct/2000:13:55:36 -0700]", "r": "GET /apache_pb.gif HTTP/1.0", "s": "200", "b": "2326",
               "B": "2326", "m": "GET", "U": "/apache_pb.gif", "q": "?a=1", "H": "HTTP/1.0", "v": "example.com",
               "V": "example.com", "p": "80", "P": "1234", "D": "1500", "T": "2", "k": "0", "f": "/var/www/index.html"}
_LOG_TOKEN = re.compile(r"%[<>]?(?:\{([^}]*)\})?([a-zA-Z%])")


@dataclass(frozen=True)
class Sample:
    rows: list[dict[str, Any]]
    columns: list[str]


def java_date(pattern: str, bump: int = 0) -> str:
    """A date formatted with a Java SimpleDateFormat / DateTimeFormatter pattern (quoted text kept as is)."""
    out: list[str] = []
    for quoted, letters in re.findall(r"'([^']*)'|([^']+)", pattern):
        if quoted or letters == "":
            out.append(quoted)
            continue
        position = 0
        while position < len(letters):
            for part, value in _JAVA_DATE_PARTS:
                if letters.startswith(part, position) and not letters[position + len(part):].startswith(part[:1]):
                    if part in ("dd", "d"):
                        value = f"{int(value) + bump:02d}" if part == "dd" else str(int(value) + bump)
                    out.append(value)
                    position += len(part)
                    break
            else:
                out.append(letters[position])
                position += 1
    return "".join(out)


def log_line(fmt: str) -> str:
    from directives.logformat import NAMED_FORMATS

    fmt = NAMED_FORMATS.get(fmt.strip(), fmt)

    def value(match: re.Match[str]) -> str:
        name, letter = match.group(1), match.group(2)
        if letter == "%":
            return "%"
        if name is not None:
            return "Mozilla/4.08" if "agent" in name.lower() else "http://example.com/start.html"
        return _LOG_VALUES.get(letter, "x")

    return _LOG_TOKEN.sub(value, fmt)


def _references(recipe: Recipe) -> list[str]:
    return [name for step in recipe.steps for label in step.labels
            for name in (label.column, label.to or "", *label.sources) if name and "<" not in name]


def _members(recipe: Recipe, prefix: str) -> list[str]:
    """Names later directives use that start with ``prefix`` (the members of `body_<n>` / `body_<key>`)."""
    return list(dict.fromkeys(name[len(prefix):] for name in _references(recipe)
                              if name.lower().startswith(prefix.lower()) and len(name) > len(prefix)))


def _value(recipe: Recipe, position: int, column: str, row: int) -> Any | None:
    """A value of ``column`` for its first consumer, step ``position`` (None: cannot be made up)."""
    directive = recipe.steps[position].directive
    name = directive.name
    if name in UNSUPPORTED:
        return None
    if name == "parse-as-csv":
        delimiter = directive.delimiter
        if directive.header:
            return None  # the header row is built by `infer_sample`
        numbered = [int(member) for member in _members(recipe, f"{column}_") if member.isdigit()]
        return delimiter.join(f"{10 * (field + 1) + row}" for field in range(max(numbered, default=3)))
    if name == "split-to-columns":
        numbered = [int(member) for member in _members(recipe, f"{column}_") if member.isdigit()]
        return ",".join(f"v{field}{row}" for field in range(max(numbered, default=3)))
    if name == "parse-as-json":
        keys = [member for member in _members(recipe, f"{column}_")] or ["a", "b"]
        return "{" + ", ".join(f'"{key}": "{10 + row}"' for key in keys) + "}"
    if name == "parse-as-fixed-length":
        return "".join(str((row + i) % 10) for i in range(sum(directive.widths)))
    if name == "parse-as-log":
        return log_line(str(directive.format))
    if name == "split-url":
        return f"https://www.example.com:8080/path/a{row}?q={row}#top"
    if name == "split-email":
        return f"user{row}@example.com"
    if name == "split-to-rows":
        return f"a{row}\nb{row}" if "\\n" in str(directive.regex) else f"a{row},b{row}"
    if name in ("parse-as-simple-date", "parse-as-date", "parse-as-datetime"):
        pattern = directive.bound("format") or "yyyy-MM-dd HH:mm:ss"
        return java_date(str(pattern), bump=row)
    if name == "parse-timestamp":
        return str(1500000000000 + row * 86400000)
    if name == "diff-date":
        import datetime as dt

        return dt.datetime(2017, 3, 15 + row, 13, 45)
    if name == "parse-as-currency":
        return f"${12 + row}.34"
    if name == "decode":
        return base64.b64encode(f"hello{row}".encode()).decode() if "64" in str(directive.bound("method")) else \
            (f"hello{row}".encode().hex() if "hex" in str(directive.bound("method")).lower() else f"NBSWY3DP{row}")
    if name == "mask-number":
        return f"123-45-678{row}"
    if name == "set-type":
        kind = str(directive.type).lower()
        return {"boolean": "true", "double": f"{12 + row}.5", "float": f"{12 + row}.5"}.get(kind, str(12 + row))
    if name in ("titlecase", "uppercase", "lowercase", "trim", "ltrim", "rtrim", "stemming", "text-distance",
                "text-metric", "mask-shuffle", "split", "find-and-replace", "extract-regex-groups",
                "filter-by-regex", "cut-character"):
        return f"Word{row} text{row}"
    return str(12 + row)


def infer_sample(recipe: Recipe) -> Sample | None:
    """Rows for the recipe's inferred input schema, or None when some input cannot be made up."""
    state = ColumnState.from_schema(None)
    consumer: dict[str, int] = {}
    header: tuple[str, int] | None = None
    for position, step in enumerate(recipe.steps):
        for label in step.labels:
            names = [label.column, *(label.sources if label.label in (Label.ADD, Label.MODIFY) else ())]
            if label.label is Label.SWAP and label.to:
                names.append(label.to)
            for name in names:
                if name and "<" not in name and name != "*" and not name.startswith("#") \
                        and state.exists(name) is None and name.lower() not in {n.lower() for n in consumer}:
                    consumer[name] = position
        if step.directive.name == "parse-as-csv" and step.directive.header and header is None:
            header = (step.directive.col, position)
        step.directive.update_columns(state, columns_only(step.labels))
    columns = list(consumer)
    rows: list[dict[str, Any]] = [{} for _ in range(ROWS)]
    for column, position in consumer.items():
        for row in range(ROWS):
            value = _value(recipe, position, column, row)
            if value is None and not (header is not None and header[0] == column):
                return None
            rows[row][column] = value
    if header is not None and header[0] in consumer:
        column, position = header
        names = _header_names(recipe, position)
        delimiter = recipe.steps[position].directive.delimiter
        rows = [{**rows[0], column: delimiter.join(names)}, *({**row, column: delimiter.join(
            f"{10 * (i + 1) + n}" for i in range(len(names)))} for n, row in enumerate(rows))]
    return Sample(rows, columns)


def _header_names(recipe: Recipe, position: int) -> list[str]:
    """Names read after a header-reading CSV parse that nothing else produces: they come from its header line."""
    state = ColumnState.from_schema(None)
    for step in recipe.steps[:position + 1]:
        step.directive.update_columns(state, columns_only(step.labels))
    names: list[str] = []
    for step in recipe.steps[position + 1:]:
        for label in step.labels:
            slot = state.find(label.column) if "<" not in label.column else None
            if slot is not None and slot.pattern is not None and slot.created_by == position + 1 \
                    and label.column not in names and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", label.column):
                names.append(label.column)
        step.directive.update_columns(state, columns_only(step.labels))
    return names or ["a", "b", "c"]
