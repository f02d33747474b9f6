#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what is missing, then runs pytest
# (real local Spark, real redis-server processes started by the fixtures, a real Chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh --tests
export PYSPARK_PYTHON="$PWD/.venv/bin/python"
exec .venv/bin/python -m pytest -q "$@"
