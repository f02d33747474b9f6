"""`wrangler run`: a recipe on real data with Spark, writing the output, the error rows and the counts.

Everything that can be checked without a JVM (the recipe's syntax, the input's existence, the
formats) is checked first, so a typo costs milliseconds, not a Spark start. The run itself is one
lazy plan; the output write is the pass that also yields the counts (see `RunResult.write`).
After a successful run, `--store`/`--namespace` record the run's column lineage (derived from the
recipe, never from the data) in the SQLite lineage store.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from directives.file_formats import INPUT_FORMATS, OUTPUT_FORMATS
from server.cli.recipe_commands import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    EXIT_USAGE,
    RecipeInputError,
    read_recipe,
    read_udds,
)

if TYPE_CHECKING:
    from directives.recipe import Recipe
    from directives.spark.runtime.runner import RunCounts
    from server.cli.run_plan import RunPlan

_EXTENSIONS = {".csv": "csv", ".tsv": "csv", ".json": "json", ".jsonl": "json", ".ndjson": "json",
               ".parquet": "parquet", ".pq": "parquet", ".txt": "text", ".text": "text", ".log": "text"}


class UsageError(Exception):
    """Bad command line or missing input: reported before Spark starts (exit 2)."""


def register(commands: Any) -> None:
    cmd = commands.add_parser("run", help="run a recipe or a pipeline export's Wrangler stages on data with Spark "
                                          "(output, error rows, counts, lineage)")
    cmd.add_argument("recipe", help="recipe file, a CDAP / Data Fusion pipeline export (JSON), or - for standard input")
    cmd.add_argument("--input", required=True, help="input file or directory (local path or any Spark URI; on a "
                     "cluster, a path every executor can read)")
    cmd.add_argument("--input-format", choices=INPUT_FORMATS, help="default: from the input's extension")
    cmd.add_argument("--udd", action="append", default=[], metavar="FILE",
                     help="declarations of user-defined directives: read, and refused clearly, since a UDD's code "
                          "is Java in a plugin jar")
    cmd.add_argument("--output", help="output path: a Spark output directory, or one file with --single-file; "
                                      "default: JSON lines on stdout")
    cmd.add_argument("--output-format", choices=OUTPUT_FORMATS, help="default: from the output's extension, "
                     "else parquet")
    cmd.add_argument("--errors", help="where to write the error rows (format: from its extension, else the output's)")
    cmd.add_argument("--single-file", action="store_true",
                     help="write --output (and --errors) as one file each, e.g. out.csv, instead of a directory")
    cmd.add_argument("--output-schema", metavar="FILE",
                     help="the recipe's output schema: Spark DDL (id INT, name STRING) or an Avro record (JSON); "
                          "columns in that order, cast to those types")
    cmd.add_argument("--max-error-rate", type=float, metavar="R",
                     help="fail (exit 1) when more than this fraction of the rows failed (default: only when every "
                          "row failed)")
    cmd.add_argument("--lenient", action="store_true",
                     help="run even when the recipe renames or drops columns the input does not have")
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
    progress = cmd.add_mutually_exclusive_group()
    progress.add_argument("--progress", dest="progress", action="store_const", const="bar",
                          help="draw the live progress bar even when stderr is not a terminal")
    progress.add_argument("--no-progress", dest="progress", action="store_const", const="off",
                          help="no progress lines")
    cmd.add_argument("--progress-interval", type=float, default=5.0, metavar="SECONDS",
                     help="seconds between progress lines when stderr is not a terminal (default 5)")
    cmd.add_argument("--counts-json", help="also write the counts (and the top error reasons) to this JSON file")
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
    errors_format: str = "parquet"
    output_schema: str | None = None


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


def _read_output_schema(path: str | None) -> str | None:
    if path is None:
        return None
    try:
        return Path(path).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read --output-schema {path}: {getattr(error, 'strerror', None) or error}") from None


def options_from(args: argparse.Namespace) -> RunOptions:
    try:
        text = read_recipe(args.recipe)
    except OSError as error:
        raise UsageError(str(error) if isinstance(error, RecipeInputError)
                         else f"cannot read recipe {args.recipe}: {error.strerror or error}") from None
    # Over Spark Connect the server reads and writes the paths: this machine's files say nothing about them.
    here = getattr(args, "remote", None) is None
    if here and _is_local(args.input) and not _local_path(args.input).exists():
        raise UsageError(f"input not found: {args.input}")
    input_format = args.input_format or infer_format(args.input, INPUT_FORMATS)
    if input_format is None:
        raise UsageError(f"cannot tell the format of {args.input} from its name; use --input-format "
                         f"({'|'.join(INPUT_FORMATS)})")
    output_format = args.output_format or (infer_format(args.output, OUTPUT_FORMATS) if args.output else None)
    errors_format = (infer_format(args.errors, OUTPUT_FORMATS) if args.errors else None) or output_format
    conf: dict[str, str] = {}
    for item in args.conf:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--conf expects KEY=VALUE, got {item!r}")
        conf[key.strip()] = value
    if args.max_error_rate is not None and not 0 <= args.max_error_rate <= 1:
        raise UsageError(f"--max-error-rate is a fraction of the rows, from 0 to 1; got {args.max_error_rate:g}")
    if args.single_file:
        if not args.output and not args.errors:
            raise UsageError("--single-file needs --output or --errors (the rows on stdout are one stream already)")
        for flag, target in (("--output", args.output), ("--errors", args.errors)):
            if target and (not _is_local(target) or not here):
                raise UsageError(f"--single-file writes files on this machine only; {flag} {target} is not one")
    # Checked now: finding the errors' directory taken after the output is written is too late.
    if here and not args.overwrite:
        for flag, target in (("--output", args.output), ("--errors", args.errors)):
            if target and _is_local(target) and _local_path(target).exists():
                raise UsageError(f"{flag} {target} already exists; use --overwrite to replace it")
    return RunOptions(args.recipe, text, args.input, input_format, args.output, output_format or "parquet",
                      args.errors, conf, bool(args.namespace or args.store), errors_format or "parquet",
                      _read_output_schema(args.output_schema))


# -- lineage -----------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class StageRecord:
    """What one stage of a finished run wrote, for its recorded lineage: its name, bound recipe, columns, counts."""

    name: str
    recipe: Recipe
    columns: Sequence[str]
    counts: RunCounts


def _dataset_names(args: argparse.Namespace, options: RunOptions, plan: RunPlan, stages: Sequence[StageRecord],
                   ) -> list[str]:
    """The datasets a chain of stages connects: the source, one dataset between two stages (named after the stage
    that writes it, as a pipeline's designer shows it), and the sink. Always one more than there are stages."""
    source = args.source_name or plan.source_name or Path(options.input.rstrip("/")).stem or "input"
    sink = args.destination_name or plan.sink_name or (
        Path(options.output.rstrip("/")).stem if options.output else "stdout")
    return [source, *(stage.name for stage in stages[:-1]), sink]


def _as_run(recipe: Recipe, columns_after: Mapping[int, Sequence[str]], udds: Any) -> Recipe:
    """The recipe bound again with the columns the run had after each directive: the members of data-dependent
    families (`parse-as-csv`'s `body_<n>`, a header's names, JSON keys) are then columns by name, so whole-schema
    directives after them (`set-headers`, `change-column-case`) are recorded column by column instead of `*`."""
    import directives

    return directives.parse(recipe.text, schema=recipe.schema, udds=udds, observed=columns_after)


def record_lineage(args: argparse.Namespace, options: RunOptions, plan: RunPlan, stages: Sequence[StageRecord],
                   started: int, ended: int) -> tuple[str, list[str], str]:
    """The run's field lineage (from the recipes) into the store; returns (namespace, run ids, store for messages).

    A pipeline of several Wrangler stages is recorded as one run per stage, each reading the dataset the stage
    before wrote: the store's field graph then crosses the stages as the pipeline does (``wrangler history`` and
    the web view follow a field from the sink back to the source), and each stage keeps its own directive trees.
    The row counts go with the destination's properties of each run (properties are per run, never part of the
    operation set's checksum), so the web view's run screen can show them."""
    from lineage.runs import RecipeRunInfo, record_recipe_run
    from lineage.store import open_store, store_location
    from lineage.store.paths import describe

    namespace = args.namespace or "default"
    base_id = args.run_id or str(uuid.uuid4())
    run_ids = [base_id] if len(stages) == 1 else [f"{base_id}.{k}" for k in range(1, len(stages) + 1)]
    names = _dataset_names(args, options, plan, stages)
    location = store_location(args.store)
    recipe_name = Path(options.recipe_path).name
    with open_store(location) as store:
        for k, stage in enumerate(stages):
            last = k == len(stages) - 1
            counts = stage.counts
            destination_properties = {"rows_in": str(counts.rows_in), "rows_out": str(counts.rows_out),
                                       "error_rows": str(counts.error_rows),
                                       "filtered_rows": str(counts.filtered_rows), "rows_added": str(counts.rows_added)}
            if last:
                destination_properties["format"] = options.output_format
                if options.output:
                    destination_properties["path"] = _location(options.output)
            source_properties = {"path": _location(options.input), "format": options.input_format} if k == 0 else {}
            where = recipe_name if len(stages) == 1 else f"{recipe_name}[{stage.name}]"
            info = RecipeRunInfo(
                namespace=namespace, source_name=names[k], destination_name=names[k + 1], run_id=run_ids[k],
                start=started, end=max(ended, started), program=f"wrangler-run:{where}",
                source_properties=source_properties, destination_properties=destination_properties,
                destination_description=f"Output of recipe {where}",
            )
            record_recipe_run(store, stage.recipe, info, stage.columns)
    return namespace, run_ids, describe(location)


# -- the command -------------------------------------------------------------------------------------------------------
def _say(text: str) -> None:
    print(f"wrangler run: {text}", file=sys.stderr, flush=True)


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
    if counts.header_rows:
        text += f", {counts.header_rows} header line{'s' if counts.header_rows > 1 else ''} read as column names"
    text += " — reconciled" if counts.reconciled else " — NOT reconciled"
    return text + f" ({_COUNTED_BY.get(counts.counted_by, counts.counted_by)})"


#: How `RunCounts.counted_by` reads in the command's summary line.
_COUNTED_BY = {"filters": "counted by the write's own filters", "observation": "counted by the write's observation",
               "aggregate": "counted by a pass of their own", "rows": "counted from the collected rows"}


def run_command(args: argparse.Namespace) -> int:
    import directives
    from server.cli.run_plan import PipelineError, plan_from

    try:
        options = options_from(args)
        plan = plan_from(options.recipe_path, options.recipe_text, options.output_schema)
    except UsageError as error:
        _say(str(error))
        return EXIT_USAGE
    except PipelineError as error:
        _say(f"{options.recipe_path}: {error}")
        return EXIT_USAGE
    try:  # syntax, arguments and Spark support of every stage, before any JVM starts
        from directives.spark.compilers import compiler_for
        from directives.udd import UddFileError

        try:
            udds = read_udds(args)
        except UddFileError as error:
            _say(str(error))
            return EXIT_USAGE
        for stage in plan.stages:
            try:
                for directive in directives.parse(stage.recipe, udds=udds).directives:
                    compiler_for(directive)
            except directives.RecipeError as error:
                _report_recipe_error(plan.label(stage), error)
                return EXIT_FINDINGS
    except directives.RecipeError as error:
        _report_recipe_error(options.recipe_path, error)
        return EXIT_FINDINGS
    if getattr(args, "remote", None) is None and not _checked_against_input(args, options, plan):
        return EXIT_FINDINGS
    return _run_on_spark(args, options, plan, udds)


def _checked_against_input(args: argparse.Namespace, options: RunOptions, plan: RunPlan) -> bool:
    """`wrangler check`'s findings on the input's real columns; False when they stop the run."""
    from server.cli.run_gates import check_against_input, source_mismatch
    from server.cli.sample_input import read_as_lines_hint

    findings, columns = check_against_input(plan, options.input, options.input_format, args.header)
    note = source_mismatch(plan, columns)
    if note:
        _say(f"warning: {note}")
    stopping = [finding for finding in findings if finding.stops]
    for finding in findings:
        _say(finding.text())
    first = plan.label(plan.stages[0]) if plan.stages else None  # the stage that reads the file
    missing = [finding.missing for finding in findings if finding.rule == "column-not-found" and finding.where == first]
    hint = read_as_lines_hint(missing, options.input_format, columns, "--input-format")
    if hint:
        _say(f"hint: {hint}")
    if stopping and not args.lenient:
        _say(f"stopped before reading the data: {len(stopping)} finding(s) name columns {options.input} does not "
             f"have (its columns: {', '.join(columns or [])}); --lenient runs anyway")
        return False
    return True


def _stage_specs(plan: RunPlan, udds: Any) -> list[Any]:
    return [dataclasses.replace(stage, udds=udds) for stage in plan.stages]


def _run_on_spark(args: argparse.Namespace, options: RunOptions, plan: RunPlan, udds: Any) -> int:
    import directives
    from directives.spark.runtime.files import is_spark_error, read_table
    from directives.spark.runtime.output_schema import OutputSchemaError
    from directives.spark.runtime.session import get_session
    from directives.spark.runtime.stages import StageInputError, run_stages

    started = int(time.time())
    local = args.remote is None and (args.master is None or args.master.startswith("local"))
    conf = dict(options.conf)
    if local:  # executors report rows read every second (not every 10): the progress line moves
        conf.setdefault("spark.executor.heartbeatInterval", "1s")
    clock = time.monotonic()
    _say(f"starting Spark ({args.remote or args.master or 'local[*]'}) …")
    spark = get_session(args.master, conf or None, app_name="wrangler-run", remote=args.remote)
    _say(f"Spark ready in {time.monotonic() - clock:.1f} s; reading {options.input}")
    try:
        df = read_table(spark, options.input, options.input_format, args.header)
        # A width the recipe names is checked inside the write's own pass, which starts again when a record is
        # wider: only for a local output written through a staging directory (rows printed to stdout, or a partial
        # write elsewhere, cannot be taken back).
        in_write = options.output is not None and _is_local(options.output) and args.remote is None
        staged = run_stages(df, _stage_specs(plan, udds), widths_in_write=in_write)
        outcome = _write(args, options, staged, spark, quiet_tasks=in_write)
    except (directives.RecipeError, OutputSchemaError) as error:
        _report_recipe_error(options.recipe_path, error)
        _discard(options, args)
        return EXIT_FINDINGS
    except StageInputError as error:
        _say(str(error))
        return EXIT_FINDINGS
    except Exception as error:
        _discard(options, args)
        if not is_spark_error(error):
            raise
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        _say(f"Spark failed: {first}")
        return EXIT_FINDINGS
    return _finish(args, options, plan, staged, outcome, started)


@dataclass
class _Outcome:
    columns: list[str]
    counts: RunCounts
    reasons: list[Any]
    publish: Callable[[], None] | None


def _discard(options: RunOptions, args: argparse.Namespace | None = None) -> None:
    from directives.spark.runtime.output_files import discard

    if args is not None and getattr(args, "remote", None) is not None:
        return  # nothing was staged: the server wrote its paths directly
    for target in (options.output, options.errors):
        if target and _is_local(target):
            discard(target)


def _progress_mode(args: argparse.Namespace) -> str:
    if args.progress is not None:
        return str(args.progress)
    return "bar" if sys.stderr.isatty() else "lines"


def _input_bytes(path: str) -> int | None:
    """The input's size on disk (the progress total), for a local file or directory."""
    if not _is_local(path):
        return None
    location = _local_path(path)
    if location.is_file():
        return location.stat().st_size
    return sum(p.stat().st_size for p in location.rglob("*") if p.is_file() and not p.name.startswith(("_", ".")))


def _write(args: argparse.Namespace, options: RunOptions, staged: Any, spark: Any, quiet_tasks: bool = False
           ) -> _Outcome:
    """Run the plan once: output (staged until the run passes its checks), error rows, counts, top reasons."""
    from directives.spark.runtime.error_reasons import top_reasons
    from directives.spark.runtime.files import iter_rows
    from directives.spark.runtime.output_files import staged_write
    from directives.spark.runtime.progress import Progress

    publish: Callable[[], None] | None = None
    rows = staged.frame.rows.persist() if options.errors else None  # both outputs from one computation
    try:
        here = getattr(args, "remote", None) is None  # over Spark Connect the server owns the paths
        with Progress(spark, _progress_mode(args), _input_bytes(options.input) if here else None,
                      args.progress_interval):
            if options.output is None:
                # toLocalIterator runs one job per partition, so the filters' counters would cover one partition
                # each: print, then let counts() make its own aggregate pass.
                staged.check_aborted()
                for row in iter_rows(staged.df):
                    print(json.dumps(row, default=str, ensure_ascii=False))
            else:
                output = options.output

                def write_output(df: Any) -> Callable[[], None]:
                    return staged_write(df, output, options.output_format, args.header, args.overwrite,
                                        args.single_file, here)

                # A record wider than a guessed width stops the write's tasks on purpose (the write starts again):
                # Spark would log each stopped task's stack trace. A real failure still ends in "Spark failed: …".
                if quiet_tasks:
                    spark.sparkContext.setLogLevel("FATAL")
                try:
                    publish = staged.write(write_output)
                finally:
                    if quiet_tasks:
                        spark.sparkContext.setLogLevel("ERROR")  # the level `get_session` set
                for index, width in staged.last.learned_in_write.items():
                    _say(f"directive {index} (parse-as-csv): a record has more fields than the recipe names; "
                         f"wrote the output again with {width} fields")
            if options.errors:
                staged_write(staged.errors, options.errors, options.errors_format, args.header, args.overwrite,
                             args.single_file, here)()
            counts = staged.counts()
            reasons = top_reasons(staged.all_errors) if counts.error_rows else []
            columns = list(staged.df.columns)  # after the write: a width it learned may have added some
    finally:
        if rows is not None:
            rows.unpersist()
    return _Outcome(columns, counts, reasons, publish)


def _finish(args: argparse.Namespace, options: RunOptions, plan: RunPlan, staged: Any, outcome: _Outcome,
            started: int) -> int:
    """The summary, then the checks a finished run must pass before its output is published."""
    from server.cli.run_gates import error_rate_failure

    counts, reasons = outcome.counts, outcome.reasons
    _say(format_counts(counts))
    if reasons:
        _say(f"top error reasons ({counts.error_rows:,} error rows):")
        for reason in reasons:
            print(f"  {reason.text()}", file=sys.stderr)
    skipped = staged.skipped_errors() if plan.is_pipeline else 0
    if skipped:
        _say(f"{skipped:,} error rows not written: their stage's on-error is skip-error")
    print("counts: " + json.dumps(counts.to_dict()), file=sys.stderr)
    if args.counts_json:
        document = {**counts.to_dict(), "top_errors": [reason.to_dict() for reason in reasons]}
        Path(args.counts_json).write_text(json.dumps(document, indent=2) + "\n")
    failure = None
    if not counts.reconciled:
        failure = "counts do not reconcile (a bug: please report it)"
    elif plan.is_pipeline and (failed := staged.failed_stage()) is not None:
        spec, stage_counts = failed
        failure = (f"stage {spec.name!r} fails the pipeline on error (on-error: fail-pipeline): "
                   f"{stage_counts.error_rows:,} row(s) failed")
    else:
        failure = error_rate_failure(counts, args.max_error_rate)
    if failure is not None:
        _discard(options, args)
        written = " (error rows written to " + options.errors + ")" if options.errors else ""
        _say(f"FAILED: {failure}; the output was not written{written}")
        return EXIT_FINDINGS
    if outcome.publish is not None:
        outcome.publish()
    if options.record:
        records = [StageRecord(spec.name, _as_run(result.recipe, result.context.columns_after, spec.udds),
                               list(result.frame.columns), stage_counts)
                   for (spec, result), (_, stage_counts) in zip(staged.stages, staged.stage_counts(), strict=True)]
        records[-1] = dataclasses.replace(records[-1], columns=outcome.columns, counts=counts)
        namespace, run_ids, store_path = record_lineage(args, options, plan, records, started, int(time.time()))
        runs = f"run {run_ids[0]}" if len(run_ids) == 1 else f"runs {', '.join(run_ids)} (one per stage)"
        _say(f"lineage of {runs} recorded in namespace {namespace} ({store_path})")
    return EXIT_CLEAN
