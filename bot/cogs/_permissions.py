"""What the bot may do in a channel, from the permissions Discord sends with each interaction
(``app_permissions``: the bot's permissions in that channel, overwrites included)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import discord

from bot.cogs._common import ctx_of
from bot.ui.reply import Reply, error_reply


def missing_permissions(interaction: discord.Interaction[Any], names: Iterable[str]) -> tuple[str, ...]:
    """The permissions among ``names`` (discord.Permissions attribute names) the bot lacks here."""
    if interaction.guild_id is None:
        return ()
    granted = interaction.app_permissions
    if granted.administrator:
        return ()
    return tuple(dict.fromkeys(n for n in names if not getattr(granted, n, False)))


def permission_list(interaction: discord.Interaction[Any], names: Iterable[str]) -> str:
    """« la permission « Épingler des messages » » / « les permissions « A » et « B » »."""
    t = ctx_of(interaction).catalog.t
    locale = str(interaction.locale)
    labels = [t(locale, f"discord.perm.{name}") for name in names]
    if len(labels) == 1:
        return t(locale, "discord.perms.one", name=labels[0])
    joined = t(locale, "discord.perms.join", head=", ".join(labels[:-1]), last=labels[-1])
    return t(locale, "discord.perms.many", names=joined)


def permissions_reply(
    interaction: discord.Interaction[Any], names: Iterable[str], purpose: str, **params: Any
) -> Reply:
    """A private message saying what the bot needs in this channel, and how to grant it."""
    catalog = ctx_of(interaction).catalog
    perms = permission_list(interaction, names)
    return error_reply(
        catalog.t(str(interaction.locale), f"discord.missing.{purpose}", perms=perms, **params)
    )
