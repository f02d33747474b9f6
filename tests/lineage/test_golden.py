"""Golden lineage: every directive of the catalogue, and hand-written hard cases.

Part 1 walks `directives.REGISTRY` as it is when the tests run (other families keep adding
directives): each directive's docstring `Example:` recipe is parsed with a schema made of the
columns it names plus a bystander column, and its lineage is checked against the directive's own
labels — generically, as the backtracker itself works: what a label says a directive made must be
what the lineage says made that column. The same example without a schema must still give a
well-formed answer, flagged wherever it is over-approximated.

Part 2 replays `golden/hard_cases.json` (swap, merge, split-*, set-headers, keep, columns-replace,
change-column-case, cleanse-column-names, parse-as-csv, filters, masking, rename chains, drop-then-re-add).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import directives
from directives.base import RowEffect
from directives.labels import ColumnLabel, Label
from lineage.backtrack import SOURCE, UNRESOLVED, Backtracker, ColumnLineage, LineageNode

GOLDEN = Path(__file__).parent / "golden" / "hard_cases.json"
BYSTANDER = "zz_bystander"
_EXAMPLE = re.compile(r"Example:\s*`([^`]+)`")


def example_of(cls: type[directives.Directive]) -> str | None:
    match = _EXAMPLE.search(cls.__doc__ or "")
    return match.group(1) if match else None


def named_columns(recipe: directives.Recipe) -> list[str]:
    """The input columns an example names (what a user's schema would at least hold)."""
    names: list[str] = []
    for step in recipe.steps:
        for label in step.labels:
            candidates: list[str] = []
            if label.pattern or not label.exact:
                continue
            if label.label in (Label.READ, Label.MODIFY, Label.DROP, Label.RENAME):
                candidates.append(label.column)
            if label.label is Label.SWAP and label.to:
                candidates += [label.column, label.to]
            if label.label in (Label.ADD, Label.MODIFY):
                candidates += list(label.sources)
            names += [name for name in candidates if not name.startswith("#") and name != "*"]
    return list(dict.fromkeys(names))


def produced(label: ColumnLabel) -> str | None:
    """The output name a label promises (a generated pattern such as `body_<n>` is listed under that name)."""
    if label.pattern:
        return label.column if label.label is Label.ADD else None
    if label.label in (Label.RENAME, Label.SWAP):
        return label.to
    if label.label in (Label.ADD, Label.MODIFY):
        return label.column
    return None


def lower_map(lineages: dict[str, ColumnLineage]) -> dict[str, ColumnLineage]:
    return {name.lower(): item for name, item in lineages.items()}


def check_well_formed(item: ColumnLineage) -> None:
    document = item.to_document()
    assert set(document) == {"sources", "directives", "tree"}
    json.dumps(document)  # serialisable
    assert document["directives"] == sorted(set(document["directives"]))
    for node in item.tree.walk():
        if node.directive is None:
            assert node.label in (SOURCE, UNRESOLVED)
            assert not node.upstream
        else:
            assert node.label in {label.value for label in Label}
            assert node.type in ("DIRECT", "INDIRECT")
    # The column-level precision flag is the conjunction of the edges'.
    assert item.exact == (all(n.exact for n in item.tree.walk())
                          and all(n.exact for i in item.indirect for n in i.walk()))
    for influence in item.indirect:
        assert influence.type == "INDIRECT" and influence.directive is not None


REGISTRY_NAMES = sorted(directives.REGISTRY)


@pytest.mark.parametrize("name", REGISTRY_NAMES)
def test_every_directive_example_has_sensible_lineage(name: str) -> None:
    cls = directives.REGISTRY[name]
    text = example_of(cls)
    assert text is not None, f"{name}: the docstring has no `Example:` recipe"
    loose = directives.parse(text)
    schema = [*named_columns(loose), BYSTANDER]
    recipe = directives.parse(text, schema)
    assert len(recipe.steps) == 1
    step = recipe.steps[0]
    lineages = Backtracker(recipe).all()
    by_name = lower_map(lineages)
    schema_lower = {column.lower() for column in schema}
    for item in lineages.values():
        check_well_formed(item)
        assert {s.lower() for s in item.sources} <= schema_lower, f"{name}: a source outside the schema"

    touched = False
    for label in step.labels:
        made = produced(label)
        if made is not None and made.lower() in by_name:
            item = by_name[made.lower()]
            touched = True
            assert item.tree.directive is not None and item.tree.directive.index == 1, f"{name}: {made}"
            assert item.tree.label == label.label.value
            assert 1 in item.path_directives
            if label.label in (Label.RENAME, Label.SWAP) and not label.column.startswith("#"):
                assert [s.lower() for s in item.sources] == [label.column.lower()]
                assert item.tree.before == label.column
            elif label.label in (Label.ADD, Label.MODIFY):
                expected = {s.lower() for s in label.sources if s.lower() in schema_lower}
                assert {s.lower() for s in item.sources} == expected, f"{name}: sources of {made}"
                assert item.tree.subtype == label.kind.value
                if label.masking:
                    assert item.tree.masking
                    assert all(t.masking for t in item.transformations() if t.type == "DIRECT")
        if label.label is Label.DROP and not label.pattern and label.exact:
            remade = any(produced(other) and produced(other).lower() == label.column.lower()  # type: ignore[union-attr]
                         for other in step.labels)
            if not remade:
                touched = True
                assert label.column.lower() not in by_name, f"{name}: dropped {label.column} is still an output"

    filters = cls.row_effect in (RowEffect.FILTER, RowEffect.ERROR, RowEffect.ABORT) or any(
        label.label is Label.READ and not label.kind.is_direct for label in step.labels
    )
    if filters:
        touched = True
        for item in lineages.values():
            assert 1 in item.indirect_directives, f"{name}: a filter must reach every column"
            assert any(node.subtype == "FILTER" or not node.direct for node in item.indirect)
    if not touched:
        # Only reads (transient variables, writers with nothing to write): the columns pass through untouched.
        assert all(label.label is Label.READ or label.pattern or not label.exact for label in step.labels), name
        for column in schema:
            if column.lower() in by_name:
                assert by_name[column.lower()].sources == [column]
    bystander = by_name.get(BYSTANDER)
    if bystander is not None and not any(label.column == BYSTANDER or label.pattern for label in step.labels):
        assert bystander.sources == [BYSTANDER]
        assert bystander.path_directives == []

    # Without a schema the answer is still well formed, and every inexact edge says so.
    loose_lineages = Backtracker(loose).all()
    for item in loose_lineages.values():
        check_well_formed(item)


def test_the_registry_is_not_empty_and_examples_are_one_directive() -> None:
    assert len(REGISTRY_NAMES) >= 40
    assert {"rename", "swap", "merge", "keep", "set-headers"} <= set(REGISTRY_NAMES)


# --------------------------------------------------------------------------- hand-written goldens


def _cases() -> list[dict[str, Any]]:
    return list(json.loads(GOLDEN.read_text())["cases"])


def _node_json(node: LineageNode) -> dict[str, Any]:
    return node.to_json()


@pytest.mark.parametrize("case", _cases(), ids=lambda case: case["name"])
def test_hard_case(case: dict[str, Any]) -> None:
    missing = [name for name in case.get("requires", []) if name not in directives.REGISTRY]
    if missing:
        pytest.skip(f"not declared yet: {', '.join(missing)}")
    recipe = directives.parse(case["recipe"], case["schema"])
    backtracker = Backtracker(recipe)
    if "final_columns" in case:
        assert backtracker.final_columns() == case["final_columns"]
        # a data-named family is never an output column: it is listed apart
        assert [family.pattern for family in backtracker.generated()] == case.get("generated", [])
    lineages = backtracker.all([*backtracker.final_columns(), *case.get("ask", [])])
    for column, expected in case["columns"].items():
        assert column in lineages, f"{column} is not an output: {list(lineages)}"
        item = lineages[column]
        check_well_formed(item)
        if "sources" in expected:
            assert sorted(item.sources) == sorted(expected["sources"]), column
        if "directives" in expected:
            assert item.directives == expected["directives"], column
        if "path" in expected:
            assert item.path_directives == expected["path"], column
        if "exact" in expected:
            assert item.exact is expected["exact"], column
        root = _node_json(item.tree)
        for key, value in expected.get("root", {}).items():
            actual = root.get(key, False if key == "masking" else None)
            assert actual == value, f"{column}: root {key} is {actual!r}, expected {value!r}"
        if "transformations" in expected:
            actual_t = sorted(json.dumps(t.to_json(), sort_keys=True) for t in item.transformations())
            wanted = sorted(json.dumps({**t, **({"masking": True} if t.get("masking") else {})}, sort_keys=True)
                            for t in expected["transformations"])
            # exactness of each transformation is checked through `exact` above; compare the typing
            actual_t = sorted(json.dumps({k: v for k, v in json.loads(t).items() if k != "exact"}, sort_keys=True)
                              for t in actual_t)
            wanted = sorted(json.dumps({k: v for k, v in json.loads(t).items() if k != "masking" or v}, sort_keys=True)
                            for t in wanted)
            assert actual_t == wanted, column
        if "influences" in expected:
            actual_i = [[node.subtype, node.directive.index if node.directive else None,
                         [child.column for child in node.upstream]] for node in item.indirect]
            assert actual_i == expected["influences"], column


def test_golden_file_covers_the_hard_cases_the_issue_names() -> None:
    recipes = "\n".join(case["recipe"] for case in _cases())
    for directive in ("swap", "merge", "split-to-columns", "set-headers", "keep", "columns-replace",
                      "change-column-case", "cleanse-column-names", "parse-as-csv", "filter-row", "hash",
                      "mask-number", "mask-shuffle", "rename", "drop"):
        assert directive in recipes, directive
