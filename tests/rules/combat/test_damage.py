"""Damage, armour (coverage, layers, wear), shields, parry side effects, the critical matrix."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bot.rules.combat.tables import CombatTables
from bot.rules.renove.attack import AttackRequest, ParryRequest, resolve_attack, resolve_parry
from bot.rules.renove.damage import (
    ArmourError,
    build_armour,
    critical_value,
    damage_to_parry_implement,
    damage_to_target,
    mort_subite,
    parry_side_effect,
    roll_critical,
    roll_damage_die,
    shield_max_pv,
    wear_shield,
)


def _terms(mods: tuple[object, ...]) -> dict[str, int]:
    return {m.label.removeprefix("combat.modifier."): m.value for m in mods}  # type: ignore[attr-defined]


def test_plain_damage_without_armour(tables: CombatTables) -> None:
    sword = tables.weapon("epee")
    die = roll_damage_die(tables, sword, damage_dice=[6])
    result = damage_to_target(tables, die, sword, attacker_bf=6, target_be=6, zone="bras")
    # 6 + BF 6 - BE 6 + Vicelarde (no armour) +1 = 7
    assert _terms(result.steps) == {"damage_die": 6, "bf": 6, "be": -6, "attribute.vicelarde.none": 1}
    assert result.total == 7 and result.wear is None


def test_partial_armour_miss_and_hit_with_wear(tables: CombatTables) -> None:
    armour = build_armour(tables, ["plates_salade"])  # head ½, plates PA 2, heavy
    assert armour["tete"][0].coverage == Fraction(1, 2)
    mace = tables.weapon("masse_marteau")  # Contondante
    die = roll_damage_die(tables, mace, damage_dice=[5])
    miss = damage_to_target(
        tables,
        die,
        mace,
        attacker_bf=6,
        target_be=6,
        zone="tete",
        layers=armour["tete"],
        coverage_rolls={"plates": 51},
    )
    assert (
        miss.armour is not None
        and miss.armour.layers[0].coverage_roll == 51
        and not miss.armour.layers[0].counts
    )
    assert miss.armour.armour_class == "none" and miss.total == 5 - 1 and miss.wear is None
    hit = damage_to_target(
        tables,
        die,
        mace,
        attacker_bf=6,
        target_be=6,
        zone="tete",
        layers=armour["tete"],
        coverage_rolls={"plates": 50},
    )
    assert hit.armour is not None and hit.armour.layers[0].counts and hit.armour.pa == 2
    assert _terms(hit.steps) == {
        "damage_die": 5,
        "bf": 6,
        "be": -6,
        "armour": -2,
        "attribute.contondante.lourde": 1,
    }
    assert hit.total == 4
    assert hit.wear is not None and (hit.wear.pv_before, hit.wear.pv_after, hit.wear.pa_lost) == (
        10,
        9,
        False,
    )
    assert hit.layers_after[0].pv == 9


def test_quarters_add_up_within_a_family(tables: CombatTables) -> None:
    armour = build_armour(tables, ["plates_gantelet", "plates_canon_d_avant_bras"])
    assert armour["bras"][0].coverage == Fraction(1, 2)
    full = build_armour(
        tables,
        [
            "plates_gantelet",
            "plates_canon_d_avant_bras",
            "plates_brassard_d_arriere_bras",
            "plates_spallieres",
        ],
    )
    assert full["bras"][0].coverage == 1


def test_layered_armour_adds_pa_and_outer_layer_gives_the_class(tables: CombatTables) -> None:
    armour = build_armour(tables, ["matelassee_gambison", "maille_haubert", "plates_plastron"])
    assert [layer.family for layer in armour["corps"]] == ["matelassee", "maille", "plates"]
    sword = tables.weapon("epee")
    die = roll_damage_die(tables, sword, damage_dice=[10])
    body = damage_to_target(
        tables, die, sword, attacker_bf=7, target_be=6, zone="corps", layers=armour["corps"]
    )
    assert body.armour is not None and body.armour.pa == 1 + 2 + 2 and body.armour.armour_class == "lourde"
    assert body.total == 10 + 7 - 6 - 5 - 1
    assert body.wear is not None and body.wear.family == "plates"
    # legs: gambison ½ and haubert ½ — two coverage rolls, the outer one (maille) misses.
    legs = damage_to_target(
        tables,
        die,
        sword,
        attacker_bf=7,
        target_be=6,
        zone="jambes",
        layers=armour["jambes"],
        coverage_rolls={"matelassee": 10, "maille": 80},
    )
    assert legs.armour is not None and legs.armour.pa == 1 and legs.armour.outer == "matelassee"
    assert legs.armour.armour_class == "legere" and legs.wear is not None and legs.wear.family == "matelassee"
    with pytest.raises(ArmourError) as err:
        build_armour(tables, ["cuir_bouilli_plastron", "maille_haubert"])
    assert err.value.reason == "combat.armour.not_combinable"


def test_wear_to_zero_loses_one_pa_once(tables: CombatTables) -> None:
    armour = build_armour(tables, ["maille_gilet"], quality="mediocre")
    layers = armour["corps"]
    axe = tables.weapon("hache_pic")
    die = roll_damage_die(tables, axe, damage_dice=[5])
    for expected_pv in (4, 3, 2, 1, 0):
        result = damage_to_target(tables, die, axe, attacker_bf=6, target_be=6, zone="corps", layers=layers)
        layers = result.layers_after
        assert layers[0].pv == expected_pv
    assert layers[0].pa_lost == 1
    after = damage_to_target(tables, die, axe, attacker_bf=6, target_be=6, zone="corps", layers=layers)
    assert after.armour is not None and after.armour.pa == 1 and after.layers_after[0].pa_lost == 1


@pytest.mark.parametrize(
    ("weapon", "pieces", "dice", "expected"),
    [
        # Perforante ignores 1 PA (dague BF-2 vs maille PA 2)
        ("dague", ["maille_gilet"], [8], 8 + 6 - 2 - 6 - 2 + 1),
        # Percutante: 2d10 keep best (fléau d'armes BF+2)
        ("fleau_d_armes", ["maille_gilet"], [3, 9], 9 + 6 + 2 - 6 - 2),
        # Vicelarde vs medium -1
        ("fauchon_messer_braquemart", ["maille_gilet"], [7], 7 + 6 - 6 - 2 - 1),
        # Contondante vs light -1
        ("gourdin", ["matelassee_gilet"], [7], 7 + 6 - 1 - 6 - 1 - 1),
        # missile: fixed damage 6, Perforante (arc long)
        ("arc_long", ["maille_gilet"], [4], 4 + 6 - 6 - 2 + 1),
    ],
)
def test_weapon_attributes_on_damage(
    tables: CombatTables, weapon: str, pieces: list[str], dice: list[int], expected: int
) -> None:
    w = tables.weapon(weapon)
    die = roll_damage_die(tables, w, damage_dice=dice)
    result = damage_to_target(
        tables, die, w, attacker_bf=6, target_be=6, zone="corps", layers=build_armour(tables, pieces)["corps"]
    )
    assert result.total == expected


def test_percutante_off_when_epuisante_ran_out(tables: CombatTables) -> None:
    die = roll_damage_die(tables, tables.weapon("fleau_d_armes"), damage_dice=[3], percutante_active=False)
    assert die.expression == "1d10" and die.value == 3


def test_parry_with_a_side_effect(tables: CombatTables) -> None:
    """Albert (F 45, BF 7) hits Rudolf (F 35) who parries with his sword; the side-effect roll is 70."""
    sword = tables.weapon("epee")
    attack = resolve_attack(tables, AttackRequest(sword, 40, 30), attack_roll=25)  # 60 -> 3 °R, body
    parry = resolve_parry(tables, attack, ParryRequest(30, 40, sword), parry_roll=31)  # 40 + 10 Défensive
    assert parry.check is not None and parry.check.target == 50 and parry.success
    die = roll_damage_die(tables, sword, attack, damage_dice=[8])
    vs_parry, profile = damage_to_parry_implement(tables, die, sword, sword, attacker_bf=7, attack=attack)
    assert profile.id == "arme_normale" and vs_parry.total == 8 + 7 - 6
    had_failed = damage_to_target(
        tables, die, sword, attacker_bf=7, target_be=6, zone=attack.zone or "", wear=False
    )
    assert had_failed.total == 8 + 7 - 6 + 1
    side = parry_side_effect(
        tables,
        f_attacker=45,
        f_defender=35,
        damage_vs_parry=vs_parry.total,
        damage_if_failed=had_failed.total,
        side_effect_roll=70,
    )
    assert side.total == 70 + 45 - 35 + 9 == 89 and side.band.id == "desequilibre" and side.damage_taken == 0
    worse = parry_side_effect(
        tables, f_attacker=45, f_defender=35, damage_vs_parry=9, damage_if_failed=10, side_effect_roll=80
    )
    assert worse.band.id == "chute_quart_degats" and worse.damage_taken == 3  # ¼ of 10 rounded up
    calm = parry_side_effect(
        tables, f_attacker=20, f_defender=60, damage_vs_parry=0, damage_if_failed=5, side_effect_roll=10
    )
    assert calm.total == -30 and calm.band.id == "tout_va_bien"


def test_shield_takes_the_parried_damage_and_breaks(tables: CombatTables) -> None:
    shield = tables.weapon("bouclier")
    dagger = tables.weapon("dague")
    die = roll_damage_die(tables, dagger, damage_dice=[9])
    vs_shield, profile = damage_to_parry_implement(tables, die, dagger, shield, attacker_bf=7)
    # 9 + 7 - 2 (dague) - 8 (shield BE) - 3 (Perforante vs shields) = 3
    assert profile.id == "bouclier_cercle_bois" and vs_shield.total == 3
    assert (
        shield_max_pv(tables, "bouclier") == 80 and shield_max_pv(tables, "rondache", "exceptionnelle") == 180
    )
    worn = wear_shield(profile, 80, vs_shield.total)
    assert (worn.pv_after, worn.destroyed) == (77, False)
    broken = wear_shield(profile, 2, vs_shield.total)
    assert broken.destroyed
    forced = parry_side_effect(
        tables, f_attacker=0, f_defender=0, damage_vs_parry=0, damage_if_failed=7, shield_destroyed=True
    )
    assert forced.forced and forced.band.id == "arme_brisee" and forced.damage_taken == 7


def test_critical_matrix_first_row(tables: CombatTables) -> None:
    values = [critical_value(tables, damage, 5).value for damage in range(1, 11)]
    assert values == [5, 5, 6, 6, 7, 9, 11, 14, 15, 15]


def test_six_damage_gives_3_to_9_mean_5_7(tables: CombatTables) -> None:
    column = [critical_value(tables, 6, decade * 10 + 1).value for decade in range(10)]
    assert column == [9, 8, 7, 6, 6, 5, 5, 4, 4, 3]
    assert min(column) == 3 and max(column) == 9 and Fraction(sum(column), 10) == Fraction(57, 10)
    every_roll = [critical_value(tables, 6, r).value for r in range(1, 101)]
    assert Fraction(sum(every_roll), 100) == Fraction(57, 10)
    assert critical_value(tables, 6, 100).row == "91-00" and critical_value(tables, 6, 0).value == 3


def test_overflow_precise_dur_a_cuire_and_clamp(tables: CombatTables) -> None:
    big = critical_value(tables, 13, 95)  # 12 + 3
    assert big.grid == 12 and big.raw == 15 and big.value == 15
    assert critical_value(tables, 14, 95).value == 15  # clamped
    precise = critical_value(tables, 6, 45, attacker_attributes=["precise"], victim_talents=["dur_a_cuire"])
    assert _terms(precise.steps) == {"critical.grid": 6, "attribute.precise": 1, "talent.dur_a_cuire": -1}
    assert critical_value(tables, 1, 95, victim_talents=["dur_a_cuire"]).value == 1  # never below 1
    with pytest.raises(ValueError):
        critical_value(tables, 0, 50)


def test_roll_critical_reads_the_weapon_kind_table(tables: CombatTables) -> None:
    result = roll_critical(tables, "tranchantes", "jambes", 6, critical_roll=45)
    assert (
        result is not None
        and result.value.value == 6
        and result.entry.source == "criticals.tranchantes.jambes.6"
    )
    assert roll_critical(tables, "tranchantes", "jambes", 0, critical_roll=45) is None
    npc = roll_critical(tables, "contondantes", "tete", 10, critical_roll=5, use_mort_subite=True)
    assert npc is not None and npc.mort_subite is not None and npc.mort_subite.outcome == "dies"


@pytest.mark.parametrize(
    ("value", "outcome"),
    [
        (1, "fights_on"),
        (7, "fights_on"),
        (8, "tries_to_flee"),
        (12, "tries_to_flee"),
        (13, "dies"),
        (15, "dies"),
    ],
)
def test_mort_subite(tables: CombatTables, value: int, outcome: str) -> None:
    assert mort_subite(tables, value).outcome == outcome
