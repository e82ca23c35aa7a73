"""A fight document's size is bounded by its fighters, not by the fight's age (#25): 500 random
actions of a two-fighter `renove` fight (the driver of ``test_fights_undo_property``: attacks with
the bot's seeded dice, defences, criticals, falls, rounds, postures, the GM's conditions and
corrections, due tests, proposals; the GM revives the dead so the fight goes on) keep the stored
document under 4 KB, and a state (prone, stunned, unconscious …) is never carried twice."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from bot.context import AppContext
from bot.services.fights import attacks as fights_attacks
from bot.services.fights._core import FightOutcome
from bot.services.fights.actions import take_simple_action
from bot.services.fights.attacks import AttackInput
from bot.services.fights.conditions import correct, edit_condition, roll_due_test
from bot.services.fights.damage import answer_proposal
from bot.services.fights.defence import defend
from bot.services.fights.opening import add_combatants
from bot.services.fights.rounds import set_posture

from .fight_context import ctx
from .test_fights_undo_property import (
    DEFENCES,
    POSTURES,
    Table,
    _alive,
    _current,
    _fight_id,
    _next,
    _read,
    _round,
    _setup,
)

__all__ = ["ctx"]

ACTIONS = 500
STATES = ("prone", "stunned", "unconscious", "no_action", "dead")


async def _action(
    ctx: AppContext, table: Table, rng: random.Random, doc: dict[str, Any], stuck: bool
) -> tuple[str, FightOutcome]:
    """One action; ``stuck``: the last one was refused (the fighter whose turn it is cannot act, the
    round is over …): the GM moves on."""
    gm = table.gm
    fighters = doc["fight"]["combatants"]
    names = [c["name"] for c in fighters]
    alive = [c["name"] for c in _alive(doc)]
    if len(alive) < 2:
        dead = next(n for n in names if n not in alive)
        return "revive", await edit_condition(ctx, gm, who=dead, op="revive")
    if doc.get("pending") and rng.random() < 0.8:
        seq = int(min(doc["pending"], key=int))
        return "defend", await defend(ctx, gm, choice=rng.choice(DEFENCES), seq=seq)
    if doc.get("proposals") and rng.random() < 0.7:
        number, fid = int(min(doc["proposals"], key=int)), await _fight_id(ctx, table)
        return "proposal", await answer_proposal(ctx, gm, fight_id=fid, number=number, accept=False)
    roll = rng.random()
    if stuck:
        return "next", await _next(ctx, gm) if rng.random() < 0.7 else await _round(ctx, gm)
    if roll < 0.1 or not doc["fight"].get("round"):
        return "round", await _round(ctx, gm)
    if roll < 0.55:
        attacker = _current(doc) or rng.choice(alive)
        target = next(n for n in alive if n != attacker)
        return "attack", await fights_attacks.attack(ctx, gm, AttackInput(target=target, attacker=attacker))
    if roll < 0.62:
        return "next", await _next(ctx, gm)
    if roll < 0.68:
        who = rng.choice(alive)
        return "posture", await set_posture(ctx, gm, posture=rng.choice(POSTURES), who=who)
    if roll < 0.8:
        who, kind = rng.choice(names), rng.choice(("prone", "stunned", "unconscious"))
        rounds = rng.choice((None, 1, 2, 3))
        return "condition", await edit_condition(ctx, gm, who=who, op="add", kind=kind, rounds=rounds)
    if roll < 0.84:
        op = rng.choice(("stands_up", "treated"))
        return "signal", await edit_condition(ctx, gm, who=rng.choice(names), op=op)
    if roll < 0.88:
        value = rng.randint(20, 60)
        return "correct", await correct(ctx, gm, who=rng.choice(names), field_name="CC", value=value)
    if roll < 0.93:
        who = _current(doc) or rng.choice(alive)
        return "action", await take_simple_action(ctx, gm, action="viser", who=who, option="precision")
    if doc.get("prompts"):
        prompt = doc["prompts"][0]
        who = next(c["name"] for c in fighters if c["id"] == prompt.get("combatant"))
        return "test", await roll_due_test(ctx, gm, who=who)
    return "next", await _next(ctx, gm)


async def test_a_long_fight_keeps_its_document_small_and_never_stacks_a_state(ctx: AppContext) -> None:
    rng = random.Random(25)
    ctx.rng = random.Random(2025)  # the bot's dice
    table = await _setup(ctx, 25)
    await add_combatants(ctx, table.players["Albert"], who="Albert")
    await add_combatants(ctx, table.gm, who="gobelin")
    done: Counter[str] = Counter()
    sizes = []
    snap, stuck = (await _read(ctx, table))[1], False
    for _ in range(ACTIONS):
        kind, result = await _action(ctx, table, rng, snap.doc, stuck)
        stuck = result.reply.is_error
        done[kind if not result.reply.is_error else "refused"] += 1
        (raw, _), snap = await _read(ctx, table)
        sizes.append(len(json.dumps(raw, ensure_ascii=False).encode()))
        for fighter in snap.doc["fight"]["combatants"]:
            kinds = Counter(x["kind"] for x in fighter["conditions"])
            assert all(kinds[s] <= 1 for s in STATES), (fighter["name"], kinds)
    # the fight really was long and eventful: falls and states added again and again
    assert done["attack"] >= 60 and done["condition"] >= 20 and done["round"] >= 20, done
    print("document bytes: max", max(sizes), "last", sizes[-1])
    assert max(sizes) < 4096, (max(sizes), sizes[-1], done)
