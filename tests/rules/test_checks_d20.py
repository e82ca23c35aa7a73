"""`d20` tests with dice entered by hand (seed 003, "Procédures générales")."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.checks.common import DiceError, Modifier, Outcome
from bot.rules.d20 import checks as d20
from bot.rules.d20.checks import Difficulty, SkillKind, SkillNotUsable


@pytest.mark.parametrize(
    ("score", "roll", "outcome", "margin"),
    [
        (12, 12, Outcome.SUCCESS, 0),
        (12, 7, Outcome.SUCCESS, 5),
        (12, 13, Outcome.FAILURE, 1),
        (12, 19, Outcome.FAILURE, 7),
        (12, 1, Outcome.CRITICAL_SUCCESS, 11),
        (12, 20, Outcome.CRITICAL_FAILURE, 8),
        (0, 1, Outcome.CRITICAL_SUCCESS, 0),  # 1 always succeeds
        (-3, 1, Outcome.CRITICAL_SUCCESS, 0),
        (25, 20, Outcome.CRITICAL_FAILURE, 0),  # 20 always fails
        (25, 19, Outcome.SUCCESS, 6),
        (25, 4, Outcome.CRITICAL_SUCCESS, 21),  # MR 21 > 20: critical too
        (22, 2, Outcome.SUCCESS, 20),  # MR 20 is not > 20
    ],
)
def test_outcomes(score: int, roll: int, outcome: Outcome, margin: int) -> None:
    result = d20.check(score, roll=roll)
    assert result.outcome is outcome
    assert result.margin == margin
    assert result.die == 20


def test_mr_above_20_is_critical() -> None:
    result = d20.check(25, roll=4)
    assert result.margin == 21 and result.critical_success
    assert not d20.check(22, roll=2).critical_success


@pytest.mark.parametrize(
    ("difficulty", "value"),
    [
        (Difficulty.OBVIOUS, 5),
        (Difficulty.FAIRLY_HARD, -5),
        (Difficulty.HARD, -10),
        (Difficulty.VERY_HARD, -15),
        (Difficulty.NEARLY_IMPOSSIBLE, -20),
        (Difficulty.ABSURD, -25),
        (Difficulty.STRICTLY_IMPOSSIBLE, None),
    ],
)
def test_difficulty_ladder(difficulty: Difficulty, value: int | None) -> None:
    assert difficulty.modifier == value
    result = d20.check(15, difficulty=difficulty, roll=10)
    if value is None:
        assert result.impossible and not result.success
        assert result.outcome_key == "checks.outcome.impossible"
    else:
        assert result.target == 15 + value
        assert result.modifiers[1].label == difficulty.key


def test_strictly_impossible_even_on_a_1() -> None:
    result = d20.check(30, difficulty=Difficulty.STRICTLY_IMPOSSIBLE, roll=1)
    assert not result.success and not result.critical_success
    assert d20.check(30, difficulty=Difficulty.STRICTLY_IMPOSSIBLE, roll=20).critical_failure


@pytest.mark.parametrize(("actions", "malus"), [(1, 0), (2, -5), (3, -8), (4, -10)])
def test_simultaneous_actions(actions: int, malus: int) -> None:
    assert d20.simultaneous_malus(actions) == malus
    assert d20.check(14, simultaneous_actions=actions, roll=1).target == 14 + malus


def test_simultaneous_actions_beyond_the_seed() -> None:
    with pytest.raises(ValueError):
        d20.simultaneous_malus(5)


@pytest.mark.parametrize(
    ("pv", "pc", "con", "combined", "malus"),
    [
        (0, 0, 12, True, 0),
        (5, 7, 12, True, 0),
        (5, 8, 12, True, -1),
        (10, 10, 12, True, -8),
        (13, 0, 12, True, -1),
        (13, 14, 12, False, -3),
        (10, 10, 12, False, 0),
    ],
)
def test_wound_malus(pv: int, pc: int, con: int, combined: bool, malus: int) -> None:
    assert d20.wound_malus(pv, pc, con, combined=combined) == malus


def test_wound_malus_applied() -> None:
    result = d20.check(14, wound=d20.wound_malus(10, 10, 12), roll=6)
    assert result.target == 6 and result.success
    assert result.modifiers[-1] == Modifier("checks.modifier.wounds", -8)


@pytest.mark.parametrize(
    ("innate", "acquired", "kind", "score"),
    [
        (8, 4, SkillKind.INSTINCT, 12),
        (8, 4, SkillKind.KNOWLEDGE, 12),
        (8, 0, SkillKind.INSTINCT, 3),
        (8, 1, SkillKind.KNOWLEDGE, 9),
    ],
)
def test_skills(innate: int, acquired: int, kind: SkillKind, score: int) -> None:
    result = d20.skill_check(innate, acquired, kind, roll=10)
    assert result.target == score
    assert result.modifiers[0].label == d20.INNATE_LABEL


def test_knowledge_without_acquis_is_refused() -> None:
    with pytest.raises(SkillNotUsable):
        d20.skill_check(12, 0, SkillKind.KNOWLEDGE, roll=1)


@pytest.mark.parametrize(
    ("player", "gm", "malus", "lucky"),
    [
        (5, 6, 0, True),
        (6, 6, 0, False),
        (7, 6, 0, False),
        (7, 6, 2, True),
        (8, 6, 2, False),
        (1, 20, 0, True),
    ],
)
def test_chance_test(player: int, gm: int, malus: int, lucky: bool) -> None:
    result = d20.chance_test(player_roll=player, gm_roll=gm, gm_malus=malus)
    assert result.lucky is lucky
    assert result.to_dict()["outcome_key"] == ("checks.chance.lucky" if lucky else "checks.chance.unlucky")


def test_chance_test_validation() -> None:
    with pytest.raises(ValueError):
        d20.chance_test(player_roll=1, gm_roll=2, gm_malus=-1)
    with pytest.raises(DiceError):
        d20.chance_test(player_roll=21, gm_roll=2)


@given(score=st.integers(-10, 45), roll=st.integers(1, 20))
def test_mr_consistent(score: int, roll: int) -> None:
    r = d20.check(score, roll=roll)
    if 2 <= roll <= 19:
        assert r.success == (roll <= score)
        assert r.margin == abs(score - roll)
    assert r.critical_success == (r.success and (roll == 1 or score - roll > 20))
    assert r.critical_failure == (roll == 20)
