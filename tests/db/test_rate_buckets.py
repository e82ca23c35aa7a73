"""The database rate-limit store on real SQLite and PostgreSQL: a token bucket shared by every
process — exact under concurrency, refilled with time, chosen by ``MELEE_RATE_LIMIT_STORE``."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import select

from bot.config import ConfigError, load_settings
from bot.context import AppContext
from bot.db.rate_limit_models import RateBucket
from bot.db.session import create_engine, create_sessionmaker
from bot.services.rate_limit import DatabaseBucketStore, Limit, RateLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0  # wall-clock seconds, as the database store is given

    def __call__(self) -> float:
        return self.now


async def test_database_bucket_takes_refills_and_caps(app_context: AppContext) -> None:
    clock = Clock()
    limiter = RateLimiter(
        {"dice": Limit(capacity=3, period=3.0)}, store=DatabaseBucketStore(app_context.sessions), clock=clock
    )
    assert [await limiter.check(1, "roll") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert await limiter.check(1, "test") == pytest.approx(1.0)  # same category, same bucket
    assert await limiter.check(2, "roll") == 0.0  # another user
    assert await limiter.check(1, "help") == 0.0  # not limited: no row either
    clock.now += 0.5
    assert await limiter.check(1, "roll") == pytest.approx(0.5)  # half a token back, not enough
    clock.now += 0.5
    assert await limiter.check(1, "roll") == 0.0  # one token back after a second
    assert await limiter.check(1, "roll") > 0
    clock.now -= 50  # another machine's clock behind: no negative refill, no time travel
    assert await limiter.check(1, "roll") == pytest.approx(1.0)
    clock.now += 3650
    assert [await limiter.check(1, "roll") for _ in range(4)] == [0.0, 0.0, 0.0, pytest.approx(1.0)]
    async with app_context.sessions() as session:
        keys = set((await session.scalars(select(RateBucket.key))).all())
    assert keys == {"dice:1", "dice:2"}


async def test_concurrent_takes_from_two_engines_are_exact(app_context: AppContext) -> None:
    """Two "processes" (two engines, two pools) hammer one bucket: exactly ``capacity`` granted."""
    other = create_engine(app_context.settings.database_url)
    try:
        stores = [DatabaseBucketStore(app_context.sessions), DatabaseBucketStore(create_sessionmaker(other))]
        limit = Limit(capacity=12, period=1e6)  # no refill worth a token during the test
        now = 1_800_000_000.0
        waits = await asyncio.gather(*(stores[i % 2].take("dice:7", limit, now) for i in range(40)))
        assert sum(w == 0.0 for w in waits) == 12, waits
        assert all(w > 0 for w in waits if w != 0.0)
        async with app_context.sessions() as session:
            bucket = await session.get(RateBucket, "dice:7")
        assert bucket is not None and bucket.tokens == pytest.approx(0.0, abs=1e-3)
    finally:
        await other.dispose()


async def test_idle_buckets_are_pruned(app_context: AppContext) -> None:
    store = DatabaseBucketStore(app_context.sessions, prune_every=3, keep=60.0)
    limit = Limit(capacity=5, period=5.0)
    await store.take("dice:1", limit, 1000.0)
    await store.take("dice:2", limit, 1000.0)
    await store.take("dice:3", limit, 1100.0)  # the third take prunes what is idle for > 60 s
    async with app_context.sessions() as session:
        keys = set((await session.scalars(select(RateBucket.key))).all())
    assert keys == {"dice:3"}


async def test_an_unreachable_store_lets_commands_through(tmp_path: object) -> None:
    engine = create_engine("sqlite+aiosqlite:///" + str(tmp_path) + "/empty.db")  # no table
    try:
        store = DatabaseBucketStore(create_sessionmaker(engine))
        assert await store.take("dice:1", Limit(1, 1.0), 1.0) == 0.0
    finally:
        await engine.dispose()


def test_store_setting() -> None:
    assert load_settings({}, dotenv_path=None).rate_limit_store == "memory"
    assert load_settings({"SHARD_COUNT": "1"}, dotenv_path=None).rate_limit_store == "memory"
    assert load_settings({"SHARD_COUNT": "4", "SHARD_IDS": "0,1"}, dotenv_path=None).rate_limit_store == (
        "database"
    )
    env = {"SHARD_COUNT": "4", "MELEE_RATE_LIMIT_STORE": "memory"}
    assert load_settings(env, dotenv_path=None).rate_limit_store == "memory"
    assert load_settings({"MELEE_RATE_LIMIT_STORE": "Database"}, dotenv_path=None).rate_limit_store == (
        "database"
    )
    with pytest.raises(ConfigError, match="MELEE_RATE_LIMIT_STORE"):
        load_settings({"MELEE_RATE_LIMIT_STORE": "redis"}, dotenv_path=None)
    # The database store reads wall-clock time (shared by processes), the memory one a monotonic clock.
    store = DatabaseBucketStore(None)  # type: ignore[arg-type]
    assert RateLimiter.from_env({}, store=store).clock is not RateLimiter.from_env({}).clock
