#!/usr/bin/env bash
# The whole test suite on a fresh machine: virtualenv, dependencies, PostgreSQL, pytest.
# Extra arguments go to pytest (e.g. bash scripts/test.sh -k dice, --random-order-seed=1234).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[dev]"

PG_STARTED=""
if [ -z "${TEST_POSTGRES_URL:-}" ]; then
  if PG_ENV=$(bash scripts/postgres.sh start); then
    eval "$PG_ENV"
    PG_STARTED="$PG_TEST_DIR"
  elif [ "${CI:-}" = "true" ]; then
    echo "CI needs PostgreSQL and it could not be started" >&2
    exit 1
  else
    echo "PostgreSQL unavailable: the PostgreSQL tests will be skipped" >&2
  fi
fi
cleanup() { [ -n "$PG_STARTED" ] && bash scripts/postgres.sh stop "$PG_STARTED"; return 0; }
trap cleanup EXIT

# In an order drawn afresh each run (tests/conftest.py; the seed is printed at the end, replay it with
# --random-order-seed=N), so a test that leans on another's leftovers fails here, not by chance later.
.venv/bin/python -m pytest -q -p no:cacheprovider --random-order "$@"
