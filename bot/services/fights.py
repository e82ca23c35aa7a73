"""Fights in threads (``/combat``): the `renove` combat loop, one transaction per use case.

Every use case loads the fight row, rebuilds the pure :class:`FightState` from its JSON, runs the
combat core (``bot.rules.combat``), saves the new state (the ``version`` column guards it: a
concurrent writer raises ``StaleDataError`` and nothing is written), appends :class:`FightEvent`
rows and returns a :class:`FightOutcome` (a reply, plus the tracker to edit). Rolls go to the roll
log after the transaction committed.

The fight document (``Fight.state``)::

    {"fight": FightState.to_dict(), "meta": {combatant id: {owner_id, character_id, kind, …}},
     "pending": {seq: pending attack}, "prompts": [due tests], "proposals": {n: permanent change},
     "aim": {combatant: option}, "feint": {combatant: target}, "seq": last event seq,
     "options": {"mort_subite": bool}, "round_over": bool, "slot_done": bool}

Readings (besides the core's):

* A-costing actions are taken on one's own slot, one per slot; the turn then passes on by itself.
  Free actions, dodges and parries are taken any time. The GM may act for anyone.
* A parry with an A still unspent this round spends it as a prepared parry (the seed's "préparer
  une parade"); without any A left it is a reactive parry (−10 %, one A of next round).
* Quick NPCs from ``creatures_bf``: the table gives BF only; the other characteristics default to
  :data:`QUICK_NPC_DEFAULTS` (GM options override them) and BE defaults to BF (monsters double F
  and E alike). Characters of a playable race add ``playable_bonus`` (+3) to BF and BE.
* A death timer that runs out kills (the GM may undo it with ``/combat etat``).
* Holding a shield or a second weapon (or carrying a Lourdes weapon / a flail) costs −5 Ag
  (shields.json ``port_seconde_arme``; Ambidextre waives it for one-handed weapons): applied, itemised,
  to the initiative and the dodge; the Ag tests of effects (a fall …) keep the sheet's Ag.
* A defender on the ground (the ``prone`` condition) parries and dodges with ``def_a_terre``
  (combat_modifiers.json); ``/combat defense situation:`` adds others (mud, snow).
* Every die of a fight goes to the roll log, typed or rolled: initiative, attack, parry/dodge, the
  damage die, the partial-armour coverage d100s, the side effect, the critical, effect tests, durations.
* The Parer / Esquiver / Encaisser buttons take no dice: the bot rolls the parry or dodge d100 and the
  side effect itself (all logged); to type them, answer with ``/combat defense`` instead.
* A permanent change confirmed by the GM goes onto the sheet through the characters repository: a
  characteristic of the sheet's ruleset, else a skill already on the sheet (else refused, kept open).

Other rulesets: the ruleset of a fight is the one in force in the channel when ``/combat ouvrir``
runs (``Fight.ruleset``). The shared machinery (thread, tracker, turns, pending defences, buttons,
events, optimistic locking) stays here; each use case hands a `v1`, `d20` or `ogl` fight to its
adapter (:mod:`bot.services.fight_v1`, :mod:`~bot.services.fight_d20`,
:mod:`~bot.services.fight_ogl`), which calls the system's rules module. Their GM options (given
with ``/combat ouvrir options:…``) live in the fight document's ``options``.
"""

from __future__ import annotations

import asyncio
import re
import unicodedata
import weakref
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from typing import Any, Final

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.exc import StaleDataError

from bot.context import AppContext
from bot.db.characters import (
    CharacterSheet,
    find_character,
    find_row,
    get_active_character,
    get_row,
    to_sheet,
    write_data,
)
from bot.db.fight_models import Fight, FightEvent
from bot.db.repositories import ServerConfig, get_server_config, ruleset_in_force
from bot.rules.checks.common import DiceError, Modifier
from bot.rules.combat import (
    ArmourError,
    AttackRequest,
    AttackResult,
    Combatant,
    CombatTables,
    Condition,
    DefenceResult,
    DodgeRequest,
    EffectApplication,
    FightState,
    ParryRequest,
    RefusedError,
    Slot,
    TableError,
    apply_effects,
    apply_mechanics,
    build_armour,
    can_act,
    choose_posture,
    damage_to_parry_implement,
    damage_to_target,
    end_round,
    next_turn,
    parry_side_effect,
    record_parry,
    resolve_attack,
    resolve_dodge,
    resolve_parry,
    resolve_pending,
    roll_critical,
    roll_damage_die,
    roll_initiative,
    shield_max_pv,
    signal,
    start_round,
    take_action,
    wear_shield,
)
from bot.rules.combat.common import start_round_with
from bot.rules.combat.damage import CriticalResult, DamageResult
from bot.rules.combat.tables import REQUIRED_TABLES, Mechanic
from bot.rules.random_source import RandomSource
from bot.rules.sheets import Change, SheetError, apply_skill_changes, fold, sheet_for
from bot.services.caller import Caller
from bot.services.fight_text import Words
from bot.services.house_rules import overridden_tables, table_in_force
from bot.ui.reply import Button, ButtonStyle, Colour, Field, Reply, error_reply
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
_SPLIT = re.compile(r"[\s,;/]+")
_COUNT = re.compile(r"^\s*(\d{1,2})\s*[x×]?\s+(.+)$")


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

    @property
    def guild_id(self) -> int:
        assert self.caller.guild_id is not None
        return self.caller.guild_id

    @property
    def gm(self) -> bool:
        return self.caller.is_gm(self.config)

    def t(self, key: str, /, **params: Any) -> str:
        return self.words.t(key, **params)


# -- the tables in force --------------------------------------------------------------------

_BASE_TABLES: dict[int, CombatTables] = {}
_GUILD_TABLES: dict[int, tuple[tuple[Any, ...], CombatTables, dict[str, Any]]] = {}
TEXT_TABLES: Final = ("talents", "creatures_bf")


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

# One use case at a time per thread in this process: clicks and commands on the same fight queue up
# here instead of all reading the same version and all but one failing with "try again" (and
# holding SQLite's write lock and the pool's connections while they wait). Other processes are
# still kept apart by the ``version`` column.
_THREAD_LOCKS: weakref.WeakValueDictionary[tuple[int, int | None], asyncio.Lock] = (
    weakref.WeakValueDictionary()
)


def _thread_lock(caller: Caller) -> asyncio.Lock:
    key = (caller.guild_id or 0, caller.channel_id)
    lock = _THREAD_LOCKS.get(key)
    if lock is None:
        lock = _THREAD_LOCKS[key] = asyncio.Lock()
    return lock


async def run(
    ctx: AppContext, caller: Caller, work: Work, *, rng: RandomSource | None = None
) -> FightOutcome:
    """One transaction; a refusal becomes an ephemeral error in the caller's language."""
    t = ctx.catalog.t
    if caller.guild_id is None:
        return FightOutcome(error_reply(t(caller.locale, "combat.error.guild_only")))
    rolls: list[RollNote] = []
    ruleset = "renove"
    try:
        async with _thread_lock(caller), ctx.sessions.begin() as session:
            config = await get_server_config(session, caller.guild_id)
            tables, docs = await tables_for(session, ctx, caller.guild_id)
            words = Words(ctx, caller.locale, docs)
            scope = Scope(ctx, session, config, caller, words, tables, rng or ctx.rng, rolls)
            outcome = await work(scope)
            ruleset = scope.ruleset
    except FightRefusal as exc:
        words = Words(ctx, caller.locale, {n: ctx.tables[n].document for n in ctx.tables})
        return FightOutcome(error_reply(words.refusal(exc.key, exc.params)))
    except RefusedError as exc:
        words = Words(ctx, caller.locale, {n: ctx.tables[n].document for n in ctx.tables})
        return FightOutcome(error_reply(words.refusal(exc.refusal.reason, dict(exc.refusal.params))))
    except DiceError:
        return FightOutcome(error_reply(t(caller.locale, "combat.error.bad_roll")))
    except StaleDataError:
        return FightOutcome(error_reply(t(caller.locale, "combat.error.stale")))
    except (IntegrityError, OperationalError):
        return FightOutcome(error_reply(t(caller.locale, "combat.error.stale")))
    except (TableError, ArmourError) as exc:
        return FightOutcome(error_reply(t(caller.locale, "combat.error.table", detail=str(exc)[:200])))
    for note in rolls:
        await ctx.roll_log.record(
            guild_id=caller.guild_id,
            channel_id=caller.channel_id,
            user_id=caller.user_id,
            kind=note.kind,
            ruleset=ruleset,
            expression=note.expression,
            total=note.total,
            result=note.result,
        )
    return outcome


def require_gm(scope: Scope) -> None:
    if not scope.gm:
        raise FightRefusal("combat.error.gm_only")


# -- the fight document ---------------------------------------------------------------------


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
        data["meta"] = self.meta
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
        wanted = fold(name)
        for c in self.state.combatants:
            if c.id == name or fold(c.name) == wanted or c.id == slug(name):
                return c
        starts = [c for c in self.state.combatants if fold(c.name).startswith(wanted)]
        if len(starts) == 1:
            return starts[0]
        raise FightRefusal("combat.error.no_such_combatant", name=name[:60])


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


def tracker_of(scope: Scope, doc: Doc) -> Reply:
    ruleset = doc.row.ruleset or "renove"
    extra: dict[str, tuple[str, ...]] = {}
    if ruleset != "renove":
        adapter = system_of(ruleset)
        extra = {c.id: adapter.tracker_lines(scope, doc, c) for c in doc.state.combatants}
    view = TrackerView(
        ruleset=ruleset,
        extra=extra,
        name=doc.row.name,
        state=doc.state,
        round_over=bool(doc.data.get("round_over", doc.state.round == 0)),
        pending=len(doc.pending),
        shield_max={cid: int(m["shield_max"]) for cid, m in doc.meta.items() if m.get("shield_max")},
        closed=doc.row.status != "open",
    )
    return render_tracker(view, scope.words)


def outcome(scope: Scope, doc: Doc, reply: Reply, *, archive: bool = False) -> FightOutcome:
    return FightOutcome(
        reply,
        fight_id=doc.row.id,
        tracker=tracker_of(scope, doc),
        thread_id=doc.row.thread_id,
        tracker_message_id=doc.row.tracker_message_id,
        archive=archive,
    )


def custom_id(fight_id: int, kind: str, *parts: str | int) -> str:
    value = ":".join([PREFIX, str(fight_id), kind, *(str(p) for p in parts)])
    assert len(value) <= 100, value
    return value


# -- hand-entered dice ----------------------------------------------------------------------


def parse_dice(text: str | None, *, sides: int = 100, limit: int = 30) -> list[int]:
    """``"12 5 18"`` → ``[12, 5, 18]``; on a d100, ``00`` is 100."""
    if text is None or not text.strip():
        return []
    values: list[int] = []
    for part in _SPLIT.split(text.strip()):
        if not part:
            continue
        if not part.isdigit() or len(part) > 3:
            raise FightRefusal("combat.error.not_a_roll", value=part[:12])
        value = int(part)
        if sides == 100 and value == 0:
            value = 100
        if not 1 <= value <= sides:
            raise FightRefusal("combat.error.roll_range", value=value, sides=sides)
        values.append(value)
        if len(values) > limit:
            raise FightRefusal("combat.error.too_many_rolls", max=limit)
    return values


def d100_or_none(value: int | None) -> int | None:
    if value is None:
        return None
    if value == 0:
        return 100
    if not 1 <= value <= 100:
        raise FightRefusal("combat.error.roll_range", value=value, sides=100)
    return value


# ==========================================================================================
# opening, adding, removing
# ==========================================================================================


async def open_fight(
    ctx: AppContext, caller: Caller, *, name: str, mort_subite: bool = False, options: str | None = None
) -> FightOutcome:
    """Create the fight row (the cog then creates the thread, posts and pins the tracker).

    The fight's ruleset is the one in force in the channel; ``options`` are that system's GM
    options (``v1``: ``endurance:seuil``, ``attaques:echelonnees``, ``des:unites`` …)."""
    cleaned = " ".join(name.split())[:NAME_MAX]

    async def work(scope: Scope) -> FightOutcome:
        require_gm(scope)
        if not cleaned:
            raise FightRefusal("combat.error.name_empty")
        ruleset = await ruleset_in_force(scope.session, scope.guild_id, caller.channel_chain)
        scope.ruleset = ruleset
        system_options: dict[str, Any] = {}
        if ruleset in OTHER_RULESETS:
            system_options = system_of(ruleset).parse_options(options)
        elif options and options.strip():
            raise FightRefusal("combat.sys.error.no_options", ruleset=ruleset)
        in_thread = caller.parent_channel_id is not None
        if in_thread:
            busy = await scope.session.scalar(
                select(func.count())
                .select_from(Fight)
                .where(Fight.thread_id == caller.channel_id, Fight.status == "open")
            )
            if busy:
                raise FightRefusal("combat.error.thread_busy")
        row = Fight(
            guild_id=scope.guild_id,
            thread_id=caller.channel_id if in_thread else None,
            parent_channel_id=(caller.parent_channel_id if in_thread else caller.channel_id) or 0,
            owner_id=caller.user_id,
            name=cleaned,
            ruleset=ruleset,
            status="open",
            state={
                "fight": FightState().to_dict(),
                "meta": {},
                "options": {"mort_subite": mort_subite, **system_options},
                "seq": 0,
            },
        )
        scope.session.add(row)
        await scope.session.flush()
        doc = Doc.load(row)
        new_event(
            scope,
            doc,
            "open",
            None,
            {"name": cleaned, "mort_subite": mort_subite, "ruleset": ruleset, "options": system_options},
        )
        doc.data["round_over"] = True
        doc.save()
        description = scope.t("combat.open.done")
        if ruleset in OTHER_RULESETS:
            description += "\n" + system_of(ruleset).options_line(scope, system_options)
        reply = Reply(
            title=scope.t("combat.open.title", name=cleaned),
            description=description,
            colour=Colour.INFO,
            result={
                "fight_id": row.id,
                "name": cleaned,
                "mort_subite": mort_subite,
                "ruleset": ruleset,
                "options": system_options,
            },
            kind="combat.open",
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)


async def attach_thread(
    ctx: AppContext, caller: Caller, fight_id: int, *, thread_id: int, message_id: int | None
) -> None:
    async with ctx.sessions.begin() as session:
        row = await session.get(Fight, fight_id)
        if row is not None:
            row.thread_id = thread_id
            row.tracker_message_id = message_id


async def abandon(ctx: AppContext, fight_id: int) -> None:
    """The thread could not be created: close the row so nothing points at a missing thread."""
    async with ctx.sessions.begin() as session:
        row = await session.get(Fight, fight_id)
        if row is not None:
            row.status = "closed"
            row.closed_at = datetime.now(UTC)


def _talent_ids(docs: Mapping[str, Any], names: Iterable[str]) -> frozenset[str]:
    known: dict[str, str] = {}
    for entry in docs.get("talents", {}).get("entries", ()):
        for label in (entry.get("id"), entry.get("name"), entry.get("name_en")):
            if label:
                known[fold(str(label))] = str(entry["id"])
    out = set()
    for name in names:
        key = fold(name)
        base = key.split(" (")[0]
        if key in known:
            out.add(known[key])
        elif base in known:
            out.add(known[base])
    return frozenset(out)


def _presets(docs: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for entry in docs.get("creatures_bf", {}).get("entries", ()):
        for creature in entry.get("creatures", ()):
            out[str(creature["id"])] = {
                "id": creature["id"],
                "name": creature.get("name") or creature["id"],
                "name_en": creature.get("name_en") or creature.get("name"),
                "BF": entry.get("BF"),
                "BE": entry.get("BE"),
            }
    return out


def find_preset(docs: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    wanted = fold(text)
    candidates = {
        wanted,
        wanted.rstrip("s"),
        wanted.rstrip("x"),
        wanted[:-1] if wanted.endswith("es") else wanted,
    }
    for preset in _presets(docs).values():
        names = {
            fold(str(preset["id"]).replace("_", " ")),
            fold(str(preset["name"])),
            fold(str(preset["name_en"])),
        }
        if candidates & names:
            return preset
    return None


def preset_choices(docs: Mapping[str, Any], current: str, en: bool) -> list[tuple[str, str]]:
    wanted = fold(current)
    out = []
    for preset in _presets(docs).values():
        label = str(preset["name_en"] if en else preset["name"])
        if not wanted or wanted in fold(label):
            out.append((f"{label} (BF {preset['BF']})", label))
    return out


@dataclass(frozen=True, slots=True)
class NpcStats:
    cc: int | None = None
    ct: int | None = None
    f: int | None = None
    e: int | None = None
    ag: int | None = None
    bf: int | None = None
    be: int | None = None
    a: int | None = None
    weapons: str | None = None
    armour: str | None = None
    caracs: str | None = None  # other rulesets: "CC:40 F:3 E:3 B:8 I:35 Esquive:10"


def _resolve_weapon(scope: Scope, text: str) -> str:
    wanted = fold(text)
    tables = scope.tables
    if text in tables.weapons:
        return text
    for weapon in tables.weapons.values():
        if wanted in (fold(weapon.name), fold(weapon.id.replace("_", " "))):
            return weapon.id
    starts = [w.id for w in tables.weapons.values() if fold(w.name).startswith(wanted)]
    if len(starts) == 1:
        return starts[0]
    raise FightRefusal("combat.error.unknown_weapon", name=text[:40])


def _resolve_piece(scope: Scope, text: str) -> str:
    pieces = scope.tables.armour.pieces
    if text in pieces:
        return text
    wanted = fold(text)
    for piece in pieces.values():
        if wanted in (
            fold(piece.name),
            fold(piece.id.replace("_", " ")),
            fold(f"{piece.family} {piece.name}"),
        ):
            return piece.id
    raise FightRefusal("combat.error.unknown_armour", name=text[:40])


def _list(text: str | None) -> list[str]:
    if not text:
        return []
    return [p.strip() for p in re.split(r"[,;]", text) if p.strip()]


def _equip(scope: Scope, weapons: Sequence[str], pieces: Sequence[str]) -> dict[str, Any]:
    """Weapons (main, off hand, shield) and armour layers of a combatant."""
    tables = scope.tables
    weapon_ids = [w for w in weapons if w in tables.weapons]
    shield: str | None = None
    for wid in weapon_ids:
        if tables.shield_for(wid).pv is not None:
            shield = wid
    melee = [w for w in weapon_ids if tables.weapons[w].kind == "melee"]
    off_hand = None
    if len(melee) >= 2:
        off_hand = melee[1]
    armour = build_armour(tables, pieces) if pieces else {}
    shield_max = shield_max_pv(tables, shield) if shield else None
    return {
        "weapons": tuple(weapon_ids) or ("mains_nues",),
        "off_hand": off_hand,
        "armour": armour,
        "shield": shield,
        "shield_max": shield_max,
    }


def _shields_rule(scope: Scope, rule_id: str) -> Mapping[str, Any]:
    for rule in scope.words.docs.get("shields", {}).get("rules", ()):
        if rule.get("id") == rule_id:
            effect: Mapping[str, Any] = rule.get("effect") or {}
            return effect
    return {}


def _carry_penalty(scope: Scope, c: Combatant) -> tuple[int, str | None]:
    """The seed's −5 Ag for what is carried (shields.json ``port_seconde_arme``): a shield or a second
    weapon in the left hand (not a knife, a dagger, a pistol, a crossbow pistol nor a parrying weapon),
    or a weapon of the Lourdes group / a flail; Ambidextre waives it for one-handed weapons. The value
    (0 when nothing costs) and the weapon that costs it."""
    effect = _shields_rule(scope, "port_seconde_arme")
    if effect.get("type") != "carry_penalty" or effect.get("stat", "Ag") != "Ag":
        return 0, None
    tables = scope.tables
    waiver = _shields_rule(scope, "ambidextre")
    ambidextrous = str(waiver.get("talent", "ambidextre")) in c.talents
    one_handed_only = bool(waiver.get("one_handed_only", True))
    left = c.off_hand
    if left is None:
        left = next((w for w in c.weapons if tables.shield_for(w).pv is not None), None)
    costly: list[str] = []
    if (
        left is not None
        and left in tables.weapons
        and left not in effect.get("exempt_weapons", ())
        and tables.weapons[left].defensive_kind not in effect.get("exempt_defensive_kinds", ())
    ):
        costly.append(left)
    for wid in c.weapons:
        weapon = tables.weapons.get(wid)
        if weapon is None or wid in costly:
            continue
        if weapon.group in effect.get("also_when_carried_groups", ()) or wid in effect.get(
            "also_when_carried_weapons", ()
        ):
            costly.append(wid)
    for wid in costly:
        if ambidextrous and (not one_handed_only or not tables.weapons[wid].two_handed):
            continue
        return int(effect.get("value", 0)), wid
    return 0, None


def _carry_modifier(scope: Scope, c: Combatant) -> Modifier | None:
    value, _ = _carry_penalty(scope, c)
    return Modifier("combat.modifier.carry_penalty", value) if value else None


def _with_carry(check: Any, carry: Modifier | None) -> Any:
    """A defence check computed on the reduced Ag, itemised: its first term (Ag) split in two."""
    if carry is None or not check.modifiers:
        return check
    first, *rest = check.modifiers
    return replace(check, modifiers=(replace(first, value=first.value - carry.value), carry, *rest))


def _unique_id(doc: Doc, name: str) -> str:
    base = slug(name)
    taken = {c.id for c in doc.state.combatants}
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def _combatant_from_sheet(
    scope: Scope, docs: Mapping[str, Any], doc: Doc, sheet: CharacterSheet
) -> tuple[Combatant, dict[str, Any]]:
    stats = dict(sheet.characteristics)
    bonus = docs.get("creatures_bf", {}).get("rule", {}).get("playable_bonus", {})
    stats.setdefault("BF", stats.get("F", 0) // 10)
    stats.setdefault("BE", stats.get("E", 0) // 10)
    stats.setdefault("A", 1)
    applied = {}
    if not sheet.is_npc:
        for code in ("BF", "BE"):
            add = int(bonus.get(code, 0))
            if add:
                stats[code] = stats[code] + add
                applied[code] = add
    gear = _equip(scope, sheet.equipment.get("weapons", []), sheet.equipment.get("armour", []))
    skills = frozenset(fold(s) for s in sheet.skills)
    combatant = Combatant(
        id=_unique_id(doc, sheet.name),
        name=sheet.name,
        characteristics=stats,
        weapons=gear["weapons"],
        off_hand=gear["off_hand"],
        armour=gear["armour"],
        shield_pv=gear["shield_max"],
        talents=_talent_ids(docs, sheet.talents),
        skills=skills,
        npc=sheet.is_npc,
    )
    meta = {
        "owner_id": sheet.owner_id,
        "character_id": sheet.id,
        "kind": "npc" if sheet.is_npc else "pc",
        "shield": gear["shield"],
        "shield_max": gear["shield_max"],
        "playable_bonus": applied,
    }
    return combatant, meta


async def add_combatants(
    ctx: AppContext, caller: Caller, *, who: str, count: int | None = None, stats: NpcStats | None = None
) -> FightOutcome:
    """Add a character by name (PC or saved NPC), or ``count`` quick NPCs from a creature preset."""
    text = " ".join(who.split())
    stats = stats or NpcStats()

    async def work(scope: Scope) -> FightOutcome:
        doc = await fight_here(scope)
        if doc.row.ruleset in OTHER_RULESETS:
            return await add_other(scope, doc, text, count, stats)
        if stats.caracs:
            raise FightRefusal("combat.sys.error.caracs_other_rulesets")
        docs = scope.words.docs
        number = count
        name = text
        match = _COUNT.match(text)
        if match and number is None:
            number, name = int(match.group(1)), match.group(2)
        sheet = await find_character(scope.session, scope.guild_id, name) if number is None else None
        added: list[Combatant] = []
        if sheet is not None:
            if not scope.gm and sheet.owner_id != scope.caller.user_id:
                raise FightRefusal("combat.error.not_yours", name=sheet.name)
            if any(m.get("character_id") == sheet.id for m in doc.meta.values()):
                raise FightRefusal("combat.error.already_in", name=sheet.name)
            combatant, meta = _combatant_from_sheet(scope, docs, doc, sheet)
            doc.state = replace(doc.state, combatants=(*doc.state.combatants, combatant))
            doc.meta[combatant.id] = meta
            added.append(combatant)
        else:
            require_gm(scope)
            preset = find_preset(docs, name)
            if preset is None:
                raise FightRefusal("combat.error.unknown_who", name=name[:60])
            number = number or 1
            if not 1 <= number <= MAX_QUICK:
                raise FightRefusal("combat.error.count_range", max=MAX_QUICK)
            if len(doc.state.combatants) + number > MAX_COMBATANTS:
                raise FightRefusal("combat.error.too_many", max=MAX_COMBATANTS)
            label = str(preset["name_en"] if scope.words.en else preset["name"])
            values = dict(QUICK_NPC_DEFAULTS)
            for code, given in (
                ("CC", stats.cc),
                ("CT", stats.ct),
                ("F", stats.f),
                ("E", stats.e),
                ("Ag", stats.ag),
                ("A", stats.a),
            ):
                if given is not None:
                    values[code] = given
            values["BF"] = stats.bf if stats.bf is not None else int(preset["BF"] or values["F"] // 10)
            values["BE"] = stats.be if stats.be is not None else int(preset["BE"] or values["BF"])
            weapons = [_resolve_weapon(scope, w) for w in _list(stats.weapons)] or [QUICK_NPC_WEAPON]
            pieces = [_resolve_piece(scope, p) for p in _list(stats.armour)]
            gear = _equip(scope, weapons, pieces)
            existing = sum(1 for m in doc.meta.values() if m.get("preset") == preset["id"])
            for index in range(number):
                display = f"{label} {existing + index + 1}" if number > 1 or existing else label
                combatant = Combatant(
                    id=_unique_id(doc, display),
                    name=display,
                    characteristics=dict(values),
                    weapons=gear["weapons"],
                    off_hand=gear["off_hand"],
                    armour=gear["armour"],
                    shield_pv=gear["shield_max"],
                    npc=True,
                )
                doc.state = replace(doc.state, combatants=(*doc.state.combatants, combatant))
                doc.meta[combatant.id] = {
                    "owner_id": doc.row.owner_id,
                    "character_id": None,
                    "kind": "quick",
                    "preset": preset["id"],
                    "shield": gear["shield"],
                    "shield_max": gear["shield_max"],
                }
                added.append(combatant)
        if len(doc.state.combatants) > MAX_COMBATANTS:
            raise FightRefusal("combat.error.too_many", max=MAX_COMBATANTS)
        new_event(scope, doc, "add", None, {"combatants": [c.to_dict() for c in added]})
        doc.save()
        lines = [_profile_line(scope, c, doc.meta[c.id]) for c in added]
        reply = Reply(
            title=scope.t("combat.add.title", count=len(added)),
            description="\n".join(lines)[:4000],
            footer=scope.t("combat.add.footer")
            if doc.state.round and not doc.data.get("round_over")
            else None,
            colour=Colour.INFO,
            result={"fight_id": doc.row.id, "added": [c.to_dict() for c in added]},
            kind="combat.add",
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)


def _profile_line(scope: Scope, c: Combatant, meta: Mapping[str, Any]) -> str:
    ch = c.characteristics
    weapons = ", ".join(scope.words.weapon(w) for w in c.weapons)
    zones = []
    for zone in ("tete", "corps", "bras", "jambes"):
        layers = c.armour.get(zone, ())
        if layers:
            pa = sum(scope.tables.armour.families[layer.family].pa for layer in layers)
            partial = any(layer.coverage < 1 for layer in layers)
            zones.append(f"{scope.words.zone(zone)} {pa}{'*' if partial else ''}")
    bonus = meta.get("playable_bonus") or {}
    extra = (
        " " + scope.t("combat.add.playable_bonus", bf=bonus.get("BF", 0), be=bonus.get("BE", 0))
        if bonus
        else ""
    )
    armour = (" · PA " + ", ".join(zones)) if zones else ""
    return (
        f"**{c.name}** — CC {ch.get('CC')} · CT {ch.get('CT')} · F {ch.get('F')} · Ag {ch.get('Ag')} · "
        f"A {ch.get('A', 1)} · BF {ch.get('BF')} · BE {ch.get('BE')}{extra} · {weapons}{armour}"
    )


async def remove_combatant(ctx: AppContext, caller: Caller, *, who: str) -> FightOutcome:
    async def work(scope: Scope) -> FightOutcome:
        require_gm(scope)
        doc = await fight_here(scope)
        c = doc.find(who)
        state = doc.state
        current = state.current_slot
        order = tuple(s for s in state.order if s.combatant != c.id)
        turn = state.turn
        if current is not None:
            before = sum(1 for s in state.order[: state.turn] if s.combatant == c.id)
            turn = max(0, turn - before)
        doc.state = replace(
            state, combatants=tuple(x for x in state.combatants if x.id != c.id), order=order, turn=turn
        )
        doc.meta.pop(c.id, None)
        for seq, pending in list(doc.pending.items()):
            if c.id in (pending["attacker"], pending["defender"]):
                doc.pending.pop(seq)
        new_event(scope, doc, "remove", c.id, {"name": c.name})
        doc.save()
        reply = Reply(
            description=scope.t("combat.remove.done", name=c.name),
            colour=Colour.INFO,
            kind="combat.remove",
            result={"removed": c.id},
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)


# ==========================================================================================
# rounds, postures, turns
# ==========================================================================================


def _parse_initiative_dice(doc: Doc, text: str | None) -> dict[str, list[int]]:
    """``"Albert: 12 5 18; Gobelin 1: 3 4 5 (6)"`` → per combatant (a 4th value = Sur ses gardes)."""
    out: dict[str, list[int]] = {}
    for name, dice in named_entries(text, "combat.error.initiative_format"):
        c = doc.find(name)
        out[c.id] = parse_dice(dice.replace("(", " ").replace(")", " "), sides=20, limit=4)
    return out


# -- shared by the system adapters' rounds (fight_d20, fight_ogl, fight_v1) --------------------


def named_entries(text: str | None, error: str) -> Iterator[tuple[str, str]]:
    """``"Albert: x; Orc: y"`` → ``("Albert", " x")``, ``("Orc", " y")`` (blank parts skipped);
    a part without ``:`` is refused with the *error* key."""
    for part in (text or "").split(";"):
        if not part.strip():
            continue
        name, sep, value = part.partition(":")
        if not sep:
            raise FightRefusal(error)
        yield name.strip(), value


def close_open_round(scope: Scope, doc: Doc) -> list[str]:
    """Before a new round: the notes of ending the current one when it is still running."""
    if doc.state.round and not doc.data.get("round_over"):
        return _end_round(scope, doc)
    return []


def start_system_round(doc: Doc, order: Sequence[Slot], system: str, data: dict[str, Any]) -> None:
    """A system adapter's next round: its order, the shared round flags, its fresh round data."""
    doc.state = start_round_with(doc.state, order)
    doc.data["round_over"] = False
    doc.data["slot_done"] = False
    doc.data[system] = data


def round_outcome(
    scope: Scope, doc: Doc, lines: Sequence[str], notes: Sequence[str], initiative: list[dict[str, Any]]
) -> FightOutcome:
    """The ``combat.round`` reply of a system adapter's new round."""
    reply = Reply(
        title=scope.t("combat.round.title", round=doc.state.round),
        description="\n".join([*lines, "", *notes])[:4000],
        colour=Colour.NEUTRAL,
        result={
            "fight_id": doc.row.id,
            "round": doc.state.round,
            "initiative": initiative,
            "order": [s.to_dict() for s in doc.state.order],
        },
        kind="combat.round",
    )
    return outcome(scope, doc, reply)


def _can_take_turn(tables: CombatTables, c: Combatant) -> bool:
    if c.has("dead", "unconscious", "no_action", "stunned"):
        return False
    if any(x.kind == "lose_time" and x.unit == "round" for x in c.conditions):
        return False
    return c.attacks_left() > 0 or (c.off_hand is not None and not c.actions.second_weapon_used)


def _settle_turn(scope: Scope, doc: Doc) -> list[str]:
    """Skip the slots of those who cannot act; past the last slot, end the round. Notes for the reply."""
    notes: list[str] = _slot_hook(scope, doc)
    state = doc.state
    while state.current_slot is not None:
        slot = state.current_slot
        c = state.get(slot.combatant)
        if _can_take_turn(scope.tables, c):
            break
        notes.append(scope.t("combat.turn.skipped", name=c.name))
        doc.state = next_turn(state)
        notes.extend(_slot_hook(scope, doc))
        state = doc.state
    doc.state = state
    if state.current_slot is None and state.round and not doc.data.get("round_over") and not doc.pending:
        notes.extend(_end_round(scope, doc))
    return notes


def _slot_hook(scope: Scope, doc: Doc) -> list[str]:
    """A system adapter's bookkeeping each time the slot may have changed (ogl: combat actions lost)."""
    if doc.row.ruleset not in OTHER_RULESETS:
        return []
    hook = getattr(system_of(doc.row.ruleset), "on_slot", None)
    return list(hook(scope, doc)) if hook is not None else []


def _end_round(scope: Scope, doc: Doc) -> list[str]:
    state, results = end_round(doc.state)
    notes = [scope.t("combat.round.over", round=state.round)]
    for cid, result in results.items():
        c = state.get(cid)
        for expired in result.expired:
            notes.append(
                scope.t(
                    "combat.round.expired",
                    name=c.name,
                    what=scope.words.condition(replace(expired, remaining=None, until=None)),
                )
            )
        for prompt in result.prompts:
            if prompt.kind == "death_timer_expired":
                state = state.put(
                    replace(
                        state.get(cid),
                        conditions=(
                            *state.get(cid).conditions,
                            Condition("dead", prompt.condition.source, until="permanent"),
                        ),
                    )
                )
                notes.append(scope.t("combat.round.death_timer", name=c.name))
                continue
            number = int(doc.data.get("prompt_seq", 0)) + 1
            doc.data["prompt_seq"] = number
            doc.prompts.append(
                {"id": number, "combatant": cid, "kind": prompt.kind, "condition": prompt.condition.to_dict()}
            )
            test = prompt.condition.test
            notes.append(
                scope.t(
                    f"combat.round.prompt.{prompt.kind}",
                    name=c.name,
                    stat=test.characteristic if test else "?",
                    modifier=f"{test.modifier:+d}" if test else "",
                )
            )
    doc.state = state
    doc.data["round_over"] = True
    new_event(scope, doc, "round_end", None, {"results": {k: v.to_dict() for k, v in results.items()}})
    return notes


async def new_round(ctx: AppContext, caller: Caller, *, dice: str | None = None) -> FightOutcome:
    """GM: end the current round if needed, roll initiative (3d20 + Ag, slots I/k) and start the next."""

    async def work(scope: Scope) -> FightOutcome:
        require_gm(scope)
        doc = await fight_here(scope)
        living = [c for c in doc.state.combatants if not c.has("dead")]
        if not living:
            raise FightRefusal("combat.error.nobody")
        if doc.row.ruleset in OTHER_RULESETS:
            started: FightOutcome = await system_of(doc.row.ruleset).new_round(scope, doc, dice)
            return started
        notes = close_open_round(scope, doc)
        hand = _parse_initiative_dice(doc, dice)
        results = []
        lines = []
        for c in doc.state.combatants:
            if c.has("dead"):
                continue
            given = hand.get(c.id, [])
            carry, carried = _carry_penalty(scope, c)
            result = roll_initiative(
                scope.tables,
                c.id,
                c.stat("Ag") + carry,
                c.attacks,
                talents=c.talents,
                rng=scope.rng,
                dice_rolls=given[:3] or None,
                bonus_rolls=given[3:] or None,
            )
            results.append(result)
            bonus = "".join(f" + {r}" for _, r in result.bonus_dice)
            slots = " · ".join(_slot_text(v) for v in result.slots)
            dice_text = "+".join(str(x) for x in result.dice)
            ag_text = f"Ag {result.ag}"
            if carry and carried:
                ag_text += (
                    " ("
                    + scope.t(
                        "combat.round.carry",
                        ag=result.ag - carry,
                        value=f"{carry:+d}",
                        weapon=scope.words.weapon(carried),
                    )
                    + ")"
                )
            lines.append(f"**{c.name}** : {dice_text} + {ag_text}{bonus} = **{result.total}** → {slots}")
            carry_note = {"carry_penalty": {"value": carry, "weapon": carried}} if carry else {}
            scope.rolls.append(
                RollNote(
                    "combat.initiative",
                    "3d20+Ag",
                    result.total,
                    {"fight_id": doc.row.id, "name": c.name, **result.to_dict(), **carry_note},
                )
            )
        doc.state = start_round(doc.state, results)
        doc.data["round_over"] = False
        doc.data["aim"] = {}
        doc.data["feint"] = {}
        notes.extend(_settle_turn(scope, doc))
        new_event(scope, doc, "round", None, {"initiative": [r.to_dict() for r in results]})
        doc.save()
        current = doc.state.current_slot
        description = "\n".join(lines)
        if current is not None:
            description += "\n\n" + scope.t("combat.turn.now", name=doc.state.get(current.combatant).name)
        if notes:
            description = "\n".join(notes) + "\n\n" + description
        buttons = _posture_buttons(scope, doc)
        reply = Reply(
            title=scope.t("combat.round.title", round=doc.state.round),
            description=description[:4000],
            footer=scope.t("combat.round.footer"),
            colour=Colour.NEUTRAL,
            buttons=buttons,
            result={
                "fight_id": doc.row.id,
                "round": doc.state.round,
                "initiative": [r.to_dict() for r in results],
                "order": [s.to_dict() for s in doc.state.order],
            },
            kind="combat.round",
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)


def _slot_text(value: Fraction) -> str:
    return str(int(value)) if value.denominator == 1 else f"{float(value):.1f}"


def _posture_buttons(scope: Scope, doc: Doc) -> tuple[tuple[Button, ...], ...]:
    fid = doc.row.id
    row1 = tuple(
        Button(scope.words.posture(p), custom_id(fid, "pos", p), ButtonStyle.SECONDARY)
        for p in ("normale", "prudente", "temeraire", "defensive")
        if p in scope.tables.postures
    )
    row2 = (
        tuple(
            Button(
                scope.words.posture("suicidaire", o),
                custom_id(fid, "pos", "suicidaire", o),
                ButtonStyle.DANGER,
            )
            for o in scope.tables.postures["suicidaire"].options
        )
        if "suicidaire" in scope.tables.postures
        else ()
    )
    return tuple(r for r in (row1, row2) if r)


async def set_posture(
    ctx: AppContext,
    caller: Caller,
    *,
    posture: str,
    option: str | None = None,
    who: str | None = None,
    fight_id: int | None = None,
) -> FightOutcome:
    """Choose a posture for this round (before acting): one's own combatants, or ``who`` (GM)."""

    async def work(scope: Scope) -> FightOutcome:
        doc = await (fight_by_id(scope, fight_id) if fight_id is not None else fight_here(scope))
        if doc.row.ruleset in OTHER_RULESETS:
            raise FightRefusal("combat.sys.error.no_postures", ruleset=doc.row.ruleset)
        if who:
            targets = [doc.find(who)]
            if not may_control(scope, doc, targets[0].id):
                raise FightRefusal("combat.error.not_yours", name=targets[0].name)
        else:
            targets = [
                c
                for c in doc.state.combatants
                if doc.owner(c.id) == scope.caller.user_id and not c.has("dead")
            ]
            if scope.gm and fight_id is not None:
                targets = [c for c in targets if doc.meta.get(c.id, {}).get("kind") != "pc"] or targets
            if not targets:
                raise FightRefusal("combat.error.no_combatant_of_yours")
        changed = []
        for c in targets:
            if c.actions.used or c.actions.attacks_made or c.actions.kinds_used:
                raise FightRefusal("combat.error.posture_locked", name=c.name)
            updated = choose_posture(scope.tables, c, posture, option)
            doc.state = doc.state.put(updated)
            changed.append(updated)
        new_event(
            scope,
            doc,
            "posture",
            None,
            {"posture": posture, "option": option, "combatants": [c.id for c in changed]},
        )
        doc.save()
        text = scope.words.posture(posture, option)
        reply = Reply(
            description=scope.t(
                "combat.posture.done", names=", ".join(c.name for c in changed), posture=text
            ),
            colour=Colour.INFO,
            kind="combat.posture",
            result={"posture": posture, "option": option, "combatants": [c.id for c in changed]},
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)


async def advance(ctx: AppContext, caller: Caller) -> FightOutcome:
    """GM: the next slot (the current combatant's turn is over)."""

    async def work(scope: Scope) -> FightOutcome:
        require_gm(scope)
        doc = await fight_here(scope)
        if doc.data.get("round_over") or doc.state.current_slot is None:
            raise FightRefusal("combat.error.round_over")
        doc.state = next_turn(doc.state)
        doc.data["slot_done"] = False
        notes = _settle_turn(scope, doc)
        new_event(scope, doc, "next", None, {"turn": doc.state.turn})
        doc.save()
        reply = Reply(
            description="\n".join([*notes, _turn_line(scope, doc)]),
            colour=Colour.INFO,
            kind="combat.next",
            result={"turn": doc.state.turn, "round_over": bool(doc.data.get("round_over"))},
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)


def _turn_line(scope: Scope, doc: Doc) -> str:
    if doc.data.get("round_over"):
        return scope.t("combat.turn.round_over")
    slot = doc.state.current_slot
    if slot is None:
        return ""
    return scope.t("combat.turn.now", name=doc.state.get(slot.combatant).name)


def _actor(scope: Scope, doc: Doc, name: str | None) -> Combatant:
    """The acting combatant: named (GM or owner), else the caller's combatant whose turn it is."""
    if name:
        c = doc.find(name)
        if not may_control(scope, doc, c.id):
            raise FightRefusal("combat.error.not_yours", name=c.name)
        return c
    slot = doc.state.current_slot
    if slot is not None and may_control(scope, doc, slot.combatant):
        return doc.state.get(slot.combatant)
    mine = [c for c in doc.state.combatants if doc.owner(c.id) == scope.caller.user_id and not c.has("dead")]
    if len(mine) == 1:
        return mine[0]
    raise FightRefusal("combat.error.which_combatant")


def _spend(
    scope: Scope, doc: Doc, c: Combatant, action: str, *, advance: bool = True
) -> tuple[Combatant, list[str]]:
    """Take an action that costs an A: only on one's own slot, one per slot; then the turn passes
    (``advance=False``: the caller passes it with :func:`_pass_turn` once its pending work is stored)."""
    spec = scope.tables.actions.get(action)
    costs_a = spec is not None and spec.cost_unit in ("A", "all_A")
    if (doc.data.get("round_over") or not doc.state.round) and costs_a:
        raise FightRefusal("combat.error.round_not_started")
    slot = doc.state.current_slot
    if costs_a and (slot is None or slot.combatant != c.id):
        raise FightRefusal("combat.error.not_your_turn", name=c.name)
    if costs_a and doc.data.get("slot_done"):
        raise FightRefusal("combat.error.slot_spent", name=c.name)
    updated = take_action(scope.tables, c, action)
    doc.state = doc.state.put(updated)
    notes: list[str] = []
    if costs_a and advance:
        notes = _pass_turn(scope, doc)
    return updated, notes


def _pass_turn(scope: Scope, doc: Doc) -> list[str]:
    doc.state = next_turn(doc.state)
    doc.data["slot_done"] = False
    return _settle_turn(scope, doc)


# ==========================================================================================
# actions other than attacks
# ==========================================================================================

SIMPLE_ACTIONS: Final = (
    "feinter",
    "viser",
    "manoeuvrer",
    "preparer_parade",
    "se_positionner",
    "esquiver",
    "autre_action_gratuite",
    "recharger",
    "prendre_objet",
    "se_relever",
    "desengagement",
)


async def take_simple_action(
    ctx: AppContext,
    caller: Caller,
    *,
    action: str,
    who: str | None = None,
    option: str | None = None,
    target: str | None = None,
    roll: int | None = None,
    target_roll: int | None = None,
) -> FightOutcome:
    """Aim (``option`` precision|puissance), feint (opposed CC against ``target``), manoeuvre,
    prepare a parry, position, draw/reload … — refused with the core's reason when not allowed."""

    async def work(scope: Scope) -> FightOutcome:
        doc = await fight_here(scope)
        if doc.row.ruleset in OTHER_RULESETS:
            done: FightOutcome = await system_of(doc.row.ruleset).simple_action(
                scope, doc, action, who=who, option=option, target=target, roll=roll, target_roll=target_roll
            )
            return done
        if action not in scope.tables.actions:
            raise FightRefusal("combat.refusal.unknown_action", action=action)
        c = _actor(scope, doc, who)
        lines = []
        result: dict[str, Any] = {"action": action, "combatant": c.id}
        if action == "viser":
            aim = option or "precision"
            if aim not in scope.tables.aim_options:
                raise FightRefusal("combat.error.bad_aim")
        if action == "feinter":
            if not target:
                raise FightRefusal("combat.error.feint_needs_target")
            foe = doc.find(target)
            ws_a, ws_b = doc.state.combat_ws(c.id, foe.id, scope.tables)
            from bot.rules.checks import renove

            mine = renove.result_from_roll(
                ws_a,
                (
                    Modifier("combat.modifier.cc", c.stat("CC")),
                    Modifier("combat.modifier.combat_ws_adjustment", ws_a - c.stat("CC")),
                ),
                _d100(scope, roll),
            )
            theirs = renove.result_from_roll(
                ws_b,
                (
                    Modifier("combat.modifier.cc", foe.stat("CC")),
                    Modifier("combat.modifier.combat_ws_adjustment", ws_b - foe.stat("CC")),
                ),
                _d100(scope, target_roll),
            )
            won = mine.success and (
                not theirs.success
                or (mine.degrees or 0) > (theirs.degrees or 0)
                or ((mine.degrees or 0) == (theirs.degrees or 0) and mine.roll < theirs.roll)
            )
            lines.append(f"{c.name} : " + scope.words.check_block(mine))
            lines.append(f"{foe.name} : " + scope.words.check_block(theirs))
            lines.append(
                scope.t("combat.feint.won" if won else "combat.feint.lost", name=c.name, target=foe.name)
            )
            result.update(feint={"attacker": mine.to_dict(), "defender": theirs.to_dict(), "won": won})
            scope.rolls.append(
                RollNote("combat.feint", "1d100", mine.roll, {"fight_id": doc.row.id, **result})
            )
        _updated, notes = _spend(scope, doc, c, action)
        if action == "viser":
            doc.data.setdefault("aim", {})[c.id] = option or "precision"
        if action == "feinter" and result.get("feint", {}).get("won"):
            doc.data.setdefault("feint", {})[c.id] = doc.find(str(target)).id
        if action == "se_relever":
            doc.state, _ = signal(doc.state, c.id, "stands_up")
        new_event(scope, doc, "action", c.id, result)
        doc.save()
        head = scope.t("combat.action.done", name=c.name, action=scope.t(f"combat.action.{action}"))
        reply = Reply(
            description="\n".join([head, *lines, *notes, _turn_line(scope, doc)]).strip(),
            colour=Colour.INFO,
            kind="combat.action",
            result=result,
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)


def _d100(scope: Scope, value: int | None) -> int:
    given = d100_or_none(value)
    return given if given is not None else scope.rng.randint(1, 100)


# ==========================================================================================
# attacks
# ==========================================================================================


@dataclass(frozen=True, slots=True)
class AttackInput:
    target: str
    attacker: str | None = None
    weapon: str | None = None
    zone: str | None = None
    roll: int | None = None
    damage: str | None = None
    coverage: str | None = None
    critical: int | None = None
    effects: str | None = None
    durations: str | None = None
    situation: str | None = None
    distance: float | None = None
    into_melee: bool = False
    special: str | None = None
    k: int = 1
    charge: bool = False
    stray_victim: str | None = None
    adjacent: int | None = None
    location: str | None = None  # other rulesets: the location aimed at / hit


def _situations(scope: Scope, text: str | None) -> tuple[str, ...]:
    out = []
    for part in _list(text):
        if part in scope.tables.situation:
            out.append(part)
            continue
        wanted = fold(part)
        found = [
            sid
            for sid in scope.tables.situation
            if wanted in (fold(sid), fold(scope.words.entry_name("combat_modifiers", sid)))
        ]
        if not found:
            raise FightRefusal("combat.refusal.unknown_situation", id=part[:40])
        out.append(found[0])
    return tuple(out)


def _pick_weapon(scope: Scope, c: Combatant, text: str | None) -> str:
    if text:
        wid = _resolve_weapon(scope, text)
        if wid not in c.weapons:
            raise FightRefusal("combat.error.weapon_not_carried", name=c.name, weapon=scope.words.weapon(wid))
        return wid
    for wid in c.weapons:
        weapon = scope.tables.weapons[wid]
        if weapon.damage is not None and scope.tables.shield_for(wid).pv is None:
            return wid
    return c.weapons[0]


def _request(scope: Scope, data: Mapping[str, Any]) -> AttackRequest:
    return AttackRequest(
        weapon=scope.tables.weapon(str(data["weapon"])),
        base=int(data["base"]),
        opponent_cc=data.get("opponent_cc"),
        posture=str(data.get("posture", "normale")),
        posture_option=data.get("posture_option"),
        attack_number=int(data.get("attack_number", 1)),
        situation=tuple(data.get("situation", ())),
        aim=data.get("aim"),
        charge=bool(data.get("charge", False)),
        off_hand=bool(data.get("off_hand", False)),
        distance=data.get("distance"),
        into_melee=bool(data.get("into_melee", False)),
        special=data.get("special"),
        special_k=int(data.get("special_k", 1)),
        feint_won=bool(data.get("feint_won", False)),
        talents=frozenset(data.get("talents", ())),
    )


def _replay_attack(scope: Scope, pending: Mapping[str, Any]) -> AttackResult:
    return resolve_attack(
        scope.tables,
        _request(scope, pending["request"]),
        attack_roll=int(pending["attack_roll"]),
        adjacent_roll=pending.get("adjacent_roll"),
        zone=pending.get("zone"),
    )


async def attack(
    ctx: AppContext, caller: Caller, data: AttackInput, *, rng: RandomSource | None = None
) -> FightOutcome:
    """Roll an attack against ``target``; a hit waits for the defender's choice (stored, not in memory)."""

    async def work(scope: Scope) -> FightOutcome:
        doc = await fight_here(scope)
        if doc.row.ruleset in OTHER_RULESETS:
            done: FightOutcome = await system_of(doc.row.ruleset).attack(scope, doc, data)
            return done
        c = _actor(scope, doc, data.attacker)
        foe = doc.find(data.target)
        if foe.id == c.id:
            raise FightRefusal("combat.error.self_attack")
        if foe.has("dead"):
            raise FightRefusal("combat.error.target_dead", name=foe.name)
        wid = _pick_weapon(scope, c, data.weapon)
        weapon = scope.tables.weapons[wid]
        action = "charger" if data.charge else ("action_speciale" if data.special else "attaquer")
        refusal = can_act(scope.tables, c, action)
        if refusal:
            raise RefusedError(refusal)
        ranged = weapon.kind == "ranged"
        aim = doc.data.get("aim", {}).get(c.id)
        feint_won = doc.data.get("feint", {}).get(c.id) == foe.id
        request_data: dict[str, Any] = {
            "weapon": wid,
            "base": c.stat("CT" if ranged else "CC"),
            "opponent_cc": None if ranged else foe.stat("CC"),
            "posture": c.posture,
            "posture_option": c.posture_option,
            "attack_number": c.actions.attacks_made + 1,
            "situation": list(_situations(scope, data.situation)),
            "aim": aim,
            "charge": data.charge,
            "off_hand": c.off_hand == wid,
            "distance": data.distance,
            "into_melee": data.into_melee,
            "special": data.special,
            "special_k": data.k,
            "feint_won": feint_won,
            "talents": sorted(c.talents),
        }
        if data.zone is not None and data.zone not in scope.tables.hit_location.reachable(99):
            raise FightRefusal("combat.error.bad_zone")
        result = resolve_attack(
            scope.tables,
            _request(scope, request_data),
            rng=scope.rng,
            attack_roll=d100_or_none(data.roll),
            adjacent_roll=data.adjacent,
            zone=data.zone,
        )
        hand = {
            "damage": parse_dice(data.damage, sides=10, limit=4),
            "coverage": parse_dice(data.coverage),
            "critical": d100_or_none(data.critical),
            "effects": parse_dice(data.effects),
            "durations": parse_dice(data.durations, sides=100),
        }
        _spend(scope, doc, c, action, advance=False)
        doc.data.get("aim", {}).pop(c.id, None)
        doc.data.get("feint", {}).pop(c.id, None)
        seq = new_event(
            scope,
            doc,
            "attack",
            c.id,
            {"target": foe.id, "attack": result.to_dict(), "request": request_data},
        )
        scope.rolls.append(
            RollNote(
                "combat.attack",
                "1d100",
                result.check.roll,
                {
                    "fight_id": doc.row.id,
                    "seq": seq,
                    "attacker": c.name,
                    "target": foe.name,
                    **result.to_dict(),
                },
            )
        )
        w = scope.words
        lines = [
            w.t("combat.attack.test", test="CT" if ranged else "CC")
            + " : "
            + w.terms(result.check.modifiers, result.check.target, " %"),
            w.t("combat.word.roll") + " " + w.check(result.check),
        ]
        payload: dict[str, Any] = {
            "fight_id": doc.row.id,
            "seq": seq,
            "attacker": c.id,
            "target": foe.id,
            "attack": result.to_dict(),
            "pending": False,
        }
        buttons: tuple[tuple[Button, ...], ...] = ()
        victim = foe
        if result.hit and result.stray:
            lines.append(w.t("combat.attack.stray", roll=result.stray_roll or "?"))
            if data.stray_victim:
                victim = doc.find(data.stray_victim)
            else:
                victim = None  # type: ignore[assignment]
                lines.append(w.t("combat.attack.stray_unresolved"))
        if result.hit and victim is not None:
            lines.append(
                w.t(
                    "combat.attack.location",
                    degrees=w.terms(result.location_steps, result.location_degrees),
                    zone=w.zone(result.zone),
                    reachable=", ".join(w.zone(z) for z in result.reachable),
                )
            )
            if result.natural is not None:
                lines.append(w.t(f"combat.note.natural_{result.natural.roll:02d}"))
            pending = {
                "seq": seq,
                "attacker": c.id,
                "defender": victim.id,
                "request": request_data,
                "attack_roll": result.check.roll,
                "adjacent_roll": result.stray_roll,
                "zone": result.zone,
                "hand": hand,
                "round": doc.state.round,
                "expires_at": (datetime.now(UTC) + DEFENCE_TIMEOUT).isoformat(),
                "by": scope.caller.user_id,
            }
            no_defence = (result.cannot_parry and result.cannot_dodge) or victim.has("dead", "unconscious")
            if no_defence:
                reasons = [w.refusal(r) for r in {result.cannot_parry, result.cannot_dodge} if r]
                lines.append(
                    w.t(
                        "combat.defence.none",
                        name=victim.name,
                        why=", ".join(reasons) or w.t("combat.condition_kind.unconscious"),
                    )
                )
                lines.extend(_resolve_hit(scope, doc, pending, "encaisser", DefenceRolls(), payload))
            else:
                doc.pending[str(seq)] = pending
                payload["pending"] = True
                lines.append(w.t("combat.defence.prompt", name=victim.name, owner=_mention(doc, victim.id)))
                buttons = (
                    tuple(
                        Button(
                            w.t(f"combat.defence.button.{choice}"),
                            custom_id(doc.row.id, "def", seq, choice),
                            style,
                        )
                        for choice, style in (
                            ("parer", ButtonStyle.PRIMARY),
                            ("esquiver", ButtonStyle.PRIMARY),
                            ("encaisser", ButtonStyle.SECONDARY),
                        )
                    ),
                )
        elif not result.hit:
            lines.append(w.t("combat.attack.missed", name=foe.name))
        for note in result.notes:
            lines.append(w.t(note))
        lines.extend(_pass_turn(scope, doc))
        turn = _turn_line(scope, doc)
        if turn:
            lines.append(turn)
        doc.save()
        special = f" · {w.entry_name('special_actions', data.special)}" if data.special else ""
        charge = f" · {w.t('combat.action.charger')}" if data.charge else ""
        reply = Reply(
            title=f"⚔️ {c.name} → {foe.name} ({w.weapon(wid)}){special}{charge}",
            description="\n".join(lines)[:4000],
            colour=Colour.SUCCESS if result.hit else Colour.FAILURE,
            buttons=buttons,
            result=payload,
            kind="combat.attack",
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work, rng=rng)


def _mention(doc: Doc, cid: str) -> str:
    owner = doc.owner(cid)
    return f"<@{owner}>" if owner else ""


# ==========================================================================================
# defence and damage
# ==========================================================================================


@dataclass(frozen=True, slots=True)
class DefenceRolls:
    roll: int | None = None
    side_effect: int | None = None
    tests: str | None = None
    situation: str | None = None  # renove: defence situations typed (combat_modifiers.json ids/names)


# the defender's conditions that bring a defence situation of combat_modifiers.json by themselves
CONDITION_SITUATIONS: Final[dict[str, str]] = {"prone": "def_a_terre"}


def _defence_situations(scope: Scope, defender: Combatant, text: str | None) -> tuple[str, ...]:
    """The defence situations of this parry / dodge: those the defender's conditions bring (on the
    ground after a fall: −20 %), then those typed with the defence."""
    derived = [
        sid
        for kind, sid in CONDITION_SITUATIONS.items()
        if defender.has(kind) and sid in scope.tables.situation
    ]
    return tuple(dict.fromkeys((*derived, *_situations(scope, text))))


def _parry_weapon(scope: Scope, c: Combatant) -> str | None:
    melee = [w for w in c.weapons if scope.tables.weapons[w].kind == "melee"]
    for wid in melee:
        if scope.tables.shield_for(wid).pv is not None:
            return wid
    return melee[0] if melee else None


def _has_dodge(c: Combatant) -> bool:
    return "esquive" in c.talents or "esquive" in c.skills or "dodge" in c.skills


async def defend(
    ctx: AppContext,
    caller: Caller,
    *,
    choice: str,
    fight_id: int | None = None,
    seq: int | None = None,
    rolls: DefenceRolls | None = None,
    rng: RandomSource | None = None,
) -> FightOutcome:
    """The defender's answer to a pending attack: parry, dodge or take it; then damage and critical."""
    if choice not in (*DEFENCE_CHOICES, *EXTRA_DEFENCE_CHOICES):
        return FightOutcome(error_reply(ctx.catalog.t(caller.locale, "combat.error.bad_choice")))

    async def work(scope: Scope) -> FightOutcome:
        if fight_id is not None:
            row = await scope.session.get(Fight, fight_id)
            if row is None or row.guild_id != scope.guild_id:
                raise FightRefusal("combat.error.no_fight")
            if row.status != "open":
                raise FightRefusal("combat.defence.already_resolved")
            scope.ruleset = row.ruleset or "renove"
            doc = Doc.load(row)
        else:
            doc = await fight_here(scope)
        other = doc.row.ruleset in OTHER_RULESETS
        if not other and choice not in DEFENCE_CHOICES:
            raise FightRefusal("combat.error.bad_choice")
        if other and rolls is not None and rolls.situation:
            raise FightRefusal("combat.error.defence_situation_renove_only")
        if seq is not None:
            pending = doc.pending.get(str(seq))
            if pending is None:
                raise FightRefusal("combat.defence.already_resolved")
        else:
            mine = [p for p in doc.pending.values() if may_control(scope, doc, p["defender"])]
            if not mine:
                raise FightRefusal("combat.defence.nothing_pending")
            pending = min(mine, key=lambda p: int(p["seq"]))
        defender_id = pending["defender"]
        allowed = may_control(scope, doc, defender_id)
        if not allowed and choice == "encaisser" and doc.owner(pending["attacker"]) == scope.caller.user_id:
            allowed = datetime.now(UTC) >= datetime.fromisoformat(pending["expires_at"])
        if not allowed:
            raise FightRefusal("combat.defence.not_yours", name=doc.state.get(defender_id).name)
        payload: dict[str, Any] = {"fight_id": doc.row.id, "seq": pending["seq"], "choice": choice}
        if other:
            lines: list[str] = await system_of(doc.row.ruleset).resolve(
                scope, doc, pending, choice, rolls or DefenceRolls(), payload
            )
        else:
            lines = _resolve_hit(scope, doc, pending, choice, rolls or DefenceRolls(), payload)
        doc.pending.pop(str(pending["seq"]), None)
        if doc.state.round and not doc.data.get("round_over"):
            lines.extend(_settle_turn(scope, doc))
            lines.append(_turn_line(scope, doc))
        doc.save()
        # an ogl area effect has no attacking fighter: its name stands for him
        attacker = pending.get("label") or doc.state.get(pending["attacker"]).name
        defender = doc.state.get(defender_id).name
        buttons = _proposal_buttons(scope, doc, payload.get("proposals", []))
        reply = Reply(
            title=scope.t(
                "combat.defence.title",
                attacker=attacker,
                defender=defender,
                choice=scope.t(f"combat.defence.button.{choice}"),
            ),
            description="\n".join(lines)[:4000],
            colour=Colour.NEUTRAL,
            result=payload,
            buttons=buttons,
            kind="combat.defence",
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work, rng=rng)


def _resolve_hit(
    scope: Scope,
    doc: Doc,
    pending: Mapping[str, Any],
    choice: str,
    rolls: DefenceRolls,
    payload: dict[str, Any],
) -> list[str]:
    """Defence (if any), then damage, armour, critical and effects. Mutates ``doc``; lines for the reply."""
    w = scope.words
    tables = scope.tables
    attack_result = _replay_attack(scope, pending)
    attacker = doc.state.get(pending["attacker"])
    defender = doc.state.get(pending["defender"])
    weapon = tables.weapon(pending["request"]["weapon"])
    hand = pending.get("hand") or {}
    lines: list[str] = []
    defence: DefenceResult | None = None
    if choice == "parer":
        pw = _parry_weapon(scope, defender)
        if pw is None:
            raise FightRefusal("combat.refusal.parry_needs_melee_weapon")
        acts = defender.actions
        reactive = False
        if acts.parry_prepared and not acts.parried:
            defender = record_parry(defender)
            mode = "prepared"
        elif can_act(tables, defender, "parade_reactive") is None:
            reactive = True
            defender = take_action(tables, defender, "parade_reactive")
            mode = "reactive"
        else:
            refusal = can_act(tables, defender, "preparer_parade")
            if refusal is not None:
                raise RefusedError(refusal)
            defender = record_parry(take_action(tables, defender, "preparer_parade"))
            mode = "spent_a"
        request = ParryRequest(
            cc=defender.stat("CC"),
            attacker_cc=attacker.stat("CC"),
            weapon=tables.weapon(pw),
            posture=defender.posture,
            reactive=reactive,
            talents=defender.talents,
            situation=_defence_situations(scope, defender, rolls.situation),
        )
        defence = resolve_parry(
            tables, attack_result, request, rng=scope.rng, parry_roll=d100_or_none(rolls.roll)
        )
        if defence.refusal is not None:
            raise RefusedError(defence.refusal)
        doc.state = doc.state.put(defender)
        assert defence.check is not None
        lines.append(
            w.t(f"combat.defence.parry.{mode}", name=defender.name, weapon=w.weapon(pw))
            + " : "
            + w.check_block(defence.check)
        )
        payload["parry_weapon"] = pw
    elif choice == "esquiver":
        refusal = can_act(tables, defender, "esquiver")
        if refusal is not None:
            raise RefusedError(refusal)
        carry = _carry_modifier(scope, defender)
        defence = resolve_dodge(
            tables,
            attack_result,
            DodgeRequest(
                ag=defender.stat("Ag") + (carry.value if carry else 0),
                has_skill=_has_dodge(defender),
                posture=defender.posture,
                situation=_defence_situations(scope, defender, rolls.situation),
            ),
            rng=scope.rng,
            dodge_roll=d100_or_none(rolls.roll),
        )
        if defence.refusal is not None:
            raise RefusedError(defence.refusal)
        if defence.check is not None:
            defence = replace(defence, check=_with_carry(defence.check, carry))
        defender = take_action(tables, defender, "esquiver")
        doc.state = doc.state.put(defender)
        assert defence.check is not None
        lines.append(w.t("combat.defence.dodge", name=defender.name) + " : " + w.check_block(defence.check))
    else:
        lines.append(w.t("combat.defence.takes", name=defender.name))
    if defence is not None:
        payload["defence"] = defence.to_dict()
        assert defence.check is not None
        scope.rolls.append(
            RollNote(
                f"combat.{defence.kind}",
                "1d100",
                defence.check.roll,
                {"fight_id": doc.row.id, "seq": pending["seq"], **defence.to_dict()},
            )
        )
    if defence is not None and defence.success and defence.kind == "dodge":
        lines.append(w.t("combat.defence.dodged"))  # no damage: the damage die is not rolled
        new_event(scope, doc, "defence", pending["defender"], payload)
        return lines
    die = roll_damage_die(
        tables, weapon, attack_result, rng=scope.rng, damage_dice=hand.get("damage") or None
    )
    payload["damage_die"] = die.to_dict()
    scope.rolls.append(
        RollNote(
            "combat.damage",
            die.expression,
            die.kept,
            {"fight_id": doc.row.id, "seq": pending["seq"], **die.to_dict()},
        )
    )
    if defence is not None and defence.success:
        lines.extend(_parry_consequences(scope, doc, pending, attack_result, die, payload, rolls))
        new_event(scope, doc, "defence", pending["defender"], payload)
        return lines
    lines.extend(_damage(scope, doc, pending, attack_result, die, payload))
    new_event(scope, doc, "hit", pending["defender"], payload)
    return lines


def _hit_damage(
    scope: Any,
    attacker: Any,
    defender: Any,
    weapon: Any,
    die: Any,
    attack_result: Any,
    hand: Mapping[str, Any],
    *,
    wear: bool = True,
) -> DamageResult:
    """Damage of a hit on the defender's zone, using the coverage d100s typed with the attack.

    One place for both a plain hit and damage taken through a parry side effect, so the two can
    never read armour differently."""
    zone = str(attack_result.zone)
    layers = defender.armour.get(zone, ())
    return damage_to_target(
        scope.tables,
        die,
        weapon,
        attacker_bf=attacker.stat("BF"),
        target_be=defender.stat("BE"),
        zone=zone,
        layers=layers,
        attack=attack_result,
        rng=scope.rng,
        coverage_rolls=_coverage_map(layers, hand.get("coverage") or []),
        wear=wear,
    )


def _coverage_map(layers: Sequence[Any], values: Sequence[int]) -> dict[str, int]:
    partial = [layer.family for layer in layers if layer.coverage < 1]
    return dict(zip(partial, values, strict=False))


def _log_coverage(scope: Scope, doc: Doc, pending: Mapping[str, Any], damage: DamageResult) -> None:
    """The partial-armour d100s of a hit (typed or rolled) go to the roll log."""
    if damage.armour is None:
        return
    for check in damage.armour.layers:
        if check.coverage_roll is not None:
            scope.rolls.append(
                RollNote(
                    "combat.coverage",
                    "1d100",
                    check.coverage_roll,
                    {
                        "fight_id": doc.row.id,
                        "seq": pending["seq"],
                        "zone": damage.armour.zone,
                        **check.to_dict(),
                    },
                )
            )


def _damage(
    scope: Scope,
    doc: Doc,
    pending: Mapping[str, Any],
    attack_result: AttackResult,
    die: Any,
    payload: dict[str, Any],
) -> list[str]:
    w = scope.words
    tables = scope.tables
    attacker = doc.state.get(pending["attacker"])
    defender = doc.state.get(pending["defender"])
    weapon = tables.weapon(pending["request"]["weapon"])
    hand = pending.get("hand") or {}
    zone = str(attack_result.zone)
    layers = defender.armour.get(zone, ())
    damage = _hit_damage(scope, attacker, defender, weapon, die, attack_result, hand)
    if layers:
        armour = dict(defender.armour)
        armour[zone] = damage.layers_after
        defender = replace(defender, armour=armour)
        doc.state = doc.state.put(defender)
    payload["damage"] = damage.to_dict()
    _log_coverage(scope, doc, pending, damage)
    lines = [
        w.t(
            "combat.damage.line",
            zone=w.zone(zone),
            terms=_die_text(w, die) + " · " + w.terms(damage.steps[1:]),
            total=damage.total,
        )
    ]
    if damage.armour is not None:
        for check in damage.armour.layers:
            family = w.t(f"combat.armour_family.{check.family}")
            if check.coverage_roll is not None:
                lines.append(
                    w.t(
                        "combat.damage.coverage_hit" if check.counts else "combat.damage.coverage_miss",
                        family=family,
                        share=f"{int(check.coverage * 100)}",
                        roll=check.coverage_roll,
                        pa=check.pa,
                    )
                )
    if damage.wear is not None:
        lines.append(
            w.t(
                "combat.damage.wear",
                family=w.t(f"combat.armour_family.{damage.wear.family}"),
                zone=w.zone(zone),
                before=damage.wear.pv_before,
                after=damage.wear.pv_after,
            )
            + (" " + w.t("combat.damage.pa_lost") if damage.wear.pa_lost else "")
        )
    lines.extend(_critical(scope, doc, pending, damage.total, zone, payload))
    return lines


def _die_text(w: Words, die: Any) -> str:
    rolled = "/".join(str(x) for x in die.rolled)
    text = f"{w.t('combat.modifier.damage_die')} {die.value}"
    if len(die.rolled) > 1 or die.value != die.kept:
        text += f" ({rolled})"
    if die.rule:
        text += " · " + w.t(die.rule)
    return text


def _critical(
    scope: Scope, doc: Doc, pending: Mapping[str, Any], damage: int, zone: str, payload: dict[str, Any]
) -> list[str]:
    w = scope.words
    tables = scope.tables
    defender = doc.state.get(pending["defender"])
    weapon = tables.weapon(pending["request"]["weapon"])
    hand = pending.get("hand") or {}
    if damage < tables.critical_matrix.min_damage:
        return [w.t("combat.damage.none", name=defender.name)]
    use_ms = bool(doc.data.get("options", {}).get("mort_subite")) and defender.npc
    crit = roll_critical(
        tables,
        weapon.critical_kind,
        zone,
        damage,
        attacker_attributes=weapon.attributes,
        victim_talents=defender.talents,
        use_mort_subite=use_ms,
        rng=scope.rng,
        critical_roll=hand.get("critical"),
    )
    assert crit is not None
    payload["critical"] = crit.to_dict()
    scope.rolls.append(
        RollNote(
            "combat.critical",
            "1d100",
            crit.value.d100,
            {"fight_id": doc.row.id, "seq": pending["seq"], **crit.to_dict()},
        )
    )
    value = crit.value
    lines = [
        w.t(
            "combat.critical.line",
            d100=value.d100,
            row=value.row,
            damage=value.damage,
            terms=w.terms(value.steps, value.value),
            kind=w.t(f"combat.kind.{crit.entry.kind}"),
            zone=w.zone(zone),
        ),
        f"> {w.narration(crit.entry.narration)}",
    ]
    lines.extend(_apply_critical(scope, doc, defender, crit, hand, payload))
    return lines


def _apply_critical(
    scope: Scope,
    doc: Doc,
    victim: Combatant,
    crit: CriticalResult,
    hand: Mapping[str, Any],
    payload: dict[str, Any],
) -> list[str]:
    w = scope.words
    application = apply_mechanics(
        crit.entry.mechanics,
        victim.current_characteristics(),
        source=crit.entry.source,
        conditions=victim.conditions,
        rng=scope.rng,
        test_rolls=hand.get("effects") or (),
        duration_rolls=hand.get("durations") or (),
    )
    lines = _application_lines(scope, doc, victim, application, payload)
    if crit.mort_subite is not None:
        payload["mort_subite"] = crit.mort_subite.outcome
        lines.append(
            w.t(f"combat.mort_subite.{crit.mort_subite.outcome}", name=victim.name, value=crit.value.value)
        )
        if crit.mort_subite.outcome == "dies" and not doc.state.get(victim.id).has("dead"):
            c = doc.state.get(victim.id)
            doc.state = doc.state.put(
                replace(c, conditions=(*c.conditions, Condition("dead", "mort_subite", until="permanent")))
            )
    return lines


def _application_lines(
    scope: Scope, doc: Doc, victim: Combatant, application: EffectApplication, payload: dict[str, Any]
) -> list[str]:
    w = scope.words
    doc.state = apply_effects(doc.state, victim.id, application)
    if application.dead and not doc.state.get(victim.id).has("dead"):
        c = doc.state.get(victim.id)
        doc.state = doc.state.put(
            replace(c, conditions=(*c.conditions, Condition("dead", application.source, until="permanent")))
        )
    payload.setdefault("effects", []).append(application.to_dict())
    lines = []
    for test in application.tests:
        lines.append(
            w.t("combat.effect.test", name=victim.name, stat=test.characteristic)
            + " : "
            + w.check_block(test.check)
        )
        scope.rolls.append(
            RollNote(
                "combat.effect_test", "1d100", test.check.roll, {"fight_id": doc.row.id, **test.to_dict()}
            )
        )
    for roll in application.rolls:
        scope.rolls.append(
            RollNote(
                "combat.duration",
                roll.expression,
                roll.total,
                {"fight_id": doc.row.id, "victim": victim.name, **roll.to_dict()},
            )
        )
        lines.append(
            w.t(
                "combat.effect.duration", expression=roll.expression, rendered=roll.rendered, total=roll.total
            )
        )
    for condition in application.conditions:
        lines.append("• " + w.condition(condition))
    for event in application.events:
        lines.append("• " + w.t(f"combat.event.{event.kind}", name=victim.name))
    if doc.state.get(victim.id).has("dead"):
        lines.append(w.t("combat.effect.dead", name=victim.name))
    for proposal in application.proposals:
        number = int(doc.data.get("proposal_seq", 0)) + 1
        doc.data["proposal_seq"] = number
        meta = doc.meta.get(victim.id, {})
        doc.proposals[str(number)] = {
            "combatant": victim.id,
            "character_id": meta.get("character_id"),
            **proposal.to_dict(),
        }
        payload.setdefault("proposals", []).append(number)
        text = w.t(
            "combat.proposal.line",
            stat=proposal.stat,
            total=proposal.total if proposal.total is not None else "½",
            name=victim.name,
        )
        lines.append(
            "• " + text + ("" if meta.get("character_id") else " " + w.t("combat.proposal.no_sheet"))
        )
    return lines


def _proposal_buttons(scope: Scope, doc: Doc, numbers: Sequence[int]) -> tuple[tuple[Button, ...], ...]:
    rows = []
    for number in numbers[:4]:
        proposal = doc.proposals.get(str(number))
        if not proposal or not proposal.get("character_id"):
            continue
        label = scope.t(
            "combat.proposal.button",
            stat=proposal["stat"],
            total=proposal.get("total") if proposal.get("total") is not None else "½",
        )
        rows.append(
            (
                Button(label, custom_id(doc.row.id, "perm", number, "ok"), ButtonStyle.SUCCESS),
                Button(
                    scope.t("combat.proposal.reject"),
                    custom_id(doc.row.id, "perm", number, "no"),
                    ButtonStyle.SECONDARY,
                ),
            )
        )
    return tuple(rows)


def _parry_consequences(
    scope: Scope,
    doc: Doc,
    pending: Mapping[str, Any],
    attack_result: AttackResult,
    die: Any,
    payload: dict[str, Any],
    rolls: DefenceRolls,
) -> list[str]:
    """A successful parry: damage against the parry implement (shield PV), then the side-effect roll."""
    w = scope.words
    tables = scope.tables
    attacker = doc.state.get(pending["attacker"])
    defender = doc.state.get(pending["defender"])
    weapon = tables.weapon(pending["request"]["weapon"])
    pw = tables.weapon(str(payload["parry_weapon"]))
    hand = pending.get("hand") or {}
    vs_parry, profile = damage_to_parry_implement(
        tables, die, weapon, pw, attacker_bf=attacker.stat("BF"), attack=attack_result
    )
    lines = [
        w.t(
            "combat.parry.vs_implement",
            terms=_die_text(w, die) + " · " + w.terms(vs_parry.steps[1:]),
            total=vs_parry.total,
        )
    ]
    destroyed = False
    if profile.pv is not None and defender.shield_pv is not None:
        wear = wear_shield(profile, defender.shield_pv, vs_parry.total)
        defender = replace(defender, shield_pv=wear.pv_after)
        doc.state = doc.state.put(defender)
        destroyed = wear.destroyed
        payload["shield"] = wear.to_dict()
        lines.append(
            w.t(
                "combat.parry.shield",
                before=wear.pv_before,
                after=wear.pv_after,
                max=doc.meta.get(defender.id, {}).get("shield_max") or "?",
            )
        )
    roll = d100_or_none(rolls.side_effect)
    if roll is None and not destroyed:
        roll = scope.rng.randint(1, 100)
    side = parry_side_effect(
        tables,
        f_attacker=attacker.stat("F"),
        f_defender=defender.stat("F"),
        damage_vs_parry=vs_parry.total,
        damage_if_failed=0,
        shield_destroyed=destroyed,
        side_effect_roll=roll,
    )
    taking = any(e.get("type") == "take_damage" for e in side.band.effects)
    failed: DamageResult | None = None
    if taking:
        failed = _hit_damage(scope, attacker, defender, weapon, die, attack_result, hand, wear=False)
        payload["side_effect_damage"] = failed.to_dict()
        _log_coverage(scope, doc, pending, failed)
        side = parry_side_effect(
            tables,
            f_attacker=attacker.stat("F"),
            f_defender=defender.stat("F"),
            damage_vs_parry=vs_parry.total,
            damage_if_failed=failed.total,
            shield_destroyed=destroyed,
            side_effect_roll=roll,
        )
    payload["side_effect"] = side.to_dict()
    if side.roll is not None:
        scope.rolls.append(
            RollNote(
                "combat.parry_side_effect", "1d100", side.roll, {"fight_id": doc.row.id, **side.to_dict()}
            )
        )
    steps = w.terms(side.steps, side.total) if side.total is not None else w.t("combat.parry.forced")
    lines.append(
        w.t(
            "combat.parry.side_effect",
            terms=steps,
            band=side.band.label,
            effect=w.t(f"combat.parry_band.{side.band.id}"),
        )
    )
    mechanics = tuple(
        Mechanic.from_dict(dict(e)) for e in side.band.effects if e.get("type") in ("test", "fall")
    )
    if mechanics:
        application = apply_mechanics(
            mechanics,
            defender.current_characteristics(),
            source=f"parry.{side.band.id}",
            conditions=defender.conditions,
            rng=scope.rng,
            test_rolls=parse_dice(rolls.tests),
        )
        lines.extend(_application_lines(scope, doc, defender, application, payload))
    if any(e.get("type") == "weapon_breaks" for e in side.band.effects):
        c = doc.state.get(defender.id)
        remaining = tuple(x for x in c.weapons if x != pw.id) or ("mains_nues",)
        doc.state = doc.state.put(
            replace(c, weapons=remaining, off_hand=None if c.off_hand == pw.id else c.off_hand)
        )
        lines.append(w.t("combat.parry.weapon_breaks", weapon=w.weapon(pw.id)))
    if side.damage_taken >= 1 and failed is not None:
        lines.append(w.t("combat.parry.takes_share", damage=side.damage_taken, full=failed.total))
        lines.extend(_critical(scope, doc, pending, side.damage_taken, str(attack_result.zone), payload))
    return lines


async def _apply_proposal(scope: Scope, proposal: Mapping[str, Any]) -> tuple[str, str, int, int]:
    """Write a permanent change onto the sheet through the characters repository (the row's
    ``version`` guards it): a characteristic of the sheet's ruleset (Soc, Ag …), else a skill of the
    sheet (Intimidation …). A skill the sheet lacks is refused (nothing written, the proposal stays)."""
    row = await get_row(scope.session, scope.guild_id, int(proposal["character_id"]))
    if row is None:
        raise FightRefusal("combat.proposal.sheet_gone")
    data = to_sheet(row).data()
    wanted = str(proposal["stat"])
    halve = proposal["operation"] == "halve"
    total = int(proposal.get("total") or 0)
    code = sheet_for(data.ruleset).canonical(wanted)
    if code is not None:
        stats = dict(data.characteristics)
        before = int(stats.get(code, 0))
        after = max(0, before // 2 if halve else before + total)
        stats[code] = after
        data = replace(data, characteristics=stats)
        label = code
    else:
        key = next((k for k in data.skills if fold(k) == fold(wanted)), None)
        if key is None:
            raise FightRefusal("combat.proposal.no_skill", name=data.name, skill=wanted)
        before = int(data.skills[key])
        after = max(0, before // 2 if halve else before + total)
        try:
            skills, innate = apply_skill_changes(
                data.ruleset, data.skills, data.skill_innate, [Change(key, after)]
            )
        except SheetError as exc:
            raise FightRefusal("combat.proposal.bad_value", skill=key, value=after) from exc
        data = replace(data, skills=skills, skill_innate=innate)
        label = key
    write_data(row, data)
    return data.name, label, before, after


async def answer_proposal(
    ctx: AppContext, caller: Caller, *, fight_id: int, number: int, accept: bool
) -> FightOutcome:
    """GM: write a permanent change onto the character sheet (or drop it)."""

    async def work(scope: Scope) -> FightOutcome:
        require_gm(scope)
        row = await scope.session.get(Fight, fight_id)
        if row is None or row.guild_id != scope.guild_id:
            raise FightRefusal("combat.error.no_fight")
        doc = Doc.load(row)
        proposal = doc.proposals.pop(str(number), None)
        if proposal is None:
            raise FightRefusal("combat.defence.already_resolved")
        text = scope.t("combat.proposal.rejected")
        if accept and proposal.get("character_id"):
            name, stat, before, after = await _apply_proposal(scope, proposal)
            text = scope.t("combat.proposal.applied", name=name, stat=stat, before=before, after=after)
        new_event(
            scope, doc, "proposal", proposal.get("combatant"), {"proposal": proposal, "accepted": accept}
        )
        doc.save()
        return outcome(
            scope,
            doc,
            Reply(
                description=text,
                colour=Colour.INFO,
                kind="combat.proposal",
                result={"accepted": accept, **proposal},
            ),
        )

    return await run(ctx, caller, work)


# ==========================================================================================
# due tests, conditions, corrections
# ==========================================================================================


async def roll_due_test(
    ctx: AppContext, caller: Caller, *, who: str, roll: int | None = None, durations: str | None = None
) -> FightOutcome:
    """Roll the oldest due test (bleeding, delayed) of a combatant and apply its branch."""

    async def work(scope: Scope) -> FightOutcome:
        doc = await fight_here(scope)
        c = doc.find(who)
        if not may_control(scope, doc, c.id):
            raise FightRefusal("combat.error.not_yours", name=c.name)
        mine = [p for p in doc.prompts if p["combatant"] == c.id]
        if not mine:
            raise FightRefusal("combat.test.none", name=c.name)
        prompt = mine[0]
        doc.prompts.remove(prompt)
        if doc.row.ruleset in OTHER_RULESETS and str(prompt["kind"]).startswith(doc.row.ruleset + "."):
            done: FightOutcome = system_of(doc.row.ruleset).due_test(scope, doc, c, prompt, roll)
            return done
        condition = Condition.from_dict(prompt["condition"])
        application = resolve_pending(
            condition,
            c.current_characteristics(),
            conditions=c.conditions,
            rng=scope.rng,
            test_roll=d100_or_none(roll),
            duration_rolls=parse_dice(durations),
        )
        payload: dict[str, Any] = {"fight_id": doc.row.id, "prompt": prompt}
        lines = [scope.t(f"combat.test.{prompt['kind']}", name=c.name)]
        lines.extend(_application_lines(scope, doc, c, application, payload))
        new_event(scope, doc, "due_test", c.id, payload)
        doc.save()
        reply = Reply(
            description="\n".join(lines)[:4000],
            colour=Colour.NEUTRAL,
            kind="combat.test",
            result=payload,
            buttons=_proposal_buttons(scope, doc, payload.get("proposals", [])),
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)


CONDITION_OPS: Final = ("add", "remove", "treated", "healed", "stands_up", "revive")


async def edit_condition(
    ctx: AppContext,
    caller: Caller,
    *,
    who: str,
    op: str,
    stat: str | None = None,
    value: int | None = None,
    rounds: int | None = None,
    kind: str | None = None,
    index: int | None = None,
) -> FightOutcome:
    """GM: add a condition (a modifier on a stat, or a kind: stunned, no_action, prone …), remove
    one (by its number on the tracker), or signal treated / healed / stands up / revive."""

    async def work(scope: Scope) -> FightOutcome:
        require_gm(scope)
        doc = await fight_here(scope)
        c = doc.find(who)
        text = ""
        if op == "add":
            if stat:
                if value is None:
                    raise FightRefusal("combat.condition.value_needed")
                condition = Condition(
                    "modifier",
                    "gm",
                    stat=stat,
                    value=value,
                    remaining=rounds,
                    unit="round" if rounds else None,
                    until=None if rounds else "end_of_combat",
                )
            else:
                chosen = kind or "stunned"
                if chosen not in ("stunned", "no_action", "prone", "unconscious", "dead"):
                    raise FightRefusal("combat.condition.bad_kind")
                condition = Condition(
                    chosen,
                    "gm",
                    remaining=rounds,
                    unit="round" if rounds else None,
                    until=None
                    if rounds
                    else (
                        "stands_up"
                        if chosen == "prone"
                        else "permanent"
                        if chosen == "dead"
                        else "end_of_combat"
                    ),
                )
            doc.state = doc.state.put(replace(c, conditions=(*c.conditions, condition)))
            text = scope.t("combat.condition.added", name=c.name, what=scope.words.condition(condition))
        elif op == "remove":
            if index is None or not 1 <= index <= len(c.conditions):
                raise FightRefusal("combat.condition.bad_index", max=len(c.conditions))
            removed = c.conditions[index - 1]
            doc.state = doc.state.put(replace(c, conditions=c.conditions[: index - 1] + c.conditions[index:]))
            text = scope.t("combat.condition.removed", name=c.name, what=scope.words.condition(removed))
        elif op == "revive":
            doc.state = doc.state.put(
                replace(c, conditions=tuple(x for x in c.conditions if x.kind != "dead"))
            )
            text = scope.t("combat.condition.revived", name=c.name)
        elif op in ("treated", "healed", "stands_up"):
            doc.state, result = signal(doc.state, c.id, op)
            doc.data["prompts"] = [p for p in doc.prompts if p["combatant"] != c.id or op == "stands_up"]
            text = scope.t(f"combat.condition.signal.{op}", name=c.name, count=len(result.expired))
        else:
            raise FightRefusal("combat.condition.bad_op")
        new_event(
            scope,
            doc,
            "condition",
            c.id,
            {"op": op, "stat": stat, "value": value, "rounds": rounds, "kind": kind, "index": index},
        )
        doc.save()
        return outcome(
            scope,
            doc,
            Reply(
                description=text,
                colour=Colour.INFO,
                kind="combat.condition",
                result={"combatant": doc.state.get(c.id).to_dict()},
            ),
        )

    return await run(ctx, caller, work)


async def correct(ctx: AppContext, caller: Caller, *, who: str, field_name: str, value: int) -> FightOutcome:
    """GM override: a base characteristic (CC, BF …), the shield's PV, or the A spent this round."""

    async def work(scope: Scope) -> FightOutcome:
        require_gm(scope)
        doc = await fight_here(scope)
        c = doc.find(who)
        key = field_name.strip()
        if doc.row.ruleset in OTHER_RULESETS:
            pooled = system_of(doc.row.ruleset).correct_pool(scope, doc, c, key, value)
            if pooled is not None:
                field_key, before_value = pooled
                new_event(
                    scope, doc, "correct", c.id, {"field": field_key, "before": before_value, "after": value}
                )
                doc.save()
                text = scope.t(
                    "combat.correct.done", name=c.name, field=field_key, before=before_value, after=value
                )
                return outcome(
                    scope,
                    doc,
                    Reply(
                        description=text,
                        colour=Colour.INFO,
                        kind="combat.correct",
                        result={"field": field_key, "before": before_value, "after": value},
                    ),
                )
        if key.lower() in ("bouclier", "shield"):
            if c.shield_pv is None:
                raise FightRefusal("combat.correct.no_shield", name=c.name)
            before: int | None = c.shield_pv
            doc.state = doc.state.put(replace(c, shield_pv=max(0, value)))
        elif key.lower() in ("a_utilisees", "used", "a_used"):
            before = c.actions.used
            doc.state = doc.state.put(replace(c, actions=replace(c.actions, used=max(0, value))))
        else:
            code = next(
                (
                    k
                    for k in (*c.characteristics, *QUICK_NPC_DEFAULTS, "BF", "BE")
                    if k.lower() == key.lower()
                ),
                None,
            )
            if code is None:
                raise FightRefusal("combat.correct.unknown_field", field=key[:20])
            before = c.characteristics.get(code)
            stats = dict(c.characteristics)
            stats[code] = value
            doc.state = doc.state.put(replace(c, characteristics=stats))
            key = code
        new_event(scope, doc, "correct", c.id, {"field": key, "before": before, "after": value})
        doc.save()
        text = scope.t(
            "combat.correct.done",
            name=c.name,
            field=key,
            before=before if before is not None else "—",
            after=value,
        )
        return outcome(
            scope,
            doc,
            Reply(
                description=text,
                colour=Colour.INFO,
                kind="combat.correct",
                result={"field": key, "before": before, "after": value},
            ),
        )

    return await run(ctx, caller, work)


# ==========================================================================================
# showing and ending
# ==========================================================================================


async def show(ctx: AppContext, caller: Caller) -> FightOutcome:
    async def work(scope: Scope) -> FightOutcome:
        doc = await fight_here(scope)
        tracker = tracker_of(scope, doc)
        return FightOutcome(
            replace(
                tracker,
                ephemeral=True,
                result={
                    "fight_id": doc.row.id,
                    "state": doc.state.to_dict(),
                    "pending": list(doc.pending),
                    "prompts": doc.prompts,
                },
            )
        )

    return await run(ctx, caller, work)


async def end_fight(ctx: AppContext, caller: Caller) -> FightOutcome:
    """GM: the summary (hits, zones, effects, the dead), end-of-combat conditions end; archive."""

    async def work(scope: Scope) -> FightOutcome:
        require_gm(scope)
        doc = await fight_here(scope)
        for c in doc.state.combatants:
            doc.state, _ = signal(doc.state, c.id, "end_of_combat")
        events = (
            await scope.session.scalars(
                select(FightEvent).where(FightEvent.fight_id == doc.row.id).order_by(FightEvent.seq)
            )
        ).all()
        summary = _summary(scope, doc, events)
        doc.data["pending"] = {}
        doc.row.status = "closed"
        doc.row.closed_at = datetime.now(UTC)
        new_event(scope, doc, "end", None, {"summary": summary["result"]})
        doc.save()
        reply = Reply(
            title=scope.t("combat.end.title", name=doc.row.name),
            description=summary["text"][:4000],
            fields=summary["fields"],
            colour=Colour.INFO,
            kind="combat.end",
            result={"fight_id": doc.row.id, **summary["result"]},
        )
        return outcome(scope, doc, reply, archive=True)

    return await run(ctx, caller, work)


def _summary(scope: Scope, doc: Doc, events: Sequence[FightEvent]) -> dict[str, Any]:
    w = scope.words
    hits: dict[str, list[str]] = {}
    result_hits: list[dict[str, Any]] = []
    for event in events:
        payload = event.payload
        side = payload.get("side_effect") or {}
        through_parry = event.kind == "defence" and (payload.get("critical") or side.get("damage_taken"))
        if event.kind != "hit" and not through_parry:
            continue
        victim = event.actor or "?"
        try:
            name = doc.state.get(victim).name
        except KeyError:
            name = victim
        # a hit: the damage after armour; a parry side effect: the share of it taken (¼, ½, all)
        damage = (
            int(side.get("damage_taken") or 0)
            if event.kind == "defence"
            else (payload.get("damage") or {}).get("total", 0)
        )
        crit = payload.get("critical") or {}
        dealt = payload.get("damage") or payload.get("side_effect_damage") or {}
        zone = crit.get("zone") or (dealt.get("armour") or {}).get("zone")
        text = f"R{event.round} · {w.zone(zone)} · {damage}"
        if crit:
            text += f" → {w.t('combat.word.critical')} {crit['value']['value']}"
        hits.setdefault(name, []).append(text)
        result_hits.append(
            {
                "victim": victim,
                "round": event.round,
                "zone": zone,
                "damage": damage,
                "critical": crit.get("value", {}).get("value"),
            }
        )
    fields = []
    for c in doc.state.combatants[:24]:
        parts = hits.get(c.name, [])
        conditions = [w.condition(x) for x in c.conditions]
        value = "\n".join(parts + conditions) or w.t("combat.end.unhurt")
        fields.append(Field(name=("💀 " if c.has("dead") else "") + c.name, value=value[:1000], inline=True))
    dead = [c.name for c in doc.state.combatants if c.has("dead")]
    text = w.t("combat.end.rounds", rounds=doc.state.round)
    if dead:
        text += "\n" + w.t("combat.end.dead", names=", ".join(dead))
    return {
        "text": text,
        "fields": tuple(fields),
        "result": {"hits": result_hits, "dead": dead, "rounds": doc.state.round},
    }


# ==========================================================================================
# autocomplete
# ==========================================================================================


async def combatant_choices(ctx: AppContext, caller: Caller, current: str) -> list[tuple[str, str]]:
    if caller.guild_id is None:
        return []
    async with ctx.sessions() as session:
        rows = (
            await session.scalars(
                select(Fight).where(
                    Fight.guild_id == caller.guild_id,
                    Fight.status == "open",
                    (Fight.thread_id == caller.channel_id) | (Fight.parent_channel_id == caller.channel_id),
                )
            )
        ).all()
    wanted = fold(current)
    out: list[tuple[str, str]] = []
    for row in rows[:3]:
        for c in FightState.from_dict((row.state or {}).get("fight") or {}).combatants:
            if not wanted or wanted in fold(c.name):
                out.append((c.name, c.name))
    return out[:25]


async def who_choices(ctx: AppContext, caller: Caller, current: str) -> list[tuple[str, str]]:
    """``/combat ajouter``: the characters the caller may add, then the creature presets."""
    from bot.services.characters import character_choices

    out = await character_choices(ctx, caller, current)
    docs: dict[str, Mapping[str, Any]] = {n: ctx.tables[n].document for n in TEXT_TABLES if n in ctx.tables}
    en = Words(ctx, caller.locale, docs).en
    out.extend(preset_choices(docs, current, en))
    return out[:25]


async def active_name(ctx: AppContext, caller: Caller) -> str | None:
    if caller.guild_id is None:
        return None
    async with ctx.sessions() as session:
        sheet = await get_active_character(session, caller.guild_id, caller.user_id)
        row = await find_row(session, caller.guild_id, sheet.name) if sheet else None
    return row.name if row else None


# ==========================================================================================
# other rulesets (v1, d20, ogl): dispatch and the pieces their adapters share
# ==========================================================================================


def system_of(ruleset: str) -> Any:
    """The adapter module of a ruleset (imported lazily: the adapters import this module)."""
    from bot.services import fight_d20, fight_ogl, fight_v1

    adapters: dict[str, Any] = {"v1": fight_v1, "d20": fight_d20, "ogl": fight_ogl}
    return adapters[ruleset]


# Weapon profiles of the other rulesets (their seeds have no weapon table): "Épée +1, Bouclier
# bouclier, Arc tir". Tokens: ``+N``/``-N`` weapon bonus (v1) or modifier (d20); ``NdM+K`` damage
# dice (ogl); ``NN`` or ``NN%`` the attack score (d20 score, ogl weapon skill); ``par=NN`` the parry
# score (d20, ogl) or the weapon's parry modifier (v1); ``md=1d4`` the damage modifier (ogl); a kind
# word; the other words are the name.
_KIND_WORDS: Final[dict[str, str]] = {
    "tranchant": "edged",
    "tranchante": "edged",
    "edged": "edged",
    "contondant": "blunt",
    "contondante": "blunt",
    "blunt": "blunt",
    "projectile": "missile",
    "missile": "missile",
    "tir": "fired",
    "feu": "fired",
    "fired": "fired",
    "jet": "thrown",
    "lancer": "thrown",
    "thrown": "thrown",
    "fleche": "arrow",
    "arc": "arrow",
    "arrow": "arrow",
    "mains_nues": "bare",
    "poings": "bare",
    "bagarre": "bare",
    "bare": "bare",
    "bouclier": "shield",
    "shield": "shield",
}
_FLAG_WORDS: Final[dict[str, str]] = {
    "empalant": "impaling",
    "empalante": "impaling",
    "impaling": "impaling",
    "naturelle": "natural",
    "naturel": "natural",
    "natural": "natural",
    "deux_mains": "two_handed",
    "two_handed": "two_handed",
}
_DICE_TOKEN = re.compile(r"^\d{1,2}d\d{1,3}(?:[+-]\d{1,2}(?:d\d{1,3})?)*$")
ARMS_MAX: Final = 6
RANGED_KINDS: Final = frozenset({"missile", "fired", "thrown", "arrow"})


def parse_arms(text: str | None) -> list[dict[str, Any]]:
    """Weapon profiles from ``armes:"Épée +1 tranchant, Arc tir"`` (a refusal names what is wrong)."""
    out: list[dict[str, Any]] = []
    for part in _list(text):
        arm: dict[str, Any] = {"bonus": 0, "kind": "edged", "dice": None, "score": None, "parry": None}
        arm["md"] = None
        flags: list[str] = []
        words: list[str] = []
        tokens = part.split()
        first = fold(tokens[0])
        if first in _KIND_WORDS:
            arm["kind"] = _KIND_WORDS[first]
        for index, token in enumerate(tokens):
            low = fold(token).replace("é", "e")
            if index == 0 and not re.fullmatch(r"[+-]?\d.*", low):
                words.append(token)
                continue
            key, sep, rest = low.partition("=")
            if not sep:
                key, sep, rest = low.partition(":")
            if re.fullmatch(r"[+-]\d{1,2}", low):
                arm["bonus"] = int(low)
            elif _DICE_TOKEN.match(low):
                arm["dice"] = low
            elif re.fullmatch(r"\d{1,3}%?", low):
                arm["score"] = int(low.rstrip("%"))
            elif sep and key in ("par", "parade", "parry") and re.fullmatch(r"[+-]?\d{1,3}%?", rest):
                arm["parry"] = int(rest.rstrip("%"))
            elif sep and key in ("md", "dm") and _DICE_TOKEN.match(rest.lstrip("+")):
                arm["md"] = rest.lstrip("+")
            elif low in _KIND_WORDS:
                arm["kind"] = _KIND_WORDS[low]
            elif low in _FLAG_WORDS:
                flags.append(_FLAG_WORDS[low])
            elif sep or not re.fullmatch(r"[\w'’-]{1,30}", token):
                raise FightRefusal("combat.sys.error.bad_weapon", text=part[:60])
            else:
                words.append(token)
        if not words:
            raise FightRefusal("combat.sys.error.weapon_name", text=part[:60])
        arm["name"] = " ".join(words)[:40]
        arm["id"] = slug(arm["name"])
        arm["flags"] = sorted(set(flags))
        out.append(arm)
    if len(out) > ARMS_MAX:
        raise FightRefusal("combat.sys.error.too_many_weapons", max=ARMS_MAX)
    if len({a["id"] for a in out}) != len(out):
        raise FightRefusal("combat.sys.error.same_weapon_twice")
    return out


BARE_HANDS: Final[dict[str, Any]] = {
    "id": "mains-nues",
    "name": "Mains nues",
    "bonus": 0,
    "kind": "bare",
    "dice": None,
    "score": None,
    "parry": None,
    "md": None,
    "flags": ["natural"],
}


def arms_from_sheet(scope: Scope, sheet: CharacterSheet) -> list[dict[str, Any]]:
    """A character's equipped weapons (renove's weapon table) as plain profiles: the name and the
    kind (from the weapon's critical table: tranchantes → edged …), no bonus, no score (reading:
    the other seeds have no weapon table; ``armes:`` gives the figures)."""
    out: list[dict[str, Any]] = []
    for wid in sheet.equipment.get("weapons", []):
        weapon = scope.tables.weapons.get(wid)
        if weapon is None:
            continue
        if scope.tables.shield_for(wid).pv is not None:
            kind = "shield"
        elif weapon.kind == "ranged":
            kind = "missile"
        else:
            kind = {"contondantes": "blunt", "pugilat": "bare"}.get(weapon.critical_kind, "edged")
        arm = dict(BARE_HANDS)
        arm.update(id=wid.replace("_", "-"), name=scope.words.weapon(wid), kind=kind, flags=[])
        out.append(arm)
    return out


def parse_caracs(ruleset: str, text: str | None) -> tuple[dict[str, int], dict[str, int]]:
    """``"CC:40 F:3 Esquive:10"`` → (characteristics of the ruleset's sheet, other names as skills)."""
    from bot.rules.sheets import SheetError, parse_pairs, sheet_for

    if not text or not text.strip():
        return {}, {}
    try:
        changes = parse_pairs(text)
    except SheetError as exc:
        problem = exc.problems[0]
        raise FightRefusal(
            "combat.sys.error.bad_caracs", text=str(problem.params.get("text", text))[:40]
        ) from None
    rules = sheet_for(ruleset)
    stats: dict[str, int] = {}
    skills: dict[str, int] = {}
    for change in changes:
        code = rules.canonical(change.name)
        if code is None:
            skills[fold(change.name)] = change.value
            continue
        stat = rules.stat(code)
        if not stat.minimum <= change.value <= stat.maximum:
            raise FightRefusal("combat.sys.error.stat_range", stat=code, min=stat.minimum, max=stat.maximum)
        stats[code] = change.value
    return stats, skills


async def add_other(scope: Scope, doc: Doc, text: str, count: int | None, stats: NpcStats) -> FightOutcome:
    """Add a character (its sheet must be of the fight's ruleset) or ``count`` quick NPCs whose
    figures come from ``caracs`` (the v1, d20 and ogl seeds give no creature figures)."""
    ruleset = doc.row.ruleset
    adapter = system_of(ruleset)
    number = count
    name = text
    match = _COUNT.match(text)
    if match and number is None:
        number, name = int(match.group(1)), match.group(2)
    if any(
        x is not None for x in (stats.cc, stats.ct, stats.f, stats.e, stats.ag, stats.bf, stats.be, stats.a)
    ):
        raise FightRefusal("combat.sys.error.use_caracs", ruleset=ruleset)
    sheet = await find_character(scope.session, scope.guild_id, name) if number is None else None
    given, skills = parse_caracs(ruleset, stats.caracs)
    arms = parse_arms(stats.weapons)
    added: list[Combatant] = []
    if sheet is not None:
        if not scope.gm and sheet.owner_id != scope.caller.user_id:
            raise FightRefusal("combat.error.not_yours", name=sheet.name)
        if any(m.get("character_id") == sheet.id for m in doc.meta.values()):
            raise FightRefusal("combat.error.already_in", name=sheet.name)
        if sheet.ruleset != ruleset:
            raise FightRefusal(
                "combat.sys.error.sheet_ruleset", name=sheet.name, sheet=sheet.ruleset, fight=ruleset
            )
        values = {**dict(sheet.characteristics), **given}
        known = {fold(k): int(v) for k, v in sheet.skills.items()}
        for key, innate in (getattr(sheet, "skill_innate", None) or {}).items():
            known[fold(key)] = int(innate) + known.get(fold(key), 0)
        known.update(skills)
        combatant, meta = adapter.build(
            scope,
            doc,
            _unique_id(doc, sheet.name),
            sheet.name,
            values,
            known,
            arms or arms_from_sheet(scope, sheet) or [dict(BARE_HANDS)],
            stats.armour,
            npc=sheet.is_npc,
        )
        meta.update(owner_id=sheet.owner_id, character_id=sheet.id, kind="npc" if sheet.is_npc else "pc")
        doc.state = replace(doc.state, combatants=(*doc.state.combatants, combatant))
        doc.meta[combatant.id] = meta
        added.append(combatant)
    else:
        require_gm(scope)
        if not given:
            raise FightRefusal("combat.sys.error.quick_needs_caracs", name=name[:60], ruleset=ruleset)
        number = number or 1
        if not 1 <= number <= MAX_QUICK:
            raise FightRefusal("combat.error.count_range", max=MAX_QUICK)
        if len(doc.state.combatants) + number > MAX_COMBATANTS:
            raise FightRefusal("combat.error.too_many", max=MAX_COMBATANTS)
        label = " ".join(name.split())[:60]
        if number > 1 and label.endswith("s") and len(label) > 3:
            label = label[:-1]
        label = label[:1].upper() + label[1:]
        existing = sum(1 for m in doc.meta.values() if m.get("preset") == fold(label))
        for index in range(number):
            display = f"{label} {existing + index + 1}" if number > 1 or existing else label
            combatant, meta = adapter.build(
                scope,
                doc,
                _unique_id(doc, display),
                display,
                dict(given),
                dict(skills),
                [dict(a) for a in arms] or [dict(BARE_HANDS)],
                stats.armour,
                npc=True,
            )
            meta.update(owner_id=doc.row.owner_id, character_id=None, kind="quick", preset=fold(label))
            doc.state = replace(doc.state, combatants=(*doc.state.combatants, combatant))
            doc.meta[combatant.id] = meta
            added.append(combatant)
    new_event(scope, doc, "add", None, {"combatants": [c.to_dict() for c in added]})
    doc.save()
    lines = [adapter.profile_line(scope, doc, c) for c in added]
    reply = Reply(
        title=scope.t("combat.add.title", count=len(added)),
        description="\n".join(lines)[:4000],
        footer=scope.t("combat.add.footer") if doc.state.round and not doc.data.get("round_over") else None,
        colour=Colour.INFO,
        result={
            "fight_id": doc.row.id,
            "added": [c.to_dict() for c in added],
            "meta": {c.id: doc.meta[c.id] for c in added},
        },
        kind="combat.add",
    )
    return outcome(scope, doc, reply)


def check_line(w: Words, check: Any, unit: str = "") -> str:
    """A check of the other rulesets: its terms, the roll, the outcome and the margin."""
    margin = "MR" if check.success else "ME"
    return (
        w.terms(check.modifiers, check.target, unit)
        + "\n"
        + w.t("combat.word.roll")
        + f" **{check.roll_text}** → {w.t(check.outcome_key)} ({margin} {check.margin})"
    )


def pending_buttons(
    scope: Scope, doc: Doc, seq: int, choices: Sequence[str]
) -> tuple[tuple[Button, ...], ...]:
    styles = {"encaisser": ButtonStyle.SECONDARY}
    return (
        tuple(
            Button(
                scope.t(f"combat.defence.button.{choice}"),
                custom_id(doc.row.id, "def", seq, choice),
                styles.get(choice, ButtonStyle.PRIMARY),
            )
            for choice in choices
        ),
    )


def mention(doc: Doc, cid: str) -> str:
    return _mention(doc, cid)


def actor(scope: Scope, doc: Doc, name: str | None) -> Combatant:
    return _actor(scope, doc, name)


def spend(scope: Scope, doc: Doc, c: Combatant, action: str) -> None:
    """An A-costing action on one's own slot (the turn is passed by :func:`pass_turn`)."""
    _spend(scope, doc, c, action, advance=False)


def pass_turn(scope: Scope, doc: Doc) -> list[str]:
    lines = _pass_turn(scope, doc)
    turn = _turn_line(scope, doc)
    return [*lines, turn] if turn else lines


def settle(scope: Scope, doc: Doc) -> list[str]:
    lines = _settle_turn(scope, doc)
    turn = _turn_line(scope, doc)
    return [*lines, turn] if turn else lines


def application_lines(
    scope: Scope, doc: Doc, victim: Combatant, application: EffectApplication, payload: dict[str, Any]
) -> list[str]:
    return _application_lines(scope, doc, victim, application, payload)


def set_dead(doc: Doc, cid: str, source: str) -> None:
    c = doc.state.get(cid)
    if not c.has("dead"):
        doc.state = doc.state.put(
            replace(c, conditions=(*c.conditions, Condition("dead", source, until="permanent")))
        )


def pick_arm(doc: Doc, c: Combatant, text: str | None) -> dict[str, Any]:
    arms: list[dict[str, Any]] = list(doc.meta.get(c.id, {}).get("arms") or [BARE_HANDS])
    if text:
        wanted = fold(text)
        for arm in arms:
            if wanted == fold(arm["name"]) or arm["id"] == slug(text):
                return arm
        starts = [a for a in arms if fold(a["name"]).startswith(wanted)]
        if len(starts) == 1:
            return starts[0]
        if wanted in ("mains nues", "poings", "bare hands"):
            return dict(BARE_HANDS)
        raise FightRefusal("combat.error.weapon_not_carried", name=c.name, weapon=text[:40])
    for arm in arms:
        if arm["kind"] != "shield":
            return arm
    return arms[0]


def situation_tokens(text: str | None) -> list[tuple[str, str | None]]:
    """``"longue, groupe:2"`` → [("longue", None), ("groupe", "2")] (folded, spaces → _)."""
    out: list[tuple[str, str | None]] = []
    for part in _list(text):
        key, sep, value = part.partition(":")
        if not sep:
            key, sep, value = part.partition("=")
        out.append((fold(key).replace(" ", "_").replace("'", "_"), value.strip() if sep else None))
    return out


def generic_action(
    scope: Scope, doc: Doc, action: str, who: str | None, allowed: Iterable[str]
) -> tuple[Combatant, list[str]]:
    """A shared action (``combat_actions`` ids) a system allows: spent on one's own slot when it
    costs an action, the turn then passes; refused with a clear message otherwise."""
    if action not in allowed or action not in scope.tables.actions:
        label = f"combat.action.{action}"
        raise FightRefusal(
            "combat.sys.error.action_not_in_system",
            action=scope.t(label) if scope.words.ctx.catalog.has(label) else action[:30],
            ruleset=doc.row.ruleset,
        )
    c = _actor(scope, doc, who)
    updated, notes = _spend(scope, doc, c, action)
    if action == "se_relever":
        doc.state, _ = signal(doc.state, c.id, "stands_up")
    return updated, notes


def action_reply(scope: Scope, doc: Doc, c: Combatant, action: str, lines: Sequence[str]) -> FightOutcome:
    head = scope.t("combat.action.done", name=c.name, action=scope.t(f"combat.action.{action}"))
    result = {"action": action, "combatant": c.id}
    new_event(scope, doc, "action", c.id, result)
    doc.save()
    reply = Reply(
        description="\n".join([head, *lines, _turn_line(scope, doc)]).strip(),
        colour=Colour.INFO,
        kind="combat.action",
        result=result,
    )
    return outcome(scope, doc, reply)


async def system_tables(scope: Scope, names: Iterable[str]) -> dict[str, Mapping[str, Any]]:
    """The documents in force (house rules merged) of a system's tables."""
    return {name: await table_in_force(scope.session, scope.ctx, scope.guild_id, name) for name in names}


def parse_option_tokens(text: str | None, known: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
    """``"endurance:seuil, des:unites"`` → {option key: value} from ``known`` = {word: {value word:
    stored value}}; anything else is refused with the accepted words."""
    out: dict[str, str] = {}
    for key, value in situation_tokens(text):
        choices = known.get(key)
        if choices is None or value is None or fold(value) not in choices:
            accepted = "; ".join(f"{k}:{'|'.join(v)}" for k, v in known.items())
            raise FightRefusal("combat.sys.error.bad_option", option=key[:30], accepted=accepted)
        out[key] = choices[fold(value)]
    return out
