"""Defences (parry, dodge, take it) against a pending attack."""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from bot.context import AppContext
from bot.db.fight_models import Fight
from bot.rules.random_source import RandomSource
from bot.services.caller import Caller
from bot.services.fights._core import (
    DEFENCE_CHOICES,
    EXTRA_DEFENCE_CHOICES,
    OTHER_RULESETS,
    DefenceRolls,
    Doc,
    FightOutcome,
    FightRefusal,
    Scope,
    fight_here,
    may_control,
    outcome,
    run,
)
from bot.services.fights.damage import _proposal_buttons
from bot.services.fights.destiny import merge_rows, offer_lines
from bot.services.fights.hits import _resolve_hit
from bot.services.fights.npc_defence import AUTO, chances_of, pick
from bot.services.fights.registry import system_of
from bot.services.fights.rounds import _settle_turn, _turn_line
from bot.services.fights.undo import attack_undone
from bot.ui.reply import Colour, Reply, error_reply


async def defend(
    ctx: AppContext,
    caller: Caller,
    *,
    choice: str,
    fight_id: int | None = None,
    seq: int | None = None,
    rolls: DefenceRolls | None = None,
    rng: RandomSource | None = None,
) -> FightOutcome:
    """The defender's answer to a pending attack: parry, dodge or take it; then damage and critical."""
    if choice not in (*DEFENCE_CHOICES, *EXTRA_DEFENCE_CHOICES, AUTO):
        return FightOutcome(error_reply(ctx.catalog.t(caller.locale, "combat.error.bad_choice")))

    async def work(scope: Scope) -> FightOutcome:
        if fight_id is not None:
            row = await scope.session.get(Fight, fight_id)
            if row is None or row.guild_id != scope.guild_id:
                raise FightRefusal("combat.error.no_fight")
            if row.status != "open":
                raise FightRefusal("combat.defence.already_resolved")
            scope.ruleset = row.ruleset or "renove"
            doc = Doc.load(row)
        else:
            doc = await fight_here(scope)
        other = doc.row.ruleset in OTHER_RULESETS
        if not other and choice not in (*DEFENCE_CHOICES, AUTO):
            raise FightRefusal("combat.error.bad_choice")
        if other and doc.row.ruleset != "ogl" and rolls is not None and rolls.situation:
            raise FightRefusal("combat.error.defence_situation_renove_only")
        if seq is not None:
            pending = doc.pending.get(str(seq))
            if pending is None:
                undone = await attack_undone(scope, doc, seq)
                raise FightRefusal("combat.defence.undone" if undone else "combat.defence.already_resolved")
        else:
            mine = [p for p in doc.pending.values() if may_control(scope, doc, p["defender"])]
            if not mine:
                raise FightRefusal("combat.defence.nothing_pending")
            pending = min(mine, key=lambda p: int(p["seq"]))
        defender_id = pending["defender"]
        allowed = may_control(scope, doc, defender_id)
        answer = choice
        npc = doc.state.get(defender_id).npc and not pending.get("area")
        if (
            not allowed
            and (choice == "encaisser" or npc)
            and doc.owner(pending["attacker"]) == scope.caller.user_id
        ):
            left = (datetime.fromisoformat(pending["expires_at"]) - scope.ctx.now()).total_seconds()
            allowed = left <= 0
            if npc:  # the wait lapsed: the NPC defends with his best choice, not « encaisser »
                answer = AUTO
            if not allowed:  # the attacker's player: say when he may press instead
                minutes, seconds = divmod(math.ceil(left), 60)
                delay = " ".join(f"{n} {unit}" for n, unit in ((minutes, "min"), (seconds, "s")) if n)
                raise FightRefusal(
                    "combat.defence.wait_npc" if npc else "combat.defence.wait_pc",
                    name=doc.state.get(defender_id).name,
                    delay=delay,
                )
        if not allowed:
            raise FightRefusal("combat.defence.not_yours", name=doc.state.get(defender_id).name)
        said: list[str] = []
        auto: dict[str, Any] | None = None
        if answer == AUTO:
            answer, line, auto = pick(scope, doc, pending, AUTO, await chances_of(scope, doc, pending))
            said.append(line)
        payload: dict[str, Any] = {"fight_id": doc.row.id, "seq": pending["seq"], "choice": answer}
        if auto is not None:
            payload["auto_defence"] = auto
        if other:
            lines: list[str] = [
                *said,
                *await system_of(doc.row.ruleset).resolve(
                    scope, doc, pending, answer, rolls or DefenceRolls(), payload
                ),
            ]
        else:
            lines = [*said, *_resolve_hit(scope, doc, pending, answer, rolls or DefenceRolls(), payload)]
        doc.pending.pop(str(pending["seq"]), None)
        turn: list[str] = []
        if doc.state.round and not doc.data.get("round_over"):
            lines.extend(_settle_turn(scope, doc))
            turn.append(_turn_line(scope, doc))
        offered, destiny_rows = await offer_lines(scope, doc)  # a PC who would die: his destiny point
        lines.extend([*offered, *turn])
        doc.save()
        # an ogl area effect has no attacking fighter: its name stands for him
        attacker = pending.get("label") or doc.state.get(pending["attacker"]).name
        defender = doc.state.get(defender_id).name
        buttons = merge_rows(destiny_rows, _proposal_buttons(scope, doc, payload.get("proposals", [])))
        hook = getattr(system_of(doc.row.ruleset), "reply_selects", None) if other else None
        selects = hook(scope, doc, payload) if hook is not None else ()  # d20: the PV lost, asked
        reply = Reply(
            title=scope.t(
                "combat.defence.title",
                attacker=attacker,
                defender=defender,
                choice=scope.t(f"combat.defence.button.{answer}"),
            ),
            description="\n".join(lines)[:4000],
            colour=Colour.NEUTRAL,
            result=payload,
            buttons=buttons,
            selects=selects,
            kind="combat.defence",
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work, rng=rng)
