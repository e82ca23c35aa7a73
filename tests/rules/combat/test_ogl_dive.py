"""The `ogl` dive against an area effect (seed 004, "Plonger"), table-driven: the damage after the
Esquive test, who may dive, and the rider's malus.

"Pour plonger à couvert contre une attaque de zone, le personnage doit réussir un test d'Esquive. En
cas de réussite, les dégâts de l'attaque sont diminués de moitié. Une réussite critique permet
d'éviter tout dégât." Critical at ⌊skill/10⌋; reading: the half rounds down."""

from __future__ import annotations

import pytest

from bot.rules.combat.basics import Refusal
from bot.rules.ogl import checks as ogl_checks
from bot.rules.ogl.combat import (
    DiveResult,
    Reaction,
    ReactionLedger,
    Situation,
    Trigger,
    can_react,
    dive_damage,
    reaction_modifiers,
    record_reaction,
)


@pytest.mark.parametrize(
    ("esquive", "roll", "rolled", "result", "taken"),
    [
        (40, 30, 15, DiveResult.HALVED, 7),  # 30 ≤ 40: half of 15, rounded down
        (40, 40, 8, DiveResult.HALVED, 4),  # the skill itself still succeeds
        (40, 5, 15, DiveResult.HALVED, 7),  # 5 > ⌊40/10⌋ = 4: no critical
        (40, 4, 15, DiveResult.AVOIDED, 0),  # 4 ≤ 4: critical, no damage
        (40, 1, 1, DiveResult.AVOIDED, 0),
        (40, 41, 15, DiveResult.FAILED, 15),  # failed: the whole damage
        (40, 100, 9, DiveResult.FAILED, 9),  # 00 fumbles
        (10, 1, 9, DiveResult.AVOIDED, 0),  # mounted 40 − 30 = 10: critical at 1
        (10, 9, 9, DiveResult.HALVED, 4),
        (10, 11, 9, DiveResult.FAILED, 9),
        (40, 30, 1, DiveResult.HALVED, 0),  # half of 1 rounds down to nothing
    ],
)
def test_dive_damage(esquive: int, roll: int, rolled: int, result: DiveResult, taken: int) -> None:
    check = ogl_checks.check(esquive, roll=roll)
    damage = dive_damage(rolled, check)
    assert (damage.rolled, damage.dive, damage.taken) == (rolled, result, taken)


def test_no_dive_takes_it_all() -> None:
    assert dive_damage(12, None).to_dict() == {"rolled": 12, "dive": "none", "taken": 12}


AREA = Trigger.AREA_EFFECT


@pytest.mark.parametrize(
    ("situation", "trigger", "reason"),
    [
        (Situation(), AREA, None),
        (Situation(mounted=True), AREA, None),  # a rider may dive (and is unhorsed)
        (Situation(out_of_combat=True), AREA, "out_of_combat"),  # "Hors de Combat ne peut pas Plonger"
        (Situation(prone=True), AREA, "cannot_dive"),  # "à terre ne peut pas plonger"
        (Situation(nowhere_to_dive=True), AREA, "cannot_dive"),  # "nulle part où plonger"
        (Situation(aimed_attack=True), AREA, "cannot_dive"),  # "attaques Visées"
        (Situation(), Trigger.MELEE_ATTACK, "wrong_trigger"),  # a dive answers an area effect only
        (Situation(), Trigger.RANGED_ATTACK, "wrong_trigger"),
    ],
)
def test_who_may_dive(situation: Situation, trigger: Trigger, reason: str | None) -> None:
    refusal = can_react(ReactionLedger(1), Reaction.DIVE, trigger, "area:1", situation)
    if reason is None:
        assert refusal is None
    else:
        assert isinstance(refusal, Refusal) and refusal.reason == f"combat.ogl.refusal.{reason}"


def test_a_dive_is_a_reaction() -> None:
    ledger = record_reaction(ReactionLedger(1), "area:1")
    again = can_react(ledger, Reaction.DIVE, AREA, "area:1")
    assert isinstance(again, Refusal) and again.reason.endswith("one_reaction_per_event")
    spent = can_react(ledger, Reaction.DIVE, AREA, "area:2")
    assert isinstance(spent, Refusal) and spent.reason.endswith("no_reaction_left")
    assert can_react(record_reaction(ReactionLedger(2), "atk"), Reaction.DIVE, AREA, "area:2") is None


@pytest.mark.parametrize(
    ("situation", "values"),
    [
        (Situation(), []),
        (
            Situation(mounted=True),
            [-30],
        ),  # "sur une monture souffre d'un malus -30% à sa compétence d'Esquive"
        (Situation(cornered=True), []),  # cornered (−20 %) is the dodge's malus, not the dive's
    ],
)
def test_dive_modifiers(situation: Situation, values: list[int]) -> None:
    assert [m.value for m in reaction_modifiers(Reaction.DIVE, situation)] == values
