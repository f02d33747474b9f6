"""The class archive: written only by a JVM that exited normally, mapped only when whole, keyed by what it fits.

These start real `java` processes (not Spark: a JVM that writes an archive of Spark's classes takes most of a
minute), with the same options `driver_options` gives Spark's driver."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from directives.spark.runtime import class_archive
from directives.spark.runtime.class_archive import Archive, driver_options, finish_writing, java_executable

JAVA = java_executable()
pytestmark = pytest.mark.skipif(JAVA is None, reason="needs java")

#: A program that waits for its standard input to close, then exits with the code it was given: Spark's gateway
#: does the same (it exits when the Python side's pipe closes).
WAITER = """
public class Waiter {
    public static void main(String[] args) throws Exception {
        while (System.in.read() != -1) { }
        System.exit(Integer.parseInt(args[0]));
    }
}
"""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("WRANGLER_CACHE_DIR", str(folder))
    monkeypatch.delenv("WRANGLER_CLASS_ARCHIVE", raising=False)
    monkeypatch.setattr(class_archive, "_SMALLEST", 1)  # a test JVM's archive is far smaller than Spark's
    return folder


def _options(settings: dict[str, str]) -> list[str]:
    return settings.get("spark.driver.extraJavaOptions", "").split()


def _write(tmp_path: Path, exit_code: int, monkeypatch: pytest.MonkeyPatch) -> tuple[Archive | None, bool]:
    """One writing JVM, as `main` starts Spark's: the options `driver_options` gives in a writing process, a
    JVM waiting on its standard input, then `finish_writing`."""
    monkeypatch.setenv("WRANGLER_CLASS_ARCHIVE", "write")
    settings: dict[str, str] = {"spark.driver.extraJavaOptions": "-Dkeep=me"}
    archive = driver_options(settings)
    monkeypatch.delenv("WRANGLER_CLASS_ARCHIVE")
    if archive is None:
        return None, False
    source = tmp_path / "Waiter.java"
    source.write_text(WAITER)
    process = subprocess.Popen([str(JAVA), *_options(settings), str(source), str(exit_code)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stopped: list[bool] = []
    kept = finish_writing(archive, process, lambda: stopped.append(True), seconds=120)
    assert stopped == [True]
    return archive, kept


def test_no_archive_leaves_the_driver_options_alone(cache: Path) -> None:
    settings = {"spark.driver.extraJavaOptions": "-Dkeep=me"}
    assert driver_options(settings) is None
    assert settings == {"spark.driver.extraJavaOptions": "-Dkeep=me"}
    assert not cache.exists()  # an ordinary run writes nothing


def test_written_archive_is_kept_and_mapped_by_the_next_jvm(cache: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    assert class_archive.main(["--check"]) == 1  # what scripts/demo.sh asks before it writes one
    archive, kept = _write(tmp_path, 0, monkeypatch)
    assert archive is not None and kept
    assert class_archive.main(["--check"]) == 0
    assert archive.usable() and not archive.lock.exists() and not archive.part(os.getpid()).exists()

    settings = {"spark.driver.extraJavaOptions": "-Dkeep=me"}
    assert driver_options(settings) is None  # mapping: nothing to keep at exit
    options = _options(settings)
    assert options[0] == "-Dkeep=me" and f"-XX:SharedArchiveFile={archive.final}" in options
    # -Xshare:on makes a JVM that cannot map the archive fail instead of running without it
    mapped = subprocess.run([str(JAVA), "-Xshare:on", *options, "-version"], capture_output=True, text=True,
                            check=False)
    assert mapped.returncode == 0, mapped.stderr
    assert "sharing" in mapped.stderr and "warning" not in (mapped.stdout + mapped.stderr).lower()


def _older(path: Path, seconds: float) -> None:
    then = path.stat().st_mtime - seconds
    os.utime(path, (then, then))


def _archive_file(folder: Path, name: str, used_seconds_ago: float) -> Archive:
    archive = Archive(folder / f"spark-classes-{name}.jsa")
    archive.final.write_bytes(b"x" * 10)
    archive.record.write_text("10")
    _older(archive.record, used_seconds_ago)
    _older(archive.final, 10_000)  # written long ago: what counts is when a JVM last mapped it
    return archive


def test_writing_an_archive_deletes_all_but_the_newest_used_ones(cache: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Each fit (another virtual environment, another PySpark) writes its own ~170 MB archive: the one just written
    and the most recently mapped others stay, up to `KEEP_ARCHIVES`; a dead writer's part goes too."""
    cache.mkdir(parents=True)
    ages = {"a": 50, "b": 400, "c": 30, "d": 9_000}
    others = {name: _archive_file(cache, name, age) for name, age in ages.items()}
    dead, fresh = cache / "spark-classes-x.123.part", cache / "spark-classes-y.456.part"
    dead.write_bytes(b"p")
    fresh.write_bytes(b"p")
    _older(dead, 2 * class_archive._STALE_LOCK_SECONDS)
    archive, kept = _write(tmp_path, 0, monkeypatch)  # the real writer: `finish_writing` prunes after keeping it
    assert archive is not None and kept and archive.usable()
    assert class_archive.KEEP_ARCHIVES == 3
    left = sorted(path.name for path in cache.glob("spark-classes-*.jsa"))
    assert left == sorted([archive.final.name, others["c"].final.name, others["a"].final.name])
    assert not others["b"].record.exists() and not others["d"].record.exists()
    assert not dead.exists() and fresh.exists()  # a part an hour old has no writer left; a new one may have


def test_mapping_an_archive_marks_it_used(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive, kept = _write(tmp_path, 0, monkeypatch)
    assert archive is not None and kept
    _older(archive.record, 9_000)
    before = archive.last_used()
    settings: dict[str, str] = {}
    driver_options(settings)
    assert "SharedArchiveFile" in settings["spark.driver.extraJavaOptions"]
    assert archive.last_used() > before + 8_000 and archive.usable()
    assert class_archive.prune(cache, Archive(cache / "spark-classes-new.jsa"), keep=2) == []  # the one other stays


def test_jvm_that_did_not_exit_normally_leaves_no_archive(cache: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    archive, kept = _write(tmp_path, 3, monkeypatch)
    assert archive is not None and not kept
    assert not archive.final.exists() and not archive.lock.exists() and not archive.part(os.getpid()).exists()
    settings: dict[str, str] = {}
    assert driver_options(settings) is None and settings == {}


def test_archive_changed_since_it_was_kept_is_not_mapped(cache: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    archive, kept = _write(tmp_path, 0, monkeypatch)
    assert archive is not None and kept
    os.chmod(archive.final, 0o644)
    with archive.final.open("r+b") as file:  # cut short, as a full disk or a copy would: mapping it crashes a JVM
        file.truncate(archive.final.stat().st_size // 2)
    settings: dict[str, str] = {}
    driver_options(settings)
    assert "SharedArchiveFile" not in settings.get("spark.driver.extraJavaOptions", "")


def test_one_writer_at_a_time_and_a_stale_lock_is_taken_over(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WRANGLER_CLASS_ARCHIVE", "write")
    first: dict[str, str] = {}
    archive = driver_options(first)
    assert archive is not None and "ArchiveClassesAtExit" in first["spark.driver.extraJavaOptions"]
    second: dict[str, str] = {}
    assert driver_options(second) is None and second == {}  # another process is writing
    old = archive.lock.stat().st_mtime - 2 * class_archive._STALE_LOCK_SECONDS
    os.utime(archive.lock, (old, old))
    third: dict[str, str] = {}
    assert driver_options(third) is not None  # its writer died long ago


@pytest.mark.parametrize("options", ["-XX:SharedArchiveFile=/mine.jsa", "-Xshare:off", "-XX:ArchiveClassesAtExit=x"])
def test_archive_options_the_user_gave_win(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           options: str) -> None:
    archive, kept = _write(tmp_path, 0, monkeypatch)
    assert kept and archive is not None
    settings = {"spark.driver.extraJavaOptions": options}
    assert driver_options(settings) is None and settings == {"spark.driver.extraJavaOptions": options}
    monkeypatch.setenv("WRANGLER_CLASS_ARCHIVE", "off")
    plain: dict[str, str] = {}
    assert driver_options(plain) is None and plain == {}


def test_key_follows_what_the_archive_must_fit(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert JAVA is not None
    base = class_archive.archive_key({}, JAVA)
    assert class_archive.archive_key({}, JAVA) == base
    assert class_archive.archive_key({"spark.jars": "/x.jar"}, JAVA) != base
    assert class_archive.archive_key({"spark.sql.shuffle.partitions": "9"}, JAVA) == base  # not a class path
    monkeypatch.setenv("SPARK_HOME", "/elsewhere")
    assert class_archive.archive_key({}, JAVA) != base
    monkeypatch.delenv("SPARK_HOME")
    import pyspark

    # the same jars in another virtual environment: the JVM's recorded class path would not fit
    monkeypatch.setattr(pyspark, "__file__", str(tmp_path / "pyspark" / "__init__.py"))
    assert class_archive.archive_key({}, JAVA) != base
