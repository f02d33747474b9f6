"""Reading an input schema from the command line: `--schema a,b,c` or `--schema-file F`.

A schema file may be a JSON list of names, a Spark/Avro-style JSON schema (`{"fields":
[{"name": …}]}`), or plain text with names separated by commas or new lines — whatever a
data engineer already has at hand.
"""

from __future__ import annotations

import json
from pathlib import Path


class SchemaInputError(ValueError):
    """The schema given on the command line cannot be read."""


def parse_schema_option(value: str | None) -> list[str] | None:
    if value is None:
        return None
    names = [name.strip() for name in value.split(",")]
    if not all(names):
        raise SchemaInputError(f"--schema has an empty column name: {value!r}")
    return names


def read_schema_file(path: str | None) -> list[str] | None:
    if path is None:
        return None
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise SchemaInputError(f"cannot read schema file {path}: {error.strerror}") from None
    stripped = text.strip()
    if stripped.startswith(("[", "{")):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as error:
            raise SchemaInputError(f"schema file {path} is not valid JSON: {error}") from None
        return _names_from_json(data, path)
    names = [part.strip() for line in stripped.splitlines() for part in line.split(",")]
    return [name for name in names if name]


def _names_from_json(data: object, path: str) -> list[str]:
    if isinstance(data, list) and all(isinstance(item, str) for item in data):
        return list(data)
    if isinstance(data, dict) and isinstance(data.get("fields"), list):
        names = [field.get("name") for field in data["fields"] if isinstance(field, dict)]
        if all(isinstance(name, str) for name in names):
            return names  # type: ignore[return-value]
    raise SchemaInputError(f"schema file {path}: expected a JSON list of names or an object with 'fields'")
