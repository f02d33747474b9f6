"""`catalog-lookup` and `table-lookup` as Spark joins: the looked-up side is small, so it is broadcast.

A left join against a broadcast table keeps every row (and its partition) as it was, and the looked-up
values are then placed by one ordinary step, so errors and filters behave as in any other directive.
"""

from __future__ import annotations

import gzip
from functools import lru_cache
from importlib import resources

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from directives.catalog.external import CatalogLookup, TableLookup
from directives.spark.compile.common import java_type
from directives.spark.compilers import compiles
from directives.spark.runtime.frame import Frame, RunContext, col
from directives.spark.runtime.resources import ResourceNotFound, find_resource
from grammar.errors import RecipeError

#: Wrangler's catalogue names → the list shipped in `directives/data/`. Wrangler ships the FY2016 and FY2017
#: ICD-10-CM lists; both names read the one current release we ship (docs/differences/external.md).
CATALOG_FILES = {"icd-9": "icd-9-cm.tsv.gz", "icd-10-2016": "icd-10-cm.tsv.gz", "icd-10-2017": "icd-10-cm.tsv.gz"}
_CODE, _DESCRIPTION = "__wr_lookup_code", "__wr_lookup_description"


class LookupCompileError(RecipeError):
    """The lookup's table cannot be found or has no key column."""

    rule = "lookup"


@lru_cache(maxsize=4)
def catalog_entries(file_name: str) -> tuple[tuple[str, str], ...]:
    """The `(code, description)` pairs of a shipped list, read once per process."""
    data = (resources.files("directives") / "data" / file_name).read_bytes()
    lines = gzip.decompress(data).decode("utf-8").splitlines()
    return tuple((code, description) for code, _, description in (line.partition("\t") for line in lines))


#: Catalogue DataFrames already made, by list file, with the session they belong to (one per session is enough).
_CATALOG_FRAMES: dict[str, tuple[SparkSession, DataFrame]] = {}


def catalog_frame(spark: SparkSession, file_name: str) -> DataFrame:
    """The list as a two-column DataFrame (code, description), made once per session and list."""
    cached = _CATALOG_FRAMES.get(file_name)
    if cached is not None and cached[0] is spark:
        return cached[1]
    schema = T.StructType([T.StructField(_CODE, T.StringType(), False), T.StructField(_DESCRIPTION, T.StringType())])
    frame = spark.createDataFrame(catalog_entries(file_name), schema)
    _CATALOG_FRAMES[file_name] = (spark, frame)
    return frame


def _session(ctx: RunContext) -> SparkSession:
    spark = ctx.spark if isinstance(ctx.spark, SparkSession) else SparkSession.getActiveSession()
    assert spark is not None
    return spark


@compiles(CatalogLookup)
def catalog_lookup(d: CatalogLookup, frame: Frame, ctx: RunContext) -> Frame:
    """Wrangler looks the text value up as it is (no trimming, case kept); anything else gives a null description."""
    target = d.target
    name = frame.find(d.column)
    if name is None or frame.type_of(name) != "string":
        return frame.step(d).add(target, F.lit(None).cast("string")).build()
    catalog = catalog_frame(_session(ctx), CATALOG_FILES[str(d.catalog).lower()])
    joined = frame.df.join(F.broadcast(catalog), col(name) == F.col(_CODE), "left")
    return frame.with_df(joined).step(d).add(target, F.col(_DESCRIPTION)).build()


def lookup_table(d: TableLookup, spark: SparkSession) -> DataFrame:
    """The table the directive names: a table or view of the session's catalogue, else a CSV (with header),
    JSON-lines or Parquet file found as `directives.spark.runtime.resources` describes."""
    name = str(d.table)
    try:
        if spark.catalog.tableExists(name):
            return spark.table(name)
    except Exception:  # a name Spark cannot even parse as a table identifier (a path, say): look for a file
        pass
    try:
        path = find_resource(name, [name, f"{name}.csv", f"{name}.json", f"{name}.jsonl", f"{name}.parquet"])
    except ResourceNotFound as error:
        span = d.call.span
        raise LookupCompileError(f"Lookup table '{name}' is neither a table or view of the Spark session nor a "
                                 f"file: {error}.", line=span.line, column=span.column, directive=d.name,
                                 hint="Register a view (df.createOrReplaceTempView) or put NAME.csv, NAME.json "
                                      "or NAME.parquet in a resource directory.") from None
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return spark.read.parquet(str(path))
    if suffix in (".json", ".jsonl"):
        return spark.read.json(str(path))
    return spark.read.option("header", "true").csv(str(path))


@compiles(TableLookup)
def table_lookup(d: TableLookup, frame: Frame, ctx: RunContext) -> Frame:
    """The table's first column is the key (a CDAP table's row key); each other column `f` becomes
    `<column>_f`, as text (Wrangler reads every table cell as a string). A key the table lacks gives nulls."""
    name = frame.find(d.column)
    if name is None:
        return frame  # Wrangler skips rows without the column
    table = lookup_table(d, _session(ctx))
    if not table.columns:
        span = d.call.span
        raise LookupCompileError(f"Lookup table '{d.table}' has no columns.", line=span.line,
                                 column=span.column, directive=d.name)
    key, *fields = table.columns
    hidden = {field: f"__wr_lookup_{i}" for i, field in enumerate(fields)}
    right = (table.select(F.col(f"`{key}`").cast("string").alias(_CODE),
                          *(F.col(f"`{field}`").cast("string").alias(hidden[field]) for field in fields))
             .where(F.col(_CODE).isNotNull()).dropDuplicates([_CODE]))
    kind = frame.type_of(name)
    step = frame.with_df(frame.df.join(F.broadcast(right), col(name) == F.col(_CODE), "left")).step(d)
    for field in fields:
        step.add(f"{d.column}_{field}", F.col(hidden[field]))
    step.fail_when(col(name).isNull(), f"Column '{d.column}' has null value. It should be a non-null 'String'.")
    if kind != "string":
        step.fail_when(F.lit(True), f"Column '{d.column}' is of invalid type '{java_type(frame, name)}'. It should "
                                    "be of type 'String'.")
    return step.build()
