"""`ogl` location damage and wounds (seed 004): the locations, the major-wound threshold
(``majeure:``), a location typed, the defence score, an attack's damage, damage at a location with its
wound, conditions and Endurance tests due, and the undo of recorded damage a second chance needs.

* Critical at ⌊skill/10⌋: maximum weapon damage (the damage modifier ``md=`` rolled); impaling.
* Damage off the location's HP (``localisation:`` — the seed prints no hit-location table, so the
  GM says where), armour points (``armure:"tout:2 tete:3"``) subtracted; minor / serious / major
  wounds with their conditions, endurance tests and death counts; knockback when damage > SIZ.
* A damage roll a second chance may reroll is remembered with what undoing it needs (the HP lost,
  the conditions, the due tests); refused once the wound's Endurance tests are rolled (reading).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from bot.rules.combat.state import Combatant
from bot.rules.ogl import combat as rules
from bot.rules.sheets import OGL_LOCATIONS, fold
from bot.services.fights._core import Doc, FightRefusal, RollNote, Scope
from bot.services.fights.destiny import GRAZE, offer
from bot.services.fights.kit import RANGED_KINDS
from bot.services.fights.systems import ogl_ledger
from bot.services.house_rules import table_in_force

LOCATIONS: Final = tuple(name for name, _, _ in OGL_LOCATIONS)
HIT_TABLE: Final = "ogl_hit_location"
RANDOM_WORDS: Final = frozenset({"aleatoire", "random", "hasard", "d20"})
KINDS: Final[dict[str, str]] = {
    "jambe_d": "leg",
    "jambe_g": "leg",
    "abdomen": "abdomen",
    "poitrine": "chest",
    "bras_d": "arm",
    "bras_g": "arm",
    "tete": "head",
}


def dice_count(expression: str) -> int:
    """How many dice ``1d8+1d4`` rolls (2): the hand-typed ``degats`` are shared out in order."""
    return sum(int(n) for n in re.findall(r"([0-9]+)d[0-9]+", expression))


def threshold(doc: Doc) -> rules.MajorThreshold:
    return rules.MajorThreshold(str((doc.data.get("options") or {}).get("ogl_majeure", "below")))


def location(text: str | None) -> str:
    wanted = fold(text or "").replace(" ", "_")
    if wanted not in LOCATIONS:
        raise FightRefusal("combat.ogl.error.location", accepted=", ".join(LOCATIONS))
    return wanted


def location_request(text: str | None) -> str | int | None:
    """What ``localisation:`` asks: a location named (``tete``), the d20 typed by hand (``14``), or
    nothing / ``aleatoire``: the bot's d20 on the hit-location table (issue 20, item 20)."""
    wanted = fold(text or "").replace(" ", "_")
    if not wanted or wanted in RANDOM_WORDS:
        return None
    if wanted.isdigit():
        if not 1 <= int(wanted) <= 20:
            raise FightRefusal("combat.ogl.error.location_roll", roll=wanted[:4])
        return int(wanted)
    return location(wanted)


async def hit_location(scope: Scope, asked: str | int | None) -> tuple[str, dict[str, Any] | None]:
    """The location of a blow: named, else read on the server's ``ogl_hit_location`` bands (the
    shipped reading: RuneQuest's d20 table) with the typed d20 or the bot's; the roll when read."""
    if isinstance(asked, str):
        return asked, None
    document = await table_in_force(scope.session, scope.ctx, scope.guild_id, HIT_TABLE)
    try:
        hit = rules.roll_hit_location(document["entries"], rng=scope.rng, roll=asked)
    except ValueError:
        raise FightRefusal("combat.ogl.error.location_table", roll=asked or "?") from None
    scope.rolls.append(RollNote("combat.location", "1d20", hit.roll, hit.to_dict()))
    return hit.location, hit.to_dict()


def location_line(scope: Scope, rolled: Mapping[str, Any]) -> str:
    return scope.t(
        "combat.ogl.location_roll",
        roll=rolled["roll"],
        location=scope.t(f"characters.loc.{rolled['location']}"),
    )


def defence_score(doc: Doc, c: Combatant, reaction: rules.Reaction) -> int:
    skills = doc.meta.get(c.id, {}).get("skills") or {}
    if reaction is rules.Reaction.DODGE:
        if "esquive" in skills:
            return int(skills["esquive"])
        raise FightRefusal("combat.sys.error.no_defence_score", name=c.name, what="Esquive")
    for arm in doc.meta.get(c.id, {}).get("arms") or []:
        if arm["kind"] in RANGED_KINDS:
            continue
        if arm.get("parry") is not None:
            return int(arm["parry"])
        if arm.get("score") is not None:
            return int(arm["score"])
    raise FightRefusal("combat.sys.error.no_defence_score", name=c.name, what="parade")


def named_part(condition: Any) -> Any:
    """A disabled limb names its part for the tracker (``combat.part.arm`` / ``leg``)."""
    if condition.kind != "disabled" or "part" in condition.params:
        return condition
    return replace(condition, params={**condition.params, "part": condition.params.get("limb", "?")})


def wound(
    scope: Scope,
    doc: Doc,
    pending: Mapping[str, Any],
    payload: dict[str, Any],
    *,
    critical: bool,
    ignore_armour: bool,
) -> list[str]:
    w = scope.words
    defender = doc.state.get(str(pending["defender"]))
    arm = pending["weapon"]
    hand = pending.get("hand") or {}
    dice = list(hand.get("damage") or [])
    # ``degats``: the weapon's dice (none on a critical: maximised), then the damage modifier's
    # (line 11: « résolu normalement »), then the charge's 1d4 (line 6) — a fight replays exactly
    weapon_n = 0 if critical else dice_count(str(arm["dice"]))
    md_n = dice_count(str(arm["md"])) if arm.get("md") else 0
    charge = bool(pending.get("charge"))
    rest = dice[weapon_n + md_n :]
    damage = rules.roll_damage(
        str(arm["dice"]),
        damage_modifier=arm.get("md"),
        critical=critical,
        impaling="impaling" in (arm.get("flags") or []),
        charge=charge,
        rng=scope.rng,
        dice=dice[:weapon_n],
        modifier_dice=dice[weapon_n : weapon_n + md_n],
        charge_die=rest[0] if charge and rest else None,
    )
    payload["damage"] = damage.to_dict()
    lines = [w.t("combat.ogl.damage_line", terms=w.terms(damage.terms, damage.total))]
    if critical:
        lines.insert(0, w.t("combat.ogl.critical"))
    if damage.impaled:  # line 12: the weapon stays in the wound until pulled out (/manoeuvre retirer)
        lines.append(w.t("combat.ogl.impaled"))
        ogl_ledger.manoeuvre_data(doc).setdefault("impaled", {})[defender.id] = {
            "wielder": str(pending["attacker"]),
            "weapon": dict(arm),
            "location": str(pending["location"]),
        }
    knock = rules.knockback(damage.total, defender.stat("SIZ"), charge=charge)
    if knock.metres:
        payload["knockback"] = knock.to_dict()
        key = "combat.ogl.knockback_charge" if knock.doubled else "combat.ogl.knockback"
        lines.append(w.t(key, name=defender.name, metres=knock.metres))
        if not defender.has("prone"):  # line 35: an Acrobatie test or he ends prone
            add_endurance_prompt(doc, defender.id, "prone")
            lines.append(w.t("combat.ogl.test_due.prone", name=defender.name))
        if pending.get("wall"):  # line 35: against a wall, an Esquive test or 1d4 at random
            add_endurance_prompt(doc, defender.id, "wall")
            # ``degats``: after the charge's 1d4, the wall's 1d4 then its location d20
            doc.prompts[-1].update(
                bands=list(pending.get("wall_bands") or ()), dice=rest[1:] if charge else rest
            )
            lines.append(w.t("combat.ogl.test_due.wall", name=defender.name))
    more, wound, step = damage_with_undo(
        scope,
        doc,
        defender,
        str(pending["location"]),
        damage.total,
        (hand.get("effects") or [None])[0],
        ignore_armour=ignore_armour,
    )
    payload["wound"] = wound.to_dict()
    # a second chance may reroll this damage: the attacker's roll, and a roll that affects the victim
    remember_damage(
        doc,
        [str(pending["attacker"]), defender.id],
        {
            "kind": "attack",
            "victim": defender.id,
            "pending": dict(pending),
            "critical": critical,
            "ignore_armour": ignore_armour,
            "damage": damage.to_dict(),
            "undo": [step],
        },
    )
    return [*lines, *more]


def add_endurance_prompt(doc: Doc, cid: str, decides: str) -> int:
    number = int(doc.data.get("prompt_seq", 0)) + 1
    doc.data["prompt_seq"] = number
    doc.prompts.append({"id": number, "combatant": cid, "kind": "ogl.endurance", "decides": decides})
    return number


def apply_location_damage(
    scope: Scope,
    doc: Doc,
    defender: Combatant,
    loc: str,
    damage: int,
    lost_roll: int | None,
    *,
    ignore_armour: bool = False,
) -> tuple[list[str], rules.LocationWound]:
    """Damage at a location: armour off, the HP, the wound level, its conditions and tests."""
    w = scope.words
    armour = int((doc.meta.get(defender.id, {}).get("armour") or {}).get(loc, 0))
    wound = rules.damage_location(
        loc,
        KINDS[loc],
        int(defender.characteristics[f"HP.{loc}"]),
        rules.location_hp(defender, loc),
        damage,
        armour=armour,
        ignore_armour=ignore_armour,
        con=defender.stat("CON"),
        pou=defender.stat("POW"),
        threshold=threshold(doc),
        rng=scope.rng,
        lost_actions_roll=lost_roll,
    )
    wound = replace(wound, conditions=tuple(named_part(x) for x in wound.conditions))
    doc.state = doc.state.put(rules.record_location(defender, wound))
    lines = [
        w.t(
            "combat.ogl.location_hp",
            location=w.t(f"characters.loc.{loc}"),
            terms=w.terms(wound.terms, wound.damage),
            before=wound.hp_before,
            after=wound.hp_after,
            max=wound.hp_max,
        )
    ]
    prompts: list[int] = []
    if wound.level is not rules.Level.NONE:
        lines.append(w.t(f"combat.ogl.level.{wound.level.value}", name=defender.name))
        for condition in wound.conditions:
            lines.append("• " + w.condition(condition))
        for decides in wound.endurance_tests:
            prompts.append(add_endurance_prompt(doc, defender.id, decides))
            lines.append(w.t(f"combat.ogl.test_due.{decides}", name=defender.name))
    if wound.level is rules.Level.MAJOR:
        ogl_ledger.remember_wound(doc, defender.id, wound, prompts)
        offer(doc, defender.id, GRAZE, f"ogl_major_wound.{loc}")  # a PC: his Éraflure (hero point)
    return lines, wound


# --- the damage a second chance may reroll ------------------------------------------------------


def damage_with_undo(
    scope: Scope,
    doc: Doc,
    victim: Combatant,
    loc: str,
    damage: int,
    lost_roll: int | None,
    *,
    ignore_armour: bool = False,
) -> tuple[list[str], rules.LocationWound, dict[str, Any]]:
    """:func:`apply_location_damage` and what undoing it needs."""
    before = {int(p["id"]) for p in doc.prompts}
    lines, wound = apply_location_damage(
        scope, doc, victim, loc, damage, lost_roll, ignore_armour=ignore_armour
    )
    step = {
        "location": loc,
        "loss": wound.hp_before - wound.hp_after,
        "conditions": [x.to_dict() for x in wound.conditions],
        "prompts": [int(p["id"]) for p in doc.prompts if int(p["id"]) not in before],
        "major": wound.level is rules.Level.MAJOR,
    }
    return lines, wound, step


def remember_damage(doc: Doc, parties: Sequence[str], record: Mapping[str, Any]) -> None:
    """The last damage roll of each party (the victim; an attacker for his weapon's damage)."""
    store = ogl_ledger.manoeuvre_data(doc).setdefault("damage", {})
    for cid in parties:
        if cid:
            store[cid] = dict(record)


def forget_damage(doc: Doc, victim: str) -> None:
    """A wound undone or changed otherwise (a reroll of the d100, a graze): no damage reroll on it."""
    store = ogl_ledger.manoeuvre_data(doc).get("damage") or {}
    for cid in [k for k, v in store.items() if v.get("victim") == victim]:
        store.pop(cid, None)


def undo_damage(doc: Doc, victim_id: str, undo: Sequence[Mapping[str, Any]]) -> None:
    """Take back the HP lost, the conditions and due tests of recorded damage steps."""
    from bot.rules.combat.common import pool_loss, set_pool_loss

    c = doc.state.get(victim_id)
    conditions = list(c.conditions)
    for step in reversed(undo):
        pool = f"HP.{step['location']}"
        c = set_pool_loss(c, rules.SYSTEM, pool, max(0, pool_loss(c, rules.SYSTEM, pool) - int(step["loss"])))
        conditions = list(c.conditions)
        for raw in step["conditions"]:
            found = next((i for i, x in enumerate(conditions) if x.to_dict() == raw), None)
            if found is not None:
                conditions.pop(found)
        c = replace(c, conditions=tuple(conditions))
        gone = set(step["prompts"])
        doc.data["prompts"] = [p for p in doc.prompts if p.get("id") not in gone]
        if step.get("major"):
            (ogl_ledger.manoeuvre_data(doc).get("wounds") or {}).pop(victim_id, None)
    doc.state = doc.state.put(c)
