"""Empty DataFrames made on the JVM side, for analysing expressions over a schema without a plan under it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql.types import DataType, StructField, StructType


def empty_like(df: DataFrame, *more: DataFrame, fields: Sequence[tuple[str, DataType]] = ()) -> DataFrame:
    """An empty DataFrame with ``df``'s schema (a `LocalRelation` of no rows), in three py4j round trips; with
    ``more``, their columns follow ``df``'s, then ``fields`` (nullable), two round trips each (a stand-in with
    columns added to it, no plan over it).

    PySpark's `createDataFrame([], schema)` turns the schema into JSON and back and goes through an RDD of no
    rows, which cost about 20 ms each on a small machine, once for every new base a long recipe probes types
    over. Here the JVM's own schema of ``df`` is handed to `SparkSession.createDataFrame(java.util.List,
    StructType)`. Without those internals (Spark Connect, a renamed attribute): PySpark's way, same schema."""
    spark = df.sparkSession
    extra = list(fields)
    jdf: Any = getattr(df, "_jdf", None)
    jsession: Any = getattr(spark, "_jsparkSession", None)
    jvm: Any = getattr(spark, "_jvm", None)
    if jdf is not None and jsession is not None and jvm is not None:
        try:
            schema = jdf.schema()
            for other in more:
                for field in other._jdf.schema().fields():
                    schema = schema.add(field)
            for name, data_type in extra:
                schema = schema.add(name, jvm.org.apache.spark.sql.types.DataType.fromJson(data_type.json()), True)
            return type(df)(jsession.createDataFrame(jvm.java.util.ArrayList(), schema), spark)
        except Exception:  # an internal changed shape: the public way below gives the same empty DataFrame
            pass
    added = [f for other in more for f in other.schema.fields] + [StructField(n, t, True) for n, t in extra]
    return spark.createDataFrame([], StructType(df.schema.fields + added))
