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
    assert set(result) == {"k", "id", "name"}  # `body_<n>` is a family of data-named columns, not a column
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


def test_keep_without_schema_passes_the_kept_columns_through() -> None:
    result = trace("keep :a,:b\nset-column :c exp:{a}")
    assert result["a"]["sources"] == ["a"] and result["a"]["exact"] is True
    assert result["c"]["sources"] == ["a"] and result["c"]["directives"] == [2]


def test_a_generated_pattern_does_not_shadow_an_existing_column() -> None:
    # `body_1` exists in the input; split-to-columns on another column generates `x_<n>`, not `body_1`
    result = trace("split-to-columns :x ','\nrename :x_1 :y", ["x", "body_1"])
    assert result["body_1"]["sources"] == ["body_1"] and result["body_1"]["directives"] == []
    assert result["y"]["sources"] == ["x"] and result["y"]["directives"] == [1, 2]


def test_whole_schema_rename_without_schema_points_to_any_column() -> None:
    recipe = directives.parse("cleanse-column-names\nset-column :total exp:{price * qty}")
    item = Backtracker(recipe).lineage("total")
    assert item.exact is False
    assert item.directives == [1, 2]
    leaves = [node for node in item.tree.walk() if not node.upstream]
    assert {(leaf.column, leaf.label) for leaf in leaves} == {("*", "UNRESOLVED")}


def test_indirect_influences_come_from_labels_and_are_typed() -> None:
    recipe = directives.parse("validate-standard :doc hl7-fhir-r4\nrename :a :b", ["doc", "a"])
    item = Backtracker(recipe).lineage("b")
    assert item.path_directives == [2]
    assert item.indirect_directives == [1]
    (influence,) = item.indirect
    assert (influence.type, influence.subtype, influence.column) == ("INDIRECT", "FILTER", "*")
    assert [child.column for child in influence.upstream] == ["doc"]
    typed = {(t.source, t.type, t.subtype) for t in item.transformations()}
    assert typed == {("a", "DIRECT", "IDENTITY"), ("doc", "INDIRECT", "FILTER")}


def test_composition_follows_the_openlineage_rule() -> None:
    from lineage.backtrack import LineageNode, _compose

    direct_identity = ("DIRECT", "IDENTITY", False, True)
    aggregation = LineageNode("c", "MODIFY", subtype="AGGREGATION")
    transformation = LineageNode("c", "MODIFY", subtype="TRANSFORMATION")
    masked = LineageNode("c", "MODIFY", subtype="TRANSFORMATION", masking=True)
    indirect = LineageNode("c", "MODIFY", direct=False, subtype="CONDITIONAL")
    inexact = LineageNode("c", "RENAME", exact=False)
    assert _compose(transformation, _compose(aggregation, direct_identity))[:2] == ("DIRECT", "AGGREGATION")
    assert _compose(aggregation, ("INDIRECT", "FILTER", False, True))[:2] == ("INDIRECT", "FILTER")
    assert _compose(indirect, direct_identity)[:2] == ("INDIRECT", "CONDITIONAL")
    assert _compose(transformation, _compose(masked, direct_identity))[2] is True
    assert _compose(inexact, direct_identity)[3] is False


def test_node_json_has_directive_label_before_after_and_precision() -> None:
    recipe = directives.parse("rename :a :b\nhash :b 'MD5'", ["a"])
    tree = Backtracker(recipe).lineage("b").tree.to_json()
    assert tree["directive"] == {"index": 2, "line": 2, "text": "hash :b 'MD5'", "name": "hash"}
    assert (tree["label"], tree["before"], tree["after"], tree["masking"], tree["exact"]) == (
        "MODIFY", "b", "b", True, True)
    rename = tree["upstream"][0]
    assert (rename["label"], rename["before"], rename["after"], rename["subtype"]) == ("RENAME", "a", "b", "IDENTITY")
    assert rename["upstream"][0] == {"column": "a", "label": "SOURCE", "directive": None, "type": "DIRECT",
                                     "subtype": "IDENTITY", "exact": True, "upstream": []}


def test_lineage_modules_never_import_pyspark() -> None:
    import subprocess
    import sys
    from pathlib import Path

    code = ("import sys, lineage.backtrack, lineage.runs, lineage.export, lineage.render, lineage.from_recipe; "
            "import lineage; lineage.record_recipe_run; assert 'pyspark' not in sys.modules, 'pyspark imported'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[2])


def test_generated_columns_a_directive_names_are_listed_with_their_own_history() -> None:
    backtracker = Backtracker(directives.parse("parse-as-csv :body ',' false\nswap :body_2 :body_3\ndrop :body_4"))
    assert backtracker.final_columns() == ["body_2", "body_3"]
    (family,) = backtracker.generated()
    assert (family.pattern, family.description) == ("body_<n>", "columns named by the data, from directive 1")
    assert backtracker.member_of("body_7") == family and backtracker.member_of("other") is None
    swapped = backtracker.lineage("body_2")
    assert (swapped.tree.label, swapped.tree.before, swapped.directives) == ("SWAP", "body_3", [1, 2])


def test_inputs_unnamed_without_a_schema_are_sources_too() -> None:
    found = Backtracker(directives.parse("columns-replace s/^a/q/g\nuppercase :qa")).lineage("qa")
    assert (found.sources, found.exact, found.directives) == (["*"], False, [1, 2])
    exact = Backtracker(directives.parse("columns-replace s/^a/q/g\nuppercase :qa", ["ab", "aa"])).lineage("qa")
    assert (exact.sources, exact.exact) == (["aa"], True)


def test_a_newer_data_named_family_wins_over_an_older_one_but_not_over_a_named_column() -> None:
    # The recipe: the CSV header might also hold `email_1_1`, but extract-regex-groups made it last.
    text = ("parse-as-csv :body ',' true\ndrop :body\nextract-regex-groups :email '[^@]+@(.*)'\n"
            "rename :email_1_1 :email_domain")
    domain = Backtracker(directives.parse(text, ["body"])).lineage("email_domain")
    assert (domain.sources, domain.directives, domain.exact) == (["body"], [1, 3, 4], True)
    # Found by the random-recipe property test: two header parses after `hash :b` must not claim the input
    # column `b`, which exists by name (the schema), whatever the headers hold.
    recipe = directives.parse("hash :b 'SHA-256'\nparse-as-csv :d ',' true\nparse-as-csv :c ',' true",
                              ["a", "b", "c", "d"])
    backtracker = Backtracker(recipe)
    assert backtracker.lineage("a").tree.label == "SOURCE"
    assert backtracker.lineage("b").path_directives == [1]


def test_renaming_or_merging_a_missing_column_changes_nothing() -> None:
    # Found by the random-recipe property test: Wrangler's rename and merge leave the row alone when a source
    # column is missing, so the target keeps its own lineage.
    backtracker = Backtracker(directives.parse("rename :body_1 :b\nmerge :first :last :a ' '", ["a", "b"]))
    assert backtracker.lineage("b").tree.label == "SOURCE"
    assert backtracker.lineage("a").tree.label == "SOURCE"
