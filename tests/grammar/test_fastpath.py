"""The fast line reader agrees with the Lark grammar on every line it accepts (the grammar stays the authority)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from grammar.errors import RecipeSyntaxError
from grammar.fastpath import read_line
from grammar.parser import _parse_tree, _SyntaxBuilder
from tests.paths import CONFORMANCE

PIECES = [
    "rename", "drop", "set-type", "parse-as-csv", "a-1", "x", ":a", ":b_1", ":a:b", ":-x", ":a,:b", ":a, :b", ":1x",
    "'t'", "'it\\'s'", '"d"', "''", "'a;b'", "0", "-5", "1.5", "1.", "10L", "007", "1e5", "true", "false", "trueish",
    "exp:{a + b}", "exp :{ a }", "exp:{'}'}", "exp:{a == 'x'}", 'exp:{b != "y\\"z"}',
    "exp:{'{'}", "exp:{a{b}}", "prop:{a=1}", "1:2=x", "${m}", "exp", "if", "version",
    " ", "  ", "\t", ";", ",", "//c", "-- c", "#c", "&", "é", "\\",
]


def lark_call(line: str) -> object:
    try:
        syntax = _SyntaxBuilder(line).build(_parse_tree(line))
    except RecipeSyntaxError:
        return "error"
    return syntax.directives[0] if len(syntax.directives) == 1 else "not one directive"


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=7).map(" ".join))
def test_fast_reader_agrees_with_the_grammar(line: str) -> None:
    fast = read_line(line, 1, 0)
    if fast is not None:
        assert lark_call(line) == fast


def test_fast_reader_agrees_on_the_conformance_lines() -> None:
    accepted = 0
    for record in CONFORMANCE.read_text().splitlines():
        for text in json.loads(record)["directives"] if record.strip() else []:
            for line in text.split("\n"):
                fast = read_line(line, 1, 0)
                if fast is not None:
                    accepted += 1
                    assert lark_call(line) == fast, line
    assert accepted > 50
