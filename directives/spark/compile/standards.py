"""`validate-standard`: rows whose JSON object does not conform to a standard's JSON schema go to the errors.

The one standard Wrangler bundles, `hl7-fhir-r4`, is HL7's FHIR R4 JSON schema (`fhir.schema.json`, version
4.0, published by HL7 under CC0), shipped gzip-compressed in `directives/data/`. The `jsonschema` library
validates each value in a Python UDF (Spark has no JSON-schema validator). A resource is checked against the
definition its `resourceType` names (the schema's discriminator), so a Patient's errors are about the
Patient, not "matches none of 145 resources"; a value without a known `resourceType` fails on that alone.
Every problem is reported, in Wrangler's form: `error at schema #/…, at data #/…: message`, joined by "; ".
"""

from __future__ import annotations

import gzip
import json
from functools import lru_cache
from importlib import resources
from typing import Any

from pyspark.sql import functions as F
from pyspark.sql import types as T

from directives.catalog.writers import ValidateStandard
from directives.spark.compilers import compiles, python_udf
from directives.spark.runtime.frame import Frame, RunContext, col

python_udf(ValidateStandard, "Spark has no JSON-schema validator; the jsonschema library checks each value against "
                             "the shipped FHIR R4 schema")

#: Standard name → the schema file in `directives/data/`.
STANDARD_FILES = {"hl7-fhir-r4": "hl7-fhir-r4.schema.json.gz"}


@lru_cache(maxsize=2)
def standard_schema(name: str) -> dict[str, Any]:
    data = (resources.files("directives") / "data" / STANDARD_FILES[name]).read_bytes()
    schema: dict[str, Any] = json.loads(gzip.decompress(data))
    return schema


@lru_cache(maxsize=256)
def _validator(name: str, resource_type: str) -> Any:
    from jsonschema import Draft6Validator

    root = standard_schema(name)
    schema = {key: value for key, value in root.items() if key not in ("oneOf", "discriminator")}
    schema["$ref"] = f"#/definitions/{resource_type}"
    return Draft6Validator(schema)


def _pointer(parts: Any) -> str:
    return "#" + "".join(f"/{part}" for part in parts)


def conformance_issues(name: str, text: str | None) -> str | None:
    """Null when the JSON object conforms (or there is no value), else every issue in Wrangler's form."""
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError as error:
        return f"The value is not JSON: {error}"
    if not isinstance(value, dict):
        return "The value is not a JSON object."
    mapping = standard_schema(name).get("discriminator", {}).get("mapping", {})
    resource_type = value.get("resourceType")
    if not isinstance(resource_type, str) or resource_type not in mapping:
        return (f"error at schema #/discriminator, at data #/resourceType: '{resource_type}' is not a resource "
                f"type of {name}")
    issues = sorted(_validator(name, resource_type).iter_errors(value), key=lambda e: (list(e.path), e.message))
    return "; ".join(f"error at schema {_pointer(e.absolute_schema_path)}, at data {_pointer(e.absolute_path)}: "
                     f"{e.message}" for e in issues) or None


@compiles(ValidateStandard)
def validate_standard(d: ValidateStandard, frame: Frame, ctx: RunContext) -> Frame:
    name = frame.find(d.column)
    if name is None:
        return frame  # Wrangler skips rows without the column
    kind = frame.type_of(name)
    if kind.startswith(("struct", "map")):
        text = F.to_json(col(name))
    elif kind == "string":
        text = col(name)
    else:
        return frame.step(d).fail_when(col(name).isNotNull(), f"Column {name} is not a JSON object (it's {kind})"
                                       ).build()
    standard = str(d.standard_spec)
    check = F.udf(lambda value: conformance_issues(standard, value), T.StringType())
    ctx.udf_directives.append(d.name)
    issues = F.col("__wr_conformance")
    frame = frame.with_df(frame.df.select("*", check(text).alias("__wr_conformance")))
    return frame.step(d).fail_when(issues.isNotNull(), issues).build()
