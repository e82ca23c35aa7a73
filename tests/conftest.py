"""Shared fixtures: a real database per test — a SQLite file, and PostgreSQL when available."""

from __future__ import annotations

import os
import random
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from bot.config import Settings
from bot.context import AppContext
from bot.data_loading import Table
from bot.db.roll_log import RollLogWriter
from bot.db.session import create_engine, create_sessionmaker, upgrade
from bot.i18n import default_catalog

POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL")


def _postgres_param() -> object:
    return pytest.param(
        "postgresql",
        marks=[
            pytest.mark.postgres,
            pytest.mark.skipif(
                not POSTGRES_URL, reason="TEST_POSTGRES_URL not set (scripts/test.sh starts one)"
            ),
        ],
    )


@pytest.fixture(params=["sqlite", _postgres_param()])
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A fresh, empty database: a SQLite file, or a new PostgreSQL database dropped afterwards."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'melee.db'}"
        return
    assert POSTGRES_URL
    name = "melee_test_" + uuid.uuid4().hex[:12]
    admin = create_engine(POSTGRES_URL)
    async with admin.connect() as conn:
        conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
        await conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        async with admin.connect() as conn:
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        await admin.dispose()


@pytest.fixture
def app_rng() -> random.Random:
    """The bot's random source in :func:`app_context`; a module overrides it (another seed, no dice)."""
    return random.Random(1)


@pytest.fixture
def app_tables() -> dict[str, Table]:
    """The data tables in :func:`app_context`; a module overrides it with the tables it needs."""
    return {}


@pytest.fixture
async def app_context(
    database_url: str, app_rng: random.Random, app_tables: dict[str, Table]
) -> AsyncIterator[AppContext]:
    """What the services get, on a fresh migrated database (each of :func:`database_url`'s)."""
    engine = create_engine(database_url)
    await upgrade(engine)
    sessions = create_sessionmaker(engine)
    writer = RollLogWriter(sessions)
    try:
        yield AppContext(
            settings=Settings(discord_token=None, database_url=database_url),
            sessions=sessions,
            catalog=default_catalog(),
            rng=app_rng,
            roll_log=writer,
            tables=app_tables,
        )
    finally:
        await writer.close()
        await engine.dispose()
