"""`wrangler run`: a recipe on real data with Spark, writing the output, the error rows and the counts.

Everything that can be checked without a JVM (the recipe's syntax, the input's existence, the
formats) is checked first, so a typo costs milliseconds, not a Spark start. The run itself is one
lazy plan; the output write is the pass that also yields the counts (see `RunResult.write`).
After a successful run, `--store`/`--namespace` record the run's column lineage (derived from the
recipe, never from the data) in the SQLite lineage store.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from directives.file_formats import INPUT_FORMATS, OUTPUT_FORMATS
from server.cli.recipe_commands import EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE, read_recipe, read_udds

if TYPE_CHECKING:
    from directives.recipe import Recipe
    from directives.spark.runtime.runner import RunCounts, RunResult

_EXTENSIONS = {".csv": "csv", ".tsv": "csv", ".json": "json", ".jsonl": "json", ".ndjson": "json",
               ".parquet": "parquet", ".pq": "parquet", ".txt": "text", ".text": "text", ".log": "text"}


class UsageError(Exception):
    """Bad command line or missing input: reported before Spark starts (exit 2)."""


def register(commands: Any) -> None:
    cmd = commands.add_parser("run", help="run a recipe on data with Spark (output, error rows, counts, lineage)")
    cmd.add_argument("recipe", help="recipe file, or - for standard input")
    cmd.add_argument("--input", required=True, help="input file or directory (local path or any Spark URI; on a "
                     "cluster, a path every executor can read)")
    cmd.add_argument("--input-format", choices=INPUT_FORMATS, help="default: from the input's extension")
    cmd.add_argument("--udd", action="append", default=[], metavar="FILE",
                     help="declarations of user-defined directives: read, and refused clearly, since a UDD's code "
                          "is Java in a plugin jar")
    cmd.add_argument("--output", help="output path (a Spark output directory); default: JSON lines on stdout")
    cmd.add_argument("--output-format", choices=OUTPUT_FORMATS, help="default: from the output's extension, "
                     "else parquet")
    cmd.add_argument("--errors", help="where to write the error rows (same format as the output)")
    cmd.add_argument("--overwrite", action="store_true", help="replace existing output and error directories")
    where = cmd.add_mutually_exclusive_group()
    where.add_argument("--master", help="Spark master, e.g. local[*], spark://host:7077, yarn, k8s://… (the driver "
                       "runs here: client mode; default: local[*])")
    where.add_argument("--remote", help="Spark Connect server, e.g. sc://host:15002 (no driver here; paths are read "
                       "and written by the server)")
    cmd.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="Spark setting (repeatable)")
    header = cmd.add_mutually_exclusive_group()
    header.add_argument("--header", dest="header", action="store_true", default=True,
                        help="CSV files have a header line (default)")
    header.add_argument("--no-header", dest="header", action="store_false",
                        help="CSV files have no header line (columns _c0, _c1, …)")
    cmd.add_argument("--progress", action="store_true", help="show Spark progress on stderr even when not a TTY")
    cmd.add_argument("--counts-json", help="also write the counts to this JSON file")
    lineage = cmd.add_argument_group("lineage recording (after a successful run)")
    lineage.add_argument("--store", metavar="FILE|URL",
                         help="lineage store: a SQLite file or postgresql://user@host/db; default $WRANGLER_STORE "
                              "or the per-user store")
    lineage.add_argument("--namespace", help="record the run's lineage in this namespace")
    lineage.add_argument("--source-name", help="dataset name of the input (default: the input's file stem)")
    lineage.add_argument("--destination-name", help="dataset name of the output (default: the output's stem)")
    lineage.add_argument("--run-id", help="run id (default: a new UUID)")
    cmd.set_defaults(handler=run_command)


# -- options ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RunOptions:
    recipe_path: str
    recipe_text: str
    input: str
    input_format: str
    output: str | None
    output_format: str
    errors: str | None
    conf: dict[str, str]
    record: bool


def _is_local(path: str) -> bool:
    return "://" not in path or path.startswith("file://")


def _location(path: str) -> str:
    """A recorded dataset location: absolute for a local path (OpenLineage names local files by absolute path)."""
    return str(_local_path(path).absolute()) if _is_local(path) else path


def _local_path(path: str) -> Path:
    return Path(path.removeprefix("file://"))


def infer_format(path: str, allowed: Sequence[str]) -> str | None:
    """The format a path's extension names (a directory: the extension its data files share)."""
    candidate = Path(path.rstrip("/"))
    suffixes = [candidate.suffix.lower()]
    if _is_local(path) and _local_path(path).is_dir():
        suffixes = sorted({p.suffix.lower() for p in _local_path(path).iterdir()
                           if p.is_file() and not p.name.startswith(("_", "."))})
    formats = {_EXTENSIONS.get(suffix) for suffix in suffixes} - {None}
    if len(formats) == 1:
        found = formats.pop()
        return found if found in allowed else None
    return None


def options_from(args: argparse.Namespace) -> RunOptions:
    try:
        text = read_recipe(args.recipe)
    except OSError as error:
        raise UsageError(f"cannot read recipe {args.recipe}: {error.strerror or error}") from None
    # Over Spark Connect the server reads and writes the paths: this machine's files say nothing about them.
    here = getattr(args, "remote", None) is None
    if here and _is_local(args.input) and not _local_path(args.input).exists():
        raise UsageError(f"input not found: {args.input}")
    input_format = args.input_format or infer_format(args.input, INPUT_FORMATS)
    if input_format is None:
        raise UsageError(f"cannot tell the format of {args.input} from its name; use --input-format "
                         f"({'|'.join(INPUT_FORMATS)})")
    output_format = args.output_format or (infer_format(args.output, OUTPUT_FORMATS) if args.output else None)
    conf: dict[str, str] = {}
    for item in args.conf:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--conf expects KEY=VALUE, got {item!r}")
        conf[key.strip()] = value
    if args.errors and not args.output:
        raise UsageError("--errors needs --output (error rows are written beside the output)")
    # Checked now: finding the errors' directory taken after the output is written is too late.
    if here and not args.overwrite:
        for flag, target in (("--output", args.output), ("--errors", args.errors)):
            if target and _is_local(target) and _local_path(target).exists():
                raise UsageError(f"{flag} {target} already exists; use --overwrite to replace it")
    return RunOptions(args.recipe, text, args.input, input_format, args.output, output_format or "parquet",
                      args.errors, conf, bool(args.namespace or args.store))


# -- lineage -----------------------------------------------------------------------------------------------------------
def record_lineage(args: argparse.Namespace, options: RunOptions, recipe: Recipe, columns: Sequence[str],
                   started: int, ended: int, counts: RunCounts) -> tuple[str, str, str]:
    """The run's field lineage (from the recipe) into the store; returns (namespace, run id, store for messages).

    The row counts go with the destination's properties of this run (properties are per run, never part of
    the operation set's checksum), so the web view's run screen can show them."""
    from lineage.runs import RecipeRunInfo, record_recipe_run
    from lineage.store import open_store, store_location
    from lineage.store.paths import describe

    namespace = args.namespace or "default"
    run_id = args.run_id or str(uuid.uuid4())
    location = store_location(args.store)
    destination_properties = {"format": options.output_format, "rows_in": str(counts.rows_in),
                              "rows_out": str(counts.rows_out), "error_rows": str(counts.error_rows),
                              "filtered_rows": str(counts.filtered_rows), "rows_added": str(counts.rows_added)}
    if options.output:
        destination_properties["path"] = _location(options.output)
    info = RecipeRunInfo(
        namespace=namespace,
        source_name=args.source_name or Path(options.input.rstrip("/")).stem or "input",
        destination_name=args.destination_name or (Path(options.output.rstrip("/")).stem if options.output
                                                   else "stdout"),
        run_id=run_id, start=started, end=max(ended, started),
        program=f"wrangler-run:{Path(options.recipe_path).name}",
        source_properties={"path": _location(options.input), "format": options.input_format},
        destination_properties=destination_properties,
        destination_description=f"Output of recipe {Path(options.recipe_path).name}",
    )
    with open_store(location) as store:
        record_recipe_run(store, recipe, info, columns)
    return namespace, run_id, describe(location)


# -- the command -------------------------------------------------------------------------------------------------------
def _report_recipe_error(path: str, error: Exception) -> None:
    for item in getattr(error, "errors", [error]):
        line, column = getattr(item, "line", None), getattr(item, "column", None)
        where = f"{path}:{line}:{column}: " if line is not None else f"{path}: "
        print(f"wrangler run: {where}{item}", file=sys.stderr)


def format_counts(counts: RunCounts) -> str:
    text = (f"{counts.rows_in} rows in, {counts.rows_out} out, {counts.error_rows} to errors, "
            f"{counts.filtered_rows} filtered, {counts.rows_added} added")
    if counts.multiplying:
        text += f" (by directives {', '.join(map(str, counts.multiplying))})"
    text += " — reconciled" if counts.reconciled else " — NOT reconciled"
    return text + f" ({_COUNTED_BY.get(counts.counted_by, counts.counted_by)})"


#: How `RunCounts.counted_by` reads in the command's summary line.
_COUNTED_BY = {"filters": "counted by the write's own filters", "observation": "counted by the write's observation",
               "aggregate": "counted by a pass of their own", "rows": "counted from the collected rows"}


def run_command(args: argparse.Namespace) -> int:
    import directives

    try:
        options = options_from(args)
    except UsageError as error:
        print(f"wrangler run: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:  # syntax, arguments and Spark support, before any JVM starts
        from directives.spark.compilers import compiler_for
        from directives.udd import UddFileError

        try:
            udds = read_udds(args)
        except UddFileError as error:
            print(f"wrangler run: {error}", file=sys.stderr)
            return EXIT_USAGE
        for directive in directives.parse(options.recipe_text, udds=udds).directives:
            compiler_for(directive)
    except directives.RecipeError as error:
        _report_recipe_error(options.recipe_path, error)
        return EXIT_FINDINGS
    return _run_on_spark(args, options)


def _run_on_spark(args: argparse.Namespace, options: RunOptions) -> int:
    import directives
    from directives.spark.runtime.files import column_names, is_spark_error, read_table
    from directives.spark.runtime.progress import Progress
    from directives.spark.runtime.session import get_session

    started = int(time.time())
    spark = get_session(args.master, options.conf or None, app_name="wrangler-run", remote=args.remote)
    try:
        df = read_table(spark, options.input, options.input_format, args.header)
        recipe = directives.parse(options.recipe_text, schema=column_names(df))
        result = directives.run(df, recipe)
        with Progress(spark, enabled=args.progress or sys.stderr.isatty()):
            columns = _write(args, options, result)
            counts = result.counts()
    except directives.RecipeError as error:
        _report_recipe_error(options.recipe_path, error)
        return EXIT_FINDINGS
    except Exception as error:
        if not is_spark_error(error):
            raise
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        print(f"wrangler run: Spark failed: {first}", file=sys.stderr)
        return EXIT_FINDINGS
    print(f"wrangler run: {format_counts(counts)}", file=sys.stderr)
    print("counts: " + json.dumps(counts.to_dict()), file=sys.stderr)
    if args.counts_json:
        Path(args.counts_json).write_text(json.dumps(counts.to_dict(), indent=2) + "\n")
    if not counts.reconciled:
        print("wrangler run: counts do not reconcile (a bug: please report it)", file=sys.stderr)
        return EXIT_FINDINGS
    if options.record:
        namespace, run_id, store_path = record_lineage(args, options, recipe, columns, started, int(time.time()),
                                                       counts)
        print(f"wrangler run: lineage of run {run_id} recorded in namespace {namespace} ({store_path})",
              file=sys.stderr)
    return EXIT_CLEAN


def _write(args: argparse.Namespace, options: RunOptions, result: RunResult) -> list[str]:
    from directives.spark.runtime.files import iter_rows, write_run, write_table

    columns = list(result.df.columns)
    if options.output is None:
        # toLocalIterator runs one job per partition, so the filters' counters would cover one partition
        # each: print, then let counts() make its own aggregate pass.
        result.check_aborted()
        for row in iter_rows(result.df):
            print(json.dumps(row, default=str, ensure_ascii=False))
        return columns

    def writer(path: str) -> Callable[[Any], None]:
        return lambda df: write_table(df, path, options.output_format, args.header, args.overwrite)

    write_run(result, writer(options.output), writer(options.errors) if options.errors else None)
    return columns
