"""The near-cache's bookkeeping on its own: what makes "never stale after an invalidation" hold."""

from __future__ import annotations

from pathlib import Path

from server.cache import GLOBAL_SCOPE, IMMUTABLE_SCOPE, dataset_scope
from server.nearcache import CachedBody, NearCache

A = dataset_scope("ns", "A")
B = dataset_scope("ns", "B")


def body(text: str) -> CachedBody:
    return CachedBody(text.encode())


def test_a_value_read_before_an_invalidation_is_not_stored_after_it() -> None:
    near = NearCache(10, 60.0)
    captured = near.capture()  # the store is read here...
    near.invalidate([A.token])  # ...a POST commits and invalidates A...
    near.put("k", A, captured, body("old"))  # ...and the old answer arrives late
    assert near.get("k", A) is None


def test_invalidation_is_per_dataset_but_reaches_every_cross_dataset_answer() -> None:
    near = NearCache(10, 60.0)
    captured = near.capture()
    near.put("a", A, captured, body("a"))
    near.put("b", B, captured, body("b"))
    near.put("g", GLOBAL_SCOPE, captured, body("g"))
    near.put("r", IMMUTABLE_SCOPE, captured, body("r"))
    near.invalidate([A.token])
    assert near.get("a", A) is None and near.get("g", GLOBAL_SCOPE) is None
    assert near.get("b", B) == body("b") and near.get("r", IMMUTABLE_SCOPE) == body("r")


def test_flush_forgets_everything_and_refuses_older_captures() -> None:
    near = NearCache(10, 60.0)
    captured = near.capture()
    near.put("r", IMMUTABLE_SCOPE, captured, body("r"))
    near.flush()
    assert len(near) == 0
    near.put("r", IMMUTABLE_SCOPE, captured, body("r"))
    assert near.get("r", IMMUTABLE_SCOPE) is None


def test_entries_expire_and_the_cache_is_bounded() -> None:
    now = [0.0]
    near = NearCache(2, 5.0, clock=lambda: now[0])
    for key in ("x", "y", "z"):
        near.put(key, B, near.capture(), body(key))
    assert near.get("x", B) is None and len(near) == 2  # least recently used went first
    now[0] = 6.0
    assert near.get("y", B) is None


def test_cached_body_round_trips_with_its_cursor() -> None:
    value = CachedBody(b'{"a": "line\\nbreak"}', "abc_-1")
    assert CachedBody.decode(value.encode()) == value
    assert CachedBody.decode(CachedBody(b"[]").encode()) == CachedBody(b"[]")


def test_store_probe_sees_each_commit_of_another_connection_once(tmp_path: Path) -> None:
    from bench.examples import employee_destination, employee_operations, employee_run
    from lineage.recorder import LineageRecorder
    from lineage.store import SQLiteLineageStore
    from server.invalidation import dataset_token
    from server.storeprobe import StoreProbe

    path = tmp_path / "probe.db"
    writer = SQLiteLineageStore(path)
    probe = StoreProbe(path)
    try:
        assert probe.changed() is False
        for i in range(3):
            LineageRecorder(employee_run(f"r{i}", 1_500_000_000 + i), writer).record(employee_destination(),
                                                                                   employee_operations())
            assert (probe.changed(), probe.changed()) == (True, False)
        latest, marks = probe.changes_since(0)
        assert latest == writer.latest_watermark()
        assert marks[dataset_token("MyNamespace", "EmployeeData")] == writer.watermark("MyNamespace", "EmployeeData")
        assert probe.changes_since(latest) == (latest, {})
    finally:
        probe.close()
        writer.close()
