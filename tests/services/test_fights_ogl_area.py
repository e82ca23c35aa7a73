"""`ogl` area effects and the dive reaction (seed 004, "Plonger"), and the hero point's second chance
on damage rolls ("un jet de test de compétence, un jet de dégâts ou n'importe quoi qui a un effet sur
lui"), through the services with every die by hand. Numbers are recomputed from the seed:

* Plonger: an Esquive test; success halves the damage (reading: rounded down), a critical
  (roll ≤ ⌊skill/10⌋) avoids it all; the diver ends prone whatever the result; mounted: −30 % and
  unhorsed; not when prone, not with nowhere to dive; a reaction (one per event, within the limit).
* Location HP (STR 13, CON 12, SIZ 12, POW 10): legs 4, abdomen 4, chest 5, arms 3, head 4; 0 → minor,
  −1 or less → serious, below −HP → major.
"""

from __future__ import annotations

from typing import Any

from bot.context import AppContext
from bot.db.repositories import set_channel_ruleset
from bot.services.fights import attacks as fights_attacks
from bot.services.fights._core import DefenceRolls, FightOutcome
from bot.services.fights.attacks import AttackInput
from bot.services.fights.conditions import roll_due_test
from bot.services.fights.defence import defend
from bot.services.fights.ending import show
from bot.services.fights.opening import add_combatants, open_fight
from bot.services.fights.roster import NpcStats
from bot.services.fights.systems.ogl_area import area_effect
from bot.services.fights.systems.ogl_manoeuvres.hero import hero_point
from bot.services.fights.systems.ogl_manoeuvres.mount import set_mount

from .fight_context import next_round
from .test_fights import ALICE, CHANNEL, GM, GUILD, NoDice, ctx, ok
from .test_fights_ogl_manoeuvres import refused, tracker_field

__all__ = ["ctx"]

BODY = "STR:13 CON:12 SIZ:12 INT:10 POW:10 DEX:14 CHA:10 Esquive:40"
ESQUIVE = 40  # critical at ⌊40/10⌋ = 4


async def fight(ctx: AppContext) -> int:
    async with ctx.sessions.begin() as session:
        await set_channel_ruleset(session, GUILD, CHANNEL, "ogl")
    fight_id = int(ok(await open_fight(ctx, GM, name="Brasier"))["fight_id"])
    knight = NpcStats(caracs=BODY + " PH:3", weapons="Épée 1d8+1 60%", armour="poitrine:2")
    ok(await add_combatants(ctx, GM, who="Chevalier", stats=knight, side="Ordre"))
    ok(
        await add_combatants(
            ctx, GM, who="Orc", stats=NpcStats(caracs=BODY + " RA:2 PH:1", weapons="Hache 1d8 50%")
        )
    )
    ok(
        await add_combatants(
            ctx, GM, who="Gobelin", stats=NpcStats(caracs=BODY, weapons="Dague 1d4 40%"), side="Gobelins"
        )
    )
    return fight_id


async def answer(
    ctx: AppContext, fight_id: int, seq: int, choice: str, roll: int | None = None, tests: str | None = None
) -> FightOutcome:
    rolls = DefenceRolls(roll=roll, tests=tests)
    return await defend(ctx, GM, choice=choice, fight_id=fight_id, seq=seq, rolls=rolls, rng=NoDice())


def seqs(area: dict[str, Any]) -> dict[str, int]:
    return {c["id"]: int(c["seq"]) for c in area["caught"]}


async def test_dive_halves_a_critical_avoids_taking_it_hurts_and_refusals(ctx: AppContext) -> None:
    fight_id = await fight(ctx)
    ok(await next_round(ctx, GM, dice="Chevalier: 5; Orc: 1; Gobelin: 2"))
    # 3d6: 4 + 5 + 6 = 15, rolled once for the whole effect
    area = ok(
        await area_effect(
            ctx,
            GM,
            name="Boule de feu",
            damage="3d6",
            dice="4 5 6",
            targets="Chevalier: poitrine; Orc: tete; Gobelin: jambe_g sans_issue",
        )
    )
    assert area["area"]["damage"] == {"expression": "3d6", "dice": [4, 5, 6], "total": 15}
    assert all(c["pending"] for c in area["caught"]) and len(area["caught"]) == 3
    seq = seqs(area)
    # the Chevalier dives: Esquive 30 ≤ 40, not ≤ 4: halved 15 → 7; chest armour 2 → 5; chest 5 → 0: minor
    dive = ok(await answer(ctx, fight_id, seq["chevalier"], "plonger", 30))
    assert dive["dive"]["target"] == ESQUIVE and dive["dive"]["success"]
    assert dive["area_damage"] == {"rolled": 15, "dive": "halved", "taken": 15 // 2}
    chest = dive["wounds"][0]
    assert (chest["damage"], chest["hp_after"], chest["level"]) == (7 - 2, 0, "minor")
    knight = tracker_field(await show(ctx, GM), "Chevalier")
    assert "à terre" in knight.lower() and "réactions 1/1" in knight
    # the Gobelin has nowhere to dive; parrying does not answer an area effect; he takes it:
    # 15 on the left leg 4 → −11 below −4: a major wound (prone, Endurance tests, CON + POU = 22 actions)
    assert "plonger" in refused(await answer(ctx, fight_id, seq["gobelin"], "plonger", 10)).lower()
    assert "ne répond pas" in refused(await answer(ctx, fight_id, seq["gobelin"], "parer", 10))
    took = ok(await answer(ctx, fight_id, seq["gobelin"], "encaisser"))
    leg = took["wounds"][0]
    assert (leg["hp_after"], leg["level"], leg["death_in_actions"]) == (4 - 15, "major", 12 + 10)
    assert took["area_damage"]["dive"] == "none"
    # the Orc dives with a critical (3 ≤ 4): no damage, but prone
    crit = ok(await answer(ctx, fight_id, seq["orc"], "plonger", 3))
    assert crit["area_damage"] == {"rolled": 15, "dive": "avoided", "taken": 0} and "wounds" not in crit
    orc = tracker_field(await show(ctx, GM), "Orc")
    assert "Tête 4/4" in orc and "à terre" in orc.lower()
    # a second effect: the Orc is prone now, he cannot dive; the Chevalier has lost his next action
    # (the minor wound): no reaction; a typed 7 on the Orc's abdomen 4 → −3: serious, 1d4 (2) lost
    blast = ok(
        await area_effect(ctx, GM, name="Explosion", damage="7", targets="Orc; Chevalier", location="abdomen")
    )
    seq = seqs(blast)
    assert "plonger" in refused(await answer(ctx, fight_id, seq["orc"], "plonger", 10)).lower()
    assert "encore 1" in refused(await answer(ctx, fight_id, seq["chevalier"], "plonger", 10))
    belly = ok(await answer(ctx, fight_id, seq["orc"], "encaisser", tests="2"))
    assert (belly["wounds"][0]["hp_after"], belly["wounds"][0]["level"]) == (4 - 7, "serious")
    assert [
        c["remaining"] for c in belly["wounds"][0]["conditions"] if c["kind"] == "lose_combat_actions"
    ] == [2]


async def test_mounted_dive_everywhere_and_the_reaction_limit(ctx: AppContext) -> None:
    fight_id = await fight(ctx)
    ok(await set_mount(ctx, GM, mounted_now=True, who="Chevalier"))
    ok(await next_round(ctx, GM, dice="Chevalier: 1; Orc: 9; Gobelin: 1"))
    # the Orc attacks the Gobelin (30 ≤ 50); the Gobelin dodges 35 ≤ 40 and 35 > 30: his one reaction
    attack = ok(
        await fights_attacks.attack(
            ctx, GM, AttackInput(target="Gobelin", attacker="Orc", roll=30, location="tete")
        )
    )
    assert ok(await answer(ctx, fight_id, attack["seq"], "esquiver", 35))["outcome"] == "defended"
    # a breath: 2d6 3 + 4 = 7 on every location
    breath = ok(
        await area_effect(
            ctx,
            GM,
            name="Souffle",
            damage="2d6",
            dice="3 4",
            targets="Chevalier; Gobelin",
            location="tout",
            source="Orc",
        )
    )
    seq = seqs(breath)
    assert "plus de réaction" in refused(await answer(ctx, fight_id, seq["gobelin"], "plonger", 10)).lower()
    # the rider dives at 40 − 30 = 10 (critical ≤ 1): 9 succeeds: 7 → 3 at each location, armour off
    dive = ok(await answer(ctx, fight_id, seq["chevalier"], "plonger", 9))
    assert dive["dive"]["target"] == ESQUIVE - 30 and dive["area_damage"]["taken"] == 7 // 2
    after = {w["location"]: w["hp_after"] for w in dive["wounds"]}
    assert after == {
        "jambe_d": 4 - 3,
        "jambe_g": 4 - 3,
        "abdomen": 4 - 3,
        "poitrine": 5 - (3 - 2),
        "bras_d": 3 - 3,
        "bras_g": 3 - 3,
        "tete": 4 - 3,
    }
    knight = tracker_field(await show(ctx, GM), "Chevalier")
    assert "monté" not in knight and "à terre" in knight.lower()  # unhorsed whatever the result
    # the Gobelin takes 7 everywhere: serious wounds (1d4 by hand, in location order) but the arms
    # 3 → −4, below −3: major
    took = ok(await answer(ctx, fight_id, seq["gobelin"], "encaisser", tests="1 2 3 4 1"))
    levels = {w["location"]: (w["hp_after"], w["level"]) for w in took["wounds"]}
    assert levels["poitrine"] == (5 - 7, "serious") and levels["bras_g"] == (3 - 7, "major")
    lost = [
        c["remaining"] for w in took["wounds"] for c in w["conditions"] if c["kind"] == "lose_combat_actions"
    ]
    assert lost == [1, 2, 3, 4, 1]


async def test_who_may_place_an_effect_and_an_unconscious_fighter(ctx: AppContext) -> None:
    fight_id = await fight(ctx)
    no_round = refused(await area_effect(ctx, GM, name="x", damage="1d6", targets="Orc: tete"))
    assert "Aucun round" in no_round
    ok(await next_round(ctx, GM, dice="Chevalier: 5; Orc: 1; Gobelin: 2"))
    assert "MJ" in refused(await area_effect(ctx, ALICE, name="x", damage="1d6", targets="Orc: tete"))
    assert "Orc" in refused(
        await area_effect(ctx, ALICE, name="x", damage="1d6", targets="Orc: tete", source="Orc")
    )
    assert "3d" in refused(await area_effect(ctx, GM, name="x", damage="3d", targets="Orc: tete"))
    assert "tete" in refused(await area_effect(ctx, GM, name="x", damage="1d6", targets="Orc"))
    assert "deux fois" in refused(
        await area_effect(ctx, GM, name="x", damage="1d6", targets="Orc: tete; orc: tete")
    )
    # the Orc is knocked out (a failed Endurance test): caught, he takes it at once (Hors de Combat)
    hit = ok(
        await fights_attacks.attack(
            ctx,
            GM,
            AttackInput(
                target="Orc", attacker="Chevalier", roll=30, location="poitrine", damage="5", effects="1"
            ),
        )
    )
    ok(await answer(ctx, fight_id, hit["seq"], "encaisser"))
    ok(await roll_due_test(ctx, GM, who="Orc", roll=90))  # CON 12 × 5 = 60: fails, unconscious
    area = ok(await area_effect(ctx, GM, name="Éboulis", damage="1d6", dice="4", targets="Orc: tete"))
    orc = area["caught"][0]
    assert not orc["pending"] and orc["result"]["wounds"][0]["hp_after"] == 4 - 4


async def test_second_chance_on_the_dive_and_on_damage(ctx: AppContext) -> None:
    fight_id = await fight(ctx)
    ok(await next_round(ctx, GM, dice="Chevalier: 5; Orc: 1; Gobelin: 2"))
    area = ok(
        await area_effect(
            ctx, GM, name="Boule de feu", damage="3d6", dice="4 5 6", targets="Chevalier: poitrine"
        )
    )
    ok(await answer(ctx, fight_id, seqs(area)["chevalier"], "plonger", 30))  # halved: chest 5 → 0
    # second chance on the dive: 50 > 40 fails: the whole 15, armour 2 → 13: chest 5 → −8 below −5: major
    dive = ok(await hero_point(ctx, GM, use="seconde_chance", who="Chevalier", roll=50))
    assert dive["reroll"]["before"]["dive"] == "halved" and dive["reroll"]["area_damage"]["dive"] == "failed"
    assert (dive["reroll"]["wounds"][0]["hp_after"], dive["reroll"]["wounds"][0]["level"]) == (
        5 - 13,
        "major",
    )
    # second chance on the damage: 1 + 1 + 2 = 4, the failed dive stands: 4 − 2 = 2: chest 5 → 3, no wound
    again = ok(await hero_point(ctx, GM, use="seconde_chance_degats", who="Chevalier", dice="1 1 2"))
    assert again["reroll"]["before"] == 15 and again["reroll"]["damage"]["total"] == 4
    assert (
        again["reroll"]["wounds"][0]["hp_after"] == 5 - 2 and again["reroll"]["wounds"][0]["level"] == "none"
    )
    knight = tracker_field(await show(ctx, GM), "Chevalier")
    assert "Poitrine **3/5**" in knight and "PH 1" in knight
    shown = ok(await show(ctx, GM))
    assert shown["prompts"] == []  # the major wound's Endurance tests went with it


async def test_second_chance_on_an_attack_damage_roll(ctx: AppContext) -> None:
    fight_id = await fight(ctx)
    ok(await next_round(ctx, GM, dice="Chevalier: 5; Orc: 1; Gobelin: 2"))
    assert "dégâts" in refused(await hero_point(ctx, GM, use="seconde_chance_degats", who="Orc"))
    # Épée 1d8 5 + 1 = 6 on the Orc's chest 5 → −1: serious, an Endurance test
    hit = ok(
        await fights_attacks.attack(
            ctx,
            GM,
            AttackInput(
                target="Orc", attacker="Chevalier", roll=30, location="poitrine", damage="5", effects="2"
            ),
        )
    )
    first = ok(await answer(ctx, fight_id, hit["seq"], "encaisser"))
    assert first["wound"]["hp_after"] == 5 - 6 and first["wound"]["level"] == "serious"
    # the Orc rerolls the damage he took: 1d8 2 + 1 = 3: chest 5 → 2; the wound and its test are undone
    orc = ok(await hero_point(ctx, GM, use="seconde_chance_degats", who="Orc", dice="2"))
    assert orc["reroll"]["before"] == 6 and orc["reroll"]["damage"]["total"] == 3
    assert orc["reroll"]["wounds"][0]["hp_after"] == 5 - 3
    assert ok(await show(ctx, GM))["prompts"] == []
    assert "Poitrine **2/5**" in tracker_field(await show(ctx, GM), "Orc")
    # the Chevalier rerolls his weapon's damage: 1d8 7 + 1 = 8: chest 5 → −3: serious again
    knight = ok(await hero_point(ctx, GM, use="seconde_chance_degats", who="Chevalier", dice="7"))
    assert (
        knight["reroll"]["wounds"][0]["hp_after"] == 5 - 8
        and knight["reroll"]["wounds"][0]["level"] == "serious"
    )
    # once the Endurance test is rolled, the damage is settled
    ok(await roll_due_test(ctx, GM, who="Orc", roll=20))
    assert "Trop tard" in refused(
        await hero_point(ctx, GM, use="seconde_chance_degats", who="Chevalier", dice="1")
    )


async def test_a_players_area_effect_is_his_fighters_action_and_its_damage_is_bounded(
    ctx: AppContext,
) -> None:
    """#23 item 5: a player cast « 20d100+… » three times in the Orc's turn. His fighter's effect is
    now his action, on his own slot, once; the damage is bounded (20 dice of at most d20, +50)."""
    from bot.services.characters import create_character

    await fight(ctx)
    sheet = "STR:13 CON:12 SIZ:12 INT:10 POW:10 DEX:14 CHA:10"
    assert not (await create_character(ctx, ALICE, name="Mage", ruleset="ogl", stats=sheet)).is_error
    ok(
        await add_combatants(
            ctx, ALICE, who="Mage", stats=NpcStats(caracs="Esquive:40", weapons="Dague 1d4 40%")
        )
    )
    ok(await next_round(ctx, GM, dice="Orc: 9; Mage: 5; Chevalier: 3; Gobelin: 2"))
    out_of_turn = refused(
        await area_effect(ctx, ALICE, name="Feu", damage="3d6", targets="Orc: tete", source="Mage")
    )
    assert "Orc" in out_of_turn  # whose turn it is
    ok(
        await fights_attacks.attack(
            ctx, GM, AttackInput(target="Chevalier", attacker="Orc", roll=95, location="poitrine")
        )
    )  # a miss
    too_strong = refused(
        await area_effect(ctx, ALICE, name="Feu", damage="20d100+99", targets="Orc: tete", source="Mage")
    )
    assert "20 dés au plus, d20 au plus, 50 au plus" in too_strong
    cast = ok(
        await area_effect(
            ctx, ALICE, name="Feu", damage="3d6", dice="1 2 3", targets="Orc: tete", source="Mage"
        )
    )
    assert cast["caught"][0]["pending"]
    again = refused(
        await area_effect(ctx, ALICE, name="Feu", damage="3d6", targets="Orc: tete", source="Mage")
    )
    assert "Mage" in again  # his slot is spent (or the turn has passed)
    # the GM narrates an effect at any time, without a source
    ok(await area_effect(ctx, GM, name="Éboulis", damage="1d6", dice="2", targets="Gobelin: tete"))
