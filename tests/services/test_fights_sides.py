"""Sides and NPCs that defend by themselves (issue 18): an attack on an ally asks first and spends
nothing until confirmed, « Annuler » leaves the fight as it was, the GM on a PC's turn is asked
which fighter acts, NPCs in ``auto`` defend at once with their best legal choice (seeded and with the
die typed by hand), a lapsed wait lets the attacker's player make the NPC defend at his best, and
the defence buttons are only the legal ones."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, select

from bot.context import AppContext
from bot.db.characters import new_row
from bot.db.fight_models import Fight, FightAction, FightEvent
from bot.db.repositories import set_channel_ruleset
from bot.rules.sheets import SheetData
from bot.services.caller import Caller
from bot.services.fights import attacks as fights_attacks
from bot.services.fights._core import DefenceRolls, FightOutcome
from bot.services.fights.actions import take_simple_action
from bot.services.fights.attacks import AttackInput
from bot.services.fights.defence import defend
from bot.services.fights.ending import show
from bot.services.fights.npc_defence import best_choice, set_npc_defence
from bot.services.fights.opening import add_combatants, open_fight
from bot.services.fights.roster import NpcStats
from bot.services.fights.rounds import new_round, set_posture
from bot.services.fights.sides import cancel_ask, set_side
from bot.services.fights.systems import check_complete

from .fight_context import ctx, ok

__all__ = ["ctx"]

GUILD, CHANNEL = 820, 44
GM = Caller(user_id=3, guild_id=GUILD, channel_id=CHANNEL, locale="fr", manage_guild=True)
ALICE = Caller(user_id=1, guild_id=GUILD, channel_id=CHANNEL, locale="fr")
BOB = Caller(user_id=2, guild_id=GUILD, channel_id=CHANNEL, locale="en-US")
STATS = {
    "CT": 30,
    "F": 35,
    "E": 40,
    "Ag": 35,
    "Int": 30,
    "FM": 30,
    "Soc": 30,
    "A": 1,
    "M": 4,
    "BF": 6,
    "BE": 7,
}
# Grimli acts first, then Bretteur, Élise, Acrobate
ORDER = "Grimli: 20 20 20; Bretteur: 15 15 15; Élise: 10 10 10; Acrobate: 1 1 1"
# a parrying NPC (CC 50, no Esquive) and a dodging one (CC 10, Ag 60 and Esquive +20)
PARRIER = NpcStats(cc=50, f=30, e=30, ag=30, weapons="epee")
DODGER = NpcStats(cc=10, f=30, e=30, ag=60, weapons="epee", caracs="Esquive:20")


class NoDice:
    """Every die is entered by hand: the bot must not roll."""

    def randint(self, a: int, b: int) -> int:
        raise AssertionError(f"unexpected bot roll d{b}")


async def character(ctx: AppContext, owner: int, name: str, cc: int) -> None:
    data = SheetData(
        name=name,
        ruleset="renove",
        characteristics={**STATS, "CC": cc},
        weapons=["epee"],
        profile={"race": "humain"},
    )
    async with ctx.sessions.begin() as session:
        session.add(new_row(GUILD, owner, data))


async def table(ctx: AppContext, *, npc_defence: str | None = None, channel: int = CHANNEL) -> int:
    """Élise (Alice) and Grimli (Bob) against two NPCs; round 1 started."""
    gm, alice, bob = (replace(c, channel_id=channel) for c in (GM, ALICE, BOB))
    if channel == CHANNEL:
        await character(ctx, ALICE.user_id, "Élise", 40)
        await character(ctx, BOB.user_id, "Grimli", 30)
    fight = ok(await open_fight(ctx, gm, name="Embuscade", npc_defence=npc_defence))
    ok(await add_combatants(ctx, alice, who="Élise"))
    ok(await add_combatants(ctx, bob, who="Grimli"))
    ok(await add_combatants(ctx, gm, who="Bretteur", stats=PARRIER))
    ok(await add_combatants(ctx, gm, who="Acrobate", stats=DODGER))
    ok(await new_round(ctx, gm, dice=ORDER))
    return int(fight["fight_id"])


async def state(ctx: AppContext) -> dict[str, Any]:
    return dict(ok(await show(ctx, GM)))


async def count_events(ctx: AppContext, kind: str) -> int:
    async with ctx.sessions() as session:
        return int(
            await session.scalar(select(func.count()).select_from(FightEvent).where(FightEvent.kind == kind))
            or 0
        )


def ids(reply_buttons: Any) -> list[str]:
    return [b.custom_id for row in reply_buttons for b in row]


def refused(outcome: FightOutcome, text: str) -> None:
    assert outcome.reply.is_error and outcome.reply.ephemeral, outcome.reply
    assert text in (outcome.reply.description or ""), outcome.reply.description


async def test_an_attack_on_an_ally_asks_and_spends_nothing_until_confirmed(ctx: AppContext) -> None:
    fid = await table(ctx)
    before = await state(ctx)
    asked = await fights_attacks.attack(ctx, BOB, AttackInput(target="Élise", roll=20), rng=NoDice())
    reply = asked.reply
    assert not reply.is_error and reply.ephemeral and reply.kind == "combat.ask"
    assert reply.title == "⚠️ Grimli attacks an ally: confirm?"
    assert "same side (PC)" in (reply.description or "")
    number = ok(asked)["ask"]
    assert ids(reply.buttons) == [f"melee:fight:{fid}:ask:{number}:ok", f"melee:fight:{fid}:ask:{number}:no"]
    after = await state(ctx)
    assert after["state"] == before["state"] and after["pending"] == []
    assert await count_events(ctx, "attack") == 0
    # Élise's player cannot answer Bob's question
    refused(
        await fights_attacks.answer_ask(ctx, ALICE, fight_id=fid, number=number, accept=True),
        "Seul celui qui a lancé l'action",
    )
    done = ok(await fights_attacks.answer_ask(ctx, BOB, fight_id=fid, number=number, accept=True))
    assert (
        done["attacker"] == "grimli" and done["target"] == "elise" and done["attack"]["check"]["roll"] == 20
    )
    assert await count_events(ctx, "attack") == 1
    # answered: a second click is refused
    refused(
        await fights_attacks.answer_ask(ctx, BOB, fight_id=fid, number=number, accept=True),
        "answered already",
    )


async def test_cancel_leaves_the_fight_as_it_was(ctx: AppContext) -> None:
    fid = await table(ctx)
    before = await state(ctx)
    asked = ok(await fights_attacks.attack(ctx, BOB, AttackInput(target="Élise")))
    cancelled = await fights_attacks.answer_ask(ctx, BOB, fight_id=fid, number=asked["ask"], accept=False)
    assert cancelled.reply.description == "Attack cancelled: nothing changed." and cancelled.reply.ephemeral
    assert (await state(ctx))["state"] == before["state"]
    assert await count_events(ctx, "attack") == 0
    refused(await cancel_ask(ctx, BOB, fight_id=fid, number=asked["ask"]), "answered already")
    # the question and its « Annuler » are not actions: the undo takes back the round, not them
    async with ctx.sessions() as session:
        numbers = (await session.scalars(select(FightAction.number).where(FightAction.fight_id == fid))).all()
    assert len(numbers) == 5  # four fighters added, the round
    # Grimli still has his turn: he attacks Bretteur, no question
    hit = ok(await fights_attacks.attack(ctx, BOB, AttackInput(target="Bretteur", roll=95), rng=NoDice()))
    assert hit["attacker"] == "grimli" and not hit["attack"]["hit"]


async def test_sides_named_by_the_gm_make_allies_and_enemies(ctx: AppContext) -> None:
    await table(ctx)
    moved = ok(await set_side(ctx, GM, who="Acrobate", side="Bandits"))
    assert moved["camp"] == "bandits"
    # Grimli's turn is over when he attacks; the two NPCs are no longer allies of each other
    ok(await fights_attacks.attack(ctx, BOB, AttackInput(target="Bretteur", roll=95), rng=NoDice()))
    shot = ok(await fights_attacks.attack(ctx, GM, AttackInput(target="Acrobate", roll=95), rng=NoDice()))
    assert shot["attacker"] == "bretteur" and shot["target"] == "acrobate"
    # an NPC put back on « PNJ » is on its default side again; a PC on « PNJ » is the NPCs' ally
    back = await set_side(ctx, GM, who="Acrobate", side="pnj")
    assert back.reply.description == "Camp PNJ : Acrobate."
    turned = ok(await set_side(ctx, GM, who="Élise", side="PNJ"))
    assert turned["camp"] == "pnj"
    bad = await set_side(ctx, GM, who="Élise", side="<@1>")
    refused(bad, "Un nom de camp")
    refused(await set_side(ctx, ALICE, who="Élise", side="PJ"), "MJ")


async def test_sides_given_on_add_are_said_in_the_reply(ctx: AppContext) -> None:
    ok(await open_fight(ctx, GM, name="Embuscade"))
    bandits = await add_combatants(ctx, GM, who="2 bandits", stats=PARRIER, side="Bandits", defence="auto")
    text = bandits.reply.description or ""
    assert "Camp : Bandits" in text and "Défense : automatique (le meilleur choix)" in text
    added = ok(bandits)["added"]
    assert [c["side"] for c in added] == ["Bandits", "Bandits"]
    goblin = await add_combatants(ctx, GM, who="gobelin")
    assert "Camp : PNJ" in (goblin.reply.description or "")
    await character(ctx, ALICE.user_id, "Élise", 40)
    refused(await add_combatants(ctx, GM, who="Élise", defence="auto"), "Élise est un PJ")
    refused(await add_combatants(ctx, ALICE, who="Élise", side="Garde"), "MJ")


async def test_the_gm_on_a_pcs_turn_is_asked_which_fighter_acts(ctx: AppContext) -> None:
    fid = await table(ctx)
    before = await state(ctx)
    # the bug: the GM means Bretteur's attack, but it is Grimli's turn
    asked = await fights_attacks.attack(ctx, GM, AttackInput(target="Élise", roll=20), rng=NoDice())
    reply = asked.reply
    assert reply.ephemeral and reply.kind == "combat.ask" and not reply.is_error
    assert reply.description == "C'est le tour du PJ Grimli. Qui attaque Élise ?"
    [menu] = reply.selects
    assert menu.custom_id == f"melee:fight:{fid}:askwho:{ok(asked)['ask']}"
    assert [(o.value, o.description) for o in menu.options] == [
        ("grimli", "son tour (PJ)"),
        ("bretteur", "PNJ"),
        ("acrobate", "PNJ"),
    ]
    assert (await state(ctx))["state"] == before["state"]
    # Bretteur cannot act on Grimli's turn: said plainly, the question stays open
    number = ok(asked)["ask"]
    refused(
        await fights_attacks.answer_ask(ctx, GM, fight_id=fid, number=number, accept=True, actor="bretteur"),
        "Ce n'est pas à Bretteur de jouer : c'est au tour de Grimli.",
    )
    # the GM plays Grimli's turn for Bob: Élise is his ally, so the second question follows
    ally = ok(
        await fights_attacks.answer_ask(ctx, GM, fight_id=fid, number=number, accept=True, actor="grimli")
    )
    assert ally["kind"] == "attack" and ally["attacker"] == "grimli"
    done = ok(await fights_attacks.answer_ask(ctx, GM, fight_id=fid, number=ally["ask"], accept=True))
    assert done["attacker"] == "grimli" and done["target"] == "elise"


async def test_on_an_npcs_turn_the_gm_acts_without_a_question(ctx: AppContext) -> None:
    await table(ctx)
    ok(await fights_attacks.attack(ctx, BOB, AttackInput(target="Bretteur", roll=95), rng=NoDice()))
    shot = ok(await fights_attacks.attack(ctx, GM, AttackInput(target="Élise", roll=95), rng=NoDice()))
    assert shot["attacker"] == "bretteur"
    # now it is Élise's turn: the GM's action without `qui:` is refused, naming the choices
    refused(
        await take_simple_action(ctx, GM, action="viser", option="precision"),
        "C'est le tour du PJ Élise : précisez qui agit (`qui:` ou `attaquant:`), Élise pour son joueur ou "
        "l'un de vos PNJ : Bretteur, Acrobate.",
    )


async def test_npcs_in_auto_defend_at_once_with_their_best_legal_choice(ctx: AppContext) -> None:
    results = []
    for channel in (CHANNEL, CHANNEL + 1):  # the same seed twice: the same fight
        fid = await table(ctx, npc_defence="auto", channel=channel)
        bob = replace(BOB, channel_id=channel)
        rng = random.Random(11)
        first = await fights_attacks.attack(ctx, bob, AttackInput(target="Bretteur", roll=5), rng=rng)
        hit = ok(first)
        auto = hit["auto_defence"]
        assert auto["mode"] == "auto" and auto["choice"] == best_choice(auto["chances"]) == "parer"
        assert set(auto["chances"]) == {"parer", "esquiver", "encaisser"}
        assert auto["chances"]["parer"] > auto["chances"]["esquiver"]
        assert hit["pending"] is False and first.reply.buttons == ()
        text = first.reply.description or ""
        assert (
            f"🤖 Bretteur, automatic defence: parry ({auto['chances']['parer']}%, the best chance)." in text
        )
        assert "Bretteur parries" in text
        results.append((hit["attack"], auto, hit.get("defence"), hit.get("damage_die")))
        async with ctx.sessions.begin() as session:
            row = await session.get(Fight, fid)
            assert row is not None and not row.state.get("pending")
            row.status = "closed"  # the next fight opens in the same channel
    assert results[0] == results[1]


async def test_the_agile_npc_dodges_and_a_suicidal_one_takes_it(ctx: AppContext) -> None:
    await table(ctx, npc_defence="auto")
    ok(await set_posture(ctx, GM, posture="suicidaire", option="attaque", who="Bretteur"))
    # Grimli's attack on the dodging Acrobate: Ag 60 + Esquive 20
    dodge = ok(
        await fights_attacks.attack(ctx, BOB, AttackInput(target="Acrobate", roll=5), rng=random.Random(2))
    )
    assert dodge["auto_defence"]["choice"] == "esquiver" == best_choice(dodge["auto_defence"]["chances"])
    assert dodge["auto_defence"]["chances"]["esquiver"] == 80
    # Bretteur's turn: the GM's attack on Élise misses
    ok(await fights_attacks.attack(ctx, GM, AttackInput(target="Élise", roll=95), rng=NoDice()))
    # Élise attacks the suicidal Bretteur: neither parry nor dodge allowed, he takes it
    took = await fights_attacks.attack(
        ctx, ALICE, AttackInput(target="Bretteur", roll=5), rng=random.Random(4)
    )
    auto = ok(took)["auto_defence"]
    assert auto["choice"] == "encaisser" and auto["chances"] == {"encaisser": 0}
    assert "ni parade ni esquive possible, encaisser" in (took.reply.description or "")


async def test_a_fixed_choice_and_the_gm_changing_modes(ctx: AppContext) -> None:
    await table(ctx)
    ok(await set_npc_defence(ctx, GM, mode="esquiver", who="Bretteur"))
    fixed = await fights_attacks.attack(
        ctx, BOB, AttackInput(target="Bretteur", roll=5), rng=random.Random(5)
    )
    auto = ok(fixed)["auto_defence"]
    # parrying is his best chance, but the GM fixed the dodge (legal: without Esquive, Ag / 2)
    assert auto["choice"] == "esquiver" and auto["mode"] == "esquiver" and auto["chances"]["parer"] > 15
    assert "🤖 Bretteur, automatic defence: dodge (the GM's fixed choice)." in (fixed.reply.description or "")
    refused(await set_npc_defence(ctx, GM, mode="parer"), "Mode de défense inconnu")
    refused(await set_npc_defence(ctx, GM, mode="auto", who="Élise"), "Élise est un PJ")
    done = await set_npc_defence(ctx, GM, mode="auto")
    assert done.reply.description == "Défense des PNJ : automatique (le meilleur choix)."


async def test_manual_mode_auto_button_with_a_die_typed_by_hand(ctx: AppContext) -> None:
    fid = await table(ctx)
    attack = await fights_attacks.attack(
        ctx, BOB, AttackInput(target="Bretteur", roll=5, damage="4"), rng=NoDice()
    )
    seq = ok(attack)["seq"]
    assert ids(attack.reply.buttons) == [
        f"melee:fight:{fid}:def:{seq}:{choice}" for choice in ("parer", "esquiver", "encaisser", "auto")
    ]
    assert [b.label for row in attack.reply.buttons for b in row][-1] == "Auto defence"
    # the GM lets the bot choose, with his own d100
    done = await defend(ctx, GM, choice="auto", seq=seq, rolls=DefenceRolls(roll=12), rng=random.Random(1))
    result = ok(done)
    assert result["choice"] == "parer" == result["auto_defence"]["choice"]
    assert result["defence"]["check"]["roll"] == 12 and result["defence"]["success"]
    assert done.reply.title == "Grimli → Bretteur : Parer"


async def test_a_lapsed_wait_makes_the_npc_defend_at_his_best(ctx: AppContext) -> None:
    fid = await table(ctx)
    seq = ok(
        await fights_attacks.attack(
            ctx, BOB, AttackInput(target="Bretteur", roll=5, damage="4"), rng=NoDice()
        )
    )["seq"]
    refused(await defend(ctx, BOB, choice="encaisser", fight_id=fid, seq=seq), "left), this button makes")
    async with ctx.sessions.begin() as session:
        row = await session.get(Fight, fid)
        assert row is not None
        data = dict(row.state)
        pending = dict(data["pending"])
        pending[str(seq)] = {
            **pending[str(seq)],
            "expires_at": (datetime.now(UTC) - timedelta(seconds=1)).isoformat(),
        }
        row.state = {**data, "pending": pending}
    late = ok(await defend(ctx, BOB, choice="encaisser", fight_id=fid, seq=seq, rolls=DefenceRolls(roll=90)))
    assert late["choice"] == "parer" and late["auto_defence"]["choice"] == "parer"
    assert late["defence"]["check"]["roll"] == 90


async def test_only_the_legal_defence_buttons_are_shown(ctx: AppContext) -> None:
    fid = await table(ctx)
    ok(await set_posture(ctx, ALICE, posture="suicidaire", option="attaque"))
    ok(await fights_attacks.attack(ctx, BOB, AttackInput(target="Bretteur", roll=95), rng=NoDice()))
    # Bretteur attacks the suicidal Élise: neither Parer nor Esquiver, and no « Défense auto » for a PC
    shot = await fights_attacks.attack(ctx, GM, AttackInput(target="Élise", roll=5), rng=NoDice())
    seq = ok(shot)["seq"]
    assert ids(shot.reply.buttons) == [f"melee:fight:{fid}:def:{seq}:encaisser"]
    refused(await defend(ctx, ALICE, choice="parer", seq=seq), "posture")


D20_FIGHTER = NpcStats(
    caracs="FOR:12 CON:14 AGI:13 DEX:12 BF:2 Esquive:11", weapons="Épée 14 +3 tranchant par=13"
)


async def test_every_ruleset_asks_before_an_attack_on_an_ally(ctx: AppContext) -> None:
    """d20 (an adapter's own attack): the same question, nothing rolled before « Confirmer »."""
    check_complete()  # importing the systems registers the d20 adapter
    async with ctx.sessions.begin() as session:
        await set_channel_ruleset(session, GUILD, CHANNEL, "d20")
    fid = int(ok(await open_fight(ctx, GM, name="Duel"))["fight_id"])
    ok(await add_combatants(ctx, GM, who="Bretteur", stats=D20_FIGHTER))
    ok(await add_combatants(ctx, GM, who="Garde", stats=D20_FIGHTER))
    ok(await new_round(ctx, GM, dice="Bretteur: 15; Garde: 10"))
    before = await state(ctx)
    asked = ok(await fights_attacks.attack(ctx, GM, AttackInput(target="Garde", roll=4), rng=NoDice()))
    assert asked["kind"] == "attack" and asked["attacker"] == "bretteur" and asked["target"] == "garde"
    assert (await state(ctx))["state"] == before["state"] and await count_events(ctx, "attack") == 0
    done = ok(await fights_attacks.answer_ask(ctx, GM, fight_id=fid, number=asked["ask"], accept=True))
    assert done["pending"] and await count_events(ctx, "attack") == 1
