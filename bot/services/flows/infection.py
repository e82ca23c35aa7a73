"""``/infection``: the next-day E test of an open wound, and the E test after an amputation.

Stateless (no session row): the character's E, BE and talents are read from the sheet when no
value is given. Without ``critical``, the open wounds written on the sheet by ``/combat fin`` are
read: one test per open wound not yet tested (seed 000: « Un test doit être fait par blessure
reçue »), each with its critical's value; its result is written on the wound (it needs no more test).
The other options (weapon, treatment, surroundings) apply to every wound tested (a reading).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Final

from bot.context import AppContext
from bot.db import characters as repo
from bot.db.characters import CharacterSheet
from bot.rules.grammar import optional_modifier
from bot.rules.renove import infection as rules
from bot.rules.renove.infection import InfectionError
from bot.rules.wounds import Wound, WoundSheet
from bot.services.caller import Caller
from bot.services.flows.common import (
    FlowResult,
    Refusal,
    Scope,
    character_of,
    d100,
    parse_rolls,
    roll_line,
    run,
    t,
)
from bot.services.talent_book import talent_book
from bot.services.wounds import words_for
from bot.ui.reply import Colour, Field, Reply

TABLE: Final = "infection"
# Choice values (French, as GMs type them in the console) → data/infection.json entry ids.
CLEANLINESS: Final = {
    "propre": "arme_propre",
    "normale": "arme_normale",
    "sale": "arme_sale",
    "souillee": "arme_souillee",
}
SUTURE: Final = {"ratee": "blessure_suturee_ratee", "reussie": "blessure_suturee_reussie"}


def _table(ctx: AppContext) -> tuple[list[Any], list[Any]]:
    table = ctx.tables.get(TABLE)
    if table is None:
        raise Refusal("flows.infection.error.no_table")
    return table.entries, list(table.document.get("outcomes", []))


async def _stats(scope: Scope, character: str | None, e: int | None, be: int | None) -> tuple[int, int, Any]:
    sheet = None
    if e is None or be is None or character:
        sheet = await character_of(scope, character)
    if e is None:
        if sheet is None or "E" not in sheet.characteristics:
            raise Refusal("flows.infection.error.no_toughness")
        e = int(sheet.characteristics["E"])
    if be is None:
        be = int(sheet.characteristics.get("BE", e // 10)) if sheet is not None else e // 10
    return e, be, sheet


def _modifier_lines(ctx: AppContext, caller: Caller, result: Any) -> str:
    return "\n".join(f"{t(ctx, caller, m.label)} : {m.value:+d}" for m in result.modifiers)


def _outcome_text(ctx: AppContext, caller: Caller, result: Any) -> str:
    """The test line, its outcome and the infection's phases (one wound)."""
    lines = [t(ctx, caller, "flows.infection.test_line") + " " + roll_line(ctx, caller, result.test)]
    if result.outcome is None:
        lines.append(t(ctx, caller, "flows.infection.clean"))
        return "\n".join(lines)
    lines.append(t(ctx, caller, f"flows.infection.outcome.{result.outcome}", margin=result.test.margin))
    for phase in result.phases:
        if phase.modifier is None:
            lines.append(t(ctx, caller, "flows.infection.phase.incapacitated", days=phase.days))
        else:
            lines.append(t(ctx, caller, "flows.infection.phase.malus", value=phase.modifier, days=phase.days))
    if result.death_after_days is not None:
        lines.append(t(ctx, caller, "flows.infection.death", days=result.death_after_days))
    return "\n".join(lines)


async def _sheet_wounds(
    ctx: AppContext,
    caller: Caller,
    scope: Scope,
    sheet: CharacterSheet,
    wounds: tuple[Wound, ...],
    test: Callable[[int, int | None], Any],
    dice: list[int],
    who: str,
) -> FlowResult:
    """One test per open wound of the sheet, each with its critical's value; results onto the wounds."""
    words = words_for(ctx, caller.locale)
    row = await repo.get_row(scope.session, scope.guild_id, sheet.id)
    assert row is not None
    record = WoundSheet.from_dict(row.wounds)
    fields: list[Field] = []
    results: list[dict[str, Any]] = []
    infected = False
    for index, wound in enumerate(wounds[:20]):
        value = int(wound.value or 0)
        result = test(value, dice[index] if index < len(dice) else None)
        infected = infected or result.outcome is not None
        record = record.put(replace(wound, infection=result.outcome or "clean"))
        where = words.zone(wound.zone) if wound.zone else words.t("wounds.by_gm")
        name = t(ctx, caller, "flows.infection.wound_title", number=wound.number, where=where, critical=value)
        fields.append(Field(name, _outcome_text(ctx, caller, result)[:1000]))
        results.append({"wound": wound.number, "critical": value, **result.to_dict()})
    row.wounds = record.to_dict()
    count = len(results)
    title = (
        t(ctx, caller, "flows.infection.sheet_title_one", who=who)
        if count == 1
        else t(ctx, caller, "flows.infection.sheet_title", who=who, count=count)
    )
    reply = Reply(
        title=title,
        description=t(ctx, caller, "flows.infection.noted"),
        fields=tuple(fields),
        footer=t(ctx, caller, "flows.infection.footer"),
        colour=Colour.FAILURE if infected else Colour.SUCCESS,
        kind="infection",
        result={"character": sheet.name, "wounds": results},
    )
    return FlowResult(reply)


async def infection_test(
    ctx: AppContext,
    caller: Caller,
    *,
    critical: int | None = None,
    character: str | None = None,
    e: int | None = None,
    be: int | None = None,
    fragment: bool = False,
    barbed: bool = False,
    weapon: str | None = None,
    washed: bool = False,
    suture: str | None = None,
    ointment: bool = False,
    environment: str | None = None,
    hygiene: bool = False,
    hardy: bool | None = None,
    resistance: bool | None = None,
    dwarf_halfling: bool | None = None,
    bedridden: bool = True,
    extra: int = 0,
    roll: int | None = None,
    rolls: str | None = None,
) -> FlowResult:
    async def work(scope: Scope) -> FlowResult:
        entries, outcomes = _table(ctx)
        typed = parse_rolls(rolls, option="rolls")  # checked even when ``critical`` is given
        toughness, bonus, sheet = await _stats(scope, character, e, be)
        if critical is None:
            if sheet is None:
                raise Refusal("flows.infection.error.no_sheet")
            wounds = WoundSheet.from_dict(sheet.wounds).to_test()
            if not wounds:
                key = "flows.infection.error.no_open_wound"
                raise Refusal(key, name=sheet.name)
        held: set[str] = set()
        if sheet is not None:  # the talents the book gives an infection-test modifier (Dur à cuire …)
            modifiers = talent_book(ctx).effects_of(sheet.talents, "modifier")
            held = {tid for tid, effect in modifiers if effect.get("scope") == "infection_test"}
        hardy_ = "dur_a_cuire" in held if hardy is None else hardy
        resist = "resistance_aux_maladies" in held if resistance is None else resistance
        chosen: dict[str, int | bool] = {
            "fragment_arme": fragment,
            "fleche_barbelee": barbed,
            "blessure_lavee": washed,
            "onguent": ointment,
            "mauvaise_hygiene": hygiene,
            "dur_a_cuire": hardy_,
            "resistance_aux_maladies": resist,
            # the seed's +10 for dwarves and halflings: the sheet's race unless the option says
            "nain_ou_halfling": (
                (sheet is not None and sheet.race in ("nain", "halfling"))
                if dwarf_halfling is None
                else dwarf_halfling
            ),
        }
        if weapon:
            if weapon not in CLEANLINESS:
                raise Refusal("flows.infection.error.unknown_modifier", id=weapon[:20])
            chosen[CLEANLINESS[weapon]] = True
        if suture:
            if suture not in SUTURE:
                raise Refusal("flows.infection.error.unknown_modifier", id=suture[:20])
            chosen[SUTURE[suture]] = True
        filth = optional_modifier(environment, option="environment", lo=-30, hi=0)
        if filth:
            chosen["environnement_infect"] = filth

        def test(value: int, die: int | None) -> Any:
            try:
                return rules.infection_test(
                    outcomes,
                    entries,
                    toughness=toughness,
                    be=bonus,
                    critical=value,
                    chosen=chosen,
                    bedridden=bedridden,
                    extra=extra,
                    rng=ctx.rng,
                    roll=d100(die),
                )
            except InfectionError as exc:
                raise Refusal(f"flows.infection.error.{exc.code}", **exc.params) from None

        who = sheet.name if sheet is not None else f"<@{caller.user_id}>"
        if critical is None:
            assert sheet is not None
            dice = ([roll] if roll is not None else []) + typed
            return await _sheet_wounds(ctx, caller, scope, sheet, wounds, test, dice, who)
        result = test(critical, roll)
        fields: list[Field] = []
        if result.test is None:
            description = t(ctx, caller, "flows.infection.exempt")
            colour = Colour.SUCCESS
        else:
            description = (
                t(ctx, caller, "flows.infection.test_line") + " " + roll_line(ctx, caller, result.test)
            )
            fields.append(
                Field(t(ctx, caller, "flows.infection.modifiers"), _modifier_lines(ctx, caller, result.test))
            )
            if result.outcome is None:
                description += "\n" + t(ctx, caller, "flows.infection.clean")
                colour = Colour.SUCCESS
            else:
                description += "\n" + t(
                    ctx, caller, f"flows.infection.outcome.{result.outcome}", margin=result.test.margin
                )
                colour = Colour.FAILURE
                phases = []
                for phase in result.phases:
                    if phase.modifier is None:
                        phases.append(t(ctx, caller, "flows.infection.phase.incapacitated", days=phase.days))
                    else:
                        phases.append(
                            t(
                                ctx,
                                caller,
                                "flows.infection.phase.malus",
                                value=phase.modifier,
                                days=phase.days,
                            )
                        )
                if result.death_after_days is not None:
                    phases.append(t(ctx, caller, "flows.infection.death", days=result.death_after_days))
                fields.append(Field(t(ctx, caller, "flows.infection.effects"), "\n".join(phases)))
        reply = Reply(
            title=t(ctx, caller, "flows.infection.title", who=who, critical=critical),
            description=description,
            fields=tuple(fields),
            footer=t(ctx, caller, "flows.infection.footer"),
            colour=colour,
            kind="infection",
            result={"critical": critical, "toughness": toughness, "BE": bonus, **result.to_dict()},
        )
        return FlowResult(reply)

    return await run(ctx, caller, work)


async def amputation(
    ctx: AppContext,
    caller: Caller,
    *,
    character: str | None = None,
    e: int | None = None,
    soins_success: bool = False,
    soins_degrees: int = 0,
    roll: int | None = None,
) -> FlowResult:
    async def work(scope: Scope) -> FlowResult:
        toughness, _be, sheet = await _stats(scope, character, e, 0)
        test = rules.amputation_test(
            toughness=toughness,
            soins_success=soins_success,
            soins_degrees=soins_degrees,
            rng=ctx.rng,
            roll=d100(roll),
        )
        who = sheet.name if sheet is not None else f"<@{caller.user_id}>"
        key = "flows.infection.amputation.stopped" if test.success else "flows.infection.amputation.spreads"
        reply = Reply(
            title=t(ctx, caller, "flows.infection.amputation.title", who=who),
            description=t(ctx, caller, "flows.infection.test_line")
            + " "
            + roll_line(ctx, caller, test)
            + "\n"
            + t(ctx, caller, key),
            colour=Colour.SUCCESS if test.success else Colour.FAILURE,
            kind="infection_amputation",
            result={"test": test.to_dict(), "stopped": test.success},
        )
        return FlowResult(reply)

    return await run(ctx, caller, work)
