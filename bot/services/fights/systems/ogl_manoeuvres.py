"""`ogl` manoeuvres (seed 004) on top of :mod:`bot.services.fights.systems.ogl`: hero points, the
counter-attack reaction, two weapons, mounted combat, grapple, and the combat actions lost.

* Lost combat actions (a wound's "perd sa prochaine Action de Combat" / 1d4, the natural-weapon
  fumble "Hésitation"): while such a condition lasts the fighter may neither act nor react; each of
  his slots that *starts* under it is lost and, once it passes (``/combat suivant`` or the round's
  end), every counter in combat actions of his goes down by one (``rules.spend_combat_action``; the
  death counts go down on each of his slots).
* Hero points (``PH`` in ``caracs``): second chance rerolls the fighter's last roll (an attack or
  reaction d100 — a dive's included —, or an Endurance test) — the new roll stands and the exchange
  is settled again; ``seconde_chance_degats`` rerolls his last damage roll ("un jet de dégâts" is
  named by the seed): the damage he took, or his weapon's — the wound is undone (HP, conditions, due
  tests) and the new roll applied; refused once the wound's Endurance tests are rolled (reading);
  graze turns the last major wound into the location at −(its HP); hero's luck needs the GM.
* Counter-attack: a reaction (one per triggering event, within the reaction limit) answered by a
  melee attack the enemy may parry or dodge (``/combat defense``); running gives +20 %.
* Two weapons: once a round, the off hand parries one attack beyond the reaction limit, or makes one
  extra melee attack (reading: at the player's word, without a slot).
* Mounted: +20 % to the rider's melee attacks and parries against a foe on foot, −20 % to the reactions
  of a fighter on foot against a rider, −30 % to a rider's dodge or dive (a dive unhorses him), no
  two-handed weapon in the saddle.
* Grapple (the grapple table is cut from the extract): grab = Bagarre opposed test, the higher
  successful roll wins; immobilise = Bagarre −(DEX + FOR of the foe); escape = Bagarre −(FOR + TAI) when
  immobilised, else an opposed Bagarre test; throw (reading: a Bagarre test) = 2 m and 1d6 at the
  location the GM names, armour subtracted, the grapple ends.
* Area effects and the dive: see the section "area effects and the dive" below.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, Final

from bot.context import AppContext
from bot.rules import opposed
from bot.rules.checks.common import CheckResult, Modifier, System, obtain_roll
from bot.rules.combat.basics import Refusal, RefusedError
from bot.rules.combat.common import roll_dice, term
from bot.rules.combat.effects import Condition
from bot.rules.combat.state import Combatant
from bot.rules.ogl import checks as ogl_checks
from bot.rules.ogl import combat as rules
from bot.rules.random_source import RandomSource
from bot.rules.sheets import fold
from bot.services.caller import Caller
from bot.services.fights._core import (
    DEFENCE_TIMEOUT,
    DefenceRolls,
    Doc,
    FightOutcome,
    FightRefusal,
    RollNote,
    Scope,
    custom_id,
    d100_or_none,
    fight_here,
    may_control,
    new_event,
    outcome,
    parse_dice,
    pending_defence,
    require_gm,
    run,
)
from bot.services.fights.attacks import AttackInput
from bot.services.fights.kit import (
    RANGED_KINDS,
    actor,
    check_line,
    mention,
    pass_turn,
    pick_arm,
    set_dead,
    spend,
)
from bot.services.fights.systems import ogl
from bot.ui.reply import Button, ButtonStyle, Colour, Reply

NS: Final = "ogl_manoeuvres"
LOST: Final = "lose_combat_actions"
COUNTER_TRIGGERS: Final[dict[str, rules.Trigger]] = {
    "tir": rules.Trigger.RANGED_ATTACK,
    "change_de_position": rules.Trigger.CHANGES_POSITION,
    "s_eloigne": rules.Trigger.MOVES_AWAY,
    "s_approche": rules.Trigger.APPROACHES,
    "garde_ouverte": rules.Trigger.GUARD_OPEN,
    "court": rules.Trigger.RUNS,
    "se_deplace": rules.Trigger.MOVES,
}
RUN_BONUS: Final = 20  # "Courir : ... une Contre-Attaque avec un bonus de 20%"
GRAPPLE_ACTIONS: Final = ("saisir", "immobiliser", "se_degager", "projeter")
# "Seconde Chance : ... relancer un jet de dé qui affecte le personnage. Cela peut être un jet de test
# de compétence, un jet de dégâts ou n'importe quoi qui a un effet sur lui."
DAMAGE_REROLL: Final = ("seconde_chance_degats", "second_chance_damage")


def _ns(doc: Doc) -> dict[str, Any]:
    value: dict[str, Any] = doc.data.setdefault(NS, {})
    return value


def _round_data(doc: Doc) -> dict[str, Any]:
    value: dict[str, Any] = doc.data.setdefault("ogl", {})
    return value


# --- lost combat actions -------------------------------------------------------------------------


def lost_actions(c: Combatant) -> int:
    return max((int(x.remaining or 0) for x in c.conditions if x.kind == LOST), default=0)


def immobilised(doc: Doc, cid: str) -> bool:
    return any(g["target"] == cid and g.get("immobilised") for g in _ns(doc).get("grapples", {}).values())


def require_free(scope: Scope, doc: Doc, c: Combatant, *, reacting: bool = False) -> None:
    """No action nor reaction while combat actions are lost; an immobilised fighter only escapes."""
    left = lost_actions(c)
    if left:
        raise FightRefusal("manoeuvre.refusal.lost_actions", name=c.name, remaining=left)
    if not reacting and immobilised(doc, c.id):
        raise FightRefusal("manoeuvre.refusal.immobilised", name=c.name)


def on_slot(scope: Scope, doc: Doc) -> list[str]:
    """Called by the shared machinery each time the current slot may have changed."""
    data = _round_data(doc)
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
    seen = _round_data(doc).get("slot")
    _round_data(doc)["slot"] = None
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
    return bool(_ns(doc).get("mounted", {}).get(cid))


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
        _ns(doc).setdefault("mounted", {}).pop(defender.id, None)
        return [scope.t("manoeuvre.mount.unhorsed", name=defender.name)]
    return []


def _ledger(doc: Doc, c: Combatant) -> rules.ReactionLedger:
    raw = (
        _round_data(doc).setdefault("reactions", {}).get(c.id)
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
) -> bool:
    """Spend a reaction (or the declared off-hand parry beyond the limit); True when off-hand."""
    if defender.has("unconscious", "dead"):  # Hors de Combat: checked before the actions lost
        raise RefusedError(Refusal("combat.ogl.refusal.out_of_combat"))
    require_free(scope, doc, defender, reacting=True)
    data = _round_data(doc)
    ledger = _ledger(doc, defender)
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
    last = _ns(doc).setdefault("last", {})
    last[str(pending["attacker"])] = {"kind": "attack", **record}
    if melee.defence is not None:
        last[str(pending["defender"])] = {"kind": "defence", **record}


def remember_test(doc: Doc, cid: str, check: CheckResult, decides: str, snapshot: Mapping[str, Any]) -> None:
    _ns(doc).setdefault("last", {})[cid] = {
        "kind": "endurance",
        "score": check.target,
        "decides": decides,
        "success": check.success,
        "snapshot": dict(snapshot),
    }


def remember_wound(doc: Doc, cid: str, wound: rules.LocationWound, prompts: Sequence[int]) -> None:
    _ns(doc).setdefault("wounds", {})[cid] = {**wound.to_dict(), "prompts": list(prompts)}


# --- the tracker ---------------------------------------------------------------------------------


def tracker_bits(scope: Scope, doc: Doc, c: Combatant) -> tuple[str, ...]:
    ns = _ns(doc)
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
    off = (_round_data(doc).get("off_hand") or {}).get(c.id)
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


# --- the use cases -------------------------------------------------------------------------------


async def _ogl_fight(scope: Scope, *, in_round: bool = False) -> Doc:
    """The thread's fight, refused unless it is an `ogl` one (and, with ``in_round``, unless a round
    is under way)."""
    doc = await fight_here(scope)
    if doc.row.ruleset != "ogl":
        raise FightRefusal("manoeuvre.error.not_ogl", ruleset=doc.row.ruleset or "renove")
    scope.ruleset = "ogl"
    if in_round and (not doc.state.round or doc.data.get("round_over")):
        raise FightRefusal("combat.error.round_not_started")
    return doc


def _reply(
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


async def hero_point(
    ctx: AppContext,
    caller: Caller,
    *,
    use: str,
    who: str | None = None,
    roll: int | None = None,
    dice: str | None = None,
    note: str | None = None,
    rng: RandomSource | None = None,
) -> FightOutcome:
    """Spend a hero point: ``seconde_chance``, ``eraflure`` or ``chance_du_heros`` (GM)."""

    async def work(scope: Scope) -> FightOutcome:
        doc = await _ogl_fight(scope)
        c = actor(scope, doc, who)
        word = fold(use).replace(" ", "_").replace("'", "_")
        on_damage = word in DAMAGE_REROLL
        try:
            kind = rules.HeroUse(rules.HeroUse.SECOND_CHANCE.value if on_damage else word)
        except ValueError:
            raise FightRefusal(
                "manoeuvre.error.hero_use",
                accepted=", ".join([*(u.value for u in rules.HeroUse), DAMAGE_REROLL[0]]),
            ) from None
        meta = doc.meta.setdefault(c.id, {})
        points = int(meta.get("hero_points") or 0)
        wound = None
        record = (_ns(doc).get("wounds") or {}).get(c.id)
        if kind is rules.HeroUse.GRAZE and record is not None:
            wound = _wound_from(record)
        spent = rules.spend_hero_point(points, kind, wound=wound, gm_approved=scope.gm)
        if isinstance(spent, Refusal):
            raise RefusedError(spent)
        lines = [scope.t(f"manoeuvre.hero.{kind.value}", name=c.name)]
        result: dict[str, Any] = {"combatant": c.id, "spend": spent.to_dict()}
        if on_damage:
            lines.extend(_reroll_damage(scope, doc, c, dice, result))
        elif kind is rules.HeroUse.SECOND_CHANCE:
            lines.extend(await _second_chance(scope, doc, c, roll, dice, result))
        elif kind is rules.HeroUse.GRAZE:
            assert record is not None and wound is not None
            lines.extend(_graze(scope, doc, c, record, wound, spent, roll, result))
        elif note:
            lines.append(f"« {note[:300]} »")
        meta["hero_points"] = spent.points_after
        lines.append(scope.t("manoeuvre.hero.left", name=c.name, n=spent.points_after))
        new_event(scope, doc, "hero_point", c.id, result)
        doc.save()
        return _reply(
            scope, doc, scope.t("manoeuvre.hero.title", name=c.name), lines, "manoeuvre.hero", result
        )

    return await run(ctx, caller, work, rng=rng)


def _wound_from(record: Mapping[str, Any]) -> rules.LocationWound:
    return rules.LocationWound(
        str(record["location"]),
        str(record["kind"]),
        (),
        int(record["damage"]),
        int(record["hp_max"]),
        int(record["hp_before"]),
        int(record["hp_after"]),
        rules.Level(record["level"]),
        None,
        tuple(Condition.from_dict(x) for x in record["conditions"]),
        tuple(record["endurance_tests"]),
        record.get("death_in_actions"),
    )


def _graze(
    scope: Scope,
    doc: Doc,
    c: Combatant,
    record: Mapping[str, Any],
    wound: rules.LocationWound,
    spent: rules.HeroSpend,
    roll: int | None,
    result: dict[str, Any],
) -> list[str]:
    """The major wound's damage cut so the location ends at −HP: a serious wound, its effects anew."""
    from bot.rules.combat.common import pool_loss, set_pool_loss

    damage = int(spent.detail["damage_after"])
    serious = rules.damage_location(
        wound.location,
        wound.kind,
        wound.hp_max,
        wound.hp_before,
        damage,
        con=c.stat("CON"),
        pou=c.stat("POW"),
        threshold=ogl._threshold(doc),
        rng=scope.rng,
        lost_actions_roll=roll,
    )
    serious = replace(serious, conditions=tuple(ogl._named_part(x) for x in serious.conditions))
    pool = f"HP.{wound.location}"
    loss = pool_loss(c, rules.SYSTEM, pool) - (wound.damage - damage)
    old = [x.to_dict() for x in wound.conditions]
    kept = tuple(x for x in c.conditions if x.to_dict() not in old)
    c = set_pool_loss(replace(c, conditions=kept + serious.conditions), rules.SYSTEM, pool, loss)
    doc.state = doc.state.put(c)
    gone = set(record.get("prompts") or [])
    doc.data["prompts"] = [p for p in doc.prompts if p.get("id") not in gone]
    prompts = []
    lines = [
        scope.t(
            "manoeuvre.hero.graze_line",
            location=scope.t(f"characters.loc.{wound.location}"),
            before=wound.damage,
            after=damage,
            hp=serious.hp_after,
        ),
        scope.t(f"combat.ogl.level.{serious.level.value}", name=c.name),
    ]
    lines.extend("• " + scope.words.condition(x) for x in serious.conditions)
    for decides in serious.endurance_tests:
        prompts.append(ogl.add_endurance_prompt(doc, c.id, decides))
        lines.append(scope.t(f"combat.ogl.test_due.{decides}", name=c.name))
    _ns(doc)["wounds"].pop(c.id, None)
    forget_damage(doc, c.id)
    result["graze"] = serious.to_dict()
    return lines


async def _second_chance(
    scope: Scope, doc: Doc, c: Combatant, roll: int | None, dice: str | None, result: dict[str, Any]
) -> list[str]:
    last = (_ns(doc).get("last") or {}).pop(c.id, None)
    if last is None:
        raise FightRefusal("manoeuvre.error.nothing_to_reroll", name=c.name)
    new = d100_or_none(roll)
    if last["kind"] == "dive":
        return _reroll_dive(scope, doc, c, last, new, result)
    if last["kind"] == "endurance":
        check = rules.endurance_test(int(last["score"]), rng=scope.rng, roll=new)
        scope.rolls.append(RollNote("combat.test", "1d100", check.roll, {"check": check.to_dict()}))
        lines = [
            scope.t(f"combat.ogl.test.{last['decides']}", name=c.name)
            + " : "
            + check_line(scope.words, check, " %")
        ]
        result["reroll"] = {"kind": "endurance", "check": check.to_dict(), "before": last["success"]}
        if check.success and not last["success"]:
            doc.state = doc.state.put(Combatant.from_dict(last["snapshot"]))
            lines.append(scope.t("manoeuvre.hero.undone", name=c.name))
        return lines
    return await _reroll_exchange(scope, doc, c, last, new, dice, result)


async def _reroll_exchange(
    scope: Scope,
    doc: Doc,
    c: Combatant,
    last: Mapping[str, Any],
    new: int | None,
    dice: str | None,
    result: dict[str, Any],
) -> list[str]:
    pending = dict(last["pending"])
    mine = "attack" if last["kind"] == "attack" else "defence"
    roll = new if new is not None else obtain_roll(ogl_checks.DIE, scope.rng, None)
    attack_roll = roll if mine == "attack" else int(pending["attack_roll"])
    defence_roll = roll if mine == "defence" else last["defence_roll"]
    reaction = rules.Reaction(last["reaction"]) if last["reaction"] else None
    attacker = doc.state.get(str(pending["attacker"]))
    defender = doc.state.get(str(pending["defender"]))
    melee = rules.resolve_attack(
        int(pending["score"]),
        last["defence_score"],
        reaction=reaction,
        precise=rules.Precise(pending["precise"]) if pending.get("precise") else None,
        ranged=bool(pending.get("ranged")),
        attack_modifiers=[Modifier(str(m["label"]), int(m["value"])) for m in pending.get("mods", [])],
        defence_modifiers=[Modifier(str(m["label"]), int(m["value"])) for m in last["defence_mods"]],
        rng=scope.rng,
        attack_roll=attack_roll,
        defence_roll=defence_roll,
    )
    if isinstance(melee, Refusal):
        raise RefusedError(melee)
    scope.rolls.append(RollNote("combat.attack", "1d100", roll, {"second_chance": mine}))
    w = scope.words
    check = melee.attack if mine == "attack" else melee.defence
    assert check is not None
    lines = [w.t(f"manoeuvre.hero.reroll.{mine}") + " : " + check_line(w, check, " %")]
    payload: dict[str, Any] = {"fight_id": doc.row.id, "seq": pending["seq"], "exchange": melee.to_dict()}
    before = rules.Outcome(last["outcome"])
    result["reroll"] = {
        "kind": mine,
        "before": before.value,
        "outcome": melee.outcome.value,
        "exchange": melee.to_dict(),
    }
    lines.append(
        w.t(f"combat.ogl.outcome.{melee.outcome.value}", attacker=attacker.name, defender=defender.name)
    )
    hit = melee.outcome is rules.Outcome.HIT
    if before is rules.Outcome.HIT and not hit:
        doc.state = doc.state.put(Combatant.from_dict(last["snapshot"]))
        gone = set(last.get("prompts") or [])
        doc.data["prompts"] = [p for p in doc.prompts if p.get("id") not in gone]
        (_ns(doc).get("wounds") or {}).pop(defender.id, None)
        forget_damage(doc, defender.id)
        lines.append(w.t("manoeuvre.hero.undone", name=defender.name))
    elif hit and before is not rules.Outcome.HIT:
        if reaction is None and not defender.has("unconscious"):
            # the attack missed outright: the defender had no reaction to choose; now he has
            seq = new_event(scope, doc, "attack", attacker.id, {"target": defender.id, "second_chance": True})
            fresh = {
                **pending,
                "seq": seq,
                "attack_roll": attack_roll,
                "hand": {
                    **(pending.get("hand") or {}),
                    **({"damage": parse_dice(dice, sides=100, limit=10)} if dice else {}),
                },
                "expires_at": (datetime.now(UTC) + DEFENCE_TIMEOUT).isoformat(),
            }
            doc.pending[str(seq)] = fresh
            result["seq"] = seq
            result["pending"] = True
            lines.append(w.t("combat.defence.prompt", name=defender.name, owner=mention(doc, defender.id)))
            return lines
        snapshot = defender.to_dict()
        before_prompts = {int(p["id"]) for p in doc.prompts}
        if dice:
            pending["hand"] = {**(pending.get("hand") or {}), "damage": parse_dice(dice, sides=100, limit=10)}
        lines.extend(
            ogl._wound(
                scope, doc, pending, payload, critical=melee.critical, ignore_armour=melee.ignore_armour
            )
        )
        added = [int(p["id"]) for p in doc.prompts if int(p["id"]) not in before_prompts]
        remember_exchange(
            doc,
            pending,
            melee,
            defence_score=last["defence_score"],
            defence_mods=[Modifier(str(m["label"]), int(m["value"])) for m in last["defence_mods"]],
            snapshot=snapshot,
            prompts=added,
        )
        _ns(doc)["last"].pop(c.id, None)
        new_event(scope, doc, "hit", defender.id, payload)
        result["wound"] = payload.get("wound")
    return lines


async def counter_attack(
    ctx: AppContext,
    caller: Caller,
    *,
    target: str,
    trigger: str,
    who: str | None = None,
    weapon: str | None = None,
    roll: int | None = None,
    location: str | None = None,
    damage: str | None = None,
    effects: str | None = None,
    rng: RandomSource | None = None,
) -> FightOutcome:
    """The counter-attack reaction: a melee attack against an adjacent enemy who triggered it."""

    async def work(scope: Scope) -> FightOutcome:
        doc = await _ogl_fight(scope, in_round=True)
        c = actor(scope, doc, who)
        foe = doc.find(target)
        why = COUNTER_TRIGGERS.get(fold(trigger).replace(" ", "_").replace("'", "_").replace("-", "_"))
        if why is None:
            raise FightRefusal("manoeuvre.error.trigger", accepted=", ".join(COUNTER_TRIGGERS))
        arm = pick_arm(doc, c, weapon)
        if arm["kind"] in RANGED_KINDS:
            raise FightRefusal("manoeuvre.refusal.counter_melee_only")
        event = f"{why.value}:{foe.id}:{doc.state.round}:{doc.state.turn}"
        take_reaction(scope, doc, c, rules.Reaction.COUNTER, why, event, 0)
        extra = [term(rules.SYSTEM, "counter_run", RUN_BONUS)] if why is rules.Trigger.RUNS else []
        data = AttackInput(
            target=foe.name,
            attacker=c.name,
            weapon=str(arm["name"]),
            roll=roll,
            damage=damage,
            effects=effects,
            location=location,
        )
        head = [
            scope.t(
                "manoeuvre.counter.line",
                name=c.name,
                foe=foe.name,
                trigger=scope.t(f"manoeuvre.trigger.{why.value}"),
            )
        ]
        if why in (rules.Trigger.CHANGES_POSITION, rules.Trigger.MOVES_AWAY):
            head.append(scope.t(f"manoeuvre.counter.if_damage.{why.value}", name=foe.name))
        return await ogl.attack(scope, doc, data, free=True, extra=extra, tag="counter", head=head)

    return await run(ctx, caller, work, rng=rng)


async def two_weapons(
    ctx: AppContext,
    caller: Caller,
    *,
    use: str,
    who: str | None = None,
    target: str | None = None,
    weapon: str | None = None,
    roll: int | None = None,
    location: str | None = None,
    damage: str | None = None,
    effects: str | None = None,
    rng: RandomSource | None = None,
) -> FightOutcome:
    """The off hand this round: one extra parry beyond the limit, or one extra melee attack now."""

    async def work(scope: Scope) -> FightOutcome:
        doc = await _ogl_fight(scope, in_round=True)
        c = actor(scope, doc, who)
        choice = {
            "parade": "parry",
            "parer": "parry",
            "parry": "parry",
            "attaque": "attack",
            "attack": "attack",
        }.get(fold(use))
        if choice is None:
            raise FightRefusal("manoeuvre.error.off_hand_use")
        require_free(scope, doc, c, reacting=choice == "parry")
        melee_arms = [a for a in doc.meta.get(c.id, {}).get("arms") or [] if a["kind"] not in RANGED_KINDS]
        if len(melee_arms) < 2:
            raise FightRefusal("manoeuvre.refusal.needs_two", name=c.name)
        data = _round_data(doc)
        ledger = _ledger(doc, c)
        if (data.get("off_hand") or {}).get(c.id):
            ledger = replace(ledger, off_hand=str(data["off_hand"][c.id]))
        chosen = rules.choose_off_hand(ledger, choice)
        if isinstance(chosen, Refusal):
            raise RefusedError(chosen)
        data.setdefault("off_hand", {})[c.id] = choice
        if choice == "parry":
            result = {"combatant": c.id, "off_hand": choice}
            new_event(scope, doc, "off_hand", c.id, result)
            doc.save()
            return _reply(
                scope,
                doc,
                scope.t("manoeuvre.two.title", name=c.name),
                [scope.t("manoeuvre.two.parry", name=c.name)],
                "manoeuvre.two",
                result,
            )
        if not target:
            raise FightRefusal("manoeuvre.error.off_hand_target")
        off = pick_arm(doc, c, weapon) if weapon else melee_arms[1]
        if off["kind"] == "shield" and not off.get("dice"):
            raise FightRefusal("combat.ogl.error.no_dice", weapon=str(off["name"]))
        new_event(scope, doc, "off_hand", c.id, {"combatant": c.id, "off_hand": choice})
        attack = AttackInput(
            target=target,
            attacker=c.name,
            weapon=str(off["name"]),
            roll=roll,
            damage=damage,
            effects=effects,
            location=location,
        )
        head = [scope.t("manoeuvre.two.attack", name=c.name, weapon=str(off["name"]))]
        return await ogl.attack(scope, doc, attack, free=True, tag="off_hand", head=head)

    return await run(ctx, caller, work, rng=rng)


async def set_mount(
    ctx: AppContext, caller: Caller, *, mounted_now: bool, who: str | None = None
) -> FightOutcome:
    async def work(scope: Scope) -> FightOutcome:
        doc = await _ogl_fight(scope)
        c = actor(scope, doc, who)
        riders = _ns(doc).setdefault("mounted", {})
        if mounted_now:
            riders[c.id] = True
        else:
            riders.pop(c.id, None)
        lines = [scope.t("manoeuvre.mount.on" if mounted_now else "manoeuvre.mount.off", name=c.name)]
        two = [
            a["name"]
            for a in doc.meta.get(c.id, {}).get("arms") or []
            if "two_handed" in (a.get("flags") or [])
        ]
        if mounted_now and two:
            lines.append(scope.t("manoeuvre.mount.no_two_handed", weapons=", ".join(two)))
        result = {"combatant": c.id, "mounted": mounted_now}
        new_event(scope, doc, "mount", c.id, result)
        doc.save()
        return _reply(
            scope, doc, scope.t("manoeuvre.mount.title", name=c.name), lines, "manoeuvre.mount", result
        )

    return await run(ctx, caller, work)


def _brawl(doc: Doc, c: Combatant, score: int | None) -> int:
    if score is not None:
        return score
    skills = doc.meta.get(c.id, {}).get("skills") or {}
    for key in ("bagarre", "arts_martiaux", "arme_naturelle"):
        if key in skills:
            return int(skills[key])
    raise FightRefusal("combat.sys.error.no_defence_score", name=c.name, what="Bagarre")


async def grapple(
    ctx: AppContext,
    caller: Caller,
    *,
    action: str,
    who: str | None = None,
    target: str | None = None,
    roll: int | None = None,
    target_roll: int | None = None,
    location: str | None = None,
    damage: int | None = None,
    effects: str | None = None,
    rng: RandomSource | None = None,
) -> FightOutcome:
    """Grab, immobilise, escape or throw; each is a combat action on one's own slot."""

    async def work(scope: Scope) -> FightOutcome:
        doc = await _ogl_fight(scope)
        kind = fold(action).replace(" ", "_").replace("-", "_")
        if kind not in GRAPPLE_ACTIONS:
            raise FightRefusal("manoeuvre.error.grapple_action", accepted=", ".join(GRAPPLE_ACTIONS))
        c = actor(scope, doc, who)
        left = lost_actions(c)
        if left:
            raise FightRefusal("manoeuvre.refusal.lost_actions", name=c.name, remaining=left)
        grapples: dict[str, Any] = _ns(doc).setdefault("grapples", {})
        w = scope.words
        lines: list[str] = []
        result: dict[str, Any] = {"combatant": c.id, "action": kind}
        if kind == "se_degager":
            holder = next((h for h, g in grapples.items() if g["target"] == c.id), None)
            if holder is None:
                raise FightRefusal("manoeuvre.refusal.not_held", name=c.name)
            foe = doc.state.get(holder)
        else:
            if not target:
                raise FightRefusal("manoeuvre.error.grapple_target")
            foe = doc.find(target)
            if foe.id == c.id:
                raise FightRefusal("combat.error.self_attack")
            if kind == "saisir":
                if immobilised(doc, c.id):
                    raise FightRefusal("manoeuvre.refusal.immobilised", name=c.name)
                if c.id in grapples:
                    raise FightRefusal("manoeuvre.refusal.already_holding", name=c.name)
            elif grapples.get(c.id, {}).get("target") != foe.id:
                raise FightRefusal("manoeuvre.refusal.not_holding", name=c.name, foe=foe.name)
        spend(scope, doc, c, "attaquer")
        own = _brawl(doc, c, None)
        opposed_test = kind == "saisir" or (kind == "se_degager" and not immobilised(doc, c.id))
        mods: list[Modifier] = []
        if kind == "immobiliser":
            mods.append(rules.immobilise_modifier(foe.stat("DEX"), foe.stat("STR")))
        elif kind == "se_degager" and not opposed_test:
            mods.append(rules.escape_modifier(foe.stat("STR"), foe.stat("SIZ")))
        check = ogl_checks.check(
            own, mods, rng=scope.rng, roll=d100_or_none(roll), base_label="manoeuvre.brawl"
        )
        scope.rolls.append(RollNote("combat.grapple", "1d100", check.roll, {"check": check.to_dict()}))
        lines.append(
            w.t(f"manoeuvre.grapple.{kind}", name=c.name, foe=foe.name) + " : " + check_line(w, check, " %")
        )
        result["check"] = check.to_dict()
        won = check.success
        if opposed_test:
            other = ogl_checks.check(
                _brawl(doc, foe, None),
                rng=scope.rng,
                roll=d100_or_none(target_roll),
                base_label="manoeuvre.brawl",
            )
            scope.rolls.append(RollNote("combat.grapple", "1d100", other.roll, {"check": other.to_dict()}))
            lines.append(w.t("manoeuvre.grapple.resists", name=foe.name) + " : " + check_line(w, other, " %"))
            verdict, _ = opposed.compare(check, other, opposed.rules_for(System.OGL))
            won = verdict is opposed.Verdict.A
            result["opposed"] = {"check": other.to_dict(), "verdict": verdict.value}
        result["success"] = won
        if kind == "saisir" and won:
            grapples[c.id] = {"target": foe.id, "immobilised": False}
        elif kind == "immobiliser" and won:
            grapples[c.id]["immobilised"] = True
        elif kind == "se_degager" and won:
            grapples.pop(foe.id, None)
        elif kind == "projeter" and won:
            grapples.pop(c.id, None)
            metres, die = rules.grapple_throw(rng=scope.rng, die=damage)
            scope.rolls.append(RollNote("combat.damage", "1d6", die, {"throw": True}))
            loc = ogl._location(location)
            result["throw"] = {"metres": metres, "die": die, "location": loc}
            lines.append(w.t("manoeuvre.grapple.thrown", name=foe.name, metres=metres, damage=die))
            hand = parse_dice(effects, sides=20, limit=10)
            wound_lines, wound = ogl.apply_location_damage(
                scope, doc, foe, loc, die, hand[0] if hand else None
            )
            lines.extend(wound_lines)
            result["wound"] = wound.to_dict()
        lines.append(w.t("manoeuvre.grapple.success" if won else "manoeuvre.grapple.failure"))
        new_event(scope, doc, "grapple", c.id, result)
        lines.extend(pass_turn(scope, doc))
        doc.save()
        return _reply(
            scope,
            doc,
            w.t("manoeuvre.grapple.title", name=c.name, foe=foe.name),
            lines,
            "manoeuvre.grapple",
            result,
        )

    return await run(ctx, caller, work, rng=rng)


# --- area effects and the dive ------------------------------------------------------------------
#
# ``/manoeuvre zone``: the GM (or the owner of the fighter producing it) places an area effect: its
# name, its damage (dice, rolled once for the whole effect — reading: the seed does not say whether
# each fighter rolls his own), the fighters caught with the location hit. The seed prints no
# hit-location table for `ogl` (as for attacks, the GM names it); ``tout`` applies the damage to
# every location, each with its own armour (reading: an effect engulfing the body — flames, a
# blast). Each caught fighter then dives (``/combat defense plonger``, the Esquive d100) or takes it
# (``encaisser``); the dive is a reaction ("Plonger", trigger: the area includes him). Knockback is
# not applied: the seed ties it to ranged and melee attacks. Producing the effect spends no combat
# action here (the spell, the thrown flask … is its own action).

AREA_CHOICES: Final = ("plonger", "encaisser")
AREA_MAX: Final = 10
NOWHERE: Final = frozenset({"sans_issue", "nulle_part", "nowhere", "cornered", "coince", "accule"})
EVERYWHERE: Final = frozenset({"tout", "all", "partout", "everywhere"})


def _area_dice(text: str) -> str:
    expression = text.strip().lower().replace(" ", "").replace("D", "d")
    parts = expression.replace("-", "+").split("+")
    ok = bool(expression) and len(parts) <= 4
    for part in parts if ok else ():
        count, sep, sides = part.partition("d")
        if sep:
            ok = ok and (count == "" or (count.isdigit() and 1 <= int(count) <= 20))
            ok = ok and sides.isdigit() and 2 <= int(sides) <= 100
        else:
            ok = ok and part.isdigit() and int(part) <= 200
    if not ok:
        raise FightRefusal("manoeuvre.error.area_dice", text=text[:30])
    return expression


def _area_targets(doc: Doc, text: str, default: str | None) -> list[tuple[Combatant, list[str], bool]]:
    """``"Orc: tete; Chevalier: tout sans_issue"`` → (fighter, locations, nowhere to dive)."""
    out: list[tuple[Combatant, list[str], bool]] = []
    for part in text.replace(",", ";").split(";"):
        if not part.strip():
            continue
        name, _, rest = part.partition(":")
        c = doc.find(name.strip())
        if c.has("dead"):
            raise FightRefusal("combat.error.target_dead", name=c.name)
        if any(c.id == x.id for x, _, _ in out):
            raise FightRefusal("manoeuvre.error.area_twice", name=c.name)
        words = [fold(x).replace("-", "_") for x in rest.split()]
        nowhere = any(x in NOWHERE for x in words)
        places = [x for x in words if x not in NOWHERE] or ([fold(default)] if default else [])
        if len(places) != 1:
            raise FightRefusal(
                "manoeuvre.error.area_location", name=c.name, accepted="tout, " + ", ".join(ogl.LOCATIONS)
            )
        locations = list(ogl.LOCATIONS) if places[0] in EVERYWHERE else [ogl._location(places[0])]
        out.append((c, locations, nowhere))
    if not out:
        raise FightRefusal("manoeuvre.error.area_targets")
    if len(out) > AREA_MAX:
        raise FightRefusal("manoeuvre.error.area_too_many", max=AREA_MAX)
    return out


async def area_effect(
    ctx: AppContext,
    caller: Caller,
    *,
    name: str,
    damage: str,
    targets: str,
    location: str | None = None,
    source: str | None = None,
    dice: str | None = None,
    rng: RandomSource | None = None,
) -> FightOutcome:
    """An area effect catches fighters: one damage roll, then each dives or takes it."""

    async def work(scope: Scope) -> FightOutcome:
        doc = await _ogl_fight(scope, in_round=True)
        src = doc.find(source) if source else None
        if src is not None:
            if not may_control(scope, doc, src.id):
                raise FightRefusal("combat.error.not_yours", name=src.name)
        else:
            require_gm(scope)
        expression = _area_dice(damage)
        caught = _area_targets(doc, targets, location)
        rolled = roll_dice(expression, scope.rng, parse_dice(dice, sides=100, limit=30))
        label = name.strip().strip('"«» ')[:60] or "?"
        w = scope.words
        area = {
            "name": label,
            "source": src.id if src else None,
            "damage": rolled.to_dict(),
            "rank": int(doc.state.current_slot.value) if doc.state.current_slot else 0,
        }
        seq = new_event(
            scope,
            doc,
            "area",
            src.id if src else None,
            {**area, "caught": [{"id": c.id, "locations": locs, "nowhere": n} for c, locs, n in caught]},
        )
        area["seq"] = seq
        scope.rolls.append(RollNote("combat.damage", expression, rolled.total, {"area": seq}))
        lines = [
            w.t("manoeuvre.area.line", name=label, source=src.name if src else w.t("manoeuvre.area.gm")),
            w.t("manoeuvre.area.damage", expression=expression, dice=" ".join(map(str, rolled.dice)) or "—")
            + f" = **{rolled.total}**",
        ]
        result: dict[str, Any] = {"area": area, "caught": []}
        rows: list[tuple[Button, ...]] = []
        for c, locs, nowhere in caught:
            own = new_event(scope, doc, "area_caught", c.id, {"area": seq})
            pending = pending_defence(
                scope,
                doc,
                own,
                src.id if src else "",
                c.id,
                area=area,
                label=label,
                locations=locs,
                nowhere=nowhere,
            )
            where = w.t("manoeuvre.area.everywhere") if len(locs) > 1 else w.t(f"characters.loc.{locs[0]}")
            entry: dict[str, Any] = {"id": c.id, "seq": own, "locations": locs, "pending": False}
            if c.has("unconscious", "dead"):  # Hors de Combat: no dive
                payload: dict[str, Any] = {"fight_id": doc.row.id, "seq": own, "choice": "encaisser"}
                lines.append(w.t("manoeuvre.area.caught_out", name=c.name, where=where))
                lines.extend(resolve_area(scope, doc, pending, "encaisser", DefenceRolls(), payload))
                entry["result"] = payload
            else:
                doc.pending[str(own)] = pending
                entry["pending"] = True
                lines.append(w.t("manoeuvre.area.caught", name=c.name, where=where, owner=mention(doc, c.id)))
                if len(rows) < 5:
                    rows.append(
                        tuple(
                            Button(
                                f"{c.name[:40]} — {w.t(f'combat.defence.button.{choice}')}",
                                custom_id(doc.row.id, "def", own, choice),
                                ButtonStyle.SECONDARY if choice == "encaisser" else ButtonStyle.PRIMARY,
                            )
                            for choice in AREA_CHOICES
                        )
                    )
            result["caught"].append(entry)
        doc.save()
        reply = Reply(
            title=f"💥 {label}",
            description="\n".join(lines)[:4000],
            colour=Colour.NEUTRAL,
            buttons=tuple(rows),
            kind="manoeuvre.area",
            result={"fight_id": doc.row.id, **result},
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work, rng=rng)


def resolve_area(
    scope: Scope,
    doc: Doc,
    pending: Mapping[str, Any],
    choice: str,
    rolls: DefenceRolls,
    payload: dict[str, Any],
) -> list[str]:
    """A caught fighter's answer (``/combat defense`` or a button): dive or take it."""
    w = scope.words
    defender = doc.state.get(str(pending["defender"]))
    if choice not in AREA_CHOICES:
        reaction = {"parer": rules.Reaction.PARRY, "esquiver": rules.Reaction.DODGE}.get(choice)
        if reaction is None:
            raise FightRefusal("combat.error.bad_choice")
        raise RefusedError(
            Refusal(
                "combat.ogl.refusal.wrong_trigger",
                (("reaction", reaction.value), ("trigger", rules.Trigger.AREA_EFFECT.value)),
            )
        )
    area = pending["area"]
    lines: list[str] = []
    check = None
    if choice == "plonger":
        take_reaction(
            scope,
            doc,
            defender,
            rules.Reaction.DIVE,
            rules.Trigger.AREA_EFFECT,
            f"area:{area['seq']}",
            int(area.get("rank") or 0),
            nowhere_to_dive=bool(pending.get("nowhere")),
        )
        score = ogl._defence_score(doc, defender, rules.Reaction.DODGE)
        mods = rules.reaction_modifiers(
            rules.Reaction.DIVE, rules.Situation(mounted=mounted(doc, defender.id))
        )
        check = ogl_checks.check(
            score, mods, rng=scope.rng, roll=d100_or_none(rolls.roll), base_label="combat.ogl.plonger"
        )
        scope.rolls.append(RollNote("combat.defence", "1d100", check.roll, {"check": check.to_dict()}))
        lines.append(
            w.t("combat.ogl.reaction.plonger", name=defender.name) + " : " + check_line(w, check, " %")
        )
        payload["dive"] = check.to_dict()
        # "Tout personnage qui plonge se retrouve à terre, que le test d'Esquive soit réussi ou non"
        if not defender.has("prone"):
            doc.state = doc.state.put(
                replace(
                    defender,
                    conditions=(*defender.conditions, Condition("prone", "ogl.dive", until="stands_up")),
                )
            )
        lines.append(w.t("manoeuvre.area.prone", name=defender.name))
        lines.extend(after_reaction(scope, doc, defender, rules.Reaction.DIVE))
    else:
        lines.append(w.t("combat.defence.takes", name=defender.name))
    rolled = int(area["damage"]["total"])
    lost = parse_dice(rolls.tests, sides=4, limit=7)
    lines.extend(_area_wound(scope, doc, pending, rolled, check, lost, payload))
    if check is not None:  # a second chance may reroll the dive's d100
        _ns(doc).setdefault("last", {})[defender.id] = {"kind": "dive", "pending": dict(pending)}
    return lines


def _dive_record(check: CheckResult | None) -> dict[str, Any] | None:
    if check is None:
        return None
    return {
        "base": check.modifiers[0].value,
        "mods": [m.to_dict() for m in check.modifiers[1:]],
        "roll": check.roll,
    }


def _dive_check(record: Mapping[str, Any] | None, roll: int | None = None) -> CheckResult | None:
    if record is None:
        return None
    mods = [Modifier(str(m["label"]), int(m["value"])) for m in record["mods"]]
    return ogl_checks.check(
        int(record["base"]),
        mods,
        roll=int(record["roll"]) if roll is None else roll,
        base_label="combat.ogl.plonger",
    )


def _area_wound(
    scope: Scope,
    doc: Doc,
    pending: Mapping[str, Any],
    rolled: int,
    check: CheckResult | None,
    lost_rolls: Sequence[int],
    payload: dict[str, Any],
) -> list[str]:
    """The damage after the dive at each location hit (armour off each), remembered for a reroll."""
    w = scope.words
    defender = doc.state.get(str(pending["defender"]))
    taken = rules.dive_damage(rolled, check)
    payload["area_damage"] = taken.to_dict()
    lines = [
        w.t(f"manoeuvre.area.result.{taken.dive.value}", name=defender.name, rolled=rolled, taken=taken.taken)
    ]
    undo: list[dict[str, Any]] = []
    wounds: list[dict[str, Any]] = []
    feed = list(lost_rolls)
    if taken.taken > 0:
        for loc in pending["locations"]:
            more, wound, step = damage_with_undo(
                scope, doc, doc.state.get(defender.id), loc, taken.taken, feed[0] if feed else None
            )
            if wound.level is rules.Level.SERIOUS and feed:  # the 1d4 by hand, one per serious wound
                feed.pop(0)
            lines.extend(more)
            undo.append(step)
            wounds.append(wound.to_dict())
        payload["wounds"] = wounds
        payload["damage"] = {"total": taken.taken}
    remember_damage(
        doc,
        [defender.id],
        {
            "kind": "area",
            "victim": defender.id,
            "pending": dict(pending),
            "rolled": rolled,
            "dive": _dive_record(check),
            "undo": undo,
        },
    )
    new_event(scope, doc, "hit" if taken.taken > 0 else "defence", defender.id, payload)
    return lines


# --- the damage a second chance may reroll ------------------------------------------------------


def damage_with_undo(
    scope: Scope,
    doc: Doc,
    victim: Combatant,
    loc: str,
    damage: int,
    lost_roll: int | None,
    *,
    ignore_armour: bool = False,
) -> tuple[list[str], rules.LocationWound, dict[str, Any]]:
    """:func:`fight_ogl.apply_location_damage` and what undoing it needs."""
    before = {int(p["id"]) for p in doc.prompts}
    lines, wound = ogl.apply_location_damage(
        scope, doc, victim, loc, damage, lost_roll, ignore_armour=ignore_armour
    )
    step = {
        "location": loc,
        "loss": wound.hp_before - wound.hp_after,
        "conditions": [x.to_dict() for x in wound.conditions],
        "prompts": [int(p["id"]) for p in doc.prompts if int(p["id"]) not in before],
        "major": wound.level is rules.Level.MAJOR,
    }
    return lines, wound, step


def remember_damage(doc: Doc, parties: Sequence[str], record: Mapping[str, Any]) -> None:
    """The last damage roll of each party (the victim; an attacker for his weapon's damage)."""
    store = _ns(doc).setdefault("damage", {})
    for cid in parties:
        if cid:
            store[cid] = dict(record)


def forget_damage(doc: Doc, victim: str) -> None:
    """A wound undone or changed otherwise (a reroll of the d100, a graze): no damage reroll on it."""
    store = _ns(doc).get("damage") or {}
    for cid in [k for k, v in store.items() if v.get("victim") == victim]:
        store.pop(cid, None)


def undo_damage(doc: Doc, victim_id: str, undo: Sequence[Mapping[str, Any]]) -> None:
    """Take back the HP lost, the conditions and due tests of recorded damage steps."""
    from bot.rules.combat.common import pool_loss, set_pool_loss

    c = doc.state.get(victim_id)
    conditions = list(c.conditions)
    for step in reversed(undo):
        pool = f"HP.{step['location']}"
        c = set_pool_loss(c, rules.SYSTEM, pool, max(0, pool_loss(c, rules.SYSTEM, pool) - int(step["loss"])))
        conditions = list(c.conditions)
        for raw in step["conditions"]:
            found = next((i for i, x in enumerate(conditions) if x.to_dict() == raw), None)
            if found is not None:
                conditions.pop(found)
        c = replace(c, conditions=tuple(conditions))
        gone = set(step["prompts"])
        doc.data["prompts"] = [p for p in doc.prompts if p.get("id") not in gone]
        if step.get("major"):
            (_ns(doc).get("wounds") or {}).pop(victim_id, None)
    doc.state = doc.state.put(c)


def _settled(doc: Doc, record: Mapping[str, Any]) -> bool:
    """The endurance tests a wound called for were rolled: too late to reroll its damage."""
    due = {int(p["id"]) for p in doc.prompts}
    return any(int(x) not in due for step in record.get("undo") or () for x in step["prompts"])


def _reroll_dive(
    scope: Scope, doc: Doc, c: Combatant, last: Mapping[str, Any], new: int | None, result: dict[str, Any]
) -> list[str]:
    """A second chance on the dive's Esquive d100: the damage is taken again with the new result
    (the diver stays prone and unhorsed, the reaction stays spent)."""
    record = (_ns(doc).get("damage") or {}).get(c.id)
    if record is None or record.get("kind") != "area" or _settled(doc, record):
        raise FightRefusal("manoeuvre.error.damage_settled", name=c.name)
    before = _dive_check(record["dive"])
    check = _dive_check(record["dive"], obtain_roll(ogl_checks.DIE, scope.rng, new))
    assert before is not None and check is not None
    scope.rolls.append(RollNote("combat.defence", "1d100", check.roll, {"second_chance": "dive"}))
    undo_damage(doc, c.id, record["undo"])
    forget_damage(doc, c.id)
    w = scope.words
    lines = [w.t("combat.ogl.reaction.plonger", name=c.name) + " : " + check_line(w, check, " %")]
    payload: dict[str, Any] = {"fight_id": doc.row.id, "seq": record["pending"]["seq"], "second_chance": True}
    lines.extend(_area_wound(scope, doc, record["pending"], int(record["rolled"]), check, [], payload))
    result["reroll"] = {
        "kind": "dive",
        "before": rules.dive_damage(int(record["rolled"]), before).to_dict(),
        "check": check.to_dict(),
        "area_damage": payload["area_damage"],
        "wounds": payload.get("wounds", []),
    }
    return lines


def _reroll_damage(
    scope: Scope, doc: Doc, c: Combatant, dice: str | None, result: dict[str, Any]
) -> list[str]:
    """A second chance on the last damage roll of the fighter — the damage he took or his weapon's
    damage: the wound is undone and the new roll applied (until its Endurance tests are rolled)."""
    record = (_ns(doc).get("damage") or {}).pop(c.id, None)
    if record is None:
        raise FightRefusal("manoeuvre.error.no_damage_to_reroll", name=c.name)
    if _settled(doc, record):
        raise FightRefusal("manoeuvre.error.damage_settled", name=c.name)
    victim = str(record["victim"])
    undo_damage(doc, victim, record["undo"])
    forget_damage(doc, victim)
    hand = parse_dice(dice, sides=100, limit=30)
    pending = dict(record["pending"])
    w = scope.words
    payload: dict[str, Any] = {"fight_id": doc.row.id, "seq": pending["seq"], "second_chance": True}
    if record["kind"] == "area":
        area = pending["area"]
        rolled = roll_dice(str(area["damage"]["expression"]), scope.rng, hand)
        scope.rolls.append(
            RollNote("combat.damage", rolled.expression, rolled.total, {"second_chance": True})
        )
        lines = [
            w.t("manoeuvre.hero.reroll.damage", before=int(record["rolled"]), after=rolled.total),
        ]
        lines.extend(_area_wound(scope, doc, pending, rolled.total, _dive_check(record["dive"]), [], payload))
        result["reroll"] = {
            "kind": "damage",
            "before": int(record["rolled"]),
            "damage": rolled.to_dict(),
            "area_damage": payload["area_damage"],
            "wounds": payload.get("wounds", []),
        }
        return lines
    pending["hand"] = {**(pending.get("hand") or {}), "damage": hand}
    before = int((record.get("damage") or {}).get("total", 0))
    lines = ogl._wound(
        scope,
        doc,
        pending,
        payload,
        critical=bool(record.get("critical")),
        ignore_armour=bool(record.get("ignore_armour")),
    )
    lines.insert(0, w.t("manoeuvre.hero.reroll.damage", before=before, after=payload["damage"]["total"]))
    new_event(scope, doc, "hit", victim, payload)
    result["reroll"] = {
        "kind": "damage",
        "before": before,
        "damage": payload["damage"],
        "wounds": [payload["wound"]],
    }
    return lines
