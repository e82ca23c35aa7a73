"""Immobilisante (seed l. 605-609): the capture and the escape test's modifier per weapon."""

from __future__ import annotations

import pytest

from bot.rules.combat.state import Combatant, can_act
from bot.rules.combat.tables import CombatTables
from bot.rules.renove.capture import CAPTURED, capture, captures, escape_modifiers


@pytest.mark.parametrize(
    ("weapon", "modifier"),
    [
        ("filet", -10),  # Immobilisante – Piégeant: −10 to break free
        ("bolas", 10),  # Immobilisante – Léger: +10
        ("lasso", 10),
        ("fouet", 0),  # Immobilisante alone
    ],
)
def test_each_entangling_weapon_and_its_escape_modifier(
    tables: CombatTables, weapon: str, modifier: int
) -> None:
    w = tables.weapons[weapon]
    assert captures(tables, w)
    taken = capture(tables, w)
    assert (taken.escape_stat, taken.escape_modifier) == ("Ag", modifier)
    kinds = [(c.kind, c.until) for c in taken.conditions]
    assert kinds == [("no_action", "end_of_round"), (CAPTURED, "freed")]  # « Il perd ce round »
    target, terms = escape_modifiers(taken.conditions[1], 40)
    assert target == 40 + modifier and sum(t.value for t in terms) == target


def test_other_weapons_do_not_capture(tables: CombatTables) -> None:
    assert not captures(tables, tables.weapons["epee"])
    assert not captures(tables, tables.weapons["arc_court"])


def test_a_captured_fighter_only_breaks_free_or_defends(tables: CombatTables) -> None:
    taken = capture(tables, tables.weapons["filet"])
    c = Combatant(
        "a", "A", {"CC": 40, "Ag": 35, "A": 1}, weapons=("epee",), conditions=(taken.conditions[1],)
    )
    refusal = can_act(tables, c, "attaquer")
    assert refusal is not None and refusal.reason == "combat.refusal.captured"
    assert can_act(tables, c, "se_liberer") is None
    assert can_act(tables, c, "esquiver") is None
