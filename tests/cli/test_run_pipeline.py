"""`wrangler run`, `check` and `lineage` on CDAP / Data Fusion pipeline exports, through the real command.

The eight exports are read from ../shared/realworld/pipelines (never copied in). Their sources are BigQuery
tables and GCS files, so each run gets a small input file with the source's fields; a variant of an export with
another `on-error` or `precondition` is written to the test's own temporary directory.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.cli.test_run_cli import assert_counts, counts_of, wrangler_here
from tests.paths import SHARED

PIPELINES = SHARED / "realworld" / "pipelines"
pytestmark = pytest.mark.skipif(not PIPELINES.is_dir(), reason="../shared/realworld/pipelines is not beside this clone")


def export(prefix: str) -> Path:
    return next(p for p in sorted(PIPELINES.glob("*.json")) if p.name.startswith(prefix))


def stage_fields(path: Path) -> list[str]:
    from directives.pipeline_export import read_pipeline

    return [f.name for f in read_pipeline(path).chain()[1][-1].output]


def write_csv(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def variant(tmp_path: Path, prefix: str, **properties: str) -> Path:
    """The export with the Wrangler stage's properties changed, in the test's temporary directory."""
    document = json.loads(export(prefix).read_text())
    for stage in document["config"]["stages"]:
        if stage["plugin"]["name"] == "Wrangler":
            stage["plugin"]["properties"].update(properties)
    path = tmp_path / f"{prefix}-variant.json"
    path.write_text(json.dumps(document))
    return path


def json_lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def bestseller(oid: str, rank: int, last_week: int, price: dict[str, str]) -> str:
    """A line of the quickstart's source: a NYT bestseller as MongoDB's extended JSON exports it."""
    return json.dumps({"_id": {"$oid": oid}, "amazon_product_url": f"http://a/{oid}", "author": "A", "description": "D",
                       "bestsellers_date": {"$date": {"$numberLong": "1211587200000"}}, "price": price,
                       "published_date": {"$date": {"$numberLong": "1212883200000"}}, "publisher": "P",
                       "rank": {"$numberInt": str(rank)}, "rank_last_week": {"$numberInt": str(last_week)},
                       "title": f"T{oid}", "weeks_on_list": {"$numberInt": "1"}})


#: A small input for each runnable export, in its source's fields. The quickstart export unnests its documents with
#: eight chained `parse-as-json` (one pass over the data learns them all); only its third book passes its filters
#: (new this week, in the top three, under 25 dollars).
INPUTS: dict[str, tuple[str, list[str], list[list[str]]]] = {
    "hub-pipeline-quickstart": ("txt", ["body"], [[bestseller("a1", 1, 0, {"$numberInt": "27"})],
                                                  [bestseller("a2", 2, 1, {"$numberDouble": "9.5"})],
                                                  [bestseller("a3", 3, 0, {"$numberDouble": "19.5"})]]),
    "parse_csv": ("txt", ["body"], [["1#2,bob,,3"], ["3,cy,z,1"]]),
    "parse_datetime": ("csv", ["id", "create_date", "timestamp"], [["1", "x", "2023-01-02T03:04:05Z[UTC]"]]),
    "parse_fixedlength": ("csv", ["url", "fixedlength"],
                          [["http://example.com:80/a/b.html?k=v", "ABCDEFGHIJKLMN"]]),
    "parse_json": ("csv", ["body", "json"],
                   [["  hi", '{"id": 7, "age": 3, "name": {"first": "a", "last": "b"}, "pet": "cat", '
                              '"height": 9}']]),
    "parse_timestamp": ("csv", ["create_date", "update_date", "time", "price"],
                        [["2023-01-02", "2023-01-05", "1700000000000", "$1.50"]]),
}


def input_file(tmp_path: Path, prefix: str) -> Path:
    kind, header, rows = INPUTS[prefix]
    if kind == "txt":
        path = tmp_path / "input.txt"
        path.write_text("".join(row[0] + "\n" for row in rows))
        return path
    return write_csv(tmp_path / "input.csv", header, rows)


@pytest.mark.spark
@pytest.mark.parametrize("prefix", sorted(set(INPUTS) - {"hub-pipeline-quickstart"}))  # its own test below
def test_each_runnable_export_runs_and_writes_its_stage_schema(tmp_path: Path, prefix: str, spark: object) -> None:
    out = tmp_path / "out.json"
    result = wrangler_here(str(export(prefix)), "--input", str(input_file(tmp_path, prefix)), "--output", str(out),
                           "--single-file", "--errors", str(tmp_path / "errors.json"))
    counts = counts_of(result.stderr)
    assert counts["reconciled"] is True
    if result.returncode != 0:  # a fail-pipeline stage whose rows failed: it says so, and writes nothing
        assert "fails the pipeline on error (on-error: fail-pipeline)" in result.stderr, result.stderr
        assert not out.exists()
        pytest.xfail(f"a row failed on this input: {result.stderr.splitlines()[-1]}")
    rows = json_lines(out)
    # every output record is built from the stage's schema: its fields, in its order (nulls left out by JSON)
    fields = stage_fields(export(prefix))
    for row in rows:
        assert list(row) == [name for name in fields if name in row]


@pytest.mark.spark
def test_quickstart_export_unnests_filters_and_sums_into_its_schema(tmp_path: Path, spark: object) -> None:
    out = tmp_path / "out.json"
    result = wrangler_here(str(export("hub-pipeline-quickstart")), "--input",
                           str(input_file(tmp_path, "hub-pipeline-quickstart")), "--output", str(out), "--single-file")
    assert result.returncode == 0, result.stderr
    assert json_lines(out) == [{"amazon_product_url": "http://a/a3", "author": "A", "description": "D",
                                "publisher": "P", "title": "Ta3", "id": "a3", "rank": 3, "price_final": 19.5}]
    assert list(json_lines(out)[0]) == stage_fields(export("hub-pipeline-quickstart"))  # the stage schema's order
    assert_counts(result.stderr, 3, 1, 0, 2, 0)


@pytest.mark.spark
def test_csv_export_parses_renames_and_multiplies_rows_into_its_schema(tmp_path: Path, spark: object) -> None:
    out = tmp_path / "out.json"
    result = wrangler_here(str(export("parse_csv")), "--input", str(input_file(tmp_path, "parse_csv")),
                           "--output", str(out), "--single-file")
    assert result.returncode == 0, result.stderr
    rows = json_lines(out)
    assert [(r["abc"], r["id"], r["body_2"], r["body_3"], r["body_4"], r["body_q"]) for r in rows] == [
        ("1#2,bob,,3", "1", "bob", "shubh", 3, "40"), ("1#2,bob,,3", "2", "bob", "shubh", 3, "40"),
        ("3,cy,z,1", "3", "cy", "z", 1, "20")]
    assert_counts(result.stderr, 2, 3, 0, 0, 1)


@pytest.mark.spark
@pytest.mark.parametrize("on_error", ["fail-pipeline", "send-to-error-port", "skip-error"])
def test_on_error_strategies(tmp_path: Path, on_error: str, spark: object) -> None:
    pipeline = variant(tmp_path, "parse_csv", **{"on-error": on_error})
    data = tmp_path / "input.txt"
    data.write_text("1,ann,b,2\n2,bo,c,oops\n")  # body_4 'oops' is no number: the second row fails
    out, errors = tmp_path / "out.csv", tmp_path / "errors.json"
    result = wrangler_here(str(pipeline), "--input", str(data), "--output", str(out), "--single-file",
                           "--errors", str(errors))
    assert_counts(result.stderr, 2, 1, 1, 0, 0)
    assert "top error reasons (1 error rows):\n  1 row(s): directive " in result.stderr  # the summary names it
    if on_error == "fail-pipeline":
        assert result.returncode == 1
        assert "stage 'Wrangler' fails the pipeline on error (on-error: fail-pipeline)" in result.stderr
        assert not out.exists()  # nothing published
        assert [row["row"]["body"] for row in json_lines(errors)] == ["2,bo,c,oops"]
        return
    assert result.returncode == 0, result.stderr
    with out.open() as handle:
        assert [row["id"] for row in csv.DictReader(handle)] == ["1"]
    written = json_lines(errors)
    if on_error == "skip-error":
        assert written == []
        assert "1 error rows not written: their stage's on-error is skip-error" in result.stderr
    else:
        assert [row["row"]["body"] for row in written] == ["2,bo,c,oops"]


@pytest.mark.spark
def test_a_precondition_skips_rows_before_the_recipe(tmp_path: Path, spark: object) -> None:
    pipeline = variant(tmp_path, "parse_csv", precondition="body =~ '^#.*'", **{"on-error": "send-to-error-port"})
    data = tmp_path / "input.txt"
    data.write_text("# a comment line\n5,eve,f,2\n")
    out = tmp_path / "out.json"
    result = wrangler_here(str(pipeline), "--input", str(data), "--output", str(out), "--single-file")
    assert result.returncode == 0, result.stderr
    assert [row["id"] for row in json_lines(out)] == ["5"]
    assert_counts(result.stderr, 2, 1, 0, 1, 0)


def test_check_reports_each_stage_of_every_export() -> None:
    import contextlib
    import io

    from server.cli import main

    for path in sorted(PIPELINES.glob("*.json")):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = main(["check", str(path), "--format", "json"])
        findings = json.loads(out.getvalue())
        assert code in (0, 1)
        assert all(f["file"].startswith(f"{path}[") for f in findings)
        assert code == (1 if any(f["severity"] == "error" for f in findings) else 0)


def test_check_finds_a_misspelt_column_in_a_stage_with_the_stage_schema(tmp_path: Path) -> None:
    import contextlib
    import io

    from server.cli import main

    pipeline = variant(tmp_path, "parse_datetime", directives="rename :timestmp :timecolumn")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["check", str(pipeline)])
    assert code == 1
    assert f"{pipeline}[Wrangler]:1:" in out.getvalue() and "timestmp" in out.getvalue()


def test_lineage_of_an_export_is_one_graph_from_source_to_sink() -> None:
    import contextlib
    import io

    from server.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["lineage", str(export("parse_datetime")), "--format", "json"])
    assert code == 0
    document = json.loads(out.getvalue())
    assert [s["name"] for s in document["stages"]] == ["BigQueryTable", "Wrangler", "BigQuery2"]
    assert document["fields"]["timecolumn"]["sources"] == [{"stage": "BigQueryTable", "field": "timestamp"}]
    edges = {(e["to"]["stage"], e["to"]["field"]): e for e in document["edges"]}
    assert edges[("Wrangler", "timecolumn")]["directives"] == [1, 3, 5, 6]
    assert edges[("BigQuery2", "timecolumn")]["from"] == [{"stage": "Wrangler", "field": "timecolumn"}]


def two_stage_export(tmp_path: Path) -> Path:
    """The csv export with a second Wrangler stage, `Tidy`, between its Wrangler stage and its sink."""
    document = json.loads(export("parse_csv").read_text())
    config = document["config"]
    wrangler = next(stage for stage in config["stages"] if stage["plugin"]["name"] == "Wrangler")
    tidy = json.loads(json.dumps(wrangler))
    tidy["name"] = "Tidy"
    tidy["plugin"]["properties"].update({"directives": "rename :body_2 :name\ndrop :abc", "on-error": "skip-error"})
    tidy["plugin"]["properties"].pop("schema", None)
    tidy.pop("outputSchema", None)
    config["stages"].append(tidy)
    sink = next(c["to"] for c in config["connections"] if c["from"] == "Wrangler")
    config["connections"] = [c for c in config["connections"] if c["from"] != "Wrangler"] + [
        {"from": "Wrangler", "to": "Tidy"}, {"from": "Tidy", "to": sink}]
    path = tmp_path / "two-stages.json"
    path.write_text(json.dumps(document))
    return path


@pytest.mark.spark
def test_a_run_of_two_wrangler_stages_records_one_run_per_stage_joined_by_their_dataset(
        tmp_path: Path, spark: object) -> None:
    from lineage.store import open_store

    store_path = tmp_path / "lineage.db"
    out = tmp_path / "out.json"
    result = wrangler_here(str(two_stage_export(tmp_path)), "--input", str(input_file(tmp_path, "parse_csv")),
                           "--output", str(out), "--single-file", "--store", str(store_path), "--namespace", "ns",
                           "--run-id", "r7")
    assert result.returncode == 0, result.stderr
    assert "lineage of runs r7.1, r7.2 (one per stage) recorded in namespace ns" in result.stderr
    assert [row["name"] for row in json_lines(out)] == ["bob", "bob", "cy"]
    with open_store(store_path) as store:
        runs = {run.run_id for run in store.runs("ns", 0, 2_000_000_000).items}
        assert runs == {"r7.1", "r7.2"}
        # the dataset between the stages is named after the stage that writes it, as the pipeline's designer shows it
        sink = next(m.destination.name for m in store.summary("ns", "Wrangler", "forward", 0, 2_000_000_000).mappings)
        chain = store.summary("ns", sink, "backward", 0, 2_000_000_000, levels=2)
        pairs = {(m.source.name, m.destination.name): {(p.source, p.target) for p in m.fieldmap}
                 for m in chain.mappings}
    source = next(a for a, b in pairs if b == "Wrangler")
    assert set(pairs) == {(source, "Wrangler"), ("Wrangler", sink)}
    # exact through the first stage's whole-schema directives (set-headers, change-column-case,
    # cleanse-column-names): the run's own columns name the members of parse-as-csv's body_<n>
    assert ("body", "body_2") in pairs[(source, "Wrangler")]
    assert not any("*" in pair for pair in pairs[(source, "Wrangler")])
    assert ("body_2", "name") in pairs[("Wrangler", sink)]
    assert not any(target == "abc" for _, target in pairs[("Wrangler", sink)])  # dropped by the second stage
