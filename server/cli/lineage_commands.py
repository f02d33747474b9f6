"""`wrangler lineage` (static, from the recipe alone) and `wrangler history` (recorded runs).

`wrangler lineage RECIPE --format json` prints exactly
``{"columns": {"<final column>": {"sources": [...], "directives": [1-based, recipe order], "tree": {...}}}}``;
the tree's root carries the column's INDIRECT influences (filters, `if` conditions) under ``influences``.

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
from typing import Any

from server.cli.recipe_commands import EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE, UDD_HELP, read_recipe, read_udds
from server.cli.schema_input import SchemaInputError, parse_schema_option, read_schema_file


def register(commands: Any) -> None:
    cmd = commands.add_parser("lineage", help="column lineage of a recipe, from the recipe alone (no Spark)")
    cmd.add_argument("recipe", help="recipe file, or - for standard input")
    cmd.add_argument("--schema", help="input columns, comma-separated (makes whole-schema directives exact)")
    cmd.add_argument("--schema-file", help="input schema file")
    cmd.add_argument("--column", help="only this final column")
    cmd.add_argument("--format", choices=("text", "json", "dot"), default="text")
    cmd.add_argument("--udd", action="append", default=[], metavar="FILE", help=UDD_HELP)
    cmd.set_defaults(handler=lineage_command)

    history = commands.add_parser("history", help="directive history of one column over recorded runs")
    history.add_argument("dataset", help="destination dataset the runs wrote")
    history.add_argument("column", help="column of that dataset")
    history.add_argument("--namespace", default="default", help="namespace of the dataset (default: default)")
    history.add_argument("--start", default="0", help="inclusive start: epoch seconds, now, now-1h, now-7d …")
    history.add_argument("--end", default=None, help="exclusive end (default: just after now)")
    history.add_argument("--store", default=None, help="lineage store file (default: $WRANGLER_STORE or the "
                                                       "user data directory)")
    history.add_argument("--max-levels", type=int, default=None, help="cut each tree below this many levels")
    history.add_argument("--format", choices=("text", "json"), default="text")
    history.set_defaults(handler=history_command)


def lineage_command(args: argparse.Namespace) -> int:
    import directives
    from directives.udd import UddFileError
    from lineage.backtrack import Backtracker
    from lineage.render import to_document_text, to_dot, to_text

    try:
        text = read_recipe(args.recipe)
        schema = parse_schema_option(args.schema) or read_schema_file(args.schema_file)
        udds = read_udds(args)
    except (OSError, SchemaInputError, UddFileError) as error:
        print(f"wrangler lineage: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        recipe = directives.parse(text, schema, udds=udds)
    except directives.RecipeError as error:
        for item in error.errors:
            print(f"{args.recipe}:{item.line}:{item.column}: {item}", file=sys.stderr)
        return EXIT_FINDINGS
    backtracker = Backtracker(recipe)
    if args.column is not None:
        finals = {name.lower(): name for name in backtracker.final_columns()}
        if recipe.final_columns.exists(args.column) is False:
            print(f"wrangler lineage: column '{args.column}' is not an output column; outputs: "
                  f"{', '.join(finals.values())}", file=sys.stderr)
            return EXIT_USAGE
        name = finals.get(args.column.lower(), args.column)
        lineages = {name: backtracker.lineage(name)}
    else:
        lineages = backtracker.all()
        if not lineages and schema is None:
            print("wrangler lineage: no output column can be named from the recipe alone; give the input "
                  "columns with --schema or --schema-file, or ask for one with --column", file=sys.stderr)
    if args.format == "json":
        print(to_document_text(lineages))
    elif args.format == "dot":
        print(to_dot(lineages))
    else:
        print(to_text(lineages))
    return EXIT_CLEAN


def history_command(args: argparse.Namespace) -> int:
    from lineage.errors import LineageError
    from lineage.store import SQLiteLineageStore, default_path
    from lineage.timeparse import parse_time_range

    path = Path(args.store) if args.store else default_path()
    if not path.exists():
        print(f"wrangler history: no lineage store at {path} (record runs with `wrangler run --store`)",
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
        with SQLiteLineageStore(path) as store:
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
