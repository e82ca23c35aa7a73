"""`ogl` tests (seed 004, "Règles OGL : Combat"): d100 ≤ skill, critical at ⌊skill/10⌋.

Seed: "Si le jet est inférieur ou égal au niveau de compétence …, le personnage a frappé sa
cible"; "Le score critique est le score de l'arme divisé par dix et arrondi à l'inférieur".

Readings (the extraction cuts the paragraphs that would settle them, marked "(...)"):
* Fumble ("Tableau d'Échec Absolu"): the seed never states what triggers it. Default: a roll of
  00, as in the OGL RuneQuest rules the text translates; ``OglOptions.fumble_min=99`` gives the
  99-00 variant. A fumble always fails, even for a skill of 100+.
* The critical score uses the skill after modifiers.
* No automatic success/failure bands by default (the seed says only ≤ skill / > skill);
  ``OglOptions`` can enable the 01-05 / 96-00 bands some tables use.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from bot.rules.checks.common import (
    BASE_LABEL,
    CheckResult,
    Modifier,
    System,
    build_target,
    obtain_roll,
)
from bot.rules.random_source import RandomSource

DIE = 100


@dataclass(frozen=True, slots=True)
class OglOptions:
    """Per-server overrides of the readings above."""

    fumble_min: int = 100
    automatic_success_max: int = 0
    automatic_failure_min: int = 101

    def to_dict(self) -> dict[str, Any]:
        return {
            "fumble_min": self.fumble_min,
            "automatic_success_max": self.automatic_success_max,
            "automatic_failure_min": self.automatic_failure_min,
        }


DEFAULT_OPTIONS = OglOptions()


def critical_score(skill: int) -> int:
    return max(0, skill) // 10


def result_from_roll(
    skill: int,
    modifiers: tuple[Modifier, ...],
    roll: int,
    options: OglOptions = DEFAULT_OPTIONS,
    notes: tuple[str, ...] = (),
) -> CheckResult:
    fumble = roll >= options.fumble_min
    if fumble or roll >= options.automatic_failure_min:
        success = False
    else:
        success = roll <= skill or roll <= options.automatic_success_max
    crit_s = success and roll <= critical_score(skill)
    margin = max(0, skill - roll) if success else max(0, roll - skill)
    return CheckResult(
        system=System.OGL,
        roll=roll,
        die=DIE,
        target=skill,
        modifiers=modifiers,
        success=success,
        critical_success=crit_s,
        critical_failure=fumble,
        margin=margin,
        notes=notes,
    )


def check(
    base: int,
    modifiers: Iterable[Modifier] = (),
    *,
    rng: RandomSource | None = None,
    roll: int | None = None,
    base_label: str = BASE_LABEL,
    options: OglOptions = DEFAULT_OPTIONS,
) -> CheckResult:
    """Resolve an `ogl` skill test of ``base`` % plus ``modifiers``."""
    skill, items = build_target(base, modifiers, base_label)
    return result_from_roll(skill, items, obtain_roll(DIE, rng, roll), options)
