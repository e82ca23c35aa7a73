"""Skill tests: ``/test``, ``/oppose``, ``/group`` (``/groupe``), ``/extended`` (``/etendu``), ``/chance``.

Thin adapters: parse the options, call :mod:`bot.services.skill_tests`, send the reply. The
extended test's "next attempt" button is a persistent :class:`discord.ui.DynamicItem` whose custom
id carries the whole state (``melee:ext:…``), so it keeps working after a restart; so does the
"Relancer (Fortune)" button under a failed test (``melee:fortune:reroll:…``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.cogs._common import Interaction, caller_of, ctx_of, send_reply
from bot.services.flows.fortune import REROLL_PATTERN, reroll_click
from bot.services.skill_tests.chance import chance_check
from bot.services.skill_tests.common import MODIFIER_MAX, MODIFIER_MIN, fold
from bot.services.skill_tests.difficulty import difficulty_choices_here
from bot.services.skill_tests.extended import (
    ATTEMPTS_MAX,
    EXT_PATTERN,
    ExtendedRequest,
    extended_check,
    extended_step,
)
from bot.services.skill_tests.group import GroupRequest, group_opposed_check
from bot.services.skill_tests.opposed import OpposeRequest, opposed_check
from bot.services.skill_tests.single import TestRequest, skill_test
from bot.services.skill_tests.tables import skill_names_here, standard_test_choices_here
from bot.ui.discord_render import content_of, to_embed, to_view

if TYPE_CHECKING:
    from bot.app import MeleeBot

NAME_MAX = 40
SIDE_MAX = 300
ROLLS_MAX = 400
LABEL_MAX = 100

Mod = app_commands.Range[int, MODIFIER_MIN, MODIFIER_MAX]
Attempts = app_commands.Range[int, 1, ATTEMPTS_MAX]
Name = app_commands.Range[str, 1, NAME_MAX]
Rolls = app_commands.Range[str, 1, ROLLS_MAX]
Label = app_commands.Range[str, 1, LABEL_MAX]

UNIT_CHOICES = [
    app_commands.Choice(name=locale_str(label, key=f"tests.choice.unit.{value}"), value=value)
    for value, label in (
        ("round", "rounds"),
        ("second", "seconds"),
        ("minute", "minutes"),
        ("hour", "hours"),
        ("day", "days"),
    )
]


def _owner_id(interaction: Interaction) -> int | None:
    return interaction.guild.owner_id if interaction.guild is not None else None


async def _skill_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    wanted = fold(current)
    known = await skill_names_here(ctx_of(interaction), caller_of(interaction))  # house rules too
    names = [n for n in known if wanted in fold(n)]
    return [app_commands.Choice(name=n[:100], value=n[:100]) for n in names[:25]]


async def _difficulty_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    pairs = await difficulty_choices_here(
        ctx_of(interaction), caller_of(interaction), str(interaction.locale), current
    )
    return [app_commands.Choice(name=name, value=value) for name, value in pairs]


async def _action_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    pairs = await standard_test_choices_here(
        ctx_of(interaction), caller_of(interaction), str(interaction.locale), current
    )
    return [app_commands.Choice(name=name, value=value) for name, value in pairs]


class ExtendedStepButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=re.compile(EXT_PATTERN),
):
    """ "Next attempt" of an extended test; the custom id is the test's state."""

    def __init__(self, custom_id: str) -> None:
        super().__init__(discord.ui.Button(custom_id=custom_id, label="🎲"))

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> ExtendedStepButton:
        return cls(match.group(0))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot_interaction: Interaction = interaction
        ctx = ctx_of(bot_interaction)
        message = interaction.message
        title = message.embeds[0].title if message is not None and message.embeds else None
        custom_id = self.item.custom_id or ""
        reply = await extended_step(ctx, caller_of(bot_interaction), custom_id, title=title)
        if reply.is_error:
            await send_reply(bot_interaction, reply)
            return
        await interaction.response.edit_message(
            content=content_of(reply), embed=to_embed(reply), view=to_view(reply)
        )
        ctx.observe(interaction.id, reply)


class FortuneRerollButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=re.compile(REROLL_PATTERN),
):
    """ "Relancer (Fortune)" under a failed test; the custom id carries the character and the test."""

    def __init__(self, custom_id: str) -> None:
        super().__init__(discord.ui.Button(custom_id=custom_id, label="🍀"))

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> FortuneRerollButton:
        return cls(match.group(0))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot_interaction: Interaction = interaction
        message = interaction.message
        title = message.embeds[0].title if message is not None and message.embeds else None
        outcome = await reroll_click(
            ctx_of(bot_interaction), caller_of(bot_interaction), self.item.custom_id or "", title=title
        )
        if outcome.reply.is_error:
            await send_reply(bot_interaction, outcome.reply)
            return
        await interaction.response.edit_message(view=None)  # the point is spent: no second reroll
        await send_reply(bot_interaction, outcome.reply)


class TestsCog(commands.Cog):
    __test__ = False  # not a pytest class

    def __init__(self, bot: MeleeBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(ExtendedStepButton, FortuneRerollButton)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(ExtendedStepButton, FortuneRerollButton)

    @app_commands.command(name="test", description="Skill or characteristic test in the ruleset in force")
    @app_commands.describe(
        target="A number (45) or your character's characteristic/skill (CC, Perception)",
        skill="The skill tested (label, secret list, your character's value)",
        modifier="Modifier in % (or points in d20), e.g. -10",
        difficulty="Difficulty by name, from the ladder of the ruleset in force (renove: Hard −20)",
        roll="Die rolled by hand (00 = 100)",
        label="What the test is for",
        lenient="renove: read a failure leniently by its degrees",
        action="v1 standard test (Bluff, Force, Discrétion…)",
        simultaneous="d20: number of simultaneous actions (1-4)",
        wounds="d20: wound malus (PV/PC lost beyond the Constitution threshold)",
        secret="Secret test: only the GM sees the result (false: public, unless always secret)",
        player="GM only: roll for this player (result seen by the GM only)",
    )
    @app_commands.autocomplete(
        skill=_skill_autocomplete, action=_action_autocomplete, difficulty=_difficulty_autocomplete
    )
    async def test(
        self,
        interaction: Interaction,
        target: Name | None = None,
        skill: Name | None = None,
        modifier: Mod = 0,
        difficulty: Name | None = None,
        roll: app_commands.Range[int, 0, 100] | None = None,
        label: Label | None = None,
        lenient: bool = False,
        action: Name | None = None,
        simultaneous: app_commands.Range[int, 1, 4] = 1,
        wounds: app_commands.Range[int, 0, 100] = 0,
        secret: bool | None = None,
        player: discord.User | None = None,
    ) -> None:
        request = TestRequest(
            carac=target,
            skill=skill,
            modifier=modifier,
            difficulty=difficulty,
            roll=roll,
            label=label,
            lenient=lenient,
            action=action,
            simultaneous=simultaneous,
            wounds=wounds,
            secret=secret,
            for_user_id=player.id if player else None,
            owner_id=_owner_id(interaction),
        )
        reply = await skill_test(ctx_of(interaction), caller_of(interaction), request)
        await send_reply(interaction, reply)

    @app_commands.command(name="oppose", description="Opposed test: two sides, rerolled until decided")
    @app_commands.describe(
        side_a="First side: Name=45, 45, @player or a character's name",
        side_b="Second side: Name=40, 40, @player or a character's name",
        skill_a="Skill of the first side",
        skill_b="Skill of the second side (default: the opposition table's)",
        modifier_a="Modifier of the first side",
        modifier_b="Modifier of the second side",
        rolls_a="First side's dice rolled by hand, one per round: 03 56",
        rolls_b="Second side's dice rolled by hand, one per round: 75 27",
        label="What the opposed test is for",
        difficulty_a="Difficulty of the first side, from the ladder of the ruleset in force",
        difficulty_b="Difficulty of the second side, from the ladder of the ruleset in force",
        secret="Secret test: only the GM sees the result (Shadowing against Perception)",
    )
    @app_commands.autocomplete(
        skill_a=_skill_autocomplete,
        skill_b=_skill_autocomplete,
        difficulty_a=_difficulty_autocomplete,
        difficulty_b=_difficulty_autocomplete,
    )
    async def oppose(
        self,
        interaction: Interaction,
        side_a: app_commands.Range[str, 1, NAME_MAX + 10],
        side_b: app_commands.Range[str, 1, NAME_MAX + 10],
        skill_a: Name | None = None,
        skill_b: Name | None = None,
        modifier_a: Mod = 0,
        modifier_b: Mod = 0,
        rolls_a: Rolls | None = None,
        rolls_b: Rolls | None = None,
        label: Label | None = None,
        difficulty_a: Name | None = None,
        difficulty_b: Name | None = None,
        secret: bool | None = None,
    ) -> None:
        request = OpposeRequest(
            side_a=side_a,
            side_b=side_b,
            skill_a=skill_a,
            skill_b=skill_b,
            modifier_a=modifier_a,
            modifier_b=modifier_b,
            rolls_a=rolls_a,
            rolls_b=rolls_b,
            label=label,
            difficulty_a=difficulty_a,
            difficulty_b=difficulty_b,
            secret=secret,
            owner_id=_owner_id(interaction),
        )
        reply = await opposed_check(ctx_of(interaction), caller_of(interaction), request)
        await send_reply(interaction, reply)

    @app_commands.command(name="group", description="Group opposed test: every member against every opponent")
    @app_commands.describe(
        side_a="First side, comma-separated: G1=40, G2=40 (or @players, characters)",
        side_b="Second side, comma-separated: V=35",
        skill_a="Skill of the first side",
        skill_b="Skill of the second side (default: the opposition table's)",
        modifier_a="Modifier for every member of the first side",
        modifier_b="Modifier for every member of the second side",
        rolls="Dice rolled by hand per participant: G1=03, G2=89 56, V=75 27",
        label="What the test is for",
        difficulty_a="Difficulty for every member of the first side (the ruleset's ladder)",
        difficulty_b="Difficulty for every member of the second side (the ruleset's ladder)",
        secret="Secret test: only the GM sees the result",
    )
    @app_commands.autocomplete(
        skill_a=_skill_autocomplete,
        skill_b=_skill_autocomplete,
        difficulty_a=_difficulty_autocomplete,
        difficulty_b=_difficulty_autocomplete,
    )
    async def group(
        self,
        interaction: Interaction,
        side_a: app_commands.Range[str, 1, SIDE_MAX],
        side_b: app_commands.Range[str, 1, SIDE_MAX],
        skill_a: Name | None = None,
        skill_b: Name | None = None,
        modifier_a: Mod = 0,
        modifier_b: Mod = 0,
        rolls: Rolls | None = None,
        label: Label | None = None,
        difficulty_a: Name | None = None,
        difficulty_b: Name | None = None,
        secret: bool | None = None,
    ) -> None:
        request = GroupRequest(
            side_a=side_a,
            side_b=side_b,
            skill_a=skill_a,
            skill_b=skill_b,
            modifier_a=modifier_a,
            modifier_b=modifier_b,
            rolls=rolls,
            label=label,
            difficulty_a=difficulty_a,
            difficulty_b=difficulty_b,
            secret=secret,
            owner_id=_owner_id(interaction),
        )
        reply = await group_opposed_check(ctx_of(interaction), caller_of(interaction), request)
        await send_reply(interaction, reply)

    @app_commands.command(name="extended", description="Extended test: K successes needed in N attempts")
    @app_commands.describe(
        target="A number (45) or your character's characteristic/skill",
        skill="The skill tested (Crochetage gives 6 attempts, 3 successes, 10 s)",
        attempts="Attempts allowed (N)",
        successes="Successes needed (K)",
        time="Time per attempt (default: 1 round)",
        unit="Unit of the time per attempt",
        modifier="Modifier for every attempt",
        rolls="Dice rolled by hand, one per attempt: 12 57 33",
        step="One attempt per button press instead of all at once",
        label="What the test is for",
        difficulty="Difficulty of every attempt, from the ladder of the ruleset in force",
        secret="Secret test: only the GM sees the result (rolled all at once)",
    )
    @app_commands.choices(unit=UNIT_CHOICES)
    @app_commands.autocomplete(skill=_skill_autocomplete, difficulty=_difficulty_autocomplete)
    async def extended(
        self,
        interaction: Interaction,
        target: Name | None = None,
        skill: Name | None = None,
        attempts: Attempts | None = None,
        successes: Attempts | None = None,
        time: app_commands.Range[int, 1, 9999] | None = None,
        unit: app_commands.Choice[str] | None = None,
        modifier: Mod = 0,
        rolls: Rolls | None = None,
        step: bool = False,
        label: Label | None = None,
        difficulty: Name | None = None,
        secret: bool | None = None,
    ) -> None:
        request = ExtendedRequest(
            carac=target,
            skill=skill,
            attempts=attempts,
            successes=successes,
            time_amount=time,
            time_unit=unit.value if unit else None,
            modifier=modifier,
            rolls=rolls,
            step=step,
            label=label,
            difficulty=difficulty,
            secret=secret,
            owner_id=_owner_id(interaction),
        )
        reply = await extended_check(ctx_of(interaction), caller_of(interaction), request)
        await send_reply(interaction, reply)

    @app_commands.command(name="chance", description="d20 luck test: your d20 against the GM's d20")
    @app_commands.describe(
        roll="Your d20 rolled by hand",
        gm_roll="The GM's d20 rolled by hand",
        gm_malus="Malus the GM gives himself (raises his roll)",
    )
    async def chance(
        self,
        interaction: Interaction,
        roll: app_commands.Range[int, 1, 20] | None = None,
        gm_roll: app_commands.Range[int, 1, 20] | None = None,
        gm_malus: app_commands.Range[int, 0, 20] = 0,
    ) -> None:
        reply = await chance_check(
            ctx_of(interaction), caller_of(interaction), player_roll=roll, gm_roll=gm_roll, gm_malus=gm_malus
        )
        await send_reply(interaction, reply)


async def setup(bot: MeleeBot) -> None:
    await bot.add_cog(TestsCog(bot))
