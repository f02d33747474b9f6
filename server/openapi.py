"""The OpenAPI 3.1 document, generated from the route table and the pydantic models.

Nothing is written by hand: paths and methods come from ``RouteSpec``; query parameters from each
route's query model (so the names, types, ranges and patterns are the ones the server enforces);
bodies and answers from the request and response models. pydantic emits JSON Schema 2020-12,
which is what OpenAPI 3.1 uses, so schemas go in unchanged apart from ``$ref`` targets.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from server.models import ErrorResponse
from server.params import NAME_SCHEMA
from server.routes.spec import RouteSpec

REF = "#/components/schemas/{model}"
_PATH_PARAM = re.compile(r"{(\w+)}")
_ERROR_TEXT = {
    400: "A parameter is invalid (``error.parameter`` names it)",
    401: "No bearer token, or an unknown one",
    403: "The token may not read this namespace (or write it, or a namespace the body names)",
    404: "Not found",
    409: "The run id exists with different content",
    413: "The request body is too large",
    414: "The query string is too long",
    415: "The body is not JSON (Content-Type must be application/json)",
    422: "The work was stopped: it took longer than the server allows",
    503: "The store is not answering, or every worker is busy (see Retry-After)",
}
_PATH_TEXT = {
    "ns": "namespace",
    "ds": "dataset name",
    "field": "field name",
    "col": "column name",
    "run": "run id",
}


def _model_schemas(specs: Sequence[RouteSpec]) -> tuple[dict[tuple[type[BaseModel], str], Any], dict[str, Any]]:
    wanted: list[tuple[type[BaseModel], Any]] = [(ErrorResponse, "serialization")]
    for spec in specs:
        if spec.body is not None:
            wanted.append((spec.body, "validation"))
        if isinstance(spec.response, type) and issubclass(spec.response, BaseModel):
            wanted.append((spec.response, "serialization"))
    unique = list(dict.fromkeys(wanted))
    refs, document = models_json_schema(unique, ref_template=REF, by_alias=True)
    return dict(refs), dict(document.get("$defs", {}))


def _query_parameters(model: type[BaseModel], components: dict[str, Any]) -> list[dict[str, Any]]:
    schema = model.model_json_schema(by_alias=True, ref_template=REF, mode="validation")
    components.update(schema.get("$defs", {}))
    required = set(schema.get("required", ()))
    parameters = []
    for name, prop in schema.get("properties", {}).items():
        prop = dict(prop)
        description = prop.pop("description", None)
        prop.pop("title", None)
        if "anyOf" in prop:  # "X or null": a query parameter is simply left out instead
            options = [option for option in prop.pop("anyOf") if option.get("type") != "null"]
            if len(options) == 1:
                prop.update(options[0])
            else:
                prop["anyOf"] = options
            if prop.get("default", 0) is None:
                prop.pop("default")
        if prop.get("type") == "string" and isinstance(prop.get("default"), int):
            prop["default"] = str(prop["default"])
        parameter: dict[str, Any] = {"name": name, "in": "query", "required": name in required, "schema": prop}
        if description:
            parameter["description"] = description
        parameters.append(parameter)
    return parameters


def _responses(spec: RouteSpec, refs: dict[tuple[type[BaseModel], str], Any]) -> dict[str, Any]:
    if isinstance(spec.response, type) and issubclass(spec.response, BaseModel):
        schema = refs[(spec.response, "serialization")]
    else:
        schema = {"type": "object"}
    ok: dict[str, Any] = {"description": spec.summary, "content": {"application/json": {"schema": schema}}}
    if spec.cached:
        ok["headers"] = {
            "X-Cache": {"description": "hit, miss, or bypass (Redis unavailable: answered from the store)",
                        "schema": {"type": "string", "enum": ["hit", "miss", "bypass"]}},
            "X-Next-Cursor": {"description": "cursor of the next page, when there is one",
                              "schema": {"type": "string"}},
            "X-Lineage-Cut": {"description": "true when runs, datasets or fields the token may not read were left "
                                             "out of the answer", "schema": {"type": "string", "enum": ["true"]}},
        }
    responses: dict[str, Any] = {str(spec.status): ok}
    if spec.name == "record_run":
        responses["200"] = {"description": "This exact run was already recorded", "content": ok["content"]}
    error_schema = refs[(ErrorResponse, "serialization")]
    codes = set(spec.errors) | ({401, 403} if not spec.public else set()) | {414}
    if spec.body is not None:
        codes.add(415)
    for code in sorted(codes):
        responses[str(code)] = {"description": _ERROR_TEXT.get(code, "Error"),
                                "content": {"application/json": {"schema": error_schema}}}
    return responses


def build_document(
    specs: Sequence[RouteSpec], *, title: str = "wrangler-lineage", version: str = "1"
) -> dict[str, Any]:
    refs, components = _model_schemas(specs)
    paths: dict[str, dict[str, Any]] = {}
    for spec in specs:
        parameters = [
            {"name": name, "in": "path", "required": True, "description": _PATH_TEXT.get(name, name),
             "schema": dict(NAME_SCHEMA)}
            for name in _PATH_PARAM.findall(spec.path)
        ]
        if spec.query is not None:
            parameters += _query_parameters(spec.query, components)
        operation: dict[str, Any] = {
            "operationId": spec.name,
            "summary": spec.summary,
            "tags": [spec.tag],
            "parameters": parameters,
            "responses": _responses(spec, refs),
        }
        if spec.description:
            operation["description"] = spec.description
        if spec.body is not None:
            operation["requestBody"] = {
                "required": True,
                "content": {"application/json": {"schema": refs[(spec.body, "validation")]}},
            }
        if not spec.public:
            operation["security"] = [{"bearer": []}]
        paths.setdefault(spec.path, {})[spec.method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": {
            "title": title,
            "version": version,
            "description": "Column lineage of Wrangler recipes on Spark: recorded runs, CDAP-compatible queries, "
                           "OpenLineage and DataHub exports. Times are epoch seconds or now[-N<s|m|h|d|w>]; "
                           "start is inclusive, end exclusive.",
        },
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer",
                                           "description": "per-namespace token (wrangler serve --auth FILE)"}},
        },
    }
