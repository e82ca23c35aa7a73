"""Actions other than attacks (``/combat action``)."""

from __future__ import annotations

from typing import Any, Final

from bot.context import AppContext
from bot.rules.checks.common import Modifier
from bot.rules.combat.state import Combatant, signal, take_action
from bot.services.caller import Caller
from bot.services.fights._core import (
    OTHER_RULESETS,
    Doc,
    FightOutcome,
    FightRefusal,
    RollNote,
    Scope,
    d100_or_none,
    fight_here,
    new_event,
    outcome,
    parse_dice,
    run,
)
from bot.services.fights.capture import escape
from bot.services.fights.destiny import offer_lines
from bot.services.fights.hits import _pick_weapon
from bot.services.fights.registry import system_of
from bot.services.fights.roster import engaged_terms
from bot.services.fights.rounds import _actor, _spend, _turn_line, at_round_start, second_weapon_buttons
from bot.services.fights.specials import manoeuvre
from bot.services.fights.weapon_effects import clear_jam, refuse_weak_bow
from bot.ui.reply import Colour, Reply

SIMPLE_ACTIONS: Final = (
    "feinter",
    "viser",
    "manoeuvrer",
    "preparer_parade",
    "se_positionner",
    "esquiver",
    "autre_action_gratuite",
    "recharger",
    "prendre_objet",
    "se_relever",
    "desengagement",
)


async def take_simple_action(
    ctx: AppContext,
    caller: Caller,
    *,
    action: str,
    who: str | None = None,
    option: str | None = None,
    target: str | None = None,
    roll: int | None = None,
    target_roll: int | None = None,
    dice: str | None = None,
) -> FightOutcome:
    """Aim (``option`` precision|puissance), feint (opposed CC against ``target``), manoeuvre,
    prepare a parry, position, draw/reload … — refused with the core's reason when not allowed."""

    async def work(scope: Scope) -> FightOutcome:
        doc = await fight_here(scope)
        if doc.row.ruleset in OTHER_RULESETS:
            done: FightOutcome = await system_of(doc.row.ruleset).simple_action(
                scope, doc, action, who=who, option=option, target=target, roll=roll, target_roll=target_roll
            )
            return done
        if action not in scope.tables.actions:
            raise FightRefusal("combat.refusal.unknown_action", action=action)
        c = _actor(scope, doc, who)
        lines = []
        result: dict[str, Any] = {"action": action, "combatant": c.id}
        if action == "viser":
            aim = option or "precision"
            if aim not in scope.tables.aim_options:
                raise FightRefusal("combat.error.bad_aim")
            refuse_weak_bow(scope, c, scope.tables.weapons[_pick_weapon(scope, c, None)], aiming=True)
        if action == "feinter":
            if not target:
                raise FightRefusal("combat.error.feint_needs_target")
            foe = doc.find(target)
            ws_a, ws_b = doc.state.combat_ws(c.id, foe.id, scope.tables)
            from bot.rules.renove import checks as renove

            mine_terms, theirs_terms = engaged_terms(c), engaged_terms(foe)
            mine = renove.result_from_roll(
                ws_a + sum(m.value for m in mine_terms),
                (
                    Modifier("combat.modifier.cc", c.stat("CC")),
                    Modifier("combat.modifier.combat_ws_adjustment", ws_a - c.stat("CC")),
                    *mine_terms,
                ),
                _d100(scope, roll),
            )
            theirs = renove.result_from_roll(
                ws_b + sum(m.value for m in theirs_terms),
                (
                    Modifier("combat.modifier.cc", foe.stat("CC")),
                    Modifier("combat.modifier.combat_ws_adjustment", ws_b - foe.stat("CC")),
                    *theirs_terms,
                ),
                _d100(scope, target_roll),
            )
            won = mine.success and (
                not theirs.success
                or (mine.degrees or 0) > (theirs.degrees or 0)
                or ((mine.degrees or 0) == (theirs.degrees or 0) and mine.roll < theirs.roll)
            )
            lines.append(f"{c.name} : " + scope.words.check_block(mine))
            lines.append(f"{foe.name} : " + scope.words.check_block(theirs))
            lines.append(
                scope.t("combat.feint.won" if won else "combat.feint.lost", name=c.name, target=foe.name)
            )
            result.update(feint={"attacker": mine.to_dict(), "defender": theirs.to_dict(), "won": won})
            scope.rolls.append(
                RollNote("combat.feint", "1d100", mine.roll, {"fight_id": doc.row.id, **result})
            )
        if action == "se_liberer" and not any(x.kind == "captured" for x in c.conditions):
            raise FightRefusal("combat.capture.not_captured", name=c.name)
        if action == "manoeuvrer":
            if not target:
                raise FightRefusal("combat.error.manoeuvre_needs_target")
            foe = doc.find(target)
            if foe.id == c.id:
                raise FightRefusal("combat.error.self_attack")
            said, result["manoeuvre"] = manoeuvre(
                scope,
                doc,
                c,
                foe,
                roll=d100_or_none(roll),
                target_roll=d100_or_none(target_roll),
                typed=parse_dice(dice, option="dice"),
            )
            lines.extend(said)
        if action == "preparer_parade" and _announced_early(doc, c):
            doc.state = doc.state.put(take_action(scope.tables, c, action))  # his slot comes later
            notes: list[str] = []
        else:
            _updated, notes = _spend(scope, doc, c, action)
        lines.extend(clear_jam(scope, doc, c, action))  # a jammed or stuck weapon (Peu fiable)
        if action == "se_liberer":  # caught by a net, a lasso …: the Ag test
            escaped, result["capture"] = escape(scope, doc, doc.state.get(c.id), _d100(scope, roll))
            lines.extend(escaped)
        if action == "viser":
            doc.data.setdefault("aim", {})[c.id] = option or "precision"
        if action == "feinter" and result.get("feint", {}).get("won"):
            doc.data.setdefault("feint", {})[c.id] = doc.find(str(target)).id
        if action == "se_relever":
            doc.state, _ = signal(doc.state, c.id, "stands_up")
        offered, destiny_rows = await offer_lines(scope, doc)  # the round ended: a death timer ran out
        new_event(scope, doc, "action", c.id, result)
        doc.save()
        head = scope.t("combat.action.done", name=c.name, action=scope.t(f"combat.action.{action}"))
        reply = Reply(
            description="\n".join([head, *lines, *notes, *offered, _turn_line(scope, doc)]).strip(),
            colour=Colour.INFO,
            buttons=(*destiny_rows, *second_weapon_buttons(scope, doc))[:5],
            kind="combat.action",
            result=result,
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)


def _announced_early(doc: Doc, c: Combatant) -> bool:
    """A parry prepared at the start of the round, before the fighter's slot (seed l. 991); on his
    own slot it is an ordinary action that passes the turn."""
    slot = doc.state.current_slot
    return at_round_start(doc) and slot is not None and slot.combatant != c.id


def _d100(scope: Scope, value: int | None) -> int:
    given = d100_or_none(value)
    return given if given is not None else scope.rng.randint(1, 100)
