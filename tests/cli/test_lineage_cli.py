"""`wrangler lineage` and `wrangler history`, run as a user runs them: a subprocess from the repository root."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import directives
from lineage.runs import RecipeRunInfo, record_recipe_run
from lineage.store import open_store

ROOT = Path(__file__).resolve().parents[2]

RECIPE = """\
split-to-columns :body ','
drop :body
rename :body_1 :id
rename :body_2 :name
hash :id 'SHA-256'
validate-standard :k hl7-fhir-r4
merge :name :k :label ' '
"""


def wrangler(*argv: str, stdin: str | None = None, store_env: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("WRANGLER_STORE", None)
    if store_env is not None:
        env["WRANGLER_STORE"] = store_env
    return subprocess.run([sys.executable, "-m", "server.cli", *argv], cwd=ROOT, env=env, input=stdin,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def recipe_file(tmp_path: Path) -> str:
    path = tmp_path / "recipe.txt"
    path.write_text(RECIPE)
    return str(path)


def test_json_has_exactly_sources_directives_and_tree(recipe_file: str) -> None:
    result = wrangler("lineage", recipe_file, "--schema", "body,k", "--format", "json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert list(document) == ["columns", "generated"]
    columns = document["columns"]
    assert set(columns) == {"k", "id", "name", "label"}
    (family,) = document["generated"]
    assert (family["pattern"], family["description"]) == ("body_<n>", "columns named by the data, from directive 1")
    assert family["directive"]["index"] == 1 and family["sources"] == ["body"]
    for item in columns.values():
        assert set(item) == {"sources", "directives", "tree"}
    assert columns["id"]["sources"] == ["body"]
    # split (1), rename (3), hash (5) make the value; validate-standard (6) filters every column's rows.
    assert columns["id"]["directives"] == [1, 3, 5, 6]
    assert columns["label"]["sources"] == ["body", "k"]
    assert columns["label"]["directives"] == [1, 4, 6, 7]
    assert columns["k"]["directives"] == [6]
    tree = columns["id"]["tree"]
    assert tree["directive"] == {"index": 5, "line": 5, "text": "hash :id 'SHA-256'", "name": "hash"}
    assert (tree["type"], tree["subtype"], tree["masking"], tree["exact"]) == ("DIRECT", "TRANSFORMATION", True, True)
    rename = tree["upstream"][0]
    assert (rename["label"], rename["before"], rename["after"]) == ("RENAME", "body_1", "id")
    influence = tree["influences"][0]
    assert (influence["type"], influence["subtype"], influence["directive"]["index"]) == ("INDIRECT", "FILTER", 6)
    assert influence["upstream"][0]["column"] == "k"


def test_column_option_and_case_insensitive_lookup(recipe_file: str) -> None:
    result = wrangler("lineage", recipe_file, "--schema", "body,k", "--format", "json", "--column", "NAME")
    assert result.returncode == 0, result.stderr
    columns = json.loads(result.stdout)["columns"]
    assert list(columns) == ["name"]
    assert columns["name"]["directives"] == [1, 4, 6]


def test_unknown_column_is_a_usage_error(recipe_file: str) -> None:
    result = wrangler("lineage", recipe_file, "--schema", "body,k", "--column", "nope")
    assert result.returncode == 2
    assert "not an output column" in result.stderr and "label" in result.stderr


def test_without_schema_whole_schema_directives_are_flagged(tmp_path: Path) -> None:
    path = tmp_path / "r.txt"
    path.write_text("set-headers :a,:b\nset-column :c exp:{a + b}\n")
    loose = json.loads(wrangler("lineage", str(path), "--format", "json").stdout)["columns"]
    assert loose["c"]["tree"]["upstream"][0]["upstream"][0]["label"] == "UNRESOLVED"
    assert loose["a"]["tree"]["exact"] is False and loose["a"]["sources"] == ["#1"]  # "the first input column"
    exact = json.loads(wrangler("lineage", str(path), "--schema", "x,y", "--format", "json").stdout)["columns"]
    assert exact["c"]["sources"] == ["x", "y"]
    assert exact["a"]["tree"]["exact"] is True


def test_text_and_dot_formats(recipe_file: str) -> None:
    text = wrangler("lineage", recipe_file, "--schema", "body,k")
    assert text.returncode == 0
    assert "id  <-  body" in text.stdout
    assert "RENAME by #3 (line 3): rename :body_1 :id" in text.stdout
    assert "FILTER by #6" in text.stdout
    dot = wrangler("lineage", recipe_file, "--schema", "body,k", "--format", "dot")
    assert dot.stdout.startswith("digraph lineage {") and dot.stdout.rstrip().endswith("}")
    assert '"final:label"' in dot.stdout


def test_recipe_from_stdin_and_parse_errors() -> None:
    ok = wrangler("lineage", "-", "--format", "json", stdin="rename :a :b\n")
    assert json.loads(ok.stdout)["columns"]["b"]["directives"] == [1]
    bad = wrangler("lineage", "-", stdin="rename :a\n")
    assert bad.returncode == 1
    assert ":1:" in bad.stderr


# --------------------------------------------------------------------------- history


@pytest.fixture
def store_file(store_location: str | Path) -> tuple[str, int]:
    """Two runs of two recipe versions an hour apart; the second drops the hash (a SQLite file, a PostgreSQL URL)."""
    path = store_location
    now = int(time.time())
    with open_store(path) as store:
        first = directives.parse(RECIPE, ["body", "k"])
        second = directives.parse(RECIPE.replace("hash :id 'SHA-256'\n", ""), ["body", "k"])
        for recipe, run_id, start in ((first, "r1", now - 7200), (second, "r2", now - 600)):
            info = RecipeRunInfo(namespace="ns", source_name="raw", destination_name="people", run_id=run_id,
                                 start=start, end=start + 30)
            record_recipe_run(store, recipe, info, ["k", "id", "name", "label"])
    return str(path), now


def test_history_lists_every_run_newest_first(store_file: tuple[str, int]) -> None:
    path, _ = store_file
    result = wrangler("history", "people", "id", "--namespace", "ns", "--store", path, "--format", "json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    runs = document["runs"]
    assert [entry["run"]["run_id"] for entry in runs] == ["r2", "r1"]
    assert runs[1]["tree"]["directive"]["name"] == "hash"
    assert runs[0]["tree"]["label"] == "RENAME"  # without the hash, the rename made it
    assert runs[0]["truncated"] is False


def test_history_time_range_is_start_inclusive_end_exclusive(store_file: tuple[str, int]) -> None:
    path, now = store_file
    recent = wrangler("history", "people", "id", "--namespace", "ns", "--store", path, "--format", "json",
                      "--start", "now-1h")
    assert [entry["run"]["run_id"] for entry in json.loads(recent.stdout)["runs"]] == ["r2"]
    exact = wrangler("history", "people", "id", "--namespace", "ns", "--store", path, "--format", "json",
                     "--start", str(now - 7200), "--end", str(now - 600))
    assert [entry["run"]["run_id"] for entry in json.loads(exact.stdout)["runs"]] == ["r1"]


def test_history_max_levels_and_text(store_file: tuple[str, int]) -> None:
    path, _ = store_file
    cut = wrangler("history", "people", "id", "--namespace", "ns", "--store", path, "--format", "json",
                   "--max-levels", "1")
    entry = json.loads(cut.stdout)["runs"][0]
    assert entry["truncated"] is True and entry["tree"]["upstream"] == []
    text = wrangler("history", "people", "id", "--namespace", "ns", "--store", path)
    assert text.returncode == 0
    assert "run r2" in text.stdout and "run r1" in text.stdout
    assert text.stdout.index("run r2") < text.stdout.index("run r1")
    assert "hash :id 'SHA-256'" in text.stdout


def test_history_reads_the_store_named_by_wrangler_store(store_file: tuple[str, int]) -> None:
    path, _ = store_file
    result = wrangler("history", "people", "id", "--namespace", "ns", "--format", "json", store_env=path)
    assert result.returncode == 0, result.stderr
    assert [entry["run"]["run_id"] for entry in json.loads(result.stdout)["runs"]] == ["r2", "r1"]


def test_history_errors(store_file: tuple[str, int], tmp_path: Path) -> None:
    path, _ = store_file
    missing = wrangler("history", "people", "id", "--store", str(tmp_path / "nope.sqlite"))
    assert missing.returncode == 2 and "no lineage store" in missing.stderr
    assert not (tmp_path / "nope.sqlite").exists()
    bad_time = wrangler("history", "people", "id", "--store", path, "--start", "yesterday")
    assert bad_time.returncode == 2 and "invalid time" in bad_time.stderr
    reversed_range = wrangler("history", "people", "id", "--store", path, "--start", "now", "--end", "now-1h")
    assert reversed_range.returncode == 2
    empty = wrangler("history", "people", "id", "--namespace", "other", "--store", path)
    assert empty.returncode == 0 and "no recorded history" in empty.stdout


# --------------------------------------------------------------------------- output columns, samples, --verify

ISSUE_RECIPE = ("parse-as-csv :body ',' true\ndrop :body\nextract-regex-groups :email '[^@]+@(.*)'\n"
                "rename :email_1_1 :email_domain\n")


def test_a_column_that_is_not_an_output_is_a_usage_error_listing_the_outputs(tmp_path: Path) -> None:
    recipe = tmp_path / "r.txt"
    recipe.write_text(ISSUE_RECIPE)
    result = wrangler("lineage", str(recipe), "--column", "nosuch")
    assert result.returncode == 2 and result.stdout == ""
    assert "'nosuch' is not an output column" in result.stderr
    assert "email_domain" in result.stderr and "columns named by the data, from directive 1" in result.stderr
    document = json.loads(wrangler("lineage", str(recipe), "--format", "json").stdout)
    assert list(document["columns"]) == ["email_domain"]  # no placeholder among the columns
    assert [(g["pattern"], g["directive"]["index"]) for g in document["generated"]] == [
        ("<header>", 1), ("email_<n>_1", 3)]


def test_members_of_a_named_family_and_listed_outputs_resolve(recipe_file: str) -> None:
    member = wrangler("lineage", recipe_file, "--schema", "body,k", "--format", "json", "--column", "body_3")
    assert member.returncode == 0, member.stderr
    assert json.loads(member.stdout)["columns"]["body_3"]["directives"] == [1, 6]
    listed = wrangler("lineage", recipe_file, "--schema", "body,k", "--format", "json", "--outputs", "id,body_4")
    assert list(json.loads(listed.stdout)["columns"]) == ["id", "body_4"]
    wrong = wrangler("lineage", recipe_file, "--schema", "body,k", "--outputs", "id,nosuch")
    assert wrong.returncode == 2 and "'nosuch'" in wrong.stderr


def test_verify_needs_a_sample(recipe_file: str) -> None:
    result = wrangler("lineage", recipe_file, "--verify")
    assert result.returncode == 2 and "--verify needs a sample" in result.stderr


@pytest.mark.spark
def test_a_sample_names_the_data_named_columns_and_verify_passes(tmp_path: Path) -> None:
    recipe = tmp_path / "r.txt"
    recipe.write_text(ISSUE_RECIPE)
    sample = tmp_path / "people.csv"
    sample.write_text('body\n"name,email"\n"ada,ada@x.org"\n"bob,bob@y.com"\n')
    result = wrangler("lineage", str(recipe), "--verify", "--input", str(sample), "--format", "json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert list(document["columns"]) == ["name", "email", "email_domain"] and document["generated"] == []
    assert document["columns"]["email_domain"]["directives"] == [1, 3, 4]
    verification = document["verification"]
    assert verification["ok"] is True and verification["unsound"] == []
    assert {"input": "body", "output": "email_domain"} in verification["observed"]
