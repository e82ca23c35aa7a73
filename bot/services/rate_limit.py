"""Per-user rate limits on expensive commands: a token bucket per (user, command category).

A bucket holds ``capacity`` tokens and regains ``refill_per_second``; each command takes one.
The buckets live in a :class:`BucketStore`: :class:`MemoryBucketStore` for one process (the
default), or any store sharing the state between processes (a database table, Redis…) — the
limiter only needs an atomic "take a token" per key. Time comes from an injectable clock so
tests need no sleeps.

Settings: ``MELEE_RATE_LIMITS`` — ``off`` disables the limits, otherwise
``category=capacity/seconds`` pairs separated by commas (``dice=20/10`` = a burst of 20, then
2 a second) override the defaults below. ``MELEE_RATE_LIMIT_STORE`` (read in :mod:`bot.config`):
``memory`` (one process: no database round trip per command) or ``database``
(:class:`DatabaseBucketStore`: the buckets are rows every process shares, so one user's burst is
limited across shards and processes); by default ``database`` when ``SHARD_COUNT`` > 1.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, OperationalError

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

log = logging.getLogger(__name__)

Clock = Callable[[], float]

RATE_LIMITS_ENV = "MELEE_RATE_LIMITS"


@dataclass(frozen=True, slots=True)
class Limit:
    """``capacity`` commands in a burst, then one every ``period / capacity`` seconds."""

    capacity: int
    period: float

    @property
    def refill_per_second(self) -> float:
        return self.capacity / self.period


# Commands by their root name (the name Discord sends, not the French one). Cheap look-ups
# (help, show, list, config show…) are not limited; dice and tests cost a roll-log row each;
# files and sheet writes cost parsing, validation and a transaction.
CATEGORIES: Mapping[str, str] = {
    "roll": "dice",
    "test": "dice",
    "oppose": "dice",
    "group": "dice",
    "extended": "dice",
    "chance": "dice",
    "chase": "dice",
    "interrogation": "dice",
    "combat": "dice",
    "character import": "files",
    "character export": "files",
    "rules import": "files",
    "rules export": "files",
    "character create": "sheets",
    "character edit": "sheets",
    "character equip": "sheets",
    "character delete": "sheets",
    "simulate": "simulation",
    "history": "history",
}

DEFAULT_LIMITS: Mapping[str, Limit] = {
    "dice": Limit(capacity=30, period=30.0),  # a burst of 30, then one a second
    "sheets": Limit(capacity=20, period=60.0),
    "files": Limit(capacity=5, period=60.0),
    "simulation": Limit(capacity=4, period=60.0),  # up to 2 s of CPU each
    "history": Limit(capacity=10, period=60.0),  # a read of the roll log, which grows forever
}
# Categories also limited per server, whoever sends them: one busy table cannot take the simulator
# from every other server of the process.
GUILD_LIMITS: Mapping[str, Limit] = {
    "simulation": Limit(capacity=12, period=60.0),
}


def category_of(qualified_name: str) -> str | None:
    """The category of ``character import`` / ``roll`` …, or None when it is not limited."""
    name = qualified_name.strip()
    if name in CATEGORIES:
        return CATEGORIES[name]
    root = name.split(" ", 1)[0]
    return CATEGORIES.get(root)


class BucketStore(Protocol):
    async def take(self, key: str, limit: Limit, now: float) -> float:
        """Take one token from ``key``'s bucket: 0.0 when granted, else the seconds to wait."""
        ...


class MemoryBucketStore:
    """Buckets in this process's memory: (tokens, last update) per key."""

    def __init__(self, *, max_keys: int = 100_000) -> None:
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = asyncio.Lock()
        self._max_keys = max_keys

    async def take(self, key: str, limit: Limit, now: float) -> float:
        async with self._lock:
            tokens, updated = self._buckets.get(key, (float(limit.capacity), now))
            tokens = min(float(limit.capacity), tokens + (now - updated) * limit.refill_per_second)
            if tokens >= 1.0:
                self._store(key, tokens - 1.0, now)
                return 0.0
            self._store(key, tokens, now)
            return (1.0 - tokens) / limit.refill_per_second

    def _store(self, key: str, tokens: float, now: float) -> None:
        if key not in self._buckets and len(self._buckets) >= self._max_keys:
            # Full buckets carry no information: forget them first (oldest first otherwise).
            for old in list(self._buckets)[: max(1, self._max_keys // 10)]:
                del self._buckets[old]
        self._buckets[key] = (tokens, now)


# One statement, atomic on SQLite (the write lock) and PostgreSQL (the conflicting row is locked
# while it is updated): refill the bucket for the time elapsed (never backwards, should clocks of
# two machines disagree), take a token if one is there, and say whether it was taken.
_REFILLED = (
    "CASE WHEN rate_buckets.tokens + "
    "(CASE WHEN :now > rate_buckets.updated THEN :now - rate_buckets.updated ELSE 0 END) * :rate "
    "> :capacity THEN :capacity ELSE rate_buckets.tokens + "
    "(CASE WHEN :now > rate_buckets.updated THEN :now - rate_buckets.updated ELSE 0 END) * :rate END"
)
_TAKE = text(
    "INSERT INTO rate_buckets (key, tokens, updated, granted) "
    "VALUES (:key, CAST(:capacity AS DOUBLE PRECISION) - 1, CAST(:now AS DOUBLE PRECISION), TRUE) "
    "ON CONFLICT (key) DO UPDATE SET "
    f"tokens = CASE WHEN {_REFILLED} >= 1 THEN {_REFILLED} - 1 ELSE {_REFILLED} END, "
    f"granted = ({_REFILLED} >= 1), "
    "updated = CASE WHEN :now > rate_buckets.updated THEN :now ELSE rate_buckets.updated END "
    "RETURNING granted, tokens"
)
_PRUNE = text("DELETE FROM rate_buckets WHERE updated < :before")


class DatabaseBucketStore:
    """Buckets as ``rate_buckets`` rows shared by every process on the database.

    ``now`` must be wall-clock time (``time.time``): the processes share it, not a monotonic clock.
    If the database cannot answer (locked, unreachable), the command is let through: the limit is a
    courtesy, and the command itself will tell the user to retry if the database is really down.
    """

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], *, prune_every: int = 1000, keep: float = 86_400.0
    ) -> None:
        self.sessions = sessions
        self.prune_every = prune_every
        self.keep = keep  # idle buckets older than this are full again: forget them
        self._takes = 0

    async def take(self, key: str, limit: Limit, now: float) -> float:
        params = {
            "key": key[:100],
            "now": float(now),
            "rate": float(limit.refill_per_second),
            "capacity": float(limit.capacity),
        }
        self._takes += 1
        try:
            async with self.sessions.begin() as session:
                granted, tokens = (await session.execute(_TAKE, params)).one()
                if self.prune_every and self._takes % self.prune_every == 0:
                    await session.execute(_PRUNE, {"before": float(now) - self.keep})
        except (OperationalError, DBAPIError, OSError):
            log.warning("rate limit store unavailable: %s let through", key.split(":", 1)[0])
            return 0.0
        if granted:
            return 0.0
        return (1.0 - float(tokens)) / limit.refill_per_second


class RateLimiter:
    def __init__(
        self,
        limits: Mapping[str, Limit] | None = None,
        *,
        store: BucketStore | None = None,
        clock: Clock = time.monotonic,
        enabled: bool = True,
    ) -> None:
        self.limits = dict(DEFAULT_LIMITS if limits is None else limits)
        self.store: BucketStore = store or MemoryBucketStore()
        self.clock = clock
        self.enabled = enabled

    async def check(self, user_id: int, qualified_name: str, guild_id: int | None = None) -> float:
        """0.0 when ``user_id`` may run the command now, else how many seconds to wait (his own
        bucket, then the server's for the categories of :data:`GUILD_LIMITS`)."""
        if not self.enabled:
            return 0.0
        category = category_of(qualified_name)
        limit = self.limits.get(category) if category else None
        if category is None or limit is None:
            return 0.0
        wait = await self.store.take(f"{category}:{user_id}", limit, self.clock())
        shared = GUILD_LIMITS.get(category)
        if wait > 0 or shared is None or guild_id is None:
            return wait
        return await self.store.take(f"{category}:guild:{guild_id}", shared, self.clock())

    @classmethod
    def from_env(cls, env: Mapping[str, str], *, store: BucketStore | None = None) -> RateLimiter:
        """Limits from ``MELEE_RATE_LIMITS`` (see the module's docstring); bad values raise ValueError."""
        raw = env.get(RATE_LIMITS_ENV, "").strip()
        if raw.lower() in ("off", "none", "0", "false"):
            return cls(enabled=False)
        limits = dict(DEFAULT_LIMITS)
        for part in filter(None, (p.strip() for p in raw.split(","))):
            category, _, spec = part.partition("=")
            capacity, _, period = spec.partition("/")
            limit = Limit(capacity=int(capacity), period=float(period))
            if limit.capacity < 1 or not math.isfinite(limit.period) or limit.period <= 0:
                raise ValueError(f"{RATE_LIMITS_ENV}: bad limit {part!r}")
            limits[category.strip()] = limit
        # The database store compares times across processes: wall-clock time, not monotonic.
        clock: Clock = time.time if isinstance(store, DatabaseBucketStore) else time.monotonic
        return cls(limits, store=store, clock=clock)


def wait_seconds(wait: float) -> int:
    """A wait shown to users: whole seconds, at least one."""
    return max(1, math.ceil(wait))
