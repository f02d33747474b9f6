"""Directive declarations, binding and labelling: the ParseTree of a recipe.

`parse(text, schema=None)` gives the bound, labelled `Recipe`. Spark execution lives in
`directives.spark` and is imported only when a recipe is run.
"""

from __future__ import annotations

from typing import Any

import directives.catalog  # noqa: F401  (registers every directive)
from directives.base import REGISTRY, Arg, ArgKind, Directive, RowEffect
from directives.labels import ColumnLabel, EdgeKind, Label
from directives.recipe import Recipe, Step, parse, validate
from grammar.errors import RecipeError

__all__ = [
    "REGISTRY",
    "Arg",
    "ArgKind",
    "ColumnLabel",
    "Directive",
    "EdgeKind",
    "Label",
    "Recipe",
    "RecipeError",
    "RowEffect",
    "Step",
    "parse",
    "run",
    "run_rows",
    "validate",
]


def run(df: Any, recipe: Any, **kwargs: Any) -> Any:
    """Run a recipe on a Spark DataFrame (imports pyspark only when called)."""
    from directives.spark.runtime.runner import run as _run

    return _run(df, recipe, **kwargs)


def run_rows(recipe_text: str, rows: list[dict[str, Any]], spark: Any = None, **kwargs: Any) -> Any:
    """Run a recipe on a few Python rows, like Wrangler's TestingRig (imports pyspark only when called)."""
    from directives.spark.runtime.runner import run_rows as _run_rows

    return _run_rows(recipe_text, rows, spark=spark, **kwargs)
