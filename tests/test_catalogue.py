"""The whole catalogue against the spec: all 84 directive names of §2, each usage string to the character.

The list comes from the spec's markdown tables, not from our code, so a directive that is
missing, misnamed or whose usage drifts fails here. Names of families still being built on
other branches are expected failures until they are merged.
"""

from __future__ import annotations

import re

import pytest

import directives
from directives import REGISTRY
from directives.base import ArgKind
from tests.paths import SHARED

SPEC = SHARED / "reference" / "wrangler-spec.md"

#: Spec §2 sections whose directives other families are building (parsers, dates, external, quality).


def _catalogue() -> dict[str, str]:
    """Directive name → usage string from the §2 tables."""
    text = SPEC.read_text()
    section = text[text.index("## 2. Directive catalogue"):text.index("## 3. Lineage")]
    usages: dict[str, str] = {}
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
        names = re.findall(r"`([^`]+)`", cells[0])
        code = [found.group(1) for found in (re.match(r"`([^`]*)`", cell) for cell in cells[1:]) if found]
        usage = next(text for text in code if text.startswith(names[0])).replace("\\|", "|")
        for name in names:
            # `ltrim` / `rtrim` / `trim` share one row whose usage names the first of them
            usages[name] = name + usage[len(names[0]):]
    return usages


USAGES = _catalogue()


def _usage_pattern(usage: str) -> re.Pattern[str]:
    """The spec elides long lists with `…` (validate-standard's standards); anything non-empty fits there."""
    return re.compile(".+".join(re.escape(part) for part in usage.split("…")))


def _declared(name: str) -> type[directives.Directive]:
    if name not in REGISTRY:
        pytest.fail(f"directive {name!r} of spec §2 is not declared")
    return REGISTRY[name]


def test_the_spec_lists_84_directives() -> None:
    assert len(USAGES) == 84
    assert {"flatten", "split-to-rows", "set-type", "write-as-json-object", "validate-standard"} <= set(USAGES)


def test_nothing_is_declared_that_the_spec_does_not_list() -> None:
    assert sorted(set(REGISTRY) - set(USAGES)) == []


@pytest.mark.parametrize("name", sorted(USAGES))
def test_usage_is_wrangler_usage_to_the_character(name: str) -> None:
    cls = _declared(name)
    assert _usage_pattern(USAGES[name]).fullmatch(cls.usage()), (cls.usage(), USAGES[name])


@pytest.mark.parametrize("name", sorted(USAGES))
def test_docstring_has_a_description_and_an_example_that_parses_and_binds(name: str) -> None:
    cls = _declared(name)
    assert cls.description(), f"{name} has no description"
    assert not cls.description().startswith("Example")
    found = re.search(r"^\s*Example: `(.+)`\s*$", cls.__doc__ or "", re.MULTILINE)
    assert found is not None, f"{name} has no 'Example: `…`' line"
    recipe = directives.parse(found.group(1))
    assert [step.directive.name for step in recipe.steps] == [name]
    assert isinstance(recipe.steps[0].directive, cls)


def test_deprecated_directives_are_the_two_the_spec_names() -> None:
    deprecated = sorted(name for name, cls in REGISTRY.items() if cls.deprecated)
    assert deprecated == ["indexsplit", "split"]


# -- bad arguments, for every directive --------------------------------------------------------------------------------
#: A well-formed token of each argument kind, to build a call whose only fault is the one a test puts in.
_GOOD_TOKEN = {
    ArgKind.COLUMN: ":c", ArgKind.COLUMN_LIST: ":c,:d", ArgKind.BOOL: "true", ArgKind.TEXT: "'t'",
    ArgKind.IDENTIFIER: "ident", ArgKind.NUMBER: "1", ArgKind.TEXT_LIST: "'a','b'", ArgKind.NUMBER_LIST: "1,2",
    ArgKind.BOOL_LIST: "true,false", ArgKind.EXPRESSION: "exp:{a}", ArgKind.PROPERTIES: "prop:{a=b}",
    ArgKind.RANGES: "1:2='x'",
}
_WITH_REQUIRED = sorted(name for name, cls in REGISTRY.items() if any(not a.optional for a in cls.signature))


@pytest.mark.parametrize("name", _WITH_REQUIRED)
def test_missing_arguments_point_at_the_directive_with_its_usage(name: str) -> None:
    with pytest.raises(directives.RecipeError) as raised:
        directives.parse(f"drop :x\n  {name}")
    first = raised.value.errors[0]
    assert (first.line, first.column) == (2, 3)
    assert all(error.line == 2 for error in raised.value.errors)
    assert name in str(first)


@pytest.mark.parametrize("name", _WITH_REQUIRED)
def test_a_wrong_argument_type_points_at_the_token_and_names_the_argument(name: str) -> None:
    required = [arg for arg in REGISTRY[name].signature if not arg.optional]
    wrong = ":c" if required[0].kind is ArgKind.PROPERTIES else "prop:{z=1}"
    tokens = [wrong, *(_GOOD_TOKEN[arg.kind] for arg in required[1:])]
    with pytest.raises(directives.RecipeError) as raised:
        directives.parse(f"drop :x\n  {name} {' '.join(tokens)}")
    first = raised.value.errors[0]
    assert (first.line, first.column) == (2, 4 + len(name))  # the wrong token, after "  <name> "
    assert f"'{required[0].name}'" in str(first) and f"'{name}'" in str(first)


# -- v1 forms: the rewrite table is their one source -------------------------------------------------------------------
def test_every_v1_rewrite_target_is_a_directive_or_one_wrangler_lacks_too() -> None:
    from grammar.migrate import V1_TARGET_UNKNOWN, v1_targets

    assert {name for name in v1_targets() if name not in REGISTRY} == V1_TARGET_UNKNOWN


def test_a_declarations_v1_forms_are_the_rewrites_that_produce_it() -> None:
    from grammar.migrate import migrate_line

    assert REGISTRY["rename"].v1_forms == ("rename <old> <new>",)
    assert set(REGISTRY["filter-row"].v1_forms) == {
        "filter-row-if-true <condition>", "filter-row-if-false <condition>",
        "filter-rows-on condition-true <condition>", "filter-rows-on condition-false <condition>"}
    for name, cls in REGISTRY.items():
        for form in cls.v1_forms:  # each form, filled with plain words, rewrites to this directive
            words = [word if not word.startswith(("<", "[")) else "x" for word in form.split()]
            migrated = migrate_line(" ".join(words))
            assert migrated is not None and migrated.split(" ", 1)[0].rstrip(";") == name, form
