"""Sides and the questions a fight asks before acting: every fighter is on a side (PJ / PNJ by
default, or a side the GM names, « Bandits », « Garde »); an attack on one's own side waits for a
confirmation, and a GM acting on a PC's turn without naming the fighter is asked which one acts.

A question (an *ask*) stores the request in the fight document (``asks``: {n: {kind, by, input}});
nothing is rolled or spent until it is answered. Answering runs the request again, through every
check, so a question answered late is refused like any late action."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, replace
from typing import TYPE_CHECKING, Any, Final

from bot.context import AppContext
from bot.rules.combat.state import Combatant
from bot.rules.sheets import fold
from bot.services.caller import Caller
from bot.services.fights._core import (
    Doc,
    FightOutcome,
    FightRefusal,
    Scope,
    custom_id,
    fight_by_id,
    fight_here,
    may_control,
    new_event,
    outcome,
    require_gm,
    run,
)
from bot.services.fights.roster import _list
from bot.ui.reply import Button, ButtonStyle, Colour, Reply, Select, SelectOption

if TYPE_CHECKING:
    from bot.services.fights.attacks import AttackInput

SIDE_MAX: Final = 30
ASKS_KEPT: Final = 20
_SIDE_TEXT = re.compile(r"^[\w' ’-]+$")
# the default sides as typed in either language → as stored
_DEFAULT_SIDES: Final = {"pj": "PJ", "pc": "PJ", "pnj": "PNJ", "npc": "PNJ"}


def clean_side(text: str | None) -> str | None:
    """A side name as the GM typed it (spaces tidied), « PJ » / « PNJ » (or PC / NPC) as such;
    refused when too long or made of anything but letters, digits, spaces, hyphens, apostrophes."""
    if text is None:
        return None
    cleaned = " ".join(text.split())
    if not cleaned:
        return None
    if len(cleaned) > SIDE_MAX or not _SIDE_TEXT.match(cleaned):
        raise FightRefusal("combat.side.error.bad_name", max=SIDE_MAX)
    return _DEFAULT_SIDES.get(fold(cleaned), cleaned)


def put_side(c: Combatant, side: str | None) -> Combatant:
    """``c`` on ``side`` (its default side stored as ``None``)."""
    moved = replace(c, side=side)
    return replace(moved, side=None) if moved.camp == replace(c, side=None).camp else moved


def side_label(scope: Scope, c: Combatant) -> str:
    """« PJ » / « PNJ » (PC / NPC in English) or the side's name."""
    if c.side and fold(c.side) not in ("pj", "pnj"):
        return c.side
    return scope.t(f"combat.side.{c.camp}")


def sides_line(scope: Scope, added: Iterable[Combatant]) -> str:
    """« Camp : PNJ » / « Camps : Garde (Hans), PJ (Élise) » for an add reply."""
    fighters = list(added)
    labels = list(dict.fromkeys(side_label(scope, c) for c in fighters))
    if len(labels) == 1:
        return scope.t("combat.side.line", side=labels[0])
    parts = [
        f"{label} ({', '.join(c.name for c in fighters if side_label(scope, c) == label)})"
        for label in labels
    ]
    return scope.t("combat.side.lines", sides=" · ".join(parts))


async def set_side(ctx: AppContext, caller: Caller, *, who: str, side: str) -> FightOutcome:
    """GM: put fighters (``who``: names, comma-separated) on a side."""

    async def work(scope: Scope) -> FightOutcome:
        require_gm(scope)
        doc = await fight_here(scope)
        name = clean_side(side)
        targets = [doc.find(part) for part in _list(who)]
        if not targets:
            raise FightRefusal("combat.error.no_such_combatant", name=who[:60])
        moved = []
        for c in targets:
            updated = put_side(c, name)
            doc.state = doc.state.put(updated)
            moved.append(updated)
        new_event(scope, doc, "side", None, {"side": name, "combatants": [c.id for c in moved]})
        doc.save()
        label = side_label(scope, moved[0])
        reply = Reply(
            description=scope.t("combat.side.done", names=", ".join(c.name for c in moved), side=label),
            colour=Colour.INFO,
            kind="combat.side",
            result={"side": name, "camp": moved[0].camp, "combatants": [c.id for c in moved]},
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)


# -- questions before acting ----------------------------------------------------------------


def asks(doc: Doc) -> dict[str, Any]:
    value: dict[str, Any] = doc.data.setdefault("asks", {})
    return value


def store_ask(scope: Scope, doc: Doc, kind: str, data: AttackInput) -> int:
    number = int(doc.data.get("ask_seq", 0)) + 1
    doc.data["ask_seq"] = number
    store = dict(asks(doc))
    store[str(number)] = {"kind": kind, "by": scope.caller.user_id, "input": asdict(data)}
    for old in sorted(store, key=int)[:-ASKS_KEPT]:
        store.pop(old)
    doc.data["asks"] = store
    return number


def take_ask(scope: Scope, doc: Doc, number: int) -> Mapping[str, Any]:
    """The question ``number`` (removed): refused when answered already or not the caller's."""
    ask = asks(doc).get(str(number))
    if ask is None:
        raise FightRefusal("combat.side.error.answered")
    if ask["by"] != scope.caller.user_id and not scope.gm:
        raise FightRefusal("combat.side.error.not_yours")
    # a new mapping, not the loaded one changed in place: the row must see that its state changed
    doc.data["asks"] = {n: a for n, a in asks(doc).items() if n != str(number)}
    value: Mapping[str, Any] = ask
    return value


def gm_on_a_pc_turn(scope: Scope, doc: Doc, name: str | None) -> Combatant | None:
    """The PC whose turn it is when the GM acts without naming the fighter (he must say who acts)."""
    if name or not scope.gm:
        return None
    slot = doc.state.current_slot
    if slot is None or doc.data.get("round_over"):
        return None
    c = doc.state.get(slot.combatant)
    if c.npc or doc.owner(c.id) == scope.caller.user_id:
        return None
    return c


def gm_choices(scope: Scope, doc: Doc, pc: Combatant, target: str | None = None) -> list[Combatant]:
    """Who the GM may make act on ``pc``'s turn: ``pc`` himself (for his player), then the NPCs;
    never the ``target`` (a fighter's id) of the action."""
    npcs = [c for c in doc.state.combatants if c.npc and not c.has("dead") and may_control(scope, doc, c.id)]
    return [c for c in (pc, *npcs) if c.id != target][:25]


def which_fighter_refusal(scope: Scope, doc: Doc, pc: Combatant) -> FightRefusal:
    others = [c.name for c in gm_choices(scope, doc, pc)[1:]]
    return FightRefusal(
        "combat.side.error.which_fighter",
        name=pc.name,
        npcs=", ".join(others) or scope.t("combat.side.no_npc"),
    )


def ask_which_fighter(scope: Scope, doc: Doc, pc: Combatant, data: AttackInput) -> FightOutcome:
    """A private question with a select menu: which fighter makes this attack."""
    target = doc.find(data.target)
    number = store_ask(scope, doc, "actor", data)
    doc.save()
    options = tuple(
        SelectOption(
            label=c.name[:100],
            value=c.id,
            description=(
                scope.t("combat.side.select.turn", side=side_label(scope, c))
                if c.id == pc.id
                else side_label(scope, c)
            )[:100],
        )
        for c in gm_choices(scope, doc, pc, target.id)
    )
    reply = Reply(
        description=scope.t("combat.side.ask_actor", name=pc.name, target=target.name),
        colour=Colour.INFO,
        ephemeral=True,
        selects=(
            Select(
                custom_id(doc.row.id, "askwho", number),
                options,
                placeholder=scope.t("combat.side.select.placeholder"),
            ),
        ),
        buttons=(
            (
                Button(
                    scope.t("combat.side.button.cancel"),
                    custom_id(doc.row.id, "ask", number, "no"),
                    ButtonStyle.SECONDARY,
                ),
            ),
        ),
        kind="combat.ask",
        result={
            "fight_id": doc.row.id,
            "ask": number,
            "kind": "actor",
            "choices": [o.value for o in options],
        },
    )
    return outcome(scope, doc, reply)


def ask_friendly_fire(
    scope: Scope,
    doc: Doc,
    attacker: Combatant,
    target: Combatant,
    data: AttackInput,
    *,
    kind: str = "attack",
    confirm: tuple[str, str] | None = None,
) -> FightOutcome:
    """A private question with « Confirmer » / « Annuler »: nothing is rolled or spent yet.
    ``kind`` / ``confirm``: another attack than ``/combat attaque`` (an `ogl` free attack) stores its
    own kind and has « Confirmer » answered by its own button (``<confirm[0]>:<n>:<confirm[1]>``)."""
    number = store_ask(scope, doc, kind, data)
    doc.save()
    reply = Reply(
        title=scope.t("combat.side.ask_title", attacker=attacker.name),
        description=scope.t("combat.side.ask", target=target.name, side=side_label(scope, target)),
        colour=Colour.FAILURE,
        ephemeral=True,
        buttons=(
            (
                Button(
                    scope.t("combat.side.button.confirm"),
                    custom_id(doc.row.id, confirm[0], number, confirm[1])
                    if confirm
                    else custom_id(doc.row.id, "ask", number, "ok"),
                    ButtonStyle.DANGER,
                ),
                Button(
                    scope.t("combat.side.button.cancel"),
                    custom_id(doc.row.id, "ask", number, "no"),
                    ButtonStyle.SECONDARY,
                ),
            ),
        ),
        kind="combat.ask",
        result={
            "fight_id": doc.row.id,
            "ask": number,
            "kind": kind,
            "attacker": attacker.id,
            "target": target.id,
        },
    )
    return outcome(scope, doc, reply)


async def cancel_ask(ctx: AppContext, caller: Caller, *, fight_id: int, number: int) -> FightOutcome:
    """« Annuler »: the stored request is dropped; the fight is left as it was."""

    async def work(scope: Scope) -> FightOutcome:
        doc = await fight_by_id(scope, fight_id)
        take_ask(scope, doc, number)
        doc.save()
        reply = Reply(
            description=scope.t("combat.side.cancelled"),
            colour=Colour.INFO,
            ephemeral=True,
            kind="combat.ask_cancelled",
            result={"fight_id": fight_id, "ask": number},
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)
