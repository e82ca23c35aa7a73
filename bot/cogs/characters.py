"""``/character …`` (``/perso …``) and ``/history`` (``/historique``): sheets and the roll log."""

from __future__ import annotations

import io
import logging
import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.cogs._common import Interaction, answer_in_time, caller_of, ctx_of, send_reply
from bot.services import characters as service
from bot.services.characters import CAREER_MAX, NAME_MAX, NOTES_MAX
from bot.ui.discord_render import to_embed

if TYPE_CHECKING:
    from bot.app import MeleeBot

log = logging.getLogger(__name__)

STATS_MAX = 500
LIST_MAX = 1000
EQUIP_MAX = 300  # a comma-separated list of items

RULESET_CHOICES = [
    app_commands.Choice(name=locale_str("Renovated WFRP", key="characters.choice.renove"), value="renove"),
    app_commands.Choice(name=locale_str("WFRP 1st ed. (v1)", key="characters.choice.v1"), value="v1"),
    app_commands.Choice(name=locale_str("d20 procedures", key="characters.choice.d20"), value="d20"),
    app_commands.Choice(name=locale_str("OGL (RuneQuest-like)", key="characters.choice.ogl"), value="ogl"),
]
RACE_CHOICES = [
    app_commands.Choice(name=locale_str("Human", key="characters.race.humain"), value="humain"),
    app_commands.Choice(name=locale_str("Dwarf", key="characters.race.nain"), value="nain"),
    app_commands.Choice(name=locale_str("Elf", key="characters.race.elfe"), value="elfe"),
    app_commands.Choice(name=locale_str("Halfling", key="characters.race.halfling"), value="halfling"),
    app_commands.Choice(name=locale_str("Other (a creature)", key="characters.race.autre"), value="autre"),
]
# The grammatical gender the replies agree with (« Élise est touchée »); asked once, on the sheet.
GENDER_CHOICES = [
    app_commands.Choice(name=locale_str("Masculine", key="characters.gender.m"), value="m"),
    app_commands.Choice(name=locale_str("Feminine", key="characters.gender.f"), value="f"),
]


def _choices(pairs: list[tuple[str, str]]) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=label[:100], value=value[:100]) for label, value in pairs[:25]]


async def character_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    try:
        return _choices(await service.character_choices(ctx_of(interaction), caller_of(interaction), current))
    except Exception:  # an autocomplete never shows an error: it offers nothing
        log.warning("character autocomplete failed", exc_info=False)
        return []


async def weapon_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    caller = caller_of(interaction)
    return _choices(service.item_choices(ctx_of(interaction), caller.locale, "weapon", current))


async def armour_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    caller = caller_of(interaction)
    return _choices(service.item_choices(ctx_of(interaction), caller.locale, "armour", current))


async def equipped_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    ctx, caller = ctx_of(interaction), caller_of(interaction)
    name = getattr(interaction.namespace, "character", None)
    try:
        return _choices(await service.equipped_choices(ctx, caller, name, current))
    except Exception:
        log.warning("equipment autocomplete failed", exc_info=False)
        return []


class DeleteCharacterButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=re.compile(r"melee:perso:del:(?P<id>[0-9]{1,18}):(?P<version>[0-9]{1,9})"),
):
    """The confirm button of ``/character delete``: its id carries the sheet and its version."""

    def __init__(self, character_id: int, version: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Delete",
                style=discord.ButtonStyle.danger,
                custom_id=service.delete_custom_id(character_id, version),
            )
        )
        self.character_id = character_id
        self.version = version

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> DeleteCharacterButton:
        return cls(int(match["id"]), int(match["version"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        ctx = ctx_of(interaction)
        reply = await service.confirm_delete(
            ctx, caller_of(interaction), character_id=self.character_id, version=self.version
        )
        if reply.is_error:
            await send_reply(interaction, reply)
            return
        await interaction.response.edit_message(content=None, embed=to_embed(reply), view=None)
        ctx.observe(interaction.id, reply)


@app_commands.guild_only()
class CharacterGroup(app_commands.Group):
    pass


class CharactersCog(commands.Cog):
    character = CharacterGroup(name="character", description="Character sheets on this server")

    def __init__(self, bot: MeleeBot) -> None:
        self.bot = bot

    @character.command(name="create", description="Create a character sheet")
    @app_commands.describe(
        name="The character's name (64 characters at most)",
        ruleset="Rule system (default: the one in force here)",
        stats="Characteristics, e.g. CC:45 CT:30 F:35 E:40 Ag:38 Int:31 FM:29 Soc:33",
        npc="A non-player character (GM only)",
        race="Race (default: human; a creature: other) — playable races get +3 SB, TB and AB",
        career="Career, e.g. Ratcatcher",
        gender="Grammatical gender of the replies (default: masculine)",
    )
    @app_commands.choices(ruleset=RULESET_CHOICES, race=RACE_CHOICES, gender=GENDER_CHOICES)
    async def create(
        self,
        interaction: Interaction,
        name: app_commands.Range[str, 1, NAME_MAX],
        stats: app_commands.Range[str, 1, STATS_MAX] | None = None,
        ruleset: str | None = None,
        npc: bool = False,
        race: str | None = None,
        career: app_commands.Range[str, 1, CAREER_MAX] | None = None,
        gender: str | None = None,
    ) -> None:
        created = service.create_character(
            ctx_of(interaction),
            caller_of(interaction),
            name=name,
            ruleset=ruleset,
            stats=stats,
            npc=npc,
            race=race,
            career=career,
            gender=gender,
        )
        await answer_in_time(interaction, created)  # a distant database: deferred in time

    @character.command(name="show", description="Show a character sheet")
    @app_commands.describe(
        character="Which character (default: your active one)",
        public="Show it to the channel (default: to you alone)",
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def show(
        self,
        interaction: Interaction,
        character: app_commands.Range[str, 1, NAME_MAX] | None = None,
        public: bool = False,
    ) -> None:
        reply = await service.show_character(
            ctx_of(interaction), caller_of(interaction), name=character, public=public
        )
        await send_reply(interaction, reply)

    @character.command(name="edit", description="Change characteristics, skills, talents, conditions, notes")
    @app_commands.describe(
        character="Which character (default: your active one)",
        stats="Characteristics: CC:50 sets, Fortune:-1 adjusts",
        skills="Skills: Esquive:10 Perception:+5 (0 removes; d20: Escalade:8/3)",
        talents="Talents, comma-separated: Ambidextre, -Sang-froid removes",
        conditions="Conditions, comma-separated: Sonné, -À terre removes",
        notes="Free notes (- clears them)",
        new_name="Rename the character",
        race="Race (playable races get +3 SB, TB and AB)",
        career="Career (- clears it)",
        xp="Experience: 120 total, 120/80 total/spent, +50 gained, -30 spent",
        money="Purse: 3 co 5 pa 10 s sets it, +2 co or -5 s changes it",
        wounds="GM: -2 clears wound 2, 2:note notes it, 2:closed closes it, +text adds one, -all",
        alive="GM: bring a character dead on the sheet back to life (the wounds stay)",
        gender="Grammatical gender of the replies",
    )
    @app_commands.choices(race=RACE_CHOICES, gender=GENDER_CHOICES)
    @app_commands.autocomplete(character=character_autocomplete)
    async def edit(
        self,
        interaction: Interaction,
        character: app_commands.Range[str, 1, NAME_MAX] | None = None,
        stats: app_commands.Range[str, 1, STATS_MAX] | None = None,
        skills: app_commands.Range[str, 1, LIST_MAX] | None = None,
        talents: app_commands.Range[str, 1, LIST_MAX] | None = None,
        conditions: app_commands.Range[str, 1, LIST_MAX] | None = None,
        notes: app_commands.Range[str, 1, NOTES_MAX] | None = None,
        new_name: app_commands.Range[str, 1, NAME_MAX] | None = None,
        race: str | None = None,
        career: app_commands.Range[str, 1, CAREER_MAX] | None = None,
        xp: app_commands.Range[str, 1, 20] | None = None,
        money: app_commands.Range[str, 1, 60] | None = None,
        wounds: app_commands.Range[str, 1, 300] | None = None,
        alive: bool = False,
        gender: str | None = None,
    ) -> None:
        reply = await service.edit_character(
            ctx_of(interaction),
            caller_of(interaction),
            name=character,
            stats=stats,
            skills=skills,
            talents=talents,
            conditions=conditions,
            notes=notes,
            new_name=new_name,
            race=race,
            career=career,
            xp=xp,
            money=money,
            wounds=wounds,
            alive=alive,
            gender=gender,
        )
        await send_reply(interaction, reply)

    @character.command(name="equip", description="Equip or remove weapons and armour pieces")
    @app_commands.describe(
        character="Which character (default: your active one)",
        weapon="Weapons from the tables, separated by commas",
        armour="Armour pieces from the tables, separated by commas",
        remove="Items to take off, separated by commas",
        off_hand="The weapon held in the off hand (« none »: none; other weapons are spares)",
    )
    @app_commands.autocomplete(
        character=character_autocomplete,
        weapon=weapon_autocomplete,
        armour=armour_autocomplete,
        remove=equipped_autocomplete,
        off_hand=weapon_autocomplete,
    )
    async def equip(
        self,
        interaction: Interaction,
        character: app_commands.Range[str, 1, NAME_MAX] | None = None,
        weapon: app_commands.Range[str, 1, EQUIP_MAX] | None = None,
        armour: app_commands.Range[str, 1, EQUIP_MAX] | None = None,
        remove: app_commands.Range[str, 1, EQUIP_MAX] | None = None,
        off_hand: app_commands.Range[str, 1, EQUIP_MAX] | None = None,
    ) -> None:
        reply = await service.equip_character(
            ctx_of(interaction),
            caller_of(interaction),
            name=character,
            weapon=weapon,
            armour=armour,
            remove=remove,
            off_hand=off_hand,
        )
        await send_reply(interaction, reply)

    @character.command(name="active", description="Choose the character you play on this server")
    @app_commands.describe(character="Your character (leave empty to see the current one)")
    @app_commands.autocomplete(character=character_autocomplete)
    async def active(
        self, interaction: Interaction, character: app_commands.Range[str, 1, NAME_MAX] | None = None
    ) -> None:
        reply = await service.set_active_character(
            ctx_of(interaction), caller_of(interaction), name=character
        )
        await send_reply(interaction, reply)

    @character.command(name="list", description="Your characters (every one for the GM)")
    async def list_(self, interaction: Interaction) -> None:
        reply = await service.list_characters(ctx_of(interaction), caller_of(interaction))
        await send_reply(interaction, reply)

    @character.command(name="delete", description="Delete a character (asks for confirmation)")
    @app_commands.describe(character="The character to delete")
    @app_commands.autocomplete(character=character_autocomplete)
    async def delete(self, interaction: Interaction, character: app_commands.Range[str, 1, NAME_MAX]) -> None:
        reply = await service.ask_delete(ctx_of(interaction), caller_of(interaction), name=character)
        await send_reply(interaction, reply)

    @character.command(name="export", description="Download a character sheet as a JSON file")
    @app_commands.describe(character="Which character (default: your active one)")
    @app_commands.autocomplete(character=character_autocomplete)
    async def export(
        self, interaction: Interaction, character: app_commands.Range[str, 1, NAME_MAX] | None = None
    ) -> None:
        ctx = ctx_of(interaction)
        result = await service.export_character(ctx, caller_of(interaction), name=character)
        if result.content is None or result.filename is None:
            await send_reply(interaction, result.reply)
            return
        embed = to_embed(result.reply)
        kwargs: dict[str, Any] = {"embed": embed} if embed is not None else {}
        await interaction.response.send_message(
            ephemeral=True,
            file=discord.File(io.BytesIO(result.content), filename=result.filename),
            allowed_mentions=discord.AllowedMentions.none(),
            **kwargs,
        )
        ctx.observe(interaction.id, result.reply)

    @character.command(name="import", description="Create a character from an exported JSON file")
    @app_commands.describe(file="The JSON file (64 KiB at most)", name="Give it another name")
    async def import_(
        self,
        interaction: Interaction,
        file: discord.Attachment,
        name: app_commands.Range[str, 1, NAME_MAX] | None = None,
    ) -> None:
        ctx, caller = ctx_of(interaction), caller_of(interaction)
        content: bytes | None = None
        if file.size <= service.IMPORT_MAX_BYTES:
            await interaction.response.defer(ephemeral=True, thinking=True)
            try:
                content = await file.read()
            except (discord.HTTPException, discord.NotFound):
                content = None
        reply = await service.import_character(
            ctx, caller, filename=file.filename, size=file.size, content=content, name=name
        )
        await send_reply(interaction, reply)

    @app_commands.command(name="history", description="Recent rolls of a character or of this channel")
    @app_commands.describe(
        character="Only this character's rolls (default: this channel's)",
        limit="How many rolls (1-25)",
        page="Page of older rolls",
    )
    @app_commands.autocomplete(character=character_autocomplete)
    @app_commands.guild_only()
    async def history(
        self,
        interaction: Interaction,
        character: app_commands.Range[str, 1, NAME_MAX] | None = None,
        limit: app_commands.Range[int, 1, service.HISTORY_MAX] = 10,
        page: app_commands.Range[int, 1, 1000] = 1,
    ) -> None:
        history = service.roll_history(
            ctx_of(interaction), caller_of(interaction), character=character, limit=limit, page=page
        )
        await answer_in_time(interaction, history, ephemeral=True)  # a big log: deferred in time


async def setup(bot: MeleeBot) -> None:
    bot.add_dynamic_items(DeleteCharacterButton)
    await bot.add_cog(CharactersCog(bot))


async def teardown(bot: MeleeBot) -> None:
    bot.remove_dynamic_items(DeleteCharacterButton)
