"""The emulator drives a real discord.py bot (in-process) through every flow Mêlée needs."""

from __future__ import annotations

import json

import aiohttp
import pytest

from bot.emulator.client import ClientRefused, Table, Upload
from bot.emulator.server import Emulator
from bot.emulator.state import FakeClock

from .minibot import MiniBot


async def test_login_sync_and_ready(emu: Emulator, minibot: MiniBot) -> None:
    synced = emu.commands[emu.guild.id]
    names = {c["name"] for c in synced}
    assert {"roll", "combat", "perso", "fiche", "arme", "lent"} <= names
    roll = next(c for c in synced if c["name"] == "roll")
    assert roll["name_localizations"] == {"fr": "lancer"}
    assert roll["id"] and roll["application_id"] == emu.application_id
    guild = minibot.get_guild(int(emu.guild.id))
    assert guild is not None
    assert {r.name for r in guild.roles} >= {"@everyone", "MJ", "Admin"}
    assert guild.get_member(int(emu.user_named("alice").id)) is None  # no members intent
    assert not emu.failures


async def test_slash_in_french_and_english(table: Table) -> None:
    alice = table.user("alice")
    r = await alice.slash("lancer", expression="1d100")
    assert r.callback_type == 4
    assert r.content == "1d100 = 42 @everyone"
    assert not r.ephemeral
    bob = table.user("bob", locale="en-US")
    r2 = await bob.slash("roll", expression="2d6")
    assert r2.content == "2d6 = 42 @everyone"
    assert table.channel_messages("partie")[-1].content == "2d6 = 42 @everyone"
    # The bot sent allowed_mentions none: nobody is pinged although the text says @everyone.
    assert table.channel_messages("partie")[-1].allowed_mentions == {"parse": []}
    assert table.pinged_everyone() == []


async def test_client_refuses_what_discord_ui_would(table: Table) -> None:
    alice = table.user("alice")
    with pytest.raises(ClientRefused):
        await alice.slash("lancer")  # missing required option
    with pytest.raises(ClientRefused):
        await alice.slash("nope")
    with pytest.raises(ClientRefused):
        await alice.slash("combat")  # needs a subcommand


async def test_subcommand_thread_button_pin(table: Table, emu: Emulator) -> None:
    gm = table.user("gm")
    r = await gm.slash("combat ouvrir", nom="Embuscade")
    assert r.content == "Combat : Embuscade"
    thread = await emu.wait_until(lambda: next((t for t in table.threads if t.name == "Embuscade"), None))
    assert thread.id == r.message.id if r.message else False  # a thread from a message takes its id
    await emu.wait_until(lambda: table.pins(thread), what="the pin")
    assert gm.id in thread.thread_member_ids
    bob = table.user("bob")
    click = await bob.click("Parer")
    assert click.callback_type == 7
    assert click.message is not None and click.message.content == "bob pare !"
    assert click.message.components == []
    dodge_thread_msg = table.pins(thread)[0]
    assert dodge_thread_msg.id == click.message.id
    assert not emu.failures


async def test_deferred_update_then_edit_original(table: Table) -> None:
    gm = table.user("gm")
    await gm.slash("combat ouvrir", nom="Pont")
    alice = table.user("alice")
    await table.emu.wait_until(lambda: any(m.buttons for m in alice.visible_messages()))
    r = await alice.click("Esquiver")
    assert r.callback_type == 6
    message = await r.wait_edit()
    assert message.content == "alice esquive."


async def test_autocomplete(table: Table) -> None:
    alice = table.user("alice")
    choices = await alice.autocomplete("perso voir", "nom", "Al")
    assert [c["name"] for c in choices] == ["Aldric", "Alba"]
    r = await alice.slash("perso voir", nom="Alba")
    assert r.embed["title"] == "Alba"


async def test_modal_roundtrip(table: Table) -> None:
    alice = table.user("alice")
    r = await alice.slash("fiche")
    assert r.callback_type == 9
    assert r.modal is not None and r.modal["title"] == "Fiche de personnage"
    submitted = await alice.submit_modal(nom="Gork", points_de_blessure="12")
    assert submitted.content == "Gork/12"
    with pytest.raises(ClientRefused):
        await alice.submit_modal(nom="x")  # no modal open any more


async def test_select(table: Table) -> None:
    alice = table.user("alice")
    await alice.slash("arme")
    r = await alice.select("Arme", "Hache")
    assert r.ephemeral and r.content == "choisi: axe"


async def test_secret_roll_dm_to_gm_and_ephemeral_followup(table: Table) -> None:
    alice = table.user("alice")
    r = await alice.slash("lancer", expression="1d100", secret=True)
    assert r.callback_type == 5 and r.ephemeral
    followup = await r.wait_followup()
    assert followup.content == "Envoyé au MJ."
    assert (
        followup.id == r.message.id if r.message else False
    )  # the first followup fills the "thinking" message
    assert [m.content for m in table.dms("gm")] == ["alice: 1d100 = 42"]
    assert table.channel_messages("partie") == []  # nothing public


async def test_attachment_option_and_file_reply(table: Table, emu: Emulator) -> None:
    alice = table.user("alice")
    sheet = {"nom": "Gork", "pv": 12}
    r = await alice.slash("perso importer", fichier=Upload("gork.json", json.dumps(sheet).encode()))
    assert r.content == "importé"
    assert r.message is not None
    [attachment] = r.message.attachments
    assert attachment.filename == "export.json"
    assert json.loads(attachment.text) == {**sheet, "imported": True}
    async with aiohttp.ClientSession() as session, session.get(attachment.url) as resp:
        assert json.loads(await resp.read()) == {**sheet, "imported": True}


async def test_late_callback_refused_with_fake_clock(
    table: Table, emu: Emulator, clock: FakeClock, minibot: MiniBot
) -> None:
    # The clock jumps 3.5 s the moment INTERACTION_CREATE goes out: no real waiting.
    emu.interaction_hooks.append(lambda interaction: clock.advance(3.5))
    alice = table.user("alice")
    interaction = await emu.dispatch_interaction(alice.user, 2, _slow_data(emu), emu.channel("partie"))
    emu.interaction_hooks.clear()
    minibot.release_slow.set()
    await emu.wait_until(lambda: interaction.callbacks, what="the late callback")
    assert interaction.callbacks[0].status == 404
    assert not interaction.acknowledged
    assert [f.kind for f in emu.failures] == ["late_callback"]
    await emu.wait_until(lambda: minibot.errors, what="the bot to see the error")
    assert "10062" in str(minibot.errors[0])


async def test_second_initial_callback_refused(table: Table, emu: Emulator, minibot: MiniBot) -> None:
    alice = table.user("alice")
    r = await alice.slash("double")
    await emu.wait_until(lambda: minibot.errors, what="the second callback")
    assert r.content == "un"
    assert "40060" in str(minibot.errors[0])
    assert [f.kind for f in emu.failures] == ["already_acknowledged"]


def _slow_data(emu: Emulator) -> dict[str, object]:
    command = next(c for c in emu.commands[emu.guild.id] if c["name"] == "lent")
    return {"id": command["id"], "name": "lent", "type": 1, "guild_id": emu.guild.id, "options": []}
