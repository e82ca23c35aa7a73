"""`d20` special fire, table-driven with the seed's numbers (seed 003): burst fire (lines 121-125),
covering fire (126-127), MR bands (146-148), artillery scatter (196-225), fighter gunnery modifiers
and hit table (226-262)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.data_loading import DATA_DIR
from bot.rules.d20 import checks as d20_checks
from bot.rules.d20.combat import (
    RANGED_MODIFIERS,
    air_hit,
    air_hit_faces,
    air_modifiers,
    artillery_scatter,
    band_die,
    burst_hits,
    burst_modifier,
    covering_fire,
)

AIR = json.loads((DATA_DIR / "d20_air_combat.json").read_text(encoding="utf-8"))


def _doc(name: str) -> dict[str, Any]:
    return dict(json.loads(Path(DATA_DIR / f"{name}.json").read_text(encoding="utf-8")))


@pytest.mark.parametrize(
    ("targets", "bullets", "modifier"),
    [
        (8, 0, -8),  # the seed's example: 8 targets, one test at −8
        (2, 0, -2),
        (1, 9, 0),  # fewer than ten bullets: no bonus
        (1, 10, 2),
        (1, 25, 4),  # only full tens count
        (1, 30, 6),
    ],
)
def test_burst_modifier(targets: int, bullets: int, modifier: int) -> None:
    assert burst_modifier(targets=targets, bullets=bullets).value == modifier


@pytest.mark.parametrize(("d4", "hits"), [(1, 0), (2, 0), (3, 1), (4, 2)])
def test_burst_on_several_targets_is_1d4_minus_2_never_below_0(d4: int, hits: int) -> None:
    burst = burst_hits(d20_checks.check(15, roll=1), targets=2, dice=[d4, d4])
    assert burst.bullets_hitting == (hits, hits) and burst.test_modifier == -2


@pytest.mark.parametrize(("bullets", "dice", "hits"), [(10, [6], 6), (20, [1, 6], 7), (39, [2, 3, 4], 9)])
def test_burst_on_one_target_is_1d6_per_ten(bullets: int, dice: list[int], hits: int) -> None:
    burst = burst_hits(d20_checks.check(15, roll=1), bullets=bullets, dice=dice)
    assert burst.bullets_hitting == (hits,) and len(burst.hits) == bullets // 10


@pytest.mark.parametrize(("roll", "hit"), [(1, True), (15, True), (16, False), (100, False)])
def test_covering_fire_score_15_is_15_percent(roll: int, hit: bool) -> None:
    assert covering_fire(15, roll=roll) == (roll, hit)


@pytest.mark.parametrize(("mr", "die"), [(0, 20), (4, 20), (5, 6), (9, 6), (10, None), (19, None)])
def test_mr_bands(mr: int, die: int | None) -> None:
    assert band_die(mr) == die


DIRECTIONS = [(1, "front"), (5, "front"), (6, "left"), (10, "left"), (11, "right"), (15, "right")]
DIRECTIONS += [(16, "behind"), (20, "behind")]


@pytest.mark.parametrize(("roll", "direction"), DIRECTIONS)
def test_artillery_direction(roll: int, direction: str) -> None:
    scatter = artillery_scatter(d20_checks.check(14, roll=8), direction_roll=roll, distance_roll=1)
    assert scatter is not None and scatter.direction == direction


PRINTED_METRES = [2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 27, 28, 30, 35, 40, 45, 50]  # lines 206-225


@pytest.mark.parametrize(("face", "metres"), list(enumerate(PRINTED_METRES, start=1)))
def test_artillery_distance_table_at_mr_0_to_4(face: int, metres: int) -> None:
    table = [int(e["metres"]) for e in _doc("d20_artillery_scatter")["entries"]]
    scatter = artillery_scatter(
        d20_checks.check(14, roll=14), distances=table, direction_roll=1, distance_roll=face
    )  # MR 0: a d20 (reading)
    assert scatter is not None and (scatter.distance_die, scatter.metres) == (20, metres)


def test_artillery_bands_and_the_printed_d6() -> None:
    assert artillery_scatter(d20_checks.check(14, roll=15)) is None  # failed: the GM decides
    on = artillery_scatter(d20_checks.check(14, roll=4))  # MR 10
    assert on is not None and on.on_target and on.direction is None
    near = artillery_scatter(d20_checks.check(14, roll=9), direction_roll=3, distance_roll=6)  # MR 5
    assert near is not None and (near.distance_die, near.metres) == (6, 12)
    with pytest.raises(ValueError):  # a d6 cannot show 7
        artillery_scatter(d20_checks.check(14, roll=9), direction_roll=3, distance_roll=7)
    printed = artillery_scatter(
        d20_checks.check(14, roll=12), distance_as_printed=True, direction_roll=3, distance_roll=6
    )
    assert printed is not None and (printed.distance_die, printed.metres) == (6, 12)


SEED_HITS = {1, 2, 3, 4, 7, 8, 9, 13, 14, 19}  # lines 243-262: "Touché !"


@pytest.mark.parametrize("face", range(1, 21))
def test_air_hit_table_with_a_d20_at_mr_0_to_4(face: int) -> None:
    assert air_hit(d20_checks.check(14, roll=12), roll=face) == (face, face in SEED_HITS)
    assert {e["face"] for e in AIR["entries"] if e["hit"]} == SEED_HITS


@pytest.mark.parametrize("face", range(1, 7))
def test_air_hit_table_with_a_d6_at_mr_5_to_9(face: int) -> None:
    assert air_hit(d20_checks.check(14, roll=7), roll=face) == (face, face in SEED_HITS)


def test_air_hit_faces_come_from_the_table_given() -> None:
    assert air_hit_faces(AIR["entries"]) == SEED_HITS
    # a house rule where 5 hits and 1 misses: the faces passed in decide, not the constant
    house = air_hit_faces(
        [*({**e, "hit": e["face"] == 5 or (e["hit"] and e["face"] != 1)} for e in AIR["entries"])]
    )
    assert house == (SEED_HITS - {1}) | {5}
    assert air_hit(d20_checks.check(14, roll=7), hits=house, roll=5) == (5, True)  # MR 7: a d6
    assert air_hit(d20_checks.check(14, roll=12), hits=house, roll=1) == (1, False)  # MR 2: a d20
    assert air_hit(d20_checks.check(14, roll=4), hits=frozenset()) == (None, True)  # MR 10: no table


def test_air_hit_exact_and_failed() -> None:
    assert air_hit(d20_checks.check(14, roll=4)) == (None, True)  # MR 10
    assert air_hit(d20_checks.check(14, roll=15)) == (None, False)


@pytest.mark.parametrize(
    ("given", "values"),
    [
        ([("speed_atmosphere", 2000)], [-4]),  # the seed's example: 2000 km/h → −4
        ([("speed_space", 3000)], [-3]),  # the seed's example: 3000 → −3
        ([("speed_atmosphere", 1999)], [-3]),  # only full steps
        ([("small_target", None), ("opaque_cloud", None)], [-5, -5]),
        ([("human_size", None), ("under_fluid_deep", None), ("shooter_evading", None)], [-10, -10, -5]),
        ([("pursued_pilot", 3)], [-3]),  # the pursued pilot's MR is a malus
    ],
)
def test_air_modifiers(given: list[tuple[str, int | None]], values: list[int]) -> None:
    assert [m.value for m in air_modifiers(given, AIR["modifiers"])] == values


@pytest.mark.parametrize(
    "given",
    [
        [("small_target", None), ("human_size", None)],  # one size
        [("under_fluid_shallow", None), ("under_fluid_deep", None)],  # one depth
        [("speed_atmosphere", None)],  # a speed needs a value
        [("warp", None)],
    ],
)
def test_air_modifiers_refused(given: list[tuple[str, int | None]]) -> None:
    with pytest.raises(ValueError):
        air_modifiers(given, AIR["modifiers"])


def test_ranged_modifiers_are_the_data_table() -> None:
    entries = _doc("d20_ranged")["entries"]
    assert {e["id"]: (e["modifier"], e["group"]) for e in entries} == dict(RANGED_MODIFIERS)
