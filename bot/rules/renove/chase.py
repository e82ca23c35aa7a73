"""Escapes and chases (seed 000, "IV – Divers — Fuites / Poursuites"; data/chases.json).

One fugitive with a lead in metres, one or more pursuers. Every round each runner tests M × 10
and runs M × 6 m; a failure is an obstacle costing (result − M × 10)/4 m, unless an Ag test
succeeds; a failed Ag test doubles the loss. The Fuite talent gives the fugitive +1 M for BE/2
rounds (rounded up). Every BE/2 rounds (rounded up) each runner tests E: each failure adds 10 to
the movement rolls and −10 % to Ag and E tests; a success means testing again the next round
with a cumulative −10 % that vanishes once a test fails.

Readings (data/chases.json notes):

* The "result" of the movement test is the roll plus 10 per failed E test; this is the same as
  testing the roll against M × 10 − 10 per failure, which is how the renove resolver is used
  here (criticals stay on the natural roll).
* Losses round down; a runner never runs less than 0 m ("il ne recule pas !").
* A critical failure (99-00) on the movement test puts the runner out of the chase (Garde 2).
* E tests take place between two movement rounds and take no round themselves; they are due
  after the round numbered ceil(BE/2), then every ceil(BE/2) rounds after a failure, or the very
  next round after a success. ceil(BE/2) is at least 1.
* Whether to try the Ag test is the runner's choice, declared with the movement roll.
* The chase ends when the fugitive is caught (a pursuer's gap reaches 0), is out, or when every
  pursuer is out; the GM can end it at any time (the fugitive hides, gives up …).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from bot.rules.checks.common import CheckResult, Modifier
from bot.rules.random_source import RandomSource
from bot.rules.renove import checks as renove

FLEE_TALENT = "Fuite"
MAX_RUNNERS = 12
EXHAUSTION = "flows.chase.modifier.exhaustion"
RETEST = "flows.chase.modifier.retest"


class Role(StrEnum):
    FUGITIVE = "fugitive"
    PURSUER = "pursuer"


class Phase(StrEnum):
    MOVEMENT = "movement"
    ENDURANCE = "endurance"
    OVER = "over"


class Ending(StrEnum):
    CAUGHT = "caught"
    ESCAPED = "escaped"
    FUGITIVE_OUT = "fugitive_out"
    ENDED_BY_GM = "ended"


class ChaseError(ValueError):
    """Catalogue key ``flows.chase.error.<code>``."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


def half_up(value: int) -> int:
    return max(1, -(-value // 2))


@dataclass(slots=True)
class Runner:
    id: str
    name: str
    role: Role
    M: int
    BE: int
    E: int
    Ag: int
    flee_talent: bool = False
    owner_id: int | None = None
    position: int = 0
    out: bool = False
    endurance_failures: int = 0
    endurance_streak: int = 0
    next_endurance: int = 0
    endurance_due: bool = False
    moved: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.next_endurance == 0:
            self.next_endurance = half_up(self.BE)

    def effective_m(self, round_number: int) -> int:
        bonus = self.role is Role.FUGITIVE and self.flee_talent and round_number <= half_up(self.BE)
        return self.M + (1 if bonus else 0)

    @property
    def exhaustion(self) -> int:
        return -10 * self.endurance_failures

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "role": self.role.value,
            "M": self.M,
            "BE": self.BE,
            "E": self.E,
            "Ag": self.Ag,
            "flee_talent": self.flee_talent,
            "owner_id": self.owner_id,
            "position": self.position,
            "out": self.out,
            "endurance_failures": self.endurance_failures,
            "endurance_streak": self.endurance_streak,
            "next_endurance": self.next_endurance,
            "endurance_due": self.endurance_due,
            "moved": self.moved,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Runner:
        return cls(
            id=str(data["id"]),
            name=str(data["name"]),
            role=Role(data["role"]),
            M=int(data["M"]),
            BE=int(data["BE"]),
            E=int(data["E"]),
            Ag=int(data["Ag"]),
            flee_talent=bool(data.get("flee_talent", False)),
            owner_id=data.get("owner_id"),
            position=int(data.get("position", 0)),
            out=bool(data.get("out", False)),
            endurance_failures=int(data.get("endurance_failures", 0)),
            endurance_streak=int(data.get("endurance_streak", 0)),
            next_endurance=int(data.get("next_endurance", 0)),
            endurance_due=bool(data.get("endurance_due", False)),
            moved=data.get("moved"),
        )


@dataclass(frozen=True, slots=True)
class Movement:
    runner: str
    round: int
    effective_m: int
    test: CheckResult
    modified_roll: int
    ag_test: CheckResult | None
    penalty: int
    distance: int
    out: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "runner": self.runner,
            "round": self.round,
            "effective_M": self.effective_m,
            "roll": self.test.roll,
            "endurance_add": self.modified_roll - self.test.roll,
            "modified_roll": self.modified_roll,
            "target": self.effective_m * 10,
            "outcome": self.test.outcome.value,
            "test": self.test.to_dict(),
            "ag_test": self.ag_test.to_dict() if self.ag_test is not None else None,
            "penalty_m": self.penalty,
            "distance_m": self.distance,
            "out": self.out,
        }


@dataclass(frozen=True, slots=True)
class EnduranceTest:
    runner: str
    round: int
    test: CheckResult
    modifier: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "runner": self.runner,
            "round": self.round,
            "modifier": self.modifier,
            "success": self.test.success,
            "test": self.test.to_dict(),
        }


@dataclass(slots=True)
class ChaseState:
    initial_lead: int
    round: int = 1
    phase: Phase = Phase.MOVEMENT
    runners: list[Runner] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    ending: Ending | None = None

    # -- lookups -----------------------------------------------------------------------------

    @property
    def fugitive(self) -> Runner | None:
        return next((r for r in self.runners if r.role is Role.FUGITIVE), None)

    @property
    def pursuers(self) -> list[Runner]:
        return [r for r in self.runners if r.role is Role.PURSUER]

    @property
    def active(self) -> list[Runner]:
        return [r for r in self.runners if not r.out]

    @property
    def started(self) -> bool:
        return bool(self.log) or any(r.moved for r in self.runners)

    def runner(self, ref: str) -> Runner:
        wanted = fold(ref)
        for runner in self.runners:
            if runner.id == ref or fold(runner.name) == wanted:
                return runner
        raise ChaseError("unknown_runner", name=ref[:40])

    def gap(self, pursuer: Runner) -> int:
        """Metres between the fugitive and ``pursuer`` (the fugitive's lead on them)."""
        fugitive = self.fugitive
        if fugitive is None:
            return 0
        return fugitive.position - pursuer.position

    def waiting_for(self) -> list[Runner]:
        if self.phase is Phase.MOVEMENT:
            return [r for r in self.active if r.moved is None]
        if self.phase is Phase.ENDURANCE:
            return [r for r in self.active if r.endurance_due]
        return []

    def to_dict(self) -> dict[str, Any]:
        return {
            "initial_lead": self.initial_lead,
            "round": self.round,
            "phase": self.phase.value,
            "runners": [r.to_dict() for r in self.runners],
            "log": list(self.log),
            "ending": self.ending.value if self.ending is not None else None,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ChaseState:
        return cls(
            initial_lead=int(data["initial_lead"]),
            round=int(data.get("round", 1)),
            phase=Phase(data.get("phase", "movement")),
            runners=[Runner.from_dict(r) for r in data.get("runners", [])],
            log=list(data.get("log", [])),
            ending=Ending(data["ending"]) if data.get("ending") else None,
        )


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold().strip())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def new_chase(lead: int) -> ChaseState:
    if lead < 0:
        raise ChaseError("negative_lead")
    return ChaseState(initial_lead=lead)


def add_runner(
    state: ChaseState,
    name: str,
    role: Role,
    *,
    M: int,
    BE: int,
    E: int,
    Ag: int,
    flee_talent: bool = False,
    owner_id: int | None = None,
) -> Runner:
    if state.phase is Phase.OVER:
        raise ChaseError("over")
    if state.started:
        raise ChaseError("already_started")
    if len(state.runners) >= MAX_RUNNERS:
        raise ChaseError("too_many_runners", max=MAX_RUNNERS)
    if any(fold(r.name) == fold(name) for r in state.runners):
        raise ChaseError("name_taken", name=name)
    if role is Role.FUGITIVE and state.fugitive is not None:
        raise ChaseError("one_fugitive")
    if flee_talent and role is not Role.FUGITIVE:
        raise ChaseError("flee_fugitive_only")
    runner = Runner(
        id=f"r{len(state.runners) + 1}",
        name=name,
        role=role,
        M=M,
        BE=BE,
        E=E,
        Ag=Ag,
        flee_talent=flee_talent,
        owner_id=owner_id,
        position=state.initial_lead if role is Role.FUGITIVE else 0,
    )
    state.runners.append(runner)
    return runner


def _check_ready(state: ChaseState) -> None:
    if state.phase is Phase.OVER:
        raise ChaseError("over")
    if state.fugitive is None or not state.pursuers:
        raise ChaseError("need_runners")


def move(
    state: ChaseState,
    ref: str,
    *,
    rng: RandomSource | None = None,
    roll: int | None = None,
    try_ag: bool = False,
    ag_roll: int | None = None,
) -> Movement:
    """Record ``ref``'s movement test for the current round (resolving the round if it is the last)."""
    _check_ready(state)
    runner = state.runner(ref)
    if runner.out:
        raise ChaseError("runner_out", name=runner.name)
    if state.phase is Phase.ENDURANCE:
        raise ChaseError("endurance_first", names=", ".join(r.name for r in state.waiting_for()))
    if runner.moved is not None:
        raise ChaseError("already_moved", name=runner.name)
    m = runner.effective_m(state.round)
    modifiers = (Modifier(EXHAUSTION, runner.exhaustion),) if runner.exhaustion else ()
    test = renove.check(m * 10, modifiers, rng=rng, roll=roll, base_label="flows.chase.base.movement")
    full = m * 6
    ag_test = None
    penalty = 0
    out = False
    if test.critical_failure:
        out = True
        distance = 0
    elif test.success:
        distance = full
    else:
        excess = test.margin
        penalty = excess // 4
        if try_ag or ag_roll is not None:
            ag_mods = (Modifier(EXHAUSTION, runner.exhaustion),) if runner.exhaustion else ()
            ag_test = renove.check(
                runner.Ag, ag_mods, rng=rng, roll=ag_roll, base_label="flows.chase.base.ag"
            )
            penalty = 0 if ag_test.success else excess // 2
        distance = max(0, full - penalty)
    movement = Movement(
        runner=runner.id,
        round=state.round,
        effective_m=m,
        test=test,
        modified_roll=test.roll - runner.exhaustion,
        ag_test=ag_test,
        penalty=penalty,
        distance=distance,
        out=out,
    )
    runner.moved = movement.to_dict()
    return movement


def round_complete(state: ChaseState) -> bool:
    return state.phase is Phase.MOVEMENT and all(r.moved is not None for r in state.active)


def resolve_round(state: ChaseState) -> dict[str, Any]:
    """Apply every movement of the round: positions, outs, gaps, endurance due, the ending."""
    if not round_complete(state):
        raise ChaseError("round_incomplete", names=", ".join(r.name for r in state.waiting_for()))
    fugitive = state.fugitive
    assert fugitive is not None
    gaps_before = {p.id: state.gap(p) for p in state.pursuers if not p.out}
    movements = []
    for runner in state.active:
        assert runner.moved is not None
        runner.position += int(runner.moved["distance_m"])
        runner.out = bool(runner.moved["out"])
        movements.append(runner.moved)
        runner.moved = None
    gaps = {p.id: state.gap(p) for p in state.pursuers if not p.out}
    report: dict[str, Any] = {
        "kind": "movement",
        "round": state.round,
        "movements": movements,
        "gaps_before": gaps_before,
        "gaps": gaps,
    }
    state.log.append(report)
    ending = _ending(state)
    if ending is not None:
        state.phase = Phase.OVER
        state.ending = ending
        report["ending"] = ending.value
        return report
    due = False
    for runner in state.active:
        runner.endurance_due = runner.next_endurance <= state.round
        due = due or runner.endurance_due
    if due:
        state.phase = Phase.ENDURANCE
    else:
        state.round += 1
    return report


def _ending(state: ChaseState) -> Ending | None:
    fugitive = state.fugitive
    if fugitive is None:
        return None
    if fugitive.out:
        return Ending.FUGITIVE_OUT
    pursuers = [p for p in state.pursuers if not p.out]
    if not pursuers:
        return Ending.ESCAPED
    if any(state.gap(p) <= 0 for p in pursuers):
        return Ending.CAUGHT
    return None


def endurance(
    state: ChaseState, ref: str, *, rng: RandomSource | None = None, roll: int | None = None
) -> EnduranceTest:
    """``ref``'s E test between two rounds; the next round starts once every due test is in."""
    _check_ready(state)
    runner = state.runner(ref)
    if state.phase is not Phase.ENDURANCE or not runner.endurance_due:
        raise ChaseError("no_endurance_due", name=runner.name)
    modifiers: list[Modifier] = []
    if runner.exhaustion:
        modifiers.append(Modifier(EXHAUSTION, runner.exhaustion))
    if runner.endurance_streak:
        modifiers.append(Modifier(RETEST, -10 * runner.endurance_streak))
    test = renove.check(runner.E, modifiers, rng=rng, roll=roll, base_label="flows.chase.base.endurance")
    result = EnduranceTest(runner.id, state.round, test, sum(m.value for m in modifiers))
    if test.success:
        runner.endurance_streak += 1
        runner.next_endurance = state.round + 1
    else:
        runner.endurance_failures += 1
        runner.endurance_streak = 0
        runner.next_endurance = state.round + half_up(runner.BE)
    runner.endurance_due = False
    state.log.append({"kind": "endurance", **result.to_dict()})
    if not state.waiting_for():
        state.phase = Phase.MOVEMENT
        state.round += 1
    return result


def end(state: ChaseState) -> None:
    if state.phase is Phase.OVER:
        raise ChaseError("over")
    state.phase = Phase.OVER
    state.ending = Ending.ENDED_BY_GM
