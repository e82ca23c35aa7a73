"""A fight from the phone: the target select of the fighter whose turn it is (the living fighters of
the other sides) answers with one attack button per weapon; the button attacks with the bot's
dice (typed commands stay for dice entered by hand)."""

from __future__ import annotations

from typing import Any

from bot.context import AppContext
from bot.services.caller import Caller
from bot.services.fights import attacks as fights_attacks
from bot.services.fights._core import (
    Doc,
    FightOutcome,
    FightRefusal,
    Scope,
    custom_id,
    fight_by_id,
    may_control,
    run,
)
from bot.services.fights.attacks import AttackInput
from bot.services.fights.profiles import profile_buttons
from bot.services.fights.waiting import said, turn_of
from bot.ui.reply import Button, ButtonStyle, Colour, Reply

WEAPON_BUTTONS = 5


def _fighter(doc: Doc, index: int) -> Any:
    if not 0 <= index < len(doc.state.combatants):
        raise FightRefusal("combat.error.bad_choice")
    return doc.state.combatants[index]


def _attacker(scope: Scope, doc: Doc, index: int) -> Any:
    c = _fighter(doc, index)
    if not may_control(scope, doc, c.id):
        raise FightRefusal("combat.error.not_yours", name=c.name)
    slot = doc.state.current_slot
    if slot is None or slot.combatant != c.id or doc.pending or doc.data.get("round_over"):
        raise FightRefusal("combat.error.not_your_turn", name=c.name, turn=turn_of(scope.words, doc))
    return c


def _weapons(scope: Scope, doc: Doc, c: Any) -> list[tuple[str, str]]:
    """(the name ``/combat attaque arme:`` accepts, its label) of the weapons ``c`` may attack with."""
    if (doc.row.ruleset or "renove") == "renove":
        out = []
        for wid in c.weapons:
            weapon = scope.tables.weapons.get(wid)
            if weapon is not None and weapon.combines:  # one button per profile (« Hallebarde (pique) »)
                out.extend(profile_buttons(scope.words, wid, weapon.combines))
            elif weapon is not None and scope.tables.shield_for(wid).pv is None:
                out.append((wid, scope.words.weapon(wid)))
        return out or [(wid, scope.words.weapon(wid)) for wid in c.weapons]
    arms = doc.meta.get(c.id, {}).get("arms") or []
    return [(str(a["name"]), str(a["name"])) for a in arms if a.get("kind") != "shield"] or [("", "⚔️")]


async def choose_target(
    ctx: AppContext, caller: Caller, *, fight_id: int, attacker: int, values: tuple[str, ...]
) -> FightOutcome:
    """The target picked: a private answer with one attack button per weapon of the attacker."""

    async def work(scope: Scope) -> FightOutcome:
        doc = await fight_by_id(scope, fight_id)
        c = _attacker(scope, doc, attacker)
        if not values:
            raise FightRefusal("combat.error.bad_choice")
        foe = doc.find(values[0])
        target = next(i for i, x in enumerate(doc.state.combatants) if x.id == foe.id)
        weapons = _weapons(scope, doc, c)[:WEAPON_BUTTONS]
        if not weapons:
            raise FightRefusal("turns.error.no_weapon", name=c.name)
        buttons = tuple(
            Button(
                scope.t("turns.button.attack", weapon=label)[:80],
                custom_id(doc.row.id, "atk", attacker, f"{target}-{index}"),
                ButtonStyle.DANGER,
            )
            for index, (_, label) in enumerate(weapons)
        )
        reply = Reply(
            description=scope.t("turns.attack.choose", attacker=c.name, target=foe.name),
            colour=Colour.INFO,
            ephemeral=True,
            buttons=(buttons,),
            kind="combat.target",
            result={"fight_id": doc.row.id, "attacker": c.id, "target": foe.id},
        )
        return FightOutcome(reply, fight_id=doc.row.id)

    return await run(ctx, caller, work)


async def attack_button(
    ctx: AppContext, caller: Caller, *, fight_id: int, attacker: int, target: int, weapon: int
) -> FightOutcome:
    """An attack button: the attacker, his target and weapon by their places; the bot rolls."""
    found: dict[str, str] = {}

    async def work(scope: Scope) -> FightOutcome:
        doc = await fight_by_id(scope, fight_id)
        c = _attacker(scope, doc, attacker)
        foe = _fighter(doc, target)
        weapons = _weapons(scope, doc, c)
        if not 0 <= weapon < len(weapons):
            raise FightRefusal("combat.error.bad_choice")
        found.update(attacker=c.id, target=foe.id, weapon=weapons[weapon][0])
        return FightOutcome(Reply(description=said(scope.words, "turns.whose", c.name)))

    checked = await run(ctx, caller, work)
    if checked.reply.is_error:
        return checked
    data = AttackInput(target=found["target"], attacker=found["attacker"], weapon=found["weapon"] or None)
    return await fights_attacks.attack(ctx, caller, data)
