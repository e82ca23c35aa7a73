"""Typed, frozen views of the `renove` combat tables (``data/*.json``).

The combat core never reads files: :meth:`CombatTables.from_documents` takes the raw table documents
(``{name: document}``; the loader's ``{name: Table}`` becomes ``{n: t.document for n, t in …}``) and
builds the dataclasses below. Every number the core uses comes from here, so a GM override of a data
file changes the engine without touching code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from bot.rules.bands import band_for

ZONES: tuple[str, ...] = ("jambes", "bras", "corps", "tete")
CRITICAL_KINDS: tuple[str, ...] = ("tranchantes", "contondantes", "projectiles", "pugilat")

REQUIRED_TABLES: tuple[str, ...] = (
    "critical_matrix",
    "criticals_tranchantes",
    "criticals_contondantes",
    "criticals_projectiles",
    "criticals_pugilat",
    "hit_location",
    "weapons_melee",
    "weapons_ranged",
    "weapon_attributes",
    "armour",
    "armour_quality",
    "shields",
    "parry_side_effects",
    "range_bands",
    "combat_modifiers",
    "postures",
    "combat_actions",
    "special_actions",
    "talents",
    "mort_subite",
    "combat_rules",
)


class TableError(ValueError):
    """A table document lacks something the combat core needs."""


def _freeze(value: Any) -> Any:
    """Deep copy of JSON data as tuples/dicts (dicts are copied so callers cannot alias the input)."""
    if isinstance(value, Mapping):
        return {str(k): _freeze(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


# --- critical effects --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Mechanic:
    """One entry of a critical's ``mechanics`` (criticals.schema.json ``effect``).

    ``type`` picks the shape; ``params`` holds the other fields except the branches, which are
    parsed recursively into ``on_failure`` / ``on_success``.
    """

    type: str
    params: Mapping[str, Any] = field(default_factory=dict)
    on_failure: tuple[Mechanic, ...] = ()
    on_success: tuple[Mechanic, ...] = ()

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Mechanic:
        params = {k: _freeze(v) for k, v in raw.items() if k not in ("type", "on_failure", "on_success")}
        return cls(
            type=str(raw["type"]),
            params=params,
            on_failure=tuple(cls.from_dict(m) for m in raw.get("on_failure", ())),
            on_success=tuple(cls.from_dict(m) for m in raw.get("on_success", ())),
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, **{k: _thaw(v) for k, v in self.params.items()}}
        if self.on_failure:
            out["on_failure"] = [m.to_dict() for m in self.on_failure]
        if self.on_success:
            out["on_success"] = [m.to_dict() for m in self.on_success]
        return out


@dataclass(frozen=True, slots=True)
class CriticalEntry:
    kind: str
    zone: str
    value: int
    mechanics: tuple[Mechanic, ...]
    narration: Mapping[str, str]

    @property
    def source(self) -> str:
        return f"criticals.{self.kind}.{self.zone}.{self.value}"


@dataclass(frozen=True, slots=True)
class CriticalRow:
    d100_min: int
    d100_max: int
    label: str
    values: tuple[int, ...]
    overflow_per_point: int


@dataclass(frozen=True, slots=True)
class CriticalMatrix:
    rows: tuple[CriticalRow, ...]
    damage_columns: tuple[int, ...]
    min_damage: int
    modifiers: Mapping[str, int]  # id (precise, dur_a_cuire) -> value
    clamp_min: int
    clamp_max: int

    def row_for(self, d100: int) -> CriticalRow:
        return band_for(self.rows, d100, lambda r: (r.d100_min, r.d100_max))


@dataclass(frozen=True, slots=True)
class MortSubiteBand:
    id: str
    min: int
    max: int
    outcome: str


# --- hit location ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ZoneBand:
    zone: str
    min_degrees: int
    max_degrees: int | None


@dataclass(frozen=True, slots=True)
class NaturalRoll:
    roll: int
    kind: str
    auto_success: bool = False
    cannot_be_parried: bool = False
    cannot_be_dodged: bool = False
    zone: str | None = None
    damage_die_fixed: int | None = None
    damage_die_minimum_unless_rolled: int | None = None


@dataclass(frozen=True, slots=True)
class HitLocation:
    bands: tuple[ZoneBand, ...]
    degree_bonuses: Mapping[str, int]  # talent id -> °R added for the location
    attacker_may_choose_lower_zone: bool
    natural_rolls: Mapping[int, NaturalRoll]
    degree_bonus_attacks: Mapping[str, str] = field(default_factory=dict)  # talent id -> melee/ranged

    def zone_for(self, degrees: int) -> str:
        best = self.bands[0].zone
        for band in self.bands:
            if degrees >= band.min_degrees:
                best = band.zone
        return best

    def reachable(self, degrees: int) -> tuple[str, ...]:
        """Zones whose threshold is ≤ ``degrees`` (the legs are always reachable on a hit)."""
        zones = [b.zone for b in self.bands if b.min_degrees <= max(degrees, self.bands[0].min_degrees)]
        return tuple(zones)


# --- weapons -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WeaponDamage:
    """``base`` = "BF" (the wielder's BF + modifier) or "fixed" (``value``)."""

    base: str
    modifier: int = 0
    value: int = 0


@dataclass(frozen=True, slots=True)
class Weapon:
    id: str
    name: str
    kind: str  # melee | ranged
    group: str | None
    two_handed: bool
    damage: WeaponDamage | None
    attributes: tuple[str, ...]
    critical_kind: str
    special_actions: tuple[str, ...] = ()
    conditional_attributes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    range_short: int | None = None
    range_long: int | None = None
    combines: tuple[str, ...] = ()
    defensive_kind: str | None = None

    def attributes_for(self, grip: str | None = None) -> tuple[str, ...]:
        """The attributes, plus those that depend on the grip ("one_handed"/"two_handed")."""
        extra = self.conditional_attributes.get(grip, ()) if grip else ()
        return self.attributes + tuple(a for a in extra if a not in self.attributes)


@dataclass(frozen=True, slots=True)
class WeaponAttribute:
    id: str
    name: str
    mechanics: tuple[Mapping[str, Any], ...]

    def mechanics_of(self, type_: str) -> tuple[Mapping[str, Any], ...]:
        return tuple(m for m in self.mechanics if m.get("type") == type_)


# --- armour ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ArmourPenalty:
    """One malus line of a family: ``condition`` (head_fully_covered, body_covered …), (stat, value)s."""

    condition: str
    modifiers: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class ArmourFamily:
    id: str
    name: str
    pa: int
    armour_class: str
    layer_order: int
    combinable_with: frozenset[str]
    name_en: str = ""
    penalties: tuple[ArmourPenalty, ...] = ()


@dataclass(frozen=True, slots=True)
class ArmourPiece:
    id: str
    family: str
    name: str
    coverage: Mapping[str, Fraction]
    name_en: str = ""
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ArmourTables:
    families: Mapping[str, ArmourFamily]
    pieces: Mapping[str, ArmourPiece]
    combinations: tuple[tuple[frozenset[str], int], ...]
    quality_pv: Mapping[str, int]
    pv_per_hit: int
    pa_lost_at_zero: int

    def combination_allowed(self, families: frozenset[str]) -> bool:
        if len(families) <= 1:
            return True
        return any(layers == families for layers, _ in self.combinations)


@dataclass(frozen=True, slots=True)
class ShieldProfile:
    id: str
    weapons: tuple[str, ...]
    be: int
    pv: int | None
    parry_bonus: bool
    armour_class: str | None
    default_for_other_weapons: bool


# --- defence, range, situation -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ParryBand:
    id: str
    label: str
    min: int | None
    max: int | None
    effects: tuple[Mapping[str, Any], ...]


@dataclass(frozen=True, slots=True)
class RangeBand:
    id: str
    label: str
    range: str | None  # short | long | None (beyond)
    fraction: Fraction
    ct_modifier: int
    damage_modifier: int
    aim_required: bool


@dataclass(frozen=True, slots=True)
class SituationModifier:
    id: str
    applies_to: str  # CC | CT | defence
    value: int


@dataclass(frozen=True, slots=True)
class Posture:
    id: str
    attack: int
    parry: int
    allowed_actions: frozenset[str]
    options: Mapping[str, Mapping[str, int]]  # option id -> {stat: value}
    forbids_defence: bool


@dataclass(frozen=True, slots=True)
class CombatAction:
    id: str
    category: str  # combat | reaction | free | out_of_combat
    cost_unit: str
    cost_amount: float
    once_per_round: bool
    repeatable: bool
    posture_allowed: bool


@dataclass(frozen=True, slots=True)
class CombatTables:
    critical_matrix: CriticalMatrix
    criticals: Mapping[str, Mapping[tuple[str, int], CriticalEntry]]
    mort_subite: tuple[MortSubiteBand, ...]
    hit_location: HitLocation
    weapons: Mapping[str, Weapon]
    weapon_attributes: Mapping[str, WeaponAttribute]
    armour: ArmourTables
    shields: tuple[ShieldProfile, ...]
    parry_roll_dice: str
    parry_bands: tuple[ParryBand, ...]
    range_bands: tuple[RangeBand, ...]
    firing_into_melee: int
    stray_die: str
    situation: Mapping[str, SituationModifier]
    postures: Mapping[str, Posture]
    actions: Mapping[str, CombatAction]
    extra_attack_malus: int
    extra_attack_defence_bonus: int
    reactive_parry_malus: int
    charge_cc: int
    charge_bf: int
    aim_options: Mapping[str, Mapping[str, int]]  # precision/puissance -> {attack, damage, defence}
    initiative_dice: str
    initiative_bonuses: Mapping[str, str]  # talent id -> dice
    talent_effects: Mapping[str, Mapping[str, int]]  # talent id -> {what: value}
    off_hand_malus: int
    off_hand_waived_by: str
    special_actions: Mapping[str, Mapping[str, Any]]
    ws_constant: int

    def critical(self, kind: str, zone: str, value: int) -> CriticalEntry:
        try:
            return self.criticals[kind][(zone, value)]
        except KeyError as exc:
            raise TableError(f"no critical entry {kind}/{zone}/{value}") from exc

    def weapon(self, weapon_id: str) -> Weapon:
        try:
            return self.weapons[weapon_id]
        except KeyError as exc:
            raise TableError(f"unknown weapon {weapon_id!r}") from exc

    def attribute(self, attribute_id: str) -> WeaponAttribute | None:
        return self.weapon_attributes.get(attribute_id)

    def shield_for(self, weapon_id: str) -> ShieldProfile:
        for shield in self.shields:
            if weapon_id in shield.weapons:
                return shield
        for shield in self.shields:
            if shield.default_for_other_weapons:
                return shield
        raise TableError("shields.json has no default parry profile")

    @classmethod
    def from_documents(cls, docs: Mapping[str, Mapping[str, Any]]) -> CombatTables:
        missing = [name for name in REQUIRED_TABLES if name not in docs]
        if missing:
            raise TableError(f"missing combat tables: {', '.join(missing)}")
        return cls(
            critical_matrix=_critical_matrix(docs["critical_matrix"]),
            criticals={kind: _criticals(kind, docs[f"criticals_{kind}"]) for kind in CRITICAL_KINDS},
            mort_subite=tuple(
                MortSubiteBand(e["id"], int(e["min"]), int(e["max"]), e["outcome"])
                for e in docs["mort_subite"]["entries"]
            ),
            hit_location=_hit_location(docs["hit_location"]),
            weapons={
                **_weapons(docs["weapons_melee"]),
                **_weapons(docs["weapons_ranged"]),
            },
            weapon_attributes={
                e["id"]: WeaponAttribute(e["id"], e["name"], tuple(_freeze(m) for m in e["mechanics"]))
                for e in docs["weapon_attributes"]["entries"]
            },
            armour=_armour(docs["armour"], docs["armour_quality"]),
            shields=tuple(
                ShieldProfile(
                    id=e["id"],
                    weapons=tuple(e.get("weapons", ())),
                    be=int(e["be"]),
                    pv=e.get("pv"),
                    parry_bonus=bool(e.get("parry_bonus", True)),
                    armour_class=e.get("armour_class"),
                    default_for_other_weapons=bool(e.get("default_for_other_weapons", False)),
                )
                for e in docs["shields"]["entries"]
            ),
            parry_roll_dice=str(docs["parry_side_effects"]["roll"]["dice"]),
            parry_bands=tuple(
                ParryBand(
                    e["id"], e["label"], e.get("min"), e.get("max"), tuple(_freeze(x) for x in e["effects"])
                )
                for e in docs["parry_side_effects"]["entries"]
            ),
            range_bands=_range_bands(docs["range_bands"]),
            firing_into_melee=int(docs["range_bands"]["firing_into_melee"]["ct_modifier"]),
            stray_die=str(docs["range_bands"]["firing_into_melee"]["stray_hit"]["pick_target_die"]),
            situation={
                e["id"]: SituationModifier(e["id"], e["applies_to"], int(e["value"]))
                for e in docs["combat_modifiers"]["entries"]
            },
            postures=_postures(docs["postures"]),
            actions=_actions(docs["combat_actions"]),
            **_action_numbers(docs["combat_actions"]),
            initiative_dice=str(docs["combat_actions"]["initiative"]["dice"]),
            initiative_bonuses={
                b["talent_id"]: str(b["dice"]) for b in docs["combat_actions"]["initiative"]["bonuses"]
            },
            talent_effects=_talents(docs["talents"], docs["hit_location"], docs["critical_matrix"]),
            **_off_hand(docs["shields"]),
            special_actions={e["id"]: _freeze(e) for e in docs["special_actions"]["entries"]},
            ws_constant=int(docs["combat_rules"]["combat_ws"]["formula"]["add_constant"]),
        )


# --- builders ----------------------------------------------------------------------------------


def _critical_matrix(doc: Mapping[str, Any]) -> CriticalMatrix:
    rows = tuple(
        CriticalRow(
            d100_min=int(e["d100_min"]),
            d100_max=int(e["d100_max"]),
            label=str(e["label"]),
            values=tuple(int(v) for v in e["values"]),
            overflow_per_point=int(e.get("overflow_per_point", 1)),
        )
        for e in doc["entries"]
    )
    return CriticalMatrix(
        rows=rows,
        damage_columns=tuple(int(c) for c in doc["damage_columns"]),
        min_damage=int(doc.get("min_damage", 1)),
        modifiers={m["id"]: int(m["value"]) for m in doc.get("modifiers", ())},
        clamp_min=int(doc["clamp"]["min"]),
        clamp_max=int(doc["clamp"]["max"]),
    )


def _criticals(kind: str, doc: Mapping[str, Any]) -> dict[tuple[str, int], CriticalEntry]:
    return {
        (e["zone"], int(e["value"])): CriticalEntry(
            kind=kind,
            zone=e["zone"],
            value=int(e["value"]),
            mechanics=tuple(Mechanic.from_dict(m) for m in e["mechanics"]),
            narration=dict(e["narration"]),
        )
        for e in doc["entries"]
    }


def _hit_location(doc: Mapping[str, Any]) -> HitLocation:
    bands = tuple(
        sorted(
            (ZoneBand(e["zone"], int(e["min_degrees"]), e.get("max_degrees")) for e in doc["entries"]),
            key=lambda b: b.min_degrees,
        )
    )
    naturals = {}
    for e in doc.get("natural_rolls", ()):
        naturals[int(e["roll"])] = NaturalRoll(
            roll=int(e["roll"]),
            kind=str(e["kind"]),
            auto_success=bool(e.get("auto_success", False)),
            cannot_be_parried=bool(e.get("cannot_be_parried", False)),
            cannot_be_dodged=bool(e.get("cannot_be_dodged", False)),
            zone=e.get("zone"),
            damage_die_fixed=e.get("damage_die_fixed"),
            damage_die_minimum_unless_rolled=e.get("damage_die_minimum_unless_rolled"),
        )
    return HitLocation(
        bands=bands,
        degree_bonuses={b["talent_id"]: int(b["degrees"]) for b in doc.get("degree_bonuses", ())},
        attacker_may_choose_lower_zone=bool(doc.get("attacker_may_choose_lower_zone", True)),
        natural_rolls=naturals,
        degree_bonus_attacks={
            b["talent_id"]: str(b["attack"]) for b in doc.get("degree_bonuses", ()) if "attack" in b
        },
    )


def _weapons(doc: Mapping[str, Any]) -> dict[str, Weapon]:
    out: dict[str, Weapon] = {}
    for e in doc["entries"]:
        raw = e.get("damage")
        damage: WeaponDamage | None = None
        if raw is not None:
            if raw["base"] == "fixed":
                damage = WeaponDamage("fixed", 0, int(raw["value"]))
            else:
                damage = WeaponDamage(str(raw["base"]), int(raw.get("modifier", 0)))
        rng = e.get("range") or {}
        out[e["id"]] = Weapon(
            id=e["id"],
            name=e["name"],
            kind=e["kind"],
            group=e.get("group"),
            two_handed=bool(e.get("two_handed", False)),
            damage=damage,
            attributes=tuple(e.get("attributes", ())),
            critical_kind=e["critical_kind"],
            special_actions=tuple(e.get("special_actions", ())),
            conditional_attributes={
                c["when"]: tuple(c["attributes"]) for c in e.get("conditional_attributes", ())
            },
            range_short=rng.get("short"),
            range_long=rng.get("long"),
            combines=tuple(e.get("combines", ())),
            defensive_kind=e.get("defensive_kind"),
        )
    return out


def armour_tables(doc: Mapping[str, Any], quality: Mapping[str, Any]) -> ArmourTables:
    """The armour part alone (families, pieces, combinations, wear), e.g. for a character sheet."""
    try:
        return _armour(doc, quality)
    except (KeyError, TypeError, ValueError) as exc:
        raise TableError(f"armour tables: {exc!r}"[:200]) from exc


def _armour(doc: Mapping[str, Any], quality: Mapping[str, Any]) -> ArmourTables:
    families = {
        f["id"]: ArmourFamily(
            id=f["id"],
            name=f["name"],
            pa=int(f["pa"]),
            armour_class=f["class"],
            layer_order=int(f["layer_order"]),
            combinable_with=frozenset(f.get("combinable_with", ())),
            name_en=str(f.get("name_en") or ""),
            penalties=tuple(
                ArmourPenalty(
                    str(p["condition"]), tuple((str(m["stat"]), int(m["value"])) for m in p["modifiers"])
                )
                for p in f.get("penalties", ())
            ),
        )
        for f in doc["families"]
    }
    pieces = {
        p["id"]: ArmourPiece(
            id=p["id"],
            family=p["family"],
            name=p["name"],
            coverage={z: Fraction(str(v)) for z, v in p["coverage"].items()},
            name_en=str(p.get("name_en") or ""),
            aliases=tuple(str(a) for a in p.get("aliases", ())),
        )
        for p in doc["entries"]
    }
    wear = quality["wear"]
    return ArmourTables(
        families=families,
        pieces=pieces,
        combinations=tuple((frozenset(c["layers"]), int(c["pa"])) for c in doc["combinations"]),
        quality_pv={e["quality"]: int(e["pv"]) for e in quality["entries"]},
        pv_per_hit=int(wear["pv_per_hit"]),
        pa_lost_at_zero=int(wear["pa_lost_at_zero"]),
    )


def _range_bands(doc: Mapping[str, Any]) -> tuple[RangeBand, ...]:
    bands = []
    for e in doc["entries"]:
        up = e.get("up_to")
        bands.append(
            RangeBand(
                id=e["id"],
                label=e["label"],
                range=up["range"] if up else None,
                fraction=Fraction(int(up["numerator"]), int(up["denominator"])) if up else Fraction(0),
                ct_modifier=int(e["ct_modifier"]),
                damage_modifier=int(e["damage_modifier"]),
                aim_required=bool(e.get("aim_required", False)),
            )
        )
    return tuple(bands)


def _stat_values(effects: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for m in effects:
        if m.get("type") == "modifier" and m.get("who", "self") == "self":
            out[m["stat"]] = out.get(m["stat"], 0) + int(m["value"])
    return out


def _postures(doc: Mapping[str, Any]) -> dict[str, Posture]:
    out = {}
    for e in doc["entries"]:
        mods = _stat_values(e.get("modifiers", ()))
        allowed = frozenset(e["allowed_actions"])
        out[e["id"]] = Posture(
            id=e["id"],
            attack=mods.get("attack", 0),
            parry=mods.get("parry", 0),
            allowed_actions=allowed,
            options={o["id"]: _stat_values(o["effects"]) for o in e.get("options", ())},
            forbids_defence=not (allowed & {"preparer_parade", "parade_reactive", "esquiver"}),
        )
    return out


def _actions(doc: Mapping[str, Any]) -> dict[str, CombatAction]:
    out = {}
    for e in doc["entries"]:
        cost = e.get("cost", {})
        out[e["id"]] = CombatAction(
            id=e["id"],
            category=e["category"],
            cost_unit=str(cost.get("unit", "A")),
            cost_amount=float(cost.get("amount", 1)),
            once_per_round=bool(e.get("once_per_round", False)),
            repeatable=bool(e.get("repeatable", False)),
            posture_allowed=bool(e.get("posture_allowed", True)),
        )
    return out


def _find(entries: Sequence[Mapping[str, Any]], id_: str) -> Mapping[str, Any]:
    for e in entries:
        if e.get("id") == id_:
            return e
    raise TableError(f"entry {id_!r} not found")


def _action_numbers(doc: Mapping[str, Any]) -> dict[str, Any]:
    entries = doc["entries"]
    attack = _find(entries, "attaquer")["modifiers"]
    extra_malus = next(int(m["value"]) for m in attack if m["scope"] == "each_extra_attack")
    extra_def = next(int(m["value"]) for m in attack if m["scope"] == "defence_against_extra_attacks")
    reactive = _find(entries, "parade_reactive")["modifiers"][0]["value"]
    charge = {m["stat"]: int(m["value"]) for m in _find(entries, "charger")["modifiers"]}
    aim: dict[str, dict[str, int]] = {}
    for option in _find(entries, "viser")["options"]:
        values: dict[str, int] = {}
        for m in option["effects"]:
            if m["who"] == "opponent":
                values["defence"] = int(m["value"])
            elif m["stat"] == "damage":
                values["damage"] = int(m["value"])
            else:
                values["attack"] = int(m["value"])
        aim[option["id"]] = values
    return {
        "extra_attack_malus": extra_malus,
        "extra_attack_defence_bonus": extra_def,
        "reactive_parry_malus": int(reactive),
        "charge_cc": charge.get("CC", 0),
        "charge_bf": charge.get("BF", 0),
        "aim_options": aim,
    }


def _talents(
    doc: Mapping[str, Any], hit_location: Mapping[str, Any], matrix: Mapping[str, Any]
) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for e in doc["entries"]:
        values: dict[str, int] = {}
        for m in e.get("effects", ()):
            if m.get("type") == "modifier" and "value" in m and m.get("scope") == "always":
                values[m["stat"]] = int(m["value"])
            elif m.get("type") == "cancel_malus":
                values[f"cancel_{m['what']}"] = int(m.get("value", 0))
        out[e["id"]] = values
    for b in hit_location.get("degree_bonuses", ()):
        out.setdefault(b["talent_id"], {})["location_degrees"] = int(b["degrees"])
    for m in matrix.get("modifiers", ()):
        if m.get("source_kind") == "talent":
            out.setdefault(m["id"], {})["critical_value"] = int(m["value"])
    return out


def _off_hand(doc: Mapping[str, Any]) -> dict[str, Any]:
    rule = _find(doc["rules"], "attaque_main_gauche")["effect"]
    return {"off_hand_malus": int(rule["value"]), "off_hand_waived_by": str(rule["waived_by_attribute"])}
