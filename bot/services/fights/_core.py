"""The fight machinery every use case shares: refusals and outcomes, the scope of one use case and
its transaction (:func:`run`), the tables in force, the fight document (:class:`Doc`), events, the
tracker, custom ids, hand-entered dice, the defence dice typed by hand (:class:`DefenceRolls`) and
the dispatch to the other rulesets' adapters (:func:`system_of`)."""

from __future__ import annotations

import asyncio
import itertools
import re
import unicodedata
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any, Final

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.exc import StaleDataError

from bot.context import AppContext
from bot.db import fight_journal
from bot.db.fight_models import Fight, FightEvent
from bot.db.models import RollFace, RollLog
from bot.db.repositories import ServerConfig, get_server_config
from bot.db.roll_log import face_rows, log_row
from bot.i18n import DEFAULT_LANGUAGE, language_of
from bot.rules.checks.common import DiceError
from bot.rules.combat.basics import RefusedError
from bot.rules.combat.state import Combatant, FightState, has_second_weapon
from bot.rules.combat.tables import REQUIRED_TABLES, CombatTables, TableError
from bot.rules.grammar import InputError, parse_rolls
from bot.rules.random_source import RandomSource
from bot.rules.renove.damage import ArmourError
from bot.rules.renove.magic import BASE_CHAOS_DICE
from bot.rules.sheets import fold
from bot.services.caller import Caller
from bot.services.errors import input_params
from bot.services.fights.registry import system_of
from bot.services.fights.text import Words
from bot.services.fights.waiting import fid_id, ping, posture_shown, target_select, tracker_controls, waiting
from bot.services.house_rules import overridden_tables, table_in_force
from bot.services.outfit import refusal_text
from bot.ui.reply import Colour, Reply, error_reply
from bot.ui.tracker import TrackerView, render_tracker

PREFIX: Final = "melee:fight"
NAME_MAX: Final = 80
MAX_COMBATANTS: Final = 40
MAX_QUICK: Final = 12
DEFENCE_TIMEOUT: Final = timedelta(minutes=3)
DEFENCE_CHOICES: Final = ("parer", "esquiver", "encaisser")
EXTRA_DEFENCE_CHOICES: Final = ("plonger",)  # ogl: the dive reaction
OTHER_RULESETS: Final = ("v1", "d20", "ogl")
QUICK_NPC_DEFAULTS: Final[dict[str, int]] = {
    "CC": 30,
    "CT": 25,
    "F": 30,
    "E": 30,
    "Ag": 30,
    "Int": 20,
    "FM": 25,
    "Soc": 20,
    "A": 1,
    "M": 4,
}
QUICK_NPC_WEAPON: Final = "hache_pic"
_COUNT = re.compile(r"^\s*([0-9]{1,2})\s*[x×]?\s+(.+)$")


class FightRefusal(Exception):
    """A use case refused: a catalogue key and its parameters (an ephemeral error, nothing written)."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


@dataclass(frozen=True, slots=True)
class FightOutcome:
    reply: Reply
    fight_id: int | None = None
    tracker: Reply | None = None
    thread_id: int | None = None
    tracker_message_id: int | None = None
    archive: bool = False
    # Taken under the fight's lock: a later version is a later state (the tracker never goes back).
    tracker_version: int = 0


@dataclass(slots=True)
class RollNote:
    kind: str
    expression: str
    total: int | None
    result: dict[str, Any]


@dataclass(slots=True)
class Scope:
    ctx: AppContext
    session: AsyncSession
    config: ServerConfig
    caller: Caller
    words: Words
    tables: CombatTables
    rng: RandomSource
    rolls: list[RollNote] = field(default_factory=list)
    ruleset: str = "renove"
    # the turn moved to another slot (or a new round began): the reply pings the player it is to
    turn_moved: bool = False

    @property
    def guild_id(self) -> int:
        assert self.caller.guild_id is not None
        return self.caller.guild_id

    @property
    def gm(self) -> bool:
        return self.caller.is_gm(self.config)

    def t(self, key: str, /, **params: Any) -> str:
        return self.words.t(key, **params)

    @property
    def server_locale(self) -> str:
        """The language of what the whole table reads (the pinned tracker): the server's, not the
        caller's — the server setting, else Discord's server locale, else French."""
        return self.config.locale or self.caller.guild_locale or DEFAULT_LANGUAGE

    @property
    def shared_words(self) -> Words:
        """The words of what the whole table reads: the server's language (:attr:`server_locale`)."""
        if language_of(self.server_locale) == language_of(self.words.locale):
            return self.words
        return Words(self.ctx, self.server_locale, self.words.docs)


# -- the tables in force --------------------------------------------------------------------

_BASE_TABLES: dict[int, CombatTables] = {}
_GUILD_TABLES: dict[int, tuple[tuple[Any, ...], CombatTables, dict[str, Any]]] = {}
TEXT_TABLES: Final = ("talents", "creatures_bf", "weapon_groups")


async def tables_for(
    session: AsyncSession, ctx: AppContext, guild_id: int | None
) -> tuple[CombatTables, dict[str, Any]]:
    """The combat tables of this server (house rules merged), built once per override version."""
    names = (*REQUIRED_TABLES, *TEXT_TABLES)
    overridden = await overridden_tables(session, guild_id)
    if not any(name in overridden for name in names):
        docs = {name: ctx.tables[name].document for name in names}
        key = id(ctx.tables[REQUIRED_TABLES[0]].document)
        if key not in _BASE_TABLES:
            _BASE_TABLES.clear()
            _BASE_TABLES[key] = CombatTables.from_documents(docs)
        return _BASE_TABLES[key], docs
    stamp = tuple(sorted((n, str(v)) for n, v in overridden.items() if n in names))
    assert guild_id is not None
    cached = _GUILD_TABLES.get(guild_id)
    if cached is not None and cached[0] == stamp:
        return cached[1], cached[2]
    docs = {name: await table_in_force(session, ctx, guild_id, name) for name in names}
    tables = CombatTables.from_documents(docs)
    _GUILD_TABLES[guild_id] = (stamp, tables, docs)
    return tables, docs


# -- running a use case ---------------------------------------------------------------------

Work = Callable[[Scope], Awaitable[FightOutcome]]

# One use case at a time per fight in this process: clicks and commands on the same fight — from its
# thread or from the channel it was opened from — queue up here instead of all reading the same
# version and all but one failing with "try again" (and holding SQLite's write lock and the pool's
# connections while they wait). Other processes are still kept apart by the ``version`` column.
_FIGHT_LOCKS: weakref.WeakValueDictionary[tuple[int, ...], asyncio.Lock] = weakref.WeakValueDictionary()
# (guild, channel) -> the open fight a use case there acts on: its thread, or the channel it was
# opened from when only one fight is open there. Learnt as fights are read; a stale entry only
# picks a lock.
_FIGHT_OF_CHANNEL: dict[tuple[int, int], int] = {}
_FIGHT_OF_CHANNEL_MAX: Final = 50_000


def _learn_channels(row: Fight, *, parent: bool = False) -> None:
    if len(_FIGHT_OF_CHANNEL) >= _FIGHT_OF_CHANNEL_MAX:
        _FIGHT_OF_CHANNEL.clear()
    if row.thread_id is not None:
        _FIGHT_OF_CHANNEL[(row.guild_id, row.thread_id)] = row.id
    if parent and row.parent_channel_id is not None:
        _FIGHT_OF_CHANNEL[(row.guild_id, row.parent_channel_id)] = row.id


def forget_channels(fight_id: int) -> None:
    """A closed fight: its channels lead to no fight any more (a new one may open from the same one)."""
    for key in [k for k, v in _FIGHT_OF_CHANNEL.items() if v == fight_id]:
        del _FIGHT_OF_CHANNEL[key]


async def _fight_lock(ctx: AppContext, caller: Caller) -> asyncio.Lock:
    guild, channel = caller.guild_id or 0, caller.channel_id
    fight_id = _FIGHT_OF_CHANNEL.get((guild, channel)) if channel is not None else None
    if fight_id is None and channel is not None:
        async with ctx.sessions() as session:  # once per channel and process: which fight is here?
            ids = (
                await session.scalars(
                    select(Fight.id)
                    .where(
                        Fight.guild_id == guild,
                        Fight.status == "open",
                        (Fight.thread_id == channel) | (Fight.parent_channel_id == channel),
                    )
                    .limit(2)
                )
            ).all()
        if len(ids) == 1:
            fight_id = _FIGHT_OF_CHANNEL[(guild, channel)] = ids[0]
    key: tuple[int, ...] = (guild, 0, fight_id) if fight_id is not None else (guild, 1, channel or 0)
    lock = _FIGHT_LOCKS.get(key)
    if lock is None:
        lock = _FIGHT_LOCKS[key] = asyncio.Lock()
    return lock


async def run(
    ctx: AppContext, caller: Caller, work: Work, *, rng: RandomSource | None = None
) -> FightOutcome:
    """One transaction; a refusal becomes an ephemeral error in the caller's language. A change to an
    open fight is recorded, at commit, as one action ``/combat annuler`` can take back
    (:mod:`bot.db.fight_journal`)."""
    t = ctx.catalog.t
    if caller.guild_id is None:
        return FightOutcome(error_reply(t(caller.locale, "combat.error.guild_only")))
    rolls: list[RollNote] = []
    ruleset = "renove"
    try:
        async with await _fight_lock(ctx, caller), ctx.sessions.begin() as session:
            fight_journal.watch(session, caller.user_id)  # the commit records the action (undo)
            config = await get_server_config(session, caller.guild_id)
            tables, docs = await tables_for(session, ctx, caller.guild_id)
            words = Words(ctx, caller.locale, docs)
            scope = Scope(ctx, session, config, caller, words, tables, rng or ctx.rng, rolls)
            outcome = await work(scope)
            ruleset = scope.ruleset
            if rolls:  # in the fight's own transaction: an action is never applied without its rolls
                logged = [
                    log_row(
                        guild_id=caller.guild_id,
                        channel_id=caller.channel_id,
                        user_id=caller.user_id,
                        kind=note.kind,
                        ruleset=ruleset,
                        expression=note.expression,
                        total=note.total,
                        result=note.result,
                    )
                    for note in rolls
                ]
                await session.execute(insert(RollLog), logged)
                faces = face_rows(logged)
                if faces:
                    await session.execute(insert(RollFace), faces)
    except FightRefusal as exc:
        words = Words(ctx, caller.locale, {n: ctx.tables[n].document for n in ctx.tables})
        return FightOutcome(error_reply(words.refusal(exc.key, exc.params)))
    except InputError as exc:
        return FightOutcome(error_reply(t(caller.locale, exc.key, **input_params(exc))))
    except RefusedError as exc:
        words = Words(ctx, caller.locale, {n: ctx.tables[n].document for n in ctx.tables})
        return FightOutcome(error_reply(words.refusal(exc.refusal.reason, dict(exc.refusal.params))))
    except DiceError:
        return FightOutcome(error_reply(t(caller.locale, "combat.error.bad_roll")))
    except StaleDataError:
        return FightOutcome(error_reply(t(caller.locale, "combat.error.stale")))
    except (IntegrityError, OperationalError):
        return FightOutcome(error_reply(t(caller.locale, "combat.error.stale")))
    except ArmourError as exc:
        docs = {n: ctx.tables[n].document for n in ctx.tables}
        return FightOutcome(error_reply(refusal_text(ctx, caller.locale, docs, exc)))
    except TableError as exc:
        return FightOutcome(error_reply(t(caller.locale, "combat.error.table", detail=str(exc)[:200])))
    return outcome


def require_gm(scope: Scope) -> None:
    if not scope.gm:
        raise FightRefusal("combat.error.gm_only")


# -- the fight document ---------------------------------------------------------------------


_OPTIONAL_META: Final = frozenset({"shield", "shield_max", "masteries", "playable_bonus"})


@dataclass(slots=True)
class Doc:
    row: Fight
    state: FightState
    meta: dict[str, dict[str, Any]]
    data: dict[str, Any]

    @classmethod
    def load(cls, row: Fight) -> Doc:
        data = dict(row.state or {})
        return cls(row, FightState.from_dict(data.get("fight") or {}), dict(data.get("meta") or {}), data)

    def save(self) -> None:
        data = dict(self.data)
        data["fight"] = self.state.to_dict()
        data["meta"] = {  # the optional, unset entries are left out (read with .get): a smaller document
            cid: {k: v for k, v in m.items() if not (k in _OPTIONAL_META and v in (None, {}))}
            for cid, m in self.meta.items()
        }
        self.row.state = data  # a new object: SQLAlchemy sees the change and bumps the version
        self.row.round = self.state.round

    @property
    def pending(self) -> dict[str, Any]:
        value: dict[str, Any] = self.data.setdefault("pending", {})
        return value

    @property
    def prompts(self) -> list[dict[str, Any]]:
        value: list[dict[str, Any]] = self.data.setdefault("prompts", [])
        return value

    @property
    def proposals(self) -> dict[str, Any]:
        value: dict[str, Any] = self.data.setdefault("proposals", {})
        return value

    def next_seq(self) -> int:
        self.data["seq"] = int(self.data.get("seq", 0)) + 1
        return int(self.data["seq"])

    def owner(self, cid: str) -> int | None:
        value = self.meta.get(cid, {}).get("owner_id")
        return int(value) if value is not None else None

    def find(self, name: str) -> Combatant:
        """The fighter called ``name`` (accents, case, hyphens and spaces forgiven); a lone quick NPC
        « Gobelin » answers to « Gobelin 1 » too; a unique start of a name will do; a name that
        starts several is refused, listing them."""
        wanted = name_key(name)
        for c in self.state.combatants:
            if c.id == name or name_key(c.name) == wanted or c.id == slug(name):
                return c
        base, _, number = wanted.rpartition(" ")
        if base and number == "1":
            lone = [
                c
                for c in self.state.combatants
                if name_key(c.name) == base and self.meta.get(c.id, {}).get("kind") == "quick"
            ]
            if len(lone) == 1:
                return lone[0]
        starts = [c for c in self.state.combatants if name_key(c.name).startswith(wanted)]
        if len(starts) == 1:
            return starts[0]
        if len(starts) > 1:
            names = ", ".join(c.name for c in starts[:12])
            raise FightRefusal("combat.error.ambiguous_combatant", name=name[:60], names=names)
        raise FightRefusal("combat.error.no_such_combatant", name=name[:60])


def name_key(text: str) -> str:
    """A name as compared: accents and case folded, hyphens, underscores and apostrophes read as
    spaces ("Homme-bête 1" = "homme bete 1")."""
    return " ".join(re.sub(r"[-_'’]+", " ", fold(text)).split())


def slug(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text)
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch)).lower()
    return re.sub(r"[^a-z0-9]+", "-", folded).strip("-")[:40] or "x"


def new_event(scope: Scope, doc: Doc, kind: str, actor: str | None, payload: dict[str, Any]) -> int:
    seq = doc.next_seq()
    scope.session.add(
        FightEvent(
            fight_id=doc.row.id, seq=seq, round=doc.state.round, kind=kind, actor=actor, payload=payload
        )
    )
    return seq


def attack_payload(doc: Doc, seq: int, attacker: str, target: str, attack: dict[str, Any]) -> dict[str, Any]:
    """An attack reply's result: what was rolled; ``pending`` turns true while a defence is awaited."""
    return {
        "fight_id": doc.row.id,
        "seq": seq,
        "attacker": attacker,
        "target": target,
        "attack": attack,
        "pending": False,
    }


def pending_defence(
    scope: Scope, doc: Doc, seq: int, attacker: str, defender: str, **fields: Any
) -> dict[str, Any]:
    """An attack (or effect) waiting for its defence: ``fields`` are the system's own; the round, when
    the wait lapses (:data:`DEFENCE_TIMEOUT`) and who asked are common to all."""
    return {
        "seq": seq,
        "attacker": attacker,
        "defender": defender,
        **fields,
        "round": doc.state.round,
        "expires_at": (scope.ctx.now() + DEFENCE_TIMEOUT).isoformat(),
        "by": scope.caller.user_id,
    }


async def fight_here(scope: Scope) -> Doc:
    """The open fight of the caller's thread, or the only one opened from the caller's channel."""
    caller = scope.caller
    rows = (
        await scope.session.scalars(
            select(Fight).where(
                Fight.guild_id == scope.guild_id, Fight.status == "open", Fight.thread_id == caller.channel_id
            )
        )
    ).all()
    if not rows:
        rows = (
            await scope.session.scalars(
                select(Fight).where(
                    Fight.guild_id == scope.guild_id,
                    Fight.status == "open",
                    Fight.parent_channel_id == caller.channel_id,
                )
            )
        ).all()
        if len(rows) > 1:
            raise FightRefusal("combat.error.several_fights")
    if not rows:
        raise FightRefusal("combat.error.no_fight")
    _learn_channels(rows[0], parent=rows[0].thread_id != caller.channel_id)
    return Doc.load(rows[0])


async def fight_by_id(scope: Scope, fight_id: int) -> Doc:
    row = await scope.session.get(Fight, fight_id)
    if row is None or row.guild_id != scope.guild_id:
        raise FightRefusal("combat.error.no_fight")
    if row.status != "open":
        raise FightRefusal("combat.error.closed")
    return Doc.load(row)


def may_control(scope: Scope, doc: Doc, cid: str) -> bool:
    return scope.gm or doc.owner(cid) == scope.caller.user_id


def fight_texts(doc: Doc) -> tuple[str, ...]:
    """What users named in a fight — its fighters, their sides, the fight — escaped where shown."""
    names = {c.name for c in doc.state.combatants}
    names.update(c.side for c in doc.state.combatants if c.side)
    names.add(doc.row.name)
    return tuple(sorted(names))


def tracker_of(scope: Scope, doc: Doc, *, shared: bool = True) -> Reply:
    """The pinned tracker, in the server's language whoever acted (:attr:`Scope.server_locale`);
    ``shared=False``: a copy for the caller alone (``/combat voir``), in the caller's language."""
    own = scope.words
    if not shared or language_of(scope.server_locale) == language_of(own.locale):
        return _tracker(scope, doc)
    scope.words = scope.shared_words
    try:
        return _tracker(scope, doc)
    finally:
        scope.words = own


def _tracker(scope: Scope, doc: Doc) -> Reply:
    ruleset = doc.row.ruleset or "renove"
    extra: dict[str, tuple[str, ...]] = {}
    if ruleset != "renove":
        adapter = system_of(ruleset)
        extra = {c.id: adapter.tracker_lines(scope, doc, c) for c in doc.state.combatants}
    else:
        extra = mage_lines(scope.words, doc)
    buttons, selects = tracker_controls(scope.words, doc, scope.tables.postures)
    view = TrackerView(
        ruleset=ruleset,
        extra=extra,
        name=doc.row.name,
        state=doc.state,
        round_over=bool(doc.data.get("round_over", doc.state.round == 0)),
        pending=len(doc.pending),
        shield_max={cid: int(m["shield_max"]) for cid, m in doc.meta.items() if m.get("shield_max")},
        closed=doc.row.status != "open",
        waiting=waiting(scope.words, doc),
        postures=frozenset(c.id for c in doc.state.combatants if posture_shown(doc, c)),
        aims={str(k): str(v) for k, v in (doc.data.get("aim") or {}).items()} if ruleset == "renove" else {},
        second_weapon=frozenset(
            c.id for c in doc.state.combatants if ruleset == "renove" and has_second_weapon(scope.tables, c)
        ),
        buttons=buttons,
        selects=selects,
    )
    return replace(render_tracker(view, scope.words), user_texts=fight_texts(doc))


def mage_lines(words: Words, doc: Doc) -> dict[str, tuple[str, ...]]:
    """Against mages (data/magic.json): a mage's chaos dice after criticals, his voice lost."""
    out: dict[str, tuple[str, ...]] = {}
    for cid, mine in (doc.data.get("magic") or {}).items():
        parts = []
        criticals = int(mine.get("criticals", 0))
        if criticals:
            parts.append(words.t("magic.tracker.chaos", n=BASE_CHAOS_DICE + criticals))
        if mine.get("voice"):
            parts.append(words.t("magic.tracker.voice"))
        if parts:
            out[str(cid)] = ("🔮 " + " · ".join(parts),)
    return out


_TRACKER_VERSIONS = itertools.count(1)


def outcome(scope: Scope, doc: Doc, reply: Reply, *, archive: bool = False) -> FightOutcome:
    """The reply and the tracker to edit; when the turn came to a player's fighter, the reply pings
    that player (in ``content``, exactly that user allowed) and offers the target select."""
    if scope.turn_moved and not reply.is_error and not reply.ephemeral:
        due = ping(scope, doc)
        if due is not None and reply.content is None:
            reply = replace(reply, content=due[0], mentions=(due[1],))
        select = target_select(scope.words, doc)
        if select is not None and not reply.selects and len(reply.buttons) < 4:
            reply = replace(reply, selects=(select,))
    names = fight_texts(doc)
    return FightOutcome(
        replace(reply, user_texts=(*reply.user_texts, *names)),
        fight_id=doc.row.id,
        tracker=tracker_of(scope, doc),
        thread_id=doc.row.thread_id,
        tracker_message_id=doc.row.tracker_message_id,
        archive=archive,
        tracker_version=next(_TRACKER_VERSIONS),
    )


def saved_outcome(scope: Scope, doc: Doc, text: str, kind: str, result: dict[str, Any]) -> FightOutcome:
    """Saves ``doc`` and answers with an information reply (and the tracker to edit)."""
    doc.save()
    return outcome(scope, doc, Reply(description=text, colour=Colour.INFO, kind=kind, result=result))


def custom_id(fight_id: int, kind: str, *parts: str | int) -> str:
    return fid_id(fight_id, kind, *parts)


# -- hand-entered dice ----------------------------------------------------------------------


def parse_dice(text: str | None, *, option: str, sides: int = 100, limit: int = 30) -> list[int]:
    """``"12 5 18"`` → ``[12, 5, 18]``; on a d100, ``00`` is 100 (the input grammar's dice list)."""
    return parse_rolls(text, option=option, sides=sides, limit=limit)


def d100_or_none(value: int | None) -> int | None:
    if value is None:
        return None
    if value == 0:
        return 100
    if not 1 <= value <= 100:
        raise FightRefusal("combat.error.roll_range", value=value, sides=100)
    return value


@dataclass(frozen=True, slots=True)
class DefenceRolls:
    roll: int | None = None
    side_effect: int | None = None
    tests: str | None = None
    situation: str | None = None  # renove: defence situations typed (combat_modifiers.json ids/names)
