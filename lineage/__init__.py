"""Field-level lineage: the program API (model, recorder), pure graph functions, and the store.

Kept light on purpose: importing ``lineage`` pulls in pydantic only — never pyspark, never the
store (``from lineage.store import SQLiteLineageStore`` when you need it).

Static lineage of a recipe (no data, no Spark)::

    from lineage.backtrack import Backtracker
    recipe = directives.parse(text, schema)          # schema optional: makes whole-schema directives exact
    for name, item in Backtracker(recipe).all().items():
        item.sources, item.directives, item.tree, item.transformations()

Recording a recipe run (what `wrangler run --store` does once the run has finished)::

    from lineage import RecipeRunInfo, record_recipe_run
    from lineage.store import SQLiteLineageStore, default_path

    store = SQLiteLineageStore(path or default_path())
    info = RecipeRunInfo(namespace=ns, source_name=src, destination_name=dst, run_id=run_id,
                         start=started, end=ended, status="COMPLETED")
    recorded = record_recipe_run(store, recipe, info, columns=written_columns)   # -> RecordedRun

Building the parts yourself: the column history a run stores is ``ColumnLineage.to_tree()`` (the tree
with its INDIRECT influences on the root), which `wrangler history` and ``max_levels`` expect.

``recipe`` is parsed with the input DataFrame's column names as schema; ``columns`` are the
columns actually written (data-dependent names such as ``body_3`` resolve to their directive).
`recipe_run_lineage` gives the same ``RecordedRun`` and column trees without storing them.
A run id recorded twice with the same lineage is a no-op; with different lineage it raises
`RunConflictError`.
"""

from __future__ import annotations

from lineage.errors import (
    LineageError,
    LineageValidationError,
    Problem,
    QueryError,
    RunConflictError,
    RunNotFoundError,
)
from lineage.model import (
    DatasetRef,
    Destination,
    Direction,
    FieldOperation,
    InputField,
    OperationType,
    OutputField,
    RunInfo,
)
from lineage.recorder import LineageRecorder, RecordedRun

_LAZY = {"RecipeRunInfo", "record_recipe_run", "recipe_run_lineage"}


def __getattr__(name: str) -> object:
    """The recipe-run helpers import the directive catalogue, so they load on first use."""
    if name in _LAZY:
        from lineage import runs

        return getattr(runs, name)
    raise AttributeError(f"module 'lineage' has no attribute {name!r}")


__all__ = [
    "DatasetRef",
    "Destination",
    "Direction",
    "FieldOperation",
    "InputField",
    "LineageError",
    "LineageRecorder",
    "LineageValidationError",
    "OperationType",
    "OutputField",
    "Problem",
    "QueryError",
    "RecipeRunInfo",
    "RecordedRun",
    "RunConflictError",
    "RunInfo",
    "RunNotFoundError",
    "recipe_run_lineage",
    "record_recipe_run",
]
