"""``/fortune`` and ``/destin`` (``/fate``): show and spend the points on the character sheet.

Fortune points and PD (Points de Destin) live in the sheet's characteristics (renove; PF there are
Points de Folie); the row's version guards the write. Fortune refills to PD at each new session, as
in WFRP 2e: the GM's ``/fortune usage:recharger`` does it, for one character or for the whole table.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from bot.context import AppContext
from bot.db import characters as repo
from bot.db.models import Character
from bot.rules.renove import fortune as rules
from bot.rules.renove.fortune import DestinyAgainst, FortuneUse, PointsError
from bot.rules.wounds import WoundSheet
from bot.services.caller import Caller
from bot.services.fights.wounds import revive_in_fights
from bot.services.flows.common import Board, FlowResult, Refusal, Scope, d100, roll_line, run, t
from bot.ui.reply import Colour, Field, Reply

FORTUNE: Final = "Fortune"
REFRESH: Final = "refresh"
DESTINY: Final = "PD"


async def _row(scope: Scope, name: str | None) -> Character:
    if name and name.strip():
        row = await repo.find_row(scope.session, scope.guild_id, name)
        if row is None:
            raise Refusal("flows.error.character_not_found", name=name.strip()[:64])
        if row.owner_id != scope.caller.user_id and not scope.gm:
            raise Refusal("flows.error.character_not_yours", name=row.name)
        return row
    row = await repo.active_row(scope.session, scope.guild_id, scope.caller.user_id)
    if row is None:
        raise Refusal("flows.fortune.error.no_character")
    return row


def _points(row: Character, code: str) -> int:
    return int((row.characteristics or {}).get(code, 0))


def _set(row: Character, code: str, value: int) -> None:
    values = dict(row.characteristics or {})
    values[code] = value
    row.characteristics = values


def _fields(ctx: AppContext, caller: Caller, row: Character) -> tuple[Field, ...]:
    fortune = t(ctx, caller, "flows.fortune.of", points=_points(row, FORTUNE), max=_points(row, DESTINY))
    return (
        Field(t(ctx, caller, "flows.fortune.pf"), fortune, inline=True),
        Field(t(ctx, caller, "flows.fortune.pd"), str(_points(row, DESTINY)), inline=True),
    )


async def _refresh(ctx: AppContext, caller: Caller, scope: Scope, character: str | None) -> FlowResult:
    """A new session: Fortune back to PD (the GM's), for one character or every `renove` one."""
    if not scope.gm:
        raise Refusal("flows.fortune.error.refresh_gm")
    rows = (
        [await _row(scope, character)] if character else await repo.renove_rows(scope.session, scope.guild_id)
    )
    lines = []
    for row in rows:
        _set(row, FORTUNE, _points(row, DESTINY))
        lines.append(t(ctx, caller, "flows.fortune.refreshed", name=row.name, points=_points(row, FORTUNE)))
    if not lines:
        raise Refusal("flows.fortune.error.nobody")
    return FlowResult(
        Reply(
            title=t(ctx, caller, "flows.fortune.refresh_title"),
            description="\n".join(lines)[:3900],
            colour=Colour.SUCCESS,
            kind="fortune",
            result={"refreshed": {row.name: _points(row, FORTUNE) for row in rows}},
        )
    )


async def fortune(
    ctx: AppContext,
    caller: Caller,
    *,
    use: str | None = None,
    character: str | None = None,
    target: int | None = None,
    previous_roll: int | None = None,
    roll: int | None = None,
    what: str | None = None,
) -> FlowResult:
    async def work(scope: Scope) -> FlowResult:
        if use == REFRESH:
            return await _refresh(ctx, caller, scope, character)
        row = await _row(scope, character)
        if use is None:
            return FlowResult(
                Reply(
                    title=t(ctx, caller, "flows.fortune.title", name=row.name),
                    fields=_fields(ctx, caller, row),
                    colour=Colour.INFO,
                    ephemeral=True,
                    kind="fortune",
                    result={"Fortune": _points(row, FORTUNE), "PD": _points(row, DESTINY)},
                )
            )
        try:
            spent = rules.spend_fortune(
                _points(row, FORTUNE),
                FortuneUse(use),
                previous_roll=previous_roll,
                target=target,
                rng=ctx.rng,
                roll=d100(roll),
            )
        except PointsError as exc:
            raise Refusal(f"flows.fortune.error.{exc.code}") from None
        _set(row, FORTUNE, spent.left)
        lines = [t(ctx, caller, f"flows.fortune.spent.{spent.use.value}", name=row.name)]
        if spent.reroll is not None:
            lines.append(roll_line(ctx, caller, spent.reroll))
        if what:
            lines.append(f"> {what[:200]}")
        if spent.needs_gm:
            lines.append(t(ctx, caller, "flows.fortune.gm_decides"))
        return FlowResult(
            Reply(
                title=t(ctx, caller, "flows.fortune.title", name=row.name),
                description="\n".join(lines),
                fields=_fields(ctx, caller, row),
                colour=Colour.SUCCESS,
                kind="fortune",
                result={"character": row.name, **spent.to_dict()},
            )
        )

    return await run(ctx, caller, work)


async def destiny(
    ctx: AppContext, caller: Caller, *, against: str, character: str | None = None, sequel: bool = False
) -> FlowResult:
    async def work(scope: Scope) -> FlowResult:
        row = await _row(scope, character)
        try:
            spent = rules.spend_destiny(_points(row, DESTINY), DestinyAgainst(against), with_sequel=sequel)
        except PointsError as exc:
            raise Refusal(f"flows.fortune.error.{exc.code}") from None
        _set(row, DESTINY, spent.left)
        _set(row, FORTUNE, min(_points(row, FORTUNE), spent.left))  # Fortune never exceeds PD
        lines = [t(ctx, caller, f"flows.fortune.destiny.{spent.against.value}", name=row.name)]
        board, saved = await _against_death(ctx, caller, scope, row, lines) if spent.is_death else (None, {})
        if spent.sequel_remains:
            lines.append(t(ctx, caller, "flows.fortune.destiny.sequel"))
        return FlowResult(
            Reply(
                title=t(ctx, caller, "flows.fortune.destiny_title", name=row.name),
                description="\n".join(lines),
                fields=_fields(ctx, caller, row),
                colour=Colour.CRITICAL_SUCCESS,
                kind="destiny",
                result={"character": row.name, **spent.to_dict(), **saved},
            ),
            board=board,
        )

    return await run(ctx, caller, work)


async def _against_death(
    ctx: AppContext, caller: Caller, scope: Scope, row: Character, lines: list[str]
) -> tuple[Board | None, dict[str, Any]]:
    """The point saves the character from a death already dealt: his fighter dead in an open fight
    gets back up (the tracker is edited) and a death written on his sheet is cleared; every wound
    and sequel stays (seed 000, "Points de destin")."""
    board = None
    saved: dict[str, Any] = {"revived_in_fight": None, "revived_on_sheet": False}
    revived = await revive_in_fights(ctx, caller, scope.session, row.id)
    if revived is not None:
        lines.append(t(ctx, caller, "flows.fortune.destiny.revived_fight", fighter=revived.fighter,
                       fight=revived.fight))  # fmt: skip
        saved["revived_in_fight"] = revived.fight
        if revived.thread_id is not None:
            board = Board(revived.tracker, revived.thread_id, revived.tracker_message_id)
    record = WoundSheet.from_dict(row.wounds)
    if record.dead is not None:
        row.wounds = replace(record, dead=None).to_dict()
        lines.append(t(ctx, caller, "flows.fortune.destiny.revived_sheet", name=row.name))
        saved["revived_on_sheet"] = True
    return board, saved
