"""`parse-as-json` chains: a document unnested level by level (`parse-as-json :body 1`, then each object-valued key's
column in turn, as the quickstart pipeline export does eight times) learns every link's keys in the first link's
pass over the data. The learned shapes must give exactly what each link would have learned on its own: the
reference run below breaks the chain with a directive between the links, so each link runs its own pass."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytestmark = pytest.mark.spark

LINKS = ["_id", "rank", "price", "published_date"]
CHAIN = ["parse-as-json :body 1", *(f"parse-as-json :body_{key} 1" for key in LINKS)]


def document(oid: str, rank: Any, price: Any, date: Any, **extra: Any) -> str:
    record = {"_id": oid, "title": "T", "rank": rank, "price": price, "published_date": date, **extra}
    return json.dumps({key: value for key, value in record.items() if value is not _MISSING})


_MISSING = object()
ROWS = [
    document({"$oid": "a1"}, {"$numberInt": "1"}, {"$numberInt": "27"}, {"$date": {"$numberLong": "1212883200000"}}),
    document({"$oid": "a2"}, {"$numberInt": "2"}, {"$numberDouble": "25.99"}, {"$date": {"$numberLong": "5"}}),
    document({"$oid": "a3"}, _MISSING, {"$numberInt": "3"}, {"$date": 7}),      # a link's key missing: row dropped
    document({"$oid": "a4"}, None, {"$numberInt": "4"}, {"$date": 8}),          # JSON null: row dropped
    document({"$oid": "a5"}, {"$numberInt": "5"}, {"$numberInt": "5"}, {"$date": 9}, extra={"k": 1}),
    '{"_id": {"$oid": "a6"}, "rank": {"x": 1}',                                 # not JSON: an error row
    "17",                                                                       # a JSON primitive: dropped
    None,
]


def _run(recipe: list[str], rows: list[str | None], spark: Any) -> tuple[list[dict[str, Any]], list[Any], Any]:
    import directives

    result = directives.run_rows("\n".join(recipe), [{"body": body} for body in rows], spark=spark)
    errors = sorted((e["directive_index"], e["message"]) for e in result.errors)
    return result.rows, errors, (result.counts.rows_in, result.counts.rows_out, result.counts.error_rows,
                                 result.counts.filtered_rows, result.counts.rows_added)


def _unchained(recipe: list[str]) -> list[str]:
    """The same recipe with a directive between the links: each `parse-as-json` learns its own keys."""
    spaced: list[str] = []
    for line in recipe:
        spaced += [line, "set-column :zz_spacer exp:{ 1 }"]
    return [*spaced, "drop :zz_spacer"]


def _without_spacer(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{key: value for key, value in row.items() if key != "zz_spacer"} for row in rows]


def _renumbered(errors: list[Any]) -> list[Any]:
    """Error rows of the spaced recipe name directive 2k-1 where the chain names k."""
    return [((index + 1) // 2, message) for index, message in errors]


@pytest.mark.parametrize("extra", [
    [],
    ['{"_id": "{\\"$oid\\": \\"s\\"}", "rank": {"$numberInt": "9"}, "price": {"a": 1}, "published_date": {"b": 2}}'],
    ['[{"_id": {"$oid": "e1"}}, {"_id": {"$oid": "e2"}}]'],
    ['{"_id": {"$oid": "a7"}, "rank": {"$numberInt": "7"}, "price": 3, "published_date": {"$date": 1}}'],
], ids=["objects", "a-key-holding-json-text", "a-top-level-array", "a-key-holding-a-number"])
def test_a_chain_learns_what_each_link_would_have_learned(extra: list[str], spark: Any) -> None:
    rows = ROWS + extra
    chained_rows, chained_errors, chained_counts = _run(CHAIN, rows, spark)
    spaced_rows, spaced_errors, spaced_counts = _run(_unchained(CHAIN), rows, spark)
    assert chained_rows == _without_spacer(spaced_rows)
    assert chained_errors == _renumbered(spaced_errors)
    assert chained_counts == spaced_counts
    assert chained_rows, "the chain keeps rows whose every link holds an object"


def test_the_chain_flattens_every_level_into_the_named_columns(spark: Any) -> None:
    rows, errors, counts = _run(CHAIN, ROWS[:2], spark)
    assert [row["body__id_$oid"] for row in rows] == ["a1", "a2"]
    assert [row.get("body_price_$numberInt") for row in rows] == ["27", None]
    assert [row.get("body_price_$numberDouble") for row in rows] == [None, "25.99"]
    assert rows[0]["body_published_date_$date"] == '{"$numberLong":"1212883200000"}'
    assert errors == [] and counts == (2, 2, 0, 0, 0)


def _build_jobs(recipe: list[str], spark: Any, group: str) -> int:
    """Spark jobs run while the plan is built (each is a pass over the data)."""
    import directives
    from directives.spark.runtime.runner import rows_to_dataframe

    df = rows_to_dataframe(spark, [{"body": body} for body in ROWS])
    context = spark.sparkContext
    context.setJobGroup(group, "parse-as-json chain")
    try:
        directives.run(df, "\n".join(recipe))
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)
    return len(context.statusTracker().getJobIdsForGroup(group))


def test_the_whole_chain_costs_one_pass(spark: Any) -> None:
    one_pass = _build_jobs(CHAIN[:1], spark, "first-link")  # the jobs of one aggregate (its stages)
    assert one_pass > 0
    assert _build_jobs(CHAIN, spark, "chained") == one_pass
    assert _build_jobs(_unchained(CHAIN), spark, "spaced") == len(CHAIN) * one_pass
