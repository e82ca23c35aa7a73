"""Several bot processes starting at once on one PostgreSQL database all migrate without error."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import text

from bot.db.session import create_engine, is_sqlite, upgrade


async def test_concurrent_upgrades_on_one_postgres_database(database_url: str) -> None:
    if is_sqlite(database_url):
        pytest.skip("several processes share one database only on PostgreSQL")
    engines = [create_engine(database_url) for _ in range(4)]
    try:
        # Without the advisory lock, the migrations block each other or fail on existing tables.
        await asyncio.wait_for(asyncio.gather(*(upgrade(engine) for engine in engines)), 60)
        async with engines[0].connect() as conn:
            versions = (await conn.execute(text("SELECT version_num FROM alembic_version"))).scalars().all()
        assert len(versions) == 1
    finally:
        for engine in engines:
            await engine.dispose()
