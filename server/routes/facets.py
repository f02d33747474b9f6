"""The JSON schemas of our custom OpenLineage facets, published where their ``_schemaURL`` points.

OpenLineage asks a custom facet to name its schema; consumers that validate facets fetch it. The files
live in the repository (``lineage/schemas/openlineage/``); served here, each carries the ``$id`` of the
URL it is served at (``Settings.facet_base``).
"""

from __future__ import annotations

import json

from aiohttp import web

from lineage import export
from server.errors import NotFoundError
from server.keys import SETTINGS
from server.params import EmptyQuery, parse_query
from server.routes.spec import RouteTable

table = RouteTable()


@table.get("/openlineage/facets/{version}/{schema}", name="openlineage_facet_schema",
           summary="JSON schema of one of our OpenLineage facets", tag="export", query=EmptyQuery, response=dict,
           public=True, errors=(400, 404))
async def facet_schema(request: web.Request) -> web.Response:
    """``WranglerRunFacet.json`` and ``WranglerFieldLineageDatasetFacet.json``, version ``1-0-0``."""
    parse_query(request, EmptyQuery)
    version, schema = request.match_info["version"], request.match_info["schema"]
    name = schema.removesuffix(".json")
    if version != export.FACET_VERSION or name not in export.FACETS or not schema.endswith(".json"):
        raise NotFoundError(f"no facet schema {version}/{schema}; published: "
                            + ", ".join(f"{export.FACET_VERSION}/{facet}.json" for facet in export.FACETS))
    document = export.facet_schema(name, request.app[SETTINGS].facet_base)
    return web.Response(text=json.dumps(document, indent=2), content_type="application/schema+json")
