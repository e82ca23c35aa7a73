"""Peu fiable, Expérimentale (seed l. 311, 549-560, 601-604) and Epuisante (l. 315) with the seed's
numbers."""

from __future__ import annotations

import pytest

from bot.rules.combat.tables import CombatTables
from bot.rules.renove.weapon_effects import malfunction, percutante_active, percutante_rounds


@pytest.mark.parametrize(
    ("weapon", "roll", "expected"),
    [
        ("arquebuse", 95, None),
        ("arquebuse", 96, ("peu_fiable", "jam", None)),  # « Sur 96-98, l'arme s'enraye »
        ("arquebuse", 98, ("peu_fiable", "jam", None)),
        ("arquebuse", 99, ("peu_fiable", "explode", 11)),  # « 11 de dégâts à la tête »
        ("arquebuse", 100, ("peu_fiable", "explode", 11)),  # the arquebus's 00
        ("arquebuse_a_repetition", 97, ("experimentale", "jam", None)),
        ("arquebuse_a_repetition", 100, ("experimentale", "explode", 15)),  # « 15 de dégâts »
        ("morgenstern", 96, ("peu_fiable", "stuck", None)),  # melee: « se coince »
        ("morgenstern", 99, ("peu_fiable", "self_hit", None)),  # « se prend son arme »
        ("tromblon", 98, ("peu_fiable", "jam", None)),
        ("epee", 100, None),
    ],
)
def test_malfunction_bands(
    tables: CombatTables, weapon: str, roll: int, expected: tuple[str, str, int | None] | None
) -> None:
    found = malfunction(tables, tables.weapons[weapon], roll)
    got = None if found is None else (found.attribute, found.effect, found.damage)
    assert got == expected
    if found is not None and found.damage is not None:
        assert found.zone == "tete"


@pytest.mark.parametrize(
    ("be", "rounds", "active_in"),
    [(7, 3, (1, 2, 3)), (5, 2, (1, 2)), (2, 1, (1,)), (1, 0, ())],  # BE/2 rounded down
)
def test_epuisante_limits_percutante_to_be_over_two_rounds(
    tables: CombatTables, be: int, rounds: int, active_in: tuple[int, ...]
) -> None:
    morgenstern = tables.weapons["morgenstern"]
    assert {"epuisante", "percutante"} <= set(morgenstern.attributes)
    assert percutante_rounds(tables, morgenstern.attributes, be) == rounds
    assert tuple(r for r in range(1, 6) if percutante_active(tables, morgenstern, be, r)) == active_in


def test_percutante_without_epuisante_has_no_limit(tables: CombatTables) -> None:
    arquebus = tables.weapons["arquebuse"]
    assert percutante_rounds(tables, arquebus.attributes, 2) is None
    assert percutante_active(tables, arquebus, 2, 99)


@pytest.mark.parametrize(
    ("weapon", "bf", "shoot", "aim"),
    [
        ("arc_court", 4, False, False),  # the short bow's BF is its damage, 5
        ("arc_court", 5, True, False),  # « égal … pour l'utiliser »
        ("arc_court", 6, True, True),  # « supérieur pour Viser »
        ("arc_long", 6, True, False),
        ("arc_long", 7, True, True),
        ("arbalete_a_levier", 1, True, True),  # not a bow
    ],
)
def test_a_bow_asks_for_its_bf(tables: CombatTables, weapon: str, bf: int, shoot: bool, aim: bool) -> None:
    from bot.data_loading import load_all
    from bot.rules.renove.weapon_effects import bow_strength

    rule = bow_strength(load_all()["weapon_groups"].document)
    w = tables.weapons[weapon]
    assert (rule.may_shoot(w, bf), rule.may_aim(w, bf)) == (shoot, aim)
