"""The README is the product's front door: its first commands must be the ones CI runs, and its lists of
directives that need a Python UDF or cannot run on Spark must match the code exactly."""

from __future__ import annotations

import re

from directives.spark.compilers import PYTHON_UDFS, UNSUPPORTED, load_all
from tests.paths import ROOT

README = (ROOT / "README.md").read_text()


def _section(title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", README, flags=re.M | re.S)
    assert match, f"README has no '## {title}' section"
    return match.group(1)


def _listed(section: str) -> set[str]:
    return set(re.findall(r"^\| `([a-z0-9-]+)` \|", section, flags=re.M))


def test_readme_starts_with_the_two_commands_and_ci_runs_the_test_command() -> None:
    first_block = re.search(r"```bash\n(.*?)```", README, flags=re.S)
    assert first_block and README.index("```bash") < 200
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines() if line.strip()]
    assert commands == ["bash scripts/demo.sh", "bash scripts/test.sh"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^exec bash scripts/test\.sh\s*$", ci, flags=re.M)


def test_every_python_udf_directive_is_listed_with_its_reason() -> None:
    load_all()
    assert _listed(_section("Directives that use a Python UDF")) == set(PYTHON_UDFS)


def test_no_directive_is_refused_and_external_inputs_are_documented() -> None:
    load_all()
    assert UNSUPPORTED == {}
    assert "## Directives that do not run on Spark" not in README
    inputs = _section("Directives that read external inputs")
    assert "WRANGLER_RESOURCES" in inputs and all(f"`{name}`" in inputs for name in (
        "parse-as-avro", "parse-as-protobuf", "table-lookup", "data-model-map-column", "invoke-http",
        "catalog-lookup", "validate-standard"))


def test_docs_the_readme_links_exist() -> None:
    for link in re.findall(r"\]\(((?:docs|bench|examples)/[^)#]+)", README):
        assert (ROOT / link).exists(), link
