"""A destiny point in the flow of a fight: when a PC would die or be paralysed, the reply offers
« Dépenser un point de destin » to his player; the click updates the fight and the sheet in one
transaction, and the thread sees it.

Readings (seed 000, « Points de destin »; data/fortune_destiny.json):

* A point is only spent against DEATH or PARALYSIS, never against losing a limb: « le joueur ne
  meurt pas, mais subit tout de même la séquelle ». Against death, the fighter's ``dead`` conditions
  go and every other effect stays (wounds, parts lost, bleeding, unconsciousness …), as
  ``/destin contre:death`` does. Against paralysis (a critical's « paralysie permanente », a GM's
  ruling the fight does not apply itself), the fight records that it is avoided.
* Only a player's `renove` character in a `renove` fight is offered the button (his sheet carries
  the PD); with no point left, the reply says so instead of offering it. Only the character's
  owner may press it, the GM included in « others »: the point is the player's to spend.
* Spending takes one PD off the sheet, and Fortune down to PD if it was above (Fortune never
  exceeds PD, as ``/destin`` does).

The other systems (issue 18): `ogl` offers a player's PC struck by a major wound (Blessure Grave,
which kills at the head, chest or abdomen) its hero point's Éraflure (seed 004 l. 40,
data/ogl_hero_points.json): the offer is made by :mod:`.systems.ogl_wounds` with ``against`` =
``graze``, its button (``hero:<offer>``) spends the fight's PH of the fighter
(:func:`bot.services.fights.systems.ogl_manoeuvres.hero.spend_offer`). `v1` (seed 001) and `d20`
(seed 003) have no destiny rule — the v1 seed never names Points de Destin and its sheets carry
none; d20's « test de chance » is a roll, not a point spent — so no button there.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from bot.context import AppContext
from bot.db.characters import get_row
from bot.db.fight_models import Fight
from bot.rules.renove.fortune import DestinyAgainst, PointsError, spend_destiny
from bot.services.caller import Caller
from bot.services.fights._core import (
    OTHER_RULESETS,
    Doc,
    FightOutcome,
    FightRefusal,
    Scope,
    custom_id,
    new_event,
    outcome,
    run,
)
from bot.ui.reply import Button, ButtonStyle, Colour, Reply

KIND: Final = "destiny"  # the custom id kind: melee:fight:<fight>:destiny:<offer number>
DESTINY: Final = "PD"
FORTUNE: Final = "Fortune"
PARALYSIS_CODES: Final = frozenset({"permanent_paralysis"})
GRAZE: Final = "graze"  # an ogl major wound: the hero point's Éraflure
HERO_KIND: Final = "hero"  # its button: melee:fight:<fight>:hero:<offer number>


def _offers(doc: Doc) -> dict[str, Any]:
    value: dict[str, Any] = doc.data.setdefault("destiny", {})
    return value


def offer(doc: Doc, cid: str, against: str, source: str) -> None:
    """Register that the fighter ``cid`` would die (or be paralysed) now: a PC of a `renove` fight
    is offered a destiny point in the reply (:func:`offer_lines`); an `ogl` PC his Éraflure
    (``against`` = ``graze``)."""
    if doc.row.ruleset in OTHER_RULESETS and not (doc.row.ruleset == "ogl" and against == GRAZE):
        return
    meta = doc.meta.get(cid, {})
    if meta.get("kind") != "pc" or not meta.get("character_id"):
        return
    offers = _offers(doc)
    if any(o["combatant"] == cid and o["against"] == against for o in offers.values()):
        return
    number = int(doc.data.get("destiny_seq", 0)) + 1
    doc.data["destiny_seq"] = number
    offers[str(number)] = {
        "combatant": cid,
        "against": against,
        "source": source,
        "character_id": int(meta["character_id"]),
        "round": doc.state.round,
        "shown": False,
    }


def paralysing(events: Any) -> str | None:
    """The source of a « paralysie permanente » among a critical's events, if any."""
    for event in events:
        if event.kind == "gm_ruling" and str(event.params.get("code")) in PARALYSIS_CODES:
            return str(event.source)
    return None


async def offer_lines(scope: Scope, doc: Doc) -> tuple[list[str], tuple[tuple[Button, ...], ...]]:
    """The offers made during this action: a line each and, when the PC has a point left, a
    button for his player; with none left, the line says so and nothing is offered. Call before
    ``doc.save()``."""
    lines: list[str] = []
    buttons: list[Button] = []
    offers = _offers(doc)
    for number, item in sorted(offers.items(), key=lambda kv: int(kv[0])):
        if item.get("shown"):
            continue
        item["shown"] = True
        c = doc.state.get(item["combatant"])
        if item["against"] == GRAZE:
            button = _graze_offer(scope, doc, number, c, lines)
            if button is None:
                offers.pop(number)
            else:
                buttons.append(button)
            continue
        row = await get_row(scope.session, scope.guild_id, int(item["character_id"]))
        points = int((row.characteristics or {}).get(DESTINY, 0)) if row is not None else 0
        if row is None or row.ruleset != "renove" or points <= 0:
            offers.pop(number)
            lines.append(scope.t(f"combat.destiny.none.{item['against']}", name=c.name))
            continue
        left = scope.t("combat.destiny.left.one" if points == 1 else "combat.destiny.left.many", n=points)
        lines.append(scope.t(f"combat.destiny.offer.{item['against']}", name=c.name, left=left))
        buttons.append(
            Button(
                scope.t("combat.destiny.button", name=c.name)[:80],
                custom_id(doc.row.id, KIND, number),
                ButtonStyle.SUCCESS,
                emoji="💫",
            )
        )
    rows = tuple(tuple(buttons[i : i + 5]) for i in range(0, len(buttons), 5))
    return lines, rows


def _graze_offer(scope: Scope, doc: Doc, number: str, c: Any, lines: list[str]) -> Button | None:
    """An `ogl` PC's major wound: his Éraflure offered while he has a hero point left."""
    points = int(doc.meta.get(c.id, {}).get("hero_points") or 0)
    if points <= 0:
        lines.append(scope.t("combat.destiny.none.graze", name=c.name))
        return None
    left = scope.t("combat.destiny.left.one" if points == 1 else "combat.destiny.left.many", n=points)
    lines.append(scope.t("combat.destiny.offer.graze", name=c.name, left=left))
    return Button(
        scope.t("combat.destiny.button_graze", name=c.name)[:80],
        custom_id(doc.row.id, HERO_KIND, number),
        ButtonStyle.SUCCESS,
        emoji="🦸",
    )


def take_graze_offer(scope: Scope, doc: Doc, number: int) -> str:
    """The `ogl` Éraflure offer ``number`` (removed with the fighter's other ones): his id. Refused
    when gone or not the presser's PC."""
    offers = _offers(doc)
    item = offers.get(str(number))
    if (
        item is None
        or item.get("against") != GRAZE
        or item["combatant"] not in {c.id for c in doc.state.combatants}
    ):
        raise FightRefusal("combat.destiny.error.gone_graze")
    cid = str(item["combatant"])
    if doc.owner(cid) != scope.caller.user_id:
        raise FightRefusal("combat.destiny.error.not_yours_graze", name=doc.state.get(cid).name)
    withdraw(doc, cid, GRAZE)
    return cid


def withdraw(doc: Doc, cid: str, against: str) -> None:
    """The fighter's ``against`` offers gone (spent another way, e.g. ``/manoeuvre heroisme``)."""
    offers = _offers(doc)
    for key in [k for k, o in offers.items() if o["combatant"] == cid and o["against"] == against]:
        offers.pop(key)


def merge_rows(
    *groups: tuple[tuple[Button, ...], ...],
) -> tuple[tuple[Button, ...], ...]:
    """Button rows of a reply, Discord's five at most (the destiny offers first: a life at stake)."""
    rows = [row for group in groups for row in group if row]
    return tuple(rows[:5])


async def spend(ctx: AppContext, caller: Caller, *, fight_id: int, number: int) -> FightOutcome:
    """The button: the PC's player spends a destiny point; the fight (his ``dead`` conditions go)
    and the sheet (PD − 1) change in one transaction."""

    async def work(scope: Scope) -> FightOutcome:
        row = await scope.session.get(Fight, fight_id)
        if row is None or row.guild_id != scope.guild_id:
            raise FightRefusal("combat.error.no_fight")
        if row.status != "open":
            raise FightRefusal("combat.error.closed")
        scope.ruleset = row.ruleset or "renove"
        doc = Doc.load(row)
        offers = _offers(doc)
        item = offers.get(str(number))
        if item is None:
            raise FightRefusal("combat.destiny.error.gone")
        cid = str(item["combatant"])
        try:
            c = doc.state.get(cid)
        except KeyError:
            raise FightRefusal("combat.destiny.error.gone") from None
        if doc.owner(cid) != caller.user_id:
            raise FightRefusal("combat.destiny.error.not_yours", name=c.name)
        against = DestinyAgainst(str(item["against"]))
        if against is DestinyAgainst.DEATH and not c.has("dead"):
            raise FightRefusal("combat.destiny.error.not_dead", name=c.name)
        sheet = await get_row(scope.session, scope.guild_id, int(item["character_id"]))
        if sheet is None:
            raise FightRefusal("combat.destiny.error.sheet_gone")
        values = dict(sheet.characteristics or {})
        before, fortune_before = int(values.get(DESTINY, 0)), int(values.get(FORTUNE, 0))
        try:
            spent = spend_destiny(before, against, with_sequel=True)
        except PointsError:
            raise FightRefusal("combat.destiny.error.no_points", name=c.name) from None
        values[DESTINY] = spent.left
        values[FORTUNE] = min(fortune_before, spent.left)
        sheet.characteristics = values
        await scope.session.flush()  # the sheet's version: a concurrent change fails here
        causes: list[str] = []
        if against is DestinyAgainst.DEATH:
            causes = [x.source for x in c.conditions if x.kind == "dead"]
            doc.state = doc.state.put(
                replace(c, conditions=tuple(x for x in c.conditions if x.kind != "dead"))
            )
        for key in [k for k, o in offers.items() if o["combatant"] == cid and o["against"] == against.value]:
            offers.pop(key)
        payload = {
            "fight_id": doc.row.id,
            "offer": number,
            "combatant": cid,
            "character_id": sheet.id,
            "against": against.value,
            "source": item.get("source"),
            "causes": causes,
            "destiny": {"before": before, "after": spent.left},
            "fortune": {"before": fortune_before, "after": values[FORTUNE]},
        }
        new_event(scope, doc, "destiny", cid, payload)
        doc.save()
        lines = [
            scope.t(f"combat.destiny.saved.{against.value}", name=c.name),
            scope.t(
                "combat.destiny.sheet",
                before=before,
                after=spent.left,
                fortune_before=fortune_before,
                fortune_after=values[FORTUNE],
            ),
        ]
        reply = Reply(
            title=scope.t("combat.destiny.title", name=c.name),
            description="\n".join(lines),
            colour=Colour.CRITICAL_SUCCESS,
            kind="combat.destiny",
            result=payload,
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)
