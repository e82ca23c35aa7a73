"""One GM queueing 30 ``/simuler`` at once does not hold up the other users (#23 item 1): the
simulations run in an executor of their own with a short queue and a per-user and per-server rate
limit, so the others' ``/lancer`` stay under 3 s at p99 — and the GM is told, privately and in his
language, that the simulator is busy or that he goes too fast."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from .conftest import running
from .support import embed_text, outcome_of

SIMULATIONS = 30
PROFILE = "CC=45 F=35 E=40 Ag=30 arme=epee"


async def test_thirty_simulations_queued_by_one_gm_leave_the_others_rolls_fast(tmp_path: Path) -> None:
    async with running(tmp_path, log_level="WARNING") as table:
        gm, alice, bob = table.user("gm"), table.user("alice"), table.user("bob", locale="en-US")
        latencies: list[float] = []
        stop = asyncio.Event()

        async def rolls(player: object) -> None:
            while not stop.is_set():
                started = time.perf_counter()
                result = await player.slash("lancer", expression="1d100", timeout=30)  # type: ignore[attr-defined]
                latencies.append(time.perf_counter() - started)
                assert not outcome_of(table.emu.messages, result.interaction).refused
                await asyncio.sleep(0.4)  # under the dice bucket (30, then one a second)

        rollers = [asyncio.create_task(rolls(p)) for p in (alice, bob)]
        await asyncio.sleep(0.3)
        asked = await asyncio.gather(
            *(
                gm.slash("simuler", a=PROFILE, b="Orque", duels=1_000_000, timeout=30)
                for _ in range(SIMULATIONS)
            )
        )
        ran = [a for a in asked if a.deferred]
        for answer in ran:
            await answer.wait_response(timeout=60)
        stop.set()
        await asyncio.gather(*rollers)

        refused = [a for a in asked if not a.deferred]
        assert 1 <= len(ran) <= 4, len(ran)  # the GM's burst of the simulation bucket
        texts = [embed_text(a.embed) for a in refused]
        assert len(refused) == SIMULATIONS - len(ran)
        assert all(a.ephemeral for a in refused)
        assert all("Doucement" in t or "simulateur est occupé" in t for t in texts), texts[:3]
        latencies.sort()
        p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]
        assert len(latencies) >= 10 and p99 < 3.0, (len(latencies), p99, latencies[-5:])


def test_discord_host_names_are_resolved_without_the_default_thread_pool() -> None:
    """aiohttp resolves with aiodns when it is installed (a dependency, as discord.py's ``speed``
    extra does): a burst of look-ups no longer queues behind simulations in the default pool."""
    import aiohttp.resolver

    assert aiohttp.resolver.DefaultResolver is aiohttp.resolver.AsyncResolver
