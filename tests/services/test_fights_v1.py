"""`v1` fights through the fight service (seed 001, lines 49-92), every die entered by hand: the
effective initiative with attacks spread, drawing penalties, the reversed d100 location, the shield
parry (+20 %) costing the next attack, the dodge refused without the skill, damage 1d6 + F with the
6 → +1d6 rule, armour and E subtracted, Blessures, the overflow as a critical's severity, stunning
bare-handed, disarm, an aimed shot, and the GM options (units digit, the seed's Toughness reading)."""

from __future__ import annotations

from typing import Any

from bot.context import AppContext
from bot.db.characters import new_row
from bot.db.repositories import set_channel_ruleset
from bot.rules.sheets import SheetData
from bot.services.fights._core import DefenceRolls
from bot.services.fights.attacks import AttackInput, attack
from bot.services.fights.defence import defend
from bot.services.fights.ending import show
from bot.services.fights.opening import add_combatants, open_fight
from bot.services.fights.roster import NpcStats
from bot.services.fights.rounds import set_posture
from bot.services.fights.systems import v1 as v1_adapter  # registers the adapters (run alone)

from .fight_context import next_round
from .test_fights import ALICE, BOB, CHANNEL, GM, GUILD, NoDice, ctx, ok

__all__ = ["ctx", "v1_adapter"]

GOBLIN = "CC:25 CT:25 F:3 E:3 B:6 I:30 A:1 Dex:25"


async def v1_channel(ctx: AppContext) -> None:
    async with ctx.sessions.begin() as session:
        await set_channel_ruleset(session, GUILD, CHANNEL, "v1")


async def albert(ctx: AppContext, **extra: Any) -> None:
    data = SheetData(
        name="Albert",
        ruleset="v1",
        characteristics={
            "CC": 45,
            "CT": 40,
            "F": 3,
            "E": 4,
            "B": 8,
            "I": 40,
            "A": 2,
            "Dex": 35,
            "Cd": 30,
            "Int": 30,
            "Cl": 30,
            "FM": 30,
            "Soc": 30,
        },
        skills=dict(extra.get("skills", {"Esquive": 0})),
    )
    async with ctx.sessions.begin() as session:
        session.add(new_row(GUILD, ALICE.user_id, data))


async def opened(ctx: AppContext, options: str | None = None) -> int:
    await v1_channel(ctx)
    return int(ok(await open_fight(ctx, GM, name="Escarmouche", options=options))["fight_id"])


def wounds(result: dict[str, Any]) -> tuple[int, int]:
    wound = result["wound"]
    return wound["wounds_before"], wound["wounds_after"]


async def test_a_v1_fight_of_two_rounds(ctx: AppContext) -> None:
    await albert(ctx)
    fight_id = await opened(ctx)
    ok(
        await add_combatants(
            ctx, ALICE, who="Albert", stats=NpcStats(weapons="Épée +0, Bouclier bouclier", armour="tout:1")
        )
    )
    added = ok(
        await add_combatants(
            ctx, GM, who="2 gobelins", stats=NpcStats(caracs=GOBLIN, weapons="Hache", armour="corps:1")
        )
    )
    assert [c["name"] for c in added["added"]] == ["Gobelin 1", "Gobelin 2"]

    # I 40, A 2, spread I/A: ⌈40/2⌉ = 20 apart → 40, 20; goblins I 30 (tie broken by I, then id).
    r1 = ok(await next_round(ctx, GM))
    assert [(s["combatant"], s["value"]) for s in r1["order"]] == [
        ("albert", 40),
        ("gobelin-1", 30),
        ("gobelin-2", 30),
        ("albert", 20),
    ]
    # CC 45, roll 37 → success; 37 reversed = 73 → body (56-80).
    hit = ok(await attack(ctx, ALICE, AttackInput(target="Gobelin 1", roll=37, damage="4"), rng=NoDice()))
    assert hit["attack"]["check"]["target"] == 45 and hit["attack"]["reversed_roll"] == 73
    assert hit["attack"]["location"]["id"] == "body" and hit["pending"]
    # the goblin has no Esquive: refused, nothing written
    dodge = await defend(ctx, GM, choice="esquiver", fight_id=fight_id, seq=hit["seq"])
    assert dodge.reply.is_error and "Esquive" in (dodge.reply.description or "")
    taken = ok(await defend(ctx, GM, choice="encaisser", fight_id=fight_id, seq=hit["seq"], rng=NoDice()))
    # 1d6 4 + F 3 = 7; − armour (body) 1 − E 3 = 3 → B 6 → 3
    assert taken["damage"]["total"] == 7 and taken["wound"]["net"] == 3 and wounds(taken) == (6, 3)

    # Gobelin 1: CC 25, roll 12 → 21 → right arm; Albert parries with his shield: 45 + 20 = 65.
    blow = ok(await attack(ctx, GM, AttackInput(target="Albert", roll=12, damage="3"), rng=NoDice()))
    assert blow["attack"]["location"]["id"] == "right_arm"
    parry = ok(await defend(ctx, ALICE, choice="parer", rolls=DefenceRolls(roll=50), rng=NoDice()))
    assert parry["defence"]["check"]["target"] == 65 and parry["defence"]["costs_next_attack"]
    # Gobelin 2 misses (roll 90); Albert's 2nd attack was spent by the parry: the round ends.
    miss = ok(await attack(ctx, GM, AttackInput(target="Albert", roll=90), rng=NoDice()))
    assert not miss["attack"]["hit"]
    shown = ok(await show(ctx, GM))
    assert shown["state"]["round"] == 1

    # Round 2: Gobelin 2 draws a dagger: 30 − 10 = 20.
    r2 = ok(await next_round(ctx, GM, dice="Gobelin 2: dague"))
    assert [(s["combatant"], s["value"]) for s in r2["order"]] == [
        ("albert", 40),
        ("gobelin-1", 30),
        ("albert", 20),
        ("gobelin-2", 20),
    ]
    # roll 11 → 11 → head; damage 6, 6, 2 (a 6 adds a d6): 14 + F 3 = 17; head unarmoured, − E 3 = 14.
    head = ok(
        await attack(
            ctx,
            ALICE,
            AttackInput(target="Gobelin 1", roll=11, damage="6 6 2", effects="50 50 50", durations="3 3 3"),
            rng=NoDice(),
        )
    )
    assert head["attack"]["location"]["id"] == "head"
    crit = ok(await defend(ctx, GM, choice="encaisser", fight_id=fight_id, seq=head["seq"]))
    assert crit["damage"]["dice"] == [6, 6, 2] and crit["damage"]["total"] == 17
    # B 3 − 14 = −11: 11 points below 0 → critical severity 11, edged, head
    wound = crit["wound"]
    assert wound["net"] == 14 and wound["wounds_after"] == -11 and wound["severity"] == 11
    assert wound["critical"]["source"] == "criticals.tranchantes.tete.11"
    shown = await show(ctx, GM)
    fields = {f.name.lstrip("▶💀💤 ").split(" · ")[0].strip("~"): f.value for f in shown.reply.fields}
    assert "Blessures 8/8" in fields["Albert"] and "Blessures -11/6" in fields["Gobelin 1"]


async def test_options_units_digit_threshold_and_stun_disarm_shot(ctx: AppContext) -> None:
    await albert(ctx, skills={"Désarmement": 0, "Coup assommant": 0, "Bagarre": 0})
    fight_id = await opened(ctx, options="endurance:seuil, des:unites")
    ok(
        await add_combatants(
            ctx, ALICE, who="Albert", stats=NpcStats(weapons="Épée +1, Arc tir, Poings mains_nues")
        )
    )
    ok(
        await add_combatants(
            ctx,
            GM,
            who="2 orques",
            stats=NpcStats(
                caracs="CC:35 CT:25 F:3 E:4 B:9 I:20 A:1 Dex:30", weapons="Épée, Dague", armour="tout:1"
            ),
        )
    )
    ok(await next_round(ctx, GM))
    # units digit: roll 33 → die 3, a double → (3 + F 3 + 1) × 2 = 14; seed reading: armour only (1) → 13
    hit = ok(await attack(ctx, ALICE, AttackInput(target="Orque 1", roll=33), rng=NoDice()))
    assert hit["attack"]["location"]["id"] == "right_arm"  # 33 reversed = 33 (16-35)
    taken = ok(await defend(ctx, GM, choice="encaisser", fight_id=fight_id, seq=hit["seq"], rng=NoDice()))
    assert taken["damage"]["doubled"] and taken["damage"]["total"] == 14
    # B 9 − 13 = −4: above −E (−4) → no critical yet
    assert (
        taken["wound"]["net"] == 13
        and taken["wound"]["wounds_after"] == -4
        and taken["wound"]["severity"] is None
    )
    # Albert's second slot: bare hands → always a stun attempt (with Bagarre, no −20 %)
    punch = ok(
        await attack(
            ctx,
            ALICE,
            AttackInput(
                target="Orque 2", weapon="Poings", roll=24, damage="5", effects="30", durations="2 3 4 5 6 1"
            ),
            rng=NoDice(),
        )
    )
    assert punch["attack"]["stunning"] and punch["attack"]["check"]["target"] == 45
    parried = ok(
        await defend(
            ctx,
            GM,
            choice="parer",
            fight_id=fight_id,
            seq=punch["seq"],
            rolls=DefenceRolls(roll=60),
            rng=NoDice(),
        )
    )
    assert parried["defence"]["check"]["target"] == 55 and not parried["defence"]["check"]["success"]
    # (1d6 5 + F 3 − 3 − E 4 − armour 1 × 2) = −1 → chance −5 + 20 (Coup assommant) = 15 %, d100 30 → no
    stun = parried["stun"]
    assert stun["points"] == -1 and stun["chance"] == 15 and not stun["stunned"]
    # I 20 each: after Albert's second slot (20, tie broken by I 40)
    ok(await attack(ctx, GM, AttackInput(target="Albert", attacker="Orque 1", roll=99), rng=NoDice()))
    # Orque 2 parried with its second weapon without Armes de parade: its attack is spent
    late = await attack(ctx, GM, AttackInput(target="Albert", attacker="Orque 2", roll=99))
    assert late.reply.is_error
    r2 = ok(await next_round(ctx, GM))
    assert r2["round"] == 2
    # disarm: the hit, then opposed Dex: Albert 35 rolls 10, the orc 30 rolls 80 → disarmed, 1d10 → 7 m
    disarm = ok(
        await attack(
            ctx,
            ALICE,
            AttackInput(target="Orque 1", roll=20, special="desarmer", effects="10 80", durations="7"),
            rng=NoDice(),
        )
    )
    done = ok(await defend(ctx, GM, choice="encaisser", fight_id=fight_id, seq=disarm["seq"], rng=NoDice()))
    assert done["disarm"]["disarmed"] and done["disarm"]["distance_m"] == 7
    # aimed shot at the head, long range: refused (short range only)
    far = await attack(
        ctx, ALICE, AttackInput(target="Orque 2", weapon="Arc", roll=10, location="tete", situation="longue")
    )
    assert far.reply.is_error and "portée courte" in (far.reply.description or "")
    # at short range it is declared: « Viser une localisation particulière demande 1 Rd de
    # préparation » (seed line 87) — the shot goes off next round
    declared = ok(await attack(ctx, ALICE, AttackInput(target="Orque 2", weapon="Arc", location="tete")))
    assert declared["declared_shot"]["ready"] == 3 and declared["declared_shot"]["preparation"] == 1
    ok(await next_round(ctx, GM))
    # CT 40 − 20 = 20, roll 10 → head; no defence against a shot; 1d6 2 → units digit 0 → 10
    shot = ok(
        await attack(
            ctx, ALICE, AttackInput(target="Orque 2", weapon="Arc", roll=10, location="tete"), rng=NoDice()
        )
    )
    assert shot["attack"]["check"]["target"] == 20 and shot["attack"]["location"]["id"] == "head"
    assert shot["damage"]["dice"] == [10] and shot["damage"]["total"] == 13
    bad = await add_combatants(ctx, GM, who="troll", stats=NpcStats(caracs="CC:40"))
    assert bad.reply.is_error and "F, E, B, I" in (bad.reply.description or "")
    wrong = await set_posture(ctx, BOB, posture="prudente")
    assert wrong.reply.is_error
