"""Settling a line that Wrangler reads differently from how it reads as written (see `WranglerReading`).

Wrangler rewrites every line without `exp:`/`prop:` with its v1 → v2 migrator before parsing. The
rules, in the words of the team's compatibility brief:

- a line that does not read as written (does not parse, or does not fit its directive) runs the way
  Wrangler reads it — with a warning when Wrangler's reading throws part of the line away;
- a line that is valid v2 as written but that Wrangler's rewrite would mangle keeps its as-written
  meaning, with a warning naming what Wrangler runs instead (or that Wrangler rejects it);
- a line Wrangler drops (`set format csv , true`) is dropped, with a warning.
"""

from __future__ import annotations

from directives.base import Directive
from directives.binding import bind
from grammar.errors import RecipeError, UnknownDirectiveError, WranglerReadsDifferently, excerpt
from grammar.nodes import DirectiveCall, WranglerReading


def bind_wrangler_reading(call: DirectiveCall, reading: WranglerReading, index: int,
                          findings: list[RecipeError]) -> Directive:
    """A directive the parser could only read Wrangler's way (``call.original`` is the user's line)."""
    directive = bind(call, index, findings, reading.placeholders)
    ignored = _ignored(reading, call)
    if ignored is not None:
        findings.append(ignored)
    return directive


def settle(call: DirectiveCall, reading: WranglerReading, index: int, findings: list[RecipeError],
           alone: bool) -> Directive | None:
    """The directive to run for a line read as written (``call``) that Wrangler reads differently.

    ``alone``: whether ``call`` is the only directive of its line (Wrangler's reading replaces a whole
    line). None when Wrangler drops the line and it does not read as written either. Raises the most
    telling error when neither reading binds.
    """
    attempt: list[RecipeError] = []
    try:
        directive = bind(call, index, attempt)
    except RecipeError as written_error:
        if not alone:
            raise
        return _wrangler_way(call, reading, index, findings, written_error)
    findings.extend(attempt)
    if not _binds_alike(directive, reading, index):
        findings.append(_kept_as_written(call, reading))
    return directive


def dropped_line(reading: WranglerReading) -> RecipeError:
    """The warning for a line Wrangler drops without a word (its rewrite knows no such `set` form)."""
    return WranglerReadsDifferently(
        "Wrangler drops this line: its v1 rewrite knows only `set column` and `set columns`, and silently "
        "removes any other `set …` line.",
        line=reading.line,
        column=1,
        hint="Remove the line, or write the directive you meant.",
    )


def _wrangler_way(call: DirectiveCall, reading: WranglerReading, index: int, findings: list[RecipeError],
                  written_error: RecipeError) -> Directive | None:
    if reading.error is not None:
        raise _telling(call, written_error, reading.error)
    if reading.text is None:
        findings.append(dropped_line(reading))
        return None
    if len(reading.calls) != 1:
        raise written_error
    attempt: list[RecipeError] = []
    try:
        directive = bind(reading.calls[0], index, attempt, reading.placeholders)
    except RecipeError as wrangler_error:
        raise _telling(call, written_error, wrangler_error) from None
    findings.extend(attempt)
    ignored = _ignored(reading, reading.calls[0])
    if ignored is not None:
        findings.append(ignored)
    return directive


def _telling(call: DirectiveCall, written_error: RecipeError, wrangler_error: RecipeError) -> RecipeError:
    """Of two failures, the one that explains the line: Wrangler's own when the line reads as v1 (an
    unknown v2 name such as `filter-rows-on`, or a bare word where v2 wants a column or text)."""
    if isinstance(written_error, UnknownDirectiveError) or getattr(written_error, "bare_word", False):
        return wrangler_error
    return written_error


def _binds_alike(directive: Directive, reading: WranglerReading, index: int) -> bool:
    if reading.error is not None or reading.text is None or reading.ignored is not None or len(reading.calls) != 1:
        return False
    try:
        theirs = bind(reading.calls[0], index, None, reading.placeholders)
    except RecipeError:
        return False
    return theirs.name == directive.name and theirs.args_json() == directive.args_json()


def _kept_as_written(call: DirectiveCall, reading: WranglerReading) -> RecipeError:
    if reading.error is not None:
        what = f"Wrangler rejects this line ({reading.error.message.rstrip('.')})"
    elif reading.text is None:
        what = "Wrangler drops this line"
    else:
        what = f"Wrangler's v1 rewrite reads this line as `{excerpt(reading.text)}` and runs that"
        if reading.ignored is not None:
            what += f", ignoring '{excerpt(reading.ignored[0])}'"
    return WranglerReadsDifferently(
        f"{what}; it is kept as written here.",
        line=call.line,
        column=call.column,
        hint="Wrangler rewrites every line without exp: or prop: as if it were v1: quote text with spaces, "
             "and keep to one directive per line.",
        directive=call.name,
    )


def _ignored(reading: WranglerReading, call: DirectiveCall) -> RecipeError | None:
    if reading.ignored is None:
        return None
    text, column = reading.ignored
    return WranglerReadsDifferently(
        f"Wrangler ignores '{excerpt(text)}': its v1 rewrite reads no more of this line, and runs "
        f"`{excerpt(reading.text or '')}`.",
        line=reading.line,
        column=column,
        hint="Remove the extra words, or write the line in v2 syntax (:columns, 'quoted text').",
        directive=call.name,
    )
