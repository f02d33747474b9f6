"""set-charset, catalog-lookup, stemming and the writers: branches of their Java `execute()`/`initialize()`
(io.cdap.directives.language.SetCharset, lookup.CatalogLookup, nlp.Stemming, writer.*) that run without outside
systems and that tests/spark/test_external_compile.py, test_lookups.py and test_writers_compile.py do not pin.
The binary parsers, table-lookup, validate-standard, data-model-map-column and invoke-http (on a local service)
are in test_wrangler_binary_external.py."""

from __future__ import annotations

import pytest

import directives
from grammar.errors import RecipeError

pytestmark = pytest.mark.spark


def test_set_charset_skips_nulls_and_missing_columns(spark: object) -> None:
    """SetCharset: `idx == -1` and a null value → continue."""
    result = directives.run_rows("set-charset :b 'utf-8'", [{"b": None}, {"b": "é".encode()}], spark=spark)
    assert result.rows == [{"b": None}, {"b": "é"}]
    assert directives.run_rows("set-charset :nope 'utf-8'", [{"b": "x"}], spark=spark).rows == [{"b": "x"}]


def test_catalog_lookup_non_text_and_missing_give_a_null_description(spark: object) -> None:
    """CatalogLookup: a value that is not a String, and a missing column, add a null `<col>_icd_9_description`."""
    numbers = directives.run_rows("catalog-lookup 'ICD-9' :c", [{"c": 4019}], spark=spark)
    assert numbers.rows == [{"c": 4019, "c_icd_9_description": None}]
    missing = directives.run_rows("catalog-lookup 'ICD-10-2016' :nope", [{"c": "x"}], spark=spark)
    assert missing.rows == [{"c": "x", "nope_icd_10_2016_description": None}]


def test_catalog_lookup_unknown_catalog_is_a_parse_error() -> None:
    """CatalogLookup.initialize: neither ICD-9, ICD-10-2016 nor ICD-10-2017 → DirectiveParseException."""
    with pytest.raises(RecipeError, match="ICD-11"):
        directives.parse("catalog-lookup 'ICD-11' :c")


def test_stemming_splits_text_on_non_word_characters(spark: object) -> None:
    """Stemming: a String is split on `\\W+` before stemming; a list is stemmed word by word."""
    result = directives.run_rows("stemming :s", [{"s": "running, dogs!"}], spark=spark)
    assert result.rows[0]["s_porter"] == ["run", "dog"]


def test_write_as_csv_prints_values_with_to_string(spark: object) -> None:
    """WriteAsCSV: CSVPrinter.print(value) of each column in order: Boolean/Double/Long as Java prints them."""
    result = directives.run_rows("write-as-csv :o", [{"a": True, "b": 2.5, "c": 10, "d": None}], spark=spark)
    assert result.rows[0]["o"] == "true,2.5,10,"
