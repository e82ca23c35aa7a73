"""`v1` combat (seed 001, lines 49-92): every number below is recomputed from the seed in comments."""

from __future__ import annotations

import pytest

from bot.data_loading import load_all
from bot.rules.combat.basics import Refusal
from bot.rules.combat.common import ordered_slots, start_round_with
from bot.rules.combat.state import Combatant, FightState
from bot.rules.v1.combat import (
    Defence,
    DieMethod,
    Draw,
    OffHand,
    RangeBand,
    Spread,
    Toughness,
    V1Attack,
    V1Defence,
    V1Disarm,
    V1Tables,
    apply_damage,
    attack_slots,
    current_wounds,
    record_wound,
    resolve_attack,
    resolve_defence,
    resolve_disarm,
    resolve_shot,
    resolve_stun,
    reverse_d100,
    roll_damage,
    take_wounds,
)


@pytest.fixture(scope="module")
def v1() -> V1Tables:
    return V1Tables.from_documents({name: t.document for name, t in load_all().items()})


@pytest.mark.parametrize(
    ("roll", "reversed_", "location"),
    [
        (37, 73, "body"),  # the seed's own example, 56-80 body
        (10, 1, "head"),
        (1, 10, "head"),
        (51, 15, "head"),
        (61, 16, "right_arm"),
        (45, 54, "left_arm"),
        (9, 90, "right_leg"),
        (19, 91, "left_leg"),
        (100, 100, "left_leg"),
    ],
)
def test_reversed_location(v1: V1Tables, roll: int, reversed_: int, location: str) -> None:
    assert reverse_d100(roll) == reversed_
    assert v1.location_for(reversed_).id == location


@pytest.mark.parametrize(
    ("initiative", "attacks", "spread", "draw", "slots", "lost"),
    [
        (40, 2, Spread.DIVIDE, Draw.NONE, (40, 20), ()),  # ⌈40/2⌉ = 20 apart
        (35, 3, Spread.DIVIDE, Draw.NONE, (35, 23, 11), ()),  # ⌈35/3⌉ = 12 apart
        (40, 2, Spread.DIVIDE, Draw.SIMPLE, (20,), (0,)),  # sword drawn: −20, the 0 is lost
        (40, 3, Spread.STAGGERED, Draw.KNIFE, (30, 20, 10), ()),  # 40, 30, 20 − 10
        (50, 6, Spread.STAGGERED, Draw.NONE, (50, 50, 40, 40, 30, 20), ()),  # surplus on first slots
        (25, 4, Spread.STAGGERED, Draw.SIMPLE, (5,), (-5, -15, -25)),
    ],
)
def test_attack_slots(
    v1: V1Tables,
    initiative: int,
    attacks: int,
    spread: Spread,
    draw: Draw,
    slots: tuple[int, ...],
    lost: tuple[int, ...],
) -> None:
    result = attack_slots(v1, "x", initiative, attacks, spread=spread, draw=draw)
    assert (result.slots, result.lost) == (slots, lost)


def test_full_round_draw_loses_the_round(v1: V1Tables) -> None:
    result = attack_slots(v1, "archer", 45, 1, draw=Draw.FULL_ROUND)
    assert result.slots == () and result.preparing_rounds == 1
    assert result.to_dict()["preparing_rounds"] == 1


def test_damage_six_adds_a_die_repeatedly(v1: V1Tables) -> None:
    rolled = roll_damage(v1, 3, 1, dice=[6, 6, 2])  # 6 + 6 + 2 + F 3 + bonus 1
    assert rolled.dice == (6, 6, 2) and rolled.total == 18 and not rolled.doubled


@pytest.mark.parametrize(
    ("attack_roll", "die", "doubled", "total"),
    [(34, 4, False, 7), (33, 3, True, 12), (20, 10, False, 13), (100, 10, True, 26)],
)
def test_units_digit_damage(v1: V1Tables, attack_roll: int, die: int, doubled: bool, total: int) -> None:
    rolled = roll_damage(v1, 3, method=DieMethod.UNITS_DIGIT, attack_roll=attack_roll)
    assert (rolled.dice, rolled.doubled, rolled.total) == ((die,), doubled, total)


def test_range_damage_long_and_extreme(v1: V1Tables) -> None:
    assert roll_damage(v1, 3, dice=[4], range_band=RangeBand.LONG).total == 6  # 4 + 3 − 1
    assert roll_damage(v1, 3, dice=[4], range_band=RangeBand.EXTREME).total == 5  # 4 + 3 − 2


@pytest.mark.parametrize(
    ("reading", "damage", "armour", "wounds", "toughness", "after", "severity"),
    [
        # seed: armour only; critical when net > B left + E
        (Toughness.THRESHOLD, 11, 0, 8, 3, -3, None),
        (Toughness.THRESHOLD, 12, 0, 8, 3, -4, 1),
        (Toughness.THRESHOLD, 12, 1, 2, 4, -9, 5),
        (Toughness.THRESHOLD, 40, 0, 2, 4, -38, 15),  # 36 beyond −4, clamped to 15
        (Toughness.THRESHOLD, 3, 0, -5, 4, -8, 3),  # already past −E: the whole hit overflows
        # RULES.md / WJRF p122: armour + E subtracted, critical below 0
        (Toughness.SUBTRACTED, 11, 0, 8, 3, 0, None),
        (Toughness.SUBTRACTED, 12, 1, 2, 4, -5, 5),
    ],
)
def test_wounds_and_critical_severity(
    v1: V1Tables,
    reading: Toughness,
    damage: int,
    armour: int,
    wounds: int,
    toughness: int,
    after: int,
    severity: int | None,
) -> None:
    wound = apply_damage(
        v1,
        damage,
        wounds=wounds,
        toughness=toughness,
        armour=armour,
        reading=reading,
        location=v1.location("body"),
    )
    assert (wound.wounds_after, wound.severity) == (after, severity)
    if severity is not None:
        assert (
            wound.critical is not None and wound.critical.source == f"criticals.tranchantes.corps.{severity}"
        )


@pytest.mark.parametrize(
    ("kind", "table"),
    [
        ("edged", "tranchantes"),
        ("blunt", "contondantes"),
        ("missile", "projectiles"),
        ("bare_hands", "pugilat"),
    ],
)
def test_critical_table_by_weapon_kind(v1: V1Tables, kind: str, table: str) -> None:
    wound = take_wounds(v1, 5, wounds=0, toughness=3, weapon_kind=kind, location=v1.location("head"))
    assert wound.severity == 2 and wound.critical is not None
    assert wound.critical.source == f"criticals.{table}.tete.2"


def test_bare_hands_attack_and_stun(v1: V1Tables) -> None:
    attack = resolve_attack(v1, 40, bare_hands=True, roll=15)  # 40 − 20 without Bagarre = 20
    assert attack.check.target == 20 and attack.hit and attack.stunning
    assert attack.location is not None and attack.location.id == "left_arm"  # 15 → 51
    # Stun: 1d6 (6) + F 3 − 3 bare hands − E 3 − armour 1 × 2 = 1 point → 5 %, +20 % Coup assommant.
    stun = resolve_stun(
        v1,
        3,
        toughness=3,
        armour=1,
        skill=True,
        bare_hands=True,
        die=6,
        chance_roll=20,
        duration_dice=[1] * 7,
    )
    assert (stun.points, stun.chance, stun.stunned, stun.wounds) == (1, 25, True, 1)
    assert stun.duration is not None and stun.duration.expression.startswith("7d10")  # (10 − E)d10
    assert stun.duration.total == 7
    missed = resolve_stun(v1, 3, 2, toughness=4, die=1, chance_roll=6, duration_dice=[2] * 6)
    assert missed.chance == 10 and missed.stunned  # (1 + 3 + 2 − 4) × 5 = 10 %; 6 ≤ 10
    assert missed.duration is not None and missed.duration.total == 12  # (10 − 4)d10


def test_stun_attempt_with_a_weapon_is_at_minus_20(v1: V1Tables) -> None:
    attack = resolve_attack(v1, 45, stun=True, roll=26)
    assert attack.check.target == 25 and not attack.hit


def test_parry_rules(v1: V1Tables) -> None:
    refused = resolve_defence(v1, Defence.PARRY, 40, attack_id="a1", roll=10)
    assert isinstance(refused, Refusal) and refused.reason.endswith("parry_needs_preparation_or_off_hand")
    shield = resolve_defence(
        v1,
        Defence.PARRY,
        40,
        attack_id="a1",
        off_hand=OffHand.SHIELD,
        parry_specialist=True,
        attacker_weapon_parry_modifier=-10,
        roll=50,
    )
    assert isinstance(shield, V1Defence)
    assert shield.check.target == 50 and shield.cancels_damage and shield.free  # 40 − 10 + 20
    again = resolve_defence(
        v1,
        Defence.PARRY,
        40,
        attack_id="a2",
        off_hand=OffHand.SHIELD,
        parry_specialist=True,
        round_state=shield.round,
        roll=50,
    )
    assert isinstance(again, V1Defence) and not again.free and again.costs_next_attack
    prepared = resolve_defence(v1, Defence.PARRY, 40, attack_id="a1", prepared=True, roll=41)
    assert isinstance(prepared, V1Defence) and prepared.costs_next_attack and not prepared.cancels_damage
    missile = resolve_defence(v1, Defence.DODGE, 40, attack_id="s1", melee=False, roll=1)
    assert isinstance(missile, Refusal)


def test_dodge_once_per_round_and_not_with_parry(v1: V1Tables) -> None:
    dodge = resolve_defence(v1, Defence.DODGE, 30, attack_id="a1", roll=12)
    assert isinstance(dodge, V1Defence) and dodge.free and dodge.cancels_damage
    second = resolve_defence(v1, Defence.DODGE, 30, attack_id="a2", round_state=dodge.round, roll=12)
    assert isinstance(second, Refusal) and second.reason.endswith("one_dodge_per_round")
    both = resolve_defence(
        v1, Defence.PARRY, 40, attack_id="a1", prepared=True, round_state=dodge.round, roll=12
    )
    assert isinstance(both, Refusal) and both.reason.endswith("one_defence_per_attack")


def test_aimed_shot(v1: V1Tables) -> None:
    far = resolve_shot(v1, 40, aim_at="head", range_band=RangeBand.LONG, roll=5)
    assert isinstance(far, Refusal)
    shot = resolve_shot(v1, 40, aim_at="head", roll=18)  # 40 − 20 = 20
    assert isinstance(shot, V1Attack) and shot.check.target == 20 and shot.location is not None
    assert shot.location.id == "head" and shot.preparation_rounds == 1
    group = resolve_shot(v1, 40, extra_creatures_in_group=2, roll=47)  # +5 × 2
    assert isinstance(group, V1Attack) and group.check.target == 50 and group.location is not None
    assert group.location.id == "body"  # 47 → 74


def test_disarm(v1: V1Tables) -> None:
    assert isinstance(resolve_disarm(40, 30, has_skill=False), Refusal)
    result = resolve_disarm(40, 30, has_skill=True, attacker_roll=20, defender_roll=55, distance_roll=7)
    assert isinstance(result, V1Disarm) and result.disarmed and result.distance_m == 7


def test_scripted_exchange(v1: V1Tables) -> None:
    """Konrad (I 40, A 2, CC 45, F 3, E 3, B 8, sword drawn) against an orc (I 30, A 1, CC 35, F 3,
    E 4, B 9, axe +1, Esquive 25). Dice typed by hand."""
    konrad = Combatant("konrad", "Konrad", {"I": 40, "A": 2, "CC": 45, "F": 3, "E": 3, "B": 8})
    orc = Combatant("orc", "Orc", {"I": 30, "A": 1, "CC": 35, "F": 3, "E": 4, "B": 9})
    state = FightState(combatants=(konrad, orc))

    # Round 1. Konrad draws his sword: slots ⌈40/2⌉ = 20 apart → 40, 20, then −20 → 20, 0 (lost).
    k1 = attack_slots(v1, "konrad", 40, 2, draw=Draw.SIMPLE)
    o1 = attack_slots(v1, "orc", 30, 1)
    assert (k1.slots, k1.lost, o1.slots) == ((20,), (0,), (30,))
    state = start_round_with(state, ordered_slots((*k1.timings(), *o1.timings())))
    assert [(s.combatant, int(s.value)) for s in state.order] == [("orc", 30), ("konrad", 20)]

    # Orc: CC 35, rolls 27 → hit, margin 8 "de justesse"; 27 reversed = 72 → body.
    blow = resolve_attack(v1, 35, roll=27)
    assert blow.hit and blow.check.margin == 8 and blow.check.band == "checks.band.narrow_success"
    assert blow.reversed_roll == 72 and blow.location is not None and blow.location.id == "body"
    # Konrad dodges (Esquive 30), rolls 50: fails.
    dodge = resolve_defence(v1, Defence.DODGE, 30, attack_id="orc-1", roll=50)
    assert isinstance(dodge, V1Defence) and not dodge.cancels_damage
    # Damage 1d6 (6 → +1d6: 1) + F 3 + axe 1 = 11; no armour. Seed: B 8 − 11 = −3, not beyond −E (−3).
    damage = roll_damage(v1, 3, 1, dice=[6, 1])
    assert damage.total == 11
    wound = apply_damage(
        v1, damage.total, wounds=current_wounds(state.get("konrad")), toughness=3, location=blow.location
    )
    assert (wound.wounds_after, wound.severity) == (-3, None)
    # RULES.md's reading gives 11 − E 3 = 8 → B 0, no critical either.
    alt = apply_damage(v1, 11, wounds=8, toughness=3, reading=Toughness.SUBTRACTED)
    assert (alt.net, alt.wounds_after, alt.severity) == (8, 0, None)
    state = state.put(record_wound(state.get("konrad"), wound))
    assert current_wounds(state.get("konrad")) == -3 and state.get("konrad").stat("B") == -3

    # Konrad: CC 45, rolls 34 → hit; 43 → left arm. The orc cannot parry (neither prepared nor off hand).
    cut = resolve_attack(v1, 45, roll=34)
    assert cut.location is not None and cut.location.id == "left_arm"
    refused = resolve_defence(v1, Defence.PARRY, 35, attack_id="konrad-1", roll=10)
    assert isinstance(refused, Refusal)
    # Units-digit option: 4 + F 3 = 7; orc B 9 → 2.
    damage = roll_damage(v1, 3, method=DieMethod.UNITS_DIGIT, attack_roll=cut.check.roll)
    wound = apply_damage(v1, damage.total, wounds=9, toughness=4, location=cut.location)
    assert (damage.total, wound.wounds_after, wound.severity) == (7, 2, None)
    state = state.put(record_wound(state.get("orc"), wound))

    # Round 2: sword in hand, Konrad acts at 40 and 20, the orc at 30.
    k2 = attack_slots(v1, "konrad", 40, 2)
    state = start_round_with(state, ordered_slots((*k2.timings(), *o1.timings())))
    assert [(s.combatant, int(s.value)) for s in state.order] == [("konrad", 40), ("orc", 30), ("konrad", 20)]
    assert state.round == 2
    # Konrad rolls 33 (a double) → hit; 33 reversed = 33 → right arm. The orc's dodge (25) rolls 60.
    cut = resolve_attack(v1, 45, roll=33)
    assert cut.location is not None and cut.location.id == "right_arm"
    dodge = resolve_defence(v1, Defence.DODGE, 25, attack_id="konrad-2", roll=60)
    assert isinstance(dodge, V1Defence) and not dodge.cancels_damage
    # Units digit 3 + F 3 = 6, doubled → 12. B 2 − 12 = −10; floor −E = −4; overflow 6 → critical 6.
    damage = roll_damage(v1, 3, method=DieMethod.UNITS_DIGIT, attack_roll=33)
    assert damage.doubled and damage.total == 12
    wound = apply_damage(v1, 12, wounds=current_wounds(state.get("orc")), toughness=4, location=cut.location)
    assert (wound.wounds_after, wound.overflow, wound.severity) == (-10, 6, 6)
    assert wound.critical is not None and wound.critical.source == "criticals.tranchantes.bras.6"
    assert wound.to_dict()["critical"]["narration"]["fr"]
    state = state.put(record_wound(state.get("orc"), wound))
    assert state.get("orc").stat("B") == -10
    # The whole state round-trips.
    assert FightState.from_dict(state.to_dict()) == state
