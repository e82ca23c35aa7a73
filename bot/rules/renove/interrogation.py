"""Interrogations (seed 000, "IV – Divers — Interrogatoires"; data/interrogation.json).

The GM sorts what the subject knows into four tiers (0 told freely … 3 told very reluctantly).

* Reluctant subject: Intimidation opposed to the subject's FM. The tiers revealed are 0 to N,
  N = °R of the Intimidation − °R of the FM when the FM also succeeds (seed example: Arnolf rolls
  22 with 2 °R, the suspect succeeds with 0 °R → tiers 0, 1 and 2).
* Willing subject: tier 0 at once; a successful Intimidation (simple test) reveals up to °R + 1.
* Torture may follow; its °R add to the Intimidation °R. Discreet variant: Charisme instead of
  Intimidation, no Torture.
* Alternative (extended): a set number of tests, each success reveals one more tier.

Readings (documented in data/interrogation.json and here):

* An Intimidation that loses the opposed test reveals nothing: it fails while the FM succeeds,
  the FM has more °R, or both have the same °R and the FM rolled lower (« le résultat le plus bas
  s'ils sont identiques », the renove opposed-test rule, seed l. 1619); both failing, or the same
  °R and the same roll → both roll again.
* Torture adds its °R only when it succeeds, and only to an Intimidation that won the opposed
  test (a failed Intimidation has °E, not °R; a lost one revealed nothing, torture after it
  follows the same rule).
* Tiers revealed accumulate over the questioning sessions (what was said stays said).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from bot.rules import opposed
from bot.rules.checks.common import CheckResult, DiceError, Modifier, System, obtain_roll
from bot.rules.random_source import RandomSource
from bot.rules.renove import checks as renove

TIERS = (0, 1, 2, 3)
MAX_TIER = 3
MAX_ROUNDS = 100


class Approach(StrEnum):
    INTIMIDATION = "intimidation"
    CHARISME = "charisme"  # the discreet variant


class Mode(StrEnum):
    STANDARD = "standard"
    EXTENDED = "extended"


class InterrogationError(ValueError):
    """A move the rules forbid: catalogue key ``flows.interrogation.error.<code>``."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


SKILL_OF = {Approach.INTIMIDATION: "Intimidation", Approach.CHARISME: "Charisme"}


@dataclass(frozen=True, slots=True)
class Subject:
    name: str
    fm: int
    reluctant: bool
    lines: tuple[str, str, str, str]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "fm": self.fm, "reluctant": self.reluctant, "lines": list(self.lines)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Subject:
        lines = [str(x) for x in data.get("lines", [])][:4]
        lines += [""] * (4 - len(lines))
        return cls(
            str(data["name"]),
            int(data["fm"]),
            bool(data["reluctant"]),
            (lines[0], lines[1], lines[2], lines[3]),
        )


def free_tiers(subject: Subject) -> tuple[int, ...]:
    """What a willing subject tells at once (tier 0); nothing for a reluctant one."""
    return () if subject.reluctant else (0,)


def tiers_up_to(highest: int | None) -> tuple[int, ...]:
    if highest is None or highest < 0:
        return ()
    return tuple(range(min(highest, MAX_TIER) + 1))


@dataclass(frozen=True, slots=True)
class Questioning:
    """One questioning: the interrogator's test(s), the subject's FM, torture, the tiers revealed."""

    approach: Approach
    reluctant: bool
    rounds: tuple[tuple[CheckResult, CheckResult | None], ...]
    torture: CheckResult | None
    net_degrees: int | None
    tiers: tuple[int, ...]
    pending: bool = False  # both failed and the dice entered by hand ran out: roll again
    lost: bool = False  # a reluctant subject's FM won the opposed test: nothing is revealed

    @property
    def test(self) -> CheckResult | None:
        return self.rounds[-1][0] if self.rounds else None

    @property
    def fm(self) -> CheckResult | None:
        return self.rounds[-1][1] if self.rounds else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "approach": self.approach.value,
            "reluctant": self.reluctant,
            "rounds": [
                {"test": a.to_dict(), "fm": b.to_dict() if b is not None else None} for a, b in self.rounds
            ],
            "torture": self.torture.to_dict() if self.torture is not None else None,
            "net_degrees": self.net_degrees,
            "tiers": list(self.tiers),
            "pending": self.pending,
            "lost": self.lost,
        }


def question(
    subject: Subject,
    approach: Approach,
    target: int,
    *,
    rng: RandomSource | None = None,
    rolls: Sequence[int] = (),
    fm_rolls: Sequence[int] = (),
    torture_target: int | None = None,
    torture_roll: int | None = None,
    modifiers: Sequence[Modifier] = (),
) -> Questioning:
    """Resolve one questioning. Dice by hand first (``rolls``/``fm_rolls``), then ``rng`` if any."""
    if torture_target is not None and approach is Approach.CHARISME:
        raise InterrogationError("no_torture_discreet")
    label = f"flows.interrogation.skill.{approach.value}"
    mine, theirs = iter(rolls), iter(fm_rolls)

    def next_roll(source: Iterator[int]) -> int | None:
        value = next(source, None)
        if value is None and rng is None:
            return None
        return obtain_roll(100, rng, value)

    rounds: list[tuple[CheckResult, CheckResult | None]] = []
    if not subject.reluctant:
        roll = next_roll(mine)
        if roll is None:
            raise DiceError("a roll is required")
        test = renove.check(target, modifiers, roll=roll, base_label=label)
        rounds.append((test, None))
        highest = (test.degrees or 0) + 1 if test.success else None
        net = (test.degrees or 0) if test.success else None
        lost = False
    else:
        while True:
            roll, fm_roll = next_roll(mine), next_roll(theirs)
            if roll is None or fm_roll is None:
                if not rounds:
                    raise DiceError("a roll is required")
                return Questioning(approach, True, tuple(rounds), None, None, (), pending=True)
            test = renove.check(target, modifiers, roll=roll, base_label=label)
            fm = renove.check(subject.fm, roll=fm_roll, base_label="flows.interrogation.skill.fm")
            rounds.append((test, fm))
            verdict, _reason = opposed.compare(test, fm, opposed.rules_for(System.RENOVE))
            if verdict in (opposed.Verdict.A, opposed.Verdict.B) or len(rounds) >= MAX_ROUNDS:
                break
        lost = verdict is not opposed.Verdict.A
        opposing = (fm.degrees or 0) if fm.success else 0
        net = (test.degrees or 0) - opposing if test.success else None
        highest = None if lost else net
    torture = None
    if torture_target is not None:
        if torture_roll is None and rng is None:
            raise DiceError("a torture roll is required")
        torture = renove.check(
            torture_target, rng=rng, roll=torture_roll, base_label="flows.interrogation.skill.torture"
        )
        if torture.success and not lost and net is not None and highest is not None:
            net += torture.degrees or 0
            highest += torture.degrees or 0
    tiers = tuple(sorted(set(free_tiers(subject)) | set(tiers_up_to(highest))))
    return Questioning(approach, subject.reluctant, tuple(rounds), torture, net, tiers, lost=lost)


# --- the extended alternative ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExtendedAttempt:
    skill: str  # "intimidation" | "charisme" | "torture"
    result: CheckResult
    tier: int | None  # the tier this success revealed

    def to_dict(self) -> dict[str, Any]:
        return {"skill": self.skill, "result": self.result.to_dict(), "tier": self.tier}


def extended_attempt(
    revealed: Sequence[int],
    attempts_left: int,
    skill: str,
    target: int,
    *,
    discreet: bool,
    rng: RandomSource | None = None,
    roll: int | None = None,
) -> ExtendedAttempt:
    """One test of the extended alternative: a success reveals the lowest tier not yet told."""
    if attempts_left <= 0:
        raise InterrogationError("no_attempts_left")
    if discreet and skill == "torture":
        raise InterrogationError("no_torture_discreet")
    if len(set(revealed)) >= len(TIERS):
        raise InterrogationError("all_revealed")
    result = renove.check(target, rng=rng, roll=roll, base_label=f"flows.interrogation.skill.{skill}")
    tier = next((t for t in TIERS if t not in revealed), None) if result.success else None
    return ExtendedAttempt(skill, result, tier)


@dataclass(slots=True)
class InterrogationState:
    """Everything about an interrogation the bot keeps (the session row's JSON)."""

    subject: Subject
    mode: Mode = Mode.STANDARD
    discreet: bool = False
    attempts: int = 0  # extended mode: attempts allowed in all
    revealed: list[int] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)

    @property
    def attempts_left(self) -> int:
        used = sum(1 for h in self.history if h.get("kind") == "extended")
        return max(0, self.attempts - used)

    def reveal(self, tiers: Sequence[int]) -> tuple[int, ...]:
        """Add ``tiers``; return the newly revealed ones."""
        new = tuple(t for t in sorted(set(tiers)) if t not in self.revealed)
        self.revealed = sorted(set(self.revealed) | set(new))
        return new

    def to_dict(self) -> dict[str, Any]:
        return {
            "subject": self.subject.to_dict(),
            "mode": self.mode.value,
            "discreet": self.discreet,
            "attempts": self.attempts,
            "revealed": list(self.revealed),
            "history": list(self.history),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> InterrogationState:
        return cls(
            subject=Subject.from_dict(data["subject"]),
            mode=Mode(data.get("mode", "standard")),
            discreet=bool(data.get("discreet", False)),
            attempts=int(data.get("attempts", 0)),
            revealed=[int(t) for t in data.get("revealed", [])],
            history=list(data.get("history", [])),
        )


def open_interrogation(
    subject: Subject, *, mode: Mode = Mode.STANDARD, discreet: bool = False, attempts: int = 0
) -> InterrogationState:
    if mode is Mode.EXTENDED and attempts < 1:
        raise InterrogationError("attempts_needed")
    state = InterrogationState(subject=subject, mode=mode, discreet=discreet, attempts=attempts)
    state.reveal(free_tiers(subject))
    return state
