"""What an outfit of armour gives, on the character sheet and in every test of a fight (`renove`).

* The outfit is checked by :func:`bot.rules.renove.damage.check_outfit`, the same check a fight
  makes when it builds the layers: the combination table applies to the layers worn on one zone.
* PA per zone: the PA of the layers covering the whole zone add up (``sure``); a layer covering
  ¼, ½ or ¾ of it (after adding its family's pieces) counts only when the coverage d100 falls in
  its share (seed l. 891-895), so it is shown apart, with its share (``partial``).
* The class of a zone is the class of its outer layer (l. 308-310, 897).
* Maluses, once per family worn (armour.json ``penalties``; the seed's lines 685-686 cuir bouilli,
  754-758 maille cousue — printed again 761-763, counted once —, 773-777 maille, 802 plaques,
  860-862 écailles, 872-873 plates; matelassée has none): « couverte en entier » = the family's
  share on the zone is 1, « si le corps est couvert » = the family has any share on the body. The
  families' maluses add up (rule ``cumul_des_malus``). Initiative is 3d20 + Ag, so it follows the Ag
  malus (l. 50-51: « on y perd de la mobilité, et donc de l'Initiative »).
* Robuste (l. 1293-1295: « Annule -5 % Ag et -5 % CC liés au port d'armure »): 5 points of the Ag
  malus and 5 of the CC malus are cancelled, once for the outfit (reading); the CT malus stays.
* These maluses are test modifiers: like every modifier but a critical's, they come after the
  combat WS is worked out (l. 920-925), so they do not change the CC an opponent's adjustment uses.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final

from bot.rules.combat.tables import ArmourTables
from bot.rules.renove.damage import Armour, check_outfit, layers_of

ZONES: Final = ("tete", "bras", "corps", "jambes")
STATS: Final = ("Ag", "CC", "CT", "perception_auditive")

# condition of armour.json → (zone, needs the whole zone)
CONDITIONS: Final[dict[str, tuple[str, bool]]] = {
    "head_fully_covered": ("tete", True),
    "body_covered": ("corps", False),
    "arms_fully_covered": ("bras", True),
    "legs_fully_covered": ("jambes", True),
}

# talent effect (CombatTables.talent_effects, from talents.json ``cancel_malus``) → stat
CANCEL_KEYS: Final[dict[str, str]] = {
    "cancel_armour_wearing_ag": "Ag",
    "cancel_armour_wearing_cc": "CC",
    "cancel_armour_wearing_ct": "CT",
}


@dataclass(frozen=True, slots=True)
class ZoneArmour:
    zone: str
    sure: int  # PA of the layers covering the whole zone
    partial: tuple[tuple[int, Fraction], ...]  # (PA, share) of the layers covering part of it
    armour_class: str  # the outer layer's class, "none" without armour
    families: tuple[str, ...]  # inner → outer

    @property
    def covered(self) -> bool:
        return bool(self.families)

    def to_dict(self) -> dict[str, Any]:
        return {
            "zone": self.zone,
            "pa": self.sure,
            "partial": [{"pa": pa, "share": str(share)} for pa, share in self.partial],
            "class": self.armour_class,
            "families": list(self.families),
        }


@dataclass(frozen=True, slots=True)
class Malus:
    family: str
    condition: str
    stat: str
    value: int


@dataclass(frozen=True, slots=True)
class ArmourMaluses:
    """Totals per stat (≤ 0) after the talents' cancellation; ``cancelled`` stat → points removed."""

    totals: Mapping[str, int] = field(default_factory=dict)
    cancelled: Mapping[str, int] = field(default_factory=dict)
    items: tuple[Malus, ...] = ()

    def of(self, stat: str) -> int:
        return self.totals.get(stat, 0)

    @property
    def ag(self) -> int:
        return self.of("Ag")

    @property
    def cc(self) -> int:
        return self.of("CC")

    @property
    def ct(self) -> int:
        return self.of("CT")

    @property
    def initiative(self) -> int:
        return self.of("Ag")

    @property
    def any(self) -> bool:
        return any(self.totals.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            **{stat: self.of(stat) for stat in STATS},
            "initiative": self.initiative,
            "cancelled": dict(self.cancelled),
            "items": [
                {"family": m.family, "condition": m.condition, "stat": m.stat, "value": m.value}
                for m in self.items
            ],
        }


@dataclass(frozen=True, slots=True)
class Outfit:
    zones: Mapping[str, ZoneArmour]
    maluses: ArmourMaluses
    armour: Armour

    def to_dict(self) -> dict[str, Any]:
        return {
            "zones": {z: a.to_dict() for z, a in self.zones.items()},
            "maluses": self.maluses.to_dict(),
        }


def wearing_cancels(
    talent_effects: Mapping[str, Mapping[str, int]], talents: Iterable[str]
) -> dict[str, int]:
    """Stat → malus points the wearer's talents (ids) cancel (Robuste: Ag 5, CC 5)."""
    out: dict[str, int] = {}
    for talent in set(talents):
        for key, value in talent_effects.get(talent, {}).items():
            stat = CANCEL_KEYS.get(key)
            if stat and value:
                out[stat] = out.get(stat, 0) + int(value)
    return out


def zone_armour(armour: ArmourTables, zone: str, armour_layers: Armour) -> ZoneArmour:
    layers = armour_layers.get(zone, ())
    sure = 0
    partial: list[tuple[int, Fraction]] = []
    for layer in layers:
        pa = max(0, armour.families[layer.family].pa - layer.pa_lost)
        if layer.coverage >= 1:
            sure += pa
        else:
            partial.append((pa, layer.coverage))
    outer = layers[-1].family if layers else None
    return ZoneArmour(
        zone,
        sure,
        tuple(partial),
        armour.families[outer].armour_class if outer else "none",
        tuple(layer.family for layer in layers),
    )


def maluses(
    armour: ArmourTables, armour_layers: Armour, cancels: Mapping[str, int] | None = None
) -> ArmourMaluses:
    """The wearing maluses of the worn layers (module doc), after the talents' ``cancels``."""
    shares: dict[str, dict[str, Fraction]] = {}
    for zone, layers in armour_layers.items():
        for layer in layers:
            shares.setdefault(layer.family, {})[zone] = layer.coverage
    items: list[Malus] = []
    for family_id in sorted(shares, key=lambda f: (armour.families[f].layer_order, f)):
        family = armour.families[family_id]
        for penalty in family.penalties:
            if penalty.condition not in CONDITIONS:
                continue
            zone, whole = CONDITIONS[penalty.condition]
            share = shares[family_id].get(zone, Fraction(0))
            if (whole and share >= 1) or (not whole and share > 0):
                items.extend(
                    Malus(family_id, penalty.condition, stat, value) for stat, value in penalty.modifiers
                )
    totals: dict[str, int] = {}
    for item in items:
        totals[item.stat] = totals.get(item.stat, 0) + item.value
    cancelled: dict[str, int] = {}
    for stat, points in (cancels or {}).items():
        removed = min(points, -totals.get(stat, 0))
        if removed > 0:
            cancelled[stat] = removed
            totals[stat] += removed
    return ArmourMaluses({k: v for k, v in totals.items() if v}, cancelled, tuple(items))


def outfit(armour: ArmourTables, pieces: Iterable[str], cancels: Mapping[str, int] | None = None) -> Outfit:
    """Check the whole outfit (:class:`~bot.rules.renove.damage.ArmourError` naming two pieces that
    cannot be layered), then its PA per zone and its maluses."""
    layers = layers_of(armour, check_outfit(armour, pieces))
    return Outfit(
        {zone: zone_armour(armour, zone, layers) for zone in ZONES},
        maluses(armour, layers, cancels),
        layers,
    )
