"""The standing fuzz campaign over recipes and expressions (issue 21): ``python -m bench.fuzz --inputs 1000000``.

Invariant: every input ends in a parse result (``directives.parse``: syntax, binding, labelling; with and
without a schema; ``directives.validate`` for ``wrangler check``; ``parse_expression`` for expressions) or
in a ``RecipeError`` whose every error carries a line and a column. Anything else — another exception,
a `RecursionError`, an error without a position, an input that runs past the time limit — is a finding,
printed with a minimal reproducer (shrunk by deleting chunks while the same failure remains).

Inputs are generated, not drawn from a fixed list, each one from ``(seed, index)`` alone so that any
input can be made again (``--only-index``):

* recipes built from the directive registry's own signatures (every directive, arguments of the kinds
  it declares, filled with hostile values: zone and charset names, patterns, escapes, huge numbers …),
  comments, pragmas, macros, ``if`` blocks, ``exp:{…}`` and ``prop:{…}``;
* expressions from a small JEXL grammar (calls from Wrangler's function catalogue, operators, members,
  ternaries, blocks, strings with escapes);
* the real-world recipes of ``../shared/realworld/recipes.jsonl`` and Wrangler's test recipes of
  ``../shared/conformance/`` (read where they are), mutated: characters inserted, deleted, repeated,
  lines swapped, tokens of other languages (SQL, JSON, shell, templates) spliced in;
* random text: any code point (lone surrogates and NUL included), random bytes decoded several ways;
* deep nesting: parentheses, brackets, braces, ``if`` blocks, macros, member chains, unary chains.

The test suite runs a bounded campaign (``tests/test_fuzz.py``); the long run is a command.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIME_LIMIT = 20.0
"""CPU seconds one input may take before it is a finding (a hang). CPU time, not wall-clock time: on a shared
machine a process waits for a core far longer than it runs, and a wall-clock limit reported that as hangs."""

# ------------------------------------------------------------------ material


def _shared() -> Path | None:
    if "WRANGLER_SHARED" in os.environ:
        return Path(os.environ["WRANGLER_SHARED"])
    for parent in ROOT.parents:
        if (parent / "shared" / "realworld").is_dir():
            return parent / "shared"
    return None


def seed_recipes() -> list[str]:
    """The real-world recipes and Wrangler's own test recipes, read where they are (never copied)."""
    shared = _shared()
    recipes: list[str] = []
    if shared is None:
        return recipes
    realworld = shared / "realworld" / "recipes.jsonl"
    if realworld.exists():
        for line in realworld.read_text(encoding="utf-8").splitlines():
            if line.strip():
                recipes.append(json.loads(line)["recipe"])
    conformance = shared / "conformance" / "wrangler_cases.jsonl"
    if conformance.exists():
        for line in conformance.read_text(encoding="utf-8").splitlines():
            if line.strip():
                recipes.append("\n".join(json.loads(line).get("directives") or []))
    return [recipe for recipe in recipes if recipe]


FOREIGN = (
    "SELECT * FROM users WHERE id = 1 OR '1'='1';", "DROP TABLE t; --", "UNION SELECT NULL, NULL--",
    "'; EXEC xp_cmdshell 'dir'",
    '{"a": [1, 2.5e10, {"b": null, "c": "\\u0000"}], "d": true}', "[{}]", '{"$ref": "#"}', "$(rm -rf /)", "`id`",
    "; ls -la | grep x &&", "&& echo $HOME", "|| true", "> /dev/null 2>&1", "${HOME}", "${${a}}", "%s%s%n%x",
    "../../etc/passwd", "<script>alert(1)</script>", "{{7*7}}", "#{7*7}", "<%= 7*7 %>", "__import__('os').system('id')",
    "java.lang.Runtime.getRuntime().exec('id')", "new('java.io.File', '/')", "\\u0027", "\\'", '\\"', "\\\\",
    "#!/bin/sh",
    "<?xml version='1.0'?><!DOCTYPE x [<!ENTITY e SYSTEM 'file:///etc/passwd'>]><x>&e;</x>", "a=1&b=2", "%00", "%0a",
    "\r\n", "\u2028", "\ufeff", "\U0001f600", "\x00", "\ud800", "\udfff", "\x1b[31m", "NaN", "Infinity", "-0", "1e400",
    "9" * 400, "0x7fffffffffffffffL", "2147483648", "-9223372036854775809", "1.7976931348623157E309", ".5", "5.",
)
INTERESTING_CHARS = "'\"{}()[];:,.\\\n\r\t\f\v#/*-$=!<>?&|^~%+@` \x00\ud800\udfff\u2028\u0085\ufeff\U0001f600é"
ZONES = ("UTC", "US", "America", "Etc", "US/Pacific", "Europe/Paris", "+05:30", "Z", "GMT+25", "../etc/passwd",
         "Europe/\x00Paris", "\ud800", "zoneinfo", "tzdata", "posixrules", "Factory", "", " ", "UTC ", "/", "Etc/")
CHARSETS = ("utf-8", "UTF-16", "iso-8859-1", "\ud800", "a\x00", "", "-", "utf 8", "x" * 300, "idna", "rot13", "zlib")
PATTERNS = ("yyyy-MM-dd", "'", "''", "[", "(?", "\\", "a{99999999}", "(a+)+$", "%s", "dd/MM/yyyy HH:mm:ss.SSS Z", "{0}",
            "xxx-##-####", "[^", "(?P<x>", "*", "GGGGGGGGGG", "uuuu-MM-dd'T'HH:mm:ssXXX", "s/a/b/g", "s/(/)/g", "s/a")
WORDS = ("a", "b", "body", "col_1", "x", "price", "qty", "name", "true", "false", "null", "if", "else", "exp", "prop",
         "version", "load-directives", "pragma", "and", "or", "not", "size", "empty", "new", "var", "return", "for")
NUMBERS_AS_TEXT = ("0", "-1", "1.5", "99999999999999999999", "NaN", "1e400", "0x1F", "", " 1", "١٢")
_VALUES_BY_NAME = (
    ("zone", ZONES), ("charset", CHARSETS), ("encoding", CHARSETS), ("pattern", PATTERNS), ("format", PATTERNS),
    ("regex", PATTERNS), ("expression", PATTERNS), ("delimiter", ("\\t", "\\u0009", "\\", "", "ab", "\\\ud800", "\\x")),
    ("locale", ("en_US", "xx", "", "\x00", "en-US", "de")), ("unit", ("seconds", "DAYS", "x", "")),
    ("algorithm", ("SHA-256", "MD5", "SHA3-512", "BLAKE2B-512", "x", "")),
    ("url", ("http://x", "file:///etc", "", "::")),
    ("length", NUMBERS_AS_TEXT), ("depth", NUMBERS_AS_TEXT), ("size", NUMBERS_AS_TEXT),
)
EXPR_OPS = ("+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "=~", "!~", "=^", "!^", "=$", "!$",
            "&", "|", "^", " and ", " or ", " eq ", " ne ", " lt ", " div ", " mod ", " ?: ", "=", "+=")


def _catalogue() -> list[tuple[str | None, str, int]]:
    from directives.expression_catalogue import FUNCTIONS

    calls = []
    for namespace, functions in FUNCTIONS.items():
        for name, arities in functions.items():
            least = min(arity[0] for arity in arities)
            calls.append((namespace, name, least))
    return calls


# ------------------------------------------------------------------ generators


class Generator:
    """Inputs from ``(seed, index)``: the same pair always gives the same input."""

    def __init__(self, seed: int) -> None:
        import directives

        self.seed = seed
        self.directives = sorted(directives.REGISTRY.items())
        self.functions = _catalogue()
        self.recipes = seed_recipes() or ["parse-as-csv :body ',' true\ndrop :body\nrename :a :b"]
        self.kinds: list[tuple[str, float, Callable[[random.Random], tuple[str, str]]]] = [
            ("mutated", 0.30, self.mutated_recipe),
            ("grammar", 0.25, self.grammar_recipe),
            ("expression", 0.15, self.expression_input),
            ("unicode", 0.10, self.random_unicode),
            ("bytes", 0.05, self.random_bytes),
            ("nesting", 0.05, self.deep_nesting),
            ("foreign", 0.10, self.foreign_mix),
        ]
        self.weights = [weight for _, weight, _ in self.kinds]

    def make(self, index: int) -> tuple[str, str, str]:
        """``(kind, target, text)``: target is ``recipe`` or ``expression``."""
        rng = random.Random(self.seed * 1_000_003 + index)
        kind, _, make = rng.choices(self.kinds, self.weights)[0]
        target, text = make(rng)
        return kind, target, text

    # -- pieces

    def column(self, rng: random.Random) -> str:
        names = ("a", "b", "body", "col_1", "x-y", "a:b", "_", "-", "Ünïcode", "a" * rng.randint(1, 50))
        return ":" + rng.choice(names)

    def text(self, rng: random.Random, name: str = "") -> str:
        """A quoted text; for an argument whose name says what it holds (a zone, a charset, a pattern), mostly
        values of that kind, so each directive's own checks see hostile values of the kind they read."""
        pool = next((values for part, values in _VALUES_BY_NAME if part in name), ()) if rng.random() < 0.6 else ()
        body = rng.choice(pool or (*ZONES, *CHARSETS, *PATTERNS, *FOREIGN, *WORDS, self.noise(rng, 12)))
        quote = rng.choice("''\"")
        return quote + body.replace(quote, "\\" + quote) + quote

    def number(self, rng: random.Random) -> str:
        return rng.choice(("0", "1", "-1", "3.14", "-0.5", "007", "1L", "99999999999999999999", "2147483648", "1e5",
                           str(rng.randint(-10**6, 10**6)), "0x10", "1.", "-", "9" * rng.randint(1, 600), "9" * 4_400))

    def noise(self, rng: random.Random, size: int) -> str:
        return "".join(rng.choice(INTERESTING_CHARS) for _ in range(rng.randint(0, size)))

    def argument(self, rng: random.Random, kind: str | None = None, name: str = "") -> str:
        kind = kind or rng.choice(("column", "column_list", "text", "text_list", "number", "number_list", "bool",
                                   "identifier", "expression", "properties", "ranges", "macro", "noise", "foreign"))
        if kind == "column":
            return self.column(rng)
        if kind == "column_list":
            return ",".join(self.column(rng) for _ in range(rng.randint(2, 5)))
        if kind == "text":
            return self.text(rng, name)
        if kind == "text_list":
            return ",".join(self.text(rng) for _ in range(rng.randint(2, 4)))
        if kind == "number":
            return self.number(rng)
        if kind == "number_list":
            return ",".join(self.number(rng) for _ in range(rng.randint(2, 4)))
        if kind in ("bool", "bool_list"):
            return ",".join(rng.choice(("true", "false", "TRUE", "yes")) for _ in range(rng.randint(1, 3)))
        if kind == "identifier":
            return rng.choice((*WORDS, *(name for name, _ in self.directives[:20]), "SHA-256", "lower", "int", "-c"))
        if kind == "expression":
            return "exp:{" + self.expression(rng, rng.randint(0, 4)) + "}"
        if kind == "properties":
            pairs = [f"{rng.choice(WORDS)}={rng.choice((self.text(rng), self.number(rng), 'true'))}"
                     for _ in range(rng.randint(0, 4))]
            return "prop:{" + rng.choice((",", " ", ", ")).join(pairs) + "}"
        if kind == "ranges":
            values = (self.text(rng), self.number(rng), "x")
            return ",".join(f"{self.number(rng)}:{self.number(rng)}={rng.choice(values)}"
                            for _ in range(rng.randint(1, 3)))
        if kind == "macro":
            return "${" + rng.choice(WORDS) + "}"
        if kind == "foreign":
            return rng.choice(FOREIGN)
        return self.noise(rng, 8)

    def directive(self, rng: random.Random) -> str:
        name, declaration = rng.choice(self.directives)
        signature = getattr(declaration, "signature", ())
        args = []
        for arg in signature:
            if arg.optional and rng.random() < 0.4:
                break
            kind = str(getattr(arg.kind, "value", arg.kind)).lower()
            args.append(self.argument(rng, kind if rng.random() < 0.85 else None, arg.name))
        if rng.random() < 0.1:
            args.append(self.argument(rng))
        if rng.random() < 0.05 and args:
            del args[rng.randrange(len(args))]
        if rng.random() < 0.05:
            name = rng.choice((name.upper(), name + "x", name[:-1], name.replace("-", "_"), "set column", "set format"))
        return " ".join([name, *args])

    def expression(self, rng: random.Random, depth: int) -> str:
        if depth <= 0 or rng.random() < 0.2:
            return rng.choice((
                rng.choice(WORDS[:8]), f"{rng.choice(WORDS[:6])}.{rng.choice(WORDS[:6])}", self.number(rng),
                "'" + self.noise(rng, 6).replace("'", "") + "'", "'\\u00e9'", "\"a\\\"b\"", "null", "true",
                "row['x']", "[1, 2]", "{}", "''", "0.5b", "7H", "1e3", "x.0", "a.'b c'",
            ))
        sub = depth - 1
        pick = rng.randrange(11)
        if pick == 0:
            namespace, name, least = rng.choice(self.functions)
            count = max(0, least + rng.choice((0, 0, 0, -1, 1)))
            head = f"{namespace}:{name}" if namespace else name
            return f"{head}(" + ", ".join(self.expression(rng, sub) for _ in range(count)) + ")"
        if pick in (1, 2, 3):
            return f"{self.expression(rng, sub)} {rng.choice(EXPR_OPS)} {self.expression(rng, sub)}"
        if pick == 4:
            return f"{self.expression(rng, sub)} ? {self.expression(rng, sub)} : {self.expression(rng, sub)}"
        if pick == 5:
            return f"{rng.choice(('-', '!', 'not ', '~', 'empty ', 'size '))}{self.expression(rng, sub)}"
        if pick == 6:
            return f"({self.expression(rng, sub)})"
        if pick == 7:
            return f"{self.expression(rng, sub)}.{rng.choice(('length()', 'trim()', 'x', 'substring(1, 2)', '1st'))}"
        if pick == 8:
            cond, then, otherwise = (self.expression(rng, sub) for _ in range(3))
            return f"if ({cond}) {{ {then} }} else {{ {otherwise} }}"
        if pick == 9:
            return f"var {rng.choice(WORDS[:6])} = {self.expression(rng, sub)}; {self.expression(rng, sub)}"
        return f"{self.expression(rng, sub)}[{self.expression(rng, sub)}]"

    def mutate(self, rng: random.Random, text: str, rounds: int) -> str:
        for _ in range(rounds):
            size = len(text)
            at = rng.randint(0, size)
            pick = rng.randrange(12)
            if pick == 0:
                text = text[:at] + rng.choice(INTERESTING_CHARS) + text[at:]
            elif pick == 1 and size:
                end = min(size, at + rng.randint(1, 20))
                text = text[:at] + text[end:]
            elif pick == 2 and size:
                end = min(size, at + rng.randint(1, 10))
                text = text[:at] + text[at:end] * rng.choice((2, 3, 50, 500)) + text[end:]
            elif pick == 3:
                text = text[:at] + rng.choice(FOREIGN) + text[at:]
            elif pick == 4:
                text = text[:at] + self.argument(rng) + text[at:]
            elif pick == 5:
                lines = text.split("\n")
                rng.shuffle(lines)
                text = "\n".join(lines)
            elif pick == 6:
                text = text[:at]
            elif pick == 7:
                text = text[:at] + rng.choice(("\n", ";", " ", "\r\n", "\t", "/*", "*/", "//", "#", "--")) + text[at:]
            elif pick == 8 and size:
                text = text[:at] + text[at:at + 1].swapcase() + text[at + 1:]
            elif pick == 9:
                text = text[:at] + "\n" + self.directive(rng) + "\n" + text[at:]
            elif pick == 10 and size:
                code = rng.choice((0, 0xD800, 0xDFFF, 0x2028, 0xFFFF, rng.randint(0, 0x10FFFF)))
                text = text[:at] + chr(code) + text[at:]
            else:
                text = text.replace(" ", rng.choice(("  ", "\t", " ; ", ",")), rng.randint(1, 3))
        return text

    # -- input kinds

    def mutated_recipe(self, rng: random.Random) -> tuple[str, str]:
        return "recipe", self.mutate(rng, rng.choice(self.recipes), rng.randint(1, 6))

    def grammar_recipe(self, rng: random.Random) -> tuple[str, str]:
        parts = []
        for _ in range(rng.randint(1, 8)):
            pick = rng.random()
            if pick < 0.75:
                parts.append(self.directive(rng))
            elif pick < 0.82:
                parts.append(rng.choice(("// note", "-- note", "# note", "/* note */", "/* multi\nline */")))
            elif pick < 0.88:
                parts.append(rng.choice(("#pragma version 2;", "#pragma load-directives a,b;", "#pragma version x;")))
            elif pick < 0.95:
                parts.append(f"if ({self.expression(rng, 2)}) {{ {self.directive(rng)} }}"
                             + (f" else {{ {self.directive(rng)} }}" if rng.random() < 0.5 else ""))
            else:
                parts.append("${" + rng.choice(WORDS) + "}")
        separator = rng.choice(("\n", ";", ";\n", " ; ", "\r\n"))
        text = separator.join(parts)
        if rng.random() < 0.3:
            text = self.mutate(rng, text, rng.randint(1, 3))
        return "recipe", text

    def expression_input(self, rng: random.Random) -> tuple[str, str]:
        expression = self.expression(rng, rng.randint(1, 6))
        if rng.random() < 0.4:
            expression = self.mutate(rng, expression, rng.randint(1, 3))
        if rng.random() < 0.5:
            return "expression", expression
        wrapper = rng.choice(("set-column :c exp:{%s}", "filter-row exp:{%s} true", "send-to-error exp:{%s}",
                              "set column c %s", "set-column :c %s", "if (%s) { drop :a }"))
        return "recipe", wrapper.replace("%s", expression)

    def random_unicode(self, rng: random.Random) -> tuple[str, str]:
        size = rng.choice((1, 5, 20, 100, 1000))
        pools = (lambda: chr(rng.randint(0, 0x10FFFF)), lambda: chr(rng.randint(0, 127)),
                 lambda: rng.choice(INTERESTING_CHARS), lambda: chr(rng.randint(0xD800, 0xDFFF)))
        pool = rng.choice(pools)
        return rng.choice(("recipe", "recipe", "expression")), "".join(pool() for _ in range(size))

    def random_bytes(self, rng: random.Random) -> tuple[str, str]:
        data = rng.randbytes(rng.choice((1, 8, 64, 512)))
        decoded = rng.choice((
            lambda: data.decode("utf-8", "surrogateescape"), lambda: data.decode("latin-1"),
            lambda: data.decode("utf-8", "replace"), lambda: data.decode("utf-16-le", "surrogatepass"),
        ))
        try:
            text = decoded()
        except UnicodeDecodeError:
            text = data.decode("latin-1")
        return rng.choice(("recipe", "expression")), text

    def deep_nesting(self, rng: random.Random) -> tuple[str, str]:
        depth = rng.choice((2, 10, 50, 63, 64, 65, 100, 199, 200, 201, 256, 257, 500, 1000, 3000))
        shapes = (
            ("set-column :c exp:{" + "(" * depth + "a" + ")" * depth + "}"),
            ("set-column :c exp:{" + "(a+" * depth + "a" + ")" * depth + "}"),
            ("set-column :c exp:{" + "[" * depth + "]" * depth + "}"),
            ("set-column :c exp:{" + "{" * depth + "}" * depth + "}"),
            ("set-column :c exp:{" + "-" * depth + "a}"),
            ("set-column :c exp:{" + "!" * depth + "a}"),
            ("set-column :c exp:{a" + ".b" * depth + "}"),
            ("set-column :c exp:{f(" * depth + ")" * depth + "}"),
            ("set-column :c exp:{a ? " * depth + "b" + " : c" * depth + "}"),
            ("if (a) {\n" * depth + "drop :a\n" + "}\n" * depth),
            ("if (a) { drop :a }" + " else if (b) { drop :b }" * depth),
            ("drop " + "${" * depth + "}" * depth),
            ("if " + "(" * depth + "a" + ")" * depth + " { drop :a }"),
            ("set-column :c exp:{" + "(" * depth),
            ("/*" * depth + "*/" * depth),
            ("x prop:{" * depth + "}" * depth),
            (" " * depth * 10 + "x"),
            ("drop :a;" * depth),
            ("a" + ".b" * depth),
        )
        text = rng.choice(shapes)
        if rng.random() < 0.3:
            text = self.mutate(rng, text, 2)
        return ("expression" if text.startswith("a.") else "recipe"), text

    def foreign_mix(self, rng: random.Random) -> tuple[str, str]:
        parts = [rng.choice((*FOREIGN, self.directive(rng), self.argument(rng))) for _ in range(rng.randint(1, 6))]
        return rng.choice(("recipe", "recipe", "expression")), rng.choice((" ", "\n", ";", "")).join(parts)


# ------------------------------------------------------------------ the invariant


@dataclass
class Finding:
    signature: str
    kind: str
    index: int
    text: str
    target: str
    detail: str
    minimal: str = ""


def _signature(error: BaseException) -> str:
    """The failure's type and the deepest frame of ours: two inputs failing alike count as one finding."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if str(ROOT) in frame.filename
              and "/bench/" not in frame.filename]
    where = f"{Path(frames[-1].filename).relative_to(ROOT)}:{frames[-1].lineno}" if frames else "?"
    return f"{type(error).__name__} at {where}"


class _Timeout(BaseException):
    """Raised by the alarm: not an Exception, so no `except Exception` in the code under test swallows it."""


def _alarm(_signum: int, _frame: object) -> None:
    raise _Timeout()


def check(target: str, text: str, schema: list[str] | None = None, validate: bool = True) -> str | None:
    """None when the invariant holds for this input, else the failure's signature (and raises nothing).

    ``validate`` also runs `wrangler check`'s analysis (``directives.validate``) on a recipe.
    """
    import directives
    from grammar.errors import RecipeError
    from grammar.expression import parse_expression

    def positioned(error: RecipeError) -> str | None:
        for item in error.errors:
            if not isinstance(item.line, int) or not isinstance(item.column, int) or item.line < 1 or item.column < 1:
                return f"RecipeError without a position: {type(item).__name__} {item.message[:80]!r}"
            str(item)  # what `wrangler check` prints; must not raise either
        return None

    try:
        if target == "expression":
            try:
                parse_expression(text)
            except RecipeError as error:
                return positioned(error)
            return None
        try:
            recipe = directives.parse(text, schema)
            json.dumps(recipe.to_json(), ensure_ascii=False)
        except RecipeError as error:
            problem = positioned(error)
            if problem is not None:
                return problem
        if not validate:
            return None
        for finding in directives.validate(text, schema):  # `wrangler check`: broken recipes above all
            if not isinstance(finding, RecipeError):
                return f"validate returned {type(finding).__name__}"
            problem = positioned(finding)
            if problem is not None:
                return "validate: " + problem
        return None
    except _Timeout:
        return f"timeout: more than {TIME_LIMIT:g} s of CPU"
    except BaseException as error:  # anything else is exactly what the fuzzer looks for
        if isinstance(error, KeyboardInterrupt):
            raise
        return _signature(error)


def _same_failure(target: str, schema: list[str] | None, validate: bool, signature: str) -> Callable[[str], bool]:
    return lambda candidate: check(target, candidate, schema, validate) == signature


def shrink(text: str, fails: Callable[[str], bool], budget: float = 30.0) -> str:
    """A smaller text that still ``fails``: chunks deleted while the failure stays (ddmin, time-bounded)."""
    deadline = time.monotonic() + budget
    parts = 2
    while len(text) > 1 and time.monotonic() < deadline:
        chunk = math.ceil(len(text) / parts)
        for start in range(0, len(text), chunk):
            candidate = text[:start] + text[start + chunk:]
            if candidate and fails(candidate):
                text, parts = candidate, max(parts - 1, 2)
                break
        else:
            if chunk == 1:
                break
            parts = min(len(text), parts * 2)
    return text


# ------------------------------------------------------------------ the campaign


@dataclass
class Report:
    inputs: int = 0
    seconds: float = 0.0
    findings: dict[str, Finding] = field(default_factory=dict)
    occurrences: dict[str, int] = field(default_factory=dict)
    kinds: dict[str, int] = field(default_factory=dict)
    slowest: tuple[float, int, str] = (0.0, -1, "")


SCHEMA = ["a", "b", "body", "col_1", "price", "qty", "name"]


def _variant(index: int) -> tuple[list[str] | None, bool]:
    """Which analyses an input gets: a schema every third input, `wrangler check`'s `validate` every other pair
    (pairs, so that workers taking every other input share the slower ones evenly)."""
    return (SCHEMA if index % 3 == 0 else None), index // 2 % 2 == 1


def run_slice(seed: int, start: int, stop: int, step: int, max_seconds: float | None,
              progress: Callable[[Report], None] | None = None, shrink_budget: float = 30.0) -> Report:
    """Inputs ``start, start + step, …`` below ``stop``; stops early after ``max_seconds``."""
    generator = Generator(seed)
    report = Report()
    began = time.monotonic()
    last_progress = began
    use_alarm = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if use_alarm:
        signal.signal(signal.SIGVTALRM, _alarm)
    for index in range(start, stop, step):
        kind, target, text = generator.make(index)
        schema, validate = _variant(index)
        started = time.perf_counter()
        if use_alarm:
            signal.setitimer(signal.ITIMER_VIRTUAL, TIME_LIMIT)
        try:
            signature = check(target, text, schema, validate)
        finally:
            if use_alarm:
                signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        took = time.perf_counter() - started
        if took > report.slowest[0]:
            report.slowest = (took, index, kind)
        report.inputs += 1
        report.kinds[kind] = report.kinds.get(kind, 0) + 1
        if signature is not None:
            report.occurrences[signature] = report.occurrences.get(signature, 0) + 1
            if signature not in report.findings:
                finding = Finding(signature, kind, index, text, target, signature)
                if not signature.startswith("timeout"):
                    finding.minimal = shrink(text, _same_failure(target, schema, validate, signature), shrink_budget)
                else:
                    finding.minimal = text[:2000]
                report.findings[signature] = finding
                print(f"FINDING {signature} (input {index}, {kind}, {target}"
                      f"{', schema' if schema else ''}): minimal reproducer {finding.minimal!r}", flush=True)
        now = time.monotonic()
        if progress is not None and now - last_progress > 30:
            report.seconds = now - began
            progress(report)
            last_progress = now
        if max_seconds is not None and now - began > max_seconds:
            break
    report.seconds = time.monotonic() - began
    return report


def _worker(args: tuple[int, int, int, int, float | None]) -> Report:
    seed, start, stop, step, max_seconds = args

    def progress(report: Report) -> None:
        print(f"  worker {start}: {report.inputs:,} inputs, {report.inputs / report.seconds:,.0f}/s, "
              f"{len(report.findings)} findings", flush=True)

    return run_slice(seed, start, stop, step, max_seconds, progress)


def campaign(inputs: int, seed: int = 0, workers: int = 1, max_seconds: float | None = None,
             shrink_budget: float = 30.0) -> Report:
    """Run ``inputs`` inputs over ``workers`` processes (1: in this process) and merge what they found."""
    if workers <= 1:
        return run_slice(seed, 0, inputs, 1, max_seconds, None, shrink_budget)
    context = multiprocessing.get_context("fork")
    with context.Pool(workers) as pool:
        parts = pool.map(_worker, [(seed, k, inputs, workers, max_seconds) for k in range(workers)])
    merged = Report()
    for part in parts:
        merged.inputs += part.inputs
        merged.seconds = max(merged.seconds, part.seconds)
        for signature, finding in part.findings.items():
            merged.findings.setdefault(signature, finding)
        for signature, count in part.occurrences.items():
            merged.occurrences[signature] = merged.occurrences.get(signature, 0) + count
        for kind, count in part.kinds.items():
            merged.kinds[kind] = merged.kinds.get(kind, 0) + count
        merged.slowest = max(merged.slowest, part.slowest)
    return merged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fuzz", description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="processes (each takes every n-th input)")
    parser.add_argument("--max-seconds", type=float, default=None, help="stop each worker after this long")
    parser.add_argument("--only-index", type=int, default=None, help="run and print just this input")
    args = parser.parse_args(argv)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    if args.only_index is not None:
        kind, target, text = Generator(args.seed).make(args.only_index)
        schema, validate = _variant(args.only_index)
        print(f"{kind} {target} schema={schema is not None} validate={validate}: {text!r}")
        print(check(target, text, schema, validate) or "holds")
        return 0
    report = campaign(args.inputs, args.seed, args.workers, args.max_seconds)
    kinds = ", ".join(f"{kind} {count:,}" for kind, count in sorted(report.kinds.items()))
    print(f"inputs by kind: {kinds}")
    took, index, kind = report.slowest
    print(f"slowest input: {took * 1000:.0f} ms (index {index}, {kind})")
    for signature, finding in report.findings.items():
        print(f"finding ×{report.occurrences[signature]}: {signature}\n  input {finding.index} ({finding.kind}): "
              f"{finding.minimal!r}")
    rate = report.inputs / report.seconds if report.seconds else 0.0
    print(f"fuzz: {report.inputs:,} inputs (seed {args.seed}) in {report.seconds:,.0f} s ({rate:,.0f}/s), "
          f"findings: {len(report.findings)}")
    return 1 if report.findings else 0


if __name__ == "__main__":
    sys.exit(main())
