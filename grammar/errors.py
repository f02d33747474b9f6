"""One error hierarchy for everything a recipe can get wrong.

It lives in the lowest layer so that every later layer (binding, Spark, lineage,
the HTTP API) raises and reports the same shapes: a user sees the same message
with the same line, column and caret snippet whether the recipe came through
`wrangler check`, `wrangler run` or `POST /v3/lineage/recipe`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple


class Span(NamedTuple):
    """Where something sits in the recipe text: 1-based line and column, 0-based offsets.

    A named tuple rather than a dataclass: a recipe holds about three per directive, and a tuple
    of ints is the cheapest immutable record to build, and one the cyclic GC stops tracking.
    """

    line: int
    column: int
    end_line: int
    end_column: int
    start: int = 0
    end: int = 0


SNIPPET_WIDTH = 160
"""Characters of a long source line a caret snippet shows (around the caret): a recipe of one 1 MiB line
with 100,000 errors on it must not copy that line into each of them."""
EXCERPT_WIDTH = 120
"""Characters of user text a message quotes (`excerpt`), for the same reason."""

_last_lines: tuple[str, list[int]] = ("", [0])
"""The last text a snippet was cut from and where its lines start (one tuple: safe to swap between threads)."""


def _line_starts(text: str) -> list[int]:
    """Offsets of every line of ``text`` (lines end at "\\n", as the parser counts them), remembered for the
    last text: the errors of one recipe are given their snippets one after another, each in O(its line)."""
    global _last_lines
    last = _last_lines
    if last[0] is text:
        return last[1]
    starts = [0]
    find, at = text.find, text.find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = find("\n", at + 1)
    _last_lines = (text, starts)
    return starts


def excerpt(text: str, width: int = EXCERPT_WIDTH) -> str:
    """``text``, or its start and an ellipsis when it is longer than ``width``: what a message quotes."""
    return text if len(text) <= width else text[:width] + "…"


def caret_snippet(text: str | None, line: int | None, column: int | None, width: int = 1) -> str:
    """The offending source line with a caret under the column, the way compilers show it.

    A line longer than `SNIPPET_WIDTH` is shown as the part around the caret, with an ellipsis where it was cut.
    """
    if not text or line is None or column is None:
        return ""
    starts = _line_starts(text)
    if not 1 <= line <= len(starts):
        return ""
    start = starts[line - 1]
    end = starts[line] - 1 if line < len(starts) else len(text)
    caret_at = max(column - 1, 0)
    if end - start > SNIPPET_WIDTH:
        left = max(0, min(caret_at - SNIPPET_WIDTH // 2, end - start - SNIPPET_WIDTH))
        right = min(end, start + left + SNIPPET_WIDTH)
        source_line = ("…" if left else "") + text[start + left:right] + ("…" if right < end else "")
        caret_at = caret_at - left + (1 if left else 0)
    else:
        source_line = text[start:end]
    source_line = source_line.rstrip("\r").expandtabs(1)
    return f"{source_line}\n{' ' * caret_at}{'^' * max(min(width, SNIPPET_WIDTH), 1)}"


class RecipeError(Exception):
    """Base of every error caused by what the user wrote (not by our bugs).

    ``rule`` is a short stable identifier (``syntax``, ``unknown-directive``,
    ``arguments``, ``column-not-found`` …) that CI annotations and JSON output use.
    """

    rule = "recipe"

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        column: int | None = None,
        snippet: str = "",
        hint: str | None = None,
        directive: str | None = None,
        severity: str = "error",
    ) -> None:
        self.message = message
        self.line = line
        self.column = column
        self.snippet = snippet
        self.hint = hint
        self.directive = directive
        self.severity = severity
        super().__init__(self._render())

    def _render(self) -> str:
        text = self.message
        if self.hint:
            text += f" {self.hint}"
        if self.line is not None:
            text += f" Line {self.line}, Col: {self.column}."
        if self.snippet:
            text += "\n" + self.snippet
        return text

    @property
    def errors(self) -> list[RecipeError]:
        """All errors carried: one for a plain error, many for a collected validation."""
        return [self]

    def to_dict(self) -> dict[str, object]:
        return {
            "type": type(self).__name__,
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message if not self.hint else f"{self.message} {self.hint}",
            "line": self.line,
            "column": self.column,
            "directive": self.directive,
            "context": self.snippet,
        }

    def with_source(self, text: str) -> RecipeError:
        """Fill in the caret snippet once the full recipe text is known."""
        if not self.snippet and self.line is not None:
            self.snippet = caret_snippet(text, self.line, self.column)
            self.args = (self._render(),)
        return self


class RecipeSyntaxError(RecipeError):
    """The text is not Wrangler's directive language."""

    rule = "syntax"


class ExpressionSyntaxError(RecipeSyntaxError):
    """The text inside ``exp:{…}`` is not a valid expression."""

    rule = "expression-syntax"


class ExpressionFunctionError(RecipeError):
    """An expression calls a function Wrangler does not have, or with a count of arguments it does not take.

    Wrangler's compile does not resolve functions (JEXL looks them up when a row runs), so the recipe
    parses; `wrangler check` reports it because every run would fail on it.
    """

    rule = "expression-function"


class UnknownDirectiveError(RecipeError):
    """No directive of that name exists; the hint suggests the closest names."""

    rule = "unknown-directive"


class DirectiveArgumentError(RecipeError):
    """Wrong number or types of arguments for a known directive."""

    rule = "arguments"


class ColumnNotFoundError(RecipeError):
    """A directive names a column that does not exist at that point of the recipe. ``missing`` is that column's
    name, for callers that explain the finding further (`wrangler run` on an input read another way)."""

    rule = "column-not-found"

    def __init__(self, message: str, *, missing: str | None = None, **details: Any) -> None:
        self.missing = missing
        super().__init__(message, **details)


class ColumnConflictError(RecipeError):
    """A directive would create a column that already exists (rename onto, duplicates)."""

    rule = "column-conflict"


class WranglerReadsDifferently(RecipeError):
    """Wrangler's v1 → v2 rewrite reads a line differently from how it reads as written (a warning).

    Raised as a warning only: the line is accepted, and the message names what Wrangler really runs.
    """

    rule = "wrangler-rewrite"

    def __init__(self, message: str, **kwargs: object) -> None:
        kwargs.setdefault("severity", "warning")
        super().__init__(message, **kwargs)  # type: ignore[arg-type]


class StrictRuleError(RecipeError):
    """Seed 001's stricter rule: a directive that renames or drops columns must name them."""

    rule = "strict-unnamed-columns"


class RecipeValidationError(RecipeError):
    """Several errors found in one recipe; validation reports all of them, not just the first."""

    rule = "validation"

    def __init__(self, errors: Sequence[RecipeError]) -> None:
        self._errors = list(errors)
        first = self._errors[0]
        count = len(self._errors)
        summary = first.message if count == 1 else f"{count} errors in recipe; first: {first.message}"
        super().__init__(summary, line=first.line, column=first.column, directive=first.directive)

    def _render(self) -> str:
        return "\n".join(str(error) for error in getattr(self, "_errors", [])) or self.message

    @property
    def errors(self) -> list[RecipeError]:
        return list(self._errors)

    def with_source(self, text: str) -> RecipeError:
        for error in self._errors:
            error.with_source(text)
        self.args = (self._render(),)
        return self


def raise_collected(errors: Iterable[RecipeError]) -> None:
    """Raise nothing, the one error, or all of them together."""
    collected = list(errors)
    if len(collected) == 1:
        raise collected[0]
    if collected:
        raise RecipeValidationError(collected)
