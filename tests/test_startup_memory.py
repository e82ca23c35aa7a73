"""Start-up and resident memory (issue #11): what start-up leaves behind and what each message costs.

The bot runs in this process against the emulator (as the console does), so its structures can be
inspected: messages sent with buttons leave nothing in discord.py's view store (the cogs' persistent
DynamicItems answer the clicks), start-up freezes what it built and turns the collector back on, and
the schema validators are released once every table is validated.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot import data_loading
from bot.app import MeleeBot
from bot.config import Settings
from bot.data_loading import DataError, load_all, release_validators, validate_document
from bot.discord_target import point_at
from bot.emulator.client import Table
from bot.emulator.server import Emulator


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[tuple[MeleeBot, Table]]:
    emu = Emulator()
    guild = emu.add_default_world()
    base = await emu.start()
    point_at(base)
    settings = Settings(
        discord_token="test",
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'melee.db'}",
        dev_guild_id=int(guild.id),
        log_level="WARNING",
        discord_api_base=base,
    )
    bot = MeleeBot(settings, rng=random.Random(1), guild_ready_timeout=0.05)
    gc.disable()  # as `python -m bot` starts
    runner = asyncio.create_task(bot.start("test"))
    try:
        await emu.wait_until(
            lambda: (bool(emu.command_scopes(guild.id)) and bot.is_ready()) or runner.done(),
            timeout=60,
            what="the bot to be ready",
        )
        if runner.done():
            runner.result()
        yield bot, Table(emu, guild)
    finally:
        gc.enable()
        gc.unfreeze()
        await bot.close()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await runner
        await emu.stop()


async def test_start_up_freezes_its_objects_and_turns_the_collector_back_on(
    live: tuple[MeleeBot, Table],
) -> None:
    assert gc.isenabled()
    assert gc.get_freeze_count() > 10_000  # modules, classes, tables, the command tree


async def test_messages_with_buttons_leave_no_view_behind(live: tuple[MeleeBot, Table]) -> None:
    bot, table = live
    gm = table.user("gm")
    rounds = []
    for n in range(3):
        opened = await gm.slash("combat ouvrir", nom=f"Fight {n}")
        await opened.wait_followup()
        thread = table.thread(f"Fight {n}")
        await gm.slash("combat ajouter", qui="2 Orque", channel=thread)
        rounds.append(await gm.slash("combat round", channel=thread))
    messages = [r.message for r in rounds if r.message is not None]
    assert len(messages) == 3 and all(m.components for m in messages), "round messages carry buttons"
    store: Any = bot._connection._view_store
    assert not store._synced_message_views
    assert not [key for key in store._views if key is not None]
    # The buttons still work: the persistent DynamicItem answers the click.
    label = messages[0].components[0]["components"][0]["label"]
    clicked = await gm.click(label, message=messages[0])
    assert not clicked.failed, clicked
    assert not store._synced_message_views


def test_validators_are_released_and_rebuilt_on_demand() -> None:
    tables = load_all()
    release_validators()
    assert data_loading._validator.cache_info().currsize == 0
    # An upload after start-up is still validated against its schema.
    document = dict(tables["weapons_melee"].document)
    assert validate_document(document) == document["schema"]
    with pytest.raises(DataError):
        validate_document({**document, "entries": "not a list"})
