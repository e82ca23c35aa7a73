"""``/macro`` and names in ``/lancer`` (issue #26): macros per user and per server, the active
character's values, roll-under tests, limits and refusals. Dice are seeded or entered by hand."""

from __future__ import annotations

import random

import pytest

from bot.context import AppContext
from bot.rules.dice.engine import roll
from bot.services import characters as chars
from bot.services import macros as svc
from bot.services.caller import Caller
from bot.services.rolls import roll_dice

ALICE = Caller(user_id=1, guild_id=800, channel_id=5, locale="fr")
BOB = Caller(user_id=2, guild_id=800, channel_id=5, locale="en-US")
GM = Caller(user_id=3, guild_id=800, channel_id=5, locale="fr", manage_guild=True)
ALICE_DM = Caller(user_id=1, guild_id=None, channel_id=9, locale="fr")
STATS = "CC:45 CT:30 F:36 E:30 Ag:35 Int:30 FM:30 Soc:30"


async def _elise(ctx: AppContext) -> None:
    reply = await chars.create_character(ctx, ALICE, name="Élise", stats=STATS)
    assert reply.kind != "error", reply.description


async def test_a_sheet_value_is_resolved_and_shown(app_context: AppContext) -> None:
    await _elise(app_context)
    reply = await roll_dice(app_context, ALICE, expression="2d10kh1+BF-2", rng=random.Random(4))
    assert reply.result is not None
    expected = roll("2d10kh1+6-2", random.Random(4))
    assert reply.result["total"] == expected.total
    assert reply.result["sheet_values"] == {"BF": 6} and reply.result["character"] == "Élise"
    assert reply.title == "🎲 2d10kh1+BF-2"
    assert any(f.name == "Fiche" and "BF = 6" in f.value and "Élise" in f.value for f in reply.fields)


async def test_without_an_active_character_the_reply_says_how_to_pick_one(app_context: AppContext) -> None:
    reply = await roll_dice(app_context, BOB, expression="1d10+SB")
    assert reply.ephemeral and "No active character" in (reply.description or "")
    assert reply.is_error and "/character active character:Name" in reply.fields[0].value
    plain = await roll_dice(app_context, BOB, expression="1d10+4", rng=random.Random(1))
    assert plain.result is not None and plain.result["total"] == roll("1d10+4", random.Random(1)).total


async def test_an_unknown_name_lists_the_sheets_values(app_context: AppContext) -> None:
    await _elise(app_context)
    reply = await roll_dice(app_context, ALICE, expression="1d10+BX")
    text = reply.description or ""
    assert reply.is_error and "« BX » n'est ni une valeur de votre fiche (Élise)" in text
    assert "CC, CT, F, E, Ag" in text and "`     ^`" in text


async def test_roll_under_a_characteristic_is_the_renove_test(app_context: AppContext) -> None:
    await _elise(app_context)
    reply = await roll_dice(app_context, ALICE, expression="1d100<=CC+10", manual="23")
    assert reply.result is not None
    test = reply.result["test"]
    assert test["target"] == 55 and test["roll"] == 23 and test["success"] and test["degrees"] == 3
    assert any("3 °R" in f.value for f in reply.fields)
    failed = await roll_dice(app_context, ALICE, expression="d%<=CC", manual="00")
    assert failed.result is not None and failed.result["test"]["roll"] == 100
    assert not failed.result["test"]["success"]
    too_many = await roll_dice(app_context, ALICE, expression="1d100<=CC", manual="23 40")
    assert too_many.ephemeral and "de trop" in (too_many.description or "")


async def test_user_and_server_macros_shadowing_and_labels(app_context: AppContext) -> None:
    await _elise(app_context)
    mine = await svc.create_macro(app_context, ALICE, name="frappe", expression="1d10+BF # Frappe")
    assert mine.result is not None and mine.result["created"]
    server = await svc.create_macro(
        app_context, GM, name="Frappe", expression="1d6 # Frappe du MJ", server=True
    )
    assert server.result is not None and server.result["server"]
    rolled = await roll_dice(app_context, ALICE, expression="frappe", rng=random.Random(2))
    assert rolled.result is not None and rolled.title == "🎲 Frappe"
    assert rolled.result["total"] == roll("1d10+6", random.Random(2)).total
    assert rolled.result["macros"] == ["frappe"]
    bobs = await roll_dice(app_context, BOB, expression="FRAPPE", rng=random.Random(2))
    assert bobs.result is not None and bobs.title == "🎲 Frappe du MJ"
    assert bobs.result["total"] == roll("1d6", random.Random(2)).total
    inside = await roll_dice(app_context, ALICE, expression="frappe+2", label="Charge", rng=random.Random(3))
    assert inside.result is not None and inside.result["total"] == roll("(1d10+6)+2", random.Random(3)).total
    assert inside.title == "🎲 Charge"
    listed = await svc.list_macros(app_context, ALICE)
    assert listed.result is not None
    assert listed.result["user"] == [{"name": "frappe", "expression": "1d10+BF # Frappe"}]
    assert "(pour vous, la vôtre la remplace)" in listed.fields[1].value
    replaced = await svc.create_macro(app_context, ALICE, name="FRAPPE", expression="1d10+BF+1 # Frappe")
    assert replaced.result is not None and not replaced.result["created"]
    assert "remplacée" in (replaced.description or "")
    deleted = await svc.delete_macro(app_context, ALICE, name="frappe")
    assert deleted.result is not None and deleted.result["deleted"]
    after = await roll_dice(app_context, ALICE, expression="frappe", rng=random.Random(2))
    assert after.title == "🎲 Frappe du MJ"


async def test_only_the_gm_writes_server_macros(app_context: AppContext) -> None:
    refused = await svc.create_macro(app_context, ALICE, name="cac", expression="1d100<=CC", server=True)
    assert refused.ephemeral and "Seul le MJ" in (refused.description or "")
    await svc.create_macro(app_context, GM, name="cac", expression="1d100<=CC", server=True)
    not_hers = await svc.delete_macro(app_context, ALICE, name="cac")
    assert "macro du serveur, pas la vôtre" in (not_hers.description or "")
    not_mine = await svc.delete_macro(app_context, BOB, name="cac", server=True)
    assert "Only the GM" in (not_mine.description or "")
    missing = await svc.delete_macro(app_context, BOB, name="nothing")
    assert "No macro “nothing”" in (missing.description or "")


async def test_macro_limits_and_bad_macros(app_context: AppContext, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(svc, "USER_MACROS_MAX", 2)
    for name in ("un", "deux"):
        ok = await svc.create_macro(app_context, ALICE, name=name, expression="1d6")
        assert ok.result is not None
    third = await svc.create_macro(app_context, ALICE, name="trois", expression="1d6")
    assert third.ephemeral and "déjà 2 macros" in (third.description or "")
    still = await svc.create_macro(app_context, ALICE, name="un", expression="1d8")  # a replacement
    assert still.result is not None and not still.result["created"]
    loop = await svc.create_macro(app_context, ALICE, name="boucle", expression="boucle+1")
    assert "ne peut pas s'utiliser elle-même" in (loop.description or "")
    cycle = await svc.create_macro(app_context, ALICE, name="un", expression="deux+1")
    assert cycle.result is not None  # un → deux is fine
    back = await svc.create_macro(app_context, ALICE, name="deux", expression="un*2")
    assert "se lancerait elle-même (deux → un → deux)" in (back.description or "")
    bad_name = await svc.create_macro(app_context, BOB, name="2d6", expression="1d6")
    assert "cannot be a macro name" in (bad_name.description or "")
    bad_expr = await svc.create_macro(app_context, BOB, name="big", expression="2000d6")
    assert "Too many dice" in (bad_expr.description or "")
    listed = await svc.list_macros(app_context, ALICE)
    assert listed.result is not None and len(listed.result["user"]) == 2


async def test_names_need_a_server_and_autocomplete_offers_macros(app_context: AppContext) -> None:
    dm = await roll_dice(app_context, ALICE_DM, expression="1d10+BF")
    assert dm.ephemeral and "que sur un serveur" in (dm.description or "")
    dm_macro = await svc.create_macro(app_context, ALICE_DM, name="x", expression="1d6")
    assert dm_macro.ephemeral
    await svc.create_macro(app_context, ALICE, name="frappe", expression="1d10+BF # Frappe")
    await svc.create_macro(app_context, GM, name="soin", expression="1d10", server=True)
    choices = await svc.macro_choices(app_context, ALICE, "fr")
    assert choices[0] == ("fr", "fr") and [value for _, value in choices[1:]] == ["frappe"]
    everything = await svc.macro_choices(app_context, ALICE, "")
    assert sorted(value for _, value in everything) == ["frappe", "soin"]
    assert "(serveur)" in next(label for label, value in everything if value == "soin")


async def test_a_long_expression_typed_is_not_offered_cut(app_context: AppContext) -> None:
    await svc.create_macro(app_context, ALICE, name="frappe", expression="1d10+BF")
    typed = "+".join(["1d6"] * 30)  # 119 characters: more than a choice holds
    assert await svc.macro_choices(app_context, ALICE, typed) == []
