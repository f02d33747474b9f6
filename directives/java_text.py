"""Java's reading of text arguments: escapes in delimiters and separators, and character-set names.

Recipe text can hold any character, lone surrogates and NUL included, and neither may reach a Python
API that raises something other than the error it documents (`codecs.lookup('\\ud800')` raises
`UnicodeEncodeError`, `codecs.lookup('a\\x00')` `ValueError`): a recipe must fail with a `RecipeError`
or a warning, never a traceback.
"""

from __future__ import annotations

import codecs
import re

#: What `java.nio.charset.Charset` accepts as a name: a letter or digit, then letters, digits and `-+.:_`.
_CHARSET_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9.:_+\-]*")


def java_unescape(text: str) -> str:
    """Resolve Java escapes (`\\t`, `\\n`, `\\u0041` …) the way Wrangler's merge and parse-as-csv do.

    Characters outside Latin-1 are passed through as `\\uXXXX` escapes first, so `'\\t€'` keeps its euro sign
    and a lone surrogate cannot make the codec raise; a malformed escape leaves the text as written.
    """
    if "\\" not in text:
        return text
    try:
        return text.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except UnicodeError:
        return text


def charset_codec(name: str) -> codecs.CodecInfo | None:
    """Python's codec for a character-set name Java could accept, or None when there is none."""
    if not _CHARSET_NAME.fullmatch(name):
        return None  # Java's IllegalCharsetNameException; codecs.lookup would raise on a surrogate or NUL
    try:
        return codecs.lookup(name)
    except LookupError:
        return None
