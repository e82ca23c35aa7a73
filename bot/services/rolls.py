"""Free dice rolls (``/roll``): parse, roll (or take dice entered by hand), log, reply."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from typing import Any

from bot.context import AppContext
from bot.rules.dice.engine import DiceGroupResult, RollResult, roll
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
# A roll whose dice, written one by one, pass this many characters is posted as a summary (total,
# counts per face, kept/dropped); every die stays in the structured result and the roll log.
RENDERED_MAX = 500
GROUP_SHOWN_MAX = 10  # a group of at most this many dice is still written die by die
FACES_LISTED_MAX = 20  # above this many faces, the counts go by bands of ten (1-10, 11-20 …)
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


def _group_summary(ctx: AppContext, locale: str, group: DiceGroupResult) -> str:
    """« **1000d6** : 1000 dés, total 3512 », the number of dice rolled per face (bands of ten above
    20 faces), then what was kept, dropped, rerolled or exploded and the successes."""
    t = ctx.catalog.t
    kept = [die.value for die in group.dice if die.kept]
    rolled = [die.value for die in group.dice]  # every die rolled, dropped and rerolled ones too
    lines = [
        t(
            locale,
            "rolls.summary.group",
            expression=group.expression,
            count=len(group.dice),
            total=group.total,
        )
    ]
    counts = Counter(rolled)
    if group.sides <= FACES_LISTED_MAX:
        faces = [
            t(locale, "rolls.summary.face", face=face, count=counts[face])
            for face in range(1, group.sides + 1)
        ]
    else:
        bands = Counter((value - 1) // 10 for value in rolled)
        faces = [
            t(
                locale,
                "rolls.summary.band",
                low=band * 10 + 1,
                high=min(group.sides, band * 10 + 10),
                count=bands[band],
            )
            for band in range((group.sides + 9) // 10)
        ]
    lines.append(t(locale, "rolls.summary.faces", faces=" · ".join(faces)))
    dropped = sum(1 for die in group.dice if not die.kept and not die.rerolled)
    rerolled = sum(1 for die in group.dice if die.rerolled)
    exploded = sum(1 for die in group.dice if die.exploded)
    extra = []
    if dropped:
        shown = _counted(ctx, locale, "rolls.summary.kept", len(kept))
        if len(kept) <= GROUP_SHOWN_MAX:  # the few dice kept, by value
            shown += " (" + ", ".join(map(str, sorted(kept, reverse=True))) + ")"
        extra.append(shown)
        extra.append(_counted(ctx, locale, "rolls.summary.dropped", dropped))
    if rerolled:
        extra.append(_counted(ctx, locale, "rolls.summary.rerolled", rerolled))
    if exploded:
        extra.append(_counted(ctx, locale, "rolls.summary.exploded", exploded))
    if group.successes is not None:
        extra.append(_counted(ctx, locale, "rolls.summary.successes", group.successes))
    if extra:
        lines.append(" · ".join(extra))
    return "\n".join(lines)


def _counted(ctx: AppContext, locale: str, key: str, count: int) -> str:
    return ctx.catalog.t(locale, key + ("_one" if count == 1 else ""), count=count)


def _rendered(ctx: AppContext, locale: str, result: RollResult) -> tuple[str, bool]:
    """The roll as posted: die by die, or — past :data:`RENDERED_MAX` characters — the expression
    with each big group's subtotal, then one summary per big group. Second: whether it is summarised."""
    if len(result.rendered) <= RENDERED_MAX:
        return result.rendered, False
    big = [g for g in result.groups if len(g.dice) > GROUP_SHOWN_MAX]
    line = result.rendered
    if len(result.groups) == 1 and line == f"{result.groups[0].rendered} = {result.total}":
        line = f"{result.expression} = **{result.total}**"  # one group alone: its total is the roll's
    for group in big:
        line = line.replace(group.rendered, f"{group.expression} [{group.total}]", 1)
    if len(line) > RENDERED_MAX:  # many small groups: only the expression and the total
        line = f"{result.expression} = {result.total}"
    return "\n\n".join([line, *(_group_summary(ctx, locale, g) for g in big)]), True


def _describe(ctx: AppContext, locale: str, result: RollResult, *, manual: bool) -> Reply:
    t = ctx.catalog.t
    title = user_text(result.label) if result.label else user_text(result.expression)
    fields = [Field(name=t(locale, "rolls.total"), value=f"**{result.total}**", inline=True)]
    if result.successes is not None:
        fields.append(Field(name=t(locale, "rolls.successes"), value=str(result.successes), inline=True))
    footer = t(locale, "rolls.footer_manual" if manual else "rolls.footer", expression=result.expression)
    description, summarised = _rendered(ctx, locale, result)
    if summarised:
        dice = sum(len(g.dice) for g in result.groups)
        footer += " · " + t(locale, "rolls.summary.footer", count=dice)
    payload = result.to_dict()
    payload["manual"] = manual
    payload["summarised"] = summarised
    return Reply(
        title=f"🎲 {title}",
        description=description,
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
