"""Fortune and destiny points: what the seed allows and refuses."""

from __future__ import annotations

import pytest

from bot.rules.renove.fortune import DestinyAgainst, FortuneUse, PointsError, spend_destiny, spend_fortune


def test_fortune_reroll_and_scenery() -> None:
    spent = spend_fortune(2, FortuneUse.REROLL, previous_roll=62, target=45, roll=30)
    assert spent.left == 1 and spent.reroll is not None and spent.reroll.success
    scenery = spend_fortune(1, FortuneUse.SCENERY)
    assert scenery.left == 0 and scenery.needs_gm


@pytest.mark.parametrize("previous", [99, 100])
def test_critical_failures_cannot_be_avoided(previous: int) -> None:
    with pytest.raises(PointsError) as exc:
        spend_fortune(2, FortuneUse.REROLL, previous_roll=previous, target=45, roll=30)
    assert exc.value.code == "critical_failure"


def test_no_points_left() -> None:
    with pytest.raises(PointsError):
        spend_fortune(0, FortuneUse.SCENERY)
    with pytest.raises(PointsError):
        spend_destiny(0, DestinyAgainst.DEATH)


def test_destiny_only_against_death_or_paralysis_and_the_sequel_stays() -> None:
    assert spend_destiny(1, DestinyAgainst.PARALYSIS).left == 0
    assert spend_destiny(2, DestinyAgainst.DEATH, with_sequel=True).sequel_remains
    with pytest.raises(PointsError) as exc:
        spend_destiny(3, DestinyAgainst.LIMB_LOSS)
    assert exc.value.code == "limb_loss"
