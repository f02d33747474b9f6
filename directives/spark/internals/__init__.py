"""What leans on Spark and PySpark internals (placeholder, filled in the next commit)."""
