"""`wrangler lineage` (static, from the recipe alone) and `wrangler history` (recorded runs).

`wrangler lineage RECIPE --format json` prints
``{"columns": {"<output column>": {"sources": [...], "directives": [1-based, recipe order], "tree": {...}}},
"generated": [{"pattern": "body_<n>", "description": "columns named by the data, from directive 1", …}]}``;
the tree's root carries the column's INDIRECT influences (filters, `if` conditions) under ``influences``.
Families of data-named columns are never listed as columns; a sample (`--input FILE`, run on local Spark)
or `--outputs a,b,c` names their members. `--verify` runs the sample once per input column with that
column perturbed and reports every output column that changed although its lineage does not name the
column (exit 1), and every exact edge no run showed (informational).

`wrangler history DATASET COLUMN` prints the directive tree of one column for every recorded run
in ``[--start, --end)`` (epoch seconds or `now`, `now-1h`, `now-7d`), newest run first. It only
reads: a store file that does not exist is an error, not a new empty store.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from directives.file_formats import INPUT_FORMATS
from server.cli.recipe_commands import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    EXIT_USAGE,
    UDD_HELP,
    parse_or_report,
    read_recipe,
    read_udds,
)
from server.cli.schema_input import SchemaInputError, parse_schema_option, read_schema_file

if TYPE_CHECKING:
    from directives.recipe import Recipe
    from directives.spark.runtime.perturb import Observation
    from lineage.backtrack import Backtracker, GeneratedColumns
    from lineage.verify import Verification


def register(commands: Any) -> None:
    cmd = commands.add_parser("lineage", help="column lineage of a recipe, from the recipe alone (no Spark); "
                                              "--verify checks it against runs on a sample")
    cmd.add_argument("recipe", help="recipe file, or - for standard input")
    cmd.add_argument("--schema", help="input columns, comma-separated (makes whole-schema directives exact)")
    cmd.add_argument("--schema-file", help="input schema file")
    cmd.add_argument("--column", help="only this output column")
    cmd.add_argument("--outputs", help="the output columns a run produced, comma-separated: names columns the data "
                                       "named (body_3, a CSV header's names)")
    cmd.add_argument("--format", choices=("text", "json", "dot"), default="text")
    cmd.add_argument("--udd", action="append", default=[], metavar="FILE", help=UDD_HELP)
    data = cmd.add_argument_group("with data (runs the recipe on local Spark)")
    data.add_argument("--input", "--sample", dest="sample", metavar="FILE",
                      help="a sample of real input: its run names the columns the data names; its columns are the "
                           "schema unless --schema is given")
    data.add_argument("--input-format", choices=INPUT_FORMATS, help="default: from the file's extension")
    data.add_argument("--no-header", dest="header", action="store_false", default=True,
                      help="CSV sample without a header line")
    data.add_argument("--rows", type=int, default=200, help="rows of the sample to use (default 200)")
    data.add_argument("--verify", action="store_true",
                      help="run the recipe once per input column with that column perturbed and report output "
                           "columns that changed although their lineage does not name it (exit 1 when any)")
    cmd.set_defaults(handler=lineage_command)

    history = commands.add_parser("history", help="directive history of one column over recorded runs")
    history.add_argument("dataset", help="destination dataset the runs wrote")
    history.add_argument("column", help="column of that dataset")
    history.add_argument("--namespace", default="default", help="namespace of the dataset (default: default)")
    history.add_argument("--start", default="0", help="inclusive start: epoch seconds, now, now-1h, now-7d …")
    history.add_argument("--end", default=None, help="exclusive end (default: just after now)")
    history.add_argument("--store", default=None, metavar="FILE|URL",
                         help="lineage store: a SQLite file or postgresql://user@host/db (default: $WRANGLER_STORE "
                              "or the user data directory)")
    history.add_argument("--max-levels", type=int, default=None, help="cut each tree below this many levels")
    history.add_argument("--format", choices=("text", "json"), default="text")
    history.set_defaults(handler=history_command)


class _Usage(Exception):
    """A usage problem: printed as one line, exit status 2."""


def lineage_command(args: argparse.Namespace) -> int:
    from directives.udd import UddFileError
    from lineage.backtrack import Backtracker
    from lineage.render import to_document, to_dot, to_text

    try:
        text = read_recipe(args.recipe)
        from directives.pipeline_export import looks_like_pipeline

        if looks_like_pipeline(text):
            return _pipeline_lineage(args, text)
        schema = parse_schema_option(args.schema) or read_schema_file(args.schema_file)
        udds = read_udds(args)
        sample = _read_sample(args) if args.sample else None
        if args.verify and sample is None:
            raise _Usage("--verify needs a sample of the input: --input FILE")
    except (OSError, SchemaInputError, UddFileError, _Usage) as error:
        print(f"wrangler lineage: {error}", file=sys.stderr)
        return EXIT_USAGE
    if schema is None and sample is not None:
        schema = list(dict.fromkeys([*sample[1], *(name for row in sample[0] for name in row)]))
    recipe = parse_or_report(args.recipe, text, schema, udds)
    if recipe is None:
        return EXIT_FINDINGS
    backtracker = Backtracker(recipe)
    observation = None
    if sample is not None:
        try:
            observation = _run_sample(recipe, sample, verify=args.verify)
        except Exception as error:  # the recipe does not run on the sample: say why, in one line
            first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            print(f"wrangler lineage: the recipe does not run on {args.sample}: {first}", file=sys.stderr)
            return EXIT_USAGE  # nothing was verified: not the same as an unsound edge (1)
    try:
        names, generated = _output_columns(args, backtracker, observation)
    except _Usage as error:
        print(f"wrangler lineage: {error}", file=sys.stderr)
        return EXIT_USAGE
    lineages = backtracker.all(names)
    if not lineages and not generated and schema is None:
        print("wrangler lineage: no output column can be named from the recipe alone; give the input "
              "columns with --schema or a sample with --input", file=sys.stderr)
    verification = None
    if args.verify and observation is not None:
        from lineage.verify import verify

        verification = verify(recipe, observation)  # the confirmed observation: unsound edges are real
    if args.format == "json":
        document = to_document(lineages, generated)
        if verification is not None:
            document["verification"] = verification.to_json()
        print(json.dumps(document, indent=2))
    elif args.format == "dot":
        print(to_dot(lineages, generated))
    else:
        print(to_text(lineages, generated))
    if verification is not None:
        if args.format != "json":
            print(verification.to_text(), file=sys.stderr if args.format == "dot" else sys.stdout)
        return EXIT_CLEAN if verification.ok else EXIT_FINDINGS
    return EXIT_CLEAN


def _pipeline_lineage(args: argparse.Namespace, text: str) -> int:
    """The field graph of a pipeline export: source fields → each Wrangler stage → sink fields."""
    import directives
    from directives.pipeline_export import PipelineError, parse_pipeline
    from directives.udd import UddFileError
    from lineage.pipeline import pipeline_lineage

    if args.sample or args.verify or args.outputs or args.schema or args.schema_file:
        print("wrangler lineage: a pipeline export carries its own schemas; --input, --verify, --outputs and "
              "--schema are for recipes", file=sys.stderr)
        return EXIT_USAGE
    try:
        graph = pipeline_lineage(parse_pipeline(text, Path(args.recipe).stem), read_udds(args))
    except (PipelineError, UddFileError) as error:
        print(f"wrangler lineage: {args.recipe}: {error}", file=sys.stderr)
        return EXIT_USAGE
    except directives.RecipeError as error:
        for item in error.errors:
            print(f"{args.recipe}:{item.line}:{item.column}: {item}", file=sys.stderr)
        return EXIT_FINDINGS
    if args.column is not None:
        wanted = {name.lower(): name for name in graph.origins}.get(args.column.lower())
        if wanted is None:
            print(f"wrangler lineage: field '{args.column}' is not a field of {graph.final_stage}; its fields: "
                  f"{', '.join(graph.origins)}", file=sys.stderr)
            return EXIT_USAGE
        graph.origins = {wanted: graph.origins[wanted]}
    if args.format == "json":
        print(json.dumps(graph.to_json(), indent=2))
    elif args.format == "dot":
        print(graph.to_dot())
    else:
        print(graph.to_text())
    return EXIT_CLEAN


def _output_columns(args: argparse.Namespace, backtracker: Backtracker,
                    observation: Any) -> tuple[list[str], list[GeneratedColumns]]:
    """The columns to show: a run's actual columns, the names the user gave, or the recipe's named outputs (plus
    its data-named families). A ``--column`` must be one of them, or a member of a family it can name."""
    generated: list[GeneratedColumns] = []
    if observation is not None:
        names = list(observation.baseline.columns)
    elif args.outputs:
        names = [name.strip() for name in args.outputs.split(",") if name.strip()]
        unknown = [name for name in names if not _producible(backtracker, name, any_family=True)]
        if unknown:
            raise _Usage(f"{', '.join(repr(n) for n in unknown)} cannot be an output of this recipe; "
                         f"{_outputs_hint(backtracker)}")
    else:
        names = backtracker.final_columns()
        generated = backtracker.generated()
    if args.column is None:
        return names, generated
    wanted = {name.lower(): name for name in names}.get(args.column.lower())
    if wanted is None and observation is None and not args.outputs \
            and backtracker.member_of(args.column) is not None:
        wanted = args.column  # `body_3` of `body_<n>`: a member the name itself identifies
    if wanted is None:
        raise _Usage(f"column '{args.column}' is not an output column; {_outputs_hint(backtracker, names)}")
    return [wanted], []


def _producible(backtracker: Backtracker, name: str, *, any_family: bool) -> bool:
    if name.lower() in {final.lower() for final in backtracker.final_columns()}:
        return True
    if any_family:
        from directives.column_state import pattern_regex

        return any(pattern_regex(family.pattern).fullmatch(name) for family in backtracker.generated())
    return backtracker.member_of(name) is not None


def _outputs_hint(backtracker: Backtracker, names: list[str] | None = None) -> str:
    """The columns that are (a run's, or the recipe's own with its data-named families), for a usage error."""
    static = names is None or names == backtracker.final_columns()
    shown = names if names is not None else backtracker.final_columns()
    text = f"outputs: {', '.join(shown) or '(none known by name)'}"
    families = backtracker.generated() if static else []
    if families:
        text += "; " + "; ".join(f"{family.pattern} ({family.description})" for family in families)
        text += " — a sample run (--input FILE) or --outputs names their members"
    if backtracker.recipe.schema is None:
        text += "; an input column that passes through is an output only with the input schema (--schema)"
    return text


def _read_sample(args: argparse.Namespace) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The sample's first rows and column types (starts Spark, after everything else was checked)."""
    from server.cli.run_command import infer_format

    path = args.sample
    if "://" not in path and not Path(path).exists():
        raise _Usage(f"input not found: {path}")
    fmt = args.input_format or infer_format(path, INPUT_FORMATS)
    if fmt is None:
        raise _Usage(f"cannot tell the format of {path} from its name; use --input-format ({'|'.join(INPUT_FORMATS)})")
    if args.rows < 1:
        raise _Usage("--rows must be at least 1")
    from directives.spark.runtime.perturb import read_sample
    from directives.spark.runtime.session import get_session

    return read_sample(get_session(), path, fmt, args.rows, header=args.header)


def _run_sample(recipe: Recipe, sample: tuple[list[dict[str, Any]], dict[str, Any]], *, verify: bool) -> Any:
    from directives.spark.runtime.perturb import Observation, execute
    from directives.spark.runtime.session import get_session

    rows, types = sample
    if verify:
        return verify_sample(recipe, rows, types, get_session())[0]
    return Observation(execute(recipe, rows, get_session(), types))


def verify_sample(recipe: Recipe, rows: list[dict[str, Any]], types: dict[str, Any] | None,
                  spark: Any) -> tuple[Observation, Verification]:
    """Perturb every input column of the sample (all copies in one Spark job), compare with the static lineage, and
    confirm every change the lineage does not explain with runs of their own, so an unsound edge is never an
    artefact of running the copies together (see `directives.spark.runtime.perturb.observe`)."""
    from directives.spark.runtime.perturb import observe
    from lineage.verify import verify

    observation = observe(recipe, rows, spark, types)
    verification = verify(recipe, observation)
    if not verification.ok and not observation.precise:
        suspects = sorted({finding.input for finding in verification.unsound})
        observation = observation.merged(observe(recipe, rows, spark, types, suspects, precise=True))
        verification = verify(recipe, observation)
    return observation, verification


def history_command(args: argparse.Namespace) -> int:
    from lineage.errors import LineageError
    from lineage.store import open_store, store_location
    from lineage.timeparse import parse_time_range

    location = store_location(args.store)
    if isinstance(location, Path) and not location.exists():
        print(f"wrangler history: no lineage store at {location} (record runs with `wrangler run --store`)",
              file=sys.stderr)
        return EXIT_USAGE
    now = int(time.time())
    try:
        start, end = parse_time_range(args.start, args.end if args.end is not None else now + 1, now=now)
    except LineageError as error:
        print(f"wrangler history: {error}", file=sys.stderr)
        return EXIT_USAGE
    entries: list[Any] = []
    try:
        with open_store(location) as store:
            cursor: str | None = None
            while True:
                page = store.column_history(args.namespace, args.dataset, args.column, start, end,
                                            max_levels=args.max_levels, limit=500, cursor=cursor)
                entries.extend(page.items)
                cursor = page.next_cursor
                if cursor is None:
                    break
    except LineageError as error:
        print(f"wrangler history: {error}", file=sys.stderr)
        return EXIT_USAGE
    if args.format == "json":
        document = {
            "namespace": args.namespace,
            "dataset": args.dataset,
            "column": args.column,
            "start": start,
            "end": end,
            "runs": [
                {"run": entry.run.model_dump(mode="json"), "tree": entry.tree, "truncated": entry.truncated}
                for entry in entries
            ],
        }
        print(json.dumps(document, indent=2))
        return EXIT_CLEAN
    if not entries:
        print(f"no recorded history for {args.namespace}:{args.dataset}.{args.column} in [{start}, {end})")
        return EXIT_CLEAN
    for entry in entries:
        when = datetime.fromtimestamp(entry.run.start, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        print(f"run {entry.run.run_id} ({entry.run.program}, started {when})"
              f"{'  [truncated]' if entry.truncated else ''}")
        tree = entry.tree
        if "upstream" not in tree and isinstance(tree.get("tree"), dict):
            tree = tree["tree"]  # a whole ColumnLineage.to_json() stored as the history
        print(_tree_text(tree, depth=1))
    return EXIT_CLEAN


def _tree_text(tree: dict[str, Any], depth: int) -> str:
    """A stored tree as indented lines (iterative; stored trees can be thousands of levels deep)."""
    lines: list[str] = []
    stack: list[tuple[dict[str, Any], int]] = [(tree, depth)]
    while stack:
        node, level = stack.pop()
        directive = node.get("directive")
        what = node.get("label", "?")
        if isinstance(directive, dict):
            what = f"{what} by #{directive.get('index')} (line {directive.get('line')}): {directive.get('text')}"
        before = node.get("before")
        renamed = f" (was {before})" if before and before != node.get("column") else ""
        flags = "" if node.get("exact", True) else " ~"
        lines.append(f"{'  ' * level}{node.get('column')}{renamed}: {what}{flags}")
        for influence in reversed(node.get("influences", []) or []):
            if isinstance(influence, dict) and isinstance(influence.get("directive"), dict):
                ref = influence["directive"]
                lines_at = f"{'  ' * (level + 1)}~ {influence.get('subtype')} by #{ref.get('index')}: {ref.get('text')}"
                lines.append(lines_at)
        children = node.get("upstream", [])
        if isinstance(children, list):
            stack.extend((child, level + 1) for child in reversed(children) if isinstance(child, dict))
    return "\n".join(lines)
