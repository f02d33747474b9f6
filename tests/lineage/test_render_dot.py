"""`wrangler lineage --format dot` rendered by Graphviz itself, and the SVG read back.

The labels must come out as Graphviz draws them: a line break in a label is two lines of text, not a
literal backslash-n (the JSON escaping used before doubled the backslash), and names with quotes,
backslashes or non-ASCII letters are drawn as they are.
"""

from __future__ import annotations

import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

import directives
from lineage.backtrack import Backtracker
from lineage.render import dot_string, to_dot

SVG = "{http://www.w3.org/2000/svg}"


def render(dot: str) -> ET.Element:
    binary = shutil.which("dot")
    if binary is None:
        pytest.fail("Graphviz is not installed; run scripts/bootstrap.sh (it installs it with apt)")
    result = subprocess.run([binary, "-Tsvg"], input=dot, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "Warning" not in result.stderr and "Error" not in result.stderr, result.stderr
    return ET.fromstring(result.stdout)


def node_texts(svg: ET.Element) -> dict[str, list[str]]:
    """Each node's title (its id) -> the lines of text Graphviz drew in it."""
    found: dict[str, list[str]] = {}
    for group in svg.iter(f"{SVG}g"):
        if group.get("class") != "node":
            continue
        title = group.find(f"{SVG}title")
        assert title is not None and title.text is not None
        found[title.text] = [text.text or "" for text in group.iter(f"{SVG}text")]
    return found


def test_labels_break_lines_and_keep_hostile_names() -> None:
    text = ("parse-as-csv :body ',' true\ndrop :body\nextract-regex-groups :email '[^@]+@(.*)'\n"
            "rename :email_1_1 :email_domain")
    recipe = directives.parse(text, ["body", 'na"me\\x', "café"])  # names a schema may hold, passing through
    backtracker = Backtracker(recipe)
    names = backtracker.final_columns()
    assert 'na"me\\x' in names, names
    svg = render(to_dot(backtracker.all(), backtracker.generated()))
    texts = node_texts(svg)
    all_lines = [line for lines in texts.values() for line in lines]
    assert not any("\\n" in line for line in all_lines), all_lines  # no literal backslash-n anywhere
    assert texts["email_1_1@3"] == ["email_1_1", "#3 ADD"]
    assert texts["final:email_domain"] == ["email_domain"]
    # (Graphviz keeps a node id's backslashes in its title; the label is what is drawn, and it is exact)
    assert ['na"me\\x'] in texts.values()
    assert texts["final:café"] == ["café"]
    assert texts["final:<header>"] == ["<header>", "columns named by the data, from directive 1"]
    edges = [g.find(f"{SVG}title").text for g in svg.iter(f"{SVG}g") if g.get("class") == "edge"]  # type: ignore[union-attr]
    assert "email@1->email_1_1@3" in edges and "email_domain@4->final:email_domain" in edges


def test_dot_strings_escape_only_what_dot_needs() -> None:
    assert dot_string('a"b') == '"a\\"b"'
    assert dot_string("a\\nb") == '"a\\\\nb"'  # a literal backslash stays a backslash
    assert dot_string("a\nb") == '"a\\nb"'  # a line break becomes DOT's line break
    assert dot_string("café <x>") == '"café <x>"'
