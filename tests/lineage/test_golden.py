"""Golden lineage: one fixture per directive of the catalogue, and hand-written hard cases.

Part 1 replays ``golden/directives/<name>.recipe`` against the ``<name>.lineage.json`` beside it (the
schema it is bound with and the document ``wrangler lineage --format json`` prints, with and without
that schema); the loader and the update workflow are in ``golden_fixtures.py``. Every directive of the
registry has a fixture, and every fixture's recipe uses its directive.

Part 2 replays `golden/hard_cases.json` (swap, merge, split-*, set-headers, keep, columns-replace,
change-column-case, cleanse-column-names, parse-as-csv, filters, masking, rename chains, drop-then-re-add).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import directives
from directives.labels import Label
from lineage.backtrack import SOURCE, UNRESOLVED, Backtracker, ColumnLineage, LineageNode
from tests.lineage.golden_fixtures import UPDATE, Fixture, fixtures, lineage_document, write

GOLDEN = Path(__file__).parent / "golden" / "hard_cases.json"
FIXTURES = fixtures()

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


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda fixture: fixture.name)
def test_golden_lineage_of_each_directive(fixture: Fixture) -> None:
    expected = fixture.expected()
    schema = list(expected["schema"])
    if UPDATE:
        write(fixture.recipe_path.parent, fixture.name, fixture.recipe, schema)
        expected = fixture.expected()
    assert lineage_document(fixture.recipe, schema) == expected["lineage"], (
        f"{fixture.name}: lineage differs from {fixture.expected_path.name}; if intended, regenerate "
        "with WRANGLER_UPDATE_GOLDEN=1 and review the diff")
    assert lineage_document(fixture.recipe, None) == expected["without_schema"], fixture.name
    recipe = directives.parse(fixture.recipe, schema)
    assert recipe.steps[0].directive.name == fixture.name, "a fixture's first directive is the one it is named after"
    for item in Backtracker(recipe).all().values():
        check_well_formed(item)
        assert set(item.sources) <= set(schema), f"{fixture.name}: a source outside the schema"


def test_every_directive_has_a_golden_fixture() -> None:
    assert sorted(fixture.name for fixture in FIXTURES) == sorted(directives.REGISTRY)


# --------------------------------------------------------------------------- hand-written goldens


def _cases() -> list[dict[str, Any]]:
    return list(json.loads(GOLDEN.read_text())["cases"])


def _node_json(node: LineageNode) -> dict[str, Any]:
    return node.to_json()


@pytest.mark.parametrize("case", _cases(), ids=lambda case: case["name"])
def test_hard_case(case: dict[str, Any]) -> None:
    assert set(case.get("requires", [])) <= set(directives.REGISTRY), "a hard case names an unknown directive"
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
