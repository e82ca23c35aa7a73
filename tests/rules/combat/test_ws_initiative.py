"""Combat WS (seed lines 920-962) and initiative (seed "Initiative", Ag 56, 3d20 = 24, A = 2)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bot.rules.combat.effects import apply_mechanics
from bot.rules.combat.initiative import order_slots, roll_initiative
from bot.rules.combat.state import Combatant, FightState, apply_effects
from bot.rules.combat.tables import CombatTables
from bot.rules.dice.manual import ManualDice
from bot.rules.renove.attack import combat_ws, combat_ws_pair


@pytest.mark.parametrize(
    ("cc_a", "cc_b", "expected"),
    [(40, 30, (60, 40)), (30, 30, (50, 50)), (5, 5, (50, 50)), (95, 95, (50, 50))],
)
def test_combat_ws_seed_examples(cc_a: int, cc_b: int, expected: tuple[int, int]) -> None:
    assert combat_ws_pair(cc_a, cc_b) == expected
    assert combat_ws(cc_a, cc_b) == expected[0]


def test_albert_and_rudolf_recomputed_after_a_cc_critical(tables: CombatTables) -> None:
    albert = Combatant("albert", "Albert", {"CC": 40, "E": 40, "BE": 7})
    rudolf = Combatant("rudolf", "Rudolf", {"CC": 30, "E": 30, "BE": 6})
    state = FightState(1, (albert, rudolf))
    assert state.combat_ws("albert", "rudolf", tables) == (60, 40)
    # Albert takes a critical with "-10 % CC" (tranchantes, jambes, 5): E test passed (roll 05),
    # CC -10 for 1d10/2 rounds with the d10 typed as 6 -> 3 rounds.
    entry = tables.critical("tranchantes", "jambes", 5)
    applied = apply_mechanics(
        entry.mechanics,
        albert.current_characteristics(),
        source=entry.source,
        test_rolls=[5],
        duration_rolls=[6],
    )
    state = apply_effects(state, "albert", applied)
    assert state.get("albert").stat("CC") == 30
    assert state.combat_ws("albert", "rudolf", tables) == (50, 50)
    # The seed's shortcut: the victim loses 10 and the other gains 10.
    assert (50, 50) == (60 - 10, 40 + 10)
    # Round-trip through JSON keeps the condition and the recomputed values.
    again = FightState.from_dict(state.to_dict())
    assert again == state
    assert again.combat_ws("albert", "rudolf", tables) == (50, 50)


def test_initiative_seed_example(tables: CombatTables) -> None:
    result = roll_initiative(tables, "x", 56, 2, dice_rolls=[10, 8, 6])
    assert sum(result.dice) == 24
    assert result.total == 80
    assert result.slots == (Fraction(80), Fraction(40))
    assert result.to_dict()["slots"] == [
        {"k": 1, "value": 80, "exact": "80"},
        {"k": 2, "value": 40, "exact": "40"},
    ]


def test_initiative_rolls_with_a_random_source_and_sur_ses_gardes(tables: CombatTables) -> None:
    result = roll_initiative(tables, "x", 30, 3, talents={"sur_ses_gardes"}, rng=ManualDice([1, 2, 3, 20]))
    assert result.dice == (1, 2, 3)
    assert result.bonus_dice == (("sur_ses_gardes", 20),)
    assert result.total == 56
    assert result.slots == (Fraction(56), Fraction(28), Fraction(56, 3))


def test_slots_sorted_descending_with_deterministic_ties(tables: CombatTables) -> None:
    a = roll_initiative(tables, "a", 56, 2, dice_rolls=[10, 8, 6])  # 80, 40
    b = roll_initiative(tables, "b", 30, 1, dice_rolls=[20, 20, 10])  # 80
    c = roll_initiative(tables, "c", 20, 1, dice_rolls=[10, 5, 5])  # 40
    order = order_slots([c, b, a])
    # a and b tie at 80: same I, a has the higher Ag; a's second slot (40) ties with c (40): a has
    # the higher I.
    assert [(s.combatant, s.k, s.value) for s in order] == [
        ("a", 1, Fraction(80)),
        ("b", 1, Fraction(80)),
        ("a", 2, Fraction(40)),
        ("c", 1, Fraction(40)),
    ]
    assert order == order_slots([a, b, c])
