"""Honest dice (``/stats``): faces counted from the roll log, a chi-square test of uniformity, the
critical share the rules expect. Pure: no database, no randomness.

The p-value is the chi-square distribution's upper tail, ``Q(k/2, x/2)`` (the regularised upper
incomplete gamma function), by its series below ``a + 1`` and Lentz's continued fraction above
(Numerical Recipes, 6.2): no scipy. The verdict follows the textbook rule: every face must expect at
least :data:`MIN_EXPECTED` dice, or the test says nothing and the verdict says so.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import Any

from bot.rules.checks.common import System
from bot.rules.checks.dispatch import die_for, result_from_roll

MIN_EXPECTED = 5.0  # dice expected per face, at least, for the chi-square test to mean something
WATCH_BELOW = 0.01  # a p-value under 1 %: « à surveiller »
_EPSILON = 1e-15
_TINY = 1e-300
_MAX_ITERATIONS = 10_000


def _lower_series(a: float, x: float) -> float:
    """P(a, x) by its series (converges fast for x < a + 1)."""
    term = total = 1.0 / a
    n = a
    for _ in range(_MAX_ITERATIONS):
        n += 1.0
        term *= x / n
        total += term
        if abs(term) < abs(total) * _EPSILON:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _upper_fraction(a: float, x: float) -> float:
    """Q(a, x) by its continued fraction, modified Lentz (converges fast for x ≥ a + 1)."""
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    for i in range(1, _MAX_ITERATIONS):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPSILON:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def regularized_upper_gamma(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a), for a > 0, x ≥ 0."""
    if a <= 0:
        raise ValueError("a must be positive")
    if x < 0:
        raise ValueError("x must not be negative")
    if x == 0:
        return 1.0
    if x < a + 1.0:
        return max(0.0, 1.0 - _lower_series(a, x))
    return min(1.0, _upper_fraction(a, x))


def chi_square_p_value(statistic: float, degrees_of_freedom: int) -> float:
    """P(X ≥ statistic) for X following the chi-square law with ``degrees_of_freedom``."""
    if degrees_of_freedom < 1:
        raise ValueError("at least one degree of freedom")
    return regularized_upper_gamma(degrees_of_freedom / 2.0, max(0.0, statistic) / 2.0)


class Verdict(StrEnum):
    FINE = "fine"  # « rien d'anormal »
    WATCH = "watch"  # « à surveiller »
    TOO_FEW = "too_few"  # fewer than MIN_EXPECTED dice expected on some face: the test says nothing


@dataclass(frozen=True, slots=True)
class Uniformity:
    sides: int
    dice: int
    mean: float | None
    expected_mean: float
    statistic: float | None
    p_value: float | None
    verdict: Verdict
    needed: int  # dice needed for the test to mean something (MIN_EXPECTED per face)


def uniformity(sides: int, counts: Mapping[int, int]) -> Uniformity:
    """The chi-square test that each face of a d``sides`` comes up equally often."""
    if sides < 2:
        raise ValueError("a die has at least two faces")
    observed = [counts.get(face, 0) for face in range(1, sides + 1)]
    dice = sum(observed)
    expected_mean = (sides + 1) / 2
    mean = sum(face * n for face, n in enumerate(observed, start=1)) / dice if dice else None
    needed = math.ceil(MIN_EXPECTED * sides)
    if dice < needed:
        return Uniformity(sides, dice, mean, expected_mean, None, None, Verdict.TOO_FEW, needed)
    expected = dice / sides
    statistic = sum((n - expected) ** 2 for n in observed) / expected
    p_value = chi_square_p_value(statistic, sides - 1)
    verdict = Verdict.WATCH if p_value < WATCH_BELOW else Verdict.FINE
    return Uniformity(sides, dice, mean, expected_mean, statistic, p_value, verdict, needed)


@cache
def critical_chances(system: str, target: int) -> tuple[float, float]:
    """The chances of a critical success and of a critical failure of one test at ``target``, under
    the ruleset's defaults: every face of its die resolved by the ruleset itself."""
    die = die_for(system)
    success = failure = 0
    for face in range(1, die + 1):
        result = result_from_roll(System(system), target, (), face)
        success += result.critical_success
        failure += result.critical_failure
    return success / die, failure / die


@dataclass(frozen=True, slots=True)
class LoggedTest:
    """A test's own die: its face, ruleset, target and +1 critical success / −1 failure / 0."""

    sides: int
    face: int
    ruleset: str
    target: int
    crit: int


@dataclass(frozen=True, slots=True)
class LoggedDice:
    """What one roll-log row holds for the statistics."""

    faces: Counter[tuple[int, int]]  # (sides, face) → dice, tests' dice apart
    manual: bool
    tests: tuple[LoggedTest, ...]


def _check(value: object) -> LoggedTest | tuple[int, int] | None:
    """A check result's die (a test when it names its ruleset, target and criticals)."""
    if not isinstance(value, dict):
        return None
    die, roll = value.get("die"), value.get("roll")
    if not (isinstance(die, int) and isinstance(roll, int) and die >= 2 and 1 <= roll <= die):
        return None
    system, target = value.get("system"), value.get("target")
    if system in set(System) and isinstance(target, int) and "critical_success" in value:
        crit = 1 if value.get("critical_success") else -1 if value.get("critical_failure") else 0
        return LoggedTest(die, roll, str(system), target, crit)
    return (die, roll)


def logged_dice(result: Mapping[str, Any]) -> LoggedDice:
    """The dice of a roll-log ``result``: a dice expression's groups (every die rolled, dropped and
    rerolled ones too), a test's one die, or the dice of an opposed or group test's rounds (each
    round's checks, once: a group test's pairs repeat its rounds and are not read). Anything else
    holds no die the statistics count."""
    faces: Counter[tuple[int, int]] = Counter()
    tests: list[LoggedTest] = []
    groups = result.get("groups")
    if isinstance(groups, list):
        for group in groups:
            sides = group.get("sides") if isinstance(group, dict) else None
            if not isinstance(sides, int) or isinstance(sides, bool) or sides < 2:
                continue
            for die in group.get("dice") or ():
                value = die.get("value") if isinstance(die, dict) else None
                if isinstance(value, int) and 1 <= value <= sides:
                    faces[(sides, value)] += 1
    checks: list[object] = [result]
    rounds = result.get("rounds")
    if isinstance(rounds, list):
        for played in rounds:
            if not isinstance(played, dict):
                continue
            checks += [played.get("a"), played.get("b")]
            results = played.get("results")
            if isinstance(results, dict):
                checks += list(results.values())
    for value in checks:
        found = _check(value)
        if isinstance(found, LoggedTest):
            tests.append(found)
        elif found is not None:
            faces[found] += 1
    return LoggedDice(faces, result.get("manual") is True, tuple(tests))


# ``/stats`` groups the dice by one integer, in index order (SQLite then sums them as it reads the
# index, without sorting): sides, face, by hand, secret, ruleset, target and critical, packed.
_RULESETS = ("renove", "v1", "d20", "ogl")
_TARGET_OFFSET = 1 << 17  # targets from −131 072 to 131 071 (beyond: clamped)
FACE_BITS = 14  # MAX_SIDES is 10 000


@dataclass(frozen=True, slots=True)
class StatKey:
    sides: int
    face: int
    manual: bool
    secret: bool
    ruleset: str | None  # a test's own die only: its ruleset, target and critical
    target: int | None
    crit: int | None  # +1 critical success, −1 critical failure, 0 neither

    def pack(self) -> int:
        ruleset = _RULESETS.index(self.ruleset) + 1 if self.ruleset in _RULESETS else 0
        target = 0
        if ruleset and self.target is not None:
            target = min(max(self.target + _TARGET_OFFSET, 0), 2 * _TARGET_OFFSET - 1)
        crit = {None: 0, 0: 1, 1: 2, -1: 3}[self.crit if ruleset else None]
        key = (self.sides << FACE_BITS) | self.face
        key = (key << 1) | self.manual
        key = (key << 1) | self.secret
        key = (key << 3) | ruleset
        key = (key << 18) | target
        return (key << 2) | crit

    @classmethod
    def unpack(cls, key: int) -> StatKey:
        crit, key = key & 3, key >> 2
        target, key = key & ((1 << 18) - 1), key >> 18
        ruleset, key = key & 7, key >> 3
        secret, key = key & 1, key >> 1
        manual, key = key & 1, key >> 1
        face, sides = key & ((1 << FACE_BITS) - 1), key >> FACE_BITS
        if not ruleset:
            return cls(sides, face, bool(manual), bool(secret), None, None, None)
        return cls(
            sides,
            face,
            bool(manual),
            bool(secret),
            _RULESETS[ruleset - 1],
            target - _TARGET_OFFSET,
            {1: 0, 2: 1, 3: -1}[crit],
        )


def expected_criticals(tests: Iterable[tuple[str, int, int]]) -> tuple[float, float]:
    """Critical successes and failures expected over ``(ruleset, target, count)`` groups of tests."""
    success = failure = 0.0
    for system, target, count in tests:
        s, f = critical_chances(system, target)
        success += s * count
        failure += f * count
    return success, failure
