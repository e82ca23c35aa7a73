"""Special actions that do not wound (`renove`): what a Coup assommant or a Désarmement does once it
got through, in place of damage (:mod:`bot.rules.renove.specials`).

Dice typed by hand: ``effets:`` gives the opposed test's d100s, attacker then defender (then again
for a reroll); ``durees:`` the stun's d10."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from bot.rules.combat.effects import Condition
from bot.rules.combat.state import Combatant
from bot.rules.combat.tables import Weapon
from bot.rules.renove import specials as rules
from bot.rules.renove.armour import zone_armour
from bot.rules.renove.attack import AttackResult
from bot.services.fights._core import Doc, FightRefusal, RollNote, Scope, new_event


def opposed_lines(
    scope: Scope, test: rules.SpecialTest, attacker: Combatant, defender: Combatant
) -> list[str]:
    """Every round of the opposed test, then what it did."""
    w = scope.words
    lines = []
    for rnd in test.test.rounds:
        lines.append(f"{attacker.name} : " + w.check_block(rnd.a))
        lines.append(f"{defender.name} : " + w.check_block(rnd.b))
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
