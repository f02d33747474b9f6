"""The copy of the shared test material in `tests/data/shared` must match the team's `shared/` folder."""

from __future__ import annotations

import pytest

from tests.paths import SHARED, VENDORED

FILES = ["conformance/wrangler_cases.jsonl", "reference/wrangler-spec.md"]


@pytest.mark.parametrize("name", FILES)
def test_the_copy_matches_the_shared_folder(name: str) -> None:
    if SHARED == VENDORED:
        pytest.skip("no shared folder beside this clone: the copy is what the tests use")
    assert (VENDORED / name).read_bytes() == (SHARED / name).read_bytes(), (
        f"tests/data/shared/{name} is stale: copy it again from {SHARED / name}")
