"""Servers per process (#25): discord.py's cache of the guilds (channels, roles, threads, emojis)
is frozen once the shard is READY, so a full collection no longer walks it (it paused the bot
124 ms at 2 500 guilds, 251 ms at 5 000); the collector stays off while the guilds stream in. The
emulator sends realistic guilds: their emojis and active threads (benchmarks/bench_guilds.py
measures 1 000-5 000 of them)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import random
from pathlib import Path

import discord

from bot.app import MeleeBot
from bot.config import Settings
from bot.discord_target import point_at
from bot.emulator.server import Emulator

GUILDS = 25


async def test_the_guild_cache_is_frozen_after_ready_and_carries_emojis_and_threads(tmp_path: Path) -> None:
    emu = Emulator()
    home = emu.add_default_world()
    for n in range(GUILDS):
        emu.add_guild(
            f"Serveur {n}",
            channels=[f"salon-{i}" for i in range(30)],
            roles=[(f"role-{i}", 0) for i in range(18)],
            emojis=[f"emoji_{i}" for i in range(30)],
            threads=10,
        )
    base = await emu.start()
    point_at(base)
    settings = Settings(
        discord_token="test",
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'melee.db'}",
        dev_guild_id=int(home.id),
        log_level="WARNING",
        discord_api_base=base,
    )
    bot = MeleeBot(settings, rng=random.Random(1), guild_ready_timeout=0.05)
    gc.disable()  # as `python -m bot` starts
    runner = asyncio.create_task(bot.start("test"))
    try:
        await emu.wait_until(lambda: bot.is_ready() or runner.done(), timeout=60, what="the bot to be ready")
        if runner.done():
            runner.result()
        await asyncio.sleep(0)  # on_ready's handler has run
        assert len(bot.guilds) == GUILDS + 1
        guild = next(g for g in bot.guilds if g.name == "Serveur 0")
        assert len(guild.threads) == 10 and len(guild.roles) == 20 and len(guild.channels) == 30
        # the emulator sends the emojis, as Discord does; discord.py keeps them only with the emojis
        # intent, which the bot does not ask for
        sent = emu.guild_create_payload(emu.guilds[str(guild.id)])
        assert len(sent["emojis"]) == 30 and len(sent["threads"]) == 10
        assert guild.emojis == ()
        assert gc.isenabled()
        # the cache is out of the collector's sight: no guild, channel, thread or emoji is tracked
        cached = (discord.Guild, discord.TextChannel, discord.Thread, discord.Emoji, discord.Role)
        assert not [o for o in gc.get_objects() if isinstance(o, cached)]
        # a later shard's guild stream: the collector is off until that shard is ready, then frozen
        await bot.on_shard_connect(1)
        assert not gc.isenabled()
        await bot.on_shard_ready(1)
        assert gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()
        await bot.close()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await runner
        await emu.stop()


def test_the_benchmark_feeds_realistic_guilds(tmp_path: Path) -> None:
    """benchmarks/bench_guilds.py's servers (the benchmark itself is a script, not a test)."""
    from benchmarks import bench_guilds
    from tests.e2e.harness import E2E

    harness = E2E(tmp_path)
    bench_guilds.add_guilds(harness, 3)
    active = harness.emu.active_threads()
    for guild in list(harness.emu.guilds.values())[1:]:
        sent = harness.emu.guild_create_payload(guild, threads=active.get(guild.id, []))
        counts = [len(sent[k]) for k in ("channels", "roles", "threads", "emojis")]
        assert counts == [
            bench_guilds.CHANNELS,
            bench_guilds.ROLES,
            bench_guilds.THREADS,
            bench_guilds.EMOJIS,
        ]
