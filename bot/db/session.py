"""The engine, sessions and schema migrations."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import event, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.pool import StaticPool

if TYPE_CHECKING:
    from alembic.config import Config

ROOT = Path(__file__).resolve().parent.parent.parent
ALEMBIC_INI = ROOT / "alembic.ini"
MIGRATIONS_DIR = ROOT / "migrations"
# Any fixed 64-bit number names the PostgreSQL advisory lock held while migrating ("MELEE").
MIGRATION_LOCK_KEY = 0x4D454C4545


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def is_memory_sqlite(url: str) -> bool:
    parsed = make_url(url)
    return parsed.get_backend_name() == "sqlite" and parsed.database in (None, "", ":memory:")


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL lets readers run beside the writer; NORMAL is durable enough with WAL and much faster.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=2000")  # under the 3 s Discord gives a first answer
    cursor.close()


def create_engine(url: str) -> AsyncEngine:
    kwargs: dict[str, Any] = {}
    if is_sqlite(url):
        database = make_url(url).database
        if database and not is_memory_sqlite(url):
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        if is_memory_sqlite(url):
            # One shared connection, or every session would see its own empty database.
            kwargs.update(poolclass=StaticPool, connect_args={"check_same_thread": False})
    engine = create_async_engine(url, **kwargs)
    if is_sqlite(url):
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
    return engine


def create_sessionmaker(engine: AsyncEngine, *, delay: float = 0.0) -> async_sessionmaker[AsyncSession]:
    """``delay`` (tests: ``MELEE_DB_DELAY``) makes every transaction wait that many seconds
    first, as a distant database would (a few round trips before the first query answers)."""
    sessions = async_sessionmaker(engine, expire_on_commit=False)
    if delay > 0:
        begin = sessions.begin

        @contextlib.asynccontextmanager
        async def slow_begin() -> AsyncIterator[AsyncSession]:
            await asyncio.sleep(delay)
            async with begin() as session:
                yield session

        sessions.begin = slow_begin  # type: ignore[method-assign,assignment]
    return sessions


def alembic_config(url: str | None = None) -> Config:
    from alembic.config import Config  # Alembic is imported only when a migration has to run

    config = Config(str(ALEMBIC_INI))
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if url is not None:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def _upgrade(connection: Connection, revision: str) -> None:
    from alembic import command

    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, revision)


def _downgrade(connection: Connection, revision: str) -> None:
    from alembic import command

    config = alembic_config()
    config.attributes["connection"] = connection
    command.downgrade(config, revision)


_REVISION = re.compile(r"^revision: str = ['\"]([^'\"]+)['\"]", re.M)
_DOWN_REVISION = re.compile(r"^down_revision: str \| None = ['\"]([^'\"]+)['\"]", re.M)


def head_revisions() -> set[str]:
    """The heads of migrations/versions, read from the files (no Alembic import at start-up)."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in (MIGRATIONS_DIR / "versions").glob("*.py"):
        source = path.read_text(encoding="utf-8")
        revisions.update(_REVISION.findall(source))
        parents.update(_DOWN_REVISION.findall(source))
    return revisions - parents


async def is_up_to_date(engine: AsyncEngine) -> bool:
    async with engine.connect() as connection:
        try:
            rows = await connection.execute(text("SELECT version_num FROM alembic_version"))
        except Exception:  # no version table yet: a new database
            return False
        return {row[0] for row in rows} == head_revisions()


async def upgrade(engine: AsyncEngine, revision: str = "heads") -> None:
    """Run Alembic migrations on ``engine`` (used at start-up, in the container and in tests).

    On PostgreSQL, several bot processes may start at once: a transaction-level advisory lock
    makes them migrate one after the other (the later ones find the schema already at head).
    """
    async with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            await connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
        await connection.run_sync(_upgrade, revision)


async def downgrade(engine: AsyncEngine, revision: str = "base") -> None:
    async with engine.begin() as connection:
        await connection.run_sync(_downgrade, revision)
