"""Opposed tests, group opposed tests and their reroll rounds, for the four rulesets.

Seed rules and readings, per ruleset (:data:`DEFAULT_RULES`; a server may override them):

* ``renove`` (seed 000): only one succeeds → wins; both succeed → more °R wins, equal °R → lower
  roll wins ("le résultat le plus bas s'ils sont identiques"); equal rolls → roll again (reading);
  both fail → "ils doivent tous deux le retenter jusqu'à ce qu'un des deux sorte vainqueur".
* ``v1`` (seed 001 names opposed tests but gives no procedure): reading — the renove procedure
  with the v1 margin in place of °R.
* ``d20`` (seed 003, attack vs defence): both succeed → higher MR wins, equal MR → blocked (no
  winner); one succeeds → wins; both fail → "il ne se passe rien" (no winner). The signed
  :attr:`OpposedRound.margin_difference` is the seed's exchange value (MR_a − MR_b, MR_a + failure
  margin_b, −(failure margin_a + MR_b), or 0).
* ``ogl`` (seed 004): both succeed → "celui qui a obtenu le résultat le plus élevé gagne"; one
  succeeds → wins. Readings: both fail → no winner; equal successful rolls → roll again; a
  critical does not beat a plain success unless ``critical_beats_success`` is set (the seed does
  not say so).

Group opposed tests (seed 000, guards vs thief) — reading: every member of side A is opposed to
every member of side B; each participant rolls once per round and that roll serves all their
unresolved pairs; resolved pairs stop; participants of unresolved pairs roll again.

Every reroll loop is bounded (``max_rounds``, default 100): past it the pair is UNDECIDED. With
no random source, rolls are taken from the pre-entered sequences; when they run out the test
stops as PENDING (the table must roll again), so a button or a form can continue it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from bot.rules.checks.common import (
    BASE_LABEL,
    CheckResult,
    DiceError,
    Modifier,
    System,
    build_target,
    obtain_roll,
)
from bot.rules.checks.dispatch import die_for, result_from_roll
from bot.rules.random_source import RandomSource

DEFAULT_MAX_ROUNDS = 100


class Ranking(StrEnum):
    """How two successes are separated."""

    DEGREES_THEN_LOWER_ROLL = "degrees_then_lower_roll"
    MARGIN_THEN_LOWER_ROLL = "margin_then_lower_roll"
    MARGIN = "margin"
    HIGHER_ROLL = "higher_roll"


class TieRule(StrEnum):
    REROLL = "reroll"
    NO_WINNER = "no_winner"


@dataclass(frozen=True, slots=True)
class OpposedRules:
    system: System
    ranking: Ranking
    both_fail: TieRule
    tie: TieRule
    critical_beats_success: bool = False
    max_rounds: int = DEFAULT_MAX_ROUNDS

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.system.value,
            "ranking": self.ranking.value,
            "both_fail": self.both_fail.value,
            "tie": self.tie.value,
            "critical_beats_success": self.critical_beats_success,
            "max_rounds": self.max_rounds,
        }


DEFAULT_RULES: dict[System, OpposedRules] = {
    System.RENOVE: OpposedRules(
        System.RENOVE, Ranking.DEGREES_THEN_LOWER_ROLL, TieRule.REROLL, TieRule.REROLL
    ),
    System.V1: OpposedRules(System.V1, Ranking.MARGIN_THEN_LOWER_ROLL, TieRule.REROLL, TieRule.REROLL),
    System.D20: OpposedRules(System.D20, Ranking.MARGIN, TieRule.NO_WINNER, TieRule.NO_WINNER),
    System.OGL: OpposedRules(System.OGL, Ranking.HIGHER_ROLL, TieRule.NO_WINNER, TieRule.REROLL),
}


def rules_for(system: System | str) -> OpposedRules:
    return DEFAULT_RULES[System(system)]


class Verdict(StrEnum):
    A = "a"
    B = "b"
    REROLL = "reroll"
    NO_WINNER = "no_winner"


@dataclass(frozen=True, slots=True)
class Contestant:
    """One side of an opposed test. ``resolver`` overrides the ruleset's plain check (e.g. to
    pass `ogl` options or a `d20` difficulty): it maps a die value to a :class:`CheckResult`."""

    name: str
    base: int
    modifiers: tuple[Modifier, ...] = ()
    base_label: str = BASE_LABEL
    resolver: Callable[[int], CheckResult] | None = field(default=None, compare=False)

    def resolve(self, system: System, roll: int) -> CheckResult:
        if self.resolver is not None:
            return self.resolver(roll)
        target, items = build_target(self.base, self.modifiers, self.base_label)
        return result_from_roll(system, target, items, roll)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "base": self.base,
            "base_label": self.base_label,
            "modifiers": [m.to_dict() for m in self.modifiers],
        }


def _success_key(result: CheckResult, ranking: Ranking) -> tuple[int, ...]:
    """Larger is better."""
    match ranking:
        case Ranking.DEGREES_THEN_LOWER_ROLL:
            return (result.degrees or 0, -result.roll)
        case Ranking.MARGIN_THEN_LOWER_ROLL:
            return (result.margin, -result.roll)
        case Ranking.MARGIN:
            return (result.margin,)
        case Ranking.HIGHER_ROLL:
            return (result.roll,)


_REASON_BY_RANKING = {
    Ranking.DEGREES_THEN_LOWER_ROLL: (
        "checks.opposed.reason.more_degrees",
        "checks.opposed.reason.lower_roll",
    ),
    Ranking.MARGIN_THEN_LOWER_ROLL: (
        "checks.opposed.reason.higher_margin",
        "checks.opposed.reason.lower_roll",
    ),
    Ranking.MARGIN: ("checks.opposed.reason.higher_margin",),
    Ranking.HIGHER_ROLL: ("checks.opposed.reason.higher_roll",),
}


def compare(a: CheckResult, b: CheckResult, rules: OpposedRules) -> tuple[Verdict, str]:
    """Decide one round: the verdict and a catalogue key explaining it."""
    if a.success != b.success:
        return (Verdict.A if a.success else Verdict.B), "checks.opposed.reason.only_one_success"
    if not a.success:
        verdict = Verdict.REROLL if rules.both_fail is TieRule.REROLL else Verdict.NO_WINNER
        return verdict, "checks.opposed.reason.both_failed"
    if rules.critical_beats_success and a.critical_success != b.critical_success:
        return (Verdict.A if a.critical_success else Verdict.B), "checks.opposed.reason.critical"
    key_a, key_b = _success_key(a, rules.ranking), _success_key(b, rules.ranking)
    if key_a == key_b:
        verdict = Verdict.REROLL if rules.tie is TieRule.REROLL else Verdict.NO_WINNER
        return verdict, "checks.opposed.reason.tie"
    # The reason is the first criterion that separated them.
    reasons = _REASON_BY_RANKING[rules.ranking]
    index = next(i for i, (x, y) in enumerate(zip(key_a, key_b, strict=True)) if x != y)
    return (Verdict.A if key_a > key_b else Verdict.B), reasons[index]


def margin_difference(a: CheckResult, b: CheckResult) -> int:
    """Signed exchange value from A's side (the `d20` seed's attack/defence arithmetic)."""
    if a.success and b.success:
        return a.margin - b.margin
    if a.success:
        return a.margin + b.margin
    if b.success:
        return -(a.margin + b.margin)
    return 0


@dataclass(frozen=True, slots=True)
class OpposedRound:
    number: int
    a: CheckResult
    b: CheckResult
    verdict: Verdict
    reason: str

    @property
    def margin_difference(self) -> int:
        return margin_difference(self.a, self.b)

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "verdict": self.verdict.value,
            "reason": self.reason,
            "margin_difference": self.margin_difference,
        }


class Status(StrEnum):
    """Catalogue key ``checks.opposed.status.<value>``."""

    DECIDED = "decided"
    NO_WINNER = "no_winner"
    UNDECIDED = "undecided"  # max_rounds reached
    PENDING = "pending"  # hand-entered dice ran out: roll again

    @property
    def key(self) -> str:
        return f"checks.opposed.status.{self.value}"


def _status_of(last: Verdict | None) -> Status:
    if last in (Verdict.A, Verdict.B):
        return Status.DECIDED
    if last is Verdict.NO_WINNER:
        return Status.NO_WINNER
    return Status.UNDECIDED


@dataclass(frozen=True, slots=True)
class OpposedResult:
    system: System
    a: Contestant
    b: Contestant
    rounds: tuple[OpposedRound, ...]
    status: Status

    @property
    def winner(self) -> Contestant | None:
        if self.status is not Status.DECIDED:
            return None
        return self.a if self.rounds[-1].verdict is Verdict.A else self.b

    @property
    def loser(self) -> Contestant | None:
        winner = self.winner
        if winner is None:
            return None
        return self.b if winner is self.a else self.a

    @property
    def final(self) -> OpposedRound | None:
        return self.rounds[-1] if self.rounds else None

    def to_dict(self) -> dict[str, Any]:
        winner = self.winner
        return {
            "system": self.system.value,
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "rounds": [r.to_dict() for r in self.rounds],
            "status": self.status.value,
            "status_key": self.status.key,
            "winner": winner.name if winner is not None else None,
        }


class _Dice:
    """Per-participant dice: pre-entered values first, then the random source if any."""

    def __init__(self, die: int, rng: RandomSource | None, entered: Sequence[int]) -> None:
        self._die = die
        self._rng = rng
        self._entered: Iterator[int] = iter(entered)

    def next(self) -> int | None:
        value = next(self._entered, None)
        if value is None and self._rng is None:
            return None
        return obtain_roll(self._die, self._rng, value)


def opposed_test(
    a: Contestant,
    b: Contestant,
    *,
    system: System | str,
    rules: OpposedRules | None = None,
    rng: RandomSource | None = None,
    rolls_a: Sequence[int] = (),
    rolls_b: Sequence[int] = (),
) -> OpposedResult:
    """Run an opposed test, rerolling as the ruleset says, and keep every round."""
    sys_ = System(system)
    rules = rules or rules_for(sys_)
    die = die_for(sys_)
    dice_a, dice_b = _Dice(die, rng, rolls_a), _Dice(die, rng, rolls_b)
    rounds: list[OpposedRound] = []
    while len(rounds) < rules.max_rounds:
        roll_a, roll_b = dice_a.next(), dice_b.next()
        if roll_a is None or roll_b is None:
            return OpposedResult(sys_, a, b, tuple(rounds), Status.PENDING)
        res_a, res_b = a.resolve(sys_, roll_a), b.resolve(sys_, roll_b)
        verdict, reason = compare(res_a, res_b, rules)
        rounds.append(OpposedRound(len(rounds) + 1, res_a, res_b, verdict, reason))
        if verdict is not Verdict.REROLL:
            break
    return OpposedResult(sys_, a, b, tuple(rounds), _status_of(rounds[-1].verdict if rounds else None))


# --- group opposed tests -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PairResult:
    """One A-member vs one B-member, with the rounds they took part in (shared rolls)."""

    a: str
    b: str
    rounds: tuple[OpposedRound, ...]
    status: Status

    @property
    def winner(self) -> str | None:
        if self.status is not Status.DECIDED:
            return None
        return self.a if self.rounds[-1].verdict is Verdict.A else self.b

    @property
    def loser(self) -> str | None:
        winner = self.winner
        if winner is None:
            return None
        return self.b if winner == self.a else self.a

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "rounds": [r.to_dict() for r in self.rounds],
            "status": self.status.value,
            "status_key": self.status.key,
            "winner": self.winner,
        }


@dataclass(frozen=True, slots=True)
class GroupRound:
    """Every roll of one round (only participants of still-open pairs roll)."""

    number: int
    results: tuple[tuple[str, CheckResult], ...]

    def result_of(self, name: str) -> CheckResult | None:
        return next((r for n, r in self.results if n == name), None)

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, "results": {n: r.to_dict() for n, r in self.results}}


@dataclass(frozen=True, slots=True)
class GroupOpposedResult:
    system: System
    side_a: tuple[Contestant, ...]
    side_b: tuple[Contestant, ...]
    rounds: tuple[GroupRound, ...]
    pairs: tuple[PairResult, ...]

    @property
    def complete(self) -> bool:
        return all(p.status is not Status.PENDING for p in self.pairs)

    @property
    def beats(self) -> tuple[tuple[str, str], ...]:
        """(winner, loser) for every decided pair: who beat whom."""
        return tuple((p.winner, p.loser) for p in self.pairs if p.winner is not None and p.loser is not None)

    def pair(self, a: str, b: str) -> PairResult:
        for p in self.pairs:
            if {p.a, p.b} == {a, b}:
                return p
        raise KeyError((a, b))

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.system.value,
            "side_a": [c.to_dict() for c in self.side_a],
            "side_b": [c.to_dict() for c in self.side_b],
            "rounds": [r.to_dict() for r in self.rounds],
            "pairs": [p.to_dict() for p in self.pairs],
            "beats": [list(x) for x in self.beats],
            "complete": self.complete,
        }


def group_opposed_test(
    side_a: Sequence[Contestant],
    side_b: Sequence[Contestant],
    *,
    system: System | str,
    rules: OpposedRules | None = None,
    rng: RandomSource | None = None,
    rolls: Mapping[str, Sequence[int]] | None = None,
) -> GroupOpposedResult:
    """Oppose every member of ``side_a`` to every member of ``side_b``.

    ``rolls`` maps a participant's name to their pre-entered rolls, one per round they take part in.
    """
    sys_ = System(system)
    rules = rules or rules_for(sys_)
    if not side_a or not side_b:
        raise ValueError("both sides need at least one participant")
    everyone = [*side_a, *side_b]
    names = [c.name for c in everyone]
    if len(set(names)) != len(names):
        raise ValueError("participant names must be unique across both sides")
    die = die_for(sys_)
    entered = rolls or {}
    unknown = set(entered) - set(names)
    if unknown:
        raise DiceError(f"rolls given for unknown participants: {sorted(unknown)}")
    dice = {c.name: _Dice(die, rng, entered.get(c.name, ())) for c in everyone}
    by_name = {c.name: c for c in everyone}

    history: dict[tuple[str, str], list[OpposedRound]] = {
        (x.name, y.name): [] for x in side_a for y in side_b
    }
    settled: dict[tuple[str, str], Status] = {}
    rounds: list[GroupRound] = []
    while len(rounds) < rules.max_rounds:
        open_pairs = [p for p in history if p not in settled]
        if not open_pairs:
            break
        active = [n for n in names if any(n in p for p in open_pairs)]
        drawn = {n: dice[n].next() for n in active}
        if any(v is None for v in drawn.values()):
            break  # PENDING: dice are missing for this round, roll nothing.
        results = {n: by_name[n].resolve(sys_, v) for n, v in drawn.items() if v is not None}
        number = len(rounds) + 1
        rounds.append(GroupRound(number, tuple(results.items())))
        for pa, pb in open_pairs:
            verdict, reason = compare(results[pa], results[pb], rules)
            history[(pa, pb)].append(OpposedRound(number, results[pa], results[pb], verdict, reason))
            if verdict is not Verdict.REROLL:
                settled[(pa, pb)] = _status_of(verdict)

    out_of_rounds = len(rounds) >= rules.max_rounds
    pairs = tuple(
        PairResult(
            pa,
            pb,
            tuple(history[(pa, pb)]),
            settled.get((pa, pb), Status.UNDECIDED if out_of_rounds else Status.PENDING),
        )
        for pa, pb in history
    )
    return GroupOpposedResult(sys_, tuple(side_a), tuple(side_b), tuple(rounds), pairs)


# --- opposition skills table (data lives in data/*.json) ---------------------------------------


@dataclass(frozen=True, slots=True)
class OppositionEntry:
    """A row of the seed's "Compétence / Opposer à" table (e.g. Dissimulation / Perception)."""

    skill: str
    opposed_by: str


def opposing_skills(skill: str, table: Sequence[OppositionEntry]) -> tuple[str, ...]:
    """Skills that oppose ``skill``, reading the table both ways (Perception → Dissimulation…)."""
    wanted = skill.casefold().strip()
    found: list[str] = []
    for row in table:
        if row.skill.casefold().strip() == wanted:
            found.append(row.opposed_by)
        elif row.opposed_by.casefold().strip() == wanted:
            found.append(row.skill)
    return tuple(dict.fromkeys(found))


def with_rules(system: System | str, **overrides: Any) -> OpposedRules:
    """The ruleset's default opposed rules with some fields overridden (per-server settings)."""
    return replace(rules_for(system), **overrides)
