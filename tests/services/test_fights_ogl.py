"""`ogl` fights through the fight service (seed 004): action ranks 1d10 + modifier (ties by DEX),
the opposed attack and parry (both succeed → the higher roll wins), one reaction per attack, the
critical at ⌊skill/10⌋ with maximum damage, and the minor / serious / major wounds of a location
(HP from the sheet's shares) with the GM option for the major threshold."""

from __future__ import annotations

from typing import Any

from bot.context import AppContext
from bot.db.repositories import set_channel_ruleset
from bot.services.fights import attacks as fights_attacks
from bot.services.fights._core import DefenceRolls
from bot.services.fights.attacks import AttackInput
from bot.services.fights.conditions import roll_due_test
from bot.services.fights.defence import defend
from bot.services.fights.opening import add_combatants, open_fight
from bot.services.fights.roster import NpcStats
from bot.services.fights.systems import check_complete

from .fight_context import next_round
from .test_fights import CHANNEL, GM, GUILD, NoDice, ctx, ok

__all__ = ["ctx"]

check_complete()  # importing the systems registers the ogl adapter (the file run alone)

# CON 12 + SIZ 12 → 12 HP: legs ⌈12/3⌉ = 4, abdomen 4, chest ⌈24/5⌉ = 5, arms 3, head 4
BODY = "STR:13 CON:12 SIZ:12 INT:10 POW:10 DEX:14 CHA:10 Esquive:40"


async def ogl_fight(ctx: AppContext, options: str | None = None) -> int:
    async with ctx.sessions.begin() as session:
        await set_channel_ruleset(session, GUILD, CHANNEL, "ogl")
    fight_id = int(ok(await open_fight(ctx, GM, name="Arène", options=options))["fight_id"])
    ok(
        await add_combatants(
            ctx, GM, who="Guerrier", stats=NpcStats(caracs=BODY, weapons="Épée 1d8+1 60%"), side="Arène"
        )
    )
    ok(
        await add_combatants(
            ctx, GM, who="Cible", stats=NpcStats(caracs=BODY + " RA:2", weapons="Dague 1d4+1 50%")
        )
    )
    return fight_id


async def blow(ctx: AppContext, fight_id: int, roll: int, where: str, dice: str) -> dict[str, Any]:
    ok(await next_round(ctx, GM, dice="Guerrier: 5; Cible: 1"))
    hit = ok(
        await fights_attacks.attack(
            ctx,
            GM,
            AttackInput(
                target="Cible", attacker="Guerrier", roll=roll, location=where, damage=dice, effects="2"
            ),
            rng=NoDice(),
        )
    )
    return ok(await defend(ctx, GM, choice="encaisser", fight_id=fight_id, seq=hit["seq"], rng=NoDice()))


async def test_wound_levels_through_the_fight_service(ctx: AppContext) -> None:
    fight_id = await ogl_fight(ctx)
    # ranks: Guerrier 5 + 0 = 5, Cible 1 + 2 = 3
    ok(await next_round(ctx, GM, dice="Guerrier: 5; Cible: 1"))
    # parry: both succeed (30 ≤ 60, 45 ≤ 50) → the higher roll (45) wins
    attack = ok(
        await fights_attacks.attack(
            ctx, GM, AttackInput(target="Cible", attacker="Guerrier", roll=30, location="tete")
        )
    )
    parried = ok(
        await defend(
            ctx, GM, choice="parer", fight_id=fight_id, seq=attack["seq"], rolls=DefenceRolls(roll=45)
        )
    )
    assert parried["outcome"] == "defended"
    # minor: head 4 HP, 1d8 3 + 1 = 4 → 0
    minor = await blow(ctx, fight_id, 30, "tete", "3")
    assert (
        minor["damage"]["total"] == 4
        and minor["wound"]["hp_after"] == 0
        and minor["wound"]["level"] == "minor"
    )
    # serious: right arm 3 HP, 4 + 1 = 5 → −2: the arm is disabled
    serious = await blow(ctx, fight_id, 30, "bras_d", "4")
    assert serious["wound"]["hp_after"] == -2 and serious["wound"]["level"] == "serious"
    assert "disabled" in [c["kind"] for c in serious["wound"]["conditions"]]
    # critical (roll 5 ≤ ⌊60/10⌋ = 6): 1d8 + 1 at its maximum = 9; abdomen 4 → −5 < −4: major
    major = await blow(ctx, fight_id, 5, "abdomen", "")
    assert major["exchange"]["critical"] and major["damage"]["total"] == 9
    assert major["wound"]["hp_after"] == -5 and major["wound"]["level"] == "major"
    assert (
        major["wound"]["endurance_tests"] == ["death", "unconscious"]
        and major["wound"]["death_in_actions"] == 11
    )
    # exactly −HP stays serious by the seed: chest 5, 9 → −4 … then 1 more → −5 = −HP
    chest = await blow(ctx, fight_id, 30, "poitrine", "8")
    assert chest["wound"]["hp_after"] == -4 and chest["wound"]["level"] == "serious"
    due = ok(await roll_due_test(ctx, GM, who="Cible", roll=20))
    assert due["check"]["target"] == 60 and due["check"]["success"]  # CON 12 × 5


async def test_major_threshold_option(ctx: AppContext) -> None:
    fight_id = await ogl_fight(ctx, options="majeure:au_plus")
    # left leg 4 HP, 7 + 1 = 8 → −4 = −HP: major with RULES.md's reading
    leg = await blow(ctx, fight_id, 30, "jambe_g", "7")
    assert leg["wound"]["hp_after"] == -4 and leg["wound"]["level"] == "major"
    # a d20 that is no d20: refused, nothing rolled
    bad = AttackInput(target="Guerrier", attacker="Cible", roll=30, location="25")
    nowhere = await fights_attacks.attack(ctx, GM, bad, rng=NoDice())
    assert nowhere.reply.is_error and "25 n'est pas un d20" in (nowhere.reply.description or "")
    # no location named: the d20 typed by hand read on the hit-location table (a reading:
    # RuneQuest's, data/ogl_hit_location.json): 13-15 → right arm
    typed = AttackInput(target="Guerrier", attacker="Cible", roll=30, location="14")
    aimed = await fights_attacks.attack(ctx, GM, typed, rng=NoDice())
    assert "Localisation : d20 **14** → Bras D" in (aimed.reply.description or "")


async def test_a_fumble_rolls_the_weapon_table(ctx: AppContext) -> None:
    """00 fumbles (reading): 1d20 on the weapon table (``data/ogl_fumbles.json``); 19 rolls three more
    times; 5 drops the weapon, 20 wounds oneself, 2 is not printed by the seed → the GM decides."""
    fight_id = await ogl_fight(ctx)
    ok(await next_round(ctx, GM, dice="Guerrier: 5; Cible: 1"))
    out = await fights_attacks.attack(
        ctx,
        GM,
        AttackInput(target="Cible", attacker="Guerrier", roll=0, location="tete", effects="19 5 20 2"),
        rng=NoDice(),
    )
    fumble = ok(out)
    assert fumble["outcome"] == "miss" and fumble["exchange"]["fumble_attacker"]
    [rolled] = fumble["fumbles"]
    assert rolled["combatant"] == "guerrier" and rolled["table"] == "weapon"
    assert rolled["rolls"] == [19, 5, 20, 2]
    assert [f["id"] for f in rolled["faces"]] == ["weapon_19", "weapon_04_06", "weapon_20", "weapon_01_03"]
    assert [f["gm_decides"] for f in rolled["faces"]] == [False, False, False, True]
    text = out.reply.description or ""
    assert "Arme lâchée" in text and "le MJ décide" in text
    # the defender's fumble reads its d20s from ``tests``; a natural weapon uses its own table
    ok(await next_round(ctx, GM, dice="Guerrier: 5; Cible: 1"))
    hit = ok(
        await fights_attacks.attack(
            ctx, GM, AttackInput(target="Cible", attacker="Guerrier", roll=30, location="tete", damage="3")
        )
    )
    parried = ok(
        await defend(
            ctx,
            GM,
            choice="parer",
            fight_id=fight_id,
            seq=hit["seq"],
            rolls=DefenceRolls(roll=100, tests="4"),
            rng=NoDice(),
        )
    )
    assert parried["exchange"]["fumble_defender"] and parried["outcome"] == "hit"
    assert parried["fumbles"][0]["combatant"] == "cible" and parried["fumbles"][0]["rolls"] == [4]


async def test_a_knockback_against_a_wall(ctx: AppContext) -> None:
    """Seed 004 l. 35: damage 12 > SIZ 8 throws the Cible back 1 m; ``situation:mur`` adds, after
    the Acrobatie test, « un test d'Esquive ou perdre 1d4 points de dégâts localisés
    aléatoirement »: Esquive 40, 90 fails; the wall's 1d4 (3) and its location d20 (14 → right arm,
    a reading: RuneQuest's bands) typed after the weapon's dice in ``degats``."""
    async with ctx.sessions.begin() as session:
        await set_channel_ruleset(session, GUILD, CHANNEL, "ogl")
    fight_id = int(ok(await open_fight(ctx, GM, name="Arène"))["fight_id"])
    mace = NpcStats(caracs=BODY, weapons="Masse 2d8 60%")
    ok(await add_combatants(ctx, GM, who="Guerrier", stats=mace, side="Arène"))
    small = "STR:10 CON:12 SIZ:8 INT:10 POW:10 DEX:14 CHA:10 Esquive:40"
    ok(
        await add_combatants(
            ctx,
            GM,
            who="Cible",
            stats=NpcStats(caracs=small, weapons="Dague 1d4+1 50%", armour="poitrine:12"),
        )
    )
    ok(await next_round(ctx, GM, dice="Guerrier: 9; Cible: 1"))
    blow = AttackInput(
        target="Cible",
        attacker="Guerrier",
        roll=30,
        location="poitrine",
        situation="mur",
        damage="8 4 3 14",
        effects="2",
    )
    hit = ok(await fights_attacks.attack(ctx, GM, blow, rng=NoDice()))
    taken = ok(await defend(ctx, GM, choice="encaisser", fight_id=fight_id, seq=hit["seq"], rng=NoDice()))
    assert taken["knockback"]["metres"] == 1 and taken["wound"]["hp_after"] == taken["wound"]["hp_before"]
    acrobatics = ok(await roll_due_test(ctx, GM, who="Cible", roll=10))
    assert acrobatics["check"]["success"]
    wall = await roll_due_test(ctx, GM, who="Cible", roll=90)
    result = ok(wall)
    assert result["wall"]["check"]["target"] == 40 and not result["wall"]["check"]["success"]
    assert result["wall"]["damage"] == 3 and result["wall"]["location"] == {"roll": 14, "location": "bras_d"}
    text = wall.reply.description or ""
    assert (
        "Localisation : d20 **14** → Bras D" in text and "Le choc contre le mur : 3 points de dégâts." in text
    )
    # (CON 12 + SIZ 8) / 2 = 10 HP, an arm ⌈10 / 4⌉ = 3, no armour there: 3 − 3 = 0
    assert "Bras D : dégâts 3 = **3** → PV 3 → **0**/3" in text
