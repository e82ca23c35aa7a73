"""Dice entered by hand: physical dice rolled at the table, or a book example replayed."""

from __future__ import annotations

from collections.abc import Iterable

from .errors import DiceError

__all__ = ["ManualDice"]


class ManualDice:
    """A :class:`~bot.rules.random_source.RandomSource` that hands out given values in order.

    ``ManualDice([12, 5, 18])``: each ``randint(a, b)`` returns the next value. A value outside
    ``a..b`` raises ``dice.manual.out_of_range``; asking past the last value raises
    ``dice.manual.exhausted``. After the roll, :meth:`leftover` (or :attr:`remaining`) tells whether
    the player typed more dice than the expression used. A d100 shown as "00" is 100: the command
    layer maps 0/"00" to 100 before building this object.
    """

    __slots__ = ("_index", "_values")

    def __init__(self, values: Iterable[int]):
        self._values = tuple(values)
        self._index = 0

    def randint(self, a: int, b: int) -> int:
        index = self._index
        if index >= len(self._values):
            raise DiceError("dice.manual.exhausted", {"count": len(self._values), "needed": index + 1})
        value = self._values[index]
        if not a <= value <= b:
            raise DiceError(
                "dice.manual.out_of_range", {"value": value, "sides": b, "minimum": a, "index": index + 1}
            )
        self._index = index + 1
        return value

    @property
    def used(self) -> int:
        return self._index

    @property
    def remaining(self) -> int:
        return len(self._values) - self._index

    def leftover(self) -> tuple[int, ...]:
        """Values not consumed (empty when every entered die was used)."""
        return self._values[self._index :]

    def check_all_used(self) -> None:
        """Raise ``dice.manual.leftover`` if the player entered more dice than were rolled."""
        if self._index < len(self._values):
            left = self._values[self._index :]
            raise DiceError(
                "dice.manual.leftover",
                {"count": len(left), "values": ", ".join(map(str, left)), "used": self._index},
            )
