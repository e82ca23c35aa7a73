"""The chi-square test of /stats against known values, and its verdict on fair and biased dice."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from bot.rules.checks.dispatch import result_from_roll
from bot.rules.dice.engine import roll
from bot.rules.dice_stats import (
    LoggedTest,
    Verdict,
    chi_square_p_value,
    critical_chances,
    expected_criticals,
    logged_dice,
    regularized_upper_gamma,
    uniformity,
)


# Critical values of the chi-square law (tables, e.g. NIST/SEMATECH e-Handbook 1.3.6.7.4).
@pytest.mark.parametrize(
    ("statistic", "df", "p"),
    [
        (3.841458820694124, 1, 0.05),
        (6.634896601021214, 1, 0.01),
        (5.991464547107979, 2, 0.05),
        (11.070497693516351, 5, 0.05),
        (15.08627246938899, 5, 0.01),
        (30.14352720564616, 19, 0.05),
        (36.19086912927004, 19, 0.01),
        (123.2252214533618, 99, 0.05),
    ],
)
def test_p_value_matches_the_tables(statistic: float, df: int, p: float) -> None:
    assert chi_square_p_value(statistic, df) == pytest.approx(p, rel=1e-9)


def _q_integer(n: int, x: float) -> float:
    """Q(n, x) for an integer n: e^-x Σ_{k<n} x^k / k! (the Poisson tail), exact to rounding."""
    return math.exp(-x) * sum(x**k / math.factorial(k) for k in range(n))


@pytest.mark.parametrize(("a", "x"), [(1, 0.3), (3, 1.5), (10, 4.0), (10, 25.0), (50, 45.0), (50, 70.0)])
def test_upper_gamma_on_both_branches_against_the_poisson_tail(a: int, x: float) -> None:
    assert regularized_upper_gamma(a, x) == pytest.approx(_q_integer(a, x), rel=1e-10, abs=1e-300)


@pytest.mark.parametrize("x", [0.01, 0.5, 2.0, 9.0])
def test_upper_gamma_of_one_half_is_erfc(x: float) -> None:
    assert regularized_upper_gamma(0.5, x) == pytest.approx(math.erfc(math.sqrt(x)), rel=1e-10)


def test_p_value_edges() -> None:
    assert chi_square_p_value(0.0, 5) == 1.0
    assert chi_square_p_value(10_000.0, 5) < 1e-100
    with pytest.raises(ValueError):
        chi_square_p_value(1.0, 0)


def test_a_fair_seeded_d20_is_fine_and_a_loaded_one_is_worth_watching() -> None:
    rng = random.Random(2026)
    fair = Counter(rng.randint(1, 20) for _ in range(4000))
    verdict = uniformity(20, fair)
    assert verdict.verdict is Verdict.FINE
    assert verdict.p_value is not None and verdict.p_value >= 0.01
    assert verdict.mean == pytest.approx(10.5, abs=0.3)
    # Loaded: a 20 comes up one time in ten instead of one in twenty.
    loaded = Counter(20 if rng.random() < 0.10 else rng.randint(1, 19) for _ in range(4000))
    watched = uniformity(20, loaded)
    assert watched.verdict is Verdict.WATCH
    assert watched.p_value is not None and watched.p_value < 1e-6
    assert watched.mean is not None and watched.mean > verdict.mean


def test_fair_seeded_dice_are_rarely_flagged() -> None:
    """Under a fair die the p-value is uniform: about 1 % of fair logs are flagged, not more."""
    rng = random.Random(7)
    flagged = sum(
        uniformity(6, Counter(rng.randint(1, 6) for _ in range(300))).verdict is Verdict.WATCH
        for _ in range(400)
    )
    assert flagged <= 12  # 1 % of 400 is 4; 12 is far in the tail of Binomial(400, 0.01)


def test_too_few_dice_says_so() -> None:
    few = uniformity(100, Counter({1: 400, 2: 99}))  # 499 < 5 × 100
    assert few.verdict is Verdict.TOO_FEW
    assert few.p_value is None and few.needed == 500
    enough = uniformity(6, Counter({face: 5 for face in range(1, 7)}))
    assert enough.verdict is Verdict.FINE and enough.statistic == 0.0


def test_critical_chances_follow_each_ruleset() -> None:
    assert critical_chances("renove", 45) == (0.02, 0.02)  # 01-02 and 99-00
    assert critical_chances("v1", 45) == (0.05, 0.05)  # 01-05 and 96-00
    assert critical_chances("d20", 10) == (0.05, 0.05)  # a natural 1, a natural 20
    assert critical_chances("ogl", 55) == (0.05, 0.01)  # at most a tenth of the skill; 00 fumbles (defaults)
    # Whatever the ruleset: the share is the ruleset's own resolution over every face.
    for system, die in (("renove", 100), ("v1", 100), ("d20", 20), ("ogl", 100)):
        for target in (1, 30, 99):
            s = sum(result_from_roll(system, target, (), f).critical_success for f in range(1, die + 1))
            assert critical_chances(system, target)[0] == s / die
    assert expected_criticals([("renove", 45, 100), ("v1", 45, 100)]) == pytest.approx((7.0, 7.0))


def test_logged_dice_of_a_roll_and_of_a_test() -> None:
    result = roll("4d6kh3 + 1d20", random.Random(3)).to_dict()
    logged = logged_dice({**result, "manual": False})
    assert sum(n for (sides, _), n in logged.faces.items() if sides == 6) == 4  # the dropped die too
    assert sum(n for (sides, _), n in logged.faces.items() if sides == 20) == 1
    assert logged.tests == () and not logged.manual
    test = result_from_roll("renove", 45, (), 2).to_dict()
    logged = logged_dice({**test, "manual": True})
    assert logged.faces == Counter()
    assert logged.tests == (LoggedTest(100, 2, "renove", 45, 1),) and logged.manual
    assert logged_dice({"secret": True, "why": "player"}).faces == Counter()
