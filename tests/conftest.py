"""Shared fixtures: a real database per test — a SQLite file, and PostgreSQL when available.

Also the suite's hygiene: ``--random-order`` runs the modules, and the tests inside each module, in
an order drawn from a seed (printed in the header; ``--random-order-seed=N`` replays one), so a
test that leans on another's leftovers shows up; module state that tests share (the duel
simulator's kept tables and run lock) is reset around every test.
"""

from __future__ import annotations

import os
import random
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from bot.context import AppContext, migrated_context
from bot.data_loading import Table
from bot.db.session import create_engine

POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL")


# -- random order -----------------------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("random order")
    group.addoption(
        "--random-order",
        action="store_true",
        help="shuffle the modules and the tests inside each module (the seed is printed)",
    )
    group.addoption(
        "--random-order-seed",
        type=int,
        default=None,
        help="the seed of --random-order (implies it), to replay an order",
    )


def _order_seed(config: pytest.Config) -> int | None:
    seed: int | None = config.getoption("--random-order-seed")
    if seed is None and config.getoption("--random-order"):
        seed = getattr(config, "_melee_order_seed", None)
        if seed is None:
            seed = random.SystemRandom().randrange(10**6)
        config._melee_order_seed = seed  # type: ignore[attr-defined]
    return seed


def pytest_report_header(config: pytest.Config) -> str | None:
    seed = _order_seed(config)
    if seed is None:
        return None
    return f"random order: seed {seed} (replay with --random-order-seed={seed})"


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    seed = _order_seed(config)
    if seed is not None:  # also under -q, where the header is not shown
        terminalreporter.write_line(f"random order: seed {seed} (replay with --random-order-seed={seed})")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    seed = _order_seed(config)
    if seed is None:
        return
    rng = random.Random(seed)
    # Module by module, so module-scoped fixtures are still set up once per module.
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::")[0], []).append(item)
    groups = list(modules.values())
    rng.shuffle(groups)
    for group in groups:
        rng.shuffle(group)
    items[:] = [item for group in groups for item in group]


# -- module state shared between tests ---------------------------------------------------------------


def _reset_simulator() -> None:
    """Drop the duel simulator's kept tables, once no run holds its lock (a leftover thread's)."""
    module = sys.modules.get("bot.services.simulation")
    if module is None:
        return
    lock = module._RUN_LOCK
    if not lock.acquire(timeout=60):
        raise RuntimeError("a duel simulation left running by an earlier test never finished")
    try:
        module._SIMULATORS.clear()
        module._SAMPLERS.clear()
        module._last_used = 0.0
    finally:
        lock.release()


@pytest.fixture(autouse=True)
def _fresh_module_state() -> Iterator[None]:
    _reset_simulator()
    yield
    _reset_simulator()


def _postgres_param() -> object:
    return pytest.param(
        "postgresql",
        marks=[
            pytest.mark.postgres,
            pytest.mark.skipif(
                not POSTGRES_URL, reason="TEST_POSTGRES_URL not set (scripts/test.sh starts one)"
            ),
        ],
    )


@pytest.fixture(params=["sqlite", _postgres_param()])
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A fresh, empty database: a SQLite file, or a new PostgreSQL database dropped afterwards."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'melee.db'}"
        return
    assert POSTGRES_URL
    name = "melee_test_" + uuid.uuid4().hex[:12]
    admin = create_engine(POSTGRES_URL)
    async with admin.connect() as conn:
        conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
        await conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        async with admin.connect() as conn:
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        await admin.dispose()


@pytest.fixture
def app_rng() -> random.Random:
    """The bot's random source in :func:`app_context`; a module overrides it (another seed, no dice)."""
    return random.Random(1)


@pytest.fixture
def app_tables() -> dict[str, Table]:
    """The data tables in :func:`app_context`; a module overrides it with the tables it needs."""
    return {}


@pytest.fixture
async def app_context(
    database_url: str, app_rng: random.Random, app_tables: dict[str, Table]
) -> AsyncIterator[AppContext]:
    """What the services get, on a fresh migrated database (each of :func:`database_url`'s)."""
    async with migrated_context(database_url, rng=app_rng, tables=app_tables) as ctx:
        yield ctx
