"""``/config``: the ruleset in force (server, or one channel/thread), the GM role, the GM channel.

Rights: a GM (the configured GM role, else a role named "MJ"/"GM"…) or a member with Manage
Server. Where secret results go (:func:`secret_destination`):

1. the configured GM channel (``/config canal-mj``), if any;
2. otherwise a DM to the server owner — without the privileged members intent the bot cannot
   list who holds the GM role, and the owner can always be told apart.

A GM who rolls a secret test himself sees the result privately (ephemeral) in every case.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.context import AppContext
from bot.db.repositories import (
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
from bot.ui.reply import Colour, Field, Reply

SCOPE_SERVER = "server"
SCOPE_CHANNEL = "channel"
SCOPES = (SCOPE_SERVER, SCOPE_CHANNEL)


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
