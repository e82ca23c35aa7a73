"""Extended tests (seed 000: "6 tests de crochetage, … en réussir 3")."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules.checks.common import Modifier, System
from bot.rules.extended import (
    Duration,
    ExtendedStatus,
    ExtendedTest,
    ExtendedTestOver,
    TimeUnit,
    attempt,
    record,
    run,
    start,
)
from bot.rules.renove import checks as renove

LOCK = ExtendedTest(
    System.RENOVE,
    base=40,
    max_attempts=6,
    successes_needed=3,
    base_label="Crochetage",
    time_per_attempt=Duration(10, TimeUnit.SECOND),
)


@pytest.mark.parametrize(
    ("rolls", "status", "used", "successes"),
    [
        ((10, 20, 30), ExtendedStatus.SUCCEEDED, 3, 3),
        ((10, 90, 20, 80, 30, 99), ExtendedStatus.SUCCEEDED, 5, 3),
        ((90, 80, 70, 60), ExtendedStatus.FAILED, 4, 0),  # 3 needed, 2 left: out of reach
        ((10, 90, 80, 70, 20, 60), ExtendedStatus.FAILED, 6, 2),
        ((10, 90, 80, 70, 20, 30), ExtendedStatus.SUCCEEDED, 6, 3),
        ((10, 90), ExtendedStatus.IN_PROGRESS, 2, 1),  # dice ran out
    ],
)
def test_run_with_entered_dice(
    rolls: tuple[int, ...], status: ExtendedStatus, used: int, successes: int
) -> None:
    state = run(LOCK, rolls=rolls)
    assert state.status is status
    assert len(state.attempts) == used
    assert state.successes == successes
    assert state.elapsed == Duration(10 * used, TimeUnit.SECOND)


def test_step_by_step() -> None:
    state = start(LOCK)
    assert state.status is ExtendedStatus.IN_PROGRESS and state.attempts_left == 6
    state = attempt(state, roll=1)
    state = attempt(state, roll=55, extra_modifiers=[Modifier("checks.modifier.situational", 20)])
    assert state.attempts[1].success and state.attempts[1].target == 60
    assert state.attempts[0].critical_success  # counts as one success (reading)
    state = record(state, renove.check(40, roll=12))
    assert state.status is ExtendedStatus.SUCCEEDED
    with pytest.raises(ExtendedTestOver):
        attempt(state, roll=1)
    data = json.loads(json.dumps(state.to_dict()))
    assert data["status_key"] == "checks.extended.status.succeeded"
    assert data["elapsed"] == {"amount": 30, "unit": "second"}


def test_validation() -> None:
    with pytest.raises(ValueError):
        ExtendedTest(System.RENOVE, 40, max_attempts=0, successes_needed=1)
    impossible_from_start = ExtendedTest(System.D20, 12, max_attempts=2, successes_needed=3)
    assert start(impossible_from_start).status is ExtendedStatus.FAILED


@settings(max_examples=80, deadline=None)
@given(
    system=st.sampled_from(list(System)),
    base=st.integers(-20, 120),
    n=st.integers(1, 12),
    k=st.integers(1, 12),
    seed=st.integers(0, 2**32),
)
def test_run_invariants(system: System, base: int, n: int, k: int, seed: int) -> None:
    state = run(ExtendedTest(system, base, n, k), rng=random.Random(seed))
    assert state.finished
    assert len(state.attempts) <= n
    if state.status is ExtendedStatus.SUCCEEDED:
        assert state.successes == k and state.attempts[-1].success
    else:
        assert state.successes + state.attempts_left < k
