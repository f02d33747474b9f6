"""Telling a capture group that matched nothing from one that did not take part, with Spark's regex functions.

Wrangler's `extract-regex-groups` stores `Matcher.group(i)`, which is null when group i did not
take part in a match. Spark's `regexp_extract_all` returns "" for such a group, so "" and null
would look alike. Only an *empty* value is ambiguous (a non-empty one took part), and Java can
tell the two apart itself: a back-reference to a group that did not take part fails, one to an
empty group matches. So after the whole regex we append, per group j, a zero-width probe

    (?:(?=\\j)(?=([\\s\\S]))|(?=\\j)(?<=([\\s\\S]))|)

whose two markers capture the character after (or, at the end of the text, before) the match end
exactly when group j took part. It sits at the very end, so it runs once, on the successful path
(captures inside look-arounds are not undone by backtracking, which rules out markers anywhere
else); it always succeeds, so the regex matches exactly what it matched before, and it adds
groups only after the original ones, so no group number changes. On an empty text the markers
cannot capture anything, and an empty group reads as empty text rather than null.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_COMMENTS_FLAG = re.compile(r"\(\?[a-zA-Z]*x")


@dataclass(frozen=True)
class MarkedRegex:
    """The regex with probes appended, and for each original group j (1-based) its two marker group numbers."""

    regex: str
    markers: tuple[tuple[int, int], ...]


def _unterminated_quote(regex: str) -> bool:
    start = regex.rfind("\\Q")
    return start >= 0 and regex.find("\\E", start + 2) < 0


def mark_groups(regex: str, groups: int) -> MarkedRegex | None:
    """The regex with a participation probe per capturing group, or None when it cannot be extended safely.

    Comments mode (`(?x)`) could swallow what we append into a trailing comment, and an open
    `\\Q` quote would quote it, so those regexes are left alone.
    """
    if groups == 0 or _COMMENTS_FLAG.search(regex) or _unterminated_quote(regex) or regex.endswith("\\"):
        return None
    probes = []
    markers = []
    for group in range(1, groups + 1):
        probes.append(f"(?:(?=\\{group})(?=([\\s\\S]))|(?=\\{group})(?<=([\\s\\S]))|)")
        first = groups + 2 * group - 1
        markers.append((first, first + 1))
    return MarkedRegex(f"(?:{regex})" + "".join(probes), tuple(markers))
