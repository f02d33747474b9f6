"""One walk over the registry: every directive has its usage, a docs example that is itself, labels, and runs on
Spark: no directive is refused. Examples that name external inputs (a schema file, a lookup table, a glossary)
find them in tests/data/external/, the resource directory this test names.

A directive added without any of these fails here by name, whichever family it joins.
"""

from __future__ import annotations

import re

import pytest
from pyspark.sql import types as T

import directives
from directives.base import REGISTRY
from directives.spark.compilers import COMPILERS, UNSUPPORTED, load_all
from directives.spark.runtime.resources import ENVIRONMENT
from directives.spark.runtime.runner import rows_to_dataframe, run
from tests.paths import ROOT
from tests.spark.sample_rows import infer_sample

pytestmark = pytest.mark.spark

_EXAMPLE = re.compile(r"^\s*Example: `(.+)`\s*$", re.MULTILINE)


def _example(name: str) -> str:
    found = _EXAMPLE.search(REGISTRY[name].__doc__ or "")
    assert found is not None, f"{name} has no 'Example: `…`' line in its docstring"
    return found.group(1)


def _input_columns(recipe: directives.Recipe) -> list[str]:
    """Columns the example reads, for an all-text input when no sample of the right shape can be made up."""
    names = [name for step in recipe.steps for label in step.labels
             for name in (label.column, *label.sources) if name and name != "*" and "<" not in name]
    return list(dict.fromkeys(names)) or ["body"]


def test_no_directive_is_refused() -> None:
    load_all()
    assert UNSUPPORTED == {}
    assert sorted(d.name for d in REGISTRY.values() if d not in COMPILERS) == []


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_directive_has_usage_example_labels_and_compiles_on_spark(name: str, spark,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENVIRONMENT, str(ROOT / "tests" / "data" / "external"))
    declaration = REGISTRY[name]
    assert declaration.usage().startswith(name + " ") and declaration.description()
    recipe = directives.parse(_example(name))
    assert [type(step.directive) for step in recipe.steps] == [declaration], "the example is another directive"
    assert recipe.steps[0].labels, f"{name}'s example labels no column"
    load_all()
    assert declaration in COMPILERS, f"{name} has no Spark compiler"
    sample = infer_sample(recipe)
    if sample is not None and sample.rows and sample.columns:
        frame = rows_to_dataframe(spark, sample.rows)
    else:
        columns = _input_columns(recipe)
        frame = spark.createDataFrame([tuple("1" for _ in columns)],
                                      T.StructType([T.StructField(c, T.StringType()) for c in columns]))
    result = run(frame, _example(name))
    assert result.df.schema is not None and result.errors.schema is not None  # the plan is analysed
