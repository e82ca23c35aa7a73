"""End-to-end harness: the Discord emulator in the test's loop, the real bot as a subprocess.

``E2E`` is a ``Table`` (users, channels, threads, DMs, pins) plus control of the bot
process: start, SIGKILL and restart on the same database, drop the gateway socket.
Every wait is on something the emulator records, with a timeout: no fixed sleeps.
"""

# ruff: noqa: ASYNC109 -- "within timeout seconds" is the API tests read best.

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import re
import signal
import sys
from pathlib import Path
from typing import IO

from bot.emulator.client import Table
from bot.emulator.gateway import GatewaySession
from bot.emulator.server import Emulator, EmulatorConfig
from bot.emulator.state import OffsetClock, RecordedRequest

REPO_ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 30.0

# Safety net: whatever happens to the test, no bot process outlives the test run.
_LIVE_PIDS: set[int] = set()


@atexit.register
def _kill_leftovers() -> None:
    for pid in list(_LIVE_PIDS):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)


class BotProcess:
    """``python -m bot`` pointed at the emulator, its output in a log file."""

    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self.env = env
        self.log_path = log_path
        self.proc: asyncio.subprocess.Process | None = None
        self._log: IO[bytes] | None = None
        self.starts = 0

    async def start(self) -> None:
        assert self.proc is None or self.proc.returncode is not None, "bot already running"
        self._log = self.log_path.open("ab")
        self._log.write(f"\n===== start #{self.starts + 1} =====\n".encode())
        self._log.flush()
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            cwd=REPO_ROOT,
            env=self.env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=self._log,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,  # its own process group, killed as a whole
        )
        self.starts += 1
        _LIVE_PIDS.add(self.proc.pid)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def kill(self) -> None:
        """SIGKILL: no goodbye to the gateway, no clean database shutdown."""
        await self._signal(signal.SIGKILL, wait=10.0)

    async def stop(self) -> None:
        """SIGTERM, then SIGKILL if it lingers."""
        if not await self._signal(signal.SIGTERM, wait=5.0):
            await self.kill()

    async def _signal(self, sig: signal.Signals, *, wait: float) -> bool:
        proc = self.proc
        if proc is None:
            return True
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, sig)
            try:
                await asyncio.wait_for(proc.wait(), wait)
            except TimeoutError:
                return False
        _LIVE_PIDS.discard(proc.pid)
        if self._log is not None:
            self._log.close()
            self._log = None
        return True

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return ""

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])


class E2E(Table):
    """The table as seen by a test, with the real bot behind the emulator."""

    def __init__(
        self, tmp_path: Path, config: EmulatorConfig | None = None, *, log_level: str = "INFO"
    ) -> None:
        self.clock = OffsetClock()
        emu = Emulator(config, clock=self.clock)
        emu.add_default_world()
        super().__init__(emu, channel="partie")
        self.tmp_path = tmp_path
        self.database_url = f"sqlite+aiosqlite:///{tmp_path / 'melee.db'}"
        self.log_level = log_level
        self.bot: BotProcess | None = None
        # Set by tests that provoke refusals on purpose; otherwise teardown fails on any.
        self.expect_failures = False
        # More environment for the bot process (e.g. MELEE_DB_DELAY: a distant database).
        self.extra_env: dict[str, str] = {}
        emu.health_checks.append(self._bot_health)

    def _bot_health(self) -> str | None:
        bot = self.bot
        if (
            bot is None
            or bot.proc is None
            or bot.proc.returncode is None
            or getattr(self, "_stopping", False)
        ):
            return None
        return f"the bot exited with code {bot.proc.returncode}:\n{bot.log_tail()}"

    def bot_env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "SHARD_"))}
        env.update(
            DISCORD_TOKEN="emulator-token",
            DISCORD_API_BASE=self.emu.base_url,
            DATABASE_URL=self.database_url,
            DEV_GUILD_ID=self.guild.id,
            LOG_LEVEL=self.log_level,
            MELEE_HEALTH_FILE=str(self.tmp_path / "health"),
            PYTHONUNBUFFERED="1",
            PYTHONDONTWRITEBYTECODE="1",
        )
        env.update(self.extra_env)
        return env

    # -- lifecycle -----------------------------------------------------------------------

    async def start(self, *, bot: bool = True) -> None:
        await self.emu.start()
        if bot:
            await self.start_bot()

    async def start_bot(self, *, timeout: float = START_TIMEOUT) -> None:
        """Start ``python -m bot`` and wait until its commands are synced and its gateway is up."""
        self._stopping = False
        if self.bot is None:
            self.bot = BotProcess(self.bot_env(), self.tmp_path / "bot.log")
        mark = len(self.emu.requests)
        await self.bot.start()
        await self.wait_ready(after=mark, timeout=timeout)

    async def wait_ready(self, *, after: int = 0, timeout: float = START_TIMEOUT) -> None:
        """Wait for the gateway session (the bot syncs its commands before connecting, and only
        when its tree changed since the last sync recorded in its database)."""
        await self.emu.wait_until(self._live_session, timeout=timeout, what="the bot's gateway session")
        for sync in self.sync_requests(after=after):
            if sync.status == 400:
                raise AssertionError(
                    f"command sync refused ({sync.status}): {sync.response}\n{self._log_tail()}"
                )

    def sync_requests(self, *, after: int = 0) -> list[RecordedRequest]:
        pattern = re.compile(r"^/applications/\d+(/guilds/\d+)?/commands$")
        return [r for r in self.emu.requests[after:] if r.method == "PUT" and pattern.search(r.path)]

    def _live_session(self) -> GatewaySession | None:
        for session in self.emu.gateway.sessions.values():
            if session.identified.is_set() and session.ws is not None and not session.ws.closed:
                return session
        return None

    def _log_tail(self) -> str:
        return self.bot.log_tail() if self.bot else ""

    async def kill_bot(self) -> None:
        """SIGKILL the bot process (a crash); its socket dies with it."""
        self._stopping = True
        if self.bot is not None:
            await self.bot.kill()
        await self.emu.wait_until(lambda: not self.emu.gateway.connected, what="the socket to close")

    async def restart_bot(self, *, timeout: float = START_TIMEOUT) -> None:
        """SIGKILL then start again on the same database."""
        await self.kill_bot()
        await self.start_bot(timeout=timeout)

    async def drop_gateway(self, *, wait_resume: bool = True, timeout: float = 10.0) -> None:
        """Close the bot's socket with a resumable code; by default wait for its RESUME."""
        session = self._live_session()
        assert session is not None, "no live gateway session"
        resumes = session.resumes
        await self.emu.gateway.drop()
        if wait_resume:
            await self.emu.wait_until(
                lambda: session.resumes > resumes and session.ws is not None,
                timeout=timeout,
                what="the bot to RESUME",
            )

    async def close(self) -> None:
        self._stopping = True
        try:
            if self.bot is not None:
                await self.bot.stop()
        finally:
            await self.emu.stop()

    def problems(self) -> list[str]:
        """What should fail a test at teardown: refusals by "Discord", tracebacks in the bot log."""
        found: list[str] = []
        if not self.expect_failures:
            found += [f"emulator refused: {f}" for f in self.failures]
        log = self.bot.log_text() if self.bot else ""
        if "Traceback (most recent call last)" in log:
            found.append("the bot logged a traceback:\n" + self._log_tail())
        return found
