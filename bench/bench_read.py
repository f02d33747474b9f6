"""What judging every line costs when a run reads a CSV or JSON file (`read_table`), against Spark's own reader.

    python -m bench.bench_read [--rows 2000000] [--repeat 5] [--master local[*]]

`bench_run`'s generated employee rows are written once to a temporary directory, three ways: a CSV file
with a header (the dirt bench_run uses, no quotes), the same with every value quoted (what many exports
write: the quote check then runs on every line), and JSON lines. Then, in one process, each file is read
with `read_table` (every line judged: UTF-8, quoting, number of values; see `directives/spark/runtime/line_formats.py`)
and with Spark's own reader as `read_table` called it before (header, no type inference, RFC 4180 quotes;
it silently drops blank lines and cuts long lines), each written to Spark's `noop` sink, in alternating
rounds; each reports its median wall seconds and JVM CPU seconds (the fairer figure on a shared machine).
The JSON reads include the schema inference pass both ways. Besides the bare reads, "csv + recipe" runs
bench_run's recipe (without its own CSV parsing) on the CSV file, as `wrangler run --input x.csv` does: its
ratio `read_table / Spark's reader` in JVM CPU seconds is the figure with a target (≤ 1.2×). The bare reads are
printed for what they show: judging lines costs a bare CSV read a third more, a fully quoted one (quotes are
counted on every line) about two thirds, and JSON about 1.8× (`from_json` on a line parses through a character
reader; Spark's JSON source parses the bytes). Row counts must agree (the data is clean).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

#: Target for read_table / Spark's reader in JVM CPU seconds, for a read with a recipe (a run).
TARGET_RUN = 1.2
NAMES = ["id", "first_name", "last_name", "department", "salary", "ssn", "email"]


def write_inputs(spark: SparkSession, rows: int, root: Path) -> dict[str, tuple[str, str]]:
    """The three inputs: label -> (path, format)."""
    from pyspark.sql import functions as F

    from bench.bench_run import generate

    fields = F.split(F.col("body"), ",", -1)
    table = generate(spark, rows, spark.sparkContext.defaultParallelism).select(
        *(F.get(fields, i).alias(name) for i, name in enumerate(NAMES)))
    table.write.option("header", "true").csv(str(root / "plain"))
    table.write.option("header", "true").option("quoteAll", "true").csv(str(root / "quoted"))
    table.write.json(str(root / "json"))
    return {"csv": (str(root / "plain"), "csv"), "csv, every value quoted": (str(root / "quoted"), "csv"),
            "json lines": (str(root / "json"), "json")}


def spark_reader(spark: SparkSession, path: str, fmt: str) -> DataFrame:
    """How `read_table` read CSV and JSON before it judged lines (Spark's reader, defaults otherwise)."""
    if fmt == "csv":
        return (spark.read.option("header", "true").option("inferSchema", "false").option("escape", '"')
                .csv(path))
    return spark.read.json(path)


def noop(df: DataFrame) -> None:
    df.write.format("noop").mode("overwrite").save()


def column_recipe() -> str:
    """bench_run's recipe without the lines that parse and name the CSV record (the file has the columns)."""
    from bench.bench_run import RECIPE_FULL

    skipped = ("parse-as-csv", "drop :body", "rename ")
    return "\n".join(line for line in RECIPE_FULL.splitlines() if not line.startswith(skipped)) + "\n"


def with_recipe(df: DataFrame) -> None:
    """The recipe on ``df``, written to noop through `RunResult.write` (its counts come from that pass)."""
    import directives

    result = directives.run(df, column_recipe())
    result.write(noop)
    assert result.counts().reconciled


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_read", description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=5, help="alternating rounds of each reader")
    parser.add_argument("--master", default="local[*]")
    args = parser.parse_args(argv)

    from bench.bench_run import JvmClock
    from directives.spark.runtime.files import read_table
    from directives.spark.runtime.session import get_session

    spark = get_session(args.master, {"spark.sql.shuffle.partitions": "4"}, app_name="wrangler-bench-read")
    clock = JvmClock(spark)
    problems: list[str] = []
    print(f"rows: {args.rows:,}   master: {args.master}   rounds: {args.repeat} (medians)")
    print(f"{'input':<26} {'read_table':>22} {'Spark reader':>22} {'ratio wall':>11} {'ratio CPU':>10}  rows")
    print(f"{'':<26} {'wall s':>10} {'JVM CPU s':>11} {'wall s':>10} {'JVM CPU s':>11}")
    with tempfile.TemporaryDirectory(prefix="wrangler-bench-read-") as tmp:
        inputs = write_inputs(spark, args.rows, Path(tmp))
        cases = [(label, path, fmt, noop) for label, (path, fmt) in inputs.items()]
        cases.append(("csv + recipe", *inputs["csv"], with_recipe))
        for label, path, fmt, sink in cases:
            ours: Callable[[], Any] = lambda p=path, f=fmt, w=sink: w(read_table(spark, p, f))  # noqa: E731
            theirs: Callable[[], Any] = lambda p=path, f=fmt, w=sink: w(spark_reader(spark, p, f))  # noqa: E731
            ours(), theirs()  # warm-up
            rounds: dict[str, list[tuple[float, float]]] = {"ours": [], "theirs": []}
            for _ in range(args.repeat):
                for name, action in (("ours", ours), ("theirs", theirs)):
                    wall, cpu, _ = clock.best_of(1, action)
                    rounds[name].append((wall, cpu))
            medians = {name: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r))
                       for name, r in rounds.items()}
            (ours_wall, ours_cpu), (theirs_wall, theirs_cpu) = medians["ours"], medians["theirs"]
            counted = (read_table(spark, path, fmt).count(), spark_reader(spark, path, fmt).count())
            ratio = ours_cpu / theirs_cpu
            print(f"{label:<26} {ours_wall:10.2f} {ours_cpu:11.2f} {theirs_wall:10.2f} {theirs_cpu:11.2f} "
                  f"{ours_wall / theirs_wall:10.2f}× {ratio:9.2f}×  {counted[0]:,}"
                  + ("" if counted[0] == counted[1] else f" (Spark's reader: {counted[1]:,})"))
            if counted[0] != counted[1]:
                problems.append(f"{label}: row counts differ {counted}")
            if sink is with_recipe and ratio > TARGET_RUN:
                problems.append(f"{label}: read_table / Spark's reader = {ratio:.2f}× JVM CPU (target ≤ {TARGET_RUN}×)")
    for problem in problems:
        print(f"WARNING: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
