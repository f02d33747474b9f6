#!/usr/bin/env bash
# Installs what a fresh Debian/Ubuntu machine lacks to run wrangler-lineage and its tests:
# Java 17 (Spark), redis-server (API cache and tests), a Python virtual environment with the
# project and its test dependencies; with --tests also what only the test suite needs (Chromium and
# ChromeDriver for the web view, graphviz for dot output, PostgreSQL for the store tests; scripts/test.sh asks
# for them).
# Safe to run again: every step checks before it acts.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[bootstrap] %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo "$@"; else
    log "need root to run: $*"; return 1; fi
}

apt_updated=0
apt_install() {
  if ! command -v apt-get >/dev/null 2>&1; then
    log "apt-get not found: please install $* yourself"; return 1
  fi
  if [ "$apt_updated" -eq 0 ]; then as_root apt-get update -qq >&2; apt_updated=1; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}

java_major() {
  command -v java >/dev/null 2>&1 || { echo 0; return; }
  java -version 2>&1 | awk -F'"' '/version/ {split($2, v, "."); print (v[1] == "1" ? v[2] : v[1]); exit}'
}

if [ "$(java_major)" -lt 17 ]; then
  log "installing Java 17 (openjdk-17-jre-headless)"
  apt_install openjdk-17-jre-headless || apt_install default-jre-headless
fi

if ! command -v redis-server >/dev/null 2>&1; then
  log "installing redis-server"
  apt_install redis-server
fi

if ! command -v wrk >/dev/null 2>&1; then
  log "installing wrk (the load generator of bench_api and bench_hostile)"
  apt_install wrk || log "wrk not installed: the API benchmarks fall back to a slower Python load generator"
fi

if [ "${1:-}" = "--tests" ] && ! { command -v chromedriver >/dev/null 2>&1 &&
    { command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; }; }; then
  log "installing Chromium and ChromeDriver (browser tests of the web view)"
  apt_install chromium chromium-driver
fi

if [ "${1:-}" = "--tests" ] && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  # the store tests start a private cluster with initdb/pg_ctl in a temporary directory (tests/postgres.py);
  # the package's own server may stay stopped
  log "installing PostgreSQL (the store and API tests run on a private cluster as well as on SQLite)"
  apt_install postgresql
fi

if [ "${1:-}" = "--tests" ] && ! command -v dot >/dev/null 2>&1; then
  log "installing graphviz (the tests render wrangler lineage --format dot with it)"
  apt_install graphviz
fi

PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  log "Python 3.11 or newer is required (found $("$PYTHON" --version 2>&1))"; exit 1
fi

if [ ! -x .venv/bin/python ]; then
  log "creating virtual environment .venv"
  if ! "$PYTHON" -m venv .venv >/dev/null 2>&1; then
    rm -rf .venv
    apt_install python3-venv
    "$PYTHON" -m venv .venv
  fi
fi

stamp=.venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)
if [ ! -f "$stamp" ]; then
  log "installing Python dependencies into .venv (first run downloads pyspark, ~1-3 minutes)"
  .venv/bin/python -m pip install -q --upgrade pip setuptools wheel >&2
  .venv/bin/python -m pip install -q -e ".[test]" >&2
  rm -f .venv/.installed-*
  touch "$stamp"
fi
