"""What a ``/lancer`` expression may name: the user's and the server's macros, the active character's
values. Read only when the expression names something (one short read-only session)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.context import AppContext
from bot.db.characters import CharacterSheet, get_active_character
from bot.db.macro_models import SERVER_OWNER, Macro
from bot.rules.renove.skills import SkillRefused, skill_score
from bot.rules.sheet_dice import SheetValues, fold, sheet_values
from bot.services.caller import Caller
from bot.services.skill_book import default_skill_book


async def macro_rows(session: AsyncSession, guild_id: int, owners: tuple[int, ...]) -> list[Macro]:
    query = select(Macro).where(Macro.guild_id == guild_id, Macro.owner_id.in_(owners))
    return list((await session.scalars(query.order_by(Macro.name_key))).all())


async def visible_macros(session: AsyncSession, guild_id: int, user_id: int) -> dict[str, str]:
    """Folded name → expression of the macros ``user_id`` may roll: his own over the server's."""
    rows = await macro_rows(session, guild_id, (SERVER_OWNER, user_id))
    found = {row.name_key: row.expression for row in rows if row.owner_id == SERVER_OWNER}
    found.update({row.name_key: row.expression for row in rows if row.owner_id != SERVER_OWNER})
    return found


def character_values(sheet: CharacterSheet) -> SheetValues:
    """The values an expression may name on ``sheet``: characteristics (codes and aliases), then the
    skills as a test reads them (renove: characteristic + mastery; d20: Inné + Acquis)."""
    skills: dict[str, int] = {}
    if sheet.ruleset == "renove":
        book = default_skill_book()
        for name in sheet.skills:
            try:
                skills[name] = skill_score(book, sheet.characteristics, sheet.skills, name).target
            except SkillRefused:
                continue
    elif sheet.ruleset == "d20":
        innate = {fold(k): v for k, v in sheet.skill_innate.items()}
        for name, acquired in sheet.skills.items():
            skills[name] = innate.get(fold(name), 0) + acquired
    else:
        skills = dict(sheet.skills)
    return sheet_values(sheet.name, sheet.ruleset, sheet.characteristics, skills)


async def roll_names(ctx: AppContext, caller: Caller) -> tuple[dict[str, str], CharacterSheet | None]:
    """The macros and the active character a roll naming something reads (one short read)."""
    assert caller.guild_id is not None
    async with ctx.sessions() as session:
        macros = await visible_macros(session, caller.guild_id, caller.user_id)
        sheet = await get_active_character(session, caller.guild_id, caller.user_id)
    return macros, sheet
