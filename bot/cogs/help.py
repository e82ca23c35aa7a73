"""``/help`` (``/aide``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from discord import app_commands
from discord.ext import commands

from bot.cogs._common import Interaction, ctx_of, locale_of, send_reply
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


class HelpCog(commands.Cog):
    def __init__(self, bot: MeleeBot) -> None:
        self.bot = bot

    @app_commands.command(name="help", description="List every command with an example")
    @app_commands.describe(command="Show only this command")
    async def help(
        self, interaction: Interaction, command: app_commands.Range[str, 1, 50] | None = None
    ) -> None:
        ctx = ctx_of(interaction)
        reply = help_reply(ctx.catalog, locale_of(interaction), command_infos(self.bot.tree), only=command)
        await send_reply(interaction, reply)


async def setup(bot: MeleeBot) -> None:
    await bot.add_cog(HelpCog(bot))
