"""One call from a finished recipe run to stored lineage: what `wrangler run --store` uses.

    recorded = record_recipe_run(store, recipe, RecipeRunInfo(...))

builds the run's field operations from the recipe alone (READ each source column used, one
TRANSFORM per directive and output field, the WRITE synthesised by the recorder), validates them
through `LineageRecorder`, and stores them with each destination column's directive tree (the
backtracker's tree, INDIRECT influences included) for `wrangler history`. The data is never read:
the runner only passes the input schema (so whole-schema directives are exact) and the columns it
actually wrote (so data-dependent names such as `body_3` resolve to the directive that made them).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from directives.recipe import Recipe
from lineage.backtrack import Backtracker, ColumnLineage
from lineage.from_recipe import recipe_destination, recipe_operations
from lineage.model import DatasetRef, RunInfo
from lineage.recorder import LineageRecorder, LineageSink, RecordedRun


@dataclass(frozen=True)
class RecipeRunInfo:
    """Who ran what: the run's identity and its two datasets. Times are epoch seconds."""

    namespace: str
    source_name: str
    destination_name: str
    run_id: str
    start: int = field(default_factory=lambda: int(time.time()))
    end: int | None = None
    status: str = "COMPLETED"
    program: str = "wrangler"
    source_properties: Mapping[str, str] = field(default_factory=dict)
    destination_properties: Mapping[str, str] = field(default_factory=dict)
    destination_description: str = ""


def recipe_run_lineage(
    recipe: Recipe, info: RecipeRunInfo, columns: Sequence[str] | None = None
) -> tuple[RecordedRun, dict[str, dict[str, Any]]]:
    """The validated `RecordedRun` of a recipe run and each destination column's directive tree.

    ``columns`` are the columns the run wrote (default: the recipe's output columns known by name; a run names
    the members of data-named families such as ``body_<n>``).
    """
    backtracker = Backtracker(recipe)
    # A pattern two directives generate (`split-to-columns` twice) is listed once per slot; a destination field once.
    fields = list(dict.fromkeys(columns if columns is not None else backtracker.final_columns()))
    lineages: dict[str, ColumnLineage] = {name: backtracker.lineage(name) for name in fields}
    source = DatasetRef(namespace=info.namespace, name=info.source_name, properties=dict(info.source_properties))
    operations = recipe_operations(recipe, source, fields, lineages)
    destination = recipe_destination(
        info.destination_name, fields, namespace=info.namespace, properties=dict(info.destination_properties),
        description=info.destination_description,
    )
    run = RunInfo(namespace=info.namespace, program=info.program, run_id=info.run_id, start=info.start,
                  end=info.end, status=info.status)
    recorded = LineageRecorder(run).record(destination, operations)
    history = {name: item.to_tree() for name, item in lineages.items()}
    return recorded, history


def record_recipe_run(
    sink: LineageSink, recipe: Recipe, info: RecipeRunInfo, columns: Sequence[str] | None = None
) -> RecordedRun:
    """Build a run's lineage (`recipe_run_lineage`) and store it with its column histories."""
    recorded, history = recipe_run_lineage(recipe, info, columns)
    sink.record_run(recorded, history)
    return recorded
