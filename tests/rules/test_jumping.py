"""Jumping (seed 000 l. 1716-1720, 1778-1815; data/jumps.json), every d100 typed by hand."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from bot.rules.checks.common import Modifier
from bot.rules.renove import jumping as rules

DOC: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parents[2] / "data" / "jumps.json").read_text(encoding="utf-8")
)


def test_long_jump_success_reaches_half_of_bf_plus_m() -> None:
    # BF 3, M 4: at most (3 + 4)/2 = 3.5 m with a run-up of 4 to 8 m; Ag 40, 30 passes.
    jump = rules.long_jump(DOC, bf=3, m=4, ag=40, roll=30)
    assert jump.test.success and jump.test.target == 40
    assert jump.max_distance == Fraction(7, 2) and jump.distance == Fraction(7, 2)
    assert jump.lost == 0 and (jump.run_up_min, jump.run_up_max) == (4, 8) and jump.time == "round"


def test_long_jump_failure_costs_half_a_metre_plus_half_per_degree() -> None:
    # Ag 40, 62: failed by 22, 2 °E → 0.5 + 2 × 0.5 = 1.5 m less: 3.5 − 1.5 = 2 m.
    jump = rules.long_jump(DOC, bf=3, m=4, ag=40, roll=62)
    assert not jump.test.success and jump.test.degrees == 2
    assert jump.lost == Fraction(3, 2) and jump.distance == 2
    # 0 °E (41): only the 0.5 m.
    assert rules.long_jump(DOC, bf=3, m=4, ag=40, roll=41).distance == 3


def test_without_run_up_the_distance_after_the_loss_is_halved() -> None:
    assert rules.long_jump(DOC, bf=3, m=4, ag=40, roll=30, run_up=False).distance == Fraction(7, 4)
    # (3.5 − 1.5) / 2 = 1 m: the loss comes first, then the halving (« après application des malus »).
    standing = rules.long_jump(DOC, bf=3, m=4, ag=40, roll=62, run_up=False)
    assert standing.distance == 1 and standing.time == "half_round"


def test_long_jump_never_goes_below_zero_and_modifiers_count() -> None:
    # BF 1, M 1: 1 m; 00 against 20 fails by 80, 8 °E → 4.5 m lost, the jump is 0 m.
    jump = rules.long_jump(DOC, bf=1, m=1, ag=20, roll=100)
    assert jump.distance == 0 and jump.test.critical_failure
    worn = rules.long_jump(DOC, bf=3, m=4, ag=40, modifiers=[Modifier("armour", -10)], roll=35)
    assert worn.test.target == 30 and not worn.test.success
    with pytest.raises(rules.JumpError):
        rules.long_jump(DOC, bf=-1, m=4, ag=40, roll=10)


def test_height_table_rows_and_their_bounds() -> None:
    rows = rules.height_rows(DOC)
    pick = {
        h: rules.height_row(rows, Fraction(h)).id for h in ("0", "1.9", "2", "2.5", "3", "5.4", "5.5", "9")
    }
    assert pick == {
        "0": "h_0m",
        "1.9": "h_0m",
        "2": "h_2m",
        "2.5": "h_2_5m",
        "3": "h_3m",
        "5.4": "h_5m",
        "5.5": "h_5_5m",
        "9": "h_5_5m",
    }
    assert [r.ag_modifier for r in rows] == [None, 30, 20, 10, 0, -10, -20, -30, None]
    assert [r.damage for r in rows] == [None, 2, 3, 3, 4, 4, 5, 5, 6]
    with pytest.raises(rules.JumpError):
        rules.height_row(rows, Fraction(-1))


def test_jumping_down_three_metres() -> None:
    # 3 m: Ag +10 %; Ag 40 → 50; 30 passes, 70 fails and deals 3.
    landed = rules.height_jump(DOC, height=Fraction(3), ag=40, roll=30)
    assert landed.test is not None and landed.test.target == 50 and landed.landed and landed.damage is None
    fell = rules.height_jump(DOC, height=Fraction(3), ag=40, roll=70)
    assert not fell.landed and fell.damage_rolled == 3 and fell.damage == 3
    # Only light armour reduces it, by 1 point.
    light = rules.height_jump(DOC, height=Fraction(3), ag=40, roll=70, light_armour=True)
    assert light.damage == 2 and light.armour_reduction == 1
    assert light.to_dict()["damage"] == 2 and light.to_dict()["ag_modifier"] == 10


def test_automatic_rows_roll_nothing() -> None:
    class NoDice(random.Random):
        def randint(self, a: int, b: int) -> int:
            raise AssertionError("no test at this height")

    low = rules.height_jump(DOC, height=Fraction(3, 2), ag=10, rng=NoDice())
    assert low.test is None and low.landed and low.damage is None
    high = rules.height_jump(DOC, height=Fraction(6), ag=90, rng=NoDice(), light_armour=True)
    assert high.test is None and not high.landed
    assert high.damage_rolled == 6 and high.damage == 5 and high.to_dict()["damage_open_ended"]


def test_a_seeded_generator_gives_the_same_jump() -> None:
    first = rules.long_jump(DOC, bf=4, m=4, ag=35, rng=random.Random(7))
    again = rules.long_jump(DOC, bf=4, m=4, ag=35, rng=random.Random(7))
    assert first == again and first.test.roll == random.Random(7).randint(1, 100)
