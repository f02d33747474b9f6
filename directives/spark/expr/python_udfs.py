"""The few expression functions Spark has no built-in for, as Python UDFs (listed in the README).

JSON key rewriting at every depth (`json:keysToLower`, `json:drop`, `json:select`'s lower-casing) needs to walk a
JSON value of unknown shape; Spark's VARIANT functions read paths but cannot rebuild objects with changed keys.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T


def _lower(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(key).lower(): _lower(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_lower(item) for item in value]
    return value


def _drop(value: Any, fields: set[str]) -> Any:
    if isinstance(value, dict):
        return {key: _drop(item, fields) for key, item in value.items() if key not in fields}
    if isinstance(value, list):
        return [_drop(item, fields) if isinstance(item, dict) else item for item in value]
    return value


def _lower_text(text: str | None) -> str | None:
    return None if text is None else json.dumps(_lower(json.loads(text)), separators=(",", ":"))


def _drop_text(text: str | None, fields: list[str] | None) -> str | None:
    if text is None:
        return None
    return json.dumps(_drop(json.loads(text), set(fields or [])), separators=(",", ":"))


@functools.cache
def _udf(name: str) -> Any:
    """The UDF, made when a recipe first uses it (importing this module costs nothing)."""
    function = {"lower": _lower_text, "drop": _drop_text}[name]
    return F.udf(lambda *args: function(*args), T.StringType())


def keys_to_lower(variant: Column) -> Column:
    """JsonFunctions.keysToLower on a VARIANT."""
    return F.parse_json(_udf("lower")(F.to_json(variant)))


def drop_fields(variant: Column, fields: Column) -> Column:
    """JsonFunctions.drop on a VARIANT: the fields removed from every object, objects inside arrays included."""
    return F.parse_json(_udf("drop")(F.to_json(variant), fields))
