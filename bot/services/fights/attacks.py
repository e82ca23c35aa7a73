"""Attacks: the input, situations, the weapon, the request to the combat core, and the pending
defence it leaves."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from bot.context import AppContext
from bot.rules.combat.basics import Refusal, RefusedError, mod
from bot.rules.combat.state import Combatant, can_act
from bot.rules.random_source import RandomSource
from bot.rules.renove.attack import charge_reach, resolve_attack
from bot.rules.sheets import fold, shown_code
from bot.services.caller import Caller
from bot.services.fights._core import (
    OTHER_RULESETS,
    DefenceRolls,
    Doc,
    FightOutcome,
    FightRefusal,
    RollNote,
    Scope,
    attack_payload,
    d100_or_none,
    fight_by_id,
    fight_here,
    new_event,
    outcome,
    parse_dice,
    pending_defence,
    run,
)
from bot.services.fights.destiny import merge_rows, offer_lines
from bot.services.fights.hits import _request, _resolve_hit, _situations, with_shield_bearer
from bot.services.fights.npc_defence import defence_buttons, defence_prompt, mode_of, pick
from bot.services.fights.profiles import attack_weapon
from bot.services.fights.profiles import label as profile_label
from bot.services.fights.registry import system_of
from bot.services.fights.roster import _armour_maluses, engaged_terms
from bot.services.fights.rounds import _actor, _pass_turn, _spend, _turn_line, second_weapon_buttons
from bot.services.fights.sides import (
    ask_friendly_fire,
    ask_which_fighter,
    cancel_ask,
    gm_on_a_pc_turn,
    take_ask,
)
from bot.services.fights.specials import SHIELD_BASH_ID, bash, bashed_modifier, carried_shield, spend_shield_a
from bot.services.fights.weapon_effects import malfunction_lines, refuse_jammed, refuse_weak_bow
from bot.ui.reply import Button, Colour, Reply


@dataclass(frozen=True, slots=True)
class AttackInput:
    target: str
    attacker: str | None = None
    weapon: str | None = None
    zone: str | None = None
    roll: int | None = None
    damage: str | None = None
    coverage: str | None = None
    critical: int | None = None
    effects: str | None = None
    durations: str | None = None
    situation: str | None = None
    distance: float | None = None
    into_melee: bool = False
    special: str | None = None
    k: int = 1
    charge: bool = False
    stray_victim: str | None = None
    adjacent: int | None = None
    location: str | None = None  # other rulesets: the location aimed at / hit


async def attack(
    ctx: AppContext,
    caller: Caller,
    data: AttackInput,
    *,
    rng: RandomSource | None = None,
    fight_id: int | None = None,
    ask: int | None = None,
    actor: str | None = None,
) -> FightOutcome:
    """Roll an attack against ``target``; a hit waits for the defender's choice (stored, not in memory).
    An ally as the target, or the GM on a PC's turn without ``attacker``, asks first (see
    :mod:`.sides`); ``ask`` answers such a question: its stored request replaces ``data`` (``actor``:
    the fighter the GM picked)."""

    async def work(scope: Scope) -> FightOutcome:
        nonlocal data
        doc = await (fight_by_id(scope, fight_id) if fight_id is not None else fight_here(scope))
        confirmed = False
        if ask is not None:
            stored = take_ask(scope, doc, ask)
            data = AttackInput(**stored["input"])
            if actor is not None:
                data = replace(data, attacker=actor)
            confirmed = stored["kind"] == "attack"
        checked = before_attack(scope, doc, data, confirmed=confirmed)
        if isinstance(checked, FightOutcome):
            return checked
        data = checked
        if doc.row.ruleset in OTHER_RULESETS:
            done: FightOutcome = await system_of(doc.row.ruleset).attack(scope, doc, data)
            return done
        c = _actor(scope, doc, data.attacker)
        foe = doc.find(data.target)
        if foe.id == c.id:
            raise FightRefusal("combat.error.self_attack")
        if data.special:
            data = replace(data, special=special_id(scope, data.special))
        if foe.has("dead"):
            raise FightRefusal("combat.error.target_dead", name=foe.name)
        held = attack_weapon(scope, c, data.weapon)
        refuse_jammed(scope, doc, c, held.carried)
        wid = held.profile
        if data.special == SHIELD_BASH_ID and not data.weapon:
            wid = carried_shield(scope, c) or wid
        weapon = scope.tables.weapons[wid]
        refuse_weak_bow(scope, c, weapon)
        action = "charger" if data.charge else ("action_speciale" if data.special else "attaquer")
        refusal = can_act(scope.tables, c, action)
        if refusal:
            raise RefusedError(refusal)
        if data.special == SHIELD_BASH_ID:
            return await _shield_bash(scope, doc, c, foe, wid, data)
        if data.charge:
            _check_charge_distance(scope, c, data.distance)
        ranged = weapon.kind == "ranged"
        aim = doc.data.get("aim", {}).get(c.id)
        feint_won = doc.data.get("feint", {}).get(c.id) == foe.id
        request_data: dict[str, Any] = {
            "weapon": wid,
            "base": c.stat("CT" if ranged else "CC"),
            "opponent_cc": None if ranged else foe.stat("CC"),
            "posture": c.posture,
            "posture_option": c.posture_option,
            "attack_number": c.actions.attacks_made + 1,
            "situation": list(_situations(scope, data.situation)),
            "aim": aim,
            "charge": data.charge,
            "off_hand": c.off_hand == held.carried,
            "distance": data.distance,
            "into_melee": data.into_melee,
            "special": data.special,
            "special_k": data.k,
            "feint_won": feint_won,
            "talents": sorted(c.talents),
            **({"carried": held.carried} if held.combined else {}),
        }
        armour_malus = _armour_maluses(scope, c).of("CT" if ranged else "CC")
        if armour_malus:
            request_data["armour_malus"] = armour_malus
        if ranged:
            request_data["situation"] = with_shield_bearer(scope, foe, request_data["situation"])
        request_data.update(bashed_modifier(doc, foe))
        engaged = engaged_terms(c)
        if engaged:
            request_data["engaged"] = [[m.label, m.value] for m in engaged]
        if data.zone is not None and data.zone not in scope.tables.hit_location.reachable(99):
            raise FightRefusal("combat.error.bad_zone")
        result = resolve_attack(
            scope.tables,
            _request(scope, request_data),
            rng=scope.rng,
            attack_roll=d100_or_none(data.roll),
            adjacent_roll=data.adjacent,
            zone=data.zone,
        )
        hand = {
            "damage": parse_dice(data.damage, option="damage", sides=10, limit=4),
            "coverage": parse_dice(data.coverage, option="coverage"),
            "critical": d100_or_none(data.critical),
            "effects": parse_dice(data.effects, option="effects"),
            "durations": parse_dice(data.durations, option="durations", sides=100),
        }
        _spend(scope, doc, c, action, advance=False)
        doc.data.get("aim", {}).pop(c.id, None)
        doc.data.get("feint", {}).pop(c.id, None)
        seq = new_event(
            scope,
            doc,
            "attack",
            c.id,
            {"target": foe.id, "attack": result.to_dict(), "request": request_data},
        )
        scope.rolls.append(
            RollNote(
                "combat.attack",
                "1d100",
                result.check.roll,
                {
                    "fight_id": doc.row.id,
                    "seq": seq,
                    "attacker": c.name,
                    "target": foe.name,
                    **result.to_dict(),
                },
            )
        )
        w = scope.words
        lines = [
            w.t("combat.attack.test", test=shown_code("CT" if ranged else "CC", w.en))
            + (": " if w.en else " : ")
            + w.terms(result.check.modifiers, result.check.target, " %"),
            w.t("combat.word.roll") + " " + w.check(result.check),
        ]
        payload = attack_payload(doc, seq, c.id, foe.id, result.to_dict())
        buttons: tuple[tuple[Button, ...], ...] = ()
        ping: int | None = None
        victim = foe
        if result.hit and result.stray:
            lines.append(w.t("combat.attack.stray", roll=result.stray_roll or "?"))
            if data.stray_victim:
                victim = doc.find(data.stray_victim)
            else:
                victim = None  # type: ignore[assignment]
                lines.append(w.t("combat.attack.stray_unresolved"))
        if result.hit and victim is not None:
            lines.append(
                w.t(
                    "combat.attack.location",
                    degrees=w.terms(result.location_steps, result.location_degrees),
                    zone=w.zone(result.zone),
                    reachable=", ".join(w.zone(z) for z in result.reachable),
                )
            )
            if result.natural is not None:
                lines.append(w.t(f"combat.note.natural_{result.natural.roll:02d}"))
            pending = pending_defence(
                scope,
                doc,
                seq,
                c.id,
                victim.id,
                request=request_data,
                attack_roll=result.check.roll,
                adjacent_roll=result.stray_roll,
                zone=result.zone,
                hand=hand,
            )
            no_defence = (result.cannot_parry and result.cannot_dodge) or victim.has("dead", "unconscious")
            if no_defence:
                reasons = [w.refusal(r) for r in {result.cannot_parry, result.cannot_dodge} if r]
                lines.append(
                    w.t(
                        "combat.defence.none",
                        name=victim.name,
                        why=", ".join(reasons) or w.t("combat.condition_kind.unconscious"),
                    )
                )
                lines.extend(_resolve_hit(scope, doc, pending, "encaisser", DefenceRolls(), payload))
            elif mode_of(doc, victim) != "manuel":  # the NPC defends by himself, at once
                choice, said, payload["auto_defence"] = pick(scope, doc, pending, mode_of(doc, victim))
                lines.append(said)
                lines.extend(_resolve_hit(scope, doc, pending, choice, DefenceRolls(), payload))
            else:
                doc.pending[str(seq)] = pending
                payload["pending"] = True
                # the attacked player is notified (content, exactly him allowed); not the GM for
                # each of his NPCs, not the caller attacking his own fighter
                owner = doc.owner(victim.id)
                if doc.meta.get(victim.id, {}).get("kind") == "pc" and owner != scope.caller.user_id:
                    ping = owner
                lines.append(defence_prompt(scope, doc, pending, _mention(doc, victim.id)))
                buttons = defence_buttons(scope, doc, pending)
        elif not result.hit:
            lines.append(w.t("combat.attack.missed", name=foe.name))
        for note in result.notes:
            lines.append(w.t(note))
        lines.extend(malfunction_lines(scope, doc, c, held.carried, weapon, result.check.roll))
        lines.extend(_pass_turn(scope, doc))
        offered, destiny_rows = await offer_lines(scope, doc)  # a PC killed without a defence
        lines.extend(offered)
        buttons = merge_rows(destiny_rows, buttons, second_weapon_buttons(scope, doc))
        turn = _turn_line(scope, doc)
        if turn:
            lines.append(turn)
        doc.save()
        special = f" · {w.entry_name('special_actions', data.special)}" if data.special else ""
        charge = f" · {w.t('combat.action.charger')}" if data.charge else ""
        reply = Reply(
            title=f"⚔️ {c.name} → {foe.name} · {profile_label(w, held)}{special}{charge}"
            if held.combined
            else f"⚔️ {c.name} → {foe.name} ({w.weapon(wid)}){special}{charge}",
            description="\n".join(lines)[:4000],
            colour=Colour.SUCCESS if result.hit else Colour.FAILURE,
            buttons=buttons,
            content=f"<@{ping}>" if ping else None,
            mentions=(ping,) if ping else (),
            result=payload,
            kind="combat.attack",
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work, rng=rng)


async def _shield_bash(
    scope: Scope, doc: Doc, c: Combatant, foe: Combatant, wid: str, data: AttackInput
) -> FightOutcome:
    """Frappe de bouclier (seed l. 1206-1208): no attack roll, no damage; an opposed CC test at
    +10 % with the shield's A. ``jet:`` is the basher's d100, ``effets:`` the foe's then the rerolls."""
    if SHIELD_BASH_ID not in scope.tables.weapons[wid].special_actions:
        raise RefusedError(
            Refusal("combat.refusal.special_needs_weapon", (("special", SHIELD_BASH_ID), ("weapon", wid)))
        )
    w = scope.words
    worn = [(_armour_maluses(scope, x).cc, x) for x in (c, foe)]
    extra = [((mod("armour_malus", v),) if v else ()) + engaged_terms(x) for v, x in worn]
    before = c
    after, _ = _spend(scope, doc, c, "action_speciale", advance=False)
    spent, shield_a = spend_shield_a(before, after)
    doc.state = doc.state.put(spent)
    lines, result = bash(
        scope,
        doc,
        c,
        foe,
        first_roll=d100_or_none(data.roll),
        typed=parse_dice(data.effects, option="effects"),
        extra_a=extra[0],
        extra_b=extra[1],
    )
    new_event(scope, doc, "action", c.id, {"action": "action_speciale", "target": foe.id, "special": result})
    if not shield_a:  # the shield's own A leaves the slot to the fighter's attack
        lines.extend(_pass_turn(scope, doc))
    turn = _turn_line(scope, doc)
    if turn:
        lines.append(turn)
    doc.save()
    reply = Reply(
        title=f"🛡️ {c.name} → {foe.name} ({w.weapon(wid)}) · "
        + w.entry_name("special_actions", SHIELD_BASH_ID),
        description="\n".join(lines)[:4000],
        colour=Colour.SUCCESS if result["won"] else Colour.FAILURE,
        result={"special": result, "attacker": c.id, "target": foe.id},
        kind="combat.special",
    )
    return outcome(scope, doc, reply)


def before_attack(
    scope: Scope, doc: Doc, data: AttackInput, *, confirmed: bool
) -> AttackInput | FightOutcome:
    """The attack's questions: which fighter attacks (the GM on a PC's turn), an ally as the target
    (unless ``confirmed``). The request with its attacker named when it may go on; else the question."""
    _check_typed(scope, doc, data)
    pc = gm_on_a_pc_turn(scope, doc, data.attacker)
    if pc is not None:
        return ask_which_fighter(scope, doc, pc, data)
    c = _actor(scope, doc, data.attacker)
    foe = doc.find(data.target)
    slot = doc.state.current_slot
    on_turn = not doc.data.get("round_over") and slot is not None and slot.combatant == c.id
    # an attack the turn order refuses anyway is refused at once, without a question first
    if on_turn and foe.id != c.id and c.allied_with(foe) and not foe.has("dead") and not confirmed:
        return ask_friendly_fire(scope, doc, c, foe, replace(data, attacker=c.id))
    return replace(data, attacker=c.id)


def _check_typed(scope: Scope, doc: Doc, data: AttackInput) -> None:
    """Before a question is asked: what was typed badly is refused now, not after the answer (every
    ruleset's dice lists are within these bounds; each system's own reading follows)."""
    for option, text in (
        ("damage", data.damage),
        ("coverage", data.coverage),
        ("effects", data.effects),
        ("durations", data.durations),
    ):
        parse_dice(text, option=option, sides=100, limit=60)
    if doc.row.ruleset not in OTHER_RULESETS:
        _situations(scope, data.situation)


def _check_charge_distance(scope: Scope, c: Combatant, distance: float | None) -> None:
    """A charge at a typed distance must cover M to 3 M metres (seed l. 986); without a distance
    typed, or without M, the GM's word stands."""
    reach = charge_reach(c.stat("M"))
    if distance is None or reach is None or reach[0] <= distance <= reach[1]:
        return
    text = f"{distance:g}" if scope.words.en else f"{distance:g}".replace(".", ",")
    raise FightRefusal(
        "combat.error.charge_distance", name=c.name, distance=text, low=reach[0], high=reach[1]
    )


def special_id(scope: Scope, text: str) -> str:
    """A special action typed by its id, French or English name (case and accents folded)."""
    wanted = fold(text).replace("_", " ")
    for sid, entry in scope.tables.special_actions.items():
        names = (sid, entry.get("name") or "", entry.get("name_en") or "")
        if wanted in (fold(str(n)).replace("_", " ") for n in names):
            return sid
    raise FightRefusal("combat.error.unknown_special", name=text[:40])


def _mention(doc: Doc, cid: str) -> str:
    owner = doc.owner(cid)
    return f"<@{owner}>" if owner else ""


async def answer_ask(
    ctx: AppContext, caller: Caller, *, fight_id: int, number: int, accept: bool, actor: str | None = None
) -> FightOutcome:
    """A question before an attack answered: « Confirmer » (or the fighter picked) runs the stored
    attack, through every check again; « Annuler » drops it and leaves the fight as it was."""
    if not accept:
        return await cancel_ask(ctx, caller, fight_id=fight_id, number=number)
    return await attack(ctx, caller, AttackInput(target=""), fight_id=fight_id, ask=number, actor=actor)
