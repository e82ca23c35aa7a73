"""``/combat annuler`` through the services: a wrong attack taken back (its buttons then refused),
who may undo what, sheets written by a permanent change or a destiny point put back, a sheet edited
since refusing the undo, the tracker's confirmation, the end of the fight ignoring undone events."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import select

from bot.context import AppContext
from bot.db import fight_journal
from bot.db.fight_models import Fight, FightAction, FightEvent
from bot.db.models import Character
from bot.services.caller import Caller
from bot.services.fights import attacks as fights_attacks
from bot.services.fights.attacks import AttackInput
from bot.services.fights.conditions import edit_condition
from bot.services.fights.damage import answer_proposal
from bot.services.fights.defence import defend
from bot.services.fights.ending import end_fight
from bot.services.fights.opening import add_combatants, open_fight
from bot.services.fights.rounds import new_round, set_posture
from bot.services.fights.undo import preview, undo
from bot.services.flows.fortune import destiny

from .fight_context import ctx, ok
from .test_fights_extra import ALICE, GM, STATS, NoDice, character, refused

__all__ = ["ctx"]

BOB_EN = Caller(user_id=2, guild_id=ALICE.guild_id, channel_id=ALICE.channel_id, locale="en-US")


async def _state(ctx: AppContext) -> tuple[dict[str, Any], int]:
    async with ctx.sessions() as session:
        row = (await session.scalars(select(Fight))).one()
        return fight_journal.document(row.state), row.round


async def _sheet(ctx: AppContext, name: str) -> dict[str, Any]:
    async with ctx.sessions() as session:
        row = (await session.scalars(select(Character).where(Character.name == name))).one()
        return fight_journal.sheet_values(row)


async def _table(ctx: AppContext) -> int:
    """Gunther (Alice's PC) and Élise (Bob's PC) against a goblin, round 1, Gunther first."""
    await character(ctx, ALICE.user_id, "Gunther", CC=40)
    await character(ctx, BOB_EN.user_id, "Élise", CC=35)
    fight_id = int(ok(await open_fight(ctx, GM, name="Auberge"))["fight_id"])
    ok(await add_combatants(ctx, ALICE, who="Gunther"))
    ok(await add_combatants(ctx, BOB_EN, who="Élise"))
    ok(await add_combatants(ctx, GM, who="gobelin"))
    ok(await new_round(ctx, GM, dice="Gunther: 10 10 10; Élise: 5 5 5; Gobelin: 1 1 1"))
    return fight_id


async def test_the_gm_undoes_a_wrong_attack_and_its_defence_buttons_are_refused(ctx: AppContext) -> None:
    fight_id = await _table(ctx)
    before = await _state(ctx)
    # the GM means the goblin's attack but Gunther is on his turn: asked who acts, he picks Gunther
    # by mistake, and confirms the attack on an ally by mistake too
    asked = ok(await fights_attacks.attack(ctx, GM, AttackInput(target="Élise", roll=20), rng=NoDice()))
    ally = ok(
        await fights_attacks.answer_ask(
            ctx, GM, fight_id=fight_id, number=asked["ask"], accept=True, actor="Gunther"
        )
    )
    wrong = await fights_attacks.answer_ask(ctx, GM, fight_id=fight_id, number=ally["ask"], accept=True)
    seq = ok(wrong)["seq"]
    assert (await _state(ctx)) != before and ok(wrong)["pending"]

    undone = await undo(ctx, GM)
    assert (undone.reply.description or "").splitlines() == [
        "↩️ Annulé : l'attaque de Gunther sur Élise (action n° 5).",
        "▶ Au tour de **Gunther**.",  # his turn again: the attack he meant is still his to make
    ]
    assert not undone.reply.ephemeral and ok(undone)["undone"] == [5]
    assert (await _state(ctx)) == before  # no pending defence, Gunther's attack not spent
    assert undone.tracker is not None and undone.tracker_message_id is None  # the cog edits the tracker

    # the attack's buttons (its defence) are refused, saying why; the event stays, marked undone
    late = await defend(ctx, BOB_EN, choice="parer", fight_id=fight_id, seq=seq)
    refused(late, "This attack was undone")
    async with ctx.sessions() as session:
        event = (await session.scalars(select(FightEvent).where(FightEvent.seq == seq))).one()
        assert event.kind == "attack" and event.undone
        action = (await session.scalars(select(FightAction).where(FightAction.number == 5))).one()
        assert action.undone_at is not None and action.undone_by == GM.user_id

    # the right attack then gets a new number: the undone one's is never given again
    right = ok(await fights_attacks.attack(ctx, ALICE, AttackInput(target="Gobelin", roll=20), rng=NoDice()))
    assert right["seq"] > seq
    again = await undo(ctx, GM)
    first = again.reply.description.splitlines()[0]
    assert first == "↩️ Annulé : l'attaque de Gunther sur Gobelin (action n° 6)."


async def test_the_gm_undoes_several_actions_newest_first(ctx: AppContext) -> None:
    await _table(ctx)
    start = await _state(ctx)
    ok(await set_posture(ctx, BOB_EN, posture="prudente"))
    ok(await edit_condition(ctx, GM, who="Gobelin", op="add", stat="CC", value=-10, rounds=2))
    result = await undo(ctx, GM, count=5)
    assert (result.reply.description or "").splitlines() == [
        "↩️ 5 actions annulées, de la plus récente à la plus ancienne :",
        "• la modification des états de Gobelin (action n° 6)",
        "• la posture d'Élise (action n° 5)",
        "• le début du round 1 (action n° 4)",
        "• l'ajout de Gobelin (action n° 3)",
        "• l'ajout d'Élise (action n° 2)",
    ]
    assert (await _state(ctx)) != start
    [gunther] = (await _state(ctx))[0]["fight"]["combatants"]
    assert gunther["name"] == "Gunther"
    last = await undo(ctx, GM, count=3)
    assert (last.reply.description or "").splitlines() == [
        "↩️ Annulé : l'ajout de Gunther (action n° 1).",
        "Il n'y avait qu'une action à annuler.",
    ]
    refused(await undo(ctx, GM), "Rien à annuler")


async def test_a_player_undoes_only_his_own_latest_action(ctx: AppContext) -> None:
    await _table(ctx)
    ok(await set_posture(ctx, ALICE, posture="prudente"))
    refused(await undo(ctx, BOB_EN), "only undo your own action, and only while it is the fight's latest")
    refused(await undo(ctx, ALICE, count=2), "une à la fois")
    ok(await set_posture(ctx, BOB_EN, posture="defensive"))
    # Alice's posture is no longer the latest: something came after it
    text = (await undo(ctx, ALICE)).reply.description or ""
    assert "la dernière est la posture d'Élise (action n° 6). Demandez au MJ." in text
    mine = await undo(ctx, BOB_EN)
    assert mine.reply.description.splitlines()[0] == "↩️ Undone: Élise's posture (action no. 6)."
    # now Alice's is the latest again, and hers
    assert (await undo(ctx, ALICE)).reply.description.splitlines()[
        0
    ] == "↩️ Annulé : la posture de Gunther (action n° 5)."
    refused(await undo(ctx, ALICE), "la dernière est le début du round 1 (action n° 4)")


async def _soc_proposal(ctx: AppContext) -> tuple[int, int]:
    """A goblin's critical to Rudolf's head proposes Soc −10 (test_fights_extra's case)."""
    await character(ctx, ALICE.user_id, "Rudolf", CC=30, E=40)
    fight_id = int(ok(await open_fight(ctx, GM, name="Ruelle"))["fight_id"])
    ok(await add_combatants(ctx, ALICE, who="Rudolf"))
    ok(await add_combatants(ctx, GM, who="gobelin"))
    ok(await new_round(ctx, GM, dice="Gobelin: 10 10 10; Rudolf: 1 1 1"))
    attack = ok(
        await fights_attacks.attack(
            ctx, GM, AttackInput(target="Rudolf", roll=5, damage="9", critical=55), rng=NoDice()
        )
    )
    taken = ok(
        await defend(ctx, ALICE, choice="encaisser", fight_id=fight_id, seq=attack["seq"], rng=NoDice())
    )
    return fight_id, int(taken["proposals"][0])


async def test_a_permanent_change_written_on_the_sheet_is_undone_with_its_action(ctx: AppContext) -> None:
    fight_id, soc = await _soc_proposal(ctx)
    sheet, state = await _sheet(ctx, "Rudolf"), await _state(ctx)
    ok(await answer_proposal(ctx, GM, fight_id=fight_id, number=soc, accept=True))
    assert (await _sheet(ctx, "Rudolf"))["characteristics"]["Soc"] == STATS["Soc"] - 10
    result = await undo(ctx, GM)
    assert (
        result.reply.description.splitlines()[0]
        == "↩️ Annulé : la réponse au changement permanent de Rudolf (action n° 6)."
    )
    assert (await _sheet(ctx, "Rudolf")) == sheet and (await _state(ctx)) == state  # proposal open again
    # the critical itself, then: the hit and its conditions go, the attack is pending again
    hit = await undo(ctx, GM)
    assert hit.reply.description.splitlines()[0] == "↩️ Annulé : la défense de Rudolf (action n° 5)."
    assert list((await _state(ctx))[0]["pending"]) != []


async def test_a_sheet_edited_since_the_action_refuses_the_undo(ctx: AppContext) -> None:
    fight_id, soc = await _soc_proposal(ctx)
    ok(await answer_proposal(ctx, GM, fight_id=fight_id, number=soc, accept=True))
    async with ctx.sessions.begin() as session:  # /perso modifier after the fight wrote the sheet
        row = (await session.scalars(select(Character).where(Character.name == "Rudolf"))).one()
        row.characteristics = {**row.characteristics, "Soc": 50}
    state = await _state(ctx)
    refused(await undo(ctx, GM), "La fiche de Rudolf a changé depuis l'action n° 6")
    assert (await _state(ctx)) == state and (await _sheet(ctx, "Rudolf"))["characteristics"]["Soc"] == 50


async def test_a_destiny_point_against_death_is_undone_by_its_player(ctx: AppContext) -> None:
    await _table(ctx)
    async with ctx.sessions.begin() as session:
        row = (await session.scalars(select(Character).where(Character.name == "Gunther"))).one()
        row.characteristics = {**row.characteristics, "PD": 1}
    ok(await edit_condition(ctx, GM, who="Gunther", op="add", kind="dead"))
    sheet, state = await _sheet(ctx, "Gunther"), await _state(ctx)
    spent = await destiny(ctx, ALICE, against="death", character="Gunther")
    assert not spent.reply.is_error, spent.reply.description
    assert (await _sheet(ctx, "Gunther"))["characteristics"]["PD"] == 0
    result = await undo(ctx, ALICE)
    first = result.reply.description.splitlines()[0]
    assert first == "↩️ Annulé : le point de destin de Gunther (action n° 6)."
    assert (await _sheet(ctx, "Gunther")) == sheet and (await _state(ctx)) == state  # dead again, PD 1


async def test_the_trackers_undo_button_asks_the_gm_to_confirm_that_action(ctx: AppContext) -> None:
    fight_id = await _table(ctx)
    ok(await set_posture(ctx, ALICE, posture="prudente"))
    refused(await preview(ctx, ALICE, fight_id=fight_id), "Seul le MJ annule depuis le suivi")
    asked = await preview(ctx, GM, fight_id=fight_id)
    assert asked.reply.ephemeral and asked.reply.description == (
        "Annuler l'action n° 5 : la posture de Gunther ? "
        "Le combat et les fiches reviendront exactement à l'état d'avant."
    )
    [[button]] = asked.reply.buttons
    assert button.custom_id == f"melee:fight:{fight_id}:undo:ok:5"
    assert (await _state(ctx))[0]["fight"]["combatants"][0]["posture"] == "prudente"  # nothing yet

    # something happened between the question and the click: that is not undone
    ok(await set_posture(ctx, BOB_EN, posture="defensive"))
    refused(await undo(ctx, GM, fight_id=fight_id, number=5), "L'action n° 5 n'est plus la dernière")
    ok(await undo(ctx, GM, fight_id=fight_id, number=6))
    refused(await undo(ctx, GM, fight_id=fight_id, number=6), "L'action n° 6 est déjà annulée")


async def test_the_end_of_the_fight_ignores_undone_hits(ctx: AppContext) -> None:
    fight_id, _ = await _soc_proposal(ctx)
    await undo(ctx, GM, count=2)  # the critical to Rudolf's head never happened
    end = ok(await end_fight(ctx, GM))
    assert end["written"] == []
    assert (await _sheet(ctx, "Rudolf"))["wounds"]["wounds"] == []
    refused(await undo(ctx, GM), "Aucun combat ouvert ici")  # the fight is over: no undo any more
    async with ctx.sessions() as session:
        row = await session.get(Fight, fight_id)
        assert row is not None and row.status == "closed"


def test_the_reverse_patch_turns_any_document_back() -> None:
    old = {"a": [1, {"b": 2}, 3], "c": {"d": None}, "e": "x", "g": [1, 2]}
    for new in (
        {"a": [1, {"b": 3}], "c": {"d": 1, "z": 2}, "f": 1, "g": []},
        {"a": [0, {"b": 2}, 3, 4, 5], "c": [], "e": "y", "g": [2, 1]},
        {},
        old,
    ):
        change = fight_journal.diff(new, old)
        assert fight_journal.patch(new, change) == old
        assert fight_journal.patch(fight_journal.plain(new), change) == old
    assert fight_journal.diff({"a": 1, "b": [1, 2]}, {"a": 1, "b": [1, 3]}) == {
        "d": {"b": {"l": {"1": {"=": 3}}, "n": 2, "t": []}},
        "x": [],
    }


async def test_two_confirmations_at_once_undo_one_action(ctx: AppContext) -> None:
    """The GM's two clicks on the same confirmation (or two GMs): one undo, the other refused."""
    fight_id = await _table(ctx)
    ok(await set_posture(ctx, ALICE, posture="prudente"))
    first, second = await asyncio.gather(
        undo(ctx, GM, fight_id=fight_id, number=5), undo(ctx, GM, fight_id=fight_id, number=5)
    )
    results = sorted([first, second], key=lambda o: o.reply.is_error)
    assert ok(results[0])["undone"] == [5]
    refused(results[1], "L'action n° 5 est déjà annulée")
    async with ctx.sessions() as session:
        live = (await session.scalars(select(FightAction).where(FightAction.undone_at.is_(None)))).all()
    assert [a.number for a in live] == [1, 2, 3, 4]


async def test_the_undo_button_kind_is_dispatched_to_the_preview_then_the_undo(ctx: AppContext) -> None:
    from bot.cogs.combat import HANDLERS

    fight_id = await _table(ctx)
    ok(await set_posture(ctx, ALICE, posture="prudente"))
    handler = HANDLERS["undo"]
    assert (
        handler(ctx, GM, fight_id, "ok", "x", ()) is None
        and handler(ctx, GM, fight_id, "no", "5", ()) is None
    )
    pressed = handler(ctx, GM, fight_id, None, None, ())
    assert pressed is not None
    asked = await pressed
    [[button]] = asked.reply.buttons
    _, _, _, kind, a, b = button.custom_id.split(":")
    confirmed = handler(ctx, GM, fight_id, a, b, ())
    assert kind == "undo" and confirmed is not None
    first = (await confirmed).reply.description.splitlines()[0]
    assert first == "↩️ Annulé : la posture de Gunther (action n° 5)."


async def test_the_journal_records_only_what_a_commit_really_writes(ctx: AppContext) -> None:
    """A fight changed in place in memory (never assigned, so never written) is no action; a read
    is none; a fight assigned a new document is one, numbered after the others."""
    await _table(ctx)

    async def actions() -> list[int]:
        async with ctx.sessions() as session:
            return [a.number for a in (await session.scalars(select(FightAction))).all()]

    assert await actions() == [1, 2, 3, 4]
    async with ctx.sessions.begin() as session:
        row = (await session.scalars(select(Fight))).one()
        row.state["pending"] = {"99": {}}  # in place: SQLAlchemy does not see it, nothing is written
    async with ctx.sessions.begin() as session:
        (await session.scalars(select(Fight))).one()
    assert await actions() == [1, 2, 3, 4]
    async with ctx.sessions.begin() as session:
        row = (await session.scalars(select(Fight))).one()
        row.state = {**row.state, "options": {"mort_subite": True}}
    assert await actions() == [1, 2, 3, 4, 5]
    assert (await undo(ctx, GM)).reply.description.splitlines()[
        0
    ] == "↩️ Annulé : une modification du combat (action n° 5)."
    assert (await _state(ctx))[0]["options"] == {"mort_subite": False}
