"""Due tests, conditions and the GM's corrections."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from bot.context import AppContext
from bot.rules.combat.effects import Condition, resolve_pending, state_key
from bot.rules.combat.state import Combatant, signal
from bot.services.caller import Caller
from bot.services.fights._core import (
    OTHER_RULESETS,
    QUICK_NPC_DEFAULTS,
    Doc,
    FightOutcome,
    FightRefusal,
    Scope,
    d100_or_none,
    fight_here,
    may_control,
    new_event,
    outcome,
    parse_dice,
    require_gm,
    run,
    saved_outcome,
)
from bot.services.fights.damage import _application_lines, _proposal_buttons
from bot.services.fights.destiny import merge_rows, offer_lines
from bot.services.fights.registry import system_of
from bot.ui.reply import Colour, Reply


async def roll_due_test(
    ctx: AppContext, caller: Caller, *, who: str, roll: int | None = None, durations: str | None = None
) -> FightOutcome:
    """Roll the oldest due test (bleeding, delayed) of a combatant and apply its branch."""

    async def work(scope: Scope) -> FightOutcome:
        doc = await fight_here(scope)
        c = doc.find(who)
        if not may_control(scope, doc, c.id):
            raise FightRefusal("combat.error.not_yours", name=c.name)
        mine = [p for p in doc.prompts if p["combatant"] == c.id]
        if not mine:
            raise FightRefusal("combat.test.none", name=c.name)
        prompt = mine[0]
        doc.prompts.remove(prompt)
        if doc.row.ruleset in OTHER_RULESETS and str(prompt["kind"]).startswith(doc.row.ruleset + "."):
            done: FightOutcome = system_of(doc.row.ruleset).due_test(scope, doc, c, prompt, roll)
            return done
        condition = Condition.from_dict(prompt["condition"])
        application = resolve_pending(
            condition,
            c.current_characteristics(),
            conditions=c.conditions,
            rng=scope.rng,
            test_roll=d100_or_none(roll),
            duration_rolls=parse_dice(durations, option="durations"),
        )
        payload: dict[str, Any] = {"fight_id": doc.row.id, "prompt": prompt}
        lines = [scope.t(f"combat.test.{prompt['kind']}", name=c.name)]
        lines.extend(_application_lines(scope, doc, c, application, payload))
        offered, destiny_rows = await offer_lines(scope, doc)  # a PC who would die: his destiny point
        lines.extend(offered)
        new_event(scope, doc, "due_test", c.id, payload)
        doc.save()
        reply = Reply(
            description="\n".join(lines)[:4000],
            colour=Colour.NEUTRAL,
            kind="combat.test",
            result=payload,
            buttons=merge_rows(destiny_rows, _proposal_buttons(scope, doc, payload.get("proposals", []))),
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)


CONDITION_OPS: Final = ("add", "remove", "treated", "healed", "stands_up", "revive")


async def edit_condition(
    ctx: AppContext,
    caller: Caller,
    *,
    who: str,
    op: str,
    stat: str | None = None,
    value: int | None = None,
    rounds: int | None = None,
    kind: str | None = None,
    index: int | None = None,
) -> FightOutcome:
    """GM: add a condition (a modifier on a stat, or a kind: stunned, no_action, prone …), remove
    one (by its number on the tracker), or signal treated / healed / stands up / revive."""

    async def work(scope: Scope) -> FightOutcome:
        require_gm(scope)
        doc = await fight_here(scope)
        c = doc.find(who)
        text = ""
        if op == "add":
            if stat:
                if value is None:
                    raise FightRefusal("combat.condition.value_needed")
                condition = Condition(
                    "modifier",
                    "gm",
                    stat=stat,
                    value=value,
                    remaining=rounds,
                    unit="round" if rounds else None,
                    until=None if rounds else "end_of_combat",
                )
            else:
                chosen = kind or "stunned"
                if chosen not in ("stunned", "no_action", "prone", "unconscious", "dead"):
                    raise FightRefusal("combat.condition.bad_kind")
                condition = Condition(
                    chosen,
                    "gm",
                    remaining=rounds,
                    unit="round" if rounds else None,
                    until=None
                    if rounds
                    else (
                        "stands_up"
                        if chosen == "prone"
                        else "permanent"
                        if chosen == "dead"
                        else "end_of_combat"
                    ),
                )
            doc.state = doc.state.put(c.with_conditions(condition))
            key = state_key(condition)  # a state already there: the longest one stays, and is shown
            if key is not None:
                condition = next(x for x in doc.state.get(c.id).conditions if state_key(x) == key)
            text = scope.t(
                "combat.condition.added", name=c.name, what=scope.words.condition(condition, c.name)
            )
        elif op == "remove":
            if index is None or not 1 <= index <= len(c.conditions):
                raise FightRefusal("combat.condition.bad_index", max=len(c.conditions))
            removed = c.conditions[index - 1]
            doc.state = doc.state.put(replace(c, conditions=c.conditions[: index - 1] + c.conditions[index:]))
            text = scope.t(
                "combat.condition.removed", name=c.name, what=scope.words.condition(removed, c.name)
            )
        elif op == "revive":
            doc.state = doc.state.put(
                replace(c, conditions=tuple(x for x in c.conditions if x.kind != "dead"))
            )
            text = scope.t("combat.condition.revived", name=c.name)
        elif op in ("treated", "healed", "stands_up"):
            doc.state, result = signal(doc.state, c.id, op)
            doc.data["prompts"] = [p for p in doc.prompts if p["combatant"] != c.id or op == "stands_up"]
            text = scope.t(f"combat.condition.signal.{op}", name=c.name, count=len(result.expired))
        else:
            raise FightRefusal("combat.condition.bad_op")
        new_event(
            scope,
            doc,
            "condition",
            c.id,
            {"op": op, "stat": stat, "value": value, "rounds": rounds, "kind": kind, "index": index},
        )
        return saved_outcome(
            scope, doc, text, "combat.condition", {"combatant": doc.state.get(c.id).to_dict()}
        )

    return await run(ctx, caller, work)


async def correct(ctx: AppContext, caller: Caller, *, who: str, field_name: str, value: int) -> FightOutcome:
    """GM override: a base characteristic (CC, BF …), the shield's PV, or the A spent this round."""

    async def work(scope: Scope) -> FightOutcome:
        require_gm(scope)
        doc = await fight_here(scope)
        c = doc.find(who)
        key = field_name.strip()
        if doc.row.ruleset in OTHER_RULESETS:
            pooled = system_of(doc.row.ruleset).correct_pool(scope, doc, c, key, value)
            if pooled is not None:
                field_key, before_value = pooled
                return _corrected(scope, doc, c, field_key, before_value, value)
        if key.lower() in ("bouclier", "shield"):
            if c.shield_pv is None:
                raise FightRefusal("combat.correct.no_shield", name=c.name)
            before: int | None = c.shield_pv
            doc.state = doc.state.put(replace(c, shield_pv=max(0, value)))
        elif key.lower() in ("a_utilisees", "used", "a_used"):
            before = c.actions.used
            doc.state = doc.state.put(replace(c, actions=replace(c.actions, used=max(0, value))))
        else:
            code = next(
                (
                    k
                    for k in (*c.characteristics, *QUICK_NPC_DEFAULTS, "BF", "BE")
                    if k.lower() == key.lower()
                ),
                None,
            )
            if code is None:
                raise FightRefusal("combat.correct.unknown_field", field=key[:20])
            before = c.characteristics.get(code)
            stats = dict(c.characteristics)
            stats[code] = value
            doc.state = doc.state.put(replace(c, characteristics=stats))
            key = code
        return _corrected(scope, doc, c, key, before, value)

    return await run(ctx, caller, work)


def _corrected(
    scope: Scope, doc: Doc, c: Combatant, key: str, before: int | None, value: int
) -> FightOutcome:
    new_event(scope, doc, "correct", c.id, {"field": key, "before": before, "after": value})
    text = scope.t(
        "combat.correct.done",
        name=c.name,
        field=key,
        before=before if before is not None else "—",
        after=value,
    )
    return saved_outcome(scope, doc, text, "combat.correct", {"field": key, "before": before, "after": value})
