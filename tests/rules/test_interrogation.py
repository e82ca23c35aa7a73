"""Interrogations: the seed's Arnolf example and every reading of data/interrogation.json."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bot.rules.checks.common import DiceError
from bot.rules.renove.interrogation import (
    Approach,
    InterrogationError,
    InterrogationState,
    Mode,
    Subject,
    extended_attempt,
    open_interrogation,
    question,
)

DATA = json.loads(
    (Path(__file__).resolve().parents[2] / "data" / "interrogation.json").read_text(encoding="utf-8")
)
EXAMPLE = DATA["example"]
LINES = tuple(line["text"]["fr"] for line in EXAMPLE["lines"])


def _suspect(*, reluctant: bool = True, fm: int = 35) -> Subject:
    return Subject("le suspect", fm, reluctant, (LINES[0], LINES[1], LINES[2], LINES[3]))


@pytest.mark.parametrize("target", range(EXAMPLE["interrogator_target_range"]["min"], 52))
def test_arnolf_example_reveals_tiers_0_1_2(target: int) -> None:
    # Arnolf rolls 22 with 2 °R; the suspect succeeds with 0 °R (FM 35, roll 30).
    result = question(_suspect(), Approach.INTIMIDATION, target, rolls=[22], fm_rolls=[30])
    assert result.test is not None and result.test.degrees == EXAMPLE["interrogator_degrees"]
    assert result.fm is not None and result.fm.success and result.fm.degrees == EXAMPLE["subject_degrees"]
    assert result.net_degrees == EXAMPLE["net_degrees"]
    assert result.tiers == tuple(EXAMPLE["tiers_revealed"])
    state = open_interrogation(_suspect())
    assert state.revealed == []
    assert state.reveal(result.tiers) == (0, 1, 2)
    assert [state.subject.lines[t] for t in state.revealed] == list(LINES[:3])


def test_reluctant_lost_test_reveals_nothing_and_fm_degrees_subtract() -> None:
    # FM succeeds with more °R than the Intimidation: nothing.
    lost = question(_suspect(fm=60), Approach.INTIMIDATION, 45, rolls=[40], fm_rolls=[20])
    assert lost.net_degrees == -4
    assert lost.tiers == ()
    # Intimidation fails, FM succeeds: nothing.
    assert question(_suspect(), Approach.INTIMIDATION, 45, rolls=[80], fm_rolls=[10]).tiers == ()
    # FM fails: its °E do not count; 2 °R → tiers 0-2.
    assert question(_suspect(), Approach.INTIMIDATION, 45, rolls=[22], fm_rolls=[90]).tiers == (0, 1, 2)
    # Equal °R: net 0 → tier 0.
    assert question(_suspect(fm=55), Approach.INTIMIDATION, 45, rolls=[22], fm_rolls=[30]).tiers == (0,)


def test_both_failing_roll_again_and_dice_running_out_is_pending() -> None:
    pending = question(_suspect(), Approach.INTIMIDATION, 45, rolls=[80], fm_rolls=[90])
    assert pending.pending and pending.tiers == ()
    decided = question(_suspect(), Approach.INTIMIDATION, 45, rolls=[80, 22], fm_rolls=[90, 30])
    assert len(decided.rounds) == 2 and decided.tiers == (0, 1, 2)


def test_willing_subject_tier_0_at_once_then_degrees_plus_one() -> None:
    state = open_interrogation(_suspect(reluctant=False))
    assert state.revealed == [0]
    assert question(_suspect(reluctant=False), Approach.INTIMIDATION, 45, rolls=[40]).tiers == (0, 1)
    assert question(_suspect(reluctant=False), Approach.INTIMIDATION, 45, rolls=[22]).tiers == (0, 1, 2, 3)
    assert question(_suspect(reluctant=False), Approach.INTIMIDATION, 45, rolls=[70]).tiers == (0,)


def test_torture_degrees_add_to_a_successful_intimidation() -> None:
    result = question(
        _suspect(), Approach.INTIMIDATION, 45, rolls=[40], fm_rolls=[90], torture_target=50, torture_roll=25
    )
    assert result.torture is not None and result.torture.degrees == 2
    assert result.net_degrees == 2 and result.tiers == (0, 1, 2)
    failed_torture = question(
        _suspect(), Approach.INTIMIDATION, 45, rolls=[40], fm_rolls=[90], torture_target=50, torture_roll=80
    )
    assert failed_torture.tiers == (0,)
    with pytest.raises(InterrogationError):
        question(
            _suspect(), Approach.CHARISME, 45, rolls=[40], fm_rolls=[30], torture_target=50, torture_roll=1
        )


def test_discreet_charisme_uses_the_same_arithmetic() -> None:
    result = question(_suspect(), Approach.CHARISME, 45, rolls=[22], fm_rolls=[30])
    assert result.tiers == (0, 1, 2)
    assert result.test is not None and result.test.modifiers[0].label == "flows.interrogation.skill.charisme"


def test_a_roll_is_required_without_a_random_source() -> None:
    with pytest.raises(DiceError):
        question(_suspect(), Approach.INTIMIDATION, 45)
    with pytest.raises(DiceError):
        question(_suspect(), Approach.INTIMIDATION, 45, rolls=[22], fm_rolls=[30], torture_target=40)


def test_extended_mode_one_tier_per_success() -> None:
    state = open_interrogation(_suspect(), mode=Mode.EXTENDED, attempts=3)
    for roll, expected in ((10, 0), (90, None), (10, 1)):
        attempt = extended_attempt(
            state.revealed, state.attempts_left, "intimidation", 45, discreet=False, roll=roll
        )
        assert attempt.tier == expected
        state.history.append({"kind": "extended", **attempt.to_dict()})
        if attempt.tier is not None:
            state.reveal([attempt.tier])
    assert state.revealed == [0, 1] and state.attempts_left == 0
    with pytest.raises(InterrogationError) as exc:
        extended_attempt(state.revealed, state.attempts_left, "intimidation", 45, discreet=False, roll=5)
    assert exc.value.code == "no_attempts_left"
    with pytest.raises(InterrogationError):
        open_interrogation(_suspect(), mode=Mode.EXTENDED, attempts=0)
    with pytest.raises(InterrogationError):
        extended_attempt([], 3, "torture", 45, discreet=True, roll=5)


def test_state_round_trips_through_json() -> None:
    state = open_interrogation(_suspect(reluctant=False), mode=Mode.STANDARD, discreet=True)
    state.reveal([0, 2])
    again = InterrogationState.from_dict(json.loads(json.dumps(state.to_dict())))
    assert again.to_dict() == state.to_dict()


def test_random_questioning_always_reveals_a_prefix() -> None:
    rng = random.Random(3)
    for _ in range(500):
        subject = _suspect(reluctant=rng.random() < 0.5, fm=rng.randint(10, 70))
        result = question(subject, Approach.INTIMIDATION, rng.randint(10, 80), rng=rng)
        assert result.tiers == tuple(range(len(result.tiers)))
        assert not result.pending


# Opposed readings (seed l. 1617-1620): (Intimidation target, roll, FM, FM roll, torture roll or
# None, tiers revealed, lost). Renove °R = (target − roll) // 10.
OPPOSED_CASES = [
    # Arnolf: 22 (2 °R) against a successful FM with 0 °R → won, tiers 0-2.
    (45, 22, 35, 30, None, (0, 1, 2), False),
    # Same °R (2 and 2), the Intimidation rolled lower (22 < 30): won with 0 net °R → tier 0.
    (45, 22, 55, 30, None, (0,), False),
    # Same °R (2 and 2), the FM rolled lower (22 < 24): the Intimidation loses → nothing.
    (45, 24, 50, 22, None, (), True),
    # The FM has more °R: lost, nothing.
    (45, 40, 60, 20, None, (), True),
    # Torture after a lost Intimidation (same °R, lower FM roll): its 3 °R change nothing.
    (45, 24, 50, 22, 15, (), True),
    # Torture after a lost Intimidation (more FM °R): nothing either.
    (45, 40, 60, 20, 5, (), True),
    # Torture after a won Intimidation (equal °R, lower Intimidation roll): 0 + 3 °R → tiers 0-3.
    (45, 22, 55, 30, 15, (0, 1, 2, 3), False),
]


@pytest.mark.parametrize(("target", "roll", "fm", "fm_roll", "torture", "tiers", "lost"), OPPOSED_CASES)
def test_opposed_readings_lost_intimidation_reveals_nothing(
    target: int, roll: int, fm: int, fm_roll: int, torture: int | None, tiers: tuple[int, ...], lost: bool
) -> None:
    result = question(
        _suspect(fm=fm),
        Approach.INTIMIDATION,
        target,
        rolls=[roll],
        fm_rolls=[fm_roll],
        torture_target=50 if torture is not None else None,
        torture_roll=torture,
    )
    assert result.tiers == tiers
    assert result.lost is lost
    assert result.to_dict()["lost"] is lost


def test_same_degrees_and_same_roll_roll_again() -> None:
    # 25 against 45 and 25 against 50: 2 °R each, same roll → roll again; dice running out → pending.
    pending = question(_suspect(fm=50), Approach.INTIMIDATION, 45, rolls=[25], fm_rolls=[25])
    assert pending.pending and pending.tiers == ()
    decided = question(_suspect(fm=50), Approach.INTIMIDATION, 45, rolls=[25, 22], fm_rolls=[25, 30])
    assert len(decided.rounds) == 2 and decided.tiers == (0,) and not decided.lost
