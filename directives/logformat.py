"""Apache `LogFormat` strings (`%h %l %u %t "%r" %>s %b`) → one anchored regex and the field each group fills.

Why here and not in the Spark compiler: the field names are fixed by the format alone, so the
declaration labels them exactly (no data needed), and the compiler turns the same regex into
`regexp_extract` calls. Names follow the Apache HTTPD logparser that Wrangler uses, cleaned the
way Wrangler cleans them (lower case, non-word characters → `_`): `%h` → `connection_client_host`,
`%r` → `request_firstline` (plus its `_method`, `_uri`, `_protocol` parts) and so on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Wrangler/logparser accept these names for the two classic formats.
NAMED_FORMATS = {
    "common": '%h %l %u %t "%r" %>s %b',
    "combined": '%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i"',
}

#: One `%x` directive → the field it fills.
_FIELDS = {
    "a": "connection_client_ip",
    "A": "connection_server_ip",
    "B": "response_body_bytes",
    "b": "response_body_bytes",
    "D": "response_server_processing_time",
    "f": "server_filename",
    "h": "connection_client_host",
    "H": "request_protocol",
    "k": "connection_keepalivecount",
    "l": "connection_client_logname",
    "m": "request_method",
    "p": "connection_server_port",
    "P": "connection_server_child_processid",
    "q": "request_querystring",
    "r": "request_firstline",
    "s": "request_status_last",
    "t": "request_receive_time",
    "T": "response_server_processing_time_seconds",
    "u": "connection_client_user",
    "U": "request_urlpath",
    "v": "connection_server_name_canonical",
    "V": "connection_server_name",
}

#: `%{Name}x` directives → the prefix of the field named after the header/variable.
_NAMED = {"i": "request_header_", "o": "response_header_", "C": "request_cookies_", "e": "server_environment_",
          "n": "server_module_note_"}

_TOKEN = re.compile(r"%[<>]?(?:\{([^}]*)\})?([a-zA-Z%])")
_UNSAFE = re.compile(r"[^a-zA-Z0-9_]")
#: The parts of a request's first line, `GET /index.html HTTP/1.1`.
FIRSTLINE_PARTS = (("method", 1), ("uri", 2), ("protocol", 3))
FIRSTLINE_REGEX = r"^(\S+)\s+(\S+)(?:\s+(\S+))?$"


class LogFormatError(ValueError):
    """The format uses a directive we cannot turn into a field."""


@dataclass(frozen=True)
class LogFormat:
    """The compiled format: an anchored Java-compatible regex and one field name per capture group."""

    regex: str
    fields: tuple[str, ...]


def compile_format(text: str) -> LogFormat:
    """Translate an Apache LogFormat (or 'common'/'combined') into a regex with one group per directive."""
    fmt = NAMED_FORMATS.get(text.strip().lower(), text.strip())
    parts: list[str] = ["^"]
    fields: list[str] = []
    position = 0
    for match in _TOKEN.finditer(fmt):
        literal = fmt[position:match.start()]
        parts.append(re.escape(literal) if literal else "")
        position = match.end()
        argument, letter = match.group(1), match.group(2)
        if letter == "%":
            parts.append("%")
            continue
        name = _field_name(argument, letter, match.group(0))
        quoted = literal.endswith('"') and fmt[position:position + 1] == '"'
        if letter == "t" and argument is None:
            parts.append(r"\[([^\]]*)\]")
        elif quoted:
            # Unrolled and possessive, not `(?:[^"\\]|\\.)*`: Java's matcher recurses once per character of
            # such a group, and a quoted field of a few thousand characters overflowed its stack (job failed).
            parts.append(r'([^"\\]*+(?:\\.[^"\\]*+)*+)')
        else:
            parts.append(r"(\S*)")
        if name in fields:
            raise LogFormatError(f"'{match.group(0)}' appears twice in the log format")
        fields.append(name)
    parts.append(re.escape(fmt[position:]) + "$")
    if not fields:
        raise LogFormatError("the log format has no %-directives")
    return LogFormat("".join(parts), tuple(fields))


def _field_name(argument: str | None, letter: str, token: str) -> str:
    if argument is not None and letter in _NAMED:
        return _UNSAFE.sub("_", (_NAMED[letter] + argument).lower())
    if argument is None and letter in _FIELDS:
        return _FIELDS[letter]
    raise LogFormatError(f"'{token}' is not a supported log format directive")


def log_fields(text: str) -> tuple[str, ...]:
    """Every column `parse-as-log` adds for this format, in order (the first line's parts after it)."""
    names: list[str] = []
    for name in compile_format(text).fields:
        names.append(name)
        if name == "request_firstline":
            names += [f"{name}_{part}" for part, _ in FIRSTLINE_PARTS]
    return tuple(names)
