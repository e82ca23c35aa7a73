"""What a fight leaves on the sheets (written at ``/combat fin``), and a destiny point against death
(``/destin contre:death``) reviving a fighter dead in an open fight.

Readings:

* The sheets are written at ``/combat fin``, in the transaction that ends the fight, not at each
  death or critical: while the fight is open its document is what counts, and the GM may still undo
  a death there (``/combat etat operation:revive``, a destiny point), remove or correct a condition;
  writing at once would have to mirror each of those edits onto the sheet.
* Points de Folie gained in the fight: the fighter's PF at the end minus his PF when he joined (the
  GM raises them with ``/combat corriger qui:X champ:PF valeur:N``), added to the sheet's PF.
* A fighter dead at the end is dead on his sheet (cause: the source of his ``dead`` condition) until
  the GM revives him (``/perso modifier vivant:oui``) or a destiny point does.
* Only `renove` criticals become wounds; a fighter of another ruleset gets his death and PF only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.context import AppContext
from bot.db import fight_journal
from bot.db.characters import get_row, to_sheet, write_data
from bot.db.fight_models import Fight, FightEvent
from bot.db.repositories import get_server_config
from bot.rules.wounds import CriticalTaken, Death, WoundSheet, wounds_from_fight
from bot.services.caller import Caller
from bot.services.fights._core import Doc, Scope, new_event, tables_for, tracker_of
from bot.services.fights.text import Words
from bot.services.wounds import colon, joined, wound_parts
from bot.ui.reply import Reply

PF = "PF"


def criticals_taken(events: Sequence[FightEvent]) -> dict[str, list[CriticalTaken]]:
    """Per victim (combatant id), the `renove` criticals of the fight's log, in order."""
    out: dict[str, list[CriticalTaken]] = {}
    for event in events:
        if event.kind not in ("hit", "defence") or not event.actor:
            continue
        crit = event.payload.get("critical") or {}
        source, kind, zone = crit.get("source"), crit.get("kind"), crit.get("zone")
        value = crit.get("entry_value")
        if not (isinstance(source, str) and source.startswith("criticals.") and isinstance(value, int)):
            continue
        out.setdefault(event.actor, []).append(CriticalTaken(source, str(kind), str(zone), value))
    return out


@dataclass(frozen=True, slots=True)
class Written:
    name: str
    parts: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "parts": list(self.parts)}


async def write_back(scope: Scope, doc: Doc, events: Sequence[FightEvent], at: datetime) -> list[Written]:
    """Write onto each fighter's sheet (PC or NPC) what the fight left: wounds, PF gained, death."""
    taken = criticals_taken(events)
    written: list[Written] = []
    w = scope.words
    for c in doc.state.combatants:
        meta = doc.meta.get(c.id, {})
        if not meta.get("character_id"):
            continue
        row = await get_row(scope.session, scope.guild_id, int(meta["character_id"]))
        if row is None:
            continue
        data = to_sheet(row).data()
        record = WoundSheet.from_dict(data.wounds)
        new = wounds_from_fight(taken.get(c.id, []), c.conditions, fight=doc.row.name, at=at)
        before = len(record.wounds)
        record = record.add(new)
        parts: list[str] = []
        for wound in record.wounds[before:]:
            parts.append(w.zone(wound.zone) + colon(w) + joined(w, wound_parts(w, wound, c.name)))
        stats = dict(data.characteristics)
        gained = int(c.characteristics.get(PF, 0)) - int(meta.get("pf_start", c.characteristics.get(PF, 0)))
        if gained > 0 and PF in stats:
            stats[PF] = int(stats[PF]) + gained
            parts.append(w.t("wounds.written.pf.one" if gained == 1 else "wounds.written.pf.many", n=gained))
        if c.has("dead"):
            cause = next(x.source for x in c.conditions if x.kind == "dead")
            record = replace(record, dead=Death(cause, doc.row.name, at.date().isoformat()))
            parts.append(w.t("wounds.written.dead"))
        if not parts:
            continue
        write_data(row, replace(data, characteristics=stats, wounds=record.to_dict()))
        written.append(Written(row.name, tuple(parts)))
    return written


def written_line(words: Words, item: Written) -> str:
    key = "wounds.written.line"
    return words.t(key, name=item.name, what=joined(words, item.parts))


# -- a destiny point against death ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Revived:
    fighter: str
    fight: str
    tracker: Reply
    thread_id: int | None
    tracker_message_id: int | None


async def revive_in_fights(
    ctx: AppContext, caller: Caller, session: AsyncSession, character_id: int
) -> Revived | None:
    """A destiny point saves the character's fighter dead in an open fight of this server (the one
    of the caller's thread first): his ``dead`` conditions go, every other effect stays (the seed's
    « le joueur ne meurt pas, mais subit tout de même la séquelle »). ``None`` if none is dead."""
    assert caller.guild_id is not None
    fight_journal.watch(session, caller.user_id)  # the point is the player's action: he may undo it
    rows = (
        await session.scalars(
            select(Fight).where(Fight.guild_id == caller.guild_id, Fight.status == "open").order_by(Fight.id)
        )
    ).all()
    rows = sorted(rows, key=lambda r: r.thread_id != caller.channel_id)
    for row in rows:
        doc = Doc.load(row)
        for cid, meta in doc.meta.items():
            if meta.get("character_id") != character_id:
                continue
            try:
                c = doc.state.get(cid)
            except KeyError:
                continue
            if not c.has("dead"):
                continue
            config = await get_server_config(session, caller.guild_id)
            tables, docs = await tables_for(session, ctx, caller.guild_id)
            scope = Scope(ctx, session, config, caller, Words(ctx, caller.locale, docs), tables, ctx.rng)
            scope.ruleset = row.ruleset or "renove"
            causes = [x.source for x in c.conditions if x.kind == "dead"]
            alive = tuple(x for x in c.conditions if x.kind != "dead")
            doc.state = doc.state.put(replace(c, conditions=alive))
            offers = doc.data.get("destiny") or {}  # the button offered in the thread is spent too
            for key in [
                k for k, o in offers.items() if o.get("combatant") == cid and o.get("against") == "death"
            ]:
                offers.pop(key)
            new_event(scope, doc, "destiny", cid, {"against": "death", "causes": causes})
            doc.save()
            return Revived(c.name, row.name, tracker_of(scope, doc), row.thread_id, row.tracker_message_id)
    return None
