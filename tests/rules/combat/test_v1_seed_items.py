"""`v1` (seed 001) rules of issue #20 with the seed's numbers and dice entered by hand: the
preparation rounds of aimed and extreme-range shots, the extreme-range row of the data file, and the
shot's modifiers once it goes off."""

from __future__ import annotations

import pytest

from bot.data_loading import load_all
from bot.rules.combat.basics import Refusal
from bot.rules.v1.combat import RangeBand, V1Attack, V1Tables, resolve_shot, shot_preparation


@pytest.fixture(scope="module")
def tables() -> V1Tables:
    return V1Tables.from_documents({name: t.document for name, t in load_all().items()})


# band, aimed → preparation rounds
PREPARATION = [
    (RangeBand.SHORT, False, 0),
    (RangeBand.SHORT, True, 1),  # l. 87: « demande 1 Rd de préparation »
    (RangeBand.LONG, False, 0),
    (RangeBand.EXTREME, False, 1),  # l. 93: « demande 1 Rd de préparation supplémentaire »
]


@pytest.mark.parametrize(("band", "aimed", "rounds"), PREPARATION)
def test_preparation_rounds(tables: V1Tables, band: RangeBand, aimed: bool, rounds: int) -> None:
    """Seed line 87: « Viser une localisation particulière demande 1 Rd de préparation et ne peut
    s'effectuer qu'à portée courte (PC) ». Line 93: « portée extrême (PE) inflige -2 pts D (et demande
    1 Rd de préparation supplémentaire) »."""
    assert shot_preparation(tables, band, aimed=aimed) == rounds


def test_the_extreme_range_row_is_in_the_data(tables: V1Tables) -> None:
    """Seed lines 92-93: « portée longue (PL) inflige -1 pts D » and « portée extrême (PE) inflige -2
    pts D » — both rows come from ``data/v1_combat.json``, nothing filled in by the code."""
    assert tables.range_damage == {"long": -1, "extreme": -2}
    assert tables.range_preparation == {"extreme": 1} and tables.aim_preparation == 1


# CT, roll, band, aimed at → target, hit, preparation recorded
SHOTS = [
    (40, 20, RangeBand.SHORT, "head", 40 - 20, True, 1),  # head −20 %
    (40, 25, RangeBand.SHORT, "left_leg", 40 - 10, True, 1),  # legs −10 %
    (40, 35, RangeBand.EXTREME, None, 40, True, 1),
    (40, 45, RangeBand.EXTREME, None, 40, False, 1),
]


@pytest.mark.parametrize(("ct", "roll", "band", "aim", "target", "hit", "rounds"), SHOTS)
def test_shots(
    tables: V1Tables,
    ct: int,
    roll: int,
    band: RangeBand,
    aim: str | None,
    target: int,
    hit: bool,
    rounds: int,
) -> None:
    """Seed lines 88-89: « Tête / Bras = -20% - Tronc / Jambes = -10% »."""
    shot = resolve_shot(tables, ct, range_band=band, aim_at=aim, roll=roll)
    assert isinstance(shot, V1Attack)
    assert (shot.check.target, shot.hit, shot.preparation_rounds) == (target, hit, rounds)


def test_no_aimed_shot_beyond_short_range(tables: V1Tables) -> None:
    """Seed line 87: « ne peut s'effectuer qu'à portée courte (PC) »."""
    assert isinstance(resolve_shot(tables, 40, range_band=RangeBand.EXTREME, aim_at="head", roll=5), Refusal)
