"""``/fortune`` and ``/destin`` (``/fate``): show and spend the points on the character sheet.

Fortune points and PD (Points de Destin) live in the sheet's characteristics (renove; PF there are
Points de Folie); the row's version guards the write. Fortune refills to PD at each new session, as
in WFRP 2e: the GM's ``/fortune usage:recharger`` does it, for one character or for the whole table.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Final

from bot.context import AppContext
from bot.db import characters as repo
from bot.db.models import Character
from bot.rules.checks.common import CheckResult, Modifier
from bot.rules.renove import fortune as rules
from bot.rules.renove.fortune import DestinyAgainst, FortuneUse, PointsError
from bot.rules.wounds import WoundSheet
from bot.services.caller import Caller
from bot.services.fights.wounds import revive_in_fights
from bot.services.flows.common import Board, FlowResult, Refusal, Scope, d100, roll_line, run, t
from bot.ui import checks_render as render
from bot.ui.reply import Button, ButtonStyle, Colour, Field, Reply

FORTUNE: Final = "Fortune"
# « Relancer (Fortune) » under a failed /test: the character, its sheet's version when the test was
# made (a second click, or a sheet changed since, is refused), the target's base and modifier, the roll.
REROLL_PATTERN: Final = (
    r"melee:fortune:reroll:(?P<cid>[0-9]{1,18}):(?P<version>[0-9]{1,9}):"
    r"(?P<base>-?[0-9]{1,3}):(?P<mod>-?[0-9]{1,3}):(?P<roll>[0-9]{1,3})"
)
_REROLL_RE: Final = re.compile(REROLL_PATTERN)
MOD_LABEL: Final = "tests.modifier.mod"
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


# -- « Relancer (Fortune) » under a failed test ----------------------------------------------


def reroll_offered(result: CheckResult, sheet: Any, *, secret: bool) -> bool:
    """A failed `renove` test of a player's `renove` character with a Fortune point, shown to the
    table, not a 99-00 (a critical failure cannot be avoided with Fortune)."""
    return (
        sheet is not None
        and not secret
        and not result.success
        and result.roll not in (99, 100)
        and getattr(sheet, "ruleset", None) == "renove"
        and not getattr(sheet, "is_npc", False)
        and int(sheet.characteristics.get(FORTUNE, 0)) > 0
    )


def reroll_button(ctx: AppContext, locale: str, result: CheckResult, sheet: Any) -> Button:
    base = result.modifiers[0].value if result.modifiers else result.target
    custom_id = f"melee:fortune:reroll:{sheet.id}:{sheet.version}:{base}:{result.target - base}:{result.roll}"
    return Button(
        label=ctx.catalog.t(locale, "flows.fortune.reroll_button"),
        custom_id=custom_id,
        style=ButtonStyle.SUCCESS,
        emoji="🍀",
    )


async def reroll_click(
    ctx: AppContext, caller: Caller, custom_id: str, *, title: str | None = None
) -> FlowResult:
    """The button: the character's owner alone spends a point (the row's version guards it, one
    transaction) and the same target is rolled again."""
    match = _REROLL_RE.fullmatch(custom_id)

    async def work(scope: Scope) -> FlowResult:
        if match is None:
            raise Refusal("flows.fortune.error.reroll_gone")
        row = await repo.get_row(scope.session, scope.guild_id, int(match["cid"]))
        if row is None:
            raise Refusal("flows.fortune.error.reroll_gone")
        if row.owner_id != caller.user_id:
            raise Refusal("flows.fortune.error.reroll_not_yours", name=row.name)
        if row.version != int(match["version"]):
            raise Refusal("flows.fortune.error.reroll_used", name=row.name)
        base, mod = int(match["base"]), int(match["mod"])
        try:
            spent = rules.spend_fortune(
                _points(row, FORTUNE),
                FortuneUse.REROLL,
                previous_roll=int(match["roll"]),
                target=base,
                modifiers=(Modifier(MOD_LABEL, mod),) if mod else (),
                rng=ctx.rng,
            )
        except PointsError as exc:
            raise Refusal(f"flows.fortune.error.{exc.code}") from None
        _set(row, FORTUNE, spent.left)
        await scope.session.flush()  # the version column: a concurrent click fails here
        assert spent.reroll is not None
        first, *rest = spent.reroll.modifiers  # the base, labelled by a key the renderer does not read
        result = replace(
            spent.reroll, modifiers=(Modifier(t(ctx, caller, str(first.label)), first.value), *rest)
        )
        shown = (title or "").removeprefix("🎲 ").strip() or t(ctx, caller, "tests.title_plain")
        lines = [
            t(ctx, caller, "flows.fortune.spent.reroll", name=row.name),
            render.check_line(ctx.catalog, caller.locale, result) + f"\n<@{caller.user_id}>",
        ]
        return FlowResult(
            Reply(
                title="🍀 " + t(ctx, caller, "flows.fortune.reroll_title", test=shown),
                description="\n".join(lines),
                fields=(*render.check_fields(ctx.catalog, caller.locale, result), *_fields(ctx, caller, row)),
                colour=render.colour_of(result),
                kind="fortune_reroll",
                result={"character": row.name, "character_id": row.id, **spent.to_dict()},
            )
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
