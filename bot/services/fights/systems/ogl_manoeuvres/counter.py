"""``/manoeuvre riposte``: the `ogl` counter-attack (seed 004): a reaction (one per triggering event,
within the reaction limit) answered by a melee attack the enemy may parry or dodge
(``/combat defense``); running gives +20 %.
"""

from __future__ import annotations

from typing import Final

from bot.context import AppContext
from bot.rules.combat.common import term
from bot.rules.ogl import combat as rules
from bot.rules.random_source import RandomSource
from bot.rules.sheets import fold
from bot.services.caller import Caller
from bot.services.fights._core import FightOutcome, FightRefusal, Scope, run
from bot.services.fights.attacks import AttackInput
from bot.services.fights.kit import RANGED_KINDS, actor, pick_arm
from bot.services.fights.systems import ogl, ogl_ledger
from bot.services.fights.systems.ogl_manoeuvres import free_ask

COUNTER_TRIGGERS: Final[dict[str, rules.Trigger]] = {
    "tir": rules.Trigger.RANGED_ATTACK,
    "change_de_position": rules.Trigger.CHANGES_POSITION,
    "s_eloigne": rules.Trigger.MOVES_AWAY,
    "s_approche": rules.Trigger.APPROACHES,
    "garde_ouverte": rules.Trigger.GUARD_OPEN,
    "court": rules.Trigger.RUNS,
    "se_deplace": rules.Trigger.MOVES,
}
RUN_BONUS: Final = 20  # "Courir : ... une Contre-Attaque avec un bonus de 20%"


async def counter_attack(
    ctx: AppContext,
    caller: Caller,
    *,
    target: str,
    trigger: str,
    who: str | None = None,
    weapon: str | None = None,
    roll: int | None = None,
    location: str | None = None,
    damage: str | None = None,
    effects: str | None = None,
    rng: RandomSource | None = None,
    fight_id: int | None = None,
    ask: int | None = None,
) -> FightOutcome:
    """The counter-attack reaction: a melee attack against an adjacent enemy who triggered it. An
    ally as the target asks first (nothing spent); ``ask``: that question confirmed (its stored
    request replaces the arguments)."""

    async def work(scope: Scope) -> FightOutcome:
        nonlocal target, trigger, who, weapon, roll, location, damage, effects
        doc = await ogl_ledger.ogl_fight(scope, in_round=True, fight_id=fight_id)
        if ask is not None:
            stored = free_ask.take(scope, doc, ask, free_ask.COUNTER)
            target, trigger, who, weapon = stored.target, stored.special or "", stored.attacker, stored.weapon
            roll, location, damage, effects = stored.roll, stored.location, stored.damage, stored.effects
        c = actor(scope, doc, who)
        foe = doc.find(target)
        why = COUNTER_TRIGGERS.get(fold(trigger).replace(" ", "_").replace("'", "_").replace("-", "_"))
        if why is None:
            raise FightRefusal("manoeuvre.error.trigger", accepted=", ".join(COUNTER_TRIGGERS))
        arm = pick_arm(doc, c, weapon)
        if arm["kind"] in RANGED_KINDS:
            raise FightRefusal("manoeuvre.refusal.counter_melee_only")
        request = AttackInput(
            target=foe.name,
            attacker=c.name,
            weapon=weapon,
            roll=roll,
            damage=damage,
            effects=effects,
            location=location,
            special=trigger,
        )
        if ask is None and free_ask.on_ally(c, foe):
            return free_ask.question(scope, doc, c, foe, request, free_ask.COUNTER)
        event = f"{why.value}:{foe.id}:{doc.state.round}:{doc.state.turn}"
        ogl_ledger.take_reaction(scope, doc, c, rules.Reaction.COUNTER, why, event, 0)
        extra = [term(rules.SYSTEM, "counter_run", RUN_BONUS)] if why is rules.Trigger.RUNS else []
        data = AttackInput(
            target=foe.name,
            attacker=c.name,
            weapon=str(arm["name"]),
            roll=roll,
            damage=damage,
            effects=effects,
            location=location,
        )
        head = [
            scope.t(
                "manoeuvre.counter.line",
                name=c.name,
                foe=foe.name,
                trigger=scope.t(f"manoeuvre.trigger.{why.value}"),
            )
        ]
        if why in (rules.Trigger.CHANGES_POSITION, rules.Trigger.MOVES_AWAY):
            head.append(scope.t(f"manoeuvre.counter.if_damage.{why.value}", name=foe.name))
        return await ogl.attack(scope, doc, data, free=True, extra=extra, tag="counter", head=head)

    return await run(ctx, caller, work, rng=rng)
