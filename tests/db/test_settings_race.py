"""Two first writes at once on a new server do not fail on the settings row's insert."""

from __future__ import annotations

import asyncio

from bot.db.repositories import get_server_config, set_channel_ruleset, update_server_config
from bot.db.session import create_engine, create_sessionmaker, upgrade


async def test_concurrent_first_writes_for_one_server_all_succeed(database_url: str) -> None:
    engine = create_engine(database_url)
    await upgrade(engine)
    sessions = create_sessionmaker(engine)
    guild = 424242

    async def set_ruleset(ruleset: str) -> None:
        async with sessions.begin() as session:
            await update_server_config(session, guild, ruleset=ruleset)

    async def set_channel(channel: int) -> None:
        async with sessions.begin() as session:
            await set_channel_ruleset(session, guild, channel, "d20")

    try:
        results = await asyncio.gather(
            *(set_ruleset("v1") for _ in range(5)),
            *(set_channel(c) for c in range(5)),
            return_exceptions=True,
        )
        assert [r for r in results if isinstance(r, BaseException)] == []
        async with sessions() as session:
            assert (await get_server_config(session, guild)).ruleset == "v1"
    finally:
        await engine.dispose()
