"""`d20` fights through the fight service (seed 003), issue #20, every die by hand: criticals with
the server's damage table (a second wound, or the PV doubled with ``critique:double``), a botte
refused without the Botte skill, a fired shot whose weapon has no rates, a thrown weapon's critical."""

from __future__ import annotations

from typing import Any

from bot.context import AppContext
from bot.services.fights import attacks as fights_attacks
from bot.services.fights._core import DefenceRolls
from bot.services.fights.attacks import AttackInput
from bot.services.fights.defence import defend
from bot.services.fights.opening import add_combatants
from bot.services.fights.roster import NpcStats
from bot.services.fights.rounds import new_round

from .test_fights import GM, NoDice, ctx, ok
from .test_fights_d20_fire import TABLE, d20_fight, upload

__all__ = ["ctx"]

ROUND = "Tireur: 15; Garde: 10; Bretteur: 8"
THROWER = NpcStats(caracs="FOR:12 CON:14 AGI:13 DEX:12", weapons="Couteau 15 +2 jet")


async def hit(ctx: AppContext, fight_id: int, data: AttackInput, choice: str = "encaisser") -> dict[str, Any]:
    attack = ok(await fights_attacks.attack(ctx, GM, data, rng=NoDice()))
    if not attack.get("pending"):
        return attack
    return ok(
        await defend(
            ctx, GM, choice=choice, fight_id=fight_id, seq=attack["seq"], rolls=DefenceRolls(), rng=NoDice()
        )
    )


async def test_an_edged_critical_draws_a_second_wound_on_the_table(ctx: AppContext) -> None:
    """Seed line 85: « on ajoute aux dégâts précédents, de nouveaux dégâts en utilisant la table des
    dégâts pour tirer une seconde blessure »."""
    assert not (await upload(ctx, TABLE)).is_error
    fight_id = await d20_fight(ctx)
    ok(await new_round(ctx, GM, dice=ROUND))
    ok(await fights_attacks.attack(ctx, GM, AttackInput(target="Bretteur", attacker="Tireur", roll=20)))
    # the Garde's sword 14, a 1: critical, MR 13 → index 13 + 3 = 16 → row 10 (4 PV, 2 PC); the second
    # wound d20 typed 19 + 3 = 22 → row 20 (10 PV, unconscious)
    r = await hit(ctx, fight_id, AttackInput(target="Bretteur", attacker="Garde", roll=1, damage="19"))
    assert r["d20_critical"] == {
        "mode": "second_wound",
        "second_roll": 19,
        "second_index": 22,
        "extra_pv": 10,
    }
    assert r["health"]["pv_lost"] == 4 + 10
    # shock (3 + 13 + 2) // 2 = 9, + 2 PC of the first row
    assert r["health"]["pc_lost"] == 9 + 2


async def test_critique_double_doubles_the_pv_lost(ctx: AppContext) -> None:
    """Seed line 105: « ou on double le nombre de points de vie perdus, au gré du maître de jeu »
    (fight option ``critique:double``); a thrown knife: BF 0 + 2, d20 8 + 2 = 10 → 4 PV, twice."""
    assert not (await upload(ctx, TABLE)).is_error
    fight_id = await d20_fight(ctx, options="critique:double")
    ok(await add_combatants(ctx, GM, who="Lanceur", stats=THROWER))
    ok(await new_round(ctx, GM, dice="Lanceur: 20; Tireur: 15; Garde: 10; Bretteur: 8"))
    r = await hit(
        ctx, fight_id, AttackInput(target="Bretteur", attacker="Lanceur", roll=1, damage="8", location="tete")
    )
    assert r["impact"]["exact"] and r["impact"]["damage_index"] == 8 + 2
    assert r["blow"]["penetration"] == 0 + 2
    assert r["d20_critical"]["mode"] == "double_pv" and r["health"]["pv_lost"] == 4 * 2


async def test_a_botte_needs_the_botte_skill(ctx: AppContext) -> None:
    """Seed line 92: « Une botte est un coup technique spécial qui constitue une compétence à part
    entière sans tenir compte de la compétence de l'arme utilisé. »"""
    await d20_fight(ctx)
    ok(await new_round(ctx, GM, dice=ROUND))
    ok(await fights_attacks.attack(ctx, GM, AttackInput(target="Bretteur", attacker="Tireur", roll=20)))
    refused = await fights_attacks.attack(
        ctx, GM, AttackInput(target="Bretteur", attacker="Garde", roll=3, special="botte")
    )
    assert refused.reply.is_error and "Botte" in (refused.reply.description or "")


async def test_a_fired_weapon_without_rates_does_not_consult_the_armour(ctx: AppContext) -> None:
    """Seed line 114: « Chaque type de projectile ou de munition à ses propres modificateurs de dégâts
    en points de vie, en points de choc et en Pénétration. » — without them, nothing to oppose."""
    fight_id = await d20_fight(ctx)
    ok(await new_round(ctx, GM, dice=ROUND))
    r = await hit(
        ctx, fight_id, AttackInput(target="Garde", weapon="Mitraillette", roll=3, damage="5", location="tete")
    )
    # MR 13 − 3 = 10: exact; d20 5 + 2 = 7
    assert r["impact"]["exact"] and r["impact"]["damage_index"] == 5 + 2
    assert r["blow"]["penetration"] == 0 and "armour" not in r


async def test_parer_fleche_parries_an_arrow_with_its_own_score(ctx: AppContext) -> None:
    """Seed line 107: « parer ou esquiver une flèche est une action absurde (malus de 20). Certains
    spécialistes s'entraînent à ce type d'exploit, ce sont des compétences (Parer Flèche …) »."""
    fight_id = await d20_fight(ctx)
    archer = NpcStats(caracs="FOR:12 CON:14 AGI:13 DEX:12", weapons="Arc 14 +1 fleche")
    monk = NpcStats(caracs="FOR:12 CON:14 AGI:13 DEX:12 Parer_Flèche:15", weapons="Bâton 12 contondant")
    ok(await add_combatants(ctx, GM, who="Archer", stats=archer, side="Archers"))
    ok(await add_combatants(ctx, GM, who="Moine", stats=monk))
    ok(await new_round(ctx, GM, dice="Archer: 20; Tireur: 15; Garde: 10; Bretteur: 8; Moine: 5"))
    shot = ok(await fights_attacks.attack(ctx, GM, AttackInput(target="Moine", attacker="Archer", roll=4)))
    parried = ok(
        await defend(
            ctx,
            GM,
            choice="parer",
            fight_id=fight_id,
            seq=shot["seq"],
            rolls=DefenceRolls(roll=3),
            rng=NoDice(),
        )
    )
    # the skill 15, no −20: MR 12 > the arrow's MR 10 → the Moine parries (and takes the initiative)
    assert parried["exchange"]["defence"]["target"] == 15
    assert parried["case"] == "both_succeed_attacker_lower"
