"""A bounded run of the standing fuzz campaign (`bench/fuzz.py`): every input parses or fails with a position.

The long campaign (`python -m bench.fuzz --inputs 1000000`) is a command; this run of a few thousand
inputs keeps the invariant in the suite: whatever the text — random code points, lone surrogates, NUL,
mutated real recipes, other languages' tokens, deep nesting — `directives.parse`, `directives.validate`
and `parse_expression` end in a result or a `RecipeError` with a line and a column, never anything else.
"""

from __future__ import annotations

import pytest

from bench import fuzz

INPUTS = 2_500


@pytest.mark.parametrize("seed", [11])
def test_every_input_parses_or_fails_with_a_position(seed: int) -> None:
    report = fuzz.campaign(INPUTS, seed=seed, shrink_budget=10.0)
    assert report.inputs == INPUTS
    assert set(report.kinds) == {kind for kind, _, _ in fuzz.Generator(seed).kinds}  # every generator took part
    problems = [f"{finding.signature}: {finding.minimal!r}" for finding in report.findings.values()]
    assert problems == []


def test_the_checker_reports_what_breaks_the_invariant() -> None:
    # anything but a result or a positioned RecipeError comes back as the failure's signature
    assert fuzz.check("expression", "a +") is None
    assert fuzz.check("recipe", "drop :a\n\ud800 \x00") is None
    signature = fuzz.check("recipe", object())  # type: ignore[arg-type]
    assert signature is not None and signature.startswith(("TypeError", "AttributeError"))


def test_an_input_is_made_again_from_its_seed_and_index() -> None:
    assert fuzz.Generator(3).make(12_345) == fuzz.Generator(3).make(12_345)
    assert fuzz.Generator(3).make(1) != fuzz.Generator(3).make(2)


def test_shrinking_keeps_the_failure_and_drops_the_rest() -> None:
    text = "drop :a\n" * 20 + "x{" + "drop :b\n" * 20
    assert fuzz.shrink(text, lambda candidate: "x{" in candidate, budget=10.0) == "x{"
    assert fuzz.shrink(text, lambda candidate: False, budget=1.0) == text
