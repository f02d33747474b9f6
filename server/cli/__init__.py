"""The `wrangler` command line: one sub-command per job, each importing only what it needs.

`wrangler check` must stay fast in CI, so nothing here imports pyspark or aiohttp at module
level; `run` and `serve` import them when they are invoked.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from server.cli import recipe_commands


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wrangler",
        description="Wrangler recipes on Spark, with column lineage derived from the recipe alone.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    recipe_commands.register(commands)
    for module_name in ("run_command", "lineage_commands", "serve_command"):
        try:
            module = __import__(f"server.cli.{module_name}", fromlist=["register"])
        except ImportError:
            continue
        module.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
