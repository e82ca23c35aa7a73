"""Statistical checks: seeded rolls through the public resolvers match exact probabilities.

The expected probabilities are computed here from the rules' wording (not from the resolvers).
Each sampled check uses 100 000 seeded rolls and a 4-standard-error tolerance; an exhaustive
pass over every die face then checks the same probabilities exactly, for more targets.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable
from fractions import Fraction

import pytest

from bot.rules.checks.common import CheckResult
from bot.rules.d20 import checks as d20
from bot.rules.ogl import checks as ogl
from bot.rules.renove import checks as renove
from bot.rules.v1 import checks as v1

N = 100_000
SIGMAS = 4.0

Stat = Callable[[CheckResult], object]


def renove_expected(target: int) -> dict[str, dict[object, Fraction]]:
    """renove: 01 always succeeds (critical if ≤ target); 02 critical success if ≤ target else
    failure; 99 critical failure if > target; 00 always fails (critical if > target)."""
    outcome: Counter[object] = Counter()
    degrees: Counter[object] = Counter()
    for face in range(1, 101):
        if face == 1:
            ok, crit = True, target >= 1
        elif face == 2:
            ok, crit = target >= 2, target >= 2
        elif face == 99:
            ok, crit = target >= 99, target < 99
        elif face == 100:
            ok, crit = False, target < 100
        else:
            ok, crit = face <= target, False
        outcome[("crit_" if crit else "") + ("success" if ok else "failure")] += 1
        degrees[("R", max(0, target - face) // 10) if ok else ("E", max(0, face - target) // 10)] += 1
    return _normalise(outcome=outcome, degrees=degrees)


def v1_expected(target: int) -> dict[str, dict[object, Fraction]]:
    outcome: Counter[object] = Counter()
    band: Counter[object] = Counter()
    for face in range(1, 101):
        ok = face <= 5 or (face < 96 and face <= target)
        crit = face <= 5 or face >= 96
        outcome[("crit_" if crit else "") + ("success" if ok else "failure")] += 1
        margin = max(0, target - face) if ok else max(0, face - target)
        band[(ok, 0 if margin < 20 else 20 if margin < 50 else 50)] += 1
    return _normalise(outcome=outcome, band=band)


def d20_expected(score: int) -> dict[str, dict[object, Fraction]]:
    outcome: Counter[object] = Counter()
    mr: Counter[object] = Counter()
    for face in range(1, 21):
        ok = face == 1 or (face < 20 and face <= score)
        crit = face == 20 or (ok and (face == 1 or score - face > 20))
        outcome[("crit_" if crit else "") + ("success" if ok else "failure")] += 1
        mr[(ok, max(0, score - face) if ok else max(0, face - score))] += 1
    return _normalise(outcome=outcome, mr=mr)


def ogl_expected(skill: int) -> dict[str, dict[object, Fraction]]:
    outcome: Counter[object] = Counter()
    for face in range(1, 101):
        ok = face <= skill and face != 100
        crit = face == 100 or (ok and face <= skill // 10)
        outcome[("crit_" if crit else "") + ("success" if ok else "failure")] += 1
    return _normalise(outcome=outcome)


def _normalise(**counters: Counter[object]) -> dict[str, dict[object, Fraction]]:
    out: dict[str, dict[object, Fraction]] = {}
    for name, counter in counters.items():
        total = sum(counter.values())
        out[name] = {k: Fraction(v, total) for k, v in counter.items()}
    return out


def outcome_of(r: CheckResult) -> object:
    crit = r.critical_success if r.success else r.critical_failure
    return ("crit_" if crit else "") + ("success" if r.success else "failure")


STATS: dict[str, dict[str, Stat]] = {
    "renove": {"outcome": outcome_of, "degrees": lambda r: ("R" if r.success else "E", r.degrees)},
    "v1": {
        "outcome": outcome_of,
        "band": lambda r: (r.success, 0 if r.margin < 20 else 20 if r.margin < 50 else 50),
    },
    "d20": {"outcome": outcome_of, "mr": lambda r: (r.success, r.margin)},
    "ogl": {"outcome": outcome_of},
}

CHECKS: dict[str, Callable[..., CheckResult]] = {
    "renove": renove.check,
    "v1": v1.check,
    "d20": d20.check,
    "ogl": ogl.check,
}
EXPECTED: dict[str, Callable[[int], dict[str, dict[object, Fraction]]]] = {
    "renove": renove_expected,
    "v1": v1_expected,
    "d20": d20_expected,
    "ogl": ogl_expected,
}


@pytest.mark.slow
@pytest.mark.parametrize(("system", "target"), [("renove", 45), ("v1", 45), ("d20", 25), ("ogl", 45)])
def test_sampled_rates_match_exact_probabilities(system: str, target: int) -> None:
    rng = random.Random(20240601 + target)
    check = CHECKS[system]
    results = [check(target, rng=rng) for _ in range(N)]
    for name, expected in EXPECTED[system](target).items():
        observed = Counter(STATS[system][name](r) for r in results)
        assert set(observed) <= set(expected), (name, set(observed) - set(expected))
        for key, p in expected.items():
            sigma = math.sqrt(float(p) * (1 - float(p)) / N)
            rate = observed[key] / N
            assert abs(rate - float(p)) <= SIGMAS * sigma + 1e-12, (system, name, key, rate, float(p))


class _Faces:
    """A random source that yields every face once, in order (an exhaustive pass)."""

    def __init__(self) -> None:
        self._next = 0

    def randint(self, a: int, b: int) -> int:
        value = a + self._next % (b - a + 1)
        self._next += 1
        return value


@pytest.mark.parametrize(
    ("system", "target"),
    [
        *(("renove", t) for t in (-4, 0, 1, 2, 45, 98, 99, 100, 120)),
        *(("v1", t) for t in (-10, 3, 45, 97, 130)),
        *(("d20", t) for t in (-2, 0, 12, 20, 22, 25, 40)),
        *(("ogl", t) for t in (0, 9, 10, 45, 100, 120)),
    ],
)
def test_every_face_matches_exact_probabilities(system: str, target: int) -> None:
    die = 20 if system == "d20" else 100
    faces = _Faces()
    results = [CHECKS[system](target, rng=faces) for _ in range(die)]
    for name, expected in EXPECTED[system](target).items():
        observed = Counter(STATS[system][name](r) for r in results)
        assert {k: Fraction(v, die) for k, v in observed.items()} == expected, (system, target, name)


def test_renove_45_has_the_textbook_probabilities() -> None:
    expected = renove_expected(45)
    assert expected["outcome"] == {
        "crit_success": Fraction(2, 100),
        "success": Fraction(43, 100),
        "failure": Fraction(53, 100),
        "crit_failure": Fraction(2, 100),
    }
    assert expected["degrees"][("R", 4)] == Fraction(5, 100)  # 01-05
    assert expected["degrees"][("R", 0)] == Fraction(10, 100)  # 36-45
