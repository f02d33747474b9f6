"""Telling a capture group that matched nothing from one that did not take part, with Spark's regex functions.

Wrangler's `extract-regex-groups` stores `Matcher.group(i)`, which is null when group i did not
take part in a match. Spark's `regexp_extract_all` returns "" for such a group, so "" and null
would look alike. We rewrite the (Java) regex so that every capturing group starts with a
zero-width *marker*: ``(?:(?=([\\s\\S]))|(?<=([\\s\\S]))|)``. When the group takes part, its marker
captures the character after (or, at the end of the text, before) the group's start, which is
never "" unless the whole text is empty; when it does not, the marker reads "". Markers are
zero-width and always succeed, so the regex matches exactly what it matched before; numbered
back-references are renumbered to the shifted groups.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from directives.catalog.transform import _skip_class

#: Two capturing groups that record where a group started (next char, else previous char).
MARKER = r"(?:(?=([\s\S]))|(?<=([\s\S]))|)"
_COMMENTS_FLAG = re.compile(r"\(\?[a-zA-Z]*x")


@dataclass(frozen=True)
class MarkedRegex:
    """The rewritten regex, and for each original group (1-based order) its new number and its two markers."""

    regex: str
    groups: tuple[tuple[int, int, int], ...]


def _new_number(group: int) -> int:
    return 3 * group - 2


def mark_groups(regex: str) -> MarkedRegex | None:
    """The regex with a participation marker in every capturing group, or None when it cannot be rewritten safely."""
    if _COMMENTS_FLAG.search(regex):
        return None  # comments mode would make '#' and whitespace significant to our scan
    out: list[str] = []
    opened = 0
    i, size = 0, len(regex)
    while i < size:
        char = regex[i]
        if char == "\\":
            if i + 1 >= size:
                return None
            following = regex[i + 1]
            if following == "Q":
                end = regex.find("\\E", i + 2)
                stop = size if end < 0 else end + 2
                out.append(regex[i:stop])
                i = stop
                continue
            if following in "123456789":
                # Java reads more digits only while the number names a group opened so far.
                number, j = int(following), i + 2
                while j < size and regex[j].isdigit() and number * 10 + int(regex[j]) <= opened:
                    number = number * 10 + int(regex[j])
                    j += 1
                out.append(f"(?:\\{_new_number(number)})")
                i = j
                continue
            out.append(regex[i : i + 2])
            i += 2
            continue
        if char == "[":
            end = _skip_class(regex, i)
            if end < 0:
                return None
            out.append(regex[i:end])
            i = end
            continue
        if char == "(":
            if regex.startswith("(?<", i) and i + 3 < size and regex[i + 3] not in "=!":
                close = regex.find(">", i)
                if close < 0:
                    return None
                out.append(regex[i : close + 1] + MARKER)
                opened += 1
                i = close + 1
                continue
            if regex.startswith("(?", i):
                out.append("(?")
                i += 2
                continue
            out.append("(" + MARKER)
            opened += 1
            i += 1
            continue
        out.append(char)
        i += 1
    groups = tuple((_new_number(g), _new_number(g) + 1, _new_number(g) + 2) for g in range(1, opened + 1))
    return MarkedRegex("".join(out), groups)
