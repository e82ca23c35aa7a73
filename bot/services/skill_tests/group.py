"""``/groupe``: several participants on each side of an opposed test."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from bot.context import AppContext
from bot.rules import opposed
from bot.rules.checks.common import System
from bot.rules.grammar import InputError
from bot.rules.random_source import RandomSource
from bot.services.caller import Caller
from bot.services.errors import input_refusal, user_error_reply
from bot.services.skill_tests.common import NAME_MAX, TestInputError, _manual_note, _parse_rolls, _Reads, fold
from bot.services.skill_tests.participants import (
    _bot_rolls,
    _contestant,
    _grades,
    _log_opposed,
    _participant,
    _second_skill,
    _skills_field,
    hidden_names,
    masked_group,
    secret_subject,
    with_hidden_for_gm,
)
from bot.services.skill_tests.secrecy import decide, secret_reply
from bot.services.skill_tests.tables import _setting
from bot.ui import checks_render as render
from bot.ui.reply import Colour, Reply

PARTICIPANTS_MAX = 12


@dataclass(frozen=True, slots=True)
class GroupRequest:
    side_a: str
    side_b: str
    skill_a: str | None = None
    skill_b: str | None = None
    modifier_a: int = 0
    modifier_b: int = 0
    difficulty_a: str | None = None  # a grade of the ruleset's ladder (skill_tests.difficulty)
    difficulty_b: str | None = None
    rolls: str | None = None
    label: str | None = None
    secret: bool | None = None  # None: secret only when a skill is always secret (seed's list)
    owner_id: int | None = None  # the server owner: where a hidden NPC's result goes without a GM channel


def _split_members(text: str) -> list[str]:
    return [part for part in (p.strip() for p in re.split(r"[,;]", text)) if part]


def _parse_group_rolls(system: System, text: str | None) -> dict[str, list[int]]:
    if not text:
        return {}
    out: dict[str, list[int]] = {}
    for part in _split_members(text):
        name, sep, values = part.partition("=")
        if not sep:
            name, sep, values = part.partition(":")
        if not sep or not name.strip():
            raise TestInputError(
                "tests.error.bad_group_rolls", text=part[:NAME_MAX], hint="tests.hint.group_rolls"
            )
        out.setdefault(name.strip(), []).extend(_parse_rolls(system, values))
    return out


async def group_opposed_check(
    ctx: AppContext, caller: Caller, request: GroupRequest, *, rng: RandomSource | None = None
) -> Reply:
    t, locale = ctx.catalog.t, caller.locale
    source = rng or ctx.rng
    rows: list[dict[str, Any]] = []
    try:
        setting = await _setting(ctx, caller)
        async with _Reads(ctx) as session:
            system = setting.ruleset
            skill_b, suggested = await _second_skill(ctx, setting, session, request.skill_a, request.skill_b)
            documents = await setting.tables(ctx, session, ("secret_tests",))
            skills = (request.skill_a, skill_b)
            decision = decide(ctx, caller, setting, skills, request.secret, documents, starred=False)
            members_a, members_b = _split_members(request.side_a), _split_members(request.side_b)
            if not members_a or not members_b:
                raise TestInputError("tests.error.empty_side")
            if len(members_a) + len(members_b) > PARTICIPANTS_MAX:
                raise TestInputError("tests.error.too_many_participants", limit=PARTICIPANTS_MAX)
            side_a = [
                await _participant(session, caller, m, request.skill_a, system, f"A{i}", gm=setting.is_gm)
                for i, m in enumerate(members_a, start=1)
            ]
            side_b = [
                await _participant(session, caller, m, skill_b, system, f"B{i}", gm=setting.is_gm)
                for i, m in enumerate(members_b, start=1)
            ]
            names = [p.name for p in (*side_a, *side_b)]
            duplicates = sorted({n for n in names if names.count(n) > 1})
            if duplicates:
                raise TestInputError("tests.error.duplicate_names", names=", ".join(duplicates))
            entered = _parse_group_rolls(system, request.rolls)
            folded = {fold(n): n for n in names}
            rolls: dict[str, list[int]] = {}
            for given, values in entered.items():
                real = folded.get(fold(given))
                if real is None:
                    raise TestInputError(
                        "tests.error.unknown_participant", name=given[:NAME_MAX], names=", ".join(names)
                    )
                rolls[real] = values
            rules = opposed.rules_for(system)
            grade_a, grade_b = _grades(ctx, caller, system, request.difficulty_a, request.difficulty_b)
            manual = bool(rolls)
            if manual:
                for name in names:
                    if name not in rolls:
                        rolls[name] = _bot_rolls(system, source, rules.max_rounds)
            result = opposed.group_opposed_test(
                [_contestant(p, request.modifier_a, grade_a) for p in side_a],
                [_contestant(p, request.modifier_b, grade_b) for p in side_b],
                system=system,
                rules=rules,
                rng=None if manual else source,
                rolls=rolls,
            )
            names_a, names_b = ", ".join(p.name for p in side_a), ", ".join(p.name for p in side_b)
            payload = _log_opposed(
                rows,
                caller,
                kind="group_opposed",
                system=system,
                expression=f"{names_a} vs {names_b}",
                outcome=result.to_dict(),
                skills=(request.skill_a, skill_b),
                suggested=suggested,
                manual=manual,
                label=request.label,
                secret=decision.secret,
            )
    except TestInputError as exc:
        return user_error_reply(ctx, caller.locale, exc)
    except InputError as exc:
        return user_error_reply(ctx, caller.locale, input_refusal(exc))
    await ctx.roll_log.record_rows(rows)  # committed (group commit) before the result is shown
    hidden = hidden_names([*side_a, *side_b])

    def shown(masked: frozenset[str]) -> Reply:
        fields = _skills_field(ctx, locale, (names_a, request.skill_a), (names_b, skill_b), suggested)
        fields += [
            render.group_round_field(ctx.catalog, locale, rnd.results, rnd.number, hidden=masked)
            for rnd in result.rounds
        ]
        title = t(locale, "checks.opposed.group_title") + (f" : {request.label}" if request.label else "")
        return Reply(
            title="⚔️ " + title,
            description="\n".join(render.group_summary_lines(ctx.catalog, locale, result)),
            fields=tuple(fields[:25]),
            footer=render.ruleset_footer(
                ctx.catalog, locale, system.value, _manual_note(ctx, locale, manual)
            ),
            colour=Colour.SUCCESS if result.complete else Colour.INFO,
            result=payload,
            kind="group_opposed",
        )

    if decision.secret:  # the GM's alone: nothing to mask for him, nothing shown to the table
        return secret_reply(
            ctx,
            caller,
            setting,
            request.owner_id,
            shown(frozenset()),
            decision=decision,
            subject=secret_subject(ctx, locale, request.label, skills),
            documents=documents,
            rolled_key="tests.secret.rolled_group",
            kind="group_opposed_secret",
            result={"ruleset": system.value, "label": request.label},
        )
    if not hidden:
        return shown(frozenset())
    public = replace(shown(hidden), result=masked_group(payload, hidden))
    return with_hidden_for_gm(
        ctx, caller, setting.config, request.owner_id, public, shown(frozenset()), [*side_a, *side_b]
    )
