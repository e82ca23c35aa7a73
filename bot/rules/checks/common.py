"""Types shared by the four skill-test resolvers: modifiers, the check result, dice intake.

Every resolver takes either a random source or dice entered by hand, and returns a frozen
:class:`CheckResult` that carries everything a renderer needs (roll, itemised target, flags,
degrees/margins and catalogue keys). Message keys live in ``bot/i18n/locales/*/checks.json``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from bot.rules.random_source import RandomSource

BASE_LABEL = "checks.modifier.base"


class System(StrEnum):
    """Ruleset keys, as named in RULES.md."""

    RENOVE = "renove"
    V1 = "v1"
    D20 = "d20"
    OGL = "ogl"


class Outcome(StrEnum):
    CRITICAL_SUCCESS = "critical_success"
    SUCCESS = "success"
    FAILURE = "failure"
    CRITICAL_FAILURE = "critical_failure"


@dataclass(frozen=True, slots=True)
class Modifier:
    """One itemised term of a target: ``label`` is a catalogue key (``checks.…``) or free text."""

    label: str
    value: int

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "value": self.value}


def build_target(
    base: int, modifiers: Iterable[Modifier], base_label: str = BASE_LABEL
) -> tuple[int, tuple[Modifier, ...]]:
    """Return the target and the itemised list, base first."""
    items = (Modifier(base_label, base), *modifiers)
    return sum(m.value for m in items), items


class DiceError(ValueError):
    """A die value was missing or out of range."""


def obtain_roll(die: int, rng: RandomSource | None, roll: int | None) -> int:
    """Return the hand-entered ``roll`` (validated) or draw one from ``rng``.

    For a d100, both 0 and 100 mean "00" (normalised to 100), since players type "00".
    """
    if roll is not None:
        if die == 100 and roll == 0:
            return 100
        if not 1 <= roll <= die:
            raise DiceError(f"roll {roll} is not a d{die} value")
        return roll
    if rng is None:
        raise DiceError("either a random source or a roll is required")
    return rng.randint(1, die)


@dataclass(frozen=True, slots=True)
class CheckResult:
    """A resolved skill/characteristic test in any of the four systems.

    ``margin`` is the non-negative distance to the target on the side of the outcome (success
    margin / MR on a success, failure margin on a failure); forced results (e.g. a renove 01 under
    a negative target) clamp it to 0. ``degrees`` is renove's °R (success) or °E (failure).
    """

    system: System
    roll: int
    die: int
    target: int
    modifiers: tuple[Modifier, ...]
    success: bool
    critical_success: bool = False
    critical_failure: bool = False
    margin: int = 0
    degrees: int | None = None
    band: str | None = None
    lenient: str | None = None
    impossible: bool = False
    notes: tuple[str, ...] = field(default=())

    @property
    def outcome(self) -> Outcome:
        if self.success:
            return Outcome.CRITICAL_SUCCESS if self.critical_success else Outcome.SUCCESS
        return Outcome.CRITICAL_FAILURE if self.critical_failure else Outcome.FAILURE

    @property
    def critical(self) -> bool:
        return self.critical_success or self.critical_failure

    @property
    def outcome_key(self) -> str:
        if self.impossible:
            return "checks.outcome.impossible"
        if self.system is System.OGL and self.critical_failure:
            return "checks.outcome.fumble"
        return f"checks.outcome.{self.outcome.value}"

    @property
    def roll_text(self) -> str:
        """The roll as players read it: d100 shows two digits and 100 as "00"."""
        if self.die == 100:
            return "00" if self.roll == 100 else f"{self.roll:02d}"
        return str(self.roll)

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.system.value,
            "roll": self.roll,
            "roll_text": self.roll_text,
            "die": self.die,
            "target": self.target,
            "modifiers": [m.to_dict() for m in self.modifiers],
            "success": self.success,
            "critical_success": self.critical_success,
            "critical_failure": self.critical_failure,
            "outcome": self.outcome.value,
            "outcome_key": self.outcome_key,
            "margin": self.margin,
            "degrees": self.degrees,
            "band": self.band,
            "lenient": self.lenient,
            "impossible": self.impossible,
            "notes": list(self.notes),
        }
