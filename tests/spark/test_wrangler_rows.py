"""Row directives, the branches of their Java `execute()`/`initialize()` (io.cdap.directives.row.*) that
tests/spark/test_rows_compile.py does not already pin."""

from __future__ import annotations

import pytest

import directives
from grammar.errors import RecipeError

pytestmark = pytest.mark.spark


def test_filter_by_regex_names_the_java_class_of_a_wrong_type(spark: object) -> None:
    """RecordRegexFilter: a value neither String, JSONObject nor Number → 'is of invalid type' with its class."""
    result = directives.run_rows("filter-by-regex if-matched :b 'true'", [{"b": True}], spark=spark)
    assert [e["message"] for e in result.errors] == \
        ["Column 'b' is of invalid type 'Boolean'. It should be of type 'String', 'JSONObject' or 'Number'."]


def test_filter_by_regex_bad_match_type_is_a_parse_error() -> None:
    """RecordRegexFilter.initialize: neither if-matched nor if-not-matched → DirectiveParseException."""
    with pytest.raises(RecipeError, match="is not 'if-matched' or 'if-not-matched'"):
        directives.parse("filter-by-regex matches :s 'a'")


def test_split_to_rows_wrong_type_message(spark: object) -> None:
    """SplitToRows: a non-string value → 'has invalid type' with the Java class."""
    result = directives.run_rows("split-to-rows :s ','", [{"s": 12}], spark=spark)
    assert result.rows == []
    assert [e["message"] for e in result.errors] == \
        ["Column 's' has invalid type 'Integer'. It should be of type 'String'."]


def test_set_record_delim_drops_rows_without_the_column(spark: object) -> None:
    """SetRecordDelimiter: `idx == -1` → continue, and only rows built from the column are returned."""
    result = directives.run_rows("set-record-delim :nope ','", [{"s": "a,b"}], spark=spark)
    assert result.rows == [] and result.counts.filtered_rows == 1


def test_flatten_scalar_counts_as_one_element(spark: object) -> None:
    """Flatten: a non-list value counts 1 towards the row count and repeats; a list shorter than the count gives
    null (`addOrSet(column, null)`); a listed column the row lacks is added as null."""
    rows = [{"l": [], "s": "x"}, {"l": [1, 2], "s": "y"}]
    result = directives.run_rows("flatten :l,:s,:zz", rows, spark=spark)
    assert [(r["l"], r["s"], r["zz"]) for r in result.rows] == [(None, "x", None), (1, "y", None), (2, "y", None)]
