"""The duel simulator: exact tables from the combat core, the seed author's figures, the sampler."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from bot.data_loading import load_all
from bot.rules.combat.effects import apply_mechanics, tick
from bot.rules.combat.tables import CombatTables
from bot.rules.renove.damage import roll_damage_die
from bot.rules.renove.simulation import (
    MIN_DUELS,
    DuelSimulator,
    Fighter,
    Options,
    condition_key,
    effect_distribution,
    enumerate_dice,
    simulate,
    wilson,
)

PLAIN = "fauchon_messer_braquemart"  # Vicelarde only: no attribute changes a parry


@pytest.fixture(scope="module")
def tables() -> CombatTables:
    return CombatTables.from_documents({name: t.document for name, t in load_all().items()})


def fighter(name: str, cc: int, **kw: object) -> Fighter:
    stats = {"CC": cc, "F": 30, "E": 30, "Ag": 30, "A": 1, "BF": 6, "BE": 6, "FM": 30}
    return Fighter(name, stats, str(kw.pop("weapon", PLAIN)), **kw)  # type: ignore[arg-type]


def test_enumeration_walks_every_dice_path(tables: CombatTables) -> None:
    sword = tables.weapon("morgenstern")  # Percutante: 2d10, keep the best
    dist = enumerate_dice(lambda src: roll_damage_die(tables, sword, rng=src).value)
    assert len(dist) == 100 and math.isclose(sum(w for w, _ in dist), 1.0)
    p10 = sum(w for w, v in dist if v == 10)
    assert math.isclose(p10, 19 / 100)


@pytest.mark.parametrize(
    ("cc_a", "combat_ws", "exact", "seed", "rounds"),
    [
        # Seed lines 92-93: "0.3*0.7 = 0.21 chances de toucher à chaque round", "5 rounds" (plain).
        (30, False, Fraction(213, 1000), 0.21, 5),
        # Seed lines 113-114: combat WS 50 against 50, "0.5*0.5 = 0.25", "4 rounds pour toucher".
        (30, True, Fraction(51, 200), 0.25, 4),
        # Seed lines 116-121: 45 against 30, "3 rounds pour toucher" before, "2 rounds" after.
        (45, False, Fraction(159, 500), 0.45 * 0.7, 3),
        (45, True, Fraction(213, 500), 0.65 * 0.65, 2),
    ],
)
def test_the_seed_authors_figures(
    tables: CombatTables, cc_a: int, combat_ws: bool, exact: Fraction, seed: float, rounds: int
) -> None:
    """P(a hit that is not parried) per round (one attack against one parry), exact and simulated.

    The exact figure is the seed's product plus the 01 rule: a natural 01 hits and cannot be
    parried (0.01 × P(parry)). "Rounds to hit" is 1/p: 4.69 and 3.92 at 30 against 30 (the seed
    rounds 1/0.21 to 5 and 1/0.25 to 4); 3.14 and 2.35 at 45 against 30 (the seed's "3" and "2").
    """
    sim = DuelSimulator(
        tables, fighter("a", cc_a), fighter("b", 30), Options(combat_ws=combat_ws, one_sided=True)
    )
    p = sim.hit_probability(0)
    assert p == exact
    assert abs(float(p) - seed) <= 0.01 * (1 - seed) + 1e-12  # the 01 that cannot be parried
    assert round(1 / float(p)) == rounds
    tally = sim.run(20_000, random.Random(11))
    assert tally.first_hit_count[0] == tally.duels
    mean = tally.first_hit_sum[0] / tally.first_hit_count[0]
    sd = math.sqrt(1 - float(p)) / float(p)  # geometric number of rounds
    assert abs(mean - 1 / float(p)) < 4 * sd / math.sqrt(tally.duels)


def test_plain_wfrp_and_combat_ws_at_equal_skill(tables: CombatTables) -> None:
    plain = DuelSimulator(tables, fighter("a", 30), fighter("b", 30), Options(combat_ws=False))
    ws = DuelSimulator(tables, fighter("a", 30), fighter("b", 30), Options(combat_ws=True))
    assert plain.hit_probability(0) == plain.hit_probability(1) == Fraction(213, 1000)
    assert ws.hit_probability(0) == Fraction(51, 200)


def test_tick_treats_conditions_one_by_one(tables: CombatTables) -> None:
    """The sampler memoises the core's tick per condition: check that it is elementwise."""
    rng = random.Random(3)
    for value in range(1, 16):
        entry = tables.critical("tranchantes", "corps", value)
        app = apply_mechanics(entry.mechanics, {"E": 30, "BE": 6, "FM": 30}, source=entry.source, rng=rng)
        whole = tick(app.conditions)
        parts = [tick((c,)) for c in app.conditions]
        assert [condition_key(c) for c in whole.conditions] == [
            condition_key(c) for part in parts for c in part.conditions
        ]
        assert [p.kind for p in whole.prompts] == [p.kind for part in parts for p in part.prompts]


@pytest.mark.parametrize(("zone", "value"), [("corps", 7), ("tete", 10), ("jambes", 5)])
def test_effect_distribution_matches_the_core_sampled(tables: CombatTables, zone: str, value: int) -> None:
    entry = tables.critical("tranchantes", zone, value)
    stats = {"E": 35, "BE": 6, "FM": 30, "Ag": 30}
    exact = effect_distribution(entry.mechanics, stats, entry.source)
    assert math.isclose(sum(w for w, _, _ in exact), 1.0)
    p_no_action = sum(w for w, conds, _ in exact if any(c.kind in ("lose_time", "no_action") for c in conds))
    rng = random.Random(5)
    n = 4000
    hits = 0
    for _ in range(n):
        app = apply_mechanics(entry.mechanics, stats, source=entry.source, rng=rng)
        hits += any(c.kind in ("lose_time", "no_action") for c in app.conditions)
    assert abs(hits / n - p_no_action) < 4 * math.sqrt(max(p_no_action * (1 - p_no_action), 1e-4) / n) + 1e-9


def test_symmetric_duels_are_even_and_seeded_runs_repeat(tables: CombatTables) -> None:
    a, b = fighter("a", 40, weapon="epee"), fighter("b", 40, weapon="epee")
    _, tally = simulate(tables, a, b, 20_000, rng=random.Random(1))
    low, high = wilson(tally.wins[0], tally.duels)
    assert tally.duels == 20_000 and low < 0.5 * (1 - tally.draws / tally.duels) + 0.02 and high > 0.45
    assert abs(tally.wins[0] - tally.wins[1]) < 5 * math.sqrt(tally.duels)
    assert sum(tally.criticals[0].values()) > 0 and set(tally.criticals[0]) <= set(range(1, 16))
    _, again = simulate(tables, a, b, 2_000, rng=random.Random(9))
    _, same = simulate(tables, a, b, 2_000, rng=random.Random(9))
    assert (again.wins, again.draws, again.rounds_total) == (same.wins, same.draws, same.rounds_total)


def test_the_better_fighter_wins_more_and_sooner_with_combat_ws(tables: CombatTables) -> None:
    a, b = fighter("a", 45), fighter("b", 30)
    _, plain = simulate(tables, a, b, 10_000, options=Options(combat_ws=False), rng=random.Random(2))
    _, ws = simulate(tables, a, b, 10_000, options=Options(combat_ws=True), rng=random.Random(2))
    assert ws.wins[0] / ws.duels > plain.wins[0] / plain.duels > 0.5
    assert ws.rounds_total / (ws.wins[0] + ws.wins[1]) < plain.rounds_total / (plain.wins[0] + plain.wins[1])


def test_postures_come_from_the_core(tables: CombatTables) -> None:
    defensive = DuelSimulator(tables, fighter("a", 40), fighter("b", 40, posture="defensive"))
    assert defensive.hit_probability(1) == 0  # no attack in the defensive posture
    suicidal = DuelSimulator(
        tables, fighter("a", 40), fighter("b", 40, posture="suicidaire", posture_option="attaque")
    )
    assert suicidal.hit_probability(0) == Fraction(1, 2)  # no parry: every hit at 50 lands


def test_bounded_in_time(tables: CombatTables) -> None:
    sim = DuelSimulator(tables, fighter("a", 40), fighter("b", 40))
    # a deadline already passed still runs the first MIN_DUELS, and no more: never « 0 duels » (#25)
    tally = sim.run(1_000_000, random.Random(1), deadline=0.0, clock=lambda: 1.0)
    assert tally.stopped_by_time and tally.duels == MIN_DUELS


def test_wilson_interval() -> None:
    low, high = wilson(50, 100)
    assert math.isclose(low, 0.4038, abs_tol=1e-3) and math.isclose(high, 0.5962, abs_tol=1e-3)
    assert wilson(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("cc_a", "cc_b", "weapon"), [(45, 30, "epee"), (5, 90, "dague"), (95, 20, "morgenstern")]
)
def test_attack_roll_classes_match_the_100_rolls(
    tables: CombatTables, cc_a: int, cc_b: int, weapon: str
) -> None:
    """The sampler calls resolve_attack once per class of renove results: same groups as 100 calls."""
    from bot.rules.renove.attack import AttackRequest, resolve_attack

    sim = DuelSimulator(tables, fighter("a", cc_a, weapon=weapon), fighter("b", cc_b))
    ea = sim._effs[sim.info(0, ())[0]]
    eb = sim._effs[sim.info(1, ())[0]]
    fast = {
        (None if r is None else (r.zone, r.natural, r.cannot_parry)): n
        for n, r in sim._signatures(0, ea, eb, 1)
    }
    request = AttackRequest(tables.weapon(weapon), cc_a, cc_b)
    full: dict[object, int] = {}
    for roll in range(1, 101):
        res = resolve_attack(tables, request, attack_roll=roll)
        k = None if not res.hit else (res.zone, res.natural, res.cannot_parry)
        full[k] = full.get(k, 0) + 1
    assert fast == full


@pytest.mark.parametrize(
    ("talents", "attack", "parry_against", "even_with_ag"),
    [
        # A mail shirt (chemise de mailles: body covered, arms covered in full): -5 Ag, -5 CC/CT
        # (seed l. 773-777). Attack 50 - 5 = 45 %: 01 + 44 rolls parried at 50 %; parrying at 45 %:
        # 01 + 49 rolls parried at 45 % … P(not parried) 55 %. Initiative 3d20 + Ag 65.
        (
            (),
            Fraction(1, 100) + Fraction(44, 100) * Fraction(1, 2),
            Fraction(1, 100) + Fraction(49, 100) * Fraction(55, 100),
            65,
        ),
        # Robuste cancels 5 Ag and 5 CC (l. 1293-1295): as if unarmoured.
        (("robuste",), Fraction(51, 200), Fraction(51, 200), 70),
    ],
)
def test_the_armours_wearing_maluses_apply_in_a_duel(
    tables: CombatTables,
    talents: tuple[str, ...],
    attack: Fraction,
    parry_against: Fraction,
    even_with_ag: int,
) -> None:
    from bot.rules.renove.damage import build_armour

    mail = build_armour(tables, ["maille_chemise"])
    stats = {"CC": 50, "F": 30, "E": 30, "Ag": 70, "A": 1, "BF": 6, "BE": 6, "FM": 30}
    worn = Fighter("Albert", stats, PLAIN, mail, frozenset(talents))
    bare = Fighter("Orque", {**stats, "Ag": even_with_ag}, PLAIN)
    attacking = DuelSimulator(tables, worn, bare, Options(one_sided=True))
    assert attacking.hit_probability(0) == attack
    defending = DuelSimulator(tables, bare, worn, Options(one_sided=True))
    assert defending.hit_probability(0) == parry_against
    # the initiative follows the Ag malus: 3d20 + 65 against 3d20 + 65 is even
    assert attacking._first == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("value", "out"), [(1, False), (7, False), (8, True), (12, True), (13, True), (15, True)]
)
def test_mort_subite_replaces_the_critical_tables_effects(
    tables: CombatTables, value: int, out: bool
) -> None:
    """Seed l. 1305-1310: an NPC under Mort subite fights on (1-7: no effect of the table at all),
    flees (8-12) or dies (13-15) — out of the duel either way."""
    npc = fighter("b", 30, npc=True)
    sim = DuelSimulator(tables, fighter("a", 30), npc, Options(mort_subite=True))
    pairs = sim.critical_effect(1, (), value, "tete").pairs()
    assert pairs == [(1.0, (sim.dead_id,) if out else ())]
    plain = DuelSimulator(tables, fighter("a", 30), npc, Options(mort_subite=False))
    assert plain.critical_effect(1, (), 7, "tete").pairs() != [(1.0, ())]  # the table applies without it
