"""`wrangler parse` and `wrangler check`: formats, findings and exit codes (0 clean, 1 findings, 2 usage)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from server.cli import main

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_parse_prints_the_labelled_parse_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recipe = write(tmp_path, "r.txt", "// header\n\nrename :a :b\nsplit-to-columns :b ','\n")
    code, out, _ = run_cli(capsys, "parse", recipe, "--format", "json")
    assert code == 0
    steps = json.loads(out)
    assert steps[0] == {"index": 1, "line": 3, "column": 1, "text": "rename :a :b", "name": "rename",
                        "args": {"source": "a", "target": "b"},
                        "labels": [{"column": "a", "label": "RENAME", "to": "b"}]}
    assert steps[1]["labels"][1] == {"column": "b_<n>", "label": "ADD", "sources": ["b"], "pattern": True}


def test_parse_reads_stdin() -> None:
    result = subprocess.run([sys.executable, "-m", "server.cli", "parse", "-", "--schema", "a,c"],
                            input="drop :c", capture_output=True, text=True, cwd=ROOT, check=False)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)[0]["labels"] == [{"column": "c", "label": "DROP"}]


def test_check_clean_recipe_exits_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recipe = write(tmp_path, "ok.txt", "rename :a :b\ndrop :c\n")
    code, out, err = run_cli(capsys, "check", recipe, "--schema", "a,c")
    assert (code, out) == (0, "")
    assert "no findings" in err


def test_check_reports_every_finding_kind_in_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path, "bad.txt", "renam :a :b\nrename :a\nrename :a :c\nrename :nope :x\nmerge :c :a :c ','\n"
                "set-headers :a & :b\n")
    code, out, _ = run_cli(capsys, "check", bad, "--schema", "a,c", "--format", "json")
    assert code == 1
    findings = json.loads(out)
    assert {tuple(sorted(f)) for f in findings} == {("column", "file", "line", "message", "rule", "severity")}
    # the syntax error on the last line hides nothing: every line before it is bound and checked
    assert [(f["line"], f["rule"]) for f in findings] == [
        (1, "unknown-directive"), (2, "arguments"), (3, "column-conflict"), (4, "column-not-found"),
        (5, "column-not-found"), (6, "syntax")]
    clean_syntax = bad.replace("bad", "bad2")
    Path(clean_syntax).write_text(Path(bad).read_text().replace("set-headers :a & :b\n", ""))
    code, out, _ = run_cli(capsys, "check", clean_syntax, "--schema", "a,c", "--format", "json")
    rules = [(f["line"], f["rule"]) for f in json.loads(out)]
    assert code == 1
    # line 3 renames a onto c, so at line 5 there is no 'a' any more: the merge does nothing (Wrangler merges only
    # when both columns are there), so it does not duplicate 'c' either
    assert rules == [(1, "unknown-directive"), (2, "arguments"), (3, "column-conflict"), (4, "column-not-found"),
                     (5, "column-not-found")]


def test_check_github_annotations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path, "bad.txt", "rename :a :b\nrenam :a :b\n")
    code, out, _ = run_cli(capsys, "check", bad, "--format", "github")
    assert code == 1
    assert out.startswith(f"::error file={bad},line=2,col=1::Directive 'renam' not found. Did you mean 'rename'?")


def test_check_text_format_shows_caret(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path, "bad.txt", "rename :a 'b'\n")
    code, out, _ = run_cli(capsys, "check", bad)
    assert code == 1
    assert f"{bad}:1:11: error [arguments]" in out
    assert "rename :a 'b'\n" in out and "          ^" in out


def test_strict_flags_unnamed_renames_and_drops(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recipe = write(tmp_path, "r.txt", "set-headers :a,:b\ncleanse-column-names\nkeep :a\nchange-column-case upper\n")
    code, out, _ = run_cli(capsys, "check", recipe, "--strict", "--format", "json")
    assert code == 1
    assert [(f["line"], f["rule"]) for f in json.loads(out)] == [
        (1, "strict-unnamed-columns"), (2, "strict-unnamed-columns"), (3, "strict-unnamed-columns")]
    # after `keep :a` the column list is known again, so line 4 names its columns exactly
    code, out, _ = run_cli(capsys, "check", recipe, "--strict", "--schema", "p,q", "--format", "json")
    assert (code, json.loads(out)) == (0, [])


def test_schema_file_formats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recipe = write(tmp_path, "r.txt", "drop :b\n")
    for name, text in [("s.json", '["a", "b"]'), ("spark.json", '{"fields": [{"name": "a"}, {"name": "b"}]}'),
                       ("s.txt", "a\nb\n")]:
        code, _, _ = run_cli(capsys, "check", recipe, "--schema-file", write(tmp_path, name, text))
        assert code == 0, name
    code, _, _ = run_cli(capsys, "check", recipe, "--schema-file", write(tmp_path, "s2.txt", "a\n"))
    assert code == 1


def test_usage_errors_exit_two(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(capsys, "check", str(tmp_path / "missing.txt"))[0] == 2
    recipe = write(tmp_path, "r.txt", "drop :b\n")
    assert run_cli(capsys, "check", recipe, "--schema", "a,,b")[0] == 2
    assert run_cli(capsys, "check", recipe, "--schema-file", write(tmp_path, "bad.json", "{nope"))[0] == 2
    with pytest.raises(SystemExit) as caught:
        main(["check", recipe, "--format", "xml"])
    assert caught.value.code == 2


def test_directives_listing(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "directives", "--format", "json")
    names = {row["name"] for row in json.loads(out)}
    assert code == 0 and {"rename", "drop", "set-type"} <= names
