"""``/help`` (``/aide``): the cog turns the command tree into plain :class:`CommandInfo` for the service."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs._common import Interaction, caller_of, ctx_of, edit_reply, send_reply
from bot.services.help import ChoiceInfo, CommandInfo, OptionInfo, help_here

if TYPE_CHECKING:
    from bot.app import MeleeBot


def _choice(choice: app_commands.Choice[Any]) -> ChoiceInfo:
    locale_name = getattr(choice, "_locale_name", None)
    key = locale_name.extras.get("key") if locale_name is not None else None
    return ChoiceInfo(str(choice.value), choice.name, key if isinstance(key, str) else None)


def _option(parameter: app_commands.Parameter) -> OptionInfo:
    bounds = parameter.type in (discord.AppCommandOptionType.integer, discord.AppCommandOptionType.number)
    return OptionInfo(
        name=parameter.display_name,
        type=parameter.type.name,
        required=parameter.required,
        description=parameter.description,
        choices=tuple(_choice(c) for c in parameter.choices),
        autocomplete=parameter.autocomplete,
        min_value=parameter.min_value if bounds else None,
        max_value=parameter.max_value if bounds else None,
        key=parameter.name,
    )


def command_infos(tree: app_commands.CommandTree[MeleeBot]) -> list[CommandInfo]:
    infos = []
    for command in tree.walk_commands():
        if isinstance(command, app_commands.Command):
            module = (command.module or "").rsplit(".", 1)[-1] or "general"
            infos.append(
                CommandInfo(
                    qualified_name=command.qualified_name,
                    description=command.description,
                    category=module,
                    options=tuple(_option(p) for p in command.parameters),
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
        reply = await help_here(
            ctx_of(interaction),
            caller_of(interaction),
            command_infos(interaction.client.tree),
            page=self.page,
        )
        await edit_reply(interaction, reply)


class HelpCog(commands.Cog):
    def __init__(self, bot: MeleeBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(HelpPageButton)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(HelpPageButton)

    @app_commands.command(
        name="help", description="Start here: the first steps, then every command with an example"
    )
    @app_commands.describe(
        command="One command, with all its options (a subcommand by its own name: attack)",
        page="Page of the help",
    )
    async def help(
        self,
        interaction: Interaction,
        command: app_commands.Range[str, 1, 50] | None = None,
        page: app_commands.Range[int, 1, 50] = 1,
    ) -> None:
        reply = await help_here(
            ctx_of(interaction), caller_of(interaction), command_infos(self.bot.tree), only=command, page=page
        )
        await send_reply(interaction, reply)


async def setup(bot: MeleeBot) -> None:
    await bot.add_cog(HelpCog(bot))
