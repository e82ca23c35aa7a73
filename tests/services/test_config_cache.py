"""The process cache of server settings read by ``/test``: a change is seen by the very next command
in this process, by another process within the TTL, and a read overlapping a change is not kept."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import pytest

from bot.context import AppContext
from bot.data_loading import DATA_DIR, Table, validate_file
from bot.db.repositories import set_channel_ruleset, update_server_config
from bot.db.roll_log import RollLogWriter
from bot.db.session import create_engine, create_sessionmaker
from bot.services import config as config_svc
from bot.services.caller import Caller
from bot.services.config import ConfigCache, config_cache
from bot.services.skill_tests.single import TestRequest, skill_test

GUILD, CHANNEL, THREAD, OWNER = 910, 42, 43, 99


def caller(user_id: int, *, gm: bool = False, channel: int = CHANNEL, parent: int | None = None) -> Caller:
    return Caller(
        user_id=user_id,
        guild_id=GUILD,
        channel_id=channel,
        parent_channel_id=parent,
        locale="fr",
        manage_guild=gm,
    )


ALICE, GM = caller(1), caller(3, gm=True)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def app_rng() -> random.Random:
    return random.Random(3)


@pytest.fixture
def app_tables() -> dict[str, Table]:
    return {"secret_tests": validate_file(DATA_DIR / "secret_tests.json")}


@pytest.fixture
def ctx(app_context: AppContext) -> AppContext:
    return app_context


async def _test_ruleset(ctx: AppContext, who: Caller = ALICE) -> str:
    reply = await skill_test(ctx, who, TestRequest(carac="45", roll=10))
    assert not reply.is_error and reply.result is not None, reply.description
    return str(reply.result["ruleset"])


async def test_a_config_change_is_seen_by_the_next_test_immediately(ctx: AppContext) -> None:
    cache = config_cache(ctx)
    assert await _test_ruleset(ctx) == "renove"
    reads = cache.reads
    assert await _test_ruleset(ctx) == "renove"
    assert cache.reads == reads  # served from the cache: no database read

    assert not (await config_svc.set_ruleset(ctx, GM, ruleset="d20")).is_error
    assert await _test_ruleset(ctx) == "d20"
    # A channel override, then its removal, are seen at once too (thread inherits its channel's).
    assert not (await config_svc.set_ruleset(ctx, GM, ruleset="v1", scope="channel")).is_error
    assert await _test_ruleset(ctx) == "v1"
    assert await _test_ruleset(ctx, caller(1, channel=THREAD, parent=CHANNEL)) == "v1"
    assert not (await config_svc.set_ruleset(ctx, GM, ruleset="d20", scope="channel")).is_error
    assert await _test_ruleset(ctx) == "d20"


async def test_gm_role_and_gm_channel_changes_are_seen_immediately(ctx: AppContext) -> None:
    player = caller(5)
    secret = TestRequest(carac="45", roll=10, secret=True, owner_id=OWNER)
    first = await skill_test(ctx, player, secret)
    assert first.also and first.also[0].user_id == OWNER  # no GM channel yet: the owner's DMs

    assert not (await config_svc.set_gm_channel(ctx, GM, channel_id=777)).is_error
    second = await skill_test(ctx, player, secret)
    assert second.also and second.also[0].channel_id == 777

    # Player 5 becomes GM by the new GM role: his secret test is now answered to him privately.
    gm_by_role = Caller(user_id=5, guild_id=GUILD, channel_id=CHANNEL, locale="fr", role_ids=frozenset({66}))
    assert (await skill_test(ctx, gm_by_role, secret)).also
    assert not (await config_svc.set_gm_role(ctx, GM, role_id=66)).is_error
    third = await skill_test(ctx, gm_by_role, secret)
    assert third.ephemeral and not third.also


async def test_another_process_change_is_seen_within_the_ttl(ctx: AppContext) -> None:
    clock = Clock()
    cache = ConfigCache(ttl=5.0, clock=clock)
    config, ruleset = await cache.in_force(ctx.sessions, GUILD, [CHANNEL])
    assert ruleset == "renove" and config is not None
    # Another process writes (its own cache is cleared, not this one).
    async with ctx.sessions.begin() as session:
        await update_server_config(session, GUILD, ruleset="ogl")
        await set_channel_ruleset(session, GUILD, THREAD, "v1")
    clock.now += 4.9
    assert (await cache.in_force(ctx.sessions, GUILD, [CHANNEL]))[1] == "renove"  # within the bound
    clock.now += 0.2
    assert (await cache.in_force(ctx.sessions, GUILD, [CHANNEL]))[1] == "ogl"
    assert (await cache.in_force(ctx.sessions, GUILD, [THREAD, CHANNEL]))[1] == "v1"


async def test_an_entry_in_use_is_refreshed_before_it_expires_within_the_same_bound(ctx: AppContext) -> None:
    clock = Clock()
    cache = ConfigCache(ttl=5.0, clock=clock)
    assert (await cache.in_force(ctx.sessions, GUILD, [CHANNEL]))[1] == "renove"
    clock.now += 3.0  # not yet in the last fifth: a plain hit
    await cache.in_force(ctx.sessions, GUILD, [CHANNEL])
    assert cache.reads == 1
    async with ctx.sessions.begin() as session:  # another process changes the ruleset
        await update_server_config(session, GUILD, ruleset="ogl")
    clock.now += 1.5  # 4.5 s: served at once from the entry, read again in the background
    assert (await cache.in_force(ctx.sessions, GUILD, [CHANNEL]))[1] == "renove"
    for _ in range(20):  # let the background read finish
        await asyncio.sleep(0.01)
    assert cache.reads == 2
    clock.now += 1.0  # 5.5 s: the first entry has expired, the refreshed one (read at 4.5 s) serves
    assert (await cache.in_force(ctx.sessions, GUILD, [CHANNEL]))[1] == "ogl"
    assert cache.reads == 2  # no command waited for a read
    clock.now += 5.0  # 10.5 s: past the refreshed entry's bound too (no command used it since)
    assert (await cache.in_force(ctx.sessions, GUILD, [CHANNEL]))[1] == "ogl"
    assert cache.reads == 3


async def test_a_read_overlapping_a_change_is_not_kept_and_misses_share_one_read(ctx: AppContext) -> None:
    cache = ConfigCache()
    results = await asyncio.gather(*(cache.in_force(ctx.sessions, GUILD, [CHANNEL]) for _ in range(10)))
    assert {r[1] for r in results} == {"renove"}
    assert cache.reads == 1  # ten concurrent misses, one read

    cache.invalidate()
    pending = asyncio.create_task(cache.in_force(ctx.sessions, GUILD, [CHANNEL]))
    await asyncio.sleep(0)  # its read has started
    async with ctx.sessions.begin() as session:
        await update_server_config(session, GUILD, ruleset="d20")
    cache.invalidate()  # what the config service does after its commit
    await pending
    # The overlapping read was not stored nor shared: the next command reads the new value.
    assert (await cache.in_force(ctx.sessions, GUILD, [CHANNEL]))[1] == "d20"
    assert cache.reads == 3


@pytest.fixture
async def second_process(ctx: AppContext) -> AsyncIterator[AppContext]:
    """Another bot process on the same database: its own engine, session factory and cache."""
    engine = create_engine(ctx.settings.database_url)
    sessions = create_sessionmaker(engine)
    writer = RollLogWriter(sessions)
    try:
        yield AppContext(
            settings=ctx.settings,
            sessions=sessions,
            catalog=ctx.catalog,
            rng=random.Random(4),
            roll_log=writer,
            tables=ctx.tables,
        )
    finally:
        await writer.close()
        await engine.dispose()


async def test_each_process_has_its_own_cache(ctx: AppContext, second_process: AppContext) -> None:
    assert config_cache(ctx) is config_cache(ctx)
    assert config_cache(ctx) is not config_cache(second_process)
    assert await _test_ruleset(ctx) == "renove"
    assert not (await config_svc.set_ruleset(second_process, GM, ruleset="d20")).is_error
    assert await _test_ruleset(second_process) == "d20"  # the writer's process: at once
    config_cache(ctx)._clock = lambda: float("inf")  # past the TTL
    assert await _test_ruleset(ctx) == "d20"
