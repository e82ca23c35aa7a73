"""The second weapon's A (seed l. 1021) and the Double attribute (l. 317): who has it, when the turn
waits for it (it has no initiative slot: it is used in the fighter's last slot)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.rules.combat.effects import Condition
from bot.rules.combat.state import Combatant, can_act, has_second_weapon, second_weapon_waits, take_action
from bot.rules.combat.tables import CombatTables


def fighter(a: int, weapons: tuple[str, ...], off_hand: str | None = None) -> Combatant:
    return Combatant("a", "A", {"CC": 40, "Ag": 35, "A": a}, weapons=weapons, off_hand=off_hand)


@pytest.mark.parametrize(
    ("weapons", "off_hand", "expected"),
    [
        (("epee",), None, False),
        (("epee", "dague"), "dague", True),  # a second weapon held
        (("baton",), None, True),  # Double: « confère donc 1 A supplémentaire »
        (("lance",), None, False),
    ],
)
def test_who_has_the_extra_a(
    tables: CombatTables, weapons: tuple[str, ...], off_hand: str | None, expected: bool
) -> None:
    assert ("double" in tables.weapons["baton"].attributes) is True
    assert has_second_weapon(tables, fighter(1, weapons, off_hand)) is expected


@pytest.mark.parametrize(
    ("a", "actions", "waits"),
    [
        (1, (), False),  # nothing spent yet
        (1, ("attaquer",), True),  # the only A spent: the extra one is still there
        (1, ("attaquer", "attaquer"), False),  # both spent
        (2, ("attaquer",), False),  # a second slot is to come
        (2, ("attaquer", "attaquer"), True),
        (1, ("viser",), True),  # aiming uses the profile's A; the extra one may then attack
        (1, ("feinter",), True),
    ],
)
def test_when_the_turn_waits_for_it(
    tables: CombatTables, a: int, actions: tuple[str, ...], waits: bool
) -> None:
    c = fighter(a, ("epee", "dague"), "dague")
    for action in actions:
        c = take_action(tables, c, action)
    assert second_weapon_waits(tables, c) is waits


def test_a_charge_takes_the_extra_a_too(tables: CombatTables) -> None:
    c = take_action(tables, fighter(1, ("baton",)), "charger")
    assert not second_weapon_waits(tables, c)
    assert can_act(tables, c, "attaquer") is not None


def test_the_extra_a_is_not_for_aiming(tables: CombatTables) -> None:
    c = take_action(tables, fighter(1, ("baton",)), "attaquer")
    assert second_weapon_waits(tables, c)
    assert can_act(tables, c, "viser") is not None
    assert can_act(tables, c, "attaquer") is None
    assert take_action(tables, c, "attaquer").actions.second_weapon_used


def test_a_stunned_fighter_is_not_waited_for(tables: CombatTables) -> None:
    c = take_action(tables, fighter(1, ("epee", "dague"), "dague"), "attaquer")
    stunned = replace(c, conditions=(Condition(kind="stunned", source="test", remaining=1, unit="round"),))
    assert not second_weapon_waits(tables, stunned)
