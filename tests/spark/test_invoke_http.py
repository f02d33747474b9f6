"""`invoke-http` against a real local HTTP service started here: answers become columns, failures error rows.

The service answers POSTs with JSON computed from the body, fails some rows on purpose (a 400, a non-object
answer, a 503 that clears on retry) and counts every request, so the test can tell each row was sent once.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

import pytest
from pyspark.sql import SparkSession

from directives.spark.runtime.runner import run_rows
from tests.spark.http_service import JsonHandler, serve

pytestmark = pytest.mark.spark


class _Service(JsonHandler):
    requests: ClassVar[list[tuple[dict[str, object], str | None]]] = []
    flaky: ClassVar[set[str]] = set()

    def do_POST(self) -> None:
        body = self.read_json()
        assert isinstance(body, dict)
        _Service.requests.append((body, self.headers.get("X-Token")))
        name = str(body.get("name"))
        if name == "bad":
            return self.answer(400, {"error": "no"})
        if name == "list":
            return self.answer(200, [1, 2])
        if name == "flaky" and name not in _Service.flaky:
            _Service.flaky.add(name)
            return self.answer(503, {})
        self.answer(200, {"greeting": f"hello {name}", "length": len(name), "id": body.get("id")})


@pytest.fixture
def service() -> Iterator[str]:
    _Service.requests, _Service.flaky = [], set()
    with serve(_Service) as base:
        yield f"{base}/enrich"


def test_invoke_http_adds_the_answer_and_sends_failures_to_errors(spark: SparkSession, service: str) -> None:
    rows = [{"id": 1, "name": "ada"}, {"id": 2, "name": "bad"}, {"id": 3, "name": "list"},
            {"id": 4, "name": "flaky"}, {"id": 5, "name": None}]
    recipe = f"invoke-http '{service}' :id,:name 'X-Token=secret'"
    result = run_rows(recipe, rows, spark=spark)
    assert result.columns == ["id", "name", "greeting", "length"]
    assert [(r["id"], r["greeting"], r["length"]) for r in result.rows] == [
        (1.0, "hello ada", 3.0), (4.0, "hello flaky", 5.0), (5.0, "hello None", 4.0)]  # Gson reads numbers as Double
    messages = {e["row"]["id"]: e["message"] for e in result.errors}
    assert messages == {2: "invoke-http: status code: 400, reason phrase: Bad Request",
                        3: "invoke-http: The response is not a JSON object."}
    sent = [body for body, _ in _Service.requests]
    assert sorted(sent, key=lambda b: int(b["id"])) == [  # type: ignore[arg-type]
        {"id": 1, "name": "ada"}, {"id": 2, "name": "bad"}, {"id": 3, "name": "list"}, {"id": 4, "name": "flaky"},
        {"id": 4, "name": "flaky"}, {"id": 5}]  # once per row (flaky: retried once); a null is left out
    assert {token for _, token in _Service.requests} == {"secret"}
    counts = result.counts
    assert counts.reconciled and (counts.rows_in, counts.rows_out, counts.error_rows) == (5, 3, 2)


def test_invoke_http_skips_rows_already_failed_and_reports_a_dead_service(spark: SparkSession) -> None:
    spark.conf.set("spark.wrangler.http.retries", "1")
    try:
        recipe = "send-to-error exp:{id == 1}\ninvoke-http 'http://127.0.0.1:9/nothing' :id"
        result = run_rows(recipe, [{"id": 1}, {"id": 2}], spark=spark)
    finally:
        spark.conf.unset("spark.wrangler.http.retries")
    assert result.rows == []
    assert result.errors[0]["directive"].startswith("send-to-error")
    message = result.errors[1]["message"]
    assert message.startswith("invoke-http: ") and "(after 2 attempts)" in message
