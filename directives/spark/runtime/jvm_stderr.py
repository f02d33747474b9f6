"""Keep the JVM's start-up notices off the user's stderr.

Spark 4's launcher always starts the driver with ``--add-modules=jdk.incubator.vector``, and the JVM then
prints ``WARNING: Using incubator modules: jdk.incubator.vector`` before any of our logging settings apply;
no JVM option turns it off. The JVM inherits this process's stderr when PySpark spawns it, so for that
moment stderr is a pipe: a thread copies every line the JVM writes to the real stderr, except the notices
in ``JVM_NOTICES``. Spark's own errors (and anything else the JVM prints later) still reach the user.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

#: Lines the JVM prints at start-up that say nothing about the user's run.
JVM_NOTICES = ("WARNING: Using incubator modules:",)


def _forward(source: int, target: int, dropped: Sequence[str]) -> None:
    with os.fdopen(source, "rb", buffering=0) as pipe:
        pending = b""
        while True:
            chunk = pipe.read(65536)
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if not any(line.startswith(notice.encode()) for notice in dropped):
                    os.write(target, line + b"\n")
        if pending:
            os.write(target, pending)
    os.close(target)


@contextmanager
def filtered_stderr(dropped: Sequence[str] = JVM_NOTICES) -> Iterator[None]:
    """While the block runs, processes started from here get a stderr that leaves out ``dropped`` lines."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no real stderr (an embedding host): nothing to filter
        yield
        return
    read_end, write_end = os.pipe()
    threading.Thread(target=_forward, args=(read_end, os.dup(saved), tuple(dropped)), name="jvm-stderr",
                     daemon=True).start()
    os.dup2(write_end, 2)
    os.close(write_end)
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
