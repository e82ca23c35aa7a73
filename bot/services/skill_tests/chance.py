"""``/chance`` (d20 only): the player's d20 against the GM's."""

from __future__ import annotations

from typing import Any

from bot.context import AppContext
from bot.rules.checks.common import System
from bot.rules.d20 import checks as d20
from bot.rules.grammar import InputError
from bot.rules.random_source import RandomSource
from bot.services.caller import Caller
from bot.services.errors import input_refusal, user_error_reply
from bot.services.skill_tests.common import TestInputError, _hand_roll, _log
from bot.services.skill_tests.tables import _setting
from bot.ui import checks_render as render
from bot.ui.reply import Colour, Reply


async def chance_check(
    ctx: AppContext,
    caller: Caller,
    *,
    player_roll: int | None = None,
    gm_roll: int | None = None,
    gm_malus: int = 0,
    rng: RandomSource | None = None,
) -> Reply:
    t, locale = ctx.catalog.t, caller.locale
    rows: list[dict[str, Any]] = []
    try:
        setting = await _setting(ctx, caller)
        if setting.ruleset is not System.D20:
            raise TestInputError(
                "tests.error.chance_d20_only",
                ruleset=render.ruleset_name(ctx.catalog, locale, setting.ruleset.value),
            )
        _hand_roll(System.D20, player_roll)
        _hand_roll(System.D20, gm_roll)
        if gm_malus < 0:
            raise TestInputError("tests.error.modifier_range", value=gm_malus, min=0, max=20)
        result = d20.chance_test(
            rng=rng or ctx.rng, player_roll=player_roll, gm_roll=gm_roll, gm_malus=gm_malus
        )
        payload = {**result.to_dict(), "ruleset": System.D20.value, "manual": player_roll is not None}
        rows.append(
            _log(
                caller,
                kind="chance",
                ruleset=System.D20,
                expression="d20 < d20",
                label=None,
                total=result.player_roll,
                secret=False,
                result=payload,
            )
        )
    except TestInputError as exc:
        return user_error_reply(ctx, caller.locale, exc)
    except InputError as exc:
        return user_error_reply(ctx, caller.locale, input_refusal(exc))
    await ctx.roll_log.record_rows(rows)  # committed (group commit) before the result is shown
    return Reply(
        title="🍀 " + t(locale, "checks.chance.title"),
        description=t(
            locale, "checks.chance.line", player=result.player_roll, gm=result.gm_roll + result.gm_malus
        ),
        fields=render.chance_fields(ctx.catalog, locale, result),
        footer=render.ruleset_footer(ctx.catalog, locale, System.D20.value, t(locale, "tests.chance.rule")),
        colour=Colour.SUCCESS if result.lucky else Colour.FAILURE,
        result=payload,
        kind="chance",
    )
