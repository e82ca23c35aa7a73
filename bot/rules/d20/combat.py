"""`d20` combat (seed 003, "Procédures générales"; lines 2-269, printed twice).

Seed: attack and defence are rolled together and compared (lines 27-35, 71-81):

1. both succeed, MR_att > MR_def → MR_att − MR_def goes to the damage-by-location table;
   MR_att < MR_def → the gap is the attacker's malus on his next action and the defender takes the
   initiative; equal → blocked, only a retreat is possible;
2. attacker succeeds, defender fails → MR_att + the defender's failure margin → damage table;
3. attacker fails, defender succeeds → the attacker's failure margin + MR_def = his next malus;
4. both fail → nothing.

Brawl shock by location (head BF + 1d10 + MR + bonus, torso BF + 1d6 + MR + bonus, limbs half of
the torso sum); brawl dodge free but next action −5, brawl parry −5 with a free riposte; feints −5 /
opponent −10; bottes (own skill, no malus) / opponent −15; edged weapons: penetration weapon + MR + BF
vs RP, shock (weapon + MR + BF) / 2 vs RC, index (MR_att − MR_def) + weapon; blunt weapons:
penetration weapon + MR + BF/2, shock weapon + MR + BF + 1d20, rupture/fracture when the shock
inflicted ≥ SR; armour: pierced when penetration > RP, the victim loses shock − RC (≥ 0), a pierced
layer takes RP and RC off before the next, SR exceeded by penetration + shock → the part is ruined;
thrown / fired weapons by MR band (≥ 10 the aimed zone, 5-9 a d6, 0-4 a d20 around the aimed point),
then a d20 + weapon modifiers on the damage table; thrown missiles −15 / arrows −20 to parry or dodge,
fired ones cannot be; burst fire (several targets: −1 per target, 1d4 − 2 bullets each; one target:
+2 and 1d6 hits per ten bullets); covering fire (d100 ≤ weapon score); ranged modifiers; artillery
(d20 direction, distance table); fighter gunnery hit table; PV = 35 + Con, death when the PV lost
reach it; PC = Con × 2, beyond which shock comes off PV; malus 1 per PV and PC lost beyond Con.

Readings (``data/d20_*.json`` notes): margins as in :mod:`bot.rules.d20.checks`; the "damage by
location" and "effective locations" tables are not in the seed — the index and the die are returned,
and read from a server table when one is given (a plain ``{int: value}`` mapping whose keys are
the lower bounds of its rows: an index reads the row of the largest key not above it, the first row
below the lowest key); "MR" in the penetration/shock formulas is the attacker's MR;
halvings round down; the edged-weapon index is the exchange index plus the weapon modifier; the
shock of a blow that does not pierce still reaches the wearer minus RC; artillery MR 0-4 uses a d20
for the distance (the seed prints a d6 — ``distance_as_printed``); a failed burst hits nobody;
fewer than ten bullets at one target is an ordinary shot; an attack with no defence possible (a fired
weapon) reads the attacker's MR as the index.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from bot.rules.checks.common import CheckResult, Modifier
from bot.rules.combat.basics import Refusal
from bot.rules.combat.common import (
    DiceRoll,
    Term,
    pool_loss,
    roll_dice,
    set_pool_loss,
    term,
    terms_dict,
    total,
)
from bot.rules.combat.dicefeed import d
from bot.rules.combat.state import Combatant
from bot.rules.d20 import checks as d20_checks
from bot.rules.random_source import RandomSource

SYSTEM = "d20"
PV_BASE = 35
PC_MULTIPLIER = 2


def _t(key: str, value: int) -> Term:
    return term(SYSTEM, key, value)


# --- server tables -------------------------------------------------------------------------------


def read_table(table: Mapping[int, Any] | None, index: int) -> Any:
    """The server's row for ``index`` (keys are lower bounds), or None without a table."""
    if not table:
        return None
    keys = sorted(table)
    below = [k for k in keys if k <= index]
    return table[below[-1] if below else keys[0]]


# --- attack against defence ----------------------------------------------------------------------


class Case(StrEnum):
    """The seed's cases (``data/d20_opposition.json`` entry ids)."""

    ATTACKER_HIGHER = "both_succeed_attacker_higher"
    ATTACKER_LOWER = "both_succeed_attacker_lower"
    EQUAL = "both_succeed_equal"
    DEFENCE_FAILS = "attacker_succeeds_defender_fails"
    ATTACK_FAILS = "attacker_fails_defender_succeeds"
    BOTH_FAIL = "both_fail"
    UNDEFENDED = "undefended"  # reading: no defence possible → the attacker's MR is the index


@dataclass(frozen=True, slots=True)
class Exchange:
    attack: CheckResult
    defence: CheckResult | None
    case: Case
    terms: tuple[Term, ...]  # how the index or the malus is reached
    damage_index: int | None
    attacker_malus: int  # ≤ 0, on the attacker's next action
    initiative_to_defender: bool
    only_retreat: bool
    damage: Any = None  # the server table's entry for the index, if a table was given

    @property
    def hit(self) -> bool:
        return self.damage_index is not None

    def to_dict(self) -> dict[str, Any]:
        return {
            "attack": self.attack.to_dict(),
            "defence": self.defence.to_dict() if self.defence else None,
            "case": self.case.value,
            "terms": terms_dict(self.terms),
            "damage_index": self.damage_index,
            "attacker_malus": self.attacker_malus,
            "initiative_to_defender": self.initiative_to_defender,
            "only_retreat": self.only_retreat,
            "damage": self.damage,
        }


def compare(
    attack: CheckResult,
    defence: CheckResult | None,
    *,
    damage_table: Mapping[int, Any] | None = None,
) -> Exchange:
    """Compare an attack and a defence exactly as the seed's four cases say."""
    a, b = attack, defence
    if b is None:
        if not a.success:
            return Exchange(a, None, Case.BOTH_FAIL, (), None, 0, False, False)
        terms: tuple[Term, ...] = (_t("attacker_mr", a.margin),)
        return _hit(a, None, Case.UNDEFENDED, terms, damage_table)
    if a.success and b.success:
        if a.margin > b.margin:
            terms = (_t("attacker_mr", a.margin), _t("defender_mr", -b.margin))
            return _hit(a, b, Case.ATTACKER_HIGHER, terms, damage_table)
        if a.margin < b.margin:
            terms = (_t("defender_mr", b.margin), _t("attacker_mr", -a.margin))
            return Exchange(a, b, Case.ATTACKER_LOWER, terms, None, -total(terms), True, False)
        return Exchange(a, b, Case.EQUAL, (), None, 0, False, True)
    if a.success:
        terms = (_t("attacker_mr", a.margin), _t("defender_failure_margin", b.margin))
        return _hit(a, b, Case.DEFENCE_FAILS, terms, damage_table)
    if b.success:
        terms = (_t("attacker_failure_margin", a.margin), _t("defender_mr", b.margin))
        return Exchange(a, b, Case.ATTACK_FAILS, terms, None, -total(terms), False, False)
    return Exchange(a, b, Case.BOTH_FAIL, (), None, 0, False, False)


def _hit(
    a: CheckResult,
    b: CheckResult | None,
    case: Case,
    terms: tuple[Term, ...],
    table: Mapping[int, Any] | None,
) -> Exchange:
    index = total(terms)
    return Exchange(a, b, case, terms, index, 0, False, False, read_table(table, index))


class Manoeuvre(StrEnum):
    NONE = "none"
    FEINT = "feint"  # −5 to the attempt; success → opponent −10 to parry/dodge
    BOTTE = "botte"  # own skill, no malus; success → opponent −15 to parry/dodge


MANOEUVRES: Mapping[Manoeuvre, tuple[int, int]] = {
    Manoeuvre.NONE: (0, 0),
    Manoeuvre.FEINT: (-5, -10),
    Manoeuvre.BOTTE: (0, -15),
}


class Context(StrEnum):
    BRAWL = "brawl"
    EDGED = "edged_weapon"
    THROWN = "thrown_weapon"
    ARROW = "arrow"
    FIRED = "fired_weapon"


class DefenceKind(StrEnum):
    PARRY = "parry"
    DODGE = "dodge"


@dataclass(frozen=True, slots=True)
class DefenceRule:
    modifier: int
    next_action_modifier: int
    riposte: bool


SPECIALIST = DefenceRule(0, 0, False)  # a specialist's parry of a missile: the skill, no malus
SPECIALIST_SKILLS: Mapping[Context, str] = {
    Context.ARROW: "parer_fleche",  # line 107: « Parer Flèche »
    Context.THROWN: "parer_projectile_lance",  # « Parer Projectile Lancé »
}


def defence_rule(
    context: Context, kind: DefenceKind, *, bare_hands: bool = False, specialist: bool = False
) -> DefenceRule | Refusal:
    """The seed's defence rules by context (lines 45-47, 86-88, 107, 120). ``specialist``: line 107,
    « Certains spécialistes s'entraînent à ce type d'exploit, ce sont des compétences (Parer Flèche et
    Parer Projectile Lancé) » — the skill's own score, without the −15 / −20 (reading)."""
    if context is Context.FIRED:
        return Refusal("combat.d20.refusal.fired_cannot_be_defended")
    if specialist and context in SPECIALIST_SKILLS:
        return SPECIALIST
    if context is Context.THROWN:
        return DefenceRule(-15, 0, False)
    if context is Context.ARROW:
        return DefenceRule(-20, 0, False)
    if context is Context.BRAWL:
        if kind is DefenceKind.DODGE:
            return DefenceRule(0, -5, False)
        return DefenceRule(-5, 0, True)
    if kind is DefenceKind.PARRY and bare_hands:
        return Refusal("combat.d20.refusal.bare_hands_cannot_parry_weapon")
    return DefenceRule(0, 0, False)


@dataclass(frozen=True, slots=True)
class Melee:
    """One attack and its defence, rolled together."""

    manoeuvre: Manoeuvre
    defence_kind: DefenceKind | None
    rule: DefenceRule | None
    exchange: Exchange
    defender_next_action_malus: int
    riposte: bool
    attacker_again: bool = False  # line 87: a successful dodge of an arme blanche

    def to_dict(self) -> dict[str, Any]:
        return {
            "manoeuvre": self.manoeuvre.value,
            "defence_kind": self.defence_kind.value if self.defence_kind else None,
            "exchange": self.exchange.to_dict(),
            "defender_next_action_malus": self.defender_next_action_malus,
            "riposte": self.riposte,
            "attacker_again": self.attacker_again,
        }


def resolve_melee(
    attack_score: int,
    defence_score: int | None,
    *,
    context: Context = Context.EDGED,
    defence_kind: DefenceKind | None = DefenceKind.PARRY,
    manoeuvre: Manoeuvre = Manoeuvre.NONE,
    bare_hands_defender: bool = False,
    specialist: bool = False,
    attack_modifiers: Iterable[Modifier] = (),
    defence_modifiers: Iterable[Modifier] = (),
    damage_table: Mapping[int, Any] | None = None,
    rng: RandomSource | None = None,
    attack_roll: int | None = None,
    defence_roll: int | None = None,
) -> Melee | Refusal:
    """Roll the attack (with its feint/botte) and the defence (with the manoeuvre's malus) and compare."""
    own, inflicted = MANOEUVRES[manoeuvre]
    a_items = list(attack_modifiers)
    if own:
        a_items.append(_t(f"{manoeuvre.value}", own))
    attack = d20_checks.check(
        attack_score, a_items, rng=rng, roll=attack_roll, base_label="combat.d20.attack"
    )
    if defence_score is None or defence_kind is None:
        return Melee(manoeuvre, None, None, compare(attack, None, damage_table=damage_table), 0, False)
    rule = defence_rule(context, defence_kind, bare_hands=bare_hands_defender, specialist=specialist)
    if isinstance(rule, Refusal):
        return rule
    d_items = list(defence_modifiers)
    if rule.modifier:
        d_items.append(_t(f"defence.{context.value}.{defence_kind.value}", rule.modifier))
    if inflicted and attack.success:
        d_items.append(_t(f"opponent_{manoeuvre.value}", inflicted))
    label = (
        f"combat.d20.{SPECIALIST_SKILLS[context]}"
        if rule is SPECIALIST
        else f"combat.d20.{defence_kind.value}"
    )
    defence = d20_checks.check(defence_score, d_items, rng=rng, roll=defence_roll, base_label=label)
    exchange = compare(attack, defence, damage_table=damage_table)
    riposte = rule.riposte and defence.success
    again = dodged_blade(context, defence_kind, exchange)
    if again:  # line 87: no counter-attack, the attacker may attack again (no initiative to the dodger)
        exchange = replace(exchange, initiative_to_defender=False)
    return Melee(manoeuvre, defence_kind, rule, exchange, rule.next_action_modifier, riposte, again)


def dodged_blade(context: Context, kind: DefenceKind | None, exchange: Exchange) -> bool:
    """Line 87: a successful Esquive against an arme blanche (edged or blunt) that stops the blow
    gives no counter-attack and lets the attacker attack again."""
    return (
        context is Context.EDGED
        and kind is DefenceKind.DODGE
        and exchange.defence is not None
        and exchange.defence.success
        and not exchange.hit
    )


# --- brawl, edged and blunt weapons --------------------------------------------------------------


class BrawlLocation(StrEnum):
    HEAD = "head"
    TORSO = "torso"
    LIMB = "limb"


@dataclass(frozen=True, slots=True)
class Blow:
    """Penetration and shock of one blow, itemised."""

    penetration_terms: tuple[Term, ...]
    penetration: int
    shock_terms: tuple[Term, ...]
    shock: int
    damage_index: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "penetration_terms": terms_dict(self.penetration_terms),
            "penetration": self.penetration,
            "shock_terms": terms_dict(self.shock_terms),
            "shock": self.shock,
            "damage_index": self.damage_index,
        }


def brawl_shock(
    location: BrawlLocation,
    bf: int,
    attacker_mr: int,
    weapon_bonus: int = 0,
    *,
    critical: bool = False,
    rng: RandomSource | None = None,
    die: int | None = None,
) -> Blow:
    """Head: BF + 1d10 + MR + bonus; torso: BF + 1d6 + MR + bonus; limbs: that sum / 2 (down)."""
    sides = 10 if location is BrawlLocation.HEAD else 6
    items = [_t("bf", bf), _t(f"d{sides}", d(sides, rng, die)), _t("attacker_mr", attacker_mr)]
    if weapon_bonus:
        items.append(_t("weapon_bonus", weapon_bonus))
    shock = total(items)
    if location is BrawlLocation.LIMB:
        items.append(_t("limb_half", shock // 2 - shock))
        shock //= 2
    if critical:  # line 43: the victim loses double the shock points
        items.append(_t("critical_double", shock))
        shock *= 2
    return Blow((), 0, tuple(items), shock)


def edged_blow(weapon_modifier: int, attacker_mr: int, bf: int, exchange_index: int | None = None) -> Blow:
    """Penetration weapon + MR + BF; shock half of it (down); index = exchange index + weapon."""
    pen = (_t("weapon", weapon_modifier), _t("attacker_mr", attacker_mr), _t("bf", bf))
    p = total(pen)
    shock = (*pen, _t("half", p // 2 - p))
    index = None if exchange_index is None else exchange_index + weapon_modifier
    return Blow(pen, p, shock, total(shock), index)


def blunt_blow(
    weapon_modifier: int,
    attacker_mr: int,
    bf: int,
    *,
    rng: RandomSource | None = None,
    die: int | None = None,
) -> Blow:
    """Penetration weapon + MR + BF/2 (down); shock weapon + MR + BF + 1d20."""
    pen = (_t("weapon", weapon_modifier), _t("attacker_mr", attacker_mr), _t("half_bf", bf // 2))
    shock = (
        _t("weapon", weapon_modifier),
        _t("attacker_mr", attacker_mr),
        _t("bf", bf),
        _t("d20", d(20, rng, die)),
    )
    return Blow(pen, total(pen), shock, total(shock))


def thrown_penetration(bf: int, weapon_modifier: int, random_part: int = 0) -> Blow:
    """Thrown weapons: the thrower's BF + the weapon's modifiers (+ the projectile's random part)."""
    pen = (_t("bf", bf), _t("weapon", weapon_modifier), _t("random_part", random_part))
    return Blow(pen, total(pen), (), 0)


def thrown_blow(
    bf: int, weapon_modifier: int, *, rate: int = 0, random_part: int | None = None, shock_rate: int = 0
) -> Blow:
    """Line 100: penetration = the thrower's BF + the weapon's modifiers (lines 109-110: + the
    projectile's own penetration and random part when it has them); the shock is the projectile's
    fixed shock rate."""
    pen = [_t("bf", bf), _t("weapon", weapon_modifier)]
    if rate:
        pen.append(_t("penetration_rate", rate))
    if random_part is not None:
        pen.append(_t("random_part", random_part))
    shock = (_t("shock_rate", shock_rate),) if shock_rate else ()
    return Blow(tuple(pen), total(pen), shock, total(shock))


def projectile_blow(penetration_rate: int, random_part: int | None, shock_rate: int) -> Blow:
    """Lines 114-116: a fired projectile's fixed penetration rate + its random part, and its fixed
    shock rate (the shooter's BF plays no part)."""
    pen = [_t("penetration_rate", penetration_rate)]
    if random_part is not None:
        pen.append(_t("random_part", random_part))
    shock = (_t("shock_rate", shock_rate),) if shock_rate else ()
    return Blow(tuple(pen), total(pen), shock, total(shock))


# --- critical successes with edged, thrown and fired weapons (lines 85, 105, 118) ----------------


class CriticalMode(StrEnum):
    SECOND_WOUND = "second_wound"  # a second wound drawn on the damage-by-location table
    DOUBLE_PV = "double_pv"  # the PV lost doubled


CRITICAL_CONTEXTS: frozenset[Context] = frozenset(
    {Context.EDGED, Context.THROWN, Context.ARROW, Context.FIRED}
)


@dataclass(frozen=True, slots=True)
class Critical:
    """What a critical success adds: a second index (d20 + weapon) or the first wound's PV again."""

    mode: CriticalMode
    second_roll: int | None
    second_index: int | None
    extra_pv: int | None  # None without a table (the GM reads it)

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode.value,
            "second_roll": self.second_roll,
            "second_index": self.second_index,
            "extra_pv": self.extra_pv,
        }


def critical_wound(
    mode: CriticalMode,
    *,
    weapon_modifier: int = 0,
    first_pv: int | None = None,
    table: Mapping[int, Any] | None = None,
    row_pv: Any = None,
    rng: RandomSource | None = None,
    die: int | None = None,
) -> Critical:
    """Lines 85, 105, 118: "on ajoute aux dégâts précédents, de nouveaux dégâts en utilisant la table
    des dégâts pour tirer une seconde blessure ou on double le nombre de points de vie perdus".
    Reading: the second wound is drawn like a missile's, a d20 + the weapon's modifiers on the table;
    ``row_pv`` reads a row's PV (the service's table rows)."""
    if mode is CriticalMode.DOUBLE_PV:
        return Critical(mode, None, None, first_pv)
    rolled = d(20, rng, die)
    index = rolled + weapon_modifier
    extra = None
    if table:
        row = read_table(table, index)
        extra = int(row_pv(row)) if row_pv is not None else (int(row) if isinstance(row, int) else None)
    return Critical(mode, rolled, index, extra)


# --- armour --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Protection:
    name: str
    rp: int
    rc: int
    sr: int

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "rp": self.rp, "rc": self.rc, "sr": self.sr}


@dataclass(frozen=True, slots=True)
class LayerResult:
    protection: Protection
    penetration_in: int
    shock_in: int
    pierced: bool
    ruptured: bool  # penetration + shock > SR
    blunt_rupture: bool  # blunt: shock ≥ SR
    penetration_out: int
    shock_out: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "protection": self.protection.to_dict(),
            "penetration_in": self.penetration_in,
            "shock_in": self.shock_in,
            "pierced": self.pierced,
            "ruptured": self.ruptured,
            "blunt_rupture": self.blunt_rupture,
            "penetration_out": self.penetration_out,
            "shock_out": self.shock_out,
        }


@dataclass(frozen=True, slots=True)
class ArmourResult:
    layers: tuple[LayerResult, ...]
    penetrated: bool  # every layer pierced: the weapon reaches the body
    penetration: int  # what is left at the body
    shock: int  # shock points the wearer loses (PC)
    fracture: bool  # blunt: shock inflicted ≥ the body part's SR

    def to_dict(self) -> dict[str, Any]:
        return {
            "layers": [x.to_dict() for x in self.layers],
            "penetrated": self.penetrated,
            "penetration": self.penetration,
            "shock": self.shock,
            "fracture": self.fracture,
        }


def resolve_armour(
    blow: Blow, layers: Sequence[Protection], *, blunt: bool = False, body_sr: int | None = None
) -> ArmourResult:
    """Outer layer first: pierce if penetration > RP; shock − RC carries on (≥ 0)."""
    pen, shock = blow.penetration, blow.shock
    results: list[LayerResult] = []
    going = True
    for layer in layers:
        pierced = going and pen > layer.rp
        ruptured = pen + shock > layer.sr
        blunt_rupture = blunt and shock >= layer.sr
        pen_out = pen - layer.rp if pierced else 0
        shock_out = max(0, shock - layer.rc)
        results.append(LayerResult(layer, pen, shock, pierced, ruptured, blunt_rupture, pen_out, shock_out))
        going = pierced
        pen, shock = pen_out, shock_out
    fracture = blunt and body_sr is not None and shock >= body_sr
    return ArmourResult(tuple(results), going, pen if going else 0, shock, fracture)


# --- hit points and shock points -----------------------------------------------------------------


def pv_max(con: int) -> int:
    return PV_BASE + con


def pc_max(con: int) -> int:
    return con * PC_MULTIPLIER


@dataclass(frozen=True, slots=True)
class Health:
    con: int
    pv_lost: int
    pc_lost: int
    overflow_to_pv: int  # shock beyond the PC maximum, taken off PV
    dead: bool
    malus: int  # ≤ 0, on every roll

    def to_dict(self) -> dict[str, Any]:
        return {
            "con": self.con,
            "pv_max": pv_max(self.con),
            "pc_max": pc_max(self.con),
            "pv_lost": self.pv_lost,
            "pc_lost": self.pc_lost,
            "overflow_to_pv": self.overflow_to_pv,
            "dead": self.dead,
            "malus": self.malus,
        }


def take_damage(
    con: int, *, pv_lost: int = 0, pc_lost: int = 0, pv: int = 0, pc: int = 0, combined: bool = True
) -> Health:
    """Add ``pv`` and ``pc`` lost; shock beyond Con × 2 goes to PV; dead at PV lost ≥ 35 + Con."""
    pc_total = pc_lost + pc
    overflow = max(0, pc_total - pc_max(con))
    pc_total -= overflow
    pv_total = pv_lost + pv + overflow
    malus = d20_checks.wound_malus(pv_total, pc_total, con, combined=combined)
    return Health(con, pv_total, pc_total, overflow, pv_total >= pv_max(con), malus)


def health_of(combatant: Combatant) -> Health:
    con = int(combatant.characteristics.get("Con", 0))
    return take_damage(
        con, pv_lost=pool_loss(combatant, SYSTEM, "PV"), pc_lost=pool_loss(combatant, SYSTEM, "PC")
    )


def record_health(combatant: Combatant, health: Health) -> Combatant:
    return set_pool_loss(set_pool_loss(combatant, SYSTEM, "PV", health.pv_lost), SYSTEM, "PC", health.pc_lost)


# --- recovery (lines 266-269) --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RecoveryStep:
    """``points`` come back at 1 per ``unit``: "hour_rest" (5 h of total rest each), "hour_sleep",
    "day_rest", "minute"; ``time`` is how many units that takes."""

    points: int
    unit: str
    time: int

    def to_dict(self) -> dict[str, Any]:
        return {"points": self.points, "unit": self.unit, "time": self.time}


def pv_recovery(pv_lost: int, con: int) -> tuple[RecoveryStep, ...]:
    """Line 266: « un par 5 heures de repos total si toutefois ce total perdu n'excède pas le score de
    "Constitution" »; line 267: « égal ou supérieur au score de "Constitution" […] un point par heure
    de sommeil pour la première moitié et d'un point par jour de repos pour la seconde moitié ».
    Readings (``data/d20_wounds.json``): exactly Con lost uses the first rate; the first half is the
    larger one with an odd number."""
    if pv_lost <= 0:
        return ()
    if pv_lost <= con:
        return (RecoveryStep(pv_lost, "hour_rest", 5 * pv_lost),)
    first = (pv_lost + 1) // 2
    second = pv_lost - first
    return (RecoveryStep(first, "hour_sleep", first), RecoveryStep(second, "day_rest", second))


def pc_recovery(pc_lost: int) -> tuple[RecoveryStep, ...]:
    """Line 269: « Les PC perdus se récupèrent à raison de 1 par minute. »"""
    return (RecoveryStep(pc_lost, "minute", pc_lost),) if pc_lost > 0 else ()


# --- thrown and fired weapons --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Impact:
    mr: int
    exact: bool
    die: int | None  # 6 or 20
    zone_roll: int | None
    zone: Any  # the server's effective-locations entry, or the aimed point when exact
    damage_roll: DiceRoll | None
    damage_index: int | None
    damage: Any

    def to_dict(self) -> dict[str, Any]:
        return {
            "mr": self.mr,
            "exact": self.exact,
            "die": self.die,
            "zone_roll": self.zone_roll,
            "zone": self.zone,
            "damage_roll": self.damage_roll.to_dict() if self.damage_roll else None,
            "damage_index": self.damage_index,
            "damage": self.damage,
        }


def band_die(mr: int) -> int | None:
    """MR ≥ 10: exact (None); 5-9: a d6; 0-4: a d20."""
    if mr >= 10:
        return None
    return 6 if mr >= 5 else 20


def resolve_impact(
    shot: CheckResult,
    aimed_at: str,
    *,
    weapon_modifier: int = 0,
    effective_locations: Mapping[int, Any] | None = None,
    damage_table: Mapping[int, Any] | None = None,
    rng: RandomSource | None = None,
    zone_roll: int | None = None,
    damage_roll: int | None = None,
) -> Impact | None:
    """Where a successful shot lands around ``aimed_at`` and its d20 + weapon damage index."""
    if not shot.success:
        return None
    die = band_die(shot.margin)
    rolled = None if die is None else d(die, rng, zone_roll)
    zone: Any = aimed_at if die is None else read_table(effective_locations, rolled or 0)
    dmg = roll_dice("1d20", rng, [] if damage_roll is None else [damage_roll])
    index = dmg.total + weapon_modifier
    return Impact(shot.margin, die is None, die, rolled, zone, dmg, index, read_table(damage_table, index))


@dataclass(frozen=True, slots=True)
class Burst:
    targets: int
    test_modifier: int
    hits: tuple[DiceRoll, ...]  # per target (several) or per group of ten (single)
    bullets_hitting: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "targets": self.targets,
            "test_modifier": self.test_modifier,
            "hits": [h.to_dict() for h in self.hits],
            "bullets_hitting": list(self.bullets_hitting),
        }


def burst_modifier(*, targets: int = 1, bullets: int = 0) -> Modifier:
    """Several targets: −1 per target; one target: +2 per full ten bullets."""
    if targets > 1:
        return _t("burst_targets", -targets)
    return _t("burst_bullets", 2 * (bullets // 10))


def burst_hits(
    shot: CheckResult,
    *,
    targets: int = 1,
    bullets: int = 0,
    rng: RandomSource | None = None,
    dice: Sequence[int] = (),
) -> Burst:
    """Bullets hitting: 1d4 − 2 (≥ 0) per target, or 1d6 per ten bullets at one target."""
    modifier = burst_modifier(targets=targets, bullets=bullets).value
    if not shot.success:
        return Burst(targets, modifier, (), ())
    feed = list(dice)
    rolls: list[DiceRoll] = []
    count = targets if targets > 1 else bullets // 10
    expression = "1d4" if targets > 1 else "1d6"
    for _ in range(count):
        rolls.append(roll_dice(expression, rng, feed[:1]))
        feed = feed[1:]
    if targets > 1:
        return Burst(targets, modifier, tuple(rolls), tuple(max(0, r.total - 2) for r in rolls))
    return Burst(1, modifier, tuple(rolls), (sum(r.total for r in rolls),))


def covering_fire(
    weapon_score: int, *, rng: RandomSource | None = None, roll: int | None = None
) -> tuple[int, bool]:
    """d100 ≤ the weapon score (15 → 15 %): the target, or one of them, is hit."""
    rolled = d(100, rng, roll)
    return rolled, rolled <= weapon_score


RANGED_MODIFIERS: Mapping[str, tuple[int, str | None]] = {
    "instinctif": (-4, None),
    "cible_rapide": (-4, None),
    "tireur_lent": (-4, "shooter_movement"),
    "tireur_rapide": (-8, "shooter_movement"),
    "faible_lumiere": (-6, "light"),
    "tres_faible_lumiere": (-8, "light"),
    "obscurite_totale": (-16, "light"),
    "appui_epaule": (4, "support"),
    "appui_poing": (2, "support"),
}


def ranged_modifiers(
    ids: Iterable[str], table: Mapping[str, tuple[int, str | None]] = RANGED_MODIFIERS
) -> tuple[Modifier, ...]:
    """The seed's ranged modifiers (``d20_ranged`` ids); one per group (light, movement, support)."""
    out: list[Modifier] = []
    groups: set[str] = set()
    for item in ids:
        value, group = table[item]
        if group is not None:
            if group in groups:
                raise ValueError(f"only one {group} modifier applies")
            groups.add(group)
        out.append(_t(f"ranged.{item}", value))
    return tuple(out)


# --- artillery and fighter gunnery ---------------------------------------------------------------


SCATTER_DISTANCES: tuple[int, ...] = (
    2,
    4,
    6,
    8,
    10,
    12,
    14,
    16,
    18,
    20,
    22,
    24,
    26,
    27,
    28,
    30,
    35,
    40,
    45,
    50,
)
DIRECTIONS: tuple[tuple[int, str], ...] = ((5, "front"), (10, "left"), (15, "right"), (20, "behind"))
AIR_HITS: frozenset[int] = frozenset({1, 2, 3, 4, 7, 8, 9, 13, 14, 19})


@dataclass(frozen=True, slots=True)
class Scatter:
    mr: int
    on_target: bool
    direction_roll: int | None
    direction: str | None
    distance_die: int | None
    distance_roll: int | None
    metres: int | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "mr": self.mr,
            "on_target": self.on_target,
            "direction_roll": self.direction_roll,
            "direction": self.direction,
            "distance_die": self.distance_die,
            "distance_roll": self.distance_roll,
            "metres": self.metres,
        }


def artillery_scatter(
    shot: CheckResult,
    *,
    distances: Sequence[int] = SCATTER_DISTANCES,
    distance_as_printed: bool = False,
    rng: RandomSource | None = None,
    direction_roll: int | None = None,
    distance_roll: int | None = None,
) -> Scatter | None:
    """MR ≥ 10 on target; 5-9 a d6, 0-4 a d20 (the seed prints d6) on the distance table; d20 direction."""
    if not shot.success:
        return None
    mr = shot.margin
    if mr >= 10:
        return Scatter(mr, True, None, None, None, None, 0)
    die = 6 if mr >= 5 or distance_as_printed else 20
    direction = d(20, rng, direction_roll)
    name = next(label for top, label in DIRECTIONS if direction <= top)
    distance = d(die, rng, distance_roll)
    return Scatter(mr, False, direction, name, die, distance, distances[distance - 1])


def air_hit(
    shot: CheckResult,
    *,
    hits: Collection[int] = AIR_HITS,
    rng: RandomSource | None = None,
    roll: int | None = None,
) -> tuple[int | None, bool]:
    """Tir de chasse: MR ≥ 10 hits; 5-9 a d6, 0-4 a d20 on the hit table (1-4, 7-9, 13-14, 19 hit).
    ``hits``: the faces that hit (a server's ``d20_air_combat`` in force: :func:`air_hit_faces`)."""
    if not shot.success:
        return None, False
    die = band_die(shot.margin)
    if die is None:
        return None, True
    rolled = d(die, rng, roll)
    return rolled, rolled in hits


def air_hit_faces(entries: Iterable[Mapping[str, Any]]) -> frozenset[int]:
    """The hitting faces of a ``d20_air_combat`` document's ``entries`` (``{"face": 5, "hit": true}``)."""
    return frozenset(int(e["face"]) for e in entries if e.get("hit"))


def air_modifiers(
    given: Iterable[tuple[str, int | None]], table: Sequence[Mapping[str, Any]]
) -> tuple[Modifier, ...]:
    """Tir de chasse modifiers (``d20_air_combat`` ``modifiers``): ``per_step`` −1 per full step of
    the value given (2000 km/h → −4), ``flat``, ``opponent_mr`` (the pursued pilot's MR as a malus);
    one per group (size, depth). Unknown ids, missing values and two of a group raise ValueError."""
    by_id = {str(m["id"]): m for m in table}
    out: list[Modifier] = []
    groups: set[str] = set()
    for item, amount in given:
        spec = by_id.get(item)
        if spec is None:
            raise ValueError(f"unknown air-combat modifier {item!r}")
        group = spec.get("group")
        if group is not None:
            if group in groups:
                raise ValueError(f"only one {group} modifier applies")
            groups.add(str(group))
        kind = spec["kind"]
        if kind == "flat":
            value = int(spec["value"])
        elif amount is None or amount < 0:
            raise ValueError(f"{item} needs a value")
        elif kind == "per_step":
            value = int(spec["value"]) * (amount // int(spec["step"]))
        else:  # opponent_mr
            value = int(spec["value"]) * amount
        out.append(_t(f"air.{item}", value))
    return tuple(out)


# --- weapons of mass destruction (lines 188-195) and radiation protection (lines 152, 156) -------


@dataclass(frozen=True, slots=True)
class MassiveDamage:
    """DM against the best RDM worn: « Si [les] dégâts sont inférieurs ou égaux à ce seuil, la cible
    n'est pas affectée ; sinon, elle subit de plein fouet » — an unprotected target hit by DM « est
    soit désintégrée, soit vitrifiée soit, au mieux, carbonisée » (dead); « au cas où le maître de
    jeu l'admettrait, 1 ou 2 DM peuvent n'affecter qu'un membre […] vaporisé et les dégâts sont les
    maximums que la table de dégâts par localisation prévoit »."""

    dm: int
    rdm: int
    affected: bool
    limb_only: bool

    @property
    def destroyed(self) -> bool:
        return self.affected and not self.limb_only

    def to_dict(self) -> dict[str, Any]:
        return {
            "dm": self.dm,
            "rdm": self.rdm,
            "affected": self.affected,
            "limb_only": self.limb_only,
            "destroyed": self.destroyed,
        }


LIMB_DM_MAX = 2  # « 1 ou 2 DM peuvent n'affecter qu'un membre »


def massive_damage(dm: int, rdm: int = 0, *, limb: bool = False) -> MassiveDamage:
    """``rdm``: the best RDM of the target's protections (reading: the strongest layer stops DM, the
    layers' thresholds are not added); ``limb``: the GM admits that only a limb is hit (1 or 2 DM)."""
    if dm < 1:
        raise ValueError("a weapon of mass destruction deals at least 1 DM")
    affected = dm > rdm
    return MassiveDamage(dm, rdm, affected, affected and limb and dm <= LIMB_DM_MAX)
