"""``/combat annuler``: take back the fight's last action, or its last N, exactly.

Every use case that changed an open fight is one numbered action of the fight's journal
(:mod:`bot.db.fight_journal`: recorded at commit, whatever the use case — attack, defence, damage,
round, posture, conditions, corrections, other rulesets' manoeuvres and fire, a destiny point…).
Undoing one:

* checks the fight is exactly as that action left it (the hash of its document) and that each
  character field it wrote still holds what it wrote — else nothing is undone and the reply says
  which sheet changed since (the GM fixes it by hand: the journal never overwrites a later edit);
* puts the document (conditions, wear, pending defences, turns, postures …) back as it was before
  the action, and the sheet fields back to their before-values; the event counter alone keeps
  going, so an undone attack's buttons stay refused (« cette attaque a été annulée ») and its number
  is never given to another attack;
* marks the action (``undone_at``, ``undone_by``) and its events (``undone``) — the log keeps them,
  and what reads the log (the end-of-fight summary, the wounds written on the sheets) skips them.

Several are undone newest first, each checked as above, all in one transaction (all or none).
An undo is not itself an action: it cannot be undone (there is no redo); the actions undone stay
undone, the next action gets the next number. Who may: the GM, any action; a player, one action —
his own (made by him) and only while it is the fight's latest action not undone (nothing depends
on it). Two undos at once are kept apart by the fight's ``version`` column; the tracker's
« Annuler » button first asks to confirm, and the confirmation names the action's number, so a
confirmation pressed after something else happened is refused instead of undoing that.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from sqlalchemy import select, update

from bot.context import AppContext
from bot.db import fight_journal
from bot.db.characters import get_row
from bot.db.fight_models import FightAction, FightEvent
from bot.services.caller import Caller
from bot.services.fights._core import (
    Doc,
    FightOutcome,
    FightRefusal,
    Scope,
    custom_id,
    fight_by_id,
    fight_here,
    outcome,
    run,
)
from bot.services.fights.rounds import _turn_line
from bot.ui.reply import Button, ButtonStyle, Colour, Reply

MAX_UNDO: Final = 20
# The event that names an action, by kind (the first of the action's events not in SECONDARY).
SECONDARY: Final = frozenset({"round_end", "area_caught"})
NAMED: Final = frozenset(
    {
        "attack",
        "fire",
        "area",
        "defence",
        "hit",
        "special",  # a non-damaging special action's test in place of the damage (.specials)
        "round",
        "round_end",
        "posture",
        "next",
        "condition",
        "correct",
        "add",
        "remove",
        "action",
        "due_test",
        "proposal",
        "destiny",
        "grapple",
        "mount",
        "off_hand",
        "hero_point",
        "spell",
    }
)


async def undo(
    ctx: AppContext,
    caller: Caller,
    *,
    count: int = 1,
    fight_id: int | None = None,
    number: int | None = None,
) -> FightOutcome:
    """Undo the fight's last ``count`` actions (``number``: exactly that one, which must still be
    the latest — the confirmation button)."""

    async def work(scope: Scope) -> FightOutcome:
        fight_journal.suspend(scope.session)
        doc = await fight_by_id(scope, fight_id) if fight_id is not None else await fight_here(scope)
        scope.ruleset = doc.row.ruleset or "renove"
        wanted = 1 if number is not None else max(1, min(int(count), MAX_UNDO))
        actions = await live_actions(scope, doc, wanted)
        if not actions:
            raise FightRefusal("combat.undo.nothing")
        names = names_of(doc)
        events = await events_of(scope, doc, actions)
        latest = actions[0]
        if number is not None and latest.number < number:
            raise FightRefusal("combat.undo.already", number=number)
        if number is not None and latest.number != number:
            raise FightRefusal(
                "combat.undo.moved_on",
                number=number,
                latest=latest.number,
                what=describe(scope, latest, events, names),
            )
        if not scope.gm:
            if wanted > 1:
                raise FightRefusal("combat.undo.player_one")
            if latest.user_id != scope.caller.user_id:
                raise FightRefusal(
                    "combat.undo.not_yours", number=latest.number, what=describe(scope, latest, events, names)
                )
        now = scope.ctx.now()
        for action in actions:
            await _take_back(scope, doc, action, events, names)
            action.undone_at = now
            action.undone_by = scope.caller.user_id
            if action.last_seq >= action.first_seq:
                await scope.session.execute(
                    update(FightEvent)
                    .where(
                        FightEvent.fight_id == doc.row.id,
                        FightEvent.seq >= action.first_seq,
                        FightEvent.seq <= action.last_seq,
                    )
                    .values(undone=True)
                )
        doc = Doc.load(doc.row)
        lines = [(a.number, describe(scope, a, events, names)) for a in actions]
        if len(lines) == 1:
            text = scope.t("combat.undo.done_one", what=lines[0][1], number=lines[0][0])
        else:
            items = "\n".join(scope.t("combat.undo.item", what=what, number=n) for n, what in lines)
            text = scope.t("combat.undo.done_many", n=len(lines), items=items)
        if len(actions) < wanted:
            plural = "one" if len(actions) == 1 else "many"
            text += "\n" + scope.t(f"combat.undo.fewer.{plural}", n=len(actions))
        if doc.state.round:
            turn = _turn_line(scope, doc)  # where the fight stands now: whose turn, or the round over
            text += ("\n" + turn) if turn else ""
        reply = Reply(
            description=text,
            colour=Colour.INFO,
            kind="combat.undo",
            result={"fight_id": doc.row.id, "undone": [a.number for a in actions]},
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)


async def preview(ctx: AppContext, caller: Caller, *, fight_id: int) -> FightOutcome:
    """The tracker's « Annuler » button (GM): what would be undone, and a button to confirm it."""

    async def work(scope: Scope) -> FightOutcome:
        if not scope.gm:
            raise FightRefusal("combat.undo.button_gm")
        doc = await fight_by_id(scope, fight_id)
        actions = await live_actions(scope, doc, 1)
        if not actions:
            raise FightRefusal("combat.undo.nothing")
        events = await events_of(scope, doc, actions)
        what = describe(scope, actions[0], events, names_of(doc))
        button = Button(
            label=scope.t("combat.undo.confirm_button"),
            custom_id=custom_id(doc.row.id, "undo", "ok", actions[0].number),
            style=ButtonStyle.DANGER,
        )
        reply = Reply(
            description=scope.t("combat.undo.confirm", what=what, number=actions[0].number),
            colour=Colour.INFO,
            kind="combat.undo_confirm",
            result={"fight_id": doc.row.id, "number": actions[0].number},
            ephemeral=True,
            buttons=((button,),),
        )
        return FightOutcome(reply)

    return await run(ctx, caller, work)


async def live_actions(scope: Scope, doc: Doc, limit: int) -> list[FightAction]:
    """The fight's latest actions not undone, newest first."""
    query = (
        select(FightAction)
        .where(FightAction.fight_id == doc.row.id, FightAction.undone_at.is_(None))
        .order_by(FightAction.number.desc())
        .limit(limit)
    )
    return list((await scope.session.scalars(query)).all())


async def events_of(scope: Scope, doc: Doc, actions: Sequence[FightAction]) -> list[FightEvent]:
    low = min(a.first_seq for a in actions)
    high = max(a.last_seq for a in actions)
    query = (
        select(FightEvent)
        .where(FightEvent.fight_id == doc.row.id, FightEvent.seq >= low, FightEvent.seq <= high)
        .order_by(FightEvent.seq)
    )
    return list((await scope.session.scalars(query)).all())


async def attack_undone(scope: Scope, doc: Doc, seq: int) -> bool:
    """Whether the fight's event ``seq`` (an attack a button still names) was undone."""
    query = select(FightEvent.undone).where(FightEvent.fight_id == doc.row.id, FightEvent.seq == seq)
    return bool(await scope.session.scalar(query))


async def _take_back(
    scope: Scope, doc: Doc, action: FightAction, events: Sequence[FightEvent], names: dict[str, str]
) -> None:
    row = doc.row
    current = fight_journal.document(row.state)
    if fight_journal.doc_hash(current) != action.after_hash:
        raise FightRefusal("combat.undo.diverged", number=action.number)
    for cid, fields in sorted(action.sheets.items()):
        sheet = await get_row(scope.session, scope.guild_id, int(cid))
        if sheet is None:
            raise FightRefusal("combat.undo.sheet_gone", number=action.number)
        now = fight_journal.sheet_values(sheet)
        if any(now.get(name) != pair[1] for name, pair in fields.items()):
            raise FightRefusal(
                "combat.undo.sheet_changed",
                of=of(scope, sheet.name),
                number=action.number,
                what=describe(scope, action, events, names),
            )
        for name, pair in fields.items():
            setattr(sheet, name, fight_journal.plain(pair[0]))
    before = fight_journal.patch(current, action.reverse["state"])
    for key in fight_journal.UNTRACKED:
        if key in (row.state or {}):
            before[key] = row.state[key]
    row.state = before
    for name in fight_journal.FIGHT_FIELDS:
        if name in action.reverse:
            setattr(row, name, action.reverse[name])


# -- naming an action in words --------------------------------------------------------------


def names_of(doc: Doc) -> dict[str, str]:
    return {c.id: c.name for c in doc.state.combatants}


def of(scope: Scope, name: str) -> str:
    """« de Gunther », « d'Élise » (English: "Gunther's")."""
    return scope.t("combat.undo.of", name=name)


def describe(scope: Scope, action: FightAction, events: Sequence[FightEvent], names: dict[str, str]) -> str:
    """An action in words, from its events: « l'attaque de Gunther sur Élise »."""
    mine = [e for e in events if action.first_seq <= e.seq <= action.last_seq]
    main = next((e for e in mine if e.kind not in SECONDARY), mine[0] if mine else None)
    if main is None or main.kind not in NAMED:
        return scope.t("combat.undo.what.other")
    payload = main.payload or {}

    def name(cid: Any) -> str:
        return names.get(str(cid), str(cid)) if cid is not None else "?"

    if main.kind == "add":
        added = [str(c.get("name", "?")) for c in payload.get("combatants", []) if isinstance(c, dict)]
        first = added[0] if added else "?"
        rest = "".join(", " + n for n in added[1:])
        return scope.t("combat.undo.what.add", name=first, rest=rest)
    if main.kind == "remove":
        gone = str(payload.get("name") or name(main.actor))
        return scope.t("combat.undo.what.remove", name=gone)
    if main.kind in ("round", "round_end"):
        return scope.t(f"combat.undo.what.{main.kind}", n=main.round)
    if main.kind == "next":
        return scope.t("combat.undo.what.next")
    if main.kind == "posture":
        ids = payload.get("combatants") or []
        listed = [name(i) for i in ids] or ["?"]
        key = "combat.undo.what.posture" if len(listed) == 1 else "combat.undo.what.postures"
        return scope.t(key, of=of(scope, listed[0]), names=", ".join(listed))
    who = of(scope, name(main.actor))
    if main.kind == "attack":
        return scope.t("combat.undo.what.attack", of=who, target=name(payload.get("target")))
    if main.kind == "correct":
        return scope.t("combat.undo.what.correct", of=who, field=str(payload.get("field", "?")))
    if main.kind in ("hit", "special"):
        return scope.t("combat.undo.what.defence", of=who)
    kind = "manoeuvre" if main.kind in ("grapple", "mount", "off_hand", "hero_point") else main.kind
    return scope.t(f"combat.undo.what.{kind}", of=who)
