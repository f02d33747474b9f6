"""The subset of Unix sed that Wrangler recipes use: `s/regex/replacement/flags`.

`columns-replace` and `find-and-replace` take sed scripts. We accept the substitute command
with any delimiter and the `g` / `i` / `I` flags, translate `\\1`-style and `&` references
to Python's, and refuse anything else with a clear error instead of guessing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


class SedError(ValueError):
    """The text is not a sed substitution we support."""


@dataclass(frozen=True)
class Substitution:
    pattern: re.Pattern[str]
    replacement: str
    global_: bool
    source: str

    def apply(self, value: str) -> str:
        return self.pattern.sub(self.replacement, value, count=0 if self.global_ else 1)

    @property
    def java_replacement(self) -> str:
        """The replacement in Java/Spark `regexp_replace` syntax (`$1`, `\\$`)."""
        out: list[str] = []
        i = 0
        text = self.replacement
        while i < len(text):
            if text[i] == "\\" and i + 1 < len(text) and text[i + 1] == "g":
                end = text.index(">", i)
                out.append("$" + text[i + 3 : end])
                i = end + 1
                continue
            if text[i] == "$":
                out.append("\\$")
            else:
                out.append(text[i])
            i += 1
        return "".join(out)


def parse_sed(script: str) -> Substitution:
    script = script.strip()
    if len(script) < 2 or script[0] != "s":
        raise SedError(f"Only sed substitutions (s/regex/replacement/flags) are supported, not {script!r}.")
    delimiter = script[1]
    parts: list[str] = []
    current: list[str] = []
    i = 2
    while i < len(script):
        char = script[i]
        if char == "\\" and i + 1 < len(script):
            if script[i + 1] == delimiter:
                current.append(delimiter)
            else:
                current.append(script[i : i + 2])
            i += 2
            continue
        if char == delimiter:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
        i += 1
    parts.append("".join(current))
    if len(parts) != 3:
        raise SedError(f"A sed substitution has three parts separated by {delimiter!r}: {script!r}.")
    regex, replacement, flags = parts
    unknown = set(flags) - set("giI")
    if unknown:
        raise SedError(f"Unsupported sed flag(s) {''.join(sorted(unknown))!r} in {script!r}.")
    try:
        pattern = re.compile(regex, re.IGNORECASE if ("i" in flags or "I" in flags) else 0)
    except re.error as error:
        raise SedError(f"Bad regex {regex!r}: {error}.") from None
    python_replacement = re.sub(r"\\(\d)", r"\\g<\1>", replacement.replace("&", r"\g<0>"))
    return Substitution(pattern, python_replacement, "g" in flags, script)
