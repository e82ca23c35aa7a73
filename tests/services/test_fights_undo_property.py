"""The undo property: 200 random `renove` fights played through the services on a real database,
with random actions (attacks and defences with the bot's seeded dice, damage and criticals, new
rounds, turns, postures, conditions, corrections, simple actions, due tests, permanent changes
written onto sheets, a destiny point against death); at random points the GM undoes the last k
actions. After each action the fight document, its round, the character sheets and the tracker
are snapshotted; after an undo of k they must equal, exactly, the snapshot taken k actions
earlier — the fight that never had those actions. The only value not compared is the document's
``seq`` (the event counter, which only grows so an undone attack's buttons can never answer a
new attack: ``bot.db.fight_journal``); the sheets' ``version`` and timestamps are not content."""

from __future__ import annotations

import os
import random
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import select

from bot.context import AppContext
from bot.db import fight_journal
from bot.db.characters import new_row
from bot.db.fight_models import Fight, FightAction, FightEvent
from bot.db.models import Character
from bot.rules.sheets import SheetData
from bot.services.caller import Caller
from bot.services.fights import attacks as fights_attacks
from bot.services.fights._core import FightOutcome
from bot.services.fights.actions import take_simple_action
from bot.services.fights.attacks import AttackInput
from bot.services.fights.conditions import correct, edit_condition, roll_due_test
from bot.services.fights.damage import answer_proposal
from bot.services.fights.defence import defend
from bot.services.fights.opening import add_combatants, open_fight
from bot.services.fights.rounds import advance, new_round, set_posture
from bot.services.fights.undo import undo
from bot.services.flows.fortune import destiny

from .fight_context import ctx

__all__ = ["ctx"]

FIGHTS = int(os.environ.get("UNDO_FIGHTS", "200"))  # fewer while debugging, never in the suite
CHANNEL = 9
STATS = {"CT": 30, "F": 35, "E": 35, "Ag": 35, "Int": 30, "FM": 30, "Soc": 30, "A": 2, "M": 4}
POSTURES = ("normale", "prudente", "temeraire", "defensive")
DEFENCES = ("parer", "esquiver", "encaisser")


@dataclass(frozen=True)
class Snapshot:
    doc: dict[str, Any]
    round: int
    sheets: dict[str, dict[str, Any]]
    tracker: Any


@dataclass
class Table:
    guild: int
    gm: Caller
    players: dict[str, Caller]
    locale: str = "fr"  # the language of the last action's tracker (it follows who acted)


async def _read(ctx: AppContext, table: Table) -> tuple[Any, Snapshot]:
    """The fight row as stored (to see whether something was written) and its snapshot."""
    async with ctx.sessions() as session:
        row = (await session.scalars(select(Fight).where(Fight.guild_id == table.guild))).one()
        sheets = (await session.scalars(select(Character).where(Character.guild_id == table.guild))).all()
        snap = Snapshot(
            fight_journal.document(row.state),
            row.round,
            {s.name: fight_journal.sheet_values(s) for s in sheets},
            None,
        )
        return (fight_journal.plain(row.state), row.round), snap


def _tracker(table: Table, result: FightOutcome) -> Any:
    t = result.tracker
    return None if t is None else (table.locale, t.title, t.description, t.fields, t.buttons, t.selects)


async def _setup(ctx: AppContext, n: int) -> Table:
    guild = 70_000 + n
    gm = Caller(user_id=3, guild_id=guild, channel_id=CHANNEL, locale="fr", manage_guild=True)
    alice = Caller(user_id=1, guild_id=guild, channel_id=CHANNEL, locale="fr")
    bob = Caller(user_id=2, guild_id=guild, channel_id=CHANNEL, locale="en-US")
    async with ctx.sessions.begin() as session:
        for owner, name, cc in ((alice, "Albert", 40), (bob, "Élise", 35)):
            data = SheetData(
                name=name,
                ruleset="renove",
                characteristics={**STATS, "CC": cc, "BF": 6, "BE": 6, "PD": 2, "Fortune": 2, "PF": 0},
                skills={"Intimidation": 0, "Charisme": 0},
                weapons=["epee"],
                armour=["cuir_bouilli_plastron", "cuir_bouilli_calotte"] if name == "Albert" else [],
                profile={"race": "humain"},
            )
            session.add(new_row(guild, owner.user_id, data))
    assert not (await open_fight(ctx, gm, name=f"Combat {n}")).reply.is_error
    return Table(guild, gm, {"Albert": alice, "Élise": bob})


def _alive(doc: dict[str, Any]) -> list[dict[str, Any]]:
    fighters = doc["fight"]["combatants"]
    return [c for c in fighters if not any(x["kind"] == "dead" for x in c["conditions"])]


def _current(doc: dict[str, Any]) -> str | None:
    """The fighter whose slot it is, if any (the state's turn over its order)."""
    fight = doc["fight"]
    order, turn = fight.get("order") or [], fight.get("turn") or 0
    if 0 <= turn < len(order):
        slot = order[turn]
        cid = slot.get("combatant") if isinstance(slot, dict) else None
        names = {c["id"]: c["name"] for c in fight["combatants"]}
        return names.get(cid) if cid else None
    return None


async def _random_action(
    ctx: AppContext, table: Table, rng: random.Random, doc: dict[str, Any], stats: Counter[str]
) -> tuple[str, FightOutcome]:
    """One action picked at random among those the fight's state makes possible."""
    gm = table.gm
    table.locale = gm.locale
    fighters = doc["fight"]["combatants"]
    names = [c["name"] for c in fighters]
    alive = [c["name"] for c in _alive(doc)]
    if len(names) < 2 or (len(names) < 4 and rng.random() < 0.35):
        missing = [n for n in ("Albert", "Élise") if n not in names]
        if missing:
            who = missing[0]
            table.locale = table.players[who].locale
            return "add", await add_combatants(ctx, table.players[who], who=who)
        return "add", await add_combatants(ctx, gm, who="2 gobelins")
    pending = doc.get("pending") or {}
    if pending and rng.random() < 0.6:
        seq = int(min(pending, key=int))
        return "defend", await defend(ctx, gm, choice=rng.choice(DEFENCES), seq=seq)
    proposals = doc.get("proposals") or {}
    if proposals and rng.random() < 0.7:
        number = int(min(proposals, key=int))
        fid = await _fight_id(ctx, table)
        return "proposal", await answer_proposal(
            ctx, gm, fight_id=fid, number=number, accept=rng.random() < 0.8
        )
    dead_pcs = [c["name"] for c in fighters if c["name"] in table.players and c["name"] not in alive]
    if dead_pcs and rng.random() < 0.5:
        who = dead_pcs[0]
        table.locale = table.players[who].locale
        result = await destiny(ctx, table.players[who], against="death", character=who)
        board = result.board
        return "destiny", FightOutcome(result.reply, tracker=board.reply if board is not None else None)
    roll = rng.random()
    if roll < 0.08 or not doc["fight"].get("round"):
        return "round", await _round(ctx, gm)
    if roll < 0.5 and len(alive) >= 2:
        attacker = _current(doc) or rng.choice(alive)
        targets = [n for n in alive if n != attacker]
        if not targets:
            return "next", await _next(ctx, gm)
        data = AttackInput(target=rng.choice(targets), attacker=attacker)
        return "attack", await fights_attacks.attack(ctx, gm, data)
    if roll < 0.55:
        return "next", await _next(ctx, gm)
    if roll < 0.65 and alive:
        who = rng.choice(alive)
        caller = table.players.get(who, gm)
        table.locale = caller.locale
        return "posture", await set_posture(ctx, caller, posture=rng.choice(POSTURES), who=who)
    if roll < 0.78 and names:
        who = rng.choice(names)
        pick = rng.random()
        if pick < 0.4:
            op = dict(op="add", stat="CC", value=-10, rounds=rng.randint(1, 3))
        elif pick < 0.6:
            op = dict(op="add", kind=rng.choice(("prone", "stunned")), rounds=2)
        elif pick < 0.8 and any(n in table.players for n in names):
            who = rng.choice([n for n in names if n in table.players])
            op = dict(op="add", kind="dead")
        else:
            op = dict(op="remove", index=1)
        return "condition", await edit_condition(ctx, gm, who=who, **op)  # type: ignore[arg-type]
    if roll < 0.86 and names:
        field = rng.choice(("CC", "Ag", "BF", "A"))
        value = rng.randint(1, 3) if field in ("BF", "A") else rng.randint(20, 60)
        return "correct", await correct(ctx, gm, who=rng.choice(names), field_name=field, value=value)
    if roll < 0.93 and alive:
        who = _current(doc) or rng.choice(alive)
        return "action", await take_simple_action(ctx, gm, action="viser", who=who, option="precision")
    prompts = doc.get("prompts") or []
    if prompts:
        who = next((c["name"] for c in fighters if c["id"] == prompts[0].get("combatant")), names[0])
        return "test", await roll_due_test(ctx, gm, who=who)
    return "next", await _next(ctx, gm)


async def _next(ctx: AppContext, gm: Caller) -> FightOutcome:
    """``/combat suivant`` and its confirmation (the question alone is not an action)."""
    asked = await advance(ctx, gm)
    data = asked.reply.result or {}
    if asked.reply.is_error or not data.get("confirm"):
        return asked
    return await advance(
        ctx, gm, fight_id=int(data["fight_id"]), confirmed=(data["turn"][0], data["turn"][1])
    )


async def _round(ctx: AppContext, gm: Caller) -> FightOutcome:
    """``/combat round``, confirmed when it ends a round with fighters or defences to come."""
    asked = await new_round(ctx, gm)
    data = asked.reply.result or {}
    if asked.reply.is_error or not data.get("confirm"):
        return asked
    return await new_round(ctx, gm, fight_id=int(data["fight_id"]), confirmed=int(data["round"]))


async def _fight_id(ctx: AppContext, table: Table) -> int:
    async with ctx.sessions() as session:
        return int(await session.scalar(select(Fight.id).where(Fight.guild_id == table.guild)) or 0)


async def _check_log(ctx: AppContext, table: Table) -> None:
    """Every event but the opening belongs to one action; it is undone exactly when its action is."""
    async with ctx.sessions() as session:
        fid = await _fight_id(ctx, table)
        events = (await session.scalars(select(FightEvent).where(FightEvent.fight_id == fid))).all()
        actions = (await session.scalars(select(FightAction).where(FightAction.fight_id == fid))).all()
    owner = {e.seq: a for a in actions for e in events if a.first_seq <= e.seq <= a.last_seq}
    for e in events:
        if e.kind == "open":
            continue
        assert e.seq in owner, (e.kind, e.seq)
        assert e.undone == (owner[e.seq].undone_at is not None), (e.kind, e.seq)
    numbers = sorted(a.number for a in actions)
    assert numbers == list(range(1, len(actions) + 1))


async def _play(ctx: AppContext, n: int, stats: Counter[str]) -> None:
    rng = random.Random(n)
    ctx.rng = random.Random(10_000 + n)  # the bot's dice
    table = await _setup(ctx, n)
    before, first = await _read(ctx, table)
    stack = [first]
    for _ in range(rng.randint(4, 11)):
        if len(stack) > 1 and rng.random() < 0.15:
            before = await _undo_and_compare(ctx, table, rng, stack, stats)
            continue
        kind, result = await _random_action(ctx, table, rng, before[0], stats)
        if result.reply.kind == "combat.ask":  # an ally as the target: a question first, not an action
            after, snap = await _read(ctx, table)
            assert snap.doc == stack[-1].doc and snap.sheets == stack[-1].sheets
            before = after  # the question is stored (not journaled): a refused answer writes nothing more
            stats["asked"] += 1
            number, fid = int((result.reply.result or {})["ask"]), await _fight_id(ctx, table)
            accept = rng.random() < 0.5
            result = await fights_attacks.answer_ask(
                ctx, table.gm, fight_id=fid, number=number, accept=accept
            )
            if not accept:
                before = (await _read(ctx, table))[0]
                continue
        after, snap = await _read(ctx, table)
        if result.reply.is_error:
            assert after == before, (kind, result.reply.description)  # a refusal writes nothing
            stats["refused"] += 1
            continue
        if after != before:
            stats[kind] += 1
            snap = replace(snap, tracker=_tracker(table, result) if result.tracker else None)
            if snap.sheets != stack[-1].sheets:
                stats["sheet_written"] += 1
            stack.append(snap)
            before = after
    if len(stack) > 1:
        await _undo_and_compare(ctx, table, rng, stack, stats)
    await _check_log(ctx, table)


async def _undo_and_compare(
    ctx: AppContext, table: Table, rng: random.Random, stack: list[Snapshot], stats: Counter[str]
) -> Any:
    k = rng.randint(1, min(4, len(stack) - 1))
    sheets_before = stack[-1].sheets
    result = await undo(ctx, table.gm, count=k)
    assert not result.reply.is_error, result.reply.description
    assert len((result.reply.result or {})["undone"]) == k
    del stack[len(stack) - k :]
    table.locale = table.gm.locale
    raw, now = await _read(ctx, table)
    now = replace(now, tracker=_tracker(table, result))
    expected = stack[-1]
    assert now.doc == expected.doc
    assert now.round == expected.round
    assert now.sheets == expected.sheets
    if expected.tracker is not None and expected.tracker[0] == now.tracker[0]:
        assert now.tracker == expected.tracker  # the pinned tracker shows the fight of before
        stats["tracker_compared"] += 1
    stats["undo"] += 1
    stats["undone"] += k
    if sheets_before != expected.sheets:
        stats["sheet_undone"] += 1
    return raw


async def test_undoing_the_last_k_actions_gives_the_fight_that_stopped_k_actions_earlier(
    ctx: AppContext,
) -> None:
    stats: Counter[str] = Counter()
    for n in range(FIGHTS):
        await _play(ctx, n, stats)
    # the random fights really exercised every kind of action, sheets included
    for kind in ("add", "round", "attack", "defend", "next", "posture", "condition", "correct", "action"):
        assert stats[kind] > 0, (kind, stats)
    assert stats["undo"] >= FIGHTS and stats["sheet_undone"] > 0, stats
    print(dict(stats))
