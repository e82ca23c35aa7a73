"""``/test``: one check in the ruleset in force.

Readings and choices (documented for the GM, see also :mod:`bot.services.config`):

* Secret tests (:mod:`bot.services.skill_tests.secrecy`). A test is secret when asked
  (``secret:true``), when the GM rolls for a player (``pour:@alice``), or when its skill is in the
  seed's list (``data/secret_tests.json``, starred entries included). A player's ``secret:false``
  on an always-secret skill is refused; on a starred one it is followed; the GM may do either. The
  GM's own secret test is answered privately; a player's shows the table only that a secret test
  was rolled and why, the result going to the GM channel, else by DM to the GM.
* ``/test action:`` (v1 standard tests) with a number in ``carac``: the number is the
  characteristic the row names (``Force`` with ``carac:4`` → F × 10 = 40); for rows whose target
  is a formula or a book reference the number is the target itself.
* Difficulty by name: each ruleset's own ladder (:mod:`bot.services.skill_tests.difficulty`): the
  WFRP scale in `renove` (an itemised modifier), the seed's ladder in `d20`; a plain modifier elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from bot.context import AppContext
from bot.db.characters import get_row
from bot.i18n import default_catalog
from bot.rules.checks.common import CheckResult, Modifier, System
from bot.rules.d20 import checks as d20
from bot.rules.grammar import InputError
from bot.rules.ogl import checks as ogl
from bot.rules.random_source import RandomSource
from bot.rules.renove import checks as renove
from bot.rules.v1 import checks as v1
from bot.services.caller import Caller
from bot.services.errors import input_refusal, user_error_reply
from bot.services.flows.fortune import reroll_button, reroll_offered
from bot.services.skill_tests.common import (
    MOD_LABEL,
    NAME_MAX,
    SheetLike,
    TestInputError,
    _Base,
    _character_value,
    _check_modifier,
    _check_target,
    _hand_roll,
    _int,
    _log,
    _manual_note,
    _Reads,
    active_character_getter,
    fold,
)
from bot.services.skill_tests.difficulty import find_grade
from bot.services.skill_tests.secrecy import decide, secret_reply
from bot.services.skill_tests.tables import Documents, _setting, find_standard_row, secrecy_of
from bot.ui import checks_render as render
from bot.ui.reply import Colour, Field, Reply


@dataclass(frozen=True, slots=True)
class TestRequest:
    __test__ = False  # not a pytest class

    carac: str | None = None
    skill: str | None = None
    modifier: int = 0
    difficulty: str | None = None
    roll: int | None = None
    label: str | None = None
    lenient: bool = False
    action: str | None = None
    simultaneous: int = 1
    wounds: int = 0
    secret: bool | None = None
    for_user_id: int | None = None
    owner_id: int | None = None  # the server owner: where secret results go without a GM channel


async def _resolve_base(
    ctx: AppContext,
    session: _Reads,
    caller: Caller,
    request: TestRequest,
    system: System,
    documents: Documents | None = None,
) -> _Base:
    subject = request.for_user_id or caller.user_id
    carac = (request.carac or "").strip() or None
    number = _int(carac) if carac else None
    if carac and number is None and not re.search(r"[^\W\d_]", carac):
        raise TestInputError("tests.error.bad_carac", value=carac[:NAME_MAX])
    if request.action:
        base = await _standard_base(ctx, session, caller, request, system, documents, number, subject)
        sheet = base.character
        if sheet is None and caller.guild_id and _percent_bonuses(base.standard):
            sheet = await active_character_getter()(await session.get(), caller.guild_id, subject)
        return replace(base, parts=(*base.parts, *_skill_bonuses(base.standard, sheet)))
    if number is not None:
        return _Base(_check_target(number), request.skill or "checks.modifier.base")
    name = carac or request.skill
    if not name:
        raise TestInputError("tests.error.nothing_to_test", hint="tests.hint.test")
    base = await _character_value(session, caller, subject, name, system)
    _check_target(base.value)
    return base


def _percent_bonuses(row: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    return [m for m in (row or {}).get("skill_modifiers") or () if m.get("unit") == "percent"]


def _skill_bonuses(row: Mapping[str, Any] | None, sheet: SheetLike | None) -> tuple[Modifier, ...]:
    """The helpful skills of a `v1` standard test the character has, in % (seed 001: « Corruption
    (+20%) », « Calcul mental (+10%), Triche (+Int%) »), each a part of the target named after it."""
    if sheet is None:
        return ()
    known = {fold(k) for k in sheet.skills}
    out = []
    for item in _percent_bonuses(row):
        if fold(str(item["skill"])) not in known:
            continue
        value = item.get("value")
        if value is None:  # « Triche (+Int%) »: the character's Int, in %
            value = int(sheet.characteristics.get(str(item.get("characteristic")), 0))
        out.append(Modifier(str(item["skill"]), int(value)))
    return tuple(out)


async def _standard_base(
    ctx: AppContext,
    session: _Reads,
    caller: Caller,
    request: TestRequest,
    system: System,
    documents: Documents | None,
    number: int | None,
    subject: int,
) -> _Base:
    """A `v1` standard test's target (``action:``): fixed, a characteristic of the sheet or the
    number typed, or the GM's number for a formula."""
    assert request.action is not None
    if system is not System.V1:
        raise TestInputError("tests.error.action_v1_only", ruleset=system.value)
    row = find_standard_row(ctx, request.action, documents)
    if row is None:
        raise TestInputError("tests.error.unknown_action", action=request.action[:NAME_MAX])
    test = v1.StandardTest.from_dict(row)
    if row.get("kind") == "roll":
        note = row.get("formula_note") or {}
        text = note.get("en" if caller.locale.startswith("en") else "fr", "")
        raise TestInputError("tests.error.not_a_test", action=test.action, note=text)
    if test.fixed_target is not None:
        return _Base(test.fixed_target, test.action, standard=row)
    if not test.computable:
        if number is None:
            note = str(row.get("test_under") or "")
            raise TestInputError("checks.v1.error.not_computable", action=test.action, note=note)
        return _Base(_check_target(number), test.action, standard=row)
    assert test.characteristic is not None
    if number is not None:
        label = test.characteristic.split("/")[-1].strip()
        label = label if test.multiplier == 1 else f"{label} × {test.multiplier}"
        return _Base(_check_target(number * test.multiplier), f"{test.action} ({label})", standard=row)
    getter = active_character_getter()
    sheet = await getter(await session.get(), caller.guild_id, subject) if caller.guild_id else None
    if sheet is None:
        raise TestInputError("tests.error.action_needs_value", action=test.action, under=test.characteristic)
    try:
        value, label = test.base(sheet.characteristics)
    except KeyError:
        raise TestInputError(
            "tests.error.unknown_stat", name=test.characteristic, character=sheet.name
        ) from None
    return _Base(_check_target(value), f"{test.action} ({label})", sheet, standard=row)


TERROR: Final = "terreur"
MADNESS: Final = "PF"


async def _terror_madness(ctx: AppContext, caller: Caller, base: _Base, result: CheckResult) -> str | None:
    """A failed `v1` Terreur test (seed 001 l. 47: « Cible inerte, +1 pts Folie »; reading: on a
    failure): one Point de Folie written on the sheet the test was read from; on a number typed,
    the reply only says to note it."""
    if (base.standard or {}).get("id") != TERROR or result.success:
        return None
    locale = caller.locale
    if base.character is None or caller.guild_id is None:
        return ctx.catalog.t(locale, "tests.v1.madness.note")
    async with ctx.sessions.begin() as session:
        row = await get_row(session, caller.guild_id, base.character.id)
        if row is None:
            return ctx.catalog.t(locale, "tests.v1.madness.note")
        values = dict(row.characteristics or {})
        before = int(values.get(MADNESS, 0))
        values[MADNESS] = min(99, before + 1)
        row.characteristics = values
    key = "tests.v1.madness.written"  # the catalogue's format elides « de Élise »
    return ctx.catalog.t(locale, key, name=base.character.name, before=before, after=before + 1)


async def _standard_roll(
    ctx: AppContext,
    session: _Reads,
    caller: Caller,
    request: TestRequest,
    row: Mapping[str, Any],
    rng: RandomSource,
) -> Reply:
    """Bond, Chute, Saut (seed 001 l. 16, 17, 45: « 2 x M -1d6 (min 2m) », « Dmg = h x 2 -1d6 »,
    « Dmg = h -1d6 »): not a % test but a roll — M from ``carac:`` or the sheet, the height h (m)
    from ``carac:``, the d6 typed in ``jet:``; the helpful skill's points when the character has it
    (« Acrobatie (+2) », « Acrobatie, Pitreries (-2) »)."""
    t, locale = ctx.catalog.t, caller.locale
    formula = row["roll_formula"]
    subject = request.for_user_id or caller.user_id
    sheet = (
        await active_character_getter()(await session.get(), caller.guild_id, subject)
        if caller.guild_id
        else None
    )
    number = _int((request.carac or "").strip()) if request.carac else None
    variable = "M" if "M" in str(formula["expression"]) else "h"
    value = (
        number
        if number is not None
        else (sheet.characteristics.get("M") if sheet and variable == "M" else None)
    )
    if value is None or not 0 <= value <= 1000:
        raise TestInputError(f"tests.error.roll_needs_{variable.lower()}", action=str(row.get("action")))
    known = {fold(k) for k in sheet.skills} if sheet is not None else set()
    helping = [m for m in row.get("skill_modifiers") or () if fold(str(m["skill"])) in known]
    skill = int(helping[0]["value"]) if helping else 0
    if request.roll is not None and not 1 <= request.roll <= 6:
        raise TestInputError("tests.error.bad_roll", value=request.roll, die=6)
    rolled = v1.standard_roll(formula, value, skill=skill, rng=rng, roll=request.roll)
    action = str(row.get("action_en") if locale.startswith("en") else row.get("action"))
    key = "tests.v1.roll.distance" if rolled.quantity == "jump_distance_m" else "tests.v1.roll.damage"
    base = (
        f"{rolled.factor} × {rolled.variable} {rolled.value}"
        if rolled.factor != 1
        else f"{rolled.variable} {rolled.value}"
    )
    formula_text = f"{base} − 1d6 **{rolled.die}**"
    if helping:
        term_text = f"+ {skill}" if skill >= 0 else f"− {-skill}"
        formula_text += " " + t(
            locale, "tests.v1.roll.skill_term", value=term_text, skill=str(helping[0]["skill"])
        )
    lines = [t(locale, key, formula=formula_text, total=rolled.total)]
    if rolled.minimum is not None and rolled.total == rolled.minimum:
        lines.append(t(locale, "tests.v1.roll.minimum", minimum=rolled.minimum))
    payload = {
        "ruleset": "v1",
        "standard_roll": {"id": row.get("id"), **rolled.to_dict()},
        "manual": request.roll is not None,
    }
    await ctx.roll_log.record_rows(
        [
            _log(
                caller,
                kind="test",
                ruleset=System.V1,
                expression=str(formula["expression"]),
                label=action,
                total=rolled.total,
                secret=False,
                result=payload,
                character_id=sheet.id if sheet else None,
            )
        ]
    )
    who = f"<@{subject}>"
    return Reply(
        title="🎲 " + action,
        description="\n".join(lines) + "\n" + who,
        footer=render.ruleset_footer(
            ctx.catalog, locale, "v1", _manual_note(ctx, locale, request.roll is not None)
        ),
        colour=Colour.INFO,
        result=payload,
        kind="test",
    )


def _resolve_check(
    system: System,
    base: _Base,
    request: TestRequest,
    roll: int | None,
    rng: RandomSource,
    locale: str = "fr",
) -> CheckResult:
    mods = list(base.parts)
    if request.modifier:
        mods.append(Modifier(MOD_LABEL, _check_modifier(request.modifier)))
    if system is not System.D20 and (request.simultaneous != 1 or request.wounds):
        raise TestInputError("tests.error.d20_only_options", ruleset=system.value)
    if system is not System.RENOVE and request.lenient:
        raise TestInputError("tests.error.lenient_renove_only", ruleset=system.value)
    grade = find_grade(default_catalog(), system, request.difficulty, locale)
    if grade is not None and grade.renove is not None:
        mods.append(grade.renove.as_modifier())
    difficulty = grade.d20 if grade is not None else None
    source = None if roll is not None else rng
    match system:
        case System.RENOVE:
            return renove.check(base.value, mods, rng=source, roll=roll, base_label=base.label)
        case System.V1:
            return v1.check(base.value, mods, rng=source, roll=roll, base_label=base.label)
        case System.D20:
            if not 1 <= request.simultaneous <= 4:
                raise TestInputError("tests.error.simultaneous_range")
            return d20.check(
                base.value,
                mods,
                difficulty=difficulty,
                simultaneous_actions=request.simultaneous,
                wound=-abs(request.wounds),
                rng=source,
                roll=roll,
                base_label=base.label,
            )
        case System.OGL:
            return ogl.check(base.value, mods, rng=source, roll=roll, base_label=base.label)


def _test_title(ctx: AppContext, locale: str, label: str | None, base: _Base) -> str:
    shown = label or (base.standard.get("action") if base.standard else None)
    if not shown:
        return "🎲 " + ctx.catalog.t(locale, "tests.title_plain")
    return "🎲 " + ctx.catalog.t(
        locale, "tests.title", label=render.label_text(ctx.catalog, locale, str(shown))
    )


async def skill_test(
    ctx: AppContext, caller: Caller, request: TestRequest, *, rng: RandomSource | None = None
) -> Reply:
    """``/test``: one check in the ruleset in force; secret as the request and the seed say."""
    t, locale = ctx.catalog.t, caller.locale
    rows: list[dict[str, Any]] = []
    try:
        setting = await _setting(ctx, caller)
        async with _Reads(ctx) as session:
            system = setting.ruleset
            if request.for_user_id is not None and not setting.is_gm:
                raise TestInputError("tests.error.gm_only_for")
            names = ("secret_tests", "v1_standard_tests") if request.action else ("secret_tests",)
            documents = await setting.tables(ctx, session, names)
            row = find_standard_row(ctx, request.action, documents) if request.action else None
            if system is System.V1 and row is not None and row.get("kind") == "roll":
                return await _standard_roll(ctx, session, caller, request, row, rng or ctx.rng)
            base = await _resolve_base(ctx, session, caller, request, system, documents)
            roll = _hand_roll(system, request.roll)
            result = _resolve_check(system, base, request, roll, rng or ctx.rng, caller.locale)
            skill_name = request.skill or (base.standard or {}).get("action") or request.carac
            listed = secrecy_of(ctx, skill_name, documents)
            asked = request.secret
            if asked is None and request.for_user_id is not None:
                asked = True  # the GM rolling for a player: secret unless he says secret:non
            decision = decide(ctx, caller, setting, [skill_name], asked, documents, starred=True)
            secret = decision.secret
            label = request.label or (
                str(skill_name) if skill_name and _int(str(skill_name)) is None else None
            )
            payload: dict[str, Any] = {
                **result.to_dict(),
                "ruleset": system.value,
                "label": label,
                "secret": secret,
                "secrecy": listed.value,
                "manual": roll is not None,
                "for_user_id": request.for_user_id,
                "character": base.character.name if base.character else None,
                "lenient_requested": request.lenient,
            }
            if base.standard is not None:
                payload["standard_test"] = {
                    "id": base.standard.get("id"),
                    "action": base.standard.get("action"),
                    "test_under": base.standard.get("test_under"),
                    "helpful_skills": list(base.standard.get("helpful_skills") or []),
                }
            rows.append(
                _log(
                    caller,
                    kind="test",
                    ruleset=system,
                    expression=f"d{result.die} ≤ {result.target}",
                    label=label,
                    total=result.roll,
                    secret=secret,
                    result=payload,
                    character_id=base.character.id if base.character else None,
                )
            )
    except TestInputError as exc:
        return user_error_reply(ctx, caller.locale, exc)
    except InputError as exc:
        return user_error_reply(ctx, caller.locale, input_refusal(exc))
    await ctx.roll_log.record_rows(rows)  # committed (group commit) before the result is shown
    madness = await _terror_madness(ctx, caller, base, result)

    fields = list(render.check_fields(ctx.catalog, locale, result, lenient=request.lenient))
    if base.standard is not None:
        skills = ", ".join(base.standard.get("helpful_skills") or []) or t(locale, "tests.none")
        fields.append(Field(t(locale, "tests.field.helpful_skills"), skills))
        remarks = base.standard.get("remarks") or {}
        if isinstance(remarks, dict) and remarks:
            fields.append(
                Field(
                    t(locale, "tests.field.remarks"),
                    str(remarks.get("en" if locale.startswith("en") else "fr", "")),
                )
            )
    if madness is not None:
        fields.append(Field(t(locale, "tests.field.madness"), madness))
    title = _test_title(ctx, locale, label, base)
    who = f"<@{request.for_user_id}>" if request.for_user_id else f"<@{caller.user_id}>"
    footer = render.ruleset_footer(
        ctx.catalog, locale, system.value, _manual_note(ctx, locale, roll is not None)
    )
    full = Reply(
        title=title,
        description=render.check_line(ctx.catalog, locale, result) + "\n" + who,
        fields=tuple(fields),
        footer=footer,
        colour=render.colour_of(result),
        result=payload,
        kind="test",
    )
    if not secret:
        if reroll_offered(result, base.character, secret=secret):  # « Relancer (Fortune) »
            return replace(full, buttons=((reroll_button(ctx, locale, result, base.character),),))
        return full
    return secret_reply(
        ctx,
        caller,
        setting,
        request.owner_id,
        full,
        decision=decision,
        subject=render.label_text(ctx.catalog, locale, label) if label else None,
        documents=documents,
        rolled_key="tests.secret.rolled",
        kind="test_secret",
        result={"ruleset": system.value, "label": label},
    )
