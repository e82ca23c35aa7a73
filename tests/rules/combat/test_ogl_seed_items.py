"""`ogl` (seed 004) rules of issue #20 with the seed's numbers and every die entered by hand: whose
test each situational modifier changes, the charge, the aim, the Nuée de Coups, the damage-modifier
dice typed by hand, and « l'autre résultat est diminué »."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.rules.ogl.combat import (
    FLURRY_MALUS,
    SITUATION_SIDES,
    OglMelee,
    Outcome,
    Reaction,
    Side,
    aim_bonus,
    knockback,
    resolve_attack,
    roll_damage,
    situational,
)

ROOT = Path(__file__).resolve().parents[3]

# id, side, reaction → modifier (None: refused on that side)
SIDES = [
    ("defense_position_basse_ou_contre_monte", Side.DEFENCE, Reaction.PARRY, -20),
    ("defense_position_basse_ou_contre_monte", Side.ATTACK, None, None),  # never the attacker's
    ("position_surelevee_ou_monte", Side.ATTACK, None, 20),
    ("position_surelevee_ou_monte", Side.DEFENCE, Reaction.DODGE, 20),
    ("a_terre", Side.DEFENCE, Reaction.PARRY, -30),
    ("sol_instable", Side.DEFENCE, Reaction.DODGE, -20),
    ("obscurite_partielle", Side.DEFENCE, Reaction.PARRY, -20),
    ("obscurite", Side.DEFENCE, Reaction.PARRY, -40),
    ("aveugle_obscurite_totale", Side.ATTACK, None, -60),
    ("en_defense", Side.DEFENCE, Reaction.DODGE, 20),
    ("en_defense", Side.DEFENCE, Reaction.PARRY, 20),
    ("en_defense", Side.ATTACK, None, None),
    ("accule", Side.DEFENCE, Reaction.DODGE, -20),
    ("accule", Side.DEFENCE, Reaction.PARRY, None),  # cornered: the dodge only
    ("cible_surprise", Side.DEFENCE, Reaction.DODGE, None),  # « la cible est … »: the attacker's
    ("cible_surprise", Side.ATTACK, None, 20),
]


@pytest.mark.parametrize(("item", "side", "reaction", "value"), SIDES)
def test_whose_test_a_situation_changes(
    item: str, side: Side, reaction: Reaction | None, value: int | None
) -> None:
    """Seed line 10: « Attaquer ou se défendre sur un sol instable -20% […] Défendre depuis une position
    inférieure ou contre un ennemi monté -20% Combattre dans l'obscurité partielle -20% ». Line 6:
    « En Défense : Le personnage gagne 20% à ses tests d'Esquive et de Parade ». Line 19: « s'il est
    acculé à un mur […] il a un malus de -20% à sa compétence d'Esquive »."""
    if value is None:
        with pytest.raises(ValueError):
            situational([item], side=side, reaction=reaction)
    else:
        [mod] = situational([item], side=side, reaction=reaction)
        assert mod.value == value


def test_the_sides_follow_the_data_file() -> None:
    """``applies_to`` of ``data/ogl_situational_modifiers.json``: « own_defence » only defends,
    « attacker_skill » / « ranged_attack » only attack, the others both."""
    entries = json.loads((ROOT / "data" / "ogl_situational_modifiers.json").read_text("utf-8"))["entries"]
    for e in entries:
        if e["id"] not in SITUATION_SIDES:
            continue
        sides = SITUATION_SIDES[e["id"]]
        expected = {
            "own_defence": {Side.DEFENCE},
            "own_reactions": {Side.DEFENCE},
            "attacker_skill": {Side.ATTACK},
            "ranged_attack": {Side.ATTACK},
        }.get(e["applies_to"], {Side.ATTACK, Side.DEFENCE})
        assert sides == expected, e["id"]


@pytest.mark.parametrize(("actions", "bonus"), [(1, 10), (2, 20), (3, 30), (4, 30), (0, 0)])
def test_aim(actions: int, bonus: int) -> None:
    """Seed line 5: « Chaque Action que le personnage emploie à viser augmente de +10% son score avec
    l'arme à distance qu'il utilise. […] il ne peut dépasser +30%. »"""
    assert aim_bonus(actions).value == bonus


# weapon, md, dice typed, md dice, charge die, critical → total
DAMAGE = [
    ("1d8+1", "1d4", [5], [2], 3, False, 5 + 1 + 2 + 3),  # a charge: +1d4
    ("1d8+1", "1d4", [5], [2], None, False, 5 + 1 + 2),  # no charge, the md typed
    ("1d8+1", "1d4", [], [2], 4, True, 8 + 1 + 2 + 4),  # critical: the weapon maximised, not the md
    ("2d6", None, [3, 4], [], 1, False, 3 + 4 + 1),
]


@pytest.mark.parametrize(("weapon", "md", "dice", "md_dice", "charge_die", "critical", "total"), DAMAGE)
def test_damage_with_charge_and_typed_modifier(
    weapon: str,
    md: str | None,
    dice: list[int],
    md_dice: list[int],
    charge_die: int | None,
    critical: bool,
    total: int,
) -> None:
    """Seed line 6: « Si l'attaque réussit, le personnage obtient un bonus de +1d4 aux dégâts. » Lines
    11-12: « Le Modificateur aux Dégâts est résolu normalement. […] Le Modificateur aux Dégâts et ses
    dérivés ne sont pas maximisés. »"""
    damage = roll_damage(
        weapon,
        damage_modifier=md,
        critical=critical,
        charge=charge_die is not None,
        dice=dice,
        modifier_dice=md_dice,
        charge_die=charge_die,
    )
    assert damage.total == total


# damage, SIZ, charge → metres
KNOCKBACK = [(11, 8, True, 2), (11, 8, False, 1), (18, 12, True, 4), (12, 12, True, 0), (23, 12, False, 3)]


@pytest.mark.parametrize(("damage", "siz", "charge", "metres"), KNOCKBACK)
def test_knockback_doubled_by_a_charge(damage: int, siz: int, charge: bool, metres: int) -> None:
    """Seed line 35: « Si les dégâts à ce stade dépassent la TAI du personnage, celui-ci est projeté en
    arrière de 1 m […] Pour chaque tranche complète de 5 points au dessus de la TAI […] 1 m
    supplémentaire. […] dans le cadre d'une Action de Charge, la distance de Recul est doublée. »"""
    assert knockback(damage, siz, charge=charge).metres == metres


def test_no_precise_attack_in_a_charge_or_a_flurry() -> None:
    """Seed line 15: « Les attaques précises ne peuvent pas être effectuées au sein d'une charge ou
    d'une Nuée de Coups. » Line 6: Nuée de Coups « avec un malus de -20% »."""
    from bot.rules.ogl.combat import Precise

    refused = resolve_attack(60, precise=Precise.AIMED, charge=True, attack_roll=10)
    assert not isinstance(refused, OglMelee)
    flurry = resolve_attack(60, flurry=True, attack_roll=45)
    assert isinstance(flurry, OglMelee) and flurry.attack.target == 60 + FLURRY_MALUS
    assert not flurry.attack.success  # 45 > 40


# attack skill, roll, defence skill, roll → outcome, whose result is diminished, before, after
DIMINISHED = [
    (60, 5, 50, 30, Outcome.DEFENDED, "attack", "critical_success", "success"),  # a critical beaten
    (60, 45, 50, 30, Outcome.HIT, "defence", "success", "failure"),
    (60, 45, 50, 4, Outcome.HIT, "defence", "critical_success", "success"),  # a critical parry beaten
    (60, 20, 50, 30, Outcome.DEFENDED, "attack", "success", "failure"),
    (60, 70, 50, 30, Outcome.DEFENDED, None, None, None),  # only one succeeds: nothing diminished
]


@pytest.mark.parametrize(
    ("skill", "roll", "dskill", "droll", "outcome", "side", "before", "after"), DIMINISHED
)
def test_the_other_result_is_diminished(
    skill: int,
    roll: int,
    dskill: int,
    droll: int,
    outcome: Outcome,
    side: str | None,
    before: str | None,
    after: str | None,
) -> None:
    """Seed line 9: « Si les deux personnages réussissent, celui qui a obtenu le résultat le plus élevé
    gagne, l'autre résultat est diminué. »"""
    melee = resolve_attack(skill, dskill, reaction=Reaction.PARRY, attack_roll=roll, defence_roll=droll)
    assert isinstance(melee, OglMelee) and melee.outcome is outcome
    if side is None:
        assert melee.diminished is None
    else:
        assert melee.diminished is not None
        assert (melee.diminished.side, melee.diminished.before, melee.diminished.after) == (
            side,
            before,
            after,
        )
    assert not melee.critical or outcome is Outcome.HIT


@pytest.mark.parametrize(("score", "roll", "prone"), [(60, 95, True), (60, 60, False), (45, 46, True)])
def test_acrobatics_after_a_knockback(score: int, roll: int, prone: bool) -> None:
    """Seed line 35: « Un personnage qui subit un Recul doit réussir un test d'Acrobatie pour ne pas se
    retrouver à terre. »"""
    from bot.rules.ogl.combat import acrobatics_test

    assert acrobatics_test(score, roll=roll).success is not prone


# disabled locations, test → modifier (None: no malus)
LIMBS = [
    ({"jambe_d"}, "weapon", -10),  # l. 34: « toutes les Compétences d'Arme »
    ({"jambe_g"}, "dodge", -10),  # l. 34: « Esquive »
    ({"jambe_d", "jambe_g"}, "dodge", -30),  # l. 35: « comme la Discrétion ou l'Esquive »
    ({"jambe_d", "jambe_g"}, "weapon", -10),  # reading: the one-leg malus stays
    ({"bras_d", "bras_g"}, "dodge", -30),  # l. 33: « Athlétisme ou Esquive, qui souffrent […] -30% »
    ({"bras_d"}, "dodge", None),
    ({"poitrine"}, "weapon", None),
]


@pytest.mark.parametrize(("where", "test", "value"), LIMBS)
def test_useless_limbs_maluses(where: set[str], test: str, value: int | None) -> None:
    """Seed lines 33-35 (« Un Bras Manquant ou Inutilisable », « Une Jambe Manquante ou Inutilisable »,
    « Deux Jambes Manquantes ou Inutilisables »)."""
    from bot.rules.ogl.combat import limb_modifiers

    mods = limb_modifiers(where, test)
    assert [m.value for m in mods] == ([] if value is None else [value])


# disabled, weapon index, two-handed, natural → refusal key (None: allowed)
ARMS = [
    (
        {"bras_d"},
        0,
        False,
        False,
        "combat.ogl.refusal.weapon_dropped",
    ),  # l. 33: « lâche tout ce qu'il tient »
    ({"bras_d"}, 1, False, False, None),  # the other hand's weapon
    (
        {"bras_g"},
        0,
        True,
        False,
        "combat.ogl.refusal.two_handed_one_arm",
    ),  # « ne peut plus utiliser d'arme à deux mains »
    (
        {"bras_d", "bras_g"},
        1,
        False,
        False,
        "combat.ogl.refusal.no_arm_left",
    ),  # « ne peut plus utiliser d'arme »
    ({"bras_d", "bras_g"}, 0, False, True, None),  # natural weapons (reading)
]


@pytest.mark.parametrize(("where", "index", "two_handed", "natural", "key"), ARMS)
def test_useless_arms_drop_their_weapon(
    where: set[str], index: int, two_handed: bool, natural: bool, key: str | None
) -> None:
    """Seed line 33: « Un personnage avec un bras inutilisable lâche tout ce qu'il tient dans la main (du
    bras blessé). Le personnage ne peut plus utiliser d'arme à deux mains »."""
    from bot.rules.ogl.combat import arm_refusal

    refusal = arm_refusal(where, index, two_handed=two_handed, natural=natural)
    assert (refusal.reason if refusal else None) == key


# --- item 20: the hit location (a reading: the seed prints no table; RuneQuest's d20 bands) ------

HIT_BANDS = json.loads((ROOT / "data" / "ogl_hit_location.json").read_text(encoding="utf-8"))["entries"]


@pytest.mark.parametrize(
    ("roll", "where"),
    [
        (1, "jambe_d"),
        (4, "jambe_d"),
        (5, "jambe_g"),
        (8, "jambe_g"),
        (9, "abdomen"),
        (11, "abdomen"),
        (12, "poitrine"),
        (13, "bras_d"),
        (15, "bras_d"),
        (16, "bras_g"),
        (18, "bras_g"),
        (19, "tete"),
        (20, "tete"),
    ],
)
def test_the_hit_location_d20_typed_by_hand(roll: int, where: str) -> None:
    from bot.rules.ogl.combat import roll_hit_location

    hit = roll_hit_location(HIT_BANDS, roll=roll)
    assert (hit.roll, hit.location) == (roll, where)


def test_the_hit_location_bands_cover_the_d20_once() -> None:
    covered = [n for band in HIT_BANDS for n in range(band["min"], band["max"] + 1)]
    assert sorted(covered) == list(range(1, 21))


def test_a_server_table_with_a_gap_is_refused_and_a_lookup_never_raises() -> None:
    """A gap is refused when the table is loaded or uploaded (``x-bands``, #23 item 7); past the
    bands, the lookup reads the nearest one instead of crashing the fight."""
    from bot.data_loading import band_problems
    from bot.rules.ogl.combat import roll_hit_location

    bands = [{"min": 1, "max": 6, "location": "tete"}, {"min": 9, "max": 20, "location": "poitrine"}]
    assert band_problems(bands, {"min": "min", "max": "max", "from": 1, "to": 20}) == [
        "entries: nothing covers 7-8 (between 1-6 and 9-20)"
    ]
    assert roll_hit_location(bands, roll=7).location == "tete"


# --- item 21: against a wall, « un test d'Esquive ou perdre 1d4 points de dégâts localisés
# aléatoirement » (l. 35) ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dodge", "roll", "die", "where", "damage", "location"),
    [
        (40, 40, 3, 14, None, None),  # 40 ≤ 40: dodged, no die read
        (40, 41, 3, 14, 3, "bras_d"),
        (40, 95, 4, 20, 4, "tete"),
        (60, 61, 1, 1, 1, "jambe_d"),
    ],
)
def test_a_knockback_against_a_wall(
    dodge: int, roll: int, die: int, where: int, damage: int | None, location: str | None
) -> None:
    from bot.rules.ogl.combat import wall_impact

    impact = wall_impact(dodge, HIT_BANDS, roll=roll, damage_die=die, location_roll=where)
    assert impact.check.target == dodge and impact.damage == damage
    assert (impact.location.location if impact.location else None) == location


# --- item 21 outside fights: useless limbs and the skills the seed names (l. 33-35) -------------


@pytest.mark.parametrize(
    ("limbs", "skill", "malus"),
    [
        ({"bras_d"}, "canotage", ("one_arm", -20)),
        ({"bras_d"}, "athletisme", ("one_arm", -20)),
        ({"bras_d"}, "esquive", None),
        ({"bras_d", "bras_g"}, "athletisme", ("two_arms", -30)),
        ({"bras_d", "bras_g"}, "esquive", ("two_arms", -30)),
        ({"jambe_g"}, "discretion", ("one_leg", -10)),
        ({"jambe_g"}, "athletisme", ("one_leg", -10)),
        ({"jambe_g"}, "canotage", None),
        ({"jambe_d", "jambe_g"}, "esquive", ("two_legs", -30)),
        ({"jambe_d", "jambe_g"}, "athletisme", ("one_leg", -10)),  # reading: the one-leg malus stays
        ({"jambe_d", "bras_d"}, "athletisme", ("one_arm", -20)),  # the worst, not the sum
        (set(), "esquive", None),
    ],
)
def test_useless_limbs_outside_fights(limbs: set[str], skill: str, malus: tuple[str, int] | None) -> None:
    from bot.rules.ogl.combat import skill_limb_malus

    assert skill_limb_malus(limbs, skill) == malus
