"""A fight's public results belong in its thread: while the thread is archived (Discord refuses
commands there), a command run from the parent channel posts its result in the thread."""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.cogs._common import _message_kwargs, ctx_of, locale_of, send_reply
from bot.services.fights._core import FightOutcome
from bot.ui.reply import Colour, Reply

log = logging.getLogger(__name__)


async def reply_in_thread(interaction: discord.Interaction[Any], result: FightOutcome) -> bool:
    """Post a public result run outside the fight's archived thread in the thread (sending
    unarchives it), and answer the command privately with a link. False when nothing was done
    (answer as usual)."""
    reply = result.reply
    if (
        reply.is_error
        or reply.ephemeral
        or reply.also
        or result.thread_id is None
        or interaction.channel_id == result.thread_id
    ):
        return False
    channel = interaction.client.get_channel(result.thread_id)
    if channel is None:
        try:
            channel = await interaction.client.fetch_channel(result.thread_id)
        except discord.HTTPException:
            return False
    if not isinstance(channel, discord.Thread) or not channel.archived:
        return False  # an open thread: a command from the parent channel is answered there
    try:
        await channel.send(**_message_kwargs(reply))
    except discord.HTTPException as exc:
        log.warning("could not post a fight result in its thread %s (%s)", channel.id, exc)
        return False
    text = ctx_of(interaction).catalog.t(
        locale_of(interaction), "discord.posted_in_thread", thread=channel.mention
    )
    await send_reply(interaction, Reply(description=text, colour=Colour.INFO, ephemeral=True, kind="info"))
    return True
