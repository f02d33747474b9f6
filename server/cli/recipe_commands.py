"""`wrangler parse`, `wrangler check` and `wrangler directives`: recipe work that needs no Spark."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from directives.file_formats import INPUT_FORMATS
from server.cli.sample_input import SampleInputError, read_as_lines_hint, read_sample
from server.cli.schema_input import SchemaInputError, parse_schema_option, read_schema_file

if TYPE_CHECKING:
    from directives.recipe import Recipe

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
UDD_HELP = "declarations of user-defined directives (TOML or JSON, docs/udd.md); repeatable"


def register(commands: Any) -> None:
    parse_cmd = commands.add_parser("parse", help="print the bound, labelled ParseTree of a recipe")
    parse_cmd.add_argument("recipe", help="recipe file, or - for standard input")
    parse_cmd.add_argument("--schema", help="input columns, comma-separated (labels exact columns)")
    parse_cmd.add_argument("--schema-file", help="input schema file (JSON list, JSON with 'fields', or text)")
    parse_cmd.add_argument("--format", choices=("json", "text"), default="json")
    parse_cmd.add_argument("--udd", action="append", default=[], metavar="FILE", help=UDD_HELP)
    parse_cmd.set_defaults(handler=parse_command)

    check_cmd = commands.add_parser("check", help="validate recipes (for CI); exit 0 clean, 1 findings, 2 usage")
    check_cmd.add_argument("recipes", nargs="+", help="recipe files (- for standard input)")
    schema = check_cmd.add_mutually_exclusive_group()
    schema.add_argument("--schema", help="input columns, comma-separated")
    schema.add_argument("--schema-file", help="input schema file (JSON list, JSON with 'fields', or text)")
    schema.add_argument("--sample", metavar="FILE",
                        help="an input file, read as `wrangler run --input` reads it: its columns are the schema, "
                             "its first rows name the columns a CSV header or JSON keys make")
    check_cmd.add_argument("--sample-format", choices=INPUT_FORMATS, help="default: from the sample's extension")
    check_cmd.add_argument("--sample-rows", type=int, default=100, metavar="N", help="rows of the sample read (100)")
    check_cmd.add_argument("--no-header", dest="header", action="store_false", default=True,
                           help="a CSV sample has no header line (columns _c0, _c1, …), as `wrangler run --no-header`")
    check_cmd.add_argument("--strict", action="store_true",
                           help="also require directives that rename or drop columns to name them (seed 001)")
    check_cmd.add_argument("--format", choices=("text", "json", "github"), default="text")
    check_cmd.add_argument("--udd", action="append", default=[], metavar="FILE", help=UDD_HELP)
    check_cmd.set_defaults(handler=check_command)

    list_cmd = commands.add_parser("directives", help="list every directive with its usage")
    list_cmd.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    list_cmd.set_defaults(handler=directives_command)


class RecipeInputError(OSError):
    """A recipe file that cannot be read, with a message fit for one line."""


def read_recipe(path: str) -> str:
    """The recipe text; a missing or unreadable file is a `RecipeInputError` saying so in one line."""
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise RecipeInputError(f"cannot read {path}: not UTF-8 text") from None
    except OSError as error:
        raise RecipeInputError(f"cannot read {path}: {error.strerror or error}") from None


def read_udds(args: argparse.Namespace) -> dict[str, Any]:
    """The user-defined directives declared with --udd (none without it); `UddFileError` when a file is wrong."""
    from directives.udd import load_udds

    return load_udds(getattr(args, "udd", None) or [])


def parse_or_report(path: str, text: str, schema: list[str] | None, udds: dict[str, Any]) -> Recipe | None:
    """The parsed recipe, or None after printing every error as ``path:line:column: message`` on stderr."""
    import directives

    try:
        return directives.parse(text, schema, udds=udds)
    except directives.RecipeError as error:
        for item in error.errors:
            print(f"{path}:{item.line}:{item.column}: {item}", file=sys.stderr)
        return None


def _schema(args: argparse.Namespace) -> list[str] | None:
    return parse_schema_option(args.schema) or read_schema_file(getattr(args, "schema_file", None))


def parse_command(args: argparse.Namespace) -> int:
    from directives.udd import UddFileError

    try:
        text = read_recipe(args.recipe)
        schema = _schema(args)
        udds = read_udds(args)
    except (OSError, SchemaInputError, UddFileError) as error:
        print(f"wrangler parse: {error}", file=sys.stderr)
        return EXIT_USAGE
    recipe = parse_or_report(args.recipe, text, schema, udds)
    if recipe is None:
        return EXIT_FINDINGS
    if args.format == "json":
        print(json.dumps(recipe.to_list(), indent=2))
    else:
        for step in recipe.steps:
            labels = ", ".join(_label_text(label.to_json()) for label in step.labels)
            print(f"{step.index:>4} {step.directive.call.span.line:>4}:{step.directive.call.span.column:<3} "
                  f"{step.directive.call.text}\n          {labels}")
    return EXIT_CLEAN


def _label_text(label: dict[str, object]) -> str:
    text = f"{label['label']} {label['column']}"
    if "to" in label:
        text += f" -> {label['to']}"
    return text


def check_command(args: argparse.Namespace) -> int:
    from directives.udd import UddFileError

    try:
        udds = read_udds(args)
        schema = _schema(args)
        sample, read = None, None
        if args.sample is not None:
            read = read_sample(args.sample, args.sample_format, header=args.header, limit=args.sample_rows)
            schema, sample = read.columns, read.rows
    except (SchemaInputError, SampleInputError, UddFileError) as error:
        print(f"wrangler check: {error}", file=sys.stderr)
        return EXIT_USAGE
    report: list[dict[str, object]] = []
    missing: list[str | None] = []  # the columns `column-not-found` findings name
    failed = unreadable = False
    for path in args.recipes:
        try:
            text = read_recipe(path)
        except OSError as error:
            # Report it, but still check the other files: CI wants every finding of one run.
            print(f"wrangler check: {error}", file=sys.stderr)
            unreadable = True
            continue
        for where, finding in _findings(path, text, schema, sample, args.strict, udds):
            entry = finding.to_dict()
            entry["file"] = where
            report.append(entry)
            missing.append(getattr(finding, "missing", None))
            failed = failed or finding.severity == "error" or args.strict
    if report or not unreadable:  # a file that cannot be read is not a clean one: no "no findings" after it
        _print_findings(report, args.format)
    hint = None if read is None else read_as_lines_hint(missing, read.format, read.columns, "--sample-format")
    if hint and args.format == "text":
        print(f"hint: {hint}", file=sys.stderr)
    if unreadable:
        return EXIT_USAGE
    return EXIT_FINDINGS if failed else EXIT_CLEAN


def _findings(path: str, text: str, schema: list[str] | None, sample: Any, strict: bool,
              udds: Any) -> list[tuple[str, Any]]:
    """A recipe's findings; for a pipeline export, each Wrangler stage's (recipe and precondition), checked against
    the fields it receives (the source's schema, or the given schema for the first stage), as ``file[stage]``."""
    import directives
    from directives.pipeline_export import PipelineError, looks_like_pipeline, parse_pipeline, stage_input_columns

    if not looks_like_pipeline(text):
        return [(path, f) for f in directives.validate(text, schema, strict=strict, sample=sample, udds=udds)]
    try:
        pipeline = parse_pipeline(text, Path(path).stem)
        stages = pipeline.wrangler_stages()
        source_schema = pipeline.chain()[0].schema
    except PipelineError as error:
        return [(path, directives.RecipeError(f"not a pipeline this tool can read: {error}", line=None,
                                              column=None))]
    upstream = schema if schema is not None else ([f.name for f in source_schema] if source_schema else None)
    found: list[tuple[str, Any]] = []
    for number, stage in enumerate(stages):
        columns = stage_input_columns(pipeline, stage, upstream)
        rows = sample if number == 0 and stage.field == "*" else None
        where = f"{path}[{stage.name}]"
        found += [(where, f) for f in directives.validate(stage.directives, columns, strict=strict, sample=rows,
                                                          udds=udds)]
        if stage.precondition:
            found += [(f"{where} precondition", f) for f in directives.validate(
                f"filter-row exp:{{{stage.precondition}}}", columns, udds=udds)]
        upstream = [f.name for f in stage.output] if stage.output is not None else None
    return found


def _github_data(text: str) -> str:
    """GitHub workflow-command escaping of a message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _github_property(text: str) -> str:
    """GitHub workflow-command escaping of a property value (file names may hold ',' or ':')."""
    return _github_data(text).replace(":", "%3A").replace(",", "%2C")


def _print_findings(report: list[dict[str, Any]], output: str) -> None:
    if output == "json":
        keys = ("file", "line", "column", "severity", "rule", "message")
        print(json.dumps([{key: entry[key] for key in keys} for entry in report], indent=2))
        return
    for entry in report:
        if output == "github":
            level = "error" if entry["severity"] == "error" else "warning"
            where = f"file={_github_property(str(entry['file']))},line={entry['line'] or 1},col={entry['column'] or 1}"
            print(f"::{level} {where}::{_github_data(str(entry['message']))} [{entry['rule']}]")
        else:
            print(f"{entry['file']}:{entry['line']}:{entry['column']}: {entry['severity']} [{entry['rule']}] "
                  f"{entry['message']}")
            if entry["context"]:
                print("    " + str(entry["context"]).replace("\n", "\n    "))
    if output == "text":
        errors = sum(1 for entry in report if entry["severity"] == "error")
        print(f"{errors} error(s), {len(report) - errors} warning(s)" if report else "no findings", file=sys.stderr)


def directives_command(args: argparse.Namespace) -> int:
    import directives

    rows = [
        {"name": cls.name, "usage": cls.usage(), "description": cls.description(), "categories": list(cls.categories),
         "deprecated": cls.deprecated}
        for cls in sorted(directives.REGISTRY.values(), key=lambda c: c.name)
    ]
    if args.format == "json":
        print(json.dumps(rows, indent=2))
    elif args.format == "markdown":
        print("| directive | usage | description |\n|---|---|---|")
        for row in rows:
            print(f"| `{row['name']}` | `{row['usage'].strip()}` | {row['description']} |")
    else:
        for row in rows:
            print(f"{row['name']:<28} {row['usage'].strip()}")
    return EXIT_CLEAN
