"""`ogl` tests with dice entered by hand (seed 004, "Règles OGL : Combat")."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.checks.common import Modifier, Outcome
from bot.rules.ogl import checks as ogl
from bot.rules.ogl.checks import OglOptions


@pytest.mark.parametrize(
    ("skill", "roll", "outcome"),
    [
        (45, 45, Outcome.SUCCESS),
        (45, 46, Outcome.FAILURE),
        (45, 4, Outcome.CRITICAL_SUCCESS),  # ⌊45/10⌋ = 4
        (45, 5, Outcome.SUCCESS),
        (45, 1, Outcome.CRITICAL_SUCCESS),
        (9, 1, Outcome.SUCCESS),  # critical score 0
        (10, 1, Outcome.CRITICAL_SUCCESS),
        (0, 1, Outcome.FAILURE),  # no automatic success by default
        (45, 99, Outcome.FAILURE),
        (45, 100, Outcome.CRITICAL_FAILURE),  # fumble on 00
        (120, 100, Outcome.CRITICAL_FAILURE),  # a fumble fails even at 120 %
        (120, 99, Outcome.SUCCESS),
        (120, 12, Outcome.CRITICAL_SUCCESS),
        (120, 13, Outcome.SUCCESS),
    ],
)
def test_outcomes(skill: int, roll: int, outcome: Outcome) -> None:
    assert ogl.check(skill, roll=roll).outcome is outcome


def test_fumble_key() -> None:
    assert ogl.check(45, roll=100).outcome_key == "checks.outcome.fumble"


def test_critical_uses_modified_skill() -> None:
    malus = [Modifier("checks.modifier.situational", -20)]
    result = ogl.check(55, malus, roll=4)
    assert result.target == 35
    assert result.success and not result.critical_success  # ⌊35/10⌋ = 3
    assert ogl.check(55, malus, roll=3).critical_success


@pytest.mark.parametrize(
    ("options", "skill", "roll", "outcome"),
    [
        (OglOptions(fumble_min=99), 45, 99, Outcome.CRITICAL_FAILURE),
        (OglOptions(fumble_min=99), 45, 98, Outcome.FAILURE),
        (OglOptions(automatic_success_max=5, automatic_failure_min=96), 0, 5, Outcome.SUCCESS),
        (OglOptions(automatic_success_max=5, automatic_failure_min=96), 120, 96, Outcome.FAILURE),
        (OglOptions(automatic_success_max=5, automatic_failure_min=96), 120, 95, Outcome.SUCCESS),
    ],
)
def test_options(options: OglOptions, skill: int, roll: int, outcome: Outcome) -> None:
    assert ogl.check(skill, roll=roll, options=options).outcome is outcome


@given(skill=st.integers(-20, 150), roll=st.integers(1, 100))
def test_critical_consistent(skill: int, roll: int) -> None:
    r = ogl.check(skill, roll=roll)
    assert r.success == (roll <= skill and roll != 100)
    assert r.critical_success == (r.success and roll <= skill // 10)
    assert r.critical_failure == (roll == 100)
