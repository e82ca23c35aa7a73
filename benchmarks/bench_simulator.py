"""Duel simulator throughput: the numpy sampler and the pure one on the same matchup, warm and cold.

The duel: CC 45 épée (F 35, E 40, BE 7) against CC 30 hache-pic (FM 25), renove with the combat WS
and parry side effects, full critical effects: about 6 rounds and 3.7 criticals per duel.

* cold: a new simulator and sampler, one request (tables built on the way);
* warm: after a warm-up of about 400 000 duels on the same sampler (what a few requests on the same
  matchup leave behind: the service keeps its simulators and samplers), several requests, each
  ``run(MAX_DUELS, seed, deadline)`` with the service's budget (2 s; 1 s with ``--quick``) as the
  service calls it; median duels per second of wall
  time, and per second of this process's CPU time (the machine is shared: the CPU figure is what
  the code costs, the wall figure what a request gets).

``python -m benchmarks.bench_simulator [--quick]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from dataclasses import dataclass
from typing import Any


@dataclass
class Result:
    fast_wall: float
    fast_cpu: float
    fast_runs: list[float]
    cold: float
    pure_wall: float
    pure_cpu: float
    warmup_duels: int
    figures: list[str]
    summary: str


def _matchup() -> tuple[Any, Any, Any]:
    from bot.data_loading import load_all
    from bot.rules.combat.tables import CombatTables
    from bot.rules.renove.simulation import Fighter

    tables = CombatTables.from_documents({n: t.document for n, t in load_all().items()})
    a = Fighter("A", {"CC": 45, "F": 35, "E": 40, "Ag": 30, "A": 1, "BF": 6, "BE": 7, "FM": 30}, "epee")
    b = Fighter("B", {"CC": 30, "F": 30, "E": 30, "Ag": 30, "A": 1, "BF": 6, "BE": 6, "FM": 25}, "hache_pic")
    return tables, a, b


def seed_figures(tables: Any) -> list[str]:
    """The seed author's figures, exact from the simulator's tables."""
    from bot.rules.renove.simulation import DuelSimulator, Fighter, Options

    stats = {"CC": 30, "F": 30, "E": 30, "Ag": 30, "A": 1, "BF": 6, "BE": 6, "FM": 30}
    out = []
    for cc, ws in ((30, False), (30, True), (45, False), (45, True)):
        plain = Fighter("x", {**stats, "CC": cc}, "fauchon_messer_braquemart")
        other = Fighter("y", stats, "fauchon_messer_braquemart")
        p = DuelSimulator(tables, plain, other, Options(combat_ws=ws, one_sided=True)).hit_probability(0)
        out.append(
            f"CC {cc} vs 30, combat WS {'on ' if ws else 'off'}: P(hit not parried) = {p} = {float(p):.3f}"
            f" → {1 / float(p):.2f} rounds to hit"
        )
    return out


def _timed(call: Any) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    tally = call()
    return tally, time.perf_counter() - wall, time.process_time() - cpu


def measure(quick: bool = False) -> Result:
    from bot.rules.renove.simulation import MAX_DUELS, DuelSimulator
    from bot.services.simulation_fast import FastSampler

    tables, a, b = _matchup()
    figures = seed_figures(tables)
    from bot.services.simulation import BUDGET_SECONDS

    request = 1.0 if quick else BUDGET_SECONDS  # a /simuler request's budget
    started = time.perf_counter()
    sim = DuelSimulator(tables, a, b)
    sampler = FastSampler(sim)
    cold = sampler.run(MAX_DUELS, 1, deadline=started + request)
    cold_rate = cold.duels / (time.perf_counter() - started)
    warmed, seed = cold.duels, 2
    target = 200_000 if quick else 400_000
    give_up = time.perf_counter() + (8.0 if quick else 15.0)
    while warmed < target and time.perf_counter() < give_up:
        warmed += sampler.run(MAX_DUELS, seed, deadline=time.perf_counter() + request).duels
        seed += 1
    walls, cpus = [], []
    last = None
    for run in range(3 if quick else 5):
        last, wall, cpu = _timed(
            lambda s=seed + run: sampler.run(MAX_DUELS, s, deadline=time.perf_counter() + request)
        )
        walls.append(last.duels / wall)
        cpus.append(last.duels / cpu if cpu > 0 else 0.0)
    pure_walls, pure_cpus = [], []
    for run in range(3):
        pure, wall, cpu = _timed(
            lambda r=run: sim.run(10**9, random.Random(r), deadline=time.perf_counter() + 0.5)
        )
        pure_walls.append(pure.duels / wall)
        pure_cpus.append(pure.duels / cpu if cpu > 0 else 0.0)
    assert last is not None
    summary = (
        f"CC 45 épée vs CC 30 hache-pic: {last.duels:,} duels in {last.seconds:.2f} s; A wins"
        f" {last.wins[0] / last.duels:.3f}, B {last.wins[1] / last.duels:.3f}, draws"
        f" {last.draws / last.duels:.4f},"
        f" {last.rounds_total / max(1, last.wins[0] + last.wins[1]):.2f} rounds to the end"
    )
    return Result(
        fast_wall=statistics.median(walls),
        fast_cpu=statistics.median(cpus),
        fast_runs=walls,
        cold=cold_rate,
        pure_wall=statistics.median(pure_walls),
        pure_cpu=statistics.median(pure_cpus),
        warmup_duels=warmed,
        figures=figures,
        summary=summary,
    )


def report(result: Result) -> None:
    for line in result.figures:
        print(f"  {line}")
    print(f"  {result.summary}")
    print(
        f"  numpy sampler, warm (after {result.warmup_duels:,} duels): median {result.fast_wall:,.0f} duels/s"
        f" wall, {result.fast_cpu:,.0f}/s of CPU; runs {', '.join(f'{r:,.0f}' for r in result.fast_runs)}"
    )
    print(f"  numpy sampler, cold (tables built in the request): {result.cold:,.0f} duels/s")
    print(
        f"  pure sampler, warm: median {result.pure_wall:,.0f} duels/s wall, {result.pure_cpu:,.0f}/s of CPU;"
        f" numpy ÷ pure = {result.fast_wall / max(1.0, result.pure_wall):.1f}×"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    report(measure(args.quick))


if __name__ == "__main__":
    main()
