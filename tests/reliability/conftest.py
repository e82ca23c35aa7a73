"""Reliability fixtures: the real bot behind the emulator, fresh per test or shared by a module."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from .support import Harness

RELIABILITY_DIR = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Everything here drives the real bot process: `-m "not e2e"` skips it like tests/e2e.
    for item in items:
        if RELIABILITY_DIR in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.e2e)


@asynccontextmanager
async def running(
    tmp_path: Path, *, env: dict[str, str] | None = None, log_level: str = "INFO"
) -> AsyncIterator[Harness]:
    """The emulator and ``python -m bot`` on a fresh SQLite file; stopped (and checked) on exit."""
    harness = Harness(tmp_path, env=env, log_level=log_level)
    try:
        await harness.start()
        yield harness
    finally:
        await harness.close()
    problems = harness.problems()
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


@pytest.fixture
async def fresh(tmp_path: Path) -> AsyncIterator[Harness]:
    """A bot of its own for one test (faults: kills, restarts, locks)."""
    async with running(tmp_path) as harness:
        yield harness


def check_since(harness: Harness, mark: tuple[int, int]) -> None:
    problems = harness.problems_since(mark)
    harness.expect_failures = False
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)
