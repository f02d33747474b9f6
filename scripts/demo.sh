#!/usr/bin/env bash
# Set up everything, then run the demo: a real recipe on real data on local Spark,
# printing the result and the lineage of every output column.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
export PYSPARK_PYTHON="$PWD/.venv/bin/python"
.venv/bin/python -m examples.demo "$@"
# Once per machine (and PySpark version): an archive of Spark's classes that later Spark starts map instead of loading
# them one by one (directives/spark/runtime/class_archive.py). WRANGLER_CLASS_ARCHIVE=off skips it.
if ! .venv/bin/python -m directives.spark.runtime.class_archive --check 2>/dev/null; then
  echo "writing an archive of Spark's classes, once (about a minute): later Spark starts are faster" >&2
  .venv/bin/python -m directives.spark.runtime.class_archive --if-missing >&2 || true
fi
