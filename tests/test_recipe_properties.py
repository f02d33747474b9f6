"""Property: whatever text reaches `directives.parse`, the only exception it raises is a `RecipeError`.

Recipes come from users, CI files and HTTP requests; a crash (IndexError, AssertionError, a Lark
exception leaking out) would turn a bad recipe into a 500 or a traceback instead of a message with a
line and column. Two generators: arbitrary text biased towards the language's own characters, and
valid recipes (every catalogue example, conformance lines) mutated by deleting, duplicating,
swapping and inserting characters and tokens.
"""

from __future__ import annotations

import json
import re

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import directives
from directives import REGISTRY
from grammar.errors import RecipeError
from tests.paths import CONFORMANCE


def _valid_lines() -> list[str]:
    lines = []
    for cls in REGISTRY.values():
        found = re.search(r"Example: `(.+)`", cls.__doc__ or "")
        if found:
            lines.append(found.group(1))
    for record in CONFORMANCE.read_text().splitlines():
        if record.strip():
            lines += [line for text in json.loads(record)["directives"] for line in text.split("\n") if line.strip()]
    return sorted(set(lines))


VALID = _valid_lines()
#: Pieces of the language: the characters and tokens most likely to reach odd corners of the grammar.
PIECES = [
    ":", ";", ",", "'", '"', "{", "}", "(", ")", "[", "]", "exp:{", "prop:{", "#pragma", "#", "//", "/*", "*/",
    "--", "${", "$", "\\", "\n", " ", "\t", "=", "1:2=", "-", "0", "-5", "1.5", "10L", "true", "false", "if",
    "else", "exp", "prop", "version", "load-directives", "null", ":a", "'x'", "a", "é", "\u2028", "\x00",
    "set column", "set columns", "filter-rows-on", "set", "drop", "rename", "flatten", "split-to-rows",
]


def _assert_only_recipe_errors(text: str) -> None:
    try:
        recipe = directives.parse(text)
    except RecipeError as error:
        assert str(error)  # renders
        for item in error.errors:
            assert isinstance(item, RecipeError)
            assert item.to_dict()["message"]
        return
    for step in recipe.steps:  # a recipe that parses can be described and serialised
        assert step.directive.name in REGISTRY
        step.directive.describe()
        json.dumps(step.directive.args_json())


_text = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=6)), max_size=30).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_text)
@example("set column x var a; a + 1")
@example("set column#pragma")
@example("set column x exp:{a}")
@example("mask-number ssn xxx-xx-####")
@example("if (a) {\ndrop :a\n} else {")
@example("exp:{")
@example("prop:{a=1")
@example("${a${b}")
@example("quantize :a :b 1:2=")
@example("set")
@example("filter-rows-on")
@example("#pragma load-directives ;")
@example("set-record-delim :body ',' -1")
def test_arbitrary_text_raises_only_recipe_errors(text: str) -> None:
    _assert_only_recipe_errors(text)


@st.composite
def _mutated(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.sampled_from(VALID), min_size=1, max_size=4))
    text = "\n".join(lines)
    for _ in range(draw(st.integers(1, 4))):
        if not text:
            break
        position = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(("delete", "insert", "duplicate", "swap", "truncate")))
        if action == "delete":
            end = draw(st.integers(position, min(len(text), position + 5)))
            text = text[:position] + text[end:]
        elif action == "insert":
            text = text[:position] + draw(st.sampled_from(PIECES)) + text[position:]
        elif action == "duplicate":
            end = draw(st.integers(position, min(len(text), position + 8)))
            text = text[:end] + text[position:end] + text[end:]
        elif action == "swap" and position + 1 < len(text):
            text = text[:position] + text[position + 1] + text[position] + text[position + 2:]
        else:
            text = text[:position]
    return text


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mutated())
def test_mutated_valid_recipes_raise_only_recipe_errors(text: str) -> None:
    _assert_only_recipe_errors(text)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(VALID), min_size=1, max_size=6))
def test_valid_lines_parse_alone_and_together(lines: list[str]) -> None:
    """Each line that parses on its own parses the same way inside a longer recipe."""
    alone = []
    for line in lines:
        try:
            alone.append([step.directive.name for step in directives.parse(line).steps])
        except RecipeError:
            return  # a conformance line may be meant to fail (error cases); the first property covers it
    together = directives.parse("\n".join(lines))
    assert [step.directive.name for step in together.steps] == [name for names in alone for name in names]


def test_there_are_valid_lines_to_mutate() -> None:
    assert len(VALID) > 100
