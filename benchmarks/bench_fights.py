"""Fight interactions (issue #25): CPU per interaction and concurrent fights, in process.

The use cases are called as the cogs call them (``bot.services.fights``: one transaction, the
rolls logged with the fight, the tracker rendered), on a migrated database — SQLite in a temporary
directory, or PostgreSQL through ``TEST_POSTGRES_URL`` — so the figure is the bot's own CPU per
interaction (``time.process_time``: the aiosqlite thread included) without the gateway's.

* ``cpu``: a fight of ``n`` quick NPCs in two sides; the GM plays turns: attack (the bot's seeded
  dice), the defence (« encaisser »), the next fighter, a new round when it is over; CPU per
  interaction (median of the blocks), at 2 / 10 / 40 combatants and after 500 actions.
* ``concurrent``: ``k`` fights at once, each its own server, played the same way: interactions
  per second over all of them and the p99 of one interaction's wall time.

Run: ``.venv/bin/python -m benchmarks.bench_fights [--profile] [--postgres]``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import os
import pstats
import random
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import select, text

from bot.context import AppContext, migrated_context
from bot.data_loading import load_all
from bot.db.fight_models import Fight
from bot.db.session import create_engine
from bot.services.caller import Caller
from bot.services.fights import attacks
from bot.services.fights._core import FightOutcome
from bot.services.fights.attacks import AttackInput
from bot.services.fights.defence import defend
from bot.services.fights.opening import add_combatants, open_fight
from bot.services.fights.rounds import advance, new_round

CPU_TARGET_MS = 3.0
P99_TARGET_MS = 250.0


@asynccontextmanager
async def context(url: str | None = None) -> AsyncIterator[AppContext]:
    """The services' context on a fresh migrated database (``url``: PostgreSQL, emptied first)."""
    with tempfile.TemporaryDirectory(prefix="melee-fights-") as tmp:
        database = url or f"sqlite+aiosqlite:///{tmp}/melee.db"
        if url is not None:
            engine = create_engine(database)
            async with engine.begin() as conn:
                await conn.execute(text("DROP SCHEMA public CASCADE"))
                await conn.execute(text("CREATE SCHEMA public"))
            await engine.dispose()
        async with migrated_context(database, rng=random.Random(25), tables=load_all()) as ctx:
            yield ctx


def _ok(outcome: FightOutcome) -> dict[str, Any]:
    if outcome.reply.is_error:
        raise RuntimeError(outcome.reply.description)
    return dict(outcome.reply.result or {})


@dataclass
class Table:
    ctx: AppContext
    gm: Caller
    fight_id: int = 0
    interactions: int = 0
    harness_cpu: float = 0.0  # the bench's own reads of the fight (not an interaction's cost)


async def setup(ctx: AppContext, guild: int, fighters: int) -> Table:
    gm = Caller(user_id=guild * 10 + 1, guild_id=guild, channel_id=guild * 10, locale="fr", manage_guild=True)
    table = Table(ctx, gm)
    table.fight_id = int(_ok(await open_fight(ctx, gm, name=f"Bench {guild}"))["fight_id"])
    half = max(1, fighters // 2)
    for kind, count in (("Orque", half), ("Gobelin", fighters - half)):
        while count > 0:  # at most 10 quick NPCs per /combat ajouter
            _ok(await add_combatants(ctx, gm, who=f"{min(count, 10)} {kind}", side=f"{kind}s"))
            count -= 10
    return table


async def _state(table: Table) -> dict[str, Any]:
    cpu0 = time.process_time()
    async with table.ctx.sessions() as session:
        row = await session.scalar(select(Fight.state).where(Fight.id == table.fight_id))
    table.harness_cpu += time.process_time() - cpu0
    return dict(row or {})


async def turn(table: Table, doc: dict[str, Any], timings: list[float] | None = None) -> int:
    """One fighter's turn (attack, defence, next; a new round when none is left): interactions made."""
    ctx, gm = table.ctx, table.gm
    made = 0

    async def timed(call: Any) -> FightOutcome:
        nonlocal made
        began = time.perf_counter()
        result: FightOutcome = await call
        if timings is not None:
            timings.append((time.perf_counter() - began) * 1000)
        made += 1
        return result

    fight = doc.get("fight") or {}
    order, index = fight.get("order") or [], int(fight.get("turn") or 0)
    fighters = {c["id"]: c for c in fight.get("combatants") or []}
    alive = [c for c in fighters.values() if not any(x["kind"] == "dead" for x in c["conditions"])]
    current = (
        order[index].get("combatant") if 0 <= index < len(order) and isinstance(order[index], dict) else None
    )
    if not fight.get("round") or current is None:
        asked = await timed(new_round(ctx, gm))
        data = asked.reply.result or {}
        if data.get("confirm"):
            await timed(new_round(ctx, gm, fight_id=table.fight_id, confirmed=int(data["round"])))
        return made
    me = fighters.get(current)
    foes = [c for c in alive if me is not None and c.get("side") != me.get("side")]
    if me is not None and foes and me in alive:
        target = foes[0]
        result = await timed(attacks.attack(ctx, gm, AttackInput(target=target["name"], attacker=me["name"])))
        data = result.reply.result or {}
        if data.get("pending"):
            await timed(defend(ctx, gm, choice="encaisser", fight_id=table.fight_id, seq=int(data["seq"])))
    asked = await timed(advance(ctx, gm))
    data = asked.reply.result or {}
    if not asked.reply.is_error and data.get("confirm"):
        await timed(advance(ctx, gm, fight_id=table.fight_id, confirmed=(data["turn"][0], data["turn"][1])))
    elif asked.reply.is_error:
        await timed(new_round(ctx, gm))
    return made


async def play(table: Table, interactions: int, timings: list[float] | None = None) -> None:
    done = 0
    while done < interactions:
        done += await turn(table, await _state(table), timings)
    table.interactions += done


async def cpu_per_interaction(
    ctx: AppContext, fighters: int, *, before: int = 0, measured: int = 120, profile: Path | None = None
) -> float:
    """Median of blocks of bot CPU per interaction (ms) in a fight of ``fighters``, after ``before``."""
    table = await setup(ctx, 1000 + fighters * 7 + before, fighters)
    await play(table, 20 + before)  # warm: tables built, statements compiled
    blocks = []
    profiler = cProfile.Profile() if profile is not None else None
    gc.collect()
    for _ in range(5):
        start_n, harness0, cpu0 = table.interactions, table.harness_cpu, time.process_time()
        if profiler is not None:
            profiler.enable()
        await play(table, measured // 5)
        if profiler is not None:
            profiler.disable()
        cpu = time.process_time() - cpu0 - (table.harness_cpu - harness0)
        blocks.append(cpu / (table.interactions - start_n) * 1000)
    if profiler is not None and profile is not None:
        profiler.dump_stats(str(profile))
    return statistics.median(blocks)


async def concurrent(ctx: AppContext, fights: int, per_fight: int = 40) -> tuple[float, float, float]:
    """``fights`` fights at once (2 combatants each): interactions per second, p50 and p99 (ms)."""
    base = 5000 + fights * 100
    tables = [await setup(ctx, base + i, 2) for i in range(fights)]
    for table in tables:
        await play(table, 4)
    timings: list[float] = []
    began = time.perf_counter()
    before = sum(t.interactions for t in tables)
    await asyncio.gather(*(play(t, per_fight, timings) for t in tables))
    elapsed = time.perf_counter() - began
    total = sum(t.interactions for t in tables) - before
    timings.sort()
    return total / elapsed, percentile(timings, 0.5), percentile(timings, 0.99)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    return values[min(len(values) - 1, int(q * len(values)))]


async def main_async(args: argparse.Namespace) -> int:
    url = os.environ.get("TEST_POSTGRES_URL") if args.postgres else None
    async with context(url) as ctx:
        for fighters, before in ((2, 0), (10, 0), (40, 0), (2, 500)):
            out = Path(f"/tmp/melee-fights-{fighters}-{before}.prof") if args.profile else None
            ms = await cpu_per_interaction(ctx, fighters, before=before, profile=out)
            print(f"{fighters} combatants after {before} actions: {ms:.2f} ms of CPU per interaction")
            if out is not None:
                pstats.Stats(str(out)).sort_stats("cumulative").print_stats(35)
    for label, db in (("sqlite", None), ("postgresql", os.environ.get("TEST_POSTGRES_URL"))):
        if label == "postgresql" and db is None:
            continue
        for fights in (1, 10, 20):
            async with context(db) as ctx:
                rate, p50, p99 = await concurrent(ctx, fights)
            print(
                f"{label}: {fights} fights at once: {rate:.0f} interactions/s,"
                f" p50 {p50:.1f} ms, p99 {p99:.1f} ms"
            )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--profile", action="store_true", help="cProfile each CPU measurement")
    parser.add_argument("--postgres", action="store_true", help="the CPU figures on TEST_POSTGRES_URL")
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())
