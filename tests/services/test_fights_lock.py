"""Two users acting on one fight at the same instant, one in its thread and one in the channel it was
opened from (#23 item 13): both are served one after the other, neither is told « quelqu'un a agi en
même temps » — the in-process lock is the fight's, not the channel's."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from bot.context import AppContext
from bot.services.fights._core import _FIGHT_OF_CHANNEL
from bot.services.fights.opening import add_combatants, attach_thread
from bot.services.fights.rounds import set_posture

from .fight_context import ctx, next_round, ok
from .test_fights import ALICE, GM, character, opened

__all__ = ["ctx"]

THREAD = 4242


async def test_the_thread_and_the_parent_channel_queue_on_one_lock(ctx: AppContext) -> None:
    await character(ctx, ALICE.user_id, "Élise", 45)
    fight_id = await opened(ctx)
    await attach_thread(ctx, GM, fight_id, thread_id=THREAD, message_id=THREAD + 1)
    alice = replace(ALICE, channel_id=THREAD)
    ok(await add_combatants(ctx, alice, who="Élise"))
    ok(await add_combatants(ctx, GM, who="gobelin"))  # from the parent channel
    ok(await next_round(ctx, GM, dice="Élise: 15 12 10; Gobelin: 5 5 5"))
    _FIGHT_OF_CHANNEL.clear()  # a fresh process: the first actions learn which fight is where
    postures = ("normale", "prudente", "temeraire", "defensive")
    for turn in range(8):
        mine, his = postures[turn % 4], postures[(turn + 1) % 4]
        both = await asyncio.gather(
            set_posture(ctx, alice, posture=mine),
            set_posture(ctx, GM, posture=his, who="Gobelin"),
        )
        for outcome in both:
            assert not outcome.reply.is_error, outcome.reply.description
    typo = await set_posture(ctx, alice, posture="téméraire!")
    assert typo.reply.description == "Posture inconnue : « téméraire! »."  # never the catalogue key
