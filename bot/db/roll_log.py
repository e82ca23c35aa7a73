"""The roll log writer: every roll is durable before its result is shown, at hundreds per second.

One commit per roll costs about 2 ms on SQLite (WAL, synchronous=NORMAL); at hundreds of rolls
per second that is the bottleneck. So rolls use group commit: ``record()`` queues the row and
waits until the background writer has committed the batch it landed in. While one batch is being
committed the next one fills, so throughput grows with load, each roll costs one commit of
latency at most, and a roll a player has seen is always in the log (even after a SIGKILL).
``record_rows()`` does the same for the several rows of one interaction (an extended test's
attempts, from :func:`log_row`): they land in the same commit, never split across two.

On a SQLite file the batch is written by a plain (synchronous) SQLAlchemy connection in a thread of
its own, in one hand-over: through aiosqlite each step (cursor, execute, commit, reset) is a trip to
its thread and back through a busy event loop, 6-30 ms per commit under load, which every waiting
``/test`` paid. That connection does not checkpoint the WAL itself (SQLite's autocheckpoint made
one commit in a few hundred take 5-20 ms, holding every roll waiting behind it): a third thread
runs a PASSIVE checkpoint every second on its own connection, beside the commits, not in front.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, create_engine, event, insert
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.db.models import RollFace, RollLog
from bot.db.session import _sqlite_pragmas, is_memory_sqlite, is_sqlite
from bot.rules.dice_stats import StatKey, logged_dice

log = logging.getLogger(__name__)
_INSERT = insert(RollLog)  # run on a Connection: plain Core, no ORM work for rows nobody reads back
_FACES = insert(RollFace)
FACE_COLUMNS = (
    "guild_id",
    "channel_id",
    "user_id",
    "character_id",
    "secret",
    "manual",
    "sides",
    "face",
    "count",
    "ruleset",
    "target",
    "crit",
    "stat_key",
    "created_at",
)

BATCH_MAX = 500
CHECKPOINT_SECONDS = 1.0  # the WAL grows by a few hundred pages a second at most under full load


def _is_locked(exc: BaseException) -> bool:
    text = str(getattr(exc, "orig", None) or exc).lower()
    return "database is locked" in text or "database table is locked" in text or "deadlock detected" in text


def _cause(exc: BaseException) -> str:
    """« sqlite3.OperationalError: database is locked »: the driver's error, without SQL or traceback."""
    orig = getattr(exc, "orig", None) or exc
    first = str(orig).strip().splitlines()[0] if str(orig).strip() else ""
    return f"{type(orig).__module__}.{type(orig).__qualname__}: {first[:200]}"


def _no_autocheckpoint(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.execute("PRAGMA wal_autocheckpoint=0")


def log_row(
    *,
    user_id: int,
    kind: str,
    expression: str,
    result: dict[str, Any],
    guild_id: int | None = None,
    channel_id: int | None = None,
    character_id: int | None = None,
    ruleset: str | None = None,
    label: str | None = None,
    total: int | None = None,
    secret: bool = False,
) -> dict[str, Any]:
    """One roll-log row, as :meth:`RollLogWriter.record_rows` takes it."""
    return {
        "guild_id": guild_id,
        "channel_id": channel_id,
        "user_id": user_id,
        "character_id": character_id,
        "kind": kind,
        "ruleset": ruleset,
        "expression": expression[:2000],
        "label": label[:100] if label else None,
        "total": total,
        "secret": secret,
        "result": result,
        "created_at": datetime.now(UTC),
    }


def face_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``roll_faces`` rows of roll-log rows (``/stats``): one per roll and face shown, and one per
    test's own die, carrying its ruleset, target and critical."""
    faces: list[dict[str, Any]] = []
    for row in rows:
        result = row.get("result")
        if not isinstance(result, dict):
            continue
        logged = logged_dice(result)
        secret = bool(row.get("secret"))
        keys = [
            (StatKey(sides, face, logged.manual, secret, None, None, None), count)
            for (sides, face), count in sorted(logged.faces.items())
        ]
        keys += [
            (StatKey(t.sides, t.face, logged.manual, secret, t.ruleset, t.target, t.crit), 1)
            for t in logged.tests
        ]
        for key, count in keys:
            faces.append(
                {
                    "guild_id": row.get("guild_id"),
                    "channel_id": row.get("channel_id"),
                    "user_id": row["user_id"],
                    "character_id": row.get("character_id"),
                    "secret": key.secret,
                    "manual": key.manual,
                    "sides": key.sides,
                    "face": key.face,
                    "count": count,
                    "ruleset": key.ruleset,
                    "target": key.target,
                    "crit": key.crit,
                    "stat_key": key.pack(),
                    "created_at": row["created_at"],
                }
            )
    return faces


class RollLogWriter:
    def __init__(self, sessions: async_sessionmaker[AsyncSession], *, batch_max: int = BATCH_MAX) -> None:
        self._sessions = sessions
        self._batch_max = batch_max
        # Each entry: the rows of one interaction (never split across commits) and its waiter.
        self._pending: list[tuple[list[dict[str, Any]], asyncio.Future[None]]] = []
        self._wakeup = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        # SQLite file: a synchronous engine in one thread of its own (see the module's docstring).
        self._sync_engine: Engine | None = None
        self._thread: ThreadPoolExecutor | None = None
        self._checkpointer: ThreadPoolExecutor | None = None
        self._checkpoint_task: asyncio.Task[None] | None = None
        self._checkpoint_connection: sqlite3.Connection | None = None
        self.checkpoints = 0
        self.written = 0
        self.commits = 0

    def start(self) -> None:
        if self._task is None:
            url = self._engine().url
            rendered = url.render_as_string(hide_password=False)
            if is_sqlite(rendered) and not is_memory_sqlite(rendered):
                self._sync_engine = create_engine(url.set(drivername="sqlite"), pool_size=1)
                event.listen(self._sync_engine, "connect", _sqlite_pragmas)
                event.listen(self._sync_engine, "connect", _no_autocheckpoint)
                self._thread = ThreadPoolExecutor(1, thread_name_prefix="roll-log")
                self._checkpointer = ThreadPoolExecutor(1, thread_name_prefix="roll-log-checkpoint")
                database = url.database
                assert database is not None
                self._checkpoint_task = asyncio.create_task(
                    self._checkpoints(database), name="roll-log-checkpoints"
                )
            self._task = asyncio.create_task(self._run(), name="roll-log-writer")

    async def record(
        self,
        *,
        user_id: int,
        kind: str,
        expression: str,
        result: dict[str, Any],
        guild_id: int | None = None,
        channel_id: int | None = None,
        character_id: int | None = None,
        ruleset: str | None = None,
        label: str | None = None,
        total: int | None = None,
        secret: bool = False,
    ) -> None:
        """Return once the row is committed; raise if it could not be written."""
        row = log_row(
            user_id=user_id,
            kind=kind,
            expression=expression,
            result=result,
            guild_id=guild_id,
            channel_id=channel_id,
            character_id=character_id,
            ruleset=ruleset,
            label=label,
            total=total,
            secret=secret,
        )
        await self.record_rows([row])

    async def record_rows(self, rows: list[dict[str, Any]]) -> None:
        """Return once all ``rows`` (from :func:`log_row`) are committed, in one transaction."""
        if not rows:
            return
        if self._closed or self._task is None:
            await self._write(rows)  # not running (tests, shutdown): write at once
            return
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((rows, done))
        self._wakeup.set()
        await done

    def _engine(self) -> AsyncEngine:
        bind = self._sessions.kw["bind"]
        assert isinstance(bind, AsyncEngine)
        return bind

    async def _write(self, rows: list[dict[str, Any]]) -> None:
        faces = face_rows(rows)
        async with self._engine().begin() as connection:
            await connection.execute(_INSERT, rows)
            if faces:
                await connection.execute(_FACES, faces)
        self.written += len(rows)
        self.commits += 1

    def _write_sync(self, rows: list[dict[str, Any]]) -> None:
        assert self._sync_engine is not None
        faces = face_rows(rows)
        with self._sync_engine.begin() as connection:
            connection.execute(_INSERT, rows)
            if faces:
                connection.execute(_FACES, faces)

    async def _write_batch(self, rows: list[dict[str, Any]]) -> None:
        if self._thread is None:
            await self._write(rows)
            return
        await asyncio.get_running_loop().run_in_executor(self._thread, self._write_sync, rows)
        self.written += len(rows)
        self.commits += 1

    async def _checkpoints(self, database: str) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(CHECKPOINT_SECONDS)
            try:
                await loop.run_in_executor(self._checkpointer, self._checkpoint_sync, database)
            except Exception:  # a missed checkpoint only lets the WAL grow until the next one
                log.warning("WAL checkpoint failed", exc_info=True)

    def _checkpoint_sync(self, database: str) -> None:
        if self._checkpoint_connection is None:
            self._checkpoint_connection = sqlite3.connect(database, isolation_level=None)
            self._checkpoint_connection.execute("PRAGMA busy_timeout=2000")
        # PASSIVE: copies what no reader still needs, never waits for (nor blocks) the writer.
        self._checkpoint_connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
        self.checkpoints += 1

    def _close_checkpoint_connection(self) -> None:
        if self._checkpoint_connection is not None:
            self._checkpoint_connection.close()
            self._checkpoint_connection = None

    def _next_batch(self) -> list[tuple[list[dict[str, Any]], asyncio.Future[None]]]:
        """The oldest entries up to ``batch_max`` rows (at least one entry, whatever its size)."""
        count = size = 0
        for rows, _ in self._pending:
            if count and size + len(rows) > self._batch_max:
                break
            count += 1
            size += len(rows)
        batch, self._pending = self._pending[:count], self._pending[count:]
        return batch

    async def _run(self) -> None:
        while True:
            await self._wakeup.wait()
            self._wakeup.clear()
            while self._pending:
                batch = self._next_batch()
                try:
                    await self._write_batch([row for rows, _ in batch for row in rows])
                except Exception as exc:
                    # The callers are told (their interaction answers "try again"); nothing half-written.
                    count = sum(len(r) for r, _ in batch)
                    if _is_locked(exc):  # an expected fault: one line with its cause, no traceback
                        # No retry here: SQLite's busy timeout (2 s) already waited, and the user
                        # must be answered within Discord's 3 s — he is told to try again.
                        log.error(
                            "could not write %d roll(s) to the log: %s; the user is told to try again",
                            count,
                            _cause(exc),
                        )
                    else:
                        log.exception("could not write %d roll(s) to the log", count)
                    for _, done in batch:
                        if not done.done():
                            done.set_exception(exc)
                    continue
                for _, done in batch:
                    if not done.done():
                        done.set_result(None)
            if self._closed:
                return

    async def close(self) -> None:
        """Write whatever is queued, then stop (a clean shutdown loses no roll)."""
        self._closed = True
        self._wakeup.set()
        if self._task is not None:
            await self._task
            self._task = None
        if self._checkpoint_task is not None:
            self._checkpoint_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._checkpoint_task
            self._checkpoint_task = None
        if self._checkpointer is not None:
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(self._checkpointer, self._close_checkpoint_connection)
            self._checkpointer.shutdown()
            self._checkpointer = None
        if self._thread is not None:
            assert self._sync_engine is not None
            await asyncio.get_running_loop().run_in_executor(self._thread, self._sync_engine.dispose)
            self._thread.shutdown()
            self._thread = self._sync_engine = None
