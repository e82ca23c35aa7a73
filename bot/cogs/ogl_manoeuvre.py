"""``/maneuver`` (``/manoeuvre``): the `ogl` manoeuvres of a fight thread — hero points, counter-attack,
two weapons, mounted combat, grapple, pulling out an impaled weapon, area effects (each fighter caught
dives or takes it). Thin: parse,
call the use-case modules of :mod:`bot.services.fights.systems.ogl_manoeuvres` (the area effect:
:mod:`~bot.services.fights.systems.ogl_area`), answer and edit the tracker like ``/combat``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.cogs._common import Interaction, caller_of, ctx_of
from bot.cogs.combat import settle
from bot.services.fights.choices import combatant_choices
from bot.services.fights.systems import ogl_area
from bot.services.fights.systems.ogl_manoeuvres import counter as ogl_counter
from bot.services.fights.systems.ogl_manoeuvres import grapple as ogl_grapple
from bot.services.fights.systems.ogl_manoeuvres import hero as ogl_hero
from bot.services.fights.systems.ogl_manoeuvres import impale as ogl_impale
from bot.services.fights.systems.ogl_manoeuvres import mount as ogl_mount
from bot.services.fights.systems.ogl_manoeuvres import two_weapons as ogl_two_weapons

if TYPE_CHECKING:
    from bot.app import MeleeBot


def _choice(label: str, value: str) -> app_commands.Choice[str]:
    return app_commands.Choice(name=locale_str(label, key=f"cmd.maneuver.choice.{value}"), value=value)


HERO_USES = [
    _choice("Second chance (reroll)", "seconde_chance"),
    _choice("Second chance (damage roll)", "seconde_chance_degats"),
    _choice("Graze (major wound)", "eraflure"),
    _choice("Hero's luck (GM)", "chance_du_heros"),
]
TRIGGERS = [
    _choice("Ranged attack", "tir"),
    _choice("Changes position", "change_de_position"),
    _choice("Moves away (no withdraw)", "s_eloigne"),
    _choice("Approaches (no charge)", "s_approche"),
    _choice("Leaves his guard open", "garde_ouverte"),
    _choice("Runs (+20 %)", "court"),
    _choice("Moves", "se_deplace"),
]
OFF_HAND = [_choice("Extra parry", "parade"), _choice("Extra attack", "attaque")]
GRAPPLE = [
    _choice("Grab", "saisir"),
    _choice("Immobilise", "immobiliser"),
    _choice("Escape", "se_degager"),
    _choice("Throw", "projeter"),
]


@app_commands.guild_only()
class ManeuverGroup(app_commands.Group):
    pass


class ManeuverCog(commands.Cog):
    maneuver = ManeuverGroup(
        name="maneuver",
        description="ogl fights: hero points, counter-attack, two weapons, mount, grapple, area effects",
    )

    def __init__(self, bot: MeleeBot) -> None:
        self.bot = bot

    @maneuver.command(name="hero", description="Spend a hero point: second chance, graze, hero's luck")
    @app_commands.describe(
        use="How the point is spent",
        who="Which fighter (default: yours)",
        roll="Second chance: the new d100; graze: the 1d4 of actions lost",
        damage="Second chance: the damage dice (a miss turned into a hit, or a damage reroll)",
        note="Hero's luck: what changes",
    )
    @app_commands.choices(use=HERO_USES)
    async def hero(
        self,
        interaction: Interaction,
        use: str,
        who: app_commands.Range[str, 1, 80] | None = None,
        roll: app_commands.Range[int, 0, 100] | None = None,
        damage: app_commands.Range[str, 1, 20] | None = None,
        note: app_commands.Range[str, 1, 300] | None = None,
    ) -> None:
        result = ogl_hero.hero_point(
            ctx_of(interaction), caller_of(interaction), use=use, who=who, roll=roll, dice=damage, note=note
        )
        await settle(interaction, result)

    @maneuver.command(name="counter", description="Counter-attack an adjacent enemy (a reaction)")
    @app_commands.describe(
        target="The enemy who triggers it",
        trigger="What he does",
        who="Which fighter counter-attacks (default: yours)",
        weapon="The melee weapon (default: the main one)",
        roll="The attack d100",
        location="Where it hits (tete, poitrine, bras_d …)",
        damage="The damage dice",
        effects="The 1d4 of actions lost / the fumble d20",
    )
    @app_commands.choices(trigger=TRIGGERS)
    async def counter(
        self,
        interaction: Interaction,
        target: app_commands.Range[str, 1, 80],
        trigger: str,
        who: app_commands.Range[str, 1, 80] | None = None,
        weapon: app_commands.Range[str, 1, 80] | None = None,
        roll: app_commands.Range[int, 0, 100] | None = None,
        location: app_commands.Range[str, 1, 40] | None = None,
        damage: app_commands.Range[str, 1, 20] | None = None,
        effects: app_commands.Range[str, 1, 60] | None = None,
    ) -> None:
        result = ogl_counter.counter_attack(
            ctx_of(interaction),
            caller_of(interaction),
            target=target,
            trigger=trigger,
            who=who,
            weapon=weapon,
            roll=roll,
            location=location,
            damage=damage,
            effects=effects,
        )
        await settle(interaction, result)

    @maneuver.command(name="two-weapons", description="The off hand this round: an extra parry or attack")
    @app_commands.describe(
        use="Extra parry (beyond the reaction limit) or extra melee attack",
        who="Which fighter (default: yours)",
        target="Extra attack: whom",
        weapon="Extra attack: the off-hand weapon (default: the second one)",
        roll="Extra attack: the d100",
        location="Extra attack: where it hits",
        damage="Extra attack: the damage dice",
        effects="Extra attack: the 1d4 of actions lost / the fumble d20",
    )
    @app_commands.choices(use=OFF_HAND)
    async def two_weapons(
        self,
        interaction: Interaction,
        use: str,
        who: app_commands.Range[str, 1, 80] | None = None,
        target: app_commands.Range[str, 1, 80] | None = None,
        weapon: app_commands.Range[str, 1, 80] | None = None,
        roll: app_commands.Range[int, 0, 100] | None = None,
        location: app_commands.Range[str, 1, 40] | None = None,
        damage: app_commands.Range[str, 1, 20] | None = None,
        effects: app_commands.Range[str, 1, 60] | None = None,
    ) -> None:
        result = ogl_two_weapons.two_weapons(
            ctx_of(interaction),
            caller_of(interaction),
            use=use,
            who=who,
            target=target,
            weapon=weapon,
            roll=roll,
            location=location,
            damage=damage,
            effects=effects,
        )
        await settle(interaction, result)

    @maneuver.command(name="mount", description="A fighter mounts or dismounts (the modifiers then apply)")
    @app_commands.describe(mounted="Mounted (true) or on foot (false)", who="Which fighter (default: yours)")
    async def mount(
        self, interaction: Interaction, mounted: bool, who: app_commands.Range[str, 1, 80] | None = None
    ) -> None:
        result = ogl_mount.set_mount(
            ctx_of(interaction), caller_of(interaction), mounted_now=mounted, who=who
        )
        await settle(interaction, result)

    @maneuver.command(name="pull-out", description="Pull out a weapon that impaled a fighter")
    @app_commands.describe(
        victim="The impaled fighter",
        who="Who pulls it out: the wielder (Athletics), the victim (an action), another (First Aid)",
        roll="The d100 of the test",
        damage="The weapon's damage dice, then the 1d4 of actions lost",
    )
    async def pull_out(
        self,
        interaction: Interaction,
        victim: app_commands.Range[str, 1, 80],
        who: app_commands.Range[str, 1, 80] | None = None,
        roll: app_commands.Range[int, 0, 100] | None = None,
        damage: app_commands.Range[str, 1, 40] | None = None,
    ) -> None:
        result = ogl_impale.pull_out(
            ctx_of(interaction), caller_of(interaction), victim=victim, who=who, roll=roll, damage=damage
        )
        await settle(interaction, result)

    @maneuver.command(name="grapple", description="Grapple: grab, immobilise, escape, throw")
    @app_commands.describe(
        action="The grapple action",
        target="Grab, immobilise, throw: whom",
        who="Which fighter (default: yours)",
        roll="Your Bagarre d100",
        target_roll="The opponent's Bagarre d100 (opposed tests)",
        location="Throw: where the 1d6 lands",
        damage="Throw: the 1d6",
        effects="Throw: the 1d4 of actions lost",
    )
    @app_commands.choices(action=GRAPPLE)
    async def grapple(
        self,
        interaction: Interaction,
        action: str,
        target: app_commands.Range[str, 1, 80] | None = None,
        who: app_commands.Range[str, 1, 80] | None = None,
        roll: app_commands.Range[int, 0, 100] | None = None,
        target_roll: app_commands.Range[int, 0, 100] | None = None,
        location: app_commands.Range[str, 1, 40] | None = None,
        damage: app_commands.Range[int, 1, 6] | None = None,
        effects: app_commands.Range[str, 1, 20] | None = None,
    ) -> None:
        result = ogl_grapple.grapple(
            ctx_of(interaction),
            caller_of(interaction),
            action=action,
            who=who,
            target=target,
            roll=roll,
            target_roll=target_roll,
            location=location,
            damage=damage,
            effects=effects,
        )
        await settle(interaction, result)

    @maneuver.command(name="area", description="An area effect catches fighters: each may dive or take it")
    @app_commands.describe(
        name="What it is (fireball, explosion …)",
        damage="Its damage dice (3d6, 2d6+2) or the damage typed (7)",
        targets="Fighters caught and where: Orc: tete; Knight: tout sans_issue",
        location="Location for those without one (tete … or tout: every location)",
        source="The fighter producing it (default: the GM)",
        dice="The damage dice rolled by hand",
    )
    async def area(
        self,
        interaction: Interaction,
        name: app_commands.Range[str, 1, 60],
        damage: app_commands.Range[str, 1, 30],
        targets: app_commands.Range[str, 1, 300],
        location: app_commands.Range[str, 1, 40] | None = None,
        source: app_commands.Range[str, 1, 80] | None = None,
        dice: app_commands.Range[str, 1, 80] | None = None,
    ) -> None:
        result = ogl_area.area_effect(
            ctx_of(interaction),
            caller_of(interaction),
            name=name,
            damage=damage,
            targets=targets,
            location=location,
            source=source,
            dice=dice,
        )
        await settle(interaction, result)

    @hero.autocomplete("who")
    @counter.autocomplete("who")
    @counter.autocomplete("target")
    @two_weapons.autocomplete("who")
    @two_weapons.autocomplete("target")
    @mount.autocomplete("who")
    @pull_out.autocomplete("victim")
    @pull_out.autocomplete("who")
    @grapple.autocomplete("who")
    @grapple.autocomplete("target")
    @area.autocomplete("source")
    async def _fighter(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        choices = await combatant_choices(ctx_of(interaction), caller_of(interaction), current)
        return [app_commands.Choice(name=label[:100], value=value[:100]) for label, value in choices]


async def setup(bot: MeleeBot) -> None:
    await bot.add_cog(ManeuverCog(bot))
