"""Our code on the executors, so Python UDF directives run on a cluster and on a Spark Connect server.

A Python UDF (`parse-as-date`, `stemming`, `text-distance`, some `hash` algorithms, …) is pickled with
references to functions of `directives` (and, through its imports, `grammar`): whichever Python runs it must
import the very same modules. In local mode the Python workers are children of this process and see its
`sys.path`; on a cluster or behind Spark Connect they are processes of other machines. So the first time a
recipe is compiled on such a session, the two packages are zipped from where this process imported them
(once per process: about 0.25 MB, a tenth of a second) and added to the session (`addPyFile`, or
`addArtifacts(pyfile=True)` over Spark Connect). This happens before the recipe compiles, whether or not it
turns out to need a UDF: a classic UDF copies the session's list of Python files when it is created. The
workers put the zip ahead of their own `sys.path`, so they run the driver's code even when another copy is
installed there.

The workers still need a Python with our dependencies (lark, pydantic) and PySpark's version: docs/clusters.md
says how (`spark.pyspark.python`, or a packed environment in `spark.archives`).
"""

from __future__ import annotations

import atexit
import hashlib
import importlib
import shutil
import tempfile
import threading
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

from directives.spark.runtime.session import is_remote_session

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

#: The packages a UDF's pickled functions import; `lineage` and `server` are never needed on a worker.
PACKAGES = ("grammar", "directives")
#: Files a worker may read besides the modules (grammars, the quiet log configuration, and `directives/data/`:
#: the FHIR schema `validate-standard` checks values against on the workers; about 1 MB with the ICD lists).
_SUFFIXES = (".py", ".lark", ".properties", ".gz")

_lock = threading.Lock()
_archive: Path | None = None
_shipped: set[str] = set()


def code_archive() -> Path:
    """A zip of `PACKAGES` as this process imported them, built once per process; its name carries a hash of its
    contents, so two versions of the code never share a name on a session."""
    global _archive
    with _lock:
        if _archive is None or not _archive.is_file():
            _archive = _build_archive()
        return _archive


def _package_files(package: str) -> dict[str, Path | None]:
    """Every file of ``package`` to ship, by its name in the zip. A namespace package (`grammar` has no
    `__init__.py`) gets an empty one there: on a worker, any regular package of that name anywhere on its path
    would otherwise win over a namespace portion, whatever the order of the path."""
    module = importlib.import_module(package)
    root = Path(next(iter(module.__path__)))
    files: dict[str, Path | None] = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix in _SUFFIXES and "__pycache__" not in path.parts:
            relative = path.relative_to(root)
            files[f"{package}/{relative.as_posix()}"] = path
            for parent in [*relative.parents][:-1]:
                files.setdefault(f"{package}/{parent.as_posix()}/__init__.py", None)
            files.setdefault(f"{package}/__init__.py", None)
    return files


def _build_archive() -> Path:
    entries: dict[str, Path | None] = {}
    for package in PACKAGES:
        entries.update(_package_files(package))
    digest = hashlib.sha256()
    for name, path in sorted(entries.items()):
        digest.update(name.encode() + b"\0" + (path.read_bytes() if path else b"") + b"\0")
    directory = Path(tempfile.mkdtemp(prefix="wrangler-code-"))
    atexit.register(shutil.rmtree, directory, True)
    archive = directory / f"wrangler_code_{digest.hexdigest()[:16]}.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        for name, path in sorted(entries.items()):
            if path is None:
                zipped.writestr(name, "")
            else:
                zipped.write(path, name)
    return archive


def _session_key(spark: SparkSession) -> str | None:
    """Which session (Connect) or application (a cluster) the code went to; None: local mode, nothing to ship."""
    if is_remote_session(spark):
        return f"connect:{spark.session_id}"  # type: ignore[attr-defined]
    context = spark.sparkContext
    if context.master.startswith("local"):
        return None
    return f"app:{context.applicationId}"


def ship_code(spark: SparkSession) -> bool:
    """Make our packages importable by the session's Python workers (once per session); False in local mode, where
    the workers already import them from this process's path."""
    key = _session_key(spark)
    if key is None:
        return False
    with _lock:
        if key in _shipped:
            return True
    archive = code_archive()
    if is_remote_session(spark):
        spark.addArtifacts(str(archive), pyfile=True)  # type: ignore[attr-defined]
    else:
        spark.sparkContext.addPyFile(str(archive))
    with _lock:
        _shipped.add(key)
    return True
