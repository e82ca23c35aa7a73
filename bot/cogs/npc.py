"""``/npc …`` (``/pnj …``): the GM's bestiary, NPC templates saved once per server and added to a
fight by name with a count (``/combat ajouter qui:"3 bandits"``)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from discord import app_commands
from discord.ext import commands

from bot.cogs._common import Interaction, caller_of, ctx_of, send_reply
from bot.services.fights import bestiary as service
from bot.services.fights.bestiary import NAME_MAX, TemplateInput

if TYPE_CHECKING:
    from bot.app import MeleeBot

log = logging.getLogger(__name__)


async def template_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    try:
        pairs = await service.template_choices(ctx_of(interaction), caller_of(interaction), current)
    except Exception:  # an autocomplete never shows an error: it offers nothing
        log.warning("npc template autocomplete failed", exc_info=False)
        return []
    return [app_commands.Choice(name=label[:100], value=value[:100]) for label, value in pairs[:25]]


@app_commands.guild_only()
class NpcGroup(app_commands.Group):
    pass


class NpcCog(commands.Cog):
    npc = NpcGroup(name="npc", description="The GM's bestiary: this server's NPC templates")

    def __init__(self, bot: MeleeBot) -> None:
        self.bot = bot

    @npc.command(name="save", description="Save or complete an NPC template (GM)")
    @app_commands.describe(
        name="The template's name, in the singular (Bandit, Troll, Garde du Reik)",
        ws="WS (CC)",
        bs="BS (CT)",
        s="Strength (F)",
        t="Toughness (E)",
        ag="Agility (Ag)",
        attacks="Attacks (A)",
        sb="Strength bonus (BF), if not from F",
        tb="Toughness bonus (BE), if not from E",
        weapons="Weapons, comma-separated (the other rulesets: profiles such as “Épée +1, Arc tir”)",
        armour="Armour pieces, comma-separated",
        stats="Other characteristics and skills: renove Int:30 Esquive:10; v1, d20, ogl CC:40 F:3 B:8",
        monster="A monster (its SB and TB are F and E doubled) rather than a character",
    )
    @app_commands.autocomplete(name=template_autocomplete)
    async def save(
        self,
        interaction: Interaction,
        name: app_commands.Range[str, 1, NAME_MAX],
        ws: app_commands.Range[int, 0, 100] | None = None,
        bs: app_commands.Range[int, 0, 100] | None = None,
        s: app_commands.Range[int, 0, 100] | None = None,
        t: app_commands.Range[int, 0, 100] | None = None,
        ag: app_commands.Range[int, 0, 100] | None = None,
        attacks: app_commands.Range[int, 1, 10] | None = None,
        sb: app_commands.Range[int, 0, 20] | None = None,
        tb: app_commands.Range[int, 0, 20] | None = None,
        weapons: app_commands.Range[str, 1, 200] | None = None,
        armour: app_commands.Range[str, 1, 300] | None = None,
        stats: app_commands.Range[str, 1, 300] | None = None,
        monster: bool | None = None,
    ) -> None:
        data = TemplateInput(
            name=name,
            cc=ws,
            ct=bs,
            f=s,
            e=t,
            ag=ag,
            a=attacks,
            bf=sb,
            be=tb,
            weapons=weapons,
            armour=armour,
            caracs=stats,
            monster=monster,
        )
        result = await service.save_template(ctx_of(interaction), caller_of(interaction), data)
        await send_reply(interaction, result.reply)

    @npc.command(name="list", description="This server's NPC templates and the creatures to complete")
    async def list_(self, interaction: Interaction) -> None:
        result = await service.list_templates(ctx_of(interaction), caller_of(interaction))
        await send_reply(interaction, result.reply)

    @npc.command(name="show", description="Show an NPC template")
    @app_commands.describe(name="The template")
    @app_commands.autocomplete(name=template_autocomplete)
    async def show(self, interaction: Interaction, name: app_commands.Range[str, 1, NAME_MAX]) -> None:
        result = await service.show_template(ctx_of(interaction), caller_of(interaction), name=name)
        await send_reply(interaction, result.reply)

    @npc.command(name="delete", description="Delete an NPC template (GM)")
    @app_commands.describe(name="The template")
    @app_commands.autocomplete(name=template_autocomplete)
    async def delete(self, interaction: Interaction, name: app_commands.Range[str, 1, NAME_MAX]) -> None:
        result = await service.delete_template(ctx_of(interaction), caller_of(interaction), name=name)
        await send_reply(interaction, result.reply)


async def setup(bot: MeleeBot) -> None:
    await bot.add_cog(NpcCog(bot))
