"""``/jump`` (``/saut``): the long jump and jumping down (`renove`, seed 000)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.cogs._common import Interaction, caller_of, ctx_of, send_reply
from bot.services.flows import jumping as service

if TYPE_CHECKING:
    from bot.app import MeleeBot

KIND_CHOICES = [
    app_commands.Choice(name=locale_str("Long jump", key="cmd.jump.choice.long"), value="longueur"),
    app_commands.Choice(name=locale_str("Jumping down", key="cmd.jump.choice.height"), value="hauteur"),
]


class JumpingCog(commands.Cog):
    def __init__(self, bot: MeleeBot) -> None:
        self.bot = bot

    @app_commands.command(name="jump", description="Jump: a long jump, or down from a height (Ag test)")
    @app_commands.describe(
        type="Long jump, or jumping down from a height",
        height="Jumping down: the height in metres (2.5)",
        run_up="Long jump: with a run-up of M to 2 × M metres (no: the distance is halved)",
        character="Who jumps (default: your active character)",
        ag="Agility (Ag) % (default: the character's, with the armour's malus)",
        sb="Strength bonus (default: the character's)",
        m="Movement (default: the character's)",
        light_armour="Wearing light armour: a fall's damage −1 (default: the sheet's armour)",
        modifier="Any other modifier to the Ag test, in %",
        roll="The d100 rolled by hand (default: the bot rolls)",
    )
    @app_commands.choices(type=KIND_CHOICES)
    @app_commands.guild_only()
    async def jump(
        self,
        interaction: Interaction,
        type: str,
        height: app_commands.Range[float, 0, 100] | None = None,
        run_up: bool = True,
        character: app_commands.Range[str, 1, 64] | None = None,
        ag: app_commands.Range[int, 0, 200] | None = None,
        sb: app_commands.Range[int, 0, 20] | None = None,
        m: app_commands.Range[int, 0, 20] | None = None,
        light_armour: bool | None = None,
        modifier: app_commands.Range[int, -100, 100] = 0,
        roll: app_commands.Range[int, 0, 100] | None = None,
    ) -> None:
        result = await service.jump(
            ctx_of(interaction),
            caller_of(interaction),
            kind=type,
            height=height,
            run_up=run_up,
            character=character,
            ag=ag,
            bf=sb,
            m=m,
            light_armour=light_armour,
            extra=modifier,
            roll=roll,
        )
        await send_reply(interaction, result.reply)


async def setup(bot: MeleeBot) -> None:
    await bot.add_cog(JumpingCog(bot))
