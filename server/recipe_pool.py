"""A pool of recipe-analysis worker processes with a time limit: no recipe can stall the server.

Parsing runs in Python and holds the GIL, so a thread would not protect the event loop: a recipe
the parser is slow on (issue 21 measured 31 s for 100 KB of leading spaces) would freeze
``/healthz`` and every cached answer with it. Each recipe therefore goes to a worker process
(``server.recipe_analysis``); the event loop only writes the request to the worker's pipe and
awaits the answer. A worker that has not answered within ``time_limit`` seconds is killed and
replaced, and the request is a 422 saying so. When every worker is busy a request waits for one
at most ``time_limit`` seconds, then gets a 503 with ``Retry-After``.

Workers start on the first recipe (most servers never see one), and a worker that died or was
killed is replaced by the next request that finds the pool short.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from aiohttp import web

from server import recipe_analysis
from server.errors import ParameterError, UnavailableError, UnprocessableError
from server.keys import RECIPE_WORKERS
from server.settings import Settings

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT = 60.0
"""A worker that cannot import the project within this many seconds is given up (and retried later)."""
POLL = 0.25
"""While waiting for a worker, how often to look again whether one is still starting."""


class WorkerFailed(Exception):
    """The worker died, or said something that is not the protocol."""


class _Worker:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    @classmethod
    async def start(cls) -> _Worker:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT), env.get("PYTHONPATH"))))
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "server.recipe_analysis",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env, cwd=ROOT,
        )
        worker = cls(process)
        try:
            assert process.stdout is not None
            line = await asyncio.wait_for(process.stdout.readline(), START_TIMEOUT)
            if line != recipe_analysis.READY:
                raise WorkerFailed(f"recipe worker did not start (said {line[:200]!r})")
        except BaseException:
            await worker.kill()
            raise
        return worker

    async def ask(self, payload: bytes) -> tuple[str, bytes]:
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        try:
            stdin.write(b"%d\n" % len(payload) + payload)
            await stdin.drain()
            header = await stdout.readline()
            kind, _, size = header.decode("ascii").partition(" ")
            body = await stdout.readexactly(int(size))
        except (OSError, ValueError, UnicodeDecodeError, asyncio.IncompleteReadError) as error:
            raise WorkerFailed(f"recipe worker stopped answering ({type(error).__name__}: {error})") from None
        return kind, body

    @property
    def alive(self) -> bool:
        return self.process.returncode is None

    async def kill(self) -> None:
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
        await self.process.wait()


class RecipePool:
    """``size`` workers; ``analyse`` answers one recipe within ``time_limit`` seconds or raises an ``ApiError``."""

    def __init__(self, *, size: int, time_limit: float) -> None:
        self.size = size
        self.time_limit = time_limit
        self._idle: asyncio.Queue[_Worker] = asyncio.Queue()
        self._live = 0
        """Workers started or starting (busy, idle or on their way)."""
        self._starting: set[asyncio.Task[None]] = set()
        self._all: set[_Worker] = set()
        self._closed = False
        self.stopped = 0
        """Workers killed at the time limit (for tests and logs)."""

    def _fill(self) -> None:
        """Start workers until ``size`` are live or on their way."""
        while not self._closed and self._live < self.size:
            self._live += 1
            task = asyncio.create_task(self._start_one(), name="recipe-worker-start")
            self._starting.add(task)
            task.add_done_callback(self._starting.discard)

    async def _start_one(self) -> None:
        try:
            worker = await _Worker.start()
        except Exception as error:
            self._live -= 1
            log.error("could not start a recipe worker: %s", error)
            return
        if self._closed:
            await worker.kill()
            return
        self._all.add(worker)
        self._idle.put_nowait(worker)

    async def _retire(self, worker: _Worker) -> None:
        self._all.discard(worker)
        self._live -= 1
        await worker.kill()

    async def _acquire(self) -> _Worker:
        """An idle worker. Waiting for busy ones is bounded by ``time_limit``; a worker still starting
        (imports take a second) extends the wait, since it is on its way and not busy."""
        self._fill()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.time_limit
        while True:
            left = deadline - loop.time()
            if left <= 0 and not self._starting:
                raise UnavailableError(
                    f"every recipe worker is busy (the server analyses {self.size} recipe(s) at a time); "
                    "try again shortly", retry_after=max(1, math.ceil(self.time_limit)), parameter="recipe",
                )
            try:
                worker = await asyncio.wait_for(self._idle.get(), min(left, POLL) if left > 0 else POLL)
            except TimeoutError:
                continue
            if worker.alive:
                return worker
            await self._retire(worker)  # died while idle: replace it and wait for another
            self._fill()

    async def analyse(self, recipe: str, schema: list[str] | None) -> bytes:
        """The ``RecipeLineageResponse`` JSON of ``recipe``; a recipe that does not parse is a 400 naming it."""
        return await self._ask({"recipe": recipe, "schema": schema})

    async def check(self, recipe: str, schema: list[str] | None, strict: bool) -> bytes:
        """`wrangler check`'s findings for ``recipe`` as JSON ``{"findings", "errors"}`` (findings are an answer)."""
        return await self._ask({"task": "check", "recipe": recipe, "schema": schema, "strict": strict})

    async def _ask(self, request: dict[str, object]) -> bytes:
        payload = json.dumps(request).encode("utf-8")
        worker = await self._acquire()
        try:
            kind, body = await asyncio.wait_for(worker.ask(payload), self.time_limit)
        except TimeoutError:
            self.stopped += 1
            await self._retire(worker)
            self._fill()
            raise UnprocessableError(
                f"the recipe took longer than {self.time_limit:g} s to analyse and was stopped; "
                "a recipe this slow is usually one with extremely long lines or deeply nested expressions",
                parameter="recipe",
            ) from None
        except BaseException:  # the worker failed, or this request was cancelled mid-answer: its state is unknown
            await self._retire(worker)
            self._fill()
            raise
        self._idle.put_nowait(worker)
        return self._answer(kind, body)

    @staticmethod
    def _answer(kind: str, body: bytes) -> bytes:
        if kind == recipe_analysis.OK:
            return body
        if kind == recipe_analysis.RECIPE_ERROR:
            found = json.loads(body)
            raise ParameterError("recipe", found["message"], errors=found["errors"])
        if kind == recipe_analysis.TOO_LARGE:
            raise UnprocessableError("the recipe is too large to analyse (the analysis ran out of memory or stack)",
                                     parameter="recipe")
        raise RuntimeError(f"recipe analysis failed:\n{body.decode('utf-8', 'replace')}")

    async def close(self) -> None:
        self._closed = True
        for task in list(self._starting):
            task.cancel()
        await asyncio.gather(*self._starting, return_exceptions=True)
        await asyncio.gather(*(worker.kill() for worker in list(self._all)), return_exceptions=True)
        self._all.clear()


def recipe_pool_context(settings: Settings) -> Callable[[web.Application], AsyncIterator[None]]:
    """The app's pool, from start-up to clean-up (its workers start with the first recipe)."""

    async def context(app: web.Application) -> AsyncIterator[None]:
        pool = RecipePool(size=settings.recipe_workers, time_limit=settings.recipe_time_limit)
        app[RECIPE_WORKERS] = pool
        try:
            yield
        finally:
            await pool.close()

    return context
