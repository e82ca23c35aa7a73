"""Critical effects turned into conditions on the victim, and their countdown.

:func:`apply_mechanics` walks a critical entry's ``mechanics`` in order: immediate tests are rolled
(the victim's renove test; the ``on_failure``/``on_success`` branch is then applied), dice durations
are rolled (typed values first: ``duration_rolls``, ``test_rolls``), delayed tests, bleeding and death
timers become conditions, permanent changes become *proposals* for the GM (never applied silently),
falls/drops/knockbacks/deaths/GM rulings become events. :func:`tick` counts conditions down and
returns the prompts that are due.

Readings:

* A duration counts the round in which it is applied: "2 rounds" = this round and the next; it is
  decremented at each end of round and ends at 0. A rolled duration of 0 (``1d10/2`` on a 1) applies
  nothing (noted). Half-rounds count down two per round.
* Bleeding: the first repeated test comes ``every`` rounds after it is applied, at ``modifier``;
  each later test adds ``step`` (criticals notes). Bleeding stops when treated or healed.
* ``after`` tests ({BE} rounds…) use the victim's BE when applied.
* "healed" also clears what lasts "until treated" (healing includes treatment).
* At the end of combat, conditions lasting until the end of combat and round-counted modifiers,
  halvings, no-action, lost time and stuns end; bleeding, delayed tests, death timers, unconsciousness
  and disabled limbs stay.
* A victim's test target is his current characteristic (base + condition modifiers on that stat,
  halved if a halving applies) + ``all_tests`` modifiers + the effect's modifier.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from bot.rules.checks.common import CheckResult, Modifier
from bot.rules.combat.basics import mod
from bot.rules.combat.dicefeed import HandThenRandom, d
from bot.rules.combat.tables import Mechanic, _thaw
from bot.rules.dice.engine import roll
from bot.rules.random_source import RandomSource
from bot.rules.renove import checks as renove

ROUND_UNITS = ("round", "half_round")


@dataclass(frozen=True, slots=True)
class PendingTest:
    """A test a condition will ask for: delayed (``after``) or repeated (bleeding)."""

    characteristic: str
    modifier: int
    on_failure: tuple[Mechanic, ...] = ()
    on_success: tuple[Mechanic, ...] = ()
    step: int = 0
    every: int = 0
    next_in: int = 0
    count: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "characteristic": self.characteristic,
            "modifier": self.modifier,
            "on_failure": [m.to_dict() for m in self.on_failure],
            "on_success": [m.to_dict() for m in self.on_success],
            "step": self.step,
            "every": self.every,
            "next_in": self.next_in,
            "count": self.count,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PendingTest:
        return cls(
            characteristic=str(data["characteristic"]),
            modifier=int(data["modifier"]),
            on_failure=tuple(Mechanic.from_dict(m) for m in data.get("on_failure", ())),
            on_success=tuple(Mechanic.from_dict(m) for m in data.get("on_success", ())),
            step=int(data.get("step", 0)),
            every=int(data.get("every", 0)),
            next_in=int(data.get("next_in", 0)),
            count=int(data.get("count", 0)),
        )


@dataclass(frozen=True, slots=True)
class Condition:
    """An applied effect. Timed: ``remaining`` in ``unit``; open: ``until`` an event."""

    kind: str
    source: str
    stat: str | None = None
    value: int | None = None
    remaining: int | None = None
    unit: str | None = None
    until: str | None = None
    test: PendingTest | None = None
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def rounds_left(self) -> int | None:
        if self.remaining is None or self.unit not in ROUND_UNITS:
            return None
        return -(-self.remaining // 2) if self.unit == "half_round" else self.remaining

    def to_dict(self) -> dict[str, Any]:
        """Only the fields set (a fight document carries every fighter's conditions: it stays small;
        :meth:`from_dict` reads a missing field as unset; ``rounds_left`` is derived)."""
        out: dict[str, Any] = {"kind": self.kind, "source": self.source}
        for key in ("stat", "value", "remaining", "unit", "until"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.test:
            out["test"] = self.test.to_dict()
        if self.params:
            out["params"] = _thaw(self.params)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Condition:
        test = data.get("test")
        return cls(
            kind=str(data["kind"]),
            source=str(data["source"]),
            stat=data.get("stat"),
            value=data.get("value"),
            remaining=data.get("remaining"),
            unit=data.get("unit"),
            until=data.get("until"),
            test=PendingTest.from_dict(test) if test else None,
            params=dict(data.get("params") or {}),
        )


@dataclass(frozen=True, slots=True)
class EffectTest:
    characteristic: str
    check: CheckResult
    branch: str  # on_failure | on_success

    def to_dict(self) -> dict[str, Any]:
        return {"characteristic": self.characteristic, "check": self.check.to_dict(), "branch": self.branch}


@dataclass(frozen=True, slots=True)
class DurationRoll:
    what: str
    expression: str
    rendered: str
    total: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "what": self.what,
            "expression": self.expression,
            "rendered": self.rendered,
            "total": self.total,
        }


@dataclass(frozen=True, slots=True)
class Proposal:
    """A permanent change the GM must confirm: ``stat`` add ``value`` × ``times``, or halve."""

    stat: str
    operation: str
    value: int | None
    times: int
    source: str

    @property
    def total(self) -> int | None:
        return None if self.value is None else self.value * self.times

    def to_dict(self) -> dict[str, Any]:
        return {
            "stat": self.stat,
            "operation": self.operation,
            "value": self.value,
            "times": self.times,
            "total": self.total,
            "source": self.source,
        }


@dataclass(frozen=True, slots=True)
class Event:
    kind: str  # fall | drop_item | knockback | death | gm_ruling | zero_duration
    source: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "source": self.source, "params": _thaw(self.params)}


@dataclass(frozen=True, slots=True)
class EffectApplication:
    source: str
    conditions: tuple[Condition, ...] = ()
    tests: tuple[EffectTest, ...] = ()
    rolls: tuple[DurationRoll, ...] = ()
    proposals: tuple[Proposal, ...] = ()
    events: tuple[Event, ...] = ()

    @property
    def dead(self) -> bool:
        return any(e.kind == "death" for e in self.events)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "conditions": [c.to_dict() for c in self.conditions],
            "tests": [t.to_dict() for t in self.tests],
            "rolls": [r.to_dict() for r in self.rolls],
            "proposals": [p.to_dict() for p in self.proposals],
            "events": [e.to_dict() for e in self.events],
            "dead": self.dead,
        }


# --- states do not stack ---------------------------------------------------------------------------

# Conditions that are *states*: a fighter is prone or not, unconscious or not … — a second one adds
# nothing but a longer duration, so only the longest is kept (a fall on a fighter already prone
# leaves one « à terre »). A halving per characteristic and a disabled part are states too (a
# second halving of M does not halve it again). Two death timers with one « unless »: the sooner
# one is kept (it kills first; healing ends both). The table's open-ended modifiers on one
# characteristic until one event (« reste du combat », « jusqu'à guérison ») add up into one: they
# end together. The GM's modifiers, timed modifiers, lost time, bleeding and delayed tests stack
# (each one counts, and each is shown).
STATES = frozenset({"prone", "unconscious", "stunned", "no_action", "dead"})
_UNIT_HALF_ROUNDS = {"half_round": 1, "round": 2, "minute": 12, "hour": 720, "day": 17_280}
# Open durations, shortest first: ``end_of_combat`` ends with the fight, ``stands_up`` with the
# fighter getting up (or not before), ``treated`` ⊂ ``healed`` (healing includes treatment).
_OPEN = {"end_of_round": 2, "end_of_next_round": 4}
_OPEN_RANK = ("end_of_combat", "stands_up", "treated", "healed", "permanent")


def state_key(condition: Condition) -> tuple[str, ...] | None:
    """What a condition is a state *of* (two conditions with one key do not stack); None: it stacks."""
    if condition.kind in STATES:
        return (condition.kind,)
    if condition.kind == "halve" and condition.stat:
        return ("halve", condition.stat)
    if condition.kind == "disabled":
        return ("disabled", str(condition.params.get("part", "")))
    if condition.kind == "death_timer":
        return ("death_timer", str(condition.params.get("unless", "")))
    if _adds_up(condition):
        return ("modifier", str(condition.stat), str(condition.until))
    return None


def _adds_up(condition: Condition) -> bool:
    return (
        condition.kind == "modifier"
        and condition.source != "gm"
        and condition.remaining is None
        and condition.until in _OPEN_RANK
        and isinstance(condition.value, int)
    )


def lasting(condition: Condition) -> tuple[int, int]:
    """How long a condition lasts, comparable: (open rank, half-rounds); a lost part outlasts a
    disabled one."""
    lost = 1 if condition.kind == "disabled" and condition.params.get("lost") else 0
    if condition.until in _OPEN:
        return (lost, _OPEN[condition.until])
    if condition.until in _OPEN_RANK:
        return (lost, 10**9 + _OPEN_RANK.index(condition.until))
    if condition.until is not None:
        return (lost, 10**9 - 1)  # an open duration the table does not rank: after any timed one
    factor = _UNIT_HALF_ROUNDS.get(condition.unit or "", 1)
    return (lost, (condition.remaining or 0) * factor)


def merge_conditions(existing: Iterable[Condition], new: Iterable[Condition]) -> tuple[Condition, ...]:
    """``existing`` then ``new``, a state already there kept once with the longest duration (it
    takes the place of the shorter one; the sooner death timer; open modifiers added up)."""
    out = list(existing)
    for condition in new:
        key = state_key(condition)
        index = None if key is None else next((i for i, c in enumerate(out) if state_key(c) == key), None)
        if index is None:
            out.append(condition)
        elif _adds_up(condition):
            kept = out[index]
            out[index] = replace(kept, value=int(kept.value or 0) + int(condition.value or 0))
        elif condition.kind == "death_timer":
            if lasting(condition) < lasting(out[index]):
                out[index] = condition
        elif lasting(condition) > lasting(out[index]):
            out[index] = condition
    return tuple(out)


# --- current characteristics ---------------------------------------------------------------------


def stat_terms(stat: str, base: int, conditions: Iterable[Condition]) -> tuple[Modifier, ...]:
    """Base value, then every condition modifier on ``stat`` (and a halving as a term)."""
    items = [mod(f"stat.{stat}", base)]
    halved = False
    for c in conditions:
        if c.stat != stat:
            continue
        if c.kind == "modifier" and c.value:
            items.append(Modifier(f"combat.condition.{c.source}", c.value))
        elif c.kind == "halve":
            halved = True
    if halved:
        subtotal = sum(m.value for m in items)
        items.append(mod(f"halve.{stat}", subtotal // 2 - subtotal))
    return tuple(items)


def current(stat: str, base: int, conditions: Iterable[Condition]) -> int:
    return sum(m.value for m in stat_terms(stat, base, conditions))


# --- applying mechanics --------------------------------------------------------------------------


class _Applier:
    def __init__(
        self,
        characteristics: Mapping[str, int],
        conditions: Sequence[Condition],
        source: str,
        rng: RandomSource | None,
        test_rolls: Sequence[int],
        duration_rolls: Sequence[int],
        cc_malus_extends_to: Sequence[str],
    ) -> None:
        self.characteristics = characteristics
        self.existing = tuple(conditions)
        self.source = source
        self.rng = rng
        self.test_rolls = list(test_rolls)
        self.dice = HandThenRandom(duration_rolls, rng)
        self.extends = tuple(cc_malus_extends_to)
        self.conditions: list[Condition] = []
        self.tests: list[EffectTest] = []
        self.rolls: list[DurationRoll] = []
        self.proposals: list[Proposal] = []
        self.events: list[Event] = []

    def result(self) -> EffectApplication:
        return EffectApplication(
            self.source,
            tuple(self.conditions),
            tuple(self.tests),
            tuple(self.rolls),
            tuple(self.proposals),
            tuple(self.events),
        )

    def amount(self, raw: Any, what: str) -> int:
        if isinstance(raw, int):
            return raw
        if isinstance(raw, str):
            result = roll(raw, self.dice)
            self.rolls.append(DurationRoll(what, result.expression, result.rendered, result.total))
            return result.total
        if isinstance(raw, Mapping):
            value = self.characteristics.get(str(raw["characteristic"]), 0)
            value *= int(raw.get("multiply_by", 1))
            return value // int(raw.get("divide_by", 1))
        raise ValueError(f"bad amount {raw!r}")

    def duration(self, raw: Mapping[str, Any], what: str) -> dict[str, Any] | None:
        """Condition fields for a duration; None when a rolled amount is 0."""
        if "until" in raw:
            return {"until": str(raw["until"])}
        amount = self.amount(raw["amount"], what)
        if amount <= 0:
            self.events.append(Event("zero_duration", self.source, {"what": what}))
            return None
        return {"remaining": amount, "unit": str(raw["unit"])}

    def test_target(self, characteristic: str, modifier: int) -> tuple[int, tuple[Modifier, ...]]:
        base = self.characteristics.get(characteristic, 0)
        every = (*self.existing, *self.conditions)
        items = list(stat_terms(characteristic, base, every))
        items.extend(
            Modifier(f"combat.condition.{c.source}", c.value)
            for c in every
            if c.kind == "modifier" and c.stat == "all_tests" and c.value
        )
        if modifier:
            items.append(mod("effect_test", modifier))
        return sum(m.value for m in items), tuple(items)

    def run_test(self, characteristic: str, modifier: int) -> CheckResult:
        target, items = self.test_target(characteristic, modifier)
        given = self.test_rolls.pop(0) if self.test_rolls else None
        return renove.result_from_roll(target, items, d(100, self.rng, given))

    def apply(self, mechanics: Iterable[Mechanic]) -> None:
        for m in mechanics:
            self.one(m)

    def add(self, condition: Condition) -> None:
        self.conditions = list(merge_conditions(self.conditions, (condition,)))

    def one(self, m: Mechanic) -> None:
        p = m.params
        src = self.source
        if m.type == "test":
            characteristic, modifier = str(p["characteristic"]), int(p.get("modifier", 0))
            if "after" in p:
                dur = self.duration(p["after"], "delayed_test")
                pending = PendingTest(characteristic, modifier, m.on_failure, m.on_success)
                if dur is None:
                    self.immediate_test(pending)
                else:
                    self.add(Condition("delayed_test", src, test=pending, **dur))
            else:
                self.immediate_test(PendingTest(characteristic, modifier, m.on_failure, m.on_success))
        elif m.type in ("modifier", "halve"):
            dur = self.duration(p["duration"], f"{m.type}.{p['stat']}")
            if dur is None:
                return
            stats = [str(p["stat"])]
            if m.type == "modifier" and p["stat"] == "CC" and int(p["value"]) < 0:
                stats.extend(self.extends)
            for stat in stats:
                self.add(Condition(m.type, src, stat=stat, value=p.get("value"), **dur))
        elif m.type in ("lose_time", "no_action", "unconscious", "stunned"):
            raw = {"amount": p["amount"], "unit": p["unit"]} if m.type == "lose_time" else p["duration"]
            dur = self.duration(raw, m.type)
            if dur is not None:
                self.add(Condition(m.type, src, **dur))
        elif m.type == "disabled":
            dur = self.duration(p["duration"], f"disabled.{p['part']}")
            if dur is not None:
                self.add(
                    Condition("disabled", src, params={"part": p["part"], "lost": bool(p.get("lost"))}, **dur)
                )
        elif m.type == "bleeding":
            every = self.amount(p["every"], "bleeding.every")
            pending = PendingTest(
                str(p["characteristic"]),
                int(p.get("modifier", 0)),
                m.on_failure,
                (),
                step=int(p.get("step", 0)),
                every=every,
                next_in=every,
            )
            self.add(Condition("bleeding", src, until="treated", test=pending))
        elif m.type == "death_timer":
            dur = self.duration(p["within"], "death_timer")
            unless = str(p.get("unless", "healed"))
            if dur is None:
                self.events.append(Event("death", src, {"reason": "death_timer"}))
            else:
                self.add(Condition("death_timer", src, params={"unless": unless}, **dur))
        elif m.type == "permanent":
            times = self.amount(p["per"], f"permanent.{p['stat']}") if "per" in p else 1
            value = p.get("value")
            self.proposals.append(
                Proposal(
                    str(p["stat"]), str(p["operation"]), None if value is None else int(value), times, src
                )
            )
        elif m.type == "fall":
            self.events.append(Event("fall", src))
            self.add(Condition("prone", src, until="stands_up"))
        elif m.type == "death":
            self.events.append(Event("death", src))
            self.add(Condition("dead", src, until="permanent"))
        elif m.type in ("drop_item", "knockback", "gm_ruling"):
            self.events.append(Event(m.type, src, dict(p)))
        else:
            self.events.append(Event("gm_ruling", src, {"code": f"unknown_{m.type}"}))

    def immediate_test(self, pending: PendingTest) -> None:
        check = self.run_test(pending.characteristic, pending.modifier)
        branch = "on_success" if check.success else "on_failure"
        self.tests.append(EffectTest(pending.characteristic, check, branch))
        self.apply(pending.on_success if check.success else pending.on_failure)


def apply_mechanics(
    mechanics: Iterable[Mechanic],
    characteristics: Mapping[str, int],
    *,
    source: str,
    conditions: Sequence[Condition] = (),
    rng: RandomSource | None = None,
    test_rolls: Sequence[int] = (),
    duration_rolls: Sequence[int] = (),
    cc_malus_extends_to: Sequence[str] = (),
) -> EffectApplication:
    """Apply ``mechanics`` to a victim with ``characteristics`` (E, Ag, FM, BE … current values).

    ``test_rolls`` (d100s) and ``duration_rolls`` (the dice of duration expressions, in order) are
    consumed in the order the mechanics are met; missing values come from ``rng``.
    ``cc_malus_extends_to``: GM option (critical_matrix ``effect_reading``) — copy CC maluses onto
    e.g. ("CT", "F", "Ag").
    """
    applier = _Applier(
        characteristics, conditions, source, rng, test_rolls, duration_rolls, cc_malus_extends_to
    )
    applier.apply(mechanics)
    return applier.result()


def resolve_pending(
    condition: Condition,
    characteristics: Mapping[str, int],
    *,
    conditions: Sequence[Condition] = (),
    rng: RandomSource | None = None,
    test_roll: int | None = None,
    test_rolls: Sequence[int] = (),
    duration_rolls: Sequence[int] = (),
) -> EffectApplication:
    """Roll the test a ``delayed_test`` or ``bleeding`` prompt asked for and apply its branch.

    For bleeding, the modifier used is the one carried by the prompt (the condition *before* the
    tick's step), so pass the condition returned in the prompt.
    """
    if condition.test is None:
        raise ValueError("condition has no pending test")
    rolls = ([test_roll] if test_roll is not None else []) + list(test_rolls)
    applier = _Applier(characteristics, conditions, condition.source, rng, rolls, duration_rolls, ())
    applier.immediate_test(condition.test)
    return applier.result()


# --- ticking -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Prompt:
    """Something due now: ``bleeding_test`` / ``delayed_test`` (roll :func:`resolve_pending` with
    ``condition``), ``death_timer_expired`` (the victim dies unless healed/treated in time)."""

    kind: str
    condition: Condition

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "condition": self.condition.to_dict()}


@dataclass(frozen=True, slots=True)
class TickResult:
    event: str
    conditions: tuple[Condition, ...]
    expired: tuple[Condition, ...]
    prompts: tuple[Prompt, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.event,
            "conditions": [c.to_dict() for c in self.conditions],
            "expired": [c.to_dict() for c in self.expired],
            "prompts": [p.to_dict() for p in self.prompts],
        }


_COMBAT_ONLY = frozenset({"modifier", "halve", "no_action", "lose_time", "stunned", "acts_last"})
TICK_EVENTS = ("end_of_round", "end_of_combat", "treated", "healed", "stands_up")


def _end_of_round(
    c: Condition, keep: list[Condition], expired: list[Condition], prompts: list[Prompt]
) -> None:
    if c.kind == "bleeding" and c.test is not None:
        next_in = c.test.next_in - 1
        if next_in <= 0:
            prompts.append(Prompt("bleeding_test", c))
            test = replace(
                c.test, next_in=c.test.every, modifier=c.test.modifier + c.test.step, count=c.test.count + 1
            )
            keep.append(replace(c, test=test))
        else:
            keep.append(replace(c, test=replace(c.test, next_in=next_in)))
        return
    if c.until == "end_of_round":
        expired.append(c)
        return
    if c.until == "end_of_next_round":
        keep.append(replace(c, until="end_of_round"))
        return
    if c.remaining is None or c.unit not in ROUND_UNITS:
        keep.append(c)
        return
    remaining = c.remaining - (2 if c.unit == "half_round" else 1)
    if remaining > 0:
        keep.append(replace(c, remaining=remaining))
        return
    done = replace(c, remaining=0)
    if c.kind == "delayed_test":
        prompts.append(Prompt("delayed_test", done))
    elif c.kind == "death_timer":
        prompts.append(Prompt("death_timer_expired", done))
    expired.append(done)


def tick(conditions: Iterable[Condition], event: str = "end_of_round") -> TickResult:
    """Advance ``conditions`` past ``event`` (one of :data:`TICK_EVENTS`)."""
    if event not in TICK_EVENTS:
        raise ValueError(f"unknown event {event!r}")
    keep: list[Condition] = []
    expired: list[Condition] = []
    prompts: list[Prompt] = []
    for c in conditions:
        if event == "end_of_round":
            _end_of_round(c, keep, expired, prompts)
        elif event == "end_of_combat":
            ends = c.until in ("end_of_combat", "end_of_round", "end_of_next_round") or (
                c.kind in _COMBAT_ONLY and c.unit in ROUND_UNITS
            )
            (expired if ends else keep).append(c)
        elif event in ("treated", "healed"):
            cleared = {"treated"} if event == "treated" else {"treated", "healed"}
            ends = (
                c.until in cleared
                or c.kind == "bleeding"
                or (c.kind == "death_timer" and c.params.get("unless") in cleared)
            )
            (expired if ends else keep).append(c)
        else:  # stands_up
            (expired if c.until == "stands_up" else keep).append(c)
    return TickResult(event, tuple(keep), tuple(expired), tuple(prompts))
