"""The sides of ``/oppose`` and ``/groupe``: who takes part (a number, a named number, ``@user`` or a
character's name), the second side's skill from the opposition table, the log row and the skills field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from bot.context import AppContext
from bot.db.repositories import ServerConfig
from bot.rules import opposed
from bot.rules.checks.common import Modifier, System
from bot.rules.checks.dispatch import die_for
from bot.rules.random_source import RandomSource
from bot.services.caller import Caller
from bot.services.config import secret_destination
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
from bot.services.skill_tests.difficulty import find_grade
from bot.services.skill_tests.tables import Setting, suggested_opposition
from bot.ui.reply import Delivery, Field, Reply

_MENTION = re.compile(r"^<@!?([0-9]{15,22})>$")


@dataclass(frozen=True, slots=True)
class Participant:
    name: str
    base: int
    base_label: str
    character_id: int | None = None
    # A sheet the caller may not read (as with /perso voir: not his, and he is not the GM): a GM's
    # NPC or another player's character. Its values are masked for the table and go to the GM.
    hidden: bool = False
    npc: bool = False


async def _participant(
    session: _Reads,
    caller: Caller,
    text: str,
    skill: str | None,
    system: System,
    default_name: str,
    *,
    gm: bool = False,
) -> Participant:
    """``Name=40``, ``40``, ``@user`` (active character) or a character's name.

    A sheet is read as ``/perso voir`` reads it: by its owner and the GM. Another's sheet (a GM's
    NPC, another player's character) still takes part when a player names it, its values hidden
    (``hidden``): the player's reply masks them and the full result goes to the GM, as a secret
    test's does."""
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
    npc = bool(getattr(base.character, "is_npc", False))
    mine = not npc and getattr(base.character, "owner_id", None) == caller.user_id
    hidden = not (gm or mine)
    return Participant(
        base.character.name[:NAME_MAX], _check_target(total), base.label, base.character.id, hidden, npc
    )


def secret_subject(
    ctx: AppContext, locale: str, label: str | None, skills: tuple[str | None, str | None]
) -> str | None:
    """What a secret opposed test's notice names: its label, else « Filature contre Perception »."""
    if label:
        return label
    skill_a, skill_b = skills
    if skill_a and skill_b:
        return ctx.catalog.t(locale, "tests.secret.versus", a=skill_a, b=skill_b)
    return skill_a or skill_b


def _contestant(p: Participant, modifier: int, grade: Modifier | None = None) -> opposed.Contestant:
    """The side's test: its modifier, then the difficulty grade of its ladder (when one is given)."""
    mods = (Modifier(MOD_LABEL, _check_modifier(modifier)),) if modifier else ()
    if grade is not None:
        mods = (*mods, grade)
    return opposed.Contestant(p.name, p.base, mods, p.base_label)


def _grades(
    ctx: AppContext, caller: Caller, system: System, a: str | None, b: str | None
) -> tuple[Modifier | None, Modifier | None]:
    """Each side's difficulty by name, from the ladder of the ruleset in force."""
    grade_a = find_grade(ctx.catalog, system, a, caller.locale)
    grade_b = find_grade(ctx.catalog, system, b, caller.locale)
    return (
        grade_a.as_modifier(ctx.catalog, caller.locale) if grade_a is not None else None,
        grade_b.as_modifier(ctx.catalog, caller.locale) if grade_b is not None else None,
    )


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
    secret: bool = False,
) -> dict[str, Any]:
    """The result of an opposed or group test, added to the roll log; returned for the reply."""
    payload = {
        **outcome,
        "ruleset": system.value,
        "skills": list(skills),
        "suggested_skill_b": suggested,
        "manual": manual,
        "label": label,
        "secret": secret,
    }
    rows.append(
        _log(
            caller,
            kind=kind,
            ruleset=system,
            expression=expression,
            label=label,
            total=None,
            secret=secret,
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


# -- a GM's NPC named by a player: its values masked for the table, the full result to the GM ----

_SHOWN_CHECK_KEYS: tuple[str, ...] = (
    "system",
    "roll",
    "roll_text",
    "die",
    "success",
    "critical_success",
    "critical_failure",
    "outcome",
    "outcome_key",
)


def _masked_check(check: dict[str, Any]) -> dict[str, Any]:
    """A check's dice and outcome, without its target, modifiers, margin or degrees."""
    return {**{k: check[k] for k in _SHOWN_CHECK_KEYS if k in check}, "hidden": True}


def _masked_round(rnd: dict[str, Any], sides: tuple[str, ...]) -> dict[str, Any]:
    return {**rnd, **{side: _masked_check(rnd[side]) for side in sides}}


def masked_opposed(outcome: dict[str, Any], hidden_a: bool, hidden_b: bool) -> dict[str, Any]:
    """An opposed test's result as the player sees it: the hidden sides' values taken out."""
    sides = tuple(side for side, hidden in (("a", hidden_a), ("b", hidden_b)) if hidden)
    masked = dict(outcome)
    for side in sides:
        masked[side] = {"name": outcome[side]["name"], "hidden": True}
    masked["rounds"] = [_masked_round(r, sides) for r in outcome["rounds"]]
    return masked


def masked_group(outcome: dict[str, Any], hidden: frozenset[str]) -> dict[str, Any]:
    """A group opposed test's result as the player sees it: the hidden members' values taken out."""

    def contestant(c: dict[str, Any]) -> dict[str, Any]:
        return {"name": c["name"], "hidden": True} if c["name"] in hidden else c

    def pair(p: dict[str, Any]) -> dict[str, Any]:
        sides = tuple(side for side in ("a", "b") if p[side] in hidden)
        return {**p, "rounds": [_masked_round(r, sides) for r in p["rounds"]]}

    masked = dict(outcome)
    masked["side_a"] = [contestant(c) for c in outcome["side_a"]]
    masked["side_b"] = [contestant(c) for c in outcome["side_b"]]
    masked["rounds"] = [
        {**r, "results": {n: _masked_check(c) if n in hidden else c for n, c in r["results"].items()}}
        for r in outcome["rounds"]
    ]
    masked["pairs"] = [pair(p) for p in outcome["pairs"]]
    return masked


def hidden_names(participants: list[Participant]) -> frozenset[str]:
    return frozenset(p.name for p in participants if p.hidden)


def _hidden_notes(ctx: AppContext, locale: str, participants: list[Participant], sent: bool) -> list[str]:
    """« Les valeurs de Baron Noir (PNJ du MJ) restent cachées… », one line per kind of sheet."""
    notes = []
    for npc, kind in ((True, "npc"), (False, "pc")):
        names = sorted(p.name for p in participants if p.hidden and p.npc is npc)
        if names:
            number = "one" if len(names) == 1 else "many"
            key = f"tests.hidden.{kind}_{'sent' if sent else 'kept'}_{number}"  # « d'Élise »: the format
            notes.append("🔒 " + ctx.catalog.t(locale, key, names=", ".join(names)))
    return notes


def with_hidden_for_gm(
    ctx: AppContext,
    caller: Caller,
    config: ServerConfig | None,
    owner_id: int | None,
    public: Reply,
    full: Reply,
    participants: list[Participant],
) -> Reply:
    """The player's reply (``public``, values masked) says so; the full one goes where secret tests
    go (the GM channel, else the GM's or the server owner's DMs)."""
    t, locale = ctx.catalog.t, caller.locale
    destination = secret_destination(config, owner_id)
    summary = public.description or ""
    notes = "\n".join(_hidden_notes(ctx, locale, participants, destination.known))
    public = replace(public, description=f"{summary}\n{notes}".strip())
    if not destination.known:
        return public
    # Should the delivery fail, the table's reply must not say the full result went to the GM.
    kept = "\n".join(_hidden_notes(ctx, locale, participants, False))
    undelivered = f"{summary}\n{kept}\n🔒 {t(locale, 'tests.hidden.not_delivered')}".strip()
    secret_footer = f"{full.footer} · {t(locale, 'tests.secret.footer')}" if full.footer else None
    for_gm = replace(
        full,
        title="🔒 " + (full.title or ""),
        description=f"{full.description or ''}\n"
        + t(locale, "tests.hidden.for_gm", user=f"<@{caller.user_id}>"),
        footer=secret_footer,
    )
    delivery = Delivery(
        for_gm, user_id=destination.user_id, channel_id=destination.channel_id, if_undelivered=undelivered
    )
    return replace(public, also=(delivery,))
