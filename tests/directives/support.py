"""Helpers the directive-family declaration tests share: labels as JSON, family listings, conformance lines.

Each family's test module used to carry its own copy of these; one copy keeps the expected-label shorthands
(`rd`, `mod`, `new`) and the conformance filter identical across families, so a fix lands everywhere at once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from types import ModuleType
from typing import ClassVar

import pytest

import directives
from directives import REGISTRY
from grammar.errors import RecipeError
from tests.paths import CONFORMANCE


def family_names(module: ModuleType) -> list[str]:
    """The registered directive names declared in ``module``, sorted."""
    return sorted(name for name, cls in REGISTRY.items() if cls.__module__ == module.__name__)


def labels(text: str, schema: list[str] | None = None) -> list[list[dict[str, object]]]:
    """The labels of every step of ``text``, as JSON, one list per step."""
    return [[label.to_json() for label in step.labels] for step in directives.parse(text, schema).steps]


def step_labels(text: str, schema: list[str] | None = None) -> list[dict[str, object]]:
    """The labels of the only step of ``text``, as JSON (fails if ``text`` has more than one step)."""
    (only,) = labels(text, schema)
    return only


def assert_documented_with_example(name: str) -> None:
    """The directive has a description and an `Example:` line that parses back to it and describes itself."""
    cls = REGISTRY[name]
    assert cls.description() and not cls.description().startswith("Example")
    example = re.search(r"Example: `(.+)`", cls.__doc__ or "")
    assert example is not None, f"{name} has no Example: line"
    recipe = directives.parse(example.group(1))
    assert [step.directive.name for step in recipe.steps] == [name]
    assert recipe.steps[0].directive.describe()


# -- expected-label shorthands -----------------------------------------------------------------------------------------
def rd(column: str) -> dict[str, object]:
    return {"column": column, "label": "READ"}


def mod(column: str, *sources: str, masking: bool = False) -> dict[str, object]:
    """A MODIFY label; without ``sources`` the column is its own source."""
    data: dict[str, object] = {"column": column, "label": "MODIFY", "sources": list(sources or (column,))}
    return {**data, "masking": True} if masking else data


def new(column: str, *sources: str, pattern: bool = False) -> dict[str, object]:
    data: dict[str, object] = {"column": column, "label": "ADD"}
    if sources:
        data["sources"] = list(sources)
    return {**data, "pattern": True} if pattern else data


# -- conformance cases -------------------------------------------------------------------------------------------------
def first_word(line: str) -> str:
    words = line.split()
    return words[0] if words else ""


def conformance_lines(names: set[str], directive_name: Callable[[str], str] = first_word) -> list[tuple[str, str]]:
    """``(case id, line)`` for every line of a non-error case naming one of ``names``, each on its own.

    Lines are taken one by one because their neighbours in a case usually belong to other families.
    ``directive_name`` says which directive a line names (v1 spellings such as `set column` need their own rule).
    """
    if not CONFORMANCE.exists():
        return []
    found: list[tuple[str, str]] = []
    for record in CONFORMANCE.read_text(encoding="utf-8").splitlines():
        case = json.loads(record)
        if case["expect"].get("error") is True:
            continue
        found += [(case["id"], line) for text in case.get("directives", []) for line in text.split("\n")
                  if directive_name(line) in names]
    return found


def assert_error_at(text: str, error: type[RecipeError], line: int, column: int, fragment: str) -> RecipeError:
    """Parsing ``text`` fails with ``error`` pointing at ``line``:``column``, its message naming ``fragment``."""
    with pytest.raises(error) as caught:
        directives.parse(text)
    assert (caught.value.line, caught.value.column) == (line, column)
    assert fragment in caught.value.message
    return caught.value


def described(text: str) -> str:
    """What the first directive of ``text`` says it does (Wrangler's readable text)."""
    return directives.parse(text).steps[0].directive.describe()


def assert_parses_as_named(line: str) -> None:
    """``line`` (a conformance case's) parses to the one directive its first word names."""
    assert [step.directive.name for step in directives.parse(line).steps] == [line.split()[0]]


def assert_wrangler_accepts_with_warning(text: str, column: int, fragment: str, *, runnable: bool) -> None:
    """An argument value Wrangler does not check when it compiles a recipe: the recipe parses (as in Wrangler),
    and `wrangler check` reports one warning at the value, naming what Wrangler does with it.

    ``runnable``: whether `wrangler run` can still run it (otherwise it refuses the recipe with that message).
    """
    (step,) = directives.parse(text).steps
    findings = directives.validate(text)
    assert [(f.severity, f.rule, f.line, f.column) for f in findings] == [("warning", "arguments", 1, column)]
    assert fragment in findings[0].message and "Wrangler" in findings[0].message
    unrunnable = step.directive.unrunnable
    assert (unrunnable is None) is runnable
    if unrunnable is not None:
        assert unrunnable.severity == "error" and fragment in unrunnable.message


class FamilyDeclarations:
    """The checks every family's declarations pass. A family's test module subclasses it as ``TestDeclarations``,
    naming the catalogue module (``family``) and the usage Wrangler prints for each of its directives (``usages``,
    which also says which directives the family holds)."""

    family: ClassVar[ModuleType]
    usages: ClassVar[dict[str, str]]

    def test_the_family_is_complete(self) -> None:
        assert family_names(self.family) == sorted(self.usages)

    def test_usage_strings_match_wrangler(self) -> None:
        assert {name: REGISTRY[name].usage() for name in self.usages} == self.usages

    def test_every_declaration_documents_itself_with_an_example_that_parses(self) -> None:
        for name in self.usages:
            assert_documented_with_example(name)
