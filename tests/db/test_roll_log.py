"""The batched roll log: everything recorded is written, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select

from bot.db.models import RollLog
from bot.db.roll_log import RollLogWriter
from bot.db.session import create_engine, create_sessionmaker, upgrade


async def _count(sessions: object) -> int:
    async with sessions() as session:  # type: ignore[operator]
        return int((await session.execute(select(func.count()).select_from(RollLog))).scalar_one())


async def test_concurrent_records_are_all_written_by_close(database_url: str) -> None:
    engine = create_engine(database_url)
    await upgrade(engine)
    sessions = create_sessionmaker(engine)
    writer = RollLogWriter(sessions, batch_max=100, flush_delay=0.01)
    writer.start()
    try:
        await asyncio.gather(
            *(
                writer.record(user_id=i % 7, kind="roll", expression="1d100", total=i, result={"total": i})
                for i in range(1000)
            )
        )
        await writer.close()
        assert await _count(sessions) == 1000
        async with sessions() as session:
            totals = set((await session.scalars(select(RollLog.total))).all())
        assert totals == set(range(1000))
    finally:
        await engine.dispose()


async def test_rows_survive_a_failed_write_and_land_on_the_next_flush(tmp_path: object) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/late.db")
    sessions = create_sessionmaker(engine)
    writer = RollLogWriter(sessions, batch_max=10, flush_delay=10)
    writer.start()
    try:
        for i in range(25):
            await writer.record(user_id=1, kind="roll", expression="1d6", total=i, result={})
        with pytest.raises(Exception, match="roll_log"):
            await writer.flush()  # no table yet: the write fails
        await upgrade(engine)
        await writer.close()
        assert await _count(sessions) == 25
    finally:
        await engine.dispose()


async def test_without_a_running_writer_records_are_written_at_once(tmp_path: object) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/direct.db")
    await upgrade(engine)
    sessions = create_sessionmaker(engine)
    try:
        writer = RollLogWriter(sessions)
        await writer.record(user_id=1, kind="test", expression="CC 45", result={"roll": 12})
        assert await _count(sessions) == 1
    finally:
        await engine.dispose()
