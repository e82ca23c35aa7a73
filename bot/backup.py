"""Online backup of the SQLite database (safe while the bot writes to it)."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

from sqlalchemy.engine import make_url


def backup_sqlite(database_url: str, destination: str) -> int:
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        print("backup works on a SQLite file; for PostgreSQL use pg_dump", file=sys.stderr)
        return 1
    source_path = Path(url.database)
    if not source_path.is_file():
        print(f"no database at {source_path}", file=sys.stderr)
        return 1
    target = Path(destination)
    target.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(source_path) as source, sqlite3.connect(target) as copy:
        source.backup(copy)  # SQLite's online backup API: a consistent snapshot
    print(f"backup written to {target}")
    return 0
