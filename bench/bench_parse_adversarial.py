"""Parse time of adversarial recipes from 16 KiB to 1 MiB (the API's request limit): linear or not (issue 21).

For every hostile shape — long whitespace, long lines, deep nesting, long member chains, many `;`, many
directives or errors on one line, long quoted strings and comments, unclosed constructs — it times
``directives.parse`` (syntax, binding, labelling; an error is as good an outcome as a result) at each
size and prints the time per KiB. The baseline, timed in the same process at the same sizes, is a plain
realistic recipe (``bench_parse``'s generator). A shape is linear when its time per KiB at the largest
size is at most ``LINEAR_GROWTH`` times its time per KiB at the smallest (a quadratic shape grows by the
size ratio, 64× from 16 KiB to 1 MiB). Times are CPU seconds of this process, best of ``--repeat``: the
machine is shared, and CPU time is what another session's load disturbs least.

    python -m bench.bench_parse_adversarial [--sizes 16,64,256,1024] [--repeat 3] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

import directives
from bench.bench_parse import generate
from bench.timing import time_runs
from grammar.errors import RecipeError

KIB = 1024
LINEAR_GROWTH = 2.0
"""Largest allowed growth of the time per KiB from the smallest size to the largest."""


def _repeat(unit: str, size: int, head: str = "", tail: str = "") -> str:
    return head + unit * max(1, (size - len(head) - len(tail)) // len(unit)) + tail


def _nested(open_: str, close: str, size: int, head: str, middle: str = "", tail: str = "") -> str:
    count = max(1, (size - len(head) - len(middle) - len(tail)) // (len(open_) + len(close)))
    return head + open_ * count + middle + close * count + tail


#: name → (what it is, text of about ``size`` characters)
SHAPES: dict[str, tuple[str, Callable[[int], str]]] = {
    "leading-blanks": ("blanks, then one word", lambda n: " " * (n - 1) + "x"),
    "leading-tabs": ("tabs, then one word", lambda n: "\t" * (n - 1) + "x"),
    "blank-between": ("a directive with its argument far away", lambda n: "drop" + " " * (n - 7) + ":a"),
    "trailing-blanks": ("a directive, then blanks", lambda n: "drop :a" + " " * (n - 7)),
    "blank-lines": ("new lines only", lambda n: "\n" * n),
    "many-semicolons": ("`;` only", lambda n: ";" * n),
    "semicolons-blanks": ("`; ` repeated", lambda n: _repeat("; ", n)),
    "directives-one-line": ("`drop :a;` repeated on one line", lambda n: _repeat("drop :a;", n)),
    "v1-directives-one-line": ("`rename a b;` (v1, rewritten) on one line", lambda n: _repeat("rename a b;", n)),
    "v1-text-arguments": ("`rename 'x' 'x' 'x' …` (a rewritten command)", lambda n: _repeat(" 'x'", n, "rename")),
    "errors-one-line": ("an unknown directive repeated on one line", lambda n: _repeat("nosuch :a;", n)),
    "error-lines": ("one unknown directive per line", lambda n: _repeat("nosuch :a\n", n)),
    "syntax-error-lines": ("one syntax error per line", lambda n: _repeat("drop ):\n", n)),
    "long-column-list": ("`keep :a,:a,…`", lambda n: _repeat(",:a", n, "keep :a")),
    "long-text": ("one quoted text", lambda n: "set-column :a '" + "x" * (n - 17) + "'"),
    "unclosed-text": ("a quote never closed", lambda n: "set-column :a '" + "x" * (n - 16)),
    "backslashes": ("a quote of backslashes", lambda n: "set-column :a '" + "\\" * (n - 16)),
    "expression-string": ("`exp:{'xxxx…'}`", lambda n: "set-column :a exp:{'" + "x" * (n - 22) + "'}"),
    "long-condition": ("`if (a == 'xxxx…') { … }`", lambda n: "if (a == '" + "x" * (n - 26) + "') { drop :a }"),
    "long-macro": ("`${xxxx…}`", lambda n: "drop ${" + "x" * (n - 8) + "}"),
    "long-range": ("`quantize`, a long quoted range value", lambda n: "quantize :a :b 1:2='" + "x" * (n - 21) + "'"),
    "line-comment": ("one `//` comment", lambda n: "// " + "x" * (n - 3)),
    "block-comment": ("one `/* */` comment over many lines", lambda n: "/*\n" + "x\n" * ((n - 5) // 2) + "*/"),
    "unclosed-comment": ("`/*` never closed", lambda n: "/* " + "x\n" * ((n - 3) // 2)),
    "member-chain": ("`exp:{a.b.b.b…}`", lambda n: _repeat(".b", n, "set-column :a exp:{a", "}")),
    "nested-parens": ("`exp:{((((a))))}`", lambda n: _nested("(", ")", n, "set-column :a exp:{", "a", "}")),
    "nested-operators": ("`exp:{(a+(a+(a+…)))}`", lambda n: _nested("(a+", ")", n, "set-column :a exp:{", "a", "}")),
    "unclosed-parens": ("`exp:{((((…`", lambda n: _repeat("(", n, "set-column :a exp:{", "}")),
    "nested-braces": ("`exp:{{{{…}}}}`", lambda n: _nested("{", "}", n, "set-column :a exp:{", "", "}")),
    "nested-if": ("`if (a) {` blocks inside each other", lambda n: _nested("if (a) {\n", "}\n", n, "", "drop :a\n")),
    "else-if-chain": ("`else if` branches", lambda n: _repeat(" else if (b) { drop :b }", n, "if (a) { drop :a }")),
    "nested-macros": ("`${${${…}}}`", lambda n: _nested("${", "}", n, "drop ")),
    "call-arguments": ("`exp:{f(a,a,a,…)}`", lambda n: _repeat(",a", n, "set-column :a exp:{f(a", ")}")),
    "expression-statements": ("`exp:{a;a;a;…}`", lambda n: _repeat(";a", n, "set-column :a exp:{a", "}")),
    "long-v1-expression": ("`set column c a + a + …` (v1)", lambda n: _repeat(" + a", n, "set column c a")),
    "many-properties": ("`prop:{a=1,a=1,…}`", lambda n: _repeat(",a=1", n, "x prop:{a=1", "}")),
    "prop-openers": ("`prop:{` repeated, one `}`", lambda n: _repeat("prop:{ ", n, "x ", "}")),
    "exp-openers": ("`exp:{` repeated", lambda n: _repeat("exp:{", n)),
    "long-name": ("one word", lambda n: "x" * n),
    "quotes": ("`'` repeated", lambda n: "'" * n),
}


def baseline_recipe(size: int) -> str:
    """A plain realistic recipe (bench_parse's mix) of about ``size`` characters."""
    text, _ = generate(max(10, size // 20), 50)
    while len(text) < size:
        text, _ = generate(len(text.splitlines()) * 2, 50)
    return text[: text.rfind("\n", 0, size)]


def _parse(text: str) -> str:
    try:
        directives.parse(text)
    except RecipeError:
        return "error"
    return "parsed"


def per_kib(text: str, repeat: int) -> tuple[float, str]:
    """Best CPU seconds per KiB of parsing ``text``, and the outcome."""
    outcome = _parse(text)
    _, cpu = time_runs(repeat, lambda: _parse(text))
    return min(cpu) / (len(text) / KIB), outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="16,64,256,1024", help="KiB, smallest first")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", nargs="+", choices=sorted(SHAPES))
    args = parser.parse_args(argv)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))  # the default: a deep input must not need more
    sizes = [int(size) * KIB for size in args.sizes.split(",")]
    heads = "".join(f"{size // KIB:>8} KiB" for size in sizes)
    print(f"CPU ms per KiB of recipe, best of {args.repeat}; linear: growth (largest/smallest per KiB) "
          f"≤ {LINEAR_GROWTH:g}×")
    print(f"{'shape':<24}{heads}   growth  outcome  vs baseline at {sizes[-1] // KIB} KiB")
    baseline = [per_kib(baseline_recipe(size), args.repeat)[0] for size in sizes]
    growth = baseline[-1] / baseline[0]
    print(f"{'baseline: plain recipe':<24}" + "".join(f"{value * 1000:>12.3f}" for value in baseline)
          + f"   {growth:5.2f}×  parsed   1.00×", flush=True)
    failed = []
    for name in args.only or SHAPES:
        _, make = SHAPES[name]
        values, outcome = [], ""
        for size in sizes:
            value, outcome = per_kib(make(size), args.repeat)
            values.append(value)
        growth = values[-1] / values[0]
        linear = growth <= LINEAR_GROWTH
        if not linear:
            failed.append(name)
        print(f"{name:<24}" + "".join(f"{value * 1000:>12.3f}" for value in values)
              + f"   {growth:5.2f}×  {outcome:<8} {values[-1] / baseline[-1]:5.2f}×"
              + ("" if linear else "   NOT LINEAR"), flush=True)
    shapes = len(args.only or SHAPES)
    print(f"linear: {shapes - len(failed)} of {shapes} shapes"
          + (f"; not linear: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
