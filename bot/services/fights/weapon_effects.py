"""Weapon attributes in fights beyond the attack test: Epuisante (Percutante runs out), Peu fiable and
Expérimentale (the weapon jams, gets stuck, hurts or bursts).

Rules: :mod:`bot.rules.renove.weapon_effects`."""

from __future__ import annotations

from bot.rules.combat.state import Combatant
from bot.rules.combat.tables import Weapon
from bot.rules.renove.weapon_effects import bow_strength, malfunction, percutante_rounds
from bot.services.fights._core import Doc, FightRefusal, Scope
from bot.services.fights.waiting import said


def tiring_line(scope: Scope, attacker: Combatant, weapon: Weapon) -> str:
    """« Epuisante : Percutante ne joue plus (BE 5 / 2 = 2 rounds) » for the reply."""
    be = attacker.stat("BE")
    rounds = percutante_rounds(scope.tables, weapon.attributes, be) or 0
    return scope.t("combat.weapon.tiring", weapon=scope.words.weapon(weapon.id), be=be, rounds=rounds)


CLEARING = {"jam": "recharger", "stuck": "prendre_objet"}


def malfunction_lines(
    scope: Scope, doc: Doc, c: Combatant, carried: str, weapon: Weapon, roll: int
) -> list[str]:
    """Peu fiable / Expérimentale on the attack's d100: the line that says what happened; a jammed or
    stuck weapon cannot attack until it is cleared (reload / ready an item, reading); an explosion or
    a self-inflicted blow is told with its damage, for the GM to resolve (not applied by the bot)."""
    found = malfunction(scope.tables, weapon, roll)
    if found is None:
        return []
    name = scope.words.weapon(carried)
    attribute = scope.words.entry_name("weapon_attributes", found.attribute)
    band = f"{found.low:02d}-{found.high % 100:02d}" if found.high != found.low else f"{found.low % 100:02d}"
    if found.effect in CLEARING:
        doc.data.setdefault("jammed", {})[c.id] = carried
        action = scope.t(f"combat.action.{CLEARING[found.effect]}")
        option = CLEARING[found.effect]
        key = f"combat.weapon.{found.effect}"
        return [
            said(
                scope.words,
                key,
                c.name,
                attribute=attribute,
                band=band,
                weapon=name,
                action=action,
                option=option,
            )
        ]
    key = f"combat.weapon.{found.effect}"
    return [
        said(scope.words, key, c.name, attribute=attribute, band=band, weapon=name, damage=found.damage or 0)
    ]


def refuse_jammed(scope: Scope, doc: Doc, c: Combatant, carried: str) -> None:
    """A jammed (stuck) weapon does not attack until cleared."""
    if (doc.data.get("jammed") or {}).get(c.id) == carried:
        text = said(scope.words, "combat.weapon.still_jammed", c.name, weapon=scope.words.weapon(carried))
        raise FightRefusal("combat.weapon.still_jammed_said", text=text)


def clear_jam(scope: Scope, doc: Doc, c: Combatant, action: str) -> list[str]:
    """Reloading clears a jam, readying an item frees a stuck weapon: the line, if one was."""
    jammed = doc.data.get("jammed") or {}
    if action not in CLEARING.values() or c.id not in jammed:
        return []
    carried = str(jammed.pop(c.id))
    return [said(scope.words, "combat.weapon.cleared", c.name, weapon=scope.words.weapon(carried))]


def refuse_weak_bow(scope: Scope, c: Combatant, weapon: Weapon, *, aiming: bool = False) -> None:
    """A bow asks for a BF equal to its own to shoot, above it to aim (seed l. 244-245)."""
    rule = bow_strength(scope.words.docs.get("weapon_groups") or {})
    need = rule.bow_bf(weapon)
    if need is None:
        return
    bf = c.stat("BF")
    if aiming and not rule.may_aim(weapon, bf):
        raise FightRefusal(
            "combat.weapon.bow_aim", name=c.name, weapon=scope.words.weapon(weapon.id), bf=bf, need=need
        )
    if not aiming and not rule.may_shoot(weapon, bf):
        raise FightRefusal(
            "combat.weapon.bow_draw", name=c.name, weapon=scope.words.weapon(weapon.id), bf=bf, need=need
        )
