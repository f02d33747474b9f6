"""Run a realistic recipe on generated rows and compare it with two ways of doing the same without us.

    python -m bench.bench_run [--rows 2000000] [--recipe full|available] [--repeat 5] [--warmup 2]
                              [--master local[*]]
                              [--driver-memory 8g]

In one process, on the same cached input (one CSV line per row in `body`, as Wrangler sees a file):

* **wrangler** — `directives.run(df, recipe, output_schema=…)`, output written to Spark's `noop` sink through
  `RunResult.write` (so the reconciled counts come from the same pass), timed from the call to `run` (building the
  plan is part of what a user waits for): the output schema is what the hand-written pipelines know too (the
  record's columns), so `parse-as-csv` needs no pass to learn its width (target: ≤ 1.10× the faster of (a) and
  (a'));
* **wrangler, no output_schema** — the same without it, as `wrangler run --output` runs it: the recipe names
  every field, so the first records are read to check that guess and the write's own pass checks the others
  (`widths_in_write`; a wider record would stop it and the run would start again with the width learned)
  (target: ≤ 1.5× the faster of (a) and (a'));
* **(a) hand-written PySpark** — the same pipeline as a data engineer would write it with built-in
  functions, `from_csv` for the record; (a') is the same with `split` on the comma, which is only right for data
  without quotes; both timed with their DataFrame building;
* **(b) row-at-a-time Python** — the same recipe interpreted per row in Python workers via
  `mapPartitions` (`bench/rowexec.py`; target: wrangler ≥ 10× faster).

`--recipe available` keeps only the directives that have a Spark compiler (the full recipe needs
every one of them; the default picks `full` when it can). wrangler, (a) and (a') run in `--repeat` alternating
rounds (so a shared machine's slow spells hit both alike; each round starts with a different pipeline) after
`--warmup` rounds that are shown but not counted (the JVM's JIT is still compiling then, and compiling a recipe runs
more of Spark's code than a hand-written pipeline does: a cold first round costs us more, which the warm-up rounds
show), and each reports its median round, in wall seconds and in CPU seconds of the Spark JVM, with its best round
beside it; (b) runs once. The outputs
are checked, untimed: row count and a checksum of all values must agree between wrangler and (a) on all
rows, and between wrangler and (b) on a sample (input ids below `--sample`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

RECIPE_FULL = """\
parse-as-csv :body ',' false
drop :body
rename :body_1 :id
rename :body_2 :first_name
rename :body_3 :last_name
rename :body_4 :department
rename :body_5 :salary
rename :body_6 :ssn
rename :body_7 :email
trim :first_name
uppercase :department
set-type :salary double
fill-null-or-empty :email 'unknown@example.com'
merge :first_name :last_name :full_name ' '
set-column :monthly exp:{ salary / 12 }
filter-row exp:{ department == 'MANAGEMENT' }
mask-number :ssn 'xxx-xx-####'
hash :email 'SHA-256' true
drop :first_name,:last_name
"""
CSV_WIDTH = 7
OUTPUT = ["id", "department", "salary", "ssn", "email", "full_name", "monthly"]
#: The recipe's output schema, as a pipeline stage declares it (and the hand-written pipelines know it).
OUTPUT_SCHEMA = ("id STRING, department STRING, salary DOUBLE, ssn STRING, email STRING, full_name STRING, "
                 "monthly DOUBLE")


def available_recipe(text: str) -> tuple[str, list[str]]:
    """The recipe without the directives that have no Spark compiler yet, and the names left out."""
    import directives
    from directives.spark.compilers import COMPILERS, load_all

    load_all()
    parsed = directives.parse(text, schema=["body"])
    lines = text.splitlines()
    missing = [d.name for d in parsed.directives if type(d) not in COMPILERS]
    kept = [lines[d.call.span.line - 1] for d in parsed.directives if type(d) in COMPILERS]
    return "\n".join(kept) + "\n", missing


# -- data ------------------------------------------------------------------------------------------------------------
def generate(spark: SparkSession, rows: int, partitions: int) -> DataFrame:
    """Employee-like CSV lines with the dirt the recipe cleans: padded names, mixed-case departments,
    empty and non-numeric salaries (→ error rows), missing e-mails, managers (→ filtered)."""
    from pyspark.sql import functions as F

    n = F.col("id")

    def pick(values: list[str], key: Any) -> Any:
        return F.element_at(F.array(*(F.lit(v) for v in values)), (F.pmod(key, F.lit(len(values))) + 1).cast("int"))

    first = pick([" Ada ", "Grace", "Alan ", " Katherine", "Edsger", "Barbara", "Donald"], n)
    last = pick(["Lovelace", "Hopper", "Turing", "Johnson", "Dijkstra", "Liskov"], F.floor(n / 7))
    department = pick(["Engineering", "engineering", "Research", "research", "Management", "Sales", "sales"],
                      F.floor(n / 3))
    salary = (F.when(F.pmod(n, F.lit(97)) == 0, F.lit("n/a"))
              .when(F.pmod(n, F.lit(89)) == 0, F.lit(""))
              .otherwise((F.lit(30000) + F.pmod(n * 7919, F.lit(90000))).cast("string")))
    ssn = F.format_string("%03d-%02d-%04d", F.pmod(n, F.lit(1000)), F.pmod(n, F.lit(100)), F.pmod(n, F.lit(10000)))
    email = F.when(F.pmod(n, F.lit(13)) == 0, F.lit("")).otherwise(
        F.concat(F.lower(F.trim(first)), F.lit("."), n.cast("string"), F.lit("@example.com")))
    body = F.concat_ws(",", n.cast("string"), first, last, department, salary, ssn, email)
    return spark.range(0, rows, numPartitions=partitions).select(body.alias("body"))


# -- (a) the same pipeline, hand-written -------------------------------------------------------------------------------
def handwritten(df: DataFrame, split: bool = False) -> DataFrame:
    """(a); with ``split``, (a'): fields by `split` on the comma, which is only right for data without quotes
    (the generated data has none, so the output is the same; reported for reference, not the target)."""
    from pyspark.sql import functions as F

    names = ["id", "first_name", "last_name", "department", "salary", "ssn", "email"]
    if split:
        parts = df.select(F.split("body", ",", -1).alias("f"))
        cols = parts.select(*(F.get(F.col("f"), i).alias(name) for i, name in enumerate(names)))
    else:
        schema = ", ".join(f"c{i} STRING" for i in range(CSV_WIDTH))
        parsed = df.select(F.from_csv("body", schema, {"sep": ","}).alias("f"))
        cols = parsed.select(*(F.col(f"f.c{i}").alias(name) for i, name in enumerate(names)))
    salary = F.when(F.col("salary").isNull() | (F.col("salary") == ""), F.lit(None)).otherwise(
        F.col("salary").cast("double"))
    bad_salary = salary.isNull()  # not a number → error; empty → null, and `null / 12` is an error in JEXL
    department = F.upper("department")
    email = F.when(F.col("email").isNull() | (F.col("email") == ""), F.lit("unknown@example.com")).otherwise(
        F.col("email"))
    full_name = F.concat(F.coalesce(F.trim("first_name"), F.lit("null")), F.lit(" "),
                         F.coalesce(F.col("last_name"), F.lit("null")))
    return (cols.filter(~bad_salary)
            .filter(~F.coalesce(department == "MANAGEMENT", F.lit(False)))
            .select(F.col("id"), department.alias("department"), salary.alias("salary"),
                    F.concat(F.lit("xxx-xx-"), F.substring("ssn", 8, 4)).alias("ssn"),
                    F.sha2(email, 256).alias("email"), full_name.alias("full_name"),
                    (salary / 12).alias("monthly")))


# -- timing ------------------------------------------------------------------------------------------------------------
class JvmClock:
    """Wall time and the Spark JVM's CPU time (local masters: the JVM is on this machine, /proc has it).

    The machine is shared, so the CPU seconds spent by the JVM (where codegen'd plans run) are the fairer
    number for (a); wall time is what a user sees. Python workers of (b) are not in the JVM's CPU time.
    """

    def __init__(self, spark: SparkSession) -> None:
        self.stat: Path | None = None
        try:
            pid = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()  # type: ignore[union-attr]
            stat = Path(f"/proc/{pid}/stat")
            self.stat = stat if stat.exists() else None
        except Exception:  # a remote JVM, or no /proc: report wall time only
            self.stat = None

    def cpu(self) -> float:
        if self.stat is None:
            return float("nan")
        fields = self.stat.read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def best_of(self, repeat: int, action: Callable[[], Any]) -> tuple[float, float, Any]:
        """Best wall seconds, best JVM CPU seconds and the last value of ``repeat`` runs."""
        wall, cpu, value = float("inf"), float("inf"), None
        for _ in range(repeat):
            started, started_cpu = time.perf_counter(), self.cpu()
            value = action()
            wall = min(wall, time.perf_counter() - started)
            cpu = min(cpu, self.cpu() - started_cpu)
        return wall, cpu, value


def noop(df: DataFrame) -> None:
    df.write.format("noop").mode("overwrite").save()


def checksum(df: DataFrame) -> tuple[int, int]:
    """Row count and an order-free checksum of the output values (every column as text), in one pass."""
    from pyspark.sql import functions as F

    row_hash = F.xxhash64(*(F.coalesce(F.col(c).cast("string"), F.lit("\u0000null")) for c in OUTPUT))
    row = df.agg(F.count(F.lit(1)).alias("n"), F.sum(row_hash.cast("decimal(38,0)")).alias("sum")).collect()[0]
    return int(row["n"]), int(row["sum"] or 0)


def python_output(spark: SparkSession, source: DataFrame, recipe: str) -> DataFrame:
    """The row-at-a-time executor's output as a DataFrame with the wrangler output's types (for the checksum)."""
    from bench.rowexec import run_partition

    schema = "id string, department string, salary double, ssn string, email string, full_name string, " \
             "monthly double"
    return spark.createDataFrame(source.rdd.mapPartitions(run_partition(recipe, ["body"])), schema)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_run", description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--recipe", choices=("full", "available"), help="default: full if every directive compiles")
    parser.add_argument("--repeat", type=int, default=5, help="alternating rounds of wrangler and (a)")
    parser.add_argument("--warmup", type=int, default=2,
                        help="rounds of every pipeline first, shown but not counted (the JIT is still compiling)")
    parser.add_argument("--partitions", type=int, default=0, help="default: Spark's default parallelism")
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--driver-memory", default="",
                        help="the Spark driver's heap (e.g. 8g for --rows 20000000, whose cached input would not fit "
                             "Spark's default 1g and be re-read from disk every round)")
    parser.add_argument("--skip-python", action="store_true", help="skip the (slow) row-at-a-time baseline")
    parser.add_argument("--sample", type=int, default=20_000,
                        help="input ids below this are the sample on which (b)'s output is checked")
    args = parser.parse_args(argv)

    from pyspark.sql import functions as F

    import directives
    from bench.rowexec import run_partition
    from directives.spark.runtime.session import get_session

    recipe, missing = available_recipe(RECIPE_FULL)
    choice = args.recipe or ("full" if not missing else "available")
    if choice == "full":
        if missing:
            parser.error(f"the full recipe needs compilers for: {', '.join(missing)}; use --recipe available")
        recipe = RECIPE_FULL
    settings = {"spark.sql.shuffle.partitions": "4"}
    if args.driver_memory:
        settings["spark.driver.memory"] = args.driver_memory
    spark = get_session(args.master, settings, app_name="wrangler-bench")
    clock = JvmClock(spark)
    partitions = args.partitions or spark.sparkContext.defaultParallelism
    source = generate(spark, args.rows, partitions).cache()
    source.count()  # generation is not what we measure
    print(f"rows: {args.rows:,}   partitions: {partitions}   master: {args.master}   recipe: {choice} "
          f"({len(directives.parse(recipe, schema=['body']).directives)} directives)"
          + (f"   left out (no compiler yet): {', '.join(missing)}" if choice == "available" and missing else ""))

    schema = OUTPUT_SCHEMA if choice == "full" else None

    def wrangler_output(df: DataFrame) -> DataFrame:
        return directives.run(df, recipe, output_schema=schema).df

    def wrangler(declared: str | None = schema) -> Any:
        # as `wrangler run --output` runs it: a width the recipe names is checked inside the write's pass
        result = directives.run(source, recipe, output_schema=declared, widths_in_write=True)
        result.write(noop)
        return result.counts()

    noop(handwritten(source.limit(1000)))  # warm up the JVM's code paths once for both
    noop(wrangler_output(source.limit(1000)))
    timings: dict[str, tuple[float, float]] = {}
    best: dict[str, float] = {}
    rows_out: dict[str, int] = {}
    ours_label, hand_label = "wrangler (compiled to Spark)", "(a) hand-written PySpark"
    split_label, learning_label = "(a') hand-written, split", "wrangler, no output_schema"
    # Rounds alternate between wrangler and (a), so that a shared machine's slow spells hit both alike;
    # each reports its median round (and its best, for reference).
    rounds: dict[str, list[tuple[float, float]]] = {ours_label: []}
    if choice == "full":
        rounds[hand_label], rounds[split_label], rounds[learning_label] = [], [], []
    pipelines: dict[str, Callable[[], Any]] = {ours_label: wrangler}
    if choice == "full":
        pipelines[learning_label] = lambda: wrangler(None)
        pipelines[hand_label] = lambda: noop(handwritten(source))
        pipelines[split_label] = lambda: noop(handwritten(source, split=True))
    counts = None
    warming: dict[str, list[float]] = {label: [] for label in rounds}
    for round_number in range(args.warmup + args.repeat):
        shift = round_number % len(pipelines)  # each round starts with another pipeline: no position favoured
        order = list(pipelines)[shift:] + list(pipelines)[:shift]
        for label in order:
            wall, cpu, value = clock.best_of(1, pipelines[label])
            if label == ours_label:
                counts = value
            if round_number < args.warmup:
                warming[label].append(wall)
            else:
                rounds[label].append((wall, cpu))
    for label, samples in rounds.items():
        timings[label] = (statistics.median(w for w, _ in samples), statistics.median(c for _, c in samples))
        best[label] = min(w for w, _ in samples)
        warm = f" (warm-up, not counted: {' '.join(f'{w:.2f}' for w in warming[label])})" if warming[label] else ""
        print(f"rounds, wall s: {label:<30} {' '.join(f'{w:.2f}' for w, _ in samples)}{warm}")
    assert counts is not None
    rows_out[ours_label] = counts.rows_out
    if learning_label in rounds:
        rows_out[learning_label] = wrangler(None).rows_out
    problems: list[str] = []
    if not counts.reconciled or min(counts.rows_out, counts.error_rows, counts.filtered_rows) < 0:
        problems.append(f"counts do not reconcile: {counts.to_dict()}")
    if choice == "full":
        label = hand_label
        ours, theirs = checksum(wrangler_output(source)), checksum(handwritten(source))
        rows_out[label] = theirs[0]
        print(f"output check (a): wrangler {ours[0]:,} rows, checksum {ours[1]}; hand-written {theirs[0]:,} rows, "
              f"checksum {theirs[1]} → {'same' if ours == theirs else 'DIFFERENT'}")
        if ours != theirs:
            problems.append("wrangler and the hand-written pipeline produce different outputs")
        learning_sum = checksum(directives.run(source, recipe, widths_in_write=True).df)
        if learning_sum != ours:
            problems.append("wrangler without output_schema produces a different output")
        split_sum = checksum(handwritten(source, split=True))
        rows_out[split_label] = split_sum[0]
        if split_sum != ours:
            problems.append("wrangler and the hand-written pipeline with split produce different outputs")
    if not args.skip_python:
        label = "(b) row-at-a-time Python"
        wall, cpu, rows_out[label] = clock.best_of(
            1, lambda: source.rdd.mapPartitions(run_partition(recipe, ["body"])).count())
        timings[label], best[label] = (wall, cpu), wall
        if choice == "full":
            sample = source.filter(F.substring_index("body", ",", 1).cast("long") < args.sample)
            ours, theirs = checksum(wrangler_output(sample)), checksum(python_output(spark, sample, recipe))
            print(f"output check (b) on ids < {args.sample:,}: wrangler {ours[0]:,} rows, checksum {ours[1]}; "
                  f"row-at-a-time {theirs[0]:,} rows, checksum {theirs[1]} → "
                  f"{'same' if ours == theirs else 'DIFFERENT'}")
            if ours != theirs:
                problems.append("wrangler and the row-at-a-time executor produce different outputs")

    print(f"counts: {counts.to_dict()}")
    print(f"medians of {args.repeat} alternating rounds after {args.warmup} warm-up rounds ((b): one run)")
    print(f"{'pipeline':<30} {'wall s':>8} {'best s':>8} {'JVM CPU s':>10} {'rows/s':>12} {'rows out':>10}  "
          "wall vs wrangler")
    base_wall = timings[ours_label][0]
    for label, (wall, cpu) in timings.items():
        print(f"{label:<30} {wall:8.2f} {best[label]:8.2f} {cpu:10.2f} {args.rows / wall:12,.0f} "
              f"{rows_out[label]:10,}  {wall / base_wall:6.2f}×")
    ours_wall, ours_cpu = timings[ours_label]
    if hand_label in timings:
        hand_wall, hand_cpu = timings[hand_label]
        split_wall, split_cpu = timings[split_label]
        faster = hand_label if hand_wall <= split_wall else split_label
        fast_wall, fast_cpu = timings[faster]
        print(f"wrangler / hand-written (a) = {ours_wall / hand_wall:.2f}× wall, {ours_cpu / hand_cpu:.2f}× JVM CPU; "
              f"/ (a') split = {ours_wall / split_wall:.2f}× wall, {ours_cpu / split_cpu:.2f}× JVM CPU (medians, "
              "build included)")
        print(f"wrangler with output_schema / the faster hand-written ({faster[:4].strip()}) = "
              f"{ours_wall / fast_wall:.2f}× wall, {ours_cpu / fast_cpu:.2f}× JVM CPU (target ≤ 1.10× at 2M rows, "
              "≤ 1.05× at 20M)")
        learn_wall, learn_cpu = timings[learning_label]
        print(f"wrangler without output_schema / the faster hand-written = {learn_wall / fast_wall:.2f}× wall, "
              f"{learn_cpu / fast_cpu:.2f}× JVM CPU (target ≤ 1.5×)")
    if "(b) row-at-a-time Python" in timings:
        speedup = timings["(b) row-at-a-time Python"][0] / ours_wall
        print(f"row-at-a-time / wrangler = {speedup:.1f}× wall (target ≥ 10×)")
    if len(set(rows_out.values())) != 1:
        problems.append(f"the pipelines disagree on the output row count: {rows_out}")
    for problem in problems:
        print(f"WARNING: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
