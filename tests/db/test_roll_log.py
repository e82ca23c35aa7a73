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


async def test_a_locked_database_is_logged_in_one_line_and_the_caller_told(
    tmp_path: Any, caplog: Any
) -> None:
    """Another process holds SQLite's write lock past the busy timeout (#23 item 12): the writer logs
    one line with the cause — no traceback — and the caller's record() raises (his interaction
    answers « try again »); once the lock is gone the next roll lands."""
    path = tmp_path / "locked.db"
    engine = create_engine(f"sqlite+aiosqlite:///{path}")
    await upgrade(engine)
    sessions = create_sessionmaker(engine)
    writer = RollLogWriter(sessions)
    writer.start()
    holder = sqlite3.connect(str(path), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # the other process's write lock
    try:
        with (
            caplog.at_level("WARNING", logger="bot.db.roll_log"),
            pytest.raises(OperationalError, match="database is locked"),
        ):
            await writer.record(user_id=1, kind="roll", expression="1d6", total=3, result={})
        holder.execute("ROLLBACK")
        await writer.record(user_id=1, kind="roll", expression="1d6", total=4, result={})
        assert await _count(sessions) == 1
        [line] = [r for r in caplog.records if "could not write" in r.getMessage()]
        assert line.exc_info is None and "\n" not in line.getMessage(), line.getMessage()
        assert line.getMessage() == (
            "could not write 1 roll(s) to the log: sqlite3.OperationalError: database is locked; "
            "the user is told to try again"
        )
    finally:
        holder.close()
        await writer.close()
        await engine.dispose()


async def test_history_queries_are_served_by_an_index(tmp_path: Any) -> None:
    """``/historique personnage:X`` scanned the guild's whole log at 1.6 million rows (#23 item 8):
    SQLite's plan for each history query names an index on what it filters by."""
    from sqlalchemy import text

    from bot.db.characters import recent_rolls_query

    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/plans.db")
    await upgrade(engine)
    try:
        for where, index in (
            ({"character_id": 7}, "ix_roll_log_guild_character_created"),
            ({"channel_id": 9}, "ix_roll_log_guild_channel_created"),
        ):
            query = recent_rolls_query(1, secrets=False, limit=10, offset=20, **where)
            sql = str(query.compile(engine.sync_engine, compile_kwargs={"literal_binds": True}))
            async with engine.connect() as connection:
                plan = " ".join(
                    str(row[-1]) for row in await connection.execute(text("EXPLAIN QUERY PLAN " + sql))
                )
            assert f"USING INDEX {index}" in plan, plan
    finally:
        await engine.dispose()
