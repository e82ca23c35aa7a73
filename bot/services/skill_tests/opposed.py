"""``/oppose``: one side against another, round after round, in the ruleset in force."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from bot.context import AppContext
from bot.rules import opposed
from bot.rules.grammar import InputError
from bot.rules.random_source import RandomSource
from bot.services.caller import Caller
from bot.services.errors import input_refusal, user_error_reply
from bot.services.skill_tests.common import TestInputError, _manual_note, _parse_rolls, _Reads
from bot.services.skill_tests.participants import (
    _bot_rolls,
    _contestant,
    _grades,
    _log_opposed,
    _participant,
    _second_skill,
    _skills_field,
    hidden_names,
    masked_opposed,
    secret_subject,
    with_hidden_for_gm,
)
from bot.services.skill_tests.secrecy import decide, secret_reply
from bot.services.skill_tests.tables import _setting
from bot.ui import checks_render as render
from bot.ui.reply import Reply


@dataclass(frozen=True, slots=True)
class OpposeRequest:
    side_a: str
    side_b: str
    skill_a: str | None = None
    skill_b: str | None = None
    modifier_a: int = 0
    modifier_b: int = 0
    difficulty_a: str | None = None  # a grade of the ruleset's ladder (skill_tests.difficulty)
    difficulty_b: str | None = None
    rolls_a: str | None = None
    rolls_b: str | None = None
    label: str | None = None
    secret: bool | None = None  # None: secret only when a skill is always secret (seed's list)
    owner_id: int | None = None  # the server owner: where a hidden NPC's result goes without a GM channel


async def opposed_check(
    ctx: AppContext, caller: Caller, request: OpposeRequest, *, rng: RandomSource | None = None
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
            gm = setting.is_gm
            a = await _participant(session, caller, request.side_a, request.skill_a, system, "A", gm=gm)
            b = await _participant(session, caller, request.side_b, skill_b, system, "B", gm=gm)
            if a.name == b.name:
                b = replace(b, name=f"{b.name} (2)")
            rolls_a = _parse_rolls(system, request.rolls_a)
            rolls_b = _parse_rolls(system, request.rolls_b)
            rules = opposed.rules_for(system)
            grade_a, grade_b = _grades(ctx, caller, system, request.difficulty_a, request.difficulty_b)
            manual = bool(rolls_a or rolls_b)
            if manual:
                rolls_a = rolls_a or _bot_rolls(system, source, rules.max_rounds)
                rolls_b = rolls_b or _bot_rolls(system, source, rules.max_rounds)
            result = opposed.opposed_test(
                _contestant(a, request.modifier_a, grade_a),
                _contestant(b, request.modifier_b, grade_b),
                system=system,
                rules=rules,
                rng=None if manual else source,
                rolls_a=rolls_a,
                rolls_b=rolls_b,
            )
            payload = _log_opposed(
                rows,
                caller,
                kind="opposed",
                system=system,
                expression=f"{a.name} vs {b.name}",
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
    hidden = hidden_names([a, b])

    def shown(masked: frozenset[str]) -> Reply:
        fields = _skills_field(ctx, locale, (a.name, request.skill_a), (b.name, skill_b), suggested)
        fields += [
            render.opposed_round_field(ctx.catalog, locale, rnd, a.name, b.name, hidden=masked)
            for rnd in result.rounds
        ]
        title = t(locale, "checks.opposed.title") + (f" : {request.label}" if request.label else "")
        return Reply(
            title="⚔️ " + title,
            description=render.opposed_summary(ctx.catalog, locale, result),
            fields=tuple(fields[:25]),
            footer=render.ruleset_footer(
                ctx.catalog, locale, system.value, _manual_note(ctx, locale, manual)
            ),
            colour=render.opposed_colour(result),
            result=payload,
            kind="opposed",
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
            rolled_key="tests.secret.rolled_opposed",
            kind="opposed_secret",
            result={"ruleset": system.value, "label": request.label},
        )
    if not hidden:
        return shown(frozenset())
    public = replace(shown(hidden), result=masked_opposed(payload, a.hidden, b.hidden))
    return with_hidden_for_gm(
        ctx, caller, setting.config, request.owner_id, public, shown(frozenset()), [a, b]
    )
