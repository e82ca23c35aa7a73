"""What every system's combat core shares at the bottom: a refusal and a labelled modifier."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.rules.checks.common import Modifier

PREFIX = "combat.modifier."


def mod(key: str, value: int) -> Modifier:
    return Modifier(PREFIX + key, value)


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why an action or a defence is not allowed; ``reason`` is a catalogue key."""

    reason: str
    params: tuple[tuple[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"reason": self.reason, "params": dict(self.params)}


class RefusedError(ValueError):
    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.reason)
        self.refusal = refusal
