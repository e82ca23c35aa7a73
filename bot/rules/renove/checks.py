"""`renove` tests (seed 000, "Gestion des tests"): d100 ≤ target, °R/°E, 01-02 / 99-00 criticals.

Readings (RULES.md, checked against the seed text "Les 01/00 ne sont plus des critiques si la
difficulté du test les surpasse … Ag 26, malus de 30 % … le 01 est tout de même une réussite,
mais pas critique, et le 02 est un échec"):

* 01 always succeeds; it is critical only if 01 ≤ target.
* 02 is a critical success if 02 ≤ target, otherwise a plain failure.
* 00 (=100) always fails; it is critical only if 00 > target.
* 99 is a critical failure only if 99 > target (otherwise a plain success).
* A forced success (01 above the target) has 0 °R rather than a negative degree.
* Lenient reading of failures (seed: "interpréter différemment l'échec en fonction des °E"):
  0-1 °E minor setback but done, 2 °E heavier setback, 3+ °E full failure. A critical failure
  always reads as a full failure (the seed says its effects cannot be avoided).

Difficulty: the seed names no ladder of its own, but grades tests the WFRP way (« malus de 30 % »);
the bot offers the usual WFRP 2e scale (GLOSSAIRE.md): Très facile +30 %, Facile +20 %, Assez facile
+10 %, Moyenne +0 %, Assez difficile −10 %, Difficile −20 %, Très difficile −30 % (:class:`Difficulty`),
added to the target like any modifier. A plain modifier stays possible.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

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


class Lenient(StrEnum):
    """Lenient reading of a failure by °E (catalogue keys ``checks.lenient.<value>``)."""

    MINOR_SETBACK = "minor_setback"
    HEAVY_SETBACK = "heavy_setback"
    FULL_FAILURE = "full_failure"

    @property
    def key(self) -> str:
        return f"checks.lenient.{self.value}"

    @property
    def done(self) -> bool:
        """Whether the action is still accomplished under the lenient reading."""
        return self is not Lenient.FULL_FAILURE


class Difficulty(StrEnum):
    """The WFRP difficulty scale; catalogue key ``checks.renove.difficulty.<value>``."""

    VERY_EASY = "very_easy"  # très facile
    EASY = "easy"  # facile
    ROUTINE = "routine"  # assez facile
    AVERAGE = "average"  # moyenne
    CHALLENGING = "challenging"  # assez difficile
    HARD = "hard"  # difficile
    VERY_HARD = "very_hard"  # très difficile

    @property
    def key(self) -> str:
        return f"checks.renove.difficulty.{self.value}"

    @property
    def modifier(self) -> int:
        return _DIFFICULTY_VALUES[self]

    def as_modifier(self) -> Modifier:
        """The grade as an itemised term of the target (« Difficile −20 »)."""
        return Modifier(self.key, self.modifier)


_DIFFICULTY_VALUES: dict[Difficulty, int] = {
    Difficulty.VERY_EASY: 30,
    Difficulty.EASY: 20,
    Difficulty.ROUTINE: 10,
    Difficulty.AVERAGE: 0,
    Difficulty.CHALLENGING: -10,
    Difficulty.HARD: -20,
    Difficulty.VERY_HARD: -30,
}


def lenient_reading(failure_degrees: int, critical_failure: bool = False) -> Lenient:
    if critical_failure or failure_degrees >= 3:
        return Lenient.FULL_FAILURE
    if failure_degrees == 2:
        return Lenient.HEAVY_SETBACK
    return Lenient.MINOR_SETBACK


def resolve(target: int, roll: int) -> tuple[bool, bool, bool, tuple[str, ...]]:
    """Return (success, critical_success, critical_failure, notes) for a d100 roll (100 = 00)."""
    if roll == 1:
        if target >= 1:
            return True, True, False, ()
        return True, False, False, ("checks.note.renove.forced_success",)
    if roll == 2:
        if target >= 2:
            return True, True, False, ()
        return False, False, False, ("checks.note.renove.critical_cancelled",)
    if roll == 100:
        if target < 100:
            return False, False, True, ()
        return False, False, False, ("checks.note.renove.forced_failure",)
    if roll == 99:
        if target < 99:
            return False, False, True, ()
        return True, False, False, ("checks.note.renove.critical_cancelled",)
    return roll <= target, False, False, ()


def result_from_roll(
    target: int, modifiers: tuple[Modifier, ...], roll: int, notes: tuple[str, ...] = ()
) -> CheckResult:
    success, crit_s, crit_f, rule_notes = resolve(target, roll)
    margin = max(0, target - roll) if success else max(0, roll - target)
    degrees = margin // 10
    lenient = None if success else lenient_reading(degrees, crit_f).key
    return CheckResult(
        system=System.RENOVE,
        roll=roll,
        die=DIE,
        target=target,
        modifiers=modifiers,
        success=success,
        critical_success=crit_s,
        critical_failure=crit_f,
        margin=margin,
        degrees=degrees,
        lenient=lenient,
        notes=notes + rule_notes,
    )


def check(
    base: int,
    modifiers: Iterable[Modifier] = (),
    *,
    rng: RandomSource | None = None,
    roll: int | None = None,
    base_label: str = BASE_LABEL,
) -> CheckResult:
    """Resolve a `renove` test of ``base`` (characteristic or skill %) plus ``modifiers``."""
    target, items = build_target(base, modifiers, base_label)
    return result_from_roll(target, items, obtain_roll(DIE, rng, roll))


# --- hidden tests ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SecretTest:
    """A row of the seed's secret-tests list; ``always`` is False for the starred names."""

    skill: str
    always: bool = True


class Secrecy(StrEnum):
    ALWAYS = "always"
    SOMETIMES = "sometimes"
    NEVER = "never"


def secrecy(skill: str, secret_tests: Sequence[SecretTest]) -> Secrecy:
    """Whether the GM should roll ``skill`` in secret, per the (data-file) secret-tests list."""
    wanted = skill.casefold().strip()
    for row in secret_tests:
        if row.skill.casefold().strip() == wanted:
            return Secrecy.ALWAYS if row.always else Secrecy.SOMETIMES
    return Secrecy.NEVER
