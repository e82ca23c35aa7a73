"""Weapon attributes that act outside the attack test (seed I – Armes).

* Epuisante (l. 315): « L'attribut Percutante ne fonctionne que pendant BE/2 rounds de combat (arrondi
  à l'inférieur) » — read as the fight's first BE/2 rounds, the wielder's BE (a BE of 1 gives none).
* Peu fiable (l. 311, 601) / Expérimentale (l. 603): bands of the attack's d100 where the weapon gets
  stuck or jams (96-98), or hurts its wielder (melee, 99-00: normal damage to himself) or bursts
  (ranged, 99-00: 11 damage to the head, 15 for an Expérimentale weapon, less armour and E). The
  fight reads them on the attack roll, whatever its success (« 00 » is 100)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from bot.rules.combat.tables import CombatTables, Weapon


def percutante_rounds(tables: CombatTables, attributes: Iterable[str], be: int) -> int | None:
    """How many rounds Percutante works (``attribute_time_limit`` mechanics), None without a limit."""
    for a in attributes:
        attribute = tables.weapon_attributes.get(a)
        if attribute is None:
            continue
        for m in attribute.mechanics_of("attribute_time_limit"):
            if m.get("attribute") != "percutante":
                continue
            amount = m.get("duration", {}).get("amount", {})
            divide = int(amount.get("divide_by", 1)) or 1
            return be // divide
    return None


def percutante_active(tables: CombatTables, weapon: Weapon, be: int, fight_round: int) -> bool:
    limit = percutante_rounds(tables, weapon.attributes, be)
    return limit is None or fight_round <= limit


@dataclass(frozen=True, slots=True)
class Malfunction:
    """A band of Peu fiable / Expérimentale hit by the attack roll."""

    attribute: str
    effect: str  # stuck | self_hit (melee) | jam | explode (ranged)
    low: int
    high: int
    damage: int | None = None
    zone: str | None = None


def malfunction(tables: CombatTables, weapon: Weapon, roll: int) -> Malfunction | None:
    """The malfunction the attack's d100 ``roll`` (1-100) causes with ``weapon``, if any."""
    context = "ranged" if weapon.kind == "ranged" else "melee"
    for a in weapon.attributes:
        attribute = tables.weapon_attributes.get(a)
        if attribute is None:
            continue
        for m in attribute.mechanics_of("malfunction"):
            if m.get("context") != context:
                continue
            for band in m.get("bands", ()):
                low, high = int(band["from"]), int(band["to"])
                if low <= roll <= high:
                    damage = band.get("damage")
                    return Malfunction(
                        a,
                        str(band["effect"]),
                        low,
                        high,
                        int(damage) if damage is not None else None,
                        band.get("zone"),
                    )
    return None


@dataclass(frozen=True, slots=True)
class BowStrength:
    """Arcs (seed l. 244-245): « Il faut avoir un BF égal à celui d'un Arc pour l'utiliser, et supérieur
    pour Viser » — the bow's BF is its damage value (weapon_groups.json ``force_des_arcs``)."""

    groups: frozenset[str]

    def bow_bf(self, weapon: Weapon) -> int | None:
        """The BF a bow asks for, None for any other weapon."""
        if weapon.group not in self.groups or weapon.damage is None or weapon.damage.base != "fixed":
            return None
        return weapon.damage.value

    def may_shoot(self, weapon: Weapon, bf: int) -> bool:
        need = self.bow_bf(weapon)
        return need is None or bf >= need

    def may_aim(self, weapon: Weapon, bf: int) -> bool:
        need = self.bow_bf(weapon)
        return need is None or bf > need


def bow_strength(weapon_groups: Mapping[str, Any]) -> BowStrength:
    """The bow rule of the ``weapon_groups`` document (no rule: no bow asks for anything)."""
    for rule in weapon_groups.get("rules", ()) or ():
        effect = rule.get("effect") or {}
        if effect.get("type") == "strength_requirement":
            return BowStrength(frozenset(str(g) for g in effect.get("groups", ())))
    return BowStrength(frozenset())
