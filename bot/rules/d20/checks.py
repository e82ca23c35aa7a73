"""`d20` tests (seed 003, "Procédures générales"): d20 ≤ score, MR = score − roll.

Seed: "Un résultat de 1 … est toujours une réussite critique … un 20 est toujours un échec
critique"; "Si la MR est supérieure à 20 …, la réussite est aussi critique"; difficulty ladder
(évidente +5 … absurde −25, rigoureusement impossible: cannot succeed); simultaneous actions
−5/−8/−10; wound malus "1 par PV et PC perdus après le franchissement du seuil constitué par le
score de Constitution"; Instinct skills may use Inné at −5 without Acquis, Savoir skills cannot;
chance test: player d20 vs GM d20, lucky if strictly lower (the GM may give himself a malus).

Readings:
* A skill's score is Inné + Acquis when Acquis ≥ 1 (the seed: a character "possède" a skill
  with at least 1 in Acquis); without it an Instinct uses Inné − 5, a Savoir is refused.
* "Rigoureusement impossible" fails whatever the die says (a 1 is then not a success either);
  a 20 is still a critical failure.
* A forced success (1 over a score ≤ 0) or forced failure (20 under a score ≥ 20) has margin 0.
* Wound malus: the PV and PC lost are added and the first ``Constitution`` points are free
  (``combined=True``); ``combined=False`` applies the threshold to PV and PC separately.
* More than four simultaneous actions: the seed stops at four, so they are refused.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
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

DIE = 20
CRITICAL_MARGIN = 20
INNATE_LABEL = "checks.modifier.innate"
ACQUIRED_LABEL = "checks.modifier.acquired"
UNTRAINED_INSTINCT_MALUS = -5


class Difficulty(StrEnum):
    """The GM's difficulty ladder; catalogue key ``checks.d20.difficulty.<value>``."""

    OBVIOUS = "obvious"  # évidente
    FAIRLY_HARD = "fairly_hard"  # assez difficile
    HARD = "hard"  # difficile
    VERY_HARD = "very_hard"  # très difficile
    NEARLY_IMPOSSIBLE = "nearly_impossible"  # pratiquement impossible
    ABSURD = "absurd"  # absurde
    STRICTLY_IMPOSSIBLE = "strictly_impossible"  # rigoureusement impossible

    @property
    def key(self) -> str:
        return f"checks.d20.difficulty.{self.value}"

    @property
    def modifier(self) -> int | None:
        """The score modifier, or None when the action cannot succeed."""
        return _DIFFICULTY_VALUES[self]


_DIFFICULTY_VALUES: dict[Difficulty, int | None] = {
    Difficulty.OBVIOUS: 5,
    Difficulty.FAIRLY_HARD: -5,
    Difficulty.HARD: -10,
    Difficulty.VERY_HARD: -15,
    Difficulty.NEARLY_IMPOSSIBLE: -20,
    Difficulty.ABSURD: -25,
    Difficulty.STRICTLY_IMPOSSIBLE: None,
}

SIMULTANEOUS_ACTION_MALUS: dict[int, int] = {1: 0, 2: -5, 3: -8, 4: -10}


def simultaneous_malus(actions: int) -> int:
    """Malus applied to each of ``actions`` simultaneous actions (1 to 4)."""
    try:
        return SIMULTANEOUS_ACTION_MALUS[actions]
    except KeyError:
        raise ValueError(f"the seed covers 1 to 4 simultaneous actions, not {actions}") from None


def wound_malus(pv_lost: int, pc_lost: int, constitution: int, *, combined: bool = True) -> int:
    """Malus (≤ 0) for PV/PC lost beyond the Constitution threshold."""
    if combined:
        return -max(0, pv_lost + pc_lost - constitution)
    return -(max(0, pv_lost - constitution) + max(0, pc_lost - constitution))


class SkillKind(StrEnum):
    INSTINCT = "instinct"
    KNOWLEDGE = "knowledge"  # Savoir


class SkillNotUsable(ValueError):
    """A Savoir skill without any Acquis cannot be tested (seed: "en aucun cas")."""


def skill_parts(innate: int, acquired: int, kind: SkillKind) -> tuple[Modifier, ...]:
    """Itemised score of a skill: Inné + Acquis, or Inné − 5 for an untrained Instinct."""
    if acquired >= 1:
        return Modifier(INNATE_LABEL, innate), Modifier(ACQUIRED_LABEL, acquired)
    if kind is SkillKind.INSTINCT:
        return Modifier(INNATE_LABEL, innate), Modifier(
            "checks.modifier.untrained_instinct", UNTRAINED_INSTINCT_MALUS
        )
    raise SkillNotUsable("a Savoir skill needs at least 1 in Acquis")


def situational_modifiers(
    *,
    difficulty: Difficulty | None = None,
    simultaneous_actions: int = 1,
    wound: int = 0,
) -> tuple[Modifier, ...]:
    items: list[Modifier] = []
    if difficulty is not None and difficulty.modifier is not None:
        items.append(Modifier(difficulty.key, difficulty.modifier))
    if simultaneous_actions != 1:
        malus = simultaneous_malus(simultaneous_actions)
        items.append(Modifier("checks.modifier.simultaneous_actions", malus))
    if wound:
        items.append(Modifier("checks.modifier.wounds", wound))
    return tuple(items)


def result_from_roll(
    score: int,
    modifiers: tuple[Modifier, ...],
    roll: int,
    *,
    impossible: bool = False,
    notes: tuple[str, ...] = (),
) -> CheckResult:
    crit_f = roll == DIE
    success = not impossible and (roll == 1 or (not crit_f and roll <= score))
    margin = max(0, score - roll) if success else max(0, roll - score)
    crit_s = success and (roll == 1 or margin > CRITICAL_MARGIN)
    return CheckResult(
        system=System.D20,
        roll=roll,
        die=DIE,
        target=score,
        modifiers=modifiers,
        success=success,
        critical_success=crit_s,
        critical_failure=crit_f,
        margin=margin,
        impossible=impossible,
        notes=notes,
    )


def check(
    base: int,
    modifiers: Iterable[Modifier] = (),
    *,
    difficulty: Difficulty | None = None,
    simultaneous_actions: int = 1,
    wound: int = 0,
    rng: RandomSource | None = None,
    roll: int | None = None,
    base_label: str = BASE_LABEL,
) -> CheckResult:
    """Resolve a `d20` test; ``wound`` is the (≤ 0) value from :func:`wound_malus`."""
    extra = situational_modifiers(
        difficulty=difficulty, simultaneous_actions=simultaneous_actions, wound=wound
    )
    score, items = build_target(base, (*modifiers, *extra), base_label)
    impossible = difficulty is Difficulty.STRICTLY_IMPOSSIBLE
    notes = (difficulty.key,) if impossible and difficulty is not None else ()
    return result_from_roll(score, items, obtain_roll(DIE, rng, roll), impossible=impossible, notes=notes)


def skill_check(
    innate: int,
    acquired: int,
    kind: SkillKind,
    modifiers: Iterable[Modifier] = (),
    *,
    difficulty: Difficulty | None = None,
    simultaneous_actions: int = 1,
    wound: int = 0,
    rng: RandomSource | None = None,
    roll: int | None = None,
) -> CheckResult:
    """Test a skill from Inné/Acquis; raises :class:`SkillNotUsable` for an untrained Savoir."""
    base, *rest = skill_parts(innate, acquired, kind)
    return check(
        base.value,
        (*rest, *modifiers),
        difficulty=difficulty,
        simultaneous_actions=simultaneous_actions,
        wound=wound,
        rng=rng,
        roll=roll,
        base_label=base.label,
    )


@dataclass(frozen=True, slots=True)
class ChanceResult:
    player_roll: int
    gm_roll: int
    gm_malus: int
    lucky: bool

    @property
    def outcome_key(self) -> str:
        return "checks.chance.lucky" if self.lucky else "checks.chance.unlucky"

    def to_dict(self) -> dict[str, Any]:
        return {
            "player_roll": self.player_roll,
            "gm_roll": self.gm_roll,
            "gm_malus": self.gm_malus,
            "lucky": self.lucky,
            "outcome_key": self.outcome_key,
        }


def chance_test(
    *,
    rng: RandomSource | None = None,
    player_roll: int | None = None,
    gm_roll: int | None = None,
    gm_malus: int = 0,
) -> ChanceResult:
    """Player d20 vs GM d20: lucky if strictly lower than the GM's roll raised by his self-malus."""
    if gm_malus < 0:
        raise ValueError("the GM's self-inflicted malus is given as a positive number")
    p = obtain_roll(DIE, rng, player_roll)
    g = obtain_roll(DIE, rng, gm_roll)
    return ChanceResult(player_roll=p, gm_roll=g, gm_malus=gm_malus, lucky=p < g + gm_malus)
