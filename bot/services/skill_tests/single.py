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
from dataclasses import dataclass, replace
from typing import Any

from bot.context import AppContext
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
)
from bot.services.skill_tests.difficulty import find_grade
from bot.services.skill_tests.secrecy import decide, secret_reply
from bot.services.skill_tests.tables import Documents, _setting, find_standard_row, secrecy_of
from bot.ui import checks_render as render
from bot.ui.reply import Field, Reply


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
            raise TestInputError(
                "tests.error.action_needs_value", action=test.action, under=test.characteristic
            )
        try:
            value, label = test.base(sheet.characteristics)
        except KeyError:
            raise TestInputError(
                "tests.error.unknown_stat", name=test.characteristic, character=sheet.name
            ) from None
        return _Base(_check_target(value), f"{test.action} ({label})", sheet, standard=row)
    if number is not None:
        return _Base(_check_target(number), request.skill or "checks.modifier.base")
    name = carac or request.skill
    if not name:
        raise TestInputError("tests.error.nothing_to_test", hint="tests.hint.test")
    base = await _character_value(session, caller, subject, name, system)
    _check_target(base.value)
    return base


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
