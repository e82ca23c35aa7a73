"""``/etendu``: K successes in N attempts, all at once or one attempt per button press; the button's
custom id carries the whole state (encoded and decoded here)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.context import AppContext
from bot.rules import extended
from bot.rules.checks.common import CheckResult, Modifier, System, build_target
from bot.rules.checks.dispatch import die_for
from bot.rules.grammar import InputError
from bot.rules.random_source import RandomSource
from bot.services.caller import Caller
from bot.services.errors import input_refusal, refusal_reply, user_error_reply
from bot.services.skill_tests.common import (
    MOD_LABEL,
    TestInputError,
    _check_modifier,
    _log,
    _manual_note,
    _parse_rolls,
    _Reads,
)
from bot.services.skill_tests.difficulty import find_grade
from bot.services.skill_tests.secrecy import decide, secret_reply
from bot.services.skill_tests.single import TestRequest, _resolve_base
from bot.services.skill_tests.tables import _setting, extended_row
from bot.ui import checks_render as render
from bot.ui.reply import Button, ButtonStyle, Field, Reply

ATTEMPTS_MAX = 100
EXT_PREFIX = "melee:ext:"
_SYSTEM_CODES = {System.RENOVE: "r", System.V1: "v", System.D20: "d", System.OGL: "o"}
_UNIT_CODES = {
    extended.TimeUnit.ROUND: "r",
    extended.TimeUnit.SECOND: "s",
    extended.TimeUnit.MINUTE: "m",
    extended.TimeUnit.HOUR: "h",
    extended.TimeUnit.DAY: "d",
}
EXT_PATTERN = (
    r"melee:ext:(?P<sys>[rvdo]):(?P<target>-?[0-9]{1,4}):(?P<n>[0-9]{1,3}):(?P<k>[0-9]{1,3}):"
    r"(?P<amount>[0-9]{1,4})(?P<unit>[rsmhd]):(?P<count>[0-9]{1,3}):(?P<bits>[0-9a-f]{1,26}):(?P<user>[0-9]{1,22})"
)
_EXT_RE = re.compile("^" + EXT_PATTERN + "$")


def encode_extended(state: extended.ExtendedState, target: int, user_id: int) -> str:
    """The state a step button carries: ruleset, target, N, K, time, outcomes so far, roller."""
    test = state.test
    bits = sum(1 << i for i, r in enumerate(state.attempts) if r.success)
    time = test.time_per_attempt
    return (
        f"{EXT_PREFIX}{_SYSTEM_CODES[test.system]}:{target}:{test.max_attempts}:{test.successes_needed}:"
        f"{time.amount}{_UNIT_CODES[time.unit]}:{len(state.attempts)}:{bits:x}:{user_id}"
    )


@dataclass(frozen=True, slots=True)
class ExtendedToken:
    system: System
    target: int
    max_attempts: int
    successes_needed: int
    time: extended.Duration
    outcomes: tuple[bool, ...]
    user_id: int


def decode_extended(custom_id: str) -> ExtendedToken | None:
    match = _EXT_RE.match(custom_id)
    if match is None:
        return None
    systems = {v: k for k, v in _SYSTEM_CODES.items()}
    units = {v: k for k, v in _UNIT_CODES.items()}
    count, bits = int(match["count"]), int(match["bits"], 16)
    n, k = int(match["n"]), int(match["k"])
    if not (1 <= n <= ATTEMPTS_MAX and 1 <= k <= n and count <= n and bits < (1 << max(count, 1))):
        return None
    return ExtendedToken(
        system=systems[match["sys"]],
        target=int(match["target"]),
        max_attempts=n,
        successes_needed=k,
        time=extended.Duration(max(1, int(match["amount"])), units[match["unit"]]),
        outcomes=tuple(bool(bits >> i & 1) for i in range(count)),
        user_id=int(match["user"]),
    )


def _placeholder(system: System, target: int, success: bool) -> CheckResult:
    # Past attempts travel in the button as their outcome only (the message shows their dice).
    return CheckResult(system, 0, die_for(system), target, (), success)


@dataclass(frozen=True, slots=True)
class ExtendedRequest:
    carac: str | None = None
    skill: str | None = None
    attempts: int | None = None
    successes: int | None = None
    time_amount: int | None = None
    time_unit: str | None = None
    modifier: int = 0
    rolls: str | None = None
    step: bool = False
    label: str | None = None
    difficulty: str | None = None  # a grade of the ruleset's ladder (skill_tests.difficulty)
    secret: bool | None = None  # None: secret when the skill is on the seed's list, as for /test
    owner_id: int | None = None  # the server owner: where a secret result goes without a GM channel


def _extended_reply(
    ctx: AppContext,
    locale: str,
    state: extended.ExtendedState,
    new: Sequence[CheckResult],
    *,
    title: str,
    target: int,
    user_id: int,
    payload: dict[str, Any],
    manual: bool,
    modifiers: Sequence[Modifier] = (),
) -> Reply:
    t = ctx.catalog.t
    outcomes = [r.success for r in state.attempts]
    fields = [Field(t(locale, "tests.extended.attempts"), render.attempt_marks(outcomes))]
    if new:
        lines = [
            f"{len(state.attempts) - len(new) + i + 1}. {render.check_line(ctx.catalog, locale, r)}"
            for i, r in enumerate(new)
        ]
        fields.append(Field(t(locale, "tests.extended.rolls"), "\n".join(lines[-20:])))
    if modifiers:
        fields.append(
            Field(
                t(locale, "tests.field.modifiers"),
                render.modifiers_text(ctx.catalog, locale, modifiers, target),
            )
        )
    fields.append(
        Field(
            t(locale, "tests.extended.time_per_attempt"),
            render.duration_text(ctx.catalog, locale, state.test.time_per_attempt),
            inline=True,
        )
    )
    buttons: tuple[tuple[Button, ...], ...] = ()
    if not state.finished:
        buttons = (
            (
                Button(
                    label=t(locale, "tests.extended.button"),
                    custom_id=encode_extended(state, target, user_id),
                    style=ButtonStyle.PRIMARY,
                    emoji="🎲",
                ),
            ),
        )
    return Reply(
        title=title,
        description=render.extended_progress(ctx.catalog, locale, state),
        fields=tuple(fields),
        footer=render.ruleset_footer(
            ctx.catalog, locale, state.test.system.value, _manual_note(ctx, locale, manual)
        ),
        colour=render.extended_colour(state),
        buttons=buttons,
        result=payload,
        kind="extended",
    )


async def extended_check(
    ctx: AppContext, caller: Caller, request: ExtendedRequest, *, rng: RandomSource | None = None
) -> Reply:
    """``/etendu``: K successes in N attempts; all at once, or one attempt per button press."""
    t, locale = ctx.catalog.t, caller.locale
    source = rng or ctx.rng
    rows: list[dict[str, Any]] = []
    try:
        setting = await _setting(ctx, caller)
        async with _Reads(ctx) as session:
            system = setting.ruleset
            documents = await setting.tables(ctx, session, ("extended_tests", "secret_tests"))
            decision = decide(ctx, caller, setting, [request.skill], request.secret, documents, starred=True)
            row = extended_row(ctx, request.skill, documents)
            attempts = request.attempts or (row or {}).get("attempts")
            needed = request.successes or (row or {}).get("successes_needed")
            if not attempts or not needed:
                raise TestInputError("tests.error.extended_counts", hint="tests.hint.extended")
            if not 1 <= attempts <= ATTEMPTS_MAX or not 1 <= needed <= ATTEMPTS_MAX:
                raise TestInputError("tests.error.attempts_range", max=ATTEMPTS_MAX)
            if needed > attempts:
                raise TestInputError(
                    "tests.error.successes_over_attempts", successes=needed, attempts=attempts
                )
            row_time = (row or {}).get("time_per_test") or {}
            unit_name = request.time_unit or row_time.get("unit") or "round"
            amount = request.time_amount or row_time.get("amount") or 1
            try:
                unit = extended.TimeUnit(unit_name)
            except ValueError:
                raise TestInputError("tests.error.unknown_unit", unit=str(unit_name)[:20]) from None
            base = await _resolve_base(
                ctx, session, caller, TestRequest(carac=request.carac, skill=request.skill), system
            )
            mods = list(base.parts)
            if request.modifier:
                mods.append(Modifier(MOD_LABEL, _check_modifier(request.modifier)))
            grade = find_grade(ctx.catalog, system, request.difficulty, caller.locale)
            if grade is not None:
                mods.append(grade.as_modifier(ctx.catalog, caller.locale))
            test = extended.ExtendedTest(
                system=system,
                base=base.value,
                max_attempts=attempts,
                successes_needed=needed,
                modifiers=tuple(mods),
                base_label=base.label,
                time_per_attempt=extended.Duration(int(amount), unit),
            )
            target, items = build_target(test.base, test.modifiers, test.base_label)
            rolls = _parse_rolls(system, request.rolls)
            manual = bool(rolls)
            if request.step and not manual and not decision.secret:  # a secret one: all at once
                state = extended.start(test)
            else:
                state = extended.run(test, rng=None if manual else source, rolls=rolls)
            payload = {**state.to_dict(), "ruleset": system.value, "target": target, "manual": manual}
            payload["label"] = request.label or request.skill
            for index, attempt in enumerate(state.attempts, start=1):
                rows.append(
                    _log(
                        caller,
                        kind="extended",
                        ruleset=system,
                        expression=f"d{attempt.die} ≤ {attempt.target} #{index}/{attempts}",
                        label=request.label or request.skill,
                        total=attempt.roll,
                        secret=decision.secret,
                        result={**attempt.to_dict(), "attempt": index, "status": state.status.value},
                        character_id=base.character.id if base.character else None,
                    )
                )
    except TestInputError as exc:
        return user_error_reply(ctx, caller.locale, exc)
    except InputError as exc:
        return user_error_reply(ctx, caller.locale, input_refusal(exc))
    await ctx.roll_log.record_rows(rows)  # committed (group commit) before the result is shown
    shown = request.label or request.skill or render.label_text(ctx.catalog, locale, base.label)
    title = "⏳ " + t(locale, "tests.extended.title", label=shown)
    full = _extended_reply(
        ctx,
        locale,
        state,
        state.attempts,
        title=title,
        target=target,
        user_id=caller.user_id,
        payload=payload,
        manual=manual,
        modifiers=items,
    )
    if not decision.secret:
        return full
    return secret_reply(
        ctx,
        caller,
        setting,
        request.owner_id,
        full,
        decision=decision,
        subject=shown,
        documents=documents,
        rolled_key="tests.secret.rolled_extended",
        kind="extended_secret",
        result={"ruleset": system.value, "label": payload["label"]},
    )


async def extended_step(
    ctx: AppContext,
    caller: Caller,
    custom_id: str,
    *,
    title: str | None = None,
    rng: RandomSource | None = None,
) -> Reply:
    """One more attempt of an extended test, from the state its button carries."""
    t, locale = ctx.catalog.t, caller.locale
    token = decode_extended(custom_id)
    if token is None:
        return refusal_reply(ctx, locale, "tests.error.extended_state")
    rows: list[dict[str, Any]] = []
    try:
        setting = await _setting(ctx, caller)
        if caller.user_id != token.user_id and not setting.is_gm:
            raise TestInputError("tests.error.not_your_test", user=f"<@{token.user_id}>")
        test = extended.ExtendedTest(
            system=token.system,
            base=token.target,
            max_attempts=token.max_attempts,
            successes_needed=token.successes_needed,
            time_per_attempt=token.time,
        )
        state = extended.ExtendedState(
            test, tuple(_placeholder(token.system, token.target, ok) for ok in token.outcomes)
        )
        if state.finished:
            raise TestInputError("tests.error.extended_over")
        state = extended.attempt(state, rng=rng or ctx.rng)
        latest = state.attempts[-1]
        payload = {
            "ruleset": token.system.value,
            "target": token.target,
            "attempt": len(state.attempts),
            "latest": latest.to_dict(),
            "outcomes": [r.success for r in state.attempts],
            "successes": state.successes,
            "attempts_left": state.attempts_left,
            "status": state.status.value,
            "status_key": state.status.key,
            "elapsed": state.elapsed.to_dict(),
            "manual": False,
        }
        rows.append(
            _log(
                caller,
                kind="extended",
                ruleset=token.system,
                expression=f"d{latest.die} ≤ {latest.target} #{len(state.attempts)}/{token.max_attempts}",
                label=None,
                total=latest.roll,
                secret=False,
                result={**latest.to_dict(), "attempt": len(state.attempts), "status": state.status.value},
            )
        )
    except TestInputError as exc:
        return user_error_reply(ctx, caller.locale, exc)
    except InputError as exc:
        return user_error_reply(ctx, caller.locale, input_refusal(exc))
    await ctx.roll_log.record_rows(rows)  # committed (group commit) before the result is shown
    return _extended_reply(
        ctx,
        locale,
        state,
        (latest,),
        title=title or "⏳ " + t(locale, "checks.extended.title"),
        target=token.target,
        user_id=token.user_id,
        payload=payload,
        manual=False,
    )
