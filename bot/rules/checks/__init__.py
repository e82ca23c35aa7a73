"""Skill and characteristic tests for the four rulesets (pure: stdlib only, random source passed in).

System-specific entry points live in :mod:`.renove`, :mod:`.v1`, :mod:`.d20` and :mod:`.ogl`;
:func:`check` dispatches a plain "base + modifiers" test by ruleset key.
"""

from __future__ import annotations

from collections.abc import Iterable

from bot.rules.checks import d20, ogl, renove, v1
from bot.rules.checks.common import (
    BASE_LABEL,
    CheckResult,
    DiceError,
    Modifier,
    Outcome,
    System,
    build_target,
    obtain_roll,
)
from bot.rules.random_source import RandomSource

__all__ = [
    "BASE_LABEL",
    "CheckResult",
    "DiceError",
    "Modifier",
    "Outcome",
    "System",
    "build_target",
    "check",
    "d20",
    "die_for",
    "obtain_roll",
    "ogl",
    "renove",
    "result_from_roll",
    "v1",
]

_DICE = {System.RENOVE: renove.DIE, System.V1: v1.DIE, System.D20: d20.DIE, System.OGL: ogl.DIE}


def die_for(system: System | str) -> int:
    return _DICE[System(system)]


def result_from_roll(
    system: System | str, target: int, modifiers: tuple[Modifier, ...], roll: int
) -> CheckResult:
    """Resolve an already-totalled target against a validated roll, with the ruleset's defaults."""
    match System(system):
        case System.RENOVE:
            return renove.result_from_roll(target, modifiers, roll)
        case System.V1:
            return v1.result_from_roll(target, modifiers, roll)
        case System.D20:
            return d20.result_from_roll(target, modifiers, roll)
        case System.OGL:
            return ogl.result_from_roll(target, modifiers, roll)


def check(
    system: System | str,
    base: int,
    modifiers: Iterable[Modifier] = (),
    *,
    rng: RandomSource | None = None,
    roll: int | None = None,
    base_label: str = BASE_LABEL,
) -> CheckResult:
    """Resolve ``base`` + ``modifiers`` in ``system`` (d100 or d20 as the ruleset says)."""
    target, items = build_target(base, modifiers, base_label)
    return result_from_roll(system, target, items, obtain_roll(die_for(system), rng, roll))
