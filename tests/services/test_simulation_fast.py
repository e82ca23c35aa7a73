"""The vectorised duel sampler agrees with the pure simulator's exact tables and its sampler."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from bot.data_loading import load_all
from bot.rules.combat import CombatTables
from bot.rules.simulation import DuelSimulator, Fighter, Options, Tally
from bot.services import simulation as svc
from bot.services.simulation_fast import FastSampler, numpy_seed

PLAIN = "fauchon_messer_braquemart"


@pytest.fixture(scope="module")
def tables() -> CombatTables:
    return CombatTables.from_documents({name: t.document for name, t in load_all().items()})


def fighter(name: str, cc: int, weapon: str = PLAIN) -> Fighter:
    stats = {"CC": cc, "F": 30, "E": 30, "Ag": 30, "A": 1, "BF": 6, "BE": 6, "FM": 30}
    return Fighter(name, stats, weapon)


def _within(p1: float, n1: int, p2: float, n2: int, z: float = 3.0) -> bool:
    p = (p1 * n1 + p2 * n2) / (n1 + n2)
    se = math.sqrt(max(p * (1 - p), 1e-6) * (1 / n1 + 1 / n2))
    return abs(p1 - p2) <= z * se


def test_unparried_hits_per_attack_match_the_exact_figure(tables: CombatTables) -> None:
    """30 against 30 with the combat WS, one attack against one parry: P = 51/200 per round.

    Without parry side effects nothing changes the defender before the first hit, so the round of
    the first hit is exactly geometric (side effects can weaken his parry and shorten the wait).
    """
    options = Options(combat_ws=True, one_sided=True, parry_side_effects=False)
    sim = DuelSimulator(tables, fighter("a", 30), fighter("b", 30), options)
    p = sim.hit_probability(0)
    assert p == Fraction(51, 200)
    tally = FastSampler(sim).run(50_000, 11)
    assert tally.duels == 50_000 and tally.first_hit_count[0] == tally.duels
    mean = tally.first_hit_sum[0] / tally.first_hit_count[0]
    sd = math.sqrt(1 - float(p)) / float(p)  # geometric number of rounds to the first hit
    assert abs(mean - 1 / float(p)) < 3 * sd / math.sqrt(tally.duels)


@pytest.mark.parametrize(
    ("cc_a", "cc_b", "weapon", "combat_ws"),
    [(45, 30, PLAIN, True), (40, 40, "epee", True), (45, 30, "morgenstern", False)],
)
def test_win_probabilities_agree_with_the_pure_sampler(
    tables: CombatTables, cc_a: int, cc_b: int, weapon: str, combat_ws: bool
) -> None:
    a, b = fighter("a", cc_a, weapon), fighter("b", cc_b, weapon)
    options = Options(combat_ws=combat_ws)
    pure = DuelSimulator(tables, a, b, options).run(20_000, random.Random(3))
    fast = FastSampler(DuelSimulator(tables, a, b, options)).run(50_000, 4)
    assert fast.duels == 50_000 and fast.wins[0] + fast.wins[1] + fast.draws == fast.duels
    for side in (0, 1):
        assert _within(fast.wins[side] / fast.duels, fast.duels, pure.wins[side] / pure.duels, pure.duels)
    assert _within(fast.draws / fast.duels, fast.duels, pure.draws / pure.duels, pure.duels)
    for tally in (pure, fast):
        assert set(tally.criticals[0]) <= set(range(1, 16))
        assert sum(tally.outs.values()) == tally.wins[0] + tally.wins[1]
    mean_pure = pure.rounds_total / (pure.wins[0] + pure.wins[1])
    mean_fast = fast.rounds_total / (fast.wins[0] + fast.wins[1])
    assert mean_fast == pytest.approx(mean_pure, rel=0.05)


def test_symmetric_matchup_is_even_and_seeded_runs_repeat(tables: CombatTables) -> None:
    sampler = FastSampler(DuelSimulator(tables, fighter("a", 40, "epee"), fighter("b", 40, "epee")))
    tally = sampler.run(50_000, 1)
    decided = tally.wins[0] + tally.wins[1]
    assert abs(tally.wins[0] / decided - 0.5) <= 3 * 0.5 / math.sqrt(decided)
    again, same = sampler.run(3_000, 9), sampler.run(3_000, 9)
    assert (again.wins, again.draws, again.rounds_total, again.criticals) == (
        same.wins,
        same.draws,
        same.rounds_total,
        same.criticals,
    )
    seeded = (numpy_seed(random.Random(5)), numpy_seed(random.Random(5)))
    assert seeded[0] == seeded[1]


def test_bounded_in_time_and_in_duels(tables: CombatTables) -> None:
    sampler = FastSampler(DuelSimulator(tables, fighter("a", 40), fighter("b", 40)))
    stopped = sampler.run(1_000_000, 1, deadline=0.0, clock=lambda: 1.0)
    assert stopped.stopped_by_time and stopped.duels == 0
    ticks = iter(range(1_000_000))  # the first batch always completes; a later one is dropped whole
    partial = sampler.run(1_000_000, 1, deadline=3.0, clock=lambda: float(next(ticks)))
    assert partial.stopped_by_time and 0 < partial.duels < 1_000_000
    capped = sampler.run(5_000, 2, deadline=1e18)
    assert capped.duels == 5_000 and not capped.stopped_by_time


def test_the_service_can_run_the_fast_path(tables: CombatTables) -> None:
    a, b = fighter("a", 45), fighter("b", 30)
    assert svc.FAST_AVAILABLE
    _, fast = svc.run_duels(tables, a, b, 20_000, Options(), rng=random.Random(1), budget=60.0, fast=True)
    _, pure = svc.run_duels(tables, a, b, 5_000, Options(), rng=random.Random(1), budget=60.0, fast=False)
    assert isinstance(fast, Tally) and fast.duels == 20_000 and pure.duels == 5_000
    assert _within(fast.wins[0] / fast.duels, fast.duels, pure.wins[0] / pure.duels, pure.duels)
