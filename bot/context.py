"""What every cog and service needs, built once at start-up and passed in."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.config import Settings
from bot.data_loading import Table
from bot.db.roll_log import RollLogWriter
from bot.db.session import create_engine, create_sessionmaker, upgrade
from bot.i18n import Catalog, default_catalog
from bot.ui.reply import Reply

ReplyObserver = Callable[[int, Reply], None]


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(slots=True)
class AppContext:
    settings: Settings
    sessions: async_sessionmaker[AsyncSession]
    catalog: Catalog
    rng: random.Random
    roll_log: RollLogWriter
    tables: dict[str, Table] = field(default_factory=dict)
    # The console registers an observer to read each reply's structured result.
    reply_observers: list[ReplyObserver] = field(default_factory=list)
    # The wall clock of game time (defence waits, wound deadlines): the console's ``!wait`` moves it.
    now: Callable[[], datetime] = utc_now

    def observe(self, interaction_id: int, reply: Reply) -> None:
        for observer in self.reply_observers:
            observer(interaction_id, reply)


@asynccontextmanager
async def migrated_context(
    database_url: str, *, rng: random.Random, tables: dict[str, Table]
) -> AsyncIterator[AppContext]:
    """What the services get, without Discord, on ``database_url`` brought to the newest migration:
    for tests and benchmarks (the bot builds its own at start-up, with its clock and observers)."""
    engine = create_engine(database_url)
    await upgrade(engine)
    sessions = create_sessionmaker(engine)
    writer = RollLogWriter(sessions)
    try:
        yield AppContext(
            settings=Settings(discord_token=None, database_url=database_url),
            sessions=sessions,
            catalog=default_catalog(),
            rng=rng,
            roll_log=writer,
            tables=tables,
        )
    finally:
        await writer.close()
        await engine.dispose()
