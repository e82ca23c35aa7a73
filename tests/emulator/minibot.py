"""A small discord.py bot run in-process against the emulator, to prove the emulator itself.

It uses what Mêlée uses (localised slash commands, groups, autocomplete, buttons, selects,
modals, threads, DMs, pins, files, defer + followup) without depending on the real bot.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

FRENCH = {
    "roll": "lancer",
    "Roll dice": "Lancer des dés",
    "expression": "expression",
    "Dice expression": "Expression de dés",
    "combat": "combat",
    "Fights": "Combats",
    "open": "ouvrir",
    "Open a fight": "Ouvrir un combat",
    "name": "nom",
    "Name of the fight": "Nom du combat",
}


class FrenchTranslator(app_commands.Translator):
    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        return FRENCH.get(string.message) if locale is discord.Locale.french else None


class DefenceView(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Parer", custom_id="fight:parry", style=discord.ButtonStyle.primary)
    async def parry(self, interaction: discord.Interaction, button: discord.ui.Button[DefenceView]) -> None:
        await interaction.response.edit_message(content=f"{interaction.user.name} pare !", view=None)

    @discord.ui.button(label="Esquiver", custom_id="fight:dodge")
    async def dodge(self, interaction: discord.Interaction, button: discord.ui.Button[DefenceView]) -> None:
        await interaction.response.defer()
        await interaction.edit_original_response(content=f"{interaction.user.name} esquive.")


class PickView(discord.ui.View):
    @discord.ui.select(
        placeholder="Arme",
        options=[
            discord.SelectOption(label="Épée", value="sword"),
            discord.SelectOption(label="Hache", value="axe"),
        ],
    )
    async def weapon(self, interaction: discord.Interaction, select: discord.ui.Select[PickView]) -> None:
        await interaction.response.send_message(f"choisi: {select.values[0]}", ephemeral=True)


class SheetModal(discord.ui.Modal, title="Fiche de personnage"):
    name: discord.ui.TextInput[SheetModal] = discord.ui.TextInput(label="Nom")
    wounds: discord.ui.TextInput[SheetModal] = discord.ui.TextInput(
        label="Points de blessure", required=False
    )

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"{self.name.value}/{self.wounds.value}")


class MiniBot(commands.Bot):
    def __init__(self, guild_id: int, gm_id: int, *, intents: discord.Intents | None = None) -> None:
        super().__init__(
            command_prefix="!",
            intents=intents or discord.Intents(guilds=True),
            help_command=None,
            guild_ready_timeout=0.05,
            allowed_mentions=discord.AllowedMentions.none(),
        )
        self.guild_id = guild_id
        self.gm_id = gm_id
        self.release_slow = asyncio.Event()
        self.errors: list[BaseException] = []
        self.ready_event = asyncio.Event()
        self.extra_commands: list[app_commands.Command[Any, Any, Any]] = []

    async def setup_hook(self) -> None:
        build_commands(self)
        for command in self.extra_commands:
            self.tree.add_command(command)
        await self.tree.set_translator(FrenchTranslator())
        self.add_view(DefenceView())
        guild = discord.Object(self.guild_id)
        self.tree.copy_global_to(guild=guild)
        await self.tree.sync(guild=guild)

    async def on_ready(self) -> None:
        self.ready_event.set()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        # discord.py waits 5 s before re-identifying (Discord's identify rate limit); not here.
        return None


def build_commands(bot: MiniBot) -> None:
    tree = bot.tree
    _ = app_commands.locale_str

    @tree.command(name=_("roll"), description=_("Roll dice"))
    @app_commands.describe(expression=_("Dice expression"))
    async def roll(interaction: discord.Interaction, expression: str, secret: bool = False) -> None:
        if secret:
            await interaction.response.defer(ephemeral=True, thinking=True)
            guild = interaction.guild
            assert guild is not None
            # Without the members intent the cache is empty: fetch the GM (as the real bot must).
            gm = await guild.fetch_member(bot.gm_id)
            await gm.send(f"{interaction.user.name}: {expression} = 42")
            await interaction.followup.send("Envoyé au MJ.", ephemeral=True)
            return
        await interaction.response.send_message(f"{expression} = 42 @everyone")

    combat = app_commands.Group(name=_("combat"), description=_("Fights"))

    @combat.command(name=_("open"), description=_("Open a fight"))
    @app_commands.describe(name=_("Name of the fight"))
    async def open_fight(interaction: discord.Interaction, name: str) -> None:
        await interaction.response.send_message(f"Combat : {name}")
        message = await interaction.original_response()
        thread = await message.create_thread(name=name)
        await thread.add_user(interaction.user)
        sent = await thread.send("À vous !", view=DefenceView())
        await sent.pin()

    tree.add_command(combat)

    perso = app_commands.Group(name="perso", description="Personnages")
    names = ["Aldric", "Alba", "Bertrand"]

    @perso.command(name="voir", description="Voir un personnage")
    async def see(interaction: discord.Interaction, nom: str) -> None:
        await interaction.response.send_message(embed=discord.Embed(title=nom, description="PV 12"))

    @see.autocomplete("nom")
    async def see_names(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=n, value=n) for n in names if n.lower().startswith(current.lower())]

    @perso.command(name="importer", description="Importer une fiche JSON")
    async def import_sheet(interaction: discord.Interaction, fichier: discord.Attachment) -> None:
        data = json.loads(await fichier.read())
        data["imported"] = True
        await interaction.response.send_message(
            "importé", file=discord.File(_bytes(json.dumps(data)), filename="export.json")
        )

    tree.add_command(perso)

    @tree.command(name="fiche", description="Remplir une fiche")
    async def sheet(interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(SheetModal())

    @tree.command(name="arme", description="Choisir une arme")
    async def weapon(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("Quelle arme ?", view=PickView())

    @tree.command(name="lent", description="Répond quand le test le permet")
    async def slow(interaction: discord.Interaction) -> None:
        await bot.release_slow.wait()
        try:
            await interaction.response.send_message("enfin")
        except discord.HTTPException as exc:
            bot.errors.append(exc)

    @tree.command(name="double", description="Répond deux fois (bug)")
    async def double(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("un")
        try:
            await interaction.client.http.request(  # the low-level call: a second initial response
                discord.http.Route(
                    "POST", "/interactions/{i}/{t}/callback", i=interaction.id, t=interaction.token
                ),
                json={"type": 4, "data": {"content": "deux"}},
            )
        except discord.HTTPException as exc:
            bot.errors.append(exc)


def _bytes(text: str) -> Any:
    import io

    return io.BytesIO(text.encode())
