"""`ogl` area effects and the dive (seed 004, "Plonger"): ``/manoeuvre zone`` and each caught
fighter's answer.

``/manoeuvre zone``: the GM (or the owner of the fighter producing it) places an area effect: its
name, its damage (dice, rolled once for the whole effect — reading: the seed does not say whether
each fighter rolls his own), the fighters caught with the location hit. The seed prints no
hit-location table for `ogl` (as for attacks, the GM names it); ``tout`` applies the damage to
every location, each with its own armour (reading: an effect engulfing the body — flames, a
blast). Each caught fighter then dives (``/combat defense plonger``, the Esquive d100) or takes it
(``encaisser``); the dive is a reaction ("Plonger", trigger: the area includes him). Knockback is
not applied: the seed ties it to ranged and melee attacks. Producing the effect spends no combat
action here (the spell, the thrown flask … is its own action).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from bot.context import AppContext
from bot.rules.checks.common import CheckResult, Modifier
from bot.rules.combat.basics import Refusal, RefusedError
from bot.rules.combat.common import roll_dice
from bot.rules.combat.effects import Condition
from bot.rules.combat.state import Combatant
from bot.rules.grammar import is_digits
from bot.rules.ogl import checks as ogl_checks
from bot.rules.ogl import combat as rules
from bot.rules.random_source import RandomSource
from bot.rules.sheets import fold
from bot.services.caller import Caller
from bot.services.fights._core import (
    DefenceRolls,
    Doc,
    FightOutcome,
    FightRefusal,
    RollNote,
    Scope,
    custom_id,
    d100_or_none,
    may_control,
    new_event,
    outcome,
    parse_dice,
    pending_defence,
    require_gm,
    run,
)
from bot.services.fights.kit import check_line, mention, pass_turn, spend
from bot.services.fights.systems import ogl_ledger, ogl_wounds
from bot.ui.reply import Button, ButtonStyle, Colour, Reply

AREA_CHOICES: Final = ("plonger", "encaisser")
AREA_MAX: Final = 10
NOWHERE: Final = frozenset({"sans_issue", "nulle_part", "nowhere", "cornered", "coince", "accule"})
EVERYWHERE: Final = frozenset({"tout", "all", "partout", "everywhere"})


AREA_DICE_MAX: Final = 20  # dice in all, of at most d20: a dragon's breath, not 20d100 three times
AREA_SIDES_MAX: Final = 20
AREA_CONSTANT_MAX: Final = 50


def _area_dice(text: str) -> str:
    expression = text.strip().lower().replace(" ", "").replace("D", "d")
    parts = expression.replace("-", "+").split("+")
    ok = bool(expression) and len(parts) <= 4
    dice = constant = 0
    for part in parts if ok else ():
        count, sep, sides = part.partition("d")
        if sep:
            ok = ok and (count == "" or (is_digits(count, 3) and 1 <= int(count) <= AREA_DICE_MAX))
            ok = ok and is_digits(sides, 3) and 2 <= int(sides) <= AREA_SIDES_MAX
            dice += int(count) if ok and count else 1
        else:
            ok = ok and is_digits(part, 3)
            constant += int(part) if ok else 0
    if not ok or dice > AREA_DICE_MAX or constant > AREA_CONSTANT_MAX:
        raise FightRefusal(
            "manoeuvre.error.area_dice",
            text=text[:30],
            dice=AREA_DICE_MAX,
            sides=AREA_SIDES_MAX,
            constant=AREA_CONSTANT_MAX,
        )
    return expression


def _area_targets(doc: Doc, text: str, default: str | None) -> list[tuple[Combatant, list[str], bool]]:
    """``"Orc: tete; Chevalier: tout sans_issue"`` → (fighter, locations, nowhere to dive)."""
    out: list[tuple[Combatant, list[str], bool]] = []
    for part in text.replace(",", ";").split(";"):
        if not part.strip():
            continue
        name, _, rest = part.partition(":")
        c = doc.find(name.strip())
        if c.has("dead"):
            raise FightRefusal("combat.error.target_dead", name=c.name)
        if any(c.id == x.id for x, _, _ in out):
            raise FightRefusal("manoeuvre.error.area_twice", name=c.name)
        words = [fold(x).replace("-", "_") for x in rest.split()]
        nowhere = any(x in NOWHERE for x in words)
        places = [x for x in words if x not in NOWHERE] or ([fold(default)] if default else [])
        if len(places) != 1:
            raise FightRefusal(
                "manoeuvre.error.area_location",
                name=c.name,
                accepted="tout, " + ", ".join(ogl_wounds.LOCATIONS),
            )
        locations = (
            list(ogl_wounds.LOCATIONS) if places[0] in EVERYWHERE else [ogl_wounds.location(places[0])]
        )
        out.append((c, locations, nowhere))
    if not out:
        raise FightRefusal("manoeuvre.error.area_targets")
    if len(out) > AREA_MAX:
        raise FightRefusal("manoeuvre.error.area_too_many", max=AREA_MAX)
    return out


async def area_effect(
    ctx: AppContext,
    caller: Caller,
    *,
    name: str,
    damage: str,
    targets: str,
    location: str | None = None,
    source: str | None = None,
    dice: str | None = None,
    rng: RandomSource | None = None,
) -> FightOutcome:
    """An area effect catches fighters: one damage roll, then each dives or takes it."""

    async def work(scope: Scope) -> FightOutcome:
        doc = await ogl_ledger.ogl_fight(scope, in_round=True)
        src = doc.find(source) if source else None
        if src is not None:
            if not may_control(scope, doc, src.id):
                raise FightRefusal("combat.error.not_yours", name=src.name)
        else:
            require_gm(scope)
        expression = _area_dice(damage)
        caught = _area_targets(doc, targets, location)
        # a player's fighter produces it as his action, on his own slot (the GM narrates any time)
        acting = src is not None and not scope.gm
        if acting and src is not None:
            spend(scope, doc, src, "action_speciale")
        rolled = roll_dice(expression, scope.rng, parse_dice(dice, option="dice", sides=100, limit=30))
        label = name.strip().strip('"«» ')[:60] or "?"
        w = scope.words
        area = {
            "name": label,
            "source": src.id if src else None,
            "damage": rolled.to_dict(),
            "rank": int(doc.state.current_slot.value) if doc.state.current_slot else 0,
        }
        seq = new_event(
            scope,
            doc,
            "area",
            src.id if src else None,
            {**area, "caught": [{"id": c.id, "locations": locs, "nowhere": n} for c, locs, n in caught]},
        )
        area["seq"] = seq
        scope.rolls.append(RollNote("combat.damage", expression, rolled.total, {"area": seq}))
        lines = [
            w.t("manoeuvre.area.line", name=label, source=src.name if src else w.t("manoeuvre.area.gm")),
            w.t("manoeuvre.area.damage", expression=expression, dice=" ".join(map(str, rolled.dice)) or "—")
            + f" = **{rolled.total}**",
        ]
        result: dict[str, Any] = {"area": area, "caught": []}
        rows: list[tuple[Button, ...]] = []
        for c, locs, nowhere in caught:
            own = new_event(scope, doc, "area_caught", c.id, {"area": seq})
            pending = pending_defence(
                scope,
                doc,
                own,
                src.id if src else "",
                c.id,
                area=area,
                label=label,
                locations=locs,
                nowhere=nowhere,
            )
            where = w.t("manoeuvre.area.everywhere") if len(locs) > 1 else w.t(f"characters.loc.{locs[0]}")
            entry: dict[str, Any] = {"id": c.id, "seq": own, "locations": locs, "pending": False}
            if c.has("unconscious", "dead"):  # Hors de Combat: no dive
                payload: dict[str, Any] = {"fight_id": doc.row.id, "seq": own, "choice": "encaisser"}
                lines.append(w.t("manoeuvre.area.caught_out", name=c.name, where=where))
                lines.extend(resolve_area(scope, doc, pending, "encaisser", DefenceRolls(), payload))
                entry["result"] = payload
            else:
                doc.pending[str(own)] = pending
                entry["pending"] = True
                lines.append(w.t("manoeuvre.area.caught", name=c.name, where=where, owner=mention(doc, c.id)))
                if len(rows) < 5:
                    rows.append(
                        tuple(
                            Button(
                                f"{c.name[:40]} — {w.t(f'combat.defence.button.{choice}')}",
                                custom_id(doc.row.id, "def", own, choice),
                                ButtonStyle.SECONDARY if choice == "encaisser" else ButtonStyle.PRIMARY,
                            )
                            for choice in AREA_CHOICES
                        )
                    )
            result["caught"].append(entry)
        if acting:
            lines.extend(pass_turn(scope, doc))  # held until the caught ones have answered
        doc.save()
        reply = Reply(
            title=f"💥 {label}",
            description="\n".join(lines)[:4000],
            colour=Colour.NEUTRAL,
            buttons=tuple(rows),
            kind="manoeuvre.area",
            result={"fight_id": doc.row.id, **result},
        )
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work, rng=rng)


def resolve_area(
    scope: Scope,
    doc: Doc,
    pending: Mapping[str, Any],
    choice: str,
    rolls: DefenceRolls,
    payload: dict[str, Any],
) -> list[str]:
    """A caught fighter's answer (``/combat defense`` or a button): dive or take it."""
    w = scope.words
    defender = doc.state.get(str(pending["defender"]))
    if choice not in AREA_CHOICES:
        reaction = {"parer": rules.Reaction.PARRY, "esquiver": rules.Reaction.DODGE}.get(choice)
        if reaction is None:
            raise FightRefusal("combat.error.bad_choice")
        raise RefusedError(
            Refusal(
                "combat.ogl.refusal.wrong_trigger",
                (("reaction", reaction.value), ("trigger", rules.Trigger.AREA_EFFECT.value)),
            )
        )
    area = pending["area"]
    lines: list[str] = []
    check = None
    if choice == "plonger":
        ogl_ledger.take_reaction(
            scope,
            doc,
            defender,
            rules.Reaction.DIVE,
            rules.Trigger.AREA_EFFECT,
            f"area:{area['seq']}",
            int(area.get("rank") or 0),
            nowhere_to_dive=bool(pending.get("nowhere")),
        )
        score = ogl_wounds.defence_score(doc, defender, rules.Reaction.DODGE)
        mods = rules.reaction_modifiers(
            rules.Reaction.DIVE, rules.Situation(mounted=ogl_ledger.mounted(doc, defender.id))
        )
        check = ogl_checks.check(
            score, mods, rng=scope.rng, roll=d100_or_none(rolls.roll), base_label="combat.ogl.plonger"
        )
        scope.rolls.append(RollNote("combat.defence", "1d100", check.roll, {"check": check.to_dict()}))
        lines.append(
            w.t("combat.ogl.reaction.plonger", name=defender.name) + " : " + check_line(w, check, " %")
        )
        payload["dive"] = check.to_dict()
        # "Tout personnage qui plonge se retrouve à terre, que le test d'Esquive soit réussi ou non"
        if not defender.has("prone"):
            doc.state = doc.state.put(
                replace(
                    defender,
                    conditions=(*defender.conditions, Condition("prone", "ogl.dive", until="stands_up")),
                )
            )
        lines.append(w.t("manoeuvre.area.prone", name=defender.name))
        lines.extend(ogl_ledger.after_reaction(scope, doc, defender, rules.Reaction.DIVE))
    else:
        lines.append(w.t("combat.defence.takes", name=defender.name))
    rolled = int(area["damage"]["total"])
    lost = parse_dice(rolls.tests, option="tests", sides=4, limit=7)
    lines.extend(area_wound(scope, doc, pending, rolled, check, lost, payload))
    if check is not None:  # a second chance may reroll the dive's d100
        ogl_ledger.manoeuvre_data(doc).setdefault("last", {})[defender.id] = {
            "kind": "dive",
            "pending": dict(pending),
        }
    return lines


def _dive_record(check: CheckResult | None) -> dict[str, Any] | None:
    if check is None:
        return None
    return {
        "base": check.modifiers[0].value,
        "mods": [m.to_dict() for m in check.modifiers[1:]],
        "roll": check.roll,
    }


def dive_check(record: Mapping[str, Any] | None, roll: int | None = None) -> CheckResult | None:
    if record is None:
        return None
    mods = [Modifier(str(m["label"]), int(m["value"])) for m in record["mods"]]
    return ogl_checks.check(
        int(record["base"]),
        mods,
        roll=int(record["roll"]) if roll is None else roll,
        base_label="combat.ogl.plonger",
    )


def area_wound(
    scope: Scope,
    doc: Doc,
    pending: Mapping[str, Any],
    rolled: int,
    check: CheckResult | None,
    lost_rolls: Sequence[int],
    payload: dict[str, Any],
) -> list[str]:
    """The damage after the dive at each location hit (armour off each), remembered for a reroll."""
    w = scope.words
    defender = doc.state.get(str(pending["defender"]))
    taken = rules.dive_damage(rolled, check)
    payload["area_damage"] = taken.to_dict()
    lines = [
        w.t(f"manoeuvre.area.result.{taken.dive.value}", name=defender.name, rolled=rolled, taken=taken.taken)
    ]
    undo: list[dict[str, Any]] = []
    wounds: list[dict[str, Any]] = []
    feed = list(lost_rolls)
    if taken.taken > 0:
        for loc in pending["locations"]:
            more, wound, step = ogl_wounds.damage_with_undo(
                scope, doc, doc.state.get(defender.id), loc, taken.taken, feed[0] if feed else None
            )
            if wound.level is rules.Level.SERIOUS and feed:  # the 1d4 by hand, one per serious wound
                feed.pop(0)
            lines.extend(more)
            undo.append(step)
            wounds.append(wound.to_dict())
        payload["wounds"] = wounds
        payload["damage"] = {"total": taken.taken}
    ogl_wounds.remember_damage(
        doc,
        [defender.id],
        {
            "kind": "area",
            "victim": defender.id,
            "pending": dict(pending),
            "rolled": rolled,
            "dive": _dive_record(check),
            "undo": undo,
        },
    )
    new_event(scope, doc, "hit" if taken.taken > 0 else "defence", defender.id, payload)
    return lines
