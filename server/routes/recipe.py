"""Static lineage of an unsaved recipe: parse, label, backtrack - no Spark, no store, no cache.

The recipe is untrusted text, so it is analysed in a worker process with a time limit
(``server.recipe_pool``), never on the event loop.
"""

from __future__ import annotations

from aiohttp import web

from server.keys import RECIPE_WORKERS
from server.models import RecipeLineageRequest, RecipeLineageResponse
from server.params import EmptyQuery, parse_query
from server.routes.spec import RouteTable
from server.routes.support import JSON, read_body

table = RouteTable()


@table.post("/v3/lineage/recipe", name="recipe_lineage", summary="Column lineage of a recipe, from its text alone",
            tag="recipes", body=RecipeLineageRequest, response=RecipeLineageResponse, errors=(400, 413, 422, 503))
async def recipe_lineage(request: web.Request) -> web.Response:
    """Backtracks every final column through the recipe's directives (seed 001, approach #2).

    With ``schema`` the input columns are known, so whole-schema directives (``keep``, ``columns-replace``)
    resolve exactly. A recipe that does not parse is a 400 listing every error with line and column; one
    that takes longer than the server's time limit to analyse (5 s by default) is stopped: a 422.
    """
    parse_query(request, EmptyQuery)
    body = await read_body(request, RecipeLineageRequest)
    answer = await request.app[RECIPE_WORKERS].analyse(body.recipe, body.input_schema)
    return web.Response(body=answer, content_type=JSON)
