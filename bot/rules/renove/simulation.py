"""Monte-Carlo duels under `renove` (``/simuler``), sampled from exact distributions of the core.

Nothing here re-implements a rule. For a matchup the simulator *enumerates* the combat core
(:mod:`bot.rules.combat`): every d100 attack roll through :func:`resolve_attack`, the defender's
parry and dodge through :func:`resolve_parry` / :func:`resolve_dodge` (their target, then every d100
through :func:`bot.rules.renove.checks.resolve`), every damage die through :func:`roll_damage_die`,
every armour coverage roll through :func:`resolve_armour`, damage through :func:`damage_to_target`,
every parry side-effect d100 through :func:`parry_side_effect` and every critical d100 through
:func:`roll_critical`. Critical effects are enumerated through :func:`apply_mechanics`, the end of
a round through :func:`tick` and the tests it prompts through :func:`resolve_pending` (each dice
path of these functions is walked; a d100 test has two classes, success and failure, weighted by
the number of rolls of each the renove resolver gives for the test's target). The results are exact
probability tables, cached per matchup state; a duel is then a short Markov chain sampled from them
with :class:`random.Random` (whole quiet rounds are skipped with one geometric draw).

Duel model (readings; the seed describes fights, not duels):

* Each round both fighters make their A attacks (attack k at −10 % per extra attack, the core's
  ``attack_number``), interleaved A1, B1, A2, B2 … starting with the fighter whose initiative
  (3d20 + Ag, the tables' dice, exact distribution) is higher; an exact tie is split evenly.
* The defender parries the first hit of each round with his weapon (a prepared parry, as in the
  seed's "0.5 × 0.5" arithmetic: no reactive −10 %, no A spent); a hit that is not parried is
  dodged, once per round, by a fighter with the Esquive skill. Postures come from the core
  (suicidaire: no defence; défensive: no attack, +20 parry …).
* Every successful parry rolls the side-effect table; its ``take_damage`` share becomes a critical
  on the defender (on the attacked zone). Knock-backs, falls, dropped weapons and shield PV are not
  modelled; Percutante stays active (Épuisante not counted).
* Armour protects as in a fight and its wearing maluses apply as in a fight
  (:func:`bot.rules.renove.armour.maluses`, Robuste cancelling its part): the Ag malus on the
  initiative and the dodge, the CC malus on the attacks and the parries, after the combat WS.
* A fighter is out when dead or unconscious, when a death timer counted in rounds runs out (nobody
  treats him during a duel) and, with Mort subite (NPCs only, optional), when he flees or dies.
  Lost rounds, "aucune action possible" and stuns stop attacks but not defences (core ``can_act``).
* Without the combat WS (plain WFRP), each test uses the bare CC: the core is called with the
  opponent's CC equal to the WS constant, so the adjustment term is 0.
* A duel still undecided after ``max_rounds`` is a draw.
"""

from __future__ import annotations

import math
import random
import time
from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final, TypeVar

from bot.rules.checks.common import Modifier
from bot.rules.combat.basics import Refusal, RefusedError
from bot.rules.combat.effects import ROUND_UNITS, Condition, EffectApplication, resolve_pending, tick
from bot.rules.combat.effects import apply_mechanics as core_apply_mechanics
from bot.rules.combat.initiative import roll_initiative
from bot.rules.combat.state import Combatant, can_act
from bot.rules.combat.tables import CombatTables, CriticalEntry, Mechanic
from bot.rules.random_source import RandomSource
from bot.rules.renove import checks as renove
from bot.rules.renove.armour import ArmourMaluses, maluses, wearing_cancels
from bot.rules.renove.attack import (
    AttackRequest,
    AttackResult,
    DodgeRequest,
    ParryRequest,
    attack_modifiers,
    resolve_attack,
    resolve_dodge,
    resolve_parry,
)
from bot.rules.renove.damage import (
    ArmourLayer,
    DamageDie,
    damage_to_parry_implement,
    damage_to_target,
    mort_subite,
    parry_side_effect,
    resolve_armour,
    roll_critical,
    roll_damage_die,
)

T = TypeVar("T")

MAX_DUELS: Final = 1_000_000
MIN_DUELS: Final = 500  # run whatever the deadline: a cold request still answers with a real figure
MAX_ROUNDS: Final = 100
NEVER: Final = 1 << 30
Z95: Final = 1.959963984540054
_D100: Final = range(1, 101)
_KEEP: Final = frozenset(
    {"modifier", "halve", "no_action", "lose_time", "stunned", "unconscious", "dead", "bleeding"}
)
_TIMED: Final = frozenset({"delayed_test", "death_timer"})
_STATS: Final = frozenset({"CC", "Ag", "F", "E", "FM", "BF", "BE", "A", "all_tests"})
_DEAD: Final[tuple[Any, ...]] = ("dead", None, None, None, None, "permanent", None, "")

# --- exact enumeration of a function of the dice -----------------------------------------------


class _PathSource:
    """``randint``: the values of ``path`` in order, then the lowest value of each new draw."""

    __slots__ = ("new", "path", "pos")

    def __init__(self, path: Sequence[int]) -> None:
        self.path = path
        self.pos = 0
        self.new: list[tuple[int, int]] = []

    def randint(self, a: int, b: int) -> int:
        i = self.pos
        self.pos += 1
        if i < len(self.path):
            return self.path[i]
        self.new.append((a, b))
        return a


Classifier = Callable[[Any, int], "list[tuple[int, float]] | None"]


def enumerate_dice(
    run: Callable[[RandomSource], T], classify: Classifier | None = None
) -> list[tuple[float, T]]:
    """Every result of ``run(source)`` with its exact probability, walking every dice path.

    ``classify(result, n)`` may replace the 100 values of the ``n``-th d100 of a run by a few
    representative values with their weights (a d100 test: one success, one failure); it returns
    None to enumerate the 100 values.
    """
    out: list[tuple[float, T]] = []
    choices: list[list[tuple[int, float]]] = []
    ranges: list[tuple[int, int]] = []
    index: list[int] = []
    while True:
        path = [choices[i][index[i]][0] for i in range(len(index))]
        source = _PathSource(path)
        result = run(source)
        for a, b in source.new:
            alternatives: list[tuple[int, float]] | None = None
            if classify is not None and (a, b) == (1, 100):
                alternatives = classify(result, sum(1 for r in ranges if r == (1, 100)))
            if not alternatives or alternatives[0][0] != a:
                alternatives = [(v, 1.0 / (b - a + 1)) for v in range(a, b + 1)]
            choices.append(alternatives)
            ranges.append((a, b))
            index.append(0)
        weight = 1.0
        for i, chosen in enumerate(index):
            weight *= choices[i][chosen][1]
        if weight > 0:
            out.append((weight, result))
        i = len(index) - 1
        while i >= 0:
            index[i] += 1
            if index[i] < len(choices[i]):
                break
            index.pop()
            choices.pop()
            ranges.pop()
            i -= 1
        if i < 0:
            return out


def _test_classes(target: int) -> list[tuple[int, float]]:
    """A renove test's d100 in two classes: 01 (always a success) and 00 (always a failure)."""
    successes = sum(1 for r in _D100 if renove.resolve(target, r)[0])
    return [(v, w) for v, w in ((1, successes / 100), (100, (100 - successes) / 100)) if w > 0]


def _classify_tests(result: Any, n: int) -> list[tuple[int, float]] | None:
    tests = result.tests if isinstance(result, EffectApplication) else ()
    if n < len(tests):
        return _test_classes(tests[n].check.target)
    return None


def _tested(mechanics: Sequence[Mechanic]) -> set[str]:
    """Characteristics tested by ``mechanics`` (branches included)."""
    out: set[str] = set()
    for m in mechanics:
        if m.type in ("test", "bleeding") and "characteristic" in m.params:
            out.add(str(m.params["characteristic"]))
        out |= _tested(m.on_failure + m.on_success)
    return out


def _modified(mechanics: Sequence[Mechanic]) -> set[str]:
    """Stats that ``mechanics`` put a modifier or a halving on (branches included)."""
    out: set[str] = set()
    for m in mechanics:
        if m.type in ("modifier", "halve") and "stat" in m.params:
            out.add(str(m.params["stat"]))
        out |= _modified(m.on_failure + m.on_success)
    return out


EffectOutcomes = list[tuple[float, tuple[Condition, ...], bool]]
_EFFECT_CACHE: dict[tuple[Any, ...], EffectOutcomes] = {}


def _relevant(c: Condition) -> bool:
    """Conditions that matter in a duel (stats, actions, being out, timers counted in rounds)."""
    if c.kind in ("modifier", "halve"):
        return c.stat in _STATS
    if c.kind in _KEEP:
        return True
    return c.kind in _TIMED and c.unit in ROUND_UNITS


def effect_distribution(
    mechanics: Sequence[Mechanic],
    characteristics: Mapping[str, int],
    source: str,
    conditions: Sequence[Condition] = (),
) -> EffectOutcomes:
    """Every outcome of :func:`apply_mechanics` with its probability: (p, duel conditions, death).

    The mechanics of an entry are enumerated one by one and combined (their dice are independent)
    unless a later test reads a stat an earlier mechanic modifies; then they are enumerated together.
    """
    groups: list[tuple[Mechanic, ...]] = [(m,) for m in mechanics]
    modified: set[str] = set()
    for m in mechanics:
        tested = _tested((m,))
        if tested & modified or (tested and "all_tests" in modified):
            groups = [tuple(mechanics)]
            break
        modified |= _modified((m,))
    known: dict[tuple[Any, ...], Condition] = {}
    combined: dict[tuple[tuple[tuple[Any, ...], ...], bool], float] = {((), False): 1.0}
    for group in groups:
        part: dict[tuple[tuple[tuple[Any, ...], ...], bool], float] = {}

        def run(src: RandomSource, g: tuple[Mechanic, ...] = group) -> EffectApplication:
            return core_apply_mechanics(g, characteristics, source=source, conditions=conditions, rng=src)

        for w, app in enumerate_dice(run, _classify_tests):
            keys = []
            for c in app.conditions:
                if _relevant(c):
                    known.setdefault(condition_key(c), c)
                    keys.append(condition_key(c))
            key = (tuple(keys), app.dead)
            part[key] = part.get(key, 0.0) + w
        grown: dict[tuple[tuple[tuple[Any, ...], ...], bool], float] = {}
        for (conds, dead), w in combined.items():
            for (more, dead2), w2 in part.items():
                k = (conds + more, dead or dead2)
                grown[k] = grown.get(k, 0.0) + w * w2
        combined = grown
    return [(w, tuple(known[k] for k in conds), dead) for (conds, dead), w in combined.items()]


def condition_key(c: Condition) -> tuple[Any, ...]:
    """What tells two conditions apart in a duel (the source only for pending tests)."""
    t = c.test
    test = None if t is None else (t.characteristic, t.modifier, t.step, t.every, t.next_in, t.count)
    return (c.kind, c.stat, c.value, c.remaining, c.unit, c.until, test, c.source if t else "")


# --- inputs and outputs ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Fighter:
    """One side: base characteristics (CC, F, E, Ag, A, BF, BE …), weapon, armour, posture."""

    name: str
    characteristics: Mapping[str, int]
    weapon: str
    armour: Mapping[str, tuple[ArmourLayer, ...]] = field(default_factory=dict)
    talents: frozenset[str] = frozenset()
    posture: str = "normale"
    posture_option: str | None = None
    dodge_skill: bool = False
    npc: bool = False


@dataclass(frozen=True, slots=True)
class Options:
    combat_ws: bool = True  # off: plain WFRP (bare CC)
    one_sided: bool = False  # only the first fighter attacks (the seed's arithmetic)
    mort_subite: bool = False
    parry_side_effects: bool = True
    max_rounds: int = MAX_ROUNDS


@dataclass(slots=True)
class Tally:
    duels: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0])
    draws: int = 0
    rounds_total: int = 0  # over decided duels
    first_hit_sum: list[int] = field(default_factory=lambda: [0, 0])
    first_hit_count: list[int] = field(default_factory=lambda: [0, 0])
    criticals: list[dict[int, int]] = field(default_factory=lambda: [{}, {}])  # dealt by side
    outs: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    stopped_by_time: bool = False

    def merge(self, other: Tally) -> None:
        self.duels += other.duels
        self.draws += other.draws
        self.rounds_total += other.rounds_total
        for s in (0, 1):
            self.wins[s] += other.wins[s]
            self.first_hit_sum[s] += other.first_hit_sum[s]
            self.first_hit_count[s] += other.first_hit_count[s]
            for value, count in other.criticals[s].items():
                self.criticals[s][value] = self.criticals[s].get(value, 0) + count
        for reason, count in other.outs.items():
            self.outs[reason] = self.outs.get(reason, 0) + count
        self.seconds += other.seconds
        self.stopped_by_time = self.stopped_by_time or other.stopped_by_time


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (95 % by default)."""
    if n <= 0:
        return 0.0, 1.0
    if successes <= 0:
        return 0.0, min(1.0, z * z / (n + z * z))
    if successes >= n:
        return max(0.0, n / (n + z * z)), 1.0
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(total: float, total_sq: float, n: int, z: float = Z95) -> tuple[float, float]:
    if n <= 1:
        return (total / n if n else 0.0), 0.0
    mean = total / n
    variance = max(0.0, (total_sq - n * mean * mean) / (n - 1))
    return mean, z * math.sqrt(variance / n)


# --- the simulator -----------------------------------------------------------------------------

# A per-attack outcome: (event, hit, parry_used, dodge_used, critical value or 0, side critical or 0,
# zone of the hit or "").
Outcome = tuple[bool, bool, bool, bool, int, int, str]
_QUIET_FLAGS: Final = {
    (False, False): (False, False, False, False, 0, 0, ""),
    (True, False): (False, False, True, False, 0, 0, ""),
    (False, True): (False, False, False, True, 0, 0, ""),
    (True, True): (False, False, True, True, 0, 0, ""),
}


class _Dist:
    """A discrete distribution ready for sampling (cumulative weights, bisect)."""

    __slots__ = ("cum", "items", "total")

    def __init__(self, pairs: Sequence[tuple[float, Any]]) -> None:
        merged: dict[Any, float] = {}
        for weight, item in pairs:
            if weight > 0:
                merged[item] = merged.get(item, 0.0) + weight
        self.items: list[Any] = list(merged)
        self.cum: list[float] = []
        acc = 0.0
        for item in self.items:
            acc += merged[item]
            self.cum.append(acc)
        self.total = acc

    def pairs(self) -> list[tuple[float, Any]]:
        prev = 0.0
        out = []
        for cum, item in zip(self.cum, self.items, strict=True):
            out.append((cum - prev, item))
            prev = cum
        return out

    def sample(self, u: float) -> Any:
        items = self.items
        if len(items) == 1:
            return items[0]
        i = bisect_right(self.cum, u * self.total)
        return items[i if i < len(items) else -1]


@dataclass(frozen=True, slots=True)
class _Eff:
    """What the tables need of one fighter in one state."""

    cc: int
    ag: int
    f: int
    bf: int
    be: int
    attacks: int
    posture: str
    out: bool


@dataclass(slots=True)
class _RoundModel:
    quiet: float
    log_quiet: float
    events: _Dist  # (order, slot, outcome, flags after)
    slots: tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]


_INITIATIVE_CACHE: dict[tuple[str, tuple[str, ...]], dict[int, float]] = {}
_CRITICAL_CACHE: dict[tuple[Any, ...], list[tuple[float, int]]] = {}


def _initiative_distribution(tables: CombatTables, talents: frozenset[str]) -> dict[int, float]:
    bonus = tuple(sorted(t for t in talents if t in tables.initiative_bonuses))
    key = (tables.initiative_dice, tuple(tables.initiative_bonuses[t] for t in bonus))
    cached = _INITIATIVE_CACHE.get(key)
    if cached is None:
        cached = {}
        for weight, total in enumerate_dice(
            lambda src: roll_initiative(tables, "x", 0, 1, talents=bonus, rng=src).total
        ):
            cached[total] = cached.get(total, 0.0) + weight
        _INITIATIVE_CACHE[key] = cached
    return cached


class DuelSimulator:
    """Exact per-attack tables for one matchup, and a duel sampler on top of them.

    A fighter's state is the sorted tuple of the ids of his duel-relevant conditions (core
    :class:`Condition` objects, interned). What a state changes is read through the core once per
    *projection* of the state: the stats and the right to attack (:class:`Combatant` ``stat``,
    ``can_act``, ``attacks_left``), the targets of effect tests (modifier and halve conditions).
    The end of a round is the core's :func:`tick`, which treats each condition on its own, memoised
    per condition.
    """

    def __init__(self, tables: CombatTables, a: Fighter, b: Fighter, options: Options | None = None) -> None:
        self.tables = tables
        self.fighters = (a, b)
        self.options = options or Options()
        for f in self.fighters:
            tables.weapon(f.weapon)  # raises TableError on an unknown weapon
            if f.posture not in tables.postures:
                raise RefusedError(Refusal("combat.refusal.unknown_posture", (("posture", f.posture),)))
        self._cond_list: list[Condition] = []
        self._cond_ids: dict[tuple[Any, ...], int] = {}
        self._eff_piece: list[tuple[Any, ...] | None] = []
        self._test_piece: list[tuple[Any, ...] | None] = []
        self._ticked: list[tuple[tuple[int, ...], tuple[tuple[str, int], ...]] | None] = []
        self._info: tuple[dict[tuple[int, ...], tuple[int, int, bool]], ...] = ({}, {})
        self._effs: list[_Eff] = []
        self._eff_ids: dict[_Eff, int] = {}
        self._eff_memo: dict[tuple[Any, ...], int] = {}
        self._rounds: dict[tuple[int, int], _RoundModel] = {}
        self._attacks: dict[tuple[Any, ...], _Dist] = {}
        self._sigs: dict[tuple[Any, ...], list[tuple[int, AttackResult | None]]] = {}
        self._defence: dict[tuple[Any, ...], float | None] = {}
        self._damage_cache: dict[tuple[Any, ...], list[tuple[float, int, int]]] = {}
        self._side_cache: dict[tuple[Any, ...], list[tuple[float, int]]] = {}
        self._coverage_cache: dict[tuple[int, str], list[tuple[float, dict[str, int]]]] = {}
        self._effects: dict[tuple[Any, ...], _Dist] = {}
        self._pending: dict[tuple[Any, ...], _Dist] = {}
        self._horizons: dict[int, int] = {}
        self._bands: dict[tuple[int, int, int, int], dict[int, int]] = {}
        self._entries: dict[tuple[int, int, str], tuple[CriticalEntry, set[str]]] = {}
        self._quiet_next: dict[int, int] = {}
        self.dead_id = self._cid(Condition("dead", "simulation", until="permanent"))
        self._worn: tuple[ArmourMaluses, ...] = tuple(
            maluses(tables.armour, f.armour, wearing_cancels(tables.talent_effects, f.talents))
            for f in self.fighters
        )
        self.start: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
        self._first = self._first_striker()

    # -- conditions and states ------------------------------------------------------------------

    def _cid(self, c: Condition) -> int:
        key = condition_key(c)
        cid = self._cond_ids.get(key)
        if cid is None:
            cid = len(self._cond_list)
            self._cond_ids[key] = cid
            self._cond_list.append(c)
            self._ticked.append(None)
            eff: tuple[Any, ...] | None = None
            if c.kind in ("modifier", "halve"):
                eff = (c.kind, c.stat, c.value)
            elif c.kind == "lose_time":
                eff = (c.kind, c.unit, c.remaining if c.unit == "half_round" else None)
            elif c.kind in ("no_action", "stunned", "unconscious", "dead"):
                eff = (c.kind,)
            self._eff_piece.append(eff)
            self._test_piece.append(eff if c.kind in ("modifier", "halve") else None)
        return cid

    def _added(self, application: EffectApplication) -> tuple[int, ...]:
        ids = [self._cid(c) for c in application.conditions if _relevant(c)]
        if application.dead:
            ids.append(self.dead_id)
        return tuple(ids)

    def _test_projection(self, state: Sequence[int], tested: set[str]) -> tuple[Any, ...]:
        """The conditions of ``state`` that change a test of a ``tested`` characteristic."""
        pieces = [
            p
            for cid in state
            if (p := self._test_piece[cid]) is not None and (p[1] in tested or p[1] == "all_tests")
        ]
        return tuple(sorted(pieces, key=repr))

    def _tick_of(self, cid: int) -> tuple[tuple[int, ...], tuple[tuple[str, int], ...]]:
        """The core's end-of-round tick of one condition: what stays, what it prompts."""
        ticked = self._ticked[cid]
        if ticked is None:
            result = tick((self._cond_list[cid],), "end_of_round")
            ticked = (
                tuple(self._cid(c) for c in result.conditions),
                tuple((p.kind, self._cid(p.condition)) for p in result.prompts),
            )
            self._ticked[cid] = ticked
        return ticked

    def info(self, side: int, state: tuple[int, ...]) -> tuple[int, int, bool]:
        """(eff id, horizon, out) of ``side`` in ``state``.

        The horizon is how many ends of round leave the state's effect unchanged and prompt
        nothing (:data:`NEVER` for a state the tick leaves as it is).
        """
        info = self._info[side].get(state)
        if info is None:
            pieces = [p for cid in state if (p := self._eff_piece[cid]) is not None]
            key = (side, tuple(sorted(pieces, key=repr)))
            eid = self._eff_memo.get(key)
            if eid is None:
                eid = self._eff_of(side, state)
                self._eff_memo[key] = eid
            horizon = min((self._horizon(cid) for cid in state), default=NEVER)
            info = (eid, horizon, self._effs[eid].out)
            if len(self._info[side]) > 500_000:
                self._info[side].clear()
            self._info[side][state] = info
        return info

    def _horizon(self, cid: int) -> int:
        h = self._horizons.get(cid)
        if h is None:
            kept, due = self._tick_of(cid)
            if kept == (cid,) and not due:
                h = NEVER
            elif len(kept) == 1 and not due and self._eff_piece[kept[0]] == self._eff_piece[cid]:
                h = 1 + self._horizon(kept[0])
                self._quiet_next[cid] = kept[0]
            else:
                h = 0
            self._horizons[cid] = h
        return h

    def skip(self, state: tuple[int, ...], ticks: int) -> tuple[int, ...]:
        """``state`` after ``ticks`` ends of round within its horizon (nothing due, same effect)."""
        if not ticks or not state:
            return state
        nxt = self._quiet_next
        out = []
        for cid in state:
            for _ in range(ticks):
                c2 = nxt.get(cid)
                if c2 is None:
                    break
                cid = c2
            out.append(cid)
        return tuple(sorted(out))

    def _eff_of(self, side: int, state: tuple[int, ...]) -> int:
        f = self.fighters[side]
        c = Combatant(
            id="ab"[side],
            name=f.name,
            characteristics=f.characteristics,
            talents=f.talents,
            posture=f.posture,
            posture_option=f.posture_option,
            conditions=tuple(self._cond_list[cid] for cid in state),
            npc=f.npc,
        )
        out = c.has("dead", "unconscious")
        blocked = c.has("no_action", "stunned") or any(
            x.kind == "lose_time" and x.unit == "round" for x in c.conditions
        )
        attacks = 0
        if not out and can_act(self.tables, c, "attaquer") is None:
            attacks = c.attacks_left()
        if self.options.one_sided and side == 1:
            attacks = 0
        eff = _Eff(
            cc=c.stat("CC"),
            ag=c.stat("Ag"),
            f=c.stat("F"),
            bf=c.stat("BF"),
            be=c.stat("BE"),
            attacks=attacks,
            posture="normale" if blocked else c.posture,
            out=out,
        )
        eid = self._eff_ids.get(eff)
        if eid is None:
            eid = len(self._effs)
            self._effs.append(eff)
            self._eff_ids[eff] = eid
        return eid

    def advance(self, side: int, state: tuple[int, ...], random_: Callable[[], float]) -> tuple[int, ...]:
        """End of round for one fighter: tick every condition, roll what the tick prompts."""
        new: list[int] = []
        prompts: list[tuple[str, int]] = []
        for cid in state:
            kept, due = self._tick_of(cid)
            new.extend(kept)
            if due:
                prompts.extend(due)
        for kind, cid in prompts:
            if kind == "death_timer_expired":
                new.append(self.dead_id)
                continue
            new.extend(self._pending_dist(side, cid, new).sample(random_()))
        return tuple(sorted(new))

    def _pending_dist(self, side: int, cid: int, current: Sequence[int]) -> _Dist:
        """The conditions a due test (bleeding, delayed) adds: resolve_pending, enumerated."""
        condition = self._cond_list[cid]
        tested = _tested(condition.test.on_failure + condition.test.on_success) if condition.test else set()
        if condition.test:
            tested.add(condition.test.characteristic)
        key = (side, cid, self._test_projection(current, tested))
        dist = self._pending.get(key)
        if dist is None:
            conditions = tuple(self._cond_list[c] for c in current)
            characteristics = self.fighters[side].characteristics
            outcomes = enumerate_dice(
                lambda src: resolve_pending(condition, characteristics, conditions=conditions, rng=src),
                _classify_tests,
            )
            dist = _Dist([(w, self._added(app)) for w, app in outcomes])
            self._pending[key] = dist
        return dist

    def critical_effect(self, victim: int, state: tuple[int, ...], value: int, zone: str) -> _Dist:
        """The conditions a critical of ``value`` on ``zone`` adds (apply_mechanics, enumerated)."""
        fast = (victim, value, zone, state)
        hit = self._effects.get(fast)
        if hit is not None:
            return hit
        if len(self._effects) > 200_000:
            self._effects.clear()
        entry_key = (victim, value, zone)
        known = self._entries.get(entry_key)
        if known is None:
            kind = self.tables.weapon(self.fighters[1 - victim].weapon).critical_kind
            entry = self.tables.critical(kind, zone, value)
            known = self._entries[entry_key] = (entry, _tested(entry.mechanics))
        entry, tested = known
        projection = self._test_projection(state, tested)
        key = (victim, value, zone, projection)
        dist = self._effects.get(key)
        if dist is not None:
            self._effects[fast] = dist
            return dist
        npc = self.options.mort_subite and self.fighters[victim].npc
        if npc:  # the band replaces the table's effects: fights on unharmed, or out (flees, dies)
            out = mort_subite(self.tables, value).outcome != "fights_on"
            dist = _Dist([(1.0, (self.dead_id,) if out else ())])
        else:
            characteristics = self.fighters[victim].characteristics
            shared = (id(self.tables), entry.source, tuple(sorted(characteristics.items())), projection)
            outcomes = _EFFECT_CACHE.get(shared)
            if outcomes is None:
                conditions = tuple(self._cond_list[c] for c in state)
                outcomes = effect_distribution(entry.mechanics, characteristics, entry.source, conditions)
                if len(_EFFECT_CACHE) > 20_000:
                    _EFFECT_CACHE.clear()
                _EFFECT_CACHE[shared] = outcomes
            dist = _Dist([(w, self._added_conditions(conds, dead)) for w, conds, dead in outcomes])
        self._effects[key] = self._effects[fast] = dist
        return dist

    def _added_conditions(self, conditions: Sequence[Condition], dead: bool) -> tuple[int, ...]:
        ids = [self._cid(c) for c in conditions]
        if dead:
            ids.append(self.dead_id)
        return tuple(ids)

    # -- one attack -----------------------------------------------------------------------------

    def _opponent_cc(self, cc: int) -> int:
        return cc if self.options.combat_ws else self.tables.ws_constant

    def _worn_cc(self, side: int) -> tuple[Modifier, ...]:
        """The CC malus of the side's armour, a test modifier after the combat WS (as in a fight)."""
        value = self._worn[side].cc
        return (Modifier("combat.modifier.armour_malus", value),) if value else ()

    def _signatures(self, side: int, ea: _Eff, eb: _Eff, k: int) -> list[tuple[int, AttackResult | None]]:
        """The 100 attack rolls grouped by what the rest depends on (None: a miss)."""
        key = (side, ea.cc, ea.posture, eb.cc, k)
        cached = self._sigs.get(key)
        if cached is not None:
            return cached
        f = self.fighters[side]
        request = AttackRequest(
            weapon=self.tables.weapon(f.weapon),
            base=ea.cc,
            opponent_cc=self._opponent_cc(eb.cc),
            posture=ea.posture,
            posture_option=f.posture_option if ea.posture == f.posture else None,
            attack_number=k,
            talents=f.talents,
            extra=self._worn_cc(side),
        )
        try:
            target = attack_modifiers(self.tables, request)[0]
        except RefusedError:
            target = None
        shared = (side, target, ea.posture, request.posture_option, k)
        cached = self._sigs.get(shared)
        if cached is not None:
            self._sigs[key] = cached
            return cached
        groups: dict[Any, list[Any]] = {}
        by_class: dict[tuple[Any, ...], AttackResult] = {}
        for r in _D100:
            # A melee attack depends on its roll only through the renove result of that roll (and a
            # natural roll's number): one resolve_attack per class of rolls, the others share it.
            check = renove.result_from_roll(target, (), r) if target is not None else None
            cls = (
                (check.success, check.critical_success, check.critical_failure, check.degrees)
                + ((r,) if check.critical_success else ())
                if check is not None
                else (r,)
            )
            try:
                res = by_class.get(cls) or resolve_attack(self.tables, request, attack_roll=r)
            except RefusedError:
                self._sigs[key] = self._sigs[shared] = [(100, None)]
                return self._sigs[key]
            by_class[cls] = res
            if not res.hit:
                sig: Any = None
            else:
                sig = (
                    res.zone,
                    res.cannot_parry,
                    res.cannot_dodge,
                    res.damage_die_fixed,
                    res.damage_die_minimum_unless_rolled,
                    res.parry_modifiers,
                    res.dodge_modifiers,
                    res.damage_modifiers,
                    res.ignore_armour,
                )
            entry = groups.setdefault(sig, [0, None if sig is None else res])
            entry[0] += 1
        cached = [(count, res) for count, res in groups.values()]
        self._sigs[key] = self._sigs[shared] = cached
        return cached

    def _parry(self, side: int, ea: _Eff, eb: _Eff, res: AttackResult) -> float | None:
        """P(the defender's parry succeeds), or None when he cannot parry this hit."""
        key = ("parry", side, ea.cc, eb.cc, eb.posture, res.cannot_parry, res.parry_modifiers)
        if key in self._defence:
            return self._defence[key]
        d = self.fighters[1 - side]
        request = ParryRequest(
            cc=eb.cc,
            attacker_cc=self._opponent_cc(ea.cc),
            weapon=self.tables.weapon(d.weapon),
            posture=eb.posture,
            talents=d.talents,
            extra=self._worn_cc(1 - side),
        )
        result = resolve_parry(self.tables, res, request, parry_roll=50)
        value = None
        if result.refusal is None and result.check is not None:
            target = result.check.target
            value = sum(1 for r in _D100 if renove.resolve(target, r)[0]) / 100
        self._defence[key] = value
        return value

    def _dodge(self, side: int, eb: _Eff, res: AttackResult) -> float | None:
        d = self.fighters[1 - side]
        if not d.dodge_skill:
            return None
        key = ("dodge", side, eb.ag, eb.posture, res.cannot_dodge, res.dodge_modifiers)
        if key in self._defence:
            return self._defence[key]
        result = resolve_dodge(
            self.tables,
            res,
            DodgeRequest(ag=eb.ag + self._worn[1 - side].ag, has_skill=True, posture=eb.posture),
            dodge_roll=50,
        )
        value = None
        if result.refusal is None and result.check is not None:
            target = result.check.target
            value = sum(1 for r in _D100 if renove.resolve(target, r)[0]) / 100
        self._defence[key] = value
        return value

    def _coverage_classes(self, victim: int, zone: str) -> list[tuple[float, dict[str, int]]]:
        """Coverage d100s of the partial layers on ``zone``, grouped by what they change."""
        key = (victim, zone)
        cached = self._coverage_cache.get(key)
        if cached is not None:
            return cached
        layers = self.fighters[victim].armour.get(zone, ())
        branches: list[tuple[float, dict[str, int]]] = [(1.0, {})]
        for index, layer in enumerate(layers):
            if layer.coverage >= 1:
                continue
            counts: dict[bool, list[int]] = {}
            for r in _D100:
                hit = resolve_armour(
                    self.tables,
                    zone,
                    layers,
                    coverage_rolls={
                        layer.family: r,
                        **{x.family: 1 for x in layers if x.family != layer.family and x.coverage < 1},
                    },
                )
                counts.setdefault(hit.layers[index].counts, [r, 0])[1] += 1
            branches = [
                (w * n / 100, {**rolls, layer.family: rep})
                for w, rolls in branches
                for rep, n in counts.values()
            ]
        self._coverage_cache[key] = branches
        return branches

    def _dice(self, side: int, res: AttackResult) -> list[tuple[float, DamageDie]]:
        weapon = self.tables.weapon(self.fighters[side].weapon)
        return enumerate_dice(lambda src: roll_damage_die(self.tables, weapon, res, rng=src))

    def _damage(self, side: int, ea: _Eff, eb: _Eff, res: AttackResult) -> list[tuple[float, int, int]]:
        """(probability, damage, critical value or 0) of a hit that lands."""
        key = (
            side,
            ea.bf,
            eb.be,
            res.zone,
            res.damage_die_fixed,
            res.damage_die_minimum_unless_rolled,
            res.damage_modifiers,
            res.ignore_armour,
        )
        cached = self._damage_cache.get(key)
        if cached is not None:
            return cached
        attacker, victim = self.fighters[side], self.fighters[1 - side]
        weapon = self.tables.weapon(attacker.weapon)
        zone = res.zone or "corps"
        layers = victim.armour.get(zone, ())
        merged: dict[tuple[int, int], float] = {}
        for w_die, die in self._dice(side, res):
            for w_cov, rolls in self._coverage_classes(1 - side, zone):
                dmg = damage_to_target(
                    self.tables,
                    die,
                    weapon,
                    attacker_bf=ea.bf,
                    target_be=eb.be,
                    zone=zone,
                    layers=layers,
                    attack=res,
                    coverage_rolls=rolls,
                    wear=False,
                ).total
                for w_crit, value in self._criticals(side, zone, dmg):
                    merged[(dmg, value)] = merged.get((dmg, value), 0.0) + w_die * w_cov * w_crit
        cached = [(w, dmg, value) for (dmg, value), w in merged.items()]
        self._damage_cache[key] = cached
        return cached

    def _criticals(self, side: int, zone: str, damage: int) -> list[tuple[float, int]]:
        """The critical value of ``damage`` on ``zone`` over the 100 critical d100s (0: no critical)."""
        tables = self.tables
        if damage < tables.critical_matrix.min_damage:
            return [(1.0, 0)]
        attacker, victim = self.fighters[side], self.fighters[1 - side]
        weapon = tables.weapon(attacker.weapon)
        key = (id(tables), weapon.critical_kind, zone, damage, weapon.attributes, victim.talents)
        cached = _CRITICAL_CACHE.get(key)
        if cached is None:
            counts: dict[int, int] = {}
            for r in _D100:
                crit = roll_critical(
                    tables,
                    weapon.critical_kind,
                    zone,
                    damage,
                    attacker_attributes=weapon.attributes,
                    victim_talents=victim.talents,
                    critical_roll=r,
                )
                value = crit.value.value if crit else 0
                counts[value] = counts.get(value, 0) + 1
            cached = [(n / 100, v) for v, n in counts.items()]
            if len(_CRITICAL_CACHE) > 50_000:
                _CRITICAL_CACHE.clear()
            _CRITICAL_CACHE[key] = cached
        return cached

    def _side_effects(self, side: int, ea: _Eff, eb: _Eff, res: AttackResult) -> list[tuple[float, int]]:
        """After a successful parry: (probability, critical value or 0) on the defender."""
        key = (
            side,
            ea.bf,
            ea.f,
            eb.be,
            eb.f,
            res.zone,
            res.damage_die_fixed,
            res.damage_die_minimum_unless_rolled,
            res.damage_modifiers,
            res.ignore_armour,
        )
        cached = self._side_cache.get(key)
        if cached is not None:
            return cached
        attacker, victim = self.fighters[side], self.fighters[1 - side]
        weapon = self.tables.weapon(attacker.weapon)
        parry_weapon = self.tables.weapon(victim.weapon)
        zone = res.zone or "corps"
        layers = victim.armour.get(zone, ())
        merged: dict[int, float] = {}
        bands = self._bands
        for w_die, die in self._dice(side, res):
            vs_parry = damage_to_parry_implement(
                self.tables, die, weapon, parry_weapon, attacker_bf=ea.bf, attack=res
            )[0].total
            for w_cov, rolls in self._coverage_classes(1 - side, zone):
                failed = damage_to_target(
                    self.tables,
                    die,
                    weapon,
                    attacker_bf=ea.bf,
                    target_be=eb.be,
                    zone=zone,
                    layers=layers,
                    attack=res,
                    coverage_rolls=rolls,
                    wear=False,
                ).total
                taken = bands.get((ea.f, eb.f, vs_parry, failed))
                if taken is None:
                    taken = {}
                    for s in _D100:
                        effect = parry_side_effect(
                            self.tables,
                            f_attacker=ea.f,
                            f_defender=eb.f,
                            damage_vs_parry=vs_parry,
                            damage_if_failed=failed,
                            side_effect_roll=s,
                        )
                        taken[effect.damage_taken] = taken.get(effect.damage_taken, 0) + 1
                    bands[(ea.f, eb.f, vs_parry, failed)] = taken
                for dmg, n in taken.items():
                    for w_crit, value in self._criticals(side, zone, dmg):
                        merged[value] = merged.get(value, 0.0) + w_die * w_cov * n / 100 * w_crit
        cached = list((w, v) for v, w in merged.items())
        self._side_cache[key] = cached
        return cached

    def attack_distribution(
        self, side: int, ea_id: int, eb_id: int, k: int, parry_free: bool, dodge_free: bool
    ) -> _Dist:
        """Exact outcome distribution of attack ``k`` of ``side`` (defence resources as given)."""
        key = (side, ea_id, eb_id, k, parry_free, dodge_free)
        dist = self._attacks.get(key)
        if dist is not None:
            return dist
        ea, eb = self._effs[ea_id], self._effs[eb_id]
        shared = (
            side,
            ea.cc,
            ea.posture,
            ea.bf,
            ea.f,
            eb.cc,
            eb.ag,
            eb.be,
            eb.f,
            eb.posture,
            k,
            parry_free,
            dodge_free,
        )
        dist = self._attacks.get(shared)
        if dist is not None:
            self._attacks[key] = dist
            return dist
        pairs: list[tuple[float, Outcome]] = []

        def land(weight: float, res: AttackResult, pu: bool, du: bool) -> None:
            for w, _dmg, value in self._damage(side, ea, eb, res):
                pairs.append((weight * w, (True, True, pu, du, value, 0, res.zone or "")))

        def dodge_stage(weight: float, res: AttackResult, pu: bool) -> None:
            dp = self._dodge(side, eb, res) if dodge_free else None
            if dp is None:
                land(weight, res, pu, False)
                return
            pairs.append((weight * dp, _QUIET_FLAGS[(pu, True)]))
            land(weight * (1 - dp), res, pu, True)

        for count, res in self._signatures(side, ea, eb, k):
            weight = count / 100
            if res is None:
                pairs.append((weight, _QUIET_FLAGS[(False, False)]))
                continue
            pp = self._parry(side, ea, eb, res) if parry_free else None
            if pp is None:
                dodge_stage(weight, res, False)
                continue
            if self.options.parry_side_effects:
                for w, value in self._side_effects(side, ea, eb, res):
                    if value:
                        pairs.append((weight * pp * w, (True, False, True, False, 0, value, res.zone or "")))
                    else:
                        pairs.append((weight * pp * w, _QUIET_FLAGS[(True, False)]))
            else:
                pairs.append((weight * pp, _QUIET_FLAGS[(True, False)]))
            dodge_stage(weight * (1 - pp), res, True)
        dist = _Dist(pairs)
        self._attacks[key] = self._attacks[shared] = dist
        return dist

    def hit_probability(self, side: int = 0, k: int = 1) -> Fraction:
        """Exact P(attack ``k`` of ``side`` lands: hits, is not parried, not dodged) at the start."""
        ea = self._effs[self.info(side, self.start[side])[0]]
        eb = self._effs[self.info(1 - side, self.start[1 - side])[0]]
        total = Fraction(0)
        for count, res in self._signatures(side, ea, eb, k):
            if res is None:
                continue
            pp = self._parry(side, ea, eb, res)
            dp = self._dodge(side, eb, res)
            p = Fraction(count, 100)
            if pp is not None:
                p *= 1 - Fraction(round(pp * 100), 100)
            if dp is not None:
                p *= 1 - Fraction(round(dp * 100), 100)
            total += p
        return total

    # -- one round ------------------------------------------------------------------------------

    def _first_striker(self) -> float:
        """P(the first fighter strikes first): 3d20 + Ag against 3d20 + Ag, exact ties split."""
        a, b = self.fighters
        da = _initiative_distribution(self.tables, a.talents)
        db = _initiative_distribution(self.tables, b.talents)
        # initiative follows the Ag, its armour malus included (seed l. 50-51)
        ag_a = int(a.characteristics.get("Ag", 0)) + self._worn[0].initiative
        ag_b = int(b.characteristics.get("Ag", 0)) + self._worn[1].initiative
        p = 0.0
        for ta, wa in da.items():
            for tb, wb in db.items():
                if ta + ag_a > tb + ag_b:
                    p += wa * wb
                elif ta + ag_a == tb + ag_b:
                    p += wa * wb / 2
        return p

    @staticmethod
    def _slots(first: int, attacks: tuple[int, int]) -> tuple[tuple[int, int], ...]:
        out = []
        for k in range(1, max(attacks) + 1):
            for side in (first, 1 - first):
                if k <= attacks[side]:
                    out.append((side, k))
        return tuple(out)

    def round_model(self, ea_id: int, eb_id: int) -> _RoundModel:
        key = (ea_id, eb_id)
        model = self._rounds.get(key)
        if model is not None:
            return model
        effs = (ea_id, eb_id)
        attacks = (self._effs[ea_id].attacks, self._effs[eb_id].attacks)
        quiet = 0.0
        events: list[tuple[float, Any]] = []
        slot_lists = (self._slots(0, attacks), self._slots(1, attacks))
        for first, p_order in ((0, self._first), (1, 1 - self._first)):
            if p_order <= 0:
                continue
            flags: dict[tuple[bool, bool, bool, bool], float] = {(True, True, True, True): p_order}
            for index, (side, k) in enumerate(slot_lists[first]):
                after: dict[tuple[bool, bool, bool, bool], float] = {}
                for fl, p in flags.items():
                    parry_free, dodge_free = (fl[2], fl[3]) if side == 0 else (fl[0], fl[1])
                    dist = self.attack_distribution(
                        side, effs[side], effs[1 - side], k, parry_free, dodge_free
                    )
                    for w, outcome in dist.pairs():
                        new = _after(fl, side, outcome)
                        if outcome[0]:
                            events.append((p * w, (first, index, outcome, new)))
                        else:
                            after[new] = after.get(new, 0.0) + p * w
                flags = after
            quiet += sum(flags.values())
        quiet = min(1.0, max(0.0, quiet))
        log_quiet = math.log(quiet) if 0 < quiet < 1 else 0.0
        model = _RoundModel(quiet, log_quiet, _Dist(events), slot_lists)
        self._rounds[key] = model
        return model

    # -- duels ----------------------------------------------------------------------------------

    def run(
        self,
        duels: int,
        rng: random.Random,
        *,
        deadline: float | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> Tally:
        """Sample ``duels`` duels (fewer if ``deadline``, a ``clock()`` value, passes first; the first
        :data:`MIN_DUELS` always run, even past it: an answer never reports « 0 duels »)."""
        tally = Tally()
        started = clock()
        max_rounds = self.options.max_rounds
        random_ = rng.random
        log = math.log
        wins, crits, outs = tally.wins, tally.criticals, tally.outs
        first_sum, first_count = tally.first_hit_sum, tally.first_hit_count
        info_a, info_b = self._info
        info = self.info
        effs = self._effs
        rounds_cache = self._rounds
        advance = self.advance
        skip = self.skip
        dead_id = self.dead_id
        done = 0
        for done in range(1, duels + 1):
            if deadline is not None and done > MIN_DUELS and clock() > deadline:
                done -= 1
                tally.stopped_by_time = True
                break
            states = [self.start[0], self.start[1]]
            first_hit = [0, 0]
            rounds = 0
            winner = -1
            while True:
                if deadline is not None and rounds and done > MIN_DUELS and clock() > deadline:
                    winner = -2  # abandoned: the time is up
                    break
                ia = info_a.get(states[0]) or info(0, states[0])
                ib = info_b.get(states[1]) or info(1, states[1])
                model = rounds_cache.get((ia[0], ib[0])) or self.round_model(ia[0], ib[0])
                horizon = ia[1] if ia[1] < ib[1] else ib[1]
                if model.quiet >= 1.0:
                    quiet = NEVER
                elif model.quiet > 0:
                    quiet = int(log(1.0 - random_()) / model.log_quiet)
                else:
                    quiet = 0
                if quiet > horizon:  # nothing happens until a condition changes the state
                    rounds += horizon + 1
                    if rounds >= max_rounds:
                        rounds = max_rounds
                        break
                    states[0] = advance(0, skip(states[0], horizon), random_)
                    states[1] = advance(1, skip(states[1], horizon), random_)
                    out_a = info(0, states[0])[2]
                    out_b = info(1, states[1])[2]
                    if out_a or out_b:
                        winner = 1 if not out_b else 0 if not out_a else 2
                        break
                    continue
                rounds += quiet + 1
                if rounds > max_rounds:
                    rounds = max_rounds
                    break
                if quiet:
                    states[0] = skip(states[0], quiet)
                    states[1] = skip(states[1], quiet)
                event = model.events.sample(random_())
                if event is not None:
                    first, index, outcome, flags = event
                    slots = model.slots[first]
                    while True:
                        side = slots[index][0]
                        if outcome[1] and not first_hit[side]:
                            first_hit[side] = rounds
                        value = outcome[4] or outcome[5]
                        if value:
                            victim = 1 - side
                            crits[side][value] = crits[side].get(value, 0) + 1
                            added = self.critical_effect(victim, states[victim], value, outcome[6]).sample(
                                random_()
                            )
                            if added:
                                states[victim] = tuple(sorted(states[victim] + added))
                                if info(victim, states[victim])[2]:
                                    winner = side
                                    break
                        outcome = None
                        while index + 1 < len(slots):  # the rest of the round, attack by attack
                            index += 1
                            side, k = slots[index]
                            e_side = info(side, states[side])[0]
                            if effs[e_side].attacks < k:
                                continue
                            parry_free, dodge_free = (
                                (flags[2], flags[3]) if side == 0 else (flags[0], flags[1])
                            )
                            dist = self.attack_distribution(
                                side, e_side, info(1 - side, states[1 - side])[0], k, parry_free, dodge_free
                            )
                            candidate = dist.sample(random_())
                            flags = _after(flags, side, candidate)
                            if candidate[0]:
                                outcome = candidate
                                break
                        if outcome is None:
                            break
                    if winner >= 0:
                        break
                if states[0]:
                    states[0] = advance(0, states[0], random_)
                if states[1]:
                    states[1] = advance(1, states[1], random_)
                out_a = info(0, states[0])[2]
                out_b = info(1, states[1])[2]
                if out_a or out_b:
                    winner = 1 if not out_b else 0 if not out_a else 2
                    break
                if rounds >= max_rounds:
                    break
            if winner == -2:
                done -= 1
                tally.stopped_by_time = True
                break
            for side in (0, 1):
                if first_hit[side]:
                    first_sum[side] += first_hit[side]
                    first_count[side] += 1
            if winner in (0, 1):
                wins[winner] += 1
                tally.rounds_total += rounds
                loser = states[1 - winner]
                kinds = {self._cond_list[c].kind for c in loser}
                reason = "dead" if dead_id in loser or "dead" in kinds else "unconscious"
                outs[reason] = outs.get(reason, 0) + 1
            else:
                tally.draws += 1
        tally.duels = done
        tally.seconds = clock() - started
        return tally


def _after(
    flags: tuple[bool, bool, bool, bool], side: int, outcome: Outcome
) -> tuple[bool, bool, bool, bool]:
    """Defence resources after attack ``outcome`` of ``side`` (flags: A parry, A dodge, B …)."""
    if not (outcome[2] or outcome[3]):
        return flags
    if side == 0:  # the defender is B
        return (flags[0], flags[1], flags[2] and not outcome[2], flags[3] and not outcome[3])
    return (flags[0] and not outcome[2], flags[1] and not outcome[3], flags[2], flags[3])


def simulate(
    tables: CombatTables,
    a: Fighter,
    b: Fighter,
    duels: int,
    *,
    options: Options | None = None,
    rng: random.Random | None = None,
    budget: float | None = None,
) -> tuple[DuelSimulator, Tally]:
    """Build the tables for ``a`` against ``b`` and run up to ``duels`` duels within ``budget`` seconds."""
    started = time.perf_counter()
    duels = max(1, min(duels, MAX_DUELS))
    simulator = DuelSimulator(tables, a, b, options)
    deadline = None if budget is None else started + budget
    tally = simulator.run(duels, rng or random.Random(), deadline=deadline)
    tally.seconds = time.perf_counter() - started
    return simulator, tally
