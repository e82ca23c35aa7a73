"""Gateway behaviour: privileged intents, RESUME with replay, member chunks."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import discord
import discord.gateway
import discord.http
import pytest

from bot.discord_target import point_at
from bot.emulator.client import Table
from bot.emulator.server import Emulator
from bot.emulator.state import Intents

from .minibot import MiniBot


@contextlib.asynccontextmanager
async def pointed(emu: Emulator) -> AsyncIterator[None]:
    saved = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    point_at(emu.base_url)
    try:
        yield
    finally:
        discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = saved


async def test_privileged_intent_not_granted_closes_4014(emu: Emulator) -> None:
    bot = MiniBot(int(emu.guild.id), 0, intents=discord.Intents(guilds=True, members=True))
    async with pointed(emu):
        with pytest.raises(discord.PrivilegedIntentsRequired):
            await asyncio.wait_for(bot.start("t"), 10)
        await bot.close()
    assert emu.gateway.closed_codes == [4014]
    assert [f.kind for f in emu.failures] == ["privileged_intent"]


async def test_granted_members_intent_and_chunk(emu: Emulator) -> None:
    emu.config.granted_intents = Intents.MEMBERS
    bot = MiniBot(int(emu.guild.id), 0, intents=discord.Intents(guilds=True, members=True))
    async with pointed(emu):
        task = asyncio.create_task(bot.start("t"))
        try:
            await asyncio.wait_for(bot.ready_event.wait(), 10)
            guild = bot.get_guild(int(emu.guild.id))
            assert guild is not None and guild.chunked
            gm = guild.get_member(int(emu.user_named("gm").id))
            assert gm is not None and [r.name for r in gm.roles][-1] == "MJ"
            members = await guild.chunk()  # op 8 -> GUILD_MEMBERS_CHUNK
            assert len(members) == len(emu.guild.members)
            carol = guild.get_member(int(emu.user_named("carol").id))
            assert carol is not None and carol.guild_permissions.manage_guild
            alice = guild.get_member(int(emu.user_named("alice").id))
            assert alice is not None and not alice.guild_permissions.manage_guild
            assert alice.guild_permissions.use_application_commands
        finally:
            await bot.close()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


async def test_resume_replays_what_was_missed(table: Table, emu: Emulator, minibot: MiniBot) -> None:
    session = next(iter(emu.gateway.sessions.values()))
    assert await emu.gateway.drop() == 1
    # Dispatched while the socket is down: kept with its seq, replayed on RESUME.
    r = await table.user("alice").slash("lancer", expression="1d4")
    assert r.content == "1d4 = 42 @everyone"
    assert session.resumes == 1
    assert len(emu.gateway.sessions) == 1


async def test_unknown_session_resume_is_invalidated(table: Table, emu: Emulator, minibot: MiniBot) -> None:
    # Forget the session: the bot's RESUME gets op 9 and it identifies again.
    session = next(iter(emu.gateway.sessions.values()))
    emu.gateway.sessions.clear()
    ws = session.ws
    assert ws is not None
    await ws.close(code=4000)
    await emu.wait_until(lambda: emu.gateway.connected and emu.gateway.sessions, what="re-identify")
    r = await table.user("bob").slash("roll", expression="1d8")
    assert r.callback_type == 4


async def test_dm_closed_is_refused(table: Table, emu: Emulator, minibot: MiniBot) -> None:
    emu.config.dm_closed.add(emu.user_named("gm").id)
    r = await table.user("alice").slash("lancer", expression="1d100", secret=True)
    assert r.callback_type == 5
    await emu.wait_until(lambda: any(f.kind == "dm_closed" for f in emu.failures), what="the refused DM")
    assert table.dms("gm") == []
