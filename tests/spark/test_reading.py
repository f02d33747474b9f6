"""Reading line-based files for a run: every line ends up a row or an error row, and the counts reconcile.

The files are written byte by byte here (invalid UTF-8, CRLF, a BOM, a broken quote), and what each line
must become is stated from the file, not from the reader's code.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from directives.spark.runtime.files import read_table, sample_rows, user_columns, write_run, write_table
from directives.spark.runtime.runner import run

pytestmark = pytest.mark.spark

CSV = (
    b"\xef\xbb\xbfid,name,amount\r\n"   # a BOM before the header, CRLF line ends
    b"1,ada,10\r\n"
    b"2,bob,20,extra\r\n"              # one value too many: used to lose 'extra' silently
    b"3,cy\r\n"                        # one value too few
    b"\r\n"                            # a blank line: used to vanish from the count
    b'4,"dee, jr",30\r\n'              # a quoted comma: fine
    b'5,"ed ""the"" great",40\r\n'     # doubled quotes inside quotes: fine
    b'6,"fay,50\r\n'                   # the quote never closes (an odd number of quotes: CDAP's rule)
    b"7,g\xffh,60\r\n"                 # not UTF-8: used to become U+FFFD without a word
    b"8,hal,70\r\n"
)


def write(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def run_file(spark: SparkSession, path: str, fmt: str, recipe: str, header: bool = True):  # type: ignore[no-untyped-def]
    result = run(read_table(spark, path, fmt, header), recipe)
    rows = result.write(lambda df: [row.asDict() for row in df.collect()])
    errors = [row.asDict(recursive=True) for row in result.errors.collect()]
    return rows, errors, result.counts()


def test_every_csv_line_is_a_row_or_an_error_row_with_its_reason_and_raw_line(spark: SparkSession,
                                                                              tmp_path: Path) -> None:
    rows, errors, counts = run_file(spark, write(tmp_path, "people.csv", CSV), "csv", "uppercase :name")
    assert rows == [
        {"id": "1", "name": "ADA", "amount": "10"},
        {"id": None, "name": None, "amount": None},  # the blank line, as CDAP's reader makes it
        {"id": "4", "name": "DEE, JR", "amount": "30"},
        {"id": "5", "name": 'ED "THE" GREAT', "amount": "40"},
        {"id": "8", "name": "HAL", "amount": "70"},
    ]
    by_line = {error["input_line"]: error for error in errors}
    assert set(by_line) == {"2,bob,20,extra", "3,cy", '6,"fay,50', "7,g\ufffdh,60"}
    assert by_line["2,bob,20,extra"]["message"] == "The line has 4 values; the header has 3 columns."
    assert by_line["3,cy"]["message"] == "The line has 2 values; the header has 3 columns."
    assert by_line['6,"fay,50']["message"] == "The line has a quote that is never closed (an odd number of '\"')."
    assert by_line["7,g\ufffdh,60"]["message"] == "The line is not valid UTF-8 (its bytes in hex: 372C67FF682C3630)."
    for error in errors:
        assert error["directive_index"] == 0 and error["line"] == 0
        assert error["directive"].startswith("read csv ") and error["directive"].endswith("people.csv")
        assert error["row"] == {"id": None, "name": None, "amount": None}
    # 9 lines after the header; nothing lost, nothing counted twice.
    assert (counts.rows_in, counts.rows_out, counts.error_rows, counts.filtered_rows) == (9, 5, 4, 0)
    assert counts.reconciled


def test_a_directory_of_csv_files_skips_each_header_and_a_line_too_wide_for_the_parser_is_an_error(
        spark: SparkSession, tmp_path: Path) -> None:
    folder = tmp_path / "parts"
    folder.mkdir()
    (folder / "a.csv").write_bytes(b"k,v\n1,a\n")
    (folder / "b.csv").write_bytes(b"k,v\n2,b\n" + b"," * 30000 + b"\n" + b'"' + b"," * 30000 + b'",quoted\n')
    rows, errors, counts = run_file(spark, str(folder), "csv", "copy :v :w")
    assert sorted(rows, key=lambda r: r["k"]) == [{"k": "," * 30000, "v": "quoted", "w": "quoted"},
                                                  {"k": "1", "v": "a", "w": "a"}, {"k": "2", "v": "b", "w": "b"}]
    assert [error["message"] for error in errors] == ["The line has 20480 values or more; the header has 2 columns."]
    assert (counts.rows_in, counts.rows_out, counts.error_rows) == (4, 3, 1) and counts.reconciled


def test_csv_without_header_takes_its_width_from_the_first_line(spark: SparkSession, tmp_path: Path) -> None:
    rows, errors, counts = run_file(spark, write(tmp_path, "x.csv", b"a,b\nc,d,e\nf,g\n"), "csv", "drop :_c1",
                                    header=False)
    assert rows == [{"_c0": "a"}, {"_c0": "f"}]
    assert [error["message"] for error in errors] == ["The line has 3 values; the first line has 2 values."]
    assert counts.rows_in == 3 and counts.reconciled


def test_every_json_line_is_a_row_or_an_error_row(spark: SparkSession, tmp_path: Path) -> None:
    data = (b'{"id": 1, "name": "ada"}\n'
            b"\n"                                  # blank: a row of nulls
            b'[{"id": 2}, {"id": 3}]\n'            # an array, not an object
            b'{"id": 4, "name": \n'                # cut short
            b"5\n"                                 # a bare value
            b'{"id": 6, "name": "\xff"}\n'         # not UTF-8
            b'{"id": 7}\n')
    rows, errors, counts = run_file(spark, write(tmp_path, "people.json", data), "json", "uppercase :name")
    assert rows == [{"id": 1, "name": "ADA"}, {"id": None, "name": None}, {"id": 7, "name": None}]
    assert sorted((e["message"], e["input_line"]) for e in errors) == [
        ("The line is a JSON array; each line must hold one JSON object.", '[{"id": 2}, {"id": 3}]'),
        ("The line is not a JSON object.", "5"),
        ("The line is not a JSON object.", '{"id": 4, "name": '),
        ("The line is not valid UTF-8 (its bytes in hex: 7B226964223A20362C20226E616D65223A2022FF227D).",
         '{"id": 6, "name": "\ufffd"}'),
    ]
    assert (counts.rows_in, counts.rows_out, counts.error_rows) == (7, 3, 4) and counts.reconciled


def test_text_lines_that_are_not_utf8_are_errors_and_blank_lines_are_rows(spark: SparkSession,
                                                                          tmp_path: Path) -> None:
    rows, errors, counts = run_file(spark, write(tmp_path, "log.txt", b"one\n\nt\xc3(o\nthree\n"), "text",
                                    "set-column :n exp:{ body.length() }")
    assert rows == [{"body": "one", "n": 3}, {"body": "", "n": 0}, {"body": "three", "n": 5}]
    assert [(e["message"], e["input_line"]) for e in errors] == [
        ("The line is not valid UTF-8 (its bytes in hex: 74C3286F).", "t\ufffd(o")]
    assert (counts.rows_in, counts.rows_out, counts.error_rows) == (4, 3, 1) and counts.reconciled


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet", "text"])
def test_rows_in_equal_out_plus_errors_plus_filtered_for_every_input_format(spark: SparkSession, tmp_path: Path,
                                                                            fmt: str) -> None:
    """The same eight records in each format, with a reader error where the format has one (csv, json, text),
    a directive error (`set-type` on 'x') and a filtered row; the counts come from the output write."""
    values = ["1", "2", "x", "4", "5", "6", "7", "8"]
    if fmt == "parquet":
        spark.createDataFrame([(v,) for v in values], "n string").coalesce(1).write.parquet(str(tmp_path / "in"))
        path, lines = str(tmp_path / "in"), len(values)
        recipe = "set-type :n int\nfilter-row exp:{ n == 5 }"
    elif fmt == "csv":
        path = write(tmp_path, "in.csv", b"n\n" + b"".join(v.encode() + b"\n" for v in values) + b"9,9\n")
        lines, recipe = len(values) + 1, "set-type :n int\nfilter-row exp:{ n == 5 }"
    elif fmt == "json":
        path = write(tmp_path, "in.json", b"".join(b'{"n": "%s"}\n' % v.encode() for v in values) + b"{\n")
        lines, recipe = len(values) + 1, "set-type :n int\nfilter-row exp:{ n == 5 }"
    else:
        path = write(tmp_path, "in.txt", b"".join(v.encode() + b"\n" for v in values) + b"\xfe\n")
        lines, recipe = len(values) + 1, "set-type :body int\nfilter-row exp:{ body == 5 }"
    result = run(read_table(spark, path, fmt), recipe)
    out = str(tmp_path / "out")
    errors = str(tmp_path / "errors")
    write_run(result, lambda df: write_table(df, out, "parquet"), lambda df: write_table(df, errors, "parquet"))
    counts = result.counts()
    reader_errors = 0 if fmt == "parquet" else 1
    assert (counts.rows_in, counts.rows_out, counts.error_rows, counts.filtered_rows) == (
        lines, len(values) - 2, 1 + reader_errors, 1)
    assert counts.reconciled
    assert spark.read.parquet(out).count() == counts.rows_out
    assert spark.read.parquet(errors).count() == counts.error_rows


def test_user_columns_hides_the_readers_verdict(spark: SparkSession, tmp_path: Path) -> None:
    df = read_table(spark, write(tmp_path, "x.csv", b"a,b\n1,2\n3\n"), "csv")
    assert [row.asDict() for row in user_columns(df).collect()] == [{"a": "1", "b": "2"}, {"a": None, "b": None}]


def test_a_sample_leaves_out_the_lines_the_reader_rejected(spark: SparkSession, tmp_path: Path) -> None:
    """What the lineage verifier samples: rows of the user columns, never a rejected line's nulls."""
    df = read_table(spark, write(tmp_path, "x.csv", b"a,b\n1,2\n3\n4,5\n6,7\n"), "csv")
    assert sample_rows(df, 2) == [{"a": "1", "b": "2"}, {"a": "4", "b": "5"}]
