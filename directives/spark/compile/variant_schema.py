"""Read the type text Spark's `schema_of_variant(_agg)` prints (`OBJECT<a: BIGINT, b: ARRAY<STRING>>`).

Why: `parse-as-json` must know every key the data holds before it can name the flattened
columns, and one `schema_of_variant_agg` pass gives exactly that merged shape. Spark returns it
as text in its own notation (not DDL), so this small parser turns it into a tree we can walk; `variant_value`
then reads each column of that shape out of the variant (for `parse-as-json` and the decoded formats alike).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pyspark.sql import Column
from pyspark.sql import functions as F

#: Variant kinds read out as typed Spark values; the rest come out as JSON text.
_SCALARS = {"BIGINT": "bigint", "INT": "bigint", "SMALLINT": "bigint", "TINYINT": "bigint", "DOUBLE": "double",
            "FLOAT": "double", "DECIMAL": "double", "STRING": "string", "BOOLEAN": "boolean"}


@dataclass(frozen=True)
class VariantType:
    """One node: ``kind`` is OBJECT, ARRAY, or a scalar name (BIGINT, DOUBLE, DECIMAL, STRING, BOOLEAN,
    VOID for JSON null, VARIANT where rows disagree, DATE, TIMESTAMP …)."""

    kind: str
    fields: tuple[tuple[str, VariantType], ...] = field(default=())
    element: VariantType | None = None

    @property
    def is_object(self) -> bool:
        return self.kind == "OBJECT"

    @property
    def is_array(self) -> bool:
        return self.kind == "ARRAY"


class VariantSchemaError(ValueError):
    """Spark printed something this parser does not know (a Spark version change)."""


def parse_variant_schema(text: str) -> VariantType:
    parser = _Parser(text)
    result = parser.type()
    parser.skip_spaces()
    if parser.position != len(text):
        raise VariantSchemaError(f"unexpected text at {parser.position} in {text!r}")
    return result


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.position = 0

    def skip_spaces(self) -> None:
        while self.position < len(self.text) and self.text[self.position] == " ":
            self.position += 1

    def expect(self, char: str) -> None:
        self.skip_spaces()
        if not self.text.startswith(char, self.position):
            raise VariantSchemaError(f"expected {char!r} at {self.position} in {self.text!r}")
        self.position += len(char)

    def peek(self, char: str) -> bool:
        self.skip_spaces()
        return self.text.startswith(char, self.position)

    def word(self) -> str:
        self.skip_spaces()
        start = self.position
        text = self.text
        while self.position < len(text) and (text[self.position].isalnum() or text[self.position] == "_"):
            self.position += 1
        if start == self.position:
            raise VariantSchemaError(f"expected a type name at {start} in {self.text!r}")
        return self.text[start:self.position]

    def name(self) -> str:
        """A field name: bare up to ':', or backtick-quoted with doubled backticks inside."""
        self.skip_spaces()
        if self.peek("`"):
            self.position += 1
            out: list[str] = []
            while self.position < len(self.text):
                char = self.text[self.position]
                if char == "`":
                    if self.text.startswith("``", self.position):
                        out.append("`")
                        self.position += 2
                        continue
                    self.position += 1
                    return "".join(out)
                out.append(char)
                self.position += 1
            raise VariantSchemaError(f"unclosed quoted name in {self.text!r}")
        end = self.text.find(":", self.position)
        if end < 0:
            raise VariantSchemaError(f"expected ':' after a field name in {self.text!r}")
        name = self.text[self.position:end]
        self.position = end
        return name

    def type(self) -> VariantType:
        kind = self.word().upper()
        if kind == "OBJECT":
            self.expect("<")
            fields: list[tuple[str, VariantType]] = []
            while not self.peek(">"):
                name = self.name()
                self.expect(":")
                fields.append((name, self.type()))
                if self.peek(","):
                    self.expect(",")
            self.expect(">")
            return VariantType("OBJECT", tuple(fields))
        if kind == "ARRAY":
            self.expect("<")
            element = self.type()
            self.expect(">")
            return VariantType("ARRAY", element=element)
        if self.peek("("):  # DECIMAL(p,s)
            end = self.text.index(")", self.position)
            self.position = end + 1
        return VariantType(kind)


def variant_path(keys: tuple[str, ...]) -> str:
    """The JSON path of nested object keys, each quoted (``$['a']['b']``) so that any key text is one step."""
    parts = []
    for key in keys:
        quote = '"' if "'" in key else "'"
        parts.append(f"[{quote}{key}{quote}]")
    return "$" + "".join(parts)


def variant_value(variant: Column, path: str, shape: VariantType) -> Column:
    """A value at ``path`` as a column: scalars typed, objects/arrays/mixed values as JSON text, JSON null as null.

    `parse-as-json` and the decoded formats (Avro, Excel, protobuf, HL7) read their columns out of variants alike."""
    if shape.kind == "VOID":
        return F.lit(None).cast("string")
    if shape.kind in _SCALARS:
        return F.try_variant_get(variant, path, _SCALARS[shape.kind])
    node = F.variant_get(variant, path, "variant")
    text = F.coalesce(F.try_variant_get(variant, path, "string"), F.to_json(node)) if shape.kind == "VARIANT" \
        else F.to_json(node)
    return F.when(~F.is_variant_null(node), text)
