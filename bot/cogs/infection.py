"""``/infection``: the next-day E test of an open wound; the E test after an amputation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.cogs._common import Interaction, caller_of, ctx_of, send_reply
from bot.services.flows import infection as service

if TYPE_CHECKING:
    from bot.app import MeleeBot


WEAPON_CHOICES = [
    app_commands.Choice(name=locale_str("Clean/washed (+10)", key="cmd.flows.choice.clean"), value="propre"),
    app_commands.Choice(name=locale_str("Normal (+0)", key="cmd.flows.choice.normal"), value="normale"),
    app_commands.Choice(name=locale_str("Dirty/rusty (−10)", key="cmd.flows.choice.dirty"), value="sale"),
    app_commands.Choice(name=locale_str("Fouled (−20)", key="cmd.flows.choice.fouled"), value="souillee"),
]
SUTURE_CHOICES = [
    app_commands.Choice(
        name=locale_str("Stitched, Heal failed (+10)", key="cmd.flows.choice.suture_failed"), value="ratee"
    ),
    app_commands.Choice(
        name=locale_str("Stitched, Heal passed (+20)", key="cmd.flows.choice.suture_succeeded"),
        value="reussie",
    ),
]
ENVIRONMENT_CHOICES = [
    app_commands.Choice(name=locale_str("Filthy (−10)", key="cmd.flows.choice.filthy_10"), value="-10"),
    app_commands.Choice(name=locale_str("Very filthy (−20)", key="cmd.flows.choice.filthy_20"), value="-20"),
    app_commands.Choice(name=locale_str("Foul (−30)", key="cmd.flows.choice.filthy_30"), value="-30"),
]


@app_commands.guild_only()
class InfectionGroup(app_commands.Group):
    pass


class InfectionCog(commands.Cog):
    infection = InfectionGroup(name="infection", description="Wound infection: the next-day Toughness test")

    def __init__(self, bot: MeleeBot) -> None:
        self.bot = bot

    @infection.command(
        name="test", description="The next-day T test of one open wound, with the seed's modifiers"
    )
    @app_commands.describe(
        critical="The wound's critical value (1-15; 1 needs no test; default: the sheet's open wounds)",
        character="Whose wound (default: your active character)",
        t="Toughness (T) % (default: the character's)",
        tb="Toughness bonus (default: the character's)",
        fragment="A weapon fragment in the wound (−20)",
        barbed="A barbed arrow wound (−10)",
        weapon="The weapon's cleanliness",
        washed="The wound was washed (+10)",
        suture="The wound was stitched",
        ointment="An ointment was applied (+20)",
        environment="Filthy surroundings",
        hygiene="Poor hygiene (−10)",
        hardy="Hardy (Dur à cuire) (+10; default: the sheet's talents)",
        resistance="Resistance to disease (+10; default: the sheet's talents)",
        dwarf_halfling="Dwarf or halfling (+10; default: the sheet's race)",
        bedridden="Stays in bed (otherwise the 21-40 durations double)",
        modifier="Any other modifier, in %",
        roll="The d100 rolled by hand (default: the bot rolls)",
        rolls='The sheet\'s open wounds: one d100 per wound, in order ("35 72")',
    )
    @app_commands.choices(weapon=WEAPON_CHOICES, suture=SUTURE_CHOICES, environment=ENVIRONMENT_CHOICES)
    async def test(
        self,
        interaction: Interaction,
        critical: app_commands.Range[int, 1, 15] | None = None,
        character: app_commands.Range[str, 1, 64] | None = None,
        t: app_commands.Range[int, 0, 100] | None = None,
        tb: app_commands.Range[int, 0, 10] | None = None,
        fragment: bool = False,
        barbed: bool = False,
        weapon: str | None = None,
        washed: bool = False,
        suture: str | None = None,
        ointment: bool = False,
        environment: str | None = None,
        hygiene: bool = False,
        hardy: bool | None = None,
        resistance: bool | None = None,
        dwarf_halfling: bool | None = None,
        bedridden: bool = True,
        modifier: app_commands.Range[int, -100, 100] = 0,
        roll: app_commands.Range[int, 0, 100] | None = None,
        rolls: app_commands.Range[str, 1, 100] | None = None,
    ) -> None:
        result = await service.infection_test(
            ctx_of(interaction),
            caller_of(interaction),
            critical=critical,
            character=character,
            e=t,
            be=tb,
            fragment=fragment,
            barbed=barbed,
            weapon=weapon,
            washed=washed,
            suture=suture,
            ointment=ointment,
            environment=environment,
            hygiene=hygiene,
            hardy=hardy,
            resistance=resistance,
            dwarf_halfling=dwarf_halfling,
            bedridden=bedridden,
            extra=modifier,
            roll=roll,
            rolls=rolls,
        )
        await send_reply(interaction, result.reply)

    @infection.command(name="amputation", description="After amputating a gangrenous limb: the T test")
    @app_commands.describe(
        character="Who (default: your active character)",
        t="Toughness (T) % (default: the character's)",
        heal_passed="A Heal test after the amputation succeeded (+10 % and +10 % per °R)",
        heal_degrees="°R of that Heal test",
        roll="The d100 rolled by hand (default: the bot rolls)",
    )
    async def amputation(
        self,
        interaction: Interaction,
        character: app_commands.Range[str, 1, 64] | None = None,
        t: app_commands.Range[int, 0, 100] | None = None,
        heal_passed: bool = False,
        heal_degrees: app_commands.Range[int, 0, 10] = 0,
        roll: app_commands.Range[int, 0, 100] | None = None,
    ) -> None:
        result = await service.amputation(
            ctx_of(interaction),
            caller_of(interaction),
            character=character,
            e=t,
            soins_success=heal_passed,
            soins_degrees=heal_degrees,
            roll=roll,
        )
        await send_reply(interaction, result.reply)


async def setup(bot: MeleeBot) -> None:
    await bot.add_cog(InfectionCog(bot))
