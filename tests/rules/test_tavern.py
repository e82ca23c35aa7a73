"""Tavern games: every game with dice entered by hand, and random games always end."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bot.rules.checks.common import DiceError
from bot.rules.renove.tavern import (
    Dice,
    Drinker,
    Gambler,
    TavernError,
    Thrower,
    Wrestler,
    arm_wrestling,
    build_deck,
    card_combination,
    deal,
    deck_size,
    dice_combination,
    dice_hand,
    drinking,
    highest_roll,
    knife_throwing,
)

DATA = json.loads(
    (Path(__file__).resolve().parents[2] / "data" / "tavern_games.json").read_text(encoding="utf-8")
)
CARDS = next(e for e in DATA["entries"] if e["id"] == "cards_full")


def test_arm_wrestling_simple_rerolls_until_decided() -> None:
    result = arm_wrestling(
        Wrestler("a", 45), Wrestler("b", 40), full=False, dice=Dice(None, {"a": [90, 30], "b": [95, 35]})
    )
    assert len(result.rounds) == 2 and result.winner == "a"


def test_arm_wrestling_full_scores_to_two_and_carries_the_excess() -> None:
    # Round 1 both succeed (margins 35 and 10): A carries +25 S. Then A wins twice.
    result = arm_wrestling(
        Wrestler("a", 45),
        Wrestler("b", 40),
        full=True,
        dice=Dice(None, {"a": [10, 60, 20], "b": [30, 90, 90]}),
    )
    assert [r.winner for r in result.rounds] == [None, "a", "a"]
    assert result.rounds[1].a is not None and result.rounds[1].a.target == 70 and result.winner == "a"


# Cheating before a round (seed l. 1817-1818): Jeu opposed to the opponent's Perception, success
# +10 S that round, failure exposed. Each row: A's cheat rounds, B's cheat rounds, A's dice, B's
# dice (each player's dice in the order of play: their cheat's Jeu, their Perception against the
# other's cheat, then their S), expected: per round the cheats' outcomes, the S targets, the
# round winners, who is exposed, the final winner. A: F 40, Jeu 45, Per 30; B: F 40, Jeu 50, Per 35.
CHEAT_CASES = [
    # A cheats every round: Jeu 20 (2 °R) vs Per 60 (failed) → +10; S 45 under 50 vs B's 90.
    (
        (),
        None,
        [20, 45, 20, 45],
        [60, 90, 60, 90],
        [[("a", True)], [("a", True)]],
        [(50, 40), (50, 40)],
        ["a", "a"],
        (),
        "a",
    ),
    # B cheats before round 2 only: round 1 plain, round 2 B's Jeu 10 vs A's Per 20 (both
    # succeed, 4 °R vs 1 °R) → +10 for B, who wins that round and the next two: −2.
    (
        None,
        (2,),
        [30, 20, 90, 90, 90],
        [50, 10, 45, 20, 30],
        [[], [("b", True)], [], []],
        [(40, 40), (40, 50), (40, 40), (40, 40)],
        ["a", "b", "b", "b"],
        (),
        "b",
    ),
    # A cheats and is exposed (Jeu 80 fails, Per 10 succeeds): the match stops before the S tests.
    ((), None, [80], [10], [[("a", False)]], [None], [None], ("a",), None),
    # Both cheat in round 1: A (Jeu 90) is seen by B (Per 30), B (Jeu 95) by A (Per 20): both exposed.
    ((1,), (1,), [90, 20], [30, 95], [[("a", False), ("b", False)]], [None], [None], ("a", "b"), None),
]


@pytest.mark.parametrize(
    ("a_rounds", "b_rounds", "a_dice", "b_dice", "cheats", "targets", "winners", "exposed", "winner"),
    CHEAT_CASES,
)
def test_arm_wrestling_either_player_may_cheat_before_a_round(
    a_rounds: tuple[int, ...] | None,
    b_rounds: tuple[int, ...] | None,
    a_dice: list[int],
    b_dice: list[int],
    cheats: list[list[tuple[str, bool]]],
    targets: list[tuple[int, int] | None],
    winners: list[str | None],
    exposed: tuple[str, ...],
    winner: str | None,
) -> None:
    a = Wrestler("A", 40, gamble=45, perception=30, cheat_rounds=a_rounds)
    b = Wrestler("B", 40, gamble=50, perception=35, cheat_rounds=b_rounds)
    result = arm_wrestling(a, b, full=True, dice=Dice(None, {"A": a_dice, "B": b_dice}))
    assert [[(c.who, c.success) for c in r.cheats] for r in result.rounds] == cheats
    assert [(r.a.target, r.b.target) if r.a and r.b else None for r in result.rounds] == targets
    assert [r.winner for r in result.rounds] == winners
    assert result.exposed == exposed and result.winner == winner
    # Every cheat keeps its rolls for the table to see.
    for r in result.rounds:
        for c in r.cheats:
            assert c.tests and c.to_dict()["tests"][0]["gamble"]["roll"] in (a_dice + b_dice)


def test_arm_wrestling_cheating_refusals() -> None:
    with pytest.raises(TavernError) as exc:
        arm_wrestling(Wrestler("A", 40, cheat_rounds=()), Wrestler("B", 40), full=True, dice=Dice(None))
    assert exc.value.code == "cheat_needs_gamble"
    with pytest.raises(TavernError) as exc:
        arm_wrestling(
            Wrestler("A", 40, gamble=40, cheat_rounds=()), Wrestler("B", 40), full=False, dice=Dice(None)
        )
    assert exc.value.code == "cheat_full_only"


def test_simple_cards_int_bonus_and_cheat() -> None:
    players = [Gambler("A", 40, 50, 30, cheats=True), Gambler("B", 30, None, 35)]
    # A's cheat: Gamble 50 rolls 20 vs B's Perception 35 rolls 60 → works: bonus 20 × 2 = 40.
    scores, winners = highest_roll(players, dice=Dice(None, {"A": [20, 30], "B": [60, 65]}))
    assert [(s.bonus, s.total) for s in scores] == [(40, 70), (0, 65)]
    assert winners == ["A"]


def test_dice_combinations_in_the_seed_order() -> None:
    assert dice_combination([6, 6, 6, 6, 6])[1] == "Quinte"
    assert dice_combination([1, 2, 3, 4, 5])[1] == "Suite"
    assert dice_combination([2, 2, 3, 3, 3])[1] == "Full"
    assert dice_combination([2, 2, 2, 2, 3])[1] == "Carré"
    assert dice_combination([2, 2, 3, 3, 5])[1] == "Double paire"
    assert dice_combination([2, 2, 2, 3, 5])[1] == "Brelan"
    assert dice_combination([1, 2, 2, 4, 6])[1] == "Paire"
    assert dice_combination([1, 2, 3, 4, 6])[1] == "Dé haut"


def test_loaded_dice_force_the_loaded_face() -> None:
    hand = dice_hand("A", dice=Dice(None, {"A": [1, 2, 3, 4, 2, 2]}), loaded=3)
    assert hand.cheat_worked and 6 in hand.dice
    miss = dice_hand("A", dice=Dice(None, {"A": [1, 2, 3, 4, 2, 15]}), loaded=3)
    assert miss.cheat_worked is False and 6 not in miss.dice
    kept = dice_hand("A", dice=Dice(None, {"A": [6, 6]}), keep=[6, 6, 6])
    assert kept.combination == "Quinte"


def test_card_decks_and_hands() -> None:
    assert [deck_size(n, CARDS["deck_sizes"]) for n in range(3, 9)] == [32, 32, 40, 44, 48, 52]
    assert len(set(build_deck(52))) == 52 and len(build_deck(32)) == 32
    with pytest.raises(TavernError):
        deck_size(2, CARDS["deck_sizes"])
    ranking = CARDS["hand_rankings"][0]["low_to_high"]
    ranks = ["7", "8", "9", "10", "V", "D", "R", "As"]
    assert card_combination(["7♠", "8♠", "9♠", "10♠", "V♠"], ranking, ranks)[1] == "Suite Impériale"
    assert card_combination(["As♠", "7♥", "8♠", "9♠", "10♦"], ranking, ranks)[1] == "Suite"
    hands = deal(32, ["A", "B", "C"], rng=random.Random(1))
    assert all(len(h) == 5 for h in hands.values())


def test_drinking_four_failures_eliminate() -> None:
    result = drinking(
        [Drinker("A", 50), Drinker("B", 50)], dice=Dice(None, {"A": [10, 10, 10, 10], "B": [90, 90, 90, 90]})
    )
    assert result.winner == "A" and len(result.rounds) == 4


def test_knife_throwing_margins_and_misses() -> None:
    scores, winners = knife_throwing(
        [Thrower("A", 60), Thrower("B", 60, talent=False)],
        dice=Dice(None, {"A": [10, 20, 90, 7], "B": [10, 40, 5, 20]}),
    )
    assert scores[0].total == 50 + 40 + 7
    assert scores[1].target == 30 and scores[1].total == 20 + 5 + 10
    assert winners == ["A"]


def test_missing_dice_without_a_random_source() -> None:
    with pytest.raises(DiceError):
        arm_wrestling(Wrestler("a", 40), Wrestler("b", 40), full=False, dice=Dice(None, {}))


def test_random_games_end() -> None:
    rng = random.Random(2)
    for _ in range(50):
        cheat = Wrestler("a", 40, gamble=45, perception=30, cheat_rounds=())
        assert arm_wrestling(cheat, Wrestler("b", 40, perception=35), full=True, dice=Dice(rng)).rounds
        assert drinking([Drinker("A", 40), Drinker("B", 45)], dice=Dice(rng)).rounds


# Knife throwing with the Jeu fortune point (seed l. 1896-1897): CT 60 with the talent. Each row:
# the fortune setting, the dice, the points of the three throws, the throw rerolled.
FORTUNE_CASES = [
    # No fortune: 10 (50), 90 → miss, d10 7, 20 (40).
    (None, [10, 90, 7, 20], [50, 7, 40], None),
    # « fortune »: the first miss (90) is rolled again: 30 → 30 points.
    (0, [10, 90, 30, 20], [50, 30, 40], 2),
    # The reroll misses again: the d10 still scores.
    (0, [10, 90, 95, 4, 20], [50, 4, 40], 2),
    # « fortune=3 »: only throw 3 may be rerolled; throw 2's miss keeps its d10.
    (3, [10, 90, 7, 80, 15], [50, 7, 45], 3),
    # « fortune » with no miss: the point is kept.
    (0, [10, 20, 30], [50, 40, 30], None),
    # « fortune »: a 99 cannot be rerolled, the next miss is.
    (0, [99, 5, 70, 40, 40], [5, 20, 20], 2),
]


@pytest.mark.parametrize(("fortune", "rolls", "points", "used"), FORTUNE_CASES)
def test_knife_fortune_point_rerolls_a_missed_throw(
    fortune: int | None, rolls: list[int], points: list[int], used: int | None
) -> None:
    scores, _ = knife_throwing(
        [Thrower("A", 60, gamble=True, fortune=fortune), Thrower("B", 60)],
        dice=Dice(None, {"A": rolls, "B": [10, 10, 10]}),
    )
    assert [t.points for t in scores[0].throws] == points
    assert scores[0].total == sum(points) and scores[0].fortune_used == used


@pytest.mark.parametrize(
    ("thrower", "rolls", "code"),
    [
        (Thrower("A", 60, fortune=0), [10, 10, 10], "fortune_needs_gamble"),
        (Thrower("A", 60, gamble=True, fortune=4), [10, 10, 10], "bad_fortune"),
        (Thrower("A", 60, gamble=True, fortune=1), [10, 10, 10], "fortune_on_hit"),
        (Thrower("A", 60, gamble=True, fortune=1), [100, 10, 10], "fortune_critical"),
    ],
)
def test_knife_fortune_refusals(thrower: Thrower, rolls: list[int], code: str) -> None:
    with pytest.raises(TavernError) as exc:
        knife_throwing([thrower, Thrower("B", 60)], dice=Dice(None, {"A": rolls, "B": [10, 10, 10]}))
    assert exc.value.code == code
