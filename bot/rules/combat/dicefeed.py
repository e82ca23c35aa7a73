"""Dice intake for the combat core: values typed by hand first, then the random source.

Every roll of the core can be given by hand (a GM with physical dice, a test replaying the seed).
:class:`HandThenRandom` is a :class:`~bot.rules.random_source.RandomSource` that hands out the
typed values in order and falls back to ``rng`` once they are used up (or raises if there is none).
"""

from __future__ import annotations

from collections.abc import Iterable

from bot.rules.checks.common import DiceError, obtain_roll
from bot.rules.dice.engine import RollResult, roll
from bot.rules.random_source import RandomSource

__all__ = ["DiceError", "HandThenRandom", "d", "roll_expression"]


class HandThenRandom:
    """``randint(a, b)``: the next hand-entered value (checked against ``a..b``), else ``rng``."""

    __slots__ = ("_index", "_rng", "_values")

    def __init__(self, values: Iterable[int] = (), rng: RandomSource | None = None) -> None:
        self._values = tuple(values)
        self._index = 0
        self._rng = rng

    def randint(self, a: int, b: int) -> int:
        if self._index < len(self._values):
            value = self._values[self._index]
            if b == 100 and a == 1 and value == 0:
                value = 100  # "00"
            if not a <= value <= b:
                raise DiceError(f"hand-entered value {value} is not within {a}..{b}")
            self._index += 1
            return value
        if self._rng is None:
            raise DiceError("not enough dice entered by hand and no random source")
        return self._rng.randint(a, b)

    @property
    def used(self) -> int:
        return self._index

    def leftover(self) -> tuple[int, ...]:
        return self._values[self._index :]


def d(sides: int, rng: RandomSource | None, value: int | None = None) -> int:
    """One die: the hand-entered ``value`` (validated; 0 on a d100 means 00 = 100) or ``rng``."""
    return obtain_roll(sides, rng, value)


def roll_expression(expr: str, rng: RandomSource) -> RollResult:
    """Roll a dice expression of the bot's engine (``1d10/2``, ``2d10kh1`` …)."""
    return roll(expr, rng)
