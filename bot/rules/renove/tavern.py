"""Tavern games (seed 000, "Jeux de taverne"; data/tavern_games.json).

* Arm wrestling: simple — one opposed S test; full — score from 0, one opposed S test a round,
  winner +1 / loser −1, +2 wins, −2 loses; both succeed → nobody scores, the larger success
  margin adds the difference of the margins to S next round (reading); both fail → the round is
  replayed (reading). Cheating before a round: Gamble opposed to the opponent's Perception;
  success +10 S this round, failure exposes the cheat.
* Cards / dice, simple: everyone rolls 1d100, highest wins; Gamble adds half Int; cheating
  (hidden cards: Gamble opposed to every other player's Perception; loaded dice: no test — a
  reading, the seed gives no effect) doubles that bonus; a failed cheat is exposed.
* Dice, full: 5d6, combinations from the seed's table (low to high as printed); loaded dice:
  1d20 ≤ number of loaded dice rolled → one die must show the loaded face (6 by default).
* Cards, full: deck of 32 (3-4 players) … 52 (8 players), 5-card hands, the ranking of the
  deck size (32-40 or 44-52).
* Drinking: Consume Alcohol tests each round, four failures eliminate, the last one standing
  wins; a successful cheat (Gamble vs everyone's Perception) skips that round's test.
* Knife throwing: three throws under BS (BS/2 without the talent); a hit scores its success
  margin, a miss 1d10.
Every die may be typed by hand (``rolls`` sequences), the random source rolls the rest.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.rules import opposed
from bot.rules.checks.common import CheckResult, Modifier, System, obtain_roll
from bot.rules.random_source import RandomSource
from bot.rules.renove import checks as renove

MAX_ROUNDS = 60
DRINK_FAILURES = 4
KNIFE_THROWS = 3


class TavernError(ValueError):
    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


class Dice:
    """Dice typed by hand first (per name), then the random source; none left → DiceError."""

    def __init__(self, rng: RandomSource | None, entered: Mapping[str, Sequence[int]] | None = None) -> None:
        self.rng = rng
        self._entered: dict[str, Iterator[int]] = {k: iter(v) for k, v in (entered or {}).items()}

    def roll(self, who: str, sides: int) -> int:
        value = next(self._entered.get(who, iter(())), None)
        return obtain_roll(sides, self.rng if value is None else None, value)


def _check(base: int, roll: int, label: str, modifiers: Sequence[Modifier] = ()) -> CheckResult:
    return renove.check(base, modifiers, roll=roll, base_label=label)


# -- arm wrestling ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Wrestler:
    """One side of an arm wrestling. ``cheat_rounds``: the rounds this player cheats before
    (``None``: never; empty: every round); cheating needs ``gamble`` (the Jeu target)."""

    name: str
    strength: int
    gamble: int | None = None
    perception: int = 0
    cheat_rounds: tuple[int, ...] | None = None

    def cheats_in(self, number: int) -> bool:
        if self.cheat_rounds is None:
            return False
        return not self.cheat_rounds or number in self.cheat_rounds


@dataclass(frozen=True, slots=True)
class CheatTest:
    """A cheat before a round: the cheater's Jeu against the opponent's Perception, rerolled until
    one of them wins (every round of that opposed test is kept, so the table sees the rolls)."""

    who: str  # "a" or "b"
    tests: tuple[tuple[CheckResult, CheckResult], ...]
    success: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "who": self.who,
            "success": self.success,
            "tests": [{"gamble": x.to_dict(), "perception": y.to_dict()} for x, y in self.tests],
        }


@dataclass(frozen=True, slots=True)
class ArmRound:
    number: int
    a: CheckResult | None  # None: a cheat was exposed before the S tests
    b: CheckResult | None
    cheats: tuple[CheatTest, ...]
    winner: str | None  # "a", "b" or None
    score: int  # A's score after the round

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "a": self.a.to_dict() if self.a else None,
            "b": self.b.to_dict() if self.b else None,
            "cheats": [c.to_dict() for c in self.cheats],
            "winner": self.winner,
            "score": self.score,
        }


@dataclass(frozen=True, slots=True)
class ArmWrestling:
    rounds: tuple[ArmRound, ...]
    winner: str | None
    exposed: tuple[str, ...] = ()  # "a" and/or "b": whose cheat was unmasked (the match stops)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rounds": [r.to_dict() for r in self.rounds],
            "winner": self.winner,
            "exposed": list(self.exposed),
        }


def arm_wrestling(a: Wrestler, b: Wrestler, *, full: bool, dice: Dice) -> ArmWrestling:
    """A against B. Full version: either player may cheat before any round (Jeu opposed to the
    other's Perception: +10 S that round, or exposed and the match stops)."""
    for side in (a, b):
        if side.cheat_rounds is not None:
            if not full:
                raise TavernError("cheat_full_only")
            if side.gamble is None:
                raise TavernError("cheat_needs_gamble", name=side.name)
    if full:
        return _arm_full(a, b, dice)
    rounds: list[ArmRound] = []
    winner: str | None = None
    while winner is None and len(rounds) < MAX_ROUNDS:
        ra = _check(a.strength, dice.roll(a.name, 100), "flows.tavern.label.F")
        rb = _check(b.strength, dice.roll(b.name, 100), "flows.tavern.label.F")
        winner = _verdict(ra, rb)
        rounds.append(ArmRound(len(rounds) + 1, ra, rb, (), winner, 0))
    return ArmWrestling(tuple(rounds), winner)


def _verdict(a: CheckResult, b: CheckResult) -> str | None:
    verdict, _ = opposed.compare(a, b, opposed.rules_for(System.RENOVE))
    return {opposed.Verdict.A: "a", opposed.Verdict.B: "b"}.get(verdict)


def _opposed(
    a: tuple[str, int, str], b: tuple[str, int, str], dice: Dice
) -> tuple[str, list[tuple[CheckResult, CheckResult]]]:
    """(who, base, label) against (who, base, label), rolling again until one wins."""
    rounds: list[tuple[CheckResult, CheckResult]] = []
    while len(rounds) < MAX_ROUNDS:
        ra = _check(a[1], dice.roll(a[0], 100), a[2])
        rb = _check(b[1], dice.roll(b[0], 100), b[2])
        rounds.append((ra, rb))
        winner = _verdict(ra, rb)
        if winner is not None:
            return winner, rounds
    return "b", rounds


def _arm_full(a: Wrestler, b: Wrestler, dice: Dice) -> ArmWrestling:
    score = 0
    carry = {"a": 0, "b": 0}
    rounds: list[ArmRound] = []
    while abs(score) < 2 and len(rounds) < MAX_ROUNDS:
        number = len(rounds) + 1
        cheaters = {key for key, w in (("a", a), ("b", b)) if w.cheats_in(number)}
        played, carry = arm_round(a, b, number, score, carry, cheaters, dice)
        rounds.append(played)
        score = played.score
        exposed = tuple(c.who for c in played.cheats if not c.success)
        if exposed:
            # Exposed: the match stops there; what follows is the GM's call (data: on_failure).
            return ArmWrestling(tuple(rounds), None, exposed=exposed)
    final = "a" if score >= 2 else "b" if score <= -2 else None
    return ArmWrestling(tuple(rounds), final)


def arm_round(
    a: Wrestler,
    b: Wrestler,
    number: int,
    score: int,
    carry: Mapping[str, int],
    cheaters: set[str],
    dice: Dice,
) -> tuple[ArmRound, dict[str, int]]:
    """One round of the full version: the cheats first (``cheaters``: "a"/"b"), then the opposed
    S tests; returns the round (its ``score`` is A's after it) and the excess carried to the next."""
    players = {"a": a, "b": b}
    cheats: list[CheatTest] = []
    for key, other in (("a", "b"), ("b", "a")):
        me, them = players[key], players[other]
        if key not in cheaters:
            continue
        if me.gamble is None:
            raise TavernError("cheat_needs_gamble", name=me.name)
        side, tests = _opposed(
            (me.name, me.gamble, "flows.tavern.label.gamble"),
            (them.name, them.perception, "flows.tavern.label.perception"),
            dice,
        )
        cheats.append(CheatTest(key, tuple(tests), side == "a"))
    if any(not c.success for c in cheats):
        return ArmRound(number, None, None, tuple(cheats), None, score), dict(carry)
    mods: dict[str, list[Modifier]] = {"a": [], "b": []}
    for cheat in cheats:
        mods[cheat.who].append(Modifier("flows.tavern.label.cheat", 10))
    for key in ("a", "b"):
        if carry.get(key):
            mods[key].append(Modifier("flows.tavern.label.carry", carry[key]))
    ra = _check(a.strength, dice.roll(a.name, 100), "flows.tavern.label.F", mods["a"])
    rb = _check(b.strength, dice.roll(b.name, 100), "flows.tavern.label.F", mods["b"])
    new_carry = {"a": 0, "b": 0}
    winner: str | None = None
    if ra.success and rb.success:
        if ra.margin != rb.margin:
            side = "a" if ra.margin > rb.margin else "b"
            new_carry[side] = abs(ra.margin - rb.margin)
    elif ra.success or rb.success:
        winner = "a" if ra.success else "b"
        score += 1 if winner == "a" else -1
    return ArmRound(number, ra, rb, tuple(cheats), winner, score), new_carry


# -- simple cards and dice -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Gambler:
    name: str
    intelligence: int = 0
    gamble: int | None = None  # the Jeu skill %, None without it
    perception: int = 0
    cheats: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "Int": self.intelligence,
            "Jeu": self.gamble,
            "Perception": self.perception,
            "cheats": self.cheats,
        }


@dataclass(frozen=True, slots=True)
class Score:
    name: str
    roll: int
    bonus: int
    total: int
    exposed: bool = False
    cheat_tests: tuple[dict[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "roll": self.roll,
            "bonus": self.bonus,
            "total": self.total,
            "exposed": self.exposed,
            "cheat_tests": list(self.cheat_tests),
        }


def _cheat_vs_everyone(
    cheater: Gambler, others: Sequence[Gambler], dice: Dice
) -> tuple[bool, list[dict[str, Any]]]:
    """Gamble opposed to each other player's Perception; every one must be beaten."""
    if cheater.gamble is None:
        raise TavernError("cheat_needs_gamble", name=cheater.name)
    tests: list[dict[str, Any]] = []
    for other in others:
        side, rounds = _opposed(
            (cheater.name, cheater.gamble, "flows.tavern.label.gamble"),
            (other.name, other.perception, "flows.tavern.label.perception"),
            dice,
        )
        tests.append(
            {
                "against": other.name,
                "winner": cheater.name if side == "a" else other.name,
                "rounds": [{"a": x.to_dict(), "b": y.to_dict()} for x, y in rounds],
            }
        )
        if side != "a":
            return False, tests
    return True, tests


cheat_vs_everyone = _cheat_vs_everyone


def highest_roll(
    players: Sequence[Gambler], *, dice: Dice, loaded_dice: bool = False
) -> tuple[list[Score], list[str]]:
    """Cards or dice, simple version: 1d100 + Int/2 with Gamble (×2 for a successful cheat)."""
    if len(players) < 2:
        raise TavernError("two_players")
    scores: list[Score] = []
    for player in players:
        bonus = player.intelligence // 2 if player.gamble is not None else 0
        exposed = False
        tests: list[dict[str, Any]] = []
        if player.cheats:
            if loaded_dice:
                ok = True
                if bonus == 0:
                    bonus = player.intelligence // 2
            else:
                ok, tests = _cheat_vs_everyone(player, [p for p in players if p is not player], dice)
            if ok:
                bonus *= 2
            else:
                exposed = True
        roll = dice.roll(player.name, 100)
        scores.append(Score(player.name, roll, bonus, roll + bonus, exposed, tuple(tests)))
    honest = [s for s in scores if not s.exposed] or scores
    best = max(s.total for s in honest)
    return scores, [s.name for s in honest if s.total == best]


# -- dice, full version ----------------------------------------------------------------------

DICE_RANKS = ("Dé haut", "Paire", "Brelan", "Double paire", "Carré", "Suite", "Full", "Quinte")


def dice_combination(values: Sequence[int], ranking: Sequence[str] = DICE_RANKS) -> tuple[int, str]:
    """(rank index, name) of five d6 — the seed's table, low to high as printed."""
    counts = sorted(Counter(values).values(), reverse=True)
    straight = sorted(values) in ([1, 2, 3, 4, 5], [2, 3, 4, 5, 6])
    if counts[0] == 5:
        name = "Quinte"
    elif straight:
        name = "Suite"
    elif counts[:2] == [3, 2]:
        name = "Full"
    elif counts[0] == 4:
        name = "Carré"
    elif counts[:2] == [2, 2]:
        name = "Double paire"
    elif counts[0] == 3:
        name = "Brelan"
    elif counts[0] == 2:
        name = "Paire"
    else:
        name = "Dé haut"
    return list(ranking).index(name), name


@dataclass(frozen=True, slots=True)
class DiceHand:
    name: str
    dice: tuple[int, ...]
    rank: int
    combination: str
    cheat_roll: int | None = None
    cheat_worked: bool | None = None

    def key(self) -> tuple[int, tuple[int, ...]]:
        return self.rank, tuple(sorted(self.dice, reverse=True))

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "dice": list(self.dice),
            "rank": self.rank,
            "combination": self.combination,
            "cheat_roll": self.cheat_roll,
            "cheat_worked": self.cheat_worked,
        }


def dice_hand(
    name: str,
    *,
    dice: Dice,
    keep: Sequence[int] = (),
    loaded: int = 0,
    loaded_face: int = 6,
) -> DiceHand:
    """Roll 5d6 (or reroll around the kept dice); ``loaded`` dice of the five are loaded."""
    if len(keep) > 5 or any(not 1 <= v <= 6 for v in keep):
        raise TavernError("bad_keep")
    if not 0 <= loaded <= 5:
        raise TavernError("bad_loaded")
    values = list(keep) + [dice.roll(name, 6) for _ in range(5 - len(keep))]
    cheat_roll = worked = None
    if loaded:
        cheat_roll = dice.roll(name, 20)
        worked = cheat_roll <= loaded
        if worked and loaded_face not in values[len(keep) :]:
            # One die just rolled must show the loaded face: the lowest of them.
            fresh = range(len(keep), 5)
            lowest = min(fresh, key=lambda i: values[i]) if len(keep) < 5 else None
            if lowest is not None:
                values[lowest] = loaded_face
    rank, combination = dice_combination(values)
    return DiceHand(name, tuple(values), rank, combination, cheat_roll, worked)


def best_hands(hands: Sequence[DiceHand]) -> list[str]:
    best = max(h.key() for h in hands)
    return [h.name for h in hands if h.key() == best]


# -- cards, full version ---------------------------------------------------------------------

CARD_RANKS_32 = ("7", "8", "9", "10", "V", "D", "R", "As")
SUITS = ("♠", "♥", "♦", "♣")


def deck_size(players: int, sizes: Sequence[Mapping[str, int]]) -> int:
    for row in sizes:
        if row["players"] == players:
            return int(row["cards"])
    raise TavernError(
        "players_range", min=min(r["players"] for r in sizes), max=max(r["players"] for r in sizes)
    )


def build_deck(size: int) -> list[str]:
    """32 cards: 7 to Ace; each 4 more cards add the next lower rank (6, 5, 4, 3, 2)."""
    ranks = list(CARD_RANKS_32)
    extra = ["6", "5", "4", "3", "2"]
    while len(ranks) * 4 < size and extra:
        ranks.insert(0, extra.pop(0))
    return [f"{rank}{suit}" for rank in ranks for suit in SUITS][:size]


def card_combination(hand: Sequence[str], ranking: Sequence[str], ranks: Sequence[str]) -> tuple[int, str]:
    values = [ranks.index(card[:-1]) for card in hand]
    suits = [card[-1] for card in hand]
    counts = sorted(Counter(values).values(), reverse=True)
    ordered = sorted(values)
    straight = len(set(values)) == 5 and (
        ordered[-1] - ordered[0] == 4 or ordered == [0, 1, 2, 3, len(ranks) - 1]
    )
    flush = len(set(suits)) == 1
    if straight and flush:
        name = "Suite Impériale"
    elif counts[0] == 4:
        name = "Carré"
    elif counts[:2] == [3, 2]:
        name = "Full"
    elif flush:
        name = "Couleur"
    elif straight:
        name = "Suite"
    elif counts[0] == 3:
        name = "Brelan"
    elif counts[:2] == [2, 2]:
        name = "Double paire"
    elif counts[0] == 2:
        name = "Paire"
    else:
        name = "Carte haute"
    return list(ranking).index(name), name


def deal(size: int, players: Sequence[str], *, rng: RandomSource) -> dict[str, list[str]]:
    deck = build_deck(size)
    for i in range(len(deck) - 1, 0, -1):  # Fisher-Yates with the given random source
        j = rng.randint(0, i)
        deck[i], deck[j] = deck[j], deck[i]
    return {name: deck[k * 5 : k * 5 + 5] for k, name in enumerate(players)}


# -- drinking --------------------------------------------------------------------------------


@dataclass(slots=True)
class Drinker:
    name: str
    resistance: int
    gamble: int | None = None
    perception: int = 0
    cheats: bool = False
    failures: int = 0
    exposed: bool = False


@dataclass(frozen=True, slots=True)
class Drinking:
    rounds: tuple[dict[str, Any], ...]
    winner: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"rounds": list(self.rounds), "winner": self.winner}


def drinking(players: Sequence[Drinker], *, dice: Dice) -> Drinking:
    if len(players) < 2:
        raise TavernError("two_players")
    rounds: list[dict[str, Any]] = []
    in_game = list(players)
    while len(in_game) > 1 and len(rounds) < MAX_ROUNDS:
        entries = []
        for player in in_game:
            entry: dict[str, Any] = {"name": player.name}
            if player.cheats and not player.exposed:
                gambler = Gambler(player.name, gamble=player.gamble)
                others = [Gambler(o.name, perception=o.perception) for o in in_game if o is not player]
                ok, tests = _cheat_vs_everyone(gambler, others, dice)
                entry["cheat"] = {"success": ok, "tests": tests}
                if ok:
                    entry["skipped"] = True
                    entries.append(entry)
                    continue
                player.exposed = True
            test = _check(player.resistance, dice.roll(player.name, 100), "flows.tavern.label.alcohol")
            if not test.success:
                player.failures += 1
            entry.update(test=test.to_dict(), failures=player.failures, out=player.failures >= DRINK_FAILURES)
            entries.append(entry)
        rounds.append({"number": len(rounds) + 1, "entries": entries})
        in_game = [p for p in in_game if p.failures < DRINK_FAILURES]
    winner = in_game[0].name if len(in_game) == 1 else None
    return Drinking(tuple(rounds), winner)


# -- knife throwing --------------------------------------------------------------------------

FORTUNE_FIRST_MISS = 0


@dataclass(frozen=True, slots=True)
class Throw:
    test: CheckResult
    points: int
    miss_die: int | None
    rerolled: CheckResult | None = None  # the first test, when the fortune point rolled it again

    def to_dict(self) -> dict[str, Any]:
        return {
            "test": self.test.to_dict(),
            "points": self.points,
            "miss_die": self.miss_die,
            "rerolled": self.rerolled.to_dict() if self.rerolled else None,
        }


@dataclass(frozen=True, slots=True)
class Thrower:
    """``fortune``: spend the game's fortune point (Jeu needed, ``gamble``) to roll a missed
    throw again — ``FORTUNE_FIRST_MISS`` (0) on the first miss that may be rerolled, 1 to 3 on
    that throw. Reading: a fortune point rerolls a failed test (WFRP 2e), never a 99-00."""

    name: str
    bs: int
    talent: bool = True
    gamble: bool = False
    fortune: int | None = None


@dataclass(frozen=True, slots=True)
class KnifeScore:
    name: str
    target: int
    throws: tuple[Throw, ...]
    total: int = field(default=0)
    fortune_used: int | None = None  # the throw (1-3) the fortune point rolled again

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "target": self.target,
            "throws": [t.to_dict() for t in self.throws],
            "total": self.total,
            "fortune_used": self.fortune_used,
        }


def _rerollable(test: CheckResult) -> bool:
    return not test.success and not test.critical_failure


def knife_throwing(players: Sequence[Thrower], *, dice: Dice) -> tuple[list[KnifeScore], list[str]]:
    if len(players) < 2:
        raise TavernError("two_players")
    scores = []
    for player in players:
        if player.fortune is not None and not player.gamble:
            raise TavernError("fortune_needs_gamble", name=player.name)
        if player.fortune is not None and not 0 <= player.fortune <= KNIFE_THROWS:
            raise TavernError("bad_fortune", max=KNIFE_THROWS)
        target = player.bs if player.talent else player.bs // 2
        throws = []
        used: int | None = None
        for number in range(1, KNIFE_THROWS + 1):
            test = _check(target, dice.roll(player.name, 100), "flows.tavern.label.CT")
            first: CheckResult | None = None
            wanted = player.fortune in (FORTUNE_FIRST_MISS, number) and used is None
            if wanted and player.fortune == number and not _rerollable(test):
                code = "fortune_on_hit" if test.success else "fortune_critical"
                raise TavernError(code, name=player.name, throw=number)
            if wanted and _rerollable(test):
                first, used = test, number
                test = _check(target, dice.roll(player.name, 100), "flows.tavern.label.CT")
            if test.success:
                throws.append(Throw(test, test.margin, None, first))
            else:
                die = dice.roll(player.name, 10)
                throws.append(Throw(test, die, die, first))
        total = sum(t.points for t in throws)
        scores.append(KnifeScore(player.name, target, tuple(throws), total, used))
    best = max(s.total for s in scores)
    return scores, [s.name for s in scores if s.total == best]
