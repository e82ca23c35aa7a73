"""``/chase`` (``/poursuite``): open, add runners, run, endurance, end — with a live board."""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.cogs._common import Interaction, caller_of, ctx_of, send_reply
from bot.cogs._common import _message_kwargs as message_kwargs
from bot.cogs._permissions import missing_permissions, permissions_reply
from bot.services.flows import chase as service
from bot.services.flows.common import Board, FlowResult
from bot.ui.discord_render import content_of, to_embed, to_view

if TYPE_CHECKING:
    from bot.app import MeleeBot

log = logging.getLogger(__name__)

ROLE_CHOICES = [
    app_commands.Choice(name=locale_str("Fugitive", key="cmd.flows.choice.fugitive"), value="fugitive"),
    app_commands.Choice(name=locale_str("Pursuer", key="cmd.flows.choice.pursuer"), value="pursuer"),
]


async def edit_board(interaction: discord.Interaction[Any], board: Board | None) -> None:
    """Edit the chase's live board message (if it was posted and still exists). A channel the bot
    may not read (403) leaves the board as it is: whoever acted is told privately, with the way
    to see the distances."""
    if board is None or board.message_id is None:
        return
    if interaction.channel_id == board.channel_id and missing_permissions(interaction, BOARD_PERMISSIONS):
        await _board_frozen(interaction, None)  # Discord would refuse the edit (403 50001)
        return
    channel = interaction.client.get_channel(board.channel_id)
    if channel is None:
        try:
            channel = await interaction.client.fetch_channel(board.channel_id)
        except discord.HTTPException as exc:
            await _board_frozen(interaction, exc)
            return
    if not isinstance(channel, discord.TextChannel | discord.Thread):
        return
    try:
        await channel.get_partial_message(board.message_id).edit(
            embed=to_embed(board.reply), view=to_view(board.reply), content=content_of(board.reply)
        )
    except discord.HTTPException as exc:
        log.warning("could not edit the chase board %s (%s)", board.message_id, exc)
        await _board_frozen(interaction, exc)


BOARD_PERMISSIONS = ("view_channel", "read_message_history")


async def _board_frozen(interaction: discord.Interaction[Any], exc: discord.HTTPException | None) -> None:
    if exc is not None and exc.code not in (50001, 50013):
        return
    missing = missing_permissions(interaction, BOARD_PERMISSIONS) or BOARD_PERMISSIONS[:1]
    note = permissions_reply(interaction, missing, "chase_board")
    try:
        await interaction.followup.send(ephemeral=True, wait=True, **message_kwargs(note))
    except discord.HTTPException:
        log.warning("could not tell that the chase board is frozen")


async def answer(interaction: discord.Interaction[Any], result: FlowResult) -> None:
    await send_reply(interaction, result.reply)
    await edit_board(interaction, result.board)


class ChaseButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=re.compile(r"melee:chase:(?P<action>run|endu|end):(?P<id>[0-9]{1,18})"),
):
    """Board buttons: roll movement or endurance for the clicker's runners; end the chase (GM)."""

    def __init__(self, action: str, session_id: int) -> None:
        super().__init__(discord.ui.Button(label=action, custom_id=f"melee:chase:{action}:{session_id}"))
        self.action = action
        self.session_id = session_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ChaseButton:
        return cls(match["action"], int(match["id"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        result = await service.click(
            ctx_of(interaction), caller_of(interaction), session_id=self.session_id, action=self.action
        )
        await answer(interaction, result)


@app_commands.guild_only()
class ChaseGroup(app_commands.Group):
    pass


class ChaseCog(commands.Cog):
    chase = ChaseGroup(name="chase", description="Escapes and chases, round by round")

    def __init__(self, bot: MeleeBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(ChaseButton)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(ChaseButton)

    @chase.command(name="open", description="Open a chase (GM): the fugitive's lead in metres")
    @app_commands.describe(lead="The fugitive's lead, in metres")
    async def open(
        self, interaction: Interaction, lead: app_commands.Range[int, 0, service.LEAD_MAX]
    ) -> None:
        ctx, caller = ctx_of(interaction), caller_of(interaction)
        result = await service.open_chase(ctx, caller, lead=lead)
        if result.session_id is None or result.reply.is_error:
            await send_reply(interaction, result.reply)
            return
        # The board is the response: remember its message id before anyone can move.
        await interaction.response.send_message(**message_kwargs(result.reply))
        try:
            message = await interaction.original_response()
            await service.set_board_message(ctx, caller, result.session_id, message.id)
            missing = missing_permissions(interaction, BOARD_PERMISSIONS)
            if missing:
                # The bot cannot edit messages in a channel it may not read: the GM is told now.
                note = permissions_reply(interaction, missing, "chase_board")
                await interaction.followup.send(ephemeral=True, wait=True, **message_kwargs(note))
        finally:
            ctx.observe(interaction.id, result.reply)

    @chase.command(name="add", description="Add a runner: raw stats (GM) or a character sheet")
    @app_commands.describe(
        role="Fugitive or pursuer",
        name="The runner's name (default: the character's)",
        character="Take the stats from this character (default: yours, if no stats are given)",
        m="Movement (M)",
        tb="Toughness bonus (BE)",
        t="Toughness (E) %",
        ag="Agility (Ag) %",
        flee="Has the Fuite talent (+1 M for BE/2 rounds; fugitive only)",
    )
    @app_commands.choices(role=ROLE_CHOICES)
    async def add(
        self,
        interaction: Interaction,
        role: str,
        name: app_commands.Range[str, 1, service.NAME_MAX] | None = None,
        character: app_commands.Range[str, 1, 64] | None = None,
        m: app_commands.Range[int, 1, 20] | None = None,
        tb: app_commands.Range[int, 0, 10] | None = None,
        t: app_commands.Range[int, 0, 100] | None = None,
        ag: app_commands.Range[int, 0, 100] | None = None,
        flee: bool | None = None,
    ) -> None:
        result = await service.add_runner(
            ctx_of(interaction),
            caller_of(interaction),
            role=role,
            name=name,
            character=character,
            m=m,
            be=tb,
            e=t,
            ag=ag,
            flee=flee,
        )
        await answer(interaction, result)

    @chase.command(name="run", description="A runner's movement test for this round (M × 10)")
    @app_commands.describe(
        name="Which runner",
        roll="The d100 rolled by hand (default: the bot rolls)",
        agility="On an obstacle, try the Ag test to avoid it",
        agility_roll="The Ag d100 rolled by hand (implies the Ag test)",
    )
    async def run(
        self,
        interaction: Interaction,
        name: app_commands.Range[str, 1, service.NAME_MAX],
        roll: app_commands.Range[int, 0, 100] | None = None,
        agility: bool = False,
        agility_roll: app_commands.Range[int, 0, 100] | None = None,
    ) -> None:
        result = await service.move(
            ctx_of(interaction),
            caller_of(interaction),
            name=name,
            roll=roll,
            try_ag=agility,
            ag_roll=agility_roll,
        )
        await answer(interaction, result)

    @chase.command(name="endurance", description="A runner's Endurance test between two rounds")
    @app_commands.describe(name="Which runner", roll="The d100 rolled by hand (default: the bot rolls)")
    async def endurance(
        self,
        interaction: Interaction,
        name: app_commands.Range[str, 1, service.NAME_MAX],
        roll: app_commands.Range[int, 0, 100] | None = None,
    ) -> None:
        result = await service.endurance(ctx_of(interaction), caller_of(interaction), name=name, roll=roll)
        await answer(interaction, result)

    @chase.command(name="board", description="Show the chase's distances (only to you)")
    async def board(self, interaction: Interaction) -> None:
        result = await service.show(ctx_of(interaction), caller_of(interaction))
        await send_reply(interaction, result.reply)

    @chase.command(name="end", description="End this channel's chase (GM)")
    async def end(self, interaction: Interaction) -> None:
        result = await service.end(ctx_of(interaction), caller_of(interaction))
        await answer(interaction, result)


async def setup(bot: MeleeBot) -> None:
    await bot.add_cog(ChaseCog(bot))
