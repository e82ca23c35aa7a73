"""The one banded-table lookup every system uses (parry side effects, mort subite, criticals,
hit locations): the covering band, open ends, and the nearest band past the table's ends."""

from __future__ import annotations

import pytest

from bot.rules.bands import band_for

BANDS = [("low", None, 7), ("mid", 8, 12), ("high", 13, 15)]


def _bounds(band: tuple[str, int | None, int]) -> tuple[int | None, int | None]:
    return band[1], band[2]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (-40, "low"),
        (7, "low"),
        (8, "mid"),
        (12, "mid"),
        (13, "high"),
        (15, "high"),
        (16, "high"),
        (99, "high"),
    ],
)
def test_the_covering_band_or_the_nearest_past_the_ends(value: int, expected: str) -> None:
    assert band_for(BANDS, value, _bounds)[0] == expected


def test_a_value_between_two_bands_reads_the_nearer_one() -> None:
    gapped = [("a", 1, 10), ("b", 20, 30)]
    assert band_for(gapped, 12, _bounds)[0] == "a"
    assert band_for(gapped, 19, _bounds)[0] == "b"
