"""What the running stages have read so far, from Spark's status store (`SparkContext.statusStore().activeStages()`).

The store is private to Spark; `wrangler run`'s progress line reads it through here, and a Spark that moves it
only loses the progress line (`active_stages` returns None), never a run.
"""

from __future__ import annotations

from pyspark.sql import SparkSession


def active_stages(spark: SparkSession) -> list[tuple[int, int, int, int]] | None:
    """(input records, input bytes, tasks done, tasks) of each running stage; None when the store is out of reach."""
    try:
        stages = spark.sparkContext._jsc.sc().statusStore().activeStages()  # type: ignore[union-attr]
        found = []
        for index in range(stages.size()):
            stage = stages.apply(index)
            found.append((int(stage.inputRecords()), int(stage.inputBytes()), int(stage.numCompleteTasks()),
                          int(stage.numTasks())))
        return found
    except Exception:  # a stopped context, or a Spark whose store changed shape: progress is best effort
        return None
