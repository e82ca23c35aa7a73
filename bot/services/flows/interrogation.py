"""``/interrogatoire`` (``/interrogation``): open (GM form), question, see, close.

The subject's FM and the four tiers stay in the session row; the public messages show only
what the subject has said. Interrogations are secret tests (data/secret_tests.json): the rolls
go to the GM by direct message, the table sees who questioned and what was revealed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from bot.context import AppContext
from bot.db.flow_models import GameSession
from bot.rules.checks.common import CheckResult
from bot.rules.renove import interrogation as rules
from bot.rules.renove.interrogation import Approach, InterrogationError, InterrogationState, Mode, Subject
from bot.services.caller import Caller
from bot.services.flows.common import (
    FlowResult,
    Refusal,
    Scope,
    character_of,
    custom_id,
    d100,
    new_session,
    open_session,
    parse_rolls,
    require_gm,
    require_open,
    roll_line,
    run,
    save_state,
    session_by_id,
    skill_target,
    t,
)
from bot.ui.reply import Button, ButtonStyle, Colour, Delivery, Field, Reply

KIND: Final = "interrogation"
FLOW: Final = "interro"
LINE_MAX: Final = 1000
SUBJECT_MAX: Final = 64
ATTEMPTS_MAX: Final = 20

# Skill → (characteristic of the untrained fallback, basic skill?) for the other systems' sheets;
# `renove` sheets read data/skills.json (where seed 000 makes Torture a basic skill, l. 1243).
SKILLS: Final = {
    "intimidation": ("Intimidation", "F", True),
    "charisme": ("Charisme", "Soc", True),
    "torture": ("Torture", "Soc", False),
}


def _state(row: GameSession) -> InterrogationState:
    return InterrogationState.from_dict(row.state)


def _tier_name(ctx: AppContext, caller: Caller, tier: int) -> str:
    return t(ctx, caller, f"flows.interrogation.tier.{tier}")


def _revealed_text(ctx: AppContext, caller: Caller, state: InterrogationState, tiers: list[int]) -> str:
    lines = [
        f"**{tier})** {state.subject.lines[tier]}" for tier in tiers if state.subject.lines[tier].strip()
    ]
    return "\n".join(lines) or t(ctx, caller, "flows.interrogation.nothing_yet")


def _buttons(
    ctx: AppContext, caller: Caller, session_id: int, state: InterrogationState
) -> tuple[Button, ...]:
    if state.discreet:
        actions = [("charm", "flows.interrogation.button.charm", ButtonStyle.PRIMARY)]
    else:
        actions = [("ask", "flows.interrogation.button.intimidate", ButtonStyle.PRIMARY)]
        key = (
            "flows.interrogation.button.torture"
            if state.mode is Mode.EXTENDED
            else "flows.interrogation.button.ask_torture"
        )
        actions.append(("torture", key, ButtonStyle.DANGER))
    done = len(state.revealed) >= len(rules.TIERS) or (
        state.mode is Mode.EXTENDED and state.attempts_left == 0
    )
    buttons = [
        Button(t(ctx, caller, key), custom_id(FLOW, action, session_id), style, disabled=done)
        for action, key, style in actions
    ]
    buttons.append(
        Button(t(ctx, caller, "flows.interrogation.button.close"), custom_id(FLOW, "close", session_id))
    )
    return tuple(buttons)


def _board(
    ctx: AppContext, caller: Caller, session_id: int, state: InterrogationState, *, intro: str
) -> Reply:
    mode = t(ctx, caller, f"flows.interrogation.mode.{state.mode.value}")
    if state.discreet:
        mode += " · " + t(ctx, caller, "flows.interrogation.discreet")
    fields = [
        Field(
            t(ctx, caller, "flows.interrogation.revealed"), _revealed_text(ctx, caller, state, state.revealed)
        )
    ]
    if state.mode is Mode.EXTENDED:
        fields.append(
            Field(t(ctx, caller, "flows.interrogation.attempts_left"), str(state.attempts_left), inline=True)
        )
    return Reply(
        title=t(ctx, caller, "flows.interrogation.title", subject=state.subject.name),
        description=intro,
        fields=tuple(fields),
        footer=t(ctx, caller, "flows.interrogation.footer", mode=mode, id=session_id),
        colour=Colour.INFO,
        buttons=(_buttons(ctx, caller, session_id, state),),
        kind="interrogation",
        result={
            "session_id": session_id,
            "subject": state.subject.name,
            "revealed": list(state.revealed),
            "lines": [state.subject.lines[tier] for tier in state.revealed],
            "mode": state.mode.value,
            "attempts_left": state.attempts_left if state.mode is Mode.EXTENDED else None,
        },
    )


def _gm_summary(ctx: AppContext, caller: Caller, session_id: int, state: InterrogationState) -> Reply:
    lines = []
    for tier in rules.TIERS:
        mark = "✅" if tier in state.revealed else "🔒"
        text = state.subject.lines[tier] or "—"
        lines.append(f"{mark} **{tier}) {_tier_name(ctx, caller, tier)}** : {text}")
    reluctant = t(
        ctx, caller, "flows.interrogation.reluctant." + ("yes" if state.subject.reluctant else "no")
    )
    return Reply(
        title=t(ctx, caller, "flows.interrogation.gm_title", subject=state.subject.name),
        description="\n".join(lines),
        fields=(
            Field("FM", str(state.subject.fm), inline=True),
            Field(t(ctx, caller, "flows.interrogation.reluctant_label"), reluctant, inline=True),
        ),
        footer=t(ctx, caller, "flows.interrogation.gm_footer", id=session_id),
        colour=Colour.SECRET,
        ephemeral=True,
        kind="interrogation_secret",
        result={"session_id": session_id, "state": state.to_dict()},
    )


def _detail(ctx: AppContext, caller: Caller, skill: str, result: CheckResult) -> str:
    return f"{t(ctx, caller, f'flows.interrogation.skill.{skill}')} : {roll_line(ctx, caller, result)}"


# -- use cases -----------------------------------------------------------------------------


async def open_form_allowed(ctx: AppContext, caller: Caller) -> Reply | None:
    """Before showing the form: the GM only, and one open interrogation per channel."""

    async def work(scope: Scope) -> FlowResult:
        require_gm(scope)
        if await open_session(scope, KIND) is not None:
            raise Refusal("flows.interrogation.error.already_open")
        return FlowResult(Reply())

    result = await run(ctx, caller, work)
    return result.reply if result.reply.is_error else None


async def open_interrogation(
    ctx: AppContext,
    caller: Caller,
    *,
    subject: str,
    fm: int,
    reluctant: bool,
    lines: list[str],
    mode: str = "standard",
    attempts: int = 0,
    discreet: bool = False,
) -> FlowResult:
    async def work(scope: Scope) -> FlowResult:
        require_gm(scope)
        name = " ".join(subject.split())[:SUBJECT_MAX]
        if not name:
            raise Refusal("flows.interrogation.error.no_subject")
        if not 0 <= fm <= 100:
            raise Refusal("flows.interrogation.error.fm_range")
        texts = [" ".join(x.split()) if "\n" not in x else x.strip() for x in [*lines, "", "", "", ""][:4]]
        if not texts[0]:
            raise Refusal("flows.interrogation.error.tier0_needed")
        if any(len(x) > LINE_MAX for x in texts):
            raise Refusal("flows.interrogation.error.line_too_long", max=LINE_MAX)
        if not 0 <= attempts <= ATTEMPTS_MAX:
            raise Refusal("flows.interrogation.error.attempts_range", max=ATTEMPTS_MAX)
        if await open_session(scope, KIND) is not None:
            raise Refusal("flows.interrogation.error.already_open")
        try:
            state = rules.open_interrogation(
                Subject(name, fm, reluctant, (texts[0], texts[1], texts[2], texts[3])),
                mode=Mode(mode),
                discreet=discreet,
                attempts=attempts,
            )
        except InterrogationError as exc:
            raise Refusal(f"flows.interrogation.error.{exc.code}") from None
        row = new_session(scope, KIND, name, state.to_dict())
        await scope.session.flush()
        intro = t(ctx, caller, "flows.interrogation.opened", gm=f"<@{caller.user_id}>")
        board = _board(ctx, caller, row.id, state, intro=intro)
        summary = _gm_summary(ctx, caller, row.id, state)
        extra = {"summary": summary, "gm_channel_id": scope.config.gm_channel_id}
        return FlowResult(board, session_id=row.id, extra=extra)

    result = await run(ctx, caller, work)
    summary = result.extra.get("summary")
    if isinstance(summary, Reply):
        reply = result.reply
        return FlowResult(
            # Every secret result goes to the same place: the GM channel when one is set.
            replace(reply, also=(_to_gm(summary, result.extra.get("gm_channel_id"), caller.user_id),)),
            session_id=result.session_id,
        )
    return result


def _to_gm(reply: Reply, gm_channel_id: object, gm_id: int) -> Delivery:
    if isinstance(gm_channel_id, int):
        return Delivery(reply, channel_id=gm_channel_id)
    return Delivery(reply, user_id=gm_id)


async def _target(scope: Scope, skill: str, given: int | None, character: str | None) -> int:
    if given is not None:
        return given
    sheet = await character_of(scope, character)
    if sheet is None:
        raise Refusal("flows.interrogation.error.no_target", skill=SKILLS[skill][0])
    name, characteristic, basic = SKILLS[skill]
    value = skill_target(sheet, name, characteristic, basic=basic)
    if value is None:
        raise Refusal("flows.interrogation.error.no_skill", name=sheet.name, skill=name)
    return value


async def question(
    ctx: AppContext,
    caller: Caller,
    *,
    session_id: int | None = None,
    method: str = "intimidation",
    torture: bool = False,
    target: int | None = None,
    rolls: str | None = None,
    fm_rolls: str | None = None,
    torture_target: int | None = None,
    torture_roll: int | None = None,
    character: str | None = None,
) -> FlowResult:
    """One questioning (standard mode) or one attempt (extended mode)."""

    async def work(scope: Scope) -> FlowResult:
        row = await (session_by_id(scope, KIND, session_id) if session_id else require_open(scope, KIND))
        state = _state(row)
        mine, theirs = parse_rolls(rolls, option="roll"), parse_rolls(fm_rolls, option="wp_roll")
        if len(state.revealed) >= len(rules.TIERS):
            raise Refusal("flows.interrogation.error.all_revealed")
        approach = Approach.CHARISME if state.discreet else Approach(method)
        if not state.discreet and approach is Approach.CHARISME:
            raise Refusal("flows.interrogation.error.not_discreet")
        if torture and state.discreet:
            raise Refusal("flows.interrogation.error.no_torture_discreet")
        who = f"<@{caller.user_id}>"
        if state.mode is Mode.EXTENDED:
            skill = "torture" if torture else approach.value
            value = await _target(scope, skill, torture_target if torture else target, character)
            roll = d100(torture_roll if torture else (mine[0] if mine else None))
            try:
                attempt = rules.extended_attempt(
                    state.revealed,
                    state.attempts_left,
                    skill,
                    value,
                    discreet=state.discreet,
                    rng=None if roll is not None else ctx.rng,
                    roll=roll,
                )
            except InterrogationError as exc:
                raise Refusal(f"flows.interrogation.error.{exc.code}") from None
            new = state.reveal([attempt.tier] if attempt.tier is not None else [])
            state.history.append({"kind": "extended", "by": str(caller.user_id), **attempt.to_dict()})
            details = [_detail(ctx, caller, skill, attempt.result)]
            secret: dict[str, Any] = {"attempt": attempt.to_dict()}
        else:
            value = await _target(scope, approach.value, target, character)
            tvalue = None
            if torture:
                tvalue = await _target(scope, "torture", torture_target, character)
            # Every die entered by hand: no random source (both failing then asks to roll again).
            by_hand = bool(mine) and (bool(theirs) or not state.subject.reluctant)
            try:
                questioning = rules.question(
                    state.subject,
                    approach,
                    value,
                    rng=None if by_hand else ctx.rng,
                    rolls=mine,
                    fm_rolls=theirs,
                    torture_target=tvalue,
                    torture_roll=d100(torture_roll),
                )
            except InterrogationError as exc:
                raise Refusal(f"flows.interrogation.error.{exc.code}") from None
            if questioning.pending:
                last_test, last_fm = questioning.rounds[-1]
                tie = last_test.success and last_fm is not None and last_fm.success
                raise Refusal(f"flows.interrogation.error.{'tie' if tie else 'both_failed'}")
            new = state.reveal(questioning.tiers)
            state.history.append({"kind": "questioning", "by": str(caller.user_id), **questioning.to_dict()})
            details = []
            for number, (test, fm) in enumerate(questioning.rounds, start=1):
                line = f"{number}. {_detail(ctx, caller, approach.value, test)}"
                if fm is not None:
                    line += f"\n   FM : {roll_line(ctx, caller, fm)}"
                details.append(line)
            if questioning.torture is not None:
                details.append(_detail(ctx, caller, "torture", questioning.torture))
            if questioning.lost:
                lost_key = "lost_torture" if questioning.torture is not None else "lost"
                details.append(t(ctx, caller, f"flows.interrogation.{lost_key}"))
            elif questioning.net_degrees is not None:
                details.append(t(ctx, caller, "flows.interrogation.net", net=questioning.net_degrees))
            secret = {"questioning": questioning.to_dict()}
        save_state(row, state.to_dict())
        if new:
            intro = t(ctx, caller, "flows.interrogation.says", who=who, subject=state.subject.name)
            said = _revealed_text(ctx, caller, state, list(new))
        else:
            intro = t(ctx, caller, "flows.interrogation.silent", who=who, subject=state.subject.name)
            said = ""
        public = _board(ctx, caller, row.id, state, intro=intro + ("\n" + said if said else ""))
        public_result = dict(public.result or {})
        public_result["new"] = list(new)
        gm_reply = Reply(
            title=t(ctx, caller, "flows.interrogation.gm_roll_title", subject=state.subject.name),
            description="\n".join(details),
            fields=(
                Field(
                    t(ctx, caller, "flows.interrogation.revealed"),
                    ", ".join(str(x) for x in state.revealed) or "—",
                ),
            ),
            footer=t(ctx, caller, "flows.interrogation.gm_footer", id=row.id),
            colour=Colour.SECRET,
            kind="interrogation_secret",
            result={
                "session_id": row.id,
                "by": str(caller.user_id),
                "new": list(new),
                "revealed": list(state.revealed),
                **secret,
            },
        )
        public = replace(
            public,
            result=public_result,
            footer=(public.footer or "") + " · " + t(ctx, caller, "flows.interrogation.secret_note"),
            also=(_to_gm(gm_reply, scope.config.gm_channel_id, row.owner_id),),
        )
        return FlowResult(public, session_id=row.id)

    return await run(ctx, caller, work)


async def show(ctx: AppContext, caller: Caller, *, session_id: int | None = None) -> FlowResult:
    async def work(scope: Scope) -> FlowResult:
        row = await (session_by_id(scope, KIND, session_id) if session_id else require_open(scope, KIND))
        state = _state(row)
        if scope.gm:
            return FlowResult(_gm_summary(ctx, caller, row.id, state), session_id=row.id)
        board = _board(ctx, caller, row.id, state, intro="")
        return FlowResult(replace(board, ephemeral=True, buttons=()), session_id=row.id)

    return await run(ctx, caller, work)


async def close(ctx: AppContext, caller: Caller, *, session_id: int | None = None) -> FlowResult:
    async def work(scope: Scope) -> FlowResult:
        require_gm(scope)
        row = await (session_by_id(scope, KIND, session_id) if session_id else require_open(scope, KIND))
        row.closed = True
        state = _state(row)
        return FlowResult(
            Reply(
                title=t(ctx, caller, "flows.interrogation.title", subject=state.subject.name),
                description=t(ctx, caller, "flows.interrogation.closed"),
                fields=(
                    Field(
                        t(ctx, caller, "flows.interrogation.revealed"),
                        _revealed_text(ctx, caller, state, state.revealed),
                    ),
                ),
                colour=Colour.NEUTRAL,
                kind="interrogation_closed",
                result={"session_id": row.id, "closed": True, "revealed": list(state.revealed)},
            ),
            session_id=row.id,
        )

    return await run(ctx, caller, work)
