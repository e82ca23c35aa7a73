"""``/config`` (French ``/config``): ruleset in force, GM role, GM channel, current settings."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.cogs._common import Interaction, caller_of, ctx_of, send_reply
from bot.cogs._permissions import permissions_reply
from bot.services import config as config_service

if TYPE_CHECKING:
    from bot.app import MeleeBot

log = logging.getLogger(__name__)

RULESET_CHOICES = [
    app_commands.Choice(
        name=locale_str("Renovated WFRP (renove)", key="config.choice.renove"), value="renove"
    ),
    app_commands.Choice(name=locale_str("WFRP 1st ed. complements (v1)", key="config.choice.v1"), value="v1"),
    app_commands.Choice(
        name=locale_str("General d20 procedures (d20)", key="config.choice.d20"), value="d20"
    ),
    app_commands.Choice(name=locale_str("OGL combat (ogl)", key="config.choice.ogl"), value="ogl"),
]
SCOPE_CHOICES = [
    app_commands.Choice(name=locale_str("server", key="config.choice.server"), value="server"),
    app_commands.Choice(name=locale_str("channel", key="config.choice.channel"), value="channel"),
]


@app_commands.guild_only()  # server settings: Discord does not offer the group in DMs
class ConfigGroup(app_commands.Group):
    pass


class ConfigCog(commands.Cog):
    config = ConfigGroup(name="config", description="Server settings: ruleset, GM role, GM channel")

    def __init__(self, bot: MeleeBot) -> None:
        self.bot = bot

    @config.command(name="ruleset", description="Set the ruleset for the server or this channel/thread")
    @app_commands.describe(
        ruleset="The rule system tests and fights use",
        scope="server (default): the whole server; channel: only this channel or thread",
    )
    @app_commands.choices(ruleset=RULESET_CHOICES, scope=SCOPE_CHOICES)
    async def ruleset(
        self,
        interaction: Interaction,
        ruleset: app_commands.Choice[str],
        scope: app_commands.Choice[str] | None = None,
    ) -> None:
        reply = await config_service.set_ruleset(
            ctx_of(interaction),
            caller_of(interaction),
            ruleset=ruleset.value,
            scope=scope.value if scope else config_service.SCOPE_SERVER,
        )
        await send_reply(interaction, reply)

    @config.command(name="gm", description="Set the GM role (GM commands, secret tests)")
    @app_commands.describe(
        role="The role whose members are game masters",
        recipient="The GM who receives secret results by DM (default: you)",
    )
    async def gm(
        self, interaction: Interaction, role: discord.Role, recipient: discord.User | None = None
    ) -> None:
        reply = await config_service.set_gm_role(
            ctx_of(interaction),
            caller_of(interaction),
            role_id=role.id,
            recipient_id=recipient.id if recipient else None,
        )
        await send_reply(interaction, reply)

    @config.command(name="gm-channel", description="Set where secret results go (none: the GM's DMs)")
    @app_commands.describe(channel="The GM's channel; leave empty to send secret results by DM")
    async def gm_channel(self, interaction: Interaction, channel: discord.TextChannel | None = None) -> None:
        if channel is not None:
            # Secret results must be able to reach it: check the bot's permissions there first.
            me = channel.guild.me
            granted = channel.permissions_for(me) if me is not None else None
            needed = ("view_channel", "send_messages", "embed_links")
            missing = tuple(n for n in needed if granted is None or not getattr(granted, n))
            if missing:
                refusal = permissions_reply(interaction, missing, "gm_channel", channel=channel.mention)
                await send_reply(interaction, refusal)
                return
        reply = await config_service.set_gm_channel(
            ctx_of(interaction), caller_of(interaction), channel_id=channel.id if channel else None
        )
        await send_reply(interaction, reply)

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        """A deleted GM channel is forgotten: secret results go back to the GM's DMs."""
        if await config_service.forget_channel(self.bot.ctx, channel.guild.id, channel.id):
            log.info("the GM channel %s of server %s was deleted: forgotten", channel.id, channel.guild.id)

    @config.command(name="show", description="Show the server's settings and the ruleset in force here")
    async def show(self, interaction: Interaction) -> None:
        reply = await config_service.show_config(ctx_of(interaction), caller_of(interaction))
        await send_reply(interaction, reply)


async def setup(bot: MeleeBot) -> None:
    await bot.add_cog(ConfigCog(bot))
