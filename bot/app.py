"""The Bot subclass: opens the database, loads data and cogs, sets the translator, syncs."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import gc
import hashlib
import json
import logging
import os
import random
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import aiohttp
import discord
from discord import app_commands
from discord.ext import commands, tasks
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.config import Settings
from bot.context import AppContext, utc_now
from bot.data_loading import load_all, release_validators
from bot.db import command_sync
from bot.db import session as db_session
from bot.db.roll_log import RollLogWriter
from bot.i18n import Catalog, default_catalog
from bot.i18n.translator import CatalogTranslator
from bot.services.fights import systems as fight_systems

log = logging.getLogger(__name__)

COGS_DIR = Path(__file__).resolve().parent / "cogs"
# Every module of bot/cogs not starting with "_" is an extension (one feature, one file).
EXTENSIONS = tuple(f"bot.cogs.{path.stem}" for path in sorted(COGS_DIR.glob("[!_]*.py")))

HEALTH_FILE_ENV = "MELEE_HEALTH_FILE"
WATCHDOG_SECONDS = 2.7  # Discord refuses a first answer after 3 s
HEALTH_INTERVAL_SECONDS = 30


def intents() -> discord.Intents:
    # Slash commands need no privileged intent: guilds only (channels, roles, threads).
    return discord.Intents(guilds=True)


def health_file() -> Path:
    return Path(os.environ.get(HEALTH_FILE_ENV, "var/health"))


def trim_heap() -> None:
    """Give the C heap's free pages back to the system (glibc only): start-up frees a few MiB
    (JSON parsing, schema validators) that would otherwise stay resident."""
    with contextlib.suppress(OSError, AttributeError):  # not glibc (musl, macOS): nothing to do
        ctypes.CDLL(None).malloc_trim(0)  # the C library the interpreter is linked with


class MeleeTree(app_commands.CommandTree["MeleeBot"]):
    async def interaction_check(self, interaction: discord.Interaction[MeleeBot]) -> bool:
        from bot.cogs._guard import check_command  # malformed options, rate limits

        return await check_command(self, interaction)

    async def on_error(
        self, interaction: discord.Interaction[MeleeBot], error: app_commands.AppCommandError
    ) -> None:
        from bot.cogs._common import report_unexpected_error

        await report_unexpected_error(interaction, error)


class MeleeBot(commands.AutoShardedBot):
    """One class for one connection or several shards (``SHARD_COUNT``/``SHARD_IDS``)."""

    def __init__(
        self,
        settings: Settings,
        *,
        rng: random.Random | None = None,
        catalog: Catalog | None = None,
        guild_ready_timeout: float = 2.0,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        shard_kwargs: dict[str, Any] = {}
        if settings.shard_count is not None:
            shard_kwargs["shard_count"] = settings.shard_count
            if settings.shard_ids is not None:
                shard_kwargs["shard_ids"] = list(settings.shard_ids)
        else:
            shard_kwargs["shard_count"] = 1
        super().__init__(
            command_prefix=commands.when_mentioned,
            help_command=None,
            intents=intents(),
            tree_cls=MeleeTree,
            allowed_mentions=discord.AllowedMentions.none(),
            guild_ready_timeout=guild_ready_timeout,
            chunk_guilds_at_startup=False,
            **shard_kwargs,
        )
        self.settings = settings
        self._rng = rng or random.Random()
        self._now = now
        self._catalog = catalog or default_catalog()
        self._gc_managed = False  # the bot turns the cyclic collector on and off (setup_hook)
        self.engine: AsyncEngine | None = None
        self._ctx: AppContext | None = None
        self._watchdogs: set[asyncio.Task[None]] = set()

    @property
    def ctx(self) -> AppContext:
        if self._ctx is None:
            raise RuntimeError("the bot is not set up yet")
        return self._ctx

    async def setup_hook(self) -> None:
        started = time.perf_counter()
        tables = load_all()
        release_validators()
        self.engine = db_session.create_engine(self.settings.database_url)
        if not await db_session.is_up_to_date(self.engine):
            await db_session.upgrade(self.engine)
        # Tests only: a distant database (seconds before each transaction starts).
        delay = float(os.environ.get("MELEE_DB_DELAY") or 0)
        sessions = db_session.create_sessionmaker(self.engine, delay=delay)
        fight_systems.check_complete()
        roll_log = RollLogWriter(sessions)
        roll_log.start()
        self._ctx = AppContext(
            settings=self.settings,
            sessions=sessions,
            catalog=self._catalog,
            rng=self._rng,
            roll_log=roll_log,
            tables=tables,
            now=self._now or utc_now,
        )
        await self.tree.set_translator(CatalogTranslator(self._catalog))
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        await self.sync_commands()
        self.health_beat.start()
        # `python -m bot` starts with the collector off (bot/__main__.py): the bot then manages it.
        self._gc_managed = self._gc_managed or not gc.isenabled()
        if self._gc_managed:
            # What start-up built (modules, classes, tables, the command tree) lives as long as the
            # process: out of the collector's sight, later full collections stay short. The
            # collector stays off while the guilds stream in (each shard's GUILD_CREATEs): the
            # cache they build is frozen too once the shard is ready (:meth:`on_shard_ready`).
            gc.freeze()
            trim_heap()
        log.info("set up in %.2f s (%d data tables)", time.perf_counter() - started, len(tables))

    async def command_digest(self, guild: discord.abc.Snowflake | None) -> str:
        """A hash of exactly what ``tree.sync`` would PUT (localisations included)."""
        commands_ = self.tree._get_all_commands(guild=guild)
        translator = self.tree.translator
        if translator is not None:
            payload = [await command.get_translated_payload(self.tree, translator) for command in commands_]
        else:
            payload = [command.to_dict(self.tree) for command in commands_]
        text = json.dumps([self.application_id, payload], sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    async def sync_commands(self) -> None:
        """Sync the command tree if it changed since the last sync (a hash kept in the database,
        one process at a time). A failed sync is logged and the bot connects anyway: the commands
        Discord already has keep working, and the next start tries again."""
        guild: discord.Object | None = None
        if self.settings.dev_guild_id is not None:
            guild = discord.Object(id=self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
        scope = f"guild:{guild.id}" if guild is not None else "global"
        sessions = self.ctx.sessions
        try:
            digest = await self.command_digest(guild)
            if not await command_sync.claim(sessions, scope, digest):
                log.info("commands unchanged since the last sync (%s): not syncing", scope)
                return
        except Exception:
            log.exception("could not compare the command tree with the last sync; syncing")
            digest = ""
        recorded: str | None = None
        try:
            synced = await self.tree.sync(guild=guild)
            recorded = digest or None
            if guild is not None:
                log.info("synced %d commands to the development server", len(synced))
            else:
                log.info("synced %d global commands", len(synced))
        except (discord.HTTPException, aiohttp.ClientError, TimeoutError) as exc:
            log.error("command sync failed (%s); connecting with the commands Discord already has", exc)
        finally:
            with contextlib.suppress(Exception):
                await command_sync.done(sessions, scope, recorded)

    @tasks.loop(seconds=HEALTH_INTERVAL_SECONDS)
    async def health_beat(self) -> None:
        # The container's HEALTHCHECK reads this file: stale means the gateway is gone.
        if self.is_ready() and not self.is_closed() and self.latency == self.latency:
            path = health_file()
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(str(time.time()), encoding="utf-8")
        # /simuler's warm tables (tens of MiB) are not kept once GMs have stopped simulating; the
        # module is only looked at if a /simuler has loaded it.
        simulation = sys.modules.get("bot.services.simulation")
        if simulation is not None and simulation.release_idle():
            gc.collect()
            trim_heap()

    @health_beat.before_loop
    async def _before_health(self) -> None:
        await self.wait_until_ready()

    def dispatch(self, event_name: str, /, *args: Any, **kwargs: Any) -> None:
        super().dispatch(event_name, *args, **kwargs)
        if event_name == "interaction":  # a click or form no view claims gets an "expired" answer
            from bot.cogs._guard import answer_if_unhandled

            answer_if_unhandled(self, args[0])
            self._watch(args[0])

    def _watch(self, interaction: discord.Interaction[Any]) -> None:
        """Last safety net: an interaction still unanswered near Discord's 3 s deadline (a handler
        that crashed where discord.py only logs, e.g. inside a button) gets a generic error."""
        # Slash commands report their own errors (the tree's on_error); buttons and forms are where
        # discord.py only logs a crash, so the safety net watches those alone.
        if interaction.type not in (discord.InteractionType.component, discord.InteractionType.modal_submit):
            return
        task = asyncio.get_running_loop().create_task(self._answer_if_silent(interaction))
        self._watchdogs.add(task)
        task.add_done_callback(self._watchdogs.discard)

    async def _answer_if_silent(self, interaction: discord.Interaction[Any]) -> None:
        await asyncio.sleep(WATCHDOG_SECONDS)
        if interaction.response.is_done() or self._ctx is None:
            return
        from bot.ui.reply import error_reply

        reply = error_reply(self._ctx.catalog.t(str(interaction.locale), "common.error.unexpected"))
        log.warning(
            "interaction %s had no answer after %.1f s; sent a generic error",
            interaction.id,
            WATCHDOG_SECONDS,
        )
        with contextlib.suppress(discord.HTTPException):
            from bot.cogs._common import send_reply

            await send_reply(interaction, reply)

    async def on_shard_connect(self, shard_id: int) -> None:
        """A shard identified: its guilds stream in now; the collector stays out of it (it would
        walk the growing cache again and again)."""
        if self._gc_managed:
            gc.disable()

    async def on_shard_ready(self, shard_id: int) -> None:
        self._freeze_cache(f"shard {shard_id}")

    async def on_ready(self) -> None:
        log.info("ready as %s in %d servers", self.user, len(self.guilds))
        self._freeze_cache("all shards")
        probe = os.environ.get("MELEE_GC_PROBE")  # benchmarks/bench_guilds.py: the pause a full
        if probe:  # collection costs now, written to that file
            self._gc_probe(Path(probe))

    def _gc_probe(self, path: Path) -> None:
        pauses = []
        for _ in range(3):
            started = time.perf_counter()
            gc.collect()
            pauses.append((time.perf_counter() - started) * 1000)
        figures = {
            "ready_at": time.time(),
            "guilds": len(self.guilds),
            "full_gc_ms": pauses,
            "frozen": gc.get_freeze_count(),
            "tracked": len(gc.get_objects()),
        }
        path.write_text(json.dumps(figures), encoding="utf-8")

    def _freeze_cache(self, what: str) -> None:
        """discord.py's cache (guilds, channels, roles, members, emojis: ~39 MiB per 1 000 guilds)
        lives as long as the connection: frozen, a full collection no longer walks it (it paused
        the bot 251 ms at 5 000 guilds); the collector is on again for what comes after."""
        if not self._gc_managed:
            return
        gc.freeze()
        gc.enable()
        log.debug("collector: %d objects frozen after %s", gc.get_freeze_count(), what)

    async def close(self) -> None:
        if self.health_beat.is_running():
            self.health_beat.cancel()
        updater = getattr(self, "_melee_tracker_updater", None)  # bot.cogs._tracker_updater
        if updater is not None:
            # The trackers' last edits go out before the connection closes (bounded wait).
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(updater.idle(), 5.0)
        await super().close()
        if self._ctx is not None:
            await self._ctx.roll_log.close()  # a clean shutdown loses no roll
        if self.engine is not None:
            await self.engine.dispose()
