"""The lineage verifier on real Spark: static lineage against what perturbing each input column does.

Ground truth here is execution, not the code under test: every recipe runs on local Spark, once as is
and once per input column with that column's values perturbed, and the static lineage (computed without
data) must name every input whose perturbation changed an output column. The recipes are Wrangler's own
test recipes (the conformance cases, with their inputs as the sample), the real-world recipes (with a
sample inferred from the recipe) and random recipes over the directive catalogue (hypothesis).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import directives
from directives.spark.runtime.perturb import observe, perturb_value, resize_value
from lineage.backtrack import Backtracker
from lineage.verify import verify
from server.cli.lineage_commands import verify_sample
from tests.paths import SHARED
from tests.spark.sample_rows import infer_sample
from tests.spark.test_conformance import CASES, input_rows, recipe_text

pytestmark = pytest.mark.spark

REALWORLD = SHARED / "realworld"


def check(text: str, rows: list[dict[str, Any]], spark: Any, types: dict[str, Any] | None = None) -> Any:
    schema = list(dict.fromkeys(name for row in rows for name in row))
    recipe = directives.parse(text, schema)
    return verify_sample(recipe, rows, types, spark)


# -- perturbation keeps shape ------------------------------------------------------------------------------------------
def test_perturbed_values_keep_their_shape_and_change() -> None:
    cases = {"2017-01-31": "2013-01-31", "12/31/2017 11:59 PM": "12/31/2013 11:58 AM", "a,b,1": "b,c,2",
             "Jan 31, 2019": "Jan 30, 2018", "true": "false", "01": "02", "31": "30"}
    for value, expected in cases.items():
        assert perturb_value(value) == expected
    assert json.loads(perturb_value('{"name": "ada", "age": 36}')) == {"name": "beb", "age": 37}
    assert perturb_value(5) == 6 and perturb_value(2**31 - 1) == 2**31 - 2 and perturb_value(None) is None
    assert resize_value([1, 2]) == [2, 3, 3] and json.loads(resize_value("[1, 2]")) == [2, 3, 3]
    assert resize_value("a,b") is None and resize_value([]) is None


# -- the bugs the issue names, each shown by execution -----------------------------------------------------------------
def test_email_domain_lineage_names_the_extract_step_and_its_column(spark: Any) -> None:
    text = ("parse-as-csv :body ',' true\ndrop :body\nextract-regex-groups :email '[^@]+@(.*)'\n"
            "rename :email_1_1 :email_domain")
    rows = [{"body": "name,email"}, {"body": "ada,ada@x.org"}, {"body": "bob,bob@y.com"}]
    observation, verification = check(text, rows, spark)
    assert verification.ok, verification.to_text()
    assert "email_domain" in observation.baseline.columns
    domain = Backtracker(directives.parse(text, ["body"])).lineage("email_domain")
    assert domain.directives == [1, 3, 4] and domain.sources == ["body"]
    assert [node.column for node in domain.tree.walk()][:3] == ["email_domain", "email_1_1", "email"]


def test_parse_as_json_of_an_array_keeps_the_column_and_multiplies_rows(spark: Any) -> None:
    rows = [{"body": "[1, 2]", "k": "a"}, {"body": "[3]", "k": "b"}]
    observation, verification = check("parse-as-json :body", rows, spark)
    assert verification.ok, verification.to_text()
    assert "body" in observation.baseline.columns
    lineage = Backtracker(directives.parse("parse-as-json :body", ["body", "k"])).lineage("k")
    assert [(t.source, t.type, t.subtype) for t in lineage.transformations()] == [
        ("k", "DIRECT", "IDENTITY"), ("body", "INDIRECT", "EXPLODE")]
    assert ("body", "k") in verification.observed  # resizing the array changed how many `k` rows there are


def test_multi_column_flatten_is_a_row_shape_influence_on_every_column(spark: Any) -> None:
    rows = [{"id": 1, "a": [1, 2, 3], "b": ["x", "y"]}, {"id": 2, "a": [4], "b": ["z"]}]
    _, verification = check("flatten :a,:b", rows, spark)
    assert verification.ok, verification.to_text()
    assert {("a", "b"), ("a", "id"), ("b", "id")} <= verification.observed
    recipe = directives.parse("flatten :a,:b", ["id", "a", "b"])
    influences = {(t.source, t.subtype) for t in Backtracker(recipe).lineage("id").transformations()
                  if t.type == "INDIRECT"}
    assert influences == {("a", "EXPLODE"), ("b", "EXPLODE")}


def test_add_versus_modify_follows_the_schema(spark: Any) -> None:
    text = "set-column :total exp:{total == null ? price : total + price}"
    (added,) = [label for label in directives.parse(text, ["price"]).steps[0].labels if label.column == "total"]
    (modified,) = [label for label in directives.parse(text, ["price", "total"]).steps[0].labels
                   if label.column == "total"]
    assert (added.label.value, added.sources) == ("ADD", ("price",))
    assert (modified.label.value, modified.sources) == ("MODIFY", ("total", "price"))
    _, verification = check(text, [{"price": 3}, {"price": 4}], spark)
    assert verification.ok, verification.to_text()


# -- the verifier itself can fail --------------------------------------------------------------------------------------
def test_an_output_that_changes_without_its_lineage_naming_the_input_is_unsound(spark: Any) -> None:
    rows = [{"a": 1, "b": 10}, {"a": 2, "b": 20}]
    real = directives.parse("set-column :c exp:{a + b}", ["a", "b"])
    claimed = directives.parse("set-column :c exp:{a}", ["a", "b"])  # a lineage that forgets b
    verification = verify(claimed, observe(real, rows, spark, precise=True))
    assert [(f.input, f.output) for f in verification.unsound] == [("b", "c")]
    assert not verification.ok and "does not name b" in verification.unsound[0].message


def test_a_row_shape_change_the_lineage_does_not_name_is_unsound(spark: Any) -> None:
    rows = [{"id": 1, "a": [1, 2], "b": ["x", "y"]}]
    real = directives.parse("flatten :a,:b", ["id", "a", "b"])
    claimed = directives.parse("uppercase :a\nuppercase :b", ["id", "a", "b"])  # no row multiplication
    verification = verify(claimed, observe(real, rows, spark))
    unsound = {(f.input, f.output) for f in verification.unsound}
    assert ("a", "id") in unsound and ("b", "id") in unsound
    assert all("different number of output rows" in f.message for f in verification.unsound
               if f.output == "id")


def test_unobserved_exact_edges_are_informational(spark: Any) -> None:
    # `a` is never null in the sample, so `b` is never used: its exact edge cannot be seen, and that is no failure
    _, verification = check("set-column :c exp:{a == null ? b : a}", [{"a": "p", "b": "q"}, {"a": "r", "b": "s"}],
                            spark)
    assert verification.ok, verification.to_text()
    assert [(f.input, f.output) for f in verification.unobserved] == [("b", "c")]
    assert ("a", "c") in verification.observed and ("b", "c") not in verification.observed


def test_columns_that_change_on_every_run_are_not_evidence(spark: Any) -> None:
    observation, verification = check("generate-uuid :id\nuppercase :a", [{"a": "x"}, {"a": "y"}], spark)
    assert verification.ok, verification.to_text()
    assert "id" in observation.unstable


# -- every conformance recipe that runs --------------------------------------------------------------------------------
def test_every_conformance_recipe_that_runs_has_no_unsound_edge(spark: Any) -> None:
    verified, unsound, skipped = 0, [], []
    for case in CASES:
        rows, types = input_rows(case)
        schema = list(dict.fromkeys(name for row in rows for name in row))
        try:
            recipe = directives.parse(recipe_text(case), schema)
            _, verification = verify_sample(recipe, rows, types, spark)
        except Exception as error:  # a recipe that does not run (Wrangler's own error cases) is not verified
            skipped.append(f"{case['id']}: {type(error).__name__}")
            continue
        verified += 1
        unsound.extend(f"{case['id']}: {finding.message}" for finding in verification.unsound)
    assert unsound == []
    # the cases that do not run are Wrangler's own error cases and the few directives docs/conformance.md lists
    assert verified >= 95, skipped


# -- the real-world recipes, with samples inferred from the recipe -----------------------------------------------------
def _realworld() -> list[dict[str, Any]]:
    if not (REALWORLD / "verdicts.jsonl").is_file():
        return []
    verdicts = [json.loads(line) for line in (REALWORLD / "verdicts.jsonl").read_text().splitlines() if line.strip()]
    return [v for v in verdicts if v["wrangler_accepts"] and not v["udd"] and not v["macro"]]


@pytest.mark.skipif(not _realworld(), reason="../shared/realworld is not here (a clone without the shared folder)")
def test_real_world_recipes_with_inferred_samples_have_no_unsound_edge(spark: Any) -> None:
    verified, unsound = 0, []
    for verdict in _realworld():
        try:
            sample = infer_sample(directives.parse(verdict["migrated"]))
        except directives.RecipeError:
            continue  # recipes our parser refuses are i15's compatibility list, not lineage
        if sample is None:
            continue  # no schema can be inferred (binary input, lookups, HTTP)
        try:
            recipe = directives.parse(verdict["migrated"], sample.columns)
            _, verification = verify_sample(recipe, sample.rows, None, spark)
        except Exception:  # expressions or locales not available on Spark: docs/expressions.md lists them
            continue
        verified += 1
        unsound.extend(f"{verdict['id']}: {finding.message}" for finding in verification.unsound)
    assert unsound == []
    assert verified >= 80


def test_transient_variables_carry_their_columns_into_later_expressions(spark: Any) -> None:
    """`set-variable` then an expression naming it: before the fix, t's lineage named an input `total`."""
    text = ("set-variable total exp:{price * qty}\nincrement-variable big 1 exp:{price > 3}\n"
            "set-column :t exp:{total}\nset-column :n exp:{big}\nsend-to-error exp:{total > 40}")
    rows = [{"price": 2, "qty": 3, "total": 100}, {"price": 4, "qty": 5, "total": 100},
            {"price": 1, "qty": 1, "total": 100}, {"price": 9, "qty": 9, "total": 100}]
    _, verification = check(text, rows, spark)
    assert verification.ok, verification.to_text()
    lineage = Backtracker(directives.parse(text, ["price", "qty", "total"])).all()
    assert lineage["t"].sources == ["price", "qty"] and lineage["n"].sources == ["price"]


# -- random recipes over the directive catalogue -----------------------------------------------------------------------
SCHEMA_ROWS = [
    {"a": "12", "b": "Hello World", "c": "2017-03-15", "d": "x,y,z", "e": 7, "f": ["p", "q"]},
    {"a": "13", "b": "second Row", "c": "2018-11-02", "d": "u,v", "e": 8, "f": ["r"]},
    {"a": None, "b": "", "c": "2019-01-31", "d": "w", "e": None, "f": []},
]
#: Directives whose examples need things a random recipe cannot have (outside systems, binary input) or that
#: stop the run by design.
_NOT_RANDOM = {"fail", "invoke-http", "catalog-lookup", "table-lookup", "parse-as-avro", "parse-as-avro-file",
               "parse-as-protobuf", "parse-as-excel", "decrypt", "encrypt", "write-as-csv", "set-charset"}
_COLUMN_TOKEN = re.compile(r":([A-Za-z_][A-Za-z0-9_]*)")


def _catalogue_examples() -> list[str]:
    examples = []
    for name, directive in sorted(directives.REGISTRY.items()):
        doc = directive.__doc__ or ""
        match = re.search(r"Example: `([^`]+)`", doc)
        if match and name not in _NOT_RANDOM and not directive.deprecated:
            examples.append(match.group(1))
    return examples


EXAMPLES = _catalogue_examples()


@st.composite
def random_recipes(draw: st.DrawFn) -> str:
    """1-4 catalogue examples, each example's columns replaced by columns of the random input (or kept: new ones)."""
    lines = []
    columns = list(SCHEMA_ROWS[0])
    for _ in range(draw(st.integers(1, 4))):
        example = draw(st.sampled_from(EXAMPLES))
        line = _COLUMN_TOKEN.sub(lambda m: ":" + (draw(st.sampled_from(columns)) if draw(st.booleans())
                                                  else m.group(1)), example)
        lines.append(line)
    return "\n".join(lines)


RANDOM_RUNS: list[str] = []


@settings(max_examples=30, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(text=random_recipes())
def test_random_catalogue_recipes_have_no_unsound_edge(spark: Any, text: str) -> None:
    try:
        recipe = directives.parse(text, list(SCHEMA_ROWS[0]))
    except directives.RecipeError:
        return  # arguments an example's shape does not fit (a column list where one column is drawn)
    try:
        _, verification = verify_sample(recipe, SCHEMA_ROWS, None, spark)
    except Exception:  # the recipe does not run on this input (a column it needs is gone): nothing to verify
        return
    RANDOM_RUNS.append(text)
    assert verification.ok, f"{text}\n{verification.to_text()}"
    # bounded: the property ran on enough recipes that really ran to mean something
    assert len(RANDOM_RUNS) < 15 or len(set(RANDOM_RUNS)) >= 10


#: Expression directives whose expressions name the random input's columns (the catalogue examples name columns
#: the input does not have, so their expressions never run): values, filters, error routing, transient variables.
EXPRESSION_LINES = (
    "set-column :{new} exp:{{ {num} * 2 + 1 }}",
    "set-column :{any} exp:{{ {any} == null ? 'none' : {any} }}",
    "set-variable v exp:{{ {any} }}\nset-column :{new} exp:{{ v }}",
    "increment-variable k 1 exp:{{ {num} > 7 }}\nset-column :{new} exp:{{ k }}",
    "filter-row exp:{{ {num} > 7 }} true",
    "send-to-error exp:{{ {text} == 'second Row' }}",
    "set-column :{new} exp:{{ string:upperCase({text}) + {num} }}",
    "set-variable w exp:{{ {num} + 1 }}\nfilter-row exp:{{ w > 9 }} true",
)


@st.composite
def random_expression_recipes(draw: st.DrawFn) -> str:
    """1-4 expression lines over the random input's columns, new columns named n1, n2, ..."""
    lines = []
    for number in range(1, draw(st.integers(1, 4)) + 1):
        template = draw(st.sampled_from(EXPRESSION_LINES))
        lines.append(template.format(new=f"n{number}", num=draw(st.sampled_from(["e", "a"])),
                                     text=draw(st.sampled_from(["b", "d"])), any=draw(st.sampled_from("abcde"))))
    return "\n".join(lines)


EXPRESSION_RUNS: list[str] = []


@settings(max_examples=15, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(text=random_expression_recipes())
def test_random_expression_recipes_have_no_unsound_edge(spark: Any, text: str) -> None:
    recipe = directives.parse(text, list(SCHEMA_ROWS[0]))
    _, verification = verify_sample(recipe, SCHEMA_ROWS, None, spark)
    EXPRESSION_RUNS.append(text)
    assert verification.ok, f"{text}\n{verification.to_text()}"


def test_the_random_recipes_draw_on_the_whole_catalogue() -> None:
    assert len(EXAMPLES) >= 60
    assert {"rename", "flatten", "parse-as-json", "split-to-rows", "filter-row", "swap", "set-headers"} <= {
        example.split()[0] for example in EXAMPLES}
