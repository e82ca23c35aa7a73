"""Extended tests (seed 000, "tests étendus"): at most N attempts, K successes needed.

Seed example: 6 lock-picking tests, 3 must succeed, each one round (or 10 s); research 4 h/test.
The test stops as soon as K successes are reached, or as soon as K is out of reach with the
attempts left. Readings: a critical success counts as one success like any other; the time per
attempt is data (:class:`Duration`), a round by default.

Step-by-step API for buttons: :func:`start` → :func:`attempt` (or :func:`record` with an
already-resolved check) → a new immutable :class:`ExtendedState` each time.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from bot.rules.checks.common import BASE_LABEL, CheckResult, Modifier, System, build_target, obtain_roll
from bot.rules.checks.dispatch import die_for, result_from_roll
from bot.rules.random_source import RandomSource


class TimeUnit(StrEnum):
    ROUND = "round"
    SECOND = "second"
    MINUTE = "minute"
    HOUR = "hour"
    DAY = "day"


@dataclass(frozen=True, slots=True)
class Duration:
    amount: int = 1
    unit: TimeUnit = TimeUnit.ROUND

    def times(self, n: int) -> Duration:
        return Duration(self.amount * n, self.unit)

    def to_dict(self) -> dict[str, Any]:
        return {"amount": self.amount, "unit": self.unit.value}


@dataclass(frozen=True, slots=True)
class ExtendedTest:
    """What is tested and how: ``base`` + ``modifiers`` in ``system``, K of N attempts."""

    system: System
    base: int
    max_attempts: int
    successes_needed: int
    modifiers: tuple[Modifier, ...] = ()
    base_label: str = BASE_LABEL
    time_per_attempt: Duration = field(default_factory=Duration)

    def __post_init__(self) -> None:
        if self.max_attempts < 1 or self.successes_needed < 1:
            raise ValueError("an extended test needs at least one attempt and one success")

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.system.value,
            "base": self.base,
            "base_label": self.base_label,
            "modifiers": [m.to_dict() for m in self.modifiers],
            "max_attempts": self.max_attempts,
            "successes_needed": self.successes_needed,
            "time_per_attempt": self.time_per_attempt.to_dict(),
        }


class ExtendedStatus(StrEnum):
    """Catalogue key ``checks.extended.status.<value>``."""

    IN_PROGRESS = "in_progress"
    SUCCEEDED = "succeeded"
    FAILED = "failed"

    @property
    def key(self) -> str:
        return f"checks.extended.status.{self.value}"


class ExtendedTestOver(ValueError):
    """An attempt was made after the extended test ended."""


@dataclass(frozen=True, slots=True)
class ExtendedState:
    test: ExtendedTest
    attempts: tuple[CheckResult, ...] = ()

    @property
    def successes(self) -> int:
        return sum(1 for r in self.attempts if r.success)

    @property
    def failures(self) -> int:
        return len(self.attempts) - self.successes

    @property
    def attempts_left(self) -> int:
        return self.test.max_attempts - len(self.attempts)

    @property
    def successes_missing(self) -> int:
        return max(0, self.test.successes_needed - self.successes)

    @property
    def status(self) -> ExtendedStatus:
        if self.successes >= self.test.successes_needed:
            return ExtendedStatus.SUCCEEDED
        if self.successes_missing > self.attempts_left:
            return ExtendedStatus.FAILED
        return ExtendedStatus.IN_PROGRESS

    @property
    def finished(self) -> bool:
        return self.status is not ExtendedStatus.IN_PROGRESS

    @property
    def elapsed(self) -> Duration:
        return self.test.time_per_attempt.times(len(self.attempts))

    def to_dict(self) -> dict[str, Any]:
        return {
            "test": self.test.to_dict(),
            "attempts": [r.to_dict() for r in self.attempts],
            "successes": self.successes,
            "failures": self.failures,
            "attempts_left": self.attempts_left,
            "status": self.status.value,
            "status_key": self.status.key,
            "elapsed": self.elapsed.to_dict(),
        }


def start(test: ExtendedTest) -> ExtendedState:
    return ExtendedState(test)


def record(state: ExtendedState, result: CheckResult) -> ExtendedState:
    """Add an already-resolved attempt (e.g. one resolved with system-specific options)."""
    if state.finished:
        raise ExtendedTestOver(state.status.value)
    return ExtendedState(state.test, (*state.attempts, result))


def attempt(
    state: ExtendedState,
    *,
    rng: RandomSource | None = None,
    roll: int | None = None,
    extra_modifiers: Iterable[Modifier] = (),
) -> ExtendedState:
    """Roll (or take ``roll``) one attempt; ``extra_modifiers`` apply to this attempt only."""
    if state.finished:
        raise ExtendedTestOver(state.status.value)
    test = state.test
    target, items = build_target(test.base, (*test.modifiers, *extra_modifiers), test.base_label)
    value = obtain_roll(die_for(test.system), rng, roll)
    return record(state, result_from_roll(test.system, target, items, value))


def run(test: ExtendedTest, *, rng: RandomSource | None = None, rolls: Sequence[int] = ()) -> ExtendedState:
    """Run to the end: hand-entered ``rolls`` first, then ``rng``; without ``rng`` it stops when
    the rolls run out (the returned state may still be in progress)."""
    state = start(test)
    entered = iter(rolls)
    while not state.finished:
        value = next(entered, None)
        if value is None and rng is None:
            break
        state = attempt(state, rng=rng, roll=value)
    return state
