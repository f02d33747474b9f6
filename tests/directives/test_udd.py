"""User-defined directives declared in a file: they parse, check and get lineage; undeclared ones are unknown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import directives
from directives.udd import UddFileError, load_udds
from grammar.errors import DirectiveArgumentError, UnknownDirectiveError
from lineage.backtrack import Backtracker
from tests.paths import ROOT

CDAP_UDDS = ROOT / "tests" / "data" / "udd" / "cdap-udds.toml"


@pytest.fixture(scope="module")
def udds() -> dict[str, type[directives.Directive]]:
    return load_udds([CDAP_UDDS])


def test_without_a_declaration_a_udd_is_an_unknown_directive_pointing_at_udd() -> None:
    with pytest.raises(UnknownDirectiveError) as raised:
        directives.parse("drop :a\ntext-reverse :b")
    assert (raised.value.line, raised.value.column) == (2, 1)
    assert "--udd FILE" in (raised.value.hint or "")


def test_declared_udds_bind_to_their_arguments_and_stay_out_of_the_builtins(udds: dict) -> None:
    recipe = directives.parse("rows-filter :c 'smaller','30';\nduplicate-column :a 'd'", udds=udds)
    assert [step.directive.args_json() for step in recipe.steps] == [
        {"column": "c", "args": ["smaller", "30"]}, {"column": "a", "name": "d"}]
    assert "rows-filter" not in directives.REGISTRY
    with pytest.raises(DirectiveArgumentError, match="must be a column"):
        directives.parse("text-reverse 'b'", udds=udds)
    with pytest.raises(UnknownDirectiveError):  # declarations last only for the parse they were given to
        directives.parse("text-reverse :b")


def test_exact_declarations_give_exact_lineage(udds: dict) -> None:
    recipe = directives.parse("duplicate-column :a 'd'\ntext-reverse :d\nrows-filter :a 'smaller','3'",
                              ["a", "b"], udds=udds)
    assert [[label.to_json() for label in step.labels] for step in recipe.steps] == [
        [{"column": "a", "label": "READ"}, {"column": "d", "label": "ADD", "sources": ["a"]}],
        [{"column": "d", "label": "MODIFY", "sources": ["d"]}],
        [{"column": "a", "label": "READ"}]]
    lineage = Backtracker(recipe).lineage("d")
    assert (lineage.sources, lineage.path_directives, lineage.exact) == (["a"], [1, 2], True)
    assert lineage.indirect_directives == [3]  # rows = "filter": an INDIRECT influence on every column
    assert recipe.final_columns.names() == ["a", "b", "d"]


def test_a_declaration_without_effects_over_approximates(udds: dict) -> None:
    recipe = directives.parse("rename :a :x\nround-numbers :x\ndrop :b", ["a", "b"], udds=udds)
    lineage = Backtracker(recipe).lineage("x")
    # the UDD may have changed x (from its own earlier value): in the lineage, not exact, history kept
    assert (lineage.path_directives, lineage.sources, lineage.exact) == ([1, 2], ["a"], False)
    assert recipe.final_columns.known is False  # it may have added or dropped columns
    assert directives.validate("round-numbers :c\ndrop :nope", ["c"], udds=udds) == []


def test_check_checks_columns_a_declaration_names(udds: dict) -> None:
    (finding,) = directives.validate("text-reverse :emial", ["email"], udds=udds)
    assert (finding.rule, finding.column) == ("column-not-found", 14)
    assert "Did you mean 'email'?" in (finding.hint or "")


def test_pragma_names_must_be_declared(udds: dict) -> None:
    assert directives.validate("#pragma load-directives text-reverse;\ntext-reverse :b", udds=udds) == []
    (finding,) = directives.validate("#pragma load-directives nope, text-reverse;\ntext-reverse :b", udds=udds)
    assert (finding.severity, finding.rule, finding.line, finding.directive) == (
        "warning", "unknown-directive", 1, "nope")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[[directive]]\nname = "rename"', "built-in directive"),
        ('[[directive]]\nname = "x"\narguments = [{ name = "c", type = "colum" }]', "type 'colum'"),
        ('[[directive]]\nname = "x"\nmodifies = ["c"]', "'c', which is not an argument"),
        ('[[directive]]\nname = "x"\nadds = ["*"]', "for 'reads' only"),
        ('[[directive]]\nname = "x"\nrows = "sometimes"', "rows must be one of"),
        ('[[directive]]\nname = "x"\nreads = ["*"]\nmodify = ["c"]', "unknown field(s) modify"),
        ('[[directive]]\nname = "x"\n[[directive]]\nname = "x"', "declared twice"),
        ('name = "x"', "expected a list of directives"),
        ("[[directive]\n", "not valid TOML"),
    ],
)
def test_declaration_mistakes_name_the_file_and_the_problem(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "udds.toml"
    path.write_text(text)
    with pytest.raises(UddFileError, match=message.replace("(", r"\(").replace(")", r"\)")) as raised:
        load_udds([path])
    assert str(path) in str(raised.value)


def test_json_declarations_read_the_same(tmp_path: Path) -> None:
    path = tmp_path / "udds.json"
    path.write_text(json.dumps([{"name": "text-reverse", "arguments": [{"name": "column", "type": "COLUMN_NAME"}],
                                 "modifies": ["column"]}]))
    (step,) = directives.parse("text-reverse :b", udds=load_udds([path])).steps
    assert [label.to_json() for label in step.labels] == [{"column": "b", "label": "MODIFY", "sources": ["b"]}]
