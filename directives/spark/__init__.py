"""Running recipes on Spark: its modules import pyspark; nothing in `grammar`, `lineage` or `server` does."""
