"""`d20` fights (seed 003, "Procédures générales") on the shared fight machinery of
:mod:`bot.services.fights`; the rules are :mod:`bot.rules.d20.combat`.

* ``/combat round des:"Albert: 15; Orc: 12"`` — the order of the round (hand-entered values;
  reading: the seed gives no initiative roll, so without a value the AGI score orders them).
* An attack is rolled at once (d20 ≤ score, MR = score − roll); the defender then parries, dodges
  or takes it, and the two rolls are compared by the seed's four cases: damage index, the
  attacker's malus on his next action and the initiative to the defender, blocked, nothing.
  ``speciale:feinte`` (−5, opponent −10) and ``speciale:botte`` (opponent −15).
* A hit: edged weapons → penetration weapon + MR + BF against the armour layers' RP, shock half of
  it against RC; blunt → penetration weapon + MR + BF/2, shock weapon + MR + BF + 1d20 (``degats``);
  brawl (``mains_nues``) → shock by location (``localisation:tete|buste|membre``). The shock that
  gets through is lost from PC (PC = CON × 2, beyond them from PV); the damage index is read from a
  server table ``d20_damage_by_location`` when the server has one (uploaded with ``/regles
  importer``; a row's ``pv`` and ``pc`` are lost, its ``effect`` marks the victim), otherwise it is
  shown for the GM, who takes the PV off with ``/combat corriger champ:PV``. The burst, covering,
  artillery and gunnery fire of ``/tir`` is :mod:`bot.services.fights.systems.d20_fire` (hooks below).
* Fired weapons cannot be defended: the shot's MR band places it (≥ 10 aimed point, 5-9 a d6,
  0-4 a d20 around it, ``effets`` = that die) and a d20 + weapon (``degats``) gives the index;
  thrown weapons −15 and arrows −20 to the defence.

Readings: the weapon profile's number is the attack score (``Épée 14 +3 tranchant``), ``par=`` the
parry score (default: the attack score); the Esquive skill is the dodge score; BF comes from
``caracs`` (``BF:2``, default 0 — the seed names it without a table); a character's "Con" is CON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Final

from bot.context import AppContext
from bot.db.fight_models import Fight
from bot.i18n import language_of
from bot.rules.checks.common import Modifier
from bot.rules.combat.basics import Refusal, RefusedError
from bot.rules.combat.common import Timing, ordered_slots, roll_dice, set_pool_loss, term
from bot.rules.combat.effects import Condition
from bot.rules.combat.initiative import Slot
from bot.rules.combat.state import Combatant
from bot.rules.d20 import checks as d20_checks
from bot.rules.d20 import combat as rules
from bot.rules.grammar import is_digits, is_int, parse_int, parse_modifier
from bot.rules.sheets import fold
from bot.services.caller import Caller
from bot.services.fights._core import (
    DefenceRolls,
    Doc,
    FightOutcome,
    FightRefusal,
    RollNote,
    Scope,
    attack_payload,
    custom_id,
    new_event,
    outcome,
    parse_dice,
    pending_defence,
    require_gm,
    run,
)
from bot.services.fights.attacks import AttackInput
from bot.services.fights.kit import (
    BARE_HANDS,
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
    require_gm_for_free_modifier,
    set_dead,
    settle,
    situation_tokens,
    spend,
)
from bot.services.fights.roster import _list
from bot.services.fights.rounds import close_open_round, named_entries, round_outcome, start_system_round
from bot.services.house_rules import table_in_force
from bot.ui.reply import Colour, Reply, Select, SelectOption

SYSTEM: Final = "d20"
REQUIRED: Final = ("FOR", "CON", "AGI", "DEX")
SERVER_TABLE: Final = "d20_damage_by_location"
OPTIONS: Final[dict[str, dict[str, str]]] = {
    "malus": {"cumule": "combined", "separe": "separate"},
    # /tir artillerie, MR 0-4: a d20 on the distance table (reading) or the seed's printed d6
    "artillerie": {"d20": "d20", "d6": "printed", "imprime": "printed"},
    # critical successes with edged, thrown and fired weapons (lines 85, 105, 118): "au gré du MJ"
    "critique": {
        "seconde": "second_wound",
        "blessure": "second_wound",
        "second": "second_wound",
        "double": "double_pv",
    },
}
DEFAULTS: Final[dict[str, str]] = {"malus": "combined"}
SIMPLE: Final = ("recharger", "prendre_objet", "se_relever", "desengagement", "se_positionner", "viser")
BRAWL_LOCATIONS: Final[dict[str, rules.BrawlLocation]] = {
    "tete": rules.BrawlLocation.HEAD,
    "head": rules.BrawlLocation.HEAD,
    "buste": rules.BrawlLocation.TORSO,
    "torse": rules.BrawlLocation.TORSO,
    "corps": rules.BrawlLocation.TORSO,
    "torso": rules.BrawlLocation.TORSO,
    "membre": rules.BrawlLocation.LIMB,
    "bras": rules.BrawlLocation.LIMB,
    "jambe": rules.BrawlLocation.LIMB,
    "jambes": rules.BrawlLocation.LIMB,
    "limb": rules.BrawlLocation.LIMB,
}


def parse_options(text: str | None) -> dict[str, Any]:
    chosen = {**DEFAULTS, **parse_option_tokens(text, OPTIONS)}
    return {f"d20_{k}": v for k, v in chosen.items()}


def options_line(scope: Scope, options: Mapping[str, Any]) -> str:
    line = scope.t("combat.d20.options", malus=scope.t(f"combat.d20.option.{options['d20_malus']}"))
    if options.get("d20_artillerie") == "printed":
        line += " " + scope.t("fire.option.artillery_printed")
    if options.get("d20_critique"):
        line += " " + scope.t(f"combat.d20.option.critical.{options['d20_critique']}")
    return line


def _critical_mode(doc: Doc) -> rules.CriticalMode:
    return rules.CriticalMode((doc.data.get("options") or {}).get("d20_critique", "second_wound"))


def _combined(doc: Doc) -> bool:
    return bool((doc.data.get("options") or {}).get("d20_malus", "combined") == "combined")


def parse_armour(text: str | None) -> list[dict[str, Any]]:
    """``"Cuir 2/1/15, Maille 5/3/25"`` (outer layer first) → RP/RC/SR layers."""
    out: list[dict[str, Any]] = []
    for part in _list(text):
        words = part.split()
        extra: dict[str, int] = {}  # ``rdm=3`` (massive damage), ``pr=5`` (radiation), lines 152-157
        while words and fold(words[-1]).partition("=")[0] in ("rdm", "pr") and "=" in words[-1]:
            key, _, value = fold(words.pop()).partition("=")
            if not is_digits(value, 3):
                raise FightRefusal("combat.d20.error.bad_armour", text=part[:40])
            extra[key] = parse_int(value, option="armour", lo=0, hi=999)
        figures = words[-1].split("/") if words else []
        if len(words) < 2 or len(figures) != 3 or not all(is_digits(f, 3) for f in figures):
            raise FightRefusal("combat.d20.error.bad_armour", text=part[:40])
        rp, rc, sr = (parse_int(f, option="armour", lo=0, hi=999) for f in figures)
        out.append({"name": " ".join(words[:-1])[:30], "rp": rp, "rc": rc, "sr": sr, **extra})
    return out


def build(scope: Scope, doc: Doc, r: Recruit) -> tuple[Combatant, dict[str, Any]]:
    stats = r.stats(REQUIRED, ("PV", "PC", "PVmax", "PCmax"))
    stats["Con"] = stats["CON"]
    stats["BF"] = int(r.skills.pop("bf", 0))
    body_sr = r.skills.pop("sr", None)  # the body's SR (line 68: fractures), typed by the GM
    combatant = r.combatant(stats)
    values = r.values
    if "PV" in values and values["PV"] < rules.pv_max(stats["CON"]):
        combatant = set_pool_loss(combatant, SYSTEM, "PV", rules.pv_max(stats["CON"]) - values["PV"])
    if "PC" in values and values["PC"] < rules.pc_max(stats["CON"]):
        combatant = set_pool_loss(combatant, SYSTEM, "PC", rules.pc_max(stats["CON"]) - values["PC"])
    meta: dict[str, Any] = {"arms": r.arms, "armour": parse_armour(r.armour), "skills": r.skills}
    if body_sr is not None:
        meta["body_sr"] = int(body_sr)
    return combatant, meta


def profile_line(scope: Scope, doc: Doc, c: Combatant) -> str:
    meta = doc.meta.get(c.id, {})
    ch = c.characteristics
    skills = meta.get("skills") or {}
    arms = ", ".join(
        f"{a['name']} {a.get('score') or (skills.get('bagarre') if a['kind'] == 'bare' else None) or '?'}"
        for a in meta.get("arms") or [BARE_HANDS]
    )
    layers = ", ".join(f"{x['name']} {x['rp']}/{x['rc']}/{x['sr']}" for x in meta.get("armour") or [])
    line = (
        f"**{c.name}** — FOR {ch.get('FOR')} · CON {ch.get('CON')} · AGI {ch.get('AGI')}"
        f" · DEX {ch.get('DEX')}"
        f" · BF {ch.get('BF', 0)} · PV {rules.pv_max(ch['CON'])} · PC {rules.pc_max(ch['CON'])} — {arms}"
    )
    if layers:
        line += " — " + scope.t("combat.sys.armour", armour=layers)
    return line


def _health(doc: Doc, c: Combatant) -> rules.Health:
    h = rules.health_of(c)
    if _combined(doc):
        return h
    return rules.take_damage(h.con, pv_lost=h.pv_lost, pc_lost=h.pc_lost, combined=False)


def tracker_lines(scope: Scope, doc: Doc, c: Combatant) -> tuple[str, ...]:
    h = _health(doc, c)
    line = scope.t(
        "combat.d20.tracker.pools",
        pv=rules.pv_max(h.con) - h.pv_lost,
        pv_max=rules.pv_max(h.con),
        pc=rules.pc_max(h.con) - h.pc_lost,
        pc_max=rules.pc_max(h.con),
    )
    lines = [line + (f" · malus {h.malus}" if h.malus else "")]
    pending = (doc.data.get("d20") or {}).get("malus", {}).get(c.id)
    if pending:
        lines.append(scope.t("combat.d20.tracker.next_malus", n=pending))
    steps = [*rules.pv_recovery(h.pv_lost, h.con), *rules.pc_recovery(h.pc_lost)]
    if steps and not c.has("dead"):
        parts = [scope.t(f"combat.d20.recovery.{x.unit}", points=x.points, time=x.time) for x in steps]
        lines.append(scope.t("combat.d20.recovery", steps=" · ".join(parts)))
    return tuple(lines)


def correct_pool(scope: Scope, doc: Doc, c: Combatant, key: str, value: int) -> tuple[str, int] | None:
    pool = key.strip().upper()
    if pool not in ("PV", "PC"):
        return None
    h = rules.health_of(c)
    maximum = rules.pv_max(h.con) if pool == "PV" else rules.pc_max(h.con)
    before = maximum - (h.pv_lost if pool == "PV" else h.pc_lost)
    updated = set_pool_loss(c, SYSTEM, pool, max(0, maximum - value))
    doc.state = doc.state.put(updated)
    if rules.health_of(updated).dead:
        set_dead(doc, c.id, "d20.pv")
    return pool, before


def on_slot(scope: Scope, doc: Doc) -> list[str]:
    """Nothing to keep when the slot changes (the `ogl` adapter counts lost combat actions there)."""
    return []


def due_test(
    scope: Scope, doc: Doc, c: Combatant, prompt: Mapping[str, Any], roll: int | None
) -> FightOutcome:
    raise FightRefusal("combat.test.none", name=c.name)


async def new_round(scope: Scope, doc: Doc, dice: str | None) -> FightOutcome:
    notes = close_open_round(scope, doc)
    given: dict[str, int] = {}
    for name, text in named_entries(dice, "combat.d20.error.order_format"):
        if not is_int(text):
            raise FightRefusal("combat.d20.error.order_format")
        given[doc.find(name).id] = parse_int(text, option="dice", lo=-999, hi=999)
    timings = []
    lines = []
    for c in doc.state.combatants:
        if c.has("dead"):
            continue
        value = given.get(c.id, c.stat("AGI"))
        timings.append(Timing(c.id, 1, value, (c.stat("AGI"),)))
        lines.append(f"**{c.name}** : {value}" + ("" if c.id in given else " (AGI)"))
    malus = (doc.data.get("d20") or {}).get("malus", {})
    start_system_round(doc, ordered_slots(timings), "d20", {"malus": malus})
    notes.extend(settle(scope, doc))
    new_event(scope, doc, "round", None, {"order": [s.to_dict() for s in doc.state.order]})
    doc.save()
    initiative = [{"combatant": t.combatant, "value": t.value} for t in timings]
    return round_outcome(scope, doc, lines, notes, initiative)


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
    return action_reply(scope, doc, c, action, notes)


def _context(arm: Mapping[str, Any]) -> rules.Context:
    kind = str(arm["kind"])
    if kind == "bare":
        return rules.Context.BRAWL
    if kind == "fired":
        return rules.Context.FIRED
    if kind == "thrown":
        return rules.Context.THROWN
    if kind in ("arrow", "missile"):
        return rules.Context.ARROW
    return rules.Context.EDGED


def _score(doc: Doc, c: Combatant, arm: Mapping[str, Any]) -> int:
    if arm.get("score") is not None:
        return int(arm["score"])
    skills = doc.meta.get(c.id, {}).get("skills") or {}
    for key in (fold(str(arm["name"])), "bagarre" if arm["kind"] == "bare" else ""):
        if key and key in skills:
            return int(skills[key])
    raise FightRefusal("combat.sys.error.no_score", name=c.name, weapon=str(arm["name"]))


def _botte_score(doc: Doc, c: Combatant) -> int:
    """Line 92: the Botte skill (``caracs:"Botte:15"``, or one skill named « Botte … »)."""
    skills = doc.meta.get(c.id, {}).get("skills") or {}
    if "botte" in skills:
        return int(skills["botte"])
    named = [v for k, v in skills.items() if k.startswith("botte")]
    if len(named) == 1:
        return int(named[0])
    raise FightRefusal("combat.d20.error.no_botte", name=c.name)


def _malus_terms(doc: Doc, c: Combatant, *, consume: bool) -> list[Any]:
    items = []
    h = _health(doc, c)
    if h.malus:
        items.append(term(SYSTEM, "wound_malus", h.malus))
    store = doc.data.setdefault("d20", {}).setdefault("malus", {})
    pending = int(store.get(c.id, 0))
    if pending:
        items.append(term(SYSTEM, "previous_exchange", pending))
        if consume:
            store.pop(c.id, None)
    return items


def _manoeuvre(text: str | None) -> rules.Manoeuvre:
    if not text:
        return rules.Manoeuvre.NONE
    word = fold(text)
    if word in ("feinte", "feint", "feinter"):
        return rules.Manoeuvre.FEINT
    if word in ("botte", "bottes"):
        return rules.Manoeuvre.BOTTE
    raise FightRefusal("combat.sys.error.bad_special", text=text[:30], accepted="feinte, botte")


async def damage_table(scope: Scope) -> dict[int, Any] | None:
    """The server's damage-by-location table, when one is installed: ``entries`` of ``{"min": n, …}``."""
    if SERVER_TABLE not in scope.ctx.tables:
        return None
    document = await table_in_force(scope.session, scope.ctx, scope.guild_id, SERVER_TABLE)
    rows = {int(e["min"]): dict(e) for e in document.get("entries", ()) if "min" in e}
    return rows or None


async def attack(scope: Scope, doc: Doc, data: AttackInput) -> FightOutcome:
    w = scope.words
    c = actor(scope, doc, data.attacker)
    foe = doc.find(data.target)
    if foe.id == c.id:
        raise FightRefusal("combat.error.self_attack")
    if foe.has("dead"):
        raise FightRefusal("combat.error.target_dead", name=foe.name)
    arm = pick_arm(doc, c, data.weapon)
    context = _context(arm)
    manoeuvre = _manoeuvre(data.special)
    # line 92: a botte is a skill of its own, whatever the weapon's skill
    score = _botte_score(doc, c) if manoeuvre is rules.Manoeuvre.BOTTE else _score(doc, c, arm)
    brawl_zone = None
    if context is rules.Context.BRAWL:
        where = fold(data.location or data.zone or "")
        if where not in BRAWL_LOCATIONS:
            raise FightRefusal("combat.d20.error.brawl_location")
        brawl_zone = BRAWL_LOCATIONS[where].value
    require_gm_for_free_modifier(scope, data.situation)
    mods = _malus_terms(doc, c, consume=True)
    limb_only = False
    for key, value in situation_tokens(data.situation):
        if key in ("membre", "limb"):  # line 195: the GM admits that 1 or 2 DM hit a limb only
            limb_only = True
        elif key in rules.RANGED_MODIFIERS and context in (
            rules.Context.FIRED,
            rules.Context.THROWN,
            rules.Context.ARROW,
        ):
            mods.extend(rules.ranged_modifiers([key]))
        elif key == "mod" and value is not None:
            mods.append(term(SYSTEM, "gm_modifier", parse_modifier(value, option="situation")))
        else:
            raise FightRefusal(
                "combat.sys.error.bad_situation",
                text=key[:30],
                accepted=", ".join(rules.RANGED_MODIFIERS) + ", mod:±N",
            )
    spend(scope, doc, c, "attaquer")
    own = rules.MANOEUVRES[manoeuvre][0]
    preview = list(mods) + ([term(SYSTEM, manoeuvre.value, own)] if own else [])
    base = "combat.d20.botte_skill" if manoeuvre is rules.Manoeuvre.BOTTE else "combat.d20.attack"
    check = d20_checks.check(score, preview, rng=scope.rng, roll=data.roll, base_label=base)
    hand = {
        "damage": parse_dice(data.damage, option="damage", sides=20, limit=4),
        "effects": parse_dice(data.effects, option="effects", sides=20, limit=4),
    }
    seq = new_event(scope, doc, "attack", c.id, {"target": foe.id, "check": check.to_dict(), "weapon": arm})
    scope.rolls.append(
        RollNote(
            "combat.attack",
            "1d20",
            check.roll,
            {"fight_id": doc.row.id, "seq": seq, "check": check.to_dict()},
        )
    )
    lines = [w.t("combat.d20.attack_line", weapon=arm["name"]) + " : " + check_line(w, check)]
    payload = attack_payload(doc, seq, c.id, foe.id, {"check": check.to_dict()})
    pending = pending_defence(
        scope,
        doc,
        seq,
        c.id,
        foe.id,
        weapon=arm,
        score=score,
        mods=[m.to_dict() for m in mods],
        manoeuvre=manoeuvre.value,
        attack_roll=check.roll,
        brawl=brawl_zone,
        aimed=data.location or data.zone,
        hand=hand,
        limb_only=limb_only,
    )
    buttons: tuple[Any, ...] = ()
    if context is rules.Context.FIRED or foe.has("unconscious"):
        lines.extend(await resolve(scope, doc, pending, "encaisser", DefenceRolls(), payload))
    else:
        # an NPC in « defense_pnj » answers now; else only the legal buttons (see _melee)
        waited, buttons = await await_defence(scope, doc, pending, payload, resolve)
        lines.extend(waited)
    lines.extend(pass_turn(scope, doc))
    doc.save()
    reply = Reply(
        title=f"⚔️ {c.name} → {foe.name} ({arm['name']})",
        description="\n".join(lines)[:4000],
        colour=Colour.NEUTRAL,
        buttons=buttons,
        selects=reply_selects(scope, doc, payload),
        result=payload,
        kind="combat.attack",
    )
    return outcome(scope, doc, reply)


def _defence_score(doc: Doc, c: Combatant, choice: str) -> int:
    skills = doc.meta.get(c.id, {}).get("skills") or {}
    if choice == "esquiver":
        if "esquive" in skills:
            return int(skills["esquive"])
        raise FightRefusal("combat.sys.error.no_defence_score", name=c.name, what="Esquive")
    arms = [a for a in doc.meta.get(c.id, {}).get("arms") or [] if a["kind"] not in RANGED_KINDS]
    for arm in arms:
        if arm.get("parry") is not None:
            return int(arm["parry"])
        if arm.get("score") is not None:
            return int(arm["score"])
        if arm["kind"] == "bare" and "bagarre" in skills:  # line 46: a bare-handed parry is Bagarre
            return int(skills["bagarre"])
    if not arms and "bagarre" in skills:
        return int(skills["bagarre"])
    raise FightRefusal("combat.sys.error.no_defence_score", name=c.name, what="parade")


def act_next(doc: Doc, cid: str) -> None:
    """``cid`` acts next, before whoever was next (lines 31, 75: the defender takes the initiative;
    line 87: the attacker attacks again). The turn has passed when a defence is resolved, so the
    slot goes at the current position (after it when that slot has already acted). Readings: his
    next slot of the round moves there; with none left this round he gets one more slot there."""
    state = doc.state
    at = min(state.turn + (1 if doc.data.get("slot_done") else 0), len(state.order))
    order = list(state.order)
    if at < len(order) and order[at].combatant == cid:
        return
    later = [i for i in range(at, len(order)) if order[i].combatant == cid]
    if later:
        slot = order.pop(later[0])
    else:
        mine = [x for x in order if x.combatant == cid]
        value = order[at].value if at < len(order) else (order[-1].value if order else Fraction(0))
        slot = Slot(cid, len(mine) + 1, value)
        c = state.get(cid)
        if c.attacks_left() <= 0:  # the extra slot comes with the action it is for
            state = state.put(replace(c, actions=replace(c.actions, used=c.actions.used - 1)))
    order.insert(at, slot)
    doc.state = replace(state, order=tuple(order))


def _melee(
    doc: Doc,
    pending: Mapping[str, Any],
    choice: str,
    table: Mapping[int, Any] | None,
    roll: int | None,
    rng: Any,
    *,
    consume: bool,
) -> rules.Melee | Refusal:
    """The attack and ``choice``'s defence as the rules read them now (``consume``: the defender's
    malus of his next action is spent — only when it is really rolled). Raises when he has no
    score for it (no Esquive, no parry)."""
    defender = doc.state.get(str(pending["defender"]))
    context = _context(pending["weapon"])
    kind = {"parer": rules.DefenceKind.PARRY, "esquiver": rules.DefenceKind.DODGE}.get(choice)
    skills = doc.meta.get(defender.id, {}).get("skills") or {}
    special_skill = rules.SPECIALIST_SKILLS.get(context)
    specialist = kind is rules.DefenceKind.PARRY and special_skill is not None and special_skill in skills
    if specialist and special_skill is not None:  # line 107: Parer Flèche / Parer Projectile Lancé
        score: int | None = int(skills[special_skill])
    else:
        score = _defence_score(doc, defender, choice) if kind is not None else None
    defence_mods = _malus_terms(doc, defender, consume=consume) if kind is not None else []
    bare_defender = all(
        a["kind"] == "bare" for a in doc.meta.get(defender.id, {}).get("arms") or [BARE_HANDS]
    )
    return rules.resolve_melee(
        int(pending["score"]),
        score,
        context=context,
        defence_kind=kind,
        manoeuvre=rules.Manoeuvre(pending["manoeuvre"]),
        bare_hands_defender=bare_defender and context is not rules.Context.BRAWL,
        specialist=specialist,
        attack_modifiers=[Modifier(str(m["label"]), int(m["value"])) for m in pending.get("mods", [])],
        defence_modifiers=defence_mods,
        damage_table=table,
        rng=rng,
        attack_roll=int(pending["attack_roll"]),
        defence_roll=roll,
    )


async def defence_chances(scope: Scope, doc: Doc, pending: Mapping[str, Any]) -> dict[str, int]:
    """The parry and the dodge the rules allow now (a score for it, not bare hands against a blade,
    line 47), each with its chance: the defence's target on the d20, × 5 %."""
    out: dict[str, int] = {}
    if _context(pending["weapon"]) is not rules.Context.FIRED:  # line 120: impossible
        for choice in ("parer", "esquiver"):
            try:
                melee = _melee(doc, pending, choice, None, 20, None, consume=False)
            except FightRefusal:
                continue
            if isinstance(melee, rules.Melee) and melee.exchange.defence is not None:
                out[choice] = max(0, min(20, melee.exchange.defence.target)) * 5
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
    w = scope.words
    attacker = doc.state.get(str(pending["attacker"]))
    defender = doc.state.get(str(pending["defender"]))
    arm = pending["weapon"]
    context = _context(arm)
    if choice not in ("parer", "esquiver", "encaisser"):
        raise FightRefusal("combat.error.bad_choice")
    table = await damage_table(scope)
    melee = _melee(doc, pending, choice, table, rolls.roll, scope.rng, consume=True)
    if isinstance(melee, Refusal):
        raise RefusedError(melee)
    exchange = melee.exchange
    payload["exchange"] = exchange.to_dict()
    payload["case"] = exchange.case.value
    lines: list[str] = []
    if exchange.defence is not None:
        lines.append(
            w.t(
                f"combat.d20.defence.{melee.defence_kind.value if melee.defence_kind else 'parry'}",
                name=defender.name,
            )
            + " : "
            + check_line(w, exchange.defence)
        )
        scope.rolls.append(
            RollNote(
                "combat.defence",
                "1d20",
                exchange.defence.roll,
                {"fight_id": doc.row.id, **exchange.to_dict()},
            )
        )
    elif choice == "encaisser":
        lines.append(w.t("combat.defence.takes", name=defender.name))
    case = exchange.case.value
    if melee.attacker_again and exchange.case is rules.Case.ATTACKER_LOWER:
        case = "both_succeed_dodged"  # line 87: the dodger does not take the initiative
    if exchange.case is rules.Case.UNDEFENDED and context in RANGED_CONTEXTS:
        case = "undefended_missile"  # the index is the d20 + weapon of lines 102, 113, not the MR
    lines.append(w.t(f"combat.d20.case.{case}", attacker=attacker.name, defender=defender.name))
    store = doc.data.setdefault("d20", {}).setdefault("malus", {})
    if exchange.attacker_malus:
        store[attacker.id] = int(store.get(attacker.id, 0)) + exchange.attacker_malus
        lines.append(
            w.t(
                "combat.d20.malus", name=attacker.name, terms=w.terms(exchange.terms, exchange.attacker_malus)
            )
        )
    if melee.defender_next_action_malus:
        store[defender.id] = int(store.get(defender.id, 0)) + melee.defender_next_action_malus
    if exchange.initiative_to_defender:
        act_next(doc, defender.id)
        payload["acts_next"] = defender.id
        lines.append(w.t("combat.d20.initiative", name=defender.name))
    if melee.attacker_again:
        act_next(doc, attacker.id)
        payload["acts_next"] = attacker.id
        lines.append(w.t("combat.d20.dodged_blade", attacker=attacker.name, defender=defender.name))
    if melee.riposte:
        lines.append(w.t("combat.d20.riposte", name=defender.name))
    if not exchange.hit:
        new_event(scope, doc, "defence", defender.id, payload)
        return lines
    lines.extend(_blow(scope, doc, pending, exchange, payload, table))
    new_event(scope, doc, "hit", defender.id, payload)
    return lines


class _Feed:
    """Dice typed by hand (``degats``), handed out in order to whatever the blow needs."""

    def __init__(self, values: Any) -> None:
        self.values = [int(v) for v in values or ()]

    def take(self) -> int | None:
        return self.values.pop(0) if self.values else None

    def take_many(self, n: int) -> list[int]:
        out, self.values = self.values[:n], self.values[n:]
        return out


RANGED_CONTEXTS: Final = (rules.Context.THROWN, rules.Context.ARROW, rules.Context.FIRED)


def _random_part(scope: Scope, arm: Mapping[str, Any], feed: _Feed) -> tuple[int, int | None]:
    """A projectile's ``pen=12+1d6``: (fixed rate, the random part rolled or typed, or None)."""
    text = str(arm.get("pen") or "").lstrip("+")
    fixed, _, dice = text.partition("+")
    if "d" in fixed:
        fixed, dice = "", fixed
    rate = int(fixed) if fixed else 0
    if not dice:
        return rate, None
    count = int(dice.split("d")[0])
    rolled = roll_dice(dice, scope.rng, feed.take_many(count))
    return rate, rolled.total


def _missile(
    scope: Scope,
    context: rules.Context,
    arm: Mapping[str, Any],
    exchange: rules.Exchange,
    bf: int,
    aimed: str,
    feed: _Feed,
    zones: _Feed,
    payload: dict[str, Any],
) -> tuple[rules.Blow, list[str]]:
    """Thrown and fired weapons (lines 100-102, 109-116, 142-148): the attacker's MR band places the
    impact around the aimed point, a d20 + the weapon's modifiers is the damage index; thrown
    penetration is BF + the weapon's modifiers, a fired projectile's its rate + a random part, and
    the shock is the projectile's fixed shock rate."""
    w = scope.words
    bonus = int(arm.get("bonus") or 0)
    impact = rules.resolve_impact(
        exchange.attack,
        aimed,
        weapon_modifier=bonus,
        rng=scope.rng,
        zone_roll=zones.take(),
        damage_roll=feed.take(),
    )
    assert impact is not None  # a hit means the attack succeeded
    payload["impact"] = impact.to_dict()
    if impact.exact:
        lines = [w.t("combat.d20.impact.band_exact", mr=impact.mr, aimed=aimed)]
    else:
        lines = [w.t("combat.d20.impact.band_scatter", mr=impact.mr, die=impact.die, roll=impact.zone_roll)]
    lines.append(
        w.t(
            "combat.d20.impact.missile_index",
            d20=impact.damage_roll.total if impact.damage_roll else "?",
            bonus=f"{bonus:+d}",
            index=impact.damage_index,
        )
    )
    rate, random_part = _random_part(scope, arm, feed)
    shock_rate = int(arm.get("shock") or 0)
    if context is rules.Context.THROWN:
        blow = rules.thrown_blow(bf, bonus, rate=rate, random_part=random_part, shock_rate=shock_rate)
    elif arm.get("pen") or shock_rate:
        blow = rules.projectile_blow(rate, random_part, shock_rate)
    else:
        blow = rules.Blow((), 0, (), 0)
        lines.append(w.t("combat.d20.no_rates", weapon=arm["name"]))
    return replace(blow, damage_index=impact.damage_index), lines


def _blow(
    scope: Scope,
    doc: Doc,
    pending: Mapping[str, Any],
    exchange: rules.Exchange,
    payload: dict[str, Any],
    table: Mapping[int, Any] | None,
) -> list[str]:
    w = scope.words
    attacker = doc.state.get(str(pending["attacker"]))
    defender = doc.state.get(str(pending["defender"]))
    arm = pending["weapon"]
    if arm.get("massive"):
        return _massive(scope, doc, pending, defender, int(arm["massive"]), payload, table)
    hand = pending.get("hand") or {}
    feed, zones = _Feed(hand.get("damage")), _Feed(hand.get("effects"))
    mr = exchange.attack.margin
    bf = attacker.stat("BF")
    bonus = int(arm.get("bonus") or 0)
    index = exchange.damage_index
    context = _context(arm)
    blunt = arm["kind"] in ("blunt", "shield")
    lines: list[str] = []
    if context in RANGED_CONTEXTS:
        aimed = str(pending.get("aimed") or "?")
        blow, missile_lines = _missile(scope, context, arm, exchange, bf, aimed, feed, zones, payload)
        lines.extend(missile_lines)
        index = blow.damage_index
    else:
        lines.append(w.t("combat.d20.index", terms=w.terms(exchange.terms, index)))
        if pending.get("brawl"):
            blow = rules.brawl_shock(
                rules.BrawlLocation(pending["brawl"]),
                bf,
                mr,
                bonus,
                critical=exchange.attack.critical_success,
                rng=scope.rng,
                die=feed.take(),
            )
        elif blunt:
            blow = rules.blunt_blow(bonus, mr, bf, rng=scope.rng, die=feed.take())
        else:
            blow = rules.edged_blow(bonus, mr, bf, index)
            index = blow.damage_index
    payload["blow"] = blow.to_dict()
    if blow.penetration_terms:
        lines.append(w.t("combat.d20.penetration", terms=w.terms(blow.penetration_terms, blow.penetration)))
    if blow.shock_terms:
        lines.append(w.t("combat.d20.shock", terms=w.terms(blow.shock_terms, blow.shock)))
    layers = [
        rules.Protection(x["name"], x["rp"], x["rc"], x["sr"])
        for x in doc.meta.get(defender.id, {}).get("armour") or []
    ]
    body_sr = doc.meta.get(defender.id, {}).get("body_sr")
    shock = blow.shock
    if (layers and (blow.penetration or blow.shock)) or (blunt and body_sr is not None):
        armour = rules.resolve_armour(blow, layers, blunt=blunt, body_sr=body_sr)
        payload["armour"] = armour.to_dict()
        for layer in armour.layers:
            lines.append(
                w.t(
                    "combat.d20.layer",
                    name=layer.protection.name,
                    rp=layer.protection.rp,
                    rc=layer.protection.rc,
                    pierced=w.t("combat.d20.pierced" if layer.pierced else "combat.d20.stopped"),
                    shock=layer.shock_out,
                )
                + (" " + w.t("combat.d20.ruptured") if layer.ruptured or layer.blunt_rupture else "")
            )
        if armour.fracture:
            lines.append(w.t("combat.d20.fracture", name=defender.name, shock=armour.shock, sr=body_sr))
        shock = armour.shock
    if pending.get("brawl") and exchange.attack.critical_success:
        lines.append(w.t("combat.d20.brawl_critical"))
    row = damage_row(scope, table, index) if index is not None else None
    pv = 0
    if index is not None and row is None:  # item: the GM picks the PV lost from the hit's reply
        payload[PV_SELECT] = {"seq": int(pending["seq"]), "index": index}
        doc.data.setdefault("d20", {}).setdefault("pv_asked", {})[str(pending["seq"])] = defender.id
    if index is not None and row is None:
        lines.append(w.t("combat.d20.no_table_menu", index=index))
    elif index is not None:
        lines.extend(row_lines(scope, index, row))
        if row is not None:
            pv = row.pv
            shock += row.pc
    effect = row.effect if row else None
    if exchange.attack.critical_success and context in rules.CRITICAL_CONTEXTS:
        extra_pv, extra_pc, extra_effect, crit_lines = _critical(scope, doc, arm, row, table, feed, payload)
        lines.extend(crit_lines)
        pv += extra_pv
        shock += extra_pc
        effect = max(effect, extra_effect, key=lambda e: {None: 0, "unconscious": 1, "dead": 2}[e])
    lines.extend(apply_health(scope, doc, defender, pv=pv, pc=shock, payload=payload, effect=effect))
    return lines


def _massive(
    scope: Scope,
    doc: Doc,
    pending: Mapping[str, Any],
    defender: Combatant,
    dm: int,
    payload: dict[str, Any],
    table: Mapping[int, Any] | None,
) -> list[str]:
    """A weapon of mass destruction's hit (lines 188-195): no location degrees, the body touched is
    enough; DM above the best RDM destroys the target, unless the GM admits a limb only
    (``situation:membre``, 1 or 2 DM): vaporised, the table's maximum damage."""
    rdm = max((int(x.get("rdm", 0)) for x in doc.meta.get(defender.id, {}).get("armour") or []), default=0)
    outcome_ = rules.massive_damage(dm, rdm, limb=bool(pending.get("limb_only")))
    payload["massive"] = outcome_.to_dict()
    lines = [scope.t("combat.d20.massive.line", dm=dm, rdm=rdm)]
    if not outcome_.affected:
        lines.append(scope.t("combat.d20.massive.stopped", name=defender.name))
    elif outcome_.destroyed:
        set_dead(doc, defender.id, "d20.massive")
        lines.append(scope.t("combat.d20.massive.destroyed", name=defender.name))
    else:
        aimed = str(pending.get("aimed") or "?")
        lines.append(scope.t("combat.d20.massive.limb", name=defender.name, where=aimed))
        if table:
            row = table[max(table)]
            lines.extend(
                apply_health(
                    scope,
                    doc,
                    defender,
                    pv=int(row.get("pv", 0)),
                    pc=int(row.get("pc", 0)),
                    payload=payload,
                    effect=row.get("effect"),
                )
            )
        else:
            lines.append(scope.t("combat.d20.massive.limb_gm"))
    return lines


def _critical(
    scope: Scope,
    doc: Doc,
    arm: Mapping[str, Any],
    row: DamageRow | None,
    table: Mapping[int, Any] | None,
    feed: _Feed,
    payload: dict[str, Any],
) -> tuple[int, int, str | None, list[str]]:
    """Lines 85, 105, 118: a second wound on the table, or the PV lost doubled (fight option
    ``critique:seconde|double``). Returns the extra PV, PC, a table effect and the lines."""
    w = scope.words
    bonus = int(arm.get("bonus") or 0)
    mode = _critical_mode(doc)
    crit = rules.critical_wound(
        mode,
        weapon_modifier=bonus,
        first_pv=row.pv if row else None,
        table=table,
        row_pv=lambda r: (r.get("pv") or 0) if isinstance(r, Mapping) else r,
        rng=scope.rng,
        die=feed.take() if mode is rules.CriticalMode.SECOND_WOUND else None,
    )
    payload["d20_critical"] = crit.to_dict()
    if mode is rules.CriticalMode.DOUBLE_PV:
        if row is None:
            return 0, 0, None, [w.t("combat.d20.critical.double_gm")]
        return row.pv, 0, None, [w.t("combat.d20.critical.double", pv=row.pv, total=2 * row.pv)]
    lines = [
        w.t("combat.d20.critical.second", d20=crit.second_roll, bonus=f"{bonus:+d}", index=crit.second_index)
    ]
    assert crit.second_index is not None
    second = damage_row(scope, table, crit.second_index)
    lines.extend(row_lines(scope, crit.second_index, second))
    if second is None:
        return 0, 0, None, lines
    return second.pv, second.pc, second.effect, lines


# --- the PV a hit costs, asked of the GM when the server has no damage table ---------------------

PV_SELECT: Final = "pv_select"  # the payload's note that the reply carries the « PV perdus » menu
PV_CHOICES: Final = 25  # Discord's select menu: at most 25 options


def pv_select(scope: Scope, doc: Doc, seq: int, index: int) -> Select:
    """The seed names a damage-by-location table it does not print: the GM picks the PV the hit costs
    (1 to 25; more with ``/combat corriger champ:PV``)."""
    options = tuple(SelectOption(str(n), str(n)) for n in range(1, PV_CHOICES + 1))
    return Select(
        custom_id(doc.row.id, "dpv", seq),
        options,
        placeholder=scope.t("combat.d20.pv_select", index=index),
    )


def reply_selects(scope: Scope, doc: Doc, payload: Mapping[str, Any]) -> tuple[Select, ...]:
    """The select menus of a hit's reply (the shared defence reply asks its system for them)."""
    asked = payload.get(PV_SELECT)
    if not asked:
        return ()
    return (pv_select(scope, doc, int(asked["seq"]), int(asked["index"])),)


async def lose_pv(ctx: AppContext, caller: Caller, *, fight_id: int, seq: int, value: int) -> FightOutcome:
    """The GM's pick on a hit's « PV perdus » menu: the PV come off the victim once (a second pick
    on the same hit is refused)."""

    async def work(scope: Scope) -> FightOutcome:
        row = await scope.session.get(Fight, fight_id)
        if row is None or row.guild_id != scope.guild_id or row.status != "open":
            raise FightRefusal("combat.error.no_fight")
        scope.ruleset = SYSTEM
        doc = Doc.load(row)
        require_gm(scope)
        if not 1 <= value <= PV_CHOICES:
            raise FightRefusal("combat.error.bad_choice")
        asked = doc.data.setdefault("d20", {}).setdefault("pv_asked", {})
        victim = asked.pop(str(seq), None)
        if victim is None:
            raise FightRefusal("combat.d20.pv_done")
        defender = doc.state.get(str(victim))
        payload: dict[str, Any] = {"fight_id": doc.row.id, "seq": seq, "pv": value}
        lines = [scope.t("combat.d20.pv_taken", name=defender.name, pv=value)]
        lines.extend(apply_health(scope, doc, defender, pv=value, pc=0, payload=payload))
        new_event(scope, doc, "pv", defender.id, payload)
        doc.save()
        reply = Reply(description="\n".join(lines), colour=Colour.NEUTRAL, result=payload, kind="combat.fix")
        return outcome(scope, doc, reply)

    return await run(ctx, caller, work)


# --- hooks shared with the special fire of :mod:`bot.services.fights.systems.d20_fire` ---------------------


@dataclass(frozen=True, slots=True)
class DamageRow:
    """A row of the server's ``d20_damage_by_location`` table, as applied."""

    pv: int
    pc: int
    label: str
    effect: str | None


def damage_row(scope: Scope, table: Mapping[int, Any] | None, index: int) -> DamageRow | None:
    row = rules.read_table(table, index)
    if row is None:
        return None
    if not isinstance(row, Mapping):
        return DamageRow(int(row) if isinstance(row, int) else 0, 0, str(row), None)
    text = row.get("text") or row.get("name")
    if isinstance(text, Mapping):
        text = text.get(language_of(scope.caller.locale)) or text.get("fr")
    pv, pc, effect = row.get("pv"), row.get("pc"), row.get("effect")
    return DamageRow(
        int(pv) if isinstance(pv, int) else 0,
        int(pc) if isinstance(pc, int) else 0,
        str(text),
        str(effect) if effect in ("unconscious", "dead") else None,
    )


def row_lines(scope: Scope, index: int, row: DamageRow | None) -> list[str]:
    w = scope.words
    if row is None:
        return [w.t("combat.d20.no_table", index=index)]
    line = w.t("combat.d20.table_row", index=index, row=row.label, pv=row.pv)
    if row.pc:
        line += " · " + w.t("fire.table.pc", pc=row.pc)
    if row.effect:
        line += " · " + w.t(f"fire.table.effect.{row.effect}")
    return [line]


def apply_health(
    scope: Scope,
    doc: Doc,
    defender: Combatant,
    *,
    pv: int,
    pc: int,
    payload: dict[str, Any],
    effect: str | None = None,
) -> list[str]:
    """Take ``pv`` and ``pc`` off the victim (PC beyond Con × 2 to PV), mark death or a table's effect."""
    w = scope.words
    defender = doc.state.get(defender.id)
    before = _health(doc, defender)
    health = rules.take_damage(
        before.con, pv_lost=before.pv_lost, pc_lost=before.pc_lost, pv=pv, pc=pc, combined=_combined(doc)
    )
    doc.state = doc.state.put(rules.record_health(defender, health))
    payload["health"] = health.to_dict()
    lines = [
        w.t(
            "combat.d20.health",
            name=defender.name,
            pc=rules.pc_max(health.con) - health.pc_lost,
            pv=rules.pv_max(health.con) - health.pv_lost,
            shock=pc,
        )
        + (f" · malus {health.malus}" if health.malus else "")
    ]
    if health.dead or effect == "dead":
        set_dead(doc, defender.id, "d20.pv" if health.dead else "d20.table")
        lines.append(w.t("combat.effect.dead", name=defender.name))
    elif effect == "unconscious" and not doc.state.get(defender.id).has("unconscious"):
        c = doc.state.get(defender.id)
        knocked = Condition("unconscious", "d20.table", until="treated")
        doc.state = doc.state.put(replace(c, conditions=(*c.conditions, knocked)))
        lines.append(w.t("fire.table.unconscious", name=defender.name))
    return lines
