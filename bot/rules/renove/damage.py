"""Damage, armour, shields, parry side effects, criticals and Mort subite for `renove`.

Damage = die (1d10; Percutante 2d10 keep best; 01 → 10; 02 → 9 unless the die shows 10)
+ weapon (BF ± n, or the fixed value of a missile weapon) + bonuses (charge BF+1, suicidal +2,
aim +1, range band malus) − BE − armour(zone) ± Vicelarde/Contondante by the armour class of the
outermost layer the hit touched. Readings besides the data files':

* A partial layer (¼, ½, ¾ after adding the family's pieces on the zone) gets one coverage d100;
  the layer counts if the roll ≤ share × 100. Layers that count add their PA (minus wear losses);
  Perforante and Coup perforant K ignore that many PA.
* Wear hits the outermost layer the blow *touched* (a missed partial outer layer is not worn).
  At 0 PV the layer loses 1 PA on that zone and then stays (armour_quality ``after_zero``).
* Damage against a parry implement (side-effect roll, shield PV) is the same die and bonuses minus
  the implement's BE, no body armour; shields also take their ``shield_damage`` attribute terms.
* The 01/02 damage-die rule applies to the kept die of a Percutante pair.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from bot.rules.bands import band_for
from bot.rules.checks.common import Modifier
from bot.rules.combat.basics import mod
from bot.rules.combat.dicefeed import HandThenRandom, d
from bot.rules.combat.tables import (
    ArmourPiece,
    ArmourTables,
    CombatTables,
    CriticalEntry,
    MortSubiteBand,
    ParryBand,
    ShieldProfile,
    TableError,
    Weapon,
)
from bot.rules.dice.engine import roll
from bot.rules.random_source import RandomSource
from bot.rules.renove.attack import AttackResult, attribute_mechanics

# --- armour ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ArmourLayer:
    """One armour family worn on one zone: summed share of its pieces, wear state."""

    family: str
    coverage: Fraction
    pv: int
    pv_max: int
    pa_lost: int = 0
    quality: str = "normale"

    def to_dict(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "coverage": str(self.coverage),
            "pv": self.pv,
            "pv_max": self.pv_max,
            # the defaults are left out: a fight document carries every layer of every fighter
            **({"pa_lost": self.pa_lost} if self.pa_lost else {}),
            **({"quality": self.quality} if self.quality != "normale" else {}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ArmourLayer:
        return cls(
            family=str(data["family"]),
            coverage=Fraction(str(data["coverage"])),
            pv=int(data["pv"]),
            pv_max=int(data["pv_max"]),
            pa_lost=int(data.get("pa_lost", 0)),
            quality=str(data.get("quality", "normale")),
        )


Armour = Mapping[str, tuple[ArmourLayer, ...]]


class ArmourError(ValueError):
    """``reason`` (a catalogue key); ``families``; for a refused layering, the ``zone`` and the two
    ``pieces`` (ids) that cannot be worn one over the other there."""

    def __init__(
        self, reason: str, families: Iterable[str], *, pieces: Iterable[str] = (), zone: str | None = None
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.families = tuple(families)
        self.pieces = tuple(pieces)
        self.zone = zone


def _layering_conflict(
    armour: ArmourTables, zone: str, worn: Sequence[ArmourPiece], families: Iterable[str]
) -> ArmourError:
    """The refusal for ``zone``: the first pair of families that do not stack, named by a piece each."""
    ordered = sorted(families, key=lambda f: (armour.families[f].layer_order, f))
    pair = next(
        (
            (a, b)
            for i, a in enumerate(ordered)
            for b in ordered[i + 1 :]
            if not armour.combination_allowed(frozenset((a, b)))
        ),
        None,
    )
    chosen = pair or tuple(ordered)
    named = [next(p.id for p in worn if p.family == f and zone in p.coverage) for f in chosen]
    return ArmourError("combat.armour.not_combinable", chosen, pieces=named, zone=zone)


def check_outfit(armour: ArmourTables, pieces: Iterable[str]) -> dict[str, dict[str, Fraction]]:
    """Zone → family → summed share (≤ 1) of the worn ``pieces``, or :class:`ArmourError`.

    The combination table applies to the layers worn on one zone (seed l. 53, 62, 695 …: « non
    cumulable » / « cumulable avec » speak of layers): pieces on different zones never conflict.
    """
    shares: dict[str, dict[str, Fraction]] = {}
    worn: list[ArmourPiece] = []
    for piece_id in pieces:
        piece = armour.pieces.get(piece_id)
        if piece is None:
            raise ArmourError("combat.armour.unknown_piece", (piece_id,), pieces=(piece_id,))
        worn.append(piece)
        for zone, share in piece.coverage.items():
            zone_shares = shares.setdefault(zone, {})
            zone_shares[piece.family] = min(Fraction(1), zone_shares.get(piece.family, Fraction(0)) + share)
    for zone, by_family in shares.items():
        if not armour.combination_allowed(frozenset(by_family)):
            raise _layering_conflict(armour, zone, worn, by_family)
    return shares


def build_armour(
    tables: CombatTables, pieces: Iterable[str], quality: str | Mapping[str, str] = "normale"
) -> dict[str, tuple[ArmourLayer, ...]]:
    """Zone → layers (inner → outer) for the worn ``pieces``; checks the combination table per zone.

    ``quality``: one quality for all, or family id → quality. Shares of one family add up, ≤ 1.
    """
    return layers_of(tables.armour, check_outfit(tables.armour, pieces), quality)


def layers_of(
    armour: ArmourTables,
    shares: Mapping[str, Mapping[str, Fraction]],
    quality: str | Mapping[str, str] = "normale",
) -> dict[str, tuple[ArmourLayer, ...]]:
    out: dict[str, tuple[ArmourLayer, ...]] = {}
    for zone, by_family in shares.items():
        layers = []
        for family_id in sorted(by_family, key=lambda f: armour.families[f].layer_order):
            q = quality if isinstance(quality, str) else quality.get(family_id, "normale")
            pv = armour.quality_pv[q]
            layers.append(ArmourLayer(family_id, by_family[family_id], pv, pv, 0, q))
        out[zone] = tuple(layers)
    return out


@dataclass(frozen=True, slots=True)
class LayerCheck:
    family: str
    coverage: Fraction
    coverage_roll: int | None
    counts: bool
    pa: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "coverage": str(self.coverage),
            "coverage_threshold": int(self.coverage * 100),
            "coverage_roll": self.coverage_roll,
            "counts": self.counts,
            "pa": self.pa,
        }


@dataclass(frozen=True, slots=True)
class ArmourWear:
    zone: str
    family: str
    pv_before: int
    pv_after: int
    pa_lost: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "zone": self.zone,
            "family": self.family,
            "pv_before": self.pv_before,
            "pv_after": self.pv_after,
            "pa_lost": self.pa_lost,
        }


@dataclass(frozen=True, slots=True)
class ArmourHit:
    zone: str
    layers: tuple[LayerCheck, ...]
    pa: int
    ignored: int
    effective: int
    armour_class: str  # none | legere | moyenne | lourde (outermost touched layer)
    outer: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "zone": self.zone,
            "layers": [layer.to_dict() for layer in self.layers],
            "pa": self.pa,
            "ignored": self.ignored,
            "effective": self.effective,
            "armour_class": self.armour_class,
            "outer": self.outer,
        }


def layer_pa(tables: CombatTables, layer: ArmourLayer) -> int:
    return max(0, tables.armour.families[layer.family].pa - layer.pa_lost)


def resolve_armour(
    tables: CombatTables,
    zone: str,
    layers: Sequence[ArmourLayer],
    *,
    ignore: int = 0,
    rng: RandomSource | None = None,
    coverage_rolls: Mapping[str, int] | None = None,
) -> ArmourHit:
    """Which layers the hit meets (coverage d100 per partial layer), their PA and the class."""
    checks = []
    outer: str | None = None
    for layer in layers:
        roll_value: int | None = None
        counts = True
        if layer.coverage < 1:
            roll_value = d(100, rng, (coverage_rolls or {}).get(layer.family))
            counts = roll_value <= layer.coverage * 100
        pa = layer_pa(tables, layer)
        checks.append(LayerCheck(layer.family, layer.coverage, roll_value, counts, pa if counts else 0))
        if counts:
            outer = layer.family
    total = sum(c.pa for c in checks)
    armour_class = tables.armour.families[outer].armour_class if outer else "none"
    return ArmourHit(
        zone, tuple(checks), total, min(ignore, total), max(0, total - ignore), armour_class, outer
    )


def wear_armour(
    tables: CombatTables, zone: str, layers: Sequence[ArmourLayer], hit: ArmourHit
) -> tuple[tuple[ArmourLayer, ...], ArmourWear | None]:
    """The outermost touched layer loses ``pv_per_hit`` PV; reaching 0 loses 1 PA (once)."""
    if hit.outer is None:
        return tuple(layers), None
    new_layers = list(layers)
    for index in range(len(new_layers) - 1, -1, -1):
        layer = new_layers[index]
        if layer.family != hit.outer:
            continue
        if layer.pv <= 0:
            return tuple(layers), ArmourWear(zone, layer.family, 0, 0, False)
        after = max(0, layer.pv - tables.armour.pv_per_hit)
        lost = after == 0
        new_layers[index] = replace(
            layer, pv=after, pa_lost=layer.pa_lost + (tables.armour.pa_lost_at_zero if lost else 0)
        )
        return tuple(new_layers), ArmourWear(zone, layer.family, layer.pv, after, lost)
    return tuple(layers), None


# --- the damage die ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DamageDie:
    expression: str
    rolled: tuple[int, ...]
    kept: int
    value: int
    rule: str | None  # combat.damage.natural_01 / natural_02 when a natural roll changed the die

    def to_dict(self) -> dict[str, Any]:
        return {
            "expression": self.expression,
            "rolled": list(self.rolled),
            "kept": self.kept,
            "value": self.value,
            "rule": self.rule,
        }


def damage_dice_expression(
    tables: CombatTables, attributes: Iterable[str], percutante_active: bool = True
) -> str:
    for aid, m in attribute_mechanics(tables, attributes, "damage_dice"):
        if aid != "percutante" or percutante_active:
            return str(m["dice"])
    return "1d10"


def roll_damage_die(
    tables: CombatTables,
    weapon: Weapon,
    attack: AttackResult | None = None,
    *,
    grip: str | None = None,
    percutante_active: bool = True,
    rng: RandomSource | None = None,
    damage_dice: Sequence[int] | None = None,
) -> DamageDie:
    """1d10, or 2d10 keep best (Percutante; ``percutante_active=False`` once Epuisante runs out)."""
    expression = damage_dice_expression(tables, weapon.attributes_for(grip), percutante_active)
    result = roll(expression, HandThenRandom(damage_dice or (), rng))
    rolled = tuple(die.value for group in result.groups for die in group.dice)
    kept = result.total
    value, rule = kept, None
    if attack is not None and attack.damage_die_fixed is not None:
        value, rule = attack.damage_die_fixed, "combat.damage.natural_01"
    elif attack is not None and attack.damage_die_minimum_unless_rolled is not None and kept != 10:
        value, rule = attack.damage_die_minimum_unless_rolled, "combat.damage.natural_02"
    return DamageDie(expression, rolled, kept, value, rule)


# --- damage ------------------------------------------------------------------------------------


def weapon_damage_terms(weapon: Weapon, attacker_bf: int) -> tuple[Modifier, ...]:
    if weapon.damage is None:
        raise TableError(f"weapon {weapon.id!r} deals no damage")
    if weapon.damage.base == "fixed":
        return (mod("weapon_fixed", weapon.damage.value),)
    terms = [mod("bf", attacker_bf)]
    if weapon.damage.modifier:
        terms.append(mod(f"weapon.{weapon.id}", weapon.damage.modifier))
    return tuple(terms)


@dataclass(frozen=True, slots=True)
class DamageResult:
    die: DamageDie
    steps: tuple[Modifier, ...]
    raw: int
    total: int
    armour: ArmourHit | None = None
    wear: ArmourWear | None = None
    layers_after: tuple[ArmourLayer, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "die": self.die.to_dict(),
            "steps": [m.to_dict() for m in self.steps],
            "raw": self.raw,
            "total": self.total,
            "armour": self.armour.to_dict() if self.armour else None,
            "wear": self.wear.to_dict() if self.wear else None,
            "layers_after": [layer.to_dict() for layer in self.layers_after],
        }


def _base_steps(
    die: DamageDie, weapon: Weapon, attacker_bf: int, attack: AttackResult | None, extra: Iterable[Modifier]
) -> list[Modifier]:
    steps = [mod("damage_die", die.value), *weapon_damage_terms(weapon, attacker_bf)]
    if attack is not None:
        steps.extend(attack.damage_modifiers)
    steps.extend(extra)
    return steps


def damage_to_target(
    tables: CombatTables,
    die: DamageDie,
    weapon: Weapon,
    *,
    attacker_bf: int,
    target_be: int,
    zone: str,
    layers: Sequence[ArmourLayer] = (),
    attack: AttackResult | None = None,
    grip: str | None = None,
    extra: Iterable[Modifier] = (),
    rng: RandomSource | None = None,
    coverage_rolls: Mapping[str, int] | None = None,
    wear: bool = True,
) -> DamageResult:
    """The damage the target takes on ``zone`` (armour resolved, worn when touched)."""
    attributes = weapon.attributes_for(grip)
    ignore = sum(int(m["points"]) for _, m in attribute_mechanics(tables, attributes, "ignore_armour"))
    if attack is not None:
        ignore += attack.ignore_armour
    hit = resolve_armour(tables, zone, layers, ignore=ignore, rng=rng, coverage_rolls=coverage_rolls)
    steps = _base_steps(die, weapon, attacker_bf, attack, extra)
    steps.append(mod("be", -target_be))
    if hit.pa:
        steps.append(mod("armour", -hit.pa))
    if hit.ignored:
        steps.append(mod("armour_ignored", hit.ignored))
    for aid, m in attribute_mechanics(tables, attributes, "damage_by_armour_class"):
        value = int(m["modifiers"].get(hit.armour_class, 0))
        if value:
            steps.append(mod(f"attribute.{aid}.{hit.armour_class}", value))
    raw = sum(s.value for s in steps)
    new_layers, worn = wear_armour(tables, zone, layers, hit) if wear else (tuple(layers), None)
    return DamageResult(die, tuple(steps), raw, max(0, raw), hit, worn, new_layers)


def damage_to_parry_implement(
    tables: CombatTables,
    die: DamageDie,
    weapon: Weapon,
    parry_weapon: Weapon,
    *,
    attacker_bf: int,
    attack: AttackResult | None = None,
    grip: str | None = None,
    extra: Iterable[Modifier] = (),
) -> tuple[DamageResult, ShieldProfile]:
    """Damage computed with the parry implement's BE (shields.json); shields add ``shield_damage``."""
    profile = tables.shield_for(parry_weapon.id)
    steps = _base_steps(die, weapon, attacker_bf, attack, extra)
    steps.append(mod(f"parry_be.{profile.id}", -profile.be))
    if profile.pv is not None:
        for aid, m in attribute_mechanics(tables, weapon.attributes_for(grip), "shield_damage"):
            steps.append(mod(f"attribute.{aid}.shield", int(m["value"])))
    raw = sum(s.value for s in steps)
    return DamageResult(die, tuple(steps), raw, max(0, raw)), profile


@dataclass(frozen=True, slots=True)
class ShieldWear:
    shield: str
    damage: int
    pv_before: int
    pv_after: int
    destroyed: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "shield": self.shield,
            "damage": self.damage,
            "pv_before": self.pv_before,
            "pv_after": self.pv_after,
            "destroyed": self.destroyed,
        }


def shield_max_pv(tables: CombatTables, weapon_id: str, quality: str = "normale") -> int | None:
    profile = tables.shield_for(weapon_id)
    if profile.pv is None:
        return None
    multipliers = {
        "mediocre": Fraction(1, 2),
        "normale": Fraction(1),
        "bonne": Fraction(3, 2),
        "exceptionnelle": Fraction(2),
    }
    return int(profile.pv * multipliers.get(quality, Fraction(1)))


def wear_shield(profile: ShieldProfile, pv: int, damage: int) -> ShieldWear:
    after = max(0, pv - damage)
    return ShieldWear(profile.id, damage, pv, after, after == 0)


# --- parry side effects ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ParrySideEffect:
    roll: int | None
    steps: tuple[Modifier, ...]
    total: int | None
    band: ParryBand
    forced: bool
    damage_taken: int
    effects: tuple[Mapping[str, Any], ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "roll": self.roll,
            "steps": [m.to_dict() for m in self.steps],
            "total": self.total,
            "band": self.band.id,
            "label": self.band.label,
            "forced": self.forced,
            "damage_taken": self.damage_taken,
            "effects": [dict(e) for e in self.effects],
        }


def _fraction_damage(effects: Iterable[Mapping[str, Any]], damage_if_failed: int) -> int:
    taken = 0
    for e in effects:
        if e.get("type") != "take_damage":
            continue
        share = Fraction(str(e.get("fraction", "1")))
        amount = share * damage_if_failed
        taken += math.ceil(amount) if e.get("rounding") == "up" else int(amount)
    return taken


def parry_side_effect(
    tables: CombatTables,
    *,
    f_attacker: int,
    f_defender: int,
    damage_vs_parry: int,
    damage_if_failed: int,
    shield_destroyed: bool = False,
    rng: RandomSource | None = None,
    side_effect_roll: int | None = None,
) -> ParrySideEffect:
    """d100 + (F attacker − F defender + damage with the parry implement's BE) → band.

    A shield reduced to 0 PV forces the last band (111+, shields.json ``usure_des_boucliers``).
    """
    if shield_destroyed:
        band = tables.parry_bands[-1]
        effects = band.effects
        return ParrySideEffect(
            None, (), None, band, True, _fraction_damage(effects, damage_if_failed), effects
        )
    value = d(100, rng, side_effect_roll)
    steps = (
        mod("side_effect_roll", value),
        mod("f_attacker", f_attacker),
        mod("f_defender", -f_defender),
        mod("damage_vs_parry", damage_vs_parry),
    )
    total = sum(s.value for s in steps)
    band = band_for(tables.parry_bands, total, lambda b: (b.min, b.max))
    return ParrySideEffect(
        value, steps, total, band, False, _fraction_damage(band.effects, damage_if_failed), band.effects
    )


# --- criticals ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CriticalValue:
    d100: int
    row: str
    damage: int
    column: int
    grid: int
    steps: tuple[Modifier, ...]
    raw: int
    value: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "d100": self.d100,
            "row": self.row,
            "damage": self.damage,
            "column": self.column,
            "grid": self.grid,
            "steps": [m.to_dict() for m in self.steps],
            "raw": self.raw,
            "value": self.value,
        }


def critical_value(
    tables: CombatTables,
    damage: int,
    d100: int,
    *,
    attacker_attributes: Iterable[str] = (),
    victim_talents: Iterable[str] = (),
) -> CriticalValue:
    """matrix[decade][min(damage, 10)] + overflow (+1 per point above 10) ± Précise / Dur à cuire, clamped."""
    matrix = tables.critical_matrix
    if damage < matrix.min_damage:
        raise ValueError("only a damaging hit rolls a critical")
    row = matrix.row_for(100 if d100 == 0 else d100)
    last = matrix.damage_columns[-1]
    column = min(damage, last)
    grid = row.values[matrix.damage_columns.index(column)]
    steps = [mod("critical.grid", grid)]
    if damage > last:
        steps.append(mod("critical.overflow", (damage - last) * row.overflow_per_point))
    for aid, m in attribute_mechanics(tables, attacker_attributes, "critical_value"):
        steps.append(mod(f"attribute.{aid}", int(m["value"])))
    for talent in dict.fromkeys(victim_talents):
        value = tables.talent_effects.get(talent, {}).get("critical_value")
        if value:
            steps.append(mod(f"talent.{talent}", value))
    raw = sum(s.value for s in steps)
    value = min(matrix.clamp_max, max(matrix.clamp_min, raw))
    return CriticalValue(row_value(d100), row.label, damage, column, grid, tuple(steps), raw, value)


def row_value(d100: int) -> int:
    return 100 if d100 == 0 else d100


@dataclass(frozen=True, slots=True)
class CriticalResult:
    value: CriticalValue
    entry: CriticalEntry
    mort_subite: MortSubiteBand | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value.to_dict(),
            "kind": self.entry.kind,
            "zone": self.entry.zone,
            "entry_value": self.entry.value,
            "source": self.entry.source,
            "narration": dict(self.entry.narration),
            "mechanics": [m.to_dict() for m in self.entry.mechanics],
            "mort_subite": self.mort_subite.outcome if self.mort_subite else None,
        }


def mort_subite(tables: CombatTables, value: int) -> MortSubiteBand:
    return band_for(tables.mort_subite, value, lambda b: (b.min, b.max))


def roll_critical(
    tables: CombatTables,
    kind: str,
    zone: str,
    damage: int,
    *,
    attacker_attributes: Iterable[str] = (),
    victim_talents: Iterable[str] = (),
    use_mort_subite: bool = False,
    rng: RandomSource | None = None,
    critical_roll: int | None = None,
) -> CriticalResult | None:
    """The critical of a hit dealing ``damage`` on ``zone`` (None when no damage got through)."""
    if damage < tables.critical_matrix.min_damage:
        return None
    value = critical_value(
        tables,
        damage,
        d(100, rng, critical_roll),
        attacker_attributes=attacker_attributes,
        victim_talents=victim_talents,
    )
    entry = tables.critical(kind, zone, value.value)
    return CriticalResult(value, entry, mort_subite(tables, value.value) if use_mort_subite else None)
