"""The one loader of golden lineage fixtures: a recipe file and its expected lineage JSON side by side.

``golden/directives/<name>.recipe`` holds a recipe; ``<name>.lineage.json`` beside it holds the schema
the recipe is bound with and the lineage document ``wrangler lineage --format json`` prints for it.
The expectation is a file a reviewer reads in a diff, never something a test rebuilds from the code
under test: when a change of lineage is intended, regenerate with

    WRANGLER_UPDATE_GOLDEN=1 python -m pytest tests/lineage/test_golden.py

and review the diff of ``tests/lineage/golden/`` before committing it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import directives
from lineage.backtrack import Backtracker
from lineage.render import to_document

GOLDEN_DIR = Path(__file__).parent / "golden" / "directives"
UPDATE = os.environ.get("WRANGLER_UPDATE_GOLDEN") == "1"


@dataclass(frozen=True)
class Fixture:
    name: str
    recipe_path: Path

    @property
    def expected_path(self) -> Path:
        return self.recipe_path.with_suffix(".lineage.json")

    @property
    def recipe(self) -> str:
        return self.recipe_path.read_text(encoding="utf-8")

    def expected(self) -> dict[str, Any]:
        return dict(json.loads(self.expected_path.read_text(encoding="utf-8")))


def fixtures(directory: Path = GOLDEN_DIR) -> list[Fixture]:
    return [Fixture(path.stem, path) for path in sorted(directory.glob("*.recipe"))]


def lineage_document(recipe: str, schema: list[str] | None) -> dict[str, Any]:
    """What ``wrangler lineage --format json`` prints for ``recipe`` bound with ``schema``."""
    backtracker = Backtracker(directives.parse(recipe, schema))
    return dict(to_document(backtracker.all(), backtracker.generated()))


def write(fixture_dir: Path, name: str, recipe: str, schema: list[str]) -> Fixture:
    """Write a fixture pair (used only in update mode and by hand when adding a directive)."""
    fixture_dir.mkdir(parents=True, exist_ok=True)
    recipe_path = fixture_dir / f"{name}.recipe"
    recipe_path.write_text(recipe if recipe.endswith("\n") else recipe + "\n", encoding="utf-8")
    fixture = Fixture(name, recipe_path)
    document = {"schema": schema, "without_schema": lineage_document(fixture.recipe, None),
                "lineage": lineage_document(fixture.recipe, schema)}
    fixture.expected_path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return fixture
