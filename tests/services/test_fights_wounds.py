"""What a fight leaves on the sheets, on real databases, every die entered by hand: Grimli loses
fingers (tranchantes, bras 11: an open wound) and an eye (tête 13, its death timer runs out: dead),
a destiny point saves him in the fight (the eye stays lost), the GM gives him 2 Points de Folie;
``/combat fin`` writes it all on the sheet; ``/infection test`` then reads the open wounds."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from bot.context import AppContext
from bot.db.characters import new_row
from bot.db.fight_models import Fight
from bot.db.models import Character
from bot.rules.sheets import SheetData
from bot.rules.wounds import WoundSheet
from bot.services.caller import Caller
from bot.services.characters import edit_character, show_character
from bot.services.fights import attacks as fights_attacks
from bot.services.fights.attacks import AttackInput
from bot.services.fights.conditions import correct
from bot.services.fights.defence import defend
from bot.services.fights.ending import end_fight
from bot.services.fights.opening import add_combatants, attach_thread, open_fight
from bot.services.flows.fortune import destiny
from bot.services.flows.infection import infection_test

from .fight_context import ctx, next_round, ok, skip_turn

__all__ = ["ctx"]

GUILD, CHANNEL, THREAD, TRACKER = 810, 43, 4300, 4301
GM = Caller(user_id=3, guild_id=GUILD, channel_id=CHANNEL, locale="fr", manage_guild=True)
ALICE = Caller(user_id=1, guild_id=GUILD, channel_id=CHANNEL, locale="fr")
ALICE_EN = Caller(user_id=1, guild_id=GUILD, channel_id=CHANNEL, locale="en-US")
STATS = {"CC": 40, "CT": 30, "F": 35, "E": 40, "Ag": 35, "Int": 30, "FM": 30, "Soc": 30, "A": 1, "M": 4}
STATS_RENOVE = {**STATS, "BF": 6, "BE": 7, "PD": 1, "Fortune": 1, "PF": 1}


class NoDice:
    def randint(self, a: int, b: int) -> int:
        raise AssertionError(f"unexpected bot roll d{b}")


async def grimli(ctx: AppContext) -> None:
    data = SheetData(name="Grimli", ruleset="renove", characteristics=dict(STATS_RENOVE), weapons=["epee"])
    async with ctx.sessions.begin() as session:
        session.add(new_row(GUILD, ALICE.user_id, data))


async def sheet(ctx: AppContext) -> Character:
    async with ctx.sessions() as session:
        row = (await session.scalars(select(Character).where(Character.name == "Grimli"))).one()
        session.expunge(row)
        return row


async def hit(
    ctx: AppContext, fight_id: int, zone: str, damage: str, critical: int, **dice: str
) -> dict[str, Any]:
    attack = ok(
        await fights_attacks.attack(
            ctx,
            GM,
            AttackInput(
                target="Grimli", attacker="Orque", roll=5, zone=zone, damage=damage, critical=critical, **dice
            ),
            rng=NoDice(),
        )
    )
    return ok(await defend(ctx, GM, choice="encaisser", fight_id=fight_id, seq=attack["seq"], rng=NoDice()))


async def fought(ctx: AppContext, *, saved: bool) -> int:
    """Grimli's fight: fingers lost (round 1), an eye lost and a death timer of 1 round (round 2) that
    kills him when the round ends; with ``saved``, a destiny point gets him back up."""
    await grimli(ctx)
    fight_id = int(ok(await open_fight(ctx, GM, name="Embuscade"))["fight_id"])
    await attach_thread(ctx, GM, fight_id, thread_id=THREAD, message_id=TRACKER)
    ok(await add_combatants(ctx, ALICE, who="Grimli"))
    ok(await add_combatants(ctx, GM, who="orque"))
    ok(await next_round(ctx, GM, dice="Orque: 10 10 10; Grimli: 1 1 1"))
    # damage 7 (the die 7, the orc's BF 7 against Grimli's BE 7), d100 5 → tranchantes, bras 11
    fingers = await hit(ctx, fight_id, "bras", "7", 5)
    assert fingers["critical"]["source"] == "criticals.tranchantes.bras.11"
    ok(await skip_turn(ctx, GM))
    ok(await next_round(ctx, GM, dice="Orque: 10 10 10; Grimli: 1 1 1"))
    # damage 10, d100 85 → tête 13: the eye is lost, death within 1d10/2 rounds (a 2 → 1 round)
    eye = await hit(ctx, fight_id, "tete", "10", 85, durations="2")
    assert eye["critical"]["source"] == "criticals.tranchantes.tete.13"
    ok(await skip_turn(ctx, GM))  # the round ends: the death timer runs out
    async with ctx.sessions() as session:
        row = await session.get(Fight, fight_id)
        assert row is not None
        [state] = [c for c in row.state["fight"]["combatants"] if c["name"] == "Grimli"]
        assert any(c["kind"] == "dead" for c in state["conditions"])
    ok(await correct(ctx, GM, who="Grimli", field_name="PF", value=3))  # 1 on the sheet, 2 gained
    if saved:
        spent = await destiny(ctx, ALICE, against="death", character="Grimli")
        assert not spent.reply.is_error, spent.reply.description
        result = spent.reply.result or {}
        assert result["revived_in_fight"] == "Embuscade" and result["left"] == 0
        assert "Grimli se relève dans le combat « Embuscade »" in (spent.reply.description or "")
        board = spent.board  # the tracker to edit, Grimli alive on it
        assert board is not None and (board.channel_id, board.message_id) == (THREAD, TRACKER)
        assert "💀" not in str(board.reply.fields) + (board.reply.description or "")
        async with ctx.sessions() as session:
            row = await session.get(Fight, fight_id)
            assert row is not None
            [state] = [c for c in row.state["fight"]["combatants"] if c["name"] == "Grimli"]
            kinds = [c["kind"] for c in state["conditions"]]
            assert "dead" not in kinds and "disabled" in kinds  # alive; the eye stays lost
    return fight_id


async def test_a_pc_killed_then_saved_with_destiny_is_alive_and_his_wounds_are_on_the_sheet(
    ctx: AppContext,
) -> None:
    await fought(ctx, saved=True)
    end = ok(await end_fight(ctx, GM))
    [written] = end["written"]
    assert written["name"] == "Grimli"
    assert written["parts"] == [
        "bras : doigts perdus ; plaie ouverte au bras",
        "tête : œil perdu ; plaie ouverte à la tête",
        "2 Points de Folie",
    ]
    row = await sheet(ctx)
    record = WoundSheet.from_dict(row.wounds)
    assert record.dead is None
    assert [(w.number, w.zone, w.value, w.lost, w.open) for w in record.wounds] == [
        (1, "bras", 11, ("fingers",), True),
        (2, "tete", 13, ("eye",), True),
    ]
    assert all(w.fight == "Embuscade" for w in record.wounds)
    assert row.characteristics["PF"] == 3 and row.characteristics["PD"] == 0
    shown = await show_character(ctx, ALICE, name="Grimli")
    [field] = [f for f in shown.fields if f.name == "Blessures et séquelles"]
    assert field.value.splitlines() == [
        "**1** · bras (tranchantes 11, Embuscade) : doigts perdus ; plaie ouverte au bras",
        "**2** · tête (tranchantes 13, Embuscade) : œil perdu ; plaie ouverte à la tête",
    ]
    english = await show_character(ctx, ALICE_EN, name="Grimli")
    [field] = [f for f in english.fields if f.name == "Wounds and lasting effects"]
    assert (
        field.value.splitlines()[0]
        == "**1** · arms (edged 11, Embuscade): fingers lost; open wound to the arm"
    )

    # /infection test without critique: one test per open wound, each with its critical's value
    tested = await infection_test(ctx, ALICE, character="Grimli", rolls="20 95")
    assert not tested.reply.is_error, tested.reply.description
    wounds = (tested.reply.result or {})["wounds"]
    assert [(w["wound"], w["critical"]) for w in wounds] == [(1, 11), (2, 13)]
    # E 40, very deep wounds (10-15): −20 → 20; 20 succeeds, 95 fails
    assert [w["test"]["target"] for w in wounds] == [20, 20]
    assert [w["infected"] for w in wounds] == [False, True]
    assert tested.reply.title == "🩹 Infection — Grimli (2 plaies ouvertes)"
    record = WoundSheet.from_dict((await sheet(ctx)).wounds)
    assert [w.infection for w in record.wounds] == ["clean", wounds[1]["outcome"]]
    again = await infection_test(ctx, ALICE, character="Grimli")
    assert again.reply.is_error and "Aucune plaie ouverte à tester sur la fiche de Grimli" in (
        again.reply.description or ""
    )

    # the GM edits the wounds: a note, one cleared; a player may not
    refused = await edit_character(ctx, ALICE, name="Grimli", wounds="-1")
    assert refused.is_error
    edited = await edit_character(ctx, GM, name="Grimli", wounds="1:deux doigts, main gauche; -2")
    assert not edited.is_error, edited.description
    record = WoundSheet.from_dict((await sheet(ctx)).wounds)
    assert [(w.number, w.note) for w in record.wounds] == [(1, "deux doigts, main gauche")]
    bad = await edit_character(ctx, GM, name="Grimli", wounds="-7")
    assert bad.is_error and "Pas de blessure n° 7" in str(bad)


async def test_a_pc_dead_at_the_end_is_dead_on_the_sheet_until_the_gm_or_destiny(ctx: AppContext) -> None:
    await fought(ctx, saved=False)
    end = ok(await end_fight(ctx, GM))
    assert end["dead"] == ["Grimli"]
    [written] = end["written"]
    assert written["parts"][-1] == "décès"
    record = WoundSheet.from_dict((await sheet(ctx)).wounds)
    assert record.dead is not None and record.dead.cause == "criticals.tranchantes.tete.13"
    shown = await show_character(ctx, ALICE, name="Grimli")
    [field] = [f for f in shown.fields if f.name == "Blessures et séquelles"]
    assert field.value.splitlines()[0].startswith("💀 Mort : critique tranchantes, tête, 13 (Embuscade, ")
    # the player may not revive him by hand; a destiny point may (the wounds stay)
    refused = await edit_character(ctx, ALICE, name="Grimli", alive=True)
    assert refused.is_error
    spent = await destiny(ctx, ALICE, against="death", character="Grimli")
    result = spent.reply.result or {}
    assert result["revived_on_sheet"] and result["revived_in_fight"] is None and spent.board is None
    record = WoundSheet.from_dict((await sheet(ctx)).wounds)
    assert record.dead is None and len(record.wounds) == 2
    not_dead = await edit_character(ctx, GM, name="Grimli", alive=True)
    assert not_dead.is_error


async def test_the_gm_brings_a_dead_character_back(ctx: AppContext) -> None:
    await fought(ctx, saved=False)
    ok(await end_fight(ctx, GM))
    revived = await edit_character(ctx, GM, name="Grimli", alive=True)
    assert not revived.is_error, revived.description
    row = await sheet(ctx)
    assert WoundSheet.from_dict(row.wounds).dead is None and row.characteristics["PD"] == 1
