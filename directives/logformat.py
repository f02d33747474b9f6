"""Apache `LogFormat` strings (`%h %l %u %t "%r" %>s %b`) → one anchored regex and the columns each group fills.

Why here and not in the Spark compiler: the column names are fixed by the format alone, so the
declaration labels them exactly (no data needed), and the compiler turns the same regex into
`regexp_extract` calls. Names are those of Wrangler's ParseLog: the logparser (nl.basjes httpdlog
3.0) hands every value to `LogLine.setValue` under its path `TYPE:name` (`IP:connection.client.host`),
which Wrangler lower-cases with every character outside `[a-zA-Z0-9_]` turned into `_`
(`ip_connection_client_host`), dropping paths that contain `original`, `bytesclf` or `cookie`.

What a format token yields follows logparser's `ApacheHttpdLogFormatDissector`: most tokens give the
value twice, as `name` and `name.last` (`%>x` only the `.last` one, `%<x` only `.original`, which
Wrangler drops); `%s %U %T %D %r` give `name` (and `.original`). Then the dissectors derive more:
a first line (`HTTP.FIRSTLINE`) its method, URI and protocol; a URI (`HTTP.URI`) its path, query and
fragment (and scheme, user, host and port when absolute); a protocol `HTTP/1.1` its name and version;
a CLF byte count (`BYTESCLF`, from `%b`) the number (`BYTES`, `-` → 0); a `[%t]` time (`TIME.STAMP`)
its parts, as read and in UTC. Not derived (docs/differences/parsers.md): query-string parameters
(`STRING:…query.*`, names depend on the data) and the time zone id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Wrangler/logparser accept these names for the classic formats.
NAMED_FORMATS = {
    "common": '%h %l %u %t "%r" %>s %b',
    "combined": '%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-Agent}i"',
    "combinedio": '%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-Agent}i" %I %O',
    "referer": "%{Referer}i -> %U",
    "agent": "%{User-agent}i",
}

#: One `%x` token → (logparser type, path name); `_FIRST_ONLY` tokens have no `.last` twin.
_FIELDS = {
    "a": ("IP", "connection.client.ip"),
    "A": ("IP", "connection.server.ip"),
    "B": ("BYTES", "response.body.bytes"),
    "b": ("BYTESCLF", "response.body.bytes"),
    "D": ("MICROSECONDS", "response.server.processing.time"),
    "f": ("FILENAME", "server.filename"),
    "h": ("IP", "connection.client.host"),
    "H": ("PROTOCOL", "request.protocol"),
    "I": ("BYTES", "request.bytes"),
    "k": ("NUMBER", "connection.keepalivecount"),
    "l": ("NUMBER", "connection.client.logname"),
    "L": ("STRING", "request.errorlogid"),
    "m": ("HTTP.METHOD", "request.method"),
    "O": ("BYTES", "response.bytes"),
    "p": ("PORT", "request.server.port.canonical"),
    "P": ("NUMBER", "connection.server.child.processid"),
    "q": ("HTTP.QUERYSTRING", "request.querystring"),
    "r": ("HTTP.FIRSTLINE", "request.firstline"),
    "R": ("STRING", "request.handler"),
    "s": ("STRING", "request.status"),
    "S": ("BYTES", "total.bytes"),
    "t": ("TIME.STAMP", "request.receive.time"),
    "T": ("SECONDS", "response.server.processing.time"),
    "u": ("STRING", "connection.client.user"),
    "U": ("URI", "request.urlpath"),
    "v": ("STRING", "connection.server.name.canonical"),
    "V": ("STRING", "connection.server.name"),
    "X": ("HTTP.CONNECTSTATUS", "response.connection.status"),
}
_FIRST_ONLY = frozenset("sUTDr")
#: `%D` also fills this (deprecated) path.
_EXTRA = {"D": (("MICROSECONDS", "server.process.time"),)}
#: `%{name}i` headers logparser reads as fields of their own (with a `.last` twin).
_SPECIAL_HEADERS = {
    "cookie": ("HTTP.COOKIES", "request.cookies"),
    "user-agent": ("HTTP.USERAGENT", "request.user-agent"),
    "referer": ("HTTP.URI", "request.referer"),
}
#: `%{name}x` → (type, path prefix).
_NAMED = {"i": ("HTTP.HEADER", "request.header."), "o": ("HTTP.HEADER", "response.header."),
          "C": ("HTTP.COOKIE", "request.cookies."), "e": ("VARIABLE", "server.environment."),
          "n": ("STRING", "server.module_note.")}

#: The parts of a `TIME.STAMP`: (type, name suffix, how the compiler computes it).
TIME_PARTS = (
    ("TIME.DAY", "day"), ("TIME.MONTHNAME", "monthname"), ("TIME.MONTH", "month"),
    ("TIME.WEEK", "weekofweekyear"), ("TIME.YEAR", "weekyear"), ("TIME.YEAR", "year"), ("TIME.HOUR", "hour"),
    ("TIME.MINUTE", "minute"), ("TIME.SECOND", "second"), ("TIME.MILLISECOND", "millisecond"),
    ("TIME.DATE", "date"), ("TIME.TIME", "time"), ("TIME.EPOCH", "epoch"),
)
#: Each derivation: input type → ((output type, name suffix, step), …); a step names how the value is computed.
_DERIVED: dict[str, tuple[tuple[str, str, str], ...]] = {
    "HTTP.FIRSTLINE": (("HTTP.METHOD", ".method", "method"), ("HTTP.URI", ".uri", "uri"),
                       ("HTTP.PROTOCOL_VERSION", ".protocol", "protocol_version")),
    "HTTP.PROTOCOL_VERSION": (("HTTP.PROTOCOL", "", "protocol_name"), ("HTTP.PROTOCOL.VERSION", ".version",
                                                                       "protocol_number")),
    "HTTP.URI": (("HTTP.PROTOCOL", ".protocol", "uri_scheme"), ("HTTP.USERINFO", ".userinfo", "uri_userinfo"),
                 ("HTTP.HOST", ".host", "uri_host"), ("HTTP.PORT", ".port", "uri_port"),
                 ("HTTP.PATH", ".path", "uri_path"), ("HTTP.QUERYSTRING", ".query", "uri_query"),
                 ("HTTP.REF", ".ref", "uri_ref")),
    "BYTESCLF": (("BYTES", "", "clf_number"),),
    "TIME.STAMP": tuple((kind, f".{part}{zone}", f"time_{part}{zone}") for zone in ("", "_utc")
                        for kind, part in TIME_PARTS if not (zone and part == "epoch")),
}
_SKIPPED = ("original", "bytesclf", "cookie")

_TOKEN = re.compile(r"%([<>]?)(?:\{([^}]*)\})?([a-zA-Z%])")
_UNSAFE = re.compile(r"[^a-zA-Z0-9_]")


class LogFormatError(ValueError):
    """The format uses a directive we cannot turn into a field."""


@dataclass(frozen=True)
class LogColumn:
    """One column parse-as-log adds: its name, and the derivation steps (see `_DERIVED`) applied, in order, to
    the value its capture group matched (none: the value itself)."""

    name: str
    steps: tuple[str, ...] = ()


@dataclass(frozen=True)
class LogFormat:
    """The compiled format: an anchored Java-compatible regex and, per capture group, the columns it fills."""

    regex: str
    groups: tuple[tuple[LogColumn, ...], ...]

    @property
    def columns(self) -> tuple[LogColumn, ...]:
        return tuple(column for group in self.groups for column in group)


def compile_format(text: str) -> LogFormat:
    """Translate an Apache LogFormat (or 'common'/'combined'/…) into a regex with one group per directive."""
    fmt = NAMED_FORMATS.get(text.strip().lower(), text.strip())
    parts: list[str] = ["^"]
    groups: list[tuple[LogColumn, ...]] = []
    seen: set[str] = set()
    position = 0
    for match in _TOKEN.finditer(fmt):
        literal = fmt[position:match.start()]
        parts.append(re.escape(literal) if literal else "")
        position = match.end()
        modifier, argument, letter = match.group(1), match.group(2), match.group(3)
        if letter == "%":
            parts.append("%")
            continue
        columns = tuple(column for kind, name in _paths(modifier, argument, letter, match.group(0))
                        for column in _columns(kind, name, ()))
        quoted = literal.endswith('"') and fmt[position:position + 1] == '"'
        if letter == "t" and argument is None:
            parts.append(r"\[([^\]]*)\]")
        elif quoted:
            # Unrolled and possessive, not `(?:[^"\\]|\\.)*`: Java's matcher recurses once per character of
            # such a group, and a quoted field of a few thousand characters overflowed its stack (job failed).
            parts.append(r'([^"\\]*+(?:\\.[^"\\]*+)*+)')
        else:
            parts.append(r"(\S*)")
        if match.group(0) in seen:
            raise LogFormatError(f"'{match.group(0)}' appears twice in the log format")
        seen.add(match.group(0))
        groups.append(columns)
    parts.append(re.escape(fmt[position:]) + "$")
    if not groups:
        raise LogFormatError("the log format has no %-directives")
    return LogFormat("".join(parts), tuple(groups))


def _paths(modifier: str, argument: str | None, letter: str, token: str) -> list[tuple[str, str]]:
    """The logparser paths (type, name) one format token fills."""
    if argument is not None and letter in _NAMED:
        header = argument.lower()  # logparser lower-cases %{…}x names
        if letter == "i" and header in _SPECIAL_HEADERS:
            kind, name = _SPECIAL_HEADERS[header]
        else:
            kind, prefix = _NAMED[letter]
            return [(kind, prefix + header)]
    elif argument is None and letter in _FIELDS:
        kind, name = _FIELDS[letter]
    else:
        raise LogFormatError(f"'{token}' is not a supported log format directive")
    if modifier == ">":
        return [(kind, f"{name}.last")]
    if modifier == "<":
        return [(kind, f"{name}.original")]
    twin = "original" if letter in _FIRST_ONLY and argument is None else "last"
    return [(kind, name), (kind, f"{name}.{twin}"), *_EXTRA.get(letter, ())]


def _columns(kind: str, name: str, steps: tuple[str, ...]) -> list[LogColumn]:
    """The column of one path (unless Wrangler drops it) and those the dissectors derive from it."""
    path = f"{kind}:{name}".lower()
    out = [] if any(word in path for word in _SKIPPED) else [LogColumn(_UNSAFE.sub("_", path), steps)]
    for derived_kind, suffix, step in _DERIVED.get(kind, ()):
        out += _columns(derived_kind, name + suffix, (*steps, step))
    return out


def log_fields(text: str) -> tuple[str, ...]:
    """Every column `parse-as-log` adds for this format, in order, each once."""
    return tuple(dict.fromkeys(column.name for column in compile_format(text).columns))
