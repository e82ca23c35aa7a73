"""`d20` (seed 003) rules of issue #20, with the seed's numbers and every die entered by hand:
thrown and fired weapons, projectiles against armour, criticals with edged / thrown / fired weapons,
the successful dodge of an arme blanche, blunt fractures against the body's SR."""

from __future__ import annotations

import pytest

from bot.rules.d20 import checks as d20_checks
from bot.rules.d20.combat import (
    CRITICAL_CONTEXTS,
    Case,
    Context,
    CriticalMode,
    DefenceKind,
    Melee,
    Protection,
    blunt_blow,
    critical_wound,
    projectile_blow,
    resolve_armour,
    resolve_impact,
    resolve_melee,
    thrown_blow,
)

# BF, weapon modifier, random part, shock rate → penetration, shock
THROWN = [
    (2, 1, None, 0, 3, 0),  # the javelin: BF 2 + weapon +1 = 3
    (3, 0, None, 0, 3, 0),  # a stone: BF only
    (2, 1, 4, 5, 7, 5),  # a javelin with a random part of 4 and a shock rate of 5
    (0, 2, None, 0, 2, 0),  # a throwing knife thrown by a weak arm
]


@pytest.mark.parametrize(("bf", "weapon", "random_part", "shock_rate", "pen", "shock"), THROWN)
def test_thrown_penetration(
    bf: int, weapon: int, random_part: int | None, shock_rate: int, pen: int, shock: int
) -> None:
    """Seed line 100: « La pénétration d'une arme de jet est égale au Bonus de Force du lanceur + les
    modificateurs éventuels de l'arme. » Lines 109-110: « À chaque projectile correspond un taux de
    pénétration invariable + une variable aléatoire. A chaque projectile correspond un taux de choc
    qui est lui aussi invariable. »"""
    blow = thrown_blow(bf, weapon, random_part=random_part, shock_rate=shock_rate)
    assert (blow.penetration, blow.shock) == (pen, shock)
    assert sum(t.value for t in blow.penetration_terms) == pen


# score, attack roll, d20 typed for the zone, d20 typed for the damage, weapon → exact, die, index
IMPACTS = [
    (14, 4, None, 9, 1, True, None, 10),  # MR 10: the aimed zone; d20 9 + 1
    (14, 5, 3, 9, 1, False, 6, 10),  # MR 9: a d6 around the aimed point
    (14, 9, 3, 2, 1, False, 6, 3),  # MR 5: still a d6; d20 2 + 1
    (14, 10, 17, 20, 1, False, 20, 21),  # MR 4: a d20
    (14, 14, 1, 1, -2, False, 20, -1),  # MR 0 is a success: a d20; d20 1 − 2
]


@pytest.mark.parametrize(("score", "roll", "zone", "damage", "weapon", "exact", "die", "index"), IMPACTS)
def test_thrown_and_fired_impact_by_mr_band(
    score: int,
    roll: int,
    zone: int | None,
    damage: int,
    weapon: int,
    exact: bool,
    die: int | None,
    index: int,
) -> None:
    """Seed lines 146-148: « Une MR de 10 et plus signifie que le projectile touche précisément la zone
    visée […] Une MR de 9 à 5 entraîne le jet d'un dé à 6 faces […] Une MR de 4 à 0 entraîne le jet
    d'un dé à 20 faces ». Line 102: « puis par un le résultat d'un d20 .+ les modificateurs éventuels
    de l'arme, sur la table des dégâts par localisation. »"""
    shot = d20_checks.check(score, roll=roll)
    impact = resolve_impact(shot, "thorax", weapon_modifier=weapon, zone_roll=zone, damage_roll=damage)
    assert impact is not None
    assert (impact.exact, impact.die, impact.damage_index) == (exact, die, index)
    assert impact.zone_roll == zone and (impact.zone == "thorax") is exact


# rate, random part, shock rate, vest RP/RC/SR → pierced, penetration left, shock lost, ruined
FIRED = [
    (25, 8, 12, (30, 10, 60), True, 3, 2, False),  # the pistol against « Gilet 30/10/60 »: 33 > 30
    (25, 5, 12, (30, 10, 60), False, 0, 2, False),  # 30 does not exceed RP 30: stopped, shock 12 − 10
    (25, 1, 8, (30, 10, 60), False, 0, 0, False),  # shock 8 − RC 10 < 0: no shock
    (40, 10, 15, (30, 10, 60), True, 20, 5, True),  # 50 + 15 = 65 > SR 60: the vest is ruined
]


@pytest.mark.parametrize(
    ("rate", "random_part", "shock_rate", "vest", "pierced", "pen", "shock", "ruined"), FIRED
)
def test_fired_projectiles_meet_the_armour(
    rate: int,
    random_part: int,
    shock_rate: int,
    vest: tuple[int, int, int],
    pierced: bool,
    pen: int,
    shock: int,
    ruined: bool,
) -> None:
    """Seed line 115: « A chaque projectile correspond un taux de pénétration + une variable
    aléatoire. » Line 160: « On sait si une arme a transpercé une protection quand son taux de
    pénétration […] dépasse la RP de la protection. » Line 162: « Une arme ou un projectile ayant
    percé une armure, voit sa pénétration et son choc diminuer de la valeur de la RP et de la RC »."""
    blow = projectile_blow(rate, random_part, shock_rate)
    assert blow.penetration == rate + random_part and blow.shock == shock_rate
    result = resolve_armour(blow, [Protection("Gilet", *vest)])
    [layer] = result.layers
    assert (layer.pierced, result.penetration, result.shock, layer.ruptured) == (pierced, pen, shock, ruined)


# mode, first wound's PV, d20 typed, weapon, table → second index, extra PV
CRITICALS = [
    (CriticalMode.SECOND_WOUND, 4, 12, 1, {0: 1, 10: 6}, 13, 6),  # d20 12 + 1 → row 10: 6 more PV
    (CriticalMode.SECOND_WOUND, 4, 3, 1, {0: 1, 10: 6}, 4, 1),  # d20 3 + 1 → row 0: 1 more PV
    (CriticalMode.SECOND_WOUND, None, 12, 3, None, 15, None),  # no table: the index for the GM
    (CriticalMode.DOUBLE_PV, 6, None, 1, {0: 1, 10: 6}, None, 6),  # the 6 PV lost again
]


@pytest.mark.parametrize(("mode", "first", "die", "weapon", "table", "index", "extra"), CRITICALS)
def test_criticals_with_edged_thrown_and_fired_weapons(
    mode: CriticalMode,
    first: int | None,
    die: int | None,
    weapon: int,
    table: dict[int, int] | None,
    index: int | None,
    extra: int | None,
) -> None:
    """Seed line 85: « En cas de réussite critique à l'arme blanche, on ajoute aux dégâts précédents, de
    nouveaux dégâts en utilisant la table des dégâts pour tirer une seconde blessure ou on double le
    nombre de points de vie perdus, au gré du maître de jeu. » (the same for thrown weapons, line 105,
    and fired ones, line 118)."""
    crit = critical_wound(mode, weapon_modifier=weapon, first_pv=first, table=table, die=die)
    assert (crit.second_index, crit.extra_pv) == (index, extra)
    assert {Context.EDGED, Context.THROWN, Context.ARROW, Context.FIRED} == CRITICAL_CONTEXTS


# context, defence, attack roll, defence roll → case, attacker again, initiative to the defender
DODGES = [
    (Context.EDGED, DefenceKind.DODGE, 10, 5, Case.ATTACKER_LOWER, True, False),  # MR 4 < MR 7
    (Context.EDGED, DefenceKind.DODGE, 17, 5, Case.ATTACK_FAILS, True, False),  # a failed attack dodged
    (Context.EDGED, DefenceKind.DODGE, 7, 5, Case.EQUAL, True, False),  # MR 7 = MR 7: blocked, dodged
    (Context.EDGED, DefenceKind.DODGE, 4, 5, Case.ATTACKER_HIGHER, False, False),  # the blow lands
    (Context.EDGED, DefenceKind.DODGE, 10, 15, Case.DEFENCE_FAILS, False, False),  # failed dodge
    (Context.EDGED, DefenceKind.PARRY, 10, 5, Case.ATTACKER_LOWER, False, True),  # a parry: initiative
    (Context.BRAWL, DefenceKind.DODGE, 10, 5, Case.ATTACKER_LOWER, False, True),  # brawl: its own rule
]


@pytest.mark.parametrize(("context", "kind", "att", "def_", "case", "again", "initiative"), DODGES)
def test_a_successful_dodge_of_an_arme_blanche(
    context: Context, kind: DefenceKind, att: int, def_: int, case: Case, again: bool, initiative: bool
) -> None:
    """Seed line 87: « Si le personnage réussit une esquive (test sous la caractéristique secondaire
    "Esquive") il ne peut faire de contre attaque et laisse automatiquement à son adversaire le loisir
    de ré attaquer. » Line 75: otherwise « c'est l'attaqué qui prend alors l'initiative »."""
    melee = resolve_melee(14, 12, context=context, defence_kind=kind, attack_roll=att, defence_roll=def_)
    assert isinstance(melee, Melee)
    assert melee.exchange.case is case
    assert melee.attacker_again is again and not (again and melee.riposte)
    assert melee.exchange.initiative_to_defender is initiative


# weapon, MR, BF, d20 typed, body SR → shock, fracture
FRACTURES = [
    (2, 5, 2, 10, 19, 19, True),  # 2 + 5 + 2 + 10 = 19 ≥ SR 19: a fracture
    (2, 5, 2, 9, 19, 18, False),  # 18 < 19
    (0, 3, 4, 20, 25, 27, True),
]


@pytest.mark.parametrize(("weapon", "mr", "bf", "die", "sr", "shock", "fracture"), FRACTURES)
def test_blunt_fracture_against_the_body_sr(
    weapon: int, mr: int, bf: int, die: int, sr: int, shock: int, fracture: bool
) -> None:
    """Seed line 68: « Si le total de PC infligés à la cible est supérieur ou égal au SR de la
    protection ou de la partie du corps touchée, il y a rupture ou fracture. »"""
    blow = blunt_blow(weapon, mr, bf, die=die)
    result = resolve_armour(blow, [], blunt=True, body_sr=sr)
    assert (blow.shock, result.shock, result.fracture) == (shock, shock, fracture)


# context, specialist, parry roll → defence target
SPECIALISTS = [
    (Context.ARROW, False, 12 - 20),  # « parer ou esquiver une flèche est une action absurde (malus de 20) »
    (Context.ARROW, True, 12),  # Parer Flèche: the skill itself
    (
        Context.THROWN,
        False,
        12 - 15,
    ),  # « Parer ou esquiver un projectile lancé est une action impossible (malus de 15) »
    (Context.THROWN, True, 12),  # Parer Projectile Lancé
]


@pytest.mark.parametrize(("context", "specialist", "target"), SPECIALISTS)
def test_parer_fleche_and_parer_projectile_lance(context: Context, specialist: bool, target: int) -> None:
    """Seed line 107: « Certains spécialistes s'entraînent à ce type d'exploit, ce sont des compétences
    (Parer Flèche et Parer Projectile Lancé) »."""
    melee = resolve_melee(
        14,
        12,
        context=context,
        defence_kind=DefenceKind.PARRY,
        specialist=specialist,
        attack_roll=4,
        defence_roll=3,
    )
    assert isinstance(melee, Melee) and melee.exchange.defence is not None
    assert melee.exchange.defence.target == target
    assert melee.exchange.defence.modifiers[0].label.endswith(
        ("parer_fleche", "parer_projectile_lance") if specialist else ("parry",)
    )


# PV lost, Con → steps (points, unit, time)
PV_RECOVERY = [
    (6, 14, [(6, "hour_rest", 30)]),  # 1 PV per 5 h of total rest
    (14, 14, [(14, "hour_rest", 70)]),  # exactly Con: the first rate (reading)
    (15, 14, [(8, "hour_sleep", 8), (7, "day_rest", 7)]),  # beyond Con: halves, the first rounded up
    (20, 12, [(10, "hour_sleep", 10), (10, "day_rest", 10)]),
    (0, 14, []),
]


@pytest.mark.parametrize(("lost", "con", "steps"), PV_RECOVERY)
def test_pv_recovery(lost: int, con: int, steps: list[tuple[int, str, int]]) -> None:
    """Seed line 266: « Le taux normal de récupération des PV perdus est d'un par 5 heures de repos
    total si toutefois ce total perdu n'excède pas le score de "Constitution" ». Line 267: « Si le
    total des points de vie perdu est égal ou supérieur au score de "Constitution", le taux de
    récupération est d'un point par heure de sommeil pour la première moitié et d'un point par jour de
    repos pour la seconde moitié. »"""
    from bot.rules.d20.combat import pv_recovery

    assert [(x.points, x.unit, x.time) for x in pv_recovery(lost, con)] == steps


@pytest.mark.parametrize(("lost", "minutes"), [(7, 7), (1, 1), (0, None)])
def test_pc_recovery(lost: int, minutes: int | None) -> None:
    """Seed line 269: « Les PC perdus se récupèrent à raison de 1 par minute. »"""
    from bot.rules.d20.combat import pc_recovery

    steps = pc_recovery(lost)
    assert [x.time for x in steps] == ([] if minutes is None else [minutes])
