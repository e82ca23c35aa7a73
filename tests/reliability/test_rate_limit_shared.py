"""One user's burst is limited across bot processes: two processes (one shard each) share the
rate-limit buckets in the database, so a user playing in a guild of each gets ``capacity`` rolls
in all, not ``capacity`` per process. With ``MELEE_RATE_LIMIT_STORE=memory`` each process keeps its
own buckets and lets twice as many through: the contrast shows the test would see a lost limit."""

from __future__ import annotations

import asyncio
import os
import re
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from bot.db.session import create_engine, upgrade
from bot.emulator.client import Result
from tests.e2e.multi import Cluster

from .support import embed_text, language_problems, outcome_of

POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL")
BURST = 8
EACH = 12  # rolls sent to each process at once


@pytest.fixture(
    params=[
        ("sqlite", "database"),
        ("sqlite", "memory"),
        pytest.param(
            ("postgresql", "database"),
            marks=[
                pytest.mark.postgres,
                pytest.mark.skipif(not POSTGRES_URL, reason="TEST_POSTGRES_URL not set"),
            ],
        ),
    ],
    ids=lambda p: "-".join(p),
)
async def shared_database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[tuple[str, str]]:
    """(a migrated database both processes share, the store under test)."""
    backend, store = request.param
    if backend == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path / 'melee.db'}"
        engine = create_engine(url)
        await upgrade(engine)  # SQLite has no migration lock: migrate before both processes start
        await engine.dispose()
        yield url, store
        return
    assert POSTGRES_URL
    name = "melee_rate_" + uuid.uuid4().hex[:12]
    admin = create_engine(POSTGRES_URL)
    async with admin.connect() as conn:
        conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
        await conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False), store
    finally:
        async with admin.connect() as conn:
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        await admin.dispose()


async def test_one_users_burst_is_limited_across_two_processes(
    tmp_path: Path, shared_database: tuple[str, str]
) -> None:
    url, store = shared_database
    env = {"MELEE_RATE_LIMITS": f"dice={BURST}/100000"}  # no token comes back during the test
    if store == "memory":
        env["MELEE_RATE_LIMIT_STORE"] = "memory"  # else SHARD_COUNT=2 chooses the database store
    cluster = Cluster(tmp_path, url, shard_count=2, nodes=[(0,), (1,)], extra_env=env)
    try:
        await cluster.start()
        tables = cluster.tables
        assert {cluster.owner(t).name for t in tables} == {"bot0", "bot1"}
        # The same user (one id) in a guild of each process, in French there and English here.
        players = [tables[0].user("alice", locale="fr"), tables[1].user("alice", locale="en-US")]
        assert players[0].id == players[1].id
        # A bystander's rolls are not held back by alice's bucket.
        bystander = tables[0].user("bob")
        sent: list[asyncio.Task[Result]] = []
        for i in range(EACH):
            for player in players:
                command = "lancer" if player.locale == "fr" else "roll"
                sent.append(asyncio.create_task(player.slash(command, expression=f"1d{6 + i}", timeout=15)))
        results = await asyncio.gather(*sent)
        other = await bystander.slash("lancer", expression="1d6")
        assert not outcome_of(cluster.emu.messages, other.interaction).refused

        accepted = {"bot0": 0, "bot1": 0}
        refused = 0
        for result in results:
            node = cluster.answered_by(result.interaction)
            assert node is not None
            outcome = outcome_of(cluster.emu.messages, result.interaction)
            assert outcome.answered, result
            locale = "fr" if result.interaction.guild_id == tables[0].guild.id else "en-US"
            assert not language_problems(outcome.text, locale), outcome.text
            if outcome.refused:
                refused += 1
                assert result.ephemeral, outcome.text
                pattern = r"Réessayez dans \d+ s" if locale == "fr" else r"Try again in \d+ s"
                assert re.search(pattern, embed_text(result.embed)), outcome.text
            else:
                accepted[node.name] += 1
        total = sum(accepted.values())
        print(
            f"\nrate limit ({store} store): {len(results)} rolls at once, "
            f"{total} accepted {accepted}, {refused} refused"
        )
        if store == "database":
            assert total == BURST, accepted  # one bucket for both processes
        else:
            assert accepted == {"bot0": BURST, "bot1": BURST}  # one bucket per process: twice the burst
        assert cluster.ownership_problems() == []
        assert cluster.log_problems() == []
    finally:
        await cluster.close()
