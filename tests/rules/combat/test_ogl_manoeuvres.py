"""Table-driven cases of the `ogl` manoeuvres (seed 004) the other rules tests do not cover: which
reaction answers which trigger, the counter-attack's triggers, mounted modifiers in every pairing,
the grapple maluses and the count-down of conditions in combat actions."""

from __future__ import annotations

import pytest

from bot.rules.combat.effects import Condition
from bot.rules.ogl.combat import (
    ACTION_UNIT,
    Reaction,
    ReactionLedger,
    Trigger,
    can_react,
    escape_modifier,
    grapple_throw,
    immobilise_modifier,
    mounted_modifiers,
    record_reaction,
    spend_combat_action,
)

# "Esquiver / Parer : Évènement déclencheur : Une Attaque au Corps à Corps"; "Plonger : l'aire d'effet
# doit englober le personnage"; counter-attack: ranged attack, (position change), moving away without
# Repli, approaching without Charge, guard left open, and Courir / Se déplacer (lines 6).
ANSWERS = {
    Reaction.DODGE: {Trigger.MELEE_ATTACK},
    Reaction.PARRY: {Trigger.MELEE_ATTACK},
    Reaction.DIVE: {Trigger.AREA_EFFECT},
    Reaction.COUNTER: {
        Trigger.RANGED_ATTACK,
        Trigger.CHANGES_POSITION,
        Trigger.MOVES_AWAY,
        Trigger.APPROACHES,
        Trigger.GUARD_OPEN,
        Trigger.RUNS,
        Trigger.MOVES,
    },
}


@pytest.mark.parametrize("reaction", list(Reaction))
@pytest.mark.parametrize("trigger", list(Trigger))
def test_which_reaction_answers_which_trigger(reaction: Reaction, trigger: Trigger) -> None:
    refusal = can_react(ReactionLedger(1), reaction, trigger, "event")
    assert (refusal is None) == (trigger in ANSWERS[reaction])


def test_one_counter_attack_per_event_within_the_reaction_limit() -> None:
    ledger = record_reaction(ReactionLedger(2), "runs:orc:1:0")
    same = can_react(ledger, Reaction.COUNTER, Trigger.RUNS, "runs:orc:1:0")
    assert same is not None and same.reason == "combat.ogl.refusal.one_reaction_per_event"
    assert can_react(ledger, Reaction.COUNTER, Trigger.MOVES, "moves:orc:1:1") is None
    full = record_reaction(ledger, "moves:orc:1:1")
    spent = can_react(full, Reaction.COUNTER, Trigger.APPROACHES, "approaches:orc:1:2")
    assert spent is not None and spent.reason == "combat.ogl.refusal.no_reaction_left"


@pytest.mark.parametrize(
    ("rider", "foe_on_foot", "reaction", "expected"),
    [
        (True, True, False, [20]),  # a rider attacks a foe on foot: +20 %
        (True, True, True, [20]),  # ... and parries him: +20 % (the caller keeps it to parries)
        (False, False, True, [-20]),  # on foot, reacting against a rider: −20 %
        (False, False, False, []),  # on foot attacking a rider: nothing in the seed
        (True, False, False, []),  # two riders
        (True, False, True, []),
        (False, True, False, []),  # two on foot
        (False, True, True, []),
    ],
)
def test_mounted_modifiers(rider: bool, foe_on_foot: bool, reaction: bool, expected: list[int]) -> None:
    got = mounted_modifiers(rider=rider, opponent_on_foot=foe_on_foot, reaction=reaction)
    assert [m.value for m in got] == expected


@pytest.mark.parametrize(
    ("dex", "str_", "siz", "immobilise", "escape"),
    [(14, 13, 12, -27, -25), (10, 10, 10, -20, -20), (18, 16, 20, -34, -36)],
)
def test_grapple_maluses(dex: int, str_: int, siz: int, immobilise: int, escape: int) -> None:
    """Immobiliser: −(DEX + FOR) of the opponent; s'échapper: −(FOR + TAI)."""
    assert immobilise_modifier(dex, str_).value == immobilise == -(dex + str_)
    assert escape_modifier(str_, siz).value == escape == -(str_ + siz)


@pytest.mark.parametrize("die", [1, 4, 6])
def test_a_throw_is_two_metres_and_a_d6(die: int) -> None:
    assert grapple_throw(die=die) == (2, die)


@pytest.mark.parametrize(
    ("remaining", "after", "expired"),
    [([1], [], [1]), ([3], [2], []), ([2, 1], [1], [1]), ([4, 3], [3, 2], [])],
)
def test_counters_in_combat_actions_go_down_one_per_action(
    remaining: list[int], after: list[int], expired: list[int]
) -> None:
    lost = [Condition("lose_combat_actions", "w", remaining=n, unit=ACTION_UNIT) for n in remaining]
    other = Condition("stunned", "x", remaining=2, unit="round")
    kept, gone = spend_combat_action([*lost, other])
    assert [c.remaining for c in kept if c.unit == ACTION_UNIT] == after
    assert [c for c in kept if c.unit == "round"] == [other]  # rounds are not combat actions
    assert len(gone) == len(expired)
