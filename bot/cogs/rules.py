"""``/rules`` (``/regles``): browse the data tables; import, export and reset the server's house rules."""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs._common import Interaction, caller_of, ctx_of, send_reply
from bot.services import house_rules, rules_browser
from bot.ui.discord_render import content_of, to_embed

if TYPE_CHECKING:
    from bot.app import MeleeBot

TABLE_MAX = 64
ENTRY_MAX = 100


def _choices(pairs: list[tuple[str, str]]) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=name, value=value) for name, value in pairs]


async def _table_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    return _choices(rules_browser.table_choices(ctx_of(interaction), str(interaction.locale), current))


async def _entry_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    table = getattr(interaction.namespace, "table", None)
    if not isinstance(table, str) or not table:
        return []
    pairs = await rules_browser.entry_choices(ctx_of(interaction), caller_of(interaction), table, current)
    return _choices(pairs)


class ResetConfirm(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=re.escape(house_rules.RESET_CUSTOM_ID_PREFIX) + r"(?P<table>[a-z0-9_]{1,64})",
):
    """The confirmation button of ``/regles reinitialiser``; works after a restart (fixed custom id)."""

    def __init__(self, table: str) -> None:
        super().__init__(
            discord.ui.Button(
                label="Reset",
                style=discord.ButtonStyle.danger,
                custom_id=house_rules.RESET_CUSTOM_ID_PREFIX + table,
            )
        )
        self.table = table

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ResetConfirm:
        return cls(match["table"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        reply = await house_rules.reset_house_rules(
            ctx_of(interaction), caller_of(interaction), name=self.table
        )
        await send_reply(interaction, reply)


class RulesCog(commands.Cog):
    rules = app_commands.Group(
        name="rules", description="Browse the rules tables and manage the server's house rules"
    )

    def __init__(self, bot: MeleeBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(ResetConfirm)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(ResetConfirm)

    @rules.command(name="show", description="Show one entry of a table (critical, weapon, armour, modifier…)")
    @app_commands.describe(
        table="The table (type to search by title)",
        entry='The entry: id or name; for criticals "jambes 5", "tete 12"',
    )
    @app_commands.autocomplete(table=_table_autocomplete, entry=_entry_autocomplete)
    async def show(
        self,
        interaction: Interaction,
        table: app_commands.Range[str, 1, TABLE_MAX],
        entry: app_commands.Range[str, 1, ENTRY_MAX],
    ) -> None:
        reply = await rules_browser.show_entry(
            ctx_of(interaction), caller_of(interaction), name=table, entry=entry
        )
        await send_reply(interaction, reply)

    @rules.command(name="tables", description="List the rules tables with their number of entries")
    async def tables(self, interaction: Interaction) -> None:
        reply = await rules_browser.list_tables(ctx_of(interaction), caller_of(interaction))
        await send_reply(interaction, reply)

    @rules.command(name="notes", description="The readings made while transcribing a table")
    @app_commands.describe(
        table="The table (type to search by title)", page="Page of the notes (1 by default)"
    )
    @app_commands.autocomplete(table=_table_autocomplete)
    async def notes(
        self,
        interaction: Interaction,
        table: app_commands.Range[str, 1, TABLE_MAX],
        page: app_commands.Range[int, 1, 100] = 1,
    ) -> None:
        reply = await rules_browser.show_notes(
            ctx_of(interaction), caller_of(interaction), name=table, page=page
        )
        await send_reply(interaction, reply)

    @rules.command(name="import", description="Import house rules (a JSON file) for this server (GM)")
    @app_commands.describe(file='JSON: {"table": "weapons_melee", "entries": [...]}, 256 KiB at most')
    async def import_(self, interaction: Interaction, file: discord.Attachment) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        reply = await house_rules.import_house_rules(
            ctx_of(interaction),
            caller_of(interaction),
            filename=file.filename,
            size=file.size,
            read=file.read,
        )
        await send_reply(interaction, reply)

    @rules.command(name="export", description="Download the table in force on this server (a JSON file)")
    @app_commands.describe(table="The table (type to search by title)")
    @app_commands.autocomplete(table=_table_autocomplete)
    async def export(self, interaction: Interaction, table: app_commands.Range[str, 1, TABLE_MAX]) -> None:
        export = await house_rules.export_table(
            ctx_of(interaction), caller_of(interaction), name=table.strip()
        )
        if export.data is None or export.filename is None:
            await send_reply(interaction, export.reply)
            return
        kwargs: dict[str, Any] = {"allowed_mentions": discord.AllowedMentions.none()}
        embed = to_embed(export.reply)
        if embed is not None:
            kwargs["embed"] = embed
        content = content_of(export.reply)
        if content is not None:
            kwargs["content"] = content
        file = discord.File(io.BytesIO(export.data), filename=export.filename)
        await interaction.response.send_message(ephemeral=export.reply.ephemeral, file=file, **kwargs)
        ctx_of(interaction).observe(interaction.id, export.reply)

    @rules.command(
        name="reset", description="Remove a table's house rules on this server (GM, asks to confirm)"
    )
    @app_commands.describe(table="The table whose house rules are removed")
    @app_commands.autocomplete(table=_table_autocomplete)
    async def reset(self, interaction: Interaction, table: app_commands.Range[str, 1, TABLE_MAX]) -> None:
        reply = await house_rules.reset_prompt(
            ctx_of(interaction), caller_of(interaction), name=table.strip()
        )
        await send_reply(interaction, reply)


async def setup(bot: MeleeBot) -> None:
    await bot.add_cog(RulesCog(bot))
