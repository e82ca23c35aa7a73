"""`ogl` fights (seed 004, "Règles OGL : Combat") on the shared fight machinery of
:mod:`bot.services.fights`; the rules are :mod:`bot.rules.ogl.combat`.

* ``/combat round des:"Albert: 7; Orc: 3 surpris"`` — each round an action rank 1d10 + the Action
  Rank modifier (``RA`` in ``caracs``, default 0), −10 surprised in the first round, ties by DEX.
  ``CA`` (default 1) combat actions a round: the first actions in rank order, then the second ones.
* An attack is rolled at once (d100 ≤ weapon skill); the defender reacts — parry (the weapon skill,
  ``par=`` if given), dodge (the Esquive skill) — or takes it; both succeed → the higher roll wins.
  One reaction per attack, as many reactions a round as combat actions. ``speciale:`` a precise
  attack (``frappe_visee``, ``frapper_a_travers_armure``, ``frapper_arme``, ``desarmer``: −40 %).
  ``situation:`` the seed's situational modifiers (ids of ``ogl_situational_modifiers``).
* A hit's damage and wounds: :mod:`.ogl_wounds` (critical, impaling, location HP, armour, wound
  levels, knockback); the bookkeeping (combat actions lost, mounted, the reactions ledger, what a
  second chance remembers): :mod:`.ogl_ledger`; area effects and the dive: :mod:`.ogl_area`; the
  ``/manoeuvre`` use cases on top of this adapter: :mod:`.ogl_manoeuvres`.
* Options: ``majeure:strict`` (default: the seed, below −HP) or ``majeure:au_plus`` (RULES.md).

Readings: location HP are the character sheet's (``bot.rules.sheets.location_hp``); the Endurance
test is the ``Endurance`` skill, else CON × 5; a fumble (00) rolls the weapon's fumble table
(``data/ogl_fumbles.json``, 1d20 by hand in ``effets`` — the defender's in ``tests``), the faces the
seed does not print going to the GM.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from bot.rules.checks.common import Modifier
from bot.rules.combat.basics import Refusal, RefusedError
from bot.rules.combat.common import Timing, ordered_slots, term
from bot.rules.combat.effects import Condition
from bot.rules.combat.state import Combatant
from bot.rules.grammar import is_digits, is_int, parse_int
from bot.rules.ogl import checks as ogl_checks
from bot.rules.ogl import combat as rules
from bot.rules.sheets import fold, location_hp
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
from bot.services.fights.destiny import merge_rows, offer_lines
from bot.services.fights.kit import (
    RANGED_KINDS,
    Recruit,
    action_reply,
    actor,
    await_defence,
    check_line,
    generic_action,
    parse_option_tokens,
    pass_turn,
    pick_arm,
    set_dead,
    settle,
    situation_tokens,
    spend,
)
from bot.services.fights.roster import _list
from bot.services.fights.rounds import (
    _pass_turn,
    _settle_turn,
    close_open_round,
    named_entries,
    round_outcome,
    start_system_round,
)
from bot.services.fights.systems import ogl_area, ogl_ledger, ogl_wounds
from bot.services.house_rules import table_in_force
from bot.ui.reply import Colour, Reply

SYSTEM: Final = "ogl"
FUMBLES: Final = "ogl_fumbles"
REQUIRED: Final = ("STR", "CON", "SIZ", "DEX", "POW")
OPTIONS: Final[dict[str, dict[str, str]]] = {
    "majeure": {"strict": "below", "below": "below", "au_plus": "at_most", "at_most": "at_most"}
}
SIMPLE: Final = ("viser", "recharger", "prendre_objet", "se_relever", "desengagement", "se_positionner")


def parse_options(text: str | None) -> dict[str, Any]:
    chosen = {"majeure": "below", **parse_option_tokens(text, OPTIONS)}
    return {"ogl_majeure": chosen["majeure"]}


def options_line(scope: Scope, options: Mapping[str, Any]) -> str:
    return scope.t("combat.ogl.options", major=scope.t(f"combat.ogl.option.{options['ogl_majeure']}"))


def parse_armour(text: str | None) -> dict[str, int]:
    out: dict[str, int] = {}
    for part in (text or "").replace(",", " ").split():
        key, sep, value = part.partition(":")
        if not sep:
            key, value = "tout", part
        key = fold(key)
        if not (is_digits(value, 2) and int(value) <= 30):
            raise FightRefusal(
                "combat.sys.error.bad_armour",
                text=part[:30],
                zones="tout, " + ", ".join(ogl_wounds.LOCATIONS),
            )
        if key in ("tout", "all"):
            out.update({loc: int(value) for loc in ogl_wounds.LOCATIONS})
        elif key in ogl_wounds.LOCATIONS:
            out[key] = int(value)
        else:
            raise FightRefusal(
                "combat.sys.error.bad_armour",
                text=part[:30],
                zones="tout, " + ", ".join(ogl_wounds.LOCATIONS),
            )
    return out


def build(scope: Scope, doc: Doc, r: Recruit) -> tuple[Combatant, dict[str, Any]]:
    stats = r.stats(REQUIRED, ("PV", "PVmax"))
    for loc, hp in location_hp(stats).items():  # the GM's per-location HP, else the suggestion
        stats[f"HP.{loc}"] = hp
    stats["A"] = int(r.skills.pop("ca", 1))
    stats["RA"] = int(r.skills.pop("ra", 0))
    heroes = int(r.skills.pop("ph", 0))
    combatant = r.combatant(stats)
    meta = {"arms": r.arms, "armour": parse_armour(r.armour), "skills": r.skills, "hero_points": heroes}
    return combatant, meta


def profile_line(scope: Scope, doc: Doc, c: Combatant) -> str:
    meta = doc.meta.get(c.id, {})
    ch = c.characteristics
    arms = ", ".join(
        f"{a['name']} {a.get('dice') or '?'} {a.get('score') or '?'}%" for a in meta.get("arms") or []
    )
    hp = " · ".join(f"{scope.t(f'characters.loc.{loc}')} {ch[f'HP.{loc}']}" for loc in ogl_wounds.LOCATIONS)
    return (
        f"**{c.name}** — STR {ch['STR']} · CON {ch['CON']} · SIZ {ch['SIZ']} · DEX {ch['DEX']} — {arms}\n{hp}"
    )


def tracker_lines(scope: Scope, doc: Doc, c: Combatant) -> tuple[str, ...]:
    parts = []
    for loc in ogl_wounds.LOCATIONS:
        maximum = int(c.characteristics.get(f"HP.{loc}", 0))
        current = rules.location_hp(c, loc)
        mark = "" if current == maximum else "**"
        parts.append(f"{scope.t(f'characters.loc.{loc}')} {mark}{current}/{maximum}{mark}")
    lines = [" · ".join(parts)]
    ledger = (doc.data.get("ogl") or {}).get("reactions", {}).get(c.id)
    if ledger:
        lines.append(
            scope.t("combat.ogl.tracker.reactions", used=ledger["used"], total=ledger["combat_actions"])
        )
    lines.extend(ogl_ledger.tracker_bits(scope, doc, c))
    return tuple(lines)


def on_slot(scope: Scope, doc: Doc) -> list[str]:
    """The shared machinery's hook when the current slot changes: combat actions lost."""
    return ogl_ledger.on_slot(scope, doc)


def correct_pool(scope: Scope, doc: Doc, c: Combatant, key: str, value: int) -> tuple[str, int] | None:
    loc = fold(key).removeprefix("hp.")
    if loc not in ogl_wounds.LOCATIONS:
        return None
    from bot.rules.combat.common import set_pool_loss

    before = rules.location_hp(c, loc)
    doc.state = doc.state.put(
        set_pool_loss(c, SYSTEM, f"HP.{loc}", int(c.characteristics[f"HP.{loc}"]) - value)
    )
    return f"HP.{loc}", before


def due_test(
    scope: Scope, doc: Doc, c: Combatant, prompt: Mapping[str, Any], roll: int | None
) -> FightOutcome:
    skills = doc.meta.get(c.id, {}).get("skills") or {}
    decides = str(prompt.get("decides", "unconscious"))
    if decides == "wall":
        return _wall(scope, doc, c, prompt, roll)
    if decides == "prone":  # after a knockback: Acrobatie (reading: else DEX × 5, as CON × 5)
        score = int(skills.get("acrobatie", skills.get("acrobaties", c.stat("DEX") * 5)))
        check = rules.acrobatics_test(score, rng=scope.rng, roll=d100_or_none(roll))
    else:
        score = int(skills.get("endurance", c.stat("CON") * 5))
        check = rules.endurance_test(score, rng=scope.rng, roll=d100_or_none(roll))
    ogl_ledger.remember_test(doc, c.id, check, decides, doc.state.get(c.id).to_dict())
    lines = [
        scope.t(f"combat.ogl.test.{decides}", name=c.name) + " : " + check_line(scope.words, check, " %")
    ]
    if not check.success:
        if decides == "prone":
            victim = doc.state.get(c.id)
            if not victim.has("prone"):
                fall = Condition("prone", "ogl.knockback", until="stands_up")
                doc.state = doc.state.put(replace(victim, conditions=(*victim.conditions, fall)))
            lines.append(scope.t("combat.ogl.knocked_down", name=c.name))
        elif decides == "death":
            set_dead(doc, c.id, "ogl.endurance")
            lines.append(scope.t("combat.effect.dead", name=c.name))
        else:
            victim = doc.state.get(c.id)
            knocked_out = Condition("unconscious", "ogl.endurance", until="treated")
            doc.state = doc.state.put(victim.with_conditions(knocked_out))
            lines.append(scope.t("combat.ogl.unconscious", name=c.name))
    payload = {"fight_id": doc.row.id, "prompt": dict(prompt), "check": check.to_dict()}
    new_event(scope, doc, "due_test", c.id, payload)
    doc.save()
    return outcome(
        scope,
        doc,
        Reply(description="\n".join(lines), colour=Colour.NEUTRAL, kind="combat.test", result=payload),
    )


def _wall(scope: Scope, doc: Doc, c: Combatant, prompt: Mapping[str, Any], roll: int | None) -> FightOutcome:
    """A knockback against a wall (line 35): the Esquive test (reading: without the skill, DEX × 5,
    as the Acrobatie test), else 1d4 damage at a location read on the hit-location table, armour
    counted (reading: « dégâts localisés » are a location's damage like any other)."""
    skills = doc.meta.get(c.id, {}).get("skills") or {}
    dice = [int(x) for x in prompt.get("dice") or ()]
    impact = rules.wall_impact(
        int(skills.get("esquive", c.stat("DEX") * 5)),
        prompt.get("bands") or scope.ctx.tables[ogl_wounds.HIT_TABLE].document["entries"],
        rng=scope.rng,
        roll=d100_or_none(roll),
        damage_die=dice[0] if dice else None,
        location_roll=dice[1] if len(dice) > 1 else None,
    )
    ogl_ledger.remember_test(doc, c.id, impact.check, "wall", doc.state.get(c.id).to_dict())
    lines = [
        scope.t("combat.ogl.test.wall", name=c.name) + " : " + check_line(scope.words, impact.check, " %")
    ]
    if impact.location is not None and impact.damage is not None:
        lines.append(ogl_wounds.location_line(scope, impact.location.to_dict()))
        lines.append(scope.t("combat.ogl.wall_damage", name=c.name, damage=impact.damage))
        more, _ = ogl_wounds.apply_location_damage(
            scope, doc, doc.state.get(c.id), impact.location.location, impact.damage, None
        )
        lines.extend(more)
    else:
        lines.append(scope.t("combat.ogl.wall_dodged", name=c.name))
    payload = {"fight_id": doc.row.id, "prompt": dict(prompt), "wall": impact.to_dict()}
    new_event(scope, doc, "due_test", c.id, payload)
    doc.save()
    reply = Reply(description="\n".join(lines), colour=Colour.NEUTRAL, kind="combat.test", result=payload)
    return outcome(scope, doc, reply)


async def new_round(scope: Scope, doc: Doc, dice: str | None) -> FightOutcome:
    notes = ogl_ledger.close_slot(scope, doc)
    notes.extend(close_open_round(scope, doc))
    given: dict[str, tuple[int, bool]] = {}
    for name, text in named_entries(dice, "combat.ogl.error.rank_format"):
        words = text.split()
        if not words or not is_int(words[0]):
            raise FightRefusal("combat.ogl.error.rank_format")
        surprised = any(fold(x) in ("surpris", "surprised") for x in words[1:])
        given[doc.find(name).id] = (parse_int(words[0], option="dice", lo=0, hi=999), surprised)
    number = doc.state.round + 1
    ranks = []
    lines = []
    for c in doc.state.combatants:
        if c.has("dead"):
            continue
        die, surprised = given.get(c.id, (None, False))
        rank = rules.roll_action_rank(
            c.id,
            c.stat("RA"),
            c.stat("DEX"),
            surprised=surprised,
            round_number=number,
            rng=scope.rng,
            roll=die,
        )
        ranks.append((c, rank))
        lines.append(f"**{c.name}** : " + scope.words.terms(rank.terms, rank.rank))
    timings = [
        Timing(c.id, k, rank.rank, (rank.dex,)) for c, rank in ranks for k in range(1, max(1, c.attacks) + 1)
    ]
    order = tuple(sorted(ordered_slots(timings), key=lambda s: s.k))
    together = rules.rank_order(r for _, r in ranks).simultaneous
    start_system_round(
        doc,
        order,
        "ogl",
        {
            "reactions": {c.id: rules.ReactionLedger(max(1, c.attacks)).to_dict() for c, _ in ranks},
            "surprised": {c.id: r.rank for c, r in ranks if given.get(c.id, (0, False))[1] and number == 1},
        },
    )
    for group in together:
        lines.append(
            scope.t("combat.ogl.simultaneous", names=", ".join(doc.state.get(x).name for x in group))
        )
    notes.extend(settle(scope, doc))
    new_event(scope, doc, "round", None, {"ranks": [r.to_dict() for _, r in ranks]})
    doc.save()
    return round_outcome(scope, doc, lines, notes, [r.to_dict() for _, r in ranks])


OWN_ACTIONS: Final = ("viser", "en_defense", "attendre")
ACTION_WORDS: Final[dict[str, str]] = {
    "viser": "viser",
    "aim": "viser",
    "en_defense": "en_defense",
    "defense": "en_defense",
    "defensive": "en_defense",
    "attendre": "attendre",
    "wait": "attendre",
    "interrompre": "interrompre",
    "interrupt": "interrompre",
}


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
    c = actor(scope, doc, who)
    ogl_ledger.require_free(scope, doc, c)
    own = ACTION_WORDS.get(fold(action).replace(" ", "_"))
    if own is None:
        c, notes = generic_action(scope, doc, action, who, SIMPLE)
        ogl_ledger.drop_aim(doc, c.id)
        return action_reply(scope, doc, c, action, [*ogl_ledger.end_defensive(scope, doc, c), *notes])
    foe = doc.find(target) if target else None
    if foe is not None and foe.id == c.id:
        raise FightRefusal("combat.error.self_attack")
    if own == "interrompre":
        if foe is None:
            raise FightRefusal("combat.ogl.error.wait_needs_target")
        lines = ogl_ledger.interrupt(
            scope,
            doc,
            c,
            foe,
            _first_score(doc, c),
            _first_score(doc, foe),
            d100_or_none(roll),
            d100_or_none(target_roll),
        )
        lines.extend(_settle_turn(scope, doc))
        return action_reply(scope, doc, c, own, lines)
    if own == "attendre":
        if foe is None:
            raise FightRefusal("combat.ogl.error.wait_needs_target")
        ogl_ledger.drop_aim(doc, c.id)
        lines = ogl_ledger.wait_for(scope, doc, c, foe)
        lines.extend(_settle_turn(scope, doc))
        return action_reply(scope, doc, c, own, lines)
    spend(scope, doc, c, "action_speciale")
    ending = ogl_ledger.end_defensive(scope, doc, c)
    if own == "viser":
        lines = ogl_ledger.aim(scope, doc, c, foe)
    else:
        ogl_ledger.drop_aim(doc, c.id)
        lines = ogl_ledger.go_defensive(scope, doc, c)
    lines.extend(_pass_turn(scope, doc))  # the reply adds whose turn it is
    return action_reply(scope, doc, c, own, [*ending, *lines])


def _first_score(doc: Doc, c: Combatant) -> int:
    """The skill of the fighter's first weapon: the interrupting action's test (reading: an attack)."""
    arms = doc.meta.get(c.id, {}).get("arms") or []
    for arm in arms:
        if arm.get("score") is not None:
            return int(arm["score"])
    raise FightRefusal("combat.sys.error.no_score", name=c.name, weapon=str(arms[0]["name"]) if arms else "?")


def _score(doc: Doc, c: Combatant, arm: Mapping[str, Any]) -> int:
    if arm.get("score") is not None:
        return int(arm["score"])
    skills = doc.meta.get(c.id, {}).get("skills") or {}
    if fold(str(arm["name"])) in skills:
        return int(skills[fold(str(arm["name"]))])
    raise FightRefusal("combat.sys.error.no_score", name=c.name, weapon=str(arm["name"]))


SPECIAL_WORDS: Final[dict[str, str]] = {
    "charge": "charge",
    "charger": "charge",
    "nuee": "flurry",
    "nuee_de_coups": "flurry",
    "flurry": "flurry",
}


def _specials(text: str | None) -> tuple[rules.Precise | None, bool, bool]:
    """``speciale:`` — a precise attack, ``charge``, ``nuee`` (Nuée de Coups), comma-separated."""
    precise: rules.Precise | None = None
    charge = flurry = False
    for word, _ in situation_tokens(text):
        kind = SPECIAL_WORDS.get(word)
        if kind == "charge":
            charge = True
        elif kind == "flurry":
            flurry = True
        elif word in {p.value for p in rules.Precise}:
            precise = rules.Precise(word)
        else:
            accepted = ", ".join([*(p.value for p in rules.Precise), "charge", "nuee"])
            raise FightRefusal("combat.sys.error.bad_special", text=word[:30], accepted=accepted)
    if precise is not None and (charge or flurry):  # line 15
        raise RefusedError(Refusal("combat.ogl.refusal.precise_not_in_charge_or_flurry"))
    return precise, charge, flurry


WALL_WORDS: Final = frozenset({"mur", "contre_un_mur", "wall"})


def _wall_words(text: str | None) -> tuple[bool, str | None]:
    """``situation:mur`` (the victim stands against a wall or something solid, line 35): not a
    modifier, kept out of the attack's situations."""
    tokens = _list(text)
    kept = [t for t in tokens if fold(t).replace(" ", "_").replace("'", "_") not in WALL_WORDS]
    return len(kept) != len(tokens), ", ".join(kept) or None


def situation_modifiers(
    text: str | None, side: rules.Side, reaction: rules.Reaction | None = None
) -> list[Modifier]:
    """``situation:`` of the attack (the attacker's test) or of the defence (the defender's)."""
    try:
        return list(rules.situational((k for k, _ in situation_tokens(text)), side=side, reaction=reaction))
    except (KeyError, ValueError):
        raise FightRefusal(
            f"combat.ogl.error.bad_situation.{side.value}",
            text=(text or "")[:30],
            accepted=", ".join(rules.situation_ids(side, reaction)),
        ) from None


async def attack(
    scope: Scope,
    doc: Doc,
    data: AttackInput,
    *,
    free: bool = False,
    extra: Sequence[Modifier] = (),
    tag: str | None = None,
    head: Sequence[str] = (),
) -> FightOutcome:
    """``free``: an attack outside one's slot (a counter-attack, the off hand's extra attack)."""
    w = scope.words
    c = actor(scope, doc, data.attacker)
    foe = doc.find(data.target)
    if foe.id == c.id:
        raise FightRefusal("combat.error.self_attack")
    if foe.has("dead"):
        raise FightRefusal("combat.error.target_dead", name=foe.name)
    arm = pick_arm(doc, c, data.weapon)
    if not arm.get("dice"):
        raise FightRefusal("combat.ogl.error.no_dice", weapon=str(arm["name"]))
    score = _score(doc, c, arm)
    asked_location = ogl_wounds.location_request(data.location)
    precise, charge, flurry = _specials(data.special)
    ranged = arm["kind"] in RANGED_KINDS
    if charge and ranged:  # line 6: « une Attaque au Corps à Corps peut être portée »
        raise FightRefusal("combat.ogl.error.charge_is_melee", weapon=str(arm["name"]))
    wall, situation = _wall_words(data.situation)
    mods = situation_modifiers(situation, rules.Side.ATTACK)
    if not free:
        ogl_ledger.require_free(scope, doc, c)
    disabled = rules.disabled_locations(c.conditions)
    if disabled:  # lines 33-35: what a useless limb forbids or costs
        arms = [a for a in doc.meta.get(c.id, {}).get("arms") or [] if a["kind"] != "bare"]
        index = next((i for i, a in enumerate(arms) if a["id"] == arm["id"]), 0)
        refusal = rules.arm_refusal(
            disabled,
            index,
            two_handed="two_handed" in (arm.get("flags") or []),
            natural=arm["kind"] == "bare" or "natural" in (arm.get("flags") or []),
        )
        if refusal is not None:
            raise RefusedError(refusal)
        mods.extend(rules.limb_modifiers(disabled, "weapon"))
    mods.extend(ogl_ledger.attack_modifiers(doc, c, foe, arm))
    mods.extend(extra)
    flurry = flurry or ogl_ledger.in_flurry(doc, c.id)
    if flurry and precise is not None:
        raise RefusedError(Refusal("combat.ogl.refusal.precise_not_in_charge_or_flurry"))
    if flurry:  # line 6: « un malus de -20% sur les compétences d'Arme des coups donnés »
        mods.append(term(SYSTEM, "flurry", rules.FLURRY_MALUS))
    aim = ogl_ledger.take_aim(doc, c.id, foe.id) if ranged else None
    ogl_ledger.drop_aim(doc, c.id)
    if aim:
        mods.append(rules.aim_bonus(aim))
    if not free:
        spend(scope, doc, c, "attaquer")
        head = [*head, *ogl_ledger.end_defensive(scope, doc, c)]
    flurry_lines = ogl_ledger.start_flurry(scope, doc, c) if flurry and not free else []
    if precise is not None:
        mods.append(term(SYSTEM, f"precise.{precise.value}", rules.PRECISE_MALUS))
    check = ogl_checks.check(
        score, mods, rng=scope.rng, roll=d100_or_none(data.roll), base_label="combat.ogl.weapon"
    )
    hand = {
        "damage": parse_dice(data.damage, option="damage", sides=100, limit=10),
        "effects": parse_dice(data.effects, option="effects", sides=20, limit=10),
    }
    seq = new_event(
        scope, doc, "attack", c.id, {"target": foe.id, "check": check.to_dict(), "weapon": arm, "tag": tag}
    )
    scope.rolls.append(
        RollNote("combat.attack", "1d100", check.roll, {"fight_id": doc.row.id, "check": check.to_dict()})
    )
    lines = [
        *head,
        *([w.t("combat.ogl.charge_line", name=c.name, target=foe.name)] if charge else []),
        w.t("combat.ogl.attack_line", weapon=arm["name"]) + " : " + check_line(w, check, " %"),
        *flurry_lines,
    ]
    # a location named stands; else the d20 on the hit-location table, read only when the blow may land
    location, rolled = (
        await ogl_wounds.hit_location(scope, asked_location)
        if check.success or isinstance(asked_location, str)
        else ("", None)
    )
    if rolled is not None:
        lines.append(ogl_wounds.location_line(scope, rolled))
    payload = {"tag": tag, **attack_payload(doc, seq, c.id, foe.id, {"check": check.to_dict()})}
    pending = pending_defence(
        scope,
        doc,
        seq,
        c.id,
        foe.id,
        weapon=arm,
        score=score,
        mods=[m.to_dict() for m in mods if not m.label.startswith("combat.ogl.precise.")],
        precise=precise.value if precise else None,
        attack_roll=check.roll,
        location=location,
        ranged=ranged,
        rank=int(doc.state.current_slot.value) if doc.state.current_slot else 0,
        hand=hand,
        tag=tag,
        charge=charge,
        wall=wall,
        wall_bands=(await table_in_force(scope.session, scope.ctx, scope.guild_id, ogl_wounds.HIT_TABLE))[
            "entries"
        ]
        if wall
        else None,
    )
    buttons: tuple[Any, ...] = ()
    if not check.success or foe.has("unconscious"):
        lines.extend(await resolve(scope, doc, pending, "encaisser", DefenceRolls(), payload))
    else:
        # an NPC in « defense_pnj » answers now; else only the legal buttons (see _reaction_setup)
        waited, buttons = await await_defence(scope, doc, pending, payload, resolve)
        lines.extend(waited)
    if not free:
        lines.extend(pass_turn(scope, doc))
    offered, hero_rows = await offer_lines(scope, doc)  # a PC's major wound: his Éraflure
    lines.extend(offered)
    buttons = merge_rows(hero_rows, buttons)
    doc.save()
    reply = Reply(
        title=f"⚔️ {c.name} → {foe.name} ({arm['name']})",
        description="\n".join(lines)[:4000],
        colour=Colour.NEUTRAL,
        buttons=buttons,
        result=payload,
        kind="combat.attack",
    )
    return outcome(scope, doc, reply)


def _reaction_setup(
    doc: Doc,
    scope: Scope,
    pending: Mapping[str, Any],
    reaction: rules.Reaction,
    situation: str | None,
    *,
    dry: bool,
) -> tuple[int, list[Modifier], bool]:
    """The reaction's score and modifiers, the reaction spent (``dry``: only checked, nothing
    spent); refused as the rules refuse it now (no reaction left, aiming, out of combat …)."""
    attacker = doc.state.get(str(pending["attacker"]))
    defender = doc.state.get(str(pending["defender"]))
    ogl_ledger.require_not_aiming(doc, defender)
    trigger = rules.Trigger.RANGED_ATTACK if pending.get("ranged") else rules.Trigger.MELEE_ATTACK
    rank = int(float(pending.get("rank") or 0))
    event = str(pending["seq"])
    off_hand = ogl_ledger.take_reaction(scope, doc, defender, reaction, trigger, event, rank, dry=dry)
    score = (
        ogl_ledger.off_hand_score(doc, defender)
        if off_hand
        else ogl_wounds.defence_score(doc, defender, reaction)
    )
    mods = ogl_ledger.defence_modifiers(doc, defender, attacker, reaction, ranged=bool(pending.get("ranged")))
    mods.extend(ogl_ledger.stance_modifiers(doc, defender, reaction))
    test = "dodge" if reaction in (rules.Reaction.DODGE, rules.Reaction.DIVE) else "weapon"
    mods.extend(rules.limb_modifiers(rules.disabled_locations(defender.conditions), test))
    mods.extend(situation_modifiers(situation, rules.Side.DEFENCE, reaction))
    return score, mods, off_hand


async def defence_chances(scope: Scope, doc: Doc, pending: Mapping[str, Any]) -> dict[str, int]:
    """The parry and the dodge the rules allow now (a reaction left this round, not aiming, no
    parry against a missile, a score for it), each with its target (a d100's %: En Défense's +20 %,
    a useless limb's malus … counted). An area effect's dive is answered by hand."""
    out: dict[str, int] = {}
    if not pending.get("area"):
        for choice, reaction in (("parer", rules.Reaction.PARRY), ("esquiver", rules.Reaction.DODGE)):
            try:
                score, mods, _ = _reaction_setup(doc, scope, pending, reaction, None, dry=True)
            except (FightRefusal, RefusedError):
                continue
            melee = rules.resolve_attack(
                int(pending["score"]),
                score,
                reaction=reaction,
                ranged=bool(pending.get("ranged")),
                attack_modifiers=[
                    Modifier(str(m["label"]), int(m["value"])) for m in pending.get("mods", [])
                ],
                defence_modifiers=mods,
                attack_roll=int(pending["attack_roll"]),
                defence_roll=100,
            )
            if not isinstance(melee, Refusal) and melee.defence is not None:
                out[choice] = max(0, min(100, melee.defence.target))
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
    if pending.get("area"):  # an area effect: dive or take it
        return ogl_area.resolve_area(scope, doc, pending, choice, rolls, payload)
    w = scope.words
    attacker = doc.state.get(str(pending["attacker"]))
    defender = doc.state.get(str(pending["defender"]))
    reaction = {
        "parer": rules.Reaction.PARRY,
        "esquiver": rules.Reaction.DODGE,
        "plonger": rules.Reaction.DIVE,
    }.get(choice)
    if choice not in ("parer", "esquiver", "encaisser", "plonger"):
        raise FightRefusal("combat.error.bad_choice")
    score = None
    defence_mods: list[Modifier] = []
    snapshot = defender.to_dict()
    prompts_before = {int(p["id"]) for p in doc.prompts}
    lines: list[str] = []
    if reaction is not None:
        score, defence_mods, off_hand = _reaction_setup(
            doc, scope, pending, reaction, rolls.situation, dry=False
        )
        if off_hand:
            payload["off_hand_parry"] = True
            lines.append(w.t("manoeuvre.two.parry_used", name=defender.name))
    melee = rules.resolve_attack(
        int(pending["score"]),
        score,
        reaction=reaction,
        precise=rules.Precise(pending["precise"]) if pending.get("precise") else None,
        ranged=bool(pending.get("ranged")),
        target_out_of_combat=defender.has("unconscious"),
        attack_modifiers=[Modifier(str(m["label"]), int(m["value"])) for m in pending.get("mods", [])],
        defence_modifiers=defence_mods,
        rng=scope.rng,
        attack_roll=int(pending["attack_roll"]),
        defence_roll=d100_or_none(rolls.roll),
    )
    if isinstance(melee, Refusal):
        raise RefusedError(melee)
    payload["exchange"] = melee.to_dict()
    payload["outcome"] = melee.outcome.value
    if melee.defence is not None and reaction is not None:
        lines.append(
            w.t(f"combat.ogl.reaction.{reaction.value}", name=defender.name)
            + " : "
            + check_line(w, melee.defence, " %")
        )
    if melee.diminished is not None:
        who = attacker if melee.diminished.side == "attack" else defender
        lines.append(
            w.t(
                "combat.ogl.diminished",
                name=who.name,
                before=w.t(f"combat.ogl.level.{melee.diminished.before}"),
                after=w.t(f"combat.ogl.level.{melee.diminished.after}"),
            )
        )
    elif choice == "encaisser" and melee.attack.success:
        lines.append(w.t("combat.defence.takes", name=defender.name))
    lines.append(
        w.t(f"combat.ogl.outcome.{melee.outcome.value}", attacker=attacker.name, defender=defender.name)
    )
    if melee.fumble_attacker:
        dice = list((pending.get("hand") or {}).get("effects") or [])
        lines.extend(await _fumble(scope, attacker, pending["weapon"], dice, payload))
        lines.extend(ogl_ledger.fumble_losses(scope, doc, attacker.id, payload["fumbles"][-1]))
    if melee.fumble_defender:
        arms = [a for a in doc.meta.get(defender.id, {}).get("arms") or [] if a["kind"] not in RANGED_KINDS]
        dice = parse_dice(rolls.tests, option="tests", sides=20, limit=10)
        lines.extend(await _fumble(scope, defender, arms[0] if arms else None, dice, payload))
        lines.extend(ogl_ledger.fumble_losses(scope, doc, defender.id, payload["fumbles"][-1]))
    if reaction is not None:
        lines.extend(ogl_ledger.after_reaction(scope, doc, defender, reaction))
    if melee.outcome is rules.Outcome.HIT:
        lines.extend(
            ogl_wounds.wound(
                scope, doc, pending, payload, critical=melee.critical, ignore_armour=melee.ignore_armour
            )
        )
    ogl_ledger.remember_exchange(
        doc,
        pending,
        melee,
        defence_score=score,
        defence_mods=defence_mods,
        snapshot=snapshot,
        prompts=[int(p["id"]) for p in doc.prompts if int(p["id"]) not in prompts_before],
    )
    new_event(scope, doc, "hit" if melee.outcome is rules.Outcome.HIT else "defence", defender.id, payload)
    return lines


async def _fumble(
    scope: Scope, c: Combatant, arm: Mapping[str, Any] | None, dice: list[int], payload: dict[str, Any]
) -> list[str]:
    """The fumble table of the weapon (natural weapons: theirs), 1d20 by hand (``effets`` for the
    attacker, ``tests`` for the defender); "roll again" adds rolls; faces the seed does not print
    (``missing`` / ``partial`` in ``data/ogl_fumbles.json``) go to the GM."""
    document = await table_in_force(scope.session, scope.ctx, scope.guild_id, FUMBLES)
    natural = arm is not None and (arm["kind"] == "bare" or "natural" in (arm.get("flags") or []))
    table = "natural_weapon" if natural else "weapon"
    fumble = rules.roll_fumble(rules.FumbleTables.from_document(document), table, rng=scope.rng, rolls=dice)
    payload.setdefault("fumbles", []).append({"combatant": c.id, **fumble.to_dict()})
    lang = "en" if str(scope.caller.locale).startswith("en") else "fr"
    titles = {str(t["id"]): t.get("name") or {} for t in document.get("tables", ())}
    narration = {str(e["id"]): e.get("narration") or {} for e in document["entries"]}
    lines = [scope.t("combat.ogl.fumble", name=c.name, table=titles.get(table, {}).get(lang, table))]
    for roll, face in zip(fumble.rolls, fumble.faces, strict=True):
        text = str(narration.get(face.id, {}).get(lang, ""))
        if face.gm_decides:
            lines.append("• " + scope.t("combat.ogl.fumble_gm", roll=roll, text=text))
        else:
            name = (face.name or {}).get(lang, face.id)
            lines.append("• " + scope.t("combat.ogl.fumble_face", roll=roll, name=name, text=text))
        scope.rolls.append(RollNote("combat.fumble", "1d20", roll, {"fumble": face.id}))
    if fumble.capped:
        lines.append(scope.t("combat.ogl.fumble_capped", n=rules.ROLL_AGAIN_CAP))
    return lines
