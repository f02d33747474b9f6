"""Static lineage of an untrusted recipe, computed in a worker process (``python -m server.recipe_analysis``).

The server never parses a recipe itself: one hostile request (a line of 100,000 spaces, a member
chain of 80,000 parts) would hold the GIL for as long as the parser needs, and ``/healthz`` with
it. ``server.recipe_pool`` sends each recipe to a worker running this module's ``serve`` loop and
kills the worker if the answer takes longer than the time limit.

The protocol on the worker's stdin/stdout is length-prefixed, so a recipe may hold any byte:

* the worker starts with the line ``ready`` once its imports are done;
* a request is ``<n>\\n`` followed by ``n`` bytes of JSON ``{"recipe": text, "schema": [names] | null}``, or
  ``{"task": "check", "recipe", "schema", "strict": bool}`` for `wrangler check`'s findings instead of lineage;
* an answer is ``<kind> <n>\\n`` followed by ``n`` bytes: ``ok`` (the response body, JSON),
  ``recipe_error`` (JSON ``{"message", "errors"}``: the recipe does not parse), ``too_large`` (text:
  the analysis ran out of memory) or ``error`` (text: a traceback, a bug to log).

The worker lowers its own scheduling priority, so on a busy machine the server's event loop is
served before a long analysis. It answers from a thread with a large stack and a high recursion
limit: a column that 130 directives change in turn has a lineage tree 260 JSON levels deep, more
than pydantic's serializer will write (that was a 500), so the answer is written with the standard
library's encoder, which only needs stack.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import traceback
from typing import BinaryIO

OK, RECIPE_ERROR, TOO_LARGE, ERROR = "ok", "recipe_error", "too_large", "error"
READY = b"ready\n"
NICENESS = 10
STACK_BYTES = 512 << 20
"""Address space only: pages are touched as deep answers need them."""
RECURSION_LIMIT = 1_000_000
"""A 1 MiB recipe can chain ~80,000 directives on one column: ~160,000 JSON levels."""


def analyse(text: str, schema: list[str] | None) -> tuple[str, bytes]:
    """``(kind, body)`` for one recipe, as the protocol in the module docstring describes it."""
    import directives
    from lineage.backtrack import Backtracker
    from lineage.render import to_json_document
    from server.models import RecipeLineageResponse

    try:
        recipe = directives.parse(text, schema)
    except directives.RecipeError as error:
        items = [item.to_dict() for item in error.errors]
        message = str(items[0]["message"]) if len(items) == 1 else f"{len(items)} errors in the recipe"
        return RECIPE_ERROR, json.dumps({"message": message, "errors": items}).encode("utf-8")
    document = to_json_document(Backtracker(recipe).all())
    RecipeLineageResponse.model_validate(document)  # the shape the API documents, checked before it is sent
    return OK, _json_bytes(document, separators=(",", ":"))


FINDING_KEYS = ("rule", "severity", "message", "line", "column", "directive", "context")


def check(text: str, schema: list[str] | None, strict: bool) -> tuple[str, bytes]:
    """``(kind, body)`` with every finding of `wrangler check` (``directives.validate`` reports, never raises)."""
    import directives

    findings = []
    for item in directives.validate(text, schema, strict=strict):
        entry = item.to_dict()
        entry["context"] = str(entry.get("context") or "")
        findings.append({key: entry.get(key) for key in FINDING_KEYS})
    errors = sum(1 for finding in findings if finding["severity"] == "error")
    return OK, _json_bytes({"findings": findings, "errors": errors})


def _json_bytes(document: object, **options: object) -> bytes:
    """UTF-8 JSON; with every non-ASCII character escaped when the document holds a lone surrogate (a recipe
    sent as JSON may hold `\\ud800`, which UTF-8 cannot encode: that was a 500)."""
    text = json.dumps(document, ensure_ascii=False, **options)  # type: ignore[arg-type]
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(document, ensure_ascii=True, **options).encode("ascii")  # type: ignore[arg-type]


def _answer(out: BinaryIO, kind: str, body: bytes) -> None:
    out.write(f"{kind} {len(body)}\n".encode("ascii") + body)
    out.flush()


def serve(source: BinaryIO, out: BinaryIO) -> None:
    """Answer requests from ``source`` until it closes."""
    while True:
        header = source.readline()
        if not header:
            return
        request = json.loads(source.read(int(header)))
        try:
            if request.get("task") == "check":
                kind, body = check(request["recipe"], request.get("schema"), bool(request.get("strict")))
            else:
                kind, body = analyse(request["recipe"], request.get("schema"))
        except (MemoryError, RecursionError):
            kind, body = TOO_LARGE, b"the analysis ran out of memory or stack"
        except Exception:
            kind, body = ERROR, traceback.format_exc().encode("utf-8", "replace")
        _answer(out, kind, body)


def main() -> None:
    os.nice(NICENESS)
    # everything `analyse` needs, loaded before the first request so it counts against no time limit
    import directives  # noqa: F401
    import lineage.backtrack
    import lineage.render  # noqa: F401
    import server.models  # noqa: F401

    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print must not corrupt the protocol
    sys.setrecursionlimit(RECURSION_LIMIT)
    threading.stack_size(STACK_BYTES)
    out.write(READY)
    out.flush()
    worker = threading.Thread(target=serve, args=(sys.stdin.buffer, out), name="recipe-analysis")
    worker.start()
    worker.join()


if __name__ == "__main__":
    main()
