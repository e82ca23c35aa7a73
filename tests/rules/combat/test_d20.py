"""`d20` combat (seed 003): the attack/defence cases, armour, ranged, artillery and a scripted fight."""

from __future__ import annotations

import pytest

from bot.rules.combat.basics import Refusal
from bot.rules.combat.state import Combatant, FightState
from bot.rules.d20 import checks as d20_checks
from bot.rules.d20.combat import (
    BrawlLocation,
    Case,
    Context,
    DefenceKind,
    Manoeuvre,
    Melee,
    Protection,
    air_hit,
    artillery_scatter,
    blunt_blow,
    brawl_shock,
    burst_hits,
    burst_modifier,
    compare,
    covering_fire,
    edged_blow,
    health_of,
    pc_max,
    pv_max,
    ranged_modifiers,
    read_table,
    record_health,
    resolve_armour,
    resolve_impact,
    resolve_melee,
    take_damage,
)

# Attack score 14, defence score 12: MR = score − roll, failure margin = roll − score.
CASES = [
    # att roll, def roll, case, damage index, attacker malus, initiative to defender, only retreat
    (4, 7, Case.ATTACKER_HIGHER, 5, 0, False, False),  # MR 10 > MR 5 → 10 − 5
    (10, 3, Case.ATTACKER_LOWER, None, -5, True, False),  # MR 4 < MR 9 → −(9 − 4)
    (8, 6, Case.EQUAL, None, 0, False, True),  # MR 6 = MR 6 → blocked
    (14, 12, Case.EQUAL, None, 0, False, True),  # MR 0 = MR 0 (0 is a success)
    (9, 15, Case.DEFENCE_FAILS, 8, 0, False, False),  # MR 5 + failure margin 3
    (1, 13, Case.DEFENCE_FAILS, 14, 0, False, False),  # critical 1: MR 13 + 1
    (17, 8, Case.ATTACK_FAILS, None, -7, False, False),  # failure margin 3 + MR 4
    (20, 12, Case.ATTACK_FAILS, None, -6, False, False),  # a 20 fails by 6, + MR 0
    (16, 13, Case.BOTH_FAIL, None, 0, False, False),  # nothing happens
]


@pytest.mark.parametrize(("att", "def_", "case", "index", "malus", "initiative", "retreat"), CASES)
def test_four_cases(
    att: int, def_: int, case: Case, index: int | None, malus: int, initiative: bool, retreat: bool
) -> None:
    exchange = compare(d20_checks.check(14, roll=att), d20_checks.check(12, roll=def_))
    assert exchange.case is case
    assert exchange.damage_index == index and exchange.hit == (index is not None)
    assert exchange.attacker_malus == malus
    assert exchange.initiative_to_defender is initiative and exchange.only_retreat is retreat
    # Every number is recomputable from the itemised terms.
    if index is not None:
        assert sum(t.value for t in exchange.terms) == index
    elif malus:
        assert -sum(t.value for t in exchange.terms) == malus
    assert exchange.to_dict()["case"] == case.value


def test_undefended_reads_attacker_mr_and_server_table() -> None:
    exchange = compare(
        d20_checks.check(14, roll=5), None, damage_table={0: "éraflure", 5: "plaie", 9: "grave"}
    )
    assert (exchange.case, exchange.damage_index, exchange.damage) == (Case.UNDEFENDED, 9, "grave")
    assert read_table({3: "a", 6: "b"}, 1) == "a" and read_table({3: "a", 6: "b"}, 5) == "a"
    assert read_table(None, 4) is None


def test_feint_and_botte() -> None:
    # Feint: attack 15 − 5 = 10, roll 6 → MR 4; it succeeded, so the parry is 13 − 10 = 3.
    feint = resolve_melee(15, 13, manoeuvre=Manoeuvre.FEINT, attack_roll=6, defence_roll=5)
    assert isinstance(feint, Melee)
    assert feint.exchange.attack.target == 10 and feint.exchange.defence is not None
    assert feint.exchange.defence.target == 3
    # Botte: no malus; the parry is at −15.
    botte = resolve_melee(15, 18, manoeuvre=Manoeuvre.BOTTE, attack_roll=6, defence_roll=2)
    assert isinstance(botte, Melee) and botte.exchange.attack.target == 15
    assert botte.exchange.defence is not None and botte.exchange.defence.target == 3
    # A failed feint inflicts nothing on the defence.
    missed = resolve_melee(15, 13, manoeuvre=Manoeuvre.FEINT, attack_roll=12, defence_roll=5)
    assert isinstance(missed, Melee) and missed.exchange.defence is not None
    assert missed.exchange.defence.target == 13


@pytest.mark.parametrize(
    ("context", "kind", "target", "next_malus", "riposte"),
    [
        (Context.BRAWL, DefenceKind.DODGE, 12, -5, False),
        (Context.BRAWL, DefenceKind.PARRY, 7, 0, True),
        (Context.THROWN, DefenceKind.DODGE, -3, 0, False),
        (Context.ARROW, DefenceKind.PARRY, -8, 0, False),
    ],
)
def test_defence_rules(
    context: Context, kind: DefenceKind, target: int, next_malus: int, riposte: bool
) -> None:
    result = resolve_melee(10, 12, context=context, defence_kind=kind, attack_roll=15, defence_roll=1)
    assert isinstance(result, Melee) and result.exchange.defence is not None
    assert result.exchange.defence.target == target
    assert result.defender_next_action_malus == next_malus and result.riposte is riposte


def test_defence_refusals() -> None:
    fired = resolve_melee(10, 12, context=Context.FIRED, attack_roll=5, defence_roll=5)
    assert isinstance(fired, Refusal)
    bare = resolve_melee(10, 12, bare_hands_defender=True, attack_roll=5, defence_roll=5)
    assert isinstance(bare, Refusal)


@pytest.mark.parametrize(
    ("location", "die", "critical", "shock"),
    [
        (BrawlLocation.HEAD, 7, False, 15),  # BF 2 + 1d10 7 + MR 5 + bonus 1
        (BrawlLocation.TORSO, 4, False, 12),  # 2 + 1d6 4 + 5 + 1
        (BrawlLocation.LIMB, 4, False, 6),  # (2 + 4 + 5 + 1) / 2
        (BrawlLocation.LIMB, 3, False, 5),  # 11 / 2 rounded down
        (BrawlLocation.TORSO, 4, True, 24),  # critical: double shock
    ],
)
def test_brawl_shock(location: BrawlLocation, die: int, critical: bool, shock: int) -> None:
    assert brawl_shock(location, 2, 5, 1, critical=critical, die=die).shock == shock


def test_edged_and_blunt_blows_through_armour() -> None:
    blow = edged_blow(3, 6, 2, exchange_index=4)  # pen 3 + 6 + 2 = 11; shock 11 / 2 = 5; index 4 + 3
    assert (blow.penetration, blow.shock, blow.damage_index) == (11, 5, 7)
    layers = (Protection("cuir", 5, 3, 12), Protection("maille", 6, 4, 40))
    armour = resolve_armour(blow, layers)
    first, second = armour.layers
    assert first.pierced and first.ruptured and (first.penetration_out, first.shock_out) == (6, 2)
    assert not second.pierced and second.penetration_out == 0 and second.shock_out == 0  # 6 > 6 is false
    assert not armour.penetrated and armour.penetration == 0 and armour.shock == 0
    blunt = blunt_blow(2, 5, 3, die=12)  # pen 2 + 5 + 3/2 = 8; shock 2 + 5 + 3 + 12 = 22
    assert (blunt.penetration, blunt.shock) == (8, 22)
    hit = resolve_armour(blunt, (Protection("cuir", 6, 5, 20),), blunt=True, body_sr=15)
    [layer] = hit.layers
    assert layer.pierced and layer.ruptured and layer.blunt_rupture
    assert (hit.penetration, hit.shock, hit.fracture) == (2, 17, True)


def test_pools_and_death() -> None:
    assert (pv_max(10), pc_max(10)) == (45, 20)
    hurt = take_damage(10, pc=25, pv=3)  # 5 shock beyond 20 → PV
    assert (hurt.pc_lost, hurt.overflow_to_pv, hurt.pv_lost, hurt.dead) == (20, 5, 8, False)
    assert hurt.malus == -(8 + 20 - 10)
    assert take_damage(10, pv_lost=40, pv=5).dead  # 45 lost = 35 + Con
    assert take_damage(10, pv=9).malus == 0


@pytest.mark.parametrize(
    ("roll", "zone_roll", "exact", "die", "zone"),
    [(2, None, True, None, "thorax"), (7, 4, False, 6, "épaule"), (12, 17, False, 20, "raté")],
)
def test_impact_bands(roll: int, zone_roll: int | None, exact: bool, die: int | None, zone: str) -> None:
    table = {1: "thorax", 3: "épaule", 6: "abdomen", 15: "raté"}
    shot = d20_checks.check(14, roll=roll)  # MR 12, 7, 2
    impact = resolve_impact(
        shot, "thorax", weapon_modifier=2, effective_locations=table, zone_roll=zone_roll, damage_roll=9
    )
    assert impact is not None and (impact.exact, impact.die, impact.zone) == (exact, die, zone)
    assert impact.damage_index == 11  # d20 9 + weapon 2
    assert resolve_impact(d20_checks.check(14, roll=16), "thorax") is None


def test_ranged_modifiers_and_burst_and_covering() -> None:
    mods = ranged_modifiers(["instinctif", "tres_faible_lumiere", "appui_epaule"])
    assert [m.value for m in mods] == [-4, -8, 4]
    with pytest.raises(ValueError):
        ranged_modifiers(["faible_lumiere", "obscurite_totale"])
    assert burst_modifier(targets=8).value == -8  # the seed's example
    several = burst_hits(d20_checks.check(12, roll=3), targets=3, dice=[4, 1, 3])
    assert several.bullets_hitting == (2, 0, 1)  # 1d4 − 2, never below 0
    single = burst_hits(d20_checks.check(12, roll=3), bullets=25, dice=[5, 3])
    assert single.test_modifier == 4 and single.bullets_hitting == (8,)  # two tens: +2 × 2, 2d6
    assert burst_hits(d20_checks.check(12, roll=15), targets=3).bullets_hitting == ()
    assert covering_fire(15, roll=15) == (15, True) and covering_fire(15, roll=16) == (16, False)


def test_artillery_scatter_and_air_hits() -> None:
    assert artillery_scatter(d20_checks.check(14, roll=3)) is not None
    exact = artillery_scatter(d20_checks.check(14, roll=3))  # MR 11
    assert exact is not None and exact.on_target and exact.metres == 0
    near = artillery_scatter(d20_checks.check(14, roll=8), direction_roll=13, distance_roll=4)  # MR 6, d6
    assert near is not None and (near.direction, near.distance_die, near.metres) == ("right", 6, 8)
    far = artillery_scatter(d20_checks.check(14, roll=12), direction_roll=18, distance_roll=14)  # MR 2, d20
    assert far is not None and (far.direction, far.distance_die, far.metres) == ("behind", 20, 27)
    printed = artillery_scatter(
        d20_checks.check(14, roll=12), distance_as_printed=True, direction_roll=1, distance_roll=6
    )
    assert printed is not None and (printed.direction, printed.distance_die, printed.metres) == (
        "front",
        6,
        12,
    )
    assert air_hit(d20_checks.check(14, roll=2)) == (None, True)  # MR 12
    assert air_hit(d20_checks.check(14, roll=8), roll=5) == (5, False)  # MR 6, d6 5 misses
    assert air_hit(d20_checks.check(14, roll=12), roll=19) == (19, True)  # MR 2, d20 19 hits


def test_scripted_exchange() -> None:
    """Aldo (Escrime 15, Esquive 12, BF 2, sword +3, Con 12) and Bert (Parade 13, Esquive 12, Con 12,
    leather RP 4 / RC 2 / SR 20). The server's damage table maps indexes to PV lost."""
    damage_table = {0: 0, 3: 4, 6: 8, 9: 12, 12: 20}
    aldo = Combatant("aldo", "Aldo", {"Con": 12})
    bert = Combatant("bert", "Bert", {"Con": 12})
    state = FightState(combatants=(aldo, bert))

    # 1. Aldo feints: 15 − 5 = 10, rolls 6 → MR 4. Bert parries at 13 − 10 = 3, rolls 5 → fails by 2.
    one = resolve_melee(
        15, 13, manoeuvre=Manoeuvre.FEINT, attack_roll=6, defence_roll=5, damage_table=damage_table
    )
    assert isinstance(one, Melee) and one.exchange.case is Case.DEFENCE_FAILS
    assert one.exchange.damage_index == 6  # MR 4 + failure margin 2
    # Edged: penetration 3 + 4 + 2 = 9 > RP 4; shock 9 / 2 = 4 − RC 2 = 2 PC; index 6 + 3 = 9 → 12 PV.
    blow = edged_blow(3, one.exchange.attack.margin, 2, exchange_index=one.exchange.damage_index)
    assert (blow.penetration, blow.shock, blow.damage_index) == (9, 4, 9)
    armour = resolve_armour(blow, (Protection("cuir", 4, 2, 20),))
    assert armour.penetrated and (armour.penetration, armour.shock) == (5, 2)
    assert not armour.layers[0].ruptured  # 9 + 4 = 13 ≤ SR 20
    pv = read_table(damage_table, blow.damage_index or 0)
    assert pv == 12
    health = take_damage(12, pv=pv, pc=armour.shock)
    assert (health.pv_lost, health.pc_lost, health.malus) == (12, 2, -2)  # 14 lost − Con 12
    state = state.put(record_health(state.get("bert"), health))
    assert health_of(state.get("bert")) == health

    # 2. Bert strikes back at 13 − 2 (wounds) = 11, rolls 9 → MR 2; Aldo parries at 15, rolls 5 → MR 10.
    wound = d20_checks.wound_malus(12, 2, 12)
    two = resolve_melee(
        13, 15, attack_roll=9, defence_roll=5, attack_modifiers=[d20_checks.Modifier("w", wound)]
    )
    assert isinstance(two, Melee) and two.exchange.attack.target == 11
    assert two.exchange.case is Case.ATTACKER_LOWER
    assert two.exchange.attacker_malus == -8 and two.exchange.initiative_to_defender  # −(10 − 2)

    # 3. Aldo takes the initiative, a brawl punch to the torso: 15, rolls 1 → critical, MR 14.
    #    Bert dodges at 12 − 2 = 10, rolls 11 → fails by 1 (index 15); his next action is at −5.
    three = resolve_melee(
        15,
        12,
        context=Context.BRAWL,
        defence_kind=DefenceKind.DODGE,
        attack_roll=1,
        defence_roll=11,
        defence_modifiers=[d20_checks.Modifier("w", wound)],
    )
    assert isinstance(three, Melee) and three.exchange.attack.critical_success
    assert three.exchange.damage_index == 15 and three.defender_next_action_malus == -5
    # Shock: BF 2 + 1d6 4 + MR 14 = 20, doubled by the critical → 40 PC.
    shock = brawl_shock(BrawlLocation.TORSO, 2, three.exchange.attack.margin, critical=True, die=4)
    assert shock.shock == 40
    # PC 2 + 40 = 42 > Con × 2 = 24: 18 go to PV → 12 + 18 = 30 PV lost (dead at 47).
    health = take_damage(12, pv_lost=health.pv_lost, pc_lost=health.pc_lost, pc=shock.shock)
    assert (health.pc_lost, health.overflow_to_pv, health.pv_lost, health.dead) == (24, 18, 30, False)
    assert health.malus == -(30 + 24 - 12)
    state = state.put(record_health(state.get("bert"), health))
    assert health_of(state.get("bert")).pv_lost == 30
    assert FightState.from_dict(state.to_dict()) == state
