"""Run a realistic recipe on generated rows and compare it with two ways of doing the same without us.

    python -m bench.bench_run [--rows 2000000] [--recipe full|available] [--repeat 2] [--master local[*]]

In one process, on the same cached input (one CSV line per row in `body`, as Wrangler sees a file):

* **wrangler** — `directives.run(df, recipe)`, output written to Spark's `noop` sink through
  `RunResult.write` (so the reconciled counts come from the same pass);
* **(a) hand-written PySpark** — the same pipeline as a data engineer would write it with built-in
  functions (target: wrangler ≤ 1.10× its time);
* **(b) row-at-a-time Python** — the same recipe interpreted per row in Python workers via
  `mapPartitions` (`bench/rowexec.py`; target: wrangler ≥ 10× faster).

`--recipe available` keeps only the directives that have a Spark compiler (the full recipe needs
every one of them; the default picks `full` when it can). Timings are the best of `--repeat` runs.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
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
CSV_WIDTH = 7  # declared, so parse-as-csv needs no pass to learn the width (a pipeline knows its input)
OUTPUT = ["id", "department", "salary", "ssn", "email", "full_name", "monthly"]


def available_recipe(text: str) -> tuple[str, list[str]]:
    """The recipe without the directives that have no Spark compiler yet, and the names left out."""
    import directives
    from directives.spark.compilers import COMPILERS, load_all

    load_all()
    parsed = directives.parse(text, schema=["body"])
    lines = text.splitlines()
    missing = [d.name for d in parsed.directives if d.name not in COMPILERS]
    kept = [lines[d.call.span.line - 1] for d in parsed.directives if d.name in COMPILERS]
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
def handwritten(df: DataFrame) -> DataFrame:
    from pyspark.sql import functions as F

    schema = ", ".join(f"c{i} STRING" for i in range(CSV_WIDTH))
    parsed = df.select(F.from_csv("body", schema, {"sep": ","}).alias("f"))
    names = ["id", "first_name", "last_name", "department", "salary", "ssn", "email"]
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
def best_of(repeat: int, action: Callable[[], Any]) -> tuple[float, Any]:
    best, value = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        value = action()
        best = min(best, time.perf_counter() - started)
    return best, value


def noop(df: DataFrame) -> None:
    df.write.format("noop").mode("overwrite").save()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_run", description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--recipe", choices=("full", "available"), help="default: full if every directive compiles")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--partitions", type=int, default=0, help="default: Spark's default parallelism")
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--skip-python", action="store_true", help="skip the (slow) row-at-a-time baseline")
    args = parser.parse_args(argv)

    import directives
    from bench.rowexec import run_partition
    from directives.spark.session import get_session

    recipe, missing = available_recipe(RECIPE_FULL)
    choice = args.recipe or ("full" if not missing else "available")
    if choice == "full":
        if missing:
            parser.error(f"the full recipe needs compilers for: {', '.join(missing)}; use --recipe available")
        recipe = RECIPE_FULL
    spark = get_session(args.master, {"spark.sql.shuffle.partitions": "4"}, app_name="wrangler-bench")
    partitions = args.partitions or spark.sparkContext.defaultParallelism
    source = generate(spark, args.rows, partitions).cache()
    source.count()  # generation is not what we measure
    print(f"rows: {args.rows:,}   partitions: {partitions}   master: {args.master}   recipe: {choice} "
          f"({len(directives.parse(recipe, schema=['body']).directives)} directives)"
          + (f"   left out (no compiler yet): {', '.join(missing)}" if choice == "available" and missing else ""))

    def wrangler() -> Any:
        result = directives.run(source, recipe, declared_widths={1: CSV_WIDTH})
        result.write(noop)
        return result.counts()

    noop(handwritten(source.limit(1000)))  # warm up the JVM's code paths once for both
    wrangler_time, counts = best_of(args.repeat, wrangler)
    timings: dict[str, float] = {"wrangler (compiled to Spark)": wrangler_time}
    rows_out: dict[str, int] = {"wrangler (compiled to Spark)": counts.rows_out}
    if choice == "full":
        timings["(a) hand-written PySpark"], _ = best_of(args.repeat, lambda: noop(handwritten(source)))
        rows_out["(a) hand-written PySpark"] = handwritten(source).count()
    if not args.skip_python:
        label = "(b) row-at-a-time Python"
        timings[label], rows_out[label] = best_of(
            1, lambda: source.rdd.mapPartitions(run_partition(recipe, ["body"])).count())

    print(f"counts: {counts.to_dict()}")
    print(f"{'pipeline':<30} {'seconds':>9} {'rows/s':>12} {'rows out':>10}  vs wrangler")
    for label, seconds in timings.items():
        ratio = seconds / wrangler_time
        print(f"{label:<30} {seconds:9.2f} {args.rows / seconds:12,.0f} {rows_out[label]:10,}  {ratio:6.2f}×")
    if "(a) hand-written PySpark" in timings:
        overhead = wrangler_time / timings["(a) hand-written PySpark"]
        print(f"wrangler / hand-written = {overhead:.2f}× (target ≤ 1.10×)")
    if "(b) row-at-a-time Python" in timings:
        speedup = timings["(b) row-at-a-time Python"] / wrangler_time
        print(f"row-at-a-time / wrangler = {speedup:.1f}× (target ≥ 10×)")
    if len(set(rows_out.values())) != 1:
        print(f"WARNING: the pipelines disagree on the output row count: {rows_out}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
