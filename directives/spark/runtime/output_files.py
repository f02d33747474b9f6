"""Writing a run's output (or error rows) as one file instead of Spark's directory of part files.

`wrangler run --output out.csv --single-file` must leave exactly ``out.csv``: the rows are written with one
partition into a hidden directory beside the target, and its only part file is moved onto the target name,
so a failed write never leaves half a file behind. One partition means the last stage runs as one task:
meant for outputs a person opens, not for the biggest tables (write those as a directory).
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Callable
from pathlib import Path

from pyspark.sql import DataFrame

from directives.spark.runtime.files import write_table

_SUFFIX = {"csv": ".csv", "json": ".json", "parquet": ".parquet"}


def staging_path(target: str) -> Path:
    """A hidden sibling of ``target`` to write into first (same file system, so the final move is a rename)."""
    location = Path(target.removeprefix("file://"))
    return location.parent / f".{location.name}.wrangler-{uuid.uuid4().hex[:8]}"


def write_one_file(df: DataFrame, target: str, fmt: str, header: bool = True) -> Callable[[], None]:
    """Write ``df`` as one ``fmt`` file into a staging directory; returns the function that moves it onto
    ``target`` (replacing what is there), which the caller calls once the run may publish its output."""
    staging = staging_path(target)
    write_table(df.coalesce(1), str(staging), fmt, header, overwrite=True)
    parts = sorted(p for p in staging.iterdir() if p.name.startswith("part-") and p.name.endswith(_SUFFIX[fmt]))
    if len(parts) > 1:  # cannot happen with one partition; refuse rather than lose rows
        raise RuntimeError(f"Spark wrote {len(parts)} part files for one partition into {staging}")

    def publish() -> None:
        location = Path(target.removeprefix("file://"))
        if location.is_dir():
            shutil.rmtree(location)
        if parts:
            parts[0].replace(location)
        else:  # no rows and no file (Spark writes none for an empty JSON or CSV output): an empty file
            location.write_bytes(b"")
        shutil.rmtree(staging, ignore_errors=True)

    return publish


def discard(target: str) -> None:
    """Remove the staging directories a run left beside ``target`` (a run that did not publish)."""
    location = Path(target.removeprefix("file://"))
    for staging in location.parent.glob(f".{location.name}.wrangler-*"):
        shutil.rmtree(staging, ignore_errors=True)


def is_local(path: str) -> bool:
    return "://" not in path or path.startswith("file://")


def staged_write(df: DataFrame, target: str, fmt: str, header: bool = True, overwrite: bool = False,
                 single_file: bool = False, here: bool = True) -> Callable[[], None]:
    """Write ``df`` so that ``target`` appears only when the returned function is called: a run that fails its
    checks after the write (error rate, `fail-pipeline`) leaves no output behind. A local target is written
    into a hidden sibling directory and renamed into place; any other (an object store, or any path when
    ``here`` is False: a Spark Connect server writes on its own machine) is written directly."""
    if single_file:
        return write_one_file(df, target, fmt, header)
    if not here or not is_local(target):
        write_table(df, target, fmt, header, overwrite)
        return lambda: None
    staging = staging_path(target)
    write_table(df, str(staging), fmt, header, overwrite=True)

    def publish() -> None:
        location = Path(target.removeprefix("file://"))
        if location.is_dir():
            shutil.rmtree(location)
        elif location.exists():
            location.unlink()
        staging.replace(location)

    return publish
