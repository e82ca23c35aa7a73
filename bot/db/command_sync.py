"""The command tree last synced to Discord, per scope (global, or a development server).

A bot process syncs its slash commands only when the tree differs from the one recorded here
(Discord counts command creations per day, and a sync at every start is a needless risk of a
5xx keeping the bot offline). One process at a time: a process claims the scope for a minute
before syncing; the others start without syncing.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import DateTime, String, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.base import Base, utcnow

CLAIM_SECONDS = 60


class CommandSync(Base):
    __tablename__ = "command_syncs"

    scope: Mapped[str] = mapped_column(String(64), primary_key=True)
    digest: Mapped[str] = mapped_column(String(64), default="")
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    synced_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)


async def claim(sessions: async_sessionmaker[AsyncSession], scope: str, digest: str) -> bool:
    """True when this process should sync ``scope`` now: the recorded tree differs and no other
    process is syncing it (the claim lasts a minute, or until :func:`done`)."""
    now = utcnow()
    async with sessions.begin() as session:
        row = await session.get(CommandSync, scope)
        if row is None:
            try:
                async with session.begin_nested():
                    session.add(
                        CommandSync(
                            scope=scope, digest="", claimed_until=now + timedelta(seconds=CLAIM_SECONDS)
                        )
                    )
                return True
            except IntegrityError:  # another process inserted it first: it syncs
                return False
        if row.digest == digest:
            return False
        claimed = await session.execute(
            update(CommandSync)
            .where(
                CommandSync.scope == scope,
                or_(CommandSync.claimed_until.is_(None), CommandSync.claimed_until < now),
            )
            .values(claimed_until=now + timedelta(seconds=CLAIM_SECONDS))
            .execution_options(synchronize_session=False)
        )
        return bool(getattr(claimed, "rowcount", 0))


async def done(sessions: async_sessionmaker[AsyncSession], scope: str, digest: str | None) -> None:
    """Release the claim; ``digest`` is recorded when the sync succeeded (None: it failed)."""
    async with sessions.begin() as session:
        values: dict[str, object] = {"claimed_until": None}
        if digest is not None:
            values.update(digest=digest, synced_at=utcnow())
        await session.execute(
            update(CommandSync)
            .where(CommandSync.scope == scope)
            .values(**values)
            .execution_options(synchronize_session=False)
        )


async def recorded(sessions: async_sessionmaker[AsyncSession], scope: str) -> str | None:
    async with sessions() as session:
        return await session.scalar(select(CommandSync.digest).where(CommandSync.scope == scope))
