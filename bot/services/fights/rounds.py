"""Rounds, postures and turns: initiative, the end of a round and of a slot, passing the turn, and the
pieces the system adapters' rounds share."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from bot.context import AppContext
from bot.rules.combat.common import start_round_with
from bot.rules.combat.effects import Condition
from bot.rules.combat.initiative import Slot, roll_initiative
from bot.rules.combat.state import Combatant, choose_posture, end_round, next_turn, start_round, take_action
from bot.rules.combat.tables import CombatTables
from bot.services.caller import Caller
from bot.services.fights import destiny
from bot.services.fights._core import (
    OTHER_RULESETS,
    Doc,
    FightOutcome,
    FightRefusal,
    RollNote,
    Scope,
    custom_id,
    fight_by_id,
    fight_here,
    may_control,
    new_event,
    outcome,
    parse_dice,
    require_gm,
    run,
)
from bot.services.fights.registry import system_of
from bot.services.fights.roster import _armour_maluses, _carry_penalty
from bot.services.fights.sides import gm_on_a_pc_turn, which_fighter_refusal
from bot.ui.reply import Button, ButtonStyle, Colour, Reply


def _parse_initiative_dice(doc: Doc, text: str | None) -> dict[str, list[int]]:
    """``"Albert: 12 5 18; Gobelin 1: 3 4 5 (6)"`` → per combatant (a 4th value = Sur ses gardes)."""
    out: dict[str, list[int]] = {}
    for name, dice in named_entries(text, "combat.error.initiative_format"):
        c = doc.find(name)
        out[c.id] = parse_dice(dice.replace("(", " ").replace(")", " "), option="dice", sides=20, limit=4)
    return out


# -- shared by the system adapters' rounds (fight_d20, fight_ogl, fight_v1) --------------------


def named_entries(text: str | None, error: str) -> Iterator[tuple[str, str]]:
    """``"Albert: x; Orc: y"`` → ``("Albert", " x")``, ``("Orc", " y")`` (blank parts skipped);
    a part without ``:`` is refused with the *error* key."""
    for part in (text or "").split(";"):
        if not part.strip():
            continue
        name, sep, value = part.partition(":")
        if not sep:
            raise FightRefusal(error)
        yield name.strip(), value


def close_open_round(scope: Scope, doc: Doc) -> list[str]:
    """Before a new round: the notes of ending the current one when it is still running."""
    if doc.state.round and not doc.data.get("round_over"):
        return _end_round(scope, doc)
    return []


def start_system_round(doc: Doc, order: Sequence[Slot], system: str, data: dict[str, Any]) -> None:
    """A system adapter's next round: its order, the shared round flags, its fresh round data."""
    doc.state = start_round_with(doc.state, order)
    doc.data["round_over"] = False
    doc.data["slot_done"] = False
    doc.data[system] = data


def round_outcome(
    scope: Scope, doc: Doc, lines: Sequence[str], notes: Sequence[str], initiative: list[dict[str, Any]]
) -> FightOutcome:
    """The ``combat.round`` reply of a system adapter's new round."""
    reply = Reply(
        title=scope.t("combat.round.title", round=doc.state.round),
        description="\n".join([*lines, "", *notes])[:4000],
        colour=Colour.NEUTRAL,
        result={
            "fight_id": doc.row.id,
            "round": doc.state.round,
            "initiative": initiative,
            "order": [s.to_dict() for s in doc.state.order],
        },
        kind="combat.round",
    )
    return outcome(scope, doc, reply)


def _can_take_turn(tables: CombatTables, c: Combatant) -> bool:
    if c.has("dead", "unconscious", "no_action", "stunned"):
        return False
    if any(x.kind == "lose_time" and x.unit == "round" for x in c.conditions):
        return False
    return c.attacks_left() > 0 or (c.off_hand is not None and not c.actions.second_weapon_used)


def _settle_turn(scope: Scope, doc: Doc) -> list[str]:
    """Skip the slots of those who cannot act; past the last slot, end the round. Notes for the reply."""
    notes: list[str] = _slot_hook(scope, doc)
    state = doc.state
    while state.current_slot is not None:
        slot = state.current_slot
        c = state.get(slot.combatant)
        if _can_take_turn(scope.tables, c):
            break
        notes.append(scope.t("combat.turn.skipped", name=c.name))
        doc.state = next_turn(state)
        notes.extend(_slot_hook(scope, doc))
        state = doc.state
    doc.state = state
    if state.current_slot is None and state.round and not doc.data.get("round_over") and not doc.pending:
        notes.extend(_end_round(scope, doc))
    return notes


def _slot_hook(scope: Scope, doc: Doc) -> list[str]:
    """A system adapter's bookkeeping each time the slot may have changed (ogl: combat actions lost)."""
    if doc.row.ruleset not in OTHER_RULESETS:
        return []
    return system_of(doc.row.ruleset).on_slot(scope, doc)


def _end_round(scope: Scope, doc: Doc) -> list[str]:
    state, results = end_round(doc.state)
    notes = [scope.t("combat.round.over", round=state.round)]
    for cid, result in results.items():
        c = state.get(cid)
        for expired in result.expired:
            notes.append(
                scope.t(
                    "combat.round.expired",
                    name=c.name,
                    what=scope.words.condition(replace(expired, remaining=None, until=None)),
                )
            )
        for prompt in result.prompts:
            if prompt.kind == "death_timer_expired":
                state = state.put(
                    replace(
                        state.get(cid),
                        conditions=(
                            *state.get(cid).conditions,
                            Condition("dead", prompt.condition.source, until="permanent"),
                        ),
                    )
                )
                notes.append(scope.t("combat.round.death_timer", name=c.name))
                destiny.offer(doc, cid, "death", prompt.condition.source)  # a PC: his destiny point
                continue
            number = int(doc.data.get("prompt_seq", 0)) + 1
            doc.data["prompt_seq"] = number
            doc.prompts.append(
                {"id": number, "combatant": cid, "kind": prompt.kind, "condition": prompt.condition.to_dict()}
            )
            test = prompt.condition.test
            notes.append(
                scope.t(
                    f"combat.round.prompt.{prompt.kind}",
                    name=c.name,
                    stat=test.characteristic if test else "?",
                    modifier=f"{test.modifier:+d}" if test else "",
                )
            )
    doc.state = state
    doc.data["round_over"] = True
    new_event(scope, doc, "round_end", None, {"results": {k: v.to_dict() for k, v in results.items()}})
    return notes


async def new_round(ctx: AppContext, caller: Caller, *, dice: str | None = None) -> FightOutcome:
    """GM: end the current round if needed, roll initiative (3d20 + Ag, slots I/k) and start the next."""

    async def work(scope: Scope) -> FightOutcome:
        require_gm(scope)
        doc = await fight_here(scope)
        living = [c for c in doc.state.combatants if not c.has("dead")]
        if not living:
            raise FightRefusal("combat.error.nobody")
        if doc.row.ruleset in OTHER_RULESETS:
            started: FightOutcome = await system_of(doc.row.ruleset).new_round(scope, doc, dice)
            return started
        notes = close_open_round(scope, doc)
        hand = _parse_initiative_dice(doc, dice)
        results = []
        lines = []
        for c in doc.state.combatants:
            if c.has("dead"):
                continue
            given = hand.get(c.id, [])
            carry, carried = _carry_penalty(scope, c)
            worn = _armour_maluses(scope, c).initiative
            result = roll_initiative(
                scope.tables,
                c.id,
                c.stat("Ag") + carry + worn,
                c.attacks,
                talents=c.talents,
                rng=scope.rng,
                dice_rolls=given[:3] or None,
                bonus_rolls=given[3:] or None,
            )
            results.append(result)
            bonus = "".join(f" + {r}" for _, r in result.bonus_dice)
            slots = " · ".join(_slot_text(v) for v in result.slots)
            dice_text = "+".join(str(x) for x in result.dice)
            ag_text = f"Ag {result.ag}"
            if carry and carried:
                ag_text += (
                    " ("
                    + scope.t(
                        "combat.round.carry",
                        ag=result.ag - carry - worn,
                        value=f"{carry:+d}",
                        weapon=scope.words.weapon(carried),
                    )
                    + ")"
                )
            if worn:
                ag_text += (
                    " (" + scope.t("combat.round.armour", ag=result.ag - worn, value=f"{worn:+d}") + ")"
                )
            lines.append(f"**{c.name}** : {dice_text} + {ag_text}{bonus} = **{result.total}** → {slots}")
            carry_note: dict[str, Any] = {}
            if carry:
                carry_note["carry_penalty"] = {"value": carry, "weapon": carried}
            if worn:
                carry_note["armour_malus"] = {"value": worn}
            scope.rolls.append(
                RollNote(
                    "combat.initiative",
                    "3d20+Ag",
                    result.total,
                    {"fight_id": doc.row.id, "name": c.name, **result.to_dict(), **carry_note},
                )
            )
        doc.state = start_round(doc.state, results)
        doc.data["round_over"] = False
        doc.data["aim"] = {}
        doc.data["feint"] = {}
        notes.extend(_settle_turn(scope, doc))
        offered, destiny_rows = await destiny.offer_lines(scope, doc)  # died as the last round ended
        notes.extend(offered)
        new_event(scope, doc, "round", None, {"initiative": [r.to_dict() for r in results]})
        doc.save()
        current = doc.state.current_slot
        description = "\n".join(lines)
        if current is not None:
            description += "\n\n" + scope.t("combat.turn.now", name=doc.state.get(current.combatant).name)
        if notes:
            description = "\n".join(notes) + "\n\n" + description
        buttons = destiny.merge_rows(destiny_rows, _posture_buttons(scope, doc))
        reply = Reply(
            title=scope.t("combat.round.title", round=doc.state.round),
            description=description[:4000],
            footer=scope.t("combat.round.footer"),
            colour=Colour.NEUTRAL,
            buttons=buttons,
            result={
                "fight_id": doc.row.id,
                "round": doc.state.round,
                "initiative": [r.to_dict() for r in results],
                "order": [s.to_dict() for s in doc.state.order],
            },
            kind="combat.round",
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)


def _slot_text(value: Fraction) -> str:
    return str(int(value)) if value.denominator == 1 else f"{float(value):.1f}"


def _posture_buttons(scope: Scope, doc: Doc) -> tuple[tuple[Button, ...], ...]:
    fid = doc.row.id
    row1 = tuple(
        Button(scope.words.posture(p), custom_id(fid, "pos", p), ButtonStyle.SECONDARY)
        for p in ("normale", "prudente", "temeraire", "defensive")
        if p in scope.tables.postures
    )
    row2 = (
        tuple(
            Button(
                scope.words.posture("suicidaire", o),
                custom_id(fid, "pos", "suicidaire", o),
                ButtonStyle.DANGER,
            )
            for o in scope.tables.postures["suicidaire"].options
        )
        if "suicidaire" in scope.tables.postures
        else ()
    )
    return tuple(r for r in (row1, row2) if r)


async def set_posture(
    ctx: AppContext,
    caller: Caller,
    *,
    posture: str,
    option: str | None = None,
    who: str | None = None,
    fight_id: int | None = None,
) -> FightOutcome:
    """Choose a posture for this round (before acting): one's own combatants, or ``who`` (GM)."""

    async def work(scope: Scope) -> FightOutcome:
        doc = await (fight_by_id(scope, fight_id) if fight_id is not None else fight_here(scope))
        if doc.row.ruleset in OTHER_RULESETS:
            raise FightRefusal("combat.sys.error.no_postures", ruleset=doc.row.ruleset)
        if who:
            targets = [doc.find(who)]
            if not may_control(scope, doc, targets[0].id):
                raise FightRefusal("combat.error.not_yours", name=targets[0].name)
        else:
            targets = [
                c
                for c in doc.state.combatants
                if doc.owner(c.id) == scope.caller.user_id and not c.has("dead")
            ]
            if scope.gm and fight_id is not None:
                targets = [c for c in targets if doc.meta.get(c.id, {}).get("kind") != "pc"] or targets
            if not targets:
                raise FightRefusal("combat.error.no_combatant_of_yours")
        changed = []
        for c in targets:
            if c.actions.used or c.actions.attacks_made or c.actions.kinds_used:
                raise FightRefusal("combat.error.posture_locked", name=c.name)
            updated = choose_posture(scope.tables, c, posture, option)
            doc.state = doc.state.put(updated)
            changed.append(updated)
        new_event(
            scope,
            doc,
            "posture",
            None,
            {"posture": posture, "option": option, "combatants": [c.id for c in changed]},
        )
        doc.save()
        text = scope.words.posture(posture, option)
        reply = Reply(
            description=scope.t(
                "combat.posture.done", names=", ".join(c.name for c in changed), posture=text
            ),
            colour=Colour.INFO,
            kind="combat.posture",
            result={"posture": posture, "option": option, "combatants": [c.id for c in changed]},
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)


async def advance(ctx: AppContext, caller: Caller) -> FightOutcome:
    """GM: the next slot (the current combatant's turn is over)."""

    async def work(scope: Scope) -> FightOutcome:
        require_gm(scope)
        doc = await fight_here(scope)
        if doc.data.get("round_over") or doc.state.current_slot is None:
            raise FightRefusal("combat.error.round_over")
        doc.state = next_turn(doc.state)
        doc.data["slot_done"] = False
        notes = _settle_turn(scope, doc)
        offered, destiny_rows = await destiny.offer_lines(scope, doc)  # a death timer ran out
        new_event(scope, doc, "next", None, {"turn": doc.state.turn})
        doc.save()
        reply = Reply(
            description="\n".join([*notes, *offered, _turn_line(scope, doc)]),
            colour=Colour.INFO,
            buttons=destiny_rows,
            kind="combat.next",
            result={"turn": doc.state.turn, "round_over": bool(doc.data.get("round_over"))},
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)


def _turn_line(scope: Scope, doc: Doc) -> str:
    if doc.data.get("round_over"):
        return scope.t("combat.turn.round_over")
    slot = doc.state.current_slot
    if slot is None:
        return ""
    return scope.t("combat.turn.now", name=doc.state.get(slot.combatant).name)


def _actor(scope: Scope, doc: Doc, name: str | None) -> Combatant:
    """The acting combatant: named (GM or owner), else the caller's combatant whose turn it is."""
    if name:
        c = doc.find(name)
        if not may_control(scope, doc, c.id):
            raise FightRefusal("combat.error.not_yours", name=c.name)
        return c
    slot = doc.state.current_slot
    if slot is not None and may_control(scope, doc, slot.combatant):
        pc = gm_on_a_pc_turn(scope, doc, name)
        if pc is not None:  # the GM on a player's turn: he says who acts
            raise which_fighter_refusal(scope, doc, pc)
        return doc.state.get(slot.combatant)
    mine = [c for c in doc.state.combatants if doc.owner(c.id) == scope.caller.user_id and not c.has("dead")]
    if len(mine) == 1:
        return mine[0]
    raise FightRefusal("combat.error.which_combatant")


def _spend(
    scope: Scope, doc: Doc, c: Combatant, action: str, *, advance: bool = True
) -> tuple[Combatant, list[str]]:
    """Take an action that costs an A: only on one's own slot, one per slot; then the turn passes
    (``advance=False``: the caller passes it with :func:`_pass_turn` once its pending work is stored)."""
    spec = scope.tables.actions.get(action)
    costs_a = spec is not None and spec.cost_unit in ("A", "all_A")
    if (doc.data.get("round_over") or not doc.state.round) and costs_a:
        raise FightRefusal("combat.error.round_not_started")
    slot = doc.state.current_slot
    if costs_a and (slot is None or slot.combatant != c.id):
        raise FightRefusal("combat.error.not_your_turn", name=c.name)
    if costs_a and doc.data.get("slot_done"):
        raise FightRefusal("combat.error.slot_spent", name=c.name)
    updated = take_action(scope.tables, c, action)
    doc.state = doc.state.put(updated)
    notes: list[str] = []
    if costs_a and advance:
        notes = _pass_turn(scope, doc)
    return updated, notes


def _pass_turn(scope: Scope, doc: Doc) -> list[str]:
    doc.state = next_turn(doc.state)
    doc.data["slot_done"] = False
    return _settle_turn(scope, doc)
