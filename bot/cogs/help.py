"""``/help`` (``/aide``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs._common import Interaction, ctx_of, edit_reply, locale_of, send_reply
from bot.services.help import CommandInfo, help_reply

if TYPE_CHECKING:
    from bot.app import MeleeBot


def command_infos(tree: app_commands.CommandTree[MeleeBot]) -> list[CommandInfo]:
    infos = []
    for command in tree.walk_commands():
        if isinstance(command, app_commands.Command):
            module = (command.module or "").rsplit(".", 1)[-1] or "general"
            infos.append(
                CommandInfo(
                    qualified_name=command.qualified_name, description=command.description, category=module
                )
            )
    return infos


class HelpPageButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=r"melee:help:(?P<page>[0-9]{1,3})"
):
    """Turns the pages of /help; stateless, so it works after a restart."""

    def __init__(self, page: int) -> None:
        super().__init__(discord.ui.Button(label=str(page), custom_id=f"melee:help:{page}"))
        self.page = page

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> HelpPageButton:
        return cls(int(match["page"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        ctx = ctx_of(interaction)
        reply = help_reply(
            ctx.catalog, locale_of(interaction), command_infos(interaction.client.tree), page=self.page
        )
        await edit_reply(interaction, reply)


class HelpCog(commands.Cog):
    def __init__(self, bot: MeleeBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(HelpPageButton)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(HelpPageButton)

    @app_commands.command(name="help", description="List every command with an example")
    @app_commands.describe(command="Show only this command", page="Page of the list")
    async def help(
        self,
        interaction: Interaction,
        command: app_commands.Range[str, 1, 50] | None = None,
        page: app_commands.Range[int, 1, 50] = 1,
    ) -> None:
        ctx = ctx_of(interaction)
        reply = help_reply(
            ctx.catalog, locale_of(interaction), command_infos(self.bot.tree), only=command, page=page
        )
        await send_reply(interaction, reply)


async def setup(bot: MeleeBot) -> None:
    await bot.add_cog(HelpCog(bot))
