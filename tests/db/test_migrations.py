"""Alembic on real SQLite and PostgreSQL: upgrade, downgrade, and no drift from the models."""

from __future__ import annotations

from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from bot.db.models import Base
from bot.db.session import create_engine, downgrade, upgrade


def _diff(connection: Connection) -> list[Any]:
    context = MigrationContext.configure(connection, opts={"compare_type": True, "render_as_batch": True})
    return list(compare_metadata(context, Base.metadata))


def _tables(connection: Connection) -> set[str]:
    return set(inspect(connection).get_table_names())


async def test_upgrade_head_matches_the_models(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        await upgrade(engine)
        async with engine.connect() as conn:
            diff = await conn.run_sync(_diff)
            tables = await conn.run_sync(_tables)
        assert diff == [], f"models and migrations drifted: {diff}"
        assert set(Base.metadata.tables) <= tables
    finally:
        await engine.dispose()


async def test_downgrade_base_removes_everything_and_upgrade_again(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        await upgrade(engine)
        await downgrade(engine, "base")
        async with engine.connect() as conn:
            tables = await conn.run_sync(_tables)
        assert tables - {"alembic_version"} == set()
        await upgrade(engine)
        async with engine.connect() as conn:
            version = (await conn.execute(text("SELECT version_num FROM alembic_version"))).scalar_one()
        assert version
    finally:
        await engine.dispose()


async def test_sqlite_runs_in_wal_mode(tmp_path: Any) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'wal.db'}")
    try:
        async with engine.connect() as conn:
            mode = (await conn.execute(text("PRAGMA journal_mode"))).scalar_one()
            fk = (await conn.execute(text("PRAGMA foreign_keys"))).scalar_one()
        assert mode == "wal"
        assert fk == 1
    finally:
        await engine.dispose()


def test_heads_read_from_the_files_match_alembic() -> None:
    from alembic.script import ScriptDirectory

    from bot.db.session import alembic_config, head_revisions

    assert head_revisions() == set(ScriptDirectory.from_config(alembic_config()).get_heads())


async def test_up_to_date_only_after_the_upgrade(database_url: str) -> None:
    from bot.db.session import is_up_to_date

    engine = create_engine(database_url)
    try:
        assert not await is_up_to_date(engine)
        await upgrade(engine)
        assert await is_up_to_date(engine)
    finally:
        await engine.dispose()
