"""``/poursuite`` (``/chase``): one fugitive, pursuers, round by round, with a live board.

The board is a message the bot edits after every move; its buttons roll for the clicker's own
runners (the GM's: every runner without a player). Every roll can also be typed by hand.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from sqlalchemy import update

from bot.context import AppContext
from bot.db.flow_models import GameSession
from bot.rules.renove import chase as rules
from bot.rules.renove.chase import ChaseError, ChaseState, Phase, Role, Runner
from bot.services.caller import Caller
from bot.services.flows.common import (
    SESSION_ID_MAX,
    Board,
    FlowResult,
    Refusal,
    Scope,
    character_of,
    custom_id,
    d100,
    new_session,
    open_session,
    require_gm,
    require_open,
    roll_line,
    run,
    save_state,
    session_by_id,
    t,
)
from bot.services.talent_book import talent_book
from bot.ui.reply import Button, ButtonStyle, Colour, Field, Reply

KIND: Final = "chase"
FLOW: Final = "chase"
NAME_MAX: Final = 40
LEAD_MAX: Final = 1000


def _state(row: GameSession) -> ChaseState:
    return ChaseState.from_dict(row.state)


def _refuse(exc: ChaseError) -> Refusal:
    return Refusal(f"flows.chase.error.{exc.code}", **exc.params)


def _name(state: ChaseState, runner_id: str) -> str:
    return next((r.name for r in state.runners if r.id == runner_id), runner_id)


def _runner_line(ctx: AppContext, caller: Caller, state: ChaseState, runner: Runner) -> str:
    role = t(ctx, caller, f"flows.chase.role.{runner.role.value}")
    bits = [f"**{runner.name}** ({role}, M {runner.effective_m(state.round)})"]
    if runner.out:
        bits.append(t(ctx, caller, "flows.chase.status.out"))
    elif runner.role is Role.PURSUER:
        bits.append(t(ctx, caller, "flows.chase.gap", gap=state.gap(runner)))
    if runner.endurance_failures:
        bits.append(t(ctx, caller, "flows.chase.exhausted", count=runner.endurance_failures))
    if not runner.out and state.phase is Phase.MOVEMENT:
        key = "flows.chase.status.moved" if runner.moved is not None else "flows.chase.status.to_move"
        bits.append(t(ctx, caller, key))
    if not runner.out and runner.endurance_due:
        bits.append(t(ctx, caller, "flows.chase.status.endurance_due"))
    return " · ".join(bits)


def board_reply(ctx: AppContext, caller: Caller, row: GameSession, state: ChaseState) -> Reply:
    lines = [_runner_line(ctx, caller, state, r) for r in state.runners]
    if state.phase is Phase.OVER:
        status = t(ctx, caller, f"flows.chase.ending.{state.ending.value if state.ending else 'ended'}")
    elif not state.runners:
        status = t(ctx, caller, "flows.chase.waiting_runners")
    else:
        waiting = ", ".join(r.name for r in state.waiting_for()) or "—"
        status = t(ctx, caller, f"flows.chase.phase.{state.phase.value}", names=waiting)
    over = state.phase is Phase.OVER
    buttons = (
        Button(
            t(ctx, caller, "flows.chase.button.run"),
            custom_id(FLOW, "run", row.id),
            ButtonStyle.PRIMARY,
            disabled=over or state.phase is not Phase.MOVEMENT,
        ),
        Button(
            t(ctx, caller, "flows.chase.button.endurance"),
            custom_id(FLOW, "endu", row.id),
            disabled=over or state.phase is not Phase.ENDURANCE,
        ),
        Button(
            t(ctx, caller, "flows.chase.button.end"),
            custom_id(FLOW, "end", row.id),
            ButtonStyle.DANGER,
            disabled=over,
        ),
    )
    return Reply(
        title=t(ctx, caller, "flows.chase.title", round=state.round),
        description="\n".join(lines) or t(ctx, caller, "flows.chase.no_runners"),
        fields=(Field(t(ctx, caller, "flows.chase.status"), status),),
        footer=t(ctx, caller, "flows.chase.footer", lead=state.initial_lead, id=row.id),
        colour=Colour.NEUTRAL if not over else Colour.INFO,
        buttons=(buttons,),
        kind="chase_board",
        result={"session_id": row.id, "chase": _public_state(state)},
    )


def _public_state(state: ChaseState) -> dict[str, Any]:
    data = state.to_dict()
    data.pop("log", None)
    data["gaps"] = {p.name: state.gap(p) for p in state.pursuers if not p.out}
    return data


def _board(ctx: AppContext, caller: Caller, row: GameSession, state: ChaseState) -> Board:
    return Board(board_reply(ctx, caller, row, state), row.channel_id, row.message_id)


def _movement_line(ctx: AppContext, caller: Caller, state: ChaseState, movement: rules.Movement) -> str:
    name = _name(state, movement.runner)
    test = movement.test
    text = f"**{name}** — {t(ctx, caller, 'flows.chase.movement', m=movement.effective_m)} : "
    text += roll_line(ctx, caller, test)
    if movement.modified_roll != test.roll:
        text += " " + t(ctx, caller, "flows.chase.modified_roll", roll=movement.modified_roll)
    if movement.ag_test is not None:
        text += (
            "\n   " + t(ctx, caller, "flows.chase.ag_test") + " : " + roll_line(ctx, caller, movement.ag_test)
        )
    if movement.out:
        text += "\n   " + t(ctx, caller, "flows.chase.out")
    elif movement.penalty:
        text += "\n   " + t(
            ctx, caller, "flows.chase.obstacle", penalty=movement.penalty, distance=movement.distance
        )
    else:
        text += "\n   " + t(ctx, caller, "flows.chase.distance", distance=movement.distance)
    return text


def _round_summary(ctx: AppContext, caller: Caller, state: ChaseState, report: dict[str, Any]) -> str:
    lines = [t(ctx, caller, "flows.chase.round_done", round=report["round"])]
    fugitive = state.fugitive
    for runner_id, gap in report["gaps"].items():
        before = report["gaps_before"].get(runner_id, gap)
        lines.append(
            t(
                ctx,
                caller,
                "flows.chase.gap_change",
                fugitive=fugitive.name if fugitive else "?",
                pursuer=_name(state, runner_id),
                gap=gap,
                change=f"{gap - before:+d}",
            )
        )
    if report.get("ending"):
        lines.append(t(ctx, caller, f"flows.chase.ending.{report['ending']}"))
    elif state.phase is Phase.ENDURANCE:
        lines.append(
            t(ctx, caller, "flows.chase.endurance_now", names=", ".join(r.name for r in state.waiting_for()))
        )
    return "\n".join(lines)


def _may_control(scope: Scope, runner: Runner) -> bool:
    return scope.gm or runner.owner_id == scope.caller.user_id


def _result(
    ctx: AppContext,
    caller: Caller,
    row: GameSession,
    state: ChaseState,
    *,
    title: str,
    lines: list[str],
    payload: dict[str, Any],
) -> FlowResult:
    save_state(row, state.to_dict())
    if state.phase is Phase.OVER:
        row.closed = True
    reply = Reply(
        title=title,
        description="\n".join(lines),
        colour=Colour.NEUTRAL,
        kind="chase",
        result={"session_id": row.id, **payload, "chase": _public_state(state)},
    )
    return FlowResult(reply, board=_board(ctx, caller, row, state), session_id=row.id)


# -- use cases -----------------------------------------------------------------------------


async def open_chase(ctx: AppContext, caller: Caller, *, lead: int) -> FlowResult:
    async def work(scope: Scope) -> FlowResult:
        require_gm(scope)
        if not 0 <= lead <= LEAD_MAX:
            raise Refusal("flows.chase.error.lead_range", max=LEAD_MAX)
        if await open_session(scope, KIND) is not None:
            raise Refusal("flows.chase.error.already_open")
        state = rules.new_chase(lead)
        row = new_session(scope, KIND, t(ctx, caller, "flows.chase.name"), state.to_dict())
        await scope.session.flush()
        return FlowResult(board_reply(ctx, caller, row, state), session_id=row.id)

    return await run(ctx, caller, work)


async def set_board_message(ctx: AppContext, caller: Caller, session_id: int, message_id: int) -> None:
    """Remember the board's message (once posted) so later moves can edit it."""

    async def work(scope: Scope) -> FlowResult:
        if not 0 < session_id <= SESSION_ID_MAX:
            return FlowResult(Reply())
        # A plain UPDATE: it leaves the version alone, so it never conflicts with a move.
        await scope.session.execute(
            update(GameSession)
            .where(GameSession.id == session_id, GameSession.guild_id == scope.guild_id)
            .values(message_id=message_id)
        )
        return FlowResult(Reply())

    await run(ctx, caller, work)


async def add_runner(
    ctx: AppContext,
    caller: Caller,
    *,
    role: str,
    name: str | None = None,
    character: str | None = None,
    m: int | None = None,
    be: int | None = None,
    e: int | None = None,
    ag: int | None = None,
    flee: bool | None = None,
) -> FlowResult:
    async def work(scope: Scope) -> FlowResult:
        row = await require_open(scope, KIND)
        state = _state(row)
        owner: int | None = None
        values: dict[str, int | None] = {"M": m, "BE": be, "E": e, "Ag": ag}
        talent = bool(flee)
        label = " ".join((name or "").split())[:NAME_MAX]
        use_sheet = character is not None or any(v is None for v in values.values())
        if use_sheet:
            sheet = await character_of(scope, character)
            if sheet is None:
                if not scope.gm:
                    raise Refusal("flows.chase.error.no_character")
                missing = [k for k, v in values.items() if v is None]
                raise Refusal("flows.chase.error.missing_stats", stats=", ".join(missing))
            stats = sheet.characteristics
            for key in values:
                if values[key] is None:
                    if key == "BE" and "BE" not in stats and "E" in stats:
                        values[key] = int(stats["E"]) // 10
                    elif key in stats:
                        values[key] = int(stats[key])
                    else:
                        raise Refusal("flows.chase.error.missing_stats", stats=key)
            if flee is None:
                bonuses = talent_book(ctx).effects_of(sheet.talents, "chase_bonus")  # Fuite
                talent = any(effect.get("role") == role for _, effect in bonuses)
            label = label or sheet.name[:NAME_MAX]
            owner = None if sheet.is_npc else sheet.owner_id
        elif not scope.gm:
            raise Refusal("flows.chase.error.gm_for_npc")
        if not label:
            raise Refusal("flows.chase.error.no_name")
        if not scope.gm and owner != scope.caller.user_id:
            raise Refusal("flows.chase.error.not_yours")
        try:
            runner = rules.add_runner(
                state,
                label,
                Role(role),
                M=int(values["M"] or 0),
                BE=int(values["BE"] or 0),
                E=int(values["E"] or 0),
                Ag=int(values["Ag"] or 0),
                flee_talent=talent,
                owner_id=owner,
            )
        except ChaseError as exc:
            raise _refuse(exc) from None
        line = t(
            ctx,
            caller,
            "flows.chase.added",
            name=runner.name,
            role=t(ctx, caller, f"flows.chase.role.{runner.role.value}"),
            m=runner.M,
            be=runner.BE,
            e=runner.E,
            ag=runner.Ag,
        )
        if runner.flee_talent:
            line += " · " + t(ctx, caller, "flows.chase.flee", rounds=rules.half_up(runner.BE))
        return _result(
            ctx,
            caller,
            row,
            state,
            title=t(ctx, caller, "flows.chase.name"),
            lines=[line],
            payload={"added": runner.to_dict()},
        )

    return await run(ctx, caller, work)


def _move(
    ctx: AppContext,
    caller: Caller,
    state: ChaseState,
    runner: Runner,
    *,
    roll: int | None,
    try_ag: bool,
    ag_roll: int | None,
) -> tuple[list[str], dict[str, Any]]:
    try:
        # Dice typed by hand win; the random source rolls whatever was not typed.
        movement = rules.move(state, runner.id, rng=ctx.rng, roll=roll, try_ag=try_ag, ag_roll=ag_roll)
    except ChaseError as exc:
        raise _refuse(exc) from None
    lines = [_movement_line(ctx, caller, state, movement)]
    payload: dict[str, Any] = {"movements": [movement.to_dict()]}
    if rules.round_complete(state):
        report = rules.resolve_round(state)
        lines.append(_round_summary(ctx, caller, state, report))
        payload["round"] = report
    return lines, payload


async def move(
    ctx: AppContext,
    caller: Caller,
    *,
    name: str,
    roll: int | None = None,
    try_ag: bool = False,
    ag_roll: int | None = None,
) -> FlowResult:
    async def work(scope: Scope) -> FlowResult:
        row = await require_open(scope, KIND)
        state = _state(row)
        try:
            runner = state.runner(name)
        except ChaseError as exc:
            raise _refuse(exc) from None
        if not _may_control(scope, runner):
            raise Refusal("flows.chase.error.not_your_runner", name=runner.name)
        the_roll, the_ag = d100(roll), d100(ag_roll)
        if the_roll is None and the_ag is not None:
            raise Refusal("flows.chase.error.ag_without_roll")
        lines, payload = _move(ctx, caller, state, runner, roll=the_roll, try_ag=try_ag, ag_roll=the_ag)
        title = t(ctx, caller, "flows.chase.round_title", round=payload["movements"][0]["round"])
        return _result(ctx, caller, row, state, title=title, lines=lines, payload=payload)

    return await run(ctx, caller, work)


def _endurance(
    ctx: AppContext, caller: Caller, state: ChaseState, runner: Runner, roll: int | None
) -> tuple[str, dict[str, Any]]:
    try:
        test = rules.endurance(state, runner.id, rng=ctx.rng, roll=roll)
    except ChaseError as exc:
        raise _refuse(exc) from None
    label = t(ctx, caller, "flows.chase.endurance_test")
    line = f"**{runner.name}** — {label} : {roll_line(ctx, caller, test.test)}"
    if not test.test.success:
        line += "\n   " + t(ctx, caller, "flows.chase.endurance_failed", count=runner.endurance_failures)
    else:
        line += "\n   " + t(ctx, caller, "flows.chase.endurance_passed")
    return line, test.to_dict()


async def endurance(ctx: AppContext, caller: Caller, *, name: str, roll: int | None = None) -> FlowResult:
    async def work(scope: Scope) -> FlowResult:
        row = await require_open(scope, KIND)
        state = _state(row)
        try:
            runner = state.runner(name)
        except ChaseError as exc:
            raise _refuse(exc) from None
        if not _may_control(scope, runner):
            raise Refusal("flows.chase.error.not_your_runner", name=runner.name)
        title = t(ctx, caller, "flows.chase.endurance_title", round=state.round)
        line, payload = _endurance(ctx, caller, state, runner, d100(roll))
        lines = [line]
        if state.phase is Phase.MOVEMENT:
            lines.append(t(ctx, caller, "flows.chase.next_round", round=state.round))
        return _result(ctx, caller, row, state, title=title, lines=lines, payload={"endurance": [payload]})

    return await run(ctx, caller, work)


async def click(ctx: AppContext, caller: Caller, *, session_id: int, action: str) -> FlowResult:
    """A board button: roll for every runner the clicker controls that still has to act."""

    async def work(scope: Scope) -> FlowResult:
        row = await session_by_id(scope, KIND, session_id)
        state = _state(row)
        if action == "end":
            require_gm(scope)
            return _end(ctx, caller, row, state)
        mine = [
            r
            for r in state.waiting_for()
            if (r.owner_id is None and scope.gm) or r.owner_id == caller.user_id
        ]
        if not mine:
            raise Refusal("flows.chase.error.nothing_to_roll")
        lines: list[str] = []
        payload: dict[str, Any] = {"movements": [], "endurance": []}
        title = t(ctx, caller, "flows.chase.round_title", round=state.round)
        for runner in mine:
            if action == "run":
                more, extra = _move(ctx, caller, state, runner, roll=None, try_ag=False, ag_roll=None)
                payload["movements"] += extra["movements"]
                if "round" in extra:
                    payload["round"] = extra["round"]
                lines += more
            else:
                if not lines:
                    title = t(ctx, caller, "flows.chase.endurance_title", round=state.round)
                line, extra_e = _endurance(ctx, caller, state, runner, None)
                payload["endurance"].append(extra_e)
                lines.append(line)
                if state.phase is Phase.MOVEMENT:
                    lines.append(t(ctx, caller, "flows.chase.next_round", round=state.round))
        return _result(ctx, caller, row, state, title=title, lines=lines, payload=payload)

    return await run(ctx, caller, work)


def _end(ctx: AppContext, caller: Caller, row: GameSession, state: ChaseState) -> FlowResult:
    try:
        rules.end(state)
    except ChaseError as exc:
        raise _refuse(exc) from None
    lines = [t(ctx, caller, "flows.chase.ending.ended")]
    lines += [
        t(ctx, caller, "flows.chase.final_gap", pursuer=p.name, gap=state.gap(p))
        for p in state.pursuers
        if not p.out
    ]
    return _result(
        ctx,
        caller,
        row,
        state,
        title=t(ctx, caller, "flows.chase.name"),
        lines=lines,
        payload={"ended": True},
    )


async def end(ctx: AppContext, caller: Caller) -> FlowResult:
    async def work(scope: Scope) -> FlowResult:
        require_gm(scope)
        row = await require_open(scope, KIND)
        return _end(ctx, caller, row, _state(row))

    return await run(ctx, caller, work)


async def show(ctx: AppContext, caller: Caller) -> FlowResult:
    async def work(scope: Scope) -> FlowResult:
        row = await require_open(scope, KIND)
        reply = board_reply(ctx, caller, row, _state(row))
        return FlowResult(replace(reply, ephemeral=True, buttons=()), session_id=row.id)

    return await run(ctx, caller, work)
