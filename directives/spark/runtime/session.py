"""One Spark configuration for production runs and tests, so both share the same semantics, wherever Spark runs:
in this process (`local[*]`), on a cluster this process drives (`spark://…`, `yarn`, `k8s://…`: client mode),
or on a Spark Connect server (`sc://…`). See docs/clusters.md."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

#: Semantics every run relies on: Wrangler-like null handling (no ANSI errors on bad casts, which we
#: route to the error output ourselves), UTC timestamps, and case-insensitive column resolution.
SPARK_CONF: dict[str, str] = {
    "spark.sql.ansi.enabled": "false",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.caseSensitive": "false",
    "spark.sql.legacy.timeParserPolicy": "CORRECTED",
    # Java LocalTime values (datetime:GetTime, TimeFromComponents) as Spark TIME columns.
    "spark.sql.timeType.enabled": "true",
    # PySpark otherwise records the Python call site of every Column function in the JVM (about five py4j
    # round trips per call): compiling a recipe makes thousands of calls, which made planning take seconds.
    "spark.python.sql.dataFrameDebugging.enabled": "false",
    # Spark 4 re-validates the whole plan after analysis and optimizer rules, a debugging aid that costs about
    # 4 ms on each of the ~20 DataFrames a recipe builds (one per directive); plans are unchanged without it.
    "spark.sql.lightweightPlanChangeValidation": "false",
}

#: Small, quiet, local: what tests and single-machine demos want.
LOCAL_CONF: dict[str, str] = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.default.parallelism": "2",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.driver.host": "127.0.0.1",
    "spark.sql.execution.arrow.pyspark.enabled": "false",
}


#: A driver in this process that runs its tasks on a cluster: Spark's console progress bar would interleave with the
#: command's output (``wrangler run --progress`` draws its own line).
CLUSTER_CONF: dict[str, str] = {
    "spark.ui.showConsoleProgress": "false",
}

#: Settings of the driver's JVM or of PySpark's py4j bridge, which a Spark Connect session can neither set (the
#: server's driver is already running) nor needs (no py4j calls are made).
_CLASSIC_ONLY = frozenset({"spark.python.sql.dataFrameDebugging.enabled"})


#: Errors-only console logging from the JVM's first line on (see the file for why).
QUIET_LOGGING = Path(__file__).with_name("log4j2-quiet.properties")


def _quiet_start(settings: dict[str, str]) -> None:
    """The driver is started by this process (local mode, or client mode on a cluster), so its logging can be set
    before Spark prints anything. Other driver options are kept; a log configuration the user names wins.
    (Executors on a cluster log to their worker's files, as the cluster's own configuration says.)"""
    options = settings.get("spark.driver.extraJavaOptions", "")
    if "log4j2.configurationFile" not in options and QUIET_LOGGING.is_file():
        quiet = f"-Dlog4j2.configurationFile={QUIET_LOGGING.as_uri()}"
        settings["spark.driver.extraJavaOptions"] = f"{options} {quiet}".strip()


def get_session(
    master: str | None = None, conf: Mapping[str, str] | None = None, app_name: str = "wrangler",
    remote: str | None = None,
) -> SparkSession:
    """The active session, or a new one with our semantics (local masters get the quiet local settings).

    ``remote`` (``sc://host:15002``) connects to a Spark Connect server instead of starting a driver here; the
    session then gets our SQL settings (and ``conf``) as session settings on the server."""
    from pyspark.sql import SparkSession

    if remote is not None:
        return _remote_session(remote, conf or {})
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    active = SparkSession.getActiveSession()
    if active is not None and master is None and not conf:
        return active
    builder = SparkSession.builder.appName(app_name)
    local = master is None or master.startswith("local")
    settings = {**SPARK_CONF, **(LOCAL_CONF if local else CLUSTER_CONF), **(conf or {})}
    if master is not None:
        builder = builder.master(master)
    elif active is None:
        builder = builder.master("local[*]")
    _quiet_start(settings)
    from pyspark import SparkContext

    from directives.spark.runtime.class_archive import driver_options, written_at_exit
    from directives.spark.runtime.jvm_stderr import filtered_stderr

    # a JVM is started here only when none is running (a process driven by another's gateway has its JVM already)
    starting = SparkContext._active_spark_context is None and "PYSPARK_GATEWAY_PORT" not in os.environ
    archive = driver_options(settings) if starting else None
    with filtered_stderr():  # the JVM's start-up notices are not the user's business
        session = builder.config(map=settings).getOrCreate()
    if archive is not None:
        written_at_exit(archive, SparkContext._gateway)
    session.sparkContext.setLogLevel("ERROR")
    return session


def _remote_session(url: str, conf: Mapping[str, str]) -> SparkSession:
    """A Spark Connect session with our SQL semantics set on it. A setting of ``conf`` the server refuses (a static
    one, which only the server's own start can set) raises, rather than being silently ignored."""
    from pyspark.sql import SparkSession

    session = SparkSession.builder.remote(url).getOrCreate()
    for key, value in SPARK_CONF.items():
        if key not in _CLASSIC_ONLY and key not in conf:
            session.conf.set(key, value)
    for key, value in conf.items():
        session.conf.set(key, value)
    return session


def is_remote_session(spark: SparkSession) -> bool:
    """A Spark Connect session: no driver in this process, so no py4j, `sparkContext` or status store."""
    return type(spark).__module__.startswith("pyspark.sql.connect")
