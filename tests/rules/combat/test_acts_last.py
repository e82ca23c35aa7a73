"""« Les actions se feront en dernier ce round et le suivant » (head criticals 1-2, seed l. 2630,
2640, 2902, 2911, 3196, 3205, 3467, 3488): the victim's slots go after everyone's, this round from
the current turn on and at the next round's initiative."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bot.rules.combat.effects import Condition, tick
from bot.rules.combat.initiative import InitiativeResult, Slot
from bot.rules.combat.state import ACTS_LAST, Combatant, FightState, put_last, start_round


def slots(*spec: tuple[str, int]) -> tuple[Slot, ...]:
    return tuple(Slot(who, 1, Fraction(value)) for who, value in spec)


@pytest.mark.parametrize(
    ("turn", "late", "expected"),
    [
        # Orque (60) has hit Albert (55) on his slot: Albert's slot goes after Bruno's (48)
        (0, {"albert"}, ["orque", "bruno", "gobelin", "albert"]),
        # from the start of a round (turn −1): every slot of the late fighter goes last
        (-1, {"orque"}, ["albert", "bruno", "gobelin", "orque"]),
        # a slot already played stays where it was
        (1, {"albert"}, ["orque", "albert", "bruno", "gobelin"]),
        # two late fighters keep their own order between them
        (-1, {"albert", "orque"}, ["bruno", "gobelin", "orque", "albert"]),
    ],
)
def test_put_last(turn: int, late: set[str], expected: list[str]) -> None:
    order = slots(("orque", 60), ("albert", 55), ("bruno", 48), ("gobelin", 33))
    assert [s.combatant for s in put_last(order, turn, late)] == expected


def test_the_next_rounds_initiative_puts_him_last_then_the_condition_runs_out() -> None:
    late = Condition(ACTS_LAST, "criticals.tranchantes.tete.1", remaining=2, unit="round")
    albert = Combatant(id="albert", name="Albert", characteristics={"Ag": 40, "A": 1}, conditions=(late,))
    orque = Combatant(id="orque", name="Orque", characteristics={"Ag": 30, "A": 1})
    state = FightState(1, (albert, orque))
    after_round_1 = tick(albert.conditions).conditions
    assert [c.rounds_left for c in after_round_1] == [1]
    state = state.put(
        Combatant(id="albert", name="Albert", characteristics={"Ag": 40, "A": 1}, conditions=after_round_1)
    )
    initiative = [
        InitiativeResult("albert", 40, (10, 10, 10), (), 1, 70, (Fraction(70),)),
        InitiativeResult("orque", 30, (1, 1, 1), (), 1, 33, (Fraction(33),)),
    ]
    assert [s.combatant for s in start_round(state, initiative).order] == ["orque", "albert"]
    assert tick(after_round_1).conditions == ()  # over at the end of round 2
    fresh = state.put(Combatant(id="albert", name="Albert", characteristics={"Ag": 40, "A": 1}))
    assert [s.combatant for s in start_round(fresh, initiative).order] == ["albert", "orque"]
