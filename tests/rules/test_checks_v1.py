"""`v1` tests with dice entered by hand (seed 001, "Tests standard")."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.checks.common import Modifier, Outcome
from bot.rules.v1 import checks as v1
from bot.rules.v1.checks import Band, StandardTest, StandardTestNotComputable, find_standard_test


@pytest.mark.parametrize(
    ("target", "roll", "outcome", "margin", "band"),
    [
        (45, 45, Outcome.SUCCESS, 0, Band.NARROW_SUCCESS),
        (45, 26, Outcome.SUCCESS, 19, Band.NARROW_SUCCESS),
        (45, 25, Outcome.SUCCESS, 20, Band.BRILLIANT_SUCCESS),
        (60, 11, Outcome.SUCCESS, 49, Band.BRILLIANT_SUCCESS),
        (60, 10, Outcome.SUCCESS, 50, Band.DAZZLING_SUCCESS),
        (45, 46, Outcome.FAILURE, 1, Band.ANNOYING_FAILURE),
        (45, 64, Outcome.FAILURE, 19, Band.ANNOYING_FAILURE),
        (45, 65, Outcome.FAILURE, 20, Band.SEVERE_FAILURE),
        (30, 79, Outcome.FAILURE, 49, Band.SEVERE_FAILURE),
        (30, 80, Outcome.FAILURE, 50, Band.RESOUNDING_FAILURE),
        # 01-05 always critical successes, 96-00 always critical failures
        (45, 1, Outcome.CRITICAL_SUCCESS, 44, Band.BRILLIANT_SUCCESS),
        (45, 5, Outcome.CRITICAL_SUCCESS, 40, Band.BRILLIANT_SUCCESS),
        (45, 6, Outcome.SUCCESS, 39, Band.BRILLIANT_SUCCESS),
        (0, 3, Outcome.CRITICAL_SUCCESS, 0, Band.NARROW_SUCCESS),
        (-20, 5, Outcome.CRITICAL_SUCCESS, 0, Band.NARROW_SUCCESS),
        (45, 95, Outcome.FAILURE, 50, Band.RESOUNDING_FAILURE),
        (45, 96, Outcome.CRITICAL_FAILURE, 51, Band.RESOUNDING_FAILURE),
        (120, 96, Outcome.CRITICAL_FAILURE, 0, Band.ANNOYING_FAILURE),
        (120, 100, Outcome.CRITICAL_FAILURE, 0, Band.ANNOYING_FAILURE),
        (120, 95, Outcome.SUCCESS, 25, Band.BRILLIANT_SUCCESS),
    ],
)
def test_outcomes_and_bands(target: int, roll: int, outcome: Outcome, margin: int, band: Band) -> None:
    result = v1.check(target, roll=roll)
    assert result.outcome is outcome
    assert result.margin == margin
    assert result.band == band.key


def test_forced_notes() -> None:
    assert "checks.note.v1.forced_success" in v1.check(2, roll=4).notes
    assert "checks.note.v1.forced_failure" in v1.check(99, roll=97).notes
    assert v1.check(50, roll=4).notes == ()


def test_skill_bonus_and_modifier_itemised() -> None:
    result = v1.check(
        35,
        [Modifier("Charisme", 10), Modifier("checks.modifier.situational", -20)],
        roll=25,
        base_label="Soc",
    )
    assert result.target == 25
    assert result.success
    assert [m.value for m in result.modifiers] == [35, 10, -20]


TABLE = [
    StandardTest("Bluff", "Soc", helpful_skills=("Charisme", "Comédie")),
    StandardTest("Force", "F", multiplier=10),
    StandardTest("Contagion", "E", multiplier=10, helpful_skills=("Immunité aux maladies",)),
    StandardTest("Discrétion", fixed_target=30, helpful_skills=("Camouflage",)),
    StandardTest("Risque", fixed_target=50),
    StandardTest("Contre-magie", "Vol / FM"),
    StandardTest("Crochetage", note="Dex - diff. serrure"),
]
CHARACTER = {"F": 4, "E": 3, "Soc": 38, "FM": 41}


@pytest.mark.parametrize(
    ("action", "roll", "target", "success", "label"),
    [
        ("Force", 40, 40, True, "F × 10"),
        ("force", 41, 40, False, "F × 10"),
        ("Contagion", 31, 30, False, "E × 10"),
        ("Bluff", 38, 38, True, "Soc"),
        ("Discrétion", 30, 30, True, "Discrétion 30 %"),
        ("Discrétion", 31, 30, False, "Discrétion 30 %"),
        ("Risque", 50, 50, True, "Risque 50 %"),
        ("Contre-magie", 41, 41, True, "FM"),
    ],
)
def test_standard_tests(action: str, roll: int, target: int, success: bool, label: str) -> None:
    row = find_standard_test(action, TABLE)
    assert row is not None
    result = v1.standard_check(row, CHARACTER, roll=roll)
    assert result.target == target
    assert result.success is success
    assert result.modifiers[0].label == label


def test_standard_test_with_modifier_and_override() -> None:
    force = find_standard_test("Force", TABLE)
    assert force is not None
    result = v1.standard_check(force, CHARACTER, [Modifier("checks.modifier.situational", 10)], roll=50)
    assert result.target == 50 and result.success
    lock = find_standard_test("Crochetage", TABLE)
    assert lock is not None and not lock.computable
    with pytest.raises(StandardTestNotComputable):
        v1.standard_check(lock, CHARACTER, roll=10)
    assert v1.standard_check(lock, CHARACTER, roll=10, target_override=25).target == 25
    assert find_standard_test("Nope", TABLE) is None


def test_standard_test_round_trip_and_missing_characteristic() -> None:
    row = StandardTest.from_dict(TABLE[2].to_dict())
    assert row == TABLE[2]
    with pytest.raises(KeyError):
        v1.standard_check(StandardTest("Haine", "Cl"), CHARACTER, roll=10)


@given(target=st.integers(-50, 200), roll=st.integers(1, 100))
def test_band_consistent(target: int, roll: int) -> None:
    r = v1.check(target, roll=roll)
    assert r.margin >= 0
    if roll <= 5:
        assert r.success and r.critical_success
    elif roll >= 96:
        assert not r.success and r.critical_failure
    else:
        assert r.success == (roll <= target) and not r.critical
        assert r.margin == abs(target - roll)
    assert r.band is not None and (r.band.endswith("_success") == r.success)
