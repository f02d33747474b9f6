"""The columns `parse-xml-to-json` makes: one schema covering every shape of XML in a column, then flattened.

Spark's `from_xml` needs its schema up front and infers one only from a literal (`schema_of_xml`).
So we group the column's values by their *shape* (the text with element text and attribute values
removed) in one aggregate pass, infer a schema from one value of each shape, and merge those schemas
here. Every leaf is read as text (`inferSchema=false`), so a value never vanishes because another row
made its type look numeric. Field names follow org.json's JSON for the XML: attributes lose Spark's
`_` prefix and an element's own text is `content`.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

#: Root element name, after an optional XML declaration and comments.
ROOT_TAG = r"^\s*(?:<\?[^>]*\?>\s*)?(?:<!--(?:(?!-->)[\s\S])*-->\s*)*<([A-Za-z_][^\s/>]*)"
TEXT = "_VALUE"


def shape(value: Column) -> Column:
    """The value with element text and attribute values removed: rows of one shape share one schema."""
    no_text = F.regexp_replace(value, r">[^<]*<", "><")
    return F.regexp_replace(no_text, r"""=\s*("[^"]*"|'[^']*')""", "")


def merge(left: T.DataType, right: T.DataType) -> T.DataType:
    """The narrowest type holding both: structs unite their fields, one-or-many becomes an array, else text."""
    if left == right:
        return left
    if isinstance(left, T.ArrayType) or isinstance(right, T.ArrayType):
        left_item = left.elementType if isinstance(left, T.ArrayType) else left
        right_item = right.elementType if isinstance(right, T.ArrayType) else right
        return T.ArrayType(merge(left_item, right_item), True)
    if isinstance(left, T.StructType) and isinstance(right, T.StructType):
        fields = {field.name: field.dataType for field in left.fields}
        for field in right.fields:
            fields[field.name] = merge(fields[field.name], field.dataType) if field.name in fields else field.dataType
        return T.StructType([T.StructField(name, data_type, True) for name, data_type in fields.items()])
    if isinstance(left, T.StructType) or isinstance(right, T.StructType):
        struct = left if isinstance(left, T.StructType) else right
        return merge(struct, T.StructType([T.StructField(TEXT, T.StringType(), True)]))
    return T.StringType()


def json_name(field: str) -> str:
    """org.json's key for a Spark XML field: `_VALUE` → content, `_attr` → attr, elements as they are."""
    if field == TEXT:
        return "content"
    return field[1:] if field.startswith("_") else field


def json_type(data_type: T.DataType) -> T.DataType:
    """The same type with org.json's field names, so `to_json(value.cast(json_type(t)))` reads like org.json.

    A struct cast renames fields by position, which is what makes this a cheap rename."""
    if isinstance(data_type, T.StructType):
        return T.StructType([T.StructField(json_name(f.name), json_type(f.dataType), True) for f in data_type.fields])
    if isinstance(data_type, T.ArrayType):
        return T.ArrayType(json_type(data_type.elementType), True)
    return data_type


def json_text(value: Column, data_type: T.DataType) -> Column:
    return F.to_json(value.cast(json_type(data_type)))


@dataclass(frozen=True)
class Leaf:
    """One output column: its name parts below the root and the value expression."""

    path: tuple[str, ...]
    value: Column


def flatten(struct: Column, schema: T.StructType, depth: int | None, level: int = 2,
            prefix: tuple[str, ...] = ()) -> list[Leaf]:
    """Wrangler's jsonFlatten below the root element (the root is level 1): objects are walked while
    ``level < depth``; deeper objects and repeated elements become JSON text, leaves stay text."""
    leaves: list[Leaf] = []
    for field in schema.fields:
        path = (*prefix, json_name(field.name))
        value = struct[field.name]
        if isinstance(field.dataType, T.StructType) and (depth is None or level < depth):
            leaves += flatten(value, field.dataType, depth, level + 1, path)
        elif isinstance(field.dataType, (T.StructType, T.ArrayType)):
            leaves.append(Leaf(path, json_text(value, field.dataType)))
        else:
            leaves.append(Leaf(path, value.cast("string")))
    return leaves
