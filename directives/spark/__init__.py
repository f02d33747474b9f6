"""Running recipes on Spark. Importing this package imports pyspark; nothing above `directives` does."""
