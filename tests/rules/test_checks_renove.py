"""`renove` tests with dice entered by hand (seed 000, "Gestion des tests")."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.checks.common import DiceError, Modifier, Outcome, System
from bot.rules.checks.dispatch import check
from bot.rules.d20 import checks as d20
from bot.rules.extended import ExtendedStatus
from bot.rules.opposed import Status
from bot.rules.renove import checks as renove
from bot.rules.renove.checks import Lenient, Secrecy, SecretTest, lenient_reading, secrecy
from bot.rules.v1 import checks as v1


@pytest.mark.parametrize(
    ("target", "roll", "outcome", "degrees"),
    [
        (45, 45, Outcome.SUCCESS, 0),
        (45, 35, Outcome.SUCCESS, 1),
        (45, 36, Outcome.SUCCESS, 0),
        (45, 5, Outcome.SUCCESS, 4),
        (45, 46, Outcome.FAILURE, 0),
        (45, 55, Outcome.FAILURE, 1),
        (45, 98, Outcome.FAILURE, 5),
        (45, 1, Outcome.CRITICAL_SUCCESS, 4),
        (45, 2, Outcome.CRITICAL_SUCCESS, 4),
        (45, 99, Outcome.CRITICAL_FAILURE, 5),
        (45, 100, Outcome.CRITICAL_FAILURE, 5),
        (45, 0, Outcome.CRITICAL_FAILURE, 5),  # "00" typed as 0
        # impossible-target reading: 01 succeeds (not critical), 02 fails
        (-4, 1, Outcome.SUCCESS, 0),
        (-4, 2, Outcome.FAILURE, 0),
        (-4, 3, Outcome.FAILURE, 0),
        (1, 1, Outcome.CRITICAL_SUCCESS, 0),
        (1, 2, Outcome.FAILURE, 0),
        (2, 2, Outcome.CRITICAL_SUCCESS, 0),
        # high targets: 99 no longer critical when ≤ target, 00 always fails
        (98, 99, Outcome.CRITICAL_FAILURE, 0),
        (99, 99, Outcome.SUCCESS, 0),
        (120, 99, Outcome.SUCCESS, 2),
        (99, 100, Outcome.CRITICAL_FAILURE, 0),
        (100, 100, Outcome.FAILURE, 0),
        (130, 100, Outcome.FAILURE, 0),
        (130, 98, Outcome.SUCCESS, 3),
    ],
)
def test_outcomes_and_degrees(target: int, roll: int, outcome: Outcome, degrees: int) -> None:
    result = renove.check(target, roll=roll)
    assert result.outcome is outcome
    assert result.degrees == degrees
    assert result.system is System.RENOVE


def test_seed_example_ag26_minus30() -> None:
    """Seed: "Test d'Ag, avec 26 en Ag et un malus de 30 % … le 01 est tout de même une réussite,
    mais pas critique, et le 02 est un échec"."""
    malus = [Modifier("checks.modifier.difficulty", -30)]
    one = renove.check(26, malus, roll=1, base_label="Ag")
    two = renove.check(26, malus, roll=2, base_label="Ag")
    assert one.target == -4
    assert one.success and not one.critical_success
    assert "checks.note.renove.forced_success" in one.notes
    assert not two.success and not two.critical
    assert two.outcome_key == "checks.outcome.failure"
    assert [m.to_dict() for m in one.modifiers] == [
        {"label": "Ag", "value": 26},
        {"label": "checks.modifier.difficulty", "value": -30},
    ]


@pytest.mark.parametrize(
    ("degrees", "critical", "reading"),
    [
        (0, False, Lenient.MINOR_SETBACK),
        (1, False, Lenient.MINOR_SETBACK),
        (2, False, Lenient.HEAVY_SETBACK),
        (3, False, Lenient.FULL_FAILURE),
        (7, False, Lenient.FULL_FAILURE),
        (0, True, Lenient.FULL_FAILURE),
    ],
)
def test_lenient_reading(degrees: int, critical: bool, reading: Lenient) -> None:
    assert lenient_reading(degrees, critical) is reading


@pytest.mark.parametrize(
    ("roll", "lenient"),
    [
        (46, "checks.lenient.minor_setback"),
        (64, "checks.lenient.minor_setback"),
        (65, "checks.lenient.heavy_setback"),
        (74, "checks.lenient.heavy_setback"),
        (75, "checks.lenient.full_failure"),
        (99, "checks.lenient.full_failure"),
        (30, None),
    ],
)
def test_lenient_on_result(roll: int, lenient: str | None) -> None:
    assert renove.check(45, roll=roll).lenient == lenient


def test_rng_and_dispatch() -> None:
    rng = random.Random(3)
    expected = random.Random(3).randint(1, 100)
    result = check("renove", 50, rng=rng)
    assert result.roll == expected
    assert result.die == 100


def test_roll_required_and_validated() -> None:
    with pytest.raises(DiceError):
        renove.check(50)
    with pytest.raises(DiceError):
        renove.check(50, roll=101)
    with pytest.raises(DiceError):
        renove.check(50, roll=-1)


def test_to_dict_is_json_ready() -> None:
    result = renove.check(45, [Modifier("Arme lente", -10)], roll=100, base_label="CC")
    data = json.loads(json.dumps(result.to_dict()))
    assert data["roll_text"] == "00"
    assert data["outcome"] == "critical_failure"
    assert data["outcome_key"] == "checks.outcome.critical_failure"
    assert data["target"] == 35
    assert data["degrees"] == 6
    assert renove.check(45, roll=7).roll_text == "07"


def test_secrecy() -> None:
    table = [SecretTest("Fouille"), SecretTest("Perception", always=False)]
    assert secrecy("fouille", table) is Secrecy.ALWAYS
    assert secrecy("Perception", table) is Secrecy.SOMETIMES
    assert secrecy("Escalade", table) is Secrecy.NEVER


@given(target=st.integers(-50, 200), roll=st.integers(1, 100))
def test_degrees_consistent(target: int, roll: int) -> None:
    r = renove.check(target, roll=roll)
    assert r.degrees is not None and r.degrees >= 0
    if r.success:
        assert r.degrees == max(0, target - roll) // 10
        assert roll <= target or roll == 1
    else:
        assert r.degrees == max(0, roll - target) // 10
        assert roll > target or roll == 100
    if r.critical_success:
        assert roll in (1, 2) and roll <= target
    if r.critical_failure:
        assert roll in (99, 100) and roll > target
    if 3 <= roll <= 98:
        assert r.success == (roll <= target)
        assert not r.critical


def test_every_emitted_key_is_in_both_catalogues() -> None:
    """Keys the rules core emits (literals and enum-built keys) exist in fr and en checks.json."""
    root = Path(__file__).resolve().parents[2]
    catalogues = [
        set(json.loads((root / "bot/i18n/locales" / lang / "checks.json").read_text(encoding="utf-8")))
        for lang in ("fr", "en")
    ]
    sources = [
        *(root / "bot/rules/checks").glob("*.py"),
        root / "bot/rules/opposed.py",
        root / "bot/rules/extended.py",
    ]
    keys = {
        k
        for path in sources
        for k in re.findall(r"\"(checks\.[a-z0-9_.]+)\"", path.read_text(encoding="utf-8"))
        if not k.endswith(".")
    }
    keys |= {f"checks.outcome.{o.value}" for o in Outcome}
    keys |= {"checks.outcome.fumble", "checks.outcome.impossible"}
    keys |= {x.key for x in Lenient} | {x.key for x in v1.Band} | {x.key for x in d20.Difficulty}
    keys |= {x.key for x in Status} | {x.key for x in ExtendedStatus}
    for catalogue in catalogues:
        assert keys - catalogue == set()


def test_the_wfrp_difficulty_scale() -> None:
    scale = [(d.value, d.modifier) for d in renove.Difficulty]
    assert scale == [
        ("very_easy", 30),
        ("easy", 20),
        ("routine", 10),
        ("average", 0),
        ("challenging", -10),
        ("hard", -20),
        ("very_hard", -30),
    ]
    # Issue #21: carac 40, Difficile → 20; 21 fails, 20 passes.
    hard = renove.Difficulty.HARD.as_modifier()
    assert hard == Modifier("checks.renove.difficulty.hard", -20)
    assert not renove.check(40, [hard], roll=21).success
    assert renove.check(40, [hard], roll=20).success
