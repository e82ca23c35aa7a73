"""Tavern games played move by move (seed 000, l. 1813-1875): the full dice match — 2 to 4
players, bets, rerolls chosen by the player, loaded dice the player places, two rounds to win — and
the arm wrestling where each wrestler says before each round whether he cheats. Dice typed by hand."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.rules.renove.tavern import Dice, TavernError, Wrestler, build_deck
from bot.rules.renove.tavern_match import (
    ArmMatch,
    CardPhase,
    CardPlayer,
    CardsMatch,
    DiceMatch,
    KnivesMatch,
    Phase,
    answer_raise,
    cards_answer,
    cards_bet,
    cheat_cards,
    declare,
    exchange,
    knife,
    knife_fortune,
    new_arm_match,
    new_cards_match,
    new_dice_match,
    new_knives_match,
    parse_card,
    place_loaded,
    raise_bet,
    reroll,
    throw,
)


def typed(**dice: list[int]) -> Dice:
    return Dice(None, dice)


def roundtrip(match: DiceMatch) -> DiceMatch:
    """Every move goes through the session row's JSON."""
    return DiceMatch.from_dict(match.to_dict())


def test_a_dice_match_to_two_rounds_with_a_raise_a_fold_and_rerolls() -> None:
    match = new_dice_match([("Alice", 0), ("Bob", 0), ("Carl", 0)], stake=10)
    assert match.pot == 30 and match.waiting() == ["Alice", "Bob", "Carl"]
    # Round 1: everyone throws; Alice (first) raises; Bob calls, Carl folds (he loses the round).
    throw(match, "Alice", typed(Alice=[6, 6, 3, 2, 1]))
    throw(match, "Bob", typed(Bob=[5, 5, 4, 4, 1]))
    throw(match, "Carl", typed(Carl=[1, 2, 3, 4, 6]))
    match = roundtrip(match)
    assert match.phase is Phase.BET and match.waiting() == ["Alice"]
    raise_bet(match, "Alice", raise_it=True)
    assert match.phase is Phase.CALL and match.pot == 40
    answer_raise(match, "Bob", call=True)
    answer_raise(match, "Carl", call=False)
    assert match.phase is Phase.REROLL and match.pot == 50 and match.waiting() == ["Alice", "Bob"]
    # Alice rerolls dice 3, 4, 5 (3 2 1 → 6 6 2): Carré; Bob keeps his Double paire.
    event = reroll(match, "Alice", [3, 4, 5], typed(Alice=[6, 6, 2]))
    assert event["before"] == [6, 6, 3, 2, 1] and event["dice"] == [6, 6, 6, 6, 2]
    reroll(match, "Bob", [], typed())
    assert match.rounds[-1]["winner"] == "Alice" and match.rounds[-1]["folded"] == ["Carl"]
    assert match.rounds[-1]["hands"]["Alice"]["combination"] == "Carré"
    # Round 2: Bob is first; a new stake each; nobody raises.
    match = roundtrip(match)
    assert match.round == 2 and match.first_player.name == "Bob" and match.pot == 80
    assert match.player("Alice").wins == 1 and match.phase is Phase.ROLL
    for name, dice in (("Alice", [2, 2, 2, 5, 1]), ("Bob", [3, 3, 1, 4, 6]), ("Carl", [1, 1, 4, 5, 6])):
        throw(match, name, Dice(None, {name: dice}))
    with pytest.raises(TavernError) as exc:
        raise_bet(match, "Alice", raise_it=True)
    assert exc.value.code == "not_your_turn"
    raise_bet(match, "Bob", raise_it=False)
    reroll(match, "Alice", [4, 5], typed(Alice=[2, 6]))  # Carré of 2
    reroll(match, "Bob", [], typed())
    reroll(match, "Carl", [], typed())
    assert match.phase is Phase.OVER and match.winner == "Alice" and match.pot == 80


# Loaded dice (l. 1869-1875): (loaded dice, thrown dice + d20, placed die, dice after, worked).
LOADED_CASES = [
    (3, [1, 2, 3, 4, 2, 2], 1, [6, 2, 3, 4, 2], True),  # d20 2 ≤ 3: the player puts a 6 on die 1
    (3, [1, 2, 3, 4, 2, 3], 5, [1, 2, 3, 4, 6], True),  # d20 3 ≤ 3: on die 5, his choice
    (3, [1, 2, 3, 4, 2, 4], None, [1, 2, 3, 4, 2], False),  # d20 4 > 3: nothing
    (1, [5, 5, 5, 5, 1, 1], 5, [5, 5, 5, 5, 6], True),  # 1 loaded die, d20 1
]


@pytest.mark.parametrize(("loaded", "rolls", "place", "after", "worked"), LOADED_CASES)
def test_loaded_dice_the_player_chooses_the_die_and_must_place_it(
    loaded: int, rolls: list[int], place: int | None, after: list[int], worked: bool
) -> None:
    match = new_dice_match([("Alice", loaded), ("Bob", 0)], stake=5)
    event = throw(match, "Alice", typed(Alice=rolls))
    assert event["cheat_roll"] == rolls[-1] and event["cheat_worked"] is worked
    throw(match, "Bob", typed(Bob=[1, 1, 2, 3, 4]))
    if worked:
        # The cheat worked: Alice must place the loaded face before anything else happens.
        assert match.phase is Phase.ROLL and match.waiting() == ["Alice"]
        with pytest.raises(TavernError) as exc:
            throw(match, "Alice", typed(Alice=[1, 1, 1, 1, 1]))
        assert exc.value.code == "must_load"
        assert place is not None
        place_loaded(match, "Alice", place)
    else:
        with pytest.raises(TavernError) as exc:
            place_loaded(match, "Alice", 1)
        assert exc.value.code == "no_loaded_to_place"
    assert match.player("Alice").dice == after and match.phase is Phase.BET


@pytest.mark.parametrize(
    ("players", "code"),
    [([("A", 0)], "dice_players"), ([("A", 0)] * 5, "dice_players"), ([("A", 6), ("B", 0)], "bad_loaded")],
)
def test_dice_match_refusals(players: list[tuple[str, int]], code: str) -> None:
    with pytest.raises(TavernError) as exc:
        new_dice_match(players, stake=10)
    assert exc.value.code == code


def test_dice_moves_out_of_turn_are_refused() -> None:
    match = new_dice_match([("A", 0), ("B", 0)], stake=0)
    throw(match, "A", typed(A=[1, 2, 3, 4, 6]))
    for move, code in (
        (lambda: throw(match, "A", typed(A=[1, 1, 1, 1, 1])), "already_thrown"),
        (lambda: reroll(match, "A", [1], typed(A=[6])), "not_phase_reroll"),
        (lambda: throw(match, "Zed", typed()), "not_playing"),
    ):
        with pytest.raises(TavernError) as exc:
            move()
        assert exc.value.code == code
    throw(match, "B", typed(B=[2, 2, 3, 4, 5]))
    # No stake: nothing to bet, straight to the rerolls.
    assert match.phase is Phase.REROLL
    with pytest.raises(TavernError) as exc:
        reroll(match, "A", [1, 1], typed(A=[6, 6]))
    assert exc.value.code == "bad_positions"
    # The same dice on both sides after the rerolls: nobody wins the round, a new one starts.
    reroll(match, "A", [1, 2, 3, 4, 5], typed(A=[1, 2, 2, 4, 6]))
    reroll(match, "B", [1, 2, 3, 4, 5], typed(B=[1, 2, 2, 4, 6]))
    assert match.rounds[-1]["winner"] is None and match.rounds[-1]["tied"] == ["A", "B"]
    assert match.round == 2 and match.phase is Phase.ROLL


def test_random_dice_matches_end() -> None:
    rng = random.Random(3)
    for _ in range(30):
        match = new_dice_match([("A", 2), ("B", 0), ("C", 1)], stake=1)
        for _move in range(300):
            if match.phase is Phase.OVER:
                break
            who = match.waiting()[0]
            player = match.player(who)
            if match.phase is Phase.ROLL:
                if player.must_load:
                    place_loaded(match, who, rng.randint(1, 5))
                else:
                    throw(match, who, Dice(rng))
            elif match.phase is Phase.BET:
                raise_bet(match, who, raise_it=rng.random() < 0.5)
            elif match.phase is Phase.CALL:
                answer_raise(match, who, call=rng.random() < 0.7)
            else:
                reroll(match, who, [p for p in range(1, 6) if rng.random() < 0.4], Dice(rng))
        assert match.phase is Phase.OVER and match.winner is not None


# Arm wrestling round by round (l. 1813-1818). A: F 40, Jeu 45, Per 30; B: F 40, Jeu 50, Per 35.
def _wrestlers() -> tuple[Wrestler, Wrestler]:
    return Wrestler("Gunnar", 40, 45, 30), Wrestler("Otto", 40, 50, 35)


def test_arm_wrestling_declared_round_by_round_either_may_cheat() -> None:
    match = new_arm_match(*_wrestlers())
    # Round 1: both pull honestly; Gunnar 30 vs Otto 50 → Gunnar +1.
    assert declare(match, "Gunnar", cheat=False, typed=[30], rng=None) is None
    assert match.waiting() == ["Otto"]
    played = declare(match, "Otto", cheat=False, typed=[50], rng=None)
    assert played is not None and played.winner == "a" and match.score == 1
    match = ArmMatch.from_dict(match.to_dict())
    # Round 2: Otto cheats (Jeu 10 vs Gunnar's Per 20: 4 °R to 1 °R) → +10 S: 45 under 50.
    # Gunnar's dice: Perception 20, S 90; Otto's: Jeu 10, S 45.
    declare(match, "Otto", cheat=True, typed=[10, 45], rng=None)
    played = declare(match, "Gunnar", cheat=False, typed=[20, 90], rng=None)
    assert played is not None and [(c.who, c.success) for c in played.cheats] == [("b", True)]
    assert played.b is not None and played.b.target == 50 and match.score == 0
    # Round 3: Gunnar cheats and is seen (Jeu 80, Otto's Per 10): the match stops.
    declare(match, "Gunnar", cheat=True, typed=[80], rng=None)
    played = declare(match, "Otto", cheat=False, typed=[10], rng=None)
    assert played is not None and played.a is None and match.exposed == ["a"] and match.over
    with pytest.raises(TavernError) as exc:
        declare(match, "Otto", cheat=False, typed=[], rng=None)
    assert exc.value.code == "match_over"


def test_arm_wrestling_declaration_refusals() -> None:
    match = new_arm_match(Wrestler("Gunnar", 40), Wrestler("Otto", 40, 50, 35))
    with pytest.raises(TavernError) as exc:
        declare(match, "Gunnar", cheat=True, typed=[], rng=None)
    assert exc.value.code == "cheat_needs_gamble"
    declare(match, "Gunnar", cheat=False, typed=[], rng=None)
    with pytest.raises(TavernError) as exc:
        declare(match, "Gunnar", cheat=False, typed=[], rng=None)
    assert exc.value.code == "already_declared"
    played = declare(match, "Otto", cheat=False, typed=[], rng=random.Random(1))
    assert played is not None and played.a is not None


# -- cards, full version (l. 1826-1850) ----------------------------------------------------------

RANKING_32 = [
    "Carte haute",
    "Paire",
    "Double paire",
    "Brelan",
    "Suite",
    "Full",
    "Carré",
    "Couleur",
    "Suite Impériale",
]


def _cards(**overrides: Any) -> CardsMatch:
    players = [
        CardPlayer("A", ["7♠", "8♥", "9♦", "R♣", "As♠"], ["As♥", "As♦"], gamble=45, perception=30),
        CardPlayer("B", ["R♠", "R♥", "9♠", "10♦", "V♣"], perception=35),
        CardPlayer("C", ["D♠", "D♥", "D♦", "8♣", "7♥"], perception=40),
    ]
    return new_cards_match(players, stake=10, deck_size=32, ranking=RANKING_32, rng=None, **overrides)


def test_a_hand_of_cards_bets_a_cheat_with_hidden_cards_the_exchange_and_the_showdown() -> None:
    match = _cards()
    # Every hand typed: the stock is the rest of the 32 cards in order, the hidden aces out of it.
    assert match.pot == 30 and match.deck[:3] == ["7♦", "7♣", "8♠"] and "As♥" not in match.deck
    cards_bet(match, "A", raise_it=True)
    cards_answer(match, "B", call=True)
    cards_answer(match, "C", call=False)
    assert match.phase is CardPhase.EXCHANGE and match.pot == 50 and match.waiting() == ["A", "B"]
    # A cheats: Jeu 45 rolls 20 then 25 against B's Perception 35 (60) and C's 40 (70): unseen.
    event = cheat_cards(match, "A", "7♠", "As♥", Dice(None, {"A": [20, 25], "B": [60], "C": [70]}))
    assert event["success"] and [t["winner"] for t in event["tests"]] == ["A", "A"]
    assert match.player("A").hand == ["As♥", "8♥", "9♦", "R♣", "As♠"] and match.player("A").hidden == [
        "7♠",
        "As♦",
    ]
    with pytest.raises(TavernError) as exc:
        cheat_cards(match, "A", "8♥", "As♦", Dice(None, {"A": [1], "B": [99], "C": [99]}))
    assert exc.value.code == "cheated_already"
    # A changes 8♥ 9♦ (→ 7♦ 7♣ from the top), B three cards (→ 8♠ 8♦ 9♥); they go under the stock.
    exchange(match, "A", ["8♥", "9♦"])
    exchange(match, "B", ["9♠", "10♦", "V♣"])
    assert match.player("A").hand == ["As♥", "7♦", "7♣", "R♣", "As♠"]
    assert match.player("B").hand == ["R♠", "R♥", "8♠", "8♦", "9♥"] and match.deck[-5:] == [
        "8♥",
        "9♦",
        "9♠",
        "10♦",
        "V♣",
    ]
    # The second betting round, then the showdown: two pairs each, the aces beat the kings.
    assert match.phase is CardPhase.BET and match.bet_round == 2
    cards_bet(match, "A", raise_it=False)
    assert match.phase is CardPhase.OVER and match.winners == ["A"]
    assert match.hands["A"]["combination"] == match.hands["B"]["combination"] == "Double paire"
    assert CardsMatch.from_dict(match.to_dict()).winners == ["A"]


def test_a_cheat_seen_by_one_player_exposes_and_stops_the_hand() -> None:
    match = _cards()
    cards_bet(match, "A", raise_it=False)
    # Jeu 80 fails, B's Perception 10 succeeds: exposed at once (C is not even tested).
    event = cheat_cards(match, "A", "7♠", "As♥", Dice(None, {"A": [80], "B": [10]}))
    assert not event["success"] and match.exposed == ["A"] and match.phase is CardPhase.OVER
    assert match.player("A").hand[0] == "7♠"


@pytest.mark.parametrize(
    ("move", "code"),
    [
        (lambda m: exchange(m, "A", ["7♠", "8♥", "9♦", "R♣", "As♠"]), "exchange_max"),
        (lambda m: exchange(m, "A", ["R♠"]), "not_in_hand"),
        (lambda m: cheat_cards(m, "A", "7♠", "R♦", Dice(None)), "not_hidden"),
        (lambda m: cheat_cards(m, "B", "R♠", "As♥", Dice(None)), "cheat_needs_gamble"),
        (lambda m: cards_bet(m, "A", raise_it=True), "not_phase_bet"),
    ],
)
def test_card_moves_refused(move: Any, code: str) -> None:
    match = _cards()
    cards_bet(match, "A", raise_it=False)
    with pytest.raises(TavernError) as exc:
        move(match)
    assert exc.value.code == code


@pytest.mark.parametrize(
    ("players", "code"),
    [
        ([CardPlayer("A", [], ["As♥", "As♦", "R♦"], gamble=40)], "too_many_hidden"),
        ([CardPlayer("A", [], ["As♥"])], "cheat_needs_gamble"),
        ([CardPlayer("A", ["7♠"])], "hand_size"),
        (
            [
                CardPlayer("A", ["7♠", "8♥", "9♦", "R♣", "As♠"]),
                CardPlayer("B", ["7♠", "8♠", "9♠", "R♠", "As♥"]),
            ],
            "card_twice",
        ),
        ([CardPlayer("A", []), CardPlayer("B", [])], "needs_shuffle"),
        # 32 cards: six dealt hands leave 2 in the stock, fewer than an exchange of 4 may need.
        ([CardPlayer(n, []) for n in "ABCDEF"], "deck_short"),
    ],
)
def test_card_deals_refused(players: list[CardPlayer], code: str) -> None:
    with pytest.raises(TavernError) as exc:
        rng = random.Random(1) if code == "deck_short" else None
        new_cards_match(players, stake=0, deck_size=32, ranking=RANKING_32, rng=rng)
    assert exc.value.code == code


def test_a_dealt_hand_with_a_random_source_and_no_stake() -> None:
    players = [CardPlayer(n, []) for n in "ABC"]
    match = new_cards_match(players, stake=0, deck_size=32, ranking=RANKING_32, rng=random.Random(4))
    cards = [c for p in match.players for c in p.hand] + match.deck
    assert sorted(cards) == sorted(build_deck(32)) and all(len(p.hand) == 5 for p in match.players)
    # No stake: no betting, the exchange at once, then the showdown.
    assert match.phase is CardPhase.EXCHANGE
    for name in "ABC":
        exchange(match, name, [])
    assert match.phase is CardPhase.OVER and match.winners


@pytest.mark.parametrize(
    ("typed", "english", "card"),
    [
        ("As♠", False, "As♠"),
        ("Rp", False, "R♠"),
        ("10c", False, "10♥"),
        ("10c", True, "10♣"),
        ("Kh", True, "R♥"),
        ("Ad", True, "As♦"),
        ("vt", False, "V♣"),
        ("Qk", False, "D♦"),
    ],
)
def test_cards_typed_by_hand(typed: str, english: bool, card: str) -> None:
    assert parse_card(typed, build_deck(32), english=english) == card


@pytest.mark.parametrize("typed", ["2p", "X♠", "7", "11h"])
def test_bad_cards_typed(typed: str) -> None:
    with pytest.raises(TavernError) as exc:
        parse_card(typed, build_deck(32))
    assert exc.value.code == "bad_card"


# -- knife throwing, throw by throw (l. 1895-1898) -----------------------------------------------

# (Jeu, dice typed for A — d100s and the d10s of the misses —, the fortune choices in order,
#  points per throw, fortune left). A: BS 60 with the talent.
KNIFE_CASES = [
    # Without Jeu: 10 (50), 90 → miss, d10 7, 20 (40): no choice offered.
    (False, [10, 90, 7, 20], [], [50, 7, 40], False),
    # With Jeu: the miss (90) waits; spending the point rolls again: 30 → 30 points.
    (True, [10, 90, 30, 20], [True], [50, 30, 40], False),
    # The reroll misses too: its d10 (4) scores; no second fortune choice on the next miss (95 → d10 2).
    (True, [10, 90, 95, 4, 95, 2], [True], [50, 4, 2], False),
    # The player keeps the first miss (its d10 6) and the point for later: spent on the third throw.
    (True, [90, 6, 10, 80, 15], [False, True], [6, 50, 45], False),
    # A 99 cannot be rerolled: it scores its d10 at once, the point stays unspent.
    (True, [99, 3, 10, 20], [], [3, 50, 40], True),
]


@pytest.mark.parametrize(("gamble", "rolls", "choices", "points", "left"), KNIFE_CASES)
def test_knife_throws_the_fortune_point_offered_after_a_miss(
    gamble: bool, rolls: list[int], choices: list[bool], points: list[int], left: bool
) -> None:
    match = new_knives_match([("A", 60, True, gamble), ("B", 60, False, False)])
    dice = Dice(None, {"A": rolls, "B": [10, 10, 10]})
    pending = list(choices)
    while len(match.player("A").throws) < 3 or match.player("A").pending:
        if match.player("A").pending:
            knife_fortune(match, "A", dice, spend=pending.pop(0))
        else:
            knife(match, "A", dice)
    assert [t["points"] for t in match.player("A").throws] == points and not pending
    assert match.player("A").fortune is left
    for _ in range(3):
        knife(match, "B", dice)  # BS/2 = 30 without the talent: 20 each
    assert match.over and match.winners == (["A"] if sum(points) > 60 else ["B"])
    assert KnivesMatch.from_dict(match.to_dict()).winners == match.winners


def test_knife_refusals() -> None:
    match = new_knives_match([("A", 60, True, True), ("B", 60, True, False)])
    dice = Dice(None, {"A": [90, 10, 10, 10], "B": [10, 10, 10]})
    knife(match, "A", dice)
    for move, code in (
        (lambda: knife(match, "A", dice), "fortune_choice"),
        (lambda: knife_fortune(match, "B", dice, spend=True), "no_miss_pending"),
        (lambda: knife(match, "Zed", dice), "not_playing"),
    ):
        with pytest.raises(TavernError) as exc:
            move()
        assert exc.value.code == code
    knife_fortune(match, "A", dice, spend=True)
    knife(match, "A", dice)
    knife(match, "A", dice)
    with pytest.raises(TavernError) as exc:
        knife(match, "A", dice)
    assert exc.value.code == "no_throw_left"
    with pytest.raises(TavernError) as exc:
        new_knives_match([("A", 60, True, True)])
    assert exc.value.code == "two_players"
