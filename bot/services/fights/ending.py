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
        title = scope.t("combat.end.title", name=doc.row.name)
        description, fields = fit_summary(scope, title, summary["text"], summary["fields"])
        reply = Reply(
            title=title,
            description=description,
            fields=fields,
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
    for c in doc.state.combatants:
        parts = hits.get(c.name, [])
        conditions = [w.condition(x, c.name) for x in c.conditions]
        value = "\n".join(parts + conditions) or w.t("combat.end.unhurt")
        fields.append(Field(name=("💀 " if c.has("dead") else "") + c.name, value=value, inline=True))
    dead = [c.name for c in doc.state.combatants if c.has("dead")]
    rounds = doc.state.round
    text = w.t("combat.end.rounds", rounds=rounds)  # CLDR: « 0 round » in French, "0 rounds" in English
    if dead:
        text += "\n" + w.t("combat.end.dead", names=", ".join(dead))
    return {
        "text": text,
        "fields": tuple(fields),
        "result": {"hits": result_hits, "dead": dead, "rounds": doc.state.round},
    }


# Discord's limits on one message's embeds: 6 000 characters in all (title, description, field names
# and values, footer), 4 096 in the description, 25 fields, 256 a field name, 1 024 a field value.
EMBED_TOTAL = 6000
BUDGET = EMBED_TOTAL - 200  # a margin (the 💀, counting differences)
DESCRIPTION_MAX = 4096
FIELDS_MAX = 25
FIELD_NAME_MAX = 256
FIELD_VALUE_MAX = 1024


def _cut_lines(scope: Scope, text: str, limit: int) -> str:
    """``text`` kept whole lines first, ending « … et N autres lignes » when it does not fit."""
    if len(text) <= limit:
        return text
    lines = text.split("\n")
    kept: list[str] = []
    for i, line in enumerate(lines):
        left = len(lines) - i
        more = scope.t("combat.end.more" if left != 1 else "combat.end.more_one", n=left)
        if len("\n".join([*kept, line])) + 1 + len(more) > limit:
            return "\n".join([*kept, more])[:limit]
        kept.append(line)
    return "\n".join(kept)


def fit_summary(
    scope: Scope, title: str, text: str, fields: Sequence[Field]
) -> tuple[str, tuple[Field, ...]]:
    """The summary within one message's embed limits (a long fight at many fighters went over
    6 000 characters and the interaction failed). The description keeps at most a third of the
    budget; 24 fighters get a field, the others are named in a 25th; the characters left are
    shared fairly, the shortest fields whole first, a longer one cut at a line with « … et N
    autres lignes »; the full summary (every hit) stays in the fight's ``end`` event."""
    shown = list(fields)
    others: Field | None = None
    if len(shown) > FIELDS_MAX:
        rest = shown[FIELDS_MAX - 1 :]
        shown = shown[: FIELDS_MAX - 1]
        name = scope.t("combat.end.others", n=len(rest))[:FIELD_NAME_MAX]
        others = Field(name=name, value=", ".join(f.name for f in rest), inline=False)
    budget = BUDGET - len(title)
    description = _cut_lines(scope, text, min(DESCRIPTION_MAX, budget // 3))
    budget -= len(description)
    named = [replace(f, name=f.name[:FIELD_NAME_MAX]) for f in shown]
    budget -= sum(len(f.name) for f in named)
    if others is not None:
        share = max(40, min(FIELD_VALUE_MAX, budget // (len(named) + 1)))
        others = replace(others, value=_cut_lines(scope, others.value.replace(", ", "\n"), share))
        others = replace(others, value=others.value.replace("\n", ", "))
        budget -= len(others.name) + len(others.value)
    limits: dict[int, int] = {}
    left = len(named)
    for i in sorted(range(len(named)), key=lambda k: len(named[k].value)):
        share = max(1, min(FIELD_VALUE_MAX, budget // max(1, left)))
        limits[i] = min(len(named[i].value), share)
        budget -= limits[i]
        left -= 1
    out = [replace(f, value=_cut_lines(scope, f.value, limits[i])) for i, f in enumerate(named)]
    if others is not None:
        out.append(others)
    return description, tuple(out)
