"""``/manoeuvre deux-armes``: fighting with two weapons in `ogl` (seed 004): once a round, the off
hand parries one attack beyond the reaction limit, or makes one extra melee attack (reading: at the
player's word, without a slot). The extra parry is spent by :func:`.ogl_ledger.take_reaction`.
"""

from __future__ import annotations

from dataclasses import replace

from bot.context import AppContext
from bot.rules.combat.basics import Refusal, RefusedError
from bot.rules.ogl import combat as rules
from bot.rules.random_source import RandomSource
from bot.rules.sheets import fold
from bot.services.caller import Caller
from bot.services.fights._core import FightOutcome, FightRefusal, Scope, new_event, run
from bot.services.fights.attacks import AttackInput
from bot.services.fights.kit import RANGED_KINDS, actor, pick_arm
from bot.services.fights.systems import ogl, ogl_ledger
from bot.services.fights.systems.ogl_manoeuvres import free_ask


async def two_weapons(
    ctx: AppContext,
    caller: Caller,
    *,
    use: str,
    who: str | None = None,
    target: str | None = None,
    weapon: str | None = None,
    roll: int | None = None,
    location: str | None = None,
    damage: str | None = None,
    effects: str | None = None,
    rng: RandomSource | None = None,
    fight_id: int | None = None,
    ask: int | None = None,
) -> FightOutcome:
    """The off hand this round: one extra parry beyond the limit, or one extra melee attack now. An
    attack on an ally asks first (nothing spent); ``ask``: that question confirmed (its stored
    request replaces the arguments)."""

    async def work(scope: Scope) -> FightOutcome:
        nonlocal use, target, who, weapon, roll, location, damage, effects
        doc = await ogl_ledger.ogl_fight(scope, in_round=True, fight_id=fight_id)
        if ask is not None:
            stored = free_ask.take(scope, doc, ask, free_ask.OFF_HAND)
            use, target, who, weapon = "attaque", stored.target, stored.attacker, stored.weapon
            roll, location, damage, effects = stored.roll, stored.location, stored.damage, stored.effects
        c = actor(scope, doc, who)
        choice = {
            "parade": "parry",
            "parer": "parry",
            "parry": "parry",
            "attaque": "attack",
            "attack": "attack",
        }.get(fold(use))
        if choice is None:
            raise FightRefusal("manoeuvre.error.off_hand_use")
        ogl_ledger.require_free(scope, doc, c, reacting=choice == "parry")
        melee_arms = [a for a in doc.meta.get(c.id, {}).get("arms") or [] if a["kind"] not in RANGED_KINDS]
        if len(melee_arms) < 2:
            raise FightRefusal("manoeuvre.refusal.needs_two", name=c.name)
        if choice == "attack" and target and ask is None:
            foe = doc.find(target)
            if free_ask.on_ally(c, foe):
                request = AttackInput(
                    target=foe.name,
                    attacker=c.name,
                    weapon=weapon,
                    roll=roll,
                    damage=damage,
                    effects=effects,
                    location=location,
                )
                return free_ask.question(scope, doc, c, foe, request, free_ask.OFF_HAND)
        data = ogl_ledger.round_data(doc)
        ledger = ogl_ledger.reactions(doc, c)
        if (data.get("off_hand") or {}).get(c.id):
            ledger = replace(ledger, off_hand=str(data["off_hand"][c.id]))
        chosen = rules.choose_off_hand(ledger, choice)
        if isinstance(chosen, Refusal):
            raise RefusedError(chosen)
        data.setdefault("off_hand", {})[c.id] = choice
        if choice == "parry":
            result = {"combatant": c.id, "off_hand": choice}
            new_event(scope, doc, "off_hand", c.id, result)
            doc.save()
            return ogl_ledger.reply(
                scope,
                doc,
                scope.t("manoeuvre.two.title", name=c.name),
                [scope.t("manoeuvre.two.parry", name=c.name)],
                "manoeuvre.two",
                result,
            )
        if not target:
            raise FightRefusal("manoeuvre.error.off_hand_target")
        off = pick_arm(doc, c, weapon) if weapon else melee_arms[1]
        if off["kind"] == "shield" and not off.get("dice"):
            raise FightRefusal("combat.ogl.error.no_dice", weapon=str(off["name"]))
        new_event(scope, doc, "off_hand", c.id, {"combatant": c.id, "off_hand": choice})
        attack = AttackInput(
            target=target,
            attacker=c.name,
            weapon=str(off["name"]),
            roll=roll,
            damage=damage,
            effects=effects,
            location=location,
        )
        head = [scope.t("manoeuvre.two.attack", name=c.name, weapon=str(off["name"]))]
        return await ogl.attack(scope, doc, attack, free=True, tag="off_hand", head=head)

    return await run(ctx, caller, work, rng=rng)
