"""Immobilisante weapons in fights (seed l. 605-609): the capture on a hit, « se libérer » (an Ag test
on one's turn). The rules are in :mod:`bot.rules.renove.capture`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from bot.rules.combat.state import Combatant
from bot.rules.renove import checks as renove
from bot.rules.renove.attack import DefenceResult
from bot.rules.renove.capture import CAPTURED, capture, captures, escape_modifiers
from bot.services.fights._core import Doc, FightRefusal, RollNote, Scope


def capture_lines(
    scope: Scope,
    doc: Doc,
    pending: Mapping[str, Any],
    weapon: Any,
    defence: DefenceResult | None,
    payload: dict[str, Any],
) -> list[str] | None:
    """An Immobilisante weapon's hit (seed l. 605) that was not parried: the defender is captured —
    he loses this round, then may only break free (« se libérer », an Ag test) or defend. The lines,
    or None for any other weapon or a parried hit."""
    tables = scope.tables
    if not captures(tables, weapon) or (defence is not None and defence.success):
        return None
    defender = doc.state.get(pending["defender"])
    taken = capture(tables, weapon)
    kept = tuple(c for c in defender.conditions if c.kind != CAPTURED)
    doc.state = doc.state.put(replace(defender, conditions=kept + taken.conditions))
    payload["captured"] = {"weapon": weapon.id, "escape": taken.escape_modifier}
    modifier = f" {taken.escape_modifier:+d}" if taken.escape_modifier else ""
    return [
        scope.t(
            "combat.capture.taken",
            name=defender.name,
            weapon=scope.words.weapon(weapon.id),
            stat=taken.escape_stat,
            modifier=modifier,
        )
    ]


def escape(scope: Scope, doc: Doc, c: Combatant, roll: int) -> tuple[list[str], dict[str, Any]]:
    """« Se libérer »: the Ag test (Piégeant −10, Léger +10); success removes the capture. The lines
    and the result for the reply (the A is spent by the caller)."""
    held = next((x for x in c.conditions if x.kind == CAPTURED), None)
    if held is None:
        raise FightRefusal("combat.capture.not_captured", name=c.name)
    stat = str(held.params.get("stat", "Ag"))
    target, terms = escape_modifiers(held, c.stat(stat))
    check = renove.result_from_roll(target, terms, roll)
    if check.success:
        doc.state = doc.state.put(replace(c, conditions=tuple(x for x in c.conditions if x.kind != CAPTURED)))
    scope.rolls.append(
        RollNote(
            "combat.escape", "1d100", check.roll, {"fight_id": doc.row.id, "name": c.name, **check.to_dict()}
        )
    )
    lines = [
        scope.words.check_block(check),
        scope.t("combat.capture.freed" if check.success else "combat.capture.still", name=c.name),
    ]
    return lines, {"escape": check.to_dict(), "freed": check.success}
