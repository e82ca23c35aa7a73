"""Fortune and destiny points (seed 000, "Points de fortune", "Points de destin", "Gestion des
tests"; data/fortune_destiny.json).

* Fortune: the usual uses (reading: the base WFRP 2e uses stay — a reroll of a test) plus the
  seed's new one, a small helpful piece of scenery the GM alone may allow. A critical failure's
  effects (99-00) cannot be avoided with a fortune point: its reroll is refused.
* Destiny: only against DEATH or PARALYSIS, never against losing a limb; against a deadly
  critical that also maims, the death is avoided and the lasting injury stays.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from bot.rules.checks.common import CheckResult, Modifier
from bot.rules.random_source import RandomSource
from bot.rules.renove import checks as renove


class FortuneUse(StrEnum):
    REROLL = "reroll"
    SCENERY = "scenery"


class DestinyAgainst(StrEnum):
    DEATH = "death"
    PARALYSIS = "paralysis"
    LIMB_LOSS = "limb_loss"


class PointsError(ValueError):
    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True, slots=True)
class FortuneSpent:
    use: FortuneUse
    left: int
    reroll: CheckResult | None = None
    needs_gm: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "use": self.use.value,
            "left": self.left,
            "reroll": self.reroll.to_dict() if self.reroll else None,
            "needs_gm": self.needs_gm,
        }


def spend_fortune(
    points: int,
    use: FortuneUse,
    *,
    previous_roll: int | None = None,
    target: int | None = None,
    modifiers: tuple[Modifier, ...] = (),
    rng: RandomSource | None = None,
    roll: int | None = None,
) -> FortuneSpent:
    if points <= 0:
        raise PointsError("no_fortune")
    if use is FortuneUse.REROLL:
        if previous_roll is not None and previous_roll in (99, 100, 0):
            raise PointsError("critical_failure")
        if target is None:
            raise PointsError("reroll_target")
        result = renove.check(target, modifiers, rng=rng, roll=roll, base_label="flows.fortune.reroll_label")
        return FortuneSpent(use, points - 1, result)
    return FortuneSpent(use, points - 1, needs_gm=True)


@dataclass(frozen=True, slots=True)
class DestinySpent:
    against: DestinyAgainst
    left: int
    sequel_remains: bool

    @property
    def is_death(self) -> bool:
        return self.against is DestinyAgainst.DEATH

    def to_dict(self) -> dict[str, Any]:
        return {"against": self.against.value, "left": self.left, "sequel_remains": self.sequel_remains}


def spend_destiny(points: int, against: DestinyAgainst, *, with_sequel: bool = False) -> DestinySpent:
    if against is DestinyAgainst.LIMB_LOSS:
        raise PointsError("limb_loss")
    if points <= 0:
        raise PointsError("no_destiny")
    return DestinySpent(against, points - 1, with_sequel)
