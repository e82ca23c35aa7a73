"""What every cog shares: sending a Reply, the user's locale, unexpected errors."""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Awaitable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeAlias

import discord
import sqlalchemy.exc
from discord import app_commands
from sqlalchemy.orm.exc import StaleDataError

from bot.services.caller import Caller
from bot.ui.discord_render import allowed_mentions_of, content_of, to_embed, to_view
from bot.ui.reply import Delivery, Reply, error_reply

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
        guild_locale=guild_locale_of(interaction),
    )


def typed_texts(interaction: Interaction) -> tuple[str, ...]:
    """The text options the user typed in this command (names, labels, sides): escaped wherever the
    reply quotes them (the renderer, :func:`bot.ui.discord_render.escaped`)."""
    out: list[str] = []

    def walk(options: Any) -> None:
        for option in options or ():
            if not isinstance(option, dict):
                continue
            if option.get("type") == 3 and isinstance(option.get("value"), str):
                out.append(option["value"])
            walk(option.get("options"))

    data: dict[str, Any] = dict(interaction.data) if isinstance(interaction.data, dict) else {}
    walk(data.get("options"))
    return tuple(out)


def guild_locale_of(interaction: Interaction) -> str | None:
    """The server's preferred locale, or None when Discord's value says nothing.

    Discord sends ``guild_locale`` with every guild interaction, but only a Community server can
    choose it: any other server reports the default ``en-US``. So ``en-US`` counts only for a
    Community server; another value was chosen by the server.
    """
    value = interaction.guild_locale
    if value is None:
        return None
    text = str(value)
    if text != "en-US":
        return text
    guild = interaction.guild
    return text if guild is not None and "COMMUNITY" in guild.features else None


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
    if reply.files:
        kwargs["files"] = [
            discord.File(io.BytesIO(f.data), filename=f.filename, description=f.description)
            for f in reply.files
        ]
    return kwargs


DEFER_AFTER = 1.5  # seconds; Discord wants a first answer within 3 s


async def answer_in_time(
    interaction: Interaction, pending: Awaitable[Reply], *, ephemeral: bool = False
) -> bool:
    """Send the reply ``pending`` gives; if it is slow to come (a distant database), defer first
    so Discord's 3-second deadline is met (publicly: a private refusal then stays private, see
    :func:`send_reply`; privately with ``ephemeral``, for a reply only the user sees). False when
    Discord refused the answer (the caller may undo its work)."""
    task = asyncio.ensure_future(pending)
    done, _ = await asyncio.wait({task}, timeout=DEFER_AFTER)
    alive = True
    if not done and not interaction.response.is_done():
        try:
            await interaction.response.defer(thinking=True, ephemeral=ephemeral)
        except discord.HTTPException:
            log.warning("could not defer interaction %s in time", interaction.id)
            alive = False
    reply = await task
    if not alive:
        return False
    await send_reply(interaction, reply)
    return True


# Secret results go out first; if they take longer than this, the table's notice goes out and is
# corrected afterwards should the delivery fail (Discord's 3-second deadline comes first).
DELIVERY_HEAD_START = 1.0


async def send_reply(interaction: Interaction, reply: Reply) -> None:
    """Answer the interaction (or follow up if already answered) and make the extra deliveries
    (secret results to the GM). Deliveries go first: the table is never told a result reached the
    GM when it did not — the notice then says so, and the roller is told privately why."""
    reply = replace(reply, user_texts=(*reply.user_texts, *typed_texts(interaction)))
    kwargs = _message_kwargs(reply)
    pending: asyncio.Future[list[tuple[Delivery, str]]] | None = None
    failures: list[tuple[Delivery, str]] = []
    if reply.also:
        pending = asyncio.ensure_future(_deliver_all(interaction, reply))
        done, _ = await asyncio.wait({pending}, timeout=DELIVERY_HEAD_START)
        if done:
            failures, pending = pending.result(), None
            if failures:
                kwargs = _message_kwargs(_undelivered(interaction, reply, failures[0][0]))
    sent: discord.WebhookMessage | None = None
    if interaction.response.is_done():
        if reply.ephemeral:
            await _drop_public_thinking(interaction)
        sent = await interaction.followup.send(ephemeral=reply.ephemeral, wait=True, **kwargs)
    else:
        await interaction.response.send_message(ephemeral=reply.ephemeral, **kwargs)
    if pending is not None:
        failures = await pending
        if failures:
            corrected = to_embed(_undelivered(interaction, reply, failures[0][0]))
            try:
                if sent is not None:
                    await sent.edit(embed=corrected)
                else:
                    await interaction.edit_original_response(embed=corrected)
            except discord.HTTPException:
                log.warning("could not correct the notice of an undelivered secret result")
    if failures:
        await _tell_undelivered(interaction, [problem for _, problem in failures])
    # Last, so an observer (the console) knows every message of this reply has been sent.
    interaction.client.ctx.observe(interaction.id, reply)


async def _drop_public_thinking(interaction: Interaction) -> None:
    """Discord ignores the ephemeral flag on the first followup of a deferred response: it fills
    the "thinking" message, public if the defer was. A private answer after a public defer
    removes that message first, so it stays private."""
    if interaction.response.type is not discord.InteractionResponseType.deferred_channel_message:
        return
    try:
        original = await interaction.original_response()
        if original.flags.loading and not original.flags.ephemeral:
            await original.delete()
    except discord.HTTPException:
        log.warning("could not remove a public 'thinking' message before a private answer")


def _undelivered(interaction: Interaction, reply: Reply, failed: Delivery) -> Reply:
    """The table's notice, saying the secret result did not reach the GM (never that it did)."""
    text = failed.if_undelivered or interaction.client.ctx.catalog.t(
        locale_of(interaction), "discord.secret.not_delivered", user=interaction.user.mention
    )
    return replace(reply, description=text, also=())


async def _tell_undelivered(interaction: Interaction, failures: list[str]) -> None:
    catalog, locale = interaction.client.ctx.catalog, locale_of(interaction)
    why = catalog.t(locale, f"discord.secret.why.{failures[0]}")
    note = error_reply(catalog.t(locale, "discord.secret.tell_roller", why=why))
    try:
        await interaction.followup.send(ephemeral=True, wait=True, **_message_kwargs(note))
    except discord.HTTPException:
        log.warning("could not tell the roller that a secret result was not delivered")


async def _deliver_all(interaction: Interaction, reply: Reply) -> list[tuple[Delivery, str]]:
    failures = []
    for delivery in reply.also:
        problem = await _deliver(
            interaction, delivery.reply, user_id=delivery.user_id, channel_id=delivery.channel_id
        )
        if problem is not None:
            failures.append((delivery, problem))
    return failures


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
) -> str | None:
    """Send one delivery; None when it arrived, else why not: ``dm_closed``, ``gone`` (the
    channel was deleted), ``no_access`` (the bot may not post there) or ``failed``."""
    kwargs = _message_kwargs(reply)
    try:
        if user_id is not None:
            user = interaction.client.get_user(user_id) or await interaction.client.fetch_user(user_id)
            await user.send(**kwargs)
        elif channel_id is not None:
            channel = interaction.client.get_channel(channel_id)
            if not isinstance(channel, discord.abc.Messageable):
                log.warning("secret result for channel %s: the channel is gone", channel_id)
                return "gone"
            await channel.send(**kwargs)
    except discord.HTTPException as exc:
        log.warning("could not deliver a message to user=%s channel=%s (%s)", user_id, channel_id, exc)
        return {50007: "dm_closed", 10003: "gone", 50001: "no_access", 50013: "no_access"}.get(
            exc.code, "failed"
        )
    return None


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
