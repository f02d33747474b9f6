"""Route declarations that carry their own contract: query model, body model, response model.

``RouteTable`` plays the part of aiohttp's ``RouteTableDef`` (a static list built at import, not
application state) and keeps, next to each handler, what the OpenAPI generator, the auth
middleware and the tests need to know about it - so the document cannot drift from the code.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from pydantic import BaseModel

from server.params import Query

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True)
class RouteSpec:
    method: str
    path: str
    handler: Handler
    name: str
    summary: str
    tag: str
    response: Any
    query: type[Query] | None = None
    body: type[BaseModel] | None = None
    status: int = 200
    public: bool = False
    """No token needed (health and the API document)."""
    cached: bool = False
    """Sends ``X-Cache``."""
    errors: tuple[int, ...] = (400,)
    exclude_none: bool = False
    """Leave null members out of the JSON (CDAP's Gson does)."""
    description: str = ""

    @property
    def namespaced(self) -> bool:
        return "{ns}" in self.path

    @property
    def writes(self) -> bool:
        """Changes what is stored, so its namespace must be one the token may write, not only read."""
        return self.method not in ("GET", "HEAD") and self.namespaced


class RouteTable:
    def __init__(self) -> None:
        self.specs: list[RouteSpec] = []

    def route(self, method: str, path: str, *, name: str, summary: str, tag: str, response: Any,
              **options: Any) -> Callable[[Handler], Handler]:
        def register(handler: Handler) -> Handler:
            doc = (handler.__doc__ or "").strip()
            self.specs.append(RouteSpec(method=method, path=path, handler=handler, name=name, summary=summary,
                                        tag=tag, response=response, description=doc, **options))
            return handler

        return register

    def get(self, path: str, **options: Any) -> Callable[[Handler], Handler]:
        return self.route("GET", path, **options)

    def post(self, path: str, **options: Any) -> Callable[[Handler], Handler]:
        return self.route("POST", path, **options)
