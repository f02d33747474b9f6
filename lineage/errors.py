"""Errors raised by the lineage model, recorder and store.

They are separate from ``grammar.errors`` on purpose: recipe errors point at a line and column
of recipe text, while lineage errors point at an operation, a field, a run or a query
parameter. Every class subclasses a builtin (``ValueError`` / ``LookupError``) so callers that
do not know this module still catch them sensibly, and every instance can be turned into the
JSON error body the server returns with ``to_dict()``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


class LineageError(Exception):
    """Base class; ``rule`` is a short stable identifier used in JSON error bodies."""

    rule = "lineage"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_dict(self) -> dict[str, Any]:
        return {"type": type(self).__name__, "rule": self.rule, "message": self.message}


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a list of operations; names the operation and field when known."""

    message: str
    operation: str | None = None
    field: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        return {"message": self.message, "operation": self.operation, "field": self.field}


class LineageValidationError(LineageError, ValueError):
    """Operations (or a destination, or a column history) that cannot be recorded.

    Validation collects every problem before raising, so a producer fixes them all in one go.
    """

    rule = "invalid-lineage"

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        if len(self.problems) == 1:
            message = self.problems[0].message
        else:
            message = f"{len(self.problems)} lineage problems: " + "; ".join(p.message for p in self.problems)
        super().__init__(message)

    def to_dict(self) -> dict[str, Any]:
        body = super().to_dict()
        body["problems"] = [p.to_dict() for p in self.problems]
        return body


class CycleError(LineageValidationError):
    """The operations' origins form a cycle, so no topological order exists."""

    rule = "cycle"


class RunConflictError(LineageError, ValueError):
    """A run id was recorded before with different content (re-recording identical content is a no-op)."""

    rule = "run-conflict"


class RunNotFoundError(LineageError, LookupError):
    """A query named a run that the store does not hold."""

    rule = "run-not-found"


class QueryError(LineageError, ValueError):
    """A query parameter is out of range (time range, limit, levels, direction …)."""

    rule = "bad-query"


class InvalidCursorError(QueryError):
    """A pagination cursor is malformed or belongs to a different query."""

    rule = "bad-cursor"


class TimeParseError(QueryError):
    """A time expression is neither epoch seconds nor ``now[+-N<unit>]...``."""

    rule = "bad-time"


class SchemaVersionError(LineageError, RuntimeError):
    """The database file was written by a newer schema than this code knows."""

    rule = "schema-version"


class StoreUnavailableError(LineageError, ConnectionError):
    """The store cannot be opened: a database server that cannot be reached, or refuses the user or database."""

    rule = "store-unavailable"
