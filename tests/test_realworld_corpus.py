"""The 150 real-world recipes of `../shared/realworld/` agree with real Wrangler's verdict on each.

A recipe Wrangler accepts parses, binds and gets lineage here; one it rejects fails with an error that
has a line, a column, a reason and a hint, on the line Wrangler fails on, of the kind Wrangler fails
with (a syntax error, an unknown directive, an expression that does not compile). What Wrangler says
is read from `verdicts.jsonl` itself (its stage, its message, its line in the rewritten recipe), not
restated here. The folder is never copied into the project: without it (a CI clone) the test skips.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import directives
from directives.udd import load_udds
from grammar.errors import (
    ExpressionSyntaxError,
    RecipeError,
    RecipeSyntaxError,
    UnknownDirectiveError,
)
from grammar.migrate import migrate_line
from lineage.backtrack import Backtracker
from tests.paths import ROOT, SHARED

REALWORLD = SHARED / "realworld"


def _records(name: str) -> list[dict[str, Any]]:
    path = REALWORLD / name
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


RECIPES = _records("recipes.jsonl")
VERDICTS = {verdict["id"]: verdict for verdict in _records("verdicts.jsonl")}
pytestmark = pytest.mark.skipif(not RECIPES, reason="../shared/realworld is not beside this clone")

ACCEPTED = [record for record in RECIPES if VERDICTS[record["id"]]["wrangler_accepts"]]
REJECTED = [record for record in RECIPES if not VERDICTS[record["id"]]["wrangler_accepts"]]


def test_the_corpus_is_whole() -> None:
    assert len(RECIPES) == 150 and set(VERDICTS) == {record["id"] for record in RECIPES}
    assert (len(ACCEPTED), len(REJECTED)) == (120, 30)


@pytest.mark.parametrize("record", ACCEPTED, ids=[record["id"] for record in ACCEPTED])
def test_what_wrangler_accepts_parses_binds_and_gets_lineage(record: dict[str, Any]) -> None:
    recipe = directives.parse(record["recipe"])
    assert all(finding.severity == "warning" for finding in recipe.findings)
    wrangler_count = _wrangler_directive_count(VERDICTS[record["id"]]["migrated"])
    assert len(recipe.steps) == wrangler_count
    lineages = Backtracker(recipe).all()
    indexes = {step.index for step in recipe.steps}
    for name, lineage in lineages.items():
        assert set(lineage.directives) <= indexes, name
        json.dumps(lineage.to_json())
    # the last directive that makes a column (by name, for good) is in that column's lineage
    backtracker = Backtracker(recipe)
    settled: set[str] = set()  # names a later directive makes, drops or renames away
    for step in reversed(recipe.steps):
        for label in step.labels:
            kind = label.label.value
            if label.pattern or not label.exact:
                if kind in ("DROP", "RENAME"):
                    return  # a whole-schema change: later names are not traceable by name alone
                continue
            if kind in ("DROP", "RENAME", "SWAP"):
                settled.add(label.column.lower())
            if kind in ("RENAME", "SWAP") and label.to:
                made = label.to
            elif kind in ("ADD", "MODIFY"):
                made = label.column
            else:
                continue
            if made.lower() in settled:
                continue
            settled.add(made.lower())
            assert step.index in backtracker.all([made])[made].directives, (step.index, made)


def _wrangler_directive_count(migrated: str) -> int:
    """How many directives Wrangler compiles from its rewrite: one per `;`-ended line that is not a pragma,
    a `--` comment or a macro (the rewrite leaves one directive per line)."""
    count = 0
    for line in migrated.split("\n"):
        stripped = line.strip()
        if not stripped or stripped.startswith(("#pragma", "--", "//", "$")):
            continue
        count += 1
    return count


@pytest.mark.parametrize("record", REJECTED, ids=[record["id"] for record in REJECTED])
def test_what_wrangler_rejects_fails_clearly_where_wrangler_fails(record: dict[str, Any]) -> None:
    verdict = VERDICTS[record["id"]]
    text = record["recipe"]
    with pytest.raises(RecipeError) as raised:
        directives.parse(text)
    errors = raised.value.errors
    for error in errors:
        assert error.line is not None and error.column is not None and error.column >= 1, error
        assert error.message and error.hint, error
        assert error.snippet and "^" in error.snippet, error
    stage, message = verdict["wrangler_stage"], verdict["wrangler_error"] or ""
    if stage == "notfound":
        name = re.search(r"Directive '([^']+)' not found", message).group(1)  # type: ignore[union-attr]
        unknown = [error for error in errors if isinstance(error, UnknownDirectiveError)]
        assert unknown and unknown[0].directive == name
        assert unknown[0].line == _first_line_naming(text, name)
        if verdict["udd"]:
            assert "--udd" in (unknown[0].hint or "")
    elif stage == "syntax":
        wrangler_line = _physical_line(text, int(re.search(r"At line (\d+):", message).group(1)))  # type: ignore[union-attr]
        first = min(errors, key=lambda error: (error.line or 0))
        assert isinstance(first, RecipeSyntaxError)
        # Wrangler's quoted text runs on across lines, so an unclosed quote fails only on a later line; we
        # point at the quote itself
        previous = text.split("\n")[wrangler_line - 2] if wrangler_line > 1 else ""
        allowed = {wrangler_line} | ({wrangler_line - 1} if previous.count("'") % 2 else set())
        assert first.line in allowed
    elif stage == "initialize":  # the JEXL expression does not compile
        assert any(isinstance(error, ExpressionSyntaxError | RecipeSyntaxError) for error in errors)
    else:
        assert stage == "migrate"
        wrangler_line = int(re.search(r"line number (\d+)", message).group(1))  # type: ignore[union-attr]
        assert any(isinstance(error, RecipeSyntaxError) and error.line == _rewritten_line(text, wrangler_line)
                   for error in errors)


def _physical_line(text: str, migrated_line: int) -> int:
    """The line of ``text`` that is line ``migrated_line`` of Wrangler's rewrite (which drops comments)."""
    kept = 0
    for number, line in enumerate(text.split("\n"), start=1):
        try:
            migrated = migrate_line(line, number)
        except RecipeError:
            migrated = line
        if migrated is not None:
            kept += 1
            if kept == migrated_line:
                return number
    raise AssertionError(f"no line {migrated_line} in the rewrite")


def _rewritten_line(text: str, counted: int) -> int:
    """The line MigrateToV2 calls line ``counted`` in its messages: it counts only the lines that reach its
    switch (not blank, comment, `#pragma`, `exp:` or `prop:` lines)."""
    seen = 0
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith(("//", "#")) or "exp:" in stripped or "prop:" in stripped:
            continue
        seen += 1
        if seen == counted:
            return number
    raise AssertionError(f"no line {counted} reaches the rewrite")


def _first_line_naming(text: str, name: str) -> int:
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip().split(" ", 1)[0].rstrip(";") == name:
            return number
    raise AssertionError(f"{name} is not in the recipe")


SEND_TO_ERROR_DOCS = [record for record in REJECTED if VERDICTS[record["id"]]["wrangler_stage"] == "initialize"]


@pytest.mark.parametrize("record", SEND_TO_ERROR_DOCS, ids=[record["id"] for record in SEND_TO_ERROR_DOCS])
def test_wrangler_check_flags_the_expressions_wrangler_cannot_compile(record: dict[str, Any]) -> None:
    assert len(SEND_TO_ERROR_DOCS) == 2
    findings = directives.validate(record["recipe"])
    assert any(finding.severity == "error" for finding in findings)


USER_DEFINED = [record for record in REJECTED if VERDICTS[record["id"]]["udd"]]


@pytest.mark.parametrize("record", USER_DEFINED, ids=[record["id"] for record in USER_DEFINED])
def test_declared_udds_make_the_udd_recipes_parse_check_and_get_lineage(record: dict[str, Any]) -> None:
    udds = load_udds([ROOT / "tests" / "data" / "udd" / "cdap-udds.toml"])
    recipe = directives.parse(record["recipe"], udds=udds)
    assert any(getattr(step.directive, "user_defined", False) for step in recipe.steps)
    assert [f for f in directives.validate(record["recipe"], udds=udds) if f.severity == "error"] == []
    for name, lineage in Backtracker(recipe).all().items():
        assert set(lineage.directives) <= {step.index for step in recipe.steps}, name
