"""Which records `parse-as-csv` splits on the delimiter and which it hands to the CSV reader: told by the first
character of each split field (`starts_unquoted`) up to `FIELD_START_CHECKS` fields, by a quote anywhere beyond.
Both ways must give every record the fields Commons-CSV gives it (`split_record`, the driver-side reader)."""

from __future__ import annotations

import random
from typing import Any

import pytest

pytestmark = pytest.mark.spark

#: Field texts that put quotes, spaces and NULs where they change (or must not change) how a record is read. (No
#: unclosed quote: Commons-CSV fails such a record, which `split_record` does not imitate.)
_FIELDS = ["a", "", "b c", 'x"y', 'x""', ' "q"', '"q"', '"q,r"', '"q""r"', '""', "\u0000z", "z\u0000", "é"]


def _records(seed: int, count: int, width: int) -> list[str]:
    pick = random.Random(seed)
    return [",".join(pick.choice(_FIELDS) for _ in range(pick.randint(1, width))) for _ in range(count)]


@pytest.mark.parametrize("checks", [0, 16])
def test_plain_records_are_told_by_their_field_starts(checks: int, spark: Any, monkeypatch: Any) -> None:
    from directives.csv_records import split_record
    from directives.spark.compile import csvsplit
    from directives.spark.runtime.runner import run_rows

    monkeypatch.setattr(csvsplit, "FIELD_START_CHECKS", checks)
    bodies = _records(seed=20261207, count=400, width=5)
    result = run_rows("parse-as-csv :body ',' false\n", [{"body": body} for body in bodies])
    assert not result.errors
    width = max(len(split_record(body, ",")) for body in bodies if body)
    for row in result.rows:
        expected = split_record(row["body"], ",") if row["body"] else []
        got = [row[f"body_{i}"] for i in range(1, width + 1)]
        assert got == expected + [None] * (width - len(expected)), row["body"]


@pytest.mark.parametrize(("spelt", "delimiter"), [("'\\\\'", "\\"), ("'|'", "|"), ("';;'", ";"), ("'\\t'", "\t")])
def test_records_with_quotes_are_read_whatever_the_delimiter(spelt: str, delimiter: str, spark: Any) -> None:
    """A quoted record goes to Spark's CSV reader, which takes a backslash in its separator for an escape: with a
    backslash delimiter every such record failed the whole job. (Wrangler splits on the first character of the
    delimiter it is given.)"""
    from directives.csv_records import split_record
    from directives.spark.runtime.runner import run_rows

    bodies = [body.replace(",", delimiter) for body in _records(seed=7, count=120, width=4)]
    result = run_rows(f"parse-as-csv :body {spelt} false\n", [{"body": body} for body in bodies])
    assert not result.errors
    width = max(len(split_record(body, delimiter)) for body in bodies if body)
    assert any('"' in body for body in bodies)
    for row in result.rows:
        expected = split_record(row["body"], delimiter) if row["body"] else []
        got = [row[f"body_{i}"] for i in range(1, width + 1)]
        assert got == expected + [None] * (width - len(expected)), row["body"]
