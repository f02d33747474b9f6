"""`wrangler check --sample FILE`: the input's first rows, read as `wrangler run --input` reads them, without Spark.

The sample's columns are the schema, and its values name the columns only the data can name (a CSV
header, JSON keys), so a misspelt one is reported with the closest names. Also: a recipe file that
cannot be read is one line on stderr, for `check` and `lineage` alike.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from server.cli.sample_input import SampleInputError, read_sample
from tests.paths import ROOT


def wrangler(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "server.cli", *argv], capture_output=True, text=True, cwd=cwd,
                          env=env, check=False, timeout=120)


HEADER_RECIPE = "parse-as-csv :body ',' true\ndrop :body\nset-column :total exp:{{price * {qty}}}\n"


def test_a_misspelt_header_column_fails_check_and_the_corrected_recipe_passes(tmp_path: Path) -> None:
    (tmp_path / "orders.txt").write_text("name,price,qty\nada,1.5,2\nbob,2,3\n")
    (tmp_path / "bad.txt").write_text(HEADER_RECIPE.format(qty="qtty"))
    (tmp_path / "good.txt").write_text(HEADER_RECIPE.format(qty="qty"))
    bad = wrangler("check", "bad.txt", "--sample", "orders.txt", "--format", "json", cwd=tmp_path)
    assert bad.returncode == 1, bad.stderr
    (finding,) = json.loads(bad.stdout)
    assert (finding["rule"], finding["line"], finding["column"]) == ("column-not-found", 3, 32)
    assert "Column 'qtty' does not exist" in finding["message"] and "Did you mean 'qty'?" in finding["message"]
    good = wrangler("check", "good.txt", "--sample", "orders.txt", cwd=tmp_path)
    assert (good.returncode, good.stdout) == (0, "")
    # without the sample the header is unknown, so nothing can be said about `qtty`
    assert wrangler("check", "bad.txt", cwd=tmp_path).returncode == 0


def test_a_recipe_for_raw_lines_checked_against_a_csv_read_with_its_header_says_how_to_read_the_lines(
        tmp_path: Path) -> None:
    (tmp_path / "orders.csv").write_text("name,price,qty\nada,1.5,2\n")
    (tmp_path / "r.txt").write_text(HEADER_RECIPE.format(qty="qty"))
    as_table = wrangler("check", "r.txt", "--sample", "orders.csv", cwd=tmp_path)
    assert as_table.returncode == 1 and "Column 'body' does not exist" in as_table.stdout
    assert ("hint: the recipe reads each line from :body, but the file was read as CSV, with its header line as "
            "column names (name, price, qty); --sample-format text reads every line into :body") in as_table.stderr
    as_lines = wrangler("check", "r.txt", "--sample", "orders.csv", "--sample-format", "text", cwd=tmp_path)
    assert (as_lines.returncode, as_lines.stdout) == (0, ""), as_lines.stderr
    assert "hint:" not in as_lines.stderr


def test_json_keys_after_parse_as_json_are_known(tmp_path: Path) -> None:
    (tmp_path / "events.txt").write_text('{"user": {"id": 1, "mail": "a@b"}, "kind": "x"}\n{"kind": "y"}\n')
    (tmp_path / "r.txt").write_text("parse-as-json :body 1\nparse-as-json :body_user\ndrop :body_user_emial\n")
    done = wrangler("check", "r.txt", "--sample", "events.txt", "--format", "json", cwd=tmp_path)
    (finding,) = json.loads(done.stdout)
    assert (done.returncode, finding["line"], finding["column"]) == (1, 3, 6)
    assert "Did you mean 'body_user_mail'" in finding["message"]


def test_unreadable_samples_are_usage_errors(tmp_path: Path) -> None:
    (tmp_path / "r.txt").write_text("drop :a\n")
    (tmp_path / "data.bin").write_text("x")
    missing = wrangler("check", "r.txt", "--sample", "nope.csv", cwd=tmp_path)
    assert (missing.returncode, missing.stderr.strip()) == (2, "wrangler check: sample not found: nope.csv")
    unknown = wrangler("check", "r.txt", "--sample", "data.bin", cwd=tmp_path)
    assert unknown.returncode == 2 and "--sample-format" in unknown.stderr


# -- reading each format as `wrangler run --input` does ----------------------------------------------------------------
def test_csv_header_names_values_as_text_and_empty_fields_as_null(tmp_path: Path) -> None:
    path = tmp_path / "in.csv"
    path.write_text('id,,name,id\n1,x,"a ""b""",2\n3,,,\n')
    sample = read_sample(str(path))
    assert sample.columns == ["id0", "_c1", "name", "id3"]  # Spark's names for empty and repeated headers
    assert sample.rows == [{"id0": "1", "_c1": "x", "name": 'a "b"', "id3": "2"},
                           {"id0": "3", "_c1": None, "name": None, "id3": None}]
    headless = read_sample(str(path), header=False, limit=1)
    assert headless.columns == ["_c0", "_c1", "_c2", "_c3"] and headless.rows[0]["_c2"] == "name"


def test_json_lines_columns_sorted_as_spark_infers_them(tmp_path: Path) -> None:
    path = tmp_path / "in.json"
    path.write_text('{"b": 1, "a": {"x": 2}}\n\n{"c": "t"}\n')
    sample = read_sample(str(path))
    assert sample.columns == ["a", "b", "c"]
    assert sample.rows == [{"a": {"x": 2}, "b": 1, "c": None}, {"a": None, "b": None, "c": "t"}]
    (tmp_path / "bad.json").write_text("[1, 2]\nnot json\n")
    with pytest.raises(SampleInputError, match="not JSON"):
        read_sample(str(tmp_path / "bad.json"))


def test_parquet_keeps_its_schema_and_a_directory_is_read_file_by_file(tmp_path: Path) -> None:
    folder = tmp_path / "out.parquet"
    folder.mkdir()
    pq.write_table(pa.table({"z": [1, 2], "a": ["p", "q"]}), folder / "part-0.parquet")
    pq.write_table(pa.table({"z": [3], "a": ["r"]}), folder / "part-1.parquet")
    (folder / "_SUCCESS").write_text("")
    sample = read_sample(str(folder), limit=3)
    assert sample.columns == ["z", "a"]
    assert [row["z"] for row in sample.rows] == [1, 2, 3]


def test_text_is_one_row_per_line_in_body(tmp_path: Path) -> None:
    path = tmp_path / "in.log"
    path.write_bytes(b"one\r\ntwo\rthree\nfour")
    sample = read_sample(str(path), limit=3)
    assert (sample.columns, sample.rows) == (["body"], [{"body": "one"}, {"body": "two"}, {"body": "three"}])


# -- a recipe file that cannot be read --------------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["check", "lineage", "parse"])
def test_a_missing_recipe_is_one_line(tmp_path: Path, command: str) -> None:
    done = wrangler(command, "missing.txt", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == f"wrangler {command}: cannot read missing.txt: No such file or directory"
    assert done.stdout == ""


def test_an_unknown_expression_function_fails_check_and_the_corrected_recipe_passes(tmp_path: Path) -> None:
    (tmp_path / "bad.txt").write_text("set-column :root exp:{math:sqrtt(area)}\n")
    (tmp_path / "good.txt").write_text("set-column :root exp:{math:sqrt(area)}\n")
    bad = wrangler("check", "bad.txt", "--format", "json", cwd=tmp_path)
    (finding,) = json.loads(bad.stdout)
    assert (bad.returncode, finding["rule"], finding["line"], finding["column"]) == (1, "expression-function", 1, 23)
    assert "Did you mean 'math:sqrt'?" in finding["message"]
    good = wrangler("check", "good.txt", cwd=tmp_path)
    assert (good.returncode, good.stdout) == (0, "")
