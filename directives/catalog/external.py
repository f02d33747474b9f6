"""Directives that reach outside the row: HTTP services, lookup tables and catalogues, charsets, stemming.

Their outputs often depend on something the recipe does not show (the service's response keys,
the lookup table's columns), so those labels are patterns (`<col>_<key>`) rather than names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar
from urllib.parse import urlsplit

from directives.base import Arg, ArgKind, Directive, OneColumn
from directives.catalog.column_ops import add_or_modify
from directives.column_state import ColumnState
from directives.java_text import charset_codec
from directives.labels import ColumnLabel, add, modify, read

C, CL, T = ArgKind.COLUMN, ArgKind.COLUMN_LIST, ArgKind.TEXT


class InvokeHttp(Directive):
    """POSTs the listed columns as JSON to a URL and sets each key of the JSON response as a column.

    Example: `invoke-http 'http://localhost:8080/enrich' :id,:name 'Authorization=Bearer x'`
    """

    name = "invoke-http"
    signature = (Arg("url", T), Arg("column", CL), Arg("header", T, optional=True))
    url: str
    column: tuple[str, ...]
    header: str | None
    categories = ("http",)

    def validate(self) -> None:
        # InvokeHttp.initialize checks the headers (Java splits, each `key=value` with both sides non-empty);
        # the URL is only used when a row is sent.
        if not _is_http_url(str(self.url)):
            self.warn("url", f"'{self.url}' is not an http(s) URL. Wrangler accepts it when it compiles the "
                      "recipe; every request to it fails.", "Give the full address, such as 'https://host:port/path'.")
        header = str(self.header or "")
        if not header:
            return
        for pair in _java_split(header, ","):
            parts_of_pair = _java_split(pair, "=")
            if len(parts_of_pair) != 2:
                raise self.fail("header", f"Header '{pair}' is not written key=value.",
                                "Write headers as 'key=value,key2=value2'.")
            if not parts_of_pair[0].strip() or not parts_of_pair[1].strip():
                raise self.fail("header", f"Header '{pair}' has an empty key or value.",
                                "Write headers as 'key=value,key2=value2'.")

    @property
    def headers(self) -> dict[str, str]:
        pairs = (item.split("=", 1) for item in str(self.header or "").split(",") if "=" in item)
        return {key.strip(): value.strip() for key, value in pairs}

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        sources = tuple(name.strip() for name in self.column)
        return [*(read(name) for name in sources), add("<key>", sources, pattern=True, exact=False)]

    def describe(self) -> str:
        return (f"Invoked external service '{self.url}' to enrich row based on columns "
                f"'{', '.join(self.column)}'")


def _java_split(text: str, separator: str) -> list[str]:
    """Java's `String.split` with a one-character literal separator: trailing empty parts are removed."""
    if separator not in text:
        return [text]
    parts = text.split(separator)
    while parts and not parts[-1]:
        parts.pop()
    return parts


class SetCharset(Directive):
    """Decodes a bytes column into text with the given character set, in place.

    Example: `set-charset :body 'utf-8'`
    """

    name = "set-charset"
    signature = (Arg("column", C), Arg("charset", T))
    column: str
    charset: str
    categories = ("language",)

    def validate(self) -> None:
        # SetCharset.initialize keeps the name as text; Java looks the charset up for every row.
        if charset_codec(str(self.charset)) is None:
            self.warn("charset", f"'{self.charset}' is not a character set. Wrangler accepts it when it "
                      "compiles the recipe and fails on it for every row.",
                      "Use a name such as 'utf-8', 'iso-8859-1' or 'utf-16'.", runnable=False)

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        return [modify(self.column)]

    def describe(self) -> str:
        return f"Changed character set of column '{self.column}' to '{self.charset}'"


class CatalogLookup(Directive):
    """Looks codes up in a medical catalogue (ICD-9, ICD-10-2016, ICD-10-2017) into `<col>_<catalog>_description`.

    Example: `catalog-lookup 'ICD-10-2016' :code`
    """

    name = "catalog-lookup"
    signature = (Arg("catalog", T), Arg("column", C))
    catalog: str
    column: str
    categories = ("lookup",)
    CATALOGS: ClassVar[tuple[str, ...]] = ("ICD-9", "ICD-10-2016", "ICD-10-2017")

    def validate(self) -> None:
        if str(self.catalog).upper() not in self.CATALOGS:
            raise self.fail("catalog", f"Catalog '{self.catalog}' is not known.",
                            f"Use one of: {', '.join(self.CATALOGS)}.")

    @property
    def target(self) -> str:
        return f"{self.column}_{str(self.catalog).lower().replace('-', '_')}_description"

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        column = self.column
        return [read(column), add_or_modify(columns, self.target, (column,))]

    def describe(self) -> str:
        return f"Looked up catalog using value in column '{self.column}' and wrote it to column " \
               f"'{self.target}'"


class TableLookup(Directive):
    """Looks a row up in a key-value table by the column's value and adds `<col>_<field>` for each field found.

    Example: `table-lookup :zip 'zip_codes'`
    """

    name = "table-lookup"
    signature = (Arg("column", C), Arg("table", T))
    column: str
    table: str
    categories = ("lookup",)

    def validate(self) -> None:
        if not str(self.table).strip():  # TableLookup.initialize keeps the name; the table is opened later
            self.warn("table", "The table name is empty. Wrangler accepts it when it compiles the recipe.",
                      "Name the lookup table.", runnable=False)

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        column = self.column
        return [read(column), add(f"{column}_<key>", (column,), pattern=True)]

    def describe(self) -> str:
        return f"Looking up row in table '{self.table}' based on column '{self.column}'"


class Stemming(OneColumn):
    """Reduces the words of a text (or list of words) to their Porter stems in the new list column `<col>_porter`.

    Example: `stemming :review`
    """

    name = "stemming"
    categories = ("nlp",)
    appends_duplicates = True

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        column = self.column
        return [read(column), add(f"{column}_porter", (column,))]

    def describe(self) -> str:
        return f"Reduced derived words using Porter technique from column '{self.column}'"


def _is_http_url(url: str) -> bool:
    """Whether ``url`` is an absolute http(s) address; urlsplit raises on a malformed host (`p://[ a`, found by
    bench/fuzz.py), which is simply not one."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc)
