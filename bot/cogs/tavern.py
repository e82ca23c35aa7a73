"""``/tavern`` (``/taverne``): arm wrestling, cards, dice, drinking contest, knife throwing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from discord import app_commands
from discord.ext import commands

from bot.cogs._common import Interaction, caller_of, ctx_of, send_reply
from bot.services.flows import tavern as service

if TYPE_CHECKING:
    from bot.app import MeleeBot

TEXT_MAX = 500
Text = app_commands.Range[str, 1, TEXT_MAX]


@app_commands.guild_only()
class TavernGroup(app_commands.Group):
    pass


class TavernCog(commands.Cog):
    tavern = TavernGroup(name="tavern", description="Tavern games, played in one command")

    def __init__(self, bot: MeleeBot) -> None:
        self.bot = bot

    async def _play(
        self, interaction: Interaction, game: str, players: str, dice: str | None, full: bool
    ) -> None:
        result = await service.play(
            ctx_of(interaction), caller_of(interaction), game=game, players=players, dice=dice, full=full
        )
        await send_reply(interaction, result.reply)

    @tavern.command(name="armwrestling", description="Arm wrestling: opposed S tests (full: first to ±2)")
    @app_commands.describe(
        players="Two players: Name f=45 [triche jeu=40], Name f=40 per=35",
        full="Full version (score to ±2, cheating allowed)",
        dice="d100 rolled by hand per player: Name 45 30, Name 20",
    )
    async def armwrestling(
        self,
        interaction: Interaction,
        players: Text,
        full: bool = False,
        dice: Text | None = None,
    ) -> None:
        await self._play(interaction, "arm_wrestling", players, dice, full)

    @tavern.command(
        name="cards", description="Cards: simple (1d100 + Int/2 with Gamble) or full (5-card hands)"
    )
    @app_commands.describe(
        players="Name int=40 jeu=45 per=30 [triche], Name int=35 per=40",
        full="Full version: deal 5 cards each and show down",
        dice="d100 rolled by hand per player: Name 45 30, Name 20",
    )
    async def cards(
        self,
        interaction: Interaction,
        players: Text,
        full: bool = False,
        dice: Text | None = None,
    ) -> None:
        await self._play(interaction, "cards", players, dice, full)

    @tavern.command(
        name="dice", description="Dice: simple (1d100 + Int/2) or full (5d6 combinations, loaded dice)"
    )
    @app_commands.describe(
        players="Simple: Name int=40 jeu=45 [triche]; full: Name pipes=2 garde=6.6, Name",
        full="Full version: 5d6 and combinations",
        dice="Dice rolled by hand per player: Name 6 6 3 2 1, Name …",
    )
    async def dice(
        self,
        interaction: Interaction,
        players: Text,
        full: bool = False,
        dice: Text | None = None,
    ) -> None:
        await self._play(interaction, "dice", players, dice, full)

    @tavern.command(name="drinking", description="Drinking contest: four failed tests and you are out")
    @app_commands.describe(
        players="Name res=45 [triche jeu=40] per=30, Name res=50 per=35",
        dice="d100 rolled by hand per player, in order: Name 45 30, Name 20",
    )
    async def drinking(
        self,
        interaction: Interaction,
        players: Text,
        dice: Text | None = None,
    ) -> None:
        await self._play(interaction, "drinking", players, dice, False)

    @tavern.command(name="knives", description="Knife throwing: three throws under BS, most points wins")
    @app_commands.describe(
        players="Name ct=40 [maitrise], Name ct=35 (BS/2 without Specialist Weapon (Throwing))",
        dice="Dice rolled by hand per player: Name 12 55 30 7, Name …",
    )
    async def knives(
        self,
        interaction: Interaction,
        players: Text,
        dice: Text | None = None,
    ) -> None:
        await self._play(interaction, "knives", players, dice, False)


async def setup(bot: MeleeBot) -> None:
    await bot.add_cog(TavernCog(bot))
