"""Spark compilers of the external family: charsets, stemming, catalogue and table lookups.

`catalog-lookup` joins the ICD code lists shipped in `directives/data/` (public-domain CMS and CDC
releases, see scripts/build_icd_lists.py); `table-lookup` joins the Spark table, view or file the recipe
names (see `directives.spark.runtime.resources`); `invoke-http` lives in `directives.spark.compile.http`.
"""

from __future__ import annotations

import re
from typing import ClassVar

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from directives.catalog.external import SetCharset, Stemming
from directives.java_text import charset_codec
from directives.spark.compile import http as _http  # noqa: F401  (registers invoke-http's compiler)
from directives.spark.compile.lookups import catalog_lookup, table_lookup  # noqa: F401  (registers both)
from directives.spark.compilers import compiles, python_udf
from directives.spark.expr.byte_codecs import decode_charset
from directives.spark.runtime.frame import Frame, RunContext, col

#: Spark's `decode` takes only these charsets (Python codec name → Spark name).
SPARK_CHARSETS = {
    "ascii": "US-ASCII", "latin-1": "ISO-8859-1", "iso8859-1": "ISO-8859-1", "utf-8": "UTF-8",
    "utf-16-be": "UTF-16BE", "utf-16-le": "UTF-16LE", "utf-16": "UTF-16", "utf-32": "UTF-32",
}


@compiles(SetCharset)
def set_charset(d: SetCharset, frame: Frame, ctx: RunContext) -> Frame:
    codec = charset_codec(str(d.charset))
    charset = SPARK_CHARSETS.get(codec.name) if codec is not None else None
    if charset is None:
        raise d.fail("charset", f"Spark cannot decode the character set '{d.charset}'.",
                     "Use one of: US-ASCII, ISO-8859-1, UTF-8, UTF-16BE, UTF-16LE, UTF-16, UTF-32.")
    name = frame.find(d.column)
    if name is None or frame.type_of(name) == "string":
        return frame  # nothing to decode: the column is missing or already text
    if frame.type_of(name) != "binary":
        message = F.concat(F.lit(f"Column '{name}' has a {frame.type_of(name)} value, not bytes: '"),
                           F.coalesce(col(name).cast("string"), F.lit("null")), F.lit("'."))
        return frame.step(d).fail_when(col(name).isNotNull(), message).build()
    return frame.step(d).set(name, decode_charset(col(name), charset)).build()


# -- stemming ---------------------------------------------------------------------------------------------------------
python_udf(Stemming, "Spark has no stemmer (MLlib has none either); the Porter algorithm runs in Python")

_WORD_SEPARATOR = re.compile(r"[^A-Za-z0-9_]+")  # Java's \W


def java_split_words(text: str) -> list[str]:
    """`text.split("\\\\W+")` as Java does it: a leading empty part is kept, trailing empty parts are removed."""
    parts = _WORD_SEPARATOR.split(text)
    while parts and parts[-1] == "":
        parts.pop()
    return parts


class PorterStemmer:
    """Martin Porter's 1980 suffix-stripping algorithm, as in his reference implementation (and OpenNLP's).

    Words of one or two letters are left alone, as the reference does. Written from the published
    algorithm; the steps keep the reference's names and order (1ab, 1c, 2, 3, 4, 5).
    """

    def __init__(self) -> None:
        self.b: list[str] = []
        self.k = 0
        self.j = 0

    def stem(self, word: str) -> str:
        self.b = list(word)
        self.k = len(word) - 1
        if self.k > 1:
            self._step1ab()
            self._step1c()
            self._step2()
            self._step3()
            self._step4()
            self._step5()
        return "".join(self.b[: self.k + 1])

    # -- measures -----------------------------------------------------------------------------------------------------
    def _cons(self, i: int) -> bool:
        char = self.b[i]
        if char in "aeiou":
            return False
        if char == "y":
            return i == 0 or not self._cons(i - 1)
        return True

    def _m(self) -> int:
        """The number of vowel-consonant sequences in b[0..j]: m in [C](VC)^m[V], one per vowel followed by a
        consonant."""
        return sum(1 for i in range(self.j) if not self._cons(i) and self._cons(i + 1))

    def _vowel_in_stem(self) -> bool:
        return any(not self._cons(i) for i in range(self.j + 1))

    def _double_c(self, j: int) -> bool:
        return j >= 1 and self.b[j] == self.b[j - 1] and self._cons(j)

    def _cvc(self, i: int) -> bool:
        if i < 2 or not self._cons(i) or self._cons(i - 1) or not self._cons(i - 2):
            return False
        return self.b[i] not in "wxy"

    def _ends(self, suffix: str) -> bool:
        size = len(suffix)
        if size > self.k + 1 or "".join(self.b[self.k - size + 1: self.k + 1]) != suffix:
            return False
        self.j = self.k - size
        return True

    def _set_to(self, text: str) -> None:
        self.b[self.j + 1:] = list(text)
        self.k = self.j + len(text)

    def _r(self, text: str) -> None:
        if self._m() > 0:
            self._set_to(text)

    # -- steps --------------------------------------------------------------------------------------------------------
    def _step1ab(self) -> None:
        b = self.b
        if b[self.k] == "s":
            if self._ends("sses"):
                self.k -= 2
            elif self._ends("ies"):
                self._set_to("i")
            elif b[self.k - 1] != "s":
                self.k -= 1
        if self._ends("eed"):
            if self._m() > 0:
                self.k -= 1
        elif (self._ends("ed") or self._ends("ing")) and self._vowel_in_stem():
            self.k = self.j
            if self._ends("at"):
                self._set_to("ate")
            elif self._ends("bl"):
                self._set_to("ble")
            elif self._ends("iz"):
                self._set_to("ize")
            elif self._double_c(self.k):
                self.k -= 1
                if self.b[self.k] in "lsz":
                    self.k += 1
            elif self._m() == 1 and self._cvc(self.k):
                self._set_to("e")

    def _step1c(self) -> None:
        if self._ends("y") and self._vowel_in_stem():
            self.b[self.k] = "i"

    _STEP2: ClassVar[dict[str, tuple[tuple[str, str], ...]]] = {
        "a": (("ational", "ate"), ("tional", "tion")),
        "c": (("enci", "ence"), ("anci", "ance")),
        "e": (("izer", "ize"),),
        "l": (("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous")),
        "o": (("ization", "ize"), ("ation", "ate"), ("ator", "ate")),
        "s": (("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous")),
        "t": (("aliti", "al"), ("iviti", "ive"), ("biliti", "ble")),
        "g": (("logi", "log"),),
    }
    _STEP3: ClassVar[dict[str, tuple[tuple[str, str], ...]]] = {
        "e": (("icate", "ic"), ("ative", ""), ("alize", "al")),
        "i": (("iciti", "ic"),),
        "l": (("ical", "ic"), ("ful", "")),
        "s": (("ness", ""),),
    }
    _STEP4: ClassVar[dict[str, tuple[str, ...]]] = {
        "a": ("al",), "c": ("ance", "ence"), "e": ("er",), "i": ("ic",), "l": ("able", "ible"),
        "n": ("ant", "ement", "ment", "ent"), "o": ("ion", "ou"), "s": ("ism",), "t": ("ate", "iti"),
        "u": ("ous",), "v": ("ive",), "z": ("ize",),
    }

    def _replace_first(self, rules: tuple[tuple[str, str], ...]) -> None:
        for suffix, replacement in rules:
            if self._ends(suffix):
                self._r(replacement)
                return

    def _step2(self) -> None:
        if self.k >= 1:
            self._replace_first(self._STEP2.get(self.b[self.k - 1], ()))

    def _step3(self) -> None:
        self._replace_first(self._STEP3.get(self.b[self.k], ()))

    def _step4(self) -> None:
        if self.k < 1:
            return
        for suffix in self._STEP4.get(self.b[self.k - 1], ()):
            if self._ends(suffix):
                if suffix == "ion" and not (self.j >= 0 and self.b[self.j] in "st"):
                    continue
                if self._m() > 1:
                    self.k = self.j
                return

    def _step5(self) -> None:
        self.j = self.k
        if self.b[self.k] == "e":
            a = self._m()
            if a > 1 or (a == 1 and not self._cvc(self.k - 1)):
                self.k -= 1
        if self.b[self.k] == "l" and self._double_c(self.k) and self._m() > 1:
            self.k -= 1


def porter_stems(value: object) -> list[str | None]:
    """Stems of a text's words (split as Java's `\\W+`) or of a list of words; lower-cased first."""
    if value is None:
        return []
    words = java_split_words(value) if isinstance(value, str) else list(value)  # type: ignore[call-overload]
    stemmer = PorterStemmer()
    return [None if word is None else stemmer.stem(str(word).lower()) for word in words]


@compiles(Stemming)
def stemming(d: Stemming, frame: Frame, ctx: RunContext) -> Frame:
    name = frame.find(d.column)
    target = f"{d.column if name is None else name}_porter"
    if name is None:  # Wrangler adds an empty list when the column is missing
        return frame.step(d).set(target, F.array().cast("array<string>")).build()
    kind = frame.type_of(name)
    value: Column = col(name)
    if kind == "string" or kind == "array<string>":
        stems = F.udf(lambda words: porter_stems(words), T.ArrayType(T.StringType()))  # untyped: no eval-type guess
        ctx.udf_directives.append(d.name)
        return frame.step(d).set(target, stems(value)).build()
    message = F.concat(F.lit(f"Column '{name}' has a {kind} value, not text or a list of words: '"),
                       F.coalesce(value.cast("string"), F.lit("null")), F.lit("'."))
    return frame.step(d).set(target, F.array().cast("array<string>")).fail_when(value.isNotNull(), message).build()
