"""``/cast`` (``/sort``): a spell's casting roll with the seed's chaos die (data/magic.json).

Thin adapter: the options go to :mod:`bot.services.magic`; in a fight's thread the outcome also
edits the tracker, like a fight action.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.cogs._common import Interaction, caller_of, ctx_of
from bot.cogs.combat import settle
from bot.rules.renove.magic import DIFFICULTY_MAX, MAGIC_MAX
from bot.services.magic import CastRequest, cast_spell

if TYPE_CHECKING:
    from bot.app import MeleeBot

LENGTH_CHOICES = [
    app_commands.Choice(
        name=locale_str("Half-round spell (two per round)", key="cmd.cast.choice.half"), value="half"
    ),
    app_commands.Choice(name=locale_str("Full-round spell", key="cmd.cast.choice.full"), value="full"),
]


class MagicCog(commands.Cog):
    def __init__(self, bot: MeleeBot) -> None:
        self.bot = bot

    @app_commands.command(name="cast", description="Cast a spell: Mag d10 and the chaos die vs a difficulty")
    @app_commands.describe(
        difficulty="The spell's casting number (the GM gives it)",
        magic="How many casting dice (default: the character's Mag)",
        dice="Dice rolled by hand: the casting dice first, the chaos dice last",
        length="In a fight: a half-round spell (two per round) or a full-round one",
        spell="The spell's name (shown)",
        character="Who casts (default: your active character, or your fighter)",
        wp_roll="Every casting die shows 1: the WP test's d100 rolled by hand",
    )
    @app_commands.choices(length=LENGTH_CHOICES)
    @app_commands.guild_only()
    async def cast(
        self,
        interaction: Interaction,
        difficulty: app_commands.Range[int, 1, DIFFICULTY_MAX],
        magic: app_commands.Range[int, 1, MAGIC_MAX] | None = None,
        dice: app_commands.Range[str, 1, 100] | None = None,
        length: str = "half",
        spell: app_commands.Range[str, 1, 80] | None = None,
        character: app_commands.Range[str, 1, 80] | None = None,
        wp_roll: app_commands.Range[int, 0, 100] | None = None,
    ) -> None:
        request = CastRequest(
            difficulty=difficulty,
            magic=magic,
            dice=dice,
            length=length,
            spell=spell,
            character=character,
            fm_roll=wp_roll,
        )
        await settle(interaction, cast_spell(ctx_of(interaction), caller_of(interaction), request))


async def setup(bot: MeleeBot) -> None:
    await bot.add_cog(MagicCog(bot))
