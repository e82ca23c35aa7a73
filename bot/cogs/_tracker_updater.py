"""One tracker updater per fight: the pinned tracker shows the newest state, whatever the order
in which actions finish, whatever Discord's rate limits.

Every fight outcome carries a rendering of the tracker and a version (taken under the fight's
lock, so versions follow the order in which the fight changed). Replies are sent at once by the
cogs; the tracker edit is handed to this updater, which for each fight

- sends one edit at a time and only the newest rendering: what piles up while an edit is in
  flight (or waiting behind a rate limit) is merged into the next edit;
- never goes backwards: a rendering older than the one shown is dropped;
- unarchives the bot's own fight thread when Discord refuses an edit there (400 50083) and retries;
- reposts and re-pins the tracker before it is an hour old (edits of older messages are limited,
  error 30046), deleting the old one, and remembers the new message;
- archives the thread at the end of the fight only if the bot created it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Final

import discord

from bot.services.caller import Caller
from bot.services.fights._core import FightOutcome
from bot.services.fights.opening import attach_thread
from bot.ui.discord_render import content_of, to_embed, to_view
from bot.ui.reply import Reply

log = logging.getLogger(__name__)

THREAD_ARCHIVED: Final = 50083
OLD_MESSAGE_EDITS: Final = 30046
UNKNOWN_MESSAGE: Final = 10008
# Edits of messages older than an hour are limited: post a fresh tracker a little before.
REPOST_AFTER: Final = timedelta(minutes=55)


@dataclass(slots=True)
class Rendering:
    version: int
    tracker: Reply
    thread_id: int
    message_id: int | None
    archive: bool
    caller: Caller
    fight_id: int


@dataclass(slots=True)
class FightTracker:
    """What the updater knows of one fight's tracker."""

    sent_version: int = -1
    pending: Rendering | None = None
    message_id: int | None = None
    # Discord's time, from the newest interaction's snowflake (the machine's clock may differ).
    now: datetime | None = None
    task: asyncio.Task[None] | None = None
    edits: int = 0
    history: list[int] = field(default_factory=list)  # versions shown, in order (for tests, logs)


class TrackerUpdater:
    def __init__(self, client: discord.Client) -> None:
        self.client = client
        self.fights: dict[int, FightTracker] = {}

    def submit(self, interaction: discord.Interaction[Any], outcome: FightOutcome) -> None:
        """Queue the outcome's tracker rendering; returns at once."""
        if outcome.tracker is None or outcome.thread_id is None or outcome.fight_id is None:
            return
        from bot.cogs._common import caller_of

        rendering = Rendering(
            version=outcome.tracker_version,
            tracker=outcome.tracker,
            thread_id=outcome.thread_id,
            message_id=outcome.tracker_message_id,
            archive=outcome.archive,
            caller=caller_of(interaction),
            fight_id=outcome.fight_id,
        )
        self.queue(rendering, interaction.created_at)

    def queue(self, rendering: Rendering, now: datetime) -> None:
        """Keep ``rendering`` if it is newer than what is shown or waiting; start the fight's
        single edit loop if it is not running."""
        state = self.fights.setdefault(rendering.fight_id, FightTracker())
        state.now = now if state.now is None or now > state.now else state.now
        newest = state.pending.version if state.pending is not None else state.sent_version
        if rendering.version <= newest:
            return  # an older state than the one shown (or about to be): never go backwards
        state.pending = rendering
        if state.task is None or state.task.done():
            # named "melee-…": the console waits for such tasks before its next line (``!pins``)
            state.task = asyncio.get_running_loop().create_task(
                self._run(state), name=f"melee-tracker-{rendering.fight_id}"
            )

    async def idle(self) -> None:
        """Wait until every queued edit is sent (tests, shutdown)."""
        while tasks := [s.task for s in self.fights.values() if s.task is not None and not s.task.done()]:
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _run(self, state: FightTracker) -> None:
        while state.pending is not None:
            item, state.pending = state.pending, None
            if item.version <= state.sent_version:
                continue
            try:
                await self._show(state, item)
            except Exception:  # one failed edit must not stop the fight's later edits
                log.exception("tracker update of fight %s failed", item.fight_id)
            state.sent_version = item.version
            state.history.append(item.version)
            if item.archive and state.pending is None:
                self.fights.pop(item.fight_id, None)  # the fight is over: forget it

    async def _channel(self, thread_id: int) -> discord.abc.GuildChannel | discord.Thread | None:
        channel = self.client.get_channel(thread_id)
        if channel is None:
            try:
                fetched = await self.client.fetch_channel(thread_id)
            except discord.HTTPException:
                return None
            channel = fetched if isinstance(fetched, discord.abc.GuildChannel | discord.Thread) else None
        return channel if isinstance(channel, discord.abc.GuildChannel | discord.Thread) else None

    def _own_thread(self, channel: object) -> bool:
        user = self.client.user
        return isinstance(channel, discord.Thread) and user is not None and channel.owner_id == user.id

    async def _show(self, state: FightTracker, item: Rendering) -> None:
        channel = await self._channel(item.thread_id)
        if not isinstance(channel, discord.Thread | discord.TextChannel):
            log.warning("fight %s: its thread %s is gone", item.fight_id, item.thread_id)
            return
        message_id = state.message_id or item.message_id
        if isinstance(channel, discord.Thread) and channel.archived and self._own_thread(channel):
            await self._unarchive(channel)
        if message_id is None or self._too_old(state, message_id):
            await self._repost(state, item, channel, message_id)
        else:
            await self._edit(state, item, channel, message_id)
        if item.archive and isinstance(channel, discord.Thread) and self._own_thread(channel):
            # Only the thread the bot opened for the fight: never one the GM made.
            try:
                await channel.edit(archived=True)
            except discord.HTTPException:
                log.warning("could not archive the thread %s", channel.id)

    def _too_old(self, state: FightTracker, message_id: int) -> bool:
        if state.now is None:
            return False
        return state.now - discord.utils.snowflake_time(message_id) >= REPOST_AFTER

    async def _edit(
        self,
        state: FightTracker,
        item: Rendering,
        channel: discord.Thread | discord.TextChannel,
        message_id: int,
    ) -> None:
        kwargs: dict[str, Any] = {
            "embed": to_embed(item.tracker),
            "view": to_view(item.tracker),
            "content": content_of(item.tracker),
        }
        for attempt in range(2):
            try:
                await channel.get_partial_message(message_id).edit(**kwargs)
                state.edits += 1
                return
            except discord.HTTPException as exc:
                if exc.code == THREAD_ARCHIVED and attempt == 0 and isinstance(channel, discord.Thread):
                    if not self._own_thread(channel) or not await self._unarchive(channel):
                        break
                    continue
                if exc.code in (OLD_MESSAGE_EDITS, UNKNOWN_MESSAGE):
                    await self._repost(state, item, channel, message_id)
                    return
                log.warning("could not edit the tracker %s (%s)", message_id, exc)
                return
        log.warning("could not edit the tracker %s in an archived thread", message_id)

    async def _unarchive(self, thread: discord.Thread) -> bool:
        try:
            await thread.edit(archived=False)
            return True
        except discord.HTTPException as exc:
            log.warning("could not unarchive the thread %s (%s)", thread.id, exc)
            return False

    async def _repost(
        self,
        state: FightTracker,
        item: Rendering,
        channel: discord.Thread | discord.TextChannel,
        old_id: int | None,
    ) -> None:
        """A fresh tracker message, pinned, the old one unpinned and deleted."""
        from bot.cogs._common import _message_kwargs

        try:
            message = await channel.send(**_message_kwargs(item.tracker))
        except discord.HTTPException as exc:
            log.warning("could not repost the tracker of fight %s (%s)", item.fight_id, exc)
            return
        state.message_id = message.id
        state.edits += 1
        if self._may_pin(channel):  # the GM was told at /combat ouvrir when it may not
            with contextlib.suppress(discord.HTTPException):
                await message.pin()
        await attach_thread(
            self.client_ctx(), item.caller, item.fight_id, thread_id=channel.id, message_id=message.id
        )
        if old_id is not None:
            old = channel.get_partial_message(old_id)
            if self._may_pin(channel):
                with contextlib.suppress(discord.HTTPException):
                    await old.unpin()
            with contextlib.suppress(discord.HTTPException):
                await old.delete()

    @staticmethod
    def _may_pin(channel: discord.Thread | discord.TextChannel) -> bool:
        me = channel.guild.me
        return me is None or channel.permissions_for(me).pin_messages

    def client_ctx(self) -> Any:
        return getattr(self.client, "ctx")  # noqa: B009 - MeleeBot.ctx, without importing bot.app


def updater_of(client: discord.Client) -> TrackerUpdater:
    """The bot's one updater (made on first use)."""
    updater: TrackerUpdater | None = getattr(client, "_melee_tracker_updater", None)
    if updater is None:
        updater = TrackerUpdater(client)
        setattr(client, "_melee_tracker_updater", updater)  # noqa: B010
    return updater
