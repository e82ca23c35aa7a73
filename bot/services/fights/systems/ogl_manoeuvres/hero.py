"""``/manoeuvre heroisme``: spending an `ogl` hero point (seed 004, ``PH`` in ``caracs``).

Second chance rerolls the fighter's last roll (an attack or reaction d100 — a dive's included —, or
an Endurance test) — the new roll stands and the exchange is settled again; ``seconde_chance_degats``
rerolls his last damage roll ("un jet de dégâts" is named by the seed): the damage he took, or his
weapon's — the wound is undone (HP, conditions, due tests) and the new roll applied; refused once the
wound's Endurance tests are rolled (reading); graze turns the last major wound into the location at
−(its HP); hero's luck needs the GM.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from bot.context import AppContext
from bot.rules.checks.common import Modifier, obtain_roll
from bot.rules.combat.basics import Refusal, RefusedError
from bot.rules.combat.common import roll_dice
from bot.rules.combat.effects import Condition
from bot.rules.combat.state import Combatant
from bot.rules.ogl import checks as ogl_checks
from bot.rules.ogl import combat as rules
from bot.rules.random_source import RandomSource
from bot.rules.sheets import fold
from bot.services.caller import Caller
from bot.services.fights._core import (
    DEFENCE_TIMEOUT,
    Doc,
    FightOutcome,
    FightRefusal,
    RollNote,
    Scope,
    d100_or_none,
    new_event,
    parse_dice,
    run,
)
from bot.services.fights.destiny import GRAZE, take_graze_offer, withdraw
from bot.services.fights.kit import actor, check_line, mention
from bot.services.fights.systems import ogl_area, ogl_ledger, ogl_wounds

# "Seconde Chance : ... relancer un jet de dé qui affecte le personnage. Cela peut être un jet de test
# de compétence, un jet de dégâts ou n'importe quoi qui a un effet sur lui."
DAMAGE_REROLL: Final = ("seconde_chance_degats", "second_chance_damage")


async def hero_point(
    ctx: AppContext,
    caller: Caller,
    *,
    use: str,
    who: str | None = None,
    roll: int | None = None,
    dice: str | None = None,
    note: str | None = None,
    rng: RandomSource | None = None,
) -> FightOutcome:
    """Spend a hero point: ``seconde_chance``, ``eraflure`` or ``chance_du_heros`` (GM)."""

    async def work(scope: Scope) -> FightOutcome:
        doc = await ogl_ledger.ogl_fight(scope)
        return await _spend(scope, doc, actor(scope, doc, who), use, roll, dice, note)

    return await run(ctx, caller, work, rng=rng)


async def spend_offer(
    ctx: AppContext, caller: Caller, *, fight_id: int, number: int, rng: RandomSource | None = None
) -> FightOutcome:
    """The « Éraflure » button a major wound offered a PC (issue 18, :mod:`bot.services.fights.destiny`):
    his player spends a hero point on it, as ``/manoeuvre heroisme usage:eraflure`` does."""

    async def work(scope: Scope) -> FightOutcome:
        doc = await ogl_ledger.ogl_fight(scope, fight_id=fight_id)
        cid = take_graze_offer(scope, doc, number)
        return await _spend(scope, doc, doc.state.get(cid), rules.HeroUse.GRAZE.value, None, None, None)

    return await run(ctx, caller, work, rng=rng)


async def _spend(
    scope: Scope,
    doc: Doc,
    c: Combatant,
    use: str,
    roll: int | None,
    dice: str | None,
    note: str | None,
) -> FightOutcome:
    """Spend one of ``c``'s hero points on ``use``."""
    word = fold(use).replace(" ", "_").replace("'", "_")
    on_damage = word in DAMAGE_REROLL
    try:
        kind = rules.HeroUse(rules.HeroUse.SECOND_CHANCE.value if on_damage else word)
    except ValueError:
        raise FightRefusal(
            "manoeuvre.error.hero_use",
            accepted=", ".join([*(u.value for u in rules.HeroUse), DAMAGE_REROLL[0]]),
        ) from None
    meta = doc.meta.setdefault(c.id, {})
    points = int(meta.get("hero_points") or 0)
    wound = None
    record = (ogl_ledger.manoeuvre_data(doc).get("wounds") or {}).get(c.id)
    if kind is rules.HeroUse.GRAZE and record is not None:
        wound = _wound_from(record)
    spent = rules.spend_hero_point(points, kind, wound=wound, gm_approved=scope.gm)
    if isinstance(spent, Refusal):
        raise RefusedError(spent)
    lines = [scope.t(f"manoeuvre.hero.{kind.value}", name=c.name)]
    result: dict[str, Any] = {"combatant": c.id, "spend": spent.to_dict()}
    if on_damage:
        lines.extend(_reroll_damage(scope, doc, c, dice, result))
    elif kind is rules.HeroUse.SECOND_CHANCE:
        lines.extend(await _second_chance(scope, doc, c, roll, dice, result))
    elif kind is rules.HeroUse.GRAZE:
        assert record is not None and wound is not None
        lines.extend(_graze(scope, doc, c, record, wound, spent, roll, result))
        withdraw(doc, c.id, GRAZE)  # the major wound's button, if offered, is spent
    elif note:
        lines.append(f"« {note[:300]} »")
    meta["hero_points"] = spent.points_after
    lines.append(scope.t("manoeuvre.hero.left", name=c.name, n=spent.points_after))
    new_event(scope, doc, "hero_point", c.id, result)
    doc.save()
    return ogl_ledger.reply(
        scope, doc, scope.t("manoeuvre.hero.title", name=c.name), lines, "manoeuvre.hero", result
    )


def _wound_from(record: Mapping[str, Any]) -> rules.LocationWound:
    return rules.LocationWound(
        str(record["location"]),
        str(record["kind"]),
        (),
        int(record["damage"]),
        int(record["hp_max"]),
        int(record["hp_before"]),
        int(record["hp_after"]),
        rules.Level(record["level"]),
        None,
        tuple(Condition.from_dict(x) for x in record["conditions"]),
        tuple(record["endurance_tests"]),
        record.get("death_in_actions"),
    )


def _graze(
    scope: Scope,
    doc: Doc,
    c: Combatant,
    record: Mapping[str, Any],
    wound: rules.LocationWound,
    spent: rules.HeroSpend,
    roll: int | None,
    result: dict[str, Any],
) -> list[str]:
    """The major wound's damage cut so the location ends at −HP: a serious wound, its effects anew."""
    from bot.rules.combat.common import pool_loss, set_pool_loss

    damage = int(spent.detail["damage_after"])
    serious = rules.damage_location(
        wound.location,
        wound.kind,
        wound.hp_max,
        wound.hp_before,
        damage,
        con=c.stat("CON"),
        pou=c.stat("POW"),
        threshold=ogl_wounds.threshold(doc),
        rng=scope.rng,
        lost_actions_roll=roll,
    )
    serious = replace(serious, conditions=tuple(ogl_wounds.named_part(x) for x in serious.conditions))
    pool = f"HP.{wound.location}"
    loss = pool_loss(c, rules.SYSTEM, pool) - (wound.damage - damage)
    old = [x.to_dict() for x in wound.conditions]
    kept = tuple(x for x in c.conditions if x.to_dict() not in old)
    c = set_pool_loss(replace(c, conditions=kept + serious.conditions), rules.SYSTEM, pool, loss)
    doc.state = doc.state.put(c)
    gone = set(record.get("prompts") or [])
    doc.data["prompts"] = [p for p in doc.prompts if p.get("id") not in gone]
    prompts = []
    lines = [
        scope.t(
            "manoeuvre.hero.graze_line",
            location=scope.t(f"characters.loc.{wound.location}"),
            before=wound.damage,
            after=damage,
            hp=serious.hp_after,
        ),
        scope.t(f"combat.ogl.level.{serious.level.value}", name=c.name),
    ]
    lines.extend("• " + scope.words.condition(x) for x in serious.conditions)
    for decides in serious.endurance_tests:
        prompts.append(ogl_wounds.add_endurance_prompt(doc, c.id, decides))
        lines.append(scope.t(f"combat.ogl.test_due.{decides}", name=c.name))
    ogl_ledger.manoeuvre_data(doc)["wounds"].pop(c.id, None)
    ogl_wounds.forget_damage(doc, c.id)
    result["graze"] = serious.to_dict()
    return lines


async def _second_chance(
    scope: Scope, doc: Doc, c: Combatant, roll: int | None, dice: str | None, result: dict[str, Any]
) -> list[str]:
    last = (ogl_ledger.manoeuvre_data(doc).get("last") or {}).pop(c.id, None)
    if last is None:
        raise FightRefusal("manoeuvre.error.nothing_to_reroll", name=c.name)
    new = d100_or_none(roll)
    if last["kind"] == "dive":
        return _reroll_dive(scope, doc, c, last, new, result)
    if last["kind"] == "endurance":
        check = rules.endurance_test(int(last["score"]), rng=scope.rng, roll=new)
        scope.rolls.append(RollNote("combat.test", "1d100", check.roll, {"check": check.to_dict()}))
        lines = [
            scope.t(f"combat.ogl.test.{last['decides']}", name=c.name)
            + " : "
            + check_line(scope.words, check, " %")
        ]
        result["reroll"] = {"kind": "endurance", "check": check.to_dict(), "before": last["success"]}
        if check.success and not last["success"]:
            doc.state = doc.state.put(Combatant.from_dict(last["snapshot"]))
            lines.append(scope.t("manoeuvre.hero.undone", name=c.name))
        return lines
    return await _reroll_exchange(scope, doc, c, last, new, dice, result)


async def _reroll_exchange(
    scope: Scope,
    doc: Doc,
    c: Combatant,
    last: Mapping[str, Any],
    new: int | None,
    dice: str | None,
    result: dict[str, Any],
) -> list[str]:
    pending = dict(last["pending"])
    mine = "attack" if last["kind"] == "attack" else "defence"
    roll = new if new is not None else obtain_roll(ogl_checks.DIE, scope.rng, None)
    attack_roll = roll if mine == "attack" else int(pending["attack_roll"])
    defence_roll = roll if mine == "defence" else last["defence_roll"]
    reaction = rules.Reaction(last["reaction"]) if last["reaction"] else None
    attacker = doc.state.get(str(pending["attacker"]))
    defender = doc.state.get(str(pending["defender"]))
    melee = rules.resolve_attack(
        int(pending["score"]),
        last["defence_score"],
        reaction=reaction,
        precise=rules.Precise(pending["precise"]) if pending.get("precise") else None,
        ranged=bool(pending.get("ranged")),
        attack_modifiers=[Modifier(str(m["label"]), int(m["value"])) for m in pending.get("mods", [])],
        defence_modifiers=[Modifier(str(m["label"]), int(m["value"])) for m in last["defence_mods"]],
        rng=scope.rng,
        attack_roll=attack_roll,
        defence_roll=defence_roll,
    )
    if isinstance(melee, Refusal):
        raise RefusedError(melee)
    scope.rolls.append(RollNote("combat.attack", "1d100", roll, {"second_chance": mine}))
    w = scope.words
    check = melee.attack if mine == "attack" else melee.defence
    assert check is not None
    lines = [w.t(f"manoeuvre.hero.reroll.{mine}") + " : " + check_line(w, check, " %")]
    payload: dict[str, Any] = {"fight_id": doc.row.id, "seq": pending["seq"], "exchange": melee.to_dict()}
    before = rules.Outcome(last["outcome"])
    result["reroll"] = {
        "kind": mine,
        "before": before.value,
        "outcome": melee.outcome.value,
        "exchange": melee.to_dict(),
    }
    lines.append(
        w.t(f"combat.ogl.outcome.{melee.outcome.value}", attacker=attacker.name, defender=defender.name)
    )
    hit = melee.outcome is rules.Outcome.HIT
    if before is rules.Outcome.HIT and not hit:
        doc.state = doc.state.put(Combatant.from_dict(last["snapshot"]))
        gone = set(last.get("prompts") or [])
        doc.data["prompts"] = [p for p in doc.prompts if p.get("id") not in gone]
        (ogl_ledger.manoeuvre_data(doc).get("wounds") or {}).pop(defender.id, None)
        ogl_wounds.forget_damage(doc, defender.id)
        lines.append(w.t("manoeuvre.hero.undone", name=defender.name))
    elif hit and before is not rules.Outcome.HIT:
        if reaction is None and not defender.has("unconscious"):
            # the attack missed outright: the defender had no reaction to choose; now he has
            seq = new_event(scope, doc, "attack", attacker.id, {"target": defender.id, "second_chance": True})
            fresh = {
                **pending,
                "seq": seq,
                "attack_roll": attack_roll,
                "hand": {
                    **(pending.get("hand") or {}),
                    **({"damage": parse_dice(dice, option="damage", sides=100, limit=10)} if dice else {}),
                },
                "expires_at": (scope.ctx.now() + DEFENCE_TIMEOUT).isoformat(),
            }
            doc.pending[str(seq)] = fresh
            result["seq"] = seq
            result["pending"] = True
            lines.append(w.t("combat.defence.prompt", name=defender.name, owner=mention(doc, defender.id)))
            return lines
        snapshot = defender.to_dict()
        before_prompts = {int(p["id"]) for p in doc.prompts}
        if dice:
            pending["hand"] = {
                **(pending.get("hand") or {}),
                "damage": parse_dice(dice, option="damage", sides=100, limit=10),
            }
        lines.extend(
            ogl_wounds.wound(
                scope, doc, pending, payload, critical=melee.critical, ignore_armour=melee.ignore_armour
            )
        )
        added = [int(p["id"]) for p in doc.prompts if int(p["id"]) not in before_prompts]
        ogl_ledger.remember_exchange(
            doc,
            pending,
            melee,
            defence_score=last["defence_score"],
            defence_mods=[Modifier(str(m["label"]), int(m["value"])) for m in last["defence_mods"]],
            snapshot=snapshot,
            prompts=added,
        )
        ogl_ledger.manoeuvre_data(doc)["last"].pop(c.id, None)
        new_event(scope, doc, "hit", defender.id, payload)
        result["wound"] = payload.get("wound")
    return lines


def _settled(doc: Doc, record: Mapping[str, Any]) -> bool:
    """The endurance tests a wound called for were rolled: too late to reroll its damage."""
    due = {int(p["id"]) for p in doc.prompts}
    return any(int(x) not in due for step in record.get("undo") or () for x in step["prompts"])


def _reroll_dive(
    scope: Scope, doc: Doc, c: Combatant, last: Mapping[str, Any], new: int | None, result: dict[str, Any]
) -> list[str]:
    """A second chance on the dive's Esquive d100: the damage is taken again with the new result
    (the diver stays prone and unhorsed, the reaction stays spent)."""
    record = (ogl_ledger.manoeuvre_data(doc).get("damage") or {}).get(c.id)
    if record is None or record.get("kind") != "area" or _settled(doc, record):
        raise FightRefusal("manoeuvre.error.damage_settled", name=c.name)
    before = ogl_area.dive_check(record["dive"])
    check = ogl_area.dive_check(record["dive"], obtain_roll(ogl_checks.DIE, scope.rng, new))
    assert before is not None and check is not None
    scope.rolls.append(RollNote("combat.defence", "1d100", check.roll, {"second_chance": "dive"}))
    ogl_wounds.undo_damage(doc, c.id, record["undo"])
    ogl_wounds.forget_damage(doc, c.id)
    w = scope.words
    lines = [w.t("combat.ogl.reaction.plonger", name=c.name) + " : " + check_line(w, check, " %")]
    payload: dict[str, Any] = {"fight_id": doc.row.id, "seq": record["pending"]["seq"], "second_chance": True}
    lines.extend(
        ogl_area.area_wound(scope, doc, record["pending"], int(record["rolled"]), check, [], payload)
    )
    result["reroll"] = {
        "kind": "dive",
        "before": rules.dive_damage(int(record["rolled"]), before).to_dict(),
        "check": check.to_dict(),
        "area_damage": payload["area_damage"],
        "wounds": payload.get("wounds", []),
    }
    return lines


def _reroll_damage(
    scope: Scope, doc: Doc, c: Combatant, dice: str | None, result: dict[str, Any]
) -> list[str]:
    """A second chance on the last damage roll of the fighter — the damage he took or his weapon's
    damage: the wound is undone and the new roll applied (until its Endurance tests are rolled)."""
    record = (ogl_ledger.manoeuvre_data(doc).get("damage") or {}).pop(c.id, None)
    if record is None:
        raise FightRefusal("manoeuvre.error.no_damage_to_reroll", name=c.name)
    if _settled(doc, record):
        raise FightRefusal("manoeuvre.error.damage_settled", name=c.name)
    victim = str(record["victim"])
    ogl_wounds.undo_damage(doc, victim, record["undo"])
    ogl_wounds.forget_damage(doc, victim)
    hand = parse_dice(dice, option="damage", sides=100, limit=30)
    pending = dict(record["pending"])
    w = scope.words
    payload: dict[str, Any] = {"fight_id": doc.row.id, "seq": pending["seq"], "second_chance": True}
    if record["kind"] == "area":
        area = pending["area"]
        rolled = roll_dice(str(area["damage"]["expression"]), scope.rng, hand)
        scope.rolls.append(
            RollNote("combat.damage", rolled.expression, rolled.total, {"second_chance": True})
        )
        lines = [
            w.t("manoeuvre.hero.reroll.damage", before=int(record["rolled"]), after=rolled.total),
        ]
        lines.extend(
            ogl_area.area_wound(
                scope, doc, pending, rolled.total, ogl_area.dive_check(record["dive"]), [], payload
            )
        )
        result["reroll"] = {
            "kind": "damage",
            "before": int(record["rolled"]),
            "damage": rolled.to_dict(),
            "area_damage": payload["area_damage"],
            "wounds": payload.get("wounds", []),
        }
        return lines
    pending["hand"] = {**(pending.get("hand") or {}), "damage": hand}
    before = int((record.get("damage") or {}).get("total", 0))
    lines = ogl_wounds.wound(
        scope,
        doc,
        pending,
        payload,
        critical=bool(record.get("critical")),
        ignore_armour=bool(record.get("ignore_armour")),
    )
    lines.insert(0, w.t("manoeuvre.hero.reroll.damage", before=before, after=payload["damage"]["total"]))
    new_event(scope, doc, "hit", victim, payload)
    result["reroll"] = {
        "kind": "damage",
        "before": before,
        "damage": payload["damage"],
        "wounds": [payload["wound"]],
    }
    return lines
