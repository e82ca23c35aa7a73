"""The casting roll with the seed's chaos die (seed 000 l. 1524-1528), the spell's time in a fight
(l. 1067-1068) and what criticals do to mages (l. 1300-1303): table-driven, dice entered by hand."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from bot.data_loading import DATA_DIR, validate_file
from bot.rules.combat.basics import RefusedError
from bot.rules.combat.effects import Condition
from bot.rules.combat.state import Combatant, RoundActions
from bot.rules.renove.magic import (
    Curse,
    MagicError,
    SpellLength,
    VoiceCritical,
    can_cast,
    cast,
    curse_of,
    half_cost,
    hits_voice,
    mirror_on_fm,
    take_cast,
    turn_passes,
)
from tests.data.pinned import check_owned_table

# magic, difficulty, dice (casting first, chaos last), chaos dice, total, success, all ones, curse
CASES = [
    # the brief's example: casting 6 < 9, the chaos die's 5 not added, the double 3-3 a curse
    (2, 9, [3, 3, 5], 1, 6, False, False, Curse.MINOR),
    # every casting die shows 1: the spell fails (a double 1-1 too)
    (2, 9, [1, 1, 4], 1, 2, False, True, Curse.MINOR),
    # the chaos die does not count for the 1s: a 5 on it does not save « every casting die shows 1 »…
    (1, 1, [1, 5], 1, 1, False, True, None),
    # …and a 1 on it does not make them all ones
    (2, 3, [1, 2, 1], 1, 3, True, False, Curse.MINOR),
    # the chaos die is never added: 4 + 2 = 6 < 7 even with a 10 on the chaos die
    (2, 7, [4, 2, 10], 1, 6, False, False, None),
    # equal to the difficulty succeeds
    (2, 6, [4, 2, 9], 1, 6, True, False, None),
    # the chaos die makes the double: no double among the casting dice, one with the chaos die
    (2, 5, [4, 2, 4], 1, 6, True, False, Curse.MINOR),
    # a triple with the chaos die: major
    (3, 10, [5, 5, 2, 5], 1, 12, True, False, Curse.MAJOR),
    # a quadruple: catastrophic
    (3, 7, [2, 2, 2, 2], 1, 6, False, False, Curse.CATASTROPHIC),
    # against mages: two criticals taken, three chaos dice; five dice on one face is still catastrophic
    (2, 5, [6, 6, 6, 6, 6], 3, 12, True, False, Curse.CATASTROPHIC),
]


@pytest.mark.parametrize(("magic", "difficulty", "dice", "chaos", "total", "success", "ones", "curse"), CASES)
def test_casting_rolls(
    magic: int,
    difficulty: int,
    dice: list[int],
    chaos: int,
    total: int,
    success: bool,
    ones: bool,
    curse: Curse | None,
) -> None:
    result = cast(magic, difficulty, chaos_dice=chaos, dice=dice)
    assert result.casting == tuple(dice[:magic]) and result.chaos == tuple(dice[magic:])
    assert (result.total, result.success, result.all_ones, result.curse) == (total, success, ones, curse)


def test_all_ones_fm_test_and_the_point_of_insanity() -> None:
    failed = cast(2, 9, dice=[1, 1, 4], fm=29, fm_roll=80)
    assert failed.fm_test is not None and not failed.fm_test.success and failed.insanity == 1
    passed = cast(2, 9, dice=[1, 1, 4], fm=29, fm_roll=12)
    assert passed.fm_test is not None and passed.fm_test.success and passed.insanity == 0
    unknown = cast(2, 9, dice=[1, 1, 4])  # no FM known: the GM has the test rolled
    assert unknown.fm_test is None and unknown.fm_test_due and unknown.insanity == 0
    clean = cast(2, 3, dice=[1, 2, 1], fm=29, fm_roll=99)  # not all ones: no FM test
    assert clean.fm_test is None and not clean.fm_test_due


def test_fm_maluses_weigh_on_the_test() -> None:
    from bot.rules.checks.common import Modifier

    result = cast(1, 5, dice=[1, 3], fm=40, fm_roll=35, fm_modifiers=(Modifier("malus", -10),))
    assert result.fm_test is not None and result.fm_test.target == 30 and result.insanity == 1


def test_curse_faces_and_ties() -> None:
    assert curse_of([3, 3, 5]) == (Curse.MINOR, 3, 2)
    assert curse_of([2, 2, 7, 7]) == (Curse.MINOR, 7, 2)  # two doubles: the higher face named
    assert curse_of([2, 2, 2, 7, 7]) == (Curse.MAJOR, 2, 3)
    assert curse_of([1, 2, 3]) == (None, None, 1)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({"magic": 0, "difficulty": 5, "dice": [1]}, "magic_range"),
        ({"magic": 2, "difficulty": 0, "dice": [1, 2, 3]}, "difficulty_range"),
        ({"magic": 2, "difficulty": 5, "dice": [3, 3]}, "dice_count"),  # the chaos die forgotten
        ({"magic": 2, "difficulty": 5, "dice": [3, 11, 2]}, "die_range"),
        ({"magic": 2, "difficulty": 5}, "no_dice"),
    ],
)
def test_bad_input(args: dict[str, object], code: str) -> None:
    with pytest.raises(MagicError) as caught:
        cast(**args)  # type: ignore[arg-type]
    assert caught.value.code == code


def test_rolled_with_the_given_random_source() -> None:
    a = cast(3, 12, rng=random.Random(7))
    b = cast(3, 12, rng=random.Random(7))
    assert a == b and len(a.casting) == 3 and len(a.chaos) == 1
    assert all(1 <= d <= 10 for d in (*a.casting, *a.chaos))


# -- the round's time ----------------------------------------------------------------------------


def fighter(attacks: int, **acts: int) -> Combatant:
    return Combatant("x", "Élise", {"A": attacks, "Mag": 2, "FM": 30}, actions=RoundActions(**acts))


@pytest.mark.parametrize(
    ("attacks", "half", "cost"), [(1, 1, 1), (1, 2, 0), (2, 1, 1), (2, 2, 1), (3, 1, 2), (3, 2, 1), (4, 2, 2)]
)
def test_half_round_costs(attacks: int, half: int, cost: int) -> None:
    assert half_cost(attacks, half) == cost


@pytest.mark.parametrize(
    ("attacks", "first_used", "spells", "allowed"),
    [
        (1, 0, [SpellLength.HALF, SpellLength.HALF], [True, True]),  # two ½-round spells per round
        (2, 0, [SpellLength.HALF, SpellLength.HALF], [True, True]),
        (2, 0, [SpellLength.HALF, SpellLength.HALF, SpellLength.HALF], [True, True, False]),
        (2, 0, [SpellLength.FULL], [True]),  # or one full-round spell
        (2, 0, [SpellLength.FULL, SpellLength.HALF], [True, False]),
        (2, 0, [SpellLength.HALF, SpellLength.FULL], [True, False]),
        (2, 1, [SpellLength.FULL], [False]),  # an attack made: no full round left
        (2, 1, [SpellLength.HALF, SpellLength.HALF], [True, False]),  # the attack took half a round
        (1, 1, [SpellLength.HALF], [False]),  # one A attacked: the round is spent
    ],
)
def test_spells_in_a_round(
    attacks: int, first_used: int, spells: list[SpellLength], allowed: list[bool]
) -> None:
    c = fighter(attacks, used=first_used)
    for length, expected in zip(spells, allowed, strict=True):
        assert (can_cast(c, length) is None) is expected
        if expected:
            c = take_cast(c, length)
    assert c.actions.used <= attacks


def test_turn_held_for_the_second_half_with_one_attack() -> None:
    one = take_cast(fighter(1), SpellLength.HALF)
    assert one.actions.used == 1 and one.actions.cast == 1 and not turn_passes(one)
    assert turn_passes(take_cast(one, SpellLength.HALF))
    two = take_cast(fighter(2), SpellLength.HALF)
    assert two.attacks_left() == 1 and turn_passes(two)
    full = take_cast(fighter(2), SpellLength.FULL)
    assert full.attacks_left() == 0 and full.actions.cast == 2 and turn_passes(full)


def test_refusals() -> None:
    with pytest.raises(RefusedError) as caught:
        take_cast(fighter(2), SpellLength.HALF, voice_lost=True)
    assert caught.value.refusal.reason == "magic.refusal.voice"
    stunned = replace(fighter(2), conditions=(Condition("stunned", "x", remaining=1, unit="round"),))
    refusal = can_cast(stunned, SpellLength.HALF)
    assert refusal is not None and refusal.reason == "combat.refusal.no_action"


# -- against mages ---------------------------------------------------------------------------------


def test_voice_criticals_exist_in_the_tables() -> None:
    table = check_owned_table("magic")  # validates, records its readings, has its schema
    doc = table.document
    voice = [VoiceCritical(v["kind"], v["zone"], v["value"]) for v in doc["voice"]]
    for v in voice:
        entries = validate_file(DATA_DIR / f"criticals_{v.kind}.json").document["entries"]
        [entry] = [e for e in entries if e["zone"] == v.zone and e["value"] == v.value]
        narration = entry["narration"]["fr"].lower()
        assert any(w in narration for w in ("mâchoire", "gorge", "trachée", "langue")), narration
    assert hits_voice(voice, "tranchantes", "tete", 11)
    assert not hits_voice(voice, "tranchantes", "bras", 11)
    assert doc["casting"]["chaos_dice"] == 1 and doc["casting"]["chaos_dice_per_critical_taken"] == 1


def test_fm_maluses_mirror_the_ws_maluses() -> None:
    ws = Condition("modifier", "criticals.tranchantes.tete.11", stat="CC", value=-30, until="end_of_combat")
    ag = Condition("modifier", "criticals.x", stat="Ag", value=-10, remaining=2, unit="round")
    [fm] = mirror_on_fm((ws, ag, Condition("no_action", "y", remaining=1, unit="round")))
    assert (fm.stat, fm.value, fm.until) == ("FM", -30, "end_of_combat")
