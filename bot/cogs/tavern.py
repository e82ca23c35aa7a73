"""``/tavern`` (``/taverne``): arm wrestling, cards, dice, drinking contest, knife throwing."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.cogs._common import Interaction, caller_of, ctx_of, send_reply
from bot.services.flows import tavern as service
from bot.services.flows import tavern_table as table

if TYPE_CHECKING:
    from bot.app import MeleeBot

TEXT_MAX = 500
Text = app_commands.Range[str, 1, TEXT_MAX]

GAME_CHOICES = [
    app_commands.Choice(name=locale_str("Dice (full)", key="cmd.tavern.choice.dice"), value="dice"),
    app_commands.Choice(
        name=locale_str("Arm wrestling (full)", key="cmd.tavern.choice.armwrestling"), value="arm_wrestling"
    ),
    app_commands.Choice(name=locale_str("Cards (full)", key="cmd.tavern.choice.cards"), value="cards"),
    app_commands.Choice(name=locale_str("Knife throwing", key="cmd.tavern.choice.knives"), value="knives"),
]
_MOVES = {
    "throw": "Throw the dice",
    "load": "Place the loaded die (choice: its number)",
    "raise": "Raise the bet",
    "check": "No raise",
    "call": "Call the raise",
    "fold": "Fold",
    "reroll": "Reroll dice (choice: their numbers)",
    "keep": "Keep my dice",
    "pull": "Pull (arm wrestling)",
    "cheat": "Cheat (arm wrestling)",
    "hand": "See my hand (cards)",
    "swap": "Change cards (choice: the cards)",
    "stand": "Keep my hand (cards)",
    "slip": "Cheat with a hidden card (choice: hidden, then in hand)",
    "knife": "Throw a knife",
    "luck": "Reroll the miss (fortune point)",
    "miss": "Keep the miss (knives)",
}
MOVE_CHOICES = [
    app_commands.Choice(name=locale_str(label, key=f"cmd.tavern.choice.move.{value}"), value=value)
    for value, label in _MOVES.items()
]
_TABLE_TEMPLATE = r"melee:tavern:(?P<action>[a-z]{1,8}):(?P<id>[0-9]{1,18}):(?P<round>[0-9]{1,3})"


async def _table_move(
    interaction: discord.Interaction[Any],
    action: str,
    session_id: int,
    round_no: int,
    values: tuple[str, ...],
) -> None:
    result = await table.act(
        ctx_of(interaction),
        caller_of(interaction),
        action=action,
        session_id=session_id,
        round_no=round_no,
        values=values,
    )
    await send_reply(interaction, result.reply)


class TavernButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=re.compile(_TABLE_TEMPLATE)
):
    """A tavern board's buttons (``melee:tavern:<move>:<session>:<round>``): the clicker's move."""

    def __init__(self, action: str, session_id: int, round_no: int) -> None:
        custom_id = f"melee:tavern:{action}:{session_id}:{round_no}"
        super().__init__(discord.ui.Button(label=action, custom_id=custom_id))
        self.action, self.session_id, self.round_no = action, session_id, round_no

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TavernButton:
        return cls(match["action"], int(match["id"]), int(match["round"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _table_move(interaction, self.action, self.session_id, self.round_no, ())


class TavernSelect(
    discord.ui.DynamicItem[discord.ui.Select[discord.ui.View]], template=re.compile(_TABLE_TEMPLATE)
):
    """A tavern board's menus (dice to reroll, the die that shows the loaded face)."""

    def __init__(self, action: str, session_id: int, round_no: int) -> None:
        custom_id = f"melee:tavern:{action}:{session_id}:{round_no}"
        super().__init__(discord.ui.Select(custom_id=custom_id))
        self.action, self.session_id, self.round_no = action, session_id, round_no

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TavernSelect:
        return cls(match["action"], int(match["id"]), int(match["round"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        data: Any = interaction.data or {}
        values = tuple(str(v) for v in (data.get("values") or ()))[:5]
        await _table_move(interaction, self.action, self.session_id, self.round_no, values)


@app_commands.guild_only()
class TavernGroup(app_commands.Group):
    pass


class TavernCog(commands.Cog):
    tavern = TavernGroup(name="tavern", description="Tavern games: in one command, or move by move")

    def __init__(self, bot: MeleeBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(TavernButton, TavernSelect)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(TavernButton, TavernSelect)

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

    @tavern.command(name="match", description="A full game move by move, with buttons: dice or arm wrestling")
    @app_commands.describe(
        game="Dice (2 to 4 players), arm wrestling (two), cards (3 to 8) or knives (2 or more)",
        players="Name [pipes=2 | f=45 jeu=40 per=35 | main=A♠.K♥.10♦.7♣.9♠ cachees=A♥], Name …",
        stake="Dice: the starting stake each player puts in every round",
    )
    @app_commands.choices(game=GAME_CHOICES)
    async def match(
        self,
        interaction: Interaction,
        game: app_commands.Choice[str],
        players: Text,
        stake: app_commands.Range[int, 0, 10_000] = 0,
    ) -> None:
        result = await table.open_match(
            ctx_of(interaction), caller_of(interaction), game=game.value, players=players, stake=stake
        )
        await send_reply(interaction, result.reply)

    @tavern.command(name="play", description="Your move in this channel's tavern game (dice typed by hand)")
    @app_commands.describe(
        move="What you do",
        choice="Dice by number: 1 3 5 (reroll), 2 (loaded die); cards: 7♠ 9♦ (change), A♥ 7♠ (cheat)",
        dice="Dice rolled by hand: 6 6 3 2 1 (and the d20 of loaded dice); arm wrestling: the d100",
        player="The character you play, if you play several here",
    )
    @app_commands.choices(move=MOVE_CHOICES)
    async def play(
        self,
        interaction: Interaction,
        move: app_commands.Choice[str],
        choice: Text | None = None,
        dice: Text | None = None,
        player: Text | None = None,
    ) -> None:
        result = await table.act(
            ctx_of(interaction),
            caller_of(interaction),
            action=move.value,
            player=player,
            choice=choice,
            dice=dice,
        )
        await send_reply(interaction, result.reply)

    @tavern.command(name="stop", description="Stop this channel's tavern game (the GM or who opened it)")
    async def stop(self, interaction: Interaction) -> None:
        result = await table.stop(ctx_of(interaction), caller_of(interaction))
        await send_reply(interaction, result.reply)


async def setup(bot: MeleeBot) -> None:
    await bot.add_cog(TavernCog(bot))
