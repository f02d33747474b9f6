"""A class-data archive of the Spark driver's classes, so that a new process gets to its first row sooner.

Every `wrangler run` starts a new JVM, and a good part of what it then waits for is that JVM finding, reading and
verifying Spark's classes, the first time each code path runs (Spark's start, the first analysis, the first job).
The JDK can map the classes an earlier JVM loaded from one file instead (application class-data sharing,
`-XX:SharedArchiveFile`); `bench/bench_start.py` measures what that saves.

Writing the archive is slow: the JVM that records it runs slower, and writes ~170 MB as it exits (on a two-core
machine, a 19 s `wrangler run` took 47 s). So no run writes it behind the user's back: ``python -m
directives.spark.runtime.class_archive`` does, once, with a small recipe of its own (`scripts/demo.sh` runs it after
the demo), and every later local session maps it. The archive is kept only when the JVM that wrote it exited
normally, so no JVM ever maps a file cut short (a truncated archive crashes the JVM that maps it). One process
writes at a time (a lock file). The archive is keyed by what decides whether it fits (the `java` executable,
PySpark's version and where its jars are, the class path settings and Spark's directories), so anything else gets
an archive of its own; a JVM that finds one that does not fit anyway runs without it, silently. The JVM's logging
of the archive is off: its notices are not the user's business.

`WRANGLER_CLASS_ARCHIVE=off` turns this off; the archive lives in `WRANGLER_CACHE_DIR`, else
`$XDG_CACHE_HOME/wrangler-lineage`, else `~/.cache/wrangler-lineage`. Writing one deletes all but the
`KEEP_ARCHIVES` most recently used there (mapping one marks it used).
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Settings that change which classes the driver's JVM loads, or from where.
_CLASS_PATH_SETTINGS = ("spark.jars", "spark.jars.packages", "spark.driver.extraClassPath", "spark.submit.pyFiles")
#: Environment that does the same (Spark's launcher reads its class path from these).
_CLASS_PATH_ENVIRONMENT = ("JAVA_HOME", "SPARK_HOME", "SPARK_CONF_DIR", "HADOOP_CONF_DIR", "YARN_CONF_DIR",
                           "SPARK_DIST_CLASSPATH", "SPARK_CLASSPATH")
#: JVM options of ours or the user's that mean the archive is already decided elsewhere.
_USER_DECIDED = ("SharedArchiveFile", "ArchiveClassesAtExit", "-Xshare")
#: The JVM's own logging of the archive, off (a class it cannot archive is a warning on standard output).
_QUIET = "-Xlog:cds*=off"
#: An archive smaller than this was not written whole (Spark's is ~170 MB).
_SMALLEST = 1 << 20
#: A lock older than this belongs to a process that died before it could let go.
_STALE_LOCK_SECONDS = 3600.0
#: How long this process's exit waits for its JVM to write the archive.
_WRITE_SECONDS = 180.0
#: Archives kept in the cache folder: the newest-used ones (each fit writes its own ~170 MB file).
KEEP_ARCHIVES = 3


def cache_dir() -> Path:
    """Where archives live (see the module's docstring)."""
    named = os.environ.get("WRANGLER_CACHE_DIR")
    if named:
        return Path(named)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "wrangler-lineage"


def java_executable() -> Path | None:
    """The `java` Spark's launcher runs: ``$JAVA_HOME/bin/java``, else the one on the path."""
    home = os.environ.get("JAVA_HOME")
    found = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    if not found or not os.path.isfile(found):
        return None
    return Path(found).resolve()


def archive_key(settings: dict[str, str], java: Path) -> str:
    """What the archive must fit, as a short digest: two processes that differ in any of it get two archives."""
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    listing = sorted((entry.name, entry.stat().st_size) for entry in jars.iterdir()) if jars.is_dir() else []
    # the launcher, the JVM itself and the JDK's own archive (an update of the JDK may change only the last two)
    home = java.parent.parent
    runtime = [(str(path), path.stat().st_size, path.stat().st_mtime_ns)
               for path in (java, home / "lib" / "server" / "libjvm.so", home / "lib" / "server" / "classes.jsa")
               if path.is_file()]
    # where the jars are, too: the JVM records its class path, and another place (another virtual environment)
    # does not fit the archive even with the same jars
    parts: list[object] = [
        sys.platform, runtime, pyspark.__version__, str(jars.resolve()), listing,
        [(key, settings.get(key, "")) for key in _CLASS_PATH_SETTINGS],
        [(name, os.environ.get(name, "")) for name in _CLASS_PATH_ENVIRONMENT],
    ]
    return hashlib.sha256(repr(parts).encode("utf-8")).hexdigest()[:20]


@dataclass(frozen=True)
class Archive:
    """The files of one archive: the archive, its record of the size it was written at, and the writer's lock."""

    final: Path

    @property
    def record(self) -> Path:
        return self.final.with_suffix(".size")

    @property
    def lock(self) -> Path:
        return self.final.with_suffix(".lock")

    def part(self, pid: int) -> Path:
        return self.final.with_suffix(f".{pid}.part")

    def usable(self) -> bool:
        """Written whole and unchanged since (its size as recorded when it was kept)."""
        try:
            return self.final.stat().st_size == int(self.record.read_text().strip())
        except (OSError, ValueError):
            return False

    def take_lock(self) -> bool:
        """Whether this process may write the archive (no other is writing it)."""
        for _ in range(2):
            try:
                descriptor = os.open(self.lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                try:
                    if time.time() - self.lock.stat().st_mtime < _STALE_LOCK_SECONDS:
                        return False
                    self.lock.unlink()
                except OSError:
                    return False
                continue
            except OSError:
                return False
            with os.fdopen(descriptor, "w") as lock:
                lock.write(str(os.getpid()))
            return True
        return False

    def keep(self, part: Path) -> bool:
        """Make a part the archive, when it was written whole (its size recorded first, so a reader never sees an
        archive without its record)."""
        try:
            size = part.stat().st_size
            if size < _SMALLEST:
                return False
            self.record.write_text(str(size))
            os.replace(part, self.final)
            return True
        except OSError:
            return False

    def mark_used(self) -> None:
        """Note that a JVM maps the archive now (its record's time: the archive's own is its writing), so pruning
        keeps the archives in use."""
        with contextlib.suppress(OSError):
            os.utime(self.record)

    def last_used(self) -> float:
        for path in (self.record, self.final):
            with contextlib.suppress(OSError):
                return path.stat().st_mtime
        return 0.0

    def release(self, part: Path) -> None:
        for path in (part, self.lock):
            with contextlib.suppress(OSError):
                path.unlink()


def prune(folder: Path, kept: Archive, keep: int = KEEP_ARCHIVES) -> list[Path]:
    """Delete all but the ``keep`` most recently used archives in ``folder`` (``kept``, just written, among those
    kept), and the parts of writers that died (older than a stale lock). Each fit of Spark and the JDK (another
    virtual environment, another PySpark) writes an archive of its own, and nothing else would ever delete one.
    Returns what was deleted."""
    archives = sorted((Archive(path) for path in folder.glob("spark-classes-*.jsa") if path != kept.final),
                      key=Archive.last_used, reverse=True)
    doomed = [path for archive in archives[max(keep - 1, 0):] for path in (archive.final, archive.record)]
    now = time.time()
    for part in folder.glob("spark-classes-*.part"):
        with contextlib.suppress(OSError):
            if now - part.stat().st_mtime > _STALE_LOCK_SECONDS:
                doomed.append(part)
    deleted = []
    for path in doomed:
        with contextlib.suppress(OSError):
            path.unlink()
            deleted.append(path)
    return deleted


def _archive_for(settings: dict[str, str], java: Path) -> Archive:
    """The archive a driver started with ``settings`` and ``java`` would map (or write)."""
    return Archive(cache_dir() / f"spark-classes-{archive_key(settings, java)}.jsa")


#: `WRANGLER_CLASS_ARCHIVE` values: none (the default: map an archive when there is one), off, or write (this
#: process's JVM writes one: what `main` sets for its own session).
_OFF = ("off", "0", "false", "no")
_WRITE = "write"


def _mode() -> str:
    return os.environ.get("WRANGLER_CLASS_ARCHIVE", "").lower()


def driver_options(settings: dict[str, str]) -> Archive | None:
    """Add the archive's JVM options to ``settings['spark.driver.extraJavaOptions']`` (the JVM this process is about to
    start): map the archive when there is one, or, in a writing process (see `main`), have the JVM write it. Returns
    the archive when this JVM writes it (`written_at_exit` then keeps it), else None. Anything unexpected (no
    `java`, a cache directory that cannot be written, another process writing) leaves the settings as they were."""
    mode = _mode()
    if mode in _OFF or os.name != "posix":
        return None
    options = settings.get("spark.driver.extraJavaOptions", "")
    if any(decided in options for decided in _USER_DECIDED):
        return None
    try:
        java = java_executable()
        if java is None:
            return None
        archive = _archive_for(settings, java)
        if mode != _WRITE:
            if not archive.usable():
                return None
            archive.mark_used()
            added, writing = f"-XX:SharedArchiveFile={archive.final}", None
        else:
            archive.final.parent.mkdir(parents=True, exist_ok=True)
            if not archive.take_lock():
                return None
            added, writing = f"-XX:ArchiveClassesAtExit={archive.part(os.getpid())}", archive
    except OSError:
        return None
    settings["spark.driver.extraJavaOptions"] = f"{options} {added} {_QUIET}".strip()
    return writing


def written_at_exit(archive: Archive, gateway: Any) -> None:
    """At this process's exit, stop Spark and let its JVM go first (it writes the archive as it exits), then keep what
    it wrote when it exited normally (`finish_writing`)."""
    process = getattr(gateway, "proc", None)
    if process is None:  # not a JVM this process started: nothing will be written
        archive.release(archive.part(os.getpid()))
        return
    atexit.register(finish_writing, archive, process, _stop_spark)


def _stop_spark() -> None:
    from pyspark import SparkContext

    context = SparkContext._active_spark_context
    if context is not None:
        context.stop()


def finish_writing(archive: Archive, process: subprocess.Popen[Any], stop: Callable[[], None],
                   seconds: float = _WRITE_SECONDS) -> bool:
    """Wait for the writing JVM to exit (after ``stop``; its gateway exits when its standard input closes, so that is
    closed first) and keep the part it wrote when it exited normally. Whether it was kept; the lock is let go."""
    part = archive.part(os.getpid())
    kept = False
    try:
        stop()
        if process.stdin is not None:
            process.stdin.close()
        process.wait(timeout=seconds)
        kept = process.returncode == 0 and archive.keep(part)
    except Exception:  # a JVM still writing after `seconds` (`TimeoutExpired`) included: its part is let go
        kept = False
    archive.release(part)  # the lock, and the part when it was not kept
    if kept:
        prune(archive.final.parent, archive)
    return kept


#: The training recipe: the kinds of directive real recipes are made of, so their compilers' classes are archived.
_RECIPE = """parse-as-csv :body ',' false
drop :body
rename :body_1 :id
rename :body_2 :name
rename :body_3 :amount
rename :body_4 :day
trim :name
uppercase :name
fill-null-or-empty :amount '0'
set-type :amount double
set-column :total exp:{ amount * 2 + 1 }
parse-as-simple-date :day yyyy-MM-dd
filter-row exp:{ total < 3 }
merge :id :name :key '-'
drop :key
"""


def present() -> bool:
    """Whether a local session started now with our settings would map an archive."""
    from directives.spark.runtime.session import LOCAL_CONF, SPARK_CONF

    java = java_executable()
    if java is None or _mode() in _OFF:
        return False
    try:
        return _archive_for({**SPARK_CONF, **LOCAL_CONF}, java).usable()
    except OSError:
        return False


def main(argv: list[str] | None = None) -> int:
    """Write the archive for this machine's Spark with a small run of every kind of step: compile, write each output
    format, count, read the errors. Prints where it went. ``--if-missing``: only when no archive fits yet."""
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(prog="python -m directives.spark.runtime.class_archive",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--if-missing", action="store_true", help="do nothing when an archive that fits exists")
    parser.add_argument("--check", action="store_true",
                        help="write nothing: exit 0 when an archive that fits exists (or archives are off), else 1")
    args = parser.parse_args(argv)
    if args.check:
        return 0 if _mode() in _OFF or present() else 1
    if _mode() in _OFF:
        print("class archive: off (WRANGLER_CLASS_ARCHIVE)")
        return 0
    if args.if_missing and present():
        return 0
    os.environ["WRANGLER_CLASS_ARCHIVE"] = _WRITE
    import directives
    from directives.spark.runtime.files import write_table
    from directives.spark.runtime.session import get_session

    spark = get_session()
    if "ArchiveClassesAtExit" not in (spark.sparkContext.getConf().get("spark.driver.extraJavaOptions") or ""):
        print("class archive: not written (another process is writing it, archives are off, or no java found)")
        return 0
    lines = [(f"{i}, name {i % 13} ,{'' if i % 11 == 0 else ('oops' if i % 17 == 0 else i * 1.5)},"
              f"2024-01-{i % 28 + 1:02d}",) for i in range(500)]
    source = spark.createDataFrame(lines, "body string")
    result = directives.run(source, _RECIPE)
    with tempfile.TemporaryDirectory() as folder:
        for fmt in ("parquet", "csv", "json"):
            result.write(lambda df, fmt=fmt: write_table(df, f"{folder}/{fmt}", fmt))
        result.counts()
        result.errors.collect()
    print(f"class archive: writing it as Spark exits, into {cache_dir()} (once; later Spark starts map it)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
