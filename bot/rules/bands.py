"""Looking a value up in a banded table (« 1-7 : … », « 8-12 : … »)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

Band = TypeVar("Band")


def band_for(
    bands: Sequence[Band], value: int, bounds: Callable[[Band], tuple[int | None, int | None]]
) -> Band:
    """The band whose ``bounds`` (``None`` for an open end) cover ``value``. Banded tables are checked
    for full coverage at load and upload (``x-bands``), so the fallback only serves a value past the
    table's ends (a modified d100 of 105): it reads the nearest band instead of failing a fight."""

    def covers(band: Band) -> bool:
        low, high = bounds(band)
        return (low is None or low <= value) and (high is None or value <= high)

    def distance(band: Band) -> int:
        return min(abs(value - edge) for edge in bounds(band) if edge is not None)

    return next((b for b in bands if covers(b)), None) or min(bands, key=distance)
