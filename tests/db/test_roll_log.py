"""The roll log: every recorded roll is committed before record() returns (group commit)."""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import OperationalError

from bot.db import roll_log
from bot.db.models import RollLog
from bot.db.roll_log import RollLogWriter, log_row
from bot.db.session import create_engine, create_sessionmaker, upgrade


async def _count(sessions: Any) -> int:
    async with sessions() as session:
        return int((await session.execute(select(func.count()).select_from(RollLog))).scalar_one())


async def test_concurrent_records_are_committed_in_few_batches(database_url: str) -> None:
    engine = create_engine(database_url)
    await upgrade(engine)
    sessions = create_sessionmaker(engine)
    writer = RollLogWriter(sessions, batch_max=100)
    writer.start()
    try:
        await asyncio.gather(
            *(
                writer.record(user_id=i % 7, kind="roll", expression="1d100", total=i, result={"total": i})
                for i in range(1000)
            )
        )
        # Every record() has returned: every row is already committed, before close().
        assert await _count(sessions) == 1000
        assert writer.commits < 1000  # grouped, not one commit per roll
        async with sessions() as session:
            totals = set((await session.scalars(select(RollLog.total))).all())
        assert totals == set(range(1000))
    finally:
        await writer.close()
        await engine.dispose()


async def test_a_failed_write_is_reported_to_its_callers_and_the_writer_goes_on(tmp_path: Any) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/late.db")
    sessions = create_sessionmaker(engine)
    writer = RollLogWriter(sessions)
    writer.start()
    try:
        with pytest.raises(OperationalError, match="roll_log"):
            await writer.record(user_id=1, kind="roll", expression="1d6", total=1, result={})
        await upgrade(engine)
        await writer.record(user_id=1, kind="roll", expression="1d6", total=2, result={})
        assert await _count(sessions) == 1
    finally:
        await writer.close()
        await engine.dispose()


async def test_without_a_running_writer_records_are_written_at_once(tmp_path: Any) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/direct.db")
    await upgrade(engine)
    sessions = create_sessionmaker(engine)
    try:
        writer = RollLogWriter(sessions)
        await writer.record(user_id=1, kind="test", expression="CC 45", result={"roll": 12})
        assert await _count(sessions) == 1
    finally:
        await engine.dispose()


async def test_the_rows_of_one_interaction_are_committed_together(tmp_path: Any) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/group.db")
    await upgrade(engine)
    sessions = create_sessionmaker(engine)
    writer = RollLogWriter(sessions, batch_max=3)
    writer.start()
    try:
        extended = [log_row(user_id=1, kind="extended", expression=f"#{n}", result={}) for n in range(5)]
        singles = [writer.record(user_id=2, kind="roll", expression="1d6", result={}) for _ in range(4)]
        await asyncio.gather(writer.record_rows(extended), *singles)
        assert await _count(sessions) == 9
        async with sessions() as session:
            ids = (await session.scalars(select(RollLog.id).where(RollLog.kind == "extended"))).all()
        assert len(ids) == 5 and max(ids) - min(ids) == 4  # five rows over batch_max, one commit
        assert writer.commits == 3  # [5 rows], [3 singles], [1 single]
    finally:
        await writer.close()
        await engine.dispose()


def _wal_frames(path: Any) -> int:
    """Frames in the WAL since its last restart (a passive checkpoint reports them)."""
    with sqlite3.connect(path) as connection:
        return int(connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1])


async def test_the_wal_is_checkpointed_beside_the_writer(tmp_path: Any, monkeypatch: Any) -> None:
    """The writer's commits never checkpoint (SQLite's autocheckpoint, every 1000 frames, made one
    commit in a few hundred take 5-20 ms); its checkpointing thread lets the WAL restart."""
    path = tmp_path / "wal.db"
    engine = create_engine(f"sqlite+aiosqlite:///{path}")
    await upgrade(engine)
    sessions = create_sessionmaker(engine)
    monkeypatch.setattr(roll_log, "CHECKPOINT_SECONDS", 3600.0)
    writer = RollLogWriter(sessions)
    writer.start()
    try:
        for n in range(600):  # one commit after the other, each of a few frames
            await writer.record(user_id=n, kind="roll", expression="1d100", result={"pad": "x" * 3000})
        await writer.close()
        assert _wal_frames(path) > 1000  # no autocheckpoint restarted it

        monkeypatch.setattr(roll_log, "CHECKPOINT_SECONDS", 0.01)
        writer = RollLogWriter(sessions)
        writer.start()
        for _ in range(200):
            if writer.checkpoints:
                break
            await asyncio.sleep(0.01)
        assert writer.checkpoints > 0
        await writer.record(user_id=0, kind="roll", expression="1d6", result={})
        assert _wal_frames(path) < 50  # backfilled by the checkpointer: the next commit restarted it
        assert await _count(sessions) == 601
    finally:
        await writer.close()
        await engine.dispose()
