"""`data-model-map-column`: convert a column to a data-model field's type and rename it to the field.

Wrangler downloads the glossary (a `manifest.json` naming `<standard>.avsc` Avro schemas) from the
`data-model-url` when the recipe starts. Here the URL names the same layout on disk: a `file:` URL, a path, or
a directory name looked up in the resource directories (`directives.spark.runtime.resources`). The glossary is
read once, on the driver, when the recipe compiles; what follows is `set-type` and `rename`, native in Spark.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from directives.catalog.dates import DataModelMapColumn
from directives.spark.compile.column_ops import check_rename, conversion_step
from directives.spark.compile.common import existing_column
from directives.spark.compilers import compiles
from directives.spark.runtime.frame import Frame, RunContext
from directives.spark.runtime.resources import ResourceNotFound, find_resource
from grammar.errors import RecipeError

#: Avro primitive type names → the `set-type` type Wrangler's ColumnConverter converts to.
AVRO_TYPES = {"string": "string", "int": "int", "long": "long", "float": "float", "double": "double",
              "boolean": "boolean", "bytes": "bytes"}


class DataModelError(RecipeError):
    """The glossary, data model, model or field the directive names cannot be found (Wrangler: at initialize)."""

    rule = "data-model"


def glossary_dir(url: str) -> Path:
    parts = urlsplit(url)
    if parts.scheme == "file":
        return Path(unquote(parts.path))
    if parts.scheme in ("http", "https"):
        host_path = f"{parts.netloc}{parts.path}".rstrip("/")
        return find_resource(host_path, [f"{host_path}/manifest.json"]).parent
    path = Path(url).expanduser()
    if path.is_dir():
        return path
    return find_resource(url, [f"{url.rstrip('/')}/manifest.json"]).parent


def load_glossary(directory: Path) -> dict[str, list[dict[str, Any]]]:
    """Schemas by full name, as AvroSchemaGlossary keeps them (every `avsc` standard the manifest lists)."""
    manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
    glossary: dict[str, list[dict[str, Any]]] = {}
    for standard, spec in (manifest.get("standards") or {}).items():
        if (spec or {}).get("format") != "avsc":
            continue
        try:
            schema = json.loads((directory / f"{standard}.avsc").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # Wrangler logs the schema it cannot parse and goes on
        name = schema.get("name", "")
        namespace = schema.get("namespace")
        full = name if "." in name or not namespace else f"{namespace}.{name}"
        glossary.setdefault(full, []).append(schema)
    return glossary


def _types(schema: Any) -> list[Any]:
    return schema if isinstance(schema, list) else [schema]


def _type_name(schema: Any) -> str:
    return schema if isinstance(schema, str) else str(schema.get("type") if schema.get("type") not in
                                                       ("record", "enum", "fixed") else schema.get("name"))


def target_field(d: DataModelMapColumn) -> tuple[str, str]:
    """The target field's name and Avro type name, found as DataModelMapColumn.initialize finds them."""
    def fail(message: str) -> DataModelError:
        span = d.call.span
        return DataModelError(message, line=span.line, column=span.column, directive=d.name)

    def found(items: Iterable[Any], wanted: Callable[[Any], bool], missing: str) -> Any:
        item = next((item for item in items if wanted(item)), None)
        if item is None:
            raise fail(missing)
        return item

    url = str(d.data_model_url)
    try:
        glossary = load_glossary(glossary_dir(url))
    except (ResourceNotFound, OSError, ValueError) as error:
        raise fail(f"Unable to load data models from {url}: {error}.") from None
    data_model, revision = str(d.data_model), int(float(str(d.revision)))
    schema = found(glossary.get(data_model, []), lambda s: str(s.get("_revision", "")).strip() == str(revision),
                   f"Unable to find data model {data_model} revision {revision}.")
    model_name = str(d.model)
    model_field = found(schema.get("fields", []), lambda f: f.get("name") == model_name,
                        f"Model {model_name} does not exist in data model {data_model}.")
    model = found(_types(model_field.get("type")), lambda t: isinstance(t, dict) and t.get("type") == "record",
                  f"Model {model_name} has no schema.")
    target_name = str(d.target_field)
    target = found(model.get("fields", []), lambda f: f.get("name") == target_name,
                   f"Field {target_name} does not exist in model {model.get('name')}.")
    kind = found(_types(target.get("type")), lambda t: t != "null",
                 f" Field {target_name} of model {model_name} in data model {data_model} is missing type information.")
    return target_name, _type_name(kind)


class _Conversion:
    """What `column_ops._converted` reads of a `set-type` directive, for the field's type (no decimal options:
    Wrangler converts with scale and precision unset)."""

    name = "data-model-map-column"
    scale = None
    precision = None
    rounding_mode = None

    def __init__(self, target_type: str) -> None:
        self.target_type = target_type

    def bound(self, name: str, default: object = None) -> object:
        return default


@compiles(DataModelMapColumn)
def data_model_map_column(d: DataModelMapColumn, frame: Frame, ctx: RunContext) -> Frame:
    target, avro_type = target_field(d)
    if avro_type not in AVRO_TYPES:
        span = d.call.span
        raise DataModelError(f"Field {target} has type '{avro_type}', which Wrangler cannot convert a column to.",
                             line=span.line, column=span.column, directive=d.name)
    name = existing_column(frame, d.column)  # ColumnConverter leaves rows without the column alone
    check_rename(d, frame, name, str(d.column), target)
    step = conversion_step(_Conversion(AVRO_TYPES[avro_type]), d, frame, name, avro_type, str(d.column), ctx)  # type: ignore[arg-type]
    return step.rename(name, target).build()
