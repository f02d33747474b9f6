"""What recording lineage adds to a `wrangler run` (target: ≤ 1 % of the run).

    python -m bench.bench_run_lineage [--rows 2000000] [--repeat 3] [--master local[*]]

`bench_run`'s recipe and generated rows, written once as a text file in a temporary directory (one
CSV line per row, as `wrangler run --input rows.txt` reads it). Then, in one process and one Spark
session, the steps of `wrangler run RECIPE --input rows.txt --output out.parquet --overwrite` are
repeated with the functions the CLI calls (`read_table`, `directives.run`, `write_table`, counts) and,
for every other run, `--store`'s step too: `record_lineage`, which builds the run's column lineage
from the recipe and writes it to a SQLite store in the temporary directory.

Two numbers, because a difference of two Spark runs on a shared machine is noisier than 1 %:

* **recording step** — the lineage step's own time over the best run without it (the direct measure);
* **run difference** — best run with lineage minus best run without, over the latter (can be negative).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET_PERCENT = 1.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_run_lineage", description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs with and runs without lineage (each)")
    parser.add_argument("--master", default="local[*]")
    args = parser.parse_args(argv)

    import directives
    from bench.bench_run import RECIPE_FULL, generate
    from directives.spark.runtime.files import column_names, read_table, write_table
    from directives.spark.runtime.session import get_session
    from server.cli.run_command import RunOptions, record_lineage

    spark = get_session(args.master, {"spark.sql.shuffle.partitions": "4"}, app_name="wrangler-bench-lineage")
    with tempfile.TemporaryDirectory(prefix="wrangler-bench-lineage-") as tmp:
        root = Path(tmp)
        data, output, store = root / "rows.txt", root / "out.parquet", root / "lineage.sqlite"
        recipe_path = root / "employees.recipe"
        recipe_path.write_text(RECIPE_FULL)
        generate(spark, args.rows, spark.sparkContext.defaultParallelism).write.text(str(data))
        options = RunOptions(str(recipe_path), RECIPE_FULL, str(data), "text", str(output), "parquet", None, {},
                             record=True)
        cli_args = argparse.Namespace(namespace="bench", store=str(store), run_id=None, source_name=None,
                                      destination_name=None, header=False, overwrite=True)

        def run(record: bool) -> dict[str, Any]:
            """One `wrangler run` (the CLI's steps in its order); seconds of the run and of the lineage step."""
            started_wall = time.perf_counter()
            started = int(time.time())
            df = read_table(spark, options.input, options.input_format, header=False)
            recipe = directives.parse(options.recipe_text, schema=column_names(df))
            result = directives.run(df, recipe)
            columns = list(result.df.columns)
            result.write(lambda out: write_table(out, str(output), "parquet", header=False, overwrite=True))
            counts = result.counts()
            assert counts.reconciled, counts
            lineage_seconds = 0.0
            if record:
                lineage_started = time.perf_counter()
                record_lineage(cli_args, options, recipe, columns, started, int(time.time()))
                lineage_seconds = time.perf_counter() - lineage_started
            return {"total": time.perf_counter() - started_wall, "lineage": lineage_seconds, "counts": counts}

        run(record=False)  # warm-up: JVM code paths, the lineage modules' imports, the store's schema
        run(record=True)
        without, with_lineage = [], []
        for _ in range(args.repeat):  # interleaved, so drift in the machine's load hits both alike
            without.append(run(record=False))
            with_lineage.append(run(record=True))

    best_without = min(r["total"] for r in without)
    best_with = min(r["total"] for r in with_lineage)
    lineage_steps = [r["lineage"] for r in with_lineage]
    step = min(lineage_steps)
    counts = without[0]["counts"]
    print(f"rows: {args.rows:,}   master: {args.master}   runs: {args.repeat} with and {args.repeat} without "
          "lineage")
    print(f"counts: {counts.to_dict()}")
    def listed(runs: list[dict[str, Any]]) -> str:
        return ", ".join(f"{r['total']:.2f}" for r in runs)

    print(f"run without lineage (best):  {best_without:8.2f} s   all: {listed(without)}")
    print(f"run with lineage (best):     {best_with:8.2f} s   all: {listed(with_lineage)}")
    print(f"lineage step (record_lineage): best {step * 1000:.1f} ms, worst {max(lineage_steps) * 1000:.1f} ms")
    step_percent = 100 * step / best_without
    difference_percent = 100 * (best_with - best_without) / best_without
    print(f"lineage overhead: recording step = {step_percent:.3f} % of the run; "
          f"run difference = {difference_percent:+.2f} % (target ≤ {TARGET_PERCENT:g} %)")
    return 0 if step_percent <= TARGET_PERCENT else 1


if __name__ == "__main__":
    raise SystemExit(main())
