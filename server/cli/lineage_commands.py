"""`wrangler lineage` (static, from the recipe alone) and `wrangler history` (recorded runs)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from server.cli.recipe_commands import EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE, read_recipe
from server.cli.schema_input import SchemaInputError, parse_schema_option, read_schema_file


def register(commands: Any) -> None:
    cmd = commands.add_parser("lineage", help="column lineage of a recipe, from the recipe alone (no Spark)")
    cmd.add_argument("recipe", help="recipe file, or - for standard input")
    cmd.add_argument("--schema", help="input columns, comma-separated (makes whole-schema directives exact)")
    cmd.add_argument("--schema-file", help="input schema file")
    cmd.add_argument("--column", help="only this final column")
    cmd.add_argument("--format", choices=("text", "json", "dot"), default="text")
    cmd.set_defaults(handler=lineage_command)


def lineage_command(args: argparse.Namespace) -> int:
    import directives
    from lineage.backtrack import Backtracker
    from lineage.render import to_dot, to_json_text, to_text

    try:
        text = read_recipe(args.recipe)
        schema = parse_schema_option(args.schema) or read_schema_file(args.schema_file)
    except (OSError, SchemaInputError) as error:
        print(f"wrangler lineage: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        recipe = directives.parse(text, schema)
    except directives.RecipeError as error:
        for item in error.errors:
            print(f"{args.recipe}:{item.line}:{item.column}: {item}", file=sys.stderr)
        return EXIT_FINDINGS
    backtracker = Backtracker(recipe)
    if args.column is not None:
        finals = {name.lower(): name for name in backtracker.final_columns()}
        if recipe.final_columns.exact and args.column.lower() not in finals:
            print(f"wrangler lineage: column '{args.column}' is not an output column; outputs: "
                  f"{', '.join(finals.values())}", file=sys.stderr)
            return EXIT_USAGE
        lineages = {args.column: backtracker.lineage(finals.get(args.column.lower(), args.column))}
    else:
        lineages = backtracker.all()
    if args.format == "json":
        print(to_json_text(lineages))
    elif args.format == "dot":
        print(to_dot(lineages))
    else:
        print(to_text(lineages))
    return EXIT_CLEAN
