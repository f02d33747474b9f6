"""Reading index rows in order while leaving out the runs of namespaces a query may not show.

The per-run index tables (``field_runs``, ``dataset_runs``, ``run_properties``, ``column_history``)
hold run ids, not namespaces; a restricted query joins ``runs`` (one primary-key seek per row) and
reads rows lazily in index order until it has as many visible rows as it needs. So a page is as
full as it would be without the filter, and the query says whether it passed over anything.
Unrestricted queries never come here: they keep their plain ``LIMIT`` queries.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lineage.store.db import Conn
from lineage.visibility import Visibility


def visible_rows(
    conn: Conn, sql: str, params: Sequence[Any], visible: Visibility, wanted: int
) -> tuple[list[tuple[Any, ...]], bool]:
    """Up to ``wanted`` rows of ``sql`` whose run ``visible`` sees, in order, without their last column (the
    run's namespace, which ``sql`` must select last); and whether a row out of sight was passed over."""
    found: list[tuple[Any, ...]] = []
    skipped = False
    if wanted <= 0:
        return found, skipped
    for row in conn.stream(sql, params):
        if not visible.sees(row[-1]):
            skipped = True
            continue
        found.append(tuple(row[:-1]))
        if len(found) >= wanted:
            break
    return found, skipped
