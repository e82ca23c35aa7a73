"""`ogl` combat (seed 004, "Règles OGL : Combat", a web extract cut by "(...)").

Seed: each round every character rolls 1d10 + his Action Rank modifier, highest first; ties → higher
DEX, same DEX → simultaneous; surprised: −10 on the first round's roll. Combat actions (aim, charge
+1d4 damage, defensive +20 % to dodge/parry, flurry −20 %, precise attacks −40 % — never within a
charge or a flurry …). Reactions: as many per round as combat actions, one per triggering event;
dodge and parry answer a melee attack (dodge −30 % mounted, −20 % cornered), dive answers an area
effect (success halves, a critical avoids all, the diver ends prone; not against aimed attacks, not
prone, nowhere to dive, mounted −30 % and unhorsed), counter-attack answers an adjacent enemy's
triggers; nobody Hors de Combat reacts; a surprised character reacts only to lower action ranks.
Attack and defence are rolled together: "Si les deux personnages réussissent, celui qui a obtenu le
résultat le plus élevé gagne". Critical at ⌊skill/10⌋: maximum weapon damage, the damage modifier
not maximised; impaling weapons may stay in the wound. Damage comes off the location's HP: 0 →
minor wound, −1 or less → serious, "une valeur négative plus importante que les points de vie
d'origine" → major, with their endurance tests and death counts (CON + POU actions for a limb, half
for abdomen, chest or head). Knockback after reactions, before armour: damage > SIZ → 1 m, +1 m per
full 5 points above; doubled by a charge; a rider adds his mount's SIZ with an Équitation success.
Two weapons: one extra parry beyond the reaction limit or one extra melee attack. Mounted: +20 % to
the rider's attacks and parries against adjacent foes on foot, −20 % to their reactions against him,
no two-handed weapon. Grapple: immobilise at −(DEX + FOR), escape at −(FOR + TAI), a throw: 2 m and
1d6 at a random location. Hero points: second chance (reroll), graze (a major wound's damage cut so
the location ends at −its HP), hero's luck (GM approval). Fumble tables (1d20): the printed faces.

Readings (``data/ogl_*.json`` notes): major is strictly below −HP (``MajorThreshold.AT_MOST`` for
RULES.md's ≤); the most severe level applies alone; the half of CON + POU rounds down; a critical
maximises every weapon die (the damage modifier is rolled); the extract cuts what "diminué" does to a
losing defence: the winner's result stands (defender wins → no damage), equal successful rolls →
roll again (as :mod:`bot.rules.opposed`); fumble faces the seed does not print go to the GM;
"roll again" chains stop at 10 rolls; two weapons: one of the two extras per round.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
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
    maximum,
    ordered_slots,
    pool_loss,
    roll_dice,
    set_pool_loss,
    term,
    terms_dict,
    total,
)
from bot.rules.combat.dicefeed import d
from bot.rules.combat.effects import Condition
from bot.rules.combat.initiative import Slot
from bot.rules.combat.state import Combatant
from bot.rules.ogl import checks as ogl_checks
from bot.rules.random_source import RandomSource

SYSTEM = "ogl"
SURPRISE_MALUS = -10
PRECISE_MALUS = -40
FLURRY_MALUS = -20
DEFENSIVE_BONUS = 20
CORNERED_MALUS = -20
ROLL_AGAIN_CAP = 10
ACTION_UNIT = "combat_action"


def _t(key: str, value: int) -> Term:
    return term(SYSTEM, key, value)


# --- action ranks --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ActionRank:
    combatant: str
    die: int
    terms: tuple[Term, ...]
    rank: int
    dex: int

    def timing(self) -> Timing:
        return Timing(self.combatant, 1, self.rank, (self.dex,))

    def to_dict(self) -> dict[str, Any]:
        return {
            "combatant": self.combatant,
            "die": self.die,
            "terms": terms_dict(self.terms),
            "rank": self.rank,
            "dex": self.dex,
        }


def roll_action_rank(
    combatant: str,
    modifier: int,
    dex: int,
    *,
    surprised: bool = False,
    round_number: int = 1,
    rng: RandomSource | None = None,
    roll: int | None = None,
) -> ActionRank:
    """1d10 + the Action Rank modifier, −10 when surprised in the first round."""
    die = d(10, rng, roll)
    items = [_t("d10", die), _t("action_rank_modifier", modifier)]
    if surprised and round_number == 1:
        items.append(_t("surprised", SURPRISE_MALUS))
    return ActionRank(combatant, die, tuple(items), total(items), dex)


@dataclass(frozen=True, slots=True)
class RankOrder:
    order: tuple[Slot, ...]  # the shared fight-state order
    simultaneous: tuple[tuple[str, ...], ...]  # same rank and same DEX: they act at once

    def to_dict(self) -> dict[str, Any]:
        return {
            "order": [s.to_dict() for s in self.order],
            "simultaneous": [list(g) for g in self.simultaneous],
        }


def rank_order(ranks: Iterable[ActionRank]) -> RankOrder:
    """Highest rank first; ties: higher DEX; same DEX: simultaneous (listed, then by id)."""
    items = list(ranks)
    groups: dict[tuple[int, int], list[str]] = {}
    for r in items:
        groups.setdefault((r.rank, r.dex), []).append(r.combatant)
    together = tuple(tuple(sorted(g)) for g in groups.values() if len(g) > 1)
    return RankOrder(ordered_slots(r.timing() for r in items), together)


# --- reactions -----------------------------------------------------------------------------------


class Reaction(StrEnum):
    DODGE = "esquiver"
    PARRY = "parer"
    DIVE = "plonger"
    COUNTER = "contre_attaquer"


class Trigger(StrEnum):
    MELEE_ATTACK = "melee_attack"
    AREA_EFFECT = "area_effect"
    RANGED_ATTACK = "ranged_attack"
    CHANGES_POSITION = "stands_up_or_changes_position"
    MOVES_AWAY = "moves_away_without_retreat"
    APPROACHES = "approaches_without_charge"
    GUARD_OPEN = "leaves_guard_open"
    RUNS = "runs"
    MOVES = "moves"


REACTION_TRIGGERS: Mapping[Reaction, frozenset[Trigger]] = {
    Reaction.DODGE: frozenset({Trigger.MELEE_ATTACK}),
    Reaction.PARRY: frozenset({Trigger.MELEE_ATTACK}),
    Reaction.DIVE: frozenset({Trigger.AREA_EFFECT}),
    Reaction.COUNTER: frozenset(
        {
            Trigger.RANGED_ATTACK,
            Trigger.CHANGES_POSITION,
            Trigger.MOVES_AWAY,
            Trigger.APPROACHES,
            Trigger.GUARD_OPEN,
            Trigger.RUNS,
            Trigger.MOVES,
        }
    ),
}


@dataclass(frozen=True, slots=True)
class ReactionLedger:
    """One combatant's reactions this round. ``off_hand`` is "parry" or "attack" once chosen."""

    combat_actions: int
    used: int = 0
    events: tuple[str, ...] = ()
    off_hand: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "combat_actions": self.combat_actions,
            "used": self.used,
            "events": list(self.events),
            "off_hand": self.off_hand,
        }


@dataclass(frozen=True, slots=True)
class Situation:
    """What can forbid a reaction or change its skill."""

    out_of_combat: bool = False
    prone: bool = False
    mounted: bool = False
    cornered: bool = False
    aimed_attack: bool = False
    nowhere_to_dive: bool = False
    adjacent: bool = True
    surprised_rank: int | None = None  # set in the first round when surprised
    attack_rank: int | None = None


def can_react(
    ledger: ReactionLedger,
    reaction: Reaction,
    trigger: Trigger,
    event: str,
    situation: Situation = Situation(),
    *,
    off_hand_parry: bool = False,
) -> Refusal | None:
    """Whether ``reaction`` may answer ``event`` (an id of the triggering action)."""
    if situation.out_of_combat:
        return Refusal("combat.ogl.refusal.out_of_combat")
    if trigger not in REACTION_TRIGGERS[reaction]:
        return Refusal(
            "combat.ogl.refusal.wrong_trigger", (("reaction", reaction.value), ("trigger", trigger.value))
        )
    if event in ledger.events:
        return Refusal("combat.ogl.refusal.one_reaction_per_event")
    if (
        situation.surprised_rank is not None
        and situation.attack_rank is not None
        and situation.attack_rank >= situation.surprised_rank
    ):
        return Refusal("combat.ogl.refusal.surprised")
    if reaction is Reaction.DIVE and (situation.aimed_attack or situation.nowhere_to_dive or situation.prone):
        return Refusal("combat.ogl.refusal.cannot_dive")
    if reaction is Reaction.COUNTER and not situation.adjacent:
        return Refusal("combat.ogl.refusal.not_adjacent")
    if off_hand_parry:
        if reaction is not Reaction.PARRY or ledger.off_hand is not None:
            return Refusal("combat.ogl.refusal.off_hand_used")
        return None
    if ledger.used >= ledger.combat_actions:
        return Refusal("combat.ogl.refusal.no_reaction_left")
    return None


def record_reaction(ledger: ReactionLedger, event: str, *, off_hand_parry: bool = False) -> ReactionLedger:
    if off_hand_parry:
        return replace(ledger, events=(*ledger.events, event), off_hand="parry")
    return replace(ledger, used=ledger.used + 1, events=(*ledger.events, event))


def reaction_modifiers(reaction: Reaction, situation: Situation) -> tuple[Modifier, ...]:
    """Dodge and dive: −30 % mounted, −20 % cornered (dodge only)."""
    items: list[Modifier] = []
    if reaction in (Reaction.DODGE, Reaction.DIVE) and situation.mounted:
        items.append(_t("mounted_dodge", -30))
    if reaction is Reaction.DODGE and situation.cornered:
        items.append(_t("cornered", -20))
    return tuple(items)


class DiveResult(StrEnum):
    NONE = "none"  # no dive: the whole damage
    FAILED = "failed"  # the Esquive test failed: the whole damage, still prone
    HALVED = "halved"
    AVOIDED = "avoided"  # a critical success


@dataclass(frozen=True, slots=True)
class AreaDamage:
    rolled: int
    dive: DiveResult
    taken: int

    def to_dict(self) -> dict[str, Any]:
        return {"rolled": self.rolled, "dive": self.dive.value, "taken": self.taken}


def dive_damage(rolled: int, dive: CheckResult | None) -> AreaDamage:
    """An area effect's damage after the dive: "En cas de réussite, les dégâts de l'attaque sont
    diminués de moitié. Une réussite critique permet d'éviter tout dégât." Reading: the half rounds
    down (as the half of CON + POU); it is taken before the armour, like any damage."""
    if dive is None:
        return AreaDamage(rolled, DiveResult.NONE, rolled)
    if dive.critical_success:
        return AreaDamage(rolled, DiveResult.AVOIDED, 0)
    if dive.success:
        return AreaDamage(rolled, DiveResult.HALVED, rolled // 2)
    return AreaDamage(rolled, DiveResult.FAILED, rolled)


# --- situational modifiers -----------------------------------------------------------------------


SITUATIONAL: Mapping[str, tuple[int, str | None]] = {
    "cible_surprise": (20, None),
    "cible_a_terre_ou_de_dos": (20, None),
    "position_surelevee_ou_monte": (20, None),
    "a_terre": (-30, None),
    "sol_instable": (-20, None),
    "bras_gene": (-10, None),
    "sous_l_eau": (-40, None),
    "defense_position_basse_ou_contre_monte": (-20, None),
    "obscurite_partielle": (-20, "darkness"),
    "obscurite": (-40, "darkness"),
    "aveugle_obscurite_totale": (-60, "darkness"),
    "brouillard_cible_deplacee": (-30, None),
    "cavalier_contre_pieton": (20, None),
    "pieton_contre_cavalier": (-20, None),
    "en_defense": (DEFENSIVE_BONUS, None),
    "accule": (CORNERED_MALUS, None),
}


class Side(StrEnum):
    ATTACK = "attack"
    DEFENCE = "defence"


BOTH: frozenset[Side] = frozenset({Side.ATTACK, Side.DEFENCE})
# Whose test each modifier changes (``applies_to`` of ``ogl_situational_modifiers``; line 10: « la
# cible est … » → the attacker; « attaquer ou se défendre … » → the one in that situation, attacking
# or defending; « défendre depuis une position inférieure ou contre un ennemi monté » → the defender;
# line 6 « En Défense » and line 19 « acculé » → the defender's Esquive / Parade).
SITUATION_SIDES: Mapping[str, frozenset[Side]] = {
    "cible_surprise": frozenset({Side.ATTACK}),
    "cible_a_terre_ou_de_dos": frozenset({Side.ATTACK}),
    "position_surelevee_ou_monte": BOTH,
    "a_terre": BOTH,
    "sol_instable": BOTH,
    "bras_gene": BOTH,
    "sous_l_eau": BOTH,
    "defense_position_basse_ou_contre_monte": frozenset({Side.DEFENCE}),
    "obscurite_partielle": BOTH,
    "obscurite": BOTH,
    "aveugle_obscurite_totale": BOTH,
    "brouillard_cible_deplacee": frozenset({Side.ATTACK}),
    "cavalier_contre_pieton": BOTH,
    "pieton_contre_cavalier": frozenset({Side.DEFENCE}),
    "en_defense": frozenset({Side.DEFENCE}),
    "accule": frozenset({Side.DEFENCE}),
}
REACTIONS_ONLY: Mapping[str, frozenset[Reaction]] = {
    "cavalier_contre_pieton": frozenset({Reaction.PARRY}),  # line 36: « attaques et parades »
    "en_defense": frozenset({Reaction.DODGE, Reaction.PARRY}),  # line 6: « Esquive et de Parade »
    "accule": frozenset({Reaction.DODGE}),  # line 19: « à sa compétence d'Esquive »
}


def situation_ids(side: Side, reaction: Reaction | None = None) -> tuple[str, ...]:
    """The ids that may be typed on ``side`` (for a refusal's list)."""
    return tuple(
        k
        for k, sides in SITUATION_SIDES.items()
        if side in sides
        and (
            side is Side.ATTACK
            or reaction is None
            or reaction in REACTIONS_ONLY.get(k, frozenset({reaction}))
        )
    )


def situational(
    ids: Iterable[str],
    table: Mapping[str, tuple[int, str | None]] = SITUATIONAL,
    *,
    side: Side = Side.ATTACK,
    reaction: Reaction | None = None,
) -> tuple[Modifier, ...]:
    """Cumulative situational modifiers (``ogl_situational_modifiers`` ids); one darkness level.
    ``side``: the attacker's test or the defender's (``reaction``); an id that does not change that
    test raises ValueError (a defence-only modifier never reaches the attack, and the reverse)."""
    out: list[Modifier] = []
    groups: set[str] = set()
    for item in ids:
        value, group = table[item]
        if side not in SITUATION_SIDES.get(item, BOTH):
            raise ValueError(f"{item} does not apply to the {side.value}")
        if (
            side is Side.DEFENCE
            and reaction is not None
            and reaction not in REACTIONS_ONLY.get(item, {reaction})
        ):
            raise ValueError(f"{item} does not apply to {reaction.value}")
        if group is not None:
            if group in groups:
                raise ValueError(f"only one {group} modifier applies")
            groups.add(group)
        out.append(_t(f"situation.{item}", value))
    return tuple(out)


# --- combat actions: aim, charge, flurry (line 5-6, 15, 35) --------------------------------------

AIM_STEP = 10
AIM_CAP = 30


def aim_bonus(actions: int) -> Term:
    """Line 5: « Chaque Action que le personnage emploie à viser augmente de +10% son score avec
    l'arme à distance […] il ne peut dépasser +30% »."""
    return _t("aim", min(AIM_CAP, AIM_STEP * max(0, actions)))


# --- attack and defence --------------------------------------------------------------------------


class Precise(StrEnum):
    AIMED = "frappe_visee"
    THROUGH_ARMOUR = "frapper_a_travers_armure"
    WEAPON = "frapper_arme"
    DISARM = "desarmer"


class Outcome(StrEnum):
    HIT = "hit"
    DEFENDED = "defended"
    MISS = "miss"
    REROLL = "reroll"


@dataclass(frozen=True, slots=True)
class Diminished:
    """Line 9: « Si les deux personnages réussissent, celui qui a obtenu le résultat le plus élevé
    gagne, l'autre résultat est diminué. » Reading: the loser's result drops one level (a critical
    success to a success, a success to a failure); the winner's stands, so a critical attack beaten
    by a higher successful defence is a plain success that is defended (no damage, no critical), and
    a critical defence beaten by a higher attack roll is a plain success that does not stop it."""

    side: str  # "attack" or "defence": whose result is diminished
    before: str  # "critical_success" or "success"
    after: str  # "success" or "failure"

    def to_dict(self) -> dict[str, Any]:
        return {"side": self.side, "before": self.before, "after": self.after}


def diminish(loser: CheckResult, side: str) -> Diminished:
    before = "critical_success" if loser.critical_success else "success"
    return Diminished(side, before, "success" if loser.critical_success else "failure")


@dataclass(frozen=True, slots=True)
class OglMelee:
    attack: CheckResult
    defence: CheckResult | None
    reaction: Reaction | None
    outcome: Outcome
    reason: str
    critical: bool
    fumble_attacker: bool
    fumble_defender: bool
    precise: Precise | None
    ignore_armour: bool
    diminished: Diminished | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "diminished": self.diminished.to_dict() if self.diminished else None,
            "attack": self.attack.to_dict(),
            "defence": self.defence.to_dict() if self.defence else None,
            "reaction": self.reaction.value if self.reaction else None,
            "outcome": self.outcome.value,
            "reason": self.reason,
            "critical": self.critical,
            "fumble_attacker": self.fumble_attacker,
            "fumble_defender": self.fumble_defender,
            "precise": self.precise.value if self.precise else None,
            "ignore_armour": self.ignore_armour,
        }


def resolve_attack(
    skill: int,
    defence_skill: int | None = None,
    *,
    reaction: Reaction | None = None,
    precise: Precise | None = None,
    charge: bool = False,
    flurry: bool = False,
    ranged: bool = False,
    target_out_of_combat: bool = False,
    attack_modifiers: Iterable[Modifier] = (),
    defence_modifiers: Iterable[Modifier] = (),
    options: ogl_checks.OglOptions = ogl_checks.DEFAULT_OPTIONS,
    rng: RandomSource | None = None,
    attack_roll: int | None = None,
    defence_roll: int | None = None,
) -> OglMelee | Refusal:
    """d100 ≤ skill; with a dodge or parry both roll and the higher successful roll wins."""
    if precise is not None and (charge or flurry):
        return Refusal("combat.ogl.refusal.precise_not_in_charge_or_flurry")
    if precise in (Precise.WEAPON, Precise.DISARM) and ranged:
        return Refusal("combat.ogl.refusal.precise_not_at_range")
    if reaction is Reaction.PARRY and ranged:
        return Refusal("combat.ogl.refusal.cannot_parry_ranged")
    items = list(attack_modifiers)
    if flurry:
        items.append(_t("flurry", FLURRY_MALUS))
    if precise is not None:
        items.append(_t(f"precise.{precise.value}", PRECISE_MALUS))
    attack = ogl_checks.check(
        skill, items, rng=rng, roll=attack_roll, base_label="combat.ogl.weapon", options=options
    )
    critical = attack.critical_success or (target_out_of_combat and attack.success)
    through = precise is Precise.THROUGH_ARMOUR
    if defence_skill is None or reaction is None:
        outcome = Outcome.HIT if attack.success else Outcome.MISS
        return OglMelee(
            attack,
            None,
            None,
            outcome,
            "combat.ogl.reason.undefended",
            critical,
            attack.critical_failure,
            False,
            precise,
            through,
        )
    defence = ogl_checks.check(
        defence_skill,
        defence_modifiers,
        rng=rng,
        roll=defence_roll,
        base_label=f"combat.ogl.{reaction.value}",
        options=options,
    )
    verdict, reason = opposed.compare(attack, defence, opposed.rules_for(System.OGL))
    outcome = {
        opposed.Verdict.A: Outcome.HIT,
        opposed.Verdict.B: Outcome.DEFENDED,
        opposed.Verdict.REROLL: Outcome.REROLL,
        opposed.Verdict.NO_WINNER: Outcome.MISS,
    }[verdict]
    lowered = None
    if attack.success and defence.success and outcome in (Outcome.HIT, Outcome.DEFENDED):
        lowered = diminish(defence, "defence") if outcome is Outcome.HIT else diminish(attack, "attack")
    return OglMelee(
        attack,
        defence,
        reaction,
        outcome,
        reason,
        critical and outcome is Outcome.HIT,
        attack.critical_failure,
        defence.critical_failure,
        precise,
        through,
        lowered,
    )


# --- damage, knockback ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OglDamage:
    weapon: DiceRoll
    maximised: bool
    modifier: DiceRoll | None
    charge: DiceRoll | None
    terms: tuple[Term, ...]
    total: int
    impaled: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "weapon": self.weapon.to_dict(),
            "maximised": self.maximised,
            "modifier": self.modifier.to_dict() if self.modifier else None,
            "charge": self.charge.to_dict() if self.charge else None,
            "terms": terms_dict(self.terms),
            "total": self.total,
            "impaled": self.impaled,
        }


def roll_damage(
    weapon_dice: str,
    *,
    damage_modifier: str | None = None,
    critical: bool = False,
    impaling: bool = False,
    charge: bool = False,
    rng: RandomSource | None = None,
    dice: Sequence[int] = (),
    modifier_dice: Sequence[int] = (),
    charge_die: int | None = None,
) -> OglDamage:
    """Weapon dice (maximised on a critical) + damage modifier (never maximised) + 1d4 on a charge."""
    weapon = maximum(weapon_dice) if critical else roll_dice(weapon_dice, rng, dice)
    items = [_t("weapon_max" if critical else "weapon", weapon.total)]
    mod = roll_dice(damage_modifier, rng, modifier_dice) if damage_modifier else None
    if mod is not None:
        items.append(_t("damage_modifier", mod.total))
    extra = roll_dice("1d4", rng, [] if charge_die is None else [charge_die]) if charge else None
    if extra is not None:
        items.append(_t("charge", extra.total))
    return OglDamage(weapon, critical, mod, extra, tuple(items), max(0, total(items)), critical and impaling)


@dataclass(frozen=True, slots=True)
class Knockback:
    damage: int
    siz: int
    metres: int
    doubled: bool

    def to_dict(self) -> dict[str, Any]:
        return {"damage": self.damage, "siz": self.siz, "metres": self.metres, "doubled": self.doubled}


def knockback(
    damage: int, siz: int, *, charge: bool = False, mount_siz: int | None = None, riding_success: bool = False
) -> Knockback:
    """Damage before armour > SIZ → 1 m + 1 m per full 5 above; ×2 by a charge."""
    size = siz + ((mount_siz or 0) if riding_success else 0)
    metres = 0 if damage <= size else 1 + (damage - size) // 5
    if charge:
        metres *= 2
    return Knockback(damage, size, metres, charge and metres > 0)


# --- hit location (a reading: the seed prints no table, data/ogl_hit_location.json) -------------


@dataclass(frozen=True, slots=True)
class HitLocation:
    """The location a d20 reads on the bands of ``ogl_hit_location`` (``roll`` typed or rolled)."""

    roll: int
    location: str

    def to_dict(self) -> dict[str, Any]:
        return {"roll": self.roll, "location": self.location}


def roll_hit_location(
    bands: Sequence[Mapping[str, Any]], *, rng: RandomSource | None = None, roll: int | None = None
) -> HitLocation:
    """The band of the d20 (``roll`` typed by hand, else from ``rng``); a d20 no band covers is a
    the nearest band (the shipped table covers 1-20, a server's must too: checked at upload)."""
    value = d(20, rng, roll)
    band = band_for(bands, value, lambda b: (int(b["min"]), int(b["max"])))
    return HitLocation(value, str(band["location"]))


# --- location wounds -----------------------------------------------------------------------------


class Level(StrEnum):
    NONE = "none"
    MINOR = "minor"
    SERIOUS = "serious"
    MAJOR = "major"


class MajorThreshold(StrEnum):
    BELOW = "below"  # seed: strictly below −(location HP)
    AT_MOST = "at_most"  # RULES.md: ≤ −(location HP)


LIMBS = frozenset({"arm", "leg"})
VITALS = frozenset({"abdomen", "chest", "head"})


def wound_level(hp_after: int, hp_max: int, threshold: MajorThreshold = MajorThreshold.BELOW) -> Level:
    if hp_after > 0:
        return Level.NONE
    major = hp_after < -hp_max if threshold is MajorThreshold.BELOW else hp_after <= -hp_max
    if major:
        return Level.MAJOR
    return Level.SERIOUS if hp_after <= -1 else Level.MINOR


@dataclass(frozen=True, slots=True)
class LocationWound:
    location: str
    kind: str  # arm, leg, abdomen, chest, head
    terms: tuple[Term, ...]
    damage: int
    hp_max: int
    hp_before: int
    hp_after: int
    level: Level
    lost_actions: DiceRoll | None
    conditions: tuple[Condition, ...]
    endurance_tests: tuple[str, ...]  # what each immediate test decides: "unconscious", "death"
    death_in_actions: int | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "location": self.location,
            "kind": self.kind,
            "terms": terms_dict(self.terms),
            "damage": self.damage,
            "hp_max": self.hp_max,
            "hp_before": self.hp_before,
            "hp_after": self.hp_after,
            "level": self.level.value,
            "lost_actions": self.lost_actions.to_dict() if self.lost_actions else None,
            "conditions": [c.to_dict() for c in self.conditions],
            "endurance_tests": list(self.endurance_tests),
            "death_in_actions": self.death_in_actions,
        }


def damage_location(
    location: str,
    kind: str,
    hp_max: int,
    hp_before: int,
    damage: int,
    *,
    armour: int = 0,
    ignore_armour: bool = False,
    con: int = 0,
    pou: int = 0,
    threshold: MajorThreshold = MajorThreshold.BELOW,
    rng: RandomSource | None = None,
    lost_actions_roll: int | None = None,
) -> LocationWound:
    """Armour points off the damage, the rest off the location's HP; the wound level's effects."""
    items = [_t("damage", damage)]
    if armour and not ignore_armour:
        items.append(_t("armour", -armour))
    net = max(0, total(items))
    after = hp_before - net
    level = wound_level(after, hp_max, threshold)
    source = f"{SYSTEM}.wound.{location}"
    conditions: list[Condition] = []
    tests: list[str] = []
    lost: DiceRoll | None = None
    death: int | None = None
    if level is Level.MINOR:
        lost = DiceRoll("1", (), 1)
    elif level is Level.SERIOUS:
        lost = roll_dice("1d4", rng, [] if lost_actions_roll is None else [lost_actions_roll])
        if kind in LIMBS:
            conditions.append(Condition("disabled", source, params={"limb": kind}, until="treated"))
        if kind == "leg":
            conditions.append(Condition("prone", source, until="stands_up"))
        if kind in VITALS:
            tests.append("unconscious")
            conditions.append(_endurance_each_round(source))
    elif level is Level.MAJOR:
        if kind in LIMBS:
            conditions.append(Condition("disabled", source, params={"limb": kind, "severed_or_maimed": True}))
            conditions.append(Condition("prone", source, until="stands_up"))
            tests.append("unconscious")
            conditions.append(_endurance_each_round(source))
            death = con + pou
        else:
            tests.extend(("death", "unconscious"))
            death = (con + pou) // 2
        conditions.append(
            Condition("death_timer", source, remaining=death, unit=ACTION_UNIT, params={"unless": "treated"})
        )
    if lost is not None and lost.total:
        conditions.insert(0, Condition("lose_combat_actions", source, remaining=lost.total, unit=ACTION_UNIT))
    return LocationWound(
        location,
        kind,
        tuple(items),
        net,
        hp_max,
        hp_before,
        after,
        level,
        lost,
        tuple(conditions),
        tuple(tests),
        death,
    )


def _endurance_each_round(source: str) -> Condition:
    return Condition(
        "endurance_test", source, until="treated", params={"on_failure": "unconscious", "every": "round"}
    )


def endurance_test(
    endurance: int, *, rng: RandomSource | None = None, roll: int | None = None
) -> CheckResult:
    return ogl_checks.check(endurance, rng=rng, roll=roll, base_label="combat.ogl.endurance")


# --- lost or unusable limbs (lines 33-35) ---------------------------------------------------------

ARM_LOCATIONS = ("bras_d", "bras_g")  # reading: the first weapon in the right hand, the second left
LEG_LOCATIONS = ("jambe_d", "jambe_g")


def disabled_locations(conditions: Iterable[Condition]) -> frozenset[str]:
    """The locations whose limb is unusable (a serious or major wound's ``disabled`` condition)."""
    prefix = f"{SYSTEM}.wound."
    return frozenset(
        c.source.removeprefix(prefix)
        for c in conditions
        if c.kind == "disabled" and c.source.startswith(prefix)
    )


def limb_modifiers(locations: Iterable[str], test: str) -> tuple[Modifier, ...]:
    """``test``: "weapon" (an attack or a parry with a weapon skill) or "dodge". Line 34, one leg:
    « un malus de -10% à toute compétence qui exige des déplacements telle qu'Athlétisme, Discrétion,
    Esquive et toutes les Compétences d'Arme »; line 35, two legs: « certaines n'ont qu'un malus de
    -30%, comme la Discrétion ou l'Esquive »; line 33, two arms: « Athlétisme ou Esquive, qui
    souffrent d'un malus de -30% ». Readings: with two legs the weapon skills keep the one-leg −10 %;
    the worst malus applies to a test, not their sum."""
    where = set(locations)
    legs = sum(1 for x in LEG_LOCATIONS if x in where)
    arms = sum(1 for x in ARM_LOCATIONS if x in where)
    candidates: list[tuple[str, int]] = []
    if legs == 1 or (legs == 2 and test == "weapon"):
        candidates.append(("one_leg", -10))
    if legs == 2 and test == "dodge":
        candidates.append(("two_legs", -30))
    if arms == 2 and test == "dodge":
        candidates.append(("two_arms", -30))
    if not candidates:
        return ()
    key, value = min(candidates, key=lambda kv: kv[1])
    return (_t(f"limb.{key}", value),)


# Outside fights (issue 20, item 21): the skills lines 33-35 name, by the limbs they need
MOVING_SKILLS = frozenset({"athletisme", "discretion", "esquive"})  # l. 34: one leg, −10 %
TWO_LEG_SKILLS = frozenset({"discretion", "esquive"})  # l. 35: two legs, −30 %
TWO_HAND_SKILLS = frozenset({"canotage", "athletisme"})  # l. 33: one arm, −20 % (« ramer », « nager »)
TWO_ARM_SKILLS = frozenset({"athletisme", "esquive"})  # l. 33: two arms, −30 %


def skill_limb_malus(locations: Iterable[str], skill: str) -> tuple[str, int] | None:
    """The malus a useless limb gives a skill test outside a fight (the seed's words: one arm −20 %
    « au test des compétences impliquant l'utilisation de deux bras ou deux mains comme Canotage
    pour ramer ou Athlétisme pour nager »; two arms « Athlétisme ou Esquive […] −30 % »; one leg
    −10 % to « Athlétisme, Discrétion, Esquive »; two legs −30 % to « la Discrétion ou l'Esquive »).
    ``skill``: folded, without accents. Readings: only the skills the seed names; the worst malus
    applies, not their sum; two arms make « la plupart des compétences basées sur FOR ou DEX »
    impossible — which ones is the GM's call, the bot does not refuse them."""
    where = set(locations)
    legs = sum(1 for x in LEG_LOCATIONS if x in where)
    arms = sum(1 for x in ARM_LOCATIONS if x in where)
    candidates: list[tuple[str, int]] = []
    if legs and skill in MOVING_SKILLS:
        candidates.append(("one_leg", -10))
    if legs == 2 and skill in TWO_LEG_SKILLS:
        candidates.append(("two_legs", -30))
    if arms == 1 and skill in TWO_HAND_SKILLS:
        candidates.append(("one_arm", -20))
    if arms == 2 and skill in TWO_ARM_SKILLS:
        candidates.append(("two_arms", -30))
    return min(candidates, key=lambda kv: kv[1]) if candidates else None


def arm_refusal(
    locations: Iterable[str], arm_index: int, *, two_handed: bool, natural: bool
) -> Refusal | None:
    """Line 33: a useless arm « lâche tout ce qu'il tient dans la main » and forbids two-handed
    weapons; with two « le personnage ne peut plus utiliser d'arme » (natural weapons aside, reading)."""
    where = set(locations)
    arms = [x for x in ARM_LOCATIONS if x in where]
    if natural:
        return None
    if len(arms) == 2:
        return Refusal("combat.ogl.refusal.no_arm_left")
    if arms and two_handed:
        return Refusal("combat.ogl.refusal.two_handed_one_arm")
    if arm_index < len(ARM_LOCATIONS) and ARM_LOCATIONS[arm_index] in where:
        return Refusal("combat.ogl.refusal.weapon_dropped")
    return None


def acrobatics_test(
    acrobatics: int, *, rng: RandomSource | None = None, roll: int | None = None
) -> CheckResult:
    """Line 35: « Un personnage qui subit un Recul doit réussir un test d'Acrobatie pour ne pas se
    retrouver à terre. »"""
    return ogl_checks.check(acrobatics, rng=rng, roll=roll, base_label="combat.ogl.acrobatics")


@dataclass(frozen=True, slots=True)
class WallImpact:
    """A knockback against a wall: the Esquive test, and on a failure the 1d4 and where it lands."""

    check: CheckResult
    damage: int | None
    location: HitLocation | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "check": self.check.to_dict(),
            "damage": self.damage,
            "location": self.location.to_dict() if self.location else None,
        }


def wall_impact(
    dodge: int,
    bands: Sequence[Mapping[str, Any]],
    *,
    rng: RandomSource | None = None,
    roll: int | None = None,
    damage_die: int | None = None,
    location_roll: int | None = None,
) -> WallImpact:
    """Line 35: « Si un personnage est projeté contre un mur ou autre objet solide, il doit effectuer
    un test d'Esquive ou perdre 1d4 points de dégâts localisés aléatoirement » — the location read on
    the hit-location bands (a reading, :func:`roll_hit_location`)."""
    check = ogl_checks.check(dodge, rng=rng, roll=roll, base_label="combat.ogl.dodge")
    if check.success:
        return WallImpact(check, None, None)
    damage = d(4, rng, damage_die)
    return WallImpact(check, damage, roll_hit_location(bands, rng=rng, roll=location_roll))


def spend_combat_action(
    conditions: Iterable[Condition],
) -> tuple[tuple[Condition, ...], tuple[Condition, ...]]:
    """One combat action passes: counters in combat actions go down; returns (kept, expired)."""
    kept: list[Condition] = []
    expired: list[Condition] = []
    for c in conditions:
        if c.unit == ACTION_UNIT and c.remaining is not None:
            left = c.remaining - 1
            (kept if left > 0 else expired).append(replace(c, remaining=max(0, left)))
        else:
            kept.append(c)
    return tuple(kept), tuple(expired)


def location_hp(combatant: Combatant, location: str) -> int:
    """Current HP of a location: the sheet's ``HP.<location>`` minus the damage recorded."""
    pool = f"HP.{location}"
    return int(combatant.characteristics.get(pool, 0)) - pool_loss(combatant, SYSTEM, pool)


def record_location(combatant: Combatant, wound: LocationWound) -> Combatant:
    pool = f"HP.{wound.location}"
    marked = set_pool_loss(combatant, SYSTEM, pool, wound.hp_max - wound.hp_after)
    return replace(marked, conditions=marked.conditions + wound.conditions)


# --- fumbles -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FumbleFace:
    id: str
    status: str
    name: Mapping[str, str] | None
    effects: tuple[Mapping[str, Any], ...]

    @property
    def gm_decides(self) -> bool:
        return self.status in ("missing", "partial")

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "name": dict(self.name) if self.name else None,
            "effects": [dict(e) for e in self.effects],
            "gm_decides": self.gm_decides,
        }


@dataclass(frozen=True, slots=True)
class FumbleTables:
    faces: Mapping[str, Mapping[int, FumbleFace]]  # table -> d20 face -> entry

    @classmethod
    def from_document(cls, doc: Mapping[str, Any]) -> FumbleTables:
        faces: dict[str, dict[int, FumbleFace]] = {}
        for e in doc["entries"]:
            face = FumbleFace(e["id"], e["status"], e.get("name"), tuple(e.get("effects", ())))
            for value in range(int(e["d20_min"]), int(e["d20_max"]) + 1):
                faces.setdefault(e["fumble_table"], {})[value] = face
        return cls(faces)


@dataclass(frozen=True, slots=True)
class Fumble:
    table: str
    rolls: tuple[int, ...]
    faces: tuple[FumbleFace, ...]
    capped: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "rolls": list(self.rolls),
            "faces": [f.to_dict() for f in self.faces],
            "capped": self.capped,
        }


def roll_fumble(
    tables: FumbleTables, table: str = "weapon", *, rng: RandomSource | None = None, rolls: Sequence[int] = ()
) -> Fumble:
    """1d20 on the table; "roll again N times" adds N rolls (chains stop at 10 rolls)."""
    faces = tables.faces[table]
    feed = list(rolls)
    pending = 1
    done: list[int] = []
    out: list[FumbleFace] = []
    while pending and len(done) < ROLL_AGAIN_CAP:
        pending -= 1
        value = d(20, rng, feed.pop(0) if feed else None)
        face = faces[value]
        done.append(value)
        out.append(face)
        pending += sum(int(e.get("times", 0)) for e in face.effects if e.get("kind") == "roll_again")
    return Fumble(table, tuple(done), tuple(out), pending > 0)


# --- two weapons, mounted, grapple ---------------------------------------------------------------


def choose_off_hand(ledger: ReactionLedger, use: str) -> ReactionLedger | Refusal:
    """The off-hand weapon or shield: one extra parry ("parry") or one extra melee attack ("attack")."""
    if use not in ("parry", "attack"):
        raise ValueError(use)
    if ledger.off_hand is not None:
        return Refusal("combat.ogl.refusal.off_hand_used")
    return replace(ledger, off_hand=use)


def mounted_modifiers(*, rider: bool, opponent_on_foot: bool, reaction: bool = False) -> tuple[Modifier, ...]:
    """Rider vs adjacent foe on foot: +20 % attacks and parries; on foot vs rider: −20 % reactions."""
    if rider and opponent_on_foot:
        return (_t("rider_vs_foot", 20),)
    if not rider and not opponent_on_foot and reaction:
        return (_t("foot_vs_rider", -20),)
    return ()


def two_handed_allowed(*, mounted: bool, arm_unusable: bool = False) -> bool:
    return not mounted and not arm_unusable


def immobilise_modifier(opponent_dex: int, opponent_str: int) -> Modifier:
    return _t("grapple_immobilise", -(opponent_dex + opponent_str))


def escape_modifier(opponent_str: int, opponent_siz: int) -> Modifier:
    return _t("grapple_escape", -(opponent_str + opponent_siz))


def grapple_throw(*, rng: RandomSource | None = None, die: int | None = None) -> tuple[int, int]:
    """A throw: 2 m and 1d6 damage at a random location; the grapple ends."""
    return 2, d(6, rng, die)


# --- hero points ---------------------------------------------------------------------------------


class HeroUse(StrEnum):
    SECOND_CHANCE = "seconde_chance"
    GRAZE = "eraflure"
    HEROS_LUCK = "chance_du_heros"


@dataclass(frozen=True, slots=True)
class HeroSpend:
    use: HeroUse
    points_before: int
    points_after: int
    detail: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {
            "use": self.use.value,
            "points_before": self.points_before,
            "points_after": self.points_after,
            "detail": dict(self.detail),
        }


def spend_hero_point(
    points: int, use: HeroUse, *, wound: LocationWound | None = None, gm_approved: bool = False
) -> HeroSpend | Refusal:
    """Second chance (the caller rerolls), graze (a major wound's damage cut to end at −HP), hero's luck."""
    if points < 1:
        return Refusal("combat.ogl.refusal.no_hero_point")
    detail: dict[str, Any] = {}
    if use is HeroUse.GRAZE:
        if wound is None or wound.level is not Level.MAJOR:
            return Refusal("combat.ogl.refusal.graze_needs_major_wound")
        damage = wound.hp_before + wound.hp_max
        detail = {"damage_before": wound.damage, "damage_after": damage, "hp_after": -wound.hp_max}
    elif use is HeroUse.HEROS_LUCK and not gm_approved:
        return Refusal("combat.ogl.refusal.needs_gm_approval")
    return HeroSpend(use, points, points - 1, detail)
