"""Rows ↔ plain objects. Atomic updates where concurrent writers could meet."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.base import utcnow
from bot.db.models import ChannelSettings, GuildSettings

RULESETS = ("renove", "v1", "d20", "ogl")
DEFAULT_RULESET = "renove"


@dataclass(frozen=True, slots=True)
class ServerConfig:
    guild_id: int
    ruleset: str = DEFAULT_RULESET
    gm_role_id: int | None = None
    gm_channel_id: int | None = None
    locale: str | None = None
    gm_user_id: int | None = None


def _config(row: GuildSettings | None, guild_id: int) -> ServerConfig:
    if row is None:
        return ServerConfig(guild_id=guild_id)
    return ServerConfig(
        guild_id=row.guild_id,
        ruleset=row.ruleset,
        gm_role_id=row.gm_role_id,
        gm_channel_id=row.gm_channel_id,
        locale=row.locale,
        gm_user_id=row.gm_user_id,
    )


async def get_server_config(session: AsyncSession, guild_id: int) -> ServerConfig:
    return _config(await session.get(GuildSettings, guild_id), guild_id)


async def _guild_row(session: AsyncSession, guild_id: int) -> GuildSettings:
    row = await session.get(GuildSettings, guild_id)
    if row is not None:
        return row
    # Two first writes at once on a new server race on this insert: let the database settle it.
    insert: Any = sqlite_insert
    if session.get_bind().dialect.name == "postgresql":
        # Imported here: the PostgreSQL dialect is a quarter of SQLAlchemy's import time and memory.
        from sqlalchemy.dialects.postgresql import insert
    now = utcnow()
    await session.execute(
        insert(GuildSettings)
        .values(guild_id=guild_id, ruleset=DEFAULT_RULESET, created_at=now, updated_at=now, version=1)
        .on_conflict_do_nothing(index_elements=["guild_id"])
    )
    row = await session.get(GuildSettings, guild_id)
    assert row is not None
    return row


async def update_server_config(
    session: AsyncSession,
    guild_id: int,
    *,
    ruleset: str | None = None,
    gm_role_id: int | None = None,
    gm_channel_id: int | None = None,
    clear_gm_channel: bool = False,
    gm_user_id: int | None = None,
) -> ServerConfig:
    row = await _guild_row(session, guild_id)
    if ruleset is not None:
        row.ruleset = ruleset
    if gm_role_id is not None:
        row.gm_role_id = gm_role_id
    if gm_channel_id is not None:
        row.gm_channel_id = gm_channel_id
    if clear_gm_channel:
        row.gm_channel_id = None
    if gm_user_id is not None:
        row.gm_user_id = gm_user_id
    await session.flush()
    return _config(row, guild_id)


async def channel_ruleset(session: AsyncSession, channel_ids: list[int]) -> str | None:
    """The first override among ``channel_ids`` (a thread, then its parent channel)."""
    if not channel_ids:
        return None
    rows = (
        await session.scalars(select(ChannelSettings).where(ChannelSettings.channel_id.in_(channel_ids)))
    ).all()
    by_id = {row.channel_id: row.ruleset for row in rows}
    for channel_id in channel_ids:
        if channel_id in by_id:
            return by_id[channel_id]
    return None


async def ruleset_in_force(session: AsyncSession, guild_id: int | None, channel_ids: list[int]) -> str:
    override = await channel_ruleset(session, channel_ids)
    if override is not None:
        return override
    if guild_id is None:
        return DEFAULT_RULESET
    return (await get_server_config(session, guild_id)).ruleset


async def set_channel_ruleset(
    session: AsyncSession, guild_id: int, channel_id: int, ruleset: str | None
) -> None:
    await _guild_row(session, guild_id)
    row = await session.get(ChannelSettings, channel_id)
    if ruleset is None:
        if row is not None:
            await session.delete(row)
        return
    if row is None:
        session.add(ChannelSettings(channel_id=channel_id, guild_id=guild_id, ruleset=ruleset))
    else:
        row.ruleset = ruleset
    await session.flush()
