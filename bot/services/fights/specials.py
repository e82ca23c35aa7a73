"""Special actions that do not wound (`renove`): what a Coup assommant or a Désarmement does once it
got through, in place of damage (:mod:`bot.rules.renove.specials`).

Dice typed by hand: ``effets:`` gives the opposed test's d100s, attacker then defender (then again
for a reroll); ``durees:`` the stun's d10."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from bot.rules.checks.common import Modifier
from bot.rules.combat.effects import Condition
from bot.rules.combat.state import Combatant
from bot.rules.combat.tables import Weapon
from bot.rules.renove import specials as rules
from bot.rules.renove.armour import zone_armour
from bot.rules.renove.attack import AttackResult
from bot.services.fights._core import Doc, FightRefusal, RollNote, Scope, new_event
from bot.services.fights.roster import _armour_modifier, engaged_terms
from bot.services.wounds import colon


def opposed_lines(
    scope: Scope, test: rules.SpecialTest, attacker: Combatant, defender: Combatant
) -> list[str]:
    """Every round of the opposed test, then what it did."""
    w = scope.words
    lines = []
    for rnd in test.test.rounds:
        lines.append(attacker.name + colon(w) + w.check_block(rnd.a))
        lines.append(defender.name + colon(w) + w.check_block(rnd.b))
    lines.append(
        w.t(
            rules.outcome_key(test),
            name=attacker.name,
            target=defender.name,
            duration=_rounds(scope, test.stunned_rounds or 0),
            metres=test.metres,
        )
    )
    return lines


def _rounds(scope: Scope, count: int) -> str:
    return scope.t("combat.special.rounds_one" if count == 1 else "combat.special.rounds", count=count)


def _weapon_bf(weapon: Weapon, attacker: Combatant) -> int:
    """« BF de l'arme » at range: a fixed damage's value, else the wielder's BF + the modifier."""
    if weapon.damage is None:
        return 0
    if weapon.damage.base == "fixed":
        return weapon.damage.value
    return attacker.stat("BF") + weapon.damage.modifier


def _typed_d10(value: int | None) -> int | None:
    if value is not None and not 1 <= value <= 10:
        raise FightRefusal("combat.error.roll_range", value=value, sides=10)
    return value


def instead_of_damage(
    scope: Scope,
    doc: Doc,
    pending: Mapping[str, Any],
    attack_result: AttackResult,
    weapon: Weapon,
    payload: dict[str, Any],
) -> list[str]:
    """The blow got through: its special action's opposed test, no damage, no critical."""
    special = str(pending["request"]["special"])
    attacker = doc.state.get(pending["attacker"])
    defender = doc.state.get(pending["defender"])
    hand = pending.get("hand") or {}
    typed = list(hand.get("effects") or ())
    w = scope.words
    lines = [w.t("combat.special.no_damage", special=w.entry_name("special_actions", special))]
    if special == rules.STUN:
        zone = attack_result.zone
        pa = zone_armour(scope.tables.armour, zone, defender.armour).sure if zone else 0
        durations = list(hand.get("durations") or ())
        test = rules.stun_blow(
            weapon,
            attacker.stat("F"),
            defender.stat("E"),
            pa,
            rng=scope.rng,
            ranged=weapon.kind == "ranged",
            weapon_bf=_weapon_bf(weapon, attacker),
            rolls=typed,
            duration_roll=_typed_d10(durations[0] if durations else None),
        )
        if test.won and test.stunned_rounds:
            stunned = Condition("stunned", f"special.{special}", remaining=test.stunned_rounds, unit="round")
            doc.state = doc.state.put(replace(defender, conditions=(*defender.conditions, stunned)))
    elif special == rules.DISARM:
        test = rules.disarm(attacker.stat("Ag"), defender.stat("Ag"), rng=scope.rng, rolls=typed)
        if test.won:
            lines.extend(_disarmed(scope, doc, defender))
    else:
        return lines
    payload["special"] = test.to_dict()
    scope.rolls.append(
        RollNote(
            f"combat.special.{special}",
            "1d100",
            test.test.rounds[-1].a.roll if test.test.rounds else 0,
            {"fight_id": doc.row.id, "seq": pending["seq"], **test.to_dict()},
        )
    )
    lines[1:1] = opposed_lines(scope, test, attacker, defender)
    new_event(scope, doc, "special", pending["defender"], payload)
    return lines


def _disarmed(scope: Scope, doc: Doc, defender: Combatant) -> list[str]:
    """The defender lets go of the weapon he fights with (not his shield); bare hands if none is left."""
    c = doc.state.get(defender.id)
    held = next(
        (x for x in c.weapons if x != "mains_nues" and scope.tables.shield_for(x).pv is None),
        None,
    )
    if held is None:
        return []
    remaining = tuple(x for x in c.weapons if x != held) or ("mains_nues",)
    doc.state = doc.state.put(
        replace(c, weapons=remaining, off_hand=None if c.off_hand == held else c.off_hand)
    )
    return [scope.words.t("combat.special.disarmed", name=c.name, weapon=scope.words.weapon(held))]


# --- Frappe de bouclier: an opposed CC test in place of the attack ---------------------------------


def carried_shield(scope: Scope, c: Combatant) -> str | None:
    """The shield the fighter carries (the bash's weapon when none is named)."""
    return next((x for x in c.weapons if SHIELD_BASH_ID in scope.tables.weapons[x].special_actions), None)


SHIELD_BASH_ID = rules.SHIELD_BASH


def spend_shield_a(before: Combatant, after: Combatant) -> tuple[Combatant, bool]:
    """« avec l'A du bouclier »: the shield held as a second weapon gives its own A; the bash takes it
    while it is unused — the fighter keeps his slot and his A for an attack (reading) — else an
    ordinary A, and the turn passes. The bash is no attack: no extra-attack malus on the next ones.
    Returns the fighter and whether the shield's A was used."""
    acts = replace(after.actions, attacks_made=before.actions.attacks_made)
    shield_a = before.off_hand is not None and not before.actions.second_weapon_used
    if shield_a:
        acts = replace(acts, used=before.actions.used, second_weapon_used=True)
    return replace(after, actions=acts), shield_a


def bash(
    scope: Scope,
    doc: Doc,
    c: Combatant,
    foe: Combatant,
    *,
    first_roll: int | None,
    typed: list[int],
    extra_a: tuple[Modifier, ...] = (),
    extra_b: tuple[Modifier, ...] = (),
) -> tuple[list[str], dict[str, Any]]:
    """Roll the bash (``first_roll``: the basher's d100; ``typed``: the foe's, then the rerolls); won:
    the next attack against ``foe`` is at −20 % to parry or dodge."""
    ws_a, ws_b = doc.state.combat_ws(c.id, foe.id, scope.tables)
    first = first_roll if first_roll is not None else scope.rng.randint(1, 100)
    test = rules.shield_bash(
        c.stat("CC"),
        ws_a,
        foe.stat("CC"),
        ws_b,
        rng=scope.rng,
        rolls=[first, *typed],
        extra_a=extra_a,
        extra_b=extra_b,
    )
    if test.won:
        doc.data.setdefault("shield_bashed", {})[foe.id] = bash_malus(scope)
    result = test.to_dict()
    scope.rolls.append(
        RollNote(f"combat.special.{SHIELD_BASH_ID}", "1d100", first, {"fight_id": doc.row.id, **result})
    )
    return opposed_lines(scope, test, c, foe), result


def bash_malus(scope: Scope) -> int:
    """The −20 of special_actions.json (``defence_against_next_attack``)."""
    for m in scope.tables.special_actions[SHIELD_BASH_ID].get("effects", ()):
        if m.get("scope") == "defence_against_next_attack":
            return int(m["value"])
    return 0


def bashed_modifier(doc: Doc, foe: Combatant) -> dict[str, int]:
    """The bash's malus the attack against ``foe`` carries to his defence (used up by this attack)."""
    value = doc.data.get("shield_bashed", {}).pop(foe.id, None)
    return {"shield_bashed": int(value)} if value else {}


# --- Manœuvrer: an opposed CC test, a push and a fall test ----------------------------------------


def manoeuvre(
    scope: Scope,
    doc: Doc,
    c: Combatant,
    foe: Combatant,
    *,
    roll: int | None,
    target_roll: int | None,
    typed: list[int],
) -> tuple[list[str], dict[str, Any]]:
    """Manœuvrer (seed l. 993-994): ``roll``/``target_roll`` the first d100s, ``typed`` the rerolls
    (pairs) then the fall test. Won: pushed °R × 2 m, then Ag +20 % not to fall (prone if failed)."""
    w = scope.words
    ws_a, ws_b = doc.state.combat_ws(c.id, foe.id, scope.tables)
    first = [x if x is not None else scope.rng.randint(1, 100) for x in (roll, target_roll)]
    worn = [_worn_terms(scope, x) for x in (c, foe)]
    rolls = [*first, *typed]
    test = rules.manoeuvre(
        c.stat("CC"),
        ws_a,
        foe.stat("CC"),
        ws_b,
        foe.stat("Ag"),
        rng=scope.rng,
        rolls=rolls,
        extra_a=worn[0]["CC"],
        extra_b=worn[1]["CC"],
        foe_ag_terms=worn[1]["Ag"],
    )
    lines = opposed_lines(scope, test, c, foe)
    if test.fall is not None:
        lines.append(w.t("combat.special.fall_test") + colon(w) + w.check_block(test.fall))
        if test.fell:
            now = doc.state.get(foe.id)
            prone = Condition("prone", "special.manoeuvrer", until="stands_up")
            doc.state = doc.state.put(replace(now, conditions=(*now.conditions, prone)))
            lines.append(w.t("combat.event.fall", name=foe.name))
        else:
            lines.append(w.t("combat.special.stays_up", name=foe.name))
    scope.rolls.append(
        RollNote("combat.special.manoeuvrer", "1d100", first[0], {"fight_id": doc.row.id, **test.to_dict()})
    )
    return lines, test.to_dict()


def _worn_terms(scope: Scope, c: Combatant) -> dict[str, tuple[Modifier, ...]]:
    """The armour's CC and Ag maluses as test terms (as on an attack and a dodge)."""
    out: dict[str, tuple[Modifier, ...]] = {}
    for stat in ("CC", "Ag"):
        term = _armour_modifier(scope, c, stat)
        out[stat] = ((term,) if term is not None else ()) + (engaged_terms(c) if stat == "CC" else ())
    return out
