"""A recipe sent as JSON may hold any code point, lone surrogates included: the worker's answer is still JSON.

`{"recipe": "fill-null-or-empty :a '\\ud800'"}` is valid JSON whose string UTF-8 cannot encode; the worker
wrote its answer with `ensure_ascii=False` and failed (a 500); found while hardening the parser (issue 21).
"""

from __future__ import annotations

import json

from server.recipe_analysis import OK, analyse, check

SURROGATE_RECIPE = "set-column :a exp:{'\ud800'}\nfill-null-or-empty :a '\ud800'"


def test_lineage_of_a_recipe_holding_a_lone_surrogate_is_json() -> None:
    kind, body = analyse(SURROGATE_RECIPE, ["a"])
    assert kind == OK
    document = json.loads(body.decode("ascii"))
    assert document["columns"]["a"]["sources"] == []


def test_check_findings_of_a_recipe_holding_a_lone_surrogate_are_json() -> None:
    kind, body = check("set-charset :a '\ud800'", ["a"], False)
    assert kind == OK
    findings = json.loads(body.decode("ascii"))["findings"]
    assert [(finding["line"], "\ud800" in finding["message"]) for finding in findings] == [(1, True)]


def test_ordinary_answers_stay_utf8_not_escaped() -> None:
    kind, body = check("set-charset :a 'ü'", ["a"], False)
    assert kind == OK and "'ü' is not a character set".encode() in body
