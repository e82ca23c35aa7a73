"""Special fire of the `d20` system (seed 003, lines 121-127, 196-262) in an open d20 fight:
``/tir rafale``, ``/tir couverture``, ``/tir artillerie``, ``/tir chasse``; the rules are
:mod:`bot.rules.d20.combat`, the fight machinery :mod:`bot.services.fights` and the damage path
:mod:`bot.services.fights.systems.d20` (the server's ``d20_damage_by_location`` table, PV/PC).

Each command is the shooter's action on his own slot (like ``/combat attaque``): the test is a d20
≤ the weapon's score with the ranged modifiers, the wound malus and the malus left by a previous
exchange; one fight event ``fire`` is recorded, the turn passes and the tracker is edited.

* Burst (lines 121-125): several targets → one test at −1 per target, 1d4 − 2 bullets each (≥ 0);
  one target → +2 per full ten bullets, 1d6 bullets per ten.
* Covering fire (lines 126-127): a d100 ≤ the weapon score hits the target or one of them.
* Artillery (lines 196-225): MR ≥ 10 on target; otherwise a d20 direction and a distance die
  (d6 for MR 5-9; MR 0-4 a d20 — reading — or the printed d6 with the fight option
  ``artillerie:d6``).
* Fighter gunnery (lines 226-262): MR ≥ 10 hits; MR 5-9 a d6, 0-4 a d20 on the hit table.

Readings (besides the rules module's): every bullet that hits is an ordinary fired-weapon hit: the
test's MR band places it around the aimed point (``zones``: one die per bullet) and a d20 + the
weapon's modifier (``degats``: one per bullet) is its damage index, read on the server's table;
a covering-fire hit is one such hit (the zone is not placed: no MR); with several targets under
covering fire the GM names the one hit (``victime``) or a die picks it (``tirage``); a hit of
fighter gunnery is read the same way; artillery damage is on the weapon's sheet (not in the seed):
the bot places the impact and leaves the damage to the GM.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from bot.context import AppContext
from bot.i18n import language_of
from bot.rules.checks.common import CheckResult, Modifier
from bot.rules.combat.common import roll_dice
from bot.rules.combat.dicefeed import d
from bot.rules.combat.state import Combatant
from bot.rules.d20 import checks as d20_checks
from bot.rules.d20 import combat as rules
from bot.rules.grammar import is_int, parse_int, parse_modifier
from bot.rules.random_source import RandomSource
from bot.services.caller import Caller
from bot.services.fights._core import (
    Doc,
    FightOutcome,
    FightRefusal,
    RollNote,
    Scope,
    fight_here,
    new_event,
    outcome,
    parse_dice,
    run,
)
from bot.services.fights.kit import (
    RANGED_KINDS,
    actor,
    check_line,
    pass_turn,
    pick_arm,
    require_gm_for_free_modifier,
    situation_tokens,
    spend,
    system_tables,
)
from bot.services.fights.roster import _list
from bot.services.fights.systems import d20
from bot.ui.reply import Colour, Reply

SYSTEM: Final = "d20"
MAX_TARGETS: Final = 10
MAX_BULLETS: Final = 100
# French words for the air-combat modifier ids of ``d20_air_combat``
AIR_ALIASES: Final[dict[str, str]] = {
    "vitesse": "speed_atmosphere",
    "vitesse_espace": "speed_space",
    "petite_cible": "small_target",
    "taille_humaine": "human_size",
    "nuage": "opaque_cloud",
    "fluide": "under_fluid_shallow",
    "fluide_profond": "under_fluid_deep",
    "evitement": "shooter_evading",
    "pilote": "pursued_pilot",
}
EFFECT_RANK: Final[dict[str | None, int]] = {None: 0, "unconscious": 1, "dead": 2}


@dataclass(frozen=True, slots=True)
class BurstInput:
    targets: str
    shooter: str | None = None
    bullets: int | None = None
    weapon: str | None = None
    roll: int | None = None
    hits: str | None = None
    situation: str | None = None
    aimed: str | None = None
    zones: str | None = None
    damage: str | None = None


@dataclass(frozen=True, slots=True)
class CoveringInput:
    targets: str | None = None
    zone: str | None = None
    shooter: str | None = None
    weapon: str | None = None
    score: int | None = None
    roll: int | None = None
    victim: str | None = None
    pick: int | None = None
    damage: int | None = None


@dataclass(frozen=True, slots=True)
class ArtilleryInput:
    target: str
    shooter: str | None = None
    weapon: str | None = None
    roll: int | None = None
    direction: int | None = None
    distance: int | None = None
    situation: str | None = None


@dataclass(frozen=True, slots=True)
class AirInput:
    target: str
    shooter: str | None = None
    weapon: str | None = None
    roll: int | None = None
    die: int | None = None
    situation: str | None = None
    damage: int | None = None


# --- shared steps ----------------------------------------------------------------------------------


async def _fight(scope: Scope) -> Doc:
    """The d20 fight of this thread (same lookup as ``/combat``), or a refusal for another system."""
    doc = await fight_here(scope)
    ruleset = doc.row.ruleset or "renove"
    if ruleset != SYSTEM:
        raise FightRefusal("fire.error.not_d20", ruleset=ruleset)
    scope.ruleset = SYSTEM
    return doc


async def _shooter(scope: Scope, who: str | None) -> tuple[Doc, Combatant]:
    """The d20 fight of this thread and who fires (``who``, or whose turn it is)."""
    doc = await _fight(scope)
    return doc, actor(scope, doc, who)


def _arm(doc: Doc, c: Combatant, text: str | None) -> dict[str, Any]:
    """The named weapon, else the shooter's first ranged one; it must be a ranged weapon."""
    if text:
        arm = pick_arm(doc, c, text)
    else:
        arms = list(doc.meta.get(c.id, {}).get("arms") or [])
        ranged = [a for a in arms if a["kind"] in RANGED_KINDS]
        arm = ranged[0] if ranged else pick_arm(doc, c, None)
    if arm["kind"] not in RANGED_KINDS:
        raise FightRefusal("fire.error.not_ranged", name=c.name, weapon=str(arm["name"]))
    return arm


def _victim(doc: Doc, shooter: Combatant, name: str) -> Combatant:
    foe = doc.find(name)
    if foe.id == shooter.id:
        raise FightRefusal("combat.error.self_attack")
    if foe.has("dead"):
        raise FightRefusal("combat.error.target_dead", name=foe.name)
    return foe


def _targets(doc: Doc, shooter: Combatant, text: str | None) -> list[Combatant]:
    out: list[Combatant] = []
    for name in _list(text):
        foe = _victim(doc, shooter, name)
        if any(f.id == foe.id for f in out):
            raise FightRefusal("fire.error.same_target", name=foe.name)
        out.append(foe)
    if len(out) > MAX_TARGETS:
        raise FightRefusal("fire.error.too_many_targets", max=MAX_TARGETS)
    return out


def _ranged_situation(text: str | None) -> list[Modifier]:
    out: list[Modifier] = []
    keys: list[str] = []
    for key, value in situation_tokens(text):
        if key in rules.RANGED_MODIFIERS:
            keys.append(key)
        elif key == "mod" and value is not None:
            out.append(shared_term("gm_modifier", parse_modifier(value, option="situation")))
        else:
            raise FightRefusal(
                "combat.sys.error.bad_situation",
                text=key[:30],
                accepted=", ".join(rules.RANGED_MODIFIERS) + ", mod:±N",
            )
    try:
        return [*rules.ranged_modifiers(keys), *out]
    except ValueError:
        raise FightRefusal("fire.error.one_per_group") from None


def _air_situation(text: str | None, table: Sequence[Mapping[str, Any]]) -> list[Modifier]:
    given: list[tuple[str, int | None]] = []
    out: list[Modifier] = []
    ids = [str(m["id"]) for m in table]
    for key, value in situation_tokens(text):
        if key == "mod" and value is not None:
            out.append(shared_term("gm_modifier", parse_modifier(value, option="situation")))
            continue
        item = AIR_ALIASES.get(key, key)
        number = parse_int(value, option="situation", lo=0) if value is not None and is_int(value) else None
        if item not in ids or (value is not None and number is None):
            accepted = ", ".join([*AIR_ALIASES, *ids]) + ", mod:±N"
            raise FightRefusal("combat.sys.error.bad_situation", text=key[:30], accepted=accepted[:900])
        given.append((item, number))
    try:
        return [*rules.air_modifiers(given, table), *out]
    except ValueError:
        raise FightRefusal("fire.error.air_situation") from None


def shared_term(key: str, value: int) -> Modifier:
    return Modifier(f"combat.{SYSTEM}.{key}", value)


def _test(
    scope: Scope, doc: Doc, c: Combatant, score: int, mods: Sequence[Modifier], roll: int | None, label: str
) -> CheckResult:
    """The shooter's d20 test: the malus he carries (wounds, a previous exchange) then ``mods``."""
    items = [*d20._malus_terms(doc, c, consume=True), *mods]
    return d20_checks.check(score, items, rng=scope.rng, roll=roll, base_label=label)


def _note(
    scope: Scope, doc: Doc, seq: int, kind: str, expression: str, total: int | None, result: Any
) -> None:
    scope.rolls.append(RollNote(kind, expression, total, {"fight_id": doc.row.id, "seq": seq, **result}))


def _reply(
    scope: Scope, doc: Doc, title: str, lines: list[str], payload: dict[str, Any], kind: str
) -> FightOutcome:
    lines.extend(pass_turn(scope, doc))
    doc.save()
    reply = Reply(
        title=title[:256],
        description="\n".join(lines)[:4000],
        colour=Colour.NEUTRAL,
        result=payload,
        kind=kind,
    )
    return outcome(scope, doc, reply)


def _finish(
    scope: Scope,
    doc: Doc,
    c: Combatant,
    fire: str,
    title: str,
    lines: list[str],
    payload: dict[str, Any],
    roll: tuple[str, int | None, dict[str, Any]],
) -> FightOutcome:
    """Logs the ``fire`` event and its attack roll (expression, total, result), passes the turn and
    answers with the reply of kind ``fire.<fire>``."""
    seq = new_event(scope, doc, "fire", c.id, {"fire": fire, **payload})
    payload["seq"] = seq
    expression, total, result = roll
    _note(scope, doc, seq, "combat.attack", expression, total, result)
    return _reply(scope, doc, title, lines, payload, f"fire.{fire}")


def _d20_roll(check: CheckResult) -> tuple[str, int | None, dict[str, Any]]:
    return "1d20", check.roll, {"check": check.to_dict()}


@dataclass(slots=True)
class _Tally:
    """What the bullets that hit one target add up to (applied once, after the last bullet)."""

    pv: int = 0
    pc: int = 0
    effect: str | None = None


def _impact_line(
    scope: Scope,
    name: str,
    number: int,
    impact: rules.Impact,
    bonus: int,
    row: d20.DamageRow | None,
) -> str:
    w = scope.words
    where = (
        w.t("combat.d20.impact.exact", aimed=impact.zone)
        if impact.exact
        else w.t("combat.d20.impact.scatter", die=impact.die, roll=impact.zone_roll)
    )
    d20_roll = impact.damage_roll.total if impact.damage_roll else 0
    line = w.t(
        "fire.bullet",
        name=name,
        n=number,
        where=where,
        d20=d20_roll,
        bonus=f"{bonus:+d}",
        index=impact.damage_index,
    )
    if row is not None:
        line += " → " + d20.row_lines(scope, impact.damage_index or 0, row)[0]
    return line


def _add(tally: _Tally, row: d20.DamageRow | None) -> None:
    if row is None:
        return
    tally.pv += row.pv
    tally.pc += row.pc
    if EFFECT_RANK[row.effect] > EFFECT_RANK[tally.effect]:
        tally.effect = row.effect


def _apply(
    scope: Scope, doc: Doc, foe: Combatant, tally: _Tally, record: dict[str, Any], *, any_table: bool
) -> list[str]:
    record.update(pv=tally.pv, pc=tally.pc, effect=tally.effect)
    if not any_table:
        return []
    return d20.apply_health(scope, doc, foe, pv=tally.pv, pc=tally.pc, payload=record, effect=tally.effect)


def _table_damage(
    scope: Scope,
    doc: Doc,
    victim: Combatant,
    arm: Mapping[str, Any],
    table: Mapping[int, Any] | None,
    damage: int | None,
    payload: dict[str, Any],
) -> list[str]:
    """A hit read on the damage table: the d20 (typed or rolled) plus the weapon bonus, then the
    row's damage applied to ``victim``."""
    w = scope.words
    bonus = int(arm.get("bonus") or 0)
    dmg = roll_dice("1d20", scope.rng, [] if damage is None else [damage])
    index = dmg.total + bonus
    row = d20.damage_row(scope, table, index)
    payload.update(damage_roll=dmg.to_dict(), damage_index=index)
    lines = [w.t("fire.covering.index", name=victim.name, d20=dmg.total, bonus=f"{bonus:+d}", index=index)]
    lines.extend(d20.row_lines(scope, index, row))
    if row is not None:
        tally = _Tally()
        _add(tally, row)
        lines.extend(_apply(scope, doc, victim, tally, payload, any_table=True))
    return lines


# --- burst fire ------------------------------------------------------------------------------------


async def burst(
    ctx: AppContext, caller: Caller, data: BurstInput, *, rng: RandomSource | None = None
) -> FightOutcome:
    async def work(scope: Scope) -> FightOutcome:
        w = scope.words
        doc, c = await _shooter(scope, data.shooter)
        targets = _targets(doc, c, data.targets)
        if not targets:
            raise FightRefusal("fire.error.no_target")
        several = len(targets) > 1
        if several and data.bullets is not None:
            raise FightRefusal("fire.error.bullets_one_target")
        bullets = 0 if several else int(data.bullets or 0)
        if not several and bullets < 10:
            raise FightRefusal("fire.error.few_bullets")
        if bullets > MAX_BULLETS:
            raise FightRefusal("fire.error.too_many_bullets", max=MAX_BULLETS)
        arm = _arm(doc, c, data.weapon)
        score = d20._score(doc, c, arm)
        require_gm_for_free_modifier(scope, data.situation)
        mods = _ranged_situation(data.situation)
        hit_dice = parse_dice(data.hits, option="hits", sides=4 if several else 6, limit=MAX_TARGETS)
        zones = parse_dice(data.zones, option="zones", sides=20, limit=60)
        damage = parse_dice(data.damage, option="damage", sides=20, limit=60)
        table = await d20.damage_table(scope)
        spend(scope, doc, c, "attaquer")
        modifier = rules.burst_modifier(targets=len(targets), bullets=bullets)
        check = _test(scope, doc, c, score, [*mods, modifier], data.roll, "fire.burst.base")
        result = rules.burst_hits(check, targets=len(targets), bullets=bullets, rng=scope.rng, dice=hit_dice)
        bonus = int(arm.get("bonus") or 0)
        payload: dict[str, Any] = {
            "fight_id": doc.row.id,
            "shooter": c.id,
            "weapon": arm,
            "check": check.to_dict(),
            "burst": result.to_dict(),
            "targets": [],
            "pending": False,
        }
        lines = [
            w.t("fire.burst.several", n=len(targets))
            if several
            else w.t("fire.burst.single", bullets=bullets, groups=bullets // 10),
            w.t("fire.shot", weapon=arm["name"]) + " : " + check_line(w, check),
        ]
        if not check.success:
            lines.append(w.t("fire.burst.missed"))
        elif several:
            for foe, roll, hits in zip(targets, result.hits, result.bullets_hitting, strict=True):
                lines.append(w.t("fire.burst.hits_several", name=foe.name, d4=roll.total, hits=hits))
        else:
            faces = ", ".join(str(r.total) for r in result.hits)
            lines.append(
                w.t(
                    "fire.burst.hits_single",
                    name=targets[0].name,
                    groups=len(result.hits),
                    dice=faces,
                    hits=result.bullets_hitting[0],
                )
            )
        any_hit = False
        for foe, hits in zip(targets, result.bullets_hitting, strict=False):
            record: dict[str, Any] = {"target": foe.id, "bullets": hits, "impacts": []}
            payload["targets"].append(record)
            tally = _Tally()
            for number in range(1, hits + 1):
                impact = rules.resolve_impact(
                    check,
                    data.aimed or foe.name,
                    weapon_modifier=bonus,
                    rng=scope.rng,
                    zone_roll=zones.pop(0) if zones and rules.band_die(check.margin) else None,
                    damage_roll=damage.pop(0) if damage else None,
                )
                assert impact is not None  # bullets hit only on a success
                any_hit = True
                row = d20.damage_row(scope, table, impact.damage_index or 0)
                record["impacts"].append({**impact.to_dict(), "row": row.label if row else None})
                lines.append(_impact_line(scope, foe.name, number, impact, bonus, row))
                _add(tally, row)
            if hits:
                lines.extend(_apply(scope, doc, foe, tally, record, any_table=table is not None))
        if any_hit and table is None:
            lines.append(w.t("fire.no_table"))
        title = f"🔫 {c.name} → {', '.join(t.name for t in targets)} ({w.t('fire.burst.title')})"
        return _finish(scope, doc, c, "burst", title, lines, payload, _d20_roll(check))

    return await run(ctx, caller, work, rng=rng)


# --- covering fire ---------------------------------------------------------------------------------


async def covering(
    ctx: AppContext, caller: Caller, data: CoveringInput, *, rng: RandomSource | None = None
) -> FightOutcome:
    async def work(scope: Scope) -> FightOutcome:
        w = scope.words
        doc, c = await _shooter(scope, data.shooter)
        targets = _targets(doc, c, data.targets)
        if not targets and not data.zone:
            raise FightRefusal("fire.error.no_target")
        arm = _arm(doc, c, data.weapon)
        score = int(data.score) if data.score is not None else d20._score(doc, c, arm)
        victim = _victim(doc, c, data.victim) if data.victim else None
        if victim is not None and targets and all(t.id != victim.id for t in targets):
            raise FightRefusal("fire.error.victim_not_targeted", name=victim.name)
        table = await d20.damage_table(scope)
        spend(scope, doc, c, "attaquer")
        rolled, hit = rules.covering_fire(score, rng=scope.rng, roll=data.roll)
        where = ", ".join([t.name for t in targets] + ([data.zone] if data.zone else []))
        lines = [
            w.t("fire.covering.line", weapon=arm["name"], score=score, roll=rolled)
            + " → "
            + w.t("fire.covering.hit" if hit else "fire.covering.miss")
        ]
        payload: dict[str, Any] = {
            "fight_id": doc.row.id,
            "shooter": c.id,
            "weapon": arm,
            "score": score,
            "roll": rolled,
            "hit": hit,
            "zone": data.zone,
            "targets": [t.id for t in targets],
            "victim": None,
            "pending": False,
        }
        if hit:
            if victim is None and len(targets) == 1:
                victim = targets[0]
            elif victim is None and targets:
                picked = d(len(targets), scope.rng, data.pick)
                victim = targets[picked - 1]
                payload["pick"] = picked
                lines.append(w.t("fire.covering.pick", sides=len(targets), roll=picked, name=victim.name))
            if victim is None:
                lines.append(w.t("fire.covering.zone_hit", zone=data.zone or ""))
            else:
                payload["victim"] = victim.id
                lines.extend(_table_damage(scope, doc, victim, arm, table, data.damage, payload))
        title = f"🎯 {c.name} → {where} ({w.t('fire.covering.title')})"
        return _finish(
            scope, doc, c, "covering", title, lines, payload, ("1d100", rolled, {"score": score, "hit": hit})
        )

    return await run(ctx, caller, work, rng=rng)


# --- artillery -------------------------------------------------------------------------------------


async def artillery(
    ctx: AppContext, caller: Caller, data: ArtilleryInput, *, rng: RandomSource | None = None
) -> FightOutcome:
    async def work(scope: Scope) -> FightOutcome:
        w = scope.words
        doc, c = await _shooter(scope, data.shooter)
        try:
            aimed: str = _victim(doc, c, data.target).name
        except FightRefusal as exc:
            if exc.key != "combat.error.no_such_combatant":
                raise
            aimed = data.target.strip()[:60]
        arm = _arm(doc, c, data.weapon)
        score = d20._score(doc, c, arm)
        require_gm_for_free_modifier(scope, data.situation)
        mods = _ranged_situation(data.situation)
        document = (await system_tables(scope, ["d20_artillery_scatter"]))["d20_artillery_scatter"]
        distances = [int(e["metres"]) for e in sorted(document["entries"], key=lambda e: int(e["face"]))]
        printed = (doc.data.get("options") or {}).get("d20_artillerie") == "printed"
        spend(scope, doc, c, "attaquer")
        check = _test(scope, doc, c, score, mods, data.roll, "fire.artillery.base")
        scatter = rules.artillery_scatter(
            check,
            distances=distances,
            distance_as_printed=printed,
            rng=scope.rng,
            direction_roll=data.direction,
            distance_roll=data.distance,
        )
        lines = [w.t("fire.shot", weapon=arm["name"]) + " : " + check_line(w, check)]
        if scatter is None:
            lines.append(w.t("fire.artillery.failed"))
        elif scatter.on_target:
            lines.append(w.t("fire.artillery.on_target", target=aimed))
        else:
            language = language_of(scope.caller.locale)
            names = {str(x["direction"]): x["name"] for x in document.get("directions") or []}
            name = names.get(str(scatter.direction)) or {}
            lines.append(
                w.t(
                    "fire.artillery.scatter",
                    direction_roll=scatter.direction_roll,
                    direction=str(name.get(language) or name.get("fr") or scatter.direction),
                    die=scatter.distance_die,
                    distance_roll=scatter.distance_roll,
                    metres=scatter.metres,
                    target=aimed,
                )
            )
            if printed and check.margin <= 4:
                lines.append(w.t("fire.artillery.printed"))
        if scatter is not None:
            lines.append(w.t("fire.artillery.damage"))
        payload: dict[str, Any] = {
            "fight_id": doc.row.id,
            "shooter": c.id,
            "weapon": arm,
            "aimed": aimed,
            "check": check.to_dict(),
            "scatter": scatter.to_dict() if scatter else None,
            "distance_as_printed": printed,
            "pending": False,
        }
        title = f"💥 {c.name} → {aimed} ({w.t('fire.artillery.title')})"
        return _finish(scope, doc, c, "artillery", title, lines, payload, _d20_roll(check))

    return await run(ctx, caller, work, rng=rng)


# --- fighter gunnery -------------------------------------------------------------------------------


async def air(
    ctx: AppContext, caller: Caller, data: AirInput, *, rng: RandomSource | None = None
) -> FightOutcome:
    async def work(scope: Scope) -> FightOutcome:
        w = scope.words
        doc, c = await _shooter(scope, data.shooter)
        foe = _victim(doc, c, data.target)
        arm = _arm(doc, c, data.weapon)
        score = d20._score(doc, c, arm)
        document = (await system_tables(scope, ["d20_air_combat"]))["d20_air_combat"]
        require_gm_for_free_modifier(scope, data.situation)
        mods = _air_situation(data.situation, document.get("modifiers") or [])
        table = await d20.damage_table(scope)
        spend(scope, doc, c, "attaquer")
        check = _test(scope, doc, c, score, mods, data.roll, "fire.air.base")
        faces = rules.air_hit_faces(document.get("entries") or ())  # the server's table in force
        rolled, hit = rules.air_hit(check, hits=faces, rng=scope.rng, roll=data.die)
        lines = [w.t("fire.shot", weapon=arm["name"]) + " : " + check_line(w, check)]
        payload: dict[str, Any] = {
            "fight_id": doc.row.id,
            "shooter": c.id,
            "target": foe.id,
            "weapon": arm,
            "check": check.to_dict(),
            "die": rules.band_die(check.margin) if check.success else None,
            "hit_roll": rolled,
            "hit": hit,
            "pending": False,
        }
        if not check.success:
            lines.append(w.t("fire.air.failed"))
        elif rolled is None:
            lines.append(w.t("fire.air.exact", name=foe.name))
        else:
            key = "fire.air.table_hit" if hit else "fire.air.table_miss"
            lines.append(w.t(key, die=payload["die"], roll=rolled, name=foe.name))
        if hit:
            lines.extend(_table_damage(scope, doc, foe, arm, table, data.damage, payload))
        title = f"✈️ {c.name} → {foe.name} ({w.t('fire.air.title')})"
        return _finish(scope, doc, c, "air", title, lines, payload, _d20_roll(check))

    return await run(ctx, caller, work, rng=rng)
