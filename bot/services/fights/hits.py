"""Resolving an attack against its defence: the attack request (built again from a pending attack),
the defender's situations, parry weapon and dodge, and the hit itself."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from bot.rules.checks.common import Modifier
from bot.rules.combat.basics import RefusedError, mod
from bot.rules.combat.state import Combatant, can_act, record_parry, take_action
from bot.rules.renove.attack import (
    AttackRequest,
    AttackResult,
    DefenceResult,
    DodgeRequest,
    ParryRequest,
    resolve_attack,
    resolve_dodge,
    resolve_parry,
)
from bot.rules.renove.capture import captures
from bot.rules.renove.damage import roll_damage_die
from bot.rules.renove.specials import deals_damage
from bot.rules.renove.weapon_effects import percutante_active
from bot.rules.sheets import fold
from bot.services.fights._core import (
    DefenceRolls,
    Doc,
    FightRefusal,
    RollNote,
    Scope,
    d100_or_none,
    new_event,
)
from bot.services.fights.capture import capture_lines
from bot.services.fights.damage import _damage, _parry_consequences
from bot.services.fights.roster import (
    _armour_modifier,
    _carry_modifier,
    _list,
    _resolve_weapon,
    _with_carry,
    engaged_terms,
)
from bot.services.fights.specials import instead_of_damage
from bot.services.fights.weapon_effects import tiring_line

SHIELD_BEARER: Final = "ct_cible_avec_bouclier"  # « Tirer sur une cible possédant un bouclier » −10
SHIELD_COVER: Final = "malus_tir_bouclier"  # the Bouclier's attribute (seed l. 296-297)


def with_shield_bearer(scope: Scope, target: Combatant, situations: list[str]) -> list[str]:
    """A shot at a fighter carrying a shield with the attribute « Malus de -10 % CT pour tirer sur
    quelqu'un possédant un bouclier » takes the situation of l. 1392 (−10 % CT), once even when
    the shooter also typed it; another shield (a Rondache) only when the GM types it."""
    covered = any(SHIELD_COVER in scope.tables.weapons[w].attributes for w in target.weapons)
    if covered and SHIELD_BEARER in scope.tables.situation and SHIELD_BEARER not in situations:
        return [*situations, SHIELD_BEARER]
    return situations


def _situations(scope: Scope, text: str | None) -> tuple[str, ...]:
    out = []
    for part in _list(text):
        if part in scope.tables.situation:
            out.append(part)
            continue
        wanted = fold(part)
        found = [
            sid
            for sid in scope.tables.situation
            if wanted in (fold(sid), fold(scope.words.entry_name("combat_modifiers", sid)))
        ]
        if not found:
            raise FightRefusal("combat.refusal.unknown_situation", id=part[:40])
        out.append(found[0])
    return tuple(out)


def _pick_weapon(scope: Scope, c: Combatant, text: str | None) -> str:
    if text:
        wid = _resolve_weapon(scope, text)
        if wid not in c.weapons:
            raise FightRefusal("combat.error.weapon_not_carried", name=c.name, weapon=scope.words.weapon(wid))
        return wid
    for wid in sorted(c.weapons, key=lambda w: w == c.off_hand):  # the main hand's weapon first
        weapon = scope.tables.weapons[wid]
        if weapon.damage is not None and scope.tables.shield_for(wid).pv is None:
            return wid
    return c.weapons[0]


def _request(scope: Scope, data: Mapping[str, Any]) -> AttackRequest:
    return AttackRequest(
        weapon=scope.tables.weapon(str(data["weapon"])),
        base=int(data["base"]),
        opponent_cc=data.get("opponent_cc"),
        posture=str(data.get("posture", "normale")),
        posture_option=data.get("posture_option"),
        attack_number=int(data.get("attack_number", 1)),
        situation=tuple(data.get("situation", ())),
        aim=data.get("aim"),
        charge=bool(data.get("charge", False)),
        off_hand=bool(data.get("off_hand", False)),
        distance=data.get("distance"),
        into_melee=bool(data.get("into_melee", False)),
        special=data.get("special"),
        special_k=int(data.get("special_k", 1)),
        feint_won=bool(data.get("feint_won", False)),
        talents=frozenset(data.get("talents", ())),
        extra=((mod("armour_malus", int(data["armour_malus"])),) if data.get("armour_malus") else ())
        + tuple(Modifier(str(label), int(value)) for label, value in data.get("engaged", ())),
        defence_extra=_bashed(data),
    )


def _bashed(data: Mapping[str, Any]) -> tuple[Modifier, ...]:
    """A shield bash taken: its malus on the parry and the dodge of this attack."""
    return (mod("shield_bashed", int(data["shield_bashed"])),) if data.get("shield_bashed") else ()


def _replay_attack(scope: Scope, pending: Mapping[str, Any]) -> AttackResult:
    return resolve_attack(
        scope.tables,
        _request(scope, pending["request"]),
        attack_roll=int(pending["attack_roll"]),
        adjacent_roll=pending.get("adjacent_roll"),
        zone=pending.get("zone"),
    )


# the defender's conditions that bring a defence situation of combat_modifiers.json by themselves
CONDITION_SITUATIONS: Final[dict[str, str]] = {"prone": "def_a_terre"}


def _defence_situations(scope: Scope, defender: Combatant, text: str | None) -> tuple[str, ...]:
    """The defence situations of this parry / dodge: those the defender's conditions bring (on the
    ground after a fall: −20 %), then those typed with the defence."""
    derived = [
        sid
        for kind, sid in CONDITION_SITUATIONS.items()
        if defender.has(kind) and sid in scope.tables.situation
    ]
    return tuple(dict.fromkeys((*derived, *_situations(scope, text))))


def _parry_weapon(scope: Scope, c: Combatant) -> str | None:
    melee = [w for w in c.weapons if scope.tables.weapons[w].kind == "melee"]
    for wid in melee:
        if scope.tables.shield_for(wid).pv is not None:
            return wid
    return melee[0] if melee else None


def _dodge_mastery(doc: Doc, c: Combatant) -> tuple[Modifier, ...]:
    """Esquive +10 or +20 on the sheet: the dodge is Ag + that mastery, as ``/test`` reads it."""
    mastery = int((doc.meta.get(c.id, {}).get("masteries") or {}).get("esquive", 0))
    return (mod("dodge_mastery", mastery),) if mastery else ()


def _has_dodge(c: Combatant) -> bool:
    return "esquive" in c.talents or "esquive" in c.skills or "dodge" in c.skills


def _parry_setup(
    scope: Scope, defender: Combatant, attacker: Combatant, situation: str | None
) -> tuple[Combatant, str, str, ParryRequest]:
    """How ``defender`` parries now: the prepared parry, else a reactive parry (no A left), else
    one A of this round; the defender after it, the mode, the parry weapon and the request.
    Refused (nothing spent) when he cannot parry."""
    tables = scope.tables
    pw = _parry_weapon(scope, defender)
    if pw is None:
        raise FightRefusal("combat.refusal.parry_needs_melee_weapon")
    acts = defender.actions
    reactive = False
    if acts.parry_prepared and not acts.parried:
        defender = record_parry(defender)
        mode = "prepared"
    elif can_act(tables, defender, "parade_reactive") is None:
        reactive = True
        defender = take_action(tables, defender, "parade_reactive")
        mode = "reactive"
    else:
        refusal = can_act(tables, defender, "preparer_parade")
        if refusal is not None:
            raise RefusedError(refusal)
        defender = record_parry(take_action(tables, defender, "preparer_parade"))
        mode = "spent_a"
    request = ParryRequest(
        cc=defender.stat("CC"),
        attacker_cc=attacker.stat("CC"),
        weapon=tables.weapon(pw),
        posture=defender.posture,
        reactive=reactive,
        talents=defender.talents,
        situation=_defence_situations(scope, defender, situation),
        extra=tuple(m for m in (_armour_modifier(scope, defender, "CC"),) if m is not None)
        + engaged_terms(defender),
    )
    return defender, mode, pw, request


def _dodge_request(scope: Scope, doc: Doc, defender: Combatant, situation: str | None) -> DodgeRequest:
    carry = _carry_modifier(scope, defender)
    worn = _armour_modifier(scope, defender, "Ag")
    return DodgeRequest(
        ag=defender.stat("Ag") + (carry.value if carry else 0) + (worn.value if worn else 0),
        has_skill=_has_dodge(defender),
        posture=defender.posture,
        situation=_defence_situations(scope, defender, situation),
        extra=_dodge_mastery(doc, defender) + engaged_terms(defender),
    )


def defence_chances(scope: Scope, doc: Doc, pending: Mapping[str, Any]) -> dict[str, int]:
    """The defences the rules allow ``pending``'s defender now, each with its chance of success (the
    parry's or dodge's target, as the roll would be read; nothing rolled or spent); « encaisser »
    is always there (0)."""
    tables = scope.tables
    attack_result = _replay_attack(scope, pending)
    attacker = doc.state.get(pending["attacker"])
    defender = doc.state.get(pending["defender"])
    out: dict[str, int] = {}
    if attack_result.hit:
        try:
            _, _, _, request = _parry_setup(scope, defender, attacker, None)
            parry = resolve_parry(tables, attack_result, request, parry_roll=100)
        except (FightRefusal, RefusedError):
            parry = None
        if parry is not None and parry.refusal is None and parry.check is not None:
            out["parer"] = max(0, min(100, parry.check.target))
        if can_act(tables, defender, "esquiver") is None:
            dodge = resolve_dodge(
                tables, attack_result, _dodge_request(scope, doc, defender, None), dodge_roll=100
            )
            if dodge.refusal is None and dodge.check is not None:
                out["esquiver"] = max(0, min(100, dodge.check.target))
    out["encaisser"] = 0
    return out


def _resolve_hit(
    scope: Scope,
    doc: Doc,
    pending: Mapping[str, Any],
    choice: str,
    rolls: DefenceRolls,
    payload: dict[str, Any],
) -> list[str]:
    """Defence (if any), then damage, armour, critical and effects. Mutates ``doc``; lines for the reply."""
    w = scope.words
    tables = scope.tables
    attack_result = _replay_attack(scope, pending)
    attacker = doc.state.get(pending["attacker"])
    defender = doc.state.get(pending["defender"])
    weapon = tables.weapon(pending["request"]["weapon"])
    hand = pending.get("hand") or {}
    lines: list[str] = []
    defence: DefenceResult | None = None
    if choice == "parer":
        defender, mode, pw, request = _parry_setup(scope, defender, attacker, rolls.situation)
        defence = resolve_parry(
            tables, attack_result, request, rng=scope.rng, parry_roll=d100_or_none(rolls.roll)
        )
        if defence.refusal is not None:
            raise RefusedError(defence.refusal)
        doc.state = doc.state.put(defender)
        assert defence.check is not None
        lines.append(
            w.t(f"combat.defence.parry.{mode}", name=defender.name, weapon=w.weapon(pw))
            + " : "
            + w.check_block(defence.check)
        )
        payload["parry_weapon"] = pw
    elif choice == "esquiver":
        refusal = can_act(tables, defender, "esquiver")
        if refusal is not None:
            raise RefusedError(refusal)
        carry = _carry_modifier(scope, defender)
        worn = _armour_modifier(scope, defender, "Ag")
        defence = resolve_dodge(
            tables,
            attack_result,
            _dodge_request(scope, doc, defender, rolls.situation),
            rng=scope.rng,
            dodge_roll=d100_or_none(rolls.roll),
        )
        if defence.refusal is not None:
            raise RefusedError(defence.refusal)
        if defence.check is not None:
            defence = replace(defence, check=_with_carry(defence.check, carry, worn))
        defender = take_action(tables, defender, "esquiver")
        doc.state = doc.state.put(defender)
        assert defence.check is not None
        lines.append(w.t("combat.defence.dodge", name=defender.name) + " : " + w.check_block(defence.check))
    else:
        lines.append(w.t("combat.defence.takes", name=defender.name))
    if defence is not None:
        payload["defence"] = defence.to_dict()
        assert defence.check is not None
        scope.rolls.append(
            RollNote(
                f"combat.{defence.kind}",
                "1d100",
                defence.check.roll,
                {"fight_id": doc.row.id, "seq": pending["seq"], **defence.to_dict()},
            )
        )
    if defence is not None and defence.success and defence.kind == "dodge":
        lines.append(w.t("combat.defence.dodged"))  # no damage: the damage die is not rolled
        new_event(scope, doc, "defence", pending["defender"], payload)
        return lines
    if not deals_damage(tables, pending["request"].get("special")):
        if defence is not None and defence.success:  # parried: the blow did nothing (reading)
            lines.append(w.t("combat.special.parried"))
            new_event(scope, doc, "defence", pending["defender"], payload)
            return lines
        lines.extend(instead_of_damage(scope, doc, pending, attack_result, weapon, payload))
        return lines
    captured = capture_lines(scope, doc, pending, weapon, defence, payload)
    if captures(tables, weapon) and weapon.damage is None:  # a net, bolas, a lasso: no damage
        lines.extend(captured or ())
        new_event(scope, doc, "hit" if captured else "defence", pending["defender"], payload)
        return lines
    lines.extend(captured or ())
    percutante = percutante_active(tables, weapon, attacker.stat("BE"), doc.state.round)
    if not percutante:
        lines.append(tiring_line(scope, attacker, weapon))
    die = roll_damage_die(
        tables,
        weapon,
        attack_result,
        rng=scope.rng,
        damage_dice=hand.get("damage") or None,
        percutante_active=percutante,
    )
    payload["damage_die"] = die.to_dict()
    scope.rolls.append(
        RollNote(
            "combat.damage",
            die.expression,
            die.kept,
            {"fight_id": doc.row.id, "seq": pending["seq"], **die.to_dict()},
        )
    )
    if defence is not None and defence.success:
        lines.extend(_parry_consequences(scope, doc, pending, attack_result, die, payload, rolls))
        new_event(scope, doc, "defence", pending["defender"], payload)
        return lines
    lines.extend(_damage(scope, doc, pending, attack_result, die, payload))
    new_event(scope, doc, "hit", pending["defender"], payload)
    return lines
