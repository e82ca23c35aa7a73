#!/usr/bin/env bash
# Run the bot: a virtualenv on first use, the dependencies, then `python -m bot` (SQLite in var/ by default).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e .
fi
exec .venv/bin/python -m bot "$@"
