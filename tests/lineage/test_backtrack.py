"""The backtracker: per-column directive trees from the recipe alone, exact where CDAP is not."""

from __future__ import annotations

import directives
from lineage.backtrack import Backtracker, lineage


def trace(text: str, schema: list[str] | None = None) -> dict[str, dict[str, object]]:
    recipe = directives.parse(text, schema)
    return {name: item.to_json() for name, item in lineage(recipe).items()}


def test_rename_chain_maps_back_to_the_source() -> None:
    result = trace("rename :a :b\nrename :b :c", ["a", "x"])
    assert result["c"]["sources"] == ["a"]
    assert result["c"]["directives"] == [1, 2]
    assert result["x"] == {**result["x"], "sources": ["x"], "directives": []}
    tree = result["c"]["tree"]
    assert (tree["label"], tree["before"], tree["directive"]["index"]) == ("RENAME", "b", 2)
    assert tree["upstream"][0]["upstream"][0]["label"] == "SOURCE"


def test_swap_is_field_exact() -> None:
    result = trace("swap :a :b", ["a", "b"])
    assert result["a"]["sources"] == ["b"]
    assert result["b"]["sources"] == ["a"]


def test_merge_adds_only_to_the_destination() -> None:
    result = trace("merge :a :b :c ','", ["a", "b", "z"])
    assert result["c"]["sources"] == ["a", "b"]
    assert result["a"]["sources"] == ["a"] and result["a"]["directives"] == []
    assert result["c"]["tree"]["subtype"] == "TRANSFORMATION"


def test_drop_ends_branches_and_generated_patterns_resolve() -> None:
    result = trace("split-to-columns :body ','\ndrop :body\nrename :body_1 :id\nrename :body_2 :name", ["body", "k"])
    assert set(result) == {"k", "id", "name", "body_<n>"}
    assert result["id"]["sources"] == ["body"]
    assert result["id"]["directives"] == [1, 3]
    assert result["name"]["directives"] == [1, 4]


def test_set_headers_without_schema_is_over_approximated() -> None:
    result = trace("set-headers :x,:y")
    assert result["x"]["exact"] is False
    assert result["x"]["tree"]["upstream"][0]["label"] == "UNRESOLVED"
    exact = trace("set-headers :x,:y", ["a", "b"])
    assert exact["x"]["exact"] is True and exact["x"]["sources"] == ["a"]


def test_whole_schema_rename_with_schema_is_exact() -> None:
    result = trace("cleanse-column-names\nchange-column-case upper", ["First Name", "AGE"])
    assert result["FIRST_NAME"]["sources"] == ["First Name"]
    assert result["FIRST_NAME"]["directives"] == [1, 2]
    assert result["AGE"]["directives"] == [1, 2]  # AGE -> age -> AGE


def test_modify_keeps_history_and_type_change_is_recorded() -> None:
    result = trace("set-type :a int\nrename :a :b", ["a"])
    assert result["b"]["directives"] == [1, 2]
    assert result["b"]["tree"]["upstream"][0]["label"] == "MODIFY"


def test_copy_is_identity_from_its_source() -> None:
    result = trace("copy :a :b", ["a"])
    assert result["b"]["sources"] == ["a"]
    assert result["b"]["tree"]["subtype"] == "IDENTITY"


def test_deep_chains_do_not_hit_the_recursion_limit() -> None:
    text = "\n".join(f"rename :c{i} :c{i + 1}" for i in range(3000))
    recipe = directives.parse(text, ["c0"])
    item = Backtracker(recipe).lineage("c3000")
    assert item.sources == ["c0"]
    assert len(item.directives) == 3000
