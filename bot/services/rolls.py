"""Free dice rolls (``/roll``): parse, roll (or take dice entered by hand), log, reply."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from bot.context import AppContext
from bot.rules.dice.engine import RollResult, roll
from bot.rules.dice.errors import DiceError
from bot.rules.dice.manual import ManualDice
from bot.rules.grammar import is_digits
from bot.rules.random_source import RandomSource
from bot.services.caller import Caller
from bot.services.config import config_cache, secret_delivery
from bot.services.errors import UserError, user_error_reply
from bot.ui.reply import Colour, Field, Reply
from bot.ui.text import user_text

MANUAL_DICE_MAX = 1000
_MANUAL_SPLIT = re.compile(r"[\s,;]+")


class ManualDiceError(UserError):
    """Dice entered by hand that cannot be read (or do not match the expression)."""


def parse_manual_dice(text: str) -> list[int]:
    """``"12, 5, 18"`` → ``[12, 5, 18]``; ``00`` on a d100 is 100 (the player's reading)."""
    values: list[int] = []
    for part in _MANUAL_SPLIT.split(text.strip()):
        if not part:
            continue
        if not is_digits(part, 6):
            raise ManualDiceError("rolls.manual.not_a_number", value=part[:20])
        values.append(100 if part in ("00", "000") else int(part))
        if len(values) > MANUAL_DICE_MAX:
            raise ManualDiceError("rolls.manual.too_many_values", limit=MANUAL_DICE_MAX)
    if not values:
        raise ManualDiceError("rolls.manual.empty")
    return values


def dice_error_reply(ctx: AppContext, locale: str, error: DiceError, expression: str) -> Reply:
    params: dict[str, Any] = dict(error.params)
    caret: tuple[str, ...] = ()
    if error.position is not None and 0 <= error.position <= len(expression) and len(expression) <= 120:
        caret = (f"`{expression}`", f"`{' ' * error.position}^`")
    return user_error_reply(
        ctx, locale, UserError(error.key, **params), hint="dice.syntax_hint", details=caret
    )


def _describe(ctx: AppContext, locale: str, result: RollResult, *, manual: bool) -> Reply:
    t = ctx.catalog.t
    title = user_text(result.label) if result.label else user_text(result.expression)
    fields = [Field(name=t(locale, "rolls.total"), value=f"**{result.total}**", inline=True)]
    if result.successes is not None:
        fields.append(Field(name=t(locale, "rolls.successes"), value=str(result.successes), inline=True))
    footer = t(locale, "rolls.footer_manual" if manual else "rolls.footer", expression=result.expression)
    payload = result.to_dict()
    payload["manual"] = manual
    return Reply(
        title=f"🎲 {title}",
        description=result.rendered,
        fields=tuple(fields),
        footer=footer,
        colour=Colour.NEUTRAL,
        result=payload,
        kind="roll",
    )


async def roll_dice(
    ctx: AppContext,
    caller: Caller,
    *,
    expression: str,
    label: str | None = None,
    secret: bool = False,
    manual: str | None = None,
    rng: RandomSource | None = None,
    owner_id: int | None = None,
) -> Reply:
    """A free roll. ``secret``: the GM's alone, like every secret result — the GM's own roll is
    answered privately; a player's goes where secret results go (the GM channel when one is set,
    else the GM's DMs; ``owner_id``: the server owner, the last resort) and the table is told a
    secret roll was made, and why."""
    locale = caller.locale
    text = expression.strip()
    if label:
        text = f"{text} # {label.strip()}"
    source: RandomSource = rng or ctx.rng
    manual_dice: ManualDice | None = None
    try:
        if manual:
            manual_dice = ManualDice(parse_manual_dice(manual))
            source = manual_dice
        result = roll(text, source)
        if manual_dice is not None and manual_dice.remaining:
            raise ManualDiceError("rolls.manual.too_many_dice", extra=manual_dice.remaining)
    except DiceError as exc:
        return dice_error_reply(ctx, locale, exc, expression)
    except ManualDiceError as exc:
        return user_error_reply(ctx, locale, exc, hint="rolls.manual.hint")
    reply = _describe(ctx, locale, result, manual=manual_dice is not None)
    await ctx.roll_log.record(
        guild_id=caller.guild_id,
        channel_id=caller.channel_id,
        user_id=caller.user_id,
        kind="roll",
        expression=result.expression,
        label=result.label,
        total=result.total,
        secret=secret,
        result=reply.result or {},
    )
    if secret:
        return await _secret_roll(ctx, caller, reply, result, owner_id)
    return reply


async def _secret_roll(
    ctx: AppContext, caller: Caller, reply: Reply, result: RollResult, owner_id: int | None
) -> Reply:
    t, locale = ctx.catalog.t, caller.locale
    footer = (reply.footer or "") + " · " + t(locale, "rolls.secret")
    for_gm = replace(reply, title=f"🔒 {reply.title}", footer=footer)
    if caller.guild_id is None:
        return replace(for_gm, ephemeral=True)
    found = await config_cache(ctx).settings(ctx.sessions, caller.guild_id, caller.channel_chain)
    if caller.is_gm(found.config):
        return replace(for_gm, ephemeral=True)
    user = f"<@{caller.user_id}>"
    what = user_text(result.label) if result.label else f"`{user_text(result.expression)}`"
    for_gm = replace(for_gm, description=f"{for_gm.description}\n{t(locale, 'rolls.secret_by', user=user)}")
    why = t(locale, "rolls.secret_why", roll=what)
    notice = Reply(
        description="🔒 " + t(locale, "rolls.secret_rolled", user=user, roll=what) + "\n" + why,
        colour=Colour.SECRET,
        kind="roll_secret",
        result={"secret": True, "why": "player", "label": result.label},
    )
    undelivered = "🔒 " + t(locale, "rolls.secret_not_delivered", user=user, roll=what) + "\n" + why
    return secret_delivery(found.config, owner_id, for_gm, notice, undelivered=undelivered)
