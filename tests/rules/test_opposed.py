"""Opposed and group opposed tests, with dice entered by hand."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules.checks.common import DiceError, System
from bot.rules.ogl import checks as ogl
from bot.rules.opposed import (
    Contestant,
    OppositionEntry,
    Status,
    Verdict,
    group_opposed_test,
    opposed_test,
    opposing_skills,
    with_rules,
)

A = Contestant("Arnolf", 45, base_label="Intimidation")
B = Contestant("Suspect", 40, base_label="FM")


@pytest.mark.parametrize(
    ("rolls_a", "rolls_b", "winner", "rounds", "reason"),
    [
        ((30,), (50,), "Arnolf", 1, "checks.opposed.reason.only_one_success"),
        ((60,), (20,), "Suspect", 1, "checks.opposed.reason.only_one_success"),
        ((22,), (35,), "Arnolf", 1, "checks.opposed.reason.more_degrees"),  # 2 °R vs 0 °R
        ((40,), (31,), "Suspect", 1, "checks.opposed.reason.lower_roll"),  # 0 °R each, 31 < 40
        ((44,), (39,), "Suspect", 1, "checks.opposed.reason.lower_roll"),
        ((39, 10), (39, 50), "Arnolf", 2, "checks.opposed.reason.only_one_success"),  # equal rolls
        ((70, 80, 12), (90, 41, 10), "Suspect", 3, "checks.opposed.reason.lower_roll"),  # 3 °R each
    ],
)
def test_renove_opposed(
    rolls_a: tuple[int, ...], rolls_b: tuple[int, ...], winner: str, rounds: int, reason: str
) -> None:
    result = opposed_test(A, B, system="renove", rolls_a=rolls_a, rolls_b=rolls_b)
    assert result.status is Status.DECIDED
    assert result.winner is not None and result.winner.name == winner
    assert len(result.rounds) == rounds
    assert all(r.verdict is Verdict.REROLL for r in result.rounds[:-1])
    assert result.rounds[-1].reason == reason
    assert [r.a.roll for r in result.rounds] == list(rolls_a)


def test_interrogation_seed_example_degrees() -> None:
    """Seed: Arnolf rolls 22 with 2 °R; the suspect succeeds with 0 °R."""
    result = opposed_test(A, B, system="renove", rolls_a=[22], rolls_b=[38])
    final = result.final
    assert final is not None
    assert (final.a.degrees, final.b.degrees) == (2, 0)
    assert result.winner == A


def test_pending_when_dice_run_out() -> None:
    result = opposed_test(A, B, system="renove", rolls_a=[80], rolls_b=[90])
    assert result.status is Status.PENDING
    assert len(result.rounds) == 1 and result.winner is None


def test_undecided_after_max_rounds() -> None:
    rules = with_rules("renove", max_rounds=5)
    weak_a, weak_b = Contestant("a", -50), Contestant("b", -50)
    result = opposed_test(weak_a, weak_b, system="renove", rules=rules, rolls_a=[50] * 10, rolls_b=[60] * 10)
    assert result.status is Status.UNDECIDED
    assert len(result.rounds) == 5


@pytest.mark.parametrize(
    ("roll_a", "roll_b", "winner", "status", "difference"),
    [
        (5, 8, "a", Status.DECIDED, 7 - 4),  # MR 7 vs MR 4
        (8, 5, "b", Status.DECIDED, 4 - 7),
        (6, 6, None, Status.NO_WINNER, 0),  # equal MR: blocked
        (5, 15, "a", Status.DECIDED, 7 + 3),  # MR + failure margin
        (14, 5, "b", Status.DECIDED, -(2 + 7)),
        (14, 15, None, Status.NO_WINNER, 0),  # both fail: nothing happens
    ],
)
def test_d20_opposed(roll_a: int, roll_b: int, winner: str | None, status: Status, difference: int) -> None:
    att, dfn = Contestant("a", 12), Contestant("b", 12)
    result = opposed_test(att, dfn, system=System.D20, rolls_a=[roll_a], rolls_b=[roll_b])
    assert result.status is status
    assert (result.winner.name if result.winner else None) == winner
    final = result.final
    assert final is not None and final.margin_difference == difference


@pytest.mark.parametrize(
    ("roll_a", "roll_b", "winner", "status", "rounds"),
    [
        (40, 30, "a", Status.DECIDED, 1),  # both succeed: higher roll wins
        (2, 30, "b", Status.DECIDED, 1),  # even against a critical by default
        (40, 70, "a", Status.DECIDED, 1),
        (80, 70, None, Status.NO_WINNER, 1),
    ],
)
def test_ogl_opposed(roll_a: int, roll_b: int, winner: str | None, status: Status, rounds: int) -> None:
    result = opposed_test(
        Contestant("a", 50), Contestant("b", 50), system="ogl", rolls_a=[roll_a], rolls_b=[roll_b]
    )
    assert result.status is status
    assert (result.winner.name if result.winner else None) == winner
    assert len(result.rounds) == rounds


def test_ogl_options_and_critical_rule() -> None:
    rules = with_rules("ogl", critical_beats_success=True)
    a, b = Contestant("a", 50), Contestant("b", 50)
    result = opposed_test(a, b, system="ogl", rules=rules, rolls_a=[2], rolls_b=[30])
    assert result.winner == a and result.rounds[-1].reason == "checks.opposed.reason.critical"
    tie = opposed_test(a, b, system="ogl", rolls_a=[30, 20], rolls_b=[30, 10])
    assert len(tie.rounds) == 2 and tie.winner == a
    fumbling = Contestant(
        "c", 50, resolver=lambda r: ogl.check(50, roll=r, options=ogl.OglOptions(fumble_min=99))
    )
    assert opposed_test(fumbling, b, system="ogl", rolls_a=[99], rolls_b=[99]).rounds[0].a.critical_failure


def test_v1_opposed_uses_margin() -> None:
    a, b = Contestant("a", 50), Contestant("b", 70)
    result = opposed_test(a, b, system="v1", rolls_a=[60, 20], rolls_b=[80, 40])
    assert result.rounds[0].verdict is Verdict.REROLL  # both fail: roll again
    assert result.winner == a  # margins 30 and 30: the lower roll wins
    assert result.rounds[1].reason == "checks.opposed.reason.lower_roll"
    better = opposed_test(a, b, system="v1", rolls_a=[45], rolls_b=[40])
    assert better.winner == b and better.rounds[0].reason == "checks.opposed.reason.higher_margin"


def test_to_dict_json() -> None:
    result = opposed_test(A, B, system="renove", rolls_a=[80, 22], rolls_b=[90, 38])
    data = json.loads(json.dumps(result.to_dict()))
    assert data["winner"] == "Arnolf"
    assert len(data["rounds"]) == 2
    assert data["status_key"] == "checks.opposed.status.decided"


# --- group tests -------------------------------------------------------------------------------

# The seed gives no scores; any Perception in 3..55 and Dissimulation in 27..74 replays it.
GUARDS = [Contestant("G1", 40, base_label="Perception"), Contestant("G2", 40, base_label="Perception")]
THIEF = [Contestant("V", 35, base_label="Dissimulation")]


def test_group_seed_example() -> None:
    """Seed: G1 = 03, G2 = 89, V = 75 → G1 sees V; G2 = 56, V = 27 → V wins against G2."""
    result = group_opposed_test(
        GUARDS, THIEF, system="renove", rolls={"G1": [3], "G2": [89, 56], "V": [75, 27]}
    )
    assert result.complete
    assert result.pair("G1", "V").winner == "G1"
    assert result.pair("G2", "V").winner == "V"
    assert set(result.beats) == {("G1", "V"), ("V", "G2")}
    assert len(result.rounds) == 2
    first, second = result.rounds
    assert {n: r.roll for n, r in first.results} == {"G1": 3, "G2": 89, "V": 75}
    assert {n: r.roll for n, r in second.results} == {"G2": 56, "V": 27}  # G1 no longer rolls
    assert len(result.pair("G1", "V").rounds) == 1
    assert [r.verdict for r in result.pair("G2", "V").rounds] == [Verdict.REROLL, Verdict.B]
    json.dumps(result.to_dict())


def test_group_pending_and_validation() -> None:
    result = group_opposed_test(GUARDS, THIEF, system="renove", rolls={"G1": [3], "G2": [89], "V": [75]})
    assert not result.complete
    assert result.pair("G2", "V").status is Status.PENDING
    assert result.pair("G1", "V").status is Status.DECIDED
    with pytest.raises(ValueError):
        group_opposed_test(GUARDS, [Contestant("G1", 30)], system="renove")
    with pytest.raises(DiceError):
        group_opposed_test(GUARDS, THIEF, system="renove", rolls={"X": [1]})
    with pytest.raises(ValueError):
        group_opposed_test([], THIEF, system="renove")


def test_group_with_rng_resolves_every_pair() -> None:
    side_a = [Contestant(f"a{i}", 30 + i) for i in range(3)]
    side_b = [Contestant(f"b{i}", 40 - i) for i in range(2)]
    result = group_opposed_test(side_a, side_b, system="renove", rng=random.Random(7))
    assert len(result.pairs) == 6
    assert all(p.status is Status.DECIDED for p in result.pairs)


def test_opposition_table() -> None:
    table = [
        OppositionEntry("Dissimulation", "Perception"),
        OppositionEntry("Filature", "Perception"),
        OppositionEntry("Marchandage", "Marchandage"),
    ]
    assert opposing_skills("dissimulation", table) == ("Perception",)
    assert opposing_skills("Perception", table) == ("Dissimulation", "Filature")
    assert opposing_skills("Marchandage", table) == ("Marchandage",)
    assert opposing_skills("Escalade", table) == ()


SYSTEMS = st.sampled_from(["renove", "v1", "d20", "ogl"])


@settings(max_examples=60, deadline=None)
@given(system=SYSTEMS, base_a=st.integers(-30, 130), base_b=st.integers(-30, 130), seed=st.integers(0, 2**32))
def test_opposed_always_terminates(system: str, base_a: int, base_b: int, seed: int) -> None:
    result = opposed_test(
        Contestant("a", base_a), Contestant("b", base_b), system=system, rng=random.Random(seed)
    )
    assert 1 <= len(result.rounds) <= 100
    assert result.status in (Status.DECIDED, Status.NO_WINNER, Status.UNDECIDED)
    assert (result.winner is not None) == (result.status is Status.DECIDED)


@settings(max_examples=40, deadline=None)
@given(
    system=SYSTEMS,
    bases_a=st.lists(st.integers(-30, 130), min_size=1, max_size=3),
    bases_b=st.lists(st.integers(-30, 130), min_size=1, max_size=3),
    seed=st.integers(0, 2**32),
)
def test_group_resolves_or_marks_undecided(
    system: str, bases_a: list[int], bases_b: list[int], seed: int
) -> None:
    side_a = [Contestant(f"a{i}", v) for i, v in enumerate(bases_a)]
    side_b = [Contestant(f"b{i}", v) for i, v in enumerate(bases_b)]
    result = group_opposed_test(side_a, side_b, system=system, rng=random.Random(seed))
    assert len(result.pairs) == len(side_a) * len(side_b)
    assert result.complete
    assert len(result.rounds) <= 100
    for pair in result.pairs:
        assert pair.status in (Status.DECIDED, Status.NO_WINNER, Status.UNDECIDED)
        assert all(r.verdict is Verdict.REROLL for r in pair.rounds[:-1])
