"""Difficulty by name: each ruleset's own ladder, for ``/test difficulty:`` and ``/extended``.

* `renove`: the WFRP scale (:class:`bot.rules.renove.checks.Difficulty`, Très facile +30 % …
  Très difficile −30 %), added to the target as an itemised modifier.
* `d20`: the seed's ladder (data/d20_difficulty.json ids → :class:`bot.rules.d20.checks.Difficulty`).
* `v1`, `ogl`: no ladder; a plain modifier.

A grade is found by its id (``tres_difficile``, what the autocomplete sends), its French or English
name, accents and case ignored (« Très difficile », ``very hard``). The autocomplete offers only the
ladder of the ruleset in force where the command is typed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from bot.context import AppContext
from bot.i18n import Catalog
from bot.rules.checks.common import Modifier, System
from bot.rules.d20 import checks as d20
from bot.rules.renove import checks as renove
from bot.services.caller import Caller
from bot.services.skill_tests.common import NAME_MAX, TestInputError, fold
from bot.services.skill_tests.tables import _setting

CHOICES_MAX: Final = 25


@dataclass(frozen=True, slots=True)
class Grade:
    """One rung of a ladder: its id (the option's value), its name's key and its modifier."""

    id: str
    key: str
    modifier: int | None  # None: the action cannot succeed (d20 « rigoureusement impossible »)
    d20: d20.Difficulty | None = None
    renove: renove.Difficulty | None = None

    def as_modifier(self, catalog: Catalog, locale: str) -> Modifier:
        """The grade as an itemised term of the target (extended and opposed tests)."""
        if self.modifier is None:
            raise TestInputError("tests.error.difficulty_cannot_succeed", name=catalog.t(locale, self.key))
        return Modifier(self.key, self.modifier)


RENOVE_IDS: Final[dict[str, renove.Difficulty]] = {
    "tres_facile": renove.Difficulty.VERY_EASY,
    "facile": renove.Difficulty.EASY,
    "assez_facile": renove.Difficulty.ROUTINE,
    "moyenne": renove.Difficulty.AVERAGE,
    "assez_difficile": renove.Difficulty.CHALLENGING,
    "difficile": renove.Difficulty.HARD,
    "tres_difficile": renove.Difficulty.VERY_HARD,
}
# The ids of data/d20_difficulty.json (the seed's ladder) → the rules core's ladder.
D20_IDS: Final[dict[str, d20.Difficulty]] = {
    "evidente": d20.Difficulty.OBVIOUS,
    "assez_difficile": d20.Difficulty.FAIRLY_HARD,
    "difficile": d20.Difficulty.HARD,
    "tres_difficile": d20.Difficulty.VERY_HARD,
    "pratiquement_impossible": d20.Difficulty.NEARLY_IMPOSSIBLE,
    "absurde": d20.Difficulty.ABSURD,
    "rigoureusement_impossible": d20.Difficulty.STRICTLY_IMPOSSIBLE,
}

LADDERS: Final[dict[System, tuple[Grade, ...]]] = {
    System.RENOVE: tuple(Grade(i, g.key, g.modifier, renove=g) for i, g in RENOVE_IDS.items()),
    System.D20: tuple(Grade(i, g.key, g.modifier, d20=g) for i, g in D20_IDS.items()),
    System.V1: (),
    System.OGL: (),
}


def _folded(text: str) -> str:
    return fold(text).replace("-", " ").replace("_", " ").strip()


def _names(catalog: Catalog, grade: Grade) -> set[str]:
    names = {_folded(grade.id), _folded(grade.key.rsplit(".", 1)[-1])}
    for language in ("fr", "en"):
        names.add(_folded(catalog.raw(language, grade.key) or grade.id))
    return names


def find_grade(catalog: Catalog, system: System, typed: str | None, locale: str = "fr") -> Grade | None:
    """The grade ``typed`` names in ``system``'s ladder; None when nothing is typed.

    Raises :class:`TestInputError` when the ruleset has no ladder or the name is not on it."""
    if typed is None or not typed.strip():
        return None
    ladder = LADDERS[system]
    if not ladder:
        raise TestInputError("tests.error.no_ladder", ruleset=system.value)
    wanted = _folded(typed)
    for grade in ladder:
        if wanted in _names(catalog, grade):
            return grade
    raise TestInputError(
        "tests.error.unknown_difficulty_in",
        name=typed.strip()[:NAME_MAX],
        ruleset=system.value,
        names=", ".join(catalog.t(locale, g.key) for g in ladder),
    )


def choice_label(catalog: Catalog, locale: str, grade: Grade) -> str:
    name = catalog.t(locale, grade.key)
    if grade.modifier is None:
        return name
    value = (
        f"+{grade.modifier}" if grade.modifier > 0 else ("0" if not grade.modifier else f"−{-grade.modifier}")
    )
    # d20 grades move the score by points; the `renove` scale by percent
    key = "tests.difficulty.choice_points" if grade.d20 is not None else "tests.difficulty.choice"
    return catalog.t(locale, key, name=name, value=value)


def difficulty_choices(catalog: Catalog, locale: str, system: System, typed: str) -> list[tuple[str, str]]:
    """(label, id) of the grades of ``system``'s ladder matching what is typed so far."""
    wanted = _folded(typed)
    out = []
    for grade in LADDERS[system]:
        label = choice_label(catalog, locale, grade)
        if not wanted or any(wanted in name for name in _names(catalog, grade)) or wanted in _folded(label):
            out.append((label[:100], grade.id))
    return out[:CHOICES_MAX]


async def difficulty_choices_here(
    ctx: AppContext, caller: Caller, locale: str, typed: str
) -> list[tuple[str, str]]:
    """The ``difficulty`` autocomplete: only the ladder of the ruleset in force here."""
    setting = await _setting(ctx, caller)
    return difficulty_choices(ctx.catalog, locale, setting.ruleset, typed)
