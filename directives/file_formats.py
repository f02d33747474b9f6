"""The file formats a run reads and writes, apart from the Spark code that does it.

The command line offers these as choices and checks them before a JVM starts, so they live in a module
that imports nothing heavy.
"""

#: `text` reads one row per line into column `body`, as Wrangler does.
INPUT_FORMATS = ("csv", "json", "parquet", "text")
#: No `text` out: a row is rarely one string after a recipe.
OUTPUT_FORMATS = ("csv", "json", "parquet")
