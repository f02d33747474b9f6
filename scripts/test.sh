#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what is missing, then runs pytest
# (real local Spark, real redis-server processes started by the fixtures, a real Chromium).
#
# Tests run in WRANGLER_TEST_WORKERS pytest-xdist workers (default: the machine's cores, at most 4), each a test
# session of its own with its own local[1] SparkSession, Redis and PostgreSQL; a module's tests stay in one
# worker (--dist loadfile), so a module's servers (the standalone Spark cluster, say) start once.
# WRANGLER_TEST_WORKERS=0 runs everything in this one process.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh --tests
export PYSPARK_PYTHON="$PWD/.venv/bin/python"
cores=$(nproc 2>/dev/null || echo 2)
workers=${WRANGLER_TEST_WORKERS:-$(( cores < 4 ? cores : 4 ))}
if [ "$workers" -gt 1 ]; then
  exec .venv/bin/python -m pytest -q -n "$workers" --dist loadfile "$@"
fi
exec .venv/bin/python -m pytest -q "$@"
