"""Combat WS, the attack test, hit location and the defence (parry / dodge) for `renove`.

Every step is itemised as :class:`~bot.rules.checks.common.Modifier` (label = catalogue key under
``combat.modifier.…``, value) so a renderer can show how each target was reached. Rolls go through
the colleague's renove resolver (:func:`bot.rules.renove.checks.check`): °R/°E, 01-02 / 99-00.

Readings (besides those recorded in the data files):

* The 01/02 specials apply only when the roll is a *critical* success (hit_location.json notes): a
  01 under a target ≤ 0 still hits but is an ordinary hit.
* Firing into melee: a roll above the modified CT but within the CT without the −20 % hits an
  adjacent combatant (d10); its location uses the °R against that unmodified CT.
* Coup perforant: the location is computed from the target without its −10×K.
* Posture modifiers: "attaque" applies to CC and CT tests; "parade" to parries only (not dodges).
* A charge is made with no posture: the posture's attack modifiers do not apply to it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from bot.rules.checks.common import CheckResult, Modifier
from bot.rules.combat.basics import Refusal, RefusedError, mod
from bot.rules.combat.dicefeed import d
from bot.rules.combat.tables import CombatTables, NaturalRoll, RangeBand, Weapon
from bot.rules.random_source import RandomSource
from bot.rules.renove import checks as renove
from bot.rules.renove.specials import talent_refusal

# --- combat WS ---------------------------------------------------------------------------------


def combat_ws(cc: int, cc_opponent: int, constant: int = 50) -> int:
    """CCcombat = CC + (50 − CC of the opponent), against that opponent only."""
    return cc + (constant - cc_opponent)


def combat_ws_pair(cc_a: int, cc_b: int, constant: int = 50) -> tuple[int, int]:
    return combat_ws(cc_a, cc_b, constant), combat_ws(cc_b, cc_a, constant)


def ws_modifiers(cc: int, cc_opponent: int, constant: int = 50) -> tuple[Modifier, ...]:
    """The combat WS itemised: base CC, then the (50 − CC opponent) adjustment."""
    return (mod("cc", cc), mod("combat_ws_adjustment", constant - cc_opponent))


# --- weapons and attributes --------------------------------------------------------------------


def attribute_mechanics(
    tables: CombatTables, attributes: Iterable[str], type_: str
) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for attribute_id in attributes:
        attribute = tables.attribute(attribute_id)
        if attribute is None:
            continue
        out.extend((attribute_id, dict(m)) for m in attribute.mechanics_of(type_))
    return out


def defence_modifiers_of(
    tables: CombatTables, attributes: Iterable[str], who: str, defence: str
) -> tuple[Modifier, ...]:
    """Lente/Rapide (``who="opponent"``) or Défensive/Offensive (``who="wielder"``) for a defence."""
    return tuple(
        mod(f"attribute.{aid}", int(m["value"]))
        for aid, m in attribute_mechanics(tables, attributes, "defence_modifier")
        if m.get("who") == who and defence in m.get("defences", ())
    )


def range_band(tables: CombatTables, weapon: Weapon, distance: float) -> RangeBand:
    """The first band (inclusive bounds) containing ``distance``; no long range → beyond short."""
    for band in tables.range_bands:
        if band.range is None:
            return band
        reference = weapon.range_short if band.range == "short" else weapon.range_long
        if reference is None:
            continue
        if distance <= reference * band.fraction:
            return band
    return tables.range_bands[-1]


# --- the attack --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AttackRequest:
    """Everything the attack test depends on. ``base`` is the attacker's current CC (melee) or CT.

    ``opponent_cc`` turns a melee base into the combat WS. ``attack_number`` is 1 for the first
    attack of the round. ``situation`` lists combat_modifiers.json ids (CC or CT ones).
    """

    weapon: Weapon
    base: int
    opponent_cc: int | None = None
    posture: str = "normale"
    posture_option: str | None = None
    attack_number: int = 1
    situation: tuple[str, ...] = ()
    aim: str | None = None
    charge: bool = False
    off_hand: bool = False
    grip: str | None = None
    distance: float | None = None
    into_melee: bool = False
    special: str | None = None
    special_k: int = 1
    feint_won: bool = False
    talents: frozenset[str] = frozenset()
    extra: tuple[Modifier, ...] = ()
    defence_extra: tuple[Modifier, ...] = ()  # on the parry and the dodge (a shield bash taken)

    @property
    def ranged(self) -> bool:
        return self.weapon.kind == "ranged"

    @property
    def attributes(self) -> tuple[str, ...]:
        return self.weapon.attributes_for(self.grip)


@dataclass(frozen=True, slots=True)
class AttackResult:
    request_weapon: str
    ranged: bool
    check: CheckResult
    hit: bool
    natural: NaturalRoll | None
    stray: bool = False
    stray_roll: int | None = None
    degrees: int = 0
    location_steps: tuple[Modifier, ...] = ()
    location_degrees: int = 0
    reachable: tuple[str, ...] = ()
    zone: str | None = None
    range_band: str | None = None
    parry_modifiers: tuple[Modifier, ...] = ()
    dodge_modifiers: tuple[Modifier, ...] = ()
    cannot_parry: str | None = None  # reason key when the hit cannot be parried
    cannot_dodge: str | None = None
    damage_modifiers: tuple[Modifier, ...] = ()
    ignore_armour: int = 0
    damage_die_fixed: int | None = None
    damage_die_minimum_unless_rolled: int | None = None
    own_parry_malus: int = 0  # Allonge surprise: on the attacker's parries this round
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "weapon": self.request_weapon,
            "ranged": self.ranged,
            "check": self.check.to_dict(),
            "hit": self.hit,
            "natural": self.natural.roll if self.natural else None,
            "stray": self.stray,
            "stray_roll": self.stray_roll,
            "degrees": self.degrees,
            "location_steps": [m.to_dict() for m in self.location_steps],
            "location_degrees": self.location_degrees,
            "reachable": list(self.reachable),
            "zone": self.zone,
            "range_band": self.range_band,
            "parry_modifiers": [m.to_dict() for m in self.parry_modifiers],
            "dodge_modifiers": [m.to_dict() for m in self.dodge_modifiers],
            "cannot_parry": self.cannot_parry,
            "cannot_dodge": self.cannot_dodge,
            "damage_modifiers": [m.to_dict() for m in self.damage_modifiers],
            "ignore_armour": self.ignore_armour,
            "damage_die_fixed": self.damage_die_fixed,
            "damage_die_minimum_unless_rolled": self.damage_die_minimum_unless_rolled,
            "own_parry_malus": self.own_parry_malus,
            "notes": list(self.notes),
        }


def attack_refusal(tables: CombatTables, request: AttackRequest) -> Refusal | None:
    """Static checks: posture, special action and weapon, range beyond max without aiming."""
    weapon = request.weapon
    if request.posture not in tables.postures:
        return Refusal("combat.refusal.unknown_posture", (("posture", request.posture),))
    posture = tables.postures[request.posture]
    action = "action_speciale" if request.special else "attaquer"
    if not request.charge and action not in posture.allowed_actions:
        return Refusal("combat.refusal.posture", (("posture", posture.id), ("action", action)))
    if request.special and request.special not in weapon.special_actions:
        return Refusal(
            "combat.refusal.special_needs_weapon", (("special", request.special), ("weapon", weapon.id))
        )
    needs_talent = talent_refusal(tables, request.special, request.talents, ranged=request.ranged)
    if needs_talent is not None:
        return needs_talent
    if request.special == "coup_perforant" and request.special_k < 1:
        return Refusal("combat.refusal.bad_k", (("k", request.special_k),))
    if weapon.damage is None and not weapon.combines and "immobilisante" not in weapon.attributes:
        return Refusal("combat.refusal.weapon_without_profile", (("weapon", weapon.id),))
    if weapon.combines:
        return Refusal("combat.refusal.pick_combined_profile", (("weapons", ",".join(weapon.combines)),))
    if request.ranged:
        if request.distance is not None:
            band = range_band(tables, weapon, request.distance)
            if band.aim_required and request.aim is None:
                return Refusal("combat.refusal.aim_required", (("band", band.id),))
    elif request.opponent_cc is None:
        return Refusal("combat.refusal.melee_needs_opponent_cc")
    return None


CHARGE_REACH: Final = (1, 3)  # « Cible entre M et M*3 mètres » (seed l. 986), in multiples of M


def charge_reach(movement: int) -> tuple[int, int] | None:
    """The distances (m) a charge may cover with ``movement`` (M), or None when M is unknown."""
    if movement <= 0:
        return None
    low, high = CHARGE_REACH
    return low * movement, high * movement


def attack_modifiers(
    tables: CombatTables, request: AttackRequest
) -> tuple[int, tuple[Modifier, ...], Modifier | None, RangeBand | None]:
    """(target, itemised modifiers, the firing-into-melee term if any, range band)."""
    items: list[Modifier] = []
    band: RangeBand | None = None
    into_melee: Modifier | None = None
    stat = "CT" if request.ranged else "CC"
    if request.ranged:
        items.append(mod("ct", request.base))
    else:
        assert request.opponent_cc is not None
        items.extend(ws_modifiers(request.base, request.opponent_cc, tables.ws_constant))
    posture = tables.postures[request.posture]
    if not request.charge:
        if posture.attack:
            items.append(mod(f"posture.{posture.id}", posture.attack))
        if request.posture_option:
            bonus = posture.options.get(request.posture_option, {}).get("attack", 0)
            if bonus:
                items.append(mod(f"posture.{posture.id}.{request.posture_option}", bonus))
    if request.charge:
        items.append(mod("charge", tables.charge_cc))
    if request.attack_number > 1:
        items.append(mod("extra_attack", tables.extra_attack_malus))
    if request.aim:
        value = tables.aim_options.get(request.aim, {}).get("attack", 0)
        if value:
            items.append(mod(f"aim.{request.aim}", value))
    if request.off_hand and tables.off_hand_waived_by not in request.attributes:
        items.append(mod("off_hand", tables.off_hand_malus))
    seen = set()
    for sid in request.situation:
        if sid in seen:
            continue
        seen.add(sid)
        situation = tables.situation.get(sid)
        if situation is None:
            raise RefusedError(Refusal("combat.refusal.unknown_situation", (("id", sid),)))
        if situation.applies_to != stat:
            raise RefusedError(Refusal("combat.refusal.situation_not_for", (("id", sid), ("test", stat))))
        if request.into_melee and sid == "ct_cible_au_corps_a_corps":
            continue  # counted once, below
        items.append(mod(f"situation.{sid}", situation.value))
    if request.ranged and request.distance is not None:
        band = range_band(tables, request.weapon, request.distance)
        if band.ct_modifier:
            items.append(mod(f"range.{band.id}", band.ct_modifier))
    if request.special:
        for m in tables.special_actions[request.special].get("modifiers", ()):
            if m.get("who") == "self" and m.get("stat") in ("CC", "CT") and m.get("scope") == "this_attack":
                per_k = request.special_k if m.get("per") == "K" else 1
                items.append(mod(f"special.{request.special}", int(m["value"]) * per_k))
    items.extend(request.extra)
    if request.ranged and request.into_melee:
        into_melee = mod("situation.ct_cible_au_corps_a_corps", tables.firing_into_melee)
        items.append(into_melee)
    return sum(m.value for m in items), tuple(items), into_melee, band


def _defence_terms(
    tables: CombatTables, request: AttackRequest
) -> tuple[tuple[Modifier, ...], tuple[Modifier, ...]]:
    parry: list[Modifier] = list(defence_modifiers_of(tables, request.attributes, "opponent", "parry"))
    dodge: list[Modifier] = list(defence_modifiers_of(tables, request.attributes, "opponent", "dodge"))
    if request.attack_number > 1:
        parry.append(mod("extra_attack_defence", tables.extra_attack_defence_bonus))
        dodge.append(mod("extra_attack_defence", tables.extra_attack_defence_bonus))
    if request.aim:
        value = tables.aim_options.get(request.aim, {}).get("defence", 0)
        if value:
            parry.append(mod(f"aim.{request.aim}.defence", value))
            dodge.append(mod(f"aim.{request.aim}.defence", value))
    if request.special:
        for m in tables.special_actions[request.special].get("effects", ()):
            if (
                m.get("type") == "modifier"
                and m.get("who") in ("defender", "opponent")
                and m.get("scope") != "defence_against_next_attack"  # a later attack's (shield bash)
            ):
                scope = m.get("stat")
                term = mod(f"special.{request.special}.defence", int(m["value"]))
                if scope in ("parry", "parry_dodge"):
                    parry.append(term)
                if scope in ("dodge", "parry_dodge"):
                    dodge.append(term)
    parry.extend(request.defence_extra)
    dodge.extend(request.defence_extra)
    return tuple(parry), tuple(dodge)


def _damage_terms(
    tables: CombatTables, request: AttackRequest, band: RangeBand | None
) -> tuple[Modifier, ...]:
    out: list[Modifier] = []
    posture = tables.postures[request.posture]
    if not request.charge and request.posture_option:
        bonus = posture.options.get(request.posture_option, {}).get("damage", 0)
        if bonus:
            out.append(mod(f"posture.{posture.id}.{request.posture_option}", bonus))
    if request.charge and tables.charge_bf:
        out.append(mod("charge_bf", tables.charge_bf))
    if request.aim:
        value = tables.aim_options.get(request.aim, {}).get("damage", 0)
        if value:
            out.append(mod(f"aim.{request.aim}", value))
    if band is not None and band.damage_modifier:
        out.append(mod(f"range.{band.id}", band.damage_modifier))
    return tuple(out)


def resolve_attack(
    tables: CombatTables,
    request: AttackRequest,
    *,
    rng: RandomSource | None = None,
    attack_roll: int | None = None,
    adjacent_roll: int | None = None,
    zone: str | None = None,
) -> AttackResult:
    """Roll the attack (or take ``attack_roll``), locate the hit, list the defender's modifiers.

    ``zone``: the attacker's chosen zone (any zone whose threshold is ≤ his °R); default the highest.
    Raises :class:`RefusedError` when the attack is not allowed.
    """
    refusal = attack_refusal(tables, request)
    if refusal:
        raise RefusedError(refusal)
    target, items, into_melee, band = attack_modifiers(tables, request)
    check = renove.result_from_roll(target, items, d(100, rng, attack_roll))
    roll = check.roll
    natural = tables.hit_location.natural_rolls.get(roll) if check.critical_success else None
    hit = check.success
    stray = False
    stray_roll: int | None = None
    degrees = (check.degrees or 0) if hit else 0
    notes: list[str] = []
    if (
        not hit
        and into_melee is not None
        and not check.critical_failure
        and roll <= target - into_melee.value
    ):
        stray = True
        hit = True
        degrees = (target - into_melee.value - roll) // 10
        stray_roll = d(int(tables.stray_die.split("d")[1]), rng, adjacent_roll)
        notes.append("combat.note.stray_hit")
    parry_mods, dodge_mods = _defence_terms(tables, request)
    if not hit:
        return AttackResult(
            request.weapon.id,
            request.ranged,
            check,
            False,
            natural,
            range_band=band.id if band else None,
            notes=tuple(notes),
        )
    location: list[Modifier] = [mod("degrees", degrees)]
    if request.special == "coup_perforant" and not stray:
        special = tables.special_actions["coup_perforant"]
        if special.get("location_ignores_own_malus"):
            restored = 10 * request.special_k
            location[0] = mod("degrees", max(0, (target + restored - roll) // 10))
            notes.append("combat.note.location_without_perforant_malus")
    kind = "ranged" if request.ranged else "melee"
    for talent, bonus in tables.hit_location.degree_bonuses.items():
        if talent in request.talents and tables.hit_location.degree_bonus_attacks.get(talent, kind) == kind:
            location.append(mod(f"talent.{talent}", bonus))
    loc_degrees = sum(m.value for m in location)
    reachable = tables.hit_location.reachable(loc_degrees)
    if natural is not None and natural.zone:
        chosen = natural.zone
        reachable = (natural.zone,)
    elif zone is not None:
        if zone not in reachable:
            raise RefusedError(
                Refusal("combat.refusal.zone_out_of_reach", (("zone", zone), ("degrees", loc_degrees)))
            )
        chosen = zone
    else:
        chosen = tables.hit_location.zone_for(loc_degrees)
    cannot_parry = cannot_dodge = None
    if natural is not None and natural.cannot_be_parried:
        cannot_parry = "combat.refusal.natural_01"
    if natural is not None and natural.cannot_be_dodged:
        cannot_dodge = "combat.refusal.natural_01"
    if request.feint_won:
        cannot_parry = cannot_parry or "combat.refusal.feint"
        cannot_dodge = cannot_dodge or "combat.refusal.feint"
    ignore = 0
    if request.special == "coup_perforant":
        for m in tables.special_actions["coup_perforant"].get("effects", ()):
            if m.get("type") == "ignore_armour" and m.get("per") == "K":
                ignore += request.special_k
    own_parry = 0
    if request.special:
        for m in tables.special_actions[request.special].get("modifiers", ()):
            if m.get("who") == "self" and m.get("stat") == "parry":
                own_parry += int(m["value"])
    return AttackResult(
        request_weapon=request.weapon.id,
        ranged=request.ranged,
        check=check,
        hit=True,
        natural=natural,
        stray=stray,
        stray_roll=stray_roll,
        degrees=degrees,
        location_steps=tuple(location),
        location_degrees=loc_degrees,
        reachable=reachable,
        zone=chosen,
        range_band=band.id if band else None,
        parry_modifiers=parry_mods,
        dodge_modifiers=dodge_mods,
        cannot_parry=cannot_parry,
        cannot_dodge=cannot_dodge,
        damage_modifiers=_damage_terms(tables, request, band),
        ignore_armour=ignore,
        damage_die_fixed=natural.damage_die_fixed if natural else None,
        damage_die_minimum_unless_rolled=natural.damage_die_minimum_unless_rolled if natural else None,
        own_parry_malus=own_parry,
        notes=tuple(notes),
    )


# --- defence -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ParryRequest:
    """The defender's side of a parry. ``cc`` is his current CC; ``attacker_cc`` the attacker's."""

    cc: int
    attacker_cc: int
    weapon: Weapon
    posture: str = "normale"
    reactive: bool = False
    grip: str | None = None
    talents: frozenset[str] = frozenset()
    situation: tuple[str, ...] = ()
    extra: tuple[Modifier, ...] = ()


@dataclass(frozen=True, slots=True)
class DodgeRequest:
    ag: int
    has_skill: bool = True
    posture: str = "normale"
    situation: tuple[str, ...] = ()
    extra: tuple[Modifier, ...] = ()


@dataclass(frozen=True, slots=True)
class DefenceResult:
    kind: str  # parry | dodge
    refusal: Refusal | None
    check: CheckResult | None

    @property
    def success(self) -> bool:
        return self.refusal is None and self.check is not None and self.check.success

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "refusal": self.refusal.to_dict() if self.refusal else None,
            "check": self.check.to_dict() if self.check else None,
            "success": self.success,
        }


def _situation_defence(tables: CombatTables, ids: Sequence[str]) -> list[Modifier]:
    out = []
    for sid in dict.fromkeys(ids):
        situation = tables.situation.get(sid)
        if situation is None or situation.applies_to != "defence":
            raise RefusedError(
                Refusal("combat.refusal.situation_not_for", (("id", sid), ("test", "defence")))
            )
        out.append(mod(f"situation.{sid}", situation.value))
    return out


def parry_modifiers(
    tables: CombatTables, attack: AttackResult, request: ParryRequest
) -> tuple[int, tuple[Modifier, ...]]:
    items = list(ws_modifiers(request.cc, request.attacker_cc, tables.ws_constant))
    posture = tables.postures[request.posture]
    if posture.parry:
        items.append(mod(f"posture.{posture.id}", posture.parry))
    items.extend(
        defence_modifiers_of(tables, request.weapon.attributes_for(request.grip), "wielder", "parry")
    )
    items.extend(attack.parry_modifiers)
    if request.reactive:
        cancel = sum(
            tables.talent_effects.get(t, {}).get("cancel_reactive_parry", 0) for t in request.talents
        )
        items.append(mod("reactive_parry", tables.reactive_parry_malus))
        if cancel:
            items.append(mod("talent.parade_eclair", min(cancel, -tables.reactive_parry_malus)))
    items.extend(_situation_defence(tables, request.situation))
    items.extend(request.extra)
    return sum(m.value for m in items), tuple(items)


def resolve_parry(
    tables: CombatTables,
    attack: AttackResult,
    request: ParryRequest,
    *,
    rng: RandomSource | None = None,
    parry_roll: int | None = None,
) -> DefenceResult:
    """Parry ``attack`` (which must have hit): combat WS of the defender against this attacker."""
    if not attack.hit:
        raise ValueError("only a hit can be parried")
    if attack.cannot_parry:
        return DefenceResult("parry", Refusal(attack.cannot_parry), None)
    if attack.ranged:
        return DefenceResult("parry", Refusal("combat.refusal.cannot_parry_missile"), None)
    posture = tables.postures[request.posture]
    if not posture.allowed_actions & {"preparer_parade", "parade_reactive"}:
        return DefenceResult("parry", Refusal("combat.refusal.posture", (("posture", posture.id),)), None)
    if request.weapon.kind != "melee":
        return DefenceResult("parry", Refusal("combat.refusal.parry_needs_melee_weapon"), None)
    target, items = parry_modifiers(tables, attack, request)
    return DefenceResult("parry", None, renove.result_from_roll(target, items, d(100, rng, parry_roll)))


def resolve_dodge(
    tables: CombatTables,
    attack: AttackResult,
    request: DodgeRequest,
    *,
    rng: RandomSource | None = None,
    dodge_roll: int | None = None,
) -> DefenceResult:
    """Dodge ``attack``: an Ag test (Ag/2, rounded down, without the Esquive skill)."""
    if not attack.hit:
        raise ValueError("only a hit can be dodged")
    if attack.cannot_dodge:
        return DefenceResult("dodge", Refusal(attack.cannot_dodge), None)
    posture = tables.postures[request.posture]
    if "esquiver" not in posture.allowed_actions:
        return DefenceResult("dodge", Refusal("combat.refusal.posture", (("posture", posture.id),)), None)
    items = [mod("ag", request.ag)]
    if not request.has_skill:
        items.append(mod("no_dodge_skill", request.ag // 2 - request.ag))
    items.extend(attack.dodge_modifiers)
    items.extend(_situation_defence(tables, request.situation))
    items.extend(request.extra)
    target = sum(m.value for m in items)
    return DefenceResult(
        "dodge", None, renove.result_from_roll(target, tuple(items), d(100, rng, dodge_roll))
    )
