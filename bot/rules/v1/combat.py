"""`v1` combat (seed 001, "Compléments aux règles Warhammer (v1)", section Combat, lines 49-92).

Seed: attacks spread by Effective Initiative ("I/A (arrondi au supérieur)" or "I ; I - 10 ; I - 20 ;
I - 30", the surplus piling onto the first slots); drawing (knife/dagger −10 IE, sword or other simple
weapon −20 IE, two-handed / thrown and missile weapons / spells one full round, shields ready in
1 round); a CC test; the hit lands "dans la localisation inverse du d100"; parry (CC test with the
opposing weapon's parry modifier, prepared — losing the next attack — or with a second weapon or a
shield in the off hand, +20 %, one free parry a round with Armes de parade) or dodge (Esquive, a free
action a round), never both against one attack; damage 1d6 + F + weapon bonus, a 6 adding 1d6, or the
attack's units digit as the die with doubles doubling; armour at the location subtracted; the rest
comes off Blessures; "Lorsque les dégâts effectifs dépassent les Blessures restantes + son Endurance
en négatif, il se produit un coup critique"; disarm (Désarmement, opposed Dex, the weapon lands
1d10 m away); bare hands (−20 % without Bagarre, −3 damage, armour doubled, always stunning);
stunning (CC −20 %, (1d6 + F + bonus − E − protection) × 5 %, +20 % with Coup assommant, (10 − E)d10
minutes; points beyond E still count as wounds); aimed shots (1 round, short range only, head/arm
−20 %, body/legs −10 %), +5 % per extra creature in a group, long range −1 damage, extreme range −2
damage and one more round of preparation.

Readings (also in ``data/v1_combat.json`` / ``data/v1_hit_location.json`` notes):

* "I/A" is the gap between two attacks (attack k at I − (k−1)·⌈I/A⌉); drawing penalties move every
  slot; a slot at IE ≤ 0 is lost (``lose_at_or_below``; None keeps them).
* Toughness: the seed subtracts only the armour and counts E *below zero* before a critical
  (:attr:`Toughness.THRESHOLD`, default). RULES.md / WJRF p122 subtract E with the armour and make
  the critical start below 0 (:attr:`Toughness.SUBTRACTED`). Never both (E would count twice).
* Blessures are tracked unclamped (they go "en négatif"); the critical severity is the part of this
  hit's net damage beyond the floor (−E, or 0), clamped 1..15, narrated from the shared critical
  tables: edged → tranchantes, blunt → contondantes, missile → projectiles, bare hands → pugilat;
  the location's ``zone`` picks the column.
* A 6 on the damage d6 keeps adding d6 while 6s come (capped at 50 dice). Units-digit option: 0 reads
  10; a double (11 … 99, 00) doubles the whole damage before armour.
* The stun d6 does not explode. A bare-handed blow is a stun attempt: the bare-hands −20 % (without
  Bagarre) applies, not the stun attempt's −20 % (``stun_malus_on_bare_hands`` adds it).
* The off-hand parry's +20 % applies to a second weapon or a shield; without Armes de parade an
  off-hand parry costs the next attack like a prepared one; one dodge per round.
* Disarm: opposed Dex tests resolved with the shared `v1` opposed rules (``bot.rules.opposed``);
  a re-roll verdict is returned as is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from bot.rules import opposed
from bot.rules.bands import band_for
from bot.rules.checks.common import CheckResult, Modifier, System
from bot.rules.combat.basics import Refusal
from bot.rules.combat.common import (
    DiceRoll,
    Term,
    Timing,
    pool_loss,
    roll_dice,
    set_pool_loss,
    term,
    terms_dict,
    total,
)
from bot.rules.combat.dicefeed import HandThenRandom, d
from bot.rules.combat.state import Combatant
from bot.rules.combat.tables import CriticalEntry, Mechanic, TableError
from bot.rules.random_source import RandomSource
from bot.rules.v1 import checks as v1_checks

SYSTEM = "v1"
MAX_DAMAGE_DICE = 50
CRITICAL_MIN, CRITICAL_MAX = 1, 15
DEFAULT_CRITICAL_KIND: Mapping[str, str] = {
    "edged": "tranchantes",
    "blunt": "contondantes",
    "missile": "projectiles",
    "bare_hands": "pugilat",
}


def _t(key: str, value: int) -> Term:
    return term(SYSTEM, key, value)


# --- tables --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Location:
    id: str
    min: int
    max: int
    zone: str
    name: Mapping[str, str]

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "min": self.min, "max": self.max, "zone": self.zone, "name": dict(self.name)}


@dataclass(frozen=True, slots=True)
class V1Tables:
    """The `v1` numbers, read from ``v1_combat``, ``v1_hit_location`` and ``criticals_*``."""

    locations: tuple[Location, ...]
    criticals: Mapping[str, Mapping[tuple[str, int], CriticalEntry]]
    drawing: Mapping[str, Mapping[str, Any]]
    off_hand_parry_bonus: int = 20
    bare_hands_attack: int = -20
    bare_hands_damage: int = -3
    bare_hands_armour_multiplier: int = 2
    stun_attack: int = -20
    stun_per_point: int = 5
    stun_skill_bonus: int = 20
    aimed: Mapping[str, int] = field(default_factory=dict)  # location group -> modifier
    group_bonus: int = 5
    range_damage: Mapping[str, int] = field(default_factory=dict)
    aim_preparation: int = 1  # rounds (line 87: « 1 Rd de préparation »)
    range_preparation: Mapping[str, int] = field(default_factory=dict)  # line 93: extreme, 1 more
    critical_kind: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_CRITICAL_KIND))

    @classmethod
    def from_documents(cls, docs: Mapping[str, Mapping[str, Any]]) -> V1Tables:
        try:
            combat = docs["v1_combat"]
            locations = tuple(
                Location(
                    e["id"], int(e["min"]), int(e["max"]), e["zone"], {"fr": e["name"], "en": e["name_en"]}
                )
                for e in docs["v1_hit_location"]["entries"]
            )
            criticals = {
                kind: {
                    (e["zone"], int(e["value"])): CriticalEntry(
                        kind=kind,
                        zone=e["zone"],
                        value=int(e["value"]),
                        mechanics=tuple(Mechanic.from_dict(m) for m in e["mechanics"]),
                        narration=dict(e["narration"]),
                    )
                    for e in docs[f"criticals_{kind}"]["entries"]
                }
                for kind in sorted(set(DEFAULT_CRITICAL_KIND.values()))
            }
        except KeyError as exc:
            raise TableError(f"missing v1 combat table or field: {exc}") from exc
        bare, stun, ranged = combat["bare_hands"], combat["stunning"], combat["ranged"]
        aimed: dict[str, int] = {}
        for row in ranged["aimed_shot"]["modifiers"]:
            for loc in row["locations"]:
                aimed[loc] = int(row["modifier"])
        range_damage = {r["range"]: int(r["damage"]) for r in ranged["range_damage"]}
        range_preparation = {
            r["range"]: int(r["preparation_rounds"])
            for r in ranged["range_damage"]
            if "preparation_rounds" in r
        }
        return cls(
            locations=locations,
            criticals=criticals,
            drawing={e["id"]: dict(e["cost"]) for e in combat["drawing"]},
            off_hand_parry_bonus=int(combat["parry"]["off_hand_bonus"]),
            bare_hands_attack=int(bare["attack_modifier_without_skill"]),
            bare_hands_damage=int(bare["damage_modifier"]),
            bare_hands_armour_multiplier=int(bare["armour_multiplier"]),
            stun_attack=int(stun["attack_modifier"]),
            stun_per_point=int(stun["chance_percent"]["per_point"]),
            stun_skill_bonus=int(stun["skill_bonus"]),
            aimed=aimed,
            group_bonus=int(ranged["group_bonus_per_extra_creature"]),
            range_damage=range_damage,
            aim_preparation=int(ranged["aimed_shot"]["preparation_rounds"]),
            range_preparation=range_preparation,
        )

    def location_for(self, value: int) -> Location:
        return band_for(self.locations, value, lambda r: (r.min, r.max))

    def location(self, location_id: str) -> Location:
        for loc in self.locations:
            if loc.id == location_id:
                return loc
        raise TableError(f"unknown v1 location {location_id!r}")

    def critical(self, weapon_kind: str, zone: str, severity: int) -> CriticalEntry:
        kind = self.critical_kind.get(weapon_kind, weapon_kind)
        try:
            return self.criticals[kind][(zone, severity)]
        except KeyError as exc:
            raise TableError(f"no critical entry {kind}/{zone}/{severity}") from exc


# --- initiative ----------------------------------------------------------------------------------


class Spread(StrEnum):
    DIVIDE = "divide"  # I/A rounded up apart
    STAGGERED = "staggered"  # I, I-10, I-20, I-30


class Draw(StrEnum):
    NONE = "none"
    KNIFE = "knife_dagger"  # −10 IE
    SIMPLE = "sword_other_simple"  # −20 IE
    FULL_ROUND = "two_handed_missile_spells"  # one full round of preparation
    SHIELD = "shields"  # ready in 1 round


STAGGER_OFFSETS = (0, -10, -20, -30)


@dataclass(frozen=True, slots=True)
class V1Initiative:
    combatant: str
    initiative: int
    attacks: int
    spread: Spread
    draw: Draw
    draw_penalty: int
    interval: int | None
    slots: tuple[int, ...]  # IE of each attack kept, in order
    lost: tuple[int, ...]  # IE of the attacks lost (≤ 0), in order
    preparing_rounds: int  # a full-round draw: no attack this round

    def timings(self) -> tuple[Timing, ...]:
        return tuple(
            Timing(self.combatant, k, value, (self.initiative,)) for k, value in enumerate(self.slots, 1)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "combatant": self.combatant,
            "initiative": self.initiative,
            "attacks": self.attacks,
            "spread": self.spread.value,
            "draw": self.draw.value,
            "draw_penalty": self.draw_penalty,
            "interval": self.interval,
            "slots": list(self.slots),
            "lost": list(self.lost),
            "preparing_rounds": self.preparing_rounds,
        }


def attack_slots(
    tables: V1Tables,
    combatant: str,
    initiative: int,
    attacks: int,
    *,
    spread: Spread = Spread.DIVIDE,
    draw: Draw = Draw.NONE,
    lose_at_or_below: int | None = 0,
) -> V1Initiative:
    """Effective Initiative of each of ``attacks`` attacks (A ≥ 1), drawing penalties included."""
    attacks = max(1, attacks)
    cost = tables.drawing.get(draw.value, {}) if draw is not Draw.NONE else {}
    penalty = int(cost.get("initiative", 0))
    preparing = int(cost.get("rounds", 0))
    interval: int | None = None
    if spread is Spread.DIVIDE:
        interval = -(-initiative // attacks) if initiative > 0 else 0
        raw = [initiative - k * interval for k in range(attacks)]
    else:
        raw = [initiative + STAGGER_OFFSETS[k % len(STAGGER_OFFSETS)] for k in range(attacks)]
        raw.sort(reverse=True)
    values = [v + penalty for v in raw]
    if preparing:
        return V1Initiative(
            combatant, initiative, attacks, spread, draw, penalty, interval, (), tuple(values), preparing
        )
    kept = tuple(v for v in values if lose_at_or_below is None or v > lose_at_or_below)
    lost = tuple(v for v in values if lose_at_or_below is not None and v <= lose_at_or_below)
    return V1Initiative(combatant, initiative, attacks, spread, draw, penalty, interval, kept, lost, 0)


# --- attack --------------------------------------------------------------------------------------


def reverse_d100(value: int) -> int:
    """Swap tens and units (37 → 73, 10 → 01, 01 → 10); 00 (100) stays 100."""
    if value == 100 or value == 0:
        return 100
    tens, units = divmod(value, 10)
    return units * 10 + tens or 100


@dataclass(frozen=True, slots=True)
class V1Attack:
    check: CheckResult
    location: Location | None
    reversed_roll: int | None
    stunning: bool
    bare_hands: bool
    aimed: bool = False
    preparation_rounds: int = 0

    @property
    def hit(self) -> bool:
        return self.check.success

    def to_dict(self) -> dict[str, Any]:
        return {
            "check": self.check.to_dict(),
            "hit": self.hit,
            "location": self.location.to_dict() if self.location else None,
            "reversed_roll": self.reversed_roll,
            "stunning": self.stunning,
            "bare_hands": self.bare_hands,
            "aimed": self.aimed,
            "preparation_rounds": self.preparation_rounds,
        }


def resolve_attack(
    tables: V1Tables,
    cc: int,
    modifiers: Iterable[Modifier] = (),
    *,
    bare_hands: bool = False,
    brawling: bool = False,
    stun: bool = False,
    stun_malus_on_bare_hands: bool = False,
    rng: RandomSource | None = None,
    roll: int | None = None,
) -> V1Attack:
    """A melee CC test; a hit lands on the reversed d100's location."""
    items = list(modifiers)
    if bare_hands and not brawling:
        items.append(_t("bare_hands_without_brawling", tables.bare_hands_attack))
    if (stun and not bare_hands) or (bare_hands and stun_malus_on_bare_hands):
        items.append(_t("stun_attempt", tables.stun_attack))
    check = v1_checks.check(cc, items, rng=rng, roll=roll, base_label="combat.v1.cc")
    reversed_roll = reverse_d100(check.roll) if check.success else None
    location = tables.location_for(reversed_roll) if reversed_roll is not None else None
    return V1Attack(check, location, reversed_roll, stun or bare_hands, bare_hands)


class RangeBand(StrEnum):
    SHORT = "short"
    LONG = "long"
    EXTREME = "extreme"


def _aim_group(location: Location) -> str:
    return {"tete": "head", "bras": "arm", "corps": "body", "jambes": "leg"}.get(location.zone, location.zone)


def shot_preparation(tables: V1Tables, range_band: RangeBand, *, aimed: bool) -> int:
    """Rounds of preparation before a shot goes off: line 87 « Viser une localisation particulière
    demande 1 Rd de préparation », line 93 « portée extrême (PE) […] demande 1 Rd de préparation
    supplémentaire ». Reading: the two add up (an aimed shot is short range only, so they never
    meet in the seed's own terms)."""
    return (tables.aim_preparation if aimed else 0) + tables.range_preparation.get(range_band.value, 0)


def resolve_shot(
    tables: V1Tables,
    ct: int,
    modifiers: Iterable[Modifier] = (),
    *,
    range_band: RangeBand = RangeBand.SHORT,
    aim_at: str | None = None,
    extra_creatures_in_group: int = 0,
    rng: RandomSource | None = None,
    roll: int | None = None,
) -> V1Attack | Refusal:
    """A CT test: an aimed shot (short range only) hits the chosen location, else the reversed d100."""
    items = list(modifiers)
    target: Location | None = None
    preparation = shot_preparation(tables, range_band, aimed=aim_at is not None)
    if aim_at is not None:
        if range_band is not RangeBand.SHORT:
            return Refusal("combat.v1.refusal.aimed_short_range_only")
        target = tables.location(aim_at)
        items.append(_t(f"aimed.{_aim_group(target)}", tables.aimed[_aim_group(target)]))
    if extra_creatures_in_group > 0:
        items.append(_t("group", tables.group_bonus * extra_creatures_in_group))
    check = v1_checks.check(ct, items, rng=rng, roll=roll, base_label="combat.v1.ct")
    if not check.success:
        return V1Attack(check, None, None, False, False, aim_at is not None, preparation)
    if target is not None:
        return V1Attack(check, target, None, False, False, True, preparation)
    reversed_roll = reverse_d100(check.roll)
    return V1Attack(
        check, tables.location_for(reversed_roll), reversed_roll, False, False, False, preparation
    )


# --- defence -------------------------------------------------------------------------------------


class Defence(StrEnum):
    PARRY = "parry"
    DODGE = "dodge"


class OffHand(StrEnum):
    WEAPON = "weapon"
    SHIELD = "shield"


@dataclass(frozen=True, slots=True)
class DefenceRound:
    """A defender's defences this round (reset each round)."""

    dodged: bool = False
    free_parry_used: bool = False
    defended: tuple[str, ...] = ()  # attack ids already parried or dodged

    def to_dict(self) -> dict[str, Any]:
        return {
            "dodged": self.dodged,
            "free_parry_used": self.free_parry_used,
            "defended": list(self.defended),
        }


@dataclass(frozen=True, slots=True)
class V1Defence:
    kind: Defence
    check: CheckResult
    costs_next_attack: bool
    free: bool
    round: DefenceRound

    @property
    def cancels_damage(self) -> bool:
        return self.check.success

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "check": self.check.to_dict(),
            "cancels_damage": self.cancels_damage,
            "costs_next_attack": self.costs_next_attack,
            "free": self.free,
            "round": self.round.to_dict(),
        }


def resolve_defence(
    tables: V1Tables,
    kind: Defence,
    base: int,
    *,
    attack_id: str,
    round_state: DefenceRound = DefenceRound(),
    melee: bool = True,
    attacker_weapon_parry_modifier: int = 0,
    prepared: bool = False,
    off_hand: OffHand | None = None,
    parry_specialist: bool = False,
    modifiers: Iterable[Modifier] = (),
    rng: RandomSource | None = None,
    roll: int | None = None,
) -> V1Defence | Refusal:
    """Parry (``base`` = CC) or dodge (``base`` = Esquive score) against one melee attack."""
    if not melee:
        return Refusal("combat.v1.refusal.melee_only")
    if attack_id in round_state.defended:
        return Refusal("combat.v1.refusal.one_defence_per_attack")
    items = list(modifiers)
    if kind is Defence.DODGE:
        if round_state.dodged:
            return Refusal("combat.v1.refusal.one_dodge_per_round")
        check = v1_checks.check(base, items, rng=rng, roll=roll, base_label="combat.v1.dodge")
        state = DefenceRound(True, round_state.free_parry_used, (*round_state.defended, attack_id))
        return V1Defence(kind, check, False, True, state)
    if not prepared and off_hand is None:
        return Refusal("combat.v1.refusal.parry_needs_preparation_or_off_hand")
    if attacker_weapon_parry_modifier:
        items.append(_t("opponent_weapon_parry", attacker_weapon_parry_modifier))
    free = False
    if not prepared and off_hand is not None:
        items.append(_t(f"off_hand.{off_hand.value}", tables.off_hand_parry_bonus))
        free = parry_specialist and not round_state.free_parry_used
    check = v1_checks.check(base, items, rng=rng, roll=roll, base_label="combat.v1.cc")
    state = DefenceRound(
        round_state.dodged, round_state.free_parry_used or free, (*round_state.defended, attack_id)
    )
    return V1Defence(kind, check, not free, free, state)


# --- damage --------------------------------------------------------------------------------------


class DieMethod(StrEnum):
    D6 = "d6"
    UNITS_DIGIT = "units_digit"


@dataclass(frozen=True, slots=True)
class V1DamageRoll:
    method: DieMethod
    dice: tuple[int, ...]
    terms: tuple[Term, ...]
    doubled: bool
    total: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method.value,
            "dice": list(self.dice),
            "terms": terms_dict(self.terms),
            "doubled": self.doubled,
            "total": self.total,
        }


def is_double(attack_roll: int) -> bool:
    return attack_roll == 100 or (attack_roll >= 11 and attack_roll % 11 == 0)


def roll_damage(
    tables: V1Tables,
    strength: int,
    weapon_bonus: int = 0,
    *,
    method: DieMethod = DieMethod.D6,
    attack_roll: int | None = None,
    bare_hands: bool = False,
    range_band: RangeBand | None = None,
    extra: Iterable[Modifier] = (),
    rng: RandomSource | None = None,
    dice: Sequence[int] = (),
) -> V1DamageRoll:
    """1d6 + F + weapon bonus (a 6 adds 1d6, repeating), or the attack's units digit (doubles ×2)."""
    doubled = False
    if method is DieMethod.UNITS_DIGIT:
        if attack_roll is None:
            raise ValueError("the units-digit method needs the attack roll")
        values: tuple[int, ...] = (attack_roll % 10 or 10,)
        doubled = is_double(attack_roll)
    else:
        feed = HandThenRandom(dice, rng)
        rolled = [feed.randint(1, 6)]
        while rolled[-1] == 6 and len(rolled) < MAX_DAMAGE_DICE:
            rolled.append(feed.randint(1, 6))
        values = tuple(rolled)
    terms = [_t(f"die.{i}", v) for i, v in enumerate(values, 1)]
    terms.append(_t("strength", strength))
    if weapon_bonus:
        terms.append(_t("weapon_bonus", weapon_bonus))
    if bare_hands:
        terms.append(_t("bare_hands", tables.bare_hands_damage))
    if range_band is not None and tables.range_damage.get(range_band.value):
        terms.append(_t(f"range.{range_band.value}", tables.range_damage[range_band.value]))
    terms.extend(extra)
    subtotal = max(0, total(terms))
    if doubled:
        terms.append(_t("double", subtotal))
        subtotal *= 2
    return V1DamageRoll(method, values, tuple(terms), doubled, subtotal)


class Toughness(StrEnum):
    THRESHOLD = "threshold"  # seed: armour only subtracted, E counted below zero before a critical
    SUBTRACTED = "subtracted"  # RULES.md / WJRF p122: armour + E subtracted, critical below 0


@dataclass(frozen=True, slots=True)
class V1Wound:
    terms: tuple[Term, ...]  # damage, −armour (doubled bare-handed), −E when subtracted
    net: int
    wounds_before: int
    wounds_after: int
    floor: int
    overflow: int
    severity: int | None
    critical: CriticalEntry | None
    reading: Toughness

    def to_dict(self) -> dict[str, Any]:
        return {
            "terms": terms_dict(self.terms),
            "net": self.net,
            "wounds_before": self.wounds_before,
            "wounds_after": self.wounds_after,
            "floor": self.floor,
            "overflow": self.overflow,
            "severity": self.severity,
            "critical": None
            if self.critical is None
            else {
                "source": self.critical.source,
                "narration": dict(self.critical.narration),
                "mechanics": [m.to_dict() for m in self.critical.mechanics],
            },
            "reading": self.reading.value,
        }


def take_wounds(
    tables: V1Tables,
    net: int,
    *,
    wounds: int,
    toughness: int,
    reading: Toughness = Toughness.THRESHOLD,
    weapon_kind: str = "edged",
    location: Location | None = None,
    terms: tuple[Term, ...] = (),
) -> V1Wound:
    """Take ``net`` points off Blessures; beyond the floor (−E, or 0) the overflow is the critical."""
    floor = -toughness if reading is Toughness.THRESHOLD else 0
    after = wounds - net
    overflow = min(net, floor - after) if after < floor else 0
    severity = min(CRITICAL_MAX, max(CRITICAL_MIN, overflow)) if overflow > 0 else None
    critical = None
    if severity is not None and location is not None:
        critical = tables.critical(weapon_kind, location.zone, severity)
    return V1Wound(terms, net, wounds, after, floor, overflow, severity, critical, reading)


def apply_damage(
    tables: V1Tables,
    damage: int,
    *,
    wounds: int,
    toughness: int,
    armour: int = 0,
    bare_hands: bool = False,
    reading: Toughness = Toughness.THRESHOLD,
    weapon_kind: str = "edged",
    location: Location | None = None,
) -> V1Wound:
    """Subtract armour at the location (×2 bare-handed) — and E with :attr:`Toughness.SUBTRACTED`."""
    terms = [_t("damage", damage)]
    if armour:
        multiplier = tables.bare_hands_armour_multiplier if bare_hands else 1
        terms.append(_t("armour_doubled" if multiplier != 1 else "armour", -armour * multiplier))
    if reading is Toughness.SUBTRACTED and toughness:
        terms.append(_t("toughness", -toughness))
    net = max(0, total(terms))
    return take_wounds(
        tables,
        net,
        wounds=wounds,
        toughness=toughness,
        reading=reading,
        weapon_kind=weapon_kind,
        location=location,
        terms=tuple(terms),
    )


# --- stunning, bare hands, disarm ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class V1Stun:
    die: int
    points_terms: tuple[Term, ...]  # 1d6 + F + bonus (−3) − E − protection (×2)
    points: int
    chance_terms: tuple[Term, ...]
    chance: int
    roll: int
    stunned: bool
    duration: DiceRoll | None  # (10 − E)d10 minutes
    wounds: int  # points beyond E, counted as wounds

    def to_dict(self) -> dict[str, Any]:
        return {
            "die": self.die,
            "points_terms": terms_dict(self.points_terms),
            "points": self.points,
            "chance_terms": terms_dict(self.chance_terms),
            "chance": self.chance,
            "roll": self.roll,
            "stunned": self.stunned,
            "duration_minutes": self.duration.to_dict() if self.duration else None,
            "wounds": self.wounds,
        }


def resolve_stun(
    tables: V1Tables,
    strength: int,
    weapon_bonus: int = 0,
    *,
    toughness: int,
    armour: int = 0,
    skill: bool = False,
    bare_hands: bool = False,
    rng: RandomSource | None = None,
    die: int | None = None,
    chance_roll: int | None = None,
    duration_dice: Sequence[int] = (),
) -> V1Stun:
    """After a hit: (1d6 + F + bonus − E − protection) × 5 % (+20 % Coup assommant) to stun."""
    d6 = d(6, rng, die)
    items = [_t("die", d6), _t("strength", strength)]
    if weapon_bonus:
        items.append(_t("weapon_bonus", weapon_bonus))
    if bare_hands:
        items.append(_t("bare_hands", tables.bare_hands_damage))
    items.append(_t("toughness", -toughness))
    if armour:
        multiplier = tables.bare_hands_armour_multiplier if bare_hands else 1
        items.append(_t("armour_doubled" if multiplier != 1 else "armour", -armour * multiplier))
    points = total(items)
    chance_items = [_t("stun_points", points * tables.stun_per_point)]
    if skill:
        chance_items.append(_t("stun_skill", tables.stun_skill_bonus))
    chance = total(chance_items)
    rolled = d(100, rng, chance_roll)
    stunned = rolled <= chance
    duration = None
    if stunned:
        count = max(0, 10 - toughness)
        duration = roll_dice(f"{count}d10", rng, duration_dice) if count else DiceRoll("0d10", (), 0)
    return V1Stun(
        d6, tuple(items), points, tuple(chance_items), chance, rolled, stunned, duration, max(0, points)
    )


@dataclass(frozen=True, slots=True)
class V1Disarm:
    attacker: CheckResult
    defender: CheckResult
    verdict: opposed.Verdict
    reason: str
    disarmed: bool
    distance_m: int | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "attacker": self.attacker.to_dict(),
            "defender": self.defender.to_dict(),
            "verdict": self.verdict.value,
            "reason": self.reason,
            "disarmed": self.disarmed,
            "distance_m": self.distance_m,
        }


def resolve_disarm(
    attacker_dex: int,
    defender_dex: int,
    *,
    has_skill: bool,
    rng: RandomSource | None = None,
    attacker_roll: int | None = None,
    defender_roll: int | None = None,
    distance_roll: int | None = None,
) -> V1Disarm | Refusal:
    """Instead of damage: opposed Dex; the loser's weapon lands 1d10 m away."""
    if not has_skill:
        return Refusal("combat.v1.refusal.disarm_needs_skill")
    a = v1_checks.check(attacker_dex, rng=rng, roll=attacker_roll, base_label="combat.v1.dex")
    b = v1_checks.check(defender_dex, rng=rng, roll=defender_roll, base_label="combat.v1.dex")
    verdict, reason = opposed.compare(a, b, opposed.rules_for(System.V1))
    disarmed = verdict is opposed.Verdict.A
    distance = d(10, rng, distance_roll) if disarmed else None
    return V1Disarm(a, b, verdict, reason, disarmed, distance)


# --- the shared fight state ----------------------------------------------------------------------


def current_wounds(combatant: Combatant) -> int:
    """Blessures left: the sheet's ``B`` minus the points recorded (may be negative)."""
    return int(combatant.characteristics.get("B", 0)) - pool_loss(combatant, SYSTEM, "B")


def record_wound(combatant: Combatant, wound: V1Wound) -> Combatant:
    return set_pool_loss(
        combatant, SYSTEM, "B", int(combatant.characteristics.get("B", 0)) - wound.wounds_after
    )
