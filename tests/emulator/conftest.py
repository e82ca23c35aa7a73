"""Fixtures: a started emulator with the default world, and the in-process MiniBot on it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import discord.gateway
import discord.http
import pytest

from bot.discord_target import point_at
from bot.emulator.client import Table
from bot.emulator.server import Emulator, EmulatorConfig
from bot.emulator.state import FakeClock

from .minibot import MiniBot


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def emu(clock: FakeClock) -> AsyncIterator[Emulator]:
    emulator = Emulator(EmulatorConfig(), clock=clock)
    emulator.add_default_world()
    await emulator.start()
    try:
        yield emulator
    finally:
        await emulator.stop()


@pytest.fixture
async def minibot(emu: Emulator) -> AsyncIterator[MiniBot]:
    """MiniBot connected, commands synced, guild ready."""
    saved = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    point_at(emu.base_url)
    bot = MiniBot(int(emu.guild.id), int(emu.user_named("gm").id))
    task = asyncio.create_task(bot.start("emulator-token"))
    try:
        await asyncio.wait_for(bot.ready_event.wait(), 10)
        yield bot
    finally:
        await bot.close()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = saved


@pytest.fixture
def table(emu: Emulator, minibot: MiniBot) -> Table:
    return Table(emu, channel="partie")
