"""`catalog-lookup` against the shipped ICD lists and `table-lookup` against a view or a file, on real Spark.

Expected values are read from CatalogLookup/TableLookup.execute in Wrangler's source and from the public
CMS/CDC code lists (the descriptions below are theirs).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from directives.spark.compile.lookups import CATALOG_FILES, LookupCompileError, catalog_entries
from directives.spark.runtime.resources import ENVIRONMENT
from directives.spark.runtime.runner import run_rows

pytestmark = pytest.mark.spark


def test_shipped_lists_hold_the_public_code_sets() -> None:
    icd9 = dict(catalog_entries(CATALOG_FILES["icd-9"]))
    icd10 = dict(catalog_entries(CATALOG_FILES["icd-10-2017"]))
    assert icd9["0010"] == "Cholera due to vibrio cholerae"  # CMS v32, the first line of Wrangler's list too
    assert len(icd9) > 14000 and len(icd10) > 70000
    assert icd10["A0100"] == "Typhoid fever, unspecified"
    assert "A010" not in icd10  # a category, not a billable code: CMS's code files leave them out


def test_catalog_lookup_as_wranglers_test(spark: SparkSession) -> None:
    """CatalogLookupTest: every row gets both columns; unknown codes and rows without the column get null."""
    rows = [{"code": "A0100"}, {"code": "A0102"}, {"code": "Z9989"}, {"code": "Y36521S"}, {"code": "ABC"},
            {"name": "Root"}]
    result = run_rows("catalog-lookup icd-10-2016 code\ncatalog-lookup ICD-10-2017 code", rows, spark=spark)
    assert result.columns == ["code", "name", "code_icd_10_2016_description", "code_icd_10_2017_description"]
    got = [row["code_icd_10_2016_description"] for row in result.rows]
    assert got == ["Typhoid fever, unspecified", "Typhoid fever with heart involvement",
                   "Dependence on other enabling machines and devices",
                   "War operations involving indirect blast effect of nuclear weapon, civilian, sequela", None, None]
    assert [r["code_icd_10_2017_description"] for r in result.rows] == got
    assert not result.errors


def test_catalog_lookup_is_exact_and_reads_icd9(spark: SparkSession) -> None:
    rows = [{"dx": "0010"}, {"dx": " 0010"}, {"dx": "001.0"}, {"dx": None}]
    result = run_rows("catalog-lookup ICD-9 :dx", rows, spark=spark)
    assert [r["dx_icd_9_description"] for r in result.rows] == ["Cholera due to vibrio cholerae", None, None, None]
    assert len(result.rows) == 4 and not result.errors


def test_table_lookup_in_a_view(spark: SparkSession) -> None:
    spark.createDataFrame([("94105", "San Francisco", "CA"), ("10001", "New York", "NY")],
                          "zip string, city string, state string").createOrReplaceTempView("zip_codes")
    rows = [{"zip": "94105", "n": 1}, {"zip": "99999", "n": 2}, {"zip": None, "n": 3}]
    result = run_rows("table-lookup :zip 'zip_codes'", rows, spark=spark)
    assert result.columns == ["zip", "n", "zip_city", "zip_state"]
    assert [(r["zip_city"], r["zip_state"]) for r in result.rows] == [("San Francisco", "CA"), (None, None)]
    assert [e["message"] for e in result.errors] == ["Column 'zip' has null value. It should be a non-null 'String'."]


def test_table_lookup_in_a_csv_file_of_the_resource_directory(spark: SparkSession, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "products.csv").write_text("sku,name,price\nA1,Widget,2.50\nB2,Gadget,10\nA1,Duplicate,0\n")
    monkeypatch.setenv(ENVIRONMENT, str(tmp_path))
    result = run_rows("table-lookup :sku products", [{"sku": "B2"}, {"sku": "A1"}], spark=spark)
    assert [(r["sku_name"], r["sku_price"]) for r in result.rows] == [("Gadget", "10"), ("Widget", "2.50")]


def test_table_lookup_names_a_missing_table(spark: SparkSession, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENVIRONMENT, str(tmp_path))
    with pytest.raises(LookupCompileError, match="'nowhere' is neither a table") as caught:
        run_rows("table-lookup :k nowhere", [{"k": "x"}], spark=spark)
    assert str(tmp_path / "nowhere.csv") in caught.value.message
