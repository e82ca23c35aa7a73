"""A hit's consequences: damage, partial-armour coverage, criticals, effects applied, the parry's
side effects and the permanent changes proposed to the GM."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from bot.context import AppContext
from bot.db.characters import (
    get_row,
    to_sheet,
    write_data,
)
from bot.db.fight_models import Fight
from bot.rules.checks.common import Modifier
from bot.rules.combat.basics import mod
from bot.rules.combat.effects import Condition, EffectApplication, apply_mechanics
from bot.rules.combat.state import ACTS_LAST, Combatant, apply_effects, put_last
from bot.rules.combat.tables import Mechanic
from bot.rules.renove.attack import AttackResult
from bot.rules.renove.damage import (
    CriticalResult,
    DamageResult,
    damage_to_parry_implement,
    damage_to_target,
    parry_side_effect,
    roll_critical,
    wear_shield,
)
from bot.rules.sheets import Change, SheetError, apply_skill_changes, fold, sheet_for, shown_code
from bot.services.caller import Caller
from bot.services.fights import destiny
from bot.services.fights._core import (
    DefenceRolls,
    Doc,
    FightOutcome,
    FightRefusal,
    RollNote,
    Scope,
    custom_id,
    d100_or_none,
    new_event,
    parse_dice,
    require_gm,
    run,
    saved_outcome,
)
from bot.services.fights.destiny import paralysing
from bot.services.fights.magic_effects import after_critical
from bot.services.fights.text import Words
from bot.services.skill_book import skill_book
from bot.services.talent_book import default_talent_book
from bot.ui.reply import Button, ButtonStyle


def damage_bonus(attacker: Combatant, weapon: Any) -> int:
    """The bonus a blow adds: BF, or BA with Combattant virevoltant and one of its weapons (seed 000
    l. 1250-1252: "calculer les dégâts … avec le BA plutôt qu'avec le BF", épée courte, fleuret,
    rapière, bâton — the talent table lists them)."""
    return attacker.stat(damage_bonus_stat(attacker, weapon))


def damage_bonus_stat(attacker: Combatant, weapon: Any) -> str:
    """« BF », or « BA » when Combattant virevoltant applies: a weapon of its list, named in full or
    by one of the table's names (« Rapière/Sabre » is the Rapière, « Epée courte/Glaive » the Epée
    courte)."""
    name = str(getattr(weapon, "name", ""))
    names = {fold(name), *(fold(part.strip()) for part in name.split("/"))}
    book = default_talent_book()
    for tid in attacker.talents:
        talent = book.by_id.get(tid)
        for effect in talent.effects if talent is not None else ():
            if effect.get("type") != "damage_bonus_from":
                continue
            if names & {fold(str(n)) for n in effect.get("weapons") or ()}:
                return str(effect.get("with", "BA"))
    return "BF"


def _bonus_label(result: DamageResult, stat: str) -> DamageResult:
    """The itemised damage says « BA 8 » when the BA replaced the BF."""
    if stat == "BF":
        return result
    bf, label = mod("bf", 0).label, mod(stat.lower(), 0).label
    steps = tuple(Modifier(label, s.value) if s.label == bf else s for s in result.steps)
    return replace(result, steps=steps)


def _hit_damage(
    scope: Any,
    attacker: Any,
    defender: Any,
    weapon: Any,
    die: Any,
    attack_result: Any,
    hand: Mapping[str, Any],
    *,
    wear: bool = True,
) -> DamageResult:
    """Damage of a hit on the defender's zone, using the coverage d100s typed with the attack.

    One place for both a plain hit and damage taken through a parry side effect, so the two can
    never read armour differently."""
    zone = str(attack_result.zone)
    layers = defender.armour.get(zone, ())
    stat = damage_bonus_stat(attacker, weapon)
    result = damage_to_target(
        scope.tables,
        die,
        weapon,
        attacker_bf=attacker.stat(stat),
        target_be=defender.stat("BE"),
        zone=zone,
        layers=layers,
        attack=attack_result,
        rng=scope.rng,
        coverage_rolls=_coverage_map(layers, hand.get("coverage") or []),
        wear=wear,
    )
    return _bonus_label(result, stat)


def _coverage_map(layers: Sequence[Any], values: Sequence[int]) -> dict[str, int]:
    partial = [layer.family for layer in layers if layer.coverage < 1]
    return dict(zip(partial, values, strict=False))


def _log_coverage(scope: Scope, doc: Doc, pending: Mapping[str, Any], damage: DamageResult) -> None:
    """The partial-armour d100s of a hit (typed or rolled) go to the roll log."""
    if damage.armour is None:
        return
    for check in damage.armour.layers:
        if check.coverage_roll is not None:
            scope.rolls.append(
                RollNote(
                    "combat.coverage",
                    "1d100",
                    check.coverage_roll,
                    {
                        "fight_id": doc.row.id,
                        "seq": pending["seq"],
                        "zone": damage.armour.zone,
                        **check.to_dict(),
                    },
                )
            )


def _damage(
    scope: Scope,
    doc: Doc,
    pending: Mapping[str, Any],
    attack_result: AttackResult,
    die: Any,
    payload: dict[str, Any],
) -> list[str]:
    w = scope.words
    tables = scope.tables
    attacker = doc.state.get(pending["attacker"])
    defender = doc.state.get(pending["defender"])
    weapon = tables.weapon(pending["request"]["weapon"])
    hand = pending.get("hand") or {}
    zone = str(attack_result.zone)
    layers = defender.armour.get(zone, ())
    damage = _hit_damage(scope, attacker, defender, weapon, die, attack_result, hand)
    if layers:
        armour = dict(defender.armour)
        armour[zone] = damage.layers_after
        defender = replace(defender, armour=armour)
        doc.state = doc.state.put(defender)
    payload["damage"] = damage.to_dict()
    _log_coverage(scope, doc, pending, damage)
    lines = [
        w.t(
            "combat.damage.line",
            zone=w.zone(zone),
            terms=_die_text(w, die) + " · " + w.terms(damage.steps[1:]),
            total=damage.total,
        )
    ]
    if damage.armour is not None:
        for check in damage.armour.layers:
            family = w.t(f"combat.armour_family.{check.family}")
            if check.coverage_roll is not None:
                lines.append(
                    w.t(
                        "combat.damage.coverage_hit" if check.counts else "combat.damage.coverage_miss",
                        family=family,
                        share=f"{int(check.coverage * 100)}",
                        roll=check.coverage_roll,
                        pa=check.pa,
                    )
                )
    if damage.wear is not None:
        lines.append(
            w.t(
                "combat.damage.wear",
                family=w.t(f"combat.armour_family.{damage.wear.family}"),
                zone=w.zone(zone),
                before=damage.wear.pv_before,
                after=damage.wear.pv_after,
            )
            + (" " + w.t("combat.damage.pa_lost") if damage.wear.pa_lost else "")
        )
    lines.extend(_critical(scope, doc, pending, damage.total, zone, payload))
    return lines


def _die_text(w: Words, die: Any) -> str:
    rolled = "/".join(str(x) for x in die.rolled)
    text = f"{w.t('combat.modifier.damage_die')} {die.value}"
    if len(die.rolled) > 1 or die.value != die.kept:
        text += f" ({rolled})"
    if die.rule:
        text += " · " + w.t(die.rule)
    return text


def _critical(
    scope: Scope, doc: Doc, pending: Mapping[str, Any], damage: int, zone: str, payload: dict[str, Any]
) -> list[str]:
    w = scope.words
    tables = scope.tables
    defender = doc.state.get(pending["defender"])
    weapon = tables.weapon(pending["request"]["weapon"])
    hand = pending.get("hand") or {}
    if damage < tables.critical_matrix.min_damage:
        return [w.t("combat.damage.none", name=defender.name)]
    use_ms = bool(doc.data.get("options", {}).get("mort_subite")) and defender.npc
    crit = roll_critical(
        tables,
        weapon.critical_kind,
        zone,
        damage,
        attacker_attributes=weapon.attributes,
        victim_talents=defender.talents,
        use_mort_subite=use_ms,
        rng=scope.rng,
        critical_roll=hand.get("critical"),
    )
    assert crit is not None
    payload["critical"] = crit.to_dict()
    scope.rolls.append(
        RollNote(
            "combat.critical",
            "1d100",
            crit.value.d100,
            {"fight_id": doc.row.id, "seq": pending["seq"], **crit.to_dict()},
        )
    )
    value = crit.value
    lines = [
        w.t(
            "combat.critical.line",
            d100=value.d100,
            row=value.row,
            damage=value.damage,
            terms=w.terms(value.steps, value.value),
            kind=w.t(f"combat.kind.{crit.entry.kind}"),
            zone=w.zone(zone),
        ),
    ]
    if crit.mort_subite is not None:  # the band replaces the table's effects (seed l. 1305-1310)
        lines.extend(_mort_subite(scope, doc, defender, crit, payload))
        return lines
    lines.append(f"> {w.narration(crit.entry.narration)}")
    lines.extend(_apply_critical(scope, doc, defender, crit, hand, payload))
    return lines


def _mort_subite(
    scope: Scope, doc: Doc, victim: Combatant, crit: CriticalResult, payload: dict[str, Any]
) -> list[str]:
    """Mort subite (an NPC, the fight's option): « il subit un effet selon la gravité du critique » —
    fights on, tries to flee, or dies; the critical table's effect is not applied."""
    assert crit.mort_subite is not None
    payload["mort_subite"] = crit.mort_subite.outcome
    line = scope.words.t(
        f"combat.mort_subite.{crit.mort_subite.outcome}", name=victim.name, value=crit.value.value
    )
    c = doc.state.get(victim.id)
    if crit.mort_subite.outcome == "dies" and not c.has("dead"):
        doc.state = doc.state.put(
            replace(c, conditions=(*c.conditions, Condition("dead", "mort_subite", until="permanent")))
        )
    return [line]


def _apply_critical(
    scope: Scope,
    doc: Doc,
    victim: Combatant,
    crit: CriticalResult,
    hand: Mapping[str, Any],
    payload: dict[str, Any],
) -> list[str]:
    application = apply_mechanics(
        crit.entry.mechanics,
        victim.current_characteristics(),
        source=crit.entry.source,
        conditions=victim.conditions,
        rng=scope.rng,
        test_rolls=hand.get("effects") or (),
        duration_rolls=hand.get("durations") or (),
    )
    lines = _application_lines(scope, doc, victim, application, payload)
    entry = crit.entry
    lines.extend(after_critical(scope, doc, victim.id, entry.kind, entry.zone, entry.value, application))
    return lines


def _acts_last(scope: Scope, doc: Doc, victim: Combatant, application: EffectApplication) -> list[str]:
    """Head criticals 1-2, « Les actions se feront en dernier ce round et le suivant »: the victim's
    slots still to come this round go after everyone's, and next round's too (a condition of 2
    rounds, counted at each end of round)."""
    if not any(e.kind == "gm_ruling" and e.params.get("code") == ACTS_LAST for e in application.events):
        return []
    c = doc.state.get(victim.id)
    if c.has("dead"):
        return []
    late = Condition(ACTS_LAST, application.source, remaining=2, unit="round")
    doc.state = doc.state.put(replace(c, conditions=(*c.conditions, late)))
    doc.state = replace(doc.state, order=put_last(doc.state.order, doc.state.turn, {c.id}))
    return [scope.words.t("combat.acts_last.applied", name=c.name)]


def _application_lines(
    scope: Scope, doc: Doc, victim: Combatant, application: EffectApplication, payload: dict[str, Any]
) -> list[str]:
    w = scope.words
    was_dead = doc.state.get(victim.id).has("dead")
    doc.state = apply_effects(doc.state, victim.id, application)
    if application.dead and not doc.state.get(victim.id).has("dead"):
        c = doc.state.get(victim.id)
        doc.state = doc.state.put(
            replace(c, conditions=(*c.conditions, Condition("dead", application.source, until="permanent")))
        )
    if not was_dead and doc.state.get(victim.id).has("dead"):  # a PC's player may spend a destiny point
        destiny.offer(doc, victim.id, "death", application.source)
    paralysis = paralysing(application.events)
    if paralysis is not None and not doc.state.get(victim.id).has("dead"):
        destiny.offer(doc, victim.id, "paralysis", paralysis)
    payload.setdefault("effects", []).append(application.to_dict())
    lines = []
    for test in application.tests:
        lines.append(
            w.t("combat.effect.test", name=victim.name, stat=shown_code(test.characteristic, w.en))
            + (": " if w.en else " : ")
            + w.check_block(test.check)
        )
        scope.rolls.append(
            RollNote(
                "combat.effect_test", "1d100", test.check.roll, {"fight_id": doc.row.id, **test.to_dict()}
            )
        )
    for roll in application.rolls:
        scope.rolls.append(
            RollNote(
                "combat.duration",
                roll.expression,
                roll.total,
                {"fight_id": doc.row.id, "victim": victim.name, **roll.to_dict()},
            )
        )
        lines.append(
            w.t(
                "combat.effect.duration", expression=roll.expression, rendered=roll.rendered, total=roll.total
            )
        )
    for condition in application.conditions:
        lines.append("• " + w.condition(condition, victim.name))
    for event in application.events:
        if not (event.kind == "gm_ruling" and event.params.get("code") == ACTS_LAST):
            lines.append("• " + w.t(f"combat.event.{event.kind}", name=victim.name))
    lines.extend("• " + line for line in _acts_last(scope, doc, victim, application))
    if doc.state.get(victim.id).has("dead"):
        lines.append(w.t("combat.effect.dead", name=victim.name))
    meta = doc.meta.get(victim.id, {})
    # a dead NPC without a sheet keeps nothing: proposing permanent changes would be noise
    dead_without_sheet = doc.state.get(victim.id).has("dead") and not meta.get("character_id")
    for proposal in () if dead_without_sheet else application.proposals:
        number = int(doc.data.get("proposal_seq", 0)) + 1
        doc.data["proposal_seq"] = number
        doc.proposals[str(number)] = {
            "combatant": victim.id,
            "character_id": meta.get("character_id"),
            **proposal.to_dict(),
        }
        payload.setdefault("proposals", []).append(number)
        text = w.t(
            "combat.proposal.line",
            stat=_stat_label(scope, proposal.stat),
            total=f"{proposal.total:+d}" if proposal.total is not None else "½",
            name=victim.name,
        )
        lines.append(
            "• " + text + ("" if meta.get("character_id") else " " + w.t("combat.proposal.no_sheet"))
        )
    return lines


def _stat_label(scope: Scope, stat: str) -> str:
    """A permanent change's stat as a reader knows it: a skill by its name (« Intimidation »), a
    characteristic by its abbreviation in the reader's language."""
    found = skill_book(scope.ctx).find(stat)
    if found is None:
        return shown_code(stat, scope.words.en)
    skill, _label = found
    return skill.name_en if scope.words.en else skill.name


def _proposal_buttons(scope: Scope, doc: Doc, numbers: Sequence[int]) -> tuple[tuple[Button, ...], ...]:
    rows = []
    for number in numbers[:4]:
        proposal = doc.proposals.get(str(number))
        if not proposal or not proposal.get("character_id"):
            continue
        label = scope.t(
            "combat.proposal.button",
            stat=proposal["stat"],
            total=proposal.get("total") if proposal.get("total") is not None else "½",
        )
        rows.append(
            (
                Button(label, custom_id(doc.row.id, "perm", number, "ok"), ButtonStyle.SUCCESS),
                Button(
                    scope.t("combat.proposal.reject"),
                    custom_id(doc.row.id, "perm", number, "no"),
                    ButtonStyle.SECONDARY,
                ),
            )
        )
    return tuple(rows)


def _parry_consequences(
    scope: Scope,
    doc: Doc,
    pending: Mapping[str, Any],
    attack_result: AttackResult,
    die: Any,
    payload: dict[str, Any],
    rolls: DefenceRolls,
) -> list[str]:
    """A successful parry: damage against the parry implement (shield PV), then the side-effect roll."""
    w = scope.words
    tables = scope.tables
    attacker = doc.state.get(pending["attacker"])
    defender = doc.state.get(pending["defender"])
    weapon = tables.weapon(pending["request"]["weapon"])
    pw = tables.weapon(str(payload["parry_weapon"]))
    hand = pending.get("hand") or {}
    vs_parry, profile = damage_to_parry_implement(
        tables, die, weapon, pw, attacker_bf=damage_bonus(attacker, weapon), attack=attack_result
    )
    lines = [
        w.t(
            "combat.parry.vs_implement",
            terms=_die_text(w, die) + " · " + w.terms(vs_parry.steps[1:]),
            total=vs_parry.total,
        )
    ]
    destroyed = False
    if profile.pv is not None and defender.shield_pv is not None:
        wear = wear_shield(profile, defender.shield_pv, vs_parry.total)
        defender = replace(defender, shield_pv=wear.pv_after)
        doc.state = doc.state.put(defender)
        destroyed = wear.destroyed
        payload["shield"] = wear.to_dict()
        lines.append(
            w.t(
                "combat.parry.shield",
                before=wear.pv_before,
                after=wear.pv_after,
                max=doc.meta.get(defender.id, {}).get("shield_max") or "?",
            )
        )
    roll = d100_or_none(rolls.side_effect)
    if roll is None and not destroyed:
        roll = scope.rng.randint(1, 100)
    side = parry_side_effect(
        tables,
        f_attacker=attacker.stat("F"),
        f_defender=defender.stat("F"),
        damage_vs_parry=vs_parry.total,
        damage_if_failed=0,
        shield_destroyed=destroyed,
        side_effect_roll=roll,
    )
    taking = any(e.get("type") == "take_damage" for e in side.band.effects)
    failed: DamageResult | None = None
    if taking:
        failed = _hit_damage(scope, attacker, defender, weapon, die, attack_result, hand, wear=False)
        payload["side_effect_damage"] = failed.to_dict()
        _log_coverage(scope, doc, pending, failed)
        side = parry_side_effect(
            tables,
            f_attacker=attacker.stat("F"),
            f_defender=defender.stat("F"),
            damage_vs_parry=vs_parry.total,
            damage_if_failed=failed.total,
            shield_destroyed=destroyed,
            side_effect_roll=roll,
        )
    payload["side_effect"] = side.to_dict()
    if side.roll is not None:
        scope.rolls.append(
            RollNote(
                "combat.parry_side_effect", "1d100", side.roll, {"fight_id": doc.row.id, **side.to_dict()}
            )
        )
    steps = w.terms(side.steps, side.total) if side.total is not None else w.t("combat.parry.forced")
    lines.append(
        w.t(
            "combat.parry.side_effect",
            terms=steps,
            band=side.band.label,
            effect=w.t(f"combat.parry_band.{side.band.id}"),
        )
    )
    mechanics = tuple(
        Mechanic.from_dict(dict(e)) for e in side.band.effects if e.get("type") in ("test", "fall")
    )
    if mechanics:
        application = apply_mechanics(
            mechanics,
            defender.current_characteristics(),
            source=f"parry.{side.band.id}",
            conditions=defender.conditions,
            rng=scope.rng,
            test_rolls=parse_dice(rolls.tests, option="tests"),
        )
        lines.extend(_application_lines(scope, doc, defender, application, payload))
    if any(e.get("type") == "weapon_breaks" for e in side.band.effects):
        c = doc.state.get(defender.id)
        remaining = tuple(x for x in c.weapons if x != pw.id) or ("mains_nues",)
        doc.state = doc.state.put(
            replace(c, weapons=remaining, off_hand=None if c.off_hand == pw.id else c.off_hand)
        )
        lines.append(w.t("combat.parry.weapon_breaks", weapon=w.weapon(pw.id)))
    if side.damage_taken >= 1 and failed is not None:
        lines.append(w.t("combat.parry.takes_share", damage=side.damage_taken, full=failed.total))
        lines.extend(_critical(scope, doc, pending, side.damage_taken, str(attack_result.zone), payload))
    return lines


async def _apply_proposal(scope: Scope, proposal: Mapping[str, Any]) -> tuple[str, str, int, int]:
    """Write a permanent change onto the sheet through the characters repository (the row's
    ``version`` guards it): a characteristic of the sheet's ruleset (Soc, Ag …), else a skill of the
    sheet (Intimidation …). A skill the sheet lacks is refused (nothing written, the proposal stays)."""
    row = await get_row(scope.session, scope.guild_id, int(proposal["character_id"]))
    if row is None:
        raise FightRefusal("combat.proposal.sheet_gone")
    data = to_sheet(row).data()
    wanted = str(proposal["stat"])
    halve = proposal["operation"] == "halve"
    total = int(proposal.get("total") or 0)
    code = sheet_for(data.ruleset).canonical(wanted)
    if code is not None:
        stats = dict(data.characteristics)
        before = int(stats.get(code, 0))
        after = max(0, before // 2 if halve else before + total)
        stats[code] = after
        data = replace(data, characteristics=stats)
        label = code
    else:
        key = next((k for k in data.skills if fold(k) == fold(wanted)), None)
        if key is None:
            raise FightRefusal("combat.proposal.no_skill", name=data.name, skill=wanted)
        before = int(data.skills[key])
        after = max(0, before // 2 if halve else before + total)
        try:
            skills, innate = apply_skill_changes(
                data.ruleset, data.skills, data.skill_innate, [Change(key, after)]
            )
        except SheetError as exc:
            raise FightRefusal("combat.proposal.bad_value", skill=key, value=after) from exc
        data = replace(data, skills=skills, skill_innate=innate)
        label = key
    write_data(row, data)
    return data.name, label, before, after


async def answer_proposal(
    ctx: AppContext, caller: Caller, *, fight_id: int, number: int, accept: bool
) -> FightOutcome:
    """GM: write a permanent change onto the character sheet (or drop it)."""

    async def work(scope: Scope) -> FightOutcome:
        require_gm(scope)
        row = await scope.session.get(Fight, fight_id)
        if row is None or row.guild_id != scope.guild_id:
            raise FightRefusal("combat.error.no_fight")
        doc = Doc.load(row)
        proposal = doc.proposals.pop(str(number), None)
        if proposal is None:
            raise FightRefusal("combat.defence.already_resolved")
        text = scope.t("combat.proposal.rejected")
        if accept and proposal.get("character_id"):
            name, stat, before, after = await _apply_proposal(scope, proposal)
            text = scope.t("combat.proposal.applied", name=name, stat=stat, before=before, after=after)
        new_event(
            scope, doc, "proposal", proposal.get("combatant"), {"proposal": proposal, "accepted": accept}
        )
        return saved_outcome(scope, doc, text, "combat.proposal", {"accepted": accept, **proposal})

    return await run(ctx, caller, work)
