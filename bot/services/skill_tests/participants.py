"""The sides of ``/oppose`` and ``/groupe``: who takes part (a number, a named number, ``@user`` or a
character's name), the second side's skill from the opposition table, the log row and the skills field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bot.context import AppContext
from bot.rules import opposed
from bot.rules.checks.common import Modifier, System
from bot.rules.checks.dispatch import die_for
from bot.rules.random_source import RandomSource
from bot.services.caller import Caller
from bot.services.skill_tests.common import (
    MOD_LABEL,
    NAME_MAX,
    TestInputError,
    _character_value,
    _check_modifier,
    _check_target,
    _int,
    _log,
    _Reads,
    _sheet_value,
    character_finder,
)
from bot.services.skill_tests.tables import Setting, suggested_opposition
from bot.ui.reply import Field

_MENTION = re.compile(r"^<@!?([0-9]{15,22})>$")


@dataclass(frozen=True, slots=True)
class Participant:
    name: str
    base: int
    base_label: str
    character_id: int | None = None


async def _participant(
    session: _Reads,
    caller: Caller,
    text: str,
    skill: str | None,
    system: System,
    default_name: str,
) -> Participant:
    """``Name=40``, ``40``, ``@user`` (active character) or a character's name."""
    raw = text.strip()
    if not raw:
        raise TestInputError("tests.error.empty_side")
    name, _, value_text = raw.partition("=")
    if value_text:
        number = _int(value_text)
        name = name.strip()[:NAME_MAX]
        if number is None or not name:
            raise TestInputError("tests.error.bad_participant", text=raw[:NAME_MAX])
        return Participant(name, _check_target(number), skill or name)
    number = _int(raw)
    if number is not None:
        return Participant(default_name, _check_target(number), skill or default_name)
    if not skill:
        raise TestInputError("tests.error.skill_needed", name=raw[:NAME_MAX])
    mention = _MENTION.match(raw)
    if mention:
        base = await _character_value(session, caller, int(mention.group(1)), skill, system)
    else:
        finder = character_finder()
        if caller.guild_id is None:
            raise TestInputError("tests.error.number_needed", name=raw[:NAME_MAX])
        sheet = await finder(await session.get(), caller.guild_id, raw)
        if sheet is None:
            raise TestInputError("tests.error.unknown_character", name=raw[:NAME_MAX])
        base = _sheet_value(sheet, skill, system, caller.locale)
    assert base.character is not None
    # The base's itemised parts (a `renove` mastery, a d20 Acquis) belong to the score opposed.
    total = base.value + sum(part.value for part in base.parts)
    return Participant(base.character.name[:NAME_MAX], _check_target(total), base.label, base.character.id)


def _contestant(p: Participant, modifier: int) -> opposed.Contestant:
    mods = (Modifier(MOD_LABEL, _check_modifier(modifier)),) if modifier else ()
    return opposed.Contestant(p.name, p.base, mods, p.base_label)


def _bot_rolls(system: System, rng: RandomSource, count: int) -> list[int]:
    die = die_for(system)
    return [rng.randint(1, die) for _ in range(count)]


async def _second_skill(
    ctx: AppContext, setting: Setting, session: _Reads, skill_a: str | None, skill_b: str | None
) -> tuple[str | None, bool]:
    """The second side's skill: the one given, else the opposition table's (and whether suggested)."""
    if skill_a and not skill_b:
        documents = await setting.tables(ctx, session, ("opposed_skills",))
        suggestion = suggested_opposition(ctx, skill_a, documents)
        return suggestion, suggestion is not None
    return skill_b, False


def _log_opposed(
    rows: list[dict[str, Any]],
    caller: Caller,
    *,
    kind: str,
    system: System,
    expression: str,
    outcome: dict[str, Any],
    skills: tuple[str | None, str | None],
    suggested: bool,
    manual: bool,
    label: str | None,
) -> dict[str, Any]:
    """The result of an opposed or group test, added to the roll log; returned for the reply."""
    payload = {
        **outcome,
        "ruleset": system.value,
        "skills": list(skills),
        "suggested_skill_b": suggested,
        "manual": manual,
        "label": label,
    }
    rows.append(
        _log(
            caller,
            kind=kind,
            ruleset=system,
            expression=expression,
            label=label,
            total=None,
            secret=False,
            result=payload,
        )
    )
    return payload


def _skills_field(
    ctx: AppContext,
    locale: str,
    side_a: tuple[str, str | None],
    side_b: tuple[str, str | None],
    suggested: bool,
) -> list[Field]:
    """Who tests which skill (each side: its names and its skill), when a skill is named at all."""
    (names_a, skill_a), (names_b, skill_b) = side_a, side_b
    if not (skill_a or skill_b):
        return []
    t = ctx.catalog.t
    skills = f"{names_a} : {skill_a or '—'}\n{names_b} : {skill_b or '—'}"
    if suggested:
        skills += "\n" + t(locale, "tests.opposed.suggested", skill=skill_b)
    return [Field(t(locale, "tests.field.skills"), skills)]
