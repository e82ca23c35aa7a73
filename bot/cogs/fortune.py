"""``/fortune`` and ``/fate`` (``/destin``): fortune and destiny points on the character sheet."""

from __future__ import annotations

from typing import TYPE_CHECKING

from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.cogs._common import Interaction, caller_of, ctx_of, send_reply
from bot.cogs.chase import edit_board
from bot.services.flows import fortune as service

if TYPE_CHECKING:
    from bot.app import MeleeBot

USE_CHOICES = [
    app_commands.Choice(name=locale_str("Reroll a test", key="cmd.flows.choice.reroll"), value="reroll"),
    app_commands.Choice(
        name=locale_str("A helpful piece of scenery", key="cmd.flows.choice.scenery"), value="scenery"
    ),
    app_commands.Choice(
        name=locale_str("New session: refill Fortune to Fate (GM)", key="cmd.flows.choice.refresh"),
        value="refresh",
    ),
]
AGAINST_CHOICES = [
    app_commands.Choice(name=locale_str("Death", key="cmd.flows.choice.death"), value="death"),
    app_commands.Choice(name=locale_str("Paralysis", key="cmd.flows.choice.paralysis"), value="paralysis"),
    app_commands.Choice(
        name=locale_str("Losing a limb", key="cmd.flows.choice.limb_loss"), value="limb_loss"
    ),
]


class FortuneCog(commands.Cog):
    def __init__(self, bot: MeleeBot) -> None:
        self.bot = bot

    @app_commands.command(name="fortune", description="Show or spend a fortune point (reroll, scenery)")
    @app_commands.describe(
        use="Spend a point: reroll a test, or a helpful piece of scenery (the GM decides)",
        character="Which character (default: your active one)",
        target="Reroll: the test's target %",
        previous_roll="Reroll: the roll being replaced (99-00 cannot be avoided)",
        roll="Reroll: the new d100 rolled by hand",
        what="Scenery: what appears",
    )
    @app_commands.choices(use=USE_CHOICES)
    @app_commands.guild_only()
    async def fortune(
        self,
        interaction: Interaction,
        use: str | None = None,
        character: app_commands.Range[str, 1, 64] | None = None,
        target: app_commands.Range[int, -100, 200] | None = None,
        previous_roll: app_commands.Range[int, 0, 100] | None = None,
        roll: app_commands.Range[int, 0, 100] | None = None,
        what: app_commands.Range[str, 1, 200] | None = None,
    ) -> None:
        result = await service.fortune(
            ctx_of(interaction),
            caller_of(interaction),
            use=use,
            character=character,
            target=target,
            previous_roll=previous_roll,
            roll=roll,
            what=what,
        )
        await send_reply(interaction, result.reply)

    @app_commands.command(name="fate", description="Spend a fate point: only against death or paralysis")
    @app_commands.describe(
        against="What the point saves from",
        character="Which character (default: your active one)",
        sequel="The deadly critical also leaves a lasting injury (it stays)",
    )
    @app_commands.choices(against=AGAINST_CHOICES)
    @app_commands.guild_only()
    async def fate(
        self,
        interaction: Interaction,
        against: str,
        character: app_commands.Range[str, 1, 64] | None = None,
        sequel: bool = False,
    ) -> None:
        result = await service.destiny(
            ctx_of(interaction), caller_of(interaction), against=against, character=character, sequel=sequel
        )
        await send_reply(interaction, result.reply)
        await edit_board(interaction, result.board)  # a fighter saved in an open fight: its tracker


async def setup(bot: MeleeBot) -> None:
    await bot.add_cog(FortuneCog(bot))
