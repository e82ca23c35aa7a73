"""``/simulate`` (``/simuler``): Monte-Carlo duels under `renove` (GM tool).

Thin adapter over :mod:`bot.services.simulation`; the sides autocomplete from the server's
characters and the creature presets, and also take a raw profile (``CC=45 F=35 … arme=epee``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.cogs._common import Interaction, caller_of, ctx_of, send_reply
from bot.services import simulation as svc

if TYPE_CHECKING:
    from bot.app import MeleeBot

POSTURE_CHOICES = [
    app_commands.Choice(name=locale_str(label, key=f"simulation.choice.posture.{value}"), value=value)
    for value, label in (
        ("normale", "Normal"),
        ("prudente", "Careful (+10 parry, −10 attack)"),
        ("temeraire", "Reckless (+10 attack, −10 parry)"),
        ("defensive", "Defensive (+20 parry, no attack)"),
        ("suicidaire", "Suicidal (+20 attack, no defence)"),
    )
]


async def _side_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    pairs = await svc.side_choices(ctx_of(interaction), caller_of(interaction), current)
    return [app_commands.Choice(name=label[:100], value=value[:100]) for label, value in pairs]


class SimulateCog(commands.Cog):
    def __init__(self, bot: MeleeBot) -> None:
        self.bot = bot

    @app_commands.command(
        name="simulate", description="GM: simulate duels between two fighters (win odds, criticals)"
    )
    @app_commands.guild_only()  # a GM command of a server: not offered in DMs
    @app_commands.describe(
        a="First fighter: a character, a creature, or a profile like CC=45 F=35 E=40 arme=epee",
        b="Second fighter: a character, a creature, or a profile",
        duels="How many duels (at most 1,000,000; stops after 2 seconds)",
        posture_a="Posture of the first fighter",
        posture_b="Posture of the second fighter",
        combat_ws="Use the combat WS rule (CC + 50 − opponent's CC); off = plain WFRP",
        one_sided="Only the first fighter attacks (the seed's arithmetic)",
        mort_subite="Mort subite for NPCs (flee at 8–12, die at 13–15)",
    )
    @app_commands.choices(posture_a=POSTURE_CHOICES, posture_b=POSTURE_CHOICES)
    @app_commands.autocomplete(a=_side_autocomplete, b=_side_autocomplete)
    async def simulate(
        self,
        interaction: Interaction,
        a: app_commands.Range[str, 1, svc.PROFILE_MAX],
        b: app_commands.Range[str, 1, svc.PROFILE_MAX],
        duels: app_commands.Range[int, 1, svc.DUELS_MAX] = svc.DUELS_DEFAULT,
        posture_a: str | None = None,
        posture_b: str | None = None,
        combat_ws: bool = True,
        one_sided: bool = False,
        mort_subite: bool = False,
    ) -> None:
        async def defer() -> None:
            await interaction.response.defer(thinking=True)

        reply = await svc.simulate_duel(
            ctx_of(interaction),
            caller_of(interaction),
            a=a,
            b=b,
            duels=duels,
            posture_a=posture_a,
            posture_b=posture_b,
            combat_ws=combat_ws,
            one_sided=one_sided,
            mort_subite=mort_subite,
            before_run=defer,
        )
        await send_reply(interaction, reply)


async def setup(bot: MeleeBot) -> None:
    await bot.add_cog(SimulateCog(bot))
