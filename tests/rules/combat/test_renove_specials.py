"""Special actions that do not wound (seed 000 l. 989-1236): the talents they need, the opposed test
that replaces the damage, with the seed's numbers and dice typed by hand."""

from __future__ import annotations

import pytest

from bot.rules.combat.tables import CombatTables
from bot.rules.renove import specials
from bot.rules.renove.attack import AttackRequest, attack_refusal


class NoDice:
    """Every die is typed: the random source must not be used."""

    def randint(self, a: int, b: int) -> int:
        raise AssertionError("a die was rolled although every die was typed")

    def random(self) -> float:
        raise AssertionError("a die was rolled although every die was typed")


def test_the_data_says_which_special_actions_wound(tables: CombatTables) -> None:
    wounding = {sid for sid in tables.special_actions if specials.deals_damage(tables, sid)}
    assert {"coup_assommant", "desarmement", "frappe_de_bouclier"}.isdisjoint(wounding)
    assert {"coup_perforant", "par_dessus_les_defenses", "allonge_surprise"} <= wounding
    assert specials.deals_damage(tables, None)


@pytest.mark.parametrize(
    ("special", "weapon", "talents", "refused"),
    [
        ("coup_assommant", "gourdin", (), "coups_assommants"),  # « Nécessite "Coups assommants" »
        ("coup_assommant", "gourdin", ("coups_assommants",), None),
        ("desarmement", "gourdin", (), "desarmement"),  # « Nécessite "Désarmement" »
        ("desarmement", "gourdin", ("desarmement",), None),
    ],
)
def test_the_talent_a_special_action_needs(
    tables: CombatTables, special: str, weapon: str, talents: tuple[str, ...], refused: str | None
) -> None:
    request = AttackRequest(
        weapon=tables.weapon(weapon), base=50, opponent_cc=50, special=special, talents=frozenset(talents)
    )
    refusal = attack_refusal(tables, request)
    if refused is None:
        assert refusal is None
    else:
        assert refusal is not None and refusal.reason == "combat.refusal.special_needs_talent"
        assert dict(refusal.params)["talent"] == refused


@pytest.mark.parametrize(
    ("weapon", "f", "e", "pa", "rolls", "d10", "targets", "won", "rounds"),
    [
        # Gourdin (Assommante): F 45 +10 = 55 against E 35: 30 succeeds, 60 fails → stunned 4 rounds.
        ("gourdin", 45, 35, 0, (30, 60), 4, (55, 35), True, 4),
        # +5 % E per PA on the zone hit: 2 PA → E 45; both succeed, 2 °R against 4 °R → resisted.
        ("gourdin", 45, 35, 2, (30, 5), None, (55, 45), False, None),
        # A sword (not Assommante): F 45 alone; both fail (80, 90) → again: 10 against 50 → stunned 10.
        ("epee", 45, 35, 0, (80, 90, 10, 50), 10, (45, 35), True, 10),
    ],
)
def test_the_stunning_blow(
    tables: CombatTables,
    weapon: str,
    f: int,
    e: int,
    pa: int,
    rolls: tuple[int, ...],
    d10: int | None,
    targets: tuple[int, int],
    won: bool,
    rounds: int | None,
) -> None:
    test = specials.stun_blow(tables.weapon(weapon), f, e, pa, rng=NoDice(), rolls=rolls, duration_roll=d10)
    first = test.test.rounds[0]
    assert (first.a.target, first.b.target) == targets
    assert test.won is won and test.stunned_rounds == rounds
    assert len(test.test.rounds) == len(rolls) // 2


def test_the_stunning_blow_at_range_uses_the_weapons_bf(tables: CombatTables) -> None:
    """« A distance, F = (BF de l'arme – 3)*10 »: the sling's fixed 5 → F 20, whatever the shooter's
    F, +10 as the sling is Assommante → 30."""
    test = specials.stun_blow(
        tables.weapon("fronde"),
        70,
        30,
        0,
        rng=NoDice(),
        ranged=True,
        weapon_bf=5,
        rolls=(25, 50),
        duration_roll=3,
    )
    assert test.test.rounds[0].a.target == 30 and test.won and test.stunned_rounds == 3


@pytest.mark.parametrize(
    ("ag", "foe_ag", "rolls", "won"),
    [
        (40, 30, (15, 25), True),  # both succeed: 2 °R against 0 °R
        (40, 30, (45, 25), False),  # only the defender succeeds
        (40, 40, (20, 20, 10, 30), True),  # equal rolls: again
    ],
)
def test_the_disarm_is_an_opposed_ag_test(ag: int, foe_ag: int, rolls: tuple[int, ...], won: bool) -> None:
    test = specials.disarm(ag, foe_ag, rng=NoDice(), rolls=rolls)
    assert test.won is won and len(test.test.rounds) == len(rolls) // 2


@pytest.mark.parametrize(
    ("cc", "ws", "foe_cc", "foe_ws", "rolls", "fall", "won", "metres", "fell"),
    [
        # CC 50 vs 50: 15 (3 °R) beats 40 (1 °R): pushed 3 × 2 = 6 m; Ag 30 + 20 = 50: 62 falls.
        (50, 50, 50, 50, (15, 40), 62, True, 6, True),
        (50, 50, 50, 50, (15, 40), 50, True, 6, False),
        # combat WS 60 against 40 (CC 60 vs 40): 58 (0 °R) beats 45 failing: pushed 0 m, still tests.
        (60, 70, 40, 30, (68, 45), 20, True, 0, False),
        (50, 50, 50, 50, (60, 30), None, False, 0, False),
    ],
)
def test_the_manoeuvre(
    cc: int,
    ws: int,
    foe_cc: int,
    foe_ws: int,
    rolls: tuple[int, ...],
    fall: int | None,
    won: bool,
    metres: int,
    fell: bool,
) -> None:
    test = specials.manoeuvre(cc, ws, foe_cc, foe_ws, 30, rng=NoDice(), rolls=rolls, fall_roll=fall)
    assert test.won is won and test.metres == metres and test.fell is fell
    if won:
        assert test.fall is not None and test.fall.target == 50


def test_the_shield_bash_is_an_opposed_cc_test_at_plus_10() -> None:
    test = specials.shield_bash(40, 40, 50, 50, rng=NoDice(), rolls=(45, 48))
    assert test.test.rounds[0].a.target == 50  # CC 40 + 10
    assert test.won  # 45 (0 °R) and 48 (0 °R): the lower roll wins
    lost = specials.shield_bash(40, 40, 50, 50, rng=NoDice(), rolls=(55, 48))
    assert not lost.won
