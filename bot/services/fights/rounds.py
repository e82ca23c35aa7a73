"""Rounds, postures and turns: initiative, the end of a round and of a slot, passing the turn, and the
pieces the system adapters' rounds share."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from bot.context import AppContext
from bot.i18n import number
from bot.rules.combat.common import start_round_with
from bot.rules.combat.effects import Condition
from bot.rules.combat.initiative import Slot, roll_initiative
from bot.rules.combat.state import (
    ACTS_LAST,
    Combatant,
    choose_posture,
    end_round,
    has_second_weapon,
    next_turn,
    second_weapon_of,
    second_weapon_waits,
    start_round,
    take_action,
)
from bot.rules.combat.tables import CombatTables
from bot.services.caller import Caller
from bot.services.fights import destiny
from bot.services.fights._core import (
    OTHER_RULESETS,
    DefenceRolls,
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
from bot.services.fights.damage import _proposal_buttons
from bot.services.fights.hits import _resolve_hit
from bot.services.fights.registry import system_of
from bot.services.fights.roster import _armour_maluses, _carry_penalty
from bot.services.fights.sides import gm_on_a_pc_turn, which_fighter_refusal
from bot.services.fights.waiting import (
    own_action_taken,
    pending_lines,
    posture_buttons,
    posture_round,
    running,
    said,
    turn_line,
    turn_of,
)
from bot.ui.reply import Button, ButtonStyle, Colour, Reply, Select, SelectOption


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
    return c.attacks_left() > 0 or (has_second_weapon(tables, c) and not c.actions.second_weapon_used)


def _settle_turn(scope: Scope, doc: Doc) -> list[str]:
    """Pass a held turn whose defences are all answered; skip the slots of those who cannot act; past
    the last slot, end the round. Notes for the reply."""
    if doc.data.get("slot_done") and not doc.pending and doc.state.current_slot is not None:
        doc.state = next_turn(doc.state)
        doc.data["slot_done"] = False
        scope.turn_moved = True
    notes: list[str] = _slot_hook(scope, doc)
    state = doc.state
    while state.current_slot is not None:
        slot = state.current_slot
        c = state.get(slot.combatant)
        if _can_take_turn(scope.tables, c):
            break
        if not c.has("dead"):  # the dead are skipped without a word: their death was announced
            notes.append(scope.t("combat.turn.skipped", name=c.name))
        scope.turn_moved = True
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


def _source_of(prompt: dict[str, Any]) -> str | None:
    condition = prompt.get("condition")
    return str(condition.get("source")) if isinstance(condition, dict) else None


def _end_round(scope: Scope, doc: Doc) -> list[str]:
    state, results = end_round(doc.state)
    for c in doc.state.combatants:
        if c.has("dead"):
            state = state.put(c)
            results.pop(c.id, None)
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
            # the same test still waiting from an earlier round: the newer one (its modifier has
            # grown) replaces it — one test per condition, so the document stays bounded (#25)
            source = prompt.condition.source
            doc.data["prompts"] = [
                p
                for p in doc.prompts
                if not (p["combatant"] == cid and p["kind"] == prompt.kind and _source_of(p) == source)
            ]
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


def _not_acted(scope: Scope, doc: Doc) -> list[str]:
    """Who still has a slot this round (the current one unless it is held), in order."""
    if not running(doc):
        return []
    names: dict[str, str] = {}
    for index, slot in enumerate(doc.state.order):
        if index < doc.state.turn or (index == doc.state.turn and doc.data.get("slot_done")):
            continue
        c = doc.state.get(slot.combatant)
        if _can_take_turn(scope.tables, c):
            names.setdefault(c.id, c.name)
    return list(names.values())


async def _take_pending(scope: Scope, doc: Doc) -> tuple[list[str], list[Any]]:
    """Before a new round, every attack still waiting for its defence is taken (« encaisser », as
    when the defence's delay ran out): the defence belonged to that round's exchange (seed, « Étape
    2 » : the parry or dodge is rolled with the attack, before the damage). Notes and proposals."""
    lines: list[str] = []
    proposals: list[Any] = []
    for pending in sorted(doc.pending.values(), key=lambda p: int(p["seq"])):
        attacker = pending.get("label") or doc.state.get(str(pending["attacker"])).name
        lines.append(
            scope.t(
                "turns.round.taken",
                seq=pending["seq"],
                attacker=attacker,
                defender=doc.state.get(str(pending["defender"])).name,
            )
        )
        payload: dict[str, Any] = {
            "fight_id": doc.row.id,
            "seq": pending["seq"],
            "choice": "encaisser",
            "by": "new_round",
        }
        if doc.row.ruleset in OTHER_RULESETS:
            lines.extend(
                await system_of(doc.row.ruleset).resolve(
                    scope, doc, pending, "encaisser", DefenceRolls(), payload
                )
            )
        else:
            lines.extend(_resolve_hit(scope, doc, pending, "encaisser", DefenceRolls(), payload))
        proposals.extend(payload.get("proposals", []))
        doc.pending.pop(str(pending["seq"]), None)
    doc.data["slot_done"] = False
    return lines, proposals


def _round_confirmation(scope: Scope, doc: Doc, left: list[str]) -> FightOutcome:
    """``/combat round`` mid-round: what happens to who has not acted and to the pending attacks."""
    lines = [scope.t("turns.round.confirm_head", round=doc.state.round)]
    if left:
        many = "many" if len(left) > 1 else "one"
        lines.append(scope.t(f"turns.round.confirm_left.{many}", names=", ".join(left)))
    for line in pending_lines(scope.words, doc):
        lines.append(scope.t("turns.round.confirm_pending", what=line))
    button = Button(
        scope.t("turns.button.round_confirm", round=doc.state.round + 1),
        custom_id(doc.row.id, "round", doc.state.round),
        ButtonStyle.DANGER,
    )
    reply = Reply(
        description="\n".join(lines),
        colour=Colour.INFO,
        ephemeral=True,
        buttons=((button,),),
        kind="combat.round.confirm",
        result={
            "fight_id": doc.row.id,
            "confirm": True,
            "round": doc.state.round,
            "not_acted": left,
            "pending": sorted(doc.pending),
        },
    )
    return FightOutcome(reply, fight_id=doc.row.id)


async def new_round(
    ctx: AppContext,
    caller: Caller,
    *,
    dice: str | None = None,
    confirmed: int | None = None,
    fight_id: int | None = None,
) -> FightOutcome:
    """GM: end the current round if needed, roll initiative (3d20 + Ag, slots I/k) and start the next.
    Mid-round (fighters who have not acted, or defences awaited) it asks first; ``confirmed`` is the
    round the GM's confirmation was for (the dice typed with the first ask are kept until then)."""

    async def work(scope: Scope) -> FightOutcome:
        require_gm(scope)
        doc = await (fight_by_id(scope, fight_id) if fight_id is not None else fight_here(scope))
        living = [c for c in doc.state.combatants if not c.has("dead")]
        if not living:
            raise FightRefusal("combat.error.nobody")
        typed = dice
        if confirmed is not None:
            if confirmed != doc.state.round:
                raise FightRefusal("turns.error.round_stale", round=confirmed, now=doc.state.round)
            stored = doc.data.pop("round_dice", None)
            typed = typed or (str(stored) if stored else None)
        elif running(doc):
            left = _not_acted(scope, doc)
            if left or doc.pending:
                if typed or doc.data.get("round_dice"):
                    doc.data["round_dice"] = typed
                    doc.save()
                return _round_confirmation(scope, doc, left)
        taken, proposals = await _take_pending(scope, doc)
        if doc.row.ruleset in OTHER_RULESETS:
            started: FightOutcome = await system_of(doc.row.ruleset).new_round(scope, doc, typed)
            scope.turn_moved = True
            if not taken or started.reply.is_error:
                return outcome(scope, doc, started.reply) if not started.reply.is_error else started
            text = "\n".join([*taken, "", started.reply.description or ""])[:4000]
            return outcome(scope, doc, replace(started.reply, description=text))
        notes = [*taken, *close_open_round(scope, doc)]
        hand = _parse_initiative_dice(doc, typed)
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
            slots = " · ".join(_slot_text(v, scope.words.locale) for v in result.slots)
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
        lines.extend(
            scope.t("combat.acts_last.round", name=c.name)
            for c in doc.state.combatants
            if c.has(ACTS_LAST) and not c.has("dead")
        )
        doc.data["round_over"] = False
        doc.data["slot_done"] = False
        # an aim lasts until the next attack (seed l. 987 « à l'attaque suivante »), across rounds
        doc.data["feint"] = {}
        # a posture is chosen each round: who has not chosen one for this round is in the normal one
        chosen = doc.data.setdefault("postures", {})
        for c in doc.state.combatants:
            if chosen.get(c.id) != doc.state.round and c.posture != "normale":
                doc.state = doc.state.put(replace(c, posture="normale", posture_option=None))
        scope.turn_moved = True
        notes.extend(_settle_turn(scope, doc))
        offered, destiny_rows = await destiny.offer_lines(scope, doc)  # died as the last round ended
        notes.extend(offered)
        new_event(scope, doc, "round", None, {"initiative": [r.to_dict() for r in results]})
        doc.save()
        description = "\n".join(lines)
        turn = _turn_line(scope, doc)
        if turn:
            description += "\n\n" + turn
        if notes:
            description = "\n".join(notes) + "\n\n" + description
        buttons = destiny.merge_rows(
            destiny_rows, _posture_buttons(scope, doc), _proposal_buttons(scope, doc, proposals)
        )
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


def _slot_text(value: Fraction, locale: str) -> str:
    return str(int(value)) if value.denominator == 1 else number(locale, float(value), "0.0")  # « 12,5 »


def _posture_buttons(scope: Scope, doc: Doc) -> tuple[tuple[Button, ...], ...]:
    return posture_buttons(scope.words, doc, scope.tables.postures)


async def set_posture(
    ctx: AppContext,
    caller: Caller,
    *,
    posture: str,
    option: str | None = None,
    who: str | None = None,
    fight_id: int | None = None,
    chosen: tuple[str, ...] | None = None,
) -> FightOutcome:
    """Choose a posture for this round (before acting): ``who`` (the GM, or one's own fighter), else
    one's own fighter. A button (``fight_id``) or the GM's command without ``who`` sets the caller's
    one fighter still to choose; with several (the GM's NPCs) it asks which with a select, whose
    picks come back as ``chosen``."""

    async def work(scope: Scope) -> FightOutcome:
        doc = await (fight_by_id(scope, fight_id) if fight_id is not None else fight_here(scope))
        if doc.row.ruleset in OTHER_RULESETS:
            raise FightRefusal("combat.sys.error.no_postures", ruleset=doc.row.ruleset)
        if chosen is not None:
            targets = [doc.state.get(cid) for cid in chosen if any(c.id == cid for c in doc.state.combatants)]
            for c in targets:
                if not may_control(scope, doc, c.id):
                    raise FightRefusal("combat.error.not_yours", name=c.name)
            if not targets:
                raise FightRefusal("combat.error.no_combatant_of_yours")
        elif who:
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
                npcs = [
                    c
                    for c in doc.state.combatants
                    if doc.meta.get(c.id, {}).get("kind") != "pc" and not c.has("dead")
                ]
                targets = npcs or targets
            if not targets:
                raise FightRefusal("combat.error.no_combatant_of_yours")
            # a button, or the GM's typed command without ``qui:``: with several fighters still to
            # choose, ask which (the one whose turn it is first) rather than set them all
            if (fight_id is not None or scope.gm) and len(targets) > 1:
                free = [c for c in targets if not _locked(doc, c)]
                if len(free) == 1:
                    targets = free
                elif free:
                    return _which_fighter(scope, doc, free, posture, option)
        changed = []
        for c in targets:
            if _locked(doc, c):
                raise FightRefusal("combat.error.posture_locked", name=c.name)
            updated = choose_posture(scope.tables, c, posture, option)
            doc.state = doc.state.put(updated)
            changed.append(updated)
        record = doc.data.setdefault("postures", {})
        for c in changed:
            record[c.id] = posture_round(doc)
        new_event(
            scope,
            doc,
            "posture",
            None,
            {"posture": posture, "option": option, "combatants": [c.id for c in changed]},
        )
        doc.save()
        text = scope.words.posture(posture, option)
        lines = [scope.t("combat.posture.done", names=", ".join(c.name for c in changed), posture=text)]
        turn = _turn_line(scope, doc)
        if turn and running(doc):
            lines.append(turn)
        reply = Reply(
            description="\n".join(lines),
            colour=Colour.INFO,
            kind="combat.posture",
            result={"posture": posture, "option": option, "combatants": [c.id for c in changed]},
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)


def _locked(doc: Doc, c: Combatant) -> bool:
    """A fighter who has taken an action of his own this round keeps his posture until the next; one
    who only defended still chooses it (reading: the defences made before use the posture in force)."""
    return running(doc) and own_action_taken(c)


def at_round_start(doc: Doc) -> bool:
    """Nobody has taken an action of his own yet this round (the time to announce a prepared parry,
    seed l. 991: « Cette action doit être annoncée au début du round »)."""
    return (
        running(doc)
        and doc.state.turn == 0
        and not doc.data.get("slot_done")
        and not any(own_action_taken(x) for x in doc.state.combatants)
    )


def _which_fighter(
    scope: Scope, doc: Doc, free: list[Combatant], posture: str, option: str | None
) -> FightOutcome:
    """A posture button pressed by someone with several fighters still to choose: a select of them
    (the one whose turn it is first); several may be picked at once."""
    slot = doc.state.current_slot
    first = slot.combatant if slot is not None else None
    free = sorted(free, key=lambda c: c.id != first)[:25]
    text = scope.words.posture(posture, option)
    select = Select(
        custom_id=custom_id(doc.row.id, "posfor", posture, *((option,) if option else ())),
        options=tuple(SelectOption(label=c.name[:100], value=c.id[:100]) for c in free),
        placeholder=scope.t("turns.select.posture_for", posture=text)[:150],
        max_values=len(free),
    )
    reply = Reply(
        description=scope.t("turns.posture.which", posture=text),
        colour=Colour.INFO,
        ephemeral=True,
        selects=(select,),
        kind="combat.posture.which",
        result={"posture": posture, "option": option, "choices": [c.id for c in free]},
    )
    return FightOutcome(reply, fight_id=doc.row.id)


async def advance(
    ctx: AppContext, caller: Caller, *, fight_id: int | None = None, confirmed: tuple[int, int] | None = None
) -> FightOutcome:
    """GM: pass the turn of the fighter whose slot it is. Asks first (the fighter has not acted: the
    slot is lost); ``confirmed`` is the (round, turn) the confirmation was for. Refused while a
    defence is awaited (the turn passes by itself once it is answered)."""

    async def work(scope: Scope) -> FightOutcome:
        require_gm(scope)
        doc = await (fight_by_id(scope, fight_id) if fight_id is not None else fight_here(scope))
        if not running(doc) or doc.state.current_slot is None:
            raise FightRefusal("combat.error.round_over")
        if doc.pending:
            raise FightRefusal("turns.error.next_pending", what=pending_lines(scope.words, doc)[0])
        c = doc.state.get(doc.state.current_slot.combatant)
        here = (doc.state.round, doc.state.turn)
        if confirmed is None:
            acts = c.actions
            used = acts.used + (1 if acts.second_weapon_used else 0)
            second = 1 if has_second_weapon(scope.tables, c) or acts.second_weapon_used else 0
            button = Button(
                said(scope.words, "turns.button.next_confirm", c.name),
                custom_id(doc.row.id, "next", *here),
                ButtonStyle.DANGER,
            )
            reply = Reply(
                description=said(
                    scope.words, "turns.next.confirm", c.name, used=used, total=c.attacks + second
                ),
                colour=Colour.INFO,
                ephemeral=True,
                buttons=((button,),),
                kind="combat.next.confirm",
                result={"fight_id": doc.row.id, "confirm": True, "not_acted": [c.name], "turn": list(here)},
            )
            return FightOutcome(reply, fight_id=doc.row.id)
        if confirmed != here:
            raise FightRefusal("turns.error.next_stale", turn=turn_of(scope.words, doc))
        doc.state = next_turn(doc.state)
        doc.data["slot_done"] = False
        scope.turn_moved = True
        notes = _settle_turn(scope, doc)
        offered, destiny_rows = await destiny.offer_lines(scope, doc)  # a death timer ran out
        new_event(scope, doc, "next", None, {"turn": doc.state.turn, "skipped": c.id})
        doc.save()
        reply = Reply(
            description="\n".join(
                [scope.t("turns.next.passed", name=c.name), *notes, *offered, _turn_line(scope, doc)]
            ),
            colour=Colour.INFO,
            buttons=destiny_rows,
            kind="combat.next",
            result={"turn": doc.state.turn, "round_over": bool(doc.data.get("round_over")), "skipped": c.id},
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)


def _turn_line(scope: Scope, doc: Doc) -> str:
    return turn_line(scope.words, doc)


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
    raise FightRefusal("combat.error.which_combatant", turn=turn_of(scope.words, doc))


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
        raise FightRefusal("combat.error.not_your_turn", name=c.name, turn=turn_of(scope.words, doc))
    if costs_a and doc.data.get("slot_done"):
        raise FightRefusal("combat.error.slot_spent", name=c.name, turn=turn_of(scope.words, doc))
    updated = take_action(scope.tables, c, action)
    doc.state = doc.state.put(updated)
    notes: list[str] = []
    if costs_a and advance:
        notes = _pass_turn(scope, doc)
    return updated, notes


def _pass_turn(scope: Scope, doc: Doc) -> list[str]:
    """The slot's action is taken: the turn passes, unless a defence is awaited — then the slot is
    held (``slot_done``) and :func:`_settle_turn` passes it once the last defence is answered. When
    the fighter's last A is spent and his second weapon's is not, the turn waits for it."""
    waits = _second_weapon_line(scope, doc)
    if waits:
        return [waits]
    if doc.pending:
        doc.data["slot_done"] = True
        return []
    doc.state = next_turn(doc.state)
    doc.data["slot_done"] = False
    scope.turn_moved = True
    return _settle_turn(scope, doc)


def _second_weapon_line(scope: Scope, doc: Doc) -> str | None:
    """The second weapon's A (l. 1021) has no slot of its own: it is used in the fighter's last slot,
    which stays his until he uses it (an attack or a feint), keeps it to parry (« Garder l'A ») or the
    GM passes the turn. A shield's A is kept for parrying: the turn does not wait for it. The line
    that says so, or None when the turn may pass."""
    c = _waiting_for_second_weapon(scope, doc)
    if c is None:
        return None
    if c.off_hand is None:  # a Double weapon
        weapon = scope.words.weapon(second_weapon_of(scope.tables, c) or "")
        return scope.t("combat.turn.double_weapon", name=c.name, weapon=weapon)
    return scope.t("combat.turn.second_weapon", name=c.name)


def _waiting_for_second_weapon(scope: Scope, doc: Doc) -> Combatant | None:
    """The fighter whose slot waits for his second weapon's A, if any."""
    slot = doc.state.current_slot
    if doc.row.ruleset in OTHER_RULESETS or slot is None or doc.data.get("round_over"):
        return None
    c = doc.state.get(slot.combatant)
    weapon = second_weapon_of(scope.tables, c)
    if weapon is None or scope.tables.shield_for(weapon).pv is not None:
        return None
    return c if second_weapon_waits(scope.tables, c) else None


def second_weapon_buttons(scope: Scope, doc: Doc) -> tuple[tuple[Button, ...], ...]:
    """« Garder l'A » under a reply whose slot waits for the second weapon's A."""
    c = _waiting_for_second_weapon(scope, doc)
    if c is None:
        return ()
    here = (doc.state.round, doc.state.turn)
    label = scope.t("combat.button.keep_second_a")
    return ((Button(label, custom_id(doc.row.id, "keep", *here), ButtonStyle.SECONDARY),),)


async def keep_second_a(
    ctx: AppContext, caller: Caller, *, fight_id: int, here: tuple[int, int]
) -> FightOutcome:
    """The fighter (his player or the GM) keeps his second weapon's A — to parry — and ends his slot."""

    async def work(scope: Scope) -> FightOutcome:
        doc = await fight_by_id(scope, fight_id)
        c = _waiting_for_second_weapon(scope, doc)
        if c is None or here != (doc.state.round, doc.state.turn):
            raise FightRefusal("turns.error.next_stale", turn=turn_of(scope.words, doc))
        if not may_control(scope, doc, c.id):
            raise FightRefusal("combat.error.not_yours", name=c.name)
        if doc.pending:
            doc.data["slot_done"] = True
            notes: list[str] = []
        else:
            doc.state = next_turn(doc.state)
            doc.data["slot_done"] = False
            scope.turn_moved = True
            notes = _settle_turn(scope, doc)
        offered, destiny_rows = await destiny.offer_lines(scope, doc)
        new_event(scope, doc, "next", c.id, {"turn": doc.state.turn, "skipped": c.id, "kept_second_a": True})
        doc.save()
        turn = _turn_line(scope, doc)
        reply = Reply(
            description="\n".join(
                [
                    scope.t("combat.turn.second_weapon_kept", name=c.name),
                    *notes,
                    *offered,
                    *([turn] if turn else []),
                ]
            ),
            colour=Colour.INFO,
            buttons=destiny_rows,
            kind="combat.keep_second_a",
            result={"fight_id": doc.row.id, "kept": c.id, "turn": doc.state.turn},
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)
