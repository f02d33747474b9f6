"""`wrangler run` tells you what happened (issue 20, point 5), through the real command on local Spark.

The recipe is checked against the input's real columns before Spark reads data; the summary always lists the
top error reasons; `--max-error-rate` (by default: every row failed) fails a run without publishing its output;
`--single-file` writes one file; `--errors` works without `--output`; a CSV header line read by `parse-as-csv …
true` is not a filtered row; `--output-schema` declares the result's columns and types.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.cli.test_run_cli import ROWS, assert_counts, counts_of, wrangler_here


@pytest.fixture
def people(tmp_path: Path) -> Path:
    path = tmp_path / "people.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "name", "salary"])
        writer.writerows(ROWS)
    return path


def recipe(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "r.recipe"
    path.write_text(text)
    return path


# -- before Spark reads the data -------------------------------------------------------------------------------------
def test_renaming_a_column_the_input_does_not_have_stops_before_spark(tmp_path: Path, people: Path) -> None:
    result = wrangler_here(str(recipe(tmp_path, "rename :nme :who\n")), "--input", str(people))
    assert result.returncode == 1
    assert "column-not-found" in result.stderr and "nme" in result.stderr and "Did you mean 'name'" in result.stderr
    assert "stopped before reading the data" in result.stderr and "its columns: id, name, salary" in result.stderr
    assert "starting Spark" not in result.stderr


def test_a_finding_that_does_not_stop_the_run_is_printed_as_a_warning(tmp_path: Path, people: Path) -> None:
    """`uppercase` of a missing column does not stop the run (only a rename, drop, swap or keep does): its line says
    "warning", as the run then goes on."""
    from server.cli.run_gates import check_against_input
    from server.cli.run_plan import plan_from

    text = "uppercase :nosuch\nrename :nme :who\n"
    findings, _ = check_against_input(plan_from(str(tmp_path / "r.recipe"), text), str(people), "csv", True)
    lines = {finding.line: finding.text() for finding in findings}
    assert "warning [column-not-found]" in lines[1] and "nosuch" in lines[1]
    assert "error [column-not-found]" in lines[2] and [f.line for f in findings if f.stops] == [2]


@pytest.mark.spark
def test_a_recipe_for_raw_lines_on_a_csv_read_with_its_header_says_how_to_read_the_lines(
        tmp_path: Path, people: Path, spark: object) -> None:
    """A Wrangler recipe parses each line from `:body` (a pipeline's File source hands it the lines); `wrangler run`
    reads a `.csv` with its header as columns, so `body` is missing and the parse passes every row through. The run
    goes on (the rest may be what the user meant), with a hint naming the option that reads the lines; with that
    option the same recipe parses the header itself, and no hint is given."""
    text = "parse-as-csv :body ',' true\ndrop :body\nset-type :salary double\n"
    as_table = wrangler_here(str(recipe(tmp_path, text)), "--input", str(people))
    assert as_table.returncode == 0, as_table.stderr
    (hint,) = [line for line in as_table.stderr.splitlines() if line.startswith("wrangler run: hint:")]
    assert "read as CSV, with its header line as column names (id, name, salary)" in hint
    assert "--input-format text reads every line into :body" in hint
    as_lines = wrangler_here(str(recipe(tmp_path, text)), "--input", str(people), "--input-format", "text")
    assert as_lines.returncode == 0, as_lines.stderr
    assert "hint:" not in as_lines.stderr and "column-not-found" not in as_lines.stderr
    assert [json.loads(line)["name"] for line in as_lines.stdout.splitlines()] == ["ada", "cy"]  # bob: not a number
    assert_counts(as_lines.stderr, 4, 2, 1, 0, 0)


def test_no_lines_hint_for_other_missing_columns_or_formats(people: Path) -> None:
    """Only a missing `body`, on a file a text read would give `body`: a misspelt header column is the user's typo,
    and a parquet file has no lines to read."""
    from server.cli.sample_input import read_as_lines_hint

    columns = ["id", "name", "salary"]
    assert read_as_lines_hint(["nme"], "csv", columns, "--input-format") is None
    assert read_as_lines_hint(["body"], "parquet", columns, "--input-format") is None
    assert read_as_lines_hint(["body"], "text", ["body"], "--input-format") is None
    assert read_as_lines_hint(["BODY"], "json", columns, "--x") == (
        "the recipe reads each line from :body, but the file was read as JSON, with each object's keys as column names "
        "(id, name, salary); --x text reads every line into :body, as Wrangler's File source does")


@pytest.mark.spark
@pytest.mark.parametrize("later", ["parse-as-csv :pair '|' false",
                                   "parse-as-csv :pair '|' false\ndrop :pair_1,:pair_2"])
def test_rows_in_is_every_input_row_when_a_job_reads_only_the_first_ones_before_the_write(
        tmp_path: Path, later: str, spark: object) -> None:
    """A directive that multiplies rows makes the run count its input rows apart. Learning `parse-as-csv`'s width reads
    the first records of that same plan first (all of them when the recipe does not name the fields, only the first
    ones when it does): the input count is the write's, not that job's (it was 500 of 3,000 rows)."""
    from directives.spark.compile.csvsplit import SAMPLE_RECORDS

    rows = 3 * SAMPLE_RECORDS
    data = tmp_path / "in.csv"
    data.write_text("id,tags,pair\n" + "".join(f"{i},a;b,x|y\n" for i in range(rows)))
    result = wrangler_here(str(recipe(tmp_path, f"split-to-rows :tags ';'\n{later}\n")), "--input", str(data),
                           "--output", str(tmp_path / "out"), "--output-format", "json")
    assert result.returncode == 0, result.stderr
    assert_counts(result.stderr, rows, 2 * rows, 0, 0, rows)
    assert "counted by the write's own filters" in result.stderr


@pytest.mark.spark
def test_lenient_runs_anyway_and_reports_the_finding(tmp_path: Path, people: Path, spark: object) -> None:
    result = wrangler_here(str(recipe(tmp_path, "drop :nosuch\n")), "--input", str(people), "--lenient")
    assert result.returncode == 0, result.stderr
    assert "nosuch" in result.stderr and "starting Spark" in result.stderr and "Spark ready in" in result.stderr
    assert_counts(result.stderr, 3, 3, 0, 0, 0)


# -- error rate and reasons ------------------------------------------------------------------------------------------
@pytest.mark.spark
def test_the_summary_lists_the_top_error_reasons(tmp_path: Path, people: Path, spark: object) -> None:
    counts_file = tmp_path / "counts.json"
    result = wrangler_here(str(recipe(tmp_path, "set-type :salary double\n")), "--input", str(people),
                           "--counts-json", str(counts_file))
    assert result.returncode == 0, result.stderr
    assert "top error reasons (1 error rows):" in result.stderr
    reason = json.loads(counts_file.read_text())["top_errors"]
    assert [(r["directive_index"], r["rows"]) for r in reason] == [(1, 1)]
    assert reason[0]["example"] == "Column 'salary' cannot be converted to a 'double'."  # Wrangler's message


@pytest.mark.spark
def test_max_error_rate_fails_the_run_and_publishes_no_output(tmp_path: Path, people: Path, spark: object) -> None:
    out, errors = tmp_path / "out.csv", tmp_path / "errors.json"
    result = wrangler_here(str(recipe(tmp_path, "set-type :salary double\n")), "--input", str(people),
                           "--output", str(out), "--errors", str(errors), "--max-error-rate", "0.2")
    assert result.returncode == 1
    assert "FAILED: 33.3% of the rows failed (1 of 3), more than --max-error-rate 0.2" in result.stderr
    assert "set-type" in result.stderr  # the reasons come with the failure
    assert not out.exists() and errors.is_dir()  # the error rows are there to read; the output is not
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging left behind


@pytest.mark.spark
def test_by_default_a_run_fails_only_when_every_row_failed(tmp_path: Path, people: Path, spark: object) -> None:
    result = wrangler_here(str(recipe(tmp_path, "set-type :name double\n")), "--input", str(people))
    assert result.returncode == 1
    assert "FAILED: every row failed (3 of 3)" in result.stderr
    assert "3 row(s): directive 1 ('set-type :name double', line 1)" in result.stderr


# -- outputs ---------------------------------------------------------------------------------------------------------
@pytest.mark.spark
def test_single_file_outputs_and_errors_without_output(tmp_path: Path, people: Path, spark: object) -> None:
    out, errors = tmp_path / "out.csv", tmp_path / "errors.json"
    result = wrangler_here(str(recipe(tmp_path, "set-type :salary double\n")), "--input", str(people),
                           "--output", str(out), "--errors", str(errors), "--single-file")
    assert result.returncode == 0, result.stderr
    assert out.is_file() and errors.is_file()
    with out.open() as handle:
        assert [row["id"] for row in csv.DictReader(handle)] == ["1", "3"]
    assert [json.loads(line)["row"]["name"] for line in errors.read_text().splitlines()] == ["bob"]
    # --errors alone: the output rows on stdout, the error rows in their file
    alone = tmp_path / "alone.json"
    result = wrangler_here(str(recipe(tmp_path, "set-type :salary double\n")), "--input", str(people),
                           "--errors", str(alone), "--single-file")
    assert result.returncode == 0, result.stderr
    assert [json.loads(line)["id"] for line in result.stdout.splitlines()] == ["1", "3"]
    assert len(alone.read_text().splitlines()) == 1


@pytest.mark.spark
def test_a_header_line_read_by_parse_as_csv_is_not_a_filtered_row(tmp_path: Path, spark: object) -> None:
    data = tmp_path / "lines.txt"
    data.write_text("id,name\n1,ada\n2,bob\n")
    result = wrangler_here(str(recipe(tmp_path, "parse-as-csv :body ',' true\ndrop :body\n")), "--input", str(data))
    assert result.returncode == 0, result.stderr
    assert [json.loads(line) for line in result.stdout.splitlines()] == [{"id": "1", "name": "ada"},
                                                                         {"id": "2", "name": "bob"}]
    assert_counts(result.stderr, 3, 2, 0, 0, 0)
    assert counts_of(result.stderr)["header_rows"] == 1
    assert "0 filtered, 0 added, 1 header line read as column names — reconciled" in result.stderr


# -- output schema ---------------------------------------------------------------------------------------------------
@pytest.mark.spark
def test_output_schema_orders_and_casts_columns(tmp_path: Path, people: Path, spark: object) -> None:
    schema = tmp_path / "schema.ddl"
    schema.write_text("who STRING, id INT, salary DOUBLE")
    result = wrangler_here(str(recipe(tmp_path, "rename :name :who\n")), "--input", str(people),
                           "--output-schema", str(schema))
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert rows[0] == {"who": "ada", "id": 1, "salary": 10.0}
    assert_counts(result.stderr, 3, 2, 1, 0, 0)  # 'oops' is not a double: an error row, with the reason
    assert "is not a valid double" in result.stderr


@pytest.mark.spark
def test_an_avro_output_schema_naming_a_column_the_recipe_does_not_make_is_an_error(tmp_path: Path, people: Path,
                                                                                       spark: object) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"type": "record", "name": "out", "fields": [
        {"name": "who", "type": ["string", "null"]}, {"name": "age", "type": ["int", "null"]}]}))
    out = tmp_path / "out.parquet"
    result = wrangler_here(str(recipe(tmp_path, "rename :name :who\n")), "--input", str(people),
                           "--output-schema", str(schema), "--output", str(out))
    assert result.returncode == 1
    assert "the output schema names 1 column(s) the recipe does not make: age" in result.stderr
    assert not out.exists()


def test_progress_line_reads_spark_metrics_as_rows_percentage_and_eta() -> None:
    from directives.spark.runtime.progress import Snapshot, describe

    line = describe(Snapshot(elapsed=10.0, records=250_000, bytes=25_000_000, tasks_done=1, tasks=4),
                    total_bytes=100_000_000, bar=True)
    assert line == "[######------------------] 25% · 250,000 rows read of ~1,000,000 · 10s · ETA 30s"
    assert describe(Snapshot(3.0, 1234, 0, 2, 8), None) == "1,234 rows read · 2/8 tasks · 3s"


@pytest.mark.spark
def test_progress_reads_the_running_stage_from_sparks_status_store(tmp_path: Path, spark) -> None:
    """A job held open by a flag file (no timing involved): while it runs, the snapshot sees its stage; after, none."""
    import io
    import os
    import threading

    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    from directives.spark.runtime.progress import Progress, read_snapshot

    flag = tmp_path / "release"

    def hold(value: int) -> int:
        import time

        while not os.path.exists(str(flag)):
            time.sleep(0.05)
        return value

    held = F.udf(lambda value: hold(value), T.IntegerType())  # a lambda: no type hints for Spark to misread
    job = threading.Thread(target=lambda: spark.range(4).select(held("id")).collect())
    lines = io.StringIO()
    job.start()
    try:
        with Progress(spark, "lines", total_bytes=None, interval=0.05, stream=lines):
            snapshot = None
            for _ in range(6000):  # until the stage shows up and a line is printed (bounded: the job waits for us)
                snapshot = read_snapshot(spark, 0.0)
                if snapshot is not None and "rows read" in lines.getvalue():
                    break
                threading.Event().wait(0.05)
        assert snapshot is not None and snapshot.tasks >= 1 and snapshot.tasks_done < snapshot.tasks
        # without a terminal: plain lines, no bar, no carriage return
        first = lines.getvalue().splitlines()[0]
        assert first.startswith("wrangler run: 0 rows read · 0/") and "\r" not in lines.getvalue()
    finally:
        flag.write_text("go")
        job.join()
    spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty(10_000)  # the stage's end reached the status store
    assert read_snapshot(spark, 0.0) is None
