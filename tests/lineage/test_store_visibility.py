"""Store queries under a restricted ``Visibility``: runs out of sight are left out with pages still full,
walks stop at datasets out of sight, and the operations and graphs that remain are cut at the boundary.

The world: namespace ``mine`` owns ``In`` and ``Out``; namespace ``theirs`` owns ``Far`` and ``Farther``.
Runs of both namespaces write ``Out`` alternately (``theirs`` may run pipelines into ``mine``'s datasets
when an operator records them), so a page of ``Out``'s history interleaves both.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lineage.graph import build_graph
from lineage.model import DatasetRef, Destination, FieldOperation, InputField, RunInfo
from lineage.recorder import LineageRecorder, build_recorded_run
from lineage.store import LineageStore, open_store
from lineage.visibility import EVERYTHING, Visibility, cut_graph, cut_operations

MINE, THEIRS = "mine", "theirs"
SEES_MINE = Visibility(frozenset({MINE}))
T0 = 1_700_000_000
END = T0 + 10_000


def _read(namespace: str, dataset: str, field: str) -> FieldOperation:
    return FieldOperation(name=f"read:{dataset}.{field}",
                          inputs=[InputField.of_dataset(DatasetRef(namespace=namespace, name=dataset), field)],
                          outputs=[field])


def _record(store: LineageStore, run_ns: str, run_id: str, start: int, sources: list[tuple[str, str, str]],
            dest: tuple[str, str], properties: dict[str, str] | None = None) -> None:
    ops = [_read(*source) for source in sources]
    ops.append(FieldOperation(name="combine", inputs=[InputField(field=f) for _, _, f in sources], outputs=["v"]))
    destination = Destination(namespace=dest[0], name=dest[1], fields=("v",), properties=properties or {})
    LineageRecorder(RunInfo(namespace=run_ns, program=f"p-{run_ns}", run_id=run_id, start=start), store).record(
        destination, ops, column_history={"v": {"column": "v", "run": run_id, "upstream": []}})


@pytest.fixture
def store(store_location: str | Path) -> Iterator[LineageStore]:
    s = open_store(store_location)
    _record(s, THEIRS, "t-far", T0, [(THEIRS, "Farther", "f")], (THEIRS, "Far"))
    for i in range(6):  # mine, theirs, mine, theirs, ... all writing mine.Out, newest last
        owner = MINE if i % 2 == 0 else THEIRS
        _record(s, owner, f"{owner}-{i}", T0 + 100 * (i + 1), [(MINE, "In", "a"), (THEIRS, "Far", "v")],
                (MINE, "Out"), properties={"i": str(i)})
    yield s
    s.close()


def test_everything_is_the_unfiltered_query(store: LineageStore) -> None:
    assert store.dataset_properties(MINE, "Out", 0, END, visible=EVERYTHING) == store.dataset_properties(
        MINE, "Out", 0, END)
    assert store.field_lineage(MINE, "Out", "v", "backward", 0, END, visible=EVERYTHING) == store.field_lineage(
        MINE, "Out", "v", "backward", 0, END)


def test_pages_of_runs_in_sight_stay_full_and_chain(store: LineageStore) -> None:
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        page = store.dataset_properties(MINE, "Out", 0, END, limit=2, cursor=cursor, visible=SEES_MINE)
        pages += 1
        assert page.cut
        seen += [entry.run.run_id for entry in page.items]
        assert len(page.items) == 2 or page.next_cursor is None
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == ["mine-4", "mine-2", "mine-0"] and pages == 2
    history = store.column_history(MINE, "Out", "v", 0, END, limit=10, visible=SEES_MINE)
    assert [entry.tree["run"] for entry in history.items] == ["mine-4", "mine-2", "mine-0"] and history.cut
    whole = store.column_history(MINE, "Out", "v", 0, END, limit=10)
    assert len(whole.items) == 6 and not whole.cut


def test_newest_runs_per_group_are_the_newest_in_sight(store: LineageStore) -> None:
    """One operation set (same operations in both namespaces): max_runs=1 shows the newest run *in sight*."""
    whole = store.field_lineage(MINE, "Out", "v", "backward", 0, END, max_runs=1)
    [group] = whole.groups
    assert [r.run_id for r in group.runs] == ["theirs-5"] and group.last_run_start == T0 + 600
    cut = store.field_lineage(MINE, "Out", "v", "backward", 0, END, max_runs=1, visible=SEES_MINE)
    [group] = cut.groups
    assert [r.run_id for r in group.runs] == ["mine-4"] and group.last_run_start == T0 + 500
    assert cut.cut
    assert {(f.namespace, f.dataset) for f in group.fields} == {(MINE, "In")}
    assert [op.name for op in group.operations] == ["read:In.a", "combine", "write:Out"]
    assert all(node.source_endpoint is None or node.source_endpoint.namespace == MINE for node in group.graph.nodes)


def test_fields_count_only_runs_in_sight(store: LineageStore) -> None:
    [whole] = store.fields(MINE, "Out", 0, END).items
    [cut] = (page := store.fields(MINE, "Out", 0, END, visible=SEES_MINE)).items
    assert (whole.last_run, cut.last_run) == ("theirs-5", "mine-4") and cut.updated == T0 + 500 and page.cut
    hidden = store.fields(THEIRS, "Farther", 0, END, visible=SEES_MINE)  # only a run of theirs touched it
    assert hidden.items == () and hidden.cut


def test_summary_walks_stop_at_datasets_out_of_sight(store: LineageStore) -> None:
    whole = store.summary(MINE, "Out", "backward", 0, END, levels=3)
    assert {(m.level, m.source.name) for m in whole.mappings} == {(1, "In"), (1, "Far"), (2, "Farther")}
    cut = store.summary(MINE, "Out", "backward", 0, END, levels=3, visible=SEES_MINE)
    assert {(m.level, m.source.name) for m in cut.mappings} == {(1, "In")} and cut.cut
    forward = store.summary(MINE, "In", "forward", 0, END, levels=3, visible=SEES_MINE)
    assert {m.destination.name for m in forward.mappings} == {"Out"} and not forward.cut


def test_cut_operations_rename_what_they_drop_everywhere() -> None:
    run = RunInfo(namespace=MINE, program="p", run_id="r", start=T0)
    recorded = build_recorded_run(run, Destination(namespace=THEIRS, name="Sink", fields=("v",)),
                                  [_read(THEIRS, "Far", "x"), _read(MINE, "In", "a"),
                                   FieldOperation(name="combine", inputs=[InputField(field="x"), InputField(field="a")],
                                                  outputs=["v"])])
    operations, renamed, cut = cut_operations(recorded.operations, SEES_MINE)
    assert cut and renamed == {"read:Far.x": "cut#1", "write:Sink": "cut#2"}
    assert [op.name for op in operations] == ["read:In.a", "combine"]
    assert [(i.field, i.origin) for i in operations[1].inputs] == [("x", "cut#1"), ("a", "read:In.a")]
    graph, graph_cut = cut_graph(build_graph(recorded.operations), SEES_MINE, renamed)
    ids = {node.id for node in graph.nodes}
    assert graph_cut and "cut#1.x" in ids and not any("Far" in i or "Sink" in i for i in ids)
    assert {c.operation for c in graph.connections} == {"read:In.a", "combine"}
    assert cut_operations(recorded.operations, EVERYTHING) == (recorded.operations, {}, False)
