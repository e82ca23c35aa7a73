"""Dispatch a plain "base + modifiers" test to its ruleset (``check``), with the die each one rolls."""

from __future__ import annotations

from collections.abc import Iterable

from bot.rules.checks.common import BASE_LABEL, CheckResult, Modifier, System, build_target, obtain_roll
from bot.rules.d20 import checks as d20
from bot.rules.ogl import checks as ogl
from bot.rules.random_source import RandomSource
from bot.rules.renove import checks as renove
from bot.rules.v1 import checks as v1

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
