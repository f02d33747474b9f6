"""The CDAP-compatible routes against CDAP's own source (``LineageHTTPHandler``, ``FieldLineageAdmin``,
``DatasetFieldLineageSummary``, ``TimeMathParser``, netty-http's ``ParamConvertUtils``), point by point.

Expected values are worked out from those Java sources by hand (Java's long arithmetic, Gson's field order),
never from our code.
"""

from __future__ import annotations

import pytest
from aiohttp.test_utils import TestClient

from server.cdap import java_boolean, parse_direction, parse_range, time_math_seconds
from server.errors import ParameterError
from tests.server.conftest import DATASET, NS, T0, ClientFactory, get_json, post_run, seed_body, simple_body

BASE = f"/v3/namespaces/{NS}/datasets"
CDAP = f"{DATASET}/lineage"


@pytest.fixture
async def client(make_client: ClientFactory) -> TestClient:
    return await make_client()


@pytest.fixture
async def seeded(client: TestClient) -> TestClient:
    await post_run(client, seed_body("run1", T0))
    return client


# --------------------------------------------------------------------------- TimeMathParser, by hand


@pytest.mark.parametrize(("text", "now", "seconds"), [
    ("0", 5, 0),
    ("1700000000", 5, 1_700_000_000),  # a plain number is seconds
    ("9223372036854775807", 5, 2**63 - 1),  # any Java long
    ("now", 1000, 1000),
    ("now-1h", 10_000, 10_000 - 3600),
    ("now-1d+4h", 100_000, 100_000 - 86_400 + 14_400),
    ("now+30m-15s", 0, 1800 - 15),
    ("now-1500ms", 1000, 998),  # (1,000,000 - 1,500) ms / 1000, truncated
    ("now-1500ms", 1, 0),  # -500 ms / 1000 truncates toward zero in Java: 0, not -1
    ("now-2ms", 0, 0),
    ("now+1ms", 0, 0),
])
def test_time_math_parser_values(text: str, now: int, seconds: int) -> None:
    assert time_math_seconds(text, now) == seconds


@pytest.mark.parametrize("text", [
    "NOW", "Now",  # "now" is compared case-sensitively (the upper-case branch can never match)
    "now-1w", "now-1y",  # units are ms s m h d only
    "now 1h", "now-1h ", " now", "now-", "now-h", "now--1h", "now-1h5m",
    "-5", "+5", "1.5", "1e3", "",
    "٣",  # Java's \\d is ASCII
    "9223372036854775808",  # Long.parseLong overflows
    "now-99999999999999999999s",
])
def test_time_math_parser_rejects_what_java_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        time_math_seconds(text, 1_700_000_000)


def test_time_math_parser_wraps_like_a_java_long() -> None:
    # TimeUnit.DAYS.toMillis saturates at Long.MAX_VALUE; now + MAX then wraps around to a negative number.
    assert time_math_seconds("now+9223372036854775807d", 1000) == (1_000_000 + 2**63 - 1 - 2**64) // 1000 + 1


def test_handler_range_checks_and_messages() -> None:
    assert parse_range({"start": "0", "end": "now"}, 50).end_ms == 50_000
    big = parse_range({"start": "0", "end": "9223372036854775807"}, 50)
    assert big.end_ms == 2**63 - 1  # SECONDS.toMillis saturates
    for query, parameter, message in [
        ({"end": "now"}, "start", "Start time is required."),
        ({"start": "0"}, "end", "End time is required."),
        ({"start": "now-1h", "end": "now"}, "start", "Invalid start time (now-1h -> -2600000), should be >= 0."),
        ({"start": "now", "end": "now-1s"}, "end",
         "Start time (now -> 1000000) should be lesser than end time (now-1s -> 999000)."),
        ({"start": "now+9223372036854775807d", "end": "now"}, "start", "should be >= 0"),
        ({"start": "yesterday", "end": "now"}, "start", "invalid time format yesterday"),
    ]:
        with pytest.raises(ParameterError) as caught:
            parse_range(query, 1000 if "now" in str(query) else 50)
        assert caught.value.parameter == parameter and message in str(caught.value), query


def test_direction_and_boolean_as_java_reads_them() -> None:
    assert [parse_direction(v) for v in ("incoming", "OUTGOING", "BoTh")] == ["INCOMING", "OUTGOING", "BOTH"]
    for bad in (None, "", " both", "both ", "backward", "in"):
        with pytest.raises(ParameterError, match=r"\[incoming, outgoing, both\]"):
            parse_direction(bad)
    assert [java_boolean(v) for v in ("true", "TRUE", "True")] == [True] * 3
    assert [java_boolean(v) for v in (None, "", "1", "yes", "maybe", " true", "t")] == [False] * 7


# --------------------------------------------------------------------------- the routes


async def test_unknown_parameters_are_ignored_and_repeated_ones_take_the_first_value(seeded: TestClient) -> None:
    status, _, body = await get_json(seeded, f"{CDAP}/fields/ID?start=0&end=now&direction=incoming"
                                             "&direction=outgoing&limit=1&cursor=x&whatever=1")
    assert status == 200, body
    assert set(body) == {"incoming"}  # the first direction; limit, cursor and whatever mean nothing to CDAP
    status, _, names = await get_json(seeded, f"{CDAP}/fields?start=0&start=now&end=now&colour=blue")
    assert status == 200 and sorted(names) == ["Department", "ID", "JoiningDate", "Name", "Salary_USD"]


async def test_include_current_is_parsed_as_java_does(seeded: TestClient) -> None:
    _, _, objects = await get_json(seeded, f"{CDAP}/fields?start=0&end=now&includeCurrent=TRUE&prefix=dEp")
    assert objects == [{"name": "Department", "lineage": True}]
    for value in ("maybe", "1", "yes", ""):
        status, _, names = await get_json(seeded, f"{CDAP}/fields?start=0&end=now&includeCurrent={value}&prefix=DEP")
        assert (status, names) == (200, ["Department"]), value


async def test_field_summary_leaves_out_directions_not_asked_for(seeded: TestClient) -> None:
    _, _, incoming = await get_json(seeded, f"{CDAP}/fields/ID?start=0&end=now&direction=INCOMING")
    assert set(incoming) == {"incoming"}
    datasets = {(d["dataset"]["dataset"], tuple(d["fields"])) for d in incoming["incoming"]}
    assert datasets == {("HRFile", ("HRRecord",)), ("PersonFile", ("PersonRecord",))}
    assert list(incoming["incoming"][0]["dataset"]) == ["dataset", "namespace", "entity"]  # Gson's order
    _, _, both = await get_json(seeded, f"{CDAP}/fields/ID?start=0&end=now&direction=both")
    assert set(both) == {"incoming", "outgoing"} and both["outgoing"] == []
    status, _, missing = await get_json(seeded, f"{CDAP}/fields/ID?start=0&end=now")
    assert status == 400 and missing["error"]["parameter"] == "direction"


async def test_operations_shape_and_end_point_properties(seeded: TestClient) -> None:
    _, _, body = await get_json(seeded, f"{CDAP}/fields/ID/operations?start=0&end=now")
    assert set(body) == {"incoming", "outgoing"}  # direction defaults to both
    [info] = body["incoming"]
    [program] = info["programs"]
    assert program == {"program": {"application": "EmployeePipeline", "version": "-SNAPSHOT", "type": "Spark",
                                   "program": "EmployeePipeline", "namespace": NS, "entity": "PROGRAM"},
                       "lastExecutedTimeInSeconds": T0}
    assert list(program["program"]) == ["application", "version", "type", "program", "namespace", "entity"]
    ops = {op["name"]: op for op in info["operations"]}
    # the properties recorded for the dataset come back on its endPoint
    assert ops["PersonRead"]["inputs"] == {"endPoint": {
        "namespace": NS, "name": "PersonFile", "properties": {"inputDir": "/data/2017/person", "regex": "*.csv"}}}
    assert ops["PersonRead"]["outputs"] == {"fields": ["body"]}
    assert ops["GenerateID"]["inputs"]["fields"][2] == {"origin": "PersonParse", "name": "SSN"}
    assert ops["write:EmployeeData"]["outputs"]["endPoint"] == {
        "namespace": NS, "name": "EmployeeData", "properties": {"rowid": "ID"}}
    names = [op["name"] for op in info["operations"]]
    assert names.index("GenerateID") > names.index("HRParse") > names.index("HRRead")  # topological


async def test_all_field_lineage_needs_a_direction_and_sends_both_sides_with_field_counts(seeded: TestClient) -> None:
    await post_run(seeded, simple_body("rep", "EmployeeData", "Report", ["ID"], start=T0 + 50))
    url = f"{CDAP}/allfieldlineage?start=0&end={T0 + 100}"
    status, _, missing = await get_json(seeded, url)
    assert status == 400 and missing["error"]["parameter"] == "direction"
    assert "[incoming, outgoing, both]" in missing["error"]["message"]
    _, _, body = await get_json(seeded, f"{url}&direction=Both")
    assert list(body) == ["direction", "start-ts", "end-ts", "entityId", "fields", "incoming", "outgoing"]
    assert body["direction"] == "BOTH"
    assert (body["start-ts"], body["end-ts"]) == (0, (T0 + 100) * 1000)
    assert body["entityId"] == {"dataset": "EmployeeData", "namespace": NS, "entity": "DATASET"}
    incoming = {r["entityId"]["dataset"]: r for r in body["incoming"]}
    assert {"source": "PersonRecord", "destination": "ID"} in incoming["PersonFile"]["relations"]
    assert {"source": "HRRecord", "destination": "Salary_USD"} in incoming["HRFile"]["relations"]
    assert list(incoming["HRFile"]) == ["entityId", "fieldCount", "relations"]
    # fieldCount: the fields the related dataset has in the range (FieldLineageTable.getFields: read or written)
    assert (incoming["HRFile"]["fieldCount"], incoming["PersonFile"]["fieldCount"]) == (1, 1)
    (report,) = body["outgoing"]
    assert (report["entityId"]["dataset"], report["fieldCount"]) == ("Report", 1)
    assert report["relations"] == [{"source": "record", "destination": "ID"}]
    _, _, only_in = await get_json(seeded, f"{url}&direction=incoming")
    assert only_in["outgoing"] == [] and len(only_in["incoming"]) == 2  # both keys, always


async def test_answers_are_complete_not_cut_at_a_page(client: TestClient) -> None:
    names = [f"f{i:03d}" for i in range(150)]
    await post_run(client, simple_body("wide", "Src", "Wide", names))
    for i in range(105):  # 105 operation sets reading Wide.f000
        await post_run(client, {
            "run": {"id": f"r{i}", "program": f"p{i}", "start": T0 + i, "end": T0 + i + 1},
            "destination": {"name": f"Out{i}", "fields": ["x"]},
            "operations": [{"name": "read", "inputs": [{"dataset": {"name": "Wide"}, "field": "f000"}],
                            "outputs": [{"field": "x"}]}]})
    _, headers, fields = await get_json(client, f"{BASE}/Wide/lineage/fields?start=0&end=now")
    assert sorted(fields) == names and "X-Next-Cursor" not in headers
    _, _, summary = await get_json(client, f"{BASE}/Wide/lineage/fields/f000?start=0&end=now&direction=outgoing")
    assert len(summary["outgoing"]) == 105
    _, _, operations = await get_json(client, f"{BASE}/Wide/lineage/fields/f000/operations?start=0&end=now"
                                              "&direction=outgoing")
    assert len(operations["outgoing"]) == 105
    _, _, everything = await get_json(client, f"{BASE}/Wide/lineage/allfieldlineage?start=0&end=now&direction=both")
    assert len(everything["fields"]) == 150 and len(everything["outgoing"]) == 105
    (source,) = everything["incoming"]
    assert len(source["relations"]) == 150 and source["fieldCount"] == 1


@pytest.mark.parametrize(("query", "parameter"), [
    ("end=now", "start"), ("start=0", "end"), ("start=now&end=now-1h", "end"), ("start=-5&end=now", "start"),
    ("start=now-1w&end=now", "start"), ("start=NOW&end=now", "start"), ("start=99999999999999999999&end=now", "start"),
])
async def test_time_bounds_are_required_and_ordered(seeded: TestClient, query: str, parameter: str) -> None:
    status, _, body = await get_json(seeded, f"{CDAP}/fields?{query}")
    assert status == 400, body
    assert body["error"]["parameter"] == parameter


async def test_millisecond_offsets_and_far_future_ends_are_cdap_times(seeded: TestClient) -> None:
    status, _, names = await get_json(seeded, f"{CDAP}/fields?start=now-3650d&end=now%2B5000ms")
    assert status == 200 and "ID" in names
    status, _, body = await get_json(seeded, f"{CDAP}/allfieldlineage?start=0&end=9223372036854775807"
                                             "&direction=incoming")
    assert status == 200 and body["end-ts"] == 2**63 - 1 and len(body["incoming"]) == 2
