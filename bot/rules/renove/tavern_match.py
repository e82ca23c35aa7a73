"""Tavern games played move by move at the table (seed 000, "Jeux de taverne", l. 1816-1898).

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
        match.phase = Phase.BET
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
