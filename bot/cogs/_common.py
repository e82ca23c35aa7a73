"""What every cog shares: sending a Reply, the user's locale, unexpected errors."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, TypeAlias

import discord
import sqlalchemy.exc
from discord import app_commands
from sqlalchemy.orm.exc import StaleDataError

from bot.services.caller import Caller
from bot.ui.discord_render import allowed_mentions_of, content_of, to_embed, to_view
from bot.ui.reply import Reply, error_reply

if TYPE_CHECKING:
    from bot.app import MeleeBot
    from bot.context import AppContext

log = logging.getLogger(__name__)

Interaction: TypeAlias = "discord.Interaction[MeleeBot]"


def locale_of(interaction: Interaction) -> str:
    return str(interaction.locale)


def ctx_of(interaction: Interaction) -> AppContext:
    return interaction.client.ctx


def caller_of(interaction: Interaction) -> Caller:
    channel = interaction.channel
    parent_id = channel.parent_id if isinstance(channel, discord.Thread) else None
    member = interaction.user if isinstance(interaction.user, discord.Member) else None
    roles = member.roles if member is not None else []
    permissions = interaction.permissions
    return Caller(
        user_id=interaction.user.id,
        guild_id=interaction.guild_id,
        channel_id=interaction.channel_id,
        parent_channel_id=parent_id,
        locale=locale_of(interaction),
        role_ids=frozenset(role.id for role in roles),
        role_names=frozenset(role.name for role in roles),
        manage_guild=bool(permissions.manage_guild or permissions.administrator),
        display_name=interaction.user.display_name,
    )


def _message_kwargs(reply: Reply) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"allowed_mentions": allowed_mentions_of(reply)}
    embed = to_embed(reply)
    if embed is not None:
        kwargs["embed"] = embed
    content = content_of(reply)
    if content is not None:
        kwargs["content"] = content
    view = to_view(reply)
    if view is not None:
        kwargs["view"] = view
    return kwargs


async def send_reply(interaction: Interaction, reply: Reply) -> None:
    """Answer the interaction (or follow up if already answered), then the extra deliveries."""
    kwargs = _message_kwargs(reply)
    if interaction.response.is_done():
        await interaction.followup.send(ephemeral=reply.ephemeral, wait=True, **kwargs)
    else:
        await interaction.response.send_message(ephemeral=reply.ephemeral, **kwargs)
    for delivery in reply.also:
        await _deliver(interaction, delivery.reply, user_id=delivery.user_id, channel_id=delivery.channel_id)
    # Last, so an observer (the console) knows every message of this reply has been sent.
    interaction.client.ctx.observe(interaction.id, reply)


async def edit_reply(interaction: Interaction, reply: Reply) -> None:
    """Answer a button by replacing the message it sits on (ephemeral errors are sent apart)."""
    if reply.is_error or interaction.message is None:
        await send_reply(interaction, reply)
        return
    kwargs = _message_kwargs(reply)
    kwargs.setdefault("view", None)
    kwargs.setdefault("content", None)
    kwargs.pop("allowed_mentions", None)
    if interaction.response.is_done():
        await interaction.edit_original_response(**kwargs)
    else:
        await interaction.response.edit_message(**kwargs)
    interaction.client.ctx.observe(interaction.id, reply)


async def _deliver(
    interaction: Interaction, reply: Reply, *, user_id: int | None, channel_id: int | None
) -> None:
    kwargs = _message_kwargs(reply)
    try:
        if user_id is not None:
            user = interaction.client.get_user(user_id) or await interaction.client.fetch_user(user_id)
            await user.send(**kwargs)
        elif channel_id is not None:
            channel = interaction.client.get_channel(channel_id)
            if isinstance(channel, discord.abc.Messageable):
                await channel.send(**kwargs)
    except discord.HTTPException:
        log.warning("could not deliver a message to user=%s channel=%s", user_id, channel_id)


def _command_name(interaction: Interaction) -> str:
    return interaction.command.qualified_name if interaction.command else "?"


def is_database_unavailable(error: BaseException) -> bool:
    """A locked SQLite file, a lost or refused database connection, a row changed by someone else at
    the same time (optimistic locking): nothing was saved, and the user should just retry."""
    if isinstance(error, sqlalchemy.exc.OperationalError | sqlalchemy.exc.InterfaceError | StaleDataError):
        return True
    if isinstance(error, sqlalchemy.exc.DBAPIError) and error.connection_invalidated:
        return True
    return isinstance(error, sqlalchemy.exc.TimeoutError | ConnectionError)


EXPIRED_INTERACTION_CODES = frozenset({10062, 40060})  # Unknown interaction, already acknowledged


def _is_expired(error: BaseException) -> bool:
    return isinstance(error, discord.HTTPException) and error.code in EXPIRED_INTERACTION_CODES


async def report_unexpected_error(interaction: Interaction, error: app_commands.AppCommandError) -> None:
    """Never show a traceback: log it, tell the user in their language."""
    catalog = interaction.client.ctx.catalog
    locale = locale_of(interaction)
    if isinstance(error, app_commands.CheckFailure):
        reply = error_reply(catalog.t(locale, "common.error.not_allowed"))
    elif isinstance(error, app_commands.TransformerError | app_commands.CommandSignatureMismatch):
        reply = error_reply(catalog.t(locale, "common.error.bad_option"))
    elif isinstance(error, app_commands.CommandNotFound):
        reply = error_reply(catalog.t(locale, "reliability.unknown_command"))
    elif _is_expired(getattr(error, "original", error)):
        # Discord refused the first answer (past its 3 s deadline, or already answered): nothing
        # can reach the user through this interaction any more, and nothing went wrong in the bot.
        log.warning("interaction for /%s expired before it was answered", _command_name(interaction))
        return
    elif is_database_unavailable(getattr(error, "original", error)):
        log.warning(
            "database unavailable in /%s: %s", _command_name(interaction), getattr(error, "original", error)
        )
        reply = error_reply(catalog.t(locale, "common.error.retry"))
    else:
        original = getattr(error, "original", error)
        log.error(
            "unexpected error in /%s",
            interaction.command.qualified_name if interaction.command else "?",
            exc_info=(type(original), original, original.__traceback__),
        )
        reply = error_reply(catalog.t(locale, "common.error.unexpected"))
    try:
        await send_reply(interaction, reply)
    except discord.HTTPException:
        log.warning("could not report an error to the user")
