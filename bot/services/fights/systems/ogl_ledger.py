"""The bookkeeping of `ogl` fights (seed 004) that needs no adapter function: the combat actions
lost, mounted fighters, the reactions ledger (the off hand's parry included), what a second chance or
a graze needs to remember, the manoeuvre bits of the tracker, and the thread's `ogl` fight the
``/manoeuvre`` use cases work on. Its data lives in the fight document (``ogl_manoeuvres``, and the
round's ``ogl``).

* Lost combat actions (a wound's "perd sa prochaine Action de Combat" / 1d4, the natural-weapon
  fumble "Hésitation"): while such a condition lasts the fighter may neither act nor react; each of
  his slots that *starts* under it is lost and, once it passes (``/combat suivant`` or the round's
  end), every counter in combat actions of his goes down by one (``rules.spend_combat_action``; the
  death counts go down on each of his slots). An immobilised fighter only escapes (a grapple).
* Mounted: +20 % to the rider's melee attacks and parries against a foe on foot, −20 % to the reactions
  of a fighter on foot against a rider, −30 % to a rider's dodge or dive (a dive unhorses him), no
  two-handed weapon in the saddle.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from bot.rules import opposed
from bot.rules.checks.common import CheckResult, Modifier, System
from bot.rules.combat.basics import Refusal, RefusedError
from bot.rules.combat.effects import Condition
from bot.rules.combat.state import Combatant
from bot.rules.ogl import checks as ogl_checks
from bot.rules.ogl import combat as rules
from bot.services.fights._core import Doc, FightOutcome, FightRefusal, Scope, fight_by_id, fight_here, outcome
from bot.services.fights.kit import RANGED_KINDS, check_line, set_dead
from bot.ui.reply import Colour, Reply

NS: Final = "ogl_manoeuvres"
LOST: Final = "lose_combat_actions"


def manoeuvre_data(doc: Doc) -> dict[str, Any]:
    value: dict[str, Any] = doc.data.setdefault(NS, {})
    return value


def round_data(doc: Doc) -> dict[str, Any]:
    value: dict[str, Any] = doc.data.setdefault("ogl", {})
    return value


# --- lost combat actions -------------------------------------------------------------------------


def lost_actions(c: Combatant) -> int:
    return max((int(x.remaining or 0) for x in c.conditions if x.kind == LOST), default=0)


def immobilised(doc: Doc, cid: str) -> bool:
    return any(
        g["target"] == cid and g.get("immobilised") for g in manoeuvre_data(doc).get("grapples", {}).values()
    )


def require_free(scope: Scope, doc: Doc, c: Combatant, *, reacting: bool = False) -> None:
    """No action nor reaction while combat actions are lost; an immobilised fighter only escapes."""
    left = lost_actions(c)
    if left:
        raise FightRefusal("manoeuvre.refusal.lost_actions", name=c.name, remaining=left)
    if not reacting and immobilised(doc, c.id):
        raise FightRefusal("manoeuvre.refusal.immobilised", name=c.name)


def on_slot(scope: Scope, doc: Doc) -> list[str]:
    """Called by the shared machinery each time the current slot may have changed."""
    data = round_data(doc)
    notes: list[str] = []
    seen = data.get("slot")
    if seen is not None and int(seen["turn"]) != doc.state.turn:
        notes.extend(_slot_passed(scope, doc, seen))
        data["slot"] = seen = None
    slot = doc.state.current_slot
    if seen is None and slot is not None and doc.state.round and not doc.data.get("round_over"):
        c = doc.state.get(slot.combatant)
        left = lost_actions(c)
        data["slot"] = {"turn": doc.state.turn, "cid": c.id, "blocked": bool(left), "used": c.actions.used}
        if left:
            notes.append(scope.t("manoeuvre.lost.slot", name=c.name, remaining=left))
    return notes


def close_slot(scope: Scope, doc: Doc) -> list[str]:
    """A new round while a slot is current: that slot has passed."""
    seen = round_data(doc).get("slot")
    round_data(doc)["slot"] = None
    return _slot_passed(scope, doc, seen) if seen else []


def _slot_passed(scope: Scope, doc: Doc, seen: Mapping[str, Any]) -> list[str]:
    try:
        c = doc.state.get(str(seen["cid"]))
    except KeyError:
        return []
    # a slot is lost when it started under the condition, or the fighter lost it before acting
    blocked = bool(seen.get("blocked")) or (
        bool(lost_actions(c)) and c.actions.used <= int(seen.get("used", c.actions.used))
    )
    if blocked:
        kept, expired = rules.spend_combat_action(c.conditions)
    else:  # not a lost slot: only the other counters (death counts) go down
        others = [x for x in c.conditions if x.kind != LOST]
        kept_others, expired = rules.spend_combat_action(others)
        kept = tuple(x for x in c.conditions if x.kind == LOST) + kept_others
    doc.state = doc.state.put(replace(c, conditions=kept))
    notes = []
    for x in expired:
        if x.kind == "death_timer":
            set_dead(doc, c.id, "ogl.death_timer")
            notes.append(scope.t("combat.round.death_timer", name=c.name))
        elif x.kind == LOST:
            notes.append(scope.t("manoeuvre.lost.over", name=c.name))
    left = lost_actions(doc.state.get(c.id))
    if blocked and left:
        notes.append(scope.t("manoeuvre.lost.counted", name=c.name, remaining=left))
    return notes


def fumble_losses(scope: Scope, doc: Doc, cid: str, fumble: Mapping[str, Any]) -> list[str]:
    """A fumble face that loses combat actions (natural weapons 1-3 "Hésitation") is applied."""
    count = sum(
        int(e.get("count", 1)) for f in fumble["faces"] for e in f["effects"] if e.get("kind") == LOST
    )
    if not count:
        return []
    c = doc.state.get(cid)
    lost = Condition(LOST, "ogl.fumble", remaining=count, unit=rules.ACTION_UNIT)
    doc.state = doc.state.put(replace(c, conditions=(*c.conditions, lost)))
    return ["• " + scope.words.condition(lost)]


# --- mounted combat and reactions ---------------------------------------------------------------


def mounted(doc: Doc, cid: str) -> bool:
    return bool(manoeuvre_data(doc).get("mounted", {}).get(cid))


def attack_modifiers(doc: Doc, c: Combatant, foe: Combatant, arm: Mapping[str, Any]) -> list[Modifier]:
    rider = mounted(doc, c.id)
    if rider and "two_handed" in (arm.get("flags") or []):
        raise FightRefusal("manoeuvre.refusal.two_handed_mounted", name=c.name, weapon=str(arm["name"]))
    if arm["kind"] in RANGED_KINDS:
        return []
    return list(rules.mounted_modifiers(rider=rider, opponent_on_foot=not mounted(doc, foe.id)))


def defence_modifiers(
    doc: Doc, defender: Combatant, attacker: Combatant, reaction: rules.Reaction, *, ranged: bool
) -> list[Modifier]:
    rider = mounted(doc, defender.id)
    items = list(rules.reaction_modifiers(reaction, rules.Situation(mounted=rider)))
    if ranged:
        return items
    foe_on_foot = not mounted(doc, attacker.id)
    if rider and foe_on_foot and reaction is rules.Reaction.PARRY:
        items.extend(rules.mounted_modifiers(rider=True, opponent_on_foot=True))
    elif not rider and not foe_on_foot:
        items.extend(rules.mounted_modifiers(rider=False, opponent_on_foot=False, reaction=True))
    return items


def after_reaction(scope: Scope, doc: Doc, defender: Combatant, reaction: rules.Reaction) -> list[str]:
    """A rider who dives ends off his mount whatever the result."""
    if reaction is rules.Reaction.DIVE and mounted(doc, defender.id):
        manoeuvre_data(doc).setdefault("mounted", {}).pop(defender.id, None)
        return [scope.t("manoeuvre.mount.unhorsed", name=defender.name)]
    return []


def reactions(doc: Doc, c: Combatant) -> rules.ReactionLedger:
    raw = (
        round_data(doc).setdefault("reactions", {}).get(c.id)
        or rules.ReactionLedger(max(1, c.attacks)).to_dict()
    )
    return rules.ReactionLedger(
        int(raw["combat_actions"]), int(raw["used"]), tuple(raw["events"]), raw.get("off_hand")
    )


def take_reaction(
    scope: Scope,
    doc: Doc,
    defender: Combatant,
    reaction: rules.Reaction,
    trigger: rules.Trigger,
    event: str,
    attack_rank: int,
    *,
    nowhere_to_dive: bool = False,
    dry: bool = False,
) -> bool:
    """Spend a reaction (or the declared off-hand parry beyond the limit); True when off-hand.
    ``dry``: only whether it may be taken (refused as it would be), nothing spent."""
    if defender.has("unconscious", "dead"):  # Hors de Combat: checked before the actions lost
        raise RefusedError(Refusal("combat.ogl.refusal.out_of_combat"))
    require_free(scope, doc, defender, reacting=True)
    data = round_data(doc)
    ledger = reactions(doc, defender)
    situation = rules.Situation(
        out_of_combat=defender.has("unconscious", "dead"),
        prone=defender.has("prone"),
        mounted=mounted(doc, defender.id),
        nowhere_to_dive=nowhere_to_dive,
        surprised_rank=(data.get("surprised") or {}).get(defender.id),
        attack_rank=attack_rank,
    )
    refusal = rules.can_react(ledger, reaction, trigger, event, situation)
    off_hand = False
    if (
        refusal is not None
        and refusal.reason == "combat.ogl.refusal.no_reaction_left"
        and (data.get("off_hand") or {}).get(defender.id) == "parry"
    ):
        refusal = rules.can_react(ledger, reaction, trigger, event, situation, off_hand_parry=True)
        off_hand = refusal is None
    if refusal is not None:
        raise RefusedError(refusal)
    if dry:
        return off_hand
    data["reactions"][defender.id] = rules.record_reaction(ledger, event, off_hand_parry=off_hand).to_dict()
    return off_hand


def _melee_arms(doc: Doc, cid: str) -> list[dict[str, Any]]:
    return [a for a in doc.meta.get(cid, {}).get("arms") or [] if a["kind"] not in RANGED_KINDS]


def off_hand_score(doc: Doc, c: Combatant) -> int:
    """The off-hand parry uses the second weapon's (or the shield's) parry, else its skill."""
    arms = _melee_arms(doc, c.id)
    arm = arms[1] if len(arms) > 1 else arms[0]
    value = arm.get("parry") if arm.get("parry") is not None else arm.get("score")
    if value is None:
        raise FightRefusal("combat.sys.error.no_defence_score", name=c.name, what=str(arm["name"]))
    return int(value)


# --- combat actions: aim, En Défense, Nuée de Coups, Attendre (seed lines 5-6) --------------------


def aim(scope: Scope, doc: Doc, c: Combatant, foe: Combatant | None) -> list[str]:
    """Line 5: each action spent aiming: +10 % to the ranged weapon, up to +30 %, on the first attack
    against the target aimed at. Aiming at another target starts again."""
    ranged = [a for a in doc.meta.get(c.id, {}).get("arms") or [] if a["kind"] in RANGED_KINDS]
    if not ranged:
        raise FightRefusal("combat.ogl.error.aim_needs_ranged", name=c.name)
    store = manoeuvre_data(doc).setdefault("aim", {})
    current = store.get(c.id) or {}
    target = foe.id if foe is not None else None
    actions = int(current.get("actions", 0)) + 1 if current.get("target") == target else 1
    store[c.id] = {"target": target, "actions": actions}
    bonus = rules.aim_bonus(actions).value
    key = "combat.ogl.aiming.at" if foe is not None else "combat.ogl.aiming.any"
    return [scope.t(key, name=c.name, target=foe.name if foe else "", actions=actions, bonus=bonus)]


def take_aim(doc: Doc, cid: str, target: str) -> int:
    """The actions spent aiming that count for a ranged attack on ``target`` (0: none)."""
    current = manoeuvre_data(doc).get("aim", {}).get(cid) or {}
    if current.get("target") not in (None, target):
        return 0
    return int(current.get("actions", 0))


def drop_aim(doc: Doc, cid: str) -> None:
    manoeuvre_data(doc).get("aim", {}).pop(cid, None)


def require_not_aiming(doc: Doc, c: Combatant) -> None:
    """Line 5: « Un personnage ne peut accomplir aucune Action de Combat ou de Réaction pendant qu'il
    vise. »"""
    if manoeuvre_data(doc).get("aim", {}).get(c.id):
        raise FightRefusal("combat.ogl.refusal.aiming", name=c.name)


def go_defensive(scope: Scope, doc: Doc, c: Combatant) -> list[str]:
    manoeuvre_data(doc).setdefault("defensive", {})[c.id] = True
    return [scope.t("combat.ogl.defensive.on", name=c.name, bonus=rules.DEFENSIVE_BONUS)]


def end_defensive(scope: Scope, doc: Doc, c: Combatant) -> list[str]:
    """Line 6: En Défense lasts « jusqu'au début de sa prochaine action de Combat »: it ends when he
    acts again (reading: when he takes his next combat action, not when his slot comes — a reaction
    to an attack declared just before his slot still has it)."""
    if manoeuvre_data(doc).get("defensive", {}).pop(c.id, None):
        return [scope.t("combat.ogl.defensive.over", name=c.name)]
    return []


def stance_modifiers(doc: Doc, c: Combatant, reaction: rules.Reaction) -> list[Modifier]:
    """En Défense: +20 % to Esquive and Parade (line 6)."""
    if reaction in (rules.Reaction.DODGE, rules.Reaction.PARRY) and manoeuvre_data(doc).get(
        "defensive", {}
    ).get(c.id):
        return list(rules.situational(["en_defense"], side=rules.Side.DEFENCE, reaction=reaction))
    return []


def in_flurry(doc: Doc, cid: str) -> bool:
    return cid in (round_data(doc).get("flurry") or ())


def start_flurry(scope: Scope, doc: Doc, c: Combatant) -> list[str]:
    """Line 6: Nuée de Coups — « toutes ses Actions de Combat en un seul coup, avec un malus de -20% ».
    Reading: his combat actions left this round are his next slots, at once (each blow at −20 %)."""
    data = round_data(doc)
    if c.id in (data.get("flurry") or ()):
        return []
    data.setdefault("flurry", []).append(c.id)
    state = doc.state
    order = list(state.order)
    here = state.turn + 1
    later = [s for s in order[here:] if s.combatant == c.id]
    rest = [s for s in order[here:] if s.combatant != c.id]
    doc.state = replace(state, order=(*order[:here], *later, *rest))
    return [scope.t("combat.ogl.flurry_line", name=c.name, n=len(later))] if later else []


def wait_for(scope: Scope, doc: Doc, c: Combatant, foe: Combatant) -> list[str]:
    """Line 5: Attendre — « il attend jusqu'à ce que ce personnage ait fini son Action de Combat. Le
    Rang d'Action du personnage est alors modifié ». His current slot moves right after ``foe``'s
    next slot this round (refused when ``foe`` has none left)."""
    state = doc.state
    slot = state.current_slot
    if slot is None or slot.combatant != c.id or doc.data.get("slot_done"):
        raise FightRefusal("combat.error.not_your_turn", name=c.name)
    order = list(state.order)
    later = [i for i in range(state.turn + 1, len(order)) if order[i].combatant == foe.id]
    if not later:
        raise FightRefusal("combat.ogl.error.wait_no_slot", name=foe.name)
    mine = order.pop(state.turn)
    after = later[0]  # one place earlier now that his slot is out
    order.insert(after, replace(mine, value=order[after - 1].value))
    doc.state = replace(state, order=tuple(order))
    round_data(doc)["slot"] = None  # his slot has moved, not passed: the new current slot starts
    return [scope.t("combat.ogl.wait", name=c.name, other=foe.name)]


def interrupt(
    scope: Scope,
    doc: Doc,
    c: Combatant,
    foe: Combatant,
    score: int,
    foe_score: int,
    roll: int | None,
    foe_roll: int | None,
) -> list[str]:
    """Line 5: « Si un personnage souhaite attendre pour interrompre l'action d'un autre personnage
    pendant qu'elle se produit […] il doit réussir un test de compétence appropriée à son action
    d'interruption […] L'effet déclencheur […] peut s'opposer à cela par un Test d'Opposition […]
    Celui qui gagne le Test d'Opposition agit en premier. » ``foe``'s slot must be the current one
    and ``c`` must still have a slot this round (he waited); the winner of the opposed weapon tests
    acts first: ``c``'s next slot moves before ``foe``'s."""
    state = doc.state
    slot = state.current_slot
    if slot is None or slot.combatant != foe.id or doc.data.get("slot_done"):
        raise FightRefusal("combat.ogl.error.interrupt_not_acting", name=foe.name)
    later = [i for i in range(state.turn + 1, len(state.order)) if state.order[i].combatant == c.id]
    if not later:
        raise FightRefusal("combat.ogl.error.interrupt_no_slot", name=c.name)
    mine = ogl_checks.check(score, rng=scope.rng, roll=roll, base_label="combat.ogl.weapon")
    theirs = ogl_checks.check(foe_score, rng=scope.rng, roll=foe_roll, base_label="combat.ogl.weapon")
    verdict, _ = opposed.compare(mine, theirs, opposed.rules_for(System.OGL))
    lines = [
        scope.t("combat.ogl.interrupt.try", name=c.name, other=foe.name),
        f"{c.name} : " + check_line(scope.words, mine, " %"),
        f"{foe.name} : " + check_line(scope.words, theirs, " %"),
    ]
    if verdict is not opposed.Verdict.A:
        return [*lines, scope.t("combat.ogl.interrupt.failed", name=c.name, other=foe.name)]
    order = list(state.order)
    moved = order.pop(later[0])
    order.insert(state.turn, replace(moved, value=order[state.turn].value))
    doc.state = replace(state, order=tuple(order))
    round_data(doc)["slot"] = None  # his slot comes now: ``foe``'s has not passed, it waits
    return [*lines, scope.t("combat.ogl.interrupt.won", name=c.name, other=foe.name)]


# --- what a second chance or a graze needs to remember ------------------------------------------


def remember_exchange(
    doc: Doc,
    pending: Mapping[str, Any],
    melee: rules.OglMelee,
    *,
    defence_score: int | None,
    defence_mods: Sequence[Modifier],
    snapshot: Mapping[str, Any],
    prompts: Sequence[int],
) -> None:
    record = {
        "pending": dict(pending),
        "reaction": melee.reaction.value if melee.reaction else None,
        "defence_score": defence_score,
        "defence_mods": [m.to_dict() for m in defence_mods],
        "defence_roll": melee.defence.roll if melee.defence else None,
        "outcome": melee.outcome.value,
        "snapshot": dict(snapshot),
        "prompts": list(prompts),
    }
    last = manoeuvre_data(doc).setdefault("last", {})
    last[str(pending["attacker"])] = {"kind": "attack", **record}
    if melee.defence is not None:
        last[str(pending["defender"])] = {"kind": "defence", **record}


def remember_test(doc: Doc, cid: str, check: CheckResult, decides: str, snapshot: Mapping[str, Any]) -> None:
    manoeuvre_data(doc).setdefault("last", {})[cid] = {
        "kind": "endurance",
        "score": check.target,
        "decides": decides,
        "success": check.success,
        "snapshot": dict(snapshot),
    }


def remember_wound(doc: Doc, cid: str, wound: rules.LocationWound, prompts: Sequence[int]) -> None:
    manoeuvre_data(doc).setdefault("wounds", {})[cid] = {**wound.to_dict(), "prompts": list(prompts)}


# --- the tracker ---------------------------------------------------------------------------------


def tracker_bits(scope: Scope, doc: Doc, c: Combatant) -> tuple[str, ...]:
    ns = manoeuvre_data(doc)
    bits: list[str] = []
    points = doc.meta.get(c.id, {}).get("hero_points")
    if points:
        bits.append(scope.t("manoeuvre.tracker.hero_points", n=points))
    if mounted(doc, c.id):
        bits.append(scope.t("manoeuvre.tracker.mounted"))
    for holder, g in (ns.get("grapples") or {}).items():
        if holder == c.id:
            bits.append(scope.t("manoeuvre.tracker.holds", name=_name(doc, g["target"])))
        elif g["target"] == c.id:
            key = "immobilised" if g.get("immobilised") else "held"
            bits.append(scope.t(f"manoeuvre.tracker.{key}", name=_name(doc, holder)))
    off = (round_data(doc).get("off_hand") or {}).get(c.id)
    if off:
        bits.append(scope.t(f"manoeuvre.tracker.off_hand.{off}"))
    left = lost_actions(c)
    if left:
        bits.append(scope.t("manoeuvre.tracker.lost", n=left))
    return (" · ".join(bits),) if bits else ()


def _name(doc: Doc, cid: str) -> str:
    try:
        return doc.state.get(cid).name
    except KeyError:
        return cid


# --- the thread's fight and the answer of a /manoeuvre use case ----------------------------------


async def ogl_fight(scope: Scope, *, in_round: bool = False, fight_id: int | None = None) -> Doc:
    """The thread's fight (``fight_id``: that one, a button's), refused unless it is an `ogl` one
    (and, with ``in_round``, unless a round is under way)."""
    doc = await (fight_by_id(scope, fight_id) if fight_id is not None else fight_here(scope))
    if doc.row.ruleset != "ogl":
        raise FightRefusal("manoeuvre.error.not_ogl", ruleset=doc.row.ruleset or "renove")
    scope.ruleset = "ogl"
    if in_round and (not doc.state.round or doc.data.get("round_over")):
        raise FightRefusal("combat.error.round_not_started")
    return doc


def reply(
    scope: Scope, doc: Doc, title: str, lines: Sequence[str], kind: str, result: dict[str, Any]
) -> FightOutcome:
    reply = Reply(
        title=title,
        description="\n".join(x for x in lines if x)[:4000],
        colour=Colour.NEUTRAL,
        kind=kind,
        result={"fight_id": doc.row.id, **result},
    )
    return outcome(scope, doc, reply)
