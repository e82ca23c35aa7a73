"""``/combat``: fights in threads — open, add, rounds, postures, attacks, defences, effects, end.

Thin adapter: parse options, call :mod:`bot.services.fights`, send the reply, then edit the pinned
tracker. Buttons are persistent :class:`discord.ui.DynamicItem` s whose custom ids carry the fight
id and the pending attack's sequence number: they work after a restart, the state is in the DB.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.cogs._common import Interaction, caller_of, ctx_of, send_reply
from bot.cogs._common import _message_kwargs as message_kwargs
from bot.cogs._fight_thread import reply_in_thread
from bot.cogs._permissions import missing_permissions, permissions_reply
from bot.cogs._tracker_updater import updater_of
from bot.cogs.characters import GENDER_CHOICES
from bot.context import AppContext
from bot.rules.sheets import fold
from bot.services.caller import Caller
from bot.services.fights import attacks as fights_attacks
from bot.services.fights import defence as fights_defence
from bot.services.fights import ending as fights_ending
from bot.services.fights._core import MAX_QUICK, NAME_MAX, DefenceRolls, FightOutcome
from bot.services.fights.actions import take_simple_action
from bot.services.fights.attacks import AttackInput
from bot.services.fights.choices import combatant_choices, who_choices
from bot.services.fights.conditions import correct, edit_condition, roll_due_test
from bot.services.fights.damage import answer_proposal
from bot.services.fights.destiny import spend as spend_destiny
from bot.services.fights.ending import end_fight
from bot.services.fights.npc_defence import set_npc_defence
from bot.services.fights.opening import abandon, add_combatants, attach_thread, open_fight, remove_combatant
from bot.services.fights.phone import attack_button, choose_target
from bot.services.fights.roster import NpcStats
from bot.services.fights.rounds import advance, keep_second_a, new_round, set_posture
from bot.services.fights.sides import set_side
from bot.services.fights.systems import d20 as d20_fight
from bot.services.fights.systems.ogl_manoeuvres import counter as ogl_counter
from bot.services.fights.systems.ogl_manoeuvres import free_ask as ogl_free_ask
from bot.services.fights.systems.ogl_manoeuvres import hero as ogl_hero
from bot.services.fights.systems.ogl_manoeuvres import two_weapons as ogl_two_weapons
from bot.services.fights.undo import MAX_UNDO
from bot.services.fights.undo import preview as undo_preview
from bot.services.fights.undo import undo as undo_actions
from bot.ui.reply import error_reply

if TYPE_CHECKING:
    from bot.app import MeleeBot

log = logging.getLogger(__name__)

# The longest auto-archive Discord offers (7 days): the bot's own edits are no activity.
THREAD_ARCHIVE_MINUTES: Final = 10080


def _choice(label: str, value: str, key: str) -> app_commands.Choice[str]:
    return app_commands.Choice(name=locale_str(label, key=f"cmd.combat.choice.{key}"), value=value)


POSTURES = [
    _choice("Normal", "normale", "normale"),
    _choice("Careful", "prudente", "prudente"),
    _choice("Reckless", "temeraire", "temeraire"),
    _choice("Defensive", "defensive", "defensive"),
    _choice("Suicidal", "suicidaire", "suicidaire"),
]
POSTURE_OPTIONS = [
    _choice("Suicidal: +20 attack", "attaque", "opt_attaque"),
    _choice("Suicidal: +2 damage", "degats", "opt_degats"),
]
ZONES = [
    _choice("Legs", "jambes", "jambes"),
    _choice("Arms", "bras", "bras"),
    _choice("Body", "corps", "corps"),
    _choice("Head", "tete", "tete"),
]
DEFENCES = [
    _choice("Parry", "parer", "parer"),
    _choice("Dodge", "esquiver", "esquiver"),
    _choice("Take the blow", "encaisser", "encaisser"),
    _choice("Dive (ogl)", "plonger", "plonger"),
    _choice("Best (the bot picks)", "auto", "auto"),
]
FIGHT_DEFENCE_MODES = [
    _choice("NPCs defend by themselves", "auto", "npcdef_auto"),
    _choice("By hand (buttons)", "manuel", "npcdef_manuel"),
]
NPC_DEFENCE_MODES = [
    _choice("By himself: the best choice", "auto", "npcdef_auto"),
    _choice("Always parry", "parer", "npcdef_parer"),
    _choice("Always dodge", "esquiver", "npcdef_esquiver"),
    _choice("Always take the blow", "encaisser", "npcdef_encaisser"),
    _choice("By hand (buttons)", "manuel", "npcdef_manuel"),
    _choice("As the fight says", "defaut", "npcdef_defaut"),
]
ACTIONS = [
    _choice("Feint", "feinter", "feinter"),
    _choice("Aim", "viser", "viser"),
    _choice("Manoeuvre", "manoeuvrer", "manoeuvrer"),
    _choice("Prepare a parry", "preparer_parade", "preparer_parade"),
    _choice("Position (2 m)", "se_positionner", "se_positionner"),
    _choice("Other free action", "autre_action_gratuite", "autre_action_gratuite"),
    _choice("Reload", "recharger", "recharger"),
    _choice("Draw / pick up", "prendre_objet", "prendre_objet"),
    _choice("Stand up", "se_relever", "se_relever"),
    _choice("Break free", "se_liberer", "se_liberer"),
    _choice("Disengage", "desengagement", "desengagement"),
]
AIMS = [_choice("Precision", "precision", "precision"), _choice("Power", "puissance", "puissance")]
SPECIALS = [
    _choice("Piercing strike", "coup_perforant", "coup_perforant"),
    _choice("Over the guard", "par_dessus_les_defenses", "par_dessus_les_defenses"),
    _choice("Surprise reach", "allonge_surprise", "allonge_surprise"),
    _choice("Shield bash", "frappe_de_bouclier", "frappe_de_bouclier"),
    _choice("Stunning blow", "coup_assommant", "coup_assommant"),
    _choice("Impale", "empalement", "empalement"),
    _choice("Pikeman's stance", "posture_du_piquier", "posture_du_piquier"),
    _choice("Disarm", "desarmement", "desarmement"),
]
CONDITION_OPS = [
    _choice("Add", "add", "op_add"),
    _choice("Remove (number)", "remove", "op_remove"),
    _choice("Treated", "treated", "op_treated"),
    _choice("Healed", "healed", "op_healed"),
    _choice("Stands up", "stands_up", "op_stands_up"),
    _choice("Back to life", "revive", "op_revive"),
]
CONDITION_KINDS = [
    _choice("Stunned", "stunned", "kind_stunned"),
    _choice("No action", "no_action", "kind_no_action"),
    _choice("Prone", "prone", "kind_prone"),
    _choice("Unconscious", "unconscious", "kind_unconscious"),
    _choice("Dead", "dead", "kind_dead"),
]


def _static_choices(
    interaction: Interaction, choices: list[app_commands.Choice[str]], current: str
) -> list[app_commands.Choice[str]]:
    """Autocomplete from a fixed list (choices would not fit in Discord's 4000 characters)."""
    catalog = ctx_of(interaction).catalog
    french = not str(interaction.locale).startswith("en")
    wanted = fold(current)
    out = []
    for choice in choices:
        label = choice.name
        localised: locale_str | None = getattr(choice, "_locale_name", None)
        key = localised.extras.get("key") if localised is not None else None
        if french and isinstance(key, str):
            label = catalog.raw("fr", key) or label
        if not wanted or wanted in fold(label) or wanted in fold(choice.value):
            out.append(app_commands.Choice(name=label[:100], value=choice.value))
    return out[:25]


async def apply_outcome(interaction: discord.Interaction[Any], result: FightOutcome) -> None:
    """Hand the tracker's new rendering to the fight's updater (newest only, one edit at a time,
    never backwards; the thread is archived at the end if the bot made it). Returns at once."""
    updater_of(interaction.client).submit(interaction, result)


async def answer(interaction: discord.Interaction[Any], result: FightOutcome) -> None:
    if not await reply_in_thread(interaction, result):  # a public result goes to the fight's thread
        await send_reply(interaction, result.reply)
    if not result.reply.is_error:
        await apply_outcome(interaction, result)


DEFER_AFTER: Final = 1.5  # seconds; Discord wants a first answer within 3 s


async def settle(interaction: discord.Interaction[Any], pending: Awaitable[FightOutcome]) -> None:
    """Answer with the service's outcome; if it is slow to come (actions queued on the same fight),
    acknowledge first so Discord's 3-second deadline is met. A deferred command is acknowledged
    privately, so a refusal stays private; a public result then follows a short private note."""
    task = asyncio.ensure_future(pending)
    done, _ = await asyncio.wait({task}, timeout=DEFER_AFTER)
    slash_deferred = False
    if not done and not interaction.response.is_done():
        try:
            if interaction.type is discord.InteractionType.component:
                await interaction.response.defer()  # a click: later messages carry their own flags
            else:
                await interaction.response.defer(ephemeral=True, thinking=True)
                slash_deferred = True
        except discord.HTTPException:
            log.warning("could not defer interaction %s", interaction.id)
    result = await task
    if slash_deferred and not result.reply.ephemeral:
        # The first followup replaces the private "thinking" message: a note there, the result public.
        note = ctx_of(interaction).catalog.t(caller_of(interaction).locale, "combat.deferred.posted")
        await interaction.followup.send(content=note, ephemeral=True, wait=True)
    await answer(interaction, result)


# What a fight's buttons and select menus do, by the ``kind`` part of their custom id
# (``melee:fight:<fight id>:<kind>[:<a>[:<b>]]``): each returns the outcome to settle, or None when
# the custom id is malformed. Selects receive the picked values in ``values``.
Handler = Callable[
    [AppContext, Caller, int, str | None, str | None, tuple[str, ...]], Awaitable[FightOutcome] | None
]


def _defence(
    ctx: AppContext, caller: Caller, fid: int, a: str | None, b: str | None, values: tuple[str, ...]
) -> Awaitable[FightOutcome] | None:
    if a is None or not a.isdigit() or not b:
        return None
    return fights_defence.defend(ctx, caller, choice=b, fight_id=fid, seq=int(a))


def _posture(
    ctx: AppContext, caller: Caller, fid: int, a: str | None, b: str | None, values: tuple[str, ...]
) -> Awaitable[FightOutcome] | None:
    if a is None:
        return None
    return set_posture(ctx, caller, posture=a, option=b, fight_id=fid)


def _permanent(
    ctx: AppContext, caller: Caller, fid: int, a: str | None, b: str | None, values: tuple[str, ...]
) -> Awaitable[FightOutcome] | None:
    if a is None or not a.isdigit():
        return None
    return answer_proposal(ctx, caller, fight_id=fid, number=int(a), accept=b == "ok")


def _destiny(
    ctx: AppContext, caller: Caller, fid: int, a: str | None, b: str | None, values: tuple[str, ...]
) -> Awaitable[FightOutcome] | None:
    if a is None or not a.isdigit():
        return None
    return spend_destiny(ctx, caller, fight_id=fid, number=int(a))


def _undo(
    ctx: AppContext, caller: Caller, fid: int, a: str | None, b: str | None, values: tuple[str, ...]
) -> Awaitable[FightOutcome] | None:
    """``undo``: the GM is asked to confirm the last action; ``undo:ok:<n>`` undoes exactly n°n."""
    if a is None:
        return undo_preview(ctx, caller, fight_id=fid)
    if a != "ok" or b is None or not b.isdigit():
        return None
    return undo_actions(ctx, caller, fight_id=fid, number=int(b))


def _ask(
    ctx: AppContext, caller: Caller, fid: int, a: str | None, b: str | None, values: tuple[str, ...]
) -> Awaitable[FightOutcome] | None:
    if a is None or not a.isdigit() or b not in ("ok", "no"):
        return None
    return fights_attacks.answer_ask(ctx, caller, fight_id=fid, number=int(a), accept=b == "ok")


def _ask_who(
    ctx: AppContext, caller: Caller, fid: int, a: str | None, b: str | None, values: tuple[str, ...]
) -> Awaitable[FightOutcome] | None:
    if a is None or not a.isdigit() or len(values) != 1:
        return None
    return fights_attacks.answer_ask(ctx, caller, fight_id=fid, number=int(a), accept=True, actor=values[0])


def _ogl_free(
    ctx: AppContext, caller: Caller, fid: int, a: str | None, b: str | None, values: tuple[str, ...]
) -> Awaitable[FightOutcome] | None:
    """« Confirmer » of an `ogl` free attack on an ally: the stored counter-attack or off-hand attack."""
    if a is None or not a.isdigit() or b not in ogl_free_ask.KINDS:
        return None
    if b == ogl_free_ask.COUNTER:
        return ogl_counter.counter_attack(ctx, caller, target="", trigger="", fight_id=fid, ask=int(a))
    return ogl_two_weapons.two_weapons(ctx, caller, use="attaque", fight_id=fid, ask=int(a))


def _hero(
    ctx: AppContext, caller: Caller, fid: int, a: str | None, b: str | None, values: tuple[str, ...]
) -> Awaitable[FightOutcome] | None:
    """An `ogl` PC's « Éraflure » offered after a major wound: his player spends a hero point."""
    if a is None or not a.isdigit():
        return None
    return ogl_hero.spend_offer(ctx, caller, fight_id=fid, number=int(a))


def _posture_for(
    ctx: AppContext, caller: Caller, fid: int, a: str | None, b: str | None, values: tuple[str, ...]
) -> Awaitable[FightOutcome] | None:
    if a is None or not values:
        return None
    return set_posture(ctx, caller, posture=a, option=b, fight_id=fid, chosen=values)


def _next(
    ctx: AppContext, caller: Caller, fid: int, a: str | None, b: str | None, values: tuple[str, ...]
) -> Awaitable[FightOutcome] | None:
    if a is None:
        return advance(ctx, caller, fight_id=fid)
    if not a.isdigit() or b is None or not b.isdigit():
        return None
    return advance(ctx, caller, fight_id=fid, confirmed=(int(a), int(b)))


def _keep(
    ctx: AppContext, caller: Caller, fid: int, a: str | None, b: str | None, values: tuple[str, ...]
) -> Awaitable[FightOutcome] | None:
    if a is None or not a.isdigit() or b is None or not b.isdigit():
        return None
    return keep_second_a(ctx, caller, fight_id=fid, here=(int(a), int(b)))


def _round(
    ctx: AppContext, caller: Caller, fid: int, a: str | None, b: str | None, values: tuple[str, ...]
) -> Awaitable[FightOutcome] | None:
    if a is not None and not a.isdigit():
        return None
    return new_round(ctx, caller, fight_id=fid, confirmed=int(a) if a is not None else None)


def _target(
    ctx: AppContext, caller: Caller, fid: int, a: str | None, b: str | None, values: tuple[str, ...]
) -> Awaitable[FightOutcome] | None:
    if a is None or not a.isdigit() or not values:
        return None
    return choose_target(ctx, caller, fight_id=fid, attacker=int(a), values=values)


def _attack(
    ctx: AppContext, caller: Caller, fid: int, a: str | None, b: str | None, values: tuple[str, ...]
) -> Awaitable[FightOutcome] | None:
    target, _, weapon = (b or "").partition("-")
    if a is None or not a.isdigit() or not target.isdigit() or not weapon.isdigit():
        return None
    return attack_button(ctx, caller, fight_id=fid, attacker=int(a), target=int(target), weapon=int(weapon))


def _d20_pv(
    ctx: AppContext, caller: Caller, fid: int, a: str | None, b: str | None, values: tuple[str, ...]
) -> Awaitable[FightOutcome] | None:
    if a is None or not a.isdigit() or len(values) != 1 or not values[0].isdigit():
        return None
    return d20_fight.lose_pv(ctx, caller, fight_id=fid, seq=int(a), value=int(values[0]))


HANDLERS: Final[dict[str, Handler]] = {
    "def": _defence,
    "pos": _posture,
    "posfor": _posture_for,
    "perm": _permanent,
    "destiny": _destiny,
    "hero": _hero,  # an ogl PC's Éraflure after a major wound: hero:<offer number>
    "undo": _undo,
    "ask": _ask,  # a question before an attack: ask:<n>:ok|no (an ally as the target …)
    "askwho": _ask_who,  # the GM's pick of the fighter who acts (a select)
    "oglfree": _ogl_free,  # « Confirmer » an ogl free attack on an ally: oglfree:<n>:counter|off_hand
    "next": _next,
    "keep": _keep,  # keep the second weapon's A to parry: keep:<round>:<turn>
    "round": _round,
    "tgt": _target,
    "atk": _attack,
    "dpv": _d20_pv,  # a d20 hit's « PV perdus » menu (no server damage table)
}

_TEMPLATE: Final = (
    r"melee:fight:(?P<fid>[0-9]{1,18}):(?P<kind>[a-z]{1,12})"
    r"(?::(?P<a>[a-z0-9_-]{1,30}))?(?::(?P<b>[a-z0-9_-]{1,30}))?"
)


async def _dispatch(
    interaction: discord.Interaction[Any],
    fid: int,
    kind: str,
    a: str | None,
    b: str | None,
    values: tuple[str, ...],
) -> None:
    ctx, caller = ctx_of(interaction), caller_of(interaction)
    handler = HANDLERS.get(kind)
    result = handler(ctx, caller, fid, a, b, values) if handler is not None else None
    if result is None:
        await answer(
            interaction, FightOutcome(error_reply(ctx.catalog.t(caller.locale, "combat.error.bad_choice")))
        )
        return
    await settle(interaction, result)


class FightButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=re.compile(_TEMPLATE)):
    """A fight's buttons: defence (``def:<seq>:<choice>``), posture (``pos:<posture>[:<option>]``),
    permanent-change confirmation (``perm:<n>:ok|no``) and the others in :data:`HANDLERS`."""

    def __init__(self, fight_id: int, kind: str, a: str | None, b: str | None) -> None:
        custom_id = ":".join(x for x in ("melee:fight", str(fight_id), kind, a, b) if x)
        super().__init__(discord.ui.Button(label=kind, custom_id=custom_id))
        self.fight_id = fight_id
        self.kind = kind
        self.a = a
        self.b = b

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> FightButton:
        return cls(int(match["fid"]), match["kind"], match["a"], match["b"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _dispatch(interaction, self.fight_id, self.kind, self.a, self.b, ())


class FightSelect(discord.ui.DynamicItem[discord.ui.Select[discord.ui.View]], template=re.compile(_TEMPLATE)):
    """A fight's select menus (a target, a fighter, a posture): the picked values go to the handler."""

    def __init__(self, fight_id: int, kind: str, a: str | None, b: str | None) -> None:
        custom_id = ":".join(x for x in ("melee:fight", str(fight_id), kind, a, b) if x)
        super().__init__(discord.ui.Select(custom_id=custom_id))
        self.fight_id = fight_id
        self.kind = kind
        self.a = a
        self.b = b

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> FightSelect:
        return cls(int(match["fid"]), match["kind"], match["a"], match["b"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        data: Any = interaction.data or {}
        values = tuple(str(v) for v in (data.get("values") or ()))[:25]
        await _dispatch(interaction, self.fight_id, self.kind, self.a, self.b, values)


@app_commands.guild_only()
class CombatGroup(app_commands.Group):
    pass


class CombatCog(commands.Cog):
    combat = CombatGroup(name="combat", description="Fights in threads: rounds, attacks, defences, criticals")

    def __init__(self, bot: MeleeBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(FightButton, FightSelect)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(FightButton, FightSelect)

    # -- opening -----------------------------------------------------------------------------

    @combat.command(name="open", description="Open a fight (GM): a thread with a pinned tracker")
    @app_commands.describe(
        name="The fight's name (the thread's)",
        sudden_death="Mort subite for NPCs",
        options="v1, d20, ogl: the system's GM options (endurance:seuil, des:unites, majeure:au_plus …)",
        npc_defence="renove: NPCs defend by themselves (the best choice) or by hand",
        mage_wp_maluses="renove, against mages: a critical's WS maluses weigh on a mage's WP too",
    )
    @app_commands.choices(npc_defence=FIGHT_DEFENCE_MODES)
    async def open(
        self,
        interaction: Interaction,
        name: app_commands.Range[str, 1, NAME_MAX],
        sudden_death: bool = False,
        options: app_commands.Range[str, 1, 200] | None = None,
        npc_defence: str | None = None,
        mage_wp_maluses: bool = False,
    ) -> None:
        ctx, caller = ctx_of(interaction), caller_of(interaction)
        channel = interaction.channel
        thread: discord.Thread | None = channel if isinstance(channel, discord.Thread) else None
        # What the bot must be allowed here (Discord sends its permissions in this channel); refuse
        # before anything is created or deferred, so the refusal stays private.
        needed: tuple[str, ...] = () if thread is not None else ("create_public_threads",)
        needed += ("send_messages_in_threads", "embed_links", "read_message_history")
        blocking = missing_permissions(interaction, needed)
        if blocking:
            await send_reply(interaction, permissions_reply(interaction, blocking, "open"))
            return
        # A distant database can make the fight's row slow to come: defer in time (publicly; a
        # refusal still ends private), and undo the row if Discord refused the deferral.
        task = asyncio.ensure_future(
            open_fight(
                ctx,
                caller,
                name=name,
                mort_subite=sudden_death,
                options=options,
                npc_defence=npc_defence,
                mage_fm_maluses=mage_wp_maluses,
            )
        )
        done, _ = await asyncio.wait({task}, timeout=DEFER_AFTER)
        alive = True
        if not done:
            try:
                await interaction.response.defer(thinking=True)
            except discord.HTTPException:
                log.warning("could not defer /combat ouvrir in time")
                alive = False
        result = await task
        if not alive:
            if result.fight_id is not None:
                await abandon(ctx, result.fight_id)
            return
        if result.reply.is_error or result.fight_id is None or result.tracker is None:
            await send_reply(interaction, result.reply)
            return
        if not interaction.response.is_done():
            await interaction.response.defer(thinking=True)
        pinned = False
        try:
            if thread is None:
                if not isinstance(channel, discord.TextChannel):
                    raise discord.InvalidData("not a text channel")
                thread = await channel.create_thread(
                    name=name[:100],
                    type=discord.ChannelType.public_thread,
                    auto_archive_duration=THREAD_ARCHIVE_MINUTES,
                )
            tracker = await thread.send(**message_kwargs(result.tracker))
            if not missing_permissions(interaction, ("pin_messages",)):
                try:
                    await tracker.pin()
                    pinned = True
                except discord.HTTPException:
                    log.warning("could not pin the tracker of fight %s", result.fight_id)
            await attach_thread(ctx, caller, result.fight_id, thread_id=thread.id, message_id=tracker.id)
        except (discord.HTTPException, discord.InvalidData):
            await abandon(ctx, result.fight_id)
            # Private although the defer was public (send_reply removes the "thinking" message).
            await send_reply(interaction, error_reply(ctx.catalog.t(caller.locale, "combat.error.no_thread")))
            return
        reply = result.reply
        description = ctx.catalog.t(caller.locale, "combat.open.thread", thread=thread.mention)
        from dataclasses import replace

        await send_reply(
            interaction,
            replace(reply, description=description, result={**(reply.result or {}), "thread_id": thread.id}),
        )
        if not pinned:
            # The fight works without the pin; the GM is told, privately, what to grant.
            await send_reply(interaction, permissions_reply(interaction, ("pin_messages",), "pin"))

    @combat.command(name="add", description="Add fighters: a character by name, or NPCs like “3 goblins”")
    @app_commands.describe(
        who="A character, a creature or quick NPCs: 3 gobelins, 2 bandits",
        count="How many (quick NPCs)",
        ws="Quick NPC: WS (CC)",
        bs="Quick NPC: BS (CT)",
        s="Quick NPC: strength (F)",
        ag="Quick NPC: agility (Ag)",
        sb="Quick NPC: strength bonus (BF; default from the creature table)",
        tb="Quick NPC: toughness bonus (BE; default from E)",
        attacks="Quick NPC: attacks (A)",
        weapons="Quick NPC: weapons, comma-separated (default: hand axe)",
        armour="Quick NPC: armour pieces, comma-separated",
        stats="Quick NPC stats, skills: renove E:30 Esquive:10; v1, d20, ogl CC:40 F:3 B:8 I:35",
        side="Their side (default: PC or NPC): Bandits, Guard …",
        defence="NPCs: how they defend (by themselves, a fixed choice, by hand)",
        gender="Quick NPCs: grammatical gender of the replies (default: masculine)",
    )
    @app_commands.choices(defence=NPC_DEFENCE_MODES, gender=GENDER_CHOICES)
    async def add(
        self,
        interaction: Interaction,
        who: app_commands.Range[str, 1, 80],
        count: app_commands.Range[int, 1, MAX_QUICK] | None = None,
        ws: app_commands.Range[int, 0, 100] | None = None,
        bs: app_commands.Range[int, 0, 100] | None = None,
        s: app_commands.Range[int, 0, 100] | None = None,
        ag: app_commands.Range[int, 0, 100] | None = None,
        sb: app_commands.Range[int, 0, 20] | None = None,
        tb: app_commands.Range[int, 0, 20] | None = None,
        attacks: app_commands.Range[int, 1, 10] | None = None,
        weapons: app_commands.Range[str, 1, 200] | None = None,
        armour: app_commands.Range[str, 1, 300] | None = None,
        stats: app_commands.Range[str, 1, 300] | None = None,
        side: app_commands.Range[str, 1, 30] | None = None,
        defence: str | None = None,
        gender: str | None = None,
    ) -> None:
        npc = NpcStats(
            cc=ws,
            ct=bs,
            f=s,
            ag=ag,
            bf=sb,
            be=tb,
            a=attacks,
            weapons=weapons,
            armour=armour,
            caracs=stats,
            gender=gender,
        )
        result = add_combatants(
            ctx_of(interaction),
            caller_of(interaction),
            who=who,
            count=count,
            stats=npc,
            side=side,
            defence=defence,
        )
        await settle(interaction, result)

    @combat.command(name="side", description="Put fighters on a side (GM): Bandits, Guard, PC, NPC …")
    @app_commands.describe(who="The fighters, comma-separated", side="The side: PC, NPC or a name")
    async def side(
        self,
        interaction: Interaction,
        who: app_commands.Range[str, 1, 300],
        side: app_commands.Range[str, 1, 30],
    ) -> None:
        await settle(interaction, set_side(ctx_of(interaction), caller_of(interaction), who=who, side=side))

    @combat.command(name="npc_defence", description="How NPCs defend (GM): by themselves or by hand")
    @app_commands.describe(
        mode="By themselves (the best choice), a fixed choice (one NPC), by hand",
        who="These NPCs only, comma-separated (default: the whole fight)",
    )
    @app_commands.choices(mode=NPC_DEFENCE_MODES)
    async def npc_defence(
        self,
        interaction: Interaction,
        mode: str,
        who: app_commands.Range[str, 1, 300] | None = None,
    ) -> None:
        result = set_npc_defence(ctx_of(interaction), caller_of(interaction), mode=mode, who=who)
        await settle(interaction, result)

    @add.autocomplete("who")
    async def _who(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        choices = await who_choices(ctx_of(interaction), caller_of(interaction), current)
        return [app_commands.Choice(name=label[:100], value=value[:100]) for label, value in choices]

    @combat.command(name="remove", description="Remove a fighter from the fight (GM)")
    @app_commands.describe(who="The fighter")
    async def remove(self, interaction: Interaction, who: app_commands.Range[str, 1, 80]) -> None:
        await settle(interaction, remove_combatant(ctx_of(interaction), caller_of(interaction), who=who))

    # -- rounds ------------------------------------------------------------------------------

    @combat.command(
        name="round", description="Start the next round (GM): initiative 3d20 + Ag, slots I, I/2 …"
    )
    @app_commands.describe(dice="Initiative dice rolled by hand: Albert: 12 5 18; Gobelin 1: 3 4 5")
    async def round(
        self, interaction: Interaction, dice: app_commands.Range[str, 1, 1000] | None = None
    ) -> None:
        await settle(interaction, new_round(ctx_of(interaction), caller_of(interaction), dice=dice))

    @combat.command(name="posture", description="Choose a posture for this round (before acting)")
    @app_commands.describe(
        posture="The posture", option="Suicidal: +20 attack or +2 damage", who="Which fighter"
    )
    @app_commands.choices(posture=POSTURES, option=POSTURE_OPTIONS)
    async def posture(
        self,
        interaction: Interaction,
        posture: str,
        option: str | None = None,
        who: app_commands.Range[str, 1, 80] | None = None,
    ) -> None:
        result = set_posture(
            ctx_of(interaction), caller_of(interaction), posture=posture, option=option, who=who
        )
        await settle(interaction, result)

    @combat.command(name="next", description="End the current turn: the next slot acts (GM)")
    async def next(self, interaction: Interaction) -> None:
        await settle(interaction, advance(ctx_of(interaction), caller_of(interaction)))

    # -- actions -----------------------------------------------------------------------------

    @combat.command(name="attack", description="Attack a fighter; every roll may be typed by hand")
    @app_commands.describe(
        target="Who is attacked",
        attacker="Who attacks (default: the fighter whose turn it is)",
        weapon="Which weapon (default: the main one)",
        zone="Aim at a lower zone than the °R allow",
        roll="The attack d100",
        damage="The damage die (two for Percutante)",
        coverage="Coverage d100 for partial armour layers (inner to outer)",
        critical="The critical d100",
        effects="d100s for the critical's tests",
        durations="Dice for the critical's durations (1d10/2 …)",
        situation="Situation modifiers, comma-separated (cc_dans_le_dos, cc_plus_grande_allonge …)",
        distance="Range in metres (ranged weapons)",
        into_melee="Firing at a target engaged in melee (−20 %)",
        special="A special weapon action",
        k="Piercing strike: K (each −10 % and 1 PA ignored)",
        charge="Charge (all your attacks; +CC, BF+1)",
        stray_victim="Firing into melee: who a stray shot hits",
        location="v1, d20, ogl: the location aimed at or hit (tete, poitrine, bras_d …)",
    )
    @app_commands.choices(zone=ZONES)
    async def attack(
        self,
        interaction: Interaction,
        target: app_commands.Range[str, 1, 80],
        attacker: app_commands.Range[str, 1, 80] | None = None,
        weapon: app_commands.Range[str, 1, 80] | None = None,
        zone: str | None = None,
        roll: app_commands.Range[int, 0, 100] | None = None,
        damage: app_commands.Range[str, 1, 20] | None = None,
        coverage: app_commands.Range[str, 1, 40] | None = None,
        critical: app_commands.Range[int, 0, 100] | None = None,
        effects: app_commands.Range[str, 1, 60] | None = None,
        durations: app_commands.Range[str, 1, 60] | None = None,
        situation: app_commands.Range[str, 1, 300] | None = None,
        distance: app_commands.Range[float, 0, 1000] | None = None,
        into_melee: bool = False,
        special: str | None = None,
        k: app_commands.Range[int, 1, 5] = 1,
        charge: bool = False,
        stray_victim: app_commands.Range[str, 1, 80] | None = None,
        location: app_commands.Range[str, 1, 40] | None = None,
    ) -> None:
        data = AttackInput(
            target=target,
            attacker=attacker,
            weapon=weapon,
            zone=zone,
            roll=roll,
            damage=damage,
            coverage=coverage,
            critical=critical,
            effects=effects,
            durations=durations,
            situation=situation,
            distance=distance,
            into_melee=into_melee,
            special=special,
            k=k,
            charge=charge,
            stray_victim=stray_victim,
            location=location,
        )
        await settle(interaction, fights_attacks.attack(ctx_of(interaction), caller_of(interaction), data))

    @attack.autocomplete("target")
    @attack.autocomplete("attacker")
    @attack.autocomplete("stray_victim")
    async def _fighters(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        choices = await combatant_choices(ctx_of(interaction), caller_of(interaction), current)
        return [app_commands.Choice(name=label[:100], value=value[:100]) for label, value in choices]

    @combat.command(name="defend", description="Answer the attack against you: parry, dodge or take it")
    @app_commands.describe(
        choice="Parry, dodge or take the blow",
        attack="Which attack (its number; default: the oldest against your fighter)",
        roll="The parry or dodge d100",
        side_effect="The parry side-effect d100",
        tests="d100s for the side effect's tests (Ag …)",
        situation="Defence situations (def_boue_pluie …)",
    )
    @app_commands.choices(choice=DEFENCES)
    async def defend(
        self,
        interaction: Interaction,
        choice: str,
        attack: app_commands.Range[int, 1, 1_000_000] | None = None,
        roll: app_commands.Range[int, 0, 100] | None = None,
        side_effect: app_commands.Range[int, 0, 100] | None = None,
        tests: app_commands.Range[str, 1, 40] | None = None,
        situation: app_commands.Range[str, 1, 300] | None = None,
    ) -> None:
        result = fights_defence.defend(
            ctx_of(interaction),
            caller_of(interaction),
            choice=choice,
            seq=attack,
            rolls=DefenceRolls(roll=roll, side_effect=side_effect, tests=tests, situation=situation),
        )
        await settle(interaction, result)

    @combat.command(
        name="action", description="Another action: feint, aim, manoeuvre, prepare a parry, move …"
    )
    @app_commands.describe(
        action="The action",
        who="Which fighter (default: the one whose turn it is)",
        aim="Aim: precision or power",
        target="Feint: against whom",
        roll="Feint: your d100",
        target_roll="Feint: the opponent's d100",
        dice="Manoeuvre: more d100s typed (the rerolls, then the fall test)",
    )
    @app_commands.choices(aim=AIMS)
    async def action(
        self,
        interaction: Interaction,
        action: str,
        who: app_commands.Range[str, 1, 80] | None = None,
        aim: str | None = None,
        target: app_commands.Range[str, 1, 80] | None = None,
        roll: app_commands.Range[int, 0, 100] | None = None,
        target_roll: app_commands.Range[int, 0, 100] | None = None,
        dice: app_commands.Range[str, 1, 60] | None = None,
    ) -> None:
        result = take_simple_action(
            ctx_of(interaction),
            caller_of(interaction),
            action=action,
            who=who,
            option=aim,
            target=target,
            roll=roll,
            target_roll=target_roll,
            dice=dice,
        )
        await settle(interaction, result)

    @combat.command(name="test", description="Roll a due test (bleeding, delayed) for a fighter")
    @app_commands.describe(who="The fighter", roll="The d100", durations="Dice for durations")
    async def test(
        self,
        interaction: Interaction,
        who: app_commands.Range[str, 1, 80],
        roll: app_commands.Range[int, 0, 100] | None = None,
        durations: app_commands.Range[str, 1, 60] | None = None,
    ) -> None:
        result = roll_due_test(
            ctx_of(interaction), caller_of(interaction), who=who, roll=roll, durations=durations
        )
        await settle(interaction, result)

    @combat.command(name="condition", description="Edit a fighter's conditions (GM)")
    @app_commands.describe(
        who="The fighter",
        op="Add, remove (by its number on the tracker), treated, healed, stands up",
        stat="Add a modifier on this characteristic (CC, Ag, all_tests …)",
        value="The modifier (−10 …)",
        rounds="For how many rounds (default: the rest of the fight)",
        kind="Or add a state: stunned, no action, prone …",
        number="Remove: the condition's number on the tracker",
    )
    # Six operations and five states: offered as Discord's own choices, shown before typing (#22).
    @app_commands.choices(op=CONDITION_OPS, kind=CONDITION_KINDS)
    async def condition(
        self,
        interaction: Interaction,
        who: app_commands.Range[str, 1, 80],
        op: str,
        stat: app_commands.Range[str, 1, 12] | None = None,
        value: app_commands.Range[int, -100, 100] | None = None,
        rounds: app_commands.Range[int, 1, 100] | None = None,
        kind: str | None = None,
        number: app_commands.Range[int, 1, 50] | None = None,
    ) -> None:
        result = edit_condition(
            ctx_of(interaction),
            caller_of(interaction),
            who=who,
            op=op,
            stat=stat,
            value=value,
            rounds=rounds,
            kind=kind,
            index=number,
        )
        await settle(interaction, result)

    @combat.command(name="fix", description="Override a value (GM): a characteristic, the shield's PV …")
    @app_commands.describe(
        who="The fighter", field="CC, CT, F, BF, BE, Ag, A … or shield", value="The new value"
    )
    async def fix(
        self,
        interaction: Interaction,
        who: app_commands.Range[str, 1, 80],
        field: app_commands.Range[str, 1, 20],
        value: app_commands.Range[int, -100, 1000],
    ) -> None:
        result = correct(ctx_of(interaction), caller_of(interaction), who=who, field_name=field, value=value)
        await settle(interaction, result)

    @remove.autocomplete("who")
    @side.autocomplete("who")
    @npc_defence.autocomplete("who")
    @test.autocomplete("who")
    @condition.autocomplete("who")
    @fix.autocomplete("who")
    @posture.autocomplete("who")
    @action.autocomplete("who")
    @action.autocomplete("target")
    async def _fighter(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        choices = await combatant_choices(ctx_of(interaction), caller_of(interaction), current)
        return [app_commands.Choice(name=label[:100], value=value[:100]) for label, value in choices]

    @attack.autocomplete("special")
    async def _special(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return _static_choices(interaction, SPECIALS, current)

    @action.autocomplete("action")
    async def _action(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return _static_choices(interaction, ACTIONS, current)

    @combat.command(name="undo", description="Undo the last action, or the last N (GM; a player: his own)")
    @app_commands.describe(count="How many actions to undo, newest first (default: 1)")
    async def undo(self, interaction: Interaction, count: app_commands.Range[int, 1, MAX_UNDO] = 1) -> None:
        await settle(interaction, undo_actions(ctx_of(interaction), caller_of(interaction), count=count))

    @combat.command(name="show", description="Show the fight's tracker (only to you)")
    async def show(self, interaction: Interaction) -> None:
        await settle(interaction, fights_ending.show(ctx_of(interaction), caller_of(interaction)))

    @combat.command(name="end", description="End the fight (GM): a summary, the thread is archived")
    async def end(self, interaction: Interaction) -> None:
        await settle(interaction, end_fight(ctx_of(interaction), caller_of(interaction)))


async def setup(bot: MeleeBot) -> None:
    await bot.add_cog(CombatCog(bot))
