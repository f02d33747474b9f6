"""The Spark expression compiler implements functions Wrangler has, with argument counts Wrangler takes.

`directives/expression_catalogue.py` is the one list of Wrangler's functions; every function the Spark
compiler registers must be in it. The strict xfails are today's known differences (names Wrangler's
case-sensitive JEXL does not have, an optional argument Wrangler requires), for the expression work to fix.
"""

from __future__ import annotations

import pytest

from directives.expression_catalogue import FUNCTIONS as WRANGLER
from directives.spark.expr.functions import FUNCTIONS as SPARK

#: JEXL operators the expression grammar writes as calls; not functions of any namespace.
OPERATORS = {(None, "empty"), (None, "size")}
KNOWN_DIFFERENCES = {
    ("json", "isValid"): "Wrangler has only json:IsValid (JEXL names are case-sensitive)",
    ("json", "arrayLength"): "Wrangler has only json:ArrayLength",
}


def _params() -> list[object]:
    params: list[object] = []
    for key in sorted(SPARK, key=lambda k: (k[0] or "", k[1])):
        if key in OPERATORS:
            continue
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN_DIFFERENCES[key])] if key in KNOWN_DIFFERENCES else []
        params.append(pytest.param(key, marks=marks, id=f"{key[0]}:{key[1]}"))
    return params


@pytest.mark.parametrize("key", _params())
def test_each_spark_function_is_a_wrangler_function_with_the_same_counts(key: tuple[str | None, str]) -> None:
    namespace, name = key
    arities = WRANGLER.get(namespace, {}).get(name)
    assert arities is not None, f"{namespace}:{name} is not one of Wrangler's functions"
    spark = SPARK[key]
    for count in range(spark.min_args, min(spark.max_args, 8) + 1):
        if not spark.accepts(count):
            continue
        assert any(low <= count and (high is None or count <= high) for low, high in arities), count


def _wrangler_params() -> list[object]:
    return [pytest.param(namespace, name, id=f"{namespace}:{name}")
            for namespace, functions in sorted(WRANGLER.items(), key=lambda item: item[0] or "")
            for name in sorted(functions)]


@pytest.mark.parametrize(("namespace", "name"), _wrangler_params())
def test_every_wrangler_function_compiles_on_spark_with_each_overloads_counts(namespace: str | None,
                                                                              name: str) -> None:
    spark = SPARK.get((namespace, name))
    assert spark is not None, f"{namespace}:{name} is one of Wrangler's functions but unknown on Spark"
    for low, high in WRANGLER[namespace][name]:
        for count in range(low, min(high if high is not None else low + 2, 8) + 1):
            assert spark.accepts(count), (count, spark.arity_text())
