"""The tracker updater alone: one edit at a time, only the newest rendering, never backwards."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from bot.cogs._tracker_updater import Rendering, TrackerUpdater
from bot.services.caller import Caller
from bot.ui.reply import Reply

NOW = datetime(2026, 12, 2, tzinfo=UTC)


def _rendering(version: int, *, archive: bool = False) -> Rendering:
    caller = Caller(user_id=1, guild_id=2, channel_id=3, parent_channel_id=None, locale="fr")
    return Rendering(
        version=version,
        tracker=Reply(description=f"v{version}"),
        thread_id=3,
        message_id=4,
        archive=archive,
        caller=caller,
        fight_id=7,
    )


class SlowUpdater(TrackerUpdater):
    """Each edit waits until the test lets it through."""

    def __init__(self) -> None:
        super().__init__(client=None)  # type: ignore[arg-type]
        self.shown: list[int] = []
        self.gate = asyncio.Event()
        self.in_flight = 0
        self.most_in_flight = 0

    async def _show(self, state: Any, item: Rendering) -> None:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        await self.gate.wait()
        self.shown.append(item.version)
        self.in_flight -= 1


async def test_what_piles_up_is_merged_and_older_states_are_dropped() -> None:
    updater = SlowUpdater()
    updater.queue(_rendering(1), NOW)
    await asyncio.sleep(0)  # the first edit is in flight, waiting on the gate
    for version in (3, 2, 5, 4):  # arrive out of order while it waits
        updater.queue(_rendering(version), NOW)
    updater.gate.set()
    await updater.idle()
    assert updater.shown == [1, 5]  # the newest only; 2, 3 and 4 merged into it
    assert updater.most_in_flight == 1  # one edit at a time
    updater.queue(_rendering(4), NOW)  # older than what is shown: never backwards
    await updater.idle()
    assert updater.shown == [1, 5]
    updater.queue(_rendering(6, archive=True), NOW)
    await updater.idle()
    assert updater.shown == [1, 5, 6] and 7 not in updater.fights  # an ended fight is forgotten
