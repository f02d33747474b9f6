"""Locale currency formats as Spark expressions: Java's `NumberFormat.getCurrencyInstance` for common locales.

Spark has no locale-aware currency formatting, and a Python UDF per value would be slow for what
is only symbols and separators. Java (JDK 11+, CLDR data) formats currency with a fixed prefix or
suffix, a grouping and a decimal separator and a fixed number of fraction digits per locale, so a
small table and Spark's `format_number` (which always prints US separators) reproduce it.

Limits: only the locales in `LOCALES`; grouping is always by three (no Indian lakh grouping, no
Spanish "minimum two digits before grouping", so `es_ES` is left out); exact halves of doubles
round as Spark's `format_number` does (half-up on the decimal text), where Java rounds half-even
on the binary value; NaN and infinities print as Spark prints them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pyspark.sql import Column
from pyspark.sql import functions as F

NBSP, NNBSP = "\u00a0", "\u202f"


@dataclass(frozen=True)
class CurrencyFormat:
    """How one locale writes money: ``-`` + prefix + digits + suffix."""

    prefix: str
    suffix: str
    group: str
    decimal: str
    digits: int

    def format(self, value: Column) -> Column:
        """The currency text of a numeric column (null stays null)."""
        number = F.format_number(F.abs(value).cast("double"), self.digits)
        if (self.group, self.decimal) != (",", "."):
            number = F.translate(number, ",.", self.group + self.decimal)
        sign = F.when(value < 0, F.lit("-")).otherwise(F.lit(""))
        return F.concat(sign, F.lit(self.prefix), number, F.lit(self.suffix))

    def regex(self) -> str:
        """A full-match Java regex for the locale's currency text; group 1 is the sign, group 2 the number."""
        group = re.escape(self.group) if self.group not in (NBSP, NNBSP) else f"[{NBSP}{NNBSP} ]"
        digits = f"(?:[0-9]{{1,3}}(?:{group}[0-9]{{3}})+|[0-9]+)"
        fraction = f"(?:{re.escape(self.decimal)}[0-9]+)?"
        return f"^(-?){_flexible(self.prefix)}({digits}{fraction}){_flexible(self.suffix)}$"

    def parse(self, text: Column) -> Column:
        """The double value of currency text, or null when it does not match the locale's format."""
        pattern = self.regex()
        sign = F.regexp_extract(text, pattern, 1)
        number = F.regexp_extract(text, pattern, 2)
        plain = F.regexp_replace(number, "[" + re.escape(self.group) + f"{NBSP}{NNBSP} ]", "")
        if self.decimal != ".":
            plain = F.regexp_replace(plain, re.escape(self.decimal), ".")
        value = plain.cast("double")
        matched = text.rlike(pattern)
        return F.when(matched, F.when(sign == "-", -value).otherwise(value))


def _flexible(affix: str) -> str:
    """A prefix or suffix as a regex where any kind of space matches a no-break space (people type spaces)."""
    return "".join(f"[{NBSP}{NNBSP} ]" if char in (NBSP, NNBSP, " ") else re.escape(char) for char in affix)


_EURO_SUFFIX = f"{NBSP}€"
LOCALES: dict[str, CurrencyFormat] = {
    "en_US": CurrencyFormat("$", "", ",", ".", 2),
    "en_GB": CurrencyFormat("£", "", ",", ".", 2),
    "en_IE": CurrencyFormat("€", "", ",", ".", 2),
    "en_CA": CurrencyFormat("$", "", ",", ".", 2),
    "en_AU": CurrencyFormat("$", "", ",", ".", 2),
    "en_NZ": CurrencyFormat("$", "", ",", ".", 2),
    "de_DE": CurrencyFormat("", _EURO_SUFFIX, ".", ",", 2),
    "fr_FR": CurrencyFormat("", _EURO_SUFFIX, NNBSP, ",", 2),
    "it_IT": CurrencyFormat("", _EURO_SUFFIX, ".", ",", 2),
    "pt_BR": CurrencyFormat(f"R${NBSP}", "", ".", ",", 2),
    "ja_JP": CurrencyFormat("\uffe5", "", ",", ".", 0),
    "zh_CN": CurrencyFormat("¥", "", ",", ".", 2),
    "ko_KR": CurrencyFormat("₩", "", ",", ".", 0),
}


def currency_format(locale: str) -> CurrencyFormat | None:
    """The format of a locale written `en_US`, `en-us` …; None when it is not in the table."""
    parts = re.split(r"[_-]", locale.strip())
    if len(parts) != 2:
        return None
    return LOCALES.get(f"{parts[0].lower()}_{parts[1].upper()}")
