"""``/roll`` (``/lancer``): free dice expressions, macros and sheet values; ``/macro …``: the named
expressions of a user and of the server."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from discord import app_commands
from discord.ext import commands

from bot.cogs._common import Interaction, caller_of, ctx_of, send_reply
from bot.rules.sheet_dice import MACRO_NAME_MAX
from bot.services import macros as macro_service
from bot.services.rolls import roll_dice

if TYPE_CHECKING:
    from bot.app import MeleeBot

log = logging.getLogger(__name__)

EXPRESSION_MAX = 500
LABEL_MAX = 100
MANUAL_MAX = 1000


async def expression_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    try:
        pairs = await macro_service.macro_choices(ctx_of(interaction), caller_of(interaction), current)
    except Exception:  # an autocomplete never shows an error: it offers nothing
        log.warning("macro autocomplete failed", exc_info=False)
        return []
    return [app_commands.Choice(name=label[:100], value=value[:100]) for label, value in pairs[:25]]


@app_commands.guild_only()
class MacroGroup(app_commands.Group):
    pass


class DiceCog(commands.Cog):
    macro = MacroGroup(name="macro", description="Your named dice expressions, and the server's")

    def __init__(self, bot: MeleeBot) -> None:
        self.bot = bot

    @app_commands.command(name="roll", description="Roll dice: 1d100, 3d20+56, 2d10kh1, 1d6!, 4d6kh3 # label")
    @app_commands.describe(
        expression="Dice, a macro or sheet values: 3d20+56, 2d10kh1 # Percutante, strike, 1d10+SB, 1d100<=WS",
        label="What the roll is for (shown as its title)",
        secret="Secret roll: only the GM sees the result",
        dice="Dice you rolled by hand, in order, e.g. 12 5 18",
    )
    @app_commands.autocomplete(expression=expression_autocomplete)
    async def roll(
        self,
        interaction: Interaction,
        expression: app_commands.Range[str, 1, EXPRESSION_MAX],
        label: app_commands.Range[str, 1, LABEL_MAX] | None = None,
        secret: bool = False,
        dice: app_commands.Range[str, 1, MANUAL_MAX] | None = None,
    ) -> None:
        reply = await roll_dice(
            ctx_of(interaction),
            caller_of(interaction),
            expression=expression,
            label=label,
            secret=secret,
            manual=dice,
            owner_id=interaction.guild.owner_id if interaction.guild is not None else None,
        )
        await send_reply(interaction, reply)

    @macro.command(name="create", description="Save or replace a macro (server: GM)")
    @app_commands.describe(
        name="The macro's name: letters, at most 32 (strike, mighty_blow)",
        expression="The dice expression, sheet values allowed: 1d10+SB # Strike, 1d100<=WS",
        server="A server macro, for every player (GM)",
    )
    async def create(
        self,
        interaction: Interaction,
        name: app_commands.Range[str, 1, MACRO_NAME_MAX],
        expression: app_commands.Range[str, 1, EXPRESSION_MAX],
        server: bool = False,
    ) -> None:
        reply = await macro_service.create_macro(
            ctx_of(interaction), caller_of(interaction), name=name, expression=expression, server=server
        )
        await send_reply(interaction, reply)

    @macro.command(name="list", description="Your macros and the server's")
    async def list_(self, interaction: Interaction) -> None:
        reply = await macro_service.list_macros(ctx_of(interaction), caller_of(interaction))
        await send_reply(interaction, reply)

    @macro.command(name="delete", description="Delete a macro (server: GM)")
    @app_commands.describe(name="The macro's name", server="A server macro (GM)")
    @app_commands.autocomplete(name=expression_autocomplete)
    async def delete(
        self,
        interaction: Interaction,
        name: app_commands.Range[str, 1, MACRO_NAME_MAX],
        server: bool = False,
    ) -> None:
        reply = await macro_service.delete_macro(
            ctx_of(interaction), caller_of(interaction), name=name, server=server
        )
        await send_reply(interaction, reply)


async def setup(bot: MeleeBot) -> None:
    await bot.add_cog(DiceCog(bot))
