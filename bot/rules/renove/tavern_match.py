"""Tavern games played move by move at the table (seed 000, "Jeux de taverne", l. 1816-1898).

* No stake (``stake`` 0): no betting rounds, the game goes from the throw (or the deal) to the
  rerolls (or the exchange) and the showdown.
* Dice, full version (l. 1862-1875): 2 to 4 players. Each round every player stakes the starting
  bet and throws 5d6; once everyone has thrown, the round's first player may raise the bet (by the
  starting stake, a reading: the seed says « augmenter la mise, comme au poker »); the others then
  call or fold (a fold loses the round at once). Then each player chooses the dice to roll again
  (0 to 5, once a round — a reading, the seed does not count the rerolls). The best combination of
  the seed's table wins the round; the first player to win two rounds takes every stake.
  Same combination and same dice: nobody wins the round (reading). The first player moves one
  seat to the left each round (reading, as for the cards' dealer).
* Loaded dice (l. 1869-1875): after a throw of the five dice, 1d20; from 1 to the number of loaded
  dice thrown the cheat works and the player MUST replace one die he just threw by the loaded
  face (6): he chooses which, and can do nothing else before. Reading: the d20 follows the
  round's first throw of the five dice, not the reroll of a few.
* Arm wrestling, full version (l. 1813-1818): before each round each wrestler says whether he
  cheats (Jeu opposed to the other's Perception: +10 S this round, or exposed and the match
  stops); the round is played when both have spoken.

Every die may be typed by hand (a :class:`~bot.rules.renove.tavern.Dice` with typed values), the
random source rolls the rest. The state is plain data (``to_dict``/``from_dict``) for the session
row; each move raises :class:`~bot.rules.renove.tavern.TavernError` when the rules forbid it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from bot.rules.random_source import RandomSource
from bot.rules.renove import tavern
from bot.rules.renove.tavern import Dice, TavernError

DICE_PLAYERS = (2, 4)
WINS_NEEDED = 2
LOADED_FACE = 6
STAKE_MAX = 10_000


class Phase(StrEnum):
    ROLL = "roll"  # everyone throws 5d6 (a loaded die to place first when the d20 worked)
    BET = "bet"  # the round's first player raises or not
    CALL = "call"  # the others call the raise or fold
    REROLL = "reroll"  # each player rerolls the dice he chooses (or keeps them)
    OVER = "over"


@dataclass(slots=True)
class DicePlayer:
    name: str
    loaded: int = 0
    wins: int = 0
    dice: list[int] = field(default_factory=list)
    cheat_roll: int | None = None
    must_load: bool = False
    answered: bool = False  # called or folded the raise
    rerolled: bool = False
    folded: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "loaded": self.loaded,
            "wins": self.wins,
            "dice": list(self.dice),
            "cheat_roll": self.cheat_roll,
            "must_load": self.must_load,
            "answered": self.answered,
            "rerolled": self.rerolled,
            "folded": self.folded,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DicePlayer:
        return cls(
            str(data["name"]),
            int(data.get("loaded", 0)),
            int(data.get("wins", 0)),
            [int(v) for v in data.get("dice", [])],
            data.get("cheat_roll"),
            bool(data.get("must_load")),
            bool(data.get("answered")),
            bool(data.get("rerolled")),
            bool(data.get("folded")),
        )


@dataclass(slots=True)
class DiceMatch:
    players: list[DicePlayer]
    stake: int
    round: int = 1
    first: int = 0
    pot: int = 0
    raised: bool = False
    phase: Phase = Phase.ROLL
    winner: str | None = None
    rounds: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": "dice",
            "players": [p.to_dict() for p in self.players],
            "stake": self.stake,
            "round": self.round,
            "first": self.first,
            "pot": self.pot,
            "raised": self.raised,
            "phase": self.phase.value,
            "winner": self.winner,
            "rounds": list(self.rounds),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DiceMatch:
        return cls(
            [DicePlayer.from_dict(p) for p in data["players"]],
            int(data["stake"]),
            int(data.get("round", 1)),
            int(data.get("first", 0)),
            int(data.get("pot", 0)),
            bool(data.get("raised")),
            Phase(data.get("phase", "roll")),
            data.get("winner"),
            list(data.get("rounds", [])),
        )

    def player(self, name: str) -> DicePlayer:
        for p in self.players:
            if p.name == name:
                return p
        raise TavernError("not_playing", name=name)

    @property
    def first_player(self) -> DicePlayer:
        return self.players[self.first]

    def in_round(self) -> list[DicePlayer]:
        return [p for p in self.players if not p.folded]

    def waiting(self) -> list[str]:
        """Who the table waits for, in this phase."""
        if self.phase is Phase.ROLL:
            return [p.name for p in self.players if not p.dice or p.must_load]
        if self.phase is Phase.BET:
            return [self.first_player.name]
        if self.phase is Phase.CALL:
            return [p.name for p in self.in_round() if p is not self.first_player and not p.answered]
        if self.phase is Phase.REROLL:
            return [p.name for p in self.in_round() if not p.rerolled]
        return []

    def can_act(self, name: str) -> bool:
        return name in self.waiting()


def new_dice_match(players: Sequence[tuple[str, int]], stake: int) -> DiceMatch:
    """``players``: (name, loaded dice among his five)."""
    low, high = DICE_PLAYERS
    if not low <= len(players) <= high:
        raise TavernError("dice_players", min=low, max=high)
    if not 0 <= stake <= STAKE_MAX:
        raise TavernError("bad_stake", max=STAKE_MAX)
    for _name, loaded in players:
        if not 0 <= loaded <= 5:
            raise TavernError("bad_loaded")
    match = DiceMatch([DicePlayer(name, loaded) for name, loaded in players], stake)
    match.pot = stake * len(players)
    return match


def _require(match: DiceMatch, phase: Phase, name: str) -> DicePlayer:
    if match.phase is Phase.OVER:
        raise TavernError("match_over")
    player = match.player(name)
    if match.phase is not phase:
        raise TavernError(f"not_phase_{phase.value}")
    if not match.can_act(name):
        raise TavernError("not_your_turn", name=name)
    return player


def throw(match: DiceMatch, name: str, dice: Dice) -> dict[str, Any]:
    """The round's first throw of 5d6; with loaded dice, the d20 that may force a 6."""
    player = match.player(name)
    if player.dice and match.phase is not Phase.OVER:
        raise TavernError("must_load" if player.must_load else "already_thrown", name=name)
    _require(match, Phase.ROLL, name)
    player.dice = [dice.roll(name, 6) for _ in range(5)]
    event: dict[str, Any] = {"move": "throw", "name": name, "dice": list(player.dice)}
    if player.loaded:
        player.cheat_roll = dice.roll(name, 20)
        player.must_load = player.cheat_roll <= player.loaded
        event.update(cheat_roll=player.cheat_roll, cheat_worked=player.must_load)
    _advance(match)
    return event


def place_loaded(match: DiceMatch, name: str, position: int) -> dict[str, Any]:
    """The cheat worked: die n° ``position`` (1-5) shows the loaded face."""
    player = match.player(name)
    if match.phase is Phase.OVER:
        raise TavernError("match_over")
    if not player.must_load:
        raise TavernError("no_loaded_to_place", name=name)
    if not 1 <= position <= 5:
        raise TavernError("bad_position")
    before = player.dice[position - 1]
    player.dice[position - 1] = LOADED_FACE
    player.must_load = False
    _advance(match)
    return {"move": "load", "name": name, "position": position, "before": before, "dice": list(player.dice)}


def raise_bet(match: DiceMatch, name: str, *, raise_it: bool) -> dict[str, Any]:
    """The round's first player raises by the stake, or lets the bet stand."""
    _require(match, Phase.BET, name)
    match.raised = raise_it
    if raise_it:
        match.pot += match.stake
        match.phase = Phase.CALL
    else:
        match.phase = Phase.REROLL
    _advance(match)
    return {"move": "raise" if raise_it else "check", "name": name, "pot": match.pot}


def answer_raise(match: DiceMatch, name: str, *, call: bool) -> dict[str, Any]:
    """Call the raise (pay the stake once more) or fold and lose this round."""
    player = _require(match, Phase.CALL, name)
    player.answered = True
    if call:
        match.pot += match.stake
    else:
        player.folded = True
    event = {"move": "call" if call else "fold", "name": name, "pot": match.pot}
    if all(p.answered for p in match.in_round() if p is not match.first_player):
        match.phase = Phase.REROLL
    _advance(match)
    return event


def reroll(match: DiceMatch, name: str, positions: Sequence[int], dice: Dice) -> dict[str, Any]:
    """Roll again the dice n° ``positions`` (1-5, none = keep them all)."""
    player = _require(match, Phase.REROLL, name)
    if len(set(positions)) != len(positions) or any(not 1 <= p <= 5 for p in positions):
        raise TavernError("bad_positions")
    before = list(player.dice)
    for position in sorted(positions):
        player.dice[position - 1] = dice.roll(name, 6)
    player.rerolled = True
    event = {
        "move": "reroll",
        "name": name,
        "positions": sorted(positions),
        "before": before,
        "dice": list(player.dice),
    }
    _advance(match)
    return event


def hand(player: DicePlayer) -> tavern.DiceHand:
    rank, combination = tavern.dice_combination(player.dice)
    return tavern.DiceHand(player.name, tuple(player.dice), rank, combination)


def _advance(match: DiceMatch) -> None:
    """Move to the next phase when nobody is awaited; settle the round after the rerolls."""
    standing = match.in_round()
    if len(standing) == 1 and match.phase in (Phase.CALL, Phase.REROLL):
        _settle(match, [standing[0].name])
        return
    if match.waiting():
        return
    if match.phase is Phase.ROLL:
        # No stake, nothing to bet: straight to the rerolls (reading).
        match.phase = Phase.BET if match.stake else Phase.REROLL
    elif match.phase is Phase.REROLL:
        hands = [hand(p) for p in standing]
        _settle(match, tavern.best_hands(hands))


def _settle(match: DiceMatch, best: list[str]) -> None:
    winner = best[0] if len(best) == 1 else None
    record: dict[str, Any] = {
        "round": match.round,
        "hands": {
            p.name: {"dice": list(p.dice), "combination": hand(p).combination} for p in match.in_round()
        },
        "folded": [p.name for p in match.players if p.folded],
        "winner": winner,
        "tied": best if winner is None else [],
    }
    if winner is not None:
        match.player(winner).wins += 1
    match.rounds.append(record)
    if winner is not None and match.player(winner).wins >= WINS_NEEDED:
        match.winner = winner
        match.phase = Phase.OVER
        return
    match.round += 1
    match.first = (match.first + 1) % len(match.players)
    match.raised = False
    match.phase = Phase.ROLL
    match.pot += match.stake * len(match.players)
    for p in match.players:
        p.dice, p.cheat_roll, p.must_load = [], None, False
        p.answered = p.rerolled = p.folded = False


# -- arm wrestling, round by round -------------------------------------------------------------

SIDES = ("a", "b")


@dataclass(slots=True)
class ArmMatch:
    """Two wrestlers; before each round each one says whether he cheats (typed dice may come
    with it); the round is played once both have spoken. ``score`` is A's."""

    wrestlers: tuple[tavern.Wrestler, tavern.Wrestler]
    score: int = 0
    round: int = 1
    carry: dict[str, int] = field(default_factory=lambda: {"a": 0, "b": 0})
    declared: dict[str, bool] = field(default_factory=dict)
    typed: dict[str, list[int]] = field(default_factory=dict)
    rounds: list[dict[str, Any]] = field(default_factory=list)
    winner: str | None = None
    exposed: list[str] = field(default_factory=list)

    @property
    def over(self) -> bool:
        return self.winner is not None or bool(self.exposed)

    def side_of(self, name: str) -> str:
        for side, wrestler in zip(SIDES, self.wrestlers, strict=True):
            if wrestler.name == name:
                return side
        raise TavernError("not_playing", name=name)

    def waiting(self) -> list[str]:
        if self.over:
            return []
        return [w.name for side, w in zip(SIDES, self.wrestlers, strict=True) if side not in self.declared]

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": "arm_wrestling",
            "wrestlers": [
                {"name": w.name, "f": w.strength, "jeu": w.gamble, "per": w.perception}
                for w in self.wrestlers
            ],
            "score": self.score,
            "round": self.round,
            "carry": dict(self.carry),
            "declared": dict(self.declared),
            "typed": {k: list(v) for k, v in self.typed.items()},
            "rounds": list(self.rounds),
            "winner": self.winner,
            "exposed": list(self.exposed),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ArmMatch:
        a, b = (
            tavern.Wrestler(str(w["name"]), int(w["f"]), w.get("jeu"), int(w.get("per") or 0))
            for w in data["wrestlers"]
        )
        return cls(
            (a, b),
            int(data.get("score", 0)),
            int(data.get("round", 1)),
            {k: int(v) for k, v in data.get("carry", {}).items()},
            {k: bool(v) for k, v in data.get("declared", {}).items()},
            {k: [int(x) for x in v] for k, v in data.get("typed", {}).items()},
            list(data.get("rounds", [])),
            data.get("winner"),
            list(data.get("exposed", [])),
        )


def new_arm_match(a: tavern.Wrestler, b: tavern.Wrestler) -> ArmMatch:
    if a.name == b.name:
        raise TavernError("same_name")
    return ArmMatch((a, b))


def declare(
    match: ArmMatch, name: str, *, cheat: bool, typed: Sequence[int], rng: RandomSource | None
) -> tavern.ArmRound | None:
    """``name`` pulls honestly or cheats this round; the round is played once both have spoken
    (each wrestler's typed dice first, then ``rng``). Returns the round when it was played."""
    if match.over:
        raise TavernError("match_over")
    side = match.side_of(name)
    if side in match.declared:
        raise TavernError("already_declared", name=name)
    wrestler = match.wrestlers[SIDES.index(side)]
    if cheat and wrestler.gamble is None:
        raise TavernError("cheat_needs_gamble", name=name)
    match.declared[side] = cheat
    if typed:
        match.typed[side] = list(typed)
    if len(match.declared) < 2:
        return None
    a, b = match.wrestlers
    dice = Dice(rng, {a.name: match.typed.get("a", []), b.name: match.typed.get("b", [])})
    cheaters = {s for s, c in match.declared.items() if c}
    played, carry = tavern.arm_round(a, b, match.round, match.score, match.carry, cheaters, dice)
    match.rounds.append(played.to_dict())
    match.carry, match.score = carry, played.score
    match.declared, match.typed = {}, {}
    match.exposed = [c.who for c in played.cheats if not c.success]
    if abs(match.score) >= 2:
        match.winner = "a" if match.score > 0 else "b"
    match.round += 1
    return played


# -- cards, full version, one hand ------------------------------------------------------------------

HAND_SIZE = 5
EXCHANGE_MAX = 4
HIDDEN_MAX = 2
SUIT_LETTERS = {
    "♠": "♠",
    "♥": "♥",
    "♦": "♦",
    "♣": "♣",
    "p": "♠",
    "s": "♠",
    "h": "♥",
    "k": "♦",
    "d": "♦",
    "t": "♣",
}
RANK_ALIASES = {"j": "V", "v": "V", "q": "D", "d": "D", "k": "R", "r": "R", "a": "As", "as": "As"}


class CardPhase(StrEnum):
    BET = "bet"  # the first player raises or not
    CALL = "call"  # the others call or fold
    EXCHANGE = "exchange"  # each player changes 0 to 4 cards (a cheat may come first)
    OVER = "over"


def parse_card(text: str, deck: Sequence[str], *, english: bool = False) -> str:
    """« As♠ », « 10♥ », « Rp » (roi de pique), « Kh » (king of hearts), « 7t » → a deck card.
    The suit letter ``c`` is cœur (♥) in French and clubs (♣) in English."""
    raw = text.strip()
    if len(raw) < 2:
        raise TavernError("bad_card", card=raw[:8])
    suit_char = raw[-1].casefold()
    suit = {"c": "♣" if english else "♥"}.get(suit_char) or SUIT_LETTERS.get(suit_char)
    rank = raw[:-1].casefold()
    rank = RANK_ALIASES.get(rank, rank.upper())
    card = f"{rank}{suit}"
    if suit is None or card not in deck:
        raise TavernError("bad_card", card=raw[:8])
    return card


@dataclass(slots=True)
class CardPlayer:
    name: str
    hand: list[str]
    hidden: list[str] = field(default_factory=list)
    gamble: int | None = None
    perception: int = 0
    answered: bool = False
    exchanged: int | None = None  # how many cards were changed (None: not yet)
    cheated: bool = False
    folded: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "hand": list(self.hand),
            "hidden": list(self.hidden),
            "jeu": self.gamble,
            "per": self.perception,
            "answered": self.answered,
            "exchanged": self.exchanged,
            "cheated": self.cheated,
            "folded": self.folded,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CardPlayer:
        return cls(
            str(data["name"]),
            [str(c) for c in data["hand"]],
            [str(c) for c in data.get("hidden", [])],
            data.get("jeu"),
            int(data.get("per") or 0),
            bool(data.get("answered")),
            data.get("exchanged"),
            bool(data.get("cheated")),
            bool(data.get("folded")),
        )


@dataclass(slots=True)
class CardsMatch:
    players: list[CardPlayer]
    deck: list[str]  # the stock, top first
    ranks: list[str]  # low to high, for this deck
    ranking: list[str]  # the combinations, low to high, for this deck size
    stake: int
    pot: int = 0
    phase: CardPhase = CardPhase.BET
    bet_round: int = 1  # 1 before the exchange, 2 after it
    round: int = 1  # bumped at every phase change: a board of another phase is stale
    winners: list[str] = field(default_factory=list)
    exposed: list[str] = field(default_factory=list)
    hands: dict[str, dict[str, Any]] = field(default_factory=dict)  # shown down at the end

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": "cards",
            "players": [p.to_dict() for p in self.players],
            "deck": list(self.deck),
            "ranks": list(self.ranks),
            "ranking": list(self.ranking),
            "stake": self.stake,
            "pot": self.pot,
            "phase": self.phase.value,
            "bet_round": self.bet_round,
            "round": self.round,
            "winners": list(self.winners),
            "exposed": list(self.exposed),
            "hands": dict(self.hands),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CardsMatch:
        return cls(
            [CardPlayer.from_dict(p) for p in data["players"]],
            [str(c) for c in data["deck"]],
            [str(r) for r in data["ranks"]],
            [str(r) for r in data["ranking"]],
            int(data["stake"]),
            int(data.get("pot", 0)),
            CardPhase(data.get("phase", "bet")),
            int(data.get("bet_round", 1)),
            int(data.get("round", 1)),
            list(data.get("winners", [])),
            list(data.get("exposed", [])),
            dict(data.get("hands", {})),
        )

    @property
    def first_player(self) -> CardPlayer:
        return self.players[0]

    def player(self, name: str) -> CardPlayer:
        for p in self.players:
            if p.name == name:
                return p
        raise TavernError("not_playing", name=name)

    def in_hand(self) -> list[CardPlayer]:
        return [p for p in self.players if not p.folded]

    def waiting(self) -> list[str]:
        if self.phase is CardPhase.BET:
            return [self.first_player.name]
        if self.phase is CardPhase.CALL:
            return [p.name for p in self.in_hand() if p is not self.first_player and not p.answered]
        if self.phase is CardPhase.EXCHANGE:
            return [p.name for p in self.in_hand() if p.exchanged is None]
        return []


def new_cards_match(
    players: Sequence[CardPlayer],
    *,
    stake: int,
    deck_size: int,
    ranking: Sequence[str],
    rng: RandomSource | None,
) -> CardsMatch:
    """Deal one hand. ``players[i].hand``: typed by hand (5 cards) or empty (dealt); ``hidden``: the
    cards a cheater took from the deck before the game (2 at most, the seed). The deck is shuffled
    with ``rng`` (a fresh pack; the seed's « never shuffle » is the table's habit between hands)."""
    if not 0 <= stake <= STAKE_MAX:
        raise TavernError("bad_stake", max=STAKE_MAX)
    deck = tavern.build_deck(deck_size)
    ranks = list(dict.fromkeys(card[:-1] for card in deck))
    taken: list[str] = []
    for p in players:
        if len(p.hidden) > HIDDEN_MAX:
            raise TavernError("too_many_hidden", max=HIDDEN_MAX)
        if p.hidden and p.gamble is None:
            raise TavernError("cheat_needs_gamble", name=p.name)
        if p.hand and len(p.hand) != HAND_SIZE:
            raise TavernError("hand_size", name=p.name, size=HAND_SIZE)
        taken += p.hand + p.hidden
    if len(set(taken)) != len(taken):
        raise TavernError("card_twice")
    stock = [c for c in deck if c not in taken]
    if any(not p.hand for p in players):
        if rng is None:
            raise TavernError("needs_shuffle")
        for i in range(len(stock) - 1, 0, -1):
            j = rng.randint(0, i)
            stock[i], stock[j] = stock[j], stock[i]
    if sum(HAND_SIZE for p in players if not p.hand) + EXCHANGE_MAX > len(stock):
        raise TavernError("deck_short")
    dealt = []
    for p in players:
        hand = list(p.hand) or [stock.pop(0) for _ in range(HAND_SIZE)]
        dealt.append(CardPlayer(p.name, hand, list(p.hidden), p.gamble, p.perception))
    phase = CardPhase.BET if stake else CardPhase.EXCHANGE
    return CardsMatch(dealt, stock, ranks, list(ranking), stake, pot=stake * len(players), phase=phase)


def _card_key(match: CardsMatch, hand: Sequence[str]) -> tuple[int, list[int]]:
    rank, _name = tavern.card_combination(hand, match.ranking, match.ranks)
    counts = Counter(match.ranks.index(c[:-1]) for c in hand)
    # Ties: the bigger group first (the pair's rank), then the highest cards (a reading).
    high = [v for v, _n in sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]
    return rank, high


def _cards_step(match: CardsMatch, start: tuple[CardPhase, int]) -> None:
    """Move on when nobody is awaited; a new phase bumps ``round`` (older boards go stale)."""
    _cards_next(match)
    if (match.phase, match.bet_round) != start:
        match.round += 1


def _cards_next(match: CardsMatch) -> None:
    standing = match.in_hand()
    if len(standing) == 1:
        _show_down(match)
        return
    if match.waiting():
        return
    if match.phase is CardPhase.EXCHANGE:
        if not match.stake:  # no stake, nothing to bet: the showdown (reading)
            _show_down(match)
            return
        match.phase, match.bet_round = CardPhase.BET, 2
        for p in match.players:
            p.answered = False
    elif match.phase in (CardPhase.BET, CardPhase.CALL):
        if match.bet_round == 1:
            match.phase = CardPhase.EXCHANGE
        else:
            _show_down(match)


def _show_down(match: CardsMatch) -> None:
    standing = match.in_hand()
    keys = {p.name: _card_key(match, p.hand) for p in standing}
    best = max(keys.values())
    match.winners = [name for name, key in keys.items() if key == best]
    match.hands = {
        p.name: {
            "cards": list(p.hand),
            "combination": tavern.card_combination(p.hand, match.ranking, match.ranks)[1],
        }
        for p in standing
    }
    match.phase = CardPhase.OVER


def _cards_require(match: CardsMatch, phase: CardPhase, name: str) -> CardPlayer:
    if match.phase is CardPhase.OVER:
        raise TavernError("match_over")
    player = match.player(name)
    if match.phase is not phase:
        raise TavernError(f"not_phase_{phase.value}")
    if name not in match.waiting():
        raise TavernError("not_your_turn", name=name)
    return player


def cards_bet(match: CardsMatch, name: str, *, raise_it: bool) -> dict[str, Any]:
    _cards_require(match, CardPhase.BET, name)
    start = (match.phase, match.bet_round)
    if raise_it:
        match.pot += match.stake
        match.phase = CardPhase.CALL
    event = {"move": "raise" if raise_it else "check", "name": name, "pot": match.pot}
    if not raise_it:
        match.phase = CardPhase.CALL  # nobody to answer: the step moves on at once
        for p in match.in_hand():
            p.answered = True
    _cards_step(match, start)
    return event


def cards_answer(match: CardsMatch, name: str, *, call: bool) -> dict[str, Any]:
    player = _cards_require(match, CardPhase.CALL, name)
    start = (match.phase, match.bet_round)
    player.answered = True
    if call:
        match.pot += match.stake
    else:
        player.folded = True
    event = {"move": "call" if call else "fold", "name": name, "pot": match.pot}
    _cards_step(match, start)
    return event


def exchange(match: CardsMatch, name: str, cards: Sequence[str]) -> dict[str, Any]:
    """Change 0 to 4 cards: they go under the stock, as many come from its top."""
    player = _cards_require(match, CardPhase.EXCHANGE, name)
    start = (match.phase, match.bet_round)
    if len(cards) > EXCHANGE_MAX:
        raise TavernError("exchange_max", max=EXCHANGE_MAX)
    if len(set(cards)) != len(cards) or any(c not in player.hand for c in cards):
        raise TavernError("not_in_hand")
    if len(cards) > len(match.deck):
        raise TavernError("deck_short")
    before = list(player.hand)
    for card in cards:
        player.hand[player.hand.index(card)] = match.deck.pop(0)
    match.deck.extend(cards)
    player.exchanged = len(cards)
    _cards_step(match, start)
    return {
        "move": "exchange",
        "name": name,
        "count": len(cards),
        "before": before,
        "hand": list(player.hand),
    }


def cheat_cards(match: CardsMatch, name: str, hand_card: str, hidden_card: str, dice: Dice) -> dict[str, Any]:
    """Before his exchange, slip a hidden card in place of one of the hand: Jeu opposed to every
    other player's Perception (still in the hand or not: they all watch). Success: the cards are
    swapped (the hand's card is hidden in turn); failure: exposed and the game stops."""
    player = _cards_require(match, CardPhase.EXCHANGE, name)
    if player.gamble is None:
        raise TavernError("cheat_needs_gamble", name=name)
    if player.cheated:
        raise TavernError("cheated_already", name=name)
    if hidden_card not in player.hidden:
        raise TavernError("not_hidden", card=hidden_card)
    if hand_card not in player.hand:
        raise TavernError("not_in_hand")
    others = [tavern.Gambler(p.name, perception=p.perception) for p in match.players if p is not player]
    ok, tests = tavern.cheat_vs_everyone(tavern.Gambler(name, gamble=player.gamble), others, dice)
    player.cheated = True
    event: dict[str, Any] = {"move": "cheat", "name": name, "success": ok, "tests": tests}
    if ok:
        player.hand[player.hand.index(hand_card)] = hidden_card
        player.hidden[player.hidden.index(hidden_card)] = hand_card
        event["hand"] = list(player.hand)
    else:
        match.exposed = [name]
        match.phase = CardPhase.OVER
        match.round += 1
    return event


# -- knife throwing, throw by throw -------------------------------------------------------------


@dataclass(slots=True)
class KnifePlayer:
    """``target``: BS, or BS/2 without Specialist Weapon (Throwing); ``fortune``: the game's
    fortune point Jeu gives (l. 1896-1897), True while unspent; ``pending``: a missed throw the
    player may still roll again with it (the test's dict) before its 1d10 is rolled."""

    name: str
    target: int
    fortune: bool = False
    throws: list[dict[str, Any]] = field(default_factory=list)
    pending: dict[str, Any] | None = None

    @property
    def total(self) -> int:
        return sum(int(t["points"]) for t in self.throws)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "target": self.target,
            "fortune": self.fortune,
            "throws": list(self.throws),
            "pending": self.pending,
            "total": self.total,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> KnifePlayer:
        return cls(
            str(data["name"]),
            int(data["target"]),
            bool(data.get("fortune")),
            list(data.get("throws", [])),
            data.get("pending"),
        )


@dataclass(slots=True)
class KnivesMatch:
    players: list[KnifePlayer]
    round: int = 1  # constant: the throws are each player's own, no board goes stale
    winners: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": "knives",
            "players": [p.to_dict() for p in self.players],
            "round": self.round,
            "winners": list(self.winners),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> KnivesMatch:
        return cls(
            [KnifePlayer.from_dict(p) for p in data["players"]],
            int(data.get("round", 1)),
            list(data.get("winners", [])),
        )

    @property
    def over(self) -> bool:
        return bool(self.winners)

    def player(self, name: str) -> KnifePlayer:
        for p in self.players:
            if p.name == name:
                return p
        raise TavernError("not_playing", name=name)

    def waiting(self) -> list[str]:
        if self.over:
            return []
        return [p.name for p in self.players if len(p.throws) < tavern.KNIFE_THROWS or p.pending]


def new_knives_match(players: Sequence[tuple[str, int, bool, bool]]) -> KnivesMatch:
    """``players``: (name, BS, the talent, Jeu)."""
    if len(players) < 2:
        raise TavernError("two_players")
    return KnivesMatch(
        [KnifePlayer(name, bs if talent else bs // 2, fortune=gamble) for name, bs, talent, gamble in players]
    )


def _knife_test(player: KnifePlayer, roll: int) -> dict[str, Any]:
    return tavern._check(player.target, roll, "flows.tavern.label.CT").to_dict()


def _score(
    match: KnivesMatch, player: KnifePlayer, test: dict[str, Any], dice: Dice, **extra: Any
) -> dict[str, Any]:
    """A throw settled: its margin on a hit, 1d10 on a miss."""
    if test["success"]:
        throw = {"test": test, "points": int(test["margin"]), "miss_die": None, **extra}
    else:
        die = dice.roll(player.name, 10)
        throw = {"test": test, "points": die, "miss_die": die, **extra}
    player.throws.append(throw)
    if not match.waiting():
        best = max(p.total for p in match.players)
        match.winners = [p.name for p in match.players if p.total == best]
    return throw


def knife(match: KnivesMatch, name: str, dice: Dice) -> dict[str, Any]:
    """The next of the player's three throws. A miss the fortune point may reroll waits for the
    player's choice (:func:`knife_fortune`); otherwise it scores at once."""
    if match.over:
        raise TavernError("match_over")
    player = match.player(name)
    if player.pending:
        raise TavernError("fortune_choice", name=name)
    if len(player.throws) >= tavern.KNIFE_THROWS:
        raise TavernError("no_throw_left", name=name)
    test = _knife_test(player, dice.roll(name, 100))
    if player.fortune and not test["success"] and not test["critical_failure"]:
        player.pending = test
        return {"move": "knife", "name": name, "test": test, "pending": True}
    return {"move": "knife", "name": name, **_score(match, player, test, dice)}


def knife_fortune(match: KnivesMatch, name: str, dice: Dice, *, spend: bool) -> dict[str, Any]:
    """After a miss: spend the fortune point to throw again, or keep the miss (its 1d10)."""
    if match.over:
        raise TavernError("match_over")
    player = match.player(name)
    if player.pending is None:
        raise TavernError("no_miss_pending", name=name)
    first, player.pending = player.pending, None
    if not spend:
        return {"move": "keep", "name": name, **_score(match, player, first, dice)}
    player.fortune = False
    test = _knife_test(player, dice.roll(name, 100))
    return {"move": "luck", "name": name, **_score(match, player, test, dice, rerolled=first)}
