"""`wrangler run` end to end: real Spark, real files, a real lineage store.

One run goes through the real command in a subprocess (its own JVM, as a user runs it); the others call
the same command in this process on the test session's Spark, which saves a JVM start per test.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT

RECIPE = "set-type :salary double\nrename :name :who\n"
ROWS = [("1", "ada", "10"), ("2", "bob", "oops"), ("3", "cy", "")]


def wrangler(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYSPARK_PYTHON": sys.executable}
    env.pop("WRANGLER_STORE", None)
    return subprocess.run([sys.executable, "-m", "server.cli", "run", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def wrangler_here(*args: str) -> subprocess.CompletedProcess[str]:
    """`wrangler run ARGS` in this process: the same entry point, on the active (test) Spark session."""
    from server.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["run", *args])
    return subprocess.CompletedProcess(["wrangler", "run", *args], code, out.getvalue(), err.getvalue())


def counts_of(stderr: str) -> dict[str, object]:
    lines = [line for line in stderr.splitlines() if line.startswith("counts: ")]
    assert lines, stderr
    return json.loads(lines[-1].removeprefix("counts: "))


def assert_counts(stderr: str, rows_in: int, rows_out: int, errors: int, filtered: int, added: int) -> None:
    """The counts line of a run: the expected numbers, reconciled, none negative."""
    counts = counts_of(stderr)
    assert (counts["rows_in"], counts["rows_out"], counts["error_rows"], counts["filtered_rows"],
            counts["rows_added"]) == (rows_in, rows_out, errors, filtered, added)
    assert counts["reconciled"] is True
    assert all(counts[key] >= 0 for key in ("rows_in", "rows_out", "error_rows", "filtered_rows"))


def part_files(directory: Path, suffix: str) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.name.startswith("part-") and p.name.endswith(suffix))


@pytest.fixture
def recipe(tmp_path: Path) -> Path:
    path = tmp_path / "clean.recipe"
    path.write_text(RECIPE)
    return path


@pytest.fixture
def csv_input(tmp_path: Path) -> Path:
    path = tmp_path / "people.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "name", "salary"])
        writer.writerows(ROWS)
    return path


# -- failures reported before Spark starts ---------------------------------------------------------------------------
def test_bad_recipe_names_line_and_column(tmp_path: Path, csv_input: Path) -> None:
    bad = tmp_path / "bad.recipe"
    bad.write_text("rename :a :b\nset-type :salary\n")
    result = wrangler(str(bad), "--input", str(csv_input))
    assert result.returncode == 1
    assert f"{bad}:2:" in result.stderr
    assert "set-type" in result.stderr


def test_missing_input_is_a_usage_error(recipe: Path, tmp_path: Path) -> None:
    result = wrangler(str(recipe), "--input", str(tmp_path / "nope.csv"))
    assert result.returncode == 2
    assert "input not found" in result.stderr and "nope.csv" in result.stderr


def test_unknown_format_asks_for_input_format(recipe: Path, tmp_path: Path) -> None:
    data = tmp_path / "data.bin"
    data.write_text("x")
    result = wrangler(str(recipe), "--input", str(data))
    assert result.returncode == 2
    assert "--input-format" in result.stderr


# -- real runs ---------------------------------------------------------------------------------------------------------
@pytest.mark.spark
def test_csv_run_writes_output_errors_counts_and_records_lineage(recipe: Path, csv_input: Path,
                                                                  tmp_path: Path) -> None:
    out, errors, store = tmp_path / "out.csv", tmp_path / "errors.csv", tmp_path / "lineage.sqlite"
    result = wrangler(str(recipe), "--input", str(csv_input), "--output", str(out), "--errors", str(errors),
                      "--store", str(store), "--namespace", "hr", "--source-name", "people",
                      "--destination-name", "people_clean", "--run-id", "run-1",
                      "--counts-json", str(tmp_path / "counts.json"))
    assert result.returncode == 0, result.stderr
    # Spark's start-up chatter is off from the JVM's first line: stderr holds our messages only.
    # The JVM's own start-up notice (Spark 4's launcher adds the incubator vector module) is filtered out too.
    spark_lines = [line for line in result.stderr.splitlines()
                   if " WARN " in line or "log4j" in line or "log level" in line or line.startswith("WARNING:")]
    assert spark_lines == []
    counts = counts_of(result.stderr)
    written_counts = json.loads((tmp_path / "counts.json").read_text())
    assert [reason["rows"] for reason in written_counts.pop("top_errors")] == [1]
    assert counts == written_counts
    assert (counts["rows_in"], counts["rows_out"], counts["error_rows"], counts["filtered_rows"]) == (3, 2, 1, 0)
    assert counts["reconciled"] is True

    with part_files(out, ".csv")[0].open() as handle:
        written = list(csv.DictReader(handle))
    assert list(written[0]) == ["id", "who", "salary"]
    assert [(r["id"], r["who"], r["salary"]) for r in written] == [("1", "ada", "10.0"), ("3", "cy", "")]

    with part_files(errors, ".csv")[0].open() as handle:
        error_rows = list(csv.DictReader(handle))
    assert len(error_rows) == 1
    assert json.loads(error_rows[0]["row"]) == {"id": "2", "name": "bob", "salary": "oops"}
    # Wrangler's ColumnConverter message (the value itself is in the row beside it)
    assert error_rows[0]["line"] == "1"
    assert error_rows[0]["message"] == "Column 'salary' cannot be converted to a 'double'."

    from lineage.model import Direction
    from lineage.store import SQLiteLineageStore

    with SQLiteLineageStore(store) as lineage_store:
        run = lineage_store.run("hr", "run-1")
        assert run is not None
        assert run.destination_fields == ("id", "who", "salary")
        assert "people" in [source.name for source in run.sources]
        written = next(p.properties for p in run.dataset_properties if p.dataset.name == "people_clean")
        assert (written["rows_in"], written["rows_out"], written["error_rows"]) == ("3", "2", "1")  # the run screen's
        backward = lineage_store.field_lineage("hr", "people_clean", "who", Direction.BACKWARD, 0, 2**40)
        sources = {(ref.dataset, ref.field) for group in backward.groups for ref in group.fields}
        assert sources == {("people", "name")}
        assert "who" in run.columns_with_history
        history = lineage_store.column_history("hr", "people_clean", "who", 0, 2**40).items
        assert [entry.run.run_id for entry in history] == ["run-1"]
        tree = history[0].tree  # the backtracker's tree: the rename, then the source column
        assert (tree["label"], tree["before"], tree["directive"]["index"]) == ("RENAME", "name", 2)
        assert [node["column"] for node in tree["upstream"]] == ["name"]


@pytest.mark.spark
def test_json_input_to_parquet_output(recipe: Path, tmp_path: Path, spark: object) -> None:
    import pyarrow.parquet as pq

    data = tmp_path / "people.json"
    data.write_text("".join(json.dumps({"id": int(i), "name": n, "salary": s}) + "\n" for i, n, s in ROWS))
    out = tmp_path / "out.parquet"
    result = wrangler_here(str(recipe), "--input", str(data), "--output", str(out))
    assert result.returncode == 0, result.stderr
    table = pq.read_table(out)
    assert table.column_names == ["id", "who", "salary"]
    assert table.to_pylist() == [{"id": 1, "who": "ada", "salary": 10.0}, {"id": 3, "who": "cy", "salary": None}]
    assert counts_of(result.stderr)["error_rows"] == 1


@pytest.mark.parametrize("taken", ["out", "errors"])
def test_an_existing_output_or_errors_directory_stops_the_run_before_spark(recipe: Path, csv_input: Path,
                                                                             tmp_path: Path, taken: str) -> None:
    """Both are checked before anything is written: finding the errors' directory taken only after the output
    was written would leave half a result behind."""
    (tmp_path / taken).mkdir()
    result = wrangler_here(str(recipe), "--input", str(csv_input), "--output", str(tmp_path / "out"),
                           "--errors", str(tmp_path / "errors"))
    assert result.returncode == 2
    assert f"{tmp_path / taken} already exists; use --overwrite" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if p.name in ("out", "errors")) == [taken]


@pytest.mark.spark
def test_an_unreadable_input_is_a_one_line_spark_failure(recipe: Path, tmp_path: Path, spark: object) -> None:
    data = tmp_path / "broken.parquet"
    data.write_text("this is not a parquet file")
    result = wrangler_here(str(recipe), "--input", str(data), "--output", str(tmp_path / "out"))
    assert result.returncode == 1
    failure = [line for line in result.stderr.splitlines() if line.startswith("wrangler run: Spark failed: ")]
    assert len(failure) == 1 and "Traceback" not in result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.spark
def test_parquet_input_to_json_output_with_overwrite(recipe: Path, tmp_path: Path, spark: object) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = tmp_path / "people.parquet"
    pq.write_table(pa.table({"id": [1, 2], "name": ["ada", "bob"], "salary": ["1.5", "2"]}), data)
    out = tmp_path / "out"
    out.mkdir()
    (out / "stale.txt").write_text("old")
    result = wrangler_here(str(recipe), "--input", str(data), "--output", str(out), "--output-format", "json",
                      "--overwrite")
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for path in part_files(out, ".json") for line in path.read_text().splitlines()]
    assert rows == [{"id": 1, "who": "ada", "salary": 1.5}, {"id": 2, "who": "bob", "salary": 2.0}]
    assert not (out / "stale.txt").exists()


@pytest.mark.spark
def test_text_input_is_one_row_per_line_in_body_and_prints_to_stdout(tmp_path: Path, spark: object) -> None:
    data = tmp_path / "lines.txt"
    data.write_text("first line\nsecond line\n")
    recipe = tmp_path / "copy.recipe"
    recipe.write_text("copy :body :line\n")
    result = wrangler_here(str(recipe), "--input", str(data))
    assert result.returncode == 0, result.stderr
    printed = [json.loads(line) for line in result.stdout.splitlines()]
    assert printed == [{"body": "first line", "line": "first line"}, {"body": "second line", "line": "second line"}]
    assert_counts(result.stderr, 2, 2, 0, 0, 0)
    assert "2 rows in, 2 out, 0 to errors, 0 filtered, 0 added — reconciled" in result.stderr


@pytest.mark.spark
def test_stdout_run_counts_error_and_filtered_rows(tmp_path: Path, spark: object) -> None:
    """Without --output the rows are printed, and the counts still come from a full pass over the input."""
    data = tmp_path / "numbers.txt"
    data.write_text("1\nx\n3\n4\n")
    recipe = tmp_path / "numbers.recipe"
    recipe.write_text("set-type :body int\nfilter-row exp:{ body == 3 }\n")
    result = wrangler_here(str(recipe), "--input", str(data))
    assert result.returncode == 0, result.stderr
    assert [json.loads(line) for line in result.stdout.splitlines()] == [{"body": 1}, {"body": 4}]
    assert_counts(result.stderr, 4, 2, 1, 1, 0)


@pytest.mark.spark
def test_fail_directive_aborts_with_directive_and_line(tmp_path: Path, csv_input: Path, spark: object) -> None:
    recipe = tmp_path / "fail.recipe"
    recipe.write_text("rename :name :who\nfail exp:{ who == 'bob' }\n")
    out = tmp_path / "out.csv"
    result = wrangler_here(str(recipe), "--input", str(csv_input), "--output", str(out))
    assert result.returncode == 1
    assert "line 2" in result.stderr and "fail" in result.stderr
    assert not out.exists()


@pytest.mark.spark
def test_malformed_csv_lines_reach_the_errors_file_with_reason_and_line(tmp_path: Path, spark: object) -> None:
    """Issue 21, bug 5: a line with an extra value, a blank line and a line that is not UTF-8 were lost without
    a trace; now each is counted and the bad ones are in the errors file, with the reason and the line."""
    data = tmp_path / "people.csv"
    data.write_bytes(b"id,name,salary\n1,ada,10\n2,bob,20,extra\n\n3,c\xffy,30\n")
    recipe = tmp_path / "r.recipe"
    recipe.write_text("set-type :salary double\n")
    out, errors = tmp_path / "out.csv", tmp_path / "errors.csv"
    result = wrangler_here(str(recipe), "--input", str(data), "--output", str(out), "--errors", str(errors))
    assert result.returncode == 0, result.stderr
    assert_counts(result.stderr, 4, 2, 2, 0, 0)
    with part_files(errors, ".csv")[0].open() as handle:
        error_rows = list(csv.DictReader(handle))
    assert sorted((row["input_line"], row["message"]) for row in error_rows) == [
        ("2,bob,20,extra", "The line has 4 values; the header has 3 columns."),
        ("3,c\ufffdy,30", "The line is not valid UTF-8 (its bytes in hex: 332C63FF792C3330)."),
    ]
    with part_files(out, ".csv")[0].open() as handle:
        assert [tuple(row.values()) for row in csv.DictReader(handle)] == [("1", "ada", "10.0"), ("", "", "")]


@pytest.mark.spark
def test_a_record_wider_than_the_recipe_names_gets_its_column_in_a_written_run(tmp_path: Path, spark: object) -> None:
    """`wrangler run --output` checks a width the recipe names inside the write (only the first lines are read
    before it): a wider line far into the file makes the run start again with the width learned, and the output
    has the extra column, as a run that learned the width first would."""
    data = tmp_path / "lines.txt"
    lines = [f"{i},n{i},{i * 10}" for i in range(3000)]
    lines[2900] = "2900,wide,29000,extra"
    data.write_text("\n".join(lines) + "\n")
    recipe = tmp_path / "wide.recipe"
    recipe.write_text("parse-as-csv :body ',' false\ndrop :body\nrename :body_1 :id\nrename :body_2 :name\n"
                      "set-type :body_3 int\n")
    out = tmp_path / "out.csv"
    result = wrangler_here(str(recipe), "--input", str(data), "--output", str(out), "--single-file")
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(out.read_text().splitlines()))
    assert list(rows[0]) == ["id", "name", "body_3", "body_4"]
    assert len(rows) == 3000
    assert rows[2900] == {"id": "2900", "name": "wide", "body_3": "29000", "body_4": "extra"}
    assert rows[1]["body_4"] == ""
    assert_counts(result.stderr, 3000, 3000, 0, 0, 0)
    assert "more fields than the recipe names; wrote the output again with 4 fields" in result.stderr
