"""``/manoeuvre retirer``: pulling out a weapon that impaled an `ogl` fighter (seed 004, lines 12-14).

* The wielder: « Retirer une arme ayant empalé exige un test de Force Brute en Athlétisme. Si le test
  réussit, le personnage inflige automatiquement, une fois de plus, les dégâts de l'arme (non
  maximisés), au même emplacement que le coup original. » — the Athlétisme skill (reading: else
  STR × 5, as the Endurance's CON × 5); on a failure the weapon stays.
* The impaled fighter: « La créature empalée peut aussi dépenser une Action de Combat pour retirer
  elle même l'arme empalée (le test de Bagarre n'est plus nécessaire) » — no test, on his own slot;
  reading: the weapon's damage again, like the wielder's pull.
* Anyone else: « Un personnage tiers peut retirer l'arme empalée d'une manière plus propre et
  terriblement moins douloureuse en employant la compétence Premiers Soins » — a Premiers Soins test
  (reading: no damage on a success; on a failure the weapon stays).

Readings: « les dégâts de l'arme » are its dice (``degats`` typed by hand), without the damage
modifier; the armour does not count (the weapon is already in the wound).
"""

from __future__ import annotations

from typing import Any

from bot.context import AppContext
from bot.rules.combat.common import roll_dice
from bot.rules.ogl import checks as ogl_checks
from bot.services.caller import Caller
from bot.services.fights._core import (
    FightOutcome,
    FightRefusal,
    RollNote,
    Scope,
    d100_or_none,
    new_event,
    parse_dice,
    run,
)
from bot.services.fights.kit import actor, check_line, pass_turn, spend
from bot.services.fights.systems import ogl_ledger, ogl_wounds


async def pull_out(
    ctx: AppContext,
    caller: Caller,
    *,
    victim: str,
    who: str | None = None,
    roll: int | None = None,
    damage: str | None = None,
) -> FightOutcome:
    async def work(scope: Scope) -> FightOutcome:
        doc = await ogl_ledger.ogl_fight(scope, in_round=True)
        hurt = doc.find(victim)
        store = ogl_ledger.manoeuvre_data(doc).setdefault("impaled", {})
        record = store.get(hurt.id)
        if record is None:
            raise FightRefusal("manoeuvre.impale.none", name=hurt.name)
        c = actor(scope, doc, who)
        ogl_ledger.require_free(scope, doc, c)
        w = scope.words
        weapon = record["weapon"]
        lines: list[str] = []
        result: dict[str, Any] = {"victim": hurt.id, "by": c.id, "weapon": weapon["name"]}
        skills = doc.meta.get(c.id, {}).get("skills") or {}
        if c.id == hurt.id:
            spend(scope, doc, c, "action_speciale")  # « dépenser une Action de Combat »
            role, hurts = "self", True
            lines.append(w.t("manoeuvre.impale.self", name=c.name, weapon=weapon["name"]))
        else:
            role = "wielder" if c.id == record["wielder"] else "first_aid"
            if role == "wielder":
                score = int(skills.get("athletisme", c.stat("STR") * 5))
                label = "manoeuvre.impale.athletics"
            else:
                score = int(skills.get("premiers_soins", skills.get("premiers soins", 0)))
                if not score:
                    raise FightRefusal("manoeuvre.impale.needs_first_aid", name=c.name)
                label = "manoeuvre.impale.first_aid"
            check = ogl_checks.check(score, rng=scope.rng, roll=d100_or_none(roll), base_label=label)
            scope.rolls.append(RollNote("combat.test", "1d100", check.roll, {"check": check.to_dict()}))
            result["check"] = check.to_dict()
            key = "manoeuvre.impale.wielder" if role == "wielder" else "manoeuvre.impale.by_first_aid"
            lines.append(w.t(key, name=c.name, weapon=weapon["name"], victim=hurt.name))
            lines.append(check_line(w, check, " %"))
            if not check.success:
                lines.append(w.t("manoeuvre.impale.stays", weapon=weapon["name"], name=hurt.name))
                result["removed"] = False
                new_event(scope, doc, "manoeuvre", c.id, result)
                doc.save()
                title = w.t("manoeuvre.impale.title", name=hurt.name)
                return ogl_ledger.reply(scope, doc, title, lines, "manoeuvre.impale", result)
            hurts = role == "wielder"
        store.pop(hurt.id, None)
        result["removed"] = True
        lines.append(w.t("manoeuvre.impale.removed", weapon=weapon["name"], name=hurt.name))
        if hurts:
            dice = parse_dice(damage, option="damage", sides=100, limit=10)
            n = ogl_wounds.dice_count(str(weapon["dice"]))  # then the 1d4 of actions a serious wound loses
            rolled = roll_dice(str(weapon["dice"]), scope.rng, dice[:n])
            result["damage"] = rolled.to_dict()
            lines.append(
                w.t(
                    "manoeuvre.impale.damage",
                    total=rolled.total,
                    location=w.t(f"characters.loc.{record['location']}"),
                )
            )
            more, wound, _ = ogl_wounds.damage_with_undo(
                scope,
                doc,
                hurt,
                str(record["location"]),
                rolled.total,
                dice[n] if len(dice) > n else None,
                ignore_armour=True,
            )
            result["wound"] = wound.to_dict()
            lines.extend(more)
        if c.id == hurt.id:
            lines.extend(pass_turn(scope, doc))
        new_event(scope, doc, "manoeuvre", c.id, result)
        doc.save()
        return ogl_ledger.reply(
            scope, doc, w.t("manoeuvre.impale.title", name=hurt.name), lines, "manoeuvre.impale", result
        )

    return await run(ctx, caller, work)
