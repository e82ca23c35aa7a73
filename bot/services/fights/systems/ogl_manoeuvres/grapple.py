"""``/manoeuvre lutte``: the `ogl` grapple (seed 004; the grapple table is cut from the extract):
grab = Bagarre opposed test, the higher successful roll wins; immobilise = Bagarre −(DEX + FOR of the
foe); escape = Bagarre −(FOR + TAI) when immobilised, else an opposed Bagarre test; throw (reading: a
Bagarre test) = 2 m and 1d6 at the location the GM names, armour subtracted, the grapple ends.
"""

from __future__ import annotations

from typing import Any, Final

from bot.context import AppContext
from bot.rules import opposed
from bot.rules.checks.common import Modifier, System
from bot.rules.combat.state import Combatant
from bot.rules.ogl import checks as ogl_checks
from bot.rules.ogl import combat as rules
from bot.rules.random_source import RandomSource
from bot.rules.sheets import fold
from bot.services.caller import Caller
from bot.services.fights._core import (
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
from bot.services.fights.kit import actor, check_line, pass_turn, spend
from bot.services.fights.systems import ogl_ledger, ogl_wounds

GRAPPLE_ACTIONS: Final = ("saisir", "immobiliser", "se_degager", "projeter")


def _brawl(doc: Doc, c: Combatant, score: int | None) -> int:
    if score is not None:
        return score
    skills = doc.meta.get(c.id, {}).get("skills") or {}
    for key in ("bagarre", "arts_martiaux", "arme_naturelle"):
        if key in skills:
            return int(skills[key])
    raise FightRefusal("combat.sys.error.no_defence_score", name=c.name, what="Bagarre")


async def grapple(
    ctx: AppContext,
    caller: Caller,
    *,
    action: str,
    who: str | None = None,
    target: str | None = None,
    roll: int | None = None,
    target_roll: int | None = None,
    location: str | None = None,
    damage: int | None = None,
    effects: str | None = None,
    rng: RandomSource | None = None,
) -> FightOutcome:
    """Grab, immobilise, escape or throw; each is a combat action on one's own slot."""

    async def work(scope: Scope) -> FightOutcome:
        doc = await ogl_ledger.ogl_fight(scope)
        kind = fold(action).replace(" ", "_").replace("-", "_")
        if kind not in GRAPPLE_ACTIONS:
            raise FightRefusal("manoeuvre.error.grapple_action", accepted=", ".join(GRAPPLE_ACTIONS))
        c = actor(scope, doc, who)
        left = ogl_ledger.lost_actions(c)
        if left:
            raise FightRefusal("manoeuvre.refusal.lost_actions", name=c.name, remaining=left)
        grapples: dict[str, Any] = ogl_ledger.manoeuvre_data(doc).setdefault("grapples", {})
        w = scope.words
        lines: list[str] = []
        result: dict[str, Any] = {"combatant": c.id, "action": kind}
        if kind == "se_degager":
            holder = next((h for h, g in grapples.items() if g["target"] == c.id), None)
            if holder is None:
                raise FightRefusal("manoeuvre.refusal.not_held", name=c.name)
            foe = doc.state.get(holder)
        else:
            if not target:
                raise FightRefusal("manoeuvre.error.grapple_target")
            foe = doc.find(target)
            if foe.id == c.id:
                raise FightRefusal("combat.error.self_attack")
            if kind == "saisir":
                if ogl_ledger.immobilised(doc, c.id):
                    raise FightRefusal("manoeuvre.refusal.immobilised", name=c.name)
                if c.id in grapples:
                    raise FightRefusal("manoeuvre.refusal.already_holding", name=c.name)
            elif grapples.get(c.id, {}).get("target") != foe.id:
                raise FightRefusal("manoeuvre.refusal.not_holding", name=c.name, foe=foe.name)
        spend(scope, doc, c, "attaquer")
        own = _brawl(doc, c, None)
        opposed_test = kind == "saisir" or (kind == "se_degager" and not ogl_ledger.immobilised(doc, c.id))
        mods: list[Modifier] = []
        if kind == "immobiliser":
            mods.append(rules.immobilise_modifier(foe.stat("DEX"), foe.stat("STR")))
        elif kind == "se_degager" and not opposed_test:
            mods.append(rules.escape_modifier(foe.stat("STR"), foe.stat("SIZ")))
        check = ogl_checks.check(
            own, mods, rng=scope.rng, roll=d100_or_none(roll), base_label="manoeuvre.brawl"
        )
        scope.rolls.append(RollNote("combat.grapple", "1d100", check.roll, {"check": check.to_dict()}))
        lines.append(
            w.t(f"manoeuvre.grapple.{kind}", name=c.name, foe=foe.name) + " : " + check_line(w, check, " %")
        )
        result["check"] = check.to_dict()
        won = check.success
        if opposed_test:
            other = ogl_checks.check(
                _brawl(doc, foe, None),
                rng=scope.rng,
                roll=d100_or_none(target_roll),
                base_label="manoeuvre.brawl",
            )
            scope.rolls.append(RollNote("combat.grapple", "1d100", other.roll, {"check": other.to_dict()}))
            lines.append(w.t("manoeuvre.grapple.resists", name=foe.name) + " : " + check_line(w, other, " %"))
            verdict, _ = opposed.compare(check, other, opposed.rules_for(System.OGL))
            won = verdict is opposed.Verdict.A
            result["opposed"] = {"check": other.to_dict(), "verdict": verdict.value}
        result["success"] = won
        if kind == "saisir" and won:
            grapples[c.id] = {"target": foe.id, "immobilised": False}
        elif kind == "immobiliser" and won:
            grapples[c.id]["immobilised"] = True
        elif kind == "se_degager" and won:
            grapples.pop(foe.id, None)
        elif kind == "projeter" and won:
            grapples.pop(c.id, None)
            metres, die = rules.grapple_throw(rng=scope.rng, die=damage)
            scope.rolls.append(RollNote("combat.damage", "1d6", die, {"throw": True}))
            # « 1d6 dégâts localisés aléatoirement »: the location named, else the d20 on the table
            loc, rolled = await ogl_wounds.hit_location(scope, ogl_wounds.location_request(location))
            result["throw"] = {"metres": metres, "die": die, "location": loc, "location_roll": rolled}
            lines.append(w.t("manoeuvre.grapple.thrown", name=foe.name, metres=metres, damage=die))
            if rolled is not None:
                lines.append(ogl_wounds.location_line(scope, rolled))
            hand = parse_dice(effects, option="effects", sides=20, limit=10)
            wound_lines, wound = ogl_wounds.apply_location_damage(
                scope, doc, foe, loc, die, hand[0] if hand else None
            )
            lines.extend(wound_lines)
            result["wound"] = wound.to_dict()
        lines.append(w.t("manoeuvre.grapple.success" if won else "manoeuvre.grapple.failure"))
        new_event(scope, doc, "grapple", c.id, result)
        lines.extend(pass_turn(scope, doc))
        doc.save()
        return ogl_ledger.reply(
            scope,
            doc,
            w.t("manoeuvre.grapple.title", name=c.name, foe=foe.name),
            lines,
            "manoeuvre.grapple",
            result,
        )

    return await run(ctx, caller, work, rng=rng)
