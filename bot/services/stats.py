"""Honest dice (``/stats``): how a player's, a character's, a channel's or the server's dice fell.

One aggregate query over ``roll_faces`` (one row per roll and face, with the roll's scope): the sum
of dice per packed key (die size, face, by hand, secret, a test's ruleset, target and critical),
read in order from a covering index ``(guild_id, [user|channel|character]_id, stat_key, created_at,
count)``, so SQLite sums while it reads, without a sort. The chi-square test and the rules'
critical chances are :mod:`bot.rules.dice_stats`; the histogram (:mod:`bot.ui.histogram`) is
rendered in a thread, off the event loop. Secret rolls count for the GM only; dice entered by hand
are shown apart, never tested (a player's own dice say nothing about the bot's).
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, func, select

from bot.context import AppContext
from bot.db import characters as characters_db
from bot.db.models import RollFace
from bot.i18n import language_of
from bot.rules.dice_stats import StatKey, Uniformity, Verdict, expected_criticals, uniformity
from bot.services.caller import Caller
from bot.services.config import config_cache
from bot.services.errors import UserError, user_error_reply
from bot.ui.reply import Attachment, Colour, Field, Reply
from bot.ui.text import user_text

PERIODS: dict[str, timedelta | None] = {
    "day": timedelta(days=1),
    "week": timedelta(days=7),
    "month": timedelta(days=30),
    "year": timedelta(days=365),
    "all": None,
}
SIZES_SHOWN = 8  # die sizes written out (the most rolled); the rest are counted in one line
PANELS_MAX = 4  # die sizes drawn in the histogram


@dataclass
class Tally:
    """The dice of one scope: per size, per face; bot-rolled and hand-entered apart."""

    rolled: dict[int, dict[int, int]] = field(default_factory=lambda: defaultdict(dict))
    by_hand: dict[int, dict[int, int]] = field(default_factory=lambda: defaultdict(dict))
    tests: list[tuple[str, int, int]] = field(default_factory=list)  # (ruleset, target, tests)
    crit_success: int = 0
    crit_failure: int = 0
    hand_tests: int = 0
    secret_dice: int = 0

    @property
    def test_count(self) -> int:
        return sum(n for _, _, n in self.tests)


async def tally(
    ctx: AppContext,
    guild_id: int,
    *,
    user_id: int | None = None,
    channel_id: int | None = None,
    character_id: int | None = None,
    since: datetime | None = None,
    with_secret: bool = False,
) -> Tally:
    """The aggregate query behind ``/stats``."""
    where: list[ColumnElement[bool]] = [RollFace.guild_id == guild_id]
    if user_id is not None:
        where.append(RollFace.user_id == user_id)
    if channel_id is not None:
        where.append(RollFace.channel_id == channel_id)
    if character_id is not None:
        where.append(RollFace.character_id == character_id)
    if since is not None:
        where.append(RollFace.created_at >= since)
    # One integer to group by, in the covering index's order: SQLite sums while it reads the index.
    # Secret rolls are grouped apart and left out here, not in SQL (a filter there made it sort).
    query = select(RollFace.stat_key, func.sum(RollFace.count)).where(*where).group_by(RollFace.stat_key)
    result = Tally()
    per_target: dict[tuple[str, int], int] = defaultdict(int)
    async with ctx.sessions() as session:
        rows = (await session.execute(query)).all()
    for packed, total in rows:
        key, count = StatKey.unpack(int(packed)), int(total)
        if key.secret:
            if not with_secret:
                continue
            result.secret_dice += count
        bucket = result.by_hand if key.manual else result.rolled
        bucket[key.sides][key.face] = bucket[key.sides].get(key.face, 0) + count
        if key.ruleset is None or key.target is None:
            continue
        if key.manual:
            result.hand_tests += count
            continue
        per_target[(key.ruleset, key.target)] += count
        if key.crit == 1:
            result.crit_success += count
        elif key.crit == -1:
            result.crit_failure += count
    result.tests = [(ruleset, target, n) for (ruleset, target), n in sorted(per_target.items())]
    return result


def number(value: float, locale: str, digits: int = 1) -> str:
    """« 10,5 », « 1 234 » in French; « 10.5 », « 1,234 » in English."""
    text = f"{value:,.{digits}f}"
    if language_of(locale) == "en":
        return text
    return text.replace(",", "\u202f").replace(".", ",").replace("-", "−")


def percent(share: float, locale: str) -> str:
    return number(100 * share, locale) + ("\u202f%" if language_of(locale) != "en" else "%")


def p_value_text(p: float, locale: str) -> str:
    if p < 0.001:
        return "< " + number(0.001, locale, 3)
    return number(p, locale, 3 if p < 0.01 else 2)


def _die_line(ctx: AppContext, locale: str, test: Uniformity) -> str:
    t = ctx.catalog.t
    dice = number(test.dice, locale, 0)
    key = "stats.die_one" if test.dice == 1 else "stats.die"
    head = t(locale, key, sides=test.sides, dice=dice)
    if test.mean is not None:
        head += " · " + t(
            locale,
            "stats.mean",
            mean=number(test.mean, locale, 2),
            expected=number(test.expected_mean, locale, 1),
        )
    if test.verdict is Verdict.TOO_FEW:
        return head + "\n" + t(locale, "stats.too_few", needed=number(test.needed, locale, 0))
    assert test.statistic is not None and test.p_value is not None
    verdict = t(locale, f"stats.verdict.{test.verdict.value}")
    return (
        head
        + "\n"
        + t(
            locale,
            "stats.chi_square",
            statistic=number(test.statistic, locale, 1),
            df=test.sides - 1,
            p=p_value_text(test.p_value, locale),
            verdict=verdict,
        )
    )


def _hand_line(ctx: AppContext, locale: str, sides: int, counts: dict[int, int]) -> str:
    dice = sum(counts.values())
    mean = sum(face * n for face, n in counts.items()) / dice
    key = "stats.hand.die_one" if dice == 1 else "stats.hand.die"
    return ctx.catalog.t(
        locale,
        key,
        sides=sides,
        dice=number(dice, locale, 0),
        mean=number(mean, locale, 2),
        expected=number((sides + 1) / 2, locale, 1),
    )


def _criticals(ctx: AppContext, locale: str, found: Tally) -> str | None:
    t = ctx.catalog.t
    tests = found.test_count
    if not tests:
        return None
    expected_s, expected_f = expected_criticals(found.tests)
    lines = [
        t(locale, "stats.tests_one" if tests == 1 else "stats.tests", count=number(tests, locale, 0)),
        t(
            locale,
            "stats.crit_success",
            share=percent(found.crit_success / tests, locale),
            count=number(found.crit_success, locale, 0),
            expected=percent(expected_s / tests, locale),
        ),
        t(
            locale,
            "stats.crit_failure",
            share=percent(found.crit_failure / tests, locale),
            count=number(found.crit_failure, locale, 0),
            expected=percent(expected_f / tests, locale),
        ),
    ]
    return "\n".join(lines)


def _alt_text(ctx: AppContext, locale: str, panels: list[tuple[int, dict[int, int]]]) -> str:
    sizes = ", ".join(f"d{sides}" for sides, _ in panels)
    return ctx.catalog.t(locale, "stats.alt", sizes=sizes)[:1000]


def _render(panels: list[tuple[int, dict[int, int]]]) -> bytes:
    from bot.ui import histogram  # first use only: nobody pays for it before a /stats

    return histogram.render(panels)


async def dice_stats(
    ctx: AppContext,
    caller: Caller,
    *,
    user_id: int | None = None,
    character: str | None = None,
    channel_id: int | None = None,
    period: str = "all",
    now: datetime | None = None,
) -> Reply:
    """The ``/stats`` reply: the text (every figure) and the histogram (PNG)."""
    t, locale = ctx.catalog.t, caller.locale
    try:
        if caller.guild_id is None:
            raise UserError("stats.error.guild_only")
        if period not in PERIODS:
            raise UserError("stats.error.period", value=period[:20])
        if sum(x is not None for x in (user_id, character, channel_id)) > 1:
            raise UserError("stats.error.one_scope")
        found_config = await config_cache(ctx).settings(ctx.sessions, caller.guild_id, caller.channel_chain)
        gm = caller.is_gm(found_config.config)
        character_id: int | None = None
        if character is not None:
            async with ctx.sessions() as session:
                row = await characters_db.find_row(session, caller.guild_id, character)
            if row is None:
                raise UserError("stats.error.no_character", name=user_text(character[:64]))
            character_id, character_name = row.id, row.name
    except UserError as exc:
        return user_error_reply(ctx, locale, exc)
    span = PERIODS[period]
    since = (now or datetime.now(UTC)) - span if span is not None else None
    found = await tally(
        ctx,
        caller.guild_id,
        user_id=user_id,
        channel_id=channel_id,
        character_id=character_id,
        since=since,
        with_secret=gm,
    )
    if user_id is not None:
        scope = t(locale, "stats.scope.user", user=f"<@{user_id}>")
    elif character_id is not None:
        key = "stats.scope.character"  # « d'Élise »: the catalogue's format elides
        scope = t(locale, key, name=user_text(character_name))
    elif channel_id is not None:
        scope = t(locale, "stats.scope.channel", channel=f"<#{channel_id}>")
    else:
        scope = t(locale, "stats.scope.server")
    title = "🎲 " + t(locale, "stats.title", period=t(locale, f"stats.period.{period}"))
    secret_note = t(locale, "stats.footer.gm" if gm else "stats.footer.player")
    footer = t(locale, "stats.footer.rule") + " · " + secret_note
    if not found.rolled and not found.by_hand:
        return Reply(
            title=title,
            description=scope + "\n" + t(locale, "stats.none"),
            footer=footer,
            colour=Colour.INFO,
            ephemeral=True,
            kind="stats",
            result={"dice": 0},
        )
    by_count = sorted(found.rolled.items(), key=lambda item: (-sum(item[1].values()), item[0]))
    shown = sorted(by_count[:SIZES_SHOWN])
    tests = [uniformity(sides, counts) for sides, counts in shown]
    fields = (
        [
            Field(
                name=t(locale, "stats.field.dice"),
                value="\n\n".join(_die_line(ctx, locale, u) for u in tests),
            )
        ]
        if tests
        else []
    )
    if len(by_count) > SIZES_SHOWN:
        others = sum(sum(c.values()) for _, c in by_count[SIZES_SHOWN:])
        fields.append(
            Field(
                name="\u200b",
                value=t(
                    locale,
                    "stats.other_sizes",
                    sizes=len(by_count) - SIZES_SHOWN,
                    dice=number(others, locale, 0),
                ),
            )
        )
    criticals = _criticals(ctx, locale, found)
    if criticals:
        fields.append(Field(name=t(locale, "stats.field.criticals"), value=criticals))
    if found.by_hand:
        hand = [_hand_line(ctx, locale, sides, counts) for sides, counts in sorted(found.by_hand.items())]
        if found.hand_tests:
            hand.append(
                t(
                    locale,
                    "stats.hand.tests" + ("_one" if found.hand_tests == 1 else ""),
                    count=number(found.hand_tests, locale, 0),
                )
            )
        fields.append(Field(name=t(locale, "stats.field.by_hand"), value="\n".join(hand[: SIZES_SHOWN + 1])))
    panels = [(sides, counts) for sides, counts in sorted(by_count[:PANELS_MAX])]
    files: tuple[Attachment, ...] = ()
    if panels:
        png = await asyncio.to_thread(_render, panels)
        files = (Attachment("stats.png", png, _alt_text(ctx, locale, panels)),)
    payload: dict[str, Any] = {
        "dice": sum(u.dice for u in tests),
        "sizes": [
            {
                "sides": u.sides,
                "dice": u.dice,
                "mean": u.mean,
                "chi_square": u.statistic,
                "p_value": u.p_value,
                "verdict": u.verdict.value,
            }
            for u in tests
        ],
        "tests": found.test_count,
        "critical_successes": found.crit_success,
        "critical_failures": found.crit_failure,
        "by_hand": {str(s): sum(c.values()) for s, c in found.by_hand.items()},
        "secret_included": gm,
    }
    return Reply(
        title=title,
        description=scope,
        fields=tuple(fields),
        footer=footer,
        colour=Colour.INFO,
        # The GM's figures may count secret rolls: they stay his.
        ephemeral=gm and found.secret_dice > 0,
        kind="stats",
        result=payload,
        files=files,
    )
