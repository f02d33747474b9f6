#!/usr/bin/env bash
# Set up everything, then run the demo: a real recipe on real data on local Spark,
# printing the result and the lineage of every output column.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
export PYSPARK_PYTHON="$PWD/.venv/bin/python"
exec .venv/bin/python -m examples.demo "$@"
