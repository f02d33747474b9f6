"""`wrangler check` as CI runs it: a subprocess, every finding kind, in text, JSON and GitHub formats.

Exit codes: 0 clean (warnings allowed), 1 findings (any error; with --strict, any finding), 2 usage
(unreadable file or schema, bad options). Each kind is checked for its rule, position and message in
all three formats, so a change to one renderer cannot silently drop information another keeps.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.paths import ROOT


@dataclass(frozen=True)
class Result:
    code: int
    out: str
    err: str


def check(*argv: str, cwd: Path) -> Result:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "server.cli", "check", *argv], capture_output=True, text=True,
                          cwd=cwd, env=env, check=False, timeout=120)
    return Result(done.returncode, done.stdout, done.stderr)


@dataclass(frozen=True)
class Kind:
    """One finding kind: a recipe, the schema it is checked against, and what the finding must say."""

    recipe: str
    schema: str | None
    rule: str
    line: int
    column: int
    says: tuple[str, ...]
    strict: bool = False


KINDS = {
    "syntax": Kind("rename :a :b\nset-headers :a & :b\n", None, "syntax", 2, 16, ("Unexpected character '&'",)),
    "unknown-directive": Kind("renam :a :b\n", None, "unknown-directive", 1, 1,
                              ("Directive 'renam' not found", "Did you mean 'rename'?")),
    "arity": Kind("rename :a\n", None, "arguments", 1, 1,
                  ("expected 2 argument(s), got 1", "Usage: rename :source :target")),
    "type": Kind("rename :a 'b'\n", None, "arguments", 1, 11, ("Argument 'target' of 'rename' must be a column",)),
    "missing-column": Kind("drop :a\ndrop :nope\n", "a,c,d", "column-not-found", 2, 6,
                           ("Column 'nope' does not exist", "Columns at this point: c, d")),
    "rename-onto-existing": Kind("rename :a :c\n", "a,c", "column-conflict", 1, 1,
                                 ("renames 'a' onto 'c', which already exists",)),
    "duplicate-generated": Kind("merge :a :c :m ','\nmerge :c :a :m ','\n", "a,c", "column-conflict", 2, 1,
                                ("generates column 'm', which already exists", "created by directive 1")),
    "duplicate-generated-pattern": Kind("split-to-columns :a ','\nsplit-to-columns :a ';'\n", "a", "column-conflict",
                                        2, 1, ("generates columns 'a_<n>'", "created by directive 1")),
    "strict": Kind("set-headers :x,:y\n", None, "strict-unnamed-columns", 1, 1,
                   ("'set-headers' renames or drops columns without naming them",), strict=True),
}


def _args(kind: Kind, path: Path, output: str) -> list[str]:
    args = [str(path.name), "--format", output]
    if kind.schema is not None:
        args += ["--schema", kind.schema]
    if kind.strict:
        args.append("--strict")
    return args


@pytest.mark.parametrize("name", sorted(KINDS))
def test_json_format(name: str, tmp_path: Path) -> None:
    kind = KINDS[name]
    (tmp_path / "recipe.txt").write_text(kind.recipe)
    result = check(*_args(kind, tmp_path / "recipe.txt", "json"), cwd=tmp_path)
    assert result.code == 1, result.err
    (finding,) = json.loads(result.out)
    assert set(finding) == {"file", "line", "column", "severity", "rule", "message"}
    assert (finding["file"], finding["line"], finding["column"]) == ("recipe.txt", kind.line, kind.column)
    assert (finding["severity"], finding["rule"]) == ("error", kind.rule)
    for words in kind.says:
        assert words in finding["message"]


@pytest.mark.parametrize("name", sorted(KINDS))
def test_text_format(name: str, tmp_path: Path) -> None:
    kind = KINDS[name]
    (tmp_path / "recipe.txt").write_text(kind.recipe)
    result = check(*_args(kind, tmp_path / "recipe.txt", "text"), cwd=tmp_path)
    assert result.code == 1
    first, source, caret = result.out.splitlines()[:3]
    assert first.startswith(f"recipe.txt:{kind.line}:{kind.column}: error [{kind.rule}] ")
    for words in kind.says:
        assert words in first
    # the offending line, with a caret under the column
    assert source.strip() == kind.recipe.splitlines()[kind.line - 1].strip()
    assert caret.index("^") - caret.index(caret.strip()[0]) == 0 and caret.index("^") - 4 == kind.column - 1
    assert "1 error(s), 0 warning(s)" in result.err


@pytest.mark.parametrize("name", sorted(KINDS))
def test_github_format(name: str, tmp_path: Path) -> None:
    kind = KINDS[name]
    (tmp_path / "recipe.txt").write_text(kind.recipe)
    result = check(*_args(kind, tmp_path / "recipe.txt", "github"), cwd=tmp_path)
    assert result.code == 1
    (annotation,) = result.out.splitlines()
    assert annotation.startswith(f"::error file=recipe.txt,line={kind.line},col={kind.column}::")
    assert annotation.endswith(f"[{kind.rule}]")
    for words in kind.says:
        assert words in annotation


# -- exit codes ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("output", ["text", "json", "github"])
def test_clean_recipe_exits_zero_in_every_format(output: str, tmp_path: Path) -> None:
    recipe = "// fine\nrename :a :b\nsplit-to-rows :b ','\nfilter-by-regex if-matched :b 'x.*'\n"
    (tmp_path / "ok.txt").write_text(recipe)
    result = check("ok.txt", "--schema", "a,c", "--format", output, cwd=tmp_path)
    assert result.code == 0, result.out + result.err
    assert {"text": "", "json": "[]\n", "github": ""}[output] == result.out


def test_warnings_pass_unless_strict(tmp_path: Path) -> None:
    (tmp_path / "extra.txt").write_text("copy :a :b 'x'\n")  # 'x' fits no argument: Wrangler drops it
    relaxed = check("extra.txt", "--format", "json", cwd=tmp_path)
    assert relaxed.code == 0
    (finding,) = json.loads(relaxed.out)
    assert (finding["severity"], finding["rule"], finding["column"]) == ("warning", "arguments", 12)
    assert "does not fit any remaining argument of 'copy'" in finding["message"]
    strict = check("extra.txt", "--format", "github", "--strict", cwd=tmp_path)
    assert strict.code == 1 and strict.out.startswith("::warning file=extra.txt,line=1,col=12::")


def test_strict_rule_is_satisfied_by_a_schema(tmp_path: Path) -> None:
    (tmp_path / "headers.txt").write_text(KINDS["strict"].recipe)
    assert check("headers.txt", "--strict", "--schema", "a,b", cwd=tmp_path).code == 0
    assert check("headers.txt", cwd=tmp_path).code == 0  # the rule is opt-in


def test_findings_of_several_files_in_one_run(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("renam :a :b\n")
    (tmp_path / "b.txt").write_text("rename :a :b\n")
    (tmp_path / "c.txt").write_text("drop :zz\n")
    result = check("a.txt", "b.txt", "c.txt", "--schema", "a", "--format", "json", cwd=tmp_path)
    assert result.code == 1
    assert [(f["file"], f["rule"]) for f in json.loads(result.out)] == [("a.txt", "unknown-directive"),
                                                                        ("c.txt", "column-not-found")]


@pytest.mark.parametrize(
    "argv",
    [
        ["missing.txt"],
        ["ok.txt", "--schema-file", "nope.json"],
        ["ok.txt", "--format", "xml"],
        ["ok.txt", "--schema", "a", "--schema-file", "s.json"],
        [],
    ],
    ids=["unreadable-recipe", "unreadable-schema", "unknown-format", "two-schemas", "no-recipe"],
)
def test_usage_errors_exit_two(argv: list[str], tmp_path: Path) -> None:
    (tmp_path / "ok.txt").write_text("rename :a :b\n")
    result = check(*argv, cwd=tmp_path)
    assert result.code == 2
    assert result.err.strip()


def test_an_unreadable_file_still_reports_the_others(tmp_path: Path) -> None:
    (tmp_path / "bad.txt").write_text("renam :a :b\n")
    result = check("bad.txt", "gone.txt", "--format", "github", cwd=tmp_path)
    assert result.code == 2
    assert "cannot read gone.txt" in result.err
    assert result.out.startswith("::error file=bad.txt,line=1,col=1::Directive 'renam' not found.")


def test_github_escapes_file_names_and_multiline_messages(tmp_path: Path) -> None:
    (tmp_path / "a,b:c.txt").write_text("renam :a :b\n")
    result = check("a,b:c.txt", "--format", "github", cwd=tmp_path)
    assert result.code == 1
    assert result.out.startswith("::error file=a%2Cb%3Ac.txt,line=1,col=1::")
    assert len(result.out.splitlines()) == 1


def test_recipe_on_standard_input(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "server.cli", "check", "-", "--format", "json"], input="renam :a :b",
                          capture_output=True, text=True, cwd=tmp_path, env=env, check=False, timeout=120)
    assert done.returncode == 1
    assert json.loads(done.stdout)[0]["file"] == "-"
