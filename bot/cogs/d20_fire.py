"""``/fire`` (``/tir``): the `d20` system's special fire in an open d20 fight thread — burst,
covering fire, artillery, fighter gunnery. Thin adapter over :mod:`bot.services.fights.systems.d20_fire`;
the reply and the tracker edit are the ``/combat`` cog's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from discord import app_commands
from discord.ext import commands

from bot.cogs._common import Interaction, caller_of, ctx_of
from bot.cogs.combat import settle
from bot.services.fights.choices import combatant_choices
from bot.services.fights.systems import d20_fire as service

if TYPE_CHECKING:
    from bot.app import MeleeBot


@app_commands.guild_only()
class FireGroup(app_commands.Group):
    pass


class FireCog(commands.Cog):
    fire = FireGroup(name="fire", description="d20 fights: burst, covering fire, artillery, fighter gunnery")

    def __init__(self, bot: MeleeBot) -> None:
        self.bot = bot

    @fire.command(name="burst", description="Burst fire: several targets (−1 each) or N bullets at one")
    @app_commands.describe(
        targets="Targets, comma-separated",
        shooter="Who fires (default: whose turn it is)",
        bullets="Bullets fired at one target (+2 and 1d6 hits per ten)",
        weapon="Which weapon (default: the first ranged one)",
        roll="The d20 test",
        hits="Hit dice: 1d4 per target, or 1d6 per ten bullets",
        situation="Ranged modifiers: instinctif, faible_lumiere, appui_epaule, mod:-2 …",
        aimed="The point aimed at (tete, thorax …)",
        zones="Zone dice around the aimed point, one per bullet hitting",
        damage="d20 damage dice, one per bullet hitting",
    )
    async def burst(
        self,
        interaction: Interaction,
        targets: app_commands.Range[str, 1, 300],
        shooter: app_commands.Range[str, 1, 80] | None = None,
        bullets: app_commands.Range[int, 1, service.MAX_BULLETS] | None = None,
        weapon: app_commands.Range[str, 1, 80] | None = None,
        roll: app_commands.Range[int, 1, 20] | None = None,
        hits: app_commands.Range[str, 1, 60] | None = None,
        situation: app_commands.Range[str, 1, 300] | None = None,
        aimed: app_commands.Range[str, 1, 40] | None = None,
        zones: app_commands.Range[str, 1, 200] | None = None,
        damage: app_commands.Range[str, 1, 200] | None = None,
    ) -> None:
        data = service.BurstInput(
            targets=targets,
            shooter=shooter,
            bullets=bullets,
            weapon=weapon,
            roll=roll,
            hits=hits,
            situation=situation,
            aimed=aimed,
            zones=zones,
            damage=damage,
        )
        await settle(interaction, service.burst(ctx_of(interaction), caller_of(interaction), data))

    @fire.command(name="covering", description="Covering fire: a d100 ≤ the weapon score hits (15: 15 %)")
    @app_commands.describe(
        targets="Fighters fired at, comma-separated",
        zone="Or a zone fired at (a door, a street …)",
        shooter="Who fires (default: whose turn it is)",
        weapon="Which weapon (default: the first ranged one)",
        score="The weapon score (default: the weapon's)",
        roll="The d100",
        victim="Which target is hit (GM's call)",
        pick="Or the die picking it (1 to the number of targets)",
        damage="The d20 damage die",
    )
    async def covering(
        self,
        interaction: Interaction,
        targets: app_commands.Range[str, 1, 300] | None = None,
        zone: app_commands.Range[str, 1, 60] | None = None,
        shooter: app_commands.Range[str, 1, 80] | None = None,
        weapon: app_commands.Range[str, 1, 80] | None = None,
        score: app_commands.Range[int, 0, 100] | None = None,
        roll: app_commands.Range[int, 0, 100] | None = None,
        victim: app_commands.Range[str, 1, 80] | None = None,
        pick: app_commands.Range[int, 1, service.MAX_TARGETS] | None = None,
        damage: app_commands.Range[int, 1, 20] | None = None,
    ) -> None:
        data = service.CoveringInput(
            targets=targets,
            zone=zone,
            shooter=shooter,
            weapon=weapon,
            score=score,
            roll=roll,
            victim=victim,
            pick=pick,
            damage=damage,
        )
        await settle(interaction, service.covering(ctx_of(interaction), caller_of(interaction), data))

    @fire.command(name="artillery", description="Artillery: MR 10+ on target, else a direction and distance")
    @app_commands.describe(
        target="The fighter or place aimed at",
        shooter="Who fires (default: whose turn it is)",
        weapon="Which weapon (default: the first ranged one)",
        roll="The d20 test",
        direction="The d20 direction (1-5 front … 16-20 behind)",
        distance="The distance die (d6 at MR 5-9, d20 at MR 0-4)",
        situation="Modifiers: mod:-2 …",
    )
    async def artillery(
        self,
        interaction: Interaction,
        target: app_commands.Range[str, 1, 80],
        shooter: app_commands.Range[str, 1, 80] | None = None,
        weapon: app_commands.Range[str, 1, 80] | None = None,
        roll: app_commands.Range[int, 1, 20] | None = None,
        direction: app_commands.Range[int, 1, 20] | None = None,
        distance: app_commands.Range[int, 1, 20] | None = None,
        situation: app_commands.Range[str, 1, 300] | None = None,
    ) -> None:
        data = service.ArtilleryInput(
            target=target,
            shooter=shooter,
            weapon=weapon,
            roll=roll,
            direction=direction,
            distance=distance,
            situation=situation,
        )
        await settle(interaction, service.artillery(ctx_of(interaction), caller_of(interaction), data))

    @fire.command(name="air", description="Fighter gunnery: MR 10+ hits, else a d6 or d20 on the hit table")
    @app_commands.describe(
        target="The craft fired at",
        shooter="Who fires (default: whose turn it is)",
        weapon="Which weapon (default: the first ranged one)",
        roll="The d20 test",
        die="The hit-table die (d6 at MR 5-9, d20 at MR 0-4)",
        situation="vitesse:2000, taille_humaine, nuage, evitement, pilote:3, mod:-2 …",
        damage="The d20 damage die",
    )
    async def air(
        self,
        interaction: Interaction,
        target: app_commands.Range[str, 1, 80],
        shooter: app_commands.Range[str, 1, 80] | None = None,
        weapon: app_commands.Range[str, 1, 80] | None = None,
        roll: app_commands.Range[int, 1, 20] | None = None,
        die: app_commands.Range[int, 1, 20] | None = None,
        situation: app_commands.Range[str, 1, 300] | None = None,
        damage: app_commands.Range[int, 1, 20] | None = None,
    ) -> None:
        data = service.AirInput(
            target=target,
            shooter=shooter,
            weapon=weapon,
            roll=roll,
            die=die,
            situation=situation,
            damage=damage,
        )
        await settle(interaction, service.air(ctx_of(interaction), caller_of(interaction), data))

    @burst.autocomplete("shooter")
    @covering.autocomplete("shooter")
    @covering.autocomplete("victim")
    @artillery.autocomplete("shooter")
    @artillery.autocomplete("target")
    @air.autocomplete("shooter")
    @air.autocomplete("target")
    async def _fighters(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        choices = await combatant_choices(ctx_of(interaction), caller_of(interaction), current)
        return [app_commands.Choice(name=label[:100], value=value[:100]) for label, value in choices]


async def setup(bot: MeleeBot) -> None:
    await bot.add_cog(FireCog(bot))
