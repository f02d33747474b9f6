"""The demo: a real recipe on real data on local Spark, then the lineage of every output column.

`python -m examples.demo` (or `scripts/demo.sh`) reads `examples/employees.csv` the way Wrangler
receives a file — one line per row in `body` — runs `examples/employees.recipe` on it, and prints
the cleaned table, the error rows with the directive and line that rejected them, the reconciled
counts, and where each output column came from (derived from the recipe alone, no data read).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE / "employees.csv"
RECIPE = HERE / "employees.recipe"
#: A demo's JVM lives for seconds on a few kilobytes: C1-only JIT (no C2 compiler threads competing for the
#: cores) roughly halved the JVM's CPU time of a demo run on a 2-core machine. Batch runs keep the default.
DEMO_CONF = {"spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1"}


def table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain text table (no Spark `show()`: it truncates and pads for terminals, not for reading)."""
    cells = [[str(c) for c in columns]] + [["null" if v is None else str(v) for v in row] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    lines = [rule]
    for number, line in enumerate(cells):
        lines.append("| " + " | ".join(value.ljust(width) for value, width in zip(line, widths, strict=True)) + " |")
        if number == 0:
            lines.append(rule)
    lines.append(rule)
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m examples.demo", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="a CSV file with a header line")
    parser.add_argument("--recipe", type=Path, default=RECIPE)
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args(argv)

    started = time.monotonic()
    import directives
    from directives.spark.runtime.session import get_session
    from lineage.backtrack import Backtracker
    from lineage.render import to_text

    recipe_text = args.recipe.read_text()
    spark = get_session(args.master, DEMO_CONF, app_name="wrangler-demo")
    df = spark.read.text(str(args.data)).withColumnRenamed("value", "body")  # Wrangler's view of a file
    recipe = directives.parse(recipe_text, schema=df.columns)

    print(f"== Recipe {args.recipe.name} ({len(recipe.directives)} directives) on {args.data.name}\n")
    print(recipe_text.rstrip() + "\n")

    result = directives.run(df, recipe)
    result.frame.df.cache()  # the output and the error rows below come from one pass over the input
    rows = result.write(lambda out: out.collect())
    columns = list(result.df.columns)
    print(f"== Output ({len(rows)} rows)")
    print(table(columns, [[row[c] for c in columns] for row in rows]) + "\n")

    errors = result.errors.collect()
    print(f"== Error rows ({len(errors)})")
    for error in errors:
        original = {k: v for k, v in error["row"].asDict().items()}
        print(f"  line {error['line']} `{error['directive']}`: {error['message']}\n    row: {original}")
    counts = result.counts()
    print("\n== Counts")
    print(f"  rows in {counts.rows_in} = out {counts.rows_out} + errors {counts.error_rows} "
          f"+ filtered {counts.filtered_rows} + header {counts.header_rows} - added {counts.rows_added}"
          f"  ({'reconciled' if counts.reconciled else 'NOT reconciled'})")

    print("\n== Lineage of each output column (from the recipe alone)")
    lineages = Backtracker(recipe).all(columns)
    for name in columns:
        item = lineages[name]
        print(f"  {name:<11} <- {', '.join(item.sources) or '(constant)'}   via directives "
              f"{', '.join(f'#{i}' for i in item.directives) or '(none)'}")
    print()
    print(to_text(lineages))
    print(f"\n(done in {time.monotonic() - started:.1f}s)")
    return 0 if counts.reconciled else 1


if __name__ == "__main__":
    sys.exit(main())
