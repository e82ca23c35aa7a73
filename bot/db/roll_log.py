"""The roll log writer: every roll is durable before its result is shown, at hundreds per second.

One commit per roll costs about 2 ms on SQLite (WAL, synchronous=NORMAL); at hundreds of rolls
per second that is the bottleneck. So rolls use group commit: ``record()`` queues the row and
waits until the background writer has committed the batch it landed in. While one batch is being
committed the next one fills, so throughput grows with load, each roll costs one commit of
latency at most, and a roll a player has seen is always in the log (even after a SIGKILL).
``record_rows()`` does the same for the several rows of one interaction (an extended test's
attempts, from :func:`log_row`): they land in the same commit, never split across two.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.db.models import RollLog

log = logging.getLogger(__name__)
_INSERT = insert(RollLog)  # run on a Connection: plain Core, no ORM work for rows nobody reads back

BATCH_MAX = 500


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


class RollLogWriter:
    def __init__(self, sessions: async_sessionmaker[AsyncSession], *, batch_max: int = BATCH_MAX) -> None:
        self._sessions = sessions
        self._batch_max = batch_max
        # Each entry: the rows of one interaction (never split across commits) and its waiter.
        self._pending: list[tuple[list[dict[str, Any]], asyncio.Future[None]]] = []
        self._wakeup = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self.written = 0
        self.commits = 0

    def start(self) -> None:
        if self._task is None:
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
        async with self._engine().begin() as connection:
            await connection.execute(_INSERT, rows)
        self.written += len(rows)
        self.commits += 1

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
                    await self._write([row for rows, _ in batch for row in rows])
                except Exception as exc:
                    # The callers are told (their interaction answers "try again"); nothing half-written.
                    log.exception("could not write %d roll(s) to the log", sum(len(r) for r, _ in batch))
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
