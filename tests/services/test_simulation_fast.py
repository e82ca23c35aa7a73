"""The vectorised duel sampler: its tables against the combat core, its draws against the pure sampler.

Statistical comparisons are seeded (deterministic) and use tests at about the 0.1 % level: a
two-proportion z-test for probabilities, a chi-square homogeneity test for distributions (rounds to
the end of a duel, critical values), a z-test for the geometric wait of the seed author's figures.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from bot.data_loading import load_all
from bot.rules.combat.effects import tick
from bot.rules.combat.state import Combatant
from bot.rules.combat.tables import CombatTables
from bot.rules.renove.simulation import DuelSimulator, Fighter, Options, Tally, condition_key
from bot.services import simulation as svc
from bot.services.simulation_fast import FIRST_BATCH, FastSampler, numpy_seed

PLAIN = "fauchon_messer_braquemart"
Z = 3.29  # two-sided 0.1 %


@pytest.fixture(scope="module")
def tables() -> CombatTables:
    return CombatTables.from_documents({name: t.document for name, t in load_all().items()})


def fighter(name: str, cc: int, weapon: str = PLAIN, **stats: int) -> Fighter:
    base = {"CC": cc, "F": 30, "E": 30, "Ag": 30, "A": 1, "BF": 6, "BE": 6, "FM": 30}
    return Fighter(name, {**base, **stats}, weapon)


def _within(p1: float, n1: int, p2: float, n2: int, z: float = Z) -> bool:
    p = (p1 * n1 + p2 * n2) / (n1 + n2)
    se = math.sqrt(max(p * (1 - p), 1e-6) * (1 / n1 + 1 / n2))
    return abs(p1 - p2) <= z * se


def _chi2_homogeneous(
    a: dict[int, int], b: dict[int, int], min_expected: float = 10.0
) -> tuple[float, float]:
    """(statistic, 0.1 % critical value) of a chi-square homogeneity test, sparse bins merged."""
    na, nb = sum(a.values()), sum(b.values())
    bins: list[tuple[int, int]] = []
    ca = cb = 0
    for key in sorted(set(a) | set(b)):
        ca, cb = ca + a.get(key, 0), cb + b.get(key, 0)
        if (ca + cb) * min(na, nb) / (na + nb) >= min_expected:
            bins.append((ca, cb))
            ca = cb = 0
    if ca + cb:
        if bins:
            last = bins.pop()
            bins.append((last[0] + ca, last[1] + cb))
        else:
            bins.append((ca, cb))
    stat = 0.0
    for x, y in bins:
        total = x + y
        for observed, n in ((x, na), (y, nb)):
            expected = total * n / (na + nb)
            stat += (observed - expected) ** 2 / expected
    df = max(1, len(bins) - 1)
    z = 3.09  # one-sided 0.1 %, Wilson–Hilferty
    critical = df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3
    return stat, critical


def _pure_rounds(sim: DuelSimulator, duels: int, seed: int) -> dict[int, int]:
    """Decided duels by last round, one pure duel at a time."""
    rng = random.Random(seed)
    out: dict[int, int] = {}
    for _ in range(duels):
        t = sim.run(1, rng)
        if t.wins[0] + t.wins[1]:
            out[t.rounds_total] = out.get(t.rounds_total, 0) + 1
    return out


@pytest.mark.parametrize(
    ("cc_a", "combat_ws", "exact"),
    [
        (30, False, Fraction(213, 1000)),  # seed: 0.3 × 0.7 = 0.21 per round, about 5 rounds
        (30, True, Fraction(51, 200)),  # seed: 0.5 × 0.5 = 0.25, 4 rounds
        (45, False, Fraction(159, 500)),  # seed: 45 against 30, about 3 rounds before …
        (45, True, Fraction(213, 500)),  # … and about 2 with the combat WS
    ],
)
def test_the_seed_authors_figures_with_the_fast_sampler(
    tables: CombatTables, cc_a: int, combat_ws: bool, exact: Fraction
) -> None:
    """One attack against one parry: P(a hit not parried) per round, and the wait for it.

    Without parry side effects nothing changes the defender before the first hit, so the round of
    the first hit is exactly geometric.
    """
    options = Options(combat_ws=combat_ws, one_sided=True, parry_side_effects=False)
    sim = DuelSimulator(tables, fighter("a", cc_a), fighter("b", 30), options)
    p = sim.hit_probability(0)
    assert p == exact
    tally = FastSampler(sim).run(50_000, 11)
    assert tally.duels == 50_000 and tally.first_hit_count[0] == tally.duels
    mean = tally.first_hit_sum[0] / tally.first_hit_count[0]
    sd = math.sqrt(1 - float(p)) / float(p)  # of a geometric number of rounds
    assert abs(mean - 1 / float(p)) < Z * sd / math.sqrt(tally.duels)


@pytest.mark.parametrize(
    ("a", "b", "combat_ws"),
    [
        (fighter("a", 45, "epee", F=35, E=40, BE=7), fighter("b", 30, "hache_pic", FM=25), True),
        (fighter("a", 40, "epee"), fighter("b", 40, "epee"), True),
        (fighter("a", 45, "morgenstern"), fighter("b", 30, "morgenstern"), False),
        (fighter("a", 35, "epee", A=2), fighter("b", 45, "dague"), True),
    ],
    ids=["epee-vs-hache", "even", "morgenstern-plain", "two-attacks"],
)
def test_the_fast_sampler_agrees_with_the_pure_sampler(
    tables: CombatTables, a: Fighter, b: Fighter, combat_ws: bool
) -> None:
    options = Options(combat_ws=combat_ws)
    pure_sim = DuelSimulator(tables, a, b, options)
    pure = pure_sim.run(20_000, random.Random(3))
    sampler = FastSampler(DuelSimulator(tables, a, b, options))
    fast = sampler.run(60_000, 4)
    assert fast.duels == 60_000 and fast.wins[0] + fast.wins[1] + fast.draws == fast.duels
    n1, n2 = fast.duels, pure.duels
    for side in (0, 1):
        assert _within(fast.wins[side] / n1, n1, pure.wins[side] / n2, n2)
        assert _within(fast.first_hit_count[side] / n1, n1, pure.first_hit_count[side] / n2, n2)
    assert _within(fast.draws / n1, n1, pure.draws / n2, n2)
    dead_f, dead_p = fast.outs.get("dead", 0), pure.outs.get("dead", 0)
    assert _within(dead_f / n1, n1, dead_p / n2, n2)
    for side in (0, 1):  # the distribution of critical values dealt
        if sum(pure.criticals[side].values()) >= 200:
            stat, critical = _chi2_homogeneous(fast.criticals[side], pure.criticals[side])
            assert stat < critical, (side, stat, critical)
    # the distribution of the duel's length (pure duels one at a time, for their histogram)
    stat, critical = _chi2_homogeneous(sampler.rounds_histogram, _pure_rounds(pure_sim, 6_000, 5))
    assert stat < critical, (stat, critical)
    assert sum(sampler.rounds_histogram.values()) == fast.wins[0] + fast.wins[1]
    assert sum(r * c for r, c in sampler.rounds_histogram.items()) == fast.rounds_total


def test_a_different_matchup_is_told_apart(tables: CombatTables) -> None:
    """The criteria above can fail: 45 against 30 is not 40 against 30."""
    pure = DuelSimulator(tables, fighter("a", 40), fighter("b", 30)).run(10_000, random.Random(3))
    fast = FastSampler(DuelSimulator(tables, fighter("a", 45), fighter("b", 30))).run(30_000, 4)
    assert not _within(fast.wins[0] / fast.duels, fast.duels, pure.wins[0] / pure.duels, pure.duels)


def test_the_tables_are_the_cores(tables: CombatTables) -> None:
    """Ticks against the core's tick, profiles against a Combatant, alias tables against the exact
    distributions they were built from."""
    a = fighter("a", 45, "epee", F=35, E=40, BE=7)
    b = fighter("b", 30, "hache_pic", FM=25)
    sim = DuelSimulator(tables, a, b)
    sampler = FastSampler(sim)
    sampler.run(20_000, 1)
    # every condition the sampler ticked: the core's end-of-round tick of that condition alone
    ticked = 0
    for cell in range(1, len(sim._cond_list) + 1):
        if sampler.code[cell] < 0:
            continue
        ticked += 1
        result = tick((sim._cond_list[cell - 1],), "end_of_round")
        kept = [condition_key(c) for c in result.conditions]
        nxt = int(sampler.next[cell])
        assert kept == ([condition_key(sim._cond_list[nxt - 1])] if nxt else [])
        prompt = int(sampler.prompt[cell])
        if not result.prompts:
            assert prompt == 0
        elif result.prompts[0].kind == "death_timer_expired":
            assert prompt == -1
        else:
            assert condition_key(sim._cond_list[prompt - 1]) == condition_key(result.prompts[0].condition)
    assert ticked > 20
    # profiles of states the pure sampler reached: the sampler's hashes give the core's stats
    sim.run(3_000, random.Random(2))
    checked = 0
    for side, fighter_ in enumerate(sim.fighters):
        for state in list(sim._info[side])[:1500]:
            eid = sampler.profile_of(side, state)
            c = Combatant(
                id="ab"[side],
                name=fighter_.name,
                characteristics=fighter_.characteristics,
                talents=fighter_.talents,
                posture=fighter_.posture,
                conditions=tuple(sim._cond_list[cid] for cid in state),
                npc=fighter_.npc,
            )
            if eid == -1:
                assert c.has("dead", "unconscious")
                continue
            eff = sim._effs[eid]
            assert not eff.out and not c.has("dead", "unconscious")
            assert (eff.cc, eff.ag, eff.f, eff.bf, eff.be) == tuple(
                c.stat(s) for s in ("CC", "Ag", "F", "BF", "BE")
            )
            assert eid == sim.info(side, state)[0]
            checked += 1
    assert checked > 300
    # alias tables draw the simulator's exact distributions
    compared = 0
    for dist, aid in sampler._alias_of.values():
        drawn = sampler.alias.weights(aid)
        payloads = [
            int(sampler.alias.payload[i])
            for i in range(
                int(sampler.alias.offset[aid]), int(sampler.alias.offset[aid]) + int(sampler.alias.width[aid])
            )
        ]
        exact: dict[int, float] = {}
        for (w, _item), payload in zip(dist.pairs(), payloads, strict=True):
            exact[payload] = exact.get(payload, 0.0) + w / dist.total
        assert drawn.keys() == exact.keys()
        assert all(math.isclose(drawn[k], exact[k], rel_tol=1e-9, abs_tol=1e-12) for k in exact)
        compared += 1
    assert compared > 50


def test_symmetric_matchup_is_even_and_seeded_runs_repeat(tables: CombatTables) -> None:
    sampler = FastSampler(DuelSimulator(tables, fighter("a", 40, "epee"), fighter("b", 40, "epee")))
    tally = sampler.run(50_000, 1)
    decided = tally.wins[0] + tally.wins[1]
    assert abs(tally.wins[0] / decided - 0.5) <= Z * 0.5 / math.sqrt(decided)
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
    # a deadline already passed (a cold request spent it building tables) still runs the first
    # batch, and no more: never « 0 duels » (#25)
    stopped = sampler.run(1_000_000, 1, deadline=0.0, clock=lambda: 1.0)
    assert stopped.stopped_by_time and stopped.duels == FIRST_BATCH
    ticks = iter(range(1_000_000))  # the first batch always completes; a later one is dropped whole
    partial = sampler.run(1_000_000, 1, deadline=3.0, clock=lambda: float(next(ticks)))
    assert partial.stopped_by_time and 0 < partial.duels < 1_000_000
    capped = sampler.run(5_000, 2, deadline=1e18)
    assert capped.duels == 5_000 and not capped.stopped_by_time


def test_the_service_runs_the_fast_path_by_default(tables: CombatTables) -> None:
    a, b = fighter("a", 45), fighter("b", 30)
    assert svc.FAST_AVAILABLE and svc.USE_FAST_PATH
    sim, fast = svc.run_duels(tables, a, b, 20_000, Options(), rng=random.Random(1), budget=60.0)
    assert isinstance(svc._SAMPLERS.get(id(sim)), FastSampler)
    _, pure = svc.run_duels(tables, a, b, 5_000, Options(), rng=random.Random(1), budget=60.0, fast=False)
    assert isinstance(fast, Tally) and fast.duels == 20_000 and pure.duels == 5_000
    assert _within(fast.wins[0] / fast.duels, fast.duels, pure.wins[0] / pure.duels, pure.duels)
