#!/usr/bin/env bash
# Start a throw-away PostgreSQL server on 127.0.0.1 for the tests that need one.
# Usage: eval "$(bash scripts/postgres.sh start)"   → exports TEST_POSTGRES_URL and PG_TEST_DIR
#        bash scripts/postgres.sh stop "$PG_TEST_DIR"
set -euo pipefail

find_bin() {
  local dir
  for dir in /usr/lib/postgresql/*/bin; do
    [ -x "$dir/initdb" ] && { echo "$dir"; return 0; }
  done
  return 1
}

case "${1:-start}" in
  start)
    if ! BIN=$(find_bin); then
      if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "installing PostgreSQL from Debian's packages…" >&2
        apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
        BIN=$(find_bin)
      else
        echo "PostgreSQL is not installed and cannot be installed here (need root + apt-get)" >&2
        exit 1
      fi
    fi
    # A free port, so a developer's own server (or another run) is never in the way.
    PORT="${PG_TEST_PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}"
    DIR=$(mktemp -d /tmp/melee-pg.XXXXXX)
    RUN_AS=()
    if [ "$(id -u)" = 0 ]; then
      # initdb and postgres refuse to run as root.
      id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
      chown postgres "$DIR"
      RUN_AS=(runuser -u postgres --)
    fi
    "${RUN_AS[@]}" "$BIN/initdb" -D "$DIR/data" -U postgres --auth=trust -E UTF8 >/dev/null
    "${RUN_AS[@]}" "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $PORT -k $DIR -c fsync=off -c max_connections=200" start >/dev/null
    echo "export PG_TEST_DIR=$DIR"
    echo "export TEST_POSTGRES_URL=postgresql+asyncpg://postgres@127.0.0.1:$PORT/postgres"
    ;;
  stop)
    DIR="${2:?the directory printed by start}"
    BIN=$(find_bin)
    RUN_AS=()
    [ "$(id -u)" = 0 ] && RUN_AS=(runuser -u postgres --)
    "${RUN_AS[@]}" "$BIN/pg_ctl" -D "$DIR/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$DIR"
    ;;
esac
