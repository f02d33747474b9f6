"""Every line read the way Wrangler reads it (its v1 rewrite runs on v2 lines too), positions on the user's words."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import directives
from grammar.fastpath import read_line
from grammar.migrate import V1_SWITCH_COMMANDS
from grammar.parser import _parse_directives, parse_recipe
from grammar.wrangler_lines import _ALIKE, _shape, reads_alike, wrangler_reading


def _only(text: str) -> directives.Step:
    (step,) = directives.parse(text).steps
    return step


@pytest.mark.parametrize(
    ("line", "name", "args"),
    [
        ("set-column :total price + tax", "set-column", {"column": "total", "expression": "price + tax"}),
        ("set-column :n string:length(name)", "set-column", {"column": "n", "expression": "string:length(name)"}),
        ("find-and-replace :name s/a/b/g", "find-and-replace", {"column": ["name"], "pattern": "s/a/b/g"}),
        ("parse-as-simple-date :d MM/dd/yyyy", "parse-as-simple-date", {"column": "d", "format": "MM/dd/yyyy"}),
        ("split-to-rows :c ,", "split-to-rows", {"column": "c", "regex": ","}),
        ("extract-regex-groups :c GET*", "extract-regex-groups", {"column": "c", "regex": "GET*"}),
        ("parse-as-date :d [' GMT-08:00']", "parse-as-date", {"column": "d", "timezone": "[' GMT-08:00']"}),
        ("mask-number :c XXX-XX-####", "mask-number", {"column": "c", "mask": "XXX-XX-####"}),
        ("keep :body,Customer_id,First_name", "keep", {"column": ["body", "Customer_id", "First_name"]}),
        ("find-and-replace column 's/x/y/g'", "find-and-replace", {"column": ["column"], "pattern": "s/x/y/g"}),
        ("merge :a :b :c ,", "merge", {"column1": "a", "column2": "b", "destination": "c", "separator": ","}),
        ("drop :a,", "drop", {"column": ["a"]}),
    ],
)
def test_lines_that_only_read_wranglers_way_run_as_wrangler_runs_them(line: str, name: str,
                                                                       args: dict[str, object]) -> None:
    step = _only(line)
    assert (step.directive.name, step.directive.args_json()) == (name, args)
    assert step.directive.call.original == line


def test_wranglers_reading_keeps_the_positions_of_the_users_words() -> None:
    (call,) = parse_recipe("  set-column :t price + qtty").directives
    expression = call.args[1]
    assert (expression.column, expression.value.column) == (17, 17)  # `price`, not the made-up `exp:{`
    (call,) = parse_recipe("keep :a,b_c").directives
    assert call.args[0].column == 6


@pytest.mark.parametrize(
    ("line", "runs", "says"),
    [
        ("mask-number :c 'xxx ##'", {"column": "c", "mask": "xxx ##"}, "`mask-number :c \"'xxx\";`"),
        ("drop :a, :b", {"column": ["a", "b"]}, "`drop :a;`"),
        ("parse-as-csv :body", {"col": "body"}, "Wrangler rejects this line (Missing field 'delimiter'"),
    ],
)
def test_valid_v2_that_the_rewrite_mangles_is_kept_with_a_warning(line: str, runs: dict[str, object],
                                                                  says: str) -> None:
    assert _only(line).directive.args_json() == runs
    (warning,) = directives.validate(line)
    assert (warning.severity, warning.rule, warning.line, warning.column) == ("warning", "wrangler-rewrite", 1, 1)
    assert says in warning.message


def test_words_the_rewrite_throws_away_are_a_warning_at_them() -> None:
    step = _only("cut-character body one -c 1-3")
    assert step.directive.args_json() == {"source": "body", "destination": "one", "ranges": "-c"}
    value, rewrite = directives.validate("cut-character body one -c 1-3")
    assert (rewrite.rule, rewrite.column) == ("wrangler-rewrite", 27)
    assert "Wrangler ignores '1-3'" in rewrite.message and "`cut-character :body :one '-c';`" in rewrite.message
    assert (value.rule, value.severity, value.column) == ("arguments", "warning", 24)


def test_a_line_wrangler_drops_is_dropped_with_a_warning() -> None:
    recipe = directives.parse("set format csv , true\nrename :a :b")
    assert [step.directive.name for step in recipe.steps] == ["rename"]
    (warning,) = recipe.findings
    assert (warning.line, warning.rule, warning.severity) == (1, "wrangler-rewrite", "warning")
    assert "drops this line" in warning.message


@pytest.mark.parametrize("line", ["drop :a /* a note */", "drop :a // a note", "rename :a :b -- a note"])
def test_a_comment_after_the_directive_is_not_a_thrown_away_word(line: str) -> None:
    assert directives.validate(line) == []


def test_v1_free_text_with_braces_or_comment_marks_is_one_line() -> None:
    assert _only("find-and-replace body s/{/(/g").directive.args_json()["pattern"] == "s/{/(/g"
    assert _only("split-to-rows body a/*b").directive.args_json()["regex"] == "a/*b"


def test_when_neither_reading_works_the_error_is_wranglers_at_the_users_word() -> None:
    with pytest.raises(directives.RecipeError) as raised:
        directives.parse("quantize body body_q 1:2=20,5:10=max")
    assert (raised.value.line, raised.value.column) == (1, 34)
    assert "Unexpected name 'max'" in raised.value.message and "5:10='max'" in (raised.value.hint or "")
    with pytest.raises(directives.RecipeError) as raised:
        directives.parse("filter-rows-on condition-maybe x > 1")
    assert raised.value.message.startswith("Unknown option 'condition-maybe'") and raised.value.column == 16


# -- the shape cache: lines of one shape are read alike --------------------------------------------------------------
#: Interchangeable spellings of each kind of argument (one shape, different words).
_SPELLINGS = [
    (":a", ":zz_9"), ("'x'", '"q"'), ("'x y'", "'a  b c'"), ("1", "2.5"), ("true", "false"), ("name", "n-2"),
    ("'a','b'", "'c','d','e'"), ("1,2", "3,4"), (":a,:b", ":c,:d,:e"), (":a, :b", ":c ,:d"), ("'it''s'", "'x;y'"),
]


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(sorted(V1_SWITCH_COMMANDS)), st.lists(st.sampled_from(range(len(_SPELLINGS))), max_size=5),
       st.lists(st.booleans(), min_size=5, max_size=5), st.sampled_from(["", ";", " ;", "  "]))
def test_two_lines_of_one_shape_are_read_alike(command: str, kinds: list[int], pick: list[bool], end: str) -> None:
    first = " ".join([command, *(_SPELLINGS[k][0] for k in kinds)]) + end
    second = " ".join([command, *(_SPELLINGS[k][int(p)] for k, p in zip(kinds, pick, strict=False))]) + end
    calls = [read_line(line, 1, 0) for line in (first, second)]
    if None in calls:
        return
    shapes = [_shape(call, line) for call, line in zip(calls, (first, second), strict=True)]  # type: ignore[arg-type]
    if shapes[0] is None or shapes[0] != shapes[1]:
        return
    truths = [wrangler_reading(line, 1, 0, _parse_directives).reads_like((call,))  # type: ignore[arg-type]
              for call, line in zip(calls, (first, second), strict=True)]
    assert truths[0] == truths[1], (first, second)
    _ALIKE.clear()
    assert [reads_alike(call, line, _parse_directives)  # type: ignore[arg-type]
            for call, line in zip(calls, (first, second), strict=True)] == truths
