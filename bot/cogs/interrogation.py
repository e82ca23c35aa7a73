"""``/interrogation`` (``/interrogatoire``): the GM's form, questioning by command or button."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.cogs._common import Interaction, caller_of, ctx_of, send_reply
from bot.cogs._guard import form_values, register_form, unregister_form
from bot.services.flows import interrogation as service
from bot.services.flows.common import t

if TYPE_CHECKING:
    from bot.app import MeleeBot

ROLLS_MAX = 100
FORM_PREFIX = "melee:interro:form"
FORM_ID = re.compile(
    r"melee:interro:form:(?P<fm>[0-9]{1,3}):(?P<reluctant>[01]):(?P<mode>standard|extended):"
    r"(?P<attempts>[0-9]{1,2}):(?P<discreet>[01])"
)

MODE_CHOICES = [
    app_commands.Choice(
        name=locale_str("Standard (opposed test)", key="cmd.flows.choice.standard"), value="standard"
    ),
    app_commands.Choice(
        name=locale_str("Extended (one line per success)", key="cmd.flows.choice.extended"), value="extended"
    ),
]
METHOD_CHOICES = [
    app_commands.Choice(
        name=locale_str("Intimidation", key="cmd.flows.choice.intimidation"), value="intimidation"
    ),
    app_commands.Choice(
        name=locale_str("Charm (discreet)", key="cmd.flows.choice.charisme"), value="charisme"
    ),
]


class InterrogationForm(discord.ui.Modal):
    """What the subject knows, tier by tier; the options ride in the form's custom id."""

    def __init__(self, interaction: Interaction, *, subject: str, form_id: str) -> None:
        ctx, caller = ctx_of(interaction), caller_of(interaction)
        super().__init__(
            title=t(ctx, caller, "flows.interrogation.form.title")[:45], custom_id=form_id, timeout=None
        )
        # Each text input inside a Label (component type 18), the form Discord documents now
        # (action rows of text inputs are the deprecated one).
        self.subject: discord.ui.TextInput[InterrogationForm] = discord.ui.TextInput(
            custom_id="subject",
            default=subject[: service.SUBJECT_MAX],
            max_length=service.SUBJECT_MAX,
        )
        self.add_item(
            discord.ui.Label(
                text=t(ctx, caller, "flows.interrogation.form.subject")[:45], component=self.subject
            )
        )
        self.tiers: list[discord.ui.TextInput[InterrogationForm]] = []
        for tier in range(4):
            field: discord.ui.TextInput[InterrogationForm] = discord.ui.TextInput(
                custom_id=f"tier_{tier}",
                style=discord.TextStyle.paragraph,
                required=tier == 0,
                max_length=service.LINE_MAX,
            )
            self.tiers.append(field)
            label = t(ctx, caller, f"flows.interrogation.form.tier_{tier}")[:45]
            self.add_item(discord.ui.Label(text=label, component=field))


async def submit_form(interaction: discord.Interaction[Any], match: re.Match[str]) -> None:
    """A submitted form, whether this process showed it or not (the options ride in its id)."""
    values = form_values(interaction)
    result = await service.open_interrogation(
        ctx_of(interaction),
        caller_of(interaction),
        subject=values.get("subject", ""),
        fm=int(match["fm"]),
        reluctant=match["reluctant"] == "1",
        mode=match["mode"],
        attempts=int(match["attempts"]),
        discreet=match["discreet"] == "1",
        lines=[values.get(f"tier_{tier}", "") for tier in range(4)],
    )
    await send_reply(interaction, result.reply)


class InterrogationButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=re.compile(r"melee:interro:(?P<action>ask|torture|charm|close):(?P<id>[0-9]{1,18})"),
):
    """Board buttons: question (Intimidation, + Torture, Charisme) with the active character, close."""

    def __init__(self, action: str, session_id: int) -> None:
        super().__init__(discord.ui.Button(label=action, custom_id=f"melee:interro:{action}:{session_id}"))
        self.action = action
        self.session_id = session_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> InterrogationButton:
        return cls(match["action"], int(match["id"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        ctx, caller = ctx_of(interaction), caller_of(interaction)
        if self.action == "close":
            result = await service.close(ctx, caller, session_id=self.session_id)
        else:
            result = await service.question(
                ctx,
                caller,
                session_id=self.session_id,
                method="charisme" if self.action == "charm" else "intimidation",
                torture=self.action == "torture",
            )
        await send_reply(interaction, result.reply)


@app_commands.guild_only()
class InterrogationGroup(app_commands.Group):
    pass


class InterrogationCog(commands.Cog):
    interrogation = InterrogationGroup(
        name="interrogation", description="Interrogations: what a subject knows, tier by tier"
    )

    def __init__(self, bot: MeleeBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(InterrogationButton)
        register_form(FORM_ID, submit_form)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(InterrogationButton)
        unregister_form(FORM_ID)

    @interrogation.command(
        name="open", description="Open an interrogation (GM): a form for what the subject knows"
    )
    @app_commands.describe(
        subject="Who is questioned",
        wp="The subject's WP (FM), hidden from the players",
        reluctant="Is the subject reluctant to talk?",
        mode="Standard (opposed test) or extended (one line per success)",
        attempts="Extended mode: how many tests the players get",
        discreet="Discreet questioning: Charm instead of Intimidation, no Torture",
    )
    @app_commands.choices(mode=MODE_CHOICES)
    async def open(
        self,
        interaction: Interaction,
        subject: app_commands.Range[str, 1, service.SUBJECT_MAX],
        wp: app_commands.Range[int, 0, 100],
        reluctant: bool,
        mode: str = "standard",
        attempts: app_commands.Range[int, 1, service.ATTEMPTS_MAX] | None = None,
        discreet: bool = False,
    ) -> None:
        ctx, caller = ctx_of(interaction), caller_of(interaction)
        refusal = await service.open_form_allowed(ctx, caller)
        if refusal is None and mode == "extended" and attempts is None:
            from bot.ui.reply import error_reply

            refusal = error_reply(t(ctx, caller, "flows.interrogation.error.attempts_needed"))
        if refusal is not None:
            await send_reply(interaction, refusal)
            return
        form_id = f"{FORM_PREFIX}:{wp}:{int(reluctant)}:{mode}:{attempts or 0}:{int(discreet)}"
        form = InterrogationForm(interaction, subject=subject, form_id=form_id)
        await interaction.response.send_modal(form)
        # One path for every submission: the registered form handler, which needs nothing kept in
        # memory, so a form shown before a restart (or by another shard) still opens the session.
        form.stop()

    @interrogation.command(
        name="question", description="Question the subject (Intimidation or Charm, + Torture)"
    )
    @app_commands.describe(
        method="Intimidation, or Charm in a discreet interrogation",
        torture="Follow with a Torture test (not when discreet)",
        target="Your skill % (default: your active character's)",
        roll="Your d100 rolled by hand (several if you both fail: 85 22)",
        wp_roll="The subject's WP d100 rolled by hand by the GM (several: 90 30)",
        torture_target="Your Torture % (default: your character's)",
        torture_roll="Your Torture d100 rolled by hand",
        character="Question as this character (default: your active one)",
    )
    @app_commands.choices(method=METHOD_CHOICES)
    async def question(
        self,
        interaction: Interaction,
        method: str = "intimidation",
        torture: bool = False,
        target: app_commands.Range[int, 0, 200] | None = None,
        roll: app_commands.Range[str, 1, ROLLS_MAX] | None = None,
        wp_roll: app_commands.Range[str, 1, ROLLS_MAX] | None = None,
        torture_target: app_commands.Range[int, 0, 200] | None = None,
        torture_roll: app_commands.Range[int, 0, 100] | None = None,
        character: app_commands.Range[str, 1, 64] | None = None,
    ) -> None:
        result = await service.question(
            ctx_of(interaction),
            caller_of(interaction),
            method=method,
            torture=torture,
            target=target,
            rolls=roll,
            fm_rolls=wp_roll,
            torture_target=torture_target,
            torture_roll=torture_roll,
            character=character,
        )
        await send_reply(interaction, result.reply)

    @interrogation.command(name="show", description="What the subject has said (the GM sees everything)")
    async def show(self, interaction: Interaction) -> None:
        result = await service.show(ctx_of(interaction), caller_of(interaction))
        await send_reply(interaction, result.reply)

    @interrogation.command(name="close", description="Close this channel's interrogation (GM)")
    async def close(self, interaction: Interaction) -> None:
        result = await service.close(ctx_of(interaction), caller_of(interaction))
        await send_reply(interaction, result.reply)


async def setup(bot: MeleeBot) -> None:
    await bot.add_cog(InterrogationCog(bot))
