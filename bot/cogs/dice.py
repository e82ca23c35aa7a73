"""``/roll`` (``/lancer``): free dice expressions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from discord import app_commands
from discord.ext import commands

from bot.cogs._common import Interaction, caller_of, ctx_of, send_reply
from bot.services.rolls import roll_dice

if TYPE_CHECKING:
    from bot.app import MeleeBot

EXPRESSION_MAX = 500
LABEL_MAX = 100
MANUAL_MAX = 1000


class DiceCog(commands.Cog):
    def __init__(self, bot: MeleeBot) -> None:
        self.bot = bot

    @app_commands.command(name="roll", description="Roll dice: 1d100, 3d20+56, 2d10kh1, 1d6!, 4d6kh3 # label")
    @app_commands.describe(
        expression="Dice expression, e.g. 3d20+56 or 2d10kh1 # Percutante",
        label="What the roll is for (shown as its title)",
        secret="Secret roll: only the GM sees the result",
        dice="Dice you rolled by hand, in order, e.g. 12 5 18",
    )
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


async def setup(bot: MeleeBot) -> None:
    await bot.add_cog(DiceCog(bot))
