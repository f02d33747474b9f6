"""Where a recipe's external inputs are found: schema files, descriptors, glossaries and lookup tables.

Wrangler fetches these from CDAP services (the schema registry, a dataset, an HTTP glossary). Here the
recipe names them as Wrangler does (a schema-id, a table name, a data-model URL) and each name is looked up
as a file in the *resource directories*: the `WRANGLER_RESOURCES` environment variable (directories separated
by `os.pathsep`), else the current directory. A name that is itself a path to an existing file is used as it
is. Files are read on the driver when the recipe is compiled and their contents travel inside the plan, so
the workers of a cluster never need them.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

ENVIRONMENT = "WRANGLER_RESOURCES"


class ResourceNotFound(LookupError):
    """No resource directory holds any of the file names a directive accepts."""


def resource_dirs() -> list[Path]:
    configured = os.environ.get(ENVIRONMENT, "")
    dirs = [Path(part) for part in configured.split(os.pathsep) if part]
    return dirs or [Path.cwd()]


def find_resource(name: str, candidates: Sequence[str]) -> Path:
    """The first existing file among ``candidates`` (names relative to a resource directory), or ``name`` itself
    when it is a path to a file; `ResourceNotFound` lists every place looked at."""
    direct = Path(name).expanduser()
    if direct.is_absolute() and direct.is_file():
        return direct
    looked: list[str] = []
    for directory in resource_dirs():
        for candidate in candidates:
            path = directory / candidate
            if path.is_file():
                return path
            looked.append(str(path))
    raise ResourceNotFound(f"none of these files exists: {', '.join(looked)} (set {ENVIRONMENT} to the directory "
                           "that holds them)")
