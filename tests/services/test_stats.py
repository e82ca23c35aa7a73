"""/stats on seeded roll logs: the verdict on fair and loaded dice, secret rolls for the GM only,
dice entered by hand apart, the period, and the histogram attached."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import update

from bot.context import AppContext
from bot.db.models import RollFace
from bot.db.roll_log import log_row
from bot.rules.checks.dispatch import result_from_roll
from bot.rules.dice.engine import roll
from bot.rules.dice.manual import ManualDice
from bot.services.caller import Caller
from bot.services.stats import dice_stats

GUILD = 555
ALICE, BOB, GM = 11, 12, 99


def caller(user_id: int, *, gm: bool = False, locale: str = "fr") -> Caller:
    return Caller(user_id=user_id, guild_id=GUILD, channel_id=42, locale=locale, manage_guild=gm)


class Loaded:
    """A d20 that shows 20 one time in ten (instead of one in twenty)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def randint(self, a: int, b: int) -> int:
        if b == 20 and self.rng.random() < 0.10:
            return 20
        return self.rng.randint(a, b - 1 if b == 20 else b)


def roll_rows(user_id: int, expression: str, source: Any, count: int, **extra: Any) -> list[dict[str, Any]]:
    manual = isinstance(source, ManualDice)
    rows = []
    for _ in range(count):
        result = roll(expression, source)
        rows.append(
            log_row(
                guild_id=GUILD,
                channel_id=42,
                user_id=user_id,
                kind="roll",
                expression=result.expression,
                total=result.total,
                result={**result.to_dict(), "manual": manual},
                **extra,
            )
        )
    return rows


def check_rows(user_id: int, rng: random.Random, count: int, *, secret: bool = False) -> list[dict[str, Any]]:
    rows = []
    for _ in range(count):
        result = result_from_roll("renove", 45, (), rng.randint(1, 100))
        rows.append(
            log_row(
                guild_id=GUILD,
                channel_id=42,
                user_id=user_id,
                kind="test",
                ruleset="renove",
                expression="d100 ≤ 45",
                total=result.roll,
                secret=secret,
                result={**result.to_dict(), "manual": False},
            )
        )
    return rows


async def test_a_fair_log_is_fine_and_a_loaded_one_is_flagged(app_context: AppContext) -> None:
    await app_context.roll_log.record_rows(roll_rows(ALICE, "1d20", random.Random(1), 3000))
    await app_context.roll_log.record_rows(roll_rows(BOB, "1d20", Loaded(2), 3000))
    fair = await dice_stats(app_context, caller(GM, gm=True), user_id=ALICE)
    loaded = await dice_stats(app_context, caller(GM, gm=True), user_id=BOB)
    assert fair.result is not None and loaded.result is not None
    (d20,) = fair.result["sizes"]
    assert d20["sides"] == 20 and d20["dice"] == 3000 and d20["verdict"] == "fine"
    assert "rien d'anormal" in fair.fields[0].value
    (d20,) = loaded.result["sizes"]
    assert d20["verdict"] == "watch" and d20["p_value"] < 1e-6
    assert "à surveiller" in loaded.fields[0].value and "p = < 0,001" in loaded.fields[0].value
    # The server mixes both: the loaded die still shows.
    server = await dice_stats(app_context, caller(ALICE))
    assert server.result is not None and server.result["sizes"][0]["dice"] == 6000
    assert server.result["sizes"][0]["verdict"] == "watch"
    # The histogram comes with it.
    (png,) = server.files
    assert png.filename == "stats.png" and png.data.startswith(b"\x89PNG\r\n\x1a\n")
    assert png.description and "d20" in png.description


async def test_secret_rolls_count_for_the_gm_only(app_context: AppContext) -> None:
    rng = random.Random(5)
    await app_context.roll_log.record_rows(check_rows(ALICE, rng, 200))
    await app_context.roll_log.record_rows(check_rows(ALICE, rng, 50, secret=True))
    player = await dice_stats(app_context, caller(BOB))
    gm = await dice_stats(app_context, caller(GM, gm=True))
    assert player.result is not None and gm.result is not None
    assert player.result["tests"] == 200 and gm.result["tests"] == 250
    assert not player.ephemeral and gm.ephemeral  # the GM's figures count secret rolls: private
    assert "sans les jets secrets" in (player.footer or "")
    # The criticals against the rules' 2 % each (renove, target 45).
    criticals = next(f.value for f in gm.fields if f.name == "Critiques des tests")
    assert "contre 2,0\u202f% attendus" in criticals
    successes = gm.result["critical_successes"]
    assert f"({successes})" in criticals


async def test_dice_entered_by_hand_are_shown_apart(app_context: AppContext) -> None:
    await app_context.roll_log.record_rows(roll_rows(ALICE, "1d6", random.Random(3), 60))
    await app_context.roll_log.record_rows(roll_rows(ALICE, "3d6", ManualDice([6, 6, 6]), 1))
    reply = await dice_stats(app_context, caller(ALICE, locale="en"), user_id=ALICE)
    assert reply.result is not None
    assert reply.result["sizes"][0]["dice"] == 60  # the hand-entered sixes are not tested
    assert reply.result["by_hand"] == {"6": 3}
    hand = next(f.value for f in reply.fields if f.name.startswith("Dice entered by hand"))
    assert hand == "d6: 3 dice, mean 6.00 (expected 3.5)"


async def test_too_few_dice_and_the_period(app_context: AppContext) -> None:
    await app_context.roll_log.record_rows(roll_rows(ALICE, "1d100", random.Random(4), 40))
    reply = await dice_stats(app_context, caller(ALICE), period="week")
    assert reply.result is not None and reply.result["sizes"][0]["verdict"] == "too_few"
    assert "il en faut au moins 500 (5 par face)" in reply.fields[0].value
    async with app_context.sessions.begin() as session:  # these rolls were made a month ago
        await session.execute(update(RollFace).values(created_at=datetime.now(UTC) - timedelta(days=31)))
    week = await dice_stats(app_context, caller(ALICE), period="week")
    assert week.result == {"dice": 0} and "Aucun dé lancé sur cette période." in (week.description or "")
    year = await dice_stats(app_context, caller(ALICE), period="year")
    assert year.result is not None and year.result["dice"] == 40


async def test_bad_requests_are_refused_privately(app_context: AppContext) -> None:
    unknown = await dice_stats(app_context, caller(ALICE), character="Personne")
    assert unknown.is_error and unknown.ephemeral
    assert "Aucun personnage nommé « Personne »" in (unknown.description or "")
    both = await dice_stats(app_context, caller(ALICE), user_id=BOB, channel_id=42)
    assert both.is_error and "un seul des trois" in (both.description or "")


async def test_an_opposed_test_counts_each_rounds_dice(app_context: AppContext) -> None:
    from bot.services.skill_tests.opposed import OpposeRequest, opposed_check

    request = OpposeRequest(side_a="Hans=40", side_b="Otto=35", rolls_a="50 01", rolls_b="50 99")
    reply = await opposed_check(app_context, caller(ALICE), request, rng=random.Random(1))
    assert not reply.is_error and reply.result is not None
    rounds = reply.result["rounds"]
    stats = await dice_stats(app_context, caller(ALICE), user_id=ALICE)
    assert stats.result is not None
    # Every round rolls one d100 a side (entered by hand here: counted apart), once each.
    assert stats.result["by_hand"] == {"100": 2 * len(rounds)}
    hand = next(f.value for f in stats.fields if f.name.startswith("Dés entrés à la main"))
    assert f"d100 : {2 * len(rounds)} dés" in hand and f"dont {2 * len(rounds)} dés de tests" in hand
