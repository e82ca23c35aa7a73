"""The random source every roll takes as a parameter (never a module-level RNG)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class RandomSource(Protocol):
    """Anything with ``randint(a, b)`` inclusive: ``random.Random``, ``ManualDice``, a test double."""

    def randint(self, a: int, b: int) -> int: ...
