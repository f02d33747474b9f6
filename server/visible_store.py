"""The store as one request's token may see it: every read a handler makes goes through here.

Handlers never query ``app[STORE]`` for lineage directly; they get a ``VisibleStore`` bound to the
request's ``Grant`` (``routes.support.visible_store``), so no route can forget to cut an answer at
the namespaces the token may not read. It also remembers whether any answer was cut, which the
response then says in its body (``cut``) and in the ``X-Lineage-Cut`` header - the CDAP shapes
have no room for a new member, so there the header is the only place.

An open server or an operator's token sees everything, and every call is passed straight through.
"""

from __future__ import annotations

from typing import Any

from lineage.store.base import LineageStore
from lineage.store.browse import DatasetInfo, DatasetRun, NamespaceInfo
from lineage.store.results import (
    ColumnHistoryEntry,
    FieldInfo,
    FieldLineage,
    LineageSummary,
    Page,
    PropertiesEntry,
    RunRecord,
)
from lineage.visibility import Visibility, cut_operations
from server.errors import ForbiddenError


class VisibleStore:
    def __init__(self, store: LineageStore, view: Visibility) -> None:
        self._store = store
        self._view = view
        self.cut = False
        """Some answer given through this object left something out."""

    def _seen(self, cut: bool) -> None:
        self.cut = self.cut or cut

    def fields(self, *args: Any, **kwargs: Any) -> Page[FieldInfo]:
        page = self._store.fields(*args, visible=self._view, **kwargs)
        self._seen(page.cut)
        return page

    def summary(self, *args: Any, **kwargs: Any) -> LineageSummary:
        summary = self._store.summary(*args, visible=self._view, **kwargs)
        self._seen(summary.cut)
        return summary

    def field_lineage(self, *args: Any, **kwargs: Any) -> FieldLineage:
        lineage = self._store.field_lineage(*args, visible=self._view, **kwargs)
        self._seen(lineage.cut)
        return lineage

    def dataset_properties(self, *args: Any, **kwargs: Any) -> Page[PropertiesEntry]:
        page = self._store.dataset_properties(*args, visible=self._view, **kwargs)
        self._seen(page.cut)
        return page

    def column_history(self, *args: Any, **kwargs: Any) -> Page[ColumnHistoryEntry]:
        page = self._store.column_history(*args, visible=self._view, **kwargs)
        self._seen(page.cut)
        return page

    def namespaces(self) -> list[NamespaceInfo]:
        return self._store.namespaces(visible=self._view)

    def datasets(self, *args: Any, **kwargs: Any) -> Page[DatasetInfo]:
        page = self._store.datasets(*args, visible=self._view, **kwargs)
        self._seen(page.cut)
        return page

    def dataset_runs(self, *args: Any, **kwargs: Any) -> Page[DatasetRun]:
        page = self._store.dataset_runs(*args, visible=self._view, **kwargs)
        self._seen(page.cut)
        return page

    def previous_run(self, namespace: str, run_id: str) -> str | None:
        """Runs of one program share its namespace: a view that may ask about the run sees the previous one."""
        return self._store.previous_run(namespace, run_id)

    def run(self, namespace: str, run_id: str) -> RunRecord | None:
        """The run cut at the datasets out of sight; a run that *writes* one is refused whole (403)."""
        record = self._store.run(namespace, run_id)
        if record is None or self._view.everything:
            return record
        cut = cut_run(record, self._view)
        self._seen(cut.cut)
        return cut


def cut_run(record: RunRecord, view: Visibility) -> RunRecord:
    """``record`` without the source datasets, their properties and the reads of them that ``view`` does not see.

    The destination is what the run is about: a run whose destination is out of sight has nothing
    left to show, so it is a 403 rather than an empty shell.
    """
    if not view.sees(record.destination.namespace):
        raise ForbiddenError("this run writes a dataset in a namespace the bearer token may not read",
                             parameter="run")
    operations, _, cut = cut_operations(record.operations, view)
    sources = tuple(source for source in record.sources if view.sees(source.namespace))
    properties = tuple(entry for entry in record.dataset_properties if view.sees(entry.dataset.namespace))
    if not cut and len(sources) == len(record.sources) and len(properties) == len(record.dataset_properties):
        return record
    return record.model_copy(update={"operations": operations, "sources": sources,
                                     "dataset_properties": properties, "cut": True})
