"""Free dice rolls (``/roll``): parse, roll (or take dice entered by hand), log, reply."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from bot.context import AppContext
from bot.rules.dice.engine import DiceGroupResult, RollResult, roll
from bot.rules.dice.errors import DiceError
from bot.rules.dice.manual import ManualDice
from bot.rules.dice.syntax import split_label
from bot.rules.grammar import is_digits
from bot.rules.random_source import RandomSource
from bot.rules.sheet_dice import Resolved, SheetValue, expand, references, resolve, roll_test
from bot.services.caller import Caller
from bot.services.config import config_cache, secret_delivery
from bot.services.errors import UserError, refusal_reply, user_error_reply
from bot.services.sheet_names import character_values, roll_names
from bot.ui.checks_render import check_fields, colour_of, ruleset_footer
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


def _too_many_typed(extra: int) -> ManualDiceError:
    return ManualDiceError("rolls.manual.too_many_dice" + ("_one" if extra == 1 else ""), extra=extra)


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
    shown = expression  # the text an error's caret points into
    named: _Named | None = None
    try:
        if manual:
            manual_dice = ManualDice(parse_manual_dice(manual))
            source = manual_dice
        if references(split_label(text)[0]):
            if caller.guild_id is None:
                return refusal_reply(ctx, locale, "rolls.names.guild_only")
            found = await _named(ctx, caller, text, label)
            if isinstance(found, Reply):
                return found
            named = found
            shown, text = named.shown, named.text
            if named.resolved is not None and named.resolved.test is not None:
                return await _sheet_test(ctx, caller, named, source, manual_dice, secret, owner_id)
        result = roll(text, source)
        if manual_dice is not None and manual_dice.remaining:
            raise _too_many_typed(manual_dice.remaining)
    except _NamedError as exc:
        return dice_error_reply(ctx, locale, exc.error, exc.shown)
    except DiceError as exc:
        return dice_error_reply(ctx, locale, exc, shown)
    except ManualDiceError as exc:
        return user_error_reply(ctx, locale, exc, hint="rolls.manual.hint")
    reply = _describe(ctx, locale, result, manual=manual_dice is not None)
    if named is not None:
        reply = _with_names(ctx, locale, reply, named)
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
        character_id=named.character_id if named is not None else None,
    )
    if secret:
        return await _secret_roll(ctx, caller, reply, result, owner_id)
    return reply


@dataclass(frozen=True, slots=True)
class _Named:
    """An expression whose macros and sheet names are replaced: ``text`` for the engine."""

    text: str
    shown: str  # the expanded expression, where an error's caret points
    label: str | None
    macros: tuple[str, ...]
    character: str | None = None
    character_id: int | None = None
    ruleset: str | None = None
    resolved: Resolved | None = None


class _NamedError(Exception):
    def __init__(self, error: DiceError, shown: str) -> None:
        super().__init__(error.key)
        self.error, self.shown = error, shown


async def _named(ctx: AppContext, caller: Caller, text: str, label: str | None) -> _Named | Reply:
    """Expand the macros, then read the active character's values the expression names."""
    macros, sheet = await roll_names(ctx, caller)
    try:
        expanded = expand(text, macros)
    except DiceError as exc:
        raise _NamedError(exc, split_label(text)[0].strip()) from None
    final_label = label.strip() if label else expanded.label
    body = expanded.body.strip()
    suffix = f" # {final_label}" if final_label else ""
    refs = references(body)
    if not refs:
        return _Named(body + suffix, body, final_label, expanded.macros)
    if sheet is None:
        return refusal_reply(
            ctx,
            caller.locale,
            "rolls.names.no_character",
            hint="rolls.names.no_character_hint",
            name=refs[0].text,
        )
    try:
        resolved = resolve(body, character_values(sheet))
    except DiceError as exc:
        raise _NamedError(exc, body) from None
    return _Named(
        resolved.text + suffix,
        body,
        final_label,
        expanded.macros,
        sheet.name,
        sheet.id,
        sheet.ruleset,
        resolved,
    )


def _values_text(values: tuple[SheetValue, ...]) -> str:
    return " · ".join(f"{user_text(v.name)} = {v.value}" for v in values)


def _names_fields(ctx: AppContext, locale: str, named: _Named) -> list[Field]:
    t = ctx.catalog.t
    fields = []
    if named.resolved is not None and named.resolved.used and named.character is not None:
        value = f"**{user_text(named.character)}** · {_values_text(named.resolved.used)}"
        fields.append(Field(name=t(locale, "rolls.names.sheet"), value=value))
    if named.macros:
        listed = ", ".join(dict.fromkeys(user_text(m) for m in named.macros))
        key = "rolls.names.macro" if len(set(named.macros)) == 1 else "rolls.names.macros"
        fields.append(Field(name=t(locale, key), value=f"{listed} → `{user_text(named.shown)}`"))
    return fields


def _names_payload(named: _Named) -> dict[str, Any]:
    used = named.resolved.used if named.resolved is not None else ()
    return {
        "macros": list(named.macros),
        "character": named.character,
        "sheet_values": {v.name: v.value for v in used},
        "expanded": named.shown,
    }


def _with_names(ctx: AppContext, locale: str, reply: Reply, named: _Named) -> Reply:
    payload = dict(reply.result or {})
    payload.update(_names_payload(named))
    title = reply.title if named.label else f"🎲 {user_text(named.shown)}"  # 1d10+BF, not 1d10 + 6
    fields = (*reply.fields, *_names_fields(ctx, locale, named))
    return replace(reply, title=title, fields=fields, result=payload)


async def _sheet_test(
    ctx: AppContext,
    caller: Caller,
    named: _Named,
    source: RandomSource,
    manual_dice: ManualDice | None,
    secret: bool,
    owner_id: int | None,
) -> Reply:
    """``1d100<=CC``: the system's test (success or failure, °R/°E, margins, MR)."""
    locale, catalog = caller.locale, ctx.catalog
    assert named.resolved is not None and named.resolved.test is not None and named.ruleset is not None
    test = named.resolved.test
    check = roll_test(test, named.ruleset, source)
    if manual_dice is not None and manual_dice.remaining:
        raise _too_many_typed(manual_dice.remaining)
    title = user_text(named.label) if named.label else user_text(test.expression)
    footer = ruleset_footer(catalog, locale, named.ruleset, test.expression)
    if manual_dice is not None:
        footer += " · " + catalog.t(locale, "rolls.manual_short")
    payload: dict[str, Any] = {
        "test": check.to_dict(),
        "expression": test.expression,
        "label": named.label,
        "total": check.roll,
        "manual": manual_dice is not None,
        **_names_payload(named),
    }
    reply = Reply(
        title=f"🎲 {title}",
        fields=(*check_fields(catalog, locale, check), *_names_fields(ctx, locale, named)),
        footer=footer,
        colour=colour_of(check),
        result=payload,
        kind="roll",
    )
    await ctx.roll_log.record(
        guild_id=caller.guild_id,
        channel_id=caller.channel_id,
        user_id=caller.user_id,
        kind="roll",
        expression=test.expression,
        label=named.label,
        total=check.roll,
        secret=secret,
        result=payload,
        character_id=named.character_id,
        ruleset=named.ruleset,
    )
    if secret:
        return await _secret_reply(ctx, caller, reply, named.label, test.expression, owner_id)
    return reply


async def _secret_roll(
    ctx: AppContext, caller: Caller, reply: Reply, result: RollResult, owner_id: int | None
) -> Reply:
    return await _secret_reply(ctx, caller, reply, result.label, result.expression, owner_id)


async def _secret_reply(
    ctx: AppContext, caller: Caller, reply: Reply, label: str | None, expression: str, owner_id: int | None
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
    what = user_text(label) if label else f"`{user_text(expression)}`"
    above = f"{for_gm.description}\n" if for_gm.description else ""
    for_gm = replace(for_gm, description=above + t(locale, "rolls.secret_by", user=user))
    why = t(locale, "rolls.secret_why", roll=what)
    notice = Reply(
        description="🔒 " + t(locale, "rolls.secret_rolled", user=user, roll=what) + "\n" + why,
        colour=Colour.SECRET,
        kind="roll_secret",
        result={"secret": True, "why": "player", "label": label},
    )
    undelivered = "🔒 " + t(locale, "rolls.secret_not_delivered", user=user, roll=what) + "\n" + why
    return secret_delivery(found.config, owner_id, for_gm, notice, undelivered=undelivered)
