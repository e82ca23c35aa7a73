"""Helpers shared by the `v1`, `d20` and `ogl` combat modules (pure; dice typed by hand or drawn).

* :class:`Term` itemises a number (label = catalogue key, value); :func:`total` sums terms.
* :func:`roll_dice` rolls an expression of the bot's dice engine, hand-entered values first.
* :func:`maximum` is the highest result of an expression (criticals that "maximise" damage).
* Pools (Blessures, PV/PC, location HP) live on the shared :class:`~bot.rules.combat.state.Combatant`
  as ``modifier`` conditions on the pool's stat, so ``Combatant.stat("B")`` is the current value and
  the shared :func:`~bot.rules.combat.effects.tick` keeps them (no round unit): :func:`pool_loss`,
  :func:`set_pool_loss`.
* :func:`ordered_slots` orders per-system initiative values into the shared
  :class:`~bot.rules.combat.initiative.Slot`, and :func:`start_round_with` starts a round of the shared
  :class:`~bot.rules.combat.state.FightState` from them (the renove :func:`start_round` rolls its own
  3d20 + Ag initiative).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from bot.rules.checks.common import Modifier
from bot.rules.combat.dicefeed import HandThenRandom
from bot.rules.combat.effects import Condition
from bot.rules.combat.initiative import Slot
from bot.rules.combat.state import Combatant, FightState, RoundActions
from bot.rules.dice.engine import roll
from bot.rules.random_source import RandomSource

Term = Modifier


def term(system: str, key: str, value: int) -> Term:
    """An itemised step, labelled ``combat.<system>.<key>``."""
    return Modifier(f"combat.{system}.{key}", value)


def total(terms: Iterable[Term]) -> int:
    return sum(t.value for t in terms)


def terms_dict(terms: Iterable[Term]) -> list[dict[str, Any]]:
    return [t.to_dict() for t in terms]


@dataclass(frozen=True, slots=True)
class DiceRoll:
    """An expression rolled: every die value in order and the total."""

    expression: str
    dice: tuple[int, ...]
    total: int

    def to_dict(self) -> dict[str, Any]:
        return {"expression": self.expression, "dice": list(self.dice), "total": self.total}


def roll_dice(expression: str, rng: RandomSource | None, rolls: Sequence[int] = ()) -> DiceRoll:
    """Roll ``expression`` taking ``rolls`` (typed by hand) first, then ``rng``."""
    result = roll(expression, HandThenRandom(rolls, rng))
    dice = tuple(die.value for group in result.groups for die in group.dice)
    return DiceRoll(result.expression, dice, result.total)


class _Highest:
    __slots__ = ()

    def randint(self, a: int, b: int) -> int:
        return b


def maximum(expression: str) -> DiceRoll:
    """Every die at its highest face (``1d8+1d4`` → 12)."""
    result = roll(expression, _Highest())
    dice = tuple(die.value for group in result.groups for die in group.dice)
    return DiceRoll(result.expression, dice, result.total)


# --- pools carried as conditions -----------------------------------------------------------------


def pool_source(system: str, pool: str) -> str:
    return f"{system}.loss.{pool}"


def pool_loss(combatant: Combatant, system: str, pool: str) -> int:
    """Points lost from ``pool`` (≥ 0), as recorded by :func:`set_pool_loss`."""
    source = pool_source(system, pool)
    return -sum(c.value or 0 for c in combatant.conditions if c.source == source and c.stat == pool)


def set_pool_loss(combatant: Combatant, system: str, pool: str, lost: int) -> Combatant:
    """Record ``lost`` points of ``pool`` (replacing the previous record; 0 removes it)."""
    source = pool_source(system, pool)
    kept = tuple(c for c in combatant.conditions if not (c.source == source and c.stat == pool))
    if lost:
        kept += (Condition(kind="modifier", source=source, stat=pool, value=-lost),)
    return replace(combatant, conditions=kept)


# --- initiative order ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Timing:
    """One action slot of one combatant: its value and the tie-break keys (larger first)."""

    combatant: str
    k: int
    value: int
    tiebreak: tuple[int, ...] = ()


def ordered_slots(timings: Iterable[Timing]) -> tuple[Slot, ...]:
    """Descending value, then descending tie-break keys, then slot number, then id."""
    keyed = sorted(timings, key=lambda t: (-t.value, tuple(-x for x in t.tiebreak), t.k, t.combatant))
    return tuple(Slot(t.combatant, t.k, Fraction(t.value)) for t in keyed)


def start_round_with(state: FightState, order: Sequence[Slot]) -> FightState:
    """Next round of the shared fight state with an order computed by a system module."""
    combatants = tuple(replace(c, actions=RoundActions(used=c.actions.debt)) for c in state.combatants)
    return FightState(state.round + 1, combatants, tuple(order), 0)
