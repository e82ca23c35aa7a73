"""Immobilisante (seed l. 605-607): « Si le test de CT est réussi, l'adversaire est capturé. Il perd ce
round. Quand vient son tour, il peut se libérer avec un test d'Ag réussi (difficulté du test modifiée
de +/- 5 en fonction de la qualité de l'arme utilisée). » Piégeant/Léger (l. 609): −10/+10 to break
free.

Readings: a net, bolas or lasso (no damage) deals no damage, the whip (BF − 4) deals its damage too;
the captured fighter loses the current round (no action, defences still allowed) and, from his next
turn, may only try to break free (an A: Ag test) or defend, until he succeeds. The ±5 for the weapon's
quality is not applied (the fight does not know a weapon's quality)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.rules.checks.common import Modifier
from bot.rules.combat.effects import Condition
from bot.rules.combat.tables import CombatTables, Weapon

CAPTURED = "captured"


@dataclass(frozen=True, slots=True)
class Capture:
    """What an Immobilisante weapon's hit does: the conditions to add, the escape test's modifier."""

    escape_stat: str
    escape_modifier: int
    conditions: tuple[Condition, ...]


def captures(tables: CombatTables, weapon: Weapon) -> bool:
    return any(
        a in tables.weapon_attributes and tables.weapon_attributes[a].mechanics_of("capture")
        for a in weapon.attributes
    )


def escape_modifier(tables: CombatTables, attributes: Iterable[str]) -> int:
    """Piégeant −10, Léger +10 (``escape_modifier`` mechanics)."""
    total = 0
    for a in attributes:
        attribute = tables.weapon_attributes.get(a)
        if attribute is not None:
            total += sum(int(m.get("value", 0)) for m in attribute.mechanics_of("escape_modifier"))
    return total


def capture(tables: CombatTables, weapon: Weapon) -> Capture:
    """The capture by ``weapon`` (an Immobilisante weapon)."""
    mechanic = next(
        m
        for a in weapon.attributes
        if a in tables.weapon_attributes
        for m in tables.weapon_attributes[a].mechanics_of("capture")
    )
    stat = str(mechanic.get("escape_test", "Ag"))
    modifier = escape_modifier(tables, weapon.attributes)
    params = {"weapon": weapon.id, "stat": stat, "modifier": modifier}
    return Capture(
        stat,
        modifier,
        (
            Condition("no_action", weapon.id, until="end_of_round"),
            Condition(CAPTURED, weapon.id, until="freed", params=params),
        ),
    )


def escape_modifiers(condition: Condition, base: int) -> tuple[int, tuple[Modifier, ...]]:
    """The escape test's target and itemised terms from a ``captured`` condition."""
    stat = str(condition.params.get("stat", "Ag"))
    modifier = int(condition.params.get("modifier", 0))
    terms = [Modifier(f"combat.modifier.{stat.lower()}", base)]
    if modifier:
        terms.append(Modifier("combat.modifier.capture_escape", modifier))
    return base + modifier, tuple(terms)
