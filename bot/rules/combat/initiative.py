"""Initiative (seed III – Combat, "Initiative"): I = 3d20 + Ag (+1d20 "Sur ses gardes").

Each attack k = 1..A acts at I/k (the A given by a second weapon has no slot). Readings from
combat_actions.json: no rounding (slots are exact fractions, only compared); Sur ses gardes adds
its 1d20 to I before the division. Ties between slots are broken deterministically: higher I, then
higher Ag, then the lower slot number k, then the combatant id (alphabetical).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from bot.rules.combat.dicefeed import HandThenRandom
from bot.rules.combat.tables import CombatTables
from bot.rules.dice.engine import roll
from bot.rules.random_source import RandomSource


def _number(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(value)


@dataclass(frozen=True, slots=True)
class InitiativeResult:
    combatant: str
    ag: int
    dice: tuple[int, ...]  # the 3d20
    bonus_dice: tuple[tuple[str, int], ...]  # (talent id, d20) — Sur ses gardes
    attacks: int
    total: int
    slots: tuple[Fraction, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "combatant": self.combatant,
            "ag": self.ag,
            "dice": list(self.dice),
            "dice_total": sum(self.dice),
            "bonus_dice": [{"talent": t, "roll": r} for t, r in self.bonus_dice],
            "attacks": self.attacks,
            "total": self.total,
            "slots": [{"k": k, "value": _number(v), "exact": str(v)} for k, v in enumerate(self.slots, 1)],
        }


def slots_for(total: int, attacks: int) -> tuple[Fraction, ...]:
    """I/k for k = 1..A (A ≥ 1; the second weapon's A must not be counted)."""
    return tuple(Fraction(total, k) for k in range(1, max(1, attacks) + 1))


def roll_initiative(
    tables: CombatTables,
    combatant: str,
    ag: int,
    attacks: int,
    *,
    talents: Iterable[str] = (),
    rng: RandomSource | None = None,
    dice_rolls: Sequence[int] | None = None,
    bonus_rolls: Sequence[int] | None = None,
) -> InitiativeResult:
    """Roll ``3d20`` (or take ``dice_rolls``), add Ag and the talents' dice (``bonus_rolls``)."""
    feed = HandThenRandom(dice_rolls or (), rng)
    main = roll(tables.initiative_dice, feed)
    dice = tuple(die.value for group in main.groups for die in group.dice)
    bonus_feed = HandThenRandom(bonus_rolls or (), rng)
    bonus: list[tuple[str, int]] = []
    for talent in sorted(set(talents)):
        expr = tables.initiative_bonuses.get(talent)
        if expr:
            bonus.append((talent, roll(expr, bonus_feed).total))
    total = ag + main.total + sum(v for _, v in bonus)
    return InitiativeResult(combatant, ag, dice, tuple(bonus), attacks, total, slots_for(total, attacks))


@dataclass(frozen=True, slots=True)
class Slot:
    combatant: str
    k: int
    value: Fraction

    def to_dict(self) -> dict[str, Any]:
        return {
            "combatant": self.combatant,
            "k": self.k,
            "value": _number(self.value),
            "exact": str(self.value),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Slot:
        return cls(str(data["combatant"]), int(data["k"]), Fraction(str(data["exact"])))


def order_slots(results: Iterable[InitiativeResult]) -> tuple[Slot, ...]:
    """Every combatant's slots, descending, with the deterministic tie-break of the module doc."""
    keyed = []
    for r in results:
        for k, value in enumerate(r.slots, 1):
            keyed.append(((-value, -r.total, -r.ag, k, r.combatant), Slot(r.combatant, k, value)))
    keyed.sort(key=lambda item: item[0])
    return tuple(slot for _, slot in keyed)
