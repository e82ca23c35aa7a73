"""`v1` fights (WFRP 1e complements, seed 001) on the shared fight machinery of :mod:`bot.services.fights`.

The rules are :mod:`bot.rules.v1.combat`; this adapter keeps the fight document, the turns and the
replies. What a `v1` fight does:

* ``/combat round des:"Albert: epee; Gobelin: dague"`` — effective initiative from I and A (attacks
  spread by ``I/A`` or ``I, I−10, I−20, I−30``), minus what drawing costs (``couteau``/``dague``
  −10, ``epee``/``simple`` −20, ``deux_mains``/``tir``/``sort``: one full round, ``bouclier``).
* An attack is a CC test (CT for a missile weapon); a hit lands on the location of the reversed d100
  (37 → 73). Aimed shots (``localisation:``) at short range only; ``situation:`` takes ``longue``,
  ``extreme``, ``groupe:N`` and ``mod:±N``. ``speciale:assommer`` / ``speciale:desarmer``; a
  bare-handed blow is always a stun attempt.
* The defender answers a melee hit: parry (prepared with ``/combat action action:preparer_parade``,
  losing that attack, or with a second weapon / a shield in the off hand, +20 %; free once a round
  with Armes de parade, else it costs the next attack), dodge (the Esquive skill: I + its bonus, free,
  once a round) or take it.
* Damage 1d6 + F + weapon bonus (a 6 adds 1d6, repeating) — or the attack's units digit, doubles
  doubling (option ``des:unites``); armour at the location (doubled bare-handed) and E (option
  ``endurance``) come off; Blessures are tracked; past the floor the overflow is the critical
  severity, narrated from the shared critical tables, its mechanics applied by the shared effects.

Readings (besides the rules module's):

* Options (``/combat ouvrir options:…``): ``endurance:soustraite`` (default: RULES.md / WJRF p122,
  armour and E subtracted, critical below 0) or ``endurance:seuil`` (the seed's words: armour only,
  critical below −E); ``attaques:divise`` (default) or ``attaques:echelonnees``; ``des:d6`` (default)
  or ``des:unites``.
* The shared critical effects test renove characteristics: a `v1` victim's F and E (0-10) are tested
  ×10, its I stands for Ag, F and E for BF and BE.
* Dodge: "un test de compétence" — I + the Esquive bonus (``Esquive:10`` in ``caracs``); without
  the skill the dodge is refused.
* The weapon profile's ``par=N`` is that weapon's parry modifier, applied to whoever parries it.
* A stun keeps the victim unconscious for (10 − E)d10 minutes (the GM ends it earlier with
  ``/combat condition``); the points beyond E are taken off Blessures.
* No creature figures in the seed: quick NPCs take ``caracs`` (CC, F, E, B and I required).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from bot.rules.combat.basics import Refusal, RefusedError
from bot.rules.combat.common import ordered_slots as order_of
from bot.rules.combat.common import set_pool_loss, term
from bot.rules.combat.effects import Condition, apply_mechanics
from bot.rules.combat.state import Combatant
from bot.rules.grammar import is_digits, parse_int, parse_modifier
from bot.rules.sheets import fold, shown_code
from bot.rules.v1 import combat as rules
from bot.services.fights._core import (
    DefenceRolls,
    Doc,
    FightOutcome,
    FightRefusal,
    RollNote,
    Scope,
    attack_payload,
    d100_or_none,
    new_event,
    outcome,
    parse_dice,
    pending_defence,
)
from bot.services.fights.attacks import AttackInput
from bot.services.fights.kit import (
    BARE_HANDS,
    RANGED_KINDS,
    Recruit,
    action_reply,
    actor,
    application_lines,
    await_defence,
    check_line,
    generic_action,
    parse_option_tokens,
    pass_turn,
    pick_arm,
    require_gm_for_free_modifier,
    settle,
    situation_tokens,
    spend,
    system_tables,
)
from bot.services.fights.rounds import close_open_round, named_entries, round_outcome, start_system_round
from bot.ui.reply import Colour, Reply

SYSTEM: Final = "v1"
TABLES: Final = (
    "v1_combat",
    "v1_hit_location",
    "criticals_tranchantes",
    "criticals_contondantes",
    "criticals_projectiles",
    "criticals_pugilat",
)
REQUIRED: Final = ("CC", "F", "E", "B", "I")
ZONES: Final = ("tete", "bras", "corps", "jambes")
OPTIONS: Final[dict[str, dict[str, str]]] = {
    "endurance": {
        "soustraite": "subtracted",
        "subtracted": "subtracted",
        "seuil": "threshold",
        "threshold": "threshold",
    },
    "attaques": {
        "divise": "divide",
        "divisees": "divide",
        "divide": "divide",
        "echelonnees": "staggered",
        "echelonne": "staggered",
        "staggered": "staggered",
    },
    "des": {"d6": "d6", "unites": "units_digit", "units_digit": "units_digit"},
}
DEFAULTS: Final[dict[str, str]] = {"endurance": "subtracted", "attaques": "divide", "des": "d6"}
DRAWS: Final[dict[str, rules.Draw]] = {
    "rien": rules.Draw.NONE,
    "none": rules.Draw.NONE,
    "couteau": rules.Draw.KNIFE,
    "dague": rules.Draw.KNIFE,
    "knife": rules.Draw.KNIFE,
    "epee": rules.Draw.SIMPLE,
    "simple": rules.Draw.SIMPLE,
    "sword": rules.Draw.SIMPLE,
    "deux_mains": rules.Draw.FULL_ROUND,
    "tir": rules.Draw.FULL_ROUND,
    "jet": rules.Draw.FULL_ROUND,
    "sort": rules.Draw.FULL_ROUND,
    "two_handed": rules.Draw.FULL_ROUND,
    "bouclier": rules.Draw.SHIELD,
    "shield": rules.Draw.SHIELD,
}
ZONE_TO_LOCATION: Final[dict[str, str]] = {
    "tete": "head",
    "corps": "body",
    "bras": "right_arm",
    "jambes": "right_leg",
}
SIMPLE: Final = (
    "preparer_parade",
    "viser",
    "recharger",
    "prendre_objet",
    "se_relever",
    "desengagement",
    "se_positionner",
    "autre_action_gratuite",
)
CRITICAL_KIND: Final[dict[str, str]] = {
    "edged": "edged",
    "blunt": "blunt",
    "shield": "blunt",
    "bare": "bare_hands",
    "missile": "missile",
    "fired": "missile",
    "thrown": "missile",
    "arrow": "missile",
}

_CACHE: dict[tuple[int, ...], rules.V1Tables] = {}


async def tables_of(scope: Scope) -> rules.V1Tables:
    docs = await system_tables(scope, TABLES)
    key = tuple(id(docs[n]) for n in TABLES)
    if key not in _CACHE:
        _CACHE.clear()
        _CACHE[key] = rules.V1Tables.from_documents(docs)
    return _CACHE[key]


def options_of(doc: Doc) -> dict[str, str]:
    stored = doc.data.get("options") or {}
    return {k: str(stored.get(f"v1_{k}", v)) for k, v in DEFAULTS.items()}


def parse_options(text: str | None) -> dict[str, Any]:
    chosen = {**DEFAULTS, **parse_option_tokens(text, OPTIONS)}
    return {f"v1_{k}": v for k, v in chosen.items()}


def options_line(scope: Scope, options: Mapping[str, Any]) -> str:
    return scope.t(
        "combat.v1.options",
        toughness=scope.t(f"combat.v1.option.{options['v1_endurance']}"),
        spread=scope.t(f"combat.v1.option.{options['v1_attaques']}"),
        die=scope.t(f"combat.v1.option.{options['v1_des']}"),
    )


# -- combatants ----------------------------------------------------------------------------


def parse_armour(text: str | None) -> dict[str, int]:
    """``"tout:1 tete:2"`` or ``"1"`` → points per zone (tete, bras, corps, jambes)."""
    out: dict[str, int] = {}
    if not text or not text.strip():
        return out
    for part in text.replace(",", " ").replace(";", " ").split():
        key, sep, value = part.partition(":")
        if not sep:
            key, value = "tout", part
        zone = fold(key).replace("ê", "e")
        if not (is_digits(value, 2) and int(value) <= 20):
            raise FightRefusal(
                "combat.sys.error.bad_armour", text=part[:30], zones="tout, " + ", ".join(ZONES)
            )
        if zone in ("tout", "all"):
            for z in ZONES:
                out[z] = int(value)
        elif zone in ZONES:
            out[zone] = int(value)
        else:
            raise FightRefusal(
                "combat.sys.error.bad_armour", text=part[:30], zones="tout, " + ", ".join(ZONES)
            )
    return out


def build(scope: Scope, doc: Doc, r: Recruit) -> tuple[Combatant, dict[str, Any]]:
    stats = r.stats(REQUIRED, ("Bact",))
    stats.setdefault("A", 1)
    combatant = r.combatant(stats, skills=frozenset(r.skills))
    current = r.values.get("Bact")
    if current is not None and current < stats["B"]:
        combatant = set_pool_loss(combatant, SYSTEM, "B", stats["B"] - current)
    meta = {"arms": r.arms, "armour": parse_armour(r.armour), "skills": r.skills}
    return combatant, meta


def _arms_text(arms: list[dict[str, Any]]) -> str:
    parts = []
    for arm in arms:
        bonus = f" {arm['bonus']:+d}" if arm.get("bonus") else ""
        parts.append(f"{arm['name']}{bonus}")
    return ", ".join(parts)


def profile_line(scope: Scope, doc: Doc, c: Combatant) -> str:
    meta = doc.meta.get(c.id, {})
    ch = c.characteristics
    armour = " ".join(f"{scope.words.zone(z)} {p}" for z, p in (meta.get("armour") or {}).items() if p)
    line = (
        f"**{c.name}** — CC {ch.get('CC')} · CT {ch.get('CT', 0)} · F {ch.get('F')} · E {ch.get('E')} · "
        f"B {ch.get('B')} · I {ch.get('I')} · A {c.attacks} — {_arms_text(meta.get('arms') or [])}"
    )
    if armour:
        line += " — " + scope.t("combat.sys.armour", armour=armour)
    return line


def tracker_lines(scope: Scope, doc: Doc, c: Combatant) -> tuple[str, ...]:
    lines = [
        scope.t(
            "combat.v1.tracker.wounds", current=rules.current_wounds(c), max=c.characteristics.get("B", 0)
        )
    ]
    data = doc.data.get("v1") or {}
    if data.get("prepared", {}).get(c.id):
        lines.append(scope.t("combat.tracker.parry_ready"))
    if (data.get("defence", {}).get(c.id) or {}).get("dodged"):
        lines.append(scope.t("combat.v1.tracker.dodged"))
    return tuple(lines)


def correct_pool(scope: Scope, doc: Doc, c: Combatant, key: str, value: int) -> tuple[str, int] | None:
    if fold(key) not in ("bact", "blessures", "wounds"):
        return None
    before = rules.current_wounds(c)
    doc.state = doc.state.put(set_pool_loss(c, SYSTEM, "B", int(c.characteristics.get("B", 0)) - value))
    return "Bact", before


def on_slot(scope: Scope, doc: Doc) -> list[str]:
    """Nothing to keep when the slot changes (the `ogl` adapter counts lost combat actions there)."""
    return []


def due_test(
    scope: Scope, doc: Doc, c: Combatant, prompt: Mapping[str, Any], roll: int | None
) -> FightOutcome:
    raise FightRefusal("combat.test.none", name=c.name)


# -- rounds ----------------------------------------------------------------------------------


def _draws(doc: Doc, text: str | None) -> dict[str, rules.Draw]:
    out: dict[str, rules.Draw] = {}
    for name, what in named_entries(text, "combat.v1.error.draw_format"):
        c = doc.find(name)
        word = fold(what.strip()).replace(" ", "_")
        if word not in DRAWS:
            raise FightRefusal(
                "combat.v1.error.draw_kind", value=what.strip()[:20], accepted=", ".join(DRAWS)
            )
        out[c.id] = DRAWS[word]
    return out


async def new_round(scope: Scope, doc: Doc, dice: str | None) -> FightOutcome:
    tables = await tables_of(scope)
    notes = close_open_round(scope, doc)
    draws = _draws(doc, dice)
    spread = rules.Spread(options_of(doc)["attaques"])
    results = []
    lines = []
    for c in doc.state.combatants:
        if c.has("dead"):
            continue
        result = rules.attack_slots(
            tables, c.id, c.stat("I"), c.attacks, spread=spread, draw=draws.get(c.id, rules.Draw.NONE)
        )
        results.append(result)
        slots = " · ".join(str(v) for v in result.slots) or "—"
        line = f"**{c.name}** : I {result.initiative}, A {result.attacks} → {slots}"
        if result.draw_penalty:
            line += " " + scope.t("combat.v1.round.draw", penalty=result.draw_penalty)
        if result.preparing_rounds:
            line += " " + scope.t("combat.v1.round.preparing")
        elif result.lost:
            line += " " + scope.t("combat.v1.round.lost", n=len(result.lost))
        lines.append(line)
    order = order_of(t for r in results for t in r.timings())
    # a parry prepared late in the round is still there for the attacks of the next (line 64)
    kept = {k: True for k, v in ((doc.data.get("v1") or {}).get("prepared") or {}).items() if v}
    start_system_round(doc, order, "v1", {"prepared": kept, "defence": {}})
    notes.extend(settle(scope, doc))
    new_event(scope, doc, "round", None, {"initiative": [r.to_dict() for r in results]})
    doc.save()
    return round_outcome(scope, doc, lines, notes, [r.to_dict() for r in results])


async def simple_action(
    scope: Scope,
    doc: Doc,
    action: str,
    *,
    who: str | None,
    option: str | None,
    target: str | None,
    roll: int | None,
    target_roll: int | None,
) -> FightOutcome:
    c, notes = generic_action(scope, doc, action, who, SIMPLE)
    lines = list(notes)
    if action == "preparer_parade":
        doc.data.setdefault("v1", {}).setdefault("prepared", {})[c.id] = True
        lines.insert(0, scope.t("combat.v1.parry_prepared", name=c.name))
    return action_reply(scope, doc, c, action, lines)


# -- attacks ---------------------------------------------------------------------------------


def _situation(text: str | None) -> tuple[rules.RangeBand, int, list[Any]]:
    band = rules.RangeBand.SHORT
    group = 0
    mods: list[Any] = []
    for key, value in situation_tokens(text):
        if key in ("courte", "portee_courte", "short"):
            band = rules.RangeBand.SHORT
        elif key in ("longue", "portee_longue", "long"):
            band = rules.RangeBand.LONG
        elif key in ("extreme", "portee_extreme"):
            band = rules.RangeBand.EXTREME
        elif key in ("groupe", "group") and value is not None:
            group = parse_int(value, option="situation", lo=0, hi=99)
        elif key == "mod" and value is not None:
            mods.append(term(SYSTEM, "gm_modifier", parse_modifier(value, option="situation")))
        else:
            raise FightRefusal(
                "combat.sys.error.bad_situation", text=key[:30], accepted="longue, extreme, groupe:N, mod:±N"
            )
    return band, group, mods


def _location_id(tables: rules.V1Tables, data: AttackInput) -> str | None:
    if data.location:
        wanted = fold(data.location)
        for loc in tables.locations:
            if wanted in (loc.id.replace("_", " "), loc.id, fold(loc.name["fr"]), fold(loc.name["en"])):
                return loc.id
        raise FightRefusal(
            "combat.sys.error.bad_location",
            text=data.location[:30],
            accepted=", ".join(loc.name["fr"] for loc in tables.locations),
        )
    if data.zone:
        return ZONE_TO_LOCATION.get(data.zone)
    return None


def _special(text: str | None) -> str | None:
    if not text:
        return None
    word = fold(text).replace(" ", "_")
    if word in ("assommer", "coup_assommant", "stun"):
        return "stun"
    if word in ("desarmer", "desarmement", "disarm"):
        return "disarm"
    raise FightRefusal("combat.sys.error.bad_special", text=text[:30], accepted="assommer, desarmer")


def _shots(doc: Doc) -> dict[str, Any]:
    """Shots declared and waiting for their preparation rounds (kept across rounds)."""
    value: dict[str, Any] = doc.data.setdefault("v1_shots", {})
    return value


def _declare_shot(
    scope: Scope,
    doc: Doc,
    c: Combatant,
    foe: Combatant,
    arm: Mapping[str, Any],
    shot: dict[str, Any],
    preparation: int,
    head: list[str],
) -> FightOutcome:
    """Lines 87, 93: an aimed or extreme-range shot is declared now (this attack is spent preparing
    it), the preparation rounds pass, then ``/combat attaque`` with the same target and aim fires it."""
    spend(scope, doc, c, "attaquer")
    ready = doc.state.round + preparation
    _shots(doc)[c.id] = {**shot, "declared": doc.state.round, "ready": ready, "preparation": preparation}
    w = scope.words
    key = "combat.v1.shot.declared_aimed" if shot["location"] else "combat.v1.shot.declared_extreme"
    lines = [*head, w.t(key, name=c.name, target=foe.name, weapon=arm["name"], round=ready)]
    result = {"declared_shot": _shots(doc)[c.id], "attacker": c.id, "target": foe.id}
    new_event(scope, doc, "action", c.id, result)
    lines.extend(pass_turn(scope, doc))
    doc.save()
    reply = Reply(
        title=f"🎯 {c.name} → {foe.name} ({arm['name']})",
        description="\n".join(lines)[:4000],
        colour=Colour.INFO,
        result={"fight_id": doc.row.id, **result},
        kind="combat.action",
    )
    return outcome(scope, doc, reply)


def _guard_down(scope: Scope, doc: Doc, c: Combatant) -> list[str]:
    """A prepared parry lasts until it is used or its fighter attacks (reading of line 64: it is paid
    by the next attack, so it is kept across the round's end for a fighter who acts late)."""
    prepared = (doc.data.get("v1") or {}).get("prepared", {})
    if prepared.pop(c.id, None):
        return [scope.t("combat.v1.parry_dropped", name=c.name)]
    return []


def _location_name(scope: Scope, loc: rules.Location) -> str:
    return loc.name["en"] if scope.words.en else loc.name["fr"]


async def attack(scope: Scope, doc: Doc, data: AttackInput) -> FightOutcome:
    tables = await tables_of(scope)
    w = scope.words
    c = actor(scope, doc, data.attacker)
    foe = doc.find(data.target)
    if foe.id == c.id:
        raise FightRefusal("combat.error.self_attack")
    if foe.has("dead"):
        raise FightRefusal("combat.error.target_dead", name=foe.name)
    arm = pick_arm(doc, c, data.weapon)
    ranged = arm["kind"] in RANGED_KINDS
    special = _special(data.special)
    skills = doc.meta.get(c.id, {}).get("skills") or {}
    if special == "disarm" and "desarmement" not in skills:
        raise RefusedError(Refusal("combat.v1.refusal.disarm_needs_skill"))
    if special is not None and ranged:
        raise FightRefusal("combat.sys.error.special_melee_only")
    require_gm_for_free_modifier(scope, data.situation)
    band, group, mods = _situation(data.situation)
    location_id = _location_id(tables, data)
    if location_id is not None and not ranged:
        raise FightRefusal("combat.v1.error.aim_melee")
    if location_id is not None and band is not rules.RangeBand.SHORT:
        raise RefusedError(Refusal("combat.v1.refusal.aimed_short_range_only"))
    head = _guard_down(scope, doc, c)
    preparation = rules.shot_preparation(tables, band, aimed=location_id is not None) if ranged else 0
    shot = {"target": foe.id, "weapon": arm["id"], "location": location_id, "band": band.value}
    declared = _shots(doc).get(c.id)
    if declared is not None and {k: declared.get(k) for k in shot} != shot:
        _shots(doc).pop(c.id)
        head.append(w.t("combat.v1.shot.dropped", name=c.name))
        declared = None
    if preparation and declared is None:
        return _declare_shot(scope, doc, c, foe, arm, shot, preparation, head)
    if declared is not None:
        if doc.state.round < int(declared["ready"]):
            raise FightRefusal("combat.v1.error.shot_not_ready", name=c.name, round=int(declared["ready"]))
        _shots(doc).pop(c.id)
        head.append(w.t("combat.v1.shot.released", name=c.name, round=int(declared["declared"])))
    spend(scope, doc, c, "attaquer")
    bare = arm["kind"] == "bare"
    if ranged:
        result = rules.resolve_shot(
            tables,
            c.stat("CT"),
            mods,
            range_band=band,
            aim_at=location_id,
            extra_creatures_in_group=group,
            rng=scope.rng,
            roll=d100_or_none(data.roll),
        )
    else:
        result = rules.resolve_attack(
            tables,
            c.stat("CC"),
            mods,
            bare_hands=bare,
            brawling="bagarre" in skills,
            stun=special == "stun",
            rng=scope.rng,
            roll=d100_or_none(data.roll),
        )
    if isinstance(result, Refusal):
        raise RefusedError(result)
    hand = {
        "damage": parse_dice(data.damage, option="damage", sides=6, limit=50),
        "effects": parse_dice(data.effects, option="effects"),
        "durations": parse_dice(data.durations, option="durations"),
    }
    seq = new_event(scope, doc, "attack", c.id, {"target": foe.id, "attack": result.to_dict(), "weapon": arm})
    scope.rolls.append(
        RollNote(
            "combat.attack",
            "1d100",
            result.check.roll,
            {"fight_id": doc.row.id, "seq": seq, "attacker": c.name, "target": foe.name, **result.to_dict()},
        )
    )
    lines = [
        *head,
        w.t("combat.attack.test", test=shown_code("CT" if ranged else "CC", w.en))
        + (": " if w.en else " : ")
        + check_line(w, result.check, " %"),
    ]
    payload = attack_payload(doc, seq, c.id, foe.id, result.to_dict())
    buttons: tuple[Any, ...] = ()
    if result.hit and result.location is not None:
        loc = result.location
        if result.reversed_roll is not None:
            lines.append(
                w.t(
                    "combat.v1.location",
                    roll=result.check.roll_text,
                    reversed=f"{result.reversed_roll:02d}" if result.reversed_roll < 100 else "00",
                    location=_location_name(scope, loc),
                )
            )
        else:
            lines.append(w.t("combat.v1.location_aimed", location=_location_name(scope, loc)))
        if result.stunning and not ranged:
            lines.append(w.t("combat.v1.stun_attempt_note"))
        pending = pending_defence(
            scope,
            doc,
            seq,
            c.id,
            foe.id,
            weapon=arm,
            attack_roll=result.check.roll,
            location=loc.id,
            ranged=ranged,
            range=band.value,
            special=special,
            stun=result.stunning,
            bare=result.bare_hands,
            hand=hand,
        )
        if ranged or foe.has("dead", "unconscious"):
            if ranged:
                lines.append(w.t("combat.v1.no_defence_ranged", name=foe.name))
            lines.extend(await resolve(scope, doc, pending, "encaisser", DefenceRolls(), payload))
        else:  # an NPC in « defense_pnj » answers now; else only the legal buttons (see _defend)
            waited, buttons = await await_defence(scope, doc, pending, payload, resolve)
            lines.extend(waited)
    else:
        lines.append(w.t("combat.attack.missed", name=foe.name))
    lines.extend(pass_turn(scope, doc))
    doc.save()
    reply = Reply(
        title=f"⚔️ {c.name} → {foe.name} ({arm['name']})",
        description="\n".join(lines)[:4000],
        colour=Colour.SUCCESS if result.hit else Colour.FAILURE,
        buttons=buttons,
        result=payload,
        kind="combat.attack",
    )
    return outcome(scope, doc, reply)


# -- defence and damage ------------------------------------------------------------------------


def _round_state(doc: Doc, cid: str) -> rules.DefenceRound:
    raw = (doc.data.get("v1") or {}).get("defence", {}).get(cid) or {}
    return rules.DefenceRound(
        bool(raw.get("dodged")), bool(raw.get("free_parry_used")), tuple(raw.get("defended", ()))
    )


def _off_hand(doc: Doc, c: Combatant) -> rules.OffHand | None:
    arms = doc.meta.get(c.id, {}).get("arms") or []
    if any(a["kind"] == "shield" for a in arms):
        return rules.OffHand.SHIELD
    melee = [a for a in arms if a["kind"] not in RANGED_KINDS and a["kind"] not in ("shield", "bare")]
    return rules.OffHand.WEAPON if len(melee) >= 2 else None


def _lose_next_attack(doc: Doc, cid: str) -> None:
    c = doc.state.get(cid)
    acts = c.actions
    more = c.attacks_left() > 0
    acts = replace(acts, used=acts.used + 1) if more else replace(acts, debt=acts.debt + 1)
    doc.state = doc.state.put(replace(c, actions=acts))


def _test_characteristics(c: Combatant) -> dict[str, int]:
    """The shared critical effects test renove characteristics: F and E ×10, I for Ag (reading)."""
    chars = c.current_characteristics()
    f, e = chars.get("F", 0), chars.get("E", 0)
    chars.update(F=f * 10, E=e * 10, BF=f, BE=e, Ag=chars.get("I", 0))
    return chars


def _defend(
    tables: rules.V1Tables,
    doc: Doc,
    pending: Mapping[str, Any],
    choice: str,
    roll: int | None,
    rng: Any,
) -> rules.V1Defence | Refusal:
    """The parry or the dodge against ``pending`` as the rules allow it now (nothing written): the
    parry needs a prepared parry, a second weapon or a shield; the dodge the Esquive skill."""
    did = str(pending["defender"])
    defender = doc.state.get(did)
    skills = doc.meta.get(did, {}).get("skills") or {}
    v1data = doc.data.get("v1") or {}
    if choice == "esquiver":
        if "esquive" not in skills:
            return Refusal("combat.v1.refusal.dodge_needs_skill")
        return rules.resolve_defence(
            tables,
            rules.Defence.DODGE,
            defender.stat("I"),
            attack_id=str(pending["seq"]),
            round_state=_round_state(doc, did),
            melee=not pending.get("ranged"),
            modifiers=(term(SYSTEM, "dodge_skill", int(skills["esquive"])),) if skills["esquive"] else (),
            rng=rng,
            roll=roll,
        )
    prepared = bool((v1data.get("prepared") or {}).get(did))
    return rules.resolve_defence(
        tables,
        rules.Defence.PARRY,
        defender.stat("CC"),
        attack_id=str(pending["seq"]),
        round_state=_round_state(doc, did),
        melee=not pending.get("ranged"),
        attacker_weapon_parry_modifier=int(pending["weapon"].get("parry") or 0),
        prepared=prepared,
        off_hand=None if prepared else _off_hand(doc, defender),
        parry_specialist="armes de parade" in skills,
        rng=rng,
        roll=roll,
    )


async def defence_chances(scope: Scope, doc: Doc, pending: Mapping[str, Any]) -> dict[str, int]:
    """The parry and the dodge the rules allow now, with their target (a d100's %)."""
    tables = await tables_of(scope)
    out: dict[str, int] = {}
    if not pending.get("ranged"):
        for choice in ("parer", "esquiver"):
            found = _defend(tables, doc, pending, choice, 100, None)
            if isinstance(found, rules.V1Defence):
                out[choice] = max(0, min(100, found.check.target))
    out["encaisser"] = 0
    return out


async def resolve(
    scope: Scope,
    doc: Doc,
    pending: Mapping[str, Any],
    choice: str,
    rolls: DefenceRolls,
    payload: dict[str, Any],
) -> list[str]:
    """Parry, dodge or take it; then disarm, stun or damage (Blessures, critical)."""
    tables = await tables_of(scope)
    w = scope.words
    did = str(pending["defender"])
    defender = doc.state.get(did)
    lines: list[str] = []
    defence: rules.V1Defence | Refusal | None = None
    v1data = doc.data.setdefault("v1", {"prepared": {}, "defence": {}})
    prepared = bool(v1data.setdefault("prepared", {}).get(did))
    if choice in ("parer", "esquiver"):
        defence = _defend(tables, doc, pending, choice, d100_or_none(rolls.roll), scope.rng)
        if isinstance(defence, Refusal):
            raise RefusedError(defence)
    if choice == "parer":
        assert isinstance(defence, rules.V1Defence)
        if prepared:
            v1data["prepared"][did] = False
            how = "prepared"
        elif defence.costs_next_attack:
            _lose_next_attack(doc, did)
            how = "off_hand_costly"
        else:
            how = "off_hand_free"
        lines.append(
            w.t(f"combat.v1.parry.{how}", name=defender.name) + " : " + check_line(w, defence.check, " %")
        )
    elif choice == "esquiver":
        assert isinstance(defence, rules.V1Defence)
        lines.append(
            w.t("combat.defence.dodge", name=defender.name) + " : " + check_line(w, defence.check, " %")
        )
    elif choice == "encaisser":
        lines.append(w.t("combat.defence.takes", name=defender.name))
    else:
        raise FightRefusal("combat.error.bad_choice")
    if isinstance(defence, rules.V1Defence):
        v1data.setdefault("defence", {})[did] = defence.round.to_dict()
        payload["defence"] = defence.to_dict()
        scope.rolls.append(
            RollNote(
                f"combat.{defence.kind.value}",
                "1d100",
                defence.check.roll,
                {"fight_id": doc.row.id, **defence.to_dict()},
            )
        )
        if defence.cancels_damage:
            lines.append(w.t("combat.v1.defended"))
            new_event(scope, doc, "defence", did, payload)
            return lines
    special = pending.get("special")
    if special == "disarm":
        lines.extend(_disarm(scope, doc, pending, payload))
    elif pending.get("stun"):
        lines.extend(_stun(scope, doc, tables, pending, payload))
    else:
        lines.extend(_damage(scope, doc, tables, pending, payload))
    new_event(scope, doc, "hit", did, payload)
    return lines


def _armour_at(doc: Doc, cid: str, loc: rules.Location) -> int:
    return int((doc.meta.get(cid, {}).get("armour") or {}).get(loc.zone, 0))


def _wound_lines(
    scope: Scope, doc: Doc, pending: Mapping[str, Any], wound: rules.V1Wound, payload: dict[str, Any]
) -> list[str]:
    w = scope.words
    did = str(pending["defender"])
    defender = doc.state.get(did)
    defender = rules.record_wound(defender, wound)
    doc.state = doc.state.put(defender)
    payload["wound"] = wound.to_dict()
    lines = [
        w.t("combat.v1.net", terms=w.terms(wound.terms, wound.net)),
        w.t("combat.v1.wounds", name=defender.name, before=wound.wounds_before, after=wound.wounds_after),
    ]
    if wound.severity is not None and wound.critical is not None:
        entry = wound.critical
        lines.append(
            w.t(
                "combat.v1.critical",
                overflow=wound.overflow,
                severity=wound.severity,
                kind=w.t(f"combat.kind.{entry.kind}"),
                zone=w.zone(entry.zone),
            )
        )
        lines.append(f"> {w.narration(entry.narration)}")
        hand = pending.get("hand") or {}
        application = apply_mechanics(
            entry.mechanics,
            _test_characteristics(defender),
            source=entry.source,
            conditions=defender.conditions,
            rng=scope.rng,
            test_rolls=hand.get("effects") or (),
            duration_rolls=hand.get("durations") or (),
        )
        lines.extend(application_lines(scope, doc, defender, application, payload))
    return lines


def _damage(
    scope: Scope, doc: Doc, tables: rules.V1Tables, pending: Mapping[str, Any], payload: dict[str, Any]
) -> list[str]:
    w = scope.words
    attacker = doc.state.get(str(pending["attacker"]))
    defender = doc.state.get(str(pending["defender"]))
    arm = pending["weapon"]
    loc = tables.location(str(pending["location"]))
    options = options_of(doc)
    hand = pending.get("hand") or {}
    damage = rules.roll_damage(
        tables,
        attacker.stat("F"),
        int(arm.get("bonus") or 0),
        method=rules.DieMethod(options["des"]),
        attack_roll=int(pending["attack_roll"]),
        range_band=rules.RangeBand(pending["range"]) if pending.get("ranged") else None,
        rng=scope.rng,
        dice=hand.get("damage") or (),
    )
    payload["damage"] = damage.to_dict()
    scope.rolls.append(
        RollNote("combat.damage", "1d6", damage.total, {"fight_id": doc.row.id, **damage.to_dict()})
    )
    wound = rules.apply_damage(
        tables,
        damage.total,
        wounds=rules.current_wounds(defender),
        toughness=defender.stat("E"),
        armour=_armour_at(doc, defender.id, loc),
        reading=rules.Toughness(options["endurance"]),
        weapon_kind=CRITICAL_KIND.get(str(arm["kind"]), "edged"),
        location=loc,
    )
    lines = [
        w.t(
            "combat.v1.damage_line",
            location=_location_name(scope, loc),
            terms=w.terms(damage.terms, damage.total),
        )
    ]
    return lines + _wound_lines(scope, doc, pending, wound, payload)


def _stun(
    scope: Scope, doc: Doc, tables: rules.V1Tables, pending: Mapping[str, Any], payload: dict[str, Any]
) -> list[str]:
    w = scope.words
    attacker = doc.state.get(str(pending["attacker"]))
    defender = doc.state.get(str(pending["defender"]))
    arm = pending["weapon"]
    loc = tables.location(str(pending["location"]))
    hand = pending.get("hand") or {}
    dice = hand.get("damage") or []
    effects = hand.get("effects") or []
    skills = doc.meta.get(attacker.id, {}).get("skills") or {}
    stun = rules.resolve_stun(
        tables,
        attacker.stat("F"),
        int(arm.get("bonus") or 0),
        toughness=defender.stat("E"),
        armour=_armour_at(doc, defender.id, loc),
        skill="coup assommant" in skills,
        bare_hands=bool(pending.get("bare")),
        rng=scope.rng,
        die=dice[0] if dice else None,
        chance_roll=effects[0] if effects else None,
        duration_dice=hand.get("durations") or (),
    )
    payload["stun"] = stun.to_dict()
    lines = [
        w.t("combat.v1.stun.points", terms=w.terms(stun.points_terms, stun.points)),
        w.t("combat.v1.stun.chance", terms=w.terms(stun.chance_terms, stun.chance), roll=stun.roll),
    ]
    if stun.stunned and stun.duration is not None:
        minutes = stun.duration.total
        lines.append(
            w.t(
                "combat.v1.stun.stunned",
                name=defender.name,
                dice=stun.duration.expression,
                rolled=" ".join(map(str, stun.duration.dice)) or "0",
                minutes=minutes,
            )
        )
        c = doc.state.get(defender.id)
        out = Condition("unconscious", "v1.stun", remaining=minutes, unit="minute", until="end_of_combat")
        doc.state = doc.state.put(c.with_conditions(out))
    else:
        lines.append(w.t("combat.v1.stun.failed", name=defender.name))
    if stun.wounds:
        options = options_of(doc)
        wound = rules.take_wounds(
            tables,
            stun.wounds,
            wounds=rules.current_wounds(doc.state.get(defender.id)),
            toughness=defender.stat("E"),
            reading=rules.Toughness(options["endurance"]),
            weapon_kind=CRITICAL_KIND.get(str(arm["kind"]), "blunt"),
            location=loc,
            terms=(term(SYSTEM, "beyond_toughness", stun.wounds),),
        )
        lines.extend(_wound_lines(scope, doc, pending, wound, payload))
    return lines


def _disarm(scope: Scope, doc: Doc, pending: Mapping[str, Any], payload: dict[str, Any]) -> list[str]:
    w = scope.words
    attacker = doc.state.get(str(pending["attacker"]))
    defender = doc.state.get(str(pending["defender"]))
    hand = pending.get("hand") or {}
    effects = list(hand.get("effects") or [])
    durations = list(hand.get("durations") or [])
    result = rules.resolve_disarm(
        attacker.stat("Dex"),
        defender.stat("Dex"),
        has_skill=True,
        rng=scope.rng,
        attacker_roll=effects[0] if effects else None,
        defender_roll=effects[1] if len(effects) > 1 else None,
        distance_roll=durations[0] if durations else None,
    )
    if isinstance(result, Refusal):
        raise RefusedError(result)
    payload["disarm"] = result.to_dict()
    lines = [
        f"{attacker.name} : " + check_line(w, result.attacker, " %"),
        f"{defender.name} : " + check_line(w, result.defender, " %"),
    ]
    if result.disarmed:
        meta = doc.meta.setdefault(defender.id, {})
        arms = list(meta.get("arms") or [])
        held = next((a for a in arms if a["kind"] not in ("shield", "bare")), None)
        if held is not None:
            arms.remove(held)
            meta["arms"] = arms or [dict(BARE_HANDS)]
            doc.state = doc.state.put(replace(defender, weapons=tuple(a["id"] for a in meta["arms"])))
        lines.append(
            w.t(
                "combat.v1.disarmed",
                name=defender.name,
                weapon=held["name"] if held else "—",
                metres=result.distance_m,
            )
        )
    elif result.verdict.value == "reroll":
        lines.append(w.t("combat.v1.disarm_reroll"))
    else:
        lines.append(w.t("combat.v1.not_disarmed", name=defender.name))
    return lines
