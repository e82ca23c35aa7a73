"""A small immutable fight state and its pure transitions (serialisable with ``to_dict``/``from_dict``).

Action economy (seed III – Combat, combat_actions.json): A combat actions per round, one of each
kind except attacks; one free action of each kind; a second weapon adds one A usable only to attack,
feint or parry. Readings: a lost half-round costs ⌈A/2⌉ A of that round; a lost round, "aucune
action possible" and being stunned forbid every action except parrying/dodging (the critical note
"Aucune action possible n'empêche pas les parades/esquives") and force the normal posture; the dead
and the unconscious do nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final

from bot.rules.combat.basics import Refusal, RefusedError
from bot.rules.combat.effects import (
    Condition,
    EffectApplication,
    TickResult,
    current,
    merge_conditions,
    tick,
)
from bot.rules.combat.initiative import InitiativeResult, Slot, order_slots
from bot.rules.combat.tables import CombatTables
from bot.rules.names import DEFAULT_GENDER, Name
from bot.rules.renove.attack import combat_ws_pair
from bot.rules.renove.damage import ArmourLayer

SECOND_WEAPON_USES = frozenset({"attaquer", "feinter", "preparer_parade", "parade_reactive"})
DEFENCES = frozenset({"parade_reactive", "esquiver"})


@dataclass(frozen=True, slots=True)
class RoundActions:
    used: int = 0  # A spent from the profile's A
    second_weapon_used: bool = False
    attacks_made: int = 0
    kinds_used: tuple[str, ...] = ()
    parry_prepared: bool = False
    parried: bool = False
    charged: bool = False
    debt: int = 0  # A owed to the next round (reactive parry)
    cast: int = 0  # halves of the round spent casting spells (bot.rules.renove.magic)

    def to_dict(self) -> dict[str, Any]:
        """``used`` and what is not at its default (every fighter carries it: the document stays
        small; :meth:`from_dict` reads a missing field as its default)."""
        out: dict[str, Any] = {"used": self.used}
        for key in (
            "second_weapon_used",
            "attacks_made",
            "parry_prepared",
            "parried",
            "charged",
            "debt",
            "cast",
        ):
            value = getattr(self, key)
            if value:
                out[key] = value
        if self.kinds_used:
            out["kinds_used"] = list(self.kinds_used)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RoundActions:
        return cls(
            used=int(data.get("used", 0)),
            second_weapon_used=bool(data.get("second_weapon_used", False)),
            attacks_made=int(data.get("attacks_made", 0)),
            kinds_used=tuple(data.get("kinds_used", ())),
            parry_prepared=bool(data.get("parry_prepared", False)),
            parried=bool(data.get("parried", False)),
            charged=bool(data.get("charged", False)),
            debt=int(data.get("debt", 0)),
            cast=int(data.get("cast", 0)),
        )


@dataclass(frozen=True, slots=True)
class Combatant:
    id: str
    name: str
    characteristics: Mapping[str, int]
    weapons: tuple[str, ...] = ()
    off_hand: str | None = None
    armour: Mapping[str, tuple[ArmourLayer, ...]] = field(default_factory=dict)
    shield_pv: int | None = None
    talents: frozenset[str] = frozenset()
    skills: frozenset[str] = frozenset()
    posture: str = "normale"
    posture_option: str | None = None
    conditions: tuple[Condition, ...] = ()
    actions: RoundActions = RoundActions()
    npc: bool = False
    # The fighter's side: None = the default one (PJ for characters, PNJ for NPCs); otherwise the
    # name the GM gave (« Bandits », « Garde »). Fighters of one side are allies.
    side: str | None = None

    @property
    def camp(self) -> str:
        """The side as compared: the GM's name folded to lower case, or ``pj`` / ``pnj``."""
        if self.side:
            return " ".join(self.side.lower().split())
        return "pnj" if self.npc else "pj"

    def allied_with(self, other: Combatant) -> bool:
        return self.camp == other.camp

    def stat(self, code: str) -> int:
        """Current value: base + condition modifiers (halved when a halving applies)."""
        return current(code, int(self.characteristics.get(code, 0)), self.conditions)

    def current_characteristics(self) -> dict[str, int]:
        return {code: self.stat(code) for code in self.characteristics}

    def with_conditions(self, *conditions: Condition) -> Combatant:
        """This fighter with ``conditions`` added; a state he is already in is not added twice
        (:func:`~bot.rules.combat.effects.merge_conditions`: the longest duration is kept)."""
        return replace(self, conditions=merge_conditions(self.conditions, conditions))

    def has(self, *kinds: str) -> bool:
        return any(c.kind in kinds for c in self.conditions)

    @property
    def attacks(self) -> int:
        return max(0, self.stat("A")) if "A" in self.characteristics else 1

    def lost_attacks(self) -> int:
        half = sum(
            c.remaining or 0 for c in self.conditions if c.kind == "lose_time" and c.unit == "half_round"
        )
        return min(self.attacks, half * -(-self.attacks // 2))

    def attacks_left(self) -> int:
        return max(0, self.attacks - self.lost_attacks() - self.actions.used)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "characteristics": dict(self.characteristics),
            "weapons": list(self.weapons),
            # unset fields are left out (#25: the document's size is bounded by its fighters)
            **({"off_hand": self.off_hand} if self.off_hand is not None else {}),
            "armour": {zone: [layer.to_dict() for layer in layers] for zone, layers in self.armour.items()},
            **({"shield_pv": self.shield_pv} if self.shield_pv is not None else {}),
            **({"talents": sorted(self.talents)} if self.talents else {}),
            **({"skills": sorted(self.skills)} if self.skills else {}),
            "posture": self.posture,
            **({"posture_option": self.posture_option} if self.posture_option else {}),
            "conditions": [c.to_dict() for c in self.conditions],
            "actions": self.actions.to_dict(),
            **({"npc": True} if self.npc else {}),
            **({"side": self.side} if self.side else {}),
            # The grammatical gender travels with the name (``Name``): only a feminine one is written.
            **({"gender": "f"} if getattr(self.name, "gender", DEFAULT_GENDER) == "f" else {}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Combatant:
        return cls(
            id=str(data["id"]),
            name=Name(str(data["name"]), data.get("gender")),
            characteristics={str(k): int(v) for k, v in data["characteristics"].items()},
            weapons=tuple(data.get("weapons", ())),
            off_hand=data.get("off_hand"),
            armour={
                zone: tuple(ArmourLayer.from_dict(x) for x in layers)
                for zone, layers in (data.get("armour") or {}).items()
            },
            shield_pv=data.get("shield_pv"),
            talents=frozenset(data.get("talents", ())),
            skills=frozenset(data.get("skills", ())),
            posture=str(data.get("posture", "normale")),
            posture_option=data.get("posture_option"),
            conditions=tuple(Condition.from_dict(c) for c in data.get("conditions", ())),
            actions=RoundActions.from_dict(data.get("actions") or {}),
            npc=bool(data.get("npc", False)),
            side=data.get("side") or None,
        )


def can_act(tables: CombatTables, combatant: Combatant, action: str) -> Refusal | None:
    """Whether ``combatant`` may take ``action`` (combat_actions.json id) now; the reason if not."""
    spec = tables.actions.get(action)
    if spec is None:
        return Refusal("combat.refusal.unknown_action", (("action", action),))
    if combatant.has("dead"):
        return Refusal("combat.refusal.dead")
    if combatant.has("unconscious"):
        return Refusal("combat.refusal.unconscious")
    lost_round = any(c.kind == "lose_time" and c.unit == "round" for c in combatant.conditions)
    if action not in DEFENCES:
        if combatant.has("no_action", "stunned"):
            return Refusal("combat.refusal.no_action")
        if lost_round:
            return Refusal("combat.refusal.lost_round")
    if combatant.has("captured") and action not in DEFENCES and action != "se_liberer":
        return Refusal("combat.refusal.captured")
    acts = combatant.actions
    if acts.charged and spec.category != "free":
        return Refusal("combat.refusal.charged")
    if spec.category in ("combat", "reaction", "free") and action != "charger":
        posture = tables.postures.get(combatant.posture)
        if posture is not None and action not in posture.allowed_actions:
            return Refusal("combat.refusal.posture", (("posture", posture.id), ("action", action)))
    if spec.once_per_round and action in acts.kinds_used:
        return Refusal("combat.refusal.once_per_round", (("action", action),))
    if action == "charger":
        if acts.used or acts.second_weapon_used or combatant.lost_attacks():
            return Refusal("combat.refusal.charge_needs_all_attacks")
        return None
    second = (
        has_second_weapon(tables, combatant) and not acts.second_weapon_used and action in SECOND_WEAPON_USES
    )
    if action == "parade_reactive":
        if acts.parry_prepared or acts.parried or combatant.attacks_left() > 0 or second:
            return Refusal("combat.refusal.reactive_parry_conditions")
        return None
    if spec.cost_unit == "A" and combatant.attacks_left() < 1 and not second:
        return Refusal("combat.refusal.no_attacks_left")
    return None


def has_second_weapon(tables: CombatTables, combatant: Combatant) -> bool:
    """A second weapon held (the off hand), or a weapon with the Double attribute (seed l. 317: « comme
    si l'arme était tenue 1 fois dans chaque main ») — either gives the extra A of l. 1021."""
    return second_weapon_of(tables, combatant) is not None


def second_weapon_of(tables: CombatTables, combatant: Combatant) -> str | None:
    """The weapon that gives the extra A: the off hand's, else the first Double weapon carried."""
    if combatant.off_hand is not None:
        return combatant.off_hand
    return next((w for w in combatant.weapons if _gives_extra_attack(tables, w)), None)


def _gives_extra_attack(tables: CombatTables, weapon_id: str) -> bool:
    """An attribute of the weapon with an ``extra_attack`` mechanic (Double, weapon_attributes.json)."""
    weapon = tables.weapons.get(weapon_id)
    if weapon is None:
        return False
    return any(
        a in tables.weapon_attributes and tables.weapon_attributes[a].mechanics_of("extra_attack")
        for a in weapon.attributes
    )


def second_weapon_waits(tables: CombatTables, combatant: Combatant) -> bool:
    """The turn waits for the second weapon's A (reading of l. 1021 and of the initiative, where this A
    has no slot): every A of the profile is spent, the extra one is not, and the fighter can still act
    (a charge takes every A)."""
    acts = combatant.actions
    if acts.second_weapon_used or acts.charged or not has_second_weapon(tables, combatant):
        return False
    if combatant.has("dead", "unconscious", "no_action", "stunned"):
        return False
    return combatant.attacks_left() == 0


def take_action(tables: CombatTables, combatant: Combatant, action: str) -> Combatant:
    """Spend what ``action`` costs (raises :class:`RefusedError` when :func:`can_act` refuses)."""
    refusal = can_act(tables, combatant, action)
    if refusal:
        raise RefusedError(refusal)
    spec = tables.actions[action]
    acts = combatant.actions
    kinds = acts.kinds_used + ((action,) if spec.once_per_round and action not in acts.kinds_used else ())
    if action == "charger":
        acts = replace(acts, used=combatant.attacks, charged=True, attacks_made=1)
        return replace(combatant, actions=replace(acts, kinds_used=kinds), posture_option=None)
    if action == "parade_reactive":
        acts = replace(acts, parried=True, debt=acts.debt + 1)
    elif spec.cost_unit == "A":
        if combatant.attacks_left() >= 1:
            acts = replace(acts, used=acts.used + 1)
        else:
            acts = replace(acts, second_weapon_used=True)
        if action == "attaquer" or action == "action_speciale":
            acts = replace(acts, attacks_made=acts.attacks_made + 1)
        if action == "preparer_parade":
            acts = replace(acts, parry_prepared=True)
    return replace(combatant, actions=replace(acts, kinds_used=kinds))


def record_parry(combatant: Combatant) -> Combatant:
    """A parry was made with the prepared parry (at most one prepared parry per round)."""
    return replace(combatant, actions=replace(combatant.actions, parried=True))


def choose_posture(
    tables: CombatTables, combatant: Combatant, posture: str, option: str | None = None
) -> Combatant:
    spec = tables.postures.get(posture)
    if spec is None:
        raise RefusedError(Refusal("combat.refusal.unknown_posture", (("posture", posture),)))
    if option is not None and option not in spec.options:
        raise RefusedError(Refusal("combat.refusal.unknown_posture_option", (("option", option),)))
    if spec.options and option is None:
        raise RefusedError(Refusal("combat.refusal.posture_option_required", (("posture", posture),)))
    if posture != "normale" and combatant.has("no_action", "stunned", "unconscious", "dead"):
        raise RefusedError(Refusal("combat.refusal.no_posture_while_no_action"))
    return replace(combatant, posture=posture, posture_option=option)


# --- the fight ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FightState:
    round: int = 0
    combatants: tuple[Combatant, ...] = ()
    order: tuple[Slot, ...] = ()
    turn: int = 0

    def get(self, combatant_id: str) -> Combatant:
        for c in self.combatants:
            if c.id == combatant_id:
                return c
        raise KeyError(combatant_id)

    def put(self, combatant: Combatant) -> FightState:
        return replace(
            self, combatants=tuple(combatant if c.id == combatant.id else c for c in self.combatants)
        )

    @property
    def current_slot(self) -> Slot | None:
        return self.order[self.turn] if 0 <= self.turn < len(self.order) else None

    def combat_ws(self, a: str, b: str, tables: CombatTables) -> tuple[int, int]:
        """Both fighters' combat WS against each other from their *current* CC."""
        return combat_ws_pair(self.get(a).stat("CC"), self.get(b).stat("CC"), tables.ws_constant)

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "combatants": [c.to_dict() for c in self.combatants],
            "order": [s.to_dict() for s in self.order],
            "turn": self.turn,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FightState:
        return cls(
            round=int(data.get("round", 0)),
            combatants=tuple(Combatant.from_dict(c) for c in data.get("combatants", ())),
            order=tuple(Slot.from_dict(s) for s in data.get("order", ())),
            turn=int(data.get("turn", 0)),
        )


ACTS_LAST: Final = "acts_last"  # « Les actions se feront en dernier ce round et le suivant »


def put_last(order: tuple[Slot, ...], turn: int, late: set[str]) -> tuple[Slot, ...]:
    """The slots after ``turn`` of the fighters in ``late`` moved to the end, in their own order
    (the others keep theirs): head criticals 1-2 « Les actions se feront en dernier »."""
    done, rest = order[: turn + 1], order[turn + 1 :]
    return (
        done
        + tuple(s for s in rest if s.combatant not in late)
        + tuple(s for s in rest if s.combatant in late)
    )


def start_round(state: FightState, initiative: Iterable[InitiativeResult]) -> FightState:
    """Next round: new order from ``initiative``, actions reset (a reactive parry's debt is paid);
    a fighter who acts last (:data:`ACTS_LAST`) has his slots after everyone's."""
    results = list(initiative)
    combatants = tuple(
        replace(c, actions=RoundActions(used=c.actions.debt), posture_option=c.posture_option)
        for c in state.combatants
    )
    late = {c.id for c in combatants if c.has(ACTS_LAST)}
    return FightState(state.round + 1, combatants, put_last(order_slots(results), -1, late), 0)


def next_turn(state: FightState) -> FightState:
    return replace(state, turn=state.turn + 1)


def apply_effects(state: FightState, combatant_id: str, application: EffectApplication) -> FightState:
    target = state.get(combatant_id)
    return state.put(target.with_conditions(*application.conditions))


def end_round(state: FightState) -> tuple[FightState, dict[str, TickResult]]:
    """Tick every combatant's conditions; the prompts due are in the per-combatant results."""
    results: dict[str, TickResult] = {}
    new_state = state
    for c in state.combatants:
        result = tick(c.conditions, "end_of_round")
        results[c.id] = result
        new_state = new_state.put(replace(c, conditions=result.conditions))
    return new_state, results


def signal(state: FightState, combatant_id: str, event: str) -> tuple[FightState, TickResult]:
    """Send ``end_of_combat`` / ``treated`` / ``healed`` / ``stands_up`` to one combatant's conditions."""
    c = state.get(combatant_id)
    result = tick(c.conditions, event)
    return state.put(replace(c, conditions=result.conditions)), result
