"""Autocomplete choices for fight commands."""

from __future__ import annotations

from sqlalchemy import select

from bot.context import AppContext
from bot.db.characters import (
    find_row,
    get_active_character,
)
from bot.db.fight_models import Fight
from bot.rules.combat.state import FightState
from bot.rules.sheets import fold
from bot.services.caller import Caller
from bot.services.fights.bestiary import template_choices


async def combatant_choices(ctx: AppContext, caller: Caller, current: str) -> list[tuple[str, str]]:
    if caller.guild_id is None:
        return []
    async with ctx.sessions() as session:
        rows = (
            await session.scalars(
                select(Fight).where(
                    Fight.guild_id == caller.guild_id,
                    Fight.status == "open",
                    (Fight.thread_id == caller.channel_id) | (Fight.parent_channel_id == caller.channel_id),
                )
            )
        ).all()
    wanted = fold(current)
    out: list[tuple[str, str]] = []
    for row in rows[:3]:
        for c in FightState.from_dict((row.state or {}).get("fight") or {}).combatants:
            if not wanted or wanted in fold(c.name):
                out.append((c.name, c.name))
    return out[:25]


async def who_choices(ctx: AppContext, caller: Caller, current: str) -> list[tuple[str, str]]:
    """``/combat ajouter``: the characters the caller may add, then the bestiary's templates."""
    from bot.services.characters import character_choices

    out = await character_choices(ctx, caller, current)
    out.extend(await template_choices(ctx, caller, current))  # the server's templates, the BF table's rows
    return out[:25]


async def active_name(ctx: AppContext, caller: Caller) -> str | None:
    if caller.guild_id is None:
        return None
    async with ctx.sessions() as session:
        sheet = await get_active_character(session, caller.guild_id, caller.user_id)
        row = await find_row(session, caller.guild_id, sheet.name) if sheet else None
    return row.name if row else None
