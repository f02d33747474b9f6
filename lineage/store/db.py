"""What the store's queries need from a database, whichever engine it is: the seam between SQL and backends.

The queries (``queries``, ``run_queries``, ``browse``) and the write path (``writer``) are written
once, in the SQL SQLite and PostgreSQL agree on (``?`` placeholders, ``ON CONFLICT``, ``RETURNING``,
row values, ``CASE`` instead of the two-argument ``min``/``max`` only SQLite has). A backend supplies:

* ``Conn``: ``execute`` / ``executemany`` as in DB-API, ``stream`` (rows read lazily, for queries that
  stop early), and ``like`` (the operator that matches ASCII text ignoring case: SQLite's ``LIKE``,
  PostgreSQL's ``ILIKE``).
* ``Database``: read transactions on one snapshot, write transactions that are whole or nothing and
  serialised (so run ids grow in commit order, which the server's cache watermarks rely on), the
  schema version, and an identity that tells two stores apart.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Rows(Protocol):
    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Executes(Protocol):
    """Enough of a connection for single statements: a plain ``sqlite3.Connection`` is one too."""

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Rows: ...


class Conn(Executes, Protocol):
    like: str

    def executemany(self, sql: str, seq_of_parameters: Iterable[Sequence[Any]], /) -> Any: ...

    def stream(self, sql: str, parameters: Sequence[Any]) -> Iterator[Any]: ...


def like_escaped(text: str) -> str:
    """``text`` as a literal inside a LIKE pattern with ``ESCAPE '\\'``."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def names_after(like: str, sql: str, params: list[Any], column: str, after: str | None, contains: str) -> str:
    """``sql`` (a listing's SELECT and WHERE) continued for a page ordered by the name in ``column``: names after
    ``after`` (where the previous page stopped) matching the LIKE pattern ``contains`` (empty: all), in order.
    ``like`` is the backend's case-insensitive LIKE; ``column`` comes from the callers' literals."""
    if after is not None:
        sql += f" AND {column} > ?"
        params.append(after)
    if contains:
        sql += f" AND {column} {like} ? ESCAPE '\\'"
        params.append(contains)
    return sql + f" ORDER BY {column}"


class Database(ABC):
    """A lineage database: hands out connections inside transactions; knows its schema version."""

    @abstractmethod
    def read(self) -> AbstractContextManager[Conn]:
        """A read transaction: every statement inside sees the same snapshot."""

    @abstractmethod
    def write(self, work: Callable[[Conn], T]) -> T:
        """Run ``work`` in a write transaction (retried whole when the engine asks; ``work`` must not commit)."""

    @abstractmethod
    def schema_version(self, conn: Conn) -> int:
        """The version of the schema applied (0 for an empty database)."""

    @abstractmethod
    def mark_version(self, conn: Conn, version: int) -> None:
        """Record that ``version`` was applied (inside the migration's transaction)."""

    @abstractmethod
    def ddl(self, statement: str) -> str:
        """A migration statement (written for SQLite) in this engine's dialect."""

    @property
    @abstractmethod
    def identity(self) -> str:
        """Names this database, the same from every process that opens it (server cache keys and channels)."""

    @abstractmethod
    def close(self) -> None: ...
