"""Showing a fight and ending it (the summary)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import select

from bot.context import AppContext
from bot.db.fight_models import FightEvent
from bot.rules.combat.state import signal
from bot.services.caller import Caller
from bot.services.fights._core import (
    Doc,
    FightOutcome,
    Scope,
    fight_here,
    forget_channels,
    new_event,
    outcome,
    require_gm,
    run,
    tracker_of,
)
from bot.services.fights.wounds import write_back, written_line
from bot.ui.reply import Colour, Field, Reply


async def show(ctx: AppContext, caller: Caller) -> FightOutcome:
    async def work(scope: Scope) -> FightOutcome:
        doc = await fight_here(scope)
        tracker = tracker_of(scope, doc, shared=False)
        return FightOutcome(
            replace(
                tracker,
                ephemeral=True,
                result={
                    **(tracker.result or {}),
                    "fight_id": doc.row.id,
                    "state": doc.state.to_dict(),
                    "pending": list(doc.pending),
                    "prompts": doc.prompts,
                },
            )
        )

    return await run(ctx, caller, work)


async def end_fight(ctx: AppContext, caller: Caller) -> FightOutcome:
    """GM: the summary (hits, zones, effects, the dead), end-of-combat conditions end; what the fight
    left is written onto the sheets (:func:`~bot.services.fights.wounds.write_back`); archive."""

    async def work(scope: Scope) -> FightOutcome:
        require_gm(scope)
        doc = await fight_here(scope)
        for c in doc.state.combatants:
            doc.state, _ = signal(doc.state, c.id, "end_of_combat")
        events = (
            await scope.session.scalars(
                select(FightEvent)
                .where(FightEvent.fight_id == doc.row.id, FightEvent.undone.is_(False))
                .order_by(FightEvent.seq)
            )
        ).all()
        summary = _summary(scope, doc, events)
        now = scope.ctx.now()
        written = await write_back(scope, doc, events, now)
        if written:
            summary["text"] += "\n" + "\n".join(written_line(scope.words, item) for item in written)
        summary["result"]["written"] = [item.to_dict() for item in written]
        doc.data["pending"] = {}
        doc.row.status = "closed"
        forget_channels(doc.row.id)
        doc.row.closed_at = now
        new_event(scope, doc, "end", None, {"summary": summary["result"]})
        doc.save()
        reply = Reply(
            title=scope.t("combat.end.title", name=doc.row.name),
            description=summary["text"][:4000],
            fields=summary["fields"],
            colour=Colour.INFO,
            kind="combat.end",
            result={"fight_id": doc.row.id, **summary["result"]},
        )
        return outcome(scope, doc, reply, archive=True)

    return await run(ctx, caller, work)


def _summary(scope: Scope, doc: Doc, events: Sequence[FightEvent]) -> dict[str, Any]:
    w = scope.words
    hits: dict[str, list[str]] = {}
    result_hits: list[dict[str, Any]] = []
    for event in events:
        payload = event.payload
        side = payload.get("side_effect") or {}
        through_parry = event.kind == "defence" and (payload.get("critical") or side.get("damage_taken"))
        if event.kind != "hit" and not through_parry:
            continue
        victim = event.actor or "?"
        try:
            name = doc.state.get(victim).name
        except KeyError:
            name = victim
        # a hit: the damage after armour; a parry side effect: the share of it taken (¼, ½, all)
        damage = (
            int(side.get("damage_taken") or 0)
            if event.kind == "defence"
            else (payload.get("damage") or {}).get("total", 0)
        )
        crit = payload.get("critical") or {}
        dealt = payload.get("damage") or payload.get("side_effect_damage") or {}
        zone = crit.get("zone") or (dealt.get("armour") or {}).get("zone")
        text = f"R{event.round} · {w.zone(zone)} · {damage}"
        if crit:
            text += f" → {w.t('combat.word.critical')} {crit['value']['value']}"
        hits.setdefault(name, []).append(text)
        result_hits.append(
            {
                "victim": victim,
                "round": event.round,
                "zone": zone,
                "damage": damage,
                "critical": crit.get("value", {}).get("value"),
            }
        )
    fields = []
    for c in doc.state.combatants[:24]:
        parts = hits.get(c.name, [])
        conditions = [w.condition(x, c.name) for x in c.conditions]
        value = "\n".join(parts + conditions) or w.t("combat.end.unhurt")
        fields.append(Field(name=("💀 " if c.has("dead") else "") + c.name, value=value[:1000], inline=True))
    dead = [c.name for c in doc.state.combatants if c.has("dead")]
    text = w.t("combat.end.rounds", rounds=doc.state.round)
    if dead:
        text += "\n" + w.t("combat.end.dead", names=", ".join(dead))
    return {
        "text": text,
        "fields": tuple(fields),
        "result": {"hits": result_hits, "dead": dead, "rounds": doc.state.round},
    }
