"""``/config``: the ruleset in force (server, or one channel/thread), the GM role, the GM channel.

Rights: a GM (the configured GM role, else a role named "MJ"/"GM"…) or a member with Manage
Server. Where secret results go (:func:`secret_destination`):

1. the configured GM channel (``/config canal-mj``), if any;
2. otherwise a DM to the server owner — without the privileged members intent the bot cannot
   list who holds the GM role, and the owner can always be told apart.

Every secret result goes there (:func:`secret_delivery`): secret tests, secret ``/lancer`` rolls,
the full result of an opposed test whose sheets a player may not read. A GM who rolls a secret test
or roll himself sees the result privately (ephemeral) in every case.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from types import MappingProxyType

from sqlalchemy import BigInteger, cast, literal, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.context import AppContext
from bot.db.house_rules_models import HouseRuleTable
from bot.db.models import ChannelSettings, GuildSettings
from bot.db.repositories import (
    DEFAULT_RULESET,
    RULESETS,
    ServerConfig,
    channel_ruleset,
    get_server_config,
    set_channel_ruleset,
    update_server_config,
)
from bot.services.caller import Caller
from bot.services.errors import refusal_reply
from bot.ui.checks_render import ruleset_name
from bot.ui.reply import Colour, Delivery, Field, Reply

SCOPE_SERVER = "server"
SCOPE_CHANNEL = "channel"
SCOPES = (SCOPE_SERVER, SCOPE_CHANNEL)
# How long this process may keep using a server's settings changed by ANOTHER process (shards on one
# PostgreSQL). A change made through this process is seen by the very next command.
CONFIG_TTL_SECONDS = 5.0
# An entry used in its last fifth is read again in the background, the command served at once from
# the (still valid) entry: under steady load an entry never expires, so no command waits for a read
# (20-30 ms of one under load, for every command in flight at that moment: a p99 bump every 5 s).
REFRESH_AHEAD_FRACTION = 0.2
CACHE_MAX_ENTRIES = 100_000


# A server's house-rule table: (row id, version, upload time) — what keys the merged document's
# cache in :mod:`bot.services.house_rules`.
HouseRuleStamp = tuple[int, int, datetime]
NO_HOUSE_RULES: Mapping[str, HouseRuleStamp] = MappingProxyType({})

_ReadKey = tuple[int, int | None, tuple[int, ...]]
_GuildEntry = tuple[ServerConfig, Mapping[str, HouseRuleStamp]]
_ReadResult = tuple[float, _GuildEntry | None, dict[int, str | None]]  # (started, …)


@dataclass(frozen=True, slots=True)
class InForce:
    """What a command needs to know about where it runs, from :class:`ConfigCache`."""

    config: ServerConfig | None  # None outside a server
    ruleset: str
    house_rules: Mapping[str, HouseRuleStamp]  # the tables this server overrides (usually none)


class ConfigCache:
    """This process's copy of the servers' settings, channel rulesets and the names (and stamps)
    of the tables each server overrides with house rules, read by the hot commands (``/test`` …)
    without a database round trip.

    Every write of this module and of :mod:`bot.services.house_rules` clears it after its commit;
    an entry older than ``ttl`` is read again (the bound for changes made by another process).
    A read that overlaps a clear is not stored (generation count), so a value read before a
    change cannot outlive the change.
    Concurrent misses of the same entries share one read (no stampede when an entry expires
    under load); a read started before a clear is never shared with a command after it.
    An entry near its end is refreshed in the background (``REFRESH_AHEAD_FRACTION``); the bound is
    unchanged, every entry still expires ``ttl`` after its read started.
    """

    def __init__(
        self, ttl: float = CONFIG_TTL_SECONDS, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.ttl = ttl
        self._clock = clock
        self._guilds: dict[int, tuple[float, _GuildEntry]] = {}
        self._channels: dict[int, tuple[float, str | None]] = {}
        self._generation = 0
        self._inflight: dict[_ReadKey, asyncio.Future[_ReadResult]] = {}
        self.reads = 0  # database reads made (hits are free)

    def invalidate(self) -> None:
        """Forget everything (settings writes are rare; a clear is obviously correct)."""
        self._generation += 1
        self._guilds.clear()
        self._channels.clear()

    async def in_force(
        self, sessions: async_sessionmaker[AsyncSession], guild_id: int | None, channel_ids: list[int]
    ) -> tuple[ServerConfig | None, str]:
        """The server's settings (None outside a server) and the ruleset in force in the channel
        chain (thread, then parent; else the server's; else the default)."""
        found = await self.settings(sessions, guild_id, channel_ids)
        return found.config, found.ruleset

    async def settings(
        self, sessions: async_sessionmaker[AsyncSession], guild_id: int | None, channel_ids: list[int]
    ) -> InForce:
        """:meth:`in_force`, and the tables the server overrides with house rules."""
        now = self._clock()
        refresh_from = now + self.ttl * REFRESH_AHEAD_FRACTION
        ageing = False  # a hit in its last fifth
        guild: _GuildEntry | None = None
        if guild_id is not None:
            hit = self._guilds.get(guild_id)
            if hit is not None and hit[0] > now:
                guild = hit[1]
                ageing = hit[0] <= refresh_from
        overrides: dict[int, str | None] = {}
        for channel_id in channel_ids:
            cached = self._channels.get(channel_id)
            if cached is not None and cached[0] > now:
                overrides[channel_id] = cached[1]
                ageing = ageing or cached[0] <= refresh_from
        missing = [c for c in channel_ids if c not in overrides]
        if ageing and not missing and (guild_id is None or guild is not None):
            self._refresh(sessions, guild_id, channel_ids)
        if missing or (guild_id is not None and guild is None):
            generation = self._generation
            key: _ReadKey = (generation, guild_id if guild is None else None, tuple(missing))
            read = self._inflight.get(key)
            if read is None:
                read = self._inflight[key] = asyncio.ensure_future(self._read(sessions, key[1], missing))
                read.add_done_callback(lambda _: self._inflight.pop(key, None))
            started, read_guild, read_overrides = await asyncio.shield(read)
            guild = guild or read_guild
            overrides.update(read_overrides)
            if generation == self._generation:
                self._store(started + self.ttl, read_guild, read_overrides)
        config, house_rules = guild if guild is not None else (None, NO_HOUSE_RULES)
        ruleset = config.ruleset if config is not None else DEFAULT_RULESET
        for channel_id in channel_ids:
            override = overrides.get(channel_id)
            if override is not None:
                ruleset = override
                break
        return InForce(config, ruleset, house_rules)

    def _refresh(
        self, sessions: async_sessionmaker[AsyncSession], guild_id: int | None, channel_ids: list[int]
    ) -> None:
        """Read these entries again in the background (once: a miss meanwhile shares the read)."""
        generation = self._generation
        key: _ReadKey = (generation, guild_id, tuple(channel_ids))
        if key in self._inflight:
            return
        read = self._inflight[key] = asyncio.ensure_future(self._read(sessions, guild_id, list(channel_ids)))

        def stored(done: asyncio.Future[_ReadResult]) -> None:
            self._inflight.pop(key, None)
            if done.cancelled() or done.exception() is not None:
                return  # the entry expires as it would have; the next command reads it again
            started, read_guild, read_overrides = done.result()
            if generation == self._generation:
                self._store(started + self.ttl, read_guild, read_overrides)

        read.add_done_callback(stored)

    async def _read(
        self, sessions: async_sessionmaker[AsyncSession], guild_id: int | None, channel_ids: list[int]
    ) -> _ReadResult:
        self.reads += 1
        started = self._clock()
        guild: _GuildEntry | None = None
        overrides: dict[int, str | None] = dict.fromkeys(channel_ids)
        async with sessions() as session:  # read only: plain selects, no ORM objects
            if guild_id is not None:
                guild = await _read_guild(session, guild_id)
            if channel_ids:
                rows = await session.execute(
                    select(ChannelSettings.channel_id, ChannelSettings.ruleset).where(
                        ChannelSettings.channel_id.in_(channel_ids)
                    )
                )
                overrides.update({row.channel_id: row.ruleset for row in rows})
        return started, guild, overrides

    def _store(self, expires: float, guild: _GuildEntry | None, overrides: dict[int, str | None]) -> None:
        if len(self._guilds) + len(self._channels) + len(overrides) + 1 > CACHE_MAX_ENTRIES:
            self._guilds.clear()
            self._channels.clear()
        if guild is not None:
            self._guilds[guild[0].guild_id] = (expires, guild)
        for channel_id, ruleset in overrides.items():
            self._channels[channel_id] = (expires, ruleset)


async def _read_guild(session: AsyncSession, guild_id: int) -> _GuildEntry:
    """The settings and the house-rule stamps in ONE statement: a one-row anchor (the guild id)
    outer-joined to its settings (one row or none) and its house-rule tables (none, usually),
    so a server without house rules costs exactly what its settings alone did."""
    anchor = select(cast(literal(guild_id), BigInteger).label("guild_id")).subquery()
    rows = (
        await session.execute(
            select(
                GuildSettings.guild_id.label("settings_of"),
                GuildSettings.ruleset,
                GuildSettings.gm_role_id,
                GuildSettings.gm_channel_id,
                GuildSettings.locale,
                GuildSettings.gm_user_id,
                HouseRuleTable.table_name,
                HouseRuleTable.id,
                HouseRuleTable.version,
                HouseRuleTable.uploaded_at,
            )
            .select_from(anchor)
            .outerjoin(GuildSettings, GuildSettings.guild_id == anchor.c.guild_id)
            .outerjoin(HouseRuleTable, HouseRuleTable.guild_id == anchor.c.guild_id)
        )
    ).all()
    first = rows[0]
    config = (
        ServerConfig(guild_id=guild_id)
        if first.settings_of is None
        else ServerConfig(
            guild_id, first.ruleset, first.gm_role_id, first.gm_channel_id, first.locale, first.gm_user_id
        )
    )
    house_rules = {
        row.table_name: (row.id, row.version, row.uploaded_at) for row in rows if row.table_name is not None
    }
    return config, MappingProxyType(house_rules) if house_rules else NO_HOUSE_RULES


_caches: weakref.WeakKeyDictionary[async_sessionmaker[AsyncSession], ConfigCache] = (
    weakref.WeakKeyDictionary()
)


def config_cache(ctx: AppContext) -> ConfigCache:
    """The cache of this database (one per session factory: tests run several side by side)."""
    cache = _caches.get(ctx.sessions)
    if cache is None:
        cache = _caches[ctx.sessions] = ConfigCache()
    return cache


@dataclass(frozen=True, slots=True)
class SecretDestination:
    """Where a secret result goes: a channel, or a user's DMs (``None`` both: nowhere known)."""

    channel_id: int | None = None
    user_id: int | None = None

    @property
    def known(self) -> bool:
        return self.channel_id is not None or self.user_id is not None


def secret_destination(config: ServerConfig | None, owner_id: int | None) -> SecretDestination:
    if config is not None and config.gm_channel_id is not None:
        return SecretDestination(channel_id=config.gm_channel_id)
    if config is not None and config.gm_user_id is not None:
        return SecretDestination(user_id=config.gm_user_id)
    return SecretDestination(user_id=owner_id)


def secret_delivery(
    config: ServerConfig | None,
    owner_id: int | None,
    for_gm: Reply,
    notice: Reply,
    *,
    undelivered: str | None = None,
) -> Reply:
    """A player's secret result: the table's ``notice``, with ``for_gm`` delivered where every
    secret result goes (:func:`secret_destination`); ``undelivered``: the notice should it fail.
    Nowhere known (no server): ``for_gm`` privately."""
    destination = secret_destination(config, owner_id)
    if not destination.known:
        return replace(for_gm, ephemeral=True)
    delivery = Delivery(
        for_gm, user_id=destination.user_id, channel_id=destination.channel_id, if_undelivered=undelivered
    )
    sent_to = {"channel_id": destination.channel_id, "user_id": destination.user_id}
    return replace(notice, result={**(notice.result or {}), "sent_to": sent_to}, also=(delivery,))


def _guild_only(ctx: AppContext, caller: Caller) -> Reply:
    return refusal_reply(ctx, caller.locale, "config.error.guild_only")


def _not_allowed(ctx: AppContext, caller: Caller) -> Reply:
    return refusal_reply(ctx, caller.locale, "config.error.not_gm")


async def show_config(ctx: AppContext, caller: Caller) -> Reply:
    guild_id = caller.guild_id
    if guild_id is None:
        return _guild_only(ctx, caller)
    t, locale = ctx.catalog.t, caller.locale
    async with ctx.sessions.begin() as session:
        config = await get_server_config(session, guild_id)
        override = await channel_ruleset(session, caller.channel_chain)
    in_force = override or config.ruleset
    none = t(locale, "config.none")
    role = f"<@&{config.gm_role_id}>" if config.gm_role_id else t(locale, "config.gm_role_default")
    channel = f"<#{config.gm_channel_id}>" if config.gm_channel_id else t(locale, "config.gm_channel_default")
    fields = (
        Field(
            t(locale, "config.field.server_ruleset"), ruleset_name(ctx.catalog, locale, config.ruleset), True
        ),
        Field(
            t(locale, "config.field.channel_ruleset"),
            ruleset_name(ctx.catalog, locale, override) if override else none,
            True,
        ),
        Field(t(locale, "config.field.in_force"), f"**{ruleset_name(ctx.catalog, locale, in_force)}**", True),
        Field(t(locale, "config.field.gm_role"), role, True),
        Field(t(locale, "config.field.gm_channel"), channel, True),
    )
    return Reply(
        title=t(locale, "config.title"),
        fields=fields,
        colour=Colour.INFO,
        ephemeral=True,
        kind="config",
        result={
            "ruleset": config.ruleset,
            "channel_ruleset": override,
            "in_force": in_force,
            "gm_role_id": config.gm_role_id,
            "gm_channel_id": config.gm_channel_id,
        },
    )


async def set_ruleset(ctx: AppContext, caller: Caller, *, ruleset: str, scope: str = SCOPE_SERVER) -> Reply:
    """Set the server's ruleset, or override it for this channel/thread.

    Setting a channel to the server's own ruleset removes the override (the channel follows the
    server again).
    """
    guild_id = caller.guild_id
    if guild_id is None:
        return _guild_only(ctx, caller)
    t, locale = ctx.catalog.t, caller.locale
    if ruleset not in RULESETS:
        return refusal_reply(
            ctx, locale, "config.error.unknown_ruleset", ruleset=ruleset[:20], choices=", ".join(RULESETS)
        )
    if scope not in SCOPES:
        return refusal_reply(ctx, locale, "config.error.unknown_scope")
    if scope == SCOPE_CHANNEL and caller.channel_id is None:
        return _guild_only(ctx, caller)
    async with ctx.sessions.begin() as session:
        config = await get_server_config(session, guild_id)
        if not caller.is_gm(config):
            return _not_allowed(ctx, caller)
        name = ruleset_name(ctx.catalog, locale, ruleset)
        if scope == SCOPE_SERVER:
            await update_server_config(session, guild_id, ruleset=ruleset)
            message = t(locale, "config.ruleset.server_set", name=name)
            channel_override: str | None = None
        else:
            assert caller.channel_id is not None
            channel_override = None if ruleset == config.ruleset else ruleset
            await set_channel_ruleset(session, guild_id, caller.channel_id, channel_override)
            key = "config.ruleset.channel_set" if channel_override else "config.ruleset.channel_cleared"
            message = t(locale, key, name=name, channel=f"<#{caller.channel_id}>")
    config_cache(ctx).invalidate()  # committed: the next command reads the new settings
    return Reply(
        description=f"✅ {message}",
        colour=Colour.SUCCESS,
        kind="config",
        result={"ruleset": ruleset, "scope": scope, "channel_override": channel_override},
    )


async def set_gm_role(
    ctx: AppContext, caller: Caller, *, role_id: int, recipient_id: int | None = None
) -> Reply:
    """Set the GM role; the GM who receives secret results by DM is ``recipient_id`` or the caller."""
    guild_id = caller.guild_id
    if guild_id is None:
        return _guild_only(ctx, caller)
    t, locale = ctx.catalog.t, caller.locale
    async with ctx.sessions.begin() as session:
        config = await get_server_config(session, guild_id)
        # Changing the GM role takes the rights of the current GM role — or Manage Server.
        if not caller.is_gm(config):
            return _not_allowed(ctx, caller)
        recipient = recipient_id or caller.user_id
        await update_server_config(session, guild_id, gm_role_id=role_id, gm_user_id=recipient)
    config_cache(ctx).invalidate()
    return Reply(
        description="✅ "
        + t(locale, "config.gm_role.set", role=f"<@&{role_id}>")
        + "\n"
        + t(locale, "config.gm_user.set", user=f"<@{recipient}>"),
        colour=Colour.SUCCESS,
        kind="config",
        result={"gm_role_id": role_id, "gm_user_id": recipient},
    )


async def set_gm_channel(ctx: AppContext, caller: Caller, *, channel_id: int | None) -> Reply:
    """Set the channel secret results go to; ``None`` clears it (back to the owner's DMs)."""
    guild_id = caller.guild_id
    if guild_id is None:
        return _guild_only(ctx, caller)
    t, locale = ctx.catalog.t, caller.locale
    async with ctx.sessions.begin() as session:
        config = await get_server_config(session, guild_id)
        if not caller.is_gm(config):
            return _not_allowed(ctx, caller)
        if channel_id is None:
            await update_server_config(session, guild_id, clear_gm_channel=True)
        else:
            await update_server_config(session, guild_id, gm_channel_id=channel_id)
    config_cache(ctx).invalidate()
    message = (
        t(locale, "config.gm_channel.cleared")
        if channel_id is None
        else t(locale, "config.gm_channel.set", channel=f"<#{channel_id}>")
    )
    return Reply(
        description="✅ " + message,
        colour=Colour.SUCCESS,
        kind="config",
        result={"gm_channel_id": channel_id},
    )


async def forget_channel(ctx: AppContext, guild_id: int, channel_id: int) -> bool:
    """A deleted channel (CHANNEL_DELETE): if it was the GM channel, secret results go back to
    the GM's DMs. True when the setting was cleared."""
    async with ctx.sessions.begin() as session:
        config = await get_server_config(session, guild_id)
        if config.gm_channel_id != channel_id:
            return False
        await update_server_config(session, guild_id, clear_gm_channel=True)
    config_cache(ctx).invalidate()
    return True
