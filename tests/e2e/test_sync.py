"""The real bot's command tree syncs cleanly; the emulator refuses what Discord refuses."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import discord
import discord.gateway
import discord.http
import pytest
from discord import app_commands
from discord.ext import commands

from bot.discord_target import point_at
from bot.emulator.limits import COMMAND_MAX_CHARS, command_size
from bot.emulator.server import Emulator

from .harness import E2E


async def test_full_tree_syncs_without_any_refusal(emu: E2E) -> None:
    syncs = [r for r in emu.emu.requests if r.method == "PUT" and r.path.endswith("/commands")]
    assert syncs and all(r.status == 200 for r in syncs), [r.response for r in syncs]
    commands_ = emu.emu.commands[emu.guild.id]
    names = {c["name"] for c in commands_}
    assert {"roll", "help"} <= names
    for command in commands_:
        # Every command has its French name and description, and fits Discord's size limit.
        assert command.get("name_localizations", {}).get("fr"), command["name"]
        assert command.get("description_localizations", {}).get("fr"), command["name"]
        assert command_size(command) <= COMMAND_MAX_CHARS
    assert not emu.emu.failures


async def test_french_and_english_names_reach_the_same_command(emu: E2E) -> None:
    alice = emu.user("alice")
    bob = emu.user("bob", locale="en-US")
    fr = await alice.slash("lancer", expression="1d100")
    en = await bob.slash("roll", expression="1d100")
    assert fr.callback_type == en.callback_type == 4
    assert fr.message is not None and en.message is not None
    assert fr.message.allowed_mentions == {"parse": []}


async def _put(emu: Emulator, payload: object) -> tuple[int, dict[str, object]]:
    url = f"{emu.base_url}/api/v10/applications/{emu.application_id}/guilds/{emu.guild.id}/commands"
    headers = {"Authorization": "Bot x"}
    async with aiohttp.ClientSession() as session, session.put(url, json=payload, headers=headers) as resp:
        assert resp.headers["Content-Type"] == "application/json"
        return resp.status, await resp.json()


@pytest.fixture
async def bare(tmp_path: Path) -> AsyncIterator[E2E]:
    """The emulator alone (no bot process): for payloads PUT by hand."""
    harness = E2E(tmp_path)
    await harness.start(bot=False)
    try:
        yield harness
    finally:
        await harness.close()


async def test_description_over_100_is_refused_like_discord(bare: E2E) -> None:
    command = {"name": "roll", "type": 1, "description": "x" * 101}
    status, body = await _put(bare.emu, [command])
    assert status == 400
    assert body["code"] == 50035 and body["message"] == "Invalid Form Body"
    assert body["errors"] == {
        "0": {
            "description": {
                "_errors": [
                    {"code": "BASE_TYPE_BAD_LENGTH", "message": "Must be between 1 and 100 in length."}
                ]
            }
        }
    }


async def test_26th_choice_is_refused(bare: E2E) -> None:
    choices = [{"name": f"c{i}", "value": f"v{i}"} for i in range(26)]
    option = {"name": "pick", "description": "d", "type": 3, "choices": choices}
    status, body = await _put(bare.emu, [{"name": "roll", "description": "d", "options": [option]}])
    assert status == 400
    assert body["errors"] == {
        "0": {
            "options": {
                "0": {
                    "choices": {
                        "_errors": [
                            {"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 25 or fewer in length."}
                        ]
                    }
                }
            }
        }
    }


async def test_discordpy_raises_command_sync_failure(bare: E2E) -> None:
    """A real discord.py bot whose tree is broken gets Discord's readable error from sync()."""
    emu = bare.emu
    saved = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    point_at(emu.base_url)
    broken = commands.Bot(command_prefix="!", intents=discord.Intents(guilds=True))

    @broken.tree.command(name="roll", description="y" * 101)
    async def roll(interaction: discord.Interaction) -> None:  # pragma: no cover - never invoked
        pass

    @broken.tree.command(name="pick", description="ok")
    @app_commands.choices(c=[app_commands.Choice(name=f"n{i}", value=i) for i in range(26)])
    async def pick(interaction: discord.Interaction, c: int) -> None:  # pragma: no cover
        pass

    try:
        await broken.login("emulator-token")
        with pytest.raises(app_commands.CommandSyncFailure) as info:
            await broken.tree.sync()  # global: PUT /applications/{app}/commands
        text = str(info.value)
        assert "Must be between 1 and 100 in length." in text
        assert "Must be 25 or fewer in length." in text
    finally:
        await broken.close()
        discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = saved
    assert [f.kind for f in emu.failures] == ["command_sync"]


async def test_late_first_callback_is_refused(emu: E2E) -> None:
    """The clock jumps 3.5 s when the interaction is dispatched: the bot's answer comes too late."""
    emu.expect_failures = True
    emu.emu.interaction_hooks.append(lambda interaction: emu.clock.advance(3.5))
    r = await emu.user("alice").slash("lancer", expression="1d6")
    emu.emu.interaction_hooks.clear()
    assert r.interaction.callbacks[0].status == 404
    assert r.failed and not r.interaction.acknowledged
    assert [f.kind for f in emu.emu.failures] == ["late_callback"]


async def test_resume_replays_missed_interactions(emu: E2E) -> None:
    alice = emu.user("alice")
    await emu.drop_gateway(wait_resume=False)
    # Sent while the bot is disconnected: buffered, replayed after RESUME.
    pending = asyncio.ensure_future(alice.slash("lancer", expression="2d6", timeout=15))
    session = next(iter(emu.emu.gateway.sessions.values()))
    await emu.emu.wait_until(
        lambda: session.resumes == 1 and session.ws is not None, timeout=15, what="RESUME"
    )
    r = await pending
    assert r.callback_type == 4
    assert len(emu.emu.gateway.sessions) == 1  # resumed, not re-identified


async def test_restart_after_sigkill_keeps_command_ids(emu: E2E) -> None:
    before = {c["name"]: c["id"] for c in emu.emu.commands[emu.guild.id]}
    await emu.restart_bot()
    after = {c["name"]: c["id"] for c in emu.emu.commands[emu.guild.id]}
    assert after == before
    assert emu.bot is not None and emu.bot.starts == 2
    r = await emu.user("bob").slash("roll", expression="1d20")
    assert r.callback_type == 4
