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
    result = arm_wrestling(45, 40, full=False, dice=Dice(None, {"a": [90, 30], "b": [95, 35]}))
    assert len(result.rounds) == 2 and result.winner == "a"


def test_arm_wrestling_full_scores_to_two_and_carries_the_excess() -> None:
    # Round 1 both succeed (margins 35 and 10): A carries +25 S. Then A wins twice.
    result = arm_wrestling(45, 40, full=True, dice=Dice(None, {"a": [10, 60, 20], "b": [30, 90, 90]}))
    assert [r.winner for r in result.rounds] == [None, "a", "a"]
    assert result.rounds[1].a.target == 70 and result.winner == "a"


def test_arm_wrestling_cheat_exposed_stops_the_match() -> None:
    result = arm_wrestling(
        45, 40, full=True, dice=Dice(None, {"a": [80], "b": [10]}), cheat_gamble=40, opponent_perception=40
    )
    assert result.exposed and result.winner is None


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
        arm_wrestling(40, 40, full=False, dice=Dice(None, {}))


def test_random_games_end() -> None:
    rng = random.Random(2)
    for _ in range(50):
        assert arm_wrestling(40, 40, full=True, dice=Dice(rng)).rounds
        assert drinking([Drinker("A", 40), Drinker("B", 45)], dice=Dice(rng)).rounds
