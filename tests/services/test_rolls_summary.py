"""Big rolls stay readable (issue #21): ``/lancer 1000d6`` posts a summary — total, dice per face,
kept and dropped — instead of every die, and every die stays in the structured result."""

from __future__ import annotations

import random
import re
from collections import Counter

from bot.context import AppContext
from bot.services.caller import Caller
from bot.services.rolls import RENDERED_MAX, roll_dice

ALICE = Caller(user_id=1, guild_id=800, channel_id=5, locale="fr")
BOB = Caller(user_id=2, guild_id=800, channel_id=5, locale="en-US")


def _per_face(text: str) -> dict[int, int]:
    line = next(line for line in text.splitlines() if line.startswith(("Dés par face", "Dice per face")))
    return {int(face): int(count) for face, count in re.findall(r"\*\*(\d+)\*\*\s?: (\d+)", line)}


async def test_a_thousand_d6_is_a_summary_with_every_die_kept(app_context: AppContext) -> None:
    reply = await roll_dice(app_context, ALICE, expression="1000d6", rng=random.Random(11))
    assert reply.result is not None and reply.result["summarised"]
    dice = [d["value"] for d in reply.result["groups"][0]["dice"]]
    assert len(dice) == 1000 and sum(dice) == reply.result["total"]
    text = reply.description or ""
    assert len(text) < 600 and f"1000d6 = **{sum(dice)}**" in text
    assert _per_face(text) == {face: Counter(dice)[face] for face in range(1, 7)}
    assert "1000 dés, total" in text and "les 1000 dés sont gardés" in (reply.footer or "")


async def test_kept_and_dropped_dice_and_a_constant(app_context: AppContext) -> None:
    reply = await roll_dice(app_context, ALICE, expression="200d6kh3 + 5", rng=random.Random(4))
    assert reply.result is not None
    group = reply.result["groups"][0]
    kept = sorted((d["value"] for d in group["dice"] if d["kept"]), reverse=True)
    text = reply.description or ""
    assert len(kept) == 3 and reply.result["total"] == sum(kept) + 5
    assert f"200d6kh3 [{sum(kept)}] + 5 = {sum(kept) + 5}" in text
    assert f"3 gardés ({', '.join(map(str, kept))}) · 197 écartés" in text
    assert sum(_per_face(text).values()) == 200


async def test_hundred_sided_dice_go_by_tens_and_dice_typed_by_hand(app_context: AppContext) -> None:
    typed = " ".join(str(v) for v in [5, 15, 95, 100] * 40)  # 160 d100 entered by hand
    reply = await roll_dice(app_context, BOB, expression="160d100", manual=typed)
    text = reply.description or ""
    assert reply.result is not None and reply.result["manual"] and reply.result["total"] == 215 * 40
    assert "**1-10**: 40" in text and "**11-20**: 40" in text and "**91-100**: 80" in text
    assert "160 dice, total 8600" in text and "all 160 dice are kept" in (reply.footer or "")


async def test_small_rolls_still_show_each_die(app_context: AppContext) -> None:
    reply = await roll_dice(app_context, ALICE, expression="4d6kh3", manual="1 3 4 5")
    assert reply.description == "4d6kh3 (~~1~~, 3, 4, 5) = 12"
    assert reply.result is not None and not reply.result["summarised"]
    hundred = await roll_dice(app_context, ALICE, expression="100d6", rng=random.Random(2))
    assert len(hundred.result["rendered"]) <= RENDERED_MAX  # type: ignore[index]
    assert hundred.description == hundred.result["rendered"]  # type: ignore[index]
