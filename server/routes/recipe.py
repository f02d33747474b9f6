"""Static lineage of an unsaved recipe: parse, label, backtrack - no Spark, no store, no cache."""

from __future__ import annotations

import asyncio

from aiohttp import web

from server.errors import ParameterError
from server.models import RecipeLineageRequest, RecipeLineageResponse
from server.params import EmptyQuery, parse_query
from server.routes.spec import RouteTable
from server.routes.support import json_response, read_body

table = RouteTable()


def _static_lineage(text: str, schema: list[str] | None) -> RecipeLineageResponse:
    import directives
    from lineage.backtrack import Backtracker
    from lineage.render import to_json_document

    try:
        recipe = directives.parse(text, schema)
    except directives.RecipeError as error:
        items = [item.to_dict() for item in error.errors]
        message = str(items[0]["message"]) if len(items) == 1 else f"{len(items)} errors in the recipe"
        raise ParameterError("recipe", message, errors=items) from None
    return RecipeLineageResponse.model_validate(to_json_document(Backtracker(recipe).all()))


@table.post("/v3/lineage/recipe", name="recipe_lineage", summary="Column lineage of a recipe, from its text alone",
            tag="recipes", body=RecipeLineageRequest, response=RecipeLineageResponse, errors=(400, 413))
async def recipe_lineage(request: web.Request) -> web.Response:
    """Backtracks every final column through the recipe's directives (seed 001, approach #2).

    With ``schema`` the input columns are known, so whole-schema directives (``keep``, ``columns-replace``)
    resolve exactly. A recipe that does not parse is a 400 listing every error with line and column.
    """
    parse_query(request, EmptyQuery)
    body = await read_body(request, RecipeLineageRequest)
    result = await asyncio.to_thread(_static_lineage, body.recipe, body.input_schema)
    return json_response(result)
