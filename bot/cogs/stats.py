"""``/stats`` (``/statistiques``): honest dice — how the dice fell, and whether that is normal."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.cogs._common import Interaction, answer_in_time, caller_of, ctx_of
from bot.services.stats import dice_stats

if TYPE_CHECKING:
    from bot.app import MeleeBot

PERIOD_CHOICES = [
    app_commands.Choice(name=locale_str("Last 24 hours", key="cmd.stats.choice.day"), value="day"),
    app_commands.Choice(name=locale_str("Last 7 days", key="cmd.stats.choice.week"), value="week"),
    app_commands.Choice(name=locale_str("Last 30 days", key="cmd.stats.choice.month"), value="month"),
    app_commands.Choice(name=locale_str("Last 365 days", key="cmd.stats.choice.year"), value="year"),
    app_commands.Choice(name=locale_str("All time", key="cmd.stats.choice.all"), value="all"),
]


class StatsCog(commands.Cog):
    def __init__(self, bot: MeleeBot) -> None:
        self.bot = bot

    @app_commands.command(name="stats", description="Honest dice: how the dice fell, tested for fairness")
    @app_commands.describe(
        player="One player's rolls",
        character="One character's rolls",
        channel="One channel's or thread's rolls",
        period="Over which period (default: all time)",
    )
    @app_commands.choices(period=PERIOD_CHOICES)
    @app_commands.guild_only()
    async def stats(
        self,
        interaction: Interaction,
        player: discord.Member | None = None,
        character: app_commands.Range[str, 1, 64] | None = None,
        channel: app_commands.AppCommandChannel | app_commands.AppCommandThread | None = None,
        period: str = "all",
    ) -> None:
        reply = dice_stats(
            ctx_of(interaction),
            caller_of(interaction),
            user_id=player.id if player is not None else None,
            character=character,
            channel_id=channel.id if channel is not None else None,
            period=period,
        )
        await answer_in_time(interaction, reply)  # a distant database: deferred in time


async def setup(bot: MeleeBot) -> None:
    await bot.add_cog(StatsCog(bot))
